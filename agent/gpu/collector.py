"""Poll NVML with a deadline on every call: GPU readings, NVLink readings, GPU presence, Xid events.

A call that hangs (NVML does, on a GPU that fell off the bus) ties up only that GPU's worker thread;
the poll returns on time with `nvml_timeout` set for that GPU, and the other GPUs are read as usual.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from parsers import normalize_pci
from parsers.model import Reading
from .interface import GROUPS, MAX_NVLINKS, Identity, Nvml, NvmlError

log = logging.getLogger("gpu_npd.nvml")

# clocks-event (throttle) reason bits (nvmlClocksEventReason*) -> reading fields
CLOCK_EVENTS = {"throttle_sw_thermal": 0x20, "throttle_hw_slowdown": 0x08, "throttle_hw_thermal": 0x40,
                "throttle_power_brake": 0x80, "throttle_sw_power_cap": 0x04}
ABSENT = ("LIBRARY_NOT_FOUND", "DRIVER_NOT_LOADED")  # no GPU stack on this host: a normal state
INIT_RETRY_SECONDS = 60.0


class _Worker:
    """One thread per key; a job that hangs keeps only this worker busy."""

    def __init__(self, name: str):
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.busy = False
        self.call_started = 0.0
        threading.Thread(target=self._loop, name=name, daemon=True).start()

    def _loop(self) -> None:
        while True:
            fn, box = self.jobs.get()
            try:
                box["result"] = fn(self)
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                box["error"] = exc
            self.busy = False
            box["done"].set()

    def submit(self, fn: Callable[["_Worker"], Any]) -> dict:
        box: dict[str, Any] = {"done": threading.Event()}
        self.busy = True
        self.call_started = time.monotonic()
        self.jobs.put((fn, box))
        return box

    def call(self, fn, *args):
        self.call_started = time.monotonic()
        return fn(*args)


@dataclass
class GpuState:
    ident: Identity
    unsupported: set[str] = field(default_factory=set)
    links: list[int] | None = None  # NVLinks NVML answers for, probed on first read
    labels: dict[str, str] = field(init=False)  # fixed for the GPU's life: computed once

    def __post_init__(self) -> None:
        i = self.ident
        self.labels = {"gpu_index": str(i.index), "uuid": i.uuid,
                       "pci_bus_id": normalize_pci(i.pci_bus_id) or i.pci_bus_id, "model": i.model}


def annotate(f, pci_to_gpu: dict[str, dict[str, str]]) -> None:
    """Kernel lines carry only the PCI address: add the GPU index and UUID NVML knows for it."""
    gpu = pci_to_gpu.get(f.pci or "")
    if gpu is not None:
        f.details.setdefault("gpu_index", int(gpu["gpu_index"]))
        f.details.setdefault("uuid", gpu["uuid"])


class GpuCollector:
    def __init__(self, backend: Nvml | None, deadline: float = 5.0, expected_gpus: int = 0,
                 clock: Callable[[], float] = time.monotonic):
        self.backend = backend
        self.deadline = deadline
        self.expected_gpus = expected_gpus
        self.clock = clock
        self.status = "off" if backend is None else "starting"  # ok | <NVML error> | timeout | off
        self.gpus: list[GpuState] = []
        self.pci_to_gpu: dict[str, dict[str, str]] = {}  # PCI address -> labels, for kernel-log findings
        self.errors: dict[tuple[str, str], int] = {}  # (gpu index, NVML error) -> count
        self.timeouts = 0
        self.known_pci: set[str] = set()  # every GPU address seen since start, for naming the missing
        self._workers: dict[str, _Worker] = {}
        self._last_init = -1e18
        self._said: set[str] = set()

    # ---- deadline plumbing ---------------------------------------------------------------------------

    def _worker(self, key: str) -> _Worker:
        w = self._workers.get(key)
        if w is None:
            w = self._workers[key] = _Worker(f"nvml-{key}")
        return w

    def _run(self, key: str, fn: Callable[[_Worker], Any]) -> tuple[str, Any]:
        """("ok", result) | ("error", exc) | ("timeout", None) | ("busy", None)"""
        w = self._worker(key)
        if w.busy:
            return "busy", None
        box = w.submit(fn)
        if not self._wait(w, box):
            return "timeout", None
        return ("error", box["error"]) if "error" in box else ("ok", box["result"])

    def _wait(self, w: _Worker, box: dict) -> bool:
        """Wait for a job while its current call is within the deadline; False once one is not."""
        while not box["done"].wait(max(0.0, w.call_started + self.deadline - time.monotonic())):
            if time.monotonic() - w.call_started >= self.deadline:
                return False
        return True

    # ---- init / inventory --------------------------------------------------------------------------

    def _say_once(self, key: str, level: int, msg: str, *args) -> None:
        if key not in self._said:
            self._said.add(key)
            log.log(level, msg, *args)

    def _ensure_init(self) -> bool:
        if self.backend is None:
            return False
        if self.status == "ok":
            return True
        now = self.clock()
        if now - self._last_init < INIT_RETRY_SECONDS and self.status != "starting":
            return False
        self._last_init = now
        b = self.backend

        def start(w: _Worker) -> list[Identity]:
            w.call(b.init)
            return [w.call(b.identity, i) for i in range(w.call(b.count))]

        outcome, result = self._run("system", start)
        if outcome == "ok":
            self.gpus = [GpuState(ident) for ident in result]
            self.pci_to_gpu = {g.labels["pci_bus_id"]: g.labels for g in self.gpus}  # read per kernel finding
            self.status = "ok"
            self._said.discard("absent")
            log.info("NVML: %d GPU(s), driver %s", len(self.gpus), self._driver())
            return True
        code = result.code if outcome == "error" and isinstance(result, NvmlError) else outcome
        if outcome == "error" and not isinstance(result, NvmlError):
            code = "UNKNOWN"
            log.error("NVML init failed: %s", result)
        self.status = code
        if code in ABSENT:
            self._say_once("absent", logging.INFO, "no NVIDIA GPU stack on this host (NVML: %s); GPU polling waits "
                           "for it, the other collectors keep running", code)
        else:
            self._say_once(f"init-{code}", logging.WARNING, "NVML init failed (%s); retrying every %.0f s",
                           code, INIT_RETRY_SECONDS)
        return False

    def _driver(self) -> str:
        outcome, result = self._run("system", lambda w: w.call(self.backend.driver_version))
        return result if outcome == "ok" else "unknown"

    # ---- polling -----------------------------------------------------------------------------------

    def poll(self, pci_gpus: list[str]) -> list[Reading]:
        """One cycle: a reading per GPU and NVLink, and the node's GPU presence reading."""
        readings: list[Reading] = []
        if self._ensure_init():
            jobs = {g.ident.index: self._read_gpu(g) for g in self.gpus}
            for g in self.gpus:
                readings += self._finish(g, jobs[g.ident.index])
        readings.append(self._presence(pci_gpus))
        return readings

    def _read_gpu(self, g: GpuState) -> tuple[_Worker, dict | None]:
        w = self._worker(str(g.ident.index))
        if w.busy:
            return w, None
        b, i = self.backend, g.ident.index

        def job(w: _Worker) -> dict:
            values: dict[str, float] = {}
            errors: dict[str, str] = {}
            links: dict[int, dict[str, float]] = {}
            for group in GROUPS:
                if group in g.unsupported:
                    continue
                try:
                    values.update(w.call(b.read, i, group))
                except NvmlError as exc:
                    if exc.code == "NOT_SUPPORTED":
                        g.unsupported.add(group)
                        continue
                    errors[group] = exc.code
                    if exc.code == "GPU_IS_LOST":
                        return {"values": values, "errors": errors, "links": links}
            probe = g.links is None
            for link in range(MAX_NVLINKS) if probe else g.links:
                try:
                    links[link] = w.call(b.nvlink, i, link)
                except NvmlError as exc:
                    if exc.code in ("NOT_SUPPORTED", "INVALID_ARGUMENT"):
                        continue
                    errors[f"nvlink{link}"] = exc.code
                    if exc.code == "GPU_IS_LOST":
                        break
            if probe and "GPU_IS_LOST" not in errors.values():
                g.links = sorted(links)
            return {"values": values, "errors": errors, "links": links}

        return w, w.submit(job)

    def _finish(self, g: GpuState, job: tuple[_Worker, dict | None]) -> list[Reading]:
        w, box = job
        labels = g.labels
        gpu = Reading("gpu", f"gpu:{labels['pci_bus_id']}", labels)
        if box is None:  # still hung in a call from an earlier cycle
            gpu.values["nvml_timeout"] = 1
            return [gpu]
        if not self._wait(w, box):
            self.timeouts += 1
            self._say_once(f"timeout-{g.ident.index}", logging.ERROR,
                           "NVML call on GPU %d (%s) missed its %.1f s deadline", g.ident.index,
                           labels["pci_bus_id"], self.deadline)
            gpu.values["nvml_timeout"] = 1
            return [gpu]
        self._said.discard(f"timeout-{g.ident.index}")
        if "error" in box:  # a bug in a backend, not an NVML answer: count it, keep going
            self._count(labels["gpu_index"], "UNKNOWN")
            log.error("reading GPU %d failed: %s", g.ident.index, box["error"])
            return [gpu]
        result = box["result"]
        for code in result["errors"].values():
            self._count(labels["gpu_index"], code)
        gpu.values.update(result["values"])
        gpu.values["nvml_timeout"] = 0
        gpu.values["gpu_lost"] = 1 if "GPU_IS_LOST" in result["errors"].values() else 0
        mask = gpu.values.get("clocks_event_mask")
        if mask is not None:
            for name, bit in CLOCK_EVENTS.items():
                gpu.values[name] = 1 if int(mask) & bit else 0
        out = [gpu]
        links = result["links"]
        active = sum(1 for v in links.values() if v.get("state") == 1)
        for link, v in sorted(links.items()):
            lr = Reading("nvlink", f"gpu:{labels['pci_bus_id']}/nvlink{link}", {**labels, "link": str(link)}, dict(v))
            lr.values["down"] = 1 if v.get("state") == 0 and active > 0 else 0  # down while its siblings are up
            out.append(lr)
        return out

    def _count(self, gpu: str, code: str) -> None:
        self.errors[(gpu, code)] = self.errors.get((gpu, code), 0) + 1

    def _presence(self, pci_gpus: list[str]) -> Reading:
        pci = {normalize_pci(p) or p for p in pci_gpus}
        nvml = {g.labels["pci_bus_id"] for g in self.gpus} if self.status == "ok" else set()
        self.known_pci |= pci | nvml
        expected = self.expected_gpus or len(self.known_pci)
        values: dict[str, float] = {"gpus_pci": len(pci), "gpus_expected": expected}
        if self.status == "ok":
            values["gpus_nvml"] = len(nvml)
            seen = nvml & pci if pci else nvml
        else:
            seen = pci
        missing = sorted(self.known_pci - seen)
        values["gpus_missing"] = max(len(missing), expected - len(seen))
        values["driver_missing_with_gpus"] = 1 if pci and self.status == "DRIVER_NOT_LOADED" else 0
        # GPUs on the bus but no libnvidia-ml in reach: the runtime did not inject it (no NVIDIA runtime class
        # or CDI for this pod), so the agent is blind to NVML telemetry: a problem, not "no GPU stack"
        values["nvml_missing_with_gpus"] = 1 if pci and self.status == "LIBRARY_NOT_FOUND" else 0
        text = {"missing": ", ".join(missing) or "unknown addresses", "found": str(len(seen))}
        return Reading("node", "node", {}, values, text)

    # ---- on-node annotation and recording ------------------------------------------------------------

    def start(self) -> bool:
        """Initialise now (for one-shot commands); True when NVML answered."""
        return self._ensure_init()

    def snapshot(self) -> dict[str, Any]:
        """This host's raw NVML readings as a scenario the fake replays (tests/fixtures/nvml/)."""
        if not self._ensure_init():
            return {"init_error": self.status}
        b = self.backend
        out: dict[str, Any] = {"driver_version": self._driver(), "gpus": []}
        for g in self.gpus:
            def job(w: _Worker, g=g) -> dict:
                values: dict[str, Any] = {}
                for group, fields in GROUPS.items():
                    try:
                        values.update(w.call(b.read, g.ident.index, group))
                    except NvmlError as exc:
                        values.update({f: f"error:{exc.code}" for f in fields})
                links = []
                for link in range(MAX_NVLINKS):
                    try:
                        links.append(w.call(b.nvlink, g.ident.index, link))
                    except NvmlError as exc:
                        if exc.code not in ("NOT_SUPPORTED", "INVALID_ARGUMENT"):
                            links.append({"state": f"error:{exc.code}"})
                return {"values": values, "links": links}

            outcome, result = self._run(str(g.ident.index), job)
            i = g.ident
            entry: dict[str, Any] = {"uuid": i.uuid, "pci_bus_id": i.pci_bus_id, "model": i.model}
            if outcome == "ok":
                entry["values"], entry["nvlinks"] = result["values"], result["links"]
            else:
                entry["lost"] = True
            out["gpus"].append(entry)
        return out

    # ---- Xid events --------------------------------------------------------------------------------

    def xid_events(self, on_xid: Callable[[str, int], None], stop: threading.Event) -> None:
        """Blocking loop: NVML's Xid event stream -> on_xid(pci, xid).  Runs in its own thread."""
        backoff = 1.0
        while not stop.is_set():
            if self.status != "ok" or self.backend is None:
                stop.wait(1.0)
                continue
            try:
                event = self.backend.wait_xid(1000)
                backoff = 1.0
            except NvmlError as exc:
                self._say_once(f"events-{exc.code}", logging.WARNING, "NVML Xid events unavailable: %s", exc.code)
                stop.wait(backoff)
                backoff = min(backoff * 2, 60.0)
                continue
            if event is None:
                continue
            index, xid = event
            pci = next((g.labels["pci_bus_id"] for g in self.gpus if g.ident.index == index), None)
            if pci is not None:
                on_xid(pci, xid)
