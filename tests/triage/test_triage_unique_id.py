"""Triage of ranks that waited through the store for the NCCL unique id their group's rank 0 publishes (h544): PyTorch's
"[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but
store->get('0') got error: .." (parsers/rules.py `torch_unique_id_store`) names the rank the others waited for, rank 0,
the suspect (rule lagging_rank, triage/attribute.py `_unique_id_waits`, `_unique_id_root`); was UNDETERMINED with the
line's rank 0 unused ("the cause is in no log read here").  A rank's own failure read in the logs still comes first.

Lines marked REAL are copied verbatim from the public source beside them.  Jobs marked SYNTHETIC put real-format
lines together into a job that did not happen as such; they test the rule, never the formats.
"""

from __future__ import annotations

from triage import Clock, attribute, read_lines

# REAL: https://github.com/snowflakedb/ArcticTraining/pull/233 (rank 0 exited loading data; the store's connection
# reset under rank 1's wait; tests/fixtures/incidents/h544_arctictraining-233-unique-id-reset)
RESET = ("[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId "
         "from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer")
# REAL: https://github.com/pytorch/pytorch/issues/131781 (comment by josephcappadona, 2024-07-25)
RESET_15 = ("[rank15]: torch.distributed.DistBackendError: [15] is setting up NCCL communicator and retrieving "
            "ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset "
            "by peer")
# REAL: https://github.com/NVIDIA-NeMo/Speech/issues/14399 (PyTorch 2.4+'s store timeout, behind NeMo-Run's prefix)
TIMEOUT = ("B-nemo-ft3/0 [default1]:[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator "
           "and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: "
           "wait timeout after 600000ms, keys: /default_pg/0//cuda//0")
# REAL: https://github.com/modelscope/FunASR/issues/2006 (tests/fixtures/incidents/funasr-2006-oom)
OOM_2 = ("[rank2]: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 336.00 MiB. GPU  has a total "
         "capacity of 79.15 GiB of which 141.25 MiB is free. Process 2109115 has 78.99 GiB memory in use. Of the "
         "allocated memory 77.21 GiB is allocated by PyTorch, and 283.51 MiB is reserved by PyTorch but unallocated. "
         "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to "
         "avoid fragmentation.  See documentation for Memory Management  "
         "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")


def _job(lines: list[str]):
    return attribute(read_lines(lines, "/logs/train.log", Clock(), root="/logs", year=2025))


def test_a_reset_store_while_waiting_for_rank_0s_unique_id_names_rank_0():
    """ArcticTraining #233: was UNDETERMINED, no rank ("only consequences were logged")."""
    (incident,) = _job([RESET])
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "lagging_rank", 0)
    assert incident.reason.startswith("rank 0 never gave the NCCL unique id rank 1 waited for through the job's store")
    assert "(store->get got 'Connection reset by peer'): rank 0 went away, or the store with it" in incident.reason
    assert incident.reason.endswith("no failure of its own was read here")


def test_a_store_timeout_says_rank_0_never_published_it():
    """NeMo Speech #14399's 2.4+ wording behind NeMo-Run's and torchrun's prefixes."""
    (incident,) = _job([TIMEOUT])
    assert (incident.rule, incident.root.rank) == ("lagging_rank", 0)
    assert "rank 0 never published it in time: it failed, hung or was slow before the setup" in incident.reason


def test_every_rank_that_waited_is_named_as_waiting():
    """SYNTHETIC: two real ranks' lines in one job."""
    (incident,) = _job([RESET, RESET_15])
    assert incident.root.rank == 0
    assert "the NCCL unique id 2 ranks (1,15) waited for" in incident.reason
    assert len(incident.evidence) == 2


def test_a_subgroups_rank_0_is_no_job_rank():
    """SYNTHETIC (the line's words, its writer's rank changed): job rank 5 is its group's rank 1, so the group's rank
    0 is not job rank 0: none named."""
    line = RESET.replace("[rank1]:", "[rank5]:")
    (incident,) = _job([line])
    assert (incident.rule, incident.root.rank) == ("undetermined", None)


def test_a_ranks_own_failure_read_still_comes_first():
    """SYNTHETIC: rank 2's CUDA out of memory before rank 1's wait: the failure, not the wait, is the root."""
    (incident,) = _job([OOM_2, RESET])
    assert (incident.category, incident.rule, incident.root.rank) == ("application", "first_failure", 2)


def test_a_line_cut_before_the_store_error_still_names_rank_0():
    """ArcticTraining #233's line cut at 160 characters, as the cluster component reads an agent's Event's excerpt of
    it back: rank 0 named, no store error said."""
    (incident,) = _job([RESET[:159] + "\u2026"])
    assert (incident.rule, incident.root.rank) == ("lagging_rank", 0)
    assert "store->get got" not in incident.reason
    assert "rank 0 failed, hung or went away before the setup" in incident.reason


def test_the_consequences_word_a_reset_as_a_lost_store_and_a_timeout_as_one():
    """h549: ArcticTraining #233's reset was said "rank 1 timed out"; NeMo Speech #14399's timeout still is."""
    (reset,) = _job([RESET])
    assert reset.consequences.startswith("rank 1 lost the store waiting for the NCCL unique id ('Connection reset by "
                                         "peer')")
    assert "timed out" not in reset.consequences
    (timeout,) = _job([TIMEOUT])
    assert timeout.consequences.startswith("rank 1 timed out")


# CONSTRUCTED from ArcticTraining #233's line (RESET), its ranks and key changed as PyTorch writes them for a single
# send / recv's communicator (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp: broadcastUniqueNCCLID keys the store by
# getKeySendRecv's "<low>:<high>" pair, and the pair's low rank, p2pRank 0, publishes the id; the words still say
# "from [0]"). No real line of a send / recv's wait was found.
P2P_3 = RESET.replace("[rank1]:", "[rank3]:").replace("[1] is", "[3] is").replace("'0'", "'2:3'")
P2P_1 = RESET.replace("'0'", "'0:1'")


def test_a_send_recv_pairs_wait_names_the_pairs_low_rank_not_rank_0():
    """A pipeline stage's send / recv communicator: rank 3 waited for the id rank 2 publishes (key '2:3'); was rank 0
    named, a rank that took no part in the pair."""
    (incident,) = _job([P2P_3])
    assert (incident.rule, incident.root.rank) == ("lagging_rank", 2)
    assert incident.reason.startswith("rank 2 never gave the NCCL unique id rank 3 waited for")


def test_waits_for_two_publishers_name_the_first_and_only_its_waiters():
    """SYNTHETIC: rank 1 waited for rank 0 (key '0:1'), rank 3 for rank 2 (key '2:3'): the first wait's publisher named,
    the ranks said waiting for it only its own."""
    (incident,) = _job([P2P_1, P2P_3])
    assert incident.root.rank == 0
    assert incident.reason.startswith("rank 0 never gave the NCCL unique id rank 1 waited for through")
