"""mlx5e's RX reporter timing out a receive queue whose posted buffers the device never took: a nic_error of its
function, as the TX timeout is, one event per netdev while its lines come (parity with NVIDIA/NVSentinel's
syslog-health-monitor pattern mlx5_rx_timeout_detected, which alarms on it; gpu-npd left it to the unclassified net).

No public log with the line was found. The lines here are CONSTRUCTED from drivers/net/ethernet/mellanox/mlx5/core/en/
reporter_rx.c mlx5e_reporter_rx_timeout's formats: 5.x "RX timeout on channel: %d, ICOSQ: 0x%x RQ: 0x%x, CQ: 0x%x",
6.x "RX timeout on channel: %d, %sRQ: 0x%x, CQ: 0x%x" (the ICOSQ part "ICOSQ: 0x%x, " or empty); the 6.x one with its
ICOSQ is the string NVSentinel's nicdriver config test matches (TestLoadConfig_NAPISoftLockupAndTimeoutPatterns)."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier


def _found(lines: list[str]) -> list[tuple]:
    c = Classifier()
    return [(f.kind, f.pci, f.details.get("netdev"), f.details.get("channel"))
            for f in map(c.classify, lines) if f is not None]


@pytest.mark.parametrize("line, channel", [
    ("mlx5_core 0000:65:00.0 ens15np0: RX timeout on channel: 20, ICOSQ: 0x1ee0 RQ: 0x1e43, CQ: 0x3ea6", 20),
    ("mlx5_core 0000:65:00.0 ens15np0: RX timeout on channel: 20, ICOSQ: 0x1ee0, RQ: 0x1e43, CQ: 0x3ea6", 20),
    ("mlx5_core 0000:65:00.0 ens15np0: RX timeout on channel: 3, RQ: 0x1e43, CQ: 0x3ea6", 3),
], ids=["5.x", "6.x", "6.x-no-icosq"])
def test_every_era_is_a_nic_error_of_its_function(line, channel):
    # was: the unclassified net's warning
    assert _found([line]) == [("nic_error", "0000:65:00", "ens15np0", channel)]


def test_channels_of_one_netdev_and_its_tx_timeout_are_one_event():
    lines = ["mlx5_core 0000:65:00.0 ens15np0: RX timeout on channel: 20, ICOSQ: 0x1ee0, RQ: 0x1e43, CQ: 0x3ea6",
             "mlx5_core 0000:65:00.0 ens15np0: RX timeout on channel: 21, ICOSQ: 0x1ee4, RQ: 0x1e47, CQ: 0x3eaa",
             "mlx5_core 0000:65:00.0 ens15np0: TX timeout detected",
             "mlx5_core 0000:65:00.1 ens15np1: RX timeout on channel: 2, ICOSQ: 0x10a0, RQ: 0x10a3, CQ: 0x10a6"]
    assert _found(lines) == [("nic_error", "0000:65:00", "ens15np0", 20), ("nic_error", "0000:65:00.1", "ens15np1", 2)]

