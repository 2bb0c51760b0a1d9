"""Which tqdm bar is the training's: a bar is known by its total.  The Hugging Face Trainer shows its training bar
(`17% 34/204 [01:03<05:30,  1.94s/it]`) and, while it evaluates, a second bar without a name (`22% 2/9 [00:00<00:01,
4.08it/s]`): read as the training bar before, its counts were steps back from 34 and its rate the step time (0.4 s
against 2 s).  Now a bar of another total shown while the training bar runs is an evaluation: a pause while it runs,
over when it finishes (`9/9`); epoch bars starting again with the same total, a bar whose total grows as it counts on,
and a run that finished its bar and starts another are still the training.  The log: REAL (mdrnid/AQG's
docs/project/domain-adapt-finetune.md, a Colab run of Seq2SeqTrainer, tests/fixtures/progress/sources.md); the times
of its lines are SYNTHETIC (the log has none: a line every second)."""

from __future__ import annotations

import json

import pytest

from agent.hangsettings import HangSettings
from agent.metrics import Metrics
from agent.progress import BAR_KEYS, HANG_REASON, Mark, ProgressTracker, _Bar
from parsers.model import PodRef
from parsers.progress import Progress, recognise
from progress_replay import Clock, lines

REF = PodRef("train", "t5-worker-0", "uid-0", "main")
LOG = "hf_trainer_eval_bar_aqg.log"


def feed(texts: list[str], settings: HangSettings = HangSettings(), gap: float = 1.0):
    """Each line through the tracker `gap` seconds after the one before (SYNTHETIC times); after each line the pod's
    step, step time and announced pause; the Events raised."""
    clock, events, seen = Clock(1000.0), [], []
    t = ProgressTracker(Metrics(), settings, clock=clock, alive=lambda: None)
    for text in texts:
        clock.t += gap
        events += t.tick()
        p = recognise(text)
        if p is not None:
            events += t.observe(REF, [Mark(clock.t, p)])
        pod = t.pods.get(REF.uid)
        seen.append((pod.step, pod.step_seconds, pod.pause) if pod else None)
    return t, clock, events, seen


def test_the_recogniser_says_each_bars_total():
    said = [recognise(x) for x in lines(LOG)]
    assert (said[3].step, said[3].total) == (34, 204)
    assert (said[5].step, said[5].total) == (2, 9)  # the evaluation's bar
    assert (said[15].step, said[15].total) == (None, 9)  # `100% 9/9`: finished
    assert said[0].total is None  # the Trainer's dict: no bar
    assert recognise("Epoch 4    ━━━━━━━━ 5072/-- 2:40:43 • -:--:-- 0.57it/s").total is None  # a total not known


def test_the_evaluation_bar_is_no_training_step():
    """REAL lines: the training bar's step stays 34 (then 68, 102, ...) through each evaluation, its step time the
    training bar's 1.9-2 s: before, the pod went to steps 2, 3, ... 8 and its step time to 0.4 s at every evaluation."""
    text = lines(LOG)
    _, _, events, seen = feed(text)
    steps = [s[0] for s in seen if s is not None and s[0] is not None]
    assert steps == sorted(steps) and set(steps) == {34, 68, 102, 136, 170}
    assert all(s[1] >= 1.9 for s in seen if s is not None and s[1] is not None)
    assert events == []
    # while the evaluation's bar runs the pod is paused (an evaluation), and its `9/9` ends the pause
    first_eval = text.index(" 22% 2/9 [00:00<00:01,  4.08it/s]")
    assert [s[2] for s in seen[first_eval:first_eval + 7]] == ["evaluation"] * 7
    assert seen[text.index("100% 9/9 [00:03<00:00,  2.54it/s]")][2] == ""


def test_a_hang_inside_the_evaluation_is_a_pause_and_one_after_it_is_at_the_pace():
    """The REAL lines up to the evaluation's `89% 8/9`, then silence: a pause (pause_seconds from its last line, not the
    pace after a step read from the evaluation's bar); up to its `100% 9/9` and the training's next dict, then silence:
    the pace again (the floor)."""
    text = lines(LOG)
    settings = HangSettings(floor_seconds=60, pause_seconds=600, min_steps=2)

    def silent_after(upto: int) -> float:
        t, clock, events, _ = feed(text[:upto], settings)
        assert events == []
        start = clock.t
        while not any(e.reason == HANG_REASON for e in t.tick()):
            clock.t += 1
        return clock.t - start
    assert silent_after(text.index(" 89% 8/9 [00:03<00:00,  2.44it/s]") + 1) >= 590
    assert silent_after(text.index("100% 9/9 [00:03<00:00,  2.54it/s]") + 2) <= 60


def test_epoch_bars_a_grown_total_and_a_new_bar_after_a_finished_one_are_the_training():
    """(SYNTHETIC bars in tqdm's shape) the same total starting again (a new epoch's bar), a total that grew as the count
    went on, and a bar after the training bar finished (an evaluation at the start, then the training's): each is the
    training's progress, its count the step."""
    epochs = ["  50%|█████     | 2/4 [00:02<00:02,  1.00s/it]", " 100%|██████████| 4/4 [00:04<00:00,  1.00s/it]",
              "  25%|██▌       | 1/4 [00:01<00:03,  1.00s/it]", "  50%|█████     | 2/4 [00:02<00:02,  1.00s/it]"]
    assert [s[0] for s in feed(epochs)[3]] == [2, None, 1, 2]  # (a finished bar: no step)
    grown = ["  50%|█████     | 5/10 [00:05<00:05,  1.00s/it]", "  55%|█████▌    | 11/20 [00:11<00:09,  1.00s/it]",
             "  60%|██████    | 12/20 [00:12<00:08,  1.00s/it]"]
    assert [s[0] for s in feed(grown)[3]] == [5, 11, 12]
    first_eval = ["  50%|█████     | 1/2 [00:00<00:00,  4.00it/s]", " 100%|██████████| 2/2 [00:01<00:00,  4.00it/s]",
                  "   1%|          | 3/204 [00:06<06:48,  2.00s/it]", "   2%|▏         | 4/204 [00:08<06:40,  2.00s/it]"]
    assert [s[0] for s in feed(first_eval)[3]][2:] == [3, 4]


def test_a_bar_shown_long_after_the_training_bar_fell_silent_is_the_training():
    """(SYNTHETIC) a run started again in the same container with another total: its bar, seen after the old one has been
    silent past the pause allowance, is the training's; within it, an inner bar's."""
    old, new = "  50%|█████     | 50/100 [00:50<00:50,  1.00s/it]", "  10%|█         | 8/80 [00:08<01:12,  1.00s/it]"
    settings = HangSettings(pause_seconds=600)
    assert feed([old, new], settings, gap=1.0)[3][-1][:2] == (50, 1.0)  # within: an inner bar
    t, clock, _, _ = feed([old], settings)
    clock.t += 601
    t.observe(REF, [Mark(clock.t, recognise(new))])
    assert t.pods[REF.uid].step == 8


def test_a_restarted_container_forgets_its_bar():
    t, clock, _, _ = feed(["  50%|█████     | 50/100 [00:50<00:50,  1.00s/it]"])
    t.restarted(REF)
    clock.t += 1
    t.observe(REF, [Mark(clock.t, Progress(3, 1.0, "tqdm", total=80))])
    assert t.pods[REF.uid].step == 3


def test_a_training_bar_again_after_a_larger_unnamed_bar_is_the_training():
    """(SYNTHETIC bars in tqdm's shape) a loop's unnamed `tqdm(train_loader)`, 32 batches, then its unnamed
    `tqdm(val_loader)`, 100 (evaluated one sample a batch), each epoch: the second bar, larger, shown after the first
    finished, was taken for the training's; the next epoch's training bar, smaller than it, was then an inner one, an
    evaluation, until the pause allowance (an hour by default) had passed since the validation's last line, and the
    validation's next bar the training again: the roles swapped for good, a hang in the training suspected an hour
    late.  A bar of the total the training bar had before is the training again (as before bars were told apart)."""
    def bar(n: int, of: int) -> str:
        return f"  {100 * n // of:2d}%|█         | {n}/{of} [00:{n % 60:02d}<00:10,  3.00it/s]"
    epoch = [bar(n, 32) for n in range(1, 33)] + [bar(n, 100) for n in range(1, 101)]
    t, clock, events, seen = feed(epoch + epoch[:10], HangSettings(pause_seconds=3600))
    assert events == []
    assert [s[2] for s in seen[-10:]] == [""] * 10  # the second epoch's training: no evaluation announced
    assert [s[0] for s in seen[-10:]] == list(range(1, 11))  # its counts the steps
    settings = HangSettings(floor_seconds=60, pause_seconds=3600, min_steps=2)
    t, clock, events, _ = feed(epoch + epoch[:10], settings)  # then the training hangs
    start = clock.t
    while not any(e.reason == HANG_REASON for e in t.tick()):
        clock.t += 1
    assert clock.t - start <= 60  # at the pace's floor, not the pause allowance's hour


def restored(state: dict, clock: Clock) -> tuple[ProgressTracker, list[str]]:
    """A tracker started again on the clock `clock` from `state` (to_state's, through JSON as the state file keeps it);
    the faults its restore said."""
    t = ProgressTracker(Metrics(), HangSettings(), clock=clock, alive=lambda: None)
    return t, t.restore(json.loads(json.dumps(state)))


def test_a_pods_bar_is_saved_as_its_fields_and_restored_as_one_record():
    """The training bar (REAL: the Trainer's `17% 34/204`) is one record (`_Bar`), saved as its fields apart (the state
    file as before), restored as that record: the evaluation's bar after the restart is still an inner one."""
    text = lines(LOG)
    t, clock, _, _ = feed(text[:text.index(" 17% 34/204 [01:03<05:30,  1.94s/it]") + 1])
    bar = t.pods[REF.uid].bar
    assert bar == _Bar(204, 34, clock.t, None)
    state = t.to_state()
    assert {k: state[REF.uid][k] for k in BAR_KEYS.values()} == {"bar": 204, "bar_at": 34, "bar_seen": clock.t,
                                                                  "bar_was": None}
    again, faults = restored(state, clock)
    assert faults == [] and again.pods[REF.uid].bar == bar
    clock.t += 1
    again.observe(REF, [Mark(clock.t, recognise(" 22% 2/9 [00:00<00:01,  4.08it/s]"))])
    assert (again.pods[REF.uid].step, again.pods[REF.uid].pause) == (34, "evaluation")


@pytest.mark.parametrize("saved, bar", [
    ({"bar": 204}, _Bar(204)),  # an older agent's: the total alone
    ({"bar": 204, "bar_at": 34}, _Bar(204, 34)),  # no time of its last line
    ({"bar": None, "bar_at": 34, "bar_seen": 1000.0, "bar_was": 9}, None),  # no total: no bar
    ({}, None),  # none of them
    ({"bar": 204, "bar_at": 34, "bar_seen": 1e12}, _Bar(204, 34, 1001.0)),  # its time ahead of the clock: now
])
def test_an_older_or_partial_bar_restores_without_raising(saved, bar):
    """A state file whose pod's bar fields are partial (an older agent's, a damaged one) restores, the fields it lacks
    None, a time ahead of the clock now; the pod reads its next bar without raising (one of another total, the bar's
    last line's time not known, is the training's, as before)."""
    t, clock, _, _ = feed(["  17%|█▋        | 34/204 [01:03<05:30,  1.94s/it]"])
    entry = {k: v for k, v in t.to_state()[REF.uid].items() if k not in BAR_KEYS.values()}
    again, faults = restored({REF.uid: {**entry, **saved}}, clock)
    assert faults == [] and again.pods[REF.uid].bar == bar
    clock.t += 1
    again.observe(REF, [Mark(clock.t, recognise(" 22% 2/9 [00:00<00:01,  4.08it/s]"))])
    assert again.pods[REF.uid].bar.total == (204 if bar is not None and bar.seen is not None else 9)


def test_a_damaged_bar_drops_its_pod_alone():
    t, clock, _, _ = feed(["  17%|█▋        | 34/204 [01:03<05:30,  1.94s/it]"])
    entry = t.to_state()[REF.uid]
    other = {**entry, "ref": {**entry["ref"], "uid": "uid-1"}}
    again, faults = restored({REF.uid: {**entry, "bar_seen": "soon"}, "uid-1": other}, clock)
    assert list(again.pods) == ["uid-1"] and len(faults) == 1 and "expected a number" in faults[0]
