"""mlx5's own thermal warning (events.c temp_warn, parsers/rules.py mlx5_temp_warn), the health recovery's
bad-state lines and the load's "enable hca failed" (mlx5_health_after, mlx5_load_failed). Lines marked SOURCE are the
kernel's format strings with a real line's prefix (drivers/net/ethernet/mellanox/mlx5/core/events.c temp_warn: 5.x-6.x
"%llx %llx", 6.1+ "%#llx %#llx", 6.15+ the full stop and print_sensor_names_in_bit_set's "Sensor name[%d]: %s", lore
20250213094641.226501-5-tariqt@nvidia.com; 4.x eq.c mlx5_temp_warning_event; health.c mlx5_handle_bad_state; 4.x
main.c's dev_err "enable hca failed"), a test, never a sample; the real lines are in
tests/fixtures/realworld/mlx5-cx7-2026u.yaml."""

from __future__ import annotations

import io

import pytest

from parsers import Scanner

# SOURCE: events.c temp_warn (5.x-6.0, "%llx %llx"), the device prefix of a ConnectX-6 Dx's dmesg
HOT_5X = "[   51.227791] mlx5_core 0000:41:00.0: temp_warn:170:(pid 0): High temperature on sensors with bit set 0 1\n"
# SOURCE: 6.15+: "%#llx %#llx.\n", then a "Sensor name[N]: <name>" line per bit set
HOT_6X = ("[ 1200.000000] mlx5_core 0000:41:00.0: temp_warn:188:(pid 0): High temperature on sensors with bit set "
          "0 0x1.\n")
SENSOR = "[ 1200.000001] mlx5_core 0000:41:00.0: print_sensor_names_in_bit_set:170:(pid 0): Sensor name[0]: asic\n"
# SOURCE: 4.x eq.c mlx5_temp_warning_event
HOT_4X = ("[ 1300.000000] mlx5_core 0000:08:00.0: mlx5_temp_warning_event:212:(pid 0): High temperature on sensors with "
          "bit set 0 1\n")


def _found(text: str) -> list:
    return list(Scanner().scan(io.BytesIO(text.encode())))


@pytest.mark.parametrize("line, sensors", [(HOT_5X, "0 1"), (HOT_6X, "0 0x1"), (HOT_4X, "0 1")])
def test_the_nics_temperature_warning_is_a_warning_for_its_cooling_in_every_era(line, sensors):
    """Was no finding: the firmware's TEMP_WARN event (the ASIC or a module past its warning threshold), which a
    ConnectX-6 Dx's firmware followed 80 s later with its fatal "synd 0x10: High temperature"."""
    (f,) = _found(line)
    assert (f.kind, f.severity, f.attribution, f.action) == ("nic_error", "warning", "hardware", "CHECK_COOLING")
    assert f.pci.startswith(line.split("mlx5_core ")[1][:10]) and f.details["sensors"] == sensors


def test_a_warning_repeated_with_its_sensor_names_is_one_event_per_function():
    """The warning repeats (rate-limited) while the card stays hot, each with its sensor names: one finding per
    function; the other function's warning its own; a sensor name line alone (its warning lost) no finding."""
    other = HOT_6X.replace("0000:41:00.0", "0000:41:00.1")
    found = _found(HOT_6X + SENSOR + HOT_6X + SENSOR + other)
    assert [(f.kind, f.pci) for f in found] == [("nic_error", "0000:41:00"), ("nic_error", "0000:41:00.1")]
    assert _found(SENSOR) == []


# SOURCE: health.c mlx5_handle_bad_state's other words, the prefix of the real ConnectX-7 line
BAD_STATE = "mlx5_core 0000:00:03.0: mlx5_handle_bad_state:285:(pid 141): Expected to see disabled NIC but it is "


@pytest.mark.parametrize("state", ["full driver", "no dram nic", "has invalid value 7"])
def test_the_recoverys_bad_state_lines_are_part_of_the_health_event(state):
    """Was: an unclassified warning beside the fatal error."""
    text = ("mlx5_core 0000:00:03.0: poll_health:803:(pid 519): Fatal error 3 detected\n"
            "mlx5_core 0000:00:03.0: mlx5_health_try_recover:340:(pid 141): handling bad device here\n"
            + BAD_STATE + state + "\n"
            "mlx5_core 0000:00:03.0: NIC IFC still 7 after 1000ms.\n")
    assert [(f.kind, f.severity) for f in _found(text)] == [("nic_error", "fatal")]


@pytest.mark.parametrize("line", [
    "[ 2710.157400] mlx5_core 0000:0b:06.0: mlx5_function_setup:1103:(pid 97972): enable hca failed\n",
    "[ 2710.157400] mlx5_core 0000:0b:06.0: mlx5_function_enable:1529:(pid 97972): enable hca failed\n",
    "[ 2710.157400] mlx5_core 0000:0b:06.0: enable hca failed\n",  # SOURCE: 4.x main.c dev_err
])
def test_enable_hca_failed_is_the_functions_load_failure_with_its_verdict(line):
    """Was an unclassified warning before the load's verdict: now the step of mlx5_probe's one event per function."""
    text = (line + "[ 2710.199819] mlx5_core 0000:0b:06.0: probe_one:1686:(pid 97972): mlx5_init_one failed with "
            "error code -110\n[ 2710.218669] mlx5_core: probe of 0000:0b:06.0 failed with error -110\n")
    found = _found(text)
    assert [(f.kind, f.severity, f.pci) for f in found] == [("nic_error", "error", "0000:0b:06")]
    assert found[0].details["step"] == "enable hca"


def test_the_recovery_giving_up_after_a_failed_reload_is_the_health_events():
    """health.c mlx5_health_try_recover's "health recovery failed" (5.12+, after mlx5_load_one failed): SOURCE, with
    the prefix of the real ConnectX-7 lines; part of the fatal event, alone the function's fatal health finding (was an
    unclassified warning). The real line (a scalable function, "mlx5_core.sf mlx5_core.sf.25: ..", lore) names no PCI
    address: left to the unclassified net."""
    gave_up = "mlx5_core 0000:00:03.0: mlx5_health_try_recover:389:(pid 141): health recovery failed\n"
    fatal = "mlx5_core 0000:00:03.0: poll_health:803:(pid 519): Fatal error 3 detected\n"
    assert [(f.kind, f.severity) for f in _found(fatal + gave_up)] == [("nic_error", "fatal")]
    assert [(f.kind, f.severity, f.pci) for f in _found(gave_up)] == [("nic_error", "fatal", "0000:00:03")]


@pytest.mark.parametrize("refused", [
    "crdump: failed to lock vsc gw err -5",  # SOURCE: crdump.c mlx5_crdump_collect (mainline 5.x-6.x)
    "crdump: failed to lock gw status -13",  # a vendor kernel's (realworld pcie-dpc-2.yaml)
])
def test_the_crdump_refused_during_the_recovery_is_part_of_the_health_event_in_both_wordings(refused):
    """The fw_fatal reporter's crash dump refused, the function's config space gone (the real lines:
    realworld mlx5-crdump-2026x.yaml): part of the function's fatal event; alone the unclassified net's warning naming
    the function. Was: the mainline wording never part of the event, a second finding (an unclassified warning)."""
    crdump = "mlx5_core 0000:00:03.0: mlx5_crdump_collect:50:(pid 141): " + refused + "\n"
    fatal = "mlx5_core 0000:00:03.0: poll_health:803:(pid 519): Fatal error 3 detected\n"
    assert [(f.kind, f.severity) for f in _found(fatal + crdump)] == [("nic_error", "fatal")]
    assert [(f.kind, f.severity, f.pci) for f in _found(crdump)] == [("unclassified", "warning", "0000:00:03")]


@pytest.mark.parametrize("refused", [
    # crdump's gateway semaphore is the device's, shared by its physical functions (lib/pci_vsc.c, crdump.c "Verify no
    # other PF is running cr-dump or sw reset"): the real line, realworld pcie-dpc-2.yaml #0 (a DPC containment, the
    # health poll failing on function .1, function .0's dump refused)
    "mlx5_core {}: mlx5_crdump_collect:50:(pid 2239): crdump: failed to lock gw status -13\n",
    # the dump's next step after the gateway, the device's SW reset semaphore, refused while another function's
    # recovery holds it. CONSTRUCTED from crdump.c's mlx5_core_warn(dev, "Failed to lock SW reset semaphore\\n") with
    # mlx5_core_warn's "%s:%d:(pid %d): " prefix (no real line found)
    "mlx5_core {}: mlx5_crdump_collect:59:(pid 2239): Failed to lock SW reset semaphore\n",
], ids=["gateway", "sw-reset-semaphore"])
def test_a_sibling_functions_refused_crdump_is_part_of_the_devices_open_health_event(refused):
    """A sibling function's refused dump during a function's health recovery is one event, the fatal one of the
    function in recovery; another device's refusal, and a refusal alone, stay the unclassified net's warning. Was: a
    second finding, an unclassified warning beside the fatal one."""
    fatal = "mlx5_core 0004:01:00.1: print_health:819:(pid 0): Fatal error detected\n"
    got = [(f.kind, f.severity, f.pci) for f in _found(fatal + refused.format("0004:01:00.0"))]
    assert got == [("nic_error", "fatal", "0004:01:00.1")]
    got = [(f.kind, f.severity, f.pci) for f in _found(fatal + refused.format("0004:02:00.0"))]
    assert got == [("nic_error", "fatal", "0004:01:00.1"), ("unclassified", "warning", "0004:02:00")]
    assert [(f.kind, f.severity) for f in _found(refused.format("0004:01:00.0"))] == [("unclassified", "warning")]
