"""Triage of CUDA's contained error (status 226, h514): the GPU's error containment stopped a kernel.  Several GPUs at
once are likely the NVLink fabric they share, one GPU its own hardware; the other ranks' failures its consequences
(triage/attribute.py `_contained`).  Likely, not proven: by the CUDA docs a program's invalid access of peer memory over
NVLink raises it too, and the reason says so.

Lines marked REAL are copied verbatim from the public thread beside them.  Jobs marked SYNTHETIC put real-format
lines together into a job that did not happen as such; they test the rule, never the formats.
"""

from __future__ import annotations

from triage import Clock, attribute, read_lines

# REAL: https://github.com/ultralytics/ultralytics/issues/24536 (rank 5's traceback; rank 1's ended the same way)
TORCH = "[rank{}]: RuntimeError: CUDA error: Invalid access of peer GPU memory over nvlink or a hardware error"
# REAL (the error as XLA prints it): https://github.com/marin-community/marin/issues/8934, a GB200 NVL72 domain's
# task 162 rank 1, then the seven other nodes of the domain within 0.5 s; the glog header before it is SYNTHETIC
# (the thread names the source file, gpu_cudamallocasync_allocator.cc:414, not the whole line)
XLA = ("E0905 17:34:{} {} gpu_cudamallocasync_allocator.cc:414] CUDA_ERROR_CONTAINED: Invalid access of peer GPU "
       "memory over nvlink or a hardware error")
# SYNTHETIC: a rank's end after it, as JAX's coordination service says it
JAX_END = ("E0905 17:34:43.100000 3456 coordination_service.cc:512] Terminating process because the JAX distributed "
           "service detected fatal errors. This most likely indicates that another task died")


def _job(files: dict[str, list[str]]) -> list:
    clock = Clock()
    evidence = []
    for name, lines in files.items():
        evidence.extend(read_lines(lines, f"/logs/{name}", clock, root="/logs", year=2026))
    return attribute(evidence)


def test_contained_on_several_nodes_at_once_is_their_nvlink_fabric():
    """SYNTHETIC (marin-community/marin #8934's shape): was UNDETERMINED ("says nothing of its cause"), the first
    node's error alone; now the fabric, the other node's report a part of it and the rank that ended after it a
    consequence."""
    (incident,) = _job({"s2grxs64/task.log": [XLA.format("36.549000", 1234)],
                        "s5k62nb4/task.log": [XLA.format("36.801000", 2345)],
                        "s24qxs64/task.log": [JAX_END]})
    assert (incident.category, incident.rule, incident.root.host) == ("fabric", "contained_fabric", "s2grxs64")
    assert "2 nodes (s2grxs64, s5k62nb4)" in incident.reason and "NVLink fabric" in incident.reason
    assert "s24qxs64" in incident.consequences
    assert {e.host for e in incident.evidence} == {"s2grxs64", "s5k62nb4", "s24qxs64"}


def test_contained_on_two_ranks_of_one_node_is_their_fabric_too():
    """SYNTHETIC (NVIDIA/open-gpu-kernel-modules #1355's shape: both GPUs of a TP group on one B300 HGX node at once;
    ultralytics #24536: ranks 1 and 5): was UNDETERMINED; now the fabric."""
    (incident,) = attribute(read_lines([TORCH.format(1), TORCH.format(5)], "train.log", Clock()))
    assert (incident.category, incident.rule, incident.root.rank) == ("fabric", "contained_fabric", 1)
    assert "2 ranks (1,5)" in incident.reason and "no time stamps" in incident.reason
    # likely, not proven (h523's review, the lead's 90def623): was "one fault of the NVLink fabric .., not of each GPU
    # nor the program", which a custom all-reduce's invalid peer access, every rank at once, would read as too
    assert "likely one fault of the NVLink fabric" in incident.reason and "not proven" in incident.reason
    assert "invalid access of peer memory over NVLink" in incident.reason and "nor the program" not in incident.reason


def test_contained_on_one_rank_names_its_gpu_not_the_program():
    """REAL (ultralytics #24536, rank 5's line alone): was UNDETERMINED; now hardware, rank 5's GPU."""
    (incident,) = attribute(read_lines([TORCH.format(5)], "train.log", Clock()))
    assert (incident.category, incident.rule, incident.root.rank) == ("hardware", "contained_fabric", 5)
    assert "GPU" in incident.reason and "no other GPU" in incident.reason


def test_a_failure_before_the_contained_error_is_not_outranked_by_it():
    """SYNTHETIC: an illegal access on one node a minute before a contained error elsewhere stays the root (the rules
    after this one decide)."""
    first = ("E0905 17:33:30.000000 999 gpu_timer.cc:1] INTERNAL: CUDA error: Failed to launch CUDA kernel: "
             "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered")
    (incident,) = _job({"a/task.log": [first], "b/task.log": [XLA.format("36.549000", 1234)]})
    assert incident.rule != "contained_fabric" and incident.root.host == "a"
