"""Triage of a job Megatron stopped for a NaN / Inf in a rank's loss or gradients (h286): REAL lines copied verbatim
from the threads beside them; the formats of every era from Megatron-LM's source (named where no real line was had)."""

from __future__ import annotations

import pytest

from triage import Clock, attribute, facts, read_lines

# REAL: https://github.com/NVIDIA/Megatron-LM/issues/5026 (the CI job's log as the issue quotes it, its first line;
# the second is cut in the excerpt read and left out): the rerun state machine's first report of the result, on rank 3
MEGATRON_5026 = ("ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank 3 at iteration #3 invocation #2 "
                 "(message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel "
                 "communication collective')")
# REAL: https://github.com/NVIDIA-NeMo/Speech/issues/14348 (NeMo 2's launcher prefix; the RuntimeError the state
# machine raises with reruns disabled, the default)
NEMO_14348 = ("i.pretrain/0 [default2]:[rank2]: RuntimeError: Rank 2, node dcfai-xe9680-01, device 2, iteration -1: "
              "Unexpected result nan (message='found NaN in local grad norm for bucket #0 in backward pass before "
              "data-parallel communication collective')")
# REAL: https://github.com/alibaba/Pai-Megatron-Patch/issues/366 (its title: Megatron-Core before the rerun state
# machine, the assert of param_and_grad_buffer.py)
PAI_366 = ("AssertionError: Rank 11: found NaN in local grad norm in backward pass before data-parallel communication "
           "collective. Device: 3")
# CONSTRUCTED from Megatron-LM's pretrain_gpt.py loss_func before the rerun state machine (its f-string: "Rank
# {global_rank}: found NaN in local forward loss calculation. Device: {device}, node: {os.uname()[1]}"), host invented
OLD_LOSS = "AssertionError: Rank 5: found NaN in local forward loss calculation. Device: 5, node: gpu-node-07"
# CONSTRUCTED from megatron/core/rerun_state_machine.py validate_result (reruns disabled, fatal: RuntimeError of
# "Rank {rank}, node {node}, device {device}, iteration {iteration}: Unexpected result {result} (message='..')") for
# the Inf check of the same loss_func, host invented
NEW_INF = ("RuntimeError: Rank 0, node gpu-node-01, device 0, iteration 1200: Unexpected result inf "
           "(message='found Inf in local forward loss calculation')")


@pytest.mark.parametrize("line, groups", [
    (MEGATRON_5026, dict(rank="3", result="nan", iteration="3")),
    (NEMO_14348, dict(rank="2", host="dcfai-xe9680-01", gpu="2", result="nan")),
    (PAI_366, dict(rank="11", gpu="3", result="NaN")),
    (OLD_LOSS, dict(rank="5", gpu="5", host="gpu-node-07", result="NaN")),
    (NEW_INF, dict(rank="0", host="gpu-node-01", gpu="0", result="inf", iteration="1200")),
])
def test_every_era_of_megatrons_nan_check_is_a_fact(line, groups):
    """Was: nothing (no fact: a lone line no failure, a traceback's only an exception of no rank)."""
    fact, got = facts.match(line)
    assert fact.kind == "nonfinite_result"
    assert {k: got.get(k) for k in groups} == groups


def test_the_rank_whose_loss_went_nan_is_the_root_and_the_others_timeouts_its_consequence():
    """Was: rank 5's timeout in ALLREDUCE the only failure (no incident of rank 3, its NaN never read); now rank 3's
    non-finite result is the application's failure, rank 5's timeout a consequence."""
    timeout = ("[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout: "
               "WorkNCCL(SeqNum=15734, OpType=ALLREDUCE, NumelIn=220084533, NumelOut=220084533, Timeout(ms)=1800000) "
               "ran for 1800122 milliseconds before timing out.")
    (incident,) = attribute(read_lines([MEGATRON_5026, timeout], "train.log", Clock()))
    assert (incident.category, incident.root.kind, incident.root.rank) == ("application", "nonfinite_result", 3)


def test_a_traceback_ending_in_the_nan_check_is_its_ranks_nonfinite_result():
    """Was: an exception of no rank's node or device; now the check's fact: its rank, node and device."""
    # CONSTRUCTED: the traceback's opening line (Python's) before the real line's exception, its launcher prefixes
    lines = ["i.pretrain/0 [default2]:[rank2]: Traceback (most recent call last):", NEMO_14348]
    (incident,) = attribute(read_lines(lines, "train.log", Clock()))
    assert (incident.category, incident.root.kind, incident.root.rank, incident.root.host, incident.root.gpu) == (
        "application", "nonfinite_result", 2, "dcfai-xe9680-01", 2)


@pytest.mark.parametrize("line", [
    # REAL: https://github.com/epfLLM/Megatron-LLM/issues/11 (Megatron's iteration line counting NaN iterations)
    "     iteration      122/  250000 | consumed samples:       124928 | elapsed time per iteration (ms): 86545.2 | "
    "learning rate: 9.150E-06 | global batch size:  1024 | lm loss: 2.504220E+00 | loss scale: 1.0 | grad norm: 0.231 "
    "| number of skipped iterations:   0 | number of nan iterations:   0 |",
    # CONSTRUCTED from megatron/core/rerun_state_machine.py (log_single_rank WARNING, the logger's default format as
    # the #5026 line has it): the notice that validation is on
    "WARNING:megatron.core.rerun_state_machine:Result validation enabled",
])
def test_megatrons_healthy_lines_about_nans_are_no_fact(line):
    assert facts.match(line) is None or facts.match(line)[0].kind != "nonfinite_result"


def test_a_nodes_agent_publishes_the_nonfinite_result_and_the_cluster_reads_it_back():
    """Live as offline: the container's line a job fact (NonFiniteResult), its rank, node, device and result in the
    Event's words, read back the same."""
    from triage.read import job_fact
    row, said = job_fact(NEMO_14348)
    assert (row.reason, said["rank"], said["host"], said["gpu"], said["result"]) == (
        "NonFiniteResult", 2, "dcfai-xe9680-01", 2, "nan")
    back = facts.read_words("NonFiniteResult", facts.words(row, said) + ' [container c] Container output: ".."')
    assert back == (row, {"rank": 2, "host": "dcfai-xe9680-01", "gpu": 2, "result": "nan", "iteration": "-1"})
