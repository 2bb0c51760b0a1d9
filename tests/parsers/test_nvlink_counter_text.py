"""The generic NVLink row reads a link's fault, not a counter's description: dcgm-exporter's counter list and its
/metrics help text ("Total number of NVLink data CRC errors.", NVIDIA/dcgm-exporter #95) name a count, whose value is
the reading (tests/fixtures/realworld/noise-2026h709.yaml holds the lines as the thread shows them)."""

from __future__ import annotations

import realworld
from parsers import at_least


def _loud(text: str) -> list[str]:
    return [f.kind for f in realworld.findings(text) if at_least(f.severity, "warning")]


def test_a_counters_description_is_silent():
    # the thread's line, and the same help text as dcgm-exporter's /metrics prints it
    assert _loud("DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL, counter, Total number of NVLink data CRC errors.\n") == []
    assert _loud("# HELP DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL Total number of NVLink flow-control CRC "
                 "errors.\n") == []


def test_a_line_naming_an_nvlink_error_still_fires():
    # constructed (the row's shape, not a quoted log): an NVLink error with no counter's "number of" before it
    assert _loud("NVLink error detected on link 3\n") == ["nvlink"]
