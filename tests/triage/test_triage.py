"""triage/: launcher prefixes, clocks, job facts and the attribution rules.

Lines marked REAL are copied verbatim from the public source in the comment beside them. Jobs marked SYNTHETIC are
compositions made for a rule: real-format lines (each from the source named) put together into a job that did not
happen as such, or small lines written for one branch; they test the logic, never the formats.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from realworld import lines_by_source

from parsers.kinds import BY_NAME
from parsers.kinds import CATEGORIES as KIND_CATEGORIES
from triage import (CATEGORIES, SCHEMA, Clock, Evidence, Incident, Root, app_stamp, attribute, from_path, read_lines,
                    strip, to_json)
from triage import facts
from triage.attribute import RULES, is_consequence
from triage.ranks import NONE, Origin, placeholder

# --- launcher prefixes (REAL lines) ------------------------------------------------------------------------------

PREFIXES = [
    # https://github.com/horovod/horovod/issues/2527 (Open MPI --tag-output via horovodrun)
    ("[1,0]<stdout>:Step #0\tLoss: 2.324532", dict(rank=0), "Step #0\tLoss: 2.324532"),
    # https://github.com/horovod/horovod/pull/3827 (MPICH-style tag)
    ("[1]<stdout>:test_common.py::CommonTests::test_gloo_built PASSED", dict(rank=1),
     "test_common.py::CommonTests::test_gloo_built PASSED"),
    # https://github.com/NVIDIA/nvidia-resiliency-ext/issues/142 (srun -l, then NCCL's host:pid:tid [dev])
    ("0: ip-10-1-29-23:183654:183654 [0] NCCL INFO Bootstrap: Using enp73s0:10.1.29.23<0>",
     dict(rank=0, host="ip-10-1-29-23", pid=183654, gpu=0), "NCCL INFO Bootstrap: Using enp73s0:10.1.29.23<0>"),
    # https://github.com/bigscience-workshop/bigscience/blob/master/train/tr11-176B-ml/chronicles.md (torchrun --tee)
    ("[default3]:terminate called after throwing an instance of 'c10::CUDAError'", dict(local_rank=3),
     "terminate called after throwing an instance of 'c10::CUDAError'"),
    # https://github.com/pytorch/pytorch/issues/113128 (torchrun --tee, then torch's own rank prefix)
    ("[default0]:[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 12] Process "
     "group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered",
     dict(local_rank=0, rank=12), None),
    # https://github.com/vllm-project/vllm/issues/6042 (Ray's worker prefix)
    ("(RayWorkerWrapper pid=4009) [rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=158046, OpType=GATHER, NumelIn=2867200, NumelOut=0, Timeout(ms)=600000) ran for "
     "600027 milliseconds before timing out.", dict(pid=4009, rank=1), None),
    # https://github.com/areal-project/AReaL/issues/3 (a named Ray actor: "/" in its name, the node's address)
    ("(model_worker/12 pid=43581, ip=10.208.16.54) [rank12]:[E227 06:13:07.855233166 ProcessGroupNCCL.cpp:1534] "
     "[PG 134 Rank 1] Process group watchdog thread terminated with exception: NCCL error: remote process exited or "
     "there was a network error, NCCL version 2.22.3", dict(pid=43581, host="10.208.16.54", rank=12), None),
    # https://github.com/foundation-model-stack/fastsafetensors/issues/36 (vLLM's engine, then its Ray worker: the
    # inner prefix wins)
    ("(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12) INFO 12-17 23:27:55 [cuda.py:351] Using "
     "FLASH_ATTN attention backend out of potential backends: ('FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', "
     "'FLEX_ATTENTION')", dict(pid=285, host="192.168.177.12"), "INFO 12-17 23:27:55 [cuda.py:351] Using FLASH_ATTN "
     "attention backend out of potential backends: ('FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION')"),
    # https://github.com/llm-d/llm-d/issues/191 (vLLM's API server, engine and TP worker: the worker's pid wins; its
    # TP index, the only parallel index it prints, is its rank in the engine; vLLM's logger header stays in the
    # message, the reader peels it)
    ("(APIServer pid=32) (EngineCore_0 pid=296) (VllmWorker TP0 pid=302) WARNING 09-07 11:25:27 "
     "[nixl_connector.py:1049] Releasing expired KV blocks", dict(pid=302, rank=0),
     "WARNING 09-07 11:25:27 [nixl_connector.py:1049] Releasing expired KV blocks"),
    # --- serving engines' workers: a rank from their parallel indices where one names the worker (ranks.worker_rank)
    # https://github.com/vllm-project/vllm/issues/23582 (vLLM 0.10's "VllmWorker TP3")
    ("(VllmWorker TP3 pid=432) ERROR 09-05 21:05:38 [multiproc_executor.py:596] WorkerProc hit an exception.",
     dict(pid=432, rank=3), "ERROR 09-05 21:05:38 [multiproc_executor.py:596] WorkerProc hit an exception."),
    # https://github.com/vllm-project/vllm/issues/26420 (vLLM 0.11's "Worker_TP1")
    ("(Worker_TP1 pid=803328) ERROR 10-08 17:20:23 [multiproc_executor.py:671] Traceback (most recent call last):",
     dict(pid=803328, rank=1), None),
    # https://github.com/vllm-project/vllm-ascend/issues/3298 (DP2 x TP8 with EP: the EP index spans both, 14 = 1*8+6)
    ('(Worker_DP1_TP6_EP14 pid=373019) ERROR 09-19 02:53:52 [multiproc_executor.py:654]   File "/vllm-workspace/vllm/'
     'vllm/v1/executor/multiproc_executor.py", line 649, in worker_busy_loop', dict(pid=373019, rank=14), None),
    # https://github.com/vllm-project/vllm/issues/18088 (vLLM 0.8's "VllmWorker rank=1")
    ("(VllmWorker rank=1 pid=239571) ERROR 05-13 16:11:49 [multiproc_executor.py:522]     model_output = "
     "self.model(input_ids, positions, intermediate_tensors,", dict(pid=239571, rank=1), None),
    # https://github.com/sgl-project/sglang/issues/8336 (SGLang's scheduler TP2 in a CRI log: the envelope's stamp is
    # the lead, SGLang's own is dropped with its prefix)
    ("2025-07-25T07:53:08.21748708+08:00 stdout F [2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback "
     "(most recent call last):", dict(rank=2),
     "2025-07-25T07:53:08.21748708+08:00 stdout F Scheduler hit an exception: Traceback (most recent call last):"),
    # https://github.com/sgl-project/sglang/issues/18785 (TP with EP: the TP index; SGLang's stamp kept as the lead)
    ("[2026-02-12 11:38:30 TP0 EP0] Prefill batch, #new-seq: 5, #new-token: 8192, #cached-token: 159453, token usage: "
     "0.13, #running-req: 22, #queue-req: 6, ", dict(rank=0),
     "[2026-02-12 11:38:30] Prefill batch, #new-seq: 5, #new-token: 8192, #cached-token: 159453, token usage: 0.13, "
     "#running-req: 22, #queue-req: 6, "),
    # https://github.com/sgl-project/sglang/issues/6624 (DP1 TP2: SGLang's TP index restarts in each data-parallel
    # replica unless DP attention is on, which the line does not say: no rank)
    ("[2025-05-26 07:48:17 DP1 TP2] Scheduler hit an exception: Traceback (most recent call last):", dict(rank=None),
     "[2025-05-26 07:48:17] Scheduler hit an exception: Traceback (most recent call last):"),
    # https://github.com/sgl-project/sglang/issues/12076 (Docker Compose v2's container prefix, then SGLang's TP3:
    # the compose row names nothing, the scheduler's tag the rank)
    ("sglang-1  | [2025-10-29 11:25:58 TP3] Watchdog timeout (self.watchdog_timeout=300)", dict(rank=3, host=None),
     "[2025-10-29 11:25:58] Watchdog timeout (self.watchdog_timeout=300)"),
    # https://github.com/NVIDIA/TensorRT-LLM/issues/2813 (Compose, padded to the longest service's name; no rank)
    ("triton-models-1    | [TensorRT-LLM][WARNING] cancellation_check_period_ms is not specified, will be set to 100 "
     "(ms)", dict(rank=None, host=None),
     "[TensorRT-LLM][WARNING] cancellation_check_period_ms is not specified, will be set to 100 (ms)"),
    # https://github.com/NVIDIA/TensorRT-LLM/blob/main/examples/wide_ep/README.md (srun -l, TensorRT-LLM's stamp and
    # rank tag; the stamp kept as the lead)
    (" 0: [12/04/2025-18:38:28] [TRT-LLM] [RANK 0] [I] moe_load_balancer finalizing model...", dict(rank=0),
     "[12/04/2025-18:38:28] [I] moe_load_balancer finalizing model..."),
    # https://github.com/huggingface/accelerate/issues/1317 (pdsh, DeepSpeed's multi-node launcher)
    ("104.171.201.171: │   1750 │   def init_trackers(self, project_name: str, config: Optional[dict] │",
     dict(host="104.171.201.171"), None),
    # https://github.com/NVIDIA/nccl/issues/1405 (NCCL's own prefix)
    ("kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
     "10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
     "fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f",
     dict(host="kp-ddp-worker-0", pid=3468, gpu=4), None),
    # https://github.com/msr-fiddle/pipedream/issues/76 (UCX)
    ("[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)",
     dict(host="8d6bf97c3bf4", pid=3039), "Caught signal 7 (Bus error: nonexistent physical address)"),
    # https://github.com/llm-d/llm-d/issues/191 (grep over pod logs: the file's name, then NCCL 2.26+'s stamp, then
    # NCCL's own prefix; the stamp is kept first)
    ("ms-pd-llm-d-modelservice-prefill-2.log:[2025-09-17 15:16:23] ms-pd-llm-d-modelservice-prefill-2:311:405 [0] "
     "transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port error",
     dict(host="ms-pd-llm-d-modelservice-prefill-2", pid=311, gpu=0),
     "[2025-09-17 15:16:23] transport/net_ib.cc:199 NCCL WARN NET/IB : mlx5_32:1 Got async error event: port error"),
    # https://github.com/varlogtim/tools/blob/main/gpu_idle_timeout/README.md (Determined AI's `det e logs`: its
    # stamp, the container's id, the rank, "||"; the stamp is peeled by the reader, as every leading stamp)
    ("5c902731 [rank=1] || batch limit hit, simulating hang", dict(rank=1), "batch limit hit, simulating hang"),
    ("5c902731 || 2024-03-15 16:29:07,060: DEBUG: gpu_idle_timeout: GPU-a5b02c30-9c95-cb81-e41e-ca204d57aa3b usage 38%",
     {}, "2024-03-15 16:29:07,060: DEBUG: gpu_idle_timeout: GPU-a5b02c30-9c95-cb81-e41e-ca204d57aa3b usage 38%"),
    # https://github.com/determined-ai/determined/issues/8915 (the master's own line: no container)
    ("         || ERROR: Trial 139 (Experiment 138) was terminated: allocation failed: resources failed with non-zero "
     "exit code: container failed with non-zero exit code: 1 (exit code 1)", {},
     "ERROR: Trial 139 (Experiment 138) was terminated: allocation failed: resources failed with non-zero exit code: "
     "container failed with non-zero exit code: 1 (exit code 1)"),
    # https://github.com/determined-ai/determined/issues/3275 (`det trial logs`: the level first, then the stamp)
    ("<info>    [2021-12-07 10:43:05] 087c0ee7 || INFO: container failed with non-zero exit code:  (exit code 1)", {},
     "[2021-12-07 10:43:05] INFO: container failed with non-zero exit code:  (exit code 1)"),
]

# Lightning-AI/lit-llama #380 (NCCL's prefix, the host name's start elided by the poster: the end that tells its node
# from the job's three others kept; named as printed)
PREFIXES.append(("...-48:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error",
                 dict(host="...-48", pid=34050, gpu=0), "transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error"))

# https://github.com/pytorch/pytorch/pull/137523 (`torchx log`'s "<role>/<replica> ", then torchrun's tee prefix with
# TorchX's empty role, "[0]:": the replica is the node, the local rank torchrun's; were: no origin at all)
PREFIXES.append(("trainer/0 [0]:E0927 12:07:22.643702 1012209 ProcessGroupNCCL.cpp:1356] [PG ID 0 PG GUID "
                 "0(default_pg) Rank 0] ProcessGroupNCCL preparing to dump debug info.",
                 dict(host="trainer/0", local_rank=0),
                 "E0927 12:07:22.643702 1012209 ProcessGroupNCCL.cpp:1356] [PG ID 0 PG GUID 0(default_pg) Rank 0] "
                 "ProcessGroupNCCL preparing to dump debug info."))
PREFIXES.append(("trainer/0 [0]:I0927 12:07:22.643805 1012209 plugin.cpp:559] Profiler start dump",
                 dict(host="trainer/0", local_rank=0), "I0927 12:07:22.643805 1012209 plugin.cpp:559] Profiler start dump"))

# https://github.com/NVIDIA/pyxis/issues/135 (Slurm 23.11's slurmstepd names its node: the node, not the word; was the
# host "slurmstepd-sp-0016", pdsh's row)
PREFIXES.append(("slurmstepd-sp-0016: error: pyxis: couldn't start container", dict(host="sp-0016"),
                 "error: pyxis: couldn't start container"))

# Ray's worker prefix in the colours its driver prints it with (dim, cyan, reset), the escape lost in a paste: the
# prefix read behind them (its host, its pid), the line's text after the reset (were: no origin at all, the line
# read as text).  https://github.com/aws-neuron/aws-neuron-eks-samples/blob/main/llama3.1_8B_finetune_ray_ptl_neuron/
# README.md (Troubleshooting: a RayJob's workers)
PREFIXES.append(("[36m(RayTrainWorker pid=3483, ip=100.64.83.225)[0m Bad CRC-32 for file "
                 "'punkt_tab/czech/ortho_context.tab'", dict(host="100.64.83.225", pid=3483),
                 "Bad CRC-32 for file 'punkt_tab/czech/ortho_context.tab'"))
# https://github.com/vllm-project/vllm/issues/5477 (the escape shown as U+FFFD)
PREFIXES.append(("\ufffd[36m(RayWorkerWrapper pid=4183, ip=10.3.32.122)\ufffd[0m ERROR 06-03 23:13:39 worker_base.py:148] "
                 "Error executing method start_worker_execution_loop. This might cause deadlock in distributed "
                 "execution.", dict(host="10.3.32.122", pid=4183),
                 "ERROR 06-03 23:13:39 worker_base.py:148] Error executing method start_worker_execution_loop. This "
                 "might cause deadlock in distributed execution."))
# CONSTRUCTED: the same line as Ray writes it to a file (`kubectl logs` of a RayJob's submitter), its escapes kept,
# dim and cyan before the prefix (ray/_private/worker.py print_worker_logs), the rank's tag inside
PREFIXES.append(("\x1b[2m\x1b[36m(RayTrainWorker pid=3483, ip=100.64.83.225)\x1b[0m [rank3]: Bad CRC-32 for file "
                 "'punkt_tab/czech/ortho_context.tab'", dict(host="100.64.83.225", pid=3483, rank=3),
                 "Bad CRC-32 for file 'punkt_tab/czech/ortho_context.tab'"))
# vLLM's worker tag in its colours as a paste prints the escape: `cat -v`'s "^[" (https://github.com/vllm-project/
# vllm-ascend/issues/922, a V0 worker process: its pid, no rank) and rsyslog's "#033" (https://github.com/vllm-project/
# vllm/issues/24004, its carriage return "#015" part of the text)
PREFIXES.append(("^[[1;36m(VllmWorkerProcess pid=113915)^[[0;0m ERROR 05-21 11:56:08 [multiproc_worker_utils.py:238] "
                 "Exception in worker VllmWorkerProcess while processing method load_model.^M", dict(pid=113915),
                 "ERROR 05-21 11:56:08 [multiproc_worker_utils.py:238] Exception in worker VllmWorkerProcess while "
                 "processing method load_model.^M"))
PREFIXES.append(("#033[1;36m(VllmWorker TP1 pid=413)#033[0;0m ERROR 09-01 04:36:17 [multiproc_executor.py:559] "
                 "WorkerProc failed to start.#015", dict(pid=413, rank=1),
                 "ERROR 09-01 04:36:17 [multiproc_executor.py:559] WorkerProc failed to start.#015"))
# a colour alone names nobody: peeled, the text after it (CONSTRUCTED, kohya-ss/sd-scripts #1434's line in red)
PREFIXES.append(("\x1b[31mRuntimeError: CUDA error: uncorrectable ECC error encountered", {},
                 "RuntimeError: CUDA error: uncorrectable ECC error encountered"))

NOT_PREFIXES = [
    # an elision that keeps nothing of the name tells no node apart (synthetic, NCCL's prefix as lit-llama #380's)
    "...:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error",
    "…:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",  # pipedream #76
    "RuntimeError: CUDA error: uncorrectable ECC error encountered",  # kohya-ss/sd-scripts #1434
    "[rank11]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB.",  # ms-swift #6301 (rank only)
    '  File "/home/Ubuntu/Desktop/kohya_ss/sd-scripts/library/sdxl_original_unet.py", line 257, in x',
    "Epoch: [27]  [ 500/1352]  eta: 0:13:43  lr: 0.000013  loss: 29.9395 (28.6905)",  # Peterande/D-FINE #311
    "srun: error: nid01934: tasks 2,4-5,7: Terminated",  # desihub/desitarget #628
]


@pytest.mark.parametrize("line,who,rest", PREFIXES)
def test_launcher_prefixes(line, who, rest):
    origin, left = strip(line)
    for name, value in who.items():
        assert getattr(origin, name) == value, name
    if rest is not None:
        assert left == rest


@pytest.mark.parametrize("line", NOT_PREFIXES)
def test_not_a_host_prefix(line):
    assert strip(line)[0].host is None


def test_a_rows_host_check_and_place_are_declared_in_its_row():
    """Whether a prefix's host is checked (`host_checked`: pdsh's takes any word before ": ") and whether it is only
    ever a line's first (`outermost`) are properties of its row in PREFIXES, not of its name: the same row under
    another name still refuses a log word for a host, and still stands only first."""
    from triage import ranks
    [pdsh] = [r for r in ranks.PREFIXES if r.host_checked]
    assert pdsh.name == "pdsh" and pdsh.outermost
    renamed = pdsh._replace(name="parallel_ssh")
    table, anywhere = ranks._rows_by_first((renamed,))
    for line in ("Traceback: most recent call", "RuntimeError: CUDA error", "iteration: 3"):
        assert ranks._prefix(line, table.get(line[:1], anywhere)) is None, line
    hit = ranks._prefix("worker-3: hello", table.get("w", anywhere))
    assert hit is not None and hit[0].group("host") == "worker-3"
    assert {r.name for r in ranks.PREFIXES if r.outermost} == {"srun_label", "pdsh", "compose", "grep", "torchx",
                                                                    "kubectl", "stern", "stern_plain", "kubetail"}


def test_rank_and_host_from_paths():
    assert from_path("job/node-b/kern.log", "job").host == "node-b"
    assert from_path("job/rank-3.log", "job").rank == 3
    assert from_path("job/logs/rank_3.txt", "job").rank == 3
    o = from_path("job/worker-0/local_rank2.log", "job")
    assert (o.host, o.local_rank, o.rank) == ("worker-0", 2, None)
    assert from_path("job/ranks/rank7/stdout", "job").rank == 7
    assert from_path("/var/log/kern.log", "/var/log").host is None  # a named file: only its name counts


# --- clocks ---------------------------------------------------------------------------------------------------

def test_application_stamps():
    # REAL: hiyouga/LlamaFactory #7396 (c10 logging, no year)
    t, yearless = app_stamp("[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught")
    assert yearless and (t.month, t.day, t.hour, t.microsecond) == (3, 21, 2, 408271)
    # REAL: huggingface/accelerate #3206 (torchrun's ChildFailedError summary)
    t, yearless = app_stamp("  time      : 2024-11-02_21:03:02")
    assert not yearless and t == datetime(2024, 11, 2, 21, 3, 2)
    # REAL: xiuqhou/Salience-DETR #4 (torch.distributed.elastic's logging)
    t, _ = app_stamp("[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending "
                     "process 5938 closing signal SIGTERM")
    assert t == datetime(2024, 5, 8, 8, 47, 31, 261000)
    # REAL: lmzpai/roboMamba #10 (glog)
    t, yearless = app_stamp("E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/"
                            "api.py:869] failed (exitcode: -9) local_rank: 5 (pid: 2630) of binary: /root/x")
    assert yearless and (t.month, t.day, t.second) == (3, 25, 27)
    assert app_stamp("no stamp here") == (None, False)


def test_uptime_aligned_through_a_boot_anchor():
    """SYNTHETIC job: one node's dmesg (uptime only) and its syslog (wall clock with the dmesg stamp inside), line
    formats from tests/fixtures/dmesg (xid79-fallen-off-bus.dmesg, pcie-aer.syslog)."""
    clock = Clock()
    syslog = ["Mar 21 01:55:00 node-b kernel: [ 4200.000000] pcieport 0000:00:03.0: AER: Corrected error "
              "received: 0000:00:03.0"]
    dmesg = ["[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
             "the bus."]
    ev = list(read_lines(syslog, "job/node-b/syslog", clock, root="job", year=2025))
    ev += list(read_lines(dmesg, "job/node-b/dmesg", clock, root="job"))
    xid = next(e for e in clock.align(ev) if e.kind == "xid")
    assert xid.host == "node-b" and xid.pci == "0000:5d:00"
    assert xid.time == datetime(2025, 3, 21, 1, 55, 54, 197860, tzinfo=timezone.utc)


def test_yearless_stamps_take_the_jobs_year():
    clock = Clock()
    lines = ["[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process "
             "5938 closing signal SIGTERM",
             "[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, "
             "Timeout(ms)=600000) ran for 600060 milliseconds before timing out."]
    ev = clock.align(read_lines(lines, "x.log", clock))
    assert [e.time.year for e in ev if e.kind == "nccl_timeout"] == [2024]


def test_klog_stamps_take_the_jobs_year():
    """A glog/klog header leading the line ("F0426 17:52:54.043815 30811 hl_cuda_device.cc:565] ..", REAL:
    PaddlePaddle/Paddle #10239) prints no year: it takes the job's, as app_stamp's glog row gave it while such a line
    was plain text (since the envelope reads klog's header, 567bad1, its placeholder year 1900 was taken for a dated
    stamp: the evidence was dated 1900 and 1900 counted as a year the job's stamps give)."""
    clock = Clock()
    lines = ["[2024-05-08 08:47:31,261] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process "
             "5938 closing signal SIGTERM",
             "F0426 17:52:54.043815 30811 hl_cuda_device.cc:565] Check failed: cudaSuccess == cudaStat (0 vs. 39) Cuda "
             "Error: uncorrectable ECC error encountered"]
    ev = clock.align(read_lines(lines, "x.log", clock))
    assert [e.time for e in ev if e.kind == "cuda_error"] == [datetime(2024, 4, 26, 17, 52, 54, 43815,
                                                                        tzinfo=timezone.utc)]
    assert clock.year == 2024


def test_a_glog_stamp_takes_the_year_another_file_of_the_job_dates(tmp_path):
    """bytedance/flux #40's log (REAL, tests/fixtures/incidents/flux-40-two-node-illegal-access: glog's "W0907" and
    c10's "[E907 ..]" stamps, no year in any line) is dated by the year another file of the job gives, here
    open-mmlab/mmsegmentation #3106's torchrun summary (REAL, its "time : 2023-06-14_22:36:10" rows; SYNTHETIC: the
    two files of one job).  Alone, its year is the guess `gpu-npd triage` makes without --year: this year."""
    from offline.triage_cli import Inputs, collect

    incidents = Path(__file__).parents[1] / "fixtures" / "incidents"
    flux = (incidents / "flux-40-two-node-illegal-access" / "logs" / "train.log").read_text()
    (tmp_path / "node-0").mkdir()
    (tmp_path / "node-0" / "train.log").write_text(flux)
    alone = collect((str(tmp_path),), None, Inputs())
    assert {e.time.year for e in alone if e.time is not None} == {datetime.now(timezone.utc).year}
    summary = (incidents / "mmsegmentation-3106-same-second-sigabrt" / "logs" / "train.log").read_text()
    (tmp_path / "node-1").mkdir()
    (tmp_path / "node-1" / "train.log").write_text(summary)
    dated = [e for e in collect((str(tmp_path),), None, Inputs()) if e.time is not None]
    assert {e.time.year for e in dated} == {2023}
    assert any(e.file.endswith("node-0/train.log") for e in dated)


# --- job facts (REAL lines) ------------------------------------------------------------------------------------

FACTS = [
    # OpenBMB/MiniCPM-V #770
    ("torch/distributed/elastic/multiprocessing/api.py:826] failed (exitcode: -9) local_rank: 0 (pid: 1322) of "
     "binary: /root/miniconda3/bin/python", "rank_exit", dict(exit_code="-9", signal="9", local_rank="0")),
    # desihub/desitarget #628
    ("srun: error: nid01934: tasks 2,4-5,7: Terminated", "rank_exit", dict(host="nid01934", signal="15")),
    ("slurmstepd: error: *** STEP 32233190.0 ON nid01934 CANCELLED AT 2020-07-03T02:59:56 DUE TO TIME LIMIT ***",
     "job_ended", dict(host="nid01934", why="TIME LIMIT")),
    # jiabowang/GAPIT #207: Tianhe's srun, renamed yhrun, logs under its own name; its --wait task summary names the
    # task that exited abnormally (its "running" row is none)
    ("yhrun: error: cnode1995: task 0: Killed", "rank_exit", dict(host="cnode1995", rank="0", signal="9")),
    ("yhrun: StepId=1544235.0 task 1: exited abnormally", "rank_exit", dict(rank="1", job="1544235.0")),
    # desihub/desispec #2744: Slurm's cancellation for a task's failure (its reason read, no cause of its own)
    ("[2026-04-29T23:36:37.809] error: *** STEP 52222788.0 ON nid002888 CANCELLED AT 2026-04-29T23:36:37 DUE TO "
     "TASK FAILURE ***", "job_ended", dict(host="nid002888", why="TASK FAILURE")),
    # InternLM/lmdeploy #1221
    ("mpirun noticed that process rank 1 with PID 13580 on node 10.224.96.171 exited on signal 4 (Illegal "
     "instruction).", "rank_exit", dict(rank="1", host="10.224.96.171", signal="4")),
    # NVIDIA/nccl #1419 (Open MPI 5's launcher, prterun) and adda-team/adda #151 (mpiexec)
    ("prterun noticed that process rank 48 with PID 613162 on node gpu-node07 exited on signal 11 (Segmentation "
     "fault).", "rank_exit", dict(rank="48", host="gpu-node07", signal="11")),
    # Open MPI's users list, as quoted in its archive (a rank that ended without MPI_Finalize; the node is on the
    # next line): the wording of Open MPI's help-orterun.txt
    ("mpiexec has exited due to process rank 0 with PID 26254 on", "rank_exit", dict(rank="0", pid="26254")),
    # Open MPI 5's launcher (PRRTE) names the node on the same line (openpmix/prrte #2694, 2026)
    ("prterun has exited due to process rank 2 with PID 1705216 on node nid003032 exiting", "rank_exit",
     dict(rank="2", pid="1705216", host="nid003032")),
    # Open MPI's launcher lost its daemon on a node: ORTE 2.x-4.x (kubeflow/mpi-operator #152, an MPIJob's worker pod),
    # PRRTE (openpmix/prrte #2694)
    ("  Remote daemon: [[43015,0],20] on node tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-worker-19", "process_lost",
     dict(host="tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-worker-19", daemon="[[43015,0],20]")),
    ("  Remote daemon: [prterun-nid002944-1918870@0,1] on node nid003032", "process_lost", dict(host="nid003032")),
    # A rank that called MPI_Abort names itself (in MPI_COMM_WORLD; another communicator's rank is no global one):
    # Open MPI, every era's first line (Xilinx/ACCL #104, mpi4jax/mpi4jax #106), its error code on the next line
    ("MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD", "rank_exit", dict(rank="1")),
    # MPICH (pmodels/mpich #270, its "[cli_3]: aborting" glued on), MPICH 3.3+ / Intel MPI (SPECFEM/specfem3d #1344,
    # idaholab/moose #28399)
    ("application called MPI_Abort(MPI_COMM_WORLD, 0) - process 3[cli_3]: aborting", "rank_exit",
     dict(rank="3", errorcode="0")),
    # HPE Cray PALS's mpiexec (saforem2/ezpz docs/guides/autoretry-nodekill.md, Sunspot), its node's pdsh-like prefix
    # peeled by triage.ranks: the rank that ended and the ranks it then tore down
    ("rank 16 exited with code 1", "rank_exit", dict(rank="16", exit_code="1")),
    ("rank 0 died from signal 15", "rank_exit", dict(rank="0", signal="15")),
    ("Abort(1) on node 3 (rank 3 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 3", "rank_exit",
     dict(rank="3", errorcode="1")),
    # deepspeedai/DeepSpeed #3232.  The command DeepSpeed's launcher prints is the last one it spawned, whichever
    # process died: its '--local_rank=N' names no one (deepspeedai/DeepSpeedExamples #626: local rank 1 of two GPUs)
    ("[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', "
     "'--local_rank=0', '--data_path', 'Dahoas/rm-static'] exits with return code = -9", "rank_exit",
     dict(exit_code="-9", signal="9", local_rank=None)),
    ("[2023-07-10 04:26:35,999] [ERROR] [launch.py:324:sigkill_handler] ['/global/D1/homes/sushant/sushanta/venv/bin/"
     "python3.10', '-u', 'trainCLM.py', '--local_rank=1', '--deepspeed', '/home/sushant/D1/sushanta/try/nepaligpt/clm/"
     "config/deepspeed_config.json'] exits with return code = -11", "rank_exit",
     dict(exit_code="-11", signal="11", local_rank=None, rank=None)),
    # torch.multiprocessing.spawn's join, every era: 1.0-1.5's bare Exception (HRNet/HigherHRNet-Human-Pose-Estimation
    # #47), 1.6+'s ProcessExitedException (resistzzz/Prompt4NR #3; rshaojimmy/MultiModal-DeepFake #24's SIGABRT;
    # Plachtaa/VITS-fast-fine-tuning #284's exit code, SayaSS/vits-finetuning #32's Windows one): the spawn index, the
    # process's local rank
    ("Exception: process 1 terminated with signal SIGKILL", "rank_exit", dict(local_rank="1", signal="9")),
    ("torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL", "rank_exit",
     dict(local_rank="0", signal="9", rank=None)),
    ("torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGABRT", "rank_exit",
     dict(local_rank="1", signal="6")),
    ("torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with exit code 1", "rank_exit",
     dict(local_rank="0", exit_code="1", signal=None)),
    ("torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with exit code 3221226505", "rank_exit",
     dict(local_rank="0", exit_code="3221226505")),
    # Python's CalledProcessError for a child a signal ended (zengxiaofei/HapHiC #13; accelerate's simple_launcher and
    # torch.distributed.launch raise the same): a death by that signal, no rank
    ("subprocess.CalledProcessError: Command '['/home/li/bioinfo/HapHiC/scripts/HapHiC_pipeline.py', 'scaffolds.ref.fa', "
     "'HiC.filtered.bam', '20', '--RE', 'GATC,GANTC,CTNAG,TTAA', '--correct_nrounds', '2', '--remove_allelic_links', "
     "'4', '--threads', '20', '--processes', '8']' died with <Signals.SIGKILL: 9>.", "rank_exit",
     dict(signal="9", signame="SIGKILL", local_rank=None, rank=None)),
    # A shell reporting a command of its script a signal ended: a Slurm batch script's (ArjunaCluster/ArjunaUsers #52,
    # the issue's quote mark before it) and bash -c's (divamgupta/deep-clustering-kingdra #2, a stamp before it): that
    # process died by the signal its words name, no rank
    ('StdErr: "/var/spool/slurmd/job00191/slurm_script: line 28:  8156 Killed                  python3 main.py --prop '
     'hform --epochs 400 --lr_milestones 50 100 200 --gamma 0.25 --normalizing_const_AO 10000.0 --lr_generator 0.001 '
     '--lr_conv 0.001', "rank_exit", dict(pid="8156", signal="9", rank=None)),
    ("2020-11-24 20:22:28.106 /bin/bash: line 27: 318 Killed sh start.sh", "rank_exit", dict(pid="318", signal="9")),
    # bash's core-dump suffix after the signal's words (Lightning-AI/pytorch-lightning #20434, the run of litgpt #1832)
    ('/data/tir/projects/tir3/users/mengyan3/all_in_one_pretraining/./pretrain_then_finetune.sh: line 184: 2324239 '
     'Aborted                 (core dumped) litgpt pretrain $model_name --resume "${checkpoint_dir}/step${step}/'
     'lit_model.pth" --tokenizer_dir "${checkpoint_dir}/step${step}" --data FineWebDataset --data.data_path '
     '$pretraining_data_dir --data.val_data_path /data/datasets/hf_cache/data/fineweb/sample-350BT/val/0 '
     '--data.num_workers $SLURM_GPUS_ON_NODE --train.micro_batch_size $micro_batch_size --train.max_seq_len '
     '$max_seq_len --train.min_lr 1e-6 --train.max_iters ${max_iters} --train.max_additional_steps '
     '$max_additional_steps --train.save_interval 500 --train.log_interval $log_interval --train.lr_warmup_fraction '
     '0.01 --train.lr_scheduler $lr_scheduler --eval.interval 1000 --out_dir $out_dir --logs_dir $out_dir '
     '--logger_name tensorboard', "rank_exit", dict(pid="2324239", signal="6", rank=None)),
    # the same shell's report as the whole line, no line number nor pid (dash's `sh -c`, Horovod's per-rank output:
    # horovod/horovod #2907, its prefix off): a death by that signal
    ("Killed", "rank_exit", dict(how="Killed", signal="9", rank=None)),
    ("Aborted (core dumped)", "rank_exit", dict(how="Aborted", signal="6")),
    ("Terminated", "rank_exit", dict(how="Terminated", signal="15")),
    # Horovod's Gloo launcher on a rank's command that ended non-zero (horovod/horovod #2907): the rank, the shell's
    # 128+N code read as signal N
    ("Process 0 exit with status code 137.", "rank_exit", dict(rank="0", exit_code="137", signal="9")),
    ("Process 3 exit with status code 134.", "rank_exit", dict(rank="3", exit_code="134", signal="6")),
    # vLLM's executor on a worker that died: OpenPipe/ART #201 (V1), vllm-project/vllm #56180 (with the exit code)
    ("ERROR 07-04 17:35:16 [multiproc_executor.py:140] Worker proc VllmWorker-1 died unexpectedly, shutting down "
     "executor.", "rank_exit", dict(rank="1")),
    ("(EngineCore pid=3677484) ERROR 09-10 09:37:41 [multiproc_executor.py:314] Worker proc VllmWorker-0 died "
     "unexpectedly (exit code: None), shutting down executor.", "rank_exit", dict(rank="0")),
    # RayExecutorV2's monitor (Ray multi-node, 2026): vllm-project/vllm #43420 (the reporter's "ERROR ... "), and its
    # list of several ranks (CONSTRUCTED from vllm/v1/executor/ray_executor_v2.py's "rank=%s" of a list), no one rank
    ("ERROR ... RayWorkerProc rank=[3] died unexpectedly, shutting down executor.", "rank_exit",
     dict(rank="3", tasks="3")),
    ("(EngineCore_DP0 pid=610) ERROR 05-02 10:00:00 [ray_executor_v2.py:464] RayWorkerProc rank=[2, 3] died "
     "unexpectedly, shutting down executor.", "rank_exit", dict(rank=None, tasks="2, 3")),
    # hiyouga/LlamaFactory #7396 and #8261 (the watchdog's two wordings)
    ("[PG 1 Rank 3] Exception (either an error or timeout) detected by watchdog at work: 1580, last enqueued NCCL "
     "work: 1582, last completed NCCL work: 1579.", "nccl_progress",
     dict(rank="3", seq="1580", last_enqueued="1582", last_completed="1579")),
    ("[PG ID 1 PG GUID 1 Rank 2]  failure detected by watchdog at work sequence id: 2847 PG status: last enqueued "
     "work: 2856, last completed work: 2846", "nccl_progress",
     dict(rank="2", seq="2847", last_enqueued="2856", last_completed="2846")),
    # OpenRLHF/OpenRLHF #1126 and hiyouga/LlamaFactory #8261 (the flight recorder's dump request: another rank's
    # timeout, or this rank's own)
    ("[PG ID 0 PG GUID 0(default_pg) Rank 2] Received a dump signal due to a collective timeout from  rank 6 and we "
     "will try our best to dump the debug info. Last enqueued NCCL work: 460631, last completed NCCL work: 460630.This "
     "is most likely caused by incorrect usages of collectives", "nccl_dump",
     dict(pg="0", rank="2", signal_from="6", last_enqueued="460631", last_completed="460630")),
    ("[PG ID 0 PG GUID 0(default_pg) Rank 1] Received a dump signal due to a collective timeout from this local rank "
     "and we will try our best to dump the debug info. Last enqueued NCCL work: 6, last completed NCCL work: 6.This is "
     "most likely caused by incorrect usages of collectives", "nccl_dump",
     dict(pg="0", rank="1", own="this local rank", last_enqueued="6")),
    # 2.2-2.3's words of the same two lines: CONSTRUCTED from pytorch/pytorch #122850's test output (its description
    # wraps the line at ~72 columns; unwrapped here) and PyTorch 2.3's heartbeatMonitor ("from another rank")
    ("[PG 0 Rank 0] Received a timeout signal from this local rank and will start to dump the debug info. Last "
     "enqueued NCCL work: 2, last completed NCCL work: 1.", "nccl_dump",
     dict(pg="0", rank="0", own="this local rank", last_enqueued="2", last_completed="1")),
    ("[PG 0 Rank 1] Received a global timeout from another rank and will start to dump the debug info. Last "
     "enqueued NCCL work: 1, last completed NCCL work: 1.", "nccl_dump",
     dict(rank="1", own=None, signal_from=None, last_enqueued="1")),
    # NVIDIA/nccl #1730 ... and NVIDIA/nccl-tests #244 (NCCL's address)
    ("NCCL INFO Bootstrap : Using enp45s0f0:146.155.155.83<0>", "nccl_address", dict(address="146.155.155.83")),
    # modelscope/FunASR #2006 (communicator: rank, size, device)
    ("NCCL INFO comm 0x9bbaa80 rank 10 nranks 16 cudaDev 2 busId 48000 - Abort COMPLETE", "nccl_rank",
     dict(rank="10", nranks="16", gpu="2")),
    # pytorch/pytorch #140563 (the flight recorder analyser's verdict; the start of the line, as far as the excerpt)
    ("error msg: Culprit rank 22; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input sizes: '[[1025]]' does not "
     "match found input sizes: '[[262144]]', Culprit rank 110; Error type: SIZE_OR_SYNTAX_MISMATCH, Expected input "
     "sizes: '[[1025]]' does not match found", "collective_mismatch",
     dict(rank="22", error_type="SIZE_OR_SYNTAX_MISMATCH")),
    # msr-fiddle/pipedream #76
    ("Caught signal 7 (Bus error: nonexistent physical address)", "rank_exit", dict(signal="7")),
    # NVIDIA/nccl #296
    ("init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls at and around rank "
     "39. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs", "collective_mismatch",
     dict(around_rank="39")),
    # NCCL could not create its shared-memory segment: dmlc/xgboost #5963 (2.7's shm.h), pytorch/ci-infra #490
    # (2.2x's shmutils.cc, with the errno), pytorch/torchtitan #853 (the line torch quotes after "Last error:")
    ("7635c25c81cd:41588:41837 [0] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
     "nccl-shm-recv-6c6b02bad5bfc129-0-1-0 (size 9637888)", "storage_error",
     dict(segment="nccl-shm-recv-6c6b02bad5bfc129-0-1-0")),
    ("misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-WU88OE (size 9637888), "
     "error: No space left on device (28)", "storage_error", dict(what="No space left on device")),
    ("  Error while creating shared memory segment /dev/shm/nccl-1YsMbG (size 7340384)", "storage_error",
     dict(segment="/dev/shm/nccl-1YsMbG")),
    # torch.save's zip writer, its fwrite come back short (a full disk or quota, a shared file system's I/O error): no
    # errno in its words; SWivid/F5-TTS #458 (2.x, behind torchrun's "[rank0]:"), hiyouga/LlamaFactory #1223; was
    # nothing (the traceback's exception, blamed on the application)
    ("[rank0]: RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file "
     "data.pkl: file write failed", "storage_error", dict(what="PytorchStreamWriter failed writing file")),
    ("RuntimeError: [enforce fail at inline_container.cc:445] . PytorchStreamWriter failed writing file data/176: file "
     "write failed", "storage_error", dict(what="PytorchStreamWriter failed writing file")),
    # the same writer's position past what miniz asked for, a write come back short before it (a Megatron torch_dist
    # save to a full FSx for Lustre: "[Errno 28]" on two ranks, "unexpected pos 704 vs 598" on three, awslabs/
    # awsome-distributed-ai PR #1225): hkust-nlp/simpleRL-reason #19 (DeepSpeed behind Ray's prefix), pytorch/xla
    # #2491 (c10::Error's what()), verl-project/verl #3346's title (no space after the "."); was nothing
    ("(ActorModelRayActorBOX pid=499618) RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos 2368 "
     "vs 2262", "storage_error", dict(what="unexpected pos")),
    ("  what():  [enforce fail at inline_container.cc:274] . unexpected pos 3695636864 vs 3695636752", "storage_error",
     dict(what="unexpected pos")),
    ("[save model/ckpt error] RuntimeError: [enforce fail at inline_container.cc:659] .unexpected pos 2387758464 vs "
     "2387758376", "storage_error", dict(what="unexpected pos")),
    # an object store that throttled the job's upload past its client's retries: S3's SlowDown as botocore words it
    # (ray-project/deltacat #51), s3transfer's for a checkpoint's upload (mosaicml/composer PR #3543), urllib's
    # (cockpit-project/bots #3991); GCS's 429 for an object changed too often (fsspec/gcsfs #130); was nothing
    ("botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the CompleteMultipartUpload operation",
     "storage_error", dict(what="SlowDown", operation="CompleteMultipartUpload")),
    ("boto3.exceptions.S3UploadFailedError: Failed to upload /tmp/tmpn7sa44l2/26aecfcf-aa70-4385-951a-0ab28f00bf8c to "
     "data-force-one-datasets/mosaicml-internal-checkpoints/jacob/lora/atnmlp-r16-lr0.0001-mlp-ep-4-a-32-sd-17/"
     "ep1-ba193-rank0.pt: An error occurred (SlowDown) when calling the CreateMultipartUpload operation (reached max "
     "retries: 4): Please reduce your request rate. ", "storage_error",
     dict(what="SlowDown", operation="CreateMultipartUpload")),
    (" urllib.error.HTTPError: HTTP Error 503: Slow Down", "storage_error", dict(what="Slow Down")),
    ("gcsfs.utils.HtmlError: The total number of changes to the object dpe-sandbox/test.ipynb exceeds the rate limit. "
     "Please reduce the rate of create, update, and delete requests.", "storage_error",
     dict(what="exceeds the rate limit", object="dpe-sandbox/test.ipynb")),
    # S3's own 5xx failure of an object's request past botocore's retries (InternalError): an S3 outage (onnela-lab/
    # beiwe-backend #36), a self-hosted store (chithi-dev/chithi #93), NooBaa's with its pods down (red-hat-storage/ocs-ci #2472);
    # was nothing on its own line, the exception (the application's) in a traceback.  Another service's InternalError
    # names no object's operation: none (its line is no test here: only the object operations are read)
    ("ClientError: An error occurred (InternalError) when calling the PutObject operation (reached max retries: 4): We "
     "encountered an internal error. Please try again.", "storage_error",
     dict(what="InternalError", operation="PutObject")),
    ("botocore.exceptions.ClientError: An error occurred (InternalError) when calling the UploadPart operation (reached "
     "max retries: 4): Storage resources are insufficient for the read operation: chithi/019be08d-36c1-702a-ac02-"
     "a25dd9bb5ab3", "storage_error", dict(what="InternalError", operation="UploadPart")),
    ("An error occurred (InternalError) when calling the UploadPart operation (reached max retries: 2): We encountered "
     "an internal error. Please try again.", "storage_error", dict(what="InternalError", operation="UploadPart")),
    # the same 5xx as TensorStore (Orbax's storage layer) words it, its kvstore driver's source location after it:
    # https://github.com/google/tensorstore/issues/210 (GCS's gRPC driver, 2024; REAL, "[...]" the reporter's); was
    # nothing.  Without a store driver's location the words are another service's: none
    ("INTERNAL: Error reading [...]: We encountered an internal error. Please try again. [source locations='tensorstore/"
     "kvstore/gcs_grpc/gcs_grpc.cc:503\\ntensorstore/internal/cache/kvs_backed_cache.h:208']", "storage_error",
     dict(what="We encountered an internal error", store_driver="gcs_grpc")),
    # torch 1.0's legacy writer and reader quote strerror: pytorch/pytorch #10577 (a full disk), #45826 (NFS)
    ("RuntimeError: write(): fd 29 failed with Input/output error", "storage_error", dict(what="Input/output error")),
    ("RuntimeError: read(): fd 33 failed with Stale file handle", "storage_error", dict(what="Stale file handle")),
    # glibc's strerror(ESTALE) before 2.15 (and BSD's, macOS's) names NFS: sjl/peat #2 (REAL; was the exception, the
    # application's)
    ("OSError: [Errno 116] Stale NFS file handle: '/vagrant/project/media/css/style.scss'", "storage_error",
     dict(what="Stale NFS file handle")),
    # torch's shared-memory file (/dev/shm's /torch_*) it could not write, 0.4's words with no errno (huaweicloud/
    # dls-example #26, pytorch/pytorch #10396; REAL; was nothing); 2.x's "...: No space left on device (28)" below
    ("RuntimeError: unable to write to file </torch_76_3625483894> at /pytorch/aten/src/TH/THAllocator.c:383",
     "storage_error", dict(what="unable to write to file")),
    # a FUSE mount whose daemon died (h183): GoogleCloudPlatform/gcs-fuse-csi-driver #50 (gcsfuse), yandex-cloud/
    # k8s-csi-s3 #124 (a training job's TensorBoard writer, the path as bytes), Alluxio/alluxio #14294 (TensorFlow's
    # file system); was nothing
    ("OSError: [Errno 107] Transport endpoint is not connected: '/opt/airflow/logbucket/dag_id=xxx/run_id=scheduled__"
     "2023-07-31T00:00:00+00:00/task_id=begin_drop_day_driving_table'", "storage_error",
     dict(what="Transport endpoint is not connected")),
    ("OSError: [Errno 107] Transport endpoint is not connected: b'/output/lgy/log/3/events.out.tfevents.1720755089 "
     ".trainingjob-a12175629749448704103746-task2-0.13.0'", "storage_error",
     dict(what="Transport endpoint is not connected")),
    ("2021-10-22 13:24:29.645844: E tensorflow/core/platform/default/posix_file_system.cc:56] close() failed: "
     "Transport endpoint is not connected", "storage_error", dict(what="Transport endpoint is not connected")),
    # a rank that never reached the c10d store: lzhxmu/CPPO #6 (2.4+: socket.cpp's line in ms, TCPStore.cpp's after
    # it), lllyasviel/ControlNet #382 (2.0, in s), nvidia-cosmos/cosmos-rl #681 (2.8's DistNetworkError); was nothing
    # (TCPStore.cpp's line: the store row's "what" up to its "failed", no address)
    ("[E521 15:43:02.707733876 socket.cpp:1023] [c10d] The client socket has timed out after 600000ms while trying to "
     "connect to (172.18.21.4, 37907).", "store_error",
     dict(store_host="172.18.21.4", store_port="37907", store_timeout="600000ms", host=None)),
    ("[E521 15:43:02.707888867 TCPStore.cpp:318] [c10d] TCP client failed to connect/validate to host "
     "172.18.21.4:37907 - timed out (try=1, timeout=600000ms): The client socket has timed out after 600000ms while "
     "trying to connect to (172.18.21.4, 37907).", "store_error",
     dict(what="TCP client failed to connect", store_host="172.18.21.4", store_port="37907")),
    ("[E socket.cpp:793] [c10d] The client socket has timed out after 1800s while trying to connect to (127.0.0.1, "
     "48391).", "store_error", dict(store_host="127.0.0.1", store_timeout="1800s")),
    ("torch.distributed.DistNetworkError: The client socket has timed out after 300000ms while trying to connect to "
     "(036c56dce41b, 41331).", "store_error", dict(store_host="036c56dce41b", store_port="41331")),
    # the ranks that never joined the store, counted by whoever waited: the store-based barrier of 1.x
    # (facebookresearch/metaseq #52: fewer joined than expected; tczhangzhi/pytorch-distributed #18: more, two jobs on
    # one store), the TCPStore server of 2.x (OpenRLHF/OpenRLHF #1040, pytorch/pytorch PR #111805's first wording);
    # was nothing (1.x) and a bare "DistStoreError" (2.x)
    ("RuntimeError: Timed out initializing process group in store based barrier on rank: 4330, for key: "
     "store_based_barrier_key:522 (world_size=2048, worker_count=1792, timeout=0:30:00)", "store_error",
     dict(rank="4330", store_key="store_based_barrier_key:522", store_expected="2048", store_joined="1792",
          store_timeout="0:30:00")),
    ("RuntimeError: Timed out initializing process group in store based barrier on rank: 2, for key: "
     "store_based_barrier_key:1 (world_size=2, worker_count=4, timeout=0:30:00)", "store_error",
     dict(rank="2", store_expected="2", store_joined="4")),
    ("torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined.",
     "store_error", dict(what="Timed out after 1801 seconds waiting for clients", store_timeout="1801",
                         store_joined="1", store_expected="3")),
    ("torch.distributed.DistStoreError: Timed out after 6 seconds waiting for workers. 1/2 workers joined.",
     "store_error", dict(store_joined="1", store_expected="2")),
    # a c10d client that gave up on every address of the store (1.10-2.0): hpcaitech/Open-Sora #667 (socket.cpp's
    # line), hpcaitech/ColossalAI-Examples #207 (the exception's words, a leading space as pasted); was nothing
    ("[E socket.cpp:753] [c10d] The client socket has failed to connect to any network address of (6841231, 47389).",
     "store_error", dict(what="The client socket has failed to connect to any network address", store_host="6841231",
                         store_port="47389")),
    (" The client socket has failed to connect to any network address of (hcp-bb-03, 52873). The client socket has "
     "failed to connect to hcp-bb-03:52873 (errno: 110 - Connection timed out)", "store_error",
     dict(store_host="hcp-bb-03", store_port="52873")),
    # the job's network not set up at its start (network_setup): torch 1.x's TCPStore whose MASTER_ADDR did not
    # resolve (kubeflow/pytorch-operator #125, a PyTorchJob's worker before the master's Service record; was an
    # APPLICATION exception); c10d's store server whose port was taken (meta-pytorch/torchtune #392, om-ai-lab/VLM-R1
    # #289's 2.2+ words, meta-llama/llama-cookbook #186's socket.cpp line; was nothing); NCCL's bootstrap with no
    # socket interface (EasonXiao-888/MambaTree #14; was an UNDETERMINED nccl_error)
    ("ValueError: host not found: Name or service not known", "network_setup",
     dict(what="host not found", store_error="Name or service not known")),
    ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The "
     "server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has "
     "failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).", "network_setup",
     dict(what="The server socket has failed to listen on any local network address", store_port="29500",
          store_error="Address already in use")),
    ("RuntimeError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, "
     "code: -98, name: EADDRINUSE, message: address already in use.", "network_setup",
     dict(store_port="29500", store_error="EADDRINUSE")),
    ("[E socket.cpp:462] [c10d] The server socket has failed to listen on any local network address.",
     "network_setup", dict(what="The server socket has failed to listen on any local network address")),
    ("Bootstrap : no socket interface found", "network_setup", dict(what="Bootstrap : no socket interface found")),
    # c10d's failed lookup of the store's address, retried (store_unresolved: context, no failure alone):
    # kubernetes-sigs/jobset #93 (2.0), meta-pytorch/torchx #540 (1.12's IPv4 try), verl-project/verl #2550 (2.6+'s
    # stamp, an IPv6 address in brackets)
    ("[W socket.cpp:558] [c10d] The IPv6 network addresses of (pytorch-workers-0-0.pytorch-workers, 3389) cannot be "
     "retrieved (gai error: -2 - Name or service not known).", "store_unresolved",
     dict(unresolved="pytorch-workers-0-0.pytorch-workers", store_port="3389",
          resolver_error="gai error: -2 - Name or service not known")),
    ("(CommandActor pid=369, ip=10.131.6.134) [0]:[W socket.cpp:558] [c10d] The IPv4 network addresses of "
     "(codeflare-ray-jiajie-csqcn-head-sjvwx, 50176) cannot be retrieved (gai error: -2 - Name or service not known).",
     "store_unresolved", dict(unresolved="codeflare-ray-jiajie-csqcn-head-sjvwx", store_port="50176")),
    ("[W715 20:00:39.842901446 socket.cpp:752] [c10d] The IPv6 network addresses of "
     "([2605:340:cd51:4900:73e8:12cb:cfe2:1540], 59699) cannot be retrieved (gai error: -2 - Name or service not "
     "known).", "store_unresolved", dict(unresolved="[2605:340:cd51:4900:73e8:12cb:cfe2:1540]", store_port="59699")),
    # XLA's coordination service names the task whose heartbeats stopped: EleutherAI/architecture-objective #26
    # (TensorFlow's copy, 2022), jax-ml/jax #23599 (XLA's, 2024, "Check the task logs ...")
    ("2022-11-15 16:03:15.140058: E external/org_tensorflow/tensorflow/core/distributed_runtime/coordination/"
     "coordination_service.cc:954] /job:jax_worker/replica:0/task:37 has been set to ERROR in coordination service: "
     "UNAVAILABLE: Task /job:jax_worker/replica:0/task:37 heartbeat timeout. This indicates that the remote task has "
     "failed, got preempted, or crashed unexpectedly. [type.googleapis.com/tensorflow.CoordinationServiceError='']",
     "process_lost", dict(rank="37", job="jax_worker")),
    ("2024-10-09 15:47:38.568412: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:"
     "1170] /job:jax_worker/replica:0/task:0 has been set to ERROR in coordination service: UNAVAILABLE: Task "
     "/job:jax_worker/replica:0/task:0 heartbeat timeout. This indicates that the remote task has failed, got "
     "preempted, or crashed unexpectedly. Check the task logs for an earlier error to debug further. "
     "[type.googleapis.com/tensorflow.CoordinationServiceError='']", "process_lost", dict(rank="0")),
    # ... and the task that came back as a new incarnation (it restarted: it died before), at its registration:
    # google/grain #802 (XLA 2025, the service's line and its propagation to every task); was nothing
    ("2025-04-05 18:39:10.837611: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:962]"
     " /job:jax_worker/replica:0/task:1 unexpectedly tried to connect with a different incarnation. It has likely "
     "restarted.", "process_lost", dict(rank="1", job="jax_worker")),
    ("2025-04-05 18:39:10.837685: E external/xla/xla/tsl/distributed_runtime/coordination/coordination_service.cc:"
     "2163] Use error polling to propagate the following error to all tasks: ABORTED: /job:jax_worker/replica:0/task:1"
     " unexpectedly tried to connect with a different incarnation. It has likely restarted. [type.googleapis.com/"
     "tensorflow.CoordinationServiceError='\\\"\\x0e\\n\\njax_worker\\x10\\x01']", "process_lost", dict(rank="1")),
    # Ray's GCS declares a node dead, each era's wording: ray-project/ray #3446 (2018, "client ID"), #15128 (2021,
    # "and ip:"), #27710 (2022, "and address: ... and node name:"), ray-project/kuberay #3827 (2025, the same inside
    # the GCS's JSON event), #31119 (2023, a raylet terminated), #58638 (2025, Ray 2.52's task error)
    ("The node with client ID 1eadc9db2f074bfec34caf25dd5bf1f99fad0d59 has been marked dead because the monitor has "
     "missed too many heartbeats from it.", "process_lost", dict(node_id="1eadc9db2f074bfec34caf25dd5bf1f99fad0d59")),
    ("The node with node id: 75b2eec8a61cdafd37cc8072b1caf9abdeef9c4e74a4f24d5dfce28d and ip: 10.4.4.107 has been "
     "marked dead because the detector has missed too many heartbeats from it. This can happen when a raylet crashes "
     "unexpectedly or has lagging heartbeats.", "process_lost", dict(host="10.4.4.107")),
    ("2022-08-11 17:52:21,412 WARNING worker.py:1799 -- The node with node id: c118acd15dee467500f3fb92b837db8e73d4e8"
     "68e7e835585ace6f29 and address: 10.0.3.192 and node name: 10.0.3.192 has been marked dead because the detector "
     "has missed too many heartbeats from it. This can happen when a        (1) raylet crashes unexpectedly (OOM, "
     "preempted node, etc.) ", "process_lost", dict(host="10.0.3.192")),
    ('{"custom_fields":{"ip":"156.176.0.154","node_id":"ada3a3771fac751bd7c6b674e3b5e2df045b93550e6d31a410cad0be"},'
     '"event_id":"1820787c7179bb878444735ecb267c1bea04","host_name":"paas-controller-1","label":"RAY_NODE_REMOVED",'
     '"message":"The node with node id: ada3a3771fac751bd7c6b674e3b5e2df045b93550e6d31a410cad0be and address: '
     '156.176.0.154 and node name: 156.176.0.154 has been marked dead because the detector has missed too many '
     'heartbeats from it. This can happen when a \\t(1) raylet crashes unexpectedly (OOM, etc.) \\\\n\\t(2) raylet '
     'has lagging heartbeats due to slow network or busy workload.","pid":"65","severity":"ERROR","source_type":"GCS",'
     '"timestamp":1750669108}', "process_lost", dict(host="156.176.0.154")),
    ("2023-02-24 04:30:19,237 WARNING worker.py:1851 -- Raylet is terminated: ip=192.168.207.5, id=abc3bfd36381a1e89"
     "0104187b695fe0f938fbfc60e80ac16f9bf12c2. Termination is unexpected. Possible reasons include: (1) SIGKILL by the "
     "user or system OOM killer, (2) Invalid memory access from Raylet causing SIGSEGV or SIGBUS, (3) Other "
     "termination signals. Last 20 lines of the Raylet logs:", "process_lost", dict(host="192.168.207.5")),
    ("Task failed because the node it was running on is dead or unavailable. Node IP: 127.0.0.1, node ID: e55b8ca03eb"
     "f3f7418f51533d8d55abeaab75fa9b29e2e6282b47646. This can happen if the node was preempted, had a hardware "
     "failure, or its raylet crashed unexpectedly. To see node death information, use `ray list nodes --filter "
     "node_id=e55b8ca03ebf3f7418f51533d8d55abeaab75fa9b29e2e6282b47646`, check the Ray dashboard cluster page, search "
     "the node ID in the GCS logs, or use `ray logs raylet.out -ip 127.0.0.1`.", "process_lost",
     dict(host="127.0.0.1")),
    # Ray's raylet on a worker that died (PRIME-RL/Entropy-Mechanism-of-RL #7); 0.0.0.0 names no host
    # (hkust-nlp/simpleRL-reason #8)
    ("(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the "
     "problem, check the logs for the dead worker. RayTask ID: ffffffffffffffff9c227d58c339697ac05855c405000000 Worker "
     "ID: 3f178f204d10a49728a730c920d62d617d7e98664cf93e82a60ec34a Node ID: d45449d310bacbe9c336055e8257140857d81326751"
     "f4aefbbc0d0e3 Worker IP address: 172.31.0.5 Worker port: 10228 Worker PID: 1134587 Worker exit type: SYSTEM_ERROR "
     "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some "
     "potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop "
     "--force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.",
     "process_lost", dict(host="172.31.0.5", pid="1134587", exit_type="SYSTEM_ERROR")),
    ("(raylet) A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the "
     "problem, check the logs for the dead worker. RayTask ID: ffffffffffffffffd64cd47551eaad41428b1a6802000000 Worker "
     "ID: 2d351643de6ea3af66643b3952c6f84ad105d265d6241b25db742f1f Node ID: 1cc1783f3910ea44d820adb039cd7b37b4787bb6146"
     "21e4dd2a5eb9c Worker IP address: 0.0.0.0 Worker port: 10393 Worker PID: 66408 Worker exit type: SYSTEM_ERROR "
     "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some "
     "potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop "
     "--force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.",
     "process_lost", dict(host=None, pid="66408")),
    # Ray's ActorDiedError's text on the driver, the only line a verl / OpenRLHF driver's log may hold of a worker
    # lost: OpenRLHF/OpenRLHF #187 (2024), AgentR1/Agent-R1 #33 (2025, tests/fixtures/incidents/agent-r1-33-actor-died;
    # was no failure at all)
    ("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker "
     "unexpectedly exits with a connection error code 2. End of file. There are some potential root causes. (1) The "
     "process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray stop --force is called. (3) The "
     "worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.", "process_lost",
     dict(exit_type="SYSTEM_ERROR", exit_detail="Worker unexpectedly exits with a connection error code 2")),
    ("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker "
     "exits unexpectedly. Worker exits with an exit code None. The worker may have exceeded K8s pod memory limits.",
     "process_lost", dict(exit_type="SYSTEM_ERROR", exit_detail="Worker exits unexpectedly")),
    # REAL: hiyouga/EasyR1 #324 (2025): the GCS's other cause, the actor's owner lost, on the node the line names
    # (was no failure at all)
    ("The actor is dead because its owner has died. Owner Id: 01000000ffffffffffffffffffffffffffffffffffffffffffffffff "
     "Owner Ip address: 172.21.160.9 Owner worker exit type: SYSTEM_ERROR Worker exit detail: Owner's node has "
     "crashed.", "process_lost",
     dict(host="172.21.160.9", exit_type="SYSTEM_ERROR", exit_detail="Owner's node has crashed")),
    # CONSTRUCTED from Ray's gcs_actor_manager.cc (GenNodeDiedCause, 2.x to 2.9's wording) and
    # python/ray/tests/test_node_death.py (2.10+'s): the actor's node lost (was no failure at all)
    ("The actor is dead because its node has died. Node Id: 56b97436e67393f15565e024278867700c2bd0ec6ca9e0dac7261fd1",
     "process_lost", dict(node_id="56b97436e67393f15565e024278867700c2bd0ec6ca9e0dac7261fd1")),
    ("The actor died because its node has died. Node Id: 56b97436e67393f15565e024278867700c2bd0ec6ca9e0dac7261fd1",
     "process_lost", dict(node_id="56b97436e67393f15565e024278867700c2bd0ec6ca9e0dac7261fd1")),
    # nvidia-resiliency-ext's rank monitor killing the rank it watches (was no line read, "No failure found"). REAL:
    # NVIDIA/NeMo docs resiliency.html and NVIDIA/Megatron-Bridge docs ("[WARNING] [RankMonitorServer:34] .."): the
    # rank its prefix names.  CONSTRUCTED from src/nvidia_resiliency_ext/fault_tolerance/rank_monitor_server.py: 0.3+'s
    # RankMonitorLogger prefix (its host; "<none>" before the rank connected), 0.5+'s nvrx logger (its node, the
    # rank's local rank), its section timeouts
    ("[WARNING] [RankMonitorServer:34] Did not get subsequent heartbeat. Waited 171.92 seconds.", "process_lost",
     dict(rank="34", host=None, monitor="Did not get subsequent heartbeat", waited="171.92")),
    ("[2025-03-10 12:01:02,345] [WARNING] [RankMonServer41234@dgx-a100-07:13] Did not get initial heartbeat. Waited "
     "600.00 seconds.", "process_lost", dict(rank="13", host="dgx-a100-07", monitor="Did not get initial heartbeat")),
    ("[2025-03-10 12:01:02,345] [WARNING] [RankMonServer41234@dgx-a100-07:<none>] Was out of section for 301.50 "
     "seconds. Timeout is 300.00 seconds.", "process_lost",
     dict(rank=None, host="dgx-a100-07", monitor="Was out of section", waited="301.50")),
    ("2026-02-03 10:11:12,131 [WARNING] [gpu-node-3] [workload:None(5) infra:2(5)] rank_monitor_server.py:528 [Cycle 1] "
     "Section 'step' has been open for 181.02 seconds. Timeout is 180.00 seconds.", "process_lost",
     dict(rank=None, local_rank="5", host="gpu-node-3", section="step", waited="181.02")),
    # a task whose container never started (Slurm's pyxis / enroot), each of its failures' own words and Slurm's line
    # after any: NVIDIA/pyxis #61 (tests/fixtures/incidents/pyxis-61-container-start; was no line read at all), #53
    # (the import's older wording, no image named), #135 (Slurm 23.11's "slurmstepd-<node>:"), #144 (slurmd's log),
    # #107 (srun's own launch failure on a node)
    ("slurmstepd: error: pyxis: container start failed with error code: 1", "launch_error",
     dict(what="container start failed", host=None)),
    ("slurmstepd: error: pyxis: couldn't start container", "launch_error", dict(what="couldn't start container")),
    ("slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1", "launch_error",
     dict(plugin="spank_pyxis.so", rc="-1")),
    ("slurmstepd: error: pyxis: failed to import docker image", "launch_error",
     dict(what="failed to import docker image")),
    ("slurmstepd-sp-0016: error: pyxis: couldn't start container", "launch_error",
     dict(host="sp-0016", what="couldn't start container")),
    ("slurmstepd-sp-0016: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1", "launch_error",
     dict(host="sp-0016", plugin="spank_pyxis.so")),
    ("[2024-07-05T14:11:11.152] [51.0] error: pyxis: couldn't start container", "launch_error",
     dict(what="couldn't start container")),
    ("srun: error: Task launch for StepId=96.0 failed on node n2: No such process", "launch_error",
     dict(job="96.0", host="n2", what="No such process")),
    # the node whose prolog failed: srun's pre-20.11 step id (mknoxnv/ubuntu-slurm #4), slurmd's notice salloc prints
    # (AMDResearch/hpcfund #69), slurmctld's own; was: no fact
    ("srun: error: Task launch for 23.0 failed on node hpc: Job prolog failed", "launch_error",
     dict(job="23.0", host="hpc", what="Job prolog failed")),
    ("salloc: Prolog failure on node k003-006", "launch_error", dict(host="k003-006", what="Prolog failed")),
    ("error: Prolog failure on node gpu-07, draining the node", "launch_error", dict(host="gpu-07")),
    ("[2019-09-24T10:10:06.901] [321.0] error: spank: required plugin spank_pyxis.so: init_post_opt() failed with rc=-1",
     "launch_error", dict(plugin="spank_pyxis.so", callback="init_post_opt")),
    ("srun: error: task 0 launch failed: Plugin initialization failed", "launch_error",
     dict(tasks="0", rank="0", what="Plugin initialization failed")),
    ("slurmstepd-kistest: error: pyxis: container start failed with error code: 1", "launch_error",
     dict(host="kistest")),
    # srun names the node Slurm declared failed; the step's cancel for it is printed by a node that survived
    # (huggingface/m4-logs tr_141, tests/fixtures/incidents/m4-tr141-node-failure; was: no fact, and the cancel's host
    # jean-zay-iam17 taken for the root)
    ("srun: error: Node failure on jean-zay-iam37", "job_ended", dict(host="jean-zay-iam37", why="NODE FAILURE")),
    ("slurmstepd: error: *** STEP 1943824.0 ON jean-zay-iam17 CANCELLED AT 2023-03-06T03:17:51 DUE TO NODE FAILURE, "
     "SEE SLURMCTLD LOG FOR DETAILS ***", "job_ended",
     dict(host=None, reporter_host="jean-zay-iam17", why="NODE FAILURE", job="1943824.0")),
    ("slurmstepd: error: *** STEP 1234.0 ON node-3 CANCELLED AT 2023-01-01T00:00:00 DUE TO TIME LIMIT ***", "job_ended",
     dict(host="node-3", why="TIME LIMIT")),
    # Ray's object store refused for its node's full disk (ray-project/ray #50408; #49173, both on one pasted line): the
    # storage's; was: no fact at all (the traceback's exception, the application's)
    ("The object cannot be created because the local object store is full and the local disk's utilization is over "
     "capacity (95% by default).Tip: Use `df` on this node to check disk usage and `ray memory` to check object store "
     "memory usage.", "storage_error", dict(what="Local disk is full")),
    ("the object cannot be created because the local object store is full and the local disk utilization is over "
     "capacity. ray.exceptions.OutOfDiskError: Local disk is full  ", "storage_error", dict(what="Local disk is full")),
    # its precursor, the raylet's file system monitor (InternLM/lmdeploy #3457; Ray 2.0's wording before
    # ray-project/ray PR #26143): a warning, no failure; was: nothing
    ("(raylet) [2025-04-21 10:05:37,313 E 959680 959717] file_system_monitor.cc:116: /tmp/ray/session_2025-03-25_17-33-"
     "57_554404_959134 is over 95% full, available space: 42.6695 GB; capacity: 876.137 GB. Object creation will fail if "
     "spilling is required.", "disk_pressure", dict(threshold="95", available="42.6695 GB", capacity="876.137 GB")),
    ("(raylet, ip=172.31.58.175) [2022-06-28 03:48:42,324 E 702775 702805] (raylet) file_system_monitor.cc:105: "
     "/mnt/data0/ray is over 0.95% full, available space: 50637901824. Object creation will fail if spilling is "
     "required.", "disk_pressure", dict(path="/mnt/data0/ray", available="50637901824")),
    # (h359) a thread (or process) refused for the pids cgroup's limit or ulimit -u, every library's words: Ray's
    # boost and std::thread (vllm-project/vllm #13354, ray-project/ray #44296), libstdc++'s terminate handler
    # (tesseract-ocr/tesseract #3240), gRPC (vllm #6295), the raylet's fork (ray #59626), libgomp (ray #8546),
    # OpenBLAS, both wordings and a locale's (MIC-DKFZ/nnUNet #1343, willsheffler/worms #2, DaliangNing/iCAMP1 #16),
    # CPython (open-mmlab/OpenPCDet #329), rayon (pola-rs/polars #18675); was nothing, or the exception
    ("(bundle_reservation_check_func pid=630) [2025-02-16 02:29:23,228 E 630 630] logging.cc:108: Unhandled exception: "
     "N5boost10wrapexceptINS_6system12system_errorEEE. what(): thread: Resource temporarily unavailable [system:11]",
     "resource_limit", dict(what="thread limit - pids cgroup or ulimit -u")),
    # (h379) the threads' own words around EAGAIN: boost::thread's (Icinga/icinga2 #7723), libc++'s std::thread
    # (ggml-org/llama.cpp #17168)
    ("[2019-12-20 10:37:34 +0000] critical/Application: Error: boost::thread_resource_error: Resource temporarily "
     "unavailable", "resource_limit", dict(what="thread limit - pids cgroup or ulimit -u")),
    ("libc++abi: terminating due to uncaught exception of type std::__1::system_error: thread constructor failed: "
     "Resource temporarily unavailable", "resource_limit", {}),
    ("E0710 15:24:06.605366961 2474524 thd.cc:157]                           pthread_create failed: Resource "
     "temporarily unavailable", "resource_limit", {}),
    ("[2025-12-23 07:57:11,359 C 4055 4055] (raylet) worker_pool.cc:684: Failed to start worker with return value "
     "system:11: Resource temporarily unavailable", "resource_limit", {}),
    ("(pid=116340) libgomp: Thread creation failed: Resource temporarily unavailable", "resource_limit", {}),
    ("OpenBLAS blas_thread_init: pthread_create failed for thread 50 of 64: Resource temporarily unavailable",
     "resource_limit", {}),
    ("OpenBLAS blas_thread_init: pthread_create: Resource temporarily unavailable", "resource_limit", {}),
    ("OpenBLAS blas_thread_init: pthread_create failed for thread 76 of 80: 资源暂时不可用", "resource_limit", {}),
    ("RuntimeError: can't start new thread", "resource_limit", {}),
    ("could not spawn threads: ThreadPoolBuildError { kind: IOError(Os { code: 11, kind: WouldBlock, message: "
     "\"Resource temporarily unavailable\" }) }", "resource_limit", {}),
    # out of file descriptors, ulimit -n: Python's (gpustack/gpustack #5258), PyTorch's DataLoader since 1.5
    # (facebookresearch/detectron2 #3953's title) and before it (lzccccc/SMOKE #21), the raylet's (ray #10585)
    ("2026-05-01 01:48:29.041536+08:00 - gpustack.worker.worker - ERROR - Failed to send heartbeat to server: [Errno 24] "
     "Too many open files", "resource_limit", dict(what="open file limit - ulimit -n")),
    ("RuntimeError: Too many open files. Communication with the workers is no longer possible", "resource_limit", {}),
    ("RuntimeError: received 0 items of ancdata", "resource_limit", dict(what="open file limit - ulimit -n")),
    ("(pid=raylet) F0904 14:25:50.808766  6518 319638976 worker_pool.cc:364] Failed to start worker with return value "
     "system:24: Too many open files", "resource_limit", dict(what="open file limit - ulimit -n")),
    # Open MPI's launcher could not start its daemons, every era's wording (was no line read at all): ORTE's
    # [failed-daemon-launch] (kubeflow/mpi-operator #152, tests/fixtures/incidents/h548_mpi-operator-152-orte-daemon-
    # start), PRRTE's (openpmix/prrte #1392); ORTE's and PRRTE's [failed-daemon] (radical-cybertools/radical.pilot
    # #2417, openpmix/prrte #540)
    ("ORTE was unable to reliably start one or more daemons.", "launch_error",
     dict(launcher="ORTE", what="Open MPI's launcher could not start its daemons", host=None)),
    ("prterun was unable to reliably start one or more daemons.", "launch_error", dict(launcher="prterun")),
    ("An ORTE daemon has unexpectedly failed after launch and before", "launch_error", dict(launcher="ORTE")),
    ("An PRRTE daemon has unexpectedly failed after launch and before", "launch_error", dict(launcher="PRRTE")),
    # the remote shell before it, on the node it names: everpeace/kube-openmpi #26, kubeflow/mpi-operator #481,
    # horovod/horovod #951 (horovodrun's -H passed on as the name), open-mpi/ompi #5639 (sshd refusing); the
    # daemon missing on the node reached (the Open MPI users' list, "bash: orted: command not found")
    # a name ssh could not resolve is the job's network not set up (network_setup), the name the address that did not
    # resolve, never the line's host (was: a launch_error on that host)
    ("ssh: Could not resolve hostname mpic-worker-0: Temporary failure in name resolution", "network_setup",
     dict(host=None, unresolved="mpic-worker-0", what="Could not resolve hostname",
          resolver_error="Temporary failure in name resolution")),
    ("ssh: Could not resolve hostname tensorflow-benchmarks-worker-0.tensorflow-benchmarks-worker: Name or service not "
     "known", "network_setup",
     dict(host=None, unresolved="tensorflow-benchmarks-worker-0.tensorflow-benchmarks-worker")),
    ("ssh: Could not resolve hostname localhost:4: Name or service not known", "network_setup",
     dict(unresolved="localhost:4", resolver_error="Name or service not known")),
    ("ssh: connect to host 192.168.43.57 port 22: Connection refused", "launch_error",
     dict(host="192.168.43.57", what="connect to host 192.168.43.57 port 22: Connection refused")),
    ("bash: orted: command not found", "launch_error", dict(what="orted: command not found", host=None)),
    # NCCL_NET forcing a network the pod lacks (eth-cscs/cscs-docs, docs/software/communication/nccl.md; was: the
    # NCCL WARN row's warning)
    ("nid006352:34157:34217 [1] net.cc:626 NCCL WARN Error: network AWS Libfabric not found.", "network_setup",
     dict(nccl_net="AWS Libfabric", what="forced network not found")),
    # NET/IB's registration refused for the pod's locked-memory limit (NVIDIA/nccl-tests #206's title; "ulimit -l" was
    # 8192, raising it fixed it), the quote PyTorch gives of it after "Last error:" (was: the node's driver finding)
    ("misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory", "resource_limit",
     dict(what="locked memory limit - ulimit -l (memlock) or IPC_LOCK")),
    ("[rank3]: Call to ibv_reg_mr failed with error Cannot allocate memory", "resource_limit",
     dict(what="locked memory limit - ulimit -l (memlock) or IPC_LOCK")),
]


# The raylet's disk warning (REAL: InternLM/lmdeploy #3457) and Ray's ObjectStoreFullError after it (REAL:
# ray-project/ray #13443's last frame and exception): SYNTHETIC as one job, its lines each real
RAY_DISK_WARNING = ("(raylet) [2025-04-21 10:05:37,313 E 959680 959717] file_system_monitor.cc:116: /tmp/ray/session_"
                    "2025-03-25_17-33-57_554404_959134 is over 95% full, available space: 42.6695 GB; capacity: 876.137 "
                    "GB. Object creation will fail if spilling is required.")
RAY_STORE_FULL = ["Traceback (most recent call last):",
                  '  File "python/ray/_raylet.pyx", line 145, in ray._raylet.check_status',
                  "ray.exceptions.ObjectStoreFullError: Failed to put object ffffffffffffffffffffffffffffffffffffffff0f000"
                  "00003000000 in object store because it is full. Object size is 516884584 bytes."]


def test_the_raylets_disk_warning_reads_a_long_line_in_linear_time():
    """A line holding the warning's words after a long run of "/" but not its shape (a path-heavy record, cut at
    MAX_LINE): read in time linear in its length.  Was: the path tried from every "/", 6.6 s for 64 K characters (a
    65,536-character line about 26 s)."""
    import time
    words = " Object creation will fail if spilling is required."
    started = time.process_time()  # this process's CPU (a loaded host's other work is not counted): ~3 ms, 6.6 s before
    assert facts.match("/x" * 32000 + words) is None
    assert time.process_time() - started < 1.0
    hit = facts.match("/x" * 32000 + " is over 95% full, available space: 1 GB." + words)
    assert hit is not None and hit[0].kind == "disk_pressure"


def test_a_full_object_store_after_its_nodes_disk_filled_is_the_disk():
    """Ray's ObjectStoreFullError is the program's (objects it kept in scope) unless its node's disk, which the store
    spills to, was past the raylet's threshold before it: then the disk (infrastructure), the raylet's warning its
    root.  The warning alone is no failure; one long before the window, or another node's, explains nothing."""
    [alone] = job({"driver.log": RAY_STORE_FULL})
    assert (alone.category, alone.root.kind) == ("application", "exception")
    [inc] = job({"driver.log": [RAY_DISK_WARNING, *RAY_STORE_FULL]})
    assert (inc.category, inc.root.kind, inc.rule) == ("infrastructure", "disk_pressure", "first_failure"), inc.reason
    assert "876.137 GB" in inc.reason
    assert job({"driver.log": [RAY_DISK_WARNING]}) == []
    # the same failure an hour after the warning (its time moved): outside the window
    ev = list(read_lines([RAY_DISK_WARNING, *RAY_STORE_FULL], "driver.log", Clock()))
    ev = [e.with_context(time=e.time + timedelta(hours=1)) if e.kind == "exception" else e for e in ev]
    [late] = attribute(ev)
    assert late.category == "application", late.reason
    [other] = job({"node-a/raylet.log": [RAY_DISK_WARNING], "node-b/driver.log": RAY_STORE_FULL})
    assert other.category == "application", other.reason


# PyTorch DCP's CheckpointException as every rank prints it, SYNTHETIC in the format of torch/distributed/checkpoint/
# api.py's __str__ (pytorch/pytorch, 2.x: "CheckpointException ranks:{keys}", then per rank "Traceback (most recent call
# last): (RANK {rank})", its frames and its exception, or a later revision's "RANK {rank}: {failure!s}"): no clean real
# block was found pasted whole (bghira/SimpleTuner #1880 runs its records together; saforem2/ezpz's node-kill
# postmortem quotes "Traceback (most recent call last): (RANK 2)" printed by ranks that wrote fine).  Its exceptions'
# words are real ones: "[rank23]: OSError: [Errno 28] No space left on device" (ezpz's postmortem), torch.save's
# "unexpected pos A vs B" (meta-pytorch/torchforge #568's "unexpected pos 704 vs 598"); the ranks, frames and numbers
# here are made up.
DCP_FAILURE_LINES = [
    "[rank0]: Traceback (most recent call last):",
    '[rank0]:   File "/workspace/train.py", line 120, in <module>',
    "[rank0]:     dcp.save(state_dict, checkpoint_id=path)",
    "[rank0]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([3, 7])",
    "[rank0]: Traceback (most recent call last): (RANK 3)",
    '[rank0]:   File "/usr/local/lib/python3.12/dist-packages/torch/distributed/checkpoint/utils.py", line 212, in '
    "all_reduce",
    "[rank0]:     local_data = map_fun()",
    "[rank0]: OSError: [Errno 28] No space left on device",
    "[rank0]: Traceback (most recent call last): (RANK 7)",
    "[rank0]:     local_data = map_fun()",
    "[rank0]: RuntimeError: [enforce fail at inline_container.cc:626] . unexpected pos 448 vs 342",
]


def test_a_checkpoint_exceptions_ranks_failures_are_their_own_ranks():
    """Each "(RANK N)" traceback a CheckpointException prints is rank N's failure, whichever rank printed it (its
    writer's host and rank go to details as its reporter's), and the wrapper is their consequence; was: every rank's
    failure credited to rank 0 (the writer) and the wrapper an application exception, the root (application, rank 0)."""
    ev = list(read_lines(DCP_FAILURE_LINES, "node-a/train.log", Clock()))
    (wrapper,) = [e for e in ev if e.kind == "exception"]
    assert is_consequence(wrapper)
    storage = [(e.rank, e.host, e.details["reporter_rank"], e.details["what"]) for e in ev if e.kind == "storage_error"]
    assert storage == [(3, None, 0, "No space left on device"), (7, None, 0, "unexpected pos")]
    [first, *_] = attribute(ev)
    assert (first.category, first.root.kind, first.root.rank) == ("infrastructure", "storage_error", 3), first.reason
    # a later revision's failure DCP holds no traceback of: "RANK 5: <str(exc)>", rank 5's
    later = [*DCP_FAILURE_LINES[:4], "[rank0]: RANK 5: [Errno 28] No space left on device"]
    (e,) = [e for e in read_lines(later, "node-a/train.log", Clock()) if e.kind == "storage_error"]
    assert (e.rank, e.details["dcp_rank"]) == (5, 5)
    # without a CheckpointException before it, "(RANK N)" names no one: its writer's
    (e,) = [e for e in read_lines(DCP_FAILURE_LINES[4:8], "node-a/train.log", Clock()) if e.kind == "storage_error"]
    assert (e.rank, e.host) == (0, "node-a") and "dcp_rank" not in e.details


def test_a_checkpoint_exception_with_no_ranks_failure_after_it_is_the_failure():
    """The wrapper is the ranks' failures' consequence only when one follows it: alone (a log cut after it, its blocks
    never printed) it is the job's failure, as any exception.  Was: a consequence always, so a job whose only failure
    was the wrapper had no incident at all."""
    [alone] = job({"node-a/train.log": DCP_FAILURE_LINES[:4]})
    assert (alone.category, alone.root.kind, alone.root.rank) == ("application", "exception", 0), alone.reason
    ev = list(read_lines(DCP_FAILURE_LINES[:4] + ["[rank0]: step 5 loss 1.0"] * 500, "node-a/train.log", Clock()))
    (wrapper,) = [e for e in ev if e.kind == "exception"]
    assert not is_consequence(wrapper) and wrapper.line == 4


def test_a_checkpoint_exceptions_rank_block_credits_only_its_own_exception():
    """A "(RANK 3)" traceback that never reaches its exception (its log cut) credits nothing after it: a later
    traceback, opened by a logged message ending with "Traceback (most recent call last):" hundreds of lines on, is
    its writer's.  Was: credited to rank 3, the block's rank kept until any exception closed a traceback."""
    later = [*DCP_FAILURE_LINES[:6], *["[rank0]: step 5 loss 1.0"] * 500,
             "[rank0]: 2025-01-01 10:00:00 ERROR worker crashed: Traceback (most recent call last):",
             '[rank0]:   File "x.py", line 1, in f', "[rank0]: ValueError: bad value"]
    (e,) = [e for e in read_lines(later, "node-a/train.log", Clock()) if e.details.get("exception") == "ValueError"]
    assert (e.rank, e.host) == (0, "node-a") and "dcp_rank" not in e.details


@pytest.mark.parametrize("line", [
    # ray-project/ray #43751 (Ray 2.9's RayActorError), #47759 (2.10+'s ActorDiedError)
    "ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.",
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
])
def test_rays_actor_died_error_is_a_consequence(line):
    """The driver's error about an actor that died is the death's consequence (the raylet's or the GCS's line is the
    failure), never the program's own exception."""
    from triage.read import CONSEQUENCE_EXCEPTIONS
    m = facts.EXCEPTION.match(line)
    assert m and CONSEQUENCE_EXCEPTIONS.search(m.group("type"))


def test_rays_actor_died_error_names_the_lost_process_on_the_lines_before_its_cause():
    """REAL: AgentR1/Agent-R1 #33 (ActorDiedError, Ray 2.4x) and ray-project/ray #22349 (1.10, its lines behind the
    driver's own prefix): the error's "pid:" and "ip:" lines are the dead actor's process and node, said on its cause's
    line (the ray_actor_died fact), never the writer's."""
    lines = ["ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.",
             "        class_name: TaskRunner", "        actor_id: 8d1498767d305748d59d87da01000000",
             "        pid: 319017", "        namespace: 1109301e-e25e-4e12-9ae4-1dd5fc7468e4", "        ip: 10.44.139.116",
             "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: "
             "Worker exits unexpectedly. Worker exits with an exit code None. The worker may have exceeded K8s pod "
             "memory limits."]
    (ev,) = [e for e in read_lines(lines, "driver.log", Clock()) if e.kind == "process_lost"]
    assert (ev.host, ev.pid, ev.rank, ev.line, ev.details["actor"]) == ("10.44.139.116", 319017, None, 7, "TaskRunner")
    # the same fields behind the driver's "(BackendExecutor pid=5126, ip=10.128.0.32) " (ray #22349's lines; its
    # cause's line, cut in that source, SYNTHETIC: AgentR1's behind the same prefix): the actor's, the writer's aside
    prefix = "(BackendExecutor pid=5126, ip=10.128.0.32) "
    ray = [prefix + "2022-02-15 16:53:52,097\tERROR utils.py:42 -- The actor died unexpectedly before finishing this "
           "task.", prefix + "\tclass_name: BaseWorkerMixin", prefix + "\tactor_id: ad32ee6f9964d162b63e02c601000000",
           prefix + "\tpid: 5137", prefix + "\tnamespace: eab8b056-4b60-4176-8070-5f404f6de75c",
           prefix + "\tip: 10.128.0.103", prefix + lines[-1]]
    (ev,) = [e for e in read_lines(ray, "driver.log", Clock()) if e.kind == "process_lost"]
    assert (ev.host, ev.pid, ev.details["reporter_host"], ev.details["reporter_pid"]) == \
        ("10.128.0.103", 5137, "10.128.0.32", 5126)
    # its cause's line alone, or after another writer's lines, names no one
    (ev,) = [e for e in read_lines(lines[-1:], "driver.log", Clock()) if e.kind == "process_lost"]
    assert (ev.host, ev.pid) == (None, None)


@pytest.mark.parametrize("exit_type", ["INTENDED_USER_EXIT", "INTENDED_SYSTEM_EXIT", "USER_ERROR"])
def test_an_actor_whose_owner_ended_as_asked_is_no_failure(exit_type):
    """CONSTRUCTED from Ray's GenOwnerDiedCause (gcs_actor_manager.cc) with hiyouga/EasyR1 #324's values: an owner
    that exited as asked (a driver that finished) or raised its own exception killed no one by failing."""
    line = ("The actor is dead because its owner has died. Owner Id: 01000000ffffffffffffffffffffffffffffffffffffffffff"
            f"ffffff Owner Ip address: 172.21.160.9 Owner worker exit type: {exit_type} Worker exit detail: done.")
    assert facts.match(line) is None


def test_the_lost_owner_is_the_lines_not_the_actors_fields():
    """REAL: hiyouga/EasyR1 #324: the owner's address is the line's; the error's "pid:" and "ip:" are the actor killed
    with it (here the same node), never taken as the owner's process.  verl-project/verl #4921: an "ip:" pasted as a
    link is its text."""
    log = INCIDENT_LOGS / "easyr1-324-actor-owner-died" / "logs" / "driver.log"
    (ev,) = [e for e in read_lines(log.read_text().splitlines(), "driver.log", Clock()) if e.kind == "process_lost"]
    assert (ev.host, ev.pid, ev.details["fact"]) == ("172.21.160.9", None, "ray_actor_owner_died")
    first = attribute([ev])[0]
    assert (first.category, first.rule, first.root.host) == ("undetermined", "first_rank_death", "172.21.160.9")
    assert "owned the job's actors" in first.reason
    log = INCIDENT_LOGS / "verl-4921-actor-died-linked-ip" / "logs" / "driver.log"
    (ev,) = [e for e in read_lines(log.read_text().splitlines(), "driver.log", Clock()) if e.kind == "process_lost"]
    assert (ev.host, ev.pid, ev.details["actor"]) == ("10.29.214.5", 87687, "create_colocated_worker_cls.<locals>.WorkerDict")


def test_an_address_pasted_as_a_link_is_its_text():
    """REAL: vllm-project/vllm #1846: the raylet's line pasted from a page that made its address a link (was no
    finding: the row's address never matched); verl-project/verl #4921's "ip:" field the same.  A link whose text is not
    its target's host is left as written."""
    line = ("2023-11-30 10:19:23,769 WARNING worker.py:2074 -- A worker died or was killed while executing a task by an "
            "unexpected system error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: "
            "ffffffffffffffffba61971047f999e0f9ceaab101000000 Worker ID: 0e4b1eeade4874f7080db5807059e066cc128f27de4d1"
            "404a6057750 Node ID: 9c6f827858d621904b3d1cfb06057c57480da46c3edab524030f1e58 Worker IP address: "
            "[10.9.70.181](http://10.9.70.181/) Worker port: 34011 Worker PID: 1080651 Worker exit type: SYSTEM_ERROR "
            "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some "
            "potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. (2) ray "
            "stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or other unexpected errors.")
    (ev,) = [e for e in read_lines([line], "driver.log", Clock()) if e.kind == "process_lost"]
    assert (ev.host, ev.pid) == ("10.9.70.181", 1080651) and line.startswith(ev.text)  # the line as written
    other = line.replace("[10.9.70.181](http://10.9.70.181/)", "[10.9.70.181](http://10.9.70.18/)")
    assert not [e for e in read_lines([other], "driver.log", Clock()) if e.kind == "process_lost"]


def test_a_node_the_coordinator_lost_is_not_its_writers():
    """REAL: ray-project/ray #22349: Ray's driver, its log in the head node's directory, says node 10.128.0.103 was
    marked dead: the node named is the suspect, never the host that wrote the line; a line naming no rank has none."""
    line = ("2022-02-15 16:53:52,096\tWARNING worker.py:1462 -- The node with node id: 8f205b12643d25d8c1ce57c45527a6c9"
            "12f3479765096718ad2bf0d3 and ip: 10.128.0.103 has been marked dead because the detector has missed too "
            "many heartbeats from it. This can happen when a raylet crashes unexpectedly or has lagging heartbeats.")
    (ev,) = [e for e in read_lines([line], "job/head-node/driver.log", Clock(), root="job")
             if e.kind == "process_lost"]
    assert (ev.host, ev.pid, ev.rank) == ("10.128.0.103", None, None)
    assert ev.details["reporter_host"] == "head-node"
    first = attribute([ev])[0]
    assert (first.category, first.rule, first.root.host) == ("undetermined", "first_rank_death", "10.128.0.103")


def test_a_rank_its_rank_monitor_killed_is_the_suspect_not_the_monitor():
    """REAL lines (NVIDIA/NeMo docs resiliency.html "if a hang is encountered, you should see log statements similar
    to the following"): nvidia-resiliency-ext's rank monitors of ranks 34 and 58 heard no heartbeat, then the elastic
    agent's SIGTERMs: the first rank the monitor killed is the suspect, the monitor's wording its how (was: no
    failure found).  The monitor's routine lines and a section line of another program are nothing."""
    lines = ["[WARNING] [RankMonitorServer:34] Did not get subsequent heartbeat. Waited 171.92 seconds.",
             "[WARNING] [RankMonitorServer:58] Did not get subsequent heartbeat. Waited 171.92 seconds.",
             "torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 453152 closing signal SIGTERM",
             "torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 453157 closing signal SIGTERM"]
    ev = list(read_lines(lines, "job/launcher.log", Clock(), root="job"))
    assert [(e.kind, e.rank) for e in ev if e.kind == "process_lost"] == [("process_lost", 34), ("process_lost", 58)]
    first = attribute(ev)[0]
    assert (first.category, first.rule, first.root.rank, first.root.kind) == \
        ("undetermined", "first_rank_death", 34, "process_lost")
    # both ranks the monitors killed are named, rank 34 (named first) first, both lines in the evidence; never "no
    # other rank reported a failure" (was: rank 58's line left out and denied)
    assert first.reason.startswith("2 ranks (34,58) died first (each: its rank monitor") and \
        "rank 34 named first" in first.reason
    assert [(e.kind, e.rank) for e in first.evidence] == [("process_lost", 34), ("process_lost", 58)]
    assert first.consequences == "rank 58 lost with it"
    for line in ("[INFO] [RankMonitorServer:0] Updated heartbeat timeouts: HeartbeatTimeouts(initial=600.00, "
                 "subsequent=180.00, were_calculated=True)", "Section main has been open for 3 seconds",
                 "Did not get subsequent heartbeat from the server"):
        assert facts.match(line) is None, line


def test_srun_task_summarys_other_rows_are_no_failure():
    """REAL: GAPIT #207's summary: a task still running is no failure."""
    assert facts.match("yhrun: StepId=1544235.0 task 0: running") is None


@pytest.mark.parametrize("incident,rank", [
    # REAL: jiabowang/GAPIT #207: srun's --wait ran out; task 1 "exited abnormally", srun cancelled the step (a
    # cancellation with no reason) and task 0 was killed after it; before: infrastructure, host cnode1995
    ("gapit-207-srun-wait", 1),
    # REAL: desihub/desispec #2744: "CANCELLED AT ... DUE TO TASK FAILURE" and the other tasks terminated: the
    # aftermath of a task's failure; before: infrastructure, host nid002888
    ("desispec-2744-task-failure", None),
])
def test_a_slurm_cancellation_for_a_tasks_failure_is_no_infrastructure_cause(incident, rank):
    ev = [e for f in sorted((INCIDENT_LOGS / incident / "logs").iterdir())
          for e in read_lines(f.read_text().splitlines(), f.name, Clock())]
    first = attribute(ev)[0]
    assert first.category == "undetermined", first.reason
    assert first.root.rank == rank


@pytest.mark.parametrize("why,category", [
    ("DUE TO TIME LIMIT", "application"), ("DUE TO PREEMPTION", "infrastructure"),
    ("DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS", "infrastructure"), ("DUE TO JOB REQUEUE", "infrastructure"),
    ("DUE TO TASK FAILURE", "undetermined"), ("", "undetermined"),
])
def test_only_the_schedulers_own_reasons_make_a_slurm_cancellation_infrastructure(why, category):
    """SYNTHETIC in slurmstepd's wordings (src/slurmd/slurmstepd/req.c; TASK FAILURE from desispec #2744): a task's
    exit with code 1 printed (unstamped) before the stamped cancellation is the root unless the scheduler itself
    ended the step.  A time limit is the job's own (its owner's --time, or the queue the owner chose: desitarget
    #628), the scheduler only enforcing it: the application's (was: infrastructure, the cluster paged for it)."""
    cancel = f"slurmstepd: error: *** STEP 4242.0 ON node-a CANCELLED AT 2025-03-21T01:56:58 {why} ***".replace("  ", " ")
    first = job({"launcher.log": ["srun: error: node-a: task 3: Exited with exit code 1", cancel,
                                  "srun: error: node-a: tasks 0-2: Terminated"]})[0]
    assert first.category == category, first.reason
    if category == "undetermined":
        assert (first.rule, first.root.rank) == ("first_rank_death", 3)


# A checkpoint write the file system refused, as the rank's traceback ends (REAL: Mikubill/naifu #35, the rank's
# os.makedirs on its shared file system)
EIO_TRACEBACK = ["[rank3]: Traceback (most recent call last):",
                 '[rank3]:   File "/usr/lib/python3.10/os.py", line 225, in makedirs',
                 "[rank3]:     mkdir(name, mode)",
                 "[rank3]: OSError: [Errno 5] Input/output error: '/app/naifu555'"]


def test_a_traceback_ending_in_a_refused_write_is_the_storage_not_the_program():
    """A traceback whose exception is the file system's refusal (EIO, ENOSPC, ESTALE, torch.save's short write) is
    the storage's failure (infrastructure; a quota, EDQUOT, the job's own), its exception type kept; was: an exception, the application's.
    With the rank's node's kernel saying its NFS server timed out (REAL: ClusterLabs/resource-agents #1654), that
    node fault is the root."""
    [alone] = job({"node-a/train.log": EIO_TRACEBACK})
    assert (alone.category, alone.rule, alone.root.kind, alone.root.rank) == ("infrastructure", "first_failure",
                                                                              "storage_error", 3)
    [first, *_] = job({"node-a/kern.log": ["May 30 10:37:42 client-2 kernel: nfs: server 10.0.1.210 not responding, "
                                           "timed out"],
                       "node-a/train.log": EIO_TRACEBACK})
    assert (first.category, first.rule, first.root.kind, first.root.host) == ("infrastructure", "node_fault",
                                                                              "nfs_error", "node-a")


def test_a_quota_the_job_ran_out_of_is_the_jobs_own_not_the_storages():
    """(h183) A write refused for the owner's quota (EDQUOT) is the job's own limit, on a file system with room left
    (open-mmlab/mmdetection #12069): its root a storage_error, the category the application's, not infrastructure, in
    every wording (REAL: tloen/alpaca-lora #280's "OSError: [Errno 122] Disk quota exceeded", keras-team/keras-tuner
    #390's TensorFlow "disk quota exceeded", was no storage_error at all); a full disk or an I/O error stays the
    storage's (infrastructure). Was: every quota the infrastructure's."""
    for line in ("OSError: [Errno 122] Disk quota exceeded",
                 "tensorflow.python.framework.errors_impl.ResourceExhaustedError: disk quota exceeded [Op:SaveV2]"):
        [inc] = job({"node-a/train.log": [line]})
        assert (inc.category, inc.root.kind) == ("application", "storage_error"), (line, inc.reason)
    [full] = job({"node-a/train.log": ["OSError: [Errno 28] No space left on device"]})
    assert (full.category, full.root.kind) == ("infrastructure", "storage_error")


def test_a_resource_limit_is_the_pods_or_nodes_not_the_programs():
    """(h359) A rank refused a thread by the pids cgroup's limit or ulimit -u (verl-project/verl #472; raising it fixed
    it, #719), or a file by ulimit -n, in a traceback's exception or a library's line: the root, infrastructure, its
    limit named, the other ranks' watchdog timeouts its consequences (REAL lines: open-mmlab/OpenPCDet #329, lzccccc/
    SMOKE #21; was: the exception, the application's, or nothing).  The lines are real, the job around them made up."""
    for last, what in (("RuntimeError: can't start new thread", "thread limit - pids cgroup or ulimit -u"),
                       ("RuntimeError: received 0 items of ancdata", "open file limit - ulimit -n")):
        [inc] = job({"node-a/train.log": [timeout(0, when="02:17:08"), timeout(1, when="02:17:08")],
                     "node-b/train.log": ["[rank3]: Traceback (most recent call last):",
                                          "[rank3]:   File \"/usr/lib/python3.10/threading.py\", line 852, in start",
                                          f"[rank3]: {last}"]})
        assert (inc.category, inc.root.kind, inc.root.rank) == ("infrastructure", "resource_limit", 3), inc.reason
        assert what in inc.reason, inc.reason


def test_a_storage_error_on_dev_shm_is_named_as_the_pods_shm_size():
    """(h359) /dev/shm refusing NCCL's segment names the limit an SRE raises (the pod's /dev/shm size), every era:
    2.6's posix_fallocate (NVIDIA/nccl #290), 2.2x's with the errno (pytorch/ci-infra #490), the line torch quotes
    after "Last error:" (NVIDIA/DeepLearningExamples #1386) (REAL lines; was: "storage error" alone), 2.12-2.18's
    failed extend (kserve/kserve #3791; (h432) was nothing); any other file system's refusal names its error. NCCL's
    own lines of running out of room are the parsers' kind shm_full (h435: was their nccl_error, which this module's
    storage fact overrode), the others triage's storage_error: one name and one category, the kind row's."""
    for line in ("gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on "
                 "device",
                 "hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] misc/shmutils.cc:72 NCCL WARN "
                 "Error: failed to extend /dev/shm/nccl-H1dBqY to 9637892 bytes",
                 "[2026-04-22 21:34:20] mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:202235 [0] misc/"
                 "shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-WU88OE (size "
                 "9637888), error: No space left on device (28)",
                 "[rank2]: Error while creating shared memory segment /dev/shm/nccl-c8G2vd (size 5767520)",
                 # (h634) torch's shared-memory file for a DataLoader worker's tensor (shm_open's /torch_*, in
                 # /dev/shm), every era: 2.x's with the errno (ultralytics/ultralytics #1238), 1.x's bare (MIC-DKFZ/
                 # nnUNet #294), 0.4's (pytorch/pytorch #10396); was "storage error (No space left on device)", or
                 # nothing
                 "RuntimeError: unable to write to file </torch_722_783672312_1>: No space left on device (28)",
                 "RuntimeError: unable to write to file </torch_15769_1517813162>",
                 "RuntimeError: unable to write to file </torch_76_3625483894> at /pytorch/aten/src/TH/THAllocator.c:383"):
        [inc] = job({"node-a/train.log": [line]})
        kind = "storage_error" if line.startswith(("[rank2]", "RuntimeError")) else "shm_full"
        assert (inc.category, inc.root.kind) == ("infrastructure", kind), line
        assert inc.reason.startswith("/dev/shm too small or full on "), inc.reason
    [disk] = job({"node-a/train.log": ["OSError: [Errno 28] No space left on device"]})
    assert disk.reason.startswith("storage error (No space left on device) on "), disk.reason


# (h724) Python's shared-memory objects live in /dev/shm: multiprocessing's semaphore (SemLock, every Lock, Queue and
# DataLoader index queue) refused for want of room there, python/cpython #93253's traceback (docker --shm-size=1m;
# REAL, verbatim); its exception's own line names no path
SEMLOCK_ENOSPC = ["Traceback (most recent call last):",
                  '  File "<string>", line 1, in <module>',
                  '  File "<string>", line 1, in <listcomp>',
                  '  File "/usr/local/lib/python3.8/multiprocessing/context.py", line 141, in Array',
                  "    return Array(typecode_or_type, size_or_initializer, lock=lock,",
                  '  File "/usr/local/lib/python3.8/multiprocessing/sharedctypes.py", line 93, in Array',
                  "    lock = ctx.RLock()",
                  '  File "/usr/local/lib/python3.8/multiprocessing/context.py", line 73, in RLock',
                  "    return RLock(ctx=self.get_context())",
                  '  File "/usr/local/lib/python3.8/multiprocessing/synchronize.py", line 187, in __init__',
                  "    SemLock.__init__(self, RECURSIVE_MUTEX, 1, 1, ctx=ctx)",
                  '  File "/usr/local/lib/python3.8/multiprocessing/synchronize.py", line 57, in __init__',
                  "    sl = self._semlock = _multiprocessing.SemLock(",
                  "OSError: [Errno 28] No space left on device"]
# a checkpoint's shard its file system refused (saforem2/ezpz docs/guides/autoretry-nodekill.md; REAL, the page's
# lines): the disk's, no shared-memory frame
DCP_ENOSPC = ['[rank23]:   File ".../torch/distributed/checkpoint/filesystem.py", line 520, in create_stream',
              "[rank23]:     with path.open(mode) as stream:",
              "[rank23]: OSError: [Errno 28] No space left on device"]


def test_a_storage_error_raised_making_a_shared_memory_object_is_dev_shms():
    """A storage error ending a traceback through a frame of Python's shared-memory objects (multiprocessing's
    SemLock, SharedMemory) is /dev/shm's (the kind shm_full's name and category), whatever its own line says; was
    "storage error (No space left on device)", the disk's.  The same error from a file's write stays the disk's, and
    a later traceback of the writer's through no such frame is not /dev/shm's."""
    [inc] = job({"node-a/train.log": SEMLOCK_ENOSPC})
    assert (inc.category, inc.root.kind) == ("infrastructure", "storage_error")
    assert inc.reason.startswith("/dev/shm too small or full on "), inc.reason
    [disk] = job({"node-a/train.log": DCP_ENOSPC})
    assert disk.reason.startswith("storage error (No space left on device) on "), disk.reason
    # a handled one (its traceback closed by another exception first) leaves nothing for the next traceback
    later = [*SEMLOCK_ENOSPC[:12], "ValueError: x", "Traceback (most recent call last):", *DCP_ENOSPC[:2],
             "OSError: [Errno 28] No space left on device"]
    evs = [e for e in read_lines(later, "node-a/train.log", Clock()) if e.kind == "storage_error"]
    assert [e.details.get("on") for e in evs] == [None], evs


# EAGAIN that names no thread or process (REAL, each line verbatim): Ray's std::system_error (ray-project/ray #44296),
# libstdc++'s terminate handler (RasaHQ/rasa #5997), torch.distributed's socket in a traceback's last frame and its
# exception (facebookresearch/maskrcnn-benchmark #931)
BARE_EAGAIN = [["[2024-03-26 09:34:50,573 E 1801210 1801210] logging.cc:97: Unhandled exception: St12system_error. "
                "what(): Resource temporarily unavailable"],
               ["terminate called after throwing an instance of 'std::system_error'",
                "  what():  Resource temporarily unavailable"],
               ["Traceback (most recent call last):",
                '  File "/opt/conda/lib/python3.6/site-packages/torch/nn/parallel/distributed.py", line 386, in '
                "_dist_broadcast_coalesced",
                "    dist._dist_broadcast_coalesced(self.process_group, tensors, buffer_size, False)",
                "RuntimeError: Resource temporarily unavailable"]]


@pytest.mark.parametrize("lines", BARE_EAGAIN)
def test_eagain_that_names_no_thread_is_no_thread_limit(lines):
    """(h379) std::system_error's bare "Resource temporarily unavailable" is thrown for a thread refused and for a busy
    lock, socket or file alike; torch.distributed's is a socket's.  Only the words of a thread or process refused
    (pthread_create, "thread:", "can't start new thread", the kernel's "fork rejected by pids controller") name the
    pids limit; a bare one is the application's exception, the root over the other ranks' timeouts.  Was: a
    resource_limit, infrastructure, "thread limit - pids cgroup or ulimit -u" (the C++ ones), nothing (the traceback's
    RuntimeError held no thread words either).  The job around each source's lines is made up."""
    [inc] = job({"node-a/train.log": [timeout(0, when="02:17:08"), timeout(1, when="02:17:08")],
                 "node-b/train.log": [f"[rank3]: {line}" for line in lines]})
    assert (inc.category, inc.root.kind, inc.root.rank) == ("application", "exception", 3), inc.reason


def test_a_sockets_eagain_is_no_resource_limit():
    """EAGAIN on a non-blocking socket is no thread refused: pyzmq's words for it (REAL: Kismuz/btgym #24,
    zeromq/pyzmq #324) are no resource_limit; only a thread's or a process's creation failing with it is."""
    for line in ("zmq.error.Again: Resource temporarily unavailable",
                 "zmq.error.ZMQError: Resource temporarily unavailable"):
        assert facts.match(line) is None, line


def test_a_sockets_unconnected_endpoint_is_no_storage_error():
    """ENOTCONN names a file system's failure only with the path it failed on (or TensorFlow's file system before it);
    a socket's, as CPython words socket.shutdown's OSError (constructed from its strerror, no path), is none."""
    assert facts.match("OSError: [Errno 107] Transport endpoint is not connected") is None


# hkust-nlp/simpleRL-reason #19: a DeepSpeed ZeRO checkpoint's torch.save in a Ray actor, as the driver printed it
SHORT_WRITE = ["(ActorModelRayActorBOX pid=499618)     self.checkpoint_engine.save(zero_sd, zero_checkpoint_name)",
               '(ActorModelRayActorBOX pid=499618)   File "/root/miniconda3/envs/zero/lib/python3.10/site-packages/torch/'
               'serialization.py", line 849, in save [repeated 2x across cluster]',
               "(ActorModelRayActorBOX pid=499618)     torch.save(state_dict, path)",
               "(ActorModelRayActorBOX pid=499618)     with _open_zipfile_writer(f) as opened_zipfile:",
               '(ActorModelRayActorBOX pid=499618)   File "/root/miniconda3/envs/zero/lib/python3.10/site-packages/torch/'
               'serialization.py", line 690, in __exit__',
               "(ActorModelRayActorBOX pid=499618)     self.file_like.write_end_of_file()",
               "(ActorModelRayActorBOX pid=499618) RuntimeError: [enforce fail at inline_container.cc:603] . unexpected "
               "pos 2368 vs 2262"]


def test_a_zip_writers_position_past_its_offset_is_the_storages_short_write():
    """torch.save's "unexpected pos A vs B" (A past B): a write that came back short before it, the file system's
    (REAL lines); was: no failure found.  Anywhere else the words are no storage error."""
    [inc] = job({"driver.log": SHORT_WRITE})
    assert (inc.category, inc.root.kind, inc.evidence[0].details["what"]) == ("infrastructure", "storage_error",
                                                                             "unexpected pos")
    assert facts.match("unexpected pos 12 vs 10") is None


# google/tensorstore #210 (REAL, 2024): GCS's 5xx through TensorStore's gRPC driver (Orbax's checkpoints' storage layer)
TENSORSTORE_GCS_5XX = ("INTERNAL: Error reading [...]: We encountered an internal error. Please try again. [source "
                       "locations='tensorstore/kvstore/gcs_grpc/gcs_grpc.cc:503\\ntensorstore/internal/cache/"
                       "kvs_backed_cache.h:208']")


def test_an_object_stores_5xx_through_tensorstore_is_the_storage_named():
    """TensorStore's status with GCS's "We encountered an internal error" and its gcs driver's location: the storage
    service's failure (infrastructure), GCS named; was: no failure found.  The words without an object store driver's
    location (another service's, TensorStore's own cache) are none."""
    [inc] = job({"worker-0.log": [TENSORSTORE_GCS_5XX]})
    assert (inc.category, inc.root.kind) == ("infrastructure", "storage_error")
    assert "GCS via TensorStore's gcs_grpc driver" in inc.reason
    assert facts.match("INTERNAL: We encountered an internal error. Please try again. [source locations='"
                       "tensorstore/internal/cache/kvs_backed_cache.h:208']") is None


def test_attaching_to_another_ranks_segment_is_no_storage_error():
    """NCCL failing to attach to a segment another rank created says that rank is gone, not that /dev/shm is full."""
    assert facts.match("NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-x (size 0)") is None


@pytest.mark.parametrize("line", [
    # pyxis's progress (NVIDIA/pyxis #61, #22, #135, #144) and enroot's log lines it prints after a failure (whose
    # summary line is the fact): no failure of their own
    "pyxis: importing docker image ...", "pyxis: imported docker image: ubuntu:22.04",
    "pyxis: creating container filesystem ...", "pyxis: starting container ...",
    "[2024-07-05T14:10:54.164] [51.0] pyxis: starting container: pyxis_51.0",
    "slurmstepd: error: pyxis: printing contents of log file ...",
    "slurmstepd: error: pyxis: if the image has an unusual entrypoint, try using --no-container-entrypoint",
    # a plugin failing after the program ran (Slurm's spank.c, the same words; synthetic: no source printed one)
    "spank: required plugin spank_pyxis.so: task_exit() failed with rc=-1",
])
def test_pyxis_progress_is_no_launch_error(line):
    assert facts.match(line) is None


BARRIER = "RuntimeError: Timed out initializing process group in store based barrier on rank: {}, for key: {} " \
    "(world_size={}, worker_count={}, timeout={})"


@pytest.mark.parametrize("lines, waited, said", [
    # facebookresearch/metaseq #52: a new_group's barrier (its ranks not 0 .. world_size - 1)
    ([BARRIER.format(4330, "store_based_barrier_key:522", 2048, 1792, "0:30:00")], "rank 4330",
     "1792 of 2048 ranks joined before its timeout (0:30:00): the 256 that never joined are the suspects (which, the "
     "logs do not say)"),
    # deepspeedai/Megatron-DeepSpeed #338: two ranks of one group waited, which four never joined unsaid
    ([BARRIER.format(7, "store_based_barrier_key:32", 8, 4, "0:00:30"),
      BARRIER.format(5, "store_based_barrier_key:32", 8, 4, "0:00:30")], "2 ranks (5,7)", "the 4 that never joined"),
    # OpenRLHF/OpenRLHF #1040: the TCPStore server's count
    (["torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 1/3 clients joined."],
     "x.log", "1 of 3 ranks joined before its timeout (1801 s): the 2 that never joined"),
    # ligang-cs/PseCo #15: more joined than the group has, the launcher's exit line after it
    ([BARRIER.format(0, "store_based_barrier_key:1", 4, 16, "0:30:00"),
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 820989) of binary: "
      "/home/lihejun/anaconda3/envs/semi-det/bin/python"], "rank 0",
     "for 4 ranks and 16 joined: the store also held other processes' joins"),
])
def test_ranks_that_never_joined_the_store_are_the_suspects(lines, waited, said):
    """REAL: a store's count of the ranks that joined, apart from those it waited for, is the job's cause, not a
    consequence (infrastructure, no single line the root, the waiting ranks' lines its evidence). Before: "only
    consequences were logged" (undetermined), or a rank's death after it "its log says nothing of why"."""
    (incident,) = attribute(read_lines(lines, "x.log", Clock()))
    assert (incident.category, incident.rule, incident.root.kind, incident.root.rank) == \
        ("infrastructure", "first_failure", "store_error", None)
    assert incident.reason.startswith(f"{waited} waited at the store") and said in incident.reason, incident.reason
    assert incident.evidence[0].kind == "store_error"


def test_the_one_rank_that_never_joined_is_named_where_the_logs_name_every_other():
    """(constructed from metaseq #52's wording and mmsegmentation #3106's torchrun summary row) ranks 0-2 of 4 waited
    at init_process_group's barrier, 3 of 4 joined; torchrun's summary after them stamps rank 0's exit, their lines
    unstamped. The dead rank's
    own line explains its death; rank 3, of which no line speaks, is the suspect (was: rank 0 "its log says nothing of
    why", store errors being consequences)."""
    lines = [f"[rank{r}]: " + BARRIER.format(r, "store_based_barrier_key:1", 4, 3, "0:30:00") for r in range(3)]
    lines += ["Root Cause (first observed failure):", "[0]:", "  time      : 2023-06-14_22:36:10",
              "  host      : node-a", "  rank      : 0 (local_rank: 0)", "  exitcode  : 1 (pid: 2385922)",
              "  error_file: <N/A>"]
    (incident,) = attribute(read_lines(lines, "x.log", Clock()))
    assert (incident.category, incident.root.kind, incident.root.rank) == ("infrastructure", "store_error", 3)
    assert "3 ranks (0,1,2) waited" in incident.reason and "; rank 0 on node-a (pid 2385922) died right after" in \
        incident.reason and "(rank 3, of which the logs hold no line)" in incident.reason, incident.reason


def test_the_ranks_that_never_joined_are_listed_where_the_logs_name_every_other_and_none_is_the_root():
    """(constructed from metaseq #52's wording) ranks 0 and 1 of 4 waited, 2 of 4 joined: ranks 2 and 3, of which no
    line speaks, are listed, and neither is the root (two suspects, no one rank); a line of a rank past the group's
    size (rank 4) leaves them unnamed, as the logs then do not say which."""
    lines = [f"[rank{r}]: " + BARRIER.format(r, "store_based_barrier_key:1", 4, 2, "0:30:00") for r in range(2)]
    (incident,) = attribute(read_lines(lines, "x.log", Clock()))
    assert (incident.category, incident.root.kind, incident.root.rank) == ("infrastructure", "store_error", None)
    assert "(2 ranks (2,3), of which the logs hold no line)" in incident.reason, incident.reason
    lines.append("[rank4]: " + BARRIER.format(4, "store_based_barrier_key:1", 4, 2, "0:30:00"))
    (incident,) = attribute(read_lines(lines, "x.log", Clock()))
    assert incident.root.rank is None and "(which, the logs do not say)" in incident.reason, incident.reason


def in_512_mib(script: str):
    """`script` run by this Python in a child whose address space is 512 MiB above its start: a form that builds
    what a hostile count asks for fails there (MemoryError), not on the host."""
    import subprocess
    import sys
    cap = ("import resource\n"
           "limit = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize() + (512 << 20)\n"
           "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n")
    return subprocess.run([sys.executable, "-c", cap + script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])


def test_a_store_count_of_any_size_costs_no_more_than_the_ranks_it_names(tmp_path):
    """(constructed from OpenRLHF #1040's wording) a count no job has ("0/99999999999 clients joined": a corrupt or
    hostile line) is read in bounded memory: the ranks that never joined are named only where few enough to list
    (was: a set of every rank of the count built, MemoryError escaping attribute). Run in a child process whose
    address space is 512 MiB above its start, so that the unbounded form fails there, not on the host."""
    done = in_512_mib(
        "from triage import Clock, attribute, read_lines\n"
        "line = 'torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. '"
        " '0/99999999999 clients joined.'\n"
        "(incident,) = attribute(read_lines([line], 'x.log', Clock()))\n"
        "print(incident.category, incident.reason)\n")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("infrastructure ") and "the 99999999999 that never joined are the suspects " \
        "(which, the logs do not say)" in done.stdout, done.stdout


def test_the_store_based_barriers_wait_is_no_failure_and_its_timeout_is_in_every_era():
    """The barrier's periodic "Waiting in store based barrier .." is progress, no failure (metaseq #52's INFO line);
    2.x's DistStoreError words its timeout with num_workers_joined (constructed from torch/distributed/
    distributed_c10d.py's _store_based_barrier, 2.1+: no public log found)."""
    assert facts.match("2022-05-10 05:38:33 | INFO | torch.distributed.distributed_c10d | Waiting in store based "
                       "barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
                       "(world_size=2, worker_count=3, timeout=0:30:00)") is None
    fact, got = facts.match("torch.distributed.DistStoreError: Timed out initializing process group in store based "
                            "barrier on rank 3, for key: store_based_barrier_key:1 (world_size=8, num_workers_joined=6,"
                            " timeout=0:30:00 error=Socket Timeout)")
    assert (fact.name, got["rank"], got["store_joined"], got["store_expected"]) == ("store_join", "3", "6", "8")


@pytest.mark.parametrize("line,kind,groups", FACTS)
def test_job_facts(line, kind, groups):
    fact, got = facts.match(line)
    assert fact.kind == kind
    for name, value in groups.items():
        assert got.get(name) == value, name


def test_pals_rank_lines_name_their_node_and_no_clean_exit():
    """HPE Cray PALS's lines (saforem2/ezpz docs/guides/autoretry-nodekill.md, REAL): the node before them is the
    rank's host; a clean exit and other programs' "exited with code" are no rank's end."""
    ev = read_lines(["x1921c1s1b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov: rank 16 exited with code 1",
                     "x1921c1s4b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov: rank 0 died from signal 15"], "a.log", Clock())
    got = [(e.kind, e.host, e.rank, e.exit_code, e.signal) for e in ev if e.kind == "rank_exit"]
    assert got == [("rank_exit", "x1921c1s1b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov", 16, 1, None),
                   ("rank_exit", "x1921c1s4b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov", 0, None, 15)]
    for line in ("rank 3 exited with code 0", "Process exited with code 1", "the rank 2 died from signal 9 later"):
        assert facts.match(line) is None, line


def test_pals_first_death_is_the_root_the_sigterm_after_it_a_consequence():
    """REAL lines (pmodels/mpich #7569, osu_gather at 96 ppn on Aurora, "example output:"): rank 256's SIGSEGV, then
    PALS's SIGTERM of rank 0 tearing the job down: rank 256 on its node is the root (was: no incident)."""
    (incident,) = attribute(read_lines(["x4006c0s6b0n0.hsn.cm.aurora.alcf.anl.gov: rank 256 died from signal 11",
                                        "x4001c5s4b0n0.hsn.cm.aurora.alcf.anl.gov: rank 0 died from signal 15"],
                                       "x.log", Clock()))
    assert (incident.root.rank, incident.root.host, incident.rule) == (
        256, "x4006c0s6b0n0.hsn.cm.aurora.alcf.anl.gov", "first_rank_death")
    assert incident.consequences == "rank 0 exited after it"


def test_a_launchers_exit_line_names_the_culprit_its_words_name_and_no_other():
    """Live (triage.read.job_fact, the Pod Event's fields): DeepSpeed's launcher prints the last command it spawned,
    so its line names no rank (unpublished alone; behind pdsh's prefix, the node) (deepspeedai/DeepSpeedExamples #626);
    mp.spawn's join names the dead process's local rank (HRNet/HigherHRNet-Human-Pose-Estimation #47); a
    CalledProcessError names none (zengxiaofei/HapHiC #13)."""
    from triage.read import job_fact
    ds = ("[2023-07-10 04:26:35,999] [ERROR] [launch.py:324:sigkill_handler] ['/global/D1/homes/sushant/sushanta/venv/"
          "bin/python3.10', '-u', 'trainCLM.py', '--local_rank=1', '--deepspeed', '/home/sushant/D1/sushanta/try/"
          "nepaligpt/clm/config/deepspeed_config.json'] exits with return code = -11")
    assert job_fact(ds) is None
    row, fields = job_fact("worker-1: " + ds)
    assert row.reason == "RankExited" and fields.get("local_rank") is None and fields["host"] == "worker-1"
    row, fields = job_fact("Exception: process 1 terminated with signal SIGKILL")
    assert row.reason == "RankExited" and (fields["local_rank"], fields["signal"]) == (1, 9)
    assert job_fact("subprocess.CalledProcessError: Command '['/home/li/bioinfo/HapHiC/scripts/HapHiC_pipeline.py', "
                    "'scaffolds.ref.fa', 'HiC.filtered.bam', '20', '--RE', 'GATC,GANTC,CTNAG,TTAA', '--correct_nrounds',"
                    " '2', '--remove_allelic_links', '4', '--threads', '20', '--processes', '8']' died with "
                    "<Signals.SIGKILL: 9>.") is None


@pytest.mark.parametrize("last,rule,category", [
    # HRNet/HigherHRNet-Human-Pose-Estimation #47 (PyTorch 1.0-1.5), resistzzz/Prompt4NR #3 (1.6+)
    ("Exception: process 1 terminated with signal SIGKILL", "first_rank_death", "undetermined"),
    ("torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL", "first_rank_death",
     "undetermined"),
    # zengxiaofei/HapHiC #13: the maintainer, "The reason for this termination is uncertain"
    ("subprocess.CalledProcessError: Command '['/home/li/bioinfo/HapHiC/scripts/HapHiC_pipeline.py', 'scaffolds.ref.fa',"
     " 'HiC.filtered.bam', '20', '--RE', 'GATC,GANTC,CTNAG,TTAA', '--correct_nrounds', '2', '--remove_allelic_links', "
     "'4', '--threads', '20', '--processes', '8']' died with <Signals.SIGKILL: 9>.", "first_rank_death", "undetermined"),
])
def test_a_launchers_exception_stating_a_childs_death_is_that_death(last, rule, category):
    """A launcher's traceback ending in its child's death by a signal (mp.spawn's join, Python's CalledProcessError)
    is that death, not the program's own error (were: application, first_failure; the CalledProcessError a consequence
    and 'No failure found')."""
    first = job({"launcher.log": ["Traceback (most recent call last):", last]})[0]
    assert (first.rule, first.category) == (rule, category), first.reason
    assert first.evidence[0].kind == "rank_exit" and first.evidence[0].details["exception"]


def test_a_shells_report_of_a_killed_command_is_that_death():
    """bash's report of a command of the job's script a signal ended is that process's death (was: no line read,
    'No failure found'); after Slurm's OOM-kill line of the same step the OOM stays the root and the death its
    consequence (ArjunaCluster/ArjunaUsers #52, divamgupta/deep-clustering-kingdra #2)."""
    alone = job({"out.log": ["2020-11-24 20:22:28.106 /bin/bash: line 27: 318 Killed sh start.sh"]})
    assert [(i.rule, i.category) for i in alone] == [("first_rank_death", "undetermined")]
    assert (alone[0].evidence[0].signal, alone[0].evidence[0].pid) == (9, 318)
    slurm = job({"error_191.err": [
        "/var/spool/slurmd/job00191/slurm_script: line 28:  8156 Killed                  python3 main.py --prop hform "
        "--epochs 400 --lr_milestones 50 100 200 --gamma 0.25 --normalizing_const_AO 10000.0 --lr_generator 0.001 "
        "--lr_conv 0.001",
        "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of your processes may have "
        "been killed by the cgroup out-of-memory handler."]})
    assert [i.evidence[0].kind for i in slurm] == ["job_ended"]
    assert [e.kind for e in slurm[0].evidence] == ["job_ended", "rank_exit"]


# REAL: horovod/horovod #2907 (https://github.com/horovod/horovod/issues/2907), the description's per-rank output
HOROVOD_2907 = [
    "[0]<stderr>:RuntimeError: check_rank and exit epoch=1 batch=0 start_rank=0 rank=0",
    "[0]<stderr>:Killed",
    "",
    "[1]<stderr>:Terminated",
    "[1]<stderr>:terminate called after throwing an instance of 'gloo::IoException'",
    "[1]<stderr>:  what():  [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [127.0.0.1]:3977: "
    "Connection reset by peer",
    "[1]<stderr>:Aborted (core dumped)",
]


def test_a_shells_bare_signal_words_are_the_prefixed_ranks_death():
    """dash's report of a child a signal ended is strsignal()'s words alone on the line; behind Horovod's `[N]<stderr>:`
    it is rank N's death (horovod/horovod #2907): the killed rank 0 is the root, not rank 1 whose gloo read from it
    reset (was: rank 1, peer_error). The words inside a longer line are no death."""
    (incident,) = job({"horovodrun.log": HOROVOD_2907})
    assert (incident.rule, incident.category, incident.root.rank) == ("first_rank_death", "undetermined", 0)
    assert (incident.evidence[0].signal, incident.evidence[0].line) == (9, 2)
    for line in ("Killed by signal 9", "Terminated workers: 3",
                 "Process Killed", "Killed (signal 9)"):
        assert facts.match(line) is None, line


# REAL: the same issue's second block, Horovod's Gloo launcher's exit summary (its three whole lines)
HOROVOD_2907_EXITS = ["Process 0 exit with status code 137.", "Process 3 exit with status code 134.",
                      "Process 2 exit with status code 134."]


def test_horovods_launcher_exit_summary_is_the_ranks_death_by_its_codes_signal():
    """horovodrun's "Process N exit with status code C." is rank N's end, a code above 128 the shell's signal C-128
    (horovod/horovod #2907: 137, rank 0's SIGKILL; 134, its peers' SIGABRT); beside the ranks' own output it is the
    same death, rank 0 the root, no caveat that its own `Killed` in the other file may have come first. Was: not read.
    Other programs' "exit with status code" lines are no rank's end."""
    (incident,) = job({"exit_codes.log": HOROVOD_2907_EXITS})
    assert (incident.rule, incident.root.rank, incident.evidence[0].signal) == ("first_rank_death", 0, 9)
    (incident,) = job({"exit_codes.log": HOROVOD_2907_EXITS, "horovodrun.log": HOROVOD_2907})
    assert (incident.rule, incident.category, incident.root.rank, incident.evidence[0].signal) == (
        "first_rank_death", "undetermined", 0, 9)
    assert "could not be placed" not in incident.reason, incident.reason
    for line in ("Exit with status code 1", "Process exit with status code 1.",
                 "The process 0 exit with status code 137. Retrying"):
        assert facts.match(line) is None, line


def test_every_fact_kind_is_declared():
    assert {f.kind for f in facts.FACTS} <= set(facts.JOB_KINDS)
    for k in facts.JOB_TABLE:  # triage's own kinds: none of the kind table's, in its vocabulary
        assert k.name not in BY_NAME and (k.category is None or k.category in KIND_CATEGORIES), k.name


def test_elastic_summary_block():
    """REAL: lzhxmu/CPPO #6 (torchrun's ChildFailedError summary, one field a line)."""
    block = """torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
src/open_r1/grpo_gsm.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2025-05-21_15:43:03
  host      : mlxlab115rp2n7682d40d9-20250521025625-6dyyd3-8nir8b-worker
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 14750)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 14750
============================================================""".splitlines()
    ev = [e for e in read_lines(block, "out.log", Clock()) if e.kind == "rank_exit"]
    assert len(ev) == 1
    e = ev[0]
    assert (e.rank, e.local_rank, e.exit_code, e.signal, e.pid) == (0, 0, -9, 9, 14750)
    assert e.host == "mlxlab115rp2n7682d40d9-20250521025625-6dyyd3-8nir8b-worker"
    assert e.details["root_cause"] is True and e.time == datetime(2025, 5, 21, 15, 43, 3, tzinfo=timezone.utc)


def test_elastic_summary_fields_flush_left_are_read():
    """The same summary as a log collector that strips each line's leading spaces keeps it (CloudWatch,
    pytorch/pytorch #69520; the AICrossSim page of tests/fixtures/incidents/torchtitan-aicrosssim-abort-after-success
    prints its fields flush left): its fields are the block's, rank 1 (was: the block's fields unread, no rank)."""
    path = INCIDENT_LOGS / "torchtitan-aicrosssim-abort-after-success" / "logs" / "train.log"
    lines = path.read_text().splitlines()
    assert "rank      : 1 (local_rank: 1)" in lines  # flush left, as the source prints it
    ev = [e for e in read_lines(lines, "train.log", Clock()) if e.kind == "rank_exit" and e.details.get("root_cause")]
    assert [(e.rank, e.local_rank, e.exit_code, e.signal, e.pid, e.host) for e in ev] == [
        (1, 1, -6, 6, 3016739, "ee-tiamat.ee.ic.ac.uk")]


def test_elastic_summarys_root_cause_wins_a_tie_to_the_second():
    """REAL: vllm-project/speculators #1115 (PyTorch 2.10): the "Failures:" list opens with rank 3 (exit 1) of the same
    second as the "Root Cause (first observed failure)", rank 1: torchrun chose rank 1 by its full-precision times and
    printed them to the second; the summary's root cause is the first death, whatever the file order."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "incidents" / "speculators-1115-root-cause" / "logs"
    lines = (path / "torchrun.log").read_text().splitlines()
    (incident,) = attribute(read_lines(lines, "torchrun.log", Clock()))
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "first_rank_death", 1)
    assert "its exit code not shown" in incident.reason  # the root cause's block was cut before its exitcode line


INCIDENT_LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "incidents"


@pytest.mark.parametrize("incident,rank,told", [
    # REAL: QwenAudio/CosyVoice #180: "[Rank 0]: Rank 2 failed to pass monitoredBarrier in 30000 ms", ranks 1 and 3
    # "successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 0"
    ("cosyvoice-180-barrier", 2, "2 ranks (1,3) reached the monitored barrier"),
    # REAL: hiyouga/LlamaFactory #6000: PyTorch 2.x's "RuntimeError: [Rank 0]: Ranks 6 failed to pass monitoredBarrier
    # in 180000000000 ms", the exception of rank 0's traceback
    ("llamafactory-6000-barrier", 6, None),
    # REAL: sgl-project/sglang #5602: only the ranks rank 0 failed (its own log not shown): no culprit named
    ("sglang-5602-barrier", None, "2 ranks (3,6) reached the monitored barrier"),
    # REAL: kvcache-ai/ktransformers #1666: SGLang's load_model turns its post-load monitored_barrier's failure into
    # "ValueError: TP rank 1 could finish the model loading, but there are other ranks that didn't finish loading"
    ("ktransformers-1666-sglang-load-barrier", None, "rank 1 reached the monitored barrier"),
])
def test_monitored_barrier_names_the_rank_that_never_reached_it(incident, rank, told):
    """PyTorch's monitored_barrier: rank 0's "Rank(s) N failed to pass monitoredBarrier" names the lagging rank; the
    other ranks' "Please check rank 0 logs for faulty rank", and SGLang's "TP rank N could finish the model loading, but
    there are other ranks that didn't finish loading" wrapping it, are consequences (before: "No failure found")."""
    ev = [e for f in sorted((INCIDENT_LOGS / incident / "logs").iterdir())
          for e in read_lines(f.read_text().splitlines(), f.name, Clock())]
    assert any(e.kind == "barrier_timeout" for e in ev)
    incident_ = attribute(ev)[0]
    assert incident_.category == "undetermined" and incident_.root.rank == rank
    assert incident_.rule == ("lagging_rank" if rank is not None else "undetermined")
    if told:
        assert told in incident_.consequences


def test_sglang_load_barrier_exception_is_the_waiting_ranks_consequence():
    """TP2's real traceback of kvcache-ai/ktransformers #1666 (its last line cut in the source) completed with the
    exception SGLang raises there, CONSTRUCTED from python/sglang/srt/model_executor/model_runner.py's f-string for TP
    rank 2: the rank loaded its weights and waited at the barrier for another, a consequence (was: an application
    exception, rank 2 the root)."""
    lines = (INCIDENT_LOGS / "ktransformers-1666-sglang-load-barrier" / "logs" / "chunk-2.log").read_text().splitlines()
    lines = lines[lines.index("[2025-12-04 07:44:24 TP2] Scheduler hit an exception: Traceback (most recent call last):"):]
    lines.append("ValueError: TP rank 2 could finish the model loading, but there are other ranks that didn't finish "
                 "loading. It is likely due to unexpected failures (e.g., OOM) or a slow node.")
    clock = Clock()
    ev = clock.align(read_lines(lines, "server.log", clock))
    assert [(e.kind, e.rank) for e in ev if e.kind == "barrier_timeout"] == [("barrier_timeout", 2)]
    (incident,) = attribute(ev)
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "undetermined", None)
    assert "rank 2 reached the monitored barrier and were failed while another rank did not reach it" in \
        incident.consequences  # no rank 0 named: SGLang's words name none (was: "with rank 0")


@pytest.mark.parametrize("incident,lagging,barrier", [
    # REAL: ayaka14732/llama-2-jax #20 (GPU node, 2023): only process 0 of 8 started; tasks 1-7 named
    ("llama2jax-20-barrier", [1, 2, 3, 4, 5, 6, 7], "PjRT_Client_Connect"),
    # REAL: marin-community/levanter #432 (2024): "the main worker crashes": tasks 3 and 0 named
    ("levanter-432-barrier", [0, 3], "multihost_broadcast_sync0"),
])
def test_jax_barrier_timeout_names_the_tasks_that_never_came(incident, lagging, barrier):
    """JAX's coordination service: "DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: .. Timed out task names:" and a
    task a line after it: the tasks are the lagging ranks (before: a timeout exception, a consequence, and "No failure
    found")."""
    ev = [e for f in sorted((INCIDENT_LOGS / incident / "logs").iterdir())
          for e in read_lines(f.read_text().splitlines(), f.name, Clock())]
    assert sorted(int(e.details["lagging"]) for e in ev if e.details.get("lagging")) == lagging
    assert [e.details["barrier"] for e in ev if e.details.get("barrier")] == [barrier]
    (incident_,) = attribute(ev)
    assert (incident_.category, incident_.rule, incident_.root.rank) == ("undetermined", "lagging_rank", lagging[0])
    assert f"coordination service's barrier {barrier}" in incident_.reason


@pytest.mark.parametrize("incident,kind", [
    # REAL: EnzymeAD/Enzyme-JAX #623 (8 nodes, 2025): "DEADLINE_EXCEEDED: GetKeyValue() timed out with key: .. and
    # duration: 10m", the coordination service's key-value wait (triage/facts.py xla_key_value_timeout)
    ("enzyme-jax-623-getkeyvalue-timeout", "barrier_timeout"),
    # REAL: google/paxml #77 (1024 GPUs, 2024): "Coordination service agent in error status: DEADLINE_EXCEEDED" after
    # RegisterTask's deadline (parsers/rules.py jax_fatal_errors)
    ("paxml-77-register-deadline", "coordination_error"),
])
def test_a_jax_jobs_coordination_timeouts_are_its_failure_not_silence(incident, kind):
    """A multi-host JAX job whose only line is its coordination service's timeout failed: an incident of a
    consequence, undetermined (before: "No failure found")."""
    ev = [e for f in sorted((INCIDENT_LOGS / incident / "logs").iterdir())
          for e in read_lines(f.read_text().splitlines(), f.name, Clock())]
    assert [e.kind for e in ev] == [kind]
    (incident_,) = attribute(ev)
    assert (incident_.category, incident_.rule, incident_.root.rank) == ("undetermined", "undetermined", None)


@pytest.mark.parametrize("incident,said", [
    # REAL: EnzymeAD/Enzyme-JAX #623's line, "GetKeyValue() timed out with key: .. and duration: 10m"
    ("enzyme-jax-623-getkeyvalue-timeout", "the first key-value wait timeout (after 10m) on"),
    # REAL: AI-Hypercomputer/gpu-recipes #2's, "Barrier timed out. Id: [Init]Wait_for_all_tasks_to_register::0."
    ("gpu-recipes-2-register-barrier",
     "the first barrier timeout (barrier [Init]Wait_for_all_tasks_to_register::0) on"),
])
def test_a_coordination_timeouts_verdict_names_the_wait(incident, said):
    """The undetermined verdict of a JAX job's coordination-service timeout says what timed out, the barrier it names
    and how long it waited (the barrier_timeout kind's `named`; was: "barrier timeout first", neither)."""
    ev = [e for f in sorted((INCIDENT_LOGS / incident / "logs").iterdir())
          for e in read_lines(f.read_text().splitlines(), f.name, Clock())]
    (incident_,) = attribute(ev)
    assert said in incident_.reason


def test_a_jax_coordination_error_is_worded_as_jaxs_not_nccls():
    """REAL: google/paxml #77's "Coordination service agent in error status: DEADLINE_EXCEEDED": the verdict names
    JAX's coordination service (its own kind, parsers/kinds.py coordination_error), not "NCCL remote error" (the kind
    it was read as: no NCCL in it)."""
    logs = INCIDENT_LOGS / "paxml-77-register-deadline" / "logs"
    ev = [e for f in sorted(logs.iterdir()) for e in read_lines(f.read_text().splitlines(), f.name, Clock())]
    (incident_,) = attribute(ev)
    # and the status its line quotes (was: "JAX coordination service error" alone)
    assert "the first JAX coordination service error 'DEADLINE_EXCEEDED: Deadline Exceeded' on " in incident_.reason
    assert "NCCL" not in incident_.reason


def test_a_key_value_wait_names_its_key_and_duration():
    """The row's fields, from EnzymeAD/Enzyme-JAX #623's line: the key up to " and duration: ", the duration."""
    line = (INCIDENT_LOGS / "enzyme-jax-623-getkeyvalue-timeout" / "logs" / "job.log").read_text().splitlines()[0]
    (ev,) = read_lines([line], "job.log", Clock())
    assert ev.details["key"].startswith("devices=[0,1,2,") and ev.details["key"].endswith("num_local_participants=2")
    assert ev.details["duration"] == "10m"


def test_a_lagging_ranks_host_that_throttled_its_cpus_is_named_as_why():
    """A lagging rank whose host logged CPU thermal throttling in the job's window: the verdict names it as what slows
    the rank (parsers/kinds.py `slows`), where it said nothing logged says why.  Two real sources replayed as one
    job's logs: the incident cosyvoice-180-barrier's (rank 2 lagging, one host) and the kernel's throttling lines of
    bb-qq/r8152 #184 (tests/fixtures/realworld/host-thermal.yaml)."""
    logs = INCIDENT_LOGS / "cosyvoice-180-barrier" / "logs"
    train = (logs / "train.log").read_text().splitlines()
    kern = ["[515052.731171] CPU1: Core temperature above threshold, cpu clock throttled (total events = 136516)"]
    ev = [*read_lines(train, "train.log", Clock()), *read_lines(kern, "kern.log", Clock())]
    incident = attribute(ev)[0]
    assert (incident.rule, incident.root.rank) == ("lagging_rank", 2)
    assert "logged CPU thermal throttling" in incident.reason and "nothing logged" not in incident.reason
    alone = attribute(list(read_lines(train, "train.log", Clock())))[0]
    assert alone.reason.endswith("nothing logged says why it stalled")


def test_monitored_barrier_with_wait_all_ranks_names_every_lagging_rank():
    """REAL: NVIDIA/nccl #849's title, wait_all_ranks' list: the lowest rank is the root, all four are suspects."""
    line = "RuntimeError: [Rank 0]: Ranks 4, 5, 6, 7 failed to pass monitoredBarrier in 2000000 ms"
    ev = list(read_lines([line], "rank0.log", Clock()))
    assert [(e.rank, e.details["lagging"]) for e in ev if e.kind == "barrier_timeout"] == [(0, "4, 5, 6, 7")]
    (incident,) = attribute(ev)
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "lagging_rank", 4)
    assert incident.reason.startswith("4 ranks (4,5,6,7) failed to pass the monitored barrier")


def test_open_mpis_exit_summary_names_the_first_process_to_exit():
    """REAL: ChenRocks/UNITER #31 (horovodrun over Open MPI: the summary Open MPI prints after the job, one field a
    line, a blank line inside); NVIDIA/nccl-tests #294's "[[12167,1],10]" names rank 10."""
    lines = """[1,1]<stderr>:RuntimeError: Horovod has been shut down. This was caused by an exception on one of the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished execution. If the shutdown was caused by an exception, you should see the exception in the log before the first shutdown message.
--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------
--------------------------------------------------------------------------
mpirun detected that one or more processes exited with non-zero status, thus causing
the job to be terminated. The first process to do so was:

  Process name: [[50371,1],0]
  Exit code:    1

""".splitlines()
    (ev,) = [e for e in read_lines(lines, "mpirun.log", Clock()) if e.kind == "rank_exit"]
    assert (ev.rank, ev.exit_code, ev.details["fact"], ev.line) == (0, 1, "mpi_first_exit", 10)
    (incident,) = attribute(read_lines(lines, "mpirun.log", Clock()))
    assert (incident.root.rank, incident.rule) == (0, "first_rank_death")
    # the summary read to its last field even at the end of a file, and PRRTE's "[nspace,rank]" name read alike
    for name, rank in (("[[12167,1],10]", 10), ("[prterun-gpu-node07-612995@1,48]", 48)):
        tail = ["The first process to do so was:", "", f"  Process name: {name}", "  Exit code:    3"]
        (ev,) = [e for e in read_lines(tail, "x.log", Clock()) if e.kind == "rank_exit"]
        assert (ev.rank, ev.exit_code) == (rank, 3)
    # Horovod's Gloo launcher raises the same words, the rank alone, its fields in either order (determined-ai/
    # determined #3275): its RuntimeError is the summary, not the program's exception
    gloo = ["RuntimeError: Horovod detected that one or more processes exited with non-zero status, thus causing the "
            "job to be terminated. The first process to do so was:", "Exit code: 1", "Process name: 1"]
    ev = list(read_lines(["Traceback (most recent call last):", *gloo], "x.log", Clock()))
    assert [(e.kind, e.rank, e.exit_code) for e in ev] == [("rank_exit", 1, 1)]


def test_a_traceback_behind_determineds_prefix_is_read():
    """SYNTHETIC: Determined AI's prefixes (formats from varlogtim/tools' README and determined-ai/determined #3275)
    before a traceback: the stamp between the level and the container id is peeled, the traceback read, its rank the
    [rank=N] one."""
    lines = ["<>        [2021-12-07 10:43:01] 087c0ee7 [rank=1] || Traceback (most recent call last):",
             "<>        [2021-12-07 10:43:01] 087c0ee7 [rank=1] ||   File \"train.py\", line 3, in <module>",
             "<>        [2021-12-07 10:43:01] 087c0ee7 [rank=1] || ValueError: bad shape",
             "[2024-03-15T16:29:14.110799Z] 5c902731 [rank=0] || Traceback (most recent call last):",
             "[2024-03-15T16:29:14.110799Z] 5c902731 [rank=0] || KeyError: 'x'"]
    ev = [e for e in read_lines(lines, "trial.log", Clock()) if e.kind == "exception"]
    assert [(e.rank, e.details["exception"], e.time.year) for e in ev] == [(1, "ValueError", 2021),
                                                                          (0, "KeyError", 2024)]


VLLM_API_SERVER = [  # REAL: vllm-project/vllm #22479 (the API server re-raising its engine's failure)
    "(APIServer pid=1422128) ERROR 08-07 19:11:43 [serving_chat.py:1050]     outputs = await "
    "engine_core.get_output_async()",
    "(APIServer pid=1422128) ERROR 08-07 19:11:43 [serving_chat.py:1050]   File \"/home/giga/vllm/vllm/v1/engine/"
    "core_client.py\", line 809, in get_output_async",
    "(APIServer pid=1422128) ERROR 08-07 19:11:43 [serving_chat.py:1050]     raise self._format_exception(outputs) "
    "from None",
    "(APIServer pid=1422128) ERROR 08-07 19:11:43 [serving_chat.py:1050] vllm.v1.engine.exceptions.EngineDeadError: "
    "EngineCore encountered an issue. See stack trace (above) for the root cause.",
]


def test_vllms_logger_header_is_read_through_and_a_reraised_failure_is_a_consequence():
    """SYNTHETIC: the API server's re-raise (vllm #22479's lines, behind a traceback opener in its format) printed
    before the engine's own traceback (LMCache/LMCache #2306's lines): vLLM's "ERROR MM-DD HH:MM:SS [file:line] "
    header is peeled so the tracebacks are read, and the engine's error, not the API server's, is the root."""
    api = VLLM_API_SERVER[0].split(" ERROR ")[0] + " ERROR 08-07 19:11:43 [serving_chat.py:1050] Traceback (most " \
        "recent call last):"
    engine = ["(EngineCore_DP0 pid=697344) ERROR 01-08 17:16:15 [core.py:844] EngineCore encountered a fatal error.",
              "(EngineCore_DP0 pid=697344) ERROR 01-08 17:16:15 [core.py:844] Traceback (most recent call last):",
              "(EngineCore_DP0 pid=697344) ERROR 01-08 17:16:15 [core.py:844]   File \"/usr/local/lib/python3.12/"
              "dist-packages/vllm/v1/engine/core.py\", line 835, in run_engine_core",
              "(EngineCore_DP0 pid=697344) ERROR 01-08 17:16:15 [core.py:844] ValueError: vllm model for "
              "vllm-instance not found."]
    ev = list(read_lines([api, *VLLM_API_SERVER, *engine], "serve.log", Clock()))
    dead, root = [e for e in ev if e.kind == "exception"]
    assert dead.details["exception"].endswith("EngineDeadError") and is_consequence(dead)
    assert root.details["exception"] == "ValueError" and root.pid == 697344 and root.time.month == 1
    (incident,) = attribute(ev)
    assert incident.root.kind == "exception" and incident.evidence[0] is root
    # the engine's summary of its workers' failure (vllm-project/vllm #26898's title)
    message = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s)"
    (exc,) = [e for e in read_lines(["Traceback (most recent call last):", message], "x.log", Clock())
              if e.kind == "exception"]
    assert is_consequence(exc)


def test_vllms_executor_failed_after_a_worker_died_is_that_deaths_consequence():
    """CONSTRUCTED from vLLM's MultiprocExecutor.collective_rpc (vllm/v1/executor/multiproc_executor.py: "raise
    RuntimeError("Executor failed.")" only once its worker monitor set is_failed, after logging the death) with the
    sequence a vLLM issue's timeline records (the worker's death at 11:48:45, "RuntimeError: Executor failed." at
    11:48:46): the worker's death is the root, not the engine's RuntimeError a second later (was: APPLICATION, the
    RuntimeError, "rank 0 exited after it")."""
    prefix = "(EngineCore pid=143) ERROR 03-02 11:48:46 [core.py:1000] "
    lines = ["(EngineCore pid=143) ERROR 03-02 11:48:45 [multiproc_executor.py:283] Worker proc VllmWorker-0 died "
             "unexpectedly, shutting down executor.", prefix + "EngineCore encountered a fatal error.",
             prefix + "Traceback (most recent call last):",
             prefix + '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 900, in '
             "run_engine_core", prefix + "RuntimeError: Executor failed."]
    ev = list(read_lines(lines, "serve.log", Clock()))
    (exc,) = [e for e in ev if e.kind == "exception"]
    assert is_consequence(exc)
    (incident,) = attribute(ev)
    assert (incident.root.kind, incident.root.rank, incident.rule) == ("rank_exit", 0, "first_rank_death")
    # a program's own "Executor failed" in other words stays its failure
    (own,) = [e for e in read_lines(["Traceback (most recent call last):", "RuntimeError: ThreadPoolExecutor failed "
                                     "to start"], "x.log", Clock()) if e.kind == "exception"]
    assert not is_consequence(own)


# REAL: NVIDIA/nvidia-resiliency-ext #136 (hexinw-nvidia's comment: rank 14's exit traceback), the incident's log
NVRX_DISCARDED = (Path(__file__).parents[1] / "fixtures" / "incidents" / "nvrx-136-inprocess-rank-discarded" / "logs"
                  / "rank14.log").read_text().splitlines()


@pytest.mark.parametrize("last", [NVRX_DISCARDED[-1],
                                  # CONSTRUCTED from nvidia_resiliency_ext/inprocess: initialize.py RetryController's
                                  # RestartAbort (restarts exhausted), monitor_thread.py's RankShouldRestart
                                  "nvidia_resiliency_ext.inprocess.exception.RestartAbort: state.iteration=3 "
                                  "self.max_iterations=3 state.world_size=16 self.min_world_size=1 "
                                  "state.active_world_size=16 self.min_active_world_size=1 ",
                                  "nvidia_resiliency_ext.inprocess.monitor_thread.RankShouldRestart"])
def test_a_rank_the_in_process_restart_ended_is_its_decision_not_the_root(last):
    """nvidia-resiliency-ext's in-process restart (inprocess.Wrapper) ending a rank (RankDiscarded: "ranks terminated
    intentionally by NVRx", #136), giving up (RestartAbort) or interrupting one for another's failure
    (RankShouldRestart): the failure it acted on is elsewhere (was: APPLICATION, rank 14 the culprit)."""
    ev = list(read_lines([*NVRX_DISCARDED[:-1], last], "rank14.log", Clock()))
    (exc,) = [e for e in ev if e.kind == "exception"]
    assert is_consequence(exc)
    (incident,) = attribute(ev)
    assert (incident.category, incident.rule) == ("undetermined", "undetermined")


TORCH_LOGGED = [  # REAL: pytorch/helion #1396 (a CUDA CI job's rank 1, torch._logging's header on every line)
    "[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/"
    "common_distributed.py:939] Caught exception: ",
    "[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/"
    "common_distributed.py:939] Traceback (most recent call last):",
    "[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/"
    "common_distributed.py:939]   File \"/__w/helion/helion/.venv/lib/python3.12/site-packages/torch/testing/_internal/"
    "common_distributed.py\", line 929, in run_test",
    "[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/"
    "common_distributed.py:939]     getattr(self, test_name)()",
    "[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/"
    "common_distributed.py:939]   File \"/__w/helion/helion/.venv/lib/python3.12/site-packages/torch/testing/_internal/"
    "common_distributed.py\", line 776, in wrapper",
    "[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/torch/testing/_internal/"
    "common_distributed.py:939]     fn()",
]


def test_a_traceback_behind_torchs_record_header_is_read_at_error_not_at_warning():
    """REAL lines (TORCH_LOGGED, pytorch/helion #1396; rank 0's watchdog line SYNTHETIC, torchrun 2.x's format) and
    one CONSTRUCTED line, the exception, behind the same header (torch/_logging/_internal.py
    TorchLogsFormatter puts it before every line of a record; the excerpt is cut before it): PyTorch 2.2+'s
    "E0207 07:54:31.862000 4712 <file>.py:939] " is peeled like vLLM's, so rank 1's traceback is read, its time the
    header's, and it is the root before rank 0's timeout.  Was: the traceback unread, only rank 0's timeout,
    undetermined.  The same record at WARNING (torch logs handled exceptions there: TorchDynamo's frames it ran
    uncompiled, triton-lang/triton #9754's lines, REAL, its exception line CONSTRUCTED) stays no failure; c10's C++
    header keeps its own."""
    header = TORCH_LOGGED[-1].split("]     ")[0] + "] "
    lines = [*TORCH_LOGGED, header + "AssertionError: Tensor-likes are not close!",
             "[rank0]:[E207 08:04:31.862000 4711 ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=15, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
             "ran for 600000 milliseconds before timing out."]
    ev = list(read_lines(lines, "ci.log", Clock(), year=2026))
    (exc,) = [e for e in ev if e.kind == "exception"]
    assert (exc.rank, exc.details["exception"], exc.line) == (1, "AssertionError", 7)
    assert exc.time == datetime(2026, 2, 7, 7, 54, 31, 862000, tzinfo=timezone.utc)
    (incident,) = attribute(ev)
    assert incident.root.kind == "exception" and incident.root.rank == 1
    warned = [  # REAL: triton-lang/triton #9754
        "W0317 14:27:33.399000 26412 site-packages\\torch\\_dynamo\\convert_frame.py:1125] Traceback (most recent "
        "call last):",
        "W0317 14:27:33.399000 26412 site-packages\\torch\\_dynamo\\convert_frame.py:1125]   File \"C:\\Users\\john\\"
        "AppData\\Local\\Programs\\Python\\Python312\\Lib\\site-packages\\torch\\_dynamo\\convert_frame.py\", line 1064, "
        "in __call__",
        "W0317 14:27:33.399000 26412 site-packages\\torch\\_dynamo\\convert_frame.py:1125]     result = "
        "self._inner_convert(",
        # CONSTRUCTED: an exception line behind the same header
        "W0317 14:27:33.399000 26412 site-packages\\torch\\_dynamo\\convert_frame.py:1125] torch._dynamo.exc."
        "Unsupported: call_function UserDefinedObjectVariable",
    ]
    assert [e for e in read_lines(warned, "x.log", Clock()) if e.kind == "exception"] == []


DYNAMO_WONT_CONVERT = [  # REAL: baichuan-inc/Baichuan2 #84 (torch 2.0; "the program runs" all the same)
    "[2023-09-11 17:36:31,123] torch._dynamo.convert_frame: [ERROR] WON'T CONVERT forward /home/tiger/.cache/"
    "huggingface/modules/transformers_modules/modeling_baichuan.py line 674 ",
    "due to: ",
    "Traceback (most recent call last):",
    "  File \"/usr/lib/python3.9/copy.py\", line 264, in _reconstruct",
    "    y = func(*args)",
    "TypeError: __init__() missing 1 required positional argument: 'parent_module'",
    "",
    "from user code:",
    "   File \"/home/tiger/.cache/huggingface/modules/transformers_modules/modeling_baichuan.py\", line 692, in forward",
    "    outputs = self.model(",
    "  File \"/home/tiger/.cache/huggingface/modules/transformers_modules/modeling_baichuan.py\", line 392, in forward",
    "    inputs_embeds = self.embed_tokens(input_ids)",
    "",
    "Set torch._dynamo.config.verbose=True for more information",
]


def test_a_traceback_dynamo_announces_it_wont_convert_is_handled():
    """REAL (DYNAMO_WONT_CONVERT): TorchDynamo's "WON'T CONVERT <fn> <file> line <n>", "due to:", then the traceback
    of the frame it could not compile and ran uncompiled: no failure (was: an application incident, the TypeError).
    The writer's next traceback (the SYNTHETIC one after) is read as ever, and a traceback further than CAUGHT_AHEAD
    lines from the announcement is not taken for its."""
    assert [e for e in read_lines(DYNAMO_WONT_CONVERT, "train.log", Clock()) if e.kind == "exception"] == []
    later = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "ValueError: bad batch"]
    ev = [e for e in read_lines([*DYNAMO_WONT_CONVERT, *later], "train.log", Clock()) if e.kind == "exception"]
    assert [(e.details["exception"], e.line) for e in ev] == [("ValueError", 17)]
    far = [DYNAMO_WONT_CONVERT[0], "due to: ", "", "", "", *DYNAMO_WONT_CONVERT[2:6]]
    assert [e.details["exception"] for e in read_lines(far, "train.log", Clock()) if e.kind == "exception"] == [
        "TypeError"]


DATALOADER_DEL_IGNORED = [  # REAL: yogeshbalaji/Generate_To_Adapt #7 ("some warning like following")
    "Exception ignored in: <bound method _DataLoaderIter.__del__ of <torch.utils.data.dataloader._DataLoaderIter "
    "object at 0x7fb92660e6a0>>",
    "Traceback (most recent call last):",
    '  File "/home/xing/miniconda3/lib/python3.5/site-packages/torch/utils/data/dataloader.py", line 349, in __del__',
    "    self._shutdown_workers()",
    '  File "/home/xing/miniconda3/lib/python3.5/site-packages/torch/utils/data/dataloader.py", line 328, in '
    "_shutdown_workers",
    "    self.worker_result_queue.get()",
    '  File "/home/xing/miniconda3/lib/python3.5/multiprocessing/queues.py", line 337, in get',
    "    return ForkingPickler.loads(res)",
    '  File "/home/xing/miniconda3/lib/python3.5/site-packages/torch/multiprocessing/reductions.py", line 70, in '
    "rebuild_storage_fd",
    "    fd = df.detach()",
    '  File "/home/xing/miniconda3/lib/python3.5/multiprocessing/resource_sharer.py", line 58, in detach',
    "    return reduction.recv_handle(conn)",
    '  File "/home/xing/miniconda3/lib/python3.5/multiprocessing/reduction.py", line 181, in recv_handle',
    "    return recvfds(s, 1)[0]",
    '  File "/home/xing/miniconda3/lib/python3.5/multiprocessing/reduction.py", line 152, in recvfds',
    "    msg, ancdata, flags, addr = sock.recvmsg(1, socket.CMSG_LEN(bytes_size))",
    "ConnectionResetError: [Errno 104] Connection reset by peer",
]


def test_a_traceback_python_says_it_ignored_is_no_failure():
    """REAL (DATALOADER_DEL_IGNORED): Python's unraisable hook ("Exception ignored in: <obj>", then the traceback)
    prints an exception raised where none can be raised (a `__del__`: PyTorch's DataLoader iterator deleted at an
    epoch's end, its workers gone) and the program goes on. No failure, whatever it ends with (was, since a
    consequence exception counts as a failure: `undetermined`, "only consequences were logged", for a healthy run;
    jihanyang/AFN #8 and pytorchbearer/torchbearer #309 print it after every epoch of a training that goes on). The
    writer's next traceback is read as ever."""
    assert [e for e in read_lines(DATALOADER_DEL_IGNORED, "train.log", Clock()) if e.kind == "exception"] == []
    assert attribute(list(read_lines(DATALOADER_DEL_IGNORED, "train.log", Clock()))) == []
    later = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "ValueError: bad batch"]
    ev = [e for e in read_lines([*DATALOADER_DEL_IGNORED, *later], "train.log", Clock()) if e.kind == "exception"]
    assert [(e.details["exception"], e.line) for e in ev] == [("ValueError", len(DATALOADER_DEL_IGNORED) + 3)]


LOGGING_ERROR_FORMAT = [  # REAL: pencoa/PCNN #1 (its training went on: "Epoch 1 out of 15")
    "--- Logging error ---",
    "Traceback (most recent call last):",
    '  File "/home/xyx/anaconda3/lib/python3.6/logging/__init__.py", line 992, in emit',
    "    msg = self.format(record)",
    '  File "/home/xyx/anaconda3/lib/python3.6/logging/__init__.py", line 838, in format',
    "    return fmt.format(record)",
    '  File "/home/xyx/anaconda3/lib/python3.6/logging/__init__.py", line 575, in format',
    "    record.message = record.getMessage()",
    '  File "/home/xyx/anaconda3/lib/python3.6/logging/__init__.py", line 338, in getMessage',
    "    msg = msg % self.args",
    "TypeError: not all arguments converted during string formatting",
    "Call stack:",
    '  File "/home/xyx/PCNN/train.py", line 26, in <module>',
    "    main()",
    '  File "/home/xyx/PCNN/train.py", line 12, in main',
    "    model.build()",
    '  File "/home/xyx/PCNN/model/pcnn_model.py", line 312, in build',
    "    self.log_trainable()",
    '  File "/home/xyx/PCNN/model/pcnn_model.py", line 297, in log_trainable',
    '    self.logger.info("Shape: ", v.shape)',
    "Message: 'Shape: '",
    "Arguments: ((53,),)",
    "Epoch 1 out of 15",
]
LOGGING_ERROR_FLUSH = [  # REAL: rajatomar788/pywebcopy #36 (a full disk under the log file; the copy went on)
    "--- Logging error ---",
    "Traceback (most recent call last):",
    '  File "/usr/lib64/python3.6/logging/__init__.py", line 998, in emit',
    "    self.flush()",
    '  File "/usr/lib64/python3.6/logging/__init__.py", line 978, in flush',
    "    self.stream.flush()",
    "OSError: [Errno 28] No space left on device",
    "Call stack:",
    '  File "/usr/lib64/python3.6/threading.py", line 884, in _bootstrap',
    "    self._bootstrap_inner()",
    '  File "/usr/lib64/python3.6/threading.py", line 916, in _bootstrap_inner',
    "    self.run()",
]


@pytest.mark.parametrize("lines", [LOGGING_ERROR_FORMAT, LOGGING_ERROR_FLUSH], ids=["format", "flush"])
def test_a_record_pythons_logging_could_not_emit_is_no_failure(lines):
    """Python's logging prints a record it could not emit (Handler.handleError: "--- Logging error ---", the traceback,
    "Call stack:" with the logging call's frames, "Message:", "Arguments:") and the program goes on: a format string
    given too many arguments, a full disk under the log file. No failure (was: an application incident, the
    TypeError); the writer's next traceback is read as ever."""
    assert [e for e in read_lines(lines, "train.log", Clock()) if e.kind in ("exception", "storage_error")] == []
    assert attribute(list(read_lines(lines, "train.log", Clock()))) == []
    later = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "ValueError: bad batch"]
    ev = [e for e in read_lines([*lines, *later], "train.log", Clock()) if e.kind == "exception"]
    assert [(e.details["exception"], e.line) for e in ev] == [("ValueError", len(lines) + 3)]


# REAL: mlcommons/training_results_v5.0 at 0fdc28f0, Oracle/results/8xBM.GPU.H200.8/retinanet/result_1.txt, lines
# 2179-2186 (https://github.com/mlcommons/training_results_v5.0/blob/0fdc28f013256aea84fa36fdaf1e0fa46094b18c/Oracle/
# results/8xBM.GPU.H200.8/retinanet/result_1.txt#L2179-L2186): printed after the run's run_stop "success"
FINALIZER_SEM_UNLINK = [
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.10/multiprocessing/util.py", line 300, in _run_finalizers',
    "    finalizer()",
    '  File "/usr/lib/python3.10/multiprocessing/util.py", line 224, in __call__',
    "    res = self._callback(*self._args, **self._kwargs)",
    '  File "/usr/lib/python3.10/multiprocessing/synchronize.py", line 87, in _cleanup',
    "    sem_unlink(name)",
    "FileNotFoundError: [Errno 2] No such file or directory",
]
# REAL: datalad/datalad #4495 (https://github.com/datalad/datalad/issues/4495): "an (ignored) traceback upon exit",
# "not causing overall failure"
FINALIZER_NFS_RMTREE = [
    "Traceback (most recent call last):",
    '  File "/opt/python/3.5.6/lib/python3.5/multiprocessing/util.py", line 262, in _run_finalizers',
    "    finalizer()",
    '  File "/opt/python/3.5.6/lib/python3.5/multiprocessing/util.py", line 186, in __call__',
    "    res = self._callback(*self._args, **self._kwargs)",
    '  File "/home/travis/virtualenv/python3.5.6/lib/python3.5/shutil.py", line 480, in rmtree',
    "    _rmtree_safe_fd(fd, path, onerror)",
    '  File "/home/travis/virtualenv/python3.5.6/lib/python3.5/shutil.py", line 438, in _rmtree_safe_fd',
    "    onerror(os.unlink, fullname, sys.exc_info())",
    '  File "/home/travis/virtualenv/python3.5.6/lib/python3.5/shutil.py", line 436, in _rmtree_safe_fd',
    "    os.unlink(name, dir_fd=topfd)",
    "OSError: [Errno 16] Device or resource busy: '.nfs0000000000235a2800000001'",
]
# REAL: cgat-developers/ruffus #5 (https://github.com/cgat-developers/ruffus/issues/5), Python 2.7: the pipeline's
# jobs completed, then the finalizer's temporary directory removal on NFS failed
FINALIZER_PY27 = [
    "    Job completed",
    "Completed Task = second_task",
    "Traceback (most recent call last):",
    '  File "/biosw/debian5-x86_64/python/2.7.3/lib/python2.7/multiprocessing/util.py", line 261, in _run_finalizers',
    "    finalizer()",
    '  File "/biosw/debian5-x86_64/python/2.7.3/lib/python2.7/multiprocessing/util.py", line 200, in __call__',
    "    res = self._callback(*self._args, **self._kwargs)",
    '  File "/biosw/debian5-x86_64/python/2.7.3/lib/python2.7/shutil.py", line 250, in rmtree',
    "    onerror(os.remove, fullname, sys.exc_info())",
    '  File "/biosw/debian5-x86_64/python/2.7.3/lib/python2.7/shutil.py", line 248, in rmtree',
    "    os.remove(fullname)",
    "OSError: [Errno 16] Device or resource busy: '/clustertmp/csfs/gecko-solexa-tmp/pymp-heBeo5/"
    ".nfs000000010aa5045f00000588'",
]


@pytest.mark.parametrize("lines", [FINALIZER_SEM_UNLINK, FINALIZER_NFS_RMTREE, FINALIZER_PY27],
                         ids=["sem_unlink", "nfs_rmtree", "py27"])
def test_a_traceback_multiprocessings_finalizer_loop_printed_is_no_failure(lines):
    """multiprocessing's finalizer loop (util.py `_run_finalizers`: `except Exception: traceback.print_exc()`, then the
    next finalizer) prints a finalizer's failure at exit and the process exits as it would have: a semaphore another
    process already unlinked, a temporary directory on NFS still busy.  No failure (was: an application incident, the
    FileNotFoundError / OSError, ten of them in MLPerf runs that reached their target); neither headed nor with its
    header lost, and the writer's next traceback is read as ever."""
    assert [e for e in read_lines(lines, "train.log", Clock()) if e.kind in ("exception", "storage_error")] == []
    assert attribute(list(read_lines(lines, "train.log", Clock()))) == []
    headless = [line for line in lines if not line.startswith("Traceback")]
    assert [e for e in read_lines(headless, "train.log", Clock()) if e.kind in ("exception", "storage_error")] == []
    later = ["Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "ValueError: bad batch"]
    ev = [e for e in read_lines([*lines, *later], "train.log", Clock()) if e.kind == "exception"]
    assert [(e.details["exception"], e.line) for e in ev] == [("ValueError", len(lines) + 3)]


def test_a_line_announcing_a_handled_traceback_is_read_on_for_another_fact():
    """CONSTRUCTED: DYNAMO_WONT_CONVERT's first line (REAL, baichuan-inc/Baichuan2 #84) with rank 0's watchdog line
    (SYNTHETIC, torchrun 2.x's format, as above) written into it, two processes' output interleaved on one line.  The
    announcement is kept and the line is still read: the timeout is a fact (was: the line's reading stopped at
    "WON'T CONVERT", the timeout lost), and the traceback after it is still the handled one."""
    mixed = DYNAMO_WONT_CONVERT[0] + (
        "[rank0]:[E207 08:04:31.862000 4711 ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=15, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600000 "
        "milliseconds before timing out.")
    ev = list(read_lines([mixed, *DYNAMO_WONT_CONVERT[1:]], "train.log", Clock(), year=2023))
    assert [(e.kind, e.rank, e.details["seq"]) for e in ev if e.kind == "nccl_timeout"] == [("nccl_timeout", 0, 15)]
    assert [e for e in ev if e.kind == "exception"] == []


KEYS_VALUES = Path(__file__).parents[1] / "fixtures" / "incidents" / "keys-values-lightning-child-exit" / "logs" / \
    "train.log"


def test_lightnings_child_observer_names_the_child_that_died_and_a_c10_assert_is_the_ranks_own():
    """REAL (awslabs/keys_values, tests/fixtures/incidents/keys-values-lightning-child-exit): Lightning's launcher's
    "[rank: 1] Child process with PID 2084751 terminated with code 1. .." is local rank 1's death (was: not read), and
    ranks 1 and 2's "RuntimeError: ncclComm != nullptr INTERNAL ASSERT FAILED at ".../ProcessGroupNCCL.cpp":4043, .."
    are their own failures, not consequences (was: read as consequences for the file's name, so no failure found at
    all); rank 1's is the root, the exit after it.  SYNTHETIC: the same line at -9 behind a logger's "INFO: " is a
    SIGKILL; an exception whose words say a peer's NCCL failure is still a consequence."""
    lines = KEYS_VALUES.read_text().splitlines()
    ev = list(read_lines(lines, "train.log", Clock()))
    (exit_,) = [e for e in ev if e.kind == "rank_exit"]
    assert (exit_.local_rank, exit_.pid, exit_.exit_code, exit_.details["fact"]) == (1, 2084751, 1,
                                                                                      "lightning_child_exit")
    own = [e for e in ev if e.kind == "exception"]
    assert [(e.rank, e.details["consequence"]) for e in own] == [(1, False), (2, False)]
    (incident,) = attribute(ev)
    assert (incident.category, incident.root.kind, incident.root.rank) == ("application", "exception", 1)
    killed = "INFO: [rank: 1] Child process with PID 9487 terminated with code -9. Forcefully terminating all other " \
        "processes to avoid zombies"
    (ev9,) = read_lines([killed], "train.log", Clock())
    assert (ev9.kind, ev9.local_rank, ev9.signal) == ("rank_exit", 1, 9)
    echo = ["Traceback (most recent call last):", "RuntimeError: ProcessGroupNCCL is aborted; NCCL communicator was "
            "aborted on rank 3."]
    (aborted,) = read_lines(echo, "x.log", Clock())
    assert aborted.kind == "exception" and aborted.details["consequence"]


def test_a_second_ranks_own_failure_after_the_root_is_in_its_consequences_and_evidence():
    """REAL (awslabs/keys_values, tests/fixtures/incidents/keys-values-lightning-child-exit): rank 2's own "RuntimeError:
    ncclComm != nullptr INTERNAL ASSERT FAILED .." after rank 1's (the root) is said ("rank 2 reported RuntimeError
    after it") and listed (was: neither, the sentence silent on it: "1 process(es) exited after it")."""
    (incident,) = attribute(read_lines(KEYS_VALUES.read_text().splitlines(), "train.log", Clock()))
    assert incident.root.rank == 1
    assert incident.consequences == "rank 2 reported RuntimeError after it; 1 process(es) exited after it"
    assert [(e.kind, e.rank) for e in incident.evidence if e.kind == "exception"] == [("exception", 1), ("exception", 2)]


FLUX = Path(__file__).parents[1] / "fixtures" / "incidents" / "flux-40-two-node-illegal-access" / "logs" / "train.log"


def test_a_second_ranks_cuda_error_after_the_root_is_never_denied():
    """REAL (bytedance/flux #40, tests/fixtures/incidents/flux-40-two-node-illegal-access): rank 0's watchdog reports
    the same illegal memory access 100 ms after rank 1's (the root): the consequences say it and its line is in the
    evidence (was: "no other rank reported a failure", the line left out).  SYNTHETIC: rank 0's line stamped 10 s
    later (beyond the 5 s skew), the same."""
    lines = FLUX.read_text().splitlines()
    first = attribute(read_lines(lines, "train.log", Clock()))[0]
    assert first.root.rank == 1
    assert first.consequences == "rank 0 reported CUDA error 'an illegal memory access was encountered' after it"
    assert [(e.rank, e.kind) for e in first.evidence] == [(1, "cuda_error"), (0, "cuda_error")]
    later = [line.replace("[E907 22:34:22.823452114", "[E907 22:34:32.823452114") for line in lines]
    again = attribute(read_lines(later, "train.log", Clock()))[0]
    assert (again.root.rank, again.consequences) == (1, first.consequences)


DLROVER = Path(__file__).parents[1] / "fixtures" / "incidents" / "dlrover-1046-sigbus" / "logs" / "agent.log"


def test_dlrovers_process_failure_names_the_global_rank_its_dict_key_and_the_local_rank():
    """REAL (intelligent-machine-learning/dlrover #1046, tests/fixtures/incidents/dlrover-1046-sigbus): DLRover's
    agent logs torch elastic's RunResult.failures, "The worker fails with {0: ProcessFailure(local_rank=0, pid=54,
    exitcode=-7, .., message='Signal 7 (SIGBUS) received by PID 54', ..)}": the key is the global rank (torch's
    LocalElasticAgent._monitor_workers maps each local rank's failure to its worker's global rank), local_rank its
    index on the node.  Was: the quoted message alone (signal_received), no rank, "no single rank or node"."""
    (ev,) = read_lines(DLROVER.read_text().splitlines(), "agent.log", Clock())
    assert (ev.kind, ev.rank, ev.local_rank, ev.pid, ev.exit_code, ev.signal, ev.details["fact"]) == (
        "rank_exit", 0, 0, 54, -7, 7, "elastic_process_failure")
    (incident,) = attribute([ev])
    assert (incident.category, incident.root.rank) == ("infrastructure", 0)
    # SYNTHETIC: a worker of the second node of 8 GPUs (global rank 9, local rank 1), an exit code and no signal
    (two,) = read_lines(["The worker fails with {9: ProcessFailure(local_rank=1, pid=7, exitcode=1, error_file='', "
                         "error_file_data={'message': '<NONE>'}, message='<NONE>', timestamp=1)}"], "a.log", Clock())
    assert (two.rank, two.local_rank, two.exit_code, two.signal) == (9, 1, 1, None)


def test_vllms_header_without_seconds():
    """REAL: vllm-project/vllm #28028 (a date format without seconds)."""
    assert app_stamp("ERROR 11-03 23:14 [serving_chat.py:1145]     async for res in result_generator:") == (
        datetime(1900, 11, 3, 23, 14), True)


def test_a_redacted_host_is_no_host():
    """REAL lines whose host (or peer) the poster replaced with a placeholder: the prefix and the fact are read, the
    placeholder taken for no host (every redacted line would otherwise be one host) nor a peer."""
    # NVIDIA/nccl #952 (NCCL's prefix) and #1814 (a name that only looks like one is kept)
    assert strip("<cluster_name>:924:924 [5] NCCL INFO cudaDriverVersion 12010") == (
        Origin(pid=924, gpu=5), "NCCL INFO cudaDriverVersion 12010")
    assert strip("hostname-test:984:984 [4] NCCL INFO cudaDriverVersion 12080")[0].host == "hostname-test"
    # Kay1794/Aware-of-the-history #2 (host and pid) and horovod/horovod #469 (host)
    for line, rank in (("mpirun noticed that process rank 1 with PID xxxxxx on node xxxxxxxx exited on signal 9 "
                        "(Killed).", 1),
                       ("mpirun noticed that process rank 7 with PID 0 on node HOSTNAME exited on signal 9 (Killed).",
                        7)):
        (ev,) = [e for e in read_lines([line], "mpirun.log", Clock()) if e.kind == "rank_exit"]
        assert (ev.rank, ev.host, ev.signal) == (rank, None, 9)
    # NVIDIA/nccl #1814's title: the completion error is read, its redacted peer names none
    line = ("NCCL WARN NET/IB : Got completion from peer xxx.xxx.xxx.xxx<55921> with status=12 opcode=1 len=0 vendor "
            "err 129 (Send) localGid ::ffff:29.87.4.221 remoteGids::ffff:29.87.88.182")
    (ev,) = read_lines([line], "x.log", Clock())
    assert ev.kind == "ib_completion_error" and ev.peer is None and ev.details["peer_redacted"]
    assert attribute([ev])[0].rule == "fabric_error"
    # NVIDIA/nccl #2076: the peer's address cut to its first octet ("172....") is no peer either (before: the job's
    # root named as host "172....", the one name every address so cut shares); so are the other ways posters cross an
    # address out, kept or cut (SYNTHETIC forms of the same line) - a whole address is still a peer
    lines = ["torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
             "remote process exited or there was a network error, NCCL version 2.21.5",
             "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
             "Last error:",
             "socketProgressOpt: Call to recv from 172....<33759> failed : Connection reset by peer"]
    ev = list(read_lines(lines, "train.log", Clock()))
    assert ev and all(e.peer is None for e in ev)
    (incident,) = attribute(ev)
    assert (incident.category, incident.root.host, incident.rule) == ("undetermined", None, "undetermined")
    for peer in ("172....<33759>", "10.x.x.x<33759>", "192.168.*.*<33759>", "172.16.<33759>"):
        assert placeholder(peer), peer
    for peer in ("10.200.84.247<58355>", "node2<42830>", "ip-172-31-45-209.eu-north-1.compute.internal<32926>"):
        assert not placeholder(peer), peer


def test_traceback_exception_and_its_consequences():
    """REAL lines: rank 11's out-of-memory traceback (modelscope/ms-swift #6301) is the parsers' cuda_oom; a
    DistBackendError is a consequence."""
    lines = ["[rank11]: Traceback (most recent call last):",
             "[rank11]:     attn_output = torch.nn.functional.scaled_dot_product_attention(",
             "[rank11]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB. GPU 3 has a total "
             "capacity of 63.42 GiB of which 1.70 GiB is free."]
    ev = list(read_lines(lines, "x.log", Clock()))
    oom = [e for e in ev if e.kind == "cuda_oom"]
    assert len(oom) == 1 and oom[0].rank == 11 and oom[0].gpu == 3
    # SYNTHETIC: an exception line of a kind PyTorch raises when a peer failed
    ev = list(read_lines(["Traceback (most recent call last):", "  File \"x.py\", line 1, in <module>",
                          "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 3."],
                         "y.log", Clock()))
    exc = [e for e in ev if e.kind == "exception"]
    assert exc and is_consequence(exc[0])


def test_horovods_shut_down_is_another_ranks_failure():
    """REAL line (ChenRocks/UNITER #31: rank 1's Horovod shut down; the reporter then found "RuntimeError: CUDA out of
    memory" elsewhere in the log); the traceback opener and rank 0's out-of-memory line are SYNTHETIC.  Horovod says
    itself that its shut down "was caused by an exception on one of the ranks": rank 1 was blamed when its line came
    first."""
    shut_down = ("[1,1]<stderr>:RuntimeError: Horovod has been shut down. This was caused by an exception on one of "
                 "the ranks or an attempt to allreduce, allgather or broadcast a tensor after one of the ranks finished "
                 "execution. If the shutdown was caused by an exception, you should see the exception in the log "
                 "before the first shutdown message.")
    lines = ["[1,1]<stderr>:Traceback (most recent call last):",
             "[1,1]<stderr>:    mpi_lib.horovod_torch_wait_and_clear(handle)",
             shut_down,
             "[1,0]<stderr>:Traceback (most recent call last):",
             "[1,0]<stderr>:RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total "
             "capacity; 9.71 GiB already allocated)"]
    ev = list(read_lines(lines, "mpirun.log", Clock()))
    (exc,) = [e for e in ev if e.kind == "exception"]
    assert exc.rank == 1 and is_consequence(exc)
    (incident,) = attribute(ev)
    assert (incident.category, incident.root.rank, incident.root.kind) == ("application", 0, "cuda_oom")
    # TensorFlow's wording around the same status, and Horovod elastic's error when a peer is gone (the NCCL call's
    # failure the parsers read, "<call> failed: <ncclGetErrorString()>": an nccl_error, a consequence as well)
    for text, kind in (("tensorflow.python.framework.errors_impl.UnknownError: Horovod has been shut down. This was "
                        "caused by an exception on one of the ranks", "exception"),
                       ("horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: unhandled system error",
                        "nccl_error")):
        ev = list(read_lines(["Traceback (most recent call last):", text], "z.log", Clock()))
        (exc,) = [e for e in ev if e.kind in ("exception", "nccl_error")]
        assert exc.kind == kind and is_consequence(exc), text


# --- attribution (SYNTHETIC jobs from REAL-format lines) -------------------------------------------------------

XID79 = "[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
ANCHOR = ("Mar 21 01:50:00 node-b kernel: [ 3954.000000] pcieport 0000:00:03.0: AER: Corrected error received: "
          "0000:00:03.0")


def timeout(rank: int, seq: int = 1580, when: str = "02:07:08") -> str:
    # the line format of hiyouga/LlamaFactory #7396
    return (f"[rank{rank}]:[E321 {when}.408271257 ProcessGroupNCCL.cpp:607] [Rank {rank}] Watchdog caught collective "
            f"operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, "
            f"Timeout(ms)=600000) ran for 600060 milliseconds before timing out.")


def progress(rank: int, seq: int, enqueued: int, completed: int) -> str:
    return (f"[rank{rank}]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank {rank}] Exception (either "
            f"an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: {enqueued}, last "
            f"completed NCCL work: {completed}.")


def job(files: dict[str, list[str]], year: int = 2025) -> list[Incident]:
    clock = Clock()
    ev = []
    for name, lines in files.items():
        ev += read_lines(lines, f"job/{name}", clock, root="job", year=year)
    return attribute(clock.align(ev))


def test_node_fault_on_another_node_outranks_the_ranks_claims():
    """Node b's GPU falls off the bus at 01:55; ranks on nodes a and b time out ten minutes later and rank 3 raises
    an exception: the Xid is the root (hardware, node b, its PCI address)."""
    incidents = job({
        "node-b/kern.log": [ANCHOR],
        "node-b/dmesg": [XID79],
        "node-a/train.log": [timeout(0), timeout(1)],
        "node-b/train.log": [timeout(2), "[rank3]: Traceback (most recent call last):",
                             "[rank3]: ValueError: too many values to unpack (expected 2)"],
    })
    first = incidents[0]
    assert (first.category, first.rule, first.root.host, first.root.pci) == ("hardware", "node_fault", "node-b",
                                                                             "0000:5d:00")
    assert "timed out" in first.consequences


def test_a_node_faults_consequences_say_the_exit_of_the_rank_on_the_faulted_node():
    """SYNTHETIC (the error's words as accelerate-1192-ecc's, Open MPI's end as aware-2-sigkill's): rank 3 reports its
    GPU's uncorrectable ECC error, then mpirun says ranks 3 and 0 exited. The fault is the node's, no rank's own failure:
    rank 3's exit is its consequence as rank 0's is (was: "rank 0 exited after it", rank 3's left out as the root's)."""
    first = job({"node-b/train.log": [
        "[2025-03-21 01:56:00,000] [rank3]: RuntimeError: CUDA error: uncorrectable ECC error encountered",
        "[2025-03-21 01:56:01,000] mpirun noticed that process rank 3 with PID 0 on node node-b exited on signal 9 "
        "(Killed).",
        "[2025-03-21 01:56:02,000] mpirun noticed that process rank 0 with PID 0 on node node-a exited on signal 9 "
        "(Killed)."]})[0]
    assert (first.category, first.rule, first.root.rank, first.root.host) == ("hardware", "node_fault", 3, "node-b")
    assert first.consequences == "2 ranks (0,3) exited after it"


def test_a_node_whose_kernel_panicked_is_its_jobs_root():
    """(h99) Node b's kernel panics (its console's or previous boot's log: the hung task detector set to panic, the
    line of openzfs/zfs #9675 at node b's uptime); the ranks on node a time out: the panic is the root (the node's
    fault, category hardware), not the timeouts. Was no finding: the job's only root its timeouts."""
    first = job({
        "node-b/kern.log": [ANCHOR],
        "node-b/dmesg": ["[ 4254.197860] Kernel panic - not syncing: hung_task: blocked tasks"],
        "node-a/train.log": [timeout(0), timeout(1)],
    })[0]
    assert (first.category, first.rule, first.root.kind, first.root.host) == ("hardware", "node_fault",
                                                                              "kernel_panic", "node-b")


def test_a_node_fault_long_before_the_failure_explains_nothing():
    """The same Xid, two days before the timeouts: outside the window, not the root."""
    incidents = job({
        "node-b/kern.log": ["Mar 19 01:50:00 node-b kernel: [ 3954.000000] pcieport 0000:00:03.0: AER: Corrected "
                            "error received: 0000:00:03.0"],
        "node-b/dmesg": [XID79],
        "node-a/train.log": [timeout(0), timeout(1), timeout(2)],
    })
    assert not any(i.rule == "node_fault" for i in incidents)


def test_a_register_access_the_firmware_refused_is_no_nodes_fault():
    """A node whose restricted ConnectX functions a counter reader polls logs the firmware's refusal at every read
    (prometheus/node_exporter #3434): the ranks' timeouts that follow are not that node's fault."""
    refused = ("[ 4254.197860] mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805) op_mod(0x1) "
               "failed, status bad operation(0x2), syndrome (0x9a6171), err(-22)")
    incidents = job({
        "node-b/kern.log": [ANCHOR],
        "node-b/dmesg": [refused],
        "node-a/train.log": [timeout(0), timeout(1)],
        "node-b/train.log": [timeout(2)],
    })
    assert incidents and not any(i.rule == "node_fault" for i in incidents)
    assert not any(i.root is not None and i.root.kind == "nic_error" for i in incidents)


def test_an_adapter_event_that_reports_no_failure_is_not_the_fabric_failing():
    """A rank's NCCL warns of an address reassigned on its adapter ("GID table change", NVIDIA/nccl #1819) before the
    ranks time out: no fabric verdict rests on it (a "port error" event would be one)."""
    gid = "[rank1]:node-a:311:405 [1] NCCL WARN NET/IB : mlx5_3:1 Got async event : GID table change"
    incidents = job({"node-a/train.log": [gid, timeout(0), timeout(1)]})
    assert not any(i.category == "fabric" for i in incidents)
    port = "[rank1]:node-a:311:405 [1] NCCL WARN NET/IB : mlx5_3:1 Got async event : port error"
    assert any(i.category == "fabric" for i in job({"node-a/train.log": [port, timeout(0), timeout(1)]}))


def test_a_job_whose_only_fabric_lines_are_informational_events_gets_no_fabric_verdict():
    """deepspeedai/DeepSpeedExamples #310 (REAL lines): every rank of a DeepSpeed job prints NCCL's "Got async event :
    client reregistration" right after its "Init COMPLETE" (the subnet manager asking the port's clients to register
    again: libibverbs' informational IBV_EVENT_CLIENT_REREGISTER); the job runs on. No incident (was: a warning per
    rank). No evidence either (was: an nccl_error warning per rank in the evidence read). With a timeout after it, the
    timeout's verdict is no fabric one; a port error instead is (every era's words of the informational events:
    tests/parsers/test_parsers_units.py NO_FAILURE_EVENTS)."""
    lines = ["gpu1:5021:5376 [0] NCCL INFO comm 0x453b9880 rank 0 nranks 8 cudaDev 0 busId 4f000 - Init COMPLETE",
             "gpu1:5022:5377 [1] NCCL INFO comm 0x4438f540 rank 1 nranks 8 cudaDev 1 busId 52000 - Init COMPLETE",
             "gpu1:5021:5386 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistration",
             "gpu1:5022:5382 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistration"]
    evidence = read_lines(lines, "job/gpu1/train.log", Clock(), root="job")
    assert not any(e.kind in ("nccl_error", "ib_completion_error") for e in evidence)
    assert job({"gpu1/train.log": lines}) == []
    incidents = job({"gpu1/train.log": lines + [timeout(0), timeout(1)]})
    assert incidents and not any(i.category == "fabric" for i in incidents)
    port = "gpu1:5021:5386 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port error"
    assert any(i.category == "fabric" for i in job({"gpu1/train.log": lines + [port, timeout(0), timeout(1)]}))


def test_the_earliest_failure_that_is_not_a_consequence_wins():
    incidents = job({
        "rank-5.log": ["[2025-03-21 01:57:00,000] something before",
                       "Traceback (most recent call last):",
                       "IndexError: list index out of range"],
        "rank-0.log": [timeout(0)],
        "rank-1.log": [timeout(1)],
    })
    first = incidents[0]
    assert (first.category, first.root.rank, first.root.kind) == ("application", 5, "exception")


def test_a_cuda_error_chained_after_another_is_no_root():
    """SYNTHETIC: rank 0's illegal memory access, then, raised while handling it, "unknown error" (alone, a device
    fault: hardware): chained, it is the first's consequence; the root is the first, the program's."""
    tb = "[rank0]: Traceback (most recent call last):"
    incidents = job({"rank-0.log": [
        "[2025-03-21 01:57:00,000] step 10", tb, '[rank0]:   File "train.py", line 10, in <module>',
        "[rank0]: RuntimeError: CUDA error: an illegal memory access was encountered", "[rank0]: ",
        "[rank0]: During handling of the above exception, another exception occurred:", "[rank0]: ", tb,
        '[rank0]:   File "train.py", line 12, in <module>', "[rank0]: RuntimeError: CUDA error: unknown error"]})
    first = incidents[0]
    assert (first.category, first.rule, first.root.kind, first.root.rank) == ("application", "first_failure",
                                                                              "cuda_error", 0)
    assert len(incidents) == 1
    # alone, the same "unknown error" is the device's fault
    alone = job({"rank-0.log": ["[2025-03-21 01:57:00,000] step 10", tb, "[rank0]: RuntimeError: CUDA error: "
                                "unknown error"]})
    assert (alone[0].category, alone[0].rule) == ("hardware", "node_fault")


@pytest.mark.parametrize("line, exception", [
    # CuPy's enum name (yusuketomoto/chainer-char-rnn #20), Marian's number and text (mozilla/translations #1002),
    # TensorFlow's driver API name (tensorflow/tensorflow #41937), ONNX Runtime's CudaCall (microsoft/onnxruntime #14211,
    # its C++ frames between "RuntimeError: " and the status left out)
    ("cupy.cuda.runtime.CUDARuntimeError: cudaErrorUnknown: unknown error", True),
    ("[2025-01-21 16:30:37] Error: CUDA error 999 'unknown error' - /builds/worker/fetches/marian-source/src/tensors/"
     "gpu/algorithm.cu:54: cudaStreamSynchronize(0)", False),
    ("tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: CUDA_ERROR_UNKNOWN: unknown error",
     False),
    ("RuntimeError: CUDA failure 999: unknown error ; GPU=192915439 ; expr=cudaSetDevice(info_.device_id);", True)])
def test_cuda_unknown_error_in_every_frameworks_words_is_the_nodes(line, exception):
    """CUDA's unknown error (999) however a framework prints it is the node's GPU driver, as PyTorch's "CUDA error:
    unknown error" is (one table: parsers.rules.CUDA_ERRORS); a Python exception of it chained after another CUDA
    error, that error's consequence (was: the other frameworks' wordings no fault, or nothing)."""
    alone = job({"rank-0.log": ["[2025-03-21 01:57:00,000] step 10", line]})
    assert (alone[0].category, alone[0].rule) == ("hardware", "node_fault")
    if not exception:
        return
    tb = "Traceback (most recent call last):"
    chained = job({"rank-0.log": [
        "[2025-03-21 01:57:00,000] step 10", tb, '  File "train.py", line 10, in <module>',
        "RuntimeError: CUDA error: an illegal memory access was encountered", "",
        "During handling of the above exception, another exception occurred:", "", tb,
        '  File "train.py", line 12, in <module>', line]})
    assert (chained[0].category, chained[0].rule) == ("application", "first_failure")


def test_nccls_cuda_failure_999_is_the_nodes_and_ggmls_device_the_roots_gpu():
    """NCCL's WARN of CUDA's unknown error (NVIDIA/nccl #1653, REAL) then the communicator's failure is the node's fault,
    as the status is in every other wrapper's words (was: an NCCL warning, the job's failure undetermined); ggml's "current
    device: N" after its CUDA error (ollama/ollama #9247, REAL) is the GPU the incident names (was: none)."""
    nccl = job({"rank-0.log": [
        "[2025-03-21 17:08:30,000] step 10",
        "DESKTOP-1CE5APL:1689:2800 [0] include/alloc.h:112 NCCL WARN Cuda failure 999 'unknown error'",
        "2025-03-21 17:08:31,569 - finetrainers - ERROR - Error during training: NCCL error in: /pytorch/torch/csrc/"
        "distributed/c10d/NCCLUtils.hpp:268, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version "
        "2.21.5"]})
    assert (nccl[0].category, nccl[0].rule, nccl[0].root.kind) == ("hardware", "node_fault", "cuda_error")
    ggml = job({"rank-0.log": [
        "Error: an error was encountered while running the model: CUDA error: unspecified launch failure",
        "  current device: 0, in function ggml_backend_cuda_synchronize at llama/ggml-cuda/ggml-cuda.cu:2317",
        "  cudaStreamSynchronize(cuda_ctx->stream())"]})
    assert (ggml[0].root.kind, ggml[0].root.gpu) == ("cuda_error", 0)


def test_lagging_rank_from_the_communicator_size():
    """Four ranks in the communicator, three report the timeout: the fourth never reached the collective."""
    comm = [f"node-a:100{r}:200{r} [{r}] NCCL INFO comm 0x9bbaa8{r} rank {r} nranks 4 cudaDev {r} busId 4800{r} - "
            "Init COMPLETE" for r in range(4)]
    incidents = job({"launcher.log": comm + [timeout(0), timeout(1), timeout(2)]})
    first = incidents[0]
    assert (first.category, first.rule, first.root.rank) == ("undetermined", "lagging_rank", 3)
    assert "rank 3 never reached it" in first.consequences


def test_a_communicator_size_no_job_has_costs_no_more_than_the_ranks_it_names():
    """(the line of test_lagging_rank_from_the_communicator_size, its count made corrupt) a communicator of
    "nranks 99999999999" (a corrupt or hostile line) is read in bounded memory: the lagging-rank rule counts the ranks
    that reported no timeout before it lists any (was: a set of every rank of the count built, MemoryError escaping
    attribute). Run in a child process whose address space is 512 MiB above its start, so that the unbounded form
    fails there, not on the host; a count that fits still names its lagging rank."""
    done = in_512_mib(
        "from triage import Clock, attribute, read_lines\n"
        "def timeout(r):\n"
        "    return (f'[rank{r}]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught '\n"
        "            'collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, '\n"
        "            'NumelOut=466119168, Timeout(ms)=600000) ran for 600060 milliseconds before timing out.')\n"
        "for n in ('99999999999', '4'):\n"
        "    comm = [f'node-a:100{r}:200{r} [{r}] NCCL INFO comm 0x9bbaa8{r} rank {r} nranks {n} cudaDev {r} '\n"
        "            f'busId 4800{r} - Init COMPLETE' for r in range(4)]\n"
        "    first = attribute(read_lines(comm + [timeout(0), timeout(1), timeout(2)], 'x.log', Clock()))[0]\n"
        "    print(first.rule, first.root.rank)\n")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].split()[0] != "lagging_rank" and lines[1] == "lagging_rank 3", done.stdout


def test_lagging_rank_from_last_enqueued_work():
    incidents = job({"launcher.log": [progress(0, 1580, 1582, 1579), progress(1, 1580, 1582, 1579),
                                      progress(2, 1577, 1577, 1576)]})
    assert (incidents[0].rule, incidents[0].root.rank) == ("lagging_rank", 2)


# lsdefine/simple_GRPO #46 (PyTorch 2.6's flight recorder): rank 5 dumps at rank 2's request, all it enqueued done
DUMP_5 = ("[rank5]:[E723 01:58:45.667329643 ProcessGroupNCCL.cpp:1743] [PG ID 0 PG GUID 0(default_pg) Rank 5] Received "
          "a dump signal due to a collective timeout from  rank 2 and we will try our best to dump the debug info. Last "
          "enqueued NCCL work: 136, last completed NCCL work: 136.This is most likely caused by incorrect usages of "
          "collectives, e.g., wrong sizes used across ranks, the order of collectives is not same for all ranks or the "
          "scheduled collective, for some reason, didn't run. Additionally, this can be caused by GIL deadlock or other "
          "reasons such as network errors or bugs in the communications library (e.g. NCCL), etc. ")


def watchdog_26(rank: int, pg: int, seq: int) -> str:
    """PyTorch 2.6's progress line (the wording of ecmwf/WeatherGenerator #433)."""
    return (f"[rank{rank}]:[E723 01:58:44.186106643 ProcessGroupNCCL.cpp:2168] [PG ID {pg} PG GUID {pg}"
            f"{'(default_pg)' if pg == 0 else ''} Rank {rank}]  failure detected by watchdog at work sequence id: {seq} "
            f"PG status: last enqueued work: {seq}, last completed work: {seq - 1}")


def test_a_rank_the_flight_recorder_found_behind_is_the_lagging_rank():
    """Rank 2 times out in work 137 of process group 0; rank 5, told to dump, had enqueued only up to 136 there."""
    first = job({"train.log": [watchdog_26(2, 0, 137), DUMP_5]})[0]
    assert (first.category, first.rule, first.root.rank) == ("undetermined", "lagging_rank", 5)
    assert "process group 0" in first.reason


@pytest.mark.parametrize("lines", [
    [watchdog_26(2, 0, 136), DUMP_5],  # rank 5 enqueued the work rank 2 waits in: it reached the collective
    [watchdog_26(2, 1, 2847), DUMP_5],  # the timeout is process group 1's: group 0's numbers say nothing of it
])
def test_a_dump_line_blames_no_rank_that_reached_the_work(lines):
    assert job({"train.log": lines})[0].rule != "lagging_rank"


def test_same_work_everywhere_is_undetermined():
    incidents = job({"launcher.log": [progress(r, 1580, 1582, 1579) for r in range(4)]})
    assert (incidents[0].category, incidents[0].root.rank) == ("undetermined", None)


# torchrun's summary of a job whose every rank got SIGABRT in the same second (open-mmlab/mmsegmentation #3106, the
# reporter's paste up to the Root Cause row's error_file line, where the excerpt stops): the "Failures:" rows first,
# the "Root Cause (first observed failure)" row last
SAME_SECOND_SIGABRT = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "========================================================", "tools/train.py FAILED",
    "--------------------------------------------------------", "Failures:",
    "[1]:", "  time      : 2023-06-14_22:36:10", "  host      : neptun.informatik.uni-kl.de",
    "  rank      : 1 (local_rank: 1)", "  exitcode  : -6 (pid: 2385923)", "  error_file: <N/A>",
    "  traceback : Signal 6 (SIGABRT) received by PID 2385923",
    "[2]:", "  time      : 2023-06-14_22:36:10", "  host      : neptun.informatik.uni-kl.de",
    "  rank      : 2 (local_rank: 2)", "  exitcode  : -6 (pid: 2385924)", "  error_file: <N/A>",
    "  traceback : Signal 6 (SIGABRT) received by PID 2385924",
    "--------------------------------------------------------", "Root Cause (first observed failure):",
    "[0]:", "  time      : 2023-06-14_22:36:10", "  host      : neptun.informatik.uni-kl.de",
    "  rank      : 0 (local_rank: 0)", "  exitcode  : -6 (pid: 2385922)", "  error_file: <N/A>"]


def test_a_rank_is_never_a_consequence_of_itself():
    """REAL: every rank's SIGABRT in one second is undetermined; the first named is the row torchrun calls the root
    cause (rank 0), and the consequences list only the others. Before: the first "Failures:" row (rank 1) was named
    first and every rank, rank 1 too, "exited after it" (rank 7 likewise, reported of huggingface/picotron_tutorial
    #6's summary, whose log this test does not hold).
    The same for a rank's own exit after its own store error (horovod/horovod #2015): it is no consequence of it."""
    (incident,) = attribute(read_lines(SAME_SECOND_SIGABRT, "train.log", Clock()))
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "undetermined", None)
    assert "the first exit (signal 6) on rank 0 on neptun" in incident.reason
    assert incident.consequences == "2 ranks (1,2) exited after it"
    (incident,) = attribute(read_lines((INCIDENT_LOGS / "horovod-2015-gloo-rendezvous" / "logs" / "trial.log")
                                       .read_text().splitlines(), "trial.log", Clock()))
    assert (incident.evidence[0].rank, incident.consequences) == (1, "no other rank reported a failure")


def test_ib_errors_point_at_the_peer_host():
    """Node a's NCCL names peer 10.0.0.2; node b's own NCCL INFO line says that address is node b (line formats of
    NVIDIA/nccl-tests #244 and NVIDIA/nccl #1405)."""
    incidents = job({
        "node-a/train.log": ["node-a:3468:3468 [4] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
                             "node-a:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
                             "10.0.0.2<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv)"],
        "node-b/train.log": ["node-b:5521:5521 [4] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>"],
    })
    first = incidents[0]
    assert (first.category, first.rule, first.root.host) == ("fabric", "peer_error", "node-b")


@pytest.mark.parametrize("status,category", [(5, "undetermined"), (12, "fabric")])
def test_a_flushed_completion_names_the_peer_but_is_no_link_failure(status, category):
    """IBV_WC_WR_FLUSH_ERR (5): the request was flushed because the connection was already broken (areal-project/AReaL
    #3: "either a network issue ... or the peer process ... has exited"); IBV_WC_RETRY_EXC_ERR (12): the transport's
    retries to the peer ran out, the link (NVIDIA/nccl #1405).  Either way the peer is the suspect; only the second
    says the fabric."""
    line = (f"(model_worker/12 pid=43581, ip=10.208.16.54) NET/IB : Got completion from peer 10.10.11.9<51354> with "
            f"status={status} opcode=0 len=0 vendor err 249 (Recv)")
    first = job({"train.log": [line]})[0]
    assert (first.category, first.rule) == (category, "peer_error")
    assert "10.10.11.9" in first.reason


def test_a_peer_gone_away_is_the_root_host_not_the_reporter():
    """Undetermined remote errors point at the peer: its address when NCCL's lines do not map it (AReaL #3), the job's
    host when the peer is that host's fully qualified name (NVIDIA/nccl #795's line)."""
    flushed = job({"train.log": ["(model_worker/12 pid=43581, ip=10.208.16.54) NET/IB : Got completion from peer "
                                 "10.10.11.9<51354> with status=5 opcode=0 len=0 vendor err 249 (Recv)"]})[0]
    assert (flushed.rule, flushed.root.host) == ("peer_error", "10.10.11.9")
    closed = job({"train.log": [
        "node-b:17:17 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>",
        "node-a:183006:183181 [1] misc/socket.cc:538 NCCL WARN Net : Connection closed by remote peer "
        "node-b.cluster-92732890.pcluster<47861>"]})[0]
    assert (closed.category, closed.root.host) == ("undetermined", "node-b")


def test_a_host_a_line_names_by_its_address_is_the_host_nccl_says_has_it():
    """Ray's GCS names the node it lost by its IP (ray-project/ray #22349's line); node-b's own NCCL INFO line (line
    format of NVIDIA/nccl-tests #244, SYNTHETIC address) says that address is node-b: the root is node-b, the address
    said beside it (before: the root's host was the bare IP, though the job's own lines name its host)."""
    lost = ("2022-02-15 16:53:52,096\tWARNING worker.py:1462 -- The node with node id: "
            "8f205b12643d25d8c1ce57c45527a6c912f3479765096718ad2bf0d3 and ip: 10.128.0.103 has been marked dead because "
            "the detector has missed too many heartbeats from it.")
    first = job({"driver.log": [lost], "node-b/train.log": ["node-b:5521:5521 [4] NCCL INFO Bootstrap : Using "
                                                            "eth0:10.128.0.103<0>"]})[0]
    assert (first.root.kind, first.root.host, first.root.pod) == ("process_lost", "node-b", None)
    assert "node-b (10.128.0.103)" in first.reason
    alone = job({"driver.log": [lost]})[0]
    assert alone.root.host == "10.128.0.103"


def test_a_gloo_peer_that_went_away_is_the_peer_error_and_a_loopback_peer_the_reporters_host():
    """REAL lines (RVC-Project/Retrieval-based-Voice-Conversion-WebUI #1882): Gloo's "Connection closed by peer" and
    "Read error .. Connection reset by peer" gave no finding, so a Gloo job that lost a rank had no failure at all; now
    the peer is the suspect (its host where NCCL's lines, SYNTHETIC here, map its address), and a loopback peer is
    the reporter's own host, never a host named 127.0.0.1."""
    reset = ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:589] Read error [192.168.70.92]:25266: "
             "Connection reset by peer")
    first = job({"node-a/train.log": [reset],
                 "node-b/train.log": ["node-b:5521:5521 [4] NCCL INFO Bootstrap : Using eth0:192.168.70.92<0>"]})[0]
    assert (first.category, first.rule, first.root.kind, first.root.host) == (
        "undetermined", "peer_error", "nccl_remote_error", "node-b")
    closed = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:10895"
    assert job({"node-a/train.log": [closed]})[0].root.host == "node-a"
    assert job({"train.log": [closed]})[0].root.host is None


def test_a_connect_nccl_gave_up_on_names_the_peer():
    """REAL line (devopsrustem/slurmv4 3/5.sh, NCCL 2.27): NCCL's connect to a peer refused until its retries ran out
    was a plain warning naming no one; now a remote error naming the peer, the suspect (its host by NCCL's own line,
    SYNTHETIC address)."""
    line = ("[2026-02-25 16:33:59] tpgds-aihub0006:3996242:3996242 [2] misc/socket.cc:578 NCCL WARN socketPollConnect: "
            "connect to 10.82.101.249<54709> returned Connection refused, exceeded error retry count after 35 attempts")
    first = job({"aihub0006/train.log": [line],
                 "aihub0002/train.log": ["tpgds-aihub0002:5521:5521 [4] NCCL INFO Bootstrap : Using "
                                         "eth0:10.82.101.249<0>"]})[0]
    assert (first.rule, first.root.kind, first.root.host) == ("peer_error", "nccl_remote_error", "tpgds-aihub0002")


def test_nccl_ras_names_the_process_it_declared_dead():
    """REAL lines (NCCL's user guide, troubleshooting/ras, NCCL 2.24+): RAS's report lists the job processes it declared
    dead after "N job process(es) .. considered dead (unreachable via the RAS network)", one a line, by pid and node
    address: each a lost process (was: nothing read, no failure)."""
    lines = ["Errors", "======", "", "DEAD", "  1 job process is considered dead (unreachable via the RAS network)",
             "  Process 3487984 on node 172.16.64.213 managing GPU 5", "",
             "#0-0 (cf264af53edbe986) INCOMPLETE", "  Missing communicator data from 1 rank", "  The missing rank: 21"]
    first = job({"ras.txt": lines})[0]
    assert (first.root.kind, first.root.host) == ("process_lost", "172.16.64.213")
    assert first.evidence[0].pid == 3487984 and first.evidence[0].details["gpus"] == "5"


def test_an_undated_ras_report_beside_the_watchdogs_timeouts_is_said_as_a_death_that_may_have_come_first():
    """REAL lines: RAS's DEAD list as NCCL's user guide prints it (troubleshooting/ras), saved by an operator from
    `ncclras` into a file of its own (no time stamp), and a rank's watchdog timeout (NVIDIA/nccl #1730).  No clock
    orders the two: the verdict stays undetermined (only consequences are dated) but names the process RAS declared
    dead as a failure that may have come first, its line among the evidence (was: dropped, an unexplained death taken
    for the timeout's aftermath)."""
    ras = ["DEAD", "  1 job process is considered dead (unreachable via the RAS network)",
           "  Process 3487984 on node 172.16.64.213 managing GPU 5"]
    timeout = ["[rank118]:[E603 17:48:01.005271823 ProcessGroupNCCL.cpp:632] [Rank 118] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=2398459, OpType=ALLREDUCE, NumelIn=8652160, NumelOut=8652160, "
               "Timeout(ms)=1800000) ran for 1800068 milliseconds before timing out."]
    [first] = job({"rank118.log": timeout, "ras.txt": ras})
    assert (first.category, first.rule, first.root.kind) == ("undetermined", "undetermined", "nccl_timeout")
    assert "could not be placed before or after it and may have come first: NCCL's RAS declared it dead" in \
        first.reason
    assert [(e.kind, e.host, e.pid) for e in first.evidence if e.kind == "process_lost"] == [
        ("process_lost", "172.16.64.213", 3487984)]


def test_nccl_ras_mismatch_names_the_ranks_behind_in_a_job_that_hung():
    """REAL lines: NCCL RAS's report (2.24+) of a communicator whose ranks launched different operation counts lists
    the counts, the most ranks' first, then each outlier count's ranks (NCCL's user guide, troubleshooting/ras at
    NVIDIA/nccl 5067397c: "6 of the 32 ranks are lagging behind the others"); beside a watchdog's timeout (REAL,
    XPixelGroup/BasicSR #737's rank 1) the job hung and the ranks behind are its lagging ranks, on the node RAS names
    (was: nothing read, only consequences).  Alone (no failure: RAS samples collectives in flight, "not a cause for
    concern, as long as the counts increase") no incident.  Ranks ahead of the count most launched are no laggards
    (REAL, NVIDIA/nccl #1911: "rank 12 and rank 13 are not stragglers").  CONSTRUCTED from NCCL's src/ras/
    client_support.cc: a lone rank's count on its own line, 2.26+'s per-type block, a rank that launched none."""
    ras = ["#0-0 (27a079b828ff1a75) MISMATCH", "  Communicator ranks have different collective operation counts",
           "  26 ranks have launched up to operation 6650", "  6 ranks have launched up to operation 6649",
           *(f"  Rank {r} -- GPU {r} managed by process {483072 + r} on node 172.16.64.210" for r in (0, 2, 3, 4, 5, 7))]
    timeout = ["[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, "
               "Timeout(ms)=600000) ran for 600020 milliseconds before timing out."]
    # the job's world unknown: RAS's ranks are its communicator's numbers, no job rank named, the node RAS names kept
    [first] = job({"rank1.log": timeout, "ras.txt": ras})
    assert (first.category, first.rule, first.root.rank, first.root.host) == (
        "undetermined", "lagging_rank", None, "172.16.64.210"), first.reason
    assert first.reason.startswith("6 communicator ranks (0,2,3,4,5,7) had launched operations only up to 6649 while "
                                   "most ranks"), first.reason
    # CONSTRUCTED (NCCL's "comm .. rank N nranks M" init line): a world of 32, as many ranks as the report counts
    # (26 + 6): the communicator is the job's world, its ranks the job's
    world = ["node-1:178:828 [0] NCCL INFO comm 0x55555da97ba0 rank 1 nranks 32 cudaDev 1 busId 1b000 - Init COMPLETE"]
    [whole] = job({"rank1.log": world + timeout, "ras.txt": ras})
    assert (whole.rule, whole.root.rank, whole.root.host) == ("lagging_rank", 0, "172.16.64.210"), whole.reason
    assert whole.reason.startswith("6 ranks (0,2,3,4,5,7) had launched operations only up to 6649"), whole.reason
    assert job({"ras.txt": ras}) == []
    ahead = ["#0-0 (fa93daea854b060b) MISMATCH", "  Communicator ranks have different AllGather operation counts",
             "  30 ranks have launched up to operation 640", "  2 ranks have launched up to operation 641",
             "  Rank 12 -- GPU 4 managed by process 323032 on node 10.137.190.124",
             "  Rank 13 -- GPU 5 managed by process 323033 on node 10.137.190.124"]
    [none] = job({"rank1.log": timeout, "ras.txt": ahead})
    assert (none.rule, none.root.rank) == ("undetermined", None), none.reason
    built = ["  Communicator ranks have different AllReduce operation counts", "  7 ranks have launched up to operation 64",
             "  Rank 7 has launched up to operation 60 -- GPU 3 managed by process 1650386 on node node1", "",
             "  Communicator ranks have different Broadcast operation counts", "  7 ranks have launched up to operation 2",
             "  Rank 3 has not launched any operations -- [process information not found]"]
    [lone] = job({"rank1.log": timeout, "ras.txt": built[:3]})
    assert (lone.rule, lone.root.rank, lone.root.host) == ("lagging_rank", None, "node1"), lone.reason
    assert "communicator rank 7 had launched AllReduce operations only up to 60 while most ranks of its communicator " \
        "had launched up to 64" in lone.reason
    [latest] = job({"rank1.log": timeout, "ras.txt": built})
    assert (latest.root.rank, latest.root.host) == (None, None) and latest.reason.startswith(
        "communicator rank 3 had launched Broadcast operations only up to 0"), latest.reason


def test_nccl_ras_mismatch_ranks_are_the_communicators_its_node_is_the_one_ras_names():
    """A RAS report's ranks are its communicator's (NCCL's user guide, troubleshooting/ras at NVIDIA/nccl 5067397c: a
    32-GPU job split into eight 4-GPU communicators, "Rank 8 -- GPU 0 .. on node 172.16.64.212"): rank 0 of a 4-GPU
    communicator is not the job's rank 0. The lagging ranks' node is the one RAS names, never the host of the job's
    rank of the same number (was: node-a, where the job's rank 0 logged its timeout, taken over RAS's own address).
    CONSTRUCTED: the guide's MISMATCH block as a 4-GPU communicator's report would print it (its rank lines REAL, the
    counts and the identifier made for 4 ranks); REAL: the watchdog timeout of hiyouga/LlamaFactory #7396 (`timeout`)."""
    ras = ["#1-3 (27a079b828ff1a75) MISMATCH", "  Communicator ranks have different collective operation counts",
           "  2 ranks have launched up to operation 6650", "  2 ranks have launched up to operation 6649",
           "  Rank 0 -- GPU 0 managed by process 483072 on node 172.16.64.210",
           "  Rank 2 -- GPU 2 managed by process 483074 on node 172.16.64.210"]
    [first] = job({"node-a/train.log": [timeout(0), timeout(1)], "ras.txt": ras})
    assert (first.rule, first.root.host) == ("lagging_rank", "172.16.64.210"), (first.root, first.reason)
    # its numbers are the communicator's: said so, and no job rank named (was "2 ranks (0,2)", root rank 0)
    assert first.root.rank is None and first.reason.startswith("2 communicator ranks (0,2) had launched"), first.reason


def test_nccl_ras_monitor_names_the_process_it_declared_dead():
    """REAL line (NCCL's user guide, troubleshooting/ras at NVIDIA/nccl 5067397c; tests/fixtures/realworld/
    nccl-ras-2026.yaml): NCCL 2.29's monitoring mode (`ncclras -m`) prints each process RAS declares dead as it
    happens, "[<time>] PEER_DEAD: Process <pid> on node <address> managing GPU <n>": a lost process, its node the
    address (was: nothing read, no failure).  CONSTRUCTED from NCCL's src/ras (rasnet.cc, client_support.cc): the trace
    group's PEER_TIMEOUT_DEAD with its details, the address-only form of a peer RAS no longer knows, and
    PEER_UNRESPONSIVE (no death: silent).  A report's INCOMPLETE list (REAL, NVIDIA/nccl #1762: a process RAS got no
    data from in one query) names no one."""
    real = ["RAS Monitor Mode - watching for peer changes (Ctrl+C to exit)...",
            "================================================================",
            "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1"]
    [first] = job({"ras-monitor.txt": real})
    assert (first.root.kind, first.root.host) == ("process_lost", "172.16.64.245")
    assert first.evidence[0].pid == 1524345 and first.evidence[0].details["gpus"] == "1"
    assert "NCCL's RAS declared it dead" in first.reason
    built = ["[2025-12-19 13:07:06] PEER_UNRESPONSIVE: Process 1524345 on node 172.16.64.245 managing GPU 1 peer not "
             "responding for 5s (connect timeout)",
             "[2025-12-19 13:08:06] PEER_TIMEOUT_DEAD: Process 1524345 on node 172.16.64.245 managing GPUs 0-7 peer "
             "failed to respond for 60s, declaring dead"]
    [timeout] = job({"ras-monitor.txt": built})
    assert (timeout.root.kind, timeout.root.host, timeout.evidence[0].details["gpus"]) == (
        "process_lost", "172.16.64.245", "0-7")
    assert [e.line for e in timeout.evidence] == [2]
    [bare] = job({"ras-monitor.txt": ["[2025-12-19 13:07:07] PEER_DEAD: 172.16.64.245<41023> "]})
    assert (bare.root.kind, bare.root.host, bare.evidence[0].pid) == ("process_lost", "172.16.64.245", None)
    assert job({"ras-monitor.txt": built[:1]}) == []
    incomplete = ["Errors", "======", "", "INCOMPLETE", "  Missing communicator data from 1 job process",
                  "  Process 60004 on node 10.4.109.13 managing GPU 0", "", "#0-0 (b3398875b8b2a063) INCOMPLETE",
                  "  Missing communicator data from 1 rank",
                  "  Rank 1 -- GPU 0 managed by process 60004 on node 10.4.109.13"]
    assert job({"ras.txt": incomplete}) == []


def test_open_mpi_lost_daemon_names_its_node_not_the_launchers():
    """REAL lines: Open MPI's launcher on the daemon it lost, each era's help text.  ORTE 2.x-4.x (kubeflow/mpi-operator
    #152: an MPIJob's launcher after a worker pod crashed) and PRRTE (openpmix/prrte #2694, 2026) name it on their
    "Remote daemon:" line, the launcher's own ("HNP daemon") on the line before; ORTE 1.x (aws/aws-parallelcluster
    #301, its lines indented one space) names it on a "hostname:" line after its opener, a line of spaces between
    them.  The lost node is the suspect (process_lost), its cause undetermined; was: no failure found.  CONSTRUCTED:
    other programs' "Remote daemon:" and a "hostname:" line with no opener before it are none."""
    orte = ["ORTE has lost communication with a remote daemon.", "",
            "  HNP daemon   : [[43015,0],0] on node tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-launcher-gdqv7",
            "  Remote daemon: [[43015,0],20] on node tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-worker-19", "",
            "This is usually due to either a failure of the TCP network"]
    [first] = job({"launcher.log": orte})
    assert (first.category, first.root.kind, first.root.host, first.root.rank) == (
        "undetermined", "process_lost", "tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-worker-19", None)
    assert "Open MPI's launcher lost the connection to its daemon there" in first.reason
    old = ["error: commlib error: got read error (closing \"ip-10-15-20-17.ec2.internal/shepherd_ijs/1\")",
           " --------------------------------------------------------------------------",
           " ORTE has lost communication with its daemon located on node:", " ",
           "   hostname:  ip-10-15-20-17.ec2.internal", " ",
           " This is usually due to either a failure of the TCP network"]
    [first] = job({"job.log": old})
    assert (first.root.kind, first.root.host) == ("process_lost", "ip-10-15-20-17.ec2.internal")
    assert [e.line for e in first.evidence] == [5]
    assert job({"a.log": ["   hostname:  ip-10-15-20-17.ec2.internal",
                          "- Remote daemon: tcp://192.168.1.100:2375",
                          "Remote daemon: [[1,0],1] on node"]}) == []


def test_open_mpi_with_no_route_to_a_daemon_names_its_node_not_the_launchers():
    """REAL lines (open-mpi/ompi #12359, the incident tests/fixtures/incidents/h575_ompi-12359-orte-no-route): ORTE's
    [no-path] help text names the launcher's node ("my node:", read on) and the node whose daemon it could not reach
    ("target node:"), the suspect (process_lost), its cause undetermined; was: no failure found.  CONSTRUCTED: the
    fields without the opener before them, or its own node alone, name none."""
    block = ["--------------------------------------------------------------------------",
             "ORTE does not know how to route a message to the specified daemon",
             "located on the indicated node:", "", "  my node:   mgmt01", "  target node:  cn21", "",
             "This is usually an internal programming error that should be"]
    [first] = job({"mpirun.log": block})
    assert (first.category, first.root.kind, first.root.host, first.root.rank) == (
        "undetermined", "process_lost", "cn21", None)
    assert "Open MPI's launcher had no route to its daemon there" in first.reason
    assert [e.line for e in first.evidence] == [6]
    assert job({"mpirun.log": block[4:]}) == []
    assert job({"mpirun.log": block[:5]}) == []


def test_a_peer_address_the_cluster_maps_names_its_pod():
    """The cluster's map of pod IPs reaches triage as an address line (kind nccl_address, the pod in details): the
    peer's node and pod are the root's (cluster/book.py; SYNTHETIC map, the real line of NVIDIA/nccl #733)."""
    line = ("task-646--1-mhpnk:91:123 [0] transport/net_ib.cc:881 NCCL WARN NET/IB : Got completion from peer "
            "172.17.127.143<49577> with error 12, opcode 1, len 0, vendor err 129")
    ev = list(read_lines([line], "job/train.log", Clock(), root="job"))
    mapped = ev + [Evidence("nccl_address", "info", host="gpu-node-2", address="172.17.127.143",
                            details={"pod": "train/task-646--0-x2k9q"})]
    first = attribute(mapped)[0]
    assert (first.rule, first.root.host, first.root.pod) == ("peer_error", "gpu-node-2", "train/task-646--0-x2k9q")
    assert first.to_dict()["root"]["pod"] == "train/task-646--0-x2k9q"
    assert attribute(ev)[0].to_dict()["root"]["pod"] is None


def test_the_socket_error_pytorch_quotes_after_last_error_names_the_peer():
    """PyTorch's ncclRemoteError quotes NCCL's last error on a line of its own, without NCCL's "NCCL WARN ": part of
    the exception's one failure (the parsers amend its finding with the peer, rules.EVENT_FILLS), so the failure names
    the peer, the root as NCCL's own line would make it, one line of evidence.  REAL (pytorch/pytorch #150916, the other
    node's processes killed with kill -9)."""
    lines = (Path(__file__).parents[1] / "fixtures/incidents/pytorch-150916-killed-peer/logs/train.log").read_text(
    ).splitlines()
    [first] = job({"train.log": lines})
    assert (first.category, first.rule, first.root.host) == (
        "undetermined", "peer_error", "ip-172-31-45-209.eu-north-1.compute.internal")
    assert [(e.line, e.kind, e.peer) for e in first.evidence] == [
        (1, "nccl_remote_error", "ip-172-31-45-209.eu-north-1.compute.internal")]
    # the peer's short name is a host of the job: that host
    [named] = job({"train.log": ["ip-172-31-45-209:17:17 [0] NCCL INFO Bootstrap : Using ens5:172.31.45.209<0>",
                                 *lines]})
    assert named.root.host == "ip-172-31-45-209"
    # a peer the poster redacted names no host (the amendment's peer read as the line's would be)
    [redacted] = job({"train.log": [*lines[:3], "socketProgress: Connection closed by remote peer xxx.xxx.xxx.xxx<32926>"]})
    assert redacted.root.host is None and [e.peer for e in redacted.evidence] == [None]


def test_a_flushed_completion_naming_no_peer_is_no_fabric_fault():
    flushed = job({"train.log": ["NET/IB : Got completion with error IBV_WC_WR_FLUSH_ERR(5)"]})
    assert flushed[0].category == "undetermined"
    retries = job({"train.log": ["NET/IB : Got completion with error IBV_WC_RETRY_EXC_ERR(12)"]})
    assert (retries[0].category, retries[0].rule) == ("fabric", "fabric_error")


def test_a_lone_flushed_completion_is_never_a_root_by_itself():
    """IBV_WC_WR_FLUSH_ERR (5) is the aftermath of an earlier error on the connection: a consequence (parsers/kinds.py
    ib_completion_error), never fabric (IB_STATUS_CATEGORY).  Alone and naming no peer, no line is the root (only
    consequences); beside a rank's own failure, that failure is the root and the flush one of its consequences.
    REAL lines: areal-project/AReaL #3 (the flush), modelscope/ms-swift #6301 (the OOM, as PREFIXES above)."""
    [alone] = job({"train.log": ["NET/IB : Got completion with error IBV_WC_WR_FLUSH_ERR(5)"]})
    assert (alone.category, alone.rule, alone.root.rank, alone.root.host) == ("undetermined", "undetermined", None,
                                                                             None)
    flush = ("(model_worker/12 pid=43581, ip=10.208.16.54) NET/IB : Got completion from peer 10.10.11.9<51354> with "
             "status=5 opcode=0 len=0 vendor err 249 (Recv)")
    [first] = job({"train.log": ["[rank11]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.35 GiB.",
                                 flush]})
    assert (first.category, first.rule, first.root.kind, first.root.rank) == ("application", "first_failure",
                                                                              "cuda_oom", 11)
    assert [e.kind for e in first.evidence] == ["cuda_oom", "ib_completion_error"]
    assert "naming 10.10.11.9" in first.consequences


@pytest.mark.parametrize("line", [
    # REAL (NVIDIA/nccl #928: "IB error 4 is usually due to ACS being enabled and breaking GPU Direct RDMA protocol")
    "H100-1:9821:9920 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
    "fe80::966d:ae03:8b:df50%ib0<44413> with error 4, opcode 32613, len 32613, vendor err 81 (Send)",
    # NVIDIA/nccl #214's title (NCCL 2.4: no peer named), behind an NCCL prefix of this test's own
    "node-8x-v100-nvlink-1:1:2 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, "
    "len 21938, vendor err 81",
])
def test_a_local_protection_error_is_the_reporting_nodes_not_the_links(line):
    """IBV_WC_LOC_PROT_ERR (4): the reporting node's adapter was refused the memory it registered (GPUDirect RDMA
    through a PCIe switch with ACS enabled): the node's configuration, whichever peer the line names; the root is the
    reporter's host, never the peer."""
    first = job({"train.log": [line]})[0]
    assert first.category == "infrastructure"
    assert first.root.host == line.split(":")[0]
    assert "ACS" in first.reason


def test_a_link_failure_beside_a_local_protection_error_is_still_the_fabric():
    lines = ["node-a:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 4, opcode 0, len 0, "
             "vendor err 81",
             "node-a:1:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 12, opcode 0, len 0, "
             "vendor err 129"]
    assert job({"train.log": lines})[0].category == "fabric"


def test_a_verbs_call_nccl_names_as_failed_is_the_cause_not_a_consequence():
    """NCCL's "Call to <verbs call> failed" returns ncclSystemError to its rank, whose "NCCL Error 2: unhandled system
    error" follows: was a consequence of nothing (undetermined). A buffer the NIC refused to register is its node's
    GPUDirect RDMA set-up (infrastructure, the host named); a queue pair that cannot reach its peer's the fabric."""
    # REAL: https://github.com/modelscope/ms-swift/issues/6107 (two-node Megatron SFT), rank 10's error and NCCL's line
    rank10 = "[rank10]: RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)"
    reg = ("[2025-10-13 10:12:54] iv-ydin754tmoxjd1twgixh:1458548:1480527 [0] misc/ibvwrap.cc:182 NCCL WARN Call to "
           "ibv_reg_mr_iova2 failed with error Invalid argument")
    first = job({"train.log": [rank10, reg]})[0]
    assert (first.category, first.rule, first.root.host) == ("infrastructure", "first_failure", "iv-ydin754tmoxjd1twgixh")
    assert "ibv_reg_mr_iova2 failed (Invalid argument)" in first.reason
    # REAL: the title of https://github.com/NVIDIA/nccl-tests/issues/185 (two DGX H100 nodes), behind an NCCL prefix
    # of this test's own
    qp = "dgx-2:7:9 [3] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable"
    first = job({"train.log": [rank10, qp]})[0]
    assert (first.category, first.root.host) == ("fabric", "dgx-2")
    # the rank's error alone stays a consequence of nothing said
    assert job({"train.log": [rank10]})[0].category == "undetermined"


def test_a_fabric_fault_several_ranks_of_one_host_report_is_the_hosts():
    """REAL lines (NVIDIA/nccl #230): ranks 12, 13 and 14 of one host get the HCA's "local catastrophic error": the
    root is that host (its adapter), not rank 12, the first to print it; one rank's report stays that rank's."""
    stamp = "2019-06-02T16:13:44.888Z: "
    host = "container-e275-1553839402050-12124-01-000057"
    lines = [f"{stamp}[1,{rank}]<stdout>:{host}:{pid}:{tid} [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async "
             "event : local catastrophic error" for rank, pid, tid in ((12, 815, 864), (14, 814, 868), (13, 812, 866))]
    first = job({"job.log": lines})[0]
    assert (first.category, first.rule, first.root.host, first.root.rank) == ("fabric", "fabric_error", host, None)
    assert "reported by its 3 ranks (12,13,14)" in first.reason
    alone = job({"job.log": lines[:1]})[0]
    assert (alone.root.host, alone.root.rank) == (host, 12)


def test_a_rank_that_died_first_is_the_suspect():
    incidents = job({"launcher.log": [
        "[2025-03-21 01:57:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
        "local_rank: 2 (pid: 5939) of binary: /usr/bin/python",
        timeout(0), timeout(1)]})
    first = incidents[0]
    # SIGKILL alone says not who sent it (the OOM killer, a scheduler, the launcher, a user): the rank is the suspect,
    # its cause undetermined, the senders said
    assert (first.category, first.rule, first.root.kind) == ("undetermined", "first_rank_death", "rank_exit")
    assert "SIGKILL comes from the kernel's OOM killer" in first.reason


SIGKILLED = ("[2025-03-21 01:57:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
             "local_rank: 2 (pid: 5939) of binary: /usr/bin/python")


# the kernel's report of one OOM kill on node-a, in the 5.x order (dump_header's "invoked oom-killer", then
# dump_oom_summary's constraint and the kill), shaped as equinor/ert #7797's and leptonai/gpud #70's real lines
def oom_report(constraint: str, message: str) -> list[str]:
    return ["Mar 21 01:56:58 node-a kernel: python invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, "
            "oom_score_adj=0",
            f"Mar 21 01:56:59 node-a kernel: oom-kill:constraint={constraint},nodemask=(null),cpuset=/,mems_allowed=0,"
            "task_memcg=/kubepods.slice/pod1,task=python,pid=5939,uid=0",
            f"Mar 21 01:56:59 node-a kernel: {message}: Killed process 5939 (python) total-vm:123456kB, "
            "anon-rss:120000kB, file-rss:0kB, shmem-rss:0kB, UID:0"]


@pytest.mark.parametrize("files, root_kind, category", [
    # a pod's status (kubectl describe: no stamp, no host) says the kubelet saw it OOMKilled: its container's limit
    ({"launcher.log": [SIGKILLED], "describe.txt": ["      Reason:       OOMKilled"]}, "job_ended", "application"),
    # Slurm's step summary of a cgroup's OOM kill (slurmstepd's wording), printed when the step ended, after the death:
    # the step's own memory limit
    ({"launcher.log": [SIGKILLED, "[2025-03-21 01:58:30,000] slurmstepd: error: Detected 1 oom-kill event in "
                                  "StepId=4242.0. Some of your processes may have been killed by the cgroup "
                                  "out-of-memory handler."]}, "job_ended", "application"),
    # the kernel's OOM kill on the rank's host (the kernel-misc.log format): the node's memory
    ({"node-a/launcher.log": [SIGKILLED],
      "node-a/kern.log": ["Mar 21 01:56:59 node-a kernel: Out of memory: Killed process 5939 (python) "
                          "total-vm:123456kB, anon-rss:120000kB, file-rss:0kB, shmem-rss:0kB, UID:0"]}, "oom_kill",
     "infrastructure"),
    # the same line, a memory cgroup's kill: the container's limit
    ({"node-a/launcher.log": [SIGKILLED],
      "node-a/kern.log": ["Mar 21 01:56:59 node-a kernel: Memory cgroup out of memory: Killed process 5939 (python) "
                          "total-vm:123456kB, anon-rss:120000kB, file-rss:0kB, shmem-rss:0kB, UID:0"]}, "oom_kill",
     "application"),
    # the whole report, read from its "invoked oom-killer" line, which says neither: the lines after it say which
    ({"node-a/launcher.log": [SIGKILLED], "node-a/kern.log": oom_report("CONSTRAINT_MEMCG", "Memory cgroup out of "
                                                                                          "memory")},
     "oom_kill", "application"),
    ({"node-a/launcher.log": [SIGKILLED], "node-a/kern.log": oom_report("CONSTRAINT_NONE", "Out of memory")},
     "oom_kill", "infrastructure"),
    # a report that says neither (only its first line kept): the kind's category, the node's
    ({"node-a/launcher.log": [SIGKILLED], "node-a/kern.log": oom_report("CONSTRAINT_NONE", "Out of memory")[:1]},
     "oom_kill", "infrastructure"),
    # the scheduler's time limit before it: the job's own limit enforced (SLURM_ENDS), the application's
    ({"launcher.log": ["slurmstepd: error: *** STEP 4242.0 ON node-a CANCELLED AT 2025-03-21T01:56:58 DUE TO TIME "
                       "LIMIT ***", SIGKILLED]}, "job_ended", "application"),
])
def test_a_sigkill_is_explained_only_by_a_line_that_says_so(files, root_kind, category):
    """SYNTHETIC jobs in real formats: SIGKILL with evidence of who sent it is rooted at that evidence, its category
    that evidence's: an OOM kill in the job's own memory cgroup (the kernel's CONSTRAINT_MEMCG / "Memory cgroup out of
    memory", Slurm's step cgroup event, a pod's OOMKilled) the application's, the job having used more than it asked
    for; the node's memory running out (CONSTRAINT_NONE / "Out of memory") infrastructure; the job's own time limit
    the application's. Was: every OOM kill infrastructure, and a report read from its "invoked oom-killer" line
    kept nothing its later lines said."""
    first = job(files)[0]
    assert (first.category, first.root.kind) == (category, root_kind), first.reason
    if root_kind == "oom_kill" and category == "application":
        assert "the job used more memory than it asked for" in first.reason


# Slurm's summary of a step's cgroup OOM kills, every wording met, each copied verbatim from its source:
SLURM_OOM_LINES = [
    # "in step" (lanl/PyBNF #118, 2018)
    "slurmstepd: error: Detected 2 oom-kill event(s) in step 3756240.batch cgroup.",
    # StepId= with "cgroup." (ArjunaCluster/ArjunaUsers #52, 2021)
    "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of your processes may have been "
    "killed by the cgroup out-of-memory handler.",
    # without "cgroup" (brain-score/vision #950, 2024)
    "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=37205392.0. Some of your processes may have been killed "
    "by the cgroup out-of-memory handler.",
    # "oom_kill", one event and several (dstndstn/tractor #126, 2025, behind qdo's prefix; snakemake-executor-plugin-slurm
    # #371, 2025, its job id redacted by the poster)
    "qdo-srun.py: srun#64: slurmstepd: error: Detected 1 oom_kill event in StepId=43622791.67. Some of the step tasks "
    "have been OOM Killed.",
    "slurmstepd: error: Detected 2 oom_kill events in StepId=JOBID.13. Some of the step tasks have been OOM Killed.",
]


@pytest.mark.parametrize("line", SLURM_OOM_LINES)
def test_slurms_oom_kill_summary_is_read_in_every_era_and_said_as_out_of_memory(line):
    """REAL lines: Slurm's step summary of a cgroup OOM kill is the job's end by the scheduler for lack of memory, the
    step's own limit: the application's (was: infrastructure). Was: the "event(s)" wordings read as nothing ("No
    failure found"), and the "oom_kill" one said "job ended (cancelled)", as a scancel."""
    first = job({"slurm.out": [line]})[0]
    assert (first.category, first.root.kind) == ("application", "job_ended"), first.reason
    assert first.evidence[0].details["why"] == "OUT OF MEMORY"
    assert "job ended (OUT OF MEMORY)" in first.reason and "cancelled" not in first.reason


# Slurm's own enforcement of the job's --mem (jobacct_gather's poll, no cgroup OOM kill), every wording, REAL lines
# copied verbatim (host: slurmstepd's prefix's node, where it names one)
SLURM_MEM_LIMIT_LINES = [
    # a job, slurmstepd naming its node (bcbio/bcbio-nextgen #2393, 2018)
    ("slurmstepd-dback-c11-n01: error: Job 848444 exceeded memory limit (33715636 > 32757760), being killed",
     "dback-c11-n01"),
    # a step (openbabel/openbabel #2657, 2023)
    ("slurmstepd-falkor7: error: Step 1141810.0 exceeded memory limit (52917772 > 20971520), being killed", "falkor7"),
    # no node, a GPU training job (coqui-ai/STT #2238, 2022); no "error: " (heronsystems/adeptRL #13, 2018)
    ("slurmstepd: error: Job 7518 exceeded memory limit (626359956 > 512000000), being killed", None),
    ("slurmstepd: Job 1171978 exceeded memory limit (18202456 > 16384000), being killed", None),
    # SYNTHETIC, Slurm 20.11+'s "%ps" (src/common/slurm_jobacct_gather.c) and its virtual-memory twin
    ("slurmstepd: error: StepId=4242.0 exceeded memory limit (52917772 > 20971520), being killed", None),
    ("slurmstepd-node-a: error: JobId=4242 exceeded virtual memory limit (52917772 > 20971520), being killed",
     "node-a"),
]


@pytest.mark.parametrize("line, host", SLURM_MEM_LIMIT_LINES)
def test_slurms_memory_limit_kill_is_the_jobs_out_of_memory_on_its_node(line, host):
    """Slurm killing a job or step over the memory it asked for is the job's end for lack of memory, its own limit:
    the application's, on slurmstepd's node. Was: not read: the plain cancel after it "undetermined", srun's "task 0:
    Killed" a SIGKILL nothing explained."""
    first = job({"slurm.out": [line, "slurmstepd: error: *** JOB 4242 ON node-b CANCELLED AT 2023-12-13T08:58:22 ***",
                               "srun: error: node-b: task 0: Killed"]})[0]
    assert (first.category, first.root.kind, first.root.host) == ("application", "job_ended", host), first.reason
    assert first.evidence[0].details["why"] == "OUT OF MEMORY" and "job ended (OUT OF MEMORY)" in first.reason


def test_slurms_memory_limit_words_elsewhere_are_no_kill():
    """Slurm's "Exceeded step memory limit at some point." (the cgroup's peak, printed on jobs that completed:
    chaos/slurm #54, galaxyproject/galaxy #2309, REAL) and another program's "exceeded memory limit" without Slurm's
    "being killed" are no failure; nor is Slurm's own wording of the limit with its keyword "memory limit (" but without
    "being killed" (CONSTRUCTED: the kill's line cut before its last words)."""
    for line in ("slurmstepd: Exceeded step memory limit at some point.",
                 "slurmstepd: error: Exceeded step memory limit at some point. Step may have been partially swapped "
                 "out to disk.",
                 "Worker exceeded memory limit (2048 MB > 1024 MB). Shutting down.",
                 "slurmstepd: error: Job 1 exceeded memory limit (1 > 2)"):
        assert job({"slurm.out": [line]}) == [], line


# srun's own word for tasks that ended in the state OUT_OF_MEMORY, with no oom-kill summary before it: REAL lines,
# verbatim (the task's node; its rank where the line names one task)
SRUN_OOM_LINES = [
    # a kraken training step on a GPU node (FoNDUE-HTR/Documentation #5, 2021: the issue's title)
    ("srun: error: gpu001: task 0: Out Of Memory", "gpu001", 0),
    # Slurm 17 after "Exceeded job memory limit at some point." (pepkit/geofetch #13, 2018)
    ("srun: error: udc-ba26-19: task 0: Out Of Memory", "udc-ba26-19", 0),
    # a 300-task MPI step (NOAA-EMC/global-workflow #1361, 2023); several tasks: no one rank (chrisknewman/tusas #149)
    ("srun: error: h19c54: task 300: Out Of Memory", "h19c54", 300),
    ("srun: error: nid001277: tasks 1-3: Out Of Memory", "nid001277", None),
]


@pytest.mark.parametrize("line, host, rank", SRUN_OOM_LINES)
def test_sruns_out_of_memory_task_is_the_jobs_out_of_memory_on_its_node(line, host, rank):
    """srun's "task N: Out Of Memory" is Slurm's OUT_OF_MEMORY state of the step (slurmstepd sends SIG_OOM as the
    task's status): the job's end for lack of its own memory, the application's, on srun's node and task, with or
    without the oom-kill summary. Was: a rank's death its log "says nothing of": undetermined."""
    first = job({"slurm.out": [line, "srun: Terminating job step 2750598.0"]})[0]
    assert (first.category, first.root.kind, first.root.host, first.root.rank) == \
        ("application", "job_ended", host, rank), first.reason
    assert first.evidence[0].details["why"] == "OUT OF MEMORY" and "job ended (OUT OF MEMORY)" in first.reason


def test_sruns_other_task_ends_stay_rank_exits():
    """srun's other words for a task's end stay a rank's exit (srun_task), read as before: only "Out Of Memory" is
    Slurm's statement of the cause."""
    for how, signal in (("Killed", 9), ("Segmentation fault", 11), ("Bus error", 7), ("Terminated", 15),
                        ("Exited with exit code 1", None)):
        (ev,) = read_lines([f"srun: error: node-a: task 3: {how}"], "slurm.out", Clock())
        assert (ev.kind, ev.details["fact"], ev.rank, ev.signal) == ("rank_exit", "srun_task", 3, signal), how


# Slurm's OOM summary with no node in its prefix, then srun's line for the tasks it killed, naming their node: REAL,
# each block verbatim (chrisknewman/tusas #149, 2023; hafs-community/HAFS #101, 2021; the incidents h539_*)
TUSAS_149 = ["slurmstepd: error: Detected 1 oom_kill event in StepId=440575.0. Some of the step tasks have been OOM "
             "Killed.",
             "srun: error: nid001277: tasks 1-3: Out Of Memory",
             "srun: Terminating StepId=440575.0",
             "slurmstepd: error: *** STEP 440575.0 ON nid001277 CANCELLED AT 2023-12-05T07:16:01 ***"]
HAFS_101 = ["slurmstepd: error: Detected 1 oom-kill event(s) in step 3495064.0 cgroup. Some of your processes may have "
            "been killed by the cgroup out-of-memory handler.",
            "srun: error: Orion-01-01: task 4: Out Of Memory",
            "srun: Terminating job step 3495064.0",
            "slurmstepd: error: *** STEP 3495064.0 ON orion-01-01 CANCELLED AT 2021-10-27T19:35:36 ***"]


def test_slurms_oom_summary_names_the_node_sruns_out_of_memory_line_after_it_names():
    """Was: the root no node ("APPLICATION: no single rank or node"), srun's line naming it read as a consequence only.
    SYNTHETIC variants: srun's lines for two nodes after it (no one node said), srun's line far after it (another
    step's), another way a task ended (not the OOM's): no node, as before."""
    for lines, host, rank in ((TUSAS_149, "nid001277", None), (HAFS_101, "Orion-01-01", 4)):
        first = job({"slurm.out": lines})[0]
        assert (first.category, first.root.kind, first.root.host, first.root.rank) == \
            ("application", "job_ended", host, rank), first.reason
        who = host if rank is None else f"rank {rank} on {host}"  # srun's one task (several: none)
        assert f"job ended (OUT OF MEMORY) on {who}" in first.reason
        assert lines[1] in [e.text for e in first.evidence]  # srun's line among the root's
    two = [TUSAS_149[0], TUSAS_149[1], "srun: error: nid001278: task 5: Out Of Memory"]
    far = [TUSAS_149[0], *["step 440575.0 running"] * 8, TUSAS_149[1]]
    other = [TUSAS_149[0], "srun: error: nid001277: tasks 1-3: Killed"]
    for lines in (two, far, other):
        first = job({"slurm.out": lines})[0]
        assert (first.root.kind, first.root.host) == ("job_ended", None), first.reason

def test_slurms_oom_summary_carries_sruns_node_as_read_and_read_in_parts_waits_for_its_window():
    """The fact itself carries the node (triage.read: the one pairing, offline and live; was triage.attribute's
    `_slurm_oom_nodes` over the job's evidence, which the agent's Events never reached); read in parts (`read_on`, as
    the agent reads a pod's log), it is held until SRUN_LINES lines after it are read, then said once."""
    from triage.read import SRUN_LINES, FileReader

    ended = sorted((e for e in read_lines(TUSAS_149, "slurm.out", Clock()) if e.kind == "job_ended"),
                   key=lambda e: e.line)
    assert [(e.details["fact"], e.host) for e in ended] == [("slurm_oom", "nid001277"), ("srun_task_oom", "nid001277"),
                                                            ("slurm_cancelled", "nid001277")]
    reader = FileReader("pod", Clock())
    oom = lambda evidence: [(e.line, e.host) for e in evidence if e.details.get("fact") == "slurm_oom"]  # noqa: E731
    assert oom(reader.read_on(TUSAS_149[:2])) == []
    assert oom(reader.read_on([*TUSAS_149[2:], *["step 1"] * (SRUN_LINES - 4)])) == []
    assert oom(reader.read_on(["step 2"])) == [(1, "nid001277")]
    assert oom(reader.read_on(["step 3"] * SRUN_LINES)) == []


def test_a_sigkill_after_another_ranks_failure_is_its_consequence():
    """SYNTHETIC: rank 0 raised first; rank 2's SIGKILL a minute later (the launcher tearing the job down) is not the
    root, and an OOM kill on another host explains no death of this one."""
    raised = ["[2025-03-21 01:56:00,000] [rank0]: Traceback (most recent call last):",
              "[2025-03-21 01:56:00,000] [rank0]: ValueError: the batch holds no sample"]
    first = job({"node-a/train.log": raised + [SIGKILLED]})[0]
    assert (first.category, first.root.kind, first.root.rank) == ("application", "exception", 0)
    assert "exited after it" in first.consequences
    # an OOM kill on another host, after the death, is that host's: the SIGKILL stays unexplained
    other = ["Mar 21 01:58:00 node-b kernel: Out of memory: Killed process 7001 (python) total-vm:123456kB, "
             "anon-rss:120000kB, file-rss:0kB, shmem-rss:0kB, UID:0"]
    first = job({"node-a/train.log": [SIGKILLED], "node-b/kern.log": other})[0]
    assert (first.category, first.rule, first.root.host) == ("undetermined", "first_rank_death", "node-a")


SIGBUSED = ("[2025-03-21 01:57:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -7) "
            "local_rank: 2 (pid: 5939) of binary: /usr/bin/python")


def kern(host: str, at: str, message: str) -> str:
    return f"Mar 21 {at} {host} kernel: {message}"


def memory_not_of(pid: int, program: str = "mysqld:4242") -> list[list[str]]:
    """Kernel logs whose memory lines say nothing of process `pid` on node-a: none, another host's naming that pid, a
    corrected error on node-a, the kernel killing another program of node-a."""
    return [
        [],
        [kern("node-b", "01:56:59", f"Memory failure: 0x3710b3: Sending SIGBUS to python:{pid} due to hardware memory "
                                    "corruption")],
        [kern("node-a", "01:56:59", "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0 (channel:1 "
                                    "slot:0 page:0x2031c14 offset:0x940 grain:32 syndrome:0x0)")],
        [kern("node-a", "01:56:59", f"Memory failure: 0x3710b3: Sending SIGBUS to {program} due to hardware memory "
                                    "corruption")],
    ]


# the kernel's lines in the shapes of host-nic-2026c.yaml (5.17's hwpoison, lore 20220513142228.928817865) and
# host-memory-2026d.yaml (x86's page fault on a poisoned page), about the rank's process
HWPOISON_EVENT = ["mce: Uncorrected hardware memory error in user-access at 3710b3400",
                  "Memory failure: 0x3710b3: recovery action for dirty LRU page: Recovered",
                  "Memory failure: 0x3710b3: Sending SIGBUS to python:5939 due to hardware memory corruption",
                  "mce: Memory error not recovered"]


@pytest.mark.parametrize("kernel", [
    # hwpoison's kill of the rank's process, its pid named (5.x-6.x)
    [kern("node-a", "01:56:59", "Memory failure: 0x3710b3: Sending SIGBUS to python:5939 due to hardware memory "
                                "corruption")],
    # 4.x's wording
    [kern("node-a", "01:56:59", "Memory failure: 0x1840200: Killing python:5939 due to hardware memory corruption")],
    # the whole event: the machine check's first line the finding, the SIGBUS line giving it the process
    [kern("node-a", "01:56:59", line) for line in HWPOISON_EVENT],
    # x86's page fault on the poisoned page, a thread of the rank's (its pid not the rank's: its name is one of
    # PyTorch's)
    [kern("node-a", "01:56:59", "MCE: Killing pt_main_thread:5990 due to hardware memory corruption fault at "
                                "7f3a5c000000")],
    # naming no process, consumed on the rank's host a second before it died
    [kern("node-a", "01:56:59", "mce: Uncorrected hardware memory error in user-access at 3710b3400")],
])
def test_a_sigbus_the_kernel_sent_for_the_hosts_memory_is_hardware(kernel):
    """SYNTHETIC jobs in real formats: rank 2 died by SIGBUS (alone, /dev/shm: infrastructure); its host's kernel
    says it sent that SIGBUS for an uncorrected memory error: hardware, the memory error on that host the root."""
    first = job({"node-a/launcher.log": [SIGBUSED, timeout(0), timeout(1)], "node-a/kern.log": kernel})[0]
    assert (first.category, first.root.kind, first.root.host) == ("hardware", "memory_error", "node-a"), first.reason
    assert first.rule == "first_rank_death" and "not /dev/shm" in first.reason
    assert any(e.kind == "rank_exit" and e.signal == 7 for e in first.evidence)


@pytest.mark.parametrize("kernel", [
    # none; another host's; a corrected error on the rank's host; the kernel killed another program of the host
    *memory_not_of(5939),
    # an uncorrected one EDAC counted, no process named, no page the kernel took: in a page no one may use
    [kern("node-a", "01:56:59", "EDAC MC0: 1 UE on mc#0csrow#0channel#0 (csrow:0 channel:0 page:0x79d6c8 offset:0x440 "
                                "grain:64)")],
    # consumed, naming no process, five minutes before the death: another process's
    [kern("node-a", "01:52:00", "mce: Uncorrected hardware memory error in user-access at 3710b3400")],
])
def test_a_sigbus_no_memory_error_of_its_process_explains_stays_dev_shm(kernel):
    """SYNTHETIC: the same death, the node's memory lines saying nothing of its process: infrastructure (/dev/shm)."""
    files = {"node-a/launcher.log": [SIGBUSED, timeout(0), timeout(1)]}
    if kernel:
        files["node-b/kern.log" if "node-b " in kernel[0] else "node-a/kern.log"] = kernel
    first = job(files)[0]
    assert (first.category, first.root.kind) == ("infrastructure", "rank_exit"), first.reason



@pytest.mark.parametrize("kernel_host", ["node-a", "node-a.cluster.local", "NODE-A"])
def test_the_scheduler_and_the_kernel_name_one_node_however_spelt(kernel_host):
    """SYNTHETIC jobs in real formats: Slurm names the node short (`srun: error: <node>: task N: <signal>`, the format
    of desihub/desitarget #628's line above), its kernel log as the journal or an rsyslog keeping FQDNs spells it
    (`node-a.cluster.local`), or in capitals: one node (parsers/envelope.py host_key, as `gpu-npd parse` tells them),
    so the kernel's SIGBUS for the rank's memory error explains the death.  Was: two hosts, the memory error another
    node's, and the death read as /dev/shm (infrastructure)."""
    kernel = [kern(kernel_host, "01:56:59", "Memory failure: 0x3710b3: Sending SIGBUS to python:5939 due to hardware "
                                            "memory corruption")]
    first = job({"launcher.log": ["srun: error: node-a: task 2: Bus error"], "kern.log": kernel})[0]
    assert (first.category, first.rule, first.root.kind) == ("hardware", "first_rank_death", "memory_error"), \
        first.reason
    assert first.root.host == "node-a" and "node-a's kernel" in first.reason  # the shortest spelling: one name
    # REAL (hafs-community/HAFS #101, HAFS_101 above): Slurm itself spells one node `Orion-01-01` (srun) and
    # `orion-01-01` (slurmstepd): one host, as read first (was: two)
    hafs = job({"srun.log": HAFS_101})[0]
    assert {e.host for e in hafs.evidence if e.host} == {"Orion-01-01"}, [e.host for e in hafs.evidence]
    # an address is never cut: 10.0.0.1's kernel is not node 10's
    ip = job({"launcher.log": ["srun: error: 10: task 2: Bus error"],
              "kern.log": [kern("10.0.0.1", "01:56:59", kernel[0].split(" kernel: ")[1])]})[0]
    assert (ip.category, ip.root.kind) == ("infrastructure", "rank_exit"), ip.reason



@pytest.mark.parametrize("kernel_host", ["node-b", "node-b.cluster.local", "NODE-B"])
def test_an_uptime_takes_its_nodes_anchor_however_the_node_is_spelt(kernel_host):
    """SYNTHETIC, the lines of test_node_fault_on_another_node_outranks_the_ranks_claims: node-b's dmesg (pdsh's
    `node-b: ` before it) stamped with uptimes alone, its syslog's anchor naming it as the journal or in capitals:
    one node's boot (triage/clock.py, host_key), so the Xid has its wall time.  Was: no anchor of `node-b`, no time."""
    clock = Clock()
    ev = list(read_lines([ANCHOR.replace("node-b", kernel_host)], "job/kern.log", clock, root="job", year=2025))
    ev += read_lines([f"node-b: {XID79}"], "job/dmesg", clock, root="job", year=2025)
    (xid,) = [e for e in clock.align(ev) if e.kind == "xid"]
    assert (xid.host, xid.time) == ("node-b", datetime(2025, 3, 21, 1, 55, 0, 197860, tzinfo=timezone.utc))


# hwpoison's kill of a page it could not unmap, in the shape of host-memory-2026e.yaml (linux-mm, Jane Chu, 2019-07-24:
# "Memory failure: 0xedbe201: forcibly killing read_poison:22434 because of failure to unmap corrupted page"):
# mm/memory-failure.c kill_procs sends SIGKILL there, not SIGBUS
FORCED = "Memory failure: 0xedbe201: forcibly killing python:5939 because of failure to unmap corrupted page"


@pytest.mark.parametrize("files, want", [
    # rank 2 died by SIGKILL and its host's kernel forcibly killed its pid for the corrupted page: hardware
    ({"node-a/launcher.log": [SIGKILLED, timeout(0), timeout(1)],
      "node-a/kern.log": [kern("node-a", "01:56:59", "mce: Uncorrected hardware memory error in user-access at "
                                                     "edbe201400"), kern("node-a", "01:56:59", FORCED)]},
     ("hardware", "memory_error")),
    ({"node-a/launcher.log": [SIGKILLED, timeout(0), timeout(1)], "node-a/kern.log": [kern("node-a", "01:56:59", FORCED)]},
     ("hardware", "memory_error")),
    # a SIGBUS line about the same pid sent no SIGKILL: the SIGKILL stays unexplained
    ({"node-a/launcher.log": [SIGKILLED, timeout(0), timeout(1)],
      "node-a/kern.log": [kern("node-a", "01:56:59", "Memory failure: 0x3710b3: Sending SIGBUS to python:5939 due to "
                                                     "hardware memory corruption")]},
     ("undetermined", "rank_exit")),
    # a SIGBUS death is not what a SIGKILL line explains: /dev/shm
    ({"node-a/launcher.log": [SIGBUSED, timeout(0), timeout(1)], "node-a/kern.log": [kern("node-a", "01:56:59", FORCED)]},
     ("infrastructure", "rank_exit")),
])
def test_a_sigkill_the_kernel_sent_for_a_page_it_could_not_unmap_is_hardware(files, want):
    """SYNTHETIC jobs in real formats: hwpoison's "forcibly killing <comm>:<pid>" (SIGKILL) naming the rank's pid
    explains its death by SIGKILL (was undetermined: the line was not even read), and only a death by SIGKILL."""
    first = job(files)[0]
    assert (first.category, first.root.kind) == want, first.reason
    if want[0] == "hardware":
        assert first.rule == "first_rank_death" and "sent SIGKILL to python:5939" in first.reason, first.reason


# REAL (https://github.com/hkchengrex/STCN/issues/132): rank 2's DataLoader worker killed by SIGBUS, the rank's own
# exception (torchrun's "[rank2]: " before it); the worker's pid is not the rank's (5939)
WORKER_TB = ["[2025-03-21 01:57:00,000] [rank2]: Traceback (most recent call last):",
             '[2025-03-21 01:57:00,000] [rank2]:   File "train.py", line 10, in <module>',
             "[2025-03-21 01:57:00,000] [rank2]: RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus "
             "error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared "
             "memory limit."]


@pytest.mark.parametrize("kernel", [
    # hwpoison's kill of the worker, its pid named (5.x-6.x), the 4.x wording, the whole event
    [kern("node-a", "01:56:59", "Memory failure: 0x3710b3: Sending SIGBUS to python:46794 due to hardware memory "
                                "corruption")],
    [kern("node-a", "01:56:59", "Memory failure: 0x1840200: Killing python:46794 due to hardware memory corruption")],
    [kern("node-a", "01:56:59", line.replace("python:5939", "python:46794")) for line in HWPOISON_EVENT],
    # x86's page fault on the poisoned page, the worker's pid
    [kern("node-a", "01:56:59", "MCE: Killing pt_data_worker:46794 due to hardware memory corruption fault at "
                                "7f3a5c000000")],
])
def test_a_dataloader_worker_the_kernel_sent_sigbus_for_the_hosts_memory_is_hardware(kernel):
    """SYNTHETIC jobs in real formats: rank 2's DataLoader worker (pid 46794) was killed by SIGBUS and its host's
    kernel says it sent SIGBUS to that very pid for an uncorrected memory error: hardware, the memory error the root
    (was application: the RuntimeError read as any exception, its pid and signal unread)."""
    first = job({"node-a/train.log": WORKER_TB + [timeout(0), timeout(1)], "node-a/kern.log": kernel})[0]
    assert (first.category, first.rule, first.root.kind, first.root.host, first.root.rank) == (
        "hardware", "first_rank_death", "memory_error", "node-a", 2), first.reason
    assert "DataLoader worker (pid 46794)" in first.reason and "not /dev/shm" in first.reason
    assert any(e.kind == "worker_exit" and e.pid == 46794 and e.signal == 7 for e in first.evidence)


@pytest.mark.parametrize("kernel", memory_not_of(46794))
def test_a_dataloader_workers_sigbus_no_memory_error_of_its_pid_explains_is_dev_shm(kernel):
    """SYNTHETIC: the same worker's death, no memory line about its pid on its host: infrastructure (/dev/shm), the
    worker's death the root (was application)."""
    files = {"node-a/train.log": WORKER_TB + [timeout(0), timeout(1)]}
    if kernel:
        files["node-b/kern.log" if "node-b " in kernel[0] else "node-a/kern.log"] = kernel
    first = job(files)[0]
    assert (first.category, first.rule, first.root.kind, first.root.rank) == (
        "infrastructure", "first_rank_death", "worker_exit", 2), first.reason
    assert "/dev/shm" in first.reason


@pytest.mark.parametrize("line, kernel, want", [
    # https://github.com/hezhangsprinter/DCPDN/issues/12: SIGKILL, the host's OOM killer naming the worker's pid
    ("RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.",
     [kern("node-a", "01:56:59", "Out of memory: Killed process 19597 (python) total-vm:123456kB, anon-rss:120000kB, "
                                 "file-rss:0kB, shmem-rss:0kB, UID:0")], ("infrastructure", "oom_kill")),
    # the same, no line says who sent it
    ("RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.", [], ("undetermined", "worker_exit")),
    # https://github.com/MhLiao/DB/issues/94: the worker's own crash
    ("RuntimeError: DataLoader worker (pid 25902) is killed by signal: Segmentation fault", [],
     ("application", "worker_exit")),
])
def test_a_dataloader_workers_death_is_explained_as_a_ranks_death(line, kernel, want):
    """SYNTHETIC in real formats: a worker killed by SIGKILL is what its host's OOM kill says, else undetermined (a
    SIGKILL names no sender); by SIGSEGV the program (all three were an application exception)."""
    files = {"node-a/train.log": [f"[2025-03-21 01:57:00,000] [rank2]: {line}", timeout(0), timeout(1)]}
    if kernel:
        files["node-a/kern.log"] = kernel
    first = job(files)[0]
    assert (first.category, first.root.kind) == want, first.reason


def test_a_dataloader_worker_terminated_is_a_consequence():
    """REAL line (https://github.com/pytorch/pytorch/issues/4507): a worker killed by SIGTERM, the job being torn
    down, after another rank's failure: a consequence, never the root."""
    raised = ["[2025-03-21 01:56:00,000] [rank0]: Traceback (most recent call last):",
              "[2025-03-21 01:56:00,000] [rank0]: ValueError: the batch holds no sample",
              "[2025-03-21 01:55:00,000] [rank1]: RuntimeError: DataLoader worker (pid 23616) is killed by signal: "
              "Terminated."]
    first = job({"node-a/train.log": raised})[0]
    assert (first.category, first.root.kind, first.root.rank) == ("application", "exception", 0), first.reason


def test_a_memory_error_that_killed_a_rank_the_job_maps_is_a_node_fault():
    """SYNTHETIC in real formats: no launcher line says how rank 3 died; NCCL's communicator line maps node-b's pid
    7001 to rank 3, and node-b's kernel says it killed 7001 for an uncorrected memory error: the node's fault, the
    memory error on node-b (rank 3) the root, the others' timeouts its consequences."""
    incidents = job({
        "node-b/train.log": ["node-b:7001:7050 [3] NCCL INFO comm 0x9bbaa80 rank 3 nranks 4 cudaDev 3 busId 48000 - "
                             "Init COMPLETE"],
        "node-b/kern.log": [kern("node-b", "01:56:59", line.replace("python:5939", "python:7001"))
                            for line in HWPOISON_EVENT],
        "node-a/train.log": [timeout(0), timeout(1), timeout(2)],
    })
    first = incidents[0]
    assert (first.category, first.rule, first.root.kind, first.root.host, first.root.rank) == (
        "hardware", "node_fault", "memory_error", "node-b", 3), first.reason
    assert "timed out" in first.consequences


def test_sigterm_from_the_launcher_is_a_consequence():
    e = Evidence(kind="rank_exit", signal=15)
    assert is_consequence(e)


def test_deterministic_whatever_the_order():
    files = {"node-b/kern.log": [ANCHOR], "node-b/dmesg": [XID79], "node-a/train.log": [timeout(0), timeout(1)]}
    clock = Clock()
    ev = []
    for name, lines in files.items():
        ev += read_lines(lines, f"job/{name}", clock, root="job", year=2025)
    ev = clock.align(ev)
    want = to_json(attribute(ev))
    for seed in range(5):
        shuffled = ev[:]
        random.Random(seed).shuffle(shuffled)
        assert to_json(attribute(shuffled)) == want


def test_nothing_failed_nothing_reported():
    assert attribute([]) == []
    assert attribute([Evidence(kind="nccl_address", severity="info", host="a", address="10.0.0.1")]) == []


def test_json_document():
    incidents = job({"node-b/kern.log": [ANCHOR], "node-b/dmesg": [XID79], "node-a/train.log": [timeout(0)]})
    doc = to_json(incidents)
    assert doc["schema"] == SCHEMA == "gpu-npd.triage/v1"
    first = doc["incidents"][0]
    assert set(first) >= {"category", "root", "evidence", "consequences", "rule", "reason", "time"}
    assert set(first["root"]) == {"rank", "host", "gpu", "pci", "device", "kind", "pod"}
    assert {"file", "line", "text", "time"} <= set(first["evidence"][0])
    assert first["category"] in CATEGORIES


def test_rules_are_a_table():
    assert [r[0] for r in sorted(RULES, key=lambda r: r[1])] == [
        "node_fault", "contained_fabric", "first_failure", "mismatched_collective", "peer_error", "fabric_error",
        "lagging_rank", "store_lost", "leader_lost", "undetermined"]


def test_node_faults_are_the_device_faults_and_the_driver_modules():
    """NODE_FAULT_KINDS comes from the kind table (a device, an error by default) plus the driver modules' kinds:
    these and no other kind of the table make a node fault; a GPU reset (a notice) never does."""
    from parsers.kinds import TABLE
    from triage import is_node_fault
    faults = {k.name for k in TABLE
              if is_node_fault(Evidence(k.name, "error", "unknown", None, "n", details={"state": "down"}))}
    # driver_mismatch: the node's kernel log says its driver cannot drive the GPU (infrastructure, about a device);
    # driver_unusable: a rank's own NVML / CUDA refusing the node's driver at start, a fault of the rank's node;
    # parallel_fs_error: the node's Lustre client evicted (its own condition, StorageUnhealthy): every I/O of the job's
    # ranks there to that target failed (a GPFS node out of its cluster, its file systems unmounted, likewise);
    # nfs_error: an NFS soft mount's RPC timed out (an error, StorageUnhealthy): the I/O that issued it failed
    # imex_error: the node's IMEX daemon failed the job's multi-node NVLink memory export or import (or never started)
    # storage_oops: an oops in the node's shared filesystem client (StorageUnhealthy): its mount broken, the job's I/O
    # there hung or failed
    # nvlink_fabric: (h507) the NVLink fabric's word on a GPU (nvidia-smi -q's Fabric block, NVML's fabric rows): its
    # registration failed or its health Unhealthy, the GPU's NVLinks out of the job's reach
    # dcgm_diag: (h644) `dcgmi diag`'s table saved beside the job's logs: a test failed on the node's GPU
    # cpu_fault: (h694) the node's BMC logged a processor's IERR, thermal trip or failed start-up: the node hung, was
    # reset or cut off under the job
    assert faults == {"xid", "sxid", "fallen_off_bus", "gpu_reset_required", "nvlink", "pcie_aer", "kernel_oops",
                      "ib_link", "nic_error", "peermem_error", "imex_error", "driver_mismatch", "driver_unusable",
                      "parallel_fs_error", "nfs_error", "kernel_panic", "storage_oops", "nvlink_fabric",
                      "dcgm_diag", "cpu_fault"}
    # a Lustre connection lost (a warning: the client waits and reconnects) is no node fault, nor a hard mount's NFS
    # server "still trying" (a warning: the I/O waits)
    assert not is_node_fault(Evidence("parallel_fs_error", "warning", "unknown", None, "n"))
    assert not is_node_fault(Evidence("nfs_error", "warning", "unknown", None, "n"))
    # nor a storage client's WARN trace (a warning: the kernel went on)
    assert not is_node_fault(Evidence("storage_oops", "warning", "driver", None, "n"))
    assert not is_node_fault(Evidence("gpu_reset", "info", "driver", None, "n", pci="0000:5d:00"))
    # a host OOM kill and a hung task are infrastructure too, but no device's fault: the job's failure, not the node's
    assert not is_node_fault(Evidence("oom_kill", "error", "application", None, "n"))
    assert not is_node_fault(Evidence("hung_task", "error", "unknown", None, "n"))


# Real lines (tests/fixtures/realworld/driver-jobs-2026c.yaml): NVIDIA/k8s-device-plugin #1431, mozilla/translations
# #1167, huggingface/huggingface_hub #4134
NVML_MISMATCH = "Failed to initialize NVML: Driver/library version mismatch"
CUDA_802 = ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
            "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized")


def test_ranks_that_cannot_use_their_nodes_driver_name_that_node():
    """SYNTHETIC job around real lines: node-b's ranks print NVML's version mismatch at start (its driver upgraded
    without a reload), rank 2 then raises an exception of its own and node-a's ranks time out: the root is node-b's
    driver (infrastructure, node_fault), not the application's exception nor undetermined timeouts."""
    incidents = job({
        "node-a/train.log": [timeout(0), timeout(1)],
        "node-b/train.log": [f"[rank2]: {NVML_MISMATCH}", f"[rank3]: {NVML_MISMATCH}",
                             "[rank2]: Traceback (most recent call last):",
                             "[rank2]: ValueError: too many values to unpack (expected 2)"],
    })
    first = incidents[0]
    assert (first.category, first.rule, first.root.host, first.root.kind) == ("infrastructure", "node_fault",
                                                                              "node-b", "driver_unusable")
    assert "GPU driver unusable ('Driver/library version mismatch')" in first.reason
    assert "an infrastructure fault" in first.reason


# REAL (tests/fixtures/realworld/jobs-nvls-2026p.yaml: pytorch/pytorch PR #177472): NCCL 2.29's words on an H100 node
# whose NVSwitch fabric could not serve the NVLink SHARP multicast team
NVLS_401 = ("Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot "
            "be performed in the present state'. ")


def test_a_rank_refused_nvls_multicast_names_its_node():
    """SYNTHETIC job around a real line: node-b's rank cannot bind NVLS multicast memory (its Fabric Manager /
    NVSwitches), node-a's ranks then time out: the root is node-b's fabric seen by the job (node_fault,
    driver_unusable, attribution fabric), not a GPU hardware fault (before: the generic nvlink row's)."""
    incidents = job({
        "node-a/train.log": [timeout(0), timeout(1)],
        "node-b/train.log": [NVLS_401],
    })
    first = incidents[0]
    assert (first.category, first.rule, first.root.host, first.root.kind) == ("infrastructure", "node_fault",
                                                                              "node-b", "driver_unusable")
    assert not any(i.root.kind == "nvlink" for i in incidents)


# REAL (tests/fixtures/realworld/nvidia-smi-2026k.yaml: GoogleCloudPlatform/compute-gpu-installation PR #18): nvidia-smi
# where it reaches no driver, and its words where it lists no GPU
NVSMI_NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
                   "latest NVIDIA driver is installed and running.")


@pytest.mark.parametrize("said", [NVSMI_NO_DRIVER, "No devices were found"])
def test_nvidia_smi_in_a_container_without_a_gpu_blames_no_node(said):
    """SYNTHETIC job around real lines: node-c's pod (a launcher or data pod that requested no GPU, on a CPU node or
    under NVIDIA_VISIBLE_DEVICES=none / void) runs nvidia-smi by habit at start and prints its words for no driver
    reachable or no GPU listed, as it does on a healthy node; rank 2 on node-b then raises an exception of its own and
    node-a's ranks time out. A container given GPUs gets them through the NVIDIA runtime's hook or CDI, which refuse it
    when the driver is not loaded (container_cli_error: a node fault already), and a GPU whose init failed is the kernel
    log's: nvidia-smi's lines alone name no broken node. The root is rank 2's exception (was: node-c's driver,
    node_fault, outranking it)."""
    incidents = job({
        "node-c/launcher.log": [said],
        "node-a/train.log": [timeout(0), timeout(1)],
        "node-b/train.log": ["[rank2]: Traceback (most recent call last):",
                             "[rank2]: ValueError: too many values to unpack (expected 2)"],
    })
    first = incidents[0]
    assert first.rule != "node_fault" and first.root.kind != "driver_unusable", (first.rule, first.reason)
    assert (first.root.host, first.root.rank) == ("node-b", 2), first.reason
    # the same words are still read (the pod's Event says them), as no fault of a node
    from triage import is_node_fault
    found = list(read_lines([said], "job/node-c/launcher.log", Clock(), root="job", year=2025))
    assert [e.kind for e in found] == ["driver_unusable"] and not is_node_fault(found[0])
    # NVML's own refusal at init in a container given GPUs (its device cgroup lost) stays the node's
    assert is_node_fault(Evidence("driver_unusable", "error", "driver", None, "n",
                                  details={"driver_error": "Failed to initialize NVML: Unknown Error"}))


# REAL (tests/fixtures/realworld/workload-serving-2026g.yaml: SeldonIO/seldon-core #4887, the typo its paste holds):
# Triton started in a container given no GPU: the NGC entrypoint's notice, Triton's pinned memory pool off for CUDA's 35
TRITON_NO_GPU = ["WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.",
                 "W0605 06:26:38.147148 1 pinned_memory_manager.cc:236] Unable to allocate pinned system memory, pinned "
                 "memory pool will not bble: CUDA driver version is insufficient for CUDA runtime version"]


def test_tritons_pinned_memory_notice_blames_no_node():
    """Triton's pod given no GPU says its pinned memory pool is off (CUDA's 35, what the runtime says with no driver in
    the container) and serves on: no node's fault, no infrastructure root (was: the node's driver, node_fault); a
    model's load failing for 35 stays the node's driver."""
    from triage import is_node_fault
    found = list(read_lines(TRITON_NO_GPU, "job/node-c/triton.log", Clock(), root="job", year=2025))
    assert [(e.kind, e.severity) for e in found] == [("gpu_access_lost", "warning"), ("driver_unusable", "warning")]
    assert not any(map(is_node_fault, found))
    incidents = job({"node-c/triton.log": TRITON_NO_GPU})
    assert all(i.rule != "node_fault" and i.category != "infrastructure" for i in incidents), incidents
    # REAL (triton-inference-server/server #4345): a model's load failing for 35
    load = ("E0506 10:59:05.932885 1 model_repository_manager.cc:1234] failed to load 'densenet_onnx' version 1: "
            "Internal: onnx runtime error 1: /workspace/onnxruntime/onnxruntime/core/providers/cuda/cuda_call.cc:122 "
            "bool onnxruntime::CudaCall(ERRTYPE, const char*, const char*, ERRTYPE, const char*) [with ERRTYPE = "
            "cudaError; bool THRW = true] /workspace/onnxruntime/onnxruntime/core/providers/cuda/cuda_call.cc:116 bool "
            "onnxruntime::CudaCall(ERRTYPE, const char*, const char*, ERRTYPE, const char*) [with ERRTYPE = cudaError; "
            "bool THRW = true] CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version ; "
            "GPU=32553 ; hostname=8518a28ba867 ; expr=cudaSetDevice(info_.device_id);")
    found = list(read_lines([load], "job/node-c/triton.log", Clock(), root="job", year=2025))
    assert [e.kind for e in found] == ["driver_unusable"] and is_node_fault(found[0])


# Real lines (tests/fixtures/realworld/driver-jobs-2026c.yaml, runtime-2026i.yaml): the kubelet's message for a container
# the NVIDIA container runtime's hook refused, its two lines (NVIDIA/k8s-device-plugin #1431), and the kubelet's Event
# (NVIDIA/nvidia-container-toolkit #173)
HOOK_MESSAGE = ["failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create "
                "failed: unable to start container process: error during container init: error running prestart hook "
                "#0: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'",
                "nvidia-container-cli: initialization error: nvml error: driver/library version mismatch: unknown"]
HOOK_EVENT = ("Warning  Failed     5s (x3 over 19s)  kubelet            Error: failed to create containerd task: failed "
              "to create shim task: OCI runtime create failed: runc create failed: unable to start container process: "
              "error during container init: error running hook #0: error running hook: exit status 1, stdout: , "
              "stderr: nvidia-container-cli.real: initialization error: driver error: failed to process request: "
              "unknown")


def describe_pod(name: str, node: str) -> list[str]:
    """SYNTHETIC `kubectl describe pod` output (kubectl's layout) around the real lines above: a pod whose container the
    runtime's hook refused (waiting RunContainerError, last terminated StartError exit 128, the message's second line
    flush left as kubectl prints it) and the kubelet's Event."""
    return [f"Name:             {name}", "Namespace:        train", "Priority:         0",
            f"Node:             {node}/10.0.0.13", "Start Time:       Thu, 25 Jul 2024 06:00:01 +0000",
            "Labels:           job-name=t", "Status:           Pending", "Containers:", "  main:",
            "    Image:         nvcr.io/nvidia/pytorch:24.07-py3", "    State:          Waiting",
            "      Reason:       RunContainerError", "    Last State:     Terminated", "      Reason:       StartError",
            f"      Message:      {HOOK_MESSAGE[0]}", HOOK_MESSAGE[1], "      Exit Code:    128",
            "    Ready:          False", "    Restart Count:  3", "Events:",
            "  Type     Reason     Age                From               Message",
            "  ----     ------     ----               ----               -------",
            f"  Normal   Scheduled  2m                 default-scheduler  Successfully assigned train/{name} to {node}",
            f"  {HOOK_EVENT}"]


def test_a_described_pod_the_container_runtime_refused_names_its_node():
    """A `kubectl describe pod` of a gang job's pod that never started, dropped beside the other ranks' logs: its
    status message and the kubelet's Event are the node's GPU stack refusing the job (driver_unusable) on the node its
    "Node:" line names, the root of the job whose ranks elsewhere time out. Was: nothing (the hook's lines were no
    rule's), then the message's second line's host read as "nvidia-container-cli" (pdsh's "host: " prefix)."""
    incidents = job({
        "node-a/train.log": [timeout(0), timeout(1)],
        "w-2.describe.txt": describe_pod("w-2", "node-c"),
    })
    first = incidents[0]
    assert (first.category, first.rule, first.root.host, first.root.kind) == ("infrastructure", "node_fault",
                                                                              "node-c", "driver_unusable")
    found = [e for i in incidents for e in i.evidence if e.kind == "driver_unusable"]
    assert {e.host for e in found} == {"node-c"} and len(found) == 2


# REAL (NVIDIA/k8s-device-plugin #373; tests/fixtures/realworld/runtime-2026i.yaml): the hook handed a GPU UUID the node
# no longer has (its VM migrated to another host)
HOOK_373 = ("OCI runtime create failed: container_linux.go:380: starting container process caused: process_linux.go:545: "
            "container init caused: Running hook #0:: error running hook: exit status 1, stdout: , stderr: "
            "nvidia-container-cli: device error: GPU-12345678-1234-1234-1234-1234567890ab: unknown device: unknown")


def test_a_described_pod_handed_a_gpu_its_node_no_longer_has_names_that_node():
    """The device plugin's GPU (by UUID) none the node's NVML lists: the pod never starts, the node's (infrastructure,
    driver_unusable, the UUID said), not the job's. Was: nothing (libnvidia-container's device stage was no rule's)."""
    described = [f"      Message:      {HOOK_373}" if line.startswith("      Message:") else line
                 for line in describe_pod("w-2", "node-c")[:-1] if line != HOOK_MESSAGE[1]]  # no Event row
    incidents = job({"node-a/train.log": [timeout(0), timeout(1)], "w-2.describe.txt": described})
    first = incidents[0]
    assert (first.category, first.rule, first.root.host, first.root.kind) == ("infrastructure", "node_fault",
                                                                              "node-c", "driver_unusable")
    (said,) = [e.details["driver_error"] for e in first.evidence if e.kind == "driver_unusable"]
    assert said == "device error: GPU-12345678-1234-1234-1234-1234567890ab: unknown device"


def test_the_runtime_hooks_name_is_no_host_and_a_description_names_its_own_node_only():
    """The hook's error on a line of its own in a host's directory is that host's; two descriptions in one file each
    name their own node; a "Node:" line outside a description's header (an application's) names nothing."""
    clock = Clock()
    ev = list(read_lines(HOOK_MESSAGE, "job/node-b/docker.log", clock, root="job", year=2024))
    assert [(e.kind, e.host) for e in ev] == [("driver_unusable", "node-b")]
    two = describe_pod("w-2", "node-c") + [""] + describe_pod("w-5", "node-d")
    ev = [e for e in read_lines(two, "job/pods.txt", clock, root="job", year=2024) if e.kind == "driver_unusable"]
    assert [e.host for e in ev] == ["node-c", "node-c", "node-d", "node-d"]
    other = ["Name: resnet50", "Node: gpu-7", HOOK_MESSAGE[1]]  # no "Namespace:": not a description
    ev = list(read_lines(other, "job/app.log", clock, root="job", year=2024))
    assert [(e.kind, e.host) for e in ev] == [("driver_unusable", None)]


# REAL: https://github.com/NVIDIA/gpu-operator/issues/549 (`kubectl describe po` of an operator pod, its Events table
# pasted without the description's header): the scheduler placed it on the node, whose containerd then had no "nvidia"
# runtime
EVENTS_549 = [
    "Events:",
    "  Type     Reason                  Age                   From               Message",
    "  ----     ------                  ----                  ----               -------",
    "  Normal   Scheduled               24m                   default-scheduler  Successfully assigned gpu-operator/"
    "nvidia-dcgm-exporter-bpvks to ip-172-20-45-35.eu-west-1.compute.internal",
    "  Warning  FailedCreatePodSandBox  22m                   kubelet            Failed to create pod sandbox: rpc error: "
    "code = Unavailable desc = connection error: desc = \"transport: Error while dialing dial unix "
    "/run/containerd/containerd.sock: connect: connection refused\"",
    "  Warning  FailedCreatePodSandBox  4m43s (x93 over 24m)  kubelet            Failed to create pod sandbox: rpc error: "
    "code = Unknown desc = failed to get sandbox runtime: no runtime for \"nvidia\" is configured",
]


def test_a_described_pods_events_without_its_header_name_its_node_by_the_scheduled_row():
    """The scheduler's Scheduled row ("Successfully assigned <ns>/<pod> to <node>") names the node of the Events
    after it, as "Node:" does: the runtime with no "nvidia" runtime is that node's (infrastructure, host named). Was:
    no single node.  `kubectl get events`' rows (an AGE first, the object column "pod/<name>": many pods' rows) name
    none (constructed from kubectl's layout of the same Event)."""
    ev = [e for e in read_lines(EVENTS_549, "pods.txt", Clock(), year=2022) if e.kind == "driver_unusable"]
    assert [e.host for e in ev] == ["ip-172-20-45-35.eu-west-1.compute.internal"]
    rows = ["24m         Normal    Scheduled                pod/nvidia-dcgm-exporter-bpvks   Successfully assigned "
            "gpu-operator/nvidia-dcgm-exporter-bpvks to ip-172-20-45-35.eu-west-1.compute.internal",
            "4m43s       Warning   FailedCreatePodSandBox   pod/gpu-feature-discovery-bptk4  Failed to create pod "
            "sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for \"nvidia\" is "
            "configured"]
    ev = [e for e in read_lines(rows, "events.txt", Clock(), year=2022) if e.kind == "driver_unusable"]
    assert [e.host for e in ev] == [None]


def test_a_driver_the_job_cannot_use_on_two_nodes_is_an_incident_each():
    """SYNTHETIC around real lines: Fabric Manager not running on node-c (CUDA 802) and a version mismatch on node-d:
    one incident per node, both infrastructure."""
    incidents = job({"node-c/train.log": [f"[rank0]: {CUDA_802}"], "node-d/train.log": [f"[rank1]: {NVML_MISMATCH}"]})
    assert sorted((i.category, i.root.host) for i in incidents) == [("infrastructure", "node-c"),
                                                                    ("infrastructure", "node-d")]


def test_the_nodes_driver_mismatch_in_its_kernel_log_explains_the_ranks_failures():
    """SYNTHETIC job around a real kernel line (NVRM's API mismatch, saharmor/dalle-playground #104): the node's
    kernel log says its module and the user-space driver differ; the ranks' CUDA errors after it are its
    consequences: the root is the node's driver_mismatch (infrastructure)."""
    incidents = job({
        "node-b/dmesg": ["[ 7386.259769] NVRM: API mismatch: the client has the version 515.48.07, but",
                         "               NVRM: this kernel module has the version 510.73.05.  Please"],
        "node-a/train.log": [timeout(0)],
        "node-b/train.log": ["[rank1]: RuntimeError: CUDA error: unspecified launch failure"],
    })
    first = incidents[0]
    assert (first.category, first.rule, first.root.host, first.root.kind) == ("infrastructure", "node_fault",
                                                                              "node-b", "driver_mismatch")


def test_a_reason_names_a_fault_as_the_kind_table_words_it():
    nvlink = Evidence("nvlink", "error", "hardware", None, "node-b", pci="0000:5d:00")
    timeouts = [Evidence("nccl_timeout", "error", "unknown", None, f"node-{h}", rank=r, seq=7) for r, h in
                enumerate("ab")]
    first = attribute([nvlink, *timeouts])[0]
    assert first.rule == "node_fault" and first.reason.startswith("NVLink error on node-b is a hardware fault")


def test_incident_refuses_an_unknown_category():
    with pytest.raises(ValueError):
        Incident("cosmic-rays", Root(), (), "", "x", "y")


def test_a_rank_killed_after_the_timeouts_is_their_consequence():
    """SYNTHETIC: the watchdog timed out first; the launcher's SIGKILL of a rank after it decides nothing."""
    incidents = job({"launcher.log": [
        timeout(0), timeout(1),
        "[2025-03-21 02:09:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
        "local_rank: 2 (pid: 5939) of binary: /usr/bin/python"]})
    assert incidents[0].category == "undetermined"


def test_host_oom_kill_is_a_failure():
    """SYNTHETIC job: node a's kernel kills a rank for memory (the kernel-misc.log OOM format), rank 1 times out."""
    incidents = job({
        "node-a/kern.log": ["Mar 21 01:58:00 node-a kernel: Out of memory: Killed process 5939 (python) "
                            "total-vm:123456kB, anon-rss:120000kB, file-rss:0kB, shmem-rss:0kB, UID:0"],
        "node-b/train.log": [timeout(1)]})
    assert (incidents[0].category, incidents[0].root.kind, incidents[0].root.host) == ("infrastructure", "oom_kill",
                                                                                     "node-a")


def test_incident_key_is_stable_as_evidence_grows():
    first = job({"node-b/kern.log": [ANCHOR], "node-b/dmesg": [XID79], "node-a/train.log": [timeout(0)]})[0]
    later = job({"node-b/kern.log": [ANCHOR], "node-b/dmesg": [XID79],
                 "node-a/train.log": [timeout(0), timeout(1), timeout(2)]})[0]
    assert first.key == later.key == "hardware/xid/node-b/-/-/0000:5d:00"


@pytest.mark.parametrize("line", [
    "[rank1]:" * 20000,
    "node-1: " * 20000,
    "a." * 40000 + "Errorx",
    "Detected mismatch between collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(OpType=X" +
    "y" * 100000,
    "srun: error: " + "h" * 100000,
    "\x00\xff\ufffd" * 10000,
])
def test_hostile_lines_are_quick(line):
    """SYNTHETIC hostile input: long repeated prefixes, dotted names, unmatched facts; each read in well under a
    second and without an exception (a regex that backtracks would take minutes)."""
    import time
    start = time.process_time()
    list(read_lines(["Traceback (most recent call last):", line, line], "hostile.log", Clock()))
    assert time.process_time() - start < 2.0


def test_sizes_differ_only_within_one_process_group_to_be_a_mismatch():
    """SYNTHETIC: two ranks time out at the same SeqNum of *different* process groups (tensor- and data-parallel
    groups count separately), with different sizes: no conclusion; in the same group: the program's bug."""
    def lines(pg_of_rank_1):
        out = []
        for rank, pg, numel in ((0, 0, 64), (1, pg_of_rank_1, 4096)):
            out.append(f"[rank{rank}]:[E918 19:29:24.436955737 ProcessGroupNCCL.cpp:689] [Rank {rank}] Watchdog caught "
                       f"collective operation timeout: WorkNCCL(SeqNum=7219, OpType=BROADCAST, NumelIn={numel}, "
                       f"NumelOut={numel}, Timeout(ms)=3000000) ran for 3000097 milliseconds before timing out.")
            out.append(f"[rank{rank}]:[E918 19:29:24.440481846 ProcessGroupNCCL.cpp:2303] [PG ID {pg} PG GUID {pg}"
                       f"(default_pg) Rank {rank}]  failure detected by watchdog at work sequence id: 7219 PG status: "
                       f"last enqueued work: 7220, last completed work: 7218")
        return {"launcher.log": out}
    assert job(lines(0))[0].rule == "mismatched_collective"
    assert job(lines(1))[0].rule != "mismatched_collective"


def _group_lines(rank: int, pg: int, seq: int, numel: int = 64, enqueued: int | None = None) -> list[str]:
    """SYNTHETIC lines in the format of the test above: a rank's WorkNCCL timeout (no group named) and its watchdog's
    progress line naming its process group."""
    return [f"[rank{rank}]:[E918 19:29:24.436955737 ProcessGroupNCCL.cpp:689] [Rank {rank}] Watchdog caught "
            f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=BROADCAST, NumelIn={numel}, "
            f"NumelOut={numel}, Timeout(ms)=3000000) ran for 3000097 milliseconds before timing out.",
            f"[rank{rank}]:[E918 19:29:24.440481846 ProcessGroupNCCL.cpp:2303] [PG ID {pg} PG GUID {pg}"
            f"(default_pg) Rank {rank}]  failure detected by watchdog at work sequence id: {seq} PG status: "
            f"last enqueued work: {seq + 1 if enqueued is None else enqueued}, last completed work: {seq - 1}"]


def test_only_what_both_ranks_lines_say_of_their_collective_is_compared():
    """SYNTHETIC evidence, as the cluster reads node agents' timeout Events (cluster/evidence.py): an Event quoting a
    rank's progress line (LlamaFactory #8261's rank 0: "[PG ID 1 PG GUID 1 Rank 0]  failure detected by watchdog at
    work sequence id: 2847", which the parsers read as a timeout naming no operation) beside another rank's listed
    WorkNCCL collective in the same group and SeqNum is no mismatch (live read it as one); a size one side does not
    know (an older agent's Event) differs from none; another operation, or another size both know, is one."""
    def rank(r, op=None, numel=None):
        details = {"pg": "1", **({"numel_in": numel} if numel is not None else {})}
        return Evidence("nccl_timeout", "error", "unknown", None, "node-0", rank=r, seq=2847, op=op, details=details)

    def rule(*evidence):
        return attribute(list(evidence))[0].rule

    assert rule(rank(0), rank(2, "ALLREDUCE", 197140480)) == "undetermined"
    assert rule(rank(0, "ALLREDUCE"), rank(2, "ALLREDUCE", 197140480)) == "undetermined"
    assert rule(rank(0, "BROADCAST"), rank(2, "ALLREDUCE", 197140480)) == "mismatched_collective"
    assert rule(rank(0, "ALLREDUCE", 64), rank(2, "ALLREDUCE", 197140480)) == "mismatched_collective"


def test_a_progress_line_names_its_ranks_group_and_a_timeout_its_size():
    """The shared readers a node agent completes a rank's timed-out collective with (agent/sources/podlogs.py), as
    offline reads the same lines: the group a progress line names for its writer's SeqNum, a WorkNCCL line's size."""
    from triage.read import numel_in, progress_group
    # REAL: hiyouga/LlamaFactory #8261 (a subgroup's tag; the launcher's prefix names the global rank) and
    # modelscope/ms-swift #10183 (the default group), as in tests/fixtures/incidents
    assert progress_group("[rank0]:[E602 11:17:52.399340163 ProcessGroupNCCL.cpp:2268] [PG ID 1 PG GUID 1 Rank 0]  "
                          "failure detected by watchdog at work sequence id: 2847 PG status: last enqueued work: 2855, "
                          "last completed work: 2846") == (0, 2847, "1")
    assert progress_group("2026-09-18 19:29:24 [rank3]:[E918 19:29:24.440481846 ProcessGroupNCCL.cpp:2303] [PG ID 0 "
                          "PG GUID 0(default_pg) Rank 3]  failure detected by watchdog at work sequence id: 7219 PG "
                          "status: last enqueued work: 7220, last completed work: 7218") == (3, 7219, "0")
    # REAL: a GB200 job's rank (NVIDIA/dgxc-benchmarking nemotron4-15b/README.md, tests/fixtures/realworld/nccl-pytorch-3)
    assert progress_group("[rank368]:[E808 04:21:41.161005534 ProcessGroupNCCL.cpp:2299] [PG ID 0 PG GUID 0(default_pg) "
                          "Rank 368]  failure detected by watchdog at work sequence id: 5 PG status: last enqueued work: "
                          "5, last completed work: 4") == (368, 5, "0")
    assert progress_group("[rank2]:[E602 11:17:52.400938004 ProcessGroupNCCL.cpp:670] Stack trace of the failed "
                          "collective not found, potentially because FlightRecorder is disabled.") is None
    assert numel_in("WorkNCCL(SeqNum=7219, OpType=BROADCAST, NumelIn=24084544, NumelOut=24084544, "
                    "Timeout(ms)=3000000)") == 24084544


# REAL: pytorch/pytorch #152623 (a 2.8 nightly's hang, TORCH_NCCL_DESYNC_DEBUG=1): rank 0's timeout, its desync report
# (the report's indented lines as PyTorch prints them) and its progress line
DESYNC_REPORT = [
    "[rank0]:[E515 18:36:47.341808597 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: "
    "WorkNCCL(SeqNum=241, OpType=ALLREDUCE, NumelIn=6, NumelOut=6, Timeout(ms)=600000) ran for 600086 milliseconds "
    "before timing out.",
    "[rank0]:[E515 18:36:47.343377708 ProcessGroupNCCL.cpp:1937] Rank 0",
    "         - [0] Timeout at collective: ALLREDUCE, #315",
    "         - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:",
    "             [7] finished collective #182, but didn't join collective #183 (count from 1)",
    "         - Snapshot of ranks' latest states:",
    "           #182 finished ranks:",
    "             [7] finished ALLREDUCE",
    "           #315 started ranks:",
    "             [0, 1, 2] started ALLREDUCE",
    "           #317 started ranks:",
    "             [3, 4, 5, 6] started _ALLGATHER_BASE",
    "[rank0]:[E515 18:36:47.343391940 ProcessGroupNCCL.cpp:2268] [PG ID 0 PG GUID 0(default_pg) Rank 0]  failure detected "
    "by watchdog at work sequence id: 241 PG status: last enqueued work: 315, last completed work: 183",
]


def test_pytorchs_desync_report_names_the_lagging_rank():
    """PyTorch's own desync report names the rank the others waited for (rank 7 finished collective #182 and never
    joined #183): the lagging rank; before, the report was not read and the job was undetermined with no rank."""
    [incident] = job({"train.log": DESYNC_REPORT})
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "lagging_rank", 7)
    assert "desync report" in incident.reason and "collective #182" in incident.reason
    # SYNTHETIC (TraceUtils.h's other two wordings): ranks stuck in the earliest collective, ranks never traced
    hit = facts.match("             [1, 2] joined but didn't finish collective #182 (count from 1)")
    assert hit is not None and hit[1]["lagging"] == "1, 2" and hit[1]["collective"] == "182"
    hit = facts.match(" - To our best knowledge, ranks [47] are the lagging ranks that caused this timeout. They never "
                      "joined any collectives")
    assert hit is not None and hit[0].name == "desync_lagging" and hit[1]["lagging"] == "47"


def test_process_groups_are_tried_and_said_in_one_order():
    """SYNTHETIC: the rules that read process groups (a mismatched collective, a lagging rank, the consequences'
    sentence) take them in one order, by number: group 2 before group 10 (the first two compared the names as text,
    "10" before "2", the sentence by number)."""
    mismatched = [line for rank, pg, numel in ((0, 10, 64), (1, 10, 4096), (2, 2, 64), (3, 2, 4096))
                  for line in _group_lines(rank, pg, 7219, numel)]
    [incident] = job({"launcher.log": mismatched})
    assert incident.rule == "mismatched_collective" and "process group 2, SeqNum 7219" in incident.reason
    assert incident.consequences.startswith("4 ranks (0,1,2,3) timed out: 2 ranks (2,3) in BROADCAST SeqNum 7219 of "
                                            "process group 2; 2 ranks (0,1)")
    lagging = [line for rank, pg, enqueued in ((0, 10, None), (1, 10, 7218), (2, 2, None), (3, 2, 7218))
               for line in _group_lines(rank, pg, 7219, enqueued=enqueued)]
    [incident] = job({"launcher.log": lagging})
    assert (incident.rule, incident.root.rank) == ("lagging_rank", 3)
    assert "of process group 2" in incident.reason


def test_a_bare_rank_tag_is_the_works_group_rank_and_a_prefix_outranks_it():
    """PyTorch's bare "[Rank N]" (every release's WorkNCCL timeout line; the only tag before 2.2's "[PG n Rank r]") is
    the rank in the process group the work ran in, not always the global rank: pytorch/pytorch #134006 (a subgroup's
    all_gather times out) shows global rank 1 printing "[rank1]:[E820 11:47:24.169946254 ProcessGroupNCCL.cpp:607]
    [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType" (the excerpt kept ends there).
    A launcher's prefix names the global rank and wins; with no prefix and no "[PG ...]" tag the bare rank is read as
    the global one (a known gap: right for the default group, as in pytorch/pytorch #118369's DeepSpeed job below,
    where the 8 ranks time out in one BROADCAST; wrong for a subgroup's work, which such a log cannot tell apart)."""
    from triage.ranks import in_message
    subgroup = ("[rank1]:[E820 11:47:24.169946254 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=1, OpType")
    origin, rest = strip(subgroup)
    assert origin.rank == 1 and in_message(rest, origin.rank) == (1, None)
    assert in_message(rest) == (0, None)  # without the prefix: the group's rank 0, read as global rank 0 (the gap)
    old = ("[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=880, "
           "OpType=BROADCAST, NumelIn=131137536, NumelOut=131137536, Timeout(ms)=1800000) ran for 1800648 milliseconds "
           "before timing out.")  # pytorch/pytorch #118369 (torch 2.1, DeepSpeed's launcher: no prefix)
    [ev] = [e for e in read_lines([old], "train.log", Clock(), year=2024) if e.kind == "nccl_timeout"]
    assert (ev.rank, ev.seq, ev.details.get("pg")) == (2, 880, None)


def test_only_the_world_communicator_maps_a_process_to_its_rank():
    """SYNTHETIC (line format of modelscope/FunASR #2006): a process is rank 5 of the 8-rank world communicator and
    rank 1 of a 2-rank split one; its NCCL WARN line (host:pid, no rank) is rank 5's."""
    incidents = job({"launcher.log": [
        "node-c:4242:4300 [1] NCCL INFO comm 0x9bbaa80 rank 5 nranks 8 cudaDev 1 busId 48000 - Init COMPLETE",
        "node-c:4242:4301 [1] NCCL INFO comm 0x9bbab90 rank 1 nranks 2 cudaDev 1 busId 48000 - Init COMPLETE",
        "node-c:4242:4310 [1] NCCL WARN NET/IB : Got async event : port error"]})
    assert (incidents[0].root.host, incidents[0].root.rank) == ("node-c", 5)


# --- process groups: only the default group's rank is the global rank (REAL lines) -------------------------------
# pytorch/pytorch #115801 (the "[PG n Rank r]" prefix): "rank0 on PG1 may correspond to rank3 on PG0"
PG_LINES = [
    # https://github.com/hiyouga/LlamaFactory/issues/6953 (2.2-2.3: "[PG 0 Rank r]", the default group)
    ("[rank144]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 144] Heartbeat monitor timed out! Process will be terminated "
     "after dumping debug info. workMetaList_.size()=1", (144, None, None)),
    # https://github.com/pytorch/pytorch/issues/113128 (2.4: "[PG 0 (default_pg) Rank r]")
    ("[default0]:[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 12] Process "
     "group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered",
     (12, None, None)),
    # https://github.com/instructlab/training/pull/520 (2.5+: "[PG ID 0 PG GUID 0(default_pg) Rank r]", no launcher
    # prefix)
    ("  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with exception: "
     "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, "
     "NumelOut=1, Timeout(ms)=1) ran for 90 milliseconds before timing out.", (3, None, None)),
    # https://github.com/sgl-project/sglang/issues/1693 (a subgroup, no launcher prefix: the WorkNCCL's "[Rank 5]"
    # is group 3's too)
    ("  what():  [PG 3 Rank 5] Process group watchdog thread terminated with exception: [Rank 5] Watchdog caught "
     "collective operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, NumelIn=19008, NumelOut=152064, "
     "Timeout(ms)=600000) ran for 600020 milliseconds before timing out.", (None, "3", 5)),
    # https://github.com/areal-project/AReaL/issues/3 (group 134's rank 1 is torch's global rank 12)
    ("(model_worker/12 pid=43581, ip=10.208.16.54) [rank12]:[E227 06:13:07.855233166 ProcessGroupNCCL.cpp:1534] "
     "[PG 134 Rank 1] Process group watchdog thread terminated with exception: NCCL error: remote process exited or "
     "there was a network error, NCCL version 2.22.3", (12, "134", 1)),
    # https://github.com/hiyouga/LlamaFactory/issues/8261 (2.5+, a subgroup without a description)
    ("[1788] [rank2]:[E602 11:17:52.400889883 ProcessGroupNCCL.cpp:2268] [PG ID 1 PG GUID 1 Rank 2]  failure detected "
     "by watchdog at work sequence id: 2847 PG status: last enqueued work: 2856, last completed work: 2846",
     (2, "1", 2)),
]


@pytest.mark.parametrize("line,want", PG_LINES)
def test_a_subgroups_rank_is_not_the_global_rank(line, want):
    from parsers.classify import message_rank
    assert message_rank(line) == want
    (ev,) = [e for e in read_lines([line], "job/train.log", Clock(), root="job", year=2025) if e.kind != "rank_seen"]
    glob, group, group_rank = want
    assert ev.rank == glob
    assert (ev.details.get("pg"), ev.details.get("group_rank")) == (group, group_rank)


def test_a_process_groups_description_says_whether_it_is_the_default_one():
    from parsers.classify import default_group
    assert default_group("0") and default_group("0", " (default_pg)") and default_group("0", " PG GUID 0(default_pg)")
    assert not default_group("1") and not default_group("134")
    assert not default_group("1", " PG GUID 1(DATA_PARALLEL_GROUP_WITH_CP)")  # a named subgroup (Megatron's)


# --- the flight recorder's dump lines are no timeouts (REAL lines) -----------------------------------------------

OPENRLHF_1126 = (Path(__file__).parents[1] / "fixtures/incidents/openrlhf-1126-dump/logs/train.log").read_text(
    encoding="utf-8").splitlines()


def test_a_rank_told_to_dump_did_not_time_out():
    """REAL (OpenRLHF/OpenRLHF #1126, its lines 6-9 as tests/fixtures/incidents/openrlhf-1126-dump keeps them): rank 2
    received rank 6's dump signal and prepares its dump; only rank 7's watchdog reports the timeout."""
    incident = job({"train.log": OPENRLHF_1126[5:9]})[0]
    assert incident.consequences.startswith("rank 7 timed out in ALLREDUCE SeqNum 460631")


@pytest.mark.parametrize("line,rank", [
    # REAL: https://github.com/hiyouga/LlamaFactory/issues/6953
    ("[rank144]:[E ProcessGroupNCCL.cpp:1153] [PG 0 Rank 144] ProcessGroupNCCL preparing to dump debug info.", 144),
    # REAL: https://github.com/sgl-project/sglang/issues/10216 (2.5+, the default group with no description)
    ("[rank2]:[E909 08:45:31.916910323 ProcessGroupNCCL.cpp:1589] [PG ID 0 PG GUID 0 Rank 2] ProcessGroupNCCL "
     "preparing to dump debug info. Include stack trace: 1", 2),
])
def test_preparing_to_dump_is_a_dump_notice(line, rank):
    (ev,) = [e for e in read_lines([line], "job/train.log", Clock(), root="job", year=2025) if e.kind != "rank_seen"]
    assert (ev.kind, ev.rank, ev.details["fact"]) == ("nccl_dump", rank, "dump_notice")


# REAL: https://github.com/bytedance/Protenix/issues/321 (tests/fixtures/incidents/protenix-321-observed-dump-signal)
PROTENIX_321 = (Path(__file__).parents[1] / "fixtures/incidents/protenix-321-observed-dump-signal/logs/train.log"
                ).read_text(encoding="utf-8").splitlines()


def test_observed_dump_signal_is_a_dump_notice():
    """REAL (Protenix #321): PyTorch 2.5+'s monitor on a rank whose own watchdog had not fired, told through the store
    that another's had, is heard from: a dump notice, as "preparing to dump debug info" is."""
    (ev,) = [e for e in read_lines(PROTENIX_321[-1:], "job/train.log", Clock(), root="job", year=2025)
             if e.kind != "rank_seen"]
    assert (ev.kind, ev.rank, ev.details["fact"]) == ("nccl_dump", 5, "dump_notice")


def test_a_rank_that_observed_the_dump_signal_is_no_lagging_rank():
    """REAL (Protenix #321): rank 1 timed out, ranks 2 and 5 dumped because of it; rank 5's only line, its monitor's
    "Observed flight recorder dump signal from another rank via TCPStore.", says nothing of where its work stood (was:
    rule lagging_rank, "rank 5 reported no timeout while 2 ranks did: it never reached the collective")."""
    incident = job({"train.log": PROTENIX_321})[0]
    assert (incident.category, incident.root.rank, incident.rule) == ("undetermined", None, "undetermined")
    assert incident.consequences == "rank 1 timed out"


# REAL: https://github.com/om-ai-lab/VLM-R1/issues/294 (tests/fixtures/incidents/vlm-r1-294-ops-failed-first)
VLM_R1_294 = (Path(__file__).parents[1] / "fixtures/incidents/vlm-r1-294-ops-failed-first/logs/train.log"
              ).read_text(encoding="utf-8").splitlines()


def test_a_watchdog_failure_takes_its_collective_from_a_later_line():
    """REAL (VLM-R1 #294): rank 0's failure opens with "Some NCCL operations have failed or timed out" (no
    collective named); its "watchdog thread terminated" line two lines on names WorkNCCL(SeqNum=3106,
    OpType=ALLREDUCE, .., Timeout(ms)=600000): the rank's one piece of evidence carries them (was: "rank 0 timed out",
    the later line's fields dropped with it)."""
    evs = [e for e in read_lines(VLM_R1_294, "job/train.log", Clock(), root="job", year=2025)
           if e.kind == "nccl_timeout"]
    assert (evs[-1].line, evs[-1].rank, evs[-1].seq, evs[-1].op, evs[-1].timeout_ms) == (1, 0, 3106, "ALLREDUCE", 600000)
    assert job({"train.log": VLM_R1_294})[0].consequences == "rank 0 timed out in ALLREDUCE SeqNum 3106"



# --- a process's rank from its other lines (REAL lines) ----------------------------------------------------------

AREAL_3 = (Path(__file__).parents[1] / "fixtures/incidents/areal-3-ib-flush/logs/train.log").read_text(
    encoding="utf-8").splitlines()


def test_a_pid_named_with_a_rank_names_it_on_its_other_lines():
    """REAL (areal-project/AReaL #3, as tests/fixtures/incidents/areal-3-ib-flush keeps it): Ray's prefix of pid 43581
    on 10.208.16.54 carries torch's "[rank12]:" on the watchdog's line only; its NET/IB line is rank 12's too,
    whichever comes first in the file."""
    for lines in (AREAL_3, AREAL_3[::-1]):
        ev = {e.kind: e for e in read_lines(lines, "job/train.log", Clock(), root="job", year=2025)}
        assert (ev["ib_completion_error"].rank, ev["ib_completion_error"].pid) == (12, 43581)
        assert ev["ib_completion_error"].details["rank_from_pid"] is True


def test_a_pid_named_with_two_ranks_names_none():
    """SYNTHETIC (Ray's prefix, vllm-project/vllm #6042's format): the same host and pid with two ranks (a reused
    pid, a mixed-up log) names neither; another host's same pid is another process."""
    lines = ["(RayWorkerWrapper pid=4009, ip=10.0.0.1) [rank1]: ready",
             "(RayWorkerWrapper pid=4009, ip=10.0.0.1) [rank3]: ready",
             "(RayWorkerWrapper pid=4009, ip=10.0.0.2) [rank5]: ready",
             "(RayWorkerWrapper pid=4009, ip=10.0.0.1) ncclRemoteError: A call failed possibly due to a network error "
             "or a remote process exiting prematurely."]
    (ev,) = [e for e in read_lines(lines, "job/train.log", Clock(), root="job", year=2025) if e.kind != "rank_seen"]
    assert (ev.kind, ev.host, ev.rank) == ("nccl_remote_error", "10.0.0.1", None)


# --- time stamps around launcher prefixes (REAL lines) -----------------------------------------------------------

def test_a_time_stamp_before_a_prefix_is_skipped_and_kept():
    """REAL (vllm-project/vllm #18260: kubectl's --timestamps before vLLM's worker prefix, which names its rank):
    the prefix is read through the stamp, and the stamp stays for the line's time."""
    line = ("2025-05-16T13:08:58.099318151Z (VllmWorker rank=0 pid=249) DEBUG 05-16 13:08:58 [parallel_state.py:867] "
            "world_size=8 rank=0 local_rank=0 distributed_init_method=tcp://127.0.0.1:39977 backend=nccl")
    origin, rest = strip(line)
    assert (origin.rank, origin.pid) == (0, 249)
    assert rest.startswith("2025-05-16T13:08:58.099318151Z DEBUG 05-16 13:08:58 [parallel_state.py:867]")
    assert app_stamp(rest)[0] == datetime(2025, 5, 16, 13, 8, 58, 99318, tzinfo=timezone.utc)


def test_a_time_stamp_no_prefix_follows_stays_in_the_message():
    """REAL (ray-project/ray #16979: Python logging's stamp behind Ray's prefix, no prefix after it)."""
    line = ("(pid=34272) 2021-07-14 13:21:26,887\tINFO distributed_torch_runner.py:58 -- Setting up process group for: "
            "tcp://10.148.18.24:47078 [rank=3]")
    origin, rest = strip(line)
    assert (origin.pid, origin.rank) == (34272, None)
    assert rest == line[len("(pid=34272) "):]


def test_nccls_own_time_stamp_between_rays_prefix_and_its_own():
    """SYNTHETIC (the shapes of foundation-model-stack/fastsafetensors #36's Ray-and-NCCL lines and NCCL 2.26+'s
    default NCCL_DEBUG_TIMESTAMP_FORMAT "[%F %T] " before a WARN line): the stamp between the two prefixes is
    skipped, NCCL's host, pid and device read."""
    origin, rest = strip("(RayWorkerWrapper pid=285, ip=192.168.177.12) [2025-12-17 23:27:55] spark2:285:362 [0] "
                         "NCCL WARN NET/IB : Got async event : port error")
    assert (origin.host, origin.pid, origin.gpu) == ("spark2", 285, 0)
    assert rest == "[2025-12-17 23:27:55] NCCL WARN NET/IB : Got async event : port error"


def test_a_time_stamp_with_a_colon_before_mpiruns_tag_is_skipped_and_kept():
    """REAL (NVIDIA/nccl #230: a log collector's "<RFC 3339>: " before Open MPI's --tag-output and NCCL's own prefix):
    both prefixes are read through the stamp and its colon (rank and host were lost: the HCA's host went unnamed)."""
    line = ("2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275-1553839402050-12124-01-000057:815:864 [0] "
            "transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local catastrophic error")
    origin, rest = strip(line)
    assert (origin.rank, origin.host, origin.pid, origin.gpu) == (
        12, "container-e275-1553839402050-12124-01-000057", 815, 0)
    assert rest == ("2019-06-02T16:13:44.884Z: transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local "
                    "catastrophic error")
    assert app_stamp(rest)[0] == datetime(2019, 6, 2, 16, 13, 44, 884000, tzinfo=timezone.utc)
    # a colon after a stamp with no prefix behind it changes nothing
    origin, rest = strip("2019-06-02T16:13:44.884Z: Epoch 3 done")
    assert (origin, rest) == (NONE, "2019-06-02T16:13:44.884Z: Epoch 3 done")


def test_timeouts_in_two_process_groups_are_said_apart():
    """REAL lines of two jobs put in one: hiyouga/LlamaFactory #7396's ranks time out at SeqNum 1580 of process group
    1, XPixelGroup/BasicSR #737's at SeqNum 808 of the default group (0). A SeqNum counts one group's collectives:
    the consequences said "5 ranks timed out in ALLREDUCE SeqNum 1580", mixing the two."""
    pg1 = ["[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, "
           "Timeout(ms)=600000) ran for 600060 milliseconds before timing out.",
           "[rank0]:[E321 02:07:08.465150152 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error or "
           "timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: "
           "1579.",
           "[rank3]:[E321 02:07:08.465224069 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 3] Exception (either an error or "
           "timeout) detected by watchdog at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work: "
           "1579."]
    pg0 = ["[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran "
           "for 600020 milliseconds before timing out.",
           "[rank1]:[E626 06:24:44.906457629 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank 1] "
           "Exception (either an error or timeout) detected by watchdog at work: 808, last enqueued NCCL work: 811, "
           "last completed NCCL work: 807.",
           "[rank2]:[E626 06:24:44.173078629 ProcessGroupNCCL.cpp:616] [Rank 2] Watchdog caught collective operation "
           "timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran "
           "for 600061 milliseconds before timing out."]
    [incident] = job({"a.log": pg1, "b.log": pg0})
    assert incident.consequences == ("4 ranks (0,1,2,3) timed out: 2 ranks (1,2) in ALLREDUCE SeqNum 808 of process "
                                     "group 0; 2 ranks (0,3) in ALLREDUCE SeqNum 1580 of process group 1")
    # nor is rank 1 (last enqueued 811 of group 0) the lagging rank of group 1's work 1580
    assert (incident.rule, incident.root.rank) == ("undetermined", None)
    # one group named (or none): the sentence as before
    [one] = job({"a.log": pg1})
    assert one.consequences == "2 ranks (0,3) timed out in ALLREDUCE SeqNum 1580"


def test_a_process_group_is_named_by_its_guid_not_its_per_process_id():
    """REAL (NVIDIA/nccl #1610): global ranks 13 and 15 both print "PG ID 11", but GUID 119 and 112: two groups. Keyed
    by the ID, rank 15's SeqNum 57 (group 112) was compared with rank 13's 216 (group 119) and rank 15 named the
    lagging rank that "never enqueued NCCL work 216"."""
    lines = [" 2025-02-18 12:54 [rank13]:[E218 04:54:22.864467604 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
             "collective operation timeout: WorkNCCL(SeqNum=216, OpType=ALLTOALL_BASE, NumelIn=1379328, "
             "NumelOut=1572864, Timeout(ms)=600000) ran for 600045 milliseconds before timing out.",
             " 2025-02-18 12:54 [rank13]:[E218 04:54:22.864535778 ProcessGroupNCCL.cpp:1795] [PG ID 11 PG GUID 119 Rank "
             "1] Exception (either an error or timeout) detected by watchdog at work: 216, last enqueued NCCL work: "
             "220, last completed NCCL work: 215.",
             " 2025-02-18 12:54 [rank15]:[E218 04:54:22.883327702 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
             "collective operation timeout: WorkNCCL(SeqNum=57, OpType=ALLREDUCE, NumelIn=32, NumelOut=32, "
             "Timeout(ms)=600000) ran for 600045 milliseconds before timing out.",
             " 2025-02-18 12:54 [rank15]:[E218 04:54:22.883358915 ProcessGroupNCCL.cpp:1795] [PG ID 11 PG GUID 112 Rank "
             "0] Exception (either an error or timeout) detected by watchdog at work: 57, last enqueued NCCL work: 57, "
             "last completed NCCL work: 56."]
    [incident] = job({"train.log": lines})
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "undetermined", None)
    assert "ALLREDUCE SeqNum 57 of process group 112" in incident.consequences
    assert "ALLTOALL_BASE SeqNum 216 of process group 119" in incident.consequences
    # the flight recorder's dump line keys its group the same way
    assert facts.match("[PG ID 3 PG GUID d03ba143833c6bf31b072ffdb22f1745957fcbfb Rank 1] Received a dump signal due "
                       "to a collective timeout from  rank 13 and we will try our best to dump the debug info. Last "
                       "enqueued NCCL work: 1261, last completed NCCL work: 1259.")[1]["pg"] == (
        "d03ba143833c6bf31b072ffdb22f1745957fcbfb")


def test_rays_memory_monitor_kill_is_a_host_oom_not_the_gpus():
    """REAL (vllm-project/vllm #15102): Ray's memory monitor killed a worker of a 16-GPU vLLM engine, the node's host
    memory past 0.95; the cuda_oom row took Ray's OutOfMemoryError for the GPU's: application, not infrastructure."""
    lines = ["ERROR 03-21 17:27:44 [core.py:340] ray.exceptions.OutOfMemoryError: Task was killed due to the node "
             "running low on memory.",
             "ERROR 03-21 17:27:44 [core.py:340] Memory on the node (IP: 29.45.33.204, ID: "
             "3486ef92af91b0494ff27f70492b1895998d2c380f41e1132316408a) where the task (actor ID: "
             "46c8d4da5261e03252fadd9c05000000, name=RayWorkerWrapper.__init__, pid=13378, memory used=3.37GB) was "
             "running was 2152.43GB / 2265.25GB (0.950196), which exceeds the memory usage threshold of 0.95. Ray "
             "killed this worker (ID: 5dd7c3ab222be1d47c4ec86bf6d5a385e270c853c5ea8d04b89bc79c) because it was the "
             "most recently scheduled task; to see more information about memory usage on this node, use `ray logs "
             "raylet.out -ip 29.45.33.204`."]
    [incident] = job({"engine.log": lines})
    assert (incident.category, incident.root.kind) == ("infrastructure", "oom_kill")
    # the node its line names (was: no host, "no single rank or node"): the driver printed it, not node 29.45.33.204
    assert incident.root.host == "29.45.33.204"


# REAL lines (tests/fixtures/realworld/ray-oom.yaml): the raylet's summary of its OOM kills, behind the driver's
# "(raylet) " (hiyouga/EasyR1 #185), and the memory monitor's line alone (vllm-project/vllm #2669)
RAY_OOM = lines_by_source("ray-oom.yaml")
RAYLET_OOM = RAY_OOM["https://github.com/hiyouga/EasyR1/issues/185"][0]
MEMORY_MONITOR = RAY_OOM["https://github.com/vllm-project/vllm/issues/2669"][0]


@pytest.mark.parametrize("line, host", [(RAYLET_OOM, "10.95.143.76"), (MEMORY_MONITOR, "169.254.181.2")])
def test_rays_oom_kill_is_the_node_its_line_names(line, host):
    """Ray's OOM kill is the node its line names, whoever printed it (the driver relays the raylet's summary and the
    memory monitor's line): was no host; the writer's own fields are the reporter's."""
    [incident] = job({"driver.log": [line]})
    assert (incident.category, incident.root.kind, incident.root.host) == ("infrastructure", "oom_kill", host)


# --- a serving engine's record whose traceback lines carry no prefix (REAL lines) ---------------------------------

SGLANG_3713 = Path(__file__).parents[1] / "fixtures" / "incidents" / "sglang-3713-tp0-illegal-access" / "logs" / "server.log"


def test_an_sglang_records_traceback_is_its_workers():
    """REAL (sgl-project/sglang #3713): SGLang logs a scheduler's exception as one record, "[2025-02-21 22:59:28 TP0]
    Scheduler hit an exception: Traceback (most recent call last):" and the traceback's lines after it without the
    prefix: the exception ending it is TP0's (rank 0), at the record's time; before, it was nobody's, with no time."""
    lines = SGLANG_3713.read_text().splitlines()
    evidence = [e for e in read_lines(lines, "server.log", Clock(), year=2025) if e.kind != "rank_seen"]
    (ev,) = [e for e in evidence if e.kind == "cuda_error"]
    assert ev.rank == 0 and ev.line == 14
    assert ev.time == datetime(2025, 2, 21, 22, 59, 28, tzinfo=timezone.utc)


def test_a_record_ends_at_a_line_no_traceback_has():
    """SYNTHETIC, of REAL lines (sgl-project/sglang #3713, then #5602's launcher line): after the exception that ends
    the record's traceback, a line of another shape (the launcher's own stamped line) is no longer the worker's."""
    lines = SGLANG_3713.read_text().splitlines()[:14] + [
        "[2025-04-21 04:13:43] Received sigquit from a child process. It usually means the child failed.",
        "RuntimeError: CUDA error: an illegal memory access was encountered"]  # (the same exception line, again)
    evidence = [e for e in read_lines(lines, "server.log", Clock(), year=2025) if e.kind == "cuda_error"]
    assert [e.rank for e in evidence] == [0, None]


def test_the_tasks_jax_names_unhealthy_on_the_lines_after_are_the_lost_processes():
    """REAL: JAX's docs (docs/fault_tolerance.rst): every live task's fate-sharing end names the task whose heartbeats
    stopped on the line after it: that task is process_lost, the suspect (was: only the writer's consequence,
    'undetermined' with no rank); the lines after the list are no task's."""
    lines = [
        "E0926 17:26:32.075402  157988 coordination_service_agent.cc:332] Polled an error from coordination service "
        "(this can be an error from this or another task).",
        "F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service detected "
        "fatal errors. This most likely indicates that another task died; see the other task logs for more details. "
        "Disable Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: "
        "UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
        "/job:jax_worker/replica:0/task:3",
        "The tasks have crashed. Check the task logs for an earlier error, or scheduler events (e.g. preemption, "
        "eviction) to debug further.",
        "",
        "RPC: /tensorflow.CoordinationService/PollForError [type.googleapis.com/tensorflow.CoordinationServiceError='']",
    ]
    got = list(read_lines(lines, "job/task-0.log", Clock(), root="job"))
    lost = [e for e in got if e.kind == "process_lost"]
    assert [(e.rank, e.details["fact"], e.details["job"], e.line) for e in lost] == [
        (3, "xla_unhealthy_task", "jax_worker", 3)]
    first = attribute(got)[0]
    assert (first.category, first.rule, first.root.rank) == ("undetermined", "first_rank_death", 3)


def test_every_task_jax_names_unhealthy_is_named_lost():
    """REAL: ROCm/rocm-blogs blogs/software-tools-optimization/maxtext-slurm-agentic-diagnosis/README.md (a 24-node
    MaxText run, srun's `--label` prefix): the coordination service names tasks 8 and 10 unhealthy.  Both are lost and
    named, task 8 (named first) the first suspect, both lines in the evidence (was: task 8 alone, task 10's line left
    out and "no other rank reported a failure").  The same list in another task's log (SYNTHETIC copy) names the
    same deaths: nothing "could not be placed"."""
    lines = [" 0: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):",
             " 0: /job:jax_worker/replica:0/task:8",
             " 0: /job:jax_worker/replica:0/task:10",
             " 0: The tasks have crashed."]
    got = list(read_lines(lines, "job/slurm.log", Clock(), root="job"))
    first = attribute(got)[0]
    assert (first.category, first.rule, first.root.rank) == ("undetermined", "first_rank_death", 8)
    assert first.reason.startswith("2 ranks (8,10) died first (each: XLA's coordination service named it unhealthy")
    assert "rank 8 named first" in first.reason
    assert [(e.kind, e.rank) for e in first.evidence] == [("process_lost", 8), ("process_lost", 10)]
    assert first.consequences == "rank 10 lost with it"
    again = [line.replace(" 0: ", " 1: ") for line in lines]
    both = attribute(got + list(read_lines(again, "job/slurm-1.log", Clock(), root="job")))[0]
    assert (both.root.rank, both.consequences) == (8, "rank 10 lost with it")
    assert "could not be placed" not in both.reason, both.reason


def test_nodes_ray_marked_dead_in_the_same_seconds_are_each_named():
    """REAL: ray-project/ray #18449 (a nightly test's driver log): Ray's GCS marks two nodes dead a second apart: both
    are named, the earlier the first suspect (was: the first alone, the second's line left out and "no other rank
    reported a failure")."""
    lines = ["Reduce Progress.:  69%|██████▉   | 691/1000 [28:51<28:26,  5.52s/it]2021-09-05 05:42:38,294     WARNING "
             "worker.py:1228 -- The node with node id: 0fc14938add3345146c57e92449e77a584cace230879f50fd0813cc0 and ip: "
             "172.31.57.35 has been marked dead because the detector has missed too many heartbeats from it. This can "
             "happen when a raylet crashes unexpectedly or has lagging heartbeats.",
             "2021-09-05 05:42:39,292 WARNING worker.py:1228 -- The node with node id: 9d2c254a88cf3dfc896b1b1cfa4b62cf2b"
             "95aff0ab4e066aceda60d4 and ip: 172.31.12.38 has been marked dead because the detector has missed too many "
             "heartbeats from it. This can happen when a raylet crashes unexpectedly or has lagging heartbeats."]
    first = attribute(read_lines(lines, "job/driver.log", Clock(), root="job"))[0]
    assert (first.category, first.rule, first.root.host) == ("undetermined", "first_rank_death", "172.31.57.35")
    assert first.reason.startswith("2 processes (172.31.57.35, 172.31.12.38) died first, within 5 s of each other "
                                   "(each: Ray declared its node dead)"), first.reason
    assert "172.31.57.35 the earliest" in first.reason
    assert [e.host for e in first.evidence] == ["172.31.57.35", "172.31.12.38"]
    assert first.consequences == "172.31.12.38 lost with it"


def test_lost_tasks_in_other_files_are_counted_never_denied():
    """REAL lines: ROCm/rocm-blogs blogs/software-tools-optimization/maxtext-slurm-agentic-diagnosis (JAX's list of the
    unhealthy tasks 8 and 10), split over two tasks' logs (SYNTHETIC: task-0's log names task 8, task-1's task 10):
    neither placed against the other, the reason counts the one it could not place, and so do the consequences (was:
    "no other rank reported a failure" beside the reason's "1 other failure(s) .. could not be placed")."""
    head = " 0: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):"
    tail = " 0: The tasks have crashed."
    got = list(read_lines([head, " 0: /job:jax_worker/replica:0/task:8", tail], "job/slurm-0.log", Clock(), root="job"))
    other = [line.replace(" 0: ", " 1: ") for line in (head, " 0: /job:jax_worker/replica:0/task:10", tail)]
    got += read_lines(other, "job/slurm-1.log", Clock(), root="job")
    first = attribute(got)[0]
    assert "1 other failure(s) with no wall-clock time, in another file, could not be placed" in first.reason
    assert first.consequences == "no other rank's failure could be placed before or after it; 1 could not be placed " \
        "in time"
    assert sorted(e.rank for e in first.evidence) == [8, 10]


def test_a_rank_monitor_in_another_nodes_log_is_counted_and_an_exit_there_not_said_after():
    """REAL lines: NVIDIA/NeMo docs resiliency.html (the rank monitors of ranks 34 and 58), each in its own node's
    launcher log (SYNTHETIC split); pytorch/pytorch #116974 (srun's `srun: error: cdr2596: task 1: Exited with exit
    code 1`) in srun's log.  No time places either against rank 34's loss: the consequences count them as the reason
    does (was: "no other rank reported a failure", and the exit "rank 1 exited after it" while the reason said it may
    have come first)."""
    monitor = "[WARNING] [RankMonitorServer:{}] Did not get subsequent heartbeat. Waited 171.92 seconds."
    got = list(read_lines([monitor.format(34)], "job/node-4/launcher.log", Clock(), root="job"))
    alone = got + list(read_lines([monitor.format(58)], "job/node-7/launcher.log", Clock(), root="job"))
    first = attribute(alone)[0]
    assert (first.root.rank, first.consequences) == \
        (34, "no other rank's failure could be placed before or after it; 1 could not be placed in time")
    exited = got + list(read_lines(["srun: error: cdr2596: task 1: Exited with exit code 1"], "job/srun.log", Clock(),
                                   root="job"))
    first = attribute(exited)[0]
    assert "exit (code 1) on rank 1" in first.reason and "may have come first" in first.reason
    assert first.consequences == \
        "no other rank's failure could be placed before or after it; 1 could not be placed in time"


def test_a_node_ray_marked_dead_later_is_named_after_it():
    """REAL lines: ray-project/ray #18449 (a nightly test's driver log), the second node's stamp moved 10 s later
    (SYNTHETIC time): no longer lost with the first, it is named as lost after it and its line is in the evidence (was:
    left out, and "no other rank reported a failure")."""
    lines = ["2021-09-05 05:42:38,294     WARNING worker.py:1228 -- The node with node id: 0fc14938add3345146c57e9244"
             "9e77a584cace230879f50fd0813cc0 and ip: 172.31.57.35 has been marked dead because the detector has missed "
             "too many heartbeats from it. This can happen when a raylet crashes unexpectedly or has lagging heartbeats.",
             "2021-09-05 05:42:48,292 WARNING worker.py:1228 -- The node with node id: 9d2c254a88cf3dfc896b1b1cfa4b62"
             "cf2b95aff0ab4e066aceda60d4 and ip: 172.31.12.38 has been marked dead because the detector has missed too "
             "many heartbeats from it. This can happen when a raylet crashes unexpectedly or has lagging heartbeats."]
    first = attribute(read_lines(lines, "job/driver.log", Clock(), root="job"))[0]
    assert first.reason.startswith("172.31.57.35 died first (Ray declared its node dead)"), first.reason
    assert first.consequences == "172.31.12.38 lost after it"
    assert [e.host for e in first.evidence] == ["172.31.57.35", "172.31.12.38"]


def test_hydras_bad_termination_block_names_the_process_a_signal_killed():
    """REAL: MPICH's / Intel MPI's Hydra block, every era: 3.3+ "RANK N PID N RUNNING AT host" and "KILLED BY SIGNAL"
    (LonxunQuantum/PWmat-docs' MatPL page, bsc-performance-tools/extrae #101), 3.1-3.2 "PID N RUNNING AT host" and
    the raw wait status as "EXIT CODE" (openai/jukebox #155: 9; SPECFEM/specfem3d #643: 139, SIGSEGV dumping core),
    3.0 "EXIT CODE" alone (cBio/cbio-cluster #256, blank lines between as pasted).  Before: no evidence at all."""
    rule = "==================================================================================="
    new = [rule, "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", "=   RANK 6 PID 2447372 RUNNING AT node0009",
           "=   KILLED BY SIGNAL: 9 (Killed)", rule]
    (ev,) = read_lines(new, "mpiexec.log", Clock())
    assert (ev.kind, ev.rank, ev.pid, ev.host, ev.signal, ev.line) == ("rank_exit", 6, 2447372, "node0009", 9, 3)
    old = [rule, "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", "=   PID 27636 RUNNING AT sth104",
           "=   EXIT CODE: 139", "=   CLEANING UP REMAINING PROCESSES", "=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES",
           rule, "[proxy:0:1@sth102] HYD_pmcd_pmip_control_cmd_cb (pm/pmiserv/pmip_cb.c:885): assert (!closed) failed"]
    (ev,) = read_lines(old, "mpiexec.log", Clock())
    assert (ev.rank, ev.pid, ev.host, ev.signal, ev.exit_code, ev.details["wait_status"]) == \
        (None, 27636, "sth104", 11, None, 139)
    oldest = [rule, "", "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", "", "=   EXIT CODE: 9", "",
              "=   CLEANING UP REMAINING PROCESSES", ""]
    (ev,) = read_lines(oldest, "mpiexec.log", Clock())
    assert (ev.rank, ev.host, ev.signal, ev.line) == (None, None, 9, 3)
    # the summary after the block ORs every process's status: no one process's death
    assert not list(read_lines(["YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Killed (signal 9)"], "x", Clock()))
    # a CUDA error before the blocks stays the root; the ranks Hydra killed after it are its consequences
    (incident,) = attribute(read_lines((INCIDENT_LOGS / "matpl-lammps-hydra-cuda" / "logs" / "lammps.out")
                                       .read_text().splitlines(), "lammps.out", Clock()))
    assert (incident.category, incident.root.kind, incident.consequences) == \
        ("application", "cuda_error", "3 ranks (0,1,2) exited after it")


def test_a_ctime_stamp_before_an_mpi_tag_is_the_lines_time_and_the_tag_its_rank():
    """REAL: Open MPI's --timestamp-output / horovodrun's --prefix-output-with-timestamp, ctime() right before the
    rank tag (horovod/horovod #3952, Open MPI's "[1,3]"; #2097, Gloo's "[1]"; #2015 behind Determined's 2020 prefix,
    its "[RUNNING]" state and a space).  Before: the stamp hid the tag (no rank, no time) and TensorFlow's "***
    Received signal 7 ***" was no evidence."""
    lines = ["Tue Jun 27 22:49:58 2023[1,3]<stderr>:*** Received signal 7 ***",
             "Tue Jun 27 22:49:58 2023[1,3]<stderr>:*** BEGIN MANGLED STACK TRACE ***",
             "Tue Jun 27 22:49:58 2023[1,4]<stderr>:/usr/local/lib/python3.10/site-packages/tensorflow/python/platform/"
             "../../libtensorflow_framework.so.2(+0x1793d31)[0x7fbf52976d31]"]
    evs = [e for e in read_lines(lines, "mpirun.log", Clock()) if e.kind == "rank_exit"]
    assert [(e.rank, e.signal, e.time) for e in evs] == \
        [(3, 7, datetime(2023, 6, 27, 22, 49, 58, tzinfo=timezone.utc))]
    line = "Fri Sep 25 16:52:36 2020[1]<stderr>:2020-09-25 16:52:36.515479: I tensorflow/core/common_runtime/gpu/" \
           "gpu_device.cc:1746] Adding visible gpu devices: 1"
    (seen,) = read_lines([line], "x.log", Clock())
    assert (seen.kind, seen.rank) == ("rank_seen", 1)
    assert app_stamp("Tue Jun  9 20:10:40 2020") == (datetime(2020, 6, 9, 20, 10, 40), False)
    # (synthetic) no tag right after it: no stamp peeled, so no tag read either
    assert list(read_lines(["Tue Jun  9 20:10:40 2020 [1]<stderr>: x"], "x.log", Clock())) == []
    (incident,) = attribute(read_lines((INCIDENT_LOGS / "horovod-2015-gloo-rendezvous" / "logs" / "trial.log")
                                       .read_text().splitlines(), "trial.log", Clock()))
    assert (incident.category, incident.root.kind, incident.evidence[0].rank) == ("undetermined", "store_error", 1)
    assert incident.evidence[0].details["what"] == "Wait timeout"


@pytest.mark.parametrize("line, timeout", [
    # horovod/horovod #2015 (0.19.3): the what() of gloo::IoException
    ("  what():  [horovod/common/gloo/http_store.cc:53] [horovod/common/gloo/http_store.cc:53] Wait timeout for "
     "key(s): 0", None),
    # ray-project/ray #25866 (0.21+, the timeout said)
    ("  what():  [/tmp/pip-install-43a3uo3a/horovod_33a452dfb1f34b4e998a6265ba22cf83/horovod/common/gloo/http_store.cc"
     ":57] [/tmp/pip-install-43a3uo3a/horovod_33a452dfb1f34b4e998a6265ba22cf83/horovod/common/gloo/http_store.cc:57] "
     "Wait timeout after 30 seconds for key(s): 0. You may want to increase the timeout via "
     "HOROVOD_GLOO_TIMEOUT_SECONDS", "30"),
])
def test_horovods_gloo_rendezvous_timeout_is_a_store_error(line, timeout):
    (ev,) = read_lines([line], "x.log", Clock())
    assert (ev.kind, ev.details.get("store_timeout")) == ("store_error", timeout)


# --- a rank's own crash, as its host's kernel reports it (tests/fixtures/realworld/process-crash.yaml) ----------------
# The kernel's lines verbatim: leptonai/gpud components/accelerator/nvidia/nccl/testdata/dmesg.decode.iso.log (a PyTorch
# thread's segfault in libnccl), ikawrakow/ik_llama.cpp #381 (a segfault in libcuda, `dmesg -T`), biodatageeks/polars-bio
# docs/faq.md (python's invalid opcode in its own extension), hpc-community.unige.ch/t/3962 (another program's general
# protection fault). The deaths are torchrun's line (the SIGKILLED format above) at the crash's time.
NCCL_SEGV = ("kern  :warn  : 2025-01-21T04:41:44,285060+00:00 pt_main_thread[2536443]: segfault at 7f797fe00000 ip "
             "00007f7c7ac69996 sp 00007f7c12fd7c30 error 4 in libnccl.so.2[7f7c7ac00000+d3d3000]")
CUDA_SEGV = ("[Sun May  4 22:19:21 2025] llama-bench[2015]: segfault at 204803fe0 ip 00007efcfc1189d7 sp 00007ffe21474280 "
             "error 4 in libcuda.so.575.51.03[7efcfbdc5000+e97000] likely on CPU 21 (core 5, socket 1)")
CUDA_CODE = ("[Sun May  4 22:19:21 2025] Code: ef e8 9d c9 ca ff 83 3d 7e 57 2f 05 01 49 8b 1c 24 76 0a 8b 05 86 57 2f 05 "
             "85 c0 74 56 49 8b 44 24 10 41 8b 4c 24 24 48 8b 13 <8b> 00 41 39 c6 74 52 8b b3 40 40 00 00 48 89 f0 89 8c "
             "b3 44 40 00")
ILL_TRAP = ("polars-bio-intel kernel: [ 1611.175045] traps: python[8844] trap invalid opcode ip:709d3ec253cc "
            "sp:7ffcc28754e8 error:0 in polars_bio.abi3.so[709d36533000+9aab000]")
OTHER_GPF = ("[Fri May 30 08:29:18 2025] traps: nano[3312930] general protection fault ip:14f27ed59a3f sp:7fffd97387b8 "
             "error:0 in libncursesw.so.6.5[14f27ed45000+25000]")


def died(at: str, code: int, pid: int, binary: str = "/usr/bin/python", rank: int = 2) -> str:
    return (f"[{at},000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -{code}) "
            f"local_rank: {rank} (pid: {pid}) of binary: {binary}")


@pytest.mark.parametrize("death, kernel, want, whose", [
    # a PyTorch thread's segfault in NCCL: the thread's name is one of the rank's, its pid not the rank's
    (died("2025-01-21 04:41:45", 11, 5939), [NCCL_SEGV], "application", "NCCL's"),
    # the rank's own pid crashed in the GPU driver's user-space library: the node's driver stack
    (died("2025-05-04 22:19:22", 11, 2015, "/usr/bin/llama-bench"), [CUDA_SEGV, CUDA_CODE], "infrastructure",
     "the GPU driver's user-space library"),
    # SIGILL: the rank's pid executed an invalid opcode in its own extension (the kernel's line has no wall time)
    (died("2025-05-04 22:19:22", 4, 8844), [ILL_TRAP], "application", "polars_bio.abi3.so, the program's own code"),
])
def test_a_rank_the_kernel_says_crashed_is_explained_by_its_library(death, kernel, want, whose):
    """A rank died by SIGSEGV / SIGILL and its host's kernel names its process crashing: the crash is the root, the
    library it crashed in says whose (the GPU driver's: infrastructure; NCCL's, the program's: application)."""
    first = job({"node-a/launcher.log": [death], "node-a/kern.log": kernel})[0]
    assert (first.category, first.rule, first.root.kind, first.root.host) == (
        want, "first_rank_death", "process_crash", "node-a"), first.reason
    assert whose in first.reason
    assert any(e.kind == "rank_exit" for e in first.evidence)


@pytest.mark.parametrize("death, files", [
    # another program of the host crashed (nano's general protection fault): not the rank's process
    (died("2025-05-30 08:29:19", 11, 5939), {"node-a/kern.log": [OTHER_GPF]}),
    # the rank's thread segfaulted, but the rank died by SIGBUS: the line sent SIGSEGV
    (died("2025-01-21 04:41:45", 7, 5939), {"node-a/kern.log": [NCCL_SEGV]}),
    # another host's kernel
    (died("2025-01-21 04:41:45", 11, 5939), {"node-b/kern.log": [NCCL_SEGV]}),
    # an hour before the death: another run's
    (died("2025-01-21 05:41:45", 11, 5939), {"node-a/kern.log": [NCCL_SEGV]}),
])
def test_a_crash_line_not_of_the_ranks_process_explains_nothing(death, files):
    """SYNTHETIC deaths, real kernel lines: a crash of another program, signal, host or time leaves the death as its
    signal says (SIGSEGV: the program; SIGBUS: /dev/shm), rooted at the death itself."""
    first = job({"node-a/launcher.log": [death], **files})[0]
    assert (first.rule, first.root.kind) == ("first_rank_death", "rank_exit"), first.reason


def test_nvshmem_fatal_exit_is_the_jobs_failure():
    """REAL: deepseek-ai/DeepEP #316 (2025, NVSHMEM 3.3.9): the internode test dies in NVSHMEM's init, "IPC failure:
    Sending data over socket failed" then the fatal exit "mem_heap.cpp:exchange_heap_memory_handle:775: Fatal IPC
    Failure" (the thread's cause, two hosts of one hostname, no line shows). Before: no NVSHMEM line was read and triage
    found no failure; now the library's failure is a consequence-only incident."""
    path = INCIDENT_LOGS / "deepep-316-nvshmem-ipc" / "logs" / "test_internode.log"
    ev = list(read_lines(path.read_text().splitlines(), path.name, Clock()))
    assert [e.kind for e in ev] == ["nccl_error"] and ev[0].details["nvshmem_function"] == "exchange_heap_memory_handle"
    (incident,) = attribute(ev)
    assert (incident.category, incident.rule) == ("undetermined", "undetermined")


# REAL: PeterGriffinJin/Search-R1 #61 (a verl run's driver): Ray's RayTaskError prints the remote traceback with its
# "Traceback (most recent call last):" replaced by the process that raised (python/ray/exceptions.py __str__)
RAY_TASK_ERROR = [
    "ray::WorkerDict.actor_rollout_generate_sequences() (pid=838798, ip=10.138.0.27, actor_id=f5aa8b4a1fbe86cb1c015cec08"
    "000000, repr=<verl.single_controller.ray.base.WorkerDict object at 0x7f98d03dda50>)",
    '  File "/home/curtis/eureka-search-r1/verl/single_controller/ray/base.py", line 399, in func',
    "    return getattr(self.worker_dict[key], name)(*args, **kwargs)",
    '  File "/opt/conda/lib/python3.10/site-packages/torch/cuda/memory.py", line 170, in empty_cache',
    "    torch._C._cuda_emptyCache()",
    "RuntimeError: CUDA error: an illegal memory access was encountered"]


def test_a_ray_tasks_traceback_is_the_failure_of_the_process_its_header_names():
    """Ray's header of a task's error (facts.RAY_TASK_HEADER) opens the remote traceback: its exception is the failure
    of the process the header names (pid, its node's address), not of the driver that printed it."""
    (ev,) = [e for e in read_lines(RAY_TASK_ERROR, "driver.log", Clock()) if e.kind == "cuda_error"]
    assert (ev.host, ev.pid, ev.rank, ev.line) == ("10.138.0.27", 838798, None, 6)
    first = attribute([ev])[0]
    assert (first.category, first.root.host) == ("application", "10.138.0.27")
    # REAL header line: verl-project/verl #4837 (after the driver's own "ray.exceptions.RayTaskError(...): ", behind
    # its "(TaskRunner pid=..)" prefix in a driver's log); SYNTHETIC: Search-R1 #61's frames and exception after it.
    # The driver's exception is its own; the remote one after it is the named process's, the writer its reporter.
    header = ("ray.exceptions.RayTaskError(ActorDiedError): ray::TaskRunner.run() (pid=2361731, ip=130.203.139.67, "
              "actor_id=a557e1541711622872cfc2da01000000, repr=<main_ppo.TaskRunner object at 0x7f124f5a9610>)")
    lines = ["(TaskRunner pid=7) " + line for line in
             ["Traceback (most recent call last):", '  File "/verl/verl/trainer/main_ppo.py", line 45, in main',
              header, *RAY_TASK_ERROR[1:]]]
    (ev,) = [e for e in read_lines(lines, "driver.log", Clock()) if e.kind == "cuda_error"]
    assert (ev.host, ev.pid, ev.details["reporter_pid"]) == ("130.203.139.67", 2361731, 7)
    # REAL header: huggingface/open-r1 #130, colorama's cyan and reset around the proctitle (their escape lost in the
    # copy, or kept); SYNTHETIC: Search-R1 #61's frames and exception after it
    for header in ("[36mray::run_inference_one_model()[39m (pid=602229, ip=115.154.137.9)",
                   "\x1b[36mray::run_inference_one_model()\x1b[39m (pid=602229, ip=115.154.137.9)"):
        (ev,) = [e for e in read_lines([header, *RAY_TASK_ERROR[1:]], "driver.log", Clock()) if e.kind == "cuda_error"]
        assert (ev.host, ev.pid) == ("115.154.137.9", 602229)
    # a traceback Python printed itself, or a line that only mentions a task, names no other process
    plain = ["Traceback (most recent call last):", *RAY_TASK_ERROR[1:]]
    (ev,) = [e for e in read_lines(plain, "driver.log", Clock()) if e.kind == "cuda_error"]
    assert (ev.host, ev.pid) == (None, None)


@pytest.mark.parametrize("name, said", [
    # REAL: CVL-UESTC/PFT-SR #13: rank 1 in BROADCAST SeqNum 70005, ranks 4 and 2 in ALLREDUCE SeqNum 70002
    ("pft-sr-13-mixed-seqnum", "2 ranks (2,4) timed out in ALLREDUCE SeqNum 70002, rank 1 in BROADCAST SeqNum 70005"),
    # REAL: SWivid/F5-TTS #346: rank 1 in ALLREDUCE SeqNum 215121, rank 0 in BROADCAST SeqNum 215122 (a watchdog's
    # "at work: N" line, no op, is its SeqNum's collective, no other)
    ("h681_f5-tts-346-rank1-behind",
     "rank 1 timed out in ALLREDUCE SeqNum 215121, rank 0 in BROADCAST SeqNum 215122; rank 1 never reached it"),
])
def test_the_consequences_say_each_collective_its_ranks_timed_out_in(name, said):
    """Ranks that timed out in different collectives: each collective with its own ranks, the one most ranks timed
    out in first. Before: all the ranks said to have timed out in the majority's collective, the others' after in
    brackets ("3 ranks (1,2,4) timed out in ALLREDUCE SeqNum 70002 (rank 1 in BROADCAST SeqNum 70005)"), read as
    written rank 1 in both."""
    logs = Path(__file__).parents[1] / "fixtures" / "incidents" / name / "logs"
    evidence = [e for f in sorted(logs.iterdir())
                for e in read_lines(f.read_text().splitlines(), f.name, Clock())]
    (incident,) = attribute(evidence)
    assert incident.category == "undetermined"
    assert incident.consequences == said


def test_many_ranks_timed_out_in_a_few_collectives_are_said_in_one_short_line():
    """CONSTRUCTED from SWivid/F5-TTS #346's WorkNCCL line (PyTorch's ProcessGroupNCCL watchdog format), 64 ranks: 59
    in ALLREDUCE SeqNum 215121, 3 in BROADCAST SeqNum 215122, 2 in _ALLGATHER_BASE SeqNum 215123; and a 65th whose
    line names no collective (SYNTHETIC evidence). Each collective with its ranks, beyond 16 ranks the runs as ranges;
    the rank whose line names none said as such, not as one of any collective's. Before: "64 ranks (0,1,...,15...)
    timed out in ALLREDUCE SeqNum 215121 (...)", the first 16 ranks only and every rank in the ALLREDUCE."""
    def line(rank: int, seq: int, op: str) -> str:
        return (f"[rank{rank}]:[E1030 03:19:32.584828663 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught "
                f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn=1, NumelOut=1, "
                "Timeout(ms)=600000) ran for 600080 milliseconds before timing out.")
    ops = {6: (215122, "BROADCAST"), 60: (215122, "BROADCAST"), 61: (215122, "BROADCAST"),
           62: (215123, "_ALLGATHER_BASE"), 63: (215123, "_ALLGATHER_BASE")}
    lines = [line(r, *ops.get(r, (215121, "ALLREDUCE"))) for r in range(64)]
    said = ("59 ranks (0-5,7-59) timed out in ALLREDUCE SeqNum 215121, 3 ranks (6,60,61) in BROADCAST SeqNum 215122, "
            "2 ranks (62,63) in _ALLGATHER_BASE SeqNum 215123")
    (incident,) = attribute(list(read_lines(lines, "train.log", Clock())))
    assert incident.consequences.split("; ")[0] == said
    unnamed = Evidence("nccl_timeout", "error", "unknown", None, "node-0", rank=64)
    (incident,) = attribute([*read_lines(lines, "train.log", Clock()), unnamed])
    assert incident.consequences.split("; ")[0] == said + ", rank 64 in a collective no line names"


def test_each_process_groups_ranks_are_said_by_the_collective_they_timed_out_in():
    """SYNTHETIC lines (`_group_lines`): in process group 0 ranks 0 and 1 time out in SeqNum 10, rank 2 in SeqNum 12;
    rank 3 in SeqNum 5 of group 1. Before: "3 ranks (0,1,2) in BROADCAST SeqNum 10 (rank 2 in BROADCAST SeqNum 12) of
    process group 0", rank 2 said in SeqNum 10 too."""
    lines = [*_group_lines(0, 0, 10), *_group_lines(1, 0, 10), *_group_lines(2, 0, 12), *_group_lines(3, 1, 5)]
    (incident, *_) = job({"launcher.log": lines})
    assert ("4 ranks (0,1,2,3) timed out: 2 ranks (0,1) in BROADCAST SeqNum 10 of process group 0; rank 2 in BROADCAST "
            "SeqNum 12 of process group 0; rank 3 in BROADCAST SeqNum 5 of process group 1") in incident.consequences


def test_a_dead_workers_own_rdma_error_completion_explains_its_death():
    """REAL: OpenRLHF/OpenRLHF #621: the vLLM engine pid 90738 on 172.19.24.110 prints libmlx5's "got completion with
    error:" (an error completion neither flushed nor the retries exceeded, naming no peer), then Ray's raylet reports
    that worker dead (SYSTEM_ERROR): its own transport failed under it, the fabric (before: undetermined, the death
    unexplained, libmlx5's line no evidence). Without the engine's own lines the death stays unexplained."""
    files = sorted((INCIDENT_LOGS / "openrlhf-621-mlx5-cqe" / "logs").iterdir())
    ev = [e for f in files for e in read_lines(f.read_text().splitlines(), f.name, Clock())]
    (incident,) = attribute(ev)
    assert (incident.category, incident.rule, incident.root.kind, incident.root.host) == (
        "fabric", "first_failure", "ib_completion_error", "172.19.24.110")
    bare = [e for e in ev if e.kind != "ib_completion_error"]
    assert [(i.category, i.rule) for i in attribute(bare)] == [("undetermined", "first_rank_death")]


# REAL: NVIDIA/nccl #1405 (https://github.com/NVIDIA/nccl/issues/1405, quasar5935's comment), verbatim: NCCL's own
# report of a failed completion from a named peer (the retries exceeded: the peer or the path to it went away)
NCCL_1405_PEER_COMPLETION = (
    "kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
    "10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
    "fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f")


def test_a_dead_workers_completion_error_naming_a_peer_does_not_explain_its_death():
    """The exception above is the rank's own link failing under it, a completion error naming no peer: one that names
    its peer says the peer (or the path to it) went away, a consequence, not what killed the rank that reports it.
    CONSTRUCTED from OpenRLHF #621's lines with each libmlx5 line replaced by NVIDIA/nccl #1405's real peer
    completion error (its 'host:pid:tid [dev] file:line' prefix dropped, under the same Ray worker's prefix): the
    death stays unexplained (was untested: without the peer test it read as the worker's own fabric fault)."""
    nccl = NCCL_1405_PEER_COMPLETION.split(" ib_plugin.c:1615 ", 1)[1]
    files = sorted((INCIDENT_LOGS / "openrlhf-621-mlx5-cqe" / "logs").iterdir())
    ev = [e for f in files for e in read_lines(
        [line.split(") mlx5:", 1)[0] + ") " + nccl if ") mlx5:" in line else line
         for line in f.read_text().splitlines()], f.name, Clock())]
    assert {(e.peer, e.host) for e in ev if e.kind == "ib_completion_error"} == {("10.216.210.236", "172.19.24.110")}
    assert [(i.category, i.rule) for i in attribute(ev)] == [("undetermined", "first_rank_death")]


@pytest.mark.parametrize("lines, named", [
    # REAL: hpcaitech/ColossalAI #3514 (torch.distributed.elastic's failed line, the Python logging era; its
    # ChildFailedError summary, which would give the global rank, is not in the copied lines)
    (["WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 812916 closing signal SIGTERM",
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 3 (pid: 812917) of "
      "binary: /data/chenhao/anaconda3/envs/ColossalAI-Chat/bin/python"], "local rank 3"),
    # REAL: resistzzz/Prompt4NR #3 (torch.multiprocessing.spawn's join: the process number is the local rank)
    (["torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL"], "local rank 0"),
])
def test_a_death_named_by_its_local_rank_only_names_that_local_rank(lines, named):
    """A process whose launcher names it only by its local rank (torchrun's `failed (exitcode: -9) local_rank: 3`,
    mp.spawn's `process 0 terminated`) is that local rank in the reason, not the log file it was read from (was:
    "job/train.log died first"); no global rank is guessed from it."""
    (incident,) = job({"train.log": lines})
    assert incident.root.rank is None and incident.category == "undetermined"
    assert incident.reason.startswith(f"{named} died first (signal 9)"), incident.reason


def test_a_node_faults_incident_lists_the_jobs_failures_it_outranks():
    """REAL (kubernetes-sigs/dra-driver-nvidia-gpu #982): a process refused its GPU (`CUDA-capable device(s) is/are busy
    or unavailable`) beside the node's `NV_ERR_RESET_REQUIRED`: hardware, the kernel line the root and the process's
    error among the incident's evidence, the consequences naming it. Before: the job's line was no failure
    (gpu_access_lost, now gpu_busy, a warning) and a node fault's evidence listed only consequence kinds, so it was
    dropped and the consequences said "no other rank reported a failure". Alone the line is a failure whose cause it
    does not say (before: "No failure found").  The root's other lines naming no rank (kohya-ss/sd-scripts #1434: the
    traceback's `RuntimeError` after rank 1's watchdog line) are the root's evidence too (before: dropped)."""
    logs = INCIDENT_LOGS / "dra-driver-nvidia-gpu-982-reset-required" / "logs"
    job_lines = (logs / "job.log").read_text().splitlines()
    clock = Clock()
    incidents = attribute([*read_lines(job_lines, "job.log", clock),
                           *read_lines((logs / "dmesg.txt").read_text().splitlines(), "dmesg.txt", clock)])
    (incident,) = incidents
    assert (incident.category, incident.rule, incident.root.kind) == ("hardware", "node_fault", "gpu_reset_required")
    assert [(e.file, e.kind) for e in incident.evidence] == [("dmesg.txt", "gpu_reset_required"),
                                                            ("job.log", "gpu_busy")]
    assert incident.consequences.startswith("1 failure(s) of the job after it (GPU busy or unavailable to the pod")
    (alone,) = attribute(read_lines(job_lines, "job.log", Clock()))
    assert (alone.category, alone.root.kind) == ("undetermined", "gpu_busy")
    train = (INCIDENT_LOGS / "kohya-1434-ecc" / "logs" / "train.log").read_text().splitlines()
    (ecc,) = attribute(read_lines(train, "train.log", Clock()))
    assert [(e.rank, e.kind) for e in ecc.evidence] == [(1, "cuda_error"), (None, "cuda_error")]


def test_a_node_faults_evidence_finds_the_failures_it_outranks_once(monkeypatch):
    """The failures a node fault outranks are found once for its evidence list (`_related`), not once per failure of
    the job (was: `_outranked` in the comprehension's condition, quadratic in a job's failures)."""
    import sys

    attribute_module = sys.modules["triage.attribute"]  # (the package's `attribute` is the function)
    calls = []
    real = attribute_module._outranked
    monkeypatch.setattr(attribute_module, "_outranked", lambda job, v: calls.append(1) or real(job, v))
    logs = INCIDENT_LOGS / "dra-driver-nvidia-gpu-982-reset-required" / "logs"
    clock = Clock()
    job_lines = (logs / "job.log").read_text().splitlines()
    ranks = [e for n in range(4) for e in read_lines(job_lines, f"job-{n}.log", clock)]  # four processes refused
    (incident,) = attribute([*ranks, *read_lines((logs / "dmesg.txt").read_text().splitlines(), "dmesg.txt", clock)])
    assert incident.rule == "node_fault"
    assert sorted((e.file, e.kind) for e in incident.evidence) == sorted(
        [("dmesg.txt", "gpu_reset_required")] + [(f"job-{n}.log", "gpu_busy") for n in range(4)])
    assert len(calls) == 1, calls  # once for the verdict, its evidence and its sentence alike (was: once each)


def test_a_node_faults_sentence_says_every_failure_its_evidence_lists():
    """REAL (kubernetes-sigs/dra-driver-nvidia-gpu #982's NV_ERR_RESET_REQUIRED; EnzymeAD/Enzyme-JAX #623's XLA
    key-value wait, a barrier timeout naming no rank): the node fault's incident lists the timeout among its evidence
    and its sentence counts it. Before: the sentence skipped the kind barrier_timeout (a hand-kept set of kinds it
    "counted") while counting only ranked barrier lines, and said "no other rank reported a failure"."""
    clock = Clock()
    dmesg = (INCIDENT_LOGS / "dra-driver-nvidia-gpu-982-reset-required" / "logs" / "dmesg.txt").read_text()
    wait = (INCIDENT_LOGS / "enzyme-jax-623-getkeyvalue-timeout" / "logs" / "job.log").read_text().splitlines()[:1]
    (incident,) = attribute([*read_lines(dmesg.splitlines(), "dmesg.txt", clock), *read_lines(wait, "job.log", clock)])
    assert (incident.rule, incident.root.kind) == ("node_fault", "gpu_reset_required")
    assert [(e.kind, e.rank) for e in incident.evidence] == [("gpu_reset_required", None), ("barrier_timeout", None)]
    assert incident.consequences == "1 failure(s) of the job after it (key-value wait timeout (after 10m) on job.log)"


def test_two_ranks_on_one_gpu_are_the_applications_failed_init():
    """REAL: NCCL's "Duplicate GPU detected" at a communicator's init, the writer's rank first (src/init.cc): NVIDIA-
    NeMo/RL #3155's line behind Ray's prefix was no failure at all (the NCCL WARN row's warning); clessig/atmorep
    #77's PyTorch quote of it after "Last error:" behind srun's label left the exception naming no rank."""
    log = INCIDENT_LOGS / "nemo-rl-3155-duplicate-gpu" / "logs" / "driver.log"
    [first] = attribute(list(read_lines(log.read_text().splitlines(), "driver.log", Clock())))
    assert (first.category, first.rule, first.root.rank, first.root.host, first.root.gpu) == (
        "application", "first_failure", 15, "pool0-00008", 7)
    assert first.root.kind == "nccl_error"
    # the reason says what the line says (parsers/kinds.py nccl_error's `named`), as the pod's Event does
    # (tests/agent/test_workloads.py): was "NCCL error on rank 15 on pool0-00008 at .."
    assert first.reason.startswith("two ranks on one GPU (NCCL found rank 7 on this rank's device) on rank 15 on "
                                   "pool0-00008 at 2026-07-10 06:19:36 UTC is the earliest failure"), first.reason
    import yaml  # the quote's lines as the corpus holds them (tests/fixtures/realworld/jobs-duplicate-gpu-2026.yaml)

    corpus = Path(__file__).parents[1] / "fixtures" / "realworld" / "jobs-duplicate-gpu-2026.yaml"
    [quoted] = [i["text"] for i in yaml.safe_load(corpus.read_text()) if i["source"].endswith("atmorep/issues/77")]
    evidence = list(read_lines(quoted.splitlines(), "train.log", Clock()))
    # the exception's own line, then its amendment by the quote (the job puts it in place of the first: one failure)
    ev = [e for e in evidence if e.kind == "nccl_error"][-1]
    assert (ev.line, ev.details["amends"], ev.rank, ev.attribution) == (1, "rank", 3, "application")
    assert ev.details["other_rank"] == 0
    [first] = attribute(evidence)
    assert (first.category, first.root.rank) == ("application", 3)
    assert first.reason.startswith("two ranks on one GPU (NCCL found rank 0 on this rank's device) on rank 3"), \
        first.reason


# REAL: NVIDIA/TensorRT-LLM #9263, a prefill worker's two ranks' NCCL init (INFO lines, no WARN) and its executor's error
TRTLLM_9263_INIT = [
    "test-trt-prefill-worker-0-0:42:982 [0] NCCL INFO ncclCommInitRank comm 0x7a12257c8780 rank 0 nranks 2 cudaDev 0 "
    "nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c - Init START",
    "test-trt-prefill-worker-0-0:43:43 [0] NCCL INFO ncclCommInitRank comm 0x397e3800 rank 1 nranks 2 cudaDev 0 nvmlDev "
    "0 busId 100000 commId 0xaa9becea043c4e6c - Init START",
]
TRTLLM_9263_ERROR = ("[11/18/2025-09:33:30] [TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: "
                     "[TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error ../tensorrt_llm/runtime/"
                     "ncclCommunicator.cpp:90 'invalid usage (run with NCCL_DEBUG=WARN for details)'")
# REAL: triton-inference-server/tensorrtllm_backend #170, pasted indented: two processes' init of one commId on busId
# ca000, and TensorRT-LLM's send plugin's error naming no host
TRTLLM_BACKEND_170 = [
    "          xllm3-milu2-neil-3-trt-llm-f7457bcc-xsv4v:5012:5098 [0] NCCL INFO comm 0x7f39f570a8e0 rank 1 nranks 2 "
    "cudaDev 0 nvmlDev 2 busId ca000 commId 0x2ca118a142cc4635 - Init START",
    "          xllm3-milu2-neil-3-trt-llm-f7457bcc-xsv4v:5010:5090 [0] NCCL INFO comm 0x7fa26147d290 rank 0 nranks 2 "
    "cudaDev 0 nvmlDev 2 busId ca000 commId 0x2ca118a142cc4635 - Init START",
    "          Failed, NCCL error /app/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/sendPlugin.cpp:129 'invalid usage "
    "(run with NCCL_DEBUG=WARN for details)'",
]
SHARED_GPU = "two ranks on one GPU (NCCL found rank {} on this rank's device)"


def test_two_ranks_init_on_one_gpu_by_ncclS_info_lines_alone_is_the_duplicate_gpu_verdict():
    """NCCL's init lines alone (no "Duplicate GPU detected" WARN in the log): two ranks of one commId on one host's
    busId, then the job's ncclInvalidUsage, is the WARN's verdict, said as it is (was: "NCCL error 'invalid usage'")."""
    evidence = list(read_lines(TRTLLM_9263_INIT, "init.log", Clock())) + list(
        read_lines([TRTLLM_9263_ERROR], "executor.log", Clock()))
    assert [e.details.get("comm_id") for e in evidence if e.kind == "nccl_rank"] == ["0xaa9becea043c4e6c"] * 2
    [first] = attribute(evidence)
    assert (first.category, first.rule, first.root.kind, first.root.rank, first.root.host) == (
        "application", "first_failure", "nccl_error", 0, "test-trt-prefill-worker-0-0")
    assert first.reason.startswith(SHARED_GPU.format(1) + " on rank 0 on test-trt-prefill-worker-0-0"), first.reason
    # the send plugin's error naming no host, in the file of one host's init lines: that host's
    [first] = attribute(list(read_lines(TRTLLM_BACKEND_170, "tritonserver.log", Clock())))
    assert (first.category, first.root.host) == ("application", "xllm3-milu2-neil-3-trt-llm-f7457bcc-xsv4v")
    assert first.reason.startswith(SHARED_GPU.format(0) + " on rank 1 on xllm3"), first.reason


@pytest.mark.parametrize("change", [
    lambda line: line.replace("busId 100000", "busId 200000", 1) if "rank 1 " in line else line,  # another GPU
    lambda line: line.replace("test-trt-prefill-worker-0-0:43", "test-trt-prefill-worker-0-1:43"),  # another host
    lambda line: line.replace("commId 0xaa9becea043c4e6c", "commId 0xbb9becea043c4e6c") if "rank 1 " in line
    else line,  # another communicator
    lambda line: line.replace(" commId 0xaa9becea043c4e6c", ""),  # an older release's: no communicator named
])
def test_ranks_of_other_gpus_hosts_or_communicators_are_no_shared_gpu(change):
    """Never across bus ids, hosts or communicators, nor from init lines naming no communicator: the job's "invalid
    usage" stays what it says."""
    evidence = list(read_lines([change(line) for line in TRTLLM_9263_INIT], "init.log", Clock())) + list(
        read_lines([TRTLLM_9263_ERROR], "executor.log", Clock()))
    [first] = attribute(evidence)
    assert first.reason.startswith("NCCL error 'invalid usage'"), first.reason


def test_shared_gpu_init_lines_of_a_large_job_are_bounded():
    """A job of 10,000 ranks' init lines (each its own GPU, two hosts' ranks sharing none): one entry per (host,
    commId, busId), no pair; two ranks on one GPU found among them."""
    from triage.attribute import _shared_gpus
    from triage.model import Evidence
    lines = [Evidence("nccl_rank", "info", host=f"node{r // 8}", rank=r, pid=r, gpu=r % 8,
                      details={"nranks": "10000", "busid": f"{r % 8}000", "comm_id": "0x1"}) for r in range(10000)]
    assert _shared_gpus(lines) == {}
    twin = Evidence("nccl_rank", "info", host="node3", rank=9999, pid=1, gpu=0,
                    details={"nranks": "10000", "busid": "0000", "comm_id": "0x1"})
    shared = _shared_gpus(lines + [twin])
    assert [(init.rank, other) for init, other in shared["node3"]] == [(24, 9999), (9999, 24)]


def test_a_23_era_dump_line_names_the_lagging_rank():
    """CONSTRUCTED (pytorch/pytorch #122850's test output, unwrapped; PyTorch 2.2-2.3's monitor words): rank 0 timed
    out in SeqNum 2, rank 1's monitor, told through the store, had enqueued only work 1: the lagging rank, as with 2.4+'s
    "Received a dump signal .. from  rank 0" (was: not read, undetermined with no rank)."""
    lines = [
        "[rank0]:[E327 17:04:16.986381360 ProcessGroupNCCL.cpp:565] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=12, NumelOut=12, Timeout(ms)=1000) ran for 1099 "
        "milliseconds before timing out.",
        "[rank0]:[E327 17:04:16.988036373 ProcessGroupNCCL.cpp:1582] [PG 0 Rank 0] Timeout at NCCL work: 2, last "
        "enqueued NCCL work: 2, last completed NCCL work: 1.",
        "[rank1]:[E327 17:04:17.182548526 ProcessGroupNCCL.cpp:1346] [PG 0 Rank 1] Received a global timeout from "
        "another rank and will start to dump the debug info. Last enqueued NCCL work: 1, last completed NCCL work: 1.",
    ]
    incident = job({"train.log": lines})[0]
    assert (incident.category, incident.root.rank, incident.rule) == ("undetermined", 1, "lagging_rank")
