"""mlx5_core's firmware tracer losing events (diag/fw_tracer.c mlx5_fw_tracer_handle_traces, parsers/rules.py
mlx5_fw_tracer_lost): the firmware's debug traces overwritten before the driver copied them, no fault of the NIC's.
The real line is tests/fixtures/realworld/mlx5-fwtracer-2026.yaml's (unionxic/rdma-fault-characterization)."""

from __future__ import annotations

import io

import pytest

from parsers import Scanner

LOST = "mlx5_core 0000:17:00.0: mlx5_fw_tracer_handle_traces:808:(pid 1828991): FWTracer: Events were lost"


@pytest.mark.parametrize("text", [
    LOST + "\n",
    "[61024.799569] " + LOST + "\n",  # as dmesg prints it
    "Oct  9 06:05:12 sunny kernel: " + LOST + "\n",  # as kern.log does
], ids=["bare", "dmesg", "syslog"])
def test_the_firmware_tracers_lost_events_are_routine(text):
    """Was: the unclassified net's warning (driver mlx5_core, the word "lost"): a Node Event per overrun."""
    assert list(Scanner().scan(io.BytesIO(text.encode()))) == []


def test_a_real_fault_after_it_is_still_read():
    """The silent row takes its own line only: the same function's health failure after it is found as before."""
    found = list(Scanner().scan(io.BytesIO((LOST + "\nmlx5_core 0000:17:00.0: poll_health:803:(pid 519): Fatal error 3 "
                                                   "detected\n").encode())))
    assert [(f.kind, f.severity) for f in found] == [("nic_error", "fatal")]
