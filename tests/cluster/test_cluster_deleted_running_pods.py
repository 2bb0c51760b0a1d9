"""A job's pod deleted while still running (no end of its own in its status): force-deleted (`kubectl delete pod
--grace-period=0 --force`, the pod gone from the API at once, never Terminating: kube-rs/kube #880), deleted by the
taint manager of a cluster that writes no DisruptionTarget condition (before 1.26: KEP-3329), drained, or deleted by its
gang's controller after a rank elsewhere failed.  Where a fault of its node came before its deletion (the agent's
condition standing, its Node Event), the fault can be the deletion's cause: its node's facts stay the job's as a bad
end's (cluster/book.py Book._leave, Ends), read before the deletion or after it (the Events' and the pods' watches are
separate streams); a fault of its node after the deletion is none of the job's, and a healthy pod its gang's controller
deleted leaves no node of the job.  The Book alone, with the agents' Events and conditions as their own code writes
them, and against the HTTP API double with the real kubernetes client.

The Pod and Node objects are CONSTRUCTED (core/v1 fields: metadata.deletionTimestamp / deletionGracePeriodSeconds as
the API server sets them on a graceful delete, kubernetes/kubernetes #87039; none on a force delete's DELETED, the
object removed at once, kube-rs/kube #880); the agents' Events and conditions are written by their own code."""

from __future__ import annotations

import time

import pytest
from apiserver_double import ApiDouble
from harness import wait_until

import cluster.book as book_module
from cluster.book import Book

from test_cluster import NODES, XID79, agent_pod_event, controller, gang, incidents, publish_timeouts
from test_cluster_kubelet_events import pod_of, stamp
from test_cluster_replaced_pods import failed, xid_event


def fallen_off_bus(at: float) -> dict:
    """node-b's agent's GPUUnhealthy condition (agent/health.py's words), standing since `at` (its clock)."""
    return {"type": "GPUUnhealthy", "status": "True", "reason": "Xid79FallenOffBus",
            "message": f"Xid 79 on GPU 3 (0000:5d:00): {XID79.rstrip('.')}. Recommended action: RESTART_BM",
            "lastTransitionTime": stamp(at)}


def running(name: str, node: str, deleting: float | None = None, grace: int = 30) -> dict:
    """A rank's pod running on `node`; `deleting`: its deletion asked, the deadline (request + grace) the API server
    sets."""
    p = pod_of(name, node) | {"status": {"phase": "Running", "containerStatuses": [
        {"name": "main", "state": {"running": {"startedAt": "2024-07-25T06:00:05Z"}}}]}}
    if deleting is not None:
        p["metadata"] = {**p["metadata"], "deletionTimestamp": stamp(deleting), "deletionGracePeriodSeconds": grace}
    return p


def _gang(t0: float) -> Book:
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(running(f"llm-w-0-{i}", node), t0)
    return book


def _timeouts(book: Book, t: float, nodes=("node-a", "node-c", "node-d")) -> None:
    for i, node in enumerate(NODES):
        if node in nodes:
            book.event(agent_pod_event(node, f"llm-w-0-{i}", [i], clock=lambda: t), t)


def _root(book: Book, now: float) -> tuple:
    book.settle(now)
    (state,) = book.jobs.values()
    return (state.open.incident.rule, state.open.incident.root.host) if state.open is not None else None


def test_a_pod_force_deleted_while_running_on_a_node_with_a_fault_keeps_that_nodes_fault_the_jobs():
    """node-b's GPU falls off the bus (its agent's condition), its rank hangs, a user force-deletes its pod (grace 0: no
    deletionTimestamp ever seen); the other ranks then time out: the incident names node-b.  Was: the pod left no end,
    node-b's facts were no longer the job's, and the incident named a rank's timeout."""
    t0 = time.time()
    book = _gang(t0)
    book.node({"metadata": {"name": "node-b"}, "status": {"conditions": [fallen_off_bus(t0 - 60)]}}, t0)
    assert _root(book, t0 + 1) == ("node_fault", "node-b")
    book.pod(running("llm-w-0-1", "node-b"), t0 + 2, deleted=True)
    _timeouts(book, t0 + 30)
    assert _root(book, t0 + 31) == ("node_fault", "node-b")
    # no deletion time seen: the faults read before it, to the newest of them (a later fault of node-b is none of
    # the job's)
    (state,) = book.jobs.values()
    assert list(state.ends.where.values()) == [("node-b", state.ends.get("exit/train/llm-w-0-1/uid-llm-w-0-1")[1],
                                                float(int(t0 - 60)))]


def test_a_pod_deleted_while_running_keeps_its_nodes_fault_from_before_the_deletion_read_after_it():
    """The taint manager of a cluster that writes no DisruptionTarget condition deletes the pod on node-b (its
    deletionTimestamp seen, the pod still running); node-b's agent's Xid Event from before the deletion is read only
    after the pod's DELETED: it is the job's, the incident names node-b.  Was: not the job's (a rank's timeout named)."""
    t0 = time.time()
    book = _gang(t0)
    book.pod(running("llm-w-0-1", "node-b", deleting=t0 + 30), t0)
    book.pod(running("llm-w-0-1", "node-b", deleting=t0 + 30), t0 + 31, deleted=True)
    _timeouts(book, t0 + 40)
    book.event(xid_event("node-b", t0 - 5), t0 + 41)
    assert _root(book, t0 + 42) == ("node_fault", "node-b")
    (state,) = book.jobs.values()
    assert set(state.ends.nodes) == {"node-b"} and not book.left


def test_the_gangs_healthy_pods_its_controller_deleted_name_no_node():
    """node-b's rank fails (its GPU off the bus, its container exit 1); the JobSet's controller deletes the others
    while they run (graceful: deletionTimestamp set).  A fault of their nodes after their deletion (node-c's Xid 30 s
    later: its next tenant's) is none of the job's: the incident names node-b, and the deleted healthy pods keep no node
    of the job."""
    t0 = time.time()
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(failed(f"llm-w-0-{i}", node, t0 - 10) if node == "node-b" else running(f"llm-w-0-{i}", node), t0)
    book.event(xid_event("node-b", t0 - 20), t0)
    _timeouts(book, t0)
    assert _root(book, t0 + 1) == ("node_fault", "node-b")
    for i, node in enumerate(NODES):
        pod = failed(f"llm-w-0-{i}", node, t0 - 10) if node == "node-b" else running(f"llm-w-0-{i}", node, t0 + 2)
        book.pod(pod, t0 + 2)
        book.pod(pod, t0 + 3, deleted=True)
    book.event(xid_event("node-c", t0 + 30, n=1), t0 + 31)
    assert _root(book, t0 + 32) == ("node_fault", "node-b")
    (state,) = book.jobs.values()
    assert set(state.ends.nodes) == {"node-b"}
    assert {n for n in NODES if state.job.key in book.node_jobs.get(n, ())} == {"node-b"}
    assert {e.host for e in book.evidence(state) if e.kind == "xid"} == {"node-b"}


def test_the_deleted_running_pods_waiting_for_a_late_fault_are_bounded_and_forgotten_with_their_job(monkeypatch):
    """What waits for a fault read late (Book.left) is at most MAX_WAITING pods (the oldest forgotten), and a pod of
    a job since forgotten is no longer waited for: its node's fault read then touches no job."""
    monkeypatch.setattr(book_module, "MAX_WAITING", 2)
    t0 = time.time()
    book = _gang(t0)
    for i, node in enumerate(NODES):
        book.pod(running(f"llm-w-0-{i}", node, t0 + 2), t0 + 2)
        book.pod(running(f"llm-w-0-{i}", node, t0 + 2), t0 + 3, deleted=True)
    assert sorted(left.node for left in book.left.values()) == ["node-c", "node-d"]
    assert sorted(book.left_on) == ["node-c", "node-d"]
    book.settle(t0 + 4)
    book.settle(t0 + 5 + book.idle)  # its pods gone, quiet: forgotten
    assert not book.jobs
    book.event(xid_event("node-c", t0 - 5), t0 + 6 + book.idle)
    assert not book.jobs and "node-c" not in book.left_on and "node-c" not in book.node_jobs


def test_a_pod_force_deleted_while_running_on_a_node_with_a_fault_live():
    """Against the API double: node-b's agent's GPUUnhealthy condition stands, the job's pod there is force-deleted
    while running (removed at once), the other ranks time out after: the incident's Event names node-b.  Was: it
    named the ranks' timeout, node-b's fault dropped with the pod."""
    with ApiDouble() as api:
        gang(api)
        api.nodes["node-b"].setdefault("status", {})["conditions"] = [fallen_off_bus(time.time() - 60)]
        api.nodes.touch("node-b")
        with controller(api):
            wait_until(lambda: next((e for e in incidents(api) if "node node-b" in e["message"]), None),
                       "the incident on node-b's fault")
            del api.pods[("train", "llm-w-0-1")]
            publish_timeouts(api, nodes=("node-a", "node-c", "node-d"))
            ev = wait_until(lambda: next((e for e in incidents(api) if "timed out" in e["message"]), None),
                            "the incident with the ranks' timeouts")
        assert "hardware" in ev["message"] and "node node-b" in ev["message"], ev["message"]


@pytest.mark.parametrize("deleting", [None, 30.0])
def test_a_deleted_running_pods_node_fault_from_before_its_start_is_not_the_jobs(deleting):
    """The window is a bad end's: from FAULT_SLACK before the pod started there; an older fault (a previous tenant's)
    keeps no node of the job."""
    t0 = time.time()
    book = Book()
    p = running("llm-w-0-1", "node-b", None if deleting is None else t0 + deleting)
    p["metadata"]["creationTimestamp"] = stamp(t0 - 100)
    book.pod(p, t0)
    book.event(xid_event("node-b", t0 - 100 - book_module.FAULT_SLACK - 5), t0)
    book.pod(p, t0 + 1, deleted=True)
    (state,) = book.jobs.values()
    assert not state.ends and "node-b" not in book.node_jobs
