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


# REAL: captured on a lent H200 (tests/fixtures/realworld/captured-h200.yaml, PyTorch 2.11): the thread's line first,
# the exception at the synchronize that raised it after the traceback (its other frames left out), then 2.6+'s line
# naming the enum
H200 = ["/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:111: operator(): block: [0,0,0], thread: [0,0,0] Assertion "
        "`-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed.",
        "Traceback (most recent call last):",
        '  File "/work/main/.devrun/fault.py", line 28, in <module>',
        "    torch.cuda.synchronize()",
        "torch.AcceleratorError: CUDA error: device-side assert triggered",
        "Search for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for "
        "more information."]
# REAL: https://github.com/modelscope/ms-swift/issues/3267 (rank 0's stderr, then its stdout's thread line)
SWIFT = ["[rank0]: RuntimeError: CUDA error: device-side assert triggered",
         "[rank0]: CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
         "might be incorrect.",
         "[rank0]: For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
         "[rank0]: Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
         "",
         NLL]


def test_the_exception_after_the_threads_lines_is_their_failure():
    assert len(_findings(H200)) == 1  # was: two, the threads' and the exception's
    # CONSTRUCTED from the REAL lines above under torchrun's "[rankN]:" prefix: rank 3's threads, then its exception
    tagged = [f"[rank3]:{line}" for line in H200]
    assert [f.rank for f in _findings(tagged)] == [3]


def test_another_ranks_exception_is_its_own_failure():
    # CONSTRUCTED from the REAL lines above: rank 3's threads, rank 5's exception (its own kernel's threads lost)
    lines = [f"[rank3]:{line}" for line in H200[:4]] + [f"[rank5]:{line}" for line in H200[4:]]
    assert [f.rank for f in _findings(lines)] == [3, 5]


def test_a_ranks_tagged_exception_and_its_untagged_threads_are_one_failure():
    found = _findings(SWIFT)  # was: two, rank 0's exception and the untagged thread's line
    assert [(f.rank, f.details["cuda_error"]) for f in found] == [(0, "device-side assert triggered")]
    # CONSTRUCTED from the REAL lines above: the usual order, the untagged threads first, then the tagged exception
    assert [f.rank for f in _findings([NLL, NLL] + SWIFT[:4])] == [None]


def test_untagged_threads_never_join_two_ranks_failures():
    # CONSTRUCTED from the REAL lines above: ranks 0 and 1 raise; the untagged thread's line is either's
    lines = SWIFT[:1] + [SWIFT[0].replace("[rank0]", "[rank1]"), NLL]
    assert [f.rank for f in _findings(lines)] == [0, 1, None]
    # the untagged threads, then two ranks' exceptions: the first is theirs, the second its own
    lines = [NLL, SWIFT[0], SWIFT[0].replace("[rank0]", "[rank1]")]
    assert [f.rank for f in _findings(lines)] == [None, 1]


def test_another_cuda_error_after_the_threads_is_its_own():
    # CONSTRUCTED from PyTorch's c10/cuda/CUDAException.cpp format ("CUDA error: " + cudaGetErrorString()) after the
    # REAL thread line: another failure than the assert, its own finding
    lines = [INDEX_SELECT.format(t=92), "RuntimeError: CUDA error: an illegal memory access was encountered"]
    assert [f.details["cuda_error"] for f in _findings(lines)] == ["device-side assert triggered",
                                                                    "an illegal memory access was encountered"]


def test_thrusts_report_of_the_assert_is_read_and_thcs_warning_is_not():
    for line in (
            # REAL: https://github.com/pytorch/pytorch/issues/5560 (THCUNN's reduction, Thrust before CUDA 11)
            "RuntimeError: reduce failed to synchronize: device-side assert triggered",
            # REAL: https://github.com/nv-tlabs/GSCNN/issues/27
            "RuntimeError: copy_if failed to synchronize: device-side assert triggered",
            # REAL: https://github.com/cliang1453/BOND/issues/14 (Thrust since CUDA 11: the enum's name first)
            "RuntimeError: copy_if failed to synchronize: cudaErrorAssert: device-side assert triggered"):
        f = Classifier().classify(line)  # the first two were: nothing
        assert (f.kind, f.attribution, f.details["cuda_error"]) == ("cuda_error", "application",
                                                                   "device-side assert triggered"), line
    # REAL: https://github.com/zhanghang1989/PyTorch-Encoding/issues/23 (THC's warning; its exception follows it)
    assert Classifier().classify("THCudaCheck FAIL file=/pytorch/torch/lib/THC/generic/THCStorage.cu line=58 "
                                 "error=59 : device-side assert triggered") is None
