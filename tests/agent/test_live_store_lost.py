"""A TCPStore client that lost the job's store on another host, read live (h552): c10d's "[c10d] recvValue failed on
SocketImpl(.., remote=[host]:20000): Connection reset by peer" (triage/facts.py row `store_lost`) is published as its
own job fact (LIVE_FACTS `StoreLost`, the store's address and error in its words), read back by the cluster component
into the evidence offline triage reads, whose rule (`store_lost`) names the store's host.  Was: not published (the
kind's `StoreJoinTimeout` row publishes counts only): no incident live.  A store on the writer's own host (loopback,
its own address), the watchdog's line naming no address, and the lines after the file's statement of the job's
success (its teardown) stay unpublished.

Lines marked REAL are copied verbatim from the public source beside them.  Jobs marked SYNTHETIC put real lines
together into a job that did not happen as such.
"""

from __future__ import annotations

from pathlib import Path

from test_triage_store_lost import RECV, RECV_28, RECV_LOOPBACK, SEND_SAME_HOST, SHOULD_DUMP

from agent.metrics import Metrics
from agent.sources.podlogs import PodLogSource
from agent.workloads import WorkloadTracker
from cluster.evidence import Reader
from triage import attribute
from triage.facts import LIVE_ROWS, read_words
from triage.read import job_fact

FIXTURES = Path(__file__).parents[1] / "fixtures"
# REAL: sgl-project/sglang #20859 (tests/fixtures/incidents/h549_sglang-20859-store-reset, verbatim)
SGLANG = (FIXTURES / "incidents" / "h549_sglang-20859-store-reset" / "logs" / "node1.log").read_text().splitlines()
# REAL: a healthy two-node MLPerf run, https://github.com/mlcommons/training_results_v5.1/blob/441d65f4445cd59687466533fd9f55
# 399136e7a4/Cisco/results/2xC885A_M8-8xH200-SXM-141GB/llama2_70b_lora/result_0.txt (tests/fixtures/realworld/
# wholelogs.yaml): run_stop "success", then every rank's exit warnings
HEALTHY = (FIXTURES / "realworld" / "healthy" / "mlperf-h200-2node-c885a-llama2-lora.log").read_text().splitlines()
# REAL: https://github.com/qibin0506/Cortex/issues/17 (torchrun on one host: the store at localhost:29500)
RECV_LOCALHOST = ("[rank2]:[W901 21:19:02.185931323 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=52, "
                  "addr=[localhost]:40718, remote=[localhost]:29500): Connection reset by peer ")
STORE = "sglang-0.default.pod.transwarp.local"
POD = "train_sglang-0-1_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


def _cri(lines: list[str]) -> str:
    return "".join(f"2026-03-18T10:00:41.{i:09d}Z stderr F {line}\n" for i, line in enumerate(lines))


def _found(root: Path, lines: list[str]):
    log = root / POD / "main" / "0.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(_cri(lines))
    src = PodLogSource(str(root), from_start=True)
    src.discover()
    found = []
    while more := src.poll():
        found += [(ref, f) for ref, f in more if f.kind == "store_error"]
    return found


def test_a_store_lost_on_another_host_is_published_and_read_back_as_offline(tmp_path):
    """sglang #20859: rank 12's lost store, read in its pod's log, is a StoreLost Event naming the store's address
    and error; the cluster reads it back and names the store's host, as `gpu-npd triage` does. Was: no finding, no
    Event, no incident live."""
    ((ref, f),) = _found(tmp_path / "pods", SGLANG)
    assert (f.line, f.rank, f.details["fact"], f.details["store_host"]) == (2, 12, "store_lost", STORE)
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == "StoreLost"
    assert ev.message.startswith(f"A rank lost the job's store on another host (rank 12; store {STORE}; port 20000; "
                                 "store error Connection reset by peer; read as store_lost)")
    row, fields = read_words(ev.reason, ev.message)
    assert row is LIVE_ROWS["store_lost"] and fields["store_host"] == STORE and fields["store_port"] == "20000"
    (e,) = Reader().pod_event({"reason": ev.reason, "message": ev.message, "source": {"host": "sglang-0-1"},
                               "involvedObject": {"kind": "Pod", "name": ref.pod}})
    assert (e.kind, e.rank, e.host, e.details["fact"]) == ("store_error", 12, "sglang-0-1", "store_lost")
    (incident,) = attribute([e])
    assert (incident.category, incident.rule, incident.root.host) == ("undetermined", "store_lost", STORE)


def test_every_eras_words_are_read_back_whole():
    """ome #312 (2.8's "Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or
    crash?"): the error's words, commas and question mark, come back as written."""
    row, said = job_fact(RECV_28)
    assert row.reason == "StoreLost"
    from triage.facts import words

    back = read_words(row.reason, words(row, said) + ' [container c] Container output: ".."')[1]
    assert back["store_error"] == said["store_error"] and back["store_host"] == said["store_host"]


def test_a_store_on_the_writers_own_host_or_no_address_is_not_published(tmp_path):
    """A one-host job's store (loopback, localhost, the client's own address: MiniMax-M1 #14, AI-MarioKart64 #3,
    Cortex #17), whose end's race prints these lines when the store's process exits first, names no other host; the
    watchdog's "shut down too early" names no address: none is published (offline reads them, naming no host)."""
    for line in (SEND_SAME_HOST, RECV_LOOPBACK, RECV_LOCALHOST, SHOULD_DUMP):
        assert job_fact(line) is None, line
    assert _found(tmp_path / "pods", [SEND_SAME_HOST, RECV_LOOPBACK, RECV_LOCALHOST, SHOULD_DUMP]) == []


def test_a_store_lost_after_the_jobs_stated_success_is_its_teardown(tmp_path):
    """SYNTHETIC (REAL lines): a healthy MLPerf run's output (run_stop success, the ranks' exit warnings), then a rank
    that lost the store as the job ended: its teardown (triage.teardown, store_error's `teardown`), no Event."""
    ((ref, f),) = _found(tmp_path / "pods", [*HEALTHY, RECV])
    assert f.details["after_success"].startswith("mlperf_run_stop_success")
    assert WorkloadTracker(Metrics()).observe(ref, f) is None


def test_one_event_per_job_and_reason_on_the_node(tmp_path):
    """SYNTHETIC (the REAL line, and it again under another rank's prefix): a job's ranks that lost the store make
    one Event on the node, its ranks counted."""
    ((ref, f), (ref2, f2)) = _found(tmp_path / "pods", [RECV, RECV.replace("[rank12]:", "[rank13]:")])
    tracker = WorkloadTracker(Metrics())
    first, second = tracker.observe(ref, f), tracker.observe(ref2, f2)
    assert first.key == second.key and second.message == first.message
