"""Who wrote a line: rank, local rank and host from the prefixes launchers put before it, and from file and
directory names.

A line may carry several prefixes, outermost first (`srun -l` before torchrun's `[rank3]:`, Ray's
`(RayWorkerWrapper pid=4009)` before `[rank1]:`); `strip` peels them off in order and merges what they say.
Each prefix is one row of PREFIXES: what real launchers print, with the fields its groups fill.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import NamedTuple

from parsers.classify import message_rank
from parsers.envelope import KUBECTL_PREFIX, stern_record
from parsers.redacted import placeholder
from parsers.workers import COLOUR_FIRST, COLOURS, SGLANG_PREFIX, WORKER_PREFIX, worker_rank

from .facts import EXCEPTION_NAME, PG_TAG_WITHIN


@dataclass(frozen=True, slots=True)
class Origin:
    """Who wrote a line, as far as its prefixes, its file and its directory tell."""

    host: str | None = None
    rank: int | None = None
    local_rank: int | None = None
    pid: int | None = None
    gpu: int | None = None  # NCCL's "[dev]": the CUDA device of the process
    # the pod kubectl's prefix named (`kubectl logs --prefix`): the host too, unless a prefix inside names the pod's
    # hostname (`hostname_of_pod`)
    pod: str | None = None
    # the node a record names the pod's (stern -o json's nodeName): said in the evidence's details ("node"), the pod
    # still the line's host (as stern's plain prefix, kubectl's)
    node: str | None = None

    def merge(self, other: "Origin") -> "Origin":
        """This origin with the fields `other` knows and this one does not (the inner, more specific prefix is
        passed as `other` and wins where both know)."""
        if other is NONE:
            return self
        if self is NONE:
            return other
        changes = {name: getattr(other, name) for name in self.__slots__ if getattr(other, name) is not None}
        return replace(self, **changes) if changes else self


NONE = Origin()
MAX_PREFIXES = 4
# A host name as a prefix prints it; or as a poster elided its start, keeping the end that tells the nodes apart
# ("...-48:34050:34121 [0]", Lightning-AI/lit-llama #380: the eight processes of one of four nodes): named as printed,
# the elision included (an elision keeping nothing, "...", is no host)
_HOST = r"(?:<[^<>\s]{1,64}>|[A-Za-z0-9][A-Za-z0-9_.\-]{0,252}|(?:\.{3}|\u2026)[A-Za-z0-9_.\-]{0,248}[A-Za-z0-9])"


class Prefix(NamedTuple):
    """One row of PREFIXES: a launcher's prefix."""
    name: str
    pattern: re.Pattern  # anchored at the start of what is left of the line
    fields: dict[str, str]  # Origin field -> the group that fills it
    # the characters a line it may match starts with, where its regex does not open with a fixed one
    first: str | None = None
    # a string the rest of the line must hold for the regex to be tried: a rare row costs most lines a substring
    # search, not a match
    needle: str | None = None
    outermost: bool = False  # printed by the launcher around everything else: only ever a line's first prefix
    # its host group takes any word before ": ": what it matched is a host only if it looks like one (`_host_ok`)
    host_checked: bool = False
    # its `workers` group names a serving engine's worker by its parallel indices ("Worker_DP1_TP6_EP14", "DP1 TP2
    # EP2"): the rank they give (`worker_rank`), by the family's rule of which index spans the engine's workers
    workers: str | None = None
    # read after a line's leading whitespace too, as the line's first prefix: a log pasted indented into an issue
    # (tensorrtllm_backend #170's ten spaces before NCCL's "<pod>:5011:5092 [1] NCCL WARN .."), its prefix the
    # writer's all the same; a row no indentation is said before (srun's label is right-aligned by spaces itself). The
    # words such a line holds (NCCL's " NCCL "): an indented line without them (a traceback's frames) tries no row
    indented: str = ""


# The suffixes Kubernetes generates after a name its controller chose (a pod's metadata.generateName: the API server
# appends 5 random characters of apimachinery's alphabet, no vowels, no 0 1 3: k8s.io/apimachinery pkg/util/rand
# rand.go `alphanums`, apiserver pkg/storage/names SimpleNameGenerator), one row per shape.  An Indexed Job's pod is
# named `<job>-<index>-<5>` and its hostname set to `<job>-<index>` (KEP-2214 "Pod detail"; the Job controller), so a
# JobSet's (its Indexed Jobs') `<jobset>-<job>-<jobindex>-<podindex>-<5>` has hostname `<jobset>-<job>-<jobindex>-
# <podindex>` ("network-jobset-workers-0-0-g5n2t", kubernetes-sigs/jobset PR #550; the hostname
# "network-jobset-leader-0-0", its jobset-with-network.yaml): NCCL's "host:pid:tid [dev]", torchrun's and Python's
# hostname name the pod by it.  A pod whose hostname is its name (a Deployment's, a non-indexed Job's, a StatefulSet's,
# PyTorchJob's `<job>-worker-<n>`, LeaderWorkerSet's `<lws>-<group>-<worker>`) needs none of this.
GENERATED_SUFFIXES: tuple[str, ...] = (
    r"-[bcdfghjklmnpqrstvwxz2456789]{5}",  # generateName's random characters
)

# Kubernetes' names (apimachinery's validation): a DNS-1123 label (a container's, a namespace's) and subdomain (a
# pod's); a colour code a log tailer puts about them (SGR, `tput sgr0`'s "\x1b(B\x1b[m" too)
_DNS_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_DNS_NAME = r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?"
_SGR = r"(?:\x1b\(B)?\x1b\[[0-9;]{0,16}m"
# The shapes of a pod's name a controller makes, for a tailer's prefix that only a name tells (kubetail's "[<pod>] ",
# stern's plain "<pod> <container> "): at least three words, the last the pod's index (a StatefulSet's, PyTorchJob's
# "-worker-3", an Indexed Job's) or the suffix Kubernetes generated (GENERATED_SUFFIXES: a Deployment's, a Job's, a
# JobSet's): "cifar10-train-worker-0", "metallb-speaker-2zj7t"; not "[pre-commit] ".  Stern's two bare words are a
# sentence's start more often ("loss-scale-128 reduced to 64"): there, an index only after a training operator's
# replica type (Kubeflow's PyTorchJob, MPIJob, TFJob: "<job>-worker-3"), a generated suffix only with a letter in it
POD_SHAPES: tuple[str, ...] = (r"-[a-z][a-z0-9]{0,62}-\d{1,5}",) + GENERATED_SUFFIXES  # a word and an index; a suffix
STERN_POD_SHAPES: tuple[str, ...] = (r"-(?:master|worker|launcher|chief|ps|evaluator)-\d{1,5}",) + tuple(
    r"(?=-\d{0,4}[a-z])" + shape for shape in GENERATED_SUFFIXES)


def _pod_name(shapes: tuple[str, ...]) -> str:
    """A pod's name ending in one of `shapes`, nothing of a name after it."""
    return r"[a-z][a-z0-9]{0,62}(?:-[a-z0-9]{1,63}){0,30}?(?:" + "|".join(shapes) + r")(?![\w.-])"


# First match wins per step, so a rare launcher's row comes after the common ones.
PREFIXES: tuple[Prefix, ...] = tuple(
    Prefix(name, re.compile(pattern), fields, **more)
    for name, pattern, fields, more in (
        # Open MPI --tag-output: "[1,3]<stdout>:" (job id, rank); MPICH / horovodrun: "[1]<stdout>:"
        ("mpi_tag", r"\[(?:\d+,)?(?P<rank>\d+)\]<std(?:out|err)>: ?", {"rank": "rank"}, {}),
        # torchrun --tee / --redirects, and torch's own log prefix: "[default0]:", "[rank3]:"; torchrun's tee prefix is
        # "[<role><local rank>]:", the role empty where the launcher passes `--role ""` (TorchX's dist.ddp component,
        # torchx/components/dist.py): "[0]:E0927 ..", the line right after it (a "[0]:" ending its line is the index of
        # a row of torchrun's failure summary)
        ("torchrun_role", r"\[(?:default|trainer|worker|(?=\d{1,4}\]:\S))(?P<local_rank>\d{1,4})\]: ?",
         {"local_rank": "local_rank"}, {}),
        ("torch_rank", r"\[rank(?P<rank>\d+)\]: ?", {"rank": "rank"}, {}),
        # Ray's worker prefix, with or without the node's address: "(RayWorkerWrapper pid=4009)",
        # "(pid=1234, ip=10.0.0.1)"; the actor or task name is any word Ray prints there, a named actor's with its own
        # "/" or "." ("(model_worker/12 pid=43581, ip=10.208.16.54)", AReaL), and a driver's prefix may come before
        # a worker's ("(EngineCore_DP0 pid=1088) (RayWorkerWrapper pid=285, ip=192.168.177.12)"): the inner wins
        # vLLM's own worker processes print the same shape with their rank: "(VllmWorker rank=0 pid=249)", or with
        # their tensor-parallel index, a second word that is no global rank: "(VllmWorker TP0 pid=302)" (llm-d #191)
        # Since vLLM 0.10.2 (setup_proc_title_and_log_prefix) a worker is named by the parallel indices over 1,
        # "_"-joined: "(Worker_TP1 pid=803328)" (vllm #26420), "(Worker_DP1_TP6_EP14 pid=373019)" (vllm-ascend #3298,
        # DP2 x TP8: its EP index spans both), read by `worker_rank`; the engine's "(EngineCore_DP0 pid=...)" names
        # no worker.  verl / OpenRLHF's Ray actors are the same row: "(WorkerDict pid=..., ip=...)".  This row's pattern
        # and SGLang's are parsers.workers', shared with the classifier (one definition of each tag).
        ("ray", WORKER_PREFIX, {"pid": "pid", "host": "host", "rank": "rank"}, {"workers": "vllm"}),
        # SGLang's scheduler (run_scheduler_process's logger prefix): its stamp, then the parallel indices over 1,
        # " DP{d}", " PP{p}", " TP{t}", " EP{e}" (later " ATTN_CP{c}", " MOE_DP{m}"): "[2025-07-25 07:53:08 TP2] "
        # (sglang #8336), "[2025-05-26 07:48:17 DP1 TP2] " (sglang #6624), "[2026-02-12 11:38:29 TP0 EP0] " (sglang
        # #18785); the stamp is the line's time (its lead)
        ("sglang", SGLANG_PREFIX, {}, {"workers": "sglang"}),
        # TensorRT-LLM's Python logger on a rank ("[TRT-LLM] [RANK 0] [I] ...", after its stamp "[12/04/2025-18:38:28] "
        # when printed: TensorRT-LLM's deployment guide, its Kimi K2 log); its C++ runtime's "[TensorRT-LLM][ERROR]"
        # names no rank (under mpirun the MPI tag before it does)
        ("trtllm", r"(?:\[(?P<stamp>\d\d/\d\d/\d{4}-\d\d:\d\d:\d\d)\] )?\[TRT-LLM\] \[RANK (?P<rank>\d{1,6})\] ",
         {"rank": "rank"}, {"first": "[", "needle": "[TRT-LLM] [RANK "}),
        # NCCL's own: "host:pid:tid [dev] NCCL INFO ..."
        ("nccl", r"(?P<host>" + _HOST + r"):(?P<pid>\d+):(?P<tid>\d+) \[(?P<gpu>\d+)\] ",
         {"host": "host", "pid": "pid", "gpu": "gpu"}, {"indented": " NCCL "}),
        # UCX (Open MPI / NCCL's UCX plugin) before its signal reports: "[8d6bf97c3bf4:3039 :0:3095] Caught signal 7"
        ("ucx", r"\[(?P<host>" + _HOST + r"):(?P<pid>\d+) *:\d+:\d+\] ", {"host": "host", "pid": "pid"}, {}),
        # Slurm `srun -l` / `--label`: "12: " (right-aligned to the widest task id)
        ("srun_label", r" {0,6}(?P<rank>\d{1,6}): ", {"rank": "rank"}, {"outermost": True}),
        # Slurm 23.11+'s slurmstepd names its node in its own log prefix (its process title "slurmstepd-<node>"),
        # in the step's output: "slurmstepd-sp-0016: error: pyxis: couldn't start container" (NVIDIA/pyxis #135);
        # the node is what follows the dash (the pdsh row below would take the whole word for a host)
        ("slurmstepd", r"slurmstepd-(?P<host>" + _HOST + r"): (?=\S)", {"host": "host"}, {}),
        # TorchX (`torchx log`, torchx.util.log_tee_helpers): "<role>/<replica> " before every line of a replica, one
        # node (pod) of the job, torchrun's own tee prefix after it: "trainer/0 [0]:E0927 12:07:22.643702 1012209
        # ProcessGroupNCCL.cpp:1356] [PG ID 0 PG GUID 0(default_pg) Rank 0] ProcessGroupNCCL preparing to dump debug
        # info." (pytorch/pytorch #137523); the replica, named as printed, is the line's host
        ("torchx", r"(?P<host>[A-Za-z_][\w-]{0,62}/\d{1,5}) (?=\S)", {"host": "host"},
         {"first": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_", "needle": "/", "outermost": True}),
        # pdsh (DeepSpeed's multi-node launcher) and `parallel-ssh -i`: "worker-3: " before the remote output
        ("pdsh", r"(?P<host>" + _HOST + r"): (?=\S)", {"host": "host"}, {"outermost": True, "host_checked": True}),
        # Determined AI's trial logs: "[2024-03-15T16:29:14.110799Z] 5c902731 [rank=1] || " (its stamp, the
        # container's id, the rank its launcher wraps each process's output with, "||"), a line of no rank's
        # ("5c902731 || ", the master's "         || "), 2020's with the container's state after its id ("cf108822
        # [RUNNING] || ", horovod/horovod #2015); `det trial logs` puts the level first: "<info>    [2021-12-07
        # 10:43:01] 087c0ee7 || " (the level its own row, the stamp skipped as between any two prefixes)
        ("determined", r"(?:[0-9a-f]{8} +| +)(?:\[[A-Z]{3,12}\] )?(?:\[rank=(?P<rank>\d{1,6})\] )?\|\| ?",
         {"rank": "rank"},
         {"first": "0123456789abcdef ", "needle": "||"}),
        ("determined_level", r"<\w{0,8}> +(?=\[\d{4}-)", {}, {"first": "<"}),
        # Docker Compose v2's `up` / `logs`: the container ("<service>-<replica>"), padded to the longest name, and
        # "| " before everything it printed: "sglang-1  | [2025-10-29 11:25:58 TP3] Watchdog timeout .." (sgl-project/
        # sglang #12076), "triton-models-1    | [TensorRT-LLM][WARNING] .." (NVIDIA/TensorRT-LLM #2813); the service
        # names no host or rank, the prefixes after it do
        ("compose", r"[A-Za-z0-9][\w.\-]{0,200}-\d{1,4} +\| ?", {},
         {"first": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "needle": " | ",
          "outermost": True}),
        # `kubectl logs --prefix` (1.17+, kubernetes/kubernetes PR #76471; with -l, --all-containers, a job's pods in
        # one stream): "[pod/<pod>/<container>] " before each line, the same text in every kubectl since
        # (staging/src/k8s.io/kubectl/pkg/cmd/logs/logs.go addPrefixIfNeeded: fmt.Sprintf("[pod/%s/%s] ", ..); the
        # container empty where kubectl could not name it), --timestamps' stamp after it (the stamp is the log's own
        # text, the prefix kubectl's writer's): "[pod/echo-req-7cfd7bf68f-nk5kr/hello] 172.17.0.1 - - .."
        # (geerlingguy/ansible-for-kubernetes #75).  The pod is the line's host (a pod is one node's, its lines one
        # writer's); its index in the pod's name is no rank: a pod runs a node's ranks (torchrun's nproc_per_node),
        # and even the node's rank is the rendezvous' order (NVIDIA-NeMo/Run PR #538), so the ranks are the
        # prefixes' after it ("[rank3]:", NCCL's, torchrun's); the pattern is parsers.envelope's (`gpu-npd parse`'s).
        # The pod is kept as the origin's `pod`: an Indexed Job's or JobSet's pod is its hostname and a generated
        # suffix (`hostname_of_pod`), and the job's reader names its lines by that hostname (triage.read, kind
        # pod_hostname), as NCCL's prefix inside them does
        ("kubectl", KUBECTL_PREFIX, {"host": "host", "pod": "host"}, {"outermost": True}),
        # stern (stern/stern, wercker/stern before it): "<pod> <container> " before each line (its default template,
        # cmd.go `{{color .PodColor .PodName}} {{color .ContainerColor .ContainerName}} `, the namespace first with -A
        # or several -n; --timestamps' stamp after them, peeled as the line's time), each name in colour on a terminal
        # or with --color always (fatih/color's SGR codes about it): coloured, any pod's name is read; plain, only a
        # name of a controller's shape (STERN_POD_SHAPES: two words too common a sentence's start), as
        # "vllm-gpu-tinyllama-gpu-deployment-vllm-6949f54975-qtwps vllm INFO 04-08 01:24:55 [loggers.py:111] .."
        # (CloudThrill/vllm-production-stack-terraform, tests/fixtures/kubectl).  The pod is the line's host, as
        # kubectl's
        ("stern", r"(?:" + _SGR + _DNS_LABEL + _SGR + r" )?" + _SGR + r"(?P<host>" + _DNS_NAME + r")" + _SGR
         + r" " + _SGR + _DNS_LABEL + _SGR + r" ", {"host": "host", "pod": "host"},
         {"first": "\x1b", "outermost": True}),
        ("stern_plain", r"(?:" + _DNS_LABEL + r" )?(?P<host>" + _pod_name(STERN_POD_SHAPES) + r") " + _DNS_LABEL
         + r" (?=\S)",
         {"host": "host", "pod": "host"}, {"first": "abcdefghijklmnopqrstuvwxyz", "outermost": True}),
        # kubetail (johanhaleby/kubetail): "[<pod>] " before each line, "[<pod> <container>] " where the pod runs more
        # than one container, "[<colour index>:<pod>] " with -i, tput's colour codes about them on a terminal; a pod of
        # POD_SHAPES' shape only ("[INFO] ", "[rank0]:", "[2024-..]" are no pod's): "[cifar10-train-worker-0] INFO
        # 2022-06-06 21:38:22,775 Keep-alive key .." (aws-samples/aws-distributed-training-workshop-eks, a PyTorch
        # ElasticJob's two workers, tests/fixtures/kubectl)
        ("kubetail", r"(?:" + _SGR + r")?\[(?:" + _SGR + r")*(?:\d{1,3}:)?(?:" + _SGR + r")*(?P<host>"
         + _pod_name(POD_SHAPES) + r")(?: " + _DNS_LABEL + r")?\](?:" + _SGR + r")? ", {"host": "host", "pod": "host"},
         {"first": "[\x1b", "outermost": True}),
        # grep over several logs ("grep net_ib *.log"): the file each line came from, "name.log:" (and `grep -n`'s
        # line number after it), before everything its writer printed (llm-d/llm-d #191)
        ("grep", r"[\w.\-]{1,200}\.(?:log|txt|out|err)(?::\d{1,9})?:", {}, {"needle": ":", "outermost": True}),
    ))
_NAMES = frozenset({"host", "pod", "node"})  # the Origin fields a prefix names by a word (the others are numbers)
_GENERATED = re.compile("|".join(f"(?:{shape})" for shape in GENERATED_SUFFIXES) + r"\Z")


def generated_from(pod: str) -> str:
    """The name pod `pod`'s generated suffix (GENERATED_SUFFIXES) was appended to, `pod` itself where it ends in none:
    an Indexed Job's or a JobSet's pod's hostname, a non-indexed Job's or a ReplicaSet's name (the agent's job of a pod,
    agent/workloads.py `job_of`, starts from it)."""
    m = _GENERATED.search(pod)
    return pod[:m.start()] if m is not None else pod


def hostname_of_pod(pod: str, host: str) -> bool:
    """Whether `host` is the hostname of pod `pod`, the pod named by its hostname and a suffix Kubernetes generated
    (GENERATED_SUFFIXES): an Indexed Job's, a JobSet's pod."""
    return len(pod) > len(host) and generated_from(pod) == host


# Prefixes inside a message that name the rank without being a launcher prefix: PyTorch's "[Rank 3]" and
# "[PG 0 Rank 3]", "[PG ID 0 PG GUID 0(default_pg) Rank 3]"; DeepSpeed's "[Rank 3]" too.  A process group other
# than the default one ("[PG 134 Rank 1]") names the rank in that group, not the global one (parsers.classify's
# message_rank): kept as the evidence's `group_rank`, never its rank.  A bare "[Rank N]" (the WorkNCCL timeout line's
# in every release, the only tag before PyTorch 2.2) is the rank in the group the work ran in too (pytorch/pytorch
# #134006: global rank 1 prints "[Rank 0]" for a subgroup's work): a launcher prefix's rank wins over it, and without
# one it is read as the global rank, right for the default group's work, wrong for a subgroup's, which a log without
# "[PG ...]" tags cannot tell apart (a known gap, tests/triage/test_triage.py pins it).
IN_MESSAGE = re.compile(rf"\[(?:PG [^\[\]]{{0,{PG_TAG_WITHIN}}}?)?(?:Rank|RANK) (?P<rank>\d+)\]")
# A host name must hold a letter or a dot/dash to be one (not "12" or "E0321"): pdsh's row is tried after the others
# but the rare ones, and only when what looks like a host is not a log level or a Python/NCCL word (`host_checked`).
_NOT_HOSTS = frozenset({"Traceback", "RuntimeError", "ERROR", "WARNING", "INFO", "DEBUG", "NCCL", "File", "Error",
                        "Warning", "Note", "Exception", "time", "host", "rank", "exitcode", "error_file",
                        "traceback", "frame", "what", "srun", "slurmstepd", "stderr", "stdout", "Failures",
                        "Root Cause", "torch", "Epoch", "Step", "iteration", "loss", "E", "W", "I", "http", "https",
                        # the NVIDIA container runtime's hook, its error on a line of its own after runc's (a pod's
                        # status message as `kubectl describe pod` prints it, docker's): "nvidia-container-cli:
                        # initialization error: .." (NVIDIA/k8s-device-plugin #1431), the GPU operator's ".real"
                        "nvidia-container-cli", "nvidia-container-cli.real"})


_NOT_HOST_SHAPE = re.compile(r"[a-z][A-Z]|\.(?:py|log|txt|out|err)$|^torch\.")
# a Python exception's name before its message ("socket.gaierror: [Errno -2] ...", "MyError: ...") is no host
_EXCEPTION_NAME = re.compile(EXCEPTION_NAME)


_IPV4 = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}")


def _host_ok(host: str) -> bool:
    """A pdsh host: an IPv4 address, or a name holding a letter and a dash, dot or digit that is no log word, no
    CamelCase or dotted exception."""
    if _IPV4.fullmatch(host):
        return True
    return (host not in _NOT_HOSTS and any(c.isalpha() for c in host)
            and ("-" in host or "." in host or any(c.isdigit() for c in host))
            and _NOT_HOST_SHAPE.search(host) is None and _EXCEPTION_NAME.fullmatch(host) is None)


# A time stamp a writer put between two prefixes or before the first (kubectl --timestamps' RFC 3339, Python
# logging's "2021-07-14 13:21:26,887", NCCL 2.26+'s "[%F %T] " before its WARN lines, behind Ray's prefix; a log
# collector's "2019-06-02T16:13:44.884Z: " before mpirun's "[1,12]<stdout>:", its colon and all): the line's first is
# peeled as its lead (its time), a later one skipped when a prefix follows it (`strip_lead`).
# Open MPI's --timestamp-output and horovodrun's --prefix-output-with-timestamp put C's ctime() right before their
# rank tag, no space between: "Tue Jun 27 22:49:58 2023[1,3]<stderr>:" (horovod/horovod #3952, Open MPI),
# "Fri Sep 25 16:52:36 2020[0]<stderr>:" (horovod #2097, Gloo), after Determined's "|| " with a space before it
# (horovod #2015): read as a stamp only where a tag follows it.
CTIME = (r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d "
         r"\d\d:\d\d:\d\d \d{4}")
STAMPS = re.compile(r"(?:(?:\[\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?\]|"
                    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?):? |"
                    r" ?" + CTIME + r"(?=\[\d+(?:,\d+)?\]<std(?:out|err)>:))")


# What may come first on a line (and between two prefixes): a stamp, with the CRI log envelope's stream and tag after
# it ("2024-07-25T07:00:00.000000000Z stderr F ")
LEAD = re.compile(STAMPS.pattern + r"(?:(?:stdout|stderr) [PF] )?")
_STAMP_FIRST = frozenset("[0123456789")
_WEEKDAYS = frozenset("Mon Tue Wed Thu Fri Sat Sun".split())


def _stamp_may_start(rest: str) -> bool:
    """Whether a stamp of STAMPS may open `rest` (its first characters: a line's are looked at once, not matched)."""
    return rest[:1] in _STAMP_FIRST or rest[:3] in _WEEKDAYS or (rest[:1] == " " and rest[1:4] in _WEEKDAYS)


def _prefix(rest: str, rows) -> tuple[re.Match, tuple] | None:
    """The first row (of `_rows_by_first`'s: its bound match, needle, whether its host is checked, the row) that
    matches at the start of `rest`."""
    for match, needle, check_host, row in rows:
        if needle is not None and needle not in rest:
            continue
        m = match(rest)
        if m is None:
            continue
        if check_host and not _host_ok(m.group("host")):
            continue
        return m, row
    return None


UNREAD = object()  # (strip_lead's `record` not given: the line's stern record read there)


def strip_lead(line: str, record=UNREAD) -> tuple[tuple, str, str]:
    """(who wrote it, as a key: the (field, value) pairs its launcher prefixes name, the inner prefix winning where
    two say the same, `origin_of` makes them an Origin; its lead: the first stamp (and CRI envelope) of the line, at
    its start, between two prefixes or right after the last, peeled and kept for the line's time; the rest, without
    that stamp and the prefixes).  A later stamp between two prefixes is dropped, one no prefix follows stays in the
    rest.  Every stamp is matched once.  `record`: the line's `stern_record` where the caller has read it already
    (None: it is none; triage.read's batch, its keyword scan decodes stern's records), else it is read here."""
    found: dict = {}
    rest = line
    lead = ""
    step = 0
    if line[:1] == "{" and (record := stern_record(line) if record is UNREAD else record) is not None:
        # stern's `-o json` / `-o extjson` record (parsers/envelope.py's, `gpu-npd parse`'s): its pod the line's host,
        # as stern's plain prefix, its node said; its message read on as the line (its own prefixes inner ones), the
        # record's `timestamp` (stern --timestamps since #372) its lead
        names, rest, stamp = record
        found = {name: value for name, value in (("host", names["pod"]), ("pod", names["pod"]),
                                                 ("node", names.get("host"))) if value and not placeholder(value)}
        if stamp is not None and STAMPS.fullmatch(stamp + " ") is not None:
            lead = stamp + " "
        step = 1
    while True:
        rows = None
        if step < MAX_PREFIXES:
            table, anywhere = (_FIRST, _ANY) if step == 0 else (_INNER, _ANY_INNER)
            rows = table.get(rest[:1], anywhere)
        hit = _prefix(rest, rows) if rows is not None else None
        if hit is None and step == 0 and rest[:1] in _INDENT and any(w in rest for w in _INDENT_WORDS) and \
                (bare := rest.lstrip(" \t")):
            # a pasted log's indentation before the line's first prefix (Prefix.indented): its rows only, after it
            hit = _prefix(bare, _INDENTED.get(bare[:1], _ANY_INDENTED))
            if hit is not None:
                rest = bare
        if hit is None:
            # colour codes about a prefix no row takes as its own (parsers.workers.COLOURS: Ray's, vLLM's, stern's):
            # peeled where no row matched, as a stamp is, never counted a prefix; the one after it is read
            if rest[:1] in COLOUR_FIRST and (cm := COLOURS.match(rest)) is not None:
                rest = rest[cm.end():]
                continue
            sm = LEAD.match(rest) if _stamp_may_start(rest) else None
            if sm is None:
                break
            if not lead:  # the line's first stamp: its time, whether a prefix follows it or not
                lead, rest = sm.group(0), rest[sm.end():]
                continue
            after = rest[sm.end():]
            hit = _prefix(after, table.get(after[:1], anywhere)) if rows is not None else None
            if hit is None:
                break
            rest = after
        m, row = hit
        for field_name, group in row.fields.items():
            value = m.group(group)
            if value is not None and not (field_name in _NAMES and placeholder(value)):
                found[field_name] = value if field_name in _NAMES else int(value)
        if row.workers is not None and (m.groupdict().get("rank") is None):  # its worker tag's rank, if it names one
            rank = worker_rank(row.workers, m.group("workers"))
            if rank is not None:
                found["rank"] = rank
        if not lead and "stamp" in m.re.groupindex and m.group("stamp"):  # the prefix holds the line's stamp
            lead = "[" + m.group("stamp") + "] "
        rest = rest[m.end():]
        step += 1
    return tuple(found.items()), lead, rest


def origin_of(fields: tuple) -> Origin:
    """The Origin of `strip_lead`'s key."""
    return Origin(**dict(fields)) if fields else NONE


def strip(line: str) -> tuple[Origin, str]:
    """(who wrote it, the line without its launcher prefixes, its first stamp kept at its front): `strip_lead`'s."""
    fields, lead, rest = strip_lead(line)
    return origin_of(fields), lead + rest


# Which rows a line starting with a given character may be (a prefix's first character is fixed by its pattern): most
# lines start with no prefix at all and are ruled out by one dict lookup and a match or two.
def _rows_by_first(rows) -> tuple[dict, tuple]:
    by_first: dict[str, list] = {}
    anywhere = []
    for row in rows:
        pattern = row.pattern.pattern
        first = pattern[1] if pattern[:1] == "\\" and pattern[1:2] in ("[", "(") else row.first  # an escaped [ or (
        if first is None:
            anywhere.append(row)
        else:
            for c in first:
                by_first.setdefault(c, []).append(row)
    def entries(some: list) -> tuple:  # in the table's order, each as `_prefix` reads it
        return tuple((r.pattern.match, r.needle, r.host_checked, r) for r in sorted(some, key=rows.index))

    table = {c: entries(by + anywhere) for c, by in by_first.items()}
    return table, entries(anywhere)


_FIRST, _ANY = _rows_by_first(PREFIXES)
_INNER, _ANY_INNER = _rows_by_first(tuple(r for r in PREFIXES if not r.outermost))
_INDENTED, _ANY_INDENTED = _rows_by_first(tuple(r for r in PREFIXES if r.indented))
_INDENT = frozenset(" \t")  # a line's first character that may open a pasted log's indentation
_INDENT_WORDS = tuple({r.indented for r in PREFIXES if r.indented})  # (an indented line holding none: no row tried)


def in_message(message: str, known: int | None = None) -> tuple[int | None, tuple[str, int] | None]:
    """(the global rank a PyTorch message names: torch's own "[rankN]:" wherever it stands, the default group's
    "[PG 0 Rank 3]", a bare "[Rank 3]"; `known` instead where the line's prefixes named it; (process group, rank in
    it) when its "[PG ...]" tag names a group other than the default one ("[PG 134 Rank 1]", "[PG ID 2 PG GUID 5
    Rank 0]"), whose rank is never the global one), read in one pass of parsers.classify's message_rank."""
    if known is not None and "[PG " not in message:
        return known, None
    glob, group, group_rank = message_rank(message)
    in_group = (group, group_rank) if group is not None and group_rank is not None else None
    if known is not None or glob is not None or group is not None:
        return (known if known is not None else glob), in_group
    m = IN_MESSAGE.search(message)
    return (int(m.group("rank")) if m else None), None


# File and directory names: "rank-3.log", "rank_3.txt", "log_rank3", "stdout-rank-0", "local_rank2.log"
_RANK_FILE = re.compile(r"(?:^|[^a-z])(?P<local>local[-_]?)?rank[-_.]?(?P<rank>\d{1,6})(?!\d)", re.I)
# names that are what the file is, not whose: a node directory is any other name ("node-b/kern.log")
GENERIC_DIRS = frozenset({"log", "logs", "var", "kernel", "journal", "nvidia", "bug-report", "nvidia-bug-report",
                          "ranks", "rank", "pods", "pod", "nodes", "node", "output", "outputs", "stdout", "stderr",
                          "tmp", "incident", "incidents", "dmesg", "syslog", "fixtures", ".", ""})


def from_path(path: str, root: str | None = None) -> Origin:
    """What a file's name and the directories between `root` (the path the user named) and it say: the rank in a
    per-rank file name, the host from the nearest directory that is neither generic nor a rank's."""
    p = PurePath(path)
    try:
        rel = p.relative_to(root) if root and p != PurePath(root) else PurePath(*p.parts[-2:])
    except ValueError:
        rel = PurePath(p.name)
    rank = local = None
    stem = rel.name
    m = _RANK_FILE.search(stem)
    if m:
        if m.group("local"):
            local = int(m.group("rank"))
        else:
            rank = int(m.group("rank"))
    host = None
    for part in reversed(rel.parts[:-1]):
        if part.lower() in GENERIC_DIRS:
            continue
        m = _RANK_FILE.search(part)
        if m:
            if rank is None and local is None:
                rank = int(m.group("rank"))
            continue
        host = part
        break
    return Origin(host=host, rank=rank, local_rank=local) if (host, rank, local) != (None, None, None) else NONE
