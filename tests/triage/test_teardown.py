"""triage.teardown: a job that stated its own success, then printed communicator errors while tearing down, did not
fail; errors before its statement, and a statement another file made, change nothing.

Lines marked REAL are copied verbatim from the public source named beside them; SYNTHETIC jobs put real lines together
in an order or files that did not happen as such, to test the logic, never the formats.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gpunpd.cli import main
from triage import Clock, attribute, facts, read_lines, teardown

INCIDENT = Path(__file__).parents[1] / "fixtures" / "incidents" / "mlperf-v50-hpe-sd-teardown"
# REAL: mlcommons/training_results_v5.0 HPE/results/HPE-Cray-XD670-H200-SXM5-141GB_n4_24.09/stable_diffusion/result_1.txt
MLPERF = (INCIDENT / "logs" / "result_1.txt").read_text().splitlines()
RUN_STOP, NCCL_TEARDOWN = MLPERF[19], MLPERF[20:24]
# REAL: https://github.com/NVIDIA-NeMo/Megatron-Bridge/issues/770 (Megatron's train() returned after its last iteration)
MEGATRON_DONE = "[after training is done] datetime: 2025-09-24 16:08:38"
# REAL: https://github.com/sunandhini96/TSAI_ERAV1/blob/main/Session_12/README.md (Lightning's fit loop at its limit)
LIGHTNING_DONE = "INFO:pytorch_lightning.utilities.rank_zero:`Trainer.fit` stopped: `max_epochs=24` reached."
# REAL: https://github.com/modelscope/ms-swift/issues/7992 (ms-swift's pipeline returned: its platform's time prefix kept)
SWIFT = (INCIDENT.parent / "ms-swift-7992-teardown" / "logs" / "node1.log").read_text().splitlines()
SWIFT_DONE, SWIFT_HANG = SWIFT[1], SWIFT[6]
# REAL: https://github.com/modelscope/ms-swift/issues/5297 (Hugging Face Trainer's summary once train() ended)
HF_RUNTIME = ("{'train_runtime': 157317.8608, 'train_samples_per_second': 0.017, 'train_steps_per_second': 0.002, "
              "'train_loss': 0.01490604, 'epoch': 0.99, 'global_step/max_steps': '246/248', 'percentage': '99.19%', "
              "'elapsed_time': '1d 19h 41m 57s', 'remaining_time': '21m 19s'}")
# REAL: https://github.com/hiyouga/LlamaFactory/pull/10488 (LLaMA-Factory v0's end of training as the PR quotes it:
# transformers 5.x's summary, its floats formatted "{v:.4g}", then Trainer.log_metrics' block after save_model)
HF_RUNTIME_5X = ("{'train_runtime': '2219', 'train_samples_per_second': '1.474', 'train_steps_per_second': '0.185', "
                 "'train_loss': '0.7228', 'epoch': '3'}")
TRAIN_METRICS = "***** train metrics *****"
TRAIN_METRIC = "  train_runtime            = 0:36:58.55"
# REAL: https://github.com/ByteDance-Seed/Bagel/issues/86 (torchrun: a rank exited non-zero)
RANK_FAILED = ("E0529 07:39:13.791000 10689 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
               "(exitcode: 1) local_rank: 0 (pid: 10754) of binary: /usr/local/bin/python3.10")


def evidence(files: dict[str, list[str]]):
    clock = Clock()
    ev = [e for name, lines in files.items() for e in read_lines(lines, name, clock, root=".")]
    return clock.align(ev)


def test_the_success_statements_are_read():
    for line, row in ((RUN_STOP, "mlperf_run_stop_success"), (MEGATRON_DONE, "megatron_training_done"),
                      (LIGHTNING_DONE, "lightning_fit_stopped"), (SWIFT_DONE, "swift_main_end"),
                      (TRAIN_METRICS, "hf_train_metrics")):
        hit = facts.match(line.split(": ", 1)[1] if line.startswith(" 0: ") else line)
        assert hit is not None and hit[0].name == row and hit[0].kind == "job_success", line
    # an MLPerf run that missed its target says "aborted": no statement of success
    assert facts.success(RUN_STOP.replace('"status": "success"', '"status": "aborted"')) is None


def test_the_real_run_that_succeeded_then_tore_down_is_no_failure():
    """HPE's run: run_stop success, then rank 30's NCCL error (proxy Close) 3 s before the end: before, one
    undetermined incident rooted at the nccl_error, the job read as failed."""
    ev = evidence({"result_1.txt": MLPERF})
    assert attribute(ev) == [] and attribute(teardown(ev)) == []  # the split made by the caller is taken as made
    noise = teardown(ev).noise
    assert [(e.kind, e.rank, s.details.get("fact")) for e, s in noise] == [("nccl_error", 30, "mlperf_run_stop_success")]


def test_errors_before_the_success_are_the_jobs():
    """SYNTHETIC order: the same NCCL error before the run_stop line is a failure as ever."""
    ev = evidence({"result_1.txt": [*NCCL_TEARDOWN, RUN_STOP]})
    assert [i.root.kind for i in attribute(ev)] == ["nccl_error"] and teardown(ev).noise == []
    assert attribute(teardown(ev)) == attribute(ev)


def test_a_success_another_file_states_covers_nothing_here():
    """SYNTHETIC files: rank 0's file states success, rank 30's own file prints the error: nothing hidden."""
    ev = evidence({"rank0.log": [RUN_STOP], "rank30.log": NCCL_TEARDOWN})
    assert [i.root.kind for i in attribute(ev)] == ["nccl_error"]


def test_megatrons_and_lightnings_statements_cover_their_files_teardown():
    for done in (MEGATRON_DONE, LIGHTNING_DONE, TRAIN_METRICS):  # ms-swift's: its own incident, below (its dated line
        # would date the yearless NCCL lines 2026, three months after it: past TEARDOWN_WINDOW)
        ev = evidence({"train.log": [done, *NCCL_TEARDOWN]})
        assert attribute(ev) == [] and len(teardown(ev).noise) == 1, done


def test_a_ranks_death_after_the_success_is_never_teardown():
    """Only communicator errors are teardown: a rank's non-zero exit after the statement is still the job's."""
    ev = evidence({"train.log": [MEGATRON_DONE, RANK_FAILED]})
    assert [i.root.kind for i in attribute(ev)] == ["rank_exit"]


def test_the_command_says_no_failure_and_names_the_teardown():
    r = CliRunner().invoke(main, ["triage", str(INCIDENT / "logs")])
    assert r.exit_code == 1, r.output  # no failure found
    assert "No failure found in these logs." in r.output and "Teardown, not a failure: 1 line(s)" in r.output
    doc = json.loads(CliRunner().invoke(main, ["triage", "--format", "json", str(INCIDENT / "logs")]).stdout)
    assert doc["incidents"] == [] and [t["kind"] for t in doc["teardown"]] == ["nccl_error"]
    assert doc["teardown"][0]["after_success"]["fact"] == "mlperf_run_stop_success"


def test_ms_swifts_end_of_main_covers_the_watchdog_hang_of_its_teardown():
    """ms-swift #7992: `End time of running main` (its run() returned), then 18 min later rank 2's ProcessGroupNCCL
    watchdog hang while the many MoE process groups were torn down uncoordinated (the fix, PR #8385, destroys them):
    before, one undetermined incident rooted at the nccl_hang, the finished job read as failed."""
    ev = evidence({"node1.log": SWIFT})
    assert attribute(ev) == []
    assert [(e.kind, e.rank, s.details.get("fact")) for e, s in teardown(ev).noise] == [
        ("nccl_hang", 2, "swift_main_end")]
    # the same hang before the statement is the job's, as ever (SYNTHETIC order)
    assert [i.root.kind for i in attribute(evidence({"node1.log": [SWIFT_HANG, SWIFT_DONE]}))] == ["nccl_hang"]


def test_a_progress_line_or_an_epochs_end_is_no_statement_of_success():
    """Only the whole run's end: a step's loss dict, an epoch's start, a checkpoint saved are not (REAL lines)."""
    for line in (SWIFT[0],  # ms-swift #7992: "[INFO:swift] The training of Epoch 2 starts..."
                 # ms-swift #5297: the train loop's progress bar at 99%
                 "Train:  99%|█████████▉| 246/248 [43:41:57<21:19, 639.50s/it]",
                 # LlamaFactory #8261: a step's log dict (the reporter's paste numbers its lines)
                 "[1757] {'loss': 0.0, 'grad_norm': 1.4142135381698608, 'learning_rate': 4.3181818181818185e-06, 'epoch': 0.01}"):
        assert facts.success(line) is None, line


# REAL: AICrossSim/NewComputeBench docs/01-model-training/llm-pretrain-and-eval.md at 85ed92a8 (torchtitan's end of
# training, then rank 0 aborted while Python collected its garbage and torchrun reported rank 1's SIGABRT)
TITAN = (INCIDENT.parent / "torchtitan-aicrosssim-abort-after-success" / "logs" / "train.log").read_text().splitlines()
TITAN_DONE = TITAN[4]
# REAL: Udayeon/Udayeon.github.io _posts/projects/2022-10-04-cascadetrain.md at 022df9bb (torchrun 1.x, every agent's
# group succeeded and the exit barrier passed)
ELASTIC_DONE = "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: 0.0013725757598876953 seconds"
# REAL, the same post: one node's group succeeded (another node's may not have)
ELASTIC_LOCAL = ("INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (SUCCEEDED). Waiting "
                 "300 seconds for other agents to finish")
ELASTIC_GROUP = ("INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. "
                 "Waiting 300 seconds for other agents to finish.")
# REAL: stas00/ml-engineering multi-node/emulate-multi-node.md at 37524336 (DeepSpeed's launcher: one process exited 0)
DS_PROCESS = "worker-1: [2022-09-08 12:07:13,642] [INFO] [launch.py:318:main] Process 576485 exits successfully."

def test_the_new_success_statements_are_read():
    for line, row in ((TITAN_DONE, "torchtitan_training_completed"), (ELASTIC_DONE, "elastic_exit_barrier_done")):
        hit = facts.match(line)
        assert hit is not None and hit[0].name == row and hit[0].kind == "job_success", line
    # and through triage.read, its launcher's "[rank0]:" and the logger's leading time taken off first
    assert [e.details["fact"] for e in evidence({"train.log": [TITAN_DONE]}) if e.kind == "job_success"] == [
        "torchtitan_training_completed"]


def test_one_nodes_or_one_processs_success_is_not_the_jobs():
    """torchrun's local group and DeepSpeed's one process exiting 0 say nothing of the other nodes' ranks: not a
    statement of the job's success (REAL lines)."""
    for line in (ELASTIC_LOCAL, ELASTIC_GROUP, DS_PROCESS):
        assert facts.success(line) is None, line
        ev = evidence({"train.log": [line, *NCCL_TEARDOWN]})
        assert [i.root.kind for i in attribute(ev)] == ["nccl_error"], line


def test_the_new_statements_cover_their_files_teardown():
    """SYNTHETIC order (the statement, then HPE's NCCL teardown lines).  torchtitan's dated line is left out, as
    ms-swift's above: it would date HPE's lines a year apart from it, past TEARDOWN_WINDOW."""
    for done in (ELASTIC_DONE,):
        ev = evidence({"train.log": [done, *NCCL_TEARDOWN]})
        assert attribute(ev) == [] and len(teardown(ev).noise) == 1, done


def test_torchtitans_completed_run_that_aborted_at_exit_is_still_a_ranks_death():
    """AICrossSim's run: "Training completed", then rank 0's "Fatal Python error: Aborted" while garbage-collecting and
    torchrun's ChildFailedError for rank 1 (SIGABRT): the statement is read, and the death after it is the job's
    incident as ever (a rank's death is never teardown)."""
    ev = evidence({"train.log": TITAN})
    assert [e.line for e in ev if e.kind == "job_success"] == [5]
    assert [i.root.kind for i in attribute(ev)] == ["rank_exit"] and teardown(ev).noise == []


def test_covering_is_the_one_choice_of_the_statement():
    """triage.teardown.covering: the latest statement before the line, within TEARDOWN_WINDOW; shared by teardown()
    and the agent's pod-log source."""
    from triage.teardown import TEARDOWN_WINDOW, covering
    stated = [(3, 100.0, "a"), (10, 200.0, "b"), (20, None, "c")]
    assert covering(stated, 2, 50.0) is None  # before every statement
    assert covering(stated, 3, 100.0) is None  # the statement's own line
    assert covering(stated, 5, 150.0)[2] == "a"
    assert covering(stated, 12, 250.0)[2] == "b"  # the latest before, not the first
    assert covering(stated, 12, 200.0 + TEARDOWN_WINDOW + 1) is None  # past the window
    assert covering(stated, 25, 1e12)[2] == "c"  # a statement without a time: no window
    assert covering(stated, None, None) is None and covering([], 5, None) is None
    assert covering(list(reversed(stated)), 12, None)[2] == "b"  # order of the list does not matter


SHIKRA = INCIDENT.parent / "shikra-41-save-after-train" / "logs"


def test_the_trainers_train_runtime_summary_is_no_statement_of_success():
    """Hugging Face Trainer's `{'train_runtime': ..}` is train()'s return, before the script's save_model (an FSDP
    / ZeRO-3 gather: collectives): every era of it (numbers; transformers 5.x's strings), REAL lines, states nothing
    a later communicator error could be the teardown of.  The block log_metrics prints after the save does; its
    metric lines do not (one statement, not one a line)."""
    for line in (HF_RUNTIME, HF_RUNTIME_5X, TRAIN_METRIC):
        assert facts.success(line) is None, line
    assert facts.success(TRAIN_METRICS).name == "hf_train_metrics"
    assert [e.details["fact"] for e in evidence({"train.log": [HF_RUNTIME_5X, TRAIN_METRICS, TRAIN_METRIC]})
            if e.kind == "job_success"] == ["hf_train_metrics"]


def test_a_save_that_hung_after_train_runtime_is_the_jobs_failure():
    """shikras/shikra #41: train_runtime, then rank 0's watchdog timeout on the _ALLGATHER_BASE of the stuck FSDP
    save ("the program stuck at the model saving stage").  Before, the summary read as the job's success and the
    timeout as its teardown: "No failure found" for a job whose model was never saved."""
    ev = evidence({"train.log": (SHIKRA / "train.log").read_text().splitlines()})
    assert teardown(ev).noise == []
    assert [(i.category, i.root.kind) for i in attribute(ev)] == [("undetermined", "nccl_timeout")]


# REAL: https://github.com/HPDL-Group/Merak/issues/3 (ProcessGroupNCCL's cleanup loop polling an event after the CUDA
# runtime unloaded at exit; tests/fixtures/realworld/jobs-exit-2026j.yaml holds the frames between)
EXIT_CUDA = ["terminate called after throwing an instance of 'c10::CUDAError'", "  what():  CUDA error: driver shutting down"]
# REAL: https://github.com/sgl-project/sglang/issues/3713 (tests/fixtures/incidents/sglang-3713-tp0-illegal-access)
ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered"


def test_cudas_word_that_the_process_was_exiting_is_teardown_after_the_success():
    """SYNTHETIC order of REAL lines: Megatron's statement, then a process's "CUDA error: driver shutting down" (its
    CUDA runtime unloaded while its process group's cleanup loop still polled an event: the exit itself) is the
    teardown (triage.teardown.EXIT_CUDA_ERRORS); before the statement it is the job's (application: the program's
    exit order, never the GPU), and any other CUDA error after it (an illegal address) is never hidden."""
    ev = evidence({"train.log": [MEGATRON_DONE, *EXIT_CUDA]})
    assert attribute(ev) == [] and [e.kind for e, _ in teardown(ev).noise] == ["cuda_error"]
    assert [(i.root.kind, i.category) for i in attribute(evidence({"train.log": [*EXIT_CUDA, MEGATRON_DONE]}))] == [
        ("cuda_error", "application")]
    ev = evidence({"train.log": [MEGATRON_DONE, ILLEGAL]})
    assert [i.root.kind for i in attribute(ev)] == ["cuda_error"] and teardown(ev).noise == []


# REAL: mlcommons/training_results_v5.1 at 441d65f4, Dell/results/1xXE9685Lx8B200-SXM-180GB/retinanet/result_0.txt
# (8x B200, NCCL 2.25.1): rank 0's run_stop success (line 3885), then at the process's exit a barrier's new
# communicator failing on rank 7 (lines 4375-4380; ranks 1-6 the same), and srun's exit codes (lines 4884, 4887)
V51_RUN_STOP = '0: :::MLLOG {"namespace": "", "time_ms": 1760105838828, "event_type": "INTERVAL_END", "key": "run_stop", "value": null, "metadata": {"file": "/workspace/ssd/engine.py", "lineno": 315, "status": "success"}}'
V51_TEARDOWN = [
    "7: terminate called after throwing an instance of 'c10::DistBackendError'",
    '7:   what():  NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.25.1',
    '7: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.',
    '7: Last error:',
    '7: NET/IB : Requested properties for vNic 8, only 8 vNics have been created',
    '7: Exception raised from create at /opt/pytorch/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:77 (most recent call first):',
]
V51_EXITS = [
    'srun: error: timsnt8: tasks 1-7: Exited with exit code 134',
    'srun: error: timsnt8: task 0: Exited with exit code 143',
]


def test_a_rank_that_died_in_the_teardown_keeps_what_it_died_of():
    """MLPerf v5.1's run (the excerpt, in the file's order): the run succeeded, then every rank's exit barrier failed
    ("invalid usage", an IB vNic the plugin had not created) and srun reported the aborts.  A rank's death is never
    hidden, so there is an incident whatever; before, its cause was hidden as teardown and the incident was "only
    consequences" (undetermined, rooted at srun's exit); now the NCCL error the ranks died of is its root."""
    ev = evidence({"result_0.txt": [V51_RUN_STOP, *V51_TEARDOWN, *V51_EXITS]})
    assert teardown(ev).noise == []
    assert [(i.root.kind, i.root.rank) for i in attribute(ev)] == [("nccl_error", 7)]
    # without the deaths the same errors are the teardown, as ever (SYNTHETIC: the excerpt cut before srun's lines)
    ev = evidence({"result_0.txt": [V51_RUN_STOP, *V51_TEARDOWN]})
    assert attribute(ev) == [] and [e.kind for e, _ in teardown(ev).noise] == ["nccl_error"]
    # a death in another statement's span, or none's, gives back nothing: another file's success covers nothing here
    ev = evidence({"result_0.txt": [V51_RUN_STOP, *V51_TEARDOWN], "srun.log": V51_EXITS})
    assert [e.kind for e, _ in teardown(ev).noise] == ["nccl_error"]


def test_a_hang_after_megatrons_or_lightnings_statement_is_the_jobs_failure_their_exit_errors_are_not():
    """SYNTHETIC order of REAL lines.  Megatron-LM prints "[after training is done]" and then saves (every era:
    megatron/training/training.py pretrain()); Lightning's "`Trainer.fit` stopped: `max_epochs=N` reached." comes
    before on_train_end and the script's own trainer.save_checkpoint, a barrier (alan-turing-institute/autocast #381:
    the statement, then rank 0's watchdog timeout 30 min later, the job FAILED).  A watchdog's timeout after either (the
    shikra #41 save's lines, its hung _ALLGATHER_BASE) was hidden as teardown: "No failure found" for a save that hung.
    Now it is the job's failure; the exit's own errors (HPE's NCCL Close error) after them stay teardown, and a
    statement made after the final save (Trainer.log_metrics' block) covers the timeout as before."""
    hang = (SHIKRA / "train.log").read_text().splitlines()[1:]
    for done in (MEGATRON_DONE, LIGHTNING_DONE):
        ev = evidence({"train.log": [done, *hang]})
        assert teardown(ev).noise == [], done
        assert [(i.category, i.root.kind) for i in attribute(ev)] == [("undetermined", "nccl_timeout")], done
        ev = evidence({"train.log": [done, *NCCL_TEARDOWN]})
        assert attribute(ev) == [] and [e.kind for e, _ in teardown(ev).noise] == ["nccl_error"], done
    ev = evidence({"train.log": [TRAIN_METRICS, *hang]})
    assert attribute(ev) == [] and {e.kind for e, _ in teardown(ev).noise} == {"nccl_timeout"}


ORACLE = INCIDENT.parent / "mlperf-v50-oracle-retinanet-time-limit" / "logs" / "result_0.txt"
# REAL: mlcommons/training_results_v5.0 Oracle/results/1xBM.GPU.B200.8/retinanet/result_0.txt (its last 106 lines)
ORACLE_LINES = ORACLE.read_text().splitlines()


def test_a_time_limit_after_the_success_is_the_applications_hang_at_exit():
    """Oracle's run: run_stop success, rank 0's exit-time warning, then 9 minutes later Slurm cancels the step "DUE TO
    TIME LIMIT" (the script's own `srun --time=33`) and task 0 is Terminated.  Was: infrastructure (every time limit
    the scheduler's fault); now the application's, rank 0 on gpu-153, the reason saying it hung at exit after the
    stated success, and that statement among the evidence."""
    [incident] = attribute(evidence({"result_0.txt": ORACLE_LINES}))
    assert (incident.category, incident.rule, incident.root.kind, incident.root.rank, incident.root.host) == \
        ("application", "first_failure", "job_ended", 0, "gpu-153")
    assert "after the job stated its success at result_0.txt:1" in incident.reason and "hung at exit" in incident.reason
    assert [e.kind for e in incident.evidence][:2] == ["job_ended", "job_success"]
    # SYNTHETIC: the same lines without the statement: a time limit, still the job's own, said as such
    [alone] = attribute(evidence({"result_0.txt": ORACLE_LINES[1:]}))
    assert alone.category == "application" and "hung at exit" not in alone.reason
    assert "time limit the job was given" in alone.reason
    # a statement in another file says nothing of this one
    [other] = attribute(evidence({"rank0.log": ORACLE_LINES[:1], "result_0.txt": ORACLE_LINES[1:]}))
    assert "hung at exit" not in other.reason


DELL = INCIDENT.parent / "mlperf-v51-dell-retinanet-sigterm-after-success" / "logs" / "result_0.txt"
# REAL: mlcommons/training_results_v5.1 at 441d65f4, Dell/results/1xXE7745x8RTXPro6000-PCIe-96GB/retinanet/result_0.txt
# (its lines 1257-1367): run_stop success, rank 0's exit-time warning 3 s later, then "0: Terminated" and srun's
# "task 0: Exited with exit code 143" (RUNANDTIME_STOP 329 s after run_stop)
DELL_LINES = DELL.read_text().splitlines()
DELL_RUN_STOP = next(line for line in DELL_LINES if '"key": "run_stop"' in line)
DELL_EXIT = next(line for line in DELL_LINES if line.startswith("srun: error:"))
# REAL: ORACLE's srun line (a death by SIGTERM in srun's words); jiabowang/GAPIT #207's Slurm cancel that gives no
# reason (a scancel, or srun ending the step) and its task killed by SIGKILL
ORACLE_TERMINATED = next(line for line in ORACLE_LINES if line.endswith("task 0: Terminated"))
TIME_LIMIT = next(line for line in ORACLE_LINES if "DUE TO TIME LIMIT" in line)
GAPIT = (INCIDENT.parent / "gapit-207-srun-wait" / "logs" / "job.log").read_text().splitlines()
CANCELLED = next(line for line in GAPIT if "CANCELLED AT" in line)
KILLED = next(line for line in GAPIT if line.endswith(": Killed"))
# REAL: https://docs.nvidia.com/nemo-framework/user-guide/latest/resiliency.html (torchrun's agent told to stop, as
# NVIDIA's NeMo guide quotes it for a preemption)
AGENT_SIGTERM = "Received Signals.SIGTERM death signal, shutting down workers"


def test_a_sigterm_after_the_success_is_the_finished_jobs_end():
    """Dell's run: run_stop success, then 5.5 minutes later rank 0 SIGTERMed (srun's exit code 143), the result
    published as a valid run.  Was: an UNDETERMINED incident rooted at srun's line, not saying it came after the
    success; now no incident, srun's line said as the end after the statement."""
    assert DELL_RUN_STOP.startswith("0: :::MLLOG") and '"status": "success"' in DELL_RUN_STOP
    assert DELL_EXIT == "srun: error: node014: task 0: Exited with exit code 143"
    ev = evidence({"result_0.txt": DELL_LINES})
    assert attribute(ev) == []
    # rank 0's "0: Terminated" (the shell's words behind srun's label: triage/facts.py shell_signal_words) and srun's
    # exit code 143, both SIGTERM after the success
    assert [(e.kind, e.signal, s.details["fact"]) for e, s in teardown(ev).noise] == \
        [("rank_exit", 15, "mlperf_run_stop_success")] * 2
    r = CliRunner().invoke(main, ["triage", str(DELL.parent)])
    assert r.exit_code == 1 and "No failure found in these logs." in r.output, r.output
    assert "after the job stated its success" in r.output and "exit code 143" in r.output


def test_every_end_by_anothers_hand_after_the_success_is_no_failure_a_crash_or_a_kill_is():
    """SYNTHETIC order of REAL lines: after each file's statement of success (MLPerf's, ms-swift's, Hugging Face's
    block after the save), a rank Terminated or exit 143, a cancel that gives no reason, torchrun's agent told to stop
    by SIGTERM: the finished job's end, no incident.  Not so a statement made before the final save (Megatron's,
    Lightning's: what was stopped may be the save), another file's statement, a SIGKILL, a time limit, nor a crash in
    the same span (its SIGTERMed ranks then its consequences, as in the B200 run)."""
    for done in (DELL_RUN_STOP, SWIFT_DONE, TRAIN_METRICS):
        for end in (DELL_EXIT, ORACLE_TERMINATED, CANCELLED, AGENT_SIGTERM):
            ev = evidence({"train.log": [done, end]})
            assert attribute(ev) == [] and len(teardown(ev).noise) == 1, (done, end)
            assert attribute(evidence({"rank0.log": [done], "train.log": [end]})) != [], (done, end)
    for done in (MEGATRON_DONE, LIGHTNING_DONE):
        for end in (DELL_EXIT, CANCELLED, AGENT_SIGTERM):
            assert attribute(evidence({"train.log": [done, end]})) != [], (done, end)
    for end in (KILLED, TIME_LIMIT):
        assert attribute(evidence({"train.log": [DELL_RUN_STOP, end]})) != [], end
    [crash] = attribute(evidence({"result_0.txt": [V51_RUN_STOP, *V51_TEARDOWN, *V51_EXITS]}))
    assert crash.root.kind == "nccl_error" and teardown(evidence({"result_0.txt": [V51_RUN_STOP, *V51_EXITS]})).noise == []


def test_the_teardown_kinds_are_the_rows_that_say_so():
    """A kind's teardown role is a field of its row (parsers/kinds.py Kind, triage/facts.py JobKind), not a list of
    names beside the tables; a teardown's line is a consequence of another's failure, never a job's root."""
    from parsers.kinds import TABLE  # noqa: PLC0415
    from triage.teardown import TEARDOWN_KINDS  # noqa: PLC0415

    rows = {k.name: k for k in (*TABLE, *facts.JOB_TABLE)}
    assert TEARDOWN_KINDS == {name for name, k in rows.items() if k.teardown}
    assert TEARDOWN_KINDS >= {"nccl_error", "nccl_timeout", "store_error", "barrier_timeout"}
    assert all(rows[name].consequence for name in TEARDOWN_KINDS)


# REAL: mlcommons/training_results_v4.0 at 6fe95437, Fujitsu/results/GX2560M7_H100_SXM_80GBx4/llama2_70b_lora/result_0.txt
# (tests/fixtures/realworld/wholelogs.yaml): the helper step mlperf-sysjson.sh exits 1 (line 6), the training step
# states run_stop success (line 747)
FUJITSU = Path(__file__).parents[1] / "fixtures" / "realworld" / "healthy" / \
    "mlperf-h100-gx2560m7-llama2-lora-sysjson-step.log"
FUJITSU_LINES = FUJITSU.read_text().splitlines()
SYSJSON_EXIT = FUJITSU_LINES[5]
FUJITSU_RUN_STOP = FUJITSU_LINES[746]
# REAL: jiabowang/GAPIT #207 (srun's --wait summary of a task that ended abnormally)
ABNORMAL = "yhrun: StepId=1544235.0 task 1: exited abnormally"


def test_an_earlier_slurm_steps_end_before_the_success_is_no_failure():
    """Fujitsu's run: a helper step's srun exits 1 at the start, then the training step reaches run_stop success.
    Was: an UNDETERMINED incident, rank 0 the suspect; now none, srun's line said as an earlier step's end."""
    assert SYSJSON_EXIT == "srun: error: mlperf-h100-0208: task 0: Exited with exit code 1"
    assert '"key": "run_stop"' in FUJITSU_RUN_STOP and '"status": "success"' in FUJITSU_RUN_STOP
    ev = evidence({"result_0.txt": FUJITSU_LINES})
    assert attribute(ev) == []
    split = teardown(ev)
    assert split.noise == [] and [(e.kind, e.line, s.line, s.details["fact"]) for e, s in split.earlier] == \
        [("rank_exit", 6, 747, "mlperf_run_stop_success")]
    r = CliRunner().invoke(main, ["triage", str(FUJITSU)])
    assert r.exit_code == 1 and "No failure found in these logs." in r.output, r.output
    assert "An earlier step, not a failure: 1 line(s)" in r.output and "Exited with exit code 1" in r.output
    doc = json.loads(CliRunner().invoke(main, ["triage", "--format", "json", str(FUJITSU)]).stdout)
    assert doc["incidents"] == [] and "teardown" not in doc
    assert [(s["line"], s["before_success"]["line"]) for s in doc["earlier_steps"]] == [(6, 747)]


def test_only_a_slurm_steps_end_before_the_same_files_success_is_an_earlier_step():
    """SYNTHETIC order of REAL lines: srun's step ends (an exit code, a SIGKILL, --wait's "exited abnormally") before
    each statement of success are earlier steps; the same line with no statement after it in its file (none, one
    before it, another file's), or torchrun's report of a rank's death before the statement, stays the job's
    failure."""
    for done in (FUJITSU_RUN_STOP, MEGATRON_DONE, SWIFT_DONE, TRAIN_METRICS):
        for end in (SYSJSON_EXIT, KILLED, ABNORMAL):
            ev = evidence({"train.log": [end, done]})
            assert attribute(ev) == [] and len(teardown(ev).earlier) == 1, (done, end)
            assert attribute(evidence({"train.log": [end]})) != [], end
            assert attribute(evidence({"rank0.log": [done], "train.log": [end]})) != [], (done, end)
        assert attribute(evidence({"train.log": [RANK_FAILED, done]})) != [], done
    # a statement before the exit code 1 covers it no more than before: a crash after the success is the job's
    assert [i.root.kind for i in attribute(evidence({"train.log": [FUJITSU_RUN_STOP, SYSJSON_EXIT]}))] == ["rank_exit"]


SUPERMICRO = INCIDENT.parent / "mlperf-v50-supermicro-retinanet-abort-after-success" / "logs"
# REAL: mlcommons/training_results_v5.0 Supermicro/results/AS-A126GS-TNBR/retinanet/result_02.txt (its last 293 lines,
# https://github.com/mlcommons/training_results_v5.0/blob/0fdc28f013256aea84fa36fdaf1e0fa46094b18c/Supermicro/results/AS-A126GS-TNBR/retinanet/result_02.txt)
SUPERMICRO_LINES = (SUPERMICRO / "result_02.txt").read_text().splitlines()
AT_EXIT = "the job had done its work, the failure is in its teardown or exit"


def test_a_crash_after_the_success_says_it_came_after_it():
    """Supermicro's run: run_stop success (line 9), then ranks 1-7 abort on NCCL's `invalid usage` creating a barrier's
    communicator at exit (exit code 134) and rank 0 runs into the step's time limit.  The verdict is as before (the
    application's, on as-a126gs-tnbr: a crash is never teardown); was: no word of the success before it, the SRE
    left to read a good training result as a failed one.  Now the incident carries the statement (`after_success`)
    and its reason says the failure came after it, at its file and line."""
    [incident] = attribute(evidence({"result_02.txt": SUPERMICRO_LINES}))
    assert (incident.category, incident.root.kind, incident.root.host) == ("application", "nccl_error", "as-a126gs-tnbr")
    s = incident.after_success
    assert s is not None and (s.kind, s.file, s.line) == ("job_success", "result_02.txt", 9)
    assert '"key": "run_stop"' in s.text
    assert incident.reason.endswith(f"; it came after the job stated its success at result_02.txt:9: {AT_EXIT}")
    assert incident.to_dict()["after_success"]["line"] == 9
    # the same lines without the statement: the same verdict, no word of a success
    [alone] = attribute(evidence({"result_02.txt": SUPERMICRO_LINES[:8] + SUPERMICRO_LINES[9:]}))
    assert (alone.category, alone.root.kind, alone.after_success) == ("application", "nccl_error", None)
    assert "stated its success" not in alone.reason and alone.to_dict()["after_success"] is None


def test_the_command_says_the_crash_came_after_the_success():
    """The text output's `why` and the JSON document's `after_success` (the statement's file, line, time, text)."""
    r = CliRunner().invoke(main, ["triage", str(SUPERMICRO)])
    why = [line for line in r.output.splitlines() if line.lstrip().startswith("why:")]
    assert len(why) == 1 and f"it came after the job stated its success at result_02.txt:9: {AT_EXIT}" in why[0]
    doc = json.loads(CliRunner().invoke(main, ["triage", "--format", "json", str(SUPERMICRO)]).stdout)
    [i] = doc["incidents"]
    assert i["after_success"]["line"] == 9 and i["after_success"]["kind"] == "job_success"
    assert i["after_success"]["file"].endswith("result_02.txt") and "run_stop" in i["after_success"]["text"]


def test_every_incident_after_the_success_says_so_once():
    """Oracle's hang at exit says the statement once, with the time limit's meaning there; torchtitan's abort at exit
    (AICrossSim: "Training completed", then SIGABRT) says it with the general meaning; a statement Megatron makes
    before its final save says so.  Another file's statement counts where the clock puts it before the failure."""
    [oracle] = attribute(evidence({"result_0.txt": ORACLE_LINES}))
    assert oracle.after_success is not None and oracle.after_success.line == 1
    assert oracle.reason.count("stated its success") == 1 and AT_EXIT not in oracle.reason
    [titan] = attribute(evidence({"train.log": TITAN}))
    assert titan.after_success is not None and titan.after_success.line == 5
    assert titan.reason.endswith(f"; it came after the job stated its success at train.log:5: {AT_EXIT}")
    # SYNTHETIC files: one node's file states the success (ms-swift's, stamped 18:00:31), another node's watchdog hangs
    # 18 minutes later: not that file's teardown (another file's statement hides nothing), but after the success
    [other] = attribute(evidence({"node0.log": SWIFT[:2], "node1.log": SWIFT[2:]}))
    assert other.root.kind == "nccl_hang"
    assert other.after_success is not None and (other.after_success.file, other.after_success.line) == ("node0.log", 2)
    assert other.reason.endswith(f"; it came after the job stated its success at node0.log:2: {AT_EXIT}")
    # ... never where the other file's statement has no time to place it (MLPerf's MLLOG line: its time_ms is no stamp)
    [unplaced] = attribute(evidence({"rank0.log": ORACLE_LINES[:1], "result_0.txt": ORACLE_LINES[1:]}))
    assert unplaced.after_success is None and "stated its success" not in unplaced.reason
    # SYNTHETIC order of REAL lines: before Megatron's final save
    [megatron] = attribute(evidence({"train.log": [MEGATRON_DONE, RANK_FAILED]}))
    assert megatron.root.kind == "rank_exit" and megatron.after_success is not None
    assert megatron.reason.endswith("at train.log:1: a statement made before its final save, which may be what failed")


def test_the_words_an_event_says_of_a_stated_success_read_back():
    """The agent's words for a failure after its log's statement of success (one with both times, one without) and
    the cluster's reading of them, inside an Event's words; none in words that do not say it."""
    from triage.teardown import read_stated, stated_words

    with_time = stated_words((747, 1000.0, "mlperf_run_stop_success"), 812, 1003.4)
    assert read_stated(f"A rank's process ended (rank 6; signal 6 SIGABRT){with_time} [container main]") == (
        "mlperf_run_stop_success", 747, 3.0, 812)
    assert read_stated(stated_words((5, None, "swift_main_end"), 9, 1.0)) == ("swift_main_end", 5, None, 9)
    assert read_stated("A rank's process ended (rank 6; signal 6 SIGABRT) [container main]") is None
