"""Container logs -> workload findings -> pod Events, correlated with node faults; pid -> pod."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from harness import AgentProc

from agent.app import Agent, build
from agent.config import load
from kubeapi.events import EventRecorder, Ref
from agent.metrics import Metrics
from agent.pidmap import pod_of_pid
from agent.sources import Record
from agent.sources import podlogs
from agent.sources.podlogs import PodLogSource, parse_pod_dir
from agent.state import StateStore
from parsers.model import Boot, PodRef, WorkloadFindings
from agent.workloads import WorkloadTracker, job_of
from apiserver_double import ApiDouble
from kubeapi.client import make_api
from agent.kube.settings import KubeSettings

FIXTURE = Path(__file__).parents[1] / "fixtures" / "pods" / "var" / "log" / "pods"
W0 = "train_llama-70b-worker-2_6f1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
W1 = "train_llama-70b-worker-3_7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
TIMEOUT = ("{ts} stderr F [rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=22631, OpType=ALLREDUCE, NumelIn=545914880, NumelOut=545914880, "
           "Timeout(ms)=600000) ran for 600012 milliseconds before timing out.\n")


@pytest.fixture
def pods(tmp_path) -> Path:
    root = tmp_path / "pods"
    shutil.copytree(FIXTURE, root)
    return root


def source(root: Path, **kw) -> PodLogSource:
    return PodLogSource(str(root), exclude_namespaces=["kube-system", "gpu-npd"], from_start=True, **kw)


def kinds(found) -> list[tuple[str, str]]:
    return [(ref.pod, f.kind) for ref, f in found]


def append(path: Path, text: str) -> None:
    with open(path, "a") as fh:
        fh.write(text)


# ---- the source ---------------------------------------------------------------------------------------

def test_new_pods_are_read_from_the_start_and_tagged(pods):
    src = source(pods)  # pods that appear while running are new: read from the start
    src.discover()
    found = src.poll()
    assert sorted(kinds(found)) == sorted([
        ("llama-70b-worker-2", "nccl_remote_error"), ("llama-70b-worker-2", "ib_completion_error"),
        ("llama-70b-worker-2", "cuda_error"), ("llama-70b-worker-3", "nccl_timeout"),
        ("llama-70b-worker-3", "cuda_oom")])
    ref, f = next((r, f) for r, f in found if f.kind == "nccl_timeout")
    assert (ref.namespace, ref.container, f.rank) == ("train", "pytorch", 20)
    assert f.details["pod"] == "llama-70b-worker-3" and f.timestamp.isoformat().startswith("2024-07-25T06:46:02")
    oom = next(f for _, f in found if f.kind == "cuda_oom")
    assert "77.10 GiB memory in use" in oom.message  # the P/F parts joined
    assert src.poll() == []  # nothing new


def test_a_read_the_engine_fails_to_scan_loses_no_finding(pods):
    """The pod log source's buffer scans (its keyword prefilter's and its job facts') on an engine that raises at every
    scan (hyperscan's ScratchInUseError, say): the poll gives the findings it gives otherwise, scanned by `re` (was:
    the exception out of poll, the source restarted and the read's lines, their offsets taken, never read)."""
    hs = pytest.importorskip("hyperscan")
    want = sorted(kinds(_polled(source(pods))))

    class Refusing:
        def scan(self, *_args, **_kwargs):
            raise hs.ScratchInUseError("scratch in use")

    src = source(pods)
    assert src.prefilter.engine == src.facts.engine == "hyperscan"
    src.prefilter._db = src.facts._db = Refusing()
    assert want and sorted(kinds(_polled(src))) == want and src.prefilter.scan_failures and src.facts.scan_failures
    assert src.internal_errors == 0


def test_the_buffers_an_engine_failed_to_scan_are_a_metric_at_zero_from_the_start(pods):
    """parsers' count of the buffers hyperscan or RE2 raised on (each scanned by `re` instead) was no Prometheus
    series: an engine failing on every read of a node's pod logs (the scan slower, nothing lost) showed only in one
    log line.  Now gpu_npd_scan_failures_total, 0 before any scan (and with no pod log source), the pod log source's
    prefilters' count after."""
    from prometheus_client import generate_latest
    from prometheus_client.parser import text_string_to_metric_families

    def total(m: Metrics) -> float:
        families = text_string_to_metric_families(generate_latest(m.registry).decode())
        (value,) = [s.value for f in families for s in f.samples if s.name == "gpu_npd_scan_failures_total"]
        return value

    m = Metrics()
    assert total(m) == 0
    hs = pytest.importorskip("hyperscan")

    class Refusing:
        def scan(self, *_args, **_kwargs):
            raise hs.ScratchInUseError("scratch in use")

    src = source(pods)
    m.count_scan_failures(src.scan_failures)
    assert total(m) == 0
    src.prefilter._db = src.facts._db = Refusing()
    _polled(src)
    assert src.prefilter.scan_failures and total(m) == src.prefilter.scan_failures + src.facts.scan_failures



def test_a_message_the_keyword_scan_fails_on_is_classified_and_counted(tmp_path, pods, monkeypatch):
    """The rule table's keyword scan on hyperscan (parsers/prefilter.py `hyperscan_words_in`, shared by every
    classifier of the agent) raising on a message (here a thread whose scratch space hyperscan cannot allocate) tests
    the words one by one: the finding as ever; and each such message is now counted in gpu_npd_scan_failures_total
    beside the pod log buffers' (was: the first logged, none counted).  The line: tests/fixtures/dmesg (README: an
    H100 falling off the bus, DaoCloud's KubeCon talk)."""
    import threading

    hs = pytest.importorskip("hyperscan")
    line = (Path(__file__).parents[1] / "fixtures" / "dmesg" / "xid79-fallen-off-bus.dmesg").read_text().splitlines()[2]
    assert "Xid (PCI:0000:5d:00): 79" in line
    agent = make_agent(tmp_path, pods)
    scan = agent.pipeline._classifier.dispatch._scan._derive()  # (else its first texts are looked up word by word)
    assert "_findall" not in vars(scan)  # hyperscan's scan, not re's

    def failures() -> float:
        return agent.metrics.registry.get_sample_value("gpu_npd_scan_failures_total")

    before = failures()  # (the table's scan is the process's: earlier tests' failures stand)

    def no_scratch(_db):
        raise hs.NoMemoryError("no memory")

    monkeypatch.setattr(hs, "Scratch", no_scratch)
    uptime_us = int(float(line[1:line.index("]")]) * 1e6)
    worker = threading.Thread(target=agent.pipeline.process,
                              args=([Record("kmsg", f"3,1,{uptime_us},-;{line.split('] ', 1)[1]}")],))
    worker.start()
    worker.join()
    assert [p.reason for p in agent.engine.problems.values()] == ["Xid79FallenOffBus"]
    assert failures() == before + 1 and before == agent.pipeline.scan_failures() - 1


def _polled(src: PodLogSource) -> list:
    src.discover()
    return src.poll()


def test_existing_logs_at_agent_start_are_history(pods):
    src = PodLogSource(str(pods))
    src.discover()  # first scan: start at the end
    assert src.poll() == []
    append(pods / W1 / "pytorch" / "0.log", TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=21))
    assert kinds(src.poll()) == [("llama-70b-worker-3", "nccl_timeout")]


def test_namespace_and_pod_filters(pods):
    src = PodLogSource(str(pods), exclude_namespaces=["gpu-npd"], include_pods=["nvidia-*", "llama-*"],
                       exclude_pods=["*-worker-3"], from_start=True)
    src.discover()
    assert {ref.pod for ref, _ in src.poll()} == {"llama-70b-worker-2", "nvidia-device-plugin-abcde"}


def test_kubelet_rotation_loses_no_line(pods):
    src = source(pods)
    src.discover()
    src.poll()
    log = pods / W1 / "pytorch" / "0.log"
    append(log, TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=21))  # written, not yet read
    rotated = log.with_name("0.log.20240725-070000")
    os.rename(log, rotated)  # kubelet: rename, new file, compress later
    append(rotated, TIMEOUT.format(ts="2024-07-25T07:00:00.100000000Z", r=22))  # the runtime's last write
    append(log, TIMEOUT.format(ts="2024-07-25T07:00:01.000000000Z", r=23))
    with open(rotated, "rb") as a, gzip.open(str(rotated) + ".gz", "wb") as b:
        b.write(a.read())
    os.unlink(rotated)
    found = src.poll()
    assert sorted(f.rank for _, f in found) == [21, 22, 23]


def test_rotation_while_the_file_was_closed_is_found_in_the_gzip(pods):
    src = source(pods, max_open=1)
    src.discover()
    src.poll()  # two files, one descriptor: one of them is watched by stat
    closed = next(t for t in src.tails.values() if t.fd is None)
    log = Path(closed.path)
    append(log, TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=30))
    with open(log, "rb") as a, gzip.open(str(log) + ".20240725-070000.gz", "wb") as b:
        b.write(a.read())
    os.unlink(log)
    log.write_text(TIMEOUT.format(ts="2024-07-25T07:00:02.000000000Z", r=31))
    found = src.poll()
    assert sorted(f.rank for _, f in found) == [30, 31]
    assert sum(1 for t in src.tails.values() if t.fd is not None) <= 1


def test_deleted_pod_is_released(pods):
    src = source(pods)
    src.discover()
    src.poll()
    assert src.counters()["open_files"] == 2
    append(pods / W0 / "pytorch" / "0.log", TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=17))
    shutil.rmtree(pods / W0)  # the pod is gone before its last line was read
    src.discover()
    counts = src.counters()
    assert (counts["open_files"], counts["files"]) == (1, 1)
    assert [f.rank for _, f in src.poll()] == [17]  # its last words are still reported


def test_plain_rotation_while_the_file_was_closed_is_found_by_inode(pods):
    src = source(pods, max_open=1)
    src.discover()
    src.poll()
    closed = next(t for t in src.tails.values() if t.fd is None)
    log = Path(closed.path)
    append(log, TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=40))
    os.rename(log, str(log) + ".20240725-070000")  # not compressed yet
    log.write_text(TIMEOUT.format(ts="2024-07-25T07:00:02.000000000Z", r=41))
    assert sorted(f.rank for _, f in src.poll()) == [40, 41]


def test_lines_read_are_counted(pods):
    src = source(pods)
    src.discover()
    src.poll()
    expected = sum(p.read_bytes().count(b"\n") for p in pods.glob("train_*/*/0.log"))
    assert src.counters()["records"] == expected


def test_partial_line_split_across_reads_is_joined(pods):
    src = source(pods)
    src.discover()
    src.poll()
    log = pods / W0 / "pytorch" / "0.log"
    append(log, "2024-07-25T07:00:00.000000000Z stderr P RuntimeError: CUDA error: an illegal mem")
    assert src.poll() == []
    append(log, "ory access was encountered\n")
    assert src.poll() == []  # a P line waits for its F
    append(log, "2024-07-25T07:00:00.000000001Z stderr F  (compile with TORCH_USE_CUDA_DSA)\n")
    (ref, f), = src.poll()
    assert f.kind == "cuda_error" and f.details["cuda_error"] == "an illegal memory access was encountered"


def test_offsets_survive_a_restart(pods, tmp_path):
    state = tmp_path / "state"
    src = PodLogSource(str(pods), StateStore(str(state), "podlogs.json"))
    src.discover()
    src.poll()
    src.save()
    append(pods / W1 / "pytorch" / "0.log", TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=24))
    again = PodLogSource(str(pods), StateStore(str(state), "podlogs.json"))  # while down, a line was written
    again.discover()
    assert [f.rank for _, f in again.poll()] == [24]


@pytest.mark.parametrize("hole", [100, (5 << 18) - 50])  # (5 reads of READ_CHUNK, the last 50 bytes into the line)
def test_a_pod_log_line_written_right_after_a_hole_is_read_whole(pods, hole: int):
    """A run of NUL bytes (a hole a crash left) then a line with no newline between: the line is what follows the
    hole (parsers.after_hole; the bytes constructed by this test).  Was: a short hole kept in front of the line (its
    CRI envelope, stamp and rank not read), a hole longer than MAX_PENDING cut into pieces with the line's head in
    one and its rest in the next (the timeout split in two, not read)."""
    src = source(pods)
    src.discover()
    src.poll()
    log = pods / W1 / "pytorch" / "0.log"
    with open(log, "ab") as fh:
        fh.write(bytes(hole) + TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=24).encode())
    (ref, f), = src.poll()
    assert f.kind == "nccl_timeout" and f.rank == 24 and f.timestamp.isoformat().startswith("2024-07-25T07:00:00")


def test_an_idle_source_writes_its_offsets_only_when_they_moved(pods, tmp_path):
    """The source saves every 2 s; with nothing read since the last save, nothing is written (nor fsynced)."""
    state = tmp_path / "state"
    src = PodLogSource(str(pods), StateStore(str(state), "podlogs.json"))
    src.discover()
    src.poll()
    src.save()
    path = state / "podlogs.json"
    first = path.stat().st_mtime_ns, path.stat().st_ino
    time.sleep(0.01)
    src.poll()
    src.save()
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == first  # nothing moved: not rewritten
    append(pods / W1 / "pytorch" / "0.log", TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=24))
    src.poll()
    src.save()
    assert path.stat().st_ino != first[1]  # moved: written (a new file renamed over the old)


def test_offsets_saved_go_no_further_than_the_pipeline_took(pods, tmp_path):
    """Issue 31 item 8: findings still queued when SIGTERM ends the drain were lost (the offsets said read).
    The source saves offsets only as far as the pipeline took its batches (`WorkloadFindings.done`): a batch never
    taken is read again at the next start; once taken, it is not."""
    import threading

    state = tmp_path / "state"
    src = PodLogSource(str(pods), StateStore(str(state), "podlogs.json"))
    sent: list = []
    stop = threading.Event()
    thread = threading.Thread(target=src.run, args=(sent.append, stop), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not src.tails and time.monotonic() < deadline:
        time.sleep(0.02)
    append(pods / W1 / "pytorch" / "0.log", TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=24))
    while not sent and time.monotonic() < deadline:
        time.sleep(0.02)
    stop.set()
    thread.join(5)
    assert [f.rank for _, f in sent[0].items] == [24]  # sent, never taken: the agent stopped first
    again = PodLogSource(str(pods), StateStore(str(state), "podlogs.json"))
    again.discover()
    assert [f.rank for _, f in again.poll()] == [24]  # read again, not lost
    sent[0].done()  # taken after all
    src.save()
    third = PodLogSource(str(pods), StateStore(str(state), "podlogs.json"))
    third.discover()
    assert third.poll() == []  # not twice


def test_one_turn_of_the_loop_discovers_and_saves_when_due(pods, tmp_path):
    """`PodLogSource.turn`, the one turn `run` loops and bench/podlogs.py --follow times (it copied the loop's body,
    which drifted as `run` changed): the files discovered at the first turn and then when `scan_seconds` passed, a
    poll's findings handed on with the offsets snapshot `done` acknowledges, the offsets saved every 2 s (of `now`),
    no further than the pipeline took; whether the poll found anything."""
    state = tmp_path / "state"
    src = PodLogSource(str(pods), StateStore(str(state), "podlogs.json"), exclude_namespaces=["kube-system"])
    sent: list = []
    assert src.turn(sent.append, 0.0) is False and sent == []  # listed (existing files at their end) and saved
    first = json.loads((state / "podlogs.json").read_text())["offsets"]
    log1 = str(pods / W1 / "pytorch" / "0.log")
    append(Path(log1), TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=24))
    assert src.turn(sent.append, 0.25) is True and [f.rank for _, f in sent[0].items] == [24]
    new = pods / W0.replace("worker-2", "worker-9") / "pytorch"
    new.mkdir(parents=True)
    (new / "0.log").write_text(TIMEOUT.format(ts="2024-07-25T07:00:01.000000000Z", r=25))
    sent[0].done()  # taken by the pipeline
    assert src.turn(sent.append, 1.75) is False and len(sent) == 1  # not listed again yet, nor saved
    assert json.loads((state / "podlogs.json").read_text())["offsets"] == first
    assert src.turn(sent.append, 2.0) is True and [f.rank for _, f in sent[1].items] == [25]  # listed: read whole
    assert json.loads((state / "podlogs.json").read_text())["offsets"][log1][1] > first[log1][1]  # saved


def test_pod_dir_names():
    assert parse_pod_dir(W0) == ("train", "llama-70b-worker-2", "6f1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b")
    assert parse_pod_dir("junk") is None
    assert job_of("llama-70b-worker-3") == job_of("llama-70b-worker-12") == "llama-70b"


# Real pod names: a JobSet's (kubernetes-sigs/jobset PR #550's `kubectl get pods`, one Indexed Job per replicated job
# and index), and one with the Job name its pods are labelled with (jobset #578's `kubectl describe pods`:
# batch.kubernetes.io/job-name=network-jobset-leader-0); an Indexed Job's pod is `$(job-name)-$(index)-$(random-string)`
# (the Job API's completionMode, KEP-2214 "Pod detail")
JOBSET_PODS = ("paralleljobs-workers-0-0-mfwtk", "paralleljobs-workers-0-1-5g6gp", "paralleljobs-workers-0-2-7n9j5",
               "paralleljobs-workers-0-3-vp8jc")


def test_an_indexed_jobs_and_a_jobsets_pods_are_their_jobs_by_name():
    """job_of kept the generated suffix of an Indexed Job's (a JobSet's) pod: every pod its own job, so the job's one
    failure made one Event per pod on the node.  Now a pod's job is the name its suffix was appended to (triage.ranks
    GENERATED_SUFFIXES), without its index: its Job's, as the pod's batch.kubernetes.io/job-name label says."""
    assert {job_of(p) for p in JOBSET_PODS} == {"paralleljobs-workers-0"}
    assert job_of("network-jobset-leader-0-0-2qphg") == "network-jobset-leader-0"  # its job-name label (jobset #578)
    assert job_of("network-jobset-workers-0-1-rghv6") == "network-jobset-workers-0"  # (jobset PR #550)
    # unchanged: an ordinal last (PyTorchJob's, a StatefulSet's; an index whose digits are generateName's alphabet's
    # too), a name no generated suffix ends (vowels, 0 1 3 are not of its alphabet; not 5 characters)
    assert job_of("llama-70b-worker-24567") == job_of("llama-70b-worker-0") == "llama-70b"
    for pod in ("nccl-tests", "bert-large", "train-g5n2", "train-g5n2tt"):
        assert job_of(pod) == pod, pod
    tracker = WorkloadTracker(Metrics())
    events = [tracker.observe(PodRef("team-a", pod, f"uid-{i}", "main"), _timeout(i)) for i, pod in enumerate(JOBSET_PODS)]
    assert len({e.key for e in events}) == 1 and events[0].ref.pod == JOBSET_PODS[0]
    assert "NCCL watchdog timeout on 4 ranks (0,1,2,3)" in events[-1].message


# A CronJob's run is a Job of its own, named by its scheduled time since the epoch (kubernetes pkg/controller/cronjob
# utils.go getJobName: `<cronjob>-<minutes>` from 1.21's controller, seconds before it), its pods that Job's generated
# names: `cronjobhello-1588738020-znrtv` is real `kubectl get pods` output (deiveehan/xplore-kubernetes
# samples/jobs/readme.md); the minute-suffixed names below are CONSTRUCTED in getJobName's shape
def test_a_cronjobs_runs_and_jobs_named_by_a_number_past_an_index_stay_their_own_jobs():
    """job_of stripped any number left after the generated suffix as an Indexed Job's index: every run of a CronJob
    (its Job `hello-28290331`, the next `hello-28290332`) read as one job `hello`, one Event (on the first run's pod)
    for two runs failing together, the second's consequences unsaid, neither the Job the cluster names.  Now only an
    index's shape is stripped (below 10^7, no leading zero: the API caps an Indexed Job's parallelism at 10^5)."""
    assert job_of("cronjobhello-1588738020-znrtv") == "cronjobhello-1588738020"
    assert job_of("hello-28290331-jsx77") == "hello-28290331" != job_of("hello-28290332-j26z9")
    assert job_of("nightly-train-28290331-2-x2x4z") == "nightly-train-28290331"  # an Indexed Job a CronJob made
    assert job_of("sweep-07-x2x4z") == "sweep-07"  # (no index has a leading zero)
    # an Indexed Job's index, as before (its largest: parallelism 10^5)
    assert job_of("bench-99999-x2x4z") == job_of("bench-0-bcdfg") == "bench"
    events = [WorkloadTracker(Metrics()).observe(PodRef("team-a", pod, f"uid-{i}", "main"), _timeout(i))
              for i, pod in enumerate(("hello-28290331-jsx77", "hello-28290332-j26z9"))]
    assert events[0].key != events[1].key and events[1].ref.pod == "hello-28290332-j26z9"


def test_an_mpijobs_launcher_and_its_workers_are_one_job():
    """REAL pod names of one MPIJob (kubeflow/mpi-operator #152, tests/fixtures/incidents/h535_mpi-operator-152-orte-
    daemon-lost): the launcher was job `<mpijob>-launcher`, its workers `<mpijob>`: two jobs, two Events for one
    failure."""
    mpijob = "tf-bert-libnlp-token-lr-5e-6-fp32-1572827779"
    assert job_of(f"{mpijob}-launcher-gdqv7") == job_of(f"{mpijob}-worker-19") == mpijob


def _timeout(rank: int):
    """A rank's NCCL watchdog timeout (TIMEOUT) as the classifier makes it."""
    from parsers import Classifier
    return Classifier().classify(TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=rank).rstrip("\n"))


# ---- pid -> pod ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("cgroup, uid", [
    ("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6f1e2a3b_4c5d_4e6f_8a9b_0c1d2e3f4a5b.slice/"
     "cri-containerd-" + "a" * 64 + ".scope\n", "6f1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"),  # v2, systemd driver
    ("12:memory:/kubepods/burstable/pod7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d/" + "b" * 64 + "\n"
     "11:cpu,cpuacct:/kubepods/burstable/pod7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d/" + "b" * 64 + "\n",
     "7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"),  # v1, cgroupfs driver
])
def test_pid_to_pod_through_cgroups(tmp_path, cgroup, uid):
    (tmp_path / "proc" / "4242").mkdir(parents=True)
    (tmp_path / "proc" / "4242" / "cgroup").write_text(cgroup)
    got = pod_of_pid(4242, str(tmp_path))
    assert got is not None and got[0] == uid and len(got[1]) == 64
    assert pod_of_pid(4243, str(tmp_path)) is None
    (tmp_path / "proc" / "1").mkdir()
    (tmp_path / "proc" / "1" / "cgroup").write_text("0::/init.scope\n")
    assert pod_of_pid(1, str(tmp_path)) is None


# ---- the agent: correlation, events, node health untouched -------------------------------------------

def make_agent(tmp_path: Path, pods: Path, boot: Boot | None = None, **flags) -> Agent:
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path / "state"),
                              "fallback_log_files": [], "nvml": "off", "pod_logs_root": str(pods),
                              "proc_root": str(tmp_path), "mode": "off", **flags})
    out = io.StringIO()
    agent = build(cfg, out=out, boot=boot)
    agent.out = out
    return agent


def run_pods(agent: Agent) -> None:
    src = source(Path(agent.cfg.pod_logs_root))
    agent.pods.pod_source = src
    src.discover()
    from parsers.model import WorkloadFindings
    agent.pipeline.process(WorkloadFindings(src.poll()))


def workload_lines(agent: Agent) -> list[dict]:
    import json
    return [json.loads(x) for x in agent.out.getvalue().splitlines() if '"workload"' in x]


def test_workload_failure_after_an_xid_on_this_node_names_it(tmp_path, pods):
    agent = make_agent(tmp_path, pods, boot=Boot("this-boot"))  # no start known: the fixture's 2024 lines are of it
    agent.pipeline.process([Record("kern", "2024-07-25T06:36:02+0000 node-1 kernel: NVRM: Xid (PCI:0000:5d:00): 79, "
                                   "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")])
    run_pods(agent)
    by_reason = {e["reason"]: e["message"] for e in workload_lines(agent)}
    assert "likely caused by Xid 79 on GPU 0000:5d:00 at 06:36:02" in by_reason["NCCLRemoteError"]
    assert "likely caused by Xid 79" in by_reason["CUDAIllegalAddress"]
    assert "peer" not in by_reason["NCCLIBCompletionError"].split("Container output:")[0]  # our words
    assert "no hardware or fabric fault" in by_reason["NCCLWatchdogTimeout"]  # 06:46: outside the 10 min window
    assert "not a node fault" in by_reason["CUDAOutOfMemory"]
    assert agent.metrics.registry.get_sample_value("gpu_npd_workload_findings_total",
                                                   {"namespace": "train", "kind": "nccl_timeout"}) == 1
    problems = {p.reason for p in agent.engine.problems.values()}
    assert problems == {"Xid79FallenOffBus"}  # workload findings raised nothing on the node


def test_two_ranks_on_one_gpu_say_so_in_their_pods_event_as_triage_does():
    """NVIDIA-NeMo/RL #3155's line (REAL, tests/fixtures/incidents/nemo-rl-3155-duplicate-gpu): the Pod Event names
    what NCCL found, in the words triage's reason says it in (parsers/kinds.py nccl_error's `named`), and that the line
    is the application's own failure. Was: "NCCL error on rank 15: ... the cause is likely elsewhere (another node or
    link: find the first failing rank) or in the application"."""
    from parsers import Classifier

    line = (Path(__file__).parents[1] / "fixtures" / "incidents" / "nemo-rl-3155-duplicate-gpu" / "logs" /
            "driver.log").read_text().splitlines()[0]
    f = Classifier().classify_alone(line)
    ev = WorkloadTracker(Metrics()).observe(PodRef("rl", "dapo-worker-8", "uid-8", "main"), f)
    assert ev.reason == "NCCLError"
    assert ev.message.startswith("two ranks on one GPU (NCCL found rank 7 on this rank's device) on rank 15: no "
                                 "hardware or fabric fault on this node in the preceding 10 min; the line reads as the "
                                 "application's own failure"), ev.message
    assert "likely elsewhere" not in ev.message


def test_a_completion_errors_event_names_its_status_as_triage_does():
    """NVIDIA/nccl #1405's line (REAL, tests/fixtures/incidents/nccl-1405-ib): the Pod Event names the completion's
    status in libibverbs' words and number (parsers/kinds.py ib_completion_error's `named`, LINE_WORDS), the words
    triage's reason says it in. Was: "NET/IB completion error on .. (peer 10.216.210.236): ..", status=12 unsaid."""
    from parsers import Classifier
    from triage import Clock, read_lines
    from triage.attribute import named

    line = (Path(__file__).parents[1] / "fixtures" / "incidents" / "nccl-1405-ib" / "logs" /
            "kp-ddp-worker-0.log").read_text().splitlines()[0]
    f = Classifier().classify_alone(line)
    ev = WorkloadTracker(Metrics()).observe(PodRef("ml", "kp-ddp-worker-0", "uid-0", "main"), f)
    assert ev.reason == "NCCLIBCompletionError"
    said = "NET/IB completion error 'transport retry counter exceeded' (status 12)"
    assert ev.message.startswith(said), ev.message
    assert "(peer 10.216.210.236)" in ev.message
    (e,) = [e for e in read_lines([line], "kp-ddp-worker-0.log", Clock()) if e.kind == "ib_completion_error"]
    assert named(e) == said


def test_without_a_node_fault_the_event_says_the_cause_is_elsewhere_and_names_the_peer(tmp_path, pods):
    agent = make_agent(tmp_path, pods)
    run_pods(agent)
    ib = next(e for e in workload_lines(agent) if e["reason"] == "NCCLIBCompletionError")
    assert "(peer 10.42.0.2" in ib["message"] and "cause is likely elsewhere" in ib["message"]
    assert agent.engine.problems == {}
    assert not any(c.status for c in agent.engine.conditions.values())


def _agent_with_pid_5150(tmp_path, pods):
    """An agent whose /proc has pid 5150 in the fixture pod's container (its cgroup), the pod logs read once."""
    proc = tmp_path / "proc" / "5150"
    proc.mkdir(parents=True)
    proc.joinpath("cgroup").write_text("0::/kubepods.slice/kubepods-pod6f1e2a3b_4c5d_4e6f_8a9b_0c1d2e3f4a5b.slice/"
                                       "cri-containerd-" + "c" * 64 + ".scope\n")
    agent = make_agent(tmp_path, pods)
    run_pods(agent)
    return agent


def test_application_xid_with_a_pid_becomes_an_event_on_its_pod(tmp_path, pods):
    agent = _agent_with_pid_5150(tmp_path, pods)
    agent.pipeline.process([Record("kmsg", "3,9,1000,-;NVRM: Xid (PCI:0000:18:00): 31, pid=5150, name=python3, Ch 00000008, "
                                   "intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f_12345000. "
                                   "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ")])
    ev = next(e for e in workload_lines(agent) if e["reason"].startswith("Xid31"))
    assert ev["pod"] == "llama-70b-worker-2" and "pid 5150 (python3)" in ev["message"]
    assert agent.engine.problems == {}  # an application Xid is the pod's business, not the node's
    assert not agent.engine.conditions["GPUUnhealthy"].status


def test_32_rank_burst_is_one_event_with_a_count():
    with ApiDouble() as api:
        s = KubeSettings(api_server=api.url)
        recorder = EventRecorder("default", "gpu-1")
        tracker = WorkloadTracker(Metrics())
        from parsers.model import PodRef
        from parsers import Classifier
        c = Classifier()
        for r in range(32):  # 8 pods x 4 ranks, one second
            ref = PodRef("train", f"llama-70b-worker-{r // 4}", f"uid-{r // 4}", "pytorch")
            ev = tracker.observe(ref, c.classify(TIMEOUT.format(ts=f"2024-07-25T06:46:02.{r:09d}Z", r=r).rstrip("\n")))
            recorder.record(Ref("Pod", ev.ref.pod, ev.ref.namespace, ev.ref.uid), ev.reason, ev.message, key=ev.key)
        recorder.flush(make_api(s), 5)
        (ev,) = api.events()
        assert ev["count"] == 32 and ev["involvedObject"]["kind"] == "Pod"
        assert ev["involvedObject"]["name"] == "llama-70b-worker-0" and ev["metadata"]["namespace"] == "train"
        assert "NCCL watchdog timeout on 32 ranks (0,1,2," in ev["message"] and ev["reason"] == "NCCLWatchdogTimeout"


# a container that prints a kernel line (a node-diagnostics pod tailing dmesg): this one is the firmware refusing a
# restricted register read, info (tests/fixtures/realworld/mlx5-more.yaml, from the address given there)
ACCESS_REG = ("[11176.517416] mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805) op_mod(0x1) "
              "failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)")


def test_a_pods_info_finding_is_counted_but_makes_no_event():
    from parsers import Classifier
    from parsers.model import PodRef
    metrics, c = Metrics(), Classifier()
    tracker = WorkloadTracker(metrics)
    ref = PodRef("ops", "node-diag-0", "uid-0", "diag")
    info = c.classify(ACCESS_REG)
    assert info is not None and info.severity == "info"
    assert tracker.observe(ref, info) is None
    assert metrics.registry.get_sample_value("gpu_npd_workload_findings_total",
                                             {"namespace": "ops", "kind": info.kind}) == 1
    timeout = c.classify(TIMEOUT.format(ts="2024-07-25T06:46:02.000000000Z", r=0).rstrip("\n"))
    assert tracker.observe(ref, timeout).reason == "NCCLWatchdogTimeout"  # a warning or worse is said


def test_a_possible_cause_is_described_when_a_failure_asks_with_the_severity_it_was_noted_at(monkeypatch):
    """A node finding that could break a job is kept as noted and described (parsers/correlate.py `describe`) only
    when a pod's failure asks for a cause, once: never per finding (was: each one described as it was noted, though
    most are never asked about); its severity the one noted, whatever the Xid policy rewrites in place after it
    (agent/pipeline.py notes a finding before the engine decides it)."""
    import parsers.correlate
    from agent import workloads
    from parsers import Classifier
    from parsers.model import PodRef
    described: list[str] = []

    def counting(f, real=parsers.correlate.describe):
        described.append(f.kind)
        return real(f)

    monkeypatch.setattr(parsers.correlate, "describe", counting)
    monkeypatch.setattr(workloads, "describe", counting)
    c, tracker = Classifier(), WorkloadTracker(Metrics())
    xids = [c.classify(f"2024-07-25T06:36:0{i}+0000 node-1 kernel: NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', "
                       "name=<unknown>, GPU has fallen off the bus.") for i in range(3)]
    for f in xids:
        tracker.note_finding(f)
        f.severity = "warning"  # (as an xid_policy severity override does, in place, after the note)
    assert described == []
    ref = PodRef("train", "train-worker-0", "uid-0", "main")
    for r in (0, 1):
        timeout = c.classify(TIMEOUT.format(ts="2024-07-25T06:40:02.000000000Z", r=r).rstrip("\n"))
        assert "likely caused by Xid 79 on GPU 0000:5d:00 at 06:36:02" in tracker.observe(ref, timeout).message
    assert described == ["xid"] * 3  # described once, for the first failure
    assert [c.severity for c in tracker.causes] == ["fatal"] * 3


def _held(obj, seen: set) -> int:
    """Bytes `obj` holds (sys.getsizeof), with what it refers to, each object counted once (`seen`)."""
    import gc
    import sys

    if id(obj) in seen or isinstance(obj, type):
        return 0
    seen.add(id(obj))
    return sys.getsizeof(obj) + sum(_held(o, seen) for o in gc.get_referents(obj))


def test_a_possible_cause_holds_what_its_description_reads_not_the_finding():
    """512 worst-case node findings noted (a kernel message's 4 KiB, details beyond what a cause's description reads):
    the tracker holds what `describe` reads of each (parsers/correlate.py Noted), whatever the message's length or the
    other details, under 200 bytes a cause (was: each finding, ~4.5 KiB a cause, 2.3 MiB under tracemalloc)."""
    from parsers import Classifier, Finding

    base = Classifier().classify("2024-07-25T06:36:00+0000 node-1 kernel: NVRM: Xid (PCI:0000:5d:00): 79, "
                                 "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")

    def held(length: int) -> int:
        tracker = WorkloadTracker(Metrics())
        for i in range(512):
            tracker.note_finding(replace(base, message=f"{i:04d}".ljust(length, "x"),
                                         details={**base.details, "gpu_index": i % 8, "uuid": f"GPU-{i:032x}"}))
        assert len(tracker.causes) == 512
        assert not any(isinstance(o, (Finding, dict)) for c in tracker.causes for o in (c, *c))
        seen = {id(base.kind), id(base.severity), id(base.pci)}  # shared with every finding (interned, the memo's)
        return sum(_held(c, seen) for c in tracker.causes)

    worst = held(4096)
    assert worst == held(16)  # the message is not held
    assert worst <= 512 * 200, worst


def test_a_noted_cause_is_described_as_its_finding_for_every_real_cause_line():
    """What a noted cause keeps is all its description reads (parsers/correlate.py `describe`: kind, Xid or SXid,
    device, its netdev or GPU index): for every finding of the real-world corpus (tests/fixtures/realworld/) that could
    break a job, the noted cause reads as the finding does, its GPU index given or not."""
    from datetime import datetime, timezone

    from parsers import Classifier
    from parsers.correlate import DEVICE_NOUN, Noted, can_cause, describe
    from realworld import samples

    tracker, kinds, tables = WorkloadTracker(Metrics()), set(), Classifier()
    for item in samples():
        read = tables.for_stream().read
        for line in item["text"].splitlines():
            f, amended = read(line)
            for f in (f, *amended) if f is not None else amended:
                if f.timestamp is None:
                    f.timestamp = datetime.fromtimestamp(0, timezone.utc)
                for gpu in ((None, 3) if f.pci and f.details.get("gpu_index") is None else (None,)):
                    if gpu is not None:
                        f.details["gpu_index"] = gpu
                    if can_cause(f):
                        tracker.note_finding(f)
                        assert describe(Noted(*tracker.causes[-1])) == describe(f), (item["source"], f.message)
                        kinds.add(f.kind)
    assert {"xid", "sxid"} <= kinds and kinds & set(DEVICE_NOUN), kinds


def test_parse_correlates_a_training_log_with_a_dmesg(tmp_path):
    from click.testing import CliRunner

    from gpunpd.cli import main
    dmesg = tmp_path / "dmesg.txt"
    dmesg.write_text("[Thu Jul 25 06:36:02 2024] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, "
                     "GPU has fallen off the bus.\n")
    log = FIXTURE / W0 / "pytorch" / "0.log"
    r = CliRunner().invoke(main, ["parse", "--nvml", "off", str(log), str(dmesg)])  # order does not matter
    assert r.exit_code == 0, r.output
    assert "NCCL remote error on rank 16, likely caused by Xid 79 on GPU 0000:5d:00 at 06:36:02" in r.output
    alone = CliRunner().invoke(main, ["parse", "--nvml", "off", str(log)])
    assert "NCCL remote error on rank 16: no hardware or fabric fault" in alone.output


def test_agent_process_turns_a_pod_log_line_into_a_pod_event(tmp_path, pods):
    import yaml

    from harness import AgentProc
    with ApiDouble() as api:
        api.add_node("gpu-node-1", gpus=0)  # this test machine has no GPU: capacity says so too
        conf = tmp_path / "gpu-npd.yaml"
        conf.write_text(yaml.safe_dump({"mode": "observe", "kubernetes": {"api_server": api.url}, "nvml": "off",
                                        "pod_logs_root": str(pods)}))
        a = AgentProc(tmp_path, "--config", str(conf))
        a.wait_for(lambda: a.value("gpu_npd_source_up", source="pods") == 1, what="pod source")
        a.wait_pods_listed()  # the first scan has taken the existing logs as history
        append(pods / W1 / "pytorch" / "0.log", TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=21))
        a.wait_for(lambda: any(e["reason"] == "NCCLWatchdogTimeout" for e in api.events()), timeout=10,
                   what="pod event")
        ev = next(e for e in api.events() if e["reason"] == "NCCLWatchdogTimeout")
        assert ev["involvedObject"]["kind"] == "Pod" and ev["involvedObject"]["name"] == "llama-70b-worker-3"
        assert ev["metadata"]["namespace"] == "train" and "rank 21" in ev["message"]
        assert a.value("gpu_npd_workload_findings_total", namespace="train", kind="nccl_timeout") == 1
        assert a.value("gpu_npd_scan_failures_total") == 0  # (exported from the start, the pod source's counted)
        a.wait_for(lambda: (a.value("gpu_npd_source_records_total", source="pods") or 0) >= 1, what="lines counted")
        assert api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "False"  # the node stays healthy
        assert a.stop()[0] == 0


def test_an_xid_storm_from_one_process_reads_its_cgroup_once(tmp_path, pods):
    agent = _agent_with_pid_5150(tmp_path, pods)
    said = []
    agent.pipeline.sinks.append(type("Sink", (), {"apply": lambda self, snap: said.extend(snap.pod_events)})())
    line = "3,{n},1000,-;NVRM: Xid (PCI:0000:18:00): 31, pid=5150, name=python3, Ch 00000008, MMU Fault"
    agent.pipeline.process([Record("kmsg", line.format(n=n)) for n in range(500)])
    assert agent.pods.pids.reads == 1
    assert sum(e.reason == "Xid31MMUFault" for e in said) == 500  # each one still said (the Event's count)
    # the agent's own log: the Event's line once, its updates counted on its next line (EVENT_REPEAT_SECONDS)
    assert sum(e["reason"] == "Xid31MMUFault" for e in workload_lines(agent)) == 1


def test_an_events_updates_make_one_line_a_minute_with_their_count():
    """The stdout sink writes a pod Event's line when it is new, then at most once per EVENT_REPEAT_SECONDS with the
    updates in between counted; another Event's line is its own."""
    import io
    import json

    from agent.sinks.stdout import EVENT_REPEAT_SECONDS, StdoutSink
    from parsers.model import PodEvent, PodRef, Snapshot

    now = [1000.0]
    out = io.StringIO()
    sink = StdoutSink("node-1", out, clock=lambda: now[0])
    ref = PodRef("train", "worker-0", "uid", "pytorch")

    def events(key: str, n: int) -> Snapshot:
        return Snapshot(pod_events=tuple(PodEvent(ref, "NCCLWatchdogTimeout", f"on {i} ranks", key) for i in range(n)))

    sink.apply(events("a", 500))
    sink.apply(events("b", 1))
    now[0] += EVENT_REPEAT_SECONDS - 1
    sink.apply(events("a", 10))
    now[0] += 1
    sink.apply(events("a", 2))
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [(x["message"], x.get("repeats")) for x in lines] == \
        [("on 0 ranks", None), ("on 0 ranks", None), ("on 0 ranks", 509)]


@pytest.mark.slow
def test_a_symlinked_pod_log_never_reads_host_files_through_the_agent(tmp_path, pods):
    """A `0.log` symlink to a host file (a token in it, and lines that would classify) is refused and counted;
    its text reaches no output. The real pod's lines are still read."""
    host_file = tmp_path / "host-secret"
    host_file.write_text("TOKEN-8c1f0e NCCL WARN rank 3 Connection closed by remote peer TOKEN-8c1f0e\n" * 3)
    evil = pods / "evil_attacker_11111111-2222-3333-4444-555555555555" / "main"
    evil.mkdir(parents=True)
    (evil / "0.log").symlink_to(host_file)
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"nvml": "off", "pod_logs_root": str(pods)}))
    a = AgentProc(tmp_path, "--config", str(conf))
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="pods") == 1, what="pod source")
    a.wait_pods_listed()
    with open(host_file, "a") as fh:
        fh.write("TOKEN-8c1f0e NCCL WARN rank 4 Connection closed by remote peer\n")
    # then three lines of the real pod, each written once the one before is counted: the turn that reads the first
    # may have passed the symlink before the host file grew, the next reads it (were it followed), and the third
    # comes in a later batch than that one, so a finding of the host file's line would be counted by then
    counted = lambda: a.value("gpu_npd_workload_findings_total", namespace="train", kind="nccl_timeout")  # noqa: E731
    for n, r in enumerate((21, 22, 23), 1):
        append(pods / W1 / "pytorch" / "0.log", TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=r))
        a.wait_for(lambda n=n: counted() == n, what=f"the real pod's line {n}")
    a.wait_for(lambda: (a.value("gpu_npd_source_refused_files_total", source="pods") or 0) >= 1, what="refused")
    assert a.value("gpu_npd_workload_findings_total", namespace="evil", kind="nccl_error") is None
    scraped = a.metrics()  # (read while it runs: after stop there is no endpoint and it reads "")
    assert "gpu_npd_build_info" in scraped
    assert a.stop()[0] == 0
    a.out.seek(0)
    assert "TOKEN-8c1f0e" not in a.out.read() + scraped + a.stderr()


def test_pod_event_text_is_ours_with_a_sanitised_quoted_excerpt():
    from parsers.model import PodRef
    from parsers import Classifier

    tracker = WorkloadTracker(Metrics())
    ref = PodRef("team-a", "job-0", "uid-0", "main")
    c = Classifier()
    forged = ("2024-07-25T07:00:00.000000000Z stderr F \x1b[31mNVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', "
              "name=<unknown>, GPU has fallen off the bus.\x1b[0m node is fine; ignore gpu-npd\x07" + "x" * 400)
    f = c.classify(forged)
    assert f is not None and f.kind == "xid"
    message = tracker.observe(ref, f).message
    assert "ran out of GPU memory" not in message  # the old text said so of any non-NCCL kind
    assert "container's own output" in message and 'Container output: "' in message
    excerpt = message.split('Container output: "', 1)[1]
    assert "\x1b" not in message and "\x07" not in message and len(excerpt) <= 162
    oom = c.classify("2024-07-25T07:00:01.000000000Z stderr F torch.OutOfMemoryError: CUDA out of memory. "
                     "Tried to allocate 2.00 GiB")
    if oom is not None and oom.kind == "cuda_oom":
        assert "ran out of GPU memory" in tracker.observe(ref, oom).message


@pytest.mark.slow
def test_hostile_keys_from_one_pod_keep_memory_bounded_and_evictions_counted(tmp_path, pods):
    """Issue 16: 10,000 distinct hostile keys: 6,000 `NVRM: GPU at PCI:...: GPU-<uuid>` lines and 4,000 never-completed CRI partial
    lines from one pod (synthetic: shaped like the driver's GPU-UUID line and kubelet's CRI `P` tag) through the
    real process: RSS stays under 64 MiB, the pci->UUID map evicts (counted), other pods are still read."""
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"nvml": "off", "pod_logs_root": str(pods)}))
    a = AgentProc(tmp_path, "--config", str(conf))
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="pods") == 1, what="pod source")
    a.wait_pods_listed()
    hostile = pods / W1 / "pytorch" / "0.log"
    ts = "2024-07-25T07:00:00.000000000Z"
    with open(hostile, "a") as fh:
        for i in range(6000):
            fh.write(f"{ts} stderr F NVRM: GPU at PCI:{i >> 8:04x}:{i & 255:02x}:00: GPU-{i:08x}-0000-0000-0000-"
                     "000000000000\n")
        for i in range(4000):
            fh.write(f"{ts} stderr P partial line {i} of a group that never completes ")
            fh.write("\n")
    a.wait_for(lambda: (a.value("gpu_npd_cache_evictions_total", cache="pod_uuid") or 0) >= 6000 - 1024, timeout=60,
               what="uuid evictions")
    append(pods / "train_llama-70b-worker-2_6f1e2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b" / "pytorch" / "0.log",
           TIMEOUT.format(ts=ts, r=7))  # another pod is still read
    a.wait_for(lambda: (a.value("gpu_npd_workload_findings_total", kind="nccl_timeout") or 0) >= 1, timeout=30,
               what="other pod read")
    rss = a.rss()
    assert a.stop()[0] == 0
    assert rss - a.idle_rss < 28 << 20, (a.idle_rss >> 20, rss >> 20)  # (64 MiB as the image runs: ~35 idle)


# ---- bounded per-input structures (issue 16: RSS 45 -> 60 MiB under distinct-rank NCCL lines) ---------

def distinct_rank_lines(n: int, first: int = 0) -> str:
    # synthetic: torch's watchdog line (the shape of TIMEOUT, from the fixture) with a new rank on every line
    return "".join(TIMEOUT.format(ts="2024-07-25T07:00:00.000000000Z", r=r) for r in range(first, first + n))


def test_one_memo_for_all_pod_files_and_polls_of_bounded_size(pods):
    """Each file's classifier had its own 4,096-line memo (5 MiB of templates for one flooding file, times every
    file followed), and one poll handed on every finding of a burst at once (10,000 findings: 13 MiB in one
    batch). Now the memo is one for the source, and a poll stops at MAX_BATCH_FINDINGS; nothing is lost."""
    from agent.sources.podlogs import MAX_BATCH_FINDINGS, POD_MEMO_SIZE

    src = PodLogSource(str(pods))
    src.discover()
    a, b = pods / W0 / "pytorch" / "0.log", pods / W1 / "pytorch" / "0.log"
    append(a, distinct_rank_lines(3000))
    append(b, distinct_rank_lines(3000, first=3000))
    batches = []
    while found := src.poll():
        batches.append(found)
    assert sum(map(len, batches)) == 6000  # every line, once
    assert max(map(len, batches)) < 2 * MAX_BATCH_FINDINGS and len(batches) > 3
    pods_of = [{ref.pod for ref, _ in batch} for batch in batches[:2]]
    assert pods_of[0] | pods_of[1] == {"llama-70b-worker-2", "llama-70b-worker-3"}  # the next poll, the next pod
    assert all(t.scanner.classifier.memo is src.memo for t in src.tails.values())
    assert len(src.memo) <= POD_MEMO_SIZE and src.memo_evictions() >= 6000 - POD_MEMO_SIZE


def test_a_pod_writing_faster_than_the_source_reads_starves_no_other_pod(pods, monkeypatch):
    """A poll read each file to its end: a pod writing faster than the source reads (bench/podlogs.py at 50 MB/s: 199
    MB read, 0 findings of 295) kept one poll on it to no end, nothing of it or of the other pods handed on.  Now a
    poll reads MAX_POLL_BYTES of a file at most: the other pod's failure comes with the first poll, the loop goes on at
    once (`turn` says there is more), and the flood's own failure, past the bound, comes later, every line once."""
    from agent.sources import podlogs

    monkeypatch.setattr(podlogs, "MAX_POLL_BYTES", 2 * podlogs.READ_CHUNK)
    src = source(pods)
    src.discover()
    src.poll()  # (the fixture's own lines)
    a, b = pods / W0 / "pytorch" / "0.log", pods / W1 / "pytorch" / "0.log"
    # synthetic: a metrics line a step, as the bench's mix (no keyword), 6 bounds' worth, then rank 7's timeout
    append(a, "".join(f'2024-07-25T07:00:00.000000000Z stdout F {{"step": {i}, "loss": 1.5}}\n'
                      for i in range(6 * 2 * podlogs.READ_CHUNK // 60)) + TIMEOUT.format(ts="2024-07-25T07:00:01Z", r=7))
    append(b, TIMEOUT.format(ts="2024-07-25T07:00:01Z", r=9))
    batches = []
    assert src.turn(batches.append) is True  # cut short: more to read at once
    assert [(f.kind, f.rank) for _, f in batches[0].items] == [("nccl_timeout", 9)]  # the other pod, not starved
    while src.turn(batches.append):
        pass
    assert [(ref.pod, f.rank) for batch in batches for ref, f in batch.items] == [
        ("llama-70b-worker-3", 9), ("llama-70b-worker-2", 7)]  # every failure once
    assert os.path.getsize(a) == src.tails[str(a)].offset  # read up


def test_a_followed_files_classifier_is_a_stream_of_the_sources(pods, monkeypatch):
    """Each followed file's classifier is `Classifier.for_stream` of one the source holds: the table's derived tables,
    prefilter and memo shared, nothing of another file's context.  Before, each file built a Classifier of its own,
    whose set-up looked the table up by the whole table (every row hashed: ~0.8 ms a file, a first scan of a node's
    hundreds of files)."""
    import parsers.classify as classify

    looked_up = []
    tables = classify._dispatch_tables
    monkeypatch.setattr(classify, "_dispatch_tables", lambda rules: looked_up.append(1) or tables(rules))
    src = source(pods)
    built = len(looked_up)
    src.discover()
    assert len(src.tails) >= 2 and len(looked_up) == built  # no file's set-up looked the table up
    classifiers = [t.scanner.classifier for t in src.tails.values()]
    assert len({id(c) for c in classifiers}) == len(classifiers)  # each file its own context
    assert all(c.memo is src.memo and c.prefilter is classifiers[0].prefilter for c in classifiers)
    assert sorted(kinds(src.poll())) == sorted([
        ("llama-70b-worker-2", "nccl_remote_error"), ("llama-70b-worker-2", "ib_completion_error"),
        ("llama-70b-worker-2", "cuda_error"), ("llama-70b-worker-3", "nccl_timeout"),
        ("llama-70b-worker-3", "cuda_oom")])


def test_workload_rank_sets_are_bounded_and_evictions_counted():
    from agent.workloads import MAX_RANKS, MAX_RANKS_TOTAL
    from parsers.model import PodRef
    from parsers import Classifier

    events = []
    tracker = WorkloadTracker(Metrics())
    c = Classifier()
    line = distinct_rank_lines(1).rstrip("\n")
    for job in range(MAX_RANKS_TOTAL // MAX_RANKS + 3):
        ref = PodRef("team-a", f"job{job}-worker-0", f"uid-{job}", "main")
        for r in range(MAX_RANKS + 10):
            f = c.classify(line)
            f.rank = r
            events.append(tracker.observe(ref, f).message)
    assert sum(len(r) for r in tracker._ranks.values()) <= MAX_RANKS_TOTAL and tracker.evictions >= 3
    assert f"{MAX_RANKS} ranks (0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15...)" in events[-1]


@pytest.mark.slow
def test_distinct_rank_nccl_lines_from_one_pod_keep_memory_bounded(tmp_path, pods):
    """10,000 NCCL lines from one pod, each naming another rank, through the real process: RSS less than 28 MiB over
    the agent's idle (64 MiB as the image runs it) and it grows by less than 12 MiB (it rose by 18 MiB and stayed: a 4,096-line memo per file and the whole
    burst in one batch), the memo's evictions exported, every line counted.  The growth is counted from after the
    pod's first ten failures, so what the first one loads once is not the burst's (it grew 11.7-12.8 MiB on a loaded
    host counted from before them; 6-8.5 MiB from after)."""
    conf = tmp_path / "gpu-npd.yaml"
    conf.write_text(yaml.safe_dump({"nvml": "off", "pod_logs_root": str(pods)}))
    a = AgentProc(tmp_path, "--config", str(conf), stdout=open(os.devnull, "w"))
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="pods") == 1, what="pod source")
    # ten lines first: what the first pod failure loads once (job facts, workload tracker, the Event's words) is
    # not the burst's; the ten are also counted below
    append(pods / W1 / "pytorch" / "0.log", distinct_rank_lines(10, first=10_000))
    a.wait_for(lambda: a.value("gpu_npd_workload_findings_total", namespace="train", kind="nccl_timeout") == 10,
               timeout=30, what="the first ten findings")
    time.sleep(0.5)
    before = a.rss()
    append(pods / W1 / "pytorch" / "0.log", distinct_rank_lines(10_000))
    a.wait_for(lambda: a.value("gpu_npd_workload_findings_total", namespace="train", kind="nccl_timeout") == 10_010,
               timeout=60, what="10,000 findings")
    assert (a.value("gpu_npd_cache_evictions_total", cache="pod_memo") or 0) >= 10_010 - 1024
    rss = a.rss()
    assert a.stop()[0] == 0
    assert rss - a.idle_rss < 28 << 20 and rss - before < 12 << 20, (a.idle_rss >> 20, before >> 20, rss >> 20)


def test_a_quoted_socket_error_gives_the_pods_event_its_peer_once(tmp_path, pods):
    """PyTorch's ncclRemoteError with NCCL's socket error quoted after "Last error:" (pytorch/pytorch #150916,
    verbatim, in a pod's CRI log): one failure, its finding amended with the peer by the quoted line (parsers/rules.py
    EVENT_FILLS); the pod's Event says it once, naming the peer, and the finding is counted once."""
    pod = pods / "research_bert-worker-0_9a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" / "pytorch"
    pod.mkdir(parents=True)
    pod.joinpath("0.log").write_text("".join(amended_pair("pytorch-150916")[0]))
    agent = make_agent(tmp_path, pods)
    run_pods(agent)
    said = [e for e in workload_lines(agent) if e["pod"] == "bert-worker-0"]
    assert [e["reason"] for e in said] == ["NCCLRemoteError"]
    assert "(peer ip-172-31-45-209.eu-north-1.compute.internal)" in said[0]["message"].split("Container output:")[0]
    assert agent.metrics.registry.get_sample_value("gpu_npd_workload_findings_total",
                                                   {"namespace": "research", "kind": "nccl_remote_error"}) == 1


# the two real pairs whose later line amends the earlier's finding: pytorch/pytorch #150916's ncclRemoteError and the
# socket error it quotes (the peer; tests/fixtures/incidents/pytorch-150916-killed-peer), vllm-project/vllm #15102's Ray
# OOM kill and the memory monitor's line naming the node (tests/fixtures/realworld/ray-oom.yaml: a control in the tests of
# a problem changed between the polls, since Ray's OOM kill takes no node cause and its key is the same either way)
AMENDED_PAIRS = {
    "pytorch-150916": ((FIXTURE.parents[3] / "incidents/pytorch-150916-killed-peer/logs/train.log").read_text()
                       .splitlines(), "rank 1 (peer ip-172-31-45-209.eu-north-1.compute.internal)"),
    "vllm-15102": (None, "On the node its line names (host 29.45.33.204)")}
XID79 = ("{at} node-1 kernel: NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
         "bus.")  # (the line test_workload_failure_after_an_xid_on_this_node_names_it reads)


def amended_pair(name: str) -> tuple[list[str], str]:
    """A pair's CRI lines (1 ns apart, as the kubelet stamps them) and the words its amendment adds."""
    from realworld import lines_by_source

    lines, words = AMENDED_PAIRS[name]
    lines = lines or lines_by_source("ray-oom.yaml")["https://github.com/vllm-project/vllm/issues/15102"]
    return [f"2025-04-15T21:17:08.99631956{i}Z stderr F {line}\n" for i, line in enumerate(lines)], words


@pytest.mark.parametrize("name", AMENDED_PAIRS)
def test_an_amendment_finds_its_event_though_the_standing_problem_cleared_between_the_polls(tmp_path, name):
    """An amendment read a poll after the finding it amends re-words the Event that finding was quoted under, though
    the node's standing problem (a fatal Xid 79, a likely cause of a correlated kind: the ncclRemoteError, not Ray's
    OOM kill) cleared between the two polls: the key the amendment's time gives differs from the Event's.  Was: `amend`
    looked the Event up under the key of now, missed it, and the peer was silently dropped.  The Event keeps its key
    and the cause it said."""
    from parsers.model import Problem

    cri, words = amended_pair(name)
    log = tmp_path / "pods" / "train_bert-worker-0_9a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" / "main" / "0.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(cri[:-1]))
    src = source(tmp_path / "pods")
    src.discover()
    tracker = WorkloadTracker(Metrics())
    fault = Problem(id="xid79", subject="gpu:0000:5d:00", kind="xid", condition="GPUUnhealthy",
                    reason="Xid79FallenOffBus", severity="fatal", attribution="hardware", action="", message="",
                    clear="reset", first_seen=time.time(), last_seen=time.time())
    (said,) = [e for e in (tracker.observe(ref, f, fault) for ref, f in src.poll()) if e is not None]
    append(log, cri[-1])
    (ref, amending), = src.poll()
    again = tracker.amend(ref, amending)  # (no problem standing now)
    assert again is not None, "the amendment was dropped"
    assert (again.key, again.reason, again.ref, again.count) == (said.key, said.reason, said.ref, 0)
    assert words not in said.message
    # the cause it said kept (a failure a node fault explains names no peer: parsers/correlate.py `explain`)
    caused = name == "pytorch-150916"
    assert ("likely caused by Xid79FallenOffBus" in again.message) == caused and (words in again.message) != caused


# each pair's failure: its Event's reason and its finding's kind
AMENDED_FAILURES = {"pytorch-150916": ("NCCLRemoteError", "nccl_remote_error"), "vllm-15102": ("WorkloadError", "oom_kill")}


@pytest.mark.parametrize("name", AMENDED_PAIRS)
@pytest.mark.parametrize("xid", [False, True], ids=["two polls", "an xid between the polls"])
def test_an_amendment_read_a_poll_later_rewords_its_event_once(tmp_path, pods, name, xid):
    """A real pair (pytorch/pytorch #150916's exception and the socket error it quotes; vllm-project/vllm #15102's Ray
    OOM kill and the line naming its node), its later line written after a poll read the earlier ones, through the
    agent's pipeline: the source numbers the pod log's lines on from poll to poll (Scanner.scan first_line), so the
    later line joins the earlier's event: one failure, counted once (its lines numbered from 1 again at each poll, the
    later line was a second failure).  What the later line gives amends a finding whose Event was said with the earlier
    batch: no second occurrence, so the count stays true, but that Event re-worded with it (agent/pipeline.py
    `_pod_findings`, agent/workloads.py `amend`; was: dropped, the peer never said).  `xid`: the kernel's fatal Xid 79
    read between the two polls (after the failure: no remembered cause of it, but the node's standing problem when the
    amendment is read): that Event re-worded under its own key, without the cause it never said.  Was: dropped for the
    ncclRemoteError (the key of now named the Xid)."""
    cri, words = amended_pair(name)
    reason, kind = AMENDED_FAILURES[name]
    log = pods / "research_bert-worker-0_9a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" / "pytorch" / "0.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(cri[:-1]))
    agent = make_agent(tmp_path, pods, boot=Boot("this-boot"))
    src = agent.pods.pod_source = source(pods)
    src.discover()
    agent.pipeline.process(WorkloadFindings(src.poll()))
    if xid:
        agent.pipeline.process([Record("kern", XID79.format(at="2025-04-15T21:20:00+0000"))])
        assert agent.pipeline.workloads.standing(agent.pipeline.engine.problems.values()) is not None
    append(log, cri[-1])
    agent.pipeline.process(WorkloadFindings(src.poll()))
    said = [e for e in workload_lines(agent) if e["pod"] == "bert-worker-0"]
    assert [e["reason"] for e in said] == [reason] * 2, said  # the Event, then the same Event re-worded
    assert "(peer " not in said[0]["message"] and words not in said[0]["message"] and words in said[1]["message"]
    assert "likely caused by" not in said[1]["message"]
    assert agent.metrics.registry.get_sample_value("gpu_npd_workload_findings_total",
                                                   {"namespace": "research", "kind": kind}) == 1


# a vLLM server's workers, each line behind its worker's tag (REAL lines: vllm-project/vllm #19631 and #19483, in a CRI
# envelope as the kubelet writes them): the Event lists the workers' ranks; before, it named none
VLLM_WORKER_ERRORS = (
    "(VllmWorker rank=7 pid=3350875) RuntimeError: CUDA error: an illegal memory access was encountered",
    "(VllmWorker rank=0 pid=226) ERROR 06-11 01:51:09 [multiproc_executor.py:527] RuntimeError: CUDA error: an illegal "
    "memory access was encountered",
)


def test_a_serving_pods_worker_errors_name_their_ranks_in_the_event(tmp_path):
    root = tmp_path / "pods"
    log = root / "serve_qwen-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" / "vllm" / "0.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(f"2025-06-11T01:51:09.{i:09d}Z stderr F {line}\n"
                           for i, line in enumerate(VLLM_WORKER_ERRORS)))
    src = source(root)
    src.discover()
    found = src.poll()
    assert [(f.kind, f.rank) for _, f in found] == [("cuda_error", 7), ("cuda_error", 0)]
    tracker = WorkloadTracker(Metrics())
    events = [tracker.observe(ref, f) for ref, f in found]
    assert len({e.key for e in events}) == 1  # one Event for the job
    assert " on 2 ranks (0,7)" in events[-1].message and events[-1].reason == "CUDAIllegalAddress"


# NCCL's NET/IB completion errors of one rank (REAL lines: NVIDIA/nccl #1814, tests/fixtures/incidents/nccl-1814-ib): the
# first says the link failed (status=12, the transport's retries exhausted), the later ones are the work requests flushed
# because of it (status=5)
IB_COMPLETIONS = tuple(
    "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer 172.36.143.59<44206> with "
    f"status={status} (Recv) localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221"
    for status in ("12 opcode=129 len=65536 vendor err 129", "5 opcode=32656 len=32659 vendor err 249",
                   "5 opcode=32656 len=32659 vendor err 249"))


def test_a_jobs_event_quotes_its_first_failure_on_its_first_pod_and_counts_the_rest(tmp_path):
    """One Event per job and reason on a node: it quotes the job's first line of the kind (the one the cluster reads
    back, triage's first failure), on the pod that wrote it, while its count and ranks grow; before, each line
    replaced the quote, and the cluster read NCCL's last flushed request (nccl-1814-ib: undetermined, not fabric),
    on the first pod though another pod had written it."""
    from cluster.evidence import Reader
    from triage.attribute import link_failed

    root = tmp_path / "pods"
    pods = ["train_llm-w-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "train_llm-w-1_1a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"]
    for i, (pod, lines) in enumerate(((pods[0], IB_COMPLETIONS[:1]), (pods[1], IB_COMPLETIONS[1:]))):
        log = root / pod / "main" / "0.log"
        log.parent.mkdir(parents=True)
        log.write_text("".join(f"2025-08-19T01:51:0{i}.{j:09d}Z stderr F {line}\n" for j, line in enumerate(lines)))
    src = source(root)
    src.discover()
    found = sorted(src.poll(), key=lambda rf: rf[1].timestamp)
    assert [(ref.pod, f.kind) for ref, f in found] == [("llm-w-0", "ib_completion_error")] + [
        ("llm-w-1", "ib_completion_error")] * 2
    tracker = WorkloadTracker(Metrics())
    events = [tracker.observe(ref, f) for ref, f in found]
    assert len({e.key for e in events}) == 1 and events[-1].ref.pod == "llm-w-0"
    assert "with status=12 opcode=129" in events[-1].message.split("Container output:")[1]
    ev = {"reason": events[-1].reason, "message": events[-1].message, "involvedObject": {"name": "llm-w-0"}}
    (said,) = Reader().pod_event(ev, host="node-a")
    assert said.kind == "ib_completion_error" and link_failed(said)


# NCCL's NET/IB completion errors of GPU 4's process (REAL lines: deepspeedai/DeepSpeed #6875,
# https://github.com/deepspeedai/DeepSpeed/issues/6875, tests/fixtures/incidents/deepspeed-6875-ib-retry): the first
# `status=12` (retries exceeded: the link), a later `status=5` (a request flushed because of it)
DEEPSPEED_IB = [line for line in (Path(__file__).parents[1] / "fixtures" / "incidents" / "deepspeed-6875-ib-retry" /
                                  "logs" / "comment-2-start.log").read_text().splitlines() if "Got completion" in line]


def test_a_flushed_request_read_first_gives_way_to_the_failure_that_decides_and_the_event_quotes_it(tmp_path):
    """A job's first line of a kind on the node, as read, may be the aftermath of another failure: a pod whose log is
    read first printed only a flushed request (`status=5`), another pod the retries exceeded (`status=12`) at the same
    time.  The Event then quotes the line that decides (on the pod that wrote it: one Event more, once), the later
    flushed lines counted on it; the recorder keeps the tracker's latest message with the count and times, so the
    Event the cluster reads says the link failed.  Before, the flushed line stayed quoted and the cluster read no
    fabric failure (bench/live_vs_offline.py deepspeed-6875-ib-retry: undetermined, offline fabric)."""
    from cluster.evidence import Reader
    from triage.attribute import link_failed

    retry, flush = DEEPSPEED_IB[0], DEEPSPEED_IB[-1]
    assert "status=12" in retry and "status=5" in flush
    root = tmp_path / "pods"
    pods = ["train_llm-w-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "train_llm-w-1_1a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"]
    for pod, lines in ((pods[0], [flush]), (pods[1], [retry, flush])):
        log = root / pod / "main" / "0.log"
        log.parent.mkdir(parents=True)
        log.write_text("".join(f"2024-12-29T16:47:25.000000000Z stderr F {line}\n" for line in lines))
    src = source(root)
    src.discover()
    found = sorted(src.poll(), key=lambda rf: rf[0].pod)  # the flushed request's pod read first (each pod's in order)
    assert [(ref.pod, f.details["wc_status"]) for ref, f in found] == [
        ("llm-w-0", "IBV_WC_WR_FLUSH_ERR"), ("llm-w-1", "IBV_WC_RETRY_EXC_ERR"), ("llm-w-1", "IBV_WC_WR_FLUSH_ERR")]
    tracker = WorkloadTracker(Metrics())
    rec = EventRecorder("default", "node-a", burst=10, per_minute=600)
    events = [tracker.observe(ref, f) for ref, f in found]
    for ev in events:  # as the Kubernetes sink records them (agent/kube/sink.py apply)
        rec.record(Ref("Pod", ev.ref.pod, ev.ref.namespace, ev.ref.uid), ev.reason, ev.message, key=ev.key)
    assert len({e.key for e in events}) == 1 and [e.ref.pod for e in events] == ["llm-w-0", "llm-w-1", "llm-w-1"]
    bodies = {a.ref.name: rec._body(a) for a in rec._aggs.values()}
    assert {name: b["count"] for name, b in bodies.items()} == {"llm-w-0": 1, "llm-w-1": 2}
    assert "with status=12 " in bodies["llm-w-1"]["message"].split("Container output:")[1]
    (said,) = Reader().pod_event({**bodies["llm-w-1"], "involvedObject": {"name": "llm-w-1"}}, host="node-a")
    assert said.kind == "ib_completion_error" and link_failed(said)
    # a line that decides never gives way to a later one (flushed, or deciding too): the quote moves once
    again = tracker.observe(found[0][0], found[0][1])
    assert again.ref.pod == "llm-w-1" and "with status=12 " in again.message
    deciding = tracker.observe(found[0][0], replace(found[1][1], rank=5))  # another deciding line, on the other pod
    assert deciding.ref.pod == "llm-w-1" and deciding.key == again.key


SGLANG_RECORD = (Path(__file__).parents[1] / "fixtures" / "incidents" / "sglang-3713-tp0-illegal-access" / "logs" /
                 "server.log")


def test_a_records_traceback_lines_without_its_prefix_are_its_writers_rank(tmp_path):
    """SGLang's scheduler logs "[... TP0] Scheduler hit an exception: Traceback (most recent call last):" and the
    traceback's lines after it carry no prefix (REAL lines: sgl-project/sglang #3713): the CUDA error its exception line
    states is TP rank 0's, as offline (triage.read.record_line), also when a read cuts the record in two; a line with a
    prefix of its own, or any line that is not the traceback's, ends the record.  Before, the Event named no rank."""
    lines = SGLANG_RECORD.read_text().splitlines()
    cri = [f"2025-02-21T22:59:28.{i:09d}Z stderr F {line}\n" for i, line in enumerate(lines)]
    log = tmp_path / "pods" / "serve_sglang-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" / "main" / "0.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(cri))
    src = source(tmp_path / "pods")
    src.discover()
    ((ref, f),) = src.poll()
    assert (f.kind, f.line, f.rank) == ("cuda_error", 14, 0)
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == "CUDAIllegalAddress" and " on rank 0" in ev.message.split("Container output:")[0]
    # the record cut by a read after its opener, then a second record whose traceback another writer's line ends
    append(log, cri[0])
    assert src.poll() == []
    append(log, "".join(cri[1:]))
    append(log, cri[0] + "2025-02-21T22:59:29.000000000Z stderr F [2025-02-21 22:59:29 TP3] Received sigquit\n" +
           cri[13])
    assert [(f.line, f.rank) for _, f in src.poll()] == [(31, 0), (37, None)]


# ---- job facts that name a culprit (triage.facts.LIVE_FACTS) --------------------------------------------------------

# real lines (tests/fixtures/incidents: openmpi-2661-oom, mgsv-2-oomkilled, ray-22349-node-dead, llamafactory-6000-barrier,
# mmdetection #291), each with the Pod Event reason and the words the Event must carry for the cluster
JOB_FACT_LINES = [
    ("mpirun noticed that process rank 0 with PID 21183 on node host01 exited on signal 9 (Killed).",
     "RankExited", "(rank 0; host host01; pid 21183; signal 9 SIGKILL)"),
    ("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 178) of binary: "
     "/usr/bin/python", "RankExited", "(local rank 0; pid 178; exit code -9; signal 9 SIGKILL)"),
    ("2022-02-15 16:53:52,096\tWARNING worker.py:1462 -- The node with node id: 8f205b12643d25d8c1ce57c45527a6c912f34797"
     " and ip: 10.128.0.103 has been marked dead because the detector has missed too many heartbeats from it.",
     "ProcessLost", "(host 10.128.0.103; node id 8f205b12643d25d8c1ce57c45527a6c912f34797)"),
    ("[rank0]: RuntimeError: [Rank 0]: Ranks 6 failed to pass monitoredBarrier in 180000000000 ms",
     "BarrierTimeout", "(lagging ranks 6; timeout ms 180000000000; rank 0)"),
    ("[rank3]: RuntimeError: DataLoader worker (pid 34569) is killed by signal: Bus error. Details are lost due to "
     "multiprocessing.", "DataLoaderWorkerKilled", "(rank 3; pid 34569; signal 7 SIGBUS)"),
    # the writer's own /dev/shm or file system refused it (xgboost-5963-shm, ci-infra-490-shm): the pod is the culprit
    ("7635c25c81cd:41585:41836 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
     "nccl-shm-recv-bade85d1d321b26-0-3-2 (size 9637888)", "StorageError",
     "(host 7635c25c81cd; pid 41585; error Error while creating shared memory segment; segment "
     "nccl-shm-recv-bade85d1d321b26-0-3-2)"),
    ("OSError: [Errno 28] No space left on device", "StorageError", "(error No space left on device)"),
    # (h359) a limit the writer's pod or node sets (vllm-project/vllm #13354's Ray worker, lzccccc/SMOKE #21): the pod
    ("(bundle_reservation_check_func pid=630) [2025-02-16 02:29:23,228 E 630 630] logging.cc:108: Unhandled exception: "
     "N5boost10wrapexceptINS_6system12system_errorEEE. what(): thread: Resource temporarily unavailable [system:11]",
     "ResourceLimit", "(pid 630; error thread limit - pids cgroup or ulimit -u)"),
    ("RuntimeError: received 0 items of ancdata", "ResourceLimit", "(error open file limit - ulimit -n)"),
    # Slurm's cancel names the step and its node, and why (desitarget-628-timelimit)
    ("slurmstepd: error: *** STEP 32233190.0 ON nid01934 CANCELLED AT 2020-07-03T02:59:56 DUE TO TIME LIMIT ***",
     "JobEnded", "(host nid01934; job 32233190.0; reason TIME LIMIT; read as slurm_cancelled)"),
    # srun -l's task label on it (mlperf-v50-oracle-retinanet-time-limit: the task still running, the one that hung at
    # exit) is the rank offline triage names; was: left out of the Event, the live root rankless
    ("0: slurmstepd: error: *** STEP 152.13 ON gpu-153 CANCELLED AT 2025-04-30T01:52:49 DUE TO TIME LIMIT ***",
     "JobEnded", "(host gpu-153; job 152.13; reason TIME LIMIT; read as slurm_cancelled; rank 0)"),
    # (Slurm's OOM kill in a step's cgroup: read with the lines after it, test_slurms_oom_summary_*)
    # pyxis could not start the task's container on sp-0016 (pyxis-135-slurmstepd-node, NVIDIA/pyxis #135), and the
    # SPANK plugin's failure srun relays after it (pyxis-61-container-start, NVIDIA/pyxis #61)
    ("slurmstepd-sp-0016: error: pyxis: couldn't start container", "TaskNotStarted",
     "(host sp-0016; error couldn't start container; read as pyxis_container)"),
    ("slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1", "TaskNotStarted",
     "(plugin spank_pyxis.so; callback task_init; rc -1; read as spank_plugin_init)"),
    # srun's failed task launch names the node it failed on (NVIDIA/pyxis #107), as docs/workloads.md says
    ("srun: error: Task launch for StepId=96.0 failed on node n2: No such process", "TaskNotStarted",
     "(host n2; job 96.0; error No such process; read as srun_task_launch)"),
    # ranks called different collectives (ms-swift-9443-mismatch, nccl-296-mismatch)
    ("[rank1]: RuntimeError: Detected mismatch between collectives on ranks. Rank 1 is running collective: "
     "CollectiveFingerPrint(SequenceNumber=3104, OpType=ALLREDUCE, TensorShape=[195812480]), but Rank 0 is running "
     "collective: CollectiveFingerPrint(SequenceNumber=3104, OpType=BROADCAST)", "CollectiveMismatch",
     "(rank 1; first rank 1; other rank 0; op ALLREDUCE; seq 3104)"),
    ("init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank 39.",
     "CollectiveMismatch", "(around rank 39)"),
    # a store's count of the ranks that joined, apart from those it waited for (metaseq-52-store-barrier, OpenRLHF
    # #1040's TCPStore server): the counts the cluster reads back
    ("RuntimeError: Timed out initializing process group in store based barrier on rank: 4330, for key: "
     "store_based_barrier_key:522 (world_size=2048, worker_count=1792, timeout=0:30:00)", "StoreJoinTimeout",
     "(rank 4330; key store_based_barrier_key:522; joined 1792; expected 2048; store timeout 0:30:00; read as "
     "store_join)"),
    ("torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined.",
     "StoreJoinTimeout", "(joined 1; expected 3; store timeout 1801; read as store_join)"),
]


def _job_fact_pod(root: Path, lines: list[str], name: str = "train_llm-w-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"):
    log = root / name / "main" / "0.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(f"2025-06-11T01:51:09.{i:09d}Z stderr F {line}\n" for i, line in enumerate(lines)))
    src = source(root)
    src.discover()
    return src.poll()


@pytest.mark.parametrize("line,reason,said", JOB_FACT_LINES)
def test_a_job_fact_naming_a_culprit_becomes_a_pod_event_with_its_fields(tmp_path, line, reason, said):
    """What only the job's output says of who died, was lost or lagged: read in the pod's log by triage's own matcher,
    said as a Pod Event whose words carry the fields the cluster component reads back."""
    found = _job_fact_pod(tmp_path / "pods", ["step 1 loss 2.3", line, "step 2 loss 2.2"])
    assert len(found) == 1
    ref, f = found[0]
    assert ref.pod == "llm-w-0" and f.line == 2 and f.timestamp.isoformat().startswith("2025-06-11T01:51:09")
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == reason and ev.type == "Warning"
    ours, _, quoted_line = ev.message.partition(' Container output: "')
    assert said in ours and quoted_line.startswith(" ".join(line[:40].split()))


def test_a_jobs_rank_exits_are_one_event_naming_the_first_and_consequences_make_none(tmp_path):
    """The launcher reports every rank it stopped after the first died: one Event per job and reason, which names the
    first (its count the rest); a healthy rank told to read rank 0's log names no culprit and makes no RankExited
    (its own BarrierTimeout, in a witness's words: test_a_barriers_healthy_rank_...)."""
    lines = ["[default1]:[rank1]: Signal 11 (SIGSEGV) received by PID 4242",
             "failed (exitcode: -15) local_rank: 0 (pid: 4241) of binary: /usr/bin/python",
             "failed (exitcode: -15) local_rank: 2 (pid: 4243) of binary: /usr/bin/python",
             "[rank3]:[E421 04:13:43.426633564 ProcessGroupGloo.cpp:143] Rank 3 successfully reached monitoredBarrier, "
             "but received errors while waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank."]
    found = [(ref, f) for ref, f in _job_fact_pod(tmp_path / "pods", lines) if f.kind == "rank_exit"]
    assert [(f.kind, f.rank, f.details.get("signal")) for _, f in found] == [
        ("rank_exit", 1, 11), ("rank_exit", None, 15), ("rank_exit", None, 15)]
    tracker = WorkloadTracker(Metrics())
    events = [tracker.observe(ref, f) for ref, f in found]
    assert len({e.key for e in events}) == 1
    assert events[-1].message.startswith("A rank's process ended (rank 1; local rank 1; pid 4242; signal 11 SIGSEGV)")


# QwenAudio/CosyVoice #180 (REAL, tests/fixtures/incidents/cosyvoice-180-barrier): rank 3 told to check rank 0's log,
# then rank 0 naming the rank that never came, then rank 1 told; sgl-project/sglang #5602 (REAL, sglang-5602-barrier)
# shows only the told ranks
BARRIER_TOLD = ("[E ProcessGroupGloo.cpp:138] Rank 3 successfully reached monitoredBarrier, but received errors while "
                "waiting for send/recv from rank 0. Please check rank 0 logs for faulty rank.")
BARRIER_LAGGING = "[E ProcessGroupGloo.cpp:138] [Rank 0]: Rank 2 failed to pass monitoredBarrier in 30000 ms"
BARRIER_TOLD_1 = BARRIER_TOLD.replace("Rank 3 ", "Rank 1 ")  # the same source's next line (rank 1's)
SGLANG_TOLD = ("[rank6]:[E421 04:13:43.457389636 ProcessGroupGloo.cpp:143] Rank 6 successfully reached "
               "monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 "
               "logs for faulty rank.")


def test_a_barriers_healthy_rank_is_said_as_a_witness_and_gives_way_to_the_line_naming_the_lagging_rank(tmp_path):
    """A rank a monitored barrier failed names no culprit, but is the job's failure where nothing else is said (live
    made no incident of sglang-5602-barrier, offline `undetermined`): its BarrierTimeout in a witness's words; rank 0's
    line naming the lagging rank, later on the same node, takes its place (one Event per job and reason), and the
    witness after it changes nothing."""
    (only,) = _job_fact_pod(tmp_path / "sglang", [SGLANG_TOLD])
    ev = WorkloadTracker(Metrics()).observe(*only)
    assert ev.reason == "BarrierTimeout" and ev.message.startswith(
        "A rank waited at a barrier that other ranks did not reach (rank 6) [container")
    found = _job_fact_pod(tmp_path / "cosyvoice", [BARRIER_TOLD, BARRIER_LAGGING, BARRIER_TOLD_1])
    assert [(f.kind, f.rank, f.details.get("lagging")) for _, f in found] == [
        ("barrier_timeout", 3, None), ("barrier_timeout", 0, "2"), ("barrier_timeout", 1, None)]
    tracker = WorkloadTracker(Metrics())
    events = [tracker.observe(ref, f) for ref, f in found]
    assert len({e.key for e in events}) == 1
    assert events[0].message.startswith("A rank waited at a barrier that other ranks did not reach (rank 3)")
    for ev in events[1:]:
        assert ev.message.startswith("Ranks did not reach the barrier the job waited at (lagging ranks 2; timeout ms "
                                     "30000; rank 0)")
        assert "[Rank 0]: Rank 2 failed to pass" in ev.message


INCIDENTS = Path(__file__).resolve().parents[1] / "fixtures" / "incidents"


@pytest.mark.parametrize("incident,said", [
    # REAL: EnzymeAD/Enzyme-JAX #623 (https://github.com/EnzymeAD/Enzyme-JAX/issues/623), its one line
    ("enzyme-jax-623-getkeyvalue-timeout",
     "A rank waited at a barrier that other ranks did not reach (duration 10m; error key-value wait)"),
    # REAL: AI-Hypercomputer/gpu-recipes #2 (https://github.com/AI-Hypercomputer/gpu-recipes/issues/2), its error
    ("gpu-recipes-2-register-barrier",
     "A rank waited at a barrier that other ranks did not reach (barrier [Init]Wait_for_all_tasks_to_register::0)"),
])
def test_a_coordination_timeout_naming_no_rank_is_said_by_its_pod(tmp_path, incident, said):
    """JAX's coordination service's barrier or key-value wait timed out, the line naming no lagging task and no rank:
    the pod that said it is the witness (known live: its namespace, name and node), its Event in `told`'s words with
    the barrier or the wait and its duration (was: not published, no incident live)."""
    lines = (INCIDENTS / incident / "logs" / "job.log").read_text().splitlines()
    (found,) = [(ref, f) for ref, f in _job_fact_pod(tmp_path / "pods", lines) if f.kind == "barrier_timeout"]
    assert found[0].pod == "llm-w-0" and found[1].rank is None
    ev = WorkloadTracker(Metrics()).observe(*found)
    assert ev.reason == "BarrierTimeout" and ev.message.startswith(said + " [container main]")


def test_lines_without_the_facts_words_cost_no_match(tmp_path, monkeypatch):
    """Keyword-gated: a line without one of the facts' words is never decoded nor matched."""
    import agent.sources.podlogs as podlogs

    calls = []
    monkeypatch.setattr(podlogs, "job_fact", lambda message: calls.append(message))
    _job_fact_pod(tmp_path / "pods", [f'{{"step": {i}, "loss": 2.1}}' for i in range(500)] +
                  ["mpirun noticed that process rank 0 with PID 1 on node a exited on signal 9 (Killed)."])
    assert len(calls) == 1


# launchers' multi-line exit summaries (REAL lines: speculators #1115's torchrun ChildFailedError, determined-ai/
# determined #3275's Horovod, openai/jukebox #155's MPICH Hydra; tests/fixtures/incidents), the process named by the
# lines after the opener: before, each line was read alone and the summary named no one
TORCHRUN_SUMMARY = [
    "Failures:", "[1]:", "  time      : 2026-09-07_13:02:58", "  host      : localhost",
    "  rank      : 0 (local_rank: 0)", "  exitcode  : -9 (pid: 14689)", "  error_file: <N/A>",
    "  traceback : Signal 9 (SIGKILL) received by PID 14689",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):", "[0]:", "  time      : 2026-09-07_13:02:58", "  host      : localhost",
    "  rank      : 3 (local_rank: 3)", "  exitcode  : 1 (pid: 14692)", "  error_file: <N/A>",
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "============================================================"]
SUMMARIES = [
    (TORCHRUN_SUMMARY, "(rank 3; local rank 3; host localhost; pid 14692; exit code 1)", 15),
    (["RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus causing the job "
      "to be terminated. The first process to do so was:", "Exit code: 1", "Process name: 1"],
     "(rank 1; exit code 1)", 4),
    (["===================================================================================",
      "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", "=   PID 9665 RUNNING AT NeuroRTX6000",
      "=   EXIT CODE: 9", "=   CLEANING UP REMAINING PROCESSES"],
     "(host NeuroRTX6000; pid 9665; signal 9 SIGKILL)", 4),
]


@pytest.mark.parametrize("lines,said,line", SUMMARIES)
def test_a_launchers_exit_summary_names_its_root_rank_from_the_lines_after_its_opener(tmp_path, lines, said, line):
    """torchrun's Root Cause block, MPI's first process, Hydra's bad termination: one field a line after the opener,
    read with the lines after it as triage reads them; a field of another failure (torchrun's "Failures:", its
    traceback's "Signal 9 ... received by PID") is not a fact of its own."""
    found = _job_fact_pod(tmp_path / "pods", ["step 1 loss 2.3", *lines, "step 2 loss 2.2"])
    assert [(f.kind, f.line) for _, f in found] == [("rank_exit", line)]
    ref, f = found[0]
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == "RankExited" and said in ev.message


def test_a_summary_a_read_cuts_short_is_read_on_with_the_next(tmp_path):
    """The opener and its first lines in one read, the rank's fields in the next (the kubelet wrote them apart): the
    window goes on in the next read, and the summary is said once."""
    root = tmp_path / "pods"
    first = _job_fact_pod(root, ["step 1 loss 2.3", *TORCHRUN_SUMMARY[:12]])
    assert first == []
    src = source(root)
    src.discover()
    src.poll()
    log = next(root.rglob("0.log"))
    with open(log, "a") as f:
        f.write("".join(f"2025-06-11T01:51:10.{i:09d}Z stderr F {x}\n" for i, x in enumerate(TORCHRUN_SUMMARY[12:])))
    found = src.poll()
    assert [(f.kind, f.rank, f.line, f.details.get("exit_code")) for _, f in found] == [("rank_exit", 3, 15, 1)]
    assert src.poll() == []


# Slurm's OOM summary naming no node, then srun's line naming the node of the tasks it killed: REAL, verbatim
# (chrisknewman/tusas #149, 2023; hafs-community/HAFS #101, 2021: tests/fixtures/incidents/h539_*)
TUSAS_149, HAFS_101 = ((FIXTURE.parents[3] / "incidents" / f"h539_{name}-slurm-oom-node" / "logs" / "srun.log")
                       .read_text().splitlines() for name in ("tusas-149", "hafs-101"))
# tractor-126-slurm-oom-kill (dstndstn/tractor #126, REAL): the summary, no srun line after it
TRACTOR_126 = ("slurmstepd: error: Detected 1 oom_kill event in StepId=43622791.67. Some of the step tasks have been "
               "OOM Killed.")


@pytest.mark.parametrize("lines,said", [
    (TUSAS_149, "(host nid001277; job 440575.0; reason OUT OF MEMORY; read as slurm_oom)"),
    (HAFS_101, "(host Orion-01-01; job 3495064.0; reason OUT OF MEMORY; read as slurm_oom; rank 4)")])
def test_slurms_oom_summary_is_published_with_the_node_sruns_line_after_it_names(tmp_path, lines, said):
    """The summary is read live with the lines after it as offline (triage.read: srun's "Out Of Memory" line within
    SRUN_LINES names its node, and its one task's rank), once the file is quiet (its last line the step's cancellation): the JobEnded Event
    names that node and quotes the summary, not the cancellation read before it.  Was: no node (the cluster put the
    root on the pod's node), live 161/163 against offline's 163/163."""
    root = tmp_path / "pods"
    found = _job_fact_pod(root, lines)
    assert [(f.kind, f.details["fact"]) for _, f in found] == [("job_ended", "srun_task_oom"),
                                                              ("job_ended", "slurm_cancelled")]
    src = source(root)
    src.discover()
    src.poll()
    assert src.poll() == []  # quiet for less than BLOCK_WAIT: the summary waits for the lines after it
    late = src.poll(time.monotonic() + podlogs.BLOCK_WAIT)
    assert [(f.kind, f.line, f.details.get("host")) for _, f in late] == [("job_ended", 1, said.split(";")[0][6:])]
    events = _events(found + late)
    ended = [e for e in events if e.reason == "JobEnded"]
    # three occurrences (srun_task_oom's, the cancellation restated as the OOM, the summary's: a doubled one fails) of
    # ONE Event: one aggregation key, its message the latest occurrence's (the summary's, naming the node)
    assert len(ended) == 3 and len({e.key for e in ended}) == 1
    oom = ended[-1]
    assert said in oom.message and 'Container output: "slurmstepd: error: Detected 1 oom' in oom.message
    assert src.poll(time.monotonic() + podlogs.BLOCK_WAIT) == []  # said once


# firelab/windninja #624 (REAL, verbatim: tests/fixtures/incidents/h554_windninja-624-execve): slurmstepd's failed exec
# of each task's program, naming no node, then srun's exit line naming the tasks' node
WINDNINJA_624 = (FIXTURE.parents[3] / "incidents" / "h554_windninja-624-execve" / "logs" / "job.log").read_text() \
    .splitlines()


def test_a_failed_exec_is_published_with_the_node_sruns_exit_line_after_it_names(tmp_path):
    """The exec's TaskNotStarted is held for srun's exit line as Slurm's OOM summary is (triage.read SRUN_NODE_HOW):
    every one published names its node; a run of them is said by the blocks of its last lines.  Was: no node (the
    cluster put the root on the pod's node)."""
    root = tmp_path / "pods"
    found = _job_fact_pod(root, WINDNINJA_624)
    src = source(root)
    src.discover()
    src.poll()
    late = src.poll(time.monotonic() + podlogs.BLOCK_WAIT)
    said = [(f.line, f.details.get("host")) for _, f in found + late if f.kind == "launch_error"]
    assert said and {host for _, host in said} == {"bear-pg0104u25b"}
    assert max(line for line, _ in said) == 20  # the run's last exec line


def test_slurms_oom_summary_without_sruns_line_is_published_without_a_node_after_its_window(tmp_path):
    """Nothing lost: the summary with no srun line after it is published, with no node, once SRUN_LINES lines
    after it are read (the same read, or the next), or its file was quiet for BLOCK_WAIT, or its pod deleted; srun's
    lines for two nodes name none; its window across two reads names the node the second read's line names."""
    said = "(job 43622791.67; reason OUT OF MEMORY; read as slurm_oom)"
    # (srun's own "Out Of Memory" lines are job ends of their own: facts.py srun_task_oom)
    oom = lambda found: [(f.line, f.details.get("host")) for _, f in found  # noqa: E731
                         if f.kind == "job_ended" and f.details["fact"] != "srun_task_oom"]
    found = _job_fact_pod(tmp_path / "a", [TRACTOR_126, *[f"step {i} loss 2.3" for i in range(8)]])
    assert oom(found) == [(1, None)] and said in _events(found)[0].message
    found = _job_fact_pod(tmp_path / "b", [TRACTOR_126, "step 1 loss 2.3"])
    assert found == []
    src = source(tmp_path / "b")
    src.discover()
    src.poll()
    assert oom(src.poll(time.monotonic() + podlogs.BLOCK_WAIT)) == [(1, None)]
    _job_fact_pod(tmp_path / "c", [TRACTOR_126])
    src = source(tmp_path / "c")
    src.discover()
    assert src.poll() == []
    shutil.rmtree(next((tmp_path / "c").iterdir()))  # the pod deleted: its file's last words
    src.discover()
    assert oom(src.poll()) == [(1, None)]
    two = [*TUSAS_149[:2], "srun: error: nid001278: task 5: Out Of Memory", *[f"step {i}" for i in range(6)]]
    assert oom(_job_fact_pod(tmp_path / "d", two)) == [(1, None)]
    root = tmp_path / "e"
    assert oom(_job_fact_pod(root, TUSAS_149[:1])) == []
    src = source(root)
    src.discover()
    src.poll()
    append(next(root.rglob("0.log")), "".join(f"2025-06-11T01:51:10.{i:09d}Z stderr F {x}\n"
                                               for i, x in enumerate([*TUSAS_149[1:], *["step"] * 5])))
    assert oom(src.poll()) == [(1, "nid001277"), (4, "nid001277")]


# ayaka14732/llama-2-jax #20 (REAL, tests/fixtures/incidents/llama2jax-20-barrier): JAX's coordination service gives up
# on the connect barrier and lists, a line each after its opener, the tasks that never came
JAX_BARRIER = ["jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
               "PjRT_Client_Connect. Timed out task names:",
               *(f"/job:jax_worker/replica:0/task:{t}" for t in (1, 6, 3, 2, 5, 7, 4)), "",
               "Additional GRPC error information from remote target unknown_target_for_coordination_leader while "
               "calling /tensorflow.CoordinationService/Barrier:"]


def test_a_coordinators_task_list_names_the_lagging_ranks_live_as_offline(tmp_path):
    """The list after "Timed out task names:" is read as a block (triage.read.block_fact), as offline reads it: one
    BarrierTimeout naming every task listed as the lagging ranks and the barrier; each task line alone names no one
    and was not published (live named no root cause for this incident)."""
    found = _job_fact_pod(tmp_path / "pods", ["step 1", *JAX_BARRIER])
    assert [(f.kind, f.line, f.details.get("lagging"), f.details.get("barrier")) for _, f in found] == \
        [("barrier_timeout", 2, "1, 2, 3, 4, 5, 6, 7", "PjRT_Client_Connect")]
    ref, f = found[0]
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == "BarrierTimeout" and ev.message.startswith(
        "Ranks did not reach the barrier the job waited at (lagging ranks 1, 2, 3, 4, 5, 6, 7; barrier "
        "PjRT_Client_Connect)")


# JAX's docs (docs/fault_tolerance.rst, REAL, tests/triage/test_triage.py): a live task's fate-sharing end, the task
# whose heartbeats stopped on the line after it
JAX_UNHEALTHY = ["F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service "
                 "detected fatal errors. This most likely indicates that another task died; see the other task logs "
                 "for more details. Disable Python buffering, i.e. `python -u`, to be sure to see all the previous "
                 "output. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
                 "/job:jax_worker/replica:0/task:3",
                 "The tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. "
                 "preemption, eviction) to debug further."]


@pytest.mark.parametrize("task", [3, 0])  # 0: SYNTHETIC (the docs' task 3 renumbered): a falsy rank is a rank
def test_a_coordinators_unhealthy_task_is_published_as_the_lost_process(tmp_path, task):
    lines = [JAX_UNHEALTHY[0], f"/job:jax_worker/replica:0/task:{task}", *JAX_UNHEALTHY[2:]]
    found = _job_fact_pod(tmp_path / "pods", ["step 1", *lines])
    assert [(f.kind, f.rank, f.details.get("job")) for _, f in found if f.kind == "process_lost"] == \
        [("process_lost", task, "jax_worker")]


# AgentR1/Agent-R1 #33 (REAL, tests/fixtures/incidents/agent-r1-33-actor-died): Ray's ActorDiedError in a verl driver,
# the actor's process and node on the lines between its first and its cause
RAY_ACTOR_DIED = [
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
    "        class_name: TaskRunner", "        actor_id: 8d1498767d305748d59d87da01000000", "        pid: 319017",
    "        namespace: 1109301e-e25e-4e12-9ae4-1dd5fc7468e4", "        ip: 10.44.139.116",
    "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker "
    "exits unexpectedly. Worker exits with an exit code None. The worker may have exceeded K8s pod memory limits."]


def test_rays_dead_actor_is_published_with_the_process_and_node_its_error_names(tmp_path):
    """The cause's line alone names no process (no Event: live made no incident where offline found the lost worker);
    read as a block with the error's fields above it, as offline reads it, it names the actor's pid and node."""
    found = _job_fact_pod(tmp_path / "pods", ["step 1", *RAY_ACTOR_DIED])
    assert [(f.kind, f.line, f.pid, f.details.get("host")) for _, f in found] == \
        [("process_lost", 8, 319017, "10.44.139.116")]
    ref, f = found[0]
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == "ProcessLost" and ev.message.startswith(
        "The job's coordinator declared a process or node dead (host 10.44.139.116; pid 319017)")


def test_an_earlier_agents_barrier_event_is_still_read():
    """The cluster component newer than its agents reads their Events' earlier first words (LiveFact.was)."""
    from triage.facts import read_words
    row, fields = read_words("BarrierTimeout", "Ranks did not reach PyTorch's monitored barrier (lagging ranks 4, 5; "
                                               "timeout ms 1800000) [container c] Container output: \"..\"")
    assert row.kind == "barrier_timeout" and fields == {"lagging": "4, 5", "timeout_ms": "1800000"}


# kubernetes-sigs/dra-driver-nvidia-gpu #948: the ComputeDomain daemon's stderr (it runs nvidia-imex in the pod), its
# CRI envelope synthetic; its container's name is the driver's (templates/compute-domain-daemon.tmpl.yaml)
IMEX = "2026-01-20T10:00:00.000000000Z stderr F [ERROR] Failed to allocate memory reference."
CUDA_IMPORT = ("2026-01-20T10:00:05.000000000Z stderr F RuntimeError: CUDA error: an illegal memory access was "
               "encountered")


def test_a_compute_domain_daemons_imex_error_is_this_nodes_fabric_fault_not_the_pods_failure(tmp_path, pods):
    """The daemon's finding is the node's: said by its pod's Event, a cause of the node's jobs' failures after it,
    and counted as the node's finding where pod findings are admitted (agent/pipeline.py: as the host's daemon's log
    would be); the same line from any other container is that container's text."""
    from parsers import Classifier
    from parsers.model import PodRef
    agent, c = make_agent(tmp_path, pods), Classifier()
    metrics, said = agent.metrics, lambda ref, f: agent.pipeline.process(WorkloadFindings([(ref, f)])).pod_events[0]
    daemon = PodRef("nvidia-dra-driver-gpu", "imex-channel-cd-x7k2p", "uid-1", "compute-domain-daemon")
    imex = c.classify(IMEX)
    assert imex is not None and imex.kind == "imex_error"
    event = said(daemon, imex)
    assert event.reason == "IMEXError" and event.ref == daemon
    assert "a fault of this node" in event.message and "CHECK_IMEX" in event.message
    assert "reads like a kernel message" not in event.message  # not a container's claim: the daemon's own word
    labels = {"kind": "imex_error", "severity": "error", "attribution": "fabric"}
    assert metrics.registry.get_sample_value("gpu_npd_findings_total", labels) == 1  # as the host's daemon's log
    job = PodRef("train", "nvl72-worker-3", "uid-2", "pytorch")  # the node's job failing after it: blamed on it
    failed = c.classify(CUDA_IMPORT)
    assert "likely caused by IMEX error at 10:00:00 on this node" in said(job, failed).message
    # the same line from any other container is that container's text, not the node's fault
    other = PodRef("train", "nvl72-worker-4", "uid-3", "pytorch")
    assert "IMEXError" != said(other, Classifier().classify(IMEX)).reason
    assert metrics.registry.get_sample_value("gpu_npd_findings_total", labels) == 1
    assert agent.engine.problems == {}  # never a node problem: counted and a cause, no condition


# A job that stated its own success, then tore its communicator down noisily (REAL lines: HPE's MLPerf Training v5.0
# stable_diffusion result_1.txt, tests/fixtures/incidents/mlperf-v50-hpe-sd-teardown): rank 0's run_stop with status
# success, then rank 30's "found async exception when checking for NCCL errors" whose last error is the proxy's Close
_MLPERF = (Path(__file__).parents[1] / "fixtures" / "incidents" / "mlperf-v50-hpe-sd-teardown" / "logs" /
           "result_1.txt").read_text().splitlines()
RUN_STOP, TEARDOWN_ERROR = _MLPERF[19], _MLPERF[20:24]
_POD_A = "train_sd-w-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
_POD_B = "train_sd-w-1_1a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"


def _pod_log(root: Path, pod: str, lines, second: int = 13) -> Path:
    log = root / pod / "main" / "0.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    append(log, "".join(f"2025-05-11T06:46:{second:02d}.{j:09d}Z stdout F {line}\n" for j, line in enumerate(lines)))
    return log


def _events(found) -> list:
    tracker = WorkloadTracker(Metrics())
    return [e for e in (tracker.observe(ref, f) for ref, f in found) if e is not None]


def test_a_pods_communicator_errors_after_its_own_stated_success_raise_no_event(tmp_path):
    """MLPerf's run_stop "status": "success", then rank 30's NCCL error 3 s before the end: the run succeeded (its
    result was published); before, the pod got an NCCLError Event, the job looked failed."""
    root = tmp_path / "pods"
    _pod_log(root, _POD_A, [RUN_STOP, *TEARDOWN_ERROR])
    src = source(root)
    src.discover()
    found = src.poll()
    assert [f.kind for _, f in found] == ["nccl_error"]
    assert found[0][1].details["after_success"] == "mlperf_run_stop_success (line 1)"
    assert _events(found) == []


def test_a_pods_sigterm_after_its_own_stated_success_raises_no_event_a_crash_does(tmp_path):
    """REAL lines, mlcommons/training_results_v5.1 Dell/results/1xXE7745x8RTXPro6000-PCIe-96GB/retinanet/result_0.txt
    (tests/fixtures/incidents/mlperf-v51-dell-retinanet-sigterm-after-success): run_stop success, then srun's "task 0:
    Exited with exit code 143", rank 0 SIGTERMed at exit: the finished job's end, no RankExited Event (before, one, and
    the cluster's incident UNDETERMINED); the B200 run's "tasks 1-7: Exited with exit code 134" (a crash) keeps its."""
    dell = (Path(__file__).parents[1] / "fixtures" / "incidents" / "mlperf-v51-dell-retinanet-sigterm-after-success" /
            "logs" / "result_0.txt").read_text().splitlines()
    run_stop = next(line for line in dell if '"key": "run_stop"' in line)
    sigterm = next(line for line in dell if line.startswith("srun: error:"))
    # REAL: mlcommons/training_results_v5.1 Dell/results/1xXE9685Lx8B200-SXM-180GB/retinanet/result_0.txt, line 4884
    crash = "srun: error: timsnt8: tasks 1-7: Exited with exit code 134"
    root = tmp_path / "pods"
    _pod_log(root, _POD_A, [run_stop, sigterm])
    _pod_log(root, _POD_B, [run_stop, crash], second=14)
    src = source(root)
    src.discover()
    found = src.poll()
    said = {ref.pod: (f.kind, f.details.get("after_success")) for ref, f in found}
    assert said == {"sd-w-0": ("rank_exit", "mlperf_run_stop_success (line 1)"), "sd-w-1": ("rank_exit", None)}
    assert [e.reason for e in _events(found)] == ["RankExited"]


def test_ms_swifts_end_of_main_covers_its_pods_teardown(tmp_path):
    """SYNTHETIC pod of REAL lines: ms-swift's "End time of running main" (modelscope/ms-swift #7992, its pipeline's
    run() returned), then the MLPerf teardown's NCCL error: no Event (before, an NCCLError Event on a finished job)."""
    swift = (Path(__file__).parents[1] / "fixtures" / "incidents" / "ms-swift-7992-teardown" / "logs" /
             "node1.log").read_text().splitlines()[1]
    root = tmp_path / "pods"
    _pod_log(root, _POD_A, [swift, *TEARDOWN_ERROR])
    src = source(root)
    src.discover()
    found = src.poll()
    assert [f.kind for _, f in found] == ["nccl_error"]
    assert found[0][1].details["after_success"] == "swift_main_end (line 1)"
    assert _events(found) == []


def test_the_elastic_agents_and_torchtitans_statements_cover_a_pods_teardown_but_one_nodes_does_not(tmp_path):
    """SYNTHETIC pods of REAL lines (tests/triage/test_teardown.py names their sources): torchrun's "Done waiting for
    other agents" (every node's group succeeded) and torchtitan's "Training completed" cover the NCCL error after
    them, through triage.teardown.covering as offline; torchrun's "Local worker group finished (SUCCEEDED)" (one
    node's) and DeepSpeed's "Process 576485 exits successfully." (one process's) do not: the Event is raised."""
    from tests.triage.test_teardown import DS_PROCESS, ELASTIC_DONE, ELASTIC_LOCAL, TITAN_DONE
    root = tmp_path / "pods"
    pods = {}
    for i, line in enumerate((ELASTIC_DONE, TITAN_DONE, ELASTIC_LOCAL, DS_PROCESS)):
        pods[line] = f"train_w-{i}_{i}a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
        _pod_log(root, pods[line], [line, *TEARDOWN_ERROR])
    src = source(root)
    src.discover()
    found = src.poll()
    said = {ref.pod: f.details.get("after_success") for ref, f in found if f.kind == "nccl_error"}
    assert said == {"w-0": "elastic_exit_barrier_done (line 1)",
                    "w-1": "torchtitan_training_completed (line 1)", "w-2": None, "w-3": None}
    assert len(_events(found)) == 2


def test_the_trainers_train_runtime_summary_covers_no_pods_teardown_but_its_train_metrics_block_does(tmp_path):
    """SYNTHETIC pods of REAL lines (tests/triage/test_teardown.py names their sources): Hugging Face Trainer's
    `{'train_runtime': ..}` (both eras) comes before the script's final save, where shikras/shikra #41 hung: the NCCL
    error after it raises its Event as any; Trainer.log_metrics' "***** train metrics *****" after the save covers it,
    as offline."""
    from tests.triage.test_teardown import HF_RUNTIME, HF_RUNTIME_5X, TRAIN_METRICS
    root = tmp_path / "pods"
    for i, line in enumerate((HF_RUNTIME, HF_RUNTIME_5X, TRAIN_METRICS)):
        _pod_log(root, f"train_w-{i}_{i}a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", [line, *TEARDOWN_ERROR])
    src = source(root)
    src.discover()
    found = src.poll()
    said = {ref.pod: f.details.get("after_success") for ref, f in found if f.kind == "nccl_error"}
    assert said == {"w-0": None, "w-1": None, "w-2": "hf_train_metrics (line 1)"}
    assert len(_events(found)) == 2


def test_a_watchdog_timeout_after_megatrons_or_lightnings_statement_raises_its_event(tmp_path):
    """SYNTHETIC pods of REAL lines (tests/triage/test_teardown.py names their sources): Megatron's "[after training
    is done]" and Lightning's "`Trainer.fit` stopped" come before their final save; the watchdog's timeout of a save
    that hung after them (shikra #41's lines) was marked as their teardown, no Event for a hung pod.  Now it raises its
    Event; the exit's NCCL error after the same statements stays teardown, as offline (triage.teardown.covering)."""
    from tests.triage.test_teardown import LIGHTNING_DONE, MEGATRON_DONE, SHIKRA
    hang = (SHIKRA / "train.log").read_text().splitlines()[1:2]
    root = tmp_path / "pods"
    for i, lines in enumerate(([MEGATRON_DONE, *hang], [LIGHTNING_DONE, *hang], [MEGATRON_DONE, *TEARDOWN_ERROR],
                               [LIGHTNING_DONE, *TEARDOWN_ERROR])):
        _pod_log(root, f"train_w-{i}_{i}a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", lines)
    src = source(root)
    src.discover()
    found = src.poll()
    said = {(ref.pod, f.kind): f.details.get("after_success") for ref, f in found}
    assert said == {("w-0", "nccl_timeout"): None, ("w-1", "nccl_timeout"): None,
                    ("w-2", "nccl_error"): "megatron_training_done (line 1)",
                    ("w-3", "nccl_error"): "lightning_fit_stopped (line 1)"}
    assert len(_events(found)) == 2


def test_cudas_word_that_a_pod_was_exiting_is_teardown_after_its_success_but_no_other_cuda_error(tmp_path):
    """SYNTHETIC pods of REAL lines (tests/triage/test_teardown.py names their sources): Megatron's statement, then
    "CUDA error: driver shutting down" (the runtime unloaded at the process's exit) is marked as its teardown, as
    offline (triage.teardown.tears_down); an illegal memory access after the same statement raises its Event."""
    from tests.triage.test_teardown import EXIT_CUDA, ILLEGAL, MEGATRON_DONE
    root = tmp_path / "pods"
    for i, lines in enumerate(([MEGATRON_DONE, *EXIT_CUDA], [MEGATRON_DONE, ILLEGAL])):
        _pod_log(root, f"train_w-{i}_{i}a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", lines)
    src = source(root)
    src.discover()
    found = src.poll()
    said = {ref.pod: f.details.get("after_success") for ref, f in found if f.kind == "cuda_error"}
    assert said == {"w-0": "megatron_training_done (line 1)", "w-1": None}
    (event,) = _events(found)
    # the Event says it came after the statement (its line, the line's own, how long before), which the cluster
    # reads back (triage.teardown stated_words): was said by offline's incident only
    assert " It came after its log stated the job's success (megatron_training_done on line 1, 0 s before; this on " \
           "line 2)." in event.message


def test_a_job_fact_after_a_stated_success_in_the_same_read_is_still_read(tmp_path):
    """SYNTHETIC order of REAL lines: MLPerf's run_stop success, then a rank's death (mpirun's line, JOB_FACT_LINES)
    in the same read.  The success's time was kept in the loop's byte position, so the next fact line raised a
    TypeError and the read failed (bench/podlogs.py's real-lines mix found it); a rank's death is never teardown."""
    root = tmp_path / "pods"
    _pod_log(root, _POD_A, [RUN_STOP, "mpirun noticed that process rank 0 with PID 1 on node a exited on signal 9 "
                                      "(Killed).", "step 2 loss 2.2"])
    src = source(root)
    src.discover()
    found = src.poll()
    assert [(f.kind, f.line) for _, f in found] == [("rank_exit", 2)]


def test_a_bug_in_the_job_level_reading_loses_no_finding_of_the_read(tmp_path, monkeypatch):
    """A job-level reader that raises on some input (as the stated success's time did, above) costs that read's job
    facts, counted (internal_errors, gpu_npd_internal_errors_total): the classifier's findings of the same lines
    still go on, and the next read is read."""
    import agent.sources.podlogs as podlogs

    root = tmp_path / "pods"
    _pod_log(root, _POD_A, [RUN_STOP, *TEARDOWN_ERROR])
    src = source(root)
    src.discover()
    monkeypatch.setattr(podlogs.PodLogSource, "_job_facts", lambda *a: 1 / 0)
    found = src.poll()
    assert [f.kind for _, f in found] == ["nccl_error"] and src.counters()["internal_errors"] == 1
    monkeypatch.undo()
    _pod_log(root, _POD_A, TEARDOWN_ERROR, second=20)
    assert [f.kind for _, f in src.poll()] == ["nccl_error"]


def test_a_success_stated_in_an_earlier_read_covers_the_teardown_read_later(tmp_path):
    root = tmp_path / "pods"
    log = _pod_log(root, _POD_A, [RUN_STOP], second=10)
    src = source(root)
    src.discover()
    assert src.poll() == []
    _pod_log(root, _POD_A, TEARDOWN_ERROR)
    found = src.poll()
    assert [f.kind for _, f in found] == ["nccl_error"] and _events(found) == []
    assert log.exists()


def test_errors_before_the_success_and_another_pods_success_still_raise_their_event(tmp_path):
    """SYNTHETIC order of REAL lines: the NCCL error before the run_stop line is the job's (it came first); a pod whose
    own log states no success gets its Event, whatever another pod of the job stated."""
    root = tmp_path / "pods"
    _pod_log(root, _POD_A, [*TEARDOWN_ERROR, RUN_STOP])
    _pod_log(root, _POD_B, TEARDOWN_ERROR, second=14)
    src = source(root)
    src.discover()
    found = src.poll()
    assert sorted((ref.pod, f.kind) for ref, f in found) == [("sd-w-0", "nccl_error"), ("sd-w-1", "nccl_error")]
    assert not any(f.details.get("after_success") for _, f in found)
    assert len(_events(found)) == 2


def test_a_restarted_containers_new_log_is_not_covered_by_the_old_ones_success(tmp_path):
    root = tmp_path / "pods"
    _pod_log(root, _POD_A, [RUN_STOP], second=10)
    src = source(root)
    src.discover()
    src.poll()
    restarted = root / _POD_A / "main" / "1.log"
    append(restarted, "".join(f"2025-05-11T06:50:00.{j:09d}Z stdout F {line}\n" for j, line in enumerate(TEARDOWN_ERROR)))
    src.discover()
    found = src.poll()
    assert [f.kind for _, f in found] == ["nccl_error"] and len(_events(found)) == 1


# REAL: modelscope/ms-swift #10183 (tests/fixtures/incidents/ms-swift-10183-deadlock): ranks 3 and 2 of one pod time out
# in BROADCAST SeqNum 7219, each WorkNCCL line (no group named) followed by its progress line naming the default group
MS_SWIFT = (Path(__file__).parents[1] / "fixtures" / "incidents" / "ms-swift-10183-deadlock" / "logs" /
            "train.log").read_text(encoding="utf-8").splitlines()


def test_a_timeout_event_lists_each_ranks_collective_with_its_group_and_size(tmp_path):
    """The pod log source completes each rank's timed-out collective as offline reads it (its size, the group its
    progress line names) and the job's timeout Event lists them, so that the cluster compares ranks across nodes;
    before, the Event quoted rank 3's line alone, cut at 160 characters behind the tqdm bar, and said neither."""
    root = tmp_path / "pods"
    log = root / "train_swift-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" / "main" / "0.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(f"2026-09-18T19:29:2{4 + i // 2}.{i:09d}Z stderr F {line}\n" for i, line in enumerate(MS_SWIFT)),
                   encoding="utf-8")
    src = source(root)
    src.discover()
    found = src.poll()
    assert [(f.kind, f.rank, f.details.get("pg"), f.details.get("numel_in")) for _, f in found] == [
        ("nccl_timeout", 3, "0", 64), ("nccl_timeout", 2, "0", 24084544)]
    tracker = WorkloadTracker(Metrics())
    events = [tracker.observe(ref, f) for ref, f in found]
    assert len({e.key for e in events}) == 1 and [e.reason for e in events] == ["NCCLWatchdogTimeout"] * 2
    assert ("Collectives timed out: PG 0 SeqNum 7219 BROADCAST NumelIn 64 (rank 3); PG 0 SeqNum 7219 BROADCAST "
            "NumelIn 24084544 (rank 2) [container main] Container output: ") in events[-1].message


def test_a_timeout_events_collectives_are_bounded_and_its_quote_kept():
    """SYNTHETIC (the fixture's TIMEOUT line, each rank given its own size and group): 40 ranks of one job in 40
    collectives; the Event lists the first seen, as many as fit, and stays within the Event's 1,024 characters with its
    quote whole, whatever the groups' names (64 characters at most are said)."""
    from parsers import Classifier
    from parsers.model import PodRef
    from triage.facts import read_collectives
    c, tracker = Classifier(), WorkloadTracker(Metrics())
    ref = PodRef("train", "llama-70b-worker-0", "uid-0", "pytorch")
    for r in range(40):
        f = c.classify(TIMEOUT.format(ts=f"2024-07-25T06:46:02.{r:09d}Z", r=r).rstrip("\n"))
        f.details.update(pg=f"{r:x<64}", numel_in=10 ** 17 + r)  # (as the pod log source completes them)
        ev = tracker.observe(ref, f)
    assert len(ev.message) <= 1024 and ev.message.endswith('"')
    assert sorted(read_collectives(ev.message)) == [0, 1]
    short = WorkloadTracker(Metrics())
    for r in range(40):
        f = c.classify(TIMEOUT.format(ts=f"2024-07-25T06:46:02.{r:09d}Z", r=r).rstrip("\n"))
        f.details.update(pg="0", numel_in=r % 5)
        ev = short.observe(ref, f)
    assert len(ev.message) <= 1024 and ev.message.endswith('"')
    said = read_collectives(ev.message)  # of the first 32 ranks remembered: the first 4 sizes seen, with their ranks
    assert sorted(said) == [r for r in range(32) if r % 5 < 4] and said[30].numel_in == 0


# akash-network/support #244 (Aug 2024): the device plugin's own log, the GPU Operator's pod, as the kubelet keeps it
DEVICE_PLUGIN_XID = ("I0809 13:32:51.873541       1 health.go:185] XidCriticalError: Xid=94 on "
                     "Device=GPU-3b6ec030-5adc-1847-e155-79f635584b4e; marking device as unhealthy.")


def test_the_device_plugins_xid_in_its_own_pod_is_counted_and_raises_no_event(tmp_path):
    """The device plugin's pod (namespace gpu-operator: followed by default, only kube-system and gpu-npd are not)
    restates the kernel's Xid, which the agent reads itself: its line is an xid finding now (parsers/rules.py
    "device_plugin_xid", details "reporter"), counted as the pod's workload finding, no Pod Event (before the row: not
    read; with the row and no guard, an Xid94 Event on the plugin's pod as if it were a job's failure)."""
    root = tmp_path / "pods"
    log = root / "gpu-operator_nvidia-device-plugin-daemonset-x7k2p_5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" / \
        "nvidia-device-plugin" / "0.log"
    log.parent.mkdir(parents=True)
    append(log, f"2024-08-09T13:32:51.873588972Z stderr F {DEVICE_PLUGIN_XID}\n")
    src = source(root)
    src.discover()
    found = src.poll()
    assert [(f.kind, f.xid, f.details.get("uuid")) for _, f in found] == [
        ("xid", 94, "GPU-3b6ec030-5adc-1847-e155-79f635584b4e")]
    metrics = Metrics()
    tracker = WorkloadTracker(metrics)
    assert [tracker.observe(ref, f) for ref, f in found] == [None]


def test_only_the_device_plugins_restated_xid_is_held_back_not_every_finding_with_a_reporter_detail():
    """The guard for the device plugin's Xid (details "reporter": "k8s-device-plugin") is that component's, not any
    details "reporter": POWER's "watchdog: CPU 12 detected hard LOCKUP on other CPUs 13-15" has one too (the CPU that
    saw the others stuck, 12), and was held back like a restated Xid while "Watchdog CPU:59 Hard LOCKUP", the same kind
    and severity, made its Event."""
    from parsers import Classifier
    from parsers.model import PodRef
    ref = PodRef("ops", "node-diag-0", "uid-0", "diag")
    other = Classifier().classify("watchdog: CPU 12 detected hard LOCKUP on other CPUs 13-15")
    alone = Classifier().classify("Watchdog CPU:59 Hard LOCKUP")
    assert other.details.get("reporter") == 12 and (other.kind, other.severity) == (alone.kind, alone.severity)
    assert WorkloadTracker(Metrics()).observe(ref, alone) is not None  # (a tracker each: one Event per job and reason)
    assert WorkloadTracker(Metrics()).observe(ref, other) is not None
    assert WorkloadTracker(Metrics()).observe(ref, Classifier().classify(DEVICE_PLUGIN_XID)) is None


def test_a_restated_line_is_its_rule_rows_property_and_the_agent_holds_back_by_it():
    """That a line restates a kernel line the agent reads itself is declared once, on its rule row (parsers/rules.py
    Rule.restates: "device_plugin_xid" says "kernel"); the finding says so (details "restates", parsers.restated) and
    the tracker holds back every such finding by it, not by who said it (details "reporter": was the agent's own test,
    a second statement of the fact). Before: no such property, the device plugin's value spelt in the agent."""
    from parsers import Classifier, restated
    from parsers.model import PodRef
    from parsers.rules import RULES
    assert {r.name: r.restates for r in RULES if r.restates} == {"device_plugin_xid": "kernel",
                                                                 "dcgm_health_xid": "kernel",  # DCGM's (h714)
                                                                 "nvsmi_critical_xid": "kernel"}  # nvidia-smi's
    f = Classifier().classify(DEVICE_PLUGIN_XID)
    assert (f.kind, f.xid, restated(f), f.details["reporter"]) == ("xid", 94, "kernel", "k8s-device-plugin")
    ref = PodRef("gpu-operator", "nvidia-device-plugin-daemonset-x7k2p", "uid-0", "nvidia-device-plugin")
    assert WorkloadTracker(Metrics()).observe(ref, f) is None
    said = replace(f, details={k: v for k, v in f.details.items() if k != "restates"})  # the same Xid as its own word
    assert restated(said) is None and WorkloadTracker(Metrics()).observe(ref, said) is not None


# Ray's header of a task's error, every form it is printed in, then the remote traceback (triage.read.ray_task):
# PeterGriffinJin/Search-R1 #61 (REAL, tests/fixtures/incidents/search-r1-61-verl-ray-task-illegal-access: a line of
# its own, then the frames and the exception, all verbatim)
SEARCH_R1_61 = (Path(__file__).parents[1] / "fixtures" / "incidents" / "search-r1-61-verl-ray-task-illegal-access" /
                "logs" / "driver.log")
# hiyouga/EasyR1 #9 as copied at https://github.com/RootedTime/EasyR1/issues/9 (REAL: Ray's "Unhandled error" form
# after the driver's "(Runner pid=104449)" prefix, and the first frames); SYNTHETIC: the exception line after them
# (Search-R1 #61's, behind the same prefix)
EASYR1_9 = [
    "(Runner pid=104449) Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::WorkerDict."
    "actor_rollout_ref_update_actor() (pid=118847, ip=10.130.71.7, actor_id=ee9c9085442695cbd58f2c1f01000000, "
    "repr=<verl.single_controller.ray.base.WorkerDict object at 0x7419a03337c0>)",
    '(Runner pid=104449)   File "/workspaces/EasyR1/verl/single_controller/ray/base.py", line 432, in func',
    "(Runner pid=104449)     return getattr(self.worker_dict[key], name)(*args, **kwargs)",
    "(WorkerDict pid=118271) After vllm offload in sharding manager: 13.54 GB / 79.19 GB.",
    "(Runner pid=104449) RuntimeError: CUDA error: an illegal memory access was encountered"]
# huggingface/open-r1 #130 (REAL header: colorama's cyan and reset around the proctitle, their escape lost in the copy)
OPEN_R1_130 = "[36mray::run_inference_one_model()[39m (pid=602229, ip=115.154.137.9)"


def _said(ev) -> str:
    return ev.message.partition(" Container output:")[0]


def test_a_ray_tasks_failure_is_published_with_the_process_and_node_its_header_names(tmp_path):
    """A driver prints a remote task's failure under Ray's header: the exception ending the traceback under it is
    that process's, on the node at its address (as offline, triage.read.ray_task), and the Pod Event says which
    ("Raised in Ray's task process (pid ..; host ..)"); also when a read cuts the traceback in two, behind the driver's
    prefix (another writer's line between the frames no end of it), and for a job fact the
    task raised (its fields say the task's node).  Before, the Event said nothing of it and the cluster named the
    driver's node."""
    lines = SEARCH_R1_61.read_text().splitlines()
    cri = [f"2025-04-03T10:00:00.{i:09d}Z stderr F {line}\n" for i, line in enumerate(lines)]
    log = tmp_path / "pods" / "rl_verl-driver-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d" / "main" / "0.log"
    log.parent.mkdir(parents=True)
    log.write_text("".join(cri[:5]))  # the read cuts the traceback after its fourth line
    src = source(tmp_path / "pods")
    src.discover()
    assert src.poll() == []
    append(log, "".join(cri[5:]))
    ((ref, f),) = src.poll()
    assert (f.kind, f.line, f.pid, f.details["task_host"]) == ("cuda_error", 12, 838798, "10.138.0.27")
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert ev.reason == "CUDAIllegalAddress" and \
        "Raised in Ray's task process (pid 838798; host 10.138.0.27)" in _said(ev)
    # behind the driver's prefix, another writer's line between the frames and the exception (EasyR1 #9)
    append(log, "".join(f"2025-04-03T10:00:01.{i:09d}Z stderr F {line}\n" for i, line in enumerate(EASYR1_9)))
    ((ref, f),) = src.poll()
    assert (f.line, f.pid, f.rank, f.details["task_host"]) == (20, 118847, None, "10.130.71.7")
    # colorama's form (open-r1 #130); a job fact the task raised says the task's process as its own fields
    found = _job_fact_pod(tmp_path / "facts", [OPEN_R1_130, *lines[1:11], "OSError: [Errno 28] No space left on device"])
    ((ref, f),) = [(r, x) for r, x in found if x.kind == "storage_error"]
    ev = WorkloadTracker(Metrics()).observe(ref, f)
    assert "(host 115.154.137.9; pid 602229; error No space left on device)" in _said(ev)


def test_a_traceback_not_under_rays_header_names_no_other_process(tmp_path):
    """A traceback Python printed itself, one the writer opened after the header (its own, not the task's), an
    exception another writer printed, and a header past TRACEBACK_LINES before its exception: no task's process."""
    lines = SEARCH_R1_61.read_text().splitlines()
    frames, exception = lines[1:11], lines[11]
    found = _job_fact_pod(tmp_path / "pods", [
        "Traceback (most recent call last):", *frames, exception,
        lines[0], "Traceback (most recent call last):", *frames, exception,
        EASYR1_9[0], "(WorkerDict pid=118271) " + exception,
        lines[0], *["  " + "x" * 8] * 401, exception])
    assert [(f.kind, f.pid, "task_host" in f.details) for _, f in found] == [("cuda_error", None, False)] * 4
    ev = WorkloadTracker(Metrics()).observe(*found[0])
    assert "Ray's task process" not in ev.message


def test_a_ray_tasks_words_are_bounded_and_read_back():
    """The words the Event adds are at most 125 characters (a pid of 18 digits, an address of 64: with a timeout's
    collectives the quoted line stays within the Event's 1,024), a value of another shape is not said, and the cluster
    reads back what was said."""
    from triage.facts import RAY_TASK_WORDS, ray_task_words, read_ray_task

    longest = ray_task_words(10 ** 18 - 1, "f" * 64)
    assert longest.startswith(RAY_TASK_WORDS) and len(longest) <= 125
    assert ray_task_words(7, "h" * 65) == ray_task_words(7, "a host") == ray_task_words(10 ** 19, "h") == ""
    assert read_ray_task("CUDA error 'x': ... " + ray_task_words(838798, "fe80::1")) == (838798, "fe80::1")
    assert read_ray_task("CUDA error 'x': ... [container main]") is None


def test_a_traceback_without_its_header_is_read_live_as_with_it(tmp_path):
    """h252's headless traceback (REAL frames: zhengchen1999/DAT #51, tests/triage/test_triage_read.py HEADLESS) on the
    live path, in the kubelet's CRI envelope, plain and behind torchrun's `[rankN]: ` tags (two ranks interleaved),
    with and without its `Traceback (most recent call last):` line: the agent reads the same findings either way, and
    the same (kind, rank) as `gpu-npd triage` for the kinds it publishes (the classifier reads the exception line by
    itself; a bare `KeyError` is the rank's exception, read from the traceback as triage reads it, RankException, with or
    without its header: was offline only).  A guard: this held before."""
    from test_triage_read import HEADLESS
    from triage import Clock, read_lines

    # CONSTRUCTED from real lines: DAT #51's frames ending in vLLM #19631's exception line (VLLM_WORKER_ERRORS)
    cuda = [*HEADLESS[:-1], "RuntimeError: CUDA error: an illegal memory access was encountered"]
    for n, (frames, live_kinds) in enumerate(((HEADLESS, ["exception"]), (cuda, ["cuda_error"]))):
        for tags in ((None,), (0, 1)):
            seen = []
            for head in ([], ["Traceback (most recent call last):"]):
                lines = [line if r is None else f"[rank{r}]: {line}" for line in head + frames for r in tags]
                root = tmp_path / f"{n}-{len(tags)}-{len(head)}" / "pods"
                _pod_log(root, "train_llm-w-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", lines)
                src = source(root)
                src.discover()
                live = sorted((f.kind, f.rank) for _, f in src.poll())
                offline = sorted((e.kind, e.rank) for e in read_lines(lines, "x.log", Clock()) if e.kind in live_kinds)
                assert live == offline == [(k, r) for k in live_kinds for r in tags], (frames[-1], tags, head)
                seen.append(live)
            assert seen[0] == seen[1]


def test_a_noted_cause_holds_each_field_of_noted_under_its_name():
    """`note_finding` keeps a cause as a plain tuple in parsers/correlate.py Noted's field order (a Noted made there
    costs more on a kernel line's path), read back as `Noted(*c)` when a failure asks: each of Noted's fields holds the
    finding's value of that name, so a field added to Noted, or one moved in either, fails here."""
    from datetime import datetime, timezone

    from parsers.correlate import Noted
    from parsers.finding import Finding

    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    f = Finding("xid", "fatal", "hardware", "RESTART_BM", "m", timestamp=at, xid=79, sxid=12, pci="0000:5d:00",
                details={"netdev": "ib0", "gpu_index": 3})
    tracker = WorkloadTracker(Metrics())
    tracker.note_finding(f)
    [kept] = tracker.causes
    source = {"time": at.timestamp(), **f.details}
    assert Noted(*kept)._asdict() == {name: source[name] if name in source else getattr(f, name)
                                      for name in Noted._fields}


# XID79: the driver's Xid 79 text (as tests/agent/test_health.py's); NO_GPUS: REAL (Grace9994/CoMoSVC #6, as
# tests/agent/test_gpu_access.py's); XID31: the application Xid of test_application_xid_with_a_pid_becomes_an_event_on
# _its_pod above
XID79_LINE = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
XID31_LINE = ("NVRM: Xid (PCI:0000:18:00): 31, pid=5150, name=python3, Ch 00000008, intr 10000000. MMU Fault: ENGINE "
              "GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f_12345000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ")


LINE_TIMED_EVENTS = [
    (XID79_LINE, lambda t, ref, f: t.observe(ref, f, daemon="nvidia-dcgm-exporter")),  # a daemon pod's node fault
    ("RuntimeError: No CUDA GPUs are available", WorkloadTracker.gpu_access),
    (XID31_LINE, WorkloadTracker.observe_app_xid),
]


@pytest.mark.parametrize("line, event", LINE_TIMED_EVENTS)
def test_a_daemon_gpu_access_and_application_xid_pod_event_carry_their_lines_own_time(line, event):
    """Each of these Pod Events carries its line's own time (kubeapi.events writes it as the Event's eventTime, by
    which the cluster sets it against the job's other lines), as a workload failure's does.  Was: none, the Event
    timed by when the agent recorded it."""
    from datetime import datetime, timezone
    from parsers import parse_line

    f = parse_line(line)
    f.timestamp = datetime(2024, 7, 25, 6, 59, 50, 250000, tzinfo=timezone.utc)
    ev = event(WorkloadTracker(Metrics()), PodRef("train", "llm-w-0-1", "uid-1", "main"), f)
    assert ev.at == f.timestamp.timestamp()


@pytest.mark.parametrize("line, event", LINE_TIMED_EVENTS)
def test_a_pod_events_line_time_is_never_after_the_agents_clock_as_a_problems_is_not(line, event):
    """A line stamped ahead of the agent's clock (a kernel's wall time drifted from its monotonic one) gives its Pod
    Event the clock's time, as the health engine gives a node problem's first_seen (one helper, parsers.finding
    seen_at); a line with no time, the clock's.  Was: an application Xid's Event at its line's future time."""
    from datetime import datetime, timezone
    from parsers import parse_line

    f = parse_line(line)
    f.timestamp = datetime(2024, 7, 25, 6, 59, 50, 250000, tzinfo=timezone.utc)
    now = f.timestamp.timestamp() - 5.0
    ev = event(WorkloadTracker(Metrics(), clock=lambda: now), PodRef("train", "llm-w-0-1", "uid-1", "main"), f)
    assert ev.at == now
    f.timestamp = None
    assert event(WorkloadTracker(Metrics(), clock=lambda: now), PodRef("train", "llm-w-0-2", "uid-2", "main"),
                 f).at == now
