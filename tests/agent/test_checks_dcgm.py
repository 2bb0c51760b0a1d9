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
def test_4x_json_names_the_test_the_gpu_and_the_dcgm_fr_code(name):
    rep = parse(text(name))
    assert rep.form == "json" and rep.complete and rep.version in ("4.2.3", "4.5.2")
    (failed,) = rep.by_status("fail")
    assert failed.test == "software" and failed.entities == {"fail": ["GPU 0"]}
    assert failed.errors == ['GPU 0: DCGM_FR_PERSISTENCE_MODE [config] Persistence Mode: Persistence mode for GPU 0 '
                             'is disabled. Enable persistence mode by running "nvidia-smi -i <gpuId> -pm 1 " as root.']
    assert [r.status for r in rep.results if r.test != "software"] in ([], ["pass", "pass"])
    verdict, msg = summary(rep, 1)
    assert verdict == "fail"
    assert msg.startswith("dcgmi diag -r 1 failed: software on GPU 0 (DCGM_FR_PERSISTENCE_MODE [config] Persistence")


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
    assert fr_code(0) == "" and fr_code(None) == "" and fr_code(500) == "DCGM error 500"


# ---- the check itself: how it calls dcgmi and its failure paths --------------------------------------------

def test_the_check_asks_for_json_and_reads_a_real_failure(tmp_path, monkeypatch):
    out = FIXTURES / "dcgm4.5.2-r2-gb10-persistence-fail.json"
    status, msg = run(tmp_path, monkeypatch, f'[ "$*" = "diag -r 2 -j" ] || exit 9\ncat {out}\nexit 226\n', level=2)
    assert status == builtin.NONOK
    assert msg.startswith("dcgmi diag -r 2 failed: software on GPU 0 (DCGM_FR_PERSISTENCE_MODE")


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
