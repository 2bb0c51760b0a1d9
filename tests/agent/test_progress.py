"""Progress per pod and hang suspicion (issue 27): trainers' real progress lines -> step, step time; a pod that
stops -> WorkloadHangSuspected (Pod Event + metric), cleared when it resumes; announced pauses and jitter raise
nothing.  Fixtures: tests/fixtures/progress/ (real lines, sources.md)."""

from __future__ import annotations

import io
import re
import shutil
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest
import yaml

from agent.config import ConfigError, load
from agent.metrics import Metrics
from agent.hangsettings import HangSettings
from agent.progress import HANG_REASON, RESUMED_REASON, Mark, ProgressTracker
from agent.sources.podlogs import PodLogSource, PodRef
from parsers.envelope import cri, cri_split, finish
from parsers.model import Problem, Reading
from parsers.progress import (_EVAL_BAR, _EVAL_GATE, _PAUSE_WORDS, _PREFILTER_STR, _SETUP_BAR, _SETUP_GATE, KEYWORDS, PAUSES,
                              PREFILTER, RULES, Progress, _lowered, _may_hold, recognise)
from progress_replay import _STAMP, FIX, WATCHDOG, Clock, lines, stamp_seconds, when

PODS = Path(__file__).parents[1] / "fixtures" / "pods" / "var" / "log" / "pods"


# ---- the recogniser, one table row per trainer and era ----------------------------------------------------

@pytest.mark.parametrize("name, trainer, steps, seconds", [
    ("nanogpt_110.log", "nanogpt", [1631, 1632, 1633, 1634, 1635], 0.56194),
    ("nanogpt_178.log", "nanogpt", list(range(0, 250, 10)), 9.37181),
    ("megatron_llm_11.log", "megatron", [201, 202, 203, 204, 182, 183, 184, 185], 139.1134),
    # BigScience's Megatron-DeepSpeed prints seconds, `elapsed time per iteration (s): 35.8651` (no step time before)
    ("megatron_ds_seconds_jubench.log", "megatron", [10, 20, 30, 40], 35.8651),
    ("torchtitan_3393.log", "torchtitan", list(range(14, 22)), None),
    ("torchtitan_1287.log", "torchtitan", list(range(200, 260, 10)), None),
    ("torchtitan_2389_duplicates.log", "torchtitan", [4, 4, 4, 5], None),
    ("deepspeed_1825.log", "deepspeed", [40, 50], None),
    ("hf_trainer_6998.log", "huggingface", [10, 20, 30, 40], None),
    ("hf_blog_56.log", "huggingface", [500, 1000], None),
    ("lightning_4225.log", "tqdm", [1, 1, 2, 2, 3, 3, 4], 8.77),
    ("lightning_3866.log", "tqdm", [1651, 1652, 1653], 1 / 2.11),
    ("nemo_launcher_55.log", "tqdm", [795], 41.36),
    ("nemo2_bionemo_740.log", "nemo", [120, 121, 122], 0.03146),
    ("megatron_756.log", "megatron", [43, 44, 45], 5.4449),
    ("maxtext_8.log", "maxtext", [15107, 15108, 15109], 2.167),
    ("maxtext_2232.log", "maxtext", [9], 5.667),
    ("fairseq_940.log", "fairseq", [445, 495, 545, 595, 645], None),  # num_updates, not the epoch's batch
    ("fairseq_514.log", "fairseq", [22897, 23897, 25634], None),
    ("fairseq_301.log", "fairseq", [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 1000], None),
    ("fairseq_1955_tqdm.log", "tqdm", [81989], 1 / 2.09),
    ("metriclogger_accessory_48.log", "metriclogger", [1480, 1490, 1500], 4.3713),
    ("hf_llamafactory_3529.log", "huggingface", [None] * 6, None),
    ("ms_swift_4146.log", "huggingface", [12], None),  # 'global_step/max_steps': '12/94'
    # transformers 5.x: every value a string, the epoch's too (`'epoch': '5.833e-05'`): each line None before
    ("ms_swift_8476_tf5.log", "huggingface", [1, 5], None),
    # ms-swift's GRPO dicts as JSON (2026): `"step_time": 17.67188024, "epoch": 0.0001, "global_step/max_steps": "1/10000"`
    # (its GRPO trainer TRL's: the printed step time, None before)
    ("ms_swift_9261_json.log", "huggingface", [1, 2], 17.67188024),
    ("metaseq_507_json.log", "fairseq", [1, 2], None),  # --log-format json: "num_updates": "1"
    ("keras_10506.log", "keras", [None] * 10, 0.454),  # `454ms/step`
    ("keras_8680.log", "keras", [None] * 5, 484 / 1562),  # only the epoch's time: `1562/1562 [...] - 484s`
    # Keras 3 in colour (`\x1b[1m158/158\x1b[0m \x1b[32m━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m2s\x1b[0m 4ms/step - loss: ...`): each
    # line None before (its count and bar wrapped in colour codes), so a Keras 3 job was never tracked
    ("keras3_moku_classification.log", "keras", [None] * 6, 0.004),
    # Keras lines with no bar (each None before, so such a job was never tracked): `fit(verbose=2)`'s one line per epoch
    # (TF 2.x: `710/710 - 0s - loss: ...`, `0s` no step time), a dataset of unknown length (`  13440/Unknown - 2s - loss:
    # ...`, `  60000/Unknown - 5s 87us/step - ...`; Keras 3 `  1/Unknown  7s 7s/step - loss: ...`)
    ("keras_tf2_31032_verbose2.log", "keras", [None], None),
    ("keras3_unknown_movielens.log", "keras", [None] * 7, 7.0),
    # tf.keras 2.0-2.1 counting samples (`55000/55000 [=====] - 2s 44us/sample - loss: ...`, ageron/handson-ml2): progress
    # without a time (the epoch's 2 s over its 55000 samples was its step time before, 36 us)
    ("keras_tf20_handsonml2_sample.log", "keras", [None] * 5, None),
    # trainers no row read before (each line None): MMEngine, MMCV 1.x, detectron2, nanotron, LitGPT, PaddleNLP, PaddleSeg
    ("mmengine_155.log", "mmengine", list(range(10, 90, 10)), 0.010),
    ("mmengine_yoloworld_165.log", "mmengine", [350, 400, 450, 500], 0.5674),
    ("mmdet_2672.log", "mmengine", [2400, 2450, 2500, 2550, 2600], 0.595),  # MMCV 1.x: `Epoch [1][2400/7517]\tlr:`
    ("detectron2_d2go_524.log", "detectron2", [19, 39, 59, 79, 99], 0.3636),
    ("detectron2_querydet_17.log", "detectron2", list(range(119, 220, 20)), 0.8153),
    ("nanotron_390.log", "nanotron", [327281, 327282, 327283, 327284], 11.5),  # `elapsed_time_per_iteration_ms: 11.5K`
    ("nanotron_23.log", "nanotron", [991, 992, 993], 0.045),
    ("litgpt_1607.log", "litgpt", list(range(3050700, 3051001, 50)), 0.11220),  # the iteration, not the optimizer step
    ("litgpt_1224.log", "litgpt", list(range(46, 63)), 0.04573),
    ("litgpt_689.log", "litgpt", list(range(76, 99)), 0.19787),
    ("paddlenlp_paddle_56363.log", "paddle", [20, 40, 60, 80, 100], 1 / 0.760149170183967),
    ("paddleseg_928.log", "paddle", list(range(20, 141, 20)), 0.5344),
    # Ultralytics: each epoch's bar ends on `99/99`: progress without a step (read as 99 it was no advance)
    ("ultralytics_2023.log", "tqdm", [None] * 3, 1.14),
    # trainers no row read before (each line None): TF-slim, PaddleNLP's example scripts, PaddleNLP's first Trainer's
    # dict (read as a Hugging Face dict without its step before), verl's SFT trainer (its epoch bar read instead before:
    # 29-34, the count within the epoch, not verl's step)
    ("tfslim_models_2980.log", "tfslim", [n for n in range(1, 9) for _ in (0, 1)], 57.126),  # every line twice
    ("paddlenlp_4084_speed.log", "paddle", list(range(220, 331, 10)), 1 / 1.89),  # `speed: 1.89 step/s`
    ("verl_rldecision_sft.log", "verl", [1] + list(range(100, 106)), None),
    # Composer / LLM Foundry's console logger (each line None before: a Composer job was never tracked)
    ("composer_llmfoundry_readme.log", "composer", [1, 2, 3, 4], None),  # `[batch=1/100]:`, metrics below it
    # (h88) each line None before: NeMo-RL's step header (`===== Step 1/9 =====`; the epoch's last, `Step 9/9`, names its
    # total: progress without a step), TRL's PPO / RLOO dict (`{'eps': 1, 'objective/kl': ...}`), Lightning's Rich bar
    # (`232/291 0:00:33 • 0:00:09 7.00it/s`, the same state reprinted: one step), a LitGPT-based trainer padding its
    # counts and printing seconds (`iter   9 step   9 | ... iter time: 38.615 s`; its evaluation line, said when done,
    # stays nothing), the TF2 Object Detection API (`Step 200 per-step time 0.831s loss=1.192`, each step twice)
    ("nemorl_762_sft.log", "nemo-rl", [1, None], None),
    ("trl_ppo_hongbomiao_37684.log", "huggingface", [None] * 4, None),
    ("lightning_rich_12720.log", "tqdm", [232] * 16, 1 / 7.0),
    ("litgpt_keysvalues_97.log", "litgpt", list(range(9, 21)), 38.615),
    ("tfod_armaan_6.log", "tfod", [100] + [n for n in range(200, 901, 100) for _ in (0, 1)][:-1]
     + [n for n in range(3800, 4601, 100) for _ in (0, 1)][:-1], 0.813),
    # (h88) the karpathy family and prime-rl, each line None before: nanochat (`step 00004/21400 (0.02%) | loss: ... |
    # dt: 989.44ms`), llm.c on Blackwell (`step   61/74 | loss 3.208939 (+nanz)| ... | 44.57 ms | ...`; a fork's run
    # ending in `val loss nan`, evaluation), modded-nanogpt (`step:1461/1480 train_time:621841ms step_avg:425.63ms`;
    # its `val_loss` line evaluation), prime-rl (`02:40:52 SUCCESS Step 0 | Time: 5.13s | Loss: ...`; its first era's
    # `[TRAIN] [Rank 0] step: 289, loss: ...`, two runs' lines)
    ("nanochat_147.log", "nanochat", list(range(4, 11)), 0.98944),
    ("llmc_796_blackwell.log", "llm.c", list(range(61, 72)), 0.04457),
    ("llmc_anthonix_2_val.log", "llm.c", list(range(10, 21)), 0.03658),
    ("moddednanogpt_h100_master.log", "modded-nanogpt", list(range(1461, 1481)), 0.42563),
    ("primerl_999.log", "prime-rl", list(range(5)), 5.13),
    ("primerl_20_train.log", "prime-rl", [289, 8], None),
    # Ray Train's report line (`Training finished iteration 1 at 2023-06-22 22:44:43. ...`; its result table's
    # `training_iteration` row and `Training saved a checkpoint for iteration 1 at: ...` are none)
    ("ray_36795.log", "ray", [1], None),
    # LiBai's detectron2-style line naming its iteration (`iteration: 19/10000  consumed_samples: 80  total_loss: ...`;
    # None before: the row wanted `iter: 19  total_loss:`)
    ("libai_551.log", "detectron2", [19, 39, 59, 79, 99], 7.5187),
    # (h116) each line None before (no keyword in them: `Loss` capitalised, DeepSpeed-Chat's `|step: ` read by no row), so
    # none of these jobs was ever tracked: timm (`Train: 0 [  50/73 ( 70%)]  Loss: 6.77 (6.83)  Time: 0.320s, ...`, on
    # Gaudi, 2024; its `Test: [ 0/30]` lines are evaluation), pytorch/examples' ImageNet ProgressMeter (`Epoch: [0][ 741/1424]
    # Time  1.187 ( 1.292) ... Loss ...` and its first era), DeepSpeed-Chat's RLHF stage (`epoch: 0|step: 3183|ppo_ep: 1|...`)
    ("timm_optimum_habana_hpu.log", "timm", [0, 50, 0, 50], 9.575),
    ("imagenet_progressmeter_rocm_1147.log", "imagenet", list(range(741, 902, 20)), 1.187),
    ("imagenet_progressmeter_examples_267.log", "imagenet", list(range(19950, 20011, 10)), 0.544),
    ("dschat_step3_examples_444.log", "deepspeed-chat", [3183, 3184, 3185], None),
    # (h288) ArcticTraining's line per batch (`iter:  130/3000   4% | loss: ... | iter time: 1.038s | ...`), each line None
    # before: the optimizer step, printed for each of the four batches of a gradient accumulation; no printed time read
    ("arctictraining_219.log", "arctictraining", [130] * 4 + [131] * 2, None),
    # (h288) YOLOX (`epoch: 1/300, iter: 10/102, mem: ..., iter_time: 8.438s, ...`) and MindYOLO (`Epoch 1/500, Step 250/1516,
    # imgsize ...` then the same step timed, `... step time: 97.44 ms`), each line None before: their count is within the
    # epoch, the step read the epoch x its size + the count (MindYOLO #279 logs `Step 100/101` every epoch: 1514, 1615, ...)
    ("yolox_1548.log", "yolox", [112, 122, 132, 142], 8.438),
    ("mindyolo_370.log", "mindyolo", [1756] + [n for n in range(1766, 1807, 10) for _ in (0, 1)], 0.10087),
    ("mindyolo_279_epochs.log", "mindyolo", [1514, 1615, 1615, 1716, 1716, 1817], 0.90864),
    # verl's console line whose first metric is not `global_seqlen/` (siiRL's quickstart, 2026: `step:1 - training/epoch:1.000
    # - ... - perf/time_per_step:129.426 - ...`): None before
    ("verl_siirl_quickstart_training_keys.log", "verl", [1, 2], 129.426),
    # (h138) torchtune's metric logger (`Step 1 | loss:2.085338592529297 lr:2e-05 tokens_per_second_per_gpu:57.8`, 2024-08;
    # first era `Step 0 | loss:1.75... lr:2e-05 gpu_resources:13708965376 `): None before, so a torchtune job logging to
    # the console was tracked only by its bar; its multi-node bar (`[trainer0|0]:1|25|Loss: 1.26:  26%|...| 26/101
    # [06:45<17:27, 13.96s/it]`, 2025) the tqdm rows read; Axolotl's lines are the Trainer's dict (its own say nothing)
    ("torchtune_640_stdout.log", "torchtune", list(range(18)), None),
    ("torchtune_1358_stdout.log", "torchtune", list(range(1, 13)), None),
    ("torchtune_2620_multinode.log", "tqdm", [n for n in range(26, 32) for _ in (0, 1)] + [32], 13.96),
    ("axolotl_592.log", "huggingface", [None], None),
    # (h142) slime's Megatron backend (`model.py:660 - step 1: {'train/loss': ..., 'train/step': 1}`, as a user quoted it
    # in a SkyRL thread): None before, so a slime job was never tracked
    ("slime_skyrl_1864.log", "slime", [1], None),
    # (h143) each line None before, so neither job was ever tracked: MMF's logistics line (`progress: 1100/22000,
    # train/hateful_memes/cross_entropy: ..., num_updates: 1100, ..., ups: 0.76, time: 02m 12s 935ms, ...`; the step time
    # 1/ups, `time` being the whole log interval's), SCEPTER's (`Stage [train] iter: [10/500], data_time: 1.0402(1.0402),
    # time: 1.4696(1.4696), ...`, each rank printing the same iteration; its `checkpoint save interval is changed ...`
    # start-up line announces no progress)
    ("mmf_870.log", "mmf", [1100, 1200, 1300], 1 / 0.76),
    ("mmf_776.log", "mmf", [10400, 10500, 10600], 1 / 1.96),
    ("scepter_48.log", "scepter", [10, 10, 10], 1.4696),
    # (h210) NeMo Automodel's step line (`2026-08-10 15:55:20 | INFO | root | step 9 | epoch 0 | loss 0.6974 | grad_norm
    # ... | tps 11278.56(1409.82/gpu) | num_label_tokens 21541`): None before, so an Automodel job was never tracked
    ("automodel_3473.log", "automodel", list(range(9, 16)), None),
    ("automodel_eagle_3173.log", "automodel", list(range(1660, 1721, 10)), None),  # `epoch=0 step=1660 loss=2.5443 ...`
    # (h260) LeRobot's line (`step:9 smpl:576 ep:2 epch:0.00 loss:1.051 ... updt_s:0.302 data_s:13.330`): None before, so
    # a LeRobot job was never tracked; its step time the update and the batch's loading together (13.632 s: the loader
    # stalled), a step past 999 printed rounded (`step:31K`) progress without a step, its evaluation line no progress
    ("lerobot_1488_data_s.log", "lerobot", list(range(9, 18)), 0.302 + 13.330),
    ("lerobot_unitree_10_rounded.log", "lerobot", [None], 0.098),
    ("lerobot_examples_eval.log", "lerobot", [0], 1.738 + 4.774),
    # (h260) OLMo's marker line per logged step (`... olmo.train:908  INFO    [step=2/739328,epoch=0]`, its metrics on the
    # lines below, `    train/CrossEntropyLoss=...` none): None before, so an OLMo job was never tracked
    ("olmo_692.log", "olmo", [1, 2, 3], None),
    # (h260) LightlyTrain, 2026 (`Train Step 1/10 | Train Loss: 32.8633 | Time Spent [...]`; from 2026-04 `Train Step 200/200
    # | Epoch 1 | train_loss: ... | Profiling [ ... | Step Time 0.27s | ...]`, its `Val Step   1/157 | ...` none): None
    # before, so a LightlyTrain job was never tracked
    ("lightlytrain_604_steps.log", "lightlytrain", [1, 2, 3], None),
    ("lightlytrain_680_validating.log", "lightlytrain", [200], 0.27),
    # (h260) PithTrain, 2026 (`step 00000001/00000015 | step-time 73.352 sec | cross-entropy-loss 2.6636 | ...`): None before
    ("pithtrain_7_steps.log", "pithtrain", [1, 2, 3, 4, 5], 73.352),
    # (h331) Meta Lingua (`1: INFO    24-10-19 18:47:38.013589 - 0:00:49 - step: 1  acc: 0  loss: 12.2048  grad: ...  iter:
    # 8.4191  data: 32.8857  lr: ...`, both ranks printing each step): None before (its `acc` between the step and the
    # loss), so a Lingua job was never tracked; its step time the iteration and the batch's loading together
    ("lingua_seunghyunseo_readme.log", "lingua", [1, 1, 2, 2, 3, 3], 8.4191 + 32.8857),
    # (h331) picotron (`[rank 2] Step: 1     | Loss: 10.9062 | Global batch size:   2.05K | Tokens/s:  199.02 | ...`, AWS's
    # test case, 2025): None before (`Step:` with a colon, `Loss` capitalised), so a picotron job was never tracked
    ("picotron_awsome_ec2.log", "picotron", [1, 2, 3], None),
    # (h384) XTuner V1, 2025 (`[XTuner][RANK 2][...][INFO] Step 1/100 data_time: 0.0578 lr: 0.000020 time: 4.9770 text_tokens:
    # ... total_loss: 1.722 reduced_llm_loss: 1.684 ...`, every rank printing each step; 2025-09 `total_loss: 12.075,
    # reduced_llm_loss: ...`): None before, so an XTuner V1 job was never tracked; its step time the train step and its
    # batch's loading together (its `[FSDP Sharding]` set-up bars before the steps no progress)
    ("xtuner_v1_sft_ranks.log", "xtuner", [1] * 8 + [2] * 3, 4.9770 + 0.0578),
    ("xtuner_v1_installation_comma.log", "xtuner", list(range(1, 14)), 0.6024 + 0.0091),
    ("xtuner_v1_intern_s1_fsdp.log", "xtuner", list(range(1, 19)), 1.3009 + 0.0178),
    # (h473) InternEvo, InternLM's trainer (`... - pid=6794 : tflops=171.92 step=1 loss=11.5467 tgs (tokens/gpu/second)=3871.11
    # ... fwd_bwd_time=4.14 ...`, 2023-09; its first era comma-separated, `tflops=63.27,step=0,loss=11.634,...`, 2023-07):
    # None before, so an InternEvo job was never tracked; no step time (`fwd_bwd_time` is part of a step)
    ("internevo_7b_demo.log", "internevo", list(range(6)), None),
    ("internlm_usage_comma.log", "internevo", list(range(6)), None),
    # (h478) CLU's ReportProgress (`local.py:41] Setting work unit notes: 5.5 steps/s, 0.1% (332/500000), ETA: 1d1h10m (3m :
    # ...)`, Flax's Gemma example, 2026): None before, so a JAX job reporting through CLU was never tracked; the step time
    # its rate's inverse (the interval's: 0.3 steps/s over an evaluation)
    ("flax_gemma_clu_readme.log", "clu", [332, 1145, 1934, 2001, 2639, 3330, 4001], 1 / 5.5),
    # (h511) OpenNMT-py (`[2019-03-21 18:31:43,773 INFO] Step 2250/200000; acc:  31.18; ppl: 57.53; xent: 4.05; ...; 6641
    # sec`, its total padded `Step 50/ 5000;`), ESPnet2 (`... INFO: 1epoch:train:6376-6750batch: iter_time=0.001, ...,
    # train_time=0.013`, the count restarting with the epoch; its `1epoch results: ...` summary none) and icefall (`Epoch 0,
    # batch 500, loss[...], tot_loss[...], batch size: 8`, ZipVoice's `global_batch_idx: 50` the step where printed): each
    # line None before, so none of these jobs was ever tracked; no step time read (OpenNMT-py's seconds are the run's,
    # ESPnet2's `train_time` an optimizer step's of accum_grad batches, #2183: 1.816 s against 0.45 s a batch)
    ("opennmt_1362.log", "opennmt", list(range(2250, 2651, 50)), None),
    ("opennmt_1669_padded.log", "opennmt", [50], None),
    ("espnet2_2674_epochs.log", "espnet", [6750, 7125, 7500, 375], None),
    ("espnet2_2183_accum.log", "espnet", [682, 1364, 2046], None),
    ("icefall_320.log", "icefall", list(range(500, 701, 50)), None),
    ("icefall_zipvoice_3.log", "icefall", [50, 100, 150], None),
    # (h540) nnU-Net, rank 0's line per epoch: v2 `2024-04-26 09:41:39.493872: train_loss 0.7088`, v1 `2022-02-11
    # 09:34:49.625515: train loss : -0.6584` (its epoch on a line of its own, `...: Epoch 1` / `epoch:  7`, which holds no
    # keyword: progress without a step; its epoch's time from the spacing).  None before, so an nnU-Net job was never
    # tracked; v1's `validation loss: ...` after it stays a pause, its `Epoch time:` / `This epoch took` lines nothing
    ("nnunet_v2_2140.log", "nnunet", [None] * 3, None),
    ("nnunet_v1_938.log", "nnunet", [None] * 3, None),
    ("nnunet_v1_640_slow.log", "nnunet", [None] * 3, None),
])
def test_each_trainers_real_lines_give_their_steps_and_step_time(name, trainer, steps, seconds):
    found = [p for p in map(recognise, lines(name)) if p is not None and p.moved]
    assert [p.step for p in found] == steps
    assert {p.trainer for p in found} == {trainer}
    if seconds is None:
        assert all(p.seconds is None for p in found)
    else:
        assert found[0].seconds == pytest.approx(seconds)


def test_lingua_family_lines_built_on_its_loop_give_their_step_and_time():
    """BLT's step line (facebookresearch/blt, bytelatent/train.py, as PR #41 made it: `step: {}  acc: {}  loss:
    step={} avg={}  bpb: {:3f}  grad: {:.2e}  flops: ...  wps: ...  iter: {:>7}  data: {:>5}  lr: ...`): CONSTRUCTED from
    its format string, no real line found in a public thread.  Its step is read, its time the iteration and the loading;
    a micro-step of the same step (`acc: 1`) names the same step (no advance of its own in the tracker)."""
    said = recognise("0: INFO    25-02-05 10:00:01.000001 - 0:10:00 - step: 5  acc: 0  loss: step= 2.1034 avg=2.2  bpb: "
                     "1.204000  grad: 1.00e+00  flops: 1.00e+14  wps: 1.00e+04  iter:  0.5012  data: 0.0103  lr: 1.00e-04")
    assert (said.step, said.trainer, said.moved) == (5, "lingua", True)
    assert said.seconds == pytest.approx(0.5115)
    micro = recognise("step: 5  acc: 1  loss:  2.0311  grad: 9.10e-01  flops: 1.00e+14  wps: 1.00e+04  iter:  0.4988  "
                      "data: 0.0101  lr: 1.00e-04  mem: 59%")
    assert (micro.step, micro.trainer) == (5, "lingua")


def test_automodels_validation_line_is_evaluation_and_its_first_era_a_step():
    """NeMo Automodel's validation line and its first era's step line: CONSTRUCTED from its recipe's format strings
    (nemo_automodel/recipes/llm/train_ft.py, `log_val_metrics`: "[val] step {} | epoch {} | loss {:.4f} | lr {:.2e} |
    num_label_tokens {}"; its first `logging.info("step {} | epoch {} | loss {:.4f} | grad_norm {:.4f} | mem: {:.2f} GiB
    | tps {:.2f}")`), no real line of either found in a public thread."""
    val = recognise("2026-08-10 15:58:02 | INFO | root | [val] step 100 | epoch 0 | loss 0.6011 | lr 1.00e-05 | "
                    "num_label_tokens 52210")
    # (log_val_metrics prints it after the validation loop: an evaluation over, Rule.ends)
    assert val == Progress(None, trainer="automodel", pause="evaluation", moved=False, ended=True)
    first = recognise("step 3 | epoch 0 | loss 1.2034 | grad_norm 0.5123 | mem: 12.31 GiB | tps 10354.12")
    assert first is not None and first.step == 3 and first.moved and first.trainer == "automodel"
    # its numbers, not its words: a script's own `step 3 | epoch 0 | acc 0.9` names no loss
    assert recognise("step 3 | epoch 0 | acc 0.9") is None


def test_lerobots_rounded_steps_and_evaluation_line():
    """REAL (sources.md): LeRobot prints its counts past 999 rounded to thousands (`step:31K smpl:245K ep:2K`, unitree_lerobot
    #10), so 31000 to 31499 all print `31K`: read as the step 31, or as 31000, each later line of the same thousand was no
    advance, and a healthy job read as stalled; it is progress without a step.  Its evaluation line (`step:100 smpl:6K ...
    ∑rwrd:20.693 success:0.0% eval_s:120.266`, LeRobot's training tutorial) is an evaluation said when done, no step."""
    rounded = recognise(lines("lerobot_unitree_10_rounded.log")[0])
    assert (rounded.step, rounded.moved, rounded.trainer) == (None, True, "lerobot")
    evaluation = recognise(lines("lerobot_examples_eval.log")[1])
    assert (evaluation.step, evaluation.moved, evaluation.pause) == (None, False, "evaluation")


def test_mmf_and_scepter_validation_stages_are_evaluation():
    """MMF reports its validation under `val/` on the same logistics line (`progress: 1000/22000, val/...`), SCEPTER
    under its stage (`Stage [eval] iter: [...]`): each a pause, not a step (CONSTRUCTED from the real training lines of
    mmf #870 and scepter #48, sources.md, the prefix changed as each trainer's own code names the stage)."""
    for line in ["2021-04-12T20:44:18 | mmf.trainers.callbacks.logistics: progress: 1000/22000, val/hateful_memes/cross_entropy:"
                 " 0.6094, val/total_loss: 0.6094, num_updates: 1000, epoch: 1, iterations: 1000, max_updates: 22000",
                 "scepter [INFO] 2024-10-06 20:19:51,817 [File: log.py Function: _print_iter_log at line 71]  Stage [eval] iter:"
                 " [10/500], data_time: 1.0402(1.0402), time: 1.4696(1.4696), loss: 0.0978(0.0978)"]:
        said = recognise(line)
        assert said is not None and not said.moved and said.pause == "evaluation" and said.step is None, line
        # MMF's is printed by on_validation_end, the evaluation over (its `val_time`); SCEPTER's eval stage iterates
        assert said.ended == line.startswith("2021"), line


def test_a_rollouts_generation_bar_is_progress_without_a_step():
    """REAL (OpenRLHF #350, 2024): vLLM's `Processed prompts:   6%|...| 1/16 [00:12<03:11, 12.76s/it]` between the trainer's
    `Episode [1/1]:  92%|...| 11/12 [03:32<00:19, 19.50s/it]` bars: the rollout moved the job on, but its count is prompts
    and its time a batch of them (before: step 1 after step 11, and 12.76 s the step time)."""
    found = [p for p in map(recognise, lines("openrlhf_350_ray.log")) if p is not None and p.moved]
    assert [(p.step, p.seconds) for p in found] == [(None, None)] * 2 + [(11, 19.5)] + [(None, None)] * 4 + [
        (None, 19.18), (None, 19.27)] + [(None, None)] * 2
    assert {p.trainer for p in found} == {"tqdm"}
    assert all(p.heartbeat for p in found if p.step is None and p.seconds is None)


def test_skyrls_generation_bars_are_heartbeats_and_its_trainer_bar_the_step():
    """REAL (SkyRL on one H200, yottalabsai/docs, 2026-03): the trainer's `Training Batches Processed:  14%|...| 1/7
    [22:36<2:15:37, 1356.23s/it]` is step 1 at 1356.23 s; its generation bar, relayed by the driver with its name cut
    (`(skyrl_entrypoint pid=8455) %|█         | 512/5120 [00:10<01:37, 47.35it/s]`) and whole at its end (`Generating
    Trajectories: 100%|...| 5120/5120 [...]`), is no step: before, steps 512 ... 4127 at 0.015 s a step followed step 1."""
    found = [p for p in map(recognise, lines("skyrl_yottalabs_step.log")) if p is not None]
    assert [(p.step, p.seconds, p.heartbeat) for p in found] == [(1, 1356.23, False)] + [(None, None, True)] * 9
    assert all(p.moved and p.trainer == "tqdm" for p in found)


def _skyrl_cycles(n: int, heartbeats: bool = True) -> list[tuple[float, Progress]]:
    """The real SkyRL step (skyrl_yottalabs_step.log) at its own times, repeated `n` times a step's printed time apart
    (`Finished: 'step', time cost: 1331.13s`), its trainer bar's step counted on each time (the one change to what the
    lines say).  A line's time: its loguru stamp; a generation bar's, its elapsed time after `Started: 'generate'`;
    the trainer's bar, the stamp before it.  `heartbeats=False`: the generation bars taken as progress (the control)."""
    marks, at, generate = [], None, None
    for line in lines("skyrl_yottalabs_step.log"):
        stamped = _STAMP.search(line)
        if stamped:
            at = when(line, at)
            generate = at if "Started: 'generate'" in line else generate
        p = recognise(line)
        if p is None:
            continue
        bar = re.search(r"\[(\d+):(\d\d)<", line)
        t = generate + int(bar.group(1)) * 60 + int(bar.group(2)) if p.heartbeat and generate is not None else at
        marks.append((t, p if heartbeats else replace(p, heartbeat=False)))
    return [(t + 1331.13 * i, replace(p, step=p.step + i) if p.step is not None else p)
            for i in range(n) for t, p in marks]


def test_skyrls_rollout_generation_then_training_phase_is_no_hang():
    """A SkyRL step is 78 s of generation (its bar refreshed every ~10 s) then 1250 s of log probabilities, policy
    training and weight sync in silence.  Its generation bar keeps the pod alive without setting the pace: the median
    interval is the trainer bar's (1331 s), and five steps at the default settings raise nothing.  The control: taken
    as progress lines, the bar's refreshes set the median to ~10 s, the allowance to the 300 s floor, and every
    step's training phase read as a hang."""
    def run(heartbeats: bool) -> list:
        events: list = []
        clock = Clock()
        t = tracker(clock, events)
        for at, p in _skyrl_cycles(5, heartbeats):
            clock.t = clock.t or at
            while clock.t + 1 <= at:
                clock.t += 1
                t.tick()
            clock.t = max(clock.t, at)
            t.observe(REF, [Mark(at, p)])
        return [e[0] for e in events]
    assert run(True) == []
    assert HANG_REASON in run(False)


def test_slimes_rollout_lines_are_no_step():
    """REAL (THUDM/slime #1837, 2026): the rollout manager's `rollout.py:1193 - perf 0: {'rollout/response_len/mean': ...,
    'perf/rollout_time': 371.17...}` counts rollouts, not the training steps of `step N: {'train/...}`, and SGLang's
    `Abort request for [...]` after a rollout is none either: both give nothing."""
    assert [recognise(x) for x in lines("slime_1837_rollout_perf.log")] == [None, None]
    assert recognise("critic-step 3: {'train/critic-loss': 0.1}").step == 3  # the critic's line (slime's model.py)


def test_trls_grpo_dict_gives_its_step_time():
    """REAL (Chi-Shan0707/TinyLoRA-GRPO-Coder #4, 2026-03): TRL's GRPO trainer logs its step time in the Trainer's dict,
    `..., 'clip_ratio/region_mean': 0.0, 'step_time': 238.3076013879995, 'epoch': 0.03}`: progress without a step (as
    every Hugging Face dict without one) at 238.3 s a step.  Before, no time: a dict names no step, so none was derived
    from the spacing either, and a GRPO pod had no step time at all.  Two such dicts give the tracker that time."""
    line = lines("trl_grpo_tinylora_4.log")[0]
    assert recognise(line) == Progress(None, pytest.approx(238.3076013879995), "huggingface")
    events: list = []
    clock = Clock()
    t = tracker(clock, events)
    t.observe(REF, [Mark(0.0, recognise(line)), Mark(1191.5, recognise(line))])
    assert t.snapshot()["uid-0"]["step_seconds"] == pytest.approx(238.3076013879995) and events == []
    # the same key in transformers 5.x's string form, and a dict without it (no time, as before)
    assert recognise("{'loss': '12.88', 'step_time': '1.387', 'epoch': '5.833e-05', 'global_step/max_steps': '1/17144'}"
                     ) == Progress(1, pytest.approx(1.387), "huggingface")
    assert recognise("{'loss': 0.0, 'grad_norm': 0.08, 'reward': 1.7, 'kl': 0.0005, 'epoch': 0.31}").seconds is None


def test_trls_grpo_with_vllm_sleep_mode_reads_only_its_bar():
    """REAL (huggingface/trl #4086, 2025-09): a GRPO job with vLLM colocated in sleep mode prints vLLM's `It took 1.46
    seconds to fall asleep`, `Sleep mode freed 51.57 GiB memory` and `Successfully reset prefix cache` between steps,
    then DeepSpeed's timers (`[Rank 0] time (ms) | fwd: 114577.10 | ... | step: 105.42`): none of them is progress
    (their `step:` and `step_microstep:` are timers, not steps); the Trainer's bar, `3/1562 [18:48<164:33:29,
    379.99s/it]`, is step 3 at 379.99 s."""
    found = [recognise(x) for x in lines("trl_grpo_4086_sleep.log")]
    assert found == [None] * 10 + [Progress(3, pytest.approx(379.99), "tqdm", total=1562)]


def test_arctictrainings_eras_give_the_step_and_its_evaluation_is_a_pause():
    """ArcticTraining's summary line in its three eras (arctic_training/metrics.py, print_summary): the first
    (`iter time: 1.0 s`) and the latest (`Train iter: ...`, right-aligned to five characters, an evaluation's ` Eval
    iter: ...`) built from that source, not real lines; the 2025 era's real line in arctictraining_219.log.  The step is
    read, never the printed time (a batch's, the step repeating over gradient accumulation); `Eval` is evaluation."""
    first = "iter: 130/3000   4% | loss: 16.5469 | iter time: 1.0 s | lr: 8.667E-04 | step time: 1.0 s | epoch: 0"
    assert recognise(first) == Progress(130, None, "arctictraining")
    assert recognise("Train iter:  130/3000   4% | loss: 16.5469 | iter time: 1.038s | lr: 8.667E-04 | epoch: 0") == \
        Progress(130, None, "arctictraining")
    assert recognise(" Eval iter:    2/40   5% | loss: 1.2500 | lr: 8.667E-04 | epoch: 0") == \
        Progress(None, None, "arctictraining", "evaluation", moved=False)
    # a word ending in `iter` is no ArcticTraining line
    assert recognise("emitter:  130/3000   4% | loss: 16.5469 | epoch: 0") is None


def test_nnunets_epoch_line_is_read_only_behind_its_own_stamp():
    """nnU-Net's line per epoch (the real ones: nnunet_*.log) as its print_to_log_file writes it in its other forms:
    CONSTRUCTED from its source (a stamp at a whole second has no fraction, `datetime.fromtimestamp`'s str; a diverged
    run's loss `nan`).  Another trainer's `train_loss` (no stamp before it, more after it) is not nnU-Net's line."""
    for line in ("2024-04-26 09:41:39: train_loss 0.7088", "2024-04-26 09:41:39.493872: train_loss nan",
                 "2022-02-11 09:34:49.625515: train loss : -0.6584 ", "2024-04-26 09:41:39.493872: train_loss -1.2e-05"):
        said = recognise(line)
        assert (said.trainer, said.step, said.moved) == ("nnunet", None, True), line
    for line in ("train_loss 0.7088", "epoch 3 train_loss 0.7088 val_loss 0.61", "2024-04-26 09:41:39: val_loss 0.4628",
                 "2024-04-26 09:41:39: train_loss 0.7088 (best)"):
        said = recognise(line)
        assert said is None or said.trainer != "nnunet", line


def test_areals_stats_logger_line_gives_its_global_step():
    """CONSTRUCTED from AReaL's source (areal-project/AReaL cbff54d6, areal/utils/stats_logger.py `commit`: `Epoch
    {epoch + 1}/{total} Step {step + 1}/{per epoch} Train step {global_step + 1}/{total} done.`, after
    areal/utils/logging.py's LOG_FORMAT_PLAIN and its coloured LOG_FORMAT; no real line was found in a public thread):
    the global step, no step time (None before: an AReaL job was never tracked)."""
    plain = "(AReaL) 20260822-09:03:26.123 StatsLogger INFO: Epoch 1/10 Step 3/934 Train step 3/9340 done."
    coloured = ("\x1b[1;38;2;180;140;80m(AReaL)\x1b[0m \x1b[37m20260822-09:03:26.123 StatsLogger INFO: Epoch 2/10 Step 1/934 "
                "Train step 935/9340 done.")
    assert [(p.step, p.seconds, p.trainer) for p in map(recognise, (plain, coloured))] == [(3, None, "areal"),
                                                                                           (935, None, "areal")]


def test_clus_report_progress_eras_give_the_step_and_its_rate():
    """CLU's ReportProgress (google/CommonLoopUtils clu/periodic_actions.py): its first report in Flax's Gemma example
    (examples/gemma/README.md line 436, flax_gemma_clu_readme.log's source: `0.0 steps/s`, no time yet); the shapes of
    its other eras CONSTRUCTED from its source: without a known total (`8.3 steps/s` alone, 2021-01 on: progress without
    a step), its first era (`40.0% @4, 8.3 steps/s, ETA: 0 min`, 2020-09, as clu's own test asserts it) and persistent
    notes (2025-04 on: the figures on a line of their own).  Each None before; a line merely saying a rate is none."""
    first = ("I0325 14:01:32.334728 130295542103168 local.py:41] Setting work unit notes: 0.0 steps/s, 0.0% (1/500000), "
             "ETA: 400d22h17m (2m : 4.3% data, 95.2% train_step)")
    assert recognise(first) == Progress(1, None, "clu")
    assert recognise("INFO:absl:Setting work unit notes: 8.3 steps/s") == Progress(None, 1 / 8.3, "clu")
    assert recognise("INFO:absl:Setting work unit notes: 40.0% @4, 8.3 steps/s, ETA: 0 min") == Progress(4, 1 / 8.3, "clu")
    assert recognise("8.3 steps/s, 40.0% (4/10), ETA: 0m") == Progress(4, 1 / 8.3, "clu")
    for other in ("Speed: 8.3 steps/s, ETA: 3m", "12.0 steps/s", "I0325 logging_writer.py:48] [332] steps_per_sec=5.51328"):
        assert recognise(other) is None, other


def test_lines_that_are_not_progress_give_nothing():
    assert [recognise(x) for x in lines("torchtitan_1287.log") if "step:" not in x] == [None] * 4
    assert recognise("Training:   0%|          | 0/18 [00:00<?, ?it/s]") is None  # no rate yet: no step taken
    assert recognise("  Total optimization steps = 564") is None
    assert recognise("NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC") is None
    assert PREFILTER.search(b"NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC") is None


def test_the_speech_and_translation_toolkits_summaries_and_validations_are_no_step():
    """(h511) REAL lines of the OpenNMT-py, ESPnet2 and icefall threads that are no training step: ESPnet2's epoch summary
    (its `[train]` and `[valid]` figures, espnet/espnet#2674) and its epoch's start, icefall's validation result
    (k2-fsa/icefall#672: an evaluation said when done, read by the pause table as before), OpenNMT-py's 2017 line
    (OpenNMT/OpenNMT-py#709: batches within the epoch, no row) and its `Loading dataset` line (#1362)."""
    summary = lines("espnet2_2674_epochs.log")[3]
    assert "1epoch results: [train]" in summary and recognise(summary) is None
    assert recognise(lines("espnet2_2674_epochs.log")[5]) is None  # `2/20epoch started. Estimated time to finish: ...`
    valid = recognise("2022-11-08 04:14:30,541 INFO [train.py:923] (0/4) Epoch 23, validation: loss=0.1505, "
                      "simple_loss=0.2502, pruned_loss=0.02537, over 944034.00 frames.")
    assert valid is not None and not valid.moved and valid.step is None and valid.pause == "evaluation"
    assert recognise("Epoch  1, 12900/37527; acc:   4.48; ppl: 35173.75; xent:  10.47; 3599 src tok/s; 3678 tgt tok/s;"
                     "   9861 s elapsed") is None
    assert recognise(lines("opennmt_1362.log")[2]) is None


def test_every_rule_is_reachable_past_the_keyword_prefilter():
    # a line meets the rules only if it holds one of KEYWORDS: each rule's own keyword must contain one
    for rule in RULES:
        assert any(k in rule.keyword for k in KEYWORDS), rule
        assert PREFILTER.search(rule.keyword.encode()) is not None, rule


def test_lightlytrains_rows_are_tried_only_on_its_own_lines():
    """The LightlyTrain rows sit among the late rows, whose keyword few lines hold: keyed on its eras' own loss names
    (`Train Loss`, `train_loss: `), not `Loss`/`loss`, their pattern is tried on no other trainer's real loss line that
    reaches them (no earlier row reads it; the pod-log tracker reads every line).  Its two eras' real lines hold a key."""
    keys = {r.keyword for r in RULES if r.trainer == "lightlytrain"}
    first = min(i for i, r in enumerate(RULES) if r.trainer == "lightlytrain")
    earlier = {r.trainer for r in RULES[:first]}
    for log in sorted(FIX.glob("*.log")):
        for line in lines(log.name):
            if "Train Step " in line:
                assert any(k in line for k in keys), line
            elif not log.name.startswith("lightlytrain_"):
                found = recognise(line)
                assert (found is not None and found.trainer in earlier) or not any(k in line for k in keys), line


def test_the_factored_prefilter_finds_what_the_flat_alternation_finds():
    """PREFILTER is the keywords' alternation factored by shared openings (cheaper per line): on every real line, its
    case variants and each keyword alone it finds a keyword exactly where `k1|k2|...` does, as bytes and as text."""
    flat = re.compile("|".join(re.escape(k) for k in KEYWORDS))
    texts = [x for log in sorted(FIX.glob("*.log")) for line in lines(log.name) for x in (line, line.upper(), line.lower())]
    texts += list(KEYWORDS) + [k[:-1] for k in KEYWORDS] + ["NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC"]
    flat_bytes = re.compile(flat.pattern.encode())
    for text in texts:
        for factored, plain, t in ((PREFILTER, flat_bytes, text.encode()), (_PREFILTER_STR, flat, text)):
            m, f = factored.search(t), plain.search(t)
            assert (m is None) == (f is None), text
            assert m is None or m.start() == f.start(), text
    assert PREFILTER.pattern != flat_bytes.pattern
    # the pod-log source, having found a keyword in a line's bytes, asks recognise not to look again: the same answer
    for text in texts:
        if PREFILTER.search(text.encode()):
            assert recognise(text, keyword_seen=True) == recognise(text), text


def test_every_pause_a_row_reads_in_the_real_logs_passes_the_pause_word_gate():
    # after a progress match, PAUSES are tried only where _PAUSE_WORDS occurs: a pause any row reads in a real log's
    # line must hold one of those words (else a bar's checkpoint save is lost again), and so must every line the
    # keyword prefilter lets through to the rows
    seen = 0
    for log in sorted(FIX.glob("*.log")):
        for line in lines(log.name):
            if any(row.pattern.search(line) for row in PAUSES):
                seen += 1
                assert _PAUSE_WORDS.search(line), (log.name, line)
    assert seen >= 10  # the fixtures do announce pauses


def test_a_keyword_line_no_rule_reads_meets_the_pause_rows_as_before():
    """A keyword line that is no trainer's progress meets PAUSES only when its lower case holds one of their words
    (_PAUSE_WORDS): the case-blind rows' pauses are all still read, whatever the case, and a line of other
    characters (which re's case folding reads as the ASCII words: the Turkish dotted capital I) meets them all."""
    for line, pause in [("step 5 SAVING CHECKPOINT", "checkpoint"), ("step 5 Saving Model Checkpoint", "checkpoint"),
                        ("loss 3.1 RUNNING EVALUATION", "evaluation"), ("loss 3.1 VAL LOSS 2.9", "evaluation"),
                        ("step 5 VAL\u0130DAT\u0130ON", "evaluation"), ("step 5 \u0412 VALIDATION", "evaluation"),
                        ('{"step": 7, "loss": 2.1, "lr": 0.0001}', None), ("step 5 \u0412 no pause", None)]:
        said = recognise(line)
        assert (said.pause if said else None) == pause, line
        assert any(row.pattern.search(line) for row in PAUSES) == (pause is not None), line
        if said:
            assert not said.moved and said.step is None


def test_the_case_blind_tables_are_looked_for_first_in_an_ascii_lines_lower_case():
    """_EVAL_BAR, _SETUP_BAR and PAUSES are tried only where _may_hold finds their words: each of their matches, in
    every real progress line and its case variants, holds one of them (an ASCII line in lower case; a line of other
    characters always may)."""
    tables = [(_EVAL_BAR, _EVAL_GATE), (_SETUP_BAR, _SETUP_GATE), *((row.pattern, _PAUSE_WORDS) for row in PAUSES)]
    seen = 0
    for log in sorted(FIX.glob("*.log")):
        for line in lines(log.name):
            for text in (line, line.upper(), line.swapcase(), "Validating " + line, "MAP " + line, "LOADING " + line):
                for pattern, gate in tables:
                    if pattern.search(text):
                        seen += 1
                        assert _may_hold(gate, _lowered(text)), (pattern.pattern, text)
    assert seen > 1000
    assert _may_hold(_EVAL_GATE, _lowered("VAL\u0130DATION"))  # re reads \u0130 as I: it may


def test_xtuners_eras_from_its_source_give_the_global_step():
    """CONSTRUCTED from XTuner V1's trainer (xtuner/v1/train/trainer.py's f-strings, no real line found for these eras): its
    first eras printed no `time:` (the step time then from the spacing), its later one opens with the epoch and prints the
    learning rate in e-notation; the step read is the global step in each (the real eras: xtuner_v1_*.log)."""
    first = recognise("[XTuner][RANK 0][2025-08-01 10:00:00][INFO] Step 3/32 data_time: 0.0039 lr: 0.000060 total_loss: "
                      "12.134  grad_norm: 16.711 tgs: 2017.2")
    assert (first.step, first.seconds, first.trainer) == (3, None, "xtuner")
    later = recognise("[XTuner][RANK 0][2026-01-05 10:00:00][INFO] Epoch 1 Step 7/100 data_time: 0.0100 lr: 1.000000e-05 "
                      "time: 2.5000 text_tokens: 4096 total_consumed_tokens: 28672 local_loss: 1.20000000, "
                      "reduced_llm_loss: 1.10000000 grad_norm: 0.50000000 max_memory: 10.00 GB")
    assert (later.step, later.seconds, later.trainer) == (7, pytest.approx(2.51), "xtuner")


def test_xtuners_rollout_and_sharding_bars_are_no_training_steps():
    """REAL (InternLM/xtuner's docs, sources.md): its RL trainer's rollout bar, `rollout_controller for training samples:
    9%|▉         | 12/128 [00:30<04:51,  2.51s/it]`, counts samples the rollout generates (read as training steps 12, 35,
    ... 120 before, at 0.55-2.5 s a step): a heartbeat.  Its `[FSDP Sharding]: 100%|...| 8/8 [...]` and `[Vision Fully
    Shard]: ...` bars shard the model before training (each read as a finished bar's progress before: the pod tracked,
    and its step time 0.004 s, from its set-up): nothing."""
    bars = [recognise(x) for x in lines("xtuner_rl_grpo_rollout.log") if "%|" in x]
    assert bars[0] is None  # `0/128 [00:00<?, ?it/s]`: no rate yet
    assert [(p.step, p.seconds, p.heartbeat) for p in bars[1:]] == [(None, None, True)] * 10
    assert [recognise(x) for x in lines("xtuner_v1_intern_s1_fsdp.log")[:5]] == [None] * 5


def test_a_rollouts_bar_name_is_read_in_any_case():
    """The rollout names (_ROLLOUT_BARS) are read case-blind, one lower-case word each: before, "rollout" and "Rollout"
    were two entries and `ROLLOUT_CONTROLLER` a training step.  CONSTRUCTED: XTuner's real rollout bar
    (xtuner_rl_grpo_rollout.log) and OpenRLHF's real `Processed prompts` bar (openrlhf_350_ray.log) with their names'
    case changed, and one with a non-ASCII letter in its name (the lower case read without the ASCII look)."""
    rollout = lines("xtuner_rl_grpo_rollout.log")[3]  # `rollout_controller for training samples:   9%|...| 12/128 ..`
    prompts = next(x for x in lines("openrlhf_350_ray.log") if x.startswith("Processed prompts:"))
    name, _, rest = rollout.partition(":")
    for line in (rollout, f"{name.upper()}:{rest}", f"{name.title()}:{rest}", f"İ {name.upper()}:{rest}",
                 prompts.replace("Processed prompts", "PROCESSED PROMPTS")):
        p = recognise(line)
        assert (p.step, p.seconds, p.heartbeat) == (None, None, True), line


def test_a_ray_actors_name_is_not_its_bars_name():
    """The set-up words and the rollout names are read in the bar's own name, not in the `(Name pid=N) ` prefix Ray
    gives a line its actor relays: before, a trainer's bar relayed by an actor named for rollouts was a heartbeat with no
    step, and one named for shards nothing.  CONSTRUCTED: SkyRL's real training bar (skyrl_yottalabs_step.log) behind
    slime's real actor prefix (slime_1837_rollout_perf.log), as Ray relays an actor's line; the `ShardWorker` and
    `EvaluatorActor` names are made up.  The bars' own names still decide behind a prefix (XTuner's real `rollout_controller` and `[FSDP Sharding]`
    bars behind slime's prefix, constructed alike)."""
    bar = next(x for x in lines("skyrl_yottalabs_step.log") if x.startswith("Training Batches Processed:"))
    actor = lines("slime_1837_rollout_perf.log")[0].partition(" [")[0]  # `(RolloutManager pid=1805485)`
    for prefix in (actor, "(ShardWorker pid=7, ip=10.0.0.1)", "\x1b[36m(RolloutManager pid=1805485)\x1b[0m",
                   "(EvaluatorActor pid=7)"):  # (was an evaluation pause: the evaluation words read from the line's start)
        p = recognise(f"{prefix} {bar}")
        assert (p.step, p.seconds, p.heartbeat) == (1, 1356.23, False), prefix
    rollout = lines("xtuner_rl_grpo_rollout.log")[3]  # `rollout_controller for training samples:   9%|...| 12/128 ..`
    assert recognise(f"{actor} {rollout}").heartbeat  # a rollout's bar behind an actor's prefix is still one
    sharding = lines("xtuner_v1_intern_s1_fsdp.log")[2]  # `[FSDP Sharding]: 100%|...| 8/8 [00:00<00:00, 278.75it/s]`
    assert recognise(f"{actor} {sharding}") is None


def test_an_actors_name_is_no_evaluation():
    """The evaluation words (_EVAL_BAR) are read in the line's own words, not in the `(Name pid=N) ` prefix Ray gives a
    line its actor relays, as the set-up words are: before, a trainer's bar relayed by an actor named for evaluation
    was an announced evaluation (no step, and the pause allowance from it), as was verl's step line.  CONSTRUCTED:
    SkyRL's real training bar (skyrl_yottalabs_step.log) and verl's real step line (verl_rldecision_ppo.log, its
    `(TaskRunner pid=247607) ` prefix taken off) behind made-up actor names; an evaluation bar behind a prefix is still
    one (Ultralytics' real validation bar, ultralytics_2023.log, behind slime's real prefix)."""
    bar = next(x for x in lines("skyrl_yottalabs_step.log") if x.startswith("Training Batches Processed:"))
    verl = lines("verl_rldecision_ppo.log")[3].partition(") ")[2]  # `step:1 - global_seqlen/min:159906 - ...`
    for prefix in ("(EvalWorker pid=7)", "(ValidationActor pid=7, ip=10.0.0.1)", "\x1b[36m(evaluator pid=7)\x1b[0m"):
        p = recognise(f"{prefix} {bar}")
        assert (p.step, p.seconds, p.pause, p.moved) == (1, 1356.23, "", True), prefix
        p = recognise(f"{prefix} {verl}")
        assert (p.step, p.pause, p.moved) == (1, "", True), prefix
    actor = lines("slime_1837_rollout_perf.log")[0].partition(" [")[0]  # `(RolloutManager pid=1805485)`
    validation = next(x for x in lines("ultralytics_2023.log") if "mAP50-95): " in x)
    assert recognise(f"{actor} {validation}").pause == "evaluation"


def test_evaluation_and_setup_bars_are_no_training_progress():
    """REAL (sources.md): MMEngine's validation (`Epoch(val) [10][4000/4809]  eta: ...`, no loss: read as nothing before,
    so a 40-minute validation was silence) and Ultralytics' validation bar (`Class  Images ... mAP50-95): 100%|...|
    32/32 [...]`, read as training step 32 before) are evaluation; detectron2's inference lines stay evaluation.  Bars
    that load or prepare were read as training steps before (`Loading checkpoint shards: ... 1/81 [...]`, vLLM's
    `Loading safetensors checkpoint shards:  20% Completed | 32/158 [...]`, Ultralytics' `val: Scanning ... 1418/1418
    [...]`): a pod "progressing" while it loads, then quiet while it sets up, read as hung; now they are nothing."""
    said = [recognise(x) for x in lines("mmengine_yoloworld_396_val.log")]
    assert [(p.pause, p.trainer) for p in said] == [("evaluation", "mmengine")] * 10
    val = [recognise(x) for x in lines("ultralytics_2023.log") if "mAP50" in x and "%|" in x]
    assert [p.pause for p in val] == ["evaluation"] * 3
    assert [recognise(x).pause for x in lines("detectron2_3886_eval.log")] == ["evaluation"] * 4
    for name in ("hf_shards_huatuo_89.log", "vllm_shards_sglang_3434.log", "ultralytics_6803_scanning.log"):
        assert [recognise(x) for x in lines(name)] == [None] * len(lines(name)), name
    # (synthetic, a script's own shape): an epoch counter is no step
    assert recognise("Epoch [1/5], Step [100/600], Loss: 0.2245") is None


def test_timm_and_imagenet_validation_lines_are_evaluation():
    """REAL (sources.md): timm's validation (`Test: [   0/30]  Time: 6.593 (6.593)  Loss: ...`, on Gaudi, optimum-habana's
    README) and pytorch/examples' ImageNet one (`Test: [0/782]   Time 3.426 (3.426)   Loss ...`, pytorch/examples #267, the
    issue being a hang in it) were nothing before; now each is an announced evaluation, no progress, so a long validation
    after the epoch's last `Train:` line stretches the allowance instead of reading as a hang."""
    timm = [recognise(x) for x in lines("timm_optimum_habana_hpu.log") if x.startswith("Test: ")]
    assert [(p.pause, p.moved) for p in timm] == [("evaluation", False)] * 4
    test, = [recognise(x) for x in lines("imagenet_progressmeter_examples_267.log") if x.startswith("Test: ")]
    assert (test.step, test.pause, test.moved) == (None, "evaluation", False)
    # DeepSpeed-Chat's other lines (its latency line, the reward, the rule) are nothing
    assert [recognise(x) for x in lines("dschat_step3_examples_444.log") if "|step: " not in x] == [None] * 8
    # (synthetic, a script's own shape) a tutorial's `Train Epoch: 1 [5120/84843 (6%)]\tLoss: 3.13` counts samples: nothing
    assert recognise("Train Epoch: 1 [5120/84843 (6%)]\tLoss: 3.132875") is None


def test_a_progress_bar_and_a_pause_said_on_one_line_carry_both():
    """REAL (sources.md): tqdm writes its bar without a newline, so the logger's next line lands on it: torchtune #1713's
    finished bar then `INFO:torchtune.utils._logging:Starting checkpoint save...` (the save it hung in), PaddleNLP #1761's
    bar then `***** Running Evaluation *****`.  The bar won before and the pause was lost (a long save after it read as
    silence); now the one Progress carries the bar's progress and the pause, each read from its own table."""
    bar, = [recognise(x) for x in lines("torchtune_1713_save.log")]
    assert bar == Progress(None, 5.37, "tqdm", "checkpoint", total=15)  # a finished bar (15/15): progress without a step
    said = [recognise(x) for x in lines("paddlenlp_1761_eval.log")]
    assert [p.step for p in said] == [150, 160, 170, 180, 190, 200, 200]  # `'global_step': 150` (None before)
    assert [p.trainer for p in said] == ["paddle"] * 6 + ["tqdm"]
    assert said[-1].pause == "evaluation" and said[-1].moved and said[-1].seconds == pytest.approx(1 / 3.37)
    assert [p.pause for p in said[:-1]] == [""] * 6
    # a pause alone is no progress; an evaluation bar is a pause, not progress
    assert not recognise("***** Running Evaluation *****").moved
    assert not recognise("Validation DataLoader 0:  50%|█████     | 5/10 [00:01<00:01,  4.2it/s]").moved


@pytest.mark.parametrize("name", ["torchtune_1713_save.log", "paddlenlp_1761_eval.log"])
def test_the_tracker_honours_a_pause_said_after_a_bar(name):
    """The real lines above at a steady cadence (SYNTHETIC timing: a line every 3 s), then 5 minutes of silence (the save
    or the evaluation): with k=10 (30 s) and pause_seconds 600 the pause said on the bar's line holds; taken as progress
    only (what was read before), the same silence is a hang."""
    def run(keep_pauses: bool) -> list:
        events: list = []
        clock = Clock(1000.0)
        t = tracker(clock, events, k=10, floor_seconds=1, min_steps=2, pause_seconds=600)
        for i in range(4):  # (synthetic) the job's progress before: a dict every 3 s
            clock.t = 1000.0 + 3 * i
            t.observe(REF, [Mark(clock.t, Progress(100 + 10 * i, None, "paddle"))])
        for x in lines(name):
            clock.t += 3
            p = recognise(x) if keep_pauses else unpaused(recognise(x))
            t.observe(REF, [Mark(clock.t, p)])
        for _ in range(300):
            clock.t += 1
            t.tick()
        return [e[0] for e in events]
    assert run(keep_pauses=True) == []
    assert run(keep_pauses=False) == [HANG_REASON]


def test_verls_step_lines():
    """REAL (johnson7788/RLDecisionAgent's README, sources.md): verl's PPO trainer prints one line per step, `(TaskRunner
    pid=247607) step:1 - global_seqlen/min:159906 - ... - timing_s/step:48.7025266494602 - ...` (read as nothing
    before: only its `Training Progress` bar was progress), its validation `step:0 - val-aux/...` (evaluation); its SFT
    trainer `...| 29/35 [06:26<01:19, 13.17s/it]step:100 - train/loss:...` (the bar counts within the epoch: 29 was
    read, now verl's own step 100), `step:105 - val/loss:...` (evaluation), `Saving checkpoint to: ...` (a pause)."""
    ppo = [recognise(x) for x in lines("verl_rldecision_ppo.log")]
    assert ppo[0] is None  # `0/140 [00:00<?, ?it/s]`: no step taken yet
    assert (ppo[1].pause, ppo[1].moved) == ("evaluation", False)
    assert ppo[2] == Progress(1, 49.09, "tqdm", total=140) and ppo[3] == Progress(1, pytest.approx(48.7025266494602), "verl")
    sft = [recognise(x) for x in lines("verl_rldecision_sft.log")]
    assert [(p.step, p.pause) for p in sft[-2:]] == [(None, "evaluation"), (None, "checkpoint")]
    assert not any(p.moved for p in sft[-2:])
    assert recognise("INFO:tensorflow:global_step/sec: 0.0339311") is None  # TF's rate line: no step of its own


def test_verls_save_and_validation_announcements():
    """REAL: verl's PPO trainer (ray_trainer.py, every version from 2025-03 to 2026) announces a checkpoint save only as
    `local_global_step_folder: /data/wzl/LightningSearch-RL/checkpoints/.../global_step_28` (0904wang/LightningSearch-RL,
    2026) and a validation only as `(TaskRunner pid=247607) test_gen_batch meta info: {..., 'validate': True,
    'global_steps': 0}` (johnson7788/RLDecisionAgent's README); both read as nothing before (`validate` is not
    `validation`), so the rollout of a long validation or the save of a large model's shards was a silent pod with no
    pause announced; only `validation generation end`, said when the generation was over, counted.  Now each is its
    pause, and no line between them is progress (sources.md)."""
    said = [recognise(x) for x in lines("verl_rldecision_val_start.log")]
    text = lines("verl_rldecision_val_start.log")
    starts = [i for i, x in enumerate(text) if "test_gen_batch meta info: " in x]
    assert starts and all(said[i] == Progress(None, None, "", "evaluation", False) for i in starts)
    assert said[-1] == Progress(None, None, "", "evaluation", False)  # `validation generation end`
    assert [p for p in said if p is not None and p.moved] == []
    assert [recognise(x) for x in lines("verl_lightningsearch_save.log")] == [Progress(None, None, "", "checkpoint", False)]


def test_nemo_rls_step_headers_and_the_pauses_it_announces():
    """REAL (NVIDIA-NeMo/nemo-platform #943, a DPO run, 2026; sources.md): NeMo-RL opens each step with `=========================
    Step 2/2 =========================` and prints its results as indented bullets after it: the header was read as
    nothing before (no keyword: `Step` capitalised), so a NeMo-RL job was never tracked.  Now the header is progress
    (the epoch's last step names its total: no step, as a finished bar), `▶ Starting validation at step 2` an
    evaluation and `Saving checkpoint for step 2...` a checkpoint save, both pauses; no other line is progress (its
    `• Validation loss: 0.6645` results, said when the evaluation is over, are read as the evaluation, as nanoGPT's
    `val loss` is)."""
    said = [recognise(x) for x in lines("nemorl_platform_943_dpo.log")]
    assert said[0] == Progress(None, None, "nemo-rl")
    text = lines("nemorl_platform_943_dpo.log")
    assert said[text.index("\u25b6 Starting validation at step 2 for `default` set..")] == Progress(
        None, None, "", "evaluation", False)
    assert said[text.index("Saving checkpoint for step 2...")] == Progress(None, None, "", "checkpoint", False)
    assert [p for p in said[1:] if p is not None and p.moved] == []
    # the SFT run (NVIDIA-NeMo/RL #762): its epoch header is no progress, its first step header is step 1
    sft = lines("nemorl_762_sft.log")
    assert recognise(sft[0]) is None and recognise(sft[1]) == Progress(1, None, "nemo-rl")
    # (synthetic, the shape NeMo-RL's GRPO loop writes with its Ray prefix) a step within a longer run
    assert recognise("(TaskRunner pid=1) ========================= Step 12/500 =========================").step == 12


def test_nemo_rls_total_step_time_times_the_step_its_header_opened():
    """REAL (NVIDIA-NeMo/RL #762, sources.md): each step ends with `  • Total step time: 1.91s` under `⏱️  Timing:`.
    Was: nothing (no row), so a NeMo-RL pod had no step time.  Now the step's printed time, no advance of its own (the
    header opened the step): a tracker fed header, timing, header, .. keeps one interval per step (the step's time, not
    halved by a second mark at each step's end) and the printed time as the pod's.  (synthetic) #1052's GRPO run's
    `66.55s` behind a Ray prefix; a `Total step time:` without NeMo-RL's bullet is someone else's."""
    sft = lines("nemorl_762_sft.log")
    assert recognise(sft[sft.index("  \u2022 Total step time: 1.91s")]) == Progress(None, 1.91, "nemo-rl", moved=False)
    assert recognise("(TaskRunner pid=1)   \u2022 Total step time: 66.55s").seconds == 66.55
    assert recognise("Total step time: 66.55s") is None
    clock, events = Clock(), []
    t = tracker(clock, events)
    for n in range(1, 6):  # a 66 s step: its header, then 66 s later its timing line, the next header 1 s after
        t.observe(REF, [Mark(67.0 * n, recognise(f"========================= Step {n}/500 =========================")),
                        Mark(67.0 * n + 66.0, recognise("  \u2022 Total step time: 66.55s"))])
    pod = t.pods[REF.uid]
    assert (pod.step, pod.advances, list(pod.intervals)) == (5, 5, [67.0] * 4)
    assert pod.step_seconds == 66.55 and pod.printed


def test_lightning_rich_bar_and_its_evaluation():
    """REAL (Lightning-AI/pytorch-lightning #12720, sources.md): Lightning's RichProgressBar writes `Epoch 4    ----...
    232/291 0:00:33 • 0:00:09 7.00it/s loss: 0.398` (the bar as a console without its glyphs renders it): None before
    (no tqdm `[elapsed<remaining,` part), so a job using RichProgressBar was never tracked.  Now its count is the step
    and its speed the step time.  (synthetic, the shapes lightning/pytorch/callbacks/progress/rich_progress.py
    writes): a total it cannot know (`5072/--`, `-:--:--`), over a day elapsed, a `Validation` / `Sanity Checking`
    bar (evaluation), a loading bar (nothing)."""
    bar = "Epoch 0/-2 \u2501\u2501\u2501\u2501 5072/-- 2:40:43 \u2022 -:--:-- 0.57it/s v_num: xn3p train_loss: 10.416"
    assert recognise(bar) == Progress(5072, pytest.approx(1 / 0.57), "tqdm")
    assert recognise("Epoch 3/9  \u2501\u2501 910/910 1 day, 2:06:22 \u2022 0:00:00 2.41it/s v_num: mcyz") == Progress(
        None, pytest.approx(1 / 2.41), "tqdm", total=910)  # the epoch's last state: no step
    for text in ("Validation    \u2501\u2501\u2501 12/50 0:00:01 \u2022 0:00:03 11.2it/s",
                 "Sanity Checking \u2501\u2501\u2501\u2501 2/2 0:00:00 \u2022 0:00:00 38.27it/s"):
        assert recognise(text) == Progress(None, None, "tqdm", "evaluation", False)
    assert recognise("Loading shards \u2501\u2501\u2501 2/4 0:00:03 \u2022 0:00:03 0.66it/s") is None


def test_the_karpathy_family_and_prime_rl_their_evaluations_and_eras():
    """REAL (sources.md): the end of a modded-nanogpt run, `step:1480/1480 val_loss:3.2786 train_time:633777ms ...`,
    and of an llm.c run, `val loss nan`, are evaluation (pauses, no progress); prime-rl's closing lines are nothing.
    (synthetic, the shapes their code writes): llm.c's earlier eras (`step   10/74: train loss ... (36.58 ms, ...)`,
    `step 1: train loss ... (took 1234.567 ms)`), nanochat's midtraining without a total, modded-nanogpt's first era
    (`train_loss:`, `step_avg:nanms`: no time), prime-rl's orchestrator; nanoGPT's evaluation line stays a pause."""
    end = [recognise(x) for x in lines("moddednanogpt_h100_master.log")[-2:]]
    # (its val_loss printed once the validation batches are done: an evaluation over, Rule.ends)
    assert end == [Progress(None, None, "modded-nanogpt", "evaluation", False, ended=True), None]
    # its `val loss nan`, printed once the val batches are done: an evaluation over, not one announced
    assert recognise(lines("llmc_anthonix_2_val.log")[-1]) == Progress(None, None, "", "evaluation", False, ended=True)
    assert [recognise(x) for x in lines("primerl_999.log")[-2:]] == [None, None]
    assert recognise("step   10/74: train loss 4.367631 norm 1.2 lr 3.00e-04 (36.58 ms, 112241 tok/s)") == Progress(
        10, pytest.approx(0.03658), "llm.c")
    assert recognise("step 1: train loss 4.677647 (took 1234.567 ms)") == Progress(1, pytest.approx(1.234567), "llm.c")
    assert recognise("step 00004 (0.02%) | loss: 8.893647 | lrm: 1.00 | dt: 989.44ms | tok/sec: 529,882").step == 4
    assert recognise("step:1/3000 train_loss:10.8258 train_time:123ms step_avg:nanms") == Progress(1, None, "modded-nanogpt")
    assert recognise("12:01:09 SUCCESS Step 5 | Time: 41.20s | Reward: 0.5312 | Throughput: 1234.5 tokens/s") == Progress(
        5, pytest.approx(41.2), "prime-rl")
    assert recognise("step 250: train loss 1.5440, val loss 1.7220").pause == "evaluation"


def test_the_tf2_object_detection_apis_eras_and_ray_trains_table():
    """(synthetic, the shapes research/object_detection/model_lib_v2.py writes): its later era prints the step line without
    its loss, then the losses as a dict (`{'Loss/classification_loss': 0.15808013,`), which is no Trainer dict; REAL
    (ray-project/ray #36795): Ray Train's result table row and checkpoint line are none, its report line step 1."""
    assert recognise("INFO:tensorflow:Step 1100 per-step time 0.470s") == Progress(1100, pytest.approx(0.47), "tfod")
    assert recognise("INFO:tensorflow:{'Loss/classification_loss': 0.15808013,") is None
    said = [recognise(x) for x in lines("ray_36795.log")]
    assert said[0] == Progress(1, None, "ray") and said[1:] == [None] * (len(said) - 1)
    assert recognise("Trial TorchTrainer_8dace_00004 finished iteration 3 at 2023-06-23 15:30:41. Total running time: 13s"
                     ) == Progress(3, None, "ray")


def test_keras3_colour_codes_around_each_part():
    """REAL (liquidinstruments/moku-examples' Classification notebook, sources.md): Keras 3 colours its count, bar and
    time with SGR codes; every such line was None before.  Now each is Keras progress with its printed step time, the
    `Epoch N/M` lines between stay nothing, and the ESC-less form a page renders reads the same."""
    lines_ = lines("keras3_moku_classification.log")
    assert [recognise(x) for x in lines_[::2]] == [None] * 6  # `Epoch 1/1000`...
    assert [recognise(x) for x in lines_[1::2]] == [Progress(None, s, "keras") for s in
                                                     (0.004, 0.004, 0.003, 0.003, 0.005, 0.004)]
    assert all("\x1b[" in x for x in lines_[1::2])  # the real bytes: ESC before each `[`
    assert [recognise(x.replace("\x1b", "")) for x in lines_[1::2]] == [recognise(x) for x in lines_[1::2]]


def test_keras_lines_without_a_bar():
    """REAL (sources.md): `fit(verbose=2)` prints one line per epoch with no bar, `710/710 - 0s - loss: 0.3377 -
    val_loss: 0.5081` (tensorflow #31032), and a dataset of unknown length counts without a total, `  13440/Unknown -
    2s - loss: ...`, `  60000/Unknown - 5s 87us/step - ...` (keras #8169), Keras 3's `  1/Unknown  7s 7s/step - loss:
    ...` (keras-io): every one was None before (the row wanted a bar after a known total), so a Keras job logging to
    a file as Keras advises (verbose=2) or reading a tf.data pipeline was never tracked.  Now each is Keras progress
    without a step, with its printed step time (an epoch's time over its count where only that is printed)."""
    said = [recognise(x) for x in lines("keras_8169_unknown.log")]
    assert [(p.trainer, p.step) for p in said[1::2]] == [("keras", None)] * 8 and said[::2] == [None] * 8  # `Epoch 1/12`
    assert said[13].seconds is None  # `13440/Unknown - 2s - loss`: no total to divide the epoch's time by
    assert said[-1].seconds == pytest.approx(87e-6)
    assert [p.seconds for p in map(recognise, lines("keras3_unknown_movielens.log")[1:])] == pytest.approx(
        [7.0, 0.175, 0.169, 0.162, 0.16, 0.173, 0.181])
    # (synthetic, the shapes keras/src/utils/progbar.py writes): Keras 3's verbose=2 line, its colour codes when the
    # total is unknown; tf.keras 2.9+'s verbose=2 line (its step time last); an epoch's time over its count
    assert recognise("1875/1875 - 20s - 11ms/step - accuracy: 0.8359 - loss: 0.4846 - val_loss: 0.4289") == Progress(
        None, pytest.approx(0.011), "keras")
    assert recognise("     62/Unknown \x1b[1m5s\x1b[0m 80ms/step - loss: 0.6931") == Progress(None, pytest.approx(0.08),
                                                                                           "keras")
    assert recognise("1875/1875 - 13s - loss: 0.0087 - accuracy: 0.9976 - 13s/epoch - 7ms/step").seconds == \
        pytest.approx(13 / 1875)
    assert recognise("Epoch 1/12 - loss") is None and recognise("3/Unknown loss - total") is None


def test_keras_counting_samples_gives_no_step_time():
    """REAL (ageron/handson-ml2's chapter 10 notebook, TF 2.0, sources.md): tf.keras 2.0-2.1 counts samples where fit()
    reads arrays and prints its time per sample, `55000/55000 [=====] - 2s 44us/sample - loss: ...`.  Before, the
    epoch's elapsed over its count (2 s / 55000 = 36 us) was taken for the step time, the batches' ~1 ms, so a watch
    would measure its allowance 30x too short; now such a line is progress without a time, its `/sample` time read as
    none either."""
    said = [recognise(x) for x in lines("keras_tf20_handsonml2_sample.log")[2::2]]
    assert said == [Progress(None, None, "keras")] * 5
    # (synthetic, the same progbar's other forms): verbose=2 (`- 255s 12ms/sample -`), the unit in ms; `/step` unchanged
    assert recognise("20800/20800 - 255s 12ms/sample - loss: 0.4394 - accuracy: 0.8712") == Progress(None, None, "keras")
    assert recognise("423/423 [==============================] - 192s 454ms/step - loss: 1.8386").seconds == 0.454


def test_composers_console_logger_and_bar():
    """REAL (mosaicml/examples' ResNet README, sources.md): Composer's first-era console logger names the run's place on
    every metric line, `[epoch=0][batch=16/625]: loss/train/total: 7.1292`, and its bar counts batches, `| 17/625
    [00:17<07:23,  1.37ba/s, loss/train/total=7.1292]`: every line was None before (no keyword, and the bar's unit
    `ba` no tqdm row knew), so a Composer / LLM Foundry job could never be suspected hung.  Now the console lines give
    the batch (repeated per metric: one advance) and the bar its rate."""
    said = [recognise(x) for x in lines("composer_resnet_examples.log")]
    assert [p.step for p in said[:-1]] == [16] * 15 + [17] * 15 and {p.trainer for p in said[:-1]} == {"composer"}
    assert said[-1] == Progress(17, pytest.approx(1 / 1.37), "tqdm", total=625)
    # (synthetic, the shapes composer/loggers/console_logger.py and its progress bar write): its evaluation is a pause,
    # a finished epoch's bar and a duration in tokens are progress without a step
    assert recognise("[Eval batch=3/10] Eval on eval data") == Progress(None, None, "composer", "evaluation", False)
    assert recognise("eval           Epoch  30:  100%|█████| 49/49 [01:43<00:00,  1.95s/ba, metrics/eval/Accuracy=0.7393]"
                     ).pause == "evaluation"
    assert recognise("train          Epoch  30:  100%|█████| 1251/1251 [1:16:18<00:00,  3.66s/ba, loss/train/total=2.9"
                     ) == Progress(None, 3.66, "tqdm", total=1251)
    assert recognise("[epoch=2][batch=5/5]:") == Progress(None, None, "composer")
    assert recognise("[token=1048576/10000000]:") == Progress(None, None, "composer")
    assert recognise("micro_batch=4 global_batch=64") is None
    assert recognise("Map: 100%|██████████| 500/500 [00:01<00:00, 400.00 examples/s]") is None


def test_json_and_dict_progress_lines():
    """Trainers that print their metrics as a JSON object or a Python dict: the step is read where the line names one
    (fairseq / metaseq --log-format json's "num_updates", the Hugging Face Trainer's 'step' in some eras, ms-swift's
    'global_step/max_steps'); fairseq's JSON epoch summary ("train_num_updates") is no step, as its text one is none
    (REAL: facebookresearch/fairseq #2493).  A Hugging Face dict without a step is progress without a step (the
    Trainer logs one every `logging_steps` optimizer steps: a heartbeat, never compared with another rank's step;
    test below).  SYNTHETIC: a JSON object opening with its step (`{"step": 120, "loss": ...}`) is recognised by no
    row: no real trainer's log seen prints that shape (add a row, with its source, when one is found)."""
    assert [recognise(x) for x in lines("fairseq_2493_json.log")] == [None] * 6
    assert recognise(lines("ms_swift_4146.log")[0]) == Progress(12, None, "huggingface")
    assert recognise('{"step": 120, "loss": 2.5, "lr": 0.0003}') is None


def test_hf_dicts_without_a_step_are_progress_and_a_mixed_line_counts_once():
    dicts = [recognise(x) for x in lines("hf_deepspeed_14531.log")]
    assert dicts[0] == Progress(None, None, "huggingface")
    assert dicts[3].trainer == "deepspeed" and dicts[3].step == 2000  # tqdm bar and DeepSpeed on one line


def test_announced_pauses_are_recognised_and_not_progress():
    said = [recognise(x) for x in lines("nanogpt_215_checkpoint.log")]
    pauses = [p.pause for p in said if p is not None and p.pause]
    assert pauses == ["evaluation", "checkpoint"]  # `step 3000: ... val loss`, `saving checkpoint to out`
    # (synthetic, shaped like Lightning's validation bar and Megatron's / HF's announcements)
    assert recognise("Validation DataLoader 0:  50%|█████     | 5/10 [00:01<00:01,  4.2it/s]").pause == "evaluation"
    assert recognise("saving checkpoint at iteration    1000 to /ckpt").pause == "checkpoint"
    assert recognise("Saving model checkpoint to out/checkpoint-500").pause == "checkpoint"
    assert recognise("***** Running Evaluation *****").pause == "evaluation"


def test_a_line_said_when_the_evaluation_or_save_is_done_ends_the_pause_and_an_announcement_still_starts_one():
    """REAL lines (sources.md): nnU-Net v1 #938's `validation loss: -0.7226` and `done, saving took 0.43 seconds`,
    nanoGPT #215's `step 3000: ... val loss 4.0427`, NeMo-RL's `• Validation loss: 0.6645` (nemo-platform #943), each
    printed once the work is done; CONSTRUCTED from NVIDIA/Megatron-LM's megatron/training/training.py
    (evaluate_and_print_results prints ` validation loss at {prefix} | {key} value: {:.6E} | ...` after evaluate(),
    whose `Evaluating on N samples` / `Evaluating iter i/n` come first) and megatron/training/checkpointing.py
    (`  successfully saved checkpoint from iteration N to ...` after `saving checkpoint at iteration N to ...`).  The
    ending lines were read as announcements (or as nothing: a save's end), holding the pod paused until its next
    training line."""
    ended = [lines("nnunet_v1_938.log")[3], lines("nnunet_v1_938.log")[8], lines("nanogpt_215_checkpoint.log")[8],
             lines("nemorl_platform_943_dpo.log")[6],
             " validation loss at iteration 1000 | lm loss value: 3.326280E+00 | lm loss PPL: 2.783813E+01 | ",
             "  successfully saved checkpoint from iteration    1000 to /ckpt [ t 1/1, p 1/1 ]"]
    said = [recognise(x) for x in ended]
    assert [(p.pause, p.ended, p.moved) for p in said] == [
        ("evaluation", True, False), ("checkpoint", True, False), ("evaluation", True, False),
        ("evaluation", True, False), ("evaluation", True, False), ("checkpoint", True, False)]
    for start in ("Evaluating on 640 samples", "Evaluating iter 1/10", "saving checkpoint at iteration    1000 to /ckpt",
                  "Computing validation loss...", "***** Running Evaluation *****", lines("nnunet_v1_938.log")[7]):
        p = recognise(start)
        assert p is not None and p.pause and not p.ended, start
    # a progress line that says a pause is over after its progress is the advance alone (which ends any pause)
    assert recognise("2023-03-22 09:30:39 iter 2920: loss 3.9883, time 1099.34ms, mfu 15.34% val loss 4.0427") == Progress(
        2920, pytest.approx(1.09934), "nanogpt")
    # through the tracker: the pause ends there, the pace's allowance counted from the line (after a long evaluation,
    # announced: no suspicion in it)
    _suspected_at_the_floor_after([recognise("***** Running Evaluation *****"), recognise(ended[2])], [0, 1000])


def test_deepspeeds_checkpoint_commit_ends_the_save_and_a_hang_after_it_is_suspected_before_the_watchdog():
    """REAL (OneBit #8, hang_onebit_8_saved.log): DeepSpeed's checkpoint engine says `[Torch] Checkpoint global_step5000
    is ready now!` once save_checkpoint has written every file (TorchCheckpointEngine.commit, the last step of the save),
    then the job hung and the NCCL watchdog ended it 1,808 s later (`Timeout(ms)=1800000`, said only then).  The line
    was read as nothing: the pod stayed paused by the Trainer's `Saving model checkpoint to ...` for pause_seconds
    (3600 s), after the watchdog.  Read as the save's end, the hang is suspected at the pace (here the floor, 300 s)."""
    text = lines("hang_onebit_8_saved.log")
    commit = recognise(text[0])
    assert commit is not None and (commit.pause, commit.ended, commit.moved) == ("checkpoint", True, False)
    assert WATCHDOG.search(text[1]).groups() == ("1800000", "1808499")
    # its per-file lines are no end (more files follow: OneBit #6, `[Torch] Saved .../..._model_states.pt.`, then the
    # optimizer's states), nor is the Trainer's announcement
    saved = recognise("[2024-06-26 04:16:12,370] [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved /ssd/name/"
                      "code/OneBit/scripts/ckpt_Llama-2-7b-hf/checkpoint-5000/global_step5000/zero_pp_rank_0_mp_rank_00"
                      "_model_states.pt.")
    announced = recognise("Saving model checkpoint to out/checkpoint-5000")
    assert (saved is None or not saved.ended) and not announced.ended
    _suspected_at_the_floor_after([announced, commit], [0, 60])


def test_deepspeeds_per_file_lines_announce_a_save_and_its_commit_is_one_ranks_end():
    """REAL (sources.md): DeepSpeed's checkpoint engine says each file a rank writes, `[Torch] Saving <path>...` then
    `[Torch] Saved <path>.`, and each rank's commit, `[Torch] Checkpoint <tag> is ready now!` (ywlin111/Fudan-AI-design-
    mid-term-work, a LlamaFactory run of Qwen2.5 on one GPU, 2024-10-22; liguodongiot/llm-action, Megatron-DeepSpeed on 8
    GPUs of one node, 2023-08-15).  The per-file lines were read as nothing: a pod without rank 0 saw no announcement of
    a save (the Trainer's `Saving model checkpoint to` and DeepSpeed's `[Rank 0] Saving model checkpoint:` are rank 0's).
    Now a file begun announces a save (+1 file in flight), a file written keeps it (-1), the commit is one rank's end."""
    said = [(p.pause, p.ended, p.files, p.rank) if p else None
            for p in map(recognise, lines("deepspeed_save_qwen25_fudan.log")[3:10])]
    assert said == [("checkpoint", False, 0, False),  # `[Rank 0] Saving model checkpoint:` (rank 0's, as before)
                    ("checkpoint", False, 1, False), ("checkpoint", False, -1, False),
                    ("checkpoint", False, 1, False), ("checkpoint", False, -1, False),
                    ("checkpoint", True, 0, True),  # `bf16_zero checkpoint saved ...`: the rank's last file written
                    ("checkpoint", True, 0, True)]
    # Megatron-LM's end, printed by rank 0 after its barrier, is the whole save's (no rank's own)
    end = recognise(lines("deepspeed_save_megatron_llmaction_ranks.log")[-1])
    assert (end.pause, end.ended, end.rank) == ("checkpoint", True, False)


def test_one_ranks_commit_while_another_rank_writes_holds_the_pause_and_the_saves_end_ends_it():
    """REAL (liguodongiot/llm-action's Megatron-DeepSpeed log, sources.md): in one pod of 8 ranks, ranks that are done say
    `is ready now!` (the first two at once, before most ranks began their files) while rank 0 still writes
    `mp_rank_00_model_states.pt` (its `Saved` 5 s after its `Saving`, three commits of other ranks between).  A rank's
    commit ended the pod's pause: rank 0's write stretched (here 1,000 s after the commit of rank 2, a slow disk) was a
    hang suspected at the floor.  Now a rank's commit ends the pause only when none of the pod's files begun is still
    being written; Megatron-LM's `successfully saved checkpoint` (after the barrier) ends it, a hang after it suspected
    at the floor.  (The log's own `...` lines, which the author put for elided lines, are no progress.)"""
    text = lines("deepspeed_save_megatron_llmaction_ranks.log")
    save = [p for p in map(recognise, text[4:]) if p is not None]
    assert save[0].pause == "checkpoint" and save[-1].ended
    slow = next(i for i, x in enumerate(text[4:]) if "35,824" in x and "ready now" in x)  # rank 2's commit
    held = sum(1 for x in text[4:4 + slow + 1] if recognise(x) is not None)  # its place among the lines read
    _suspected_at_the_floor_after(save, [1000 if i == held else 0 for i in range(len(save))])


def test_a_second_save_after_a_commit_announces_itself_in_a_pod_without_rank_0():
    """REAL lines, CONSTRUCTED sequence: the Hugging Face Trainer under ZeRO-3 with stage3_gather_16bit_weights_on_model_save
    false calls DeepSpeed's save_checkpoint twice for one checkpoint (save_model's `except ValueError` path, then
    _save_optimizer_and_scheduler; huggingface/transformers #34534), each ending in its commit.  A pod without rank 0
    says only DeepSpeed's per-file lines and commits (here the Qwen2.5 run's, sources.md, twice): the first commit ended
    the pause and the second save's long write (1,000 s) was silence past the floor, a false hang.  Now its `[Torch]
    Saving` announces the second save; the last commit ends it, a hang after it suspected at the floor."""
    text = lines("deepspeed_save_qwen25_fudan.log")
    one = [recognise(x) for x in text[4:8]] + [recognise(text[9])]  # its files begun and written, its commit
    _suspected_at_the_floor_after(one + one, [0, 0, 0, 0, 0, 10, 1000, 0, 0, 0])


def test_deepspeeds_zero_checkpoint_saved_is_a_ranks_end_and_its_announcement_opens_the_save():
    """REAL (sources.md): before its checkpoint engine (DeepSpeed < 0.7) a rank's save said only `zero checkpoint saved
    <path>` once its optimizer states were written, no commit after it (stanford-crfm/mistral's 16 ranks on 2 nodes,
    2021-07); from 0.7 on each rank says it (`bf16_zero checkpoint saved` with bf16) just before its commit, and rank 0
    opens the save with `[Torch] Checkpoint <tag> is about to be saved!` (the Qwen2.5 run's, 2024-10-22).  Both were read
    as nothing: a hang after a save of the first era stayed paused by the Trainer's `Saving model checkpoint to` for
    pause_seconds, past the 30-minute watchdog.  Now the first is a rank's own end (a file in flight holds the pause, as
    for the commit), the second an announcement."""
    text = lines("deepspeed_zero_saved_mistral_multinode.log")
    ends = [recognise(x) for x in text[2:18]]
    assert all((p.pause, p.ended, p.rank, p.files) == ("checkpoint", True, True, 0) for p in ends)
    qwen = lines("deepspeed_save_qwen25_fudan.log")
    opened = recognise(qwen[2])
    assert (opened.pause, opened.ended, opened.files) == ("checkpoint", False, 0)
    # the Trainer's announcement (CONSTRUCTED, rank 0's, not in the tutorial's excerpt), then the ranks' ends as they came
    # (0.2 s apart at most; rank 0's last): a hang after them is suspected at the floor, not pause_seconds on
    _suspected_at_the_floor_after([recognise("Saving model checkpoint to hello-world/runs/checkpoint-150"), *ends],
                                  [0] * 17)
    # from 0.7 on: a rank's `zero checkpoint saved` while another rank's file is in flight holds the pause (a write of
    # 1,000 s after it), as its commit would
    other = recognise(qwen[4])  # another rank's file begun
    saved = recognise(qwen[8])  # `bf16_zero checkpoint saved`: a rank's end, not an announcement
    assert saved.ended
    _suspected_at_the_floor_after([opened, other, saved, recognise(qwen[5]), recognise(qwen[9])],
                                  [0, 0, 0, 1000, 0])


def test_deepspeeds_nvme_copy_after_a_ranks_zero_checkpoint_saved_keeps_the_save_open():
    """CONSTRUCTED from DeepSpeed's engine.py save_checkpoint (0.13 on, #4707; no real line found): with ZeRO-Infinity's
    NVMe optimizer offload, each rank copies its offloaded tensors into the checkpoint after `zero checkpoint saved` and
    before its commit, `Copying NVMe offload files from <dir> to <dir>, <n> GB free on target filesystem...` (minutes for
    a large model; its path's tag `global_step10` its keyword).  Read as nothing, the rank's `zero checkpoint saved`
    (now an end) left the copy to the pace's allowance: a 1,000 s copy a false hang.  Now the copy announces the save
    again and the commit ends it.  REAL the others (the Qwen2.5 run's lines, sources.md)."""
    qwen = lines("deepspeed_save_qwen25_fudan.log")
    copy = recognise("[2024-10-22 20:11:28,486] [INFO] [engine.py:3300:save_checkpoint] Copying NVMe offload files from "
                     "/local_nvme/zero_stage_3/optimizer/rank0 to saves/Qwen2.5-0.5B-Instruct/lora/sft/global_step500/"
                     "offloaded_tensors, 812.44 GB free on target filesystem...")
    assert copy is not None and (copy.pause, copy.ended) == ("checkpoint", False)
    _suspected_at_the_floor_after([recognise(x) for x in qwen[2:9]] + [copy, recognise(qwen[9])],
                                  [0, 0, 0, 0, 0, 0, 0, 0, 1000])


def _qwen_stepping():
    """The Qwen2.5 run's real lines (sources.md), and a tracker whose pod has stepped every 10 s five times."""
    clock = Clock(1000.0)
    t = tracker(clock, [])
    for step in range(5):
        clock.t += 10
        t.observe(REF, [Mark(clock.t, Progress(step, trainer="nanogpt"))])
    return lines("deepspeed_save_qwen25_fudan.log"), clock, t


def test_a_restored_negative_file_count_does_not_hold_a_pause_a_commit_ends():
    """A state file edited by hand or damaged (`files: -3`, restored as it is): a rank's commit must end the pause as
    with no file in flight (was: any count but 0 held the pause, a hang suspected only pause_seconds on).  REAL lines:
    the Qwen2.5 run's (sources.md) `[Rank 0] Saving model checkpoint:` and its commit."""
    text, clock, t = _qwen_stepping()
    t.observe(REF, [Mark(clock.t, recognise(text[3]))])
    assert t.pods[REF.uid].paused is not None
    state = t.to_state()
    state[REF.uid]["files"] = -3
    t = tracker(clock, [])
    assert t.restore(state) == [] and t.pods[REF.uid].files == 0 and t.pods[REF.uid].paused is not None
    commit = recognise(text[9])
    assert commit.ended and commit.rank
    t.observe(REF, [Mark(clock.t + 1, commit)])
    assert t.pods[REF.uid].paused is None


def _suspected_at_the_floor_after(said: list, gaps: list) -> None:
    """A pod stepping every 10 s, then the lines `said` (each `gaps` seconds after the one before), then silence: nothing
    raised before the floor after the last line (nor while `said`), a hang suspected at it (not pause_seconds on)."""
    events: list = []
    clock = Clock(1000.0)
    t = tracker(clock, events)
    for step in range(5):
        clock.t += 10
        t.observe(REF, [Mark(clock.t, Progress(step, trainer="nanogpt"))])
    for gap, p in zip(gaps, said, strict=True):
        clock.t += gap
        t.tick()
        t.observe(REF, [Mark(clock.t, p)])
    t.tick()
    assert events == [] and t.pods[REF.uid].paused is None
    clock.t += HangSettings().floor_seconds - 1
    t.tick()
    assert events == []
    clock.t += 1
    t.tick()
    assert [e[0] for e in events] == [HANG_REASON]


@pytest.mark.parametrize("name, line", [
    ("moddednanogpt_h100_master.log", 21),  # `step:1480/1480 val_loss:3.2786 ...` (a progress row's, Rule.ends)
    ("verl_rldecision_ppo.log", 2),  # `(TaskRunner pid=247607) step:0 - val-aux/...`
    ("verl_rldecision_sft.log", 8),  # `step:105 - val/loss:0.0584...`
    ("lerobot_examples_eval.log", 2),  # `... step:100 smpl:6K ... eval_s:120.266`
    ("fairseq_940.log", 5), ("fairseq_514.log", 2), ("fairseq_301.log", 2),  # `| valid on 'valid' subset | valid_loss ...`
    *(("nemorl_platform_943_dpo.log", n) for n in range(6, 18)),  # its results block, `📊 Validation Results` to the time
    ("st_trainer_2449_eval.log", 11),  # `{'eval_loss': 1.249..., ..., 'eval_runtime': 49.1914, ..., 'epoch': 0.44}`
])
def test_an_evaluation_line_printed_when_it_is_done_ends_the_pause(name, line):
    """REAL (sources.md): each trainer prints these lines once its evaluation is over (modded-nanogpt's val_loss after its
    val batches, verl's `val/` metrics after _validate / the SFT val loop, LeRobot's eval_s, fairseq's summary after its
    valid batches, NeMo-RL's block after its validation, the Hugging Face Trainer's dict after evaluate()), then training
    goes on.  Read as an evaluation announced before (the Trainer's dict as nothing), each held a pod 'paused' for
    pause_seconds: a hang right after it was suspected an hour on."""
    said = recognise(lines(name)[line - 1])
    assert said is not None and (said.pause, said.ended, said.moved, said.step) == ("evaluation", True, False, None)


def test_an_evaluation_still_running_still_announces_one():
    """REAL: fairseq's validation batches (`| epoch 004 | valid on 'valid' subset  1000 / 1311 loss=3.24`), NeMo-RL's
    `▶ Starting validation at step 2 ...`; the Trainer's `***** Running Evaluation *****`; MMEngine's `Epoch(val)` batches:
    the evaluation is under way, a pause starts (or goes on)."""
    for start in (lines("fairseq_301.log")[0], lines("fairseq_301.log")[11], lines("nemorl_platform_943_dpo.log")[2],
                  "***** Running Evaluation *****", "Epoch(val) [10][4000/4809]    eta: 0:00:46  time: 0.0436"):
        said = recognise(start)
        assert said is not None and said.pause == "evaluation" and not said.ended, start


@pytest.mark.parametrize("name, first, last", [
    ("nemorl_platform_943_dpo.log", 3, 17),  # `▶ Starting validation`, its results block, `• Total validation time: 3.17s`
    ("st_trainer_2449_eval.log", 11, 11),  # after `***** Running Evaluation *****`, its `{'eval_loss': ...}` dict
])
def test_a_hang_right_after_a_validations_results_is_suspected_at_the_pace(name, first, last):
    """REAL (NeMo-RL nemo-platform #943, sentence-transformers #2449): a pod stepping every 10 s announces a validation,
    prints its results once done, then hangs.  Its results' lines after the first re-opened the pause (NeMo-RL's
    `• Validation sft_loss: 0.0000`, `• Total validation time: 3.17s`), the Trainer's dict was nothing: the pod stayed
    paused and was suspected pause_seconds (3600 s) on.  Now the results end the pause: suspected at the floor."""
    said = [recognise(text) for text in lines(name)[first - 1:last]]
    if name.startswith("st_"):
        said.insert(0, recognise("***** Running Evaluation *****"))
    said = [p for p in said if p is not None]
    _suspected_at_the_floor_after(said, [1] * len(said))


def test_diffusion_pipes_running_eval_is_an_announced_evaluation():
    """CONSTRUCTED from tdrussell/diffusion-pipe's train.py (`_evaluate`: rank 0 prints `Running eval`, then a bar without
    a name over 9 timestep quantiles of the eval set; every `eval_every_n_steps`): read as nothing before, so a pod
    stepping every 3 s was suspected at the floor (300 s) in a longer evaluation.  Now an evaluation pause: the
    allowance is `pause_seconds` from it, and the next `steps:` line (the pipeline engine's, #410's form) ends it."""
    assert recognise("Running eval") == Progress(None, trainer="", pause="evaluation", moved=False)
    assert recognise("Running evals for the suite") is None  # another word
    for announced, raised in ((True, []), (False, [HANG_REASON])):
        events: list = []
        clock = Clock(1000.0)
        t = tracker(clock, events)
        for n in range(1, 6):
            clock.t += 3.0
            t.observe(REF, [Mark(clock.t, recognise(f"steps: {n} loss: 0.0614 iter time (s): 3.000 samples/sec: 1.333"))])
        if announced:
            t.observe(REF, [Mark(clock.t, recognise("Running eval"))])
        for _ in range(20):  # 20 minutes of evaluation, then the next step
            clock.t += 60.0
            t.tick()
        assert [e[0] for e in events] == raised


def test_running_evaluations_is_still_an_announced_evaluation():
    """`running evaluation` was read wherever it began a word (`Running evaluations...`); diffusion-pipe's `Running eval`
    row ended it at a word's end, so an evaluation said in the plural was read as nothing again and a long one
    suspected at the floor.  CONSTRUCTED from noahcao/Pixel2Mesh's functions/evaluator.py (`Evaluator.evaluate`:
    `self.logger.info("Running evaluations...")`, the trainer's evaluation between epochs), its logger's prefix left
    out.  `Running evals` stays another word."""
    for line in ("Running evaluations...", "Running evaluation on 1000 samples", "Running eval"):
        said = recognise(line)
        assert said is not None and said.pause == "evaluation" and not said.moved, line
    assert recognise("Running evals for the suite") is None


def test_fairseqs_validation_is_a_pause_and_not_progress():
    """fairseq's `| epoch 005 | valid on 'valid' subset  1000 / 1311 loss=2.72` is a validation bar: a pause."""
    for name, count in (("fairseq_301.log", 4), ("fairseq_514.log", 2), ("fairseq_940.log", 1)):
        said = [recognise(x) for x in lines(name) if "valid on" in x]
        assert [p.pause for p in said] == ["evaluation"] * count


def test_colour_codes_and_validation_lines_of_torchtitan():
    """(synthetic, shaped like torchtitan's metrics line in colour, its default outside Slurm, and its validator's
    `validate step:` line): the colour codes between fields do not hide the step; validation is a pause."""
    line = "[titan] 2025-06-16 22:30:50,322 - root - INFO - \x1b[31mstep: 200  \x1b[32mloss:  6.1384  \x1b[33mmemory:"
    assert recognise(line) == Progress(200, None, "torchtitan")
    said = recognise("[titan] 2025-06-16 22:30:50,322 - root - INFO - \x1b[33mvalidate step: 200  \x1b[32mloss:  6.0")
    assert said.pause == "evaluation" and said.step is None


def test_a_log_mixing_two_trainers_keeps_the_printed_step_time():
    """Megatron-DeepSpeed (DeepSpeed #3742) prints Megatron's `iteration 34/ ... elapsed time per iteration (ms):
    4103.1` and DeepSpeed's `step=35` 3.8 s later: the spacing between two trainers' lines is no step time."""
    events: list = []
    clock = Clock()
    t = tracker(clock, events)
    for at, p in [(float(i), recognise(x)) for i, x in enumerate(lines("megatron_deepspeed_3742.log"))]:
        if p is not None:
            t.observe(REF, [Mark(at, p)])
    assert t.snapshot()["uid-0"]["step_seconds"] == pytest.approx(4.1031)
    t.observe(REF, [Mark(99.0, Progress(35, 4.2, "megatron"))])  # the same step again, its printed time kept
    assert t.snapshot()["uid-0"]["step_seconds"] == pytest.approx(4.2) and t.snapshot()["uid-0"]["advances"] == 2


def test_deepspeeds_pipeline_engine_line_gives_its_printed_iter_time():
    """REAL (tdrussell/diffusion-pipe #410, Wan 2.1 on 4 A6000s, 2025-09): DeepSpeed's pipeline engine prints `steps: 1 loss:
    0.0614 iter time (s): 531.283 samples/sec: 0.008` after the engine's `[Rank 0] step=1, ...` line.  Its step was read,
    its printed time not (None before: the step time came from the spacing of the two lines' steps, 536.9-537.7 s here);
    now the printed one, the same step again not a second advance.  Its later form puts a model's extra losses before the
    time (the `steps: 200 ... moe loss: 0.0405 iter time (s): 0.936 ...` a Megatron-DeepSpeed test script quotes)."""
    found = [p for p in map(recognise, lines("diffusionpipe_410_pipe.log")) if p is not None]
    assert [(p.step, p.seconds, p.trainer) for p in found] == [
        (n, s, "deepspeed") for n, t in ((1, 531.283), (2, 532.811), (3, 533.063), (4, 533.263)) for s in (None, t)]
    extra = recognise("steps: 200 loss: 5.5508 lm loss: 5.5103 moe loss: 0.0405 iter time (s): 0.936 samples/sec: 136.706")
    assert (extra.step, extra.seconds) == (200, pytest.approx(0.936))
    assert recognise("steps: 10 loss: 1.2345") == Progress(10, None, "deepspeed")  # a line without its time: the step
    events: list = []
    clock = Clock()
    t = tracker(clock, events, k=10, floor_seconds=1, min_steps=2)
    assert replay_any("diffusionpipe_410_pipe.log", t, clock) == 8
    snap = t.snapshot()["uid-0"]
    assert snap["step"] == 4 and snap["advances"] == 4 and snap["step_seconds"] == pytest.approx(533.263)
    assert events == []


def test_deepspeeds_throughput_line_is_no_progress():
    """DeepSpeed's ThroughputTimer line (`[timer.py:215:stop] epoch=0/micro_step=34/global_step=34,
    RunningAvgSamplesPerSec=...`, DeepSpeed #3742; its first era `[timer.py:189:stop] 0/40, SamplesPerSec=...`, #1825)
    is not read as progress, by decision: the engine has it printed by rank 0 only, at the same `steps_per_print`
    boundary as its `step=N` (engine.py: `tput_timer.stop(..., report_speed=report_progress)`), so it adds no pod and no
    moment that line does not give; its global_step is the timer's own count (0 when the engine is made,
    deepspeed/utils/timer.py), not the engine's `global_steps` that a resumed run restores, so beside `step=5001` it can
    say `global_step=1`: two advances per step, a median gap halved and a step time from the spacing divided by 5000;
    and its samples per second give no step time without the batch size, which it does not print."""
    throughput = [x for name in ("megatron_deepspeed_3742.log", "deepspeed_1825.log") for x in lines(name)
                  if "SamplesPerSec=" in x]
    assert len(throughput) == 3 and [recognise(x) for x in throughput] == [None] * 3


def test_a_tqdm_bar_rewritten_in_place_counts_its_last_state():
    bar = "\r".join(lines("lightning_3866.log"))  # what a non-tty tqdm writes: one line, \r between states
    assert recognise(bar).step == 1653


def test_cri_lines_give_their_time_and_text():
    """The pod-log source reads kubelet's envelope with the parsers' (parsers/envelope.py), not a copy of it."""
    env = cri("2024-07-25T07:00:00.500000000Z stdout F iter 10: loss 3.2202, time 893.76ms")
    assert env.timestamp == datetime(2024, 7, 25, 7, 0, 0, 500000, timezone.utc)
    assert recognise(env.message).step == 10
    assert cri("plain line") is None and cri("2024-07-25T07:00:00Z stdout X not a tag") is None
    # the pod-log source's progress path reads the message first and builds the envelope for a progress line only
    for line in ["2024-07-25T07:00:00.500000000Z stdout F iter 10: loss 3.2202, time 893.76ms",
                 "2024-07-25T07:00:00+02:00 stderr P step: 3  loss: 1.0", "plain line"]:
        split = cri_split(line)
        assert (split is None) == (cri(line) is None)
        if split is not None:
            assert split[0] == cri(line).message and finish(split[1]) == cri(line)


# ---- the tracker over real logs: their own timestamps as the clock -----------------------------------------

class Recorded(ProgressTracker):
    """The tracker, its Pod Events kept as (reason, message, type) in `events`."""

    def __init__(self, events: list, standing=(), **kw):
        super().__init__(Metrics(), **kw)
        self.events, self.standing = events, list(standing)

    def _keep(self, found):
        self.events += [(e.reason, e.message, e.type) for e in found]
        return found

    def observe(self, ref, marks):
        return self._keep(super().observe(ref, marks))

    def tick(self, live_uids=None, standing=(), readings=([], [])):
        return self._keep(super().tick(live_uids, standing or self.standing, readings))


def tracker(clock: Clock, events: list, **cfg) -> ProgressTracker:
    return Recorded(events, cfg=HangSettings(**cfg), clock=clock, alive=lambda: None)


REF = PodRef("train", "gpt-worker-0", "uid-0", "main")


def unpaused(p: Progress | None) -> Progress | None:
    """The line as a tracker that does not understand pauses would take it: its progress only."""
    if p is None or not p.moved:
        return None
    return replace(p, pause="")


def replay(name: str, t: ProgressTracker, clock: Clock, keep_pauses: bool = True) -> None:
    """Each line at its own timestamp (a line without one at the previous line's), ticking every second."""
    at = None
    for line in lines(name):
        m = _STAMP.search(line)
        if m:
            at = stamp_seconds(m)
        if at is None:
            continue
        clock.t = clock.t or at
        while clock.t + 1 <= at:
            clock.t += 1
            t.tick()
        clock.t = max(clock.t, at)
        p = recognise(line) if keep_pauses else unpaused(recognise(line))
        if p is not None:
            t.observe(REF, [Mark(at, p)])
    t.tick()


def test_real_healthy_stretches_with_an_announced_evaluation_and_checkpoint_raise_nothing():
    """nanoGPT #215: progress every ~11 s, then 45 s of evaluation (36 s, said only when done: `step 3000: ...
    val loss`) and a checkpoint save (`saving checkpoint to out`, 9 s). With k=4 (44 s) the stretch would read
    as a hang; the announcement stretches the allowance, so nothing is raised.  (nanoGPT says nothing before
    its evaluation: the silence until it says so must fit k x the median, one reason the default k is 10.)"""
    events: list = []
    clock = Clock()
    t = tracker(clock, events, k=4, floor_seconds=5, pause_seconds=120)
    replay("nanogpt_215_checkpoint.log", t, clock)
    assert events == []
    assert t.snapshot()["uid-0"]["step"] == 3060
    events_without: list = []
    clock2 = Clock()
    t2 = tracker(clock2, events_without, k=4, floor_seconds=5, pause_seconds=120)
    replay("nanogpt_215_checkpoint.log", t2, clock2, keep_pauses=False)  # the control: the pause not understood
    assert [e[0] for e in events_without] == [HANG_REASON, RESUMED_REASON]


# real logs with healthy stretches, their cadence from their own clocks (docs/hangs.md: "measured on real logs")
HEALTHY = ["nanogpt_215_checkpoint.log", "torchtitan_1287.log", "megatron_756.log",
           "metriclogger_accessory_48.log", "fairseq_940.log", "fairseq_514.log", "maxtext_8.log", "keras_10506.log",
           "keras_8680.log", "deepspeed_1825.log", "megatron_deepspeed_3742.log", "diffusionpipe_410_pipe.log"]


def replay_any(name: str, t: ProgressTracker, clock: Clock, tick: float = 1.0, keep_pauses: bool = True) -> int:
    """Each line at the time `when` gives it, ticking every `tick` seconds; the marks observed."""
    at, seen = None, 0
    for line in lines(name):
        at = when(line, at)
        p = recognise(line) if keep_pauses else unpaused(recognise(line))
        if at is None or p is None:
            continue
        clock.t = clock.t or at
        while clock.t + tick <= at:
            clock.t += tick
            t.tick()
        clock.t = max(clock.t, at)
        t.observe(REF, [Mark(at, p)])
        seen += 1
    t.tick()
    return seen


@pytest.mark.parametrize("name", HEALTHY)
def test_real_healthy_logs_raise_nothing_at_the_default_k(name):
    """Every real log kept here with a clock of its own, replayed at its own cadence through the tracker with the
    default k (10) and no floor to hide behind (1 s): healthy jitter, epoch ends, evaluations and saves raise
    nothing.  The control: the same pod silent past k x its median afterwards is suspected."""
    events: list = []
    clock = Clock()
    t = tracker(clock, events, k=10, floor_seconds=1, min_steps=2)
    assert replay_any(name, t, clock) >= 2
    assert events == []
    pod = t.pods["uid-0"]
    clock.t = pod.last + t.allowance(pod) + 1
    t.tick()
    assert [e[0] for e in events] == [HANG_REASON]


def test_a_count_within_the_epoch_going_back_is_an_advance_and_no_hang():
    """REAL (fairseq #301): fairseq's first era counts batches within the epoch, `| epoch 005  8000 / 8223 ...` then,
    after the epoch's validation, `| epoch 006  1000 / 8223 ...`: the step goes back from 8000 to 1000, as every bar
    counting within its epoch does (Lightning's `Epoch 1: 1/18`, Ultralytics' bar).  Each line at the time its own
    figures give (1000 batches x `wpb` words per batch / `wps` words per second: ~937 s): the step going back is an
    advance (the job moved), not "the same step again" and not a restart; it yields no step time (no negative or
    huge spacing: the step time stays the forward spacing's, ~0.94 s per batch, so no straggler comes of it either);
    nothing is raised at the default k, and the pod silent afterwards is suspected."""
    events: list = []
    clock = Clock(1000.0)
    t = tracker(clock, events, k=10, floor_seconds=1, min_steps=2)
    steps = []
    for x in lines("fairseq_301.log"):
        p = recognise(x)
        m = re.search(r"wps=(\d+), wpb=(\d+)", x)
        if m:
            clock.t += 1000 * int(m.group(2)) / int(m.group(1))
            t.tick()
        if p is not None:
            t.observe(REF, [Mark(clock.t, p)])
            steps.append(t.snapshot()["uid-0"]["step"] if p.moved else None)
    snap = t.snapshot()["uid-0"]
    assert [s for s in steps if s is not None] == [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 1000]
    assert snap["advances"] == 9 and snap["step_seconds"] == pytest.approx(0.94, abs=0.01)
    assert events == []
    clock.t = t.pods["uid-0"].last + t.allowance(t.pods["uid-0"]) + 1
    t.tick()
    assert [e[0] for e in events] == [HANG_REASON]


def test_real_fairseq_validation_fits_a_tight_k():
    """fairseq #940: a line every 91-92 s, and 107 s across a validation (`valid on 'valid' subset`, said when
    it is over, so its time is not known here): even with that line not understood, k=1.2 holds on the real
    stretch and k=1.1 would not; the default k is 10."""
    for k, raised in ((1.2, []), (1.1, [HANG_REASON, RESUMED_REASON])):
        events: list = []
        clock = Clock()
        replay_any("fairseq_940.log", tracker(clock, events, k=k, floor_seconds=1, min_steps=2), clock,
                   keep_pauses=False)
        assert [e[0] for e in events] == raised


def test_real_torchtitan_jitter_raises_nothing_and_gives_step_time():
    """torchtitan #1287: a line every 10 steps (13.9-15.6 s apart, GC and profiler lines between): k=3 holds."""
    events: list = []
    clock = Clock()
    t = tracker(clock, events, k=3, floor_seconds=5)
    replay("torchtitan_1287.log", t, clock)
    assert events == []
    snap = t.snapshot()["uid-0"]
    assert snap["step_seconds"] == pytest.approx(1.40, abs=0.05)  # 10 steps per line
    assert t.metrics.registry.get_sample_value("gpu_npd_workload_step_seconds", {
        "namespace": "train", "pod": "gpt-worker-0", "job": "gpt"}) == pytest.approx(snap["step_seconds"])


def test_silence_past_k_medians_raises_once_then_clears_on_progress():
    events: list = []
    clock = Clock(1000.0)
    t = tracker(clock, events, k=5, floor_seconds=10, min_steps=3)
    for step in range(5):  # (synthetic: a step every 2 s)
        clock.t = 1000.0 + 2 * step
        t.observe(REF, [Mark(clock.t, Progress(step, 2.0, "nanogpt"))])
    clock.t += 9.9
    t.tick()
    assert events == []  # max(5 x 2 s, 10 s) = 10 s not yet
    clock.t += 0.2
    t.tick()
    t.tick()
    (reason, message, type_), = events
    assert reason == HANG_REASON and type_ == "Warning" and "step 4" in message and "= 10 s" in message
    assert "No hardware or fabric fault" in message
    gauge = {"namespace": "train", "pod": "gpt-worker-0", "job": "gpt"}
    assert t.metrics.registry.get_sample_value("gpu_npd_workload_hang_suspected", gauge) == 1
    t.observe(REF, [Mark(clock.t, Progress(4, None, "nanogpt"))])  # the same step again is not progress
    assert len(events) == 1
    t.observe(REF, [Mark(clock.t, Progress(5, 2.0, "nanogpt"))])
    assert events[-1][0] == RESUMED_REASON and events[-1][2] == "Normal"
    assert t.metrics.registry.get_sample_value("gpu_npd_workload_hang_suspected", gauge) == 0


def test_a_node_fault_is_named_as_the_likely_cause():
    from agent.health import Problem
    fault = Problem(id="xid79", subject="gpu:0000:5d:00", kind="xid", condition="GPUUnhealthy",
                    reason="Xid79FallenOffBus", severity="fatal", attribution="hardware", action="", message="",
                    clear="reset", first_seen=0.0, last_seen=0.0)
    events: list = []
    clock = Clock()
    t = Recorded(events, [fault], cfg=HangSettings(k=1, floor_seconds=1), clock=clock)
    for step in range(4):
        clock.t = float(step)
        t.observe(REF, [Mark(clock.t, Progress(step))])
    clock.t = 10
    t.tick()
    assert "Xid79FallenOffBus on 0000:5d:00" in events[0][1]


def test_a_pod_never_progressing_or_whose_processes_ended_is_not_suspected():
    events: list = []
    clock = Clock()
    t = Recorded(events, cfg=HangSettings(k=1, floor_seconds=1), clock=clock, alive=lambda: {"other-uid"})
    t.observe(PodRef("a", "two-steps", "uid-2", "c"), [Mark(0, Progress(1)), Mark(1, Progress(2))])
    for step in range(4):
        t.observe(REF, [Mark(float(step), Progress(step))])
    clock.t = 100
    t.tick()
    assert events == [] and t.finished == 1 and "uid-0" not in t.pods  # finished: its processes are gone


def test_a_suspected_pod_whose_processes_end_is_forgotten_and_its_gauge_goes():
    """A hang suspected, then the job ended (PyTorch's watchdog kills it 10 minutes in; a Job's pod stays, Failed, until
    it is deleted): the gauge stayed 1, so `WorkloadHangSuspected` fired for a pod with nothing running until someone
    deleted it.  A suspected pod is looked at again every RECHECK seconds (one /proc pass for all of them): ended, it is
    forgotten as a finished one is, its series removed.  Running, it stays suspected."""
    from agent.progress import RECHECK

    events: list = []
    clock = Clock()
    running = {"uid-0"}
    passes = []
    t = Recorded(events, cfg=HangSettings(k=1, floor_seconds=10), clock=clock,
                 alive=lambda: passes.append(clock.t) or set(running))
    other = PodRef("train", "gpt-worker-1", "uid-1", "main")
    running.add("uid-1")
    for step in range(4):  # (synthetic: a step a second, both pods)
        clock.t = float(step)
        t.observe(REF, [Mark(clock.t, Progress(step))])
        t.observe(other, [Mark(clock.t, Progress(step))])
    for second in range(4, 4 + 10 * 60):
        clock.t = float(second)
        t.tick()
        if second == 300:
            running.discard("uid-0")  # the watchdog ended gpt-worker-0's job
    gauge = {"namespace": "train", "pod": "gpt-worker-0", "job": "gpt"}
    assert [e[0] for e in events] == [HANG_REASON] * 2
    assert t.metrics.registry.get_sample_value("gpu_npd_workload_hang_suspected", gauge) is None
    assert "uid-0" not in t.pods and t.finished == 1
    assert t.pods["uid-1"].suspected is not None  # still running: still suspected
    assert len(passes) <= 2 + 10 * 60 / RECHECK  # one pass at the suspicion, then one a RECHECK


def test_tracked_pods_are_bounded_and_deleted_pods_forgotten():
    clock = Clock()
    t = ProgressTracker(Metrics(), HangSettings(max_pods=8), clock=clock)
    for i in range(20):
        t.observe(PodRef("ns", f"p{i}", f"u{i}", "c"), [Mark(0, Progress(1, 1.0)), Mark(1, Progress(2, 1.0))])
    assert len(t.pods) == 8 and t.evictions == 12 and set(t.pods) == {f"u{i}" for i in range(12, 20)}
    t.tick(live_uids={"u19"})
    assert list(t.pods) == ["u19"]
    samples = [s for f in t.metrics.registry.collect() if f.name == "gpu_npd_workload_step_seconds" for s in f.samples]
    assert [s.labels["pod"] for s in samples] == ["p19"]  # series of forgotten pods are removed


def test_settings_are_checked_with_a_clear_error():
    """The blocks are declared (agent/hangsettings.py): agent/keyspec checks them with the configuration, and every
    error names the key and the value in one line."""
    assert load(env={}, flags={"workload_hang": {"k": 3, "floor_seconds": 4}}).workload_hang == \
        HangSettings(k=3.0, floor_seconds=4.0)
    for bad, says in [({"k": 0}, "workload_hang.k: expected a number > 0, got 0"),
                      ({"kk": 1}, "workload_hang.kk: unknown key (known: enabled, k, "),
                      ({"enabled": "yes"}, "workload_hang.enabled: expected true or false, got 'yes'"),
                      ({"min_steps": 1.5}, "workload_hang.min_steps: expected an integer, got 1.5"),
                      (3, "workload_hang: expected a mapping, got 3"),
                      ({"floor_seconds": -1}, "workload_hang.floor_seconds: expected a number > 0, got -1")]:
        with pytest.raises(ConfigError, match="^" + re.escape(says)):
            load(env={}, flags={"workload_hang": bad})
    with pytest.raises(ConfigError, match=re.escape("peer_outliers.polls: expected an integer, got 2.5")):
        load(env={}, flags={"peer_outliers": {"polls": 2.5}})
    with pytest.raises(ConfigError, match="^peer_outliers.1: unknown key "):  # keys of any type are named
        load(env={}, flags={"peer_outliers": {1: 2, "a": 3}})
    assert load(env={"GPU_NPD_WORKLOAD_HANG__K": "4"}, flags={}).workload_hang.k == 4
    with pytest.raises(ConfigError, match="^GPU_NPD_PEER_OUTLIERS__K: peer_outliers.k: expected a number > 0"):
        load(env={"GPU_NPD_PEER_OUTLIERS__K": "0"}, flags={})


# ---- the source: progress lines from the pod logs it follows --------------------------------------------

def test_the_pod_log_source_hands_on_progress_with_cri_times(tmp_path):
    root = tmp_path / "pods"
    shutil.copytree(PODS, root)
    src = PodLogSource(str(root))
    src.discover()
    src.poll()
    log = root / "train_llama-70b-worker-3_7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d" / "pytorch" / "0.log"
    with open(log, "a") as fh:
        for i, text in enumerate(lines("nanogpt_178.log")[:3] + ["saving checkpoint to out"]):
            fh.write(f"2024-07-25T07:00:0{i}.000000000Z stdout F {text}\n")
    assert src.poll() == []  # no failure findings
    (ref, marks), = src.take_progress()
    assert ref.pod == "llama-70b-worker-3" and [p.step for _, p in marks] == [0, 10, 20, None]
    assert marks[-1][1].pause == "checkpoint" and marks[1][0] - marks[0][0] == 1.0
    assert src.take_progress() == []


def test_a_restarted_container_is_learnt_anew_not_judged_by_the_old_runs_pace(tmp_path):
    """A container started again (its next log file, `1.log` beside `0.log`, in the same pod) is a new process: it
    loads, compiles and warms up before its first step.  Judged by the old run's pace and last line, its start-up
    read as a hang (20 minutes of checkpoint loading past max(10 x 9 s, 300 s)).  Now the source says the container
    started again and the tracker learns the new run's pace anew (`min_steps` advances of its own); a rotation (the
    same path, a new inode) is no restart.  The lines: nanoGPT #178's, real (sources.md), in CRI envelopes."""
    root = tmp_path / "pods"
    shutil.copytree(PODS, root)
    cdir = root / f"train_llama-70b-worker-3_{UID}" / "pytorch"
    src = PodLogSource(str(root))
    src.discover()
    src.poll()
    steps = [x for x in lines("nanogpt_178.log") if x.startswith("iter ")]
    events: list = []
    clock = Clock(0.0)
    t = tracker(clock, events)  # the shipped settings

    def write(name: str, texts: list[str], start: float) -> None:
        with open(cdir / name, "a") as fh:
            for i, text in enumerate(texts):
                at = datetime.fromtimestamp(start + 9 * i, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                fh.write(f"{at} stdout F {text}\n")

    def feed(at: float) -> None:  # what the pipeline does with one batch of the source
        src.discover()
        src.poll()
        clock.t = at
        for ref in src.take_restarted():
            t.restarted(ref)
        for ref, marks in src.take_progress():
            t.observe(ref, [Mark(w, p) for w, p in marks])

    write("0.log", steps[:6], 1000.0)
    feed(1045.0)
    assert t.snapshot()[UID]["advances"] == 6
    (cdir / "0.log").rename(cdir / "0.log.20240725-070000")  # the kubelet rotates the file: the same run
    (cdir / "0.log").write_text("")
    write("0.log", steps[6:8], 1054.0)
    feed(1063.0)
    assert src.take_restarted() == [] and t.snapshot()[UID]["advances"] == 8
    (cdir / "1.log").write_text("")  # the container crashed and was started again
    feed(1070.0)
    for second in range(1070, 1070 + 20 * 60, 10):  # twenty minutes loading its checkpoint, compiling
        clock.t = second
        t.tick()
    assert events == []
    write("1.log", steps[:3], 2300.0)  # its first steps
    feed(2318.0)
    clock.t = 2318.0 + 300
    t.tick()
    assert [e[0] for e in events] == [HANG_REASON]  # then silent past the floor: judged at its own pace
    write("1.log", steps[3:4], 2700.0)
    feed(2700.0)
    assert events[-1][0] == RESUMED_REASON
    # a suspicion standing when the container starts again stays until the new run's first step clears it
    clock.t = 2700.0 + 300
    t.tick()
    assert events[-1][0] == HANG_REASON
    (cdir / "2.log").write_text("")
    feed(3100.0)
    gauge = {"namespace": "train", "pod": "llama-70b-worker-3", "job": "llama-70b"}
    assert t.metrics.registry.get_sample_value("gpu_npd_workload_hang_suspected", gauge) == 1
    write("2.log", steps[:1], 3500.0)
    feed(3500.0)
    assert events[-1][0] == RESUMED_REASON
    assert t.metrics.registry.get_sample_value("gpu_npd_workload_hang_suspected", gauge) == 0


def test_a_failed_listing_of_the_pod_logs_is_no_pod_deleted(tmp_path, monkeypatch):
    """A listing of the pod log tree that fails for a moment (EMFILE, EIO: not the tree gone) says nothing of the pods
    in it.  It read as every pod deleted: their files released (read again from their start at the next scan, every
    line handed on again), `pods` emptied (the hang tracker forgot every pod, its suspicions' gauges with them).  Now
    the files and pods followed stay as they are.  The lines: nanoGPT #178's, real (sources.md)."""
    import errno
    import os

    from agent.sources import podlogs

    root = tmp_path / "pods"
    shutil.copytree(PODS, root)
    pod_dir = root / f"train_llama-70b-worker-3_{UID}"
    log = pod_dir / "pytorch" / "0.log"
    src = PodLogSource(str(root))
    src.discover()
    src.poll()
    with open(log, "a") as fh:
        for i, text in enumerate(lines("nanogpt_178.log")[:3]):
            fh.write(f"2024-07-25T07:00:0{i}.000000000Z stdout F {text}\n")
    src.poll()
    assert len(src.take_progress()) == 1
    listed = dict(src.pods), set(src.tails)
    real = os.listdir
    for failing in (str(root), str(pod_dir), str(pod_dir / "pytorch")):
        def listdir(path, failing=failing):
            if str(path) == failing:
                raise OSError(errno.EMFILE, "Too many open files")
            return real(path)
        monkeypatch.setattr(podlogs.os, "listdir", listdir)
        src.discover()
        assert (dict(src.pods), set(src.tails)) == listed, failing
        monkeypatch.setattr(podlogs.os, "listdir", real)
        src.discover()
        src.poll()
        assert src.take_progress() == [] and src.take_restarted() == [], failing  # nothing read twice


def test_the_pipeline_hands_a_restart_to_the_tracker_before_the_new_runs_lines(tmp_path):
    """WorkloadFindings.restarted reaches the tracker first: the new run's lines in the same batch are its first
    advances (the old run's pace is gone)."""
    import io

    from agent.app import build
    from parsers.model import Boot, WorkloadFindings

    (tmp_path / "pods").mkdir()  # pod logs followed (the tracker is built only with them)
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path), "fallback_log_files": [],
                              "fabricmanager_log": "", "imex_log": "", "nvml": "off", "mode": "off",
                              "pod_logs_root": str(tmp_path / "pods")})
    agent = build(cfg, out=io.StringIO(), boot=Boot("this-boot", 1_000_000_000.0))
    steps = [recognise(x) for x in lines("nanogpt_178.log") if x.startswith("iter ")]
    agent.pipeline.process(WorkloadFindings([], progress=[(REF, [(9.0 * i, p) for i, p in enumerate(steps[:5])])]))
    assert agent.pipeline.progress.snapshot()["uid-0"]["advances"] == 5
    agent.pipeline.process(WorkloadFindings([], progress=[(REF, [(100.0, steps[0])])], restarted=[REF]))
    assert agent.pipeline.progress.snapshot()["uid-0"]["advances"] == 1


def test_another_containers_restart_leaves_the_trainers_pace():
    """A sidecar started again (its own new log file) says nothing of the trainer's process: the pod is still
    judged by what was learnt of the container whose progress lines it reads."""
    events: list = []
    clock = Clock(0.0)
    t = tracker(clock, events, k=5, floor_seconds=10)
    for step in range(5):  # (synthetic: a step every 2 s)
        clock.t = 2.0 * step
        t.observe(REF, [Mark(clock.t, Progress(step, 2.0, "nanogpt"))])
    t.restarted(replace(REF, container="log-shipper"))
    clock.t += 10
    t.tick()
    assert [e[0] for e in events] == [HANG_REASON]


# ---- through the real process -------------------------------------------------------------------------

UID = "7a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
LABELS = {"namespace": "train", "pod": "llama-70b-worker-3", "job": "llama-70b"}


def _stepping_pod(tmp_path):
    """The fixture pod log tree with a live process of llama-70b-worker-3 (a finished job is never suspected);
    returns the tree and `write(n)`: the n-th real nanoGPT step line, stamped now."""
    root = tmp_path / "pods"
    shutil.copytree(PODS, root)
    proc = tmp_path / "proc" / "4242"
    proc.mkdir(parents=True)
    proc.joinpath("cgroup").write_text(f"0::/kubepods.slice/kubepods-pod{UID.replace('-', '_')}.slice/"
                                       "cri-containerd-" + "a" * 64 + ".scope\n")
    log = root / f"train_llama-70b-worker-3_{UID}" / "pytorch" / "0.log"
    steps = [x for x in lines("nanogpt_178.log") if x.startswith("iter ")]

    def write(n: int) -> None:
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f000Z")
        with open(log, "a") as fh:
            fh.write(f"{stamp} stdout F {steps[n]}\n")
    return root, write


def _stop_stepping(a, api, write) -> dict:
    """Four steps 1 s apart (the floor, 4 s, decides the silence's bound), then silence: the suspicion (metric, Pod
    Event) within 30 s; its Event."""
    a.wait_for(lambda: a.value("gpu_npd_source_up", source="pods") == 1, timeout=30, what="pod source")
    a.wait_pods_listed()  # the first scan has taken the existing logs as history
    for n in range(4):
        write(n)
        time.sleep(1)
    stopped = time.time()
    a.wait_for(lambda: a.value("gpu_npd_workload_hang_suspected", **LABELS) == 1, timeout=30, what="suspicion")
    assert time.time() - stopped < 30
    a.wait_for(lambda: any(e["reason"] == HANG_REASON for e in api.events()), timeout=20, what="pod event")
    ev = next(e for e in api.events() if e["reason"] == HANG_REASON)
    assert ev["involvedObject"]["name"] == "llama-70b-worker-3" and ev["type"] == "Warning"
    assert "No training progress" in ev["message"] and "step 30" in ev["message"]
    return ev


def test_the_agents_tracker_measures_silences_on_a_monotonic_clock(tmp_path):
    """A wall-clock step forward (NTP stepping a node's clock, a VM's clock set after a pause) is no silence.  The
    agent's tracker ran on the wall clock (build()'s time.time), so a step of 20 minutes read every tracked pod as silent
    that long at once: one false WorkloadHangSuspected per training pod of the node, shown here on a tracker given a
    wall clock.  The agent's tracker now measures on time.monotonic; a clock handed to build() (a test's) is still the
    tracker's."""
    from agent.app import build
    events: list = []
    wall = Clock(1_900_000_000.0)
    t = tracker(wall, events, k=10, floor_seconds=300)
    for step in range(5):
        wall.t += 2
        t.observe(REF, [Mark(wall.t, Progress(step, 2.0, "nanogpt"))])
    wall.t += 1200  # the wall clock stepped 20 minutes forward; 0 s passed
    t.tick()
    assert [e[0] for e in events] == [HANG_REASON]  # what a wall clock does
    (tmp_path / "pods").mkdir()  # pod logs followed (the tracker is built only with them)
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "fallback_log_files": [], "state_dir": str(tmp_path),
                              "nvml": "off", "pod_logs_root": str(tmp_path / "pods")})
    assert build(cfg, out=io.StringIO()).pipeline.progress.clock is time.monotonic
    assert build(cfg, clock=lambda: 5.0, out=io.StringIO()).pipeline.progress.clock() == 5.0


def test_agent_process_suspects_a_pod_that_stops_and_clears_when_it_resumes(tmp_path):
    """Done-when of issue 27: steps every 1 s (real nanoGPT lines, timing synthetic), then silence: with k=3,
    floor 4 s, WorkloadHangSuspected (Pod Event + metric) within 30 s; steps again clear it.  No kubelet here:
    the verdict says the pod's GPUs are not known."""
    from apiserver_double import ApiDouble
    from harness import AgentProc

    root, write = _stepping_pod(tmp_path)
    with ApiDouble() as api:
        api.add_node("gpu-node-1", gpus=0)
        conf = tmp_path / "gpu-npd.yaml"
        conf.write_text(yaml.safe_dump({"mode": "observe", "kubernetes": {"api_server": api.url}, "nvml": "off",
                                        "pod_logs_root": str(root), "proc_root": str(tmp_path),
                                        "workload_hang": {"k": 3, "floor_seconds": 4}}))
        a = AgentProc(tmp_path, "--config", str(conf))
        ev = _stop_stepping(a, api, write)
        assert "This pod's GPUs are not known" in ev["message"]
        assert a.value("gpu_npd_workload_step_seconds", **LABELS) == pytest.approx(0.8938, abs=0.01)
        write(4)
        a.wait_for(lambda: a.value("gpu_npd_workload_hang_suspected", **LABELS) == 0, timeout=20, what="cleared")
        a.wait_for(lambda: any(e["reason"] == RESUMED_REASON for e in api.events()), timeout=20, what="resumed")
        assert api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "False"  # never a node condition
        assert a.stop()[0] == 0


def test_agent_process_verdict_names_the_pods_own_gpus_from_the_kubelet(tmp_path):
    """The same silence on a node of eight (stand-in) H100s: the stand-in kubelet says the pod holds GPUs 2 and 3,
    which run pinned (utilisation 100 %) while the others idle, and GPU 0 (another pod's) has fallen off the bus
    (Xid 79).  The verdict speaks of GPUs 2 and 3 only and does not blame GPU 0's fault on this pod.  All values
    synthetic."""
    from apiserver_double import ApiDouble
    from harness import AgentProc
    from telemetry_kit import hgx_scenario
    from test_podfault import StandInKubelet, response

    scen = hgx_scenario(timeline=[{"at": 0, "gpu": i, "set": {"utilization_gpu": 100, "clocks_event_mask": 0,
                                                                "power_watts": 690}} for i in (2, 3)]
                        + [{"at": 0, "gpu": 0, "xid": 79}])
    uuids = [g["uuid"] for g in scen["gpus"]]
    (tmp_path / "h100.yaml").write_text(yaml.safe_dump(scen))
    root, write = _stepping_pod(tmp_path)
    kubelet = StandInKubelet(response([("train", "llama-70b-worker-3", uuids[2:4], []),
                                       ("train", "other-worker", uuids[0:2], [])]))
    try:
        with ApiDouble() as api:
            api.add_node("gpu-node-1")
            conf = tmp_path / "gpu-npd.yaml"
            conf.write_text(yaml.safe_dump({
                "mode": "observe", "nvml": f"fake:{tmp_path / 'h100.yaml'}", "sysfs_root": str(tmp_path / "nosys"),
                "poll_seconds": 0.5, "pod_logs_root": str(root), "proc_root": str(tmp_path),
                "workload_hang": {"k": 3, "floor_seconds": 4},
                "kubernetes": {"api_server": api.url, "pod_resources_socket": kubelet.socket}}))
            a = AgentProc(tmp_path, "--config", str(conf))
            a.wait_for(lambda: a.value("gpu_npd_xid_errors_total", xid="79") == 1, timeout=30, what="Xid 79")
            said = _stop_stepping(a, api, write)["message"]
            assert "Its GPUs 2, 3 (per the kubelet): GPU power 690 W over 2 GPUs. GPU utilisation 100 % " \
                   "(pinned: kernels running without progress" in said
            assert "No hardware or fabric fault stands on this pod's GPUs and rails" in said
            assert "Not this pod's: Xid79" in said
            assert kubelet.calls >= 1
            assert a.stop()[0] == 0
    finally:
        kubelet.close()


def _gpu(i: int, **values) -> Reading:
    return Reading("gpu", f"gpu:0000:{0x18 + i:02x}:00", {"gpu_index": str(i), "uuid": f"GPU-synthetic-{i}",
                                                          "pci_bus_id": f"0000:{0x18 + i:02x}:00"}, values)


def _rail(i: int, words: float) -> Reading:
    return Reading("ib_port", f"ib:mlx5_{i}/1", {"device": f"mlx5_{i}", "port": "1", "netdev": f"ibp{i}s0",
                                                 "pci_bus_id": f"0000:{0x0c + i:02x}:00.0"},
                   {"counters/port_xmit_data": words, "counters/port_rcv_data": words})


def test_the_verdict_says_what_the_nodes_devices_did_when_the_pods_are_unknown():
    """Synthetic readings in the collectors' shapes: idle GPUs and rails whose data counters stood still."""
    from agent.progress import evidence

    def poll(words: float):
        return [_gpu(i, power_watts=71.0 + i) for i in range(8)] + [_rail(i, words) for i in range(4)]
    said = evidence(None, [], poll(1e9), poll(1e9))
    assert said.startswith("This pod's GPUs are not known (the kubelet's PodResources API has not named them); "
                           "the node's 8 GPUs: GPU power 71-78 W over 8 GPUs (idle). "
                           "RDMA data counters unchanged over the last poll on 4 of 4 ports (the node's rails). ")
    assert evidence(None, [], [], []).startswith("This pod's GPUs are not known (the kubelet's PodResources API has "
                                                 "not named them). No hardware or fabric fault stands on this node")
    gpus = lambda *util: [_gpu(i, power_watts=690.0, utilization_gpu=u) for i, u in enumerate(util)]  # noqa: E731
    pinned = evidence(None, [], [], gpus(100, 99, 100))
    assert "GPU utilisation 99-100 % (pinned: kernels running without progress" in pinned
    assert "GPU utilisation 0-2 % (idle: no kernel running" in evidence(None, [], [], gpus(0, 2, 0))
    assert "GPU utilisation 40-100 %." in evidence(None, [], [], gpus(40, 100))  # mixed: says nothing more
    events: list = []
    clock = Clock()
    t = tracker(clock, events, k=1, floor_seconds=1)
    for step in range(4):
        clock.t = float(step)
        t.observe(REF, [Mark(clock.t, Progress(step))])
    clock.t = 10
    t.tick(readings=(poll(1e9), poll(1e9)))
    assert "(idle). RDMA data counters unchanged" in events[0][1] and "No hardware or fabric fault" in events[0][1]
    assert "the node's 8 GPUs" in events[0][1]


def test_the_verdict_says_whether_the_gpus_pcie_and_nvlink_moved():
    """Issue 27: "PCIe / NVLink throughput flat" supports a hang.  Synthetic readings in the collector's shapes
    (agent/gpu/interface.py: PCIe in B/s over NVML's sample, NVLink data counters in KiB since driver load):
    two GPUs whose NVLink counters stood still and whose PCIe is quiet, one that still moves data."""
    from agent.progress import evidence

    def poll(kib: list[float], pcie: list[float]):
        return [_gpu(i, pcie_tx_bytes_per_second=b / 2, pcie_rx_bytes_per_second=b / 2, nvlink_tx_kib=k,
                     nvlink_rx_kib=k) for i, (k, b) in enumerate(zip(kib, pcie))]
    said = evidence(None, [], poll([5e6, 5e6, 5e6], [0, 0, 0]), poll([5e6, 5e6, 9e6], [2e6, 1e6, 3e9]))
    assert "PCIe traffic 1-3000 MB/s (quiet on 2 of 3 GPUs)." in said
    assert "NVLink data counters unchanged over the last poll on 2 of 3 GPUs." in said
    first = evidence(None, [], [], poll([5e6], [3e9]))  # no poll before: nothing said of NVLink
    assert "PCIe traffic 3000 MB/s." in first and "NVLink" not in first


def test_the_verdict_names_the_pods_own_gpus_and_rails():
    """The pod holds GPUs 2 and 3 and rail mlx5_1 (synthetic): its GPUs are pinned while the node's others idle,
    and its rail stood still while the node's others moved; the verdict says so of its own devices only."""
    from agent.podresources import Owned
    from agent.progress import evidence

    owned = Owned(frozenset({"gpu-synthetic-2", "gpu-synthetic-3"}), frozenset({"mlx5_1"}))
    before = [_gpu(i, power_watts=70.0) for i in range(8)] + [_rail(i, 1e9) for i in range(4)]
    after = ([_gpu(i, power_watts=690.0 if i in (2, 3) else 70.0, utilization_gpu=100 if i in (2, 3) else 0)
              for i in range(8)] + [_rail(i, 1e9 if i == 1 else 2e9) for i in range(4)])
    said = evidence(owned, [], before, after)
    assert said.startswith("Its GPUs 2, 3 (per the kubelet): GPU power 690 W over 2 GPUs. GPU utilisation "
                           "100 % (pinned: kernels running without progress")
    assert "unchanged over the last poll on 1 of 1 ports (its rails)." in said
    assert "No hardware or fabric fault stands on this pod's GPUs and rails or the node as a whole" in said
    # by PCI address (DRA claims name our GPU by it), and a pod without rails of its own: the node's rails
    said = evidence(Owned(frozenset({"0000:1a:00"}), source="its compute processes"), [], before, after)
    assert said.startswith("Its GPU 2 (per its compute processes): GPU power 690 W over 1 GPU.")
    assert "on 1 of 4 ports (the node's rails (none allocated to this pod))." in said
    # the kubelet named GPUs NVML did not read (NVML off): the node's readings, said so
    said = evidence(Owned(frozenset({"gpu-elsewhere"})), [], before, after)
    assert said.startswith("This pod's GPUs (1 per the kubelet) were not read in the last poll; the node's 8 GPUs:")


def test_a_fault_on_the_pods_gpu_or_the_node_is_its_cause_one_on_another_pods_gpu_is_not():
    from agent.podresources import Owned
    from agent.progress import evidence

    def fault(subject: str, reason: str = "Xid79FallenOffBus", **details) -> Problem:
        return Problem(f"{subject}|{reason}", subject, "xid", "GPUUnhealthy", reason, "fatal", "hardware", "", "",
                       "reset", 0.0, 0.0, details=details)
    owned = Owned(frozenset({"gpu-synthetic-2", "gpu-synthetic-3"}), frozenset({"mlx5_1"}))
    gpus = [_gpu(i, power_watts=70.0) for i in range(8)]
    on_its_gpu = evidence(owned, [fault("gpu:0000:1b:00")], gpus, gpus)  # GPU 3 by PCI address
    assert "Likely caused by a node fault standing on this pod's devices or the node as a whole: " \
           "Xid79FallenOffBus on 0000:1b:00." in on_its_gpu
    by_uuid = evidence(owned, [fault("gpu:0000:99:00", uuid="GPU-synthetic-2")], [], [])  # NVML not read: its UUID
    assert "Likely caused by" in by_uuid
    on_its_nvlink = evidence(owned, [fault("gpu:0000:1a:00/nvlink4", "NVLinkDown")], gpus, gpus)
    assert "Likely caused by" in on_its_nvlink and "NVLinkDown on 0000:1a:00/nvlink4" in on_its_nvlink
    elsewhere = evidence(owned, [fault("gpu:0000:18:00")], gpus, gpus)  # GPU 0: another pod's
    assert elsewhere.startswith("Its GPUs 2, 3") and "No hardware or fabric fault stands on this pod's" in elsewhere
    assert "(Not this pod's: Xid79FallenOffBus on 0000:18:00, on devices it does not hold.)" in elsewhere
    node_wide = evidence(owned, [fault("node", "FabricManagerDown"), fault("gpu:0000:18:00")], gpus, gpus)
    assert "Likely caused by a node fault standing on this pod's devices or the node as a whole: " \
           "FabricManagerDown on node." in node_wide and "Not this pod's: Xid79FallenOffBus on 0000:18:00" in node_wide
    assert "Likely caused by" in evidence(owned, [fault("ib:mlx5_1/1", "IBPortDown")], gpus, gpus)
    assert "Not this pod's: IBPortDown on mlx5_3/1" in evidence(owned, [fault("ib:mlx5_3/1", "IBPortDown")], gpus, gpus)
    no_rails = Owned(frozenset({"gpu-synthetic-2"}))  # NCCL over the node's rails: any rail is its
    assert "Likely caused by" in evidence(no_rails, [fault("ib:mlx5_3/1", "IBPortDown")], gpus, gpus)
    unknown = evidence(None, [fault("gpu:0000:18:00")], gpus, gpus)  # the pod's GPUs unknown: any fault, as before
    assert "Likely caused by a node fault standing on this node: Xid79FallenOffBus on 0000:18:00." in unknown
    warning = Problem("w", "gpu:0000:1a:00", "telemetry", "GPUDegraded", "StragglerSuspected", "warning", "hardware",
                      "", "", "", 0.0, 0.0)
    assert "Likely caused by" not in evidence(owned, [warning], gpus, gpus)  # a warning is not a cause


def test_the_tracker_asks_the_device_cache_when_it_tracks_a_pod_and_uses_it_in_the_verdict():
    from agent.podresources import Owned

    asked: list = []

    def devices(ref):
        asked.append(ref.pod)
        return Owned(frozenset({"gpu-synthetic-1"})) if len(asked) > 1 else None  # learnt after the first miss
    events: list = []
    clock = Clock()
    t = Recorded(events, cfg=HangSettings(k=1, floor_seconds=1), clock=clock, devices=devices)
    for step in range(4):
        clock.t = float(step)
        t.observe(REF, [Mark(clock.t, Progress(step))])
    assert asked == ["gpt-worker-0"]  # once, when it was first tracked: the cache's thread learns it meanwhile
    clock.t = 10
    gpus = [_gpu(i, power_watts=70.0) for i in range(4)]
    t.tick(readings=(gpus, gpus))
    assert len(asked) == 2 and "). Its GPU 1 (per the kubelet): GPU power 70 W over 1 GPU (idle)." in events[0][1]


@pytest.mark.parametrize("unit", ["iter 46 step 1 ", "step   61/74 | loss ", "step 00004/21400 (0.02%) | loss: ",
                                  "Epoch: [2]  [1500/1504] ", "iteration 120/149 |",
                                  "Train: 0 [  50/73 ( 70%)]  Loss: ", "Epoch: [0][ 741/1424]   Time ", "|step: 3|ppo_ep: 1|"])
def test_a_long_line_costs_what_its_first_segment_cap_does(unit):
    """A pod's line has no length cap (the pod-log source reads whole lines): a row's lazy gap from each start of its
    prefix rescans the rest of the line (litgpt, llm.c, nanochat, MetricLogger, NeMo: quadratic), 1 MiB of one took
    minutes. recognise looks at MAX_SEGMENT characters of a segment (a progress line is short): a 1 MiB line costs
    what one of MAX_SEGMENT does, and a real line at the end of a long one is still read."""
    import gc

    from parsers.progress import MAX_SEGMENT, recognise

    line = unit * (MAX_SEGMENT // len(unit) + 1)
    long = unit * ((1 << 20) // len(unit))
    gc.disable()
    try:
        t0 = time.thread_time()
        recognise(line[:MAX_SEGMENT])
        capped = time.thread_time() - t0
        t0 = time.thread_time()
        recognise(long)
        took = time.thread_time() - t0
    finally:
        gc.enable()
    assert took < 4 * capped + 0.05, (took, capped)
    found = recognise(long + "\riter 2920: loss 3.9883, time 1099.34ms, mfu 15.34%")
    assert found is not None and found.step == 2920


def test_a_pcie_ports_fault_is_the_pods_whose_gpu_or_rail_sits_below_it():
    """A PCIe port's problem (`pci:`, agent/health.py) is the fault of the devices below it, as sysfs's topology names
    them (agent/sysfs/pci.py: a port's reading lists the GPUs and RDMA NIC functions below it; the HGX fixture tree:
    switch 0000:5b:00.0, GPU 0000:5d:00 below its port 0000:5c:00.0, NIC 0000:5e:00.0 below 0000:5c:01.0). Was: every
    `pci:` fault a rail by its own address, so a port above a pod's GPU was another pod's (the pod has rails) and
    one above another pod's GPU this pod's (it has none)."""
    from agent.podresources import Owned
    from agent.progress import evidence
    from agent.sysfs import infiniband, pci
    from telemetry_kit import SYSFS_FIXTURE

    root = str(SYSFS_FIXTURE)
    devices = pci.PciInventory(root).scan(nics=[p.pci for p in infiniband.discover(root)])
    readings = [r for r in map(pci.reading, devices) if r is not None]

    def fault(port: str) -> Problem:
        return Problem(f"pci:{port}|pcie_aer||PCIeFatalError", f"pci:{port}", "pcie_aer", "PCIeUnhealthy",
                       "PCIeFatalError", "fatal", "hardware", "", "", "boot", 0.0, 0.0)

    def said(owned: Owned, port: str) -> str:
        return evidence(owned, [fault(port)], readings, readings)

    gpu_5d, gpu_18 = frozenset({"0000:5d:00"}), frozenset({"0000:18:00"})
    rails_19, rails_5e = frozenset({"0000:19:00.0"}), frozenset({"0000:5e:00.0"})
    assert "Likely caused by" in said(Owned(gpu_5d, rails_19), "0000:5c:00")  # the port above its GPU
    assert "Not this pod's: PCIeFatalError on 0000:5c:00" in said(Owned(gpu_18, rails_19), "0000:5c:00")
    assert "Not this pod's" in said(Owned(gpu_18), "0000:5c:00")  # no rails: still not another GPU's port
    assert "Likely caused by" in said(Owned(gpu_18), "0000:5c:01")  # no rails: the node's NIC's port is its
    assert "Likely caused by" in said(Owned(gpu_18, rails_5e), "0000:5b:00")  # the switch above its NIC
    assert "Likely caused by" in said(Owned(gpu_5d, rails_19), "0000:5b:00")  # the switch above its GPU
    assert "Not this pod's" in said(Owned(gpu_18, rails_19), "0000:5b:00")


def test_levanters_tqdm_loggable_lines_every_era():
    """REAL (sources.md): Levanter (Marin's trainer) logs its bars through tqdm-loggable where no terminal is: `Progress
    on:train 586it/2.06kit rate:5.5s/it remaining:2:16:02 elapsed:55:45 loss=2.45` (Open-Athena/MarinFold #160, 2026),
    read as nothing before, so a Levanter job was never tracked; the step is the exact count and the step time its rate.
    tqdm-loggable's own eras (its README): 2022-09-21 `21.0kit/60.0kit rate:1,982.9it/s` (a count past 999 printed
    rounded to three figures: progress without a step; the rate's thousands separated), `10000/- rate:-` and `-/60000
    rate:-` (no rate yet: no keyword, nothing read); 2022-09-20 `2000.000000/60000.000000 rate:3944.6880828079934 it/s`
    (the counts as floats; `rate:None it/s` before a rate is known), each state printed twice (no second advance)."""
    (levanter,) = [recognise(x) for x in lines("levanter_marinfold_160.log")]
    assert (levanter.step, levanter.seconds, levanter.trainer, levanter.moved) == (586, 5.5, "tqdm", True)
    second = [recognise(x) for x in lines("tqdm_loggable_readme_2022.log")]
    assert second[:3] == [None] * 3
    assert [(p.step, p.moved) for p in second[3:]] == [(None, True)] * 2
    assert [p.seconds for p in second[3:]] == pytest.approx([1 / 1982.9, 1 / 1984.1])
    first = [recognise(x) for x in lines("tqdm_loggable_first_era.log")]
    assert [p.step for p in first] == [0, 1000, 2000, 2000, 3000, 3000, 4000, 4000, 5000, 5000]
    assert first[0].seconds is None and first[1].seconds is None
    assert first[2].seconds == pytest.approx(1 / 3944.6880828079934)
    # the tracker learns the pod from it (one advance per state: the repeated state is no advance)
    events: list = []
    clock = Clock(1000.0)
    t = tracker(clock, events, k=10, floor_seconds=1, min_steps=2)
    for p in first:
        clock.t += 0.5
        t.observe(REF, [Mark(clock.t, p)])
    (pod,) = t.pods.values()
    assert (pod.step, pod.advances) == (5000, 6)


def test_tqdm_loggable_bars_that_are_no_training_step():
    """CONSTRUCTED from tqdm-loggable's source (tqdm_loggable/tqdm_logging.py, `Progress on:%s %s/%s rate:%s remaining:%s
    elapsed:%s postfix:%s`, its rate inverted below one a second): the bar's name says what it counts, as a tqdm bar's
    does (Levanter's `Progress on:eval`: an evaluation; a set-up bar: nothing); a finished bar repeats its total every
    epoch (no step); another unit (`tok`) is no step; `rate:` in a line of other words is no bar."""
    evaluation = recognise("Progress on:eval 106it/184it rate:2.1it/s remaining:00:37 elapsed:00:50 postfix:-")
    assert (evaluation.moved, evaluation.pause) == (False, "evaluation")
    assert recognise("Progress on:Loading checkpoint shards 3.00it/5.00it rate:1.5it/s remaining:00:01 elapsed:00:02 "
                     "postfix:-") is None
    assert recognise("Progress on:Tokenizing 120it/500it rate:30.0it/s remaining:00:12 elapsed:00:04 postfix:-") is None
    done = recognise("Progress on:train 850it/850it rate:1.2s/it remaining:00:00 elapsed:17:00 postfix:-")
    assert (done.step, done.seconds, done.moved) == (None, 1.2, True)
    assert recognise("Progress on:pack 120tok/500tok rate:30.0tok/s remaining:00:12 elapsed:00:04 postfix:-") is None
    assert recognise("learning rate: 3e-4, 12 it/s") is None


def test_vllms_request_intake_bar_is_a_rollouts_heartbeat():
    """REAL (vllm-project/vllm-ascend #4581, sources.md): vLLM's generate() opens with its request-intake bar, `Adding
    requests: 100%|██████████| 4/4 [00:00<00:00, 559.54it/s]`, then `Processed prompts`: its count is prompts, as the
    second bar's is.  Read before as a finished bar's advance (a partial one's count the pod's step, 2 ms a prompt the
    step time); now a heartbeat, as `Processed prompts`.  Bars with no rate yet (`0/4 [00:00<?, ?it/s]`) stay unread."""
    found = [recognise(x) for x in lines("vllm_adding_requests_ascend_4581.log")]
    assert found[0] is None and found[2] is None and found[3] is None
    assert (found[1].step, found[1].seconds, found[1].heartbeat, found[1].trainer) == (None, None, True, "tqdm")
    # (constructed from the real line: the same bar half-way, as a larger batch prints it) no step either
    half = recognise("Adding requests:  50%|█████     | 2/4 [00:00<00:00, 559.54it/s]")
    assert (half.step, half.heartbeat) == (None, True)


def test_hugging_face_datasets_set_up_bars_are_no_progress():
    """REAL (ROBOTIS-GIT/ai_worker_website, sources.md): the Hub's and datasets' bars before a dataset is used, `Fetching 126
    files: 100%|...| 126/126 [...]` and `Resolving data files: 100%|██████████| 30/30 [00:00<00:00, 662258.53it/s]`: the
    second was read as a finished bar's advance, so a job streaming its data was tracked from its set-up (and its model
    load after read as a silence).  CONSTRUCTED from datasets' download manager (`desc="Extracting data files"`): the same."""
    assert [recognise(x) for x in lines("hf_datasets_resolving_robotis.log")] == [None] * 4
    assert recognise("Extracting data files: 100%|██████████| 3/3 [00:00<00:00, 12.40it/s]") is None
    # a training bar beside them is still read
    assert recognise("Training:  40%|████      | 40/100 [00:10<00:15,  4.00it/s]").step == 40


def test_an_advance_ends_the_files_in_flight_and_a_saved_without_its_saving_counts_none():
    """The files in flight (DeepSpeed's `[Torch] Saving` / `Saved`) go back to 0 at an advance (a save's files said
    begun before it never hold a later save's pause), and a `Saved` whose `Saving` was lost counts no file below 0 (a
    later `Saving` is one in flight). A guard of the `_Pod.unpause` refactor (both held before it: the docs said them,
    no test did). REAL lines: the Qwen2.5 run's (sources.md)."""
    text, clock, t = _qwen_stepping()
    t.observe(REF, [Mark(clock.t, recognise(text[3])), Mark(clock.t, recognise(text[4]))])  # a save, a file begun
    assert t.pods[REF.uid].files == 1
    clock.t += 10
    t.observe(REF, [Mark(clock.t, Progress(5, trainer="nanogpt"))])  # an advance: nothing in flight
    assert (t.pods[REF.uid].files, t.pods[REF.uid].paused) == (0, None)
    t.observe(REF, [Mark(clock.t, recognise(text[3])), Mark(clock.t, recognise(text[5]))])  # its Saving lost
    assert t.pods[REF.uid].files == 0
    t.observe(REF, [Mark(clock.t, recognise(text[6]))])  # a file begun: the rank's commit waits for it
    assert t.pods[REF.uid].files == 1
    t.observe(REF, [Mark(clock.t + 1, recognise(text[9]))])
    assert t.pods[REF.uid].paused is not None
