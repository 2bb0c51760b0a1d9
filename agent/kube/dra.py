"""Per-GPU fencing with DRA device taints (KEP-5055): one DeviceTaintRule per faulty GPU.

Pure part: which API versions to use (from discovery), which ResourceSlice device is which of our GPUs
(NVIDIA's DRA driver publishes `uuid` and `pcieBusID` attributes), the rules the problems call for, whose a
rule is.
Edge: `DeviceFencer` lists, creates and deletes only rules that are this node's: the owner label, the hash of
the node's full name as a label (for the list) and the full name as an annotation, verified on every read (a
label value holds 63 characters, a node name 253: two nodes sharing their first 63 characters are two owners).
The GPU budget holds across every agent: a rule is created only after its grant was written into one shared
ConfigMap by compare-and-swap (agent/kube/grants.py), so any number of agents racing never fence more GPUs than
the budget allows.
"""

from __future__ import annotations

import hashlib
import logging
import re
from typing import TYPE_CHECKING, Any, Callable

from kubeapi.client import call
from kubeapi.events import EventRecorder, Ref
from parsers.finding import SEVERITY_RANK
from parsers.gpus import by_gpu, gpu_key, problem_gpu

from .desired import OWNER, OWNER_LABEL, budget_size, taint_value
from .grants import GrantBook, Recheck

if TYPE_CHECKING:
    from .settings import KubeSettings
    from .nodeapi import NodeApi

log = logging.getLogger("gpu_npd.kube")
GROUP = "resource.k8s.io"
RULE_VERSIONS = ("v1", "v1beta2", "v1alpha3")  # DeviceTaintRule: alpha in 1.33 (v1alpha3), beta v1beta2
SLICE_VERSIONS = ("v1", "v1beta2", "v1beta1")  # ResourceSlice: GA in 1.34 (v1)
NODE_HASH_LABEL = "gpu-npd.io/node-hash"  # sha256 of the node's full name (a label value is <= 63 characters)
NODE_ANNOTATION = "gpu-npd.io/node"  # the node's full name: whose the rule is, checked on every read
LEGACY_NODE_LABEL = "gpu-npd.io/node"  # before: node[:63] as a label; exact only for a name of < 63 characters
TAINT_KEY = "gpu-npd.io/unhealthy"


def choose_versions(served: dict[str, list[str]]) -> tuple[str | None, str | None]:
    """(DeviceTaintRule version, ResourceSlice version) from {version: [resources]}; None when not served."""
    rule = next((v for v in RULE_VERSIONS if "devicetaintrules" in served.get(v, ())), None)
    slices = next((v for v in SLICE_VERSIONS if "resourceslices" in served.get(v, ())), None)
    return rule, slices


def _attr(dev: dict, name: str) -> str:
    a = (dev.get("attributes") or {}).get(name) or (dev.get("basic", {}).get("attributes") or {}).get(name) or {}
    return str(a.get("string", "")) if isinstance(a, dict) else ""


def match_devices(slices: list[dict], driver: str) -> dict[str, tuple[str, str, str]]:
    """Our GPU key (pci, and uuid when published) -> (driver, pool, device) for this node's slices."""
    out: dict[str, tuple[str, str, str]] = {}
    for sl in slices:
        spec = sl.get("spec", {})
        if spec.get("driver") != driver:
            continue
        pool = (spec.get("pool") or {}).get("name", "")
        for dev in spec.get("devices") or []:
            ref = (driver, pool, dev.get("name", ""))
            for key in (gpu_key(_attr(dev, "pcieBusID")), _attr(dev, "uuid")):
                if key:
                    out[key] = ref
    return out


def faulty_gpus(problems: list, s: KubeSettings) -> dict[str, tuple[str, str]]:
    """pci -> (uuid or "", reason) for GPUs whose problem a taint rule covers (condition, min_severity)."""
    out: dict[str, tuple[str, str]] = {}
    for p in sorted(problems, key=lambda p: -SEVERITY_RANK.get(p.severity, 0)):
        if not p.subject.startswith("gpu:"):
            continue
        if any(r.condition == p.condition and SEVERITY_RANK.get(p.severity, 0) >= SEVERITY_RANK[r.min_severity]
               for r in s.taints):
            pci, uuid = problem_gpu(p)
            out.setdefault(pci, (uuid, p.reason))
    return out


def node_hash(node: str) -> str:
    return hashlib.sha256(node.encode()).hexdigest()[:40]


def rule_name(node: str, ref: tuple[str, str, str]) -> str:
    """gpu-npd-<node>-<device>-<hash of node and device>: readable, and distinct for every node and DRA device
    (driver, pool, device) whatever their lengths (the readable part is cut to fit 253 characters; the hash
    tells two long node names apart)."""
    driver, pool, device = ref
    digest = hashlib.sha256(f"{node}/{driver}/{pool}/{device}".encode()).hexdigest()[:10]
    raw = re.sub(r"[^a-z0-9.-]+", "-", f"gpu-npd-{node}-{device}".lower())[:253 - 11].strip("-.")
    return f"{raw}-{digest}"


def owner(rule: dict) -> str | None:
    """The node whose rule this is, or None when it is no rule of a gpu-npd agent. The full node name in the
    annotation must hash to the label the rule was listed by; a rule of an older version (no annotation) names
    its node exactly only when the label is shorter than 63 characters (else it may be a cut longer name)."""
    meta = rule.get("metadata") or {}
    labels, notes = meta.get("labels") or {}, meta.get("annotations") or {}
    if labels.get(OWNER_LABEL) != OWNER:
        return None
    node = notes.get(NODE_ANNOTATION)
    if node is not None:
        return node if labels.get(NODE_HASH_LABEL) == node_hash(node) else None
    legacy = labels.get(LEGACY_NODE_LABEL)
    return legacy if legacy and len(legacy) < 63 else None


def selector(rule: dict) -> tuple[str, str, str]:
    sel = (rule.get("spec") or {}).get("deviceSelector") or {}
    return sel.get("driver", ""), sel.get("pool", ""), sel.get("device", "")


def wanted_rules(node: str, faulty: dict[str, tuple[str, str]], devices: dict[str, tuple[str, str, str]],
                 effect: str, version: str) -> dict[str, dict[str, Any]]:
    """name -> DeviceTaintRule body, for every faulty GPU found in the slices (by UUID, else PCI address)."""
    out: dict[str, dict[str, Any]] = {}
    for pci, (uuid, reason) in sorted(faulty.items()):
        ref = by_gpu(devices, pci, uuid)
        if ref is None:
            continue
        driver, pool, device = ref
        name = rule_name(node, ref)
        out[name] = {"apiVersion": f"{GROUP}/{version}", "kind": "DeviceTaintRule",
                     "metadata": {"name": name, "labels": {OWNER_LABEL: OWNER, NODE_HASH_LABEL: node_hash(node)},
                                  "annotations": {NODE_ANNOTATION: node}},
                     "spec": {"deviceSelector": {"driver": driver, "pool": pool, "device": device},
                              "taint": {"key": TAINT_KEY, "value": taint_value(reason), "effect": effect}}}
    return out


def served(api, timeout: float = 10.0) -> dict[str, list[str]]:
    """{version: [resources]} of resource.k8s.io; {} where the cluster does not serve the group (404)."""
    from kubernetes.client.rest import ApiException  # noqa: PLC0415

    out: dict[str, list[str]] = {}
    try:
        group = call(api, "GET", f"/apis/{GROUP}", timeout=timeout)
        for v in group.get("versions", []):
            res = call(api, "GET", f"/apis/{GROUP}/{v['version']}", timeout=timeout)
            out[v["version"]] = [r["name"] for r in res.get("resources", [])]
    except ApiException as exc:
        if exc.status != 404:
            raise
    return out


class DeviceFencer:
    """Keeps this node's gpu-npd DeviceTaintRules equal to what the problems call for, within the GPU budget.

    After a sync: `fenced` (pci) are the GPUs a rule of ours stands for; `held` (pci) those the budget refused a
    rule (said once by a warning and a Node Event, `gpu_npd_taint_held_by_budget` 1): a refusal is a refusal,
    their node does not get a node taint instead. A faulty GPU in neither (no DRA device for it, or its rule's
    name held by someone else's rule) is left to the node taints."""

    def __init__(self, n: NodeApi, clock: Callable[[], float], events: EventRecorder | None = None, metrics=None):
        """`n`: the node's API handle (agent/kube/sink.py): its client, settings, QPS limit and write counter."""
        self.n, self.clock = n, clock
        self.api, self.node, self.s, self.wait, self.count = n.api, n.node, n.s, n.wait, n.count
        self.events, self.metrics = events, metrics
        self.rule_version: str | None = None
        self.slice_version: str | None = None
        self.discovered = False
        self.fenced: set[str] = set()  # pci of GPUs fenced by a rule of ours
        self.held: set[str] = set()  # pci of GPUs whose rule the budget refused
        self._held_names: dict[str, str] = {}  # rule name -> device, of the refused rules (said once each)
        self._taken_names: set[str] = set()  # our rule names held by someone else's rule (said once each)
        self._cleared_at: dict[str, float] = {}
        self.recheck = Recheck()  # when held-back rules ask the budget again (heartbeats too): backoff, full jitter
        self._legacy_gone = len(self.node) >= 63  # an older version's node label names a node exactly below 63
        self.book = GrantBook.of(self.s.dra_budget_configmap, n.call, self.node, clock)

    @property
    def active(self) -> bool:
        return self.rule_version is not None and self.slice_version is not None

    def covers(self, pci: str) -> bool:
        """Is this GPU the DRA fencing's to answer for (fenced, or refused by the budget)?"""
        return pci in self.fenced or pci in self.held

    def next_due(self) -> float:
        """When a sync is due without a change: a cleared rule's hold-down ends, a held one asks the budget again."""
        due = min(self._cleared_at.values()) + self.s.taint_hold_down_seconds if self._cleared_at else float("inf")
        return min(due, self.recheck.next_at) if self.held else due

    def due(self, now: float) -> bool:
        """A sync is due without a change (the writer's pass asks): only at `next_due`, not through a hold-down."""
        return now >= self.next_due()

    def discover(self, quiet: bool = False) -> None:
        """Served versions of resource.k8s.io, once; absent: said once (unless `quiet`), node taints remain the
        fallback."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415

        self.discovered = True
        try:
            self.wait()
            versions = served(self.api, self.s.request_timeout_seconds)
        except ApiException:
            self.discovered = False  # an API failure: ask again next time
            raise
        self.rule_version, self.slice_version = choose_versions(versions)
        if quiet:
            return
        if self.active:
            log.info("DRA device taints: DeviceTaintRule %s/%s, ResourceSlice %s/%s", GROUP, self.rule_version,
                     GROUP, self.slice_version)
        else:
            log.warning("DRA device taints: %s is not served by this cluster (DeviceTaintRule needs the "
                        "DRADeviceTaints feature); %s", "DeviceTaintRule" if self.slice_version else GROUP,
                        "falling back to node taints" if self.s.taints else "no per-GPU fencing")

    def own_rules(self, base: str) -> dict[str, dict]:
        """This node's rules by name: listed by the node's hash label, kept only when the full node name they
        carry is this node's (an older version's, by its exact node label, until none is left)."""
        items = self.n.call("GET", base, query=[
            ("labelSelector", f"{OWNER_LABEL}={OWNER},{NODE_HASH_LABEL}={node_hash(self.node)}")]).get("items", [])
        if not self._legacy_gone:
            legacy = self.n.call("GET", base, query=[
                ("labelSelector", f"{OWNER_LABEL}={OWNER},{LEGACY_NODE_LABEL}={self.node}")]).get("items", [])
            self._legacy_gone = not legacy
            items += legacy
        return {r["metadata"]["name"]: r for r in items if owner(r) == self.node}

    def sync(self, problems: list) -> None:
        if not self.discovered:
            self.discover()
        if not self.active:
            return
        now = self.clock()
        faulty = faulty_gpus(problems, self.s)
        devices = self.node_devices()
        wanted = wanted_rules(self.node, faulty, devices, self.s.dra_taint_effect, self.rule_version)
        base = f"/apis/{GROUP}/{self.rule_version}/devicetaintrules"
        have = self.own_rules(base)
        by_device = {selector(r): n for n, r in have.items()}  # a rule of ours for the device, whatever its name
        wanted = {by_device.get(selector(b), n): b for n, b in wanted.items()}
        for name in list(self._cleared_at):
            if name in wanted or name not in have:
                del self._cleared_at[name]
        gone = []
        for name, rule in have.items():  # cleared: kept through the hold-down, then deleted
            if name not in wanted:
                if now - self._cleared_at.setdefault(name, now) < self.s.taint_hold_down_seconds:
                    wanted[name] = rule
                else:
                    self._delete(base, name)
                    del self._cleared_at[name]  # gone: no hold-down left to end (a sync due for it asks again)
                    gone.append(name)
        if gone:
            self.book.release(gone)
        new = [n for n in sorted(wanted) if n not in have]
        refused = []
        created = []
        if new and set(new) <= set(self._held_names) and not self.recheck.due(now):
            refused = new  # held back, their recheck not due (a heartbeat, another change): the last answer stands
        elif new:
            granted = self._grant(base, new)
            refused = [n for n in new if n not in granted]
            created = [n for n in granted if self._create(base, wanted[n])]
            if refused:
                self.recheck.refused(now, set(refused))
        if not refused:
            self.recheck.reset()  # granted, or nothing held back any more
        self._say_held({n: wanted[n]["spec"]["deviceSelector"]["device"] for n in refused})
        standing = set(have) | set(created)
        names = {}
        for pci, (uuid, _) in faulty.items():
            ref = by_gpu(devices, pci, uuid)
            if ref is not None:
                names[pci] = by_device.get(ref, rule_name(self.node, ref))
        self.fenced = {pci for pci, n in names.items() if n in standing}
        self.held = {pci for pci, n in names.items() if n in refused}

    def node_devices(self) -> dict[str, tuple[str, str, str]]:
        """Our GPU key (pci, and uuid when published) -> DRA device, from this node's ResourceSlices ({} where
        ResourceSlices are not served)."""
        if not self.discovered:
            self.discover(quiet=True)
        if self.slice_version is None:
            return {}
        slices = self.n.call("GET", f"/apis/{GROUP}/{self.slice_version}/resourceslices",
                            query=[("fieldSelector", f"spec.nodeName={self.node}")]).get("items", [])
        return match_devices(slices, self.s.dra_driver)

    def _create(self, base: str, body: dict) -> bool:
        """True when the rule stands (created, or found ours after a 409: an earlier create committed, its reply
        lost); False when its name is held by someone else's rule: the GPU is not fenced (said once)."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        name = body["metadata"]["name"]
        try:
            self.n.call("POST", base, body=body)
        except ApiException as exc:
            if exc.status != 409:
                raise
            try:
                there = self.n.call("GET", f"{base}/{name}")
            except ApiException as again:
                if again.status != 404:
                    raise
                return False  # deleted meanwhile: created at the next sync
            if owner(there) != self.node or selector(there) != selector(body):
                if name not in self._taken_names:
                    self._taken_names.add(name)
                    log.warning("DeviceTaintRule %s: the name is held by a rule that is not this node's (%s): "
                                "GPU %s is not fenced", name, owner(there) or "not gpu-npd's",
                                body["spec"]["deviceSelector"]["device"])
                    self._event("DeviceTaintRuleNameTaken", f"gpu-npd could not fence GPU "
                                f"{body['spec']['deviceSelector']['device']}: DeviceTaintRule {name} is someone "
                                "else's", name)
                self.book.release([name])
                return False
        self._taken_names.discard(name)
        self.count("devicetaintrules")
        log.info("DeviceTaintRule %s: %s", name, body["spec"]["deviceSelector"])
        return True

    def _delete(self, base: str, name: str) -> None:
        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        try:
            self.n.call("DELETE", f"{base}/{name}")
        except ApiException as exc:
            if exc.status != 404:  # already gone
                raise
        self.count("devicetaintrules")
        log.info("DeviceTaintRule %s removed", name)

    def _grant(self, base: str, new: list[str]) -> list[str]:
        """The new rules the GPU budget grants this node (max_tainted_fraction of the driver's devices in every
        ResourceSlice), through the shared grant book."""
        # resourceVersion "0": both lists from the API server's watch cache, not quorum reads of etcd at every ask
        rules = {r["metadata"]["name"] for r in self.n.call(
            "GET", base, query=[("labelSelector", f"{OWNER_LABEL}={OWNER}"), ("resourceVersion", "0")],
        ).get("items", [])}
        total = 0
        cont = None
        while True:
            query = [("limit", 100), ("resourceVersion", "0")] + ([("continue", cont)] if cont else [])
            page = self.n.call("GET", f"/apis/{GROUP}/{self.slice_version}/resourceslices", query=query)
            total += sum(len(sl.get("spec", {}).get("devices") or []) for sl in page.get("items", [])
                         if sl.get("spec", {}).get("driver") == self.s.dra_driver)
            cont = page.get("metadata", {}).get("continue")
            if not cont:
                break
        allowed = budget_size(max(total, 1), self.s.max_tainted_fraction)
        granted = self.book.acquire(new, rules, allowed)
        log.info("GPU taint budget: %d of %d GPUs may be under gpu-npd DeviceTaintRules; %d rule(s) stand "
                 "cluster-wide; %d of %d new granted", allowed, total, len(rules), len(granted), len(new))
        return granted

    def _say_held(self, refused: dict[str, str]) -> None:
        """A refusal is said: once per rule a warning and a Node Event; the gauge while it lasts."""
        for name, device in refused.items():
            if name not in self._held_names:
                log.warning("DeviceTaintRule %s (GPU %s) held back: the GPU taint budget (%.0f%% of the pool's "
                            "GPUs) is spent; the GPU is not fenced and the node is not tainted for it", name,
                            device, self.s.max_tainted_fraction * 100)
                self._event("DeviceTaintHeldByBudget", f"gpu-npd did not fence GPU {device}: more than "
                            f"{self.s.max_tainted_fraction:.0%} of the pool's GPUs would be under DeviceTaintRules; "
                            "the condition stands", f"held|{name}")
        if self.metrics is not None:
            for name, device in {**self._held_names, **refused}.items():
                self.metrics.taint_held.labels(f"{TAINT_KEY}:{device}").set(1 if name in refused else 0)
        self._held_names = dict(refused)

    def _event(self, reason: str, message: str, key: str) -> None:
        if self.events is not None:
            self.events.record(Ref("Node", self.node, uid=self.node), reason, message, "Warning", key=key)
