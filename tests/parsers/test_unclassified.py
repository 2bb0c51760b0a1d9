"""Nothing unknown is lost (kind `unclassified`) and NVLink5 verdicts decide severity."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsers import Classifier, Scanner, at_least, parse_line
from parsers.unclassified import DRIVERS, unclassified

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _nvlink5_rows():
    for raw in (FIXTURES / "semantics" / "nvlink5-xid.txt").read_text().splitlines():
        if raw and not raw.startswith("#"):
            severity, line = raw.split("\t", 1)
            yield severity, line


@pytest.mark.parametrize("severity,line", list(_nvlink5_rows()))
def test_nvlink5_decode_or_verdict_decides_severity(severity, line):
    f = parse_line(line)
    assert f is not None and f.kind == "xid" and 144 <= f.xid <= 150
    assert f.severity == severity
    assert f.details["verdict"] == ("nonfatal" if " Nonfatal " in line else "fatal")
    assert f.details["unit"] and "link" in f.details


# synthetic: driver lines shaped like the drivers' messages, with wording no rule of the table knows.
UNKNOWN = [
    ("NVRM: GPU 0000:3b:00.0: kbusSetupBar2 failed! (0x26:0x65:1453)", "nvidia"),
    ("NVRM: GPU1 kfooBarCheck_GH100: register check failed (0x3)", "nvidia"),
    ("mlx5_core 0000:0c:00.0: mlx5_fw_tracer_start:900:(pid 12): tracer: failed to start, err -5", "mlx5_core"),
    ("pcieport 0000:00:01.0: pciehp: Slot(1): Link Training Error", "pcieport"),
    ("nvidia-nvswitch3: unexpected interrupt, fatal condition", "nvidia-nvswitch"),
    ("nvidia-peermem nv_mem_get_pages: failed to get user pages", "nvidia-peermem"),
]


@pytest.mark.parametrize("line,driver", UNKNOWN)
def test_unknown_driver_error_is_kept(line, driver):
    f = parse_line(line)
    assert f is not None and f.kind == "unclassified", f
    assert f.severity == "warning" and f.details["driver"] == driver


def test_unclassified_pci_and_benign_words():
    f = parse_line("NVRM: GPU 0000:3b:00.0: kbusSetupBar2 failed! (0x26:0x65:1453)")
    assert f.pci == "0000:3b:00"
    # boot announcements with an error word stay silent
    for line in ("pcieport 0000:00:01.0: DPC: error containment capabilities: Int Msg #0, RPExt+ PoisonedTLP+",
                 "pcieport 0000:00:01.0: AER: enabled with IRQ 122",
                 "mlx5_core 0000:0c:00.0: firmware version: 28.39.1002",
                 "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"):
        f = parse_line(line)
        assert f is None or f.kind != "unclassified", line
    # a line no driver wrote is never unclassified
    assert unclassified("systemd[1]: Failed to start foo.service") is None


# verbatim: the GPU driver's PCIe chipset set-up carrying on at start (open-gpu-kernel-modules #421, #568): no finding
CHIPSET_SETUP = [
    "[    1.924873] NVRM objClInitPcieChipset: *** Chipset Setup Function Error!",
    "Oct 31 17:53:41 fedora kernel: NVRM objClInitPcieChipset: *** Chipset Setup Function Error!",
]


@pytest.mark.parametrize("line", CHIPSET_SETUP)
def test_chipset_setup_chatter_is_silent(line):
    f = parse_line(line)
    assert f is None or not at_least(f.severity, "warning"), f


def test_chipset_setup_benign_is_that_wording_only():
    # synthetic: another failure in the same function keeps the net's warning
    f = parse_line("NVRM: objClInitPcieChipset: *** PCI-E config space mapping failed")
    assert f is not None and f.kind == "unclassified"


def test_a_recognised_line_is_not_unclassified():
    f = parse_line("NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    assert f.kind == "xid"


def test_driver_table_is_data():
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in DRIVERS)


def _healthy_logs():
    yield FIXTURES / "dmesg" / "negatives.log"
    realworld = FIXTURES / "realworld"
    if realworld.is_dir():
        yield from sorted(p for p in realworld.rglob("*") if p.is_file() and "healthy" in str(p.relative_to(realworld)))


@pytest.mark.parametrize("path", list(_healthy_logs()), ids=lambda p: p.name)
def test_healthy_logs_give_no_warning(path):
    with path.open("rb") as fh:
        loud = [f for f in Scanner(Classifier()).scan(fh, name=path.name) if at_least(f.severity, "warning")]
    assert loud == []


def test_the_msi_fallback_benign_is_that_wording_only():
    # verbatim (CachyOS-PKGBUILDS #1038, 580.119.02): MSI off, INTx in use, the GPU works: no finding
    f = parse_line("[    4.302611] NVRM: GPU 0000:01:00.0: Failed to enable MSI; falling back to PCIe virtual-wire "
                   "interrupts.")
    assert f is None or not at_least(f.severity, "warning"), f
    # synthetic: the MSI-X failure names no fallback (kernel-open/nvidia/nv-msi.c): the net's warning stays
    f = parse_line("NVRM: GPU 0000:82:00.0: Failed to enable MSI-X.")
    assert f is not None and f.kind == "unclassified"


def test_the_rm_not_supported_benign_is_that_answer_only():
    # verbatim (NVIDIA/nvtrust #54, an H100 at start, 550; realworld/nvrm-notsupported-2026.yaml): a generated HAL stub's
    # assertion and a check on a call that answered NV_ERR_NOT_SUPPORTED: no finding
    for line in ("[   86.776417] NVRM: nvAssertFailed: Assertion failed: 0 @ g_kern_gmmu_nvoc.h:1967",
                 "[   87.352832] NVRM: nvCheckOkFailedNoLog: Check failed: Call not supported [NV_ERR_NOT_SUPPORTED] "
                 "(0x00000056) returned from pEntry->pCallback(pGpu, pEntry->pCallbackParam) @ kernel_fifo.c:3021"):
        f = parse_line(line)
        assert f is None or not at_least(f.severity, "warning"), f
    # verbatim (open-gpu-kernel-modules #892, in realworld/gsp.yaml; #402): another status, a hand-written source file's
    # assertion: the net's warning stays
    for line in ("[70527.348514] NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] "
                 "(0x00000051) returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1353",
                 "Nov 24 22:57:55 kanazawa kernel: [142500.501070] NVRM nvAssertFailedNoLog: Assertion failed: 0 @ "
                 "osapi.c:1688"):
        f = parse_line(line)
        assert f is not None and f.kind == "unclassified", line


# verbatim (NVIDIA/dcgm-exporter #657, an A30 with MIG, 58x; realworld/nvrm-mig-subscription-2026.yaml): a device-level
# client's lookup of a GPU-instance subscription it does not have, hundreds a minute on a working MIG GPU
MIG_SUBSCRIPTION = ("[Sat May  9 19:32:11 2026] NVRM: nvCheckOkFailedNoLog: Check failed: Requested object not found "
                    "[NV_ERR_OBJECT_NOT_FOUND] (0x00000057) returned from gisubscriptionGetGPUInstanceSubscription("
                    "pRsClient, RES_GET_HANDLE(pSubdevice), &pGPUInstanceSubscription) @ kernel_mig_manager.c:3091")


def test_the_mig_subscription_benign_is_that_lookup_and_status_only():
    f = parse_line(MIG_SUBSCRIPTION)
    assert f is None or not at_least(f.severity, "warning"), f
    # constructed: the 525 era's "NVRM nvCheckOkFailedNoLog:" prefix (open-gpu-kernel-modules #427, the line as far as
    # the thread shows it; its file:line not shown there, here #657's)
    f = parse_line("Dec 12 03:12:06 gputest kernel: NVRM nvCheckOkFailedNoLog: Check failed: Requested object not "
                   "found [NV_ERR_OBJECT_NOT_FOUND] (0x00000057) returned from gisubscriptionGetGPUInstanceSubscription("
                   "pRsClient, RES_GET_HANDLE(pSubdevice), &pGPUInstanceSubscription) @ kernel_mig_manager.c:3091")
    assert f is None or not at_least(f.severity, "warning"), f
    # constructed: another status from the same lookup, and NOT_FOUND from another call: the net's warning stays
    for line in (MIG_SUBSCRIPTION.replace("Requested object not found [NV_ERR_OBJECT_NOT_FOUND] (0x00000057)",
                                          "Invalid object handle [NV_ERR_INVALID_OBJECT_HANDLE] (0x00000033)"),
                 MIG_SUBSCRIPTION.replace("gisubscriptionGetGPUInstanceSubscription(", "subdeviceGetByInstance(")):
        f = parse_line(line)
        assert f is not None and f.kind == "unclassified", line


def test_a_client_freeing_an_unknown_os_event_is_silent():
    # verbatim (NVIDIA/dcgm-exporter #736, an A30 node under dcgm-exporter; realworld/nvrm-mig-subscription-2026.yaml):
    # osapi.c free_os_event answering NV_ERR_INVALID_EVENT to the client, its hParent and fd lines after it
    for line in ("[Wed Sep 16 05:23:27 2026] NVRM: free_os_event: failed to find OS event:",
                 "[Wed Sep 16 05:23:27 2026] NVRM: free_os_event:    hParent: 0xc1d775c9",
                 "[Wed Sep 16 05:23:27 2026] NVRM: free_os_event:    fd: 17"):
        f = parse_line(line)
        assert f is None or not at_least(f.severity, "warning"), f


def test_the_vga_console_warning_at_load_is_silent_and_other_corruption_is_kept():
    # verbatim (an nvidia-bug-report.log's dmesg, maz906/caffe; realworld/nvrm-vga-console-2026.yaml): the last of the
    # five lines, the only one with an error word (was an unclassified warning in each copy of the kernel log)
    f = parse_line("[    3.622363] NVRM: corruption and stability problems, and is not supported.")
    assert f is None or not at_least(f.severity, "warning"), f
    # constructed: another NVRM line naming corruption stays the net's
    f = parse_line("[    3.622363] NVRM: GPU 0000:3b:00.0: memory corruption detected")
    assert f is not None and f.kind == "unclassified", f


# lore.kernel.org/r/20250707103014.1279262-1-andy.xu@hj-micro.com (realworld/pcie-dpc-2.yaml), verbatim: mlx5's health
# recovery on the second function of a ConnectX below a contained root port; alone (no health event open) the net's
MLX5_FUNCTION_1 = ("[ 85.815016] mlx5_core 0004:01:00.1: mlx5_health_try_recover:335:(pid 2239): handling bad device "
                   "here")


def test_an_unclassified_line_of_a_function_device_keeps_its_function():
    """The rule of a classified finding's address (kinds.FUNCTION_DEVICES): a NIC's or a PCIe port's line keeps its
    function, so the second port's line is not the first port's (was `0004:01:00`); a GPU's is its device number."""
    f = parse_line(MLX5_FUNCTION_1)
    assert f.kind == "unclassified" and f.details["driver"] == "mlx5_core" and f.pci == "0004:01:00.1"
    port = parse_line("pcieport 0000:00:1c.4: pciehp: Slot(1): Link Training Error")  # synthetic, as UNKNOWN's
    assert port.kind == "unclassified" and port.pci == "0000:00:1c.4"
    gpu = parse_line("NVRM: GPU 0000:3b:00.1: kbusSetupBar2 failed! (0x26:0x65:1453)")  # synthetic, as UNKNOWN's
    assert gpu.kind == "unclassified" and gpu.pci == "0000:3b:00"


# REAL: gve at probe, a NIC clock read before the device's resources were configured
# (https://lore.kernel.org/netdev/20251202200207.1434749-1-hramamurthy@google.com/, nics-2026q.yaml): the cloud
# fabrics' NIC drivers are the net's by their dev_printk prefix, the NIC's address kept
GVE_CLOCK = "gve 0000:00:07.0: failed to read NIC clock -11"
# REAL: libfabric's efa provider in a job's log (https://github.com/aws/aws-ofi-nccl/issues/715): the provider's name is
# no driver's prefix
LIBFABRIC_EFA = ("libfabric:17778:1732779731::efa:cq:efa_cq_ibv_cq_ex_open_with_ibv_create_cq_ex():92<warn> Unable to "
                 "create extended CQ: Cannot allocate memory")


def test_a_cloud_nic_drivers_unknown_error_is_kept_naming_the_nic():
    f = parse_line(GVE_CLOCK)
    assert f is not None and (f.kind, f.details["driver"], f.pci) == ("unclassified", "gve", "0000:00:07"), f


def test_the_efa_provider_of_libfabric_is_not_the_efa_driver():
    assert unclassified(LIBFABRIC_EFA) is None


# CONSTRUCTED from NVIDIA's "Xid 144-150 Decode" sheet (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html):
# per row, a line in each IntrInfo era (V1 <R575, V2 >=R575) carrying the row's bits and each of its Error Status
# values, with either verdict word, in the format of the real lines above (NVLINK5_LINE)
def _decode_lines():
    from parsers.catalog import NVLINK5_DECODE_ROWS
    for xid, names, reason, v1, v2, statuses, action in NVLINK5_DECODE_ROWS:
        if " " in names:  # "MSE Degraded": no line of it seen, NVLINK5_LINE reads a unit of one word
            continue
        unit = names.split("/")[-1]
        for era, bits in (("v1", v1), ("v2", v2)):
            intrinfo = int(reason, 2) << 20 | int(bits, 2)
            for status in statuses or (0,):
                for verdict in ("Nonfatal", "Fatal"):
                    yield (f"NVRM: Xid (PCI:0000:04:00): {xid}, {unit} {verdict} XC0 i0 Link 03 "
                           f"(0x{intrinfo:08x} 0x{status:08x} 0x00000000 0x00000000)"), era, action


# the sheet's action decides over the driver's verdict word: RESET_GPU fatal, XID_154_EVAL a warning pointing at the
# Xid 154 beside it, IGNORE info (no condition), whether the line says Nonfatal or Fatal; a Fatal line the sheet resets
# keeps the catalog's WORKFLOW_NVLINK5_ERR (the workflow whose outcome the reset is)
_DECODE_READING = {"RESET_GPU": ("fatal", "RESET_GPU"), "XID_154_EVAL": ("warning", "XID_154"),
                   "IGNORE": ("info", "IGNORE")}


@pytest.mark.parametrize("line,era,action", list(_decode_lines()))
def test_nvlink5_line_reads_as_nvidias_decode_says(line, era, action):
    f = parse_line(line)
    if action == "RESET_GPU" and " Fatal " in line:
        assert (f.severity, f.action, "decode" in f.details) == ("fatal", "WORKFLOW_NVLINK5_ERR", False), era
    else:
        assert (f.severity, f.action, f.details["decode"]) == (*_DECODE_READING[action], action), era


@pytest.mark.parametrize("intrinfo,status,severity", [
    # RLW_REMAP: Error Status 0x40 / 0x80 RESET_GPU in either era (V1 subcode 0x082, V2 0x04: NVSentinel's csv_test.go
    # lines, realworld gb200-2026c.yaml); 0x1-0x20 XID_154_EVAL (a warning: the Xid 154 beside it says), 0x100 IGNORE
    (0x82, 0x40, "fatal"), (0x04, 0x80, "fatal"), (0x04, 0x01, "warning"), (0x82, 0x20, "warning"),
    (0x04, 0x100, "info"),
    # an IntrInfo of neither era's RLW_REMAP subcode: no row of the sheet read, the verdict's warning
    (0x05, 0x40, "warning"),
])
def test_nvlink5_decode_reads_intrinfo_and_error_status(intrinfo, status, severity):
    line = (f"NVRM: Xid (PCI:0000:04:00): 145, RLW_REMAP Nonfatal XC0 i0 Link 00 (0x{intrinfo:08x} 0x{status:08x} "
            "0x00000000 0x00000000)")  # CONSTRUCTED, the format of gpud's RLW_REMAP line (nvlink5-xid.txt)
    assert parse_line(line).severity == severity


@pytest.mark.parametrize("intrinfo,reset", [
    # RLW_RXPIPE 0x1/0x2/0x4 are "Non-fatal*": RESET_GPU only where the sheet's "Decode for action 2" holds, the bit
    # above the subcode: V1 IntrInfo[10] over 0xc2, V2 IntrInfo[7] over 0x06. V1's subcode 0xc2 has bit 7 set, so a
    # V1 line is not read as a V2 one (gpud's real V1 line 0x0409a0c2: no action 2, the row's IGNORE: info)
    (0x0409a0c2, False), (0x000000c2, False), (0x000004c2, True), (0x00000006, False), (0x00000086, True),
])
def test_nvlink5_rxpipe_action2_by_its_era(intrinfo, reset):
    line = (f"NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13 (0x{intrinfo:08x} 0x00000001 "
            "0x00000001 0x00000000 0x00100000 0x00000004)")  # CONSTRUCTED from gpud's real RXPIPE line's format
    assert parse_line(line).severity == ("fatal" if reset else "info")


# CONSTRUCTED from the kernel's format strings (drivers/net/ethernet/mellanox/mlx5/core/port.c mlx5_core_err
# "query_mcia_reg failed: status: 0x%x" under mlx5_core_err's "%s:%d:(pid %d): " prefix, in mlx5_query_module_eeprom to
# 5.12 and mlx5_query_module_id / mlx5_query_mcia after; en_ethtool.c mlx5e_get_module_eeprom's netdev_err "%s:
# mlx5_query_eeprom failed:0x%x", 6.18.y's ", status %u" after it), with a ConnectX's dmesg prefix: no public log of
# them was found. mlx5's answer to a module EEPROM read (ethtool -m, an agent's scrape) of a cage with no module, at
# error severity on every scrape (netdev, lore 20251028154330.6705d2da@kernel.org: "Millions of log entries a day
# because some ports don't have an SFP plugged in").
MODULE_QUERY_REFUSED = (
    "[ 3021.114871] mlx5_core 0000:41:00.1: mlx5_query_module_eeprom:392:(pid 41127): query_mcia_reg failed: status: 0x3",
    "[ 3021.114871] mlx5_core 0000:41:00.1: mlx5_query_module_id:311:(pid 41127): query_mcia_reg failed: status: 0x3",
    "[ 3021.114871] mlx5_core 0000:41:00.1: mlx5_query_mcia:398:(pid 41127): query_mcia_reg failed: status: 0x9",
    "[ 3021.114901] mlx5_core 0000:41:00.1 enp65s0f1np1: mlx5e_get_module_eeprom: mlx5_query_eeprom failed:0xfffffffb",
    "[ 3021.114901] mlx5_core 0000:41:00.1 enp65s0f1np1: mlx5e_get_module_eeprom: mlx5_query_eeprom failed:0xfffffffb, "
    "status 3",
)


@pytest.mark.parametrize("line", MODULE_QUERY_REFUSED)
def test_a_refused_module_eeprom_query_is_silent(line):
    """Was an unclassified warning per query: on a node whose agent scrapes its ports' modules, a warning a minute for
    every empty cage of a healthy node."""
    f = parse_line(line)
    assert f is None or not at_least(f.severity, "warning"), f


def test_the_module_query_benign_is_that_answer_only():
    """Another mlx5 register access that failed stays the net's (CONSTRUCTED, the same prefix)."""
    f = parse_line("[ 3021.114871] mlx5_core 0000:41:00.1: mlx5_query_module_id:311:(pid 41127): query_pddr_reg "
                   "failed: status: 0x3")
    assert f is not None and f.kind == "unclassified"
