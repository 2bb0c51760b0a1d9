"""Multi-line events outside PCIe AER (rules.EVENT_LINES): one finding per event, on real blocks from the corpus.

mlx5 firmware health dumps and mlx5e TX timeouts are kept apart per PCI function (rules.EVENT_PER_DEVICE);
the NVRM post-RX-detect NVLink failure pair is one event while it repeats."""

from __future__ import annotations

import collections
import io
from pathlib import Path

import pytest
import realworld
import yaml
from parsers import Scanner, parse_line
from parsers.classify import Classifier
from parsers.finding import Finding
from parsers.kinds import SEVERITY_RANK
from parsers.rules import EVENT_PER_GPU_INDEX

ITEMS = {(i["file"], i["text"].splitlines()[0]): i for i in realworld.samples()}
INCIDENTS = Path(__file__).parents[1] / "fixtures" / "incidents"


def _item(file: str, first_line_part: str) -> dict:
    hits = [i for (f, first), i in ITEMS.items() if f == file and first_line_part in first]
    assert len(hits) == 1, (file, first_line_part, len(hits))
    return hits[0]


@pytest.mark.parametrize("file,first,want", [
    # print_health_info dump of one function (kernel 5.16 wording, netdev post): one fatal nic_error
    ("mlx5-more.yaml", "print_health_info:425:(pid 912): Health issue observed", {("nic_error", "0000:08:00"): 1}),
    # miss-count + dump on 0d:00.0, then five more functions each with their own health failure: six devices
    ("mlx5-more.yaml", "[  445.937186] mlx5_core 0000:0d:00.0: poll_health",
     {("nic_error", "0000:0d:00" + (f".{n}" if n else "")): 1 for n in range(6)}),
    # TX timeout detected + the per-queue line + the EQ line: one event
    ("mlx5-more.yaml", "[ 6756.098429] mlx5_core 0000:13:00.1 eth1: TX timeout detected",
     {("nic_error", "0000:13:00.1"): 1}),
    # an mlx5e queue's error completion: the reporter's "ERR CQE on RQ/SQ" and the dump's "Error cqe on cqn .." (in
    # either order, the hex and WQE dumps between): one warning per function; after a DPC containment, the port's own
    # finding and the NIC's
    ("mlx5-cqe-2026d.yaml", "mlx5_core 0000:00:08.0 eth2: ERR CQE on RQ", {("nic_error", "0000:00:08"): 1}),
    ("mlx5-cqe-2026d.yaml", "mlx5_core 0000:3b:00.1 eth1: Error cqe on cqn", {("nic_error", "0000:3b:00.1"): 1}),
    ("mlx5-cqe-2026d.yaml", "pcieport 0007:00:00.0: DPC: containment event",
     {("pcie_aer", "0007:00:00"): 1, ("nic_error", "0017:01:00"): 1, ("unclassified", "0017:01:00"): 1,
      ("unclassified", "0007:01:00"): 1}),
    # a ConnectX that could not load: the failed step, the load's verdict, the probe's failure (two of them
    # unclassified, three findings, before the mlx5_probe event): one event per function
    ("host-nic-2026c.yaml", "[   12.925245] mlx5_core 0000:03:00.0: enabling device", {("nic_error", "0000:03:00"): 1}),
    ("host-nic-2026c.yaml", "[    5.376443] mlx5_core 0000:01:00.0: firmware version", {("nic_error", "0000:01:00"): 1}),
    # a machine check whose page the kernel took offline: the check's finding amended to an uncorrected error
    ("host-nic-2026c.yaml", "[74536.938995] [Hardware Error]: Deferred error", {("memory_error", None): 2}),
    ("host-nic-2026c.yaml", "mce: Uncorrected hardware memory error in user-access at 3710b3400",
     {("memory_error", None): 1}),
    # the knvlink pair: one nvlink event
    ("nvlink-fabric.yaml", "[6619715.535712] NVRM: knvlinkUpdatePostRxDetectLinkMask_IMPL", {("nvlink", None): 1}),
    # PyTorch's NCCL exception and NCCL's description of its code on the next line: one failure each
    ("nccl-pytorch.yaml", "NCCLUtils.hpp:268, unhandled cuda error", {("nccl_error", None): 1}),
    ("nccl-pytorch.yaml", "NCCLUtils.hpp:268, remote process exited", {("nccl_remote_error", None): 1}),
])
def test_one_finding_per_event(file, first, want):
    got = collections.Counter((f.kind, f.pci) for f in realworld.findings(_item(file, first)["text"]))
    assert got == want


def test_an_error_completion_is_a_warning_with_its_status():
    """mlx5e recovers the queue: a warning; the dump's syndrome is the libibverbs status it stands for."""
    found = realworld.findings(_item("mlx5-cqe-2026d.yaml", "eth1: Error cqe on cqn 0x817")["text"])
    assert [(f.kind, f.severity, f.details.get("wc_status"), f.details.get("netdev")) for f in found] == [
        ("nic_error", "warning", "IBV_WC_LOC_LEN_ERR", "eth1")]


def test_a_flushed_completion_is_part_of_the_queues_open_error_event_alone_info():
    """mlx5e's dump of a flushed work request (syndrome 0x5, IBV_WC_WR_FLUSH_ERR: the consequence of an earlier error
    or of a teardown) is part of its function's open queue-error event (lore stable, net/mlx5e: xsk: Fix unlocked
    writing to ICOSQ: syndrome 0x2, then 0x5); alone an info of its own, which a later error never joins (was: a
    warning of its own). SOURCE: that mail's lines; the later error its first line."""
    both = _item("mlx5-cqe-2026d.yaml", "ci 0x2022, qn 0x8f4")["text"].splitlines()
    assert [(f.severity, f.details["wc_status"]) for f in realworld.findings("\n".join(both))] == [
        ("warning", "IBV_WC_LOC_QP_OP_ERR")]
    flush = _item("mlx5-cqe-2026d.yaml", "ci 0x2023, qn 0x8f4")["text"].splitlines()
    (f,) = realworld.findings("\n".join(flush))
    assert (f.kind, f.severity, f.action, f.pci, f.details["wc_status"]) == (
        "nic_error", "info", "NONE", "0000:08:00", "IBV_WC_WR_FLUSH_ERR")
    # flushes past the event's window (16 lines) keep the error's event open: one finding
    assert [f.severity for f in realworld.findings("\n".join(both + flush * 4))] == ["warning"]
    # a flush first, the function's error after it: the error its own warning, never the flush's event
    assert [f.severity for f in realworld.findings("\n".join(flush + both[:1]))] == ["info", "warning"]


def test_health_dump_severity_is_fatal_and_a_dump_without_its_banner_is_one_event():
    text = _item("mlx5-more.yaml", "print_health_info:425:(pid 912)")["text"]
    found = realworld.findings(text)
    assert [f.severity for f in found] == ["fatal"]
    assert found[0].message.endswith("Health issue observed, firmware internal error, severity(3) ERROR:")
    # a dump whose banner was lost (a log that starts mid-report): its first line opens the event, the rest join
    alone = realworld.findings("\n".join(text.splitlines()[1:]) + "\n")
    assert [(f.kind, f.pci, f.severity) for f in alone] == [("nic_error", "0000:08:00", "fatal")]


def test_an_nccl_code_line_alone_is_a_failure_and_each_wrapper_counts():
    """The description line joins the wrapper before it; alone (or past the event's 2 lines) it is its own
    failure, and two ranks' wrappers in a row are two failures (synthetic lines, shaped as the real block above)."""
    wrapper = "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled system error"
    code = "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error."
    assert [f.kind for f in realworld.findings(code)] == ["nccl_error"]
    assert [f.kind for f in realworld.findings("\n".join([wrapper, code, wrapper, code]))] == ["nccl_error"] * 2
    assert [f.kind for f in realworld.findings("\n".join([wrapper, "a", "b", "c", code]))] == ["nccl_error"] * 2


def test_an_sxid_report_without_its_first_line_is_one_event_per_switch():
    """Continuation lines (Severity, Data) of a report whose first line was lost open it; later ones join it."""
    text = _item("sxid-fabricmanager.yaml", "NVIDIA UNIX Open Kernel Module")["text"]  # starts with a Data line
    got = [(f.sxid, f.pci) for f in realworld.findings(text) if f.kind == "sxid"]  # (after the driver's load banner)
    assert got == [(22013, "0000:04:00")] * 4  # the orphan Data line, then the three reports


@pytest.mark.parametrize("first", [
    "oom_reaper: reaped process 15784", "python3 invoked oom-killer", "GC Thread#9 invoked oom-killer"])
def test_any_line_of_an_oom_kill_is_one_kill(first):
    hits = [i for i in realworld.samples() if i["file"].startswith("oom") and first in i["text"]]
    assert hits and all([f.kind for f in realworld.findings(i["text"])] == ["oom_kill"] for i in hits)


def test_one_oom_report_is_one_kill_and_the_next_report_is_another():
    """Synthetic (labelled; shaped as the real 5.x report lines in oom-more.yaml): every line of one kill, a
    task table between them, then a second kill's lines."""
    kill = ["python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
            *[f"[{1000 + n:>7}]     0 {1000 + n:>7}    12345      678   123456        0             0 worker"
              for n in range(300)],
            "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
            "task_memcg=/,task=python3,pid=4242,uid=0",
            "Out of memory: Killed process 4242 (python3) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB",
            "oom_reaper: reaped process 4242 (python3), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB"]
    assert [f.kind for f in realworld.findings("\n".join(kill + kill))] == ["oom_kill", "oom_kill"]
    only_killed = "\n".join([kill[-2], kill[-2].replace("4242", "4343")])
    assert [f.kind for f in realworld.findings(only_killed)] == ["oom_kill", "oom_kill"]


# Whose memory an OOM kill says ran out (details "oom", parsers.rules.OOM_WORDS), each era's wording, REAL lines:
OOM_SCOPE_REPORTS = [
    # 5.x+, the node's memory: the whole report (dmesg --time-format iso | grep oom; equinor/ert #7797), its
    # "invoked oom-killer" line first, which says nothing of it
    (["2024-04-29T14:55:41,678628+02:00 pool invoked oom-killer: gfp_mask=0x6200ca(GFP_HIGHUSER_MOVABLE), order=0, "
      "oom_score_adj=0",
      "2024-04-29T14:55:41,678661+02:00  oom_kill_process.cold.33+0xb/0x10",
      "2024-04-29T14:55:41,678996+02:00 [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj "
      "name",
      "2024-04-29T14:55:41,679685+02:00 oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
      "global_oom,task_memcg=/user.slice/user-21417.slice/user@21417.service,task=perl,pid=1440763,uid=21417",
      "2024-04-29T14:55:41,679700+02:00 Out of memory: Killed process 1440763 (perl) total-vm:87033376kB, "
      "anon-rss:60356340kB, file-rss:0kB, shmem-rss:0kB, UID:21417 pgtables:169956kB oom_score_adj:0",
      "2024-04-29T14:55:46,947445+02:00 oom_reaper: reaped process 1440763 (perl), now anon-rss:0kB, file-rss:0kB, "
      "shmem-rss:0kB"], "host"),
    # 5.x+, a pod's container's limit: the task table's end, then the summary (syntara-orchestration/syntara #330)
    (["[Fri Aug 21 22:26:52 2026] [  32550] 525287 32550 67713442   536771   522690    14081         0  4608000        "
      "0           992 uvicorn",
      "[Fri Aug 21 22:26:52 2026] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=user.slice,mems_allowed=0,"
      "oom_memcg=/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-11017d9ed95ddc35b24735fce395331554737a0"
      "676defb9930e07b0ee6d802e5.scope/container/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/"
      "kubelet-kubepods-burstable-pod17d1d0b1_bbeb_4252_a45c_c9f426d1cb34.slice,task_memcg=/user.slice/user-1000.slice/"
      "user@1000.service/user.slice/libpod-11017d9ed95ddc35b24735fce395331554737a0676defb9930e07b0ee6d802e5.scope/"
      "container/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/kubelet-kubepods-burstable-"
      "pod17d1d0b1_bbeb_4252_a45c_c9f426d1cb34.slice/cri-containerd-799855c3e9e23ea07677c581b96f444dffb0932d7a907973bb"
      "08a8391803c559.scope,task=uvicorn,pid=32550,uid=525287"], "cgroup"),
    # 5.x+, the message alone (reportportal/kubernetes #203; docker/for-linux #1001's host kill)
    (["[ 7063.247407] Memory cgroup out of memory: Killed process 63214 (uwsgi) total-vm:3149468kB, "
      "anon-rss:164992kB, file-rss:52176kB, shmem-rss:92kB, UID:0 pgtables:1372kB oom_score_adj:986",
      "[ 7063.263325] oom_reaper: reaped process 63214 (uwsgi), now anon-rss:0kB, file-rss:0kB, shmem-rss:92kB"],
     "cgroup"),
    (["May 15 23:09:30 ubuntu-s-1vcpu-2gb-ams3-01 kernel: [  518.050606] Out of memory: Killed process 15784 (python3) "
      "total-vm:11964kB, anon-rss:4288kB, file-rss:3028kB, shmem-rss:0kB"], "host"),
    # 4.15: "Kill process .. or sacrifice child" with the message, then the bare "Killed process" (CrunchyData/
    # crunchy-containers #1140)
    (["[669521.998241] Memory cgroup out of memory: Kill process 86854 (postgres) score 1142 or sacrifice child",
      "[669522.007945] Killed process 86854 (postgres) total-vm:308932kB, anon-rss:8396kB, file-rss:9808kB, "
      "shmem-rss:21140kB"], "cgroup"),
    # before 4.19, the memcg report's "Task in .. killed as a result of limit of .." (istio/istio #42734)
    (["Jan  5 02:12:02 iZbp153spuk45ulvkwxf34Z kernel: Task in /kubepods.slice/kubepods-burstable.slice/kubepods-"
      "burstable-pod0330b2c1_a15b_4cdd_b5e5_72d4a90bee82.slice/docker-b27201334a41cd0749d053b18378d7ea65617b8e26277197"
      "ea25c974da1a5a8a.scope killed as a result of limit of /kubepods.slice/kubepods-burstable.slice/kubepods-"
      "burstable-pod0330b2c1_a15b_4cdd_b5e5_72d4a90bee82.slice/docker-b27201334a41cd0749d053b18378d7ea65617b8e26277197"
      "ea25c974da1a5a8a.scope",
      "Jan  5 02:12:02 iZbp153spuk45ulvkwxf34Z kernel: memory: usage 1048576kB, limit 1048576kB, failcnt 189"],
     "cgroup"),
]


@pytest.mark.parametrize("lines, scope", OOM_SCOPE_REPORTS)
def test_an_oom_kill_says_whose_memory_ran_out_whichever_of_its_lines_say_it(lines, scope):
    """REAL lines: one kill, its details "oom" as its lines say it, the same read line by line (the agent) and as a
    whole (`gpu-npd parse`). Was: no scope at all (triage could not tell a container's limit from the node's
    memory), and a report read from its "invoked oom-killer" line kept nothing its later lines said."""
    for found in (realworld.findings("\n".join(lines)), realworld.events(realworld.classified(lines))):
        assert [(f.kind, f.details.get("oom")) for f in found] == [("oom_kill", scope)]


def test_an_oom_report_opened_by_invoked_oom_killer_takes_its_cgroup_scope_from_the_summary():
    """CONSTRUCTED in the order mm/oom_kill.c prints a 5.x memcg kill (dump_header's "invoked oom-killer", then
    dump_oom_summary's constraint and the kill), from REAL lines of two reports: reportportal/kubernetes #203's
    "invoked oom-killer" line, leptonai/gpud #70's CONSTRAINT_MEMCG summary. The next report's first line starts a
    kill of its own, which takes nothing from this one."""
    invoked = "[ 7093.543707] uwsgi invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=986"
    summary = ("Aug 30 06:58:55.050705 ... kernel: oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-"
               "containerd-ec9ee26695deb4cc72bc665efff1cf3a03fdfb12f1303e02fe9252985e084a95.scope,mems_allowed=0-1,"
               "oom_memcg=/lxc.payload....-lxc/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podeded8c65_"
               "6e8e_4c6e_a889_3e427565c740.slice,task_memcg=/lxc.payload.ny2g2r5hh3-lxc/kubepods.slice/kubepods-"
               "burstable.slice/kubepods-burstable-podeded8c65_6e8e_4c6e_a889_3e427565c740.slice/cri-containerd-"
               "ec9ee26695deb4cc72bc665efff1cf3a03fdfb12f1303e02fe9252985e084a95.scope,task=pt_main_thread,pid=461754,"
               "uid=0")
    lines = [invoked, summary, invoked]
    for found in (realworld.findings("\n".join(lines)), realworld.events(realworld.classified(lines))):
        assert [(f.kind, f.details.get("oom")) for f in found] == [("oom_kill", "cgroup"), ("oom_kill", None)]


@pytest.mark.parametrize("file,first,want", [
    # 3.x: "os_pci_init_handle: invalid context!" between the "fallen off the bus" lines: part of the event
    ("xid-shapes.yaml", "[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.",
     {("fallen_off_bus", "0000:01:00"): 1}),
    # GSP RPCs failing with status 0xf (NV_ERR_GPU_IS_LOST) before and after the assertion: one event
    ("xid-shapes.yaml", "Feb 17 08:02:06 abggdna-DGX-Station-A100 kernel:", {("fallen_off_bus", None): 1}),
    ("xid-shapes.yaml", "[   35.564059] NVRM: _issueRpcAndWait", {("fallen_off_bus", None): 1}),
    # status 0xf frees and the resource server's assertions after them, no "fallen off the bus" line at all
    ("xid-shapes.yaml", "Aug 10 22:40:59.882659 anthill", {("fallen_off_bus", None): 1}),
    # each failed re-initialisation's osInitNvMapping reason: part of the GPU's RmInitAdapter event
    ("xid-shapes.yaml", "May 27 16:50:10 fedora kernel: NVRM: GPU 0000:09:00.0: rm_init_adapter failed",
     {("gpu_reset_required", "0000:09:00"): 1}),
    # the GSP-era reasons of each re-attempt (WPR2 already up, GSP firmware RM not initialised): the GPU's event
    ("gpu-kernel-3.yaml", "[  114.859956] NVRM: GPU 0000:a1:00.0: rm_init_adapter failed",
     {("gpu_reset_required", "0000:a1:00"): 1}),
])
def test_what_the_driver_prints_after_losing_a_gpu_is_that_gpus_event(file, first, want):
    """Nothing of the lost GPU's aftermath is left as an unclassified warning."""
    got = collections.Counter((f.kind, f.pci) for f in realworld.findings(_item(file, first)["text"]))
    assert got == want


def test_a_consequence_line_without_a_lost_gpu_and_another_cause_stay_unclassified():
    """A "within" row (rules.Rule.event) is part of an open event only: alone, the unclassified net keeps the line;
    an RPC failing with a status other than 0xf names another cause and is not the GPU's event.  The first three
    lines are verbatim (Bumblebee #554, open-gpu-kernel-modules #1151 and #688); the status 0x65 (NV_ERR_TIMEOUT)
    line is modelled on the last."""
    invalid = "[   49.261465] NVRM: os_pci_init_handle: invalid context!"
    mapping = "May 27 16:50:10 fedora kernel: NVRM: RmInitAdapter: osInitNvMapping failed, bailing out of RmInitAdapter"
    lost = ("Feb 17 08:02:35 abggdna-DGX-Station-A100 kernel: NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost "
            "from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106")
    timeout = ("Feb 17 08:02:35 abggdna-DGX-Station-A100 kernel: NVRM: _issueRpcAndWait: rpcSendMessage failed with "
               "status 0x00000065 for fn 76!")
    assert [f.kind for f in realworld.findings(invalid)] == ["unclassified"]
    # an init attempt's reason (a "lead" row) alone opens the attempt's event and makes no finding: its "RmInitAdapter
    # failed!" is the finding (test_an_init_attempt_is_one_event_from_its_first_reason)
    assert [f.kind for f in realworld.findings(mapping)] == []
    assert [f.kind for f in realworld.findings("\n".join([lost, invalid, timeout]))] == ["fallen_off_bus",
                                                                                          "unclassified"]
    # past the lost GPU's event (64 lines), a consequence line is the net's again
    assert [f.kind for f in realworld.findings("\n".join([lost] + ["x"] * 70 + [invalid]))] == [
        "fallen_off_bus", "unclassified"]


def test_a_peer_memory_module_that_cannot_load_is_one_event_per_module():
    """nvidia_peermem / nv_peer_mem print one line per symbol they miss, again at each load attempt: one
    peermem_error per module while they repeat (gpu-kernel-3.yaml: gpu-operator #2868, nv_peer_memory #84)."""
    peermem = _item("gpu-kernel-3.yaml", "[Tue Sep  8 17:16:02 2026] nvidia_peermem:")["text"]
    mellanox = _item("gpu-kernel-3.yaml", "[Fri Feb 12 11:47:20 2021] nv_peer_mem:")["text"]
    assert [f.kind for f in realworld.findings(peermem)] == ["peermem_error"]
    assert [(f.kind, f.details["device"]) for f in realworld.findings(peermem + mellanox)] == [
        ("peermem_error", "nvidia_peermem"), ("peermem_error", "nv_peer_mem")]


def test_a_gpu_the_driver_refused_at_probe_is_one_event_per_gpu_and_part_of_a_lost_gpus():
    """The driver core's failed-probe line (3.x "nvidia: probe of", 6.x "probe with driver nvidia failed") and the
    driver's summary after it ("probe routine failed", "None of the NVIDIA graphics adapters were initialized!") are
    one gpu_reset_required for the GPU (a driver_mismatch when the driver said before them that it does not support the
    GPU); the summary alone opens one naming no GPU; after the GPU's own "fallen off the
    bus" report they are that event's (tests/fixtures/dmesg/xid79-fallen-off-bus.dmesg), not a second finding."""
    old = _item("gpu-kernel-3.yaml", "[  666.185557] NVRM: The NVIDIA GPU 0000:04:00.0")["text"]
    assert [(f.kind, f.pci, f.action) for f in realworld.findings(old)] == [
        ("driver_mismatch", "0000:04:00", "UPDATE_SWFW")]
    summary = _item("gpu-kernel-3.yaml", "[188497.595099] NVRM: No NVIDIA graphics adapter probed!")["text"]
    assert [(f.kind, f.pci) for f in realworld.findings(summary)] == [("gpu_reset_required", None)]
    fallen = ("[14387.209961] NVRM: The NVIDIA GPU 0000:5d:00.0\nNVRM: (PCI ID: 10de:2330) installed in this system "
              "has\nNVRM: fallen off the bus and is not responding to commands.\n"
              "[14387.210134] nvidia: probe of 0000:5d:00.0 failed with error -1\n"
              "[14387.274303] NVRM: The NVIDIA probe routine failed for 1 device(s).")
    runtime = "[ 4254.197871] NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.\n"
    assert [(f.kind, f.pci) for f in realworld.findings(runtime + fallen)] == [
        ("fallen_off_bus", "0000:5d:00"), ("fallen_off_bus", "0000:5d:00")]
    # the probe-time report alone opens the GPU's event: the summary after it is part of it (NVSentinel #155's text)
    probe_only = ("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n               NVRM: (PCI ID: 10de:26b5) installed in "
                  "this system has\n               NVRM: fallen off the bus and is not responding to commands.\n"
                  "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).")
    assert [(f.kind, f.pci) for f in realworld.findings(probe_only)] == [("fallen_off_bus", "0000:b3:00")]
    # another GPU's failed probe is its own event
    other = "\n[14387.210200] nvidia 0000:2c:00.0: probe with driver nvidia failed with error -1"
    assert [(f.kind, f.pci) for f in realworld.findings(runtime + fallen + other)][-1] == (
        "gpu_reset_required", "0000:2c:00")


def test_a_gpu_the_gsp_marked_for_reset():
    """58x: "Back to back GSP RPC timeout detected! GPU marked for reset" with no Xid on its line (open-gpu-kernel-
    modules #446) is a gpu_reset_required; the Xid 154 after it is its own Xid, and names the GPU the event's finding
    lacked: made at once without an address, then amended with the Xid's (rules.EVENT_ADDRESS_FROM), counted once."""
    text = _item("gpu-kernel-3.yaml", "192.168.11.119: kern: warning: [2026-04-22T21:30:51.52643656Z]")["text"]
    raw = [(f.kind, f.xid, f.pci, f.details.get("amends")) for f in Scanner().scan(io.BytesIO(text.encode()))
           if f.kind != "unclassified"]
    assert raw == [("gpu_reset_required", None, None, None), ("xid", 154, "0000:0b:00", None),
                   ("gpu_reset_required", None, "0000:0b:00", "pci")]
    got = [(f.kind, f.xid, f.pci) for f in realworld.findings(text) if f.kind != "unclassified"]
    assert got == [("gpu_reset_required", None, "0000:0b:00"), ("xid", 154, "0000:0b:00")]


def test_a_gpu_needing_reset_is_one_event_while_its_lines_repeat():
    """Every RM call on a GPU needing reset fails with NV_ERR_RESET_REQUIRED: one gpu_reset_required per GPU index
    ("GPU0"; none named: one) while the lines repeat, the GSP's "GPU marked for reset" included.  The line is
    verbatim from open-gpu-kernel-modules #1045 (gpu-kernel-3.yaml); its repetition and the GPU1 copy are synthetic."""
    line = ("Jun 12 16:31:50 fedora-box kernel: NVRM: GPU0 nvCheckOkFailedNoLog: Check failed: Reset required "
            "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from _gpushareddataSendDataPollRpc(pGpu, polle>")
    other = line.replace("GPU0", "GPU1")
    got = [(f.kind, f.details.get("device")) for f in realworld.findings("\n".join([line, line, other, line, other]))]
    assert got == [("gpu_reset_required", "GPU0"), ("gpu_reset_required", "GPU1")]
    marked = ("NVRM: nvAssertFailedNoLog: Assertion failed: Back to back GSP RPC timeout detected! GPU marked for "
              "reset @ kernel_gsp.c:2387")
    unnamed = ("NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) "
               "returned from status @ kernel_channel.c:2874")
    assert [f.kind for f in realworld.findings("\n".join([marked, unnamed, unnamed]))] == ["gpu_reset_required"]


# A GPU needing reset's lines, shaped on open-gpu-kernel-modules #1045 (by index, by nothing) and #659 (by address)
_RESET_INDEX = ("NVRM: GPU{} nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) "
                "returned from _gpushareddataSendDataPollRpc(pGpu, polle>")
_RATE_LIMITING = ("NVRM: Rate limiting GSP RPC error prints for GPU at {} (printing 1 of every 30).  The GPU likely "
                  "needs to be reset.")
_RESET_UNNAMED = ("NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) "
                  "returned from status @ kernel_channel.c:2874")


def test_a_gpu_needing_reset_is_one_event_whichever_way_its_lines_name_it():
    """A GPU needing reset's lines name it by index ("NVRM: GPU0 nvCheckOkFailedNoLog: .."), by address ("Rate limiting
    GSP RPC error prints for GPU at PCI:0000:0a:00", with or without "PCI:" and the function), or by the address of the
    "NVRM: GPU at PCI:" banner before them: one event per GPU (rules.EVENT_PER_GPU_INDEX, keyed as the GSP's), so one
    gpu_reset_required, not one per spelling; two GPUs stay two.  The lines are shaped on open-gpu-kernel-modules #1045
    and #659 and gpu-kernel-3.yaml's banner; their combinations and other GPUs' copies are built here."""
    index, rate, unnamed = _RESET_INDEX, _RATE_LIMITING, _RESET_UNNAMED
    banner = "NVRM: GPU at PCI:{}: GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c"
    xid119 = _XID119_GPU.format(pci="{}", index="{}")
    resets = lambda *lines: [f.pci for f in realworld.findings("\n".join(lines))  # noqa: E731
                             if f.kind == "gpu_reset_required"]
    # by index, then by address (no line mapped the index: nothing tells them apart)
    assert len(resets(index.format(0), rate.format("PCI:0000:0a:00"))) == 1
    # the address in two spellings
    assert len(resets(rate.format("PCI:0000:0a:00"), rate.format("0000:0a:00.0"))) == 1
    # by the banner's address, then by the address
    assert resets(banner.format("0000:0a:00"), unnamed, rate.format("PCI:0000:0a:00")) == ["0000:0a:00"]
    # the index mapped to the address by an Xid 119 naming both, then each spelling
    assert len(resets(xid119.format("0000:0a:00", 0), index.format(0), rate.format("PCI:0000:0a:00"),
                      index.format(0))) == 1
    # named by index only, after a line mapped the index: the finding names the GPU's address
    assert resets(xid119.format("0000:0a:00", 0), index.format(0)) == ["0000:0a:00"]
    # two GPUs: two events, whichever way they are named
    assert len(resets(index.format(0), index.format(1))) == 2
    assert len(resets(rate.format("PCI:0000:0a:00"), rate.format("PCI:0000:0b:00"))) == 2
    assert len(resets(xid119.format("0000:0a:00", 0), xid119.format("0000:0b:00", 1), index.format(0),
                      rate.format("PCI:0000:0b:00"), index.format(1), rate.format("0000:0a:00.0"))) == 2


def test_the_resource_servers_assertions_after_a_gpu_needing_reset_are_that_event():
    """The consequence lines of a lost GPU ("Assertion failed: (status == NV_OK) || .." and 59x's "Check failed: ..")
    follow a GPU needing reset too: a "within" row of both events (rules.Rule.event "fallen|reset"), part of whichever
    is open (open-gpu-kernel-modules #1045: the check line before the reset line opened an event stays the net's; the
    poll-helper check after it, whatever it names, is the event's: rules.py rm_check_after)."""
    text = _item("gpu-kernel-3.yaml", "Jun 12 16:31:50 fedora-box kernel: NVRM: GPU0 nvCheckFailedNoLog")["text"]
    assert [f.kind for f in realworld.findings(text)] == ["unclassified", "gpu_reset_required"]
    alone = text.splitlines()[3]  # "NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || .."
    assert [f.kind for f in realworld.findings(alone)] == ["unclassified"]


def test_the_assertion_after_an_rpc_event_during_gsp_bootup_is_part_of_it():
    """595's _kgspProcessRpcEvent drops an RPC event the GSP sent while the driver polled for its boot without the API
    lock and asserts on the next line (open-gpu-kernel-modules #1145, verbatim, gsp.yaml): no finding, the assertion
    part of that line's one-line event (rules.py gsp_bootup_rpc, rm_check_after). The assertion alone, or past the
    event's line window, stays the net's warning; a heartbeat timeout after the pair is still its Xid 119."""
    text = _item("gsp.yaml", "NVRM: _kgspProcessRpcEvent")["text"]
    event, assertion = text.splitlines()
    assert realworld.findings(text) == []
    assert [f.kind for f in realworld.findings(assertion)] == ["unclassified"]
    assert [f.kind for f in realworld.findings("\n".join([event, "x", assertion]))] == ["unclassified"]
    heartbeat = "NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out"
    assert [(f.kind, f.xid) for f in realworld.findings(text + heartbeat)] == [("xid", 119)]


def test_an_init_attempt_is_one_event_from_its_first_reason():
    """The GSP-era driver's reasons come before the first "RmInitAdapter failed!" of an attempt, naming the GPU by
    its index at most: they open the attempt's event (no finding, no unclassified warning), the "RmInitAdapter
    failed!" naming the GPU is its one finding, with its address, and the re-attempts after it are part of it.
    Lines verbatim from open-gpu-kernel-modules #1058 (gpu-kernel-3.yaml); the second GPU's attempt is synthetic.
    The assertion on the boot call (kgspWaitForRmInitDone) is the attempt's first reason; the GSP RPC's failed result
    before it (RPC_HDR->rpc_result, any RPC's at run time) stays the net's."""
    text = _item("gpu-kernel-3.yaml", "[   81.967314] NVRM: GPU0 nvAssertOkFailedNoLog")["text"]
    got = [(f.kind, f.pci) for f in realworld.findings(text)]
    assert got == [("unclassified", None), ("gpu_reset_required", "0000:01:00")]
    other = ("[   82.000000] NVRM: GPU1 RmInitAdapter: Cannot initialize GSP firmware RM\n"
             "[   82.000100] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x62:0x40:2168)")
    got = [(f.kind, f.pci) for f in realworld.findings(text + other) if f.kind != "unclassified"]
    assert got == [("gpu_reset_required", "0000:01:00"), ("gpu_reset_required", "0000:02:00")]


def test_a_gsp_timeout_without_its_xid_line_is_an_xid_119():
    """The GSP's heartbeat lines (open-gpu-kernel-modules #1200, verbatim) are what Xid 119 reports: one Xid 119
    finding, the catalog's severity, for the lines of one timeout; the Xid 154 after them is its own."""
    text = ("NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out\n"
            "NVRM: _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 3175895033 heartbeat 19834604 "
            "heartbeatWithOffsetMs 3175815351 diff 79682 timeout 5200\n"
            "NVRM: _kgspRpcRecvPoll: LibOS heartbeat timed out\n"
            "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)")
    got = [(f.kind, f.xid, f.severity, f.details.get("gsp")) for f in realworld.findings(text)]
    xid119 = parse_line("NVRM: Xid (PCI:0000:01:00): 119, Timeout waiting for RPC from GSP! Expected function 76")
    assert got[0] == ("xid", 119, xid119.severity, "GSP RM heartbeat timed out")
    assert [g[:2] for g in got] == [("xid", 119), ("xid", 154)]


def test_the_lines_after_an_xid_119_are_part_of_it():
    """After its Xid 119 the driver prints the RPC that timed out ("rpcRecvPoll timedout for fn 76 ..", rpc.c) and
    the poll's heartbeat verdict: part of that Xid's GSP event.  The heartbeat check before an Xid 119 (kernel_gsp.c
    checks at the timeout, before it logs the Xid) is too.  Synthetic lines shaped on open-gpu-kernel-modules #446,
    #1230 and vllm #40652 (the first three verbatim from #1230)."""
    text = ("[   24.302465] NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 812751949 heartbeat "
            "1899482 heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200\n"
            "[   84.300480] NVRM: GPU6 kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected. "
            "kbusSendSysmembarSingle failed.\n"
            "[   84.300488] NVRM: GPU6 _kgspLogRpcTimeout: ********************************* GSP Timeout "
            "**********************************\n"
            "[   84.300500] NVRM: Xid (PCI:0000:a1:00): 119, pid=1, name=nvidia-smi, Timeout after 45s of waiting for RPC "
            "response from GPU6 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 4129 (0x0 0x0).\n"
            "[   84.300600] NVRM: GPU6 _issueRpcAndWait: rpcRecvPoll timedout for fn 76 sequence 4129!\n"
            "[   84.300700] NVRM: GPU6 _kgspRpcRecvPoll: GSP RM heartbeat timed out")
    assert [(f.kind, f.xid, f.pci) for f in realworld.findings(text)] == [("xid", 119, "0000:a1:00")]
    # a second Xid 119 is its own finding, as every Xid line is
    assert len(realworld.findings(text + "\n" + text)) == 2
    # a heartbeat check nothing follows (an excerpt cut there) makes no finding of its own
    assert realworld.findings(text.splitlines()[0]) == []


def test_an_xid_175_is_its_gsp_timeouts_one_finding():
    """595's GSP RPC timeout whose memory-subsystem probe failed is logged as Xid 175 (MEMORY_SUBSYSTEM_ERROR) with
    Xid 119's text (kernel_gsp.c _kgspClassifyGspTimeout, _kgspLogRpcTimeout's NV_ERROR_LOG_COND); the driver's lines
    after it are the same timeout's: one finding, the 175's, fatal (the driver marks the GPU for reset). The "rpcRecvPoll
    timedout" line after it was a second, Xid 119 finding. Synthetic Xid line on the driver's format; the lines before
    it verbatim from open-gpu-kernel-modules #1230 (595.71.05, whose probe returned 0x72, NV_ERR_MEMORY_ERROR)."""
    text = ("[   84.300480] NVRM: GPU6 kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected. "
            "kbusSendSysmembarSingle failed.\n"
            "[   84.300482] NVRM: GPU6 _kgspCheckIfMemsysError: Unexpected error when checking for memory subsystem "
            "error: 0x72 \n"
            "[   84.300488] NVRM: GPU6 _kgspLogRpcTimeout: ********************************* GSP Timeout "
            "**********************************\n"
            "[   84.300500] NVRM: Xid (PCI:0000:a1:00): 175, pid=1, name=nvidia-smi, Timeout after 45s of waiting for RPC "
            "response from GPU6 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 4129 (0x0 0x0).\n"
            "[   84.300600] NVRM: GPU6 _issueRpcAndWait: rpcRecvPoll timedout for fn 76 sequence 4129!\n"
            "[   84.300700] NVRM: GPU6 _kgspRpcRecvPoll: GSP RM heartbeat timed out\n"
            "[   84.300800] NVRM: Xid (PCI:0000:a1:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU "
            "Reset Required)")
    got = [(f.kind, f.xid, f.pci, f.severity, f.attribution) for f in realworld.findings(text)]
    assert got == [("xid", 175, "0000:a1:00", "fatal", "hardware"), ("xid", 154, "0000:a1:00", "fatal", "driver")]


_XID119_GPU = ("NVRM: Xid (PCI:{pci}): 119, pid=1, name=python, Timeout after 45s of waiting for RPC response from "
               "GPU{index} GSP! Expected function 76 (GSP_RM_CONTROL) sequence 4129 (0x0 0x0).")


def test_gsp_events_are_kept_per_gpu_by_address_or_index():
    """The GSP's event is one per GPU: a second GPU's heartbeat lines inside the first's window are its own Xid 119.
    The heartbeat lines name the GPU by index ("NVRM: GPU6 _kgspRpcRecvPoll: .."), Xid 119 by address; the 57x+ Xid
    119 text names both ("from GPU6 GSP!", shaped on gpud's dmesg-with-xid-119.log and open-gpu-kernel-modules #1230),
    so the stream knows which address an index is."""
    gpu0, gpu6 = _XID119_GPU.format(pci="0000:18:00", index=0), _XID119_GPU.format(pci="0000:a1:00", index=6)
    beat = "NVRM: GPU{} _kgspRpcRecvPoll: GSP RM heartbeat timed out"
    got = lambda *lines: [(f.kind, f.xid, f.pci) for f in realworld.findings("\n".join(lines))]  # noqa: E731
    # GPU0's Xid 119, its heartbeat, then GPU6's heartbeat: two events (GPU6's address unknown: none)
    assert got(gpu0, beat.format(0), beat.format(6)) == [("xid", 119, "0000:18:00"), ("xid", 119, None)]
    # GPU6's address known from its own Xid 119 earlier: each heartbeat is its GPU's open event
    assert got(gpu6, gpu0, beat.format(0), beat.format(6)) == [("xid", 119, "0000:a1:00"), ("xid", 119, "0000:18:00")]
    # the heartbeat check naming GPU6 before its Xid 119: one event, the Xid's address
    check = ("NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 812751949 heartbeat 1899482 "
             "heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200")
    assert got(check, gpu6, beat.format(6)) == [("xid", 119, "0000:a1:00")]
    # GPU6's check, then GPU0's Xid 119 (it says GPU0): GPU6's event stays its own
    assert got(check, gpu0, beat.format(6)) == [("xid", 119, "0000:18:00"), ("xid", 119, None)]
    # nothing tells them apart (a line naming no GPU; an older Xid 119 text naming no index): one event, as before
    assert got(gpu0, "NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out") == [("xid", 119, "0000:18:00")]
    old = ("NVRM: Xid (PCI:0000:18:00): 119, pid=1, name=python, Timeout waiting for RPC from GSP! Expected function "
           "76 (GSP_RM_CONTROL) (0x0 0x0).")
    assert got(old, beat.format(6)) == [("xid", 119, "0000:18:00")]


def test_only_the_lines_of_events_kept_per_gpu_by_index_are_keyed_so(monkeypatch):
    """Classifier._by_gpu (an event key by the GPU's address or index) runs for the lines of the events that need it
    (rules.EVENT_PER_GPU_INDEX) only, not for every event line of the corpus (an AER record, an OOM report, an mlx5
    health dump): their keys are what they were."""
    keyed = []
    by_gpu = Classifier._by_gpu

    def spy(self, event, position):
        keyed.append(event[0])
        return by_gpu(self, event, position)

    monkeypatch.setattr(Classifier, "_by_gpu", spy)
    for item in realworld.samples():
        realworld.findings(item["text"])
    events = {frozenset(one.split(" ", 1)[0] for one in ((name,) if type(name) is str else name)) for name in keyed}
    assert events and all(names & EVENT_PER_GPU_INDEX for names in events), events


def test_a_gsp_event_takes_no_other_gpus_address():
    """An amendment's address (EVENT_ADDRESS_FROM) is the event's GPU's only: GPU6's heartbeat (its address unknown)
    then GPU0's Xid 154 (GPU0 at 0000:18:00, its Xid 119 said so) is no address of GPU6's; with no mapping, a later
    Xid 154 names the GPU, as before."""
    gpu0 = _XID119_GPU.format(pci="0000:18:00", index=0)
    xid154 = "NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"
    beat6 = "NVRM: GPU6 _kgspRpcRecvPoll: GSP RM heartbeat timed out"
    got = lambda *lines: [(f.xid, f.pci, f.details.get("amends"))  # noqa: E731
                          for f in realworld.findings("\n".join(lines))]
    assert got(gpu0, beat6, xid154) == [(119, "0000:18:00", None), (119, None, None), (154, "0000:18:00", None)]
    assert got(beat6, xid154) == [(119, "0000:18:00", "pci"), (154, "0000:18:00", None)]


def test_the_driver_rate_limiting_its_gsp_prints_is_the_gpus_reset():
    """Past its reset threshold of GSP timeouts the driver says the GPU likely needs a reset (open-gpu-kernel-modules
    #659, gsp.yaml): a gpu_reset_required for that GPU; the control calls timing out with it (0x65) are the GSP's.
    The GSP's timeout before it named no GPU: the rate-limiting line's address is its (an amendment, counted once)."""
    text = _item("gsp.yaml", "2025-07-23T20:08:23.729932+02:00 ThreadripperIntern")["text"]
    got = [(f.kind, f.xid, f.pci) for f in realworld.findings(text)]
    assert got == [("xid", 119, "0000:0a:00"), ("gpu_reset_required", None, "0000:0a:00"), ("xid", 154, "0000:0a:00")]


def test_a_gpu_needing_reset_takes_its_address_from_the_rate_limiting_line_that_joins_it():
    """A GPU needing reset whose lines so far named no GPU ("Assertion failed: Reset required ..") or only an index no
    line mapped ("NVRM: GPU0 nvCheckOkFailedNoLog: .."), then "Rate limiting GSP RPC error prints for GPU at PCI:.."
    joining its event (no finding of its own): the event's finding takes that line's address (rules.EVENT_FILLS), as
    an amendment counted once with it, in `parse` (Scanner.scan) and the agent's path (Classifier.read) alike.
    A GPU told apart from that address (its index mapped to another) keeps its own event, and no address of another's.
    The lines are shaped on open-gpu-kernel-modules #1045 and #659 (as in the test above)."""
    index, rate, unnamed = _RESET_INDEX, _RATE_LIMITING, _RESET_UNNAMED
    raw = lambda lines: [(f.kind, f.pci, f.details.get("amends"))  # noqa: E731
                         for f in Scanner().scan(io.BytesIO("\n".join(lines).encode()))]
    resets = lambda lines: [(f.kind, f.pci) for f in realworld.findings("\n".join(lines))]  # noqa: E731
    for first in (unnamed, index.format(0)):
        lines = [first, first, rate.format("PCI:0000:0a:00"), first, rate.format("0000:0a:00.0")]
        assert raw(lines) == [("gpu_reset_required", None, None), ("gpu_reset_required", "0000:0a:00", "pci")]
        assert resets(lines) == [("gpu_reset_required", "0000:0a:00")]
        agent = realworld.classified(lines)
        assert [(f.kind, f.pci, f.details.get("amends")) for f in agent] == raw(lines)
        assert [(f.kind, f.pci) for f in realworld.events(agent)] == resets(lines)
    # the banner's address came first: the finding named it, nothing to amend
    banner = "NVRM: GPU at PCI:0000:0a:00: GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c"
    assert raw([banner, unnamed, rate.format("PCI:0000:0a:00")]) == [("gpu_reset_required", "0000:0a:00", None)]
    # GPU1's event (GPU0 mapped to 0000:0a:00 by its Xid 119): the rate-limiting line for 0000:0a:00 is not its
    xid119 = _XID119_GPU.format(pci="0000:0a:00", index=0)
    assert [(k, p) for k, p, _ in raw([xid119, index.format(1), rate.format("PCI:0000:0a:00")])] == [
        ("xid", "0000:0a:00"), ("gpu_reset_required", None), ("gpu_reset_required", "0000:0a:00")]


def test_the_process_a_memory_error_killed_is_its_events():
    """hwpoison's lines after the machine check that opened the event ("Memory failure: 0x3710b3: Sending SIGBUS to
    einj_mem_uc:361438 due to hardware memory corruption", host-nic-2026c.yaml) join it and give its one finding the
    process the kernel signalled (rules.EVENT_FILLS "mce": pid and process, an amendment "pid"), in `parse` and the
    agent's path alike; the wording of every era names it on a line of its own (host-memory-2026d.yaml)."""
    item = _item("host-nic-2026c.yaml", "mce: Uncorrected hardware memory error in user-access at 3710b3400")
    lines = item["text"].splitlines()
    raw = [(f.kind, f.severity, f.pid, f.process, f.details.get("amends"))
           for f in Scanner().scan(io.BytesIO(item["text"].encode()))]
    assert raw == [("memory_error", "error", None, None, None),
                   ("memory_error", "error", 361438, "einj_mem_uc", "pid")]
    assert [(f.pid, f.process) for f in realworld.findings(item["text"])] == [(361438, "einj_mem_uc")]
    assert [(f.pid, f.process, f.details.get("amends")) for f in realworld.classified(lines)] == [
        (None, None, None), (361438, "einj_mem_uc", "pid")]
    for line, pid, process in [
            ("[   58.091878] MCE 0xb4365: Killing copy_to_user_te:3768 early due to hardware memory corruption", 3768,
             "copy_to_user_te"),
            ("Mar  9 19:48:24 defiant kernel: [77187.055103] MCE: Killing uffd-unit-tests:1321817 due to hardware memory "
             "corruption fault at 4631e000", 1321817, "uffd-unit-tests"),
            (lines[3], 361438, "einj_mem_uc")]:
        f = parse_line(line)
        assert (f.kind, f.severity, f.pid, f.process) == ("memory_error", "error", pid, process), line


def test_a_process_the_kernel_forcibly_killed_is_its_events_with_the_sigkill():
    """hwpoison's "forcibly killing <comm>:<pid> because of failure to unmap corrupted page" (SIGKILL, not SIGBUS:
    host-memory-2026e.yaml, linux-mm 2019) was read as nothing: alone it is the error, naming the process and
    details "forced"; after the machine check's first line it gives that one finding the process and "forced"
    (rules.EVENT_FILL_DETAILS), and the SIGBUS line after it about the same process changes nothing."""
    item = _item("host-memory-2026e.yaml", "mce: Uncorrected hardware memory error in user-access at edbe201400")
    lines = item["text"].splitlines()
    found = [(f.pid, f.process, f.details.get("forced"), f.details.get("amends"))
             for f in realworld.classified(lines)]
    assert found == [(None, None, None, None), (22434, "read_poison", "forcibly killing", "pid")]
    assert [(f.pid, f.process, f.details.get("forced")) for f in realworld.findings(item["text"])] == [
        (22434, "read_poison", "forcibly killing")]
    f = parse_line(lines[9])
    assert (f.kind, f.severity, f.pid, f.process, f.details.get("forced")) == (
        "memory_error", "error", 22434, "read_poison", "forcibly killing")


# PyTorch 2.6's ncclRemoteError, its last error quoted on a line of its own (pytorch/pytorch #150916, verbatim)
_QUOTED = tuple(INCIDENTS.joinpath("pytorch-150916-killed-peer", "logs", "train.log").read_text().splitlines())
_PEER = "ip-172-31-45-209.eu-north-1.compute.internal"


def test_the_socket_error_pytorch_quotes_gives_its_peer_to_the_exceptions_one_failure():
    """The line PyTorch quotes after "Last error:" (NCCL's socket error, without its "NCCL WARN ") joins the exception's
    event, its peer the failure's (rules.EVENT_FILLS): one finding, amended with the peer, in `parse` and the agent's
    path alike; alone (the exception's lines lost), the quoted line is the failure, with its peer."""
    text = "\n".join(_QUOTED)
    raw = [(f.kind, f.rank, f.peer, f.details.get("amends"), f.line) for f in Scanner().scan(io.BytesIO(text.encode()))]
    assert raw == [("nccl_remote_error", 1, None, None, 1), ("nccl_remote_error", 1, _PEER, "peer", 1)]
    assert [(f.kind, f.rank, f.peer) for f in realworld.findings(text)] == [("nccl_remote_error", 1, _PEER)]
    agent = realworld.classified(_QUOTED)
    assert [(f.kind, f.peer, f.details.get("amends")) for f in agent] == [(k, p, a) for k, _, p, a, _ in raw]
    alone = parse_line(_QUOTED[-1])
    assert (alone.kind, alone.peer, alone.details.get("amends")) == ("nccl_remote_error", _PEER, None)
    # past the event's lines (EVENT_LINES "nccl_exception"): a failure of its own
    apart = "\n".join([*_QUOTED[:2], "a", "b", "c", _QUOTED[-1]])
    assert [(f.peer, f.details.get("amends")) for f in realworld.findings(apart)] == [(None, None), (_PEER, None)]


def test_read_returns_a_lines_own_finding_and_what_it_amended_classify_the_first():
    """Classifier.read: (the line's own finding or None, the earlier findings it amended), both outputs returned, no
    state for the caller to read back; classify, for a line on its own account, is the first."""
    c = Classifier()
    found = [c.read(line) for line in _QUOTED]
    assert [(f.kind if f else None, [(a.kind, a.peer, a.details["amends"]) for a in amended])
            for f, amended in found][-1] == (None, [("nccl_remote_error", _PEER, "peer")])
    assert all(amended == () for _, amended in found[:-1])
    assert c.read("no keyword here") == (None, ())
    alone = Classifier()
    assert [alone.classify(line) for line in _QUOTED][-1] is None  # joined its event; the amendment is read's


def test_a_quoted_socket_reset_names_its_peer_and_nccls_own_line_stays_its_own_row():
    """The 2.2x socket call's error as PyTorch quotes it ("socketProgressOpt: Call to recv from 172....<33759> failed :
    Connection reset by peer", NVIDIA/nccl #2076 in nccl-pytorch.yaml: its peer redacted by the poster) joins the
    exception likewise; NCCL's own "NCCL WARN" lines are still read by their rows, never as a quote."""
    text = _item("nccl-pytorch.yaml", "remote process exited or there was a network error, NCCL version 2.21.5")["text"]
    assert "Call to recv from 172....<33759>" in text
    assert [(f.kind, f.peer) for f in realworld.findings(text)] == [("nccl_remote_error", "172....")]
    warn = ("a100-st-p4d24xlarge-22:183006:183220 [1] NCCL WARN socketProgress: Connection closed by remote peer "
            "a100-st-p4d24xlarge-23.ec2.internal<44312>")
    f = parse_line(warn)
    assert (f.kind, f.peer, f.details.get("peer_port")) == ("nccl_remote_error", "a100-st-p4d24xlarge-23.ec2.internal",
                                                            44312)


def test_a_line_of_several_events_returns_what_each_call_made_up_to_the_one_that_absorbed_it():
    """Classifier._in_event returns its verdict (absorbed, made_by, amends, joined). A key naming several events
    (a "gsp|reset" or "fallen|reset" row's) is each name's call in turn until one absorbs the line: made_by, amends
    and joined are each the last that a call gave, those before the absorbing call included, and no name after it is
    called. The real rows' several-name keys reach little of this (their first calls are "within", which decide
    nothing else), so the keys and open events are set here by hand; no log line is read."""
    severity = SEVERITY_RANK["fatal"]

    c = Classifier()
    assert c._in_event(("rcu_stall", "open", "r"), 0) == (False, "rcu_stall", None, None)
    # no finding of mce's or clocksource's to escalate: each a "join" that opens its event (made_by); rcu_stall's open
    # one absorbs the line; fs is never called
    assert c._in_event((("mce", "clocksource", "rcu_stall", "fs sda"), "escalate", "s"), 1, severity) == (
        True, "clocksource", None, None)
    assert set(c._events) == {"rcu_stall", "mce", "clocksource"}

    c = Classifier()
    # the events' findings (their fields the test's): aer's an error, nccl_exception's fatal already
    c._made["aer"] = (0, Finding("pcie_aer", "error", "hardware", "INVESTIGATE", ""))
    c._made["nccl_exception"] = (0, Finding("nccl_error", "fatal", "unknown", "INVESTIGATE", ""))
    c._events["nccl_exception"] = 0
    # a fatal line: aer's finding escalated (amends), then nccl_exception's, no worse, absorbs the line (joined)
    assert c._in_event((("aer", "nccl_exception"), "escalate", "e"), 1, severity) == (
        True, None, "aer", "nccl_exception")
    # no call absorbs it: aer's (within its window still) amends, mce's opens (made_by)
    assert c._in_event((("aer", "mce"), "escalate", "e"), 2, severity) == (False, "mce", "aer", None)

    # a "join" key of several: part of an open event of the names after the first (no other call), else the first's
    c = Classifier()
    gsp, reset = "gsp 0000:a1:00", "reset 0000:a1:00"
    assert c._in_event(((gsp, reset), "join", "gsp_timeout"), 0) == (False, gsp, None, None)
    assert c._in_event(((gsp, reset), "join", "gsp_timeout"), 1) == (True, None, None, None)  # gsp's, now open
    c = Classifier()
    c._events[reset] = 0
    assert c._in_event(((gsp, reset), "join", "gsp_timeout"), 1) == (True, None, None, None)
    assert gsp not in c._events


@pytest.mark.parametrize("opened, line, joined", [
    ("0004:01:00.1", "0004:01:00.0", True),  # a sibling function of the same device (dddd:bb:dd.f)
    ("0004:01:00.1", "0004:02:00.0", False),  # another device
    ("ib0.8001", "ib0.8002", False),  # IPoIB children of ib0: netdevs, no functions of a device
    ("eth0.100", "eth0.200", False),  # VLANs of eth0 alike
])
def test_a_line_within_its_device_joins_a_sibling_functions_event_only_by_a_pci_key(opened, line, joined):
    """An EVENT_WITHIN_DEVICE line (mlx5_crdump_refused) with no open event of its own key joins the open event of
    another function of its device: the key cut at its function's `.`. Only a PCI function's key is cut so: a netdev's
    key (a VLAN's eth0.100, an IPoIB child's ib0.8001) names no device's functions. Was: cut at its last `.`, joining
    the event of an unrelated netdev. The keys are set here by hand (the rows' keys today are all PCI addresses)."""
    c = Classifier()
    c._events[f"mlx5_health {opened}"] = 0
    got = c._in_event((f"mlx5_health {line}", "within", "mlx5_crdump_refused"), 1)
    assert got == ((True, None, None, None) if joined else (False, None, None, None))
    assert c._events[f"mlx5_health {opened}"] == (1 if joined else 0)


def test_nfs_soft_mount_timeout_is_an_error_and_a_hard_mount_wait_a_warning():
    """(h45) An NFS soft mount's RPC that timed out failed its I/O (net/sunrpc/clnt.c: -EIO / -ETIMEDOUT): an error,
    one event per server while it repeats, the hard mount's "still trying" after it (a warning) part of it; a
    "still trying" warning first, then a "timed out" line, is the event's escalation: its own error finding."""
    soft = _item("host-2.yaml", "nfs: server thinkcentre not responding, timed out")
    found = [(f.kind, f.severity) for f in realworld.findings(soft["text"])]
    assert found == [("nfs_error", "error"), ("nfs_error", "info")]
    # the same server's real lines, a hard mount's wait first (the source's own lines, reordered by the test)
    lines = soft["text"].splitlines()
    text = "\n".join([lines[6], lines[0], lines[1]]) + "\n"
    assert [(f.kind, f.severity) for f in realworld.findings(text)] == [("nfs_error", "warning"),
                                                                          ("nfs_error", "error")]


def test_gpfs_lost_membership_is_one_error_per_cluster():
    """(h45) A GPFS node that lost its cluster (its file systems unmounted): an error naming the cluster; the
    connection lines around it are none."""
    item = _item("storage-gpfs.yaml", "Close connection to 89.116.94.81 k155n01")
    found = realworld.findings(item["text"])
    assert [(f.kind, f.severity, f.details.get("device")) for f in found] == [
        ("parallel_fs_error", "error", "remote.cluster")]


def test_a_cephfs_client_whose_reconnect_the_mds_denied_is_an_error_per_rank():
    """(h183) CephFS's kernel client evicted by its metadata server (the Ceph troubleshooting guide's real lines,
    storage-ceph.yaml): the session closed (a warning), then the reconnect denied, the error it escalates to (the
    client blocklisted, its dirty data dropped: StorageUnhealthy); libceph's connection lines after it are part of
    nothing. 6.6+ kernels print the file system's id and the client's after "ceph: " (pr_info_client in
    include/linux/ceph/ceph_debug.h): the lines below in that form are constructed from that macro and
    fs/ceph/mds_client.c's "mds%d reconnect denied" / "mds%d reconnect success", not copied from a log; another rank
    is its own event; the reconnect that succeeded is the recovery (info). Was: no finding."""
    item = _item("storage-ceph.yaml", "ceph: mds0 closed our session")
    found = realworld.findings(item["text"])
    assert [(f.kind, f.severity, f.details.get("device")) for f in found] == [
        ("parallel_fs_error", "warning", "mds0"), ("parallel_fs_error", "error", "mds0")]
    new = ["ceph: [28f7427e-5558-4ffd-ae1a-51ec3042759a 25386880]: mds0 reconnect denied",
           "ceph: [28f7427e-5558-4ffd-ae1a-51ec3042759a 25386880]: mds1 reconnect denied",
           "ceph: [28f7427e-5558-4ffd-ae1a-51ec3042759a 25386880]: mds1 reconnect success"]
    found = realworld.findings("\n".join(new) + "\n")
    assert [(f.kind, f.severity, f.details.get("device")) for f in found] == [
        ("parallel_fs_error", "error", "mds0"), ("parallel_fs_error", "error", "mds1"),
        ("parallel_fs_error", "info", "mds1")]
    # the monitor's and OSDs' sessions coming and going (ceph-csi's real lines): the cluster's, no finding
    for needle in ("hunting for new mon", "libceph: loaded"):
        assert realworld.findings(_item("storage-ceph.yaml", needle)["text"]) == []


def test_an_efa_devices_admin_queue_failure_is_one_fatal_event_and_its_commands_verdicts_are_part_of_it():
    """The efa driver's admin-queue lines of one device, each a line of NVIDIA/NVSentinel's efa_test.go
    (peers-2026g.yaml): the timeout, the command's verdict, the closed queue at the next command: one fatal nic_error;
    another device's its own; the command's verdict with no failure open before it, none."""
    lines = ["infiniband rdmap0s6: Wait for completion (polling) timeout",
             "infiniband rdmap0s6: Failed to process command CREATE_QP (opcode 6) comp_status 1 err -22",
             "infiniband rdmap0s6: Admin queue is closed",
             "efa 0000:00:06.0: Reset indication didn't turn off"]
    found = list(Scanner().scan(io.BytesIO("\n".join(lines).encode()), name="efa"))
    assert [(f.kind, f.pci, f.severity, f.details.get("device")) for f in found] == [
        ("nic_error", None, "fatal", "rdmap0s6"), ("nic_error", "0000:00:06", "fatal", None)]
    assert Classifier().classify(lines[1]) is None


def test_event_names_are_one_word():
    """An event's name is one word (the classifier's per-row plan takes a key's first word as its event's name:
    parsers/classify.py `_row_plan`); a row of several events joins their names with "|"."""
    from parsers.rules import RULES

    for rule in RULES:
        if rule.event is not None:
            for name in rule.event[0].split("|"):
                assert name and not any(c.isspace() for c in name), rule.name


def test_a_firmware_records_memory_error_and_its_pages_handling_are_one_event():
    """(h94) A firmware-first record's memory error (APEI GHES), then hwpoison's lines about its page ("Memory failure:
    0x40fa6: Killing mca-recover:1296 ..", "..: recovery action for dirty LRU page: Recovered"): one event, as x86's
    machine check and its page handling are (parsers/rules.py "follows" rows), its finding the record's, amended with
    the page, what hwpoison did and the process it killed, in `parse` and the agent's path alike; the page the record's
    address shifted by the kernel's page size (Grace's 64K: 0xaeccde180 is the page 0xaeccd). Was two findings."""
    qemu = _item("host-memory-2026f.yaml", "Synchronous External Abort: synchronous external abort")
    raw = [(f.message.split("]: ", 1)[-1], f.pid, f.process, f.details.get("pfn"), f.details.get("amends"))
           for f in Scanner().scan(io.BytesIO(qemu["text"].encode()))]
    assert raw == [("  section_type: memory error", None, None, None, None),
                   ("  section_type: memory error", 1296, "mca-recover", "40fa6", "pid")]
    for found in (realworld.findings(qemu["text"]), realworld.events(realworld.classified(qemu["text"].splitlines()))):
        assert [(f.kind, f.severity, f.pid, f.process, f.details.get("what")) for f in found] == [
            ("memory_error", "error", 1296, "mca-recover", "Killing mca-recover:1296 due to hardware memory corruption")]
    for first, pfn, what in [
            ("Hardware error from APEI Generic Hardware Error Source: 784", "40272d",
             "recovery action for get hwpoison page: Ignored"),
            ("Hardware error from APEI Generic Hardware Error Source: 308", "aeccd",
             "recovery action for dirty LRU page: Recovered")]:
        item = _item("host-memory-2026f.yaml", first)
        # (h99) the Meta excerpt's last line, the kernel dying on that page 67 s later ("Internal error: synchronous
        # external abort"), is a kernel_panic of its own, no line of the record's event
        assert [(f.kind, f.severity, f.pid, f.details.get("pfn"), f.details.get("what"))
                for f in realworld.findings(item["text"]) if f.kind == "memory_error"] == [
            ("memory_error", "error", None, pfn, what)]


def test_a_record_is_not_merged_with_another_pages_handling_nor_the_next_record():
    """(h94) The kernel's handling of another page than the record's (its pfn none of the record's address's pages) is
    no line of the record's event: its own finding. The next record's first line ends the open record's event (it
    swallowed the next record's section, 7 lines on, before), unless that event is its ghes_edac count line alone
    (printed before the record it decodes, grace-2026i.yaml). A record alone and the page's handling alone are each
    one finding (the corpus)."""
    meta = _item("host-memory-2026f.yaml", "Hardware error from APEI Generic Hardware Error Source: 784")["text"]
    qemu = _item("host-memory-2026f.yaml", "Synchronous External Abort: synchronous external abort")["text"]
    record = meta.splitlines()[:11]  # the record and ghes_edac's line, before hwpoison's
    other = qemu.splitlines()[-1]  # "Memory failure: 0x40fa6: recovery action for dirty LRU page: Recovered"
    found = realworld.findings("\n".join(record + [other]))
    assert [(f.message.split("]: ", 1)[-1], f.details.get("pfn")) for f in found] == [
        ("  section_type: memory error", None), (other.split("] ", 1)[1], "40fa6")]
    found = [f for f in realworld.findings(meta + qemu) if f.kind == "memory_error"]  # (h99: and the kernel_panic)
    assert [(f.message, f.pid, f.details.get("pfn")) for f in found] == [
        ("{1}[Hardware Error]:   section_type: memory error", None, "40272d"),
        ("{1}[Hardware Error]:   section_type: memory error", 1296, "40fa6")]
    assert [f.uptime for f in found] == [88690.479359, 1554.037934]


def test_a_machine_check_line_right_before_a_firmware_record_is_the_records_error():
    """(h98) x86 firmware-first: ghes.c logs a record's memory error as a machine check (apei_mce_report_mem_error), so
    "mce: [Hardware Error]: Machine check events logged" right before the record (the NMI path handles a record before
    printing it; Tony Luck's console, host-memory-2026g.yaml) is the record's error: one finding, the machine check's,
    amended to the record's stated severity by its section (details "amends": "severity"), the record's event's from
    then on (its page's handling amends it), and the machine check line among that handling part of it. In `parse` and
    the agent's path alike. Was three findings."""
    item = _item("host-memory-2026g.yaml", "Machine check events logged")
    raw = [(f.message.split("] ", 1)[-1], f.severity, f.details.get("amends"))
           for f in Scanner().scan(io.BytesIO(item["text"].encode()))]
    assert raw[:2] == [("mce: [Hardware Error]: Machine check events logged", "warning", None),
                       ("{1}[Hardware Error]:   section_type: memory error", "error", "severity")]
    assert all(amends is not None for _, _, amends in raw[1:])
    for found in (realworld.findings(item["text"]), realworld.events(realworld.classified(item["text"].splitlines()))):
        assert [(f.kind, f.severity, f.details.get("pfn"), f.details.get("consumed")) for f in found] == [
            ("memory_error", "error", "8a398a", "Uncorrected hardware memory error in user-access")]


def test_a_machine_check_line_not_right_before_a_record_or_decoded_is_its_own_finding():
    """(h98) The machine check line is the record's only where the record comes right after it (two lines at most):
    further before it (lines between, the test's), or followed by its own decode ("mce: [Hardware Error]: CPU 0: Machine
    Check: 0 Bank 4: ..", andikleen/mcelog #70: a native machine check, a report of its own), it stays its own finding
    beside the record's; a record stated corrected after a machine check line is part of it, a warning (no amendment:
    nothing worse). A hwpoison line right before a record (grace-2026i.yaml) is no machine check line: two findings,
    the corpus."""
    lines = _item("host-memory-2026g.yaml", "Machine check events logged")["text"].splitlines()
    logged, record = lines[0], lines[1:11]
    decode = _item("host.yaml", "mce: CPU supports 7 MCE banks")["text"].splitlines()[2:3]
    for between in (["EINJ: Error INJection is initialized."] * 3, decode):
        found = realworld.findings("\n".join([logged] + between + record) + "\n")
        assert [(f.message.split("]: ", 1)[-1], f.severity) for f in found] == [
            ("Machine check events logged", "warning"), ("  section_type: memory error", "error")]
    corrected = [line.replace("recoverable", "corrected") for line in record]  # the record's lines, stated corrected
    found = list(Scanner().scan(io.BytesIO("\n".join([logged] + corrected).encode())))
    assert [(f.message.split("]: ", 1)[-1], f.severity) for f in found] == [("Machine check events logged", "warning")]


def test_the_pages_an_open_record_named_are_bounded():
    """An open record's pages (its "page" lines, each keeping it open) are a few per record; a stream of address lines
    with no record's first line between them (a flood, rate limiting's gaps) kept every one (3 pfns each, a new set
    per line: quadratic, 20,000 lines 2 s). Past MAX_EVENT_PAGES the record's page is unknown: a later page's handling
    is still its line (rules.EVENT_PAGES)."""
    from parsers.classify import MAX_EVENT_PAGES
    from parsers.rules import PAGE_SHIFTS

    c = Classifier()
    head = "[ 1.0] {1}[Hardware Error]: "
    for line in ("Hardware error from APEI Generic Hardware Error Source: 0", "event severity: recoverable",
                 " section_type: memory error"):
        c.read(head + line)
    for i in range(4 * MAX_EVENT_PAGES):
        c.read(head + f" physical_address: 0x{(i + 1) << 16:016x}")
        pages = c._pages.get("cper")
        assert pages is None or len(pages) <= MAX_EVENT_PAGES * len(PAGE_SHIFTS)
    own, amended = c.read(f"[ 2.0] Memory failure: 0x{(4 * MAX_EVENT_PAGES + 7) << 4:x}: recovery action for dirty "
                          "LRU page: Recovered")
    assert own is None and [f.details.get("amends") for f in amended] == ["pfn"]


def test_an_xid_79_and_the_drivers_fallen_off_the_bus_line_for_its_gpu_are_one_event():
    """The driver prints Xid 79 and its own "NVRM: GPU <pci>: GPU has fallen off the bus." for the same GPU together
    (REAL: leptonai/gpud's sxid README, 6781741.548779 then .548783; nvidia-docker #1553, .074562 then .074566;
    open-gpu-kernel-modules #1151): one event, the Xid's finding, in every era's Xid shape (pid/name or none); was two.
    The probe-time report of the same GPU hours later, after the driver reloaded (tests/fixtures/dmesg/
    xid79-fallen-off-bus.dmesg: 4254 s, then 14387 s), is a finding of its own; so are another GPU's Xid 79 and a
    second Xid line (every Xid line is a finding)."""
    for file, first in (("sxid-2026b.yaml", "[6781741.548768] NVRM: GPU at PCI:0000:91:00"),
                        ("xid-shapes.yaml", "[1084456.074554] NVRM: GPU at PCI:0000:09:00"),
                        ("xid-shapes.yaml", "NVRM: GPU at PCI:0000:06:00: GPU-0b6b7808"),
                        ("nvidia-smi-2026k.yaml", "NVRM: Xid (PCI:0000:83:00): 79, GPU has fallen off the bus.")):
        found = [(f.kind, f.xid, f.pci) for f in realworld.findings(_item(file, first)["text"])
                 if f.kind in ("xid", "fallen_off_bus")]
        assert len(found) == 1 and found[0][:2] == ("xid", 79), (file, found)
    dmesg = (Path(__file__).parents[1] / "fixtures" / "dmesg" / "xid79-fallen-off-bus.dmesg").read_text()
    assert [(f.kind, f.xid, f.pci) for f in realworld.findings(dmesg) if f.kind != "driver_load"] == [
        ("xid", 79, "0000:5d:00"), ("fallen_off_bus", None, "0000:5d:00")]
    xid = "[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    runtime = "[ 4254.197871] NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.\n"
    # CONSTRUCTED from these real lines: the Xid again; another GPU's Xid 79 (its address changed)
    assert [(f.kind, f.xid) for f in realworld.findings(xid + runtime + xid)] == [("xid", 79), ("xid", 79)]
    other = xid.replace("0000:5d:00", "0000:5e:00")
    assert [(f.xid, f.pci) for f in realworld.findings(xid + runtime + other)] == [(79, "0000:5d:00"), (79, "0000:5e:00")]


def test_an_smmu_command_queue_timeout_escalates_its_event_to_error():
    """An SMMUv3 fault ("event 0x10 received:", grace-2026i.yaml: a warning) then the same SMMU's "CMD_SYNC timeout"
    (iommu-smmu-cmdq.yaml; two real lines of two machines put together here: constructed): one event, its finding amended to error; the timeout repeated (rate-limited, about once a second)
    adds nothing; alone, the timeout is an error of its own."""
    fault = "[  196.747107] arm-smmu-v3 arm-smmu-v3.0.auto: event 0x10 received:"
    timeout = yaml.safe_load((realworld.ROOT / "iommu-smmu-cmdq.yaml").read_text())[0]["text"].splitlines()[1]
    raw = realworld.classified([fault, timeout, timeout])
    assert [(f.kind, f.severity, f.details.get("amends")) for f in raw] == [
        ("iommu_fault", "warning", None), ("iommu_fault", "error", "severity")]
    assert [(f.kind, f.severity) for f in realworld.classified([timeout])] == [("iommu_fault", "error")]


def test_an_event_key_reads_a_lines_groups_once_for_a_row_of_several_events():
    """REAL (rwth-i6/returnn #1486, tests/fixtures/incidents/returnn-1486-gpu-unknown-error): nvidia-smi's `Unable to
    determine the device handle for GPU0000:03:00.0: Unknown Error` matches nvml_handle_failed, a row of three events
    kept per device (rminit|fallen|reset): its key reads the match's groups once, not once an event (the same key)."""
    from parsers.classify import _event_key
    from parsers.rules import EVENT_PER_DEVICE, RULES

    line = "Unable to determine the device handle for GPU0000:03:00.0: Unknown Error"
    rule = next(r for r in RULES if r.name == "nvml_handle_failed")
    assert sum(one in EVENT_PER_DEVICE for one in rule.event[0].split("|")) >= 2

    class Counted:  # the match, counting its groupdict calls
        def __init__(self, m):
            self.m, self.calls, self.string = m, 0, m.string

        def group(self, *names):
            return self.m.group(*names)

        def groupdict(self):
            self.calls += 1
            return self.m.groupdict()

    m = Counted(rule.pattern.search(line))
    assert _event_key(rule, m) == _event_key(rule, m.m)
    m.calls = 0
    key = _event_key(rule, m)
    assert m.calls == 1, m.calls
    assert key[0] == tuple(f"{one} 0000:03:00" for one in rule.event[0].split("|")), key


def test_the_refused_ptimer_write_and_its_assertion_are_no_fault():
    """tmrSetCurrentTime_GV100's ERROR at a GSP GPU's load (the host may not write the PTIMER) and its NV_ASSERT(0)
    on the next line (open-gpu-kernel-modules #543, verbatim, gsp.yaml): no finding, the assertion part of the
    ERROR's one-line event (rules.py ptimer_plm, rm_check_after). Was two unclassified warnings. The assertion alone,
    or past the event's line window, stays the net's warning; an init failure after the pair keeps its finding."""
    text = _item("gsp.yaml", "Tue Aug  1 21:54:36 UTC 2023")["text"]
    ptimer, assertion = text.splitlines()[2:4]
    assert [f for f in realworld.findings(text) if f.severity != "info"] == []
    assert realworld.findings(ptimer) == []
    assert [f.kind for f in realworld.findings(assertion)] == ["unclassified"]
    assert [f.kind for f in realworld.findings("\n".join([ptimer, "x", assertion]))] == ["unclassified"]
    # an init failure after the pair, verbatim from https://github.com/NVIDIA/nvtrust/issues/77 (an H100's)
    failed = "[  280.997787] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x1a:1792)"
    assert [(f.kind, f.pci) for f in realworld.findings("\n".join([ptimer, assertion, failed]))] == [
        ("gpu_reset_required", "0000:01:00")]
