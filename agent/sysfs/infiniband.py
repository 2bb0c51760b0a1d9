"""InfiniBand / RoCE ports from /sys/class/infiniband/*/ports/*."""

from __future__ import annotations

import os
from dataclasses import dataclass

from parsers.model import Reading

from . import read_int, read_text

ACTIVE, LINK_UP = 4, 5  # state "4: ACTIVE", phys_state "5: LinkUp"


@dataclass(frozen=True)
class Port:
    device: str
    port: str
    path: str
    pci: str
    netdev: str
    link_layer: str
    counters: tuple[tuple[str, str], ...]  # ("counters/<name>" or "hw_counters/<name>", its path)


def discover(root: str = "/") -> list[Port]:
    base = os.path.join(root, "sys/class/infiniband")
    try:
        devices = sorted(os.listdir(base))
    except OSError:
        return []
    ports = []
    for dev in devices:
        pdir = os.path.join(base, dev, "ports")
        try:
            nums = sorted(os.listdir(pdir), key=lambda p: int(p) if p.isdigit() else 0)
        except OSError:
            continue
        pci = os.path.basename(os.path.realpath(os.path.join(base, dev, "device")))
        try:
            netdev = ",".join(sorted(os.listdir(os.path.join(base, dev, "device", "net"))))
        except OSError:
            netdev = ""
        for num in nums:
            path = os.path.join(pdir, num)
            counters = []
            for group in ("counters", "hw_counters"):
                try:
                    counters += [(f"{group}/{c}", os.path.join(path, group, c))
                                 for c in sorted(os.listdir(os.path.join(path, group)))]
                except OSError:
                    pass
            ports.append(Port(dev, num, path, pci, netdev, read_text(os.path.join(path, "link_layer")) or "",
                              tuple(counters)))
    return ports


def port_reading(p: Port, counters: bool = True) -> Reading | None:
    """The port's state, rate and (unless `counters` is False: reading them makes the device log errors, see
    agent/selfcaused.py) its counters."""
    state = read_int(os.path.join(p.path, "state"))
    if state is None:
        return None  # the port (device) went away between discovery and now
    phys = read_int(os.path.join(p.path, "phys_state"))
    values: dict[str, float] = {"state": state, "phys_state": phys if phys is not None else 0,
                                "active": 1.0 if state == ACTIVE and phys == LINK_UP else 0.0}
    rate = read_text(os.path.join(p.path, "rate"))
    if rate:
        try:
            values["rate_gbps"] = float(rate.split()[0])
        except (ValueError, IndexError):
            pass
    for name, path in p.counters if counters else ():
        v = read_int(path)
        if v is not None:
            values[name] = v
    labels = {"device": p.device, "port": p.port, "pci_bus_id": p.pci, "netdev": p.netdev,
              "link_layer": p.link_layer}
    return Reading("ib_port", f"ib:{p.device}/{p.port}", labels, values)
