"""A batch Job ended by the Job controller at its `activeDeadlineSeconds`: the controller sets the Job's Failed
condition and records a Warning Event of reason DeadlineExceeded on the Job ("Job was active longer than specified
deadline", pkg/controller/job/job_controller.go), then deletes the Job's running pods, whose statuses say nothing of why.
Offline triage reads that Event (the k8s_ended row, POD_ENDS "DeadlineExceeded": the application's time limit); live,
the cluster component watched no Event on a Job and opened no incident.  Now it watches them (evidence.JOB_SELECTORS,
triage.facts JOB_EVENTS) and reads them as offline (Reader.job_event: triage.inventory read_events).

The Event's message is REAL: `kubectl get events` of a Job the Job controller ended at its deadline,
tests/fixtures/pods/ended/events-job-deadline-exceeded.txt (oracle/weblogic-kubernetes-operator's
docs-source/content/userguide/managing-domains/domain-events.md); the Event and Pod objects around it are CONSTRUCTED
(core/v1 fields as the Job controller and the API server set them)."""

from __future__ import annotations

import time
from pathlib import Path

from cluster.book import Book
from cluster.evidence import JOB_SELECTORS, Reader

from test_cluster_kubelet_events import stamp

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "pods" / "ended" / "events-job-deadline-exceeded.txt"
DEADLINE = "Job was active longer than specified deadline"  # (FIXTURE's first row)


def _pod(name: str, node: str, job: str = "train-llm", deleting: float | None = None) -> dict:
    meta = {"name": name, "namespace": "train", "uid": f"uid-{name}", "creationTimestamp": "2024-07-25T06:00:00Z",
            "labels": {"batch.kubernetes.io/job-name": job, "job-name": job},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job, "uid": f"uid-{job}",
                                 "controller": True}]}
    if deleting is not None:
        meta |= {"deletionTimestamp": stamp(deleting), "deletionGracePeriodSeconds": 30}
    return {"metadata": meta, "spec": {"nodeName": node}, "status": {"phase": "Running", "containerStatuses": [
        {"name": "main", "state": {"running": {"startedAt": "2024-07-25T06:00:05Z"}}}]}}


def deadline_event(job: str = "train-llm", at: float | None = None, api_version: str = "batch/v1") -> dict:
    when = stamp(time.time() if at is None else at)
    return {"apiVersion": "v1", "kind": "Event", "type": "Warning", "reason": "DeadlineExceeded", "message": DEADLINE,
            "count": 1, "metadata": {"name": f"{job}.17f0", "namespace": "train", "uid": f"jev-{job}",
                                     "resourceVersion": "7"},
            "involvedObject": {"apiVersion": api_version, "kind": "Job", "name": job, "namespace": "train",
                               "uid": f"uid-{job}"},
            "source": {"component": "job-controller"}, "firstTimestamp": when, "lastTimestamp": when}


def _ended(book: Book, t0: float, event: dict | None) -> list:
    for i, node in enumerate(("node-a", "node-b")):
        book.pod(_pod(f"train-llm-{i}", node), t0)
    if event is not None:
        book.event(event, t0 + 1)
    for i, node in enumerate(("node-a", "node-b")):  # the Job controller deletes its pods
        book.pod(_pod(f"train-llm-{i}", node, deleting=t0 + 31), t0 + 1)
        book.pod(_pod(f"train-llm-{i}", node, deleting=t0 + 31), t0 + 2, deleted=True)
    return book.settle(t0 + 3)


def test_the_deadline_event_is_watched_on_jobs_and_read_as_offline():
    assert "involvedObject.kind=Job,reason=DeadlineExceeded" in JOB_SELECTORS
    assert DEADLINE in FIXTURE.read_text()
    (e,) = Reader.job_event(deadline_event())
    assert (e.kind, e.details["pod_end"], e.host) == ("job_ended", "DeadlineExceeded", None)
    assert Reader.job_event(deadline_event(api_version="batch.volcano.sh/v1alpha1")) == []  # Volcano's Job: not batch's


def test_a_job_ended_at_its_deadline_is_its_time_limit_live():
    """The DeadlineExceeded Event, then the Job controller deleting both running pods: one incident, the
    application's time limit (DEADLINE EXCEEDED), as offline says of the same Event.  Was: no incident."""
    t0 = time.time()
    (change,) = _ended(Book(), t0, deadline_event(at=t0 + 1))
    i = change.incident
    assert (i.category, i.root.kind) == ("application", "job_ended") and "activeDeadlineSeconds ran out" in i.reason, i.reason


def test_without_the_event_or_for_another_job_nothing_is_said():
    """The same deletions without the Event, or with another Job's: no incident (a Job's pods deleted say nothing)."""
    t0 = time.time()
    assert _ended(Book(), t0, None) == []
    assert _ended(Book(), t0, deadline_event("other-job", at=t0 + 1)) == []


# A JobSet's child batch Job (h745): the JobSet controller makes one Job per replicated job and index,
# "<jobset>-<replicatedjob>-<index>", its pods labelled with the JobSet's name and the child Job's
# (jobset.sigs.k8s.io/jobset-name; batch.kubernetes.io/job-name, job-name) and owned by the child Job; the cluster keeps
# them under the JobSet.  The child Job's activeDeadlineSeconds spent, the Job controller's DeadlineExceeded Event names
# the child Job (its message REAL, FIXTURE's; the objects CONSTRUCTED as the JobSet and Job controllers set them).
JOBSET, CHILD = "train-llm", "train-llm-workers-0"


def _jobset_pod(name: str, node: str, deleting: float | None = None, child: str = CHILD) -> dict:
    pod = _pod(name, node, child, deleting)
    pod["metadata"]["labels"] |= {"jobset.sigs.k8s.io/jobset-name": JOBSET,
                                  "jobset.sigs.k8s.io/replicatedjob-name": "workers"}
    return pod


def _jobset_ended(book: Book, t0: float, event: dict | None, seen_after: bool = False) -> list:
    for i, node in enumerate(("node-a", "node-b")):
        book.pod(_jobset_pod(f"{CHILD}-{i}", node), t0)
    if event is not None and not seen_after:
        book.event(event, t0 + 1)
    for i, node in enumerate(("node-a", "node-b")):
        book.pod(_jobset_pod(f"{CHILD}-{i}", node, deleting=t0 + 31), t0 + 1)
        book.pod(_jobset_pod(f"{CHILD}-{i}", node, deleting=t0 + 31), t0 + 2, deleted=True)
    if event is not None and seen_after:  # (the Events' watch behind the pods')
        book.event(event, t0 + 2)
    return book.settle(t0 + 3)


def test_a_jobsets_child_job_ended_at_its_deadline_is_its_jobsets_time_limit_live():
    """The DeadlineExceeded Event of the JobSet's child Job, then its pods deleted: one incident on the JobSet's job,
    the application's time limit, as offline reads the same Event; the Event seen after the pods were gone too (their
    tombstones name the child Job).  Was: no incident (only a job whose owner is that Job read it)."""
    for seen_after in (False, True):
        t0 = time.time()
        book = Book()
        (change,) = _jobset_ended(book, t0, deadline_event(CHILD, at=t0 + 1), seen_after)
        i = change.incident
        assert (i.category, i.root.kind) == ("application", "job_ended"), (seen_after, i.reason)
        assert "activeDeadlineSeconds ran out" in i.reason
        assert [s.job.owner.kind for s in book.jobs.values()] == ["JobSet"]


def test_another_child_jobs_deadline_is_not_the_jobsets():
    """Another JobSet's child Job (another name), or a Job of that name in another namespace: nothing said."""
    t0 = time.time()
    assert _jobset_ended(Book(), t0, deadline_event("train-llm-workers-1", at=t0 + 1)) == []
    other = deadline_event(CHILD, at=t0 + 1)
    other["involvedObject"] = {**other["involvedObject"], "namespace": "elsewhere"}
    other["metadata"] = {**other["metadata"], "namespace": "elsewhere"}
    assert _jobset_ended(Book(), t0, other) == []


# ---- GKE's node termination handler's deletion (h745) ----------------------------------------------------------------

def test_a_pod_gkes_node_termination_handler_deleted_is_its_node_terminated_live():
    """The handler's Warning NodeTermination Event of the job's pod on node-b (SYNTHETIC, tests/triage/test_pod_ended
    GKE_SAYS, from k8s-node-termination-handler termination/eviction.go), then its delete of the pods (no Eviction API,
    no DisruptionTarget condition): one incident, NODE TERMINATION, infrastructure, node-b, as offline reads the same
    Event.  Was: the Event never watched, the deletion of a running pod no incident."""
    from cluster.evidence import POD_EVENT_SELECTORS
    from test_cluster_kubelet_events import kubelet_event
    assert "type=Warning,involvedObject.kind=Pod,reason=NodeTermination" in POD_EVENT_SELECTORS
    says = 'Node "node-b" is about to be terminated. Evicting pod prior to node termination.'
    ev = kubelet_event("train-llm-1", None, "NodeTermination", says)
    ev["source"] = {"component": "k8s-node-termination-handler"}
    t0 = time.time()
    (change,) = _ended(Book(), t0, ev)
    i = change.incident
    assert (i.category, i.root.kind, i.root.host) == ("infrastructure", "job_ended", "node-b"), i.reason
    assert i.evidence[0].details["why"] == "NODE TERMINATION" and "the cloud terminated its node" in i.reason
