"""The host around the GPUs (issue 29): its findings raise conditions that say what they mean, through the
agent's real pipeline (kmsg records as /dev/kmsg gives them; the message text of each is a real line from
tests/fixtures/realworld/host.yaml)."""

from __future__ import annotations

import io

import pytest

from agent.app import build
from agent.config import load
from agent.sources import Record


def make_agent(tmp):
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp), "fallback_log_files": [],
                              "fabricmanager_log": "", "imex_log": ""})
    return build(cfg, out=io.StringIO())


@pytest.mark.parametrize("message,condition,reason", [
    ("watchdog: BUG: soft lockup - CPU#18 stuck for 27s! [python3:2254956]", "KernelDegraded", "CPUSoftLockup"),
    ("rcu: INFO: rcu_sched detected stalls on CPUs/tasks:", "KernelDegraded", "RCUStall"),
    ("nfs: server 10.36.3.5 not responding, still trying", "StorageUnhealthy", "NFSServerNotResponding"),
    ("EXT4-fs (xvda9): Remounting filesystem read-only", "StorageUnhealthy", "FilesystemError"),
    ("nvme nvme2: Removing after probe failure status: -19", "StorageUnhealthy", "NVMeControllerRemoved"),
    # host-2.yaml
    ("XFS (sdb6): Filesystem has been shut down due to log error (0x2).", "StorageUnhealthy", "FilesystemError"),
    ("BTRFS info (device dm-0 state EA): forced readonly", "StorageUnhealthy", "FilesystemError"),
    ("Watchdog CPU:59 Hard LOCKUP", "KernelDegraded", "CPUSoftLockup"),
    # (h99) kernel-2026j.yaml, kubernetes/kubernetes #64743
    ("unregister_netdevice: waiting for eth0 to become free. Usage count = 1", "KernelDegraded", "UnregisterNetDevice"),
    # (h476) kernel-tables-2026.yaml: kubernetes-retired/kube-aws #476, leptonai/gpud #224
    ("VFS: file-max limit 1000000 reached", "KernelDegraded", "KernelTableFull"),
])
def test_host_fault_raises_its_condition(tmp_path, message, condition, reason):
    agent = make_agent(tmp_path)
    agent.pipeline.process([Record("kmsg", f"3,1,1000000,-;{message}")])
    got = agent.engine.conditions[condition]
    assert got.status and got.reason == reason


def test_a_corrected_memory_error_raises_nothing(tmp_path):
    agent = make_agent(tmp_path)
    agent.pipeline.process([Record("kmsg", "3,1,1000000,-;mce: [Hardware Error]: Machine check events logged")])
    assert not agent.engine.conditions["HostMemoryUnhealthy"].status


def test_an_nvme_reset_after_an_aborted_timeout_raises_storage(tmp_path):
    """The abort is a warning (no condition); the controller reset it escalated to, in the same event, raises it."""
    agent = make_agent(tmp_path)
    agent.pipeline.process([Record("kmsg", "4,1,89895139,-;nvme nvme0: I/O 900 (I/O Cmd) QID 2 timeout, aborting"),
                            Record("kmsg", "4,2,89896745,-;nvme nvme0: Abort status: 0x0"),
                            Record("kmsg", "4,3,120103133,-;nvme nvme0: I/O 900 QID 2 timeout, reset controller")])
    got = agent.engine.conditions["StorageUnhealthy"]
    assert got.status and got.reason == "NVMeReset"


def test_a_full_kernel_table_taints_nothing(tmp_path):
    """(h476) A full file table is an error: KernelDegraded expires once its lines stop, and no taint follows; a full
    conntrack table a warning and no condition at all (a busy node's spike of a second would stand 6 h; EKS's
    monitor makes it an Event, not a condition) (kernel-tables-2026.yaml, kubernetes/kubernetes #71261, leptonai/gpud #224)."""
    from parsers.kinds import BY_NAME, CONDITIONS

    agent = make_agent(tmp_path)
    agent.pipeline.process([Record("kmsg", "4,1,1000000,-;nf_conntrack: table full, dropping packet")])
    assert not agent.engine.conditions["KernelDegraded"].status
    agent.pipeline.process([Record("kmsg", "4,2,2000000,-;VFS: file-max limit 1000000 reached")])
    got = agent.engine.conditions["KernelDegraded"]
    assert got.status and got.severity == "error"
    assert [(r.condition, r.clear) for r in BY_NAME["kernel_table_full"].raises] == [("KernelDegraded", "expire")]
    assert not next(c for c in CONDITIONS if c.type == "KernelDegraded").taint


def test_a_kernel_panic_raises_nothing(tmp_path):
    """(h99) A panic's lines reach the agent only from a console or an earlier boot's log (the kernel that printed it
    died): the kind raises no condition, so none flaps and none stale stands on the node that rebooted (kernel-2026j.yaml,
    qualcomm-linux/kernel #541, openzfs/zfs #9675)."""
    agent = make_agent(tmp_path)
    agent.pipeline.process([Record("kmsg", "0,1,1000000,-;SError Interrupt on CPU5, code 0x00000000be000000 -- SError"),
                            Record("kmsg", "0,2,2000000,-;Kernel panic - not syncing: hung_task: blocked tasks")])
    assert not any(c.status for c in agent.engine.conditions.values())
