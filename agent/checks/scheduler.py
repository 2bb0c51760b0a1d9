"""Runs each plugin config every `invoke_interval` (first at start) on one thread and hands the results on.

A config that loads GPUs runs only while no compute process is on any GPU (NVML); otherwise each of its
rules is `Skipped(busy)` (or `Skipped(nvml: ...)` when NVML cannot say: a GPU that does not answer is named,
`nvml: GPU 2: GPU_IS_LOST`, and is reason enough; one that hangs, `nvml: GPU 3: no answer`, and nothing more is
asked of NVML until that call returns), and what stood stands.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from parsers.model import CheckBatch

from ..gpu.interface import GONE
from ..gpu.nvml import Asking, Nvml, NvmlError, ask_in_session
from .npd import PluginConfig, run_rules

log = logging.getLogger(__name__)



def gpu_busy(nvml: Nvml | None, deadline: float = 5.0) -> str | None:
    """Why GPU-loading checks must not run now, or None when every GPU is free of compute processes.
    NVML is asked in a session of its own on a helper thread (`ask_in_session`): a hung NVML never blocks the
    checks and says `nvml: GPU 3: no answer` (the GPU it was asking), then again at once, nothing asked, while that
    call has not returned."""
    if nvml is None:
        return None

    def read(call: Asking) -> str | None:
        failed = []  # a GPU that does not answer (lost after an Xid 79): its processes NVML cannot say
        for i in range(nvml.count()):
            call.at = f"GPU {i}"
            try:
                processes = nvml.read(i, "processes").get("compute_processes", 0)
            except NvmlError as e:
                if e.code in GONE:
                    raise
                failed.append(f"GPU {i}: {e.code}")
                continue
            if processes > 0:
                return "busy"  # the protocol word: Skipped(busy)
        # the other GPUs idle: still no GPU-loading check, which would load the failed GPU too and fail on it
        # (the node is drained for the lost GPU's own problem), and the reason names the GPU
        return f"nvml: {'; '.join(failed)}" if failed else None

    answer, hung = ask_in_session(nvml, "busy gate of the checks", "check-gpu-busy", read,
                                  lambda e: f"nvml: {e.code}", deadline)
    if answer:
        return answer[0]
    return f"nvml: {hung.at}: no answer" if hung.at else "nvml: no answer"


class CheckScheduler:
    def __init__(self, configs: list[PluginConfig], emit: Callable[[CheckBatch], None],
                 busy: Callable[[], str | None] = lambda: None, clock: Callable[[], float] = time.monotonic):
        self.configs = configs
        self.emit = emit
        self.busy = busy
        self.clock = clock
        self.due = [0.0 for _ in configs]

    def run_due(self) -> float:
        """Run every config that is due; returns seconds until the next is."""
        now = self.clock()
        for i, cfg in enumerate(self.configs):
            if self.due[i] > now:
                continue
            why = self.busy() if cfg.gpu_load else None
            results = run_rules(cfg, skip=lambda rule, why=why: why)
            self.due[i] = self.clock() + cfg.invoke_interval
            self.emit(CheckBatch(cfg, results))
        return max(0.0, min(self.due, default=3600.0) - self.clock())

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                wait = self.run_due()
            except Exception:  # noqa: BLE001 - a check never takes the agent down
                log.exception("check scheduler")
                wait = 60.0
            stop.wait(min(wait, 60.0))
