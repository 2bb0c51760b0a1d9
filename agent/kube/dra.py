"""Per-GPU fencing with DRA device taints (KEP-5055): one DeviceTaintRule per faulty GPU.

Pure part: which API versions to use (from discovery), which ResourceSlice device is which of our GPUs
(NVIDIA's DRA driver publishes `uuid` and `pcieBusID` attributes), the rules the problems call for.
Edge: `DeviceFencer` lists, creates and deletes only rules carrying gpu-npd's owner label for this node.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any, Callable

from parsers.finding import SEVERITY_RANK

from .desired import budget_allows, taint_value

if TYPE_CHECKING:
    from .settings import KubeSettings

log = logging.getLogger("gpu_npd.kube")
GROUP = "resource.k8s.io"
RULE_VERSIONS = ("v1", "v1beta2", "v1alpha3")  # DeviceTaintRule: alpha in 1.33 (v1alpha3), beta v1beta2
SLICE_VERSIONS = ("v1", "v1beta2", "v1beta1")  # ResourceSlice: GA in 1.34 (v1)
OWNER_LABEL = "app.kubernetes.io/managed-by"
OWNER = "gpu-npd"
NODE_LABEL = "gpu-npd.io/node"
TAINT_KEY = "gpu-npd.io/unhealthy"


def choose_versions(served: dict[str, list[str]]) -> tuple[str | None, str | None]:
    """(DeviceTaintRule version, ResourceSlice version) from {version: [resources]}; None when not served."""
    rule = next((v for v in RULE_VERSIONS if "devicetaintrules" in served.get(v, ())), None)
    slices = next((v for v in SLICE_VERSIONS if "resourceslices" in served.get(v, ())), None)
    return rule, slices


def _pci(value: str) -> str:
    """PCI address without the function: 0000:5d:00.0 and 0000:5D:00 are one GPU."""
    return re.sub(r"\.[0-7]$", "", value.strip().lower())


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
            for key in (_pci(_attr(dev, "pcieBusID")), _attr(dev, "uuid")):
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
            out.setdefault(_pci(p.subject[4:]), (str(p.details.get("uuid") or ""), p.reason))
    return out


def rule_name(node: str, device: str) -> str:
    raw = re.sub(r"[^a-z0-9.-]+", "-", f"gpu-npd-{node}-{device}".lower()).strip("-.")
    return raw[:253]


def wanted_rules(node: str, faulty: dict[str, tuple[str, str]], devices: dict[str, tuple[str, str, str]],
                 effect: str, version: str) -> dict[str, dict[str, Any]]:
    """name -> DeviceTaintRule body, for every faulty GPU found in the slices (by UUID, else PCI address)."""
    out: dict[str, dict[str, Any]] = {}
    for pci, (uuid, reason) in sorted(faulty.items()):
        ref = devices.get(uuid) if uuid else None
        ref = ref or devices.get(pci)
        if ref is None:
            continue
        driver, pool, device = ref
        name = rule_name(node, device)
        out[name] = {"apiVersion": f"{GROUP}/{version}", "kind": "DeviceTaintRule",
                     "metadata": {"name": name, "labels": {OWNER_LABEL: OWNER, NODE_LABEL: node[:63]}},
                     "spec": {"deviceSelector": {"driver": driver, "pool": pool, "device": device},
                              "taint": {"key": TAINT_KEY, "value": taint_value(reason), "effect": effect}}}
    return out


def call(api, method: str, path: str, body: Any = None, query: list | None = None, timeout: float = 10.0) -> Any:
    """One request to a path the typed client has no method for (its auth, host and TLS settings)."""
    from kubernetes.client.exceptions import ApiException  # noqa: PLC0415

    client = api.api_client
    args = client.param_serialize(method, path, query_params=query or [], body=body,
                                  header_params={"Accept": "application/json", "Content-Type": "application/json"},
                                  auth_settings=["BearerToken"])
    resp = client.call_api(*args, _request_timeout=timeout)
    resp.read()
    if not 200 <= resp.status < 300:
        raise ApiException.from_response(http_resp=resp, body=resp.data.decode("utf-8", "replace"), data=None)
    return json.loads(resp.data) if resp.data else {}


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
    """Keeps this node's gpu-npd DeviceTaintRules equal to what the problems call for."""

    def __init__(self, api, node: str, s: KubeSettings, wait: Callable[[], None], clock: Callable[[], float],
                 count: Callable[[str], None]):
        self.api, self.node, self.s, self.wait, self.clock, self.count = api, node, s, wait, clock, count
        self.rule_version: str | None = None
        self.slice_version: str | None = None
        self.discovered = False
        self.fenced: set[str] = set()  # pci of GPUs fenced by a rule of ours (for the node-taint fallback)
        self._cleared_at: dict[str, float] = {}

    @property
    def active(self) -> bool:
        return self.rule_version is not None and self.slice_version is not None

    def _call(self, method: str, path: str, body: Any = None, query: list | None = None) -> Any:
        self.wait()
        return call(self.api, method, path, body, query, self.s.request_timeout_seconds)

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
        have = {r["metadata"]["name"]: r for r in self._call(
            "GET", base, query=[("labelSelector", f"{OWNER_LABEL}={OWNER},{NODE_LABEL}={self.node[:63]}")]).get("items", [])}
        for name in list(self._cleared_at):
            if name in wanted or name not in have:
                del self._cleared_at[name]
        for name, rule in have.items():  # cleared: kept through the hold-down, then deleted
            if name not in wanted:
                if now - self._cleared_at.setdefault(name, now) < self.s.taint_hold_down_seconds:
                    wanted[name] = rule
                else:
                    self._delete(base, name)
        new = [n for n in sorted(wanted) if n not in have]
        if new and not self._budget_allows(base, len(new)):
            log.warning("DeviceTaintRules %s held back: the tainted-GPU budget is spent", new)
            new = []
        for name in new:
            self._create(base, wanted[name])
        self.fenced = {pci for pci, (uuid, _) in faulty.items()
                       if rule_name(self.node, (devices.get(uuid) or devices.get(pci) or ("", "", ""))[2]) in
                       (set(have) | set(new))}

    def node_devices(self) -> dict[str, tuple[str, str, str]]:
        """Our GPU key (pci, and uuid when published) -> DRA device, from this node's ResourceSlices ({} where
        ResourceSlices are not served)."""
        if not self.discovered:
            self.discover(quiet=True)
        if self.slice_version is None:
            return {}
        slices = self._call("GET", f"/apis/{GROUP}/{self.slice_version}/resourceslices",
                            query=[("fieldSelector", f"spec.nodeName={self.node}")]).get("items", [])
        return match_devices(slices, self.s.dra_driver)

    def _create(self, base: str, body: dict) -> None:
        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        try:
            self._call("POST", base, body=body)
        except ApiException as exc:
            if exc.status != 409:  # AlreadyExists: an earlier create was committed, its reply lost
                raise
        self.count("devicetaintrules")
        log.info("DeviceTaintRule %s: %s", body["metadata"]["name"], body["spec"]["deviceSelector"])

    def _delete(self, base: str, name: str) -> None:
        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        try:
            self._call("DELETE", f"{base}/{name}")
        except ApiException as exc:
            if exc.status != 404:  # already gone
                raise
        self.count("devicetaintrules")
        log.info("DeviceTaintRule %s removed", name)

    def _budget_allows(self, base: str, more: int) -> bool:
        """Tainted GPUs (gpu-npd's rules, cluster-wide) against the pool's GPUs (devices of the driver)."""
        tainted = len(self._call("GET", base, query=[("labelSelector", f"{OWNER_LABEL}={OWNER}")]).get("items", []))
        total = 0
        cont = None
        while True:
            query = [("limit", 100)] + ([("continue", cont)] if cont else [])
            page = self._call("GET", f"/apis/{GROUP}/{self.slice_version}/resourceslices", query=query)
            total += sum(len(sl.get("spec", {}).get("devices") or []) for sl in page.get("items", [])
                         if sl.get("spec", {}).get("driver") == self.s.dra_driver)
            cont = page.get("metadata", {}).get("continue")
            if not cont:
                break
        ok = budget_allows(max(total, 1), tainted + more - 1, self.s.max_tainted_fraction, 0)  # the last new one fits
        log.info("GPU taint budget: %d of %d GPUs under gpu-npd DeviceTaintRules; %d more %s", tainted, total, more,
                 "allowed" if ok else "refused")
        return ok
