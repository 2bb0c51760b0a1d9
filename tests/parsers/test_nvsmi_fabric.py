"""nvidia-smi -q's Fabric block in `parse` (parsers/rules.py "nvsmi_fabric_fault", kind nvlink_fabric): a registration
completed with an error status and an Unhealthy health summary are findings, read only inside the block its "Fabric"
header opens; their severity and condition are what the agent's telemetry rows for the same values say
(parsers/sample_rules.yaml, kind nvlink_fabric). Real blocks: tests/fixtures/realworld/nvsmi-fabric-2026h.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsers import Classifier
from parsers.catalog import NVSMI_FABRIC_HEALTH, NVSMI_FABRIC_STATUS_REASON
from parsers.kinds import BY_NAME as KINDS
from parsers.telemetry import rows
import realworld

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SAMPLES = [i for i in realworld.samples() if i["file"] == "nvsmi-fabric-2026h.yaml"]
# Azure/azhpc-images #506 and kubernetes-sigs/dra-driver-nvidia-gpu #626, verbatim (the fixture's)
STATUS = SAMPLES[0]["text"].splitlines()[2]
SUMMARY = SAMPLES[1]["text"].splitlines()[6]


def findings(lines: list[str]):
    c = Classifier()
    return [f for f in (c.classify(line) for line in lines) if f is not None]


def test_the_real_blocks_are_read():
    assert "Insufficient Resources" in STATUS and "Unhealthy" in SUMMARY
    got = [[(f.kind, f.severity, f.details) for f in findings(i["text"].splitlines())] for i in SAMPLES]
    assert got == [[("nvlink_fabric", "error", {"fabric_status": "Insufficient Resources"})],
                   [("nvlink_fabric", "error", {"fabric_health": "Unhealthy"})],
                   [], []]  # In Progress (NVIDIA/gpu-operator #2511) and a GPU on no fabric (N/A): silent


@pytest.mark.parametrize("line", [STATUS, SUMMARY])
def test_outside_the_fabric_block_the_lines_say_nothing(line):
    """"Status" and "Summary" are other sections' and other tools' words too: alone, or past the block's six lines
    after its header, nothing."""
    assert findings([line]) == []
    assert findings(["    Fabric"] + ["        CliqueId                          : 0"] * 6 + [line]) == []
    assert [f.kind for f in findings(["    Fabric"] + ["        CliqueId                          : 0"] * 5 + [line])] \
        == ["nvlink_fabric"]


@pytest.mark.parametrize("name", ["h200-r580.nvidia-smi-q.txt", "h200-r580-load.nvidia-smi-q.txt"])
def test_a_healthy_gpus_whole_nvidia_smi_q_is_silent(name):
    """A healthy H200's whole nvidia-smi -q (580.159.04, idle and under load: every section's Status / Summary fields)."""
    assert findings((FIXTURES / "nvml" / name).read_text().splitlines()) == []


def test_limited_capacity_is_a_warning():
    """(Synthetic: #626's Summary line with NVML's other unhealthy word, "Limited Capacity", in place of "Unhealthy";
    no public nvidia-smi -q shows it.)"""
    line = SUMMARY.replace("Unhealthy", "Limited Capacity")
    [f] = findings(["    Fabric", line])
    assert (f.kind, f.severity) == ("nvlink_fabric", "warning")
    assert KINDS["nvlink_fabric"].raised_at(f.severity) == "GPUDegraded"


def test_severity_and_condition_are_the_telemetry_rows_for_the_same_value():
    """What nvidia-smi prints and what NVML answers the agent are one value: a finding of the block raises the
    condition, at the severity, of the telemetry row reading it (the condition derived from the kind for both)."""
    by_reason = {r["reason"]: r for r in rows()}
    kind = KINDS["nvlink_fabric"]
    pairs = [(kind.severity, NVSMI_FABRIC_STATUS_REASON)] + list(NVSMI_FABRIC_HEALTH.values())
    for severity, reason in pairs:
        row = by_reason[reason]
        assert row["kind"] == "nvlink_fabric", reason
        assert row["severity"] == severity, reason
        assert row["condition"] == kind.raised_at(severity), reason
