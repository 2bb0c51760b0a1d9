"""The NVIDIA IMEX daemon's own log (nvidia-imex.log) followed as its own source, through the real process."""

from __future__ import annotations

import json
import time
from pathlib import Path

from harness import AgentProc

# kubernetes-sigs/dra-driver-nvidia-gpu #948 (also in tests/fixtures/realworld/imex-errors-2026h.yaml): the daemon's
# failed memory export, quoted there without the log's envelope
MESSAGES = ("Failed to get new memory reference with rc: 87", "Failed to allocate memory reference.")


def stamped(message: str, at: float) -> str:
    """synthetic: the real message in the log's envelope (Fabric Manager's, local time), stamped `at`."""
    return time.strftime("[%b %d %Y %H:%M:%S]", time.localtime(at)) + f" [ERROR] [tid 62] {message}\n"


def test_imex_log_is_followed_and_its_errors_are_findings(tmp_path: Path):
    imex = tmp_path / "nvidia-imex.log"
    imex.write_text("IMEX Log initializing at: 3/25/2025 10:41:54.950\n")
    a = AgentProc(tmp_path, env={"GPU_NPD_IMEX_LOG": str(imex)})
    try:
        a.wait_for(lambda: a.value("gpu_npd_source_records_total", source="imex") == 1, what="the first line read")
        assert a.value("gpu_npd_source_up", source="imex") == 1
        with imex.open("a") as fh:
            fh.writelines(stamped(m, time.time()) for m in MESSAGES)
        a.wait_for(lambda: a.value("gpu_npd_findings_total", kind="imex_error", severity="error",
                                   attribution="fabric") == 1, what="one imex_error for the failed export")
        status, body = a.healthz()
        assert status == 200 and "imex=up" in body
    finally:
        code, _ = a.stop()
    assert code == 0
    state = json.loads((tmp_path / "state" / "state.json").read_text())
    assert str(imex) in state["cursors"]["imex"]  # its own cursor
