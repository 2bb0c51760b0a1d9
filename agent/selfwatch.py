"""The agent watching itself: CPU, RSS, threads and open files, exported."""

from __future__ import annotations

from collections import deque

import psutil

from .metrics import Metrics


class SelfWatch:
    def __init__(self, metrics: Metrics):
        self.metrics = metrics
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
