"""Triage of a hang in a job whose own straggler report named slow ranks before it (h520): where no watchdog number
singles out a rank, the ranks the report named are the suspects (rule lagging_rank, triage/attribute.py
`_reported_straggler`); was UNDETERMINED with the report's line unused.  A report that names no straggler (an info
record: Megatron-LM's round trips within jitter), or one printed after the hang began, names none.

Lines marked REAL are copied verbatim from the public source beside them.  Jobs marked SYNTHETIC put real-format
lines together into a job that did not happen as such; they test the rule, never the formats.
"""

from __future__ import annotations

from triage import Clock, attribute, read_lines

# REAL: https://github.com/XPixelGroup/BasicSR/issues/737 (ranks 0-2 time out in ALLREDUCE SeqNum 808, every rank at
# the same work: no watchdog number singles out a rank; tests/fixtures/incidents/basicsr-737)
HANG = [
    "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 "
    "milliseconds before timing out.",
    "[rank0]:[E626 06:24:44.159932949 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600030 "
    "milliseconds before timing out.",
]
# REAL: Megatron-Bridge's documentation of NVRxStragglerDetectionManager's verdict (docs/training/resiliency.md at
# 122cc5e3; tests/fixtures/realworld/jobs-stragglers-2026.yaml)
VERDICT = "STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [76, 13, 45]"
# REAL: Megatron-LM's StragglerDetector line (megatron/core/README_STRAGGLER.md at 358e5f07): 1.004 times, no straggler
HEALTHY = (" 0: INFO:megatron.core.utils:[2024-03-14 23:07:56] | MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk: 3468.20ms/0 | "
           "MnPwr/Rnk: 601796W/8 | MxPwr/Rnk: 683801W/18")


def _job(lines: list[str]):
    return attribute(read_lines(lines, "/logs/train.log", Clock(), root="/logs", year=2022))


def test_a_hang_after_the_jobs_straggler_report_names_its_stragglers():
    """SYNTHETIC: the verdict before BasicSR #737's hang.  Was UNDETERMINED ("the cause is in no log read here")."""
    assert _job(HANG)[0].rule == "undetermined"
    (incident,) = _job([VERDICT, *HANG])
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "lagging_rank", 13)
    assert incident.reason.startswith("3 ranks (13,45,76) are the suspects, slow by the job's own report before the "
                                      "hang (straggler reported by the job: rank 13, rank 45, rank 76 (relative "
                                      "performance))")
    assert "not proven the root" in incident.reason
    assert incident.reason.endswith("nothing logged says why they were slow")  # slow, not stalled: it still ran
    assert "never reached" not in incident.consequences  # a slow rank, not one known to have missed the collective
    assert any(e.kind == "straggler_report" for e in incident.evidence)


def test_the_node_the_report_names_is_the_suspects_host():
    """SYNTHETIC: nvidia-resiliency-ext's set as NeMo's callback prints it (the StragglerId repr, CONSTRUCTED from
    its source: tests/parsers/test_stragglers.py), one straggler and its node."""
    line = ("STRAGGLER DETECTION WARNING: Some GPUs performance dropped. Affected ranks: "
            "{StragglerId(rank=2, node='h100-001-253-012')}")
    (incident,) = _job([line, *HANG])
    assert (incident.rule, incident.root.rank, incident.root.host) == ("lagging_rank", 2, "h100-001-253-012")
    assert incident.reason.startswith("rank 2 is the suspect")


def test_a_report_of_no_straggler_names_none():
    """SYNTHETIC: Megatron-LM's healthy round trips (an info record) before the hang: still UNDETERMINED."""
    (incident,) = _job([HEALTHY, *HANG])
    assert incident.rule == "undetermined"


def test_a_report_after_the_hang_began_names_none():
    """SYNTHETIC: a verdict stamped after the first timeout (the NeMo logger's prefix, SYNTHETIC) is no report of
    what came before it."""
    late = f"[NeMo W 2022-06-26 06:30:00 straggler_det_callback:124] {VERDICT}"
    early = f"[NeMo W 2022-06-26 06:10:00 straggler_det_callback:124] {VERDICT}"
    assert _job([*HANG, late])[0].rule == "undetermined"
    assert _job([early, *HANG])[0].rule == "lagging_rank"


# A job its own straggler detection stopped (h532).  The stop, CONSTRUCTED from its sources (the format strings as
# logged, no public output found): nvidia-resiliency-ext's Lightning callback (src/nvidia_resiliency_ext/ptl_resiliency/
# straggler_det_callback.py `_stop_training`: logger.error, then sys.exit(1) on every rank) under NeMo's logger prefix
# (SYNTHETIC), and Megatron-Bridge's NVRxStragglerDetectionManager.check_stragglers (src/megatron/bridge/training/
# nvrx_straggler.py) under its logger's name as its PR #2114 prints the scores (tests/fixtures/realworld/
# jobs-stragglers-2026.yaml).
NVRX_STOP = "[NeMo E 2022-06-26 06:10:01 straggler_det_callback:150] Detected stragglers. Terminating training..."
BRIDGE_STOP = "megatron.bridge.NVRxStragglerDetection: Detected stragglers. Training should be stopped."
# REAL: torchrun's agent on the rank's exit 1 (https://github.com/OEvortex/unsloth/issues/10)
EXIT_1 = ("E0801 13:23:20.000000 32974 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) "
          "local_rank: 3 (pid: 33054) of binary: /home/ubuntu/pythonn3.11/bin/python3")


def test_a_job_its_straggler_detection_stopped_names_the_stragglers():
    """SYNTHETIC: Megatron-Bridge's documented verdict, the callback's stop, torchrun's exit 1 after it.  Was
    UNDETERMINED first_rank_death, local rank 3's exit "its cause undetermined", the report unused."""
    early = f"[NeMo W 2022-06-26 06:10:00 straggler_det_callback:124] {VERDICT}"
    (before,) = _job([early, EXIT_1])
    assert before.rule == "first_rank_death"  # no stop said: the exit stays the first failure
    (incident,) = _job([early, NVRX_STOP, EXIT_1])
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "lagging_rank", 13)
    assert incident.reason.startswith("3 ranks (13,45,76) are the suspects, slow by the job's own report before its "
                                      "straggler detection stopped the job at 2022-06-26 06:10:01 UTC")
    assert "1 process(es) exited after it" in incident.consequences
    assert [e.kind for e in incident.evidence][:2] == ["straggler_report", "straggler_stop"]


def test_megatron_bridges_stop_and_its_node():
    """SYNTHETIC: Megatron-Bridge's stop after a verdict naming a rank and its node (the StragglerId repr); no exit
    logged (its train loop returns): still the job's stop, the node the suspect's host."""
    line = ("STRAGGLER DETECTION WARNING: Some GPUs performance dropped. Affected ranks: "
            "{StragglerId(rank=2, node='h100-001-253-012')}")
    (incident,) = _job([line, BRIDGE_STOP])
    assert (incident.rule, incident.root.rank, incident.root.host) == ("lagging_rank", 2, "h100-001-253-012")


def test_a_stop_with_no_report_read_is_its_own_root():
    """SYNTHETIC: the stop alone (rank 0's report in a log not given): the stop is the root, no rank named."""
    (incident,) = _job([BRIDGE_STOP, EXIT_1])
    assert (incident.category, incident.rule, incident.root.kind) == ("undetermined", "lagging_rank", "straggler_stop")
    assert "no report read here names the slow ranks" in incident.reason


def test_a_report_after_the_stop_is_not_its_cause():
    """SYNTHETIC: a verdict stamped after the stop names none of its suspects."""
    late = f"[NeMo W 2022-06-26 06:30:00 straggler_det_callback:124] {VERDICT}"
    (incident,) = _job([NVRX_STOP, late])
    assert incident.root.kind == "straggler_stop"
