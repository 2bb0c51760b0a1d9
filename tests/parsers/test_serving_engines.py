"""Inference servers' own words for a failed CUDA call (h28): the sleep-mode allocators of vLLM and SGLang,
TensorRT-LLM / TensorRT / FasterTransformer / TurboMind's checks, a build without code for the GPU.  Every line is a
real one (the thread beside it; tests/fixtures/realworld/workload-serving-2026.yaml holds them with their sources)."""

from __future__ import annotations

import pytest

from parsers import Classifier, parse_line
from parsers.classify import message_rank
from parsers.workers import tag_rank


@pytest.mark.parametrize("line", [
    # vllm-project/vllm #13941, #12981 (CuMemAllocator, sleep mode's wake_up)
    "RuntimeError: CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62",
    "(LLMRayActor pid=347860) CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62 [repeated 3x across "
    "cluster]",
    # SGLang's torch_memory_saver, each release's wording (fzyzcjy/torch_memory_saver #4, THUDM/slime #274, #99)
    "[torch_memory_saver.cpp] CUresult error  result=2 file=csrc/torch_memory_saver.cpp func=cu_mem_create line=103 (5)",
    "[torch_memory_saver.cpp] CUresult error: 2 (out of memory) file=csrc/utils.h func=cu_mem_create line=187",
    "[torch_memory_saver.cpp] cudaError error: 2 (out of memory)  file=csrc/core.cpp func=resume line=172",
    # TensorRT-LLM (NVIDIA/TensorRT-LLM #3636, #1060), TensorRT 10 and 7 (NVIDIA/TensorRT #4258; linghu8812/
    # tensorrt_inference #155), FasterTransformer (triton-inference-server/fastertransformer_backend #157)
    "RuntimeError: Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] CUDA runtime error in "
    "::cudaMallocAsync(ptr, n, mMemPool->getPool(), mCudaStream->get()): out of memory (/home/jenkins/agent/workspace/"
    "LLM/release-0.18/L0_Test-x86_64/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:125)",
    "RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in error: out of memory (/home/jenkins/agent/workspace/LLM/"
    "main/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/runtime/ipcUtils.cpp:48)",
    "[11/22/2024-13:40:47] [E] Error[1]: [defaultAllocator.cpp::allocate::31] Error Code 1: Cuda Runtime (out of memory)",
    "[09/29/2022-16:59:38] [E] [TRT] ../rtSafe/safeRuntime.cpp (25) - Cuda Error in allocate: 2 (out of memory)",
    "  what():  [FT][ERROR] CUDA runtime error: out of memory /workspace/build/fastertransformer_backend/build/_deps/"
    "repo-ft-src/src/fastertransformer/utils/allocator.h:220",
])
def test_a_serving_engines_out_of_memory_is_the_jobs(line):
    """Was: nothing (no row knew these words)."""
    f = parse_line(line)
    assert (f.kind, f.attribution, f.action) == ("cuda_oom", "application", "RESTART_APP")


def test_the_allocators_retry_notice_is_no_failure():
    """torch_memory_saver 0.0.9 says a failed cuMemCreate may be retried (fzyzcjy/torch_memory_saver #99)."""
    assert parse_line("[torch_memory_saver.cpp] cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an issue e.g. torch "
                      "allocator will free cache and retry)") is None


def test_the_calls_after_an_out_of_memory_are_one_failure_with_it():
    """vllm-project/vllm #12981: CuMemAllocator's stderr before 0.7.3, the mapping of the handle never made failing."""
    c = Classifier()
    assert c.classify("CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:56").kind == "cuda_oom"
    assert c.classify("CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:57") is None
    assert c.classify("CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:64") is None
    alone = parse_line("CUDA Error: invalid argument at /workspace/csrc/cumem_allocator.cpp:57")
    assert (alone.kind, alone.details["cuda_error"]) == ("cuda_error", "invalid argument")


@pytest.mark.parametrize("line,text,attribution", [
    # fzyzcjy/torch_memory_saver #35: a status by its number alone
    ("[torch_memory_saver.cpp] CUresult error  result=1 file=csrc/torch_memory_saver.cpp func=resume line=214",
     "invalid argument", "unknown"),
    # NVIDIA/TensorRT-LLM #1063, #775, #448 (the call's own parentheses before the text); a GPU index the process does
    # not see, the job's configuration (was: unknown)
    ("RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in cudaSetDevice(device): invalid device ordinal (/home/"
     "jenkins/agent/workspace/LLM/main/L0_PostMerge/tensorrt_llm/cpp/tensorrt_llm/runtime/utils/sessionUtils.cpp:34)",
     "invalid device ordinal", "application"),
    ("RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in cub::DeviceSegmentedRadixSort::SortPairsDescending("
     "nullptr, cub_temp_storage_size, log_probs, (T*) nullptr, id_vals, (int*) nullptr, vocab_size * batch_size, "
     "batch_size, begin_offset_buf, offset_buf + 1, 0, sizeof(T) * 8, stream): invalid device function (/code/tekit/"
     "cpp/tensorrt_llm/kernels/samplingTopPKernels.cu:1077)", "invalid device function", "application"),
    ("[TensorRT-LLM][ERROR] Encountered an error in forward function: [TensorRT-LLM][ERROR] CUDA runtime error in "
     "::cudaEventSynchronize(get()): an illegal memory access was encountered (/app/tensorrt_llm/cpp/include/"
     "tensorrt_llm/runtime/cudaEvent.h:66)", "an illegal memory access was encountered", "application"),
    # InternLM/lmdeploy #450 (TurboMind)
    ("RuntimeError: [TM][ERROR] CUDA runtime error: invalid argument /lmdeploy/src/turbomind/utils/memory_utils.cu:136 ",
     "invalid argument", "unknown"),
    # a build without code for the GPU: the job's software (vllm-project/vllm #20193; was: unknown)
    ("[rank0]: RuntimeError: CUDA error: no kernel image is available for execution on the device",
     "no kernel image is available for execution on the device", "application"),
])
def test_a_failed_cuda_call_names_its_error(line, text, attribution):
    f = parse_line(line)
    assert (f.kind, f.details["cuda_error"], f.attribution) == ("cuda_error", text, attribution)
    assert set(f.details) == {"cuda_error"} or set(f.details) == {"cuda_error", "cu_status"}


def test_a_driver_too_old_for_the_call_is_the_nodes_driver():
    """InternLM/lmdeploy #340 (driver 450.102.04 under a CUDA 11.x build; was: nothing)."""
    f = parse_line("RuntimeError: [TM][ERROR] CUDA runtime error: API call is not supported in the installed CUDA "
                   "driver /lmdeploy/src/turbomind/utils/allocator.h:163 ")
    assert (f.kind, f.attribution) == ("driver_unusable", "driver")


@pytest.mark.parametrize("line,netdev,port", [
    # openucx/ucx #9590 (UCX 1.15), #2973 (UCX 1.5: the device before the text)
    ("[lxbk1127:2330859:0:2330859] ib_mlx5_log.c:177  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend "
     "0x81 hw_synd 0/0)", "mlx5_0", 1),
    ("[ast1815:6807 :0:6807] ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: Transport retry count "
     "exceeded (synd 0x15 vend 0x81) opcode SEND", "mlx5_3", 1),
])
def test_ucx_completion_error_is_the_fabrics(line, netdev, port):
    """UCX's failed completion (NIXL's transport under disaggregated serving; was: nothing): NET/IB's kind, the
    syndrome named as libibverbs names the status, which triage reads (triage/attribute.py ib_category)."""
    f = parse_line(line)
    assert (f.kind, f.attribution, f.details["netdev"], f.details["port"], f.details["wc_status"],
            f.details["vendor_err"]) == ("ib_completion_error", "fabric", netdev, port, "IBV_WC_RETRY_EXC_ERR", 129)


@pytest.mark.parametrize("line,wc_status,vendor_err", [
    # openucx/ucx #733 (2016's fatal), #1569 and #1880 (dc_verbs: the qp, the vendor error after "syndrome"), #2322
    # (2018), #7774 (2021: "[qpn .. wrid 0x149vendor_err 0x51]", the missing space UCX's)
    ("[pod9:7464 :0] rc_verbs_iface.c:98   Fatal: Send completion with error: transport retry counter exceeded",
     "IBV_WC_RETRY_EXC_ERR", None),
    ("[1496344648.548260] [vegas06:14879:0]       dc_verbs.c:614  UCX  ERROR Send completion with error on qp 0x6214: "
     "remote access error syndrome 0x88", "IBV_WC_REM_ACCESS_ERR", 136),
    ("Sun Oct  1 17:01:10 2017[1,30]<stdout>:[1506866470.744682] [clx-hercules-065:1411 :0]       dc_verbs.c:633  UCX  "
     "ERROR Send completion with error on qp 0x10e55: transport retry counter exceeded syndrome 0x81",
     "IBV_WC_RETRY_EXC_ERR", 129),
    ("Tue Feb 27 20:11:35 2018[1,371]<stderr>:[jazz17:172423:0:172423] rc_verbs_iface.c:63   FATAL: send completion "
     "with error: transport retry counter exceeded", "IBV_WC_RETRY_EXC_ERR", None),
    ("[swx-rdmz-ucx-gpu-02:1884 :0:1884] rc_verbs_iface.c:124  send completion with error: local protection error "
     "[qpn 0xf9db wrid 0x149vendor_err 0x51]", "IBV_WC_LOC_PROT_ERR", 81),
    # constructed from later UCX releases' format (src/uct/ib/rc/verbs/rc_verbs_iface.c uct_rc_verbs_handle_failure:
    # "send completion with error: %s qpn 0x%x wrid 0x%lx vendor_err 0x%x"), not a real line: the flushed status's
    # words
    ("[host:1:0:1] rc_verbs_iface.c:120 send completion with error: Work Request Flushed Error qpn 0x12 wrid 0x5 "
     "vendor_err 0xf9", "IBV_WC_WR_FLUSH_ERR", 249),
])
def test_ucx_verbs_completion_error_is_the_fabrics(line, wc_status, vendor_err):
    """UCX's verbs transports' failed completion (was: nothing): NET/IB's kind, the status named from libibverbs'
    words (parsers.rules.IB_WC_STATUSES), so triage reads a flushed request as NET/IB's, and the vendor error."""
    f = parse_line(line)
    assert (f.kind, f.attribution, f.details["wc_status"], f.details.get("vendor_err")) == (
        "ib_completion_error", "fabric", wc_status, vendor_err)


@pytest.mark.parametrize("line,wc_status,netdev,peer", [
    # sgl-project/sglang #10560 (kvcache-ai/Mooncake #851): the prefill's RDMA worker, a PD-disaggregated KV transfer
    ("E0917 16:23:13.419399 4058290 worker_pool.cpp:294] Worker: Process failed for slice (opcode: 1, source_addr: "
     "0x7fd2f6000800, length: 3584, dest_addr: 0x7fb9d6001000, local_nic: mlx5_7, peer_nic: 115.182.224.13:15004@mlx5_7, "
     "dest_rkey: 2137688, retry_cnt: 1): local protection error", "IBV_WC_LOC_PROT_ERR", "mlx5_7", "115.182.224.13"),
    # vllm-project/vllm #10884 (vLLM's Mooncake pipe, 2024): the destination address in decimal
    ("E1213 02:57:10.528410  5811 worker_pool.cpp:274] Worker: Process failed for slice (opcode: 0, source_addr: "
     "0x7efdf3ffd010, length: 404, dest_addr: 140532604981264, local_nic: mlx5_1, peer_nic: 127.0.0.1:8149@mlx5_0, "
     "dest_rkey: 2105088, retry_cnt: 0): transport retry counter exceeded", "IBV_WC_RETRY_EXC_ERR", "mlx5_1",
     "127.0.0.1"),
])
def test_mooncake_failed_slice_is_a_completion_error(line, wc_status, netdev, peer):
    """Mooncake's transfer engine's failed slice (was: nothing): NET/IB's kind, the status named from libibverbs'
    words, the local NIC and the peer NIC's host."""
    f = parse_line(line)
    assert (f.kind, f.details["wc_status"], f.details.get("netdev"), f.peer) == (
        "ib_completion_error", wc_status, netdev, peer)


def test_mooncake_reaction_lines_are_none():
    """sgl-project/sglang #10560: the engine marking the NIC inactive, and its later refusals, no event of their own."""
    assert parse_line("W0917 16:23:13.427592 4058290 worker_pool.cpp:308] Too many errors found in local RNIC "
                      "115.182.224.11:16643@mlx5_7, mark it inactive") is None
    assert parse_line("E0917 16:23:13.437203 4058290 rdma_context.cpp:304] Context is not active: mlx5_7") is None


def test_ucx_verbs_peer_line_is_none():
    """openucx/ucx #7774: the line after the error, the peer's queue pair."""
    assert parse_line("[swx-rdmz-ucx-gpu-02:1884 :0:1884] rc_verbs_iface.c:124  [rqpn 0xf9e9 dlid=10 sl=0 port=1 "
                      "src_path_bits=0]") is None


@pytest.mark.parametrize("line", [
    "[lxbk1127:2330856:0:2330856] ib_mlx5_log.c:177  DCI QP 0xd16 wqe[6168]: SEND s-e [rqpn 0x17de rlid 1037] [va "
    "0x7f9f745cea80 len 5770 lkey 0x15de4] ",
    "0 0x000000000002cf1c uct_ib_mlx5_completion_with_err()  /home/abuild/rpmbuild/BUILD/ucx-1.5.20181220/src/uct/ib/"
    "mlx5/ib_mlx5_log.c:112",
])
def test_ucx_lines_after_the_error_are_none(line):
    """openucx/ucx #9590, #2973: the queue pair's line and the backtrace's frame."""
    assert parse_line(line) is None


# --- which worker of a serving engine printed a finding's line (parsers.workers: its tag, shared with triage) -------
# The lines are real: each from the issue beside it (its body, as GitHub's API gives it, newlines kept, read in the
# yunwei37/vllm-exp issue dump), and the worker tags the triage tests hold (tests/triage/test_triage.py PREFIXES).
WORKER_FINDINGS = [
    # https://github.com/vllm-project/vllm/issues/14181 (vLLM 0.7's "VllmWorker rank=3", its logger's older header)
    ('(VllmWorker rank=3 pid=271990) ERROR 03-04 01:21:00 multiproc_executor.py:374] RuntimeError: CUDA error:'
    ' device-side assert triggered',
     "cuda_error", 3),
    # https://github.com/vllm-project/vllm/issues/19631 (the exception as the worker's stderr printed it, no header)
    ('(VllmWorker rank=7 pid=3350875) RuntimeError: CUDA error: an illegal memory access was encountered',
     "cuda_error", 7),
    # https://github.com/vllm-project/vllm/issues/19483 (rank 0: a rank, not "none")
    ('(VllmWorker rank=0 pid=226) ERROR 06-11 01:51:09 [multiproc_executor.py:527] RuntimeError: CUDA error: a'
    'n illegal memory access was encountered',
     "cuda_error", 0),
    # https://github.com/vllm-project/vllm/issues/16570
    ('(VllmWorker rank=1 pid=52940) ERROR 04-14 14:24:52 [multiproc_executor.py:383] torch.OutOfMemoryError: C'
    'UDA out of memory. Tried to allocate 298.00 MiB. GPU 1 has a total capacity of 39.38 GiB of which 65.38 '
    'MiB is free. Including non-PyTorch memory, this process has 39.31 GiB memory in use. Of the allocated me'
    'mory 35.91 GiB is allocated by PyTorch, with 73.88 MiB allocated in private pools (e.g., CUDA Graphs), a'
    'nd 120.72 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try se'
    'tting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Me'
    'mory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)',
     "cuda_oom", 1),
]


@pytest.mark.parametrize("line,kind,rank", WORKER_FINDINGS)
def test_a_serving_workers_finding_names_its_rank(line, kind, rank):
    """REAL: a vLLM worker's CUDA error names no rank but its tag's; before, the finding had none (a Pod Event of the
    job listed no rank)."""
    f = parse_line(line)
    assert (f.kind, f.rank) == (kind, rank)


@pytest.mark.parametrize("line,rank", [
    # https://github.com/vllm-project/vllm/issues/23582 (vLLM 0.10's "VllmWorker TP3": a TP index alone is the rank)
    ("(VllmWorker TP3 pid=432) ERROR 09-05 21:05:38 [multiproc_executor.py:596] WorkerProc hit an exception.", 3),
    # https://github.com/vllm-project/vllm/issues/26420 (vLLM 0.11's "Worker_TP1")
    ("(Worker_TP1 pid=803328) ERROR 10-08 17:20:23 [multiproc_executor.py:671] Traceback (most recent call last):", 1),
    # https://github.com/vllm-project/vllm-ascend/issues/3298 (DP2 x TP8 with EP: vLLM's EP index spans both)
    ('(Worker_DP1_TP6_EP14 pid=373019) ERROR 09-19 02:53:52 [multiproc_executor.py:654]   File "/vllm-workspace/vllm/'
     'vllm/v1/executor/multiproc_executor.py", line 649, in worker_busy_loop', 14),
    # https://github.com/vllm-project/vllm/issues/18088 (vLLM 0.8's "VllmWorker rank=1")
    ("(VllmWorker rank=1 pid=239571) ERROR 05-13 16:11:49 [multiproc_executor.py:522]     model_output = "
     "self.model(input_ids, positions, intermediate_tensors,", 1),
    # https://github.com/llm-d/llm-d/issues/191 (API server, engine, worker: the innermost that names a rank)
    ("(APIServer pid=32) (EngineCore_0 pid=296) (VllmWorker TP0 pid=302) WARNING 09-07 11:25:27 "
     "[nixl_connector.py:1049] Releasing expired KV blocks", 0),
    # https://github.com/foundation-model-stack/fastsafetensors/issues/36 (Ray's worker: no rank)
    ("(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) INFO 12-17 23:27:55 [cuda.py:351] Using "
     "FLASH_ATTN attention backend out of potential backends: ('FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', "
     "'FLEX_ATTENTION')", None),
    # https://github.com/sgl-project/sglang/issues/8336, #18785 (SGLang's TP index, with EP's)
    ("[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call last):", 2),
    ("[2026-02-12 11:38:30 TP0 EP0] Prefill batch, #new-seq: 5, #new-token: 8192, #cached-token: 159453, token usage: "
     "0.13, #running-req: 22, #queue-req: 6, ", 0),
    # https://github.com/sgl-project/sglang/issues/6624 (DP1 TP2: SGLang's TP index restarts per replica: no rank)
    ("[2025-05-26 07:48:17 DP1 TP2] Scheduler hit an exception: Traceback (most recent call last):", None),
    # https://github.com/sgl-project/sglang/issues/5034 (DP0 TP0, the same)
    ('[2025-04-03 20:06:34 DP1 TP0] Watchdog timeout (self.watchdog_timeout=300)', None),
])
def test_the_classifier_reads_a_workers_tag_as_triage_does(line, rank):
    """REAL (the triage tests' lines): the classifier's reading of a worker tag (message_rank, the rank a PyTorch
    line names) is triage's (ranks.strip), from the one definition of each tag (parsers.workers)."""
    assert tag_rank(line) == rank and message_rank(line)[0] == rank


@pytest.mark.parametrize("line, rank", [
    # https://github.com/NVIDIA/TensorRT-LLM/issues/4708 (the executor worker on MPI rank 3 failed to start)
    ("[05/27/2025-21:12:36] [TRT-LLM] [E] Failed to initialize executor on rank 3: [TensorRT-LLM][ERROR] CUDA runtime "
     "error in cudaMemsetAsync(fc1_act_sf_flat, 0x0, getOffsetFlatSFArray(num_experts_per_node, num_rows, cols), "
     "stream): an illegal memory access was encountered (/builds/ftp/internalcutlasskernels/cpp/tensorrt_llm/kernels/"
     "internal_cutlass_kernels/src/moe_gemm/moe_kernels.cu:1282)", 3),
    # https://github.com/NVIDIA/Model-Optimizer/issues/1933 (TensorRT-LLM 1.3's logger names its source, "[executor]")
    ("[07/07/2026-03:31:36] [TRT-LLM] [E] [executor] Failed to initialize executor on rank 0: tuple index out of range",
     0),
])
def test_tensorrt_llms_executor_failure_names_its_rank(line, rank):
    """REAL: TensorRT-LLM's executor worker that fails to start names the MPI rank it ran on (tensorrt_llm/executor/
    worker.py worker_main); the line's failure is that rank's, in parse and in triage (ranks.in_message)."""
    from triage.ranks import in_message

    assert message_rank(line)[0] == rank and in_message(line)[0] == rank
    found = Classifier().classify(line)
    assert (found.kind, found.rank) == ("cuda_error", rank) if "CUDA" in line else found is None


# A worker's tag in the colours vLLM prints it in (vllm/utils `_add_prefix`: "\033[1;36m(..)\033[0;0m ") and Ray's
# driver in (dim, cyan, reset), as a pod's log holds it and as pasted, the escape lost or shown as U+FFFD
# (parsers.workers.COLOURS, the pattern offline triage peels too)
COLOURED_TAGS = [
    # https://github.com/tsailiming/openshift-ai-bootstrap docs/demo/multi-gpu.md ("Pod logs with 2 workers", escape
    # lost)
    ("[1;36m(VllmWorker rank=1 pid=219)[0;0m INFO 08-31 14:42:32 [parallel_state.py:1076] rank 1 in world size 2 is "
     "assigned as DP rank 0, PP rank 0, TP rank 1, EP rank 1", 1),
    # https://github.com/vllm-project/vllm/issues/23922 (vLLM 0.10.1.1's "VllmWorker TP5", escape lost)
    ("[1;36m(VllmWorker TP5 pid=411)[0;0m ERROR 08-29 02:12:59 [multiproc_executor.py:596] WorkerProc hit an "
     "exception.", 5),
    # https://github.com/vllm-project/vllm/issues/21713 (the escape shown as U+FFFD)
    ("\ufffd[1;36m(VllmWorker rank=3 pid=4867)\ufffd[0;0m ERROR 07-26 18:47:24 [multiproc_executor.py:511] Traceback "
     "(most recent call last):", 3),
    # https://github.com/vllm-project/vllm/issues/5477 (Ray's worker, U+FFFD: a tag that names no rank)
    ("\ufffd[36m(RayWorkerWrapper pid=4183, ip=10.3.32.122)\ufffd[0m ERROR 06-03 23:13:39 worker_base.py:148] Error "
     "executing method start_worker_execution_loop. This might cause deadlock in distributed execution.", None),
    # https://github.com/vllm-project/vllm/issues/22746 (the escape as `cat -v` / less print it, "^[")
    ("^[[1;36m(VllmWorker rank=0 pid=13543)^[[0;0m INFO 08-12 08:45:18 [custom_all_reduce.py:196] Registering 8643 "
     "cuda graph addresses", 0),
    # https://github.com/vllm-project/vllm/issues/24004 (GLM-4.5V's workers through rsyslog: the escape as "#033", the
    # carriage return as "#015")
    ("#033[1;36m(VllmWorker TP1 pid=413)#033[0;0m ERROR 09-01 04:36:17 [multiproc_executor.py:559] WorkerProc failed "
     "to start.#015", 1),
    # CONSTRUCTED: vllm #23922's line with its escapes kept, as `kubectl logs` of a vLLM pod with colour on holds it
    ("\x1b[1;36m(VllmWorker TP5 pid=411)\x1b[0;0m ERROR 08-29 02:12:59 [multiproc_executor.py:596] WorkerProc hit an "
     "exception.", 5),
    # CONSTRUCTED: llm-d #191's nesting (engine, worker), each tag coloured: the innermost that names a rank
    ("\x1b[1;36m(EngineCore_0 pid=296)\x1b[0;0m \x1b[1;36m(VllmWorker TP0 pid=302)\x1b[0;0m WARNING 09-07 11:25:27 "
     "[nixl_connector.py:1049] Releasing expired KV blocks", 0),
]


@pytest.mark.parametrize("line,rank", COLOURED_TAGS)
def test_a_coloured_workers_tag_names_its_rank(line, rank):
    """Was: None for every coloured tag (tag_rank saw a colour code, not "(", at the line's start), so a vLLM pod's
    finding had no rank where triage, which peels the colours, read one."""
    from triage.ranks import strip

    assert tag_rank(line) == rank and message_rank(line)[0] == rank
    assert strip(line)[0].rank == rank  # offline triage reads the same rank from the same line


def test_a_coloured_workers_finding_names_its_rank():
    """CONSTRUCTED: vllm #19631's worker line (WORKER_FINDINGS) with the colours vLLM prints about its tag: was no
    rank."""
    f = parse_line("\x1b[1;36m(VllmWorker rank=7 pid=3350875)\x1b[0;0m RuntimeError: CUDA error: an illegal memory "
                   "access was encountered")
    assert (f.kind, f.rank) == ("cuda_error", 7)


def test_colour_codes_alone_name_no_worker():
    """A coloured line without a worker's tag (kohya-ss/sd-scripts #1434's line in red, CONSTRUCTED), a bare reset,
    an SGLang stamp: nothing read, nothing raised."""
    assert tag_rank("\x1b[31mRuntimeError: CUDA error: uncorrectable ECC error encountered pid=3") is None
    assert tag_rank("\x1b[0m") is None and tag_rank("[0m") is None and tag_rank("") is None
    assert tag_rank("[2025-05-26 07:48:17 DP1 TP2] Scheduler hit an exception") is None
    # a comment's "#", a caret, a syslog escape of another character: no colour, nothing read (CONSTRUCTED)
    assert tag_rank("# (VllmWorker TP1 pid=413) notes") is None and tag_rank("^C(VllmWorker TP1 pid=413)") is None
    assert tag_rank("#011(VllmWorker TP1 pid=413) ERROR") is None and tag_rank("^[[1;36m") is None
