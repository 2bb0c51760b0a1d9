"""PCI devices from sysfs: the NVIDIA GPUs present on the bus, AER counters of the GPU and NIC devices and the
bridges above them, and the PCIe link of each RDMA NIC (ConnectX, BlueField, EFA: the functions behind
/sys/class/infiniband).

A NIC's link is judged against what both its ends support: the kernel's `max_link_speed` / `max_link_width` are the
device's own Link Capabilities (pcie_get_speed_cap / pcie_get_width_cap), not the slot's, so a NIC in a slot narrower
or slower by design reads below its own maximum for life (the kernel's "limited by ... (capable of ...)" line at
probe, pcie_print_link_status, says the same of it).  The most the link can train to is the lesser of the NIC's and
the port's above it (the downstream port at the link's other end); with no port visible above (a VM's device on a
root bus) the link's capability is unknown and no maximum is given, so nothing is judged."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

from parsers.model import Reading

from . import read_int, read_text

VENDORS = {0x10DE: "nvidia", 0x15B3: "mellanox"}
GPU_CLASSES = (0x0300, 0x0302)  # VGA and 3D controllers (NVSwitch is 0x0680: not a GPU)
AER_FILES = (("aer_correctable", "aer_dev_correctable", "TOTAL_ERR_COR"),
             ("aer_nonfatal", "aer_dev_nonfatal", "TOTAL_ERR_NONFATAL"),
             ("aer_fatal", "aer_dev_fatal", "TOTAL_ERR_FATAL"))
# the link as trained (Link Status) and as the device can (Link Capabilities): field, its file, how it is read
LINK_NOW = (("pcie_link_gen", "current_link_speed", "speed"), ("pcie_link_width", "current_link_width", "width"))
LINK_CAP = (("pcie_link_gen_max", "max_link_speed", "speed"), ("pcie_link_width_max", "max_link_width", "width"))
# data rate per lane (GT/s, as the kernel prints it: "32.0 GT/s PCIe", before 5.x "8 GT/s") -> PCIe generation
GEN_BY_GTS = {2.5: 1, 5.0: 2, 8.0: 3, 16.0: 4, 32.0: 5, 64.0: 6}


@dataclass(frozen=True)
class PciDevice:
    bdf: str  # 0000:5d:00.0
    vendor: str  # nvidia | mellanox | bridge
    is_gpu: bool
    path: str  # the device directory (resolved)
    link: bool = False  # an RDMA NIC's function that carries its device's link: its link is read
    # a bridge's: the GPUs and RDMA NIC functions below it (a fault of the port is theirs: agent/progress.py _where)
    gpus_below: tuple[str, ...] = ()
    nics_below: tuple[str, ...] = ()

    @cached_property
    def aer_paths(self) -> tuple[tuple[str, str, str], ...]:
        return tuple((field, os.path.join(self.path, name), total) for field, name, total in AER_FILES)


class PciInventory:
    def __init__(self, root: str = "/"):
        self.base = os.path.join(root, "sys/bus/pci/devices")

    def scan(self, nics: Iterable[str] = ()) -> list[PciDevice]:
        """NVIDIA and Mellanox functions, the RDMA NICs' functions `nics` (whatever their vendor: EFA is Amazon's),
        and every bridge above them (AER counts may land there).  Of the NICs, one function per device has its link
        read (the functions of one device share one link), and no virtual function (it has no link of its own)."""
        try:
            names = sorted(os.listdir(self.base))
        except OSError:
            return []
        nics = set(nics)
        links = _link_carriers(self.base, nics)
        found: dict[str, PciDevice] = {}
        below: dict[str, tuple[list[str], list[str]]] = {}  # bridge -> (GPUs, RDMA NIC functions) below it
        for bdf in names:
            path = os.path.join(self.base, bdf)
            vid = read_int(os.path.join(path, "vendor")) or 0
            vendor = VENDORS.get(vid) or (f"0x{vid:04x}" if bdf in links else None)
            if vendor is None:
                continue
            cls = (read_int(os.path.join(path, "class")) or 0) >> 8
            real = os.path.realpath(path)
            dev = found[bdf] = PciDevice(bdf, vendor, vendor == "nvidia" and cls in GPU_CLASSES, real, bdf in links)
            parent = os.path.dirname(real)
            while _is_bdf(os.path.basename(parent)):
                b = os.path.basename(parent)
                found.setdefault(b, PciDevice(b, "bridge", False, parent))
                gpus, nic_fns = below.setdefault(b, ([], []))
                if dev.is_gpu:
                    gpus.append(bdf)
                elif bdf in nics:
                    nic_fns.append(bdf)
                parent = os.path.dirname(parent)
        # every device above another in sysfs's tree is a bridge (class 0x0604) whatever its vendor id (a BlueField's
        # own PCIe bridges carry Mellanox's): what is below one is recorded as for any other
        for b, (gpus, nic_fns) in below.items():
            if gpus or nic_fns:
                found[b] = dataclasses.replace(found[b], gpus_below=tuple(gpus), nics_below=tuple(nic_fns))
        return list(found.values())


def _link_carriers(base: str, nics: Iterable[str]) -> set[str]:
    """Of the NIC functions, the lowest physical function of each device (domain:bus:device)."""
    first: dict[str, str] = {}
    for bdf in sorted(set(nics)):
        if not _is_bdf(bdf) or os.path.lexists(os.path.join(base, bdf, "physfn")):
            continue  # a virtual function shares its physical function's link
        first.setdefault(bdf[:-2], bdf)
    return set(first.values())


def _is_bdf(name: str) -> bool:
    return len(name) == 12 and name[4] == ":" and name[7] == ":" and name[10] == "."


def present(dev: PciDevice) -> bool:
    return os.path.exists(os.path.join(dev.path, "vendor"))


def gpu_addresses(devices: Iterable[PciDevice]) -> list[str]:
    """The NVIDIA GPUs on the bus among `devices`: the addresses the GPU collector joins NVML's GPUs with."""
    return [d.bdf for d in devices if d.is_gpu and present(d)]


def reading(dev: PciDevice) -> Reading | None:
    """AER totals of one device, and its link if it is a NIC's; None when it has neither (not AER capable)."""
    values = _aer(dev)
    if dev.link:
        values.update(link_values(dev.path))
    if not values:
        return None
    labels = {"pci_bus_id": dev.bdf, "vendor": dev.vendor}
    if dev.gpus_below or dev.nics_below:  # a port's: which pods its faults are (agent/progress.py), no metric label
        labels.update(gpus_below=",".join(dev.gpus_below), nics_below=",".join(dev.nics_below))
    return Reading("pci", f"pci:{dev.bdf}", labels, values)


def link_values(path: str) -> dict[str, float]:
    """The link as trained (generation, width) and the most it can train to: the lesser of this device's and the
    port's above it; no maximum where the port is not there to read (the link's capability is then unknown)."""
    values = {field: v for field, name, kind in LINK_NOW if (v := _link_attr(path, name, kind))}
    port = os.path.dirname(path)
    if _is_bdf(os.path.basename(port)):
        for field, name, kind in LINK_CAP:
            ends = [_link_attr(p, name, kind) for p in (path, port)]
            if all(ends):
                values[field] = min(ends)
    return values


def _link_attr(path: str, name: str, kind: str) -> float | None:
    """A link attribute as a number (generation, or lanes); None when missing, unknown ("Unknown", width 0:
    no link) or not PCIe."""
    text = read_text(os.path.join(path, name))
    if not text:
        return None
    try:
        number = float(text.split()[0])
    except (ValueError, IndexError):
        return None
    if kind == "speed":
        return GEN_BY_GTS.get(number)
    return number if 0 < number <= 32 else None


def _aer(dev: PciDevice) -> dict[str, float]:
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
    return values
