"""PyTorch's ProcessGroupNCCL monitor thread told of a collective timeout (h294): the rank's nccl_timeout, the rank
that timed out first in details["timeout_rank"] where the line names it.  REAL lines are copied verbatim from the
thread beside them (tests/fixtures/realworld/jobs-torch-dump-2026s.yaml holds them with their sources); CONSTRUCTED
lines are built from the source named and say so."""

from __future__ import annotations

import pytest

from parsers import parse_line

_TAIL = (" Last enqueued NCCL work: 233659, last completed NCCL work: 233659.This is most likely caused by incorrect "
         "usages of collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all "
         "ranks or the scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL "
         "deadlock or other reasons such as network errors or bugs in the communications library (e.g. NCCL), etc.")


@pytest.mark.parametrize("line,rank,timeout_rank", [
    # REAL: vllm-project/vllm-omni #2928 (2.4+: the rank whose watchdog saw the timeout, then a rank the store told)
    ("[rank1]:[E418 01:32:50.907313453 ProcessGroupNCCL.cpp:1890] [PG ID 0 PG GUID 0(default_pg) Rank 1] Received a "
     "dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info."
     + _TAIL, 1, None),
    ("[rank0]:[E418 01:32:50.907342463 ProcessGroupNCCL.cpp:1890] [PG ID 0 PG GUID 0(default_pg) Rank 0] Received a "
     "dump signal due to a collective timeout from  rank 1 and we will try our best to dump the debug info." + _TAIL,
     0, 1),
    # CONSTRUCTED from PyTorch 2.2-2.3's torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp heartbeat monitor (errorMsg =
    # logPrefix() + "Received a timeout signal from this local rank and will start to dump the debug info. Last enqueued
    # NCCL work: ..", and "Received a global timeout from another rank and will start to dump the debug info.")
    ("[rank3]:[E ProcessGroupNCCL.cpp:1346] [PG 0 Rank 3] Received a timeout signal from this local rank and will start "
     "to dump the debug info. Last enqueued NCCL work: 2, last completed NCCL work: 1.", 3, None),
    ("[rank2]:[E ProcessGroupNCCL.cpp:1346] [PG 0 Rank 2] Received a global timeout from another rank and will start to "
     "dump the debug info.", 2, None),
])
def test_the_dump_signal_is_the_ranks_collective_timeout(line, rank, timeout_rank):
    """Was: nothing (the rank's event only from the dump lines after it, lost where a log is cut)."""
    f = parse_line(line)
    assert (f.kind, f.action, f.rank) == ("nccl_timeout", "FIND_FIRST_FAILING_RANK", rank)
    assert f.details.get("timeout_rank") == timeout_rank
