"""The kernel's TX watchdog (NETDEV WATCHDOG) in every era's wording: a nic_error, one event per network interface
(rules.EVENT_PER_GROUP: 6.8+ names its PCI function too, IPoIB's handler the interface alone) while its lines come (6.8+
prints it again at every timeout while the queue stays stuck).

Real lines are tests/fixtures/realworld/nics-ena-2026n.yaml's and mlx5-more.yaml's. The lines here are CONSTRUCTED from
net/sched/sch_generic.c dev_watchdog's formats: before 2.6.27 "NETDEV WATCHDOG: %s: transmit timed out", 2.6.27-2.6.31
"NETDEV WATCHDOG: %s (%s): transmit timed out", 2.6.32-6.7 "NETDEV WATCHDOG: %s (%s): transmit queue %u timed out"
(6.x adding " %u ms"), 6.8+ netdev_crit's "<driver> <bus id> <interface>: NETDEV WATCHDOG: CPU: %d: transmit queue %u
timed out %u ms"; IPoIB's handler's (drivers/infiniband/ulp/ipoib ipoib_timeout) "%s: transmit timeout: latency %d
msecs" and "%s: queue stopped %d, tx_head %u, tx_tail %u, global_tx_head %u, global_tx_tail %u" (real lines:
tests/fixtures/realworld/ipoib-tx-timeout-2026.yaml)."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier


def _found(lines: list[str]) -> list[tuple]:
    c = Classifier()
    return [(f.kind, f.pci, f.details.get("netdev")) for f in map(c.classify, lines) if f is not None]


@pytest.mark.parametrize("line, pci, device", [
    ("NETDEV WATCHDOG: eth0: transmit timed out", None, "eth0"),
    ("NETDEV WATCHDOG: eth0 (e1000e): transmit timed out", None, "eth0"),
    ("NETDEV WATCHDOG: eth1 (mlx5_core): transmit queue 19 timed out", None, "eth1"),
    ("NETDEV WATCHDOG: eth1 (mlx5_core): transmit queue 19 timed out 10720 ms", None, "eth1"),
    ("mlx5_core 0000:53:00.0 eth2: NETDEV WATCHDOG: CPU: 59: transmit queue 0 timed out 10720 ms", "0000:53:00", "eth2"),
    ("NETDEV WATCHDOG: ib0.8001 (): transmit queue 3 timed out", None, "ib0.8001"),
], ids=["2.6.26", "2.6.27", "2.6.32-5.x", "6.0-6.7", "6.8+", "no driver bound"])
def test_every_era_is_a_nic_error_naming_its_device(line, pci, device):
    # the first two were: no finding
    assert _found([line]) == [("nic_error", pci, device)]


def test_a_stuck_queue_repeating_is_one_event_per_device():
    one = "mlx5_core 0000:53:00.0 eth2: NETDEV WATCHDOG: CPU: 59: transmit queue 0 timed out {} ms"
    other = "mlx5_core 0000:53:00.1 eth3: NETDEV WATCHDOG: CPU: 12: transmit queue 4 timed out {} ms"
    lines = [one.format(5000), other.format(5000), one.format(10000), other.format(10000), one.format(15000)]
    # was: a finding per line
    # (a function 0's address is printed without ".0", the others' with their function: parsers/pci.py)
    assert _found(lines) == [("nic_error", "0000:53:00", "eth2"), ("nic_error", "0000:53:00.1", "eth3")]


IPOIB = ["ib0.8001: transmit timeout: latency {} msecs",
         "ib0.8001: queue stopped 1, tx_head 1024, tx_tail 896, global_tx_head 1024, global_tx_tail 896"]


def test_ipoibs_handler_alone_is_the_interfaces_tx_timeout_one_event_while_it_repeats():
    # before 6.8 the watchdog's line is printed once per boot: a queue stuck later leaves IPoIB's two lines alone, at
    # every timeout (was: no finding, however long they repeated)
    lines = [line.format(ms) for ms in (5120, 10240, 15360) for line in IPOIB]
    lines += ["ib1: transmit timeout: latency 5120 msecs"]
    assert _found(lines) == [("nic_error", None, "ib0.8001"), ("nic_error", None, "ib1")]


def test_ipoibs_handler_after_the_watchdog_is_its_event():
    lines = ["NETDEV WATCHDOG: ib0.8001 (): transmit queue 3 timed out"] + [line.format(10) for line in IPOIB]
    assert _found(lines) == [("nic_error", None, "ib0.8001")]


def test_ipoibs_handler_after_the_6_8_watchdog_naming_the_hcas_function_is_its_event():
    # 6.8+ netdev_crit names the IPoIB interface's parent, its HCA's PCI function (ipoib_main.c: SET_NETDEV_DEV(priv->dev,
    # priv->ca->dev.parent)), IPoIB's ipoib_warn the interface alone. CONSTRUCTED: 6.8+'s format as printed for other
    # drivers (csrutil/OpenWrt-NIC-Drivers #11's "r8125 0000:22:04.0 eth4: NETDEV WATCHDOG: CPU: 3: ..") with an
    # IPoIB interface and mlx5_core, IPoIB's lines as ipoib-tx-timeout-2026.yaml's. Was: two findings for one timeout
    # (the watchdog's event keyed by the PCI address, IPoIB's by the interface)
    lines = ["mlx5_core 0000:53:00.0 ib0: NETDEV WATCHDOG: CPU: 59: transmit queue 0 timed out 10720 ms",
             "ib0: transmit timeout: latency 10720 msecs",
             "ib0: queue stopped 1, tx_head 0, tx_tail 0, global_tx_head 0, global_tx_tail 0"]
    assert _found(lines * 3) == [("nic_error", "0000:53:00", "ib0")]
    # a child interface of the same HCA port (a P_Key's, "ib0.8001") has its own queues: its own event
    child = [line.replace("ib0", "ib0.8001") for line in lines]
    assert _found(lines + child) == [("nic_error", "0000:53:00", "ib0"), ("nic_error", "0000:53:00", "ib0.8001")]


def test_the_queue_line_alone_and_other_drivers_timeouts_are_no_ipoib_finding():
    assert _found([IPOIB[1], "eth0: transmit timeout: latency unknown", "queue stopped 1, tx_head 3, tx_tail 2"]) == []
