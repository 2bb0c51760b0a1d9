"""The pod log source's first scan after an agent restart: what happened to each file while the agent was down.

The kubelet writes a container's log to `<pod dir>/<container>/<restartCount>.log`, renames it to
`<n>.log.<YYYYMMDD-hhmmss>` when it passes `containerLogMaxSize` (compressing it to `.gz` at the next rotation), and
removes a dead container's log with the container.  An agent started again finds, for each file: the same file grown
(read on from the saved offset), the same file rotated (its inode changed, or its offset past its size: the rotated
file read on from the offset, then the new one from its start; nothing lost, nothing read twice), or a new restart
count's file (the container started again: read from its start, the restart handed on, so the hang tracker, its state
restored, learns the new run's pace anew instead of judging its start-up by the old run's).  Before, the first scan
started a new restart count's file at its end (its lines lost) and said no restart (a restored pod judged on the old
run's pace while the new one loaded: a false hang), and the findings of a file rotated away meanwhile were read and
dropped.

The lines: the ProcessGroupNCCL watchdog line of tests/fixtures/pods (sources in tests/fixtures/dmesg/README.md), its
rank varied by these tests to tell the lines apart; nanoGPT #178's real step lines (tests/fixtures/progress/sources.md)
in CRI envelopes, their times set by the tests.
"""

from __future__ import annotations

import gzip
import json
import io
import os
import shutil
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agent.app import build
from agent.config import load
from agent.progress import HANG_REASON, RESUMED_REASON
from agent.sources import podlogs
from agent.sources.podlogs import PodLogSource, PodRef, run_of
from agent.state import StateStore
from parsers.decoded import GZIP
from parsers.model import Boot, WorkloadFindings
from triage.read import TRACEBACK_LINES
from progress_replay import Clock, lines
from patching import on_instance

UID = "0d4c8a2e-5b1f-4e7a-9c3d-2f6e8b1a7c40"
POD_DIR = f"train_gpt-worker-0_{UID}"
REF = PodRef("train", "gpt-worker-0", UID, "main")
TIMEOUT = ("2024-07-25T07:00:{s:02d}.000000000Z stderr F [rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog "
           "caught collective operation timeout: WorkNCCL(SeqNum=22631, OpType=ALLREDUCE, NumelIn=545914880, "
           "NumelOut=545914880, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n")
STEPS = [x for x in lines("nanogpt_178.log") if x.startswith("iter ")]


def timeout(*ranks: int) -> str:
    return "".join(TIMEOUT.format(s=r % 60, r=r) for r in ranks)


def stepped(texts: list[str], start: float, every: float = 9.0) -> str:
    return "".join(f"{datetime.fromtimestamp(start + every * i, timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')} "
                   f"stdout F {text}\n" for i, text in enumerate(texts))


def append(path: Path, text: str) -> None:
    with open(path, "a") as fh:
        fh.write(text)


@pytest.fixture
def tree(tmp_path) -> tuple[Path, Path, Path]:
    """(the pod log root, the container's directory as the kubelet lays it out, the state directory)."""
    root = tmp_path / "pods"
    cdir = root / POD_DIR / "main"
    cdir.mkdir(parents=True)
    (cdir / "0.log").write_text(timeout(1, 2))
    return root, cdir, tmp_path / "state"


def source(root: Path, state: Path) -> PodLogSource:
    return PodLogSource(str(root), StateStore(str(state), "podlogs.json"))


def stopped(root: Path, state: Path) -> None:
    """An agent that followed the tree (its files at their end at its first scan, as at any start) and stopped."""
    src = source(root, state)
    src.discover()
    assert src.poll() == []
    src.save()


def first_batch(root: Path, state: Path) -> tuple[list[int], list[PodRef], PodLogSource]:
    """The agent started again: the ranks its first scan and read hand on, the restarts, the source."""
    src = source(root, state)
    src.discover()
    found = src.poll()
    return [f.rank for _, f in found], src.take_restarted(), src


def test_the_same_file_grown_is_read_on_from_its_offset(tree):
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3, 4))
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [3, 4] and restarted == []
    assert src.poll() == []


@pytest.mark.parametrize("compressed", [False, True])
def test_the_same_file_rotated_is_read_on_in_the_rotated_file_then_the_new_one_from_its_start(tree, compressed):
    """Its inode changed: the lines written after the offset before the rotation are in the rotated file (found by
    inode; a .gz, which keeps no inode, by its length), the rest in the new file.  They were read and dropped."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3, 4))
    rotated = cdir / "0.log.20240725-070000"
    os.rename(cdir / "0.log", rotated)
    (cdir / "0.log").write_text(timeout(5))
    if compressed:
        with open(rotated, "rb") as a, gzip.open(f"{rotated}.gz", "wb") as b:
            b.write(a.read())
        rotated.unlink()
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [3, 4, 5] and restarted == []
    append(cdir / "0.log", timeout(6))
    assert [f.rank for _, f in src.poll()] == [6]  # nothing read twice


def test_the_same_inode_with_its_offset_past_its_size_is_a_rotation(tree):
    """The rotated file compressed and removed, the new file may get its inode back: the offset past the file's size
    says it is another file.  The rest of the old one is read from the .gz, the new one from its start."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3, 4))
    with open(cdir / "0.log", "rb") as a, gzip.open(cdir / "0.log.20240725-070000.gz", "wb") as b:
        b.write(a.read())
    with open(cdir / "0.log", "r+") as fh:  # the same inode, shorter than the offset saved
        fh.truncate(0)
        fh.write(timeout(5))
    ranks, restarted, _ = first_batch(root, state)
    assert ranks == [3, 4, 5] and restarted == []


def test_a_new_restart_counts_file_is_read_from_its_start_and_said_a_restart(tree):
    """The container crashed and was started again while the agent was down: its last lines are in `0.log` after the
    offset, the new run's in `1.log`.  Both are read, once; the container's restart is handed on.  Before, `1.log`
    started at its end (rank 5 lost) and no restart was said."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3))
    (cdir / "1.log").write_text(timeout(5))
    ranks, restarted, src = first_batch(root, state)
    assert sorted(ranks) == [3, 5] and restarted == [REF]
    append(cdir / "1.log", timeout(6))
    src.discover()
    assert [f.rank for _, f in src.poll()] == [6] and src.take_restarted() == []


def test_a_restart_in_a_batch_the_pipeline_did_not_take_is_said_again_at_the_next_start(tree):
    """The container started again while the agent ran; the batch saying so was not taken (the agent stopped while
    its source waited for room in the intake queue: agent/intake.py emit).  Its lines are read again at the next
    start, from the offsets saved up to what the pipeline took, and so is its restart.  Before, the offsets saved
    held the new run's file (at its start), and the next start took it for a file followed before: no restart said,
    the restored pace judged the new run's start-up."""
    root, cdir, state = tree
    src = source(root, state)
    src.discover()
    assert src.poll() == []
    (cdir / "1.log").write_text(timeout(5))
    stop = threading.Event()
    sent = []
    src.run(lambda batch: (sent.append(batch), stop.set()), stop)  # emitted, never taken: the agent stopping
    assert sent[0].restarted == [REF]
    ranks, restarted, _ = first_batch(root, state)
    assert ranks == [5] and restarted == [REF]


def test_two_restarts_while_down_with_the_first_runs_log_removed(tree):
    """The kubelet removes a dead container's log with the container: after two restarts only `1.log` and `2.log`
    remain.  Both are new since the agent stopped (read from their start, in the order of their restart counts); the
    container started again."""
    root, cdir, state = tree
    stopped(root, state)
    (cdir / "0.log").unlink()
    (cdir / "1.log").write_text(timeout(5))
    (cdir / "2.log").write_text(timeout(6))
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [5, 6] and set(restarted) == {REF}
    assert [run_of(os.path.basename(p)) for p in src.tails] == [1, 2]


def test_an_agent_never_run_before_takes_every_file_as_history(tree):
    """No offsets saved (the first start, or a state directory lost): `0.log` and `1.log` are history, read from their
    end; no restart is said (the agent did not see the container start again)."""
    root, cdir, state = tree
    (cdir / "1.log").write_text(timeout(5))
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [] and restarted == []
    append(cdir / "1.log", timeout(6))
    assert [f.rank for _, f in src.poll()] == [6]


def test_the_old_runs_steps_read_with_its_restart_are_not_the_new_runs(tree):
    """The dead run's last steps (in `0.log` after the offset) are read in the batch that says the restart, which the
    tracker takes first: handed on, they were the new run's first advances.  They are not handed on; the new run's
    are."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", stepped(STEPS[:5], 1000.0))
    (cdir / "1.log").write_text(stepped(STEPS[:2], 2000.0))
    _, restarted, src = first_batch(root, state)
    (ref, marks), = src.take_progress()
    assert restarted == [REF] and ref == REF and [p.step for _, p in marks] == [0, 10]


# ---- with the hang tracker's state restored (tests/agent/test_progress_restart.py) -------------------------------

def agent(tmp_path: Path, root: Path, clock: Clock):
    """An agent on the state directory `tmp_path` following the pod logs under `root` (k 5, floor 10 s); its sources
    not started (the test reads the pod log source and hands its batches on, as its thread does)."""
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path / "state"),
                              "fallback_log_files": [], "fabricmanager_log": "", "imex_log": "", "nvml": "off",
                              "mode": "off", "pod_logs_root": str(root),
                              "workload_hang": {"k": 5, "floor_seconds": 10}})
    a = build(cfg, clock=clock, out=io.StringIO(), boot=Boot("this-boot", 1_000_000_000.0))
    a.pipeline.progress.alive = lambda: None  # nothing runs here: a pod is judged on its silence alone
    return a


def said(a, src: PodLogSource) -> list[str]:
    """One round of the pod log source's thread and one tick: the Pod Events' reasons decided."""
    src.discover()
    found = src.poll()
    progress, restarted = src.take_progress(), src.take_restarted()
    snap = None
    if found or progress or restarted:
        snap = a.pipeline.process(WorkloadFindings(found, progress=progress, restarted=restarted))
    a.pipeline.judge_progress(None)
    events, a.pipeline._events = a.pipeline._events, []
    return [e.reason for e in [*(snap.pod_events if snap is not None else ()), *events]]


@pytest.mark.parametrize("last_steps", [0, 3])
def test_no_false_hang_when_the_container_restarted_while_the_agent_was_down(tmp_path, last_steps):
    """The pod stepped every 2 s; the agent stopped (its tracker's state and offsets saved); meanwhile the container
    crashed (after `last_steps` more steps) and started again, and its new run loads for twenty minutes.  The agent
    started again restores the old pace, and the restart said by its first scan drops it: no hang while the new run
    loads, and the new run, once stepping, is judged at its own pace.  Before, `1.log` was history and no restart
    was said: suspected 10 s after the agent came back."""
    root = tmp_path / "pods"
    cdir = root / POD_DIR / "main"
    cdir.mkdir(parents=True)
    clock = Clock(0.0)
    a = agent(tmp_path, root, clock)
    src = PodLogSource(str(root), StateStore(str(tmp_path / "state"), "podlogs.json"))
    src.discover()
    for n in range(5):
        clock.t = 1000.0 + 2 * n
        append(cdir / "0.log", stepped(STEPS[n:n + 1], clock.t))
        assert said(a, src) == []
    assert a.pipeline.progress.snapshot()[UID]["advances"] == 5
    src.save()
    a.save()
    a.close()
    append(cdir / "0.log", stepped(STEPS[5:5 + last_steps], 1010.0, 2.0))  # the old run's last steps, then its crash
    (cdir / "1.log").write_text("")  # the new run: loading, compiling
    clock.t = 1030.0
    b = agent(tmp_path, root, clock)
    assert b.pipeline.progress.snapshot()[UID]["advances"] == 5  # restored
    again = PodLogSource(str(root), StateStore(str(tmp_path / "state"), "podlogs.json"))
    for clock.t in range(1030, 1030 + 20 * 60, 10):
        assert said(b, again) == [], clock.t
    clock.t = 2300.0
    append(cdir / "1.log", stepped(STEPS[:3], 2300.0 - 18, 9.0))  # its first steps, 9 s apart
    assert said(b, again) == []
    clock.t = 2300.0 + 44  # within max(5 x 9 s, 10 s)
    assert said(b, again) == []
    clock.t = 2300.0 + 46
    assert said(b, again) == [HANG_REASON]  # judged at its own pace
    append(cdir / "1.log", stepped(STEPS[3:4], 2350.0))
    assert said(b, again) == [RESUMED_REASON]
    b.close()


# ---- rotated more than once while the agent was down ------------------------------------------------------------

def rotate(cdir: Path, stamp: str, new: str) -> None:
    """What the kubelet's container log manager does when `0.log` passes containerLogMaxSize
    (kubernetes/kubernetes pkg/kubelet/logs/container_log_manager.go, rotateLog): every rotated file not yet compressed
    is compressed (`.gz` through a `.tmp`, the plain file removed), then `0.log` is renamed `0.log.<stamp>` and the
    runtime reopens `0.log` (here written `new`)."""
    for old in cdir.glob("0.log.*"):
        if old.suffix not in (".gz", ".tmp"):
            with open(old, "rb") as a, gzip.open(f"{old}.gz", "wb") as b:
                b.write(a.read())
            old.unlink()
    os.rename(cdir / "0.log", cdir / f"0.log.{stamp}")
    (cdir / "0.log").write_text(new)


def test_a_file_rotated_twice_while_down_is_read_on_in_its_gz_then_the_file_between_whole(tree):
    """Ours compressed at the second rotation (the newest .gz), the file between them rotated after it, plain: both
    read, then the new `0.log`.  Before, the file between (ranks 4-6) was never read."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3))
    rotate(cdir, "20240725-070000", timeout(4, 5, 6))
    rotate(cdir, "20240725-080000", timeout(7))
    ranks, restarted, _ = first_batch(root, state)
    assert ranks == [3, 4, 5, 6, 7] and restarted == []


def test_an_older_gz_from_before_the_agent_stopped_is_not_taken_for_ours(tree):
    """A file rotated before the agent stopped (read then) is compressed at the next rotation too, and is longer than
    our offset: it is not ours (the newest .gz that reaches the offset is).  Before, the oldest .gz that did was taken:
    its lines after our offset read twice (ranks 52-59), ours and the file between lost.  A `.tmp` the kubelet left
    (a compression cut short) is no rotated file."""
    root, cdir, state = tree
    rotate(cdir, "20240725-060000", timeout(1, 2))
    (cdir / "0.log.20240725-060000").write_text(timeout(*range(50, 60)))  # (longer than 0.log will be at the save)
    stopped(root, state)
    append(cdir / "0.log", timeout(3))
    rotate(cdir, "20240725-070000", timeout(4, 5, 6))
    (cdir / "0.log.20240725-070000.gz.tmp").write_bytes(b"\x1f\x8b")
    rotate(cdir, "20240725-080000", timeout(7))
    assert sorted(p.name for p in cdir.iterdir()) == ["0.log", "0.log.20240725-060000.gz", "0.log.20240725-070000.gz",
                                                      "0.log.20240725-070000.gz.tmp", "0.log.20240725-080000"]
    ranks, _, _ = first_batch(root, state)
    assert ranks == [3, 4, 5, 6, 7]


def test_a_rotated_gz_pointing_out_of_the_pod_log_root_is_not_read(tree, tmp_path):
    """Pod logs are data, never paths: a `.gz` beside the log that is a link to a file elsewhere on the host is refused
    (counted), as the log itself would be.  Before, a .gz was opened wherever it pointed."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3))
    with open(cdir / "0.log", "rb") as a, gzip.open(tmp_path / "elsewhere.gz", "wb") as b:
        b.write(a.read())
    (cdir / "0.log").unlink()
    (cdir / "0.log.20240725-070000.gz").symlink_to(tmp_path / "elsewhere.gz")
    (cdir / "0.log").write_text(timeout(4))
    ranks, _, src = first_batch(root, state)
    assert ranks == [4] and src.refused == 1


# ---- containers started while the agent was down ----------------------------------------------------------------

UID2 = "6a1f3e9b-8c2d-4b7e-a5f0-1d9c7e3b2a64"
POD_DIR2 = f"train_gpt-worker-1_{UID2}"
REF2 = PodRef("train", "gpt-worker-1", UID2, "main")


def saved_state(state: Path) -> dict:
    return json.loads((state / "podlogs.json").read_text())


def saved_held(state: Path, log: Path) -> dict:
    """What the state saved that `log`'s read held for its later lines ("held"; {} when nothing)."""
    return saved_state(state).get("held", {}).get(str(log), {})


def new_pod(root: Path, text: str, pod_dir: str = POD_DIR2, mtime: float | None = None) -> Path:
    """A pod the kubelet started: `<pod dir>/main/0.log` written `text` (last written at `mtime`, else now)."""
    cdir = root / pod_dir / "main"
    cdir.mkdir(parents=True, exist_ok=True)
    (cdir / "0.log").write_text(text)
    if mtime is not None:
        os.utime(cdir / "0.log", (mtime, mtime))
    return cdir


def test_a_pod_started_while_the_agent_was_down_is_read_from_its_start(tree):
    """A config rollout restarts the agent; a training pod started meanwhile wrote its first lines (here its NCCL
    failure).  Its container was not listed when the agent last saved: read from its start, no restart said (the
    agent never saw an earlier run).  Before, it was history: its first lines were lost."""
    root, _, state = tree
    stopped(root, state)
    assert saved_state(state)["containers"] == [f"{POD_DIR}/main"]
    cdir = new_pod(root, timeout(7, 8), mtime=saved_state(state)["listed_at"] + 30)
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [7, 8] and restarted == []
    append(cdir / "0.log", timeout(9))
    assert [f.rank for _, f in src.poll()] == [9]  # nothing read twice


def test_a_container_listed_before_its_first_file_was_written_is_read_from_its_start(tree):
    """The kubelet makes the container's directory, then its runtime writes `0.log`: a directory listed empty when the
    agent saved is not taken as seen, its file written meanwhile is new."""
    root, _, state = tree
    (root / POD_DIR2 / "main").mkdir(parents=True)
    stopped(root, state)
    new_pod(root, timeout(7))
    ranks, restarted, _ = first_batch(root, state)
    assert ranks == [7] and restarted == []


def test_an_old_pod_never_followed_stays_history(tree):
    """A pod the agent listed but did not follow (its filters excluded it; the rollout changed them) is no new pod:
    read from its end, as a pod present at an agent's first start (test_an_agent_never_run_before_...)."""
    root, _, state = tree
    new_pod(root, timeout(7))
    src = PodLogSource(str(root), StateStore(str(state), "podlogs.json"), exclude_pods=["gpt-worker-1"])
    src.discover()
    src.save()
    assert saved_state(state)["containers"] == [f"{POD_DIR}/main", f"{POD_DIR2}/main"]
    append(root / POD_DIR2 / "main" / "0.log", timeout(8))
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [] and restarted == []
    append(root / POD_DIR2 / "main" / "0.log", timeout(9))
    assert [f.rank for _, f in src.poll()] == [9]


@pytest.mark.parametrize("why", ["clock stepped back", "too large"])
def test_a_new_containers_file_in_doubt_is_history(tree, monkeypatch, why):
    """A file of a container not listed then, but written last before that listing (the host's clock stepped back, or
    the listing missed it), or larger than MAX_UNSEEN_BYTES, is history: never a huge or old file replayed."""
    root, _, state = tree
    stopped(root, state)
    listed_at = saved_state(state)["listed_at"]
    if why == "too large":
        monkeypatch.setattr(podlogs, "MAX_UNSEEN_BYTES", len(timeout(7)) - 1)
        new_pod(root, timeout(7), mtime=listed_at + 30)
    else:
        new_pod(root, timeout(7), mtime=listed_at - 3600)
    ranks, _, src = first_batch(root, state)
    assert ranks == []
    append(root / POD_DIR2 / "main" / "0.log", timeout(8))
    assert [f.rank for _, f in src.poll()] == [8]


def test_an_old_state_file_without_the_containers_loads_as_before(tree):
    """A podlogs.json an earlier agent wrote has offsets only: they are read on, and every container not followed is
    history, as before; the next save adds the listing."""
    root, cdir, state = tree
    state.mkdir()
    size = (cdir / "0.log").stat().st_size
    (state / "podlogs.json").write_text(json.dumps(
        {"version": 1, "offsets": {str(cdir / "0.log"): [(cdir / "0.log").stat().st_ino, size]}}))
    append(cdir / "0.log", timeout(3))
    new_pod(root, timeout(7))
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [3] and restarted == []
    src.save()
    assert saved_state(state)["containers"] == [f"{POD_DIR}/main", f"{POD_DIR2}/main"]


@pytest.mark.parametrize("bad", [{"containers": "x", "listed_at": 5.0}, {"containers": []}])
def test_a_damaged_listing_is_dropped_alone(tree, bad, caplog):
    """A listing of the wrong type, or without its time, is dropped (said once); the offsets are kept."""
    root, cdir, state = tree
    stopped(root, state)
    data = saved_state(state)
    (state / "podlogs.json").write_text(json.dumps({"version": 1, "offsets": data["offsets"], **bad}))
    append(cdir / "0.log", timeout(3))
    new_pod(root, timeout(7))
    ranks, _, _ = first_batch(root, state)
    assert ranks == [3] and "cannot be restored" in caplog.text


def test_saved_offsets_of_files_gone_are_dropped_at_the_first_scan(tree):
    """Offsets of files gone while the agent was down (a deleted pod's, a rotated name an earlier agent saved) are
    dropped at the first scan's end; those of files present but not followed (a directory not listed for a moment)
    are kept.  Before, they stayed in memory for the agent's life."""
    root, cdir, state = tree
    stopped(root, state)
    data = saved_state(state)
    gone = {str(root / f"train_old-0_{UID2}" / "main" / "0.log"): [5, 10], str(cdir / "0.log.20240725-070000"): [6, 20]}
    kept = str(root / POD_DIR2 / "main" / "0.log")
    new_pod(root, timeout(7))
    data["offsets"].update(gone)
    data["offsets"][kept] = [7, 30]
    (state / "podlogs.json").write_text(json.dumps(data))
    src = PodLogSource(str(root), StateStore(str(state), "podlogs.json"), exclude_pods=["gpt-worker-1"])
    src.discover()
    assert set(src._saved) == {str(cdir / "0.log"), kept}


def test_past_max_containers_no_listing_is_saved(tree, monkeypatch):
    """A listing larger than MAX_CONTAINERS is not saved: an agent started again takes every container it did not
    follow for history, as before the listing was kept (the state stays bounded)."""
    root, _, state = tree
    monkeypatch.setattr(podlogs, "MAX_CONTAINERS", 0)
    stopped(root, state)
    assert "containers" not in saved_state(state) and "listed_at" not in saved_state(state)
    new_pod(root, timeout(7))
    ranks, _, _ = first_batch(root, state)
    assert ranks == []


# ---- a file read from its start whose earlier lines were rotated while the agent was down ------------------------

def test_a_new_pods_file_rotated_while_down_is_read_from_its_rotated_files_first(tree):
    """A pod started while the agent was down and its `0.log` was rotated twice meanwhile: its first lines are in
    `0.log.<stamp>.gz` and `0.log.<stamp>`, read first, oldest to newest, then `0.log`; nothing twice.  Before, only
    `0.log` was read (ranks 7-9 lost)."""
    root, _, state = tree
    stopped(root, state)
    cdir = new_pod(root, timeout(7))
    rotate(cdir, "20240725-070000", timeout(8))
    rotate(cdir, "20240725-080000", timeout(10))
    (cdir / "0.log.20240725-080000.gz.tmp").write_bytes(b"\x1f\x8b")  # a compression cut short: no rotated file
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [7, 8, 10] and restarted == []
    append(cdir / "0.log", timeout(11))
    assert [f.rank for _, f in src.poll()] == [11]


def test_a_restarted_containers_new_file_rotated_while_down_is_read_from_its_rotated_files_first(tree):
    """The container started again while the agent was down and its `1.log` was rotated meanwhile: the new run's first
    lines are in `1.log.<stamp>`, read before `1.log`; the restart is said once."""
    root, cdir, state = tree
    stopped(root, state)
    (cdir / "1.log").write_text(timeout(5))
    os.rename(cdir / "1.log", cdir / "1.log.20240725-070000")
    (cdir / "1.log").write_text(timeout(6))
    ranks, restarted, _ = first_batch(root, state)
    assert ranks == [5, 6] and restarted == [REF]


def test_rotated_files_past_max_unseen_bytes_are_not_read(tree, monkeypatch):
    """The rotated files are read back from the newest while the file and they hold at most MAX_UNSEEN_BYTES (a .gz
    counted by the size it holds): an older one past it is history, never a huge backlog replayed."""
    root, _, state = tree
    stopped(root, state)
    monkeypatch.setattr(podlogs, "MAX_UNSEEN_BYTES", len(timeout(7)) * 2)
    cdir = new_pod(root, timeout(6))
    rotate(cdir, "20240725-070000", timeout(7))
    rotate(cdir, "20240725-080000", timeout(8))
    ranks, _, _ = first_batch(root, state)
    assert ranks == [7, 8]


@pytest.mark.parametrize("members, padding, read", [
    ([(5, 6, 7, 8, 10)], 64, False),  # past the bound; its trailer's size (its last 4 bytes, zeros) read 0 before
    ([(5, 6, 7), (8, 10)], 0, False),  # past the bound; its trailer's size, its last member's, 2 lines, read before
    ([(5, 6, 7)], 64, True),  # within the bound, padded: read (as it was)
], ids=["padded-past", "two-members-past", "padded-within"])
def test_a_rotated_gz_is_counted_by_the_bytes_it_decodes_to(tree, monkeypatch, members, padding, read):
    """A .gz of the backlog is counted by the bytes it decodes to, every member's (`gzip -c a >> b` concatenates
    them), zero padding after its end ignored (parsers/decoded.py reads it so): the gzip trailer's size is that of
    the last member alone, modulo 4 GiB, and a padded file's last 4 bytes are zeros.  Before, a padded .gz counted 0
    bytes and a concatenated one its last member's, and both were read past MAX_UNSEEN_BYTES (here 4 lines, the file's
    one and 3 more)."""
    root, _, state = tree
    stopped(root, state)
    monkeypatch.setattr(podlogs, "MAX_UNSEEN_BYTES", len(timeout(9)) * 4)
    cdir = new_pod(root, timeout(9))
    gz = b"".join(gzip.compress(timeout(*m).encode()) for m in members) + bytes(padding)
    (cdir / "0.log.20240725-070000.gz").write_bytes(gz)
    ranks, _, _ = first_batch(root, state)
    assert ranks == ([r for m in members for r in m] if read else []) + [9]


def test_a_rotated_file_of_a_new_pod_written_before_the_listing_is_not_read(tree):
    """A rotated file last written before the agent's last listing (the host's clock stepped back) is in doubt: it and
    those before it are history, as the file itself would be."""
    root, _, state = tree
    stopped(root, state)
    cdir = new_pod(root, timeout(7))
    rotate(cdir, "20240725-070000", timeout(8))
    listed_at = saved_state(state)["listed_at"]
    os.utime(cdir / "0.log.20240725-070000", (listed_at - 3600, listed_at - 3600))
    ranks, _, _ = first_batch(root, state)
    assert ranks == [8]


def test_a_rotated_gz_written_before_the_listing_is_not_decoded_to_size_it(tree, monkeypatch):
    """A .gz is sized by decoding it (`_rotated_size`): one last written before the listing is history by its time
    alone and is not decoded.  Before, it was decoded (up to MAX_UNSEEN_BYTES) and then left for its time."""
    root, _, state = tree
    stopped(root, state)
    cdir = new_pod(root, timeout(7))
    (cdir / "0.log.20240725-070000.gz").write_bytes(gzip.compress(timeout(8).encode()))
    listed_at = saved_state(state)["listed_at"]
    os.utime(cdir / "0.log.20240725-070000.gz", (listed_at - 3600, listed_at - 3600))
    decoded = []
    real = podlogs.Decoded
    monkeypatch.setattr(podlogs, "Decoded", lambda raw, fmt: decoded.append(raw.name) or real(raw, fmt))
    ranks, _, _ = first_batch(root, state)
    assert ranks == [7] and decoded == []


# ---- rotated three times or more while the agent was down: which .gz is ours (the fingerprint) -----------------

def test_a_file_rotated_three_times_while_down_is_found_by_its_fingerprint(tree):
    """Ours compressed, then the file after it compressed too (longer than our offset), then a third: the newest .gz
    that reaches the offset is not ours.  The CRCs of the bytes at the file's start and before the offset, saved with
    the offset, tell ours: read on from the offset, then every file after it whole, then `0.log`.  Before, the file
    after ours was taken for it (its ranks 4-9 before the offset lost, 10-12 after it read) and ours lost (rank 3)."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3))
    rotate(cdir, "20240725-070000", timeout(*range(4, 13)))
    rotate(cdir, "20240725-080000", timeout(13))
    rotate(cdir, "20240725-090000", timeout(14))
    assert sorted(p.name for p in cdir.iterdir()) == ["0.log", "0.log.20240725-070000.gz", "0.log.20240725-080000.gz",
                                                      "0.log.20240725-090000"]
    ranks, restarted, _ = first_batch(root, state)
    assert ranks == [3, *range(4, 13), 13, 14] and restarted == []


def test_without_a_fingerprint_the_newest_gz_that_reaches_the_offset_is_taken_as_before(tree):
    """A podlogs.json an earlier agent wrote has no "prints": loaded as before (the newest .gz that reaches the offset
    taken for ours).  The offsets stay [inode, offset], as an earlier agent rolled back to reads them."""
    root, cdir, state = tree
    stopped(root, state)
    data = saved_state(state)
    assert data["offsets"][str(cdir / "0.log")][1] == len(timeout(1, 2))
    assert len(data["prints"][str(cdir / "0.log")]) == 2
    del data["prints"]
    (state / "podlogs.json").write_text(json.dumps(data))
    append(cdir / "0.log", timeout(3))
    rotate(cdir, "20240725-070000", timeout(4, 5, 6))
    rotate(cdir, "20240725-080000", timeout(7))
    ranks, _, _ = first_batch(root, state)
    assert ranks == [3, 4, 5, 6, 7]


@pytest.mark.parametrize("bad", [[1, 2, 3], [-3, 4], "x"])
def test_a_damaged_fingerprint_is_dropped_alone(tree, bad, caplog):
    """A fingerprint not [head CRC, tail CRC] is dropped (said once): its file's offset is kept, read on as one saved
    without it; the other files' fingerprints are kept."""
    root, cdir, state = tree
    side = new_pod(root, timeout(7))
    stopped(root, state)
    data = saved_state(state)
    data["prints"][str(cdir / "0.log")] = bad
    (state / "podlogs.json").write_text(json.dumps(data))
    append(cdir / "0.log", timeout(3))
    src = source(root, state)
    assert src._saved[str(cdir / "0.log")] == data["offsets"][str(cdir / "0.log")]
    assert "cannot be restored" in caplog.text
    assert len(src._saved[str(side / "0.log")]) == 4
    src.discover()
    assert [f.rank for _, f in src.poll()] == [3]


def test_the_fingerprint_is_read_as_an_offset_is_saved_not_at_every_snapshot(tree, monkeypatch):
    """The source's loop snapshots the offsets at every turn (`run`), eight training pods' files grown at each: the
    fingerprint is read as an offset is saved, once per file and offset, never for a snapshot.  Before, every
    snapshot read it anew for each file whose offset had moved (two preads and a fstat a file a turn)."""
    root, cdir, state = tree
    src = source(root, state)
    src.discover()
    reads = []
    real = podlogs._fingerprint
    monkeypatch.setattr(podlogs, "_fingerprint", lambda read, at: reads.append(at) or real(read, at))
    for r in range(3, 8):
        append(cdir / "0.log", timeout(r))
        src.poll()
        src._snapshot()
    assert reads == []
    src.save()
    src.save()  # (nothing read since: nothing written, nothing read for it)
    append(cdir / "0.log", timeout(8))
    src.poll()
    src.save()
    size = (cdir / "0.log").stat().st_size
    assert reads == [size - len(timeout(8)), size]
    assert saved_state(state)["prints"][str(cdir / "0.log")] == list(podlogs._fingerprint(
        lambda n, at: (cdir / "0.log").read_bytes()[at:at + n], size))


def test_a_file_rotated_between_its_snapshot_and_the_save_keeps_its_fingerprint(tree):
    """The offset saved is that of the batch last taken (a later one still in flight): the file rotated since, its
    fingerprint at that offset is read from the rotated file, found by its inode, as the snapshot would have read it
    from the file then."""
    root, cdir, state = tree
    src = source(root, state)
    src.discover()
    append(cdir / "0.log", timeout(3))
    src.poll()
    snapshot = src._snapshot()
    head = (cdir / "0.log").read_bytes()
    os.rename(cdir / "0.log", cdir / "0.log.20240725-070000")
    (cdir / "0.log").write_text(timeout(4))
    src.poll()
    src._safe, src._sent = snapshot, 1  # (the batch of rank 4 not yet taken: the snapshot before it is saved)
    src.save()
    saved = saved_state(state)
    assert saved["offsets"][str(cdir / "0.log")] == snapshot["offsets"][str(cdir / "0.log")]
    assert saved["prints"][str(cdir / "0.log")] == list(podlogs._fingerprint(lambda n, at: head[at:at + n],
                                                                            len(head)))


def test_a_file_closed_past_max_open_and_rotated_three_times_is_found_by_its_fingerprint(tree):
    """A file closed past max_open (the least recently active) is watched by stat; rotated three times meanwhile, ours
    is told among the .gz by the fingerprint taken as it was closed, as after a restart: read on from its offset, then
    every file after it, then `0.log`.  Before, it was read only at a snapshot, at the offset before the pending
    partial line, and not at all without one: the file after ours was taken for it (its lines before the offset lost,
    ours lost)."""
    root, cdir, state = tree
    src = PodLogSource(str(root), max_open=1)
    side = new_pod(root, timeout(20))
    src.discover()
    assert src.poll() == []
    append(cdir / "0.log", timeout(3))
    assert [f.rank for _, f in src.poll()] == [3]
    append(side / "0.log", timeout(21))  # read: `0.log` of the first pod closed
    assert [f.rank for _, f in src.poll()] == [21] and src.tails[str(cdir / "0.log")].fd is None
    append(cdir / "0.log", timeout(4))
    rotate(cdir, "20240725-070000", timeout(*range(5, 14)))
    rotate(cdir, "20240725-080000", timeout(14))
    rotate(cdir, "20240725-090000", timeout(15))
    assert [f.rank for _, f in src.poll()] == [4, *range(5, 14), 14, 15]


# ---- an agent killed between its first scan and its first read of a backlog ------------------------------------

def killed_after_the_first_scan(root: Path, state: Path) -> None:
    """An agent started again that saved after its first scan and was killed before its first read was taken (the
    source's save then writes the offsets of that scan: the batch of the read is still in flight), no final save."""
    src = source(root, state)
    src.discover()
    src.save()


def owed_backlog(root, state):
    """A pod started while the agent was down (rank 7), its `0.log` rotated twice meanwhile (ranks 8, 10), and the
    agent started again killed after its first scan: `0.log`'s rotated files owed.  The pod's container directory."""
    stopped(root, state)
    cdir = new_pod(root, timeout(7))
    rotate(cdir, "20240725-070000", timeout(8))
    rotate(cdir, "20240725-080000", timeout(10))
    killed_after_the_first_scan(root, state)
    return cdir


@pytest.mark.parametrize("rotated_again", [False, True])
def test_a_backlog_not_read_when_the_agent_was_killed_is_read_at_its_next_start(tree, rotated_again):
    """A pod started while the agent was down, its `0.log` rotated twice meanwhile: the agent started again saves
    `0.log` at its start with the rotated files still owed ("backlog"), is killed before reading them, and reads them
    at its next start, then `0.log`; every line once.  Rotated again while it was down the second time, the owed plain
    file is found as its `.gz`, and `0.log`, saved at its start, is read on in its rotated file.  Before, the offset 0
    saved made `0.log` a file followed: its rotated files were never read (ranks 7 and 8 lost)."""
    root, _, state = tree
    cdir = owed_backlog(root, state)
    assert saved_state(state)["backlog"] == {str(cdir / "0.log"): ["0.log.20240725-070000.gz", "0.log.20240725-080000"]}
    assert saved_state(state)["offsets"][str(cdir / "0.log")][1] == 0
    if rotated_again:
        rotate(cdir, "20240725-090000", timeout(11))
    ranks, restarted, src = first_batch(root, state)
    assert ranks == [7, 8, 10, *([11] if rotated_again else [])] and restarted == []
    src.save()
    assert "backlog" not in saved_state(state)
    append(cdir / "0.log", timeout(12))
    ranks, _, _ = first_batch(root, state)
    assert ranks == [12]


def test_a_restarted_containers_backlog_not_read_when_the_agent_was_killed_is_read_at_its_next_start(tree):
    """The same for a container started again while the agent was down (`1.log`, rotated meanwhile): its rotated file
    is owed until read."""
    root, cdir, state = tree
    stopped(root, state)
    (cdir / "1.log").write_text(timeout(5))
    os.rename(cdir / "1.log", cdir / "1.log.20240725-070000")
    (cdir / "1.log").write_text(timeout(6))
    killed_after_the_first_scan(root, state)
    ranks, _, _ = first_batch(root, state)
    assert ranks == [5, 6]


def test_a_backlog_file_gone_meanwhile_is_said_and_the_rest_read(tree, caplog):
    """An owed rotated file the kubelet removed meanwhile (past containerLogMaxFiles) is said, its lines lost; the
    others and the file are read.  A damaged "backlog" is dropped alone (the offsets kept)."""
    root, _, state = tree
    cdir = owed_backlog(root, state)
    (cdir / "0.log.20240725-070000.gz").unlink()
    data = saved_state(state)
    data["backlog"]["elsewhere"] = "x"
    (state / "podlogs.json").write_text(json.dumps(data))
    ranks, _, _ = first_batch(root, state)
    assert ranks == [8, 10]
    assert "1 rotated files still to be read when the agent stopped are gone" in caplog.text
    assert "cannot be restored" in caplog.text


def cut_short(gz: Path) -> None:
    """A .gz cut short: its 8-byte trailer (CRC and size) missing, as a copy or a compression stopped before its end
    leaves it; gzip reads its bytes, then raises EOFError."""
    gz.write_bytes(gz.read_bytes()[:-8])


def test_a_gz_padded_with_zeros_after_its_members_is_read_whole_and_nothing_said(tree, caplog):
    """gzip allows zero bytes after a member (gzip.GzipFile and `gzip -d` skip them; a copy padded to a block leaves
    them): a rotated .gz so padded, one member or two, is read whole and said nothing of (was: read whole, then
    "cannot be read to its end; the rest of its lines are lost", zlib refusing the zeros as a member's header)."""
    root, _, state = tree
    stopped(root, state)
    cdir = new_pod(root, timeout(7))
    rotate(cdir, "20240725-070000", timeout(8))
    rotate(cdir, "20240725-080000", timeout(9))
    gz = cdir / "0.log.20240725-070000.gz"
    gz.write_bytes(gz.read_bytes() + b"\0" * 512)
    src = source(root, state)
    src.discover()
    assert [f.rank for _, f in src.poll()] == [7, 8, 9]
    assert "cannot be read to its end" not in caplog.text
    two = gzip.compress(b"a\n" * 3) + b"\0" * 5 + gzip.compress(b"b\n") + b"\0" * (podlogs.READ_CHUNK + 7)
    reader = podlogs.Decoded(io.BufferedReader(io.BytesIO(two)), GZIP)  # (the one reader: parsers/decoded.py)
    got = b""
    while data := reader.read(4):
        got += data
    assert got == gzip.decompress(two) == b"a\na\na\nb\n" and reader.damage is None


def test_a_backlog_file_gone_before_its_read_or_cut_short_is_said_and_the_rest_read(tree, caplog):
    """A pod started while the agent was down, its `0.log` rotated twice meanwhile (ranks 7, 8; 10 in `0.log`): its
    first rotated file removed between the first scan and its read (the kubelet past containerLogMaxFiles) is said,
    its lines lost; the next, a .gz cut short (compressed by a third rotation, rank 9), is read to where it ends and
    said; the file is read after them.  Before, both went unsaid and the .gz's lines were lost (gzip.GzipFile raises
    at the read that meets the cut, its bytes with it: here all of them)."""
    root, _, state = tree
    stopped(root, state)
    cdir = new_pod(root, timeout(7))
    rotate(cdir, "20240725-070000", timeout(8))
    rotate(cdir, "20240725-080000", timeout(9))
    rotate(cdir, "20240725-090000", timeout(10))
    src = source(root, state)
    src.discover()
    assert [os.path.basename(b) for b in src.tails[str(cdir / "0.log")].backlog] == [
        "0.log.20240725-070000.gz", "0.log.20240725-080000.gz", "0.log.20240725-090000"]
    (cdir / "0.log.20240725-070000.gz").unlink()
    cut_short(cdir / "0.log.20240725-080000.gz")
    assert [f.rank for _, f in src.poll()] == [8, 9, 10]
    assert "0.log.20240725-070000.gz cannot be opened (gone, or refused)" in caplog.text
    assert "0.log.20240725-080000.gz cannot be read to its end" in caplog.text


def test_a_rotated_gz_cut_short_is_read_to_where_it_ends_and_said(tree, caplog, monkeypatch):
    """The file followed rotated twice while the agent was down: ours a .gz cut short after the offset (ranks 3, 4),
    read on from the offset to where it ends and said; the file after it, a plain one gone before its read, said,
    and `0.log` read.  Before, both went unsaid and ranks 3 and 4 were lost (gzip.GzipFile's read meeting the cut)."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3, 4))
    rotate(cdir, "20240725-070000", timeout(5))
    rotate(cdir, "20240725-080000", timeout(6))
    cut_short(cdir / "0.log.20240725-070000.gz")
    src = source(root, state)
    src.discover()
    real = podlogs.rotated_files
    gone = str(cdir / "0.log.20240725-080000")

    def listed_then_gone(path):  # (the kubelet removes the file between the listing and its read)
        out = real(path)
        if gone in out:
            os.unlink(gone)
        return out

    monkeypatch.setattr(podlogs, "rotated_files", listed_then_gone)
    assert [f.rank for _, f in src.poll()] == [3, 4, 6]
    assert "0.log.20240725-070000.gz cannot be read to its end" in caplog.text
    assert "0.log.20240725-080000 cannot be opened (gone, or refused)" in caplog.text


def test_a_rotated_gz_with_a_zeroed_tail_is_read_whole_and_nothing_said(tree, caplog):
    """The file followed rotated while the agent was down, its .gz padded with zero bytes after its trailer (a crash
    that left the file's last blocks allocated and zeroed, tape or stream padding): read whole, as gzip(1) reads it,
    and nothing said.  Before, the agent's own gzip reader took the zeros for a member's header and warned that the
    rest of its lines were lost (none was); the one reader both the agent and `gpu-npd parse` use
    (parsers/decoded.py) ignores them."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3, 4))
    rotate(cdir, "20240725-070000", timeout(6))
    rotate(cdir, "20240725-080000", timeout(7))
    gz = cdir / "0.log.20240725-070000.gz"
    gz.write_bytes(gz.read_bytes() + bytes(4096))
    ranks, _, _ = first_batch(root, state)
    assert ranks == [3, 4, 6, 7]
    assert "cannot be read" not in caplog.text and "lost" not in caplog.text


# ---- the agent's save while the source's thread runs ------------------------------------------------------------

def held(src: PodLogSource, name: str, monkeypatch) -> tuple[threading.Event, threading.Event]:
    """The source's thread held in its first call of `name` (entered: the first event set) until the second is set."""
    entered, go = threading.Event(), threading.Event()

    def hook(real, self, *args):
        if not entered.is_set():
            entered.set()
            assert go.wait(10)
        return real(self, *args)
    on_instance(monkeypatch, src, name, hook)
    return entered, go


def killed_after_a_save_meanwhile(src: PodLogSource, state: Path, entered: threading.Event, go: threading.Event,
                                  killed: Path) -> list:
    """The source run on its thread; once held, the agent's save (shutdown's, after its drain) and its state copied to
    `killed` (the agent killed right after it); the batches the source sent, none taken by the pipeline."""
    sent: list = []
    stop = threading.Event()

    def emit(batch) -> None:
        sent.append(batch)
        stop.set()

    thread = threading.Thread(target=src.run, args=(emit, stop), daemon=True)
    thread.start()
    assert entered.wait(10)
    src.save()
    shutil.copytree(state, killed)
    go.set()
    stop.set()
    thread.join(10)
    assert not thread.is_alive()
    return sent


def test_a_save_while_the_source_reads_writes_no_offset_past_what_was_sent(tree, tmp_path, monkeypatch):
    """The agent saves the pod source after its drain while the source's thread is reading (its offset moved, the
    findings not yet sent).  The save writes the last safe point the source left, never the offset read: the agent
    killed right after it reads those lines at its next start.  Before, the offset read was written (ranks 3 and 4
    lost)."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", timeout(3, 4))
    src = source(root, state)
    entered, go = held(src, "_feed", monkeypatch)
    sent = killed_after_a_save_meanwhile(src, state, entered, go, tmp_path / "killed")
    assert [[f.rank for _, f in b.items] for b in sent] == [[3, 4]]
    ranks, _, _ = first_batch(root, tmp_path / "killed")
    assert ranks == [3, 4]


def test_a_save_while_the_source_lists_keeps_the_files_not_yet_listed(tree, tmp_path, monkeypatch):
    """The agent saves while the source's first scan is under way (one pod's file followed again, the other's not
    yet): nothing is written before the source's first safe point, so the offsets saved before stay.  Before, the
    half-made table was written, the second pod's offset dropped, and its lines after it lost (a file of a container
    listed then, not saved: history)."""
    root, cdir, state = tree
    side = new_pod(root, timeout(7))
    stopped(root, state)
    append(cdir / "0.log", timeout(3))
    append(side / "0.log", timeout(8))
    src = source(root, state)
    entered, go = held(src, "_add", monkeypatch)
    killed_after_a_save_meanwhile(src, state, entered, go, tmp_path / "killed")
    ranks, _, _ = first_batch(root, tmp_path / "killed")
    assert sorted(ranks) == [3, 8]


# ---- a backlog larger than a poll's batch ------------------------------------------------------------------------

def test_a_backlog_is_read_a_batch_at_a_time_and_saved_where_its_read_stopped(tree, monkeypatch):
    """A backlog holding more findings than a poll's batch is read as a followed file is: a poll stops after the chunk
    that brought MAX_BATCH_FINDINGS (the rest next time), and the state saved then says where in which rotated file its
    read stopped ("backlog_at": bytes, a .gz's decompressed, a partial line pending not counted), so an agent killed
    there reads on from it: every line once, in order.  Before, a poll read the whole backlog at once (up to
    MAX_UNSEEN_BYTES of findings in one batch, where a burst's 10,000 were 13 MiB held at once)."""
    root, _, state = tree
    stopped(root, state)
    monkeypatch.setattr(podlogs, "MAX_BATCH_FINDINGS", 3)
    monkeypatch.setattr(podlogs, "READ_CHUNK", len(timeout(0)) + 7)  # a chunk: about a line, cut mid-line
    cdir = new_pod(root, timeout(*range(10)))
    rotate(cdir, "20240725-070000", timeout(*range(10, 20)))
    rotate(cdir, "20240725-080000", timeout(20, 21))  # the backlog: 0.log.<070000>.gz, then 0.log.<080000>
    src = source(root, state)
    src.discover()
    batches = [[f.rank for _, f in src.poll()] for _ in range(2)]  # (in the .gz still: 10 lines)
    assert all(0 < len(b) <= 4 for b in batches)
    src.save()  # (the pipeline took those batches) then the agent is killed
    saved = saved_state(state)
    assert saved["backlog"] == {str(cdir / "0.log"): ["0.log.20240725-070000.gz", "0.log.20240725-080000"]}
    assert saved["backlog_at"][str(cdir / "0.log")] == len(timeout(*batches[0], *batches[1]))
    assert saved["offsets"][str(cdir / "0.log")][1] == 0
    again = source(root, state)
    again.discover()
    while found := again.poll():
        assert len(found) <= 4
        batches.append([f.rank for _, f in found])
    assert sum(batches, []) == list(range(22))
    again.save()
    assert "backlog" not in saved_state(state) and "backlog_at" not in saved_state(state)


def test_a_pod_deleted_while_its_backlog_is_read_hands_on_what_is_open_and_says_the_rest_lost(tree, monkeypatch,
                                                                                              caplog):
    """A pod deleted (its directory removed by the kubelet) while its backlog is read a batch at a time: the rotated
    file being read, still open, is read to its end and handed on with its last words; the files its deletion took
    before they were opened (the next rotated file, the file itself) are said lost.  Before, the open file's rest was
    closed unread and nothing was said."""
    root, _, state = tree
    stopped(root, state)
    monkeypatch.setattr(podlogs, "MAX_BATCH_FINDINGS", 3)
    monkeypatch.setattr(podlogs, "READ_CHUNK", len(timeout(0)) + 7)
    cdir = new_pod(root, timeout(*range(10)))
    rotate(cdir, "20240725-070000", timeout(*range(10, 20)))
    rotate(cdir, "20240725-080000", timeout(20, 21))  # the backlog: 0.log.<070000>.gz (0-9), 0.log.<080000> (10-19)
    src = source(root, state)
    src.discover()
    ranks = [f.rank for _ in range(2) for _, f in src.poll()]
    assert 0 < len(ranks) < 10  # (in the .gz still)
    shutil.rmtree(cdir.parent)
    src.discover()
    ranks += [f.rank for _, f in src.poll()]
    assert ranks == list(range(10))  # (10-19 and 20, 21: gone unopened)
    assert "pod deleted before 1 rotated files and the file itself were read; their lines are lost" in caplog.text
    assert "cannot be opened" not in caplog.text  # (said once, in that line: not again by the backlog's read)
    assert src.poll() == [] and str(cdir / "0.log") not in src.tails


def test_a_released_file_whose_owed_first_file_is_gone_reads_the_next_from_its_start(tree, caplog):
    """Released (its pod deleted) with its first owed rotated file gone, not opened, and read into before ("backlog_at"
    within it): that file is said once with the rest lost, and the next owed file, still there, is read from its
    start, not from the gone file's offset."""
    root, _, state = tree
    cdir = owed_backlog(root, state)
    data = saved_state(state)
    data["backlog_at"] = {str(cdir / "0.log"): len(timeout(7)) - 2}  # (in 070000.gz: its last line read but its end)
    (state / "podlogs.json").write_text(json.dumps(data))
    src = source(root, state)
    src.discover()
    tail = src.tails[str(cdir / "0.log")]
    assert (tail.backlog_at, tail.reading) == (len(timeout(7)) - 2, None)
    (cdir / "0.log.20240725-070000.gz").unlink()
    assert [f.rank for _, f in src._release(tail)] == [8]
    assert "pod deleted before 1 rotated files and the file itself were read" in caplog.text
    assert "cannot be opened" not in caplog.text


def test_a_backlog_gz_that_stops_decoding_before_backlog_at_is_said_with_the_decoders_reason(tree, caplog):
    """The first owed file a .gz cut in its middle, before the "backlog_at" saved within it: said as not reaching it,
    with why it stopped decoding (parsers/decoded.py `damage`), its lines lost, the rest read.  Was "does not reach the
    N bytes" alone, the same words as an intact file shorter than the offset."""
    root, _, state = tree
    cdir = owed_backlog(root, state)
    at = len(timeout(7)) - 2
    data = saved_state(state)
    data["backlog_at"] = {str(cdir / "0.log"): at}
    (state / "podlogs.json").write_text(json.dumps(data))
    gz = cdir / "0.log.20240725-070000.gz"
    size = len(gz.read_bytes()) // 2
    gz.write_bytes(gz.read_bytes()[:size])
    ranks, _, _ = first_batch(root, state)
    assert ranks == [8, 10]
    assert (f"0.log.20240725-070000.gz does not reach the {at} bytes (gzip stream truncated after {size} compressed "
            "bytes) of its backlog read before; its lines are lost") in caplog.text


@pytest.mark.parametrize("at", ["x", -1, 10**9])
def test_a_damaged_or_wrong_backlog_at_loses_no_other_file(tree, at, caplog):
    """A "backlog_at" not an offset is dropped alone (said; the first owed file read from its start); one past the
    first owed file's end is said, that file's lines lost, the rest of the backlog and the file read."""
    root, _, state = tree
    cdir = owed_backlog(root, state)
    data = saved_state(state)
    data["backlog_at"] = {str(cdir / "0.log"): at}
    (state / "podlogs.json").write_text(json.dumps(data))
    ranks, _, _ = first_batch(root, state)
    if at == 10**9:
        assert ranks == [8, 10] and "does not reach the 1000000000 bytes of its backlog" in caplog.text
    else:
        assert ranks == [7, 8, 10] and "cannot be restored" in caplog.text



# kubernetes-sigs/dra-driver-nvidia-gpu#298 quotes the IMEX daemon's line whole (tests/fixtures/realworld/
# imex-errors-2026h.yaml); its CRI envelope and times constructed, in the container of the DRA driver's ComputeDomain
# daemon (templates/compute-domain-daemon.tmpl.yaml): a node fault a daemon pod said, counted in gpu_npd_findings_total,
# whose totals are saved with the state (one finding a line: the row joins no lines)
NO_INTERFACE = ("2026-01-20T10:{m:02d}:{s:02d}.{n:09d}Z stderr F No matching network interface found for any IP "
                "addresses in the node configuration file /etc/nvidia-imex/nodes_config.cfg.\n")
DAEMON_DIR = "nvidia-dra-driver-gpu_imex-channel-cd-x7k2p_5e0b7c1d-2a3f-4b6c-9d8e-1f2a3b4c5d6e"


def followed(tmp_path: Path, log: Path) -> Path:
    """The configuration of a real agent following the pod logs above `log` (made, empty); its path."""
    import yaml

    log.parent.mkdir(parents=True)
    log.touch()
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"nvml": "off", "pod_logs_root": str(log.parents[2])}))
    return conf


def killed(a) -> None:
    """A real agent killed with SIGKILL: no drain, no save."""
    a.proc.kill()
    a.proc.wait(5)
    os.close(a.writer)


def _imex_findings(a) -> float | None:
    """The daemon's IMEX errors the agent counted (gpu_npd_findings_total, restored from the state's totals)."""
    return a.value("gpu_npd_findings_total", kind="imex_error", severity="error", attribution="fabric")


@pytest.mark.slow
def test_kill_9_while_a_pod_log_batch_is_processed_counts_every_finding_once(tmp_path):
    """SIGKILL at random moments while bursts of pod findings (batches of up to MAX_BATCH_FINDINGS, each processed
    over several turns of the loop) are read, the agent started again each time: the count is then what one
    uninterrupted run counts, each line once.  Before, the state (its counters' totals) and the pod logs' offsets were
    two files written apart: a tick between a batch's turns saved the counts of its processed slices while the offsets
    stood before the batch (acknowledged as a whole, saved every 2 s), so the next start read it again and counted it
    again; and offsets saved before the state that counted them lost those counts."""
    import random

    from harness import AgentProc

    log = tmp_path / "pods" / DAEMON_DIR / "compute-domain-daemon" / "0.log"
    conf = followed(tmp_path, log)

    rnd, written = random.Random(11), 0

    def burst(n: int) -> None:
        nonlocal written
        append(log, "".join(NO_INTERFACE.format(m=i // 60 % 60, s=i % 60, n=i) for i in range(written, written + n)))
        written += n

    a = AgentProc(tmp_path, "--config", str(conf))
    try:
        a.wait_pods_listed()  # (the empty file followed from its start)
        for _ in range(6):
            for _ in range(3):
                burst(rnd.randrange(500, 3000))
                time.sleep(rnd.uniform(0.0, 0.5))
            killed(a)
            a = AgentProc(tmp_path, "--config", str(conf))
        a.wait_for(lambda: (_imex_findings(a) or 0) >= written, timeout=60,
                   what=f"{written} findings, not {_imex_findings(a)}")
        time.sleep(2.5)  # a pod-log save's period: nothing more trickles in
        assert _imex_findings(a) == written
        assert a.stop()[0] == 0
    finally:
        if a.proc.poll() is None:
            a.proc.kill()
            a.proc.wait(5)


# ---- a launcher's exit summary held across a restart ------------------------------------------------------------
# REAL lines, verbatim, in CRI envelopes whose times are constructed: torchrun's ChildFailedError summary of
# vllm-project/speculators #1115 (tests/fixtures/incidents/speculators-1115-root-cause: its Root Cause names rank 1),
# Slurm's OOM summary then srun's line naming its node of chrisknewman/tusas #149
# (tests/fixtures/incidents/h539_tusas-149-slurm-oom-node)
INCIDENTS = Path(__file__).parents[1] / "fixtures" / "incidents"
SPECULATORS_1115 = (INCIDENTS / "speculators-1115-root-cause" / "logs" / "torchrun.log").read_text().splitlines()
# up to the Root Cause's opener and its "[0]:": the rank's fields come later
HELD = SPECULATORS_1115.index("Root Cause (first observed failure):") + 2
TUSAS_149 = (INCIDENTS / "h539_tusas-149-slurm-oom-node" / "logs" / "srun.log").read_text().splitlines()


def cri_lines(texts: list[str], minute: int = 3) -> str:
    return "".join(f"2026-09-07T13:{minute:02d}:29.{i:09d}Z stderr F {x}\n" for i, x in enumerate(texts))


def facts(found) -> list[tuple]:
    """The summaries' facts among a read's findings: (kind, rank, host, the line quoted)."""
    return [(f.kind, f.rank, f.details.get("host"), f.message) for _, f in found
            if f.kind in ("rank_exit", "job_ended")]


def held_when_stopped(root: Path, cdir: Path, state: Path, lines: list[str]) -> None:
    """An agent that read `lines` (a summary's opener among its last: its block held, awaiting the lines after it),
    saved, and stopped: the offset saved is past them."""
    stopped(root, state)
    append(cdir / "0.log", cri_lines(lines))
    src = source(root, state)
    src.discover()
    assert facts(src.poll()) == []
    assert src.tails[str(cdir / "0.log")].block is not None
    src.save()
    assert saved_state(state)["offsets"][str(cdir / "0.log")][1] == (cdir / "0.log").stat().st_size


ROOT_CAUSE = ("rank_exit", 1, "localhost", "  rank      : 1 (local_rank: 1)")


@pytest.mark.parametrize("rotated", [None, "in the rotated file", "in the new file"])
def test_a_summary_held_when_the_agent_stopped_is_read_on_at_its_next_start(tree, rotated):
    """The agent stopped (a rollout, a SIGKILL after its last save) while it held torchrun's Root Cause block for its
    rank's fields: the block's lines, saved with the offset past them ("held"), are read on at the next start with
    the lines after the offset (the same file grown, or the file rotated meanwhile, the rest in its rotated file or in
    the new one): the root cause published once.  Before, the saved offset was past the block's lines and nothing held
    them: its fields read alone named no one, the summary was lost."""
    root, cdir, state = tree
    held_when_stopped(root, cdir, state, SPECULATORS_1115[:HELD])
    rest = cri_lines(SPECULATORS_1115[HELD:])
    if rotated is None:
        append(cdir / "0.log", rest)
    else:
        if rotated == "in the rotated file":
            append(cdir / "0.log", rest)
        rotate(cdir, "20260907-130400", rest if rotated == "in the new file" else "")
    src = source(root, state)
    src.discover()
    assert facts(src.poll()) == [ROOT_CAUSE]
    src.save()
    assert "block" not in saved_held(state, cdir / "0.log")  # (a window read for exceptions may stay: tracebacks before)
    assert facts(src.poll(time.monotonic() + podlogs.BLOCK_WAIT)) == []
    again = source(root, state)  # (started again after: nothing is said twice)
    again.discover()
    assert facts(again.poll(time.monotonic() + podlogs.BLOCK_WAIT)) == []


def test_slurms_oom_summary_held_when_the_agent_stopped_names_sruns_node_read_at_its_next_start(tree):
    """Slurm's OOM summary held for srun's line naming its node (up to SRUN_LINES lines, or BLOCK_WAIT): read on
    at the next start with srun's line, the node named; with no line after it, published as it stands once its file
    was quiet BLOCK_WAIT, once."""
    root, cdir, state = tree
    held_when_stopped(root, cdir, state, TUSAS_149[:1])
    append(cdir / "0.log", cri_lines(TUSAS_149[1:]))
    src = source(root, state)
    src.discover()
    src.poll()
    said = [x for x in facts(src.poll(time.monotonic() + podlogs.BLOCK_WAIT)) if x[0] == "job_ended"]
    assert said == [("job_ended", None, "nid001277", TUSAS_149[0])]


def test_a_summary_held_alone_is_published_once_its_file_was_quiet_after_the_restart(tree):
    root, cdir, state = tree
    held_when_stopped(root, cdir, state, TUSAS_149[:1])
    src = source(root, state)
    src.discover()
    assert facts(src.poll()) == []  # (the file quiet for less than BLOCK_WAIT since the start)
    assert facts(src.poll(time.monotonic() + podlogs.BLOCK_WAIT)) == [("job_ended", None, None, TUSAS_149[0])]
    assert facts(src.poll(time.monotonic() + 2 * podlogs.BLOCK_WAIT)) == []


def test_a_summary_held_by_a_file_gone_while_the_agent_was_down_is_its_last_words(tree, monkeypatch):
    """The pod deleted while the agent was down (its file gone with it): the block saved is read as it stands at the
    first scan, as a deleted pod's file's last words are while it is followed; from its path, pod and lines alone (no
    classifier stream built for a file never followed again: one was, to be thrown away)."""
    root, cdir, state = tree
    held_when_stopped(root, cdir, state, TUSAS_149[:1])
    shutil.rmtree(cdir.parent)
    src = source(root, state)
    streams = []
    on_instance(monkeypatch, src._classifier, "for_stream",
                lambda for_stream, self, *a, **k: streams.append(1) or for_stream(self, *a, **k))
    src.discover()
    assert streams == []
    found = src.poll()
    assert facts(found) == [("job_ended", None, None, TUSAS_149[0])]
    assert found[0][0] == REF and found[0][1].file == str(cdir / "0.log")
    src.save()
    assert "held" not in saved_state(state)


@pytest.mark.parametrize("bad", ["x", {"a": "x"}, {"a": {"block": [1]}}])
def test_damaged_blocks_are_dropped_alone(tree, bad, caplog):
    root, cdir, state = tree
    held_when_stopped(root, cdir, state, SPECULATORS_1115[:HELD])
    data = saved_state(state)
    data["held"] = bad if isinstance(bad, str) else {**data["held"], **bad}
    (state / "podlogs.json").write_text(json.dumps(data))
    append(cdir / "0.log", cri_lines(SPECULATORS_1115[HELD:]))
    src = source(root, state)
    src.discover()
    assert facts(src.poll()) == ([] if bad == "x" else [ROOT_CAUSE])
    assert "cannot be restored" in caplog.text


def test_a_held_blocks_lines_are_saved_bounded(tree):
    root, cdir, state = tree
    held_when_stopped(root, cdir, state, [*SPECULATORS_1115[:HELD - 1], "x" * (2 * podlogs.BLOCK_CHARS)])
    assert [len(x) for x in saved_held(state, cdir / "0.log")["block"]][-1] == podlogs.BLOCK_CHARS


# ---- a traceback held across a restart ------------------------------------------------------------------------
# REAL lines, verbatim, in CRI envelopes whose times are constructed: SGLang's TP0 scheduler record of sgl-project/sglang
# #3713 (tests/fixtures/incidents/sglang-3713-tp0-illegal-access: its traceback's lines carry no prefix, its CUDA error
# rank 0's), Ray's header of a task's error and the task's traceback of PeterGriffinJin/Search-R1 #61
# (tests/fixtures/incidents/search-r1-61-verl-ray-task-illegal-access: its CUDA error pid 838798's, on 10.138.0.27),
# rank 1's traceback of huggingface/accelerate #3206 (tests/fixtures/incidents/accelerate-3206-rng-state: its
# RuntimeError the job fact "exception", rank 1's)
TRACEBACKS = {name: (INCIDENTS / name / "logs" / log).read_text().splitlines() for name, log in (
    ("sglang-3713-tp0-illegal-access", "server.log"), ("search-r1-61-verl-ray-task-illegal-access", "driver.log"),
    ("accelerate-3206-rng-state", "train.log"))}
# each incident's failure as one uninterrupted read says it: (kind, rank, pid, the Ray task's pid and node, exception)
FAILURES = {"sglang-3713-tp0-illegal-access": ("cuda_error", 0, None, None, None, None),
            "search-r1-61-verl-ray-task-illegal-access": ("cuda_error", None, 838798, 838798, "10.138.0.27", None),
            "accelerate-3206-rng-state": ("exception", 1, None, None, None, "RuntimeError")}


def told(found) -> list[tuple]:
    """A read's findings as they are told, their line numbers aside (a restarted agent numbers its lines anew): kind,
    rank, pid, the Ray task's pid and node, the exception, the line."""
    return sorted(((f.kind, f.rank, f.pid, f.details.get("task_pid"), f.details.get("task_host"),
                    f.details.get("exception"), f.message) for _, f in found), key=repr)


def read_across_a_restart(base: Path, lines: list[str], cut: int) -> list:
    """An agent that read `lines[:cut]` (the file's lines before them history), saved and stopped; the rest written,
    the agent started again: what both reads handed on."""
    root, state = base / "pods", base / "state"
    log = root / POD_DIR / "main" / "0.log"
    log.parent.mkdir(parents=True)
    log.write_text(timeout(1))
    stopped(root, state)
    append(log, cri_lines(lines[:cut]))
    src = source(root, state)
    src.discover()
    found = src.poll()
    src.save()
    append(log, cri_lines(lines[cut:], minute=4))
    again = source(root, state)
    again.discover()
    return found + again.poll()


@pytest.mark.parametrize("name", sorted(TRACEBACKS))
def test_a_traceback_cut_by_a_restart_anywhere_is_told_as_one_read_tells_it(tmp_path, name):
    """The agent stopped after any line of a traceback it held for its later lines (an SGLang record whose lines carry
    no prefix: `_Tail.record`; Ray's header of a task's error: `task`; a window read for its exceptions: `traced`):
    what it held is saved with the offset past its lines ("held") and read on at the next start, the failure told as
    one uninterrupted read tells it, once.  Before, all three were lost with the process: SGLang's CUDA error named no
    rank, Ray's no task process and node, and rank 1's RuntimeError was not published at all."""
    lines = TRACEBACKS[name]
    whole = told(read_across_a_restart(tmp_path / "whole", lines, len(lines)))
    assert [x[:6] for x in whole if x[0] in ("cuda_error", "exception")] == [FAILURES[name]]
    for cut in range(1, len(lines)):
        assert told(read_across_a_restart(tmp_path / str(cut), lines, cut)) == whole, cut


def test_a_ray_task_behind_its_drivers_prefix_cut_by_a_restart_is_the_tasks(tmp_path):
    """The task's writer (its prefixes, "(Runner pid=104449)") is saved with it: after the restart the exception of
    the same writer ends the task's traceback, another writer's line between them does not.  Lines: hiyouga/EasyR1
    #9's header and frames (REAL), its exception line SYNTHETIC (tests/agent/test_workloads.py EASYR1_9)."""
    from test_workloads import EASYR1_9

    for cut in range(1, len(EASYR1_9)):
        found = read_across_a_restart(tmp_path / str(cut), EASYR1_9, cut)
        assert [(f.kind, f.pid, f.rank, f.details.get("task_host")) for _, f in found] == [
            ("cuda_error", 118847, None, "10.130.71.7")], cut


@pytest.mark.parametrize("bad", ["x", {"a": "x"}, {"a": {"record": [0, 5, True]}}, {"a": {"record": [-1, 0, True]}},
                                 {"a": {"task": [1, "h", [["rank", [1]]], 0]}}, {"a": {"traced": [0, "x"]}},
                                 {"a": {"traced": [0, ["x"]], "block": "x"}}])
def test_damaged_held_entries_are_dropped_alone_with_one_warning(tree, bad, caplog):
    """A saved context not of its type (a line after the offset, a negative rank, a prefix's value not text nor a
    number, lines not a list) is dropped with its file's entry alone, said in one warning; the others read on."""
    root, cdir, state = tree
    lines = TRACEBACKS["sglang-3713-tp0-illegal-access"]
    stopped(root, state)
    append(cdir / "0.log", cri_lines(lines[:13]))
    src = source(root, state)
    src.discover()
    src.poll()
    src.save()
    data = saved_state(state)
    data["held"] = bad if isinstance(bad, str) else {**data["held"], **bad}
    (state / "podlogs.json").write_text(json.dumps(data))
    append(cdir / "0.log", cri_lines(lines[13:], minute=4))
    again = source(root, state)
    again.discover()
    assert [f.rank for _, f in again.poll() if f.kind == "cuda_error"] == [None if bad == "x" else 0]
    assert len([r for r in caplog.records if "cannot be restored" in r.getMessage()]) == 1


def test_a_held_traceback_window_is_saved_and_loaded_bounded(tree):
    """A window read for exceptions is saved as its last lines, at most TRACEBACK_LINES, each cut to TRACED_CHARS,
    within TRACED_SAVED_CHARS in all (a pod printing frames without end costs the state file no more); a saved one
    past them is loaded as far as they reach."""
    root, cdir, state = tree
    frames = TRACEBACKS["accelerate-3206-rng-state"][:12]  # (SYNTHETIC: its frame lines repeated, made long)
    lines = [*(f"{x} {'x' * 300}" for x in frames * 40), frames[0] + "x" * (2 * podlogs.TRACED_CHARS)]
    stopped(root, state)
    append(cdir / "0.log", cri_lines(lines))
    src = source(root, state)
    src.discover()
    src.poll()
    src.save()
    last, saved = saved_held(state, cdir / "0.log")["traced"]
    assert last == 0 and len(saved) <= TRACEBACK_LINES and max(map(len, saved)) == podlogs.TRACED_CHARS
    assert podlogs.TRACED_SAVED_CHARS - podlogs.TRACED_CHARS < sum(map(len, saved)) <= podlogs.TRACED_SAVED_CHARS
    assert saved[-1] == src.tails[str(cdir / "0.log")].traced.lines[-1]
    data = saved_state(state)
    data["held"][str(cdir / "0.log")]["traced"][1] = ["x" * 5000] * 1000
    (state / "podlogs.json").write_text(json.dumps(data))
    loaded = source(root, state)._held[str(cdir / "0.log")].traced[1]
    assert len(loaded) == podlogs.TRACED_SAVED_CHARS // podlogs.TRACED_CHARS and {len(x) for x in loaded} == {1024}


def test_an_idle_traceback_windows_saved_lines_are_not_cut_again_at_each_snapshot(tree, monkeypatch):
    """The source's state snapshot, taken at every turn of its loop (four a second idle), takes a window's saved lines
    (`_last_lines`: up to TRACEBACK_LINES lines cut) only once a line was added to it: a crashed pod's log that ends
    in its traceback holds its window open for good, and 110 such windows of 400 lines cost 6.4 ms a snapshot (26 ms
    a second of an idle agent's CPU), 51 us once kept.  What is saved is the same."""
    root, cdir, state = tree
    stopped(root, state)
    append(cdir / "0.log", cri_lines(TRACEBACKS["accelerate-3206-rng-state"][:12]))
    src = source(root, state)
    src.discover()
    src.poll()
    cuts = []
    last_lines = podlogs._last_lines
    monkeypatch.setattr(podlogs, "_last_lines", lambda lines: cuts.append(1) or last_lines(lines))
    path = str(cdir / "0.log")
    first, second = (src._snapshot()["held"][path]["traced"][1] for _ in range(2))
    assert cuts == [1] and second is first and first == last_lines(src.tails[path].traced.lines)
    append(cdir / "0.log", cri_lines(TRACEBACKS["accelerate-3206-rng-state"][12:14]))
    src.poll()
    third = src._snapshot()["held"][path]["traced"][1]
    assert cuts == [1, 1] and third[-2:] != first[-2:] and third == last_lines(src.tails[path].traced.lines)


def _said(tmp_path: Path, reason: str) -> list[dict]:
    """The workload Events of `reason` every agent run in `tmp_path` wrote to its stdout (AgentProc's files)."""
    out = []
    for path in sorted(tmp_path.glob("stdout-*.log")):
        for text in path.read_text().splitlines():
            try:
                line = json.loads(text)
            except ValueError:
                continue
            if line.get("event") == "workload" and line.get("reason") == reason:
                out.append(line)
    return out


@pytest.mark.slow
def test_kill_9_while_a_summary_is_held_publishes_its_root_cause_once(tmp_path):
    """A real agent killed (SIGKILL: no drain, no save) while it holds torchrun's Root Cause block, its offset saved
    past the block's lines; started again, the rank's fields written then: the RankExited Event is said once across
    both runs, counted once.  Before, none (the block lost with the process)."""
    from harness import AgentProc

    log = tmp_path / "pods" / POD_DIR / "main" / "0.log"
    conf = followed(tmp_path, log)

    def offset() -> int | None:
        try:
            return json.loads((tmp_path / "state" / "state.json").read_text())["pod_logs"]["offsets"][str(log)][1]
        except (OSError, ValueError, KeyError):
            return None

    a = AgentProc(tmp_path, "--config", str(conf))
    try:
        a.wait_pods_listed()
        append(log, cri_lines(SPECULATORS_1115[:HELD]))
        a.wait_for(lambda: offset() == log.stat().st_size, timeout=20, what="the block's lines read and saved")
        killed(a)
        a = AgentProc(tmp_path, "--config", str(conf))
        append(log, cri_lines(SPECULATORS_1115[HELD:]))
        a.wait_for(lambda: _said(tmp_path, "RankExited"), timeout=20, what="the RankExited Event")
        time.sleep(podlogs.BLOCK_WAIT / 4)  # (a save's period and more: nothing more comes)
        said = _said(tmp_path, "RankExited")
        assert len(said) == 1 and "(rank 1; local rank 1; host localhost" in said[0]["message"], said
        assert a.value("gpu_npd_workload_findings_total", namespace="train", kind="rank_exit") == 1
        assert a.stop()[0] == 0
    finally:
        if a.proc.poll() is None:
            a.proc.kill()
            a.proc.wait(5)


@pytest.mark.slow
@pytest.mark.parametrize("name, cut, reason, words", [
    ("accelerate-3206-rng-state", 12, "RankException", "(rank 1; exception RuntimeError)"),
    ("sglang-3713-tp0-illegal-access", 13, "CUDAIllegalAddress", "encountered' on rank 0:"),
])
def test_kill_9_inside_a_traceback_publishes_its_failure_once_with_its_writer(tmp_path, name, cut, reason, words):
    """A real agent killed (SIGKILL: no drain, no save) inside a traceback, its offset saved past the lines read (rank
    1's frames awaiting their exception; SGLang's TP0 record awaiting the exception its unprefixed lines end); started
    again, the rest written then: the failure's Event is said once across both runs, naming its writer.  Before, rank
    1's RuntimeError was not said at all (the window of its frames lost), SGLang's CUDA error named no rank."""
    from harness import AgentProc

    log = tmp_path / "pods" / POD_DIR / "main" / "0.log"
    conf = followed(tmp_path, log)
    lines = TRACEBACKS[name]

    def saved() -> dict:
        try:
            return json.loads((tmp_path / "state" / "state.json").read_text())["pod_logs"]
        except (OSError, ValueError, KeyError):
            return {}

    a = AgentProc(tmp_path, "--config", str(conf))
    try:
        a.wait_pods_listed()
        append(log, cri_lines(lines[:cut]))
        a.wait_for(lambda: saved().get("offsets", {}).get(str(log), [0, 0])[1] == log.stat().st_size, timeout=20,
                   what="the traceback's lines read and saved")
        killed(a)
        a = AgentProc(tmp_path, "--config", str(conf))
        append(log, cri_lines(lines[cut:], minute=4))
        a.wait_for(lambda: _said(tmp_path, reason), timeout=20, what=f"the {reason} Event")
        time.sleep(2.5)  # (a save's period and more: nothing more comes)
        said = _said(tmp_path, reason)
        assert len(said) == 1 and words in said[0]["message"], said
        assert a.stop()[0] == 0
    finally:
        if a.proc.poll() is None:
            a.proc.kill()
            a.proc.wait(5)
