"""A job's verdict after the pods involved are deleted or replaced: every JobSet / PyTorchJob / Job restart deletes the
failed pod and schedules a replacement, often on another node.  The node fault of the node where the failed pod ran
(node-b's Xid 79, its agent's Node Event) stays the job's evidence while the job holds that pod's end, within the
bounds the Book applies to a node's facts (from a minute before the pod started there; here, until its end); a new
failure of the replacement on another node is judged by that node's facts.  The Book alone, with the agents' Events as
their own code writes them (test_cluster.agent_pod_event, publish_xid's recorder)."""

from __future__ import annotations

import time

import cluster.book as book_module
from cluster.book import FAULT_SLACK, Book
from kubeapi.events import EventRecorder, Ref
from triage import attribute

from test_cluster import NODES, XID79, agent_pod_event
from test_cluster_kubelet_events import pod_of, stamp


def xid_event(node: str, at: float, n: int = 0) -> dict:
    """node's agent's Xid 79 Node Event, recorded at `at` (its clock), as publish_xid writes it."""
    rec = EventRecorder("default", node, clock=lambda: at)
    rec.record(Ref("Node", node, uid=node), "Xid79FallenOffBus",
               f"Xid 79 on GPU 0000:5d:00: {XID79.rstrip('.')}. Recommended action: RESTART_BM")
    body = rec._body(next(iter(rec._aggs.values())))
    return {**body, "metadata": {"name": f"{node}.xid{n}", "namespace": "default", "uid": f"xid-{node}-{n}"}}


def failed(name: str, node: str, finished: float, uid: str | None = None, started: float | None = None) -> dict:
    """A rank's pod whose container exited 1 at `finished` (its node's kubelet's finishedAt): phase Failed; created at
    `started` where given (else pod_of's creationTimestamp, long before)."""
    p = pod_of(name, node)
    if uid:
        p["metadata"]["uid"] = uid
    if started is not None:
        p["metadata"]["creationTimestamp"] = stamp(started)
    p["status"] = {"phase": "Failed", "containerStatuses": [{"name": "main", "state": {"terminated": {
        "exitCode": 1, "reason": "Error", "startedAt": "2024-07-25T06:00:05Z", "finishedAt": stamp(finished)}}}]}
    return p


def _job(t0: float) -> Book:
    """node-b's GPU falls off the bus (t0 - 20), its rank's container exits 1 (t0 - 10), the other ranks time out (t0)."""
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(failed(f"llm-w-0-{i}", node, t0 - 10) if node == "node-b" else pod_of(f"llm-w-0-{i}", node), t0)
    book.event(xid_event("node-b", t0 - 20), t0)
    for i, node in enumerate(NODES):
        if node != "node-b":
            book.event(agent_pod_event(node, f"llm-w-0-{i}", [i], clock=lambda: t0), t0)
    return book


def _replace(book: Book, t0: float, node: str = "node-c", started: float | None = None) -> None:
    """The job controller deletes the failed pod and creates its replacement on `node` (created at `started` where
    given, else pod_of's creationTimestamp)."""
    book.pod(failed("llm-w-0-1", "node-b", t0 - 10), t0 + 1, deleted=True)
    replacement = pod_of("llm-w-0-1-r", node) | {"status": {"phase": "Running"}}
    if started is not None:
        replacement["metadata"]["creationTimestamp"] = stamp(started)
    book.pod(replacement, t0 + 2)


def _xids(book: Book) -> list[tuple[str, float]]:
    (state,) = book.jobs.values()
    return sorted((e.host, e.time.timestamp() // 1) for e in book.evidence(state) if e.kind == "xid")


def test_the_failed_pods_node_fault_stays_the_root_after_the_pod_is_deleted_and_replaced():
    """Was: the job's evidence took the node facts of the nodes its pods run on now, so once the failed pod was
    deleted, node-b's Xid was no longer the job's: a re-decision (a later Event) named a rank instead."""
    t0 = time.time()
    book = _job(t0)
    (opened,) = book.settle(t0 + 1)
    assert (opened.incident.rule, opened.incident.root.host, opened.incident.root.kind) == (
        "node_fault", "node-b", "xid")
    _replace(book, t0)
    book.event(agent_pod_event("node-a", "llm-w-0-0", [0], clock=lambda: t0 + 3) | {"metadata": {
        "name": "llm-w-0-0.y", "namespace": "train", "uid": "ev-llm-w-0-0-late"}}, t0 + 3)  # a later Event: decided again
    for change in book.settle(t0 + 4):
        assert change.incident is not None and (change.incident.rule, change.incident.root.host) == (
            "node_fault", "node-b"), change
    (state,) = book.jobs.values()
    (incident,) = attribute(book.evidence(state))
    assert (incident.rule, incident.root.host, incident.root.kind) == ("node_fault", "node-b", "xid")
    assert state.open is not None and state.open.incident.root.host == "node-b"


def test_a_fault_of_the_old_node_after_the_failed_pod_ended_is_not_the_jobs():
    """node-b's later Xid, after the job's pod there ended and was deleted, is no evidence of the job: the replacement
    runs on node-c.  Nor is an old node's fault from before its pod started (FAULT_SLACK)."""
    t0 = time.time()
    book = _job(t0)
    book.settle(t0 + 1)
    _replace(book, t0)
    book.event(xid_event("node-b", t0 + 30, n=1), t0 + 30)
    (state,) = book.jobs.values()
    xids = [e for e in book.evidence(state) if e.kind == "xid"]
    assert [e.time.timestamp() // 1 for e in xids] == [(t0 - 20) // 1]


def test_an_old_nodes_fault_from_before_its_failed_pod_started_is_not_the_jobs():
    """The ended pod's window on node-b starts FAULT_SLACK before the pod started there: an Xid a second earlier, a
    previous tenant's, is no evidence of the job once the pod is replaced; one within it is."""
    t0 = time.time()
    started = t0 - 300
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(failed(f"llm-w-0-{i}", node, t0 - 10, started=started) if node == "node-b" else
                 pod_of(f"llm-w-0-{i}", node), t0)
    book.event(xid_event("node-b", started - FAULT_SLACK - 1), t0)
    book.event(xid_event("node-b", started - FAULT_SLACK + 1, n=1), t0)
    _replace(book, t0)
    assert _xids(book) == [("node-b", (started - FAULT_SLACK + 1) // 1)]


def test_the_old_nodes_fault_is_released_with_its_pod_end_past_the_jobs_max_events(monkeypatch):
    """The pod end that ties the job to node-b is one of the job's Events: pushed out past MAX_EVENTS (the oldest
    forgotten first), node-b's facts are no longer the job's and node-b no longer touches it."""
    monkeypatch.setattr(book_module, "MAX_EVENTS", 8)
    t0 = time.time()
    book = _job(t0)
    _replace(book, t0)
    (state,) = book.jobs.values()
    assert state.ends and "node-b" in book.node_jobs and _xids(book) == [("node-b", (t0 - 20) // 1)]
    for n in range(8):
        book.event(agent_pod_event("node-a", "llm-w-0-0", [0], clock=lambda: t0 + 3) | {"metadata": {
            "name": f"llm-w-0-0.{n}", "namespace": "train", "uid": f"ev-llm-w-0-0-{n}"}}, t0 + 3)
    assert not state.ends and "node-b" not in book.node_jobs and _xids(book) == []


def test_the_failed_pods_node_fault_stays_when_its_replacement_lands_on_the_same_node_later():
    """Was: a pod of the job running now on a node replaced that node's ended-pod window, so a replacement put back on
    node-b more than FAULT_SLACK after node-b's Xid (a JobSet / PyTorchJob restart's rescheduling) dropped the Xid that
    failed the first pod: the window is the earliest start of either."""
    t0 = time.time()
    book = _job(t0)
    book.settle(t0 + 1)
    _replace(book, t0, node="node-b", started=t0 + FAULT_SLACK + 30)
    assert _xids(book) == [("node-b", (t0 - 20) // 1)]


def test_a_pod_recreated_under_its_name_that_fails_again_keeps_both_failures_nodes():
    """Was: the pod end was keyed by the pod's name, which a PyTorchJob re-creates: the replacement failing on node-e
    overwrote the first failure's end on node-b, so node-b's Xid left the open incident and node-b's link to the job
    outlived it (never unlinked).  Both ends are kept (by pod uid), each releasing its node."""
    t0 = time.time()
    book = _job(t0)
    book.settle(t0 + 1)
    book.pod(failed("llm-w-0-1", "node-b", t0 - 10), t0 + 1, deleted=True)
    again = failed("llm-w-0-1", "node-e", t0 + 50, uid="uid-llm-w-0-1-2", started=t0 + 2)
    book.pod(again, t0 + 2)
    book.event(xid_event("node-e", t0 + 40), t0 + 45)
    book.pod(again, t0 + 51, deleted=True)
    assert _xids(book) == [("node-b", (t0 - 20) // 1), ("node-e", (t0 + 40) // 1)]
    (state,) = book.jobs.values()
    assert set(state.ends.nodes) == {"node-b", "node-e"}
    book.settle(t0 + 52)
    closed = [c for c in book.settle(t0 + 52 + book.idle + 1) if c.what == "closed"]
    assert closed and not state.ends and not {"node-b", "node-e"} & set(book.node_jobs)


def test_a_deleted_pod_whose_end_the_job_does_not_hold_brings_no_node_fault():
    """A pod deleted with no end of its own and no deletion's deadline seen (a running rank deleted at once, grace 0)
    is timed by the watch's order alone (Book._leave): node-d's Xid read after the deletion (stamped before it) is no
    evidence of the job. A deadline seen would make it one: tests/cluster/test_cluster_deleted_running_pods.py."""
    t0 = time.time()
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", node), t0)
    book.pod(pod_of("llm-w-0-3", "node-d"), t0 + 1, deleted=True)
    book.event(xid_event("node-d", t0 - 5), t0 + 2)
    (state,) = book.jobs.values()
    assert book.evidence(state) == [] and book.settle(t0 + 3) == []


def test_the_failed_pods_node_fault_read_after_its_pod_was_replaced_decides_the_job_again():
    """The Events' and the pods' watches are separate streams: node-b's Xid read after its failed pod's deletion (an
    agent's Event written late, a relist) still touches the job that holds that pod's end, decided again at once."""
    t0 = time.time()
    book = _job(t0)
    book.event(xid_event("node-b", t0 - 20), t0, deleted=True)
    (opened,) = book.settle(t0 + 1)
    assert opened.incident.rule != "node_fault"
    _replace(book, t0)
    book.settle(t0 + 3)
    book.event(xid_event("node-b", t0 - 20, n=2), t0 + 4)
    (change,) = book.settle(t0 + 5)
    assert (change.what, change.incident.rule, change.incident.root.host) == ("updated", "node_fault", "node-b")
    assert book.node_jobs["node-b"] == {opened.job.key}


def test_a_closed_incident_releases_the_old_nodes_of_its_pod_ends():
    """What ties the job to node-b once its pod there is gone is the pod end it holds: the incident closed (idle),
    node-b's facts are no longer the job's, and node-b no longer touches it (nothing kept forever)."""
    t0 = time.time()
    book = _job(t0)
    book.settle(t0 + 1)
    _replace(book, t0)
    book.settle(t0 + 3)
    (state,) = book.jobs.values()
    assert state.ends and "node-b" in book.node_jobs
    closed = [c for c in book.settle(t0 + 3 + book.idle + 1) if c.what == "closed"]
    assert closed and not state.ends and "node-b" not in book.node_jobs
    assert [e for e in book.evidence(state) if e.host == "node-b"] == []
