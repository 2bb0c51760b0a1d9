"""Triage of a program that rejected its command line (h577): Python's argparse prints its usage, then
"<prog>: error: <message>", and exits 2 (triage/facts.py row `argparse_error`, kind `argument_error`, application):
the launcher and the script disagree on its arguments (torchrun's `--local-rank=N` where the script declares
`--local_rank`), or the job's command is wrong.  Was: torchrun's "failed (exitcode: 2) local_rank: 0" alone,
"UNDETERMINED" (rule first_rank_death).  And a SystemExit with a non-zero code in a traceback is a failure (was: a
stop whatever its code); with 0 or none, or raised in a SIGTERM handler, still a stop.

Lines marked REAL are copied verbatim from the public source beside them; SYNTHETIC ones are Python's traceback
shapes around them.
"""

from __future__ import annotations

import pytest

from triage import Clock, attribute, facts, read_lines

# REAL: https://github.com/lmy98129/VLPD/issues/6 (the incident tests/fixtures/incidents/h577_vlpd-6-local-rank-argparse)
VLPD = ["usage: trainval_distributed.py [-h] [--work-dir WORK_DIR] [--local_rank LOCAL_RANK]",
        "trainval_distributed.py: error: unrecognized arguments: --local-rank=1",
        "usage: trainval_distributed.py [-h] [--work-dir WORK_DIR] [--local_rank LOCAL_RANK]",
        "trainval_distributed.py: error: unrecognized arguments: --local-rank=0",
        "[2023-12-08 01:40:46,962] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 2) "
        "local_rank: 0 (pid: 53342) of binary: /home/ashitha/miniconda3/envs/Ashenv/bin/python"]
# REAL: https://github.com/skycrapers/TecoGAN-PyTorch/issues/31 (no usage line quoted)
TECOGAN = ["main.py: error: unrecognized arguments: --local-rank=0",
           "main.py: error: unrecognized arguments: --local-rank=1",
           "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 2) local_rank: 0 (pid: 622423) of "
           "binary: /home/rong/anaconda3/envs/tecogan/bin/python"]
# REAL: https://github.com/huggingface/pytorch-image-models/issues/1724
TIMM = "train.py: error: unrecognized arguments: --local-rank=4"
# REAL: https://github.com/FudanNLP/CPT/issues/65 (torch.distributed.launch 1.x's underscore, a script declaring none)
CPT = "train_adgen.py: error: unrecognized arguments: --local_rank=2"
# REAL: https://github.com/open-mmlab/mmdetection/issues/488
REQUIRED = "train.py: error: the following arguments are required: config"
# REAL: https://github.com/OpenNMT/OpenNMT-py/issues/2012 (a console script's name, no .py)
REQUIRED_ONMT = "onmt_train: error: the following arguments are required: -data/--data"
# REAL: https://github.com/open-mmlab/mmdetection/issues/6664 (the launcher's own command line: an empty GPU count)
INVALID_LAUNCH = "launch.py: error: argument --nproc_per_node: invalid int value: ''"
# REAL: https://github.com/tiandunx/FFC/issues/3 (a positional argument)
INVALID_POSITIONAL = "main.py: error: argument world_size: invalid int value: 'mobile_ms_0.01id'"
# REAL: https://github.com/bearpaw/pytorch-pose/issues/12 (argparse's choices in parentheses after the value)
INVALID_CHOICE = ("mpii.py: error: argument --arch/-a: invalid choice: 'hg' (choose from 'hg1', 'hg2', 'hg4', 'hg8', "
                  "'preresnet110', 'preresnet1202', 'preresnet20', 'preresnet32', 'preresnet44', 'preresnet56')")
# REAL: https://github.com/kaylode/facemask-removal/issues/5 (Spyder's %tb: argparse's exit in a traceback)
SYSEXIT_2 = ["  File \"C:\\Anaconda\\envs\\test\\lib\\argparse.py\", line 2508, in exit",
             "    _sys.exit(status)", "", "SystemExit: 2"]
# REAL: https://github.com/vllm-project/vllm-ascend/issues/901 (Ray's SIGTERM handler, the executor's shutdown)
RAY_SIGTERM = ['  File "/usr/local/python3.10.17/lib/python3.10/site-packages/ray/_private/worker.py", line 1539, in '
               'sigterm_handler', "    sys.exit(signum)", "SystemExit: 15"]
_TB = ["Traceback (most recent call last):", '  File "train.py", line 10, in <module>']


def _job(lines: list[str]):
    return attribute(read_lines(lines, "/logs/job.log", Clock(), root="/logs", year=2026))


def _rejected(lines: list[str]):
    return [e for e in read_lines(lines, "/logs/job.log", Clock(), root="/logs", year=2026) if e.kind == "argument_error"]


@pytest.mark.parametrize("lines, prog, local_rank", [
    (VLPD, "trainval_distributed.py", 1),
    (TECOGAN, "main.py", 0),
])
def test_a_rank_that_rejected_its_command_line_is_the_applications(lines, prog, local_rank):
    """VLPD #6, TecoGAN #31: was "undetermined" (first_rank_death, exit code 2); the rank's own argparse error, first
    in the file, names the local rank the launcher's `--local-rank` gave it and the message."""
    (incident,) = _job(lines)
    assert (incident.category, incident.rule, incident.root.kind) == ("application", "first_failure", "argument_error")
    assert _rejected(lines)[0].local_rank == local_rank
    assert f"command line rejected by {prog} ('unrecognized arguments: --local-rank={local_rank}')" in incident.reason
    assert f"local rank {local_rank}" in incident.reason


@pytest.mark.parametrize("line, local_rank", [
    (TIMM, 4), (CPT, 2), (REQUIRED, None), (REQUIRED_ONMT, None), (INVALID_LAUNCH, None), (INVALID_POSITIONAL, None),
])
def test_argparses_messages_are_read(line, local_rank):
    """argparse's family of messages (unrecognized, required, an invalid value of an option or a positional), each
    its program's own: the job's command, the application's."""
    (incident,) = _job([line])
    assert (incident.category, incident.root.kind) == ("application", "argument_error")
    assert _rejected([line])[0].local_rank == local_rank
    assert line.split(": error: ", 1)[1] in incident.reason


def test_a_rejection_cut_at_a_parenthesis_says_no_space_before_it():
    """pytorch-pose #12: argparse's "invalid choice: 'hg' (choose from ..)": the message is said up to the
    parenthesis (the Event's own separator), without the space before it, offline and live (was: "invalid choice:
    'hg' '" in the verdict, "'hg' )" in the Event's words)."""
    from triage.read import job_fact

    assert _rejected([INVALID_CHOICE])[0].details["rejected"] == "argument --arch/-a: invalid choice: 'hg'"
    (incident,) = _job([INVALID_CHOICE])
    assert "command line rejected by mpii.py ('argument --arch/-a: invalid choice: 'hg'') on" in incident.reason
    row, said = job_fact(INVALID_CHOICE)
    assert facts.words(row, said).endswith("rejected argument --arch/-a: invalid choice: 'hg')")
    _, back = facts.read_words("ArgumentsRejected", facts.words(row, said))
    assert (back["prog"], back["rejected"]) == ("mpii.py", "argument --arch/-a: invalid choice: 'hg'")


@pytest.mark.parametrize("line", [
    # SYNTHETIC: lines holding "error:" in no argparse shape
    "srun: error: node017: task 3: Exited with exit code 2",
    "ERROR: unrecognized arguments in config",
    "2023-12-08 error: unrecognized arguments: --x",
    "[rank0]: RuntimeError: error: argument mismatch",
    "main.py: error: something else went wrong",
    "WARNING: main.py: error: unrecognized arguments: --local-rank=0 was seen in an old run",
    # SYNTHETIC: absl's and Fire's words in no rejection's shape
    "logging.error('FATAL Flags parsing errors are fatal')",
    "ERROR: Could not consume args_file from the config",
    "WARNING: the function received no value for the optional argument: seed",
])
def test_error_words_without_argparses_shape_are_not_read(line):
    hit = facts.match(line)
    assert hit is None or hit[0].kind != "argument_error"


def test_the_agent_publishes_the_rejection_and_the_cluster_reads_it_back():
    """Live: the pod's line is an ArgumentsRejected Event naming the program, the local rank and the message, read
    back into the same fields."""
    from triage.read import job_fact

    row, said = job_fact(VLPD[1])
    assert (row.kind, row.reason) == ("argument_error", "ArgumentsRejected")
    assert said["local_rank"] == 1 and said["prog"] == "trainval_distributed.py"
    text = facts.words(row, said)
    assert "rejected unrecognized arguments: --local-rank=1" in text
    back = facts.read_words("ArgumentsRejected", text)
    assert back is not None


def test_a_non_zero_system_exit_is_a_failure():
    """kaylode/facemask-removal #5: argparse's `_sys.exit(status)`, "SystemExit: 2", in a traceback: was a stop (no
    failure) whatever its code; a non-zero code, or a message (it exits 1), is the program's own failure."""
    (incident,) = _job([*_TB, *SYSEXIT_2])
    assert (incident.category, incident.root.kind) == ("application", "exception")
    (incident,) = _job([*_TB, "SystemExit: bad config"])
    assert incident.category == "application"
    (incident,) = _job([*_TB, "SystemExit: True"])  # sys.exit(True) exits 1
    assert incident.category == "application"


@pytest.mark.parametrize("tail", [["SystemExit"], ["SystemExit: 0"], ["SystemExit: None"], ["SystemExit: False"],
                                  RAY_SIGTERM])
def test_a_clean_or_signalled_system_exit_is_still_a_stop(tail):
    """`sys.exit()`, `sys.exit(0)`, `sys.exit(False)` (False is the int 0: exit 0, printed "SystemExit: False"), and a
    SIGTERM handler's `sys.exit(signum)` (Ray's, vllm-ascend #901) stop the process: no failure.  Was: "SystemExit:
    False" a failure."""
    assert _job([*_TB, *tail]) == []


# absl's and Python Fire's rejections of a command line (h620): was "No failure found" (absl) and torchrun's exit
# alone, "UNDETERMINED" (Fire)
# REAL: https://github.com/google-deepmind/alphafold/issues/294 (an unknown flag, absl's suggestion after it)
ABSL_UNKNOWN = ["FATAL Flags parsing error: Unknown command line flag 'db_preset'. Did you mean: preset ?",
                "Pass --helpshort or --helpfull to see help on flags."]
# REAL: https://github.com/google-deepmind/alphafold/issues/719 (required flags missing: the message on the lines after)
ABSL_REQUIRED = ["FATAL Flags parsing error:",
                 "  flag --fasta_paths=None: Flag --fasta_paths must have a value other than None.",
                 "  flag --output_dir=None: Flag --output_dir must have a value other than None.",
                 "Pass --helpshort or --helpfull to see help on flags."]
# REAL: https://github.com/mozilla/telemetry-airflow/pull/860 (bq's, relayed behind Airflow's logger prefixes)
ABSL_RELAYED = ("[2020-02-21 18:32:14,717] {logging_mixin.py:95} INFO - [2020-02-21 18:32:14,717] {pod_launcher.py:104} "
                "INFO - FATAL Flags parsing error: Unknown command line flag '-'")
# REAL: https://github.com/LianjiaTech/BELLE/issues/102 (the incident tests/fixtures/incidents/h620_belle-102-fire-argument)
FIRE = ["ERROR: Could not consume arg: --model_config_file", "",
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 2) local_rank: 1 (pid: 37835) of binary: "
        "/home/xxx/miniconda3/envs/llama/bin/python3.10"]
# REAL: https://github.com/gpleiss/efficient_densenet_pytorch/issues/72 (Fire's words as the reporter quoted them)
FIRE_REQUIRED = "ERROR: The function received no value for the required argument: data"


@pytest.mark.parametrize("lines, said", [
    (ABSL_UNKNOWN, "command line rejected ('Unknown command line flag 'db_preset'. Did you mean: preset ?')"),
    (ABSL_REQUIRED, "argument error on"),
    ([ABSL_RELAYED], "command line rejected ('Unknown command line flag '-'')"),
    (FIRE, "command line rejected ('Could not consume arg: --model_config_file')"),
    ([FIRE_REQUIRED], "command line rejected ('The function received no value for the required argument: data')"),
])
def test_absl_and_fire_rejections_are_the_applications(lines, said):
    """alphafold #294 / #719, telemetry-airflow #860, BELLE #102, efficient_densenet_pytorch #72: absl's "FATAL Flags
    parsing error" (was: no failure) and Fire's "ERROR: Could not consume arg" (was: "undetermined", torchrun's exit
    code 2 alone) are the program's rejection of its command line: the application's, named without a program (none
    is printed) and with the message where the line has one."""
    (incident,) = _job(lines)
    assert (incident.category, incident.rule, incident.root.kind) == ("application", "first_failure", "argument_error")
    assert said in incident.reason
    assert "None" not in incident.reason.split(" on ")[0]


def test_fire_names_the_local_rank_a_launcher_passed():
    """Fire's rejected `--local_rank=N` (torch.distributed.launch's, BELLE #102's other reporter) is the writer's local
    rank, as argparse's (SYNTHETIC: Fire's words around torch.distributed.launch's argument)."""
    (fact,) = _rejected(["ERROR: Could not consume arg: --local_rank=3"])
    assert fact.local_rank == 3


def test_a_coloured_fire_error_is_read():
    """Fire colours "ERROR: " red and bold where termcolor does (SYNTHETIC: termcolor's escapes around FIRE's line)."""
    (fact,) = _rejected(["\x1b[1m\x1b[31mERROR: \x1b[0mCould not consume arg: --model_config_file"])
    assert fact.details["rejected"] == "Could not consume arg: --model_config_file"


def test_the_agent_publishes_an_absl_rejection_and_the_cluster_reads_it_back():
    """Live: absl's capitalised message (was: left out of the Event, its shape lower case only) is published and read
    back."""
    from triage.read import job_fact

    row, said = job_fact(ABSL_UNKNOWN[0])
    assert (row.kind, row.reason) == ("argument_error", "ArgumentsRejected")
    text = facts.words(row, said)
    assert "rejected Unknown command line flag 'db_preset'" in text
    assert facts.read_words("ArgumentsRejected", text)[1]["rejected"] == said["rejected"]
