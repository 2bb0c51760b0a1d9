"""The NVIDIA kernel module refused at load in Talos Linux's words (its controller's error, the module named), on the
real line of the corpus (tests/fixtures/realworld/module-load-2026.yaml: siderolabs/talos #7174)."""

from __future__ import annotations

import realworld

(TALOS,) = [i for i in realworld.samples() if i["file"] == "module-load-2026.yaml"
            and i["source"].startswith("https://github.com/siderolabs/talos/")]


def test_talos_failed_load_is_the_driver_unusable_naming_its_module():
    """"error loading module \\x5c"nvidia\\x5c": load nvidia failed: key was rejected by service": was no finding."""
    (f,) = realworld.findings(TALOS["text"])
    assert (f.kind, f.severity, f.pci, f.details["inserted"]) == ("driver_unusable", "error", None, "nvidia")


def test_talos_unescaped_and_another_module_alike_and_others_quiet():
    """The same words with a plain quote and nvidia_uvm read alike; another module's failure is not the GPU driver's."""
    line = 'error loading module "nvidia_uvm": load nvidia_uvm failed: key was rejected by service\n'
    assert [(f.kind, f.details["inserted"]) for f in realworld.findings(line)] == [("driver_unusable", "nvidia_uvm")]
    other = 'error loading module \\x5c"nvme\\x5c": load nvme failed: key was rejected by service\n'
    assert realworld.findings(other) == []
