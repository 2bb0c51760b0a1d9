"""SGLang's KV pool exhausted while serving (h401): the scheduler's exception is the job's cuda_oom, its retraction
no finding.  Lines marked REAL are copied verbatim from the thread beside them (tests/fixtures/realworld/
workload-serving-2026e.yaml holds them with their sources); CONSTRUCTED ones are built from SGLang's source
(python/sglang/srt/managers/schedule_batch.py alloc_token_slots / alloc_for_extend / alloc_for_decode: error_msg =
f"{Prefill |Decode |}Out of memory. Try to lower your batch size.\\n..."; logger.error(error_msg); raise
RuntimeError(error_msg))."""

from __future__ import annotations

import pytest

from parsers import parse_line


@pytest.mark.parametrize("line", [
    "RuntimeError: Decode out of memory. Try to lower your batch size.",  # REAL: sgl-project/sglang #4602
    "RuntimeError: Prefill out of memory. Try to lower your batch size.",  # CONSTRUCTED (the extend's wording)
    "RuntimeError: Out of memory. Try to lower your batch size.",  # CONSTRUCTED (alloc_token_slots' wording)
])
def test_the_schedulers_exception_is_the_jobs_oom(line):
    """Was: nothing (the server exited with no finding)."""
    f = parse_line(line)
    assert (f.kind, f.severity, f.attribution) == ("cuda_oom", "error", "application")


@pytest.mark.parametrize("line", [
    # REAL: sgl-project/sglang #4184 (requests retracted, the server goes on)
    "[2025-03-07 21:49:33 TP13] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.1474 -> 0.1845",
    # CONSTRUCTED: the logger's copy of the message before the raise (the exception's line is the finding)
    "[2025-03-07 21:49:33 TP0] Decode out of memory. Try to lower your batch size.",
])
def test_the_retraction_and_the_loggers_copy_stay_silent(line):
    assert parse_line(line) is None
