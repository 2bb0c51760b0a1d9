"""Triage of JAX tasks that lost the coordination service (h554): XLA's "UNAVAILABLE: Failed to send RPC to
coordination service. Either the leader task was preempted/died/restarted unexpectedly or this task is experiencing
network issues." in JAX's fate-sharing end (parsers/rules.py jax_fatal_errors) as the job's first symptom: said by
several tasks and not by the leader, the leader (task 0, where the service runs) is the suspect; said by one task
while others were seen, that task's own network or host (rule `leader_lost`, triage/attribute.py `_leader_lost`).
Was: UNDETERMINED, no rank, "the cause is in no log read here".

Lines marked REAL are copied verbatim from the public source beside them.  Jobs marked SYNTHETIC put real lines
together into a job that did not happen as such (one file per task, srun's "N: " label naming it).
"""

from __future__ import annotations

from triage import Clock, attribute, read_lines

# REAL: JAX's docs, https://github.com/jax-ml/jax/blob/main/docs/fault_tolerance.rst ("Next try failing process 0.
# Notice that all four processes terminate with error messages that look something like the following")
LEADER_GONE = [
    "E0929 17:42:48.594192 1044529 coordination_service_agent.cc:332] Polled an error from coordination service (this "
    "can be an error from this or another task).",
    "F0929 17:42:48.594200 1044529 client.h:77] Terminating process because the JAX distributed service detected fatal "
    "errors. This most likely indicates that another task died; see the other task logs for more details. Disable "
    "Python buffering, i.e. `python -u`, to be sure to see all the previous output. absl::Status: UNAVAILABLE: Failed "
    "to send RPC to coordination service. Either the leader task was preempted/died/restarted unexpectedly or this "
    "task is experiencing network issues. Check earlier logs from 1) this task, 2) the leader (usually slice 0 task "
    "0), and 3) cluster scheduler to debug further.",
    "Additional GRPC error information from remote target coordination_service while calling "
    "/tensorflow.CoordinationService/PollForError:",
    ':UNKNOWN:Error received from peer  {grpc_message:"Socket closed", grpc_status:14}',
]
# SYNTHETIC: a task's line of its own (JAX's docs do not quote one), its label naming the task seen
SEEN = "step 10 done"


def _tasks(which: dict[int, list[str]]):
    evidence = []
    for rank, lines in which.items():
        evidence += read_lines([f"{rank}: {line}" for line in lines], f"/logs/task{rank}.log", Clock(), root="/logs",
                               year=2026)
    return attribute(evidence)


def test_several_tasks_that_lost_the_service_name_the_leader():
    """SYNTHETIC (JAX's docs: process 0 killed, every other process says this): was UNDETERMINED, no rank."""
    (incident,) = _tasks({1: LEADER_GONE, 2: LEADER_GONE, 3: LEADER_GONE})
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "leader_lost", 0)
    assert incident.reason.startswith("3 ranks (1,2,3) lost JAX's coordination service")
    assert "the leader, task 0" in incident.reason
    # was "no other rank reported a failure", three having reported it: worded from what was read
    assert incident.consequences == ("3 ranks (1,2,3) reported JAX coordination service error 'UNAVAILABLE: Failed "
                                     "to send RPC to coordination service'")


def test_one_task_alone_is_its_own_network():
    """SYNTHETIC (marin-community/marin #7430: one task's RPC to the service dropped, the leader alive): the task that
    said it, not the leader."""
    (incident,) = _tasks({0: [SEEN], 1: [SEEN], 2: [SEEN, *LEADER_GONE]})
    assert (incident.rule, incident.root.rank) == ("leader_lost", 2)
    assert "its own network or host" in incident.reason
    assert incident.consequences == "no other rank reported a failure"  # the suspect is the task that said it


def test_the_leader_saying_it_names_no_one():
    """SYNTHETIC: the leader lost its own service too (the network of every task, or the scheduler ending them all):
    no suspect named."""
    (incident,) = _tasks({0: LEADER_GONE, 1: LEADER_GONE})
    assert (incident.rule, incident.root.rank) == ("undetermined", None)
