"""A BMC's System Event Log rows as ipmitool prints them (`ipmitool sel elist` / `sel list`; parsers/rules.py
IPMI_SEL_EVENTS, IPMI_SEL_ROW): a Memory sensor's ECC error is host memory, a Critical Interrupt sensor's bus error a
PCIe error, at the severity the event's words give; a Deasserted row and the routine rows say nothing. Lines marked
REAL are copied verbatim from the public source beside them (tests/fixtures/realworld/bmc-sel-2026.yaml); lines marked
CONSTRUCTED are ipmitool's row format with its event texts (include/ipmitool/ipmi_sel.h sensor_specific_event_types)
and a sensor name of the brief's HGX example, a test, never a sample."""

from __future__ import annotations

import pytest

from parsers import parse_line
from parsers.rules import AER_SEVERITY, IPMI_SEL_EVENTS

# REAL: https://github.com/ipmitool/ipmitool/pull/340
BUS_FATAL = "   1 |  Pre-Init  |0000198492| Critical Interrupt #0xa1 | Bus Fatal Error (Bus fatal:B5d/D03/F02) | Asserted"
# REAL: https://github.com/ipmitool/ipmitool/issues/385
CORRECTED = "  3a | 12/14/22 | 23:09:44 CET | Memory #0x88 | Correctable ECC (CPU0_G1) | Asserted"
# CONSTRUCTED
ROW = "  1a | 03/14/2024 | 10:22:31 | {sensor} | {event} | {state}"


@pytest.mark.parametrize("line, kind, severity, sensor, detail", [
    (BUS_FATAL, "pcie_aer", "fatal", "Critical Interrupt #0xa1", "Bus fatal:B5d/D03/F02"),
    (CORRECTED, "memory_error", "warning", "Memory #0x88", "CPU0_G1"),
    (ROW.format(sensor="Critical Interrupt PCIE_ERR", event="Bus Uncorrectable error", state="Asserted"),
     "pcie_aer", "error", "Critical Interrupt PCIE_ERR", None),
    (ROW.format(sensor="Critical Interrupt PCIE_ERR", event="Bus Correctable error", state="Asserted"),
     "pcie_aer", "warning", "Critical Interrupt PCIE_ERR", None),
    (ROW.format(sensor="Memory DIMM_A1", event="Uncorrectable ECC", state="Asserted"),
     "memory_error", "error", "Memory DIMM_A1", None),
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
])
def test_a_deasserted_row_and_routine_rows_say_nothing(line):
    assert parse_line(line) is None


def test_every_sel_event_reads_as_a_severity_of_the_aer_table():
    assert set(IPMI_SEL_EVENTS.values()) <= set(AER_SEVERITY)
