"""The GSP's boot failing in its secure falcons (FWSEC, the Booter ucodes) on the GPUs without an FSP: each line is a
reason of the init attempt whose finding is its "RmInitAdapter failed!", not an unclassified warning beside it
(tests/fixtures/realworld/gsp-boot-falcons-2026.yaml: open-gpu-kernel-modules #433, #673, #120)."""

from __future__ import annotations

import collections

from parsers import at_least
from parsers.rules import RULES
import realworld

SAMPLES = [i for i in realworld.samples() if i["file"] == "gsp-boot-falcons-2026.yaml"]
FALCON_WORDS = ("failed to execute FWSEC", "failed to execute Booter", "Booter failed with")


def _loud(text: str) -> list:
    return [f for f in realworld.findings(text) if at_least(f.severity, "warning")]


def test_an_attempts_falcon_failures_are_its_reasons_not_warnings_of_their_own():
    """#433: the Booter's failure, its unload's and FWSEC's for FRTS after the attempt's "RmInitAdapter failed!" were
    three unclassified warnings beside it; #673's Booter lines and the RM's assertion on them, no "RmInitAdapter
    failed!" after them in the excerpt, three more. Now every falcon line is the init event's (one finding per GPU)."""
    falcon_lines = 0
    for item in SAMPLES:
        falcon_lines += sum(w in item["text"] for w in FALCON_WORDS)
        for f in _loud(item["text"]):
            assert not any(w in f.message for w in FALCON_WORDS), f.message
            assert "@ osinit.c" not in f.message, f.message
    assert falcon_lines >= 5
    kinds = collections.Counter((f.kind, f.pci) for i in SAMPLES for f in _loud(i["text"]) if f.kind != "unclassified")
    assert kinds == {("gpu_reset_required", "0000:05:00"): 1}


def test_every_eras_wording_is_a_reason_and_the_resume_and_the_info_line_are_not():
    """The driver's own format strings (kernel_gsp_frts_tu102.c, kernel_gsp_booter_tu102.c; 52x "s_executeFwsec_",
    58x+ "kgspExecuteFwsec_" with the GPU's index) are reasons (rm_init_mapping). Booter Reload runs at the GSP's
    resume from the sequencer (kgspExecuteSequencerCommand_GA102), no init attempt: not one. The info line a healthy
    teardown may print is no reason either."""
    rule = {r.name: r for r in RULES}["rm_init_mapping"]
    reasons = (
        "NVRM s_executeFwsec_TU102: failed to execute FWSEC for FRTS: FRTS error code 0xbe",
        "NVRM: GPU0 kgspExecuteFwsec_TU102: failed to execute FWSEC for FRTS: FRTS error code 0x492f",
        "NVRM: kgspExecuteFwsec_TU102: failed to execute FWSEC for FRTS: no initialized WPR2 found",
        "NVRM s_executeBooterUcode_TU102: Booter failed with non-zero error code: 0xa",
        "NVRM: s_executeBooterUcode_TU102: failed to execute Booter: status 0x65, mailbox 0x0",
        "NVRM kgspExecuteBooterUnloadIfNeeded_TU102: failed to execute Booter Unload: 0xffff",
        "NVRM: kgspExecuteBooterLoad_TU102: failed to execute Booter Load: 0x65",
        "NVRM: kgspBootstrapRiscvOSEarly_GA102: failed to execute Booter Load (ucode for initial boot): 0x65",
    )
    for line in reasons:
        assert any(k in line for k in rule.keywords) and rule.pattern.search(line), line
    for line in ("NVRM: kgspExecuteSequencerCommand_GA102: failed to execute Booter Reload (ucode for resume from "
                 "sequencer): 0x65",
                 "NVRM: kgspExecuteBooterReload_TU102: failed to execute Booter Reload: 0x65",
                 "NVRM kgspExecuteBooterUnloadIfNeeded_TU102: skipping executing Booter Unload as WPR is not up"):
        assert not rule.pattern.search(line), line
