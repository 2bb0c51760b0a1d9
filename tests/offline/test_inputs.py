"""What the offline CLIs are handed (offline/inputs.py), end to end through `gpu-npd parse` and `gpu-npd triage`.

Every compressed file and archive is made here, at test time, by the real tools (xz, bzip2, zstd, gzip, tar) from
the repository's fixtures; the systemd journal is its real 8-byte header (`journalctl` writes no journal file).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from gpunpd.cli import main

ROOT = Path(__file__).resolve().parents[2]
DMESG = ROOT / "tests" / "fixtures" / "dmesg" / "xid79-fallen-off-bus.dmesg"
GPU_NPD = [sys.executable, "-m", "gpunpd"] if not os.environ.get("GPU_NPD_BIN") else [os.environ["GPU_NPD_BIN"]]
XID79 = b"[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def sh(*cmd: str, cwd: Path | None = None, stdin: bytes | None = None) -> bytes:
    return subprocess.run([tool(cmd[0]), *cmd[1:]], cwd=cwd, input=stdin, capture_output=True, check=True).stdout


def parse(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run([*GPU_NPD, "parse", "--nvml", "off", "--format", "json", *args], input=stdin,
                          capture_output=True, timeout=120)


def rows(r: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(line) for line in r.stdout.decode().splitlines()]


def errors(r) -> list[str]:
    return (r.stderr.decode() if isinstance(r.stderr, bytes) else r.stderr).strip().splitlines()


def test_xz_and_bzip2_read_as_gzip_by_content_concatenated_and_renamed(tmp_path: Path):
    plain = rows(parse(str(DMESG)))
    assert plain and all(row["kind"] in ("xid", "fallen_off_bus") for row in plain)
    doubled = tmp_path / "doubled.log"
    doubled.write_bytes(DMESG.read_bytes() * 2)
    twice = [(x["kind"], x["line"]) for x in rows(parse(str(doubled)))]
    packed = {"xz": sh("xz", "-c", str(DMESG)), "bzip2": sh("bzip2", "-c", str(DMESG)),
              "gzip": sh("gzip", "-c", str(DMESG))}
    for name, data in packed.items():
        p = tmp_path / f"kern.log.2.{name}"
        p.write_bytes(data)
        renamed = tmp_path / f"{name}-renamed"  # no suffix: told by its bytes
        renamed.write_bytes(data + data)  # `xz -c a >> b`: two streams, both read
        r = parse(str(p), str(renamed))
        assert r.returncode == 0 and r.stderr == b"", (name, r.stderr)
        got = rows(r)
        assert [(x["kind"], x["line"]) for x in got if x["file"] == str(p)] == [(x["kind"], x["line"]) for x in plain]
        assert [(x["kind"], x["line"]) for x in got if x["file"] == str(renamed)] == twice
    r = parse("-", stdin=packed["xz"])
    assert r.returncode == 0 and len(rows(r)) == len(plain)


def _body(lines: int = 60000) -> bytes:
    """Benign lines, 3.2 MB by default: bzip2 decodes whole blocks of up to 900 kB of input, so the first half of
    its stream holds a complete block (the first Xid) only when the input is well over twice that."""
    return b"".join(b"[ %d.5] benign kernel line %d padding %d\n" % (i, i, i * 7919) for i in range(lines))


@pytest.mark.parametrize("compressor", ["xz", "bzip2"])
def test_a_truncated_file_gives_what_decodes_and_one_warning(tmp_path: Path, compressor: str):
    src = tmp_path / "kern.log"
    src.write_bytes(XID79 + _body() + XID79.replace(b"5d:00", b"5e:00"))
    # xz at -1: its default preset (-6) took 1.4 s of the test's 1.9; a preset sets the ratio and the dictionary,
    # not the stream's format, and half of either stream holds the first Xid and not the last
    data = sh(compressor, *(["-1"] if compressor == "xz" else []), "-c", str(src))
    cut = tmp_path / f"kern.log.2.{compressor}"
    cut.write_bytes(data[: len(data) // 2])
    r = parse(str(cut))
    assert r.returncode == 2
    assert [x["pci"] for x in rows(r) if x["kind"] == "xid"] == ["0000:5d:00"]  # the first half's Xid
    err = errors(r)
    assert len(err) == 1 and f"{compressor} stream truncated" in err[0] and str(cut) in err[0], err


def test_zstd_journal_and_binary_are_one_line_each_naming_what_reads_them(tmp_path: Path):
    zst = tmp_path / "kern.log.2.zst"
    sh("zstd", "-q", "-o", str(zst), str(DMESG))
    journal = tmp_path / "system.journal"
    journal.write_bytes(b"LPKSHHRH" + bytes(248))  # systemd's journal header: its magic, then its fields
    exe = tmp_path / "ls"
    shutil.copy(sys.executable if os.path.getsize(sys.executable) > 8192 else "/bin/ls", exe)
    good = tmp_path / "dmesg.txt"
    good.write_bytes(XID79)
    r = parse(str(zst), str(journal), str(exe), str(good))
    assert r.returncode == 2
    assert [x["file"] for x in rows(r)] == [str(good)]  # every other input still read
    err = errors(r)
    assert len(err) == 3 and "Traceback" not in r.stderr.decode()
    assert f"{zst}: not a text log: zstd-compressed; read it with `zstd -dc {zst} | gpu-npd parse -`" in err[0]
    assert (f"{journal}: not a text log: a binary systemd journal; read it with `journalctl -o short-iso-precise "
            f"--no-pager --file {journal} | gpu-npd parse -`") in err[1]
    assert err[2].endswith(f"{exe}: not a text log: binary content")


def test_the_journal_command_given_is_the_output_the_envelope_reads_best(tmp_path: Path):
    """`journalctl -o short-iso-precise`'s line (systemd 252's format): its year, zone and microseconds all read."""
    p = tmp_path / "journal.txt"
    p.write_bytes(b"2025-03-21T01:55:00.123456+00:00 node-b kernel: " + XID79.split(b"] ", 1)[1])
    (row,) = [x for x in rows(parse(str(p))) if x["kind"] == "xid"]
    assert row["timestamp"] == "2025-03-21T01:55:00.123456+00:00" and row["program"] == "kernel"


def test_zeros_a_crash_left_at_a_logs_start_are_no_binary_file(tmp_path: Path):
    """After a hard reset a syslog file often holds a run of NUL bytes (blocks allocated, never written): read on."""
    p = tmp_path / "kern.log"
    p.write_bytes(b"\0" * 5000 + b"\n" + XID79)
    r = parse(str(p))
    assert r.returncode == 0 and [x["kind"] for x in rows(r)][:1] == ["xid"]


def _bundle(tmp_path: Path) -> Path:
    """node-a/kern.log (plain) and node-b/kern.log.1.gz (gzip inside the archive), as a log bundle is laid out."""
    top = tmp_path / "bundle"
    (top / "node-a").mkdir(parents=True)
    (top / "node-b").mkdir()
    shutil.copy(DMESG, top / "node-a" / "kern.log")
    (top / "node-b" / "kern.log.1.gz").write_bytes(sh("gzip", "-c", str(DMESG)))
    return top


@pytest.mark.parametrize("flag,suffix", [("", ".tar"), ("z", ".tar.gz"), ("J", ".tar.xz"), ("j", ".tar.bz2")])
def test_a_tar_archive_is_read_member_by_member(tmp_path: Path, flag: str, suffix: str):
    _bundle(tmp_path)
    archive = tmp_path / f"sosreport{suffix}"
    sh("tar", f"-c{flag}f", str(archive), "bundle", cwd=tmp_path)
    r = parse(str(archive))
    assert r.returncode == 0 and r.stderr == b"", r.stderr
    plain = rows(parse(str(DMESG)))
    got = rows(r)
    for member in ("bundle/node-a/kern.log", "bundle/node-b/kern.log.1.gz"):
        assert [(x["kind"], x["line"]) for x in got if x["file"] == f"{archive}:{member}"] == \
               [(x["kind"], x["line"]) for x in plain]


def test_an_archive_on_stdin_names_its_members(tmp_path: Path):
    """`kubectl exec .. tar -c . | gpu-npd parse -`: each member's findings name it (-:MEMBER, as an error about it
    does); they named no file at all, so two nodes' Xids in one bundle could not be told apart."""
    _bundle(tmp_path)
    data = sh("tar", "-czf", "-", "bundle", cwd=tmp_path)
    got = rows(parse("-", stdin=data))
    assert {x.get("file") for x in got} == {"-:bundle/node-a/kern.log", "-:bundle/node-b/kern.log.1.gz"}
    assert [x.get("file") for x in rows(parse("-", stdin=DMESG.read_bytes()))][:1] == [None]  # a plain stdin: none


def test_an_archives_binary_member_is_said_and_its_journal_an_error(tmp_path: Path):
    top = _bundle(tmp_path)
    shutil.copy(sys.executable, top / "node-a" / "python")
    (top / "node-b" / "system.journal").write_bytes(b"LPKSHHRH" + bytes(248))
    sh("tar", "-cf", str(tmp_path / "inner.tar"), "bundle/node-a/kern.log", cwd=tmp_path)
    shutil.copy(tmp_path / "inner.tar", top / "inner.tar")
    archive = tmp_path / "b.tar.xz"
    sh("tar", "-cJf", str(archive), "bundle", cwd=tmp_path)
    r = parse(str(archive))
    assert r.returncode == 2
    assert {x["file"] for x in rows(r)} == {f"{archive}:bundle/node-a/kern.log", f"{archive}:bundle/node-b/kern.log.1.gz"}
    err = errors(r)
    assert len(err) == 2, err
    assert (f"{archive}:bundle/node-b/system.journal: not a text log: a binary systemd journal; read it with `tar -xf "
            f"{archive} bundle/node-b/system.journal && journalctl -o short-iso-precise --no-pager --file "
            f"bundle/node-b/system.journal | gpu-npd parse -`") in err[0]
    assert "2 member(s) not read" in err[1] and "node-a/python: binary" in err[1] and "inner.tar: an archive" in err[1]


def test_a_member_named_to_climb_out_is_only_a_name(tmp_path: Path):
    """A hostile archive's '../../' and '/etc/..' names and a terminal escape: read as text, named as given (the
    escape written out), nothing written anywhere (offline/inputs.py never extracts)."""
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    archive = work / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in ("../../escaped.log", "/etc/cron.d/escaped.log", "x\x1b[2Jy.log"):
            info = tarfile.TarInfo(name)
            info.size = len(XID79)
            tar.addfile(info, io.BytesIO(XID79))
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    r = subprocess.run([*GPU_NPD, "parse", "--nvml", "off", "--format", "json", str(archive)], capture_output=True,
                       cwd=work, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})  # run from inside it
    assert r.returncode == 0, r.stderr
    assert [x["file"] for x in rows(r) if x["kind"] == "xid"] == [
        f"{archive}:../../escaped.log", f"{archive}:/etc/cron.d/escaped.log", f"{archive}:x\\x1b[2Jy.log"]
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    assert not Path("/etc/cron.d/escaped.log").exists()


def test_a_truncated_archive_gives_its_members_before_the_cut(tmp_path: Path):
    _bundle(tmp_path)
    (tmp_path / "bundle" / "node-c").mkdir()
    # node-c only has to be much longer than node-a (1.2 kB; 0.7 kB in xz), so that each half cut falls inside it:
    # 6,000 lines, 302 kB (23 kB in xz; halves of 151 and 11 kB).  60,000 took 7 s of a loaded host to pack and parse
    (tmp_path / "bundle" / "node-c" / "kern.log").write_bytes(_body(6000))
    plain = tmp_path / "b.tar"
    sh("tar", "-cf", str(plain), "bundle/node-a", "bundle/node-c", cwd=tmp_path)
    data = plain.read_bytes()
    for cut, compressed in ((data[:len(data) // 2], False), (sh("xz", "-c", str(plain)), True)):
        p = tmp_path / ("cut.tar.xz" if compressed else "cut.tar")
        p.write_bytes(cut[:len(cut) // 2] if compressed else cut)
        r = parse(str(p))
        assert r.returncode == 2
        assert {x["file"] for x in rows(r)} == {f"{p}:bundle/node-a/kern.log"}
        err = errors(r)
        assert len(err) == 1 and "truncated" in err[0] and str(p) in err[0], err
    at_a_header = tmp_path / "at-a-header.tar"  # cut where a header begins: tarfile alone would end there silently
    first = 512 + -(-DMESG.stat().st_size // 512) * 512
    at_a_header.write_bytes(data[: first + 512 * 2])  # the first member, the directory headers, a cut header
    r = parse(str(at_a_header))
    assert r.returncode == 2 and "tar archive" in r.stderr.decode(), r.stderr


def test_an_archives_limits_say_what_was_not_read(tmp_path: Path, monkeypatch):
    from offline import inputs

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for n in range(5):
            info = tarfile.TarInfo(f"node-{n}/kern.log")
            info.size = len(XID79)
            tar.addfile(info, io.BytesIO(XID79))
    p = tmp_path / "bomb.tar"
    p.write_bytes(buf.getvalue())
    monkeypatch.setattr(inputs, "MAX_MEMBERS", 3)
    notes = inputs.Notes()
    assert [s.member for s in inputs.read_input(str(p), notes=notes)] == ["node-0/kern.log", "node-1/kern.log",
                                                                         "node-2/kern.log"]
    assert notes.errors == [f"{p}: more than 3 members: the rest not read (a limit)"]
    monkeypatch.setattr(inputs, "MAX_MEMBERS", 100)
    monkeypatch.setattr(inputs, "MAX_ARCHIVE_BYTES", 2 * len(XID79))
    notes = inputs.Notes()
    assert len([s.fp.read() for s in inputs.read_input(str(p), notes=notes)]) == 2
    assert len(notes.errors) == 1 and notes.errors[0].startswith(f"{p}:node-2/kern.log: not read, nor the members")


def test_triage_reads_a_bundle_as_it_reads_the_directory(tmp_path: Path):
    """node-a and node-b in a .tar.xz (a must-gather, a kubectl cp'd bundle): grouped by node as the directory is."""
    job = tmp_path / "job"
    (job / "node-a").mkdir(parents=True)
    (job / "node-b").mkdir()
    (job / "node-b" / "kern.log").write_text("Mar 21 01:50:00 node-b kernel: [ 3954.000000] pcieport 0000:00:03.0: "
                                             "AER: Corrected error received: 0000:00:03.0\n")
    (job / "node-b" / "dmesg").write_bytes(XID79)
    (job / "node-a" / "train.log").write_text(
        "[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, "
        "Timeout(ms)=600000) ran for 600060 milliseconds before timing out.\n")
    archive = tmp_path / "must-gather.tar.xz"
    sh("tar", "-cJf", str(archive), "-C", str(tmp_path), "job")
    docs = []
    for path in (job, archive):
        r = CliRunner().invoke(main, ["triage", "--format", "json", "--year", "2025", str(path)])
        assert r.exit_code == 0, r.output
        docs.append(json.loads(r.stdout))
    (a, b) = [(d["incidents"][0]["category"], d["incidents"][0]["rule"], d["incidents"][0]["root"]["host"],
               d["incidents"][0]["root"]["pci"]) for d in docs]
    assert a == b == ("hardware", "node_fault", "node-b", "0000:5d:00")
    assert sorted(docs[1]["inputs"]) == [f"{archive}:job/node-a/train.log", f"{archive}:job/node-b/dmesg",
                                         f"{archive}:job/node-b/kern.log"]


def test_triage_a_journal_is_an_error_a_named_binary_too_a_walked_one_skipped(tmp_path: Path):
    job = tmp_path / "job"
    job.mkdir()
    (job / "train.log").write_bytes(XID79)
    (job / "system.journal").write_bytes(b"LPKSHHRH" + bytes(248))
    (job / "core").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x03\x00\x3e\x00" * 200)
    r = CliRunner().invoke(main, ["triage", "--format", "json", str(job)])
    doc = json.loads(r.stdout)
    assert r.exit_code == 2 and doc["inputs"] == [str(job / "train.log")]
    assert doc["errors"] == [f"{job / 'system.journal'}: not a text log: a binary systemd journal; read it with "
                             f"`journalctl -o short-iso-precise --no-pager --file {job / 'system.journal'} | "
                             f"gpu-npd triage -`"]
    assert doc["skipped"] == [f"{job / 'core'}: binary, not read"]
    r = CliRunner().invoke(main, ["triage", "--format", "json", str(job / "core"), str(job / "train.log")])
    doc = json.loads(r.stdout)
    assert r.exit_code == 2 and doc["errors"] == [f"{job / 'core'}: not a text log: binary content"]
    assert doc["incidents"]


class _Hole(io.RawIOBase):
    """`size` NUL bytes then `tail`, made as read (copytruncate's hole at a log's start, gigabytes on a busy node)."""

    def __init__(self, size: int, tail: bytes):
        self.left, self.tail = size, tail

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        if self.left:
            n = min(len(buf), self.left)
            buf[:n] = bytes(n)
            self.left -= n
            return n
        n = min(len(buf), len(self.tail))
        buf[:n], self.tail = self.tail[:n], self.tail[n:]
        return n


def test_triage_reads_a_line_longer_than_its_cut_in_bounded_memory():
    """lines_of cuts a line at MAX_LINE_BYTES, and must not hold the whole line first: a NUL run of 64 MiB with no
    newline (no binary file: offline.inputs.binary) was read whole into memory (`for raw in fp`), a 20 GiB one an
    out-of-memory kill of the triage."""
    import tracemalloc

    from offline.triage_cli import MAX_LINE_BYTES, Inputs, lines_of

    fp = io.BufferedReader(_Hole(64 << 20, b"\n" + XID79 + b"x" * 10), buffer_size=1 << 16)
    tracemalloc.start()
    try:
        got = list(lines_of(fp, Inputs(), "kern.log"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got == ["\n", XID79.decode(), "x" * 10]  # the hole's line: what follows the hole, its newline
    assert peak < 8 << 20, peak
    fp = io.BufferedReader(io.BytesIO(b"y" * (MAX_LINE_BYTES * 3) + b"\n" + XID79))
    assert list(lines_of(fp, Inputs(), "kern.log")) == ["y" * MAX_LINE_BYTES, XID79.decode()]


@pytest.mark.parametrize("hole", [100, (64 << 20) + 5])
def test_triage_reads_the_line_written_right_after_a_hole(hole: int, tmp_path: Path):
    """A hole of NUL bytes ends where the next write lands, with no newline between: copytruncate truncated the file
    under a writer that kept its offset (no O_APPEND), which writes its next line there, the hole before it (the
    mechanism as kazu.tv/blog/2014/01/16/logrotate-copytruncate-file-size describes it; the bytes are constructed
    from it, the line is XID79's).  Was: the line read with the hole in front (its stamp not read), and after a hole
    longer than the cut dropped with the rest of the cut line (an Xid 79 read as "No failure found")."""
    from offline.triage_cli import Inputs, lines_of

    fp = io.BufferedReader(_Hole(hole, XID79 + b"x" * 10 + b"\0" * 3), buffer_size=1 << 16)
    assert list(lines_of(fp, Inputs(), "kern.log")) == [XID79.decode(), "x" * 10 + "\0" * 3]
    if hole < 1 << 16:
        (tmp_path / "kern.log").write_bytes(b"ok\n" + bytes(hole) + XID79)
        r = CliRunner().invoke(main, ["triage", "--format", "json", "--year", "2025", str(tmp_path / "kern.log")])
        [e] = json.loads(r.stdout)["incidents"][0]["evidence"]
        assert r.exit_code == 0 and e["line"] == 2 and e["text"] == XID79.decode().rstrip("\n")


SYSLOG_XID79 = b"Mar 21 01:55:00 node-b kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n"


@pytest.mark.parametrize("hole", [100, 100 << 20])
def test_parse_reads_the_line_written_right_after_a_hole(hole: int):
    """`gpu-npd parse` reads a hole as triage does (parsers.after_hole; the mechanism as in the test above, the bytes
    constructed by this test, the line in syslog's shape).  Was: after a short hole the Xid found but its stamp not
    read (the line began with NULs), after a hole longer than the scanner's cut (MAX_LINE) the Xid 79 dropped with
    the rest of the cut line: no finding at all."""
    from parsers import Scanner

    fp = io.BufferedReader(_Hole(hole, SYSLOG_XID79 + bytes(7) + XID79), buffer_size=1 << 16)
    got = [(f.kind, f.line, f.timestamp is not None, f.uptime) for f in Scanner().scan(fp, name="kern.log")]
    assert got == [("xid", 1, True, None), ("xid", 2, False, 4254.19786)]


def test_parse_reads_a_hole_that_ends_a_line_cut_for_its_length_and_any_chunking():
    """A line longer than the cut (MAX_LINE) whose tail is a hole, then the next write: the cut line's rest is
    skipped up to the hole, not up to the next newline; and where the scanner's reads end (a hole split between two,
    a line's stamp in the next) changes nothing (constructed bytes)."""
    from parsers import Scanner
    from parsers.scan import MAX_LINE

    data = b"y" * (MAX_LINE + 10) + bytes(3) + SYSLOG_XID79 + b"ok\n\0\0" + XID79
    assert [(f.kind, f.line) for f in Scanner().scan(io.BytesIO(data))] == [("xid", 1), ("xid", 3)]
    data = b"a\n" + bytes(9) + SYSLOG_XID79 + b"b\0\0\n" + bytes(4) + XID79
    whole = [(f.kind, f.line, f.timestamp, f.uptime) for f in Scanner().scan(io.BytesIO(data))]
    assert [w[:2] for w in whole] == [("xid", 2), ("xid", 4)] and whole[0][2] and whole[1][3]
    for chunk in range(1, 40):
        assert [(f.kind, f.line, f.timestamp, f.uptime) for f in Scanner().scan(io.BytesIO(data), chunk=chunk)] == whole


@pytest.mark.parametrize("magic,what", [(b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"), (b"PK\x03\x04", "a zip archive")])
def test_an_archive_that_needs_a_file_piped_in_is_given_no_command_that_reads_a_pipe(magic: bytes, what: str):
    """`7z x -so` and `unzip -p` read a file, not stdin: piped in, the error must not advise `7z x -so | gpu-npd
    parse -` (7z's advice did: it named its tool as if it read the pipe; unzip's was already left off)."""
    r = parse("-", stdin=magic + bytes(200))
    assert r.returncode == 2 and errors(r) == [f"gpu-npd parse: -: not a text log: {what}"]


@pytest.mark.parametrize("count", [None, lambda n: None], ids=["plain", "counted"])
def test_a_file_still_being_written_is_read_to_its_size_when_opened(tmp_path: Path, count):
    """A job's output appended to while it is read (faster than it is read: triage never ended) is read to the
    size it had when opened; what is written after is not read, and the input ends."""
    from offline.inputs import read_input  # noqa: PLC0415

    log = tmp_path / "train.log"
    log.write_bytes(XID79 * 3)
    with open(log, "ab") as writer:
        for stream in read_input(str(log), count):
            got = stream.fp.read(len(XID79))
            writer.write(XID79 * 100)
            writer.flush()
            got += stream.fp.read()
    assert got == XID79 * 3
