"""Triage of Slurm launches that failed before the task's program ran (h554): slurmstepd's "execve(): <prog>: <errno>"
(triage/facts.py rows `slurm_script_execve`, `slurm_execve`) and srun's "Unable to create step for job N: <reason>"
(`srun_step_request`, `srun_step_controller`), each a `launch_error` whose category is the line's: the batch script's
copy in slurmd's spool the node's (infrastructure), any other program the job's own (application, the row's
`category`), a step that asks more than the allocation holds the job's request, the controller not answering the
scheduler's; "Job/step already completing or completed" the job's end, not read.  Was: srun's exit line alone
("undetermined"), or nothing ("No failure found").

Lines marked REAL are copied verbatim from the public source beside them; CONSTRUCTED lines are Slurm's own format
(its source's format string and slurm_errno.c's words) with no public log of them found.
"""

from __future__ import annotations

from pathlib import Path

from triage import Clock, attribute, read_lines

INCIDENTS = Path(__file__).resolve().parents[1] / "fixtures" / "incidents"

# REAL: https://github.com/firelab/windninja/issues/624 (20 such lines, then srun's; the incident
# tests/fixtures/incidents/h554_windninja-624-execve)
MKDIR = "slurmstepd: error: execve(): mkdir: No such file or directory"
WINDNINJA_EXIT = "srun: error: bear-pg0104u25b: tasks 15-19: Exited with exit code 2"
# REAL: https://github.com/elyall/wandb_on_slurm/issues/5
WANDB = ["running script", "slurmstepd: error: execve(): start-agent.sh: Permission denied",
         "srun: error: my-node01: task 0: Exited with exit code 13"]
# REAL: https://github.com/RRZE-HPC/likwid/issues/259 (likwid-mpirun's own bug: an empty option became "nil")
LIKWID = "slurmstepd: error: execve(): nil: No such file or directory"
# REAL: https://github.com/ArjunaCluster/ArjunaUsers/issues/21 (#20 the same for job 2997813: "the nfs issue again")
SLURM_SCRIPT = "slurmstepd: error: execve(): /tmp/slurmd/job2997814/slurm_script: No such file or directory"
# REAL: https://github.com/gafusion/gacode/issues/449 (the job id redacted by its reporter; after a Slurm update)
ZERO_BYTES = "srun: error: Unable to create step for job xxxxxxxxxx: Zero Bytes were transmitted or received"
# CONSTRUCTED: srun's "Unable to create step for job %u: %m" with slurm_errno.c's ESLURM_TOO_MANY_REQUESTED_CPUS and
# ESLURM_ALREADY_DONE words
TOO_MANY = "srun: error: Unable to create step for job 4359715: More processors requested than permitted"
COMPLETING = "srun: error: Unable to create step for job 63094233: Job/step already completing or completed"
# REAL: https://github.com/mehta-lab/waveorder/issues/201 (and mehta-lab/recOrder #482: a step submitted from a GPU
# node, its --gres inherited); https://github.com/deephyper/deephyper/issues/53 (the job id redacted "X")
GRES = "srun: error: Unable to create step for job 16413634: Invalid generic resource (gres) specification"
GRES_X = "srun: error: Unable to create step for job X: Invalid generic resource (gres) specification"


def _job(lines: list[str]):
    return attribute(read_lines(lines, "/logs/job.log", Clock(), root="/logs", year=2026))


def test_a_program_that_could_not_be_executed_is_the_applications():
    """windninja #624: was rank 15 'undetermined' from srun's exit line; the execve is the job's own program."""
    (incident,) = _job([MKDIR] * 20 + [WINDNINJA_EXIT])
    assert (incident.category, incident.rule, incident.root.kind) == ("application", "first_failure", "launch_error")
    assert "task not started (exec of mkdir: No such file or directory)" in incident.reason
    # the node srun's exit line after them names (triage.read SRUN_NODE_HOW, as Slurm's OOM summary): was none
    assert incident.root.host == "bear-pg0104u25b"
    (incident,) = _job(WANDB)
    assert (incident.category, incident.root.kind) == ("application", "launch_error")
    assert "start-agent.sh: Permission denied" in incident.reason
    (incident,) = _job([LIKWID])
    assert incident.category == "application"


def test_a_failed_exec_takes_the_node_of_sruns_exit_line_for_it_alone():
    """SYNTHETIC (windninja #624's and elyall/wandb_on_slurm #5's lines): srun's exit line names the node only within
    SRUN_LINES after the last exec line, and only an exit (not its OOM words); lines for two nodes name none; read in
    parts (`read_on`, as the agent reads a pod's log), the node is said once the window is read."""
    from triage.read import SRUN_LINES, FileReader

    hosts = lambda ev: [(e.line, e.host) for e in ev if e.kind == "launch_error"]  # noqa: E731
    far = _job([MKDIR, *["step"] * SRUN_LINES, WINDNINJA_EXIT])
    assert far[0].root.host is None
    two = _job([MKDIR, WINDNINJA_EXIT, WANDB[2]])
    assert two[0].root.host is None
    reader = FileReader("/logs/job.log", Clock())
    assert hosts(reader.read_on([MKDIR, MKDIR])) == []
    assert hosts(reader.read_on([WINDNINJA_EXIT, *["step"] * SRUN_LINES])) == [(1, "bear-pg0104u25b"),
                                                                                (2, "bear-pg0104u25b")]


def test_the_batch_scripts_own_copy_missing_is_the_nodes():
    """ArjunaUsers #21: was "No failure found"; slurmd's spool copy of the batch script is the node's."""
    (incident,) = _job([SLURM_SCRIPT])
    assert (incident.category, incident.root.kind) == ("infrastructure", "launch_error")


def test_a_step_refused_is_the_request_or_the_controller():
    """gacode #449: the controller not answering, infrastructure; a step asking more than the allocation, the
    application's request; a step refused because the job is over is its end: no failure."""
    (incident,) = _job([ZERO_BYTES])
    assert (incident.category, incident.root.kind) == ("infrastructure", "launch_error")
    (incident,) = _job([TOO_MANY])
    assert (incident.category, incident.root.kind) == ("application", "launch_error")
    assert _job([COMPLETING]) == []


def test_a_step_whose_gres_the_partition_lacks_is_the_requests():
    """waveorder #201, deephyper #53: was "No failure found"; a step's GPU request (--gres) the allocation's nodes do
    not match is the job's request, as a step asking more processors is."""
    for line in (GRES, GRES_X):
        (incident,) = _job([line])
        assert (incident.category, incident.root.kind) == ("application", "launch_error")
        assert "task not started (Invalid generic resource (gres) specification)" in incident.reason


# REAL: https://github.com/mknoxnv/ubuntu-slurm/issues/4 (Slurm 17.x; the node then drained "Prolog error"; the
# incident tests/fixtures/incidents/h632_ubuntu-slurm-4-prolog)
PROLOG_TASK = (INCIDENTS / "h632_ubuntu-slurm-4-prolog" / "logs" / "job.log").read_text().splitlines()
# REAL: https://github.com/AMDResearch/hpcfund/issues/69 (the node then drained; h632_hpcfund-69-prolog)
PROLOG_SALLOC = (INCIDENTS / "h632_hpcfund-69-prolog" / "logs" / "job.log").read_text().splitlines()
# REAL: https://github.com/nebius/nebius-solutions-library/pull/265 (the node's name redacted "worker-X")
PROLOG_HUNG = "slurmstepd: error: Prolog hung on node worker-X"


def test_a_nodes_failed_prolog_is_that_nodes():
    """ubuntu-slurm #4, hpcfund #69 (h632): was "No failure found"; the node whose prolog failed is the root, the
    infrastructure's (the job's program never ran there)."""
    for lines, host, said in ((PROLOG_TASK, "hpc", "Job prolog failed"), (PROLOG_SALLOC, "k003-006", "Prolog failed")):
        (incident,) = _job(lines)
        assert (incident.category, incident.root.kind, incident.root.host) == ("infrastructure", "launch_error", host)
        assert f"task not started ({said})" in incident.reason


def test_a_prolog_past_its_time_is_no_failure():
    """slurmd's "Prolog hung on node" is its notice that the prolog still runs: the job may yet start there (a guard:
    nothing read "Prolog" before h632, and its row's pattern is the failure's; a broader one must not take this)."""
    assert _job([PROLOG_HUNG]) == []
