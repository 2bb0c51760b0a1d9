"""A kernel oops in a shared filesystem's client module (rules.STORAGE_CLIENT_MODULES): a storage_oops, an error raising
StorageUnhealthy; the same module's WARN trace a warning, no condition (the header row states which report the RIP
line is in: STATED "oops").

Real lines are tests/fixtures/realworld/storage-oops.yaml's. The lines here are CONSTRUCTED, from the kernel's formats:
the WARN header of kernel/panic.c __warn ("WARNING: CPU: %d PID: %d at %s:%d %pS", 4.x-6.x; 2.6 / 3.x "WARNING: at
%s:%d %pS()"; 6.19's "WARNING: %s:%d at %pS, CPU#%d: %s/%d", as open-gpu-kernel-modules #1151's nouveau line in
kernel-oops.yaml), then show_regs' "RIP: %04x:%pS" (the RIP of ThinkParQ/beegfs #107's real oops); the 4.x oops of
arch/x86/mm/fault.c ("BUG: unable to handle kernel NULL pointer dereference at %p", "IP: [<%p>] %pS", as openzfs/zfs
#5226's, its module here a Lustre one); arm64's "pc : %pS" (arch/arm64/kernel/process.c __show_regs)."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier
from parsers.kinds import BY_NAME

RIP = "RIP: 0010:FhgfsOpsCommkit_communicate+0x3d6/0x1620 [beegfs]"
OOPS = "Oops: invalid opcode: 0000 [#1] SMP KASAN NOPTI"
WARN = "WARNING: CPU: 1 PID: 1302 at fs/beegfs/net/filesystem/FhgfsOpsCommKit.c:1021 FhgfsOpsCommkit_communicate+0x3d6/0x1620 [beegfs]"
HARDWARE = "Hardware name: QEMU Standard PC (i440FX + PIIX, 1996), BIOS 1.13.0-1ubuntu1.1 04/01/2014"


def _found(lines: list[str]) -> list:
    c = Classifier()
    return [f for f in map(c.classify, lines) if f is not None]


def test_an_oops_in_the_client_module_is_an_error_naming_module_and_filesystem():
    [f] = _found([OOPS, HARDWARE, RIP])
    assert (f.kind, f.severity, f.action) == ("storage_oops", "error", "RESTART_BM")
    assert (f.details["module"], f.details["function"], f.details["filesystem"]) == (
        "beegfs", "FhgfsOpsCommkit_communicate", "BeeGFS")


def test_its_kind_raises_storage_unhealthy_until_a_boot_at_error_only():
    kind = BY_NAME["storage_oops"]
    assert kind.conditions == ("StorageUnhealthy",) and kind.floor == "error"
    assert [r.clear for r in kind.raises] == ["boot"] and kind.category == "infrastructure"


@pytest.mark.parametrize("header", [
    WARN,
    "WARNING: at fs/beegfs/net/filesystem/FhgfsOpsCommKit.c:1021 FhgfsOpsCommkit_communicate+0x3d6/0x1620()",
    "WARNING: fs/beegfs/net/filesystem/FhgfsOpsCommKit.c:1021 at FhgfsOpsCommkit_communicate+0x3d6/0x1620 [beegfs], "
    "CPU#1: venom-agent/1302",
], ids=["4.x-6.x", "2.6-3.x", "6.19"])
def test_a_warn_trace_in_the_client_module_is_a_warning(header):
    [f] = _found([header, HARDWARE, RIP])  # was: no finding at all (no storage module read)
    assert (f.kind, f.severity, f.action) == ("storage_oops", "warning", "CHECK_STORAGE")


def test_an_oops_after_a_warn_is_the_oops_severity():
    """The header nearest before the RIP line says whose it is: a WARN's far before an oops's is no longer read (the
    WARN's first line, naming the module, its own warning since h218)."""
    found = _found([WARN, HARDWARE] + ["CPU: 1 PID: 1302 Comm: venom-agent"] * 40 + [OOPS, RIP])
    assert [f.severity for f in found] == ["warning", "error"]


def test_a_program_s_warning_line_is_no_warn_header():
    """"WARNING: at least .." (an application's words) is no WARN trace's first line: the RIP line stays the kind's."""
    [f] = _found(["WARNING: at least one of the mounts is read-only", OOPS, RIP])
    assert f.severity == "error"
    [f] = _found([OOPS, "WARNING: at least one of the mounts is read-only", RIP])
    assert f.severity == "error"


def test_a_warn_beyond_its_window_leaves_the_rip_line_the_kinds_error():
    """A WARN's first line that names no module (2.6 / 3.x: the symbol without " [beegfs]") states the severity of the
    RIP line within EVENT_LINES["oops"] lines only; one naming the module is itself the WARN's finding, the RIP line of
    its site (the same function) part of it however far in its report (EVENT_LINES["panic"])."""
    bare = "WARNING: at fs/beegfs/net/filesystem/FhgfsOpsCommKit.c:1021 FhgfsOpsCommkit_communicate+0x3d6/0x1620()"
    [f] = _found([bare] + [HARDWARE] * 40 + [RIP])
    assert f.severity == "error"
    [f] = _found([WARN] + [HARDWARE] * 40 + [RIP])
    assert (f.severity, f.message) == ("warning", WARN)


@pytest.mark.parametrize("lines, module, fs", [
    (["BUG: unable to handle kernel NULL pointer dereference at 0000000000000020",
      "IP: [<ffffffffa0879063>] ll_file_read+0x63/0xb0 [lustre]", "PGD 0 ", "Oops: 0000 [#1] SMP"], "lustre", "Lustre"),
    (["BUG: unable to handle page fault for address: ffffffffffffffed",
      "RIP: 0010:ptlrpc_check_set+0x3a/0x90 [ptlrpc]"], "ptlrpc", "Lustre"),
    (["general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] SMP NOPTI",
      "RIP: 0010:kiblnd_cq_completion+0x3a/0x90 [ko2iblnd]"], "ko2iblnd", "Lustre"),
    (["kernel BUG at fs/ceph/caps.c:1029!", "invalid opcode: 0000 [#1] SMP PTI",
      "RIP: 0010:__ceph_remove_cap+0x3a/0x90 [ceph]"], "ceph", "CephFS"),
    (["Internal error: Oops: 96000005 [#1] SMP", "pc : ceph_con_workfn+0x3a/0x90 [libceph]"], "libceph", "CephFS"),
    (["BUG: kernel NULL pointer dereference, address: 0000000000000008", "Oops: 0000 [#1] SMP NOPTI",
      "RIP: 0010:cxiGetDentry+0x3a/0x90 [mmfslinux]"], "mmfslinux", "GPFS"),
    (["Oops: 0000 [#1] SMP NOPTI", "RIP: 0010:weka_read_iter+0x3a/0x90 [wekafsio]"], "wekafsio", "WekaFS"),
    (["Oops: 0000 [#1] SMP NOPTI", "RIP: 0010:xprt_rdma_close+0x3a/0x90 [rpcrdma]"], "rpcrdma", "NFS"),
], ids=["4.x-IP-lustre", "5.x-page-fault-ptlrpc", "gpf-ko2iblnd", "kernel-BUG-ceph", "arm64-libceph", "gpfs",
        "weka", "rpcrdma"])
def test_every_era_of_the_oops_header_and_every_client_module(lines, module, fs):
    [f] = _found(lines)
    assert (f.kind, f.severity, f.details["module"], f.details["filesystem"]) == ("storage_oops", "error", module, fs)


def test_a_module_only_listed_or_in_the_call_trace_names_nothing():
    assert _found([OOPS, "Modules linked in: beegfs(O) lustre lnet ko2iblnd nfsv4 nfs sunrpc ceph libceph mmfs26",
                   "RIP: 0010:skb_segment+0xc71/0xe50", " FhgfsOpsCommkit_communicate+0x3d6/0x1620 [beegfs]"]) == []


def test_a_lockup_spinning_in_the_client_stays_the_lockup():
    """A soft lockup's register dump is the stuck CPU's (rules.EVENT_FILL_ALONE), not an oops of the module."""
    found = _found(["watchdog: BUG: soft lockup - CPU#2 stuck for 104s! [beegfs_XNodeSyn:1314]", RIP])
    assert [f.kind for f in found] == ["cpu_lockup"]


def test_the_repeated_rip_line_after_end_trace_is_the_same_oops():
    found = _found([OOPS, RIP, "---[ end trace 0000000000000000 ]---", RIP,
                    "Kernel panic - not syncing: Fatal exception"])
    assert [(f.kind, f.severity) for f in found] == [("storage_oops", "error")]
