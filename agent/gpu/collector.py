"""Poll NVML with a deadline on every call: GPU readings, NVLink readings, GPU presence, Xid events.

A call that hangs (NVML does, on a GPU that fell off the bus) ties up only that GPU's worker thread;
the poll returns on time with `nvml_timeout` set for that GPU, and the other GPUs are read as usual.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Collection

from parsers import normalize_pci
from parsers.gpus import GpuMap
from parsers.model import Reading
from parsers.pci import gpu_driver_line

from .interface import GONE, GROUPS, MAX_NVLINKS, UNSUPPORTED, Identity, Nvml, NvmlError

log = logging.getLogger("gpu_npd.nvml")

# clocks-event (throttle) reason bits (nvmlClocksEventReason*) -> reading fields
CLOCK_EVENTS = {"throttle_sw_thermal": 0x20, "throttle_hw_slowdown": 0x08, "throttle_hw_thermal": 0x40,
                "throttle_power_brake": 0x80, "throttle_sw_power_cap": 0x04}
CLOCK_IDLE = 0x1  # nvmlClocksEventReasonGpuIdle: link generation and width may drop while idle, by design
# nvmlDeviceGetViolationStatus counters (ns) -> seconds the clocks were held down, by cause
THROTTLE_TIME = {"violation_power_ns": "throttled_power_seconds", "violation_thermal_ns": "throttled_thermal_seconds",
                 "violation_reliability_ns": "throttled_reliability_seconds",
                 "violation_board_limit_ns": "throttled_board_limit_seconds"}
NVLINK_DATA = {"nvlink_tx_kib": "nvlink_tx_bytes", "nvlink_rx_kib": "nvlink_rx_bytes"}  # NVML's KiB, in bytes
# The fabric health mask, field by field (NVML_GPU_FABRIC_HEALTH_MASK_*): reading field, shift, width and the
# values that mean trouble.  A non-zero mask is not a fault by itself: most fields say "false" as 2.
FABRIC_MASK = (("fabric_degraded_bandwidth", 0, 0x3, (1,)), ("fabric_route_recovery", 2, 0x3, (1,)),
               ("fabric_route_unhealthy", 4, 0x3, (1,)), ("fabric_access_timeout_recovery", 6, 0x3, (1,)),
               ("fabric_incorrect_configuration", 8, 0xF, (2, 3, 4, 5, 6, 7, 8)),
               ("fabric_partition_unassigned", 12, 0x3, (2,)), ("fabric_manager_disconnected", 14, 0x3, (2,)))
FABRIC_COMPLETED = 3
ABSENT = ("LIBRARY_NOT_FOUND", "DRIVER_NOT_LOADED")  # no GPU stack on this host: a normal state
# What the init failure's one line adds for the operator, by NVML error
INIT_ADVICE = {
    # the container toolkit mounts the host's libnvidia-ml when the container starts, and a running container keeps
    # it after a driver upgrade ("you need to relaunch the containers after a driver upgrade":
    # https://github.com/NVIDIA/nvidia-docker/issues/365)
    "LIB_RM_VERSION_MISMATCH": "libnvidia-ml and the kernel module are from different driver releases: after a "
                               "driver upgrade restart this pod to load the new library (a running container "
                               "keeps the one it started with); otherwise the upgrade is half done",
}
INIT_RETRY_SECONDS = 60.0
RESET_HOLD_SECONDS = 60.0  # NVML stays released this long after the last sight of a reset command
# A GPU reset (or MIG mode change) refuses while any process holds NVML: these commands mean one is under way
RESET_COMMANDS = (("nvidia-smi", ("-r", "--gpu-reset", "-mig", "--multi-instance-gpu")),)


class _Worker:
    """One thread per key; a job that hangs keeps only this worker busy."""

    def __init__(self, name: str):
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        self.busy = False
        self.call_started = 0.0
        threading.Thread(target=self._loop, name=name, daemon=True).start()

    def _loop(self) -> None:
        while True:
            job = self.jobs.get()
            if job is None:  # close()
                return
            fn, box = job
            try:
                box["result"] = fn(self)
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                box["error"] = exc
            self.busy = False
            box["done"].set()

    def close(self) -> None:
        """End the thread once the call it is in, if any, returns (a call NVML never returns keeps it: a daemon)."""
        self.jobs.put(None)

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
    subject: str = field(init=False)

    def __post_init__(self) -> None:
        i = self.ident
        self.labels = {"gpu_index": str(i.index), "uuid": i.uuid,
                       "pci_bus_id": normalize_pci(i.pci_bus_id) or i.pci_bus_id, "model": i.model,
                       "nvml_pci_bus_id": i.pci_bus_id}  # as NVML (and so dcgm-exporter) writes it
        # by its address; a GPU lost at start whose address nobody gives (no sysfs, two lost): by its NVML index
        self.subject = f"gpu:{self.labels['pci_bus_id']}" if i.pci_bus_id else f"gpu:nvml{i.index}"


def annotate(f, gpus: GpuMap, known: Collection[str] = ()) -> None:
    """Kernel lines carry only the PCI address: add the GPU index and UUID NVML knows for it.  A GPU NVML does not
    name (NVML down: the driver crashed, the GPU fell off the bus, NVML's map not read yet) is still one where sysfs
    listed an NVIDIA GPU at the address since start (`known`: the collector's `known_pci`, as the poll's batch
    carries it) or a GPU driver printed the line for it (parsers/pci.py GPU_DRIVERS): its `uuid` detail empty, as a
    GPU NVML names without one, so its subject is the GPU's (agent/health.py _prefix).  The map's `aliases` asked
    directly, not through `in gpus` (GpuMap.__contains__, a Python call every kernel finding paid)."""
    if f.pci in gpus.aliases:
        index = gpus.index(f.pci)
        if index is not None:
            f.details.setdefault("gpu_index", int(index))
        f.details.setdefault("uuid", gpus.uuid(f.pci) or "")
    elif f.pci and "uuid" not in f.details and (f.pci in known or gpu_driver_line(f.message, f.pci, True)):
        f.details["uuid"] = ""


def derive(v: dict[str, float]) -> None:
    """Readings computed from NVML's raw values, in place: reason bits, seconds throttled, NVLink data in bytes,
    thermal margin, the fabric mask decoded, PCIe link figures and the SM clock that count only while the GPU is busy."""
    mask = v.get("clocks_event_mask")
    if mask is not None:
        for name, bit in CLOCK_EVENTS.items():
            v[name] = 1 if int(mask) & bit else 0
        if not int(mask) & CLOCK_IDLE:  # idle links train down (and clocks drop) to save power: judged only under load
            for f in ("pcie_link_gen", "pcie_link_width", "clock_sm"):
                if f in v:
                    v[f + "_loaded"] = v[f]
    for raw, seconds in THROTTLE_TIME.items():
        if raw in v:
            v[seconds] = v[raw] / 1e9
    for raw, data in NVLINK_DATA.items():
        if raw in v:
            v[data] = v[raw] * 1024
    if "temperature_slowdown" in v and "temperature_gpu" in v and v["temperature_slowdown"] > 0:
        v["thermal_margin"] = v["temperature_slowdown"] - v["temperature_gpu"]
    state = v.get("fabric_state")
    if state is not None:
        v["fabric_registration_failed"] = 1 if state == FABRIC_COMPLETED and v.get("fabric_status", 0) != 0 else 0
        v["fabric_registration_pending"] = 0 if state == FABRIC_COMPLETED else 1
        health = int(v.get("fabric_health_mask", 0))
        for name, shift, width, bad in FABRIC_MASK:
            field = (health >> shift) & width
            v[name] = field if field in bad else 0


def is_reset_command(argv: list[bytes]) -> bool:
    """A process's argv (its /proc cmdline split at NULs) is a GPU reset or MIG mode change."""
    name = os.path.basename(argv[0].decode(errors="replace")) if argv else ""
    return any(name == command and any(a.decode(errors="replace").split("=")[0] in flags for a in argv[1:])
               for command, flags in RESET_COMMANDS)


class ResetWatch:
    """Is a `nvidia-smi -r` (or MIG mode change) running on this host (the host's /proc under proc_root)?

    Asked every poll, so cheap: /proc is listed each time, but a process's cmdline is read only at the first
    two polls that see its pid (a forked child may not have exec'd its command yet at the first) and remembered
    until the pid goes; kernel threads and long-lived daemons cost one directory entry each."""

    READS = 2  # polls that read a new pid's cmdline

    def __init__(self, proc_root: str):
        self.proc = os.path.join(proc_root, "proc")
        self._known: dict[str, tuple[int, bool]] = {}  # pid -> (times read, a reset command)
        self.reads = 0  # cmdline files read (tests, benchmarks)

    def __call__(self) -> bool:
        try:
            pids = [p for p in os.listdir(self.proc) if p.isdigit()]
        except OSError:
            return False
        known, found = {}, False
        for pid in pids:
            times, reset = self._known.get(pid, (0, False))
            if times < self.READS:
                times, reset = times + 1, self._read(pid)
            known[pid] = (times, reset)
            found = found or reset
        self._known = known  # pids gone are forgotten (a pid reused later is read afresh)
        return found

    def _read(self, pid: str) -> bool:
        self.reads += 1
        try:
            with open(os.path.join(self.proc, pid, "cmdline"), "rb") as fh:
                return is_reset_command(fh.read(4096).split(b"\0"))
        except OSError:
            return False


NO_LINK = (*UNSUPPORTED, "INVALID_ARGUMENT")  # NVML has no such link here (or this driver cannot say)


def read_nvlinks(w: "_Worker", b: Nvml, index: int, which) -> tuple[dict[int, dict[str, float]], dict[int, str]]:
    """The links of GPU `index` among `which`, as the poll and the snapshot both read them: link -> its values,
    and link -> the NVML error it gave; a link NVML does not have (NO_LINK) is neither; GPU_IS_LOST ends it."""
    links: dict[int, dict[str, float]] = {}
    failed: dict[int, str] = {}
    for link in which:
        try:
            links[link] = w.call(b.nvlink, index, link)
        except NvmlError as exc:
            if exc.code in NO_LINK:
                continue
            failed[link] = exc.code
            if exc.code == "GPU_IS_LOST":
                break
    return links, failed


class GpuCollector:
    def __init__(self, backend: Nvml | None, deadline: float = 5.0, expected_gpus: int = 0,
                 clock: Callable[[], float] = time.monotonic, release_file: str = "", proc_root: str = ""):
        self.backend = backend
        self.release_file = release_file  # while it exists, NVML is released (operators, reset scripts)
        self.reset_running = ResetWatch(proc_root) if proc_root else None  # a reset command under way on the host
        self._holds: dict[str, float] = {}  # why NVML is to be released -> until when (clock time)
        # the last release of NVML for a reset: (from, until: inf while it lasts; wall clock, as pods' lines are
        # stamped), its reasons; a pod that cannot see its GPUs meanwhile is the reset's (agent/pipeline.py `_reset`)
        self.released: tuple[float, float, tuple[str, ...]] | None = None
        self.deadline = deadline
        self.expected_gpus = expected_gpus
        self.clock = clock
        self.status = "off" if backend is None else "starting"  # ok | <NVML error> | timeout | off
        self.gpus: list[GpuState] = []
        self.unread: list[GpuState] = []  # GPUs an earlier inventory named and the current one does not
        # GPUs NVML counts whose identity failed at the init (index -> NVML error, or timeout): asked again on the
        # init's schedule; those that answered GPU_IS_LOST are held lost (`lost`), the others are missing
        self.unanswered: dict[int, str] = {}
        self.lost: list[GpuState] = []
        self.lost_pci: set[str] = set()  # sysfs's GPU addresses NVML's handle by PCI bus id says are lost
        self._retired: list[GpuState] = []  # lost GPUs read again under another subject: cleared once
        self.nvml_count = 0  # GPUs NVML counted at the last init
        self.gpu_map = GpuMap()  # PCI address <-> UUID <-> index of NVML's GPUs: per kernel-log finding, per join
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
        return ("busy", None) if w.busy else self._ended(w, w.submit(fn))

    def _taken(self, w: _Worker, box: dict | None) -> tuple[str, Any]:
        """A GPU's job (`box`: None where its worker was still in a call that hung earlier, nothing asked) as it
        ended: ("busy", None), else as `_ended`, a timeout counted in `timeouts`."""
        if box is None:
            return "busy", None
        ended = self._ended(w, box)
        if ended[0] == "timeout":
            self.timeouts += 1
        return ended

    def _ended(self, w: _Worker, box: dict) -> tuple[str, Any]:
        """A job submitted as it ended: ("timeout", None) past the deadline, ("error", exc) or ("ok", result)."""
        if not self._wait(w, box):
            return "timeout", None
        return ("error", box["error"]) if "error" in box else ("ok", box["result"])

    def _wait(self, w: _Worker, box: dict) -> bool:
        """Wait for a job while its current call is within the deadline; False once one is not."""
        while not box["done"].wait(max(0.0, w.call_started + self.deadline - time.monotonic())):
            if time.monotonic() - w.call_started >= self.deadline:
                return False
        return True

    def close(self) -> None:
        """End the NVML threads (one per GPU and "system"), each after the call it is in: the agent's shutdown, once
        its poller stopped, and the one-shot commands.  Until then a worker waits for its next job for as long as
        the process lives (the threads are daemons: a process ends all the same, but a long-lived one that builds
        collectors, tests, kept every one).  A call after this starts a worker again."""
        workers, self._workers = self._workers, {}
        for w in workers.values():
            w.close()

    # ---- init / inventory --------------------------------------------------------------------------

    def _say_once(self, key: str, level: int, msg: str, *args) -> None:
        if key not in self._said:
            self._said.add(key)
            log.log(level, msg, *args)

    def _ensure_init(self, pci_gpus: Collection[str] = ()) -> bool:
        if self.backend is None:
            return False
        now = self.clock()
        if self.status == "ok":
            if self.unanswered and now - self._last_init >= INIT_RETRY_SECONDS:  # GPUs that did not answer
                self._last_init = now
                self._inventory(self.nvml_count, pci_gpus, sorted(self.unanswered))
            return True
        if now - self._last_init < INIT_RETRY_SECONDS and self.status != "starting":
            return False
        self._last_init = now
        b = self.backend
        outcome, result = self._run("system", lambda w: (w.call(b.init), w.call(b.count))[1])
        if outcome == "ok":  # new handles, links probed again: after NVML went away the GPU list may differ
            code = self._inventory(result, pci_gpus)
            if code is None:
                self.status = "ok"
                self._said -= {"absent", *(f"gone-{code}" for code in GONE)}
                log.info("NVML: %d GPU(s), driver %s%s", len(self.gpus), self._driver(),
                         f"; {len(self.unanswered)} did not answer" if self.unanswered else "")
                return True
            outcome, result = "error", NvmlError(code)
        code = result.code if outcome == "error" and isinstance(result, NvmlError) else outcome
        if outcome == "error" and not isinstance(result, NvmlError):
            code = "UNKNOWN"
            log.error("NVML init failed: %s", result)
        self.status = code
        if code in ABSENT:  # with what NVML's error says (where libnvidia-ml was looked for)
            self._say_once("absent", logging.INFO, "no NVIDIA GPU stack on this host (%s); GPU polling waits "
                           "for it, the other collectors keep running",
                           result if isinstance(result, NvmlError) else f"NVML {code}")
        else:
            advice = INIT_ADVICE.get(code)
            self._say_once(f"init-{code}", logging.WARNING, "NVML init failed (%s); retrying every %.0f s%s",
                           code, INIT_RETRY_SECONDS, f"; {advice}" if advice else "")
        return False

    def _inventory(self, count: int, pci_gpus: Collection[str], indices: list[int] | None = None) -> str | None:
        """Read the identity of GPUs `indices` (None: all `count`, a new inventory) and take them in; the NVML error
        that failed every GPU where it is NVML itself gone (GONE), else None.

        NVML's errors are per device (GPU_IS_LOST: "The GPU has fallen off the bus or has otherwise become
        inaccessible", docs/nvml.md): a GPU that does not answer is held by its index with its error and the others
        are read.  Each GPU is asked on its own worker under the deadline, so one hung call stops only
        that GPU; GPU_IS_LOST holds it lost (the same reading as a GPU lost while polled: `gpu_lost`), any other
        error or a missed deadline leaves it missing (GPU presence), never lost."""
        b, fresh = self.backend, indices is None
        asked = list(range(count)) if fresh else indices
        boxes = {}
        for i in asked:
            w = self._worker(str(i))
            boxes[i] = (w, None if w.busy else w.submit(lambda w, i=i: w.call(b.identity, i)))
        read: list[Identity] = []
        failed: dict[int, str] = {}
        for i, (w, box) in boxes.items():
            outcome, result = self._taken(w, box)
            if outcome == "ok":
                read.append(result)
            else:
                failed[i] = "timeout" if result is None else result.code if isinstance(result, NvmlError) \
                    else "UNKNOWN"
        if fresh and failed and not read and set(failed.values()) <= set(GONE):
            return min(set(failed.values()), key=GONE.index)
        for i, code in failed.items():
            self._count(str(i), code)
        idents = read if fresh else [*(g.ident for g in self.gpus), *read]
        self._take(count, idents, failed, self._lost_addresses(idents, failed, pci_gpus), keep=not fresh)
        return None

    def _lost_addresses(self, idents: list[Identity], failed: dict[int, str], pci_gpus: Collection[str]) -> list[str]:
        """sysfs's NVIDIA GPU addresses NVML did not name whose handle by PCI bus id answers GPU_IS_LOST (asked only
        while a GPU is lost; on a worker of its own, under the deadline)."""
        named = {normalize_pci(i.pci_bus_id) for i in idents}
        candidates = sorted(p for p in pci_gpus if normalize_pci(p) not in named)
        if "GPU_IS_LOST" not in failed.values() or not candidates:
            return []
        b = self.backend

        def job(w: _Worker) -> list[str]:
            lost = []
            for p in candidates:
                try:
                    w.call(b.probe_pci, p)
                except NvmlError as exc:
                    if exc.code == "GPU_IS_LOST":
                        lost.append(p)
            return lost

        outcome, result = self._run("probe", job)
        return result if outcome == "ok" else []

    def _take(self, count: int, idents: list[Identity], failed: dict[int, str], lost_at: list[str],
              keep: bool) -> None:
        """The inventory read: GPUs read (their states kept where `keep`), GPUs lost, GPUs unread.  A lost GPU is
        named by the address NVML's handle by PCI bus id calls lost when that is the one lost GPU; several lost,
        which address is which index NVML does not say, so each is held by its index."""
        prior = {g.ident: g for g in self.gpus} if keep else {}
        gpus = sorted((prior.get(i) or GpuState(i) for i in idents), key=lambda g: g.ident.index)
        lost_idx = sorted(i for i, code in failed.items() if code == "GPU_IS_LOST")
        bus = lost_at[0] if len(lost_idx) == 1 and len(lost_at) == 1 else ""
        lost = [GpuState(Identity(i, "", bus, "")) for i in lost_idx]
        subjects = {g.subject for g in (*gpus, *lost)}
        uuids = {g.ident.uuid for g in gpus}
        indices = {g.ident.index for g in gpus}
        # a lost GPU read again under another subject (its address unknown while lost): its problem clears once, at
        # the next poll that reads (_lost); one not cleared yet (NVML gone in the poll it was read) stays to clear
        # unless held again under its subject
        self._retired = [g for g in self._retired if g.subject not in subjects] + [
            g for g in self.lost if g.subject not in subjects and g.ident.index in indices]
        # a GPU NVML named (or held lost) before and not now is unread, not lost: GPU presence counts it missing,
        # and its problems stand
        self.unread = [g for g in (*self.unread, *self.gpus, *self.lost) if g.subject not in subjects
                       and not (g.ident.uuid and g.ident.uuid in uuids) and not any(g is r for r in self._retired)]
        for i in sorted(self.unanswered.keys() - failed.keys()):
            self._said = {k for k in self._said if not k.startswith(f"identity-{i}-")}
            log.info("NVML: GPU %d answers again", i)
        for i, code in sorted(failed.items()):
            where = bus if code == "GPU_IS_LOST" and bus else "address unknown"
            self._say_once(f"identity-{i}-{code}", logging.WARNING, "NVML: GPU %d (%s) did not answer at init (%s): "
                           "%s; the other GPUs are read, this one asked again every %.0f s", i, where, code,
                           "held lost" if code == "GPU_IS_LOST" else "counted missing", INIT_RETRY_SECONDS)
        self.gpus, self.lost, self.unanswered, self.nvml_count = gpus, lost, failed, count
        self.lost_pci = {normalize_pci(p) or p for p in lost_at}
        self.gpu_map = GpuMap.from_labels(g.labels for g in gpus)  # once per inventory: only GPUs read (a UUID)

    def _gone(self, code: str) -> None:
        """NVML went away under the agent: down as a failed init is (its status, retried on the init's schedule),
        every handle dropped; the GPUs' problems stand (held readings) until it answers again."""
        self.status = code  # first: the Xid thread stops waiting on NVML
        self._last_init = self.clock()
        outcome, _ = self._run("system", lambda w: w.call(self.backend.shutdown))
        self._said.add("absent" if code in ABSENT else f"init-{code}")  # an init failing the same way: said
        self._say_once(f"gone-{code}", logging.WARNING, "NVML went away (%s on every GPU: the driver unloaded or "
                       "was reset); GPU problems stand unread, initialising again every %.0f s%s", code,
                       INIT_RETRY_SECONDS, "" if outcome == "ok" else f" (shutdown: {outcome})")

    def _driver(self) -> str:
        outcome, result = self._run("system", lambda w: w.call(self.backend.driver_version))
        return result if outcome == "ok" else "unknown"

    def answers_for_all(self) -> bool:
        """Whether NVML answers for every GPU of the node: none lost, unread or unanswered, and every GPU address sysfs
        named among its GPUs (a device of one of them whose GPU is not known is then answered for)."""
        return not (self.lost or self.unread or self.unanswered) and self.known_pci.issubset(self.gpu_map.aliases)

    # ---- releasing NVML for a GPU reset ------------------------------------------------------------

    def hold(self, reason: str, seconds: float = math.inf) -> None:
        """Release NVML for this long (or until unhold): a reset can then proceed. Thread-safe."""
        self._holds[reason] = self.clock() + seconds

    def unhold(self, reason: str) -> None:
        self._holds.pop(reason, None)

    def release_reasons(self) -> list[str]:
        now = self.clock()
        if self.release_file and os.path.exists(self.release_file):
            self._holds["file"] = now  # removing the file ends it (at the next poll)
        elif self._holds.get("file", math.inf) <= now:
            self._holds.pop("file", None)
        if self.reset_running is not None and self.reset_running():
            self.hold("reset", RESET_HOLD_SECONDS)
        for reason, until in list(self._holds.items()):
            if until < now:
                del self._holds[reason]
        return sorted(self._holds)

    def _release(self, reasons: list[str]) -> None:
        was = self.status
        self.status = "released"  # first: the Xid thread stops waiting on NVML
        self.released = (time.time(), math.inf, tuple(reasons))
        self._said.discard("released")
        if was == "ok":
            outcome, _ = self._run("system", lambda w: w.call(self.backend.shutdown))
            log.warning("NVML released (%s): no handle held, so a GPU reset can proceed%s", ", ".join(reasons),
                        "" if outcome == "ok" else f" (shutdown: {outcome})")

    # ---- polling -----------------------------------------------------------------------------------

    def poll(self, pci_gpus: list[str]) -> list[Reading]:
        """One cycle: a reading per GPU and NVLink, and the node's GPU presence reading."""
        readings: list[Reading] = []
        reasons = self.release_reasons() if self.backend is not None else []
        if reasons:
            if self.status != "released":
                self._release(reasons)
            return [*self._held(self.gpus + self.lost + self.unread), self._presence(pci_gpus)]
        if self.status == "released":
            log.info("NVML resumed after release")
            if self.released is not None:
                self.released = (self.released[0], time.time(), self.released[2])
            self.status = "starting"
        if self._ensure_init(pci_gpus):
            jobs = {g.ident.index: self._read_gpu(g) for g in self.gpus}
            answered: list[set[str]] = []  # each answering GPU's NVML errors this poll
            for g in self.gpus:
                readings += self._finish(g, jobs[g.ident.index], answered)
            gone = [codes.intersection(GONE) for codes in answered]
            if gone and all(gone):
                self._gone(min(set().union(*gone), key=GONE.index))
                readings = self._held(self.gpus + self.lost)  # nothing this poll read counts: none cleared or raised
            else:
                readings += self._lost()
        else:
            readings = self._held(self.gpus + self.lost)
        readings += self._held(self.unread)
        readings.append(self._presence(pci_gpus))
        return readings

    def _lost(self) -> list[Reading]:
        """The GPUs lost at the init: the reading a GPU lost while polled gives (partial: nothing else read); and
        once, a GPU lost under its index and read again under its address, its index's problem cleared."""
        out = [Reading("gpu", g.subject, g.labels, {"gpu_lost": 1, "nvml_timeout": 0}, partial=True)
               for g in self.lost]
        out += [Reading("gpu", g.subject, g.labels, {"gpu_lost": 0, "nvml_timeout": 0}) for g in self._retired]
        self._retired = []
        return out

    @staticmethod
    def _held(gpus: list[GpuState]) -> list[Reading]:
        """A reading with no value of each of these GPUs and their NVLinks, not read (NVML gone or released, or not
        named by NVML since it was initialised again): partial, so what was raised on them stands and their
        confirmation counts go on where they were."""
        out: list[Reading] = []
        for g in gpus:
            labels = g.labels
            out.append(Reading("gpu", g.subject, labels, partial=True))
            out += [Reading("nvlink", f"{g.subject}/nvlink{link}", {**labels, "link": str(link)},
                            partial=True) for link in g.links or ()]
        return out

    def _read_gpu(self, g: GpuState) -> tuple[_Worker, dict | None]:
        w = self._worker(str(g.ident.index))
        if w.busy:
            return w, None
        b, i = self.backend, g.ident.index

        def job(w: _Worker) -> dict:
            values: dict[str, float] = {}
            errors: dict[str, str] = {}
            for group in GROUPS:
                if group in g.unsupported:
                    continue
                try:
                    values.update(w.call(b.read, i, group))
                except NvmlError as exc:
                    if exc.code in UNSUPPORTED:
                        g.unsupported.add(group)
                        continue
                    errors[group] = exc.code
                    if exc.code == "GPU_IS_LOST":
                        return {"values": values, "errors": errors, "links": {}}
            probe = g.links is None
            links, failed = read_nvlinks(w, b, i, range(MAX_NVLINKS) if probe else g.links)
            errors.update({f"nvlink{link}": code for link, code in failed.items()})
            if probe and "GPU_IS_LOST" not in failed.values():
                g.links = sorted(links)
            return {"values": values, "errors": errors, "links": links}

        return w, w.submit(job)

    def _finish(self, g: GpuState, job: tuple[_Worker, dict | None], answered: list[set[str]]) -> list[Reading]:
        w, box = job
        labels = g.labels
        gpu = Reading("gpu", g.subject, labels, partial=True)
        outcome, result = self._taken(w, box)
        if outcome in ("busy", "timeout"):
            if outcome == "timeout":
                self._say_once(f"timeout-{g.ident.index}", logging.ERROR,
                               "NVML call on GPU %d (%s) missed its %.1f s deadline", g.ident.index,
                               labels["pci_bus_id"], self.deadline)
            gpu.values["nvml_timeout"] = 1
            return [gpu]
        self._said.discard(f"timeout-{g.ident.index}")
        if outcome == "error":  # a bug in a backend, not an NVML answer: count it, keep going
            self._count(labels["gpu_index"], "UNKNOWN")
            log.error("reading GPU %d failed: %s", g.ident.index, result)
            return [gpu]
        answered.append(set(result["errors"].values()))
        for code in result["errors"].values():
            self._count(labels["gpu_index"], code)
        gpu.partial = any(k in GROUPS for k in result["errors"])  # a link not read has no reading at all
        gpu.values.update(result["values"])
        gpu.values["nvml_timeout"] = 0
        gpu.values["gpu_lost"] = 1 if "GPU_IS_LOST" in result["errors"].values() else 0
        derive(gpu.values)
        out = [gpu]
        links = result["links"]
        active = sum(1 for v in links.values() if v.get("state") == 1)
        for link, v in sorted(links.items()):
            lr = Reading("nvlink", f"{g.subject}/nvlink{link}", {**labels, "link": str(link)}, dict(v))
            lr.values["down"] = 1 if v.get("state") == 0 and active > 0 else 0  # down while its siblings are up
            out.append(lr)
        return out

    def _count(self, gpu: str, code: str) -> None:
        self.errors[(gpu, code)] = self.errors.get((gpu, code), 0) + 1

    def _presence(self, pci_gpus: list[str]) -> Reading:
        pci = {normalize_pci(p) or p for p in pci_gpus}
        answered = self.status in ("ok", "released")  # released: NVML's last answer stands
        # NVML's GPUs: those read and those it says are lost (a lost GPU is not missing: its own problem says it)
        nvml = {g.labels["pci_bus_id"] for g in self.gpus} | self.lost_pci if answered else set()
        unplaced = max(0, len(self.lost) - len(self.lost_pci)) if answered else 0  # lost, address unknown
        self.known_pci |= pci | nvml
        # NVML's count: a GPU it counts and cannot name (an error at its identity) is missing even with no sysfs
        expected = self.expected_gpus or max(len(self.known_pci), self.nvml_count if answered else 0)
        values: dict[str, float] = {"gpus_pci": len(pci), "gpus_expected": expected}
        if answered:
            values["gpus_nvml"] = len(nvml) + unplaced
            seen = nvml & pci if pci else nvml
        else:
            seen = pci
        missing = sorted(self.known_pci - seen)
        values["gpus_missing"] = max(len(missing), expected - len(seen) - unplaced)
        values["driver_missing_with_gpus"] = 1 if pci and self.status == "DRIVER_NOT_LOADED" else 0
        # GPUs on the bus but no libnvidia-ml in reach: the runtime did not inject it (no NVIDIA runtime class
        # or CDI for this pod), so the agent is blind to NVML telemetry: a problem, not "no GPU stack"
        values["nvml_missing_with_gpus"] = 1 if pci and self.status == "LIBRARY_NOT_FOUND" else 0
        # libnvidia-ml from one driver release, the kernel module from another (an upgrade half done)
        values["nvml_driver_mismatch"] = 1 if self.status == "LIB_RM_VERSION_MISMATCH" else 0
        text = {"missing": ", ".join(missing) or "unknown addresses", "found": str(len(seen))}
        if self.status == "ok":  # GPUs of one model should run one VBIOS (a partial firmware update otherwise)
            by_model: dict[str, set[str]] = {}
            for g in self.gpus:
                if g.ident.vbios:
                    by_model.setdefault(g.ident.model, set()).add(g.ident.vbios)
            values["vbios_variants"] = max((len(v) for v in by_model.values()), default=1)
            text["vbios"] = "; ".join(f"{m}: {', '.join(sorted(v))}" for m, v in sorted(by_model.items()) if len(v) > 1)
        return Reading("node", "node", {}, values, text)

    # ---- on-node annotation and recording ------------------------------------------------------------

    def start(self) -> bool:
        """Initialise now (for one-shot commands); True when NVML answered."""
        return self._ensure_init()

    def snapshot(self, pci_gpus: Collection[str] = ()) -> dict[str, Any]:
        """This host's raw NVML readings as a scenario the stand-in replays (tests/fixtures/nvml/); `pci_gpus`,
        sysfs's NVIDIA GPU addresses, name a GPU lost at the init as the poll does."""
        if not self._ensure_init(pci_gpus):
            return {"init_error": self.status}
        b = self.backend
        out: dict[str, Any] = {"driver_version": self._driver(), "gpus": []}
        entries = {i: self._unanswered_entry(i, code) for i, code in self.unanswered.items()}
        for g in self.gpus:
            def job(w: _Worker, g=g) -> dict:
                values: dict[str, Any] = {}
                for group, fields in GROUPS.items():
                    try:
                        values.update(w.call(b.read, g.ident.index, group))
                    except NvmlError as exc:
                        values.update({f: f"error:{exc.code}" for f in fields})
                try:  # who may use it (a PodGPUBusy Event says it: agent/app.py), as the stand-in serves it back
                    values["compute_mode"] = w.call(b.compute_mode, g.ident.index)
                except NvmlError as exc:
                    if exc.code not in UNSUPPORTED:
                        values["compute_mode"] = f"error:{exc.code}"
                absent = [f for fields in (*GROUPS.values(), ("compute_mode",)) for f in fields if f not in values]
                read, failed = read_nvlinks(w, b, g.ident.index, range(MAX_NVLINKS))
                links = [read.get(link) or {"state": f"error:{failed[link]}"} for link in sorted({*read, *failed})]
                return {"values": values, "links": links, "absent": absent}

            outcome, result = self._run(str(g.ident.index), job)
            i = g.ident
            entry: dict[str, Any] = {"uuid": i.uuid, "pci_bus_id": i.pci_bus_id, "model": i.model}
            if i.vbios:
                entry["vbios"] = i.vbios
            if outcome == "ok":
                entry["values"], entry["nvlinks"] = result["values"], result["links"]
                if result["absent"]:  # NOT_SUPPORTED on this GPU: the replay must not invent them
                    entry["absent"] = result["absent"]
            else:
                entry["lost"] = True
            entries[i.index] = entry
        out["gpus"] = [entries[i] for i in sorted(entries)]  # by NVML index: the replay's GPU i is GPU i
        return out

    def _unanswered_entry(self, index: int, code: str) -> dict[str, Any]:
        """A GPU whose identity failed at the init, in the snapshot: its index and error (the operator's "which
        GPU?"), its address where the poll names it, and what makes the replay fail it the same way."""
        entry: dict[str, Any] = {"index": index, "error": code}
        bus = next((g.ident.pci_bus_id for g in self.lost if g.ident.index == index and g.ident.pci_bus_id), "")
        if bus:
            entry["pci_bus_id"] = bus
        if code == "GPU_IS_LOST":
            entry["lost"] = True
        else:
            entry["values"] = {"handle": "hang" if code == "timeout" else f"error:{code}"}
        return entry

    # ---- Xid events --------------------------------------------------------------------------------

    def xid_events(self, on_xid: Callable[[str, int], None], stop: threading.Event) -> None:
        """Blocking loop: NVML's Xid event stream -> on_xid(pci, xid).  Runs in its own thread."""
        backoff = 1.0
        while not stop.is_set():
            if self.status != "ok" or self.backend is None:
                stop.wait(1.0)
                continue
            try:
                # the GPUs read: one read again after a reset is registered at the next wait
                event = self.backend.wait_xid(1000, [g.ident.index for g in self.gpus])
                backoff = 1.0
            except NvmlError as exc:
                if exc.code not in GONE:  # NVML gone (or released): the poll says so, once
                    self._say_once(f"events-{exc.code}", logging.WARNING, "NVML Xid events unavailable: %s",
                                   exc.code)
                stop.wait(backoff)
                backoff = min(backoff * 2, 60.0)
                continue
            if event is None:
                continue
            index, xid = event
            pci = next((g.labels["pci_bus_id"] for g in self.gpus if g.ident.index == index), None)
            if pci is not None:
                on_xid(pci, xid)
