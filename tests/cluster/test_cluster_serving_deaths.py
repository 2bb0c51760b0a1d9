"""A serving engine whose engine died (tests/triage/test_triage_serving_deaths.py's real lines, offline's incidents) is
an incident live too, of the same category and root: the node agent reads its pod's log and publishes the job fact
(agent/sources/podlogs.py, agent/workloads.py; triage/facts.py LIVE_FACTS), the cluster component reads the Event back
(cluster/evidence.py) and opens the incident (bench/live_vs_offline.py's publish and cluster_verdict, as for the real
incidents).  Was: SGLang's "Received sigquit from a child process" (no process named) and Triton's "failed to load
'<model>' version N: .." (an exception read live from tracebacks only) gave an incident offline and nothing live."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from agent.metrics import Metrics
from agent.workloads import WorkloadTracker
from tests.agent.test_live_exceptions import _found, _source
from tests.cluster.test_live_vs_offline import _bench
from tests.triage.test_triage_requests import SGLANG_3713
from tests.triage.test_triage_serving_deaths import SGLANG_28521, TGI_686, TGI_1627, TRITON_2876, TRITON_TAO_11
from triage import Clock, attribute, read_lines
from triage.facts import LIVE_KEYWORDS, read_words
from triage.read import job_fact

REALWORLD = Path(__file__).parents[1] / "fixtures" / "realworld"
# REAL: sgl-project/sglang #3685 (https://github.com/sgl-project/sglang/issues/3685), the handler's first era's words
# ("proces") as Python's logging printed the record it could not emit
SGLANG_FIRST_ERA = "Message: 'Received sigquit from a child proces. It usually means the child failed.'"
# REAL: triton-inference-server/server #2223 (https://github.com/triton-inference-server/server/issues/2223), a model
# of a platform the server did not know (a status of two words)
TRITON_2223 = ("E1104 12:45:39.614660 1858 model_repository_manager.cc:950] failed to load 'simple_string' version 1: "
               "Invalid argument: unknown platform 'tensorflow_graphdef'")
# REAL: triton-inference-server/server #4416 (https://github.com/triton-inference-server/server/issues/4416), the later
# era's model_lifecycle.cc
TRITON_4416 = ("E0117 11:30:47.826640 1 model_lifecycle.cc:597] failed to load 'CIFAR10' version 3: Invalid argument: "
               "[request id: <id_unknown>] expected 1 inputs but got 0 inputs for model 'CIFAR10'")


def _jax_missed_heartbeats() -> list[str]:
    """tests/fixtures/realworld/jobs-2026e.yaml's JAX sample of 2023-2024 (NVIDIA/cloudai's JAX-Toolbox job status)."""
    (sample,) = [s for s in yaml.safe_load((REALWORLD / "jobs-2026e.yaml").read_text())
                 if "missing heartbeats" in s["text"]]
    return sample["text"].splitlines()


def _both(lines: list[str]):
    """(offline's first incident, live's first incident, the Events the agent published) for one pod's log."""
    bench = _bench()
    [offline, *_] = attribute(list(read_lines(lines, "server.log", Clock())))
    now = time.time()
    pub = bench.publish(bench.Split(pods={("server.log", "node-0"): list(lines)}), now)
    live, _ = bench.cluster_verdict(pub, now)
    return offline, live, pub.events


def _same(offline, live) -> None:
    assert live is not None, "no incident live"
    assert (live.category, live.root.kind, live.root.rank) == (offline.category, offline.root.kind, offline.root.rank)


@pytest.mark.parametrize("lines", [SGLANG_28521, [SGLANG_FIRST_ERA]], ids=["28521", "3685-first-era"])
def test_sglangs_child_that_failed_alone_is_an_incident_live_as_offline(lines):
    """The engine's SIGQUIT handler alone (each era's words): a ChildProcessFailed Event in its witness's words (the
    child's own error the cause, unprinted here), read back as a process lost, a consequence: the cluster's incident
    undetermined, process_lost, as offline (was: no Event, no incident)."""
    offline, live, events = _both(lines)
    assert (offline.category, offline.root.kind) == ("undetermined", "process_lost")
    _same(offline, live)
    (ev,) = events
    assert ev["reason"] == "ChildProcessFailed"
    assert ev["message"].startswith("A serving engine said its child process failed, the child's own error the cause")
    row, fields = read_words(ev["reason"], ev["message"])
    assert row.kind == "process_lost" and fields == {"consequence": True, "fact": "sglang_child_failed"}


def test_sglangs_child_that_failed_after_its_own_error_adds_no_event(tmp_path):
    """sglang #3713: the scheduler's CUDA error said (its Event), the engine's word of its child's failure after it is
    a consequence said once: no Event of its own, the cluster's root the cuda_error, as offline.  A job's engines on
    one node: one ChildProcessFailed Event where nothing else was said, the others counted only."""
    offline, live, events = _both([*SGLANG_3713, SGLANG_FIRST_ERA])
    _same(offline, live)
    assert offline.root.kind == "cuda_error"
    assert [ev["reason"] for ev in events] == ["CUDAIllegalAddress"]
    from parsers.model import PodRef

    ((ref, f),) = _found(tmp_path / "pods", SGLANG_28521, "process_lost")
    assert f.details["consequence"] is True
    tracker = WorkloadTracker(Metrics())
    pods = [PodRef(ref.namespace, f"llm-w-{i}", f"uid-{i}", "main") for i in range(3)]
    said = [tracker.observe(p, replace(f)) for p in pods]
    assert said[0] is not None and said[1:] == [None, None]


@pytest.mark.parametrize(("lines", "said"), [(TRITON_2876, {"model": "PYTHON_NMS", "status": "Unsupported"}),
                                             (TRITON_TAO_11, {}),
                                             ([TRITON_2223], {"model": "simple_string", "status": "Invalid argument"}),
                                             ([TRITON_4416], {"model": "CIFAR10", "status": "Invalid argument"})],
                         ids=["2876", "tao-11-exit", "2223", "4416-model-lifecycle"])
def test_triton_failing_to_load_its_models_is_an_incident_live_as_offline(lines, said):
    """A model Triton could not load (model_repository_manager.cc's era, model_lifecycle.cc's), or its exit for it: a
    ModelNotLoaded Event naming the model and status its line gives, read back as the application's exception: the
    cluster's incident application, exception, as offline (was: no Event, no incident)."""
    offline, live, events = _both(lines)
    assert (offline.category, offline.root.kind) == ("application", "exception")
    _same(offline, live)
    (ev,) = events
    assert ev["reason"] == "ModelNotLoaded"
    row, fields = read_words(ev["reason"], ev["message"])
    assert row.kind == "exception" and fields == {**said, "fact": "triton_model_load"}


def test_a_triton_servers_failed_models_and_its_exit_are_one_event(tmp_path):
    """SYNTHETIC order of REAL lines (#2223, #2876, tao-toolkit-triton-apps #11): two models refused, then the exit:
    one Event per job and reason on the node (the first model's), the others counted."""
    lines = [TRITON_2223, TRITON_2876[0], TRITON_TAO_11[-1]]
    found = _found(tmp_path / "pods", lines, "exception")
    assert [f.details["fact"] for _, f in found] == ["triton_model_load"] * 3
    tracker = WorkloadTracker(Metrics())
    events = [tracker.observe(ref, f) for ref, f in found]
    assert len({ev.key for ev in events}) == 1
    assert "model simple_string; status Invalid argument" in events[-1].message


def test_the_exception_kinds_other_rows_stay_read_from_tracebacks_only():
    """Only triton_model_load of the exception kind is read by its words live: libstdc++'s bare "what():" line
    (eagain_exception) is still no job fact, as before."""
    assert job_fact("  what():  Resource temporarily unavailable") is None
    assert job_fact(TRITON_2876[0])[0].reason == "ModelNotLoaded"
    assert "failed to load '" in LIVE_KEYWORDS and "Received sigquit from a child" in LIVE_KEYWORDS


@pytest.mark.parametrize("lines", [TGI_1627, TGI_686, _jax_missed_heartbeats()], ids=["tgi-1627", "tgi-686", "jax"])
def test_tgi_shard_deaths_and_jaxs_missed_heartbeats_were_already_incidents_live_as_offline(lines):
    """TGI's shard deaths (RankExited, with the shard's own exception where relayed) and XLA's missed-heartbeat
    termination of 2023-2024 (the parsers' coordination_error, its JAXCoordinationError Event) agree live as they
    were: kept so."""
    offline, live, events = _both(lines)
    _same(offline, live)
    assert events


def test_a_pods_log_of_a_serving_engines_death_is_read_live(tmp_path):
    """The pod log source itself: SGLang's and Triton's lines are findings of their job facts (was: none)."""
    src, _ = _source(tmp_path / "sglang", SGLANG_28521)
    assert [(f.kind, f.details.get("fact")) for _, f in src.poll()] == [("process_lost", "sglang_child_failed")]
    src, _ = _source(tmp_path / "triton", TRITON_2876)
    assert [(f.kind, f.details.get("fact")) for _, f in src.poll()] == [("exception", "triton_model_load")]
