"""bnxt_en's command channel to the NIC's firmware (drivers/net/ethernet/broadcom/bnxt/bnxt_hwrm.c): a command the
firmware did not answer, or one abandoned for the firmware's status, is the port's nic_error; the driver core's probe
failure after it is part of that event (parsers/rules.py bnxt_hwrm_timeout, bnxt_probe_failed).

The real lines are tests/fixtures/realworld/nics-2026i.yaml's (lore stable 20260323134511.126623444@linuxfoundation.org).
The others here are CONSTRUCTED from bnxt_hwrm.c's formats (hwrm_req_send): "Error (timeout: %u) msg {0x%x 0x%x}
len:%d", a later kernel's valid-bit timeout "Error (timeout: %u) msg {0x%x 0x%x} len:%d v:%d", and "Abandoning msg {0x%x 0x%x}
len: %d due to firmware status: 0x%x", printed through the netdev (its name once registered)."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier

REAL_TIMEOUT = "bnxt_en 0000:43:00.0 (unnamed net_device) (uninitialized): Error (timeout: 500015) msg {0x0 0x0} len:0"
REAL_PROBE = "bnxt_en 0000:43:00.0: probe with driver bnxt_en failed with error -16"


def _found(lines: list[str]) -> list[tuple]:
    c = Classifier()
    return [(f.kind, f.severity, f.pci) for f in map(c.classify, lines) if f is not None]


@pytest.mark.parametrize("line", [
    REAL_TIMEOUT,
    "bnxt_en 0000:41:00.0 ens1f0np0: Error (timeout: 500015) msg {0x41 0x1f4} len:0",
    "bnxt_en 0000:41:00.0 ens1f0np0: Error (timeout: 2000012) msg {0x23 0x9a} len:16 v:0",
    "bnxt_en 0000:41:00.0 ens1f0np0: Abandoning msg {0x41 0x1f5} len: 0 due to firmware status: 0x8000",
], ids=["real", "named netdev", "valid bit", "abandoned"])
def test_a_command_the_firmware_did_not_answer_is_the_ports_nic_error(line):
    # each was the unclassified net's warning
    assert _found([line]) == [("nic_error", "error", line.split()[1].rsplit(".", 1)[0])]


def test_the_probe_failure_after_it_is_the_same_event():
    assert _found([REAL_TIMEOUT, REAL_PROBE]) == [("nic_error", "error", "0000:43:00")]
    # alone (its cause not logged): the port's failure all the same
    assert _found([REAL_PROBE]) == [("nic_error", "error", "0000:43:00")]


@pytest.mark.parametrize("line", [
    "bnxt_en 0000:12:00.0 (unnamed net_device) (uninitialized): Device requests max timeout of 100 seconds, may "
    "trigger hung task watchdog",
    "bnxt_en 0000:19:00.0 eno1np0: FEC autoneg off encoding: None",
])
def test_the_drivers_banners_stay_silent(line):
    """REAL lines (nics-2026i.yaml): the firmware's max command timeout notice and the FEC line are no fault."""
    assert _found([line]) == []


# REAL: 5.4's driver core (lore netdev CACKFLimgUxTV7Cgg5dYtWtvTsWpOK538UtLmyyxP0tTaYOzL6g@mail.gmail.com,
# nics-2026q.yaml); the mlx5_core lines are CONSTRUCTED from drivers/base/dd.c's two formats, as REAL_PROBE is 6.x's
@pytest.mark.parametrize("line,pci", [
    (REAL_PROBE, "0000:43:00"),
    ("[    2.622295] bnxt_en: probe of 0000:00:03.0 failed with error -95", "0000:00:03"),
    ("mlx5_core 0000:03:00.0: probe with driver mlx5_core failed with error -22", "0000:03:00"),
    ("mlx5_core: probe of 0000:03:00.0 failed with error -22", "0000:03:00"),
], ids=["bnxt 6.x", "bnxt 2.6-6.0", "mlx5 6.x", "mlx5 2.6-6.0"])
def test_the_driver_cores_probe_failure_is_the_nics_in_both_eras(line, pci):
    assert _found([line]) == [("nic_error", "error", pci)]


# REAL (tests/fixtures/realworld/nics-bnxt-hwrm-2026.yaml): a command the firmware answered with an error code, at run
# time (lore stable 20250115103607.640760086@linuxfoundation.org) and at probe (lore netdev
# 20250113063927.4017173-2-michael.chan@broadcom.com); an RX aggregation's buffer count gone wrong (lore netdev
# 20251224191116.3526999-1-michael.chan@broadcom.com)
REFUSED = "bnxt_en 0000:21:00.1 ens2f1np1: hwrm req_type 0x53 seq id 0x6fca error 0x2"
REFUSED_AT_PROBE = "bnxt_en 0000:26:00.0 (unnamed net_device) (uninitialized): hwrm req_type 0x1d seq id 0xb error 0x2"
TPA = "bnxt_en 0000:83:00.0 enp131s0np0: TPA end agg_buf 2 != expected agg_bufs 1"


@pytest.mark.parametrize("line,pci", [
    (REFUSED, "0000:21:00.1"), (REFUSED_AT_PROBE, "0000:26:00"), (TPA, "0000:83:00"),
], ids=["refused", "refused at probe", "tpa"])
def test_a_refused_command_or_a_wrong_aggregation_is_the_drivers_warning(line, pci):
    # was: the unclassified net's warning (the refusals), no finding (the aggregation)
    c = Classifier()
    f = c.classify(line)
    assert (f.kind, f.severity, f.attribution, f.pci) == ("nic_error", "warning", "driver", pci)


def test_a_refusal_opens_no_bnxt_event_a_later_failure_would_join_unseen():
    # REAL_PROBE's address in both lines is CONSTRUCTED (the refusal's probe aborts; its verdict is the driver core's)
    probe = REAL_PROBE.replace("43:00.0", "26:00.0")
    assert _found([REFUSED_AT_PROBE, probe]) == [("nic_error", "warning", "0000:26:00"),
                                                 ("nic_error", "error", "0000:26:00")]
    # within the port's open event (a timeout, then the firmware refusing the reset's commands): part of it
    refused = REFUSED_AT_PROBE.replace("26:00.0", "43:00.0")
    assert _found([REAL_TIMEOUT, refused, REAL_PROBE]) == [("nic_error", "error", "0000:43:00")]


@pytest.mark.parametrize("line", [
    "bnxt_en 0000:67:00.0 eth0: TS query for TX timer failed rc = fffffff5",
    "bnxt_en 0000:19:00.1 eno2np1: Error: bnxt_tc_add_flow: cookie=0xffff8dace1c88000 error=-22",
], ids=["ptp timestamp", "tc offload"])
def test_routine_refusals_stay_silent(line):
    """REAL (nics-bnxt-hwrm-2026.yaml): a PTP timestamp late in a busy network, a tc flow offered with hw-tc-offload
    off. Was: the unclassified net's warning (a Node Event per function)."""
    assert _found([line]) == []
