"""A BMC's System Event Log rows as ipmitool prints them (`ipmitool sel elist` / `sel list`; parsers/rules.py
IPMI_SEL_EVENTS, ipmi_sel_row): a Memory sensor's ECC error is host memory, a Critical Interrupt sensor's bus error a
PCIe error, a Processor's IERR or thermal trip a cpu_fault, a power supply's failure a power_supply fault, a
temperature, fan or voltage sensor past a critical threshold a bmc_sensor alarm, at the severity the event's words
give; a Deasserted row and the routine rows say nothing. Lines marked REAL are copied verbatim from the public source
beside them (tests/fixtures/realworld/bmc-sel-2026.yaml); lines marked CONSTRUCTED are ipmitool's row format with its
event texts (include/ipmitool/ipmi_sel.h sensor_specific_event_types, generic_event_types) and a sensor name of the
brief's HGX example, a test, never a sample."""

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
# REAL: https://github.com/openstreetmap/operations/issues/513 (a Dell's PSU dead, the breaker tripped)
PSU_FAILED = "   1 | 03/07/2021 | 07:10:10 | Power Supply #0xc4 | Failure detected () | Asserted"
# REAL: https://github.com/openstreetmap/operations/issues/514 (an id past 0xfff: no padding)
REDUNDANCY_LOST = "1e60 | 02/16/2021 | 23:46:57 | Power Unit #0x44 | Redundancy Lost | Asserted"
# REAL: https://github.com/gengwg/cheatsheets/blob/master/ipmi.md
AC_LOST = "  11 | 02/06/2020 | 18:30:50 | Power Supply #0xfb | Power Supply AC lost | Asserted"
# REAL: https://github.com/Nuvoton-Israel/openbmc/blob/runbmc/meta-quanta/meta-olympus-nuvoton/README.md (its
# markdown block's indent left out)
UPPER_CRITICAL = "   3 | 10/04/2018 | 07:28:04 | Temperature #0x03 | Upper Critical going high | Asserted"
LOWER_CRITICAL = "   1 | 10/04/2018 | 07:08:54 | Temperature #0x03 | Lower Critical going low  | Asserted"
# REAL: https://github.com/ipmitool/ipmitool/pull/349 (a threshold row's reading after its direction)
NONCRITICAL_DEASSERTED = (" 3cb | 07/17/2022 | 06:15:39 | Temperature ps1_inlet_temp | Upper Non-critical going high |"
                          " Deasserted | Reading 43.94 > Threshold 44.88 degrees C")
# REAL: https://github.com/sosreport/sos/issues/2015
POWER_OFF = "  30 | 11/15/2019 | 18:50:40 | Power Unit Pwr Unit Status | Power off/down | Asserted"
STATE_ASSERTED = "  32 | 11/15/2019 | 18:50:59 | Management Subsys Health AutoCfg Status | State Asserted | Asserted"
# REAL: https://github.com/petersulyok/smfc/blob/main/README.md (a Supermicro board's fans; ipmitool in a 12-hour
# locale, "%X %Z": the time with AM/PM, then the zone)
FAN_CRITICAL_PM = "   1 | 10/19/2023 | 05:15:35 PM CEST | Fan #0x46 | Lower Critical going low  | Asserted"
FAN_NONRECOVERABLE_PM = "   2 | 10/19/2023 | 05:15:35 PM CEST | Fan #0x46 | Lower Non-recoverable going low  | Asserted"
# REAL: https://github.com/ipmitool/ipmitool/pull/346 (a zone whose abbreviation names three: China, US Central, Cuba)
CST_PM = ("1b5b | 05/27/2022 | 06:12:15 PM CST | Temperature PSU1_Inlet_Temp | Upper Non-critical going high |"
          " Deasserted | Reading 52 > Threshold 53 degrees C")
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
    NONCRITICAL_DEASSERTED, POWER_OFF, STATE_ASSERTED,
    ROW.format(sensor="Processor CPU0_Status", event="IERR", state="Deasserted"),
    ROW.format(sensor="Power Supply PS1 Status", event="Presence detected", state="Asserted"),
    ROW.format(sensor="Power Supply PS1 Status", event="Failure detected", state="Deasserted"),
    ROW.format(sensor="Power Unit PS Redundancy", event="Fully Redundant", state="Asserted"),
    ROW.format(sensor="Power Unit PS Redundancy", event="Non-Redundant: Sufficient from Insufficient", state="Asserted"),
    ROW.format(sensor="Power Unit Pwr Unit Status", event="Power cycle", state="Asserted"),
    ROW.format(sensor="Button #0x09", event="Power Button pressed", state="Asserted"),
    ROW.format(sensor="OS Boot #0x5a", event="boot completed - device not specified", state="Asserted"),
    ROW.format(sensor="Temperature GPU0_Temp", event="Upper Non-critical going high", state="Asserted") +
    " | Reading 86 > Threshold 85 degrees C",
    ROW.format(sensor="Temperature GPU0_Temp", event="Upper Critical going high", state="Deasserted") +
    " | Reading 88 < Threshold 90 degrees C",
    ROW.format(sensor="Temperature CPU0_Temp", event="Upper Critical going low ", state="Asserted"),
    ROW.format(sensor="Processor CPU0_Status", event="Configuration Error", state="Asserted"),
    ROW.format(sensor="Processor CPU0_Status", event="State Asserted", state="Asserted"),  # a CATERR sensor's only
])
def test_a_deasserted_row_and_routine_rows_say_nothing(line):
    """Presence, power off / cycle, a button, the OS's boot, a Non-critical threshold (the BMC's early notice), a
    critical one settling back, full redundancy (or regained): routine; every Deasserted row the end of a state."""
    assert parse_line(line) is None


@pytest.mark.parametrize("line, kind, severity, action, sensor", [
    # a processor's own fault: its internal error, its thermal trip (a cooling fault), a failed start-up; its throttling
    (IERR, "cpu_fault", "error", "HARDWARE_INSPECTION", "Processor #0xc9"),
    (ROW.format(sensor="Processor CPU1_Status", event="Thermal Trip", state="Asserted"),
     "cpu_fault", "error", "CHECK_COOLING", "Processor CPU1_Status"),
    (ROW.format(sensor="Processor CPU0_Status", event="FRB3/Processor startup/init failure", state="Asserted"),
     "cpu_fault", "error", "HARDWARE_INSPECTION", "Processor CPU0_Status"),
    (ROW.format(sensor="Processor CPU_CATERR", event="State Asserted", state="Asserted"),
     "cpu_fault", "error", "HARDWARE_INSPECTION", "Processor CPU_CATERR"),
    (ROW.format(sensor="Processor CPU0_Status", event="Throttled", state="Asserted"),
     "cpu_throttle", "warning", "CHECK_COOLING", "Processor CPU0_Status"),
    # a supply failed: an error; its input lost, its predictive failure, the redundancy lost: a warning; too few
    # supplies left, the power unit's AC lost: an error
    (PSU_FAILED, "power_supply", "error", "HARDWARE_INSPECTION", "Power Supply #0xc4"),
    (AC_LOST, "power_supply", "warning", "HARDWARE_INSPECTION", "Power Supply #0xfb"),
    (REDUNDANCY_LOST, "power_supply", "warning", "HARDWARE_INSPECTION", "Power Unit #0x44"),
    (ROW.format(sensor="Power Supply PS2 Status", event="Predictive failure", state="Asserted"),
     "power_supply", "warning", "HARDWARE_INSPECTION", "Power Supply PS2 Status"),
    (ROW.format(sensor="Power Unit PS Redundancy", event="Non-Redundant: Insufficient Resources", state="Asserted"),
     "power_supply", "error", "HARDWARE_INSPECTION", "Power Unit PS Redundancy"),
    (ROW.format(sensor="Power Unit Pwr Unit Status", event="AC lost", state="Asserted"),
     "power_supply", "error", "HARDWARE_INSPECTION", "Power Unit Pwr Unit Status"),
    # a sensor past a critical threshold: a warning; past a non-recoverable one an error; temperature and fans the
    # cooling's, voltage the board's; an HGX board's GPU sensor as any temperature sensor
    (UPPER_CRITICAL, "bmc_sensor", "warning", "CHECK_COOLING", "Temperature #0x03"),
    (LOWER_CRITICAL, "bmc_sensor", "warning", "CHECK_COOLING", "Temperature #0x03"),
    (ROW.format(sensor="Temperature GPU0_Temp", event="Upper Critical going high", state="Asserted") +
     " | Reading 91 > Threshold 90 degrees C", "bmc_sensor", "warning", "CHECK_COOLING", "Temperature GPU0_Temp"),
    (ROW.format(sensor="Temperature GPU3_Temp", event="Upper Non-recoverable going high", state="Asserted"),
     "bmc_sensor", "error", "CHECK_COOLING", "Temperature GPU3_Temp"),
    (ROW.format(sensor="Fan FAN3", event="Lower Non-recoverable going low ", state="Asserted"),
     "bmc_sensor", "error", "CHECK_COOLING", "Fan FAN3"),
    (ROW.format(sensor="Fan #0x0c", event="Redundancy Lost", state="Asserted"),
     "bmc_sensor", "warning", "CHECK_COOLING", "Fan #0x0c"),
    (ROW.format(sensor="Voltage P12V", event="Lower Critical going low ", state="Asserted") +
     " | Reading 10.71 < Threshold 10.74 Volts", "bmc_sensor", "warning", "HARDWARE_INSPECTION", "Voltage P12V"),
])
def test_a_sel_rows_processor_power_or_sensor_fault_is_its_kinds_at_the_severity_its_words_give(
        line, kind, severity, action, sensor):
    f = parse_line(line)
    assert f is not None and (f.kind, f.severity, f.action, f.details["sensor"]) == (kind, severity, action, sensor)
    assert f.details["event"] == line.split(" | ")[4].strip().split(" (")[0]


@pytest.mark.parametrize("line, when", [
    (MCE, datetime(2026, 5, 14, 20, 40, 26)),
    (CORRECTED, datetime(2022, 12, 14, 22, 9, 44, tzinfo=timezone.utc)),  # a two-digit year; CET read (+1)
    (UE, datetime(2024, 3, 14, 10, 22, 31)),
    (UE.replace("10:22:31", "10:22:31 UTC"), datetime(2024, 3, 14, 10, 22, 31, tzinfo=timezone.utc)),
    (UE.replace("10:22:31", "10:22:31 +0100"), datetime(2024, 3, 14, 10, 22, 31, tzinfo=timezone(timedelta(hours=1)))),
    (UE.replace("  1a |", "1a2b |"), datetime(2024, 3, 14, 10, 22, 31)),  # an id past 0xfff: no padding before it
    # a 12-hour locale's time (a Supermicro's SEL through ipmitool under en_US), its zone read: 17:15:35 CEST in UTC
    (FAN_CRITICAL_PM, datetime(2023, 10, 19, 15, 15, 35, tzinfo=timezone.utc)),
    (FAN_NONRECOVERABLE_PM, datetime(2023, 10, 19, 15, 15, 35, tzinfo=timezone.utc)),
    (UE.replace("10:22:31", "10:06:50 PM EST"), datetime(2024, 3, 15, 3, 6, 50, tzinfo=timezone.utc)),
    (UE.replace("10:22:31", "12:06:50 AM EDT"), datetime(2024, 3, 14, 4, 6, 50, tzinfo=timezone.utc)),  # 12 AM: 0h
    (UE.replace("10:22:31", "12:06:50 PM"), datetime(2024, 3, 14, 12, 6, 50)),  # 12 PM: noon; no zone: the clock's
    (UE.replace("10:22:31", "10:06:50 PM"), datetime(2024, 3, 14, 22, 6, 50)),  # "PM" is no zone
])
def test_a_sel_rows_finding_carries_the_rows_own_time_and_its_message_is_the_row(line, when):
    f = parse_line(line)
    assert f is not None and (f.timestamp, f.envelope, f.message) == (when, "ipmi_sel", line)


@pytest.mark.parametrize("line, when", [
    (CORRECTED, datetime(2022, 12, 14, 22, 9, 44, tzinfo=timezone.utc)),  # CET, +1
    (FAN_CRITICAL_PM, datetime(2023, 10, 19, 15, 15, 35, tzinfo=timezone.utc)),
    # CST is China's +8, US Central's -6 and Cuba's -5: no guess, the time as the host's clock showed it (naive)
    (CST_PM, datetime(2022, 5, 27, 18, 12, 15)),
    (UE.replace("10:22:31", "10:22:31 IST"), datetime(2024, 3, 14, 10, 22, 31)),  # India, Israel or Ireland
])
def test_a_sel_rows_zone_is_read_where_its_name_means_one_offset_and_left_as_the_clock_where_it_is_ambiguous(
        line, when):
    env = detect(line)
    assert (env.name, env.timestamp) == ("ipmi_sel", when)


def test_the_zone_names_read_are_those_the_tz_database_gives_one_offset():
    """Every name of ZONE_NAMES means its one offset in every zone of the tz database that used it since 2015, and
    the ambiguous names left out are ambiguous there (the machine's zoneinfo; skipped where it has none)."""
    zoneinfo = pytest.importorskip("zoneinfo")
    from parsers.envelope import ZONE_NAMES  # noqa: PLC0415
    try:
        zones = zoneinfo.available_timezones()
    except Exception:  # noqa: BLE001
        zones = set()
    if len(zones) < 100:
        pytest.skip("no tz database on this machine")
    seen: dict[str, set] = {}
    for name in zones:
        if name.startswith(("Etc/", "SystemV/", "posix/", "right/")):
            continue
        tz = zoneinfo.ZoneInfo(name)
        for year in range(2015, 2027):
            for month in (1, 4, 7, 10):
                at = datetime(year, month, 15, 12, tzinfo=tz)
                seen.setdefault(at.tzname(), set()).add(at.utcoffset().total_seconds() / 3600)
    for name, hours in ZONE_NAMES.items():
        assert seen.get(name, {hours}) == {hours}, name
    for name in ("CST", "CDT", "IST", "PST", "KST"):
        assert name not in ZONE_NAMES and len(seen.get(name, ())) > 1, name


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
