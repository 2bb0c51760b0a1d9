"""A BMC's System Event Log rows as ipmitool prints them (`ipmitool sel elist` / `sel list`; parsers/rules.py
IPMI_SEL_EVENTS, IPMI_SEL_ROW): a Memory sensor's ECC error is host memory, a Critical Interrupt sensor's bus error a
PCIe error, at the severity the event's words give; a Deasserted row and the routine rows say nothing. Lines marked
REAL are copied verbatim from the public source beside them (tests/fixtures/realworld/bmc-sel-2026.yaml); lines marked
CONSTRUCTED are ipmitool's row format with its event texts (include/ipmitool/ipmi_sel.h sensor_specific_event_types)
and a sensor name of the brief's HGX example, a test, never a sample."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from parsers import parse_line
from parsers.envelope import detect

# REAL: https://github.com/ipmitool/ipmitool/pull/340
BUS_FATAL = "   1 |  Pre-Init  |0000198492| Critical Interrupt #0xa1 | Bus Fatal Error (Bus fatal:B5d/D03/F02) | Asserted"
# REAL: https://github.com/ipmitool/ipmitool/issues/385
CORRECTED = "  3a | 12/14/22 | 23:09:44 CET | Memory #0x88 | Correctable ECC (CPU0_G1) | Asserted"
# REAL: https://github.com/facebook/openbmc/issues/273
MCE = "   1 | 05/14/2026 | 20:40:26 | Processor #0x40 | Uncorrectable machine check exception | Asserted"
# REAL: https://github.com/open-power/op-build/issues/607
IERR = "  89 | 08/31/2016 | 06:20:30 | Processor #0xc9 | IERR | Asserted"
# CONSTRUCTED
ROW = "  1a | 03/14/2024 | 10:22:31 | {sensor} | {event} | {state}"
UE = ROW.format(sensor="Memory DIMM_A1", event="Uncorrectable ECC", state="Asserted")


@pytest.mark.parametrize("line, kind, severity, sensor, detail", [
    (BUS_FATAL, "pcie_aer", "fatal", "Critical Interrupt #0xa1", "Bus fatal:B5d/D03/F02"),
    (CORRECTED, "memory_error", "warning", "Memory #0x88", "CPU0_G1"),
    (ROW.format(sensor="Critical Interrupt PCIE_ERR", event="Bus Uncorrectable error", state="Asserted"),
     "pcie_aer", "error", "Critical Interrupt PCIE_ERR", None),
    (ROW.format(sensor="Critical Interrupt PCIE_ERR", event="Bus Correctable error", state="Asserted"),
     "pcie_aer", "warning", "Critical Interrupt PCIE_ERR", None),
    (ROW.format(sensor="Memory DIMM_A1", event="Uncorrectable ECC", state="Asserted"),
     "memory_error", "error", "Memory DIMM_A1", None),
    # the bus's parity error an error, its system error fatal; a processor's machine check the host's, as the kernel's
    (ROW.format(sensor="Critical Interrupt #0x73", event="PCI PERR", state="Asserted"),
     "pcie_aer", "error", "Critical Interrupt #0x73", None),
    (ROW.format(sensor="Critical Interrupt #0x73", event="PCI SERR", state="Asserted"),
     "pcie_aer", "fatal", "Critical Interrupt #0x73", None),
    (MCE, "memory_error", "error", "Processor #0x40", None),
    (ROW.format(sensor="Processor CPU0_Status", event="Correctable machine check error", state="Asserted"),
     "memory_error", "warning", "Processor CPU0_Status", None),
])
def test_a_sel_rows_memory_or_bus_error_is_its_devices_fault_at_the_severity_its_words_give(
        line, kind, severity, sensor, detail):
    f = parse_line(line)
    assert f is not None and (f.kind, f.severity, f.details["sensor"], f.details.get("detail")) == (
        kind, severity, sensor, detail)


@pytest.mark.parametrize("line", [
    ROW.format(sensor="Memory DIMM_A1", event="Uncorrectable ECC", state="Deasserted"),
    ROW.format(sensor="Critical Interrupt PCIE_ERR", event="Bus Fatal Error", state="Deasserted"),
    ROW.format(sensor="Event Logging Disabled #0x72", event="Log area reset/cleared", state="Asserted"),
    ROW.format(sensor="System Boot Initiated #0x6f", event="Initiated by power up", state="Asserted"),
    ROW.format(sensor="Memory DIMM_A1", event="Presence Detected", state="Asserted"),
    ROW.format(sensor="Memory DIMM_A1", event="Correctable ECC logging limit reached", state="Asserted"),
    ROW.format(sensor="Processor CPU0_Status", event="Presence detected", state="Asserted"),
    ROW.format(sensor="Critical Interrupt #0x73", event="PCI SERR", state="Deasserted"),
    ROW.format(sensor="Processor CPU0_Status", event="Uncorrectable machine check exception", state="Deasserted"),
    IERR,  # a processor's internal error: no kind is a CPU's own fault but its caches' (cpu_cache_error)
])
def test_a_deasserted_row_and_routine_rows_say_nothing(line):
    assert parse_line(line) is None


@pytest.mark.parametrize("line, when", [
    (MCE, datetime(2026, 5, 14, 20, 40, 26)),
    (CORRECTED, datetime(2022, 12, 14, 23, 9, 44)),  # a two-digit year; a zone's name read as the BMC's clock
    (UE, datetime(2024, 3, 14, 10, 22, 31)),
    (UE.replace("10:22:31", "10:22:31 UTC"), datetime(2024, 3, 14, 10, 22, 31, tzinfo=timezone.utc)),
    (UE.replace("10:22:31", "10:22:31 +0100"), datetime(2024, 3, 14, 10, 22, 31, tzinfo=timezone(timedelta(hours=1)))),
    (UE.replace("  1a |", "1a2b |"), datetime(2024, 3, 14, 10, 22, 31)),  # an id past 0xfff: no padding before it
])
def test_a_sel_rows_finding_carries_the_rows_own_time_and_its_message_is_the_row(line, when):
    f = parse_line(line)
    assert f is not None and (f.timestamp, f.envelope, f.message) == (when, "ipmi_sel", line)


@pytest.mark.parametrize("line", [
    BUS_FATAL,  # the BMC's seconds since its start, no date: plain text, its finding timeless as before
    "   1 | 02/31/2016 | 06:20:30 | Memory #0x88 | Uncorrectable ECC | Asserted",  # no such day
])
def test_a_sel_row_with_no_date_has_no_time(line):
    f = parse_line(line)
    assert f is not None and f.timestamp is None


@pytest.mark.parametrize("line", [
    '  File "train.py", line 3, in <module>',
    "  12 | 0.25 | 0.31 |",  # a training table's row
    "abc | 12/14/22 | x",
])
def test_lines_like_a_sel_row_are_not_one(line):
    assert detect(line).name != "ipmi_sel"
