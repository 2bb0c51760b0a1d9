"""Which worker of a serving engine printed a line: the tags vLLM and SGLang put before their workers' lines, and the
rank such a tag names.  One definition of each, read by the classifier (a pod's finding's rank, parsers.classify) and
by offline triage (its launcher prefixes, triage.ranks).

- Ray's worker prefix, which vLLM's own worker processes print in the same shape: "(RayWorkerWrapper pid=4009)",
  "(pid=1234, ip=10.0.0.1)", "(VllmWorker rank=0 pid=249)" (vLLM 0.8, vllm #18088), "(VllmWorker TP0 pid=302)" (0.10,
  llm-d #191), since vLLM 0.10.2 the parallel indices over 1, "_"-joined: "(Worker_TP1 pid=803328)" (vllm #26420),
  "(Worker_DP1_TP6_EP14 pid=373019)" (vllm-ascend #3298); the engine's "(EngineCore_DP0 pid=...)" names no worker;
- SGLang's scheduler prefix (run_scheduler_process's logger): its stamp, then the parallel indices over 1,
  "[2025-07-25 07:53:08 TP2] " (sglang #8336), "[2025-05-26 07:48:17 DP1 TP2] " (sglang #6624);
- the colour codes Ray's driver and vLLM's processes print about a worker's prefix (COLOURS), kept, lost, shown as
  U+FFFD or printed as "^[" (cat -v) or "#033" (rsyslog) in a paste.
"""

from __future__ import annotations

import re

from .wordscan import LazyPattern

# Ray's (and vLLM's) worker prefix: the actor or task name is any word Ray prints there, a named actor's with its own
# "/" or "." ("(model_worker/12 pid=43581, ip=10.208.16.54)", AReaL); `workers`: the words before "pid=" (a vLLM
# worker's name and indices), `rank`: vLLM 0.8's "rank=N"
WORKER_PREFIX = (r"\((?P<workers>(?:[\w./:\-]{1,128} ){0,2})(?:rank=(?P<rank>\d{1,6}) )?pid=(?P<pid>\d+)"
                 r"(?:, ip=(?P<host>[0-9a-fA-F.:]+))?\) ?")
# SGLang's: " DP{d}", " PP{p}", " TP{t}", " EP{e}" (later " ATTN_CP{c}", " MOE_DP{m}") after its stamp
SGLANG_PREFIX = (r"\[(?P<stamp>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?P<workers>(?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d{1,6})+)"
                 r"\] ?")
# A serving engine's parallel indices in a worker's name: vLLM's "_"-joined ("Worker_DP1_TP6_EP14"; "VllmWorker TP0"
# before 0.10.2), SGLang's " "-joined ("DP1 TP2 EP2")
_PARALLEL = re.compile(r"(?:^|[_ ])(?P<dim>ATTN_CP|MOE_DP|DP|PP|PCP|DCP|TP|EP)(?P<index>\d{1,6})(?=$|[_ ])")
# Which indices name one worker among all the engine's, by family.  Each engine prints only the dimensions over 1:
# - a lone TP index (with EP's or DCP's, which range over the same processes) is the worker's rank in the engine's
#   world, both families;
# - vLLM's EP group spans DP x PCP x TP of a pipeline stage (vllm.distributed.parallel_state: "Worker_DP1_TP6_EP14"
#   on DP2 x TP8), so without a PP index its EP index is the worker's rank whatever else is printed;
# - SGLang's EP index is a slice of its TP group, and its TP index restarts in each data-parallel replica unless DP
#   attention shares one TP group among them, which its lines do not say: "DP1 TP2" names no rank (nor does any
#   index with a PP one, in either family): a worker left without a rank is never guessed one.
_ALONG_TP = frozenset({"TP", "EP", "DCP"})

# Colour codes a writer put about a worker's prefix: Ray's driver prints each worker's line as "<dim><cyan>(<actor>
# pid=.., ip=..)<reset> <line>" (its log monitor), vLLM's processes "<bold cyan>(<process> pid=..)<reset> " where
# colour is on (vllm/utils `_add_prefix`: "\033[1;36m", "\033[0;0m"), so a Ray job's log, a RayJob's or a vLLM pod's
# `kubectl logs`, holds "\x1b[2m\x1b[36m(RayTrainWorker pid=1942, ip=..)\x1b[0m "; pasted, the escape is lost or
# shown as U+FFFD: "[36m(RayTrainWorker pid=3462, ip=100.64.83.225)[0m " (aws-neuron/aws-neuron-eks-samples
# llama3.1_8B_finetune_ray_ptl_neuron/README.md, a RayJob's failure), "[1;36m(VllmWorker rank=1 pid=219)[0;0m "
# (tsailiming/openshift-ai-bootstrap docs/demo/multi-gpu.md, a vLLM pod's log), "\ufffd[36m(RayWorkerWrapper
# pid=4183, ip=10.3.32.122)\ufffd[0m " (vllm-project/vllm #5477), "\ufffd[1;36m(VllmWorker rank=3 pid=4867)\ufffd[0;0m "
# (vllm #21713); or the escape printed as `cat -v` and less print it, "^[": "^[[1;36m(VllmWorkerProcess
# pid=113915)^[[0;0m " (vllm-project/vllm-ascend #922), or as rsyslog escapes a control character, "#033":
# "#033[1;36m(VllmWorker TP1 pid=413)#033[0;0m " (vllm-project/vllm #24004, a container's log through syslog).  Peeled,
# never a prefix of its own: by tag_rank and by offline triage (triage.ranks) alike; COLOUR_FIRST: the characters
# such a code may start with (a cheap test before the regex)
COLOURS = LazyPattern(r"(?:(?:\x1b|\ufffd|\^\[|#033)?\[[0-9;]{1,16}m)+ ?")
COLOUR_FIRST = frozenset("\x1b\ufffd[^#")

_WORKER = LazyPattern(WORKER_PREFIX)
_SGLANG = LazyPattern(SGLANG_PREFIX)
MAX_TAGS = 4  # prefixes read before a line's text ("(APIServer pid=32) (EngineCore_0 pid=296) (VllmWorker TP0 ...")
_SGLANG_DIM = frozenset("DPTEAM")  # the first letter of an index SGLang prints after its stamp


def worker_rank(family: str, workers: str | None) -> int | None:
    """The rank a serving engine's worker tag names (see _ALONG_TP), or None."""
    if not workers or ("TP" not in workers and "EP" not in workers):
        return None
    dims = {m.group("dim"): int(m.group("index")) for m in _PARALLEL.finditer(workers.strip())}
    if family == "vllm" and "EP" in dims and "PP" not in dims:
        return dims["EP"]
    if "TP" in dims and dims.keys() <= _ALONG_TP:
        return dims["TP"]
    return None


def tag_rank(text: str) -> int | None:
    """The rank the worker tags at the start of `text` name (the innermost that names one wins, as offline triage
    merges them), or None; colour codes about a tag (COLOURS) peeled.  Most lines start with neither tag nor colour:
    ruled out by their first character (and a substring test), before any regex."""
    first = text[:1]
    if first == "(":
        if "pid=" not in text:
            return None
        pos = 0
    elif first not in COLOUR_FIRST:  # (SGLang's "[" among them)
        return None
    elif first == "[" and text[20:21] == " " and text[21:22] in _SGLANG_DIM and text[5:6] == "-":  # "[2025-.."
        pos = 0
    elif "pid=" in text and (colours := COLOURS.match(text)) is not None:
        pos = colours.end()  # a coloured tag is a worker's ("pid="): its colours peeled
    else:
        return None
    rank = None
    for _ in range(MAX_TAGS):
        if text.startswith("(", pos):
            m = _WORKER.match(text, pos)
            if m is None:
                break
            said = m.group("rank")
            found = int(said) if said is not None else worker_rank("vllm", m.group("workers"))
        elif text.startswith("[", pos):
            m = _SGLANG.match(text, pos)
            if m is None:
                break
            found = worker_rank("sglang", m.group("workers"))
        else:
            break
        if found is not None:
            rank = found
        pos = m.end()
        # the reset after a coloured tag, its space, the next tag's colour (each match takes 3 characters or more)
        while text[pos:pos + 1] in COLOUR_FIRST and (colours := COLOURS.match(text, pos)) is not None:
            pos = colours.end()
    return rank
