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
    assert (f.kind, f.severity, f.action) == ("driver_mismatch", "warning", "UPDATE_SWFW")
    assert (f.details["kernel_version"], f.details["client_version"]) == ("450.80.02", "450.51.06")


def test_the_switch_driver_probe_lines_stay_silent():
    c = Classifier()
    assert c.classify("nvidia-nvswitch: Probing device 0000:80:1d.0, Vendor Id = 0x10de, Device Id = 0x1af1, "
                      "Class = 0x68000 ") is None
    assert c.classify("nvidia-nvswitch3: using MSI") is None


def test_a_client_of_another_version_taints_nothing():
    """The line is the refused client's, not the GPUs': in gpu-operator #115 a node with one P40 and no NVSwitch at all
    printed it while the operator's dcgm-exporter container (user version 450.51.06) crash-looped against the 450.80.02
    module, the GPU serving pods. A monitoring DaemonSet of another release, rolled out to a fleet, must not mark every
    node's GPUs GPUUnhealthy until a driver reload: a warning, no condition (NVRM's API mismatch, the GPU driver's own
    refusal of every CUDA / NVML client, and Fabric Manager's refusal of the driver stay GPUUnhealthy)."""
    from agent.config import load
    from agent.health import HealthEngine

    engine = HealthEngine(load(env={}, flags={}), lambda: 1_795_000_000.0)
    f = Classifier().classify(REAL)
    assert (f.kind, f.severity) == ("driver_mismatch", "warning")
    engine.observe(f)
    assert not any(c.status for c in engine.conditions.values())
    engine.observe(Classifier().classify("NVRM: API mismatch: the client has the version 535.54.03, but"
                                         "#012NVRM: this kernel module has the version 530.30.02.  Please"))
    assert engine.conditions["GPUUnhealthy"].status
