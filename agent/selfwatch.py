"""The agent watching itself: CPU, RSS, threads and open files exported; pressure decided from them."""

from __future__ import annotations

import logging
from collections import deque

import psutil

from .metrics import Metrics

log = logging.getLogger("gpu_npd")


class SelfWatch:
    def __init__(self, metrics: Metrics, max_rss_mb: float, max_cpu_percent: float):
        self.metrics = metrics
        self.max_rss = max_rss_mb * 2**20
        self.max_cpu = max_cpu_percent
        self.under_pressure = False
        self._proc = psutil.Process()
        self._cpu: deque[float] = deque(maxlen=10)

    def tick(self) -> None:
        try:
            with self._proc.oneshot():
                self._cpu.append(self._proc.cpu_percent())
                rss = self._proc.memory_info().rss
                self.metrics.self_threads.set(self._proc.num_threads())
                self.metrics.self_files.set(len(self._proc.open_files()))
        except psutil.Error:
            return
        cpu = sum(self._cpu) / len(self._cpu)
        self.metrics.self_cpu.set(cpu)
        self.metrics.self_rss.set(rss)
        pressure = rss > self.max_rss or cpu > self.max_cpu
        if pressure != self.under_pressure:
            log.warning("%s shedding duplicate records (cpu %.0f%%, rss %d MiB)",
                        "start" if pressure else "stop", cpu, rss >> 20)
            self.under_pressure = pressure
            self.metrics.shedding.set(1 if pressure else 0)
