"""Progress per pod: what tracking costs, per pod (memory) and per line (CPU), at N pods.

    python bench/progress.py [--pods 64,512] [--lines 20000]

Three figures, each measured in this process with tracemalloc / process CPU time:
  * recognise: CPU per line of `parsers.progress.recognise` over a mix of real progress lines
    (tests/fixtures/progress) and non-progress lines (the pod-log fixture's NCCL lines), and per line of the
    source's byte-level prefilter + recognise over a CRI buffer (what the pod-log source does per read);
  * tracker: memory per tracked pod (a pod with its full interval history) and CPU per progress mark
    (ProgressTracker.observe) at N pods;
  * tick: CPU of one judgement over N pods (every tick_seconds).
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent.hangsettings import HangSettings  # noqa: E402
from agent.metrics import Metrics  # noqa: E402
from agent.progress import INTERVALS, Mark, ProgressTracker  # noqa: E402
from agent.sources.podlogs import PodLogSource  # noqa: E402
from parsers.model import PodRef  # noqa: E402
from parsers.progress import Progress, recognise  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "progress"
PODS = ROOT / "tests" / "fixtures" / "pods" / "var" / "log" / "pods"


def sample_lines() -> tuple[list[str], list[str]]:
    progress = [x for f in sorted(FIX.glob("*.log")) for x in f.read_text(encoding="utf-8").splitlines()]
    other = [x.split(" ", 3)[-1] for f in sorted(PODS.glob("*/*/0.log"))
             for x in f.read_text(encoding="utf-8").splitlines()]
    return progress, other


def per_line(lines: list[str], n: int) -> float:
    work = (lines * (n // len(lines) + 1))[:n]
    t0 = time.process_time()
    for line in work:
        recognise(line)
    return (time.process_time() - t0) / n


def per_buffer_line(lines: list[str], n: int) -> float:
    """The source's path: one prefilter search over a CRI buffer, then decode + recognise of keyword lines."""
    work = (lines * (n // len(lines) + 1))[:n]
    buf = "".join(f"2024-07-25T07:00:00.000000000Z stdout F {x}\n" for x in work).encode()
    src = PodLogSource(str(PODS))
    ref = PodRef("ns", "pod", "uid", "c")
    t0 = time.process_time()
    src._progress_lines(ref, buf, len(buf))
    return (time.process_time() - t0) / n


def tracker_costs(pods: int, marks: int) -> dict[str, float]:
    clock = [0.0]
    t = ProgressTracker(Metrics(), HangSettings(max_pods=pods), clock=lambda: clock[0])
    refs = [PodRef("team", f"job{i // 8}-worker-{i % 8}", f"uid-{i}", "main") for i in range(pods)]
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for step in range(INTERVALS + 2):  # every pod with a full interval history and its metric series
        clock[0] = float(step)
        for ref in refs:
            t.observe(ref, [Mark(clock[0], Progress(step, 1.0, "bench"))])
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    size = sum(s.size_diff for s in after.compare_to(before, "filename"))
    step = INTERVALS + 2
    t0 = time.process_time()
    n = 0
    while n < marks:
        step += 1
        clock[0] = float(step)
        for ref in refs:
            t.observe(ref, [Mark(clock[0], Progress(step, 1.0, "bench"))])
            n += 1
    observe = (time.process_time() - t0) / n
    clock[0] += 0.5
    t0 = time.process_time()
    for _ in range(20):
        t.tick()
    tick = (time.process_time() - t0) / 20
    return {"bytes_per_pod": size / pods, "observe_us": observe * 1e6, "tick_ms": tick * 1e3}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pods", default="64,512")
    ap.add_argument("--lines", type=int, default=20000)
    args = ap.parse_args()
    progress, other = sample_lines()
    print(f"recognise, progress line:       {per_line(progress, args.lines) * 1e6:7.2f} us/line")
    print(f"recognise, other line:          {per_line(other, args.lines) * 1e6:7.2f} us/line")
    print(f"source path, progress lines:    {per_buffer_line(progress, args.lines) * 1e6:7.2f} us/line")
    print(f"source path, other lines:       {per_buffer_line(other, args.lines) * 1e6:7.2f} us/line")
    for pods in (int(x) for x in args.pods.split(",")):
        c = tracker_costs(pods, args.lines)
        print(f"tracker at {pods:5d} pods: {c['bytes_per_pod'] / 1024:6.2f} KiB/pod, observe {c['observe_us']:6.2f} "
              f"us/mark, tick {c['tick_ms']:6.3f} ms")


if __name__ == "__main__":
    main()
