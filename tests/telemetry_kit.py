"""Shared helpers for telemetry tests and the poll benchmark: fixture sysfs trees and fake scenarios."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

SYSFS_FIXTURE = Path(__file__).parent / "fixtures" / "sysfs" / "dgx-h100"
GPU_BUSES = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]


def copy_sysfs(dst: Path) -> Path:
    """A writable copy of the HGX H100 fixture tree (symlinks kept)."""
    root = dst / "root"
    shutil.copytree(SYSFS_FIXTURE, root, symlinks=True)
    return root


def set_attr(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.write_text(text + "\n")


def set_aer(root: Path, bdf: str, name: str, total_key: str, value: int) -> None:
    path = root / "sys/bus/pci/devices" / bdf / name
    lines = path.read_text().splitlines()
    path.write_text("\n".join(f"{total_key} {value}" if ln.startswith(total_key) else ln for ln in lines) + "\n")


def hgx_scenario(**extra) -> dict:
    """Eight H100s on the fixture tree's PCI addresses, 18 NVLinks each, all healthy."""
    gpus = [{"uuid": f"GPU-{i:08x}-1111-2222-3333-44445555{i:04x}", "pci_bus_id": f"00000000:{bus.upper()}:00.0",
             "model": "NVIDIA H100 80GB HBM3", "nvlinks": 18} for i, bus in enumerate(GPU_BUSES)]
    return {"driver_version": "550.54.15", "gpus": gpus, **extra}


def remove_device(root: Path, bdf: str) -> None:
    link = root / "sys/bus/pci/devices" / bdf
    target = Path(os.path.realpath(link))
    link.unlink()
    shutil.rmtree(target)


class StandinClock:
    """A settable clock (like fakeclock.Clock) that the NVML stand-in's timeline follows once bound."""

    def __init__(self, t: float = 1_800_000_000.0):
        self.standin = None
        self.t0 = t
        self._t = t

    def __call__(self) -> float:
        return self._t

    @property
    def t(self) -> float:
        return self._t

    @t.setter
    def t(self, value: float) -> None:
        self._t = value
        if self.standin is not None:
            self.standin.set_time(value - self.t0)

    def bind(self, standin) -> "StandinClock":
        """The stand-in's scenario time is this clock's time since now."""
        self.standin, self.t0 = standin, self._t
        standin.set_time(0.0)
        return self


def standin_backend(scenario: dict):
    """nvidia-ml-py over the C stand-in playing this scenario (the agent's real backend, not a fake)."""
    from agent.gpu.nvml import PynvmlBackend
    from agent.gpu.standin import activate
    backend = PynvmlBackend()
    backend.standin = activate(scenario)
    return backend
