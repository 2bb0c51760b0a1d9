"""A kernel report inside another's panic window (rules.EVENT_REPORTS): a new report's first line ends the "panic"
event once the event's own report ended ("---[ end trace .. ]---"), at a new die counter ("[#2]" after "[#1]") or at
an oops's or a BUG's first line after a WARN's; the die line 4.x prints after its "IP:" line, the register dump
repeated after "end trace", "Kernel panic - not syncing: Fatal exception" and "---[ end Kernel panic" stay with the
oops they follow.

The lines here are CONSTRUCTED. Their order is that of a real multi-oops log, ROCm/ROCm #758
(https://github.com/ROCm/ROCm/issues/758, 4.15: "BUG: unable to handle kernel NULL pointer dereference at ..", "IP:
soc15_baco_program_registers+0x6f/0x180 [amdgpu]", "Oops: 0000 [#1] SMP NOPTI", .. "---[ end trace e9fbabfbe54ce83a
]---", then the next oops's "BUG: ..", "IP: ..", "Oops: 0000 [#2] SMP NOPTI"; its lines verbatim in
tests/fixtures/realworld/kernel-oops.yaml, silent there: amdgpu is no module the oops rows read). Their RIP lines are
those of the real oopses in tests/fixtures/realworld/kernel-oops.yaml and storage-oops.yaml
(NVIDIA/open-gpu-kernel-modules #1107, siderolabs/talos #8624, ThinkParQ/beegfs #107), their headers the kernel's
formats (kernel/panic.c __warn, arch/x86/kernel/dumpstack.c __die_header, arch/x86/mm/fault.c)."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier

NV_RIP = "RIP: 0010:nvidia_vma_access+0x1b/0x350 [nvidia]"  # open-gpu-kernel-modules #1107
MLX5_RIP = "RIP: 0010:esw_port_metadata_get+0x19/0x30 [mlx5_core]"  # talos #8624
BEEGFS_RIP = "RIP: 0010:FhgfsOpsCommkit_communicate+0x3d6/0x1620 [beegfs]"  # beegfs #107
END = "---[ end trace 0000000000000000 ]---"
PANIC = "Kernel panic - not syncing: Fatal exception"
PANIC_END = "---[ end Kernel panic - not syncing: Fatal exception ]---"
CPU = "CPU: 0 UID: 1000 PID: 28651 Comm: python3.14 Tainted: G      D    O        6.18.24 #1-NixOS"


def _oops(die: int, rip: str) -> list[str]:
    """A 5.x-6.x oops report: its BUG and #PF lines, its die line, CPU line and RIP line."""
    return ["BUG: kernel NULL pointer dereference, address: 0000000000000030",
            "#PF: supervisor read access in kernel mode", "#PF: error_code(0x0000) - not-present page",
            f"Oops: 0000 [#{die}] SMP NOPTI", CPU, rip, "Call Trace:", " <TASK>", " </TASK>"]


def _warn(rip: str) -> list[str]:
    """A 4.x-6.x WARN report of the module (kernel/panic.c __warn), its RIP line and its end."""
    return ["------------[ cut here ]------------",
            "WARNING: CPU: 1 PID: 1302 at fs/beegfs/net/filesystem/FhgfsOpsCommKit.c:1021 " + rip.split(":", 2)[2],
            CPU, rip, "Call Trace:", " <TASK>", " </TASK>", END]


def _found(lines: list[str]) -> list[tuple[str, str, str]]:
    c = Classifier()
    return [(f.kind, f.severity, f.details["module"]) for f in map(c.classify, lines) if f is not None]


def test_two_modules_oopses_after_end_trace_are_two_findings():
    """Was one kernel_oops (the mlx5 oops absorbed into the nvidia oops's panic window)."""
    lines = _oops(1, NV_RIP) + [END] + _oops(2, MLX5_RIP) + [END, PANIC, PANIC_END]
    assert _found(lines) == [("kernel_oops", "error", "nvidia"), ("kernel_oops", "error", "mlx5_core")]


def test_a_new_die_counter_is_a_new_oops_when_end_trace_was_lost():
    """A grep excerpt or a rate-limited console without the first report's last line: "[#2]" tells."""
    lines = _oops(1, NV_RIP) + _oops(2, MLX5_RIP) + [PANIC]
    assert _found(lines) == [("kernel_oops", "error", "nvidia"), ("kernel_oops", "error", "mlx5_core")]


def test_a_warn_then_a_real_oops_of_the_module_is_the_oops_error():
    """Was the WARN's warning only (the oops's RIP line absorbed into the WARN's event)."""
    lines = _warn(BEEGFS_RIP) + _oops(1, BEEGFS_RIP) + [END, PANIC, PANIC_END]
    assert _found(lines) == [("storage_oops", "warning", "beegfs"), ("storage_oops", "error", "beegfs")]


def test_a_warn_then_an_oops_without_the_warn_s_end_trace():
    """An oops's first line right after a WARN's report is another report (a WARN prints no die line)."""
    lines = _warn(BEEGFS_RIP)[:-1] + _oops(1, BEEGFS_RIP)
    assert _found(lines) == [("storage_oops", "warning", "beegfs"), ("storage_oops", "error", "beegfs")]


@pytest.mark.parametrize("end", [END, "---[ end trace e9fbabfbe54ce83a ]---", "---[end trace 0000000000000000 ]---"],
                         ids=["6.x", "2.6-5.x-random-id", "talos-console"])
def test_the_oops_then_its_panic_stays_one_finding(end):
    """The register dump repeated after "end trace", the panic and its end line are no report's first line."""
    lines = _oops(1, NV_RIP) + [end, NV_RIP, PANIC, "Kernel Offset: 0x28c0000 from 0xffffffff81000000", PANIC_END]
    assert _found(lines) == [("kernel_oops", "error", "nvidia")]


def test_4x_die_line_after_its_ip_line_stays_the_same_oops():
    """4.x and older: "BUG: unable to handle ..", then "IP: [<..>] .. [mod]" (the event's first line), then the die
    line and the repeated RIP line: one oops, its panic with it."""
    lines = ["BUG: unable to handle kernel NULL pointer dereference at 0000000000000340",
             "IP: [<ffffffffc075549f>] _nv011745rm+0x1f/0x170 [nvidia]", "PGD 0 ", "Oops: 0000 [#1] SMP",
             "Modules linked in: nvidia_uvm(POE) nvidia(POE)",
             "RIP: 0010:[<ffffffffc075549f>]  [<ffffffffc075549f>] _nv011745rm+0x1f/0x170 [nvidia]",
             "---[ end trace 9259f3b7b1cb0a96 ]---", PANIC, PANIC_END]
    assert _found(lines) == [("kernel_oops", "error", "nvidia")]


def test_4x_second_oops_after_end_trace_is_its_own_finding():
    lines = ["BUG: unable to handle kernel NULL pointer dereference at 0000000000000340",
             "IP: [<ffffffffc075549f>] _nv011745rm+0x1f/0x170 [nvidia]", "Oops: 0000 [#1] SMP",
             "---[ end trace e9fbabfbe54ce83a ]---",
             "BUG: unable to handle kernel NULL pointer dereference at 0000000000000008",
             "IP: [<ffffffffa0879063>] ll_file_read+0x63/0xb0 [lustre]", "Oops: 0000 [#2] SMP NOPTI",
             "---[ end trace e9fbabfbe54ce83b ]---"]
    assert _found(lines) == [("kernel_oops", "error", "nvidia"), ("storage_oops", "error", "lustre")]


def test_an_oops_in_another_module_between_keeps_the_first_finding_alone():
    """A report whose RIP line no row reads (an oops in core code) still ends the event: the later module's oops is
    its own finding, and the panic after it is that oops's."""
    lines = _oops(1, NV_RIP) + [END] + _oops(2, "RIP: 0010:kthread_data+0x10/0x20") + [END] + \
        _oops(3, MLX5_RIP) + [END, PANIC]
    assert _found(lines) == [("kernel_oops", "error", "nvidia"), ("kernel_oops", "error", "mlx5_core")]


def test_a_panic_after_an_unread_report_is_the_panic_s_own_finding():
    """The panic follows a report no row reads (an oops in core code), not the GPU driver's oops before it: a
    kernel_panic of its own (was absorbed into the first oops)."""
    lines = _oops(1, NV_RIP) + [END] + _oops(2, "RIP: 0010:kthread_data+0x10/0x20") + [END, PANIC]
    c = Classifier()
    assert [f.kind for f in map(c.classify, lines) if f is not None] == ["kernel_oops", "kernel_panic"]


def test_4x_second_oops_of_a_boot_is_one_finding():
    """4.x and older print the die line after the "IP:" line that opens the event, and the RIP line after it
    (openzfs/zfs #5226's order; ROCm/ROCm #758's second oops: "BUG:", "IP:", "Oops: 0000 [#2]", "RIP: 0010:.."): the
    die line of the boot's second oops ("[#2]", the last counter seen "[#1]") is its own report's, not another's.
    Was two storage_oops findings (the die line ended the event its IP line had just opened, the RIP line opened
    another), the panic the second's."""
    lines = ["BUG: unable to handle kernel NULL pointer dereference at 0000000000000340",
             "IP: [<ffffffffc075549f>] _nv011745rm+0x1f/0x170 [nvidia]", "PGD 0 ", "Oops: 0000 [#1] SMP",
             "RIP: 0010:[<ffffffffc075549f>]  [<ffffffffc075549f>] _nv011745rm+0x1f/0x170 [nvidia]",
             "---[ end trace e9fbabfbe54ce83a ]---",
             "BUG: unable to handle kernel NULL pointer dereference at 0000000000000008",
             "IP: [<ffffffffa0879063>] ll_file_read+0x63/0xb0 [lustre]", "PGD 0 ", "Oops: 0000 [#2] SMP",
             "RIP: 0010:[<ffffffffa0879063>]  [<ffffffffa0879063>] ll_file_read+0x63/0xb0 [lustre]",
             "---[ end trace e9fbabfbe54ce83b ]---", PANIC, PANIC_END]
    assert _found(lines) == [("kernel_oops", "error", "nvidia"), ("storage_oops", "error", "lustre")]


def test_4x_new_die_counter_is_a_new_oops_when_end_trace_was_lost():
    """4.x's form of test_a_new_die_counter_is_a_new_oops_when_end_trace_was_lost: the second report's "IP:" line
    joins the open event; its die line "[#2]" (the event's report's "[#1]") ends it, its RIP line is the finding."""
    lines = ["BUG: unable to handle kernel NULL pointer dereference at 0000000000000340",
             "IP: [<ffffffffc075549f>] _nv011745rm+0x1f/0x170 [nvidia]", "Oops: 0000 [#1] SMP",
             "RIP: 0010:[<ffffffffc075549f>]  [<ffffffffc075549f>] _nv011745rm+0x1f/0x170 [nvidia]",
             "BUG: unable to handle kernel NULL pointer dereference at 0000000000000008",
             "IP: [<ffffffffa0879063>] ll_file_read+0x63/0xb0 [lustre]", "Oops: 0000 [#2] SMP",
             "RIP: 0010:[<ffffffffa0879063>]  [<ffffffffa0879063>] ll_file_read+0x63/0xb0 [lustre]", PANIC]
    assert _found(lines) == [("kernel_oops", "error", "nvidia"), ("storage_oops", "error", "lustre")]
