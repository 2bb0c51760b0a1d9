"""`dcgmi diag`'s table as `gpu-npd parse` reads it (parsers/rules.py dcgm_diag_*): a test's Fail names its GPU, even
on the continuation row below the test's name; Pass rows and a 4.x Warn test's entity rows are silent. The real tables
are tests/fixtures/dcgm's (verbatim, sources in its SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsers import Classifier

DCGM = Path(__file__).parents[1] / "fixtures" / "dcgm"


def run(lines):
    c = Classifier()
    return [f for f in (c.classify(line) for line in lines) if f is not None]


def table(name):
    return (DCGM / name).read_text().splitlines()


@pytest.mark.parametrize("name,details,severity", [
    # GPU Memory: Pass on GPU 1 on the test's row, Fail on GPU 0 on the row below it (go-dcgm #52)
    ("dcgm3-r2-gpu-memory-fail-go-dcgm-52.txt", {"result": "Fail", "gpu": 0}, "error"),
    ("dcgm-r2-gpu-memory-thermal-fail-ml-engineering.txt", {"result": "Fail", "gpu": 0}, "error"),
    # every GPU (DCGM #49)
    ("dcgm2.4.6-r2-pcie-fail-all-nvlink-down-dcgm-49.txt", {"test": "PCIe", "result": "Fail", "all": "All"}, "error"),
])
def test_a_failed_test_names_its_gpu(name, details, severity):
    found = run(table(name))
    assert [(f.kind, f.severity) for f in found] == [("dcgm_diag", severity)]
    assert found[0].details.items() >= details.items()


def test_a_deployment_error_rows_pending_row_remap_is_that_gpus_reset():
    found = run(table("dcgm-deployment-error-row-remap-ml-engineering.txt"))
    assert [(f.kind, f.details.get("gpu"), f.attribution) for f in found] == [("gpu_reset_required", 3, "hardware")]


@pytest.mark.parametrize("name", ["dcgm3-r3-deployment-pass-truncated-dcgm-55.txt",
                                  "dcgm3-r3-deployment-pass-truncated-autopilot-68.txt",
                                  "dcgm4-software-pass-truncated-dcgm-253.txt"])
def test_a_passing_table_is_silent(name):
    assert run(table(name)) == []


# 4.x's layout (dcgmi/Diag.cpp HelperDisplayEntityResults; DCGM #253's rows): the test's status on its row, each
# entity's below it, a Warn test's entities printed "Fail" too
ROW = "| {:<25} | {:<46} |"


def test_4x_entity_fail_rows_count_only_below_their_tests_fail_row():
    lines = [ROW.format("software", "Warn"), ROW.format("", "GPU0: Fail"), ROW.format("", "GPU1: Pass"),
             ROW.format("memory", "Fail"), ROW.format("", "GPU0: Pass"), ROW.format("", "GPU1: Fail"),
             ROW.format("pcie", "Pass"), ROW.format("", "GPU0: Fail")]
    found = run(lines)
    assert [(f.kind, f.severity, f.details.get("gpu")) for f in found] == [("dcgm_diag", "error", 1)]


def test_a_warn_result_is_a_warning():
    found = run([ROW.format("Targeted Power", "Warn - GPU: 2")])
    assert [(f.kind, f.severity, f.details.get("test"), f.details.get("gpu")) for f in found] == \
        [("dcgm_diag", "warning", "Targeted Power", 2)]
