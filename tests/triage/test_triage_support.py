"""Supporting evidence (triage.attribute `support`): the warnings of the root's own node about its own device, listed
under the root, never deciding the verdict; another node's warnings, and another device's, are none."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from gpunpd.cli import main
from offline.triage_cli import Inputs, collect
from triage import attribute

ROOT = Path(__file__).resolve().parents[2]
RETURNN = ROOT / "tests" / "fixtures" / "incidents" / "returnn-1486-gpu-unknown-error" / "logs"


def _incidents(path: Path):
    return attribute(collect((str(path),), None, Inputs()))


def test_a_gpu_lost_shows_its_nodes_corrected_aer_as_support():
    # rwth-i6/returnn #1486 (real): nvidia-smi on cn-234 cannot reach GPU 0000:03:00.0; the node's dmesg holds three
    # corrected Data Link Layer timeouts that the root port 0000:00:03.0 reported about its own link
    first = _incidents(RETURNN)[0]
    assert (first.category, first.rule, first.root.host, first.root.pci) == ("hardware", "node_fault", "cn-234",
                                                                             "0000:03:00")
    assert [e.kind for e in first.evidence] == ["gpu_reset_required"]  # the verdict's evidence is as it was
    assert [(Path(e.file).name, e.line, e.kind, e.host) for e in first.support] == [
        ("dmesg.txt", 2, "pcie_aer", "cn-234"), ("dmesg.txt", 6, "pcie_aer", "cn-234"),
        ("dmesg.txt", 10, "pcie_aer", "cn-234")]
    assert all("PCIe port of the same node, 0000:00:03" in e.details["support"] for e in first.support)


def test_the_support_is_in_the_text_and_json_reports():
    text = CliRunner().invoke(main, ["triage", str(RETURNN)])
    assert text.exit_code == 0, text.output
    head, _, tail = text.output.partition("   support (3 of 3;")
    assert "evidence (1 of 1)" in head and "pcieport" not in head
    assert tail.count("AER: Corrected error received: 0000:00:03.0") == 3
    doc = json.loads(CliRunner().invoke(main, ["triage", "--format", "json", str(RETURNN)]).output)
    first = doc["incidents"][0]
    assert first["category"] == "hardware" and first["evidence_total"] == 1
    assert [s["line"] for s in first["support"]] == [2, 6, 10]
    assert all(s["kind"] == "pcie_aer" and s["host"] == "cn-234" and s["why"] for s in first["support"])


def test_another_nodes_warnings_are_no_support(tmp_path):
    # the same real lines, the dmesg moved to another node's directory (cn-235): its port is none of cn-234's
    for name in ("nvidia-smi.txt", "train.log"):
        (tmp_path / "cn-234").mkdir(exist_ok=True)
        shutil.copy(RETURNN / "cn-234" / name, tmp_path / "cn-234" / name)
    (tmp_path / "cn-235").mkdir()
    shutil.copy(RETURNN / "cn-234" / "dmesg.txt", tmp_path / "cn-235" / "dmesg.txt")
    first = _incidents(tmp_path)[0]
    assert (first.category, first.root.host, first.root.pci) == ("hardware", "cn-234", "0000:03:00")
    assert first.support == ()
    out = CliRunner().invoke(main, ["triage", str(tmp_path)]).output
    assert "support (" not in out


def test_an_aer_event_another_device_reported_is_no_support(tmp_path):
    # NVIDIA/nvidia-docker #1553 (real, tests/fixtures/realworld/xid-shapes.yaml): Xid 79 on GPU 0000:09:00, and half
    # an hour later port 0000:00:01.1's corrected error whose source is another device, 0000:00:00.0
    (tmp_path / "gpu-7").mkdir()
    (tmp_path / "gpu-7" / "dmesg.txt").write_text(
        "[1084456.074562] NVRM: Xid (PCI:0000:09:00): 79, pid=0, GPU has fallen off the bus.\n"
        "[1086487.613065] pcieport 0000:00:01.1: AER: Corrected error received: 0000:00:00.0\n"
        "[1086487.613071] pcieport 0000:00:01.1: AER: PCIe Bus Error: severity=Corrected, type=Data Link Layer, "
        "(Receiver ID)\n")
    first = _incidents(tmp_path)[0]
    assert (first.root.host, first.root.pci) == ("gpu-7", "0000:09:00")
    assert first.support == ()


def test_an_aer_event_whose_source_is_the_gpu_is_its_support(tmp_path):
    # returnn #1486's real nvidia-smi line, and a corrected AER event whose source is that GPU: a line constructed
    # from the kernel's format (drivers/pci/pcie/aer.c, as tests/fixtures/dmesg/pcie-aer.syslog), not a real one
    (tmp_path / "cn-234").mkdir()
    shutil.copy(RETURNN / "cn-234" / "nvidia-smi.txt", tmp_path / "cn-234" / "nvidia-smi.txt")
    (tmp_path / "cn-234" / "dmesg.txt").write_text(
        "[ 8975.112004] pcieport 0000:00:03.0: AER: Multiple Corrected error received: 0000:03:00.0\n"
        "[ 8975.112011] pcieport 0000:00:05.0: AER: Corrected error received: 0000:05:00.0\n")
    first = _incidents(tmp_path)[0]
    assert [(e.line, e.details["support"]) for e in first.support] == [(1, "the same device, 0000:03:00")]
