"""Wordings of the host's faults across kernel eras and architectures (parsers/rules.py, "the host around the
GPUs"), and the events they make: filesystems shut down (XFS) or forced read-only (btrfs), POWER's hard-lockup
watchdog, NVMe timeouts that name their command and the reset an aborted one escalates to, a lost GPU's repeated
"fallen off the bus".  Real shapes; the lines of tests/fixtures/realworld/host-2.yaml are their sources."""

from __future__ import annotations

import pytest

from parsers import Classifier, parse_line


def run(lines):
    c = Classifier()
    return [f for f in (c.classify(line) for line in lines) if f is not None]


@pytest.mark.parametrize("line,device,what", [
    ("XFS (sdb6): Filesystem has been shut down due to log error (0x2).", "sdb6", "Filesystem has been shut down"),
    ("XFS (xvdb): Log I/O Error Detected.  Shutting down filesystem", "xvdb", "Log I/O Error Detected"),
    ("XFS (dm-4): I/O Error Detected. Shutting down filesystem", "dm-4", "I/O Error Detected"),
    ("XFS (dm-2): Corruption of in-memory data (0x8) detected at xfs_trans_cancel+0x5e/0x80 [xfs] "
     "(fs/xfs/xfs_trans.c:1097).  Shutting down filesystem.", "dm-2", "Corruption of in-memory data (0x8) detected"),
    ("XFS (sdc1): Metadata I/O Error (0x1) detected at xfs_trans_read_buf_map+0x1e8/0x2e0 [xfs] "
     "(fs/xfs/xfs_trans_buf.c:296).  Shutting down filesystem.", "sdc1", "Metadata I/O Error (0x1) detected"),
    ("XFS (dm-4): xfs_do_force_shutdown(0x1) called from line 1788 of file fs/xfs/xfs_inode.c.  Return address = "
     "000000009d022bf1", "dm-4", "xfs_do_force_shutdown"),
    ("XFS (sdd1): xfs_log_force: error -5 returned.", "sdd1", "xfs_log_force: error"),
])
def test_xfs_shutdown_every_era(line, device, what):
    f = parse_line(line)
    assert (f.kind, f.severity, f.details["device"], f.details["what"]) == ("filesystem_error", "error", device, what)


@pytest.mark.parametrize("line", [
    "XFS (sda1): Mounting V5 Filesystem",
    "XFS (sda1): Ending clean mount",
    "XFS (sda1): User initiated shutdown (0x4) received. Shutting down filesystem",
    "BTRFS info (device sda1): disk space caching is enabled",
    "BTRFS info (device nvme0n1p2 state M): use zstd compression, level 1",
])
def test_healthy_filesystem_lines_are_no_finding(line):
    assert parse_line(line) is None


@pytest.mark.parametrize("line,device", [
    ("BTRFS: error (device nvme2n1) in __btrfs_update_delayed_inode:1075: errno=-5 IO failure", "nvme2n1"),
    ("BTRFS: error (device dm-0 state A) in __btrfs_unlink_inode:4144: errno=-2 No such entry", "dm-0"),
    ("BTRFS info (device dm-0 state EA): forced readonly", "dm-0"),
    ("BTRFS info (device sdc): forced readonly", "sdc"),
])
def test_btrfs_aborted_and_forced_readonly(line, device):
    f = parse_line(line)
    assert (f.kind, f.details["device"]) == ("filesystem_error", device)


def test_one_filesystem_event_per_device():
    found = run(["BTRFS: error (device sdc) in __btrfs_cow_block:449: errno=-22 unknown",
                 "BTRFS info (device sdc): forced readonly",
                 "BTRFS: error (device sde) in __btrfs_cow_block:449: errno=-22 unknown",
                 "BTRFS info (device sde): forced readonly",
                 "XFS (sdb6): log I/O error -5",
                 "XFS (sdb6): Filesystem has been shut down due to log error (0x2).",
                 "XFS (sdb6): Please unmount the filesystem and rectify the problem(s)."])
    assert [f.details["device"] for f in found] == ["sdc", "sde", "sdb6"]


@pytest.mark.parametrize("line,details", [
    ("Watchdog CPU:59 Hard LOCKUP", {"cpu": 59}),
    ("watchdog: CPU 19 self-detected hard LOCKUP @ _raw_spin_lock_irq+0x60/0x100", {"cpu": 19}),
    ("watchdog: CPU 12 detected hard LOCKUP on other CPUs 13-15", {"reporter": 12, "cpus": "13-15"}),
    # 4.x's form of the same (open-power/op-build #2035, 4.15). Was: no finding
    ("[ 2020.139747] Watchdog CPU:71 detected Hard LOCKUP other CPUS:42", {"reporter": 71, "cpus": 42}),
    ("NMI watchdog: Watchdog detected hard LOCKUP on cpu 87", {"cpu": 87}),
])
def test_hard_lockup_x86_arm64_and_power(line, details):
    f = parse_line(line)
    assert (f.kind, f.severity) == ("cpu_lockup", "error")
    assert {k: f.details.get(k) for k in details} == details


def test_power_lockup_heartbeat_line_is_no_second_finding():
    assert parse_line("watchdog: CPU 19 TB:5287683334232, last heartbeat TB:5281606533730 (11868ms ago)") is None


@pytest.mark.parametrize("line,what", [
    ("nvme nvme0: I/O 12 QID 5 timeout, aborting", "aborting"),
    ("nvme nvme0: I/O 900 (I/O Cmd) QID 2 timeout, aborting", "aborting"),
    ("nvme nvme1: I/O tag 12 (100c) opcode 0x2 (I/O Cmd) QID 5 timeout, aborting req_op:READ(0) size:4096", "aborting"),
    ("nvme nvme1: I/O tag 12 (100c) opcode 0x2 (I/O Cmd) QID 5 timeout, reset controller", "reset controller"),
    ("nvme nvme0: I/O 0 QID 0 timeout, disable controller", "disable controller"),
])
def test_nvme_timeout_every_era(line, what):
    f = parse_line(line)
    assert (f.kind, f.details["what"]) == ("nvme_error", what)
    assert f.severity == ("warning" if what == "aborting" else "error")


def test_nvme_timeout_completed_by_polling_is_no_fault():
    assert parse_line("nvme nvme1: I/O tag 14 (100e) opcode 0x1 (I/O Cmd) QID 5 timeout, completion polled") is None


def test_nvme_reset_after_an_abort_is_the_events_escalation():
    """The abort (a warning) opens the controller's event; the reset it escalates to is an error of its own, so the
    condition an error raises is not lost in the warning's event; more aborts and resets after it are the event."""
    found = run(["nvme nvme0: I/O 900 (I/O Cmd) QID 2 timeout, aborting",
                 "nvme nvme0: Abort status: 0x0",
                 "nvme nvme0: I/O 901 (I/O Cmd) QID 2 timeout, aborting",
                 "nvme nvme0: I/O 900 QID 2 timeout, reset controller",
                 "nvme nvme0: I/O 263 (I/O Cmd) QID 2 timeout, aborting",
                 "nvme nvme0: I/O 263 QID 2 timeout, reset controller",
                 "nvme nvme1: I/O 7 QID 1 timeout, aborting"])
    assert [(f.details["device"], f.severity) for f in found] == [
        ("nvme0", "warning"), ("nvme0", "error"), ("nvme1", "warning")]


def test_nvme_reset_first_then_abort_is_one_event():
    found = run(["nvme nvme0: I/O 263 QID 2 timeout, reset controller",
                 "nvme nvme0: 2/0/0 default/read/poll queues",
                 "nvme nvme0: I/O 263 (I/O Cmd) QID 2 timeout, aborting"])
    assert [f.severity for f in found] == ["error"]


def test_a_lost_gpu_said_again_is_one_event_per_gpu():
    found = run(["NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
                 "NVRM: os_pci_init_handle: invalid context!",
                 "NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
                 "NVRM: GPU at 0000:02:00.0 has fallen off the bus."])
    assert [(f.kind, f.pci) for f in found if f.kind == "fallen_off_bus"] == [
        ("fallen_off_bus", "0000:01:00"), ("fallen_off_bus", "0000:02:00")]


@pytest.mark.parametrize("line,pci,details", [
    ("NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)", "0000:0a:00", {"rm_error": "0x24:0x72:1568"}),
    ("NVRM: GPU 0000:04:01.0: rm_init_adapter failed, device minor number 0", "0000:04:01", {"minor": 0}),
    ("NVRM: RmInitAdapter failed! (0x26:0xffff:1227)", None, {"rm_error": "0x26:0xffff:1227"}),
    ("NVRM: rm_init_adapter failed for device bearing minor number 0", None, {"minor": 0}),
])
def test_a_gpu_the_driver_cannot_initialise_needs_a_reset(line, pci, details):
    f = parse_line(line)
    assert (f.kind, f.pci, f.severity, f.attribution) == ("gpu_reset_required", pci, "fatal", "unknown")
    assert {k: f.details.get(k) for k in details} == details


def test_rm_init_failures_are_one_event_per_gpu():
    found = run(["NVRM: GPU 0000:04:01.0: RmInitAdapter failed! (0x11:0x45:2525)",
                 "NVRM: GPU 0000:04:01.0: rm_init_adapter failed, device minor number 0",
                 "NVRM: GPU 0000:04:02.0: RmInitAdapter failed! (0x11:0x45:2525)",
                 "NVRM: GPU 0000:04:02.0: rm_init_adapter failed, device minor number 1",
                 "NVRM: GPU 0000:04:01.0: RmInitAdapter failed! (0x11:0x45:2525)"])
    assert [f.pci for f in found] == ["0000:04:01", "0000:04:02"]
    assert parse_line("NVRM: GPU 0000:5d:00.0: RmInitAdapter succeeded") is None


def test_the_gsp_drivers_gpu_is_lost_is_the_gpu_fallen_off_the_bus():
    f = parse_line("NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] "
                   "(0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106")
    assert (f.kind, f.severity, f.pci) == ("fallen_off_bus", "fatal", None)
    # an RPC failed with status 0xf: that status is NV_ERR_GPU_IS_LOST, the GPU lost too; another status (0x65,
    # NV_ERR_TIMEOUT: modelled) names another cause and stays the unclassified net's
    rpc = "NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!"
    assert parse_line(rpc).kind == "fallen_off_bus"
    assert parse_line(rpc.replace("0x0000000f", "0x00000065")).kind == "unclassified"


def test_gpu_is_lost_after_the_fallen_off_the_bus_it_follows_is_the_same_event():
    found = run(["NVRM: GPU at PCI:0000:01:00: GPU-0b6b7808-c002-f593-ac86-cd8e57757b94",
                 "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
                 "NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.",
                 "NVRM: GPU0 nvCheckOkFailedNoLog: Check failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F)"])
    # one event: the Xid 79's (the driver's "fallen off the bus" line printed with it is part of it, as the check after)
    assert [(f.kind, f.pci) for f in found] == [("xid", "0000:01:00")]


def test_a_gpu_found_gone_at_probe_is_a_report_of_its_own():
    """The probe-time report (a driver load, maybe hours later) is not the runtime report's repeat."""
    found = run(["NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.",
                 "NVRM: The NVIDIA GPU 0000:5d:00.0 (PCI ID: 10de:2330) installed in this system has fallen off the bus "
                 "and is not responding to commands."])
    assert [(f.kind, f.pci) for f in found] == [("fallen_off_bus", "0000:5d:00")] * 2


@pytest.mark.parametrize("line", [
    "nvme nvme2: Removing after probe failure status: -19",  # 4.x-6.1
    "nvme nvme0: Disabling device after reset failure: -19",  # 6.2+ (lore: 20260312112321.370983-5-val@packett.cool)
    "nvme nvme1: Disabling device after reset failure: -5",
])
def test_nvme_controller_given_up_every_era_is_fatal(line):
    f = parse_line(line)
    assert (f.kind, f.severity, f.action) == ("nvme_error", "fatal", "RESTART_BM")


@pytest.mark.parametrize("line", [
    "nvme nvme0: Device not ready; aborting reset, CSTS=0x1",
    "nvme nvme1: Device not ready; aborting initialisation, CSTS=0x0",  # lore: 20230908155442.31423-1-felixonmars
])
def test_nvme_controller_never_ready_is_an_error(line):
    f = parse_line(line)
    assert (f.kind, f.severity) == ("nvme_error", "error")


def test_nvme_reset_then_controller_disabled_is_a_fatal_of_its_own():
    found = run(["nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS read failed (134)",
                 "nvme 0002:01:00.0: Unable to change power state from D3cold to D0, device inaccessible",
                 "nvme nvme0: Disabling device after reset failure: -19"])
    assert [(f.kind, f.severity) for f in found] == [("nvme_error", "error"), ("nvme_error", "fatal")]


@pytest.mark.parametrize("line,pci,fault", [
    # AMD-Vi 5.x+: the device's prefix (ggml-org/llama.cpp #21908)
    ("nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001c address=0xd0826240 flags=0x0020]",
     "0000:81:00", "IO_PAGE_FAULT"),
    # AMD-Vi 4.x: the device inside the brackets (DIGImend/digimend-kernel-drivers #136)
    ("AMD-Vi: Event logged [IO_PAGE_FAULT device=20:00.0 domain=0x0003 address=0x000000f4001eef80 flags=0x0010]",
     "0000:20:00", "IO_PAGE_FAULT"),
    # VT-d 6.x (tenstorrent/tt-umd #1814), 5.x (Marvell-switching/sonic-marvell-binaries #84), 5.14 (thesofproject
    # /sof-test #744), 4.x (opencomputeproject/OpenNetworkLinux #897)
    ("DMAR: [DMA Read NO_PASID] Request device [03:00.0] fault addr 0x100000 [fault reason 0x71] SM: Present bit in "
     "first-level paging entry is clear", "0000:03:00", "DMA Read"),
    ("DMAR: [DMA Read] Request device [06:00.0] PASID ffffffff fault addr 1a5e12000 [fault reason 06] PTE Read access "
     "is not set", "0000:06:00", "DMA Read"),
    ("DMAR: [DMA Read NO_PASID] Request device [0x00:0x02.0] fault addr 0x7c346000 [fault reason 0x06] PTE Read "
     "access is not set", "0000:00:02", "DMA Read"),
    ("DMAR: [DMA Write] Request device [00:12.0] fault addr 0 [fault reason 05] PTE Write access is not set",
     "0000:00:12", "DMA Write"),
])
def test_iommu_fault_every_era_names_its_device(line, pci, fault):
    f = parse_line(line)
    assert (f.kind, f.severity, f.pci, f.details["fault"]) == ("iommu_fault", "warning", pci, fault)


@pytest.mark.parametrize("line", [
    "amd_iommu_report_page_fault: 96 callbacks suppressed",
    "DMAR: DRHD: handling fault status reg 3",
    "dmar_fault: 893 callbacks suppressed",
])
def test_iommu_rate_limit_and_status_lines_are_no_finding(line):
    assert parse_line(line) is None


def test_an_iommu_fault_storm_is_one_event_per_device():
    found = run(["nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x80000040 flags=0x0020]",
                 "amd_iommu_report_page_fault: 6 callbacks suppressed",
                 "nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x9e139068 flags=0x0020]",
                 "nvme 0000:01:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0000 address=0xfc189000 flags=0x0000]",
                 "nvidia 0000:07:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0003 address=0x800007c0 flags=0x0020]"])
    assert [(f.kind, f.pci) for f in found] == [("iommu_fault", "0000:07:00"), ("iommu_fault", "0000:01:00")]


# A disk failing its I/O, every era's prefix of the block layer's line and the page cache's (real lines: the sources of
# tests/fixtures/realworld/peers-2026i.yaml, util-linux#1220, SONiC sonic-buildimage#23146, a 2.6-era forum post).
@pytest.mark.parametrize("line,device,status", [
    ("blk_update_request: I/O error, dev sdd, sector 193211232 op 0x1:(WRITE) flags 0x0 phys_seg 1 prio class 0",
     "sdd", "I/O"),
    ("blk_update_request: critical medium error, dev sdb, sector 5120", "sdb", "critical medium"),
    ("print_req_error: I/O error, dev sdc, sector 628940360 flags 80700", "sdc", "I/O"),
    ("print_req_error: critical medium error, dev sdg, sector 1086976", "sdg", "critical medium"),
    ("blk_update_request: critical target error, dev sdb, sector 16368 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0",
     "sdb", "critical target"),
    ("I/O error, dev loop1, sector 1314944 op 0x1:(WRITE) flags 0x0 phys_seg 2 prio class 2", "loop1", "I/O"),
    ("end_request: I/O error, dev sdb, sector 63", "sdb", "I/O"),
])
def test_block_io_error_every_era(line, device, status):
    f = parse_line(line)
    assert (f.kind, f.severity, f.details["device"], f.details["status"]) == ("filesystem_error", "error", device, status)


@pytest.mark.parametrize("line,device", [
    ("Buffer I/O error on dev sdb, logical block 641, lost async page write", "sdb"),
    ("Buffer I/O error on dev sda, logical block 360448, lost sync page write", "sda"),
    ("Buffer I/O error on dev sdaj1, logical block 83658496, async page read", "sdaj1"),
    ("Buffer I/O error on device nvme0n1p1, logical block 1066386", "nvme0n1p1"),
    ("Buffer I/O error on device sdb1, logical block 0", "sdb1"),
    ("Aborting journal on device nvme0n1p1-8.", "nvme0n1p1"),
    ("JBD2: I/O error when updating journal superblock for sda-8.", "sda"),
    ("EXT4-fs warning (device sdd): ext4_end_bio:309: I/O error 10 writing to inode 6031717 (offset 0 size 4096 "
     "starting block 24151405)", "sdd"),
])
def test_lost_pages_and_aborted_journal(line, device):
    f = parse_line(line)
    assert (f.kind, f.severity, f.details["device"]) == ("filesystem_error", "error", device)


@pytest.mark.parametrize("line", [
    "I/O error, dev sr0, sector 0 op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 2",  # a VM's empty CD-ROM
    "Buffer I/O error on dev sr0, logical block 0, async page read",
    "print_req_error: I/O error, dev fd0, sector 0",  # a VM's floppy drive, none attached
    # a drive refusing Write Zeroes (lore: the nvme-pci quirk for Micron / SanDisk drives)
    "blk_update_request: operation not supported error, dev nvme0n1, sector 340812032 op 0x9:(WRITE_ZEROES) flags 0x0 "
    "phys_seg 0 prio class 0",
    "nvme0: Identify(0x6), Invalid Field in Command (sct 0x0 / sc 0x2) MORE",  # an admin command a drive lacks
])
def test_probes_and_unsupported_commands_are_no_fault(line):
    assert parse_line(line) is None


def test_nvme_namespace_io_errors_are_their_controllers_event():
    found = run([
        "nvme nvme0: I/O 39 QID 3 timeout, aborting",
        "nvme0n1: Write(0x1) @ LBA 100492368, 2048 blocks, Data Transfer Error (sct 0x0 / sc 0x4) ",
        "blk_update_request: I/O error, dev nvme0n1, sector 100492368 op 0x1:(WRITE) flags 0x104000 phys_seg 16 prio class 0",
        "nvme0n1: Write(0x1) @ LBA 100496464, 2048 blocks, Data Transfer Error (sct 0x0 / sc 0x4) ",
    ])
    assert [(f.kind, f.severity) for f in found] == [("nvme_error", "warning"), ("nvme_error", "error")]
    assert found[1].details["status"] == "Data Transfer Error" and found[1].details["device"] == "nvme0"
