"""x86 machine-check records read by their MCi_STATUS error code (parsers/rules.py MCA_ERROR_CODES, refine
"mce_record"): a CPU cache's or TLB's error is a cpu_cache_error, a memory controller's and any other code a
memory_error. Statuses marked SDM are built from Intel's SDM vol. 3B compound error codes (a test, never a sample);
those marked MCELOG are statuses whose decode mcelog printed in a public issue (the expected words its decode's). The
real lines are in tests/fixtures/realworld/host-cpu-cache-2026.yaml and host.yaml."""

from __future__ import annotations

import pytest

from parsers import parse_line

RECORD = "mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank {bank}: {status}"

CASES = [
    # MCELOG andikleen/mcelog #35: "Generic CACHE Level-2 Generic Error" (uncorrected: UC set)
    ("ae2000000003110a", "cpu_cache_error", "error", "L2 generic cache error, generic error"),
    # MCELOG andikleen/mcelog #74: "Data CACHE Level-0 Data-Read Error" (UC set)
    ("bd80000000100134", "cpu_cache_error", "error", "L0 data cache error, data read"),
    # home-assistant/operating-system #2989 (corrected): L2 instruction cache, instruction fetch; L2 data cache read
    ("cc59dec000041152", "cpu_cache_error", "warning", "L2 instruction cache error, instruction fetch"),
    ("cc400b0000041136", "cpu_cache_error", "warning", "L2 data cache error, data read"),
    # SDM: a TLB error (0000 0000 0001 TTLL: data, L1), corrected
    ("8c00000000000015", "cpu_cache_error", "warning", "L1 data TLB error"),
    # SDM: a generic cache hierarchy error (0000 0000 0000 11LL: level 2), corrected
    ("8c0000000000000e", "cpu_cache_error", "warning", "L2 cache error"),
    # MCELOG andikleen/mcelog #90: "MEMORY CONTROLLER AC_CHANNEL0_ERR" (0x00b0): the DIMMs', memory_error
    ("8c000000000000b0", "memory_error", "warning", "memory controller error"),
    # EDAC sbridge's scrubbing record (radiasoft/devops #134, 0x00c2): memory controller
    ("8c00004f000800c2", "memory_error", "warning", "memory controller error"),
    # andikleen/mcelog #70: an internal error (0x0408), not decoded: as before, memory_error
    ("a600000000020408", "memory_error", "warning", None),
    # rasdaemon #155: a zero status: as before
    ("0000000000000000", "memory_error", "warning", None),
]


@pytest.mark.parametrize("status,kind,severity,mca", CASES)
def test_record_read_by_its_error_code(status, kind, severity, mca):
    f = parse_line(RECORD.format(bank=6, status=status))
    assert (f.kind, f.severity, f.details.get("mca")) == (kind, severity, mca)


def test_record_without_status_stays_memory_error():
    f = parse_line("mce: [Hardware Error]: CPU 7: Machine Check Exception: 5 Bank 0")
    assert f.kind == "memory_error" and "mca" not in f.details
