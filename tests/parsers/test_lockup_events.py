"""A CPU lockup's or an RCU stall's register dump whose RIP is in a GPU driver module (rules.EVENT_FILL_ALONE): part of
the lockup's report, not an oops of its own; the module it names is the lockup finding's (an amendment, "module").

Lines: the lockup line is open-gpu-kernel-modules #1177's (580.159.03, kernel 6.18, verbatim); the RIP line is #1246's
(a comment's sysrq-l dump of the same DIFR livelock on 610.43.03, verbatim). The two are JOINED HERE, from two
reports of the one bug: no public thread in reach pastes the lockup line and its RIP line together whole. The RCU stall
header is pilevisor #7's (tests/fixtures/realworld/host.yaml), the oops header #276's (kernel-lockup-2026k.yaml), each
joined with the same RIP line likewise."""

from __future__ import annotations

from parsers.classify import Classifier
from parsers.finding import amends

LOCKUP = "Jun 03 10:40:15 pop-os kernel: watchdog: BUG: soft lockup - CPU#2 stuck for 104s! [nvidia-modeset/:1314]"
RIP = "RIP: 0010:nvWriteGpEntry+0xf0/0x370 [nvidia_modeset]"
FRAME = " nvPushKickoff+0x28/0x50"
RCU = "[   23.605446] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:"
OOPS = "[    2.618999] Oops: 0002 [#1] PREEMPT SMP NOPTI"
# a frame of PR #1031's trace (6.18, CONFIG_STACKTRACE_BUILD_ID): the module's build id inside its brackets
BUILD_ID_BRACKET = "[nvidia d77db9053aae9deb06d908cd2319f68dd09798a6]"


def _read(lines: list[str]) -> tuple[list, list]:
    c = Classifier()
    found, amended = [], []
    for line in lines:
        f, more = c.read(line)
        if f is not None:
            found.append(f)
        amended.extend(more)
    return found, amended


def test_a_soft_lockup_spinning_in_the_gpu_driver_is_one_finding_naming_the_module():
    found, amended = _read([LOCKUP, RIP, FRAME])
    assert [f.kind for f in found] == ["cpu_lockup"]  # was: cpu_lockup and a kernel_oops (RESTART_BM) of the RIP line
    assert [(a.kind, amends(a), a.details["module"], a.details["function"]) for a in amended] == [
        ("cpu_lockup", "module", "nvidia_modeset", "nvWriteGpEntry")]
    assert amended[0].process == "nvidia-modeset/" and amended[0].severity == "error"


def test_an_rcu_stall_whose_stuck_cpu_is_in_the_gpu_driver_is_one_finding():
    found, amended = _read([RCU, RIP])
    assert [f.kind for f in found] == ["rcu_stall"]
    assert [a.details["module"] for a in amended] == ["nvidia_modeset"]


def test_the_rip_line_alone_is_still_an_oops():
    found, amended = _read([RIP])
    assert [f.kind for f in found] == ["kernel_oops"] and not amended


def test_an_oops_after_a_lockup_keeps_its_own_finding():
    """The oops's first line ends the lockup's report: the RIP line after it is the oops's."""
    found, _ = _read([LOCKUP, OOPS, RIP])
    assert [f.kind for f in found] == ["cpu_lockup", "kernel_oops"]


def test_a_lockup_after_its_window_leaves_a_later_rip_line_an_oops():
    found, _ = _read([LOCKUP] + ["filler line"] * 40 + [RIP])
    assert [f.kind for f in found] == ["cpu_lockup", "kernel_oops"]


def test_a_module_with_its_build_id_is_read():
    """CONFIG_STACKTRACE_BUILD_ID kernels print a module's build id inside its brackets (%pBb: trace frames; a RIP line
    only on kernels patched to print it with %pSb, as ChromeOS proposed: mainline's show_ip prints %pS). The RIP line
    here is COMPOSED from RIP above and PR #1031's frame bracket, not copied."""
    found, _ = _read([RIP.replace("[nvidia_modeset]", BUILD_ID_BRACKET)])
    assert [(f.kind, f.details["module"]) for f in found] == [("kernel_oops", "nvidia")]
