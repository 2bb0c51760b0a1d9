"""Real hangs replayed through the hang tracker: when it suspected each, against when the NCCL watchdog fired.

    python bench/hangs.py            # the Markdown table of docs/hangs.md ("Measured on real hangs")

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
from progress_replay import Hang, replay_hang  # noqa: E402

# (fixture, its source, what the trainer is, what the log shows after the progress stops)
HANGS: tuple[tuple[str, str, str, str], ...] = (
    ("hang_llamafactory_2902.log", "https://github.com/hiyouga/LlamaFactory/issues/2902",
     "LLaMA-Factory (Hugging Face Trainer, tqdm bar)", "NCCL watchdog, ALLREDUCE"),
    ("hang_basicsr_582.log", "https://github.com/XPixelGroup/BasicSR/issues/582",
     "BasicSR (one GPU)", "none: stuck in the data loader, the user's Ctrl-C"),
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


if __name__ == "__main__":
    print(table())
