"""A kernel WARN report seen in part: its first line naming the module alone is the module's WARN (rules
kernel_warn_header / storage_warn_header: the finding the header and its RIP line make together, one per report), and a
RIP line of another function than the WARN site its first line named is another report's, whose first line is not in
the log: read on its own (Classifier._outside_report), an oops's error as any RIP line with no header.

Real lines are tests/fixtures/realworld/kernel-oops.yaml's (NVIDIA/open-gpu-kernel-modules #795 and #834,
linux-surface/linux-surface #789); test_834_s_two_reports uses #834's lines verbatim, in the order its excerpts give
(the modules list between them left out). The other lines are CONSTRUCTED from the kernel's formats: the WARN's first
line of every era (2.6 / 3.x warn_slowpath_common "WARNING: at %s:%d %pS()", RHEL 6 with " (Tainted: ..)", 3.x-6.18
kernel/panic.c __warn "WARNING: CPU: %d PID: %d at %s:%d %pS" and "WARNING: CPU: %d PID: %d at %pS", 6.19's "WARNING:
%s:%d at %pS, CPU#%d: %s/%d" and "WARNING: at %pS, CPU#%d: %s/%d"), dump_stack_print_info's CPU line, the registers'
first line of each (x86 show_regs "RIP: %04x:%pS", 2.6-3.x "RIP: 0010:[<%016lx>]  [<%016lx>] %pS", arm64 __show_regs
"pc : %pS", 4.14 and older "PC is at %pS"). Their functions are those of the real reports (nv_restore_user_channels,
nv_set_system_power_state), mlx5e_tx_timeout_work of mlx5_core, FhgfsOpsCommkit_communicate of beegfs (#107)."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier

# the WARN site ({sym}: "func+0x../0x.. [mod]") in every era's first line
HEADERS = {
    "2.6": "WARNING: at /var/lib/dkms/nvidia/510.60.02/build/nvidia/nv.c:3935 {sym}()",
    "rhel6": "WARNING: at /var/lib/dkms/nvidia/510.60.02/build/nvidia/nv.c:3935 {sym}() (Tainted: P           "
             "---------------- )",
    "3.x": "WARNING: CPU: 3 PID: 3964 at /var/lib/dkms/nvidia/510.60.02/build/nvidia/nv.c:3935 {sym}()",
    "4.x-6.18": "WARNING: CPU: 3 PID: 3964 at /var/lib/dkms/nvidia/510.60.02/build/nvidia/nv.c:3935 {sym}",
    "4.x-6.18-no-file": "WARNING: CPU: 3 PID: 3964 at {sym}",
    "6.19": "WARNING: nvidia/nv.c:3935 at {sym}, CPU#3: nvidia-sleep.sh/3964",
    "6.19-no-file": "WARNING: at {sym}, CPU#3: nvidia-sleep.sh/3964",
}
# the eras whose WARN prints registers (x86 since 4.11, arm64): a RIP / pc line of the WARN site follows
REGISTER_ERAS = ("4.x-6.18", "4.x-6.18-no-file", "6.19", "6.19-no-file")
SITES = {
    "nvidia": "nv_restore_user_channels+0xce/0xe0 [nvidia]",
    "nvidia-build-id": "nv_restore_user_channels+0xce/0xe0 [nvidia 3f2b8c1d9e0a4b5c6d7e8f901a2b3c4d5e6f7081]",
    "mlx5_core": "mlx5e_tx_timeout_work+0x4a/0x170 [mlx5_core]",
}
OTHER = "nv_set_system_power_state+0x2c1/0x3c0 [nvidia]"  # a function of the module other than the WARN site's
RIPS = {
    "x86": "RIP: 0010:{sym}",
    "x86-2.6-3.x": "RIP: 0010:[<ffffffffc0a1b2c3>]  [<ffffffffc0a1b2c3>] {sym}",
    "arm64": "pc : {sym}",
    "arm64-4.14": "PC is at {sym}",
}
MODULES = "Modules linked in: rfcomm nvidia_drm(POE) nvidia_modeset(POE) nvidia(POE) cmac algif_hash"
CPU = "CPU: 3 PID: 3964 Comm: nvidia-sleep.sh Tainted: P           OE     5.17.1-surface #1"
END = "---[ end trace 750432d2e575d3af ]---"
WARNING = ("kernel_oops", "warning", "INVESTIGATE")
ERROR = ("kernel_oops", "error", "RESTART_BM")


def _found(lines: list[str]) -> list[tuple]:
    c = Classifier()
    return [(f.kind, f.severity, f.action, f.details["function"]) for f in map(c.classify, lines) if f is not None]


def _function(sym: str) -> str:
    return sym.split("+", 1)[0]


@pytest.mark.parametrize("era", list(HEADERS))
@pytest.mark.parametrize("site", list(SITES))
def test_a_warn_s_first_line_naming_the_module_alone_is_its_warn(era, site):
    """Was no finding: the report's RIP line not in the log (2.6-4.10 print none; an excerpt), its module's WARN lost."""
    header = HEADERS[era].format(sym=SITES[site])
    assert _found([header]) == [WARNING + (_function(SITES[site]),)]
    assert _found(["------------[ cut here ]------------", header, MODULES, CPU]) == [WARNING + (_function(SITES[site]),)]


@pytest.mark.parametrize("era", list(HEADERS))
def test_a_warn_s_first_line_in_a_storage_client_module(era):
    c = Classifier()
    [f] = [f for f in map(c.classify, [HEADERS[era].format(sym="FhgfsOpsCommkit_communicate+0x3d6/0x1620 [beegfs]")])
           if f is not None]
    assert (f.kind, f.severity, f.action, f.details["filesystem"]) == ("storage_oops", "warning", "CHECK_STORAGE",
                                                                         "BeeGFS")


@pytest.mark.parametrize("line", [
    "WARNING: CPU: 2 PID: 26420 at include/linux/rwsem.h:80 follow_pte+0x1de/0x200",  # #719: core code
    "WARNING: drivers/gpu/drm/nouveau/nvkm/subdev/gsp/rm/r535/rpc.c:164 at r535_gsp_msgq_wait+0xb4/0xd0 [nouveau], "
    "CPU#0: (udev-worker)/429",  # #1151: a module no row reads
    "WARNING: at least one of the mounts is read-only",  # a program's words
])
def test_a_warn_of_another_module_or_none_stays_silent(line):
    assert _found([line, MODULES, CPU]) == []


@pytest.mark.parametrize("era", REGISTER_ERAS)
@pytest.mark.parametrize("rip", list(RIPS))
def test_the_first_line_and_its_rip_line_are_one_finding(era, rip):
    lines = [HEADERS[era].format(sym=SITES["nvidia"]), MODULES, CPU, RIPS[rip].format(sym=SITES["nvidia"]), END]
    assert _found(lines) == [WARNING + ("nv_restore_user_channels",)]


@pytest.mark.parametrize("era", REGISTER_ERAS)
@pytest.mark.parametrize("rip", list(RIPS))
def test_a_rip_line_of_another_function_is_another_report_s(era, rip):
    """Was one warning, the later RIP line's (the WARN's word inherited by another report's RIP line). Now the WARN's
    warning, and the RIP line whose report's first line is missing read on its own: an oops's error, as any RIP line
    with no header."""
    lines = [HEADERS[era].format(sym=SITES["nvidia"]), MODULES, CPU, RIPS[rip].format(sym=OTHER)]
    assert _found(lines) == [WARNING + ("nv_restore_user_channels",), ERROR + ("nv_set_system_power_state",)]


def test_a_core_warn_then_a_driver_rip_line_of_another_function():
    """A WARN in core code names its site: a RIP line in the driver is not its report's (was a warning)."""
    lines = ["WARNING: CPU: 2 PID: 26420 at include/linux/rwsem.h:80 follow_pte+0x1de/0x200", MODULES, CPU,
             RIPS["x86"].format(sym=OTHER)]
    assert _found(lines) == [ERROR + ("nv_set_system_power_state",)]


def test_two_warns_without_end_trace_are_two_findings():
    """A WARN's first line always starts a report (was: the second WARN's RIP line absorbed into the first's)."""
    lines = [HEADERS["4.x-6.18"].format(sym=SITES["nvidia"]), CPU, RIPS["x86"].format(sym=SITES["nvidia"]),
             HEADERS["4.x-6.18"].format(sym=OTHER), CPU, RIPS["x86"].format(sym=OTHER)]
    assert _found(lines) == [WARNING + ("nv_restore_user_channels",), WARNING + ("nv_set_system_power_state",)]


def test_the_same_warn_twice_is_two_findings_and_its_rip_lines_none():
    one = [HEADERS["4.x-6.18"].format(sym=SITES["nvidia"]), CPU, RIPS["x86"].format(sym=SITES["nvidia"]), END]
    assert _found(one + one) == [WARNING + ("nv_restore_user_channels",)] * 2


def test_an_oops_rip_line_with_no_header_stays_an_error():
    assert _found([CPU, RIPS["x86"].format(sym=OTHER)]) == [ERROR + ("nv_set_system_power_state",)]
    assert _found(["Oops: 0000 [#1] SMP NOPTI", CPU, RIPS["x86"].format(sym=OTHER)]) == [
        ERROR + ("nv_set_system_power_state",)]


def test_834_s_two_reports():
    """open-gpu-kernel-modules #834 (verbatim): nv_restore_user_channels' WARN, then the CPU and RIP lines of a report
    at nv_set_system_power_state whose first line is not in the excerpt (CPU 13, the WARN's CPU 6)."""
    lines = [
        "avril 21 22:46:38 bestosprec kernel: ---[ end trace 0000000000000000 ]---",
        "avril 21 22:46:38 bestosprec kernel: ------------[ cut here ]------------",
        "avril 21 22:46:38 bestosprec kernel: WARNING: CPU: 6 PID: 305193 at /build/source/kernel-open/nvidia/nv.c:4297 "
        "nv_restore_user_channels+0x4e/0x200 [nvidia]",
        "avril 21 22:46:38 bestosprec kernel: CPU: 13 UID: 0 PID: 305193 Comm: nvidia-sleep.sh Tainted: P        W  O  "
        "     6.12.23 #1-NixOS",
        "avril 21 22:46:38 bestosprec kernel: Tainted: [P]=PROPRIETARY_MODULE, [W]=WARN, [O]=OOT_MODULE",
        "avril 21 22:46:38 bestosprec kernel: Hardware name: Dell Inc. Precision 3591/0KTW71, BIOS 1.13.0 02/07/2025",
        "avril 21 22:46:38 bestosprec kernel: RIP: 0010:nv_set_system_power_state+0x320/0x4c0 [nvidia]",
    ]
    assert _found(lines) == [WARNING + ("nv_restore_user_channels",), ERROR + ("nv_set_system_power_state",)]
