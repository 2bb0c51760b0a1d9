"""A CUDA OOM whose own figures say other processes held most of the GPU's memory (h662, parsers/rules.py
GPU_OOM_HELD): the node's (infrastructure, a leftover process or a shared GPU), not the application's; one whose rank
holds most of its GPU stays the application's. REAL lines, each from the thread beside it (the same as
tests/fixtures/realworld/cuda-oom-held-2026.yaml); SYNTHETIC ones say so and are built from PyTorch's format
(c10/cuda/CUDACachingAllocator.cpp, reportProcessMemoryInfo) with invented figures."""

from __future__ import annotations

import pytest

from parsers.correlate import explain
from parsers.classify import Classifier
from parsers.rules import GPU_OOM_HELD, gpu_oom_usage
from triage import Clock, attribute, read_lines

# REAL: rwth-i6/returnn #1649 (the crashed earlier run's process 118636 still on the GPU)
RETURNN = ("OutOfMemoryError: CUDA out of memory. Tried to allocate 290.00 MiB. GPU 0 has a total capacity of 93.00 GiB "
           "of which 134.94 MiB is free. Process 118636 has 71.62 GiB memory in use. Including non-PyTorch memory, this "
           "process has 21.24 GiB memory in use. Of the allocated memory 19.85 GiB is allocated by PyTorch, and 731.17 "
           "MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
           "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
# REAL: NVIDIA/k8s-device-plugin #323 (time-slicing: the other pod held ~9 GiB of the T4)
TIME_SLICED = ("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 14.76 GiB total capacity; 4.37 GiB "
               "already allocated; 14.75 MiB free; 4.43 GiB reserved in total by PyTorch)")
# REAL: hiyouga/LlamaFactory #1936 (a container: the rank is "Process 62200", its peers' contexts 398 MiB each)
CONTAINER = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 136.00 MiB. GPU 0 has a total capacty "
             "of 23.65 GiB of which 93.81 MiB is free. Process 62201 has 398.00 MiB memory in use. Process 62203 has "
             "398.00 MiB memory in use. Process 62204 has 398.00 MiB memory in use. Process 62200 has 21.98 GiB memory "
             "in use. Process 62202 has 398.00 MiB memory in use. Of the allocated memory 21.51 GiB is allocated by "
             "PyTorch, and 2.30 MiB is reserved by PyTorch but unallocated.")
# REAL: rhymes-ai/Aria #24 (NVML says 0 bytes for the rank: PyTorch's pool is its own)
NVML_ZERO = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.88 GiB. GPU 3 has a total capacity of 21.96 "
             "GiB of which 1.29 GiB is free. Including non-PyTorch memory, this process has 0 bytes memory in use. Of the "
             "allocated memory 19.02 GiB is allocated by PyTorch, and 1.32 GiB is reserved by PyTorch but unallocated.")

# REAL: qibin0506/llm_trainer #2 (the job's own ranks on GPU 0: sibling pids 1563102-1563104, the job launched without
# its parallel setup, "parallel_type=none" by its maintainer; the terminal's wrap after "Includ" joined, nothing else)
OWN_RANKS = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 MiB. GPU 0 has a total capacity of "
             "79.32 GiB of which 6.88 MiB is free. Process 1563103 has 9.89 GiB memory in use. Process 1563102 has "
             "35.03 GiB memory in use. Process 1563104 has 23.79 GiB memory in use. Including non-PyTorch memory, this "
             "process has 10.58 GiB memory in use. Of the allocated memory 9.56 GiB is allocated by PyTorch, and 534.22 "
             "MiB is reserved by PyTorch but unallocated.")
# REAL: ostris/ai-toolkit #277 (another service's process 3774011 on GPU 0: "My GPU 0 and GPU 1 are running services")
SERVICE = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 MiB. GPU 0 has a total capacity of 39.38 "
           "GiB of which 3.81 MiB is free. Process 3774011 has 38.88 GiB memory in use. Including non-PyTorch memory, this "
           "process has 494.00 MiB memory in use. Of the allocated memory 62.54 MiB is allocated by PyTorch, and 17.46 "
           "MiB is reserved by PyTorch but unallocated.")


def _incident(line: str):
    (incident,) = attribute(read_lines([line], "train.log", Clock()))
    return incident


@pytest.mark.parametrize("line, usage", [
    (RETURNN, (93.0, 21.24, 71.62, ("118636",))),
    (TIME_SLICED, (14.76, 4.43, 14.76 - 14.75 / 1024 - 4.43, ())),
    (CONTAINER, (23.65, 21.98, 4 * 398 / 1024, ("62201", "62203", "62204", "62202"))),
    (NVML_ZERO, (21.96, 19.02 + 1.32, 0.0, ())),
    # 0.4-1.3's "cached" for the reserved memory (SYNTHETIC figures)
    ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB (GPU 0; 11.17 GiB total capacity; 1.66 GiB already "
     "allocated; 2.44 MiB free; 1.70 GiB cached)", (11.17, 1.70, 11.17 - 2.44 / 1024 - 1.70, ())),
    ("RuntimeError: CUDA out of memory.", None),  # no figures: nothing said of whose memory
])
def test_the_figures_of_each_era_of_the_message(line, usage):
    got = gpu_oom_usage(line)
    if usage is None:
        assert got is None
        return
    assert got[3] == usage[3]
    assert got[:3] == pytest.approx(usage[:3], abs=0.01)


def test_other_processes_holding_most_of_the_gpu_make_the_oom_the_nodes():
    incident = _incident(RETURNN)
    assert incident.category == "infrastructure"
    assert "71.62 of the GPU's 93.00 GiB held by other processes (pid 118636), the rank's own 21.24 GiB" in incident.reason
    assert _incident(TIME_SLICED).category == "infrastructure"


@pytest.mark.parametrize("line", [CONTAINER, NVML_ZERO])
def test_a_rank_holding_most_of_its_gpu_is_the_applications(line):
    assert _incident(line).category == "application"


@pytest.mark.parametrize("others_gib, own_gib, held", [
    # SYNTHETIC: both halves of the threshold (more than half the GPU AND more than the rank)
    (41.0, 38.0, True), (39.0, 1.0, False), (45.0, 46.0, False)])
def test_the_threshold_is_half_the_gpu_and_more_than_the_rank(others_gib, own_gib, held):
    line = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            f"80.00 GiB of which 1.00 GiB is free. Process 12345 has {others_gib:.2f} GiB memory in use. Including "
            f"non-PyTorch memory, this process has {own_gib:.2f} GiB memory in use. Of the allocated memory 1.00 GiB is "
            f"allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.")
    assert (_incident(line).category == "infrastructure") is held


def test_the_pods_event_says_whose_memory_it_was():
    said = explain(Classifier().classify(RETURNN), None)
    assert "held by other processes" in said and "not a node fault" not in said
    assert "the application ran out of GPU memory" in explain(Classifier().classify(CONTAINER), None)


def test_one_other_process_holding_most_of_the_gpu_is_the_nodes():
    assert _incident(SERVICE).category == "infrastructure"
    assert "held by other processes (pid 3774011)" in _incident(SERVICE).reason
    assert _incident(RETURNN).category == "infrastructure"


def test_several_processes_only_together_holding_most_of_it_are_the_applications():
    """The job's own ranks on one GPU (every rank on cuda:0), none holding half: the application's (was: the node's)."""
    incident = _incident(OWN_RANKS)
    assert incident.category == "application"
    assert "held by other processes" not in incident.reason
    assert gpu_oom_usage(OWN_RANKS)[4] == pytest.approx(35.03)


@pytest.mark.parametrize("held, held_gib", [
    # SYNTHETIC figures: three others of 18 GiB each (54 of 80 together, none half) vs one of 54 GiB
    (False, (18.0, 18.0, 18.0)), (True, (54.0,))])
def test_the_threshold_is_one_other_process_not_their_sum(held, held_gib):
    others = " ".join(f"Process {1000 + i} has {gib:.2f} GiB memory in use." for i, gib in enumerate(held_gib))
    line = (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            f"80.00 GiB of which 1.00 GiB is free. {others} Including non-PyTorch memory, this process has 25.00 GiB "
            f"memory in use. Of the allocated memory 24.00 GiB is allocated by PyTorch, and 0 bytes is reserved by "
            f"PyTorch but unallocated.")
    assert (_incident(line).category == "infrastructure") is held


def _job(*files: tuple[str, list[str]]):
    evidence = [e for name, lines in files for e in read_lines(lines, name, Clock())]
    return attribute(evidence)[0]


def test_ranks_of_the_job_out_of_memory_on_one_gpu_share_it():
    """SYNTHETIC: the REAL lines' shapes, each under a rank's prefix, two ranks of one node on GPU 0: the job's own
    ranks share it, the application's, whatever each line's figures say (was: the node's, gpu_held)."""
    incident = _job(("node1/train.log", [f"[rank0]: {OWN_RANKS}", f"[rank1]: {OWN_RANKS}"]))
    assert incident.category == "application"
    assert "ranks 0, 1 share GPU 0 of node1: each rank must use its own device" in incident.reason
    # a rank's line naming one other process (most of the GPU) beside a line naming several: the first may be the
    # second rank's (SYNTHETIC: RETURNN's shape beside llm_trainer's)
    incident = _job(("node1/train.log", [f"[rank0]: {RETURNN}", f"[rank1]: {OWN_RANKS}"]))
    assert incident.category == "application" and "ranks 0, 1 share GPU 0" in incident.reason
    # 1.x's message (no process named): the same
    incident = _job(("node1/train.log", [f"[rank0]: {TIME_SLICED}", f"[rank3]: {TIME_SLICED}"]))
    assert incident.category == "application" and "ranks 0, 3 share GPU 0" in incident.reason


def test_ranks_on_other_nodes_or_other_gpus_share_nothing():
    """SYNTHETIC: the same GPU index on two nodes, or two GPUs of one node: each line's own figures decide."""
    assert _job(("node1/train.log", [f"[rank0]: {TIME_SLICED}"]),
                ("node2/train.log", [f"[rank1]: {TIME_SLICED}"])).category == "infrastructure"
    other_gpu = TIME_SLICED.replace("(GPU 0;", "(GPU 1;")
    assert _job(("node1/train.log", [f"[rank0]: {TIME_SLICED}", f"[rank1]: {other_gpu}"])).category == "infrastructure"


def test_ranks_each_holding_most_of_their_gpu_are_not_said_to_share_one():
    """SYNTHETIC: a GPU per rank seen as its "GPU 0" (a container or Slurm task per GPU): two ranks each holding more
    than half of it cannot share one GPU; the application's, its own OOM, with no sharing said."""
    incident = _job(("node1/train.log", [f"[rank0]: {CONTAINER}", f"[rank1]: {CONTAINER}"]))
    assert incident.category == "application" and "share GPU" not in incident.reason


# SYNTHETIC (from PyTorch's format, reportProcessMemoryInfo, with the REAL lines' shapes): a GPU per rank, each
# seen as its "GPU 0", another process still holding most of it (a crashed earlier run's, another pod's)
def _held(own: float, pid: int, held: float = 71.62, total: float = 93.0) -> str:
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 290.00 MiB. GPU 0 has a total capacity of "
            f"{total:.2f} GiB of which 134.94 MiB is free. Process {pid} has {held:.2f} GiB memory in use. Including "
            f"non-PyTorch memory, this process has {own:.2f} GiB memory in use. Of the allocated memory 1.00 GiB is "
            f"allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.")


@pytest.mark.parametrize("lines", [
    # REAL rwth-i6/returnn #1649's line under two ranks' prefixes (SYNTHETIC job): each rank's GPU held by one
    # process, the same pid; on one GPU the line of the rank that failed first would list the other rank too
    [f"[rank0]: {RETURNN}", f"[rank1]: {RETURNN}"],
    # REAL ostris/ai-toolkit #277's (another service's 38.88 of 39.38 GiB), twice: the ranks' own 0.48 GiB each
    [f"[rank0]: {SERVICE}", f"[rank1]: {SERVICE}"],
    # a different process each: each other's would mean trading more than half the GPU between their OOMs
    [f"[rank0]: {_held(2.0, 118636)}", f"[rank1]: {_held(3.0, 118637)}"]])
def test_ranks_each_alone_with_another_process_holding_their_gpu_are_not_said_to_share_one(lines):
    """A GPU per rank with another process holding most of each: the node's (gpu_held, CHECK_GPU_PROCESSES), no
    sharing said (was: "ranks 0, 1 share GPU 0", the application's)."""
    incident = _job(("node1/train.log", lines))
    assert incident.category == "infrastructure" and "share GPU" not in incident.reason
    assert "held by other processes" in incident.reason


def test_a_holder_the_job_maps_to_its_rank_is_the_jobs_own():
    """The one process both lines name is a rank of the job (its NCCL line, CONSTRUCTED from NCCL's "Init COMPLETE"
    format, maps node1's pid 118636 to rank 2): the ranks share the GPU, the application's."""
    nccl = "node1:118636:118700 [0] NCCL INFO comm 0x453b9880 rank 2 nranks 4 cudaDev 0 busId 4f000 - Init COMPLETE"
    incident = _job(("node1/train.log", [nccl, f"[rank0]: {RETURNN}", f"[rank1]: {RETURNN}"]))
    assert incident.category == "application" and "share GPU 0 of node1" in incident.reason
