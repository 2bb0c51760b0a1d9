"""arm64 up to 4.14 (and arm, every era) names an oops's faulting instruction on a "PC is at %pS" line
(arch/arm/kernel/process.c __show_regs; arch/arm64's until it printed "pc : %pS", as 4.19 does), then the caller on
"LR is at %pS" and the raw registers on "pc : [<..>] lr : [<..>] pstate: ..". The "PC is at" line is read as "pc :" is
(rules.OOPS_AT): a GPU, NIC or storage client module's oops; the LR line, the register line and a module no row names
are nothing.

REAL lines, verbatim, of this format (none of them in a module the oops rows name; no public arm64 oops whose PC is in
nvidia, mlx5_core or a storage client module of this era was found):
- https://github.com/ayufan-rock64/linux-build/issues/187 (arm64, 4.4.120): the PC in the kernel proper;
- https://github.com/friendlyarm/linux-3.4.y/issues/3 (arm64, 4.14.4): the same;
- https://github.com/kaloz/mwlwifi/issues/345 (arm, 5.0): PC and LR in a Wi-Fi driver module;
- https://github.com/raspberrypi/linux/issues/704 (arm, 3.12): PC and LR in nfsd, the NFS server (no client module);
- https://github.com/openzfs/zfs/issues/4048 (arm, 4.3): PC in zfs (no module the rows name), LR in the kernel.
The lines in a GPU, NIC or storage client module are CONSTRUCTED in that format: the die line of
https://github.com/raspberrypi/linux/issues/3222 (arm64 "Internal error: Oops: 96000005 [#1] PREEMPT SMP"), then
"PC is at" with a module's function (the RIP functions of real x86 oopses in kernel-oops.yaml, open-gpu-kernel-modules
#1107's nvidia_vma_access and talos #8624's esw_port_metadata_get; the NFS client's nfs_updatepage, fs/nfs/write.c)."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier

DIE = "Internal error: Oops: 96000005 [#1] PREEMPT SMP"  # raspberrypi/linux #3222
REGS = "pc : [<ffffff8000aaec5c>] lr : [<ffffff8000aaec44>] pstate: 60000145"  # the 4.x register line


def _found(lines: list[str]) -> list:
    c = Classifier()
    return [f for f in map(c.classify, lines) if f is not None]


@pytest.mark.parametrize("pc, kind, module", [
    ("PC is at nvidia_vma_access+0x1b/0x350 [nvidia]", "kernel_oops", "nvidia"),
    ("PC is at esw_port_metadata_get+0x19/0x30 [mlx5_core]", "kernel_oops", "mlx5_core"),
    ("PC is at nfs_updatepage+0x3a/0x90 [nfs]", "storage_oops", "nfs"),
], ids=["nvidia", "mlx5_core", "nfs-client"])
def test_a_pc_is_at_line_in_the_module_is_its_oops_as_the_pc_line_is(pc, kind, module):
    lines = [DIE, pc, "LR is at do_page_fault+0x1c4/0x3e0", REGS]
    [f] = _found(lines)
    assert (f.kind, f.details["module"], f.details["function"]) == (kind, module, pc.split()[3].split("+")[0])
    [g] = _found([DIE, pc.replace("PC is at ", "pc : "), REGS])  # what 4.19 prints: the same finding
    assert (g.kind, g.details) == (f.kind, f.details)


@pytest.mark.parametrize("lines", [
    ["[  625.659828] PC is at anon_vma_interval_tree_remove+0x20/0x258",
     "[  625.659833] LR is at vma_adjust+0x214/0x510",
     "[  625.659835] pc : [<ffffff80081b06ac>] lr : [<ffffff80081ba1c8>] pstate: 20000145"],
    ["[    3.848000] PC is at locks_remove_posix+0x24/0x13c",
     "[    3.848000] LR is at locks_remove_file+0x38/0x1d0",
     "[    3.848000] pc : [<ffffff800822de50>] lr : [<ffffff800822fe9c>] pstate: 60000145"],
    ["PC is at pcie_reset+0xc/0x40 [mwlwifi]",
     "LR is at pcie_download_firmware+0x19/0x2fc [mwlwifi]",
     "pc : [<af815c0c>]    lr : [<af815c59>]    psr: 60070033"],
    ["PC is at set_nfsv4_acl_one+0x8/0x90 [nfsd]",
     "LR is at nfsd4_set_nfs4_acl+0x12c/0x140 [nfsd]",
     "pc : [<bf24bb94>]    lr : [<bf24c4c4>]    psr: 60000013"],
    ["[ 5344.600526] PC is at arc_kmem_reap_now+0x64/0xec [zfs]",
     "[ 5344.600537] LR is at __wake_up_bit+0x20/0x54",
     "[ 5344.600545] pc : [<bf114d3c>]    lr : [<c0054b40>]    psr: 00000113"],
], ids=["arm64-4.4-kernel", "arm64-4.14-kernel", "arm-mwlwifi", "arm-nfsd-server", "arm-zfs"])
def test_real_pc_is_at_lines_of_other_code_are_nothing(lines):
    assert _found(lines) == []


def test_the_caller_in_the_module_is_no_oops_of_it():
    """The LR line names the caller, as arm64's "lr :" does, which is not read either: a fault in the kernel proper
    called from nvidia names no module."""
    assert _found([DIE, "PC is at memcpy+0x10/0x180", "LR is at os_memcpy_to_user+0x26/0x50 [nvidia]", REGS]) == []


def test_a_lockup_spinning_in_the_module_stays_the_lockup():
    """A soft lockup's register dump prints the same PC line: the stuck CPU's, part of the lockup, as "pc :" is."""
    found = _found(["watchdog: BUG: soft lockup - CPU#2 stuck for 23s! [nvidia-smi:504]",
                    "PC is at nvidia_vma_access+0x1b/0x350 [nvidia]"])
    assert [f.kind for f in found] == ["cpu_lockup"]
