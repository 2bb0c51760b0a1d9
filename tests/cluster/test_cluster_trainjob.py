"""Kubeflow Trainer v2's TrainJob: the job of the JobSet it makes is the TrainJob's, its incident Event and any
cascading recovery's on the TrainJob; recovery deletes the same pods as for any JobSet (never the TrainJob nor the
JobSet), which the JobSet's batch Jobs recreate.

The objects' shape is kubeflow/trainer's (commit 8c0f5059bd51ec3ba6d6a6a7b2e1471de7bc13b3, the same at v2.0.0,
117ad23a73d1df59ecb4998a761dab9e62e527db): pkg/runtime/framework/plugins/jobset/jobset.go `Build` makes the JobSet
`jobsetv1alpha2ac.JobSet(trainJob.Name, trainJob.Namespace)` (the TrainJob's name and namespace), with the runtime
template's labels, and the ownerReference apiVersion `trainer.kubeflow.org/v1alpha1` (groupversion_info.go), kind
`TrainJob`, the TrainJob's name and uid, controller and blockOwnerDeletion true; the CRD's plural is `trainjobs`
(manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml).  The pods carry JobSet's labels, no label of the
TrainJob's (`trainer.kubeflow.org/trainjob-ancestor-step` is on the replicated Job's template, the batch Job:
manifests/base/runtimes/torch_distributed.yaml).  Names and uids here are the tests' own."""

from __future__ import annotations

import pytest

from apiserver_double import ApiDouble
from harness import wait_until
from test_cluster import NODES, agent_pod_event, controller, doc, gang, incidents, publish_timeouts, publish_xid, ref
from test_cluster_recovery import recoveries

from cluster.book import Book
from cluster.owners import OWNER_KINDS, Owner, job_of, owner_of
from cluster.recovery import OPT_IN, Policy

TRAINER = "trainer.kubeflow.org/v1alpha1"


def jobset(name: str = "llm", owner_refs: list | None = None, labels: dict | None = None) -> dict:
    meta = {"name": name, "namespace": "train", "uid": f"uid-{name}", "labels": labels or {}}
    if owner_refs is not None:
        meta["ownerReferences"] = owner_refs
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta}


def trainjob_ref(name: str = "llm", controller: bool = True) -> dict:
    """The ownerReference jobset.go `Build` writes on the JobSet it makes."""
    return {"apiVersion": TRAINER, "kind": "TrainJob", "name": name, "uid": f"uid-tj-{name}", "controller": controller,
            "blockOwnerDeletion": True}


def test_the_owner_of_a_trainjobs_jobset_is_the_trainjob_and_of_any_other_jobset_none():
    assert owner_of(jobset(owner_refs=[trainjob_ref()])) == Owner(TRAINER, "TrainJob", "train", "llm", "uid-tj-llm")
    assert owner_of(jobset()) is None  # a JobSet a user made
    assert owner_of(jobset(owner_refs=[trainjob_ref(controller=False)])) is None  # not its controller
    assert owner_of(jobset(owner_refs=[ref("example.com/v1", "Pipeline", "p")])) is None  # a kind gpu-npd knows not
    # an owned kind alone: a batch Job a JobSet made is a Job (the JobSet is found by its pods' label)
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "llm-w-0", "namespace": "train",
                                                                  "ownerReferences": [ref("jobset.x-k8s.io/v1alpha2",
                                                                                          "JobSet", "llm")]}}
    assert owner_of(job) is None
    bad = jobset(owner_refs=["x", {"controller": True}, {**trainjob_ref(), "apiVersion": None}])
    assert owner_of(bad) is None  # refs of another shape: none, nothing raised


def test_every_owned_kind_is_a_kind_of_the_table_and_the_trainjob_its_highest():
    whats = {Owner(k.api_version, k.kind, "", "").where[1] for k in OWNER_KINDS}
    assert all(w in whats for k in OWNER_KINDS for w in k.owns)
    assert OWNER_KINDS[0].kind == "TrainJob" and OWNER_KINDS[0].owns == ("JobSet.jobset.x-k8s.io",)


def pods(book: Book, name: str = "llm", labels: dict | None = None) -> None:
    for i in range(2):
        book.pod({"metadata": {"namespace": "train", "name": f"{name}-node-0-{i}", "uid": f"p{i}",
                               "labels": {"jobset.sigs.k8s.io/jobset-name": name,
                                          "batch.kubernetes.io/job-name": f"{name}-node-0", **(labels or {})},
                               "ownerReferences": [ref("batch/v1", "Job", f"{name}-node-0")]},
                  "spec": {"nodeName": f"node-{i}"}}, 0.0)


@pytest.mark.parametrize("jobset_first", [True, False], ids=["jobset-seen-first", "pods-seen-first"])
def test_the_job_of_a_trainjobs_jobset_is_the_trainjobs_keyed_by_its_jobset(jobset_first):
    """Was: the job's owner the JobSet (its incident Event on the JobSet, which users of a TrainJob do not look at)."""
    book = Book()
    seen = lambda: book.owner_seen(Owner("jobset.x-k8s.io/v1alpha2", "JobSet", "train", "llm", "uid-llm"),
                                   parent=owner_of(jobset(owner_refs=[trainjob_ref()])))
    if jobset_first:
        seen()
    pods(book)
    if not jobset_first:
        seen()
    (state,) = book.jobs.values()
    assert state.job.key == job_of({"metadata": {"namespace": "train", "labels": {
        "jobset.sigs.k8s.io/jobset-name": "llm"}}}).key == ("train", "JobSet.jobset.x-k8s.io", "llm")
    assert state.job.owner == Owner(TRAINER, "TrainJob", "train", "llm", "uid-tj-llm")


def test_a_trainjobs_opt_in_or_its_jobsets_opts_its_pods_in():
    book = Book()
    js = Owner("jobset.x-k8s.io/v1alpha2", "JobSet", "train", "llm", "uid-llm")
    parent = owner_of(jobset(owner_refs=[trainjob_ref()]))
    book.owner_seen(js, parent=parent)
    pods(book)
    key = ("train", "JobSet.jobset.x-k8s.io", "llm")
    assert book.opted_in(key) == []
    book.owner_seen(parent, opt_in=True)  # the user's label on the TrainJob
    assert [p[1] for p in book.opted_in(key)] == ["llm-node-0-0", "llm-node-0-1"]
    book.owner_seen(parent)
    book.owner_seen(js, opt_in=True, parent=parent)  # the runtime template's label, on the JobSet
    assert len(book.opted_in(key)) == 2


def test_a_trainjobs_or_its_jobsets_deletion_closes_the_incident_and_an_orphaned_jobset_is_its_own_job_again():
    js = Owner("jobset.x-k8s.io/v1alpha2", "JobSet", "train", "llm", "uid-llm")
    parent = owner_of(jobset(owner_refs=[trainjob_ref()]))
    for deleted in (parent, js):
        book = Book()
        book.owner_seen(js, parent=parent)
        pods(book)
        assert book.jobs and book.owner_deleted(deleted, 1.0) == [] and not book.jobs
    book = Book()
    book.owner_seen(js, parent=parent)
    pods(book)
    book.owner_seen(js)  # the TrainJob deleted orphaning its JobSet (the garbage collector drops the reference)
    (state,) = book.jobs.values()
    assert state.job.owner == js


def test_an_incident_open_on_the_jobset_when_its_trainjob_is_learnt_stays_there_and_the_next_is_the_trainjobs():
    """An incident written on the JobSet (by a version before this, or opened before the JobSet's owner was seen) is
    updated and closed on the JobSet, where its Event is; the job's next incident is on the TrainJob."""
    book = Book(idle=60)
    t0 = 1_000.0
    js = Owner("jobset.x-k8s.io/v1alpha2", "JobSet", "train", "llm", "uid-llm")
    book.owner_seen(js)
    for i, node in enumerate(NODES):
        book.pod({"metadata": {"name": f"llm-w-0-{i}", "namespace": "train", "uid": f"uid-llm-w-0-{i}", "labels": {
            "jobset.sigs.k8s.io/jobset-name": "llm"}, "creationTimestamp": "2024-07-25T06:00:00Z"},
            "spec": {"nodeName": node}}, t0)
    for i, node in enumerate(NODES):
        ev = agent_pod_event(node, f"llm-w-0-{i}", [i])
        ev["involvedObject"]["name"] = f"llm-w-0-{i}"
        book.event(ev, t0 + 1)
    (opened,) = book.settle(t0 + 2)
    assert opened.job.owner == js
    book.owner_seen(js, parent=owner_of(jobset(owner_refs=[trainjob_ref()])))
    (state,) = book.jobs.values()
    assert state.job.owner == js  # its Event is on the JobSet
    (closed,) = book.settle(t0 + 2 + 62)
    assert closed.what == "closed" and closed.job.owner == js
    assert state.job.owner.kind == "TrainJob"


def trainjob_gang(api: ApiDouble, labels: dict | None = None) -> None:
    """`gang`'s JobSet made by a TrainJob of its name."""
    gang(api)
    trainjobs = api.serve("trainer.kubeflow.org", "v1alpha1", "trainjobs", "TrainJob")
    trainjobs[("train", "llm")] = {"apiVersion": TRAINER, "kind": "TrainJob",
                                   "metadata": {"name": "llm", "namespace": "train", "uid": "uid-tj-llm",
                                                "labels": labels or {}}}
    jobsets = api.stores[("jobset.x-k8s.io", "jobsets")]
    jobsets[("train", "llm")] = jobset(owner_refs=[trainjob_ref()])


def test_a_trainjobs_incident_and_its_recovery_are_events_on_the_trainjob_and_its_deletion_closes_it():
    """The JobSet path, the Events on the TrainJob: observe says it would delete the opted-in pods (the TrainJob
    labelled), for their batch Jobs to recreate; nothing is deleted.  Was: both Events on the JobSet."""
    with ApiDouble() as api:
        trainjob_gang(api, labels={OPT_IN: "true"})
        publish_xid(api)
        publish_timeouts(api)
        with controller(api) as c:
            (ev,) = wait_until(lambda: recoveries(api), "the observe Event")
            assert ev["involvedObject"]["kind"] == "TrainJob"
            assert "would restart job TrainJob/llm (delete its 4 opted-in pod(s)" in ev["message"]
            # the incident's Event is in the API before the recovery that names it (created first: the API double keeps
            # Events in creation order; was: the recovery first, the incident one write later, a window this test hit)
            reasons = [e["reason"] for e in incidents(api)]
            assert reasons.index("JobIncident") < reasons.index("CascadingRecovery"), reasons
            (inc,) = [e for e in incidents(api) if e["reason"] == "JobIncident"]
            assert inc["involvedObject"] == {"apiVersion": TRAINER, "kind": "TrainJob", "name": "llm",
                                             "namespace": "train", "uid": "uid-tj-llm"}
            d = doc(inc)
            assert d["job"] == ["train", "JobSet.jobset.x-k8s.io", "llm"] and d["owner"]["kind"] == "TrainJob"
            assert "owner:TrainJob.trainer.kubeflow.org" in c.owner_kinds
            assert api.pods_deleted == []
            del api.stores[("trainer.kubeflow.org", "trainjobs")][("train", "llm")]  # the user deletes the TrainJob
            wait_until(lambda: [doc(e)["state"] for e in incidents(api) if e["reason"] == "JobIncident"] == ["closed"],
                       "closed")


def test_a_trainjobs_recovery_in_enforce_deletes_its_opted_in_pods_never_the_trainjob_nor_its_jobset():
    with ApiDouble() as api:
        trainjob_gang(api, labels={OPT_IN: "true"})
        with controller(api, recovery=Policy(mode="enforce")) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            publish_xid(api)
            publish_timeouts(api)
            wait_until(lambda: len(api.pods_deleted) == 4, "the opted-in pods deleted")
            (ev,) = wait_until(lambda: recoveries(api), "the recovery Event")
            assert "restarted job TrainJob/llm" in ev["message"] and ev["involvedObject"]["kind"] == "TrainJob"
            assert ("train", "llm") in api.stores[("trainer.kubeflow.org", "trainjobs")]
            assert ("train", "llm") in api.stores[("jobset.x-k8s.io", "jobsets")]
