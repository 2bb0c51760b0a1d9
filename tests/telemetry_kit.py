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
