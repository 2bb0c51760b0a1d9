"""A job that stated its own success, then printed communicator errors while tearing down: not a failed job.

A job's file may state that the job succeeded (triage.facts job_success rows: MLPerf's run_stop "status": "success",
Megatron's "[after training is done]", Lightning's `Trainer.fit` stopped at its max_epochs / max_steps, ms-swift's
"End time of running main", Hugging Face Trainer.log_metrics' "***** train metrics *****" after the script's save;
never the Trainer's {'train_runtime': ..} summary, printed before the script's final save; Megatron's and
Lightning's statements come before their final save too, and nothing of theirs after it, so they cover the exit's
errors but never a hang's, BEFORE_SAVE); NCCL and
c10d errors that file prints after it are the process group's teardown (HPE's MLPerf v5.0 stable_diffusion result_1:
run_stop success, then 3 s later PyTorch's "found async exception when checking for NCCL errors: NCCL error:
unhandled system error" whose last error is the proxy's "Failed to execute operation Close"), not the job's failure;
so is the finished job's end by another's hand after it (ENDED_SIGNALS: a rank SIGTERMed, its launcher told to stop,
Slurm's cancel that gives no reason; never a crash, a SIGKILL or a time limit).

Only the same file's later lines are covered (a rank's, a pod's, a launcher's own output: the success another file
states says nothing of this one), only communicator kinds (TEARDOWN_KINDS), CUDA's word that the process was
exiting (EXIT_CUDA_ERRORS: "driver shutting down") and such an end (a GPU or node fault, any other death of a rank, an
exception are never hidden), and only within TEARDOWN_WINDOW of the statement where both lines have a time.  Errors
before the statement are the job's as ever, but for a Slurm step's end (STEP_ENDS: srun's "task 0: Exited with exit
code 1"): the batch script went on to a later step, whose output states the success, so that step did not fail the
job (`earlier`); and where such a never-hidden failure (a rank's death) follows the same
statement in the same file, the errors of that teardown are what it died of and stay its evidence (offline only: the
agent reads a pod's log in order and has already held their Events back when a death comes). Pure: shared by the offline triage and the live
pod-log path.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Iterable, NamedTuple, Sequence, TypeVar

from parsers.finding import SEVERITY_RANK
from parsers.kinds import TABLE as KIND_TABLE

from .facts import JOB_TABLE, SRUN_TASK_ENDS
from .model import Evidence, as_int

S = TypeVar("S", bound=tuple)

# what a process group's teardown prints (NCCL's and PyTorch's communicator errors, the watchdog's lines, the store):
# the kinds whose row says `teardown`, the kind table's and triage's own
TEARDOWN_KINDS = frozenset(k.name for k in (*KIND_TABLE, *JOB_TABLE) if k.teardown)
# kinds that fail the job whatever their severity (the kernel's OOM killer: a warning for the node, the end of a rank
# for the job): `fails`, here and in triage.attribute
FAILURE_KINDS = frozenset(k.name for k in KIND_TABLE if k.fails_job)
# CUDA's own word that the process is exiting: a CUDA call made after its runtime unloaded (parsers/rules.py
# CUDA_ERRORS "driver shutting down", cudaErrorCudartUnloading), ProcessGroupNCCL's cleanup loop polling a collective's
# event at exit ("terminate called after throwing an instance of 'c10::CUDAError'", "  what():  CUDA error: driver
# shutting down", its frames in workCleanupLoop: HPDL-Group/Merak #3).  After the job's statement of success it is
# the teardown as the communicators' errors are; no other CUDA error ever is (a GPU's fault is never hidden).
EXIT_CUDA_ERRORS = frozenset({"driver shutting down", "cudaErrorCudartUnloading"})
# Statements a framework prints BEFORE its final save (and the save's collectives): Megatron-LM's pretrain() prints
# "[after training is done]" then saves (save_checkpoint, unless the loop's last iteration just did), every era
# (megatron/training/training.py); Lightning's fit loop says "`Trainer.fit` stopped: `max_epochs=N` reached." in its
# `done` check, then runs on_train_end (ModelCheckpoint's "Saving latest checkpoint..." in 1.x, a user's callback's
# trainer.save_checkpoint) and returns to the script, whose trainer.save_checkpoint ends in strategy.barrier()
# (alan-turing-institute/autocast #381: "`Trainer.fit` stopped", then rank 0's watchdog timeout on a one-element
# ALLREDUCE, the barrier of a post-fit save only rank 0 entered, 30 min later, the job FAILED).  Neither framework
# prints anything of its own after that save: such a statement covers the exit's errors (a connection closed, the
# store gone, CUDA unloading), never a hang's (HANG_KINDS): a collective or barrier that timed out after it may be
# the save's, and is the job's failure.
# Megatron's own `  [..] successfully saved checkpoint from iteration N to DIR [ t 1/8, p 1/1 ]` after "[after training
# is done]" is NO statement that the end was reached (no row, no two-line rule; megatron/training/training.py pretrain()
# and checkpointing.py save_checkpoint(), 2024-06 152c562, 2025-03 8a5521a, 2026-08 d98e8a6): rank 0 prints it between
# two barriers of a synchronous save (the second, every rank, follows it), the final save made through
# save_checkpoint_and_time (2026) then logs its timers (min / max over the ranks: a collective), and pretrain() runs the final evaluation over the validation and test
# sets when do_valid / do_test (a dataset split with --eval-iters > 0: forward steps and all-reduces, the `validation
# loss at iteration N on validation set` block after it), then waits out any async save (maybe_finalize_async_save:
# with --async-save the final save's line comes only there, after the evaluation; its own line before is `scheduled an
# async checkpoint save at iteration N`).  A hang after it may still be the job's: the same line every periodic save
# prints stays no statement, and a pair of them would vouch for a hang in the evaluation.
BEFORE_SAVE = frozenset({"megatron_training_done", "lightning_fit_stopped"})
# what a collective or barrier that never completed prints: the watchdog's timeout and its progress / dump lines,
# the heartbeat monitor's stuck watchdog, a barrier's timeout (the rows' `hang`)
HANG_KINDS = frozenset(k.name for k in (*KIND_TABLE, *JOB_TABLE) if k.hang)
# A finished job's end by another's hand: after its file stated the job's success, a rank ended by a signal that asks a
# process to stop (SIGTERM, SIGINT, SIGHUP: a user's scancel or kill, srun ending the step, a launcher's end of its
# workers, Kubernetes deleting the pod; srun's "task 0: Exited with exit code 143", a shell's 128 + 15), its launcher
# told to stop by one ("Received Signals.SIGTERM death signal"), or Slurm's cancel that gives no reason (a scancel):
# the end of a job that had done its work, not its failure (MLPerf v5.1 Dell 1xXE7745x8RTXPro6000-PCIe-96GB
# retinanet result_0: run_stop success, rank 0's "destroy_process_group() was not called" warning 3 s later, then
# 5.5 minutes on "0: Terminated" and "srun: error: node014: task 0: Exited with exit code 143"; the result published
# as a valid run).  Never a crash (SIGABRT, SIGSEGV, an exit code of the program's own), SIGKILL (the OOM killer's
# too), nor a cancel that gives a reason: the scheduler's own decisions and a time limit (attribute.SLURM_ENDS, its
# after_success: a process still running at the limit hung at exit) stay incidents.  Like a hang it is a statement
# made before the final save that cannot vouch for it (BEFORE_SAVE: the save may be what was stopped).
ENDED_SIGNALS = frozenset({1, 2, 15})
ENDED_KINDS = frozenset(k.name for k in JOB_TABLE if k.ended)  # the rows' `ended`
# A Slurm step's end (srun's own line for its tasks, triage.facts SRUN_TASK_ENDS / srun_task_state) printed before the same
# file's statement of the job's success: the batch script ran that step, then a later one whose output states the
# success (a step's rank lines labelled by srun, "0: :::MLLOG .. run_stop .. success"), so the earlier step's end did
# not fail the job.  Fujitsu's MLPerf v4.0 GX2560M7 runs (llama2_70b_lora, stable_diffusion result_0): the helper
# step "srun --ntasks=1 .. mlperf-sysjson.sh" exits 1 for want of MLPERF_STATUS ("srun: error: mlperf-h100-0208:
# task 0: Exited with exit code 1", line 6), then the training step runs to run_stop success and its RESULT line;
# was one undetermined incident, rank 0 the suspect.  Only srun's step ends: a rank's own death another launcher
# reports (torchrun's ChildFailedError, Open MPI's), an exception or a fault before the statement stays the job's.
STEP_ENDS = SRUN_TASK_ENDS | {"srun_task_state"}
# seconds after the statement its file's communicator errors are taken for teardown (a watchdog's collective
# timeout, 10 to 30 minutes by default, may fire on the exit's last collective)
TEARDOWN_WINDOW = 3600.0


class Teardown(NamedTuple):
    """`kept`: the evidence with the teardown lines and earlier steps' ends left out; `noise`: (teardown line, the
    success it follows); `earlier`: (an earlier Slurm step's end, the success its file states after it: STEP_ENDS)."""
    kept: list[Evidence]
    noise: list[tuple[Evidence, Evidence]]
    earlier: list[tuple[Evidence, Evidence]]


def tears_down(kind: str, details: dict | None, signal: int | None = None) -> bool:
    """Whether a line of `kind` (its finding's `details`; its `signal`, else the one its details name) is one a
    statement of the job's success before it in its file covers: what a process group's teardown prints
    (TEARDOWN_KINDS, or a CUDA error that says the process was exiting: EXIT_CUDA_ERRORS), or the finished job's end
    by another's hand (`ends`).  The one choice of the offline triage and the agent's pod-log source, as `covering`."""
    return (kind in TEARDOWN_KINDS or (kind == "cuda_error" and (details or {}).get("cuda_error") in EXIT_CUDA_ERRORS)
            or ends(kind, details, signal))


def ends(kind: str, details: dict | None, signal: int | None = None) -> bool:
    """Whether a line of `kind` (its `details`; its `signal`, else the one its details name) is a finished job's end by
    another's hand (ENDED_SIGNALS, ENDED_KINDS): a rank's or its launcher's by a signal that asks a process to stop, or
    Slurm's cancel that gives no reason.  The one choice of the offline triage and the agent's pod-log source."""
    details = details or {}
    if kind == "job_ended":
        return details.get("fact") == "slurm_cancelled" and not details.get("why")
    return kind in ENDED_KINDS and (signal if signal is not None else as_int(details.get("signal"))) in ENDED_SIGNALS


def after_success(error_line: int | None, error_at: float | None, success_line: int | None,
                  success_at: float | None) -> bool:
    """Whether an error on `error_line` of a file (at `error_at`, epoch seconds or None) follows that file's
    statement of success on `success_line` closely enough to be its teardown."""
    if error_line is None or success_line is None or error_line <= success_line:
        return False
    return error_at is None or success_at is None or error_at - success_at <= TEARDOWN_WINDOW


def covering(stated: Sequence[S], line: int | None, at: float | None, kind: str = "") -> S | None:
    """The statement of success among `stated` (one file's, each a tuple whose first three fields are its line
    number, its time, epoch seconds or None, and its row's name) that covers an error of `kind` on `line` at `at` as
    its teardown: the latest made before that line, where the error falls within TEARDOWN_WINDOW of it and is no hang
    a statement made before the final save cannot vouch for (BEFORE_SAVE, HANG_KINDS); else None.  The one choice the
    offline triage (`teardown`) and the agent's pod-log source (agent/sources/podlogs.py `_teardown`) both make."""
    if line is None:
        return None
    latest = None
    for s in stated:
        if s[0] is not None and s[0] < line and (latest is None or s[0] > latest[0]):
            latest = s
    if latest is None or not after_success(line, at, latest[0], latest[1]):
        return None
    if (kind in HANG_KINDS or kind in ENDED_KINDS) and latest[2] in BEFORE_SAVE:
        return None
    return latest


def teardown(evidence: Iterable[Evidence]) -> Teardown:
    """The evidence split into what stays and the teardown noise after a success its own file stated."""
    evidence = list(evidence)
    stated: dict[str, list[tuple[int, float | None, str, Evidence]]] = {}
    for e in evidence:
        if e.kind == "job_success" and e.file is not None and e.line is not None:
            stated.setdefault(e.file, []).append((e.line, file_time(e.time), e.details.get("fact", ""), e))
    if not stated:
        return Teardown(evidence, [], [])
    kept, noise, earlier = [], [], []
    for e in evidence:
        hit = (covering(stated[e.file], e.line, file_time(e.time), e.kind)
               if tears_down(e.kind, e.details, e.signal) and e.file in stated else None)
        later = (_later(stated[e.file], e.line)
                 if hit is None and e.details.get("fact") in STEP_ENDS and e.file in stated else None)
        if hit is not None:
            noise.append((e, hit[3]))
        elif later is not None:
            earlier.append((e, later[3]))
        else:
            kept.append(e)
    # a failure never hidden (a rank's death, an exception, a fault) in the same statement's teardown: the errors
    # there are what it died of, its evidence, not noise (MLPerf v5.1 Dell 1xXE9685Lx8B200 retinanet result_0: run_stop
    # success, then ranks 1-7's teardown barrier failing, "invalid usage", and srun's "tasks 1-7: Exited with exit code
    # 134": hidden, the incident was "only consequences", undetermined; kept, it names the NCCL error)
    died = {id(s[3]) for e in kept if e.file in stated and fails(e)
            for s in [covering(stated[e.file], e.line, file_time(e.time))] if s is not None}
    if died:
        kept += [e for e, s in noise if id(s) in died]
        noise = [(e, s) for e, s in noise if id(s) not in died]
    return Teardown(kept, noise, earlier)


# The words a node agent's Pod Event adds for a failure its pod's log printed after that log's statement of the job's
# success (agent/sources/podlogs.py `_teardown`, within TEARDOWN_WINDOW where both lines have a time: `covering`), and
# their reading back by the cluster (cluster/evidence.py): the statement's row, its line and how long before the
# failure, and the failure's own line; the cluster's triage then says of its incident what offline's says
# (`stated_before`, triage.attribute `_after_success`).  An Event carries neither a line's place nor the lines before it
# otherwise.
STATED_WORDS = re.compile(r" It came after its log stated the job's success \(([a-z_]+) on line (\d+)"
                          r"(?:, (\d+) s before)?; this on line (\d+)\)\.")


def stated_words(stated: tuple, line: int, at: float | None) -> str:
    """The Event's words (STATED_WORDS) for a failure on `line` at `at` (epoch seconds or None) after the statement of
    success `stated` (its line, its time or None, its row's name: `covering`'s)."""
    before = f", {max(0, round(at - stated[1]))} s before" if at is not None and stated[1] is not None else ""
    return (f" It came after its log stated the job's success ({stated[2]} on line {stated[0]}{before}; "
            f"this on line {line}).")


def read_stated(text: str) -> tuple[str, int, float | None, int] | None:
    """STATED_WORDS in an Event's words: (the statement's row, its line, seconds before the failure or None, the
    failure's line); None where they are not."""
    m = STATED_WORDS.search(text)
    if m is None:
        return None
    return m.group(1), int(m.group(2)), float(m.group(3)) if m.group(3) is not None else None, int(m.group(4))


def stated_before(stated: Iterable[Evidence], e: Evidence) -> Evidence | None:
    """The job's statement of its own success (job_success evidence among `stated`) that a failure `e` came after:
    its own file's latest before its line, within TEARDOWN_WINDOW where both have a time (`covering`, any kind: a
    hang's too, the failure is said, never hidden), else another file's latest made before it on the job's aligned
    clock, within TEARDOWN_WINDOW (rank 0 states MLPerf's run_stop, another rank's or node's file crashes); None where
    none was.  What an incident says of a failure in the teardown or exit of a job that had done its work
    (triage.attribute `_after_success`: an SRE's different urgency and owner), whatever its category."""
    stated = [s for s in stated if s.kind == "job_success" and s.line is not None]
    own = covering([(s.line, file_time(s.time), "", s) for s in stated if s.file == e.file], e.line, file_time(e.time))
    if own is not None:
        return own[3]
    at = file_time(e.time)
    others = [s for s in stated if s.file != e.file and s.time is not None and at is not None
              and 0 < at - file_time(s.time) <= TEARDOWN_WINDOW]
    return max(others, key=lambda s: s.time) if others else None


def _later(stated: Sequence[S], line: int | None) -> S | None:
    """The first statement of success among `stated` (one file's, by line) made after `line`, else None."""
    after = [s for s in stated if line is not None and s[0] is not None and s[0] > line]
    return min(after, key=lambda s: s[0]) if after else None


def fails(e: Evidence) -> bool:
    """A failure of the job (an error, or a kind that fails the job): triage.attribute's Job.failures, and here what
    keeps a teardown's errors as its evidence."""
    return SEVERITY_RANK.get(e.severity, 0) >= SEVERITY_RANK["error"] or e.kind in FAILURE_KINDS


def file_time(when: datetime | None) -> float | None:
    """A line's time in its file's own clock (epoch seconds, None for a line without one): what a teardown's error and
    its statement of success are compared in, offline (an evidence's time) and by the agent's pod-log source (a
    finding's, an envelope's) alike; never capped at a reader's clock (parsers/finding.py `seen_at`), so both lines of
    a file read ahead of it keep their spacing."""
    return when.timestamp() if when is not None else None
