"""`gpu-npd parse` through the real console script."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import MODULES_AT_EXIT, ctrl_c_default

XID79 = b"[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
GPU_NPD = [sys.executable, "-m", "gpunpd"] if not os.environ.get("GPU_NPD_BIN") else [os.environ["GPU_NPD_BIN"]]


def run(*args, stdin=b""):
    return subprocess.run([*GPU_NPD, "parse", *args], input=stdin, capture_output=True, timeout=120)


def test_json_fields(tmp_path: Path):
    p = tmp_path / "dmesg.txt"
    p.write_bytes(b"boot noise\n" + XID79)
    r = run("--format", "json", str(p))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert len(rows) == 1
    row = rows[0]
    assert {k: row[k] for k in ("kind", "xid", "pci", "severity", "attribution", "action", "file", "line")} == {
        "kind": "xid", "xid": 79, "pci": "0000:5d:00", "severity": "fatal", "attribution": "hardware",
        "action": "RESTART_BM", "file": str(p), "line": 2}


def test_text_summary_names_gpu_and_action(fixtures):
    r = run(str(fixtures / "dmesg" / "xid79-fallen-off-bus.dmesg"))
    out = r.stdout.decode()
    assert r.returncode == 0
    assert "By GPU / PCI device:" in out and "0000:5d:00" in out
    assert "recommended action: RESTART_BM" in out and "fallen off the bus" in out


def test_gzip_and_stdin(tmp_path: Path):
    p = tmp_path / "dmesg.gz"
    p.write_bytes(gzip.compress(XID79 * 3))
    assert run("--format", "json", str(p)).stdout.count(b'"xid": 79') == 3
    assert run("--format", "json", stdin=XID79).stdout.count(b'"xid": 79') == 1
    assert run("--format", "json", "-", stdin=gzip.compress(XID79)).stdout.count(b'"xid": 79') == 1


def test_unreadable_file_exit_2_names_it(tmp_path: Path):
    good = tmp_path / "good.log"
    good.write_bytes(XID79)
    r = run("--format", "json", str(tmp_path / "missing.log"), str(good))
    assert r.returncode == 2
    err = r.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "missing.log" in err[0]
    assert b'"xid": 79' in r.stdout  # the readable file was still parsed


def test_truncated_gzip_is_a_clean_error(tmp_path: Path):
    p = tmp_path / "cut.gz"
    p.write_bytes(gzip.compress(XID79 * 100)[:40])
    r = run(str(p))
    assert r.returncode == 2 and b"cut.gz" in r.stderr and b"Traceback" not in r.stderr


def test_hostile_bytes(tmp_path: Path):
    p = tmp_path / "bad.log"
    p.write_bytes(b"\xff\xfe\x00\x00NVRM\x00 Xid\n" + b"A" * (10 << 20) + b" Xid (PCI:0000:01:00): 13, x\n"
                  + b"\x80\x81" * 100 + b"\n" + XID79)
    r = run("--format", "json", str(p))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.decode().splitlines()]
    # line 2 is 10 MiB: rules see its first MAX_MESSAGE characters only (linear time, bounded memory), so
    # the Xid at its very end is not matched; nothing else is lost and nothing raises
    assert [(row["xid"], row["line"]) for row in rows] == [(79, 4)]


def test_min_severity(fixtures):
    path = str(fixtures / "dmesg" / "negatives.log")
    assert run("--format", "json", path).stdout == b""
    assert b"driver_load" in run("--format", "json", "--min-severity", "info", path).stdout
    fatal_only = run("--format", "json", "--min-severity", "fatal", str(fixtures / "dmesg" / "pcie-aer.syslog"))
    assert [json.loads(x)["severity"] for x in fatal_only.stdout.decode().splitlines()] == ["fatal"]


def test_unclassified_lists_only_new_formats(tmp_path: Path):
    p = tmp_path / "dmesg.txt"
    # synthetic: an NVRM line with an error word no rule knows, beside a known Xid
    p.write_bytes(XID79 + b"[ 4254.2] NVRM: GPU 0000:3b:00.0: kbusSetupBar2 failed! (0x26:0x65:1453)\n")
    r = run("--unclassified", "--format", "json", "--nvml", "off", str(p))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert [(row["kind"], row["details"]["driver"], row["line"]) for row in rows] == [("unclassified", "nvidia", 2)]
    r = run("--nvml", "off", str(p))
    assert b"unclassified" in r.stdout and b"xid" in r.stdout


def test_bad_nvml_choice_is_a_clear_error():
    r = subprocess.run([*GPU_NPD, "parse", "--nvml", "bogus", "/dev/null"], capture_output=True, text=True)
    assert r.returncode == 2 and "--nvml" in r.stderr and "Traceback" not in r.stderr


def test_truncated_gzip_gives_what_decodes_and_one_warning(tmp_path):
    import gzip

    body = b"".join(b"[ %d.5] benign kernel line %d padding %d\n" % (i, i, i * 7919) for i in range(60000))
    data = gzip.compress(XID79 + body + XID79.replace(b"5d:00", b"5e:00"))
    p = tmp_path / "kern.log.2.gz"
    p.write_bytes(data[: len(data) // 2])
    r = subprocess.run([*GPU_NPD, "parse", "--format", "json", "--nvml", "off", str(p)], capture_output=True)
    assert r.returncode == 2
    assert [json.loads(x)["pci"] for x in r.stdout.splitlines()] == ["0000:5d:00"]  # the first half's Xid
    err = r.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "truncated" in err[0] and "Traceback" not in err[0]


def _parse_on_a_terminal(*args: str) -> tuple[int, bytes]:
    """Run `gpu-npd parse` with stderr on a pseudo-terminal (stdout a pipe); its exit code and what the
    terminal showed."""
    import pty

    primary, secondary = pty.openpty()
    proc = subprocess.Popen([*GPU_NPD, "parse", *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=secondary)
    os.close(secondary)
    shown = b""
    while True:
        try:
            data = os.read(primary, 65536)
        except OSError:  # EIO: the process closed the terminal
            break
        if not data:
            break
        shown += data
    os.close(primary)
    return proc.wait(timeout=60), shown


def test_progress_bar_on_a_terminal_shows_bytes_and_rate(tmp_path: Path):
    p = tmp_path / "dmesg.txt"
    p.write_bytes(b"boot noise\n" * 50_000 + XID79)  # 550 kB
    rc, shown = _parse_on_a_terminal("--format", "json", "--progress", "always", str(p))
    assert rc == 0
    assert b"100%" in shown and b"0.6/0.6 MB" in shown and b"MB/s" in shown, shown


def test_progress_bar_only_for_long_inputs_by_default(tmp_path: Path):
    p = tmp_path / "dmesg.txt"
    p.write_bytes(XID79)
    rc, shown = _parse_on_a_terminal("--format", "json", str(p))
    assert rc == 0 and shown == b""


def test_progress_bar_silent_when_stderr_is_not_a_terminal(tmp_path: Path):
    p = tmp_path / "dmesg.gz"
    p.write_bytes(gzip.compress(XID79 * 1000))
    r = run("--format", "json", "--progress", "always", str(p))
    assert r.returncode == 0 and r.stderr == b"" and r.stdout.count(b'"xid": 79') == 1000


def test_progress_counts_every_byte_read_plain_gzip_and_stdin(tmp_path: Path, monkeypatch):
    """The counter the bar draws: every byte of the file (compressed bytes for .gz), stdin included."""
    import io as _io

    from offline.inputs import read_input

    plain, packed = tmp_path / "a.log", tmp_path / "b.log.gz"
    plain.write_bytes(XID79 * 5000)
    packed.write_bytes(gzip.compress(XID79 * 5000))
    for path in (plain, packed):
        seen: list[int] = []
        assert [stream.fp.read() for stream in read_input(str(path), seen.append)] == [XID79 * 5000]
        assert sum(seen) == path.stat().st_size
    seen = []
    monkeypatch.setattr(sys, "stdin", _io.TextIOWrapper(_io.BufferedReader(_io.BytesIO(XID79 * 3))))
    assert [stream.fp.read() for stream in read_input("-", seen.append)] == [XID79 * 3]
    assert sum(seen) == len(XID79) * 3


def test_json_lines_are_json_dumps_of_each_finding(fixtures):
    """The JSON writer's shared-field table gives, for every finding, exactly json.dumps(to_dict())."""
    import io as _io
    from datetime import datetime, timezone

    from offline.report import JsonLines
    from parsers import Scanner

    data = b"".join(p.read_bytes() for p in sorted((fixtures / "dmesg").glob("*")) if p.is_file())
    findings = list(Scanner().scan(_io.BytesIO(data * 2), name="x.log"))
    storm = [XID79.decode().strip()] * 3
    findings += [f for f in (Scanner().scan(_io.BytesIO("\n".join(storm).encode()))) if f]
    findings[0].uptime, findings[1].uptime = float("inf"), None
    findings[2].timestamp = datetime(2026, 1, 2, 3, 4, 5, 678, tzinfo=timezone.utc)
    findings[3].details = {**findings[3].details, "list": [1, 2]}  # not hashable: encoded whole
    for f, host in zip(findings[4:9], ("node-a", "node-a", 'nöde "b"', "node-a", 'nöde "b"')):
        f.host = host  # (a host's text is kept: the same name twice, one that JSON escapes)
    writer = JsonLines()
    assert len(findings) > 50
    for f in findings:
        assert writer.line(f) == json.dumps(f.to_dict(), ensure_ascii=False, default=str) + "\n"


def test_min_severity_choices_are_the_severities():
    # offline/cli.py spells them out (its options are declared before any parser is imported): the same list
    from offline.cli import SEVERITY_CHOICES
    from parsers.kinds import SEVERITIES

    assert SEVERITY_CHOICES == SEVERITIES


# What `gpu-npd parse` must not load (start-up, issue 29 (4)): the agent and the other programs, and the agent's
# libraries (the Kubernetes client, Prometheus, NVML, gRPC, msgspec (the cluster's JSON), YAML, psutil, udev).
NOT_FOR_PARSE = ("agent", "cluster", "fabric", "kubeapi", "triage", "kubernetes", "prometheus_client", "pynvml",
                 "grpc", "google.protobuf", "msgspec", "yaml", "psutil", "pyudev")
# ... nor, for a plain text file, the decoders and archive readers that only compressed inputs and archives use
# (offline/inputs.py imports each where a stream first needs it)
NOT_FOR_PLAIN = ("lzma", "_lzma", "bz2", "_bz2", "tarfile", "shlex")
# ... nor OpenSSL's digests (hashlib loads libcrypto at import: ~2% of this start-up); the prefilter's cache keys are
# BLAKE2's own module's
NOT_FOR_KEYS = ("hashlib", "_hashlib")


def test_parse_imports_only_what_it_needs(fixtures, tmp_path: Path):
    """The console script's path (gpunpd.cli:main) through a file with an Xid (the catalog is read) and a
    finding's table and summary; the modules loaded are read at exit.  `--nvml off`: on a node with the NVIDIA
    driver, `auto` asks the agent's NVML code for the GPUs, as it should."""
    loaded = tmp_path / "modules.txt"
    code = MODULES_AT_EXIT
    log = fixtures / "dmesg" / "xid79-fallen-off-bus.dmesg"
    r = subprocess.run([sys.executable, "-c", code, str(loaded), "parse", "--nvml", "off", str(log)],
                       capture_output=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert b"RESTART_BM" in r.stdout
    modules = set(loaded.read_text().split())
    assert "parsers.catalog" in modules and "offline.report" in modules
    assert sorted(m for m in modules for n in NOT_FOR_PARSE if m == n or m.startswith(n + ".")) == []
    assert sorted(modules & set(NOT_FOR_PLAIN)) == []
    assert sorted(modules & set(NOT_FOR_KEYS)) == []


def test_the_dataclasses_parse_loads_have_docstrings(fixtures, tmp_path: Path):
    """A dataclass without a docstring gets its signature as one, made at import by inspect.signature (~0.3 ms a
    class: ~2.5% of a small log's start-up for the eight parse loaded so): each of the project's that parse loads
    has its own."""
    import dataclasses
    import importlib

    loaded = tmp_path / "modules.txt"
    r = subprocess.run([sys.executable, "-c", MODULES_AT_EXIT, str(loaded), "parse", "--nvml", "off",
                        str(fixtures / "dmesg" / "xid79-fallen-off-bus.dmesg")], capture_output=True, timeout=120,
                       check=False)
    assert r.returncode == 0, r.stderr
    ours = sorted(m for m in loaded.read_text().split() if m.split(".")[0] in ("parsers", "offline", "gpunpd"))
    assert "parsers.finding" in ours
    signed = [f"{name}.{obj.__qualname__}" for name in ours for obj in vars(importlib.import_module(name)).values()
              if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == name
              and (obj.__doc__ or "").startswith(obj.__name__ + "(")]
    assert signed == []


def test_parse_of_a_small_log_derives_no_keyword_scan(fixtures, tmp_path: Path):
    """The rule table's keyword scan (parsers/wordscan.py KeywordScan: ~18 ms to derive) is derived after a log's
    first lines: a small log's (the Xid fixture's) are looked up word by word (start-up, issue 24)."""
    derived = tmp_path / "derived.txt"
    code = ("import atexit, sys\n"
            "out = sys.argv.pop(1)\n"
            "from parsers.wordscan import KeywordScan\n"
            "derive, calls = KeywordScan._derive, []\n"
            "KeywordScan._derive = lambda self: calls.append(1) or derive(self)\n"
            "atexit.register(lambda: open(out, 'w').write(str(len(calls))))\n"
            "sys.argv[0] = 'gpu-npd'\n"
            "from gpunpd.cli import main\n"
            "main()\n")
    log = fixtures / "dmesg" / "xid79-fallen-off-bus.dmesg"
    r = subprocess.run([sys.executable, "-c", code, str(derived), "parse", "--nvml", "off", str(log)],
                       capture_output=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert b"RESTART_BM" in r.stdout
    assert derived.read_text() == "0"


def test_nvml_is_asked_when_a_finding_first_names_a_pci_address(tmp_path: Path, monkeypatch):
    """`--nvml auto` where the NVIDIA driver is loaded: the agent's GPU map is asked once, when the first finding
    with a PCI address is annotated; an input without one never asks it (start-up, issue 29 (4))."""
    from click.testing import CliRunner

    import agent.cli
    import offline.cli
    from gpunpd.cli import main

    asked = []

    def gpu_map(spec, *_):
        from parsers.gpus import GpuMap
        asked.append(spec)
        return GpuMap.build([("0000:5d:00", {"uuid": "GPU-3", "gpu_index": "3"})])

    monkeypatch.setattr(offline.cli, "NVIDIA_DRIVER", str(tmp_path))  # "the driver is loaded"
    monkeypatch.setattr(agent.cli, "gpu_map", gpu_map)
    quiet = tmp_path / "quiet.log"
    quiet.write_bytes(b"boot noise\n[ 12.0] Out of memory: Killed process 4410 (python)\n")
    r = CliRunner().invoke(main, ["parse", "--format", "json", str(quiet)])
    assert r.exit_code == 0, r.output
    assert [json.loads(line)["kind"] for line in r.output.splitlines()] == ["oom_kill"] and asked == []
    log = tmp_path / "xid.log"
    log.write_bytes(b"boot noise\n" + XID79 + XID79.replace(b"4254.", b"4255."))
    r = CliRunner().invoke(main, ["parse", "--format", "json", str(log)])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert asked == ["auto"]
    assert [(row["details"]["gpu_index"], row["details"]["uuid"]) for row in rows] == [(3, "GPU-3")] * 2


def test_parse_opens_nvml_with_the_agents_proc_root(tmp_path: Path, monkeypatch):
    """`gpu-npd parse --nvml auto` on a GPU node opens NVML with the agent's proc_root (--proc-root, else the
    configuration's, as `gpu-npd nvml-snapshot`: agent.cli agent_proc_root), so that libnvidia-ml.so.1 is looked for
    on the host as the agent does; was none, the host never searched."""
    from click.testing import CliRunner

    import offline.cli
    from agent.gpu import nvml as nvml_mod
    from gpunpd.cli import main

    opened = []

    def open_backend(spec, proc_root="", fresh=False):
        opened.append((spec, proc_root, fresh))
        raise ValueError("seen")

    monkeypatch.setattr(offline.cli, "NVIDIA_DRIVER", str(tmp_path))  # "the driver is loaded"
    monkeypatch.setattr(nvml_mod, "open_backend", open_backend)
    monkeypatch.delenv("GPU_NPD_CONFIG", raising=False)
    monkeypatch.delenv("GPU_NPD_PROC_ROOT", raising=False)
    log = tmp_path / "xid.log"
    log.write_bytes(XID79)
    config = tmp_path / "config.yaml"
    config.write_text("proc_root: /from-config\n")
    for argv, want in (([], "/"), (["--proc-root", "/host"], "/host"), (["--config", str(config)], "/from-config")):
        opened.clear()
        r = CliRunner().invoke(main, ["parse", *argv, str(log)])
        assert r.exit_code == 2 and "gpu-npd: --nvml auto: seen" in r.output, (argv, r.output)
        assert opened == [("auto", want, True)], argv  # (fresh: the command's first handle)


@pytest.mark.parametrize("driver", [True, False])
def test_a_bad_config_is_one_line_before_any_input_is_read_exit_2(tmp_path: Path, monkeypatch, driver):
    """`gpu-npd parse --config BAD`: the configuration is checked before the input is read, one line and exit 2.
    It was loaded lazily, at the first finding with a PCI address: on a GPU node the findings before it were printed,
    then exit 2 with the rest of the input unread; on a machine without the driver a bad file went unsaid (exit 0)."""
    from click.testing import CliRunner

    import offline.cli
    from gpunpd.cli import main

    monkeypatch.setattr(offline.cli, "NVIDIA_DRIVER", str(tmp_path if driver else tmp_path / "none"))
    monkeypatch.delenv("GPU_NPD_CONFIG", raising=False)
    monkeypatch.delenv("GPU_NPD_PROC_ROOT", raising=False)
    oom, xid = tmp_path / "oom.log", tmp_path / "xid.log"  # (the second file's read prints the first's findings)
    oom.write_bytes(b"[ 12.0] Out of memory: Killed process 4410 (python)\n")
    xid.write_bytes(XID79)
    bad = tmp_path / "bad.yaml"
    bad.write_text("proc_root: [1\n")
    for config in (bad, tmp_path / "missing.yaml"):
        r = CliRunner().invoke(main, ["parse", "--format", "json", "--config", str(config), str(oom), str(xid)])
        assert r.exit_code == 2, r.output
        assert r.stdout == ""  # no finding printed: nothing of the input was read
        assert r.stderr.startswith(f"gpu-npd: configuration error: config file {config}: ")
        assert r.stderr.count("\n") == 1, r.stderr


def test_a_directory_is_one_line_naming_the_fix_exit_2(tmp_path: Path, fixtures):
    r = run(str(tmp_path), str(fixtures / "dmesg" / "xid79-fallen-off-bus.dmesg"))
    assert r.returncode == 2
    err = r.stderr.decode().strip()
    assert err == (f"gpu-npd parse: {tmp_path} is a directory: name its files ({tmp_path}/*), or let "
                   f"`gpu-npd triage {tmp_path}` walk it")
    assert "fallen off the bus" in r.stdout.decode()  # the other input is still read


def test_stdin_from_a_terminal_says_it_is_waiting_for_a_log():
    import pty

    primary, secondary = pty.openpty()
    proc = subprocess.Popen([*GPU_NPD, "parse"], stdin=secondary, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(secondary)
    os.write(primary, XID79 + b"\x04")  # a pasted line, then Ctrl-D: the end of what was typed
    out, err = proc.communicate(timeout=60)
    os.close(primary)
    assert proc.returncode == 0 and b"recommended action: RESTART_BM" in out  # one Ctrl-D ended the input
    assert err.decode().startswith("gpu-npd parse: reading the log from stdin (no FILE given)")
    assert run(stdin=XID79).stderr == b""  # a pipe is read without a word


# A real Xid 79 line, verbatim: leptonai/gpud's sxid README (tests/fixtures/realworld/sxid-2026b.yaml), source
# https://github.com/leptonai/gpud/blob/8e6719a459f38d00b113457a54946f625edd2fa2/components/accelerator/nvidia/error/sxid/README.md
LIVE_XID79 = (b"[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
              b"the bus.\n")


def _printed_while_the_pipe_stays_open(*args: str, until: bytes, wait: float = 10.0) -> bytes:
    """`gpu-npd parse ARGS` reading a pipe whose writer writes LIVE_XID79 and keeps it open (`dmesg -w | gpu-npd
    parse`): what parse printed by the time `until` appeared on its stdout, or within `wait` seconds."""
    import selectors
    import time

    proc = subprocess.Popen([*GPU_NPD, "parse", "--nvml", "off", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    # (a selector, not select.select: a descriptor past 1,024, in a pytest worker that earlier tests left holding
    # many, is out of select()'s range)
    ready = selectors.DefaultSelector()
    ready.register(proc.stdout, selectors.EVENT_READ)
    try:
        proc.stdin.write(LIVE_XID79)
        proc.stdin.flush()
        shown, deadline = b"", time.monotonic() + wait
        while until not in shown and time.monotonic() < deadline:
            if ready.select(max(0.0, deadline - time.monotonic())):
                data = os.read(proc.stdout.fileno(), 65536)
                if not data:
                    break
                shown += data
        assert proc.poll() is None  # the pipe is still open: parse is waiting for the next line
        return shown
    finally:
        ready.close()
        proc.stdin.close()  # the writer ends: parse reads the end, prints the rest and exits
        proc.stdout.read()
        proc.stderr.read()
        proc.wait(timeout=60)


def test_a_live_pipes_finding_is_printed_before_the_pipe_ends():
    """`dmesg -w | gpu-npd parse`: the Xid's row is on stdout while the writer keeps the pipe open (was: nothing
    until 8 MiB had arrived or the writer ended: a buffered read of the whole chunk, then one batch at exit)."""
    shown = _printed_while_the_pipe_stays_open(until=b"RESTART_BM")
    assert b"xid" in shown and b"0000:91:00" in shown and b"RESTART_BM" in shown, shown


def test_a_live_pipes_finding_is_printed_as_a_json_line_before_the_pipe_ends():
    """The same for `--format json`, one JSON object per finding per line: the line is whole before the pipe ends."""
    shown = _printed_while_the_pipe_stays_open("--format", "json", until=b"}\n")
    rows = [json.loads(line) for line in shown.decode().splitlines()]
    assert [(row["kind"], row["xid"], row["pci"]) for row in rows] == [("xid", 79, "0000:91:00")], shown


def test_a_live_pipe_read_into_a_closed_stdout_ends_quietly():
    """`dmesg -w | gpu-npd parse | head -1`: once head has gone, the next line's row meets a closed stdout in the
    flush before the next read; parse ends, exit 0, with no word on stderr (not "cannot read -: Broken pipe", as if
    the input had failed)."""
    proc = subprocess.Popen([*GPU_NPD, "parse", "--nvml", "off", "--format", "json"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdin.write(LIVE_XID79)
    proc.stdin.flush()
    assert b'"xid": 79' in proc.stdout.readline()
    proc.stdout.close()  # head -1 exits
    proc.stdin.write(LIVE_XID79)
    proc.stdin.flush()
    assert proc.wait(timeout=60) == 0  # ended by the closed stdout, its stdin still open
    proc.stdin.close()
    assert proc.stderr.read() == b""


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_file_read_into_a_closed_stdout_ends_quietly(tmp_path: Path, fmt: str):
    """`gpu-npd parse FILE | head -1` through a real shell pipe: the rows after head has gone (far more than a pipe
    holds) meet a closed stdout; parse ends, exit 0, nothing on stderr, as `cat FILE | head -1` does."""
    import shlex

    log = tmp_path / "dmesg.txt"
    log.write_bytes(b"".join(LIVE_XID79.replace(b"0000:91:00", f"0000:{i % 256:02x}:00".encode())
                             for i in range(20_000)))
    script = f"{shlex.join([*GPU_NPD, 'parse', '--nvml', 'off', '--format', fmt, str(log)])} | head -1; " \
             "echo \"exit ${PIPESTATUS[0]}\" >&2"
    r = subprocess.run(["bash", "-c", script], capture_output=True, timeout=120)
    assert r.stdout.count(b"\n") == 1 and r.stderr == b"exit 0\n", r.stderr


def test_python_m_gpunpd_names_itself_gpu_npd():
    r = subprocess.run([sys.executable, "-m", "gpunpd", "triage"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("Usage: gpu-npd triage [OPTIONS] PATHS...")


def test_an_amendment_row_says_it_amends_its_events_finding(tmp_path: Path):
    """A PCIe error whose recovery then failed is one event: the table's second row is its finding amended to fatal
    (the summary counts one), and says so instead of reading as a second error.  The kernel's wordings, as in
    tests/parsers/test_aer_events.py (pcie-aer.yaml holds the real ones)."""
    p = tmp_path / "dmesg.txt"
    p.write_text("pcieport 0000:00:03.0: AER: Uncorrected (Non-Fatal) error received: 0000:00:03.0\n"
                 "pcieport 0000:00:03.0: AER: device recovery failed\n")
    r = run(str(p))
    rows = [line for line in r.stdout.decode().splitlines() if line.startswith("line ")]
    assert r.returncode == 0 and len(rows) == 2, r.stdout.decode()
    assert "[amends" not in rows[0] and "[amends its event's finding: severity]" in rows[1] and "fatal" in rows[1]


def test_a_redacted_peer_is_no_peer(fixtures):
    """NVIDIA/nccl #2076's lines (tests/fixtures/incidents/nccl-2076-redacted-peer): the reporter cut the peer's
    address to "172....<33759>".  `gpu-npd parse` printed "peer 172...." (JSON "peer": "172...."), while triage and
    the cluster read the same address as a placeholder (parsers/redacted.py): now parse does too, the cut address
    kept in details as they keep it."""
    log = fixtures / "incidents" / "nccl-2076-redacted-peer" / "logs" / "train.log"
    assert b"recv from 172....<33759>" in log.read_bytes()
    r = run("--format", "json", str(log))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.decode().splitlines() if line.startswith("{")]
    assert [row["kind"] for row in rows] == ["nccl_remote_error", "nccl_remote_error"]
    assert [row.get("peer") for row in rows] == [None, None]
    assert rows[1]["details"] == {"amends": "peer", "peer_redacted": "172...."}
    r = run(str(log))
    out = r.stdout.decode()
    assert r.returncode == 0 and "peer 172" not in out and "peer (redacted)" in out, out


# Constructed: open-gpu-kernel-modules #659's line (the driver rate-limiting a GPU's GSP prints, "The GPU likely needs
# to be reset.") then #1342's UVM global fatal error with #659's syslog envelope fitted; each line real, their
# sequence built here.
RESET_THEN_UVM = (
    b"2025-07-23T20:09:08.732289+02:00 ThreadripperIntern kernel: [612992.634545] NVRM: Rate limiting GSP RPC error "
    b"prints for GPU at PCI:0000:0a:00 (printing 1 of every 30).  The GPU likely needs to be reset.\n"
    b"2025-07-23T20:09:09.100000+02:00 ThreadripperIntern kernel: [612993.002256] NVRM: nvGpuOpsReportFatalError: uvm "
    b"encountered global fatal error 0x60, requiring os reboot to recover\n")


def test_a_joining_line_asking_a_reboot_is_the_gpus_recommended_action(tmp_path: Path):
    """A GPU needing reset (RESET_GPU), then UVM's global fatal error joining its event: the event's finding amended
    to the reboot the driver asks for (JSON: the amendment's row, "amends": "action"), and the GPU's recommended
    action in the summary the reboot, as the agent's problem (was RESET_GPU: the amendment, of the same severity,
    did not replace the action)."""
    p = tmp_path / "syslog"
    p.write_bytes(RESET_THEN_UVM)
    r = run("--format", "json", str(p))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.decode().splitlines() if line.startswith("{")]
    assert [(row["kind"], row["pci"], row["action"], row["details"].get("amends")) for row in rows] == [
        ("gpu_reset_required", "0000:0a:00", "RESET_GPU", None),
        ("gpu_reset_required", "0000:0a:00", "RESTART_BM", "action")]
    out = run(str(p)).stdout.decode()
    assert "recommended action: RESTART_BM" in out and "[amends its event's finding: action]" in out


def test_a_file_name_that_is_no_utf8_is_an_escape_never_a_traceback_or_invalid_json(tmp_path: Path):
    name = os.fsdecode(b"node-\xff.log")  # a name's bytes that are no UTF-8: kept by Python as a surrogate
    (tmp_path / name).write_bytes(XID79)
    path = str(tmp_path / name)
    for io_encoding in ("utf-8:strict", ""):  # a UTF-8 locale's stdout (strict), and the C locale's (surrogateescape)
        env = {**os.environ, "PYTHONIOENCODING": io_encoding}
        for args in (["parse", "--format", "json", path], ["parse", path], ["triage", path]):
            r = subprocess.run([*GPU_NPD, *args], capture_output=True, timeout=120, env=env)
            assert b"Traceback" not in r.stderr and r.returncode in (0, 1), (args, r.stderr.decode())
            out = r.stdout.decode("utf-8")  # valid UTF-8: no raw byte of the name
            assert "node-\\udcff.log" in out or args[1:] == [path], (args, out)  # (the table's WHERE is cut)
            if "json" in args:
                assert json.loads(out)["file"] == path


def _interrupted(args: list[str]) -> subprocess.CompletedProcess:
    """The command given SIGINT (Ctrl-C) once it reads stdin, a pipe left open (after the files before `-`)."""
    import fcntl
    import signal
    import struct
    import termios
    import time

    p = subprocess.Popen([*GPU_NPD, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=ctrl_c_default)
    p.stdin.write(b"boot noise\n")
    p.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # the bytes still in the pipe: none once the command reads stdin
        if not struct.unpack("i", fcntl.ioctl(p.stdin.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


def test_ctrl_c_exits_130_in_one_line_and_keeps_what_was_found(tmp_path: Path):
    log = tmp_path / "kern.log"
    log.write_bytes(XID79 * 50)
    for command in (["parse", "--format", "json", str(log), "-"], ["parse", str(log), "-"]):
        r = _interrupted(command)
        err = r.stderr.decode()
        assert r.returncode == 130, err
        assert err.splitlines() == ["gpu-npd parse: interrupted"], err
        if "json" in command:  # the findings made before Ctrl-C are printed, each a whole JSON line
            assert [json.loads(line)["xid"] for line in r.stdout.decode().splitlines()] == [79] * 50
        else:
            assert r.stdout.count(b"fallen off the bus") == 50
    r = _interrupted(["triage", str(log), "-"])
    assert r.returncode == 130 and r.stderr.decode().splitlines() == ["gpu-npd triage: interrupted"], r.stderr


def test_a_file_it_may_not_read_is_one_line_and_the_others_are_still_read(tmp_path: Path, monkeypatch):
    """A file the user may not read (mode 600, another owner's: os.access says no) among others is that file's one
    line and exit 2, never click's usage error that reads none of them."""
    from click.testing import CliRunner

    from gpunpd.cli import main

    good, secret = tmp_path / "good.log", tmp_path / "secret.log"
    good.write_bytes(XID79)
    secret.write_bytes(XID79)
    access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: os.fspath(p) != str(secret) and access(p, mode, **kw))
    real_open = open

    def denied(file, *args, **kwargs):  # as the kernel would answer a user who may not read it (the tests run as root)
        if os.fspath(file) == str(secret):
            raise PermissionError(13, "Permission denied", str(secret))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", denied)
    r = CliRunner().invoke(main, ["parse", "--format", "json", "--nvml", "off", str(good), str(secret)])
    assert r.exit_code == 2, r.output
    assert r.stderr.splitlines() == [f"gpu-npd parse: cannot read {secret}: Permission denied"]
    assert [json.loads(line)["file"] for line in r.stdout.splitlines()] == [str(good)]
    r = CliRunner().invoke(main, ["triage", "--format", "json", "--jobs", "1", str(good), str(secret)])
    assert r.exit_code == 2, r.output
    doc = json.loads(r.stdout)
    assert doc["errors"] == [f"{secret}: cannot read: Permission denied"] and str(good) in doc["inputs"]


def test_a_year_no_date_holds_is_a_usage_error():
    """--year 0, -5 or 10000 was taken: stamps then lost their date (triage's `--`) or were dated this year."""
    from click.testing import CliRunner

    from gpunpd.cli import main

    for command in ("parse", "triage"):
        for year in ("0", "-5", "10000"):
            r = CliRunner().invoke(main, [command, "--year", year, "-"], input=XID79.decode())
            assert r.exit_code == 2 and "Invalid value for '--year'" in r.stderr, (command, year, r.output)
        assert CliRunner().invoke(main, [command, "--year", "2024", "-"], input=XID79.decode()).exit_code in (0, 1)


def test_a_bad_nvml_scenario_is_one_line_naming_what_is_wrong(tmp_path: Path):
    log = tmp_path / "kern.log"
    log.write_bytes(XID79)
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("gpus: [\n")  # not YAML: PyYAML's error spans three lines
    r = run("--nvml", f"fake:{scenario}", str(log))
    assert r.returncode == 2
    (line,) = r.stderr.decode().strip().splitlines()
    assert line.startswith(f"gpu-npd: --nvml fake:{scenario}: ") and "line 2, column 1" in line, line
    r = run("--nvml", f"fake:{tmp_path}", str(log))  # a directory: no "does not exist"
    assert r.returncode == 2 and f"scenario file '{tmp_path}' is not a file" in r.stderr.decode()


# Two nodes' syslog in one input, each line REAL and verbatim (tests/parsers/test_finding_host.py names their sources:
# kohsuke's gist, ik_llama.cpp #425), COMPOSED: identical servers, one PCI address, two hosts.
RESCUE = (b"Dec 23 23:32:27 rescue kernel: [ 270.439207] NVRM: Xid (PCI:0000:01:00): 62, 0096(1c54) 00000000 "
          b"00000000\n")
RED = (b"May 15 08:57:36 red kernel: NVRM: Xid (PCI:0000:01:00): 31, pid=80798, name=llama-server, Ch 00000008, intr "
       b"00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_3 faulted @ 0x7e9f_4f200000. Fault is of type "
       b"FAULT_PDE ACCESS_TYPE_VIRT_READ\n")


def test_several_hosts_name_each_rows_node_and_count_gpus_per_node():
    """`pdsh -w node[1-100] dmesg | gpu-npd parse`: which nodes, and each node's GPU its own (was: no node anywhere,
    and node-a's and node-b's 0000:01:00 one device "xid 62 x1, xid 31 x1")."""
    r = run("--year", "2024", "--nvml", "off", stdin=RESCUE + RED)
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr
    header, first, second = out.splitlines()[:3]
    assert header.split()[:2] == ["NODE", "WHERE"]
    assert first.split()[0] == "rescue" and second.split()[0] == "red"
    assert "By node (2 hosts):" in out
    nodes = out.split("By node (2 hosts):\n")[1].split("\n\n")[0].splitlines()
    assert [line.split() for line in nodes] == [["rescue", "1", "worst:", "fatal"], ["red", "1", "worst:", "error"]]
    devices = out.split("By GPU / PCI device:\n")[1]
    assert "  red 0000:01:00  xid 31 x1\n" in devices and "  rescue 0000:01:00  xid 62 x1\n" in devices
    rows = [json.loads(line) for line in run("--year", "2024", "--nvml", "off", "--format", "json",
                                            stdin=RESCUE + RED).stdout.decode().splitlines()]
    assert [row.get("host") for row in rows] == ["rescue", "red"]


def test_one_hosts_log_keeps_its_table():
    """A single node's log (its syslog names its one host; dmesg none) has no NODE column and no by-node count."""
    for text in (RESCUE, XID79):
        out = run("--year", "2024", "--nvml", "off", stdin=text).stdout.decode()
        assert out.startswith("WHERE ") and "By node" not in out
        assert out.split("By GPU / PCI device:\n")[1].startswith("  0000:")


def test_a_redacted_host_is_no_host():
    """A host the poster replaced ("<hostname>") names no node: no column for it, no "host" key."""
    redacted = RED.replace(b" red ", b" <hostname> ")
    rows = [json.loads(line) for line in run("--year", "2024", "--nvml", "off", "--format", "json",
                                            stdin=RESCUE + redacted).stdout.decode().splitlines()]
    assert [row.get("host") for row in rows] == ["rescue", None]
    assert run("--year", "2024", "--nvml", "off", stdin=RESCUE + redacted).stdout.decode().startswith("WHERE ")


def test_a_pipe_naming_its_second_host_late_says_so_and_names_nodes_from_there():
    """A pipe's rows are written before parse waits on it (`flush`): rows written before a second host appeared have
    no NODE column; from it on they do, under a new header, and a line says the rows above were the first host's."""
    from offline.report import Table
    from parsers import Classifier, Scanner

    findings = list(Scanner(Classifier(year=2024)).for_stream().scan(io.BytesIO(RESCUE + RED)))
    out = io.StringIO()
    table = Table(out)
    table.add(findings[0])
    table.flush()  # parse waits on the pipe: rescue's row is written without a NODE column
    table.add(findings[1])
    table.write(())
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("WHERE ") and "rescue" not in lines[1]
    assert lines[3] == ("(a second host from here on: the rows above are rescue's or name no host; each row below "
                        "names its node)")
    assert lines[4].startswith("NODE ") and lines[5].split()[0] == "red"


def test_pdsh_output_is_read_one_stream_per_node():
    """`pdsh -w node[1-2] dmesg | gpu-npd parse`: the nodes' lines interleave, and each node's Xid takes its own NVRM
    banner's UUID (identical servers, the same address).  REAL lines (tests/fixtures/realworld captured-h200.yaml,
    gpu-kernel-3.yaml's lore.kernel.org/kvm CABgObfa+NKKeV...), the interleaving under pdsh's prefixes COMPOSED."""
    a = [b"[   36.001639] NVRM: GPU at PCI:0000:00:06: GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120",
         b"[   36.001647] NVRM: Xid (PCI:0000:00:06): 31, pid=472, name=python3, channel 0x0000000a, intr 00000000. "
         b"MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x0_00000000. Fault is of type FAULT_PDE "
         b"ACCESS_TYPE_VIRT_WRITE"]
    b = [b"[  113.669214] NVRM: GPU at PCI:0000:00:06: GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c",
         b"[  113.669216] NVRM: Xid (PCI:0000:00:06): 119, pid='<unknown>', name=<unknown>, Timeout waiting for RPC "
         b"from GSP! Expected function FREE (0x0 0x0)."]
    stdin = b"".join(b"node-a: " + x + b"\nnode-b: " + y + b"\n" for x, y in zip(a, b))
    r = run("--format", "json", "--nvml", "off", "-", stdin=stdin)
    assert r.returncode == 0, r.stderr
    got = {row["host"]: row["details"]["uuid"] for row in map(json.loads, r.stdout.decode().splitlines())}
    assert got == {"node-a": "GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120",
                   "node-b": "GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c"}


def test_one_machine_named_two_ways_is_one_node():
    """A node's syslog naming it by its short name and a collector's or its journal's FQDN: one node (envelope.host_key),
    counted once by node, its GPU one device; each row keeps the name its line gave (was: three hosts, rescue's GPU
    counted twice).  RESCUE's line with its host written as an FQDN COMPOSED (the journal's FQDN form: aws/amazon-ecs-ami
    #256's `ip-10-0-19-159.ec2.internal kernel:`)."""
    fqdn = RESCUE.replace(b" rescue ", b" RESCUE.lab.example.org ")
    r = run("--year", "2024", "--nvml", "off", stdin=RESCUE + RED + fqdn)
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr
    assert [line.split()[0] for line in out.splitlines()[1:4]] == ["rescue", "red", "RESCUE.lab.example.org"]
    nodes = out.split("By node (2 hosts):\n")[1].split("\n\n")[0].splitlines()
    assert [line.split() for line in nodes] == [["rescue", "2", "worst:", "fatal"], ["red", "1", "worst:", "error"]]
    assert "  rescue 0000:01:00  xid 62 x2\n" in out.split("By GPU / PCI device:\n")[1]
    # one machine alone, named both ways: a single node's table, no NODE column
    alone = run("--year", "2024", "--nvml", "off", stdin=RESCUE + fqdn).stdout.decode()
    assert alone.startswith("WHERE ") and "By node" not in alone


def test_hosts_forgotten_past_the_cap_are_said_once(tmp_path: Path):
    """An input naming more hosts than the classifier keeps contexts for (parsers/classify.py MAX_HOST_STREAMS, 4096):
    one note at the end says how many were forgotten and in which input (was: counted, never said).  The banner and
    the Xid REAL (tests/fixtures/realworld/captured-h200.yaml), the 4,100 pdsh prefixes COMPOSED."""
    banner = b"[   36.001639] NVRM: GPU at PCI:0000:00:06: GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120"
    xid = (b"[   36.001647] NVRM: Xid (PCI:0000:00:06): 31, pid=472, name=python3, channel 0x0000000a, intr 00000000. "
           b"MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x0_00000000. Fault is of type FAULT_PDE "
           b"ACCESS_TYPE_VIRT_WRITE")
    log = tmp_path / "fleet.log"
    log.write_bytes(b"".join(b"node-%d: %s\n" % (i, banner) for i in range(4100)) + b"node-0: " + xid + b"\n")
    r = run("--format", "json", "--nvml", "off", str(log))
    assert r.returncode == 0, r.stderr
    (row,) = map(json.loads, r.stdout.decode().splitlines())
    assert row["host"] == "node-0" and "uuid" not in row["details"]  # node-0's banner was forgotten
    (note,) = r.stderr.decode().splitlines()
    assert note.startswith(f"gpu-npd parse: note: 5 hosts' contexts were forgotten (5 in {log}): "), note
    assert "more than 4096 hosts" in note
    small = run("--format", "json", "--nvml", "off", stdin=RESCUE + RED)
    assert small.returncode == 0 and small.stderr == b""
