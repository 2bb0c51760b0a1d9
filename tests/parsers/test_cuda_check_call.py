"""The CUDA_CHECK wording "CUDA error in <call>: <text>" (h370). The REAL line, from kubernetes-sigs/dra-driver-
nvidia-gpu #1417, is in tests/fixtures/realworld/jobs-mnnvl-2026z.yaml; the lines here are CONSTRUCTED from the format
strings of public programs' checks: fprintf(stderr, "CUDA error in %s: %s\\n", #call, cudaGetErrorString(e)) and its
" (error %d)" variant."""

from __future__ import annotations

import pytest

from parsers import parse_line


@pytest.mark.parametrize("line,call,text", [
    ("CUDA error in cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost): an illegal memory access was encountered",
     "cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost)", "an illegal memory access was encountered"),
    ("CUDA error in cub::DeviceReduce::Sum(tmp, bytes, in, out, n): invalid device function (error 98)",
     "cub::DeviceReduce::Sum(tmp, bytes, in, out, n)", "invalid device function"),
])
def test_the_call_and_the_runtimes_text_are_read(line, call, text):
    """Was: nothing (the generic row reads "CUDA error: " only)."""
    f = parse_line(line)
    assert (f.kind, f.details["call"], f.details["cuda_error"]) == ("cuda_error", call, text)


def test_an_illegal_address_refines_as_pytorchs_does():
    f = parse_line("CUDA error in cudaDeviceSynchronize(): an illegal memory access was encountered")
    assert (f.attribution, f.action) == ("application", "RESTART_APP")
