"""NCCL's P2P transport failing to map a peer GPU's buffer, "NCCL WARN failed to open CUDA IPC handle : <N> <text>"
(parsers/rules.py nccl_ipc_open): the warning carries the CUDA status, its text as cudaGetErrorString gave it and its
number, the number named by parsers/rules.py CUDA_STATUS_NAMES where the text is missing. The real lines are
tests/fixtures/realworld/workload-2026zz.yaml's (the sources' addresses beside them)."""

from __future__ import annotations

import realworld

# the IPC samples' lines in the file's order: ray_lightning #24, then horovod #785's two ranks
LINES = [item["text"].splitlines() for item in realworld.samples()
         if item["file"] == "workload-2026zz.yaml" and "CUDA IPC handle" in item["text"]]


def _warn(line: str):
    return next(f for f in realworld.findings(line) if f.kind == "nccl_error")


def test_the_failed_ipc_open_carries_its_cuda_status():
    """217 (cudaErrorPeerAccessUnsupported, ray-project/ray_lightning #24), CUDA 9's 64 for the same status and its
    other rank's 11 "invalid argument" (horovod/horovod #785): each the WARN's warning with its status (was: none)."""
    ray, horovod, invalid = LINES[0][0], LINES[1][0], LINES[2][0]
    got = [(f.kind, f.severity, f.details.get("cuda_error"), f.details.get("cu_status"))
           for f in map(_warn, (ray, horovod))]
    assert got == [("nccl_error", "warning", "peer access is not supported between these two devices", 217),
                   ("nccl_error", "warning", "peer access is not supported between these two devices", 64)]
    assert _warn(invalid).details == {"cuda_error": "invalid argument", "cu_status": 11}


def test_a_line_cut_after_its_number_names_the_status_by_it():
    """SOURCE: the ray_lightning #24 line cut after its number (a log's line limit): the name CUDA 10.1+ gives 217."""
    line = LINES[0][0].split(" peer access")[0]
    assert _warn(line).details == {"cuda_error": "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "cu_status": 217}
