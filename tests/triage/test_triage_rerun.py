"""Triage of a rank's non-finite result the job's own rerun of the step gave its verdict on (h658): Megatron-LM's rerun
state machine (--rerun-mode validate_results).  No real run's verdict lines were found public (searched: the issues of
NVIDIA/Megatron-LM, NVIDIA/NeMo, NVIDIA-NeMo/*, NVIDIA/nvidia-resiliency-ext, and the code corpus): every line here is
CONSTRUCTED from megatron/core/rerun_state_machine.py's format strings (validate_result's `log_failure`: "Rank {rank},
node {node}, device {device}, iteration #{iteration}: {message}!", before 2025 with no iteration; its first report
"Unexpected result {result} on rank {rank} at iteration #{iteration} invocation #{n} (message='{message}')"), the
logger's default format as the REAL line of NVIDIA/Megatron-LM #5026 has it; hosts invented."""

from __future__ import annotations

import pytest

from triage import Clock, attribute, facts, read_lines

P = "ERROR:megatron.core.rerun_state_machine:"
W = "WARNING:megatron.core.rerun_state_machine:"
# the loss check's result is `loss[0]`, a 0-dim tensor on the rank's GPU: f"{result}" its repr
FIRST = (f"{P}Unexpected result tensor(nan, device='cuda:3') on rank 3 at iteration #1200 invocation #1 "
         "(message='found NaN in local forward loss calculation')")
IN_PLACE = W + "Need to rerun step to check reproducibility of initial result"
TRANSIENT = [
    f"{P}Rank 3, node gpu-node-07, device 3, iteration #1200: First rerun: unexpected result is not reproducible "
    "within the tolerance (tensor(2.4531, device='cuda:3') != tensor(nan, device='cuda:3'))!",
    f"{P}Rank 3, node gpu-node-07, device 3, iteration #1200: Possible transient error!",
    W + "Exiting now. A checkpoint at the last iteration is being saved if further examination is needed",
]
# the first run: reproduced on the same GPU, a checkpoint saved, exit code 16 (EXIT_CODE_RESUME_TO_DISAMBIGUATE)
REPRODUCED = [
    f"{P}Rank 3, node gpu-node-07, device 3, iteration #1200: First rerun: unexpected result is reproducible within "
    "the tolerance (tensor(nan, device='cuda:3') = tensor(nan, device='cuda:3')). Need to rerun on a different GPU to "
    "verify correctness.!",
    W + "Saving a checkpoint and exiting now. Please resume the job from the checkpoint to rerun the last iteration and "
    "establish a diagnostic",
]
# the job resumed from it, rank 3 now on another node
PERSISTENT = [
    W + "Getting RerunStateMachine state from checkpoint. Will rerun step.",
    W + "Second rerun: unexpected result is not reproducible on a different GPU, therefore was likely incorrect "
    "(tensor(2.4531, device='cuda:3') != tensor(nan, device='cuda:3'))",
    f"{P}Rank 3, node gpu-node-12, device 3, iteration #1200: Possible persistent error!",
    W + "Exiting now. A checkpoint at the last iteration already exists if further examination is needed",
]
CORRECT = [
    W + "Second rerun: unexpected result is reproducible on a different GPU, therefore it was likely correct "
    "(tensor(nan, device='cuda:3') = tensor(nan, device='cuda:3'))",
    f"{P}Rank 3, node gpu-node-12, device 3, iteration #1200: Correct result (but possible Application error) (found "
    "NaN in local forward loss calculation)!",
]


def _incident(*files):
    (incident,) = attribute([e for i, f in enumerate(files) for e in read_lines(f, f"run{i}.log", Clock())])
    return incident


@pytest.mark.parametrize("line, name, groups", [
    (FIRST, "megatron_unexpected_logged", dict(rank="3", result="nan", iteration="1200")),
    # the state machine's RuntimeError with reruns disabled, the loss check's tensor (was: no fact)
    ("RuntimeError: Rank 2, node gpu-node-03, device 2, iteration 5: Unexpected result tensor(inf, device='cuda:2') "
     "(message='found Inf in local forward loss calculation')", "megatron_unexpected_raised",
     dict(rank="2", host="gpu-node-03", gpu="2", result="inf")),
    (TRANSIENT[1], "megatron_rerun_transient", dict(rank="3", host="gpu-node-07", gpu="3", iteration="1200")),
    # before 2025 (log_failure's "Rank {rank}, node {node}, device {device}: {message}!", no iteration)
    (f"{P}Rank 3, node gpu-node-07, device 3: Possible transient error!", "megatron_rerun_transient",
     dict(rank="3", host="gpu-node-07", gpu="3", iteration=None)),
    (REPRODUCED[0], "megatron_rerun_reproduced", dict(rank="3", host="gpu-node-07", gpu="3")),
    (f"{P}Got rescheduled on the same GPU. Need to resume again from the same checkpoint (node: gpu-node-07, gpu: 3)",
     "megatron_rerun_rescheduled", dict(host="gpu-node-07", gpu="3")),
    # the other GPU, where the step was rerun: never the fact's host nor device
    (PERSISTENT[2], "megatron_rerun_persistent", dict(rank="3", host=None, gpu=None, rerun_host="gpu-node-12")),
    (CORRECT[1], "megatron_rerun_correct", dict(rank="3", host=None, rerun_host="gpu-node-12")),
])
def test_each_line_of_the_rerun_state_machine_is_its_fact(line, name, groups):
    fact, got = facts.match(line)
    assert fact.name == name
    assert {k: got.get(k) for k in groups} == groups


def test_a_transient_error_is_that_gpus_fault():
    """Was: the NaN the application's (nonfinite_result) though its rerun on the same GPU did not reproduce it."""
    incident = _incident([FIRST, IN_PLACE, *TRANSIENT])
    assert (incident.category, incident.root.kind, incident.root.rank, incident.root.host, incident.root.gpu) == (
        "hardware", "rerun_verdict", 3, "gpu-node-07", 3)
    assert "transient fault of GPU 3 of gpu-node-07" in incident.reason


def test_a_persistent_error_is_the_gpu_its_first_rerun_named_not_the_one_it_was_rerun_on():
    """Was: the application's; the verdict's own line names gpu-node-12, where the step was rerun and differed."""
    incident = _incident([FIRST, IN_PLACE, *REPRODUCED], PERSISTENT)
    assert (incident.category, incident.root.rank, incident.root.host, incident.root.gpu) == (
        "hardware", 3, "gpu-node-07", 3)
    assert "silent data corruption" in incident.reason and "gpu-node-12" not in incident.reason


def test_a_persistent_error_alone_names_no_gpu_it_did_not_see():
    incident = _incident([FIRST], PERSISTENT)
    assert (incident.category, incident.root.host, incident.root.gpu) == ("hardware", None, None)


def test_a_correct_result_on_another_gpu_is_the_applications():
    incident = _incident([FIRST, IN_PLACE, *REPRODUCED], CORRECT)
    assert (incident.category, incident.root.rank) == ("application", 3)
    assert "numerics" in incident.reason


def test_reproduced_on_the_same_gpu_pending_a_rerun_elsewhere_decides_nothing():
    incident = _incident([FIRST, IN_PLACE, *REPRODUCED])
    assert (incident.category, incident.root.kind) == ("application", "nonfinite_result")


def test_another_ranks_verdict_decides_nothing():
    other = [line.replace("Rank 3,", "Rank 5,") for line in TRANSIENT]
    incident = _incident([FIRST, IN_PLACE, *other])
    assert (incident.category, incident.root.kind, incident.root.rank) == ("application", "nonfinite_result", 3)


def test_a_verdict_alone_is_no_failure():
    """A warning: no non-finite result read, no incident (a fleet's routine reruns raise nothing)."""
    evidence = read_lines([*TRANSIENT[:2], *CORRECT], "run.log", Clock())
    assert attribute(evidence) == []


def test_the_writers_prefix_never_names_the_suspect_gpu():
    """NeMo 2's launcher prefix (as the REAL line of NVIDIA-NeMo/Speech #14348 has it) on the resumed run's verdict: the
    rank is the line's, the GPU the first run's, never the pod or host the prefix names."""
    prefixed = [f"i.pretrain/0 [default3]:[rank3]: {line}" for line in PERSISTENT]
    incident = _incident([FIRST, *REPRODUCED], prefixed)
    assert (incident.category, incident.root.rank, incident.root.host, incident.root.gpu) == (
        "hardware", 3, "gpu-node-07", 3)
