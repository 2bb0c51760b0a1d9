"""Progress lines of common trainers: one line of a container's output -> the step it reports, or None.

Table-driven: each rule is a trainer's line shape (a keyword that must appear, a regex, where the step and the
step time are, and the time unit).  A line without any keyword costs one compiled-regex search (`PREFILTER`,
usable on bytes over a whole buffer); only keyword lines meet the rules.  Announced pauses (checkpoint saves,
evaluation / validation) are recognised too: they stretch a hang allowance rather than count as progress.

    recognise("iter 2920: loss 3.9883, time 1099.34ms, mfu 15.34%")
    -> Progress(step=2920, seconds=1.09934, trainer="nanogpt")

Shapes come from real logs (tests/fixtures/progress/sources.md).  Lines of a tqdm bar rewritten with `\\r`
arrive as one line: the last recognisable segment counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    step: int | None  # the step reported; None: the trainer moved on without naming a step (a loss dict)
    seconds: float | None = None  # time per step when the trainer prints it (or a tqdm rate)
    trainer: str = ""
    pause: str = ""  # "checkpoint" / "evaluation": an announced pause, not progress


@dataclass(frozen=True)
class Rule:
    trainer: str
    keyword: str  # must occur in the line (case-sensitive) before the regex is tried
    pattern: re.Pattern[str]
    scale: float = 1.0  # the time group's unit in seconds (ms: 1e-3); "rate" groups are per second instead


_NUM = r"([0-9]+(?:\.[0-9]*)?)"
# most specific first: the first rule whose keyword and regex match decides
RULES: tuple[Rule, ...] = (
    # NeMo 2: `Training epoch 0, iteration 120/149 | ... | train_step_timing in s: 0.03146`
    Rule("nemo", "train_step_timing", re.compile(r"\biteration (?P<step>\d+)/\d+ \|.*?train_step_timing in s: "
                                                   r"(?P<time>" + _NUM[1:-1] + ")")),
    # Megatron-LM: ` iteration      201/  250000 | ... | elapsed time per iteration (ms): 139113.4 | ...`
    Rule("megatron", "iteration", re.compile(r"\biteration\s+(?P<step>\d+)\s*/\s*\d+\s*\|.*?elapsed time per "
                                             r"iteration \(ms\):\s*(?P<time>" + _NUM[1:-1] + ")"), 1e-3),
    Rule("megatron", "iteration", re.compile(r"\biteration\s+(?P<step>\d+)\s*/\s*\d+\s*\|")),
    # nanoGPT: `iter 2920: loss 3.9883, time 1099.34ms, mfu 15.34%`
    Rule("nanogpt", "iter ", re.compile(r"\biter (?P<step>\d+): loss [^,]*, time (?P<time>" + _NUM[1:-1] + ")ms"),
         1e-3),
    # torchtitan: `step: 200  loss:  6.1384  memory: ...`
    Rule("torchtitan", "step:", re.compile(r"\bstep:\s*(?P<step>\d+)\s+loss:")),
    # DeepSpeed engine: `[Rank 0] step=40, skipped=2, lr=[5e-05], ...`; Megatron-DeepSpeed `steps: 10 loss: ...`
    Rule("deepspeed", "step=", re.compile(r"\] step=(?P<step>\d+), skipped=\d+")),
    Rule("deepspeed", "steps: ", re.compile(r"\bsteps: (?P<step>\d+) loss: ")),
    # Hugging Face Trainer logs: `{'loss': 6.2645, 'learning_rate': 0.001, 'epoch': 0.02}` (with 'step' in some
    # eras, JSON quotes in older ones)
    Rule("huggingface", "loss", re.compile(r"""\{['"]loss['"]: [^{}]*?['"]epoch['"]: [0-9.e-]+"""
                                           r"""(?:, ['"]step['"]: (?P<step>\d+))?""")),
    # tqdm bars (Hugging Face Trainer / accelerate, PyTorch Lightning, NeMo 1.x):
    # `Epoch 0:  22%|██▏       | 4/18 [00:17<01:02,  4.47s/it, loss=...]`, `| 1651/1702 [13:00<00:24,  2.11it/s`
    Rule("tqdm", "/it", re.compile(r"\b(?P<step>\d+)/\d+ \[[0-9:]+<[0-9:?]+,\s+(?P<time>" + _NUM[1:-1] + ")s/it")),
    Rule("tqdm", "it/s", re.compile(r"\b(?P<step>\d+)/\d+ \[[0-9:]+<[0-9:?]+,\s+(?P<rate>" + _NUM[1:-1] + ")it/s")),
)
# a tqdm bar whose description says it is not training: evaluation, which is a pause, not training progress
_EVAL_BAR = re.compile(r"(?i)^\s*(validat|evaluat|testing|predicting|sanity checking)")
# announced pauses: a checkpoint save or an evaluation said in the log
PAUSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("checkpoint", re.compile(r"(?i)\bsav(e|ing)( the)?( model)? checkpoint|\bcheckpoint(ing)? (save|to)\b|"
                              r"\bsaving (model|state|weights)\b")),
    ("evaluation", re.compile(r"(?i)running evaluation|\bevaluat(ing|ion)\b|\bvalidat(ing|ion)\b|"
                              r"\bval loss\b")),
)
KEYWORDS = ("iteration", "iter ", "step", "loss", "/it", "it/s", "heckpoint", "aving", "valuat", "alidat")
# one search over raw bytes finds the lines worth a look (the pod-log source scans whole reads with it)
PREFILTER = re.compile("|".join(re.escape(k) for k in KEYWORDS).encode())
_PREFILTER_STR = re.compile("|".join(re.escape(k) for k in KEYWORDS))


def recognise(line: str) -> Progress | None:
    """The progress (or announced pause) one line reports, else None.  Pure; about a microsecond for a line
    without any keyword."""
    if _PREFILTER_STR.search(line) is None:
        return None
    segments = line.split("\r") if "\r" in line else (line,)
    for segment in reversed(segments):  # a tqdm bar rewritten in place: its last state
        found = _one(segment)
        if found is not None:
            return found
    return None


def _one(line: str) -> Progress | None:
    for rule in RULES:
        if rule.keyword not in line:
            continue
        m = rule.pattern.search(line)
        if m is None:
            continue
        if rule.trainer == "tqdm" and _EVAL_BAR.match(line[:m.start()]):
            return Progress(None, trainer=rule.trainer, pause="evaluation")
        groups = m.groupdict()
        step = int(groups["step"]) if groups.get("step") else None
        seconds = None
        if groups.get("time"):
            seconds = float(groups["time"]) * rule.scale
        elif groups.get("rate"):
            rate = float(groups["rate"])
            seconds = 1.0 / rate if rate > 0 else None
        return Progress(step, seconds, rule.trainer)
    for name, pattern in PAUSES:
        if pattern.search(line):
            return Progress(None, trainer="", pause=name)
    return None
