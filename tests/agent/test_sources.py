"""Sources on their own: kmsg (stream and device paths), log files with rotation, journald."""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from pathlib import Path

from agent.sources.journald import JournaldSource, to_line
from agent.sources.kmsg import KmsgSource
from agent.sources.logfile import LogFileSource

import pytest
from hypothesis import given
from hypothesis import strategies as st
from agent.sources import SourceAbsent
from harness import wait_until


def collect(src, seconds=0.6):
    got, stop = [], threading.Event()
    t = threading.Thread(target=src.run, args=(lambda batch: got.extend(batch), stop), daemon=True)
    t.start()
    time.sleep(seconds)
    stop.set()
    t.join(2)
    return got


def kmsg_lines(seqs):
    return "".join(f"6,{s},{s * 1000},-;message {s}\n SUBSYSTEM=pci\n" for s in seqs)


def test_kmsg_file_records_and_continuations(tmp_path: Path):
    p = tmp_path / "kmsg"
    p.write_text(kmsg_lines(range(1, 6)))
    got = collect(KmsgSource(str(p), "boot-a"))
    assert [r.line for r in got] == [f"6,{s},{s * 1000},-;message {s}" for s in range(1, 6)]
    assert got[-1].cursor == {"boot_id": "boot-a", "seq": 5}


@given(st.lists(st.binary(max_size=40), max_size=8))
def test_kmsg_stream_decoded_per_read_gives_the_lines_decoding_each_line_gives(parts):
    """The stream reader decodes a whole read before splitting it: the lines, replacement characters
    included, are those decoding every line on its own gives (a newline byte is never inside a UTF-8 sequence)."""
    data = b"\n".join(parts)
    assert data.decode("utf-8", "replace").split("\n") == [p.decode("utf-8", "replace") for p in data.split(b"\n")]


def test_kmsg_file_with_invalid_utf8_split_across_reads(tmp_path: Path, monkeypatch):
    import agent.sources.kmsg as kmsg
    monkeypatch.setattr(kmsg, "STREAM_READ", 7)  # every record split across reads, mid-sequence too
    p = tmp_path / "kmsg"
    p.write_bytes(b"6,1,1000,-;caf\xc3\xa9 \xff\xc3\n6,2,2000,-;\xe2\x82\xac end\n")
    got = collect(KmsgSource(str(p), "boot-a"))
    assert [r.line for r in got] == ["6,1,1000,-;caf\u00e9 \ufffd\ufffd", "6,2,2000,-;\u20ac end"]


def _line_of(seq: int, size: int) -> str:
    head = f"6,{seq},{seq * 1000},-;message "
    return head + "x" * (size - len(head) - 1) + "\n"


def test_kmsg_stream_full_reads_join_one_batch_of_at_most_batch_records(tmp_path: Path, monkeypatch):
    """Under a flood every read is full: its records wait for the next read's, so batches hold BATCH records
    (a pipe's worth each would cost the pipeline a flush per 64 KiB), never more, and none is lost."""
    import agent.sources.kmsg as kmsg
    monkeypatch.setattr(kmsg, "STREAM_READ", 256)  # 4 records a read
    monkeypatch.setattr(kmsg, "BATCH", 10)
    p = tmp_path / "kmsg"
    p.write_text("".join(_line_of(s, 64) for s in range(1, 101)))
    sizes, got, stop = [], [], threading.Event()

    def emit(batch):
        sizes.append(len(batch))
        got.extend(batch)

    t = threading.Thread(target=KmsgSource(str(p), "boot-a").run, args=(emit, stop), daemon=True)
    t.start()
    deadline = time.time() + 5
    while len(got) < 100 and time.time() < deadline:
        time.sleep(0.01)
    stop.set()
    t.join(2)
    assert [r.line for r in got] == [_line_of(s, 64)[:-1] for s in range(1, 101)]
    assert sizes == [10] * 10
    assert got[-1].cursor == {"boot_id": "boot-a", "seq": 100}


def test_kmsg_read_cut_into_batches_each_carries_the_cursor_of_its_own_last_record(tmp_path: Path, monkeypatch):
    """One read holding more than BATCH records is cut into batches: each batch's last record carries the cursor
    of that record (not of the read's last), and only it, so the pipeline never saves a cursor past what it
    processed."""
    import agent.sources.kmsg as kmsg
    monkeypatch.setattr(kmsg, "BATCH", 10)
    p = tmp_path / "kmsg"
    p.write_text(kmsg_lines(range(1, 26)))
    batches, stop = [], threading.Event()
    t = threading.Thread(target=KmsgSource(str(p), "boot-a").run, args=(batches.append, stop), daemon=True)
    t.start()
    deadline = time.time() + 5
    while sum(map(len, batches)) < 25 and time.time() < deadline:
        time.sleep(0.01)
    stop.set()
    t.join(2)
    assert [len(b) for b in batches] == [10, 10, 5]
    assert [b[-1].cursor for b in batches] == [{"boot_id": "boot-a", "seq": s} for s in (10, 20, 25)]
    assert all(r.cursor is None for b in batches for r in b[:-1])


def test_kmsg_fifo_full_read_with_nothing_after_is_emitted_at_once(tmp_path: Path, monkeypatch):
    """A read that fills the buffer exactly and then finds the pipe empty: its records are emitted then,
    not held until more comes."""
    import agent.sources.kmsg as kmsg
    monkeypatch.setattr(kmsg, "STREAM_READ", 4096)
    fifo = tmp_path / "kmsg.fifo"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    got, stop = [], threading.Event()
    t = threading.Thread(target=KmsgSource(str(fifo), "boot-a").run, args=(got.extend, stop), daemon=True)
    t.start()
    try:
        data = "".join(_line_of(s, 64) for s in range(1, 65)).encode()
        assert len(data) == 4096
        os.write(writer, data)
        deadline = time.time() + 3
        while len(got) < 64 and time.time() < deadline:
            time.sleep(0.01)
        assert [r.line for r in got] == [_line_of(s, 64)[:-1] for s in range(1, 65)]
    finally:
        stop.set()
        t.join(2)
        os.close(writer)


def test_kmsg_cursor_skips_what_was_read_same_boot_only(tmp_path: Path):
    p = tmp_path / "kmsg"
    p.write_text(kmsg_lines(range(1, 6)))
    same = collect(KmsgSource(str(p), "boot-a", {"boot_id": "boot-a", "seq": 3}))
    assert [r.line.split(",")[1] for r in same] == ["4", "5"] and same[-1].cursor["seq"] == 5
    fresh = collect(KmsgSource(str(p), "boot-b", {"boot_id": "boot-a", "seq": 3}))
    assert [r.line.split(",")[1] for r in fresh] == ["1", "2", "3", "4", "5"]
    assert fresh[-1].cursor == {"boot_id": "boot-b", "seq": 5}  # a batch's last record carries the cursor


class ScriptedKmsg(KmsgSource):
    """The device path with scripted read() results, EPIPE included."""

    def __init__(self, script):
        super().__init__("/dev/null", "boot-a")
        self.script = list(script)

    def _check_still_there(self, fd):  # the scripted fd is a pipe, not the path
        pass

    def _read(self, fd):
        if not self.script:
            raise BlockingIOError
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


def test_kmsg_epipe_is_counted_and_reading_continues():
    src = ScriptedKmsg([b"6,1,1,-;one\n", b"6,2,2,-;two\n", OSError(errno.EPIPE, "Broken pipe"),
                        b"6,7,7,-;seven\n SUBSYSTEM=pci\n"])
    r, w = os.pipe()
    got, stop = [], threading.Event()
    t = threading.Thread(target=src._run_device, args=(r, got.extend, stop), daemon=True)
    t.start()
    wait_until(lambda: not src.script and len(got) >= 3, "the script read")  # not a fixed 0.3 s: a loaded host
    stop.set()
    t.join(2)
    os.close(r), os.close(w)
    assert [rec.line for rec in got] == ["6,1,1,-;one", "6,2,2,-;two", "6,7,7,-;seven"]
    assert src.dropped == 4  # seq 3..6 were overwritten


def test_logfile_rename_and_copytruncate_lose_no_line(tmp_path: Path):
    log = tmp_path / "kern.log"
    src = LogFileSource([str(log)], str(tmp_path / "state"), poll_seconds=0.05)  # noqa: E501
    got, stop = [], threading.Event()
    t = threading.Thread(target=src.run, args=(got.extend, stop), daemon=True)
    expected = ["a1", "a2", "a3", "b1", "b2", "b3", "c1"]

    def read(n):  # each step waits for the source to have read what came before it, not a fixed time a loaded
        wait_until(lambda: len(got) >= n, f"{expected[:n]} read")  # host may not give it
        assert [r.line for r in got] == expected[:n]

    t.start()
    time.sleep(0.2)  # the file does not exist yet: the source waits
    log.write_text("a1\na2\n")
    read(2)
    with log.open("a") as fh:
        fh.write("a3\n")
    log.rename(tmp_path / "kern.log.1")  # rename rotation: a3 must still be read, then the new file
    log.write_text("b1\n")
    read(4)
    with log.open("a") as fh:
        fh.write("b2\n")
    read(5)
    # copytruncate: copy away, truncate in place, keep writing
    (tmp_path / "kern.log.1").write_text(log.read_text() + "b3\n")
    with log.open("w") as fh:
        fh.write("c1\n")
    read(7)
    stop.set()
    t.join(2)
    assert [r.line for r in got] == expected


def test_logfile_offsets_survive_restart(tmp_path: Path):
    log = tmp_path / "syslog"
    log.write_text("one\ntwo\n")
    state = str(tmp_path / "state")
    first = collect(LogFileSource([str(log)], state, poll_seconds=0.05), 0.3)
    assert [r.line for r in first] == ["one", "two"]
    with log.open("a") as fh:
        fh.write("three\n")
    cursor = first[-1].cursor  # what the agent stores with its state once the batch is processed
    again = collect(LogFileSource([str(log)], state, cursor, poll_seconds=0.05), 0.3)
    assert [r.line for r in again] == ["three"]


def test_journald_entry_to_line_and_absent():
    line = to_line({"MESSAGE": "NVRM: Xid (PCI:0000:5d:00): 79, x", "__REALTIME_TIMESTAMP": "1795315566000000",
                    "_HOSTNAME": "gpu-1"})
    assert line.startswith("2026-") and line.endswith("gpu-1 kernel: NVRM: Xid (PCI:0000:5d:00): 79, x")
    assert to_line({"MESSAGE": list(b"bytes msg")}) == "bytes msg"
    # journalctl's other MESSAGE shapes, read as the parsers' journal JSON envelope reads them (one function): a
    # message that is no UTF-8 (the byte 0xff: U+FFFD), a field the record holds twice (its first), a list that is no
    # bytes (nothing). Was: bytes() of the list, TypeError / ValueError out of the source's loop
    assert to_line({"MESSAGE": list(b"NVRM: Xid \xff")}) == "NVRM: Xid \ufffd"
    assert to_line({"MESSAGE": ["NVRM: one", "NVRM: two"]}) == "NVRM: one"
    assert to_line({"MESSAGE": [256, -1]}) is None and to_line({"MESSAGE": [None]}) is None
    with pytest.raises(SourceAbsent):
        JournaldSource(journalctl="no-such-journalctl-here").run(lambda b: None, threading.Event())
    assert "--after-cursor=s=abc" in JournaldSource("s=abc").command()


def test_journald_follows_a_journalctl_stream_with_cursor(tmp_path: Path):
    """A stand-in journalctl (same CLI, same JSON output) proves the subprocess path and the cursor."""
    fake = tmp_path / "journalctl"
    args_file = tmp_path / "args"
    fake.write_text(
        "#!/bin/sh\n"
        f"echo \"$@\" > {args_file}\n"
        "echo '{\"__CURSOR\":\"s=1\",\"__REALTIME_TIMESTAMP\":\"1795315566000000\",\"_HOSTNAME\":\"n1\","
        "\"MESSAGE\":\"NVRM: Xid (PCI:0000:5d:00): 79, pid=1, name=x, GPU has fallen off the bus.\"}'\n"
        "echo 'not json'\n"
        "echo '{\"__CURSOR\":\"s=2\",\"__REALTIME_TIMESTAMP\":\"1795315567000000\",\"MESSAGE\":\"eth0: up\"}'\n"
        "exec sleep 30\n")
    fake.chmod(0o755)
    src = JournaldSource(cursor="s=0", journalctl=str(fake))
    got = collect(src, 0.8)
    assert [r.cursor for r in got] == ["s=1", "s=2"]
    assert "Xid (PCI:0000:5d:00): 79" in got[0].line and got[0].line.startswith("2026-")
    args = args_file.read_text().split()
    assert "--after-cursor=s=0" in args and {"--merge", "_TRANSPORT=kernel"} <= set(args) and "-k" not in args


def test_journald_reads_every_journal_of_this_boot_whatever_the_machine_id(tmp_path: Path, monkeypatch):
    """h131: the pod has not the host's /etc/machine-id (b237f87), and journalctl's default reads only the journal
    directories named after it: a persistent journal (/var/log/journal/<host's id>) gave nothing (measured, systemd
    252 in a mount namespace with a real journald: `-k` 0 of 844 kernel lines with another or no machine-id; these
    arguments 844). So: --merge, and what -k filters as matches (-k implies -b, which --merge refuses)."""
    from agent.sources import journald

    cmd = JournaldSource().command()
    boot = journald._boot_id()
    assert boot is not None and len(boot) == 32
    assert cmd[1:4] == ["--merge", "_TRANSPORT=kernel", f"_BOOT_ID={boot}"] and "-k" not in cmd and "-b" not in cmd
    ids = tmp_path / "boot_id"
    ids.write_text("DD847DDF-F889-478D-B471-BF32B3168238\n")
    assert journald._boot_id(str(ids)) == "dd847ddff889478db471bf32b3168238"
    ids.write_text("garbage\n")
    assert journald._boot_id(str(ids)) is None and journald._boot_id(str(tmp_path / "none")) is None
    monkeypatch.setattr(journald, "_boot_id", lambda: None)  # no boot id to match: -k, this machine's journals
    assert JournaldSource().command()[1:3] == ["-k", "-f"]


# ---- truncation told by content; FIFOs in place of a file (issue 31) -------------------------------------

def _drain(src) -> list[str]:
    got = []
    for path in src.paths:
        src._drain(path, got.extend)
    return [r.line for r in got]


def _copytruncate(log, new_lines: list[str]) -> None:
    """logrotate's copytruncate, then the writer goes on: the file grows past where the reader was."""
    import shutil

    shutil.copyfile(log, str(log) + ".1")
    with open(log, "r+") as fh:
        fh.truncate(0)
    with open(log, "a") as fh:
        fh.write("".join(f"{line}\n" for line in new_lines))


def test_truncated_and_grown_again_between_two_polls_loses_nothing(tmp_path):
    log = tmp_path / "kern.log"
    log.write_text("a1\na2\n")
    src = LogFileSource([str(log)], str(tmp_path / "state"))
    assert _drain(src) == ["a1", "a2"]
    with log.open("a") as fh:
        fh.write("a3\n")  # written before the copy: only in the copy once the file is truncated
    _copytruncate(log, [f"b{i}" for i in range(10)])  # longer than before: the size check alone misses it
    assert _drain(src) == ["a3", *[f"b{i}" for i in range(10)]]
    assert _drain(src) == []


def test_copytruncate_while_the_agent_was_down_reads_the_copy_then_the_new_file(tmp_path):
    log = tmp_path / "kern.log"
    log.write_text("a1\na2\n")
    got = []
    src = LogFileSource([str(log)], str(tmp_path / "state"))
    src._drain(str(log), got.extend)
    cursor = got[-1].cursor  # stored with the state; then SIGKILL
    with log.open("a") as fh:
        fh.write("a3\na4\n")
    _copytruncate(log, [f"b{i}" for i in range(10)])
    again = LogFileSource([str(log)], str(tmp_path / "state"), cursor)
    assert _drain(again) == ["a3", "a4", *[f"b{i}" for i in range(10)]]


def test_a_cursor_of_the_earlier_two_field_form_is_still_followed(tmp_path):
    log = tmp_path / "kern.log"
    log.write_text("one\ntwo\n")
    ino = log.stat().st_ino
    src = LogFileSource([str(log)], str(tmp_path / "state"), {str(log): [ino, 4]})
    assert _drain(src) == ["two"]


def test_a_fifo_in_place_of_the_file_never_blocks_the_source(tmp_path):
    log = tmp_path / "kern.log"
    log.write_text("a1\n")
    src = LogFileSource([str(log)], str(tmp_path / "state"), gone_grace_seconds=0.0)
    assert _drain(src) == ["a1"]
    log.unlink()
    os.mkfifo(log)  # nobody writes it: opening it for reading would block for good
    t0 = time.monotonic()
    assert _drain(src) == [] and _drain(src) == []
    assert time.monotonic() - t0 < 1.0
    assert src.gone()  # said, not silent
    log.unlink()
    log.write_text("b1\n")  # a file is back: read from its start
    assert _drain(src) == ["b1"]
    assert not src.gone()


def test_what_stands_in_a_log_files_place_is_named_once(tmp_path, caplog):
    """A directory (what a hostPath mount of a file missing on the host leaves) or a FIFO where a log file is
    followed: one warning naming what it is (before, a directory was called "a FIFO or device"), the source keeps
    running and counts the file missing, and a regular file in its place is read from its start."""
    log = tmp_path / "kern.log"
    log.mkdir()
    fifo = tmp_path / "syslog"
    os.mkfifo(fifo)
    src = LogFileSource([str(log), str(fifo)], str(tmp_path / "state"), gone_grace_seconds=0.0)
    with caplog.at_level(logging.WARNING, logger="gpu_npd.files"):
        assert _drain(src) == [] and _drain(src) == []
    assert [r.getMessage() for r in caplog.records] == [
        f"{log} is a directory, not a log file: not read until a regular file is in its place",
        f"{fifo} is a FIFO, not a log file: not read until a regular file is in its place"]
    assert src.gone()
    log.rmdir()
    log.write_text("a1\n")
    fifo.unlink()
    fifo.write_text("s1\n")
    assert _drain(src) == ["a1", "s1"]
    assert not src.gone()


def test_a_fifo_from_the_start_and_as_a_rotated_name_never_blocks(tmp_path):
    log = tmp_path / "kern.log"
    os.mkfifo(log)
    os.mkfifo(tmp_path / "kern.log.1")
    src = LogFileSource([str(log)], str(tmp_path / "state"), gone_grace_seconds=0.0)
    assert _drain(src) == []
    assert src._rotations(str(log)) == []


# ---- a hole of NUL bytes before a line (parsers.after_hole) -----------------------------------------------

_XID = "Mar 21 01:55:00 node-b kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus."


@pytest.mark.parametrize("hole", [100, 100 << 20])
def test_logfile_reads_the_line_written_right_after_a_hole(hole: int, tmp_path: Path):
    """copytruncate under a writer without O_APPEND (or a crash) leaves a run of NUL bytes, and the next line lands
    right after it with no newline between (kazu.tv/blog/2014/01/16/logrotate-copytruncate-file-size; the bytes are
    constructed by this test, the line is made in syslog's shape).  Was: the line passed on with the hole in front
    (its stamp and envelope not read), a 100 MiB hole as some 800 records of NULs.  The offset and the CRC of the
    bytes before it stay the file's own: a hole that ends between two polls is no truncation, and a restart from
    the cursor reads on where the line ended."""
    log = tmp_path / "kern.log"
    log.write_bytes(b"ok\n" + bytes(hole))  # the hole so far: nothing written after it yet
    got = []
    src = LogFileSource([str(log)], str(tmp_path / "state"))
    src._drain(str(log), got.extend)
    assert [r.line for r in got] == ["ok"]
    with log.open("ab") as fh:
        fh.write(_XID.encode() + b"\n" + bytes(5) + b"next\n")
    assert _drain(src) == [_XID, "next"]
    assert src.positions[str(log)][1] == log.stat().st_size and _drain(src) == []
    again = LogFileSource([str(log)], str(tmp_path / "state"), got[-1].cursor)  # restart at "ok"'s cursor
    assert _drain(again) == [_XID, "next"]
