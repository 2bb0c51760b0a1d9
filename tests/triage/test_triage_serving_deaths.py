"""A serving engine, or a worker of it, that died is a failure (the other side of tests/triage/test_triage_requests.py,
a request's error a server handled): text-generation-inference's launcher on a shard that exited, SGLang's engine on a
child that failed, Triton Inference Server on a model it could not load and its exit (triage/facts.py tgi_shard_exit,
sglang_child_failed, triton_model_load).  Each was silent before ("No failure found"), offline and live."""

from __future__ import annotations

from triage import Clock, attribute, read_lines
from triage.read import job_fact

from tests.triage.test_triage_requests import SGLANG_3713  # a TP scheduler's CUDA error (sgl-project/sglang #3713)

# REAL: huggingface/text-generation-inference #1627 (https://github.com/huggingface/text-generation-inference/issues/1627),
# the launcher's log of a shard that died at start by SIGILL, its stderr empty
TGI_1627 = [
    "2024-03-06T17:53:22.335714Z  INFO download: text_generation_launcher: Successfully downloaded weights.",
    "2024-03-06T17:53:22.336246Z  INFO shard-manager: text_generation_launcher: Starting shard rank=0",
    "2024-03-06T17:53:31.052367Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:",
    " rank=0",
    "2024-03-06T17:53:31.052444Z ERROR shard-manager: text_generation_launcher: Shard process was signaled to shutdown "
    "with signal 4 rank=0",
    "Error: ShardCannotStart",
    "2024-03-06T17:53:31.149443Z ERROR text_generation_launcher: Shard 0 failed to start",
    "2024-03-06T17:53:31.149481Z  INFO text_generation_launcher: Shutting down shards",
]
# REAL: huggingface/text-generation-inference #686 (https://github.com/huggingface/text-generation-inference/issues/686),
# the end of the shard's stderr the launcher relayed (its traceback's first lines not in the excerpt), then its relay
TGI_686 = [
    "    return future.result()",
    "",
    '  File "/opt/conda/lib/python3.9/site-packages/text_generation_server/server.py", line 137, in serve_inner',
    "    model = get_model(",
    "",
    '  File "/opt/conda/lib/python3.9/site-packages/text_generation_server/models/__init__.py", line 193, in get_model',
    '    raise NotImplementedError(FLASH_ATT_ERROR_MESSAGE.format("Sharded Llama"))',
    "",
    "NotImplementedError: Sharded Llama requires Flash Attention enabled models.",
    " rank=0",
    "2023-07-24T02:39:20.704629Z ERROR text_generation_launcher: Shard 0 failed to start",
    "2023-07-24T02:39:20.704663Z  INFO text_generation_launcher: Shutting down shards",
    "2023-07-24T02:39:20.781260Z  INFO shard-manager: text_generation_launcher: Shard terminated rank=1",
    "Error: ShardCannotStart",
]
# REAL: sgl-project/sglang #28521 (https://github.com/sgl-project/sglang/issues/28521), the handler's later words and
# the engine's teardown after it (the scheduler's traceback follows in the issue, cut in the copy read: left out)
SGLANG_28521 = [
    "[2026-06-17 09:57:15] Received sigquit from a child process. It usually means the child failed.",
    "[2026-06-17 09:57:15] kill_process_tree called: parent_pid=1, include_parent=True, pid=1",
]
# REAL: triton-inference-server/server #2876 (https://github.com/triton-inference-server/server/issues/2876), a model
# its backend could not load
TRITON_2876 = [
    "E0519 08:11:54.803470 1 model_repository_manager.cc:1243] failed to load 'PYTHON_NMS' version 1: Unsupported: "
    "Triton backend API version does not support this backend",
    "I0519 08:11:54.803540 1 model_repository_manager.cc:1009] TriggerNextAction() 'PYTHON_NMS' version 1: 0",
    "I0519 08:11:54.803579 1 model_repository_manager.cc:1024] no next action, trigger OnComplete()",
]
# REAL: NVIDIA-AI-IOT/tao-toolkit-triton-apps #11 (https://github.com/NVIDIA-AI-IOT/tao-toolkit-triton-apps/issues/11),
# the server's end after its models were unloaded (triton-inference-server/server #2858, #6416: the same last line)
TRITON_TAO_11 = [
    "I0312 10:55:14.007364 57 tensorrt.cc:5062] TRITONBACKEND_ModelFinalize: delete model state",
    "I0312 10:55:14.008953 57 model_repository_manager.cc:1166] successfully unloaded 'dashcamnet_tao' version 1",
    "I0312 10:55:15.003795 57 server.cc:267] Timeout 29: Found 0 live models and 0 in-flight non-inference requests",
    "error: creating server: Internal - failed to load all models",
]


def incidents(lines: list[str]):
    return attribute(list(read_lines(lines, "server.log", Clock())))


def test_a_tgi_shard_that_died_is_its_ranks_death():
    """TGI #1627: the shard-manager's signal and the launcher's "Shard 0 failed to start", rank 0's death by SIGILL
    (was: no incident)."""
    [incident] = incidents(TGI_1627)
    assert incident.root.kind == "rank_exit" and incident.root.rank == 0
    assert [e.kind for e in incident.evidence] == ["rank_exit", "rank_exit"]


def test_a_tgi_shards_own_error_is_the_cause_of_its_relayed_death():
    """TGI #686: the shard's NotImplementedError the launcher relayed is the failure, rank 0's exit its consequence."""
    [incident] = incidents(TGI_686)
    assert (incident.category, incident.root.kind) == ("application", "exception")
    assert "NotImplementedError" in incident.evidence[0].text


def test_tgi_shard_deaths_are_said_live():
    """The launcher's lines name the shard's rank: a RankExited Event live, its signal with it."""
    row, said = job_fact(TGI_1627[4])
    assert (row.reason, said["rank"], said["signal"]) == ("RankExited", 0, 4)
    row, said = job_fact(TGI_1627[6])
    assert (row.reason, said["rank"]) == ("RankExited", 0)
    assert job_fact(TGI_686[12]) is None  # a shard the launcher terminated: no death
    # the launcher's other wording for a shard that dies once serving (launcher/src/main.rs, "Shard {rank} crashed")
    assert job_fact("2024-07-22T19:57:05.908774Z ERROR text_generation_launcher: Shard 3 crashed")[1]["rank"] == 3


def test_sglangs_child_that_failed_is_the_engines_death():
    """SGLang #28521: the engine's SIGQUIT handler alone, a process of the engine lost, cause undetermined; #3713: the
    scheduler's CUDA error before it is the cause (was: no incident for the handler's line alone)."""
    [incident] = incidents(SGLANG_28521)
    assert (incident.category, incident.root.kind) == ("undetermined", "process_lost")
    # REAL: sgl-project/sglang #3685 (https://github.com/sgl-project/sglang/issues/3685), the handler's record in its
    # first era's words ("proces"), as Python's logging printed it when it could not emit it (#3713's own copy of the
    # line is cut in the excerpt read)
    first_era = "Message: 'Received sigquit from a child proces. It usually means the child failed.'"
    [incident] = incidents([*SGLANG_3713, first_era])
    assert incident.root.kind == "cuda_error" and incident.root.rank == 0


def test_triton_failing_to_load_its_models_is_the_servers_failure():
    """Triton #2876: a model its backend refused, the application's; tao-toolkit-triton-apps #11: the server's exit
    (was: no incident)."""
    for lines in (TRITON_2876, TRITON_TAO_11):
        [incident] = incidents(lines)
        assert (incident.category, incident.root.kind) == ("application", "exception"), lines
