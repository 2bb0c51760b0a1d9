"""kubeapi: the one paged LIST loop (limit / continue) of every program, with the real kubernetes client
against the API double; the Event recorder written from one thread while others record."""

from __future__ import annotations

from datetime import datetime

import pytest
from kubernetes.client.rest import ApiException

from apiserver_double import ApiDouble
from kubeapi.client import make_api
from kubeapi.events import EventRecorder, Ref
from kubeapi.pager import items, pages


def at(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


class Target:
    def __init__(self, url: str) -> None:
        self.api_server, self.kubeconfig = url, ""


def test_every_object_of_every_page_in_order_and_the_last_page_has_the_resource_version():
    with ApiDouble() as api:
        for i in range(1201):
            api.add_node(f"gpu-{i:04d}", labels={"pool": "a" if i % 2 else "b"})
        core = make_api(Target(api.url))
        got = list(pages(core.list_node, 500, 5))
        assert [len(p["items"]) for p in got] == [500, 500, 201]
        assert got[-1]["metadata"]["resourceVersion"] == str(api.rv)
        names = [n["metadata"]["name"] for n in items(core.list_node, 500, 5, label_selector="pool=a")]
        assert names == [f"gpu-{i:04d}" for i in range(1, 1201, 2)]
        assert [n["metadata"]["name"] for n in items(core.list_node, 500, 5, label_selector="")][-1] == "gpu-1200"


def test_an_expired_continue_token_starts_over_when_the_caller_can_forget_else_it_is_raised():
    with ApiDouble() as api:
        core = make_api(Target(api.url))
        for i in range(5):
            body = {"metadata": {"name": f"e{i}"}, "involvedObject": {"kind": "Node", "name": "n"}, "reason": "R"}
            core.create_namespaced_event("default", body)

        def expire(listing):  # another list in between: the double keeps one list snapshot, the first expires
            first = next(listing)
            list(items(core.list_event_for_all_namespaces, 100, 5, field_selector="reason=R"))
            return first, list(listing)

        restarts = []
        first, rest = expire(pages(core.list_event_for_all_namespaces, 2, 5, restart=lambda: restarts.append(1)))
        assert restarts == [1] and len(first["items"]) == 2
        assert sum(len(p["items"]) for p in rest) == 5  # the whole list again, after the restart
        with pytest.raises(ApiException) as exc:
            expire(pages(core.list_event_for_all_namespaces, 2, 5))
        assert exc.value.status == 410


def test_an_occurrence_recorded_while_its_event_is_being_written_is_written_next():
    """record() from the producing thread while the writer's flush is in the API call: not lost."""
    rec = EventRecorder("default", "node-a", burst=10, per_minute=600)
    node = Ref("Node", "node-a")
    sent = []

    class Api:
        def create_namespaced_event(self, ns, body, **_):
            sent.append(body["count"])
            rec.record(node, "Xid79FallenOffBus", "again", key="p")  # meanwhile, on the producer's thread

        def patch_namespaced_event(self, name, ns, body, **_):
            sent.append(body["count"])

    rec.record(node, "Xid79FallenOffBus", "first", key="p")
    assert rec.progress(node, "Xid79FallenOffBus", "p") == (1, 0)
    assert rec.flush(Api(), 5) == 1 and not rec.written(node, "Xid79FallenOffBus", "p")
    # the first occurrence is written, the second not yet (what a caller counting the first waits for)
    assert rec.progress(node, "Xid79FallenOffBus", "p") == (2, 1)
    assert rec.pending() == 1
    assert rec.flush(Api(), 5) == 1 and rec.written(node, "Xid79FallenOffBus", "p")
    assert sent == [1, 2] and rec.pending() == 0


def test_an_occurrence_re_worded_is_written_again_as_one_occurrence():
    """count 0 (agent/workloads.py: a finding's amendment read after its Event was written, Ray's OOM kill naming its
    node on the next line): the Event is patched with the new words, its count unchanged; the same words again write
    nothing; a re-wording of an Event not held is an occurrence.  Was: no way to re-word without a count."""
    rec = EventRecorder("default", "node-a", burst=10, per_minute=600)
    pod = Ref("Pod", "w-0", "train")
    sent = []

    class Api:
        def create_namespaced_event(self, ns, body, **_):
            sent.append((body["count"], body["message"]))

        def patch_namespaced_event(self, name, ns, body, **_):
            sent.append((body["count"], body["message"]))

    rec.record(pod, "HostOOMKill", "killed", key="k")
    assert rec.flush(Api(), 5) == 1
    rec.record(pod, "HostOOMKill", "killed", key="k", count=0)  # the same words: nothing due
    assert rec.pending() == 0 and rec.flush(Api(), 5) == 0
    rec.record(pod, "HostOOMKill", "killed on 10.0.0.1", key="k", count=0)
    assert rec.pending() == 1 and rec.flush(Api(), 5) == 1 and rec.written(pod, "HostOOMKill", "k")
    rec.record(pod, "HostOOMKill", "other", key="other", count=0)
    assert rec.progress(pod, "HostOOMKill", "other") == (1, 0)
    assert sent == [(1, "killed"), (1, "killed on 10.0.0.1")]


def test_an_event_the_server_refuses_is_dropped_and_the_events_after_it_are_written():
    """An Event the API server refuses for good (4xx but 429): the pod's namespace being deleted ("It is common for a
    server to reject creation of an `Event` with a `Forbidden` response when a `Namespace` is being terminated",
    kubernetes/kubernetes #23644; NamespaceLifecycle's "unable to create new content in namespace .. because it is
    being terminated", openshift/release #1478), or gone (404).  As client-go's recorder ("Server rejected event ..
    (will not retry!)"), it is dropped, counted and logged; the Events after it are written.  Was: raised at every
    flush, the oldest pending first, so no Event of the agent was written again (the writer backing off)."""
    rec = EventRecorder("gpu-npd", "node-a", burst=10, per_minute=600)
    pod, node = Ref("Pod", "w-0", "train"), Ref("Node", "node-a")
    sent, tried = [], []

    class Api:
        def create_namespaced_event(self, ns, body, **_):
            tried.append(ns)
            if ns == "train":
                raise ApiException(status=403, reason="Forbidden")
            sent.append(body["reason"])

    rec.record(pod, "NCCLTimeout", "rank 0 timed out", key="p")
    rec.record(node, "Xid79FallenOffBus", "GPU fell off the bus", key="n")
    assert rec.flush(Api(), 5) == 1 and sent == ["Xid79FallenOffBus"] and rec.written(node, "Xid79FallenOffBus", "n")
    assert rec.dropped["rejected"] == 1 and rec.pending() == 0
    assert rec.progress(pod, "NCCLTimeout", "p") is None  # dropped: held no more
    assert rec.flush(Api(), 5) == 0 and tried == ["train", "gpu-npd"]  # not tried again
    rec.record(node, "Xid79FallenOffBus", "GPU fell off the bus", key="n")

    class Down(Api):
        def patch_namespaced_event(self, name, ns, body, **_):
            raise ApiException(status=503, reason="Service Unavailable")

    with pytest.raises(ApiException):  # the API down or overloaded: kept, raised (the writer backs off)
        rec.flush(Down(), 5)
    assert rec.pending() == 1 and rec.dropped["rejected"] == 1


def test_an_event_refused_with_401_is_kept_and_written_when_the_credentials_work_again():
    """401 Unauthorized is about the credentials, not the Event: every request gets it until the token works
    again (a projected service-account token rotated on disk, read again by the client's in-cluster loader at most a
    minute later; "Random 401 with BoundServiceAccountToken", kubernetes-client/python #1768; nvmesh-csi-driver
    #38's watcher got `{"kind":"Status",...,"message":"Unauthorized","reason":"Unauthorized","code":401}` an hour
    after start).  So it is raised (the writer backs off) and the Event stays pending, never dropped and never
    counted as rejected; the next flush after the fault writes it.  Was: dropped as a refusal of that Event.  The
    real client against the API double."""
    with ApiDouble() as api:
        core = make_api(Target(api.url))
        rec = EventRecorder("default", "node-a", burst=10, per_minute=600)
        node = Ref("Node", "node-a")
        rec.record(node, "Xid79FallenOffBus", "GPU fell off the bus", key="n")
        api.set_fault(status=401)
        with pytest.raises(ApiException) as exc:
            rec.flush(core, 5)
        assert exc.value.status == 401 and api.rejected == 1
        assert rec.pending() == 1 and rec.dropped["rejected"] == 0 and api.events() == []
        api.set_fault()
        assert rec.flush(core, 5) == 1 and rec.written(node, "Xid79FallenOffBus", "n")
        assert [e["reason"] for e in api.events()] == ["Xid79FallenOffBus"] and rec.pending() == 0


def test_only_an_answer_about_this_one_request_is_a_refusal():
    """refusal(): a 4xx about the request (403 RBAC, 404, 409, 422) lets a writer of other objects go on; 401 (the
    credentials: every request would get it), 429 and 5xx (the API overloaded or down) and no answer do not."""
    from kubeapi.retry import refusal

    assert [s for s in (400, 401, 403, 404, 409, 410, 422, 429, 500, 503) if refusal(ApiException(status=s))] \
        == [400, 403, 404, 409, 410, 422]
    assert not refusal(ConnectionError("reset"))


def test_in_a_pod_the_client_reads_a_rotated_token_again_within_a_minute(tmp_path, monkeypatch):
    """What retrying a 401 rests on: make_api's in-cluster client reads the projected token file again once the one
    it holds is a minute old (the kubernetes client's refresh hook), and sends it.  A client that copied the token
    once would 401 for good after kubelet rotates it (kiwigrid/k8s-sidecar #372); one whose auth settings ignore
    the loader's key sends none (aron-muon/KubeCodeRun #74, client 36.0.0)."""
    import datetime as real

    from kubernetes.config import incluster_config

    token, cert = tmp_path / "token", tmp_path / "ca.crt"
    token.write_text("old-token")
    cert.write_text("not checked here")
    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(token))
    monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(cert))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    later = [real.timedelta(0)]

    class Later:  # the loader's `datetime` module, its clock moved on by `later`
        timedelta = real.timedelta

        class datetime:
            @staticmethod
            def now():
                return real.datetime.now() + later[0]

    monkeypatch.setattr(incluster_config, "datetime", Later)
    cfg = make_api(Target("")).api_client.configuration
    assert cfg.host == "https://10.96.0.1:443"
    assert cfg.auth_settings()["BearerToken"]["value"] == "bearer old-token"
    token.write_text("new-token")  # kubelet rotated it
    assert cfg.auth_settings()["BearerToken"]["value"] == "bearer old-token"  # within the minute: the one held
    later[0] = real.timedelta(seconds=61)
    assert cfg.auth_settings()["BearerToken"]["value"] == "bearer new-token"


def test_an_event_with_an_event_time_is_written_within_the_api_servers_1024_bytes():
    """The API server refuses an Event with an eventTime whose message is over 1,024 bytes (kubernetes
    pkg/apis/core/validation/events.go: a Go string's length); a Pod Event quoting a container's non-ASCII line, or cut
    with an ellipsis, is 1,024 characters and more bytes.  Its message is cut to 1,024 bytes on a character's boundary
    and written.  Was: 1,024 characters, refused (422) and dropped."""
    rec = EventRecorder("default", "node-a", burst=10, per_minute=600)
    pod = Ref("Pod", "w-0", "train")
    message = "CUDA error: out of memory \u2026 " + "\u00e9" * 1100
    rec.record(pod, "CUDAOutOfMemory", message, key="p", at=1725748462.723784)
    with ApiDouble() as api:
        assert rec.flush(make_api(Target(api.url)), 5) == 1
    assert rec.written(pod, "CUDAOutOfMemory", "p") and not rec.dropped["rejected"]
    body = rec._body(next(iter(rec._aggs.values())))
    assert len(body["message"].encode()) in (1023, 1024) and message.startswith(body["message"])
    rec.record(pod, "CUDAOutOfMemory", "short", key="q", at=1725748462.0)  # within the limit: as it is
    assert rec._body(rec._aggs[next(k for k in rec._aggs if k[-1] == "q")])["message"] == "short"


def test_an_events_event_time_goes_with_its_message_and_every_event_passes_the_api_servers_validation():
    """An Event's eventTime is when what its message says was first observed (core/v1 and events.k8s.io/v1: "Time
    when this Event was first observed"): the latest occurrence's `at` (the quoted line's own time), or, where that
    occurrence gives none, when the Event began on the writer's clock.  Was: an earlier occurrence's `at` kept beside a
    later message it is not the time of, and the Events no line times (TaintHeldByBudget, the DRA and pod fault Events)
    written with no eventTime at all, outside the validation of the Events that have one.  Every Event, on a Pod and
    on a Node of a 140-character name (the reporting instance cut to 128), through the real client and the double's
    validation (legacyValidateEvent: an action, a reporting instance of at most 128, a Node's Event in `default`)."""
    t = [1725748500.0]
    node = "gpu-node-" + "a" * 131
    rec = EventRecorder("default", node, burst=10, per_minute=600, clock=lambda: t[0])
    pod, host = Ref("Pod", "w-0", "train"), Ref("Node", node, uid=node)
    rec.record(pod, "NCCLTimeout", "rank 1 timed out", key="p", at=1725748462.723784)
    rec.record(host, "TaintHeldByBudget", "gpu-npd did not add taint ..", key="held")  # the writer's own: no line
    with ApiDouble() as api:
        core = make_api(Target(api.url))
        assert rec.flush(core, 5) == 2 and not rec.dropped["rejected"]
        times = {e["reason"]: at(e["eventTime"]) for e in api.events()}
        assert times == {"NCCLTimeout": 1725748462.723784, "TaintHeldByBudget": 1725748500.0}
        assert all(e["action"] == "Detected" and e["reportingInstance"] == node[:128] for e in api.events())
        t[0] += 30
        rec.record(pod, "NCCLTimeout", "rank 1 timed out; the job restarted", key="p")  # a later message, no line time
        rec.record(host, "TaintHeldByBudget", "gpu-npd did not add taint ..", key="held")
        assert rec.flush(core, 5) == 2 and not rec.dropped["rejected"]
        (ev,) = [e for e in api.events() if e["reason"] == "NCCLTimeout"]
        assert ev["message"].endswith("restarted") and at(ev["eventTime"]) == 1725748500.0
        assert ev["count"] == 2 and at(ev["lastTimestamp"]) == 1725748530.0
        (held,) = [e for e in api.events() if e["reason"] == "TaintHeldByBudget"]
        assert at(held["eventTime"]) == 1725748500.0 and held["count"] == 2  # first observed: kept


def test_the_double_refuses_a_node_event_outside_default_as_the_api_server_does():
    """legacyValidateEvent: an Event on a Node (no namespace of its own) with an eventTime is in `default` or
    `kube-system`; every Event the agent writes has one, in `default` (agent/kube/nodeapi.py NODE_EVENTS)."""
    rec = EventRecorder("gpu-npd", "node-a", burst=10, per_minute=600)
    rec.record(Ref("Node", "node-a"), "Xid79FallenOffBus", "GPU fell off the bus", key="n")
    with ApiDouble() as api:
        assert rec.flush(make_api(Target(api.url)), 5) == 0
    assert rec.dropped["rejected"] == 1


def test_one_cut_in_bytes_for_the_sink_and_the_agents_event_words():
    """kubeapi/message.py `cut` is the one byte cut: the sink's `message_of` (MESSAGE_MAX) and the busy Event's
    processes' sentence (agent/workloads.py, with an ellipsis) both; the idle agent loads it without the writers."""
    import agent.workloads
    from kubeapi import events, message

    assert events.message_of is message.message_of and agent.workloads.cut is message.cut
    assert message.cut("abc", 3, "\u2026") == "abc" and message.cut("abcd", 3) == "abc"
    assert message.cut("a\u00e9\u00e9\u00e9", 6, "\u2026") == "a\u00e9\u2026"  # 7 bytes: the mark's 3 in the room
    assert message.cut("\u00e9\u00e9", 3) == "\u00e9" and message.message_of("x" * 2000) == "x" * 1024
