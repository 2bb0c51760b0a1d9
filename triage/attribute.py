"""Evidence of one job in, incidents out, most likely root cause first.  Pure and deterministic.

The decision is a table of rules (RULES), tried in priority order; the first that finds a root decides the job's
first incident:

1. node_fault        a hardware or fabric fault of a node of the job (Xid, SXid, fallen off the bus, ECC, NVLink,
                     PCIe AER, IB link down, NIC failure; an uncorrected host memory error whose kernel line names a
                     process the job's lines map to a rank), or a GPU driver the node cannot use (its kernel log's driver
                     mismatch, or a rank's own NVML / CUDA refusal at start: infrastructure), within the window before
                     the job's failures outranks any application's claim; a CUDA error only hardware causes
                     (uncorrectable ECC / NVLink) counts.
2. first_failure     otherwise the earliest failure that is not a consequence of another: an application error
                     (a Python exception, CUDA illegal access / device assert / OOM, an application Xid), an
                     infrastructure event (host OOM kill, the scheduler ending the job, a full disk), or a rank that
                     died first (exit code, signal) — explained by what its own log says when it says anything (a
                     SIGBUS by its host's kernel line saying it sent it for an uncorrected memory error: hardware;
                     a store's count of ranks that never joined: those ranks the suspects).
3. mismatched_collective  ranks time out in one collective (process group and SeqNum) with different sizes or
                     operations: they called different collectives, the program's bug.
4. peer_error        network errors that name a peer (ncclRemoteError, NET/IB completion errors, a closed socket)
                     point at the peer, its address mapped to a host by NCCL's own INFO lines; fabric only when a
                     completion error says the link failed (not a request flushed after the connection broke).
5. fabric_error      InfiniBand / RoCE errors that name no peer (async port errors): the fabric.
6. lagging_rank      NCCL watchdog reports: a rank that never enqueued the collective the others time out in (its
                     last enqueued work is behind, in its watchdog's line or in the flight recorder's dump line of the
                     same process group, or it reported no timeout while the others did) is the suspect; so is the
                     rank 0 ranks waited for through the store for its NCCL unique id (it never published it, or it
                     went away with the store).
7. undetermined      only consequences (timeouts, aborts): the evidence is too thin to name a root.

Consequences (watchdog timeouts, aborts after them, remote errors, SIGTERMs the launcher sent) never decide a
root; they are folded into the incident's `consequences` sentence.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

from parsers import xid_info
from parsers.envelope import host_key
from parsers.finding import SEVERITY_RANK
from parsers.correlate import WHAT as KIND_WORDING
from parsers.kinds import BY_NAME as KIND
from parsers.kinds import OOM_SCOPES, named_as
from parsers.kinds import TABLE as KIND_TABLE
from parsers.pci import PORT_DRIVERS, printed_by
from parsers.rules import CUDA_CONTAINED, GPU_OOM_HELD, NCCL_TEXT, NVSMI_NO_GPU, held_alone
from parsers.units import duration

from .clock import SKEW
from .facts import (FACT_CATEGORY, FR_MISSING_FACTS, JOB_TABLE, NEVER_STARTED, POD_ENDS, QUEUE_PREEMPTION, SHM_LINE,
                    SIGNALS, WHY_OOM)
from .facts import EVICTOR_ENDS, NODE_DRAINS, bare_address, loopback as _loopback, own_address, pod_end, pod_ended_as
from .model import Evidence, Incident, Root, as_int
from .teardown import BEFORE_SAVE, ENDED_SIGNALS, Teardown, fails, stated_before, teardown

DEFAULT_WINDOW = 600.0  # seconds a node fault may precede the job's first failure it explains

# Every kind triage reads: the kind table's (parsers/kinds.py) and triage's own (facts.JOB_TABLE); each row says its
# category, whether it is a consequence, names a peer, fails the job, ends it after the fact or is only context
_ROWS = (*KIND_TABLE, *JOB_TABLE)
# What category a root of each kind is (node faults and failures alike); "by_attribution": the line's rule decides.
KIND_CATEGORY = {k.name: k.category for k in _ROWS if k.category}
ATTRIBUTION_CATEGORY = {"hardware": "hardware", "driver": "hardware", "fabric": "fabric", "application": "application"}
# Node faults: the node's own kinds (not a job's output) whose root is a hardware or fabric fault, or as the line's
# attribution says (an Xid): a fault of a device of the node (GPU, NVSwitch, NIC, port, PCIe device) and the GPU /
# NIC driver modules' faults, which name no device; a notice such as a GPU reset has no category
# The node's own infrastructure about a device of it counts too: a GPU its driver as installed cannot drive
# (driver_mismatch: the kernel module and the user-space driver of different releases, a GPU the release does not
# support), which breaks every job on the node as surely as a GPU fault; so does the node's own infrastructure that
# raises a node condition of its own (a parallel filesystem client evicted mid-checkpoint: every rank's I/O to it
# failed, the job's own log then showing only an NCCL timeout; a GPFS node out of its cluster; an NFS soft mount's RPC
# timed out, its I/O failed with EIO; each an error, while a lost connection or a hard mount "still trying", warnings,
# are none); a host OOM kill or a hung task (no device, no
# condition) is the job's own failure, not such a fault.
NODE_FAULT_KINDS = frozenset(k.name for k in KIND_TABLE
                             if not k.workload and (k.category in ("hardware", "fabric", "by_attribution") or
                                                    k.category == "infrastructure" and
                                                    (k.device is not None or bool(k.raises))))
# Workload kinds whose line is the job's own report of a fault of the node it ran on (its host's): a rank that could
# not use the node's GPU driver at all (driver_unusable: NVML's "Driver/library version mismatch", a driver too old
# for the job's CUDA, Fabric Manager not running) says which node is broken, whatever the application did after (the
# rows' `reports_node_fault`).
JOB_SEEN_NODE_FAULTS = frozenset(k.name for k in KIND_TABLE if k.reports_node_fault)
# Symptoms: what a failure elsewhere makes a healthy rank print
SYMPTOM_KINDS = frozenset(k.name for k in _ROWS if k.consequence)
# Kinds a job's first failure of which says a member cannot continue (the rows' `restarts`: cluster/recovery.py)
RESTART_KINDS = frozenset(k.name for k in _ROWS if k.restarts)
# a rank's own watchdog report of a collective that timed out (the consequences' "N ranks timed out"); the flight
# recorder's dump lines (nccl_dump) are not: a rank told to dump may never have timed out itself (the rows' `timed_out`)
TIMEOUT_KINDS = frozenset(k.name for k in _ROWS if k.timed_out)
PEER_KINDS = frozenset(k.name for k in KIND_TABLE if k.peer)
# the job's own report of its slow ranks (parsers/kinds.py): its ranks the suspects of a hang no watchdog number explains
STRAGGLER_KIND = "straggler_report"
# the job's own decision to stop (the rows' `stop`: its straggler detection stopped it, facts.py straggler_stop): a
# first failure by itself, decided by the straggler reports before it (`_straggler_stop`)
STOP_KINDS = frozenset(k.name for k in JOB_TABLE if k.stop)
# what makes a host slow rather than broken (parsers/kinds.py `slows`): named beside a lagging rank whose host logged it
SLOW_HOST_KINDS = frozenset(k.name for k in KIND_TABLE if k.slows)
# A process of a rank ended: the rank's own (a launcher's line), or its DataLoader worker's (the rank's exception
# naming the worker's pid and signal): each is explained as a rank's death is (its own log, its host's OOM kill or
# memory error naming its pid), else by what its signal points at
DEATH_KINDS = frozenset(k.name for k in JOB_TABLE if k.death)  # the rows' `death`
# Deaths whose line says nothing of why: those reported after the fact (the rows' `aftermath`: a launcher's exit line, a
# coordinator declaring a process or node dead), not the rank's own words; of failures as early, an explained one is
# the root before them
BARE_DEATHS = frozenset(k.name for k in JOB_TABLE if k.death and k.aftermath)
# Deaths of a process that is not a rank as such (a rank's DataLoader worker, a process or node the coordinator
# declared dead: the rows' `death` "process"), named with its pid (`_dead`)
PROCESS_DEATHS = frozenset(k.name for k in JOB_TABLE if k.death == "process")
# How a coordinator's line (facts.py, kind process_lost) says it lost the process or node it names, by its row
LOST_HOW = {"xla_task_heartbeat": "XLA's coordination service stopped hearing its heartbeats",
            "xla_task_restarted": "XLA's coordination service saw it come back as a new incarnation: it had restarted",
            "xla_unhealthy_task": "XLA's coordination service named it unhealthy (its heartbeats stopped)",
            **dict.fromkeys(("ras_dead_process", "ras_peer_dead"),
                            "NCCL's RAS declared it dead (unreachable over RAS's network past its timeout, 60 s)"),
            "ray_node_dead": "Ray declared its node dead",
            "nvrx_rank_monitor": "its rank monitor (nvidia-resiliency-ext) heard no heartbeat or section update from it within its timeout and killed it",
            **dict.fromkeys(("mpi_daemon_lost", "mpi_daemon_lost_node"),
                            "Open MPI's launcher lost the connection to its daemon there"),
            "mpi_daemon_no_route": "Open MPI's launcher had no route to its daemon there",
            "ray_worker_died": "Ray's raylet saw the worker process die, exit type SYSTEM_ERROR",
            "ray_actor_owner_died": "Ray's GCS saw the process that owned the job's actors die, exit type SYSTEM_ERROR"}
# Rows (facts.py) of a rank that ended the job itself by calling MPI_Abort: a bare death (its own log says why, if
# anything does), the rank the line names the suspect
ABORT_FACTS = frozenset({"mpi_abort"})
# Rows (facts.py) of a line that counts the ranks that joined the store against those it waited for (store_join:
# the store-based barrier's "(world_size=2048, worker_count=1792, ..)", the TCPStore server's "1/3 clients joined"):
# with the counts apart it is no consequence but the job's cause, said by the rank that waited (a first failure, a
# rank's death right after it explained by it): fewer joined, the ranks that never did are the suspects (a node or
# pod that never started, or never reached the store); more, the store also held other processes' joins (another job
# on the same store address, or an earlier attempt of this one). Store errors without counts stay consequences.
STORE_COUNTS = frozenset({"store_join"})
# Rows (facts.py) of a TCPStore client that lost the store it had reached (store_lost: "recvValue failed on
# SocketImpl(.., remote=[host]:29500): Connection reset by peer", the watchdog's "maybe TCPStore server has shut down
# too early"): where such a line is the job's first symptom, the store's host is the suspect (`_store_lost`)
STORE_LOST = frozenset({"store_lost"})
# The rows of slurmstepd's exec of a task's program that failed ("execve(): <program>: <errno>", facts.py slurm_execve):
# `what` the program and the error, said as an exec's
EXEC_FACTS = frozenset({"slurm_script_execve", "slurm_execve"})
# The most ranks a verdict names one by one as never having joined a store (_store_counts) or reached a collective
# (_lagging_rank): a count beyond any job's (a corrupt or hostile line's "0/99999999999 clients joined",
# "nranks 99999999999") costs no more than this
MAX_ABSENT_NAMED = 1 << 17
# Signals a rank gets because another failed: the watchdog's abort (SIGABRT), the launcher's signal that asks the
# survivors to stop (teardown.ENDED_SIGNALS: SIGTERM, SIGINT, SIGHUP)
CONSEQUENCE_SIGNALS = frozenset({6}) | ENDED_SIGNALS
# What a rank's death by a signal means when nothing in its log explains it
# (SIGBUS: a mapping whose backing store is gone, in these jobs /dev/shm too small or full for NCCL's shared-memory
# transport; SIGSEGV / SIGILL / SIGFPE: the program).  SIGKILL is none: it is whoever sent it (the kernel's OOM killer,
# a scheduler, the launcher, a user), and a lone SIGKILL says not who (Kay1794/Aware-of-the-history #2, horovod #469)
SIGNAL_CATEGORY = {7: "infrastructure", 11: "application", 4: "application", 8: "application"}
# what a death by the signal most often is, said in the reason where nothing explains it
SIGNAL_MEANING = {7: "SIGBUS, a shared mapping whose backing store is gone, most often /dev/shm too small or full"}
# Who sends a signal that names no category, said in the reason of a death nothing explains
SIGNAL_SENDERS = {9: "the kernel's OOM killer (host or container memory), a scheduler's preemption or time limit, "
                     "the launcher after another rank failed, or a user"}
# The kinds whose line explains a rank's death by the signal even where it names no rank nor host (a pod's
# "OOMKilled", Slurm's "Detected 1 oom-kill event in StepId=...", a step cancelled "DUE TO TIME LIMIT"): the one job's
# own kill; one that names another host is that host's
SIGNAL_EXPLAINED_BY = {9: frozenset({"oom_kill", "job_ended"})}
# Host memory (kind memory_error, no category of its own: a corrected error, or an uncorrected one in a page no process
# used, breaks no job).  An uncorrected error the kernel contained by signalling the process that touched the page
# ("Memory failure: 0x3710b3: Sending SIGBUS to python:1234 due to hardware memory corruption", 4.x "Killing
# python:1234 due to ..."; mm/memory-failure.c sends SIGBUS, BUS_MCEERR_AR / _AO) kills that process: a rank that died
# by SIGBUS on that host, the line naming its process (its pid, a pid the job's lines map to its rank, or its name:
# the thread the kernel names may be one of the rank's, whose pid is not the rank's), died of the node's memory,
# not of /dev/shm (hardware, the memory error on that host its root).  One naming no process (the poison consumed in
# user space, "mce: Uncorrected hardware memory error in user-access at 3710b3400", or a page taken offline, "Memory
# failure: 0x3710b3: recovery action for dirty LRU page: Recovered") explains a SIGBUS on its host only within
# MEMORY_UNNAMED_WINDOW seconds before it, both stamped, and only where nothing the rank's own log says does; an EDAC
# count or a machine check naming no page, a corrected error, never.
# A page the kernel could not unmap: it kills the processes mapping it with SIGKILL instead ("Memory failure: 0xedbe201:
# forcibly killing read_poison:22434 because of failure to unmap corrupted page", kill_procs: force_sig /
# do_send_sig_info(SIGKILL), every era; the parsers' details "forced"): a rank that died by SIGKILL, that line naming
# its process, died of the node's memory as surely (not of the OOM killer, a scheduler or the launcher).  Each line
# explains only a death by the signal it says it sent; a line naming no process, only a SIGBUS.
MEMORY_SIGNALS = frozenset({7, 9})
# what a death the node's memory explains was not, by its signal
MEMORY_NOT = {7: "/dev/shm", 9: "the OOM killer, a scheduler or the launcher"}
MEMORY_UNNAMED_WINDOW = 60.0
# A process's own crash as the kernel reports it (kind process_crash, no category of its own: any program on the host
# may crash): "pt_main_thread[2536443]: segfault at 7f797fe00000 ip .. error 4 in libnccl.so.2[..]", "traps:
# python[8844] trap invalid opcode ip:.. in <library>[..]". A rank that died by the signal the line says the fault sent
# (SIGSEGV, SIGILL, SIGFPE), on that host, the line naming its process (its pid, a pid the job's lines map to its rank,
# or a name the rank's process goes by: the kernel names the faulting thread, whose pid is not the rank's), died of that
# crash; the library it crashed in says whose code it was (the parsers' details "stack"): the GPU driver's user-space
# libraries (libcuda, libnvidia-*): the node's driver stack, infrastructure (as a driver the job could not use); NCCL's,
# PyTorch's or the program's own: the application's.
CRASH_SIGNALS = frozenset({11, 4, 8})
CRASH_CATEGORY = {"driver": "infrastructure"}
CRASH_WHOSE = {"driver": "the GPU driver's user-space library, the node's driver stack, not the program's own code",
               "nccl": "NCCL's, the application's communication stack", "pytorch": "PyTorch's, the application's"}
# the names a rank's process goes by in the kernel's lines (its comm, TASK_COMM_LEN - 1 characters): the Python
# interpreter's, PyTorch's threads' ("pt_main_thread", "pt_autograd_0"), Ray's workers' ("ray::IDLE"); or the binary
# its launcher's line names ("of binary: /usr/bin/python3")
COMM_LEN = 15
JOB_PROCESS_NAMES = re.compile(r"python[\d.]*|pt_\w+|ray::.*")
# A file system's refusal whose cause is the job's own, not the storage's nor a node's (storage_error's category
# otherwise, infrastructure): a quota (EDQUOT, "Disk quota exceeded"; TensorFlow's "disk quota exceeded") is the
# owner's user or project limit on a file system with room left (open-mmlab/mmdetection #12069: "but there is still
# space left in the save directory"), the job's to clean up or raise; no node is at fault and another node fails alike.
# Keyed by the line's words (details "what"), lower case.
STORAGE_WHAT_CATEGORY = {"disk quota exceeded": "application"}
CONTEXT_KINDS = frozenset(k.name for k in JOB_TABLE if k.context)
# How far from the Eviction API's eviction of a pod (its DisruptionTarget condition's time) Karpenter's Evicted Event
# of the same pod (facts.KARPENTER_EVICTED) may be and still be that eviction's: the Event is recorded once
# the eviction call returns, within seconds (clocks of two machines, SKEW; a slow API server); a later pod of the same
# name (a JobSet's, a StatefulSet's) evicted by someone else minutes later is not
EVICTED_WITHIN = 60.0
# NCCL's lines that map ranks and addresses to hosts (the rows' `maps`): read into the job's maps, never a rank seen
MAP_KINDS = frozenset(k.name for k in JOB_TABLE if k.maps)
# A node's disk nearly full (kind disk_pressure: Ray's raylet, "... is over 95% full ... Object creation will fail if
# spilling is required", a warning, never a failure of its own) explains an object store failure after it on that node,
# within the job's window (the warning repeats every 10 s while it lasts): Ray's ObjectStoreFullError, raised where the
# store could not make room, spilling to that disk refused; without it the store filled with objects the program kept
# in scope, the application's (ray-project/ray #11594's "The local object store is full of objects that are still in
# scope and cannot be evicted").  The exceptions it explains, by their type or message:
DISK_PRESSURE_EXPLAINS = re.compile(r"ObjectStoreFullError|in object store because it is full")
# NET/IB completion statuses (parsers.rules.IB_WC_STATUS names) that are not evidence that the link failed (every
# other status is: fabric) -> what a job's failure on them is.  None: the aftermath of another failure, a work
# request flushed because its queue pair was already in error (the peer's process gone, or an earlier error on the
# connection); such lines still name the peer, they never decide a cause.  "infrastructure": the reporting node's
# own adapter was refused the memory it registered, IBV_WC_LOC_PROT_ERR ("error 4 ... vendor err 81"): with
# GPUDirect RDMA the node's PCIe path from the NIC to the GPU, PCIe ACS left enabled (or an IOMMU, a VM's
# passthrough) breaking peer-to-peer: "IB error 4 is usually due to ACS being enabled and breaking GPU Direct RDMA
# protocol" (NCCL's maintainers, NVIDIA/nccl #928; #214 and #304, where disabling ACS fixed it; between VMs with
# GDR, the passthrough, #660): the node's configuration, not the link nor the peer.
IB_STATUS_CATEGORY: dict[str, str | None] = {"IBV_WC_WR_FLUSH_ERR": None, "IBV_WC_LOC_PROT_ERR": "infrastructure"}
# NCCL's verbs calls that failed (NCCL WARN "Call to <call> failed with ..", parsers.rules nccl_ib_*: details
# "ibv_call") -> what a job's failure on one is.  Each returns ncclSystemError to the rank that made it, whose "NCCL
# Error 2: unhandled system error" follows: the call's line is the cause, not a consequence.  Registering a buffer with
# the NIC refused (ibv_reg_mr, ibv_reg_mr_iova2, ibv_reg_dmabuf_mr: GPU memory with GPUDirect RDMA) is the reporting
# node's own set-up, its peer-memory module, GPU and NIC drivers, locked-memory limit (NVIDIA/nccl #1842, driver
# 470; #778, "IB driver version is too old to support DMABUF"; modelscope/ms-swift #6107): infrastructure, that node.
# A queue pair's move to RTR that timed out or found no route (ibv_modify_qp) is the network between the two NICs
# (NVIDIA/nccl #2013, the rails' routing; nccl-tests #185): fabric.
IBV_CALL_CATEGORY: dict[str, str] = {
    **dict.fromkeys(("ibv_reg_mr", "ibv_reg_mr_iova2", "ibv_reg_dmabuf_mr"), "infrastructure"),
    "ibv_modify_qp": "fabric",
}
# Slurm's "*** STEP 1234.0 ON node-3 CANCELLED AT <time> DUE TO <why> ***" (slurmstepd) -> the category of the job's
# end for that reason, and what the reason adds to the incident's.  The scheduler's own decisions
# (src/slurmd/slurmstepd/req.c: SIG_PREEMPTED, SIG_NODE_FAIL, SIG_REQUEUED) are infrastructure whatever the tasks did
# after.  A time limit (SIG_TIME_LIMIT) is the limit the job's owner set (sbatch / srun --time, or the partition's
# default the owner chose by submitting there: desihub/desitarget #628, "it is trying to send your job with the
# default, i.e. to the debug queue and gives it 10 minutes"), the scheduler only enforcing it: the job ran slower than
# its owner planned, hung, or was given too little time; no line says the cluster slowed it, and a node that did is
# its own fault's incident (node_fault outranks this).  After the job stated its success it hung at exit (MLPerf
# v5.0 Oracle 1xBM.GPU.B200.8 retinanet result_0: run_stop "success", then rank 0 never exited and the step's own
# `srun --time=33` ended it 9 minutes later), the application's teardown.  The other reasons are no cause: "DUE TO
# TASK FAILURE" (Slurm cancelling the step because one of its tasks failed, srun --kill-on-bad-exit: desihub/desispec
# #2744) is that task's failure's aftermath, and no reason at all (a SIGTERM / SIGKILL sent to the step: a user's
# scancel, or srun itself ending the step after a task exited, "srun: Terminating StepId=...": jiabowang/GAPIT #207)
# says no one failed but who sent it.
class SlurmEnd(NamedTuple):
    category: str
    said: str  # what the reason means, in the incident's reason
    after_success: str = ""  # what it means after the same file stated the job's success (triage.teardown)


SLURM_ENDS: dict[str, SlurmEnd] = {
    "TIME LIMIT": SlurmEnd("application", "the scheduler enforced the time limit the job was given: the job ran "
                           "slower than planned, hung, or was given too little time",
                           "its processes hung at exit, the application's teardown"),
    "PREEMPTION": SlurmEnd("infrastructure", "the scheduler preempted it"),
    "NODE FAILURE": SlurmEnd("infrastructure", "the scheduler ended it for a failed node"),
    "JOB REQUEUE": SlurmEnd("infrastructure", "the scheduler requeued it"),
}
# After the job already failed, these are its end, not its cause: the scheduler cancelling it, the launcher told to
# stop, a rank killed without a word of why
AFTERMATH_KINDS = frozenset(k.name for k in JOB_TABLE if k.aftermath)


@dataclass(frozen=True)
class Verdict:
    category: str
    root: Evidence | None  # None: no single line is the root
    rule: str
    reason: str
    suspects: tuple[Evidence, ...] = ()  # the root's supporting evidence (the lagging rank's, the peer's)
    rank: int | None = None  # the root rank when no single line names it (lagging rank)
    host: str | None = None
    kind: str | None = None  # the root kind when no single line is the root
    host_level: bool = False  # the root line's host is the root, not its rank (a fault of the host's adapter)
    pod: str | None = None  # the peer's pod, where its address is a known pod's (the cluster's map)
    unplaced: tuple[Evidence, ...] = ()  # failures no time places against the root (shown after its lines)


# NCCL's ncclGetErrorString() text of ncclInvalidUsage (parsers/rules.py NCCL_TEXT): what a rank's init refused for two
# ranks on one GPU returns
INVALID_USAGE = next(text for text, name in NCCL_TEXT.items() if name == "ncclInvalidUsage")


def _shared_gpus(raw: Iterable[Evidence]) -> dict[str, list[tuple[Evidence, int]]]:
    """host -> (a rank's NCCL init line, the rank already on its GPU), for each GPU of a host two ranks of one
    communicator are on: NCCL's init lines (facts.py nccl_comm, 2.19+'s naming the communicator, `comm_id`) of one
    host, commId and busId, of two ranks (NVIDIA/TensorRT-LLM #9263: "rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 100000
    commId 0xaa9becea043c4e6c - Init START" and rank 1's of the same ids). Never across hosts or bus ids, nor from a
    line naming no communicator or no host (an older release's: no verdict). Bounded: one entry per (host, commId,
    busId) read (its first rank: a job of 10,000 ranks' init lines, 10,000 entries for its world communicator, each a
    reference to a line already read), and the first two ranks of each key two ranks share (two entries)."""
    first: dict[tuple[str, str, str], Evidence | None] = {}  # None: the key's pair is taken
    shared: dict[str, list[tuple[Evidence, int]]] = defaultdict(list)
    for e in raw:
        comm, bus = e.details.get("comm_id"), e.details.get("busid")
        if e.kind != "nccl_rank" or e.rank is None or not e.host or not comm or not bus:
            continue
        key = (e.host, str(comm), str(bus))
        had = first.setdefault(key, e)
        if had is not None and had.rank != e.rank:
            shared[e.host] += [(had, e.rank), (e, had.rank)]  # each of the two ranks, the other on its GPU
            first[key] = None
    return dict(shared)


# --- the job's context ------------------------------------------------------------------------------------------

class Job:
    """Everything the rules look at, derived once from the evidence: times ordered, ranks and hosts filled in."""

    def __init__(self, evidence: Iterable[Evidence], window: float, names: Mapping[str, str] | None = None):
        raw = _one_name(_amended(list(evidence)))
        self.names = names or {}  # file -> how the reasons name it (`file_names`); a file not in it, as it is
        # address -> host: NCCL's own address lines, and the map of a cluster's pods and nodes (triage.inventory,
        # cluster/book.py: the same kind, nccl_address, its details naming the pod); the first to name one wins
        self.addresses: dict[str, str] = {}
        self.address_pods: dict[str, str] = {}  # address -> the pod ("namespace/name") it is, where known
        self.pid_rank: dict[tuple[str | None, int], int] = {}
        self.rank_host: dict[int, str] = {}
        self.world: int | None = None
        self.seen_ranks: set[int] = set()
        # the hosts the job's lines name (not every node of a cluster's inventory)
        self.hosts: set[str] = {e.host for e in raw if e.host and not (e.kind == "nccl_address" and "map" in e.details)}
        comms = [e for e in raw if e.kind == "nccl_rank" and e.rank is not None and as_int(e.details.get("nranks"))]
        # the job's size: its largest communicator (split communicators of tensor / pipeline groups number their
        # ranks from 0 again, so only the world communicator's lines say which global rank a host:pid is)
        self.world = max((as_int(e.details["nranks"]) for e in comms), default=None)
        for e in comms:
            if as_int(e.details["nranks"]) == self.world and e.pid is not None:
                self.pid_rank.setdefault((e.host, e.pid), e.rank)
        # the cluster's map first (its node, where NCCL names the pod's hostname), then NCCL's own lines
        for e in sorted((e for e in raw if e.kind == "nccl_address"), key=lambda e: e.details.get("map") != "cluster"):
            if e.address and e.host:
                bare = _bare(e.address)
                self.addresses.setdefault(bare, e.host)
                if e.details.get("pod") and self.addresses[bare] == e.host:
                    self.address_pods.setdefault(bare, str(e.details["pod"]))
        # a host a line names by its address (Ray's "ip: 10.0.3.192", a prefix's "ip=..") is the host that address is
        named = {h: self.addresses[_bare(h)] for h in self.hosts if _bare(h) in self.addresses} if self.addresses \
            else {}
        self.named_hosts = {h: n for h, n in named.items() if n != h}
        self.hosts |= set(self.named_hosts.values())
        for e in raw:
            if e.rank is not None and e.kind not in MAP_KINDS:
                if e.host:
                    self.rank_host.setdefault(e.rank, self.named_hosts.get(e.host, e.host))
                self.seen_ranks.add(e.rank)
        for (host, _pid), rank in self.pid_rank.items():
            if host:
                self.rank_host.setdefault(rank, self.named_hosts.get(host, host))
        # the pods the node controller marked not ready (pod_not_ready, context, its NodeNotReady Event), when: the taint
        # manager's deletion of one after it is for its node not ready (`_refined`)
        self.not_ready: dict[tuple[str | None, str | None], Evidence] = {}
        # who began evicting a node's pods (facts.NODE_DRAINS, context: the GPU Operator's driver upgrade, its
        # GPUDriverUpgrade Event; Karpenter disrupting it, its DisruptionTerminating), when and on which node: the
        # Eviction API's eviction of a pod on it after is theirs
        self.drains: list[Evidence] = []
        # the autoscalers' Events of pods they evicted (facts.EVICTOR_ENDS: Karpenter's Evicted, cluster-autoscaler's
        # ScaleDown), by pod: the Eviction API's eviction of the same pod is theirs
        self.evicted: dict[tuple[str | None, str | None], list[Evidence]] = defaultdict(list)
        # c10d's failed lookups of a store's address (store_unresolved, context), by file and address: a store error to
        # that address after them in their file is the address that never resolved (`_unresolved`)
        self.lookups: dict[tuple[str | None, str, str], list[Evidence]] = defaultdict(list)
        for e in raw:
            if e.kind == "pod_not_ready":
                self.not_ready.setdefault(_pod_key(e), e)
            elif e.kind in NODE_DRAINS:
                self.drains.append(e)
            elif e.kind == "job_ended" and e.details.get("pod_end") in EVICTOR_ENDS:
                self.evicted[_pod_key(e)].append(e)
            elif e.kind == "store_unresolved":
                self.lookups[(e.file, str(e.details["unresolved"]), str(e.details["store_port"]))].append(e)
        # two ranks of one communicator on one GPU, by NCCL's init lines (`_shared_gpus`): `_shared_gpu`
        self.shared_gpu = _shared_gpus(raw)
        # the hosts of those init lines, by file: a line naming no host in a file of one such host's is of that host
        self.shared_files: dict[str | None, set[str]] = defaultdict(set)
        for host, pairs in self.shared_gpu.items():
            for init, _other in pairs:
                self.shared_files[init.file].add(host)
        filled = [self._shared_gpu(self._unresolved(self._refined(self._fill(e)))) for e in raw
                  if e.kind not in CONTEXT_KINDS]
        # the job's statements of its own success (context, never a failure; triage.teardown), each in its file
        self.stated = [e for e in raw if e.kind == "job_success" and e.file is not None and e.line is not None]
        # NCCL RAS's ranks behind the operation count most of their communicator's ranks launched (ras_behind, context)
        self.ras_behind = [e for e in raw if e.kind == "ras_behind"]
        # the pods the kubelet said it started a container of (pod_started, context), by name, else by file (a
        # describe's Events table naming no pod): `ran`
        self.started = {_pod_key(e) for e in raw if e.kind == "pod_started"}
        # Kueue's admissions of a workload (queue_admitted, context), each file's last line of one: `readmitted`
        self.admitted: dict[str | None, int] = {}
        for e in raw:
            if e.kind == "queue_admitted" and e.line is not None:
                self.admitted[e.file] = max(self.admitted.get(e.file, e.line), e.line)
        # a total order, whatever the order the evidence came in: time, then where it was read
        self.evidence = sorted(filled, key=lambda e: (_ts(e), e.file or "", e.line or 0, e.kind, e.text))
        timeouts = [e.timeout_ms / 1000.0 for e in self.evidence if e.timeout_ms]
        # a watchdog reports its timeout after the collective began to hang: the window reaches back that much further
        self.window = window + max(timeouts, default=0.0)
        # the pod ends the kubelet's retry got past (`ran`), by id: no failure, nor one of a gang that failed alike
        self.got_past = {id(e) for e in self.evidence if self.ran(e) or self.readmitted(e)}
        self.failures = [e for e in self.evidence if fails(e) and id(e) not in self.got_past]
        # the failures that are consequences (what a failure elsewhere makes a healthy rank print), in order
        self.symptoms = [e for e in self.failures if is_consequence(e)]
        self.first_symptom = min((_ts(e) for e in self.symptoms if e.time), default=None)
        # each file's first symptom of the job's first (within SKEW), by line: a line of that file with no stamp
        # printed before it was written before it (a file is written in order)
        self.symptom_line: dict[str, int] = {}
        for e in self.symptoms:
            if e.time and e.file and e.line is not None and _ts(e) <= self.first_symptom + SKEW:
                self.symptom_line[e.file] = min(self.symptom_line.get(e.file, e.line), e.line)
        # the job's own failures (what its ranks and launcher reported), against which node faults are placed
        own = [_ts(e) for e in self.failures if e.time and not is_node_fault(e)]
        self.first_failure = min(own, default=None)
        self.last_failure = max(own, default=None)
        # a node's condition that repeats its fault's Event in the window, one fault said twice (`said_once`): the Event's,
        # as the cluster component's Book keeps it (where it silenced the condition before; offline, a dump's Node and
        # Events of one fault, or its Node and the node's log)
        faults = [e for e in self.evidence if is_node_fault(e) and self.in_window(e)]
        if any(STANDING in e.details for e in faults):
            repeats = {id(e) for e in faults} - {id(e) for e in said_once(faults)}
            self.evidence = [e for e in self.evidence if id(e) not in repeats]
            self.failures = [e for e in self.failures if id(e) not in repeats]

    @cached_property
    def progress_group(self) -> dict[tuple[int, int], str]:
        """(rank, SeqNum) -> the process group that rank's watchdog progress line names at that SeqNum ("[PG 1 Rank 0]
        Exception ... detected by watchdog at work: 1580"): the group of its other lines about the same collective
        (PyTorch's WorkNCCL timeout line names none)."""
        return {(e.rank, e.seq): str(e.details["pg"]) for e in self.evidence
                if e.kind == "nccl_progress" and e.rank is not None and e.details.get("pg") is not None}

    def group_of(self, e: Evidence) -> str | None:
        """The process group a rank's report of a collective is about: the one its line names, else the one its
        progress line at the same SeqNum names (`progress_group`), else None."""
        pg = e.details.get("pg")
        return str(pg) if pg is not None else self.progress_group.get((e.rank, e.seq))

    def _fill(self, e: Evidence) -> Evidence:
        rank, host = e.rank, e.host
        if rank is None and e.pid is not None and (host, e.pid) in self.pid_rank:
            rank = self.pid_rank[(host, e.pid)]
        if host is None and rank is not None:
            host = self.rank_host.get(rank)
        if host in self.named_hosts:  # named by its address: the host it is, the address and pod in details
            bare = _bare(host)
            pod = self.address_pods.get(bare)
            e = replace(e, details={**e.details, "host_address": host, **({"pod": pod} if pod else {})})
            host = self.named_hosts[host]
        return e if (rank, host) == (e.rank, e.host) else replace(e, rank=rank, host=host)

    def _refined(self, e: Evidence) -> Evidence:
        """A pod end refined by a context Event before it (one stamped after the end is none):
        - the taint manager's deletion of a pod the node controller said was on a node not ready (its NodeNotReady
          Event of the same pod, `not_ready`), no NoExecute taint of its node known: ended for its node not ready
          (facts.pod_end: POD_ENDS "taint:NodeNotReady");
        - the Eviction API's eviction of a pod an autoscaler said it evicted (Karpenter's Evicted Event of the same pod,
          recorded once the eviction went through, cluster-autoscaler's ScaleDown just before it: within
          EVICTED_WITHIN of it, either side): theirs ("evict:Karpenter", "evict:cluster-autoscaler"), unless the
          node's last context is a spot interruption notice (Karpenter draining the node the cloud reclaims: the
          reclaim, "SpotInterruption", as Karpenter's Evicted Event of a pod there is);
        - the Eviction API's eviction of a pod on a node someone was evicting pods from (`drains`, facts.NODE_DRAINS:
          the GPU Operator's driver upgrade, its GPUDriverUpgrade Event; Karpenter disrupting it, its
          DisruptionTerminating), the last before it: theirs ("drain:GPUDriverUpgrade", "evict:Karpenter"), the node
          named where the end names none and those Events one node only (a job's pasted Events of one node's)."""
        if e.kind != "job_ended" or e.details.get("pod_end") not in POD_ENDS:
            return e
        not_ready = _not_after(e, self.not_ready.get(_pod_key(e)))
        drains = [u for u in self.drains if _not_after(e, u) and (e.host is None or u.host in (None, e.host))]
        latest = max(reversed(drains), key=_ts, default=None)  # (of equal times the last, as a stable sort's)
        said = next((k.details["pod_end"] for k in self.evicted.get(_pod_key(e), ()) if _near(e, k)), None)
        drain = NODE_DRAINS[latest.kind] if latest is not None else None
        reason = e.details["pod_end"]
        if said is not None:  # (as the autoscaler's own Event of it is: pod_end's reading of an evictor's end)
            drain = pod_end(said, drain=drain)
        key = pod_end(reason, not_ready=not_ready, drain=drain)  # (a key: itself, but refined)
        if key == reason:
            return e
        nodes = {u.host for u in drains}
        host = e.host if e.host is not None or key != drain or key == said or len(nodes) != 1 else nodes.pop()
        return replace(e, host=host, details={**e.details, **pod_ended_as(key, e.details.get("pod_reason", reason))})

    def _unresolved(self, e: Evidence) -> Evidence:
        """A store error to an address (a connect timed out, every address failed: store_host, store_port) after c10d
        failed to look that address up in the same file (`lookups`, store_unresolved's retried warnings; stamped, the
        last within the connect's timeout before it): the store's address never resolved, the job's network not set up
        (network_setup, `unresolved` the address, `resolver_error` getaddrinfo's), not a store that went away; else
        `e` as it is.  The lookups' warnings alone are no failure: the record may appear and the client connect."""
        if e.kind != "store_error" or not self.lookups or not e.details.get("store_host"):
            return e
        host, port = str(e.details["store_host"]), str(e.details.get("store_port"))
        before = [u for u in self.lookups.get((e.file, host, port), ()) if _read_before(u, e)]
        if not before or (e.time is not None and before[-1].time is not None and
                          (e.time - before[-1].time).total_seconds() > _seconds(e.details.get("store_timeout")) + SKEW):
            return e
        last = before[-1]
        return replace(e, kind="network_setup", details={
            **e.details, "unresolved": f"{host}:{port}", "what": UNRESOLVED_WHAT,
            "resolver_error": last.details["resolver_error"], "store_what": e.details.get("what") or e.kind})

    def _shared_gpu(self, e: Evidence) -> Evidence:
        """NCCL's ncclInvalidUsage on a host where NCCL's init lines put two ranks of one communicator on one GPU
        (`shared_gpu`): NCCL's init refusing them, "Duplicate GPU detected" its WARN, which the log lacks (only its INFO
        lines, the exception's "invalid usage"): read as that WARN is (parsers/rules.py nccl_duplicate_gpu: its
        `other_rank`, the application's), the line's rank the one sharing (its process's init line, by pid; by rank
        where the communicator is the job's world), or, naming none, the host's first; a line naming no host, of the one
        host whose sharing init lines its file holds; else `e` as it is. A line of a rank no sharing init line names,
        of no such host, or one the WARN already names, is left as it is."""
        if e.kind != "nccl_error" or e.details.get("nccl_text") != INVALID_USAGE or not self.shared_gpu \
                or "other_rank" in e.details or "shared_gpu" in e.details:
            return e
        hosts = self.shared_files.get(e.file, ()) if e.host is None else (e.host,)
        if len(hosts) != 1 or (host := next(iter(hosts))) not in self.shared_gpu:
            return e
        pairs = self.shared_gpu[host]
        world = [p for p in pairs if as_int(p[0].details.get("nranks")) == self.world]
        init, other = next((p for p in pairs if e.pid is not None and p[0].pid == e.pid), None) \
            or next((p for p in world if e.rank is not None and p[0].rank == e.rank), None) \
            or (pairs[0] if e.rank is None and e.pid is None else (None, None))
        if init is None:
            return e
        rank = e.rank if e.rank is not None else init.rank if as_int(init.details.get("nranks")) == self.world else None
        return replace(e, rank=rank, host=host, gpu=init.gpu if e.gpu is None else e.gpu, attribution="application",
                       details={**e.details, "other_rank": str(other), "busid": init.details["busid"],
                                "comm_id": init.details["comm_id"]})

    def host_of(self, address: str | None) -> str | None:
        """The job's host a peer address is: by NCCL's own address lines, or a fully qualified name whose first label
        is a host the job's lines name ("node-22.cluster.local" -> "node-22")."""
        if not address:
            return None
        bare = _bare(address)
        if bare in self.addresses:
            return self.addresses[bare]
        short = bare.split(".", 1)[0]
        if short != bare and not short.isdigit() and short in self.hosts:
            return short
        return None

    def pod_of(self, address: str | None) -> str | None:
        """The pod ("namespace/name") a peer address is, where the cluster's map says (None offline)."""
        return self.address_pods.get(_bare(address)) if address else None

    def ran(self, e: Evidence) -> bool:
        """A pod end that says its pod never started (facts.PodEnd `ended`: a volume the kubelet could not mount, an
        image it could not pull) of a pod the kubelet then started a container of (`started`): the kubelet's retry got
        past it, no failure, whatever the error said (the gang's judgement, _gang_end, counts that pod as one that
        ran)."""
        end = POD_ENDS.get(e.details.get("pod_end")) if e.kind == "job_ended" else None
        return end is not None and end.ended == NEVER_STARTED and _pod_key(e) in self.started

    def readmitted(self, e: Evidence) -> bool:
        """Kueue's preemption of a workload (facts.QUEUE_PREEMPTION: the queue's own decision, the workload requeued)
        that a Kueue admission follows in the same Events (`admitted`: a later line of its file, describe's table
        and `kubectl get events` in order of time): the queue admitted it again and it runs, no failure of the job
        (kubernetes-sigs/kueue #2012's "Preempted to accommodate a workload .." then "Admitted (x2 over 10m)")."""
        return (e.kind == "job_ended" and e.details.get("pod_end") == "Preempted" and e.line is not None
                and e.line < self.admitted.get(e.file, -1) and QUEUE_PREEMPTION.search(e.text) is not None)

    def file_name(self, e: Evidence) -> str | None:
        """The line's file as the reasons name it (`names`, the caller's: `file_names`), else as it is."""
        return self.names.get(e.file, e.file) if e.file is not None else None

    def in_window(self, e: Evidence) -> bool:
        """Whether a node fault is close enough to the job's failures to explain them (no times: yes)."""
        if e.time is None or self.first_failure is None:
            return True
        t = _ts(e)
        return self.first_failure - self.window <= t <= (self.last_failure or t) + SKEW


# a store error after its address's failed lookups (Job._unresolved): what the job's network_setup says
UNRESOLVED_WHAT = "the store's address did not resolve"
# c10d's connect timeout where a store error states none (torch.distributed's default, 30 minutes)
STORE_TIMEOUT_S = 1800.0


def _seconds(said: object) -> float:
    """A store error's stated timeout ("1800s", "600000ms", a bare number of seconds) in seconds (parsers/units.py);
    STORE_TIMEOUT_S where it states none."""
    seconds = None if said is None else duration(said, bare=1.0)
    return STORE_TIMEOUT_S if seconds is None else seconds


def _read_before(a: Evidence, b: Evidence) -> bool:
    """Whether line `a` was read before line `b` of the same file (both numbered), else stamped no later."""
    if a.line is not None and b.line is not None:
        return a.line < b.line
    return a.time is None or b.time is None or a.time <= b.time


def _one_name(raw: list[Evidence]) -> list[Evidence]:
    """The evidence with each machine named one way however its lines spell it, so that every rule comparing hosts
    sees one node: a pod a pod_hostname line names (triage.read: kubectl's pod, its name its hostname and a generated
    suffix) by its hostname, as NCCL's prefix and the cluster's inventory name it; then each machine (parsers.envelope
    .host_key, as `gpu-npd parse` tells them: Slurm's `node-a`, the journal's `node-a.cluster.local`; Slurm's own
    `Orion-01-01` and `orion-01-01`; an address never cut) by its shortest spelling, of spellings as short the first
    read.  Each spelling's name is settled once, then each line renamed at most once."""
    pods = {e.details["pod_name"]: e.host for e in raw if e.kind == "pod_hostname" and e.host}
    # each spelling, in the order first read -> the host it is (a pod's name: its hostname)
    hosts = {spelt: pods.get(spelt, spelt) for spelt in dict.fromkeys(e.host for e in raw if e.host)}
    keys = {host: host_key(host) for host in hosts.values()}  # host -> host_key, in the order first read
    name: dict[str, str] = {}  # host_key -> the spelling kept
    for host in sorted(keys, key=len):  # (stable: as read, of spellings as short)
        name.setdefault(keys[host], host)
    renamed = {spelt: name[keys[host]] for spelt, host in hosts.items() if name[keys[host]] != spelt}
    if not renamed:  # (each machine spelt one way: the evidence as it is)
        return raw
    return [replace(e, host=renamed[e.host]) if e.host in renamed else e for e in raw]


def _amended(raw: list[Evidence]) -> list[Evidence]:
    """The evidence with each amendment (details "amends": a later line of the same event amended the line's finding,
    triage.read) in place of the evidence of the line it amends: one line, one piece of evidence, as its event ended."""
    if not any("amends" in e.details for e in raw):
        return raw
    out: list[Evidence] = []
    at: dict[tuple, int] = {}
    for e in raw:
        where = (e.file, e.line, e.kind)
        if e.line is not None and "amends" in e.details and where in at:
            out[at[where]] = e
            continue
        if e.line is not None:
            at[where] = len(out)
        out.append(e)
    return out


_bare = bare_address  # triage.facts' (an address as the job's address map keys it: "10.1.2.3<43123>" -> "10.1.2.3")


def _ts(e: Evidence) -> float:
    return e.time.timestamp() if e.time is not None else float("inf")


def is_consequence(e: Evidence) -> bool:
    """Whether this line is what a failure elsewhere makes a healthy rank print, or an exception chained after the
    chain's first (Python's "During handling of the above exception"), whatever its kind (a CUDA / NCCL error too)."""
    if e.details.get("chained_from"):
        return True
    if store_counts(e) is not None:
        return False
    if e.kind in SYMPTOM_KINDS:
        if e.kind == "nccl_error" and (e.attribution == "application" or ibv_call_category(e) is not None):
            return False  # ncclInvalidUsage: the program's own mistake; a verbs call's failure, its node's or link's
        return True
    if e.kind == "exception":
        return bool(e.details.get("consequence"))
    if e.kind in DEATH_KINDS:
        return e.signal in CONSEQUENCE_SIGNALS
    return False


def store_counts(e: Evidence) -> tuple[int, int] | None:
    """(joined, expected) of a line of STORE_COUNTS whose counts differ; None otherwise."""
    if e.details.get("fact") not in STORE_COUNTS:
        return None
    joined, expected = as_int(e.details.get("store_joined")), as_int(e.details.get("store_expected"))
    return (joined, expected) if joined is not None and expected is not None and joined != expected else None


def attribution_of(e: Evidence) -> str:
    """The line's attribution, or for an Xid that says it was "caused by previous Xid N", that Xid's (catalog)."""
    cause = e.details.get("caused_by_xid") if e.kind == "xid" else None
    return xid_info(int(cause)).attribution if cause is not None else e.attribution


# The kinds whose lines' details "oom" say whose memory ran out: the kernel's OOM kill, a CUDA OOM's GPU held by others
OOM_KINDS = frozenset({"oom_kill", "cuda_oom"})


def oom_scope(e: Evidence) -> str | None:
    """Whose memory an OOM kill says ran out (a key of OOM_SCOPES): the kernel's lines' details "oom", a job's end for
    it by its reason (facts.WHY_OOM); None: not an OOM kill, or its lines do not say."""
    if e.kind == "job_ended":
        return WHY_OOM.get(e.details.get("why"))
    scope = e.details.get("oom") if e.kind in OOM_KINDS else None
    return scope if scope in OOM_SCOPES else None


def category_of(e: Evidence) -> str | None:
    scope = oom_scope(e)
    if scope is not None:  # a cgroup's own limit: the job's; the node's memory: infrastructure (OOM_SCOPES)
        return OOM_SCOPES[scope].category
    if e.kind == "job_ended" and e.details.get("fact") == "slurm_cancelled":
        # a step cancelled for its task's failure, or by scancel / srun: no cause of its own (None)
        end = _slurm_end(e)
        return end.category if end is not None else None
    if e.kind == "job_ended" and e.details.get("pod_end") in POD_ENDS:  # Kubernetes ended the pod, and said why
        return POD_ENDS[e.details["pod_end"]].category
    if e.kind == "storage_error" and str(e.details.get("what", "")).lower() in STORAGE_WHAT_CATEGORY:
        return STORAGE_WHAT_CATEGORY[str(e.details["what"]).lower()]
    if e.kind == "storage_error" and _storage_what(e) == SHM_STORAGE:  # /dev/shm's: the kind shm_full's category
        return KIND_CATEGORY[SHM_KIND]
    verbs = ibv_call_category(e)
    if verbs is not None:
        return verbs
    if e.details.get("fact") in FACT_CATEGORY:  # a row whose lines are not its kind's (a launch on the job's program)
        return FACT_CATEGORY[e.details["fact"]]
    c = KIND_CATEGORY.get(e.kind)
    if c == "by_attribution":
        return ATTRIBUTION_CATEGORY.get(attribution_of(e))
    return c


def ibv_call_category(e: Evidence) -> str | None:
    """What an NCCL error naming the verbs call that failed is evidence of (IBV_CALL_CATEGORY); None: no such line."""
    return IBV_CALL_CATEGORY.get(e.details.get("ibv_call")) if e.kind == "nccl_error" else None


def ib_category(e: Evidence) -> str | None:
    """What an InfiniBand / RoCE / libfabric completion error is evidence of: "fabric" (the link itself),
    "infrastructure" (the reporting node's own path to its registered memory), None (no line of that kind, or a
    flushed request: the aftermath of another failure)."""
    if e.kind != "ib_completion_error":
        return None
    return IB_STATUS_CATEGORY.get(e.details.get("wc_status"), "fabric")


def flushed(e: Evidence) -> bool:
    """A completion error that is the aftermath of another failure (ib_category None: a flushed work request): it
    names the peer and decides nothing.  (A Finding reads the same: the agent ranks the lines its Events quote by it.)"""
    return e.kind == "ib_completion_error" and ib_category(e) is None


def link_failed(e: Evidence) -> bool:
    """An InfiniBand / RoCE / libfabric completion error that is evidence of the link itself (not a flushed request)."""
    return ib_category(e) == "fabric"


def _local_completion(errors: list[Evidence], rule: str) -> Verdict | None:
    """Completion errors none of which says the link failed, one of which says the reporting node's adapter was
    refused its own registered memory: that node's fault (its first such line the root), whichever peer it names."""
    local = [e for e in errors if ib_category(e) == "infrastructure"]
    if not local or any(link_failed(e) for e in errors):
        return None
    first = local[0]
    hosts = sorted({e.host for e in local if e.host})
    return Verdict("infrastructure", first, rule,
                   f"{_what(first)} on {', '.join(hosts) or 'the job'}{_first_of(len(local), 'such errors')}: the "
                   "adapter was refused access to the memory it registered (with GPUDirect RDMA, the node's PCIe "
                   "path to the GPU: ACS enabled or an IOMMU), a configuration of the reporting node, not the link "
                   "nor the peer", host=first.host)


def is_node_fault(e: Evidence) -> bool:
    """A fault of the node's hardware, fabric or GPU driver stack, severe enough to break a job (cf.
    parsers.correlate.cause_of)."""
    if e.kind in JOB_SEEN_NODE_FAULTS:  # the job's own line saying its node's driver stack refused it
        said = str(e.details.get("driver_error") or "")
        if any(w in said for w in NVSMI_NO_GPU):  # nvidia-smi's no driver / no GPU: a container given no GPU says it too
            return False
        return SEVERITY_RANK.get(e.severity, 0) >= SEVERITY_RANK["error"]
    if e.kind == "cuda_error":  # uncorrectable ECC / NVLink / unknown error, seen by the application
        if e.details.get("chained_from") and attribution_of(e) == "driver":
            # the driver only inferred from the status (unknown error: parsers.rules.CUDA_ERRORS), raised
            # while handling the chain's first error
            return False
        return category_of(e) == "hardware"
    if e.kind not in NODE_FAULT_KINDS or attribution_of(e) == "application":
        return False
    states = KIND[e.kind].fault_states
    if states:  # a link state: down is a fault whatever its severity
        return e.details.get("state") in states
    return SEVERITY_RANK.get(e.severity, 0) >= SEVERITY_RANK["error"]


# The details key a node condition's evidence carries, its type (triage.conditions read_condition): a fault that stands
# while its problem does, said again by the node's Event of it (which expires after an hour), `said_once`
STANDING = "condition"


def said_once(faults: Iterable[Evidence]) -> list[Evidence]:
    """A job's node faults of its window, a node condition that repeats what else of the window says of the same fault
    (its node, kind, device, Xid / SXid code: the node agent's Event of it, read live or from a dump, the kernel's own
    line read from the node's log) left out: one fault said once, by what said it as it happened; a condition speaks
    only where nothing else of the window does (its Event expired, or was an earlier fault's, outside the window); one
    naming no device (another detector's) not where anything names the device of the same fault.
    The others first, then the conditions kept, each in their order.  The cluster component's Book (its window, of the
    pods' nodes) and triage's Job (`in_window`, of the job's failures) both read a node's faults so."""
    faults = list(faults)
    said = [e for e in faults if STANDING not in e.details]
    seen = {(e.host, e.kind, e.pci, e.xid, e.sxid) for e in said}
    kept = said + [e for e in faults if STANDING in e.details and (e.host, e.kind, e.pci, e.xid, e.sxid) not in seen]
    # a condition naming no device (another detector's: EKS's AcceleratedHardwareReady names no GPU) repeats what says
    # the same fault of the node naming its device (the node agent's Event, its own condition)
    named = {(e.host, e.kind, e.xid, e.sxid) for e in kept if e.pci}
    return [e for e in kept if e.pci or STANDING not in e.details or (e.host, e.kind, e.xid, e.sxid) not in named]


def uncorrected_memory(e: Evidence) -> bool:
    """A host memory error the kernel reported uncorrected (an error or worse; a corrected one is a warning)."""
    return e.kind == "memory_error" and SEVERITY_RANK.get(e.severity, 0) >= SEVERITY_RANK["error"]


def memory_names_process(e: Evidence) -> bool:
    """An uncorrected memory error whose lines name the process the kernel signalled for it."""
    return uncorrected_memory(e) and (e.pid is not None or bool(e.details.get("process")))


def memory_consumed(e: Evidence) -> bool:
    """An uncorrected memory error a process consumed, or whose page the kernel took offline (hwpoison's lines:
    parsers/rules.py memory_failure), naming no process."""
    return uncorrected_memory(e) and ("consumed" in e.details or "pfn" in e.details)


def memory_signal(e: Evidence) -> int:
    """The signal the kernel sent the process a memory error's line names: SIGKILL where it "forcibly" killed it (a
    page it could not unmap), else SIGBUS (mm/memory-failure.c kill_proc, x86's page fault on a poisoned page)."""
    return 9 if e.details.get("forced") else 7


def _comm(name: str) -> str:
    return name.rsplit("/", 1)[-1][:COMM_LEN]


def _same_host(job: Job, a: Evidence, b: Evidence) -> bool:
    """Two lines of one host: the same host named, or a job whose lines name one host at most and a line naming none."""
    if a.host is not None and b.host is not None:
        return a.host == b.host
    return len(job.hosts) <= 1


def memory_explains(job: Job, death: Evidence, e: Evidence) -> str | None:
    """How the memory error `e` explains the rank's death by a signal (MEMORY_SIGNALS): "pid" (its line names the
    rank's process), "process" (a name the rank's process goes by, its pid not another rank's), "host" (an error a
    process of the rank's host consumed, naming none, just before the death); None: it does not."""
    if death.signal not in MEMORY_SIGNALS or not uncorrected_memory(e) or not _same_host(job, e, death):
        return None
    t = _ts(death)
    if memory_names_process(e):
        if memory_signal(e) != death.signal:
            return None
        if e.time is not None and death.time is not None and not t - job.window <= _ts(e) <= t + SKEW:
            return None
        return _names_the_dead(death, e)
    if death.signal == 7 and memory_consumed(e) and e.time is not None and death.time is not None and \
            t - MEMORY_UNNAMED_WINDOW - SKEW <= _ts(e) <= t + SKEW:
        return "host"
    return None


def crash_explains(job: Job, death: Evidence, e: Evidence) -> str | None:
    """How the process crash `e` (the kernel's segfault / trap line) explains the rank's death by a signal
    (CRASH_SIGNALS): "pid" (its line names the rank's pid, or a pid the job maps to the rank), "process" (a name the
    rank's process goes by, its pid no other rank's); None: it does not (another signal, host or time, another program)."""
    if e.kind != "process_crash" or death.signal not in CRASH_SIGNALS or e.details.get("signal") != death.signal or \
            not _same_host(job, e, death):
        return None
    if e.time is not None and death.time is not None and not _ts(death) - job.window <= _ts(e) <= _ts(death) + SKEW:
        return None
    return _names_the_dead(death, e)


def _names_the_dead(death: Evidence, e: Evidence) -> str | None:
    """Whether the kernel's line `e` about a process (a memory error's victim, a crash) names the dead rank's: "pid"
    (the rank's pid, or a pid the job's lines map to that rank), "process" (a name the rank's process goes by, its
    pid no other rank's); None: another process."""
    if e.pid is not None and death.pid is not None and e.pid == death.pid:
        return "pid"
    if e.rank is not None and death.rank is not None:  # the pid is a process of a rank the job's lines name
        return "pid" if e.rank == death.rank else None
    name = e.details.get("process")
    if not name:
        return None
    binary = death.details.get("binary")
    if (binary and _comm(str(binary)) == _comm(str(name))) or JOB_PROCESS_NAMES.fullmatch(str(name)):
        return "process"
    return None


def memory_kills_rank(job: Job, e: Evidence) -> bool:
    """An uncorrected memory error whose line names a process the job's own lines map to one of its ranks (host and
    pid): the node's memory killed that rank, whatever the job logged of its death (a node fault)."""
    return memory_names_process(e) and e.pid is not None and (e.host, e.pid) in job.pid_rank and job.in_window(e)


# --- the rules ------------------------------------------------------------------------------------------------

def _node_fault(job: Job) -> Verdict | None:
    faults = [e for e in job.evidence if is_node_fault(e) and job.in_window(e) or memory_kills_rank(job, e)]
    if not faults:
        return None
    # the earliest, then the most severe; of lines as early (or as unstamped) the one that names its rank / host
    root = min(faults, key=lambda e: (_ts(e), -SEVERITY_RANK.get(e.severity, 0), e.rank is None, e.host is None))
    category = category_of(root) or "hardware"
    # the node said once: where the line names it (its rank's, or the host), else "a node of the job" alone
    where, of = (_who(root, job), " of its node" if root.rank is not None else " of that node") \
        if (root.rank is not None or root.host) else ("a node of the job", "")
    article = "an" if category[:1] in "aeiou" else "a"
    # the pods Kubernetes ended on the root's node whose end names a fault of it (triage.inventory pod_ended: the
    # kubelet refusing them at admission for the GPU the device plugin found lost): the fault's consequence, shown
    # after it
    named = {e.details.get("pod") for e in faults if e.host == root.host and e.details.get("pod")}
    ended = tuple(e for e in job.failures if e.kind == "job_ended" and "pod_end" in e.details and root.host and
                  e.host == root.host and e.details.get("pod") in named)
    return Verdict(category, root, "node_fault",
                   f"{_what(root)} on {where}{_at(root)} is {article} {category} fault{of}; "
                   "it outranks the failures the ranks reported after it", suspects=ended)


def contained(e: Evidence) -> bool:
    """A rank's own report of CUDA's contained error (parsers.rules.CUDA_CONTAINED), not one chained after another."""
    return e.kind == "cuda_error" and e.details.get("cuda_error") in CUDA_CONTAINED and not e.details.get("chained_from")


def _contained(job: Job) -> Verdict | None:
    """CUDA's contained error (226), the job's first failure: the GPU's error containment stopped a kernel.  Reported by
    several GPUs (ranks, or hosts) within SKEW of the first, it is one fault of the NVLink fabric they share, not of
    each GPU (marin-community/marin #8934: a GB200 NVL72 domain's eight nodes within 0.5 s, the GPUs' own NVLink
    counters unmoved); by one, that GPU or its NVLink.  Likely, not proven: CUDA documents a program's invalid access of
    peer memory over NVLink as a cause too (a custom all-reduce's bug fails every rank at once), and the reason says
    so.  The others' failures are its consequences (`_outranked`).  None where a failure that is no consequence came before it."""
    reports = [e for e in job.failures if contained(e)]
    if not reports:
        return None
    first = reports[0]
    t0 = _ts(first)
    if any(_ts(e) < t0 - SKEW for e in _candidates(job) if not contained(e)):
        return None  # another failure came first: the rules after this one weigh it
    at_once = [e for e in reports if _ts(e) <= t0 + SKEW]
    gpus = {(e.host, e.rank, e.gpu) for e in at_once}
    hosts = sorted({e.host for e in at_once if e.host})
    ranks = sorted({e.rank for e in at_once if e.rank is not None})
    what = f"{_what(first)} on {_who(first, job)}{_at(first)}"
    if len(gpus) > 1:
        by = _ranks(ranks) if ranks else f"{len(gpus)} processes"
        on = f" on {len(hosts)} nodes ({', '.join(hosts[:4])}{', ..' if len(hosts) > 4 else ''})" if len(hosts) > 1 \
            else f" on {hosts[0]}" if hosts else ""
        when = f"within {SKEW:g} s" if first.time is not None else "in logs with no time stamps"
        return Verdict("fabric", first, "contained_fabric",
                       f"{what}, one of {by}{on} that reported it {when}: the GPUs' error containment stopped each at "
                       "once, likely one fault of the NVLink fabric they share (its NVSwitches), not of each GPU; not proven "
                       "(by the CUDA docs a program's invalid access of peer memory over NVLink raises it too: check the "
                       "fabric manager's and the NVSwitches' logs)", suspects=tuple(e for e in at_once if e is not first))
    return Verdict("hardware", first, "contained_fabric",
                   f"{what}: the GPU's error containment stopped a kernel, a hardware error of that GPU or its NVLink "
                   "(by the CUDA docs, or an invalid access of peer memory over NVLink); no other GPU reported it")


def _first_failure(job: Job) -> Verdict | None:
    """The earliest failure's verdict (`_earliest`), and the failures no time places against its root said and kept
    (`_unplaced`)."""
    candidates = _candidates(job)
    verdict = _earliest(job, candidates)
    if verdict is None or verdict.root is None:
        return verdict
    return _with_unplaced(job, verdict, candidates)


def _with_unplaced(job: Job, verdict: Verdict, candidates: list[Evidence]) -> Verdict:
    """The verdict with the failures no time places against its root or suspects said and kept (`_unplaced`), of the
    job's `_candidates`."""
    unplaced = _unplaced(job, verdict, candidates)
    if not unplaced:
        return verdict
    # each said after the list's colon, never in a bracket (its own words may hold brackets: a pod end's reason)
    named = "; ".join(_what(e) + (f" on {who}" if (who := _who(e, job)) != (name := job.file_name(e)) else "")
                      + f" in {name}{'' if e.line is None else f':{e.line}'}" for e in unplaced[:3])
    more = f"; and {len(unplaced) - 3} more" if len(unplaced) > 3 else ""
    return replace(verdict, unplaced=tuple(unplaced),
                   reason=f"{verdict.reason}; {len(unplaced)} other failure(s) with no wall-clock time, in another "
                          f"file, could not be placed before or after it and may have come first: {named}{more}")


def _candidates(job: Job) -> list[Evidence]:
    """The failures that may be the job's first: not a node fault, not a consequence, with a category or a death."""
    return [e for e in job.failures if not is_node_fault(e) and not is_consequence(e)
            and (category_of(e) is not None or e.kind in DEATH_KINDS or e.kind in STOP_KINDS)]


def _unplaced(job: Job, v: Verdict, candidates: list[Evidence]) -> list[Evidence]:
    """The candidates no clock orders against the verdict's root: no time stamp (a relative age, kubectl's `4m49s`,
    or none at all) and in a file other than those of the root and its suspects (within one file the lines' order
    places them), nor a death the root explains (a worker's death its own completion error says why of), nor another
    report of the root's or a suspect's own death (the rank's `[0]<stderr>:Killed` and its launcher's `Process 0 exit
    with status code 137.`, horovod/horovod #2907; JAX's every task naming the same tasks unhealthy: one death,
    whichever file holds it)."""
    files = {e.file for e in (v.root, *v.suspects) if e is not None}
    return [e for e in candidates if e.time is None and e.file not in files
            and e is not v.root and e not in v.suspects
            and not (v.root is not None and e.kind in DEATH_KINDS and (
                any(_same_death(d, e) for d in (v.root, *v.suspects)) or _explanation(job, e) is v.root))]


# What names a process a coordinator declared lost (kind process_lost): two lines name the same one where every field
# both name is the same (NCCL's RAS's "PEER_TIMEOUT_DEAD: <address>" then "PEER_DEAD: Process <pid> on node <address>")
LOST_NAMES = ("rank", "local_rank", "host", "pid")


def _lost_key(e: Evidence) -> tuple:
    return (*(getattr(e, f) for f in LOST_NAMES), e.details.get("node_id"))


def _lost_with(first: Evidence, candidates: list[Evidence]) -> list[Evidence]:
    """The other processes or nodes the job's coordinator declared lost together with `first` (a process_lost line):
    stamped within SKEW of it, or, unstamped, in its file (the coordinator's log, in the order it named them), each
    once (`LOST_NAMES`); [] for any other first failure.  Unstamped lines of other files stay `_unplaced`."""
    if first.kind != "process_lost":
        return []
    return _each_lost((e for e in candidates if e is not first and (
        e.time is None and first.time is None and e.file == first.file
        or e.time is not None and first.time is not None and abs(_ts(e) - _ts(first)) <= SKEW)), [first])


def _same_lost(key: tuple, other: tuple) -> bool:
    """Do two `_lost_key`s name the same process: some field both name, and every field both name the same?"""
    both = [(a, b) for a, b in zip(key, other) if a is not None and b is not None]
    return bool(both) and all(a == b for a, b in both)


def _each_lost(lines: Iterable[Evidence], named: Sequence[Evidence]) -> list[Evidence]:
    """The process_lost `lines`, each process once, none one of `named` (`_same_lost`), none that names nothing."""
    kept = [_lost_key(e) for e in named]
    out = []
    for e in lines:
        key = _lost_key(e)
        if e.kind != "process_lost" or all(v is None for v in key) or any(_same_lost(key, k) for k in kept):
            continue
        kept.append(key)
        out.append(e)
    return out


def _lost_later(job: Job, v: Verdict, said: set[int]) -> tuple[list[Evidence], bool]:
    """The processes or nodes the job's coordinator declared lost that the verdict neither names (its root, suspects,
    `_unplaced`) nor counts (`said`), each once, none a process the root or a suspect is (`LOST_NAMES`); and whether
    each is placed after the root (stamped later, or later in the root's file)."""
    named = [e for e in (v.root, *v.suspects, *v.unplaced) if e is not None]
    ids = said | {id(e) for e in named}
    out = _each_lost((e for e in job.failures if id(e) not in ids), named)
    return out, _all_after(v.root, out)


def _all_after(root: Evidence | None, lines: Iterable[Evidence]) -> bool:
    """Is each line placed after the root: stamped later, or later in the root's file?"""
    return root is not None and all(
        e.time is not None and root.time is not None and e.time > root.time
        or e.file == root.file and e.line is not None and root.line is not None and e.line > root.line for e in lines)


def _reported(lines: Sequence[Evidence]) -> str:
    """"N ranks (..) reported <the first line's failure> (and M other failure(s))": ranks' lines, as read."""
    what = list(dict.fromkeys(map(_what, lines)))
    return (f"{_ranks([e.rank for e in lines if e.rank is not None])} reported {what[0]}"
            + (f" (and {len(what) - 1} other failure(s))" if len(what) > 1 else ""))


def _lost_names(lost: Sequence[Evidence], job: Job) -> str:
    """Processes a coordinator declared lost, as a verdict names them: their ranks ("2 ranks (34,58)") where each line
    names one, else each as `_dead` names it."""
    if all(e.rank is not None for e in lost):
        return _ranks([e.rank for e in lost])
    shown = ", ".join(_dead(e, job) for e in lost[:4])
    return f"{len(lost)} processes ({shown}{', ..' if len(lost) > 4 else ''})" if len(lost) > 1 else shown


def _same_death(root: Evidence, e: Evidence) -> bool:
    """Is the death `e` reports the root's own (the same rank on the same host, the root a death too)?"""
    return root.kind in DEATH_KINDS and e.rank is not None and (e.rank, e.host) == (root.rank, root.host)


def _earliest(job: Job, candidates: list[Evidence]) -> Verdict | None:
    """The verdict of the earliest of the job's `_candidates` that is not the aftermath of its first symptom."""
    # the scheduler ending a job, the launcher told to stop or a rank killed, after the job already failed, is a
    # consequence
    if job.first_symptom is not None:
        candidates = [e for e in candidates if not (e.kind in AFTERMATH_KINDS and _ts(e) > job.first_symptom + SKEW)
                      or e.time is None and e.line is not None and e.line < job.symptom_line.get(e.file or "", -1)]
    if not candidates:
        return None
    first = candidates[0]
    # a failure with no stamp that the same file prints before the first was written before it (a file is written in
    # order; an unstamped line is no later than the next stamped one): srun's unstamped "task 1: exited abnormally"
    # before slurmstepd's stamped cancellation and the "task 0: Killed" after it (jiabowang/GAPIT #207)
    earlier = [e for e in candidates if e.time is None and e.file == first.file and e.line is not None
               and first.line is not None and e.line < first.line]
    t0 = _ts(first)
    # of failures within SKEW of the first (clocks disagree that much), an explained one before a bare exit; of exits
    # of the same second, the one torchrun's summary names "Root Cause (first observed failure)": the agent picks it
    # by the error files' full-precision times, which its table prints to the second only (a "Failures:" row it
    # lists first may have failed later in that second: vllm-project/speculators #1115)
    tied = [e for e in candidates if _ts(e) <= t0 + SKEW]
    if earlier and first.time is not None:
        tied = sorted(earlier, key=lambda e: e.line)
    first = min(tied, key=lambda e: (e.kind in BARE_DEATHS, _ts(e), not e.details.get("root_cause")))
    if first.kind in STOP_KINDS:
        return _straggler_stop(job, first)
    if first.kind in DEATH_KINDS:
        death = first
        explained = _explanation(job, first)
        if explained is not None:
            first = explained
        if store_counts(first) is not None:
            return _store_counts(job, first, death)
        if first.kind == "memory_error":
            how = memory_explains(job, death, first)
            host = first.host or "its host"
            victim = f"{first.details.get('process') or 'pid'}:{first.pid}"
            said = (f"{host}'s kernel{_at(first)} sent {SIGNALS.get(memory_signal(first))} to {victim} "
                    "for an uncorrected memory error" if how != "host" else
                    f"a process on {host} consumed an uncorrected memory error{_at(first)}, just before (the kernel's "
                    "lines name no process)")
            root = first if first.rank is not None or death.rank is None or how == "host" else \
                replace(first, rank=death.rank)
            return Verdict("hardware", root, "first_rank_death",
                           f"{_dead(death, job)} died first (signal {death.signal}, {SIGNALS.get(death.signal)}) and "
                           f"{said}: the node's memory killed it, not {MEMORY_NOT[death.signal]}", suspects=(death,))
        if first.kind == "process_crash":
            stack = first.details.get("stack")
            library = first.details.get("library")
            victim = f"{first.details.get('process') or 'pid'}:{first.pid}"
            root = first if first.rank is not None or death.rank is None else replace(first, rank=death.rank)
            where = f"in {library}, {CRASH_WHOSE.get(stack, 'the program' + chr(39) + 's own code')}" if library else \
                "(the kernel's line names no library: the program's own code)"
            return Verdict(CRASH_CATEGORY.get(stack, "application"), root, "first_rank_death",
                           f"{_dead(death, job)} died first (signal {death.signal}, {SIGNALS.get(death.signal)}) and "
                           f"{first.host or 'its host'}'s kernel{_at(first)} says {victim} crashed {where}",
                           suspects=(death,))
    if first.kind in DEATH_KINDS:
        category = SIGNAL_CATEGORY.get(first.signal, "undetermined") if first.signal else "undetermined"
        how = f"signal {first.signal}" if first.signal else f"exit code {first.exit_code}" \
            if first.exit_code is not None else LOST_HOW.get(first.details.get("fact"), "the job's coordinator lost it") \
            if first.kind == "process_lost" else _abort_how(first) \
            if first.details.get("fact") in ABORT_FACTS else "its exit code not shown"
        who = _dead(first, job) if first.kind in PROCESS_DEATHS else _process(first, job)
        lost = _lost_with(first, candidates)
        if lost:  # the coordinator declared several lost at once: each named, each a suspect, none denied
            ways = list(dict.fromkeys(LOST_HOW.get(e.details.get("fact"), how) for e in (first, *lost)))
            order = "named first" if first.time is None else "the earliest"
            return Verdict(category, first, "first_rank_death",
                           f"{_lost_names((first, *lost), job)} died first"
                           f"{'' if first.time is None else f', within {SKEW:g} s of each other'} (each: {ways[0]}"
                           + (f"; and {len(ways) - 1} other way(s)" if len(ways) > 1 else "")
                           + f") and no line says why: they are the suspects, {who} {order}, their cause undetermined",
                           suspects=tuple(lost))
        if category == "undetermined":
            senders = SIGNAL_SENDERS.get(first.signal)
            said = f": {SIGNALS.get(first.signal, how)} comes from {senders}, and no line says which" if senders else ""
            return Verdict(category, first, "first_rank_death",
                           f"{who} died first ({how}) and "
                           f"{'no line says' if first.kind == 'process_lost' else 'its log says nothing of'} why: "
                           "it is the suspect, "
                           f"its cause undetermined{said}")
        meaning = f": {SIGNAL_MEANING[first.signal]}" if first.signal in SIGNAL_MEANING else ""
        return Verdict(category, first, "first_rank_death",
                       f"{who} died first ({how}{meaning}), which points at {category}; nothing in its log explains "
                       "it further")
    if store_counts(first) is not None:
        return _store_counts(job, first, None)
    pressure = _disk_pressure(job, first)
    if pressure is not None:
        root = pressure if pressure.rank is not None or first.rank is None else replace(pressure, rank=first.rank)
        said = ", ".join(f"{k} {pressure.details[k]}" for k in ("available", "capacity") if pressure.details.get(k))
        return Verdict("infrastructure", root, "first_failure",
                       f"{_what(first)} on {_who(first, job)}{_at(first)}, and {pressure.host or 'its host'}'s local "
                       f"disk was over {pressure.details.get('threshold', '95')}% full before it{_at(pressure)}"
                       f"{' (' + said + ')' if said else ''}: the object store could not spill to it, the node's disk, "
                       "not the program", suspects=(first,))
    rerun = _rerun_said(job, first)
    if rerun is not None:
        return rerun
    order = "earliest" if first.time is not None else "first (in the logs' order; no time stamps)"
    head = f"{_what(first)} on {_who(first, job)}{_at(first)} is the {order} failure that is not a consequence of another"
    shared = _gpu_shared(job, first)
    if shared:
        ranks = ", ".join(str(r) for r in sorted({e.rank for e in (first, *shared)}))
        return Verdict("application", first, "first_failure",
                       f"{head}: ranks {ranks} share GPU {first.gpu}"
                       f"{f' of {first.host}' if first.host else ''}: each rank must use its own device "
                       "(torch.cuda.set_device(local_rank), its own CUDA_VISIBLE_DEVICES, no device_map=\"auto\" in a "
                       "rank); the GPU's other processes are the job's own ranks, not the node's", suspects=shared)
    category = category_of(first) or "application"
    said, stated = _slurm_end_said(job, first)
    gang = _gang_end(job, first)
    if gang is not None:
        category, said = gang
    return Verdict(category, first, "first_failure", f"{head}{said}", suspects=stated)


def _pod_name(e: Evidence) -> str | None:
    """The pod a line is of: the one it names (details "pod"), else its file's ("pod/<name>", the agents' Events)."""
    return e.details.get("pod") or (e.file[4:] if (e.file or "").startswith("pod/") else None)


def _pod_short(e: Evidence) -> str | None:
    """The pod a line is of (`_pod_name`) without its namespace: an Event row names none."""
    pod = _pod_name(e)
    return pod.rsplit("/", 1)[-1] if pod else None


def _not_after(end: Evidence, said: Evidence | None) -> bool:
    """Whether a context Event `said` (None: none) came before a pod's `end`, or either has no time."""
    return said is not None and (said.time is None or end.time is None or said.time <= end.time)


def _near(end: Evidence, said: Evidence) -> bool:
    """Whether an Event `said` of a pod's `end` was recorded within EVICTED_WITHIN of it (either side), or either has
    no time."""
    return said.time is None or end.time is None or abs((said.time - end.time).total_seconds()) <= EVICTED_WITHIN


def _pod_key(e: Evidence) -> tuple[str | None, str | None]:
    """Which pod a line is of, to tell another line of the same pod: its name without the namespace (`_pod_short`),
    else its file (a describe naming no pod is one pod's)."""
    pod = _pod_short(e)
    return (None, pod) if pod else (e.file, None)


def _gang_end(job: Job, first: Evidence) -> tuple[str, str] | None:
    """A pod end whose category the gang decides (facts.PodEnd's gang: an image the kubelet could not pull, a volume it
    could not mount), as (category, what the reason adds): confined to some of the job's nodes (or pods) while its
    other pods ran and wrote lines of their own, the nodes' (the Gang's `confined`, those nodes named, what of them
    its `node` says); every pod of the job that says anything failing alike, the row's category (what of the workload
    its `workload` says).  None for any other failure."""
    end = POD_ENDS.get(first.details.get("pod_end"))
    if end is None or end.gang is None:
        return None
    alike = [e for e in job.evidence if e.kind == "job_ended" and POD_ENDS.get(e.details.get("pod_end")) is end
             and id(e) not in job.got_past]
    hosts = {e.host for e in alike if e.host}
    pods = {pod for e in alike if (pod := _pod_short(e))}
    ran = {pod for e in job.evidence if (pod := _pod_short(e))} - pods
    if hosts and job.hosts - hosts or not hosts and pods and ran:
        where = f"node{'s' if len(hosts) > 1 else ''} {', '.join(sorted(hosts))}" if hosts else \
            f"pod{'s' if len(pods) > 1 else ''} {', '.join(sorted(pods))}"
        return end.gang.confined, (f": only {where} of the job failed so while its other pods ran: "
                                   f"{'those nodes' + chr(39) if len(hosts) > 1 else 'its node' + chr(39) + 's'} own "
                                   f"({end.gang.node}), not the workload's")
    return end.category, (f": every pod of the job that says anything ({len(pods) or len(alike)}) failed alike, the "
                          f"workload's ({end.gang.workload}), not a node's")


def _slurm_end(e: Evidence) -> SlurmEnd | None:
    """The SLURM_ENDS row of a Slurm cancel's reason; None for any other evidence, or a reason with no row."""
    if e.kind != "job_ended" or e.details.get("fact") != "slurm_cancelled":
        return None
    return SLURM_ENDS.get(e.details.get("why"))


def _slurm_end_said(job: Job, e: Evidence) -> tuple[str, tuple[Evidence, ...]]:
    """What Slurm's reason for ending the job means (SLURM_ENDS), said after the incident's reason; after the job's
    statement of success in the same file (its latest before the line), what it means there, that statement then
    the incident's evidence too."""
    end = _slurm_end(e)
    if end is None:
        return "", ()
    stated = [s for s in job.stated if s.file == e.file and e.line is not None and s.line < e.line]
    if stated and end.after_success:
        s = max(stated, key=lambda s: s.line)
        return f"{_success_said(job, s)}: {end.after_success}", (s,)
    return f": {end.said}", ()


def _success_said(job: Job, s: Evidence) -> str:
    """The words an incident's reason says of the job's statement of success `s` its failure came after."""
    return f"; it came after the job stated its success at {job.file_name(s)}:{s.line}"


def _after_success(job: Job, i: Incident) -> Incident:
    """The incident with the job's statement of its success its root line came after (triage.teardown `stated_before`;
    the root's evidence is first), and its reason saying so: the job had done its work and the failure is in its
    teardown or exit (a crash, a hang at exit, a time limit after it: never hidden, triage.teardown), another urgency
    and owner than a failed training, whatever the category.  A statement made before the final save (BEFORE_SAVE:
    Megatron's, Lightning's) says so, the save being what may have failed.  The incident as it was where none came
    before it."""
    s = stated_before(job.stated, i.evidence[0]) if i.evidence and job.stated else None
    if s is None:
        return i
    said = _success_said(job, s)
    if said in i.reason:  # said already, with what it means there (SLURM_ENDS after_success)
        return replace(i, after_success=s)
    meaning = ("a statement made before its final save, which may be what failed"
               if s.details.get("fact") in BEFORE_SAVE else "the job had done its work, the failure is in its "
               "teardown or exit")
    return replace(i, after_success=s, reason=f"{i.reason}{said}: {meaning}")


# What the job's own rerun of a step decides of a rank's non-finite result (facts.py rerun_verdict): the GPU's fault
# (its rows of category hardware) or the application's; its first rerun's reproduced result decides nothing
RERUN_KIND = "rerun_verdict"
NONFINITE_KIND = "nonfinite_result"


def _gpu_shared(job: Job, first: Evidence) -> tuple[Evidence, ...]:
    """The other ranks' CUDA OOMs on the GPU the first's names, of its host (of its file where no host is known): two
    or more ranks of the job out of memory on one GPU index of one node share that GPU (every rank on cuda:0: no
    torch.cuda.set_device(local_rank), a wrong CUDA_VISIBLE_DEVICES, device_map="auto" in each rank), the
    application's, whatever each line's figures say of other processes (parsers/rules.py GPU_OOM_HELD: they are its
    own ranks; the 1.x message's memory outside the rank's pool too). Where each rank sees only its own GPU (a
    container or Slurm task per GPU) every rank's GPU is "GPU 0", and the figures of two ranks' lines can say they
    cannot share one (`_gpu_apart`): then each line's own figures decide, nothing here. (): no other rank's."""
    if first.kind != "cuda_oom" or first.gpu is None or first.rank is None:
        return ()
    place = first.host or first.file
    same = [e for e in job.failures if e.kind == "cuda_oom" and e.gpu == first.gpu and e.rank is not None
            and (e.host or e.file) == place]
    others = {e.rank: e for e in reversed(same) if e.rank != first.rank}  # each other rank's first line
    if not others or _gpu_apart(job, same):
        return ()
    return tuple(sorted(others.values(), key=lambda e: e.rank))


def _gpu_apart(job: Job, same: list[Evidence]) -> bool:
    """Whether the figures of ranks' CUDA OOMs on one GPU index of one node say two of the ranks were on different GPUs
    (each seeing its own as "GPU 0"):
    - two ranks each holding more than GPU_OOM_HELD of their GPU (details own_gib of total_gib): one GPU holds no two;
    - two ranks whose lines each name ONE other process on the GPU, holding most of it (parsers/rules.py `held_alone`:
      NVML listed the rank and that process alone: a process an earlier run left, another pod's), that process no
      rank of the job's (no pid the job's NCCL lines map to a rank of that host): on one GPU the rank still running
      at the other's OOM would be listed there too (the same process named by both: neither lists the other; a
      different one each: each would be the other rank, holding more than half the GPU at the other's OOM and less
      at its own, the two trading more than half of it between their OOMs). Lines that name several processes, or
      none (1.x's memory outside the rank's pool), may be listing the job's own ranks: they decide nothing here."""
    big: set[int | None] = set()
    alone: set[int | None] = set()
    for e in same:
        if _gib_over(e.details.get("own_gib"), e.details.get("total_gib")):
            big.add(e.rank)
        pid = held_alone(e.details)
        if pid is not None and (e.host, int(pid)) not in job.pid_rank:
            alone.add(e.rank)
    return len(big) > 1 or len(alone) > 1


def _gib_over(own: str | None, total: str | None) -> bool:
    """Whether a CUDA OOM's own memory is more than GPU_OOM_HELD of its GPU's (details own_gib, total_gib)."""
    try:
        return own is not None and total is not None and float(own) > float(total) * GPU_OOM_HELD
    except ValueError:
        return False


def _rerun_said(job: Job, first: Evidence) -> Verdict | None:
    """A rank's non-finite result the job's own rerun of the step gave its verdict on (Megatron-LM's rerun state
    machine; the same rank's, or a line naming none): "Possible transient error!" (not reproduced on the same GPU)
    and "Possible persistent error!" (reproduced there, not on another GPU) a fault of the first GPU, the one its
    first rerun named (the persistent line's own node and device are the other GPU's); "Correct result" the
    application's.  None: no verdict read, or only the first rerun's reproduced result (the job exits to rerun the step
    on another GPU: the non-finite result's own verdict stands)."""
    if first.kind != NONFINITE_KIND:
        return None
    said = [e for e in job.evidence if e.kind == RERUN_KIND and (e.rank is None or first.rank is None or
                                                                   e.rank == first.rank)]
    categories = [(e, category_of(e)) for e in said]
    decided = [(e, c) for e, c in categories if c is not None]
    if not decided:
        return None
    verdict, category = decided[-1]
    # the suspect GPU: the one the verdict's line names (its transient error's, rerun in place), else the one its
    # first rerun named (the persistent error's line names the other GPU, never read as its own)
    named = [e for e, c in categories if c is None and e.host and e.gpu is not None]
    gpu_line = verdict if verdict.gpu is not None else named[-1] if named else None
    where = f"GPU {gpu_line.gpu} of {gpu_line.host}" if gpu_line is not None else \
        f"the GPU {_who(first, job)} first ran on (no line read names it: the first run's log does)"
    root = replace(verdict, rank=first.rank if verdict.rank is None else verdict.rank,
                   host=gpu_line.host if gpu_line is not None else None,
                   gpu=gpu_line.gpu if gpu_line is not None else None)
    head = f"{_what(first)} on {_who(first, job)}{_at(first)}, and the job's own rerun of the step said " \
           f"'{_what(verdict)}'{_at(verdict)}"
    if category == "application":
        return Verdict(category, root, "first_failure",
                       f"{head}: its rerun on another GPU gave the same result, the training's numerics (data, "
                       "learning rate, a kernel), not the GPU", suspects=(first,))
    how, act = ("not reproduced when the step was rerun on the same GPU: a transient fault",
                "run its diagnostics should it recur") if gpu_line is verdict else \
        ("reproduced on the same GPU but not on another: a persistent fault (silent data corruption)",
         "drain it and run its diagnostics")
    return Verdict(category, root, "first_failure",
                   f"{head}: the result was {how} of {where}, not the program; {act} (the rerun state machine is a "
                   "heuristic, not a diagnosis)", suspects=(first,))


def _store_counts(job: Job, first: Evidence, death: Evidence | None) -> Verdict:
    """The job failed because the store's count of ranks was wrong (STORE_COUNTS): no single line is the root. The
    suspects are the lines of every rank that waited with the same counts; a rank that never joined is named only
    where the logs name every other rank of the group (ranks 0 .. expected - 1: init_process_group's own group), the
    one rank then the root's."""
    joined, expected = store_counts(first)
    same = tuple(e for e in job.failures if e.details.get("fact") == first.details.get("fact") and
                 store_counts(e) == (joined, expected) and e.details.get("store_key") == first.details.get("store_key"))
    waited = sorted({e.rank for e in same if e.rank is not None})
    who = _ranks(waited) if waited else _who(first, job)
    key = f" ({first.details['store_key']})" if first.details.get("store_key") else ""
    t = str(first.details.get("store_timeout") or "")
    timeout = f" before its timeout ({t}{' s' if t.isdigit() else ''})" if t else ""
    # the waiting ranks' own deaths (the one that led here, else the first of theirs): no consequence, its cause said
    deaths = [death] if death is not None else \
        [e for e in job.failures if e.kind in DEATH_KINDS and e.rank is not None and e.rank in waited][:1]
    died = f"; {_dead(deaths[0], job)} died right after" if deaths else ""
    if joined > expected:
        return Verdict("infrastructure", None, "first_failure",
                       f"{who} waited at the store{key} for {expected} ranks and {joined} joined{died}: the store also "
                       "held other processes' joins (another job on the same store address, or an earlier attempt of "
                       "this one)", suspects=same, kind=first.kind)
    missing = expected - joined
    # the ranks 0 .. expected - 1 no line names, where every rank seen is one of those and the rest are exactly the
    # `missing` ones, few enough to list (MAX_ABSENT_NAMED): counted before any is listed
    seen = job.seen_ranks
    # (named: `absent` is exactly the `missing` ranks, at least one)
    named = missing <= MAX_ABSENT_NAMED and expected - len(seen) == missing and all(0 <= r < expected for r in seen)
    absent = [r for r in range(expected) if r not in seen] if named else []
    which = f"{_ranks(absent)}, of which the logs hold no line" if absent else "which, the logs do not say"
    rank = absent[0] if len(absent) == 1 else None
    they = "the one that never joined is the suspect" if missing == 1 else \
        f"the {missing} that never joined are the suspects"
    return Verdict("infrastructure", None, "first_failure",
                   f"{who} waited at the store{key} and {joined} of {expected} ranks joined{timeout}{died}: {they} "
                   f"({which}): a node or pod that never started, or never reached the store", suspects=same,
                   kind=first.kind, rank=rank, host=job.rank_host.get(rank) if rank is not None else None)


def _disk_pressure(job: Job, failure: Evidence) -> Evidence | None:
    """The last disk_pressure warning of the failure's host before it, within the job's window, where the failure is an
    object store's that such a disk explains (DISK_PRESSURE_EXPLAINS); None otherwise."""
    if failure.kind != "exception" or not DISK_PRESSURE_EXPLAINS.search(
            f"{failure.details.get('exception') or ''} {failure.details.get('message') or ''}"):
        return None
    t = _ts(failure)
    before = [e for e in job.evidence if e.kind == "disk_pressure" and _same_host(job, e, failure) and
              (e.time is None or failure.time is None or t - job.window <= _ts(e) <= t + SKEW)]
    return max(before, key=_ts, default=None) if any(e.time for e in before) else (before[0] if before else None)


def _abort_how(e: Evidence) -> str:
    code = e.details.get("errorcode")
    return "it called MPI_Abort" + (f", errorcode {code}" if code is not None else "")


def _explanation(job: Job, death: Evidence) -> Evidence | None:
    """What the dead rank's own log (or its host's kernel log) says before it died: its exception, CUDA error, an
    OOM kill on its host; for a death by a signal, the job's own kill that names no rank nor host
    (SIGNAL_EXPLAINED_BY)."""
    t = _ts(death)
    if death.signal in CRASH_SIGNALS:  # the kernel's line saying the rank's process crashed, and in whose library
        crashed = [e for e in job.evidence if crash_explains(job, death, e)]
        if crashed:
            return min(crashed, key=lambda e: (crash_explains(job, death, e) != "pid", _ts(e)))
    if death.signal in MEMORY_SIGNALS:  # the node's memory, its line naming the rank's process, before all else
        named = [e for e in job.failures if memory_names_process(e) and memory_explains(job, death, e)]
        if named:
            return min(named, key=lambda e: (memory_explains(job, death, e) != "pid", _ts(e)))
    anonymous = SIGNAL_EXPLAINED_BY.get(death.signal, ())
    for e in job.failures:
        # a completion error is a consequence (a peer that went away), except the rank's own that names no peer and
        # says the link failed (libmlx5's "got completion with error:", printed for no flushed request): its own
        # transport broke under it (OpenRLHF/OpenRLHF #621: the vLLM engine that then died)
        own_link = link_failed(e) and e.peer is None
        if e is death or (is_consequence(e) and not own_link) or e.kind in DEATH_KINDS or category_of(e) is None:
            continue
        own = (e.rank is not None and e.rank == death.rank) or (
            e.rank is None and e.host is not None and e.host == death.host)
        # the job's kill names no one, and is often reported after the death (the kubelet, slurmstepd at the step's end);
        # so does Slurm's end of a step for a node failure, whatever the death (its line names only the node that
        # survived to print it: facts.REPORTER_ONLY), a task that lost its peers on the failed node exiting first
        kill = not own and e.rank is None and e.host is None and (
            e.kind in anonymous or e.kind == "job_ended" and e.details.get("why") == "NODE FAILURE")
        if (own or kill) and (e.time is None or death.time is None or
                              t - job.window <= _ts(e) <= t + (job.window if kill else SKEW)):
            return e
    if death.signal in MEMORY_SIGNALS:  # an uncorrected error consumed on its host, naming no process, just before
        return next((e for e in job.failures if memory_explains(job, death, e) == "host"), None)
    return None


def _mismatched_collective(job: Job) -> Verdict | None:
    """Ranks timed out in the same collective (process group and SeqNum, the group from each rank's own watchdog
    progress line) with different sizes or operations: they called different collectives, the program's bug (what
    PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL check would have said).  Only what both ranks' lines say is compared: a
    line naming no operation (a watchdog's "failure detected by watchdog at work sequence id: N", which the parsers read
    as a timeout: the cluster's reading of a node agent's Event quoting it, cluster/evidence.py) has no collective to
    compare, and a size unknown on one side (an older agent's Event, a WorkNCCL line without NumelIn) differs from
    none."""
    calls: dict[tuple, dict[int, Evidence]] = defaultdict(dict)
    for e in job.evidence:
        if e.kind == "nccl_timeout" and e.rank is not None and e.seq is not None and e.op is not None:
            pg = job.group_of(e)
            if pg is not None:
                calls[(pg, e.seq)].setdefault(e.rank, e)
    for (pg, seq), by_rank in sorted(calls.items(), key=lambda kv: (group_order(kv[0][0]), kv[0][1])):
        ops = {e.op for e in by_rank.values()}
        sizes = {e.details.get("numel_in") for e in by_rank.values()} - {None}
        if len(by_rank) >= 2 and (len(ops) >= 2 or len(sizes) >= 2):
            said = "; ".join(f"rank {r}: {e.op}" + (f" of {e.details['numel_in']} elements"
                                                     if e.details.get("numel_in") is not None else "")
                             for r, e in sorted(by_rank.items()))
            return Verdict("application", None, "mismatched_collective",
                           f"ranks timed out in the same collective (process group {pg}, SeqNum {seq}) with different "
                           f"operations or sizes ({said}): they called different collectives, a bug of the program",
                           suspects=tuple(sorted(by_rank.values(), key=lambda e: e.rank)),
                           kind="collective_mismatch")
    return None


def _peer_error(job: Job) -> Verdict | None:
    errors = [e for e in job.failures if e.kind in PEER_KINDS and e.peer]
    if not errors:
        return None
    local = _local_completion(errors, "peer_error")
    if local is not None:
        return local
    peers = Counter(_peer_name(job, e) for e in errors)
    peer, count = peers.most_common(1)[0]
    reporters = {e.host or e.rank for e in errors}
    fabric = any(link_failed(e) for e in errors)
    first = next(e for e in errors if _peer_name(job, e) == peer)
    host = _peer_host(job, first)
    pod = job.pod_of(first.peer) if host else None
    said = peer if host is None or _bare(first.peer) == host else f"{peer} ({_bare(first.peer)}" + (
        f", pod {pod})" if pod else ")")
    if fabric:
        return Verdict("fabric", first, "peer_error",
                       f"{count} NET/IB completion error(s) from {len(reporters)} reporter(s) name peer {said}; "
                       "no rank died and no node fault was logged before them: the link to that peer failed",
                       host=host or first.host, pod=pod)
    flushed = ", work requests flushed (the connection was already broken)" if any(
        e.kind == "ib_completion_error" for e in errors) else ""
    return Verdict("undetermined", first, "peer_error",
                   f"{count} remote error(s) name peer {said}{flushed}; the peer's own logs say nothing of "
                   "why it went away", host=host or (None if _loopback(first.peer) else _bare(first.peer)), pod=pod)


def _peer_host(job: Job, e: Evidence, address: str | None = None) -> str | None:
    """The host of the peer a remote error names (`address`, else its line's peer): the job's host its address is; a
    loopback address is the reporter's own host (None where its line names none)."""
    address = address or e.peer
    return job.host_of(address) or (e.host if _loopback(address) else None)


def _peer_name(job: Job, e: Evidence) -> str:
    """The peer as said and counted: its host where known, else its address."""
    return _peer_host(job, e) or _bare(e.peer)


def _fabric_error(job: Job) -> Verdict | None:
    local = _local_completion([e for e in job.failures if ib_category(e)], "fabric_error")
    if local is not None:
        return local
    fabric = [e for e in job.failures if link_failed(e)]
    if not fabric:
        return None
    first = fabric[0]
    hosts = sorted({e.host for e in fabric if e.host})
    ranks = sorted({e.rank for e in fabric if e.rank is not None})
    # several ranks of one host report it: the host's adapter (or its link) failed, not one of those ranks
    host_level = len(hosts) == 1 and len(ranks) > 1
    on = f"{hosts[0]}, reported by its {_ranks(ranks)}" if host_level else (', '.join(hosts) or 'the job')
    nets = {_net_of(e) for e in fabric}
    errors, network = nets.pop() if len(nets) == 1 else ("network errors", "the network fabric")
    return Verdict("fabric", first, "fabric_error",
                   f"{_what(first)} on {on}{_first_of(len(fabric), errors)}; no peer named, no rank died "
                   f"and no node fault came before: {network} failed",
                   host=hosts[0] if len(hosts) == 1 else None, host_level=host_level)


# NCCL's network plugin as its lines name it -> (the lines' noun, the network named in the verdict); NET/IB otherwise
# (aws-ofi-nccl on EFA: "NCCL WARN NET/OFI ...", gnosia93/training-on-eks appendix/a1-karpenter-message.md)
NETS = {"NET/OFI": ("NET/OFI errors", "the EFA / libfabric network")}
NET_IB = ("NET/IB errors", "the InfiniBand / RoCE fabric")


def _net_of(e: Evidence) -> tuple[str, str]:
    return next((said for tag, said in NETS.items() if tag in e.text), NET_IB)


def _lagging_rank(job: Job) -> Verdict | None:
    # PyTorch's monitored_barrier: rank 0 names the ranks that never reached it (the others only point at rank 0)
    barrier = [e for e in job.evidence if e.kind == "barrier_timeout" and e.details.get("lagging")]
    if barrier:
        behind = sorted({int(r) for e in barrier for r in e.details["lagging"].split(", ")})
        # JAX's coordination service names its barrier on the exception line before the tasks (facts.py
        # xla_barrier_timeout), PyTorch's rank 0 its timeout on the line that names the ranks
        named = next((e.details["barrier"] for e in job.evidence
                      if e.kind == "barrier_timeout" and e.details.get("barrier")), None)
        desync = next((e for e in barrier if e.details.get("fact") == "desync_lagging"), None)
        where = (f"{'is' if len(behind) == 1 else 'are'} behind the others in PyTorch's desync report "
                 f"(TORCH_NCCL_DESYNC_DEBUG: the lagging/dead/mismatched ranks"
                 f"{', at its collective #' + desync.details['collective'] if desync.details.get('collective') else ''})"
                 if desync is not None else
                 "never joined the collective the others were in, by PyTorch's flight recorder analysis (torchfrtrace: "
                 "\"Not all ranks joining collective\", its missing ranks)"
                 if any(e.details.get("fact") in FR_MISSING_FACTS for e in barrier) else
                 f"did not reach the coordination service's barrier {named} the other tasks waited at"
                 if named is not None or barrier[0].details.get("timeout_ms") is None else
                 f"failed to pass the monitored barrier rank 0 waited in ({barrier[0].details.get('timeout_ms')} ms)")
        return Verdict("undetermined", None, "lagging_rank",
                       f"{_ranks(behind)} {where}: {_lagging(job, behind, job.rank_host.get(behind[0]))}",
                       suspects=tuple(barrier), rank=behind[0], host=job.rank_host.get(behind[0]))
    waited = _unique_id_waits(job)
    if waited:
        return _unique_id_root(job, waited)
    # the flight recorder's "preparing to dump debug info" is no timeout, but its rank's watchdog machinery was heard
    # from: it is not a rank that went silent
    reports = [e for e in job.evidence if (e.kind in TIMEOUT_KINDS or e.details.get("fact") == "dump_notice")
               and e.rank is not None]
    dumped = _dumped_behind(job, reports)
    if dumped:
        behind = sorted({e.rank for e in dumped})
        return Verdict("undetermined", None, "lagging_rank",
                       f"{_ranks(behind)} had not enqueued the work the others time out in when the flight recorder "
                       f"made {'it' if len(behind) == 1 else 'them'} dump (last enqueued "
                       f"{min(e.last_enqueued for e in dumped)}, process group {dumped[0].details.get('pg')}): "
                       f"{_lagging(job, behind, job.rank_host.get(behind[0]))}",
                       suspects=tuple(dumped), rank=behind[0], host=job.rank_host.get(behind[0]))
    if job.ras_behind and job.failures:
        return _ras_behind(job)
    if len({e.rank for e in reports}) < 2:
        return _reported_straggler(job, reports)
    reported = {e.rank for e in reports}
    # (a) a rank whose last enqueued work is behind the collective the others wait in, in the same process group
    # (where the lines name two groups or more: their SeqNums count different collectives)
    for pg, group in sorted(by_group(job, reports).items(), key=lambda kv: group_order(kv[0])):
        seqs = [e.seq for e in group if e.seq is not None]
        top = max(seqs) if seqs else None
        behind = sorted({e.rank for e in group if e.last_enqueued is not None and top is not None
                         and e.last_enqueued < top})
        if behind and len(behind) < len({e.rank for e in group}):
            where = f" of process group {pg}" if pg is not None else ""
            return Verdict("undetermined", None, "lagging_rank",
                           f"{_ranks(behind)} never enqueued NCCL work {top}{where}, which the others time out in: "
                           f"{_lagging(job, behind, job.rank_host.get(behind[0]))}",
                           suspects=tuple(e for e in group if e.rank in behind), rank=behind[0],
                           host=job.rank_host.get(behind[0]))
    # (b) a rank seen in the logs (or in the communicator) that reported no timeout while the others did
    # (the communicator's ranks 0 .. world - 1 where a line gives its size: counted before any is listed, so that a
    # corrupt or hostile "nranks 99999999999" costs no more than the ranks the rule may name)
    size = job.world or len(job.seen_ranks)
    quiet = size - len({r for r in reported if 0 <= r < size}) if job.world else len(job.seen_ranks - reported)
    if not (quiet and quiet <= min(max(1, size // 4), MAX_ABSENT_NAMED) and len(reported) >= 2):
        return _reported_straggler(job, reports)
    missing = [r for r in range(size) if r not in reported] if job.world else sorted(job.seen_ranks - reported)
    return Verdict("undetermined", None, "lagging_rank",
                   f"{_ranks(missing)} reported no timeout while {len(reported)} ranks did: "
                   f"{'it' if len(missing) == 1 else 'they'} never reached the collective; "
                   f"{_why_stalled(job, job.rank_host.get(missing[0]), len(missing) > 1)}",
                   rank=missing[0], host=job.rank_host.get(missing[0]))


def _unique_id_waits(job: Job) -> list[Evidence]:
    """Ranks' reports that they waited through the store for the NCCL unique id their group's rank 0 publishes
    (parsers/rules.py `torch_unique_id_store`: "[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0]
    .. got error: .."), where that group's rank 0 is the job's: the line's group rank is its writer's job rank (a
    group whose rank N is job rank N holds job ranks 0 .. N, its rank 0 job rank 0), or its writer is unknown."""
    return [e for e in job.evidence if e.details.get("root_rank") is not None and job.in_window(e)
            and (e.rank is None or as_int(e.details.get("waiting_rank")) == e.rank)]


_SEND_RECV_KEY = re.compile(r"(\d+):\d+")  # PyTorch's getKeySendRecv: "<low>:<high>", a send / recv pair's ranks


def _unique_id_publisher(e: Evidence) -> int:
    """The rank that publishes the NCCL unique id a wait (`_unique_id_waits`) waited for: the group's rank 0 for a
    collective's communicator (the store key a counter), the pair's low rank for a single send / recv's (the key
    "<low>:<high>": ProcessGroupNCCL's broadcastUniqueNCCLID, p2pRank 0; its words say "[0]" all the same)."""
    m = _SEND_RECV_KEY.fullmatch(str(e.details.get("store_key") or ""))
    return int(m.group(1)) if m else as_int(e.details.get("root_rank")) or 0


def _unique_id_root(job: Job, waited: list[Evidence]) -> Verdict:
    """The rank that publishes the NCCL unique id (`_unique_id_publisher`: the group's rank 0, a send / recv pair's low
    rank) never gave the others the id they waited for through the store (the waits `_unique_id_waits` found, the
    first's publisher's): it failed, hung or was slow before the communicator's setup (a store that closed the
    connection, "Connection reset by peer", went away with it: PyTorch's own "This may indicate a possible
    application crash on rank 0"); the suspect, though its own log says nothing read here."""
    root = _unique_id_publisher(waited[0])
    waited = [e for e in waited if _unique_id_publisher(e) == root]
    host = job.rank_host.get(root)
    ranks = sorted({e.rank for e in waited if e.rank is not None})
    # the store's error, as the first line that says it says it ("": every line cut before it, an Event's excerpt)
    error = next((str(e.details["store_error"]) for e in waited if e.details.get("store_error")), "")
    said = f" (store->get got '{error}')" if error else ""
    how = ("never published it in time: it failed, hung or was slow before the setup" if _store_timed_out(error) else
           "went away, or the store with it, while they waited (PyTorch's \"a possible application crash on rank 0\")"
           if error else "failed, hung or went away before the setup")
    return Verdict("undetermined", None, "lagging_rank",
                   f"rank {root} never gave the NCCL unique id {_ranks(ranks) if ranks else 'another rank'} waited for "
                   f"through the job's store to set up {'its' if len(ranks) == 1 else 'their'} communicator with "
                   f"it{said}: rank {root} {how}; no failure of its own was read here",
                   suspects=tuple(waited), rank=root, host=host)


def _store_reset(e: Evidence) -> bool:
    """A wait for the NCCL unique id (`_unique_id_waits`) whose store error says no timeout: the store's connection
    failed ("Connection reset by peer"), the rank did not time out."""
    error = str(e.details.get("store_error") or "")
    return bool(error) and not _store_timed_out(error)


def _store_timed_out(error: str) -> bool:
    """A store error that is a timeout ("Socket Timeout", "wait timeout after 600000ms", "timed out")."""
    return "timeout" in error.lower() or "timed out" in error.lower()


def _reported_straggler(job: Job, reports: list[Evidence]) -> Verdict | None:
    """A hang (watchdog timeouts) whose watchdog numbers single out no rank, in a job whose own straggler report
    (kind straggler_report, a warning: nvidia-resiliency-ext's verdict, Megatron-LM's slowest rank far behind its
    fastest) named slow ranks within the window before it: those ranks are the suspects, the latest report's (a
    measure of speed, weaker than a rank that never enqueued the collective, so tried after those rules)."""
    last = _straggler_said(job, job.first_symptom)
    if not reports or last is None:
        return None
    return _stragglers_suspected(job, last, "before the hang", "no watchdog number singling out a rank", (last,))


def _straggler_said(job: Job, before: float | None) -> Evidence | None:
    """The latest straggler report (a warning naming ranks) within the window and no later than `before` (None: any
    time), or None."""
    said = [e for e in job.evidence if e.kind == STRAGGLER_KIND and e.severity == "warning" and job.in_window(e)
            and e.details.get("straggler_ranks") and (e.time is None or before is None or _ts(e) <= before + SKEW)]
    return max(said, key=lambda e: (_ts(e), e.file or "", e.line or 0)) if said else None


def _stragglers_suspected(job: Job, last: Evidence, when: str, besides: str,
                          suspects: tuple[Evidence, ...]) -> Verdict:
    """The ranks (and node, where one) straggler report `last` named as the job's suspects, rule lagging_rank."""
    behind = [int(r) for r in str(last.details["straggler_ranks"]).split(",")]
    nodes = str(last.details.get("nodes") or "").split(",")
    host = nodes[0] if len(nodes) == 1 and nodes[0] else job.rank_host.get(behind[0])
    host = job.host_of(host) or host if host else None
    return Verdict("undetermined", None, "lagging_rank",
                   f"{_ranks(behind)} {'is' if len(behind) == 1 else 'are'} the suspect{'s' if len(behind) > 1 else ''}"
                   f", slow by the job's own report {when} ({_what(last)}{_at(last)}), {besides} (a slow GPU or node, "
                   f"not proven the root); {_why_stalled(job, host, len(behind) > 1, running=True)}",
                   suspects=suspects, rank=behind[0], host=host)


def _straggler_stop(job: Job, stop: Evidence) -> Verdict:
    """The job stopped by its own straggler detection (kind straggler_stop, facts.py): the ranks its latest report
    before the stop named are the suspects, the ranks' exits after it its consequences; the stop its root where no
    report was read (the ranks not named)."""
    last = _straggler_said(job, _ts(stop) if stop.time is not None else None)
    if last is None:
        return Verdict("undetermined", stop, "lagging_rank",
                       f"the job's own straggler detection stopped it{_at(stop)} ({_what(stop)} on {_who(stop, job)}), "
                       "and no report read here names the slow ranks: look for its STRAGGLER DETECTION WARNING on "
                       "rank 0")
    return _stragglers_suspected(job, last, f"before its straggler detection stopped the job{_at(stop)}",
                                 "the ranks' exits after it its consequences", (last, stop))


def _lagging(job: Job, behind: Sequence[int], host: str | None) -> str:
    """The ranks a rule found behind the others named as the lagging rank (ranks, where several), and why they
    stalled (`_why_stalled`: what `host`, theirs, logged; None where it is unknown)."""
    return f"the lagging rank{'s' if len(behind) > 1 else ''}; {_why_stalled(job, host, len(behind) > 1)}"


def _ras_behind(job: Job) -> Verdict:
    """The ranks NCCL's RAS report found behind the operation count most of their communicator's ranks launched, in
    a job that failed (a hang its watchdogs timed out in): the lagging ranks (its latest report's, where an operator
    saved several)."""
    last = max(job.ras_behind, key=lambda e: (_ts(e), e.file or "", e.line or 0))
    report = [e for e in job.ras_behind if e.file == last.file and e.details.get("majority") == last.details["majority"]
              and e.details.get("op") == last.details.get("op")]
    behind = sorted({int(e.details["lagging"]) for e in report})
    # RAS's ranks are its communicator's, not the job's (a 4-GPU communicator's rank 0 is no job's rank 0: NCCL's
    # guide, troubleshooting/ras): their node is the one RAS names, never the host of the job's rank of that number
    nodes = {e.details.get("node") for e in report}
    node = next(iter(nodes)) if len(nodes) == 1 else None
    host = (job.host_of(node) or node) if node else None
    op = last.details.get("op")
    what = "operations" if op in (None, "collective") else f"{op} operations"
    # the job's ranks only where the communicator is the job's world: as many ranks as NCCL's world communicator has
    # (Job.world); else its own numbers, said as such and no job rank named (the host RAS names stays)
    size = max(as_int(e.details.get("ranks")) or 0 for e in report)
    world = job.world is not None and size == job.world
    ranks = _ranks(behind) if world else _ranks(behind).replace("rank", "communicator rank", 1)
    return Verdict("undetermined", None, "lagging_rank",
                   f"{ranks} had launched {what} only up to {min(int(e.details['operation']) for e in report)}"
                   f" while most ranks of {'its' if len(behind) == 1 else 'their'} communicator had launched up to "
                   f"{last.details['majority']} (NCCL RAS's MISMATCH report): "
                   f"{_lagging(job, behind, host)}",
                   suspects=tuple(report), rank=behind[0] if world else None, host=host)


def _why_stalled(job: Job, host: str | None, several: bool = False, running: bool = False) -> str:
    """What the lagging rank's host (None: unknown) logged that slows a rank (SLOW_HOST_KINDS: its CPUs throttled), in
    the job's window, or that nothing logged says why it stalled (`running`: why it was slow, a straggler still running)."""
    slow = [e for e in job.evidence if e.kind in SLOW_HOST_KINDS and job.in_window(e)
            and (e.host == host if host is not None and e.host is not None else len(job.hosts) <= 1)]
    if not slow:
        state = ("were slow" if several else "was slow") if running else "stalled"
        return f"nothing logged says why {'they' if several else 'it'} {state}"
    e = min(slow, key=_ts)
    return f"its host{' ' + host if host else ''} logged {_what(e)}{_at(e)}, which slows a rank"


def _dumped_behind(job: Job, reports: list[Evidence]) -> list[Evidence]:
    """Flight-recorder dump lines of ranks whose own collective did not time out ("from rank N") and whose last enqueued
    work in the process group the line names is behind the work the others' watchdogs time out in, in that same group
    (a dump line's numbers are its group's: sequence numbers of different groups are never compared)."""
    tops: dict[str, int] = {}
    timed_out: set[tuple[int, str]] = set()
    for e in reports:
        pg = job.group_of(e)
        if e.kind == "nccl_progress" and pg is not None and e.seq is not None:
            tops[pg] = max(tops.get(pg, e.seq), e.seq)
            timed_out.add((e.rank, pg))
    return [e for e in job.evidence
            if e.kind == "nccl_dump" and e.rank is not None and e.last_enqueued is not None and not e.details.get("own")
            and (pg := job.group_of(e)) in tops and (e.rank, pg) not in timed_out and e.last_enqueued < tops[pg]]


def _store_lost(job: Job) -> Verdict | None:
    """The job's first symptom is a TCPStore client that lost the store it had reached (STORE_LOST): the store went
    away with the process that held it, rank 0's (torchrun's static rendezvous, MASTER_ADDR) or the elastic agent's
    on the c10d rendezvous host, so its host is the suspect, not the reporter. Its address (`remote=`) is the job's
    host where the logs say so (NCCL's address lines, a fully qualified name's first label), the reporter's own where
    it is loopback or the client's own address; rank 0 is named only where its host is the store's and it reported no
    lost store itself (a client of the store cannot have held it). A failure of a rank's own outranks it
    (`first_failure`)."""
    if not job.symptoms or job.symptoms[0].details.get("fact") not in STORE_LOST:
        return None
    lost = [e for e in job.symptoms if e.details.get("fact") in STORE_LOST]
    # each line naming an address, with its store (`_store_of`, once a line)
    addressed = [(e, *_store_of(job, e)) for e in lost if e.details.get("store_host")]
    # each line's store: its host where known, else its address as said (a line naming no address names none)
    stores = {host or _bare(str(e.details["store_host"])) for e, _own, host in addressed}
    first, own, host = addressed[0] if len(stores) == 1 else (None, False, None)
    address = f"{first.details['store_host']}:{first.details['store_port']}" if first is not None else None
    ranks = sorted({e.rank for e in lost if e.rank is not None})
    rank = 0 if host is not None and job.rank_host.get(0) == host and 0 not in ranks else None
    error = next((str(e.details["store_error"]) for e in lost if e.details.get("store_error")), "")
    where = (f"the store at {address}" + (" (on its own host)" if own and not host else f" (host {host})"
                                           if host and _bare(address.rsplit(':', 1)[0]) != host else "")
             ) if address else "the job's store"
    held = ("rank 0 on that host (whose process holds it for torchrun's static rendezvous) or that host's elastic "
            "agent (the c10d rendezvous's)" if rank == 0 else
            "the process that held it (rank 0's for torchrun's static rendezvous, the elastic agent's on the c10d "
            "rendezvous host)")
    return Verdict("undetermined", None, "store_lost",
                   f"{_ranks(ranks) if ranks else 'a rank'} lost {where}" + (f" ('{error}')" if error else "")
                   + f"{_at(lost[0])}, the job's first failure: the store went away; {held} ended, crashed or "
                   "was killed, or the network to it failed; no failure of that process was read here",
                   suspects=tuple(lost), rank=rank,
                   host=host or (None if first is None or own else _bare(str(first.details["store_host"]))))


def _store_of(job: Job, e: Evidence) -> tuple[bool, str | None]:
    """A lost store's line's store: whether it is on its writer's own host (triage.facts `own_address`: the client's
    own address, "addr=[pod-x]:50828, remote=[pod-x]:45903"), and its host (`_peer_host` of its address, loopback
    where it is the client's own: the reporter's host), None where the logs do not say."""
    own = own_address(str(e.details["store_host"]), e.details.get("store_client"))
    return own, _peer_host(job, e, "localhost" if own else str(e.details["store_host"]))


# JAX's task that lost the coordination service (parsers/rules.py jax_fatal_errors' status text, XLA's
# TrimCoordinationErrorMessage for a gRPC error of its own: "UNAVAILABLE: Failed to send RPC to coordination service.
# Either the leader task was preempted/died/restarted unexpectedly or this task is experiencing network issues."):
# the service runs in the leader, task 0 (JAX's docs, docs/fault_tolerance.rst: "Process 0 is special")
LEADER_LOST = "Failed to send RPC to coordination service"
LEADER_RANK = 0


def _leader_lost(job: Job) -> Verdict | None:
    """The job's first symptom is a JAX task that lost the coordination service (LEADER_LOST): where two tasks or
    more said so and the leader (task 0, the service's host) did not, the leader is the suspect (it died, was preempted
    or restarted: JAX's docs kill process 0 and every other process says this); where one task alone said so while
    others were seen, that task's own network or host is (marin-community/marin #7430: one task's RPC dropped, the
    leader alive). Else None (the cause no log read here names)."""
    if not job.symptoms or not str(job.symptoms[0].details.get("status_text", "")).startswith(LEADER_LOST):
        return None
    lost = [e for e in job.symptoms if str(e.details.get("status_text", "")).startswith(LEADER_LOST)]
    ranks = sorted({e.rank for e in lost if e.rank is not None})
    said = f"{_ranks(ranks)} lost JAX's coordination service{_at(lost[0])} (gRPC UNAVAILABLE)"
    if len(ranks) >= 2 and LEADER_RANK not in ranks:
        host = job.rank_host.get(LEADER_RANK)
        return Verdict("undetermined", None, "leader_lost",
                       f"{said}: the service runs in the leader, task {LEADER_RANK}"
                       + (f" on {host}" if host else "") + ", which died, was preempted or restarted, or whose "
                       "network failed; no failure of its own was read here",
                       suspects=tuple(lost), rank=LEADER_RANK, host=host)
    if len(ranks) == 1 and job.seen_ranks - set(ranks):
        host = job.rank_host.get(ranks[0])
        return Verdict("undetermined", None, "leader_lost",
                       f"{said} while the other tasks seen did not: its own network or host (the leader, task "
                       f"{LEADER_RANK}, still served the others); no failure of its own was read here",
                       suspects=tuple(lost), rank=ranks[0], host=host)
    return None


def _undetermined(job: Job) -> Verdict | None:
    if not job.symptoms:
        return None
    # of symptoms of the first's second, the one torchrun's summary names "Root Cause (first observed failure)", as
    # _first_failure picks; it is the verdict's suspect, so that the consequences never list it (nor its rank)
    t0 = _ts(job.symptoms[0])
    first = min((e for e in job.symptoms if _ts(e) <= t0 + SKEW),
                key=lambda e: (_ts(e), not e.details.get("root_cause")))
    # a death no clock places against them (an undated report in another file: NCCL RAS's DEAD list an operator saved
    # from `ncclras` during the hang) is said as one that may have come first, as against a root (`_with_unplaced`)
    return _with_unplaced(job, Verdict(
        "undetermined", None, "undetermined",
        f"only consequences were logged, the first {_what(first)} on {_who(first, job)} (its reporter, not its root); no "
        "node fault, no rank that died or failed first, no lagging rank the watchdog numbers single out: the cause is in "
        "no log read here (another node's or process's)", suspects=(first,)), _candidates(job))


Rule = tuple[str, int, Callable[[Job], "Verdict | None"], str]
RULES: tuple[Rule, ...] = (
    ("node_fault", 1, _node_fault, "a node fault within the window outranks any application's claim"),
    ("contained_fabric", 2, _contained,
     "CUDA's contained error first: several GPUs at once are their NVLink fabric, one GPU its own hardware"),
    ("first_failure", 3, _first_failure, "the earliest failure that is not a consequence of another"),
    ("mismatched_collective", 4, _mismatched_collective,
     "ranks time out in one collective with different sizes or operations: the program's bug"),
    ("peer_error", 5, _peer_error, "network errors naming a peer point at it"),
    ("fabric_error", 6, _fabric_error, "InfiniBand / RoCE errors naming no peer: the fabric"),
    ("lagging_rank", 7, _lagging_rank, "NCCL watchdog numbers single out the rank that never reached the collective"),
    ("store_lost", 8, _store_lost,
     "a TCPStore client lost the store first: the store's host (rank 0's) is the suspect"),
    ("leader_lost", 9, _leader_lost,
     "JAX tasks lost the coordination service first: several, its leader (task 0) is the suspect; one, its own"),
    ("undetermined", 10, _undetermined, "only consequences: no root is named"),
)


# --- incidents ----------------------------------------------------------------------------------------------

def attribute(evidence: Iterable[Evidence] | Teardown, window: float = DEFAULT_WINDOW,
              names: Mapping[str, str] | None = None) -> list[Incident]:
    """The job's incidents, most likely root cause first; [] when the evidence holds no failure at all.  A file's
    communicator errors after its own statement of the job's success are its teardown, no failure (triage.teardown):
    `evidence` is split so here, or is that split already made (a caller that says the teardown too splits once).
    `names`: how the reasons name a file (`file_names`: the files a user gave, named short); the evidence keeps its
    `file` as it is."""
    job = Job((evidence if isinstance(evidence, Teardown) else teardown(evidence)).kept, window, names)
    if not job.failures:
        return []
    incidents = []
    verdict = None
    for _name, _priority, rule, _doc in sorted(RULES, key=lambda r: r[1]):
        verdict = rule(job)
        if verdict is not None:
            break
    if verdict is None:  # failures, none a consequence, none with a category: say so rather than guess
        first = job.failures[0]
        verdict = Verdict("undetermined", first, "undetermined",
                          f"{_what(first)} on {_who(first, job)} is the only failure logged and says nothing of its "
                          "cause")
    incidents.append(_incident(job, verdict))
    used = {id(e) for e in incidents[0].evidence}
    incidents[0] = replace(incidents[0], support=support(job, incidents[0], used))
    root = verdict.root
    # other node faults, each a failure of its own (a second node, a second device), after the first
    seen = {(root.host, root.pci or root.device)} if root is not None and is_node_fault(root) else set()
    for e in job.evidence:
        if id(e) in used or not is_node_fault(e) or not job.in_window(e):
            continue
        key = (e.host, e.pci or e.device)
        if key in seen:
            continue
        seen.add(key)
        same = tuple(x for x in job.evidence if is_node_fault(x) and (x.host, x.pci or x.device) == key)
        other = Incident(category_of(e) or "hardware", _root(e), same,
                         f"{len(same)} line(s) of this fault; whether it touched the job is not shown",
                         "node_fault", f"{_what(e)} on {e.host or 'a node'}: another fault in the window", e.time)
        incidents.append(replace(other, support=support(job, other, used | {id(x) for x in same})))
    return [_after_success(job, i) for i in incidents]


def _incident(job: Job, v: Verdict) -> Incident:
    root = v.root
    if root is not None:
        r = _root(root)
        if v.rule == "peer_error" and v.host and v.host != root.host:
            r = Root(kind=root.kind, host=v.host, pod=v.pod)  # the peer's: the reporting line's rank and GPU are not
        elif v.host_level:
            r = Root(kind=root.kind, host=root.host, device=root.device)  # the host's, not the first reporter's rank
    else:
        kind = v.kind or (v.suspects[0].kind if v.suspects else (job.failures[0].kind if job.failures else None))
        r = Root(kind=kind, rank=v.rank, host=v.host)
    outranked = _outranked(job, v)  # once for the verdict: its evidence and its sentence
    others = _others_failed(job, v, outranked)
    related = _related(job, v, outranked, others)
    return Incident(v.category, r, tuple(related), consequences(job, v, outranked, others), v.rule, v.reason,
                    root.time if root is not None else None)


def _root(e: Evidence) -> Root:
    # a host named by its address (Job._fill), the pod Kubernetes ended (facts.POD_ENDS), or a container's end read
    # off its Pod object (inventory.container_exits, runtime_faults)
    pod = e.details.get("pod") if "host_address" in e.details or "pod_end" in e.details or "container" in e.details \
        else None
    return Root(kind=e.kind, rank=e.rank, host=e.host, gpu=e.gpu, pci=e.pci, device=e.device, pod=pod)


def _related(job: Job, v: Verdict, outranked: list[Evidence], others: list[Evidence]) -> list[Evidence]:
    """The root's evidence, then the consequences (and the failures a node fault outranks, `_outranked`, and the other
    ranks' own failures, `_others_failed`), each group in time order (bounded)."""
    head: list[Evidence] = []
    if v.root is not None:
        head.append(v.root)
        # the root's other lines: of its kind, host and device, and its rank or none (a rank's traceback line after
        # its watchdog's names no rank)
        same = [e for e in job.failures if e is not v.root and _report_key(e) == _report_key(v.root)
                and e.rank in (v.root.rank, None)]
        head.extend(same[:20])
    head.extend(e for e in v.unplaced[:20] if e not in head)
    head.extend(e for e in v.suspects[:20] if e not in head)
    ids = {id(e) for e in head}
    listed = {id(e) for e in (*outranked, *others)}
    tail = [e for e in job.failures if id(e) not in ids and (is_consequence(e) or e.kind in TAIL_KINDS
                                                             or id(e) in listed)]
    return head + tail[:200]


def _others_failed(job: Job, v: Verdict, outranked: list[Evidence]) -> list[Evidence]:
    """The failures of ranks other than the verdict's (its rank, its root's, its suspects') that nothing else lists:
    none the verdict names (root, suspects, `_unplaced`), no consequence, exit or lost process (TAIL_KINDS: said
    apart), none a node fault outranks nor a node fault (its own incident).  A second rank's own CUDA error, NCCL
    error or exception, printed after the root's (bytedance/flux #40's rank 0): the consequences say it, never "no
    other rank reported a failure".  A line naming no rank too (a launcher's, Slurm's, an unranked pod's), unless it
    is a twin (`_twins`): listed, and said as naming no rank."""
    named = {id(e) for e in (v.root, *v.suspects, *v.unplaced, *outranked) if e is not None}
    own = _own_ranks(v)
    twins = _twins(job, v)
    return [e for e in job.failures if id(e) not in named and e.rank not in own
            and (e.rank is not None or not _twin(e, twins))
            and not is_consequence(e) and e.kind not in TAIL_KINDS and not is_node_fault(e)]


def _report_key(e: Evidence) -> tuple:
    """What tells one report from another of the same failure: its kind, host and device (a rank's traceback line after
    its watchdog's, naming no rank, is the same report)."""
    return e.kind, e.host, e.pci, e.device


def _twins(job: Job, v: Verdict) -> set[tuple]:
    """The reports and processes (`_twin_keys`) of the job's lines that name a rank, and of the verdict's root and
    suspects: a line naming no rank of one of them is its twin (the same failure printed again without the rank's
    prefix, or said in the same words on the same host or file: NCCL's "Error while creating shared memory segment"
    after its "No space left on device", both /dev/shm too small or full; or another line of the same process: NCCL's
    "host:pid:tid" prefix), said with it, never counted apart."""
    return {key for e in (v.root, *v.suspects, *(e for e in job.failures if e.rank is not None)) if e is not None
            for key in _twin_keys(e)}


def _twin_keys(e: Evidence) -> tuple[tuple, ...]:
    """What tells a line a twin of another (`_twins`): its report (`_report_key`), what it says where (`_what`, its
    host, else its file), and its process where it names one."""
    keys = (_report_key(e), ("said", _what(e), e.host or e.file))
    return (*keys, ("process", e.host, e.pid)) if e.pid is not None else keys


def _twin(e: Evidence, twins: set[tuple]) -> bool:
    """Whether a line is a twin of one the `twins` (`_twins`) were taken from."""
    return any(key in twins for key in _twin_keys(e))


def _own_ranks(v: Verdict, witnesses: set[int] | frozenset[int] = frozenset()) -> set[int]:
    """The ranks whose own failure the verdict names: its rank, its root's, its suspects' (none of the `witnesses`,
    by id: lines of other ranks it read to name its own)."""
    return {r for r in (v.rank, v.root.rank if v.root is not None else None,
                        *(e.rank for e in v.suspects if id(e) not in witnesses)) if r is not None}


# the failures of no consequence kind an incident's evidence lists after its root's: the ranks' exits, and the
# processes the coordinator declared lost (the consequences name them: `_lost_later`)
TAIL_KINDS = frozenset({"rank_exit", "process_lost"})

# the rules whose root is a fault under the job, which outranks the job's own failures (`_outranked`)
OUTRANKING_RULES = frozenset({"node_fault", "contained_fabric"})


def _outranked(job: Job, v: Verdict) -> list[Evidence]:
    """A node fault's verdict: the job's own failures it outranks (what its ranks and launcher reported: a CUDA error,
    a process refused its GPU, the scheduler's end), none of them a node fault, each the fault's consequence; [] for
    any other rule (their roots are among those failures).  Computed once a verdict (`_incident`); every line told
    apart by identity, as the failures are (two lines of the same words are two failures)."""
    if v.rule not in OUTRANKING_RULES:
        return []
    suspects = {id(e) for e in v.suspects}
    return [e for e in job.failures if e is not v.root and not is_node_fault(e) and id(e) not in suspects]


# Supporting evidence: the node's warnings below a fault's weight (a corrected PCIe AER, an NVLink or IOMMU warning)
# about the root's own device, listed under the root, never deciding anything.  The kinds whose findings are about a
# device of the node (parsers/kinds.py `device`), by the device they are about
DEVICE_OF_KIND = {k.name: k.device for k in KIND_TABLE if k.device is not None and not k.workload}
SUPPORT_MAX = 20


def support(job: Job, incident: Incident, used: set[int]) -> tuple[Evidence, ...]:
    """The warnings of the root's node about its device (`_whose`), in time order, at most SUPPORT_MAX; each with
    details "support" saying how it is the root's.  None for a root with no host, and none of another node."""
    root = incident.root
    if not root.host:
        return ()
    # the devices the job's lines name as GPUs (other than the root's): a PCIe line about one of them is that GPU's
    gpus = {e.pci for e in job.evidence if e.pci and DEVICE_OF_KIND.get(e.kind) == "gpu"} - {root.pci}
    found = []
    for e in job.evidence:
        if (id(e) in used or e.host != root.host or e.kind not in DEVICE_OF_KIND or is_node_fault(e)
                or SEVERITY_RANK.get(e.severity, 0) < SEVERITY_RANK["warning"] or attribution_of(e) == "application"
                or not job.in_window(e)):
            continue
        why = _whose(root, e, gpus)
        if why:
            found.append(e.with_context(details={**e.details, "support": why}))
            if len(found) == SUPPORT_MAX:
                break
    return tuple(found)


def _whose(root: Root, e: Evidence, gpus: set[str]) -> str | None:
    """How a device warning `e` of the root's node is about the root's device: the same PCI device (a GPU's own AER,
    an AER event whose source is the GPU), the same GPU index, NIC port or NVSwitch, or, for a GPU's root, a PCIe
    port's own link error (the port printed it about itself: what is below it, the GPU or not, a kernel log does not
    say); None: another device's."""
    if e.pci and e.pci == root.pci:
        return f"the same device, {e.pci}"
    if e.device and e.device == root.device:
        return f"the same device, {e.device}"
    if e.gpu is not None and e.gpu == root.gpu and e.pci in (None, root.pci):
        return f"the same GPU, {e.gpu}"
    if DEVICE_OF_KIND.get(root.kind or "") == "gpu" and DEVICE_OF_KIND[e.kind] == "pcie" and e.pci \
            and e.pci not in gpus:
        by = printed_by(e.text, function=True)
        if by is not None and by[0] in PORT_DRIVERS and by[1] == e.pci:
            return (f"a PCIe port of the same node, {e.pci}, reporting its own link; the logs do not say which "
                    "devices are below it")
    return None


def consequences(job: Job, v: Verdict, outranked: list[Evidence], others: list[Evidence]) -> str:
    """One sentence: what the failure did to the rest of the job; a node fault's `outranked` failures that no part of
    it counts are said at its end, the other ranks' own failures (`_others_failed`) that no part counts with theirs."""
    parts = []
    # the failures a part of the sentence accounts for, by id: a node fault's outranked failures it has not said are
    # said at its end (one account, so no failure the incident lists goes unsaid)
    said: set[int] = set()
    watchdog = [e for e in job.failures if e.kind in TIMEOUT_KINDS]
    # a wait for the NCCL unique id through the store whose store error is no timeout ("Connection reset by peer"):
    # the store lost, said as the line says it, not as a timeout
    reset: list[Evidence] = []
    timeouts: list[Evidence] = []
    for e in watchdog:
        if e.rank is not None:
            (reset if _store_reset(e) else timeouts).append(e)
    if reset:
        errors = list(dict.fromkeys(str(e.details["store_error"]) for e in reset))
        parts.append(f"{_ranks([e.rank for e in reset])} lost the store waiting for the NCCL unique id "
                     f"('{errors[0]}'" + (f" and {len(errors) - 1} other error(s))" if len(errors) > 1 else ")"))
    said.update(map(id, reset + timeouts))
    if timeouts:
        parts.append(_timed_out(job, timeouts))
    elif watchdog and not reset:
        parts.append("NCCL watchdog timeouts")
        said.update(map(id, watchdog))
    told_ev = [e for e in job.failures if e.kind == "barrier_timeout" and e.rank is not None
               and not e.details.get("lagging") and not e.details.get("barrier")]
    said.update(map(id, told_ev))
    told = sorted({e.rank for e in told_ev})
    if told:  # monitored_barrier's other ranks: the rank they waited on (rank 0) did not let them pass
        by = sorted({e.details["from_rank"] for e in told_ev if e.details.get("from_rank")})
        # the rank the lines name (PyTorch's "from rank 0"); SGLang's wrapper of it names none
        parts.append(f"{_ranks(told)} reached the monitored barrier and were failed "
                     + (f"with rank {', '.join(by)}" if by else "while another rank did not reach it"))
    waited_ev = [e for e in job.failures if e.kind == "barrier_timeout" and e.rank is not None
                 and e.details.get("barrier") and not e.details.get("lagging")]
    said.update(map(id, waited_ev))
    waited = sorted({e.rank for e in waited_ev})
    if waited:  # JAX's tasks that reached the coordination service's barrier and timed out there
        parts.append(f"{_ranks(waited)} reached the barrier and timed out waiting")
    # (a rank the job's own straggler report named slow is a suspect, not one known to have missed the collective)
    if v.rule == "lagging_rank" and v.rank is not None and not any(e.kind == STRAGGLER_KIND for e in v.suspects):
        parts.append(f"rank {v.rank} never reached it")
    remote = [e for e in job.failures if e.kind in PEER_KINDS]
    said.update(map(id, remote))
    if remote:
        peers = sorted({_peer_name(job, e) for e in remote if e.peer})
        parts.append(f"{len(remote)} remote/network error line(s)" + (f" naming {', '.join(peers[:4])}" if peers else ""))
    # the others the coordinator declared lost with the verdict's first (`_lost_with`): lost with it, never denied
    lost_first = v.rule == "first_rank_death" and v.root is not None and v.root.kind == "process_lost"
    lost = [e for e in v.suspects if e.kind == "process_lost" and id(e) not in said] if lost_first else []
    said.update(map(id, lost))
    if lost:
        parts.append(f"{_lost_names(lost, job)} lost with it")
    # the others it declared lost, more than SKEW after it or in another part of the job: named, never denied (a node
    # fault's outranked ones said with its other failures, at the end)
    later, after = _lost_later(job, v, said | set(map(id, outranked)))
    said.update(map(id, later))
    if later:
        parts.append(f"{_lost_names(later, job)} lost {'after it' if after else 'too'}")
    # the failures no time places against the root (`_unplaced`): counted as the reason says them, never said to have
    # come after it nor denied
    unplaced = set(map(id, v.unplaced))
    said |= unplaced
    # the verdict's witnesses: lines of ranks other than the one it names, which it read to name it and no part above
    # counts (JAX's tasks that lost the leader's coordination service, rank 0 named): said as read, never "no other
    # rank reported a failure"
    witnesses = [e for e in v.suspects if id(e) not in said and v.rank is not None and e.rank is not None
                 and e.rank != v.rank]
    said.update(map(id, witnesses))
    if witnesses:
        parts.append(_reported(witnesses))
    # the other ranks' own failures no part above counts (a second rank's CUDA error after the root's): said as read,
    # after it where each is placed after it, never "no other rank reported a failure"
    failed = [e for e in others if id(e) not in said and e.rank is not None]
    said.update(map(id, failed))
    if failed:
        parts.append(_reported(failed) + (" after it" if _all_after(v.root, failed) else ""))
    # a rank is never a consequence of itself: not the root's rank, nor a suspect's but a witness's (the death the
    # root explains, the first symptom of an undetermined job), whichever of its lines the verdict names. A node fault
    # is no rank's own failure: the exit of the rank on the faulted node (the rank its line names, a job's report of
    # the fault) is its consequence, said with the others'
    own = set() if v.rule in OUTRANKING_RULES else _own_ranks(v, set(map(id, witnesses)))
    explained = {id(e) for e in v.suspects if e.kind == "rank_exit"} | unplaced  # (unplaced: counted apart)
    ended = [e for e in job.failures if e.kind == "rank_exit"]
    exits = [e for e in ended if e is not v.root and id(e) not in explained and e.rank not in own]
    ranks = sorted({e.rank for e in exits if e.rank is not None})
    # those of the root's or a suspect's rank unsaid on purpose; beside ranks' exits, one naming no rank said apart
    said.update(id(e) for e in ended if not (ranks and e.rank is None and e in exits))
    if exits:
        parts.append(f"{_ranks(ranks) if ranks else str(len(exits)) + ' process(es)'} exited after it")
    # a node fault's: the job's other failures it outranks, those the sentence has not counted above
    unsaid_outranked = [e for e in outranked if id(e) not in said]
    if unsaid_outranked:
        listed = list(dict.fromkeys(f"{_what(e)} on {_who(e, job)}" for e in unsaid_outranked))
        more = f" and {len(listed) - 3} more" if len(listed) > 3 else ""
        parts.append(f"{len(unsaid_outranked)} failure(s) of the job after it ({'; '.join(listed[:3])}{more})")
    # the lines naming no rank no part above counts (a launcher's, Slurm's, an Event of a pod no rank is known of),
    # none the twin of a line that names one or of the verdict's (`_twins`): counted, each said by where it came from
    named = {id(e) for e in (v.root, *v.suspects, *outranked) if e is not None}
    twins = _twins(job, v)
    unranked = [e for e in job.failures if e.rank is None and id(e) not in said and id(e) not in named
                and not is_node_fault(e) and not _twin(e, twins)]
    said.update(map(id, unranked))
    if unranked:
        listed = list(dict.fromkeys(f"{_what(e)} on {_who(e, job)}" for e in unranked))
        more = f" and {len(listed) - 3} more" if len(listed) > 3 else ""
        parts.append(f"{len(unranked)} line(s) naming no rank ({'; '.join(listed[:3])}{more})")
    if v.unplaced:
        placed = "" if parts else "no other rank's failure could be placed before or after it; "
        parts.append(f"{placed}{len(v.unplaced)} {'other failure(s) ' if not placed else ''}could not be placed "
                     "in time")
    if not parts:
        return "no other rank reported a failure"
    return "; ".join(parts)


def by_group(job: Job, reports: list[Evidence]) -> dict[str | None, list[Evidence]]:
    """Watchdog reports by the process group their lines name: a SeqNum counts one group's collectives, so numbers of
    two groups are never compared nor said as one. A report's group is the one its line names ("[PG 1 Rank 0]",
    "[PG ID 2 PG GUID 5 Rank 0]"), else the one a progress line of the same rank at the same SeqNum names (the
    WorkNCCL line itself names none), else that of the only named group timed out at its SeqNum. Where the lines name
    fewer than two groups, all reports are one (key None), as they were before groups were read."""
    named = [(job.group_of(e), e) for e in reports]
    groups = {pg for pg, _ in named if pg is not None}
    if len(groups) < 2:
        return {None: list(reports)} if reports else {}
    at_seq: dict[int, set[str]] = defaultdict(set)
    for pg, e in named:
        if pg is not None and e.seq is not None:
            at_seq[e.seq].add(pg)
    out: dict[str | None, list[Evidence]] = defaultdict(list)
    for pg, e in named:
        if pg is None and e.seq is not None and len(at_seq.get(e.seq, ())) == 1:
            pg = next(iter(at_seq[e.seq]))
        out[pg].append(e)
    return dict(out)


def group_order(pg: str | None) -> tuple:
    """The order process groups are tried and said in: by number ("2" before "10"), a named one after, the reports
    of no named group last."""
    return pg is None, int(pg) if pg is not None and pg.isdigit() else 0, pg or ""


def _timed_out(job: Job, timeouts: list[Evidence]) -> str:
    """"N ranks (...) timed out in OP SeqNum X"; where the ranks timed out in different collectives, each collective
    with its own ranks, the one most ranks timed out in first ("2 ranks (2,4) timed out in ALLREDUCE SeqNum 70002,
    rank 1 in BROADCAST SeqNum 70005"): no rank is said to have timed out in a collective its own lines do not name.
    Where the lines name two process groups or more, each group's are said apart ("4 ranks (0,1,2,3) timed out:
    2 ranks (1,2) in ALLREDUCE SeqNum 808 of process group 0; 2 ranks (0,3) in ALLREDUCE SeqNum 1580 of process group
    1")."""
    def said(es: list[Evidence]) -> list[tuple[str, str]]:
        """(ranks, " in OP SeqNum X") for each collective the reports name, most ranks first (the first read wins a
        tie); the ranks whose reports name none last; where none does, all the reports' ranks, unqualified."""
        # a watchdog's "detected by watchdog at work: N" line names no op: the op another line names for that SeqNum
        op_of = {e.seq: e.op for e in reversed(es) if e.op and e.seq is not None}
        ranks: dict[tuple, dict] = {}  # (op, SeqNum) -> its ranks, in the order read
        for e in es:
            if e.op or e.seq is not None:
                ranks.setdefault((e.op or op_of.get(e.seq), e.seq), {})[e.rank] = None
        out = [(_ranks(ranks[k]), (f" in {k[0]}" if k[0] else "") + (f" SeqNum {k[1]}" if k[1] is not None else ""))
               for k in sorted(ranks, key=lambda k: -len(ranks[k]))]
        unnamed = {e.rank for e in es}.difference(*ranks.values())
        if unnamed:
            out.append((_ranks(unnamed), " in a collective no line names" if out else ""))
        return out

    groups = by_group(job, timeouts)
    if list(groups) == [None]:
        (first, words), *others = said(timeouts)
        return f"{first} timed out{words}" + "".join(f", {ranks}{words}" for ranks, words in others)
    clauses = []
    for pg in sorted(groups, key=group_order):
        where = f" of process group {pg}" if pg is not None else " (process group not named)"
        clauses.extend(f"{ranks}{words}{where}" for ranks, words in said(groups[pg]))
    return f"{_ranks([e.rank for e in timeouts])} timed out: " + "; ".join(clauses)


def _first_of(count: int, noun: str) -> str:
    """The root line as the first of `count` lines of its sort (", the first of 3 NET/IB errors"; "" for the only one):
    said after the line's own words, never bracketed around them (its words may hold brackets of their own)."""
    return f", the first of {count} {noun}" if count > 1 else ""


def _ranks(ranks: Sequence[int]) -> str:
    ranks = sorted(set(ranks))
    if len(ranks) == 1:
        return f"rank {ranks[0]}"
    # beyond 16 ranks, each run of 3 consecutive ranks or more as a range ("0-39,41,60-63"), the first 16 items
    items = list(map(str, ranks)) if len(ranks) <= 16 else _runs(ranks)
    shown = ",".join(items[:16]) + ("..." if len(items) > 16 else "")
    return f"{len(ranks)} ranks ({shown})"


def _runs(ranks: list[int]) -> list[str]:
    """Sorted ranks as runs: "a-b" for 3 consecutive ranks or more, else each rank."""
    out: list[str] = []
    start = 0
    for i in range(1, len(ranks) + 1):
        if i == len(ranks) or ranks[i] != ranks[i - 1] + 1:
            run = ranks[start:i]
            out += [f"{run[0]}-{run[-1]}"] if len(run) >= 3 else list(map(str, run))
            start = i
    return out


def _who(e: Evidence, job: Job) -> str:
    """Who wrote a line, as the reason names it: its rank and host, its local rank, its host; else its file, as the
    job names it (`Job.file_name`)."""
    host = e.host
    if host and e.details.get("host_address"):  # the line named it by its address (Job._fill)
        pod, address = e.details.get("pod"), e.details["host_address"]
        if pod and pod.rsplit("/", 1)[-1] == address:  # by its pod's name
            host = f"{host} (pod {pod})"
        else:
            host = f"{host} ({address}" + (f", pod {pod})" if pod else ")")
    if e.rank is not None:
        return f"rank {e.rank}" + (f" on {host}" if host else "")
    if e.local_rank is not None:  # a launcher's name for it on its node (torchrun's "local_rank: 3", mp.spawn's
        return f"local rank {e.local_rank}" + (f" on {host}" if host else "")  # "process 0"): no global rank guessed
    return host or job.file_name(e) or "an unnamed process"


def file_names(files: Iterable[str]) -> dict[str, str]:
    """How a job's reasons name its files (`attribute`'s `names`): a file's name alone where no other file has it, else
    its path below the directory every file is in (the directory triaged: `job/node-a/train.log` and
    `job/node-b/train.log` are `node-a/train.log` and `node-b/train.log`)."""
    files = list(dict.fromkeys(files))
    parts = {f: f.split("/") for f in files}
    base = Counter(p[-1] for p in parts.values())
    common = 0
    if files:
        first = parts[files[0]][:-1]
        while common < len(first) and all(len(p) > common + 1 and p[common] == first[common] for p in parts.values()):
            common += 1
    return {f: p[-1] if base[p[-1]] == 1 else "/".join(p[common:]) for f, p in parts.items()}


def _dead(e: Evidence, job: Job) -> str:
    """The process a death line is about: a rank (its pid), or a rank's DataLoader worker."""
    pid = f" (pid {e.pid})" if e.pid is not None else ""
    if e.kind == "worker_exit":
        named = e.rank is not None or e.local_rank is not None or e.host
        return f"{_who(e, job) if named else 'a rank'}'s DataLoader worker{pid}"
    return f"{_process(e, job)}{pid}"


def _process(e: Evidence, job: Job) -> str:
    """Who died, by a death line: `_who`, and where that is only the line's file, a process it names (never the file
    itself dead)."""
    who = _who(e, job)
    return f"a process named in {who}" if e.file is not None and who == job.file_name(e) else who


def _at(e: Evidence) -> str:
    return e.time.strftime(" at %Y-%m-%d %H:%M:%S UTC") if e.time else ""


# Triage's words a kind's `named` template (parsers/kinds.py `Kind.named`, triage/facts.py `JobKind.named`) may use
# beside the evidence's fields and details: what takes more than a field to say
NAMED_WORDS: dict[str, Callable[[Evidence], str]] = {
    "exit": lambda e: f"signal {e.signal}" if e.signal else f"code {e.exit_code}",
    "lost": lambda e: LOST_HOW.get(e.details.get("fact"), "declared dead by the job's coordinator"),
    "oom_scope": lambda e: f" ({OOM_SCOPES[scope].said})" if (scope := oom_scope(e)) else "",
    "host_memory": lambda e: _memory_what(e), "ended": lambda e: _ended_what(e), "storage": lambda e: _storage_what(e),
    "waited": lambda e: _waited(e),
    "launch": lambda e: f"pyxis: {e.details.get('what')}" if e.details.get("fact") == "pyxis_container" else
                        f"exec of {e.details.get('what')}" if e.details.get("fact") in EXEC_FACTS else
                        e.details.get("what") or f"SPANK plugin {e.details.get('plugin')} failed"}
# kind -> its `named` template, from the kind rows
NAMED = {k.name: k.named for k in (*KIND_TABLE, *JOB_TABLE) if k.named}


def _waited(e: Evidence) -> str:
    """What a barrier timeout's line says of the wait: the barrier it names, how long it waited (JAX's coordination
    service's duration, PyTorch's monitored barrier's milliseconds); "" where it says neither."""
    barrier, duration, ms = (e.details.get(k) for k in ("barrier", "duration", "timeout_ms"))
    said = []
    if barrier:
        said.append(f"barrier {barrier}")
    if duration or ms:
        said.append(f"after {duration}" if duration else f"after {ms} ms")
    return f" ({'; '.join(said)})" if said else ""


def named(e: Evidence) -> str | None:
    """The line named by its kind's template (NAMED, parsers.kinds `named_as`): `{field}` an Evidence field or a
    NAMED_WORDS word, `{details.key}` a detail, `{..|default}` the default where the value is missing or empty; None:
    no template (or none of a kind's alternatives the line has)."""
    return named_as(NAMED.get(e.kind, ""), e, NAMED_WORDS)


# A storage error on /dev/shm (NCCL's shared-memory segment: a line of NCCL's shared-memory code the parsers leave to
# NCCL's warning, the segment's line torch quotes; any write the line says was to /dev/shm; an error raised making one
# of Python's shared-memory objects, triage.read SHM_FRAME's detail "on") is the pod's
# shared-memory size (Docker's 64 MB default, a pod without a memory-backed emptyDir there) or a node's /dev/shm full:
# the failure the parsers' kind shm_full is (parsers/kinds.py; its row the one declaration), named by its wording and
# of its category, whichever reader read the line
SHM_KIND = "shm_full"
SHM_STORAGE = KIND[SHM_KIND].wording


def _storage_what(e: Evidence) -> str:
    """A file system's refusal: /dev/shm's (SHM_STORAGE), else the error its line gives."""
    if e.details.get("fact") == "nccl_shm_create" or e.details.get("on") == "/dev/shm" or \
            SHM_LINE.search(e.text or ""):
        return SHM_STORAGE
    what = e.details.get("what")
    driver = str(e.details.get("store_driver") or "")  # TensorStore's kvstore driver (facts' object_store_throttled)
    if driver:
        what = f"{what}, {'GCS' if driver.startswith('gcs') else driver.upper()} via TensorStore's {driver} driver"
    return f"storage error ({what})" if what else "storage error"


def _ended_what(e: Evidence) -> str:
    """A job's end by its scheduler; a pod Kubernetes ended (facts.POD_ENDS): the pod, and who ended it and why."""
    end = POD_ENDS.get(e.details.get("pod_end"))
    if end is None:
        return f"job ended ({e.details.get('why') or 'cancelled'})"
    pod = _pod_name(e)
    return f"{'pod ' + pod if pod else 'a pod'} {end.ended} ({e.details.get('pod_reason') or e.details['pod_end']}: " \
           f"{end.said})"


def _memory_what(e: Evidence) -> str:
    if not uncorrected_memory(e):
        return "host memory error"
    signalled = f" (the kernel signalled {e.details.get('process') or 'pid'}:{e.pid})" if e.pid is not None else ""
    return "uncorrected host memory error" + signalled


def _what(e: Evidence) -> str:
    if ibv_call_category(e) is not None:  # the verbs call that failed and its error
        return f"NCCL's {e.details['ibv_call']} failed ({e.details.get('ibv_error') or 'no error said'})"
    said = named(e)
    return said if said is not None else KIND_WORDING.get(e.kind) or e.kind.replace("_", " ")
