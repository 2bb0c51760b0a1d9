"""Job-level lines the parsers leave alone: a table of what launchers and frameworks print when a rank dies, a
collective stalls or the scheduler ends a job, and the NCCL INFO lines that map addresses and ranks to hosts.

One row per format (name, kind, keywords, regex); the named groups fill Evidence fields (`rank`, `local_rank`,
`host`, `seq`, `last_enqueued`, `last_completed`, `exit_code`, `signal`, `address`, `pid`) and the rest go to
details.  Node faults, NCCL watchdog timeouts, remote errors, CUDA errors and OOM kills stay the parsers' (a row
here never duplicates one there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from parsers.classify import pg_name
from parsers.kinds import CONDITIONS as OWN_CONDITIONS, TABLE as KIND_TABLE, TAINT_PREFIX
from parsers.rules import NCCL_WARN_AT


@dataclass(frozen=True, slots=True)
class JobKind:
    """A kind triage adds to parsers.KINDS, with the kind table's triage fields (parsers/kinds.py `Kind`:
    `category`, `consequence`, `restarts`, `teardown`, `hang`, `timed_out`, `named`) and its own."""
    name: str
    doc: str
    category: str | None = None  # one of parsers.kinds.CATEGORIES; None: never a root by its kind alone
    consequence: bool = False  # what a failure elsewhere makes a healthy rank print
    aftermath: bool = False  # after the job already failed, its end, not its cause (a scheduler, a launcher)
    context: bool = False  # never evidence of its own: a map, a rank seen, the job's statement of its success
    # NCCL's line mapping ranks and addresses to hosts: read into the job's maps (triage.attribute Job: a split
    # communicator numbers its ranks from 0 again), never a rank seen on the host it names
    maps: bool = False
    restarts: bool = False  # parsers/kinds.py `Kind.restarts`: a first failure of it, cascading recovery's to restart
    teardown: bool = False  # parsers/kinds.py `Kind.teardown`: what a process group's teardown prints (triage.teardown)
    hang: bool = False  # parsers/kinds.py `Kind.hang`: what a collective or barrier that never completed prints
    timed_out: bool = False  # parsers/kinds.py `Kind.timed_out`: a rank's own watchdog report of a timed-out collective
    # parsers/kinds.py `Kind.named`: how a line of it is named in a job's reason ("": its name; a tuple: alternatives)
    named: str | tuple[str, ...] = ""
    # a process of the job ended (one of DEATHS; "": no death): explained as a rank's death is (triage.attribute
    # DEATH_KINDS)
    death: str = ""
    # whom the line's rank, host and pid are (one of ABOUTS): its writer's, whose prefix wins; another process's (a
    # launcher's line about the process that died, the job it ended); or only another's, never its writer's
    about: str = "writer"
    # a traceback's exception may state it (its message the fact's line): read as the fact, the exception's type kept
    # (triage.read; was: an exception, blamed on the application)
    raised: bool = False
    # a finished job's end by another's hand where a signal that asks a process to stop ended it (triage.teardown
    # ENDED_KINDS, ENDED_SIGNALS): after its file stated the job's success, no failure
    ended: bool = False
    # the job's own decision to stop (its straggler detection: stop_if_detected): a first failure by itself, with no
    # category or death, decided by the reports before it (triage.attribute STOP_KINDS, `_straggler_stop`)
    stop: bool = False


# What ended (JobKind.death): "rank": a rank's own process, named as the rank; "process": a process that is not a rank
# as such (a rank's DataLoader worker, a process or node the job's coordinator declared dead), named with its pid
DEATHS = ("rank", "process")
# Whom a job fact's line is about (JobKind.about): its writer (its prefixes name it) | another process, whose rank, host
# and pid the line names (a launcher's, a scheduler's line) | only another: who wrote it (the coordinator, Ray's
# driver, its prefix) is never the process it names; where the line names no host / rank / pid, it has none
ABOUTS = ("writer", "another", "only_another")


# Kinds triage adds to parsers.KINDS.  Add kinds, never rename them.
JOB_TABLE: tuple[JobKind, ...] = (
    JobKind("rank_exit", "a rank's process ended with an exit code or a signal", aftermath=True,
            named="exit ({exit})", death="rank", about="another", raised=True, ended=True),
    JobKind("exception", "a rank raised an exception that is not itself a consequence of another rank's failure",
            "application", restarts=True, named="{details.exception|exception}"),
    JobKind("nccl_progress", "PyTorch's watchdog: the collective it timed out at and the last enqueued / completed "
            "work", consequence=True, teardown=True, hang=True, timed_out=True),
    JobKind("nccl_dump", "PyTorch's flight recorder: a collective timed out (on this rank or another) and this rank "
            "was told to dump; its last enqueued / completed work in the process group it names", consequence=True, teardown=True,
            hang=True),
    JobKind("nccl_hang", "PyTorch's heartbeat monitor: the watchdog itself made no progress (a stuck CUDA call or "
            "GPU)", consequence=True, teardown=True, hang=True),
    JobKind("job_ended", "the scheduler ended the job or a step (cancelled, time limit, preempted, node failure, "
            "evicted)", "infrastructure", aftermath=True, named="{ended}", about="another", ended=True),
    # a consequence, but for a store's count of ranks apart, the job's cause (attribute.STORE_COUNTS): its gang cannot
    # form (facebookresearch/metaseq #52: such jobs "continue to stay alive")
    # named by what its rows' groups say: the counts the store waited for (store_join's), the store's address a
    # client never reached (store_connect_timeout's), the error's own words (`what`); else "store error"
    # raised: the exception a traceback ends with states it, by its message or its type alone (torchelastic's bare
    # "torch.distributed.elastic.rendezvous.api.RendezvousClosedError", pytorch/pytorch #116974; a DistStoreError's
    # counts): the store's, not an exception of the application (was: pytorch/pytorch #116974's agents "APPLICATION")
    JobKind("store_error", "the rendezvous / TCPStore connection failed", "infrastructure", consequence=True, teardown=True,
            restarts=True, raised=True, named=("store timeout ({details.store_joined} of {details.store_expected} ranks joined)",
                                  "store error '{details.what}' (store {details.store_host}:{details.store_port})",
                                  "store error '{details.what}'")),
    # the job's network could not be set up at its start, by what the line says (not a consequence of another's
    # failure, nor any node's hardware): the store's address did not resolve (Kubernetes' DNS record of a headless
    # Service not there yet, a wrong name), the store's port was already taken on its host (another job, a hostNetwork
    # pod, an earlier attempt's process), NCCL found no socket interface in the pod (NCCL_SOCKET_IFNAME naming none it
    # has, a network attachment missing).  The job's or the cluster's configuration, or a race at its start
    JobKind("network_setup", "a rank could not set up the job's network at its start: the rendezvous / store address "
            "did not resolve (DNS), the store's port was already in use on its host, NCCL found no socket "
            "interface in the pod, or SGLang's decode server could not reach the prefill's bootstrap server (refused, "
            "unresolved, no port): the job's or the cluster's configuration (or a race at start), not a node's "
            "hardware", "infrastructure", raised=True,
            named=("network setup: NCCL_NET's network '{details.nccl_net}' not found in the pod (its RDMA devices or "
                   "plugin not there)",
                   "network setup: {details.unresolved}: {details.what} ({details.resolver_error}), then "
                   "'{details.store_what}'",
                   "network setup: {details.unresolved}: {details.what} ({details.resolver_error})",
                   "network setup: {details.what} (port {details.store_port}: {details.store_error})",
                   "network setup: {details.what} ({details.store_error})",
                   "network setup: {details.what}")),
    # c10d's resolver that could not look the store's address up, while its client retries until its timeout (the
    # retried lookups' warnings): no failure by itself (the record may appear and the client connect), the cause of
    # a store error to the same address after it in the same file (triage.attribute Job._unresolved)
    JobKind("store_unresolved", "c10d's client could not look the store's address up (getaddrinfo failed) and retried: "
            "no failure by itself (the address may resolve and the client connect); a store error to the same address "
            "after it in the same file is the job's network not set up (network_setup: the address never resolved)",
            context=True),
    JobKind("storage_error", "a file system refused a write (no space left, I/O error)", "infrastructure", raised=True,
            named="{storage}"),
    # the pod's or node's configuration, not the GPU nor the program's code: the same job runs where the limit is
    # raised (verl-project/verl #719: raising the pids limit fixed #472's crash)
    JobKind("resource_limit", "a process of the job was refused a thread or an open file by a limit its pod or node "
            "sets (the pids cgroup's limit or ulimit -u; ulimit -n): details `what` names which",
            "infrastructure", raised=True, named="{details.what|resource limit}"),
    JobKind("disk_pressure", "a node's local disk the job's runtime spills to is nearly full (Ray's raylet: object "
            "creation will fail if spilling is required): a warning, no failure; it explains a later object store "
            "failure on that node (triage.attribute DISK_PRESSURE_EXPLAINS)"),
    JobKind("launch_error", "a task could not be started on its node: its container did not start (Slurm's pyxis / "
            "enroot), a required SPANK plugin failed, or Slurm could not launch it there: the rank's program never "
            "ran", "infrastructure", named="task not started ({launch})"),
    JobKind("agent_signal", "the launcher itself was told to stop by a signal from outside", "infrastructure",
            aftermath=True, ended=True),
    JobKind("nccl_address", "NCCL's own address on a host (maps a peer address to a host)", context=True, maps=True),
    JobKind("nccl_rank", "NCCL's communicator line: which rank a host:pid is, and the job's size", context=True,
            maps=True),
    # named by what its rows' groups say: PyTorch's two ranks and the first one's op, the flight recorder's error type,
    # NCCL's rank it points at; else "collective mismatch".  PyTorch's two calls differ in any aspect, often the same op
    # with other shapes (both real cases: SPA-VL-RLHF #2's BROADCASTs, ms-swift #9443's ALLREDUCEs): "unlike", never
    # "another collective".  Raised: a wrapper's traceback may end with the check's words (SGLang's "Exception: Capture
    # cuda graph failed: Detected mismatch ..", sgl-project/sglang #16237; was: an exception, the mismatch not read)
    JobKind("collective_mismatch", "ranks called different collectives (op, size, order): the program's own bug",
            "application", raised=True, named=("collective mismatch (rank {details.first_rank}'s {details.op} unlike rank "
                                  "{details.other_rank}'s)",
                                  "collective mismatch (rank {details.first_rank} running {details.op})",
                                  "collective mismatch ({details.error_type})",
                                  "collective mismatch (NCCL: at or around rank {details.around_rank})")),
    JobKind("worker_exit", "a rank's worker process (PyTorch's DataLoader worker) was killed by a signal, the rank's own "
            "report of it: explained as a rank's death by that signal is",
            named="DataLoader worker killed (signal {signal})", death="process", about="another", raised=True),
    JobKind("nonfinite_result", "a rank's own check found a NaN or Inf in its loss or gradients and stopped the job "
            "(Megatron's check_for_nan_in_loss_and_grad, every era): the training's numerics diverged (data, learning "
            "rate, a kernel): the application's, never the node's unless a rerun on another GPU says so", "application",
            raised=True,
            # the check's own message (the rerun state machine's `check`; the assert's "found NaN in local <where>")
            named=("non-finite result ('{details.check}')",
                   "non-finite result ('found {details.result} in local {details.where}')",
                   "non-finite result ({details.result})")),
    # the job's own rerun of the step whose result its check rejected (Megatron-LM's rerun state machine,
    # --rerun-mode validate_results): its verdict on a non-finite result of the same rank (triage.attribute
    # `_rerun_said`).  Not reproduced on the same GPU: a transient fault of that GPU; reproduced there but not on
    # another GPU: a persistent fault of the first GPU (silent data corruption), the one its first rerun named (the
    # line of the verdict names the other GPU, where it was rerun: never its host nor device); reproduced on another
    # GPU too: the application's numerics.  Alone (no non-finite result read) it is no failure
    JobKind("rerun_verdict", "the job's own rerun of a step whose result its check rejected (Megatron-LM's rerun "
            "state machine): \"Possible transient error!\" (not reproduced on the same GPU: a transient fault of that "
            "GPU), \"Possible persistent error!\" (reproduced on the same GPU, not on another: a fault of the first "
            "GPU, silent data corruption), \"Correct result\" (reproduced on another GPU: the application's), or the "
            "first rerun's reproduced result pending a rerun on another GPU; it decides the rank's non-finite result's "
            "category (triage.attribute `_rerun_said`)", about="only_another",
            named="{details.what}"),
    # the program's own check of its command line, before it did any work (Python's argparse: its usage, then
    # "<prog>: error: <message>", exit code 2; absl's "FATAL Flags parsing error: ..", exit code 1; Python Fire's
    # "ERROR: Could not consume arg: ..", exit code 2): the launcher and the script disagree on its arguments (torchrun
    # and torch.distributed.launch 2.0+ pass `--local-rank=N` where the script declares `--local_rank`), or the job's
    # command is wrong: the application's, never the node's.  absl and Fire name no program
    JobKind("argument_error", "a rank's program rejected its command line (Python's argparse: \"<prog>: error: "
            "unrecognized arguments: ..\", \"the following arguments are required: ..\", \"argument X: invalid .. "
            "value\", exit code 2; absl's \"FATAL Flags parsing error: Unknown command line flag ..\", exit code 1; "
            "Python Fire's \"ERROR: Could not consume arg: ..\", exit code 2): the launcher and the script disagree on "
            "its arguments (torchrun's `--local-rank` where the script declares `--local_rank`), or the job's command "
            "is wrong; the program never ran (Fire's: or its function ran and arguments were left over)",
            "application", named=("command line rejected by {details.prog} ('{details.rejected}')",
                                  "command line rejected ('{details.rejected}')")),
    JobKind("straggler_stop", "the job's own straggler detection stopped it (stop_if_detected: nvidia-resiliency-ext's "
            "Lightning callback, Megatron-Bridge's manager): the ranks its report before it named are the suspects, the "
            "ranks' exits after it its consequences (triage.attribute `_straggler_stop`)",
            named="stop by the job's straggler detection", stop=True),
    JobKind("rank_seen", "a rank wrote to the logs read (one per rank and file): a rank that reported no timeout is "
            "seen", context=True),
    JobKind("process_lost", "the job's coordinator declared a process or node of it dead (JAX's coordination service: "
            "a task's heartbeats stopped; Ray's GCS: a node's heartbeats stopped or its raylet was terminated): it "
            "crashed, hung, was preempted or lost the network; the line names which, never why", aftermath=True,
            named="{lost}", death="process", about="only_another"),
    JobKind("barrier_timeout", "PyTorch's monitored_barrier timed out: rank 0 names the ranks that did not reach it, "
            "the others were told to read rank 0's log", consequence=True, teardown=True, hang=True, raised=True,
            named="{details.what|barrier} timeout{waited}"),
    JobKind("ras_behind", "NCCL's RAS report (`ncclras`, 2.24+) of a communicator whose ranks launched different counts "
            "of an operation (MISMATCH): a rank behind the count most of them launched; alone no failure (RAS samples "
            "collectives in flight, NCCL's guide: not a concern while the counts advance), in a job that hung its "
            "lagging rank (triage.attribute _lagging_rank)", context=True, about="only_another"),
    JobKind("job_success", "the job stated its own success (MLPerf's run_stop with status success, Megatron's "
            "\"[after training is done]\", Lightning's Trainer.fit stopped at max_epochs / max_steps, ms-swift's \"End time of "
            "running main\", Hugging Face Trainer's \"***** train metrics *****\" after the script's save, torchtitan's "
            "\"Training completed\", torch.distributed.elastic's \"Done waiting for other agents\" after every agent's "
            "group succeeded): the communicator "
            "errors its file prints after it are its teardown, not a failure (triage.teardown)", context=True),
    JobKind("pod_hostname", "a pod `kubectl logs --prefix` named is the host a prefix inside its lines names (NCCL's, "
            "torchrun's), the pod's name that hostname and a suffix Kubernetes generated (an Indexed Job's, a "
            "JobSet's pod: triage.ranks hostname_of_pod): the job names the pod's lines by its hostname",
            context=True),
    JobKind("pod_started", "the kubelet started a container of a pod (its Started Event): the pod ran, so a pod end "
            "that says it never started (a volume it could not mount, an image it could not pull, then retried) is no "
            "failure of it (triage.attribute Job.ran)", context=True),
    JobKind("queue_admitted", "Kueue admitted a workload (its Admitted Event, the job's Started Event \"Admitted by "
            "clusterQueue ..\"): a preemption Kueue said before it in the same Events is one the queue requeued and "
            "admitted again, no failure of the job (triage.attribute Job.readmitted)", context=True),
    JobKind("pod_not_ready", "the node controller marked a pod not ready, its node's Ready condition no longer True "
            "(its NodeNotReady Event): the taint manager's deletion of that pod after it is for its node not ready "
            "(triage.attribute Job.not_ready)", context=True),
    JobKind("node_driver_upgrade", "the NVIDIA GPU Operator's driver upgrade controller moved a node to a state that "
            "evicts its pods (its GPUDriverUpgrade Event: pod-deletion-required, drain-required, or its pods deleted "
            "for the driver upgrade): the Eviction API's eviction of a pod on that node is the upgrade's "
            "(triage.attribute Job._refined)", context=True),
    JobKind("node_disruption", "Karpenter began disrupting a node (its DisruptionTerminating Event, \"Disrupting Node: "
            "<reason>\": consolidation, drift, expiry): the Eviction API's eviction of a pod on that node after it is "
            "Karpenter's (triage.attribute Job._refined)", context=True),
    JobKind("node_spot_interruption", "aws-node-termination-handler or Karpenter received a spot interruption notice "
            "of a node (NTH's SpotInterruption Event, \"Spot ITN received. Instance will be interrupted at ..\"; "
            "Karpenter's SpotInterrupted, \"Spot interruption warning was triggered\"): the Eviction API's eviction "
            "of a pod on that node after it, Karpenter's own too, is its cordon and drain before the cloud reclaims "
            "the VM (triage.attribute Job._refined)", context=True),
)
JOB_KINDS = {k.name: k.doc for k in JOB_TABLE}


# Kinds whose lines a launcher or scheduler prints about another process (the one that died, the job it ended):
# the rank, host and pid in the line are that process's, whatever prefix the launcher's own line carries (the rows'
# `about`)
ABOUT_ANOTHER = frozenset(k.name for k in JOB_TABLE if k.about != "writer")
# Kinds whose line is about another process only: who wrote it is never the process it names
ONLY_ANOTHER = frozenset(k.name for k in JOB_TABLE if k.about == "only_another")
# Facts whose line names its reporter, never the process or node it is about (as ONLY_ANOTHER's kinds, for these rows
# and reasons): Slurm's cancellation for a node failure, printed by a node that survived it
REPORTER_ONLY = {"slurm_cancelled": frozenset({"NODE FAILURE"})}


def reporter_only(fact: "Fact", groups: dict) -> bool:
    """Whether the fact's line names only its reporter (REPORTER_ONLY): its writer and the host it names are not
    the node the fact is about."""
    whys = REPORTER_ONLY.get(fact.name)
    return whys is not None and groups.get("why") in whys


# Kinds a traceback's exception may state (its message the fact's line): read as the fact, the exception's type kept.
# A file system's refusal is one: Python prints the failed write or read as the traceback's last line ("OSError:
# [Errno 28] No space left on device", "[rank3]: OSError: [Errno 5] Input/output error: '/app/naifu555'", torch's
# "RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data.pkl: file
# write failed"), the storage's failure, not the program's (was: an exception, blamed on the application).
# Megatron's NaN / Inf check raises its finding too (AssertionError before its rerun state machine, RuntimeError with
# reruns disabled): the rank's non-finite result, its node and device in the words.
EXCEPTION_FACTS = frozenset(k.name for k in JOB_TABLE if k.raised)  # the rows' `raised`


@dataclass(frozen=True, slots=True)
class Fact:
    name: str
    kind: str
    keywords: tuple[str, ...]
    pattern: re.Pattern
    severity: str = "error"
    # the reason a job_ended fact's line implies without a "why" of its own to read (details "why", upper case as the
    # JobEnded Event words it; the incident's "job ended (<why>)")
    why: str | None = None
    # the one word a fact's line gives for its error whatever its wording (details "what"; the Event's "error")
    what: str | None = None
    # the category its lines take where it is not their kind's (one of parsers.kinds.CATEGORIES): a launch that failed
    # on the job's own program or request, not on its node (triage.attribute category_of)
    category: str | None = None


def _f(name, kind, keywords, pattern, severity="error", flags=0, why=None, what=None, category=None) -> Fact:
    return Fact(name, kind, tuple(keywords), re.compile(pattern, flags), severity, why, what, category)


# A rejected result as Megatron's rerun state machine prints it (f"{result}"): a float or a 0-dim tensor's repr
_NONFINITE = r"(?:tensor\()?(?P<result>-?(?:nan|inf))(?:, [^()\n]{0,200}\))?"
# The rank, node and device the rerun state machine's log_failure names before its verdict (the megatron_rerun_* rows):
# the fact's own host and device, or (`rerun_`) the other GPU the job was rerun on
_RERUN_RANK = (r"\bRank (?P<rank>\d+), node (?P<{host}>[^\s,]+), device (?P<{gpu}>\d+)"
               r"(?:, iteration #?(?P<iteration>-?\d+))?: ")
_RERUN_ON, _RERUN_ELSEWHERE = (_RERUN_RANK.format(host=f"{p}host", gpu=f"{p}gpu") for p in ("", "rerun_"))
FR_MISSING_LINE = "fr_missing_line"  # the flight recorder analyser's first era's row (FR_MISSING_FACTS)
# A Kubernetes object's name (a DNS subdomain: a pod's, a node's) and a namespace's (a DNS label), as the k8s rows read
_K8S_NAME, _K8S_NS = r"[a-z0-9][-a-z0-9.]{0,252}", r"[a-z0-9][-a-z0-9]{0,62}"


def _event_row(reason: str, obj: str, group: str, gap: int = 400) -> str:
    """An Event's row up to its message: `kubectl get events`' ("<type> <reason> <obj>/<name> <message>", the name read
    as `group`) or describe's Events table's ("<type> <reason> <age> <from> <message>", no object); `reason` a regex
    (its type before it or not), at most `gap` characters (the age, the source) between it and the message."""
    return rf"\b{reason}\s+(?:{obj}/(?P<{group}>{_K8S_NAME})\s+)?(?:[^\n]{{0,{gap}}}?\s)?"


# The job's ends (details "why") that are an OOM kill, and whose memory it says ran out (parsers.kinds.OOM_SCOPES, whose
# category the job's failure takes): Slurm's step cgroup ("Detected N oom-kill events in StepId=..": the step's own
# memory limit, --mem) and a container Kubernetes reports OOMKilled (its cgroup's limit; the kubelet's node-pressure
# eviction is "Evicted", POD_ENDS).
WHY_OOM = {"OUT OF MEMORY": "cgroup", "OOMKilled": "cgroup"}
# Kueue's preemption of a workload, its words after "Preempted " (pkg/scheduler/preemption/preemption.go: "Preempted to
# accommodate a workload (UID: ..) due to prioritization in the ClusterQueue", ".. in the ClusterQueue", ".. due to
# reclamation within the cohort"; an older "Preempted to accommodate a higher priority Workload"): the k8s_ended row
# reads it a preemption, and a Kueue admission after it in the same Events (the kueue_admitted row) the queue's requeue
# (triage.attribute Job.readmitted)
QUEUE_PREEMPTED = r"to accommodate a (?:workload|higher priority [Ww]orkload)\b"
QUEUE_PREEMPTION = re.compile(r"\bPreempted " + QUEUE_PREEMPTED)


# ---- a pod Kubernetes itself ended ------------------------------------------------------------------------------
# The pod-level reasons Kubernetes gives when it, not the job, ended a pod: the pod's status.reason (the kubelet's
# node-pressure eviction, the node controller's NodeLost, graceful node shutdown, an admission the device plugin
# refused) and its DisruptionTarget condition's reason (KEP-3329, 1.26+: the scheduler's preemption, the taint manager,
# the Eviction API, the pod GC, the kubelet).  One table for offline triage (the k8s_ended row reads the reasons in
# kubectl's output) and the live cluster component (cluster/evidence.py reads them off the pod's status); evidence of
# kind job_ended, details "pod_end" its key, "why" its words.  In a gang job the other ranks then time out in NCCL:
# the pod and why Kubernetes ended it are the root, not a rank's death nothing explains.


@dataclass(frozen=True, slots=True)
class Gang:
    """Whose a pod's failure is where the gang decides it (triage.attribute's gang rule): confined to some of the job's
    nodes (or pods) while its other pods ran, those nodes' (`confined`, what on them `node`); every pod of the job
    that says anything failing alike, the workload's (the PodEnd's category, what of it `workload`)."""
    confined: str  # the category where only some of the job's nodes (or pods) failed so
    node: str  # what of a node it then is, in the incident's reason
    workload: str  # what of the workload it is where every pod failed alike


@dataclass(frozen=True, slots=True)
class PodEnd:
    why: str  # the fact's reason (details "why"), upper case as the JobEnded Event words it (LiveFact job_ended)
    category: str  # the incident's category (triage.attribute category_of)
    said: str  # who ended the pod and why, in the incident's reason
    # cascading recovery (cluster/recovery.py) restarts the gang: its member is gone for its node's sake (pressure,
    # loss, shutdown, a fault taint, a device plugin), no one's decision; a preemption, a drain, the pod GC are a
    # scheduler's or an operator's, whose own controller deals with the job
    restart: bool
    # whose it is where only some of the job's nodes saw it while its other pods ran (triage.attribute's gang rule):
    # an image one node could not pull, a volume one node could not mount, is that node's; the image or volume every
    # pod failed on the job's spec; None: `category` wherever it happened
    gang: Gang | None = None
    # what became of the pod, in the incident's reason ("pod X <ended> (<reason>: <said>)", `said` holding no
    # bracket of its own: the reason's one bracket is its whole): a pod the kubelet could not pull the image of, or
    # admit, never started
    ended: str = "ended by Kubernetes"
    # only a Warning Event of this reason says it: the pod waits in ContainerCreating and its status says nothing more
    # (EVENT_ENDS, the Events the live cluster component watches)
    event_only: bool = False


NEVER_STARTED = "never started"
_NODE_SHUTDOWN = PodEnd("NODE SHUTDOWN", "infrastructure", "its node shut down, the kubelet's graceful node shutdown "
                        "terminating it", True)
_PREEMPTED = PodEnd("PREEMPTION", "infrastructure", "the scheduler preempted it for a pod of higher priority", False)
_IMAGE_PULL = PodEnd("IMAGE PULL", "application", "the kubelet could not pull its container image", False,
                     gang=Gang("infrastructure", "registry reach, disk or credentials",
                               "its image's name, tag or registry access"), ended=NEVER_STARTED)
# the kubelet could not mount (or the attach-detach controller attach) a volume of the pod, which never started: a
# hostPath whose type check failed ("hostPath type check failed: /dev/dmabuf_import_helper is not a character
# device", GoogleCloudPlatform/ai-infra-cluster-provisioning #382), a CSI driver not registered on the node ("driver
# name .. not found in the list of registered CSI drivers"), storage that would not attach
_VOLUME = PodEnd("VOLUME MOUNT", "application", "the kubelet could not mount a volume of it", False,
                 gang=Gang("infrastructure", "a device, directory or CSI driver it lacks, or storage it cannot reach",
                           "its volumes' spec: a host path, claim or driver its nodes do not have"),
                 ended=NEVER_STARTED, event_only=True)
_HOST_PORTS = PodEnd("HOST PORTS", "infrastructure", "the kubelet refused it on its node, a host port it asks "
                     "already bound there", False, ended=NEVER_STARTED)
OUT_OF_NODE_KEY = "outof:node"  # the kubelet short of a node resource, "OutOfcpu" (POD_ENDS' key below)
KARPENTER_EVICTED = "evict:Karpenter"  # Karpenter's eviction of a pod, disrupting its node (POD_ENDS' key below)
SCALE_DOWN_EVICTED = "evict:cluster-autoscaler"  # cluster-autoscaler's, scaling its node down (POD_ENDS' key below)
SPOT_RECLAIM = "SpotInterruption"  # the cloud reclaiming a spot VM (POD_ENDS' key below)
NODE_TERMINATION = "NodeTermination"  # GCE terminating a VM, GKE's node termination handler's word (POD_ENDS)
POD_ENDS: dict[str, PodEnd] = {
    # status.reason
    "Evicted": PodEnd("NODE PRESSURE", "infrastructure", "the kubelet evicted it, a node-pressure "
                      "eviction: its node ran low on a resource", True),
    "NodeLost": PodEnd("NODE LOST", "infrastructure", "the node controller lost its node, unresponsive", True),
    "Terminated": _NODE_SHUTDOWN, "Shutdown": _NODE_SHUTDOWN, "NodeShutdown": _NODE_SHUTDOWN,
    "UnexpectedAdmissionError": PodEnd("ADMISSION ERROR", "infrastructure", "the kubelet could not admit it on its "
                                       "node, the device plugin refusing its devices", True, ended=NEVER_STARTED),
    # the kubelet's topology manager (a `restricted` or `single-numa-node` policy) found no NUMA-aligned allocation of
    # the devices and CPUs the pod asked for, and refused it (pkg/kubelet/cm/topologymanager: status.reason
    # "TopologyAffinityError", message "Resources cannot be allocated with Topology locality"; 1.16's reason "Topology
    # Affinity Error" as `kubectl get pods` prints it, kubernetes/kubernetes #84869): the node's free GPUs spread over
    # its NUMA nodes by the NUMA-blind scheduler's earlier placements (pytorch/ci-infra #696: a p5.48xlarge's 4-GPU pod
    # refused four times in 90 s, the pool's small runners on both sockets).  The pod never ran; its controller
    # recreates it (the scheduler places it on the same node again until it fits: no cascading restart helps)
    "TopologyAffinityError": PodEnd("TOPOLOGY AFFINITY", "infrastructure", "the kubelet's topology manager could not "
                                    "allocate the devices and CPUs it asked for within one NUMA node of its node, "
                                    "the node's free GPUs spread over its NUMA nodes", False, ended=NEVER_STARTED),
    # the kubelet's admission refusing a pod its node's labels no longer select (pkg/kubelet/lifecycle
    # predicate.go, 1.20+: status.reason "NodeAffinity", message "Pod Predicate NodeAffinity failed", later "Pod was
    # rejected: Predicate NodeAffinity failed"; kubernetes/kubernetes #93338, #109663, longhorn/longhorn #6930): the
    # node relabelled between the scheduler's placement and the kubelet's admission (a label the kubelet had not yet
    # seen, #93338; on a GPU node the GPU Operator's or GPU feature discovery's labels, nvidia.com/gpu.present, taken
    # away while its driver restarts).  The node's labels, not the job's: the pod never ran, its controller recreates
    # it where the labels match (no cascading restart)
    "NodeAffinity": PodEnd("NODE AFFINITY", "infrastructure", "the kubelet refused it on its node, whose labels no "
                           "longer matched its node selector or affinity: the node relabelled after the scheduler "
                           "placed it", False, ended=NEVER_STARTED),
    # the kubelet's other admission predicates (pkg/kubelet/lifecycle predicate.go, the scheduler's filters run again on
    # the node): a host port the pod asks already bound there (status.reason "NodePorts", 1.18+; "PodFitsHostPorts"
    # before: "Reason: PodFitsHostPorts", "Message: Pod Predicate PodFitsHostPorts failed", kubernetes/kubernetes
    # #60726, a prow pod), its node tainted NoExecute after the scheduler placed it (1.22+, PR #101218: "Pod was
    # rejected: Predicate TaintToleration failed", cilium/cilium #43872, an EKS node not yet ready).  The node's state
    # between the scheduler's placement and the kubelet's admission, not the job's: the pod never ran, its controller
    # recreates it (no cascading restart)
    "NodePorts": _HOST_PORTS, "PodFitsHostPorts": _HOST_PORTS,
    "TaintToleration": PodEnd("UNTOLERATED TAINT", "infrastructure", "the kubelet refused it on its node, tainted "
                              "NoExecute after the scheduler placed it: not ready, unreachable, a fault taint", False,
                              ended=NEVER_STARTED),
    # the kubelet's admission short of a node resource the scheduler counted free (status.reason "OutOf<resource>",
    # "OutOfcpu", "OutOfmemory", "OutOfpods"; message "Pod was rejected: Node didn't have enough resource: cpu,
    # requested: 150, used: 11388, capacity: 11500", red-hat-storage/ocs-ci #12362; neondatabase/autoscaling #374):
    # the scheduler's and the kubelet's counts apart (pods that had just ended still counted, kubernetes/kubernetes
    # #106884, #115325) or a pod bound by spec.nodeName past the scheduler (#134712).  The node's accounting, not the
    # job's nor its GPUs' (an extended resource's, a device plugin's, is OutOfDevices): the pod never ran
    OUT_OF_NODE_KEY: PodEnd("OUT OF NODE RESOURCES", "infrastructure", "the kubelet could not admit it on its node, "
                            "short of the CPU, memory or pod slots the scheduler counted free", False,
                            ended=NEVER_STARTED),
    "OutOfDevices": PodEnd("OUT OF DEVICES", "infrastructure", "the kubelet could not admit it on its node, which had "
                           "fewer devices than the scheduler counted: a device plugin lost some", True,
                           ended=NEVER_STARTED),
    "Preempted": _PREEMPTED,
    # the time limit its owner set, spent: the pod's own activeDeadlineSeconds (the kubelet: status.reason
    # "DeadlineExceeded", "Pod was active on the node longer than the specified deadline", pkg/kubelet/active_deadline.go)
    # or its Job's (the Job controller's condition and Event: "Job was active longer than specified deadline",
    # pkg/controller/job/job_controller.go).  As Slurm's DUE TO TIME LIMIT (triage.attribute SLURM_ENDS): the job ran
    # slower than planned, hung, or was given too little time; the application's, no node's fault
    "DeadlineExceeded": PodEnd("DEADLINE EXCEEDED", "application", "its activeDeadlineSeconds ran out, the time limit its "
                               "owner set, enforced by the kubelet or the Job controller", False),
    # the cloud reclaimed the spot / preemptible VM under the pod: AWS's two-minute spot interruption notice, as
    # aws-node-termination-handler ("Kind":"SPOT_ITN" .. "NodeName") and Karpenter (its interruption controller's
    # "messageKind": "SpotInterruptionKind" / "spot_interrupted" naming the node, its node Event SpotInterrupted
    # "Spot interruption warning was triggered") say it; Azure's, a Spot VM's Preempt scheduled event as AKS's
    # node-problem-detector words its node condition (VMEventScheduled, PreemptScheduled: "Preempt Scheduled: <date>.
    # ..", maksim-paskal/aks-node-termination-handler #98; a Freeze, Reboot or Redeploy event is none) and the node
    # named by the Event's object; GCE's, the instance's compute.instances.preempted system event (`gcloud compute
    # operations list`, its target "<zone>/instances/<name>", the GKE node's name, cloudpilot-ai/karpenter-provider-gcp
    # PR #37); GKE's graceful node shutdown of a preempted node is the kubelet's "Terminated" (above): the node named,
    # the pods on it gone with it
    SPOT_RECLAIM: PodEnd("SPOT INTERRUPTION", "infrastructure", "the cloud reclaimed its node after a spot / "
                               "preemptible VM's interruption notice", True),
    # GCE terminating the VM under the pod, k8s-node-termination-handler deleting the node's pods first
    # (GoogleCloudPlatform/k8s-node-termination-handler termination/eviction.go, commit 00ba027b: before each delete,
    # no Eviction API and no DisruptionTarget condition, a Warning Event of reason NodeTermination on the pod, "Node %q
    # is about to be terminated. Evicting pod prior to node termination."): the metadata server's preemption or host
    # maintenance event of a VM that cannot live-migrate (a preemptible one, one with GPUs).  Only the Event says it
    # (the pod's status: deleted while running); the node named by its message
    NODE_TERMINATION: PodEnd("NODE TERMINATION", "infrastructure", "the cloud terminated its node, a preemption or "
                             "host maintenance of its VM; the node termination handler deleted it first", True,
                             event_only=True),
    # the kubelet could not pull a container's image (a container's waiting reason, WAITING_REASONS; the pod never ran):
    # ErrImagePull, then ImagePullBackOff between retries; whose it is depends on the gang (`gang`)
    "ErrImagePull": _IMAGE_PULL, "ImagePullBackOff": _IMAGE_PULL,
    # the kubelet's Event reasons for a volume it could not set up (pkg/kubelet/events: FailedMount; the attach-detach
    # controller's FailedAttachVolume), and the operations they word ("MountVolume.SetUp failed for volume ..",
    # "MountVolume.MountDevice failed ..", "AttachVolume.Attach failed ..") where a log has no Event row: whose it is
    # depends on the gang (`gang`)
    "FailedMount": _VOLUME, "FailedAttachVolume": _VOLUME,
    # the kubelet could not prepare the devices of the pod's DRA ResourceClaims (pkg/kubelet/events
    # FailedPrepareDynamicResources, "Failed to prepare dynamic resources: <err>"; its journal line,
    # kuberuntime_manager.go's structured klog, "\"Failed to prepare dynamic resources\" err=\"<err>\"
    # pod=\"<ns>/<name>\"", kubernetes/kubernetes #124090, google/dranet #30: the k8s_ended row reads both,
    # MESSAGE_ENDS alike; its container stays
    # ContainerCreating, no status says more, dra-driver-nvidia-gpu PR #598), the pod never started: the node's DRA
    # driver not registered with its kubelet ("plugin name dra-1411.k8s.io not found in the list of registered DRA
    # plugins", kubernetes/kubernetes #131957; "DRA driver compute-domain.nvidia.com is not registered", a kubelet
    # without the feature gate, dra-driver-nvidia-gpu #814), not answering ("NodePrepareResources: rpc error: code =
    # DeadlineExceeded desc = context deadline exceeded": a host process still holding the GPU, dra-driver-nvidia-gpu
    # PR #1218), a kubelet older than the API ("failed to fetch ResourceClaim .. the server could not find the
    # requested resource", #766).  The node's or the cluster's DRA setup wherever it happens, one node or every pod
    # alike (no gang: a driver missing everywhere is no fault of the job's spec); the kubelet retries, so a pod it then
    # started is no failure (NEVER_STARTED, triage.attribute Job.ran), and no cascading restart
    "FailedPrepareDynamicResources": PodEnd("DRA PREPARE", "infrastructure", "the kubelet could not prepare the "
                                            "devices of its resource claims: the node's DRA setup", False,
                                            ended=NEVER_STARTED, event_only=True),
    # FailedPrepareDynamicResources refined by its message (MESSAGE_ENDS): the DRA driver rejected the claim's own
    # device configuration (its opaque parameters), which every retry and every node rejects alike: the job's spec.
    # Confined to some of the job's nodes while its other pods ran, those nodes' driver (another version, other
    # feature gates: a rolling upgrade), as the gang decides an image or a volume
    "claim:config": PodEnd("DRA CLAIM CONFIG", "application", "its DRA driver rejected the device configuration of "
                           "its resource claim", False,
                           gang=Gang("infrastructure", "a DRA driver of another version or other feature gates than "
                                     "the other nodes'",
                                     "its ResourceClaim's device config: a sharing strategy, setting or field its "
                                     "driver does not accept"),
                           ended=NEVER_STARTED),
    # DisruptionTarget condition reasons (PreemptionByKubeScheduler: 1.26's word)
    "PreemptionByScheduler": _PREEMPTED, "PreemptionByKubeScheduler": _PREEMPTED,
    "EvictionByEvictionAPI": PodEnd("DRAIN", "infrastructure", "the Eviction API evicted it: a node drain, an "
                                    "operator's or a controller's eviction", False),
    "DeletionByTaintManager": PodEnd("NOEXECUTE TAINT", "infrastructure", "the taint manager deleted it for a "
                                     "NoExecute taint on its node", True),
    # the device taint eviction controller (DRA device taints, KEP-5055: a DRA driver's taint on a device of its
    # ResourceSlice, a DeviceTaintRule's) deleted it for a NoExecute taint on a device its claims hold: reason
    # "DeletionByDeviceTaintManager", message "Device Taint manager: deleting due to NoExecute taint"
    # (kubernetes/kubernetes pkg/controller/devicetainteviction/device_taint_eviction.go)
    "DeletionByDeviceTaintManager": PodEnd("DEVICE TAINT", "infrastructure", "the device taint manager deleted it "
                                           "for a NoExecute taint on a device it was allocated", True),
    "DeletionByPodGC": PodEnd("POD GC", "infrastructure", "the pod garbage collector deleted it, its node gone or out "
                              "of service", False),
    "TerminationByKubelet": PodEnd("KUBELET", "infrastructure", "the kubelet terminated it for node pressure, node "
                                   "shutdown or a critical pod's admission", True),
    # DeletionByTaintManager refined by the NoExecute taint its node had (live: the node's spec.taints)
    "taint:node.kubernetes.io/unreachable": PodEnd("NODE UNREACHABLE", "infrastructure", "the taint manager deleted "
                                                   "it: its node was unreachable, tainted "
                                                   "node.kubernetes.io/unreachable",
                                                   True),
    "taint:node.kubernetes.io/not-ready": PodEnd("NODE NOT READY", "infrastructure", "the taint manager deleted it: "
                                                 "its node was not ready, tainted node.kubernetes.io/not-ready", True),
    # DeletionByTaintManager of a pod whose node the node controller said was not ready before (its NodeNotReady Event
    # of the pod, "Node is not ready", MarkPodsNotReady: the node's Ready condition False or Unknown, so tainted
    # not-ready or unreachable, which the Event does not say; robert-fekete/KubernetesDemo's README)
    "taint:NodeNotReady": PodEnd("NODE NOT READY", "infrastructure", "the taint manager deleted it after the node "
                                 "controller's NodeNotReady Event of it: its node not ready, its Ready condition False "
                                 "or Unknown, tainted not-ready or unreachable", True),
    "taint:gpu-npd": PodEnd("GPU FAULT TAINT", "hardware", "the taint manager deleted it for gpu-npd's NoExecute "
                            "fault taint on its node", True),
    # EvictionByEvictionAPI of a pod on a node the GPU Operator's driver upgrade controller was evicting pods from (its
    # GPUDriverUpgrade Event before it: "Successfully updated node state label to [pod-deletion-required]" or
    # "[drain-required]", "Deleted workload pods on the node for the driver upgrade"; NVIDIA/k8s-operator-libs
    # pkg/upgrade pod_manager.go, whose drain helper evicts): the node's planned maintenance, no fault of its GPUs or of
    # the job; the upgrade controller's decision, as a drain's (no cascading restart)
    "drain:GPUDriverUpgrade": PodEnd("GPU DRIVER UPGRADE", "infrastructure", "the Eviction API evicted it for the "
                                     "GPU Operator's driver upgrade of its node, its GPUDriverUpgrade Event before: "
                                     "the node's planned maintenance, no GPU fault", False),
    # Evicted refined by its message (MESSAGE_ENDS): Karpenter's eviction of the pod, disrupting its node (its Event on
    # the pod, type Normal: "Evicted pod" (2023; reason "Evict" in 2022, aws/karpenter-provider-aws PR #2210), v1's
    # "Evicted pod: <the disruption's reason>", Underutilized, Empty, Drifted, ..; kubernetes-sigs/karpenter
    # pkg/controllers/node/termination/terminator/events): an autoscaler taking the node away through the Eviction
    # API, no node pressure nor GPU fault; its decision, as a drain's (no cascading restart)
    KARPENTER_EVICTED: PodEnd("NODE DISRUPTION", "infrastructure", "Karpenter evicted it, disrupting its node "
                              "for consolidation, drift, expiry or an interruption: the autoscaler's decision, no "
                              "GPU fault", False),
    # cluster-autoscaler's eviction of a pod, scaling its node down (kubernetes/autoscaler cluster-autoscaler/core/
    # scaledown/actuation/drain.go evictPod, commit 92aba319: its Event on the pod, type Normal, reason ScaleDown,
    # "deleting pod for node scale down", then the Eviction API; 2017's scale_down.go the same Event, then a delete):
    # the node underutilized, its pods fitting elsewhere.  The autoscaler's decision, as Karpenter's consolidation is
    # (KARPENTER_EVICTED): no GPU fault, no cascading restart
    SCALE_DOWN_EVICTED: PodEnd("NODE DISRUPTION", "infrastructure", "cluster-autoscaler evicted it, scaling its node "
                               "down, underutilized, its pods fitting elsewhere: the autoscaler's decision, no GPU "
                               "fault", False),
}
# A reason refined by what its message says (pod_end): (pattern, POD_ENDS key), the first that matches wins.  The
# kubelet's FailedPrepareDynamicResources whose DRA driver rejected the claim's device configuration, in the words its
# NodePrepareResources returns (dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/device_state.go, its compute-domain
# plugin's alike): the opaque parameters it could not decode ("error decoding config parameters: strict decoding error:
# unknown field \"unexpectedField\"", the driver's tests/bats/test_cd_misc.bats; an unknown kind or apiVersion), a
# config it could not normalize or validate ("error validating GPU config: unknown GPU sharing strategy: TimeSlicing",
# the EKS user guide's device-management-nvidia-time-slicing page and dra-driver-nvidia-gpu #762: TimeSlicing or MPS
# without its feature gate; an unknown time-slice interval, MPS limits out of range, "invalid MIG device sharing
# settings"), a config of no kind it knows, a config not opaque.  Its "error applying config" (the MPS daemon, the
# time-slice call on the GPU) and any other error stay the node's
_KARPENTER_SAYS = r"Evicted pod(?::|\s*$)"  # Karpenter's Evicted Event's message (MESSAGE_ENDS, the k8s_ended row)
_KARPENTER_EVICTED = ((re.compile(r"\b" + _KARPENTER_SAYS), KARPENTER_EVICTED),)
_SCALE_DOWN_SAYS = r"deleting pod for node scale down\b"  # cluster-autoscaler's ScaleDown Event of a pod (MESSAGE_ENDS)
MESSAGE_ENDS: dict[str, tuple[tuple[re.Pattern, str], ...]] = {
    # Karpenter's Event of its eviction ("Evicted pod", "Evicted pod: Underutilized"; 2022's reason "Evict"); the
    # kubelet's own Evicted says the resource ("The node was low on resource: ..")
    "Evicted": _KARPENTER_EVICTED, "Evict": _KARPENTER_EVICTED,
    # cluster-autoscaler's Event of its eviction (ScaleDown, "deleting pod for node scale down"); its node's ScaleDown
    # ("marked the node as toBeDeleted/unschedulable") is no pod's
    "ScaleDown": ((re.compile(r"\b" + _SCALE_DOWN_SAYS), SCALE_DOWN_EVICTED),),
    "FailedPrepareDynamicResources": (
        (re.compile(r"\berror (?:decoding config parameters|(?:validating|normalizing) (?:GPU )?config): |"
                    r"\bruntime object is not a recognized configuration\b|"
                    r"\bonly opaque parameters are supported by this driver\b"), "claim:config"),),
}
# The reasons whose pod end the gang decides (PodEnd.gang): an image the kubelet could not pull, a volume it could
# not mount or attach
GANG_REASONS = tuple(key for key, end in POD_ENDS.items() if end.gang is not None)
# The POD_ENDS keys a container's waiting state says in the pod's status (triage.inventory pod_ended reads them there):
# the kubelet's image pull errors (pkg/kubelet/images ErrImagePull, ImagePullBackOff).  Its Events of them are worded
# otherwise (pkg/kubelet/events: FailedToPullImage "Failed", "Failed to pull image .." and "Error: ErrImagePull";
# BackOffPullImage "BackOff", a Normal Event), so no Event has these reasons
WAITING_REASONS = ("ErrImagePull", "ImagePullBackOff")
# The pod ends only an Event says (PodEnd.event_only): the kubelet's FailedMount and FailedPrepareDynamicResources, the
# attach-detach controller's FailedAttachVolume (a pod waiting on a volume or a DRA claim is only ContainerCreating in
# its status).  The live cluster component watches the Warning Events of these on its jobs' pods (cluster/evidence.py
# POD_EVENT_SELECTORS); an image pull it reads off the pod's status
EVENT_ENDS = tuple(key for key, end in POD_ENDS.items() if end.event_only)
# Other components' Events on a Node a row reads as context of the job's pod ends there: the NVIDIA GPU Operator's
# upgrade controller's GPUDriverUpgrade (the gpu_driver_upgrade row), Karpenter's DisruptionTerminating (the
# karpenter_disrupting row), aws-node-termination-handler's SpotInterruption (the nth_spot_interruption row; type
# Normal) and Karpenter's SpotInterrupted (the karpenter_spot_interrupted row; type Warning).  The live cluster component
# watches the Events of these reasons on Nodes (cluster/evidence.py NODE_SELECTORS)
NODE_EVENTS = ("GPUDriverUpgrade", "DisruptionTerminating", "SpotInterruption", "SpotInterrupted")
# The Job controller's Events on a batch Job that a row reads as the job's end (the k8s_ended row: DeadlineExceeded, "Job
# was active longer than specified deadline", its activeDeadlineSeconds spent; it then deletes the Job's pods, whose
# statuses say nothing of why).  The live cluster component watches them on Jobs (cluster/evidence.py JOB_SELECTORS)
JOB_EVENTS = ("DeadlineExceeded",)


@dataclass(frozen=True, slots=True)
class ForeignCondition:
    """A node condition another detector writes that says a job on the node can break (FOREIGN_CONDITIONS)."""
    detector: str  # who writes it, as the evidence's text names it
    type: str  # the condition's type
    problem: str  # the status that is a problem ("True" or "False"); any other (Unknown, the healthy one) is none
    kind: str  # the finding kind it is for a job (parsers/kinds.py; its attribution the kind's, as gpu-npd's own)
    severity: str  # how bad, as gpu-npd's own conditions' `fault` (parsers/kinds.py CONDITIONS)
    # seconds between the detector's refreshes of lastHeartbeatTime; None: it writes the event's time, never a beat
    heartbeat: float | None
    reason: str = ""  # a regex the condition's reason must match (the type's first row that matches is read)
    code: str = ""  # a regex whose group 1, in the reason or else the message, is the Xid / SXid code


_EKS = "EKS node monitoring agent"
_NPD = "node-problem-detector"
_NVS = "NVSentinel"
# Other detectors' node conditions read as node faults of the jobs on the node (triage/conditions.py read_condition: the
# cluster component's, offline triage's of a Node in a dump; `gpu-npd cluster --no-foreign-conditions` reads none),
# beside gpu-npd's own (parsers/kinds.py CONDITIONS).  Only types whose meaning their detector documents; one whose
# detector has stopped beating (lastHeartbeatTime older than STALE_BEATS of its period) or whose status is Unknown is
# none.
# - EKS node monitoring agent (aws/eks-node-monitoring-agent pkg/conditions/conditions.go, pkg/reasons/reasons.yaml,
#   pkg/manager/node_exporter.go; https://docs.aws.amazon.com/eks/latest/userguide/node-health-nma.html): one condition
#   per category, True while healthy, False with the reason of a "Fatal" issue; every condition's heartbeat refreshed
#   each 5 minutes.  AcceleratedHardwareReady: NvidiaXID<code>Error (a critical Xid DCGM's policy reported, one of
#   its WellKnownXidCodes), NvidiaNVLinkError, NvidiaFabricError / FabricManagerNotRunning (the NVSwitch fabric), and
#   the DCGM diagnostics' and health checks' failures, NvidiaDoubleBitError, NvidiaDeviceCountMismatch.  Not read:
#   NetworkingReady (the VPC CNI's IPAMD, any interface down: its docs tell to exclude IPoIB interfaces it flags),
#   KernelReady (ForkFailedOutOfPIDs, no GPU fault), StorageReady (no reason of it is Fatal), ContainerRuntimeReady.
# - node-problem-detector (kubernetes/node-problem-detector config/kernel-monitor.json, readonly-monitor.json; its
#   k8s exporter's heartbeat, --k8s-exporter-heartbeat-period, 5 minutes by default): True is the problem.
#   KernelDeadlock (DockerHung, AUFSUmountHung: a task blocked for minutes, gpu-npd's own hung_task),
#   ReadonlyFilesystem (FilesystemIsReadOnly: "Remounting filesystem read-only") and XfsShutdown (XfsHasShutdown),
#   gpu-npd's filesystem_error.
# - NVIDIA NVSentinel (platform-connectors/pkg/connectors/kubernetes/process_node_events.go; the condition types of
#   https://docs.nvidia.com/nvsentinel/getting-started/integrations): a fatal health event's check name is the type,
#   True with "<check>IsNotHealthy" and "ErrorCode:<code> <entity> .. Recommended Action=..;" messages; its heartbeat is
#   the last event's time, never refreshed.  The syslog monitor's SysLogsXIDError / SysLogsSXIDError /
#   SysLogsGPUFallenOff; the DCGM health watches (GpuMemWatch, GpuNvlinkWatch, ...: gpu-npd's dcgm_diag, DCGM's
#   health system).  Not read: GpuCpusetWatch (CPU affinity), its system conditions.
# (leptonai/gpud writes no node condition: its state is its own API's.)
FOREIGN_CONDITIONS: tuple[ForeignCondition, ...] = (
    ForeignCondition(_EKS, "AcceleratedHardwareReady", "False", "xid", "fatal", 300.0, reason=r"NvidiaXID\d+Error$",
                     code=r"^NvidiaXID(\d+)Error$"),
    ForeignCondition(_EKS, "AcceleratedHardwareReady", "False", "nvlink", "error", 300.0, reason="NvidiaNVLinkError$"),
    ForeignCondition(_EKS, "AcceleratedHardwareReady", "False", "nvlink_fabric", "error", 300.0,
                     reason="(?:NvidiaFabricError|FabricManagerNotRunning)$"),
    ForeignCondition(_EKS, "AcceleratedHardwareReady", "False", "dcgm_diag", "error", 300.0),
    *(ForeignCondition(_NPD, t, "True", kind, "error", 300.0) for t, kind in (
        ("KernelDeadlock", "hung_task"), ("ReadonlyFilesystem", "filesystem_error"),
        ("XfsShutdown", "filesystem_error"))),
    ForeignCondition(_NVS, "SysLogsXIDError", "True", "xid", "fatal", None, code=r"\bErrorCode:(\d+)\b"),
    ForeignCondition(_NVS, "SysLogsSXIDError", "True", "sxid", "error", None, code=r"\bErrorCode:(\d+)\b"),
    ForeignCondition(_NVS, "SysLogsGPUFallenOff", "True", "fallen_off_bus", "fatal", None),
    ForeignCondition(_NVS, "GpuNvlinkWatch", "True", "nvlink", "error", None),
    *(ForeignCondition(_NVS, t, "True", "dcgm_diag", "error", None) for t in (
        "GpuMemWatch", "GpuThermalWatch", "GpuPcieWatch", "GpuPowerWatch", "GpuInforomWatch", "GpuSmWatch",
        "GpuMcuWatch", "GpuPmuWatch", "GpuDriverWatch")),
)
STALE_BEATS = 3  # heartbeats missed before a detector's condition is stale (its detector gone or wedged)
FOREIGN_TYPES = frozenset(c.type for c in FOREIGN_CONDITIONS)
if _odd := sorted({c.kind for c in FOREIGN_CONDITIONS} - {k.name for k in KIND_TABLE}) + sorted(
        FOREIGN_TYPES & {c.type for c in OWN_CONDITIONS}):
    raise ValueError(f"triage/facts.py FOREIGN_CONDITIONS: no such kind, or gpu-npd's own condition: {', '.join(_odd)}")


def foreign_condition(ctype: str, reason: str) -> ForeignCondition | None:
    """The row of FOREIGN_CONDITIONS a condition of this type and reason is read by (None: not one read)."""
    for row in FOREIGN_CONDITIONS:
        if row.type == ctype and (not row.reason or re.match(row.reason, reason)):
            return row
    return None

# The node context kinds that say who evicted a pod on their node after them, and the POD_ENDS key the Eviction API's
# eviction (EvictionByEvictionAPI) of such a pod is then (triage.attribute Job._refined; pod_end's `drain`)
NODE_DRAINS = {"node_driver_upgrade": "drain:GPUDriverUpgrade", "node_disruption": KARPENTER_EVICTED,
               "node_spot_interruption": SPOT_RECLAIM}
# Other components' Warning Events on a Pod a row reads as context of that pod's end: the node controller's NodeNotReady
# (the k8s_not_ready row, pod_not_ready: the taint manager's deletion of the pod after it is for its node not ready)
POD_EVENTS = ("NodeNotReady",)
# Every Warning of another component on a pod that triage reads: a pod end only an Event says, or context of one.  The
# live cluster component watches the Events of these on its jobs' pods (cluster/evidence.py POD_EVENT_SELECTORS)
POD_WARNINGS = (*EVENT_ENDS, *POD_EVENTS)
# The Normal Events of another component on a pod that triage reads: Karpenter's Evicted ("Evicted pod: <reason>",
# MESSAGE_ENDS; the kubelet's own Evicted is a Warning) and cluster-autoscaler's ScaleDown ("deleting pod for node scale
# down"), which say whose the Eviction API's eviction of that pod was (triage.attribute Job._refined; EVICTOR_ENDS, the
# ends they are).  Watched alike (cluster/evidence.py POD_EVENT_SELECTORS, type=Normal)
POD_NORMALS = ("Evicted", "ScaleDown")
EVICTOR_ENDS = (KARPENTER_EVICTED, SCALE_DOWN_EVICTED)
# How the k8s_ended row reads a POD_ENDS key.  A word no other text says is read wherever it stands (REASON_ANYWHERE:
# NodeLost, the kubelet's admission error, a DisruptionTarget condition's reason); a key said by its messages is read
# by them (REASON_BY_MESSAGE: the kubelet's "OutOf<resource>", OUT_OF_WORD; a cloud's notice; a volume's or a DRA
# claim's Event or its message, the kubelet's cache race excluded, _NO_RACE); a common word only where kubectl prints a pod's reason (REASON_WORDS:
# describe's "Reason:", -o json's "reason":, an Event's reason after its type, `kubectl get pods`' STATUS column);
# "Terminated", glibc's word for SIGTERM too (SIGNAL_WORDS), only in the STATUS column; a taint never by its name
REASON_ANYWHERE = ("PreemptionByScheduler", "PreemptionByKubeScheduler", "DeletionByTaintManager",
                   "DeletionByDeviceTaintManager", "EvictionByEvictionAPI", "DeletionByPodGC", "TerminationByKubelet",
                   "NodeLost", "UnexpectedAdmissionError", "TopologyAffinityError")
REASON_BY_MESSAGE = ("OutOfDevices", "SpotInterruption", NODE_TERMINATION, "FailedMount", "FailedAttachVolume",
                     "FailedPrepareDynamicResources")
REASON_STATUS_ONLY = ("Terminated",)
REASON_WORDS = tuple(k for k in POD_ENDS if ":" not in k  # a refinement's key ("taint:..", "claim:..") no word
                     and k not in REASON_ANYWHERE + REASON_BY_MESSAGE + REASON_STATUS_ONLY)
# A Kubernetes Event as kubectl prints it (`kubectl describe`'s Events table, `kubectl get events`, and the rows
# triage.inventory read_events makes of Event objects): its type (core/v1 EventTypeNormal, EventTypeWarning), then its
# reason ("  Warning  FailedMount  51s (x12 over 9m5s)  kubelet  MountVolume.SetUp failed for volume ..")
EVENT_TYPES = ("Normal", "Warning")
_EVENT_HEAD = rf"(?P<type>{'|'.join(EVENT_TYPES)})\s+(?P<reason>[A-Z]\w*)"
EVENT_ROW = re.compile(rf"(?:^|\s){_EVENT_HEAD}\b")
# a row of `kubectl describe`'s Events table (no object column: one object's rows), whole: its type and reason, age
# (with its repeats), from, message
DESCRIBE_EVENT = re.compile(rf"^\s*{_EVENT_HEAD}\s+\S+(?: \(x(?P<count>\d+) over \S+\))?\s+(?P<source>[\w.\-]+)\s+"
                            r"(?P<message>\S.*?)\s*$")
# status.reason "Out<resource>": the kubelet's admission found the node short of an extended resource
# ("OutOfnvidia.com/gpu")
OUT_OF_RESOURCE = r"[a-z0-9][\w.\-]*/[\w.\-]+"  # an extended resource's name, "nvidia.com/gpu"
# and of a node resource the kubelet admits by ("OutOfcpu", "OutOfmemory", "OutOfpods": OUT_OF_NODE_KEY)
OUT_OF_NATIVE = r"(?:cpu|memory|pods|ephemeral-storage)"
OUT_OF_WORD = r"Out[Oo]f(?:" + OUT_OF_RESOURCE + "|" + OUT_OF_NATIVE + ")"  # as kubectl's text says it (k8s_ended)
# A volume failure that is no pod end: the kubelet's ConfigMap and Secret cache not (or no longer) holding the pod,
# "MountVolume.SetUp failed for volume "kube-api-access-gvtq4" : object "pgo"/"kube-root-ca.crt" not registered",
# said of pods that start and run a moment later and after they end (kubernetes/kubernetes #105204, #119361): the
# k8s_ended row's FailedMount words skip a line saying it within this many characters
VOLUME_RACE, VOLUME_RACE_WITHIN = r' : object "[^"\n]{0,253}"/"[^"\n]{0,253}" not registered', 600
_NO_RACE = f"(?![^\\n]{{0,{VOLUME_RACE_WITHIN}}}?{VOLUME_RACE})"
OUT_OF = re.compile(rf"^Out[Oo]f{OUT_OF_RESOURCE}$")
OUT_OF_NODE = re.compile(rf"^Out[Oo]f{OUT_OF_NATIVE}$")


def pod_end(reason: str | None, taints: tuple[str, ...] = (), message: str = "", not_ready: bool = False,
            drain: str | None = None) -> str | None:
    """The POD_ENDS key of a pod-level reason (None: not Kubernetes ending the pod), a taint manager's deletion refined
    by the NoExecute taint keys its node had (gpu-npd's first, then the node controller's), else by the node
    controller's NodeNotReady Event of the pod before it (`not_ready`: triage.attribute's Job._refined), an Eviction
    API's eviction as the evictor's own POD_ENDS key `drain` (a NODE_DRAINS value: the GPU Operator's driver upgrade
    of its node, Karpenter disrupting it; Job._refined alike), a reason MESSAGE_ENDS refines by what its message (or
    the line saying it) says."""
    if not reason:
        return None
    for pattern, key in MESSAGE_ENDS.get(reason, ()):
        if message and pattern.search(message):
            return key
    if reason == "DeletionByTaintManager":
        if any(t.startswith(TAINT_PREFIX) for t in taints):
            return "taint:gpu-npd"
        for t in ("node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"):
            if t in taints:
                return "taint:" + t
        if not_ready:
            return "taint:NodeNotReady"
    # (an autoscaler's eviction of a pod on a node the cloud is reclaiming: the reclaim, Karpenter draining for it)
    if drain and (reason == "EvictionByEvictionAPI" or reason in EVICTOR_ENDS and drain == SPOT_RECLAIM):
        return drain
    if reason in POD_ENDS:
        return reason
    return "OutOfDevices" if OUT_OF.match(reason) else OUT_OF_NODE_KEY if OUT_OF_NODE.match(reason) else None


def pod_ended_as(key: str, reason: str | None) -> dict:
    """What a pod's end says in its evidence's details: its POD_ENDS key (`pod_end`'s), the key's why, and the reason
    it was said as (None: not said).  Offline (the k8s_ended row, Job._refined) and the pod's object
    (triage.inventory's pod_ended)."""
    return {"why": POD_ENDS[key].why, "pod_end": key, **({"pod_reason": reason} if reason else {})}


SIGNALS = {1: "SIGHUP", 2: "SIGINT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
           11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}
SIGNAL_NUMBERS = {name: number for number, name in SIGNALS.items()}
# how srun and Python's faulthandler word a death by a signal: glibc's strsignal(), which PyTorch's DataLoader quotes too
SIGNAL_WORDS = {"Killed": 9, "Terminated": 15, "Aborted": 6, "Segmentation fault": 11, "Bus error": 7, "Hangup": 1,
                "Interrupt": 2, "Illegal instruction": 4, "Floating point exception": 8, "Broken pipe": 13}

# PyTorch's "[PG ...]" tag before a watchdog line, where it prints one, and the rank in it (what the tag names:
# parsers.classify.pg_name, in _groups). The tag's words ("ID 0 PG GUID 0(default_pg)") are read up to PG_TAG_WITHIN
# characters, no further, and never across another "[" (no tag holds one): an unbounded gap rescanned the rest of the
# line from every "[PG " (9.8 s on a 64 KiB line of them), a bounded one that crossed "[" 200 characters (0.1 s)
PG_TAG_WITHIN = 200
# A host name a row reads after a word that can repeat inside it ("slurmstepd-<host>", "node/<host>", "pdsh@<host>"):
# at most a DNS name's 253 characters; an unbounded run rescanned the rest of a run of that word from each of its
# starts (1-8 s on a 64 KiB line of "slurmstepd-", "node/", "pdsh@")
HOST_NAME = r"[\w.\-]{1,253}"
HOST_WORD = r"\S{1,253}"
# A rejected command line's message after its words (argparse's, absl's, Fire's): up to a parenthesis or semicolon
# (the Event's separators), no space before the cut; and the launcher's `--local-rank=N` (`--local_rank=N` before
# torch 2.0) among the arguments a program rejected: the writer's local rank
_REJECTED_REST = r"(?:[^\n;()]{0,399}[^\s;()])?"
_LOCAL_RANK_ARG = r"(?:[^\n;()]{0,400}?(?<![\w\-])--local[-_]rank=(?P<local_rank>\d{1,6})\b)"
_PG_PREFIX = rf"(?:(?P<pg>\[PG )[^\[\]]{{0,{PG_TAG_WITHIN}}}? )?(?:Rank (?P<rank>\d+)\] +)?"

# A socket's address as c10d's SocketImpl prints it (torch/csrc/distributed/c10d/socket.cpp `formatSockAddr`): an IPv4
# socket's "host:port", an IPv6 one's (a dual-stack socket's "::ffff:10.0.0.1" too) "[host]:port"; the host a name
# where getnameinfo resolved it.  `{name}`: the group the host is read into, its IPv4 form's `{name}2` (a row's second
# wording fills the same field: `_groups`).
SOCK_ADDR = r"(?:\[(?P<{name}>[^\]\n]{{1,255}})\]|(?P<{name}2>[^\s\[\],:()]{{1,255}}))"

# srun's line for its tasks' end up to how they ended: "srun: error: <node>: task(s) <list>: " (srun_task,
# srun_task_oom), under whatever name srun was run by ("yhrun")
SRUN_TASK_HEAD = r"\b\w*run: error: (?P<host>[^:\s]+): tasks? (?P<tasks>[\d,\-\[\]]+): "


FACTS: tuple[Fact, ...] = (
    # torch.distributed.elastic (torchrun, accelerate, every era): "failed (exitcode: -9) local_rank: 5 (pid: 2630)
    # of binary: /root/miniconda3/bin/python" (the binary: the process the kernel names by its file's name)
    _f("elastic_failed", "rank_exit", ["failed (exitcode"],
       r"failed \(exitcode: (?P<exit_code>-?\d+)\) local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\)"
       r"(?: of binary: (?P<binary>\S+))?"),
    # the ChildFailedError summary, one field a line ("  rank      : 0 (local_rank: 0)"): read as a block by
    # triage.read (ELASTIC_BLOCK), not row by row
    # DeepSpeed's launcher (deepspeed/launcher/launch.py, every era): "[ERROR] [launch.py:434:sigkill_handler]
    # ['/usr/bin/python3', '-u', 'main.py', '--local_rank=0', ...] exits with return code = -9" (deepspeedai/DeepSpeed
    # #3232).  The command it prints is not the dead process's: its sigkill_handler prints `cmd`, the variable its
    # spawning loop left behind, the node's last local rank's command whichever process died ("'--local_rank=1'" of
    # two GPUs, deepspeedai/DeepSpeedExamples #626): the line names the node's launcher (its pdsh prefix), an exit
    # code, and no rank.  torch.distributed.launch (1.8 and before) and early DeepSpeed raised a CalledProcessError
    # from the same handler: the called_process_signal row below
    _f("deepspeed_exit", "rank_exit", ["exits with return code"],
       r"exits with return code = (?P<exit_code>-?\d+)"),
    # torch.multiprocessing.spawn's join (mp.spawn, detectron2's launch, every era): a process it started ended by a
    # signal or with a non-zero code, no exception of its own passed back; 1.0-1.5 "Exception: process 1 terminated
    # with signal SIGKILL" (HRNet/HigherHRNet-Human-Pose-Estimation #47, jeffffffli/HybrIK #198), 1.6+
    # "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGKILL"
    # (resistzzz/Prompt4NR #3, lyu-yx/ACUMEN #4), "... terminated with exit code 1".  The number is the process's
    # index among those this node spawned, its local rank (the rank is the script's: node_rank * nprocs + index)
    _f("torch_spawn_exit", "rank_exit", ["terminated with signal", "terminated with exit code"],
       r"(?:^|Exception: )process (?P<local_rank>\d+) terminated with (?:signal (?P<signame>SIG[A-Z0-9]+)|"
       r"exit code (?P<exit_code>-?\d+))\b"),
    # PyTorch Lightning / Fabric's own launcher (SubprocessScriptLauncher's child observer, 2.1+, Lightning-AI/
    # pytorch-lightning #18218): the main process (local rank 0) reports a process it started that ended with a
    # non-zero code, then kills the rest: "[rank: 1] Child process with PID 2053468 terminated with code 1. Forcefully
    # terminating all other processes to avoid zombies" (awslabs/keys_values ai_dev/debug_ring_attention_distributed_
    # test.md), also behind a logger's header ("INFO: ").  The "[rank: N]" is the child's (rank_prefixed_message of
    # its index + 1: its local rank, not the writer's); the code Popen's returncode, a signal's number negated
    # ("terminated with code -9.": SIGKILL)
    _f("lightning_child_exit", "rank_exit", ["Child process with PID"],
       r"(?:\[rank: (?P<local_rank>\d{1,6})\] )?Child process with PID (?P<pid>\d+) terminated with code "
       r"(?P<exit_code>-?\d+)\."),
    # Python's subprocess.CalledProcessError for a child a signal ended (CPython's str(): "Command '...' died with
    # <Signals.SIGKILL: 9>."), raised by accelerate's simple_launcher (Linaqruf/kohya-trainer #148, bmaltais/kohya_ss
    # #1065), torch.distributed.launch's sigkill_handler (1.8 and before) and early DeepSpeed's: a process of the job
    # died by that signal; the command names no rank (the launchers' is the last one spawned, see
    # deepspeed_exit).  A non-zero exit ("returned non-zero exit status 1.") follows the child's own error and may be
    # any command (DeepSpeed's ssh check): no row
    _f("called_process_signal", "rank_exit", ["' died with <Signals."],
       r"' died with <Signals\.(?P<signame>SIG[A-Z0-9]+): (?P<signal>\d+)>"),
    # A shell running the job's script reporting a command of it a signal ended (bash, every era; the batch script's
    # own stderr, the pid right-aligned and the signal's words padded): "/var/spool/slurmd/job00191/slurm_script: line
    # 28:  8156 Killed                  python3 main.py .." (ArjunaCluster/ArjunaUsers #52), "/bin/bash: line 27: 318
    # Killed sh start.sh" (divamgupta/deep-clustering-kingdra #2), "..: line 184: 2324239 Aborted                 (core
    # dumped) litgpt pretrain .." (Lightning-AI/litgpt #1832): that process (its pid) died by the signal whose words
    # strsignal() gives (SIGNAL_WORDS); the script names no rank (a ` (core dumped)` after the words is read as the
    # command's text: ` +\S` takes either)
    _f("shell_job_signal", "rank_exit", [": line "],
       r"(?:^|[\s\"'`])[^\s\"'`]*: line \d+: +(?P<pid>\d+) (?P<how>" + "|".join(SIGNAL_WORDS) + r") +\S"),
    # The same shell's word for a child a signal ended where it prints neither line nor pid (dash, a non-interactive
    # `sh -c` running each rank: Horovod's launcher, every era): the whole line is strsignal()'s words, ` (core
    # dumped)` after them where it dumped: "[0]<stderr>:Killed", "[1]<stderr>:Aborted (core dumped)" (horovod/horovod
    # #2907, the elastic test's rank 0 killed and its peers' gloo::IoException after it). The writer's prefix names
    # the rank. Was: nothing, and the first peer that lost its connection to the killed rank named the root
    _f("shell_signal_words", "rank_exit", list(SIGNAL_WORDS),
       r"^(?P<how>" + "|".join(SIGNAL_WORDS) + r")(?: \(core dumped\))?$"),
    # Horovod's Gloo launcher (horovodrun, horovod/runner/gloo_run.py `_exec_command`) on a rank's command
    # that ended non-zero, the number its slot's rank, the code the shell's (128+N: signal N): "Process 0 exit with
    # status code 137." (horovod/horovod #2907: rank 0 killed, SIGKILL; its peers' "Process 3 exit with status code
    # 134.", SIGABRT after their gloo::IoException). Was: nothing
    _f("horovod_exit", "rank_exit", ["exit with status code"],
       r"^Process (?P<rank>\d{1,9}) exit with status code (?P<exit_code>-?\d{1,9})\.$"),
    # Slurm: "srun: error: node-7: task 12: Exited with exit code 1", "srun: error: gpu-3: tasks 0-7: Killed"; srun
    # logs under the name it was run by, so a site's renamed srun words it alike ("yhrun: error: cnode1995: task 0:
    # Killed", Tianhe's, jiabowang/GAPIT #207)
    _f("srun_task", "rank_exit", ["run: error:"],
       SRUN_TASK_HEAD + r"(?P<how>Exited with exit code "
       r"(?P<exit_code>\d+)|Killed|Terminated|Aborted|Segmentation fault|Bus error)"),
    # srun's task summary (src/srun/task_state.c, "%ps task%s %s: %s"), printed when --wait's time ran out after a
    # first task ended ("srun: First task exited 60s ago") or on the user's Ctrl-C: the tasks that ended abnormally
    # (a non-zero exit or a signal, which it does not say): "yhrun: StepId=1544235.0 task 1: exited abnormally"
    # (GAPIT #207); the "running" and "exited" (normally) rows are no failure
    _f("srun_task_state", "rank_exit", ["exited abnormally"],
       r"\b\w*run: (?:StepId=)?(?P<job>\d+\.\w+) tasks? (?P<tasks>[\d,\-\[\]]+): exited abnormally$"),
    # Open MPI, whatever its launcher's name (mpirun, mpiexec, orterun, mpirun.real, Open MPI 5's prterun): "mpirun
    # noticed that process rank 3 with PID 1234 on node node-b exited on signal 9 (Killed).", and a rank that ended
    # without MPI_Finalize: "mpirun has exited due to process rank 1 with PID 0 on" (the node on the next line);
    # the multi-line "The first process to do so was:" summary is read as a block by triage.read
    _f("mpirun_noticed", "rank_exit", ["noticed that process rank", "has exited due to process rank"],
       r"(?:noticed that process rank (?P<rank>\d+) with PID (?P<pid>\d+|[xX*]+) on node (?P<host>\S+) exited on "
       r"signal (?P<signal>\d+)|has exited due to process rank (?P<rank2>\d+) with PID (?P<pid2>\d+) on(?: node "
       r"(?P<host2>\S+))?)"),
    # Open MPI's launcher on a node whose daemon (ORTE's orted; PRRTE's prted, Open MPI 5) it lost, every process on
    # that node with it: ORTE 2.x-4.x "ORTE has lost communication with a remote daemon." then "  HNP daemon   :
    # [[43015,0],0] on node <mpirun's>" and "  Remote daemon: [[43015,0],20] on node <the lost one>" (kubeflow/
    # mpi-operator #152, an MPIJob's launcher after a worker pod crashed; open-mpi/ompi #6618), PRRTE's "PRTE has lost
    # .." with "[prterun-nid002944-1918870@0,1]" (openpmix/prrte #2694, 2026); 1.x's "ORTE has lost communication with
    # its daemon located on node:" then "  hostname:  <node>" (help-errmgr-base.txt [node-died]; aws/aws-parallelcluster
    # #301) is a list (TASK_LIST_OPENERS). The node the line names, not why (a crash, an OOM kill, a pod deleted, the
    # network). Was: nothing ("No failure found"), or the rank PRTE then said exited on it
    _f("mpi_daemon_lost", "process_lost", ["Remote daemon: "],
       r"^\s*Remote daemon: (?P<daemon>\[\[\d+,\d+\],\d+\]|\[[\w.\-]+@\d+,\d+\]) on node (?P<host>\S+)\s*$"),
    # A rank that called MPI_Abort names itself: the program chose to end the job (most often after printing why, the
    # rank's own error before it), and the launcher then kills every other rank.  Open MPI, every era (help-mpi-api.txt
    # [mpi-abort], the error code on the next line: 1.x-4.0 "with errorcode 1.", 4.1+ "  Proc: [[45441,1],0]" and
    # "  Errorcode: 1"): "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD" (Xilinx/ACCL #104,
    # mpi4jax/mpi4jax #106); MPICH, Intel MPI and their kin: "application called MPI_Abort(MPI_COMM_WORLD, 0) - process
    # 1" (pmodels/mpich #270), 3.3+ / Intel MPI behind "Abort(1) on node 1 (rank 1 in comm 0): " (SPECFEM/specfem3d
    # #1344).  Both print the rank in the communicator the call names (MPICH's comm_ptr->rank): a global rank only in
    # MPI_COMM_WORLD, so only that communicator's lines are read
    _f("mpi_abort", "rank_exit", ["MPI_ABORT was invoked on rank", "application called MPI_Abort(MPI_COMM_WORLD"],
       r"MPI_ABORT was invoked on rank (?P<rank>\d+) in communicator MPI_COMM_WORLD\b|"
       r"application called MPI_Abort\(MPI_COMM_WORLD, (?P<errorcode>-?\d+)\) - process (?P<rank2>\d+)"),
    # vLLM's executor on a worker process that exited (V1): "ERROR 07-04 17:35:16 [multiproc_executor.py:140] Worker
    # proc VllmWorker-1 died unexpectedly, shutting down executor." (OpenPipe/ART #201), later with its exit code
    # "Worker proc VllmWorker-0 died unexpectedly (exit code: None), shutting down executor." (vllm-project/vllm #56180):
    # the number is the worker's rank.  RayExecutorV2 (2026, Ray multi-node: vllm/v1/executor/ray_executor_v2.py
    # monitor_workers, "RayWorkerProc rank=%s died unexpectedly, shutting down executor." of the ranks whose actor's
    # run() ended, a list): "ERROR ... RayWorkerProc rank=[3] died unexpectedly, shutting down executor." (vllm-project/
    # vllm #43420); its one rank is the rank, as srun's one task is (`tasks`), several name no one rank.  Was: nothing
    _f("vllm_worker_died", "rank_exit", ["died unexpectedly"],
       r"Worker proc VllmWorker-(?P<rank>\d+) died unexpectedly(?: \(exit code: (?:(?P<exit_code>-?\d+)|None)\))?|"
       r"RayWorkerProc rank=\[(?P<tasks>\d{1,9}(?:, \d{1,9}){0,4095})\] died unexpectedly"),
    # HuggingFace text-generation-inference's launcher on a shard (its server process of one rank) that exited, every
    # era (launcher/src/main.rs): its shard-manager's "Shard process was signaled to shutdown with signal 4 rank=0"
    # (the tracing span's " rank=N" after it; 0.8's launcher no span: "Shard process was signaled to shutdown with
    # signal 9"), then the launcher's "Shard 0 failed to start" (before it was ready: spawn_shards, then "Error:
    # ShardCannotStart") or "Shard 0 crashed" (once serving: the main loop, then "Error: ShardFailed")
    # (huggingface/text-generation-inference #1627, signal 4; #686 "Shard 0 failed to start" after the shard's
    # NotImplementedError).  The shard's own error, where its stderr relayed before ("Shard complete standard error
    # output:") holds one, is the cause; the relay alone is the rank's death, its cause undetermined.  Was: nothing,
    # "No failure found" for a server that never started
    _f("tgi_shard_exit", "rank_exit", ["Shard process was signaled", "failed to start", " crashed"],
       r"Shard process was signaled to shutdown with signal (?P<signal>\d{1,3})(?: rank=(?P<rank>\d{1,6}))?\s*$|"
       r"\bShard (?P<rank2>\d{1,6}) (?:failed to start|crashed)\s*$"),
    # SGLang's engine (its main process: the tokenizer manager, the HTTP server) on a child process that died (a
    # scheduler of one TP rank, the detokenizer, the data-parallel controller): the child's exception handler sends
    # SIGQUIT to its parent, whose handler logs it and kills the whole process tree (entrypoints/engine.py
    # sigquit_handler, every era since 0.4): "Received sigquit from a child proces. It usually means the child
    # failed." (the misspelt word until 2025, sgl-project/sglang #3685, #3713), then "Received sigquit
    # from a child process. It usually means the child failed." (sgl-project/sglang #28521, #5448).  A process of the
    # engine lost, the line names none: the child's own traceback ("Scheduler hit an exception: Traceback ..") is the
    # cause where it is in the log.  Was: nothing, the engine's death unseen where the child's error was not printed
    _f("sglang_child_failed", "process_lost", ["Received sigquit from a child"],
       r"Received sigquit from a child proces(?P<plural>s)?\. It usually means the child failed"),
    # pdsh (DeepSpeed multi-node): "pdsh@node-0: node-3: ssh exited with exit code 1"
    _f("pdsh_exit", "rank_exit", ["ssh exited with exit code"],
       r"pdsh@" + HOST_WORD + r": (?P<host>[^:\s]+): ssh exited with exit code (?P<exit_code>\d+)"),
    # HPE Cray PALS's mpiexec (ALCF's Aurora, Polaris, Sunspot) on a rank that ended, its node before it (read as a
    # pdsh prefix, triage.ranks): "x1921c1s1b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov: rank 16 exited with code 1", and on
    # the ranks it then tore down, "x1921c1s4b0n0-hsn0.hsn.cm.sunspot.alcf.anl.gov: rank 0 died from signal 15"
    # (saforem2/ezpz docs/guides/autoretry-nodekill.md, a 24-rank save that hit ENOSPC; Aurora's "x4006c0s6b0n0.hsn.cm.
    # aurora.alcf.anl.gov: rank 256 died from signal 11" then "..: rank 0 died from signal 15", pmodels/mpich #7569):
    # a rank's end, explained as any rank's death is.  Was: nothing, the job's end unseen.
    _f("pals_rank", "rank_exit", ["exited with code", "died from signal"],
       r"^rank (?P<rank>\d+) (?:exited with code (?P<exit_code>[1-9]\d*)|died from signal (?P<signal>\d+))$"),
    # The job's coordinator declares a process or node dead, naming it (not why: a crash, a hang, a preemption, the
    # network).  XLA's coordination service (JAX multi-host, TensorFlow's multi-worker), every era since TF 2.8: "E
    # ...coordination_service.cc:954] /job:jax_worker/replica:0/task:37 has been set to ERROR in coordination service:
    # UNAVAILABLE: Task /job:jax_worker/replica:0/task:37 heartbeat timeout. This indicates that the remote task has
    # failed, got preempted, or crashed unexpectedly." (EleutherAI/architecture-objective #26, 2022; "... Check the
    # task logs for an earlier error to debug further." jax-ml/jax #23599, 2024): the task id is the JAX process index,
    # the rank.
    _f("xla_task_heartbeat", "process_lost", ["heartbeat timeout. This indicates"],
       r"Task /job:(?P<job>[\w\-]+)/replica:\d+/task:(?P<rank>\d+) heartbeat timeout"),
    # nvidia-resiliency-ext's rank monitor (ft_launcher runs one beside each rank; NeMo's and Megatron-Bridge's
    # FaultTolerance plugin): its rank's heartbeats or a section's updates stopped past their timeout, so it kills that
    # rank (SIGKILL) and the launcher restarts the worker group: the rank hung or never started ("initial", often a
    # timeout shorter than its setup); the line names which, never why.  Each era's prefix names the rank it watches,
    # never itself: 0.1-0.2 "[WARNING] [RankMonitorServer:34] Did not get subsequent heartbeat. Waited 171.92 seconds."
    # (the rank; NVIDIA/NeMo docs resiliency, Megatron-Bridge docs), 0.3+ "[RankMonServer<pid>@<host>:<rank>]"
    # (RankMonitorLogger), 0.5+ nvrx's "[<host>] [workload:<rank>(<local rank>) infra:..] rank_monitor_server.py:N
    # [Cycle N] .." (its rank None: the launcher gives a monitor LOCAL_RANK alone); its section timeouts ("Section
    # 'step' has been open for 181.02 seconds. Timeout is 180.00 seconds.", "Was out of section for ..") the same.
    # Was: no line read, "No failure found".
    _f("nvrx_rank_monitor", "process_lost", ["heartbeat. Waited", "has been open for", "Was out of section for"],
       r"(?:\[(?:RankMonitorServer|RankMonServer\d+@(?P<host>[\w.\-]+)):(?:(?P<rank>\d+)|<none>)\] |"
       r"\[(?P<host2>[\w.\-]+)\] \[workload:(?:(?P<rank2>\d+)|None)\((?:(?P<local_rank>\d+)|None)\) infra:[^\]]*\] "
       r"\S+:\d+ )?(?:\[Cycle \d+\] )?(?:(?P<monitor>Did not get (?:initial|subsequent) heartbeat)\. Waited "
       r"(?P<waited>\d+(?:\.\d+)?) seconds|(?P<monitor2>Section '(?P<section>[^']+)' has been open|Was out of section) "
       r"for (?P<waited2>\d+(?:\.\d+)?) seconds\. Timeout is)"),
    # The same service meeting a task that came back as a new incarnation: the task restarted, so it died before (why,
    # its own log may say), whether the service hears it first in a heartbeat ("/job:jax_worker/replica:0/task:3
    # Heartbeat: Incarnation ID mismatch: ... The task has restarted and likely crashed earlier") or in its new
    # registration (RegisterTaskAsync, 2024+: "/job:jax_worker/replica:0/task:1 unexpectedly tried to connect with a
    # different incarnation. It has likely restarted.", google/grain #802; one registering again after its error:
    # ".. unexpectedly tried to connect while it is already in error. ..", the branch after it in
    # xla/tsl/distributed_runtime/coordination/coordination_service.cc).  The service's log line and its "Use error
    # polling to propagate the following error to all tasks: ABORTED: .." name the same task.
    _f("xla_task_restarted", "process_lost", ["Incarnation ID mismatch", "unexpectedly tried to connect"],
       r"/job:(?P<job>[\w\-]+)/replica:\d+/task:(?P<rank>\d+) (?:Heartbeat: Incarnation ID mismatch|"
       r"unexpectedly tried to connect (?:with a different incarnation|while it is already in error))"),
    # NCCL's RAS (2.29+) in monitoring mode (`ncclras -m`, or its socket's MONITOR) prints each change of the job's
    # processes as it happens, one a line (src/ras/client_support.cc rasClientsNotifyEvent: "[<time>] <event>: <peer>
    # <details>"): a process it declared dead, "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245
    # managing GPU 1" (NCCL's user guide, troubleshooting/ras), before it the trace group's "PEER_TIMEOUT_DEAD: <peer>
    # peer failed to respond for 60s, declaring dead" (src/ras/rasnet.cc); a peer RAS no longer knows is its socket's
    # address, "172.16.64.245<41023>". The process and its node, as its report's DEAD list names them (_RAS_DEAD); its
    # PEER_UNRESPONSIVE / PEER_RETRY / PEER_RECOVERED on the way are no death.
    _f("ras_peer_dead", "process_lost", ["PEER_DEAD: ", "PEER_TIMEOUT_DEAD: "],
       r"\bPEER(?:_TIMEOUT)?_DEAD: (?:Process (?P<pid>\d+) on node (?P<host>\S+) managing GPUs? (?P<gpus>\d[\d,\-]*)|"
       r"(?P<host2>[^\s<>\[\]]+)<\d+>)"),
    # Ray's GCS (every driver's log, "(raylet)" or worker.py's WARNING): a node whose raylet stopped heartbeating, each
    # era's wording: "The node with client ID 1ead... has been marked dead because the monitor has missed too many
    # heartbeats from it." (ray-project/ray #3446, 2018), "The node with node id: 8f20... and ip: 10.128.0.103 has been
    # marked dead because the detector ..." (ray #22349, 2022), "The node with node id: c118... and address: 10.0.3.192
    # and node name: 10.0.3.192 has been marked dead because the detector ..." (ray #27710, 2022; KubeRay #3827, 2025);
    # a raylet that died: "Raylet is terminated: ip=192.168.207.5, id=abc3.... Termination is unexpected." (ray
    # #31119, 2023); Ray 2.52+'s task error: "Task failed because the node it was running on is dead or unavailable.
    # Node IP: 127.0.0.1, node ID: e55b..." (ray #58638)
    _f("ray_node_dead", "process_lost", ["has been marked dead because", "Raylet is terminated",
                                         "node it was running on is dead"],
       r"(?:The node with (?:client ID|node id:?) (?P<node_id>[0-9a-f]{16,})(?: and (?:ip|address): "
       r"(?P<host>[\w.:\-]+))?(?: and node name: \S+)? has been marked dead because the (?:detector|monitor)|"
       r"Raylet is terminated: ip=(?P<host2>[\w.:\-]+), id=(?P<node_id2>[0-9a-f]{16,})\. Termination is unexpected|"
       r"Task failed because the node it was running on is dead or unavailable\. Node IP: (?P<host3>[\w.:\-]+), "
       r"node ID: (?P<node_id3>[0-9a-f]{16,}))"),
    # Ray's raylet on a worker process of its node that died, no one saying why (its exit type SYSTEM_ERROR: the
    # connection to it closed; a SIGKILL, a crash, `ray stop --force`): "(raylet) A worker died or was killed while
    # executing a task by an unexpected system error. ... Worker IP address: 172.31.0.5 Worker port: 10228 Worker PID:
    # 1134587 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code
    # 2. End of file. ..." (PRIME-RL/Entropy-Mechanism-of-RL #7, 2025; hkust-nlp/simpleRL-reason #8, its address
    # 0.0.0.0, no host); the memory monitor's kill (NODE_OUT_OF_MEMORY) is the parsers' ray_oom (an OOM kill)
    _f("ray_worker_died", "process_lost", ["A worker died or was killed while executing"],
       r"A worker died or was killed while executing a task by an unexpected system error\..{0,400}?Worker IP address: "
       r"(?:0\.0\.0\.0|(?P<host>[\w.:\-]+)) Worker port: \d+ Worker PID: (?P<pid>\d+) Worker exit type: "
       r"(?P<exit_type>SYSTEM_ERROR)\b"),
    # Ray's error for an actor whose worker process died, the text of the driver's ActorDiedError / RayActorError,
    # every era since 2.0: "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR
    # Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. There are some
    # potential root causes. ..." (OpenRLHF/OpenRLHF #187, 2024; verl-project/verl #472, 2025), 2.4x's "... Worker exit
    # detail: Worker exits unexpectedly. Worker exits with an exit code None. The worker may have exceeded K8s pod
    # memory limits." (AgentR1/Agent-R1 #33, 2025): a worker of the job lost, Ray listing what may have ended it (its
    # guesses, no finding); the driver may be the only log a verl / OpenRLHF run leaves, the raylet's line (above)
    # printed on the worker's node alone. The memory monitor's kill (NODE_OUT_OF_MEMORY) is the parsers' ray_oom; an
    # exit the program asked for (INTENDED_USER_EXIT, USER_ERROR: the actor's own exception) is none.  The GCS's other
    # cause of the same error, the actor's node lost (gcs_actor_manager.cc GenNodeDiedCause): "The actor is dead because
    # its node has died. Node Id: 56b9..." (2.x to 2.9), "The actor died because its node has died. Node Id: ..", the
    # node's death info after it (2.10+, ray-project/ray PR #45497): the actor's process lost with its node, the node
    # the error's "ip:" field names
    _f("ray_actor_died", "process_lost", ["The actor is dead because its worker process has died",
                                          "because its node has died"],
       r"The actor is dead because its worker process has died\. Worker exit type: (?P<exit_type>SYSTEM_ERROR) Worker "
       r"exit detail: (?P<exit_detail>[^\n]{1,160}?)(?:\.(?: |$)|$)|"
       r"The actor (?:is dead|died) because its node has died\. Node Id: (?P<node_id>[0-9a-f]{16,})"),
    # The GCS's cause of an actor killed because the process that created it (its owner: the driver, or another actor)
    # died (gcs_actor_manager.cc GenOwnerDiedCause, every era since 2.0): "The actor is dead because its owner has died.
    # Owner Id: 0100...ffff Owner Ip address: 172.21.160.9 Owner worker exit type: SYSTEM_ERROR Worker exit detail:
    # Owner's node has crashed." (hiyouga/EasyR1 #324, 2025): the owner is the process lost, on the node at the address
    # the line names (the error's "pid:" and "ip:" fields are the actor's, killed with it: not read). An owner that
    # ended as asked (INTENDED_USER_EXIT: a driver that finished) is none
    _f("ray_actor_owner_died", "process_lost", ["The actor is dead because its owner has died"],
       r"The actor is dead because its owner has died\. Owner Id: [0-9a-f]{16,} Owner Ip address: "
       r"(?P<host>[\w.:\-]+) Owner worker exit type: (?P<exit_type>SYSTEM_ERROR) Worker exit detail: "
       r"(?P<exit_detail>[^\n]{1,160}?)(?:\.(?: |$)|$)"),
    # torch.distributed.elastic's RunResult.failures as DLRover's elastic agent logs it (dlrover/python/elastic_agent/
    # torch/training.py `_invoke_run`: logger.error(f"The worker fails with {run_result.failures}"), every era):
    # "The worker fails with {0: ProcessFailure(local_rank=0, pid=54, exitcode=-7, error_file='<N/A>', .., message=
    # 'Signal 7 (SIGBUS) received by PID 54', timestamp=1711419181)}" (intelligent-machine-learning/dlrover #1046).
    # The dict's key is the failed worker's global rank (torch's LocalElasticAgent._monitor_workers: "map local rank
    # failure to global rank", worker_failures[worker.global_rank] = failure), `local_rank` its index on the node;
    # the first failure the dict lists is read.  Before signal_received, which reads the quoted message alone (no rank)
    _f("elastic_process_failure", "rank_exit", [": ProcessFailure(local_rank="],
       r"[{,] ?(?P<rank>\d{1,6}): ProcessFailure\(local_rank=(?P<local_rank>\d{1,6}), pid=(?P<pid>\d+), "
       r"exitcode=(?P<exit_code>-?\d+)\b"),
    # A signal a process printed on its way down (torch's, glog's, Python's faulthandler; TensorFlow's stack trace
    # handler, before its "*** BEGIN MANGLED STACK TRACE ***": "*** Received signal 6 ***", horovod/horovod #2015,
    # "*** Received signal 7 ***", horovod #3952)
    _f("signal_received", "rank_exit", ["received by PID", "Fatal Python error", "Caught signal",
                                        "*** Received signal"],
       r"(?:Signal (?P<signal>\d+) \((?P<signame>SIG\w+)\) received by PID (?P<pid>\d+)|"
       r"(?:Caught signal (?P<signal2>\d+) \((?P<what>[^)]*)\)|\*\*\* Received signal (?P<signal3>\d+) \*\*\*)|"
       r"\*\*\* (?P<signame2>SIG\w+) \(@[^)]*\) received by PID (?P<pid2>\d+)|"
       r"Fatal Python error: (?P<fatal>Segmentation fault|Aborted|Bus error))"),
    # PyTorch's DataLoader, in the rank, on a worker process killed by a signal (torch/csrc/DataLoader.cpp, every era
    # since 0.4, glibc's strsignal() its word): "RuntimeError: DataLoader worker (pid 34569) is killed by signal: Bus
    # error. Details are lost due to multiprocessing. Rerunning with num_workers=0 may give better error trace."
    # (open-mmlab/mmdetection #291, 0.4.1), 1.x-2.x's "... Bus error. It is possible that dataloader's workers are
    # out of shared memory. Please try to raise your shared memory limit." (hkchengrex/STCN #132), "... is killed by
    # signal: Killed." (dbolya/yolact #680), "... Segmentation fault" (MhLiao/DB #94): the pid is the worker's, the
    # rank the line's writer.  Read as the traceback's exception too (triage.read)
    _f("dataloader_worker", "worker_exit", ["DataLoader worker"],
       r"DataLoader worker (?:\(pid (?P<pid>\d+)\) )?is killed by signal: (?P<how>[A-Z][a-z]+(?: [a-z]+){0,2})"),
    # Megatron's check of a rank's own loss and gradients for NaN / Inf before the data-parallel all-reduce (its
    # --check-for-nan-in-loss-and-grad, on by default), every era: before the rerun state machine (2024) an assert
    # naming the rank, its device and node ("AssertionError: Rank 11: found NaN in local grad norm in backward pass
    # before data-parallel communication collective. Device: 3", alibaba/Pai-Megatron-Patch #366; pretrain_gpt.py's
    # "Rank {rank}: found NaN in local forward loss calculation. Device: {device}, node: {node}"); the state machine's
    # RuntimeError with reruns disabled, the default ("Rank 2, node dcfai-xe9680-01, device 2, iteration -1:
    # Unexpected result nan (message='found NaN in local grad norm for bucket #0 ..')", NVIDIA-NeMo/Speech #14348), and
    # with reruns enabled its logged first report ("Unexpected result nan on rank 3 at iteration #3 invocation #2
    # (message='found NaN in local grad norm for bucket #0 ..')", NVIDIA/Megatron-LM #5026): the rank whose numerics
    # diverged, the others' timeouts its consequence. Was: nothing, a traceback's an exception of no rank. A NaN or
    # Inf only: the state machine's other checks (a spiky loss, a number) are not this kind.
    # The result as the state machine prints it: a float ("nan", the grad norm's) or a 0-dim tensor, the loss check's
    # `loss[0]` on the rank's GPU ("tensor(nan, device='cuda:3')", f"{result}" of a CUDA tensor; was: no fact)
    _f("megatron_nan_assert", "nonfinite_result", [": found NaN in local", ": found Inf in local"],
       r"\bRank (?P<rank>\d+): found (?P<result>NaN|Inf) in local (?P<where>[^.\n]+)\."
       r"(?: Device: (?P<gpu>\d+)(?:, node: (?P<host>[^\s,]+))?)?"),
    _f("megatron_unexpected_raised", "nonfinite_result", ["Unexpected result "],
       r"\bRank (?P<rank>\d+), node (?P<host>[^\s,]+), device (?P<gpu>\d+), iteration #?(?P<iteration>-?\d+): "
       r"Unexpected result " + _NONFINITE + r" \(message='(?P<check>[^'\n]*)"),
    _f("megatron_unexpected_logged", "nonfinite_result", ["Unexpected result "],
       r"\bUnexpected result " + _NONFINITE + r" on rank (?P<rank>\d+) at iteration #(?P<iteration>-?\d+)"
       r"(?: invocation #\d+ \(message='(?P<check>[^'\n]*))?"),
    # Megatron-LM's rerun state machine's verdicts (megatron/core/rerun_state_machine.py validate_result, --rerun-mode
    # validate_results, every era: log_failure's "Rank {rank}, node {node}, device {device}, iteration #{iteration}:
    # {message}!", before 2025 with no iteration), on the rank whose result its check rejected.  The first rerun, in
    # place: "Possible transient error!" (not reproduced: that GPU's transient fault, its node and device the line's),
    # or "First rerun: unexpected result is reproducible within the tolerance (..). Need to rerun on a different GPU to
    # verify correctness" (then exit code 16 to resume elsewhere; the suspect GPU the line's, named by the state machine
    # as its suspicious node and device; before 2025 a warning naming none).  The second, resumed from its checkpoint:
    # "Got rescheduled on the same GPU. Need to resume again from the same checkpoint (node: N, gpu: D)" (the suspect
    # again), "Possible persistent error!" (not reproduced on another GPU: the first GPU's fault; its line names the
    # other GPU, read as `rerun_host` / `rerun_gpu`, never the fact's host nor device), or "Correct result (but
    # possible Application error) (<check>)!" (the application's).  A verdict's category its row's; the first rerun's
    # reproduced result (and a reschedule on the same GPU) decides none: it names the suspect GPU
    _f("megatron_rerun_transient", "rerun_verdict", ["Possible transient error!"],
       _RERUN_ON + r"Possible transient error!", severity="warning", what="possible transient error",
       category="hardware"),
    _f("megatron_rerun_reproduced", "rerun_verdict", ["unexpected result is reproducible within the tolerance"],
       r"(?:" + _RERUN_ON + r")?First rerun: unexpected result is reproducible within the tolerance",
       severity="warning", what="reproduced on the same GPU"),
    _f("megatron_rerun_rescheduled", "rerun_verdict", ["Got rescheduled on the same GPU"],
       r"Got rescheduled on the same GPU\. Need to resume again from the same checkpoint \(node: (?P<host>[^\s,)]+), "
       r"gpu: (?P<gpu>\d+)\)", severity="warning", what="reproduced on the same GPU"),
    _f("megatron_rerun_persistent", "rerun_verdict", ["Possible persistent error!"],
       _RERUN_ELSEWHERE + r"Possible persistent error!", severity="warning",
       what="possible persistent error", category="hardware"),
    _f("megatron_rerun_correct", "rerun_verdict", ["Correct result (but possible Application error)"],
       _RERUN_ELSEWHERE + r"Correct result \(but possible Application error\)",
       severity="warning", what="correct result", category="application"),
    # The job's own straggler detection stopping it (stop_if_detected), on every rank (rank 0's verdict broadcast):
    # nvidia-resiliency-ext's Lightning StragglerDetectionCallback (src/nvidia_resiliency_ext/ptl_resiliency/
    # straggler_det_callback.py `_stop_training`: logger.error("Detected stragglers. Terminating training..."), the last
    # checkpoint saved, then sys.exit(1); its tests expect torchrun's "failed (exitcode: 1)" after it) and
    # Megatron-Bridge's NVRxStragglerDetectionManager.check_stragglers ("Detected stragglers. Training should be
    # stopped.", then its train loop exits).  The ranks the report before it named are the suspects (triage.attribute
    # `_straggler_stop`), the ranks' exits after it its consequences.  Was: the first rank's exit, cause undetermined
    # Python's argparse rejecting the process's command line (Lib/argparse.py ArgumentParser.error, every era: its
    # usage, then "%(prog)s: error: %(message)s", exit code 2), its messages (`parse_known_args`, `_parse_known_args`,
    # ArgumentError's "argument %s: %s"): "unrecognized arguments: ..", "the following arguments are required: ..",
    # "argument X: invalid <type> value: ..", "argument X: invalid choice: ..", "argument X: expected one argument" (and
    # at most / at least one, N), "argument X: not allowed with argument Y", "argument X: ignored explicit argument ..",
    # "one of the arguments .. is required", "ambiguous option: ..".  The program's name a token at the line's start
    # (sys.argv[0]'s base name: "main.py", "trainval_distributed.py"), then one of those messages: a line merely
    # holding "error:" is none.  The usage line before it is not required: ranks' usage lines interleave and a report
    # often quotes the error alone (skycrapers/TecoGAN-PyTorch #31).  The launcher's `--local-rank=N` (torchrun,
    # torch.distributed.launch 2.0+; `--local_rank=N` before) in the rejected arguments is the writer's local rank
    # (lmy98129/VLPD #6: "trainval_distributed.py: error: unrecognized arguments: --local-rank=0", then torchrun's
    # "failed (exitcode: 2) local_rank: 0"; huggingface/pytorch-image-models #1724).  `rejected`: the message up to a
    # parenthesis or semicolon (the Event's separators), no space before it ("invalid choice: 'hg' (choose from ..)":
    # "invalid choice: 'hg'", bearpaw/pytorch-pose #12)
    _f("argparse_error", "argument_error",
       [": error: unrecognized arguments: ", ": error: the following arguments are required: ", ": error: argument ",
        ": error: one of the arguments ", ": error: ambiguous option: "],
       r"^(?P<prog>[\w.\-]{1,200}): error: (?P<rejected>(?:unrecognized arguments: " + _LOCAL_RANK_ARG + "?|"
       r"the following arguments are required: |"
       r"argument [^:\n]{1,200}: (?:invalid [\w.]{1,100} value: |invalid choice: |expected (?:one|at most one|"
       r"at least one|\d{1,4}) arguments?|not allowed with argument |ignored explicit argument )|"
       r"one of the arguments |ambiguous option: )" + _REJECTED_REST + ")"),
    # absl's app.run rejecting the command line (absl/app.py parse_flags_with_usage, every era since gflags: "FATAL
    # Flags parsing error: <message>" then "Pass --helpshort or --helpfull to see help on flags.", exit code 1; a
    # message of several lines, one validator's each, indented on the lines after "FATAL Flags parsing error:"): the
    # flags of JAX / TensorFlow programs (AlphaFold, T5X, Pax, MaxText's absl entry points).  An unknown flag ("Unknown
    # command line flag 'db_preset'. Did you mean: preset ?", google-deepmind/alphafold #294: the run script of one
    # release, the image of another) or a required one missing ("flag --fasta_paths=None: Flag --fasta_paths must
    # have a value other than None.", alphafold #719).  Its program unnamed; led by a logger's prefix where a wrapper
    # relays it (bq's, in Airflow's pod log: mozilla/telemetry-airflow #860).  Was: nothing ("No failure found")
    _f("absl_flags_error", "argument_error", ["FATAL Flags parsing error:"],
       r"(?:^|\s)FATAL Flags parsing error:(?: (?P<rejected>" + _REJECTED_REST + "))?"),
    # Python Fire rejecting the command line (fire/core.py _DisplayError: "ERROR: " then the FireError's words, its
    # "ERROR: " red and bold where termcolor colours it; usage after it, exit code 2, FireExit): an argument no
    # parameter of the function takes ("Could not consume arg: --model_config_file", LianjiaTech/BELLE #102, then
    # torchrun's "failed (exitcode: 2) local_rank: 1"; torch.distributed.launch's `--local_rank=N` one such) or one it
    # requires missing ("The function received no value for the required argument: data", gpleiss/
    # efficient_densenet_pytorch #72).  Was: torchrun's exit alone, "UNDETERMINED"
    _f("fire_error", "argument_error",
       ["Could not consume arg", "received no value for the required argument: "],
       r"(?:^|\s)(?:\x1b\[[\d;]*m)*ERROR: (?:\x1b\[[\d;]*m)*(?P<rejected>(?:Could not consume arg(?:ument)?s?: "
       + _LOCAL_RANK_ARG + "?|The function received no value for the required argument: )" + _REJECTED_REST + ")"),
    _f("straggler_stop", "straggler_stop", ["Detected stragglers. "],
       r"\bDetected stragglers\. (?P<stop>Terminating training|Training should be stopped)\b"),
    # PyTorch's watchdog, 2.2+: "[PG 1 Rank 0] Exception (either an error or timeout) detected by watchdog at work:
    # 1580, last enqueued NCCL work: 1582, last completed NCCL work: 1579." and 2.1-2.3's "Timeout at NCCL work: ..."
    # and 2.6+'s "[PG ID 0 PG GUID 0(default_pg) Rank 118]  failure detected by watchdog at work sequence id: 2398459
    # PG status: last enqueued work: 2398578, last completed work: 2398458"
    _f("watchdog_progress", "nccl_progress", ["last enqueued NCCL work", "last enqueued work"],
       _PG_PREFIX + r"(?:(?:Exception \(either an error or timeout\) detected by watchdog at work|"
       r"Timeout at NCCL work): (?P<seq>-?\d+), last enqueued NCCL work: (?P<last_enqueued>-?\d+), "
       r"last completed NCCL work: (?P<last_completed>-?\d+)|failure detected by watchdog at work sequence id: "
       r"(?P<seq2>-?\d+) PG status: last enqueued work: (?P<last_enqueued2>-?\d+), last completed work: "
       r"(?P<last_completed2>-?\d+))"),
    # PyTorch 2.4+'s flight recorder, on every rank once one rank's collective timed out (process group 0's monitor
    # prints it, with that group's numbers): "[PG ID 0 PG GUID 0(default_pg) Rank 5] Received a dump signal due to a
    # collective timeout from  rank 2 and we will try our best to dump the debug info. Last enqueued NCCL work: 136,
    # last completed NCCL work: 136.This is most likely ..." ("from this local rank" when its own timed out); a
    # rank whose own work never timed out says here how far it got. 2.2-2.3's monitor words the same lines "[PG 0
    # Rank 0] Received a timeout signal from this local rank and will start to dump the debug info. Last enqueued NCCL
    # work: 2, last completed NCCL work: 1." and "Received a global timeout from another rank and will start to dump
    # the debug info. Last enqueued .." (pytorch/pytorch #122850's test output; parsers/rules.py torch_dump_signal):
    # the same numbers (was: not read, so a 2.3 job's lagging rank went unnamed)
    _f("dump_signal", "nccl_dump", ["Received a dump signal", "Received a timeout signal from this local rank",
                                    "Received a global timeout from"],
       _PG_PREFIX + r"Received a (?:dump signal due to a collective timeout|timeout signal|global timeout) "
       r"from +(?:(?P<own>this local rank)|another rank|rank (?P<signal_from>\d+)).{0,200}?Last enqueued NCCL work: "
       r"(?P<last_enqueued>-?\d+), last completed NCCL work: (?P<last_completed>-?\d+)", severity="warning"),
    # the heartbeat monitor: the watchdog thread itself is stuck (a CUDA call that never returns); 2.5+ ends with
    # "[PG ID 0 PG GUID 0(default_pg) Rank 2] Terminating the process after attempting to dump debug info, due to
    # ProcessGroupNCCL watchdog hang."
    _f("heartbeat", "nccl_hang", ["Heartbeat monitor timed out", "watchdog got stuck", "due to ProcessGroupNCCL watchdog hang"],
       r"(?:Rank (?P<rank>\d+)\] )?(?:Heartbeat monitor timed out|(?:ProcessGroupNCCL'\s*s )?watchdog got stuck|"
       r"Terminating the process after attempting to dump debug info, due to ProcessGroupNCCL watchdog hang)"),
    # the flight recorder announcing a dump, on every rank a timeout anywhere reached, its own or not: "[PG 0 Rank
    # 144] ProcessGroupNCCL preparing to dump debug info." (2.3+, "... Include stack trace: 1" later), and the exit
    # after it: "Terminating the process after attempting to dump debug info, due to collective timeout or
    # exception."; no timeout of this rank's (the parsers read them as part of a rank's watchdog failure);
    # 2.5+'s monitor thread on a rank whose own watchdog had not fired, told through the store that another's had
    # (before its "Received a dump signal .. from  rank N"): "[PG ID 0 PG GUID 0(default_pg) Rank 5] Observed flight
    # recorder dump signal from another rank via TCPStore." (bytedance/Protenix #321): heard from, not gone silent
    _f("dump_notice", "nccl_dump", ["preparing to dump debug info", "after attempting to dump debug info",
                                    "Observed flight recorder dump signal"],
       r"(?:Rank (?P<rank>\d+)\] +)?(?:ProcessGroupNCCL preparing to dump debug info|Terminating the process after "
       r"attempting to dump debug info|Observed flight recorder dump signal from another rank)", severity="warning"),
    # PyTorch's monitored_barrier (ProcessGroupGloo, every release since 1.9): rank 0 names the ranks that did not
    # reach it in time, "[E ProcessGroupGloo.cpp:138] [Rank 0]: Rank 2 failed to pass monitoredBarrier in 30000 ms"
    # (QwenAudio/CosyVoice #180), with wait_all_ranks (and 2.x's single rank too) "RuntimeError: [Rank 0]: Ranks 6
    # failed to pass monitoredBarrier in 180000000000 ms" (hiyouga/LlamaFactory #6000), PyTorch's docs' "RuntimeError:
    # Rank 1 failed to pass monitoredBarrier in 2000 ms"; every other rank is told to look there: "Rank 3 successfully
    # reached monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please check rank 0 logs
    # for faulty rank." (CosyVoice #180, sgl-project/sglang #5602): a consequence, naming no culprit of its own
    _f("barrier_lagging", "barrier_timeout", ["failed to pass monitoredBarrier"],
       r"Ranks? (?P<lagging>\d+(?:, \d+)*) failed to pass monitoredBarrier in (?P<timeout_ms>\d+) ms"),
    _f("barrier_told", "barrier_timeout", ["successfully reached monitoredBarrier"],
       r"Rank (?P<rank>\d+) successfully reached monitoredBarrier, but received errors while waiting for send/recv "
       r"from rank (?P<from_rank>\d+)"),
    # SGLang's ModelRunner.load_model (python/sglang/srt/model_executor/model_runner.py, 0.4+) waits for the TP group
    # at a monitored_barrier(wait_all_ranks=True) after loading its weights and turns the barrier's RuntimeError into
    # its own: "ValueError: TP rank 1 could finish the model loading, but there are other ranks that didn't finish
    # loading. It is likely due to unexpected failures (e.g., OOM) or a slow node." (kvcache-ai/ktransformers #1666):
    # the rank that wrote it loaded and waited, as barrier_told's did; the rank that failed is another (was: no
    # failure, or an exception blamed on the rank that waited)
    _f("load_barrier_told", "barrier_timeout", ["could finish the model loading"],
       r"TP rank (?P<rank>\d+) could finish the model loading, but there are other ranks that didn't finish loading"),
    # PyTorch's desync report (TORCH_NCCL_DESYNC_DEBUG=1, torch/csrc/distributed/c10d/TraceUtils.h), which the rank whose
    # collective timed out prints from every rank's collective starts and ends in the store: "- To our best knowledge,
    # the lagging/dead/mismatched ranks that caused the desync are:", then the ranks at the job's earliest collective,
    # one line each way, "[7] finished collective #182, but didn't join collective #183 (count from 1)" (pytorch/pytorch
    # #152623) and "[1, 2] joined but didn't finish collective #182 (count from 1)", or, where a rank never traced a
    # collective, "ranks [47] are the lagging ranks that caused this timeout. They never joined any collectives": the
    # ranks the job waited for, as a barrier's lagging ranks are (the report's own count of collectives, from 1, is
    # not the WorkNCCL SeqNum). Was: not read (the job undetermined)
    _f("desync_lagging", "barrier_timeout", ["but didn't join collective #", "joined but didn't finish collective #",
                                             "are the lagging ranks that caused this timeout"],
       r"(?:\[(?P<lagging>\d+(?:, \d+)*)\] (?:finished collective #(?P<collective>\d+), but didn't join collective #\d+|"
       r"joined but didn't finish collective #(?P<collective2>\d+))|"
       r"ranks \[(?P<lagging2>\d+(?:, \d+)*)\] are the lagging ranks that caused this timeout)"),
    # JAX's multi-process runtime (XLA's coordination service) giving up on a barrier the job's tasks meet at:
    # jax.distributed.initialize's "PjRT_Client_Connect" (the tasks that never came up to connect), a checkpointer's or
    # a framework's own wait_at_barrier ("multihost_broadcast_sync0"), every era's words: "jaxlib.xla_extension.
    # XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names:"
    # (ayaka14732/llama-2-jax #20, 2023, a GPU node; marin-community/levanter #432, 2024), 2024+'s "DEADLINE_EXCEEDED:
    # Barrier timed out. Id: <id>. This usually happens because a task triggered the barrier too early or too slowly.
    # .." ("jaxlib._jax.XlaRuntimeError" in 2025's jaxlib; xla/tsl coordination_service.cc), the tasks that did not
    # arrive on the lines after it (TASK_LIST_OPENERS). Was: an exception naming a timeout, a consequence, and no
    # failure at all ("No failure found"): the tasks named are the job's lagging ranks (JAX's task id is its process
    # index), the rest waited for them.
    _f("xla_barrier_timeout", "barrier_timeout", ["DEADLINE_EXCEEDED: Barrier timed out"],
       r"DEADLINE_EXCEEDED: Barrier timed out\. (?:Barrier_id|Id): (?P<barrier>\S{1,200}?)\.(?= |$)"),
    # The same service's key-value wait giving up (xla/tsl coordination_service_agent.cc GetKeyValue, every era since
    # TF 2.8: "DEADLINE_EXCEEDED: GetKeyValue() timed out with key: <key> and duration: <duration>"): a task waited for a
    # value another task had to publish (a collective's NCCL clique id, jax.distributed.initialize's local topologies)
    # and it never came, the job's tasks stalled at a meeting point as at a barrier: "E0000 00:00:1743713172.513857
    # 698835 pjrt_stream_executor_client.cc:3072] Execution of replica 0 failed: DEADLINE_EXCEEDED: GetKeyValue() timed
    # out with key: devices=[0,1,..,29]; stream=0; .. and duration: 10m [..]" (EnzymeAD/Enzyme-JAX #623, 8 nodes).
    # The key names no task that was late. Was: no failure at all ("No failure found").
    _f("xla_key_value_timeout", "barrier_timeout", ["GetKeyValue() timed out with key: "],
       r"DEADLINE_EXCEEDED: GetKeyValue\(\) timed out with key: (?P<key>.{1,400}?) and duration: (?P<duration>\w+)",
       what="key-value wait"),
    # Slurm ends a step or job: "slurmstepd: error: *** STEP 1234.0 ON node-3 CANCELLED AT 2023-01-01T00:00:00
    # DUE TO TIME LIMIT ***", "*** JOB 99 ON gpu-1 CANCELLED AT ... DUE TO NODE FAILURE, SEE SLURMCTLD LOG ***"
    # For a node failure that host is never the failed node: slurmctld signals the steps on the nodes it can still
    # reach (SIG_NODE_FAIL), and the slurmstepd that prints the line runs on one of them; srun names the failed node
    # itself, before it: "srun: error: Node failure on jean-zay-iam37", then "slurmstepd: error: *** STEP 1943824.0 ON
    # jean-zay-iam17 CANCELLED AT 2023-03-06T03:17:51 DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***"
    # (huggingface/m4-logs, tr_141 ..._num_workers_06; was: the root on jean-zay-iam17, the node that was fine):
    # the cancel's host is its reporter's (REPORTER_ONLY), the srun line's the failed node's.
    _f("slurm_cancelled", "job_ended", ["CANCELLED AT"],
       r"\*\*\* (?:STEP|JOB) (?P<job>\S+) ON (?P<host>\S+) CANCELLED AT (?P<at>\S+)(?: DUE TO (?P<why>[A-Z ]+?))?"
       r"(?:,| \*\*\*|$)"),
    _f("srun_node_failure", "job_ended", ["Node failure on "],
       r"\b\w*run: error: Node failure on (?P<host>[^\s:]+)\s*$", why="NODE FAILURE"),
    # Slurm's summary of the OOM kills in a step's cgroup, every wording: "Detected 2 oom-kill event(s) in step
    # 3756240.batch cgroup." (lanl/PyBNF #118, 2018), "Detected 1 oom-kill event(s) in StepId=191.batch cgroup. Some of
    # your processes may have been killed by the cgroup out-of-memory handler." (ArjunaCluster/ArjunaUsers #52, 2021;
    # without "cgroup" in brain-score/vision #950, 2024), "Detected 1 oom_kill event in StepId=43622791.67. Some of
    # the step tasks have been OOM Killed." ("events" for several; dstndstn/tractor #126, 2025). The step is its job
    # (as a cancel's STEP), published live by it (LIVE_FACTS job_ended); its reason the words of the state Slurm gives the step
    # (sacct's OUT_OF_MEMORY; srun's "task 0: Out Of Memory").
    _f("slurm_oom", "job_ended", ["oom-kill event", "oom_kill event"],
       r"Detected (?P<count>\d+) oom[-_]kill events?(?:\(s\))? in (?:step |StepId=)?(?P<job>\S+?)\.?(?: Some of your "
       r"processes|$|\s)", why="OUT OF MEMORY"),
    # Slurm's own enforcement of the memory the job asked for (src/common/slurm_jobacct_gather.c
    # jobacct_gather_handle_mem_limit: the accounting poll found the step over --mem and killed it, no cgroup OOM kill):
    # "slurmstepd-dback-c11-n01: error: Job 848444 exceeded memory limit (33715636 > 32757760), being killed"
    # (bcbio/bcbio-nextgen #2393, 2018; jmonlong/PopSV #7, 2017), "slurmstepd-falkor7: error: Step 1141810.0 exceeded
    # memory limit (52917772 > 20971520), being killed" (openbabel/openbabel #2657, 2023), "%ps" since 20.11 ("StepId=
    # 1.0", "JobId=1"), its virtual-memory twin "exceeded virtual memory limit"; "Exceeded job memory limit" (srun's
    # or slurmstepd's) and the step's plain cancel ("*** STEP .. CANCELLED AT .. ***", no reason) follow it.  The job's
    # memory, its own limit (why OUT OF MEMORY: WHY_OOM's cgroup, the application's); slurmstepd's prefix its node.
    # Was: the cancel's "undetermined" or srun's "task 0: Killed", its cause undetermined.
    _f("slurm_mem_limit", "job_ended", ["memory limit ("],
       r"(?:slurmstepd(?:-(?P<host>" + HOST_NAME + r"))?: error: )?(?:Job |Step |StepId=|JobId=)(?P<job>\d+(?:\.\w+)?) "
       r"exceeded (?:virtual )?memory limit \(\d+ > \d+\), being killed", why="OUT OF MEMORY"),
    # srun's own word for its tasks' end in the state OUT_OF_MEMORY (src/srun launch `_task_finish`: the task's exit
    # status slurmstepd sent is SIG_OOM, which it sends for every task of a step whose cgroup's OOM check failed,
    # whatever the task's own status): "srun: error: gpu001: task 0: Out Of Memory" (FoNDUE-HTR/Documentation #5,
    # 2021), "srun: error: udc-ba26-19: task 0: Out Of Memory" (pepkit/geofetch #13, Slurm 17's, after "Exceeded job
    # memory limit at some point."), "tasks 1-3: Out Of Memory"; printed once a step.  The step's end for lack of
    # memory (as slurm_oom, which it follows where Slurm prints that summary: WHY_OOM's cgroup, the application's),
    # its node and tasks srun's.  Was: srun_task's rank_exit, a death nothing explained ("undetermined") where no
    # summary came with it.
    _f("srun_task_oom", "job_ended", [": Out Of Memory"],
       SRUN_TASK_HEAD + r"(?P<how>Out Of Memory)",
       why="OUT OF MEMORY"),
    # The kubelet started a container of the pod (pkg/kubelet/events StartedContainer, "Started container <name>"; the
    # 1.6 era's "Started container with id .."): describe's Events row (the described pod's, triage.read), `kubectl get
    # events`' (the object column "pod/<name>").  The pod ran: a FailedMount it logged before is one the kubelet's
    # retry got past ("failed to sync configmap cache: timed out waiting for the condition" then Pulled, Created,
    # Started, kubebb/core PR #130; a flexvolume's "failed to get key vault" then Started, Azure/kubernetes-keyvault-
    # flexvol #68), no pod that never started
    _f("k8s_started", "pod_started", ["Started container"],
       _event_row(r"Normal\s+Started", "pod", "pod") + r"Started container\b",
       "info"),
    # Kueue admitting a workload (pkg/scheduler scheduler.go's Event on the Workload, reason Admitted: "Admitted by
    # ClusterQueue %v", later "Admitted by ClusterQueue %v, wait time since reservation was %.0fs"; its job reconciler's
    # on the job it unsuspends, reason Started: "Admitted by clusterQueue %v", pkg/controller/jobframework
    # reconciler.go): describe's Events row, `kubectl get events`' (its object "workload/<name>", "job/<name>").  After
    # Kueue's own preemption of the workload (QUEUE_PREEMPTION) in the same Events, the queue requeued and admitted it
    # again: the job runs, the preemption is none of its failures ("Preempted .. to accommodate a workload" then
    # "Admitted (x2 over 10m)", kubernetes-sigs/kueue #2012).  An Event row only: the Workload's Admitted condition's
    # message says no time (a -o yaml's conditions are in no order of time)
    _f("kueue_admitted", "queue_admitted", ["Admitted by ClusterQueue ", "Admitted by clusterQueue "],
       _event_row(r"Normal\s+(?:Admitted|Started)", r"[a-z][a-z0-9.\-]{0,62}", "qobj") +
       r"Admitted by [Cc]lusterQueue \S",
       "info"),
    # The node controller marking the pod not ready, its node's Ready condition no longer True (pkg/controller/util/
    # node MarkPodsNotReady, `recorder.Event(pod, Warning, "NodeNotReady", "Node is not ready")`): describe's Events
    # row, `kubectl get events`' ("16m Warning NodeNotReady pod/java-demo-api-5b876b98f8-nc7ct Node is not ready",
    # robert-fekete/KubernetesDemo's README). Context only (a node's blip says it too): the taint manager's deletion
    # of the same pod after it is for its node not ready (triage.attribute Job.not_ready). The node's own Event
    # ("Normal NodeNotReady node/.. Node .. status is now: NodeNotReady") is not read
    _f("k8s_not_ready", "pod_not_ready", ["Node is not ready"],
       _event_row(r"Warning\s+NodeNotReady", "pod", "pod") + r"Node is not ready\b", "info"),
    # The NVIDIA GPU Operator's driver upgrade controller evicting a node's pods (NVIDIA/k8s-operator-libs pkg/upgrade:
    # its Events on the Node, reason GPUDriverUpgrade, "Successfully updated node state label to %s", 2024+ "[%s]", its
    # pod_manager.go's "Deleted workload pods on the node for the driver upgrade"): `kubectl get events`' rows ("10m
    # Normal GPUDriverUpgrade node/localhost.localdomain Successfully updated node state label to
    # [pod-deletion-required]", NVIDIA/cloud-native-docs gpu-operator/gpu-driver-upgrades.rst), describe node's Events
    # table (no object column: no node named). Only the states that evict: pod-deletion-required (the GPU pods) and
    # drain-required (the node's); a routine upgrade's other states (upgrade-required, cordon-required, upgrade-done,
    # ..) and an upgrade that failed are no pod's end. Context only, never a failure (a routine upgrade of the node is
    # healthy noise): an Eviction API eviction after it, of a pod on that node, is the upgrade's
    # (triage.attribute Job._refined, POD_ENDS "drain:GPUDriverUpgrade")
    _f("gpu_driver_upgrade", "node_driver_upgrade", ["GPUDriverUpgrade"],
       _event_row("GPUDriverUpgrade", "node", "host") +
       r"(?:Successfully updated node state label to \[?(?:pod-deletion|drain)-required\]?(?![-\w])|"
       r"Deleted workload pods on the node for the driver upgrade\b)", "info"),
    # Karpenter disrupting a node (kubernetes-sigs/karpenter pkg/controllers/disruption/events: its Event on the Node,
    # type Normal, reason DisruptionTerminating, "Disrupting Node: <the disruption's reason>[/<Delete|Replace>]"):
    # `kubectl get events`' row ("default 0s Normal DisruptionTerminating node/ip-10-0-40-247.ec2.internal Disrupting
    # Node: Expiration/Replace", aws/karpenter-provider-aws #5806, tests/fixtures/pods/ended/
    # events-karpenter-disrupting.txt), describe node's Events table (no node named).  Its twin on the NodeClaim
    # ("Disrupting NodeClaim: ..") names no node.  Context only, never a failure (consolidation, drift, expiry is
    # routine): an Eviction API eviction after it, of a pod on that node, is Karpenter's (triage.attribute
    # Job._refined, POD_ENDS "evict:Karpenter")
    _f("karpenter_disrupting", "node_disruption", ["DisruptionTerminating"],
       _event_row("DisruptionTerminating", "node", "host") +
       r"Disrupting Node: (?P<disruption>[A-Z][\w/]{0,80})", "info"),
    # aws-node-termination-handler's spot interruption notice of a node (its Event on the Node, `emit-kubernetes-events`,
    # type Normal, reason SpotInterruption, source aws-node-termination-handler; aws/aws-node-termination-handler
    # docs/kubernetes_events.md, pkg/observability/k8s-events.go): IMDS mode's "Spot ITN received. Instance will be
    # interrupted at <time>" (pkg/monitor/spotitn; "Description:Spot ITN received. Instance will be interrupted at
    # 2020-09-15T21:15:41Z", docs/aemm_interruption_testing.md), queue mode's "Spot Interruption notice for instance
    # <id> was sent at <time>" (pkg/monitor/sqsevent/spot-itn-event.go).  It then cordons and drains the node through
    # the Eviction API.  Context only (a notice of a node no job ran on is none of a job's): an Eviction API eviction
    # after it, of a pod on that node, is the cloud reclaiming the spot VM (triage.attribute Job._refined, POD_ENDS
    # "SpotInterruption"), not a drain of no known cause
    _f("nth_spot_interruption", "node_spot_interruption", ["SpotInterruption"],
       _event_row("SpotInterruption", "node", "host") +
       r"(?:Spot ITN received\. Instance will be interrupted at|Spot Interruption notice for instance \S{1,64} was "
       r"sent at)\b", "info"),
    # Karpenter's spot interruption notice of a node (aws/karpenter-provider-aws pkg/controllers/interruption/events/
    # events.go SpotInterrupted, commit 1dea438a: its Event on the Node, its NodeClaim and, since PR #8289, the node's
    # pods, type Warning, reason SpotInterrupted, "Spot interruption warning was triggered"), as NTH's above: it then
    # taints, drains (the Eviction API, its Evicted Events of the pods) and deletes the node.  Context only: an eviction
    # of a pod on that node after it is the cloud reclaiming the spot VM (POD_ENDS "SpotInterruption"); `kubectl get
    # events`' row names the node, describe's Events table none; its NodeClaim's and pods' twins (another object
    # named: "nodeclaim/..", "pod/..") are not read, the same notice said again of no node
    _f("karpenter_spot_interrupted", "node_spot_interruption", ["SpotInterrupted"],
       r"\bSpotInterrupted\s+(?:node/(?P<host>" + _K8S_NAME + r")\s+|(?=\S)(?![\w.\-]{1,253}/))(?:[^\n]{0,400}?\s)?"
       r"Spot interruption warning was triggered\b", "info"),
    # Kubernetes ended the pod itself (kubectl describe / get -o yaml / events; POD_ENDS, shared with the cluster
    # component, which reads the same reasons off the pod's status): its status.reason ("Reason:               Evicted",
    # "Message:              The node was low on resource: ephemeral-storage. Threshold quantity: 1Gi, available:
    # 777784Ki." kubernetes/kubernetes #122932; "Message:      Pod was terminated in response to imminent node
    # shutdown." #104798; "Message:        Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed
    # with err: ... nvml: GPU is lost, which is unexpected" #97131), its DisruptionTarget condition's reason
    # ("\"reason\": \"PreemptionByKubeScheduler\"," #114623; gitlab-runner's "reason \"EvictionByEvictionAPI\", message
    # \"Eviction API: evicting\"", qemu-devel 2025-10-23), or a container OOM-killed by the kubelet ("OOMKilled").
    # "Evicted" and "Preempted" are English words a serving engine's or a cache's log uses too (vllm.rs's "Evicted 715
    # prefix cache block(s) to reserve ..", vLLM's "Preempted request cmpl-.. has been resumed!"): read only where
    # Kubernetes prints them as a reason: describe's "Reason:", -o yaml / json's reason, an Event's row after its type
    # (kubectl get events, describe's Events table), `kubectl get pods`' STATUS column (after READY "0/1", before
    # RESTARTS), the scheduler's Event message ("Preempted by <ns>/<pod> on node <node>", 1.26+ "Preempted by a pod on
    # node ..") and the kubelet's ("Preempted in order to admit critical pod"), Kueue's eviction of a workload (its
    # Evicted condition's and Events' message, the job's "Stopped" Event quoting it: "Preempted to accommodate a
    # workload (UID: ..) due to prioritization in the ClusterQueue", an older wording "Preempted to accommodate a higher
    # priority Workload"; pkg/scheduler/preemption/preemption.go).  The kubelet's eviction manager
    # (eviction_manager.go) says it in its own log, lowercase, naming the pod, every era: klog text (1.9-1.20: "eviction
    # manager: pods kube-proxy-kfs8p_kube-system(27fd6b4b-..) evicted, waiting for pod to be cleaned up", minikube's
    # pkg/minikube/logs/logs_test.go quoting kubernetes/minikube #3611; "eviction manager: pod <name>_<ns>(<uid>) is
    # evicted successfully"), structured after 1.21 ("\"Eviction manager: pod is evicted successfully\"
    # pod=\"sre/infras-logstash-..\"" kubernetes/kubernetes #132001; "\"Eviction manager: pods evicted, waiting for pod
    # to be cleaned up\" pods=[..]"): the pod's node-pressure eviction, the pod named; its "pods ranked for eviction"
    # (candidates, none evicted yet) is not.  The taint manager's Event of its deletion (TaintManagerEviction, "Marking
    # for deletion Pod <ns>/<name>", pkg/controller/tainteviction; the pod's node not ready or unreachable past its
    # toleration: `kubectl get events` "Warning NodeNotReady pod/.. Node is not ready" then "Normal
    # TaintManagerEviction pod/.. Marking for deletion Pod java-demo/..", robert-fekete/KubernetesDemo's README) is
    # DeletionByTaintManager, the pod its message names; before taint-based eviction the node controller's
    # (NodeControllerEviction, "Starting deletion of Pod <name> from Node <node>", later "Marking for deletion Pod
    # <name> from Node <node>") NodeLost, on the node it names.  Its "Cancelling deletion of Pod" (the taint gone in
    # time) ends nothing
    _f("k8s_ended", "job_ended", ["Evicted", "Preempted", "OOMKilled", "The node was low on resource", "PreemptionBy",
                                  "viction manager: pod",
                                  "DeletionByTaintManager", "EvictionByEvictionAPI", "DeletionByPodGC",
                                  "TerminationByKubelet", "NodeLost", "UnexpectedAdmissionError",
                                  "TopologyAffinityError", "Topology Affinity Error",
                                  "Resources cannot be allocated with Topology locality",
                                  "in response to imminent node shutdown", "in response to node shutdown",
                                  "Node is shutting, evicting pods", "which is unexpected", "DeadlineExceeded",
                                  "longer than the specified deadline", "longer than specified deadline",
                                  "Shutdown", "Terminated", "ErrImagePull", "ImagePullBackOff", "SPOT_ITN",
                                  "SpotInterruptionKind", "spot_interrupted", "deleting pod for node scale down",
                                  "Preempt Scheduled: ", "compute.instances.preempted", "OutOf", "Outof",
                                  "is about to be terminated. Evicting pod prior to node termination",
                                  "FailedMount", "FailedAttachVolume", "Volume.SetUp failed for volume",
                                  "Volume.MountDevice failed for volume", "Volume.Attach failed for volume",
                                  "DeletionByDeviceTaintManager", "FailedPrepareDynamicResources",
                                  "Failed to prepare dynamic resources", "Marking for deletion Pod ",
                                  "Starting deletion of Pod ", "Allocate failed due to ",
                                  "plugin resources failed due to ", "enough resource: ",
                                  "NodeAffinity", "NodePorts", "PodFitsHostPorts", "TaintToleration"],
       r"\b(?P<why>OOMKilled|" + "|".join(REASON_ANYWHERE) + r")\b|"
       + _event_row(r"Normal\s+(?P<why5>Evict(?:ed)?|ScaleDown)", "pod", "epod4", 200) +
       r"(?=" + _KARPENTER_SAYS + "|" + _SCALE_DOWN_SAYS + r")|"
       # klog's line of an Event about a pod (client-go tools/record's "Event(%#v): type: '%v' reason: '%v' %v"),
       # the pod its ObjectReference names the pod ended (ons/opod); other kinds' Events by the reason alone below
       r"\bEvent(?:\((?:v1|api)\.ObjectReference\{Kind:\"Pod\", Namespace:\"(?P<ons>" + _K8S_NS + r")\", "
       r"Name:\"(?P<opod>" + _K8S_NAME + r")\"[^}\n]{0,400}\}\): (?:type: '\w{1,20}' )?reason: "
       r"'(?P<why6>" + "|".join(REASON_WORDS) + "|" + OUT_OF_WORD + r")'|"
       # its structured twin (1.19+ klog's InfoS, client-go tools/record event.go: "Event occurred" object="<ns>/<name>"
       # [fieldPath=".."] kind="Pod" apiVersion="v1" type=".." reason=".."), the pod its object names (ons7/opod7):
       # "\"Event occurred\" object=\"<namespace>/<podname>\" kind=\"Pod\" apiVersion=\"v1\" type=\"Warning\"
       # reason=\"UnexpectedAdmissionError\" ..", kubernetes/kubernetes #124345
       r" occurred\" object=\"(?P<ons7>" + _K8S_NS + r")/(?P<opod7>" + _K8S_NAME + r")\" "
       r"(?:fieldPath=\"[^\"\n]{0,300}\" )?kind=\"Pod\" apiVersion=\"v1\" type=\"\w{1,20}\" reason=\""
       r"(?P<why7>" + "|".join(REASON_WORDS + REASON_ANYWHERE) + "|" + OUT_OF_WORD + r")\")|"
       r"(?:\b[Rr]eason(?::\s*|=)|\"reason\":\s*|\b(?:" + "|".join(EVENT_TYPES) + r")\s+)"
       r"[\"']?(?P<why2>" + "|".join(REASON_WORDS) + "|" + OUT_OF_WORD + r")\b|"
       r"(?:^(?:(?P<rns>" + _K8S_NS + r")\s+)?(?:pod/)?(?P<rpod>" + _K8S_NAME + r")\s+|\s)"
       r"\d+/\d+\s+(?P<why3>" + "|".join(REASON_WORDS + REASON_STATUS_ONLY) + "|" + OUT_OF_WORD + r")\s+\d+"
       r"(?:\s+\d+[smhdy]\w*\s+(?:<none>|[0-9a-fA-F.:]+)\s+"
       r"(?P<rnode>" + _K8S_NAME + r")(?=\s|$))?|"
       r"(?:\bpod/(?P<epod>" + _K8S_NAME + r")\s+)?\bError: (?P<pull>ErrImagePull|ImagePullBackOff)\b|"
       r"\bWarning\s+(?P<mount>FailedMount|FailedAttachVolume|FailedPrepareDynamicResources)\b" + _NO_RACE +
       r"(?:\s+pod/(?P<epod2>" + _K8S_NAME + r")\b)?|"
       r"\b(?P<mount2>MountVolume\.(?:SetUp|MountDevice)|AttachVolume\.Attach) failed for volume\b" + _NO_RACE + "|"
       r"\b(?P<mount3>Failed to prepare dynamic resources)(?:: |\" err=\"(?:(?:[^\"\\\n]|\\.){0,8192}?\" "
       r"pod=\"(?P<epod3>" + _K8S_NS + "/" + _K8S_NAME + r")\")?)|"
       r"(?P<spot>\"Kind\":\"SPOT_ITN\".{0,400}?\"NodeName\":\"(?P<host>[^\"\s]+)\"|"
       r"\"messageKind\":\s?\"(?:SpotInterruptionKind|spot_interrupted)\".{0,400}?\"[Nn]ode\":\s?(?:\{\"name\":\s?)?"
       r"\"(?P<host2>[^\"\s]+)\"|"
       r"(?:\bnode/(?P<host4>[^\s/]+)\s.{0,200}?)?\bPreempt Scheduled: |"
       r"\bcompute\.instances\.preempted\b.{0,400}?/instances/(?P<host5>[^\s/\"]+))|"
       # GKE's node termination handler's Event of a pod it deletes ("Node %q is about to be terminated. Evicting
       # pod prior to node termination.", Go's %q: the node in double quotes, escaped where a JSON string holds it)
       r"\bNode \\?\"(?P<host6>" + _K8S_NAME + r")\\?\" (?P<gceterm>is) about to be terminated\. Evicting pod prior to "
       r"node termination\b|"
       r"(?:\bMarking for deletion|\bNodeControllerEviction\s[^\n]{0,300}?\bStarting deletion of) Pod "
       r"(?P<tpod>(?:" + _K8S_NS + "/)?" + _K8S_NAME + r")(?: from Node (?P<tnode>" + HOST_WORD + r"))?"
       r"(?=\s|$)|"
       r"\b(?P<why4>Preempted) (?:by .{1,300}? on node |in order to admit critical pod|"
       r"" + QUEUE_PREEMPTED + r")|"
       r"The node was low on resource: (?P<resource>[\w.\-/]+)|"
       # the topology manager's refusal by its words: its error's message, and 1.16's reason as `kubectl get pods`
       # prints it in its STATUS column (TopologyAffinityError, read anywhere above, is its word since)
       r"\b(?P<topology>Resources cannot be allocated with Topology locality|Topology Affinity Error)\b|"
       r"(?P<shutdown>Pod was terminated in response to (?:imminent )?node shutdown|Node is shutting, evicting pods)|"
       r"(?P<deadline>(?:Pod|Job) was active (?:on the node )?longer than (?:the )?specified deadline)|"
       r"(?P<admission>\bPod (?:was rejected: )?Allocate failed due to |"
       r"(?:Allocate|Update plugin resources) failed due to .{1,400}, which is unexpected)|"
       # ((?<!\w), the \b it means before a word's letter: as \b this one alternative doubled the row's cost on a
       # 64 KiB line with no "Node" in it, 0.06 -> 0.10 s, over tests/triage/test_triage_hostile.py's bound under load)
       r"(?<!\w)Node didn't have enough resource: (?:(?P<outof>" + OUT_OF_RESOURCE + r")|"
       r"(?P<outnode>" + OUT_OF_NATIVE + r"), requested: )|"
       # the kubelet's admission refusing a pod its node's labels no longer select (NodeAffinity, a REASON_WORDS
       # word, where kubectl prints a reason), a host port bound there or a NoExecute taint: its message, 1.20's
       # and later's
       r"\bPod (?:was rejected: )?Predicate (?P<affinity>NodeAffinity|NodePorts|PodFitsHostPorts|TaintToleration) "
       r"failed\b|"
       r"\beviction manager: pods? (?P<kname>" + _K8S_NAME + ")_(?P<kns>" + _K8S_NS + r")\([-0-9a-f]+\)"
       r"(?: is evicted successfully|,.*? evicted, waiting for pod to be cleaned up| evicted, waiting for pod)|"
       r"\bEviction manager: (?:pod is evicted successfully\" pod=\"(?P<kpod>[^\"/\s]+/[^\"\s]+)\"|"
       r"pods evicted, waiting for pod to be cleaned up\" pods=\[\"?(?P<kpod2>[^\"/\s\],]+/[^\"\s\],]+))"),
    # the launcher told to stop: "Received Signals.SIGTERM death signal, shutting down workers", "Received 15 death
    # signal"
    _f("agent_death_signal", "agent_signal", ["death signal"],
       r"Received (?:Signals\.)?(?P<signame>SIG\w+|\d+) death signal"),
    # ranks disagree on the collective: PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL check ("Detected mismatch between
    # collectives on ranks. Rank 1 is running collective: CollectiveFingerPrint(SequenceNumber=3104, OpType=ALLREDUCE,
    # ...), but Rank 0 is running collective: ...") and NCCL's own ("NCCL WARN Mismatched collective detected, please
    # check your collective calls at and around rank 39").  PyTorch's first rank is the line's writer (its
    # ProcessGroupWrapper checks its own fingerprint against the others'): read as the line's rank too (a lookahead's
    # group, the same digits) where no launcher prefix names it (a prefix wins: the check's rank is its process
    # group's), the words kept as `first_rank` (EchoseChen/SPA-VL-RLHF #2: "0 :Error in ..: .. Rank 0 is running ..")
    _f("pytorch_mismatch", "collective_mismatch", ["Detected mismatch between collectives"],
       r"Detected mismatch between collectives on ranks\. Rank (?=(?P<rank>\d+) )(?P<first_rank>\d+) is running "
       r"(?:inconsistent )?"
       r"collective: CollectiveFingerPrint\((?:SequenceNumber=(?P<seq>\d+),? ?)?OpType=(?P<op>\w+)"
       r"(?:.*?but Rank (?P<other_rank>\d+) is running)?"),
    # PyTorch's flight recorder analyser (fr_trace): "error msg: Culprit rank 22; Error type: SIZE_OR_SYNTAX_MISMATCH,
    # Expected input sizes: '[[1025]]' does not match found input sizes: '[[262144]]'"
    _f("flight_recorder_culprit", "collective_mismatch", ["Culprit rank"],
       r"Culprit rank (?P<rank>\d+); Error type: (?P<error_type>\w*MISMATCH\w*)"),
    # the flight recorder analyser's first era (FR_MISSING's comment): the missing ranks on the line that says so
    _f(FR_MISSING_LINE, "barrier_timeout", ["Missing ranks are {"],
       r"Not all ranks joining collective for group \S+ collective \S+.*?Missing ranks are "
       r"\{(?P<lagging>\d{1,9}(?:, \d{1,9})*)\}"),
    _f("nccl_mismatch", "collective_mismatch", ["Mismatched collective detected"],
       r"Mismatched collective detected, please check your collective calls at and around rank (?P<around_rank>\d+)"),
    # rendezvous / store.  A client that never reached the store (c10d's socket.cpp, every era since 2.0, the store's
    # host and port in parentheses: "[E socket.cpp:793] [c10d] The client socket has timed out after 1800s while
    # trying to connect to (127.0.0.1, 48391)." (lllyasviel/ControlNet #382, 2.0), 2.4+ in ms: "[E521 15:43:02.707733876
    # socket.cpp:1023] [c10d] The client socket has timed out after 600000ms while trying to connect to (172.18.21.4,
    # 37907)." and TCPStore.cpp's "[c10d] TCP client failed to connect/validate to host 172.18.21.4:37907 - timed out
    # (try=1, timeout=600000ms): ..." after it (lzhxmu/CPPO #6), the DistNetworkError the rank raises with the same
    # words (nvidia-cosmos/cosmos-rl #681, 2.8)): the store's host (rank 0's, or the launcher's) never listened or the
    # network between them dropped the connection; the address is the store's, never the writer's (details). The
    # retried connect's warning ("The client socket has failed to connect to ..") is no failure.
    _f("store_connect_timeout", "store_error", ["The client socket has timed out", "TCP client failed to connect"],
       r"(?P<what>The client socket has timed out) after (?P<store_timeout>\d+m?s) while trying to connect to "
       r"\((?P<store_host>[^,\s()]+), (?P<store_port>\d+)\)|(?P<what2>TCP client failed to connect)/validate to host "
       r"(?P<store_host2>\S+?):(?P<store_port2>\d+) - timed out"),
    # The ranks that never joined the store, counted by whoever waited for them, each era's words: the store-based
    # barrier init_process_group and new_group meet at (distributed_c10d.py), 1.8-1.13's "RuntimeError: Timed out
    # initializing process group in store based barrier on rank: 4330, for key: store_based_barrier_key:522
    # (world_size=2048, worker_count=1792, timeout=0:30:00)" (facebookresearch/metaseq #52), 2.x's DistStoreError "..
    # on rank 0, for key: .. (world_size=.., num_workers_joined=.., timeout=.. error=..)" (from that source); the
    # TCPStore's server (rank 0's, 2.2+) "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for
    # clients. 1/3 clients joined." (OpenRLHF/OpenRLHF #1040), "workers" in its first wording (pytorch/pytorch PR
    # #111805). Was: nothing for 1.x's RuntimeError (its rank's exit then had no cause, "No failure found" alone), the
    # bare "DistStoreError" for the rest. The counts go to details: fewer joined than expected (a node that never
    # started or could not reach the store), more (two jobs on one store address). The rank is the one that waited.
    _f("store_join", "store_error", ["Timed out initializing process group in store based barrier",
                                     "seconds waiting for clients", "seconds waiting for workers"],
       r"(?P<what>Timed out initializing process group in store based barrier) on rank:? (?P<rank>\d+), for key:? "
       r"(?P<store_key>\S+?) \(world_size=(?P<store_expected>\d+), (?:worker_count|num_workers_joined)="
       r"(?P<store_joined>\d+), timeout=(?P<store_timeout>[\d:.]+)|(?P<what2>Timed out after (?P<store_timeout2>\d+) "
       r"seconds waiting for (?:clients|workers))\. (?P<store_joined2>\d+)/(?P<store_expected2>\d+) "
       r"(?:clients|workers) joined"),
    # A TCPStore client that lost the store it had reached (c10d's TCPStore.cpp TCPClient, the socket's own address then
    # the store's, `remote=`): "[c10d] recvValue failed on SocketImpl(fd=135, addr=[sglang-0-1.sglang.default.svc.
    # transwarp.local]:48750, remote=[sglang-0.default.pod.transwarp.local]:20000): Connection reset by peer"
    # (sgl-project/sglang #20859), sendBytes's "Broken pipe" (MiniMax-AI/MiniMax-M1 #14), recvVector's, and the wait's
    # recvValueWithTimeout, "[c10d] recvValueWithTimeout failed on SocketImpl(fd=3, addr=[localhost]:34658,
    # remote=[localhost]:1234): Failed to recv, .." (pytorch/pytorch #153586's test plan): every call TCPClient wraps
    # (TCPStore.cpp's C10D_WARNING("<call> failed on {}: {}", socket_.repr(), ..), the four there are); 2.6's "failed to
    # recv, got 0 bytes" (Dere-Wah/AI-MarioKart64 #3), 2.8's "Failed to recv, got 0 bytes. Connection was likely
    # closed. Did the remote server shutdown or crash?" (ome-projects/ome #312); and the watchdog's check of it, "Failed
    # to check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: Broken
    # pipe" (tdrussell/diffusion-pipe #333): the store went away, with the process that held it (rank 0's for
    # torchrun's static rendezvous, MASTER_ADDR; the elastic agent's on the c10d rendezvous host). Its address is
    # `store_host`, the client's own `store_client` (triage.attribute `_store_lost`); the store's error `store_error`.
    _f("store_lost", "store_error", ["failed on SocketImpl(", "TCPStore server has shut down too early"],
       r"(?P<what>(?:sendBytes|recvValue(?:WithTimeout)?|recvVector) failed) on SocketImpl\(fd=-?\d+, addr="
       rf"{SOCK_ADDR.format(name='store_client')}:\d+, remote={SOCK_ADDR.format(name='store_host')}"
       r":(?P<store_port>\d+)\): "
       r"(?P<store_error>[^\n]{1,120})"
       r"|(?P<what2>TCPStore server has shut down too early)\), with error: (?P<store_error2>[^\n]{1,120})"),
    # The words after "TCPStore" up to its failure are read within 200 characters (61 in the longest real line here),
    # its own word's tail within 64: an unbounded gap rescanned the rest of the line from every "TCPStore" (2.7 s on
    # a 64 KiB line of them).
    _f("store", "store_error", ["TCPStore", "DistStoreError", "RendezvousTimeoutError", "RendezvousClosedError",
                                "RendezvousConnectionError"],
       r"(?P<what>DistStoreError|RendezvousTimeoutError|RendezvousClosedError|RendezvousConnectionError|"
       r"TCPStore\S{0,64} [^\n]{0,200}?(?:failed|timed out|Connection reset by peer|Broken pipe))"),
    # c10d's client that gave up on every address of the store (socket.cpp, 1.10-2.0: "[E socket.cpp:753] [c10d] The
    # client socket has failed to connect to any network address of (6841231, 47389)." after its retried connects'
    # warnings, hpcaitech/Open-Sora #667; the exception it raises with the same words and the last connect's after
    # them, "The client socket has failed to connect to any network address of (hcp-bb-03, 52873). The client socket
    # has failed to connect to hcp-bb-03:52873 (errno: 110 - Connection timed out)", hpcaitech/ColossalAI-Examples
    # #207): the store's host never listened or could not be reached, as a timed-out connect (store_connect_timeout);
    # the address the store's.  Was: nothing ("No failure found")
    _f("store_connect_failed", "store_error", ["failed to connect to any network address of ("],
       r"(?P<what>The client socket has failed to connect to any network address) of \((?P<store_host>[^,\s()]+), "
       r"(?P<store_port>\d+)\)"),
    # The job's network not set up at its start (network_setup), each line's own words:
    # - torch 1.x's TCPStore whose MASTER_ADDR did not resolve, its ValueError "host not found: Name or service not
    #   known" (kubeflow/pytorch-operator #125: a PyTorchJob's workers started before the master's Service had its DNS
    #   record; #333; pytorch/pytorch #73682, the c10d rendezvous's store on Kubernetes), the resolver's words after
    #   it (gai_strerror's, glibc's and macOS's: "Temporary failure in name resolution" too);
    # - c10d's store server that could bind no address (socket.cpp, every era: "[E socket.cpp:462] [c10d] The server
    #   socket has failed to listen on any local network address." after "failed to bind to [::]:29500 (errno: 98 -
    #   Address already in use)" warnings, meta-llama/llama-cookbook #186; the exception with both, "The server socket
    #   has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno:
    #   98 - Address already in use). ..", meta-pytorch/torchtune #392, showlab/Tune-A-Video #90; 2.2+'s "..
    #   address. port: 29500, useIpv6: 0, code: -98, name: EADDRINUSE, message: address already in use",
    #   om-ai-lab/VLM-R1 #289): the port taken on its host; the port in `store_port`, the error in `store_error`;
    # - NCCL's bootstrap that found no socket interface ("Bootstrap : no socket interface found", the "Last error:" of
    #   ncclInternalError, EasonXiao-888/MambaTree #14; NVIDIA/nccl #210: "there is no IP interface found"): the pod's
    #   interfaces, or NCCL_SOCKET_IFNAME naming none of them.
    # Was: the ValueError an APPLICATION exception, the bind failure nothing ("No failure found"), NCCL's an
    # UNDETERMINED nccl_error
    _f("store_host_not_found", "network_setup", ["host not found: "],
       r"(?<![\w\-])(?P<what>host not found): (?P<store_error>Name or service not known|Temporary failure in name "
       r"resolution|No address associated with hostname|Non-recoverable failure in name resolution|nodename nor "
       r"servname provided, or not known)"),
    _f("store_listen_failed", "network_setup", ["failed to listen on any local network address"],
       r"(?P<what>The server socket has failed to listen on any local network address)\.(?: port: "
       r"(?P<store_port>\d+), useIpv6: \d, code: -?\d+, name: (?P<store_error>\w+)| The server socket has failed to "
       r"bind to \S*?:(?P<store_port2>\d+) \(errno: \d+ - (?P<store_error2>[^)]{1,60})\))?"),
    _f("nccl_no_interface", "network_setup", ["no socket interface found"],
       r"(?P<what>Bootstrap : no socket interface found)"),
    # NCCL told which network to use (NCCL_NET="IB", "AWS Libfabric", a plugin's name) that found no such network in
    # the pod: net.cc's "Error: network <name> not found." (ncclInvalidUsage, every era since 2.x's NCCL_NET), its
    # devices not attached (the RDMA device plugin's resource or the secondary network not requested, /dev/infiniband
    # absent: NCCL's IB transport finds no device and never registers) or its plugin not loaded. "nid006352:34157:34217
    # [1] net.cc:626 NCCL WARN Error: network AWS Libfabric not found." (eth-cscs/cscs-docs, docs/software/
    # communication/nccl.md: the aws-ofi-nccl plugin not in the environment; the job then fails with "invalid usage").
    # The pod's network attachment or image, not a NIC's fault: without NCCL_NET, NCCL falls back to sockets and says
    # so in INFO lines (no failure). Was: the NCCL WARN row's warning, and the job's "invalid usage" the application's
    _f("nccl_net_not_found", "network_setup", ["Error: network "],
       r"NCCL WARN Error: network (?P<nccl_net>\S[^\n]{0,40}?) not found\.", what="forced network not found"),
    # SGLang's PD-disaggregated decode server that could not reach the prefill's bootstrap server (its HTTP server on
    # --disaggregation-bootstrap-port, 8998 by default, that tells a decode the prefill's parallel layout and ranks'
    # addresses): disaggregation/common/conn.py's logger.error("Error fetching prefill parallel info from bootstrap:
    # {e}") with requests' exception after it, each of its real causes: the port the router passes that no prefill
    # listens on, "[2025-10-29 11:00:44] Error fetching prefill parallel info from bootstrap: HTTPConnectionPool(host=
    # '127.0.0.1', port=8998): Max retries exceeded with url: /route?.. (Caused by NewConnectionError('<urllib3..>:
    # Failed to establish a new connection: [Errno 111] Connection refused'))" (sgl-project/sglang PR #11747, the
    # maintainer: "make sure the prefill instance start command and sgl-router are configured with the same bootstrap
    # port. If this is not OK, then check your network connection"); a host that did not resolve, "..(host='none',
    # port=8998): .. (Caused by NameResolutionError(\"<..>: Failed to resolve 'none' ([Errno -2] Name or service not
    # known)\"))" (sgl-project/sglang #6413: no bootstrap host on the request); no port at all, ".. bootstrap: Failed
    # to parse: http://192.168.0.108:None/route?engine_rank=-1&target_dp_group=-1" (sgl-project/sglang #6017). The
    # deployment's addresses or its network between decode and prefill, not a node's hardware: network_setup. The
    # errno's words only (the Event's value starts with a letter). Was: nothing ("No failure found")
    _f("sglang_bootstrap_unreachable", "network_setup", ["Error fetching prefill parallel info from bootstrap: "],
       r"(?P<what>Error fetching prefill parallel info from bootstrap): (?:HTTPConnectionPool\(host='"
       r"(?P<bootstrap_host>[^'\s]{1,253})', port=(?P<store_port>\d{1,5})\): [^\n]{0,400}?(?:Failed to resolve '"
       r"(?P<unresolved>[^'\s]{1,253})' \(\[Errno -?\d{1,5}\] (?P<resolver_error>[A-Za-z][^()\n]{0,80})\)|\[Errno "
       r"-?\d{1,5}\] (?P<store_error>[A-Za-z][^'\"()\n]{0,80}))|(?P<store_error2>Failed to parse): "
       r"(?P<bootstrap_url>\S{1,400}))"),
    # c10d's client whose lookup of the store's address failed (socket.cpp's SocketConnectOp::tryConnect, 2.0+, each
    # retry until its connect timeout: "[W socket.cpp:601] [c10d] The IPv6 network addresses of (cernet2.net, 52533)
    # cannot be retrieved (gai error: -5 - No address associated with hostname)." five times then "[E socket.cpp:860]
    # [c10d] The client socket has timed out after 1800s while trying to connect to (cernet2.net, 52533).",
    # allenai/FineGrainedRLHF #12; 1.12-1.13 tried IPv6 then IPv4 once each: "The IPv6 .." and "The IPv4 network
    # addresses of (codeflare-ray-jiajie-csqcn-head-sjvwx, 50176) cannot be retrieved (gai error: -2 - Name or service
    # not known)." then "[E socket.cpp:610] [c10d] The client socket has failed to connect to any network address of
    # (codeflare-ray-jiajie-csqcn-head-sjvwx, 50176).", meta-pytorch/torchx #540): context (store_unresolved), never a
    # failure alone (kubernetes-sigs/jobset #93: "spammed in logs while its waiting for other pods to be ready", then
    # the job ran).  getaddrinfo with AI_V4MAPPED answers an IPv4-only name for IPv6 too: a failed IPv6 lookup is a
    # name that did not resolve at all
    _f("store_unresolved", "store_unresolved", ["cannot be retrieved (gai error: "],
       r"The (?:IPv[46] )?network addresses of \((?P<unresolved>[^,\s()]{1,253}), (?P<store_port>\d+)\) cannot be "
       r"retrieved \((?P<resolver_error>gai error: -?\d+ - [^)\n]{1,80})\)", severity="info"),
    # Horovod's Gloo rendezvous (its launcher's HTTP key-value store): a rank that waited past its timeout for the
    # others' keys, as gloo::IoException's what(): "[horovod/common/gloo/http_store.cc:53] ... Wait timeout for
    # key(s): 0" (0.19, horovod/horovod #2015, 50+ nodes), 0.21+ "... http_store.cc:57] ... Wait timeout after 30
    # seconds for key(s): 0. You may want to increase the timeout via HOROVOD_GLOO_TIMEOUT_SECONDS" (ray-project/ray
    # #25866): the rendezvous, as a TCPStore timeout is
    _f("gloo_http_store", "store_error", ["http_store.cc"],
       r"http_store\.cc:\d+\] (?P<what>Wait timeout)(?: after (?P<store_timeout>\d+) seconds)? for key\(s\)"),
    # A file system that refused the job's write or read, by its errno's words (Python's OSError, torch's legacy "write():
    # fd 29 failed with Input/output error", "read(): fd 33 failed with Stale file handle", safetensors' "IoError(Os {
    # code: 28, kind: StorageFull, message: \"No space left on device\" })"), and torch.save's zip writer whose fwrite
    # came back short, which names no errno: "PytorchStreamWriter failed writing file data/176: file write failed"
    # (caffe2/serialize/inline_container.cc, every release since 1.6: a full disk or quota, a shared file system's
    # I/O error; hiyouga/LlamaFactory #1223, SWivid/F5-TTS #458, rwth-i6/returnn #1829). Its "failed opening archive"
    # (a directory that does not exist, the program's path) is not this row.  The same writer's "[enforce fail at
    # inline_container.cc:603] . unexpected pos 2368 vs 2262" (every release since 1.6; 2.x's DCP writer too): its
    # ostream_write_func found its position past the offset miniz asked for, a write that came back short before it
    # (current_pos_ advanced by what fwrite wrote, miniz's offset not), printed alone where the short write set no
    # error of its own or the first exception was lost (hkust-nlp/simpleRL-reason #19, DeepSpeed's ZeRO checkpoint
    # behind Ray's "(ActorModelRayActorBOX pid=499618) "; pytorch/xla #2491, "  what():  [enforce fail at
    # inline_container.cc:274] . unexpected pos 3695636864 vs 3695636752" after "terminate called"): a Megatron
    # torch_dist save to an FSx for Lustre 90% full failed with "[Errno 28] No space left on device" on two ranks and
    # "unexpected pos 704 vs 598" on three (awslabs/awsome-distributed-ai PR #1225, 2026); was an exception, the
    # application's. A quota, every wording (Python's "OSError: [Errno 122] Disk quota exceeded", TensorFlow's
    # "ResourceExhaustedError: disk quota exceeded [Op:SaveV2]", keras-team/keras-tuner #390), is the job's own limit,
    # not the storage's failure: triage.attribute STORAGE_WHAT_CATEGORY.
    # A FUSE mount whose daemon died (gcsfuse, s3fs, csi-s3's geesefs, Alluxio FUSE, blobfuse: ENOTCONN on every call
    # until it is remounted): Python's "OSError: [Errno 107] Transport endpoint is not connected: '<path>'" (the path
    # quoted, bytes too: GoogleCloudPlatform/gcs-fuse-csi-driver #50, yandex-cloud/k8s-csi-s3 #124), TensorFlow's
    # "posix_file_system.cc:56] close() failed: Transport endpoint is not connected" (Alluxio/alluxio #14294): the
    # node's mount broken, the storage's. Without a path or TensorFlow's file system before it the words are a
    # socket's (socket.shutdown), no storage error.  ESTALE in every era's words: glibc's before 2.15 (and BSD's,
    # macOS's) "Stale NFS file handle" (sjl/peat #2, "OSError: [Errno 116] Stale NFS file handle: '<path>'"), since
    # "Stale file handle".  torch's shared-memory file for a tensor a DataLoader worker hands over (shm_open's
    # "/torch_<pid>_<n>", in /dev/shm) it could not grow: 2.x's "RuntimeError: unable to write to file
    # </torch_722_783672312_1>: No space left on device (28)" (ultralytics/ultralytics #1238), 1.x's with no errno
    # (MIC-DKFZ/nnUNet #294), 0.4's "... </torch_76_3625483894> at /pytorch/aten/src/TH/THAllocator.c:383"
    # (pytorch/pytorch #10396): /dev/shm full, named and categorised as it (SHM_LINE).
    _f("storage", "storage_error", ["No space left on device", "isk quota exceeded", "Input/output error",
                                    "Stale file handle", "Stale NFS file handle", "file write failed",
                                    "unexpected pos ", "Transport endpoint is not connected",
                                    "unable to write to file </torch_"],
       r"(?P<what>No space left on device|[Dd]isk quota exceeded|Input/output error|Stale (?:NFS )?file handle|"
       r"PytorchStreamWriter failed writing file|unable to write to file(?= </torch_\w+>(?!:)))|"
       r"inline_container\.cc:\d+\] \. ?(?P<what2>unexpected pos) \d+ vs \d+|"
       r"\[Errno 107\] (?P<what3>Transport endpoint is not connected): b?['\"]|"
       r"posix_file_system\.cc:\d+\] \w+\(\) failed: (?P<what4>Transport endpoint is not connected)"),
    # An object store that refused the job's upload (a checkpoint, its shards) for the rate of its requests, past the
    # client's retries: the storage service, not the program.  Amazon S3's 503 error code "SlowDown" ("Please reduce
    # your request rate."), as botocore's ClientError words it, "botocore.exceptions.ClientError: An error occurred
    # (SlowDown) when calling the CompleteMultipartUpload operation" (ray-project/deltacat #51), s3transfer's
    # "S3UploadFailedError: Failed to upload .. An error occurred (SlowDown) when calling the CreateMultipartUpload
    # operation (reached max retries: 4): Please reduce your request rate." (a checkpoint's upload, mosaicml/composer PR
    # #3543), urllib's "urllib.error.HTTPError: HTTP Error 503: Slow Down" (cockpit-project/bots #3991); Google Cloud
    # Storage's 429 for an object changed too often, gcsfs's "gcsfs.utils.HtmlError: The total number of changes to the
    # object dpe-sandbox/test.ipynb exceeds the rate limit. Please reduce the rate of create, update, and delete
    # requests." (fsspec/gcsfs #130).  S3's own failures of an object's request past the same retries, its 5xx error
    # codes (InternalError, 500: "We encountered an internal error. Please try again."; ServiceUnavailable, 503), as
    # botocore words them for an object's operation (PutObject, UploadPart, CompleteMultipartUpload, GetObject, ..):
    # "ClientError: An error occurred (InternalError) when calling the PutObject operation (reached max retries: 4): We
    # encountered an internal error. Please try again." (onnela-lab/beiwe-backend #36, an S3 outage in us-east-1),
    # "botocore.exceptions.ClientError: An error occurred (InternalError) when calling the UploadPart operation (reached
    # max retries: 4): Storage resources are insufficient for the read operation: .." (chithi-dev/chithi #93, a
    # self-hosted store), ".. (reached max retries: 2): We encountered an internal error. Please try again."
    # (red-hat-storage/ocs-ci #2472, NooBaa's pods down).  Was: the traceback's exception, the application's.  Another service's InternalError (EC2's, STS's) is
    # not an object store's: only an object's operation is read.  TensorStore (Orbax's storage layer for JAX checkpoints,
    # OCDBT and zarr on gs:// and s3://) words the same 5xx as its status, the store's message, then the source
    # locations its kvstore driver appended: "INTERNAL: Error reading [...]: We encountered an internal error. Please try
    # again. [source locations='tensorstore/kvstore/gcs_grpc/gcs_grpc.cc:503\ntensorstore/internal/cache/kvs_backed_
    # cache.h:208']" (google/tensorstore #210, 2024: 12 hours of a GCS metadata server's 5xx, snapshots failing to load;
    # its drivers gcs, gcs_grpc, gcs_http, s3 alike), read only where the first location is an object store driver's
    # (another service's "internal error" is not a store's).  Was nothing: a restore or save failing on GCS's 5xx
    # read as no failure, or the exception Python raised from it, the application's.
    _f("object_store_throttled", "storage_error", ["(SlowDown)", "HTTP Error 503: Slow Down",
                                                   "Please reduce your request rate",
                                                   "exceeds the rate limit. Please reduce the rate of",
                                                   "(InternalError) when calling the ",
                                                   "(ServiceUnavailable) when calling the ",
                                                   "[source locations='tensorstore/kvstore/"],
       r"An error occurred \((?P<what>SlowDown)\) when calling the (?P<operation>\w+) operation|"
       r"An error occurred \((?P<what5>InternalError|ServiceUnavailable)\) when calling the "
       r"(?P<operation2>(?:Put|Get|Head|Copy|Delete|Restore)Objects?\w*|UploadPart\w*|\w+MultipartUploads?|"
       r"ListObjects\w*|ListParts) operation|"
       r"HTTP Error 503: (?P<what2>Slow Down)|(?P<what3>Please reduce your request rate)|"
       r"changes to the object (?P<object>\S+) (?P<what4>exceeds the rate limit)\. Please reduce the rate of|"
       r"(?P<what6>We encountered an internal error)\. Please try again\. \[source locations='tensorstore/kvstore/"
       r"(?P<store_driver>gcs\w*|s3)/"),
    # Ray's object store that could not spill to its node's local disk, past the raylet's threshold (local_fs_capacity_
    # threshold, 0.95 by default; Ray 2.0+, ray-project/ray PR #25370): the object could not be created, the node's disk
    # full, not the program: "ray.exceptions.OutOfDiskError: Local disk is full" then "The object cannot be created
    # because the local object store is full and the local disk's utilization is over capacity (95% by default).Tip:
    # Use `df` on this node ..." (ray-project/ray #50408; #49173 pasted both on one line).  Read as the traceback's
    # exception too (EXCEPTION_FACTS).
    _f("ray_out_of_disk", "storage_error", ["OutOfDiskError", "Local disk is full", "utilization is over capacity"],
       r"(?P<what>OutOfDiskError|Local disk is full)|the local object store is full and the local disk(?:'s)? "
       r"(?P<what2>utilization is over capacity)", what="Local disk is full"),
    # Its precursor: the raylet's file system monitor, every 10 s while the disk it spills to is past that threshold,
    # at level E though nothing failed yet: "(raylet) [2025-04-21 10:05:37,313 E 959680 959717] file_system_monitor.cc:
    # 116: /tmp/ray/session_2025-03-25_17-33-57_554404_959134 is over 95% full, available space: 42.6695 GB; capacity:
    # 876.137 GB. Object creation will fail if spilling is required." (InternLM/lmdeploy #3457, 2025), Ray 2.0's
    # "/mnt/data0/ray is over 0.95% full, available space: 50637901824. Object creation .." (ray-project/ray PR #26143,
    # which fixed the percentage and added the capacity): a warning (disk_pressure),
    # never a failure by itself; an object store failure on the node after it is the disk's (triage.attribute).
    _f("ray_disk_nearly_full", "disk_pressure", ["Object creation will fail if spilling is required"],
       # the path read from its start only (a space or quote before it): tried from every "/" of a long line, quadratic
       r"(?<![^\s'\"])(?P<path>/\S+) is over (?P<threshold>[\d.]+)% full, available space: "
       r"(?P<available>\d+(?:\.\d+)?(?: GB)?)"
       r"(?:; capacity: (?P<capacity>\d+(?:\.\d+)? GB))?\. Object creation will fail if spilling is required",
       severity="warning"),
    # NCCL could not create a shared-memory segment for its intra-node transport, every release's wording ("include/
    # shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-... (size 9637888)", 2.12+'s
    # "misc/shmutils.cc:132 ... segment /dev/shm/nccl-WU88OE (size 9637888), error: ...", and the line torch quotes
    # after "Last error:"), and the failed extend before it (2.12+'s "misc/shmutils.cc:72 NCCL WARN Error: failed to
    # extend /dev/shm/nccl-H1dBqY to 9637892 bytes", kserve/kserve #3791; 2.19+ with the errno after it): /dev/shm, the
    # container's or the node's, is too small or full; attaching to another rank's segment is not this row (that rank
    # may have died)
    _f("nccl_shm_create", "storage_error", ["Error while creating shared memory segment", "Error: failed to extend "],
       r"(?P<what>Error while creating shared memory segment|Error: failed to extend) (?P<segment>\S+)"),
    # A process of the job refused a thread (or a process: fork and clone count alike) for the limit on its tasks: the
    # pids cgroup's (the pod's, the kubelet's podPidsLimit, Docker's --pids-limit) or ulimit -u (RLIMIT_NPROC), EAGAIN
    # from pthread_create or clone in every library's words: Ray's boost threads ("logging.cc:108: Unhandled exception:
    # N5boost10wrapexceptINS_6system12system_errorEEE. what(): thread: Resource temporarily unavailable [system:11]",
    # vllm-project/vllm #13354, hiyouga/EasyR1 #52, verl-project/verl #472), boost::thread's ("boost::thread_resource_
    # error: Resource temporarily unavailable", Icinga/icinga2 #7723), libc++'s std::thread ("std::__1::system_error:
    # thread constructor failed: Resource temporarily unavailable", ggml-org/llama.cpp #17168), gRPC's "thd.cc:157]
    # pthread_create failed: Resource temporarily unavailable" (ray #44296, vllm #6295), the raylet forking a worker
    # ("worker_pool.cc:684: Failed to start worker with return value system:11: Resource temporarily unavailable", ray
    # #59626), libgomp's "libgomp: Thread creation failed: Resource temporarily unavailable" (ray #8546),
    # OpenBLAS's "OpenBLAS blas_thread_init: pthread_create failed for thread 50 of 64: Resource temporarily
    # unavailable" (MIC-DKFZ/nnUNet #1343; its older "blas_thread_init: pthread_create: Resource ..",
    # OpenMathLib/OpenBLAS #1668; in the locale's words, "资源暂时不可用", DaliangNing/iCAMP1 #16), CPython's
    # "RuntimeError: can't start new thread" (open-mmlab/OpenPCDet #329), rayon's thread pool (polars', tokenizers'):
    # "could not spawn threads: ThreadPoolBuildError { kind: IOError(Os { code: 11, kind: WouldBlock, message:
    # \"Resource temporarily unavailable\" }) }" (pola-rs/polars #18675; huggingface/tokenizers #444, its message
    # broken by the terminal, the code whole).  Was: nothing, or the exception, the application's.  EAGAIN with no
    # word of a thread or a process is none: libstdc++'s std::system_error ("terminate called after throwing an
    # instance of 'std::system_error'" then "  what():  Resource temporarily unavailable", RasaHQ/rasa #5997; Ray's
    # "Unhandled exception: St12system_error. what(): Resource temporarily unavailable", ray-project/ray #44296) is
    # thrown for a thread refused and for a lock, a socket or a file busy alike, and torch.distributed's "RuntimeError:
    # Resource temporarily unavailable" is a socket's (facebookresearch/maskrcnn-benchmark #931): the application's.
    _f("thread_limit", "resource_limit", ["Resource temporarily unavailable", "t start new thread",
                                          "blas_thread_init: pthread_create", "ThreadPoolBuildError"],
       r"what\(\):\s+thread: Resource temporarily unavailable\b|thread constructor failed: Resource temporarily "
       r"unavailable|thread_resource_error: Resource temporarily unavailable|"
       r"pthread_create failed: Resource temporarily "
       r"unavailable|Thread creation failed: Resource temporarily unavailable|Failed to start worker with return value "
       r"system:11: Resource temporarily unavailable|blas_thread_init: pthread_create(?: failed for thread \d+ of \d+)?"
       r": \S|\b[Cc]an't start new thread\b|ThreadPoolBuildError \{ kind: IOError\(Os \{ code: 11\b",
       what="thread limit - pids cgroup or ulimit -u"),
    # The bare EAGAIN a C++ exception ended a process with (its words above, on the line of libstdc++'s terminate
    # handler or Ray's logging.cc): the application's failure, the exception std::system_error, no limit named
    _f("eagain_exception", "exception", ["Resource temporarily unavailable"],
       r"(?:St12system_error\. )?what\(\):\s+Resource temporarily unavailable\s*$"),
    # Triton Inference Server failing to load a model of its repository, every era (model_repository_manager.cc before
    # 22.x, model_lifecycle.cc after): "E0519 08:11:54.803470 1 model_repository_manager.cc:1243] failed to load
    # 'PYTHON_NMS' version 1: Unsupported: Triton backend API version does not support this backend"
    # (triton-inference-server/server #2876), then, the server started with its default --exit-on-error, its exit:
    # "error: creating server: Internal - failed to load all models" (#2858, #6416; NVIDIA-AI-IOT/tao-toolkit-triton-
    # apps #11).  The server's own failure: its model, its configuration or its backend (the application's); a CUDA or
    # driver error in its words is the parsers' (driver_unusable, cuda_error: such a line is theirs).  Was: nothing,
    # "No failure found" for a server that exited at start
    _f("triton_model_load", "exception", ["failed to load '", "failed to load all models"],
       r"(?P<exception>failed to load '(?P<model>[^'\n]{1,200})' version \d{1,20}): (?P<status>[A-Z][a-z]{1,20}"
       r"(?: [a-z]{1,20})?): |^error: creating server: (?P<exception2>[A-Z][a-z]{1,20}(?: [a-z]{1,20})? - "
       r"failed to load all models)\s*$"),
    # A process of the job out of file descriptors, its ulimit -n (RLIMIT_NOFILE; a container runtime's default, the
    # node's limits.conf): EMFILE's words, Python's "OSError: [Errno 24] Too many open files" (skypilot-org/skypilot PR
    # #3004), PyTorch's DataLoader since 1.5, "RuntimeError: Too many open files. Communication with the workers is no
    # longer possible. .." (facebookresearch/detectron2 #3953), before it multiprocessing's "RuntimeError: received 0
    # items of ancdata" (the descriptor a worker sent dropped, pytorch/pytorch #973 and PR #34768), the raylet's
    # "Failed to start worker with return value system:24: Too many open files" (ray-project/ray #10585)
    _f("open_files_limit", "resource_limit", ["Too many open files", "items of ancdata"],
       r"\bToo many open files\b|\breceived 0 items of ancdata\b", what="open file limit - ulimit -n"),
    # NET/IB's registration of a buffer with the NIC refused for want of locked memory, ENOMEM from every call NCCL
    # makes for it (misc/ibvwrap.cc: ibv_reg_mr, ibv_reg_mr_iova2, ibv_reg_dmabuf_mr): "misc/ibvwrap.cc:278 NCCL WARN
    # Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory" (NVIDIA/nccl-tests #206: "ulimit -l" was
    # 8192 kB, raising the limit fixed it, the maintainer's answer), the quote PyTorch's exception gives of it after
    # "Last error:". The memlock limit the pod's container runs with (ulimit -l; the runtime's default, a pod without
    # IPC_LOCK), not the NIC nor its driver (parsers/rules.py IBV_REG_FAILED leaves ENOMEM to this row). Was: the
    # node's GPUDirect RDMA set-up (a driver finding)
    _f("memlock_limit", "resource_limit", ["Cannot allocate memory"],
       r"Call to ibv_reg_(?:dmabuf_)?mr(?:_iova2)? failed with (?:error )?(?:12 )?Cannot allocate memory",
       what="locked memory limit - ulimit -l (memlock) or IPC_LOCK"),
    # A task that could not be started on its node: the rank's program never ran there (the others, started, wait for
    # it or are killed by srun).  Slurm's pyxis (the SPANK plugin that runs a step's tasks in enroot containers), every
    # release: what failed, in its own words (pyxis_slurmstepd.c), "slurmstepd: error: pyxis: container start failed
    # with error code: 1" (enroot's log after it: "enroot-switchroot: failed to execute: /bin/bash: No such file or
    # directory", NVIDIA/pyxis #61; "[ERROR] /etc/enroot/hooks.d/98-nvidia.sh exited with return code 1", #101, #110),
    # "pyxis: failed to import docker image: <image>", "pyxis: failed to create container filesystem for image: ..",
    # "pyxis: container exited too soon", "pyxis: failed to start container", "pyxis: container start error: ..", and
    # the summary every failure ends with, "pyxis: couldn't start container" (#61; #135, Slurm 23.11's
    # "slurmstepd-sp-0016: error: pyxis: couldn't start container", the node in slurmstepd's name; #144 in slurmd's
    # log, "[2024-07-05T14:11:11.152] [51.0] error: pyxis: couldn't start container"; #83, 2022's
    # "slurmstepd-kistest: error: pyxis: container start failed with error code: 1").  Slurm's own line after any
    # required SPANK plugin that failed a step's or task's start (src/common/spank.c, "spank: required plugin %s: %s()
    # failed with rc=%d", one of the callbacks before the program runs): "spank: required plugin spank_pyxis.so:
    # task_init() failed with rc=-1" (then "Failed to invoke spank plugin stack", no more), "... init_post_opt() failed
    # with rc=-1" (#4, slurmd's log; srun's "srun: error: task 0 launch failed: Plugin initialization failed" in the
    # job's); srun's "Task launch for StepId=96.0 failed on node n2: No such process" (#107).  The task's "srun: error:
    # hpc-pg0-2: task 1: Exited with exit code 1" after it is its end, not its cause.  pyxis's informational lines
    # ("pyxis: importing docker image", "pyxis: imported docker image", "pyxis: starting container") are no failure,
    # nor a plugin's task_exit() / exit() failing after the program ran.
    _f("pyxis_container", "launch_error", ["pyxis: "],
       r"(?:slurmstepd-(?P<host>" + HOST_NAME + r"): error: )?pyxis: "
       r"(?P<what>couldn't start container|container start failed|"
       r"container exited too soon|failed to start container|container start error|failed to import docker image|"
       r"failed to create container filesystem)\b"),
    _f("spank_plugin_init", "launch_error", ["init() failed with rc=", "init_post_opt() failed with rc=",
                                             "init_privileged() failed with rc="],
       r"(?:slurmstepd-(?P<host>" + HOST_NAME + r"): error: )?spank: required plugin (?P<plugin>\S+?): "
       r"(?P<callback>init|init_post_opt|user_init|task_init_privileged|task_init)\(\) failed with rc=(?P<rc>-?\d+)"),
    # ("\w*run" from a word's start only: from each character of a run of word characters it rescanned the run, 15 s
    # on a 64 KiB line of digits)
    _f("srun_task_launch", "launch_error", ["Task launch for ", "launch failed: "],
       r"Task launch for (?:StepId=)?(?P<job>\d+\.\w+) failed on node (?P<host>[^:\s]+): (?P<what>[^\n]{1,80})|"
       r"(?<!\w)\w*run: error: tasks? (?P<tasks>[\d,\-\[\]]+) launch failed: (?P<what2>[^\n]{1,80})"),
    # A node's prolog that failed (slurmd's ESLURMD_PROLOG_FAILED): Slurm drains the node ("Prolog error") and requeues
    # a batch job held ("launch failed requeued held"); the node's, never the job's.  srun's line above before 20.11
    # named the step "<job>.<step>", no "StepId=": "srun: error: Task launch for 23.0 failed on node hpc: Job prolog
    # failed" (mknoxnv/ubuntu-slurm #4, 2018, the node then drained "Prolog error"; was: "No failure found").  slurmd's
    # notice to the job (src/slurmd/slurmd/req.c, slurm_notify_job "Prolog failure on node %s"), salloc's or srun's
    # copy of it: "salloc: Prolog failure on node k003-006" then "Job allocation 235454 has been revoked"
    # (AMDResearch/hpcfund #69, 2025, the node then drained); slurmctld's own, "Prolog failure on node %s, draining the
    # node".  "Prolog hung on node %s" (the prolog past its time, still running) is no failure: not read.
    _f("slurm_prolog_failure", "launch_error", ["Prolog failure on node "],
       r"\bProlog failure on node (?P<host>" + HOST_NAME + r")", what="Prolog failed"),
    # slurmstepd's exec of a task's program that failed (src/slurmd/slurmstepd/task.c, `error("execve(): %s: %m",
    # argv[0])`), the task never ran and srun's "task N: Exited with exit code 2" (ENOENT's number; 13 for EACCES) after
    # it is its end, not its cause.  The batch script's own copy in slurmd's spool on the node, "slurmstepd: error:
    # execve(): /tmp/slurmd/job2997814/slurm_script: No such file or directory" (ArjunaCluster/ArjunaUsers #20, #21: the
    # node's file system, "the nfs issue again"), is the node's (the kind's category); any other program is the job's
    # own: a command its container or PATH lacks, "execve(): mkdir: No such file or directory" on each of 20 tasks
    # (firelab/windninja #624), a script not executable, "execve(): start-agent.sh: Permission denied"
    # (elyall/wandb_on_slurm #5), a wrapper's empty argument, "execve(): nil: No such file or directory" (RRZE-HPC/likwid
    # #259, its bug): the application's (`category`).  Was: nothing read (the batch script's: "No failure found"), or
    # srun's exit line, "undetermined".
    _f("slurm_script_execve", "launch_error", ["/slurm_script: "],
       r"(?:slurmstepd(?:-(?P<host>" + HOST_NAME + r"))?: error: )?execve\(\): (?P<what>\S{0,400}/slurm_script: "
       r"(?:No such file or directory|Permission denied|Exec format error|Not a directory|Text file busy))$"),
    _f("slurm_execve", "launch_error", ["execve(): "],
       r"(?:slurmstepd(?:-(?P<host>" + HOST_NAME + r"))?: error: )?execve\(\): (?P<what>[^\n]{1,400}?: "
       r"(?:No such file or directory|Permission denied|Exec format error|Not a directory|Text file busy|Argument list "
       r"too long))$", category="application"),
    # srun refused a step inside the job's allocation (src/srun's "Unable to create step for job %u: %m"), the task
    # never started: asking more than the allocation holds, "More processors requested than permitted", "Requested node
    # configuration is not available", "Memory required by task is not available" (slurm_errno.c's words; a job's
    # inherited SLURM_MEM_PER_CPU / SLURM_MEM_PER_NODE, its --cpus-per-task), a GPU request the partition's GRES do not
    # match, "srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification"
    # (mehta-lab/waveorder #201, a step submitted from a GPU node inheriting its --gres; radical-cybertools/radical.pilot
    # #2109, deephyper/deephyper #53: the step's --gres), is the job's request (`category`); the
    # controller not answering, "srun: error: Unable to create step for job xxxxxxxxxx: Zero Bytes were transmitted or
    # received" (gafusion/gacode #449, after a Slurm update), "Socket timed out on send/recv operation", "Unable to
    # contact slurm controller", the scheduler's.  "Job/step already completing or completed" is the job's end (srun
    # cancelled, the allocation over), no cause: not read.
    _f("srun_step_request", "launch_error", ["Unable to create step for job"],
       r"(?<!\w)\w*run: error: Unable to create step for job (?P<job>\S{1,40}): (?P<what>More processors requested "
       r"than permitted|Requested node configuration is not available|Memory required by task is not available|"
       r"Invalid generic resource \(gres\) specification)",
       category="application"),
    _f("srun_step_controller", "launch_error", ["Unable to create step for job"],
       r"(?<!\w)\w*run: error: Unable to create step for job (?P<job>\S{1,40}): (?P<what>Zero Bytes were transmitted "
       r"or received|Socket timed out on send/recv operation|Unable to contact slurm controller[^\n]{0,40})"),
    # Open MPI's launcher that could not start its daemon (ORTE's orted, Open MPI 5's PRRTE prted) on a node of the job,
    # every era (help-errmgr-base.txt [failed-daemon-launch], [failed-daemon]): ORTE 1.7-4.x "ORTE was unable to
    # reliably start one or more daemons." (kubeflow/mpi-operator #152's second block, #481; horovod/horovod #951),
    # PRRTE's "prterun was unable to .." (openpmix/prrte #1392); a daemon that started but never called back: "An ORTE
    # daemon has unexpectedly failed after launch and before" (radical-cybertools/radical.pilot #2417), PRRTE's "An PRRTE
    # daemon .." (openpmix/prrte #540).  The causes its help text lists are the launch's: the daemon's binary or
    # libraries not found on a node (PATH, LD_LIBRARY_PATH), no authority to execute there, /tmp not writable, no route
    # back to mpirun: the job's launch infrastructure, never the GPU nor the program, which never ran.  It names no node:
    # the remote shell's line before it does (ssh_launch).  Was: nothing ("No failure found").
    _f("mpi_daemon_launch", "launch_error", ["was unable to reliably start one or more daemons",
                                             "daemon has unexpectedly failed after launch"],
       r"^\s*(?:(?P<launcher>\w{1,40}) was unable to reliably start one or more daemons\.|An? (?P<launcher2>\w{1,40}) "
       r"daemon has unexpectedly failed after launch and before\b)",
       what="Open MPI's launcher could not start its daemons"),
    # The remote shell Open MPI's launcher (plm rsh; pdsh, DeepSpeed's) starts a node's daemon with, failing on the node
    # it names: OpenSSH's "ssh: Could not resolve hostname mpic-worker-0: Temporary failure in name resolution"
    # (everpeace/kube-openmpi #26; an MPIJob's worker whose DNS name does not resolve yet: kubeflow/mpi-operator #481,
    # volcano-sh/volcano #2226: ssh_unresolved below), "ssh: connect to host 192.168.43.57 port 22: Connection
    # refused" (open-mpi/ompi #5639: no sshd accepting there); and the daemon not found on the node the shell
    # reached, "bash: orted: command not found" (OMPI users list, 2016-06,
    # open-mpi.org/community/lists/users/2016/06/29387.php: its PATH there, the help text's first cause).  Launch
    # failures, infrastructure, printed before the help text above
    # The name ssh could not resolve is the address of a node the launch was to reach, not a node that failed: an
    # MPIJob's launcher racing its workers' DNS records (the worker's pod not created or not yet in its headless
    # Service's records), a wrong hostfile: the job's network not set up (network_setup), the name said as the address
    # that did not resolve (`unresolved`), never the line's host.  Was: a launch_error on that host, the name blamed
    # as a faulty node
    _f("ssh_unresolved", "network_setup", ["ssh: Could not resolve hostname "],
       r"(?<![\w\-])ssh: (?P<what>Could not resolve hostname) (?P<unresolved>\S{1,253}?): "
       r"(?P<resolver_error>[^\n]{1,80})"),
    _f("ssh_launch", "launch_error", ["ssh: connect to host ", "orted: command not found", "prted: command not found"],
       r"(?<![\w\-])ssh: (?P<what>connect to host (?P<host>\S{1,253}) port \d{1,5}: [^\n]{1,80})|(?<![\w\-])"
       r"\w{0,8}sh: (?:line \d{1,9}: )?(?P<what2>(?:orted|prted): command not found)"),
    # NCCL's own address (peer address -> host): "NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>" ("Bootstrap: Using" in
    # newer releases),
    # "NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>", "NET/IB : Using [0]mlx5_0:1/IB ... ; OOB eth0:10.0.0.1<0>"
    _f("nccl_bootstrap", "nccl_address", ["Bootstrap : Using", "Bootstrap: Using", "NET/Socket : Using", "; OOB ",
                                          "NET : Using interface"],
       r"(?:Bootstrap ?: Using|NET/Socket : Using|; OOB|NET : Using interface) (?:\[\d+\])?(?P<netdev>[\w.\-]+):(?P<address>[0-9A-Fa-f.:%\w]+?)"
       r"<\d+>", severity="info"),
    # The writer's own EC2 instance (peer instance -> host): libfabric 1.18+'s EFA provider ends each failed
    # completion's message with both ends of the connection (prov/efa efa_write_error_msg), "My EFA addr:
    # fi_addr_efa://[..]:0:1072483550 My host id: i-0db7083f3fcbebb65 Peer EFA addr: .. Peer host id: i-0ce6d3d57139f053c",
    # in its own "<warn>" line (aws/aws-ofi-nccl #346) and in aws-ofi-nccl's "NET/OFI Request .. completed with error.
    # RC: 103. Error: 4126 (Unresponsive receiver .. My host id: i-07792e0f955a9673b ..)" that NCCL repeats as the
    # exception's "Last error:" (gnosia93/training-on-eks appendix/a1-karpenter-message.md).  The line is also a
    # completion error (the parsers' efa_cq_error, ofi_completion): triage.read gives both.  "My host id: N/A"
    # (no instance metadata) names none.
    _f("efa_host_id", "nccl_address", ["My host id: i-"], r"\bMy host id: (?P<address>i-[0-9a-f]{8,17})\b",
       severity="info"),
    # "NCCL INFO comm 0x9bbaa80 rank 10 nranks 16 cudaDev 2 busId 48000 - Init COMPLETE" (and "- Abort COMPLETE"),
    # 2.19+'s with the communicator's id after the bus id, at the init's start and end: "NCCL INFO ncclCommInitRank comm
    # 0x397e3800 rank 1 nranks 2 cudaDev 0 nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c - Init START"
    # (NVIDIA/TensorRT-LLM #9263; "NCCL INFO comm 0x7f39f570a8e0 rank 1 .. busId ca000 commId 0x2ca118a142cc4635 - Init
    # START", triton-inference-server/tensorrtllm_backend #170), read as `comm_id`: two ranks of one communicator on one
    # host's bus id are two ranks on one GPU (triage.attribute Job._shared_gpu); an older line's names no communicator
    _f("nccl_comm", "nccl_rank", ["nranks"],
       r"comm 0x[0-9a-f]+ rank (?P<rank>\d+) nranks (?P<nranks>\d+) cudaDev (?P<gpu>\d+)(?: nvmlDev \d+)? busId "
       r"(?P<busid>[0-9a-f]+)(?: commId (?P<comm_id>0x[0-9a-f]{1,16})\b)?", severity="info"),
    # A job's own statement that it succeeded, the end of its training (job_success, context: never evidence of a
    # failure): what its file prints after it while the process tears its communicators down is teardown noise
    # (triage.teardown).  MLPerf's logger at the end of a run that reached its target: ":::MLLOG {..., "key":
    # "run_stop", ..., "metadata": {..., "status": "success", "step_num": 3000}}" (mlcommons/training_results_v5.0,
    # HPE/results/HPE-Cray-XD670-H200-SXM5-141GB_n4_24.09/stable_diffusion/result_1.txt; a run that missed it says
    # "aborted"); Megatron-LM's train() returning after its last iteration: "[after training is done] datetime:
    # 2025-09-24 16:08:38" (NVIDIA-NeMo/Megatron-Bridge #770); Lightning's fit loop at its limit: "`Trainer.fit`
    # stopped: `max_epochs=24` reached." (sunandhini96/TSAI_ERAV1 Session_12/README.md; `max_steps=N` likewise,
    # lightning/pytorch/loops/fit_loop.py).  An early stop, a time limit or an interrupt is no such statement.
    # Both come before their framework's final save (Megatron-LM's save_checkpoint after it; Lightning's on_train_end
    # and the script's trainer.save_checkpoint after it): they cover the exit's errors, never a watchdog's or a
    # barrier's timeout after them (triage.teardown BEFORE_SAVE: alan-turing-institute/autocast #381).
    # (the first ":::MLLOG {" and the first "run_stop" after it, held: a later one has no "success" the first lacks;
    # retrying each was cubic on a line of them)
    _f("mlperf_run_stop_success", "job_success", ['"key": "run_stop"'],
       r'^(?>.*?:::MLLOG \{)(?>.*?"key": "run_stop").*?"status": "success"', "info"),
    _f("megatron_training_done", "job_success", ["[after training is done]"],
       r"^\[after training is done\] datetime: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "info"),
    _f("lightning_fit_stopped", "job_success", ["`Trainer.fit` stopped:"],
       r"`Trainer\.fit` stopped: `max_(?:epochs|steps)=\d+` reached\.", "info"),
    # ms-swift's pipeline (swift sft / rlhf / megatron sft ..) once its run() returned without an exception:
    # "[INFO:swift] End time of running main: 2026-02-05 18:00:31.710947" (modelscope/ms-swift #7992, 2 x 8 H20,
    # Megatron MoE SFT; #5772 likewise): SwiftPipeline.main logs it after `result = self.run()`, in no finally, so
    # a run that raised never prints it (swift/llm/base.py; 2.x's llm_x wrapper the same).
    _f("swift_main_end", "job_success", ["End time of running main"],
       r"\[INFO:swift\] End time of running main: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "info"),
    # Hugging Face Trainer.log_metrics' block once the script saved what train() made: "***** train metrics *****"
    # (printed, world process zero only), then one "  key = value" line a metric.  LLaMA-Factory (every stage's
    # run_*: train(), save_model(), then log_metrics("train", ..); hiyouga/LlamaFactory PR #10488 quotes v0's end) and
    # the transformers examples (run_clm / run_mlm ..: the same order) print it after the final save.  NOT the
    # Trainer's own summary of a train() that returned, "{'train_runtime': 119.8187, 'train_samples_per_second':
    # 2.504, ..}" (transformers 5.x: "{'train_runtime': '2219', ..}", ProgressCallback formats floats "{v:.4g}"): it
    # comes before the script's save_model, whose FSDP / ZeRO-3 gather is collectives, and a save that hangs there
    # is the job's failure (shikras/shikra #41: train_runtime, then 30 min later the _ALLGATHER_BASE watchdog timeout
    # of the stuck save; tests/fixtures/incidents/shikra-41-save-after-train), as Axolotl's "Training Completed!!!
    # Saving pre-trained model to .." is (logged before its FSDP save).  A script may evaluate after the block
    # (`do_eval`: "***** eval metrics *****" follows): the training and its save are done by then.
    _f("hf_train_metrics", "job_success", ["***** train metrics *****"],
       r"^\*{5} train metrics \*{5}\s*$", "info"),
    # torchtitan's Trainer.train() after its loop ran to training.steps (rank 0 slept 2 s "for other ranks to
    # complete"; an exception in the loop never gets here; all ranks printed it before PR #2383, rank 0 since):
    # "[rank0]:2025-04-01 00:26:01,706 - root - INFO - Training completed" (AICrossSim/NewComputeBench
    # docs/01-model-training/llm-pretrain-and-eval.md; "[titan] " before the time since 2025-05, the logger's name
    # "root", a module's later; triage.read takes a leading time off, the row reads both).  Only the logger's own format: a bare "Training completed" is any script's word.
    _f("torchtitan_training_completed", "job_success", ["- INFO - Training completed"],
       r"(?:^|\d\d:\d\d:\d\d,\d{3} )- [\w.]+ - INFO - Training completed\s*$", "info"),
    # torch.distributed.elastic's agent (torchrun, accelerate launch, every era) once every node's worker group
    # SUCCEEDED: its exit barrier (_exit_barrier, on SUCCEEDED only: a failed group returns without it) passed by
    # all agents: "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed:
    # 0.0013725757598876953 seconds" (1.x, Udayeon/Udayeon.github.io _posts/projects/2022-10-04-cascadetrain.md;
    # 2.x prints the same words behind its own logger's or glog's prefix: the row reads only the words).  Its "Local worker group finished (WorkerState.SUCCEEDED)" and
    # "[default] worker group successfully finished" are one node's (another node's may have failed: the barrier then
    # times out, "Error waiting on exit barrier"), DeepSpeed's launcher's "Process 576485 exits successfully." one
    # process's (stas00/ml-engineering multi-node/emulate-multi-node.md): neither is the job's.  The agent prints it
    # after its workers exited: what it covers is what the file prints after it (a wrapper's, the next launch's).
    _f("elastic_exit_barrier_done", "job_success", ["Done waiting for other agents"],
       r"Done waiting for other agents\. Elapsed: [\d.e\-]+ seconds", "info"),
)

# The rows whose lines take a category of their own, not their kind's (Fact.category): fact name -> category
FACT_CATEGORY = {f.name: f.category for f in FACTS if f.category is not None}
# Every row read at less than an error (Fact.severity: a warning, as a rerun's verdict weighed with the failure it
# judges; an info, context), as the cluster component reads a published fact of one back (cluster/evidence.py): no
# failure by itself, live as offline
FACT_SEVERITY = {f.name: f.severity for f in FACTS if f.severity != "error"}

# A coordinator's report that names the tasks it lost on the lines after it, one a line: JAX's fate-sharing end on every
# live task, "F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed service
# detected fatal errors. .. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending heartbeats):"
# then "/job:jax_worker/replica:0/task:3" (JAX's docs, docs/fault_tolerance.rst; XLA's coordination service, 2025+):
# the task named is the one whose heartbeats stopped (process_lost, as the service's own "heartbeat timeout" line),
# its id the JAX process index, the rank; the writer's own line is the parsers' (a consequence). Read by triage.read:
# opener (the end of a line) -> the row each task line is read with.
# Its barrier timeout ("DEADLINE_EXCEEDED: Barrier timed out. ..", facts row xla_barrier_timeout) lists the tasks that
# did not arrive the same way, after "Timed out task names:" (2023) or "Some timed out task names:" (2024+: at most
# some of them): each a lagging rank, the barrier's (`lagging`, as monitored_barrier's rank 0 names them).
_BARRIER_TASK = _f("xla_barrier_task", "barrier_timeout", [],
                   r"^/job:(?P<job>[\w\-]+)/replica:\d+/task:(?P<lagging>\d+)\s*$")
# NCCL's RAS (2.24+, `ncclras` / its socket) names the job processes it declared dead, after 60 s unreachable over its
# own network, the same way: "DEAD", "  1 job process is considered dead (unreachable via the RAS network)" ("N job
# processes are .."), then "  Process 3487984 on node 172.16.64.213 managing GPU 5" ("GPUs 0-7"), one a line (NCCL's
# src/ras/client_support.cc; the example of NCCL's user guide, troubleshooting/ras): the process and its node by its
# address, a lost process (the node the address is: a cluster's map, triage.inventory).
_RAS_DEAD = _f("ras_dead_process", "process_lost", [],
               r"^\s*Process (?P<pid>\d+) on node (?P<host>\S+) managing GPUs? (?P<gpus>\S.*?)\s*$")
# NCCL's RAS report (2.24+) lists, under a communicator's MISMATCH, each operation count its ranks launched, the most
# frequent first, and the ranks of each outlier count (src/ras/client_support.cc; NCCL's user guide,
# troubleshooting/ras): "  Communicator ranks have different collective operation counts" (2.26+: "different AllReduce
# operation counts", one block per type), "  26 ranks have launched up to operation 6650", "  6 ranks have launched up
# to operation 6649" ("N ranks have not launched any operations": 0), then its ranks, "  Rank 0 -- GPU 0 managed by
# process 483072 on node 172.16.64.210" ("Rank 2 -- [process information not found]"); a count only one rank launched
# on that rank's own line, "  Rank 7 has launched up to operation 60 -- GPU 3 managed by process 1650386 on node node1"
# ("Rank 7 has not launched any operations -- .."). Read by triage.read (`ras_count`): each rank behind the first
# count (the most ranks'), a rank ahead of it none (NVIDIA/nccl #1911: "rank 12 and rank 13 are not stragglers").
RAS_COUNTS = re.compile(r"^\s*Communicator ranks have different (?P<op>\w{1,40}) operation counts\s*$")
RAS_COUNTS_END = " operation counts"
_RAS_GROUP = re.compile(r"^\s*(?P<ranks>\d{1,9}) ranks have (?:launched up to operation (?P<operation>\d{1,19})|not launched any "
                        r"operations)\s*$")
_RAS_RANK = re.compile(r"^\s*Rank (?P<lagging>\d{1,9})(?: has (?:launched up to operation (?P<operation>\d{1,19})|(?P<none>"
                       r"not launched any operations)))? -- (?:GPU (?P<device>\S+) managed by process (?P<pid>\d+) on "
                       r"node (?P<node>\S+)|\[process information not found\])\s*$")
RAS_BEHIND = _f("ras_behind", "ras_behind", [], _RAS_RANK.pattern)


def ras_count(line: str, counts: list) -> dict | None:
    """A line of a RAS MISMATCH block of operation counts (`counts`: [the first count, the count its lines are
    at, the operation, the communicator's ranks its counts named so far], updated): the groups of a rank behind the
    first count (`ranks`: the communicator's size as far as the block said it), {} for a line of the block that names
    none, None for a line past the block."""
    m = _RAS_GROUP.match(line)
    if m is not None:
        counts[1] = int(m.group("operation") or 0)
        counts[3] += int(m.group("ranks"))
        if counts[0] is None:
            counts[0] = counts[1]
        return {}
    m = _RAS_RANK.match(line)
    if m is None:
        return None
    own = m.group("operation")
    count = int(own) if own is not None else 0 if m.group("none") else counts[1]
    if own is not None or m.group("none"):  # a count only this rank launched: a rank of the communicator's size
        counts[3] += 1
    if counts[0] is None:  # a lone rank's count first: no count most ranks launched was said before it
        counts[0] = count
    if count is None or count >= counts[0]:
        return {}
    said = {k: v for k, v in m.groupdict().items() if v is not None and k not in ("operation", "none")}
    return {**said, "operation": str(count), "majority": str(counts[0]), "op": counts[2], "ranks": str(counts[3])}


# PyTorch's flight recorder analyser (torchfrtrace, `python -m torch.distributed.flight_recorder.fr_trace`,
# tools/flight_recorder/fr_trace.py before 2.6), run over every rank's dump after a hang, names the ranks that never
# joined the collective the others are in (components/utils.py, "case one: not every rank join the collective"): 2.5's
# "Not all ranks joining collective 5 at entry 4", 2.6+'s "Not all ranks joining collective, sequence number: 4", then
# its fields one a line, "group info: 0:default_pg", "collective: nccl:all_reduce" (2.6+ "internal record id: 4"
# before them), "missing ranks: {1}" (pytorch/tutorials prototype_source/flight_recorder_tutorial.rst: "We can clearly
# see that rank 1 did not join"); its first era prints them on the opener's line, "Not all ranks joining collective for
# group 0:default_pg collective nccl:all_reduce  Missing ranks are {1}" (the fr_missing_line row).  The ranks missing
# are the ones the others waited for, as a barrier's lagging ranks are (was: not read; a hang whose watchdogs single
# out no rank UNDETERMINED).  Read by triage.read: the opener line (FR_NOT_JOINED_OPENER), then this row's lines.
FR_NOT_JOINED = "Not all ranks joining collective"
FR_NOT_JOINED_OPENER = re.compile(FR_NOT_JOINED + r"(?:, sequence number:)? \d{1,19}(?: at entry \d{1,19})?\s*$")
FR_MISSING = _f("fr_missing_ranks", "barrier_timeout", [],
                r"^\s*(?:missing ranks: \{(?P<lagging>\d{1,9}(?:, \d{1,9})*)\}|(?:internal record id|group info|"
                r"collective): .*)\s*$")
# the rows of the ranks that never joined the collective, either era (triage.attribute's lagging ranks)
FR_MISSING_FACTS = frozenset({FR_MISSING.name, FR_MISSING_LINE})

TASK_LIST_OPENERS = {"The following tasks are unhealthy (stopped sending heartbeats):": _f(
    "xla_unhealthy_task", "process_lost", [], r"^/job:(?P<job>[\w\-]+)/replica:\d+/task:(?P<rank>\d+)\s*$"),
    "Timed out task names:": _BARRIER_TASK, "Some timed out task names:": _BARRIER_TASK,
    "has lost communication with its daemon located on node:": _f(
        "mpi_daemon_lost_node", "process_lost", [], r"^\s*hostname: +(?P<host>\S+)\s*$"),
    # Open MPI's launcher (ORTE 2.x-4.x, help-errmgr-base.txt [no-path]) that has no route to a node's daemon: "ORTE does
    # not know how to route a message to the specified daemon" / "located on the indicated node:" then "  my node:
    # mgmt01" (its own, no culprit: read on) and "  target node:  cn21" (open-mpi/ompi #12359, "UNABLE TO SEND MESSAGE
    # TO [[31261,0],1] TAG 15: No OOB path to target" before it; #12473, #8893): the daemon on that node unreachable
    # (its network, a firewall, a name that resolves elsewhere), the job lost with it, as a lost daemon's.  Was: nothing
    "located on the indicated node:": _f(
        "mpi_daemon_no_route", "process_lost", [], r"^\s*(?:my node: +\S+|target node: +(?P<host>\S+))\s*$"),
    "job process is considered dead (unreachable via the RAS network)": _RAS_DEAD,
    "job processes are considered dead (unreachable via the RAS network)": _RAS_DEAD}  # a string the line ends with
# the lists a line opens by holding a match of a pattern (searched), not by ending with a string: the flight recorder's
TASK_LIST_FOUND = {FR_NOT_JOINED_OPENER: FR_MISSING}

# Ray's error about an actor that died (RayActorError, ActorDiedError since 2.10) names the actor's process on the lines
# between its first and its cause (python/ray/exceptions.py, every era since 1.x: "The actor died unexpectedly before
# finishing this task." then "\tclass_name: ..", "\tactor_id: ..", and where known "\tpid: ..", "\tname: ..",
# "\tnamespace: ..", "\tip: .." (the actor's node's address), then the GCS's cause, the ray_actor_died row's line):
# ray-project/ray #22349 (1.10, every line behind the driver's "(BackendExecutor pid=5126, ip=10.128.0.32) "),
# AgentR1/Agent-R1 #33 (2.4x, "ray.exceptions.ActorDiedError: " before it).  Read by triage.read: the fields of the
# same writer's lines after the opener go to the fact its cause's line states (its pid and host: the lost process).
RAY_ACTOR_OPENER = "The actor died unexpectedly before finishing this task."
RAY_ACTOR_FIELD = re.compile(r"^\s+(class_name|actor_id|pid|name|namespace|ip): (\S{1,200})\s*$")
RAY_ACTOR_NAMES = {"pid": "pid", "ip": "host", "class_name": "actor"}  # the block's field -> the fact's group
RAY_ACTOR_FACTS = frozenset({"ray_actor_died"})  # the facts of the cause's line that take them

# Ray's error about a task or actor method that raised (RayTaskError, every era since 1.x: python/ray/exceptions.py
# RayTaskError.__str__) prints the remote traceback with its "Traceback (most recent call last):" replaced by the
# process that raised, "ray::WorkerDict.actor_rollout_generate_sequences() (pid=838798, ip=10.138.0.27, actor_id=..,
# repr=..)" (the proctitle between colorama's cyan and reset, an actor's id and repr where it is one), on a line of its
# own or after the driver's "ray.exceptions.RayTaskError(RuntimeError): " (PeterGriffinJin/Search-R1 #61, a verl run's
# driver).  Read by triage.read as a traceback's opener whose exception is that process's (its pid, its node's address).
RAY_TASK_KEYWORD = " (pid="
RAY_TASK_HEADER = re.compile(r"(?:^|: )(?:\x1b?\[\d{1,2}m)?ray::[\w.<>\-]{1,200}\(\)(?:\x1b?\[\d{1,2}m)? "
                             r"\(pid=(?P<pid>\d{1,9}), ip=(?P<host>[^,)\s]{1,200})[,)]")

# a loopback address, IPv4-mapped too (c10d's "remote=[::ffff:127.0.0.1]:6006")
LOOPBACK = re.compile(r"^(?:(?:::ffff:)?127(?:\.\d{1,3}){3}|::1|localhost)$", re.I)


def bare_address(address: str) -> str:
    """An address as the job's address map keys it ("10.1.2.3<43123>" -> "10.1.2.3", "[::1]" -> "::1")."""
    return address.split("<", 1)[0].split("%", 1)[0].strip("[]")


def loopback(address: str | None) -> bool:
    """A peer on the reporter's own host (Gloo's "Connection closed by peer [127.0.0.1]:10895" of a one-node job)."""
    return bool(address) and LOOPBACK.match(bare_address(address)) is not None


def own_address(address: str, writer: object = None) -> bool:
    """Whether an address a line names (a lost store's `store_host`) is its writer's own host's: loopback, or the
    writer's own address the line names beside it (`writer`: c10d's "addr=[pod-x]:50828, remote=[pod-x]:45903")."""
    return loopback(address) or (writer is not None and address == writer)


# fields of Evidence the groups fill (ints unless named in TEXT_FIELDS); any other group goes to details
INT_FIELDS = ("rank", "local_rank", "seq", "last_enqueued", "last_completed", "exit_code", "signal", "pid", "gpu")
TEXT_FIELDS = ("host", "address")

_KEYWORDS = re.compile("|".join(re.escape(k) for k in dict.fromkeys(k for f in FACTS for k in f.keywords)))


# UCX's own log line at a level below WARN (ucs_log_level_names: DIAG, INFO, DEBUG, TRACE and its REQ / DATA / ASYNC /
# FUNC / POLL, PRINT; "[ts] [host:pid:thread] file.c:line UCX  DIAG  msg"): a diagnostic it goes on after, never a
# failure of the job, whatever words it quotes.  Under UCX_LOG_LEVEL=debug every process of a run that reached its
# target prints "vfs_fuse.c:440  UCX  DIAG  failed to watch on '/run/user/0/ucx/vfs.sock': Input/output error, VFS
# will be disabled" (its introspection file system not mounted; mlcommons/training_results_v5.1 Dell 2xXE9680Lx8B200
# llama2_70b_lora result_0): was the storage row's I/O error, an infrastructure incident.
_UCX_QUIET = re.compile(r"\bUCX {1,2}(?:DIAG|INFO|DEBUG|TRACE|REQ|DATA|ASYNC|FUNC|POLL|PRINT)\b")


# A line of NCCL's shared-memory code or one naming a path in /dev/shm: a storage error on it is /dev/shm's, named and
# categorised as the parsers' kind shm_full (triage.attribute SHM_STORAGE), which the parsers give NCCL's own lines of
# its failure (parsers/rules.py nccl_shm_full); this module's row nccl_shm_create reads the lines they leave to NCCL's
# warning (a segment's line without an errno, the line torch quotes after "Last error:"); torch's own shared-memory
# files ("</torch_..>", shm_open's names, the storage row's)
SHM_LINE = re.compile(r"/dev/shm/|\bshm(?:utils)?\.(?:h|cc)" + NCCL_WARN_AT + r"|file </torch_\d")


def match(message: str) -> tuple[Fact, dict] | None:
    """The first row whose keyword occurs in `message` and whose regex matches, with its groups."""
    if _KEYWORDS.search(message) is None or ("UCX" in message and _UCX_QUIET.search(message) is not None):
        return None
    return _first(FACTS, message)


def _first(rows: tuple[Fact, ...], message: str) -> tuple[Fact, dict] | None:
    """The first of `rows` whose keyword occurs in `message` and whose regex matches, with its groups."""
    for fact in rows:
        if not any(k in message for k in fact.keywords):
            continue
        m = fact.pattern.search(message)
        if m is not None:
            return fact, _groups(fact, m)
    return None


# srun's line for the end of its tasks that names their node (srun_task; srun_task_oom, its OUT_OF_MEMORY state's)
SRUN_TASK_ENDS = frozenset({"srun_task", "srun_task_oom"})
# the rows whose `tasks` names one task by its number: that task's rank (`_groups`)
_TASK_RANKS = SRUN_TASK_ENDS | {"srun_task_state", "srun_task_launch", "vllm_worker_died"}

# the rows stating the address (an IP, an EC2 instance) of the line's writer: context a line gives besides its finding
ADDRESS_FACTS = tuple(f for f in FACTS if f.kind == "nccl_address")


def address(message: str) -> tuple[Fact, dict] | None:
    """The first address row (ADDRESS_FACTS) `message` (its launcher prefixes off) matches, with its groups."""
    return _first(ADDRESS_FACTS, message)


# the rows of a job's statement of its own success (job_success), and the words a line must hold to be one
SUCCESS_FACTS = tuple(f for f in FACTS if f.kind == "job_success")
SUCCESS_KEYWORDS = tuple(dict.fromkeys(k for f in SUCCESS_FACTS for k in f.keywords))


def success(message: str) -> Fact | None:
    """The job_success row `message` (its launcher prefixes off) states, else None."""
    for fact in SUCCESS_FACTS:
        if any(k in message for k in fact.keywords) and fact.pattern.search(message) is not None:
            return fact
    return None


def _groups(fact: Fact, m: re.Match) -> dict:
    g = {k: v for k, v in m.groupdict().items() if v is not None}
    for alt in [k for k in g if k[-1:] in "234567"]:  # a row's second (third, ..) wording fills the same fields
        g[alt[:-1]] = g.pop(alt)
    if "pg" in g:  # the "[PG ...]" tag's group: its 2.5+ GUID, else its id (parsers.classify.pg_name reads the tag)
        name = pg_name(m.string[m.start("pg"):])
        if name is None:
            del g["pg"]
        else:
            g["pg"] = name
    if "signame" in g and "signal" not in g:
        name = g["signame"]
        g["signal"] = str(SIGNAL_NUMBERS[name]) if name in SIGNAL_NUMBERS else (name if name.isdigit() else None)
        if g["signal"] is None:
            del g["signal"]
    if fact.why is not None:
        g["why"] = fact.why
    if fact.what is not None:  # one word for each wording (an Event's "error" has no apostrophe)
        g["what"] = fact.what
    if fact.name == "k8s_ended":
        evicted = "resource" in g or "kname" in g or "kpod" in g  # the kubelet's eviction, its message or its log
        if "kname" in g:  # klog text's "<name>_<namespace>(<uid>)", as the pod's object names it
            g["kpod"] = f"{g.pop('kns')}/{g.pop('kname')}"
        if "kpod" in g:  # the kubelet's eviction manager named the pod it evicted
            g["pod"] = g.pop("kpod")
        if "epod" in g:  # the Event's object column, "pod/<name>"
            g["pod"] = g.pop("epod")
        if "opod" in g:  # klog's Event line's ObjectReference{Kind:"Pod", Namespace:.., Name:..}
            g["pod"] = f"{g.pop('ons')}/{g.pop('opod')}"
        if "rpod" in g:  # `kubectl get pods`' row: its NAME (after NAMESPACE with -A) and -o wide's NODE
            g["pod"] = f"{g.pop('rns')}/{g.pop('rpod')}" if "rns" in g else g.pop("rpod")
        if "rnode" in g:
            g["host"] = g.pop("rnode")
        if "tpod" in g:  # the taint manager's deletion Event (the node controller's, naming the node, before it)
            g["pod"] = g.pop("tpod")
            if "tnode" in g:
                g["why"], g["host"] = "NodeLost", g.pop("tnode")
            else:
                g["why"] = "DeletionByTaintManager"
        if "pull" in g:  # the kubelet's Event message "Error: ErrImagePull"
            g["why"] = g.pop("pull")
        if "mount" in g:  # a volume's or a claim's Event reason (a POD_ENDS key), else what the kubelet's message words
            mount = g.pop("mount")
            g["why"] = mount if mount in POD_ENDS else "FailedAttachVolume" if mount.startswith("Attach") else \
                "FailedPrepareDynamicResources" if mount.startswith("Failed to prepare") else "FailedMount"
        reason = "SpotInterruption" if g.pop("spot", None) else \
            NODE_TERMINATION if g.pop("gceterm", None) else \
            "Evicted" if evicted else \
            "Terminated" if g.pop("shutdown", None) else \
            "UnexpectedAdmissionError" if g.pop("admission", None) else \
            "TopologyAffinityError" if g.pop("topology", None) else \
            "OutOfDevices" if g.pop("outof", None) else \
            "OutOf" + g.pop("outnode") if "outnode" in g else \
            g.pop("affinity") if "affinity" in g else \
            "DeadlineExceeded" if g.pop("deadline", None) else g.get("why", "")
        # "OutOfnvidia.com/gpu": the kubelet's admission short of a device (OutOfDevices); a DRA claim's config its
        # driver rejected, by the line's words (MESSAGE_ENDS)
        key = pod_end(reason, message=m.string)
        if key is not None:
            g.update(pod_ended_as(key, reason if key != reason else None))
    if reporter_only(fact, g) and "host" in g:  # the line's host reported it (REPORTER_ONLY)
        g["reporter_host"] = g.pop("host")
    if fact.name in _TASK_RANKS:
        tasks = g.get("tasks", "")
        if tasks.isdigit():
            g["rank"] = tasks
    if fact.kind in ("worker_exit", "rank_exit") and g.get("how") in SIGNAL_WORDS:  # srun's, the shell's, a worker's
        g["signal"] = str(SIGNAL_WORDS[g["how"]])
    if fact.name == "signal_received" and g.get("fatal"):
        g["signal"] = str(SIGNAL_WORDS[g["fatal"]])
    if fact.kind == "rank_exit" and "exit_code" in g and "signal" not in g:
        code = int(g["exit_code"])
        if code < 0:  # Python's subprocess: -N is "killed by signal N"
            g["signal"] = str(-code)
        elif code > 128 and code - 128 in SIGNALS:  # a shell's 128+N
            g["signal"] = str(code - 128)
    return g


# Python's traceback tail, every shape its traceback module prints (format_exception_only): "Name: message", or
# "Name" alone when the message is empty ("KeyboardInterrupt", "StopIteration", "AssertionError"), at the start of
# a line.  Name is the class's qualified name: bare for builtins and __main__'s classes, a CapWord ending like the
# builtins ("ValueError", "KeyboardInterrupt", "SystemExit", "StopIteration", "UserWarning") or Exception itself
# ("Exception: ..." a user's raise Exception(...), vLLM's WorkerProc summary; BaseException, ExceptionGroup);
# module-qualified otherwise, any class name ("torch.OutOfMemoryError", "torch._dynamo.exc.Unsupported",
# "subprocess.TimeoutExpired") and the standard library's lowercase ones ("socket.timeout", "struct.error",
# "socket.gaierror"); Ray's wrapper names its cause in parentheses ("ray.exceptions.RayTaskError(ValueError): ...").
# A logger's dotted name before ": " ("torch.distributed.elastic.multiprocessing.api: [WARNING] ...") is no class.
EXCEPTION_NAME = (r"(?:(?:[A-Za-z_]\w*\.)+(?:[A-Z]\w*|[a-z_]*error|timeout)|"
                  r"[A-Z]\w*(?:Error|Exception|Interrupt|Exit|Failure|Warning|Iteration)|(?:Base)?Exception(?:Group)?)"
                  r"(?:\([\w.]+\))?")
EXCEPTION = re.compile(r"^(?P<type>" + EXCEPTION_NAME + r")(?::(?:\s+(?P<message>.*))?)?$")
TRACEBACK = "Traceback (most recent call last):"
# A traceback's frame line, as the traceback module prints it ('  File "train.py", line 10, in <module>'; not
# faulthandler's dump, '  File "train.py", line 10 in f', which no exception line ends): a frame with no open traceback
# of its writer is one whose header the log lacks (a log cut; a paste from the middle of one, zhengchen1999/DAT #51's
# frames then "KeyError: 'RANK'"), read from there on as a traceback. FRAME_WORD: the word that routes it.
FRAME = re.compile(r'^\s*File "[^"]+", line \d+, in \S')
FRAME_WORD = 'File "'
# Python 3.11+'s exception group: "  + Exception Group Traceback (most recent call last):", every line of it behind a
# margin ("  | ", its sub-exceptions' "    | ") read as a traceback of its own once peeled
GROUP_TRACEBACK = "Exception Group Traceback (most recent call last):"
GROUP_MARGIN = re.compile(r"^ *[+|] ")
# the lines between two exceptions of one chain (the earlier printed first): the later one is raised while handling,
# or because of, the earlier, which is the chain's root
CHAINED = ("During handling of the above exception, another exception occurred:",
           "The above exception was the direct cause of the following exception:")


# ---- the job facts node agents publish ----------------------------------------------------------------------------
# What only a job's output says and names a culprit: the rank that died (and how), the process or node its coordinator
# lost, the ranks a barrier waited for.  A node agent reads them in its pods' logs (agent/sources/podlogs.py, with
# `match` and triage.read.job_fact), says each as a Pod Event aggregated per job and reason (agent/workloads.py: the
# job's first such fact on the node, counted), and the cluster component reads the Event's words back into Evidence of
# the same kind and fields (cluster/evidence.py, `read_words`).  Besides who died: a storage error (the writer's own
# file system or /dev/shm refused it), a scheduler's end of the job that names its node or job (Slurm's cancel, whose
# reason triage weighs), ranks that called different collectives, a task that never started (its launch error, as srun
# relays it).  Consequences (a watchdog's progress) stay offline:
# no Event per rank a failure elsewhere stopped; a barrier's healthy rank told to read rank 0's log, or a JAX task whose
# coordination-service barrier or key-value wait timed out naming no task (nor, often, its own rank: the pod is known),
# is said by its witness (LiveFact.witness): without it a job that failed only so made no incident live.  A rank's
# exception that is a consequence is said so only where the job's node said nothing else of the failure, once a job and
# node (agent/workloads.py): a 1,000-rank job's one fault adds no Event on a node that already said it.


@dataclass(frozen=True, slots=True)
class LiveFact:
    """A job fact kind a node agent publishes as a Pod Event."""
    kind: str  # a JOB_TABLE kind
    reason: str  # the Pod Event's reason
    what: str  # the Event's first words
    fields: tuple[str, ...]  # the fields its words carry, in order (INT_FIELDS / TEXT_FIELDS: Evidence's; others details)
    # at least one of them known, else the line names no one and is not published; () the writer is the culprit (the
    # pod that said it, on its node): always published
    culprit: tuple[str, ...]
    was: tuple[str, ...] = ()  # the first words earlier agents wrote, still read (a cluster newer than its agents)
    # where no culprit is named, its writer still publishes it, in `told`'s words: the pod that said it (known live, on
    # its node; its rank where its line names one), stopped by the failure elsewhere, said (one Event per job on the
    # node) so that the job's failure is seen; the job's fact that names a culprit takes its place on the node
    # (agent/workloads.py)
    witness: bool = False
    told: str = ""
    # the line is a launcher's relay of another node's words (srun printing slurmstepd's for the task's node): the
    # node of the pod that printed it is not the fact's; where the line names no host, the fact has none
    relayed: bool = False
    # read from the traceback it ends, never from a line's keywords (triage.read.traceback_fact): whether the
    # exception is the failure or a consequence is what its traceback, its chain and its writer's lines before it
    # say; the rows of its kind (eagain_exception's libstdc++ "what():" line) stay offline
    traced: bool = False
    # the rows (FACTS names) of its kind it publishes, its own words and reason for them; () every row of its kind no
    # other LiveFact names (`live`)
    rows: tuple[str, ...] = ()
    # the field naming the writer's own address beside its culprit's (a c10d client's `store_client`): a culprit field
    # that is loopback or that address (`own_address`) is its writer's own host, named already by the pod: no culprit
    own: str = ""
    # its line is also what a healthy end of a multi-host job prints, where the process holding what it lost exits
    # first (a store in rank 0's own process: no launcher holds it to the last rank's end, as torchrun's exit barrier
    # does): a job whose only failure it is has an incident once its writers' pods outlive the cluster component's
    # hold or end badly, none where they ended well (`said_at_end`; cluster/book.py Book.hold)
    at_end: bool = False
    # its line is its writer's word of a failure elsewhere, whatever it names (SGLang's engine on a child that failed:
    # the child's own error is the cause, in its log where printed): published as its writer's witness (`told`), a
    # consequence said once a job on the node, only where nothing else of the failure was (agent/workloads.py)
    consequence: bool = False


LIVE_FACTS: tuple[LiveFact, ...] = (
    LiveFact("rank_exit", "RankExited", "A rank's process ended",
             ("rank", "local_rank", "host", "pid", "exit_code", "signal"), ("rank", "local_rank", "host", "pid")),
    LiveFact("worker_exit", "DataLoaderWorkerKilled", "A rank's DataLoader worker was killed by a signal",
             ("rank", "local_rank", "host", "pid", "signal"), ("rank", "local_rank", "host", "pid")),
    LiveFact("process_lost", "ProcessLost", "The job's coordinator declared a process or node dead",
             ("rank", "host", "pid", "job", "node_id"), ("rank", "host", "pid", "node_id")),
    LiveFact("barrier_timeout", "BarrierTimeout", "Ranks did not reach the barrier the job waited at",
             ("lagging", "timeout_ms", "rank", "barrier", "duration", "what"), ("lagging",),
             was=("Ranks did not reach PyTorch's monitored barrier",), witness=True,
             told="A rank waited at a barrier that other ranks did not reach"),
    LiveFact("storage_error", "StorageError", "A file system or /dev/shm refused the job's write",
             ("rank", "local_rank", "host", "pid", "what", "segment"), ()),
    LiveFact("resource_limit", "ResourceLimit", "A process of the job reached a limit its pod or node sets",
             ("rank", "local_rank", "host", "pid", "what"), ()),
    LiveFact("job_ended", "JobEnded", "The scheduler ended the job or a step",
             ("host", "job", "why", "fact", "rank"), ("host", "job")),
    LiveFact("launch_error", "TaskNotStarted", "A task could not be started on its node",
             ("host", "job", "tasks", "plugin", "callback", "rc", "what", "fact"), (), relayed=True),
    # the rank whose program rejected its command line: its writer (the pod that said it, on its node), the local
    # rank its launcher's `--local-rank` names
    LiveFact("argument_error", "ArgumentsRejected", "A rank's program rejected its command line",
             ("rank", "local_rank", "host", "prog", "rejected"), ()),
    LiveFact("collective_mismatch", "CollectiveMismatch", "Ranks called different collectives",
             ("rank", "first_rank", "other_rank", "around_rank", "op", "seq", "error_type"),
             ("rank", "first_rank", "other_rank", "around_rank")),
    # the rank that found a NaN / Inf in its own loss or gradients: its writer (the rank, on its node), with the node
    # and device its words name
    LiveFact("nonfinite_result", "NonFiniteResult", "A rank found a NaN or Inf in its loss or gradients",
             ("rank", "host", "gpu", "result", "iteration"), ()),
    # a store's count of the ranks that joined, apart from those it waited for (attribute.STORE_COUNTS): the counts
    # are the culprit (the ranks that never joined, or another job's joins); a store error without them is a
    # consequence and stays offline, but for a lost store's address (StoreLost, below)
    LiveFact("store_error", "StoreJoinTimeout", "The job's store timed out counting the ranks that joined",
             ("rank", "store_key", "store_joined", "store_expected", "store_timeout", "fact"),
             ("store_joined", "store_expected")),
    # a rank that lost the job's store it had reached on another host (row store_lost: c10d's "recvValue failed on
    # SocketImpl(.., remote=[host]:20000): Connection reset by peer"): the store's host is the culprit, as offline
    # (attribute `_store_lost`: the store went away with its process); a store on its writer's own host (`own`: a
    # one-host job's localhost:29500, where its end's race prints it) and the watchdog's "shut down too early", which
    # names no address, stay offline; after its file's statement of success it is the teardown (triage.teardown).  A
    # multi-host job that ends well without such a statement prints it too where the store is rank 0's own process,
    # which may exit first (SGLang's --dist-init-addr, a launcher starting each rank itself): `at_end`.  torchrun's
    # store is its node-0 agent's, which waits after its workers succeed until every agent's did (elastic
    # SimpleElasticAgent._exit_barrier, exit_barrier_timeout 300 s): no rank of a healthy run loses it
    LiveFact("store_error", "StoreLost", "A rank lost the job's store on another host",
             ("rank", "store_host", "store_port", "store_error", "fact"), ("store_host",), rows=("store_lost",),
             own="store_client", at_end=True),
    # the job's own rerun of a step's verdict on a rank's non-finite result (Megatron-LM's rerun state machine, rows
    # megatron_rerun_transient / _persistent / _correct): once a failure, on the rerun's rank; a warning, as offline
    # (`severity`: alone it decides nothing, triage.attribute `_rerun_said` weighs it with the NonFiniteResult).  Its
    # node and device are the fact's (a transient error's, rerun in place) or the other GPU's (`rerun_host` /
    # `rerun_gpu`: a persistent error's or a correct result's, rerun elsewhere), never its writer's node
    LiveFact("rerun_verdict", "RerunVerdict", "The job's rerun of a step gave its verdict on a rank's non-finite result",
             ("rank", "host", "gpu", "rerun_host", "rerun_gpu", "iteration", "fact"), ()),
    # its first rerun's result reproduced on the same GPU (rows megatron_rerun_reproduced, _rescheduled; the job exits
    # to rerun the step elsewhere): the suspect GPU its line names, which a later "Possible persistent error!" (on the
    # other GPU's node, often another pod) is about; its own reason, so that a verdict on the same node after it is
    # an Event of its own.  Before 2025 its line named no GPU: not published (nothing to name)
    LiveFact("rerun_verdict", "RerunReproduced", "The job's rerun of a step reproduced a rank's non-finite result on "
             "the same GPU", ("rank", "host", "gpu", "iteration", "fact"), ("gpu",),
             rows=("megatron_rerun_reproduced", "megatron_rerun_rescheduled")),
    # the job's network not set up at its start (network_setup: the store's address did not resolve, its port already
    # in use, NCCL's bootstrap with no socket interface, a name ssh could not resolve): once a failure, its writer's
    # own words (the address, port, resolver's error), never a node's fault: no host but the one its line names (the
    # launcher's node is not the fact's: `relayed`).  c10d's retried lookups' warnings (store_unresolved, context) stay
    # unpublished, so a store timeout after them (triage.attribute Job._unresolved) stays offline's alone
    LiveFact("network_setup", "NetworkNotSetUp", "A rank could not set up the job's network at its start",
             ("rank", "local_rank", "what", "unresolved", "resolver_error", "store_port", "store_error", "fact"), (),
             relayed=True),
    # a serving engine's child process that failed (row sglang_child_failed: SGLang's engine on its scheduler, its
    # detokenizer or its data-parallel controller, "Received sigquit from a child process. It usually means the child
    # failed."): the lost process is its writer's own child, its line naming none; the child's own error, where its
    # log printed it (a RankException, or the parsers' kind of its error, before it), is the cause and was said: the
    # engine's word is its witness, said where nothing else of the failure was (`consequence`), so that an engine
    # whose child died unprinted makes an incident, undetermined, as offline.  Was: not published (no culprit named)
    LiveFact("process_lost", "ChildProcessFailed", "A serving engine's child process failed", ("rank", "fact"), (),
             rows=("sglang_child_failed",), witness=True, consequence=True,
             told="A serving engine said its child process failed, the child's own error the cause"),
    # a serving engine that could not load a model of its repository, or exited for it (row triton_model_load:
    # Triton's "failed to load '<model>' version N: <Status>: ..", "error: creating server: Internal - failed to load
    # all models"): the application's failure, its writer the culprit, read from the line's own words, not from a
    # traceback (the RankException row's).  Was: not published (the exception kind is read from tracebacks only)
    LiveFact("exception", "ModelNotLoaded", "A serving engine could not load its model",
             ("rank", "local_rank", "model", "status", "fact"), (), rows=("triton_model_load",)),
    # a rank's Python exception that is no consequence of another's failure (not chained after the chain's first, no
    # CONSEQUENCE_EXCEPTIONS type or words, no fact it states, no parsers' kind of its text): the application's; its
    # writer is the culprit.  One that is a consequence (a CONSEQUENCE_EXCEPTIONS type or words: Ray's
    # RayChannelTimeoutError on vLLM's engine core, ray-project/ray #53845, #59249) names none: its writer is its
    # witness (`told`), said only where the job's node said nothing else of the failure (agent/workloads.py), so that a
    # job whose only line is such an exception makes an incident, `undetermined`, as offline
    LiveFact("exception", "RankException", "A rank raised an exception that is no consequence of another's failure",
             ("rank", "local_rank", "host", "pid", "exception"), (), traced=True, witness=True,
             told="A rank raised an exception that says the failure is elsewhere"),
)
LIVE = {row.kind: row for row in LIVE_FACTS if not row.rows}  # a kind's row for its rows no other names
LIVE_ROWS = {name: row for row in LIVE_FACTS for name in row.rows}
LIVE_REASONS = {row.reason: row for row in LIVE_FACTS}
# how the Event words each field (a label, then its value; "; " between fields)
_LABELS = {"rank": "rank", "local_rank": "local rank", "host": "host", "pid": "pid", "exit_code": "exit code",
           "signal": "signal", "lagging": "lagging ranks", "timeout_ms": "timeout ms", "job": "job",
           "node_id": "node id", "what": "error", "segment": "segment", "why": "reason", "fact": "read as",
           "first_rank": "first rank", "other_rank": "other rank", "around_rank": "around rank", "op": "op",
           "seq": "seq", "error_type": "error type", "barrier": "barrier", "tasks": "tasks", "plugin": "plugin",
           "callback": "callback", "rc": "rc", "store_key": "key", "store_joined": "joined",
           "store_expected": "expected", "store_timeout": "store timeout", "gpu": "gpu", "result": "result",
           "iteration": "iteration", "exception": "exception", "duration": "duration", "store_host": "store",
           "store_port": "port", "store_error": "store error", "prog": "program", "rejected": "rejected",
           "rerun_host": "rerun host", "rerun_gpu": "rerun gpu", "unresolved": "address", "resolver_error": "resolver",
           "model": "model", "status": "status"}
_BY_LABEL = {label: name for name, label in _LABELS.items()}
# (a "what" may hold a colon: NCCL's "Bootstrap : no socket interface found")
_VALUE = {"lagging": re.compile(r"\d{1,9}(?:, \d{1,9}){0,63}"), "what": re.compile(r"[A-Za-z][\w ./:'\-]{0,79}"),
          "why": re.compile(r"[A-Z][A-Z ]{0,79}"),
          # a store's error as c10d words it (no ';' nor parenthesis: the Event's own separators)
          "store_error": re.compile(r"[A-Za-z][\w ,.'?\-]{0,119}"),
          # a rejected command line's message (facts argparse_error's, absl_flags_error's, fire_error's `rejected`: no
          # ';' nor parenthesis; absl's and Fire's capitalised)
          "rejected": re.compile(r"[A-Za-z][^;()\n]{0,400}"),
          # a resolver's error ("gai error: -5 - No address associated with hostname", ssh's "Temporary failure in
          # name resolution"; no ';' nor parenthesis)
          "resolver_error": re.compile(r"[A-Za-z][\w ,.:'\-]{0,119}"),
          # a Triton status's words ("Unsupported", "Invalid argument": triton_model_load's `status`)
          "status": re.compile(r"[A-Z][a-z]{1,20}(?: [a-z]{1,20})?"), "text": re.compile(r"[\w.:\-\[\]@/]{1,253}"),
          "int": re.compile(r"-?\d{1,18}")}
_LABEL = "(" + "|".join(sorted(map(re.escape, _BY_LABEL), key=len, reverse=True)) + ")"
_WORDS = re.compile(r" \(((?:" + _LABEL + r" [^;()]{1,400}?(?:; |(?=\))))+)\)")
_PART = re.compile(_LABEL + r" (.+)")


def _shape(name: str) -> re.Pattern:
    return _VALUE.get(name) or (_VALUE["int"] if name in INT_FIELDS else _VALUE["text"])


def live(kind: str, fact: str | None = None) -> LiveFact | None:
    """The LIVE_FACTS row that publishes a job fact of `kind` read by FACTS row `fact` (LiveFact.rows), None: none."""
    row = LIVE_ROWS.get(fact) if fact is not None else None
    return row if row is not None and row.kind == kind else LIVE.get(kind)


# the FACTS rows read from a line's own words (triage.read.job_fact): those a LiveFact publishes (`live`) but a traced
# one's (the exception kind's rows, but triton_model_load, read from tracebacks only), and the words a line must hold
# to be one of them (a line without one costs nothing more)
LIVE_WORDED = frozenset(f.name for f in FACTS if (row := live(f.kind, f.name)) is not None and not row.traced)
LIVE_KEYWORDS = tuple(dict.fromkeys(k for f in FACTS if f.name in LIVE_WORDED for k in f.keywords))


def said_at_end(kind: str, fact: object = None) -> bool:
    """Whether a published job fact (its kind, the FACTS row it was read by) is one a healthy end also prints
    (LiveFact.at_end)."""
    row = live(kind, fact if isinstance(fact, str) else None)
    return row is not None and row.at_end


def names_culprit(row: LiveFact, fields: dict) -> bool:
    """Whether a fact's `fields` name its culprit (LiveFact.culprit; a row of none: its writer is, unless its fields
    say it is a consequence: a failure elsewhere made its writer say it); one on its writer's own host
    (LiveFact.own) names none."""
    if fields.get("consequence"):
        return False
    return not row.culprit or any(fields.get(name) is not None and
                                  not (row.own and own_address(str(fields[name]), fields.get(row.own)))
                                  for name in row.culprit)


def published(row: LiveFact, fields: dict) -> bool:
    """Whether a node agent publishes a fact with these `fields`: it names its culprit, or its writer is its witness
    (LiveFact.witness, in `told`'s words)."""
    return names_culprit(row, fields) or row.witness


def words(row: LiveFact, fields: dict) -> str:
    """The Event's own words for a fact: "A rank's process ended (rank 7; host node-b; exit code -9; signal 9
    SIGKILL)"; a value not of its field's shape (a host with a space or a parenthesis) is left out."""
    said = []
    for name in row.fields:
        value = fields.get(name)
        if value is None or not _shape(name).fullmatch(str(value)):
            continue
        text = f"{_LABELS[name]} {value}"
        if name == "signal" and int(value) in SIGNALS:
            text += f" {SIGNALS[int(value)]}"
        said.append(text)
    what = row.what if names_culprit(row, fields) or not row.told else row.told
    return f"{what} ({'; '.join(said)})" if said else what


def read_words(reason: str, message: str) -> tuple[LiveFact, dict] | None:
    """(the row, the fields) of a Pod Event `words` wrote (ints for INT_FIELDS, strings otherwise, as triage reads
    the line), None for an Event of another reason; only the Event's words before the quoted line are read.  A
    witness's words (`told`) say its writer saw a failure elsewhere: `consequence` True among the fields."""
    row = LIVE_REASONS.get(reason)
    if row is None:
        return None
    fields: dict = {}
    what = next((w for w in (row.what, *((row.told,) if row.told else ()), *row.was) if message.startswith(w)), None)
    if what is not None and what == row.told:
        fields["consequence"] = True
    if what is not None:
        m = _WORDS.match(message, len(what))
        for part in (m.group(1).split("; ") if m else ()):
            pm = _PART.fullmatch(part)
            if pm is None:
                continue
            label, value = pm.groups()
            name = _BY_LABEL.get(label)
            if name is None or name not in row.fields:
                continue
            value = value.split(" ", 1)[0] if name == "signal" else value  # "9 SIGKILL": the number
            if not _shape(name).fullmatch(value):
                continue
            fields[name] = int(value) if name in INT_FIELDS else value
    return row, fields


# ---- the collectives ranks timed out in, as a node agent's timeout Event says them -------------------------------
# A watchdog's WorkNCCL timeout line names one rank's collective (SeqNum, OpType, NumelIn; its process group from the
# rank's progress line): agent/workloads.py lists each distinct one of the job's ranks on its node in the timeout's Pod
# Event ("... Collectives timed out: PG 0 SeqNum 7219 BROADCAST NumelIn 64 (rank 3); PG 0 SeqNum 7219 BROADCAST NumelIn
# 24084544 (rank 2)"), cluster/evidence.py reads them back into each rank's evidence, and triage.attribute's own rule
# (mismatched_collective) compares the ranks of every node of the job, as offline.


@dataclass(frozen=True, slots=True)
class Collective:
    """One rank's collective its watchdog timed out in: SeqNum and OpType always, its size and process group where
    known (the group: None when no line of the rank named it, then it is compared with none)."""
    seq: int
    op: str
    numel_in: int | None = None
    pg: str | None = None


COLLECTIVES_WORDS = "Collectives timed out: "
COLLECTIVES_SHOWN = 4  # distinct collectives an Event lists (the first seen)
COLLECTIVE_RANKS = 8  # ranks listed per collective (the lowest)
# characters of the words at most (the collectives past it left out): with the rest of the Event's message (its
# sentence with 16 ranks, the container, the quoted line) within the 1,024 an Event keeps (kubeapi/events.py)
COLLECTIVES_CHARS = 320
_OP = re.compile(r"[A-Za-z_]\w{0,63}")
_PG = re.compile(r"[\w.:\-]{1,64}")
_COLLECTIVE = re.compile(r"(?:PG (?P<pg>[\w.:\-]{1,64}) )?SeqNum (?P<seq>-?\d{1,18}) (?P<op>[A-Za-z_]\w{0,63})"
                         r"(?: NumelIn (?P<numel>\d{1,18}))? \(ranks? (?P<ranks>\d{1,9}(?:,\d{1,9}){0,63})(?:\.\.\.)?\)")


def collective(details: dict) -> Collective | None:
    """The collective a watchdog timeout finding's details name (the parsers' seq and op, the pod log source's numel_in
    and pg), None without a SeqNum and an OpType of their shape: a line of the rank's failure naming no collective."""
    seq, op, numel, pg = details.get("seq"), details.get("op"), details.get("numel_in"), details.get("pg")
    if not isinstance(seq, int) or not isinstance(op, str) or not _OP.fullmatch(op):
        return None
    return Collective(seq, op, numel if isinstance(numel, int) else None,
                      str(pg) if pg is not None and _PG.fullmatch(str(pg)) else None)


def collectives_words(by_rank: dict[int, Collective]) -> str:
    """The Event's words for each rank's collective (`by_rank`, in the order the ranks were seen): the distinct
    collectives (COLLECTIVES_SHOWN, the first seen, within COLLECTIVES_CHARS), each with its ranks (COLLECTIVE_RANKS,
    the lowest); "" for none."""
    ranks: dict[Collective, list[int]] = {}
    for rank, c in by_rank.items():
        if c in ranks:
            ranks[c].append(rank)
        elif len(ranks) < COLLECTIVES_SHOWN:
            ranks[c] = [rank]
    said, size = [], len(COLLECTIVES_WORDS)
    for c, rs in ranks.items():
        rs = sorted(rs)
        listed = ",".join(map(str, rs[:COLLECTIVE_RANKS])) + ("..." if len(rs) > COLLECTIVE_RANKS else "")
        one = (f"{'PG ' + c.pg + ' ' if c.pg is not None else ''}SeqNum {c.seq} {c.op}"
               f"{' NumelIn ' + str(c.numel_in) if c.numel_in is not None else ''} "
               f"(rank{'s' if len(rs) > 1 else ''} {listed})")
        size += len(one) + 2
        if said and size > COLLECTIVES_CHARS:
            break
        said.append(one)
    return COLLECTIVES_WORDS + "; ".join(said) if said else ""


def read_collectives(message: str) -> dict[int, Collective]:
    """Each listed rank's collective in an Event's own words (`collectives_words`; only the words before the quoted
    line are to be given), {} without them."""
    at = message.find(COLLECTIVES_WORDS)
    if at == -1:
        return {}
    out: dict[int, Collective] = {}
    for part in message[at + len(COLLECTIVES_WORDS):].split("; ")[:COLLECTIVES_SHOWN]:
        m = _COLLECTIVE.match(part)
        if m is None:
            continue
        c = Collective(int(m.group("seq")), m.group("op"), int(m.group("numel")) if m.group("numel") else None,
                       m.group("pg"))
        for rank in m.group("ranks").split(","):
            out.setdefault(int(rank), c)
    return out


# ---- the process a Ray task's failure names, as a node agent's Event says it --------------------------------------
# A driver prints a remote task's failure under Ray's header (RAY_TASK_HEADER: "ray::WorkerDict.
# actor_rollout_generate_sequences() (pid=838798, ip=10.138.0.27, ...)"), whose traceback's exception is that process's,
# on the node at that address, not the driver's.  The pod log source gives the finding of the exception's line the
# header's pid and address (agent/sources/podlogs.py, with triage.read.ray_task, as offline); its Pod Event says them
# ("... Raised in Ray's task process (pid 838798; host 10.138.0.27)", agent/workloads.py) and cluster/evidence.py reads
# them back into the evidence (triage.read.of_ray_task), so the cluster names the node offline names.  A job fact's
# Event says them as its own fields (host, pid).
RAY_TASK_WORDS = "Raised in Ray's task process"
# the node's address Ray names (its node_ip_address: IPv4, IPv6, at most a short name): with the words, at most 125
# characters, so that with a timeout's collectives (COLLECTIVES_CHARS) the Event's quoted line stays within its 1,024
_NODE_ADDRESS = re.compile(r"[\w.:\-\[\]]{1,64}")
_RAY_TASK = re.compile(re.escape(RAY_TASK_WORDS) + r" \(pid (?P<pid>" + _VALUE["int"].pattern + r"); host (?P<host>" +
                       _NODE_ADDRESS.pattern + r")\)")


def ray_task_words(pid, host) -> str:
    """The Event's words for the Ray task's process a failure was raised in, "" when either value is not of its
    shape (a pid beyond 18 digits, an address longer than 64 characters or with a space or a parenthesis)."""
    if pid is None or host is None or not _shape("pid").fullmatch(str(pid)) or \
            not _NODE_ADDRESS.fullmatch(str(host)):
        return ""
    return f"{RAY_TASK_WORDS} (pid {pid}; host {host})"


def read_ray_task(message: str) -> tuple[int, str] | None:
    """(pid, node address) of the Ray task's process an Event's own words name (`ray_task_words`; only the words
    before the quoted line are to be given), None without them."""
    m = _RAY_TASK.search(message)
    return (int(m.group("pid")), m.group("host")) if m is not None else None


# ---- the node a failure's line names, as a node agent's Event says it ---------------------------------------------
# A finding's detail naming the node its line is about, not its writer's (parsers/rules.py ray_oom: Ray's memory
# monitor, "Memory on the node (IP: 29.45.33.204, ..) .. Ray killed this worker", printed by the driver; the raylet's
# summary "1 Workers (tasks / actors) killed due to memory pressure (OOM), .. at node (ID: .., IP: 10.95.143.76)"),
# which triage.read.on_named_node reads.  The Event's quoted line may not name it (cut to its excerpt before the node,
# vllm-project/vllm #2669's at 160 characters before the words the rule reads it by; or the kill's later line named it,
# its amendment, vllm #15102): its Pod Event says it ("... On the node its line names (host 29.45.33.204)",
# agent/workloads.py) and cluster/evidence.py reads it back into the evidence's details for on_named_node, as offline.
NODE_NAMED = "node_ip"
NODE_NAMED_WORDS = "On the node its line names"
_NODE_NAMED = re.compile(re.escape(NODE_NAMED_WORDS) + r" \(host (?P<host>" + _NODE_ADDRESS.pattern + r")\)")


def node_named_words(details) -> str:
    """The Event's words for the node a finding's line names (details NODE_NAMED), "" without one or for a value not
    of its shape (an address longer than 64 characters or with a space or a parenthesis)."""
    host = details.get(NODE_NAMED)
    return f"{NODE_NAMED_WORDS} (host {host})" if host is not None and _NODE_ADDRESS.fullmatch(str(host)) else ""


def read_node_named(message: str) -> str | None:
    """The node address an Event's own words name (`node_named_words`; only the words before the quoted line are to
    be given), None without them."""
    m = _NODE_NAMED.search(message)
    return m.group("host") if m is not None else None
