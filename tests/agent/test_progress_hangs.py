"""Hang suspicion on REAL hangs: training logs whose progress lines stop, then PyTorch's NCCL watchdog fires or the
user reports the job hung (tests/fixtures/progress/hang_*.log, sources.md).  Each is replayed at the times its own
lines give through the real tracker with the shipped settings (tests/progress_replay.py): its progress lines are
recognised with the right steps, nothing is raised while it progresses, and the hang is suspected minutes before
the watchdog fires.  docs/hangs.md's table of these figures is bench/hangs.py's output, checked here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent.hangsettings import HangSettings
from parsers.progress import recognise
from progress_replay import WATCHDOG, lines, replay_hang, when

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
try:
    import hangs  # noqa: E402  (bench/hangs.py: the table)
finally:
    sys.path.remove(str(ROOT / "bench"))  # bench/agent.py would shadow the agent package for later imports


@pytest.mark.parametrize("name, trainer, steps, seconds", [
    ("hang_llamafactory_2902.log", "tqdm", [10, 11, 12, 13], 4.95),  # (its first line, a loss dict: no step)
    ("hang_basicsr_582.log", "basicsr", [3200, 3300, 3400, 3500, 3600, 3700], 0.617),  # `iter:   3,200`
    ("hang_f5tts_346.log", "tqdm", [6], 1.73),  # a bar counting `s/step`
])
def test_the_real_hung_logs_progress_lines_are_recognised(name, trainer, steps, seconds):
    found = [p for p in map(recognise, lines(name)) if p is not None and p.step is not None]
    assert [p.step for p in found] == steps and {p.trainer for p in found} == {trainer}
    assert found[0].seconds == pytest.approx(seconds)


def test_the_last_progress_line_and_the_watchdog_line_can_share_a_line():
    """tqdm writes its bar without a newline: the watchdog's error, 10 minutes later, lands on the bar's line (LLaMA-
    Factory #2902, F5-TTS #346).  The bar's state is still read, at the bar's own elapsed time."""
    line = next(x for x in lines("hang_llamafactory_2902.log") if WATCHDOG.search(x))
    assert recognise(line).step == 13 and when(line, None) == 67
    assert WATCHDOG.search(line).groups() == ("600000", "600017")


@pytest.mark.parametrize("name", [h[0] for h in hangs.HANGS])
def test_a_real_hang_is_suspected_and_nothing_is_raised_while_it_progressed(name):
    hang = replay_hang(name)
    assert hang.marks >= HangSettings().min_steps and hang.healthy_events == []
    assert hang.suspected_after is not None
    if hang.ran_for is not None:  # minutes before the watchdog, not level with it
        assert hang.ahead >= 240
    strict = replay_hang(name, HangSettings(floor_seconds=1))  # no floor to hide healthy jitter behind
    assert strict.healthy_events == [] and strict.suspected_after < hang.suspected_after + 1


def test_the_previous_floor_came_level_with_a_ten_minute_watchdog():
    """Why the floor is 300 s: LLaMA-Factory #2902 steps every 5 s and its ALLREDUCE hung; with a floor of 600 s the
    suspicion (600 s of silence) came with the watchdog (600.017 s), so it told nothing the watchdog did not."""
    before = replay_hang("hang_llamafactory_2902.log", HangSettings(floor_seconds=600))
    assert before.suspected_after == 600 and before.ahead < 1
    now = replay_hang("hang_llamafactory_2902.log")
    assert now.suspected_after == 300 and now.ahead == pytest.approx(300.017)


def test_a_hang_within_the_first_steps_seen_is_not_suspected():
    """F5-TTS #346's excerpt holds one progress line before its watchdog: a pod seen advancing fewer than
    `min_steps` times is not yet 'making progress', so nothing is raised (a known limit: a pod the agent started
    following just before the hang)."""
    hang = replay_hang("hang_f5tts_346.log")
    assert hang.marks == 1 and hang.suspected_after is None and hang.ran_for == pytest.approx(600.08)


def test_docs_hangs_table_is_the_benchs_output():
    doc = (ROOT / "docs" / "hangs.md").read_text(encoding="utf-8")
    assert hangs.table() in doc
