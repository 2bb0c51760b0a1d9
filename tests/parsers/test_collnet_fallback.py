"""CollNet (InfiniBand SHARP) not set up at a communicator's init, NCCL going on without it (parsers/rules.py
nccl_collnet_fallback): NCCL's fallback lines of every era and the SHARP plugin's refusals that lead to them are no
finding; a SHARP collective failing mid-run stays NCCL's warning. Lines marked REAL are copied verbatim from the public
source beside them (tests/fixtures/realworld/noise-nccl-collnet-2026.yaml holds them in context); the lines marked
SOURCE are a format string of the release named, after a REAL line's prefix: a test, never a sample."""

from __future__ import annotations

import pytest
from parsers import Classifier

# REAL: https://github.com/NVIDIA/nccl-tests/issues/311 (NCCL 2.2x, the HPC-X SHARP plugin)
SHARP_JOB = ("gpu36:20775:20825 [0] sharp_plugin.c:365 NCCL WARN NET/IB : SHARP coll init error: Cannot create SHARP "
             "job(-11)")
FALLBACK = ("gpu36:20775:20807 [0] transport.cc:384 NCCL WARN Cannot initialize CollNet, using point-to-point network "
            "instead")
# REAL: https://github.com/Mellanox/nccl-rdma-sharp-plugins/issues/151
SHARP_GROUP = "C25L19:19373:19491 [3] sharp_plugin.c:302 NCCL WARN SHARP group create: Streaming Tree lock failed (-18)"
# REAL: https://github.com/NVIDIA/nccl-tests/issues/133 (NCCL 2.8-2.20, NCCL_ALGO=COLLNET)
ALGO_IGNORED = ("nodea:26799:27025 [0] graph/tuning.cc:187 NCCL WARN CollNet is not supported or fails to initialize, "
                "ignoring NCCL_ALGO=COLLNET")
# SOURCE: NCCL 2.6-2.8 src/init.cc, "Cannot initialize CollNet, using %s instead" with ncclNetName()
FALLBACK_2_8 = "gpu36:20775:20807 [0] init.cc:534 NCCL WARN Cannot initialize CollNet, using IB instead"
# SOURCE: the plugin's 2020 source (Mellanox/nccl-rdma-sharp-plugins 0eb0d17), "NET/IB :SHARP coll init error:
# %s(%d)" and "SHARP group create failed: %s(%d)"
SHARP_JOB_FIRST = ("gpu36:20775:20825 [0] sharp_plugin.c:226 NCCL WARN NET/IB :SHARP coll init error: Cannot create "
                   "SHARP job(-11)")
SHARP_GROUP_FIRST = ("C25L19:19373:19491 [3] sharp_plugin.c:238 NCCL WARN SHARP group create failed: Streaming Tree lock "
                     "failed (-18)")
# SOURCE: a SHARP collective failing mid-run (sharp_plugin.c ncclSharpIallreduce, "SHARP allreduce failed\n")
SHARP_ALLREDUCE = "gpu36:20775:20832 [0] sharp_plugin.c:617 NCCL WARN SHARP allreduce failed"


@pytest.mark.parametrize("line", [SHARP_JOB, FALLBACK, SHARP_GROUP, ALGO_IGNORED, FALLBACK_2_8, SHARP_JOB_FIRST,
                                  SHARP_GROUP_FIRST])
def test_the_collnet_fallback_is_no_finding(line):
    """Was: an nccl_error warning each (a Pod Event for a rank of every node of each job asking for CollNet)."""
    assert Classifier().classify(line) is None


def test_a_sharp_collective_failing_stays_a_warning():
    f = Classifier().classify(SHARP_ALLREDUCE)
    assert (f.kind, f.severity) == ("nccl_error", "warning")
