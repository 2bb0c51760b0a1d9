"""The kubelet's Warning Events on a job's pod of a pod end only an Event says (triage.facts
EVENT_ENDS: FailedMount): a pod that never started logs nothing and its status says only ContainerCreating, so the
cluster component watches them (cluster/evidence.py POD_EVENT_SELECTORS, one server-side field selector a reason) and
reads them as offline triage reads the same Event (triage.inventory read_events); an image pull and a pod that
started after all it reads off the pod's status.  Against the HTTP API double with the real kubernetes client, and
the Book alone for its bounds."""

from __future__ import annotations

import time
from datetime import datetime, timezone

from apiserver_double import ApiDouble
from harness import wait_until

from cluster.book import MAX_POD_WARNINGS, Book
from cluster.controller import Settings
from cluster.evidence import POD_EVENT_SELECTORS, Reader, watched_pod_event
from kubeapi.client import make_api
from kubeapi.events import EventRecorder, Ref
from triage.facts import EVENT_ENDS, GANG_REASONS, POD_ENDS, POD_WARNINGS, WAITING_REASONS

from test_cluster import NODES, XID79, controller, gang, incidents, publish_timeouts, settled

# real: the kubelet's FailedMount message of GoogleCloudPlatform/ai-infra-cluster-provisioning #382
# (https://github.com/GoogleCloudPlatform/ai-infra-cluster-provisioning/issues/382, the describe's Events table,
# tests/fixtures/incidents/gke-a3-382-failed-mount); the Event object around it is constructed (core/v1 Event fields
# as the kubelet's recorder fills them: source.component "kubelet", source.host its node)
MOUNT = ('MountVolume.SetUp failed for volume "dmabuf" : hostPath type check failed: /dev/dmabuf_import_helper is '
         'not a character device')


def stamp(t: float) -> str:
    """An API time (RFC 3339, whole seconds, UTC) of epoch `t`."""
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def stamp_ago(ago: float) -> str:
    return stamp(time.time() - ago)


def kubelet_event(pod: str, node: str | None, reason: str = "FailedMount", message: str = MOUNT, n: int = 0,
                  kind: str = "Warning") -> dict:
    when = stamp_ago(120)
    return {"apiVersion": "v1", "kind": "Event", "type": kind, "reason": reason, "message": message, "count": 12,
            "metadata": {"name": f"{pod}.k{n}", "namespace": "train", "uid": f"kev-{pod}-{n}", "resourceVersion": "1"},
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": pod, "namespace": "train",
                               "uid": f"uid-{pod}"},
            "source": {"component": "kubelet", **({"host": node} if node else {})},
            "firstTimestamp": when, "lastTimestamp": when}


def create(api: ApiDouble, ev: dict) -> None:
    """An Event written through the API, in its own namespace (a Pod's, or `default` for a Node's), as its component
    creates it (no uid nor resourceVersion of its own)."""
    body = {k: v for k, v in ev.items() if k != "metadata"}
    body["metadata"] = {k: v for k, v in ev["metadata"].items() if k in ("name", "namespace")}
    make_api(Settings(api_server=api.url)).create_namespaced_event(body["metadata"]["namespace"], body)


def watched_selectors(api: ApiDouble) -> set:
    """The field selectors of the controller's watches of Events (the API double's requests)."""
    return {params.get("fieldSelector") for method, path, params, _ in api.requests
            if method == "GET" and path == "/api/v1/events" and params.get("watch")}


def refined_root(c, pod_end: str):
    """The root of the job's open incident once its pod end is `pod_end` (for wait_until), else None."""
    state = next(iter(c.book.jobs.values()), None)
    root = state.open.incident.evidence[0] if state is not None and state.open is not None else None
    return root if root is not None and root.details.get("pod_end") == pod_end else None


def failed_mount_incident(api: ApiDouble) -> dict:
    """A controller's incident once the job's other ranks time out and node-b's pod fails its mount."""
    with controller(api) as c:
        publish_timeouts(api, nodes=("node-a", "node-c", "node-d"))
        create(api, kubelet_event("llm-w-0-1", "node-b"))
        ev = wait_until(lambda: next((e for e in incidents(api) if "FailedMount" in e["message"]), None),
                        "an incident on the FailedMount")
        assert c.ready.is_set()
    return ev


def test_the_watched_reasons_are_the_pod_ends_only_an_event_says():
    """One watch a reason only an Event says: FailedMount, FailedAttachVolume, FailedPrepareDynamicResources (a DRA
    claim's devices the kubelet could not prepare: no gang row, whose it is the same wherever; was not watched, the
    pod's status saying only ContainerCreating).  None of ErrImagePull /
    ImagePullBackOff: they are a container's waiting reasons in the pod's status, and the kubelet's Events of an image
    pull are "Failed" ("Error: ErrImagePull") and a Normal "BackOff" (pkg/kubelet/events FailedToPullImage,
    BackOffPullImage; the rows of tests/fixtures/pods/ended/events-image-pull.txt).  Was: a watch each, never fed."""
    assert GANG_REASONS == tuple(k for k, e in POD_ENDS.items() if e.gang is not None)
    assert set(WAITING_REASONS) <= set(GANG_REASONS)
    assert EVENT_ENDS == ("NodeTermination", "FailedMount", "FailedAttachVolume", "FailedPrepareDynamicResources")
    assert EVENT_ENDS == tuple(k for k, e in POD_ENDS.items() if e.event_only)
    assert {"type=Warning,involvedObject.kind=Pod,reason=FailedMount",
            "type=Warning,involvedObject.kind=Pod,reason=FailedAttachVolume",
            "type=Warning,involvedObject.kind=Pod,reason=FailedPrepareDynamicResources"} <= set(POD_EVENT_SELECTORS)
    # (and the autoscalers' Normal Events of a pod read: Karpenter's Evicted, tests/cluster/test_cluster_karpenter.py;
    # cluster-autoscaler's ScaleDown, tests/cluster/test_cluster_autoscaler_removals.py)
    assert POD_EVENT_SELECTORS[len(POD_WARNINGS):] == ("type=Normal,involvedObject.kind=Pod,reason=Evicted",
                                                       "type=Normal,involvedObject.kind=Pod,reason=ScaleDown")
    assert POD_WARNINGS[:len(EVENT_ENDS)] == EVENT_ENDS


# constructed: a container waiting in ImagePullBackOff as the kubelet sets it in the pod's status
# (pkg/kubelet/images image_manager.go: the waiting message is the "Back-off pulling image %q" its BackOff Event words,
# the real row of tests/fixtures/pods/ended/events-image-pull.txt, oracle/weblogic-kubernetes-operator)
PULLING = {"phase": "Pending", "containerStatuses": [
    {"name": "main", "image": "train:1", "ready": False, "started": False, "restartCount": 0,
     "state": {"waiting": {"reason": "ImagePullBackOff", "message": 'Back-off pulling image "train:1"'}}}]}


def test_an_image_one_node_cannot_pull_is_read_off_the_pod_status_live_with_no_event_watch():
    """A pod of a running gang whose container waits in ImagePullBackOff: its node's (infrastructure, the node named)
    from the pod's status alone, as offline reads the same Pod object; no Event watch asks for an image pull's
    reason (was: two watches of reasons no Event has, idle)."""
    with ApiDouble() as api:
        gang(api)
        api.pods[("train", "llm-w-0-1")]["status"] = PULLING
        api.pods.touch(("train", "llm-w-0-1"))
        with controller(api) as c:
            publish_timeouts(api, nodes=("node-a", "node-c", "node-d"))
            # (the pod's status may be read before the other ranks' timeouts: the one pod failing, the workload's
            # first, then updated to its node's)
            ev = wait_until(lambda: next((e for e in incidents(api) if "ImagePullBackOff" in e["message"]
                                          and e["message"].startswith("infrastructure")), None),
                            "an infrastructure incident on the image pull")
            assert c.ready.is_set()
        assert "only node node-b of the job failed so" in ev["message"], ev["message"]
        asked = watched_selectors(api)
        assert not {s for s in asked if s and any(f"reason={r}" in s for r in WAITING_REASONS)}, asked
        assert set(POD_EVENT_SELECTORS) <= asked


# constructed: a container the kubelet started, as its status says it (core/v1 ContainerStatus: state.running,
# started)
RUNNING = {"phase": "Running", "containerStatuses": [
    {"name": "main", "image": "train:1", "ready": True, "started": True, "restartCount": 0,
     "state": {"running": {"startedAt": "2024-07-25T06:01:00Z"}}}]}
# real: the kubelet's FailedMount its retry got past (kubebb/core PR #130, tests/fixtures/pods/ended/
# events-failed-mount-then-started.txt: Pulled, Created, Started after it)
SYNC = ('MountVolume.SetUp failed for volume "kube-api-access-pljgx" : failed to sync configmap cache: timed out '
        'waiting for the condition')


def test_a_mount_the_kubelet_got_past_is_no_incident_live():
    """The kubelet's FailedMount on a pod whose status says its container runs (the kubelet's retry mounted the volume):
    no incident, as offline where the kubelet's Started row follows (triage.attribute Job.ran); the same Event on a
    pod whose status shows no start is still the pod's never starting.  Was: "pod .. never started" live."""
    with ApiDouble() as api:
        gang(api)
        for i in range(len(NODES)):
            api.pods[("train", f"llm-w-0-{i}")]["status"] = RUNNING
            api.pods.touch(("train", f"llm-w-0-{i}"))
        with controller(api) as c:
            create(api, kubelet_event("llm-w-0-1", "node-b", message=SYNC))
            wait_until(lambda: any(s.events for s in list(c.book.jobs.values())), "the FailedMount read")
            settled(c, 3)
            assert incidents(api) == []
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", node), 100.0)
    book.event(kubelet_event("llm-w-0-1", "node-b", message=SYNC), 100.0)
    (change,) = book.settle(101.0)
    assert change.incident.reason.startswith("pod train/llm-w-0-1 never started (FailedMount: "), change.incident.reason


def test_a_mount_failing_on_one_node_of_a_running_gang_is_that_nodes_live():
    """The kubelet's FailedMount on one pod while the job's other pods ran (their ranks timed out): the node's
    (infrastructure, the node named), as offline triage judges the same Event; the controller asked the API server
    for exactly the selected Events (a field selector the API server supports: the double refuses any other)."""
    with ApiDouble() as api:
        gang(api)
        ev = failed_mount_incident(api)
        assert ev["message"].startswith("infrastructure"), ev["message"]
        assert "node-b" in ev["message"] and "only node node-b of the job failed so" in ev["message"], ev["message"]
        asked = watched_selectors(api)
        assert set(POD_EVENT_SELECTORS) <= asked


def test_a_mount_failing_on_every_pod_is_the_workloads():
    """Every pod of the job failing the same mount (the spec asks for a device no node has): the workload's, as
    offline (tests/fixtures/incidents/gke-a3-382-failed-mount)."""
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", node), 100.0)
    for i, node in enumerate(NODES):
        book.event(kubelet_event(f"llm-w-0-{i}", node), 100.0)
    (change,) = book.settle(101.0)
    assert change.incident.category == "application" and "failed alike" in change.incident.reason


def test_an_incident_on_a_mount_closes_when_the_pod_starts():
    """The FailedMount read while the pod waits (its status shows no start): "never started", opened; the pod's status
    then says its container runs (the kubelet's retry got past the mount): read again, the job's evidence shows no
    failure, and the incident closes (was: left open, its verdict stale, until --idle); the same Event read again
    (its count grown) opens nothing, what the closed incident held."""
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", node), 100.0)
    book.event(kubelet_event("llm-w-0-1", "node-b", message=SYNC), 100.0)
    (opened,) = book.settle(101.0)
    assert opened.what == "opened" and "never started (FailedMount" in opened.incident.reason
    book.pod({**pod_of("llm-w-0-1", "node-b"), "status": RUNNING}, 102.0)
    (closed,) = book.settle(103.0)
    assert closed.what == "closed" and closed.open.id == opened.open.id
    again = kubelet_event("llm-w-0-1", "node-b", message=SYNC)
    again["metadata"]["resourceVersion"], again["count"] = "2", 13
    book.event(again, 104.0)
    assert book.settle(105.0) == []


def test_a_pods_warnings_after_its_incident_closed_are_kept_again():
    """A pod's count of kept Warnings (MAX_POD_WARNINGS) is of those its job holds: an incident's close forgets them,
    so a pod at its cap whose FailedMount incident closed has its next Warning read (was: the uids stayed counted
    after the close, each later Warning of the pod dropped for good)."""
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", node), 100.0)
    for n in range(MAX_POD_WARNINGS):
        book.event(kubelet_event("llm-w-0-1", "node-b", message=SYNC, n=n), 100.0)
    (opened,) = book.settle(101.0)
    book.pod({**pod_of("llm-w-0-1", "node-b"), "status": RUNNING}, 102.0)
    (closed,) = book.settle(103.0)
    assert closed.what == "closed"
    later = kubelet_event("llm-w-0-1", "node-b", message=SYNC, n=99)  # (a minute later: one the close did not hold)
    later["firstTimestamp"] = later["lastTimestamp"] = stamp_ago(60)
    book.event(later, 104.0)
    (state,) = book.jobs.values()
    assert "kev-llm-w-0-1-99" in state.events and book.dropped == 0


def xid_condition(status: str, since: str) -> dict:
    """node-b as its agent writes a standing Xid 79 (agent/health.py's GPUUnhealthy condition; constructed, as
    test_cluster's), `status` True or False (cleared)."""
    return {"metadata": {"name": "node-b"}, "status": {"conditions": [
        {"type": "GPUUnhealthy", "status": status, "reason": "Xid79FallenOffBus", "lastTransitionTime": since,
         "message": f"Xid 79 on GPU 3 (0000:5d:00): {XID79.rstrip('.')}. Recommended action: RESTART_BM"}]}}


def test_an_incident_whose_node_fault_is_withdrawn_closes_when_quiet_and_a_flap_opens_no_other():
    """An incident on a node's standing fault alone: the condition cleared (False; its Event expired, the node
    deleted alike) is withdrawn, not refuted: the incident stays open until quiet (`idle`), and the fault standing again
    (a later transition) is the same incident, no second Event nor recovery decision.  Was (h429): closed at once, and
    each flap opened the next incident.  A refuted one still closes at once (the FailedMount test above)."""
    now = datetime.now(timezone.utc).timestamp()
    at = [stamp(now + s) for s in (0, 30, 60)]
    book = Book(idle=600.0)
    for i, node in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", node), 100.0)
    book.node(xid_condition("True", at[0]), 101.0)
    (opened,) = book.settle(102.0)
    assert opened.what == "opened" and opened.incident.root.kind == "xid"
    book.node(xid_condition("False", at[1]), 103.0)
    assert book.settle(104.0) == []
    book.node(xid_condition("True", at[2]), 105.0)
    assert book.settle(106.0) == []
    (closed,) = book.settle(106.0 + 601.0)
    assert closed.what == "closed" and closed.open.id == opened.open.id


def pod_of(name: str, node: str, job: str | None = "llm") -> dict:
    labels = {"jobset.sigs.k8s.io/jobset-name": job, "batch.kubernetes.io/job-name": f"{job}-w-0"} if job else {}
    return {"metadata": {"name": name, "namespace": "train", "uid": f"uid-{name}", "labels": labels,
                         "creationTimestamp": "2024-07-25T06:00:00Z"}, "spec": {"nodeName": node}}


def test_an_event_of_a_pod_of_no_job_or_another_reason_is_dropped_at_once():
    book = Book()
    book.pod(pod_of("web-1", "node-a", job=None), 100.0)
    book.pod(pod_of("llm-w-0-0", "node-a"), 100.0)
    book.event(kubelet_event("web-1", "node-a"), 100.0)  # a pod of no job
    book.event(kubelet_event("llm-w-0-0", "node-a", reason="BackOff", message="Back-off restarting failed container"),
               100.0)  # a Warning of a reason the gang does not judge
    book.event(kubelet_event("llm-w-0-0", "node-a", kind="Normal", n=1), 100.0)  # not a Warning
    assert not book.waiting and not book.settle(101.0)
    assert all(not s.events and not s.warned for s in book.jobs.values())


def test_an_event_before_its_pod_waits_bounded_and_is_read_when_the_pod_is_seen():
    """The Events' and the pods' watches are separate streams: an Event of a pod not seen yet waits (at most
    MAX_POD_WARNINGS a pod, the rest counted), then counts for the pod's job; the pod's node where the Event names none
    (the attach-detach controller's)."""
    book = Book()
    for n in range(MAX_POD_WARNINGS + 3):
        book.event(kubelet_event("llm-w-0-1", None, n=n), 100.0)
    waiting = book.waiting[("train", "llm-w-0-1")]
    assert len(waiting.events) == waiting.theirs == MAX_POD_WARNINGS and book.dropped == 3  # counted, never re-scanned
    book.event(kubelet_event("llm-w-0-1", None, n=3), 100.0)  # one waiting already, updated: not counted again
    assert waiting.theirs == MAX_POD_WARNINGS and book.dropped == 3
    book.pod(pod_of("llm-w-0-1", "node-b"), 100.0)
    (state,) = book.jobs.values()
    assert len(state.warned[("train", "llm-w-0-1")]) == MAX_POD_WARNINGS
    found = book.evidence(state)
    assert {(e.kind, e.host, e.details["pod_end"]) for e in found} == {("job_ended", "node-b", "FailedMount")}
    book.event(kubelet_event("llm-w-0-1", "node-b", n=99), 100.0)  # past the pod's cap, seen: not kept, counted
    assert len(state.warned[("train", "llm-w-0-1")]) == MAX_POD_WARNINGS and book.dropped == 4


def test_a_malformed_event_is_one_warning_line_and_nothing_else_is_lost(caplog):
    """An Event of the wrong shape (its object's name not a string) is one warning line naming it; the controller
    goes on and reads the Event after it."""
    with ApiDouble() as api:
        gang(api)
        bad = kubelet_event("llm-w-0-1", "node-b", n=7)
        bad["involvedObject"]["name"] = ["llm-w-0-1"]
        api.stores[("", "events")][("train", bad["metadata"]["name"])] = bad
        api.stores[("", "events")].touch(("train", bad["metadata"]["name"]))
        ev = failed_mount_incident(api)
        assert ev["message"].startswith("infrastructure")
        lines = [r.getMessage() for r in caplog.records if "unreadable" in r.getMessage()]
        assert len(lines) == 1 and "\n" not in lines[0], lines
        assert "events:FailedMount: Event train/llm-w-0-1.k7 unreadable (TypeError" in lines[0], lines


def test_the_double_refuses_an_event_field_selector_the_api_server_does_not_support():
    from kubernetes.client.rest import ApiException  # noqa: PLC0415

    with ApiDouble() as api:
        core = make_api(Settings(api_server=api.url))
        try:
            core.list_event_for_all_namespaces(field_selector="type=Warning,involvedObject.node=x")
        except ApiException as exc:
            assert exc.status == 400 and "field label not supported: involvedObject.node" in exc.body
        else:
            raise AssertionError("accepted")
        for selector in POD_EVENT_SELECTORS:
            core.list_event_for_all_namespaces(field_selector=selector)


# kubernetes-sigs/dra-driver-nvidia-gpu PR #1218: the kubelet's message of a GPU claim its DRA driver did not prepare
DRA = ("Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources: rpc error: code = "
       "DeadlineExceeded desc = context deadline exceeded")


def test_a_dra_claim_the_kubelet_could_not_prepare_is_read_live_on_its_node():
    """The kubelet's FailedPrepareDynamicResources Event on a job's pod passes the one filter (watched_pod_event) and
    reads as offline: the pod never started, on the node its kubelet names, infrastructure.  Was: not watched, not
    read."""
    ev = kubelet_event("llm-w-0-1", "node-b", reason="FailedPrepareDynamicResources", message=DRA)
    assert watched_pod_event(ev)
    [e] = Reader().their_pod_event(ev)
    assert (e.kind, e.host, e.details["pod_end"], e.details["why"]) == (
        "job_ended", "node-b", "FailedPrepareDynamicResources", "DRA PREPARE")
    assert POD_ENDS[e.details["pod_end"]].category == "infrastructure"


def test_a_dra_claim_whose_config_its_driver_rejected_is_read_live_as_the_jobs():
    """The same Event whose driver rejected the claim's device config (the kubelet's words around the driver's, as the
    EKS user guide quotes it: "error validating GPU config: unknown GPU sharing strategy: TimeSlicing"; constructed
    around it as tests/triage/test_pod_ended.py's row) reads live as offline (facts.MESSAGE_ENDS): the claim's config,
    application, on the node its kubelet names.  Was: infrastructure, the node's DRA setup."""
    message = ("Failed to prepare dynamic resources: prepare dynamic resources: NodePrepareResources failed for "
               "ResourceClaim llm-w-0-1-gpu-tpghv: error preparing devices for claim default/llm-w-0-1-gpu-tpghv:"
               "3c8337ad-f366-4541-883d-30b9e99fd6be: prepare devices failed: error validating GPU config: unknown GPU "
               "sharing strategy: TimeSlicing")
    ev = kubelet_event("llm-w-0-1", "node-b", reason="FailedPrepareDynamicResources", message=message)
    assert watched_pod_event(ev)
    [e] = Reader().their_pod_event(ev)
    assert (e.host, e.details["pod_end"], e.details["pod_reason"], e.details["why"]) == (
        "node-b", "claim:config", "FailedPrepareDynamicResources", "DRA CLAIM CONFIG")
    assert POD_ENDS[e.details["pod_end"]].category == "application"


def _short_job(book: Book, job: str, now: float, started: tuple[int, ...] = (0, 1)) -> list[dict]:
    """A job's two pods on node-a and node-b, those in `started` started (RUNNING), then all deleted without an
    incident: a short job's end (a Job's TTL controller, a scale-down)."""
    pods = [pod_of(f"{job}-w-0-{i}", node, job=job) for i, node in enumerate(NODES[:2])]
    for i, p in enumerate(pods):
        if i in started:
            p["status"] = RUNNING
        book.pod(p, now)
    assert book.settle(now) == []
    for p in pods:
        book.pod(p, now + 1.0, deleted=True)
    return pods


def test_short_jobs_whose_pods_are_deleted_are_forgotten_after_the_idle_window():
    """Jobs whose pods started and were deleted without an incident (thousands of short jobs a day, their owners'
    deletion missed across a relist) are kept `idle` seconds after their last pod went (the controller's clock), then
    forgotten: the Book stays bounded by what ended within the window (gpu_npd_cluster_tracked{what="podless_jobs"}).
    Was: each kept for ever (the deleted pods' starts held), unless its owner's deletion was seen."""
    book = Book(idle=600.0)
    for n in range(50):
        _short_job(book, f"j{n}", 60.0 * n)
        book.settle(60.0 * n + 2.0)
    assert len(book.jobs) <= 11 and book.counts()["podless_jobs"] == len(book.jobs)  # the last 600 s's
    assert book.settle(60.0 * 49 + 2.0 + 600.0) == []
    assert not book.jobs and book.counts()["podless_jobs"] == 0 and book.counts()["pods"] == 0


def test_a_late_mount_warning_of_a_deleted_pod_that_started_is_no_incident_before_or_after_the_window():
    """The kubelet's FailedMount its retry got past (real: kubebb/core PR #130) read after the pod's deletion: the
    pod's start, kept with its job for the window, says it ran: no incident (not storing it would make it "never
    started"); after the window the job is forgotten and the same Event read again (a relist) opens nothing, nor
    brings the job back."""
    book = Book(idle=600.0)
    _short_job(book, "llm", 100.0)
    assert book.settle(102.0) == []
    book.event(kubelet_event("llm-w-0-1", "node-b", message=SYNC), 300.0)
    assert book.settle(301.0) == [] and book.jobs
    assert book.settle(300.0 + 599.0) == [] and book.jobs  # quiet since the late Event (read at 300): kept
    assert book.settle(300.0 + 600.0) == [] and not book.jobs
    again = kubelet_event("llm-w-0-1", "node-b", message=SYNC)
    again["metadata"]["resourceVersion"] = "2"
    book.event(again, 1000.0)
    assert book.settle(1001.0) == [] and not book.jobs


def test_a_late_mount_warning_of_a_deleted_pod_that_never_started_still_opens_within_the_window():
    """A job's pod that never started (its FailedMount, real: ai-infra-cluster-provisioning #382, read after the job's
    pods were deleted) while the other ran: the node's incident opens, as before, within the window."""
    book = Book(idle=600.0)
    _short_job(book, "llm", 100.0, started=(0,))
    assert book.settle(102.0) == []
    book.event(kubelet_event("llm-w-0-1", "node-b"), 400.0)
    (opened,) = book.settle(401.0)
    assert opened.what == "opened" and "never started (FailedMount" in opened.incident.reason
    assert opened.incident.category == "infrastructure", opened.incident.reason


def _recreated(name: str, node: str, job: str = "llm") -> dict:
    """A pod recreated under its name (a JobSet's, a StatefulSet's fixed names): another uid, created later; not
    started yet."""
    p = pod_of(name, node, job=job)
    p["metadata"].update(uid=f"uid-{name}-2", creationTimestamp="2024-07-25T07:00:00Z")
    return p


def test_a_late_event_of_a_forgotten_pod_is_not_read_as_its_recreated_namesakes():
    """The kubelet's FailedMount of a deleted pod (real line: ai-infra-cluster-provisioning #382), its job forgotten
    after the window, read late (a relist): it waits for a pod of that name; the owner recreates the pod under the
    same name (another uid): the Event names the old pod's uid and was created before the new pod, so it is not the
    new pod's: no incident (was: "pod .. never started" on the new pod, not started yet).  The new pod's own
    FailedMount (its uid) is still its own: the incident opens."""
    book = Book(idle=600.0)
    _short_job(book, "llm", 100.0)
    assert book.settle(102.0) == [] and book.settle(702.0) == [] and not book.jobs  # forgotten
    late = kubelet_event("llm-w-0-1", "node-b")  # involvedObject.uid: the deleted pod's
    late["metadata"]["creationTimestamp"] = "2024-07-25T06:00:30Z"
    book.event(late, 800.0)
    assert ("train", "llm-w-0-1") in book.waiting
    for i, node in enumerate(NODES[:2]):
        book.pod(_recreated(f"llm-w-0-{i}", node), 801.0)
    assert book.settle(802.0) == [] and ("train", "llm-w-0-1") not in book.waiting
    (state,) = book.jobs.values()
    assert not state.events
    book.event(late, 803.0)  # read again: still not the new pod's
    assert book.settle(804.0) == [] and not state.events
    own = kubelet_event("llm-w-0-1", "node-b", n=1)
    own["involvedObject"]["uid"] = "uid-llm-w-0-1-2"
    own["metadata"]["creationTimestamp"] = "2024-07-25T07:00:10Z"
    book.event(own, 805.0)
    (opened,) = book.settle(806.0)
    assert opened.what == "opened" and "pod train/llm-w-0-1 never started" in opened.incident.reason


def test_an_event_of_a_recreated_pod_before_the_pod_is_seen_waits_for_it():
    """The pods' and Events' watches are separate streams: the recreated pod's own Event (its uid, created after the
    pod kept of that name) read before the new pod: not the old pod's (was: read as the old pod's, on its node); it
    waits, then counts for the new pod once seen."""
    book = Book()
    for i, node in enumerate(NODES[:2]):
        book.pod(pod_of(f"llm-w-0-{i}", node), 100.0)
    own = kubelet_event("llm-w-0-1", "node-c")
    own["involvedObject"]["uid"] = "uid-llm-w-0-1-2"
    own["metadata"]["creationTimestamp"] = "2024-07-25T07:00:10Z"
    book.event(own, 101.0)
    (state,) = book.jobs.values()
    assert not state.events and ("train", "llm-w-0-1") in book.waiting
    book.pod(_recreated("llm-w-0-1", "node-c"), 102.0)
    assert [e.host for e in book.evidence(state) if e.details.get("pod_end") == "FailedMount"] == ["node-c"]


def test_a_late_event_of_a_former_pod_is_not_a_recreated_pods_live():
    """Against the API double: the kubelet's FailedMount of a pod of the gang's former incarnation (its uid, created
    before the pod of that name now is) is in the API when the controller lists: the gang's pod of that name, not
    started yet, did not fail to mount: no incident (was: "pod train/llm-w-0-1 never started").  The same Event about
    the pod now (its uid) opens one."""
    with ApiDouble() as api:
        gang(api)
        create(api, kubelet_event("llm-w-0-1", "node-b"))  # involvedObject.uid: uid-llm-w-0-1, the former pod's
        later = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 2))  # (the Event's: this second's)
        for i in range(len(NODES)):
            meta = api.pods[("train", f"llm-w-0-{i}")]["metadata"]
            meta.update(uid=f"uid-llm-w-0-{i}-2", creationTimestamp=later)
            api.pods.touch(("train", f"llm-w-0-{i}"))
        with controller(api) as c:
            wait_until(lambda: c.ready.is_set(), "the controller synced")
            settled(c, 3)
            assert incidents(api) == []
            own = kubelet_event("llm-w-0-1", "node-b", n=1)
            own["involvedObject"]["uid"] = "uid-llm-w-0-1-2"
            create(api, own)
            ev = wait_until(lambda: next((e for e in incidents(api) if "FailedMount" in e["message"]), None),
                            "an incident on the new pod's FailedMount")
        assert "llm-w-0-1" in ev["message"], ev["message"]


def test_a_condition_speaks_when_its_faults_only_event_is_outside_the_jobs_window():
    """A condition repeats a node Event of the same fault, so it speaks only where no such Event does; an Event from
    before the job's pods started on the node (an earlier fault of the same GPU, its Event kept by the API server for an
    hour) is none of the job's evidence, so it silences nothing: the condition raised again while the job ran is its
    node's fault.  Was (h689): the Event outside the window silenced the condition, and the job had no node fault."""
    book = Book()
    for i, node in enumerate(NODES):
        book.pod(pod_of(f"llm-w-0-{i}", node), 100.0)  # created 2024-07-25T06:00:00Z
    rec = EventRecorder("default", "node-b")
    rec.record(Ref("Node", "node-b", uid="node-b"), "Xid79FallenOffBus",
               f"Xid 79 on GPU 0000:5d:00: {XID79.rstrip('.')}. Recommended action: RESTART_BM")
    old = {**rec._body(next(iter(rec._aggs.values()))), "firstTimestamp": "2024-07-25T05:00:00Z",
           "lastTimestamp": "2024-07-25T05:00:00Z", "eventTime": "2024-07-25T05:00:00.000000Z",
           "metadata": {"name": "node-b.x79", "namespace": "default", "uid": "ev-x79", "resourceVersion": "1"}}
    book.event(old, 101.0)
    book.node(xid_condition("True", "2024-07-25T06:36:02Z"), 102.0)
    (state,) = book.jobs.values()
    found = [(e.kind, e.xid, e.host, e.details.get("condition")) for e in book.evidence(state)]
    assert found == [("xid", 79, "node-b", "GPUUnhealthy")]  # the condition speaks
    # the same Event inside the window speaks, and the condition repeating it stays silent
    book.event({**old, "firstTimestamp": "2024-07-25T06:36:00Z", "lastTimestamp": "2024-07-25T06:36:00Z",
                "eventTime": "2024-07-25T06:36:00.000000Z",
                "metadata": {**old["metadata"], "resourceVersion": "2"}}, 103.0)
    assert [(e.kind, e.xid, e.host, e.details.get("condition")) for e in book.evidence(state)] == [
        ("xid", 79, "node-b", None)]  # the Event speaks
