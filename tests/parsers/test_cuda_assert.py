"""A CUDA kernel's assert() failing, one line per failing thread ("<file>.cu:<line>: <kernel>: block: [..], thread: [..]
Assertion `<cond>` failed."): the job's own failure (what PyTorch then raises as "device-side assert triggered"), one
finding per rank for a burst of hundreds of lines, never the GPU's.  Lines marked REAL are copied verbatim from the
public source beside them (tests/fixtures/realworld/jobs-cuda-assert-2026m.yaml holds them in context)."""

from __future__ import annotations

from parsers import Classifier
from parsers.kinds import BY_NAME

# REAL: https://github.com/NVIDIA/Megatron-LM/issues/1038 (the line of thread 92; the thread's own number varies)
INDEX_SELECT = ("/opt/pytorch/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1284: indexSelectLargeIndex: block: "
                "[37,0,0], thread: [{t},0,0] Assertion `srcIndex < srcSelectDimSize` failed.")
# REAL: https://github.com/modelscope/ms-swift/issues/3267 (cross-entropy's label out of range)
NLL = ("../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
       "[0,0,0] Assertion `t >= 0 && t < n_classes` failed.")
# REAL: https://github.com/guoyww/AnimateDiff/issues/304 (a Windows build: no kernel name)
WINDOWS = ("C:\\actions-runner\\_work\\pytorch\\pytorch\\builder\\windows\\pytorch\\aten\\src\\ATen\\native\\cuda\\"
           "IndexKernel.cu:92: block: [512,0,0], thread: [20,0,0] Assertion `-sizes[i] <= index && index < sizes[i] "
           "&& \"index out of bounds\"` failed.")


def _findings(lines):
    c = Classifier()
    return [f for f in map(c.classify, lines) if f is not None]


def test_a_threads_line_is_the_jobs_device_side_assert_with_its_kernel_and_condition():
    for line, source, kernel, assertion in (
            (INDEX_SELECT.format(t=92), "Indexing.cu", "indexSelectLargeIndex", "srcIndex < srcSelectDimSize"),
            (NLL, "Loss.cu", "nll_loss_forward_reduce_cuda_kernel_2d", "t >= 0 && t < n_classes"),
            (WINDOWS, "IndexKernel.cu", None, '-sizes[i] <= index && index < sizes[i] && "index out of bounds"')):
        f = Classifier().classify(line)  # was: nothing
        assert (f.kind, f.severity, f.attribution, f.action) == ("cuda_error", "error", "application", "RESTART_APP")
        assert f.details["cuda_error"] == "device-side assert triggered"  # the fact PyTorch's exception states
        assert (f.details["source"], f.details.get("kernel"), f.details["assertion"]) == (source, kernel, assertion)


def test_hundreds_of_threads_lines_are_one_finding():
    found = _findings([INDEX_SELECT.format(t=t) for t in range(512)])
    assert len(found) == 1


def test_interleaved_ranks_are_one_finding_each():
    # CONSTRUCTED from the REAL line above under torchrun's "[rankN]:" prefix (torch.distributed.elastic's
    # --local-ranks-filter / tee prefix): two ranks' threads interleaved
    lines = [f"[rank{r}]:" + INDEX_SELECT.format(t=t) for t in range(64) for r in (3, 5)]
    assert sorted(f.rank for f in _findings(lines)) == [3, 5]


def test_right_after_pytorchs_exception_it_is_that_failure():
    # REAL: https://github.com/pytorch/pytorch/issues/44867 (the exception first, the thread's line after it)
    lines = ["RuntimeError: cuda runtime error (59) : device-side assert triggered at "
             "/pytorch/aten/src/THC/THCTensorCopy.cu:102",
             "/pytorch/aten/src/THC/THCTensorIndex.cu:395: void WrapIndexOp::operator()(long *, long *): block: "
             "[0,0,0], thread: [0,0,0] Assertion `idx < size && idx >= -size` failed."]
    assert len(_findings(lines)) == 1


def test_it_raises_no_node_condition():
    assert BY_NAME["cuda_error"].raises == ()  # a job's failure, never a node's condition


def test_other_assertions_and_the_hint_stay_silent():
    for line in (
            # REAL: https://github.com/modelscope/ms-swift/issues/3267 (PyTorch's hint after its exception)
            "[rank0]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
            # CONSTRUCTED from glibc's assert.c format ("%s%s%s:%u: %s%sAssertion `%s' failed.\n"): a host program's
            # assert, no thread or block: no GPU kernel's
            "python3: malloc.c:2379: sysmalloc: Assertion `(old_top == initial_top (av) && old_size == 0)' failed."):
        assert Classifier().classify(line) is None, line
