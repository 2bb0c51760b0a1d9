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


# --- a call trace's frames in a GPU driver's module (rules.py driver_frame): the report's module where no RIP named one

# frames copied verbatim from the hung-task reports in tests/fixtures/realworld/hung-task.yaml (NVIDIA/
# nvidia-persistenced #15: 5.15, a task blocked on the RM lock; NVIDIA/k8s-device-plugin #77: 4.4's "[<addr>]" form)
RWLOCK_FRAME = "[ 7510.131288]  os_acquire_rwlock_read+0x35/0x50 [nvidia]"
RM_FRAME = "[ 7510.132138]  _nv051482rm+0x10/0x40 [nvidia]"
KERNEL_FRAME = "[ 7510.131280]  down_read+0x43/0xa0"
UVM_FRAME = "[  721.028422]  [<ffffffffa09c376e>] uvm_gpu_retain_by_uuid+0x1e/0x40 [nvidia_uvm]"


def _sample(source: str) -> list[str]:
    import realworld

    return next(i for i in realworld.samples() if i["source"] == source)["text"].splitlines()


def test_a_task_hung_on_the_gpu_drivers_lock_names_the_module_and_its_innermost_function():
    """nvidia-persistenced #15, REAL, whole: one hung_task finding, amended with the innermost frame in nvidia.ko (the
    RM API lock's os_acquire_rwlock_read, not the _nv..rm frame under it). Was: nothing said the driver's lock."""
    found, amended = _read(_sample("https://github.com/NVIDIA/nvidia-persistenced/issues/15"))
    assert [f.kind for f in found] == ["hung_task"]
    assert [(amends(a), a.details["module"], a.details["function"], a.process) for a in amended] == [
        ("module", "nvidia", "os_acquire_rwlock_read", "gdscheck")]


def test_a_4x_trace_frame_in_nvidia_uvm_is_read():
    """k8s-device-plugin #77, REAL, whole (4.4: the task's hex stack words, "[<addr>] ? sym" frames)."""
    found, amended = _read(_sample("https://github.com/NVIDIA/k8s-device-plugin/issues/77"))
    assert [f.kind for f in found] == ["hung_task"]
    assert [(a.details["module"], a.details["function"]) for a in amended] == [("nvidia_uvm", "uvm_gpu_retain_by_uuid")]


def test_a_lockup_spinning_on_a_lock_the_driver_took_names_the_driver_from_its_frames():
    """A soft lockup whose RIP line is the kernel's (no row reads it) and whose trace then names nvidia.ko. COMPOSED:
    #1177's lockup line, then the frames above (real lines of another report)."""
    found, amended = _read([LOCKUP, KERNEL_FRAME, RWLOCK_FRAME, RM_FRAME])
    assert [f.kind for f in found] == ["cpu_lockup"]
    assert [(a.details["module"], a.details["function"]) for a in amended] == [("nvidia", "os_acquire_rwlock_read")]


def test_the_rip_lines_module_stays_the_reports():
    """A RIP in the driver's code says whose code spins; the frames after it amend nothing more."""
    found, amended = _read([LOCKUP, RIP, FRAME, RWLOCK_FRAME])
    assert [f.kind for f in found] == ["cpu_lockup"]
    assert [(a.details["module"], a.details["function"]) for a in amended] == [("nvidia_modeset", "nvWriteGpEntry")]


def test_frames_outside_a_report_are_nothing():
    """A frame line with no lockup, stall or hung task open (an oops's trace, a WARN's, a grep excerpt): no finding;
    one after the hung task's window likewise amends nothing."""
    assert _read([RWLOCK_FRAME, RM_FRAME, UVM_FRAME]) == ([], [])
    hung = _sample("https://github.com/NVIDIA/k8s-device-plugin/issues/77")[:3]
    found, amended = _read(hung + ["filler line"] * 40 + [UVM_FRAME])
    assert [f.kind for f in found] == ["hung_task"] and amended == []


def test_an_oops_after_a_hung_task_keeps_its_frames():
    """The oops's first line ends the hung task's report: the frames after it are the oops's, not the task's."""
    hung = _sample("https://github.com/NVIDIA/k8s-device-plugin/issues/77")[:3]
    found, amended = _read(hung + [OOPS, RWLOCK_FRAME])
    assert [f.kind for f in found] == ["hung_task"] and amended == []


def test_each_hung_task_is_its_own_finding():
    """Two tasks' reports, one after the other: two findings, each with its own frames."""
    one = _sample("https://github.com/NVIDIA/nvidia-persistenced/issues/15")
    two = _sample("https://github.com/NVIDIA/k8s-device-plugin/issues/77")
    found, amended = _read(one + two)
    assert [f.process for f in found] == ["gdscheck", "nvc:[driver]"]
    assert [(a.process, a.details["module"]) for a in amended] == [("gdscheck", "nvidia"), ("nvc:[driver]", "nvidia_uvm")]


# --- a call trace's frames in a shared filesystem's client module (rules.STORAGE_CLIENT_MODULES, the same row): the
# hung task's module and its filesystem

NFS = "https://github.com/filecoin-project/lotus/issues/6454"
LUSTRE = "https://github.com/whamcloud/integrated-manager-for-lustre/pull/329"
# lotus #6454's innermost NFS frame (verbatim); an NFS server's frame, zfs #2628's (verbatim, its syslog prefix cut)
NFS_FRAME = "[44471.067330]  nfs_wait_on_request.part.0+0x3f/0x50 [nfs]"
NFSD_FRAME = "[2442787.612148]  [<ffffffffa03650e3>] ? nfsd+0xe3/0x127 [nfsd]"


def test_a_task_hung_in_the_nfs_client_names_the_module_and_the_filesystem():
    """filecoin-project/lotus #6454, REAL, whole as posted (5.8): a task blocked on an NFS page request, its innermost
    frame in nfs.ko. Was: the hung task alone, nothing said NFS."""
    found, amended = _read(_sample(NFS))
    assert [f.kind for f in found] == ["hung_task"]
    assert [(amends(a), a.details["module"], a.details["function"], a.details["filesystem"], a.process)
            for a in amended] == [("module", "nfs", "nfs_wait_on_request.part.0", "NFS", "lotus-miner")]


def test_a_3x_lustre_task_names_lustres_module():
    """whamcloud/integrated-manager-for-lustre PR #329, REAL (3.10's "[<addr>]" frames, the task's stack words before
    them): Lustre's config log thread blocked in obdclass, under mgc."""
    found, amended = _read(_sample(LUSTRE))
    assert [f.kind for f in found] == ["hung_task"]
    assert [(a.details["module"], a.details["function"], a.details["filesystem"]) for a in amended] == [
        ("obdclass", "llog_process_or_fork", "Lustre")]


def test_the_innermost_frames_module_keeps_its_own_filesystem():
    """A GPU driver's frame, then an NFS client's (COMPOSED: #15's hung task and frame, then #6454's frame): the
    driver's module, no filesystem of a later frame's; the other way round, NFS's with its filesystem."""
    hung = _sample("https://github.com/NVIDIA/nvidia-persistenced/issues/15")[:3]
    _, amended = _read(hung + [RWLOCK_FRAME, NFS_FRAME])
    assert [(a.details["module"], a.details.get("filesystem")) for a in amended] == [("nvidia", None)]
    _, amended = _read(hung + [NFS_FRAME, RWLOCK_FRAME])
    assert [(a.details["module"], a.details.get("filesystem")) for a in amended] == [("nfs", "NFS")]


def test_an_nfs_servers_frame_and_frames_outside_a_report_are_nothing():
    """nfsd is the server, no client's module (COMPOSED: #6454's hung task, zfs #2628's nfsd frame); a client's frame
    with no report open is no finding."""
    assert _read(_sample(NFS)[:3] + [NFSD_FRAME])[1] == []
    assert _read([NFS_FRAME]) == ([], [])


# --- the attribution the amending line's row gives (rules.EVENT_FILL_ATTRIBUTION): with the module, as the severity a
# later line states is carried

def test_a_task_hung_in_the_gpu_driver_is_the_drivers():
    """nvidia-persistenced #15 and k8s-device-plugin #77, REAL, whole: the amendment naming nvidia / nvidia_uvm says
    attribution driver (driver_frame's). Was: unknown, the hung task line's, while its module named the driver."""
    for source in ("https://github.com/NVIDIA/nvidia-persistenced/issues/15",
                   "https://github.com/NVIDIA/k8s-device-plugin/issues/77"):
        found, amended = _read(_sample(source))
        assert [f.attribution for f in found] == ["unknown"]  # the line's own: said before its trace
        assert [(a.attribution, a.severity, a.action) for a in amended] == [("driver", "warning", "INVESTIGATE")]


def test_a_lockup_spinning_in_the_gpu_driver_is_the_drivers():
    """The RIP line's row (kernel_oops: driver) and the frames' (driver_frame) alike (the COMPOSED sequences above)."""
    for lines in ([LOCKUP, RIP, FRAME], [LOCKUP, KERNEL_FRAME, RWLOCK_FRAME, RM_FRAME], [RCU, RIP]):
        _, amended = _read(lines)
        assert [a.attribution for a in amended] == ["driver"]


def test_a_task_hung_in_a_storage_client_stays_unknown():
    """lotus #6454 and IML PR #329, REAL: the task waits on the NFS or Lustre server behind the client, not its code
    (storage_frame says unknown, as nfs_error); the attribution goes with the module it is of, so a GPU driver's frame
    after the NFS client's gives none (COMPOSED as above)."""
    for source in (NFS, LUSTRE):
        assert [a.attribution for a in _read(_sample(source))[1]] == ["unknown"]
    hung = _sample("https://github.com/NVIDIA/nvidia-persistenced/issues/15")[:3]
    assert [(a.details["module"], a.attribution) for a in _read(hung + [NFS_FRAME, RWLOCK_FRAME])[1]] == [
        ("nfs", "unknown")]


# --- 6.x frames and the hung task's blocker (rules.FRAME_AT, the hung_task_blocker row)

def test_a_padding_guess_names_no_function():
    """pop-os/cosmic-epoch #3038, REAL, whole as posted (6.18): the innermost frame in nvidia_modeset is the unwinder's
    guess "? __pfx__main_loop+0x10/0x10", a function's padding (a stale word: the address of _main_loop, no function
    that ran); the function is the next frame's. Was: "__pfx__main_loop"."""
    found, amended = _read(_sample("https://github.com/pop-os/cosmic-epoch/issues/3038"))
    assert [f.kind for f in found] == ["hung_task"]
    assert [(a.attribution, a.details["module"], a.details["function"]) for a in amended] == [
        ("driver", "nvidia_modeset", "nvkms_kthread_q_callback")]


def test_the_holder_of_a_hung_tasks_lock_spinning_in_the_driver_is_the_drivers_hang():
    """open-gpu-kernel-modules #1289, REAL, as posted: 6.14+'s blocker line (the task holding the semaphore the hung
    task waits on) then the holder's trace in nvidia.ko. One hung_task finding of the blocked task, the holder its
    detail, amended with the driver's module. Was: nothing (the blocker line no row's, the frames no open report's)."""
    found, amended = _read(_sample("https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1289"))
    assert [(f.kind, f.process, f.pid, f.details["lock"], f.details["owner"]) for f in found] == [
        ("hung_task", "nvidia-modeset/", 226, "semaphore", "kwin_wayland:1088")]
    assert [(a.attribution, a.details["module"]) for a in amended] == [("driver", "nvidia")]


def test_a_mutex_blocker_line_alone_is_the_hung_tasks_finding():
    """Nathanw1014/strix-halo-llamacpp #8, REAL: the mutex form ("is blocked on a mutex likely owned by task ..")
    alone, the hung task's finding with the lock and its holder."""
    found, amended = _read(_sample("https://github.com/Nathanw1014/strix-halo-llamacpp/issues/8"))
    assert [(f.process, f.pid, f.details["lock"], f.details["owner"]) for f in found] == [
        ("kworker/u129:6", 447, "mutex", "cc-wrk:2142")] and amended == []


def test_a_blocker_line_after_its_hung_tasks_line_amends_the_lock_and_its_holder():
    """#1205, REAL: the hung task's line then its blocker line. The blocker names the lock and the task holding it
    (details "lock", "owner"): the hung task's finding amended with them (rules.EVENT_FILL_ALONE "hung"). Was: the
    blocker line joined the report and gave the finding nothing."""
    found, amended = _read(_sample("https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1205"))
    assert [(f.process, f.pid, "lock" in f.details) for f in found] == [("kwin_wayland", 1590, False)]
    assert [(amends(a), a.process, a.details["seconds"], a.details["lock"], a.details["owner"]) for a in amended] == [
        ("lock", "kwin_wayland", 860, "semaphore", "nvidia-modeset/:501")]


def test_the_holders_frames_after_a_long_trace_stay_in_the_report():
    """The blocker line restarts the report's window (a join): the holder's frames in the driver after the hung task's
    own 30-odd lines are still its report's. COMPOSED: #15's hung task's first three lines, 28 filler lines standing
    for its trace, #1289's blocker line and holder's trace. The blocker names another task (nvidia-modeset/:226, its own
    hung line not here): its lock is not gdscheck's (rules.EVENT_FILL_SAME), only the frames amend."""
    hung = _sample("https://github.com/NVIDIA/nvidia-persistenced/issues/15")[:3]
    blocker = _sample("https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1289")
    found, amended = _read(hung + ["filler line"] * 28 + blocker[:3] + ["filler line"] * 20 + blocker[3:])
    assert [f.process for f in found] == ["gdscheck"]
    assert [(a.process, a.details["module"]) for a in amended] == [("gdscheck", "nvidia")]
