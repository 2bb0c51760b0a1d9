"""The hang tracker across agent restarts: what it learnt of each pod is saved with the agent's state and restored by
an agent started again in the same boot (a config rollout restarts every agent of the fleet).  Before, a restart
cleared every standing hang suspicion, and a job already silent was never judged again: its saved pod-log offsets mean
it sends no new line, so the new agent had no mark to measure its silence from.  (Progress lines and times here are
synthetic: the tracker's state is under test, not a trainer's line.)"""

from __future__ import annotations

import io
import json
import logging
from types import SimpleNamespace

from agent.app import build
from agent.config import load
from agent.progress import HANG_REASON, RESUMED_REASON
from agent.sources.podlogs import PodLogSource, PodRef
from parsers.model import Boot, WorkloadFindings
from parsers.progress import Progress
from progress_replay import Clock
from patching import on_instance

REF = PodRef("train", "gpt-worker-0", "uid-0", "main")
GAUGE = {"namespace": "train", "pod": "gpt-worker-0", "job": "gpt"}
BOOT = Boot("this-boot", 1_000_000_000.0)


def agent(tmp_path, clock: Clock, boot: Boot = BOOT, pod_logs: bool = True):
    """An agent on the state directory `tmp_path` (k 5, floor 10 s), the tracker's clock `clock`, pod logs followed
    (an empty tree; `pod_logs` False: none, so no tracker); nothing runs, so the pods' liveness is unknown (a pod is
    judged on its silence alone)."""
    (tmp_path / "pods").mkdir(exist_ok=True)
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path), "fallback_log_files": [],
                              "fabricmanager_log": "", "imex_log": "", "nvml": "off", "mode": "off",
                              "pod_logs_root": str(tmp_path / "pods") if pod_logs else "",
                              "workload_hang": {"k": 5, "floor_seconds": 10}})
    a = build(cfg, clock=clock, out=io.StringIO(), boot=boot)
    if pod_logs:
        a.pipeline.progress.alive = lambda: None
    return a


def step(a, clock: Clock, n: int) -> list[tuple[str, str]]:
    """Step `n` read from the pod's log now; the Pod Events it brought (reason, message)."""
    snap = a.pipeline.process(WorkloadFindings([], progress=[(REF, [(clock.t, Progress(n, 2.0, "nanogpt"))])]))
    return [(e.reason, e.message) for e in snap.pod_events] if snap is not None else []


def stepping(tmp_path, clock: Clock):
    """An agent that saw five steps 2 s apart (allowance max(5 x 2 s, 10 s) = 10 s from the last, at clock 1008)."""
    a = agent(tmp_path, clock)
    for n in range(5):
        clock.t = 1000.0 + 2 * n
        step(a, clock, n)
    return a


def said(a) -> list[tuple[str, str]]:
    """The Pod Events the agent decided since the last call (reason, message)."""
    a.pipeline.judge_progress(None)
    events, a.pipeline._events = a.pipeline._events, []
    return [(e.reason, e.message) for e in events]


def hung(a) -> float | None:
    return a.pipeline.progress.metrics.registry.get_sample_value("gpu_npd_workload_hang_suspected", GAUGE)


def restarted(a, tmp_path, clock: Clock, boot: Boot = BOOT):
    """`a` stops (its state written, as at SIGTERM) and an agent starts again on the same state directory."""
    a.save()
    a.close()
    return agent(tmp_path, clock, boot)


def test_a_hung_pod_stays_suspected_across_a_restart_without_a_second_event(tmp_path):
    clock = Clock()
    a = stepping(tmp_path, clock)
    clock.t = 1018.5
    assert [r for r, _ in said(a)] == [HANG_REASON] and hung(a) == 1
    clock.t = 1030.0
    b = restarted(a, tmp_path, clock)
    assert hung(b) == 1  # the suspicion stands (it was 0 series, the alert resolving, before)
    for clock.t in (1031.0, 1100.0, 1400.0):
        assert said(b) == []  # the Event was said once, before the restart
    clock.t = 1401.5
    (reason, message), = step(b, clock, 5)
    assert reason == RESUMED_REASON and "(383 s after it was raised)" in message and hung(b) == 0


def test_a_pod_silent_since_before_the_restart_is_suspected_when_its_allowance_passes(tmp_path):
    clock = Clock()
    a = stepping(tmp_path, clock)
    clock.t = 1012.0  # 4 s of silence, then the restart
    assert said(a) == []
    b = restarted(a, tmp_path, clock)
    clock.t = 1017.9
    assert said(b) == []  # 9.9 s of the 10 s allowed
    clock.t = 1018.1
    (reason, message), = said(b)  # the pod sends no line after the restart: judged from its last step before it
    assert reason == HANG_REASON and "No training progress for 10 s since step 4" in message and hung(b) == 1
    assert b.pipeline.progress.snapshot()["uid-0"]["advances"] == 5


def test_the_pods_learnt_stay_within_a_boot_only(tmp_path):
    """Another boot: every process is new and the monotonic clock (the saved times') started again: nothing restored."""
    clock = Clock()
    a = stepping(tmp_path, clock)
    b = restarted(a, tmp_path, clock, Boot("next-boot", 1_000_100_000.0))
    assert b.pipeline.progress.pods == {}


def test_a_time_ahead_of_the_clock_is_now(tmp_path):
    """A saved time the clock has not reached (not this clock's) is taken as now: no restored silence is negative,
    none longer than the clock has run."""
    clock = Clock()
    a = stepping(tmp_path, clock)
    clock.t = 500.0
    b = restarted(a, tmp_path, clock)
    assert b.pipeline.progress.pods["uid-0"].last == 500.0
    clock.t = 509.9
    assert said(b) == []
    clock.t = 510.0
    assert [r for r, _ in said(b)] == [HANG_REASON]


def saved_state(tmp_path, clock):
    """An agent's state file after a pod stepped and the agent saved and closed: (its path, its JSON)."""
    a = stepping(tmp_path, clock)
    a.save()
    a.close()
    path = tmp_path / "state.json"
    return path, json.loads(path.read_text())


def test_a_corrupt_saved_pod_is_dropped_alone_with_one_warning(tmp_path, caplog):
    clock = Clock()
    path, state = saved_state(tmp_path, clock)
    good = state["progress"]["uid-0"]
    state["progress"] = {"uid-1": {**good, "last": "soon"}, "uid-0": good,
                         "uid-2": {**good, "ref": {**good["ref"], "uid": "uid-9"}},
                         "uid-3": {**good, "ref": {**good["ref"], "uid": "uid-3"}, "suspected": float("nan")},
                         "uid-4": {"ref": {"namespace": "train"}}}
    path.write_text(json.dumps(state))
    with caplog.at_level(logging.WARNING, logger="gpu_npd"):
        b = agent(tmp_path, clock)
    assert list(b.pipeline.progress.pods) == ["uid-0"]
    (warning,) = [r.getMessage() for r in caplog.records if "cannot be restored" in r.getMessage()]
    assert "4 saved entries cannot be restored" in warning and "progress.uid-1.last: expected a number" in warning
    assert b.pipeline.progress.snapshot()["uid-0"]["advances"] == 5  # the good one, as it stood


def test_the_job_is_derived_from_the_pod_not_saved_and_an_old_file_with_it_loads(tmp_path, caplog):
    """A pod's job is its name without the ordinal: not written to the state file (one fact, the pod's name); a file
    written when it was (`job` beside `ref`) loads as before, its job derived (the gauges' label), no warning."""
    clock = Clock()
    path, state = saved_state(tmp_path, clock)
    assert "job" not in state["progress"]["uid-0"]
    for job in ("gpt", "stale"):  # as an older agent wrote it; a stale one is the name's all the same
        state["progress"]["uid-0"]["job"] = job
        path.write_text(json.dumps(state))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="gpu_npd"):
            b = agent(tmp_path, clock)
        assert b.pipeline.progress.pods["uid-0"].job == "gpt" and [r for r in caplog.records if r.levelno >= 30] == []
        assert b.pipeline.progress.snapshot()["uid-0"]["advances"] == 5
        b.close()


def test_a_section_not_a_mapping_is_dropped_and_an_old_state_file_loads(tmp_path, caplog):
    """A state file written before the tracker's section (no `progress`) loads as before; a section that is no
    mapping is dropped alone, the rest of the state restored."""
    clock = Clock()
    path, state = saved_state(tmp_path, clock)
    state["cursors"] = {"kmsg": 42}
    for section, warned in ((None, False), ("garbage", True)):
        if section is None:
            del state["progress"]
        else:
            state["progress"] = section
        path.write_text(json.dumps(state))
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="gpu_npd"):
            b = agent(tmp_path, clock)
        assert b.pipeline.progress.pods == {} and b.pipeline.cursors == {"kmsg": 42}
        warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert warnings == ([] if not warned else [w for w in warnings if "progress: expected a mapping" in w])
        assert bool(warnings) == warned
        b.close()


def test_pod_logs_turned_off_and_on_again_lose_nothing(tmp_path):
    """Without pod logs no tracker is built (issue 24's idle footprint): the state file's `progress` section is written
    back as it was read, so an agent with pod logs again restores every pod as it stood (a suspicion standing, its
    Event not said again).  An earlier boot's section is history, kept by no one."""
    clock = Clock()
    a = stepping(tmp_path, clock)
    clock.t = 1018.5
    assert [r for r, _ in said(a)] == [HANG_REASON]
    a.save()
    a.close()
    path = tmp_path / "state.json"
    saved = json.loads(path.read_text())["progress"]
    off = agent(tmp_path, clock, pod_logs=False)
    assert off.pipeline.progress is None
    off.save()
    off.close()
    assert json.loads(path.read_text())["progress"] == saved  # was {}: every pod learnt lost
    b = agent(tmp_path, clock)
    assert b.pipeline.progress.snapshot()["uid-0"]["advances"] == 5 and hung(b) == 1
    clock.t = 1100.0
    assert said(b) == []
    b.save()
    b.close()
    later = agent(tmp_path, clock, Boot("next-boot", 1_000_100_000.0), pod_logs=False)
    later.save()
    later.close()
    assert json.loads(path.read_text())["progress"] == {}


def test_the_pod_list_decides_which_restored_pods_still_exist(tmp_path):
    """Before the pod logs are first listed no pod is known gone: a restored pod stays (it was dropped at the first
    tick, the listing empty, before); once listed, one whose pod is gone is forgotten with its series."""
    clock = Clock()
    a = stepping(tmp_path, clock)
    clock.t = 1018.5
    said(a)
    b = restarted(a, tmp_path, clock)
    b.pods.pod_source = SimpleNamespace(pods={}, listed=False, caught_up=False)
    b._tick()
    assert "uid-0" in b.pipeline.progress.pods and hung(b) == 1
    b.pods.pod_source = SimpleNamespace(pods={"uid-1": PodRef("train", "gpt-worker-1", "uid-1", "main")}, listed=True,
                                        caught_up=True)
    b._tick()
    assert b.pipeline.progress.pods == {} and hung(b) is None
    b.close()


def test_a_restored_pod_is_judged_only_once_its_log_was_read_up(tmp_path):
    """The pod went on stepping while the agent was down for longer than its allowance: until the pod log source has
    read what it wrote meanwhile (`caught_up`), its silence is not known, and no hang is said (was: the first tick,
    before the source's first read, judged it silent since its last step before the restart, a false hang Event,
    then `WorkloadProgressResumed` at the next read)."""
    clock = Clock()
    a = stepping(tmp_path, clock)
    clock.t = 1009.0
    b = restarted(a, tmp_path, clock)
    clock.t = 1060.0  # 51 s after the last step the old agent read; the pod stepped on meanwhile
    live = {"uid-0": REF}
    b.pods.pod_source = SimpleNamespace(pods=live, listed=True, caught_up=False)
    b._tick()
    assert hung(b) is None  # was: 1, a WorkloadHangSuspected Event
    assert step(b, clock, 29) == []  # the steps it wrote while the agent was down, read (was: WorkloadProgressResumed)
    b.pods.pod_source = SimpleNamespace(pods=live, listed=True, caught_up=True)
    b._tick()
    assert hung(b) is None
    clock.t = 1071.0  # then silent past its allowance: judged as ever
    b._tick()
    assert hung(b) == 1
    b.close()


def test_the_pod_log_source_is_caught_up_once_its_first_read_was_taken(tmp_path):
    """`caught_up`: the files listed read to their end once, and the batch of that read taken by the pipeline."""
    import threading
    import time
    cdir = tmp_path / "train_gpt-worker-0_uid-0" / "main"
    cdir.mkdir(parents=True)
    (cdir / "0.log").write_text("2026-01-01T00:00:00.000000000Z stdout F CONSTRUCTED line of no interest\n"
                                "2026-01-01T00:00:00.000000000Z stdout F RuntimeError: CUDA error: an illegal memory "
                                "access was encountered\n")
    src = PodLogSource(str(tmp_path), from_start=True)
    batches, stop = [], threading.Event()
    t = threading.Thread(target=src.run, args=(batches.append, stop), daemon=True)
    assert not src.caught_up
    t.start()
    deadline = time.monotonic() + 5
    while not batches and time.monotonic() < deadline:
        time.sleep(0.01)
    assert batches and src.listed
    assert not src.caught_up  # read, not yet taken
    batches[0].done()
    assert src.caught_up
    stop.set()
    t.join(5)


class Polls:
    """A stop event for PodLogSource.run that stops its loop after `n` polls; no real wait."""

    def __init__(self, n):
        self.n = n

    def is_set(self):
        self.n -= 1
        return self.n < 0

    def wait(self, _seconds):
        pass


def _cut_short(poll, self, *args):
    """A poll cut short by MAX_BATCH_FINDINGS: the next goes on from the next file (no pass ended), nothing given."""
    self._next = 1
    return []


def test_a_pod_log_source_whose_polls_are_all_cut_short_is_caught_up_after_a_bound(tmp_path, monkeypatch):
    """Pods printing findings faster than a poll takes them (every poll cut short by MAX_BATCH_FINDINGS): the source
    counts as read up after READ_UP_POLLS polls, so that the hang tracker is not kept from judging for good."""
    from agent.sources import podlogs

    for polls, caught_up in ((podlogs.READ_UP_POLLS - 1, False), (podlogs.READ_UP_POLLS, True)):
        src = PodLogSource(str(tmp_path))
        on_instance(monkeypatch, src, "poll", _cut_short)
        src.run(lambda batch: None, Polls(polls))
        assert src.listed and src.caught_up is caught_up, polls
        monkeypatch.undo()  # (the next round's source patched on the class as it was)


def test_the_pod_log_source_says_when_it_has_listed(tmp_path):
    src = PodLogSource(str(tmp_path))
    assert not src.listed
    src.discover()
    assert src.listed and src.pods == {}


def test_a_pass_whose_last_file_is_cut_short_by_the_batch_bound_is_not_read_up(tmp_path, monkeypatch):
    """A poll that ends at its last file but stopped reading it at MAX_BATCH_FINDINGS (one pod's flood written while
    the agent was down, the common one-container case) did not read that file to its end: the source is not read up
    yet (was: the loop over the files ended, so `_next` was 0 and `caught_up` held with the pod's newest lines
    unread).  The lines are constructed; the read's bound is under test."""
    import threading
    from agent.sources import podlogs

    monkeypatch.setattr(podlogs, "MAX_BATCH_FINDINGS", 1)
    line = "2026-01-01T00:00:00.000000000Z stdout F RuntimeError: CUDA error: an illegal memory access was encountered\n"
    monkeypatch.setattr(podlogs, "READ_CHUNK", len(line))  # one line a read, so the bound cuts the file
    cdir = tmp_path / "train_gpt-worker-0_uid-0" / "main"
    cdir.mkdir(parents=True)
    (cdir / "0.log").write_text(line * 8)

    src = PodLogSource(str(tmp_path), from_start=True)
    batches: list = []
    src.run(batches.append, Polls(1))
    assert len(batches) == 1 and batches[0].items
    tail = next(iter(src.tails.values()))
    assert tail.offset < len(line) * 8  # the file is not read to its end
    batches[0].done()
    assert not src.caught_up
    src.run(batches.append, Polls(16))  # the rest read (one finding a poll) and taken
    for batch in batches[1:]:
        batch.done()
    assert tail.offset == len(line) * 8 and src.caught_up
