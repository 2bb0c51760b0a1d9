"""Failure paths every `gpu-npd` command shares, met as a user meets them: stdin closed (`<&-`: Python's sys.stdin is
None) and an output that takes no more bytes (`> /dev/full`).  Each is one line naming what failed and why, a
non-zero exit, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

XID79 = b"[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
GPU_NPD = [sys.executable, "-m", "gpunpd"] if not os.environ.get("GPU_NPD_BIN") else [os.environ["GPU_NPD_BIN"]]


def _closed_stdin() -> None:
    os.close(0)


@pytest.mark.parametrize("args", [("parse",), ("parse", "-"), ("triage", "-")])
def test_stdin_closed_is_one_line_not_a_traceback(args):
    r = subprocess.run([*GPU_NPD, *args], preexec_fn=_closed_stdin, capture_output=True, timeout=120)
    assert b"Traceback" not in r.stderr, r.stderr.decode()
    assert r.returncode == 2
    assert b"stdin is closed" in r.stderr.splitlines()[0]


def test_stdin_closed_still_reads_the_files_named_with_it(tmp_path: Path):
    log = tmp_path / "dmesg.txt"
    log.write_bytes(XID79)
    r = subprocess.run([*GPU_NPD, "parse", "--format", "json", str(log), "-"], preexec_fn=_closed_stdin,
                       capture_output=True, timeout=120)
    assert r.returncode == 2
    assert r.stdout.count(b'"xid": 79') == 1  # the file is still read
    assert r.stderr.decode().splitlines() == ["gpu-npd parse: cannot read -: stdin is closed"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("args", [("parse",), ("parse", "--format", "json"), ("triage",)])
def test_a_full_output_is_one_line_naming_it(tmp_path: Path, args):
    log = tmp_path / "dmesg.txt"
    log.write_bytes(XID79)
    with open("/dev/full", "wb") as full:
        r = subprocess.run([*GPU_NPD, *args, str(log)], stdin=subprocess.DEVNULL, stdout=full, stderr=subprocess.PIPE,
                           timeout=120)
    err = r.stderr.decode()
    assert "Traceback" not in err, err
    assert r.returncode == 2
    assert err.splitlines() == [f"gpu-npd {args[0]}: cannot write the output: No space left on device"]  # not the input


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("args", [("--help",), ("--version",), ("parse", "--help")])
def test_help_and_version_into_a_full_output_are_one_line(args):
    """The group's own eager options print before any command runs (was: OSError's traceback and exit 1)."""
    with open("/dev/full", "wb") as full:
        r = subprocess.run([*GPU_NPD, *args], stdin=subprocess.DEVNULL, stdout=full, stderr=subprocess.PIPE,
                           timeout=120)
    err = r.stderr.decode()
    assert "Traceback" not in err, err
    assert r.returncode == 2
    who = "gpu-npd parse" if args[0] == "parse" else "gpu-npd"
    assert err.splitlines() == [f"{who}: cannot write the output: No space left on device"]
