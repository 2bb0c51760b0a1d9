"""Names that belong to others on a Node: gpu-npd never writes them, whatever its configuration says.

- NodeCondition types the kubelet owns: writing `Ready=False` makes the node NotReady for the whole cluster.
- Keys (taints, annotations, labels) in domains that Kubernetes or a vendor's own components own: a
  `taint_prefix` of `nvidia.com/` would otherwise make the NVIDIA device plugin's `nvidia.com/gpu` taint ours
  to delete.
Config validation refuses them (one line naming the key), and the node writers drop them (defence in depth).
"""

from __future__ import annotations

KUBELET_CONDITIONS = frozenset({"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"})
# domains whose keys are someone else's: Kubernetes itself, the GPU / NIC vendors' operators and device plugins
RESERVED_DOMAINS = ("kubernetes.io", "k8s.io", "nvidia.com", "amd.com", "intel.com", "mellanox.com", "habana.ai")


def reserved_condition(kind: str) -> str | None:
    """Why gpu-npd may not write this NodeCondition type, or None."""
    if kind in KUBELET_CONDITIONS:
        return f"condition type {kind!r} is the kubelet's"
    return None


def reserved_key(key: str) -> str | None:
    """Why gpu-npd may not own this key or key prefix (`domain/name` or `domain/`), or None."""
    domain = key.split("/", 1)[0].lower() if "/" in key else ""
    for owned in RESERVED_DOMAINS:
        if domain == owned or domain.endswith("." + owned):
            return f"{key!r} is in {owned}, which Kubernetes or a vendor's components own"
    return None
