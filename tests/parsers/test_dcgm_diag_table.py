"""`dcgmi diag`'s table as `gpu-npd parse` reads it (parsers/rules.py dcgm_diag_*): a test's Fail names its GPU and the
test, even on the continuation row below the test's name; Pass rows and a 4.x Warn test's entity rows are silent. The
real tables are tests/fixtures/dcgm's (verbatim, sources in its SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parsers import Classifier
from parsers.finding import amends
from realworld import classified, findings, lines_by_source

DCGM = Path(__file__).parents[1] / "fixtures" / "dcgm"


def run(lines):
    c = Classifier()
    return [f for f in (c.classify(line) for line in lines) if f is not None]


def table(name):
    return (DCGM / name).read_text().splitlines()


ROW = "| {:<25} | {:<46} |"  # a row of dcgmi diag's table (its DIAG_DATA stencil: the real tables' widths)


@pytest.mark.parametrize("name,details,severity", [
    # GPU Memory: Pass on GPU 1 on the test's row, Fail on GPU 0 on the row below it (go-dcgm #52), the test's name
    # the row above's
    ("dcgm3-r2-gpu-memory-fail-go-dcgm-52.txt", {"test": "GPU Memory", "result": "Fail", "gpu": 0}, "error"),
    ("dcgm-r2-gpu-memory-thermal-fail-ml-engineering.txt", {"test": "GPU Memory", "result": "Fail", "gpu": 0}, "error"),
    # every GPU (DCGM #49)
    ("dcgm2.4.6-r2-pcie-fail-all-nvlink-down-dcgm-49.txt", {"test": "PCIe", "result": "Fail", "all": "All"}, "error"),
])
def test_a_failed_test_names_its_gpu(name, details, severity):
    found = run(table(name))
    assert [(f.kind, f.severity) for f in found] == [("dcgm_diag", severity)]
    assert found[0].details.items() >= details.items()


def test_a_fail_on_the_continuation_row_names_the_test_of_the_row_above():
    """go-dcgm #52 (DCGM 3.3.1): "| GPU Memory | Pass - GPU: 1 |" then "|  | Fail - GPU: 0 |": the Fail is GPU 0's in
    the GPU Memory test (rules.EVENT_CARRIES, event "dcgm_gpus"), as `gpu-npd parse` reads the corpus's sample and as
    the agent's pipeline reads the lines. Was: no `test`, "a DCGM diagnostic failed on GPU 0" without which."""
    lines = lines_by_source("dcgm-diag-2026.yaml")["https://github.com/NVIDIA/go-dcgm/issues/52"]
    assert lines == table("dcgm3-r2-gpu-memory-fail-go-dcgm-52.txt")
    for found in (findings("\n".join(lines)), classified(lines)):
        assert [(f.kind, f.details.get("test"), f.details.get("gpu")) for f in found] == [
            ("dcgm_diag", "GPU Memory", 0)]


# CONSTRUCTED: rows in dcgmi/Diag.cpp HelperDisplayGpuResults' order (v2.4.7-v3.3.9: a test's Pass row first, named,
# then its Fail, Warn and Skip rows unnamed, then its Warning and Info rows), in the DIAG_DATA stencil's layout (ROW
# below, the real tables' widths); the section separators as go-dcgm #52's and ml-engineering's tables print them.
HARDWARE = "+-----  Hardware  ----------+------------------------------------------------+"
DEPLOYMENT = "|-----  Deployment  --------+------------------------------------------------|"


def test_a_continuation_rows_test_is_its_own_tests_never_another_ones():
    rows = [ROW.format("Diagnostic", "Pass - GPU: 1"), ROW.format("", "Fail - GPU: 0"), ROW.format("", "Warn - GPU: 2"),
            ROW.format("Warning", "GPU 0 Error using CUDA API cuCtxCreate"),
            ROW.format("Targeted Power", "Fail - GPU: 3"), ROW.format("", "Warn - GPUs: 0, 1"),
            ROW.format("Memory Bandwidth", "Pass - GPUs: 0, 1, 2, 3"), ROW.format("", "Skip - GPU: 4")]
    assert [(f.severity, f.details.get("test"), f.details.get("gpu")) for f in run(rows)] == [
        ("error", "Diagnostic", 0), ("warning", "Diagnostic", 2), ("error", "Targeted Power", 3),
        ("warning", "Targeted Power", "0, 1")]


@pytest.mark.parametrize("between", [
    [HARDWARE], [DEPLOYMENT],  # a section separator: the next section's row, not the test's
    [ROW.format("Warning", "GPU 1 Thermal violations totaling 13.3 second")],  # the test's rows ended
    ["Successfully ran diagnostic for group."],  # a line outside the table
    [ROW.format("PCIe", "Pass - All")]])  # another test's row (every GPU passed: no continuation row of its own)
def test_a_continuation_row_after_anything_but_its_tests_rows_names_no_test(between):
    rows = [ROW.format("GPU Memory", "Pass - GPU: 1")] + between + [ROW.format("", "Fail - GPU: 0")]
    assert [(f.details.get("test"), f.details.get("gpu")) for f in run(rows)] == [(None, 0)]
    assert [f.details.get("test") for f in run(rows[-1:])] == [None]  # a table cut above it: as it was


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


def test_4x_entity_fail_rows_count_only_below_their_tests_fail_row():
    lines = [ROW.format("software", "Warn"), ROW.format("", "GPU0: Fail"), ROW.format("", "GPU1: Pass"),
             ROW.format("memory", "Fail"), ROW.format("", "GPU0: Pass"), ROW.format("", "GPU1: Fail"),
             ROW.format("pcie", "Pass"), ROW.format("", "GPU0: Fail")]
    found = run(lines)
    # the entity's test the Fail row's above it (rules.EVENT_CARRIES, event "dcgm_diag"); was: no `test`
    assert [(f.kind, f.severity, f.details.get("gpu"), f.details.get("test")) for f in found] == [
        ("dcgm_diag", "error", 1, "memory")]


def test_a_warn_result_is_a_warning():
    found = run([ROW.format("Targeted Power", "Warn - GPU: 2")])
    assert [(f.kind, f.severity, f.details.get("test"), f.details.get("gpu")) for f in found] == \
        [("dcgm_diag", "warning", "Targeted Power", 2)]


# `dcgmi health -c`'s 1.x-3.x table (dcgmi/Health.cpp): DCGM's user guide's report, verbatim as
# tests/fixtures/realworld/dcgm-health-2026.yaml holds it (the guide's PCIe replays on GPU 0, a corrupt InfoROM on GPU 1)
HEALTH = """\
Health Monitor Report
+----------------------------------------------------------------------------+
| Group 1          | Overall Health: Warning                                 |
+==================+=========================================================+
| GPU ID: 0        | Warning                                                 |
|                  | PCIe system: Warning - Detected more than 8 PCIe        |
|                  | replays per minute for GPU 0: 13                        |
+------------------+---------------------------------------------------------+
| GPU ID: 1        | Warning                                                 |
|                  | InfoROM system: Warning - A corrupt InfoROM has been    |
|                  | detected in GPU 1.                                      |
+------------------+---------------------------------------------------------+""".splitlines()


def test_a_health_reports_gpu_row_names_the_gpu_and_the_system_below_it_at_dcgms_result():
    found = findings("\n".join(HEALTH))  # as `gpu-npd parse` reads it: the GPU's finding, its system's amendment in it
    assert [(f.kind, f.severity, f.details.get("gpu"), f.details.get("test")) for f in found] == [
        ("dcgm_diag", "warning", 0, "PCIe"), ("dcgm_diag", "warning", 1, "InfoROM")]


def test_a_gpus_several_failing_systems_are_all_its_findings_test():
    """dcgmi/Health.cpp HandleOneEntity prints each failing system of a GPU on its own row below the GPU's: the
    finding's `test` names them all (rules.EVENT_FILL_APPEND), the second an amendment as the first. COMPOSED: the
    guide's GPU 0 rows with its InfoROM system's rows (GPU 1's in the guide) below them, each row verbatim. Was: "PCIe"
    alone."""
    rows = HEALTH[:7] + HEALTH[9:11]
    found = findings("\n".join(rows))
    assert [(f.severity, f.details.get("gpu"), f.details.get("test")) for f in found] == [
        ("warning", 0, "PCIe, InfoROM")]
    amended = classified(rows)  # the GPU's finding, then each system's amendment of it
    assert [(amends(f), f.details.get("test")) for f in amended] == [
        (None, None), ("test", "PCIe"), ("test", "PCIe, InfoROM")]
    assert [f.details.get("test") for f in classified(rows[:7] + rows[5:7])] == [None, "PCIe"]  # a system once


def test_a_health_reports_failure_is_an_error_and_a_healthy_report_is_silent():
    # the rows in dcgmi/Health.cpp's layout, a Failure's words DCGM_FR_NVLINK_ERROR_CRITICAL's (not a real report)
    failure = [HEALTH[4].replace("GPU ID: 0", "GPU ID: 3").replace("Warning", "Failure"),
               "|                  | NVLINK system: Failure - Detected a NvLink replay or recovery error on GPU 3 |"]
    found = findings("\n".join(failure))
    assert [(f.severity, f.details.get("gpu"), f.details.get("test")) for f in found] == [("error", 3, "NVLINK")]
    assert run(["Health Monitor Report", HEALTH[1], "| Group 1          | Overall Health: Healthy"
                "                                 |", HEALTH[1]]) == []


def test_nv_hostengines_health_incident_names_its_system_and_gpu_at_dcgms_result():
    line = ("ERROR [1514002:1514004] [[Health]] Detected a WARNING in health system Thermal: 'Detected clocks event due "
            "to thermal violation in GPU 2. Verify that the cooling on this machine is functional, including external, "
            "thermal material interface, fans, and any other components.")  # NVIDIA/DCGM #270, verbatim
    found = run([line, line.replace("WARNING", "FAILURE")])
    assert [(f.kind, f.severity, f.details.get("test"), f.details.get("gpu")) for f in found] == [
        ("dcgm_diag", "warning", "Thermal", 2), ("dcgm_diag", "error", "Thermal", 2)]


# DCGM's health watch's own words for an Xid (DCGM_FR_XID_ERROR_MSG "Detected XID %u for GPU %u", 4.x dcgm_errors.h),
# relayed by a health monitor's node condition (NVIDIA/NVSentinel #911, tests/fixtures/realworld/dcgm-4x-2026h714.yaml):
# the Xid's catalog row, its GPU, said again by DCGM (a restated kernel line). Was no finding.
NVSENTINEL_911 = ("ErrorCode:DCGM_FR_XID_ERROR GPU:4 PCI:0000:c4:00.0 GPU_UUID:GPU-d1816eb1-2926-4fbc-13f6-1cf1ba1b921b "
                  "Detected XID 31 for GPU 4 Please consult the documentation for details of this XID. "
                  "Recommended Action=NONE;")


def test_dcgms_xid_incident_is_the_xid_of_its_gpu_restated():
    [f] = run([NVSENTINEL_911])
    assert (f.kind, f.xid, f.pci) == ("xid", 31, "0000:c4:00")
    assert f.details["gpu"] == 4 and f.details["uuid"] == "GPU-d1816eb1-2926-4fbc-13f6-1cf1ba1b921b"
    assert (f.details["reporter"], f.details["restates"]) == ("dcgm", "kernel")
    # the message alone (`dcgmi health -c -j`'s incident text): the same Xid, no address
    [g] = run(["Detected XID 31 for GPU 4"])
    assert (g.kind, g.xid, g.details["gpu"], g.details["reporter"]) == ("xid", 31, 4, "dcgm")
