"""Replaying real training logs through the real hang tracker, at the times their own lines give (shared by
tests/agent/test_progress.py, tests/agent/test_progress_hangs.py and bench/hangs.py).

`when(line, previous)` is when a real line was written: its timestamp, a time of day, fairseq's `wall=`, a tqdm
bar's elapsed time, else the time it says it took after the line before.  `replay_hang(name)` replays a real log
that ends in a hang (the progress lines stop; then PyTorch's NCCL watchdog fires, or the user reports it hung) and
says when the tracker suspected it, against when the watchdog fired.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from agent.hangsettings import HangSettings
from agent.metrics import Metrics
from agent.progress import HANG_REASON, Mark, ProgressTracker
from parsers.model import PodRef
from parsers.progress import recognise

FIX = Path(__file__).parent / "fixtures" / "progress"
REF = PodRef("train", "gpt-worker-0", "uid-0", "main")

_STAMP = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:,(\d{3}))?")
_CLOCK = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\.(\d+)\]|\bwall=(\d+)")  # `[07:15:39.400163]`, fairseq's `wall=882`
# a tqdm bar's elapsed time, `| 10/620 [00:52<50:17, ` or `[6:28:43<94:39:17, `: a clock from the bar's start
_TQDM = re.compile(r"\b\d+/\d+ \[(?:(\d+):)?(\d+):(\d\d)<")
_SPENT = re.compile(r"elapsed time per iteration \(ms\): ([0-9.]+)|\bseconds: ([0-9.]+)|\] - (\d+)s ")
# PyTorch's NCCL watchdog: `Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1516, OpType=ALLREDUCE, ...,
# Timeout(ms)=600000) ran for 600017 milliseconds before timing out.`
WATCHDOG = re.compile(r"Watchdog caught collective operation timeout: WorkNCCL\(.*?Timeout\(ms\)=(\d+)\) ran for "
                      r"(\d+) milliseconds")


def lines(name: str) -> list[str]:
    return FIX.joinpath(name).read_text(encoding="utf-8").splitlines()


class Clock:
    def __init__(self, t: float = 0.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def when(line: str, previous: float | None) -> float | None:
    """When a real line was written: its own timestamp (date and time, a time of day, fairseq's seconds since the
    start, a tqdm bar's elapsed time), else the time it says it took after the line before (Megatron's ms per
    iteration, MaxText's seconds, a Keras epoch's seconds); None where neither is known (then it counts as written
    with the line before)."""
    m = _STAMP.search(line)
    if m:
        stamp = datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc).timestamp()
        return stamp + int(m.group(2) or 0) / 1000
    m = _CLOCK.search(line)
    if m and m.group(5):
        return float(m.group(5))
    if m:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) + float("0." + m.group(4))
    m = _TQDM.search(line)
    if m:
        return int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    m = _SPENT.search(line)
    if m:
        ms, seconds, epoch = m.groups()
        spent = float(ms) / 1000 if ms else float(seconds or epoch)
        return (previous or 1e6) + spent
    return previous


@dataclass
class Hang:
    """What replaying one real hung log through the tracker showed (times in seconds)."""
    name: str
    trainer: str
    marks: int  # progress lines seen before the hang
    steps: tuple  # the first and last step seen
    median: float  # the median interval between progress lines
    healthy_events: list  # Events raised while the log still progressed (none wanted)
    suspected_after: float | None  # silence (since the last progress line) at which the hang was suspected
    timeout: float | None  # the watchdog's timeout; None where no watchdog fired
    ran_for: float | None  # how long the hung collective ran when the watchdog fired

    @property
    def ahead(self) -> float | None:
        """How long before the watchdog the suspicion came: the hung collective was issued after the last progress
        line, so the watchdog fired at least `ran_for` after it (a lower bound)."""
        if self.ran_for is None or self.suspected_after is None:
            return None
        return self.ran_for - self.suspected_after


def replay_hang(name: str, settings: HangSettings = HangSettings(), limit: float = 4 * 3600) -> Hang:
    """The log's progress lines at their own times, ticking every second, up to the first watchdog line; then
    silence, ticking until the tracker suspects a hang (or `limit` seconds of silence)."""
    clock, events = Clock(), []
    t = ProgressTracker(Metrics(), settings, clock=clock, alive=lambda: None)
    at, trainers, steps, watchdog = None, set(), [], None
    for line in lines(name):
        at = when(line, at)
        p = recognise(line)
        if p is not None and at is not None:
            clock.t = clock.t or at
            while clock.t + 1 <= at:
                clock.t += 1
                events += t.tick()
            clock.t = max(clock.t, at)
            events += t.observe(REF, [Mark(at, p)])
            if p.moved:
                trainers.add(p.trainer)
                steps.append(p.step)
        m = WATCHDOG.search(line)
        if m:
            watchdog = (int(m.group(1)) / 1000, int(m.group(2)) / 1000)
            break
    healthy = [e for e in events]
    pod = t.pods[REF.uid]
    suspected = None
    while clock.t - pod.last < limit:
        clock.t += 1
        if any(e.reason == HANG_REASON for e in t.tick()):
            suspected = clock.t - pod.last
            break
    named = [s for s in steps if s is not None]
    return Hang(name, "/".join(sorted(trainers)), pod.advances, (named[0], named[-1]) if named else (None, None),
                statistics.median(pod.intervals) if pod.intervals else 0.0, healthy, suspected,
                *(watchdog or (None, None)))
