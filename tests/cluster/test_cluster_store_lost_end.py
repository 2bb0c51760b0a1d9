"""A multi-host job whose only failure is a rank that lost the store on another host (StoreLost: c10d's "recvValue
failed on SocketImpl(.., remote=[host]:20000): Connection reset by peer") waits before its incident opens
(cluster/book.py Book.hold): that line is also what a healthy end prints where the store is rank 0's own process and it
exits first (SGLang's --dist-init-addr, a launcher starting each rank itself; not torchrun, whose node-0 agent holds
the store until every agent's workers succeeded: torch.distributed.elastic.agent.server.api `_exit_barrier`).
Was: every such end and every rollout of such a serving group opened an `undetermined` incident on the job's owner.
Now: none where the writers' pods ended well (Succeeded, or deleted by their controller); one where they still run
after the hold, or where a pod of the job ended badly.

Lines marked REAL are copied verbatim from the public source beside them.  Jobs marked SYNTHETIC put real lines
together into a job that did not happen as such (the pods' ends are the Kubernetes API's shapes).
"""

from __future__ import annotations

from pathlib import Path

from agent.metrics import Metrics
from agent.sources.podlogs import PodLogSource
from agent.workloads import WorkloadTracker
from cluster.book import HOLD, Book
from kubeapi.events import EventRecorder, Ref

FIXTURES = Path(__file__).parents[1] / "fixtures"
# REAL: sgl-project/sglang #20859 (tests/fixtures/incidents/h549_sglang-20859-store-reset, verbatim): the second
# node's ranks (pod sglang-0-1) lost the store on the first (sglang-0:20000, the head's rank 0)
SGLANG = (FIXTURES / "incidents" / "h549_sglang-20859-store-reset" / "logs" / "node1.log").read_text().splitlines()
# REAL: a healthy vLLM 0.10 run's output before its end (tests/fixtures/realworld/healthy/, its source there): a
# serving process's lines with no statement of a job's success
HEALTHY = (FIXTURES / "realworld" / "healthy" / "vllm-0.10-tp2-a100-same-node-qwen2-7b.log").read_text().splitlines()
STORE = "sglang-0.default.pod.transwarp.local"
LWS = {"leaderworkerset.sigs.k8s.io/name": "sglang", "leaderworkerset.sigs.k8s.io/group-index": "0"}
NODES = {"sglang-0": "node-a", "sglang-0-1": "node-b"}


def _pod(name: str, phase: str = "Running", exit_code: int | None = None, deleting: bool = False) -> dict:
    """A LeaderWorkerSet group's pod (SGLang's multi-node deployment: leader sglang-0, worker sglang-0-1)."""
    meta = {"name": name, "namespace": "train", "uid": f"uid-{name}", "labels": LWS,
            "creationTimestamp": "2026-03-18T09:00:00Z"}
    if deleting:
        meta["deletionTimestamp"] = "2026-03-18T10:00:45Z"
    state = {"running": {"startedAt": "2026-03-18T09:00:05Z"}} if exit_code is None else {"terminated": {
        "exitCode": exit_code, "reason": "Completed" if exit_code == 0 else "Error",
        "startedAt": "2026-03-18T09:00:05Z", "finishedAt": "2026-03-18T10:00:43Z"}}
    return {"metadata": meta, "spec": {"nodeName": NODES[name]},
            "status": {"phase": phase, "containerStatuses": [{"name": "main", "restartCount": 0, "state": state}]}}


def _store_lost_events(tmp_path: Path, lines: list[str]) -> list[dict]:
    """The Pod Events sglang-0-1's agent writes for its lines: read by the pod log source, worded by
    agent/workloads.py, recorded by kubeapi's recorder."""
    log = tmp_path / "pods" / "train_sglang-0-1_uid-sglang-0-1" / "main" / "0.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(f"2026-03-18T10:00:41.{i:09d}Z stderr F {line}\n" for i, line in enumerate(lines)))
    src = PodLogSource(str(tmp_path / "pods"), from_start=True)
    src.discover()
    tracker, rec = WorkloadTracker(Metrics()), EventRecorder("default", "node-b")
    while more := src.poll():
        for ref, f in more:
            if (e := tracker.observe(ref, f)) is not None:
                rec.record(Ref("Pod", e.ref.pod, e.ref.namespace, e.ref.uid), e.reason, e.message, e.type, key=e.key)
    events = [{**rec._body(agg), "metadata": {"name": f"sglang-0-1.{i}", "namespace": "train", "uid": f"ev-{i}"}}
              for i, agg in enumerate(rec._aggs.values())]
    assert [ev["reason"] for ev in events] == ["StoreLost"]
    return events


def _book(tmp_path: Path, lines: list[str] = SGLANG) -> Book:
    book = Book()
    for name in NODES:
        book.pod(_pod(name), 100.0)
    for ev in _store_lost_events(tmp_path, lines):
        book.event(ev, 100.0)
    return book


def test_a_store_lost_alone_waits_while_its_writers_pods_run(tmp_path):
    """SYNTHETIC (REAL lines: sglang #20859): the worker's StoreLost alone, its pods running: no incident within the
    hold (was: one at once), held (counted); then one, as before the hold: `undetermined`, the store's host named."""
    book = _book(tmp_path)
    assert book.settle(101.0) == [] and book.counts()["held_incidents"] == 1
    assert book.settle(100.0 + HOLD - 1) == []
    (opened,) = book.settle(101.0 + HOLD)
    assert opened.what == "opened" and book.counts()["held_incidents"] == 0
    assert (opened.incident.category, opened.incident.rule, opened.incident.root.host) == (
        "undetermined", "store_lost", STORE)


def test_a_healthy_end_raises_no_incident(tmp_path):
    """SYNTHETIC (REAL lines: a healthy vLLM run's output, then sglang #20859's): the group ends well, the leader
    holding the store first, each pod Succeeded (every container exit 0): no incident, now or after the hold; what
    it held is marked, so a relist of the same Event adds nothing. Was: an `undetermined` incident on the owner."""
    book = _book(tmp_path, HEALTHY + SGLANG)
    assert book.settle(101.0) == []
    for name in NODES:
        book.pod(_pod(name, "Succeeded", exit_code=0), 102.0)
    assert book.settle(103.0) == [] and book.settle(103.0 + HOLD) == []
    (state,) = book.jobs.values()
    assert state.hold_since is None and not state.events and state.seq == 0
    for ev in _store_lost_events(tmp_path / "again", SGLANG):
        book.event(ev, 200.0)
    assert book.settle(201.0) == [] and book.settle(201.0 + HOLD) == []


def test_a_rollout_deleting_the_group_raises_no_incident(tmp_path):
    """SYNTHETIC (REAL lines): a rollout (or scale-down) deletes the group: its pods' deletion asked
    (deletionTimestamp), then gone; the worker lost the leader's store as it went: no incident."""
    book = _book(tmp_path)
    assert book.settle(101.0) == []
    book.pod(_pod("sglang-0-1", deleting=True), 102.0)
    assert book.settle(103.0) == []
    assert book.settle(103.0 + HOLD) == []
    book = _book(tmp_path / "gone")
    for name in NODES:
        book.pod(_pod(name), 102.0, deleted=True)
    assert book.settle(103.0) == [] and book.settle(103.0 + HOLD) == []
    assert not book.jobs  # nothing left of it: forgotten


def test_a_store_lost_with_its_stores_pod_ended_badly_opens_at_once(tmp_path):
    """SYNTHETIC (REAL lines): the leader's container exited 1 (its process, holding the store, crashed): a failure
    of its own, read from its status: the incident opens at once, as before; the worker's pod ending afterwards
    changes nothing."""
    book = _book(tmp_path)
    book.pod(_pod("sglang-0", "Failed", exit_code=1), 100.5)
    (opened,) = book.settle(101.0)
    assert opened.what == "opened" and opened.incident.category != "no_failure"
    book.pod(_pod("sglang-0-1", "Succeeded", exit_code=0), 102.0)
    assert [c.what for c in book.settle(103.0)] in ([], ["updated"])
    (state,) = book.jobs.values()
    assert state.open is not None


def test_another_failure_after_the_store_lost_opens_at_once(tmp_path):
    """SYNTHETIC (REAL lines): a held StoreLost, then the worker's container exits 1: the incident opens at once,
    before the hold is over, even though its pod has ended."""
    book = _book(tmp_path)
    assert book.settle(101.0) == []
    book.pod(_pod("sglang-0-1", "Failed", exit_code=1), 102.0)
    (opened,) = book.settle(103.0)
    assert opened.what == "opened"



def _book_and_events(tmp_path: Path) -> tuple[Book, list[dict]]:
    """`_book`, and the Events it read (a relist hands the same objects again)."""
    book = Book()
    for name in NODES:
        book.pod(_pod(name), 100.0)
    events = _store_lost_events(tmp_path, SGLANG)
    for ev in events:
        book.event(ev, 100.0)
    return book, events


def test_a_job_whose_pods_are_gone_is_forgotten_after_its_marked_event_is_read_again(tmp_path):
    """SYNTHETIC (REAL lines): a healthy end marked (no incident), then its StoreLost Event read again as it was (a
    relist: the Book had forgotten it once marked), then the group's pods deleted: the job is forgotten, as one whose
    Event was not read again is. Was: kept for ever (the marked Event, and the deleted pods' starts, older than the
    mark, held though not counted): a job a healthy end, piling up over days of a fleet's scale-downs."""
    book, events = _book_and_events(tmp_path)
    assert book.settle(101.0) == []
    for name in NODES:
        book.pod(_pod(name, "Succeeded", exit_code=0), 102.0)
    assert book.settle(103.0) == []
    for ev in events:
        book.event(ev, 200.0)
    assert book.settle(201.0) == []
    for name in NODES:
        book.pod(_pod(name, "Succeeded", exit_code=0), 300.0, deleted=True)
    assert book.settle(301.0) == [] and book.settle(301.0 + HOLD) == []
    assert not book.jobs and book.counts()["jobs"] == 0


def test_a_writer_whose_store_lost_is_a_closed_incidents_does_not_hold_a_later_one(tmp_path):
    """SYNTHETIC (REAL lines): the worker's StoreLost opened an incident after the hold (its pod ran on), which closed
    when quiet; its Event read again as it was (a relist: marked, the closed incident's). Another worker (sglang-0-2)
    then loses the store and ends well (Succeeded): none, as for any writer that ended well. Was: the first worker,
    still running, counted as a writer of the new StoreLost: held, then an incident on a healthy end."""
    book, events = _book_and_events(tmp_path)
    assert book.settle(101.0) == []
    (opened,) = book.settle(101.0 + HOLD)
    assert opened.what == "opened"
    (closed,) = book.settle(102.0 + HOLD + book.idle)
    assert closed.what == "closed"
    for ev in events:
        book.event(ev, 3000.0)
    assert book.settle(3001.0) == []
    other = _pod("sglang-0-1")
    other["metadata"] = {**other["metadata"], "name": "sglang-0-2", "uid": "uid-sglang-0-2"}
    other["spec"] = {"nodeName": "node-c"}
    book.pod(other, 3000.0)
    (ev,) = _store_lost_events(tmp_path / "later", SGLANG)  # (recorded now: newer than the closed incident's)
    later = {**ev, "involvedObject": {**ev["involvedObject"], "name": "sglang-0-2", "uid": "uid-sglang-0-2"},
             "metadata": {"name": "sglang-0-2.0", "namespace": "train", "uid": "ev-later"}}
    book.event(later, 3002.0)
    assert book.settle(3003.0) == []  # held: its writer runs
    other["status"] = _pod("sglang-0-1", "Succeeded", exit_code=0)["status"]
    book.pod(other, 3004.0)
    assert book.settle(3005.0) == [] and book.settle(3005.0 + HOLD) == []
    (state,) = book.jobs.values()
    assert state.open is None and state.seq == 1


def test_a_held_job_is_decided_again_when_a_writers_pod_ends_not_at_every_settle(tmp_path, monkeypatch):
    """SYNTHETIC (REAL lines): a held StoreLost is decided again when a pod of its job ends (its deletion asked) or
    goes, which marks the job; settles with nothing new ask nothing of it.  Was: every settle of a held job scanned its
    Events for their writers' pods (Book._writers_ended), a pod's end marking nothing."""
    book = _book(tmp_path)
    assert book.settle(101.0) == []
    (state,) = book.jobs.values()
    asked = []
    writers_ended = book._writers_ended
    monkeypatch.setattr(book, "_writers_ended", lambda s: asked.append(s) or writers_ended(s))
    for t in range(102, 110):
        assert book.settle(float(t)) == []
    assert asked == [] and state.hold_since == 101.0
    book.pod(_pod("sglang-0-1", deleting=True), 110.0)
    assert state.dirty
    assert book.settle(111.0) == [] and asked and state.hold_since is None and not state.events
    book = _book(tmp_path / "gone")
    assert book.settle(101.0) == []
    (state,) = book.jobs.values()
    book.pod(_pod("sglang-0-1"), 102.0, deleted=True)
    assert state.dirty and book.settle(103.0) == [] and state.hold_since is None


def test_a_hold_of_zero_opens_a_store_lost_at_once(tmp_path):
    """SYNTHETIC (REAL lines): `--hold 0` (Book(hold=0)): the StoreLost's incident opens at the first settle, as it did
    before the hold."""
    book = Book(hold=0.0)
    for name in NODES:
        book.pod(_pod(name), 100.0)
    for ev in _store_lost_events(tmp_path, SGLANG):
        book.event(ev, 100.0)
    (opened,) = book.settle(101.0)
    assert opened.what == "opened" and book.counts()["held_incidents"] == 0
