"""The CUDA samples' "Failed to <call> (error code <text>)!" (parsers/rules.py cuda_sample_error_code, the GPU Operator's
cuda-validator) is a CUDA error only where <text> is one of the runtime's (CUDA_ERRORS): other programs print a failure
in the same words with their own code, and a pod's log line of theirs is no GPU's fault."""

from __future__ import annotations

import pytest

from parsers import parse_line

# BUILT from the format strings of programs that are not CUDA's (printf's %d/%s filled), not copied from a log:
# polarfire-soc/hart-software-services' SPI boot ("Failed to read 0x%lx bytes from SPI flash @0x%lx (error code
# %d)!"), a CUDA program's own host allocation check printing cudaGetLastError() as a number ("Failed to allocate host
# LPi(error code %d)!", a public LDPC decoder's source), and a code that is an errno's text
LOOKALIKES = (
    "Failed to read 0x1000 bytes from SPI flash @0x400000 (error code 5)!",
    "Failed to allocate host LPi(error code 2)!",
    "Failed to open file /data/shard-0001.bin (error code No such file or directory)!",
)


@pytest.mark.parametrize("line", LOOKALIKES)
def test_another_programs_error_code_is_no_cuda_error(line):
    assert parse_line(line) is None


# REAL: NVIDIA/gpu-operator #1900 (the cuda-validator's vectorAdd on a node whose GPU it could not see)
def test_the_samples_runtime_text_is_still_read():
    f = parse_line("Failed to allocate device vector A (error code no CUDA-capable device is detected)!")
    assert f is not None and f.kind == "gpu_access_lost"
