"""Progress lines of common trainers: one line of a container's output -> the step it reports, or None.

Table-driven: each rule is a trainer's line shape (a keyword that must appear, a regex, where the step and the
step time are, and the time unit).  A line without any keyword costs one compiled-regex search (`PREFILTER`,
usable on bytes over a whole buffer); only keyword lines meet the rules.  Announced pauses (checkpoint saves,
evaluation / validation) are recognised too: they stretch a hang allowance rather than count as progress.  One line
can say both (a tqdm bar written without a newline, then the logger's `Saving checkpoint...` or `***** Running
Evaluation *****` after it): the progress comes from RULES, the pause from PAUSES, each table read for its own fact,
and the one Progress carries both.

    recognise("iter 2920: loss 3.9883, time 1099.34ms, mfu 15.34%")
    -> Progress(step=2920, seconds=1.09934, trainer="nanogpt")

Shapes come from real logs (tests/fixtures/progress/sources.md).  Lines of a tqdm bar rewritten with `\\r`
arrive as one line: the last recognisable segment counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from .units import SECONDS


@dataclass(frozen=True)
class Progress:
    step: int | None  # the step reported; None: the trainer moved on without naming a step (a loss dict)
    seconds: float | None = None  # time per step when the trainer prints it (or a tqdm rate)
    trainer: str = ""
    pause: str = ""  # "checkpoint" / "evaluation": a pause announced on this line
    moved: bool = True  # the line reports training progress (False: it only announces a pause, or only times the
    # step the trainer's last line reported: `seconds` set, no advance)
    # the job is alive but the line is no training line (an RL trainer's rollout generation bar): it holds off a hang
    # verdict without setting the pace (no step, no interval of the median: a bar refreshed every few seconds of a
    # rollout set the median to seconds, and the training phase after it, minutes, read as a hang)
    heartbeat: bool = False
    # the collective timeout (seconds) the line says the job runs under (TIMEOUTS): an announced pause's allowance is
    # capped below it, so that a hang inside the pause is suspected before PyTorch's watchdog ends the job
    timeout: float | None = None
    # the line says the pause `pause` names is over (PAUSES' `ends`: an evaluation's results, a save's end): the job
    # alive and back to training, no pause to allow
    ended: bool = False
    # the total of the tqdm bar the line shows (`34/204`: 204; None: no bar, or one without a known total): which bar
    # counts (the tracker's: a bar of another total shown while the training bar runs is an evaluation's, the Hugging
    # Face Trainer's unnamed `22% 2/9 [00:00<00:01, 4.08it/s]` among its `17% 34/204 ...`); with `step` None, the bar
    # is finished (its count is its total)
    total: int | None = None
    # DeepSpeed's checkpoint engine's per-file lines (PAUSES' `files`): +1 a rank began writing a file (`[Torch] Saving
    # <path>...`), -1 it wrote one (`[Torch] Saved <path>.`); the tracker counts the pod's files in flight
    files: int = 0
    # the end the line says is one rank's own (DeepSpeed's commit, `[Torch] Checkpoint <tag> is ready now!`, said by
    # each rank before its barrier): the pod's other ranks may still be writing (PAUSES' `rank`)
    rank: bool = False


@dataclass(frozen=True)
class Rule:
    trainer: str
    keyword: str  # must occur in the line (case-sensitive) before the regex is tried
    pattern: re.Pattern[str]
    scale: float = 1.0  # the time group's unit in seconds (ms: 1e-3); "rate" groups are per second instead;
    # a "unit" group names its own unit (UNITS); an "elapsed" group over a "total" group is a finished epoch's time; a
    # "plus" group is a second part of the same step's time, added (LeRobot's `data_s` beside its `updt_s`)
    timing: bool = False  # the line times the step its trainer reported on an earlier line: no progress of its own
    # its evaluation lines (a `phase` other than train) are printed once the evaluation is done, its results (PAUSES'
    # `ends`): such a line ends the pause, the pace's allowance counted from it, rather than announcing one (read as
    # announcements, a hang right after a validation was suspected pause_seconds on, an hour, not at the pace)
    ends: bool = False


_NUM = r"([0-9]+(?:\.[0-9]*)?)"
UNITS = SECONDS  # a printed step time's unit, in seconds (parsers/units.py: its "unit" groups name s, ms, us, µs)
_ANSI = r"(?:\x1b\[[0-9;]*m)?"  # a colour code between fields (torchtitan colours its metrics line)
_SGR = r"(?:\x1b?\[[0-9;]*m)*"  # colour codes around a field, with their ESC or as a page renders them without it (Keras 3)
# most specific first: the first rule whose keyword and regex match decides.  A rule whose keyword many lines hold
# ("loss", "step:", "iter ", "iter:") starts with its own words, their word boundary a lookbehind after them
# (`Epoch(?<!\wEpoch)` is `\bEpoch`): re searches a pattern that starts with a literal for it (a line without it
# costs ~0.1 us), one that starts with `\b` by a try at every character (~1 us a line, on every JSON metrics line,
# tqdm bar and Trainer dict; ~6 us on verl's long step lines)
RULES: tuple[Rule, ...] = (
    # NeMo 2: `Training epoch 0, iteration 120/149 | ... | train_step_timing in s: 0.03146`
    Rule("nemo", "train_step_timing", re.compile(r"\biteration (?P<step>\d+)/\d+ \|.*?train_step_timing in s: "
                                                   r"(?P<time>" + _NUM[1:-1] + ")")),
    # Megatron-LM: ` iteration      201/  250000 | ... | elapsed time per iteration (ms): 139113.4 | ...`
    # (its time where the line prints it: one row, the time part optional, as each row costs every keyword line a test);
    # BigScience's Megatron-DeepSpeed (BLOOM's, and the benchmarks built on it) prints seconds: `[default3]: iteration
    # 10/  292968 | ... | elapsed time per iteration (s): 35.8651 | ...` (its time was not read before)
    Rule("megatron", "iteration", re.compile(r"\biteration\s+(?P<step>\d+)\s*/\s*\d+\s*\|(?:.*?elapsed time per "
                                             r"iteration \((?P<unit>ms|s)\):\s*(?P<time>" + _NUM[1:-1] + "))?")),
    # nanotron: `iteration: 327281 / 378950 | consumed_tokens: 85.8G | elapsed_time_per_iteration_ms: 11.5K | ...` (its
    # figures in human form: a K / M / G suffix multiplies)
    Rule("nanotron", "iteration: ", re.compile(r"\biteration: (?P<step>\d+) / \d+ \|(?:.*?\belapsed_time_per_iteration_ms: "
                                               r"(?P<time>" + _NUM[1:-1] + r")(?P<mult>[KMG])?\b)?"), 1e-3),
    # nanoGPT: `iter 2920: loss 3.9883, time 1099.34ms, mfu 15.34%`
    Rule("nanogpt", "iter ", re.compile(r"iter (?<!\witer )(?P<step>\d+): loss [^,]*, time (?P<time>" + _NUM[1:-1] + ")ms"),
         1e-3),
    # LitGPT: `Epoch 34 | iter 3050700 step 610140 | loss train: 2.846, val: 2.861 | iter time: 112.20 ms (step) ...`,
    # its first era `iter 77 step 39: loss 10.8259, iter time: 214.40ms (optimizer.step)`: the iteration (a micro-batch,
    # what `iter time` times) is the step read; the optimizer step repeats over gradient accumulation
    # A trainer built on it (awslabs/keys_values) pads its counts and prints seconds: `Epoch 0 | iter   9 step   9 | loss
    # train: 11.438, val_loss valid: 21.817 | iter time: 38.615 s (step)`
    Rule("litgpt", "iter time", re.compile(r"iter (?<!\witer )\s*(?P<step>\d+) step\s+\d+\b.*?\biter time: (?P<time>"
                                           + _NUM[1:-1] + r") ?(?P<unit>ms|s)\b")),
    # MaxText (JAX): `completed step: 15107, seconds: 2.167, TFLOP/s: 36.722, loss: 2.191`
    Rule("maxtext", "completed step:", re.compile(r"\bcompleted step: (?P<step>\d+), seconds: (?P<time>"
                                                  + _NUM[1:-1] + ")")),
    # torchtitan: `step: 200  loss:  6.1384  memory: ...` (in colour unless disabled: `\x1b[31mstep:  1  \x1b[32mloss:`)
    Rule("torchtitan", "step:", re.compile(r"step:(?:(?<!\wstep:)|(?<=\dmstep:))\s*(?P<step>\d+)\s+" + _ANSI + "loss:")),
    # Meta Lingua and the trainers built on its loop (BLT): `step: 2  acc: 0  loss: 12.1832  grad: ...  wps: 1.84e+04  iter:
    # 0.8908  data: 0.001  lr: ...` (every rank prints it); the step's time its iteration (CUDA-timed) and its batch's
    # loading together, as printed for the logged step; `acc` its micro-step within a gradient accumulation (where
    # gradients accumulate, the times printed are the logged micro-batch's alone: apps/main/train.py times each
    # micro-batch).  None before: the accumulation count between the step and the loss, torchtitan's row did not read it
    Rule("lingua", "  loss: ", re.compile(r"step: (?<!\wstep: )(?P<step>\d+)  acc: \d+  (?:.*?\biter:\s+(?P<time>"
                                          + _NUM[1:-1] + r")  data:\s+(?P<plus>" + _NUM[1:-1] + "))?")),
    # fairseq: `| epoch 001:    450 / 1891 loss=11.521, ..., num_updates=445, ...` (the updates are the steps);
    # its first era, `| epoch 005  1000 / 8223 loss=2.17 (3.20), wps=959, ...`, counts batches within the epoch
    # (one row: the batch count, `count`, is the step only where the line names no `num_updates`)
    Rule("fairseq", "loss=", re.compile(r"\| epoch \d+:?\s+(?P<count>\d+) / \d+ loss=(?:.*?\bnum_updates=(?P<step>\d+))?")),
    # fairseq (and metaseq) with --log-format json: `... | train_inner | {"epoch": 1, ..., "loss": "15.878", ...,
    # "num_updates": "1", ...}`; its epoch summary (`| train | {..., "train_num_updates": "643", ...}`) is no
    # step, as the text format's `| epoch 008 | loss 6.326 | ...` is none
    Rule("fairseq", 'loss": "', re.compile(r'"num_updates": "(?P<step>\d+)"')),
    # the torchvision / timm / MAE MetricLogger: `Epoch: [2]  [1480/1504]  lr: ...  time: 4.3713  data: 0.0001`
    # (its meters name a loss: `loss: 0.8662 (0.8558)`, `closs: ...`; the keyword list needs nothing more)
    Rule("metriclogger", "loss", re.compile(r"Epoch: \[(?<!\wEpoch: \[)\d+\]\s+\[\s*(?P<step>\d+)/\s*\d+\]\s.*?"
                                            r"\btime: (?P<time>" + _NUM[1:-1] + ")")),
    # MMEngine (mmdet 3, mmseg 1, mmpretrain, YOLO-World): `Epoch(train)  [83][ 350/2693]  base_lr: ...  time: 0.5674
    # data_time: ...`, its iteration-based runner `Iter(train) [  50/80000]  lr: ...`; MMCV 1.x (mmdet 2, mmseg 0.x):
    # `Epoch [1][2400/7517]\tlr: 0.00125, eta: 4:33:09, time: 0.595, data_time: ...`, `Iter [50/80000]\tlr: ...`.  The
    # count within the epoch is the step (as the MetricLogger's); `Epoch(val) [10][4000/4809]  eta: ...` is evaluation
    # (a training line names its loss; a validation line none, hence its own keyword).  Its fields after the count
    # (`lr:`, `base_lr:`, `eta:`) keep a script's own `Epoch [1/5], Step [100/600]` (an epoch, not a step) out
    Rule("mmengine", "loss", _MM := re.compile(r"(?:Epoch(?<!\wEpoch)|Iter(?<!\wIter))(?:\((?P<phase>[a-z]+)\))?\s*"
                                                 r"(?:\[\s*\d+\])?\[\s*(?P<step>\d+)/\s*\d+\]\s+(?:base_lr|lr|eta): (?:.*?\btime: (?P<time>"
                                                 + _NUM[1:-1] + "))?")),
    Rule("mmengine", "(val)", _MM),
    # detectron2: `[04/05 01:30:24 d2.utils.events]:  eta: 0:03:35  iter: 19  total_loss: 1.36  ...  time: 0.3636
    # data_time: ...` (no `time` over its first iterations); PaddleSeg: `[TRAIN] epoch: 1, iter: 20/500, loss: 2.0859,
    # lr: 0.009657, batch_cost: 0.5344, reader_cost: ...`
    # LiBai (OneFlow's detectron2-style events writer) names its iteration and total: `[09/10 10:40:56 lb.utils.events]:
    # eta: 21:00:38  iteration: 19/10000  consumed_samples: 80  total_loss: 9.895  time: 7.5187 s/iter  data_time: ...`
    # (keyed on `total_loss: `, which both hold)
    Rule("detectron2", "total_loss: ", re.compile(r"iter(?:ation)?: (?<!\witer: )(?<!\witeration: )(?P<step>\d+)(?:/\d+)?\s+"
                                                  r"(?:consumed_samples: \d+\s+)?total_loss: (?:.*?\btime: (?P<time>"
                                                  + _NUM[1:-1] + "))?")),
    Rule("paddle", "iter:", re.compile(r"iter: (?<!\witer: )(?P<step>\d+)/\d+, loss: (?:.*?\bbatch_cost: (?P<time>" + _NUM[1:-1] + "))?")),
    # ArcticTraining (snowflakedb, its Metrics.print_summary): one line per batch, `iter:  130/3000   4% | loss: 16.5469 |
    # iter time: 1.038s | ... | step time: 0.996s | ... | epoch: 0 | ...` (2025; its first era `iter time: 1.0 s`, its
    # later `Train iter: ...`, an evaluation's ` Eval iter: ...`).  The count is the optimizer step, printed again for
    # every batch of a gradient accumulation (#219: four lines of 130), and both times are one batch's: a printed time
    # would read a quarter of the step there, so the step time comes from the spacing.  None before
    Rule("arctictraining", "iter:", re.compile(r"iter: (?:(?<=(?P<phase>Eval) iter: )|(?<!\witer: ))\s*(?P<step>\d+)/\d+"
                                               r"\s+\d+% \| ")),
    # YOLOX (Megvii's trainer): `2022-10-29 09:05:23 | INFO | yolox.core.trainer:261 - epoch: 1/300, iter: 10/102, mem:
    # 12977Mb, iter_time: 8.438s, data_time: ...` (the count within the epoch, its epoch and its size beside it: the
    # step read is the epoch's start plus the count, `epoch` x `per` + the count).  None before
    Rule("yolox", "iter:", re.compile(r"epoch: (?<!\wepoch: )(?P<epoch>\d+)/\d+, iter: (?P<step>\d+)/(?P<per>\d+), mem: \S+, "
                                      r"iter_time: (?P<time>" + _NUM[1:-1] + r")s\b")),
    # PaddleNLP's Trainer: `[    INFO] - loss: 2.00048828, learning_rate: 2.1e-06, global_step: 20, interval_runtime:
    # 26.3106, interval_samples_per_second: ..., interval_steps_per_second: 0.760149170183967, epoch: 0.0014`
    Rule("paddle", "global_step: ", re.compile(r"\bglobal_step: (?P<step>\d+),(?:.*?\binterval_steps_per_second: (?P<rate>"
                                               + _NUM[1:-1] + "))?")),
    # PaddleNLP's example scripts: `global step 220, epoch: 28, loss: 0.00503, speed: 1.89 step/s`; its Trainer's
    # first era printed a dict, `{'loss': 0.1856, 'learning_rate': 4.5e-05, 'global_step': 150, 'epoch': 2.0}` (the
    # Hugging Face row below reads no step in it: its step sits before 'epoch')
    Rule("paddle", "global step ", re.compile(r"\bglobal step (?P<step>\d+), epoch: \d+, .*?\bspeed: (?P<rate>"
                                              + _NUM[1:-1] + ") step/s")),
    Rule("paddle", "'global_step': ", re.compile(r"\{'loss': [^{}]*?'global_step': (?P<step>\d+), 'epoch': ")),
    # TF-slim (tf.contrib.slim's train loop, the TF object-detection API's first era): `INFO:tensorflow:global step 1:
    # loss = 79.3501 (57.126 sec/step)`
    Rule("tfslim", "global step ", re.compile(r"\bglobal step (?P<step>\d+): loss = [^(]*\((?P<time>" + _NUM[1:-1]
                                              + r") sec/step\)")),
    # verl: its PPO trainer `(TaskRunner pid=247607) step:1 - global_seqlen/min:159906 - ... - timing_s/step:48.70 - ...`,
    # its SFT trainer `step:100 - train/loss:0.0592 - train/lr(1e-3):6.8e-05` (after its epoch bar, which counts within
    # the epoch), its validation `step:0 - val-aux/...`, `step:105 - val/loss:0.0584` (evaluation)
    # Its first metric is whatever the trainer put first: `global_seqlen/` with balance_batch (the default), else
    # `actor/...`, or `training/epoch` in its fork siiRL (`step:1 - training/epoch:1.000 - ... - perf/time_per_step:129.426
    # - ...`, 2026: None before, the row wanting `global_seqlen/` or `train/`): any `key/` opens a step line
    Rule("verl", "step:", re.compile(r"step:(?<![\w/]step:)(?P<step>\d+) - (?:(?P<phase>val)[-/]|[a-z_]+/)"
                                     r"(?:.*?\b(?:timing_s/step|perf/time_per_step):(?P<time>" + _NUM[1:-1] + "))?"), ends=True),
    # slime (THUDM; its fork miles), its Megatron backend's line per training step (megatron_utils/model.py, 2025-06 on;
    # `print` at first, the logger's `model.py:660 - ` before it since): `step 1: {'train/loss': 0.0006256469641812146,
    # ..., 'train/lr-pg_0': 1e-06, 'train/step': 1}`, the step the rollout's steps accumulated (a critic's `critic-step 1:
    # {'train/critic-loss': ...}`); no step time on it (its `perf 0: {...}` lines count rollouts, not steps)
    Rule("slime", "step ", re.compile(r"step (?<!\wstep )(?P<step>\d+): \{'train/")),
    # AReaL (its StatsLogger, areal/utils/stats_logger.py, 2025-08 on): `(AReaL) 20260822-09:03:26.123 StatsLogger INFO:
    # Epoch 1/10 Step 3/934 Train step 3/9340 done.` (the global step; its stats table follows, no step time on the line)
    # -- the shape from its source (no real line found in a public thread); AReaL's own example tests wait for it
    Rule("areal", "Train step ", re.compile(r"Train step (?P<step>\d+)/\d+ done\.")),
    # DeepSpeed engine: `[Rank 0] step=40, skipped=2, lr=[5e-05], ...`.  Its ThroughputTimer's `epoch=0/micro_step=34/
    # global_step=34, RunningAvgSamplesPerSec=...` is no row, by decision: rank 0 prints it beside `step=N`, at the same
    # boundary, and its count is the timer's own (not the step a resumed run restores): read too, it could count two
    # advances per step (tests/agent/test_progress.py)
    Rule("deepspeed", "step=", re.compile(r"\] step=(?P<step>\d+), skipped=\d+")),
    # Its pipeline engine (PipelineEngine.train_batch, rank 0, every steps_per_print steps; Megatron-DeepSpeed and
    # diffusion-pipe train through it): `steps: 1 loss: 0.0614 iter time (s): 531.283 samples/sec: 0.008`, a model's extra
    # losses between the loss and the time in later releases (`steps: 200 loss: 5.5508 lm loss: 5.5103 moe loss: 0.0405 iter time
    # (s): 0.936 ...`); `iter time` is the window's time over its steps: a step's.  Its time was not read before (the
    # step time came from the spacing, which the engine's `step=N` line beside it shares)
    Rule("deepspeed", "steps: ", re.compile(r"steps: (?<!\wsteps: )(?P<step>\d+) loss: (?:.*?\biter time \(s\): (?P<time>"
                                            + _NUM[1:-1] + "))?")),
    # Hugging Face Trainer logs: `{'loss': 6.2645, 'learning_rate': 0.001, 'epoch': 0.02}` (with 'step' in some
    # eras, JSON quotes in older ones; ms-swift adds `'global_step/max_steps': '12/94'`).  A dict without a step is
    # progress all the same: the Trainer logs one every `logging_steps` optimizer steps, so the job moved on, by an
    # unnamed number of steps (Progress.step None: a heartbeat, never compared with another rank's step)
    # TRL's PPO and RLOO trainers log through the same Trainer, their dict opening with episodes per second: `{'eps': 1,
    # 'objective/kl': 10.94, ..., 'loss/policy_avg': -0.0051, ..., 'lr': 7.7e-06, 'episode': 240, 'epoch': 0.27}` (the
    # episode count is samples, not steps: progress without a step)
    # transformers 5.x's ProgressCallback / PrinterCallback print each float as a string ("{v:.4g}"), the epoch too:
    # `{'loss': '12.88', 'grad_norm': '1.879', ..., 'epoch': '5.833e-05', 'global_step/max_steps': '1/17144', ...}`
    # (modelscope/ms-swift #8476): every dict of a 5.x job was None before, so such a job was never tracked
    # TRL's GRPO trainer logs its step time (its `training_step` seconds per optimizer step, averaged over the dict's
    # steps) just before the epoch: `..., 'clip_ratio/region_mean': 0.0, 'step_time': 238.3076013879995, 'epoch': 0.03}`
    # (Chi-Shan0707/TinyLoRA-GRPO-Coder #4, 2026): the printed step time (None before: a dict names no step, so no time
    # was derived from the spacing either, and a GRPO pod had none)
    Rule("huggingface", "loss", re.compile(r"""\{['"](?:loss|eps)['"]: [^{}]*?(?:['"]step_time['"]: '?(?P<time>"""
                                           + _NUM[1:-1] + r"""(?:e-?\d+)?)'?, )?['"]epoch['"]: '?[0-9.e-]+'?"""
                                           r"""(?:, ['"](?:step|global_step/max_steps)['"]: ['"]?(?P<step>\d+))?""")),
    # tqdm bars (Hugging Face Trainer / accelerate, PyTorch Lightning, NeMo 1.x, Ultralytics):
    # `Epoch 0:  22%|██▏       | 4/18 [00:17<01:02,  4.47s/it, loss=...]`, `| 1651/1702 [13:00<00:24,  2.11it/s`.
    # A finished bar (`99/99`) is progress without a step: a bar counting within the epoch ends every epoch on the
    # same count (Ultralytics' `151/200 ... 640: 100%|...| 99/99 [01:52<00:00,  1.14s/it]`, then `152/200 ... 99/99`),
    # which read as a step would be no advance
    Rule("tqdm", "/it", re.compile(r"\b(?P<step>\d+)/(?P<of>\d+) \[[0-9:]+<[0-9:?]+,\s+(?P<time>" + _NUM[1:-1] + ")s/it")),
    # Lightning's RichProgressBar in the same row (a row costs every keyword line a test): `Epoch 4    ━━━━━━━━━ 232/291
    # 0:00:33 • 0:00:09 7.00it/s loss: 0.398` (its elapsed and remaining time as H:MM:SS, `-:--:--` where unknown, its speed
    # always in it/s; a total it cannot know is `--`: `5072/-- 2:40:43 • -:--:-- 0.57it/s`); its `Validation` and `Sanity
    # Checking` bars are evaluation (_EVAL_BAR), as tqdm's are
    Rule("tqdm", "it/s", re.compile(r"\b(?P<step>\d+)/(?:(?P<of>\d+)|--) (?:\[[0-9:]+<[0-9:?]+,\s+|(?:\d+ days?, )?\d+:\d\d:\d\d "
                                    r"\u2022 (?:(?:\d+ days?, )?\d+:\d\d:\d\d|-:--:--) )(?P<rate>" + _NUM[1:-1] + ")it/s")),
    # a tqdm bar counting steps (`unit="step"`, F5-TTS): `Epoch 2/30:   0%|   | 6/8563 [00:10<4:06:13,  1.73s/step, ...`
    Rule("tqdm", "s/step", re.compile(r"\b(?P<step>\d+)/(?P<of>\d+) \[[0-9:]+<[0-9:?]+,\s+(?P<time>" + _NUM[1:-1] + ")s/step")),
    Rule("tqdm", "step/s", re.compile(r"\b(?P<step>\d+)/(?P<of>\d+) \[[0-9:]+<[0-9:?]+,\s+(?P<rate>" + _NUM[1:-1] + ")step/s")),
    # Composer's bar (MosaicML; its unit the batch, `ba`): `train          Epoch   0:    3%|▋   | 17/625 [00:17<07:23,
    # 1.37ba/s, loss/train/total=7.1292]`, `... 1251/1251 [1:16:18<00:00,  3.66s/ba, ...]`; its `eval  Epoch  30: ...`
    # bar is evaluation (_EVAL_BAR)
    Rule("tqdm", "s/ba", re.compile(r"\b(?P<step>\d+)/(?P<of>\d+) \[[0-9:]+<[0-9:?]+,\s+(?P<time>" + _NUM[1:-1] + r")s/ba\b")),
    Rule("tqdm", "ba/s", re.compile(r"\b(?P<step>\d+)/(?P<of>\d+) \[[0-9:]+<[0-9:?]+,\s+(?P<rate>" + _NUM[1:-1] + ")ba/s")),
    # Composer's console logger (LLM Foundry's trainer): each log opens with the run's place, `[batch=1/100]:` (then
    # one `\t Train loss/train/total: 10.9736` line per metric), `[epoch=1][batch=5/5]:` where the duration is in epochs
    # (the batch counted within the epoch: an epoch's last repeats it, as a finished bar's), its first era on every
    # metric line (`[epoch=0][batch=17/625]: loss/train/total: 7.1243`); a duration in tokens or samples
    # (`[token=N/M]:`) is progress without a step (a token count is no step); `[Eval batch=3/10] Eval on eval data`
    # is evaluation
    Rule("composer", "batch=", re.compile(r"\[(?:epoch=\d+\]\[)?batch=(?P<step>\d+)(?:/(?P<of>\d+))?\]:|"
                                          r"\[(?P<phase>Eval) batch=\d+")),
    Rule("composer", "[token=", re.compile(r"\[(?:epoch=\d+\]\[)?(?:token|sample)=\d+(?:/\d+)?\]:")),
    # BasicSR (and its descendants: Real-ESRGAN, StableSR's trainer): `2022-12-02 00:48:03,899 INFO: [train..][epoch:  0,
    # iter:   3,200, lr:(5.000e-04,)] [eta: 7 days, 4:32:25, time (data): 0.617 (0.008)] l_pix: ...` (its iteration with
    # thousands separators; `time` is the time per iteration)
    Rule("basicsr", "iter:", re.compile(r"\[epoch:\s*\d+, iter:\s*(?P<step>[0-9,]+), lr:.*?\btime \(data\): (?P<time>"
                                        + _NUM[1:-1] + ")")),
    # Keras: `423/423 [==============================] - 192s 454ms/step - loss: 1.8386 - ...` (its per-step time in
    # s, ms or us), `1562/1562 [=====...] - 484s - loss: ...` (an epoch's time only), `61/82 [===>...] - ETA: 37s -
    # loss: ...`, Keras 3 `1875/1875 ━━━━━━━━━━━━━━━━━━━━ 3s 1ms/step - loss: ...`.  Its count restarts every epoch
    # and the epoch's last line repeats it, so a line is progress without a step.  Keras 3 (TF 2.16+) colours each part
    # (keras/src/utils/progbar.py): `\x1b[1m158/158\x1b[0m \x1b[32m━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m2s\x1b[0m 4ms/step - loss:
    # ...`, its count padded (`\x1b[1m 12/158\x1b[0m`), the bar split into the done part and the rest, its time the ETA
    # while the epoch runs (`2s`, `1:05`, `1:02:03`, no `ETA:` word) and the elapsed seconds at its end; a page that
    # renders the log drops the ESC and leaves `[1m158/158[0m`: any SGR code, with or without its ESC, around each part
    # Lines without a bar: `fit(verbose=2)`'s one line per epoch (tf.keras 2.x `710/710 - 0s - loss: ...`, Keras 3
    # `1875/1875 - 20s - 11ms/step - accuracy: ...`), a dataset of unknown length (`  13440/Unknown - 2s - loss: ...`,
    # `  60000/Unknown - 5s 87us/step - ...`, Keras 3 `  1/Unknown \x1b[1m7s\x1b[0m 7s/step - loss: ...`: no total, so
    # only a printed step time is one); an epoch's `0s` is no time.  tf.keras 2.0-2.1 counts SAMPLES where fit() reads
    # arrays and says so: `55000/55000 [=====] - 2s 44us/sample - loss: ...` (ageron/handson-ml2, TF 2.0), `20800/20800 -
    # 255s 12ms/sample - loss: ...` (verbose=2): its time is a sample's and its elapsed over the count a sample's too,
    # neither a step's (a step time 36 us for a job whose batches take ~1 ms: a step time, before, 30x too short):
    # progress without a step or a time
    Rule("keras", " - loss", re.compile(r"(?:^|(?<=[\sm]))\d+/(?:(?P<total>\d+)" + _SGR + r" (?:\[[=>.]*\] - |" + _SGR
                                     + r"\u2501+(?:(?:\x1b?\[[0-9;]*m)+\u2501*)* |- )|Unknown(?: - |\s+))(?:ETA: |" + _SGR
                                     + r"(?:\d+:\d\d(?::\d\d)?|(?P<elapsed>\d+)s)" + _SGR + r"(?: -)? (?:(?P<time>" + _NUM[1:-1]
                                     + r")(?P<unit>s|ms|us|\u00b5s)/step|[0-9.]+(?:s|ms|us|\u00b5s)/(?P<sample>sample))?)")),
    # Rows whose keyword few lines hold come last: a line an earlier row reads never pays for their keyword test (a
    # substring test per row, on every keyword line that reaches it).  None of them reads a line an earlier row reads.
    # NeMo-RL (GRPO, SFT, DPO, distillation): each step opens with `========================= Step 2/2
    # =========================` (after `========================= Epoch 1/1 =========================` where it counts
    # epochs: the step then counts within the epoch, and the epoch's last step names its total, as a finished bar does)
    Rule("nemo-rl", "= Step ", re.compile(r"=== Step (?P<step>\d+)/(?P<of>\d+) ===")),
    # its step's end, under `⏱️  Timing:`, `  • Total step time: 1.91s` (NVIDIA-NeMo/RL #762; `66.55s` in #1052's GRPO
    # run): the step the header opened, timed (the pace: a GRPO step's minutes of generation and training); no advance
    # (read as one, each step was two, the header and its end, their intervals ~0 and the step time halving the median)
    Rule("nemo-rl", "Total step time: ", re.compile(r"\u2022 Total step time: (?P<time>" + _NUM[1:-1] + r")s\b"),
         timing=True),
    # nanochat (base / mid training): `step 00004/21400 (0.02%) | loss: 8.893647 | lrm: 1.00 | dt: 989.44ms | tok/sec: ...`,
    # its midtraining without a total `step 00004 (0.02%) | loss: ...`
    Rule("nanochat", "%) | loss: ", re.compile(r"step (?<!\wstep )(?P<step>\d+)(?:/\d+)? \([0-9.]+%\) \| loss: .*?\| dt: (?P<time>"
                                               + _NUM[1:-1] + ")ms"), 1e-3),
    # llm.c: `step   61/74 | loss 3.208939 (+nanz)| norm 1.4800 (+nanz)| lr 3.00e-04 | 44.57 ms | ... bf16 MFU | 91886 tok/s`,
    # its earlier eras `step   10/74: train loss 4.3 norm 1.2 lr 3.00e-04 (36.58 ms, 112241 tok/s)` and `step 1: train loss
    # 4.6 (took 1234.5 ms)`; its `val loss 3.21` is evaluation (PAUSES)
    # (keyed on `loss ` with its space: `loss` alone would try it on every Trainer dict and Keras line)
    Rule("llm.c", "loss ", re.compile(r"step (?<!\wstep )\s*(?P<step>\d+)(?:/\d+)?(?: \| loss .*?\| |: train loss .*?\("
                                      r"(?:took )?)(?P<time>" + _NUM[1:-1] + r") ms\b"), 1e-3),
    # modded-nanogpt: `step:1304/1480 train_time:524287ms step_avg:402.06ms` (the average step time so far: `nanms` at
    # first), its first era with `train_loss:10.8258 ` before the time, `step:1480/1480 val_loss:3.2786 train_time:...`
    # the validation (said when done)
    Rule("modded-nanogpt", "step_avg:", re.compile(r"step:(?<![\w/]step:)(?P<step>\d+)/\d+ (?:(?P<phase>val)_loss:\S+ |"
                                                   r"train_loss:\S+ )?train_time:\d+ms step_avg:(?:(?P<time>"
                                                   + _NUM[1:-1] + ")ms)?"), 1e-3, ends=True),
    # prime-rl (trainer and orchestrator): `02:40:52 SUCCESS Step 0 | Time: 5.13s | Loss: 12.2500 | Grad. Norm: ...`,
    # `Step 5 | Time: 41.20s | Reward: 0.5312 | ...`; its first era `[TRAIN] [Rank 0] step: 289, loss: 0.4310, ...`
    Rule("prime-rl", "| Time: ", re.compile(r"Step (?P<step>\d+) \| Time: (?P<time>" + _NUM[1:-1] + r")s \|")),
    # picotron (Hugging Face's 4D-parallel trainer, and the AWS test cases built on it): `[rank 2] Step: 2     | Loss:
    # 8.5469 | Global batch size:   2.05K | Tokens/s:   1.68K | ...` (its step padded to five; its time only as tokens
    # per second, rounded to three figures: from the spacing).  None before: `Step:` with a colon, `Loss` capitalised
    Rule("picotron", "| Loss: ", re.compile(r"Step: (?<!\wStep: )(?P<step>\d+)\s*\| Loss: ")),
    Rule("prime-rl", "] step: ", re.compile(r"\] step: (?P<step>\d+), loss: ")),
    # Ray Train / Tune (Ray 2.6+'s console output, one line per `train.report()`): `Training finished iteration 1 at
    # 2023-06-22 22:44:43. Total running time: 8s` (then its result table, whose `│ training_iteration   1 │` is none), a
    # Tune trial's `Trial TorchTrainer_8dace_00004 finished iteration 3 at ...` (the time is the run's, not a step's)
    Rule("ray", "finished iteration ", re.compile(r"(?:Training|Trial \S+) finished iteration (?P<step>\d+) at \d")),
    # the TF2 Object Detection API (model_lib_v2): `INFO:tensorflow:Step 200 per-step time 0.831s loss=1.192`, absl's copy
    # `I0912 11:41:51.976096 139735407601536 model_lib_v2.py:652] Step 200 per-step time 0.831s loss=1.192` (the same
    # step twice); its later era prints its losses as a dict on the lines after `Step 1100 per-step time 0.470s`
    Rule("tfod", "per-step time ", re.compile(r"Step (?P<step>\d+) per-step time (?P<time>" + _NUM[1:-1] + r")s\b")),
    # CLU's ReportProgress (google/CommonLoopUtils; the JAX trainers on it: Flax's examples, Scenic), through absl on the
    # local platform: `I0325 14:02:32.371587 130295542103168 local.py:41] Setting work unit notes: 5.5 steps/s, 0.1%
    # (332/500000), ETA: 1d1h10m (3m : 4.4% data, 80.2% train_step)` (2021-01 on; once a minute by default), without a
    # known total `... notes: 5.5 steps/s` alone (progress without a step), its first era `40.0% @4, 8.3 steps/s, ETA: 0
    # min` (2020, the shape from its source); the rate is the report interval's (`0.0 steps/s` at the first report: no
    # time).  Persistent notes (2025-04 on) put the figures on a line of their own, which opens with them.  The writer's
    # `[332] steps_per_sec=5.51328` beside it is no row (the same step again).  None before: a CLU job was never tracked
    Rule("clu", "steps/s", re.compile(r"(?:Setting work unit notes: |^(?=[0-9.]+ steps/s, [0-9.]+% \())(?:[0-9.]+% @(?P<count>"
                                      r"\d+), )?(?P<rate>" + _NUM[1:-1] + r") steps/s\b(?:, [0-9.]+% \((?P<step>\d+)/\d+\))?")),
    # DeepSpeed-Chat's RLHF stage (step3_rlhf_finetuning): `epoch: 0|step: 3183|ppo_ep: 1|act_loss: 30.921875|cri_loss:
    # ...` after its `|E2E latency=2.12s |Gather latency=...` line (the step counts within the epoch; a second PPO epoch
    # prints the same step again)
    Rule("deepspeed-chat", "|step: ", re.compile(r"\|step: (?P<step>\d+)\|ppo_ep: \d+\|")),
    # timm's train.py: `Train: 0 [  50/73 ( 70%)]  Loss: 6.77 (6.83)  Time: 0.320s,  400.32/s  (0.470s,  272.39/s)  LR:
    # ...` (the count within the epoch, as the MetricLogger's; `Time:` the last batch's), its validation `Test: [   0/30]
    # Time: 6.593 (6.593)  Loss: ...` (evaluation), which pytorch/examples' ImageNet script prints too (`Test: [0/782]\tTime
    # 3.426 (3.426)\tLoss ...`).  `Loss` capitalised: no other keyword is in these lines
    Rule("timm", "Loss", re.compile(r"Train: (?<!\wTrain: )\d+ \[\s*(?P<step>\d+)/\d+ \(\s*\d+%\)\]\s+Loss:\s+\S+ \(\S+\)"
                                    r"(?:\s+Time:\s+(?P<time>" + _NUM[1:-1] + r")s,)?|(?P<phase>Test): (?<!\wTest: )\[\s*\d+/\d+\]"
                                    r"\s+Time:? ")),
    # pytorch/examples' ImageNet script (its ProgressMeter, copied by MoCo, SimSiam and many more): `Epoch: [0][ 741/1424]\t
    # Time  1.187 ( 1.292)\tData  0.001 ( 0.048)\tLoss 5.3948e+00 (6.1603e+00)\tAcc@1 ...`, its first era `Epoch:
    # [0][19950/20019]\tTime 0.544 (0.634)\tData ...` (the count within the epoch; `Time` the last batch's)
    Rule("imagenet", "Loss", re.compile(r"Epoch: (?<!\wEpoch: )\[\d+\]\[\s*(?P<step>\d+)/\d+\]\s+Time\s+(?P<time>"
                                        + _NUM[1:-1] + r")\s")),
    # torchtune's metric logger on the console (StdoutLogger; DiskLogger writes the same to its file): `Step 1 |
    # loss:2.085338592529297 lr:2e-05 tokens_per_second_per_gpu:57.8` (2024-08), its first era `Step 0 |
    # loss:1.7535516023635864 lr:2e-05 gpu_resources:13708965376 ` (the global step; no step time; its tqdm bar,
    # `1|25|Loss: 1.26:  26%|...| 26/101 [06:45<17:27, 13.96s/it]`, the tqdm rows read).  None before; `Step 100 |
    # val_loss:...` is no training line
    Rule("torchtune", "| loss:", re.compile(r"Step (?<!\wStep )(?P<step>\d+) \| loss:")),
    # MMF (facebookresearch/mmf, its logistics callback): `2021-04-12T20:44:18 | mmf.trainers.callbacks.logistics: progress:
    # 1100/22000, train/hateful_memes/cross_entropy: 0.6094, ..., train/total_loss: 0.6094, ..., num_updates: 1100, ...,
    # ups: 0.76, time: 02m 12s 935ms, ...` (the updates so far; `ups` updates per second, `time` the whole log interval's);
    # its validation reports under `val/` (`progress: 1000/22000, val/...`: evaluation, said when done: on_validation_end
    # prints it, its `val_time` the evaluation's).  None before: an MMF job was
    # never tracked
    Rule("mmf", "total_loss: ", re.compile(r"\bprogress: (?P<step>\d+)/\d+, (?:(?P<phase>val|test)/|.*?\bups: (?P<rate>"
                                           + _NUM[1:-1] + "),)?"), ends=True),
    # SCEPTER (modelscope/scepter): `scepter [INFO] 2024-10-06 20:19:51,817 [File: log.py Function: _print_iter_log at line
    # 71]  Stage [train] iter: [10/500], data_time: 1.0402(1.0402), time: 1.4696(1.4696), loss: ...` (the global
    # iteration, printed by every rank; `time` the last iteration's, its mean in brackets); another stage is evaluation.
    # None before
    Rule("scepter", "iter: [", re.compile(r"Stage \[(?P<phase>\w+)\] iter: \[(?P<step>\d+)/\d+\],(?:.*?\btime: (?P<time>"
                                          + _NUM[1:-1] + r")\()?")),
    # NeMo Automodel (its LLM / VLM fine-tune and pretrain recipes, nemo_automodel/recipes/*/train_ft.py): `2026-08-10
    # 15:55:20 | INFO | root | step 9 | epoch 0 | loss 0.6974 | grad_norm 1.5436 | lr 1.00e-05 | mem 24.90 GiB | tps
    # 11278.56(1409.82/gpu) | num_label_tokens 21541` (the optimizer step, main rank only; its first era `... | grad_norm
    # ... | mem: ... GiB | tps ...`), its validation `[val] step 100 | epoch 0 | loss ... | lr ... | num_label_tokens ...`
    # (evaluation, said when done); no step time on the line.  None before: an Automodel job was never tracked
    # Its EAGLE draft-model recipe (train_eagle1): `... | nemo_automodel.recipes.llm.train_eagle1 | epoch=0 step=1660
    # loss=2.5443 acc=0.3211 lr=2.01271e-05 grad_norm=0.1367 ...` (NVIDIA-NeMo/Automodel #3173)
    # (keyed on `| loss ` and `step=`; the pattern opens with its literal, the `[val] ` before it looked behind)
    Rule("automodel", "| loss ", re.compile(r"step (?:(?<=\[(?P<phase>val)\] step )|(?<!\wstep ))(?P<step>\d+) \| epoch \d+ \| "
                                            r"loss "), ends=True),
    Rule("automodel", "step=", re.compile(r"epoch=(?<!\wepoch=)\d+ step=(?P<step>\d+) loss=")),
    # LeRobot (lerobot/scripts/train.py, its MetricsTracker): `INFO 2025-07-11 08:20:13 ts/train.py:232 step:9 smpl:576
    # ep:2 epch:0.00 loss:1.051 grdn:4.482 lr:1.8e-06 updt_s:0.302 data_s:13.330` (2024 on; `smp/s:` and `mem_gb:` after
    # it since 2026), its counts in human form past 999 (`step:31K smpl:245K ep:2K`, format_big_number, precision 0:
    # step 31000 to 31499 all print `31K`, so such a step is progress without a step); a step takes its update
    # (`updt_s`) and its batch's loading (`data_s`), both averaged over the log interval: the step time is their sum.
    # Its evaluation, said when done: `step:100 smpl:6K ep:52 epch:0.25 ∑rwrd:20.693 success:0.0% eval_s:120.266`.
    # None before: a LeRobot job was never tracked (keyed on `step:`; the pattern opens with its literal)
    # PithTrain (mlc-ai/pith-train, MoE pretraining), 2026: `2026-04-01 14:07:05 | INFO | step 00000002/00000015 | step-time
    # 28.823 sec | cross-entropy-loss 2.5949 | ...` (its counts zero-padded; the first step's time its warm-up's).  None
    # before: a PithTrain job was never tracked
    Rule("pithtrain", "step-time ", re.compile(r"step (?<!\wstep )(?P<step>\d+)/\d+ \| step-time (?P<time>" + _NUM[1:-1]
                                               + r") sec\b")),
    # LightlyTrain (lightly-ai/lightly-train), 2026: `[2026-02-06 11:55:27,760][INFO] Train Step 1/10 | Train Loss: 32.8633 |
    # Time Spent [Dataload: 64.5%, ...]`, from 2026-04 `Train Step 200/200 | Epoch 1 | train_loss: 28.8206 | lr: ... |
    # Profiling [ GPU Util 52.3% | ... | Step Time 0.27s | Data Time 0.03s |  121 img/s ]` (the global step; its `Val Step
    # 1/157 | ...` lines hold no keyword, its `Validating...` before them the announced evaluation).  Keyed on each
    # era's own loss name, one pattern: `Train Step ` (what the pattern needs) is in no KEYWORDS word, so a line passes
    # the prefilter by its loss; keyed on `Loss`/`loss`, the pattern was tried on every other trainer's loss line that
    # no earlier row reads.  None before: a LightlyTrain job was never tracked
    Rule("lightlytrain", "Train Loss", _LIGHTLY := re.compile(r"Train Step (?P<step>\d+)/\d+ \|(?:.*?\bStep Time "
                                                               r"(?P<time>" + _NUM[1:-1] + r")s\b)?")),
    Rule("lightlytrain", "train_loss: ", _LIGHTLY),
    # MindYOLO (MindSpore): two lines per log, `2024-10-18 10:01:24,917 [INFO] Epoch 1/500, Step 250/1516, imgsize (640, 640),
    # loss: 10.0633, ...` then `... Epoch 1/500, Step 250/1516, step time: 97.44 ms` (the same step again, timed).  The
    # count is within the epoch: the step read is `epoch` x `per` + the count, as YOLOX's (a run logging every 100 steps
    # of a 101-step epoch prints `Step 100/101` every epoch, mindspore-lab/mindyolo #279: no advance ever, read alone).
    # Keyed on each line's own words.  None before
    Rule("mindyolo", "loss: ", _MINDYOLO := re.compile(r"Epoch (?<!\wEpoch )(?P<epoch>\d+)/\d+, Step (?P<step>\d+)/(?P<per>\d+), "
                                                       r"(?:imgsize |step time: (?P<time>" + _NUM[1:-1] + r") ms\b)"), 1e-3),
    Rule("mindyolo", "step time: ", _MINDYOLO, 1e-3),
    # OLMo (allenai/OLMo's trainer) and OLMo-core (its ConsoleLoggerCallback): a marker line per logged step, `2024-08-06
    # 10:00:05.520 intern-studio-160750:0  olmo.train:908  INFO    [step=2/739328,epoch=0]`, its metrics on the lines below
    # it (`    train/CrossEntropyLoss=...`, OLMo-core's `    train/CE loss=...`), no step time; OLMo-core's marker names
    # `???` for an unknown total and, with the metrics, its ETA: `[step=100/2000,epoch=0,eta=5h11m]` (the shape from its
    # source, console_logger.py); the epoch optional (OLMo added it to the marker in 2024, allenai/OLMo #669).  None
    # before: an OLMo job was never tracked
    Rule("olmo", "[step=", re.compile(r"\[step=(?P<step>\d+)/(?:\d+|\?\?\?)(?:,epoch=\d+)?(?:,eta=[^\]]*)?\]")),
    # InternEvo (InternLM's trainer, record_current_batch_training_metrics; its metrics `key=value`, space-separated since
    # 2023-09): `2023-09-05T11:50:02.553+08:00 INFO [training_internlm.py, line 413, in record_current_batch_training_metrics]
    # - pid=6794 : tflops=171.92140761933035 step=1 loss=11.546792984008789 tgs (tokens/gpu/second)=3871.11 lr=... ...
    # fwd_bwd_time=4.14 ...`, its first era comma-separated (`... -- tflops=63.27010355651958,step=0,loss=11.634403228759766,
    # tgs (tokens/gpu/second)=1424.64,...`, InternLM 2023-07).  The step its batch count
    # (restored on resume); no step time read: `fwd_bwd_time` leaves out the optimizer step and the batch's loading (3.82 s
    # of steps 3.95 s apart), so the pace comes from the spacing.  Keyed on `step=` (`tflops=` holds no KEYWORDS word); the
    # pattern opens with its literal.  None before: an InternEvo job was never tracked
    Rule("internevo", "step=", re.compile(r"tflops=[0-9.]+[ ,]step=(?P<step>\d+)[ ,]loss=")),
    # XTuner V1 (its Trainer, xtuner/v1/train/trainer.py; every rank prints it): `[XTuner][RANK 2][2025-08-29 09:17:51][INFO]
    # Step 1/100 data_time: 0.0578 lr: 0.000020 time: 4.9770 text_tokens: 4008.0 total_loss: 1.722 reduced_llm_loss: 1.684
    # ...`, 2025-09 `total_loss: 12.075, reduced_llm_loss: ...`; its first eras without `time:` (`Step 1/32 data_time: 0.0039
    # lr: 0.000060 total_loss: ...`, `... lr: 0.000060 text_tokens: ...`), its later `Epoch 1 Step 5/100 data_time: ... lr:
    # 1.000000e-05 time: ... text_tokens: ... total_consumed_tokens: ...` (those three from its source).  The global step;
    # `time` the train step's, `data_time` its batch's loading before it (the step time both).  Keyed on its losses' `_loss: `
    # (`total_loss`, `reduced_llm_loss`: every era holds one).  None before: an XTuner V1 job was never tracked
    Rule("xtuner", "_loss: ", re.compile(r"Step (?<!\wStep )(?P<step>\d+)/\d+ data_time: (?P<plus>" + _NUM[1:-1]
                                         + r") lr: \S+ (?:time: (?P<time>" + _NUM[1:-1] + r") )?")),
    # tqdm-loggable (its bars as log lines where no terminal is: Levanter and Marin's trainer, openpi): `Progress on:train
    # 586it/2.06kit rate:5.5s/it remaining:2:16:02 elapsed:55:45 loss=2.45` (Open-Athena/MarinFold #160, 2026), its 2022 era
    # `Progress on:Sample progress 21.0kit/60.0kit rate:1,982.9it/s remaining:00:19 ...` (its rate per second, thousands
    # separated, until 0.2 inverted it below one a second), its first `... 1000.000000/60000.000000 rate:3944.68... it/s
    # elapsed:0.0002 ...` (the counts as floats).  Its counts go through tqdm's format_sizeof, three figures and an SI
    # prefix: below 1000 exact (`5.00it`, `42.0it`, `586it`), past it rounded (`2.06kit`: steps 2055 to 2064 all print
    # it, as LeRobot's `31K`), so such a line is progress without a step; a bar without a total prints its count raw
    # (`10000/-`), and `-` is no count yet (`-/60000 rate:-`, which holds no keyword).  The bar's name before the count is
    # read as a tqdm bar's (`Progress on:eval ...`: evaluation).  Keyed on its rate and the field after it, each era's
    # (`s/it remaining:`, `it/s remaining:`, ` it/s elapsed:`): the pattern, which opens with no literal, is tried on
    # its own lines only (keyed on `/it`, it cost a tqdm bar without a rate yet, `0/4 [00:00<?, ?it/s, ...]`, ~13 us).
    # None before: a Levanter job was never tracked
    Rule("tqdm", "s/it remaining:", _LOGGABLE := re.compile(r"(?<![\w.])(?:(?P<step>\d+)(?:\.0+)?(?:it)?|[0-9.]+[kMGTPEZY]it)/"
                                                  r"(?:(?P<of>\d+)(?:\.0+)?(?:it)?|[0-9.]+[kMGTPEZY]it|-) rate:(?:(?P<time>"
                                                  r"[0-9][0-9,]*(?:\.[0-9]+)?)s/it\b|(?P<rate>[0-9][0-9,]*(?:\.[0-9]+)?) ?it/s\b)?")),
    Rule("tqdm", "it/s remaining:", _LOGGABLE),
    Rule("tqdm", " it/s elapsed:", _LOGGABLE),
    Rule("lerobot", "step:", re.compile(r"step:(?<![\w/]step:)(?:(?P<step>\d+)|\d+[KMBTQ]) smpl:\S+ ep:\S+ epch:[0-9.]+ "
                                         r"(?:loss:.*?\bupdt_s:(?P<time>" + _NUM[1:-1] + r")(?: data_s:(?P<plus>"
                                         + _NUM[1:-1] + r"))?|.*?\b(?P<phase>eval)_s:)"), ends=True),
    # OpenNMT-py (0.4 on, and the forks of its Statistics.output): `[2019-03-21 18:31:43,773 INFO] Step 2250/200000; acc:
    # 31.18; ppl: 57.53; xent: 4.05; lr: 0.00028; 5092/261 tok/s;   6641 sec` (the optimizer step, its total padded, `Step 50/
    # 5000;`, or absent where no total is set); the seconds are the run's so far, no step's; its validation is said on
    # lines of their own (`Validation perplexity: ...`).  Its 2017 era, `Epoch  1, 12900/37527; acc: ...`, counted batches
    # within the epoch and is no row.  None before: an OpenNMT-py job was never tracked
    Rule("opennmt", "; xent: ", re.compile(r"Step (?<!\wStep )(?P<step>\d+)(?:/\s*\d+)?; acc: ")),
    # ESPnet2 (espnet2/train/trainer.py, every log_interval batches): `[gpu01:0/2] 2020-07-19 08:49:04,080 (trainer:464) INFO:
    # 1epoch:train:1-682batch: iter_time=2.878e-04, forward_time=0.134, loss=123.963, ..., train_time=1.816` (2020 on): the
    # last batch of the interval within its epoch is the step (the count restarts every epoch, as the MetricLogger's); its
    # `train_time` is an optimizer step's, accum_grad batches (its source: "step refers to accum_grad * mini-batch"), not
    # the counted batch's (#2183: 1.816 s, its stamps 0.45 s a batch), so the step time comes from the spacing; its `1epoch
    # results: [train] ... [valid] ...` summary is no step.  Keyed on `loss=` (its stats name a loss: `loss=`,
    # `generator_loss=`); the pattern opens with its literal.  None before: an ESPnet job was never tracked
    Rule("espnet", "loss=", re.compile(r"epoch:train:(?<=\depoch:train:)\d+-(?P<step>\d+)batch: ")),
    # icefall (k2-fsa's recipes; ZipVoice on its loop): `2022-04-21 06:21:16,518 INFO [train.py:518] Epoch 0, batch 500,
    # loss[ctc_loss=0.7647, ..., over 2223 frames.], tot_loss[...], batch size: 8` (a rank's `(0/4) ` before `Epoch` on
    # several GPUs), the batch within the epoch (restarting every epoch); ZipVoice names the global one, `Epoch 1, batch 49,
    # global_batch_idx: 50, batch size: 25, loss[...]`, the step read where printed; `Epoch 23, validation: loss=...` is no
    # step (and no row).  No step time on the line.  None before: an icefall job was never tracked
    Rule("icefall", "tot_loss[", re.compile(r"Epoch (?<!\wEpoch )\d+, batch (?P<count>\d+), (?:global_batch_idx: "
                                            r"(?P<step>\d+), batch size: \d+, )?loss\[")),
    # nnU-Net (MIC-DKFZ; medical segmentation), rank 0's print_to_log_file, the time behind each line: one epoch (250
    # iterations by default) a line of progress, its v2 `2024-04-26 09:41:39.493872: train_loss 0.7088` (then `val_loss
    # ...`, `Pseudo dice [...]`, `Epoch time: 148.59 s`; its epoch said on a line of its own before, `...: Epoch 1`, which
    # holds no keyword), its v1 `2022-02-11 09:34:49.625515: train loss : -0.6584` (then `validation loss: -0.7226`, said
    # when done: a pause as any such line, `This epoch took 137.136132 s`).  Progress without a step (the epoch is on
    # another line; only rank 0 prints); no step time on the line: the epoch's from the spacing.  The line's end is the
    # loss (np.round's, `%.4f`'s: `nan` where it diverged), the timestamp's `\d: ` before it (`datetime.fromtimestamp`'s,
    # without its fraction at a whole second).  None before: an nnU-Net job was never tracked
    Rule("nnunet", "train_loss ", _NNUNET := re.compile(r"train(?:_loss (?<=\d: train_loss )| loss : (?<=\d: train loss : ))"
                                                        r"-?(?:[0-9.]+(?:e[-+]?\d+)?|nan|inf)\s*$")),
    Rule("nnunet", "train loss : ", _NNUNET),
)
# a progress line (a tqdm bar's description, torchtitan's `validate step:`) that says it is not training:
# evaluation, which is a pause, not training progress
# (Composer's bar says `eval`: `eval           Epoch  30:  100%|...| 49/49 [01:43<00:00,  1.95s/ba, ...]`)
# (and a detector's validation bar, its columns naming mAP: Ultralytics' `Class  Images  Instances  Box(P  R  mAP50
# mAP50-95): 100%|...| 32/32 [00:16<00:00,  1.93it/s]`)
_EVAL_WORDS = ("validat", "evaluat", "testing", "predicting", "sanity checking")  # case-blind
_EVAL_BAR = re.compile("(?i:" + "|".join(_EVAL_WORDS) + r")|\bmAP|\beval\b")
_EVAL_GATE = re.compile("|".join((*_EVAL_WORDS, "map", "eval")))  # what every match holds in lower case (_may_hold)
# a tqdm bar that loads or prepares, not trains (`Loading checkpoint shards:`, vLLM's `Loading safetensors checkpoint
# shards:  20% Completed | 32/158 [...]`, Ultralytics' `val: Scanning ... 1418/1418 [...]`, `Downloading`, `Map`):
# its count and rate are no training step (a pod seen "progressing" while it loads would be suspected in the setup after)
# (and a model being sharded before training: XTuner's `[FSDP Sharding]: 100%|...| 8/8 [00:00<00:00, 278.75it/s]`,
# `[Vision Fully Shard]: 100%|...| 24/24 [...]`, read as a finished bar's progress before: the pod tracked from its set-up)
# (and Hugging Face datasets' own set-up bars, before a streaming or Hub dataset's first batch: `Resolving data files: 100%|
# ██████████| 30/30 [00:00<00:00, 662258.53it/s]` (ROBOTIS-GIT/ai_worker_website, LeRobot's dataset tools, 2025), its
# download manager's `Extracting data files` (datasets' source): read as a finished bar's advance before, the pod tracked
# from its set-up and its model load after read as a silence)
_SETUP_WORDS = ("loading", "downloading", "fetching", "scanning", "tokeniz", "capturing", "shard", "resolving",
                "extracting")  # case-blind
_SETUP_BAR = re.compile("(?i:" + "|".join(_SETUP_WORDS) + r")|\bMap\b")  # (`shard`: `Loading checkpoint shards` too)
_SETUP_GATE = re.compile("|".join((*_SETUP_WORDS, "map")))
# an RL trainer's rollout generation bar (vLLM's `Processed prompts:   6%|...| 1/16 [00:12<03:11, 12.76s/it]` in
# OpenRLHF and TRL, SkyRL's `Generating Trajectories: 100%|...| 5120/5120 [01:18<00:00, 65.35it/s]`): its count is
# prompts or trajectories and its rate a batch of them, neither a training step; read as one, a rollout's `1/16`
# followed the trainer's `11/12` as the pod's step, and its 0.015 s per trajectory was the step time
# XTuner's RL trainer names its rollout bar `rollout_controller for training samples:   9%|▉   | 12/128 [00:30<04:51,  2.51s/it]`
# (read as steps 12, 35, ... 120 before): a bar naming a rollout counts what the rollout generates, never a training step
# (in lower case: read in the bar's name lower-cased, so "rollout" is "Rollout" and "ROLLOUT" too)
# vLLM (0.8 on) opens each generate() call with its request-intake bar before `Processed prompts`: `Adding requests: 100%|
# ██████████| 4/4 [00:00<00:00, 559.54it/s]` (vllm-project/vllm-ascend #4581, 2025-12): its count is prompts too; read
# as progress before (its finished bar an advance, a partial one `256/512` the pod's step, its 2 ms a prompt the step time)
_ROLLOUT_BARS = ("processed prompts", "adding requests", "generating trajectories", "rollout")
# The set-up words, the rollout names and the evaluation words are read in the bar's own name, after the prefix Ray
# gives a line an actor relays (`(RolloutManager pid=1805485) `, slime's): the actor's name says which process printed
# the bar, not what it counts (a trainer's bar relayed by an actor named for rollouts, shards or evaluation is still a
# training step).  A bar whose
# name was cut, nothing left of it but that prefix before its `%|` (SkyRL's generation bar as the driver relays it:
# `(skyrl_entrypoint pid=8455) %|█         | 512/5120 [00:10<01:37, 47.35it/s]`): what it counts is unknown, so it
# is no step either
_RAY_ACTOR = re.compile(_SGR + r"\([\w.:-]+ pid=\d+(?:, ip=[0-9.]+)?\)" + _SGR + " ")
_MULT = {"K": 1e3, "M": 1e6, "G": 1e9}
class Pause(NamedTuple):
    """A PAUSES row: the pause a line's words say (`name`), and whether they say it is over (`ends`: the line is
    printed when the evaluation or save is done, the job back to training) rather than starting."""
    name: str  # "checkpoint" / "evaluation"
    pattern: re.Pattern[str]
    ends: bool = False
    files: int = 0  # DeepSpeed's per-file lines: +1 a file begun, -1 a file written (Progress.files)
    rank: bool = False  # the end is one rank's own, said before the others are done (Progress.rank)


# announced pauses: a checkpoint save or an evaluation said in the log
# verl's PPO trainer (ray_trainer.py, 2025-03 on, and its forks) says neither in words: a save opens with `(TaskRunner
# pid=3165) local_global_step_folder: checkpoints/.../global_step_80` (its fully-async recipe `[FullyAsyncTrainer]
# local_global_step_folder: ...`; the checkpoint manager's own `[rank-0]: Saving model to ...` of 2025-03/05 is read
# by `saving model`, its later `Saved model to ...` is logged at INFO, below verl's default WARN), a validation with
# `test_gen_batch meta info: {'eos_token_id': 2, ..., 'validate': True, 'global_steps': 0}` (its generation, the long
# part of it, follows; only `validation generation end` was read before, so a long save or validation on a large model
# read as a silent pod)
# diffusion-pipe (train.py's _evaluate, rank 0) opens each evaluation with `Running eval` alone, then a bar without a
# name that ends with the evaluation (9 timestep quantiles over the eval set, minutes): not read before, so a pod
# stepping every few seconds was suspected at the floor in a long evaluation.  `eval` a word of its own, `evaluation`
# the start of one as before (`Running evaluations...`, Pixel2Mesh's evaluator), `evals` neither
PAUSES: tuple[Pause, ...] = (
    # said when the work is done (`ends`), tried first: an evaluation's loss once computed (nnU-Net v1's `validation loss:
    # -0.7226`, llm.c's `val loss nan`, nanoGPT's `step 3000: train loss 4.0390, val loss 4.0427`, Megatron-LM's
    # ` validation loss at iteration 50 | lm loss value: ...`, NeMo-RL's `• Validation loss: 0.6645`: a figure after
    # it, so that `Computing validation loss...` stays an announcement), a save's end (nnU-Net v1's `done, saving took
    # 0.43 seconds`, Megatron-LM's `successfully saved checkpoint from iteration 100 to ...`).  The evaluation's were
    # read as announcements before, and a save's end as nothing: the pod stayed "paused" (pause_seconds, 3600 s) until
    # its next training line, so a hang right after a validation or a save was suspected an hour on instead of after
    # k x the pace.  DeepSpeed's checkpoint engine says its save is over once every file is written
    # (TorchCheckpointEngine.commit, the last step of save_checkpoint: `[Torch] Checkpoint global_step5000 is ready now!`,
    # OneBit #8; its per-file `[Torch] Saved ...pt.` is no end, more files follow, rows below): read as nothing, a job
    # hung right after it stayed paused by the Trainer's `Saving model checkpoint to` for an hour, past the 30-minute watchdog
    Pause("evaluation", re.compile(r"(?i)\bval(?:idation)? loss\b(?:[ :=]+|.*?\bvalue: )(?:[-+]?[0-9]|nan\b|inf\b)"),
          ends=True),
    Pause("checkpoint", re.compile(r"(?i)\bdone, saving took\b|\bsuccessfully saved checkpoint\b"), ends=True),
    # DeepSpeed's commit is said by every rank for itself, before the barrier that waits for the others (engine.py
    # save_checkpoint: commit, then dist.barrier()): in a pod of several ranks the first one done says it while another
    # still writes (liguodongiot/llm-action's Megatron-DeepSpeed log: ranks' `is ready now!` among `[Torch] Saving
    # ./tmp/global_step2500/mp_rank_00_model_states.pt...` and its `Saved` 5 s later), so it ends the pause only once
    # none of the pod's files begun is still being written (the tracker's count, `files` below).  So is the engine's
    # `zero checkpoint saved <path>` (`bf16_zero checkpoint saved` with bf16, engine.py _save_zero_checkpoint): each rank
    # says it once its optimizer states' file, its last, is written, just before its commit; before DeepSpeed 0.7 (no
    # checkpoint engine, no commit, no per-file lines) it was the last line of each rank's save (stanford-crfm/mistral's
    # 16 ranks, 2021-07): read as nothing, a hang after a save of that era stayed paused for pause_seconds.  (There, with
    # no file count, a pod of several ranks takes its first rank's end: rank 0's remaining write, 0.55 s there, counts
    # against the pace's allowance)
    Pause("checkpoint", re.compile(r"\[Torch\] Checkpoint \S+ is ready now!|zero checkpoint saved "), ends=True,
          rank=True),
    # and, case-sensitive (a literal opening each alternative), an evaluation's results printed once it is done:
    # fairseq's summary after its validation batches (`| epoch 001 | valid on 'valid' subset | valid_loss 8.11425 | ...`,
    # the first era's `| valid loss 3.69`; its batches' `valid on 'valid' subset  1000 / 1311 loss=3.24` still announce),
    # NeMo-RL's results block after its validation (`📊 Validation Results for `default` set:`, `• Validation accuracy:
    # 1.0000`, its `⏱️  Validation Timing ...` and `• Total validation time: 3.17s`, which no trainer prints before it
    # is done), the Hugging Face Trainer's evaluation dict (`{'eval_loss': 1.249..., ..., 'eval_runtime': 49.1914, ...}`,
    # Trainer.evaluate's log of its metrics after the evaluation loop; a dict's string values in transformers 5.x).
    # Each line of NeMo-RL's block after its first read as an announcement before: the pause opened again under its
    # `• Validation loss`, the pace's allowance never counted from the end of the validation
    Pause("evaluation", re.compile(r"\| valid on '[^']*' subset \| |Validation (?:Results|Timing)\b|"
                                   r"\u2022 Validation [^:]*: [-+]?[0-9]|Total validation time: [0-9]|"
                                   r"""\{['"]eval_\w+['"]: """), ends=True),
    # DeepSpeed's checkpoint engine (TorchCheckpointEngine.save) says each file a rank writes, begun and written:
    # `[Torch] Saving <path>...` announces a save on every saving rank (the Trainer's `Saving model checkpoint to` and
    # DeepSpeed's `[Rank 0] Saving model checkpoint:` are rank 0's alone: a pod without rank 0 saw no announcement) and
    # again for a second save_checkpoint after the first one's commit (the Hugging Face Trainer under ZeRO-3 without
    # stage3_gather_16bit_weights_on_model_save: save_model's, then _save_optimizer_and_scheduler's, huggingface/
    # transformers #34534); `[Torch] Saved <path>.` says the rank is alive and goes on (its next file or its commit).
    # Case-sensitive literals (cheap on every keyword line that reaches the rows)
    Pause("checkpoint", re.compile(r"\[Torch\] Saving "), files=1),
    Pause("checkpoint", re.compile(r"\[Torch\] Saved "), files=-1),
    # DeepSpeed's own opening of a save (TorchCheckpointEngine.create, rank 0: `[Torch] Checkpoint global_step500 is
    # about to be saved!`, before the tag's check across ranks and the first file); and, between a rank's last file and
    # its commit with ZeRO-Infinity's NVMe offload (engine.py save_checkpoint, DeepSpeed 0.13 on, #4707), its copy of the
    # offloaded tensors into the checkpoint (`Copying NVMe offload files from <dir> to <dir>, <n> GB free on target
    # filesystem...`, minutes for a large model): a save goes on after the rank's `zero checkpoint saved` (ended above)
    Pause("checkpoint", re.compile(r"(?i)\bsav(e|ing)( the)?( model)? checkpoint|\bcheckpoint(ing)? (save|to)\b|"
                                   r"\bsaving (model|state|weights)\b|local_global_step_folder: |"
                                   r"\bcheckpoint \S+ is about to be saved\b|\bcopying nvme offload files\b")),
    Pause("evaluation", re.compile(r"(?i)running eval(uation|\b)|\bevaluat(ing|ion)\b|\bvalidat(ing|ion)\b|"
                                   r"\bval loss\b|\btest_gen_batch meta info: ")),
    # fairseq's validation (`| epoch 005 | valid on 'valid' subset ... loss=2.72`, `valid_loss 8.11`; past the
    # keyword list by its loss): a row of its own, as a case-sensitive
    # literal costs a tenth of another case-blind alternative in the row above on every keyword line
    Pause("evaluation", re.compile(r"\| valid on '")),
)
# the words every PAUSES row needs (a cheap look at what follows a progress line's match before the rows are tried);
# a keyword line no rule reads meets the rows only when its lower case holds one (_may_hold), as the rows themselves
# cost ~6 us on every such line (a JSON metrics line naming its "step" and "loss")
# (a Hugging Face evaluation dict's opening, `{'eval_`: a `{` is rare on a line, so the search tries it at few places)
# (DeepSpeed's `[Torch] Saved <path>.`: `] saved `, a `]` rare on a line too)
_PAUSE_WORDS = re.compile(r"""heckpoint|aving|valuat|alidat|val loss|valid on|unning eval|\{['"]eval_|\] saved """)
# and on a keyword line no row reads (lower-cased), verl's two announcements without those words (PAUSES) and DeepSpeed's
# NVMe copy (a tag's `global_step` its keyword, its path naming no checkpoint in Megatron-DeepSpeed): never after a
# progress match (verl prints them on lines of their own), so the look after one does not pay for them (~5% of a
# progress line's cost, '_' being in most of their keys)
_PAUSE_WORDS_ALONE = re.compile(_PAUSE_WORDS.pattern + "|_step_folder: |_gen_batch meta|nvme offload files")
# the collective timeout a job runs under, said in its own log by PyTorch's ProcessGroupNCCL (one row per line shape;
# the figure in ms).  Its options line at a process group's creation (printed at TORCH_CPP_LOG_LEVEL=INFO): until
# PyTorch 2.0 one option a line, `TIMEOUT(ms): 5000` a line of its own (pytorch/pytorch#88000), from 2.1 one line,
# `... ProcessGroupNCCL initialization options: NCCL_ASYNC_ERROR_HANDLING: 1, ..., TIMEOUT(ms): 600000, ...` (the shape
# from pytorch/pytorch#105695, no real line found); and a collective's own, `WorkNCCL(SeqNum=44, OpType=ALLREDUCE, ...,
# Timeout(ms)=1800000)`, in a watchdog's or an async error's line (a container's earlier run, killed by it, says the
# timeout its next run will have)
TIMEOUTS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bTIMEOUT\(ms\): (\d+)\b"),
    re.compile(r"\bWorkNCCL\(.*?\bTimeout\(ms\)=(\d+)\)"),
)
_TIMEOUT_WORD = "(ms)"  # what every TIMEOUTS row holds (a keyword of its own)
KEYWORDS = ("iteration", "iter ", "iter:", "step", "loss", "/it", "it/s", "heckpoint", "aving", "valuat", "alidat",
            "(val)",  # MMEngine's validation, `Epoch(val) [10][4000/4809]  eta: ...`, names no loss
            "unning eval",  # diffusion-pipe's `Running eval` (no other keyword)
            "s/ba", "ba/s", "batch=", "[token=",  # Composer's bar and console logger (`[batch=1/100]:`)
            "= Step ",  # NeMo-RL's step header, `===== Step 2/2 =====`
            "| Time: ",  # prime-rl's `Step 0 | Time: 5.13s | ...`
            "|step: ",  # DeepSpeed-Chat's `epoch: 0|step: 3183|ppo_ep: 1|...` (its `step` keyword covers it: the row's own)
            "; xent: ",  # OpenNMT-py's `Step 2250/200000; acc:  31.18; ppl: 57.53; xent: 4.05; ...` (no other keyword)
            _TIMEOUT_WORD,  # a collective timeout said (TIMEOUTS)
            "] Saved ",  # DeepSpeed's `[Torch] Saved <path>.` (PAUSES; its path need not hold `step`)
            "Loss")  # timm's `Train: 0 [ 50/73 ( 70%)]  Loss: ...`, pytorch/examples' ImageNet `Epoch: [0][ 741/1424] ... Loss`
# (no keyword opens with a space: the search tries its alternatives at each position whose character one of them opens
# with, and a space is at every word; " | Time: " cost ~50% more on every line without a keyword)


def _alternation(words) -> str:
    """A regex matching where any of `words` occurs, its alternatives factored by their common prefixes
    (`it(?:/s|er(?:\\ |:|ation))`): re tries an alternation's branches one by one at every position whose character one
    of them opens with, so shared openings tried once make the search ~15% cheaper than the flat `iter |iter:|...`.
    A word another one opens with is enough (whatever follows, the shorter one occurred)."""
    def factor(tails: list[str]) -> str:
        if "" in tails:
            return ""
        groups: dict[str, list[str]] = {}
        for tail in tails:
            groups.setdefault(tail[0], []).append(tail[1:])
        parts = [re.escape(c) + factor(rest) for c, rest in sorted(groups.items())]
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
    return factor(sorted(set(words)))


# the rows as _one walks them, each row's keyword beside it (an attribute lookup fewer per row on every keyword line: a
# line no row reads, the common keyword line, walks them all)
_ROWS = tuple((rule.keyword, rule) for rule in RULES)
# one search over raw bytes finds the lines worth a look (the pod-log source scans whole reads with it)
PREFILTER = re.compile(_alternation(KEYWORDS).encode())
_PREFILTER_STR = re.compile(_alternation(KEYWORDS))


# Characters of a line's segment the rows read (a progress line, a Trainer's dict of metrics, is short): several rows'
# lazy gaps rescan the rest of the line from each start of their prefix (quadratic), and a pod's line has no cap
MAX_SEGMENT = 8192


def recognise(line: str, keyword_seen: bool = False) -> Progress | None:
    """The progress (or announced pause) one line reports, else None.  Pure; about a microsecond for a line
    without any keyword.  `keyword_seen`: the caller's own PREFILTER search found a keyword in this line (the pod-log
    source, over the raw bytes, the CRI envelope holding none), so it is not looked for again.  Each segment is read
    to its first MAX_SEGMENT characters."""
    if not keyword_seen and _PREFILTER_STR.search(line) is None:
        return None
    segments = line.split("\r") if "\r" in line else (line,)
    for segment in reversed(segments):  # a tqdm bar rewritten in place: its last state
        found = _one(segment if len(segment) <= MAX_SEGMENT else segment[:MAX_SEGMENT])
        if found is not None:
            return found
    return None


def _one(line: str) -> Progress | None:
    for keyword, rule in _ROWS:
        if keyword not in line:
            continue
        m = rule.pattern.search(line)
        if m is None:
            continue
        groups = m.groupdict()
        start = m.start()
        actor = _RAY_ACTOR.match(line) if start else None
        name = actor.end() if actor else 0  # where the line's own words (a bar's name) begin, after an actor's prefix
        # the bar's name lower-cased, once for the set-up, rollout and evaluation looks (None: not ASCII, _may_hold)
        low = _lowered(line[name:start]) if start else None
        if start and rule.trainer == "tqdm":
            if _may_hold(_SETUP_GATE, low) and _SETUP_BAR.search(line, name, start):
                return None
            said = low if low is not None else line[name:start].lower()
            if any(bar in said for bar in _ROLLOUT_BARS) or (name and line.startswith("%|", name)):
                return Progress(None, trainer=rule.trainer, heartbeat=True)  # a rollout's bar: alive, no step
        evaluated = groups.get("phase") not in (None, "train")  # the row's own evaluation line (said when done: `ends`)
        if evaluated or (start and _may_hold(_EVAL_GATE, low) and _EVAL_BAR.search(line, name, start)):
            return Progress(None, trainer=rule.trainer, pause="evaluation", moved=False, ended=evaluated and rule.ends)
        count = groups.get("step") or groups.get("count")  # `count`: the step where the line names no better one
        step = int(count.replace(",", "")) if count else None
        of = groups.get("of")
        total = int(of) if of and rule.trainer == "tqdm" else None  # which bar (the tracker tells them apart)
        if of and step == int(of):
            step = None  # a finished bar: its count restarts with the next epoch's, so each epoch's end repeats it
        elif groups.get("per") and step is not None:  # a count within the epoch, the epoch and its size printed beside it
            step += int(groups["epoch"]) * int(groups["per"])
        seconds = None
        if groups.get("time"):
            seconds = float(groups["time"].replace(",", ""))  # (tqdm-loggable separates thousands)
            if groups.get("plus"):  # a second part of the same step, in the same unit (LeRobot's data loading)
                seconds += float(groups["plus"])
            seconds *= UNITS[groups["unit"]] if groups.get("unit") else rule.scale
            if groups.get("mult"):
                seconds *= _MULT[groups["mult"]]
        elif groups.get("elapsed") and groups.get("total") and groups["elapsed"] != "0" and not groups.get("sample"):
            # (`0s`: under half a second; `sample`: the count is samples, its elapsed over them no step's time)
            seconds = float(groups["elapsed"]) / max(int(groups["total"]), 1)
        elif groups.get("rate"):
            rate = float(groups["rate"].replace(",", ""))
            seconds = 1.0 / rate if rate > 0 else None
        # what the line says after its progress (a logger writing after a bar left without a newline): a pause (one
        # said over is nothing more than the advance itself, which ends any pause)
        said = _pause(line, m.end()) if _PAUSE_WORDS.search(line, m.end()) else None
        pause = said.name if said is not None and not said.ends else ""
        # or a collective timeout (the watchdog's line written after a bar left without a newline)
        timeout = _timeout(line, m.end()) if line.find(_TIMEOUT_WORD, m.end()) >= 0 else None
        return Progress(step, seconds, rule.trainer, pause, moved=not rule.timing, timeout=timeout, total=total)
    # (_may_hold over the whole line, inlined: a keyword line no row reads, the common one, comes here)
    said = _pause(line, 0) if not line.isascii() or _PAUSE_WORDS_ALONE.search(line.lower()) else None
    timeout = _timeout(line, 0) if _TIMEOUT_WORD in line else None
    if said is None and timeout is None:
        return None
    if said is None:
        return Progress(None, trainer="", moved=False, timeout=timeout)
    return Progress(None, trainer="", pause=said.name, moved=False, timeout=timeout, ended=said.ends, files=said.files,
                    rank=said.rank)


def _lowered(text: str) -> str | None:
    """`text` in lower case where it is ASCII (what a case-blind regex reads of it), else None (see _may_hold)."""
    return text.lower() if text.isascii() else None


def _may_hold(words: re.Pattern[str], low: str | None) -> bool:
    """Whether a text may match a case-blind regex (_EVAL_BAR, _SETUP_BAR, PAUSES) whose every match holds one of
    `words` in lower case, `low` its _lowered: an ASCII text's lower case is what such a regex reads (a look at it costs
    ~0.3 us, the regex's case-blind alternatives ~1 us a line, ~6 us PAUSES'); a text of other characters (None), whose
    case re folds otherwise (the Turkish dotted capital I is an i to it), may."""
    return low is None or words.search(low) is not None


def _pause(line: str, start: int) -> Pause | None:
    """The PAUSES row line[start:] says (the first that matches), else None."""
    for row in PAUSES:
        if row.pattern.search(line, start):
            return row
    return None


def _timeout(line: str, start: int) -> float | None:
    """The collective timeout line[start:] says (TIMEOUTS), in seconds, else None (a timeout of 0 says none)."""
    for pattern in TIMEOUTS:
        m = pattern.search(line, start)
        if m and int(m.group(1)) > 0:
            return int(m.group(1)) / 1000
    return None
