"""NVSHMEM's check of a CUDA runtime call (CUDA_RUNTIME_CHECK: "[<file>:<line>] cuda failed with <text> ", then exit)
on every PE it reaches, the PEs' lines interleaved without a rank: the status reads as in every other wrapper's words
(CUDA_ERRORS), the PEs' lines one event. Lines marked REAL are copied verbatim from the public source beside them
(tests/fixtures/realworld/jobs-nvshmem-limits-2026.yaml holds them in context); CONSTRUCTED ones say from what."""

from __future__ import annotations

import pytest

from parsers import Classifier
from parsers.rules import CUDA_ERRORS, cuda_reading

# REAL: https://github.com/deepseek-ai/DeepEP/issues/157 (three PEs of a node, after the heap's cuMemCreate chain)
BARRIER = "[/nvshmem/src/host/coll/barrier/barrier.cpp:21] cuda failed with an illegal memory access was encountered "
CHAIN = ("/nvshmem/src/host/mem/mem_heap.cpp:1509: non-zero status: 2 cuMemCreate failed ",
         "",
         "/nvshmem/src/host/mem/mem_heap.cpp:1590: non-zero status: 7 allocate_physical_memory_to_heap failed",
         "")


def _findings(lines):
    c = Classifier()
    return [f for f in (c.read(line)[0] for line in lines) if f is not None]


def test_the_pes_storm_of_one_check_is_one_cuda_error():
    (f,) = _findings([BARRIER] * 3)  # was: a cuda_error per PE's line
    assert (f.kind, f.severity, f.attribution, f.action) == (
        "cuda_error", *CUDA_ERRORS["an illegal memory access was encountered"])
    assert f.details["cuda_error"] == "an illegal memory access was encountered"


def test_after_the_heaps_chain_it_is_the_chains_event():
    assert [f.kind for f in _findings([*CHAIN, BARRIER, BARRIER, BARRIER])] == ["cuda_oom"]  # was: + 3 cuda_error


def test_a_check_past_the_events_window_is_the_next_failure():
    assert len(_findings([BARRIER, *["x"] * 9, BARRIER])) == 2


# CONSTRUCTED from the macro's format, "[%s:%d] cuda failed with %s \n" (NVSHMEM src/include/internal/host/util.h),
# and its copies' "CUDA failed with" (NVSHMEM's examples): every text of the table
@pytest.mark.parametrize("text", list(CUDA_ERRORS))
def test_every_status_text_reads_as_its_table_row(text):
    for line in (f"[/nvshmem/src/host/coll/barrier/barrier.cpp:21] cuda failed with {text} ",
                 f"[examples/on-stream.cu:57] CUDA failed with {text} "):
        f = Classifier().classify(line)
        assert f is not None and f.details["cuda_error"] == text, line
        assert (f.kind, f.severity, f.attribution, f.action) == cuda_reading(text), line  # a status naming its kind: that kind
