"""nvidia-smi's word that NVML's event API reported an Xid on a GPU it watches (parsers/rules.py "nvsmi_critical_xid"):
"GPU 00000000:04:00.0: Detected Critical Xid Error", printed by the `nvidia-smi -l` loop a job's script leaves running
beside its ranks. The xid kind with no code (the line names none: NVML delivers every Xid, the application's 13 / 31 /
43 too, as nvmlEventTypeXidCriticalError), a warning of attribution unknown, that GPU's address, the kernel's line
restated; in a job's log read offline, never a root over the ranks' own errors. Lines marked REAL are copied verbatim from the public source beside them
(tests/fixtures/realworld/nvsmi-critical-xid-2026h720.yaml holds them); lines marked SOURCE are built from the same
format (another GPU's address), a test, never a sample."""

from __future__ import annotations

from parsers import Classifier, restated
from parsers.catalog import UNKNOWN_XID
from triage import Clock, attribute, read_lines

# REAL: https://github.com/GoogleCloudPlatform/ai-infra-cluster-provisioning/issues/383 (an A3 Megatron pod, 2024-10-24)
CRITICAL = "GPU 00000000:04:00.0: Detected Critical Xid Error"
TRACEBACK = (
    "Traceback (most recent call last):",
    '  File "/workspace/Megatron-LM/pretrain_gpt.py", line 220, in <module>',
    "    pretrain(train_valid_test_datasets_provider,",
    '  File "/workspace/Megatron-LM/megatron/training/training.py", line 190, in pretrain',
    "    initialize_megatron(extra_args_provider=extra_args_provider,",
)
# SOURCE: the title, the error as PyTorch raises it (the thread's traceback is cut before its last line here)
ILLEGAL = "RuntimeError: CUDA error: an illegal memory access was encountered"
# SOURCE: the same format, another GPU's address (upper-case hex), prefixed as a pod log's timestamp would
OTHER = "2024-10-24T10:00:00.000000Z GPU 00000000:C6:00.0: Detected Critical Xid Error"
# SOURCE: prose naming the words, no GPU address: silent
PROSE = "TODO: nvidia-smi says (Detected Critical Xid Error) but due to async this might be from somewhere else"


def test_the_line_is_an_xid_of_no_code_on_its_gpu():
    for line, pci in ((CRITICAL, "0000:04:00"), (OTHER, "0000:c6:00")):
        f = Classifier().classify(line)
        assert f is not None, line  # was: nothing
        action, _, attribution = UNKNOWN_XID
        assert (f.kind, f.severity, f.attribution, f.action, f.pci, f.xid) == (
            "xid", "warning", attribution, action, pci, None), line
        assert restated(f) == "kernel"


def test_prose_naming_the_words_stays_silent():
    assert Classifier().classify(PROSE) is None


def test_a_critical_xid_of_no_code_is_no_root_over_the_ranks_own_error():
    """The code the line cannot name may be the application's (an illegal memory access is Xid 31's): the rank's CUDA
    error after it stays the application's (h720 made it the GPU's node fault; a code-less Xid shows no hardware)."""
    incidents = attribute(read_lines([CRITICAL, *TRACEBACK, ILLEGAL], "megatron.log", Clock()))
    assert [(i.category, i.root.kind, i.rule) for i in incidents] == [("application", "cuda_error", "first_failure")]
    assert attribute(read_lines([CRITICAL, *TRACEBACK], "megatron.log", Clock())) == []  # nothing a line shows
