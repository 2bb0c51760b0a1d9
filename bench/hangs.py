"""Real hangs replayed through the hang tracker: when it suspected each, against when the NCCL watchdog fired.

    python bench/hangs.py            # the Markdown table of docs/hangs.md ("Measured on real hangs")
    python bench/hangs.py --healthy  # every other real progress log replayed: how near a false page each came

Each log (tests/fixtures/progress/hang_*.log, sources.md) is a real training log whose progress lines stop: then
PyTorch's NCCL watchdog fires (`Watchdog caught collective operation timeout: ... ran for N milliseconds`) or the user
reports it hung.  Its progress lines are replayed at the times their own lines give (tests/progress_replay.py)
through agent.progress.ProgressTracker with the shipped settings (agent/hangsettings.py), ticking every second,
then the silence.  tests/agent/test_progress_hangs.py checks that docs/hangs.md holds this table as printed here.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))

from agent.hangsettings import HangSettings  # noqa: E402
from progress_replay import FIX, Hang, Replayed, replay_hang, replay_log, timeline  # noqa: E402

# (fixture, its source, what the trainer is, what the log shows after the progress stops)
HANGS: tuple[tuple[str, str, str, str], ...] = (
    ("hang_llamafactory_2902.log", "https://github.com/hiyouga/LlamaFactory/issues/2902",
     "LLaMA-Factory (Hugging Face Trainer, tqdm bar)", "NCCL watchdog, ALLREDUCE"),
    ("hang_basicsr_582.log", "https://github.com/XPixelGroup/BasicSR/issues/582",
     "BasicSR (one GPU)", "none: stuck in the data loader, the user's Ctrl-C"),
    ("hang_llamafactory_8261.log", "https://github.com/hiyouga/LlamaFactory/issues/8261",
     "LLaMA-Factory (Hugging Face Trainer, tqdm bar)", "NCCL watchdog, ALLREDUCE"),
)


def _s(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds:.0f} s"


def row(hang: Hang, source: str, trainer: str, after: str) -> str:
    first, last = hang.steps
    watchdog = f"{hang.ran_for:.0f} s (timeout {hang.timeout:.0f} s)" if hang.ran_for is not None else after
    ahead = _s(hang.ahead) if hang.ahead is not None else "no watchdog"
    healthy = "none" if not hang.healthy_events else str(len(hang.healthy_events))
    return (f"| [{hang.name}]({source}) | {trainer} | {hang.marks} ({first}-{last}) | {hang.median:.1f} s | {healthy} | "
            f"{_s(hang.suspected_after)} | {watchdog} | {ahead} |")


def table(settings: HangSettings = HangSettings()) -> str:
    out = ["| log | trainer | progress lines (steps) | between lines (median) | raised while progressing | "
           "suspected after a silence of | watchdog fired after | suspected ahead by |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    out += [row(replay_hang(name, settings), source, trainer, after) for name, source, trainer, after in HANGS]
    return "\n".join(out)


def _why_not(r: Replayed) -> str:
    """Why a real log was not judged: no training progress in it, too few advances, or no clock."""
    if not r.trainer:
        return "not replayed: no training progress in it (evaluation, setup or summary lines only)"
    if timeline(r.name)[1]:
        return f"not replayed: {r.advances} advance{'s' if r.advances != 1 else ''} (fewer than min_steps)"
    return "not replayed: no clock (no timestamp, running clock or printed step time)"


def healthy_row(name: str) -> str:
    shipped, strict = replay_log(name), replay_log(name, HangSettings(floor_seconds=1))
    if not shipped.replayed:
        return f"| {name} | {shipped.trainer or '-'} | {_why_not(shipped)} | | | |"
    clock = "its own" if shipped.clock == "own" else "printed step times"
    raised = lambda r: "none" if not r.events else ", ".join(e.reason for e in r.events)  # noqa: E731
    return (f"| {name} | {shipped.trainer} | {clock}, {shipped.advances} advances, {shipped.median:.1f} s median | "
            f"{shipped.worst:.2f} ({shipped.worst_at or '-'}) | {strict.worst:.2f} | "
            f"{raised(shipped)} / {raised(strict)} |")


def healthy_table() -> str:
    """Every real progress log but the hung ones, replayed at its own times (tests/progress_replay.py: timeline):
    the longest silence before a line over what the tracker allowed then, with the shipped settings and with no floor
    (1 s: k x the median alone), and what was raised (nothing wanted)."""
    out = ["| log | trainer | clock, advances, between lines (median) | worst silence / allowance (shipped) | "
           "same, no floor | raised (shipped / no floor) |", "| --- | --- | --- | --- | --- | --- |"]
    out += [healthy_row(f.name) for f in sorted(FIX.glob("*.log")) if not f.name.startswith("hang_")]
    return "\n".join(out)


if __name__ == "__main__":
    print(healthy_table() if "--healthy" in sys.argv[1:] else table())
