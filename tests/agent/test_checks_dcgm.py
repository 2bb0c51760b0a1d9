"""The dcgm built-in check on real `dcgmi diag` outputs of every era (tests/fixtures/dcgm, SOURCES.md there):
per failed test its name, the GPUs it failed on and its error text (DCGM_FR_* code from the JSON), Info rows
never a failure, Warn apart from Fail, and the failure paths (no dcgmi, an exit without output, cut output)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agent.checks import builtin
from agent.checks.dcgmdiag import fr_code, parse, parse_table, summary

FIXTURES = Path(__file__).parents[1] / "fixtures" / "dcgm"


def text(name: str) -> str:
    return (FIXTURES / name).read_text()


def run(tmp_path, monkeypatch, body: str, level: int = 1) -> tuple[int, str]:
    """The check against a stand-in dcgmi: `body` is its shell script (it may cat a real output)."""
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    p = bindir / "dcgmi"
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    args = builtin.parser().parse_args(["dcgm", "--level", str(level), "--timeout", "20"])
    return builtin.check_dcgm(args)


def test_the_3x_continuation_row_says_which_gpu_failed_and_info_rows_are_not_failures():
    # go-dcgm#52: `Fail - GPU: 0` on a row without the test's name; the Info row above it says "failed: 'CUDA"
    rep = parse(text("dcgm3-r2-gpu-memory-fail-go-dcgm-52.txt"))
    (failed,) = rep.by_status("fail")
    assert failed.test == "GPU Memory" and failed.entities == {"pass": ["GPU 1"], "fail": ["GPU 0"]}
    assert failed.errors == ["GPU 0 Error using CUDA API cuCtxCreate Check DCGM and system logs for errors. Reset "
                             "GPU. Restart DCGM. Rerun diagnostics. Unable to create CUDA context: 'CUDA-capable "
                             "device(s) is/are busy or unavailable'."]
    verdict, msg = summary(rep, 2)
    assert verdict == "fail" and msg.startswith("dcgmi diag -r 2 failed: GPU Memory on GPU 0 (GPU 0 Error using")
    assert "cudaStreamCreate" not in msg and "bandwidth" not in msg  # the Info rows


def test_a_wrapped_warning_is_rejoined_where_dcgmi_cut_it():
    rep = parse(text("dcgm-r2-gpu-memory-thermal-fail-ml-engineering.txt"))
    (failed,) = rep.by_status("fail")
    assert failed.entities["fail"] == ["GPU 0"] and len(failed.entities["pass"]) == 7
    assert failed.errors[0].startswith("GPU 0 Thermal violations totaling 13.3 seconds started at 9.7 seconds into "
                                       "the test for GPU 0 Verify that the cooling on this machine is functional")


def test_a_deployment_error_row_is_a_failure_on_its_gpu():
    verdict, msg = summary(parse(text("dcgm-deployment-error-row-remap-ml-engineering.txt")), 3)
    assert verdict == "fail"
    assert msg == ("dcgmi diag -r 3 failed: Deployment on GPU 3 (GPU 3 has uncorrectable memory errors and row "
                   "remappings are pending)")


@pytest.mark.parametrize("name", ["dcgm3-r3-deployment-pass-truncated-dcgm-55.txt",
                                  "dcgm3-r3-deployment-pass-truncated-autopilot-68.txt",
                                  "dcgm4-software-pass-truncated-dcgm-253.txt"])
def test_a_cut_table_of_passes_is_not_a_pass(name):
    rep = parse(text(name))
    assert rep.results and not rep.by_status("fail") and not rep.complete
    verdict, msg = summary(rep, 3)
    assert verdict == "unknown" and "cut short" in msg


def test_the_4x_per_entity_rows_and_the_version():
    rep = parse_table(text("dcgm4-software-pass-truncated-dcgm-253.txt"))
    (software,) = rep.results
    assert software.status == "pass" and software.entities["pass"] == ["GPU 0", "GPU 1", "GPU 2", "GPU 3"]
    assert rep.version == "4.2.3"
    assert parse_table(text("dcgm3-r3-deployment-pass-truncated-autopilot-68.txt")).version == "3.3.5"


@pytest.mark.parametrize("name", ["dcgm4.2.3-r1-gb10-persistence-fail.json",
                                  "dcgm4.5.2-r2-gb10-persistence-fail.json"])
def test_4x_json_reads_dcgms_warn_printed_as_fail_as_a_warning_with_its_gpu_and_code(name):
    # dcgmi -j prints DCGM's Warn as "Fail" (Diag.cpp HelperDisplayDiagResult); persistence mode off is a Warn
    # (nvvs Software.cpp; NVSentinel#772's run through DCGM's API logs it as "Test warn", error_code 29)
    rep = parse(text(name))
    assert rep.form == "json" and rep.complete and rep.version in ("4.2.3", "4.5.2")
    assert not rep.by_status("fail")
    (warned,) = rep.by_status("warn")
    assert warned.test == "software" and warned.entities == {"warn": ["GPU 0"]}
    assert warned.errors == ['GPU 0: DCGM_FR_PERSISTENCE_MODE [config] Persistence Mode: Persistence mode for GPU 0 '
                             'is disabled. Enable persistence mode by running "nvidia-smi -i <gpuId> -pm 1 " as root.']
    assert [r.status for r in rep.results if r.test != "software"] in ([], ["pass", "pass"])
    verdict, msg = summary(rep, 1)
    assert verdict == "warn"
    assert msg.startswith("dcgmi diag -r 1 passed with warnings: software on GPU 0 (DCGM_FR_PERSISTENCE_MODE [config]")


def test_a_json_fail_with_any_other_code_stays_a_failure():
    # the real 4.5.2 document with its software error's code turned into a pending row remap (DCGM_FR 85)
    doc = text("dcgm4.5.2-r2-gb10-persistence-fail.json").replace('"error_id" : 29', '"error_id" : 85')
    verdict, msg = summary(parse(doc), 2)
    assert verdict == "fail" and msg.startswith("dcgmi diag -r 2 failed: software on GPU 0 (DCGM_FR_PENDING_ROW_REMAP")


def test_a_json_status_of_no_known_word_is_never_a_pass():
    # the real 4.5.2 document with its software result's status a word DCGM does not print (a later release's, a
    # garbled byte): unknown, naming the test, as the table's unreadable cell is (was: read as a pass)
    doc = text("dcgm4.5.2-r2-gb10-persistence-fail.json")
    odd = doc.replace('"status" : "Fail"', '"status" : "Degraded"')
    assert odd != doc
    rep = parse(odd)
    assert rep.unread == ["software"] and not rep.by_status("fail")
    assert summary(rep, 2) == ("unknown", "dcgmi diag -r 2: unreadable result of software")


def test_the_2x_3x_all_gpus_form_is_a_failure_on_all_gpus():
    # DCGM#49 (2.4.6): `PCIe | Fail - All` and its Warning rows, "GPU 0" glued onto each message; was read as a pass
    cut = text("dcgm2.4.6-r2-pcie-fail-all-nvlink-down-dcgm-49.txt")
    (pcie,) = parse(cut).results
    assert pcie.status == "fail" and pcie.entities == {"fail": ["all GPUs"]}
    assert pcie.errors[0].startswith("GPU 0GPU 0's NvLink link 0 is currently down Run a field diagnostic on the "
                                     "GPU., GPU 0GPU 0's NvLink link 1")
    verdict, msg = summary(parse(cut), 2)
    assert verdict == "fail" and msg.startswith("dcgmi diag -r 2 failed: PCIe on all GPUs (GPU 0GPU 0's NvLink link 0")
    # the same rows under their table's closing border: still the failure, never a pass
    whole = cut + "+---------------------------+------------------------------------------------+\n"
    assert summary(parse(whole), 2)[0] == "fail"
    # Pass / Skip / Warn - All as dcgmi prints them (Diag.cpp HelperDisplayGpuResults)
    for cell, status in (("Pass - All", "pass"), ("Skip - All", "skip"), ("Warn - All", "warn")):
        assert parse_table(f"| PCIe                      | {cell:<47}|\n").results[0].status == status


def test_the_3x_diagnostic_test_row_is_read_and_only_the_header_is_skipped():
    # 3.x names its GPU stress test "Diagnostic" (Diag.cpp DISPLAY_DIAGNOSTIC), the header's own word; rows built
    # as dcgmi prints them (no public capture of that test failing was found)
    table = ("+---------------------------+------------------------------------------------+\n"
             "| Diagnostic                | Result                                         |\n"
             "+===========================+================================================+\n"
             "+-----  Hardware  ----------+------------------------------------------------+\n"
             "| GPU Memory                | Pass - All                                     |\n"
             "| Diagnostic                | Pass - GPUs: 0, 1, 2                           |\n"
             "|                           | Fail - GPU: 3                                  |\n"
             "+---------------------------+------------------------------------------------+\n")
    verdict, msg = summary(parse(table), 3)
    assert (verdict, msg) == ("fail", "dcgmi diag -r 3 failed: Diagnostic on GPU 3")


def test_a_result_cell_of_no_known_status_is_never_a_pass():
    table = ("| PCIe                      | Pass - All                                     |\n"
             "| Targeted Power            | Aborted                                        |\n"
             "+---------------------------+------------------------------------------------+\n")
    assert summary(parse(table), 3) == ("unknown", "dcgmi diag -r 3: unreadable result of Targeted Power")


def test_the_4x_table_prints_a_warn_tests_entities_as_fail():
    # Diag.cpp: the test row with DDR_DISPLAY_WARN ("Warn"), its entity rows without it ("GPU0: Fail")
    rep = parse_table("|-----  Deployment  --------+------------------------------------------------|\n"
                      "| software                  | Warn                                           |\n"
                      "|                           | GPU0: Fail                                     |\n"
                      "|                           | GPU1: Pass                                     |\n"
                      "+---------------------------+------------------------------------------------+\n")
    assert summary(rep, 1) == ("warn", "dcgmi diag -r 1 passed with warnings: software on GPU 0")


def test_warn_results_alone_pass_with_the_warning_in_the_message():
    # the table's Warn form, as DCGM prints its results (Pass|Fail|Warn|Skip); no public capture of a Warn-only
    # run was found, so this one is the 4.x row shape with the status replaced
    rep = parse_table("|-----  Deployment  --------+------------------------------------------------|\n"
                      "| software                  | Warn                                           |\n"
                      "|                           | GPU0: Warn                                     |\n"
                      "+---------------------------+------------------------------------------------+\n")
    verdict, msg = summary(rep, 1)
    assert verdict == "warn" and msg == "dcgmi diag -r 1 passed with warnings: software on GPU 0"


def test_fr_codes_follow_dcgm_errors_h():
    assert (fr_code(29), fr_code(52), fr_code(101), fr_code(111)) == (
        "DCGM_FR_PERSISTENCE_MODE", "DCGM_FR_FAULTY_MEMORY", "DCGM_FR_XID_ERROR", "DCGM_FR_NAN_VALUE")
    assert (fr_code(118), fr_code(132)) == ("DCGM_FR_SRAM_THRESHOLD", "DCGM_FR_UNCORRECTABLE_ROW_REMAP_LIMIT")
    assert fr_code(0) == "" and fr_code(None) == "" and fr_code(500) == "DCGM error 500"


def test_the_codes_dcgm_4_renamed_are_named_by_the_documents_era():
    """DCGM 4.0 renamed 10, 12 and 43 (CLOCK_THROTTLE_* -> CLOCKS_EVENT_*, THROTTLING_VIOLATION ->
    CLOCKS_EVENT_VIOLATION; its dcgm_errors.h keeps the old ones as deprecated aliases of the same numbers). Was: the
    3.x names for every era; now a 4.x document ("DCGM Diagnostic") says 4.x's, a 3.x one ("DCGM GPU Diagnostic")
    3.x's: NVIDIA/NVSentinel#1637 "In DCGM 4.x these names are the same error code (10). The 4.x name is
    CLOCKS_EVENT_THERMAL; 3.x still uses CLOCK_THROTTLE_THERMAL"."""
    assert [fr_code(c) for c in (10, 12, 43)] == [
        "DCGM_FR_CLOCKS_EVENT_THERMAL", "DCGM_FR_CLOCKS_EVENT_POWER", "DCGM_FR_CLOCKS_EVENT_VIOLATION"]
    assert [fr_code(c, before_4=True) for c in (10, 12, 43, 29)] == [
        "DCGM_FR_CLOCK_THROTTLE_THERMAL", "DCGM_FR_CLOCK_THROTTLE_POWER", "DCGM_FR_THROTTLING_VIOLATION",
        "DCGM_FR_PERSISTENCE_MODE"]
    # the real 4.5.2 document with its software error's code turned into 43; then the same under 3.x's root name
    doc = text("dcgm4.5.2-r2-gb10-persistence-fail.json").replace('"error_id" : 29', '"error_id" : 43')
    assert "(DCGM_FR_CLOCKS_EVENT_VIOLATION [config]" in summary(parse(doc), 2)[1]
    old = doc.replace('"DCGM Diagnostic"', '"DCGM GPU Diagnostic"')
    assert old != doc and "(DCGM_FR_THROTTLING_VIOLATION [config]" in summary(parse(old), 2)[1]


# ---- the check itself: how it calls dcgmi and its failure paths --------------------------------------------

def test_the_check_asks_for_json_and_a_real_warning_raises_nothing(tmp_path, monkeypatch):
    # dcgmi exits 226 (DCGM_ST_NVVS_ERROR) for a warning too: the warning is OK with its text, not Unknown
    out = FIXTURES / "dcgm4.5.2-r2-gb10-persistence-fail.json"
    status, msg = run(tmp_path, monkeypatch, f'[ "$*" = "diag -r 2 -j" ] || exit 9\ncat {out}\nexit 226\n', level=2)
    assert status == builtin.OK
    assert msg.startswith("dcgmi diag -r 2 passed with warnings: software on GPU 0 (DCGM_FR_PERSISTENCE_MODE")
    fail = tmp_path / "fail.json"
    fail.write_text(out.read_text().replace('"error_id" : 29', '"error_id" : 85'))
    status, msg = run(tmp_path, monkeypatch, f"cat {fail}\nexit 226\n", level=2)
    assert status == builtin.NONOK and msg.startswith("dcgmi diag -r 2 failed: software on GPU 0")


def test_the_check_reads_a_table_when_dcgmi_prints_one(tmp_path, monkeypatch):
    out = FIXTURES / "dcgm3-r2-gpu-memory-fail-go-dcgm-52.txt"
    status, msg = run(tmp_path, monkeypatch, f"cat {out}\nexit 226\n")
    assert status == builtin.NONOK and msg.startswith("dcgmi diag -r 1 failed: GPU Memory on GPU 0 (")


def test_dcgmi_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    args = builtin.parser().parse_args(["dcgm"])
    assert builtin.check_dcgm(args) == (builtin.UNKNOWN, "dcgmi not found")


def test_dcgmi_exiting_non_zero_without_a_table_is_unknown(tmp_path, monkeypatch):
    status, msg = run(tmp_path, monkeypatch, "echo 'Error: unable to establish a connection to the specified host: "
                                             "localhost' >&2\nexit 255\n")
    assert status == builtin.UNKNOWN
    assert msg == "dcgmi diag exited 255: Error: unable to establish a connection to the specified host: localhost"
    assert run(tmp_path, monkeypatch, "exit 3\n") == (builtin.UNKNOWN, "dcgmi diag exited 3: no output")


def test_truncated_outputs(tmp_path, monkeypatch):
    cut_json = FIXTURES / "dcgm4.5.2-r2-gb10-persistence-fail.json"
    # the JSON cut half-way: no document, no table -> Unknown, never a pass
    status, msg = run(tmp_path, monkeypatch, f"head -c 600 {cut_json}\nexit 0\n")
    assert status == builtin.UNKNOWN and "no test results" in msg
    cut_table = FIXTURES / "dcgm3-r3-deployment-pass-truncated-dcgm-55.txt"
    status, msg = run(tmp_path, monkeypatch, f"cat {cut_table}\nexit 0\n")
    assert (status, msg) == (builtin.UNKNOWN, "dcgmi diag -r 1: output cut short after 9 tests, none failed")
    # a cut table still tells the failures it shows
    cut_fail = FIXTURES / "dcgm-r2-gpu-memory-thermal-fail-ml-engineering.txt"
    assert run(tmp_path, monkeypatch, f"cat {cut_fail}\nexit 0\n")[0] == builtin.NONOK
