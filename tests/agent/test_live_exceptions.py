"""A rank's Python exception read live (agent/sources/podlogs.py `_tracebacks`, triage.read.traceback_facts): the
exceptions `FileReader` reads as failures, read in a pod's log by windows from a traceback's header or frame line on,
published as the job fact "exception" (RankException), read back by the cluster."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from agent.metrics import Metrics
from agent.sources import podlogs
from agent.sources.podlogs import MAX_TRACED, PodLogSource
from agent.workloads import WorkloadTracker
from triage import Clock, read_lines
from triage.facts import LIVE, LIVE_KEYWORDS, read_words
from triage.read import WITNESSED_CONSEQUENCES, FileReader, job_fact

INCIDENTS = Path(__file__).parents[1] / "fixtures" / "incidents"
POD = "train_llm-w-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
# huggingface/accelerate #3206 (REAL, tests/fixtures/incidents/accelerate-3206-rng-state, verbatim): rank 1's traceback,
# its header not in the excerpt, then the launcher's report of local rank 0's exit and its own traceback's header
RNG = (INCIDENTS / "accelerate-3206-rng-state" / "logs" / "train.log").read_text().splitlines()


def _cri(lines: list[str]) -> str:
    return "".join(f"2024-10-31T15:43:28.{i % 10**9:09d}Z stderr F {line}\n" for i, line in enumerate(lines))


def _source(root: Path, lines: list[str]) -> tuple[PodLogSource, Path]:
    log = root / POD / "main" / "0.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(_cri(lines))
    src = PodLogSource(str(root), from_start=True)
    src.discover()
    _OPENED.append(src)
    return src, log


# the sources `_source` made, closed after each test (`_closed`): a test reading 239 incidents opened ~270 descriptors a
# run and closed none, and a pytest worker past 1,024 failed tests/offline's select() on a pipe ("filedescriptor out of
# range in select()")
_OPENED: list[PodLogSource] = []


@pytest.fixture(autouse=True)
def _closed():
    yield
    while _OPENED:
        _OPENED.pop().close()


def _exceptions(found) -> list[tuple[int, int | None, str]]:
    return [(f.line, f.rank, f.details.get("exception")) for _, f in found if f.kind == "exception"]


def _said_live(e) -> bool:
    """An exception `FileReader` reads as a failure that the agent says live: not chained after its chain's first, no
    stop (a warning), and of a consequence only one whose type says the job's processes failed (its writer the
    witness: WITNESSED_CONSEQUENCES)."""
    return (e.kind == "exception" and e.severity == "error" and not e.details.get("chained_from") and
            (not e.details.get("consequence") or bool(WITNESSED_CONSEQUENCES.search(e.details.get("exception", "")))))


def _offline(lines: list[str]) -> list[tuple[int, int | None, str]]:
    """The exceptions offline reads as failures that the agent says live (`_said_live`)."""
    return sorted((e.line, e.rank, e.details.get("exception")) for e in read_lines(lines, "train.log", Clock())
                  if _said_live(e))


def _consequences(lines: list[str]) -> list[int]:
    return sorted(e.line for e in read_lines(lines, "train.log", Clock()) if _said_live(e) and e.details.get("consequence"))


def test_a_ranks_headerless_traceback_is_published_as_its_exception_and_read_back(tmp_path):
    """accelerate-3206-rng-state: rank 1's RuntimeError ends frames whose header the excerpt lacks; the agent reads it
    as offline does (its writer rank 1, the application's), says it as a RankException Event whose words the cluster
    reads back; the launcher's exit after it is its own job fact (RankExited). Was: the exit alone, undetermined."""
    src, _ = _source(tmp_path / "pods", RNG)
    found = src.poll()
    assert _exceptions(found) == [(13, 1, "RuntimeError")]
    ref, f = next((ref, f) for ref, f in found if f.kind == "exception")
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == "RankException"
    assert ev.message.startswith("A rank raised an exception that is no consequence of another's failure "
                                 "(rank 1; exception RuntimeError)")
    row, fields = read_words(ev.reason, ev.message)
    assert row is LIVE["exception"] and fields == {"rank": 1, "exception": "RuntimeError"}


@pytest.mark.parametrize("chunk", [podlogs.READ_CHUNK, 512])
def test_every_incidents_failure_exceptions_are_read_live_as_offline(tmp_path, monkeypatch, chunk):
    """Every real incident's log, as one pod's output: the exceptions the agent publishes are those `FileReader`
    reads as failures (chains, consequence types, facts and parsers' kinds of their text left out alike), each once,
    also with reads of 512 bytes that cut windows and tracebacks anywhere (`_Tail.traced` read on)."""
    monkeypatch.setattr(podlogs, "READ_CHUNK", chunk)
    compared = 0
    for i, path in enumerate(sorted(p for p in INCIDENTS.glob("*/logs/**/*") if p.is_file())):
        lines = path.read_bytes().decode("utf-8", "replace").splitlines()
        src, _ = _source(tmp_path / f"pods-{i}", lines)
        live, consequences = [], []
        while found := src.poll():
            live += _exceptions(found)
            consequences += [f.line for _, f in found if f.kind == "exception" and f.details.get("consequence")]
        offline = _offline(lines)
        assert sorted(live) == offline, path
        assert sorted(consequences) == _consequences(lines), path
        compared += bool(offline)
    assert compared >= 1


# ray-project/ray #53845 and #59249 (REAL, tests/fixtures/incidents/ray-*-vllm-cgraph-timeout, verbatim): vLLM's engine
# core's traceback ending in Ray's RayChannelTimeoutError, a consequence (the compiled graph's workers failed or stalled)
CGRAPH = {name: (INCIDENTS / name / "logs" / "engine.log").read_text().splitlines()
          for name in ("ray-53845-vllm-cgraph-timeout", "ray-59249-vllm-cgraph-timeout")}
WITNESS = "A rank raised an exception that says the failure is elsewhere"


def _found(root: Path, lines: list[str], kind: str):
    src, _ = _source(root, lines)
    found = []
    while more := src.poll():
        found += [(ref, f) for ref, f in more if f.kind == kind]
    return found


@pytest.mark.parametrize("name", sorted(CGRAPH))
def test_a_consequence_alone_is_published_as_its_writers_witness_and_read_back_as_one(tmp_path, name):
    """The engine core's RayChannelTimeoutError is the only failure logged: offline `undetermined`, the engine core
    its reporter.  The agent reads it as offline (a consequence) and says it in its witness's words (`told`), which
    the cluster reads back as a consequence (triage.attribute is_consequence).  Was: not published (no incident
    live)."""
    from cluster.evidence import Reader
    from triage import is_consequence

    ((ref, f),) = _found(tmp_path / "pods", CGRAPH[name], "exception")
    assert f.details["consequence"] is True and f.details["exception"] == "ray.exceptions.RayChannelTimeoutError"
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == "RankException" and ev.message.startswith(WITNESS)
    row, fields = read_words(ev.reason, ev.message)
    assert row is LIVE["exception"] and fields["consequence"] is True
    (e,) = Reader().pod_event({"reason": ev.reason, "message": ev.message, "source": {"host": "node-a"},
                               "involvedObject": {"kind": "Pod", "name": ref.pod}})
    assert e.kind == "exception" and is_consequence(e) and e.attribution == "unknown"


def test_a_jobs_consequences_add_no_event_where_its_node_said_the_failure(tmp_path):
    """A large job's one fault: every rank raises a consequence.  On a node, the job's first is said once, where
    nothing else of the failure was (8 pods: one Event, no count raised by the others); a node that said the job's NCCL
    timeout (XPixelGroup/BasicSR #737's watchdog line, REAL) says no consequence; the job's exception that is no
    consequence (accelerate #3206's rank 1) takes the witness's place (one Event per job and reason); a later failure
    (past the window) is said again, and another job's on the node is its own."""
    from dataclasses import replace
    from datetime import timedelta

    from parsers.model import PodRef

    ((ref, cons),) = _found(tmp_path / "cgraph", CGRAPH["ray-53845-vllm-cgraph-timeout"], "exception")
    pods = [PodRef(ref.namespace, f"llm-w-{i}", f"uid-{i}", "main") for i in range(8)]
    tracker = WorkloadTracker(Metrics())
    events = [tracker.observe(p, replace(cons)) for p in pods]
    assert events[0] is not None and events[0].message.startswith(WITNESS) and events[1:] == [None] * 7
    # the node said the job's timeout first: its ranks' consequences add nothing
    nccl = (INCIDENTS / "basicsr-737" / "logs" / "train.log").read_text().splitlines()[:1]
    ((_, timeout),) = _found(tmp_path / "nccl", nccl, "nccl_timeout")
    tracker = WorkloadTracker(Metrics())
    assert tracker.observe(pods[0], replace(timeout, timestamp=cons.timestamp)) is not None
    assert [tracker.observe(p, replace(cons)) for p in pods] == [None] * 8
    # the witness gives way to the job's exception that names its culprit, on the same Event
    ((_, named),) = _found(tmp_path / "rng", RNG, "exception")
    tracker = WorkloadTracker(Metrics())
    witness = tracker.observe(pods[0], replace(cons))
    own = tracker.observe(pods[1], replace(named, timestamp=cons.timestamp))
    assert own.key == witness.key and own.message.startswith("A rank raised an exception that is no consequence")
    assert tracker.observe(pods[2], replace(cons)) is None
    # a later failure of the job, and another job's
    later = replace(cons, timestamp=cons.timestamp + timedelta(seconds=2 * tracker.window))
    assert tracker.observe(pods[3], later).message.startswith(WITNESS)
    other = PodRef(ref.namespace, "eval-w-0", "uid-e", "main")
    assert tracker.observe(other, replace(cons)).message.startswith(WITNESS)


class _NoWalk(dict):
    """A table a consequence's question must not walk (each of its keys compared): read by key only."""

    def items(self):
        raise AssertionError("walked every key remembered")

    __iter__ = keys = values = items


def test_a_consequence_asks_its_own_jobs_events_not_every_key_remembered(tmp_path):
    """Whether a job spoke on the node (`_spoke`) compared the consequence with each of up to 2x1,024 keys remembered,
    every consequence line of a 1,000-rank job; now with its job's keys alone (`_jobs`, forgotten with the keys, so
    within MAX_JOBS, evictions counted), the answers the same: a job that said its timeout says no consequence, a job
    that said nothing says its witness."""
    from dataclasses import replace

    from agent.workloads import MAX_JOBS
    from parsers.model import PodRef

    ((ref, cons),) = _found(tmp_path / "cgraph", CGRAPH["ray-53845-vllm-cgraph-timeout"], "exception")
    nccl = (INCIDENTS / "basicsr-737" / "logs" / "train.log").read_text().splitlines()[:1]
    ((_, timeout),) = _found(tmp_path / "nccl", nccl, "nccl_timeout")
    tracker = WorkloadTracker(Metrics())
    for j in range(MAX_JOBS + 50):  # more jobs than are remembered: the oldest forgotten, their index with them
        tracker.observe(PodRef(ref.namespace, f"job{j}-w-0", f"uid-{j}", "main"), replace(timeout, timestamp=cons.timestamp))
    assert tracker.evictions == 50 and len(tracker._ranks) == MAX_JOBS
    assert sorted(k for keys in tracker._jobs.values() for k in keys) == sorted(tracker._ranks)
    tracker._quote, tracker._said = _NoWalk(tracker._quote), _NoWalk(tracker._said)
    spoke = PodRef(ref.namespace, f"job{MAX_JOBS}-w-3", "uid-x", "main")
    assert tracker.observe(spoke, replace(cons)) is None
    gone = PodRef(ref.namespace, "job0-w-3", "uid-y", "main")  # its timeout's key forgotten: nothing said, as it reads
    assert tracker.observe(gone, replace(cons)).message.startswith(WITNESS)
    assert tracker.observe(replace(gone, pod="job0-w-4"), replace(cons)) is None  # the witness said: its job spoke


def test_tracebacks_behind_torchs_header_and_after_dynamos_announcement_are_read_live_as_offline(tmp_path):
    """tests/triage/test_triage.py's REAL lines: rank 1's traceback behind torch._logging's ERROR header (its exception
    line CONSTRUCTED) is published; TorchDynamo's "WON'T CONVERT" opens the window too, so the traceback it announces
    handled, two lines on, is not (was: the window opened at the traceback's header, its TypeError published live
    while offline read none); so does Python's "Exception ignored in:" (DATALOADER_DEL_IGNORED, REAL) and its logging's
    "--- Logging error ---" (LOGGING_ERROR_FORMAT, REAL); a traceback multiprocessing's finalizer loop printed (its
    `_run_finalizers` frame: FINALIZER_SEM_UNLINK, REAL) is no failure live either."""
    from tests.triage.test_triage import (DATALOADER_DEL_IGNORED, DYNAMO_WONT_CONVERT, FINALIZER_SEM_UNLINK,
                                          LOGGING_ERROR_FORMAT, TORCH_LOGGED)
    header = TORCH_LOGGED[-1].split("]     ")[0] + "] "
    for i, lines in enumerate(([*TORCH_LOGGED, header + "AssertionError: Tensor-likes are not close!"],
                               ["step 1 loss 2.31", *DYNAMO_WONT_CONVERT, "step 2 loss 2.29"],
                               ["step 1 loss 2.31", *DATALOADER_DEL_IGNORED, "step 2 loss 2.29"],
                               ["step 1 loss 2.31", *LOGGING_ERROR_FORMAT, "step 2 loss 2.29"],
                               ["step 1 loss 2.31", *FINALIZER_SEM_UNLINK])):
        src, _ = _source(tmp_path / f"pods-{i}", lines)
        live = []
        while found := src.poll():
            live += _exceptions(found)
        assert sorted(live) == _offline(lines) == ([(7, 1, "AssertionError")] if i == 0 else [])


def test_a_traceback_cut_by_a_read_goes_on_with_the_next_and_is_said_once(tmp_path):
    """The frames in one read, the exception in the next: one finding, on its line, with its writer's rank."""
    src, log = _source(tmp_path / "pods", RNG[:10])
    assert _exceptions(src.poll()) == []
    with open(log, "a") as fh:
        fh.write(_cri(RNG[10:]))
    assert _exceptions(src.poll()) == [(13, 1, "RuntimeError")]
    assert _exceptions(src.poll()) == []


def test_a_flood_of_tracebacks_is_bounded_in_memory_and_events(tmp_path):
    """A pod printing rank 1's traceback 1,500 times (19,500 lines, polls of MAX_BATCH_FINDINGS and more): the window
    held is at most MAX_TRACED lines, the findings of a poll stay within MAX_BATCH_FINDINGS (and the read that reached
    it), the job's Events are one (its count the repeats), as for the other job facts, and what the reading holds at
    its peak does not grow with the flood (2-2.7 MiB traced for 500, 1,500 or 3,000 tracebacks: a bound of 8 MiB here
    fails on ~300 bytes kept a line; was 5,000 tracebacks under 32 MiB, ~45 s of tracemalloc for a weaker bound)."""
    src, _ = _source(tmp_path / "pods", RNG[:13] * 1500)
    tracker = WorkloadTracker(Metrics())
    keys, total = set(), 0
    tracemalloc.start()
    try:
        while found := src.poll():
            # (a poll stops after the read that brought MAX_BATCH_FINDINGS: one READ_CHUNK's lines more at most)
            assert len(found) <= 2 * podlogs.MAX_BATCH_FINDINGS
            for tail in src.tails.values():
                assert tail.traced is None or len(tail.traced.lines) <= MAX_TRACED
            for ref, f in found:
                if f.kind == "exception":
                    total += 1
                    keys.add(tracker.observe(ref, f).key)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert total == 1500 and len(keys) == 1
    assert peak < 8 << 20, peak


def test_a_bare_eagain_line_is_no_live_fact_of_the_exception_row():
    """The exception row is read from tracebacks only (LiveFact.traced): the facts of its kind (eagain_exception,
    libstdc++'s "what():  Resource temporarily unavailable", RasaHQ/rasa #5997, REAL) are not read by their keywords
    live, as before the row; the keyword stays for thread_limit's rows (ResourceLimit)."""
    assert job_fact("  what():  Resource temporarily unavailable") is None
    assert "Resource temporarily unavailable" in LIVE_KEYWORDS
    row, _ = job_fact("(bundle_reservation_check_func pid=630) [2025-02-16 02:29:23,228 E 630 630] logging.cc:108: "
                      "Unhandled exception: N5boost10wrapexceptINS_6system12system_errorEEE. what(): thread: Resource "
                      "temporarily unavailable [system:11]")
    assert row.reason == "ResourceLimit"


def test_tracebacks_every_20_lines_read_4_lines_a_poll_cost_each_line_two_reads_at_most(tmp_path, monkeypatch):
    """A busy pod printing rank 1's traceback (accelerate #3206's 13 real lines) every 20 lines, followed 4 lines a
    poll as a live tail reads it: every exception is said once, on its line, and `FileReader` reads each line twice
    at most (a window's lines once as they come, and once more by the reader a full window goes on with).  Was: the
    open window read whole again at every poll's end, 800 lines for 4 (about 130 reads a line here)."""
    read = [0]
    batch = FileReader._batch

    def counted(self, n, lines):
        read[0] += len(lines)
        return batch(self, n, lines)

    monkeypatch.setattr(FileReader, "_batch", counted)
    lines = ([f'{{"step": {i}, "loss": 1.5}}' for i in range(7)] + RNG[:13]) * 100  # (the metrics lines constructed)
    src, log = _source(tmp_path / "pods", lines[:4])
    live = _exceptions(src.poll())
    for at in range(4, len(lines), 4):
        with open(log, "a") as fh:
            fh.write(_cri(lines[at:at + 4]))
        live += _exceptions(src.poll())
    assert live == [(20 * k + 20, 1, "RuntimeError") for k in range(100)]
    assert read[0] <= 2 * len(lines), read[0]


def test_a_socket_errors_consequence_is_not_said_live(tmp_path):
    """A traceback ending in `ConnectionResetError` (REAL frames: yogeshbalaji/Generate_To_Adapt #7, the DataLoader's
    worker gone; here without Python's "Exception ignored in" line before it, as a log cut there shows it) is a
    consequence offline, where a failed job's log is read (`undetermined` alone).  Live, where a healthy inference
    server logs one whenever a client goes away, it is no witness: no finding published, no Event, no incident
    (WITNESSED_CONSEQUENCES).  Was (h516): a RankException Event on the node and an incident for a job that did not
    fail."""
    from tests.triage.test_triage import DATALOADER_DEL_IGNORED

    lines = DATALOADER_DEL_IGNORED[1:]  # from "Traceback (most recent call last):"
    offline = [e for e in read_lines(lines, "train.log", Clock()) if e.kind == "exception"]
    assert [(e.details["exception"], e.severity, e.details.get("consequence")) for e in offline] == [
        ("ConnectionResetError", "error", True)]
    assert _found(tmp_path / "pods", lines, "exception") == []


# ray-project/ray #24419 (REAL, verbatim): a Ray Serve caller's RayActorError for a replica Serve itself killed (its
# cause line: "killed by `ray.kill`"), logged by a healthy serving app whenever a replica is stopped (a scale-down)
RAY_SERVE_KILLED_REPLICA = [
    "(Handler pid=97598) Traceback (most recent call last):",
    '(Handler pid=97598)   File "/venv/lib/python3.7/asyncio/tasks.py", line 630, in _wrap_awaitable',
    "(Handler pid=97598)     return (yield from awaitable.__await__())",
    "(Handler pid=97598) ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
    "(Handler pid=97598)     class_name: create_replica_wrapper.<locals>.RayServeWrappedReplica",
    "(Handler pid=97598)     actor_id: ee5d03c2a30020098ef71ac001000000",
    "(Handler pid=97598)     pid: 97633",
    "(Handler pid=97598)     name: SERVE_REPLICA::LongCall#WCHiiv",
    "(Handler pid=97598)     namespace: serve",
    "(Handler pid=97598)     ip: 172.17.0.3",
    "(Handler pid=97598) The actor is dead because it was killed by `ray.kill`.",
]


def test_rays_died_actor_error_is_no_witness_live(tmp_path):
    """Ray's error of an actor that died (RayActorError; ActorDiedError since 2.10) is a consequence offline, where a
    failed job's log is read.  Live it is no witness (WITNESSED_CONSEQUENCES): Ray Serve's callers log it for every
    replica its autoscaler stops, so a serving pod's scale-down would be a RankException Event on its node and an
    `undetermined` incident for an app that did not fail.  Was (before the lead's 90def623): said live, its writer
    the witness."""
    offline = [e for e in read_lines(RAY_SERVE_KILLED_REPLICA, "serve.log", Clock()) if e.kind == "exception"]
    assert [(e.details["exception"], e.severity, e.details.get("consequence")) for e in offline] == [
        ("ray.exceptions.RayActorError", "error", True)]
    assert _found(tmp_path / "pods", RAY_SERVE_KILLED_REPLICA, "exception") == []
    # the channel's timeout of a compiled graph (vLLM's engine core) still is one
    assert WITNESSED_CONSEQUENCES.search("ray.exceptions.RayChannelTimeoutError")
    assert not WITNESSED_CONSEQUENCES.search("ray.exceptions.ActorDiedError")


# REAL: NVIDIA/nvidia-resiliency-ext #136 (rank 14's exit traceback), its incident's log
NVRX_DISCARDED = (Path(__file__).parents[1] / "fixtures" / "incidents" / "nvrx-136-inprocess-rank-discarded" / "logs"
                  / "rank14.log").read_text().splitlines()


def test_a_rank_the_in_process_restart_discarded_is_its_writers_witness_live(tmp_path):
    """nvidia-resiliency-ext's in-process restart ending rank 14 (RankDiscarded, its own decision for a failure logged
    elsewhere): a consequence offline (`undetermined`), and live the witness of a training job's own processes
    failing, said as offline reads it (was: not published, live no incident where offline had one)."""
    assert _consequences(NVRX_DISCARDED) == [12]
    assert [f.details.get("exception") for _, f in _found(tmp_path / "pods", NVRX_DISCARDED, "exception")] == [
        "nvidia_resiliency_ext.inprocess.rank_assignment.RankDiscarded"]
    for name in ("RestartAbort", "RankShouldRestart"):
        assert WITNESSED_CONSEQUENCES.search(f"nvidia_resiliency_ext.inprocess.exception.{name}")


HEALTHY = sorted((INCIDENTS.parent / "realworld" / "healthy").glob("*"))
# Offline, the Fujitsu MLPerf log's helper step ("srun: error: mlperf-h100-0208: task 0: Exited with exit code 1", line
# 6) is an earlier Slurm step's end the file's later run_stop "success" covers (triage.teardown STEP_ENDS); the agent
# reads a pod's log in order and says the exit as it comes (RankExited), before any success is stated.
LIVE_SAYS_EARLIER_STEP = {"mlperf-h100-gx2560m7-llama2-lora-sysjson-step.log": [(6, "RankExited")]}


@pytest.mark.parametrize("path", HEALTHY, ids=[p.name for p in HEALTHY])
def test_healthy_whole_logs_make_no_pod_event_live(tmp_path, path):
    """The corpus's healthy whole logs (tests/fixtures/realworld/wholelogs.yaml: no failure offline), each read as one
    pod's log: no finding the agent makes a Pod Event of (c10d's retried connects, NCCL's set-up and teardown chatter,
    ProcessGroupNCCL's exit warnings, DeepSpeed's op-builder warnings), but for the step end named above."""
    src, _ = _source(tmp_path / "pods", path.read_bytes().decode("utf-8", "replace").splitlines())
    tracker, said = WorkloadTracker(Metrics()), []
    while found := src.poll():
        said += [(f.line, ev.reason) for ref, f in found if (ev := tracker.observe(ref, f)) is not None]
    assert said == LIVE_SAYS_EARLIER_STEP.get(path.name, [])
