"""`gpu-npd triage --jobs N`: files read in worker processes give the output of reading them in turn, byte for byte
(JSON and text), with `fork` and with `spawn`; a worker that raises or dies loses only its own file (named, exit 2);
stdin stays in the parent; a bad `--jobs` is one line and exit 2; Ctrl-C stops the workers.

The pool's size threshold (offline.triage_cli.PARALLEL_MIN_BYTES) is lowered to 0 here so that the fixtures, a few
KiB each, go through the pool."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpunpd.cli import main
from harness import ctrl_c_default
from offline import triage_cli
from triage import Clock

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
INCIDENTS = FIXTURES / "incidents"
GPU_NPD = [sys.executable, "-m", "gpunpd"]


def _bench():
    spec = importlib.util.spec_from_file_location("triage_scale", ROOT / "bench" / "triage_scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def pooled(monkeypatch):
    """Every run with --jobs > 1 and two files or more goes through the pool, whatever their size."""
    monkeypatch.setattr(triage_cli, "PARALLEL_MIN_BYTES", {})
    monkeypatch.setattr(triage_cli, "_MIN_BYTES_OTHER", 0)
    calls = []
    real = triage_cli._read_in_pool
    monkeypatch.setattr(triage_cli, "_read_in_pool", lambda *a, **k: calls.append(a) or real(*a, **k))
    return calls


def run(*args: str):
    r = CliRunner().invoke(main, ["triage", *args])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r


def outputs(jobs: int, *paths: str) -> list[tuple[int, str]]:
    return [(r.exit_code, r.stdout) for r in (run("--jobs", str(jobs), "--format", fmt, *paths)
                                              for fmt in ("json", "text"))]


INCIDENT_DIRS = sorted(p / "logs" for p in INCIDENTS.iterdir() if (p / "logs").is_dir())


@pytest.mark.parametrize("logs", INCIDENT_DIRS, ids=lambda p: p.parent.name)
def test_every_incident_the_same_in_parallel(logs: Path, pooled):
    serial = outputs(1, str(logs))
    assert not pooled
    assert outputs(4, str(logs)) == serial


def test_all_fixtures_as_one_job_the_same_in_parallel(pooled):
    """Every incident, kernel log, NCCL log and pod log as one job: hundreds of files, hosts with boot anchors in
    several files, dated and year-less stamps: the merged clock must be the one serial reading builds."""
    paths = [str(FIXTURES / d) for d in ("incidents", "dmesg", "nccl", "pods", "progress")]
    serial = outputs(1, *paths)
    assert outputs(2, *paths) == serial and outputs(3, *reversed(paths)) == outputs(1, *reversed(paths))
    assert len(pooled) == 4 and len(pooled[0][0]) > 100  # json and text, twice
    assert json.loads(serial[0][1])["incidents"]


@pytest.mark.parametrize("shape", ["per-rank", "interleaved"])
def test_the_bench_jobs_the_same_in_parallel(shape, tmp_path, monkeypatch, pooled):
    bench = _bench()
    monkeypatch.setattr(bench, "OUT", tmp_path)
    where, _ = bench.generate(shape, 16, 300)
    other, _ = bench.generate("per-rank" if shape == "interleaved" else "interleaved", 16, 200)
    serial = outputs(1, str(where), str(other))
    assert outputs(2, str(where), str(other)) == serial
    doc = json.loads(serial[0][1])
    assert doc["incidents"][0]["root"]["rank"] == 7  # the lagging rank, as the bench checks


def test_spawn_gives_the_same(tmp_path, monkeypatch, pooled):
    monkeypatch.setattr(triage_cli, "START_METHOD", "spawn")
    paths = [str(INCIDENTS / "kohya-1434-ecc" / "logs"), str(FIXTURES / "dmesg"), str(FIXTURES / "nccl")]
    serial = outputs(1, *paths)
    assert outputs(2, *paths) == serial and pooled


def cli(*args: str, before: str = "", **kw) -> subprocess.CompletedProcess:
    """`gpu-npd ARGS` in its own process, every job through the pool (and `before` run first: a test's hook)."""
    code = ("import sys; from offline import triage_cli as t; t.PARALLEL_MIN_BYTES = {}; t._MIN_BYTES_OTHER = 0\n"
            f"{before}\nsys.argv[0] = 'gpu-npd'; from gpunpd.cli import main; main()")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, timeout=120, **kw)


def test_stdin_is_read_in_the_parent_in_its_place():
    text = (INCIDENTS / "funasr-2006-oom" / "logs" / "train.log").read_bytes()
    args = ["--format", "json", str(FIXTURES / "dmesg"), "-", str(INCIDENTS / "kohya-1434-ecc" / "logs")]
    r1, r2 = (cli("triage", "--jobs", jobs, *args, input=text) for jobs in ("1", "2"))
    assert (r1.returncode, r1.stdout) == (r2.returncode, r2.stdout) and r2.returncode == 0
    assert "<stdin>" in json.loads(r2.stdout)["inputs"]


def test_errors_keep_their_order_among_files(tmp_path, pooled):
    """A path not found is listed where walking met it, among the files' own errors, as when read in turn."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "core").write_bytes(b"\x7fELF\x00" * 10)
    (tmp_path / "a" / "x.log.gz").write_bytes(b"\x1f\x8b\x08\x00broken")
    args = [str(tmp_path / "nope1"), str(tmp_path / "a"), str(tmp_path / "nope2"), str(INCIDENTS / "nccl-1405-ib")]
    serial = outputs(1, *args)
    assert outputs(2, *args) == serial and pooled
    doc = json.loads(serial[0][1])
    assert serial[0][0] == 2 and len(doc["errors"]) == 3 and doc["skipped"]


def _raises_on_b(path, root, year):
    if path.endswith("b.log"):
        raise RuntimeError("a bug reading b")
    return triage_cli._real_read_file(path, root, year)


def _dies_on_b(path, root, year):
    if path.endswith("b.log"):
        os._exit(3)
    return triage_cli._real_read_file(path, root, year)


def _job(tmp_path: Path) -> Path:
    logs = INCIDENTS / "funasr-2006-oom" / "logs" / "train.log"
    for name in ("a.log", "b.log", "c.log", "d.log"):
        (tmp_path / name).write_bytes(logs.read_bytes())
    return tmp_path


@pytest.mark.parametrize("worker", [_raises_on_b, _dies_on_b], ids=["raises", "dies"])
def test_a_failing_worker_loses_only_its_file(worker, tmp_path, monkeypatch, pooled):
    job = _job(tmp_path)
    monkeypatch.setattr(triage_cli, "_real_read_file", triage_cli._read_file, raising=False)
    monkeypatch.setattr(triage_cli, "_read_file", worker)
    r = run("--jobs", "2", "--format", "json", str(job))
    doc = json.loads(r.stdout)
    assert r.exit_code == 2
    assert doc["inputs"] == [str(job / n) for n in ("a.log", "c.log", "d.log")]
    assert len(doc["errors"]) == 1 and doc["errors"][0].startswith(f"{job / 'b.log'}: cannot read: ")
    assert ("RuntimeError: a bug reading b" if worker is _raises_on_b else "died") in doc["errors"][0]
    assert doc["incidents"], "the other files are still attributed"
    assert f"gpu-npd triage: {job / 'b.log'}: cannot read" in r.stderr


def _dies_always(path, root, year):
    os._exit(9)


def test_workers_that_all_die_lose_every_file_but_never_hang(tmp_path, monkeypatch, pooled):
    job = _job(tmp_path)
    monkeypatch.setattr(triage_cli, "_read_file", _dies_always)
    started = time.monotonic()
    r = run("--jobs", "2", "--format", "json", str(job))
    doc = json.loads(r.stdout)
    assert r.exit_code == 2 and doc["inputs"] == [] and not doc["incidents"]
    assert doc["errors"] == [f"{job / n}: cannot read: the process reading it died"
                             for n in ("a.log", "b.log", "c.log", "d.log")]
    assert time.monotonic() - started < 60


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", ""])
def test_a_bad_jobs_value_is_one_line_and_exit_2(value):
    r = subprocess.run([*GPU_NPD, "triage", "--jobs", value, str(INCIDENTS / "nccl-1405-ib" / "logs")],
                       capture_output=True, text=True, timeout=120) if value == "0" else \
        CliRunner().invoke(main, ["triage", "--jobs", value, str(INCIDENTS / "nccl-1405-ib" / "logs")])
    assert r.returncode == 2 if value == "0" else r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "--jobs" in r.stderr and not r.stdout


def test_jobs_default_is_the_cpus_this_process_may_use():
    assert triage_cli.jobs_default() == len(os.sched_getaffinity(0))


def test_the_pool_is_used_only_for_enough_bytes(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(triage_cli, "_read_in_pool", lambda *a: calls.append(a) or {})
    job = _job(tmp_path)
    run("--jobs", "4", str(job))
    assert not calls  # four small files: not worth a pool
    monkeypatch.setattr(triage_cli, "PARALLEL_MIN_BYTES", {"fork": 1, "spawn": 1, "forkserver": 1})
    run("--jobs", "4", str(job))
    run("--jobs", "1", str(job))
    run("--jobs", "4", str(job / "a.log"))  # one file: nothing to share
    assert len(calls) == 1 and calls[0][2] == 4


def test_clock_absorb_is_reading_through_one_clock():
    """A clock per file merged in order == one clock for all (anchors per host, the year, its ties included)."""
    rng = random.Random(7)
    for _ in range(200):
        files = [[(rng.choice(["anchor", "dated"]), rng.choice([None, "a", "b"]),
                   datetime(rng.choice([2023, 2024, 2025]), 1, 1, tzinfo=timezone.utc)
                   + timedelta(seconds=rng.randrange(10**6)), rng.randrange(10**5))
                  for _ in range(rng.randrange(0, 6))] for _ in range(rng.randrange(1, 5))]
        one, merged = Clock(), Clock()
        for events in files:
            own = Clock()
            for what, host, when, uptime in events:
                for clock in (one, own):
                    if what == "anchor":
                        clock.anchor(host, when, uptime)
                    else:
                        clock.dated(when)
            merged.absorb(own)
        assert merged.year == one.year
        assert all(merged.boot(h) == one.boot(h) for h in (None, "a", "b"))
        assert list(merged._years.items()) == list(one._years.items())


SLOW = """
import time
def slow(path, root, year):
    time.sleep(120)
t._read_file = slow
"""


@pytest.mark.skipif(not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
                    reason="no /proc/PID/task/TID/children to find the workers by")
def test_ctrl_c_stops_the_workers():
    code = ("import sys; from offline import triage_cli as t; t.PARALLEL_MIN_BYTES = {}; t._MIN_BYTES_OTHER = 0\n"
            f"{SLOW}\nsys.argv[0] = 'gpu-npd'; from gpunpd.cli import main; main()")
    proc = subprocess.Popen([sys.executable, "-c", code, "triage", "--jobs", "2", str(INCIDENTS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_default)
    deadline = time.monotonic() + 60
    children: list[int] = []
    while len(children) < 2 and time.monotonic() < deadline:  # the pool's workers (and its manager's) started
        time.sleep(0.2)
        children = _children(proc.pid)
    # both workers started (one still being started when Ctrl-C came would be a different test: Ctrl-C during the
    # pool's start), then a moment for them to be inside their (slow) reading
    assert len(children) >= 2, f"the pool's two workers were running: {children}"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=30)  # not after the workers' 120 s
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"still running 30 s after Ctrl-C; stderr: {err[-2000:]}") from None
    assert proc.returncode != 0 and "Traceback" not in err, (proc.returncode, err[-2000:])
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _running(children):
        time.sleep(0.2)
    assert not _running(children), f"workers left running: {_running(children)}; stderr: {err[-2000:]}"


def _running(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                out.append(pid)
        except OSError:
            pass
    return out


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    workers = []
    for child in text.split():  # the pool's workers, not multiprocessing's resource tracker
        try:
            if b"resource_tracker" not in Path(f"/proc/{child}/cmdline").read_bytes():
                workers.append(int(child))
        except OSError:
            pass
    return workers


@pytest.mark.parametrize("sizes,jobs,want", [
    ([10 << 10] * 128, 64, 0),     # 1.25 MiB in all: read in turn
    ([1 << 20] * 4, 64, 4),        # one worker per file
    ([600 << 10] * 4, 64, 2),      # 2.3 MiB: two workers, not four
    ([8 << 20] * 128, 4, 4),       # --jobs caps
    ([8 << 20] * 128, 1, 0),       # --jobs 1
    ([64 << 20], 8, 0),            # one file
])
def test_workers_by_bytes(sizes, jobs, want, monkeypatch):
    monkeypatch.setattr(triage_cli, "START_METHOD", "fork")
    files = [(f"f{n}", None) for n in range(len(sizes))]
    monkeypatch.setattr(triage_cli, "_size", lambda path: sizes[int(path[1:])])
    assert triage_cli._workers(files + [("-", None)], jobs) == want


def _reachable(root) -> set[int]:
    """The ids of the objects `root` holds (itself included; classes not followed)."""
    import gc

    seen: set[int] = set()
    todo = [root]
    while todo:
        o = todo.pop()
        if id(o) in seen or isinstance(o, type):
            continue
        seen.add(id(o))
        todo.extend(gc.get_referents(o))
    return seen


def test_a_reading_holds_its_evidence_and_little_else(tmp_path):
    """A pool's readings wait in the parent for their turn (20,000 files: 20,000 of them): one holds its evidence, its
    name and little more (4 objects past its evidence), not a clock that gathered nothing or empty lists (8 before)."""
    job = tmp_path / "job"
    job.mkdir()
    log = job / "rank5.log"
    bench = _bench()
    log.write_text("".join(f"[rank5]:{bench.body(5, i)}\n" for i in range(10)) + f"[rank5]:{bench.timeout(5)}\n")
    done = triage_cli._read_file(str(log), str(job), None)
    assert [e.kind for e in done.evidence].count("nccl_timeout") == 1
    held = _reachable(done) - set().union(*(_reachable(e) for e in done.evidence))
    assert len(held) <= 4, len(held)


def test_the_pool_holds_a_few_files_per_worker_in_flight(tmp_path, monkeypatch, pooled):
    """Files are sent to the pool a few per worker ahead of the one taken next (offline.triage_cli.IN_FLIGHT), not all
    at once: 20,000 files were 20,000 futures and tasks held in the parent (40 here before, 8 now).  Counted, not timed: at each send,
    the futures sent and not yet taken."""
    from concurrent.futures import Future, ProcessPoolExecutor

    for r in range(40):
        (tmp_path / f"rank{r}.log").write_text(f"[rank{r}]: iteration {r}\n")
    sent, taken, most = [], set(), [0]
    submit, result = ProcessPoolExecutor.submit, Future.result

    def counted_submit(self, *a, **k):
        f = submit(self, *a, **k)
        sent.append(f)
        most[0] = max(most[0], sum(1 for s in sent if id(s) not in taken))
        return f

    def counted_result(self, *a, **k):
        taken.add(id(self))
        return result(self, *a, **k)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", counted_submit)
    monkeypatch.setattr(Future, "result", counted_result)
    assert run("--jobs", "2", "--format", "json", str(tmp_path)).exit_code == 1
    assert len(sent) == 40 and pooled
    assert most[0] <= triage_cli.IN_FLIGHT * 2, most[0]
