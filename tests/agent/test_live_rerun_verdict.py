"""A rank's non-finite result the job's own rerun of the step gave its verdict on (Megatron-LM's rerun state machine),
read live (h661): the verdicts (triage/facts.py rows megatron_rerun_transient / _persistent / _correct) are a
`RerunVerdict` Pod Event, the first rerun's reproduced result naming the suspect GPU (megatron_rerun_reproduced,
_rescheduled) a `RerunReproduced` one, each carrying the GPU its line names (a persistent error's the other GPU's, as
`rerun_host` / `rerun_gpu`), read back by the cluster component into the evidence `gpu-npd triage` reads, whose rule
(triage.attribute `_rerun_said`) names the first run's GPU, as offline.  Was: no Event for either, so live said
NonFiniteResult / application where offline said hardware.  The verdicts are warnings, live as offline: without a
non-finite result they decide nothing.

No real run's verdict lines were found public: the lines are tests/triage/test_triage_rerun.py's, CONSTRUCTED from
megatron/core/rerun_state_machine.py's format strings (hosts invented)."""

from __future__ import annotations

from test_triage_rerun import CORRECT, FIRST, PERSISTENT, REPRODUCED, TRANSIENT, _incident

from live_events import live
from triage import Clock, attribute, read_lines


def test_a_persistent_error_names_the_first_runs_gpu_live_as_offline(tmp_path):
    """The first run (gpu-node-07) reproduced rank 3's NaN on GPU 3 and exited; resumed on gpu-node-12, the step's
    result differed: "Possible persistent error!" on gpu-node-12's device 3.  Live, as offline: hardware, GPU 3 of
    gpu-node-07 (the first rerun's), never gpu-node-12 (the rerun's, whose node wrote the verdict).  Was: application
    (the NonFiniteResult alone)."""
    events, evidence = live(tmp_path, [("gpu-node-07", [FIRST, *REPRODUCED]), ("gpu-node-12", PERSISTENT)])
    assert {ev.reason for ev in events} == {"NonFiniteResult", "RerunReproduced", "RerunVerdict"}
    verdict = next(ev for ev in events if ev.reason == "RerunVerdict")
    assert verdict.message.startswith("The job's rerun of a step gave its verdict on a rank's non-finite result (rank "
                                      "3; rerun host gpu-node-12; rerun gpu 3; iteration 1200; read as "
                                      "megatron_rerun_persistent)")
    (incident,) = attribute(evidence)
    offline = _incident([FIRST, *REPRODUCED], PERSISTENT)
    assert (incident.category, incident.root.host, incident.root.gpu) == ("hardware", "gpu-node-07", 3) == \
        (offline.category, offline.root.host, offline.root.gpu)
    assert "GPU 3 of gpu-node-07" in incident.reason and "persistent fault" in incident.reason


def test_a_transient_error_names_its_own_gpu_live_as_offline(tmp_path):
    """Not reproduced when rerun in place: hardware, a transient fault of GPU 3 of gpu-node-07, as offline."""
    _, evidence = live(tmp_path, [("gpu-node-07", [FIRST, *TRANSIENT])])
    (incident,) = attribute(evidence)
    offline = _incident([FIRST, *TRANSIENT])
    assert (incident.category, incident.root.host, incident.root.gpu) == ("hardware", "gpu-node-07", 3) == \
        (offline.category, offline.root.host, offline.root.gpu)
    assert "transient fault" in incident.reason


def test_a_correct_result_on_another_gpu_is_the_applications_live_as_offline(tmp_path):
    """Reproduced on another GPU: the application's, as offline (the same node's verdict after its reproduced result
    an Event of its own: its own reason)."""
    events, evidence = live(tmp_path, [("gpu-node-07", [FIRST, *REPRODUCED, *CORRECT])])
    assert sorted(ev.reason for ev in events) == ["NonFiniteResult", "RerunReproduced", "RerunVerdict"]
    (incident,) = attribute(evidence)
    assert incident.category == _incident([FIRST, *REPRODUCED, *CORRECT]).category == "application"


def test_a_verdict_or_reproduced_result_alone_makes_no_incident(tmp_path):
    """The verdicts are warnings, live as offline: a rerun's lines without the non-finite result they judge (its pod's
    log rotated away, another node's) decide nothing, no incident (offline: none either)."""
    events, evidence = live(tmp_path, [("gpu-node-07", REPRODUCED), ("gpu-node-12", PERSISTENT)])
    assert {ev.reason for ev in events} == {"RerunReproduced", "RerunVerdict"}
    assert attribute(evidence) == [] == attribute(read_lines(REPRODUCED + PERSISTENT, "run.log", Clock()))
