"""Replaying real training logs through the real hang tracker, at the times their own lines give (shared by
tests/agent/test_progress.py, tests/agent/test_progress_hangs.py and bench/hangs.py).

`when(line, previous)` is when a real line was written: its timestamp, a time of day, fairseq's `wall=`, a tqdm
bar's elapsed time, else the time it says it took after the line before.  `replay_hang(name)` replays a real log
that ends in a hang (the progress lines stop; then PyTorch's NCCL watchdog fires, or the user reports it hung) and
says when the tracker suspected it, against when the watchdog fired.  `replay_log(name)` replays any real log (a log
without a clock of its own at its trainer's printed step times: `timeline`) and says how near a page it came.
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

# `2024-04-06 02:59:36,338`, ISO 8601's `2021-04-12T20:44:18` (MMF)
_STAMP = re.compile(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:,(\d{3}))?")
_CLOCK = re.compile(r"^\[(\d\d):(\d\d):(\d\d)\.(\d+)\]|\bwall=(\d+)")  # `[07:15:39.400163]`, fairseq's `wall=882`
# a tqdm bar's elapsed time, `| 10/620 [00:52<50:17, ` or `[6:28:43<94:39:17, `: a clock from the bar's start (its
# total, the bar's: `times`)
_TQDM = re.compile(r"\b\d+/(\d+) \[(?:(\d+):)?(\d+):(\d\d)<")
# a date and time in another order: MMEngine's `2024/01/24 02:50:32 - mmengine`, nanotron's `01/17/2024 13:47:27 [INFO|`
_DATED = re.compile(r"(\d{4})/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)|(\d\d)/(\d\d)/(\d{4}) (\d\d):(\d\d):(\d\d)")
# a two-digit year before the time and its microseconds: Meta Lingua's `1: INFO    24-10-19 18:47:38.013589 - 0:00:49 -`
_SHORT_DATED = re.compile(r"(?<!\d)(\d\d)-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d+)")
# a line's own time without a year: detectron2 / LiBai `[04/05 01:30:24 d2.utils.events]:`, `[04/14 09:05:02]
# d2.utils.events INFO:`, MMEngine's first era `04/21 21:03:52 - mmengine`, absl's `I0912 11:41:51.976096
# 139735407601536 model_lib_v2.py:652]`, prime-rl's `02:40:52 SUCCESS`
_UNDATED = re.compile(r"^\[?(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)[ \]]|^[IWE](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d+) |"
                      r"^(\d\d):(\d\d):(\d\d) [A-Z\[]")
# a run's own running clock: modded-nanogpt's `train_time:621841ms` (training time, evaluation left out), Composer's
# `wall_clock/train: 17.1607`, ms-swift's `'elapsed_time': '2m 15s'`
_RUNNING = re.compile(r"\btrain_time:(\d+)ms|\bwall_clock/train: ([0-9.]+)|"
                      r"""['"]elapsed_time['"]: ['"](?:(\d+)d )?(?:(\d+)h )?(?:(\d+)m )?(\d+)s['"]""")
# the time a line says passed since the line before: MaxText's seconds, a Keras epoch's seconds, PaddleNLP's
# `interval_runtime: 26.3106` (since its last log), DeepSpeed-Chat's `|E2E latency=2.12s` (the step it then prints).
# Not Megatron's `elapsed time per iteration`: the mean over its `--log-interval` iterations, a line every 10 or 100 of
# them (read as the time since the line before, a log of a line every 10 iterations ran ten times too fast), its
# printed step time (`timeline`'s clock, x the iterations advanced) instead
_SPENT = re.compile(r"\bseconds: ([0-9.]+)|\] - (\d+)s |\binterval_runtime: ([0-9.]+)|\|E2E latency=([0-9.]+)s")
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


def stamp_seconds(m: re.Match[str]) -> float:
    """The seconds a _STAMP match names (UTC)."""
    stamp = datetime.strptime(m.group(1) + " " + m.group(2), "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
    return stamp.timestamp() + int(m.group(3) or 0) / 1000


def when(line: str, previous: float | None) -> float | None:
    """When a real line was written: its own timestamp (date and time in any of the trainers' orders, a two-digit year
    (Meta Lingua), a time of day,
    fairseq's seconds since the start, a tqdm bar's elapsed time, a run's running clock), else the time it says it took
    after the line before (MaxText's seconds, a Keras epoch's seconds, PaddleNLP's
    interval, DeepSpeed-Chat's step latency); None where neither is known (then it counts as written with the line
    before)."""
    m = _STAMP.search(line)
    if m:
        return stamp_seconds(m)
    m = _DATED.search(line)
    if m:
        y, mo, d, h, mi, sec = (m.group(i) for i in (1, 2, 3, 4, 5, 6)) if m.group(1) else \
            (m.group(i) for i in (9, 7, 8, 10, 11, 12))
        return datetime(*map(int, (y, mo, d, h, mi, sec)), tzinfo=timezone.utc).timestamp()
    m = _SHORT_DATED.search(line)
    if m:
        return datetime(2000 + int(m.group(1)), *map(int, m.groups()[1:6]), tzinfo=timezone.utc).timestamp() + \
            float("0." + m.group(7))
    m = _UNDATED.match(line)
    if m:
        g = m.groups()
        if g[0]:
            return datetime(2000, int(g[0]), int(g[1]), *map(int, g[2:5]), tzinfo=timezone.utc).timestamp()
        if g[5]:
            return datetime(2000, int(g[5]), int(g[6]), *map(int, g[7:10]), tzinfo=timezone.utc).timestamp() + \
                float("0." + g[10])
        return int(g[11]) * 3600 + int(g[12]) * 60 + int(g[13])
    m = _RUNNING.search(line)
    if m:
        ms, wall, days, hours, minutes, seconds = m.groups()
        if ms or wall:
            return int(ms) / 1000 if ms else float(wall)
        return ((int(days or 0) * 24 + int(hours or 0)) * 60 + int(minutes or 0)) * 60 + int(seconds)
    m = _CLOCK.search(line)
    if m and m.group(5):
        return float(m.group(5))
    if m:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) + float("0." + m.group(4))
    m = _TQDM.search(line)
    if m:
        return _elapsed(m)
    m = _SPENT.search(line)
    if m:
        spent = float(next(g for g in m.groups() if g))
        return (previous or 1e6) + spent
    return previous


def _elapsed(m: re.Match[str]) -> int:
    """The seconds a _TQDM match's elapsed time says."""
    return int(m.group(2) or 0) * 3600 + int(m.group(3)) * 60 + int(m.group(4))


# logs whose lines without a clock of their own are not replayed (None), rather than at the time of the line before: a
# notebook's output (Colab) shows a bar's state only when another line follows it, so its bar lines come at each
# evaluation alone, and the Trainer's dicts between, which carry no time, would all stand at the evaluation's end
# (mdrnid/AQG: three dicts 20 s apart read as one instant, the pace read from the evaluation's 4 s)
UNTIMED = {"hf_trainer_eval_bar_aqg.log"}


def times(text: list[str], untimed: bool = False) -> list[float | None]:
    """When each line of a real log was written (`when`), a tqdm bar's elapsed time read as a clock from that bar's
    start: a bar of another total than the bar line's before, its elapsed behind the time so far (the Hugging Face
    Trainer's evaluation bar, `22% 2/9 [00:00<00:01, ...]` after `17% 34/204 [01:03<05:30, ...]`), started at the line
    before's time (read as the log's clock, the clock went back 63 s at each evaluation, and the lines after it were
    spaced from there).  A bar of the same total starting again (the next epoch's) is read as before.  `untimed`: a line
    without a clock of its own is None (UNTIMED)."""
    at, bar, offset, out = None, None, 0.0, []
    for line in text:
        t = when(line, at)
        if untimed and when(line, None) is None:
            out.append(None)
            continue
        m = _TQDM.search(line)
        if m is not None and t is not None and t == _elapsed(m):  # (its time is its bar's elapsed)
            if m.group(1) != bar:
                bar, offset = m.group(1), (at - t if at is not None and t < at else 0.0)
            t += offset
        at = t
        out.append(t)
    return out


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
    trainers, steps, watchdog = set(), [], None
    text = lines(name)
    for line, at in zip(text, times(text, name in UNTIMED)):
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


def timeline(name: str) -> tuple[list[tuple[float | None, Progress | None]], str]:
    """Each line of a real log: when it was written and what it reports (`recognise`), and the clock that says so:
    "own" (its timestamps, its running clock or the time it says passed: `when`), "printed" (none of these in the
    whole log: its trainer's printed step time x the steps it advanced since its progress line before, from 0), or
    "" (neither: the log cannot be replayed).  A count going back (a new epoch) or a line without a printed time moves
    the printed clock by nothing known, so it stays (such a log shows no evaluation's or epoch end's length)."""
    text = lines(name)
    said = [recognise(x) for x in text]
    own = times(text, name in UNTIMED)
    if any(t is not None for t in own):
        return list(zip(own, said)), "own"
    at, step, out = None, None, []
    for p in said:
        if p is not None and p.moved and p.step is not None:
            if step is None and p.seconds is not None:
                at = 0.0
            elif at is not None and p.seconds is not None and p.step > step:
                at += p.seconds * (p.step - step)
            step = p.step
        out.append((at, p))
    return out, "printed" if sum(1 for t, _ in {(t, 0) for t, _ in out if t is not None}) >= 2 else ""


@dataclass
class Replayed:
    """A real log replayed through the tracker at its own times (seconds), ticking every second."""
    name: str
    trainer: str
    clock: str  # "own", "printed" (timeline), or "" where the log was not judged (no clock, too few advances)
    advances: int
    events: list  # Events raised while the log ran (none wanted)
    worst: float  # the longest silence before a line, over what the tracker allowed then (0: none judged)
    worst_at: str  # where: "line N: 45 s of 110 s"
    median: float
    step_seconds: float | None
    hung_after: float | None = None  # replay_log's `until`: the silence after that line until the suspicion (None: none)

    @property
    def replayed(self) -> bool:
        """Judged at all: a clock, and `min_steps` advances seen in one excerpt."""
        return bool(self.clock)


# logs kept as several excerpts of one thread (sources.md says which): the line (1-based) where each later excerpt
# begins.  The run went on between them (the TF2 OD API's steps 900 to 3800, 41 minutes), so each is replayed on its
# own: the silence between two excerpts is lines not quoted, not one the pod had
EXCERPTS: dict[str, tuple[int, ...]] = {
    "tfod_armaan_6.log": (17,),  # steps 100-900, then 3800-4600
    "megatron_llm_11.log": (5,),  # iterations 201-204, then 182-185
    "trl_ppo_hongbomiao_37684.log": (3,),  # episodes 240-256, then 672-688
    "verl_rldecision_sft.log": (2,),  # line 313 of the README, then 316-323
}


def replay_log(name: str, settings: HangSettings = HangSettings(), until: int | None = None,
               limit: float = 4 * 3600) -> Replayed:
    """A real log's recognised lines at the times `timeline` gives them, through the real tracker (each excerpt
    through a tracker of its own); before each line, the silence since the last advance over the allowance then (k x
    the median or the floor, stretched by an announced pause): how close the healthy log came to being suspected.
    `until`: a hang injected right after that line (1-based): the log cut there, then silence, ticking until the
    tracker suspects it (`hung_after`, measured from that line's time) or `limit` seconds pass."""
    said, kind = timeline(name)
    if until is not None:
        said = said[:until]
    breaks = set(EXCERPTS.get(name, ()))
    worst, worst_at, trainers, events, advances, ready = 0.0, "", set(), [], 0, False
    intervals, step_seconds = [], None
    for number, (at, p) in enumerate(said, 1):
        if number == 1 or number in breaks:
            if number > 1:
                ready = ready or t.pods.get(REF.uid, None) is not None and t.pods[REF.uid].advances >= settings.min_steps
                pod = t.pods.get(REF.uid)
                advances += pod.advances if pod else 0
                intervals += list(pod.intervals) if pod else []
                step_seconds = pod.step_seconds if pod and pod.step_seconds is not None else step_seconds
            clock = Clock()
            t = ProgressTracker(Metrics(), settings, clock=clock, alive=lambda: None)
        if p is not None and p.moved:
            trainers.add(p.trainer)
        if p is None or at is None:
            continue
        clock.t = clock.t or at
        while clock.t + 1 <= at:
            clock.t += 1
            events += t.tick()
        clock.t = max(clock.t, at)
        pod = t.pods.get(REF.uid)
        if pod is not None and pod.advances >= settings.min_steps and pod.suspected is None:
            deadline = t.deadline(pod)
            ratio = (at - pod.last) / (deadline - pod.last)
            if ratio > worst:
                worst, worst_at = ratio, f"line {number}: {at - pod.last:.0f} s of {deadline - pod.last:.0f} s"
        events += t.observe(REF, [Mark(at, p)])
    hung_after = None
    if until is not None:
        cut = next(at for at, _ in reversed(said) if at is not None)
        while clock.t - cut < limit and hung_after is None:
            clock.t += 1
            if any(e.reason == HANG_REASON for e in t.tick()):
                hung_after = clock.t - cut
    pod = t.pods.get(REF.uid)
    if pod is not None:
        ready = ready or pod.advances >= settings.min_steps
        advances += pod.advances
        intervals += list(pod.intervals)
        step_seconds = pod.step_seconds if pod.step_seconds is not None else step_seconds
    return Replayed(name, "/".join(sorted(trainers)), kind if ready else "", advances, events, worst, worst_at,
                    statistics.median(intervals) if intervals else 0.0, step_seconds, hung_after)
