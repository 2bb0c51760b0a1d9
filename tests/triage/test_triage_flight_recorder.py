"""Triage of a hang whose flight recorder analysis (torchfrtrace / fr_trace) is among the job's logs (h639): the ranks
it names as missing from the collective the others joined are the suspects (rule lagging_rank, triage/facts.py
FR_MISSING); was UNDETERMINED ("no lagging rank the watchdog numbers single out"), the analyser's lines unread.

Lines marked REAL are copied verbatim from the public source beside them; CONSTRUCTED lines follow the source code
named beside them, no public output of theirs found.  Jobs marked SYNTHETIC put real-format lines together into a job
that did not happen as such; they test the rule, never the formats.
"""

from __future__ import annotations

from triage import Clock, attribute, read_lines

# REAL: https://github.com/XPixelGroup/BasicSR/issues/737 (rank 0's watchdog; tests/fixtures/incidents/basicsr-737)
TIMEOUT = ("[rank0]:[E626 06:24:44.159932949 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran "
           "for 600030 milliseconds before timing out.")
# REAL: torchfrtrace's output, pytorch/tutorials prototype_source/flight_recorder_tutorial.rst (at 0052a445): "We can
# clearly see that rank 1 did not join the "all_reduce" collective."
ANALYSIS = [
    "Not all ranks joining collective 5 at entry 4",
    "group info: 0:default_pg",
    "collective: nccl:all_reduce",
    "missing ranks: {1}",
    "input sizes: [[3, 4]]",
    "output sizes: [[3, 4]]",
    "expected ranks: 2",
    "collective state: scheduled",
    "collective stack trace:",
    "  all_reduce at /home/cpio/local/pytorch/torch/distributed/distributed_c10d.py:2696",
    "  wrapper at /home/cpio/local/pytorch/torch/distributed/c10d_logger.py:83",
    "  <module> at /home/cpio/test/crash.py:44",
]
# CONSTRUCTED from torch/distributed/flight_recorder/components/types.py EntryState.log and utils.py (2.6+: the
# opener's "sequence number", an internal record id before the group; several ranks as a Python set prints them)
ANALYSIS_26 = ["Not all ranks joining collective, sequence number: 4", "internal record id: 4",
               "group info: 0:default_pg", "collective: nccl:all_reduce", "missing ranks: {1, 3}",
               "input sizes: [[3, 4]]"]
# CONSTRUCTED from tools/flight_recorder/components/utils.py's first era (a print of its two strings on one line)
ANALYSIS_ONE_LINE = ("Not all ranks joining collective for group 0:default_pg collective nccl:all_reduce  Missing ranks "
                     "are {1} ")


def _job(lines: list[str]):
    return attribute(read_lines(lines, "/logs/train.log", Clock(), root="/logs", year=2022))


def test_the_ranks_the_analysis_names_missing_are_the_suspects():
    """SYNTHETIC: rank 0's watchdog timeout and the tutorial's analysis.  Was UNDETERMINED, rank 0's timeout the only
    evidence."""
    assert _job([TIMEOUT])[0].rule == "undetermined"
    (incident,) = _job([TIMEOUT, *ANALYSIS])
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "lagging_rank", 1)
    assert incident.reason.startswith("rank 1 never joined the collective the others were in, by PyTorch's flight "
                                      "recorder analysis")
    assert [e.line for e in incident.evidence if e.kind == "barrier_timeout"] == [5]  # "missing ranks: {1}"


def test_every_era_of_the_analysis_names_its_missing_ranks():
    """SYNTHETIC: 2.6+'s lines (several ranks) and the first era's one line, each after rank 0's timeout."""
    (incident,) = _job([TIMEOUT, *ANALYSIS_26])
    assert (incident.rule, incident.root.rank) == ("lagging_rank", 1)
    assert incident.reason.startswith("2 ranks (1,3) never joined")
    (incident,) = _job([TIMEOUT, ANALYSIS_ONE_LINE])
    assert (incident.rule, incident.root.rank) == ("lagging_rank", 1)


def test_missing_ranks_without_the_analysers_opener_name_none():
    """A "missing ranks: {..}" line of any other program (no opener before it), or the analyser's opener with its
    fields cut off by another line, names no rank: the job stays UNDETERMINED."""
    assert _job([TIMEOUT, "missing ranks: {1}"])[0].rule == "undetermined"
    assert _job([TIMEOUT, ANALYSIS[0], "some other line", "missing ranks: {1}"])[0].rule == "undetermined"
