"""One map between a GPU's identities: PCI address <-> UUID <-> NVML index.  Pure (no NVML, no Kubernetes).

The agent builds a `GpuMap` once per GPU inventory (agent/gpu/collector.py, when NVML names its GPUs) or from
the GPU readings it was handed (agent/progress.py), and hands it downward; every module that joins a GPU named
one way to the same GPU named another (a kernel line's PCI address, a problem's `gpu:<pci>` subject and its
`uuid` detail, a DRA device's `pcieBusID` / `uuid` attributes, the kubelet's device ids) keys through here.
PCI addresses are normalised by parsers/pci.py, the one normaliser."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Mapping, TypeVar

from .pci import normalize_pci
from .wordscan import LazyPattern

T = TypeVar("T")
_FUNCTION = re.compile(r"\.[0-7]$")
# A MIG device named by its parent GPU, as drivers before R470 name it and the kubelet's PodResources, NVIDIA_VISIBLE_
# DEVICES and CUDA_VISIBLE_DEVICES carry it: `MIG-GPU-<GPU uuid>/<GPU instance>/<compute instance>` (NVIDIA's MIG user
# guide, "CUDA Device Enumeration"; NVIDIA/dcgm-exporter pkg/dcgmexporter/kubernetes.go reads its GPU's UUID so). R470
# on, a MIG device's own UUID, `MIG-<uuid>`, names no GPU.
_MIG_ON_GPU = LazyPattern(r"mig-(gpu-[0-9a-f-]+)/\d+/\d+$")


def gpu_key(value: Any) -> str:
    """A GPU's PCI address as every table keys it: `0000:5d:00` (parsers/pci.py); a value that is no PCI
    address lower-cased, its function dropped (a subject that names a GPU some other way stays itself)."""
    text = str(value or "").strip()
    return normalize_pci(text) or _FUNCTION.sub("", text.lower())


def device_gpu(device_id: str) -> str:
    """A GPU device id as the kubelet's PodResources answer and NVIDIA_VISIBLE_DEVICES give it, as the name of the GPU
    it is on (lower case, as `GpuMap.aliases`): a time-sliced or MPS replica `GPU-<uuid>::<n>` its GPU's UUID; a MIG
    device `MIG-GPU-<uuid>/<gi>/<ci>` its parent GPU's UUID; anything else itself (a R470+ MIG device `MIG-<uuid>`:
    `is_mig`)."""
    name = device_id.split("::", 1)[0].strip().lower()
    m = _MIG_ON_GPU.match(name)
    return m.group(1) if m else name


def is_mig(name: str) -> bool:
    """A MIG device whose GPU its name does not say (`device_gpu`'s R470+ `mig-<uuid>`)."""
    return name.startswith("mig-")


def problem_gpu(p: Any) -> tuple[str, str]:
    """(PCI key, UUID or "") of a problem (or finding) whose subject is `gpu:<pci>` (or one of its NVLinks',
    `gpu:<pci>/nvlink<n>`: the GPU's): the UUID as NVRM or NVML named it in the problem's details."""
    return gpu_key(p.subject.split(":", 1)[-1].partition("/")[0]), str(p.details.get("uuid") or "")


def reading_key(r: Any) -> str:
    """The PCI key of a GPU reading (subject `gpu:<pci>`; the subject itself when it names no address)."""
    return normalize_pci(r.subject.split(":", 1)[-1]) or r.subject


def by_gpu(table: Mapping[str, T] | None, pci: str, uuid: str = "") -> T | None:
    """A table keyed by GPU (its UUID as published or lower-cased, or its PCI key): the GPU's entry, UUID first."""
    if not table:
        return None
    if uuid:
        hit = table.get(uuid) or table.get(uuid.lower())
        if hit:
            return hit
    return table.get(pci)


@dataclass(frozen=True)
class GpuMap:
    """The node's GPUs by PCI key: their UUID, NVML index and every name they answer to."""
    uuids: Mapping[str, str] = field(default_factory=dict)  # pci -> UUID (as NVML writes it)
    indexes: Mapping[str, str] = field(default_factory=dict)  # pci -> NVML index
    aliases: Mapping[str, frozenset[str]] = field(default_factory=dict)  # pci -> every name (UUID lower, pci)
    every: frozenset[str] = frozenset()  # every name of every GPU (the aliases' union), made once with the map

    @classmethod
    def build(cls, gpus: Iterable[tuple[str, Mapping[str, Any]]]) -> GpuMap:
        """From (PCI key, labels) per GPU; the labels' `uuid`, `pci_bus_id` and `gpu_index`
        (agent/gpu/collector.py GpuState.labels) fill the map."""
        uuids, indexes, aliases = {}, {}, {}
        for pci, labels in gpus:
            uuid = str(labels.get("uuid") or "")
            aliases[pci] = frozenset({pci, uuid.lower(), normalize_pci(labels.get("pci_bus_id")) or ""} - {""})
            if uuid:
                uuids[pci] = uuid
            if labels.get("gpu_index") not in (None, ""):
                indexes[pci] = str(labels["gpu_index"])
        return cls(MappingProxyType(uuids), MappingProxyType(indexes), MappingProxyType(aliases),
                   frozenset().union(*aliases.values()))

    @classmethod
    def from_labels(cls, gpus: Iterable[Mapping[str, Any]]) -> GpuMap:
        """From NVML's GPUs' labels, keyed by their `pci_bus_id` (the inventory, agent/gpu/collector.py)."""
        return cls.build((gpu_key(g.get("pci_bus_id")), g) for g in gpus)

    @classmethod
    def from_readings(cls, readings: Iterable[Any]) -> GpuMap:
        """From the GPU readings of a poll (entity "gpu"), keyed by their subject's PCI address (`gpu:<pci>`)."""
        return cls.build((reading_key(r), r.labels) for r in readings if r.entity == "gpu")

    def __contains__(self, pci: object) -> bool:
        return pci in self.aliases

    def __iter__(self):
        return iter(self.aliases)

    def __len__(self) -> int:
        return len(self.aliases)

    def uuid(self, pci: str | None) -> str | None:
        """The UUID of the GPU at this PCI key (a finding's `pci`, a problem's subject: normalised already)."""
        return self.uuids.get(pci) if pci else None

    def index(self, pci: str | None) -> str | None:
        return self.indexes.get(pci) if pci else None

    def names(self, pci: str) -> frozenset[str]:
        """Every name the GPU at this PCI key answers to (its UUID lower-cased, its PCI key); none if unknown."""
        return self.aliases.get(pci, frozenset())
