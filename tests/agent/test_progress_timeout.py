"""A hang inside an announced pause is suspected before PyTorch's NCCL watchdog ends the job: the collective timeout
the pod's own log says (parsers/progress.py TIMEOUTS) caps a pause's allowance (`timeout_fraction` x it) below
`pause_seconds`; without one said, a pod keeps `pause_seconds`, ranks or no ranks (docs/hangs.md, "Announced pauses
stretch the allowance")."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.hangsettings import HangSettings
from agent.metrics import Metrics
from agent.progress import HANG_REASON, Mark, ProgressTracker
from parsers.model import PodRef
from parsers.progress import PREFILTER, Progress, recognise
from progress_replay import Clock, lines

INCIDENTS = Path(__file__).parents[1] / "fixtures" / "incidents"
REF = PodRef("train", "lane-worker-0", "uid-0", "main")


def first_line(incident: str, log: str) -> str:
    return INCIDENTS.joinpath(incident, "logs", log).read_text(encoding="utf-8").splitlines()[0]


# ---- the lines that say it ------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, seconds", [
    # ProcessGroupNCCL's options, PyTorch <= 2.0: one a line (https://github.com/pytorch/pytorch/issues/88000, verbatim)
    ("TIMEOUT(ms): 5000", 5.0),
    # from 2.1 on one line: CONSTRUCTED from the format in ProcessGroupNCCL.cpp (https://github.com/pytorch/pytorch/pull/105695),
    # no real line found
    ("[Rank 0] ProcessGroupNCCL initialization options:NCCL_ASYNC_ERROR_HANDLING: 1, NCCL_DESYNC_DEBUG: 0, "
     "NCCL_BLOCKING_WAIT: 0, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0", 600.0),
    # the watchdog's line (real: tests/fixtures/incidents/*/source.md names each thread)
    (first_line("deepdewedge-22-timeout-other-card", "train.log"), 1800.0),
    (first_line("ms-swift-10183-deadlock", "train.log"), 3000.0),  # on a tqdm bar's line
    (first_line("pytorch-150916-killed-peer", "train.log"), 600.0),  # an async error's line
])
def test_the_collective_timeout_a_log_says_is_read(line, seconds):
    assert PREFILTER.search(line.encode()) is not None  # the pod-log source hands the line on
    p = recognise(line)
    assert p is not None and p.timeout == pytest.approx(seconds)


def test_a_bar_with_the_watchdogs_line_on_it_is_both():
    """F5-TTS #346: the bar, then the watchdog's line written on it (tqdm leaves no newline)."""
    p = recognise(lines("hang_f5tts_346.log")[0])
    assert (p.step, p.trainer, p.timeout) == (6, "tqdm", 600.0)


@pytest.mark.parametrize("line", [
    " iteration      201/  250000 | consumed samples:          201 | elapsed time per iteration (ms): 139113.4 |",
    "NCCL_ASYNC_ERROR_HANDLING: 1",
    "TIMEOUT(ms): 0",
    # a launcher's setting, not certain to be the watchdog's (docs/hangs.md): the Trainer's dump, CONSTRUCTED from
    # TrainingArguments.__str__ (one field a line); a Megatron fork's arguments dump (real:
    # https://github.com/NVIDIA/Megatron-LM/issues/1880)
    "ddp_timeout=1800,",
    "  ddp_timeout ..................................... 18000000",
])
def test_other_lines_say_no_timeout(line):
    p = recognise(line)
    assert p is None or p.timeout is None


# ---- the tracker ------------------------------------------------------------------------------------------------

def stepping(clock: Clock, t: ProgressTracker, steps: int = 20, every: float = 3.0) -> None:
    for step in range(1, steps + 1):
        clock.t += every
        t.observe(REF, [Mark(clock.t, Progress(step, trainer="tqdm"))])


def silent_until_suspected(clock: Clock, t: ProgressTracker, limit: float = 4 * 3600) -> tuple[float, str]:
    start = clock.t
    while clock.t - start < limit:
        clock.t += 1
        raised = [e for e in t.tick() if e.reason == HANG_REASON]
        if raised:
            return clock.t - start, raised[0].message
    return limit, ""


def test_a_hang_in_an_evaluation_is_suspected_before_the_watchdog():
    """UFLD-v2 #119 (github.com/cfzd/Ultra-Fast-Lane-Detection-v2/issues/119): a DDP job hung in `Evaluating the
    results...`; the watchdog (Timeout(ms)=1800000) fired 1,803 s into it.  The timeline here is constructed (that
    issue's log is not kept); the pod's log said its 1800 s timeout.  With the shipped settings the evaluation's
    allowance was pause_seconds, 3600 s, an hour after the job was dead; capped at 0.5 x 1800 s it is suspected at
    900 s, and the Event says the cap and why."""
    clock = Clock(1000.0)
    t = ProgressTracker(Metrics(), HangSettings(), clock=clock)
    t.observe(REF, [Mark(clock.t, Progress(None, moved=False, timeout=1800.0))])  # at the process group's creation
    stepping(clock, t)
    t.observe(REF, [Mark(clock.t, Progress(None, pause="evaluation", moved=False))])
    after, message = silent_until_suspected(clock, t)
    assert after == 900 < 1803
    assert "900 s after the announced evaluation" in message
    assert "capped at 0.5 x the 1800 s collective timeout the pod's log said" in message


def test_a_long_save_of_a_multi_rank_pod_whose_timeout_is_unknown_keeps_pause_seconds():
    """Ranks in the log but no timeout said: nothing is assumed (launchers set their own: the Hugging Face Trainer's
    ddp_timeout 1800 s; PyTorch's own NCCL default 10 minutes, 30 in its earlier releases), so a 50-minute save raises nothing
    and the allowance stays pause_seconds."""
    clock = Clock(1000.0)
    t = ProgressTracker(Metrics(), HangSettings(), clock=clock)
    for step in range(1, 21):
        clock.t += 3.0
        t.observe(REF, [Mark(clock.t, Progress(step, trainer="xtuner")) for _rank in range(8)])  # every rank's line
    t.observe(REF, [Mark(clock.t, Progress(None, pause="checkpoint", moved=False))])
    after, _ = silent_until_suspected(clock, t)
    assert after == 3600


def test_the_cap_never_shortens_the_pods_own_pace():
    """A pod stepping every 100 s (k x the median 1000 s) with a 600 s timeout: the pause allows 300 s, its pace
    1000 s; the later of the two holds."""
    clock = Clock(1000.0)
    t = ProgressTracker(Metrics(), HangSettings(), clock=clock)
    t.observe(REF, [Mark(clock.t, Progress(None, moved=False, timeout=600.0))])
    stepping(clock, t, steps=5, every=100.0)
    t.observe(REF, [Mark(clock.t, Progress(None, pause="checkpoint", moved=False))])
    assert silent_until_suspected(clock, t)[0] == 1000


def test_the_normal_allowance_is_not_capped_by_the_timeout():
    """The timeout bounds one collective's wait, not the silence between two progress lines (docs/hangs.md): a pod
    logging every 500 s under a 600 s timeout is suspected at k x its median (5000 s), not at 0.5 x 600 s, which would
    raise at every line.  (A guard of the decision: it passes before and after.)"""
    clock = Clock(1000.0)
    t = ProgressTracker(Metrics(), HangSettings(), clock=clock)
    t.observe(REF, [Mark(clock.t, Progress(None, moved=False, timeout=600.0))])
    stepping(clock, t, steps=5, every=500.0)
    assert silent_until_suspected(clock, t, limit=6000)[0] == 5000


def test_the_timeout_outlives_a_restart_and_the_agents():
    """A container run killed by the watchdog said its timeout; the next run (the same job, the same launch) is judged
    under it, and an agent started again keeps it (to_state / restore)."""
    clock = Clock(1000.0)
    t = ProgressTracker(Metrics(), HangSettings(), clock=clock)
    stepping(clock, t)
    t.observe(REF, [Mark(clock.t, recognise(first_line("deepdewedge-22-timeout-other-card", "train.log")))])
    t.restarted(REF)
    again = ProgressTracker(Metrics(), HangSettings(), clock=clock)
    assert again.restore(t.to_state()) == []
    stepping(clock, again)
    again.observe(REF, [Mark(clock.t, Progress(None, pause="evaluation", moved=False))])
    assert silent_until_suspected(clock, again)[0] == 900


def test_the_longest_timeout_said_caps_a_pause_whatever_order_the_groups_were_made_in():
    """PyTorch prints one options line per process group (pytorch/pytorch#135352: "Each PG would log its various
    configuration options including timeout"; there FSDP's HYBRID_SHARD made groups of its own at the default
    after `init_process_group(timeout=2 h)`).  Which group a pause's waiting ranks wait on is not known, and the order
    groups are made in is the program's: the longest timeout said caps the pause, so a subgroup's shorter one made
    last does not shorten the world group's healthy save (was: the last one said, 0.5 x 600 s).  The timeline is
    constructed."""
    for order in ((7200.0, 600.0), (600.0, 7200.0)):
        clock = Clock(1000.0)
        t = ProgressTracker(Metrics(), HangSettings(), clock=clock)
        t.observe(REF, [Mark(clock.t, Progress(None, moved=False, timeout=s)) for s in order])
        stepping(clock, t)
        t.observe(REF, [Mark(clock.t, Progress(None, pause="checkpoint", moved=False))])
        assert silent_until_suspected(clock, t)[0] == 3600, order  # min(pause_seconds, 0.5 x 7200 s)
