"""A faithful fake NVML driven by a scenario: N GPUs, values changing over time, NVML's errors, hangs.

Scenario (YAML or dict)::

    driver_version: "550.54.15"
    init_error: null                 # e.g. DRIVER_NOT_LOADED, LIBRARY_NOT_FOUND
    replicate: 8                     # optional: clone gpus[0] into N GPUs (new index/uuid/PCI bus)
    gpus:
      - uuid: GPU-...
        pci_bus_id: "00000000:18:00.0"
        model: NVIDIA H100 80GB HBM3
        values: {ecc_uncorrected_volatile: 0, temperature_gpu: 41, ...}   # fields of nvml.GROUPS / CHECK_GROUPS
        nvlinks: 18                  # or a list of per-link dicts of nvml.NVLINK_FIELDS
    timeline:                        # applied when the fake's clock passes `at` (seconds after start)
      - {at: 20, gpu: 3, set: {ecc_uncorrected_volatile: 2}}
      - {at: 20, gpu: 3, nvlink: 5, set: {state: 0}}
      - {at: 30, gpu: 1, xid: 79}
      - {at: 40, gpu: 2, lost: true}           # the GPU fell off the bus: every call says GPU_IS_LOST

A value may be `error:<NVML error name>` (that call fails the way NVML does) or `hang` (the call
blocks until `release()`, like NVML on a GPU that has gone away).  A field that is absent raises
NOT_SUPPORTED, as NVML does for a feature the GPU lacks.  Groups read as NVML reads them: one failing
field fails its group's call.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import deque
from typing import Any, Callable

import yaml

from .interface import CHECK_GROUPS, GROUPS, NVLINK_FIELDS, Identity, NvmlError

HEALTHY_VALUES: dict[str, float] = {
    "ecc_corrected_volatile": 0, "ecc_uncorrected_volatile": 0, "ecc_corrected_aggregate": 0,
    "ecc_uncorrected_aggregate": 0, "retired_pages_sbe": 0, "retired_pages_dbe": 0, "retired_pages_pending": 0,
    "remap_correctable": 0, "remap_uncorrectable": 0, "remap_pending": 0, "remap_failure": 0,
    "temperature_gpu": 38, "temperature_memory": 45, "clocks_event_mask": 1, "power_watts": 72.5,
    "pcie_replay": 0, "pcie_link_gen": 5, "pcie_link_gen_max": 5, "pcie_link_width": 16, "pcie_link_width_max": 16,
    "recovery_action": 0,
    # CHECK_GROUPS (read by the active checks only)
    "persistence_mode": 1, "ecc_mode_current": 1, "ecc_mode_pending": 1, "clock_sm_max": 1980,
    "clock_mem_max": 2619, "compute_processes": 0,
}
HEALTHY_LINK = {"state": 1, "crc_flit": 0, "crc_data": 0, "replay": 0, "recovery": 0}


class FakeNvml:
    def __init__(self, scenario: dict[str, Any], clock: Callable[[], float] = time.monotonic):
        self.scenario = copy.deepcopy(scenario)
        self.clock = clock
        self.t0 = clock()
        self.gpus = [self._gpu(g, i) for i, g in enumerate(self._expand(self.scenario.get("gpus", [])))]
        self.timeline = deque(sorted(self.scenario.get("timeline", []), key=lambda e: e["at"]))
        self.xids: deque[tuple[int, int]] = deque()
        self.released = threading.Event()
        self.calls = 0
        self._lock = threading.Lock()
        self._inited = False

    @classmethod
    def from_file(cls, path: str) -> "FakeNvml":
        with open(path, encoding="utf-8") as fh:
            return cls(yaml.safe_load(fh) or {})

    def _expand(self, gpus: list[dict]) -> list[dict]:
        n = self.scenario.get("replicate")
        if not n or not gpus:
            return gpus
        out = []
        for i in range(int(n)):
            g = copy.deepcopy(gpus[0])
            g["uuid"] = f"GPU-{i:08x}-0000-4000-8000-00000000{i:04x}"
            g["pci_bus_id"] = f"00000000:{0x18 + 0x10 * i:02X}:00.0"
            out.append(g)
        return out

    @staticmethod
    def _gpu(g: dict, i: int) -> dict:
        links = g.get("nvlinks", 0)
        if isinstance(links, int):
            links = [dict(HEALTHY_LINK) for _ in range(links)]
        return {"identity": Identity(i, g.get("uuid", f"GPU-fake-{i}"), g.get("pci_bus_id", f"00000000:{i + 1:02X}:00.0"),
                                     g.get("model", "NVIDIA H100 80GB HBM3")),
                "values": {**HEALTHY_VALUES, **g.get("values", {})},
                "nvlinks": [{**HEALTHY_LINK, **(link or {})} for link in links],
                "lost": bool(g.get("lost"))}

    # ---- scenario control (tests) -------------------------------------------------------------------

    def release(self) -> None:
        """Unblock every hung call (they then fail with GPU_IS_LOST)."""
        self.released.set()

    def _advance(self) -> None:
        now = self.clock() - self.t0
        with self._lock:
            while self.timeline and self.timeline[0]["at"] <= now:
                ev = self.timeline.popleft()
                gpu = self.gpus[ev["gpu"]] if "gpu" in ev else None
                if "xid" in ev:
                    self.xids.append((ev["gpu"], int(ev["xid"])))
                if gpu is not None and ev.get("lost"):
                    gpu["lost"] = True
                if gpu is not None and "set" in ev:
                    target = gpu["nvlinks"][ev["nvlink"]] if "nvlink" in ev else gpu["values"]
                    target.update(ev["set"])
                if "remove" in ev:
                    del self.gpus[ev["remove"]]

    def _value(self, v: Any) -> float:
        if isinstance(v, str):
            if v == "hang":
                self.released.wait()
                raise NvmlError("GPU_IS_LOST", "hung call released")
            if v.startswith("error:"):
                raise NvmlError(v[6:])
        return v

    def _check(self, index: int) -> dict:
        self.calls += 1
        if not self._inited:
            raise NvmlError("UNINITIALIZED")
        self._advance()
        if index >= len(self.gpus):
            raise NvmlError("INVALID_ARGUMENT", f"no GPU {index}")
        gpu = self.gpus[index]
        if gpu["lost"]:
            raise NvmlError("GPU_IS_LOST")
        return gpu

    # ---- the Nvml interface -------------------------------------------------------------------------

    def init(self) -> None:
        err = self.scenario.get("init_error")
        if err:
            raise NvmlError(err)
        self._inited = True

    def shutdown(self) -> None:
        self._inited = False

    def driver_version(self) -> str:
        return str(self.scenario.get("driver_version", "550.54.15"))

    def count(self) -> int:
        if not self._inited:
            raise NvmlError("UNINITIALIZED")
        self._advance()
        return len(self.gpus)

    def identity(self, index: int) -> Identity:
        return self._check(index)["identity"]

    def read(self, index: int, group: str) -> dict[str, float]:
        values = self._check(index)["values"]
        fields = GROUPS[group] if group in GROUPS else CHECK_GROUPS[group]
        present = [f for f in fields if f in values]
        if not present:
            raise NvmlError("NOT_SUPPORTED")
        return {f: self._value(values[f]) for f in present}

    def nvlink(self, index: int, link: int) -> dict[str, float]:
        links = self._check(index)["nvlinks"]
        if link >= len(links):
            raise NvmlError("NOT_SUPPORTED")
        return {f: self._value(links[link][f]) for f in NVLINK_FIELDS if f in links[link]}

    def wait_xid(self, timeout_ms: int) -> tuple[int, int] | None:
        if not self._inited:
            raise NvmlError("UNINITIALIZED")
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            self._advance()
            if self.xids:
                return self.xids.popleft()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            time.sleep(min(left, 0.02))
