"""Names that belong to others on a Node: gpu-npd never writes them, whatever its configuration says.

- NodeCondition types the kubelet owns: writing `Ready=False` makes the node NotReady for the whole cluster; and
  a name that is no condition type (Kubernetes' pattern: the chart quotes the types into its admission policy).
- Keys (taints, annotations, labels) in domains that Kubernetes or a vendor's own components own: a
  `taint_prefix` of `nvidia.com/` would otherwise make the NVIDIA device plugin's `nvidia.com/gpu` taint ours
  to delete.
Config validation refuses them (one line naming the key), and the node writers drop them (defence in depth).
"""

from __future__ import annotations

import re

KUBELET_CONDITIONS = frozenset({"Ready", "MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"})
# a qualified name's parts (k8s.io/apimachinery pkg/util/validation IsQualifiedName): what a taint's key is (the API
# server refuses a Node update holding a taint key that is none: 422, the whole update) and a condition type's shape
DNS_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
NAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
# Kubernetes' pattern of a condition's type: a qualified name, `Name` or `example.com/Name` (k8s.io/apimachinery
# pkg/apis/meta/v1/types.go, Condition's `type`: "The regex it matches is (dns1123SubdomainFmt/)?(qualifiedNameFmt)").
# The chart's render refuses a type that does not fit it and the kubelet's (templates/_helpers.tpl
# gpu-npd.extraConditionTypes; tests/deploy/test_vap_nodes.py holds its pattern and list equal to these)
CONDITION_TYPE = rf"^({DNS_SUBDOMAIN}/)?({NAME})$"
# metav1.Condition's `type`: +kubebuilder:validation:MaxLength=316, and a qualified name (apimachinery
# pkg/apis/meta/v1/validation ValidateCondition: ValidateLabelName); the chart's helper checks both too
CONDITION_TYPE_MAX = 316
_SUBDOMAIN, _NAME = re.compile(DNS_SUBDOMAIN).fullmatch, re.compile(NAME).fullmatch
_FITS = re.compile(CONDITION_TYPE).fullmatch  # (fullmatch: `$` alone lets a trailing newline through)
_OWN = (f"gpu-npd writes only condition types of its own: Kubernetes' pattern {CONDITION_TYPE} (a name of at most 63 "
        f"characters, a prefix of 253), at most {CONDITION_TYPE_MAX} in all, none of the kubelet's "
        f"({', '.join(sorted(KUBELET_CONDITIONS))})")
# domains whose keys are someone else's: Kubernetes itself, the GPU / NIC vendors' operators and device plugins
RESERVED_DOMAINS = ("kubernetes.io", "k8s.io", "nvidia.com", "amd.com", "intel.com", "mellanox.com", "habana.ai")


def reserved_condition(kind: object) -> str | None:
    """Why gpu-npd may not write this NodeCondition type (the kubelet's, or no condition type: one that does not fit
    Kubernetes' pattern, or no string), one line naming the pattern and the kubelet's types; None where it may."""
    if not isinstance(kind, str) or _FITS(kind) is None or len(kind) > CONDITION_TYPE_MAX or unqualified(kind):
        return f"{kind!r} is no condition type; {_OWN}"
    if kind in KUBELET_CONDITIONS:
        return f"condition type {kind!r} is the kubelet's; {_OWN}"
    return None


def reserved_key(key: str) -> str | None:
    """Why gpu-npd may not own this key or key prefix (`domain/name` or `domain/`), or None."""
    domain = key.split("/", 1)[0].lower() if "/" in key else ""
    for owned in RESERVED_DOMAINS:
        if domain == owned or domain.endswith("." + owned):
            return f"{key!r} is in {owned}, which Kubernetes or a vendor's components own"
    return None


def unqualified(key: str) -> str | None:
    """Why `key` is no qualified name (a taint's key: `name` or `prefix/name`, the prefix a DNS subdomain of at most
    253 characters, the name at most 63 of [A-Za-z0-9._-], alphanumeric at both ends), or None where it is one."""
    prefix, _, name = key.rpartition("/")
    if "/" in prefix:
        return "more than one '/'"
    if "/" in key and (len(prefix) > 253 or not _SUBDOMAIN(prefix)):
        return f"its prefix {prefix!r} is no DNS subdomain of at most 253 characters"
    if len(name) > 63 or not _NAME(name):
        return f"its name {name!r} is not 1 to 63 of [A-Za-z0-9._-], alphanumeric at both ends"
    return None
