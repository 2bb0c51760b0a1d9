"""Fabric Manager refused on an NVLink5 system for the ib_umad module it needs (HGX/DGX B200, B300, GB200): its start
script's precheck and its NVLink Subnet Manager's libibumad say it; the fabric never comes up (CUDA 802 on every GPU).
Each line verbatim from the source beside it (parsers/rules.py "fm_nvl5_module_missing")."""
from dataclasses import replace

from parsers.finding import from_kernel

from realworld import classified

# https://github.com/spectrocloud/CanvOS/pull/700 (HGX B200, nvidia-fabricmanager 570+ precheck; host and tag redacted)
PRECHECK = [
    "Jul 20 16:15:36 edge-...:  Detected NVL5+ system",
    'Jul 20 16:15:36 edge-...:  Kernel module "ib_umad" has not been loaded, fabric manager cannot be started',
]
# https://github.com/siderolabs/docs/pull/581 (Talos, ext-nvidia-fabricmanager crash-looping)
NVLSM = ("10.0.0.101: nvlsm: ibwarn: [15] umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version "
         "(No such file or directory): is ib_umad module loaded?")
# https://www.open-mpi.org/community/lists/users/2010/12/14997.php (ibstat on a host with no InfiniBand stack)
IBSTAT = ("ibwarn: [4260] umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such file or "
          "directory): is ib_umad module loaded?")


def test_the_precheck_refusing_fabric_manager_is_an_nvlink_error_of_the_nodes_setup():
    found = classified(PRECHECK)
    assert [(f.kind, f.severity, f.attribution, f.action) for f in found] == [
        ("nvlink", "error", "driver", "CHECK_FABRIC_MANAGER")]
    assert found[0].details.get("module") == "ib_umad"


def test_nvlsm_without_its_mads_is_the_same_error_and_counts_under_its_own_tag():
    found = classified([NVLSM])
    assert [(f.kind, f.severity, f.action) for f in found] == [("nvlink", "error", "CHECK_FABRIC_MANAGER")]
    assert from_kernel(replace(found[0], program="nvlsm"))  # nvlsm[1234]: in a syslog file: Fabric Manager's own


def test_libibumads_warning_from_another_tool_is_no_fabrics():
    assert classified([IBSTAT]) == []
