"""Triage of a job whose kernel assert() failed (h212): REAL lines copied verbatim from the thread beside them."""

from __future__ import annotations

from triage import Clock, attribute, read_lines

# REAL: https://github.com/NVIDIA/Megatron-LM/issues/1038 (the excerpt's threads, then rank 0's traceback)
MEGATRON_1038 = [
    "/opt/pytorch/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1284: indexSelectLargeIndex: block: [37,0,0], thread: "
    f"[{t},0,0] Assertion `srcIndex < srcSelectDimSize` failed." for t in (92, 93, 94, 95)] + [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/workspace/Megatron-LM/examples/run_simple_mcore_train_loop.py", line 154, in <module>']


def test_a_kernel_assert_is_the_applications_failure():
    """Was: no incident ("No failure found"); now the application's, the kernel's device-side assert its root."""
    (incident,) = attribute(read_lines(MEGATRON_1038, "train.log", Clock()))
    assert (incident.category, incident.root.kind) == ("application", "cuda_error")
