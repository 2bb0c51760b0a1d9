"""The open module refusing GPUs it does not support by default (parsers/rules.py gpu_open_unsupported): one node's
driver_mismatch while its refusals repeat, every GPU's failed init part of it. The real lines are in
tests/fixtures/realworld/driver-open-unsupported-2026.yaml (open-gpu-kernel-modules #230, one GPU); a node of several
GPUs is CONSTRUCTED below from them: the same lines for each GPU's init attempt, the address changed."""

from __future__ import annotations

import realworld

REFUSED = realworld.samples()
ATTEMPT = next(i["text"] for i in REFUSED if i["file"] == "driver-open-unsupported-2026.yaml")


def _loud(text: str) -> list:
    return [(f.kind, f.severity, f.action) for f in realworld.events(realworld.classified(text.splitlines()))
            if f.severity in ("warning", "error", "fatal")]


def test_every_gpu_refused_is_one_driver_mismatch_and_no_reset():
    # CONSTRUCTED: #230's attempt for four GPUs (04, 05, 06, 07), then again for the first as a process opens it
    node = "".join(ATTEMPT.replace("0000:04:00", f"0000:0{n}:00").replace("0x00000400", f"0x00000{n}00")
                   for n in (4, 5, 6, 7)) + ATTEMPT
    assert _loud(node) == [("driver_mismatch", "error", "UPDATE_SWFW")]


def test_a_failed_init_without_the_refusal_still_asks_a_reset():
    alone = "".join(line + "\n" for line in ATTEMPT.splitlines() if "RmInitAdapter failed" in line)
    assert _loud(alone) == [("gpu_reset_required", "fatal", "RESET_GPU")]
