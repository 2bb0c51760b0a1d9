"""Cascading recovery (issue 26, part 2): opt-in, observe by default, one action per incident, a per-job budget,
a cluster-wide rate limit, idempotent across controller restarts, never a pod without the opt-in."""

from __future__ import annotations

import io
import json
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone

import pytest

from apiserver_double import ApiDouble
from harness import wait_until
from test_cluster import controller, doc, gang, incidents, later_rounds, publish_timeouts, publish_xid

from cluster.controller import COMPONENT
from cluster.owners import JOB_LABEL
from cluster.recovery import OPT_IN, RESULTS, Policy, Recovery, fatal
from kubeapi.events import EventRecorder
from triage import Evidence, attribute


def hardware_incident():
    # synthetic unit-test evidence: an Xid 79 on one node, watchdog timeouts on two ranks
    xid = Evidence("xid", "fatal", "hardware", None, "node-b", xid=79, pci="0000:5d:00")
    timeouts = [Evidence("nccl_timeout", "error", "unknown", None, f"node-{h}", rank=r, seq=7)
                for r, h in enumerate("ac")]
    return attribute([xid, *timeouts])[0]


# real line: modelscope/ms-swift #3267 (https://github.com/modelscope/ms-swift/issues/3267, verbatim, as in
# tests/fixtures/realworld/jobs-cuda-assert-2026m.yaml): a rank's own CUDA assert, the job's fault (application)
DEVICE_ASSERT = "[rank0]: RuntimeError: CUDA error: device-side assert triggered"


def application_incident():
    from triage import Clock, read_lines
    (incident,) = attribute(read_lines([DEVICE_ASSERT], "x.log", Clock()))
    return incident


def test_a_store_barrier_that_timed_out_with_ranks_missing_is_fatal_and_the_other_first_failures_still_are():
    """REAL (facebookresearch/metaseq #52, https://github.com/facebookresearch/metaseq/issues/52, verbatim): 1792 of
    2048 ranks joined the store barrier; the issue says such jobs "continue to stay alive" and asks for them to be
    ended. The verdict (store_error, the job's cause) says the gang cannot form: a member cannot continue, and an
    opted-in job is restarted (was: no decision, the job left alive). The kinds come from the kind tables."""
    from triage import Clock, read_lines
    from cluster.recovery import FATAL
    line = ("RuntimeError: Timed out initializing process group in store based barrier on rank: 4330, for key: "
            "store_based_barrier_key:522 (world_size=2048, worker_count=1792, timeout=0:30:00)")
    (incident,) = attribute(read_lines([line], "x.log", Clock()))
    assert (incident.rule, incident.root.kind) == ("first_failure", "store_error")
    assert fatal(incident)
    # (h435) shm_full: NCCL's init failed for want of room in /dev/shm, the rank cannot continue (nccl_error's before)
    assert {"cuda_error", "nccl_error", "shm_full", "xid", "exception", "store_error"} == FATAL["first_failure"]


def test_the_deaths_that_restart_are_a_ranks_own_by_its_row():
    # was a literal set (FATAL's first_rank_death, {"rank_exit"}): the rows' `death` "rank" (triage/facts.py JobKind),
    # members unchanged: a rank's DataLoader worker killed, a process its coordinator declared dead restart nothing
    import importlib  # noqa: PLC0415

    from cluster.recovery import FATAL  # noqa: PLC0415

    deaths = importlib.import_module("triage.attribute")  # the package's `attribute` is the function
    assert FATAL["first_rank_death"] == deaths.DEATH_KINDS - deaths.PROCESS_DEATHS == {"rank_exit"}


def test_a_fatal_verdict_triggers_and_the_budget_stops_the_fourth_restart_within_the_hour():
    now = [1000.0]
    r = Recovery(Policy(mode="enforce", budget=3, window=3600, per_minute=100), clock=lambda: now[0])
    incident = hardware_incident()
    assert fatal(incident) and incident.rule == "node_fault"
    results = []
    for n in range(4):
        d = r.decide(f"i-{n}", ("train", "Job", "t"), "Job/t", incident, pods=4)
        results.append(d.result)
        now[0] += 600
    assert results == ["restarted"] * 3 + ["budget_exhausted"]
    assert r.decide("i-0", ("train", "Job", "t"), "Job/t", incident, pods=4) is None  # one decision per incident
    now[0] += 3600
    assert r.decide("i-9", ("train", "Job", "t"), "Job/t", incident, pods=4).act  # the hour has passed
    assert r.decide("i-10", ("train", "Job", "u"), "Job/u", incident, pods=0) is None  # no opted-in pod


def test_observe_is_the_default_and_the_cluster_wide_rate_limit_defers():
    incident = hardware_incident()
    d = Recovery(Policy()).decide("i-1", ("ns", "Job", "a"), "Job/a", incident, pods=2)
    assert d.result == "observed" and not d.act and "would restart" in d.message
    r = Recovery(Policy(mode="enforce", budget=10, per_minute=1))
    assert r.decide("i-1", ("ns", "Job", "a"), "Job/a", incident, pods=2).act
    deferred = r.decide("i-2", ("ns", "Job", "b"), "Job/b", incident, pods=2)
    assert deferred.result == "rate_limited" and not deferred.act and deferred.first
    assert "i-2" not in r.decided  # decided again later, not dropped
    again = r.decide("i-2", ("ns", "Job", "b"), "Job/b", incident, pods=2)
    assert again.result == "rate_limited" and not again.first  # the same wait: counted once


def test_what_the_controller_remembers_is_bounded_by_what_can_still_matter():
    """A fleet's jobs, one fatal incident each, restarted and closed.  Was: every incident id in `decided` and every
    job in `history` for the life of the controller.  Now a closed incident's decision goes (it is never decided
    again) and a job whose restarts are all older than the window goes (none counts in its budget); an open one's
    decision and a job's restarts within the window are kept (one action per incident, the budget)."""
    now = [0.0]
    r = Recovery(Policy(mode="enforce", budget=3, window=3600, per_minute=1e6), clock=lambda: now[0])
    incident = hardware_incident()
    for n in range(1000):
        assert r.decide(f"i-{n}", ("ns", "Job", f"j{n}"), f"Job/j{n}", incident, pods=2).act
        r.forget(f"i-{n}")  # the job ended: its incident closed
        now[0] += 1.0
    assert not r.decided and len(r.history) == 1000  # each restart still counts within the hour
    assert r.decide("open", ("ns", "Job", "j999"), "Job/j999", incident, pods=2).act  # its budget: 2 of 3
    assert r.decide("open", ("ns", "Job", "j999"), "Job/j999", incident, pods=2) is None  # decided once
    now[0] += 3600.0
    assert r.decide("late", ("ns", "Job", "x"), "Job/x", incident, pods=2).act
    assert set(r.history) == {("ns", "Job", "x")} and r.decided == {"open", "late"}
    r.restore("closed-before", ("ns", "Job", "y"), "restarted", now[0] - 5, closed=True)  # a predecessor's
    assert "closed-before" not in r.decided and len(r.history[("ns", "Job", "y")]) == 1


def test_the_cluster_wide_rate_limit_counts_a_previous_leaders_restarts():
    """A new leader restores the restarts its predecessor wrote: those of the last minute spend the cluster-wide
    bucket as they did the predecessor's, so a leader change does not double `--recoveries-per-minute`."""
    now = 10_000.0
    r = Recovery(Policy(mode="enforce", budget=10, per_minute=3), clock=lambda: now)
    for n in range(3):
        r.restore(f"old-{n}", ("ns", "Job", f"j{n}"), "restarted", now - 5)
    r.restore("older", ("ns", "Job", "k"), "restarted", now - 3 * 3600)  # long refilled: spends nothing
    r.restore("seen", ("ns", "Job", "m"), "observed", now - 1)  # no restart: spends nothing
    assert r.decide("i-1", ("ns", "Job", "a"), "Job/a", hardware_incident(), pods=2).result == "rate_limited"
    r = Recovery(Policy(mode="enforce", budget=10, per_minute=3), clock=lambda: now)
    for n in range(2):
        r.restore(f"old-{n}", ("ns", "Job", f"j{n}"), "restarted", now - 5)
    assert r.decide("i-1", ("ns", "Job", "a"), "Job/a", hardware_incident(), pods=2).act  # a token is left
    assert r.decide("i-2", ("ns", "Job", "b"), "Job/b", hardware_incident(), pods=2).result == "rate_limited"


def test_a_rate_limited_restart_is_counted_once_and_every_result_is_one_that_happens():
    """The metric's results are what the controller counts: a restart the cluster-wide rate limit holds back is
    `rate_limited` once, however many rounds it waits (was never counted); no result that nothing produces."""
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1"])
        with controller(api, recovery=Policy(mode="enforce", per_minute=0.001)) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            c.recovery.bucket.tokens = 0.0  # spent: the next restart waits (a token in 16 hours)
            publish_xid(api)
            publish_timeouts(api)
            get = c.metrics.registry.get_sample_value
            wait_until(lambda: get("gpu_npd_recoveries_total", {"result": "rate_limited"}) == 1, "counted")
            later_rounds(c, 3)  # several rounds of the loop decide it again
            assert get("gpu_npd_recoveries_total", {"result": "rate_limited"}) == 1
            assert not api.pods_deleted and not recoveries(api)
            results = {s.labels["result"] for m in c.metrics.registry.collect() if m.name == "gpu_npd_recoveries"
                       for s in m.samples if s.name == "gpu_npd_recoveries_total"}
            assert results == {"observed", "restarted", "budget_exhausted", "namespace_budget_exhausted",
                               "rate_limited", "failed"}


def test_a_namespaces_restarts_are_bounded_within_the_window_and_another_namespaces_go_on():
    """A tenant's sweep of jobs that all crash alike (an application exception is fatal) was restarted 3 times per job
    an hour each, spending the cluster-wide rate the other tenants' restarts need.  With `namespace_budget` 3 its
    fourth job's restart within the window is refused (a result, an Event wording of its own), another namespace's
    goes on; the refusal is final for the incident, as the job's budget's is; the window passing frees it.  The
    faults here are the tenant's own (an application error)."""
    now = [1000.0]
    r = Recovery(Policy(mode="enforce", budget=3, window=3600, per_minute=100, namespace_budget=3),
                 clock=lambda: now[0])
    incident = application_incident()
    for n in range(3):
        assert r.decide(f"i-{n}", ("sweep", "Job", f"j{n}"), f"Job/j{n}", incident, pods=2).act
        now[0] += 60
    d = r.decide("i-3", ("sweep", "Job", "j3"), "Job/j3", incident, pods=2)
    assert d.result == "namespace_budget_exhausted" and not d.act
    assert "3 restarts of jobs in namespace sweep within 3600 s already (namespace budget 3)" in d.message
    assert r.decide("i-4", ("other", "Job", "k"), "Job/k", incident, pods=2).act  # another tenant's goes on
    assert r.decide("i-3", ("sweep", "Job", "j3"), "Job/j3", incident, pods=2) is None  # decided once
    assert r.decide("i-5", ("sweep", "Job", "j0"), "Job/j0", incident, pods=2).result == "namespace_budget_exhausted"
    now[0] += 3600 - 150  # the first restart (only) has left the window: one more
    assert r.decide("i-6", ("sweep", "Job", "j3"), "Job/j3", incident, pods=2).act
    assert r.decide("i-7", ("sweep", "Job", "j4"), "Job/j4", incident, pods=2).result == "namespace_budget_exhausted"
    # no bound by default: 200 jobs of one namespace, each restarted
    r = Recovery(Policy(mode="enforce", per_minute=1e6))
    assert all(r.decide(f"i-{n}", ("sweep", "Job", f"j{n}"), f"Job/j{n}", incident, pods=2).act for n in range(200))


def test_a_namespaces_restarts_are_counted_from_a_previous_leaders_decisions():
    """A new leader rebuilds the namespace's count from the restarts its predecessor wrote, as the job's: those
    within the window count, older ones and decisions that restarted nothing do not."""
    now = 10_000.0
    r = Recovery(Policy(mode="enforce", per_minute=100, namespace_budget=2), clock=lambda: now)
    r.restore("old-0", ("sweep", "Job", "j0"), "restarted", now - 600, closed=True)
    r.restore("old-1", ("sweep", "Job", "j1"), "restarted", now - 3 * 3600, closed=True)  # out of the window
    r.restore("old-2", ("sweep", "Job", "j2"), "namespace_budget_exhausted", now - 60)  # refused: restarted nothing
    r.restore("old-3", ("other", "Job", "k"), "restarted", now - 60, closed=True)
    assert r.decide("old-2", ("sweep", "Job", "j2"), "Job/j2", application_incident(), pods=2) is None  # decided
    assert r.decide("i-1", ("sweep", "Job", "j3"), "Job/j3", application_incident(), pods=2).act
    assert r.decide("i-2", ("sweep", "Job", "j4"), "Job/j4", application_incident(), pods=2).result == \
        "namespace_budget_exhausted"


def test_a_node_fault_spends_the_job_budget_and_the_cluster_wide_rate_not_its_namespaces_budget():
    """One switch or GPU failure breaking many jobs of one namespace (a node's fault: hardware, fabric,
    infrastructure) was counted in the namespace's budget as its own application errors are: the fourth job it broke
    was refused and left hung, and the tenant's own faults were refused for the rest of the window.  Now a node's
    restart is neither counted in nor refused by the namespace's budget; it still counts in the job's budget and
    spends the cluster-wide rate limit (the global bound holds).  An application fault spends both, as before; a
    predecessor's decision written with its category is counted the same, one written without it (an older
    version's) in the namespace's budget as before."""
    now = [1000.0]
    r = Recovery(Policy(mode="enforce", budget=3, window=3600, per_minute=5, namespace_budget=2),
                 clock=lambda: now[0])
    node, app = hardware_incident(), application_incident()
    assert node.category == "hardware" and app.category == "application"
    for n in range(5):  # five jobs of one namespace broken by one node's fault: each restarted
        assert r.decide(f"n-{n}", ("sweep", "Job", f"j{n}"), f"Job/j{n}", node, pods=2).act
    assert r.decide("n-5", ("sweep", "Job", "j5"), "Job/j5", node, pods=2).result == "rate_limited"  # the global bound
    now[0] += 60.0
    r.bucket.clock = lambda: time.monotonic() + 60.0  # a minute later there too: the bucket refilled
    # the namespace's budget untouched: its own faults are restarted
    assert r.decide("a-0", ("sweep", "Job", "k0"), "Job/k0", app, pods=2).act
    assert r.decide("a-1", ("sweep", "Job", "k1"), "Job/k1", app, pods=2).act
    d = r.decide("a-2", ("sweep", "Job", "k2"), "Job/k2", app, pods=2)
    assert d.result == "namespace_budget_exhausted" and "2 restarts of jobs in namespace sweep" in d.message
    assert r.decide("n-6", ("sweep", "Job", "j6"), "Job/j6", node, pods=2).act  # a node's fault is not refused by it
    for n in range(2):  # the job's budget counts a node's restarts
        assert r.decide(f"b-{n}", ("sweep", "Job", "j0"), "Job/j0", node, pods=2).act
    assert r.decide("b-2", ("sweep", "Job", "j0"), "Job/j0", node, pods=2).result == "budget_exhausted"
    # a next leader, from the decisions written
    again = Recovery(Policy(mode="enforce", per_minute=100, namespace_budget=2), clock=lambda: now[0])
    for n in range(3):
        again.restore(f"n-{n}", ("sweep", "Job", f"j{n}"), "restarted", now[0] - 60, closed=True, category="fabric")
    again.restore("a-0", ("sweep", "Job", "k0"), "restarted", now[0] - 60, closed=True, category="application")
    assert again.decide("a-3", ("sweep", "Job", "k3"), "Job/k3", app, pods=2).act  # 1 of 2 spent
    older = Recovery(Policy(mode="enforce", per_minute=100, namespace_budget=2), clock=lambda: now[0])
    for n in range(2):
        older.restore(f"n-{n}", ("sweep", "Job", f"j{n}"), "restarted", now[0] - 60, closed=True)  # no category
    assert older.decide("a-3", ("sweep", "Job", "k3"), "Job/k3", app, pods=2).result == "namespace_budget_exhausted"


def opt_in(api: ApiDouble, names: list[str]) -> None:
    for name in names:
        api.pods[("train", name)]["metadata"]["labels"][OPT_IN] = "true"
        api.pods.touch(("train", name))


def recreate(api: ApiDouble, names: list[str], opted: tuple[str, ...] = ("llm-w-0-0", "llm-w-0-1", "llm-w-0-2")) -> None:
    """The owner recreates the gang's deleted pods `names`, as its controller would: the API server gives each a new
    uid and creationTimestamp (now), in one write (a uid once deleted is never seen again); the gang's `opted` pods
    keep (or get again, from the template) the opt-in, the others (not deleted) their creationTimestamp."""
    from test_cluster import NODES

    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    for name in names:
        labels = {"jobset.sigs.k8s.io/jobset-name": "llm", "batch.kubernetes.io/job-name": "llm-w-0",
                  **({OPT_IN: "true"} if name in opted else {})}
        api.pods[("train", name)] = {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "train", "labels": labels, "uid": f"uid-{name}-again",
                         "creationTimestamp": now},
            "spec": {"nodeName": NODES[int(name.rsplit("-", 1)[1])], "containers": [
                {"name": "main", "image": "train:1", "resources": {"limits": {"nvidia.com/gpu": "8"}}}]},
            "status": {"phase": "Running"}}
    opt_in(api, [n for n in opted if n not in names])


def recoveries(api: ApiDouble) -> list[dict]:
    return [e for e in incidents(api) if e["reason"] == "CascadingRecovery"]


def test_enforce_deletes_the_opted_in_pods_once_and_a_restart_does_not_act_again(monkeypatch):
    flushed_by = set()  # the controller's Events are written by one thread, whatever waits on them
    real = EventRecorder.flush
    monkeypatch.setattr(EventRecorder, "flush", lambda self, *a: (
        flushed_by.add(threading.current_thread().name) if self.component == COMPONENT else None, real(self, *a))[1])
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])  # llm-w-0-3 has no opt-in: never touched
        with controller(api, recovery=Policy(mode="enforce")) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            publish_xid(api)
            publish_timeouts(api)
            wait_until(lambda: len(api.pods_deleted) == 3, "the opted-in pods deleted")
            assert sorted(n for _, n in api.pods_deleted) == ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"]
            assert ("train", "llm-w-0-3") in api.pods
            (ev,) = wait_until(lambda: recoveries(api), "the recovery Event")
            assert "restarted job JobSet/llm" in ev["message"] and ev["involvedObject"]["kind"] == "JobSet"
            wait_until(lambda: any(doc(e).get("recovery", {}).get("result") == "restarted" for e in incidents(api)
                                   if e["reason"] == "JobIncident"), "the decision in the incident's Event")
            assert c.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "restarted"}) == 1
        # the owner recreates the pods (as its controller would); a new controller finds the decision written
        recreate(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])
        with controller(api, identity="c2", recovery=Policy(mode="enforce")) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            later_rounds(c)
            assert len(api.pods_deleted) == 3 and len(recoveries(api)) == 1
    assert flushed_by == {"event-writer"}


def test_a_throttled_or_refused_pod_deletion_is_retried_then_counted_once():
    """API Priority and Fairness answers 429 (Retry-After) to a burst of deletes: the gang's remaining pods are
    deleted on a later round, never left running while the others restart; a refusal that lasts (403) is one
    `failed` recovery, not one per pod."""
    from kubernetes.client.rest import ApiException

    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2", "llm-w-0-3"])
        with controller(api, recovery=Policy(mode="enforce")) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            real, calls = c.core.delete_namespaced_pod, []

            def throttled(name, ns, **kw):
                calls.append(name)
                if len(calls) == 2:  # the second delete is throttled
                    exc = ApiException(status=429, reason="Too Many Requests")
                    exc.headers = {"Retry-After": "1"}
                    raise exc
                if name == "llm-w-0-3":
                    raise ApiException(status=403, reason="Forbidden")
                return real(name, ns, **kw)

            c.core.delete_namespaced_pod = throttled
            publish_xid(api)
            publish_timeouts(api)
            wait_until(lambda: len(api.pods_deleted) == 3, "the throttled pods deleted on a later round")
            wait_until(lambda: c.metrics.registry.get_sample_value(
                "gpu_npd_recoveries_total", {"result": "failed"}) == 1, "the refused pod counted once")
            assert sorted(n for _, n in api.pods_deleted) == ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"]
            assert calls.count("llm-w-0-1") == 2 and c.metrics.registry.get_sample_value(
                "gpu_npd_recovery_pod_deletions_total") == 3
            later_rounds(c)
            assert c.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "failed"}) == 1


# RBAC without `delete` on pods (enforce without deploy/components/cluster-recovery): the API server's Status message,
# verbatim from cilium/cilium #7010 (https://github.com/cilium/cilium/pull/7010); the double answers it for every pod
DELETE_DENIED = ('pods "cilium-etcd-r2kk6rfd5c" is forbidden: User '
                 '"system:serviceaccount:kube-system:cilium-etcd-operator" cannot delete resource "pods" in API group "" '
                 'in the namespace "kube-system"')


def test_a_restart_rbac_refuses_is_one_line_naming_the_verb_and_an_event_on_the_owner(caplog):
    """`--recovery enforce` without the ClusterRole that grants `delete` on pods: each delete is refused (403).  The
    restart is one `failed` recovery, one warning line (not one per pod) with the API's message, which names the
    verb and the resource, and a `CascadingRecovery` Event on the owner saying the pods were not deleted (its
    decision's Event said "restarted"); the incident goes on being written.  Before: a warning line per pod, and
    nothing on the owner said the restart had failed."""
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2", "llm-w-0-3"])
        api.set_fault(forbid=("DELETE", "/namespaces/train/pods/[^/]+", DELETE_DENIED))
        with restart_decided(api, caplog) as c:
            failed = wait_until(lambda: [e for e in recoveries(api) if "not deleted" in e["message"]],
                                "the failure's Event on the owner", timeout=15)
            later_rounds(c)
            assert c.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "failed"}) == 1
        assert api.pods_deleted == [] and len(failed) == 1
        (ev,) = failed
        assert ev["involvedObject"]["kind"] == "JobSet" and ev["type"] == "Warning"
        assert "4 pod(s) not deleted" in ev["message"] and DELETE_DENIED in ev["message"]
        # the first pod refused named, not each in turn (Deleting.why: set once)
        assert f"first failure train/llm-w-0-0: HTTP 403 Forbidden: {DELETE_DENIED})" in ev["message"], ev["message"]
        lines = [r.getMessage() for r in caplog.records if DELETE_DENIED in r.getMessage()]
        assert len(lines) == 1 and "\n" not in lines[0] and "4 pod(s) not deleted" in lines[0], lines


@contextmanager
def restart_decided(api: ApiDouble, caplog, before=lambda c: None):
    """A controller enforcing recovery (its warnings caught), synced; `before(c)` (a fault, a shorter backoff), then the
    gang's Xid and its ranks' timeouts published: the restart is decided."""
    with caplog.at_level("WARNING", logger="gpu_npd.cluster"), controller(api, recovery=Policy(mode="enforce")) as c:
        wait_until(lambda: c.ready.is_set(), "synced")
        before(c)
        publish_xid(api)
        publish_timeouts(api)
        yield c


def deletes(api: ApiDouble) -> list[str]:
    """The pods' names in the order the controller asked to delete them (every try, refused or not)."""
    return [path.rsplit("/", 1)[1] for method, path, *_ in api.requests if method == "DELETE" and "/pods/" in path]


def closed(api: ApiDouble) -> bool:
    return any(doc(e)["state"] == "closed" for e in incidents(api) if e["reason"] == "JobIncident")


def test_one_pods_transient_failures_do_not_spend_the_others_retries_and_the_whole_gang_is_deleted(caplog):
    """The gang's first pod's deletion fails (503, the double's) more times in a row than a restart's whole retry
    budget was (DELETE_TRIES, shared by its pods).  Was: once spent on it, the pod was counted `failed` and dropped,
    and a later pod's first transient failure too: a gang half restarted, its survivors waiting in NCCL until the
    watchdog.  Now each pod has its tries and backoff: the first, after DELETE_TRIES failures in a row, is said once
    (naming it and the API's answer) and tried again after the others, not forgotten: all three deleted, the restart
    not `failed`, its incident closed."""
    from cluster.controller import DELETE_TRIES

    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])
        with restart_decided(api, caplog, lambda c: (  # the retries' backoff (read at each failure), short here
                setattr(c.s, "max_backoff", 0.02),
                api.set_fault(refuse=("DELETE", "/namespaces/train/pods/llm-w-0-0", 503, "ServiceUnavailable",
                                      "down (the double)"), times=DELETE_TRIES + 2))) as c:
            wait_until(lambda: len(api.pods_deleted) == 3, "the whole gang deleted", timeout=20)
            wait_until(lambda: closed(api), "the restart done: its incident closed")
            later_rounds(c)
            assert not c.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "failed"})
        assert sorted(n for _, n in api.pods_deleted) == ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"]
        tried = deletes(api)
        assert tried[:DELETE_TRIES] == ["llm-w-0-0"] * DELETE_TRIES  # the first pod, its tries in a row
        assert tried.count("llm-w-0-0") == DELETE_TRIES + 3 and tried[DELETE_TRIES:DELETE_TRIES + 2] == [
            "llm-w-0-1", "llm-w-0-2"]  # then the others, then it again
        lines = [r.getMessage() for r in caplog.records if "llm-w-0-0" in r.getMessage()]
        assert lines == [f"recovery: pod train/llm-w-0-0 not deleted after {DELETE_TRIES} tries (HTTP 503 "
                         "Service Unavailable: down (the double)); tried again after the 2 other pod(s) left"], lines


def test_a_pod_whose_deletion_is_refused_for_good_leaves_the_others_deleted_and_the_restart_finished(caplog):
    """One pod's deletion refused (403, RBAC's message, the double's) for good: the others are deleted, the refusal is
    said once (one line, the pod and the API's answer, and one `CascadingRecovery` Event on the owner), the restart
    `failed` once, and its decision finished: the incident closes rather than wait on that pod.  (A guard: the
    refusal was handled so before; the shared retry budget was the transient failures'.)"""
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])
        api.set_fault(forbid=("DELETE", "/namespaces/train/pods/llm-w-0-0", DELETE_DENIED))
        with restart_decided(api, caplog) as c:
            wait_until(lambda: len(api.pods_deleted) == 2, "the other pods deleted")
            wait_until(lambda: closed(api), "the restart finished: its incident closed")
            (failed,) = wait_until(lambda: [e for e in recoveries(api) if "not deleted" in e["message"]],
                                   "the failure's Event on the owner")
            later_rounds(c)
            assert c.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "failed"}) == 1
        assert sorted(n for _, n in api.pods_deleted) == ["llm-w-0-1", "llm-w-0-2"]
        assert deletes(api).count("llm-w-0-0") == 1  # a refusal is not asked again
        assert "1 pod(s) not deleted" in failed["message"] and f"train/llm-w-0-0: HTTP 403 Forbidden: {DELETE_DENIED}" \
            in failed["message"] and len([e for e in recoveries(api) if "not deleted" in e["message"]]) == 1
        lines = [r.getMessage() for r in caplog.records if "llm-w-0-0" in r.getMessage()]
        assert len(lines) == 1 and "1 pod(s) not deleted" in lines[0] and DELETE_DENIED in lines[0], lines


def test_a_restart_whose_pod_fails_past_its_time_is_finished_failed_not_retried_for_ever(monkeypatch, caplog):
    """A pod's deletion failing (503) without end: the restart is bounded in time (DELETE_SECONDS, short here): the
    other pods deleted, the pod said once when its tries in a row run out, then the restart `failed` (its Event and
    line quoting the 503) and its incident closed; no line per try (was: a warning line at every try)."""
    import cluster.controller as controller_module

    monkeypatch.setattr(controller_module, "DELETE_SECONDS", 1.5)
    monkeypatch.setattr(controller_module, "DELETE_TRIES", 3)
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])
        with restart_decided(api, caplog, lambda c: (
                setattr(c.s, "max_backoff", 0.02),
                api.set_fault(refuse=("DELETE", "/namespaces/train/pods/llm-w-0-0", 503, "ServiceUnavailable",
                                      "down (the double)")))) as c:
            (failed,) = wait_until(lambda: [e for e in recoveries(api) if "not deleted" in e["message"]],
                                   "the failure's Event on the owner", timeout=20)
            wait_until(lambda: closed(api), "the restart finished: its incident closed")
            tries = deletes(api).count("llm-w-0-0")
            later_rounds(c)
            assert deletes(api).count("llm-w-0-0") == tries > 3  # tried again and again, then not any more
            assert c.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "failed"}) == 1
        assert sorted(n for _, n in api.pods_deleted) == ["llm-w-0-1", "llm-w-0-2"]
        assert "1 pod(s) not deleted" in failed["message"] and "train/llm-w-0-0: HTTP 503" in failed["message"]
        lines = [r.getMessage() for r in caplog.records if "llm-w-0-0" in r.getMessage()]
        assert len(lines) == 2 and "not deleted after 3 tries" in lines[0] and "1 pod(s) not deleted" in lines[1], lines


def test_a_restart_decided_while_event_writes_fail_waits_for_its_decision_to_be_written_then_acts_once():
    """The API server failing the job's Event writes (503) while a restart is decided: no pod is deleted before the
    decision is in the incident's Event (a next leader would not know it was acted on), the decision is kept, not
    dropped, and once the writes go through the gang is deleted once, with one `CascadingRecovery` Event.  The 503
    is the double's."""
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])
        publish_xid(api)
        publish_timeouts(api)
        api.set_fault(refuse=("POST", "/namespaces/train/events", 503, "ServiceUnavailable", "down (the double)"))
        with controller(api, recovery=Policy(mode="enforce")) as c:
            get = c.metrics.registry.get_sample_value
            wait_until(lambda: c.recovery.decided, "decided")
            later_rounds(c, 4)
            assert api.pods_deleted == [] and incidents(api) == []
            assert get("gpu_npd_recoveries_total", {"result": "restarted"}) == 0  # counted once written
            api.set_fault()
            wait_until(lambda: len(api.pods_deleted) == 3, "the gang deleted once the decision is written", timeout=15)
            later_rounds(c)
            assert len(api.pods_deleted) == 3 and len(recoveries(api)) == 1
            assert get("gpu_npd_recoveries_total", {"result": "restarted"}) == 1
            (inc,) = [e for e in incidents(api) if e["reason"] == "JobIncident"]
            assert doc(inc)["recovery"]["result"] == "restarted"


def observed_job(api: ApiDouble) -> None:
    gang(api)
    opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])
    publish_xid(api)
    publish_timeouts(api)


def tenant_job(api: ApiDouble) -> None:
    tenant_gang(api, "train", "llm")
    publish_assert(api, "train", "llm")


@pytest.mark.parametrize("result, policy, job", [
    ("observed", Policy(), observed_job),
    ("restarted", Policy(mode="enforce"), observed_job),
    ("budget_exhausted", Policy(mode="enforce", budget=0), observed_job),
    ("namespace_budget_exhausted", Policy(mode="enforce", namespace_budget=0), tenant_job),
])
def test_a_decision_is_counted_by_the_leader_that_wrote_it_once_summed_over_leaders(result, policy, job):
    """gpu_npd_recoveries_total summed over the replicas (as alerts and dashboards read it) counts each decision
    once.  A leader that decides while the incident's Event cannot be written (the job's Event writes failing) and
    then stops counts nothing: the next one decides anew, and counts.  A leader after it restores the decision
    written and counts nothing.  Was: counted when decided, so a leader change before the write counted it twice."""
    import contextlib

    total = lambda *cs: sum(c.metrics.registry.get_sample_value(  # noqa: E731
        "gpu_npd_recoveries_total", {"result": r}) for c in cs for r in RESULTS)
    with ApiDouble() as api, contextlib.ExitStack() as stack:
        job(api)
        api.set_fault(refuse=("POST", "/namespaces/train/events", 503, "ServiceUnavailable", "down (the double)"))
        first = stack.enter_context(controller(api, recovery=policy))
        wait_until(lambda: first.recovery.decided, "decided")
        later_rounds(first, 3)
        assert total(first) == 0 and incidents(api) == [] and api.pods_deleted == []
        stack.close()  # stopped before its decision was written
        api.set_fault()
        second = stack.enter_context(controller(api, identity="c2", recovery=policy))
        wait_until(lambda: second.metrics.registry.get_sample_value(
            "gpu_npd_recoveries_total", {"result": result}) == 1, "decided anew, written and counted")
        (inc,) = [e for e in incidents(api) if e["reason"] == "JobIncident"]
        assert doc(inc)["recovery"]["result"] == result and len(recoveries(api)) == 1
        if result == "restarted":
            wait_until(lambda: len(api.pods_deleted) == 3, "the gang deleted")
        later_rounds(second)
        assert total(first, second) == 1
        stack.close()
        third = stack.enter_context(controller(api, identity="c3", recovery=policy))
        wait_until(lambda: third.ready.is_set(), "synced")
        later_rounds(third, 3)
        assert total(first, second, third) == 1 and len(recoveries(api)) == 1
        assert len(api.pods_deleted) == (3 if result == "restarted" else 0)


def test_a_failed_restart_is_counted_once_its_incidents_close_is_written():
    """A restart that left pods not deleted is `failed` once its incident's close is written: a next leader finishes
    the restart of an incident still open (and counts its failure), not of one closed.  The close refused (503): not
    counted; written: counted once."""
    from kubernetes.client.rest import ApiException

    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])
        with controller(api, recovery=Policy(mode="enforce")) as c:
            wait_until(lambda: c.ready.is_set(), "synced")

            def refused(name, ns, **kw):  # the decision is written (no pod is deleted before): its close is refused
                api.set_fault(refuse=("PATCH", "/namespaces/train/events/[^/]+", 503, "ServiceUnavailable",
                                      "down (the double)"))
                raise ApiException(status=403, reason="Forbidden")

            c.core.delete_namespaced_pod = refused
            publish_xid(api)
            publish_timeouts(api)
            wait_until(lambda: [e for e in recoveries(api) if "not deleted" in e["message"]], "the failure's Event")
            later_rounds(c, 3)
            get = c.metrics.registry.get_sample_value
            assert get("gpu_npd_recoveries_total", {"result": "failed"}) == 0
            assert [doc(e)["state"] for e in incidents(api) if e["reason"] == "JobIncident"] == ["open"]
            api.set_fault()
            wait_until(lambda: get("gpu_npd_recoveries_total", {"result": "failed"}) == 1, "counted once written")
            assert [doc(e)["state"] for e in incidents(api) if e["reason"] == "JobIncident"] == ["closed"]
            later_rounds(c)
            assert get("gpu_npd_recoveries_total", {"result": "failed"}) == 1
            assert get("gpu_npd_recoveries_total", {"result": "restarted"}) == 1


def test_a_decision_whose_event_the_server_refused_is_counted_by_no_one_and_not_kept():
    """The incident's Event refused for good (its namespace being deleted: the recorder drops it): no leader restores
    that decision, none counts it, and the count waiting on it is not kept (bounded by what can still be written)."""
    from cluster.controller import REASON, Controller, Settings
    from kubeapi.client import make_api
    from kubeapi.events import Ref

    with ApiDouble() as api:
        s = Settings(api_server=api.url, identity="c1")
        c = Controller(make_api(s), s)
        ref = Ref("JobSet", "llm", "train", "uid-llm", "jobset.x-k8s.io/v1alpha2")
        c.recorder.record(ref, REASON, "opened", key="i-1")
        c.count_when_written("i-1", "observed", ref, c.metrics.recoveries.labels("observed"))
        c.count_written()
        assert c.uncounted  # not written yet: kept
        from kubernetes.client.rest import ApiException

        class Terminating:  # the namespace being deleted: 403, dropped (kubeapi.events EventRecorder.flush)
            def create_namespaced_event(self, ns, body, **_):
                raise ApiException(status=403, reason="Forbidden")

        c.recorder.flush(Terminating(), 5)
        c.count_written()
        assert not c.uncounted
        assert c.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "observed"}) == 0


def gang_deleting(api: ApiDouble):
    """The restart under way of `gang`'s 4 pods, its decision written without a mark (Controller.restarted: nothing
    more to close)."""
    from collections import deque

    from cluster.controller import Change, Deleting, Open
    from cluster.owners import job_of

    change = Change("opened", job_of(api.pods[("train", "llm-w-0-0")]), Open("i-1", 1, 0.0, "f", "e"), None)
    return Deleting(change, deque(("train", f"llm-w-0-{i}", "") for i in range(4)))


def test_a_controller_that_stopped_leading_deletes_no_more_pods():
    """A restart's deletions under way when the Lease is lost (or on SIGTERM) stop: only the leader acts."""
    from cluster.controller import Controller, Settings
    from kubeapi.client import make_api

    with ApiDouble() as api:
        gang(api)
        s = Settings(api_server=api.url, identity="c1")
        c = Controller(make_api(s), s)
        d = gang_deleting(api)
        c.deleting["i-1"] = d
        c.stop.set()  # the Lease lost
        c.delete_pods("i-1", d)
        assert api.pods_deleted == []


@pytest.mark.parametrize("skew", [0.0, 60.0, -60.0])
def test_a_restart_cut_short_by_a_lost_lease_is_finished_by_the_next_leader(skew):
    """The leader deleted one of the gang's three opted-in pods and lost its Lease.  Was: the next leader found the
    decision written and did nothing: two members left running beside the recreated one, the restart partial.  Now it
    deletes the opted-in pods the decision chose (those left), not the one the owner recreated since, and decides
    nothing again (one decision, one `restarted`).  Whatever the controllers' clocks say (`skew` seconds off the API
    server's): was, the pods created before the decision's time on the controller's clock, less 5 s: 60 s ahead,
    the recreated pod was deleted too; 60 s behind, the gang created 10 s before was left.  Now the decision's mark
    is the API server's creationTimestamp of the newest pod it chose."""
    with ApiDouble() as api:
        gang(api)
        created = datetime.fromtimestamp(time.time() - 10, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        for i in range(4):
            api.pods[("train", f"llm-w-0-{i}")]["metadata"]["creationTimestamp"] = created  # 10 s ago (server)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"])

        def clock():
            return time.time() + skew

        with controller(api, recovery=Policy(mode="enforce"), clock=clock) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            real = c.core.delete_namespaced_pod

            def then_lost(name, ns, **kw):
                out = real(name, ns, **kw)
                c.stop.set()  # the Lease lost right after the first delete
                return out

            c.core.delete_namespaced_pod = then_lost
            deleting, returned = c.delete_pods, threading.Event()
            c.delete_pods = lambda *a: (deleting(*a), returned.set())[0]  # (the loop stops after this round)
            publish_xid(api)
            publish_timeouts(api)
            wait_until(lambda: len(api.pods_deleted) == 1, "the first pod deleted")
            wait_until(returned.is_set, "the round's deletions over")
            assert len(api.pods_deleted) == 1
        (first,) = [n for _, n in api.pods_deleted]
        (written,) = [doc(e)["recovery"] for e in incidents(api) if e["reason"] == "JobIncident"]
        assert written["created"] == datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=timezone.utc).timestamp()  # the API server's time, whatever the controller's clock
        assert written["uids"] == ["uid-llm-w-0-0", "uid-llm-w-0-1", "uid-llm-w-0-2"]
        recreate(api, [first])
        with controller(api, identity="c2", recovery=Policy(mode="enforce"), clock=clock) as c2:
            wait_until(lambda: len(api.pods_deleted) == 3, "the next leader finishes the restart")
            later_rounds(c2)
            assert sorted(n for _, n in api.pods_deleted) == ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2"]
            assert ("train", first) in api.pods and ("train", "llm-w-0-3") in api.pods
            assert api.pods[("train", first)]["metadata"]["uid"] == f"uid-{first}-again"  # the recreated pod stays
            assert len(recoveries(api)) == 1 and not c2.pending
            assert c2.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "restarted"}) == 0


def test_a_restarts_mark_tells_the_pods_it_chose_from_those_created_since_in_the_same_second():
    """creationTimestamp has whole seconds: a pod the owner recreated in the second of the newest pod the decision
    chose is told apart by its uid (recorded for that second only); a 10,000-pod gang's mark stays small (the uids of
    one second; none past MARK_UIDS: every pod created in that second is then taken for one chosen)."""
    from cluster.book import Book
    from cluster.controller import MARK_UIDS, chosen

    def pod(name: str, uid: str, created: str) -> dict:
        return {"metadata": {"namespace": "train", "name": name, "uid": uid, "creationTimestamp": created,
                             "labels": {JOB_LABEL: "llm", OPT_IN: "true"}}, "spec": {"nodeName": "node-a"}}

    book = Book()
    for i in range(10_000):  # w-i created at 12:(i // 1000):(i % 60)
        book.pod(pod(f"w-{i}", f"u-{i}", f"2026-11-29T12:{i // 1000:02d}:{i % 60:02d}Z"), 0.0)
    (key,) = book.jobs
    created, uids = book.mark(book.opted_in(key), MARK_UIDS)
    assert created == datetime(2026, 11, 29, 12, 9, 59, tzinfo=timezone.utc).timestamp()
    assert uids == sorted(f"u-{i}" for i in range(9059, 10_000, 60))  # the 16 created in 12:09:59
    mark = chosen({"result": "restarted", "at": 0.0, "created": created, "uids": uids})
    book.pod(pod("w-9959", "u-9959-again", "2026-11-29T12:09:59Z"), 0.0)  # recreated in that second
    book.pod(pod("w-9998", "u-9998-again", "2026-11-29T12:10:00Z"), 0.0)  # recreated a second later
    left = book.opted_in(key, mark)
    assert len(left) == 9_998 and ("train", "w-9899", "u-9899") in left and ("train", "w-0", "u-0") in left
    assert not {("train", "w-9959", "u-9959-again"), ("train", "w-9998", "u-9998-again")} & set(left)
    assert chosen({"result": "restarted", "at": 1.0}) is None  # an older version's decision: no mark

    same = Book()  # 10,000 pods created in one second: no uids (the annotation's 256 KB), that second's all chosen
    for i in range(10_000):
        same.pod(pod(f"w-{i}", f"u-{i}", "2026-11-29T12:00:00Z"), 0.0)
    (key,) = same.jobs
    created, uids = same.mark(same.opted_in(key), MARK_UIDS)
    assert uids is None and len(same.opted_in(key, chosen({"created": created}))) == 10_000
    assert len(json.dumps([f"{n:08x}-0000-4000-8000-000000000000" for n in range(MARK_UIDS)])) < 25_000


def test_a_restart_written_without_a_mark_is_not_finished_by_the_clock(caplog):
    """A decision an older version wrote ({"result", "at"} alone): only the controller's clock would tell the pods it
    chose from those recreated since, so the next leader deletes none and says so."""
    from types import SimpleNamespace

    from cluster.controller import Controller, Settings, chosen
    from kubeapi.client import make_api

    with ApiDouble() as api:
        gang(api)
        s = Settings(api_server=api.url, identity="c1")
        c = Controller(make_api(s), s)
        change = SimpleNamespace(job=SimpleNamespace(owner=SimpleNamespace(kind="JobSet"), name="llm", key=("x",)),
                                 open=SimpleNamespace(id="i-1"))
        c.finish(change, chosen({"result": "restarted", "at": time.time()}))
        assert not c.deleting and "records no mark" in caplog.text


def test_a_large_gangs_pods_are_deleted_over_rounds_of_the_loop(monkeypatch):
    """A 10,000-pod job's restart does not hold the loop (the watches' queue, the incidents) for 10,000 requests: at
    most DELETES_PER_ROUND a round, the rest on the next rounds."""
    import cluster.controller as controller_module
    from cluster.controller import Controller, Settings
    from kubeapi.client import make_api

    monkeypatch.setattr(controller_module, "DELETES_PER_ROUND", 3)
    with ApiDouble() as api:
        gang(api)
        s = Settings(api_server=api.url, identity="c1")
        c = Controller(make_api(s), s)
        d = gang_deleting(api)
        c.deleting["i-1"] = d
        c.delete_pods("i-1", d)
        assert len(api.pods_deleted) == 3 and "i-1" in c.deleting
        c.recover_jobs()  # the next round
        assert len(api.pods_deleted) == 4 and not c.deleting


def test_a_restart_the_rate_limit_held_is_decided_by_the_next_leader():
    """A leader whose cluster-wide rate limit held a job's restart (a switch failure breaking more jobs than the
    limit a minute) and that then stopped wrote the incident with no decision: the next leader decides it."""
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1"])
        with controller(api, recovery=Policy(mode="enforce")) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            c.recovery.bucket.rate, c.recovery.bucket.tokens = 0.0, 0.0  # spent on other jobs
            publish_xid(api)
            publish_timeouts(api)
            wait_until(lambda: any(e["reason"] == "JobIncident" and e["count"] >= 1 for e in incidents(api)),
                       "the incident")
            later_rounds(c)
            assert api.pods_deleted == [] and recoveries(api) == [] and c.pending
        with controller(api, identity="c2", recovery=Policy(mode="enforce")):
            wait_until(lambda: len(api.pods_deleted) == 2, "the next leader restarts the job")
            assert len([e for e in incidents(api) if e["reason"] == "JobIncident"]) == 1


def tenant_gang(api: ApiDouble, namespace: str, name: str) -> None:
    """A JobSet of `namespace` whose 4 opted-in worker pods run on node-a..d (as test_cluster's `gang`)."""
    from test_cluster import NODES

    store = api.stores.get(("jobset.x-k8s.io", "jobsets")) or api.serve("jobset.x-k8s.io", "v1alpha2", "jobsets",
                                                                        "JobSet")
    store[(namespace, name)] = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                                "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}"}}
    for i, node in enumerate(NODES):
        if node not in api.nodes:
            api.add_node(node)
        p = api.add_pod(namespace, f"{name}-w-0-{i}", node, gpus=8)
        p["metadata"]["uid"] = f"uid-{namespace}-{name}-{i}"
        p["metadata"]["labels"] = {"jobset.sigs.k8s.io/jobset-name": name, "batch.kubernetes.io/job-name": f"{name}-w-0",
                                   OPT_IN: "true"}
        p["metadata"]["creationTimestamp"] = "2024-07-25T06:00:00Z"
        api.pods.touch((namespace, p["metadata"]["name"]))


def publish_assert(api: ApiDouble, namespace: str, name: str) -> None:
    """The node agent's Pod Event for rank 0 of tenant job `name` (its pod on node-a) reading DEVICE_ASSERT: a fault
    of the tenant's own (application)."""
    from kubeapi.client import make_api
    from test_cluster import agent_fact_events

    from cluster.controller import Settings

    (ev,) = agent_fact_events("node-a", f"{name}-w-0-0", [DEVICE_ASSERT])
    body = {k: v for k, v in ev.items() if k != "metadata"}
    body["involvedObject"] = {**body["involvedObject"], "namespace": namespace, "uid": f"uid-{namespace}-{name}-0"}
    body["metadata"] = {"name": f"{name}-w-0-0.assert", "namespace": namespace}
    make_api(Settings(api_server=api.url)).create_namespaced_event(namespace, body)


def test_a_namespaces_fourth_restart_is_refused_another_namespaces_goes_on_and_a_next_leader_counts_them():
    """A CUDA assert of its own in five opted-in jobs, four of namespace `sweep`, one of `other`, with a namespace
    budget of 3: three of sweep's jobs and other's are restarted, sweep's fourth is refused (its Event says why, its
    own result).  The next leader counts sweep's three restarts from their incidents' Events (the decision's
    `category`), as it counts a job's: a new job of sweep failing alike is refused too (was, with nothing but the
    job's budget: restarted), and the incident refused before is not decided again.  An Xid 79 under a job of sweep
    then, a node's fault, is restarted all the same: the namespace's budget bounds the tenant's own faults."""
    import contextlib

    policy = Policy(mode="enforce", namespace_budget=3)
    deleted = lambda ns: {n.rsplit("-w-", 1)[0] for s, n in api.pods_deleted if s == ns}  # noqa: E731
    with ApiDouble() as api, contextlib.ExitStack() as stack:
        for name in ("a", "b", "c", "d"):
            tenant_gang(api, "sweep", name)
        tenant_gang(api, "other", "x")
        c = stack.enter_context(controller(api, recovery=policy))
        wait_until(lambda: c.ready.is_set(), "synced")
        for name in ("a", "b", "c", "d"):
            publish_assert(api, "sweep", name)
        publish_assert(api, "other", "x")
        wait_until(lambda: len(api.pods_deleted) == 16, "four jobs restarted")
        wait_until(lambda: len(recoveries(api)) == 5, "five decisions")
        later_rounds(c)
        assert len(api.pods_deleted) == 16 and len(deleted("sweep")) == 3 and deleted("other") == {"x"}
        (refused,) = [e for e in recoveries(api) if "did not restart" in e["message"]]
        assert refused["involvedObject"]["namespace"] == "sweep"
        assert "3 restarts of jobs in namespace sweep within 3600 s already (namespace budget 3)" in refused["message"]
        assert {d["recovery"]["category"] for d in restarted_incidents(api)} == {"application"}
        get = c.metrics.registry.get_sample_value
        assert get("gpu_npd_recoveries_total", {"result": "namespace_budget_exhausted"}) == 1
        assert get("gpu_npd_recoveries_total", {"result": "restarted"}) == 4
        stack.close()  # a leader change: the next one knows the restarts from the incidents' Events alone
        tenant_gang(api, "sweep", "e")
        c = stack.enter_context(controller(api, identity="c2", recovery=policy))
        wait_until(lambda: c.ready.is_set(), "synced")
        publish_assert(api, "sweep", "e")
        wait_until(lambda: any(e["involvedObject"]["name"] == "e" for e in recoveries(api)), "job e decided")
        later_rounds(c)
        assert len(api.pods_deleted) == 16
        (e,) = [e for e in recoveries(api) if e["involvedObject"]["name"] == "e"]
        assert "namespace budget 3" in e["message"]
        assert len([e for e in recoveries(api) if "did not restart" in e["message"]]) == 2
        assert c.metrics.registry.get_sample_value("gpu_npd_recoveries_total",
                                                   {"result": "namespace_budget_exhausted"}) == 1
        tenant_gang(api, "sweep", "f")
        wait_until(lambda: ("sweep", "f-w-0-3") in c.book.pods, "job f seen")
        publish_xid(api, "node-c")  # a node's fault under f (and under d and e, whose incidents are decided)
        wait_until(lambda: "f" in deleted("sweep"), "job f restarted though sweep's budget is spent")
        (f,) = [e for e in recoveries(api) if e["involvedObject"]["name"] == "f"]
        assert "restarted job JobSet/f" in f["message"] and "hardware (node_fault, xid)" in f["message"]


def test_a_next_leader_leaves_a_nodes_restarts_out_of_the_namespaces_budget():
    """The controller hands a decision's `category`, as the Event wrote it, to the next leader's count (Recovery.restore):
    job a of sweep restarted for an Xid 79 under it (hardware), then a leader change; with a namespace budget of 1, the
    next leader restarts job b for sweep's own fault (the budget unspent: a node's restart is not counted in it).  Was
    untested: a controller restoring the decision without its category counted a's restart, and refused b."""
    import contextlib

    policy = Policy(mode="enforce", namespace_budget=1)
    deleted = lambda ns: {n.rsplit("-w-", 1)[0] for s, n in api.pods_deleted if s == ns}  # noqa: E731
    with ApiDouble() as api, contextlib.ExitStack() as stack:
        tenant_gang(api, "sweep", "a")
        c = stack.enter_context(controller(api, recovery=policy))
        wait_until(lambda: c.ready.is_set(), "synced")
        publish_xid(api)
        wait_until(lambda: deleted("sweep") == {"a"}, "job a restarted")
        wait_until(lambda: [d["recovery"]["category"] for d in restarted_incidents(api)] == ["hardware"], "written")
        stack.close()  # a leader change: the next one knows a's restart from its incident's Event alone
        tenant_gang(api, "sweep", "b")
        api.add_node("node-e")  # b's second worker not on node-b: the Xid 79 there explains nothing of b
        api.pods[("sweep", "b-w-0-1")]["spec"]["nodeName"] = "node-e"
        api.pods.touch(("sweep", "b-w-0-1"))
        c = stack.enter_context(controller(api, identity="c2", recovery=policy))
        wait_until(lambda: c.ready.is_set(), "synced")
        publish_assert(api, "sweep", "b")
        wait_until(lambda: any(e["involvedObject"]["name"] == "b" for e in recoveries(api)), "job b decided")
        (b,) = [e for e in recoveries(api) if e["involvedObject"]["name"] == "b"]
        assert "restarted job JobSet/b" in b["message"] and "application" in b["message"], b["message"]


GANG = ("llm-w-0-0", "llm-w-0-1", "llm-w-0-2", "llm-w-0-3")


# real line: tests/fixtures/incidents/mgsv-2-oomkilled (xxayt/MGSV #2), torchrun's word for its rank SIGKILLed, as an
# old pod's torchrun says it when the kubelet kills the rank at the deletion's grace period's end
KILLED = ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 178) of "
          "binary: /root/miniconda3/envs/MGSV_env/bin/python")


def publish(api: ApiDouble, events: list[dict], tag: str, incarnation: str = "") -> None:
    """Agents' Pod Events, about the pods of one incarnation (their uids end in `incarnation`: "" the first, "-again"
    the one the owner recreated, as `recreate` names them), stamped now; `tag`: Events of their own."""
    from kubeapi.client import make_api

    from cluster.controller import Settings

    core = make_api(Settings(api_server=api.url))
    for ev in events:
        body = {k: v for k, v in ev.items() if k != "metadata"}
        pod = body["involvedObject"]["name"]
        body["involvedObject"] = {**body["involvedObject"], "uid": f"uid-{pod}{incarnation}"}
        body["metadata"] = {"name": f"{pod}.{ev['metadata']['name']}{tag}", "namespace": "train"}
        core.create_namespaced_event("train", body)


def publish_timeouts_of(api: ApiDouble, incarnation: str, tag: str) -> None:
    """The agents' Events of every rank of the gang timing out (test_cluster's TIMEOUT), about one incarnation."""
    from test_cluster import NODES, agent_pod_event

    publish(api, [agent_pod_event(node, f"llm-w-0-{i}", [i]) for i, node in enumerate(NODES)], tag, incarnation)


def publish_teardown(api: ApiDouble, tag: str) -> None:
    """What the old incarnation says as it is torn down: its ranks' watchdog timeouts, and a rank torchrun saw killed
    (a rank's death, a fatal verdict were it the job's evidence)."""
    from test_cluster import agent_fact_events

    publish_timeouts_of(api, "", tag)
    publish(api, agent_fact_events("node-b", "llm-w-0-1", [KILLED]), tag)


def seen_after(c, api: ApiDouble, publish_them) -> None:
    """Publish Events, then wait until the controller's watch has delivered as many Events as the store gained (its
    own included) and two more rounds of its loop have ended: they were decided on."""
    count = lambda: c.metrics.registry.get_sample_value(  # noqa: E731
        "gpu_npd_cluster_objects_total", {"resource": "events"}) or 0.0
    seen, before = count(), len(api.events())
    publish_them()
    added = len(api.events()) - before
    wait_until(lambda: count() >= seen + added, "the Events seen")
    later_rounds(c)


def restarted_incidents(api: ApiDouble) -> list[dict]:
    return [d for d in map(doc, (e for e in incidents(api) if e["reason"] == "JobIncident"))
            if d.get("recovery", {}).get("result") == "restarted"]


@pytest.mark.parametrize("leader_change", [False, True])
def test_a_fault_in_the_recreated_gang_is_restarted_and_the_old_gangs_teardown_is_not(leader_change):
    """After a restart the owner recreates the gang; a fault of the new incarnation (an Xid 79 on another node, the
    new pods' ranks timing out) is the job's next incident, decided on its own: restarted again, restart 2 of the
    budget's 3 (was: folded into the first incident, which stays open for --idle and is decided once, so the new gang
    hung in NCCL until its watchdog).  What the old incarnation's pods say after the restart (their ranks' watchdog
    lines as they are torn down, before and after the owner recreated pods of the same names) is not the job's
    evidence: no second restart for it.  The same across a leader change (`leader_change`): the next leader tells
    the old pods from the new by the first incident's mark, and counts its restart in the budget."""
    import contextlib

    with ApiDouble() as api, contextlib.ExitStack() as stack:
        gang(api)
        opt_in(api, list(GANG))
        c = stack.enter_context(controller(api, recovery=Policy(mode="enforce")))
        wait_until(lambda: c.ready.is_set(), "synced")
        publish_xid(api)
        publish_timeouts(api)
        wait_until(lambda: len(api.pods_deleted) == 4, "the first restart")
        wait_until(lambda: [d["state"] for d in restarted_incidents(api)] == ["closed"], "the restarted incident closed")
        seen_after(c, api, lambda: publish_teardown(api, "-teardown"))
        if leader_change:
            stack.close()  # this leader stops; the next one knows the old gang only from the incident's Event
        recreate(api, list(GANG), GANG)
        if leader_change:
            c = stack.enter_context(controller(api, identity="c2", recovery=Policy(mode="enforce")))
            wait_until(lambda: c.ready.is_set(), "synced")
        seen_after(c, api, lambda: publish_teardown(api, "-late"))  # late, now that pods of their names run again
        assert len(api.pods_deleted) == 4 and len(recoveries(api)) == 1
        assert [d["state"] for d in restarted_incidents(api)] == ["closed"]
        publish_xid(api, "node-c")  # the new incarnation's fault
        publish_timeouts_of(api, "-again", "-2")
        wait_until(lambda: len(api.pods_deleted) == 8, "the second restart")
        assert sorted(n for _, n in api.pods_deleted[4:]) == list(GANG)
        wait_until(lambda: len(recoveries(api)) == 2, "the second recovery Event")
        assert any("restart 2 of 3" in e["message"] for e in recoveries(api))
        first, second = sorted(restarted_incidents(api), key=lambda d: d["seq"])
        assert first["incident"]["root"]["host"] == "node-b" and second["incident"]["root"]["host"] == "node-c"
        assert second["recovery"]["created"] > first["recovery"]["created"]
        later_rounds(c)
        assert len(api.pods_deleted) == 8


def test_a_fault_on_a_member_the_restart_left_running_is_the_next_incident_and_restarted():
    """llm-w-0-3 has no opt-in: the restart leaves it running, and it goes on into the owner's next incarnation.  Its
    watchdog timeout as the gang is torn down (a consequence), and the deleted pods' own, restart nothing; an Xid 79
    on its node after the restart is the job's next incident, restarted by the policy ("restart 2 of 3"), its pod
    still not touched (was: its every later fault the old gang's for good: the Xid lost, the new gang left to hang
    until its watchdog)."""
    with ApiDouble() as api:
        gang(api)
        opt_in(api, list(GANG[:3]))
        with controller(api, recovery=Policy(mode="enforce")) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            publish_xid(api)
            publish_timeouts(api)
            wait_until(lambda: len(api.pods_deleted) == 3, "the first restart")
            wait_until(lambda: [d["state"] for d in restarted_incidents(api)] == ["closed"], "its incident closed")
            recreate(api, list(GANG[:3]))
            seen_after(c, api, lambda: publish_teardown(api, "-teardown"))  # w-0-3's timeout among them
            assert len(api.pods_deleted) == 3 and len(recoveries(api)) == 1
            publish_xid(api, "node-d")  # the survivor's node, after the restart
            wait_until(lambda: len(api.pods_deleted) == 6, "the second restart")
            assert sorted(n for _, n in api.pods_deleted[3:]) == list(GANG[:3])
            assert ("train", "llm-w-0-3") in api.pods and all(n != "llm-w-0-3" for _, n in api.pods_deleted)
            wait_until(lambda: len(recoveries(api)) == 2, "the second recovery Event")
            assert any("restart 2 of 3" in e["message"] for e in recoveries(api))
            second = max(restarted_incidents(api), key=lambda d: d["seq"])
            assert second["seq"] == 2 and second["incident"]["root"]["host"] == "node-d"


# real line: snowflakedb/ArcticTraining #219 (https://github.com/snowflakedb/ArcticTraining/issues/219, verbatim, as
# in tests/fixtures/realworld/nccl-pytorch-3.yaml): a rank's watchdog timeout, what a member left running says when
# its peers are deleted under it (a consequence, triage.is_consequence)
WATCHDOG = ("[rank2]:[E626 05:06:30.929096625 ProcessGroupNCCL.cpp:632] [Rank 2] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=120049, OpType=_ALLGATHER_BASE, NumelIn=16384000, NumelOut=131072000, "
            "Timeout(ms)=1800000) ran for 1800065 milliseconds before timing out.")


def test_after_a_restart_the_chosen_pods_add_nothing_and_a_survivors_own_fault_is_the_next_incident():
    """The Book after a restart (its decision's mark): the pods it chose add nothing; a member it did not delete (no
    opt-in) goes on into the next incarnation: what the teardown made it say (its watchdog timeout as its peers were
    deleted: a consequence) adds nothing, a fault of its own after the restart (its rank SIGKILLed) is the job's next
    incident (was: its every later fault the old gang's for good, lost); an Event about a pod of a uid not seen yet
    waits for that pod (cluster/book.py Book._pod_of): the owner's new pod, whose rank's death then joins the incident;
    the member's own fault read after it is deleted still counts (its tombstone keeps its opt-in, none)."""
    from test_cluster import agent_fact_events

    from cluster.book import Book
    from cluster.controller import MARK_UIDS, chosen

    def pod(name: str, uid: str, created: str, node: str, opted: bool) -> dict:
        labels = {JOB_LABEL: "llm", **({OPT_IN: "true"} if opted else {})}
        return {"metadata": {"namespace": "train", "name": name, "uid": uid, "creationTimestamp": created,
                             "labels": labels}, "spec": {"nodeName": node}}

    def said(name: str, node: str, uid: str, event_uid: str, at: str, line: str = KILLED) -> dict:
        (ev,) = agent_fact_events(node, name, [line])
        ev["involvedObject"]["uid"] = uid
        ev["metadata"]["uid"] = event_uid
        ev["firstTimestamp"] = ev["lastTimestamp"] = at  # the agent's clock
        return ev

    book = Book()
    book.pod(pod("w-0", "uid-w-0", "2026-11-29T12:00:00Z", "node-a", True), 0.0)
    book.pod(pod("w-1", "uid-w-1", "2026-11-29T12:00:00Z", "node-b", False), 0.0)
    book.event(said("w-0", "node-a", "uid-w-0", "e-1", "2026-11-29T12:01:00Z"), 1.0)
    (opened,) = book.settle(1.0)
    (key,) = book.jobs
    created, uids = book.mark(book.opted_in(key), MARK_UIDS)
    assert uids == ["uid-w-0"]
    (closed,) = book.restarted(key, chosen({"created": created, "uids": uids}), opened.open.id)
    assert closed.what == "closed" and book.jobs[key].open is None
    book.event(said("w-1", "node-b", "uid-w-1", "e-2", "2026-11-29T12:01:30Z", WATCHDOG), 2.0)  # the teardown's
    book.event(said("w-0", "node-a", "uid-w-0", "e-4", "2026-11-29T12:01:40Z"), 2.0)  # a chosen pod's, late
    book.event(said("w-0", "node-a", "uid-w-0-again", "e-3", "2026-11-29T12:06:00Z"), 2.0)  # its pod not seen yet
    assert book.settle(2.0) == []
    book.event(said("w-1", "node-b", "uid-w-1", "e-5", "2026-11-29T12:10:00Z"), 3.0)  # the survivor's own fault
    (again,) = book.settle(3.0)
    assert again.what == "opened" and again.open.seq == 2 and again.incident.root.host == "node-b"
    assert [e.kind for e in again.incident.evidence] == ["rank_exit"]  # not its watchdog timeout
    book.pod(pod("w-0", "uid-w-0-again", "2026-11-29T12:05:00Z", "node-a", True), 4.0)  # the owner's new pod
    (grown,) = book.settle(4.0)
    assert grown.what == "updated" and grown.open.seq == 2
    assert sorted(e.host for e in grown.incident.evidence) == ["node-a", "node-b"]  # its rank's death counts now
    book.pod(pod("w-1", "uid-w-1", "2026-11-29T12:00:00Z", "node-b", False), 5.0, deleted=True)
    book.event(said("w-1", "node-b", "uid-w-1", "e-6", "2026-11-29T12:12:00Z"), 5.0)  # read after its deletion
    (later,) = book.settle(5.0)  # its tombstone keeps its opt-in (none): still a member's own fault
    assert later.what == "updated" and len(later.incident.evidence) == 3


def test_an_event_of_another_pod_of_that_name_saying_no_time_is_never_the_kept_pods():
    """An Event about a pod of the kept pod's name and another uid, with no creation time to tell an earlier pod's from
    a later one's (cluster/book.py Book._pod_of), waits (bounded) rather than being dropped: it is never the kept pod's,
    however often that pod is seen again, and it is the pod of its uid's once that is seen (the Events watch ahead of
    the pods': dropping it would lose the new pod's evidence)."""
    from test_cluster import agent_fact_events

    from cluster.book import Book

    def pod(uid: str, created: str) -> dict:
        return {"metadata": {"namespace": "train", "name": "w-0", "uid": uid, "creationTimestamp": created,
                             "labels": {JOB_LABEL: "llm"}}, "spec": {"nodeName": "node-a"}}

    (ev,) = agent_fact_events("node-a", "w-0", [KILLED])
    ev["involvedObject"]["uid"] = "uid-w-0-again"
    assert "creationTimestamp" not in ev["metadata"]
    book = Book()
    book.pod(pod("uid-w-0", "2026-11-29T12:00:00Z"), 0.0)
    book.event(ev, 1.0)
    assert book.settle(1.0) == []
    book.pod({**pod("uid-w-0", "2026-11-29T12:00:00Z"), "status": {"phase": "Running"}}, 2.0)  # seen again
    assert book.settle(2.0) == [] and book.counts()["waiting_events"] == 1
    assert all(not state.events for state in book.jobs.values())
    book.pod(pod("uid-w-0-again", "2026-11-29T12:05:00Z"), 3.0)  # the pod of its uid
    (opened,) = book.settle(3.0)
    assert opened.what == "opened" and [e.kind for e in opened.incident.evidence] == ["rank_exit"]
    assert book.counts()["waiting_events"] == 0


def test_a_job_forgotten_between_its_gangs_keeps_its_restart_so_the_old_pods_late_events_add_nothing():
    """The restart deleted every pod of the job and the owner has not recreated one yet: the Book forgets the job
    (no pods, no evidence).  An old pod's Event read then, kept until a pod of its name is seen, is still the torn
    down incarnation's once the owner's new pod of that name runs (was: the forgotten job came back without its
    restart's mark, the old pod's rank death opened incident 2, and the new gang was restarted for it)."""
    from test_cluster import agent_fact_events

    from cluster.book import Book
    from cluster.controller import MARK_UIDS, chosen

    def pod(uid: str, created: str) -> dict:
        return {"metadata": {"namespace": "train", "name": "w-0", "uid": uid, "creationTimestamp": created,
                             "labels": {JOB_LABEL: "llm", OPT_IN: "true"}}, "spec": {"nodeName": "node-a"}}

    def killed(uid: str, event_uid: str, at: str) -> dict:
        (ev,) = agent_fact_events("node-a", "w-0", [KILLED])
        ev["involvedObject"]["uid"] = uid
        ev["metadata"]["uid"] = event_uid
        ev["firstTimestamp"] = ev["lastTimestamp"] = at  # the agent's clock
        return ev

    book = Book()
    book.pod(pod("uid-w-0", "2026-11-29T12:00:00Z"), 0.0)
    book.event(killed("uid-w-0", "e-1", "2026-11-29T12:01:00Z"), 1.0)
    (opened,) = book.settle(1.0)
    (key,) = book.jobs
    created, uids = book.mark(book.opted_in(key), MARK_UIDS)
    book.restarted(key, chosen({"created": created, "uids": uids}), opened.open.id)
    assert book.settle(2.0) == []
    book.pod(pod("uid-w-0", "2026-11-29T12:00:00Z"), 3.0, deleted=True)
    assert book.settle(4.0) == [] and key not in book.jobs  # forgotten until a pod of it is seen
    book.event(killed("uid-w-0", "e-2", "2026-11-29T12:02:00Z"), 5.0)  # the old rank's death, read late
    book.pod(pod("uid-w-0-again", "2026-11-29T12:05:00Z"), 6.0)  # the owner's new pod of that name
    assert book.settle(7.0) == []
    book.event(killed("uid-w-0-again", "e-3", "2026-11-29T12:06:00Z"), 8.0)  # the new incarnation's own fault
    (again,) = book.settle(9.0)
    assert again.what == "opened" and again.open.seq == 2


def test_observe_writes_would_restart_and_deletes_nothing():
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1"])
        publish_xid(api)
        publish_timeouts(api)
        with controller(api) as c:
            (ev,) = wait_until(lambda: recoveries(api), "the observe Event")
            assert "would restart job JobSet/llm (delete its 2 opted-in pod(s)" in ev["message"]
            later_rounds(c)
            assert api.pods_deleted == []
            assert c.metrics.registry.get_sample_value("gpu_npd_recoveries_total", {"result": "observed"}) == 1
            lines = [json.loads(x) for x in c.out_text.getvalue().splitlines()]
            assert lines


def test_an_owners_opt_in_is_honoured_when_discovery_met_a_transient_api_error():
    """The owner kinds are found by discovery when the controller starts leading.  A 503 from the API server then (it
    restarting, the very moment a standby takes over) is not "not served": the controller asks again, watches the
    JobSets, and sees the JobSet's opt-in label (was: the JobSets never watched for the controller's life, the owner's
    opt-in, uid and deletion unseen, and no decision).  A 404 still means not served (its pods grouped by labels)."""
    with ApiDouble() as api:
        gang(api)
        api.stores[("jobset.x-k8s.io", "jobsets")][("train", "llm")]["metadata"]["labels"] = {OPT_IN: "true"}
        publish_xid(api)
        publish_timeouts(api)
        api.set_fault(refuse=("GET", r"/apis/jobset\.x-k8s\.io/v1alpha2", 503, "ServiceUnavailable",
                              "the server is currently unable to handle the request"), seconds=3)
        with controller(api) as c:
            (ev,) = wait_until(lambda: recoveries(api), "the observe Event", timeout=15)
            assert "would restart job JobSet/llm (delete its 4 opted-in pod(s)" in ev["message"]
            assert "owner:JobSet.jobset.x-k8s.io" in c.owner_kinds
            assert "owner:LeaderWorkerSet.leaderworkerset.x-k8s.io" not in c.owner_kinds  # 404: not served


@pytest.mark.parametrize("answer", [b"[]", b'{"resources": [null, "jobsets"]}', b'{"resources": {"name": "x"}}',
                                    b'"APIResourceList"'])
def test_a_discovery_answer_of_another_shape_is_not_served_and_raises_nothing(answer, caplog):
    """SYNTHETIC answers: a discovery answer that is JSON but no APIResourceList (a list, a string, resources that are
    not objects; a proxy's, a broken aggregated API server's) says its kinds are not served, logged: as unreadable JSON
    does (was: AttributeError out of served_owner_kinds, the leader's start failing on it)."""
    from types import SimpleNamespace

    from cluster.controller import Controller

    class Custom:
        def get_api_resources(self, group, version, **_):
            return SimpleNamespace(data=answer)

    c = SimpleNamespace(custom=Custom(), stop=threading.Event(), s=SimpleNamespace(max_backoff=1.0, request_timeout=1.0))
    assert Controller.served_owner_kinds(c) == []
    assert "unreadable (not an APIResourceList)" in caplog.text


def deleted_by_owner(api: ApiDouble, name: str, code: int, finished: str, requested: str = "2024-07-25T07:00:02Z",
                     grace: int = 30, seen_running: bool = True) -> None:
    """SYNTHETIC pod status, as the API server and kubelet write it for a pod deleted through the API (its owner's
    restart, a Kueue preemption, a user), in their two updates: the API server's (deletionTimestamp = the request +
    deletionGracePeriodSeconds, its container still running), then the kubelet's (its container ended: SIGTERM
    handled, torchrun exits 1, or not, 143; SIGKILL at the grace period's end, 137).  `seen_running` False: the two
    in one update, as a controller that was not watching then (restarted, relisting) sees them."""
    p = api.pods[("train", name)]
    at = datetime.fromisoformat(requested.replace("Z", "+00:00")).timestamp() + grace
    p["metadata"].update(deletionTimestamp=datetime.fromtimestamp(at, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                         deletionGracePeriodSeconds=grace)
    status = {"name": "main", "image": "trainer:1", "imageID": "", "ready": False, "restartCount": 0}
    if seen_running:
        p["status"] = {"phase": "Running", "containerStatuses": [
            {**status, "state": {"running": {"startedAt": "2024-07-25T06:00:05Z"}}}]}
        api.pods.touch(("train", name))
    p["status"] = {"phase": "Failed", "containerStatuses": [{**status, "state": {
        "terminated": {"exitCode": code, "reason": "Error", "finishedAt": finished}}}]}
    api.pods.touch(("train", name))


def died(api: ApiDouble, name: str, code: int, finished: str, reason: str = "Error") -> None:
    """SYNTHETIC: the kubelet's update of a pod whose container ended by itself (no deletion asked yet)."""
    p = api.pods[("train", name)]
    p["status"] = {"phase": "Failed", "containerStatuses": [{
        "name": "main", "image": "trainer:1", "imageID": "", "ready": False, "restartCount": 0,
        "state": {"terminated": {"exitCode": code, "reason": reason, "finishedAt": finished}}}]}
    api.pods.touch(("train", name))


def test_pods_their_owner_deletes_are_no_rank_death_and_no_restart():
    """A JobSet restarting itself, Kueue preempting it, a user deleting it: the pods are deleted through the API (no
    DisruptionTarget condition) and their containers end after the request: torchrun handling SIGTERM exits 1, a rank
    that outlives the grace period is SIGKILLed (137).  Those exits are the deletion's, not a rank's death: no incident,
    and no opted-in pod deleted (was: "rank .. died first (exit code 1)", a fatal verdict, and in enforce mode
    gpu-npd restarting the gang the owner was restarting)."""
    with ApiDouble() as api:
        gang(api)
        opt_in(api, ["llm-w-0-0", "llm-w-0-1", "llm-w-0-2", "llm-w-0-3"])
        with controller(api, recovery=Policy(mode="enforce")) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            seen = pods_seen(c)
            deleted_by_owner(api, "llm-w-0-0", 1, "2024-07-25T07:00:03Z")
            deleted_by_owner(api, "llm-w-0-1", 1, "2024-07-25T07:00:02Z")  # in the request's second
            deleted_by_owner(api, "llm-w-0-2", 137, "2024-07-25T07:00:32Z")
            deleted_by_owner(api, "llm-w-0-3", 143, "2024-07-25T07:00:00Z")  # its node's clock 2 s behind
            wait_until(lambda: pods_seen(c) >= seen + 8, "the deletions seen")
            later_rounds(c)
            assert incidents(api) == [] and api.pods_deleted == []


def pods_seen(c) -> float:
    return c.metrics.registry.get_sample_value("gpu_npd_cluster_objects_total", {"resource": "pods"}) or 0.0


def test_a_rank_that_died_before_its_owner_deleted_the_gang_is_its_death_whatever_the_clocks():
    """A JobSet's failurePolicy after one rank's crash: the rank exits 1, the owner deletes the gang, the others end
    by the deletion.  The controller saw the culprit ended before its pod's deletion was asked (the watch's order),
    so it is its rank's death even though its node's clock, a second ahead, stamps its finishedAt after the request
    (was: read as the deletion's, the culprit gone and no incident)."""
    with ApiDouble() as api:
        gang(api)
        with controller(api) as c:
            wait_until(lambda: c.ready.is_set(), "synced")
            seen = pods_seen(c)
            died(api, "llm-w-0-1", 1, "2024-07-25T07:00:03Z")
            for name in ("llm-w-0-0", "llm-w-0-2", "llm-w-0-3"):
                deleted_by_owner(api, name, 1, "2024-07-25T07:00:04Z")
            deleted_by_owner(api, "llm-w-0-1", 1, "2024-07-25T07:00:03Z", seen_running=False)
            wait_until(lambda: pods_seen(c) >= seen + 8, "the deletions seen")
            wait_until(lambda: incidents(api), "the culprit's incident")
            texts = [json.dumps(doc(e)) for e in incidents(api)]
            assert any("llm-w-0-1" in t and "exit code 1" in t for t in texts)
            assert not any(f"llm-w-0-{i} terminated" in t for t in texts for i in (0, 2, 3))


def test_a_container_that_ended_before_its_pod_was_deleted_is_still_a_rank_death():
    """The culprit of a gang its owner then deletes (a JobSet's failurePolicy after one rank's crash) died before the
    deletion was asked: still its rank's death; the others, ended by the deletion, are not read."""
    from cluster.evidence import Reader
    def pod(code, finished):
        return {"metadata": {"name": "w", "deletionTimestamp": "2024-07-25T07:00:32Z", "deletionGracePeriodSeconds": 30},
                "spec": {"nodeName": "node-a"}, "status": {"containerStatuses": [{"name": "main", "state": {
                    "terminated": {"exitCode": code, "reason": "Error", "finishedAt": finished}}}]}}
    assert [(e.kind, e.signal) for e in Reader().pod_exits(pod(139, "2024-07-25T07:00:01Z"))] == [("rank_exit", 11)]
    assert Reader().pod_exits(pod(137, "2024-07-25T07:00:32Z")) == []
    assert Reader().pod_exits(pod(1, "2024-07-25T07:00:04Z")) == []
    no_grace = pod(137, "2024-07-25T07:00:32Z")  # no deletionGracePeriodSeconds: the deadline is all it says
    del no_grace["metadata"]["deletionGracePeriodSeconds"]
    assert Reader().pod_exits(no_grace) == []
    no_grace["status"]["containerStatuses"][0]["state"]["terminated"]["finishedAt"] = "2024-07-25T07:00:05Z"
    assert [e.kind for e in Reader().pod_exits(no_grace)] == ["rank_exit"]


def test_a_pod_first_seen_deleted_is_read_by_its_exit_code_within_the_clocks_skew():
    """SYNTHETIC pod statuses of a pod the controller first sees already deleted (it restarted, it relisted): no
    watch order, only finishedAt (the node's clock) against the request (the API server's), both whole seconds.
    Within SKEW_S of the request only the kubelet's kill's own exit codes (143 SIGTERM, 137 SIGKILL) are the
    deletion's; an exit 1 there (a crash its owner reacted to at once) stays its rank's death (was: read as the
    deletion's from the request's second on, and a 143 a second before the request, a node clock behind, a death).
    OOMKilled is never the deletion's.  A later delete with a shorter grace moves deletionTimestamp earlier and
    deletionGracePeriodSeconds down: the first request is bounded by the pod's own grace (was: the later request
    taken, the exits the first one's SIGTERM caused read as deaths)."""
    from cluster.evidence import Order, Reader

    def pod(code, finished, reason="Error", deadline="2024-07-25T07:00:32Z", grace=30):
        return {"metadata": {"name": "w", "deletionTimestamp": deadline, "deletionGracePeriodSeconds": grace},
                "spec": {"nodeName": "node-a", "terminationGracePeriodSeconds": 30},
                "status": {"containerStatuses": [{"name": "main", "state": {
                    "terminated": {"exitCode": code, "reason": reason, "finishedAt": finished}}}]}}

    def kinds(p, order=None):
        return [e.kind for e in Reader().pod_exits(p, order=order)]

    # the request at 07:00:02
    assert kinds(pod(1, "2024-07-25T07:00:02Z")) == ["rank_exit"]  # exit 1 in the request's second
    assert kinds(pod(1, "2024-07-25T07:00:03Z")) == ["rank_exit"]
    assert kinds(pod(1, "2024-07-25T07:00:04Z")) == []  # SKEW_S after it: torchrun handling the SIGTERM
    assert kinds(pod(143, "2024-07-25T07:00:01Z")) == []  # the SIGTERM's, its node's clock a second behind
    assert kinds(pod(143, "2024-07-24T23:59:59Z")) == ["rank_exit"]  # hours before: a kill not the deletion's
    assert kinds(pod(137, "2024-07-25T06:59:59Z")) == ["rank_exit"]  # 3 s before: not within the skew
    assert kinds(pod(139, "2024-07-25T07:00:02Z")) == ["rank_exit"]  # a segfault
    assert kinds(pod(137, "2024-07-25T07:00:10Z", reason="OOMKilled")) == ["oom_kill"]
    # deleted at 07:00:02 with 30 s, again at 07:00:12 with 5 s: deadline 07:00:17, deletionGracePeriodSeconds 5
    assert kinds(pod(1, "2024-07-25T07:00:06Z", deadline="2024-07-25T07:00:17Z", grace=5)) == []
    assert kinds(pod(1, "2024-07-25T06:59:40Z", deadline="2024-07-25T07:00:17Z", grace=5)) == ["rank_exit"]
    # the watch's order outweighs the clocks
    assert kinds(pod(1, "2024-07-25T06:59:50Z"), Order(running=frozenset({"main"}))) == []
    seen_before = Order(before=frozenset({("main", "2024-07-25T07:00:09Z")}))
    assert kinds(pod(143, "2024-07-25T07:00:09Z"), seen_before) == ["rank_exit"]


@pytest.mark.parametrize("option, value", [("--recovery-window", "0"), ("--recovery-window", "-60"),
                                           ("--recovery-budget", "-1"), ("--recoveries-per-minute", "0"),
                                           ("--idle", "0"), ("--window", "-1"), ("--events-per-minute", "0"),
                                           ("--recovery-namespace-budget", "-1"),
                                           ("--recovery-namespace-budget", "3.5"), ("--hold", "-1"),
                                           ("--hold", "nan"), ("--hold", "inf"), ("--idle", "nan"),
                                           ("--window", "inf"), ("--recovery-window", "nan"),
                                           ("--lease-duration", "inf"), ("--renew-deadline", "nan"),
                                           ("--retry-period", "nan"), ("--lease-duration", "0.5"),
                                           ("--lease-duration", "1e10")])
def test_a_bound_that_would_not_bound_is_a_usage_error(tmp_path, option, value):
    """--recovery-window 0 let every restart out of the budget at once (each older than the window), a rate of 0 let
    one restart through then held every other for good, --idle 0 closed each incident as it opened, --idle nan closed
    none (a NaN passes click's range: was taken), --hold inf held a StoreLost's incident for good, --lease-duration inf
    passed the Lease's ordering check and could not be written (int(inf): was taken), --lease-duration 0.5 was written
    as 0 s (the API refuses a leaseDurationSeconds below 1) and 1e10 past what its int32 holds: refused at start in
    one line, exit 2, naming the option, before any cluster is looked for (was: taken)."""
    from click.testing import CliRunner

    from cluster.cli import cluster
    r = CliRunner().invoke(cluster, ["--metrics-address", "", option, value],
                           env={"KUBECONFIG": str(tmp_path / "none"), "HOME": str(tmp_path),
                                "KUBERNETES_SERVICE_HOST": ""})
    assert r.exit_code == 2
    assert f"Invalid value for '{option}'" in r.output and "no cluster" not in r.output


@pytest.mark.parametrize("args, given", [(["--renew-deadline", "1e10"], "2 < 1e+10 < 15"),
                                         (["--retry-period", "1e300"], "1e+300 < 10 < 15"),
                                         (["--retry-period", "10"], "10 < 10 < 15"),
                                         (["--renew-deadline", "15"], "2 < 15 < 15"),
                                         (["--lease-duration", "5"], "2 < 10 < 5")])
def test_the_lease_times_out_of_the_leader_elections_order_are_a_usage_error(tmp_path, args, given):
    """--retry-period < --renew-deadline < --lease-duration (client-go's leader election: a leader gives up within
    its renew deadline, trying every retry period, before a standby may take the Lease): the two not written to the
    Lease are bounded above by it (--lease-duration's own bound), in one line naming the options and the values
    given, exit 2, before any cluster is looked for (was: the options alone)."""
    from click.testing import CliRunner

    from cluster.cli import cluster
    r = CliRunner().invoke(cluster, ["--metrics-address", "", *args],
                           env={"KUBECONFIG": str(tmp_path / "none"), "HOME": str(tmp_path),
                                "KUBERNETES_SERVICE_HOST": ""})
    assert r.exit_code == 2 and "no cluster" not in r.output
    assert (f"Error: need 0 < --retry-period < --renew-deadline < --lease-duration (given {given})"
            in r.output.splitlines())


def test_the_hold_is_an_option_that_reaches_the_book(tmp_path, monkeypatch):
    """--hold (seconds a job whose only failure a healthy end also prints waits for its pods' end; cluster/book.py
    HOLD by default) reaches the controller's Book; 0 opens such an incident at once.  Was: 120 s, not configurable."""
    from click.testing import CliRunner

    import kubeapi.client
    from cluster.book import HOLD
    from cluster.cli import cluster
    from cluster.controller import Controller, Settings

    s = Settings(api_server="http://127.0.0.1:9", identity="c", hold=30.0)
    assert Controller(kubeapi.client.make_api(s), s, out=io.StringIO()).book.hold == 30.0
    seen = []

    def no_cluster(s, required=False):
        seen.append(s)
        raise kubeapi.client.NoCluster("none (the test)")

    monkeypatch.setattr(kubeapi.client, "make_api", no_cluster)
    for args, hold in (([], HOLD), (["--hold", "30"], 30.0), (["--hold", "0"], 0.0)):
        r = CliRunner().invoke(cluster, ["--metrics-address", "", *args])
        assert r.exit_code == 2 and seen.pop().hold == hold, r.output
