"""bench/live_vs_offline.py's core on a few real incidents: a row per incident, each with both verdicts (no accuracy
threshold here: the script prints the score; docs/cluster.md says what it means)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("live_vs_offline", ROOT / "bench" / "live_vs_offline.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_row_per_incident_with_both_verdicts():
    bench = _bench()
    names = ["kohya-1434-ecc", "sulao-1165-xid94-nvswitch", "aware-2-sigkill"]
    rows = bench.rows(names)
    assert [r.name for r in rows] == sorted(names)
    for r in rows:
        assert r.offline and r.live and isinstance(r.live_ok, bool) and isinstance(r.offline_ok, bool)
        assert r.live_ok or r.why  # a miss says why
    # the kernel's lines went to the node's log, the job's to its pods
    sp = bench.split(bench.INCIDENTS / "sulao-1165-xid94-nvswitch")
    assert sp.kernel and not any(sp.pods.values())


def test_a_terminals_wrapped_copy_is_replayed_as_kubelet_writes_the_lines_whole():
    """vlm-r1-257-heartbeat's log is the reporter's terminal copy, wrapped at 116 columns and padded with blanks: its
    pieces went to the pod's log as lines of their own, which kubelet never writes, and the heartbeat line was lost
    live (a replay artefact). Replayed whole, the agent reads it as offline does (undetermined, as expected); a file
    of lines of different lengths is as it is."""
    bench = _bench()
    sp = bench.split(bench.INCIDENTS / "vlm-r1-257-heartbeat")
    (lines,) = sp.pods.values()
    assert len(lines) == 2 and "ProcessGroupNCCL's watchdog got stuck for 480 seconds" in lines[0]
    assert lines[0].endswith("please attempt to debug the hang.") and lines[1].endswith("Include stack trace: 1")
    assert bench.unwrap(["a" * 80, "b" * 70]) == ["a" * 80, "b" * 70]
    (row,) = bench.rows(["vlm-r1-257-heartbeat"])
    assert row.live_ok and row.offline_ok


def test_a_task_whose_container_never_started_is_named_live_as_offline():
    """pyxis-135-slurmstepd-node and pyxis-61-container-start: the launch error is published (TaskNotStarted) and the
    cluster names it, not the bare task exits."""
    bench = _bench()
    for r in bench.rows(["pyxis-135-slurmstepd-node", "pyxis-61-container-start"]):
        assert r.live_ok and r.offline_ok, (r.name, r.live, r.why)


def test_a_stores_count_of_the_ranks_that_joined_is_named_live_as_offline():
    """megatron-deepspeed-338, metaseq-52 and pseco-15-store-barrier: the store-based barrier's timeout with its counts
    (4 of 8, 1792 of 2048, 16 for 4) is published (StoreJoinTimeout) and the cluster reads the counts back: the job's
    cause, infrastructure, as offline (was: no incident live, store errors staying offline; PseCo's rank 0 exit after
    it then 'its log says nothing of why')."""
    names = ["megatron-deepspeed-338-store-barrier", "metaseq-52-store-barrier", "pseco-15-store-barrier"]
    for r in _bench().rows(names):
        assert r.live_ok and r.offline_ok, (r.name, r.live, r.why)
        assert r.live.startswith("infrastructure"), r.live


def test_a_ray_tasks_failure_is_named_live_on_the_node_its_header_names():
    """search-r1-61-verl-ray-task-illegal-access: the driver's log holds Ray's header of a WorkerDict task's error; the
    agent's Event says the task's pid and node address and the cluster names that host, as offline (was: node-0, the
    driver's node, the one live miss)."""
    (row,) = _bench().rows(["search-r1-61-verl-ray-task-illegal-access"])
    assert row.live_ok and row.offline_ok, (row.live, row.why)
    assert "host=10.138.0.27" in row.live


def test_a_retries_exceeded_completion_read_after_its_flushed_requests_is_named_live_as_offline():
    """deepspeed-6875-ib-retry: the replay reads the file with the flushed requests (`status=5`, comment-2-end.log)
    before the one with the retries exceeded (`status=12`); the agent's Event came to quote the first line read, a
    flushed request that decides nothing, and the cluster said undetermined. The Event quotes the line that decides
    (agent/workloads.py `_outranks`): fabric on 50428e4af543, as offline."""
    (row,) = _bench().rows(["deepspeed-6875-ib-retry"])
    assert row.live_ok and row.offline_ok, (row.live, row.why)
    assert row.live.startswith("fabric") and "host=50428e4af543" in row.live


def test_a_ranks_python_exception_is_named_live_as_offline():
    """accelerate-3206-rng-state: rank 1's `RuntimeError: Invalid mt19937 state`, ending frames whose header the excerpt
    lacks, is published (RankException: agent/sources/podlogs.py reads the pod's tracebacks as triage's FileReader does)
    and the cluster names it, application, rank 1, as offline (was: the launcher's exit alone, undetermined)."""
    (row,) = _bench().rows(["accelerate-3206-rng-state"])
    assert row.live_ok and row.offline_ok, (row.live, row.why)
    assert row.live.startswith("application") and "rank=1" in row.live


CONSEQUENCE_ONLY = ["ray-53845-vllm-cgraph-timeout", "ray-59249-vllm-cgraph-timeout",
                    "vlmevalkit-1131-same-second-sigabrt"]


def test_a_job_whose_only_failure_is_a_consequence_is_named_live_as_offline(monkeypatch):
    """ray-53845 and ray-59249-vllm-cgraph-timeout (Ray's RayChannelTimeoutError on vLLM's engine core) and
    vlmevalkit-1131-same-second-sigabrt (torchrun's ChildFailedError, its summary's Root Cause row cut from the
    excerpt): the one exception logged says the failure is elsewhere; its writer publishes it as its witness
    (RankException in `told`'s words) and the cluster says undetermined, as offline.  Was: no incident live, "consequence
    not published" (and, for vlmevalkit, "summary opener not in the lines"), as still without the witness."""
    from dataclasses import replace

    from triage import facts

    for r in _bench().rows(CONSEQUENCE_ONLY):
        assert r.live_ok and r.offline_ok, (r.name, r.live, r.why)
        assert r.live.startswith("undetermined") and r.live.endswith("(undetermined)"), r.live
    monkeypatch.setitem(facts.LIVE, "exception", replace(facts.LIVE["exception"], witness=False))
    rows = {r.name: r for r in _bench().rows(CONSEQUENCE_ONLY[:2])}
    for r in rows.values():
        assert not r.live_ok and [c for c, _ in r.why] == ["consequence not published"], (r.name, r.why)


def test_each_miss_left_says_why_precisely(monkeypatch):
    """A summary's rows without its opener: vlmevalkit-1131-same-second-sigabrt's excerpt stops before torchrun's
    `Root Cause (first observed failure)` row, the line the agent reads the summary by (its other rows are not its
    root); missed live before the launcher's ChildFailedError was published as its witness's (so here, without it).
    gke-a3-382-failed-mount's root, the kubelet's FailedMount row in `kubectl describe`'s Events table, was
    "Kubernetes Event not watched live" until the cluster component watched the kubelet's Warnings of GANG_REASONS:
    the cause is now said of an Event's row of a reason it does not watch alone, decided by the row as triage reads it
    (its type, then its reason), not by the incident's name."""
    from dataclasses import replace

    from triage import facts

    monkeypatch.setitem(facts.LIVE, "exception", replace(facts.LIVE["exception"], witness=False))
    rows = {r.name: r for r in _bench().rows(["vlmevalkit-1131-same-second-sigabrt", "gke-a3-382-failed-mount"])}
    vlmevalkit, gke = rows["vlmevalkit-1131-same-second-sigabrt"], rows["gke-a3-382-failed-mount"]
    assert vlmevalkit.offline_ok and gke.offline_ok and gke.live_ok and not gke.why
    ((cause, detail),) = vlmevalkit.why
    assert cause == "summary opener not in the lines"
    assert "rank_exit" in detail and "Root Cause (first observed failure)" in detail
    bench = _bench()
    lines = (bench.INCIDENTS / "gke-a3-382-failed-mount" / "logs" / "describe.txt").read_text().splitlines()
    mount = next(line for line in lines if "FailedMount" in line)
    scheduled = next(line for line in lines if "Scheduled" in line)  # a Normal row of a reason not watched

    def cause_of(text: str) -> str:
        off = {"rule": "first_failure", "root": {"kind": "job_ended"},
               "evidence": [{"kind": "job_ended", "text": text}]}
        return bench._unpublished(off, bench.Split())[0]

    assert cause_of(scheduled) == "Kubernetes Event not watched live"
    assert cause_of(mount) != "Kubernetes Event not watched live"
    # the same words without the Event's type and reason before them (cut from the fixture's row, the way a log
    # quoting the kubelet's error would have them) are no Event's row
    quoted = mount.split("kubelet", 1)[1].strip()
    assert quoted.startswith("MountVolume.SetUp failed") and cause_of(quoted) != "Kubernetes Event not watched live"


def test_a_volume_the_kubelet_could_not_mount_is_named_live_as_offline():
    """gke-a3-382-failed-mount: the pod's description holds the kubelet's FailedMount row; replayed as the Warning
    Event the kubelet wrote on the pod (on the node the scheduler's row names), which the cluster component now
    watches (cluster/evidence.py POD_EVENT_SELECTORS), the cluster names the workload and the node, as offline (was: no
    incident live, "Kubernetes Event not watched live")."""
    bench = _bench()
    sp = bench.split(bench.INCIDENTS / "gke-a3-382-failed-mount")
    assert {node for _, node in sp.pods} == {"gke-a3-high-cluster-a3-high-pool-ee769ce2-d5b5"}
    (row,) = bench.rows(["gke-a3-382-failed-mount"])
    assert row.live_ok and row.offline_ok, (row.live, row.why)
    assert row.live.startswith("application") and "host=gke-a3-high-cluster-a3-high-pool-ee769ce2-d5b5" in row.live


JAX_TIMEOUTS = ["enzyme-jax-623-getkeyvalue-timeout", "gpu-recipes-2-register-barrier"]


def test_a_jax_coordination_timeout_naming_no_rank_is_named_live_as_offline():
    """enzyme-jax-623-getkeyvalue-timeout and gpu-recipes-2-register-barrier: the coordination service's key-value wait
    and barrier timed out, the lines naming no task and no rank; the pod that said it publishes it (a BarrierTimeout
    whose witness is its pod, triage/facts.py LiveFact.witness) and the cluster says undetermined, as offline (was: no
    incident live)."""
    for r in _bench().rows(JAX_TIMEOUTS):
        assert r.live_ok and r.offline_ok, (r.name, r.live, r.why)
        assert r.live.startswith("undetermined"), r.live


def test_a_job_fact_that_names_no_culprit_is_the_misss_cause(monkeypatch):
    """Where the agent does not publish a line of a LIVE_FACTS row because it names none of the row's culprit's fields
    and the row has no witness (barrier_timeout's before its writer witnessed it), the script says so (was: "summary
    opener not in the lines", the cause of a torchrun summary's row, wrong for these lines)."""
    from dataclasses import replace

    from triage import facts

    monkeypatch.setitem(facts.LIVE, "barrier_timeout", replace(facts.LIVE["barrier_timeout"], witness=False))
    for r in _bench().rows(JAX_TIMEOUTS):
        assert not r.live_ok
        ((cause, detail),) = r.why
        assert cause == "job fact names no culprit", (r.name, r.why)
        assert "barrier_timeout" in detail and ("xla_barrier_timeout" in detail or "xla_key_value_timeout" in detail)


def test_a_witnessed_rows_line_is_never_said_to_name_no_culprit(monkeypatch):
    """"job fact names no culprit" says the row "has no witness": a line of a row with one (barrier_timeout) that the
    agent did not publish all the same (here: `job_fact` made to publish nothing) is said some other cause (was: that
    one, its words untrue of the row)."""
    from triage import read

    bench = _bench()
    lines = (bench.INCIDENTS / JAX_TIMEOUTS[0] / "logs" / "job.log").read_text().splitlines()
    text = next(line for line in lines if "GetKeyValue() timed out" in line)
    off = {"rule": "undetermined", "root": {"kind": "barrier_timeout"},
           "evidence": [{"kind": "barrier_timeout", "text": text}]}
    monkeypatch.setattr(read, "job_fact", lambda message: None)
    assert bench._unpublished(off, bench.Split())[0] not in ("job fact names no culprit", "job fact not published")


SHM_INCIDENTS = ["ci-infra-490-shm", "nccl-525-shm", "nccl-342-shm", "xgboost-5963-shm", "torchtitan-853-shm"]


def test_no_room_in_dev_shm_is_one_verdict_live_and_offline():
    """NCCL out of room in /dev/shm (pytorch/ci-infra #490, NVIDIA/nccl #525, #342, dmlc/xgboost #5963, torchtitan
    #853): the kind shm_full (parsers/kinds.py) is the one reading, the pod's /dev/shm, infrastructure, whether the
    agent published the parsers' finding or triage read the lines (was: nccl-525-shm live application, the agent
    publishing the parsers' nccl_error of attribution application while offline triage's storage fact said
    infrastructure)."""
    for r in _bench().rows(SHM_INCIDENTS):
        assert r.live_ok and r.offline_ok, (r.name, r.live, r.why)
        assert r.live.startswith("infrastructure") and r.offline.startswith("infrastructure"), (r.name, r.live)


def test_ranks_of_one_failure_are_ordered_live_by_the_quoted_lines_own_time():
    """flux-40-two-node-illegal-access (bytedance/flux #40): rank 1's illegal memory access 100 ms before rank 0's, one
    Event for both: live names rank 1, as offline, by the quoted line's time the Event carries (its eventTime).  Was:
    rank 0, both ranks at the Event's own time."""
    bench = _bench()
    (row,) = bench.rows(["flux-40-two-node-illegal-access"])
    assert row.live_ok and row.offline_ok, (row.live, row.why)
    assert "rank=1" in row.live


def test_a_failure_after_the_jobs_stated_success_says_so_live_as_offline():
    """MLPerf v5.0 Supermicro's and Oracle's retinanet runs (run_stop success, then an abort or Slurm's time limit at
    exit) and torchtitan's abort after "Training completed": offline's incident says its failure came after the job
    stated its success (`after_success`, and in its reason); the cluster's said nothing of it (no Event carried the
    statement, nor its quoted line's place).  Now the agent's Event says it (triage.teardown `stated_words`) and the
    cluster reads it back: the same statement, at the same line."""
    bench = _bench()
    names = ["mlperf-v50-supermicro-retinanet-abort-after-success", "mlperf-v50-oracle-retinanet-time-limit",
             "torchtitan-aicrosssim-abort-after-success"]
    for r in bench.rows(names):
        assert r.live_ok and r.offline_ok and r.after_success == (True, True), (r.name, r.live, r.after_success)
    sp = bench.split(bench.INCIDENTS / names[0])
    live, _ = bench.cluster_verdict(bench.publish(sp))
    assert (live.after_success.kind, live.after_success.line) == ("job_success", 9)
    assert live.after_success.details["fact"] == "mlperf_run_stop_success"
    assert "it came after the job stated its success at pod/" in live.reason
