"""PyTorch 2.3.0's cuDNN v8 convolutions telling of each execution plan they drop before trying the next ("Plan failed
with a cudnnException: .. CUDNN_STATUS_NOT_SUPPORTED"): a plan search in a run that goes on, no finding; cuDNN's
failure raised as the computation's error stays the job's cuda_error.  Lines marked REAL are copied verbatim from the
public source beside them (tests/fixtures/realworld/jobs-cudnn-plan-2026.yaml holds them in context)."""

from __future__ import annotations

from parsers import Classifier
from parsers.scan import scan_lines

# REAL: https://github.com/pytorch/pytorch/issues/121834 (the backward's, pytorch/pytorch:2.3.0 image; training went on)
BACKWARD = ("/opt/conda/lib/python3.10/site-packages/torch/autograd/graph.py:744: UserWarning: Plan failed with a "
            "cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed cudnn_status: "
            "CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at /opt/conda/conda-bld/pytorch_1712608935911/work/aten/"
            "src/ATen/native/cudnn/Conv_v8.cpp:919.)")
# REAL: https://github.com/TemryL/ComfyUI-IDM-VTON/issues/9 (the forward's, without the warning's file prefix)
FORWARD = ("Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed "
           "cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at ../aten/src/ATen/native/cudnn/"
           "Conv_v8.cpp:919.)")
# REAL: https://github.com/modelscope/ms-swift/issues/6931 (cuDNN's failure raised: the job's error)
RAISED = ("[rank0]: RuntimeError: CUDNN_BACKEND_TENSOR_DESCRIPTOR cudnnFinalize failedptrDesc->finalize() cudnn_status: "
          "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED")


def test_a_dropped_plan_is_no_finding():
    for line in (BACKWARD, FORWARD):  # were: a cuda_error error each
        assert Classifier().classify(line) is None, line


def test_a_run_printing_it_per_step_stays_silent():
    lines = [BACKWARD, "  return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the "
             "backward pass", FORWARD, "  return F.conv2d(input, weight, bias, self.stride,"] * 50
    assert list(scan_lines(lines)) == []


def test_cudnns_raised_failure_stays_the_jobs_error():
    f = Classifier().classify(RAISED)
    assert (f.kind, f.severity, f.details["cuda_error"]) == (
        "cuda_error", "error", "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED")
