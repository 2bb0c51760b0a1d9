"""PCI devices from sysfs: the NVIDIA GPUs present on the bus, and AER counters of the GPU and NIC
devices and the bridges above them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

from parsers.model import Reading

from . import read_int, read_text

VENDORS = {0x10DE: "nvidia", 0x15B3: "mellanox"}
GPU_CLASSES = (0x0300, 0x0302)  # VGA and 3D controllers (NVSwitch is 0x0680: not a GPU)
AER_FILES = (("aer_correctable", "aer_dev_correctable", "TOTAL_ERR_COR"),
             ("aer_nonfatal", "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL"),
             ("aer_fatal", "aer_dev_fatal", "TOTAL_ERR_FATAL"))


@dataclass(frozen=True)
class PciDevice:
    bdf: str  # 0000:5d:00.0
    vendor: str  # nvidia | mellanox | bridge
    is_gpu: bool
    path: str  # the device directory (resolved)

    @cached_property
    def aer_paths(self) -> tuple[tuple[str, str, str], ...]:
        return tuple((field, os.path.join(self.path, name), total) for field, name, total in AER_FILES)


class PciInventory:
    def __init__(self, root: str = "/"):
        self.base = os.path.join(root, "sys/bus/pci/devices")

    def scan(self) -> list[PciDevice]:
        """NVIDIA and Mellanox functions, and every bridge above them (AER counts may land there)."""
        try:
            names = sorted(os.listdir(self.base))
        except OSError:
            return []
        found: dict[str, PciDevice] = {}
        for bdf in names:
            path = os.path.join(self.base, bdf)
            vendor = VENDORS.get(read_int(os.path.join(path, "vendor")) or 0)
            if vendor is None:
                continue
            cls = (read_int(os.path.join(path, "class")) or 0) >> 8
            real = os.path.realpath(path)
            found[bdf] = PciDevice(bdf, vendor, vendor == "nvidia" and cls in GPU_CLASSES, real)
            parent = os.path.dirname(real)
            while _is_bdf(os.path.basename(parent)):
                b = os.path.basename(parent)
                found.setdefault(b, PciDevice(b, "bridge", False, parent))
                parent = os.path.dirname(parent)
        return list(found.values())


def _is_bdf(name: str) -> bool:
    return len(name) == 12 and name[4] == ":" and name[7] == ":" and name[10] == "."


def present(dev: PciDevice) -> bool:
    return os.path.exists(os.path.join(dev.path, "vendor"))


def aer_reading(dev: PciDevice) -> Reading | None:
    """AER totals of one device; None when it has no AER statistics (not AER capable)."""
    values: dict[str, float] = {}
    for field, path, total in dev.aer_paths:
        text = read_text(path)
        if text is None:
            continue
        for line in reversed(text.splitlines()):  # the total is the last line
            key, _, value = line.rpartition(" ")
            if key.strip() == total:
                try:
                    values[field] = float(value)
                except ValueError:
                    pass
                break
    if not values:
        return None
    return Reading("pci", f"pci:{dev.bdf}", {"pci_bus_id": dev.bdf, "vendor": dev.vendor}, values)
