"""`gpu-npd cleanup`: remove what gpu-npd wrote, from every node, after an uninstall (or before a reinstall).

What is gpu-npd's (owner-checked; nothing else is touched):
- node taints of gpu-npd's keys: the taint prefix (gpu-npd.io/) and one of its condition types, as the agent's
  writer names them (any other key, under the prefix or not, is someone else's);
- node conditions of gpu-npd's condition types (its configuration's, the checks' included); the types it shares
  with other writers (a repair profile's AcceleratedHardwareReady) only when the message carries gpu-npd's mark;
- the repair annotation (kubernetes.repair_annotation_key);
- fabric-check's FabricCheckFailed (parsers/kinds.py FABRIC_CONDITION);
- DeviceTaintRules labelled app.kubernetes.io/managed-by=gpu-npd, and the budgets' ConfigMaps of grants (the DRA GPU
  budget's kubernetes.dra_budget_configmap, the node-taint budget's kubernetes.taint_budget_configmap; each when it
  carries that label);
- pod conditions whose type starts with the taint prefix, and the pod fault condition (agent/kube/podfault.py's
  CONDITION_TYPE, whatever the prefix).
Ours is what the writers' own functions name (desired.our_taint_keys; kubeapi/reserved.py for the kubelet's
condition types, never ours whatever a configuration says).
Pure part: `plan_node`, `plan_pod` (an object in, the changes out). Edge: `Cleaner` lists, patches and deletes,
dry-run unless told to apply. Node patches carry the read resourceVersion and are retried on 409.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from kubeapi.client import call
from kubeapi.pager import items
from kubeapi.reserved import reserved_condition
from kubeapi.retry import api_errors, describe
from parsers.kinds import FABRIC_CONDITION

from .desired import OWNER, OWNER_LABEL, TaintRule, our_taint_keys, ours
from .dra import GROUP, choose_versions, owner, served
from .grants import SUMMARY_PREFIX, configmap_ref
from .podfault import CONDITION_TYPE as POD_FAULT_CONDITION
from .repair import MESSAGE_MARK, PROFILE_CONDITIONS

log = logging.getLogger("gpu_npd.cleanup")
CONFLICT_RETRIES = 5
PAGE = 200


@dataclass(frozen=True)
class Owned:
    """What gpu-npd writes, from one or more of its configurations (the union)."""

    taint_prefixes: frozenset[str]  # pod condition types under these are gpu-npd's
    condition_types: frozenset[str]  # gpu-npd's own names: removed whatever their content
    shared_condition_types: frozenset[str] = field(default_factory=frozenset)  # removed only when marked
    annotation_keys: frozenset[str] = field(default_factory=frozenset)
    taint_keys: frozenset[str] = field(default_factory=frozenset)
    budget_configmaps: frozenset[str] = field(default_factory=frozenset)  # [namespace/]name

    @classmethod
    def of(cls, configs: list) -> "Owned":
        kubes = [c.kube for c in configs]
        return cls(taint_prefixes=frozenset(k.taint_prefix for k in kubes),
                   condition_types=frozenset(t for c in configs for t in c.conditions if reserved_condition(t) is None)
                   | {FABRIC_CONDITION},
                   shared_condition_types=frozenset(t for profile in PROFILE_CONDITIONS.values()
                                                    for t, _, _ in profile),
                   annotation_keys=frozenset(k.repair_annotation_key for k in kubes),
                   budget_configmaps=frozenset(ref for k in kubes
                                               for ref in (k.dra_budget_configmap, k.taint_budget_configmap)),
                   # every condition's key, not only today's taint rules: a rule removed since may have left one
                   taint_keys=frozenset().union(*(our_taint_keys([TaintRule(t) for t in c.conditions],
                                                                 c.kube.taint_prefix) for c in configs)))

    def taint(self, taint: dict) -> bool:
        return ours(taint, self.taint_keys)

    def condition(self, cond: dict) -> bool:
        t = cond.get("type", "")
        if t in self.shared_condition_types:
            return str(cond.get("message", "")).startswith(MESSAGE_MARK)
        return t in self.condition_types

    def pod_condition(self, cond: dict) -> bool:
        t = str(cond.get("type", ""))
        return t == POD_FAULT_CONDITION or any(t.startswith(p) for p in self.taint_prefixes)


@dataclass(frozen=True)
class Change:
    what: str    # taint | condition | annotation | DeviceTaintRule | ConfigMap | pod condition
    target: str  # node/<name>, pod/<namespace>/<name>, devicetaintrule/<name>, configmap/<namespace>/<name>
    detail: str

    def line(self, done: bool) -> str:
        return f"{'removed' if done else 'would remove'} {self.what} {self.detail} from {self.target}"


def plan_node(node: dict, owned: Owned) -> list[Change]:
    name = f"node/{node['metadata']['name']}"
    out = [Change("taint", name, f"{t['key']}={t.get('value', '')}:{t.get('effect', '')}")
           for t in (node.get("spec") or {}).get("taints") or [] if owned.taint(t)]
    out += [Change("condition", name, f"{c['type']} ({c.get('status')}, {c.get('reason', '')})")
            for c in (node.get("status") or {}).get("conditions") or [] if owned.condition(c)]
    out += [Change("annotation", name, key) for key in sorted((node["metadata"].get("annotations") or {}))
            if key in owned.annotation_keys]
    return out


def plan_pod(pod: dict, owned: Owned) -> list[Change]:
    name = f"pod/{pod['metadata'].get('namespace', '')}/{pod['metadata']['name']}"
    return [Change("pod condition", name, c["type"]) for c in (pod.get("status") or {}).get("conditions") or []
            if owned.pod_condition(c)]


class Cleaner:
    """Finds gpu-npd's traces through the API and, with apply=True, removes them. Every change is reported through
    `report` (done or would-be); an API error is logged once, counted, and the rest goes on."""

    def __init__(self, api, owned: Owned, apply: bool, report: Callable[[str], None], timeout: float = 10.0):
        self.api, self.owned, self.apply, self.report, self.timeout = api, owned, apply, report, timeout
        self.changes: list[Change] = []
        self.errors = 0

    def run(self) -> list[Change]:
        self._guard("nodes", self._each, "node", self.api.list_node, self._node)
        self._guard("DeviceTaintRules", self._rules)
        for ref in sorted(self.owned.budget_configmaps):
            self._guard(f"ConfigMap {ref}", self._budget, ref)
        self._guard("pods", self._each, "pod", self.api.list_pod_for_all_namespaces, self._pod)
        return self.changes

    def _each(self, kind: str, list_fn, fn) -> None:
        for obj in items(list_fn, PAGE, self.timeout):
            meta = obj["metadata"]
            name = f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]
            self._guard(f"{kind} {name}", fn, obj)  # one object's failure is logged and counted; the others go on

    def _guard(self, what: str, fn, *args) -> None:
        try:
            fn(*args)
        except api_errors() as exc:
            self.errors += 1
            log.error("cleanup of %s failed: %s", what, describe(exc))

    def _done(self, changes: list[Change]) -> None:
        self.changes += changes
        for c in changes:
            self.report(c.line(self.apply))

    def _node(self, node: dict) -> None:
        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        name = node["metadata"]["name"]
        changes = plan_node(node, self.owned)
        if not changes or not self.apply:
            self._done(changes)
            return
        conditions = [c for c in changes if c.what == "condition"]
        if conditions:  # strategic merge by type: only ours are deleted, kubelet's stay as they are
            types = [c["type"] for c in node["status"]["conditions"] if self.owned.condition(c)]
            self.api.patch_node_status(name, {"status": {"conditions": [{"type": t, "$patch": "delete"} for t in types]}},
                                       _content_type="application/strategic-merge-patch+json",
                                       _request_timeout=self.timeout)
            self._done(conditions)
        rest = [c for c in changes if c.what != "condition"]
        for _ in range(CONFLICT_RETRIES):
            if not rest:
                return
            spec = node.get("spec") or {}
            body: dict[str, Any] = {"metadata": {"resourceVersion": node["metadata"]["resourceVersion"]}}
            if any(self.owned.taint(t) for t in spec.get("taints") or []):
                body["spec"] = {"taints": [t for t in spec["taints"] if not self.owned.taint(t)]}
            keys = [k for k in node["metadata"].get("annotations") or {} if k in self.owned.annotation_keys]
            if keys:
                body["metadata"]["annotations"] = {k: None for k in keys}
            try:
                self.api.patch_node(name, body, _content_type="application/merge-patch+json",
                                    _request_timeout=self.timeout)
            except ApiException as exc:
                if exc.status != 409:
                    raise
                node = json.loads(self.api.read_node(name, _preload_content=False,
                                                     _request_timeout=self.timeout).data)
                rest = [c for c in plan_node(node, self.owned) if c.what != "condition"]
                continue  # someone else wrote the node: read again, remove only ours again
            self._done(rest)
            return
        raise RuntimeError(f"node {name} kept changing under us ({CONFLICT_RETRIES} tries)")

    def _pod(self, pod: dict) -> None:
        changes = plan_pod(pod, self.owned)
        if changes and self.apply:
            meta = pod["metadata"]
            self.api.patch_namespaced_pod_status(
                meta["name"], meta["namespace"],
                {"status": {"conditions": [{"type": c.detail, "$patch": "delete"} for c in changes]}},
                _content_type="application/strategic-merge-patch+json", _request_timeout=self.timeout)
        self._done(changes)

    def _rules(self) -> None:
        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        version, _ = choose_versions(served(self.api, self.timeout))
        if version is None:
            return  # the cluster serves no DeviceTaintRule: none can exist
        base = f"/apis/{GROUP}/{version}/devicetaintrules"
        rules = call(self.api, "GET", base, query=[("labelSelector", f"{OWNER_LABEL}={OWNER}")],
                     timeout=self.timeout).get("items", [])
        for rule in rules:
            name = rule["metadata"]["name"]
            if self.apply:
                try:
                    call(self.api, "DELETE", f"{base}/{name}", timeout=self.timeout)
                except ApiException as exc:
                    if exc.status != 404:  # already gone
                        raise
            node = owner(rule) or "?"
            self._done([Change("DeviceTaintRule", f"devicetaintrule/{name}", f"(node {node})")])


    def _budget(self, ref: str) -> None:
        """A budget's grants (agent/kube/grants.py GrantBook): deleted when it carries gpu-npd's label."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        namespace, name = configmap_ref(ref)
        try:
            cm = json.loads(self.api.read_namespaced_config_map(name, namespace, _preload_content=False,
                                                                _request_timeout=self.timeout).data)
        except ApiException as exc:
            if exc.status == 404:
                return
            raise
        if (cm["metadata"].get("labels") or {}).get(OWNER_LABEL) != OWNER:
            return  # someone else's ConfigMap of that name
        if self.apply:
            try:
                self.api.delete_namespaced_config_map(name, namespace, _request_timeout=self.timeout)
            except ApiException as exc:
                if exc.status != 404:
                    raise
        grants = [k for k in cm.get("data") or {} if not k.startswith(SUMMARY_PREFIX)]  # not the pools' summaries
        self._done([Change("ConfigMap", f"configmap/{namespace}/{name}", f"(budget: {len(grants)} grant(s))")])


def wait_for_pods_gone(api, namespace: str, selector: str, seconds: float, clock=time.monotonic,
                       sleep=time.sleep, timeout: float = 10.0) -> bool:
    """True once no pod of `selector` is left in `namespace` (the agents stopped: their last write is done). Each
    list is one request of at most `timeout` seconds, as the Cleaner's."""
    deadline = clock() + seconds
    while True:
        pods = json.loads(api.list_namespaced_pod(namespace, label_selector=selector, limit=PAGE,
                                                  _preload_content=False, _request_timeout=timeout).data
                          ).get("items", [])
        if not pods:
            return True
        if clock() >= deadline:
            return False
        log.info("waiting for %d gpu-npd pod(s) in %s to stop", len(pods), namespace)
        sleep(2.0)
