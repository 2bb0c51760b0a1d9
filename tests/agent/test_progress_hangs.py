"""Hang suspicion on REAL hangs: training logs whose progress lines stop, then PyTorch's NCCL watchdog fires or the
user reports the job hung (tests/fixtures/progress/hang_*.log, sources.md).  Each is replayed at the times its own
lines give through the real tracker with the shipped settings (tests/progress_replay.py): its progress lines are
recognised with the right steps, nothing is raised while it progresses, and the hang is suspected minutes before
the watchdog fires.  docs/hangs.md's table of these figures is bench/hangs.py's output, checked here."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from agent.hangsettings import HangSettings
from agent.progress import HANG_REASON, RESUMED_REASON
from parsers.progress import recognise
from progress_replay import EXCERPTS, FIX, WATCHDOG, lines, replay_hang, replay_log, when

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
try:
    import hangs  # noqa: E402  (bench/hangs.py: the table)
finally:
    sys.path.remove(str(ROOT / "bench"))  # bench/agent.py would shadow the agent package for later imports


@pytest.mark.parametrize("name, trainer, steps, seconds", [
    ("hang_llamafactory_2902.log", "tqdm", [10, 11, 12, 13], 4.95),  # (its first line, a loss dict: no step)
    ("hang_basicsr_582.log", "basicsr", [3200, 3300, 3400, 3500, 3600, 3700], 0.617),  # `iter:   3,200`
    ("hang_f5tts_346.log", "tqdm", [6], 1.73),  # a bar counting `s/step`
    # the bar reprinted after the Trainer's loss dict (`20/1752` twice: one advance), the reporter's line numbers before it
    ("hang_llamafactory_8261.log", "tqdm", list(range(10, 21)) + [20, 21, 22, 23], 2.83),
])
def test_the_real_hung_logs_progress_lines_are_recognised(name, trainer, steps, seconds):
    found = [p for p in map(recognise, lines(name)) if p is not None and p.step is not None]
    assert [p.step for p in found] == steps and {p.trainer for p in found} == {trainer}
    assert found[0].seconds == pytest.approx(seconds)


def test_the_last_progress_line_and_the_watchdog_line_can_share_a_line():
    """tqdm writes its bar without a newline: the watchdog's error, 10 minutes later, lands on the bar's line (LLaMA-
    Factory #2902, F5-TTS #346).  The bar's state is still read, at the bar's own elapsed time."""
    line = next(x for x in lines("hang_llamafactory_2902.log") if WATCHDOG.search(x))
    assert recognise(line).step == 13 and when(line, None) == 67
    assert WATCHDOG.search(line).groups() == ("600000", "600017")


@pytest.mark.parametrize("name", [h[0] for h in hangs.HANGS])
def test_a_real_hang_is_suspected_and_nothing_is_raised_while_it_progressed(name):
    hang = replay_hang(name)
    assert hang.marks >= HangSettings().min_steps and hang.healthy_events == []
    assert hang.suspected_after is not None
    if hang.ran_for is not None:  # minutes before the watchdog, not level with it
        assert hang.ahead >= 240
    strict = replay_hang(name, HangSettings(floor_seconds=1))  # no floor to hide healthy jitter behind
    assert strict.healthy_events == [] and strict.suspected_after < hang.suspected_after + 1


def test_the_previous_floor_came_level_with_a_ten_minute_watchdog():
    """Why the floor is 300 s: LLaMA-Factory #2902 steps every 5 s and its ALLREDUCE hung; with a floor of 600 s the
    suspicion (600 s of silence) came with the watchdog (600.017 s), so it told nothing the watchdog did not."""
    before = replay_hang("hang_llamafactory_2902.log", HangSettings(floor_seconds=600))
    assert before.suspected_after == 600 and before.ahead < 1
    now = replay_hang("hang_llamafactory_2902.log")
    assert now.suspected_after == 300 and now.ahead == pytest.approx(300.017)


@pytest.mark.parametrize("name, ran_for", [("hang_f5tts_346.log", 600.08), ("hang_nemo_pytorch_118369.log", 25624.887)])
def test_a_hang_within_the_first_steps_seen_is_not_suspected(name, ran_for):
    """F5-TTS #346's excerpt and pytorch #118369's hold one progress line before their watchdog: a pod seen advancing
    fewer than `min_steps` times is not yet 'making progress', so nothing is raised (a known limit: a pod the agent
    started following just before the hang)."""
    hang = replay_hang(name)
    assert hang.marks == 1 and hang.suspected_after is None and hang.ran_for == pytest.approx(ran_for)


def test_the_watchdog_is_no_bound_on_a_hang():
    """REAL (pytorch/pytorch #118369, NeMo 1.x on BioNeMo): the watchdog's timeout was 30 minutes, yet it fired after
    the hung ALLREDUCE had run 7.1 hours (the PyTorch of early 2024, its watchdog itself held up: pytorch #97191).
    The bar on the same line is still read at its own elapsed time (6:28:43), its step and rate whole."""
    line = lines("hang_nemo_pytorch_118369.log")[0]
    p = recognise(line)
    assert (p.step, p.trainer) == (32040, "tqdm") and p.seconds == pytest.approx(1 / 1.37)
    assert when(line, None) == 6 * 3600 + 28 * 60 + 43
    hang = replay_hang("hang_nemo_pytorch_118369.log")
    assert hang.timeout == 1800 and hang.ran_for > 14 * hang.timeout


def test_docs_hangs_table_is_the_benchs_output():
    doc = (ROOT / "docs" / "hangs.md").read_text(encoding="utf-8")
    assert hangs.table() in doc


# ---- every other real progress log, healthy: replayed at its own times, nothing raised --------------------------------

HEALTHY_LOGS = sorted(f.name for f in FIX.glob("*.log") if not f.name.startswith("hang_"))


@pytest.mark.parametrize("name", HEALTHY_LOGS)
def test_every_real_progress_log_replays_without_a_false_page(name):
    """Every real log kept (tests/fixtures/progress/), replayed at the times its own lines give (its timestamps, a
    running clock, the time it says passed, else its trainer's printed step time x the steps advanced) through the
    tracker: nothing is raised while it progresses, with the shipped settings nor with no floor (k x the median
    alone).  bench/hangs.py --healthy prints the table (docs/hangs.md), the worst silence over its allowance per log."""
    for settings in (HangSettings(), HangSettings(floor_seconds=1)):
        assert replay_log(name, settings).events == []


def test_the_logs_of_the_new_trainers_are_replayed():
    """A log is judged only with a clock: the replay read only `YYYY-MM-DD HH:MM:SS` stamps, a time of day in brackets,
    fairseq's `wall=`, a tqdm bar's elapsed time and three trainers' printed times, so detectron2 / LiBai's `[04/05
    01:30:24 ...]`, MMEngine's `2024/01/24 02:50:32`, nanotron's `01/17/2024 13:47:27`, absl's `I0912 11:41:51.976096`,
    prime-rl's `02:40:52 SUCCESS`, modded-nanogpt's `train_time:621841ms`, PaddleNLP's `interval_runtime:` and
    DeepSpeed-Chat's `E2E latency=` went unread, and the logs that print only a step time (timm, the ImageNet meter,
    LitGPT, llm.c, nanochat, NeMo 2, TF-slim) were never replayed (21 logs of 82 were judged).  The logs each later
    form (a trainer's stamps, its printed times) was added for are named below; the count of those judged is held."""
    judged = {name for name in HEALTHY_LOGS if replay_log(name).replayed}
    assert {"timm_optimum_habana_hpu.log", "imagenet_progressmeter_rocm_1147.log", "imagenet_progressmeter_examples_267.log",
            "dschat_step3_examples_444.log", "detectron2_d2go_524.log", "detectron2_querydet_17.log", "libai_551.log",
            "mmengine_yoloworld_165.log", "nanotron_390.log", "tfod_armaan_6.log", "primerl_999.log",
            "moddednanogpt_h100_master.log", "paddlenlp_paddle_56363.log", "litgpt_keysvalues_97.log",
            "nanochat_147.log", "llmc_796_blackwell.log", "tfslim_models_2980.log", "nemo2_bionemo_740.log",
            "mmf_870.log", "mmf_776.log", "automodel_3473.log", "automodel_eagle_3173.log",
            "lerobot_1488_data_s.log", "olmo_692.log", "lightlytrain_604_steps.log", "pithtrain_7_steps.log",
            "yolox_1548.log", "mindyolo_370.log", "mindyolo_279_epochs.log", "lingua_seunghyunseo_readme.log",
            "diffusionpipe_410_pipe.log", "xtuner_v1_installation_comma.log", "xtuner_v1_intern_s1_fsdp.log",
            "tqdm_loggable_first_era.log", "internevo_7b_demo.log", "internlm_usage_comma.log",
            "flax_gemma_clu_readme.log", "opennmt_1362.log", "espnet2_2674_epochs.log", "espnet2_2183_accum.log",
            "icefall_320.log", "icefall_zipvoice_3.log", "nnunet_v2_2140.log", "nnunet_v1_938.log",
            "nnunet_v1_640_slow.log", "hf_trainer_eval_bar_aqg.log", "megatron_ds_seconds_jubench.log"} <= judged
    assert len(judged) == 78
    assert {replay_log(n).clock for n in ("mmf_870.log", "mmf_776.log")} == {"own"}
    assert {replay_log(n).clock for n in ("timm_optimum_habana_hpu.log", "nanogpt_110.log")} == {"printed"}


@pytest.mark.parametrize("line, at", [
    ("[04/05 01:30:24 d2.utils.events]:  eta: 0:03:35  iter: 19  total_loss: 1.36", (4, 5, 1, 30, 24)),
    ("[04/14 09:05:02] d2.utils.events INFO:  eta: 0:11:54  iter: 119  total_loss: 9.214", (4, 14, 9, 5, 2)),
    ("04/21 21:03:52 - mmengine - INFO - Exp name: test_train2_20220421_210345", (4, 21, 21, 3, 52)),
    ("I0912 11:40:27.956218 139735407601536 model_lib_v2.py:652] Step 100 per-step time 0.813s loss=1.396",
     (9, 12, 11, 40, 27.956218)),
])
def test_the_replay_reads_each_trainers_own_time_of_day(line, at):
    """Lines of the fixtures (detectron2_d2go_524, detectron2_querydet_17, mmengine_155, tfod_armaan_6): their own time."""
    month, day, hour, minute, second = at
    assert when(line, None) == pytest.approx(datetime(2000, month, day, hour, minute, tzinfo=timezone.utc).timestamp()
                                             + second)


def test_the_replay_reads_linguas_two_digit_year():
    """A line of lingua_seunghyunseo_readme.log (`24-10-19 18:47:38.013589`, its log formatter's `%y-%m-%d`): before, no
    form read it, and the log was replayed at its printed step times (`iter` + `data`), not its own clock."""
    line = lines("lingua_seunghyunseo_readme.log")[2]
    assert when(line, None) == pytest.approx(datetime(2024, 10, 19, 18, 47, 38, tzinfo=timezone.utc).timestamp() + 0.013589)


def test_a_log_of_two_excerpts_is_replayed_excerpt_by_excerpt():
    """REAL (tfod_armaan_6.log, two excerpts of one report: steps 100-900 at 11:40-11:50, then 3800-4600 at 12:30-12:41):
    replayed as one stretch, the 41 minutes between the excerpts (lines the report did not quote; the run went on:
    2900 steps at ~0.8 s) read as a silence and were suspected; each excerpt on its own raises nothing."""
    assert replay_log("tfod_armaan_6.log").events == []
    excerpts = EXCERPTS.pop("tfod_armaan_6.log")
    try:
        assert [e.reason for e in replay_log("tfod_armaan_6.log").events] == [HANG_REASON, RESUMED_REASON]
    finally:
        EXCERPTS["tfod_armaan_6.log"] = excerpts


def test_docs_hangs_healthy_table_is_the_benchs_output():
    doc = (ROOT / "docs" / "hangs.md").read_text(encoding="utf-8")
    assert hangs.healthy_table() in doc


# ---- a hang right after an evaluation said when done ---------------------------------------------------------------

@pytest.mark.parametrize("name, line, allowed", [
    ("nnunet_v1_938.log", 24, 1400),  # `validation loss: -0.7191` (epochs of ~137 s: 10 x the median)
    ("nanogpt_215_checkpoint.log", 9, 300),  # `step 3000: train loss 4.0390, val loss 4.0427` (a line every 11 s: the floor)
    ("llmc_anthonix_2_val.log", 12, 300),  # `val loss nan` (a step every 37 ms: the floor)
    # a progress row's evaluation line (Rule.ends), a summary (PAUSES): 3600 s before
    ("fairseq_940.log", 5, 915),  # `| valid on 'valid' subset | valid_loss 8.11425 | ...` (91.5 s between lines)
    ("moddednanogpt_h100_master.log", 21, 300),  # `step:1480/1480 val_loss:3.2786 train_time:...` (the floor)
    ("verl_rldecision_sft.log", 8, 300),  # `step:105 - val/loss:0.0584...` (the floor)
])
def test_a_hang_right_after_an_evaluation_said_when_done_is_suspected_at_the_pace(name, line, allowed):
    """REAL (nnU-Net v1 #938, nanoGPT #215, llm.c fork anthonix/llm.c #2; tests/fixtures/progress/sources.md): each
    trainer prints its validation loss once the evaluation is over (nnU-Net v1's run_training after its validation
    batches, nanoGPT's after estimate_loss(), llm.c's after its val batches), and training resumes at once.  The log
    cut right after that line, the silence is suspected after the pace's allowance (k x the median, or the floor) from
    it; it was read as an evaluation announced and suspected only pause_seconds (3600 s) on."""
    assert "loss" in lines(name)[line - 1]
    replayed = replay_log(name, until=line)
    assert replayed.events == [] and replayed.hung_after is not None
    assert replayed.hung_after <= allowed < HangSettings().pause_seconds
    # the pace counted from the end of the evaluation, never from before it: no sooner than the allowance
    assert replayed.hung_after >= HangSettings().floor_seconds
