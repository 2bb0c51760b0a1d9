"""A CUDA error and a logger's restatement of it a few lines on (the engine process that died of it): one failure, on
the real lines of tests/fixtures/realworld/cuda-error-restated-2026.yaml (ai-dynamo/dynamo #1229)."""

from __future__ import annotations

import realworld

FILE = "cuda-error-restated-2026.yaml"
# REAL: https://github.com/ai-dynamo/dynamo/issues/1229 (PyTorch's RuntimeError, its trailer, vLLM's engine restating it)
LINES = realworld.lines_by_source(FILE)["https://github.com/ai-dynamo/dynamo/issues/1229"]
ENGINE = LINES[5]


def _read(lines):
    return realworld.events(realworld.classified(lines))


def test_the_engines_restatement_of_the_same_cuda_error_is_part_of_its_event():
    """PyTorch's CUDA error, its trailer, a blank line, the engine's "ERROR engine.run_mp_engine: CUDA error: <same
    text>": one finding, PyTorch's (was two, the engine's line read as host "ERROR"'s, another stream)."""
    found = _read(LINES)
    assert [(f.kind, f.details["cuda_error"], f.message[:13]) for f in found] == [
        ("cuda_error", "peer access is not supported between these two devices", "RuntimeError:")]
    # the engine's line keeps its level, no host (dynamo's log)
    (alone,) = _read([ENGINE])
    assert (alone.kind, alone.host, alone.program) == ("cuda_error", None, "engine.run_mp_engine")


def test_a_restatement_of_another_error_or_past_the_window_is_its_own():
    """SOURCE: the issue's lines; the engine's line with another CUDA text (an illegal memory access), and the same
    line after lines no rule reads past the event's window: each its own finding."""
    other = ENGINE.replace("peer access is not supported between these two devices",
                           "an illegal memory access was encountered")
    assert [f.details["cuda_error"] for f in _read([*LINES[:5], other])] == [
        "peer access is not supported between these two devices", "an illegal memory access was encountered"]
    apart = [*LINES[:4], *["  File \"engine.py\", line 1, in run"] * 4, ENGINE]
    assert len(_read(apart)) == 2
