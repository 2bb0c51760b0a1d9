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
    assert GPU_OOM_HELD == 0.5
    assert (_incident(line).category == "infrastructure") is held


def test_the_pods_event_says_whose_memory_it_was():
    said = explain(Classifier().classify(RETURNN), None)
    assert "held by other processes" in said and "not a node fault" not in said
    assert "the application ran out of GPU memory" in explain(Classifier().classify(CONTAINER), None)
