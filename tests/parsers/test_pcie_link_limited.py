"""A PCIe link trained below its device's capability (the kernel's __pcie_print_link_status): the device's own driver
printing fewer lanes than the device has is a warning naming it; the line at enumeration ("pci"), a speed alone below
the device's, or a full-bandwidth line is no alarm. Over the real lines of tests/fixtures/realworld/pcie-link-2026t.yaml
and, for the eras and shapes no public log in hand shows, lines built from the kernel's format strings."""

from __future__ import annotations

import pytest
import yaml
from realworld import ROOT, findings

SAMPLES = yaml.safe_load((ROOT / "pcie-link-2026t.yaml").read_text())


def limited(text: str) -> list:
    return [f for f in findings(text) if f.kind == "pcie_aer"]


def test_a_nic_driver_reporting_fewer_lanes_than_its_nic_is_a_warning_naming_it():
    (f,) = limited(SAMPLES[0]["text"])  # NVIDIA/l2fwd-nv #6, mlx5_core on 5.0: "8 GT/s x8" of "16 GT/s x16"
    assert (f.pci, f.severity, f.action) == ("0000:b3:00.1", "warning", "CHECK_MECHANICALS")
    assert f.details == {"link": "8 GT/s x8", "capable": "16 GT/s x16", "limited_at": "0000:b2:00.0",
                         "printed_by": "mlx5_core"}


@pytest.mark.parametrize("sample", SAMPLES[1:], ids=lambda s: s["source"].split("/")[-2])
def test_the_line_at_enumeration_is_a_record_of_the_device_not_an_alarm(sample):
    """A laptop GPU wired x8, devices behind a x4 chipset uplink, a GPU's switch on one lane: by design."""
    found = limited(sample["text"])
    assert found and {(f.severity, f.action) for f in found} == {("info", "NONE")}
    assert all(f.details["printed_by"] == "pci" for f in found)


# Constructed, not real: built from drivers/pci/pci.c __pcie_print_link_status's format strings ("%s x%d link" with
# PCIE_SPEED2STR, 5.x+ "8.0 GT/s PCIe"; 6.x+ ", in Flit mode" after it; "<unknown>" with no limiting device).
@pytest.mark.parametrize("line, severity", [
    # 5.x+ strings, a driver's own line with a lane loss: a warning
    ("bnxt_en 0000:41:00.0: 126.024 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at 0000:40:01.1 "
     "(capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)", "warning"),
    ("mlx5_core 0000:1a:00.0: 252.048 Gb/s available PCIe bandwidth, limited by 32.0 GT/s PCIe x8 link at <unknown> "
     "(capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link), in Flit mode", "warning"),
    # a speed alone below the device's (a Gen5 NIC in a Gen4 server; a GPU at Gen1 while idle): a record
    ("mlx5_core 0000:1a:00.0: 252.048 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x16 link at "
     "0000:19:00.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)", "info"),
    ("nvidia 0000:3b:00.0: 32.000 Gb/s available PCIe bandwidth, limited by 2.5 GT/s PCIe x16 link at 0000:3a:00.0 "
     "(capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)", "info"),
])
def test_every_era_of_the_line(line, severity):
    (f,) = limited(f"[   12.345678] {line}\n")
    assert f.severity == severity


def test_a_link_at_full_bandwidth_is_no_finding():
    """The verbose form a driver prints of a link at its capability (real: tests/fixtures/realworld/host-3.yaml)."""
    assert limited("[   10.643346] mlx5_core 0004:01:00.0: 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)\n") == []
