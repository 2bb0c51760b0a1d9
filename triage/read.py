"""Lines of one file in, evidence out: launcher prefixes peeled (triage.ranks), node and NCCL faults from the
parsers' Classifier, job facts from triage.facts, Python tracebacks and torchrun's ChildFailedError summary read
as blocks, each line's time from its envelope or the application's own stamp.

Pure: the caller opens the file and hands its lines over; the Clock it is given collects boot anchors and years
for `Clock.align` once every file is read.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import islice
from typing import Iterable, Iterator, NamedTuple

from parsers import Classifier, Finding, all_keywords, at_least, detect
from parsers.envelope import stern_record
from parsers.kinds import TABLE as KIND_TABLE
from parsers.prefilter import Prefilter
from parsers.records import line_records
from parsers.redacted import placeholder
from parsers.rules import EVENT_FILL_ALONE, VLLM_NO_NVLINK

from . import facts
from .facts import NODE_NAMED
from .clock import Clock, app_stamp
from .model import TEXT_MAX, Evidence, as_int, utc
from .ranks import UNREAD, Origin, from_path, hostname_of_pod, in_message, origin_of, strip_lead

log = logging.getLogger("gpu_npd.triage")
MAX_LINE = 65536  # characters of one line read; the rest of a longer line is not looked at
# a rank's collective as its watchdog's WorkNCCL(..) names it (parsers/rules.py EVENT_FILL_ALONE's "nccl_watchdog": a
# later line of the rank's failure naming what its first line did not)
_WORK = EVENT_FILL_ALONE["nccl_watchdog"]
# what a later line of an event may amend in its evidence (parsers' EVENT_AMENDS details, read in `_amended`)
_AMENDED = frozenset({"severity", "pci", "peer", "pid", "oom", "gpu", "rank", NODE_NAMED, *_WORK})
YEAR_PROBE_LINES = 2000  # lines of a file searched for a dated stamp (the job's year) until one is found
MAX_PER_KIND = 5000  # evidence of one kind kept per file: a log of a million timeouts says no more than this
MAX_PENDING = 50000  # evidence held back to the file's end for the rank another line of its process names
MAX_FOUND = 4096  # evidence of the latest findings remembered by line, for the parsers' amendments of them
MAX_KEYS = 4096  # writers one per-writer map of a file's reading state holds; one past it is not tracked
TRACEBACK_LINES = 400  # lines after "Traceback (most recent call last):" its exception line may come
# `kubectl describe pod` output: "Name:" flush left opens a pod's description, "Namespace:" follows it, and "Node:" within
# its header names the node the pod was placed on ("Node:         node-c/10.0.0.13", "<none>" while unscheduled): the
# host of the lines after it until the next description (a pod's status messages and its Events name no host; the
# container runtime's hook refusing the pod its GPUs is that node's fault). Other files' lines are untouched.
_DESCRIBE_NAME, _DESCRIBE_NAMESPACE, _DESCRIBE_NODE = "Name:", "Namespace:", re.compile(r"Node:\s+([^\s/]+)(?:/\S*)?\s*$")
DESCRIBE_HEADER_LINES = 40  # lines after "Name:" its "Node:" may come
# the scheduler's Scheduled Event as describe's Events table prints it (facts.DESCRIBE_EVENT), its
# "Successfully assigned <namespace>/<pod> to <node>" the pod's node as "Node:" is (an Events table pasted without its
# header, NVIDIA/gpu-operator #549); `kubectl get events`' rows (the object column "pod/<name>", rows of many pods) are
# not one pod's
_SCHEDULED_WORD = "Successfully assigned "  # among the keywords (`_prefilter`): a line without it is never looked at
_SCHEDULED = re.compile(_SCHEDULED_WORD + r"([a-z0-9][-a-z0-9]*)/([a-z0-9][-a-z0-9.]*) to ([^\s/]+)$")


def describe_scheduled(line: str) -> re.Match | None:
    """A describe Events table's Scheduled row: its message's match, groups (namespace, pod, node); None for any
    other line."""
    m = facts.DESCRIBE_EVENT.match(line)
    if m is None or m.group("type") != "Normal" or m.group("reason") != "Scheduled":
        return None
    return _SCHEDULED.match(m.group("message"))


# torchrun's ChildFailedError summary: "[0]:" opens a failure, "  rank      : 3 (local_rank: 3)" fields follow (flush left
# where a log collector stripped the indentation: CloudWatch, pytorch/pytorch #69520)
# envelopes whose stamp prints no year (BSD syslog, klog's "I0809 13:32:51.873532"): detect gives them 1900 when the
# job's year is not known yet, a placeholder (yearless) for Clock.align to replace, never a date
_YEARLESS = frozenset({"syslog", "klog"})
_BLOCK_OPEN = re.compile(r"^\s*\[(\d+)\]:\s*$")
_BLOCK_FIELD = re.compile(r"^\s*(time|host|rank|exitcode|error_file|traceback)\s*: ?(.*)$")
_ROOT_CAUSE = "Root Cause (first observed failure)"
_BLOCK_RANK = re.compile(r"(?P<rank>\d+)(?: \(local_rank: (?P<local_rank>\d+)\))?")
_BLOCK_EXIT = re.compile(r"(-?\d+)(?: \(pid: (\d+)\))?")
# Open MPI's (and PRRTE's) exit summary, after "... exited with non-zero status, thus causing the job to be
# terminated. The first process to do so was:": "  Process name: [[50371,1],0]" (ORTE's [[job,family],rank], PRRTE's
# [nspace,rank]) and "  Exit code:    1", one a line; Horovod's Gloo launcher raises the same words with the rank
# alone ("Process name: 1", its RuntimeError's next lines)
_MPI_OPEN = "The first process to do so was:"
# MPICH's and Intel MPI's Hydra launcher (mpiexec / mpirun) on a process a signal killed (pmiserv_cb.c prints it only
# when !WIFEXITED), one field a line after "=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES": MPICH 3.3+ /
# Intel MPI's "=   RANK 0 PID 5490 RUNNING AT gn59" and "=   KILLED BY SIGNAL: 9 (Killed)" (LonxunQuantum/PWmat-docs),
# 3.1-3.2's "=   PID 9665 RUNNING AT NeuroRTX6000" and "=   EXIT CODE: 9" (openai/jukebox #155), 3.0's "=   EXIT
# CODE: 9" alone.  The old EXIT CODE is the process's raw wait status (its low 7 bits the signal, 0x80 a core dump:
# "EXIT CODE: 139" is SIGSEGV dumping core); "YOUR APPLICATION TERMINATED WITH THE EXIT STRING: ... (signal N)" after
# the block is every process's status OR-ed together, no one process's, and is not read.
_HYDRA_OPEN = "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES"
_HYDRA_FIELD = re.compile(r"^=\s+(?:(?:RANK (?P<rank>\d+) )?PID (?P<pid>\d+) RUNNING AT (?P<host>\S+)|"
                          r"KILLED BY SIGNAL: (?P<signal>\d+)\b.*|EXIT CODE: (?P<status>\d+))\s*$")

# what a node agent reads of the summaries above (agent/sources/podlogs.py, `block_fact`): a line holding one of their
# openers, then at most BLOCK_LINES lines after it in the same file, read as this module reads them; the summary's root
# (torchrun's first observed failure, MPI's first process, Hydra's killed one) is the rank that exited
# what opens a block of lines read live together: the launchers' exit summaries, a coordinator's list of tasks, Ray's
# error about an actor that died (its process and node on the lines before its cause's)
# Slurm's job facts that name no node where slurmstepd's prefix names none, paired with srun's line for the tasks they
# ended, which names theirs (facts.py SRUN_TASK_ENDS), within SRUN_LINES lines after the last of them in the same file: the
# summary of the OOM kills in a step's cgroup (facts.py slurm_oom: "slurmstepd: error: Detected 1 oom_kill event in
# StepId=440575.0. .."; "srun: error: nid001277: tasks 1-3: Out Of Memory", its "Terminating ..", the step's
# cancellation after them) and the exec of a task's program that failed, a line per task (slurm_execve,
# slurm_script_execve: "slurmstepd: error: execve(): mkdir: No such file or directory" twenty times, then "srun: error:
# bear-pg0104u25b: tasks 15-19: Exited with exit code 2", firelab/windninja #624): the fact -> what srun's line says of
# the tasks (its `how`).  Such lines, one after another of the same fact, are held back together (at most
# SRUN_HELD_MAX; one past it is kept as it is) until those lines are read, then carry the one node they name (several:
# none; none by the file's end: none), offline (FileReader) and live (a block opener: `block_fact`): one fact, its
# node its own
SRUN_NODE_HOW = {"slurm_oom": ("Out Of Memory",), "slurm_execve": ("Exited with exit code",),
                 "slurm_script_execve": ("Exited with exit code",)}
_SRUN_HELD = tuple(f for f in facts.FACTS if f.name in SRUN_NODE_HOW)
SRUN_LINES = 8
SRUN_HELD_MAX = 256
_SRUN_KEYWORDS = tuple(dict.fromkeys(k for f in _SRUN_HELD for k in f.keywords))  # (a block opener's: block_fact)
# a coordinator's list of tasks opened: by a line ending with one of these (facts.TASK_LIST_OPENERS), or holding a match
# of one of facts.TASK_LIST_FOUND's patterns (its word in the prefilter's: facts.FR_NOT_JOINED)
_TASK_LIST_ENDS = tuple(facts.TASK_LIST_OPENERS)
BLOCK_OPENERS = (_ROOT_CAUSE, _MPI_OPEN, _HYDRA_OPEN, *_TASK_LIST_ENDS, facts.RAY_ACTOR_OPENER, *_SRUN_KEYWORDS)
BLOCK_LINES = 12


class _BlockKind(NamedTuple):
    """A summary a launcher prints over several lines, one field a line, that names a rank that exited."""
    fact: str  # the evidence's details["fact"]
    field: re.Pattern  # a field line: (its name, its value)
    names: dict  # the launcher's field name -> the summary's own (rank, exitcode, time, host, traceback)
    rank: re.Pattern  # the rank (and local rank) in the rank field's value


BLOCK_KINDS = {
    "elastic": _BlockKind("elastic_summary", _BLOCK_FIELD, {}, _BLOCK_RANK),
    "mpi_exit": _BlockKind("mpi_first_exit", re.compile(r"^\s*(Process name|Exit code)\s*: *(.*)$"),
                           {"Process name": "rank", "Exit code": "exitcode"},
                           re.compile(r"^(?:\[.*,)?(?P<rank>\d+)\]?$")),
    # its fields are read by `_hydra_field` (one line names rank, pid and host together)
    "hydra": _BlockKind("hydra_bad_termination", _HYDRA_FIELD, {}, _BLOCK_RANK),
}
_SIGNAL_TEXT = re.compile(r"Signal (\d+) \((SIG\w+)\)")
_NUMEL = re.compile(r"NumelIn=(\d{1,18})")
# A watchdog's WorkNCCL(..) wrapped by a terminal at its width, a field cut at the line's end and its rest starting
# the next line, no prefix on it (HKUDS/GraphGPT #44 at 75 columns: "WorkNCCL(" / "SeqNum=778778, ..", "OpT" /
# "ype=ALLREDUCE, ..", "Timeout(ms)=1800000" / ") ran for .."; NVIDIA-NeMo/Speech #13562 at 183: "NumelOut=5" /
# "164000, .."): the lines are one again (`rejoined`) where the next line is the rest of the field the line ended in,
# a whole "Key=value" then PyTorch's ", " or ")" (the fields of ProcessGroupNCCL's WorkNCCL operator<<, every era's),
# at most WORK_JOINS lines; any other next line is read as its own. Was: the cut field lost (OpType, Timeout(ms)).
_WORK_OPEN = "WorkNCCL("
_WORK_KEYS = r"(?:SeqNum|OpType|NumelIn|NumelOut|Timeout\(ms\))="
_WORK_FIELD = re.compile(_WORK_KEYS + r"\w{1,24}")
_WORK_REST = re.compile(_WORK_KEYS + r"\w{1,24}(?:, |\))")
WORK_PART_MAX = 24  # characters of a field a cut line may end in
WORK_JOINS = 3  # lines one WorkNCCL(..) may be wrapped over after its first (five fields, 75 columns and up)
# A watchdog line wrapped before its WorkNCCL(..): the line ends with the words PyTorch prints before it ("Watchdog
# caught collective operation timeout: ", 1.x's "Caught collective operation timeout: ") and the next line starts
# with "WorkNCCL(" (milabench's output wrapped at a word, mila-iqia/milabench #269: ".. operation timeout: " /
# "WorkNCCL(SeqNum=2070, OpType=REDUCE, .."): joined as a cut field is, only then. Was: the rank's timeout read
# without its SeqNum, OpType and Timeout(ms).
_WORK_LEAD = "collective operation timeout:"
# Each line end a terminal may wrap a watchdog line at (at a word: the blank between the two lost or kept) and the words
# the next line must start with to be its rest, joined only then: the timeout line before its WorkNCCL(..)
# (_WORK_LEAD), and the progress line's "Exception (either an error or timeout) detected" before "by watchdog at work:
# 2070, last enqueued NCCL work: .." (milabench #269, rank 12). Was: the progress line no line at all (facts:
# watchdog_progress), the rank's last enqueued / completed work unread.
WORD_WRAPS: tuple[tuple[str, str], ...] = (
    (_WORK_LEAD, _WORK_OPEN),
    ("(either an error or timeout) detected", "by watchdog at work"),
)
_WRAP_LEADS = tuple(lead for lead, _ in WORD_WRAPS)  # (every line's one test: str.endswith of the tuple)
_WRAP_WORD = "timeout"  # in every word of WORD_WRAPS: a part of a file without it (nor WorkNCCL) has no line to rejoin
# PyTorch's watchdog progress line (facts: watchdog_progress, "[PG ID 0 PG GUID 0(default_pg) Rank 3]  failure detected by
# watchdog at work sequence id: 7219 PG status: ..."): the words a line must hold to be one (`progress_group`)
PROGRESS_KEYWORDS = tuple(dict.fromkeys(k for f in facts.FACTS if f.kind == "nccl_progress" for k in f.keywords))
# NVRM on an Xid that only cleans up after another (45, 43 and kin): "..., Ch 00000001 caused by previous Xid 149"
_CAUSED_BY_XID = re.compile(r"caused by previous Xid (\d{1,4})\b")
# nvidia-resiliency-ext's in-process restart (inprocess.Wrapper) ending or interrupting a rank by its own decision, for
# a failure it logged elsewhere (its "fn_ex", its monitor's): RankDiscarded (its rank assignment dropped the rank,
# "nvidia_resiliency_ext.inprocess.rank_assignment.RankDiscarded: state.rank=14 terminated_ranks={0, 1, .., 15}",
# NVIDIA/nvidia-resiliency-ext #136: "ranks terminated intentionally by NVRx"), RestartAbort (its Initialize giving up:
# max_iterations reached, the world too small), RankShouldRestart (its monitor thread interrupting a rank because
# another failed).  A training job's own processes, as a witness says live.  Was: APPLICATION, the discarded rank the
# culprit
NVRX_INPROCESS_ENDS = r"RankDiscarded|RestartAbort|RankShouldRestart"
# exception types that are another rank's failure seen from here, or the launcher's summary of one (Horovod's
# "Horovod has been shut down. This was caused by an exception on one of the ranks ...", whatever the framework's
# exception type around it, and its elastic mode's HorovodInternalError when a peer is gone)
CONSEQUENCE_EXCEPTIONS = re.compile(
    r"DistBackendError|DistNetworkError|DistStoreError|ChildFailedError|ProcessGroupNCCL|NCCL|Watchdog|"
    r"timed? ?out|Timeout|CalledProcessError|BrokenPipe|"
    r"ConnectionReset|remote process exited|Connection closed|Horovod has been shut down|HorovodInternalError|"
    # an exception group: its sub-exceptions, printed after it, are the failures
    r"ExceptionGroup|"
    # Ray's errors of an actor, worker or node that died ("ray.exceptions.RayActorError: The actor died unexpectedly
    # before finishing this task.", ray-project/ray #43751; ActorDiedError, Ray 2.10+, #47759): the death is the
    # failure, printed elsewhere (the raylet's, the GCS's lines: facts.py process_lost)
    r"RayActorError|ActorDiedError|ActorUnavailableError|WorkerCrashedError|NodeDiedError|OwnerDiedError|"
    + NVRX_INPROCESS_ENDS + "|"
    # an error that says its root cause was printed elsewhere: vLLM's API server re-raising its engine's failure
    # ("EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."), its engine
    # re-raising its workers' ("WorkerProc initialization failed due to an exception in a background process. See
    # stack trace for root cause.", "Engine core initialization failed. See root cause above."), and its executor
    # refusing work once its monitor saw a worker die ("RuntimeError: Executor failed.": multiproc_executor.py
    # collective_rpc, raised only when is_failed, which only that monitor sets, after its "Worker proc VllmWorker-0 died
    # unexpectedly" / RayExecutorV2's "RayWorkerProc rank=[1] died unexpectedly"; the death is the failure)
    r"EngineDeadError|see (?:the )?(?:stack trace|traceback|root cause)|for (?:the )?root cause|"
    r"^Executor failed\.$", re.I)
# the consequences a rank's witness says live (facts.LIVE "exception", its `told` words): those whose type says the
# job's own processes failed (Ray's compiled-graph channel, a worker or node lost; vLLM's engine; torchelastic's child;
# torch.distributed's backend, network or store; Horovod's).  Not a socket's error nor a timeout of any other kind,
# which a healthy server logs for a client gone (a BrokenPipeError, ConnectionResetError or TimeoutError in a serving
# pod would be an Event on every node that logs one and an incident for a job that did not fail), nor Ray's error of
# an actor that died (RayActorError, ActorDiedError, ActorUnavailableError, OwnerDiedError), which Ray Serve's callers
# log for a replica its autoscaler killed (`ray.kill`, ray-project/ray #24419); offline reads every consequence (a log
# handed to triage is a failed job's).  vLLM's engine death in every era: V1's EngineDeadError, V0's MQEngineDeadError
# (the multiprocessing front end's, "Engine loop is not running", vllm-project/vllm-ascend #629) and
# AsyncEngineDeadError (was: V0's said by no witness live, read offline)
ENGINE_DEAD = r"(?:MQ|Async)?EngineDeadError"
WITNESSED_CONSEQUENCES = re.compile(
    r"(?:^|\.)(?:RayChannel\w*Error|WorkerCrashedError|NodeDiedError|" + ENGINE_DEAD + r"|ChildFailedError|"
    r"DistBackendError|DistNetworkError|DistStoreError|HorovodInternalError|" + NVRX_INPROCESS_ENDS + ")$")
# exception types that stop a process without failing it (a user's Ctrl-C or a launcher's SIGINT, `sys.exit`, torchelastic's
# SignalException for the SIGTERM / SIGINT / SIGHUP it was sent: a job told to stop), and any exception chained after
# one: consequences like those above, but no failure at all, where those are a failure whose cause is elsewhere
STOP_EXCEPTIONS = re.compile(r"KeyboardInterrupt|SystemExit|SignalException")
# SystemExit is a stop only with a success status: `sys.exit()`, `sys.exit(0)`, `sys.exit(False)` (printed "SystemExit",
# "SystemExit: 0", "SystemExit: None", "SystemExit: False": False is the int 0, exit 0; Ray's exit_actor, "SystemExit:
# 0", ray-project/ray #15862).  A non-zero code (`sys.exit(True)`, "SystemExit: True", exits 1), or a message (which
# exits 1), is the program's own decision to fail, printed where something caught and logged it: argparse's
# `self.exit(2, ..)`, "_sys.exit(status)" then "SystemExit: 2" after "train.py: error: the following arguments are
# required: config" (kaylode/facemask-removal #5): a failure, as any exception
CLEAN_EXITS = ("", "0", "None", "False")


def stops(etype: str, message: str) -> bool:
    """Whether an exception of `etype` with `message` (its printed value) stops its process without failing it
    (STOP_EXCEPTIONS; a SystemExit only with a success status, CLEAN_EXITS)."""
    if STOP_EXCEPTIONS.search(etype) is None:
        return False
    return not etype.endswith("SystemExit") or message.strip() in CLEAN_EXITS
# A healthy stop's exceptions: raised in code that runs only while a process stops, or after its server said it was
# stopping.  Such an exception is a stop (as STOP_EXCEPTIONS: no failure; a warning, its cause elsewhere), never the
# job's failure; a crash while stopping is still read (a CUDA error, a fact the message states: the parsers' and facts'
# kinds come first, and a GPU's or node's fault is never hidden).  STOPPING: a traceback through a frame of teardown code
# (its file and function, the frame's own line: `  File "<path>", line N, in <function>`), ending in one of the
# exceptions that code raises when it is torn down:
#  - uvicorn's lifespan task, cancelled by asyncio.run's cancelling of the tasks left at the event loop's close (after
#    "Shutting down" / "Finished server process [N]"): starlette's `lifespan` awaiting uvicorn/lifespan/on.py `receive`,
#    ending in a bare `asyncio.exceptions.CancelledError` (arcee-ai/fastmlx #14, a Ctrl-C'd MLX inference server;
#    Kludex/uvicorn #2173, #1160 with Nuitka's Windows paths; Lightning-AI/LitServe #11; spyrae/kronos-agent-os #83
#    measures it: the traceback appears only as asyncio.run cancels leftover tasks at loop close).  Every inference
#    server on uvicorn (vLLM's, SGLang's OpenAI servers; FastAPI) prints it at a Ctrl-C or SIGTERM;
#  - hypercorn's lifespan task (hypercorn/asyncio/lifespan.py `handle_lifespan`, the app's lifespan awaited in it),
#    cancelled by its serve's teardown (run.py `worker_serve`: "lifespan_task.cancel()" then "await lifespan_task",
#    only once the server stopped), ending in its bare `CancelledError` (pgjones/hypercorn #258, first in #240: a
#    Ctrl-C of `serve` with its DispatcherMiddleware).  The task re-raises LifespanFailureError too (an app's
#    startup / shutdown failed: apache/tooling-trusted-releases #320), and a startup that timed out is
#    LifespanTimeoutError (#315): a failure each, as before;
#  - multiprocessing's queue feeder thread (queues.py `_feed`), whose pipe's reader is gone: `BrokenPipeError: [Errno
#    32] Broken pipe` and kin.  The feeder prints its error and the process goes on (queues.py
#    `_on_queue_feeder_error`); the reader's end is its cause, logged as that reader's (MLOPTPSU/FedTorch #4, "I still
#    can get a result", the authors: "does not affect the training result"; tae-jun/resemul #4).  Any other exception
#    there (a pickling error: the item lost, a program's bug) stays a failure;
#  - multiprocessing's exit handler (util.py `_exit_function`, registered with atexit: it runs only once the program's
#    own code has returned), whatever it raises (saga-project/BigJob #157, "Error in atexit._run_exitfuncs:" then its
#    `TypeError: 'NoneType' object is not callable`, the install "successful anyways"; CDAT/cdat #28).
CANCELLED = re.compile(r"^(?:asyncio\.(?:exceptions\.)?|concurrent\.futures\.(?:_base\.)?)?CancelledError$")
PIPE_GONE = re.compile(r"^(?:BrokenPipeError|ConnectionResetError|ConnectionAbortedError|EOFError)$")


class Stopping(NamedTuple):
    """Teardown code a traceback passes through: its frame, and the exceptions (types) that end it as a stop (None:
    any)."""
    name: str
    frame: re.Pattern  # the frame line's end: its file and function
    ends: str  # the frame line's last words, its function (a cheap test before `frame`)
    exceptions: re.Pattern | None


STOPPING = (
    Stopping("asgi_lifespan", re.compile(r'uvicorn[/\\]lifespan[/\\]on\.py", line \d+, in receive$'), ", in receive",
             CANCELLED),
    Stopping("hypercorn_lifespan",
             re.compile(r'hypercorn[/\\]asyncio[/\\]lifespan\.py", line \d+, in handle_lifespan$'),
             ", in handle_lifespan", CANCELLED),
    Stopping("queue_feeder", re.compile(r'multiprocessing[/\\]queues\.py", line \d+, in _feed$'), ", in _feed", PIPE_GONE),
    Stopping("exit_function", re.compile(r'multiprocessing[/\\]util\.py", line \d+, in _exit_function$'),
             ", in _exit_function", None),
    # a SIGTERM handler's `sys.exit(signum)`: the process told to stop, its non-zero SystemExit no failure (Ray's
    # ray/_private/worker.py `sigterm_handler`, '  File "/usr/local/python3.10.17/lib/python3.10/site-packages/ray/_private/
    # worker.py", line 1539, in sigterm_handler', "    sys.exit(signum)", "SystemExit: 15": vllm-project/vllm-ascend
    # #901, the executor's shutdown)
    Stopping("sigterm_handler", re.compile(r'", line \d+, in sigterm_handler$'), ", in sigterm_handler",
             re.compile(r"^SystemExit$")),
)
_STOPPING_ENDS = tuple(dict.fromkeys(s.ends for s in STOPPING))
# Python's shared-memory objects, which live in /dev/shm: multiprocessing's locks, semaphores and queues (synchronize.py
# SemLock.__init__, sem_open: "  File "/usr/lib/python3.10/multiprocessing/synchronize.py", line 57, in __init__", then
# "    sl = self._semlock = _multiprocessing.SemLock("; every Queue, Lock and DataLoader's index queue makes one) and
# multiprocessing.shared_memory's SharedMemory (shared_memory.py __init__, its /dev/shm file sized by ftruncate).  A
# storage error a traceback through one of their frames ends is /dev/shm's, as the line naming a /dev/shm path is
# (facts.SHM_LINE), though its own line, "OSError: [Errno 28] No space left on device", names none: NVIDIA/Megatron-LM
# #878, a container's 64 MB default /dev/shm ("I fixed that with `docker run --shm-size="64g"`"), python/cpython
# #93253 (docker --shm-size=1m); was a storage error, the disk's
SHM_FRAME = re.compile(r'multiprocessing[/\\](?:synchronize|shared_memory)\.py", line \d+, in __init__$')
_SHM_FRAME_END = ", in __init__"
# What a server says once told to stop (uvicorn's Server.shutdown "Shutting down" and its last line "Finished server
# process [N]", logged on a SIGINT / SIGTERM or should_exit, never on a crash; gunicorn's worker's "Worker exiting (pid:
# N)"), the logger's level prefix before it (uvicorn's "INFO:     ", gunicorn's "[INFO] "): the same writer's
# cancellation (CANCELLED) within TRACEBACK_LINES lines after it is that stop's, wherever it was raised (jundot/omlx
# #1575: "Finished server process [5029]", then asyncio.run's `asyncio.exceptions.CancelledError` from
# run_until_complete; ogx-ai/ogx #1043).  A request's cancellation while the server runs (uvicorn's "Exception in ASGI
# application", its chained exception after it) is no stop.
# One row a wording: (its words, a keyword of the prefilter and of TRACED_OPENERS; the regex of what ends the line).
STOP_SAID_ROWS = (("Shutting down", ""), ("Finished server process [", r"\d{1,10}\]"),
                  ("Worker exiting (pid: ", r"\d{1,10}\)"))
STOP_SAID = tuple(words for words, _ in STOP_SAID_ROWS)
_STOP_SAID = re.compile(r"(?:INFO:\s+|\[INFO\] )(?:"
                        + "|".join(re.escape(words) + end for words, end in STOP_SAID_ROWS) + r")\s*$")
# c10's internal assertion, failed in this process (TORCH_INTERNAL_ASSERT: "<condition> INTERNAL ASSERT FAILED at
# "<file>":<line>, please report a bug to PyTorch. .."): the file it names is where the check is, so an assertion in
# ProcessGroupNCCL.cpp ("ncclComm != nullptr INTERNAL ASSERT FAILED at "/pytorch/torch/csrc/distributed/c10d/
# ProcessGroupNCCL.cpp":4043, please report a bug to PyTorch. Parent communicator missing in eager initialization mode.",
# ranks 1 and 2 of a Lightning Fabric job, awslabs/keys_values ai_dev/debug_ring_attention_distributed_test.md) is the
# rank's own failure, its message's words not read for a consequence's (its type still is)
OWN_ASSERT = re.compile(r"\bINTERNAL ASSERT FAILED at \"")
# PyTorch's distributed checkpoint (DCP) gathers the ranks' own failures of a save or load into one exception, every
# rank re-raising it (torch/distributed/checkpoint/api.py, 2.0+): "torch.distributed.checkpoint.api.CheckpointException:
# CheckpointException ranks:dict_keys([3, 7])", each rank's exception after it (DCP_RANK, DCP_FAILURE).  It is their
# consequence once one of them is read after it; with none (a log cut after it) it is the failure (FileReader._dcp_open)
# The ranks' own failures a CheckpointException prints after its first line (its __str__, every release since 2.0):
# "Traceback (most recent call last): (RANK 3)", that rank's frames and its exception (the exception's own rank, not the
# writer's: every rank prints every failing rank's), or, for a failure DCP holds no traceback of (a later revision of
# api.py), "RANK 3: [Errno 28] No space left on device" (str(exc), no type), one a line.
DCP_RANK = re.compile(r"^Traceback \(most recent call last\): \(RANK (\d{1,9})\)\s*$")
DCP_FAILURE = re.compile(r"^RANK (\d{1,9}): (.+)$")


_TRACEBACK_OPENERS = (facts.TRACEBACK, facts.GROUP_TRACEBACK)
# A traceback a program logs for an exception it handled and went on from: no failure, whatever it ends with.  NeMo's
# optional imports (nemo/utils/import_utils.py safe_import / safe_import_from: "Import of {module} failed with: {tb}" at
# DEBUG, "Import of {symbol} from {module} failed with: {tb}" at INFO, then the placeholder is used): "Import of
# quick_gelu from megatron.core.fusions.fused_bias_geglu failed with: Traceback (most recent call last):" and its
# "INFO:nemo.utils.import_utils:" twin, each rank's at start of MLPerf Training v5.1's HPE XD670 8x H200 llama31_8b runs
# that reached their target (mlcommons/training_results_v5.1; was: an application incident, the AttributeError).
CAUGHT = re.compile(r"^(?:(?:DEBUG|INFO):[\w.]+:)?Import of [\w.]+(?: from [\w.]+)? failed with: "
                    + re.escape(facts.TRACEBACK) + r"$")
# A traceback a program announces as handled on a line before it: TorchDynamo's frame it could not compile and ran
# uncompiled instead ("WON'T CONVERT <function> <file> line <n>", then "due to:" and the traceback on lines of their
# own): 2.0's "[2023-09-11 17:36:31,123] torch._dynamo.convert_frame: [ERROR] WON'T CONVERT forward /home/tiger/.cache/
# huggingface/modules/transformers_modules/modeling_baichuan.py line 674 ", the rest unprefixed (baichuan-inc/
# Baichuan2 #84: the fine-tuning ran on; was: an application incident, the TypeError), 2.2+'s behind its W-level
# record header on every line ("W0711 17:08:34.348000 76404 Lib\site-packages\torch\_dynamo\convert_frame.py:1280]
# WON'T CONVERT ..", ChenDarYen/ComfyUI-NAG #33).  And Python's own for an exception it could not raise (sys.
# unraisablehook: in a `__del__`, a finalizer, a callback; "Exception ignored in: <obj>", 3.13's "Exception ignored
# while ..."), the program going on: PyTorch's DataLoader iterator deleted at an epoch's end ("Exception ignored in:
# <bound method _DataLoaderIter.__del__ of ..>", then a ConnectionResetError, yogeshbalaji/Generate_To_Adapt #7, "some
# warning"; jihanyang/AFN #8, its training going on; was, since such an exception counts as a failure: undetermined).
# And Python's logging for a record it could not emit (logging.Handler.handleError: "--- Logging error ---", the
# traceback, then "Call stack:" with the logging call's frames, "Message: ..", "Arguments: .."), the program going on:
# a format string with too many arguments ("TypeError: not all arguments converted during string formatting",
# pencoa/PCNN #1, its training on at "Epoch 1 out of 15"; LlamaFactory #513, detectron2 #5076, Lightning #479 mid-epoch),
# a full disk under the log file ("OSError: [Errno 28] No space left on device" from the handler's flush, pywebcopy #36:
# what fails next is the job's failure); was: an application incident, the TypeError.
# The writer's traceback opened within CAUGHT_AHEAD lines after one is caught, whatever it ends with
# vLLM's NVLink probe on a machine without NVLink (vllm/platforms/cuda.py logger.exception: "NVLink detection failed.
# This is normal if your machine has no NVLink equipped.", then pynvml's NVMLError_NotSupported traceback; vLLM went
# on without its custom all-reduce; was: an application incident, the NVMLError_NotSupported)
LOGGING_ERROR = "--- Logging error ---"
# And a server's handler of one request, which logs the exception the request raised, answers it (a 500, a 400) and
# goes on serving the others: uvicorn's (protocols/http/{h11,httptools}_impl.py `run_asgi`, every release: "except
# BaseException as exc: msg = "Exception in ASGI application\n"; self.logger.error(msg, exc_info=exc)", then a 500
# unless the response started) under every server on it (vLLM's and SGLang's OpenAI servers, Ray Serve's proxy, FastAPI
# apps): a client gone mid-stream ("asyncio.exceptions.CancelledError: Cancelled by cancel scope 757f107d7cd0" after
# starlette's `listen_for_disconnect`, vllm-project/vllm #7173, #7309 "individual requests over the threshold",
# PR #11737's review: "if you have ever seen starlette errors like" these, from a client's disconnect), a request's bad
# input; hypercorn's ("Error in ASGI Framework", its `handle_request`'s `await self.config.log.exception(..)`, then a
# 500); vLLM's own for a prompt it rejects (serving_chat.py / serving_completion.py / serving.py `logger.exception(
# "Error in preprocessing prompt inputs")` then `create_error_response`, a 400: "ValueError: This model's maximum
# context length is 4096 tokens. However, your request has 4516 input tokens.", vllm-project/vllm #20409, #19464,
# PR #21391's server log with its "GET /health" 200 before); vLLM's streaming handlers, which log the exception a
# request's stream raised and answer it with an error event then "[DONE]" (serving_chat.py / chat_completion/serving.py
# `logger.exception("Error in chat completion stream generator.")`, serving_completion.py `logger.exception("Error in
# completion stream generator.")`, every release since 0.4: a tool parser's IndexError on one model's output, vLLM
# #36849, vllm-ascend #10376 with its "GET /metrics" 200 before; its engine's death, vllm-ascend #629's
# MQEngineDeadError, is CAUGHT_FATAL's); aiohttp's server (web_protocol.py `log_exception("Error handling request",
# exc_info=exc)`, then a 500 or 400, every release; "aiohttp.server: Error handling request" in Home Assistant's
# format): a client's bad request line (aio-libs/aiohttp #2644's BadStatusLine, ETS-Next-Gen/writing_observer #19), a
# request cancelled (home-assistant/core #5007, the next request's line after it).  Its whole chain is the one
# request's (CAUGHT_CHAINED), and an exception that says the server itself died is still read (`FileReader._handled`).
# HuggingFace text-generation-inference's shard server, every era (server/text_generation_server/interceptor.py
# `ExceptionInterceptor.intercept`: "except Exception as err: .. logger.exception(f"Method {method_name} encountered an
# error.")", then `torch.cuda.empty_cache()` and the gRPC call aborted INTERNAL, which the router answers as "Request
# failed during generation: Server error: .." to that batch's requests): its Prefill and Decode, a batch's requests
# failed and the shard serving on (#377 under 0.7's "shard-manager:" prefix, #1643 on 1.4.2 "The container itself does
# not crash and can complete new text generation requests as normal", #2310 on 2.x).  Not its Warmup: a failed warmup
# ends the launcher (the router's "Error: Warmup(..)"), a failure as it was
TGI_HANDLED = tuple(f"Method {method} encountered an error" for method in ("Prefill", "Decode"))
REQUEST_HANDLED = ("Exception in ASGI application", "Error in ASGI Framework", "Error in preprocessing prompt inputs",
                   "Error in chat completion stream generator", "Error in completion stream generator",
                   "Error handling request", *TGI_HANDLED)
CAUGHT_BEFORE = ("WON'T CONVERT ", "Exception ignored ", VLLM_NO_NVLINK, LOGGING_ERROR, *REQUEST_HANDLED)
_CAUGHT_BEFORE = re.compile("|".join(map(re.escape, CAUGHT_BEFORE)))
CAUGHT_AHEAD = 3
# A caught traceback's chain ("During handling of the above exception, another exception occurred:" / "The above
# exception was the direct cause of the following exception:", within CAUGHT_AHEAD lines of its exception line) is
# the same handled exception printed whole: the next traceback after it is caught too (uvicorn's CancelledError then
# the request's own exception, or its ExceptionGroup, run_asgi's)
# What a caught traceback may still end with that is a failure: the death of the server it was caught in (vLLM's engine
# gone: EngineDeadError, V0's AsyncEngineDeadError and MQEngineDeadError, every request failing after it; the engine's
# own failure printed elsewhere, this a consequence as CONSEQUENCE_EXCEPTIONS reads it) and whatever the parsers know
# by its text (a CUDA error, an OOM: a GPU's fault is never hidden by who caught it)
CAUGHT_FATAL = re.compile(r"(?:^|\.)" + ENGINE_DEAD + "$")
# A traceback printed by the frame that handled it, read in one of its frames: multiprocessing's finalizer loop
# (util.py `_run_finalizers`, every release since 2.6: "try: finalizer() except Exception: traceback.print_exc()", then
# the next finalizer), run at a process's exit by `_exit_function` and at a worker's end.  A finalizer failing there
# (a semaphore another process already unlinked: synchronize.py `_cleanup`, `sem_unlink(name)`, "FileNotFoundError:
# [Errno 2] No such file or directory"; a temporary directory on NFS: `_remove_temp_dir`'s rmtree, "OSError: [Errno 16]
# Device or resource busy: '.nfs..'") is printed and the process exits as it would have.  MLPerf Training v5.0's Oracle
# 8x BM.GPU.H200.8 RetinaNet result_1 prints ten of them after its run_stop "success" (mlcommons/training_results_v5.0);
# datalad/datalad #4495 "an (ignored) traceback upon exit", "not causing overall failure"; was: an application
# incident, the FileNotFoundError / OSError.  Its frames pass through the loop only (the traceback starts there): an
# exception escaping it (a KeyboardInterrupt at exit) starts at `_exit_function`, a stop (STOPPING) either way.
FINALIZERS_FRAME = re.compile(r'multiprocessing[/\\]util\.py", line \d+, in _run_finalizers$')
_FINALIZERS_FRAME_END = ", in _run_finalizers"

BATCH = 4096  # lines whose keywords are found in one scan
# A logger's record header between the launcher prefixes and the message, peeled like a stamp (its time kept) so that
# a traceback logged through it is read: vLLM's "ERROR 08-07 19:11:43 [serving_chat.py:1050] " (and before 0.6's
# "ERROR 07-04 23:23:23 multiproc_worker_utils.py:120] ", and with a date format without seconds "ERROR 11-03 23:14
# [serving_chat.py:1145] "); and PyTorch's own (torch._logging's TorchLogsFormatter, 2.2+: every line of a record
# behind "<level letter>MMDD HH:MM:SS.ffffff <pid> <its .py file>:<line>]", a compile's " [0/0]" after it, torchrun's
# "[rank1]:" before it), at ERROR or CRITICAL: "[rank1]:E0207 07:54:31.862000 4712 .venv/lib/python3.12/site-packages/
# torch/testing/_internal/common_distributed.py:939] Traceback (most recent call last):", a rank's failure the
# process then exits with (pytorch/helion #1396, intel/torch-xpu-ops #1636).  Its WARNING and INFO records are not
# peeled: there torch logs the tracebacks of exceptions it handled (TorchDynamo's frames it ran uncompiled,
# triton-lang/triton #9754), read as no failure.  c10's C++ lines ("[E425 ..  ProcessGroupNCCL.cpp:563]") name no
# .py file and keep theirs
_HEADER = re.compile(r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) [01]\d-[0-3]\d \d\d:\d\d(?::\d\d(?:\.\d+)?)? "
                     r"\[?[\w./\-]{1,120}:\d{1,6}\] "
                     r"|[EC][01]\d[0-3]\d \d\d:\d\d:\d\d\.\d{6} \d{1,10} [^\s\]]{1,200}\.py:\d{1,6}\]"
                     r"(?: \[[^\s\]]{1,40}\])? ")
_HEADER_FIRST = frozenset("DIWEC")
# a line number a viewer pasted before each line ("[1784] [rank0]:[E602 ...", GitHub's and many log viewers' copy):
# peeled only from a file whose lines carry one consistently (`_numbered`); torchrun's "[0]:" summary opener, MPI's
# "[1]<stdout>:" tag and NCCL's "[3] " device index (the same number on every line) are not such numbers
_LINE_NUMBER = re.compile(r"\[(\d{1,9})\] ")
# an address a page turned into a link when the log was pasted from it (a rich-text copy into a GitHub issue: Ray's
# "ip: [10.29.214.5](http://10.29.214.5/)", verl-project/verl #4921; the raylet's "Worker IP address:
# [10.9.70.181](http://10.9.70.181/)", vllm-project/vllm #1846): read as its text, the link's target the same name
_AUTOLINK = re.compile(r"\[([\w.:\-]{1,253})\]\(https?://\1/?\)")
_AUTOLINK_MARK = "](http"
NUMBERED_MIN = 3  # numbered lines a file needs before its numbers are taken for a viewer's
NUMBERED_SHARE = 0.8  # of its non-empty lines, among the first batch
NUMBERED_STEP_SHARE = 0.9  # of consecutive numbered lines whose numbers differ by exactly one


def _numbered(lines: list[str]) -> bool:
    """Whether `lines` (a file's first batch) carry a viewer's line numbers: most non-empty lines open with "[N] ",
    the numbers strictly increase down the file and almost always by one (an excerpt may skip a few lines)."""
    numbers: list[int] = []
    nonempty = 0
    for line in lines:
        if not line.strip():
            continue
        nonempty += 1
        m = _LINE_NUMBER.match(line)
        if m is not None:
            numbers.append(int(m.group(1)))
    if len(numbers) < NUMBERED_MIN or len(numbers) < NUMBERED_SHARE * nonempty:
        return False
    steps = [b - a for a, b in zip(numbers, numbers[1:])]
    return all(d > 0 for d in steps) and sum(d == 1 for d in steps) >= NUMBERED_STEP_SHARE * len(steps)


@functools.lru_cache(maxsize=1)
def _prefilter() -> Prefilter:
    """Every word a line must hold for anything past its prefixes to read it: the classifier's keywords (it returns
    nothing for a line without one), the job facts' (facts.match likewise), the traceback's and torchrun summary's
    own, and a describe Events table's Scheduled row's; a block's "[0]:" opener holds none and is matched apart."""
    words = (*all_keywords(), *(k for f in facts.FACTS for k in f.keywords), facts.TRACEBACK, facts.FRAME_WORD, *facts.CHAINED,
             _ROOT_CAUSE, _MPI_OPEN, _HYDRA_OPEN, *_TASK_LIST_ENDS, facts.FR_NOT_JOINED, facts.RAY_ACTOR_OPENER,
             facts.RAY_TASK_KEYWORD, facts.RAS_COUNTS_END, *CAUGHT_BEFORE, *STOP_SAID, _SCHEDULED_WORD)
    return Prefilter(dict.fromkeys(words))


@functools.lru_cache(maxsize=4)
def _classifier(year: int) -> Classifier:
    """The classifier each file's reader takes its own stream of (`Classifier.for_stream`): its tables, keyword
    prefilter and repeat memo built once per process and year, not per file (some 5 ms a file: 100 s of a job's
    20,000 per-rank files), its stream context (open events, UUIDs) each file's own."""
    return Classifier(year=year)


def _keyworded(lines: list[str], text: str | None = None) -> tuple[set[int] | range, dict[int, tuple | None]]:
    """The indexes of `lines` holding a keyword, found in one scan of the batch (a superset: a keyword in a prefix
    counts too), and the stern records the scan decoded (`_decoded`), by index, for `strip_lead` (each line read
    once)."""
    pf = _prefilter()
    if pf.engine == "re":  # no multi-pattern engine installed: every line is looked at, as before
        return range(len(lines)), {}
    if text is None:
        text = "\n".join(lines)
    records: dict[int, tuple | None] = {}
    if "\\" in text:  # (a memchr: a batch without a backslash holds no JSON escape)
        records = {i: stern_record(line) for i, line in enumerate(lines) if line[:1] == "{" and "\\" in line}
        if any(records.values()):  # joined again only where a record's message is scanned in its line's place:
            # the records set in a copy (no Python step for the lines between them).  One join, the raw record lines
            # scanned with the rest and their messages apart, costs more: hyperscan over the raw JSON's bytes
            parts = lines.copy()
            for i, record in records.items():
                if record is not None:
                    parts[i] = _decoded(record)
            text = "\n".join(parts)
    buf = text.encode("utf-8", "surrogatepass")
    if buf.count(b"\n") != len(lines) - 1:  # a line handed over with a newline inside: no index to map back to
        return range(len(lines)), records
    found, index, at = set(), 0, 0
    for start, _end, _ids in pf.line_spans(buf):  # (in order: the line a span starts on, its newlines counted once)
        index += buf.count(b"\n", at, start)
        found.add(index)
        at = start
    return found, records


def _decoded(record: tuple) -> str:
    """A stern JSON record's line as the prefilter scans it: its message (`record`, the line's stern_record), decoded
    (its escapes, \\" and Go's \\u003c for "<", are not what a keyword's bytes are: `File "`, `<warn>`), as strip_lead
    reads it, its newlines spaces (one line of the batch: a superset)."""
    return record[1].replace("\n", " ")


# (kind, severity) of the parsers' catch-all findings a job fact about the same line says more than (Kind.generic)
GENERIC = frozenset((k.name, severity) for k in KIND_TABLE for severity in k.generic)


def generic(f) -> bool:
    """A finding of the parsers' catch-all rows (any NCCL WARN), or one of their PyTorch ProcessGroupNCCL rows
    (since issue 29 they read the watchdog's progress and heartbeat lines too): a job fact about the same line
    says more (the work sequence numbers, the hang).  Which they are is the kind table's (parsers/kinds.py
    `Kind.generic`)."""
    return (f.kind, f.severity) in GENERIC


def writer(origin: Origin, rest: str, details: dict, host: str | None = None) -> dict:
    """Who wrote a line, as Evidence fields (host, rank, local_rank, pid, gpu): its launcher prefixes (`origin`; `host`
    where they name none), the global rank its PyTorch tags name; a subgroup's rank ("[PG 134 Rank 1]": rank 1 of
    group 134, not global rank 1) goes into `details`.  A line whose own envelope names its host (`host`: a syslog
    line's, "Mar 28 01:59:54 rig2 kernel: ..") behind a prefix naming only the pod that printed it (kubectl's, stern's:
    the pod stands for its hostname) is that host's, the pod said in `details` ("pod"): a node agent's pod (a
    DaemonSet's, its name no node's) printing its node's log.  Offline (FileReader) and live (`job_fact`)."""
    rank, group = in_message(rest, origin.rank)
    if group is not None:
        details["pg"], details["group_rank"] = group
    if origin.node is not None:  # the pod's node, as its record names it (stern -o json)
        details["node"] = origin.node
    if host and origin.pod is not None and origin.host == origin.pod:
        details["pod"] = origin.pod
    else:
        host = origin.host or host
    return dict(host=host, rank=rank, local_rank=origin.local_rank, pid=origin.pid, gpu=origin.gpu)


def fact_fields(fact: facts.Fact, groups: dict, base: dict, details: dict) -> None:
    """A job fact's groups into `base` (the line's writer as its prefixes say: host, rank, local_rank, pid, gpu; the
    Evidence fields the groups fill are added) and `details` (the other groups, the row's name): a launcher's line
    about another process (facts.ABOUT_ANOTHER) names that process, a coordinator's (facts.ONLY_ANOTHER) never its
    writer; any other fact is about its writer, whose prefix wins.  Offline (FileReader) and live (`job_fact`)."""
    values = {}
    for name, value in groups.items():
        if name in facts.INT_FIELDS:
            try:
                values[name] = int(value)
            except ValueError:
                details[name] = value
        elif name in facts.TEXT_FIELDS:
            if placeholder(value):  # a redacted host: no host at all, not one shared by every redacted line
                details[f"{name}_redacted"] = value
            else:
                values[name] = value
        else:
            details[name] = value
    details["fact"] = fact.name
    about_another = fact.kind in facts.ABOUT_ANOTHER  # a launcher's line about the process that died
    if "group_rank" in details and "rank" in values:  # the row read a subgroup's rank: not the global one
        del values["rank"]
    # the writer (a coordinator, Ray's driver, a node that survived a node failure) is not the process or node named
    if fact.kind in facts.ONLY_ANOTHER or facts.reporter_only(fact, details):
        for name in ("host", "rank", "local_rank", "pid", "gpu"):
            if base.get(name) is not None:
                details.setdefault(f"reporter_{name}", base[name])
                base[name] = None
    for name, value in values.items():
        if not about_another and name != "host" and base.get(name) is not None:
            continue  # the line's own prefix says who wrote it, and the fact is about that writer
        base[name] = value


def job_fact(message: str) -> tuple[facts.LiveFact, dict] | None:
    """A container's line (its CRI envelope off) as a job fact node agents publish (facts.LIVE_FACTS): (its row, the
    fields its Event says: the process it names, as `FileReader` reads the line), None when it is none or names no
    culprit (nor its witness, facts.LiveFact.witness).  The line's launcher prefixes say who wrote it, as offline.  A field of torchrun's summary ("  traceback :
    Signal 9 (SIGKILL) received by PID 14689") is the summary's (`block_fact`), as offline, never a fact of its own."""
    fields_, lead, rest = strip_lead(message)
    if _BLOCK_FIELD.match(rest):
        return None
    hit = facts.match(rest)
    if hit is None or hit[0].name not in facts.LIVE_WORDED:
        return None
    fact, groups = hit
    row = facts.live(fact.kind, fact.name)
    details: dict = {}
    base = writer(origin_of(fields_), rest, details)
    fact_fields(fact, groups, base, details)
    # (its writer's own address, LiveFact.own: asked, never said)
    said = {name: base[name] if name in base else details.get(name) for name in (*row.fields, *filter(None, [row.own]))}
    said = {name: value for name, value in said.items() if value is not None}
    if row.consequence:  # its writer's word of a failure elsewhere (facts.LiveFact.consequence)
        said["consequence"] = True
    if not facts.published(row, said):
        return None
    said.pop(row.own, None)
    said["fact"] = fact.name
    return row, said


def record_line(rest: str, in_traceback: bool) -> bool | None:
    """A line with no prefix of its own (`rest`: the message, its stamp or CRI envelope off) after a record that a
    prefixed line opened with a traceback (SGLang's "[... TP0] Scheduler hit an exception: Traceback (most recent call
    last):"): None when it ends the record, else whether the record's traceback is open after it.  Inside the traceback
    (`in_traceback`) a frame's indented line continues it and the exception ending it closes it; after it, a chained
    exception's lines ("During handling of the above exception...", its "Traceback (most recent call last):", which
    opens the next) continue the record.  Offline (FileReader._continued) and live (agent/sources/podlogs.py)."""
    if in_traceback:
        if rest[:1].isspace():
            return True
        return False if facts.EXCEPTION.match(rest) is not None else None
    if rest.startswith(_TRACEBACK_OPENERS):
        return True
    return False if rest.startswith(facts.CHAINED) else None


def ray_task(rest: str) -> tuple[int, str] | None:
    """(pid, node address) of the process Ray's header of a task's error names (facts.RAY_TASK_HEADER: on a line of its
    own, or after the driver's "ray.exceptions.RayTaskError(RuntimeError): "; `rest`: the line without its stamp and
    prefixes), None for any other line: the traceback it opens ends with that process's exception.  Offline
    (FileReader._line) and live (agent/sources/podlogs.py)."""
    if facts.RAY_TASK_KEYWORD not in rest:
        return None
    m = facts.RAY_TASK_HEADER.search(rest)
    return (int(m.group("pid")), m.group("host")) if m is not None else None


def record_writer(message: str) -> dict | None:
    """Who wrote a line that opens a record with a traceback its next lines carry without its prefix (see
    `record_line`), as Evidence fields (`writer`), when its prefixes name a rank; else None."""
    fields_, _, rest = strip_lead(message)
    if not fields_ or not rest.endswith(facts.TRACEBACK) or len(rest) <= len(facts.TRACEBACK):
        return None
    said = writer(origin_of(fields_), rest, {})
    return said if said["rank"] is not None else None


def numel_in(text: str) -> int | None:
    """The size of the collective a watchdog's WorkNCCL line names ("NumelIn=64"), None without one: ranks in one
    collective must agree on it (triage.attribute's mismatched collective).  Offline (FileReader) and live
    (agent/sources/podlogs.py)."""
    m = _NUMEL.search(text)
    return int(m.group(1)) if m else None


def _work_cut(line: str) -> str | None:
    """The start of the field a line's last WorkNCCL(..) is cut in at its end ("OpT", "NumelOut=5", "" right after
    "WorkNCCL(" or a ", "), None where the line does not end inside its fields."""
    at = line.rfind(_WORK_OPEN)
    if at < 0:
        return None
    *whole, part = line[at + len(_WORK_OPEN):].split(", ")
    if len(part) > WORK_PART_MAX or not all(_WORK_FIELD.fullmatch(f) for f in whole):
        return None
    return part


def _wrapped_at_word(raw: str) -> str:
    """The words the next line must start with to be `raw`'s rest, where `raw` ends at a word a watchdog line is
    wrapped at (WORD_WRAPS); "" where it does not.  Every line of a file asks: one C-level test for most."""
    end = raw.rstrip()
    if not end.endswith(_WRAP_LEADS):
        return ""
    return next(start for lead, start in WORD_WRAPS if end.endswith(lead))


class _Rejoin:
    """`rejoined`'s state across the parts of a file it is handed: a line held (its WorkNCCL(..) cut at its end, or
    ending at a word of WORD_WRAPS) until the next lines say whether they are its rest."""

    __slots__ = ("held", "part", "rest", "joins")

    def __init__(self) -> None:
        self.held: str | None = None  # a line whose WorkNCCL(..) is cut at its end, or that ends at a word (WORD_WRAPS)
        self.part: str | None = ""  # the cut field's start; None: the line ends at a word of WORD_WRAPS, `rest` next
        self.rest = ""  # the words the line after one that ends at a word must start with to be its rest
        self.joins = 0

    def feed(self, lines: list[str]) -> list[str]:
        """`lines` rejoined, a line still held kept for the next call (or `close`)."""
        out: list[str] = []
        held, part, rest, joins = self.held, self.part, self.rest, self.joins
        for raw in lines:
            if held is not None:
                nxt = raw.rstrip("\r\n")
                if part is None:
                    joined = nxt.startswith(rest)
                else:
                    m = _WORK_REST.match(part + nxt[:WORK_PART_MAX + 2])
                    joined = m is not None and m.end() > len(part)  # the rest of the cut field, and a separator after it
                if joined:  # (the blank between the words and "WorkNCCL(" put back where a paste stripped it)
                    sep = " " if part is None and not held[-1:].isspace() else ""
                    held, joins = held + sep + nxt, joins + 1
                    cut = _work_cut(held) if joins < WORK_JOINS else None
                    if cut is not None:  # cut again further on: the next line may continue it
                        part = cut
                        continue
                out.append(held)
                out.extend([""] * joins)
                held = None
                if joined:
                    continue
            if _WORK_OPEN in raw:
                line = raw.rstrip("\r\n")
                cut = _work_cut(line)
                if cut is not None:
                    held, part, joins = line, cut, 0
                    continue
            elif (rest := _wrapped_at_word(raw)):
                held, part, joins = raw.rstrip("\r\n"), None, 0
                continue
            out.append(raw)
        self.held, self.part, self.rest, self.joins = held, part, rest, joins
        return out

    def close(self) -> list[str]:
        held, self.held = self.held, None
        return [] if held is None else [held] + [""] * self.joins


def rejoined_parts(lines: Iterable[str]) -> Iterator[list[str]]:
    """`lines` with a WorkNCCL(..) a terminal wrapped made one line again (_WORK_OPEN): the next lines that continue
    its cut field (or, after a line that ends at a word of WORD_WRAPS, the next line that starts with its rest)
    joined to it, each joined line read as an empty one (the lines keep their numbers); in parts of up to BATCH
    lines.  A part that holds neither "WorkNCCL(" nor "timeout" (every word of WORD_WRAPS ends in it), nothing held
    before it, is handed on as it is: two scans of its joined text, not a test of each line."""
    it = iter(lines)
    state = _Rejoin()
    while chunk := list(islice(it, BATCH)):
        if state.held is None and _WORK_OPEN not in (text := "".join(chunk)) and _WRAP_WORD not in text:
            yield chunk
        else:
            yield state.feed(chunk)
    yield state.close()


def rejoined(lines: Iterable[str]) -> list[str]:
    """`rejoined_parts`, as one list."""
    return [line for part in rejoined_parts(lines) for line in part]


def progress_group(message: str) -> tuple[int, int, str] | None:
    """A container's line (its CRI envelope off) as PyTorch's watchdog progress line (facts: watchdog_progress): (the
    rank that wrote it, the SeqNum it timed out at, the process group its "[PG ...]" tag names), as `FileReader` reads
    it, None when it is none or lacks one of the three.  The group of that rank's WorkNCCL timeout line at the same
    SeqNum, which names none (triage.attribute Job.group_of offline; agent/sources/podlogs.py live)."""
    fields_, _, rest = strip_lead(message)
    hit = facts.match(rest)
    if hit is None or hit[0].kind != "nccl_progress":
        return None
    details: dict = {}
    base = writer(origin_of(fields_), rest, details)
    fact_fields(*hit, base, details)
    rank, seq, pg = base.get("rank"), base.get("seq"), details.get("pg")
    return (rank, seq, str(pg)) if rank is not None and seq is not None and pg is not None else None


_BLOCK_FACTS = frozenset({"elastic_summary", "mpi_first_exit", "hydra_bad_termination"})
_TASK_FACTS = frozenset(row.name for row in facts.TASK_LIST_OPENERS.values())  # (the flight recorder's: not live)
_LIST_FACTS = _TASK_FACTS | facts.RAY_ACTOR_FACTS  # a block's facts of a lost process or a barrier's lagging ranks


def block_fact(messages: list[str], ended: bool = False) -> tuple[facts.LiveFact, dict, int] | None:
    """A block of lines read live (`messages`: a line holding one of BLOCK_OPENERS, its CRI envelope off, then at
    most BLOCK_LINES lines after it) read as `FileReader` reads a file: (the row, the fields its Event says, the
    index in `messages` of the line it quotes) of the culprit it names, None when its lines name none yet.  A
    launcher's exit summary gives its root's rank_exit (torchrun's other failures are not its root); a coordinator's
    list of tasks (facts.TASK_LIST_OPENERS) gives, for a barrier, every task it names as the lagging ranks (and the
    barrier the opener names), for lost processes, the first task; Ray's actor-died error (facts.RAY_ACTOR_OPENER) the
    actor's process and node its fields name, on its cause's line; Slurm's facts that name no node (`_SRUN_HELD`:
    the OOM summary's job_ended, a task's failed exec's launch_error) with the node srun's lines after them name, once
    SRUN_LINES lines after the last of the same fact are read, or `ended` (no more lines will come: without them);
    one a later line of the window continues is said by the block of the last (its own window full before they are
    read: None)."""
    window = messages[:BLOCK_LINES + 1]
    if any(k in window[0] for k in _SRUN_KEYWORDS):
        reader = FileReader("pod", Clock())
        for ev in reader.read(window) if ended else reader.read_on(window):
            if ev.line == 1 and ev.details.get("fact") in SRUN_NODE_HOW:
                row = facts.live(ev.kind, ev.details["fact"])
                said = _said(row, ev)
                return (row, {**said, "fact": ev.details["fact"]}, 0) if facts.published(row, said) else None
        return None
    evidence = list(FileReader("pod", Clock()).read(window))
    for ev in evidence:
        if ev.kind != "rank_exit" or ev.details.get("fact") not in _BLOCK_FACTS or \
                ev.details.get("root_cause") is False:
            continue
        row = facts.LIVE["rank_exit"]
        said = {name: getattr(ev, name) for name in row.fields if getattr(ev, name, None) is not None}
        if not facts.names_culprit(row, said):
            continue
        said["fact"] = ev.details["fact"]
        return row, said, (ev.line or 1) - 1
    tasks = [ev for ev in evidence if ev.details.get("fact") in _LIST_FACTS]
    if not tasks:
        return None
    if tasks[0].kind == "barrier_timeout":
        said = {"lagging": ", ".join(map(str, sorted({int(ev.details["lagging"]) for ev in tasks})))}
        named = next((ev.details["barrier"] for ev in evidence if ev.details.get("barrier")), None)
        if named is not None:
            said["barrier"] = named
        return facts.LIVE["barrier_timeout"], said, 0
    row = facts.LIVE[tasks[0].kind]
    said = _said(row, tasks[0])
    if not facts.names_culprit(row, said):
        return None
    return row, said, (tasks[0].line or 1) - 1


def _said(row: facts.LiveFact, ev: Evidence) -> dict:
    """The fields `row`'s Event says of `ev`: each an Evidence field, else its details (a task's rank may be 0), those
    it has."""
    said = {}
    for name in row.fields:
        value = getattr(ev, name, None)
        value = ev.details.get(name) if value is None else value
        if value is not None:
            said[name] = value
    return said


# what opens a window of a pod's lines read live for the exceptions they end (agent/sources/podlogs.py,
# `TracebackReader`): a traceback's header, or a frame line (a log whose header is cut, or never printed with a prefix
# of its own), or the line announcing a handled one (CAUGHT_BEFORE: read, so that the traceback after it is caught
# live as offline), or a server's word that it is stopping (STOP_SAID: its cancellation after it a stop, live as
# offline); a window stays open while such a line, or a chain's, came within TRACEBACK_LINES lines
TRACED_OPENERS = (facts.TRACEBACK, facts.FRAME_WORD, *CAUGHT_BEFORE, *STOP_SAID)
TRACED_WORDS = (*TRACED_OPENERS, *facts.CHAINED)


class TracebackReader:
    """A window of lines read live (from a line holding one of TRACED_OPENERS on, their CRI envelopes off) read as
    `FileReader` reads a file, in parts as they come (`read`: each line read once, whatever the parts)."""

    def __init__(self) -> None:
        self._reader = FileReader("pod", Clock())
        self.lines = 0  # the window's lines read so far

    def read(self, messages: list[str]) -> list[tuple[facts.LiveFact, dict, int]]:
        """`messages`, the window's lines after those read before: (the row, the fields its Event says, the index of
        its line in the window) of each exception that is a failure (facts.LIVE "exception": not chained after its
        chain's first, no stop, no fact it states, no parsers' kind of its text), in order, as far as the lines read
        say (`FileReader.read_on`).  Its writer (rank, local rank, host, pid as the line's prefixes name them) is its
        culprit; of a consequence (a failure elsewhere made it: `consequence` True among the fields), its witness,
        where the row has one (LiveFact.witness)."""
        row = facts.LIVE["exception"]
        out = []
        for ev in self._reader.read_on(messages):
            if ev.kind != row.kind or ev.details.get("chained_from") or ev.severity != "error":
                continue
            said = _said(row, ev)  # (the exception's type from its details)
            if ev.details.get("consequence"):
                if not row.witness or not WITNESSED_CONSEQUENCES.search(str(said.get("exception", ""))):
                    continue
                said["consequence"] = True
            out.append((row, said, (ev.line or 1) - 1))
        self.lines += len(messages)
        return out


class _Line(NamedTuple):
    """One line worth a look: its number, its text as written, the stamp or CRI envelope peeled from its front (its
    time), the rest without that and its launcher prefixes, who wrote it, and its writer's key."""
    n: int
    text: str
    lead: str
    rest: str
    origin: Origin
    key: tuple


@dataclass
class _Block:
    root: bool
    line: int
    fields: dict = field(default_factory=dict)
    kind: _BlockKind = BLOCK_KINDS["elastic"]


class FileReader:
    """One file's reader (each file its own context: nothing leaks from one into another)."""

    # Its attributes, declared (those __init__ sets): why, tests/test_slots.py
    __slots__ = ("name", "clock", "year", "origin", "classifier",
                 # the writers' open tracebacks, blocks and their state, by origin key
                 "_tracebacks", "_ray_tasks", "_caught", "_announced", "_caught_at", "_stopping", "_shm", "_said_stop", "_groups",
                 "_last_exc", "_chained", "_last_time", "_counts", "_block", "_root_next",
                 # who wrote the lines: ranks, hosts, pids
                 "_ranks", "_pod_hosts", "_pod_hosts_untold", "_pid_ranks", "_pending", "_year_seen", "_merged",
                 "errors", "_numbered", "_found", "_amendments", "_record", "_tasks", "_actors", "_ras", "_dcp",
                 "_dcp_open", "_described", "_pod_node", "_pod", "_lines_on", "_held")

    def __init__(self, name: str, clock: Clock, root: str | None = None, year: int | None = None,
                 origin: Origin | None = None):
        self.name = name
        self.clock = clock
        self.year = year
        self.origin = origin if origin is not None else from_path(name, root)
        self.classifier = _classifier(year or 1900).for_stream()
        self._tracebacks: dict[tuple, int] = {}  # origin key -> line of its open traceback
        self._ray_tasks: dict[tuple, tuple[int, int, str]] = {}  # origin key -> (line, pid, ip) of Ray's task header
        self._caught: set[tuple] = set()  # origin keys whose open traceback a program logged as handled (CAUGHT)
        self._announced: dict[tuple, int] = {}  # origin key -> line announcing its next traceback handled (CAUGHT_BEFORE)
        self._caught_at: dict[tuple, int] = {}  # origin key -> line of its caught traceback's exception (CAUGHT_CHAINED)
        self._stopping: dict[tuple, Stopping] = {}  # origin key -> the teardown code its open traceback passed through
        self._shm: set[tuple] = set()  # origin keys whose open traceback passed through a shared-memory frame (SHM_FRAME)
        self._said_stop: dict[tuple, int] = {}  # origin key -> line of its server's word that it is stopping (STOP_SAID)
        self._groups: set[tuple] = set()  # origin keys inside an exception group's margin ("  | ")
        self._last_exc: dict[tuple, tuple[int, str]] = {}  # origin key -> (line, its chain's first exception)
        self._chained: dict[tuple, str] = {}  # origin key -> the chain's first exception, its next one to come
        self._last_time: dict[tuple, tuple[datetime, bool]] = {}  # writer -> its last stamp, and whether year-less
        self._counts: dict[str, int] = {}
        self._block: _Block | None = None
        self._root_next = False
        self._ranks: dict[tuple, int] = {}  # (host, rank) -> first line a launcher prefix named it on
        # kubectl's pods whose hostname their lines named, where the pod is its hostname and a generated suffix
        # (ranks.hostname_of_pod), and those not told yet: (the pod, its hostname, the first line naming both: the
        # pod's prefix, the hostname inside), told once each (`_pod_hostnames`)
        self._pod_hosts: set[str] = set()
        self._pod_hosts_untold: list[tuple[str, str, int]] = []
        self._pid_ranks: dict[tuple, int | None] = {}  # (host, pid) -> the rank its prefixes named (None: several)
        self._pending: list[Evidence] = []  # evidence of a pid whose rank a later line may name
        self._year_seen = False
        self._merged: dict[tuple, tuple[Origin, tuple]] = {}  # a line's prefixes -> its writer and key (bounded)
        self.errors = 0  # lines whose reading raised (a bug): skipped, logged once, counted
        self._numbered: bool | None = None  # a viewer's line numbers on the file's lines (its first batch says)
        self._found: dict[int, Evidence] = {}  # line -> the evidence of its finding (the latest MAX_FOUND)
        self._amendments: list[Finding] = []  # what the line being read amended of earlier lines' findings (_classify)
        self._record: tuple | None = None  # (prefixes, key, line) of a record whose traceback lines lack its prefix
        self._tasks: dict[tuple, facts.Fact] = {}  # origin key -> the row of the task list its last line opened
        self._actors: dict[tuple, dict] = {}  # origin key -> the fields of Ray's actor-died error read so far
        self._ras: dict[tuple, list] = {}  # origin key -> the counts of NCCL RAS's MISMATCH block (facts.ras_count)
        # a CheckpointException's ranks' own failures (DCP_RANK): origin key -> (the rank its open traceback's opener
        # names, that opener's line: only the traceback it opened is that rank's), and -> the line of the exception
        # whose ranks' failures follow
        self._dcp: dict[tuple, tuple[int, int]] = {}
        # (the wrapper's line, its evidence, held back until a rank's failure follows it, their consequence, or its
        # block ends with none, the failure)
        self._dcp_open: dict[tuple, tuple[int, Evidence | None]] = {}
        # `kubectl describe pod`: (line of its "Name:", "Namespace:" seen) while in a description's header, and the
        # node its "Node:" named, the host of its lines (_DESCRIBE_*)
        self._described: tuple[int, bool] | None = None
        self._pod_node: str | None = None
        self._pod: tuple[str, str | None] | None = None  # the described pod's name, its namespace once confirmed
        self._lines_on = 0  # lines read by `read_on`
        # Slurm's facts naming no node, held back, and the nodes srun's lines after them name (_SRUN_HELD)
        self._held: tuple[list[Evidence], set[tuple[str, int | None]]] | None = None

    def read(self, lines: Iterable[str]) -> Iterator[Evidence]:
        """Every line's prefixes are read (who wrote it: the job's ranks and hosts); only a line holding a word some
        rule, fact or block reads (`_keyworded`, found in batches by the parsers' prefilter engine), or one inside
        an open traceback or block, is looked at further: the rest of a large job's output costs its prefixes."""
        n = 0
        batch: list[str] = []
        for part in rejoined_parts(lines):
            batch = part if not batch else batch + part
            while len(batch) >= BATCH:
                yield from self._batch(n, batch[:BATCH] if len(batch) > BATCH else batch)
                n += BATCH
                batch = batch[BATCH:]
        if batch:
            yield from self._batch(n, batch)
        yield from self._held_closed()
        for key in list(self._dcp_open):  # a CheckpointException no rank's failure followed: the failure
            yield from self._routed(self._dcp_close(key))
        yield from self._close_block()
        yield from self._pid_filled()
        if self.errors > 1:
            log.warning("triage: %d lines of %s raised while read and were skipped", self.errors, self.name)
        for (host, rank), first in sorted(self._ranks.items(), key=lambda kv: kv[1]):
            yield Evidence(kind="rank_seen", severity="info", host=host, rank=rank, file=self.name, line=first)
        yield from self._pod_hostnames()

    def read_on(self, lines: list[str]) -> Iterator[Evidence]:
        """`lines` read after those of the calls before, numbered on from them (a file read in parts as it is
        written), then what a file's end releases that needs no end: the evidence held back for its process's rank
        (with the rank the lines so far name), a CheckpointException no rank's failure followed yet (said once; the
        ranks' failures after it are still read as its).  Blocks still open stay open; no rank_seen."""
        lines = rejoined(lines)  # (a WorkNCCL(..) wrapped across two calls' lines stays cut)
        for start in range(0, len(lines), BATCH):
            yield from self._batch(self._lines_on + start, lines[start:start + BATCH])
        self._lines_on += len(lines)
        for key, (start, wrapper) in list(self._dcp_open.items()):
            if wrapper is not None:
                self._dcp_open[key] = (start, None)
                yield from self._routed((wrapper,))
        yield from self._pid_filled()
        yield from self._pod_hostnames()

    def _batch(self, n: int, batch: list[str]) -> Iterator[Evidence]:
        lines = [raw[:MAX_LINE].rstrip("\r\n") for raw in batch]
        if self._numbered is None:
            self._numbered = _numbered(lines)
        shown = lines  # the lines as written: the evidence's text
        if self._numbered:  # a viewer's "[1784] " before each line: peeled, the line's own start read
            lines = [line[m.end():] if (m := _LINE_NUMBER.match(line)) is not None else line for line in lines]
        lines = [_AUTOLINK.sub(r"\1", line) if _AUTOLINK_MARK in line else line for line in lines]
        text = "\n".join(lines)
        numbers: list[int] | None = None  # each line's number, where a physical line was read as its records
        if "\r" in text or "<" in text:  # (two memchr over the batch: most batches stop here)
            split_at = {i: parts for i, line in enumerate(lines)
                        if ("\r" in line or "<" in line) and (parts := line_records(line)) is not None}
            if split_at:
                numbers, split, split_shown = [], [], []
                for i, line in enumerate(lines):
                    parts = split_at.get(i)
                    numbers.extend([n + i + 1] * (len(parts) if parts else 1))
                    split.extend(parts or (line,))
                    split_shown.extend(parts or (shown[i],))
                lines, shown, text = split, split_shown, "\n".join(split)
        hits, records = _keyworded(lines, text)
        merged = self._merged
        for i, line in enumerate(lines):
            if not line:
                continue
            at = n + i + 1 if numbers is None else numbers[i]  # the physical line's number
            try:
                # the stamp or CRI envelope before (or between) the launcher prefixes: peeled so that the message's
                # own start is read (a traceback, torchrun's summary), kept for the line's time
                fields, lead, rest = strip_lead(line, records.get(i, UNREAD))
                if rest[:1] in _HEADER_FIRST:
                    m = _HEADER.match(rest)
                    if m is not None:
                        lead, rest = lead + m.group(0), rest[m.end():]
                if not self._year_seen and at <= YEAR_PROBE_LINES:
                    self._probe_year(lead + rest)
                if self._record is not None:
                    fields = self._continued(fields, rest, at)
                known = merged.get(fields)
                if known is None:  # a writer first seen (or past the bound): who it is, its key, the ranks it names
                    known = self._writer(fields, at)
                    if len(merged) < MAX_KEYS:
                        merged[fields] = known
                origin, key = known
                hit = i in hits
                if not fields and rest[:1] == "N" and rest.startswith(("Name:", "Namespace:", "Node:")):
                    self._describe(rest, at)
                if hit and not fields and _SCHEDULED_WORD in rest:
                    self._scheduled(rest)
                if self._pod_node is not None and not fields:  # a described pod's line: its node's
                    origin = replace(origin, host=self._pod_node)
                    key = (origin.host, *key[1:])
                if fields and rest.endswith(facts.TRACEBACK) and len(rest) > len(facts.TRACEBACK):
                    self._record = (fields, key, at)  # its traceback's lines follow without its prefix
                if hit or self._block is not None or self._root_next or key in self._tracebacks or \
                        key in self._tasks or key in self._actors or key in self._ras or key in self._dcp_open or _BLOCK_OPEN.match(rest):
                    if self._held is not None:
                        yield from self._held_closed(at - 1)
                    yield from self._routed(self._line(_Line(at, shown[i], lead, rest, origin, key)))
                    if self._amendments:  # (rare) the line amended an earlier line's finding
                        for ev in self._amended():
                            if ev.rank is None and ev.pid is not None and len(self._pending) < MAX_PENDING:
                                self._pending.append(ev)
                            else:
                                yield ev
            except Exception:  # noqa: BLE001 - a bug on one line must not lose the rest of the job's evidence
                self.errors += 1
                if self.errors == 1:
                    log.exception("triage: reading %s line %d raised (a bug; the line is skipped, later ones are "
                                  "counted): %.200r", self.name, at, line)
        if self._held is not None:
            yield from self._held_closed(n + len(batch))

    def _routed(self, evidence: Iterable[Evidence]) -> Iterator[Evidence]:
        for ev in evidence:
            if ev.rank is None and ev.pid is not None and len(self._pending) < MAX_PENDING:
                self._pending.append(ev)  # a later line may name its process's rank
            else:
                yield ev

    def _dcp_close(self, key: tuple) -> Iterator[Evidence]:
        """The CheckpointException of `key` held back with no rank's failure read after it: the failure."""
        _, wrapper = self._dcp_open.pop(key)
        if wrapper is not None:
            yield wrapper

    def _dcp_credited(self, key: tuple) -> Iterator[Evidence]:
        """A rank's failure read after `key`'s CheckpointException: the wrapper, held back, their consequence."""
        start, wrapper = self._dcp_open.get(key, (0, None))
        if wrapper is None:
            return
        self._dcp_open[key] = (start, None)
        if wrapper.kind == "exception":
            wrapper = wrapper.with_context(severity="warning", attribution="unknown")
        yield wrapper.with_context(details={**wrapper.details, "consequence": True})

    def _describe(self, line: str, n: int) -> None:
        """A `kubectl describe pod` header's line (_DESCRIBE_*): "Name:" opens a description (the node of the one before
        it no longer the lines' host), "Namespace:" right after it confirms it, "Node:" in its header names its node."""
        if line.startswith(_DESCRIBE_NAMESPACE):
            if self._described is not None and n - self._described[0] <= 3:
                self._described = (self._described[0], True)
                if self._pod is not None:
                    self._pod = (self._pod[0], line[len(_DESCRIBE_NAMESPACE):].strip())
            return
        if line.startswith(_DESCRIBE_NAME):
            self._described, self._pod_node = (n, False), None
            self._pod = (line[len(_DESCRIBE_NAME):].strip(), None)
            return
        m = _DESCRIBE_NODE.match(line)
        if m is not None and self._described is not None and self._described[1] and \
                n - self._described[0] <= DESCRIBE_HEADER_LINES and not placeholder(m.group(1)):
            self._pod_node = m.group(1)
            self._described = None

    def _scheduled(self, line: str) -> None:
        """A describe Events table's Scheduled row (`describe_scheduled`): the pod and the node its lines are."""
        m = describe_scheduled(line)
        if m is not None and not placeholder(m.group(3)):
            self._pod, self._pod_node, self._described = (m.group(2), m.group(1)), m.group(3), None

    def _continued(self, fields: tuple, rest: str, n: int) -> tuple:
        """The writer of line `n` when it continues the record a prefixed line opened with a traceback ending its
        message (SGLang's "[2025-07-25 07:53:08 TP2] Scheduler hit an exception: Traceback (most recent call
        last):", one record whose traceback lines carry no prefix): a line with no prefix of its own shaped as that
        traceback's (a frame's indented line, the exception ending it, a chained exception's lines) is the record's
        writer's; any other line ends the record and is read as its own."""
        record_fields, record_key, start = self._record
        if not fields and n - start <= TRACEBACK_LINES and record_line(rest, record_key in self._tracebacks) is not None:
            return record_fields
        self._record = None
        return fields

    def _writer(self, fields: tuple, n: int) -> tuple[Origin, tuple]:
        """(the file's origin with what a line's prefixes name, its writer's key), the first time the prefixes are
        met on line `n`: the rank they name noted for its host and its process (the same prefixes again would note
        nothing new)."""
        origin = self.origin.merge(origin_of(fields))
        if origin.pid is not None and origin.rank is not None:  # a process's prefixes named its rank
            pid_key = (origin.host, origin.pid)
            known = self._pid_ranks.get(pid_key, origin.rank)
            if pid_key in self._pid_ranks or len(self._pid_ranks) < 65536:
                self._pid_ranks[pid_key] = origin.rank if known == origin.rank else None
        if origin.rank is not None and (origin.host, origin.rank) not in self._ranks and len(self._ranks) < 65536:
            self._ranks[(origin.host, origin.rank)] = n
        if origin.pod is not None and origin.host is not None and origin.pod not in self._pod_hosts and \
                len(self._pod_hosts) < 65536 and hostname_of_pod(origin.pod, origin.host):
            self._pod_hosts.add(origin.pod)
            self._pod_hosts_untold.append((origin.pod, origin.host, n))
        return origin, (origin.host, origin.rank, origin.local_rank, origin.pid)

    def _pod_hostnames(self) -> Iterator[Evidence]:
        """The pods whose hostname their lines named not told yet (`_pod_hosts_untold`, drained: a read in parts costs
        its new pods only): kind pod_hostname, the hostname as its host, the pod in details `pod_name` (the job names
        the pod's every line by its hostname)."""
        told, self._pod_hosts_untold = self._pod_hosts_untold, []
        for pod, host, first in told:
            yield Evidence(kind="pod_hostname", severity="info", host=host, file=self.name, line=first,
                           details={"pod_name": pod})

    def _classify(self, text: str, n: int) -> Finding | None:
        """Line `n`'s own finding; the findings of earlier lines it amended (Classifier.read's second output) wait in
        `_amendments` for the line's evidence to be out (`_amended`)."""
        finding, amended = self.classifier.read(text, file=self.name, lineno=n)
        if amended:
            self._amendments += amended
        return finding

    def _amended(self) -> Iterator[Evidence]:
        """The evidence of earlier lines whose findings the line just read amended (parsers/rules.py EVENT_AMENDS: a
        later line of the same event made it worse, or gave the address or peer it lacked): each again, as amended,
        marked details["amends"]; the job puts it in place of the first (triage.attribute.Job)."""
        amendments, self._amendments = self._amendments, []
        for f in amendments:
            ev = self._found.get(f.line) if f.file == self.name else None
            what = f.details.get("amends")
            if ev is None or ev.kind != f.kind or what not in _AMENDED:
                continue  # that line's finding was no evidence (a fact said more), or was forgotten
            details = {**f.details, **ev.details, "amends": what}
            if what == NODE_NAMED:  # a later line of the event named the node it happened on (Ray's memory monitor)
                yield on_named_node(ev.with_context(details=details))
                continue
            if what == "oom":  # a later line of an OOM kill said whose memory ran out (its category: OOM_SCOPES)
                yield ev.with_context(details=details)
                continue
            if what in _WORK:  # a later line of a rank's watchdog failure named its collective ("Some NCCL operations have
                # failed or timed out" first, then the timeout's WorkNCCL(SeqNum=3106, OpType=ALLREDUCE, ..))
                work = {k: ev.details.get(k, f.details.get(k)) for k in _WORK}
                yield ev.with_context(details={**details, **{k: v for k, v in work.items() if v is not None}},
                                      seq=ev.seq if ev.seq is not None else as_int(work["seq"]), op=ev.op or work["op"],
                                      timeout_ms=ev.timeout_ms if ev.timeout_ms is not None else as_int(work["timeout_ms"]))
                continue
            if what == "gpu":  # a later line of the event named the GPU index it was on (ggml's "current device: N")
                yield ev.with_context(details=details, gpu=ev.gpu if ev.gpu is not None else f.details["gpu"])
                continue
            if what == "pid":  # a later line of the event named the process it is about (a memory error's SIGBUS)
                if f.process:
                    details["process"] = f.process
                if ev.pid is None:
                    yield ev.with_context(details=details, pid=f.pid)
                else:
                    yield ev.with_context(details=details)
                continue
            value = getattr(f, what)
            if what == "rank" and ev.rank is not None:  # the quote's rank (NCCL's "Duplicate GPU detected : rank 3 ..")
                value = ev.rank  # is its writer's: the rank its launcher's prefix named stands
            if what == "peer" and placeholder(value):  # a redacted peer names no peer (as _from_finding)
                details["peer_redacted"], value = value, None
            elif what == "severity":
                yield ev.with_context(details=details, severity=value, attribution=f.attribution)
                continue
            yield ev.with_context(details=details, **{what: value})

    def _pid_filled(self) -> Iterator[Evidence]:
        """The evidence held back, each with the rank another line of the same process (host and pid: Ray's
        "(name pid=N, ip=...)", NCCL's "host:pid:tid") named in a launcher prefix, when exactly one rank was."""
        pending, self._pending = self._pending, []
        for ev in pending:
            rank = self._pid_ranks.get((ev.host, ev.pid))
            if rank is not None:
                ev = ev.with_context(rank=rank, details={**ev.details, "rank_from_pid": True})
            yield ev

    # --- one line ---------------------------------------------------------------------------------------------
    def _line(self, at: _Line) -> Iterator[Evidence]:
        """A line worth a look (see `read`), then, where it holds Ray's header of a task's error
        (facts.RAY_TASK_HEADER, after the driver's own exception or alone), the traceback it opens: the remote
        process's, whose exception is that process's (its pid and its node's address)."""
        yield from self._read_line(at)
        task = ray_task(at.rest)
        if task is not None and (at.key in self._ray_tasks or len(self._ray_tasks) < MAX_KEYS):
            self._tracebacks[at.key] = at.n
            self._caught.discard(at.key)
            self._ray_tasks[at.key] = (at.n, *task)

    def _read_line(self, at: _Line) -> Iterator[Evidence]:
        """A line worth a look, read."""
        n, rest, key = at.n, at.rest, at.key
        if self._block is not None or self._root_next or _ROOT_CAUSE in rest or _MPI_OPEN in rest or \
                _HYDRA_OPEN in rest or _BLOCK_OPEN.match(rest):
            done = self._block_line(at)
            if done is not None:
                yield from done
                return
        actor = None
        if key in self._actors:  # Ray's actor-died error: its fields, one a line, then its cause (facts.RAY_ACTOR_*)
            m = facts.RAY_ACTOR_FIELD.match(rest)
            if m is not None:
                if m.group(1) in facts.RAY_ACTOR_NAMES:
                    self._actors[key][facts.RAY_ACTOR_NAMES[m.group(1)]] = m.group(2)
                return
            actor = self._actors.pop(key)
        if rest.endswith(facts.RAY_ACTOR_OPENER) and len(self._actors) < MAX_KEYS:
            self._actors[key] = {}
        if key in self._ras:  # NCCL RAS's operation counts of a communicator's ranks, a count or a rank a line
            said = facts.ras_count(rest, self._ras[key])
            if said is not None:
                if said:
                    yield from self._keep(self._from_fact(at, facts.RAS_BEHIND, said))
                return
            del self._ras[key]
        if rest.endswith(facts.RAS_COUNTS_END) and len(self._ras) < MAX_KEYS:
            m = facts.RAS_COUNTS.match(rest)
            if m is not None:
                self._ras[key] = [None, None, m.group("op"), 0]
                return
        if key in self._tasks:  # a coordinator's list of the tasks it lost, one a line (facts.TASK_LIST_OPENERS)
            row = self._tasks[key]
            m = row.pattern.match(rest)
            if m is not None:  # a field naming none of the list's culprits (Open MPI's "my node:") is read on
                if m.lastindex is not None:
                    yield from self._keep(self._from_fact(at, row, facts._groups(row, m)))
                return
            if not rest.strip():  # a blank line of spaces (Open MPI's help text between its opener and its fields)
                return
            del self._tasks[key]
        if rest.endswith(_TASK_LIST_ENDS):
            for opener, row in facts.TASK_LIST_OPENERS.items():
                if rest.endswith(opener) and len(self._tasks) < MAX_KEYS:
                    self._tasks[key] = row
        for pattern, row in facts.TASK_LIST_FOUND.items():
            if pattern.search(rest) is not None and len(self._tasks) < MAX_KEYS:
                self._tasks[key] = row
        tail = rest  # the line without an exception group's margin
        if key in self._groups or facts.GROUP_TRACEBACK in rest:
            m = facts.GROUP_MARGIN.match(rest)
            if m is not None:
                tail = rest[m.end():]
                if len(self._groups) < MAX_KEYS:
                    self._groups.add(key)
            else:
                self._groups.discard(key)
        if _CAUGHT_BEFORE.search(tail) is not None and (key in self._announced or len(self._announced) < MAX_KEYS):
            self._announced[key] = n  # the line is read on: another writer's fact may share it (an interleaved write)
        if _STOP_SAID.search(tail) is not None and (key in self._said_stop or len(self._said_stop) < MAX_KEYS):
            self._said_stop[key] = n
        if tail.startswith(_TRACEBACK_OPENERS):
            self._tracebacks[key] = n
            self._stopping.pop(key, None)
            self._shm.discard(key)
            said = self._announced.pop(key, None)
            if said is not None and n - said <= CAUGHT_AHEAD and len(self._caught) < MAX_KEYS:
                self._caught.add(key)  # the traceback the line before announced handled
            else:
                self._caught.discard(key)
            dm = DCP_RANK.match(tail) if tail[-1:] == ")" else None
            if dm is not None and key in self._dcp_open:  # a failing rank's own traceback, printed by any rank
                self._dcp[key] = (int(dm.group(1)), n)
            else:
                self._dcp.pop(key, None)
            return
        if tail.endswith(facts.TRACEBACK):  # a logged message ending with one: its stamp the traceback's time
            self._tracebacks[key] = n
            if CAUGHT.match(tail) is not None:
                if len(self._caught) < MAX_KEYS:
                    self._caught.add(key)
            else:
                self._caught.discard(key)
            self._when(at.lead + rest, key, at.origin.host)
            return
        open_tb = self._tracebacks.get(key)
        if open_tb is None and tail[:12].lstrip().startswith(facts.FRAME_WORD):
            if facts.FRAME.match(tail) is not None:
                self._tracebacks[key] = n  # a traceback whose header the log lacks: its exception is read all the same
                self._caught.discard(key)
                self._dcp.pop(key, None)
                self._stopping.pop(key, None)
                self._shm.discard(key)
                self._teardown_frame(tail, key)
                self._frame_marks(tail, key)
            # else a frame no exception line ends (faulthandler's `  File "x.py", line 10 in f`, a dump of every
            # thread): no fact or rule is in a frame, so it is not read further (the prefilter's FRAME_WORD routes
            # every frame line here: read on, each cost the rows' ~30 us)
            return
        if open_tb is not None and tail.endswith(_STOPPING_ENDS):
            self._teardown_frame(tail, key)
        if open_tb is not None:
            self._frame_marks(tail, key)
        if open_tb is not None and not tail[:1].isspace():
            m = facts.EXCEPTION.match(tail)
            classified: Finding | None | bool = False  # False: the exception's line not classified yet
            if m is not None and key in self._caught:
                classified = self._caught_classified(at, m.group("type"))
            if classified is None:
                del self._tracebacks[key]  # handled where it was raised: the program went on
                self._caught.discard(key)
                self._shm.discard(key)
                if key in self._caught_at or len(self._caught_at) < MAX_KEYS:
                    self._caught_at[key] = n  # its chain, if one follows, is the same handled exception's
                return
            if m is not None:
                self._caught.discard(key)
                del self._tracebacks[key]
                cause = self._chained.pop(key, None)
                named = self._dcp.pop(key, None)
                ev = self._exception(at, m.group("type"), m.group("message") or "", cause,
                                     self._stopped(key, m.group("type"), n), classified)
                if key in self._shm:  # raised in a shared-memory object's making: a storage error is /dev/shm's
                    self._shm.discard(key)
                    if ev is not None and ev.kind == "storage_error":
                        ev = ev.with_context(details={**ev.details, "on": "/dev/shm"})
                task = self._ray_tasks.pop(key, None)
                if ev is not None and task is not None and task[0] == open_tb:  # a Ray task's: its process's
                    ev = of_ray_task(ev, task[1], task[2])
                if ev is not None and named is not None and named[1] == open_tb:  # the "(RANK N)" block's own
                    ev = _of_rank(ev, named[0])
                    yield from self._dcp_credited(key)
                if ev is not None:
                    if key in self._last_exc or len(self._last_exc) < MAX_KEYS:
                        self._last_exc[key] = (n, cause or ev.details.get("exception") or ev.kind)
                    if DCP_OPENER in (m.group("message") or "")[:len(DCP_OPENER) + 40] and \
                            (key in self._dcp_open or len(self._dcp_open) < MAX_KEYS):
                        if key in self._dcp_open:  # the one before, no rank's failure after it
                            yield from self._dcp_close(key)
                        self._dcp_open[key] = (n, ev)  # the ranks' own failures follow, each its own rank's
                    else:
                        yield ev
                return
            if n - open_tb > TRACEBACK_LINES:
                del self._tracebacks[key]
        if key in self._dcp_open:
            if n - self._dcp_open[key][0] > TRACEBACK_LINES:
                yield from self._dcp_close(key)
            else:
                fm = DCP_FAILURE.match(tail)
                if fm is not None:  # a failure DCP holds no traceback of: its str() alone
                    ev = self._exception(at, "", fm.group(2))
                    if ev is not None:
                        yield from self._dcp_credited(key)
                        yield from self._keep(_of_rank(ev, int(fm.group(1))))
                    return
        if tail.startswith(facts.CHAINED):
            caught = self._caught_at.pop(key, None)
            if caught is not None and n - caught <= CAUGHT_AHEAD and \
                    (key in self._announced or len(self._announced) < MAX_KEYS):
                self._announced[key] = n  # CAUGHT_CHAINED: the chain's next traceback is the same handled one's
                return
            last = self._last_exc.get(key)
            if last is not None and n - last[0] <= TRACEBACK_LINES:
                self._chained[key] = last[1]
            return
        finding = self._classify(rest, n)
        if finding is not None and (finding.kind == "unclassified" or not at_least(finding.severity, "warning")):
            finding = None
        # a finding's line is still read for the address it states of its writer (facts.ADDRESS_FACTS: libfabric's
        # "My host id: i-.." in the completion error itself): both, the address a context fact
        hit = facts.match(rest) if finding is None or generic(finding) else facts.address(rest)
        if hit is not None and actor and hit[0].name in facts.RAY_ACTOR_FACTS:  # the cause of the error above
            hit = (hit[0], {**actor, **hit[1]})
        if hit is not None:
            yield from self._srun_held(self._from_fact(at, *hit))
        if finding is not None and (hit is None or hit[0] in facts.ADDRESS_FACTS):
            yield from self._keep(self._from_finding(at, finding))

    def _srun_held(self, ev: Evidence) -> Iterator[Evidence]:
        """A job fact's evidence, kept; one of Slurm's that names no node (`_SRUN_HELD`) held back instead, with those
        of its fact just before it (another's held before closed first), and the node of srun's line for their tasks
        (SRUN_NODE_HOW) within SRUN_LINES after the last noted (`_held_closed` checks the window before each line is
        read)."""
        fact = ev.details.get("fact")
        if fact in SRUN_NODE_HOW and ev.host is None and ev.line is not None:
            held = self._held
            same = held is not None and held[0][-1].details.get("fact") == fact
            if same and len(held[0]) < SRUN_HELD_MAX:
                held[0].append(ev)
                return
            if not same:
                yield from self._held_closed()
                self._held = ([ev], set())
                return
        held = self._held
        if held is not None and fact in facts.SRUN_TASK_ENDS and ev.host and \
                str(ev.details.get("how", "")).startswith(SRUN_NODE_HOW[held[0][-1].details["fact"]]):
            held[1].add((ev.host, ev.rank))
        yield from self._keep(ev)

    def _held_closed(self, read: int | None = None) -> Iterator[Evidence]:
        """The facts held back (`_srun_held`), once the lines read (`read`: the last one's number; None: the file's
        end) reach SRUN_LINES after the last: with the node (and the one task: its rank) srun's lines named, where they
        named one."""
        if self._held is None or read is not None and read < (self._held[0][-1].line or 0) + SRUN_LINES:
            return
        (held, named), self._held = self._held, None
        hosts = {host for host, _ in named}
        host = next(iter(hosts)) if len(hosts) == 1 else None
        rank = next(iter(named))[1] if len(named) == 1 else None  # (one host and one task: named is one pair)
        for ev in held:
            yield from self._keep(replace(ev, host=host, rank=ev.rank if rank is None else rank) if host else ev)

    def _teardown_frame(self, tail: str, key: tuple) -> None:
        """A frame line of `key`'s open traceback: the teardown code (STOPPING) it is in, if any, remembered."""
        if not tail.endswith(_STOPPING_ENDS):
            return
        for row in STOPPING:
            if tail.endswith(row.ends) and row.frame.search(tail) is not None and \
                    (key in self._stopping or len(self._stopping) < MAX_KEYS):
                self._stopping[key] = row
                return

    def _frame_marks(self, tail: str, key: tuple) -> None:
        """What a frame line of `key`'s open traceback (with its header or without) says of the traceback: in
        multiprocessing's finalizer loop (FINALIZERS_FRAME), one the loop handled and printed, whatever it ends with (one
        that passed through teardown code before it, `_exit_function`: the exception escaped the loop, stays that code's
        stop); in a shared-memory object's making (SHM_FRAME), a storage error it ends is /dev/shm's."""
        if tail.endswith(_FINALIZERS_FRAME_END) and key not in self._stopping and \
                FINALIZERS_FRAME.search(tail) is not None and (key in self._caught or len(self._caught) < MAX_KEYS):
            self._caught.add(key)
        elif tail.endswith(_SHM_FRAME_END) and SHM_FRAME.search(tail) is not None and \
                (key in self._shm or len(self._shm) < MAX_KEYS):
            self._shm.add(key)

    def _caught_classified(self, at: _Line, etype: str) -> Finding | None | bool:
        """The exception of `etype` on `at`, ending a caught traceback: None where it is no failure, else its line's
        finding (read once: `_exception` takes it), or False unread, where it says the server that caught it died
        (CAUGHT_FATAL) or the parsers know its text (a CUDA error, an OOM)."""
        if CAUGHT_FATAL.search(etype) is not None:
            return False
        finding = self._classify(at.rest, at.n)
        if finding is None or finding.kind == "unclassified" or finding.details.get("consequence"):
            return None
        return finding

    def _stopped(self, key: tuple, etype: str, n: int) -> str | None:
        """The stop (a STOPPING row's name, or "stop_said") an exception of `etype` ending `key`'s traceback on line `n`
        is: raised in teardown code it ends as such, or a cancellation within TRACEBACK_LINES after its server said it
        was stopping (STOP_SAID); else None."""
        row = self._stopping.pop(key, None)
        if row is not None and (row.exceptions is None or row.exceptions.match(etype)):
            return row.name
        said = self._said_stop.get(key)
        if said is not None and n - said <= TRACEBACK_LINES and CANCELLED.match(etype):
            return "stop_said"
        return None

    def _probe_year(self, rest: str) -> None:
        """The job's year from the first dated stamp of a file (any line: most lines are no evidence)."""
        when, yearless = app_stamp(rest, self.year)
        if when is not None and not yearless and when.year > 1970:
            self.clock.dated(utc(when))
            self._year_seen = True

    def _keep(self, ev: Evidence | None) -> Iterator[Evidence]:
        if ev is None:
            return
        count = self._counts.get(ev.kind, 0)
        if count < MAX_PER_KIND:
            self._counts[ev.kind] = count + 1
            yield ev

    # --- times --------------------------------------------------------------------------------------------
    def _when(self, rest: str, key: tuple, host: str | None) -> tuple[datetime | None, dict, str | None]:
        """(wall time, details about it, the host the envelope names)."""
        env = detect(rest, self.year or 1900)
        extra: dict = {}
        when = env.timestamp
        env_host = env.extra.get("host") if env.extra else None
        if placeholder(env_host):
            env_host = None
        yearless = False
        if when is not None and env.name in _YEARLESS and self.year is None and when.year == 1900:
            yearless = True
        if when is None:
            when, yearless = app_stamp(env.message, self.year)
        if env.uptime is not None:
            extra["uptime"] = env.uptime
            if when is not None and not yearless:
                self.clock.anchor(env_host or host, utc(when), env.uptime)
        if when is not None:
            when = utc(when)
            if yearless:
                extra["yearless"] = True
            else:
                self.clock.dated(when)
            self._last_time[key] = (when, yearless)
        elif env.uptime is None and key in self._last_time:
            when, yearless = self._last_time[key]  # a line without a stamp: not before the last stamped line of its
            extra["time_inferred"] = True          # writer, a year-less one's year given by Clock.align as its own
            if yearless:
                extra["yearless"] = True
        return when, extra, env_host

    # --- evidence ---------------------------------------------------------------------------------------------
    def _base(self, at: _Line) -> dict:
        origin, rest = at.origin, at.rest
        when, extra, env_host = self._when(at.lead + rest, at.key, origin.host)
        return dict(time=when, **writer(origin, rest, extra, env_host), file=self.name, line=at.n,
                    text=at.text[:TEXT_MAX], details=extra)

    def _from_finding(self, at: _Line, f) -> Evidence:
        base = self._base(at)
        ev = Evidence.from_finding(f, host=base["host"], rank=base["rank"] if base["rank"] is not None else f.rank,
                                   time=base["time"], text=base["text"], local_rank=base["local_rank"],
                                   pid=base["pid"] if base["pid"] is not None else f.pid)
        details = dict(ev.details)
        details.update(base["details"])
        if f.kind == "xid":
            m = _CAUSED_BY_XID.search(at.rest)
            if m:
                details["caused_by_xid"] = int(m.group(1))
        elif f.kind == "nccl_timeout":  # the collective's size: ranks in one collective must agree on it
            numel = numel_in(at.rest)
            if numel is not None:
                details["numel_in"] = numel
        gpu = ev.gpu if ev.gpu is not None else base["gpu"]
        if placeholder(ev.peer):  # a redacted peer ("xxx.xxx.xxx.xxx<55921>") names no peer
            details["peer_redacted"] = ev.peer
            ev = ev.with_context(details=details, gpu=gpu, peer=None)
        else:
            ev = ev.with_context(details=details, gpu=gpu)
        if NODE_NAMED in details:  # the line names the node it happened on, not its writer's
            ev = on_named_node(ev)
        if len(self._found) >= MAX_FOUND:
            del self._found[next(iter(self._found))]
        self._found[at.n] = ev  # what a later line's amendment of its finding amends (_amended)
        return ev

    def _from_fact(self, at: _Line, fact, groups) -> Evidence:
        base = self._base(at)
        details = dict(base.pop("details"))
        fact_fields(fact, groups, base, details)
        if ("pod_end" in details or fact.kind == "pod_started") and self._pod is not None and self._pod[1]:
            details.setdefault("pod", f"{self._pod[1]}/{self._pod[0]}")  # the described pod, as its object names it
        return Evidence(kind=fact.kind, severity=fact.severity, attribution="unknown", details=details, **base)

    def _exception(self, at: _Line, etype: str, message: str, cause: str | None = None,
                   stopped: str | None = None, classified: Finding | None | bool = False) -> Evidence | None:
        """The exception a traceback ends with (its type, "" where only its message was printed, and message);
        `cause`: the first exception of the chain it ends (Python printed it above, "During handling of the above
        exception" / "The above exception was the direct cause"), whose consequence it is; `stopped`: the healthy stop
        it was raised in (FileReader._stopped), a stop as STOP_EXCEPTIONS are."""
        # a fact the exception states (a DataLoader worker killed by a signal): the fact, its exception kept; by its
        # message, else by its type alone (torchelastic's bare RendezvousClosedError: the store row's own words)
        hit = (facts.match(message) if message else None) or (facts.match(etype) if etype else None)
        if hit is not None and hit[0].kind in facts.EXCEPTION_FACTS:
            ev = self._from_fact(at, *hit)
            details = {**ev.details, **({"exception": etype} if etype else {})}
            if cause:
                details.update(consequence=True, chained_from=cause)
            return ev.with_context(details=details)
        # the parsers know CUDA errors and OOMs by their text: those are theirs
        finding = self._classify(at.rest, at.n) if classified is False else classified
        if finding is not None and finding.kind != "unclassified" and not finding.details.get("consequence"):
            ev = self._from_finding(at, finding)
            if cause:  # raised while handling the chain's first (a CUDA error, an NCCL error): its consequence
                ev = ev.with_context(details={**ev.details, "consequence": True, "chained_from": cause})
            return ev
        said = message[:300]
        # a chain's first exception, `cause`, is known by its type alone: a SystemExit there was read on its own line
        stop = stopped is not None or stops(etype, message) or bool(cause and STOP_EXCEPTIONS.search(cause))
        consequence = bool(stop or cause or CONSEQUENCE_EXCEPTIONS.search(etype) or
                           (OWN_ASSERT.search(said) is None and CONSEQUENCE_EXCEPTIONS.search(said)))
        base = self._base(at)
        base["details"].update(exception=etype or None, message=message[:200], consequence=consequence)
        if cause:
            base["details"]["chained_from"] = cause
        if stopped is not None:
            base["details"]["stopped"] = stopped
        # a consequence is still a failure of the job, its cause elsewhere (attribute: undetermined where nothing else
        # is logged); a stop is none
        return Evidence(kind="exception", severity="warning" if stop else "error",
                        attribution="unknown" if consequence else "application", **base)

    # --- torchrun's ChildFailedError summary, Open MPI's non-zero exit -------------------------------------
    def _block_line(self, at: _Line) -> list[Evidence] | None:
        """The evidence a line of the summary closes (possibly none: []), or None when the line is not part of one."""
        n, rest = at.n, at.rest
        if self._block is not None and not rest.strip():
            return []  # a blank line inside a summary (Open MPI's after its opener)
        if _MPI_OPEN in rest:
            out = list(self._close_block())
            self._block = _Block(True, n, kind=BLOCK_KINDS["mpi_exit"])
            return out
        if _HYDRA_OPEN in rest:
            out = list(self._close_block())
            self._block = _Block(True, n, {"open": (rest, n, at.text, at.lead)}, BLOCK_KINDS["hydra"])
            return out
        if self._block is not None and self._block.kind is BLOCK_KINDS["hydra"]:
            hm = _HYDRA_FIELD.match(rest)
            if hm is not None:
                for name, value in hm.groupdict().items():
                    if value is not None:
                        self._block.fields[name] = (value, n, at.text, at.lead)
                return []
            return list(self._close_block())  # its "=   CLEANING UP ..." or "=====" line: no evidence of its own
        if _ROOT_CAUSE in rest:
            out = list(self._close_block())
            self._root_next = True
            return out
        m = _BLOCK_OPEN.match(rest)
        if m is not None:
            out = list(self._close_block())
            self._block = _Block(self._root_next, n)
            self._root_next = False
            return out
        if self._block is not None:
            kind = self._block.kind
            fm = kind.field.match(rest)
            if fm is not None:
                self._block.fields[kind.names.get(fm.group(1), fm.group(1))] = (fm.group(2).strip(), n, at.text,
                                                                                at.lead)
                return []
            out = list(self._close_block())
            return out if out else None
        return None

    def _close_block(self) -> Iterator[Evidence]:
        block, self._block = self._block, None
        if block is not None and block.kind is BLOCK_KINDS["hydra"]:
            yield from _hydra_evidence(self, block.fields)
            return
        if block is None or "rank" not in block.fields:
            return
        f = block.fields
        rank_m = block.kind.rank.match(f["rank"][0])
        ranks = rank_m.groupdict() if rank_m else {}
        exit_m = _BLOCK_EXIT.match(f.get("exitcode", ("",))[0])
        # the summary's own time field, else the stamp before its rank's line (Determined's, a collector's)
        when, yearless = app_stamp(f["time"][0] if "time" in f else f["rank"][3], self.year)
        details: dict = {"fact": block.kind.fact, "root_cause": block.root}
        if yearless:
            details["yearless"] = True
        elif when is not None:
            self.clock.dated(utc(when))
        signal = None
        if "traceback" in f:
            sm = _SIGNAL_TEXT.search(f["traceback"][0])
            if sm:
                signal = int(sm.group(1))
            details["traceback"] = f["traceback"][0][:200]
        exit_code = int(exit_m.group(1)) if exit_m else None
        if signal is None and exit_code is not None and exit_code < 0:
            signal = -exit_code
        line_no, text = f["rank"][1], f["rank"][2]
        host = f["host"][0] if "host" in f and not placeholder(f["host"][0]) else self.origin.host
        yield Evidence(kind="rank_exit", severity="error", time=utc(when), host=host,
                       rank=int(ranks["rank"]) if ranks.get("rank") else None,
                       local_rank=int(ranks["local_rank"]) if ranks.get("local_rank") else None,
                       pid=int(exit_m.group(2)) if exit_m and exit_m.group(2) else None,
                       file=self.name, line=line_no, text=text[:TEXT_MAX], exit_code=exit_code, signal=signal,
                       details=details)


DCP_OPENER = "CheckpointException ranks:"


def _of_rank(ev: Evidence, rank: int) -> Evidence:
    """A failure a CheckpointException prints for the rank it names (DCP_RANK, DCP_FAILURE): that rank's, whichever
    rank wrote it; the writer's own fields (host, rank, local rank, pid, the GPU of its prefix) go to details as its
    reporter's (the failing rank's host is the job's to say, by its rank)."""
    details = {**ev.details, "dcp_rank": rank}
    if ev.rank == rank:
        return ev.with_context(details=details)
    return _of_another(ev, details, rank=rank)


def of_ray_task(ev: Evidence, pid: int, host: str) -> Evidence:
    """The exception a Ray task's traceback ends with (facts.RAY_TASK_HEADER): the process the header names (its pid,
    its node's address), whoever printed it (the driver: its own fields go to details as its reporter's)."""
    if (ev.pid, ev.host) == (pid, host):
        return ev
    return _of_another(ev, dict(ev.details), pid=pid, host=host)


def on_named_node(ev: Evidence) -> Evidence:
    """A failure whose line names the node it happened on (details NODE_NAMED): that node's, its writer (the driver,
    a raylet) the reporter (`_of_another`); no process of it named."""
    host = ev.details[NODE_NAMED]
    if placeholder(host) or ev.host == host:
        return ev
    return _of_another(ev, dict(ev.details), host=host)


def _of_another(ev: Evidence, details: dict, **who) -> Evidence:
    """`ev` as the failure of the process `who` names, not its writer's: the writer's own fields (host, rank, local
    rank, pid, the GPU of its prefix) go to `details` as its reporter's; a GPU its own message names stays."""
    for name in ("host", "rank", "local_rank", "pid", "gpu"):
        value = getattr(ev, name)
        if value is not None:
            details.setdefault(f"reporter_{name}", value)
    own_gpu = "gpu_index" in ev.details or "gpu" in ev.details  # the device its own message names
    return ev.with_context(details=details, **{"rank": None, "host": None, "local_rank": None, "pid": None,
                                               "gpu": ev.gpu if own_gpu else None, **who})


def _hydra_evidence(reader: "FileReader", f: dict) -> Iterator[Evidence]:
    """A Hydra block's process killed by a signal (`_HYDRA_OPEN`): its rank, pid and host where the block names
    them (the line naming them its evidence, else the opener's), the signal as said or as the old raw status holds."""
    if "signal" not in f and "status" not in f:
        return
    signal = int(f["signal"][0]) if "signal" in f else int(f["status"][0]) & 0x7F or None
    _, line_no, text, lead = f.get("pid") or f["open"]
    when, yearless = app_stamp(lead, reader.year)
    details: dict = {"fact": BLOCK_KINDS["hydra"].fact}
    if "status" in f:
        details["wait_status"] = int(f["status"][0])
    if yearless:
        details["yearless"] = True
    host = f["host"][0] if "host" in f and not placeholder(f["host"][0]) else None
    yield Evidence(kind="rank_exit", severity="error", time=utc(when), host=host,
                   rank=int(f["rank"][0]) if "rank" in f else None, pid=int(f["pid"][0]) if "pid" in f else None,
                   file=reader.name, line=line_no, text=text[:TEXT_MAX], signal=signal, details=details)


def read_lines(lines: Iterable[str], name: str, clock: Clock, root: str | None = None,
               year: int | None = None) -> Iterator[Evidence]:
    """Evidence of one file's lines (see FileReader)."""
    return FileReader(name, clock, root=root, year=year).read(lines)
