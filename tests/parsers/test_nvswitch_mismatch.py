"""The NVSwitch driver refusing a client of another version (linux_nvswitch.c nvswitch_ctl_check_version, KERN_ERR):
the kernel module and the user-space driver of different releases, kind driver_mismatch with both versions in details
(parsers/rules.py nvswitch_api_mismatch); was silent.

The real line is tests/fixtures/realworld/nvswitch-mismatch-2026.yaml's (NVIDIA/gpu-operator #115). The dmesg-enveloped
one is CONSTRUCTED from it, to show the envelope does not matter."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier

REAL = "nvidia-nvswitch: Version mismatch, kernel version 450.80.02 user version 450.51.06"


@pytest.mark.parametrize("line", [REAL, "[ 1097.650222] " + REAL], ids=["real", "dmesg"])
def test_version_mismatch_is_a_driver_mismatch(line):
    f = Classifier().classify(line)
    assert (f.kind, f.severity, f.action) == ("driver_mismatch", "error", "UPDATE_SWFW")
    assert (f.details["kernel_version"], f.details["client_version"]) == ("450.80.02", "450.51.06")


def test_the_switch_driver_probe_lines_stay_silent():
    c = Classifier()
    assert c.classify("nvidia-nvswitch: Probing device 0000:80:1d.0, Vendor Id = 0x10de, Device Id = 0x1af1, "
                      "Class = 0x68000 ") is None
    assert c.classify("nvidia-nvswitch3: using MSI") is None
