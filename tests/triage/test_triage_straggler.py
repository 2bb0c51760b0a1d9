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
