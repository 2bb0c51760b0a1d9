"""The telemetry loop: every `poll_seconds` (or at once when udev reports a device change) read
NVML, GPU presence, PCIe AER, the RDMA NICs' PCIe links and InfiniBand ports, and hand the readings on as one batch."""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from parsers.model import SampleBatch

from .gpu.collector import GpuCollector
from .selfcaused import CounterGuard
from .sysfs import infiniband, pci

log = logging.getLogger("gpu_npd.poller")
RESCAN_SECONDS = 60.0  # device lists are re-read this often even without udev


class Poller:
    def __init__(self, gpu: GpuCollector, root: str = "/", clock: Callable[[], float] = time.monotonic,
                 guard: CounterGuard | None = None, expected_nics: int = 0):
        self.gpu = gpu
        self.expected_nics = expected_nics  # RDMA devices (0: as many as seen since start)
        self.known_nics: set[str] = set()
        self.guard = guard or CounterGuard(window_seconds=0)  # which devices' IB counters we may read
        self.pci = pci.PciInventory(root)
        self.root = root
        self.clock = clock
        self.devices: list[pci.PciDevice] = []
        self.ports: list[infiniband.Port] = []
        self._scanned = -1e18
        self._wake = threading.Event()
        self._rescan = True
        self._lock = threading.Lock()  # one poll at a time, whoever asks (the loop, a test, a command)

    def wake(self) -> None:
        """Hardware changed (udev): rescan devices and poll now."""
        self._rescan = True
        self._wake.set()

    def poll_once(self) -> SampleBatch:
        with self._lock:
            return self._poll()

    def _poll(self) -> SampleBatch:
        started = time.perf_counter()
        now = self.clock()
        if self._rescan or now - self._scanned >= RESCAN_SECONDS:
            self._rescan = False
            self._scanned = now
            self.ports = infiniband.discover(self.root)
            self.devices = self.pci.scan(nics=[p.pci for p in self.ports])
        readings = self.gpu.poll(pci.gpu_addresses(self.devices))
        self._nic_presence(next(r for r in readings if r.entity == "node"))
        for dev in self.devices:
            r = pci.reading(dev)
            if r is not None:
                readings.append(r)
        guard = self.guard
        for port in self.ports:
            counters = guard.reading(port.pci)
            start = guard.clock()
            r = infiniband.port_reading(port, counters)
            if counters and port.counters:
                guard.note_read(port.pci, port.device, start, guard.clock())
            if r is not None:
                readings.append(r)
        stats = {"nvml_status": self.gpu.status, "nvml_errors": dict(self.gpu.errors),
                 "nvml_timeouts": self.gpu.timeouts, "duration": time.perf_counter() - started}
        return SampleBatch(readings, stats, gpus=frozenset(self.gpu.known_pci))

    def _nic_presence(self, node: Reading) -> None:
        """The node's RDMA NICs (InfiniBand / RoCE devices) against the count expected, on its node reading."""
        seen = {p.device for p in self.ports}
        self.known_nics |= seen
        expected = self.expected_nics or len(self.known_nics)
        missing = sorted(self.known_nics - seen)
        node.values.update({"nics_seen": len(seen), "nics_expected": expected,
                            "nics_missing": max(len(missing), expected - len(seen))})
        node.text["missing_nics"] = ", ".join(missing) or "unknown devices"

    def run(self, emit: Callable[[SampleBatch], None], stop: threading.Event, interval: float) -> None:
        while not stop.is_set():
            try:
                emit(self.poll_once())
            except Exception:  # noqa: BLE001 - one bad cycle must not end polling
                log.exception("telemetry poll failed")
            self._wake.wait(interval)
            self._wake.clear()


def watch_udev(on_change: Callable[[], None]) -> object | None:
    """pyudev monitor for PCI, InfiniBand and network device add/remove; None when unavailable."""
    try:
        import pyudev  # noqa: PLC0415

        context = pyudev.Context()
        monitor = pyudev.Monitor.from_netlink(context)
        for subsystem in ("pci", "infiniband", "net"):
            monitor.filter_by(subsystem)

        def handle(device) -> None:
            if device.action in ("add", "remove", "change", "bind", "unbind"):
                log.info("udev: %s %s %s", device.action, device.subsystem, device.sys_name)
                on_change()

        observer = pyudev.MonitorObserver(monitor, callback=handle, name="udev")
        observer.daemon = True
        observer.start()
        return observer
    except Exception as exc:  # noqa: BLE001 - no udev (container without netlink): poll only
        log.info("udev monitoring unavailable (%s); device changes are seen at the next poll", exc)
        return None
