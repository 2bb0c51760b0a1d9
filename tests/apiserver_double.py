"""An HTTP-level Kubernetes API double: KMock's emulator, extended with the Node semantics gpu-npd
relies on, for the real `kubernetes` client to talk to.

KMock parses the Kubernetes URLs and renders errors.  On top:
- Nodes: GET, label-selected LIST with limit/continue paging (resourceVersion "0", the watch cache: whole, limit
  ignored, as the watch cache of 1.30 serves it), PATCH of `nodes/status` with strategic
  merge of `status.conditions` by `type` (the content type is checked: a JSON merge patch would
  replace kubelet's conditions on a real server), PATCH of the node with `metadata.resourceVersion`
  checked (409 Conflict) and `spec.taints` replaced whole, as the real API server does, and validated as it does
  (`_taints_invalid`: a key no qualified name, a bad value or effect, a key and effect twice: the whole patch is 422).
- DRA (resource.k8s.io, only where a test serves it: `dra_versions`): discovery of the group and its
  versions, ResourceSlice LIST (fieldSelector spec.nodeName), DeviceTaintRule LIST (labelSelector), GET,
  CREATE (409 AlreadyExists on a taken name; 422 for an effect other than NoSchedule / NoExecute, as
  the API's validation) and DELETE (404 when absent); cluster-scoped, as upstream.
- Workloads for the fabric check: batch/v1 Jobs (create with 409 on a taken name, get, get status, list by
  label, delete with its pods unless propagationPolicy is Orphan); creating a Job creates its pods at once,
  one per node of the Job's kubernetes.io/hostname node affinity (nodeName set, the Job's labels plus
  job-name / batch.kubernetes.io/job-name, the completion index annotation); `job_result(nodes)` says how
  the Job ends (Complete by default, Failed, Running: never finishes, or Unschedulable:<node>: never
  finishes, that node's pod never bound); pods list (namespaced or across
  namespaces, by label and by spec.nodeName / status.phase field selectors), and pod logs
  (`/api/v1/namespaces/{ns}/pods/{name}/log`, text/plain) whose text `pod_log(job_nodes, node, index)`
  supplies.  `add_pod` adds a running pod (a GPU in use on a node).  Pods are deleted (DELETE, with a uid
  precondition: 409 when it names another pod), as `pods_deleted` records.  PATCH of `pods/{name}/status`: a
  strategic merge of `status.conditions` by `type`, the content type checked as for nodes (`pod_status_patches`).
- Watches and generic objects: nodes, pods, Jobs, Events, Leases and any resource a test serves
  (`serve(group, version, plural, kind)`, e.g. JobSets) keep a change log; `?watch=1` streams it from the
  asked resourceVersion (all current objects as ADDED when none is given), with label and field selectors,
  BOOKMARKs when asked, `timeoutSeconds`, and `410 Gone` (an ERROR event; with `gone_status`, the answer's HTTP
  status, as a server that reads etcd, not its watch cache, answers) for a resourceVersion older than the log
  keeps (`compact()` forgets it, as etcd's compaction).  Events, Leases and served resources get
  create (409 on a taken name), get, list (selectors, limit/continue), replace (409 on a stale
  resourceVersion), merge patch and delete (an Event the API's validation refuses, its eventTime without an action,
  is 422 Invalid: `_event_invalid`); ConfigMaps likewise (the DRA GPU budget's grants: a replace with
  a stale resourceVersion is a 409, so racing agents' compare-and-swap is tested as the API does it).
- Fault injection: latency, 429 with Retry-After, 5xx, dropped connections, one kind of request refused
  (for good, or its next N); and a hook that runs
  just before the next node PATCH (a concurrent writer); `cut_watches()` ends every open watch.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import threading
import time
from typing import Any, Callable

import bisect

import aiohttp.web
import kmock
import msgspec

NODES = kmock.resource("", "v1", "nodes")
_JOBS = re.compile(r"^/apis/batch/v1/namespaces/([^/]+)/jobs(?:/([^/]+)(?:/(status))?)?$")
_PODS = re.compile(r"^/api/v1/(?:namespaces/([^/]+)/)?pods(?:/([^/]+)(?:/(log|status))?)?$")
_ANY = re.compile(r"^/(?:api/(v1)|apis/([^/]+)/([^/]+))/(?:namespaces/([^/]+)/)?([a-z0-9.-]+)(?:/([^/]+)(?:/([^/]+))?)?$")
HISTORY = 20_000  # changes a store keeps for watches; older resourceVersions get 410 Gone
# field selectors by resource: the name the API serves -> where it is in the object (default: the dotted path)
FIELD_PATHS = {"events": {"source": "source.component"}}
# the field labels the API server selects Events by (kubernetes pkg/apis/core/v1/conversion.go,
# AddFieldLabelConversionsForEvent); any other is 400 BadRequest "field label not supported: <label>"
EVENT_FIELDS = frozenset({"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                          "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                          "involvedObject.fieldPath",
                          "reason", "reportingComponent", "source", "type", "metadata.namespace", "metadata.name"})
ENCODE = msgspec.json.Encoder().encode  # objects are serialised once, when changed or listed (a storm's hot path)
STRATEGIC = "application/strategic-merge-patch+json"


class Watched(dict):
    """A resource's objects by key ((namespace, name), or the name of a cluster-scoped object) that records
    every change with the double's resourceVersion, so that it can be listed and watched like the API's.
    Changes made in place are announced with `touch(key)`."""

    def __init__(self, double: "ApiDouble", plural: str, api_version: str, kind: str, namespaced: bool = True):
        super().__init__()
        self.double, self.plural, self.api_version, self.kind, self.namespaced = (
            double, plural, api_version, kind, namespaced)
        self.log: list[tuple[int, str, Any, str, dict]] = []  # (rv, type, key, the event as sent, object)
        self.compacted = 0  # the newest resourceVersion the log no longer holds

    def _note(self, kind: str, key: Any, obj: dict) -> None:
        if len(self.log) >= 2 * HISTORY:
            self.compacted = self.log[-HISTORY - 1][0]
            del self.log[:-HISTORY]
        self.log.append((self.double.rv, kind, key, ENCODE({"type": kind, "object": _public(obj)}), obj))

    def __setitem__(self, key: Any, obj: dict) -> None:
        with self.double.lock:
            kind = "MODIFIED" if key in self else "ADDED"
            self.double.rv += 1
            obj.setdefault("metadata", {})["resourceVersion"] = str(self.double.rv)
            super().__setitem__(key, obj)
            self._note(kind, key, obj)

    def touch(self, key: Any) -> None:
        with self.double.lock:
            obj = self[key]
            self.double.rv += 1
            obj["metadata"]["resourceVersion"] = str(self.double.rv)
            self._note("MODIFIED", key, obj)

    def __delitem__(self, key: Any) -> None:
        with self.double.lock:
            obj = super().pop(key)
            self.double.rv += 1
            self._note("DELETED", key, obj)

    def pop(self, key: Any, *default: Any) -> Any:
        with self.double.lock:
            if key not in self:
                if default:
                    return default[0]
                raise KeyError(key)
            obj = self[key]
            del self[key]
            return obj

    def compact(self) -> None:
        """Forget the change log (etcd compaction): a watch from an older resourceVersion gets 410 Gone."""
        with self.double.lock:
            self.compacted = self.double.rv
            self.log.clear()

    def matches(self, obj: dict, ns: str | None, labels: str, fields: str) -> bool:
        meta = obj.get("metadata", {})
        if ns is not None and meta.get("namespace") != ns:
            return False
        if labels and not _selects(labels, meta.get("labels") or {}):
            return False
        paths = FIELD_PATHS.get(self.plural, {})
        for term in filter(None, (t.strip() for t in fields.split(","))):
            neg = "!=" in term
            key, value = term.split("!=" if neg else "=", 1)
            key, value = key.rstrip("="), value.lstrip("=")
            got: Any = obj
            for part in paths.get(key, key).split("."):
                got = got.get(part, "") if isinstance(got, dict) else ""
            if (str(got) == value) == neg:
                return False
        return True


def _after(log: list, rv: int) -> int:
    """Index of the first change after resourceVersion `rv`."""
    return bisect.bisect_right(log, rv, key=lambda e: e[0])


def _public(obj: dict) -> dict:
    return {k: v for k, v in obj.items() if not k.startswith("_")}


def _status(code: int, reason: str, message: str, headers: dict | None = None) -> aiohttp.web.Response:
    body = {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}
    return aiohttp.web.json_response(body, status=code, headers=headers)


def _conflict(what: str) -> aiohttp.web.Response:
    """409 for a write with a stale resourceVersion (or a failed precondition), worded as the API server does."""
    return _status(409, "Conflict", f"Operation cannot be fulfilled on {what}: the object has been modified; "
                   "please apply your changes to the latest version and try again")


def _exists(what: str) -> aiohttp.web.Response:
    """409 for a create whose name is taken."""
    return _status(409, "AlreadyExists", f"{what} already exists")


def _not_strategic(ctype: str) -> aiohttp.web.Response | None:
    """415 for a status patch that is not a strategic merge (a JSON merge patch would replace the list whole)."""
    if ctype == STRATEGIC:
        return None
    return _status(415, "UnsupportedMediaType", f"status patch must be a strategic merge, got {ctype}")


def _list_of(api_version: str, kind: str, rv: int, items: list) -> aiohttp.web.Response:
    return aiohttp.web.json_response({"apiVersion": api_version, "kind": kind,
                                      "metadata": {"resourceVersion": str(rv)}, "items": items})


def _event_invalid(ev: dict) -> str | None:
    """What the API server's validation of a core/v1 Event refuses in `ev` (422 Invalid), None where it accepts it:
    an Event with an eventTime must name its reportingComponent, its reportingInstance (128 characters at most) and
    its action (128 at most), its reason at most 128 characters and its message 1024 bytes; and an Event on an object
    of no namespace (a Node) is in `default` or `kube-system` with an eventTime, `default` without, one on an object
    of a namespace (a Pod) without an eventTime in the object's (kubernetes
    pkg/apis/core/validation/events.go legacyValidateEvent; on create and on update alike, where the result of a
    patch is validated)."""
    ns, of = (ev.get("metadata") or {}).get("namespace") or "", (ev.get("involvedObject") or {}).get("namespace") or ""
    timed = bool(ev.get("eventTime"))
    if (of != ns and not timed) if of else ns not in (("default", "kube-system") if timed else ("", "default")):
        return "involvedObject.namespace: Invalid value: does not match event.namespace"
    if not timed:
        return None
    for name, limit in (("reportingComponent", None), ("reportingInstance", 128), ("action", 128), ("reason", 128)):
        value = ev.get(name) or ""
        if not value:
            return f"{name}: Required value"
        if limit is not None and len(value) > limit:
            return f"{name}: Invalid value: can have at most {limit} characters"
    if len((ev.get("message") or "").encode()) > 1024:  # Go's len: bytes
        return "message: Invalid value: can have at most 1024 characters"
    return None


_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = re.compile(rf"{_DNS_LABEL}(\.{_DNS_LABEL})*")
_NAME_PART = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_QUALIFIED = ("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
              "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
              "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
              "'/' (e.g. 'example.com/MyName')")


def _taints_invalid(taints: list) -> str | None:
    """What the API server's validation of a Node's `spec.taints` refuses (422 Invalid: the whole update, every
    other taint in it too), None where it accepts them: a key is a qualified name (one '/' at most; the prefix a DNS
    subdomain of at most 253 characters, the name at most 63 of [A-Za-z0-9._-], alphanumeric at both ends), a value
    a label value, an effect one of three, and no two taints with one key and effect (kubernetes
    pkg/apis/core/validation validateNodeTaints, k8s.io/apimachinery pkg/util/validation IsQualifiedName; the
    message as kubernetes-sigs/node-readiness-controller #155 quotes it for `readiness.k8s.io/falco.org/..`)."""
    seen = set()
    for i, t in enumerate(taints):
        key, where = str(t.get("key", "")), f"spec.taints[{i}]"
        parts = key.split("/")
        prefix, name = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
        if len(parts) > 2:
            return f'{where}.key: Invalid value: "{key}": {_QUALIFIED}'
        if len(parts) == 2 and (len(prefix) > 253 or not _SUBDOMAIN.fullmatch(prefix)):
            return f'{where}.key: Invalid value: "{key}": prefix part a lowercase RFC 1123 subdomain ...'
        if not name or len(name) > 63 or not _NAME_PART.fullmatch(name):
            return f'{where}.key: Invalid value: "{key}": name part must be no more than 63 characters, {_QUALIFIED}'
        if len(str(t.get("value", ""))) > 63 or not _LABEL_VALUE.fullmatch(str(t.get("value", ""))):
            return f'{where}.value: Invalid value: "{t.get("value")}": a valid label value ...'
        if t.get("effect") not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            return f'{where}.effect: Unsupported value: "{t.get("effect")}"'
        if (key, t["effect"]) in seen:
            return f"{where}: Duplicate value: taints must be unique by key and effect pair"
        seen.add((key, t["effect"]))
    return None


def _merge(dst: dict, patch: dict) -> None:
    """RFC 7386 JSON merge patch (lists replaced whole, null deletes)."""
    for k, v in patch.items():
        if v is None:
            dst.pop(k, None)
        elif isinstance(v, dict):  # an object merges into the target's, or into {} (its nulls then delete nothing)
            if not isinstance(dst.get(k), dict):
                dst[k] = {}
            _merge(dst[k], v)
        else:
            dst[k] = copy.deepcopy(v)


def _merge_conditions(current: list[dict], patch: list[dict]) -> list[dict]:
    """A strategic merge of `conditions` by their merge key `type`, with the `$patch: delete` directive."""
    conds = {c["type"]: c for c in current}
    for c in patch:
        if c.get("$patch") == "delete":
            conds.pop(c["type"], None)
        else:
            conds[c["type"]] = {**conds.get(c["type"], {}), **c}
    return list(conds.values())


def _selects(selector: str, labels: dict[str, str]) -> bool:
    for term in filter(None, (t.strip() for t in selector.split(","))):
        if "!=" in term:
            k, v = term.split("!=", 1)
            if labels.get(k) == v:
                return False
        elif "=" in term:
            k, v = term.replace("==", "=").split("=", 1)
            if labels.get(k) != v:
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True


class _Emulator(kmock.KubernetesEmulator):
    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        self.double: "ApiDouble" = None  # type: ignore[assignment]

    async def _handle(self, request):  # noqa: C901 - one dispatcher for the node semantics
        d = self.double
        path = request.url.path
        ctype = request.headers.get("Content-Type", "")
        d.requests.append((request.method.value, path, dict(request.params), ctype))
        fault = d.fault
        if fault and time.monotonic() < fault.get("until", float("inf")):
            if fault.get("latency"):
                await asyncio.sleep(fault["latency"])
            if fault.get("status"):
                d.refused(fault)
                headers = {"Retry-After": str(fault["retry_after"])} if fault.get("retry_after") else None
                return _status(fault["status"], "Injected", "injected failure", headers)
            # (method, path-suffix regex, status, Status reason, Status message): one kind of request refused for
            # good; forbid: (method, path-suffix regex, message) as 403 Forbidden, RBAC denying one verb
            forbid = fault.get("forbid")
            refuse = fault.get("refuse") or (forbid and (forbid[0], forbid[1], 403, "Forbidden", forbid[2]))
            if refuse and request.method.value == refuse[0] and re.search(refuse[1] + "$", path):
                d.refused(fault)
                return _status(*refuse[2:])
            if fault.get("drop"):
                d.refused(fault)
                request._raw_request.transport.close()
                return aiohttp.web.Response(status=500)
            lose = fault.get("lose_reply")  # True: every write; (method, path-suffix regex): one kind of write
            if lose and request.method.value in ("POST", "PATCH", "PUT") and (
                    lose is True or (request.method.value == lose[0] and re.search(lose[1] + "$", path))):
                d.refused(fault)
                await self._serve(request)  # the write is committed ...
                request._raw_request.transport.close()  # ... and its reply never reaches the client
                return aiohttp.web.Response(status=500)
        return await self._serve(request)

    async def _serve(self, request):  # noqa: C901 - one dispatcher for the node semantics
        d = self.double
        m = _ANY.match(request.url.path)
        store = d.stores.get((m.group(2) or "", m.group(5))) if m else None
        if store is not None and store.plural == "events" and request.method.value == "GET":
            for term in filter(None, (t.strip() for t in request.params.get("fieldSelector", "").split(","))):
                label = re.split(r"!?==?", term, maxsplit=1)[0]
                if label not in EVENT_FIELDS:
                    return _status(400, "BadRequest", f"field label not supported: {label}")
        if store is not None and request.method.value == "GET" and request.params.get("watch") in ("1", "true", "True"):
            return await self._watch(request, store, m.group(4))
        if request.url.path.startswith("/apis/resource.k8s.io"):
            return self._dra(request)
        gv = re.match(r"^/apis/([^/]+/[^/]+)/?$", request.url.path)
        if gv and request.method.value == "GET":  # discovery of the served resources of a group version
            served = [st for st in d.stores.values() if st.api_version == gv.group(1)]
            if not served:
                return _status(404, "NotFound", "the server could not find the requested resource")
            return aiohttp.web.json_response({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv.group(1),
                                              "resources": [{"name": st.plural, "kind": st.kind,
                                                             "namespaced": st.namespaced,
                                                             "verbs": ["get", "list", "watch"]} for st in served]})
        if _JOBS.match(request.url.path) or _PODS.match(request.url.path):
            return self._workloads(request)
        if store is not None and store.plural != "nodes":
            return self._generic(request, store, m.group(4), m.group(6), m.group(7))
        ctype = request.headers.get("Content-Type", "")
        if request.method.value == "PATCH" and ctype == "application/json-patch+json" and not isinstance(request.data, list):
            return _status(400, "BadRequest", "json patch body must be a list of operations")
        if request.resource != NODES:
            return await super()._handle(request)
        method, name, sub = request.method.value, request.name, request.subresource
        with d.lock:
            if method == "GET" and name is None:
                d.lists += 1
                return self._page(request, d.nodes, None)
            node = d.nodes.get(name)
            if node is None:
                return _status(404, "NotFound", f'nodes "{name}" not found')
            if method == "GET":
                return aiohttp.web.json_response(node)
            if method != "PATCH":
                return _status(405, "MethodNotAllowed", method)
            patch = request.data or {}
            if sub == "status":
                refused = _not_strategic(ctype)
                if refused is not None:
                    return refused
                status = patch.get("status", {})
                rest = {k: v for k, v in status.items() if k != "conditions"}
                _merge(node["status"], rest)
                node["status"]["conditions"] = _merge_conditions(node["status"].get("conditions", []),
                                                                 status.get("conditions", []))
                d.status_patches += 1
            else:
                hooks, d.before_node_patch = d.before_node_patch, []
                for hook in hooks:
                    hook(node)
                    d.bump(node)
                want = patch.get("metadata", {}).get("resourceVersion")
                if want is not None and want != node["metadata"]["resourceVersion"]:
                    d.conflicts += 1
                    return _conflict(f'nodes "{name}"')
                body = copy.deepcopy(patch)
                body.get("metadata", {}).pop("resourceVersion", None)
                taints = body.get("spec", {}).get("taints")
                invalid = _taints_invalid(taints) if isinstance(taints, list) else None
                if invalid is not None:  # the whole update refused: no taint of it is written
                    d.invalid_node_patches += 1
                    return _status(422, "Invalid", f'Node "{name}" is invalid: {invalid}')
                _merge(node, body)  # spec.taints has no merge key: the list is replaced whole
                for key in ("annotations", "labels"):  # the server serialises an empty map as absent (omitempty)
                    if node["metadata"].get(key) == {}:
                        del node["metadata"][key]
                d.node_patches += 1
            d.bump(node)
            return aiohttp.web.json_response(node)

    def _generic(self, request, store: "Watched", ns: str | None, name: str | None,  # noqa: C901
                 sub: str | None) -> aiohttp.web.Response:
        """Create / get / list / replace / merge-patch / delete of any watched resource, as the API does them."""
        d, method = self.double, request.method.value
        what = f"{store.plural} \"{name}\""
        with d.lock:
            if method == "GET" and name is None:
                return self._page(request, store, ns)
            if method == "POST" and name is None:
                body = copy.deepcopy(request.data or {})
                meta = body.setdefault("metadata", {})
                name = meta.get("name") or f"{meta.get('generateName', 'x-')}{d.rv + 1:x}"
                meta.update(name=name, uid=meta.get("uid") or f"uid-{name}",
                            creationTimestamp=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
                if store.namespaced:
                    meta["namespace"] = ns
                key = (ns, name) if store.namespaced else name
                if key in store:
                    return _exists(f"{store.plural} \"{name}\"")
                invalid = _event_invalid(body) if store.plural == "events" else None
                if invalid is not None:
                    return _status(422, "Invalid", f"Event \"{name}\" is invalid: {invalid}")
                store[key] = body
                return aiohttp.web.json_response(_public(body), status=201)
            key = (ns, name) if store.namespaced else name
            obj = store.get(key)
            if obj is None:
                return _status(404, "NotFound", f"{what} not found")
            if method == "GET":
                return aiohttp.web.json_response(_public(obj))
            if method == "DELETE":
                del store[key]
                return aiohttp.web.json_response({"apiVersion": "v1", "kind": "Status", "status": "Success"})
            body = copy.deepcopy(request.data or {})
            want = body.get("metadata", {}).get("resourceVersion")
            if want is not None and want != obj["metadata"].get("resourceVersion"):
                d.conflicts += 1
                return _conflict(what)
            if method == "PUT":
                body["metadata"].update({k: v for k, v in obj["metadata"].items()
                                         if k in ("uid", "creationTimestamp", "namespace")})
                store[key] = body
            elif method == "PATCH":
                if store.plural == "events":
                    d.event_patches += 1
                    after = copy.deepcopy(obj)
                    _merge(after, body)
                    invalid = _event_invalid(after)
                    if invalid is not None:
                        return _status(422, "Invalid", f"Event \"{name}\" is invalid: {invalid}")
                body.get("metadata", {}).pop("resourceVersion", None)
                _merge(obj, body)
                store.touch(key)
            else:
                return _status(405, "MethodNotAllowed", method)
            return aiohttp.web.json_response(_public(store[key]))

    async def _watch(self, request, store: "Watched", ns: str | None):  # noqa: C901 - one stream
        """A watch stream: ADDED for what exists (no resourceVersion) or the changes after the one asked, then
        changes as they come; BOOKMARKs when allowed; 410 Gone for a compacted resourceVersion."""
        d, params = self.double, request.params
        labels, fields = params.get("labelSelector", ""), params.get("fieldSelector", "")
        selective = bool(ns or labels or fields)
        bookmarks = params.get("allowWatchBookmarks") in ("true", "1", "True")
        timeout = float(params.get("timeoutSeconds") or 0) or None
        generation = d.watch_generation
        rv = params.get("resourceVersion") or ""
        if d.gone_status and rv not in ("", "0") and int(rv) < store.compacted:
            return _status(410, "Expired", f"too old resource version: {rv} ({store.compacted})")
        resp = aiohttp.web.StreamResponse(headers={"Content-Type": "application/json"})
        await resp.prepare(request._raw_request)
        if d.short_watches:  # a proxy ending each stream at once, nothing sent but what it is given (blank lines)
            if isinstance(d.short_watches, bytes):
                await resp.write(d.short_watches)
            return resp

        def gone(cursor: int) -> list[str]:
            return [ENCODE({"type": "ERROR", "object": {
                "apiVersion": "v1", "kind": "Status", "status": "Failure", "reason": "Expired", "code": 410,
                "message": f"too old resource version: {cursor} ({store.compacted})"}})]

        with d.lock:
            rv = params.get("resourceVersion") or ""
            cursor: int | None
            if rv in ("", "0"):
                lines = [ENCODE({"type": "ADDED", "object": _public(o)}) for o in list(store.values())
                         if store.matches(o, ns, labels, fields)]
                cursor = d.rv
            elif int(rv) < store.compacted:
                lines, cursor = gone(int(rv)), None
            else:
                lines, cursor = [], int(rv)
        start = last = time.monotonic()
        try:
            while True:
                if lines:
                    await resp.write(b"".join(x + b"\n" for x in lines))
                if cursor is None:
                    break
                now = time.monotonic()
                if d.watch_generation != generation or (timeout is not None and now - start >= timeout):
                    break
                if bookmarks and now - last >= d.bookmark_seconds:
                    last = now
                    lines = [ENCODE({"type": "BOOKMARK", "object": {
                        "kind": store.kind, "apiVersion": store.api_version,
                        "metadata": {"resourceVersion": str(cursor)}}})]
                    continue
                await asyncio.sleep(0.02)
                with d.lock:
                    if cursor < store.compacted:
                        lines, cursor = gone(cursor), None
                        continue
                    log = store.log
                    i = _after(log, cursor)
                    lines = [line for _rv, _k, _key, line, obj in log[i:i + 2000]
                             if not selective or store.matches(obj, ns, labels, fields)]
                    if i < len(log):
                        cursor = log[min(i + 2000, len(log)) - 1][0]
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return resp

    def _dra(self, request) -> aiohttp.web.Response:  # noqa: C901 - discovery and two resources
        d = self.double
        parts = request.url.path.strip("/").split("/")[2:]  # after apis/resource.k8s.io
        method = request.method.value
        with d.lock:
            served = d.dra_versions or {}
            if not served:
                return _status(404, "NotFound", "the server could not find the requested resource")
            if not parts:
                vs = [{"groupVersion": f"resource.k8s.io/{v}", "version": v} for v in served]
                return aiohttp.web.json_response({"kind": "APIGroup", "apiVersion": "v1", "name": "resource.k8s.io",
                                                  "versions": vs, "preferredVersion": vs[0]})
            version, rest = parts[0], parts[1:]
            if version not in served or (rest and rest[0] not in served[version]):
                return _status(404, "NotFound", "the server could not find the requested resource")
            if not rest:
                return aiohttp.web.json_response({"kind": "APIResourceList", "groupVersion": f"resource.k8s.io/{version}",
                                                  "resources": [{"name": n, "namespaced": False, "kind": n}
                                                                for n in served[version]]})
            kind, name = rest[0], (rest[1] if len(rest) > 1 else None)
            if kind == "resourceslices" and method == "GET":
                node = request.params.get("fieldSelector", "").removeprefix("spec.nodeName=")
                items = [sl for sl in d.resource_slices if not node or sl["spec"].get("nodeName") == node]
                return aiohttp.web.json_response({"kind": "ResourceSliceList", "metadata": {}, "items": items})
            if kind != "devicetaintrules":
                return _status(405, "MethodNotAllowed", method)
            if method == "GET" and name is None:
                sel = request.params.get("labelSelector", "")
                items = [r for _, r in sorted(d.device_taint_rules.items())
                         if _selects(sel, r["metadata"].get("labels", {}))]
                return aiohttp.web.json_response({"kind": "DeviceTaintRuleList", "metadata": {}, "items": items})
            if method == "GET":
                if name not in d.device_taint_rules:
                    return _status(404, "NotFound", f'devicetaintrules.resource.k8s.io "{name}" not found')
                return aiohttp.web.json_response(d.device_taint_rules[name])
            if method == "POST":
                body = request.data or {}
                name = body.get("metadata", {}).get("name", "")
                if name in d.device_taint_rules:
                    return _exists(f'devicetaintrules.resource.k8s.io "{name}"')
                effect = body.get("spec", {}).get("taint", {}).get("effect")
                if effect not in ("NoSchedule", "NoExecute"):
                    return _status(422, "Invalid", f"spec.taint.effect: Unsupported value: {effect!r}")
                self.double.rv += 1
                body["metadata"]["resourceVersion"] = str(self.double.rv)
                d.device_taint_rules[name] = copy.deepcopy(body)
                return aiohttp.web.json_response(body, status=201)
            if method == "DELETE" and name is not None:
                if d.device_taint_rules.pop(name, None) is None:
                    return _status(404, "NotFound", f'devicetaintrules.resource.k8s.io "{name}" not found')
                return aiohttp.web.json_response({"kind": "Status", "status": "Success"})
            return _status(405, "MethodNotAllowed", method)

    def _workloads(self, request) -> aiohttp.web.Response:  # noqa: C901 - Jobs, their pods and logs
        d = self.double
        path, method = request.url.path, request.method.value
        with d.lock:
            m = _JOBS.match(path)
            if m:
                ns, name, sub = m.groups()
                if method == "POST" and name is None:
                    body = copy.deepcopy(request.data or {})
                    name = body.get("metadata", {}).get("name", "")
                    if (ns, name) in d.jobs:
                        return _exists(f'jobs.batch "{name}"')
                    return aiohttp.web.json_response(d.start_job(ns, body), status=201)
                if method == "GET" and name is None:
                    sel = request.params.get("labelSelector", "")
                    return _list_of("batch/v1", "JobList", d.rv, [
                        j for (n, _), j in sorted(d.jobs.items()) if n == ns and _selects(sel, j["metadata"].get("labels", {}))])
                job = d.jobs.get((ns, name))
                if job is None:
                    return _status(404, "NotFound", f'jobs.batch "{name}" not found')
                if method == "GET":
                    return aiohttp.web.json_response(job)
                if method == "DELETE" and sub is None:
                    policy = request.params.get("propagationPolicy") or (request.data or {}).get("propagationPolicy")
                    del d.jobs[(ns, name)]
                    d.jobs_deleted.append(name)
                    if policy != "Orphan":
                        for key in [k for k, p in d.pods.items() if p["metadata"]["labels"].get("job-name") == name]:
                            del d.pods[key]
                    return aiohttp.web.json_response({"apiVersion": "v1", "kind": "Status", "status": "Success"})
                return _status(405, "MethodNotAllowed", method)
            ns, name, sub = _PODS.match(path).groups()
            if method == "DELETE" and name is not None and sub is None:
                pod = d.pods.get((ns, name))
                if pod is None:
                    return _status(404, "NotFound", f'pods "{name}" not found')
                uid = ((request.data or {}).get("preconditions") or {}).get("uid")
                if uid and uid != pod["metadata"].get("uid"):
                    return _status(409, "Conflict", f"Precondition failed: UID in precondition: {uid}, UID in object "
                                   f"meta: {pod['metadata'].get('uid')}")
                del d.pods[(ns, name)]
                d.pods_deleted.append((ns, name))
                return aiohttp.web.json_response(_public(pod))
            if method == "PATCH" and sub == "status" and (ns, name) in d.pods:
                return self._pod_status(ns, name, request)
            if method != "GET":
                return _status(405, "MethodNotAllowed", method)
            if name is None:
                sel, fields = request.params.get("labelSelector", ""), request.params.get("fieldSelector", "")
                return _list_of("v1", "PodList", d.rv,
                                [p for _, p in sorted(d.pods.items()) if d.pods.matches(p, ns, sel, fields)])
            pod = d.pods.get((ns, name))
            if pod is None:
                return _status(404, "NotFound", f'pods "{name}" not found')
            if sub == "log":
                d.logs_read.append(name)
                return aiohttp.web.Response(text=pod.get("_log", ""), content_type="text/plain")
            return aiohttp.web.json_response({k: v for k, v in pod.items() if k != "_log"})

    def _pod_status(self, ns: str, name: str, request) -> aiohttp.web.Response:
        """pods/status: strategic merge of status.conditions by type, `$patch: delete` included (others' stay)."""
        d = self.double
        refused = _not_strategic(request.headers.get("Content-Type", ""))
        if refused is not None:
            return refused
        pod = d.pods[(ns, name)]
        pod["status"]["conditions"] = _merge_conditions(pod["status"].get("conditions", []),
                                                        (request.data or {}).get("status", {}).get("conditions", []))
        d.pods.touch((ns, name))
        d.pod_status_patches.append((ns, name))
        return aiohttp.web.json_response(_public(pod))

    def _page(self, request, store: "Watched", ns: str | None) -> aiohttp.web.Response:
        """A paged LIST (selectors, limit/continue) of a snapshot taken when the list began: the continue token
        names it (its resourceVersion) and the offset; a resource keeps one list's snapshot, so a token whose list
        another one replaced is 410 Expired, as one the server compacted away."""
        d = self.double
        labels, fields = request.params.get("labelSelector", ""), request.params.get("fieldSelector", "")
        token = request.params.get("continue") or ""
        snap_rv, _, offset = token.partition(":")
        asked = (ns, labels, fields, snap_rv)
        held, snapshot = d.list_snapshots.get(store.plural, (None, None))
        if not token:
            snap_rv = str(d.rv)
            snapshot = [ENCODE(_public(o)) for _, o in sorted(store.items(), key=lambda kv: str(kv[0]))
                        if store.matches(o, ns, labels, fields)]
            d.list_snapshots[store.plural] = ((ns, labels, fields, snap_rv), snapshot)
        elif held != asked:
            return _status(410, "Expired", "the provided continue parameter is too old")
        start = int(offset or 0)
        limit = int(request.params.get("limit") or 0) or len(snapshot)
        if not token and request.params.get("resourceVersion") == "0":
            limit = len(snapshot)  # the watch cache (1.30 to 1.33) serves resourceVersion "0" whole: limit ignored
        if store.plural == "nodes":
            d.listed += len(snapshot[start:start + limit])
        meta: dict[str, Any] = {"resourceVersion": snap_rv}
        if start + limit < len(snapshot):
            meta["continue"] = f"{snap_rv}:{start + limit}"
        head = ENCODE({"apiVersion": store.api_version, "kind": store.kind + "List", "metadata": meta})
        return aiohttp.web.Response(body=head[:-1] + b',"items":[' + b",".join(snapshot[start:start + limit]) + b"]}",
                                    content_type="application/json")


class ApiDouble:
    """Run the double on a free localhost port in a background thread: `with ApiDouble() as api: api.url`."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.rv = 1000
        self.nodes: Watched = Watched(self, "nodes", "v1", "Node", namespaced=False)
        self.fault: dict[str, Any] | None = None
        self.before_node_patch: list[Callable[[dict], None]] = []
        self.requests: list[tuple] = []
        self.dra_versions: dict[str, list[str]] | None = None  # e.g. {"v1": ["resourceslices"], "v1alpha3": [...]}
        self.resource_slices: list[dict] = []
        self.device_taint_rules: dict[str, dict] = {}
        self.jobs: Watched = Watched(self, "jobs", "batch/v1", "Job")
        self.pods: Watched = Watched(self, "pods", "v1", "Pod")
        self.event_store: Watched = Watched(self, "events", "v1", "Event")
        self.leases: Watched = Watched(self, "leases", "coordination.k8s.io/v1", "Lease")
        self.configmaps: Watched = Watched(self, "configmaps", "v1", "ConfigMap")
        self.stores: dict[tuple[str, str], Watched] = {
            ("", "nodes"): self.nodes, ("", "pods"): self.pods, ("batch", "jobs"): self.jobs,
            ("", "events"): self.event_store, ("coordination.k8s.io", "leases"): self.leases,
            ("", "configmaps"): self.configmaps}
        self.list_snapshots: dict[str, tuple] = {}  # resource -> the paged list being read: (what, its objects)
        self.watch_generation = 0  # cut_watches() ends the streams of an older generation
        self.short_watches: bool | bytes = False  # True: every watch stream ends at once, nothing sent (a proxy
        # closing it); bytes: the same, after writing them (keep-alive blank lines, no event)
        self.bookmark_seconds = 1.0
        self.gone_status = False  # a watch from a compacted resourceVersion: HTTP 410 (True) or an ERROR event
        self.jobs_created: list[str] = []
        self.jobs_deleted: list[str] = []
        self.pods_deleted: list[tuple[str, str]] = []
        self.pod_status_patches: list[tuple[str, str]] = []
        self.logs_read: list[str] = []
        self.pod_log: Callable[[tuple[str, ...], str, int], str] = lambda nodes, node, index: ""
        self.job_result: Callable[[tuple[str, ...]], str] = lambda nodes: "Complete"
        self.status_patches = self.node_patches = self.conflicts = self.lists = self.event_patches = self.rejected = 0
        self.invalid_node_patches = 0  # node PATCHes refused 422 (a taint the API's validation refuses)
        self.listed = 0  # Node objects served by LISTs (the budget's pool lists)
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.kmock: _Emulator | None = None
        self.url = ""

    def __enter__(self) -> "ApiDouble":
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), name="api-double", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("API double did not start")
        return self

    def __exit__(self, *exc) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(5)

    async def _main(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        async with _Emulator() as km, kmock.Server(km) as srv:
            km.double = self
            self.kmock = km
            self.url = str(srv.url).rstrip("/")
            self._ready.set()
            await self._stop.wait()

    # ---- state for tests ----------------------------------------------------------------------------

    def bump(self, node: dict) -> None:
        name = node["metadata"]["name"]
        with self.lock:
            if self.nodes.get(name) is node:
                self.nodes.touch(name)
            else:
                self.rv += 1
                node["metadata"]["resourceVersion"] = str(self.rv)

    def serve(self, group: str, version: str, plural: str, kind: str, namespaced: bool = True) -> Watched:
        """Serve another resource (an owner kind such as JobSet): CRUD, list and watch."""
        store = self.stores[(group, plural)] = Watched(self, plural, f"{group}/{version}" if group else version,
                                                       kind, namespaced)
        return store

    def cut_watches(self) -> None:
        """End every open watch stream (an API server restart, a load balancer's idle timeout)."""
        self.watch_generation += 1

    def add_node(self, name: str, labels: dict | None = None, taints: list | None = None, gpus: int = 8,
                 conditions: list | None = None) -> dict:
        node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": {"nvidia.com/gpu.present": "true", **(labels or {})}},
                "spec": {"taints": list(taints or [])} if taints else {},
                "status": {"capacity": {"nvidia.com/gpu": str(gpus), "cpu": "128"},
                           "conditions": list(conditions or [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                                              "message": "kubelet is posting ready status"}])}}
        with self.lock:
            self.nodes[name] = node
        return node

    def node(self, name: str) -> dict:
        with self.lock:
            return copy.deepcopy(self.nodes[name])

    def taints(self, name: str) -> list[dict]:
        return self.node(name).get("spec", {}).get("taints") or []

    def conditions(self, name: str) -> dict[str, dict]:
        return {c["type"]: c for c in self.node(name)["status"].get("conditions", [])}

    def events(self) -> list[dict]:
        with self.lock:
            return [json.loads(json.dumps(o)) for o in self.event_store.values()]

    def add_pod(self, namespace: str, name: str, node: str, gpus: int = 0, phase: str = "Running") -> dict:
        limits = {"nvidia.com/gpu": str(gpus)} if gpus else {}
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": name, "namespace": namespace, "labels": {}, "uid": f"uid-{name}"},
               "spec": {"nodeName": node, "containers": [{"name": "main", "image": "train:1",
                                                          "resources": {"limits": limits}}]},
               "status": {"phase": phase}}
        with self.lock:
            self.pods[(namespace, name)] = pod
        return pod

    def start_job(self, ns: str, body: dict) -> dict:
        """A created Job and its pods, finished as `job_result` says (called under the lock)."""
        name = body["metadata"]["name"]
        self.rv += 1
        body["metadata"].update({"namespace": ns, "uid": f"uid-{name}", "resourceVersion": str(self.rv),
                                 "creationTimestamp": "2025-01-01T00:00:00Z"})
        spec = body["spec"]
        tmpl = spec["template"]
        terms = tmpl["spec"].get("affinity", {}).get("nodeAffinity", {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", [])
        nodes = tuple(v for t in terms for e in t.get("matchExpressions", [])
                      if e.get("key") == "kubernetes.io/hostname" for v in e.get("values", []))
        result = self.job_result(nodes)
        # "Unschedulable:<node>": that node's pod is never bound (the node taken since), the others run on
        unplaced = result.partition(":")[2] if result.startswith("Unschedulable:") else None
        phase = {"Complete": "Succeeded", "Failed": "Failed"}.get(result, "Running")
        for i in range(int(spec.get("parallelism", 1))):
            node = nodes[i % len(nodes)] if nodes else ""
            if unplaced is not None:
                phase, node = ("Pending", "") if node == unplaced else ("Running", node)
            pname = f"{name}-{i}-x{i:04d}"
            labels = {**tmpl.get("metadata", {}).get("labels", {}), "job-name": name,
                      "batch.kubernetes.io/job-name": name, "controller-uid": f"uid-{name}"}
            pod_spec = {**copy.deepcopy(tmpl["spec"]), "nodeName": node}
            self.pods[(ns, pname)] = {
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": pname, "namespace": ns, "labels": labels, "uid": f"uid-{pname}",
                             "annotations": {"batch.kubernetes.io/job-completion-index": str(i)}},
                "spec": pod_spec, "status": {"phase": phase},
                "_log": "" if unplaced is not None else self.pod_log(nodes, node, i)}
        n = int(spec.get("completions", 1))
        status: dict[str, Any] = {"active": n if result == "Running" else 0}
        if result == "Complete":
            status.update(succeeded=n, conditions=[{"type": "Complete", "status": "True"}])
        elif result == "Failed":
            status.update(failed=1, conditions=[{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
                                                 "message": "Job has reached the specified backoff limit"}])
        body["status"] = status
        self.jobs[(ns, name)] = body
        self.jobs_created.append(name)
        return body

    def set_fault(self, **fault) -> None:
        """e.g. set_fault(status=503), set_fault(status=429, retry_after=1), set_fault(drop=True),
        set_fault(latency=2.0), set_fault(lose_reply=True) (writes are committed, their replies lost;
        lose_reply=("POST", "/events") for one kind of write, the path given as a suffix regex),
        set_fault(forbid=("GET", "/api/v1/nodes", message)) (403 with that Status message for one kind of request),
        set_fault(refuse=("POST", "/events", 422, "Invalid", message)) (any status, reason and message),
        with `seconds=` to end it by itself, or `times=` (the requests refused: the next one is served, e.g.
        times=12 with refuse=("DELETE", "/pods/w-0", 503, ...): one pod's deletion refused 12 times in a row;
        status=503, times=2: an outage that ends after two refused requests however late the client comes, where
        `seconds=` may pass before a loaded machine's client has asked anything); set_fault() clears."""
        if fault.get("seconds"):
            fault["until"] = time.monotonic() + fault.pop("seconds")
        self.fault = fault or None

    def quiet(self, seconds: float = 2.0, timeout: float = 60.0) -> None:
        """Returns once no request has come for `seconds`: a client's start-up requests done and, at the agent's
        defaults (qps 5, burst 10), its client-side rate limit full again, so that what a test measures next is
        not the start-up's requests' pacing.  AssertionError after `timeout`."""
        deadline = time.monotonic() + timeout
        seen, since = len(self.requests), time.monotonic()
        while time.monotonic() - since < seconds:
            if time.monotonic() > deadline:
                raise AssertionError(f"the API double was never quiet for {seconds} s within {timeout} s")
            time.sleep(0.05)
            if len(self.requests) != seen:
                seen, since = len(self.requests), time.monotonic()

    def refused(self, fault: dict[str, Any]) -> None:
        """One request refused by `fault`: counted in `rejected`; the fault cleared after its `times=`."""
        self.rejected += 1
        if fault.get("times") is not None:
            fault["times"] -= 1
            if fault["times"] <= 0 and self.fault is fault:
                self.fault = None
