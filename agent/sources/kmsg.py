"""/dev/kmsg: one read() per record, EPIPE counted as dropped, cursor = boot id + sequence number.

A FIFO or a regular file of kmsg-format records is accepted too (tests, replays): those are read in
chunks and split into lines; continuation lines (` KEY=value`) are skipped.
"""

from __future__ import annotations

import errno
import logging
import os
import select
import stat
import threading
from typing import Iterator

from . import SLICE, Emit, Record, Source


class SourceGone(OSError):
    """The input path went away or was replaced: reported down, reopened when it is back."""

READ_SIZE = 16384  # kmsg needs >= 8 KiB per read, or it fails with EINVAL
log = logging.getLogger("gpu_npd.kmsg")
BATCH = 1024
# a FIFO or file holding kmsg records is read this much at a time: a pipe holds 64 KiB, and os.read allocates
# what it asks for before the read (1 MiB meant an mmap and munmap per read, empty ones included)
STREAM_READ = 1 << 16


def read_boot_id(path: str = "/proc/sys/kernel/random/boot_id") -> str:
    try:
        with open(path, encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return "unknown"


def record_seq(line: str) -> int | None:
    head = line.split(";", 1)[0].split(",")
    return int(head[1]) if len(head) >= 3 and head[1].isdigit() else None


class KmsgSource(Source):
    name = "kmsg"

    def __init__(self, path: str, boot_id: str, cursor: dict | None = None):
        self.path = path
        self.boot_id = boot_id
        seq = cursor.get("seq") if isinstance(cursor, dict) and cursor.get("boot_id") == boot_id else None
        self.last_seq = seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else None
        self.dropped = 0
        self.newest_seen: int | None = None
        self._cursor_checked = self.last_seq is None

    def counters(self) -> dict[str, int]:
        return {"dropped": self.dropped}

    def _account(self, line: str) -> bool:
        """Is `line` a record to emit? Records at or before the cursor are skipped; sequence gaps count as dropped."""
        seq = record_seq(line)
        if seq is None:
            return True
        if self.newest_seen is None or seq > self.newest_seen:
            self.newest_seen = seq
        if self.last_seq is not None:
            if seq <= self.last_seq:
                return False
            if seq > self.last_seq + 1:
                self.dropped += seq - self.last_seq - 1
        self.last_seq = seq
        return True

    def _cursor(self) -> dict:
        """Where reading stands (the last record accounted). The pipeline keeps the cursor of a batch's last
        record, so only that record carries one (and every SLICE-th: `_mark`)."""
        return {"boot_id": self.boot_id, "seq": self.last_seq}

    def _mark(self, batch: list[Record]) -> None:
        """The batch's cursors: its last record's, and every SLICE-th record's own (its sequence number: where
        reading stood after it), so that a drain may stop within the batch."""
        for rec in batch[SLICE - 1:-1:SLICE]:
            if (seq := record_seq(rec.line)) is not None:
                rec.cursor = {"boot_id": self.boot_id, "seq": seq}
        batch[-1].cursor = self._cursor()

    def run(self, emit: Emit, stop: threading.Event) -> None:
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            # a FIFO read-only sees end-of-file whenever no writer holds it open, and select() then wakes at once,
            # so the loop would poll; held read-write it has a writer (us): select() sleeps until data comes
            os.close(fd)
            fd = os.open(self.path, os.O_RDWR | os.O_NONBLOCK)
        try:
            if stat.S_ISCHR(os.fstat(fd).st_mode):
                self._run_device(fd, emit, stop)
            else:
                self._run_stream(fd, emit, stop)
        finally:
            os.close(fd)

    def _read(self, fd: int) -> bytes:
        return os.read(fd, READ_SIZE)

    def _cursor_is_impossible(self) -> bool:
        """Once the backlog is read: a saved sequence number beyond the newest record this boot has is
        impossible (sequence numbers only grow within a boot). Keeping it would skip every record for good,
        so it is discarded, loudly."""
        if self._cursor_checked or self.newest_seen is None:
            return False
        self._cursor_checked = True
        if self.last_seq is None or self.last_seq <= self.newest_seen:
            return False
        log.warning("kmsg cursor (sequence %d) is ahead of the newest record of this boot (%d): impossible, "
                    "discarded; reading from the oldest record the kernel still holds", self.last_seq,
                    self.newest_seen)
        self.last_seq = None
        return True

    def _check_still_there(self, fd: int) -> None:
        """A path deleted or replaced (a new FIFO or file under the same name) ends this run: the supervisor
        reports the source down and reopens the path when it is back, instead of reading a dead fd forever."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            raise SourceGone(f"{self.path} disappeared") from None
        if st.st_ino != os.fstat(fd).st_ino:
            raise SourceGone(f"{self.path} was replaced")

    def _run_device(self, fd: int, emit: Emit, stop: threading.Event) -> None:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while not stop.is_set():
            batch: list[Record] = []
            while len(batch) < BATCH:
                try:
                    raw = self._read(fd)
                except BlockingIOError:
                    break
                except OSError as exc:
                    if exc.errno == errno.EPIPE:  # overwritten before we read it; the seq gap counts it
                        self.dropped += 1 if self.last_seq is None else 0
                        continue
                    if exc.errno == errno.EINTR:
                        continue
                    raise
                if not raw:
                    break
                line = raw.split(b"\n", 1)[0].decode("utf-8", "replace")
                if self._account(line):
                    batch.append(Record(self.name, line))
            if batch:
                self._mark(batch)
                emit(batch)
            elif self._cursor_is_impossible():
                os.lseek(fd, 0, os.SEEK_SET)  # back to the oldest record in the ring buffer
            elif not poller.poll(500):
                self._check_still_there(fd)

    def _run_stream(self, fd: int, emit: Emit, stop: threading.Event) -> None:
        carry = b""
        idle = 0
        lines: Iterator[str] = iter(())  # the lines of the last read not yet taken into a batch
        more = False  # the last read filled its buffer: more is waiting
        batch: list[Record] = []
        while True:
            for line in lines:
                if line and line[0] != " " and self._account(line):  # (" KEY=value": a continuation line)
                    batch.append(Record(self.name, line))
                    if len(batch) >= BATCH:
                        break
            # a batch goes when it is full, when nothing more is waiting, or at stop: a full read's records join
            # the next read's (a flood's batches are then BATCH records, not a pipe's worth; each batch costs the
            # pipeline a flush)
            if batch and (len(batch) >= BATCH or not more or stop.is_set()):
                self._mark(batch)
                emit(batch)
                batch = []
                continue
            if stop.is_set():
                return
            try:
                chunk = os.read(fd, STREAM_READ)
            except BlockingIOError:
                chunk = None
            if not chunk:
                if more:  # the last read was full and nothing followed: its records go now
                    more = False
                    continue
                self._cursor_is_impossible()
                select.select([fd], [], [], 0.2) if chunk is None else stop.wait(0.05)
                idle += 1
                if idle % 5 == 0:  # about once a second while nothing comes
                    self._check_still_there(fd)
                continue
            idle = 0
            more = len(chunk) >= STREAM_READ
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            carry = data[cut:]
            # decoded once per read, not per line: a newline byte is never part of a UTF-8 sequence, so the
            # lines (and their replacement characters) are the same
            lines = iter(data[:cut].decode("utf-8", "replace").split("\n"))
