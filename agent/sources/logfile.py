"""Log files followed like `tail -F`, at least once: rename and copytruncate rotation, files that do not exist
yet, bytes decoded leniently (an invalid byte becomes U+FFFD, never an error).  A line holding a run of NUL bytes (a
hole a crash or copytruncate left) is the text after its last run (parsers.after_hole).

Positions are not saved by this source: each batch carries the cursor `{path: [inode, offset, tail]}` of
the bytes it holds (`tail`: a CRC of the TAIL bytes just before the offset), and every SLICE-th line the cursor of the
offset after it, and the agent stores a cursor with the state only after the lines before it are processed. A SIGKILL
therefore replays at most what was read since the last state write (about a second), and because counter
totals are saved in the same atomic state write, the replay is counted once. A file rotated while the
agent was down is found again by its inode (`<path>.1`, `<path>-YYYYMMDD`, ...) and finished first.

Truncation is told by content, not only by size: before each read (and at start) the TAIL bytes before the
offset must still be what was read there. A file truncated and grown again past the offset between two polls,
or while the agent was down (copytruncate then SIGKILL), fails that check: the rest of the old content is read
from the newest copy (`<path>.1`, ...) at the offset, then the file from its start.

A path that is not a regular file (a FIFO or a device put in its place; a directory, as a hostPath mount of a file
missing on the host leaves) is never opened: opening a FIFO would block the source for good. The warning names
what it is; it counts as missing until a regular file is back.

A followed file that disappears (deleted, or renamed away with no new file in its place) is drained to its
end; missing for longer than `gone_grace_seconds` it makes the source down (`Source.gone`: a rotation, where
the new file follows within seconds, never does), and when a file is back under that name it is read from
its start. A path never seen (configured, not yet created) is waited for quietly, as `tail -F` does.
"""

from __future__ import annotations

import glob
import logging
import os
import stat
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from parsers import drop_holes

from ..keyspec import dropped, each
from . import POSITION, SLICE, Emit, MissingInputs, Record, Source, SourceAbsent

log = logging.getLogger("gpu_npd.files")
POLL_SECONDS = 0.25
GONE_GRACE_SECONDS = 30.0
CHUNK = 1 << 16
MAX_LINE = 64 << 10  # a "line" longer than this (no newline in sight) is cut and passed on, not buffered
TAIL = 64  # bytes before the offset whose CRC tells the same file from one truncated and grown again


@dataclass
class _Follow:
    fh: BinaryIO
    inode: int
    pos: int  # offset just after the last complete line passed on
    buf: bytes = field(default=b"")
    tail: bytes = field(default=b"")  # the last TAIL bytes before pos


def _crc(data: bytes) -> int:
    return zlib.crc32(data)


def _tail_at(fh: BinaryIO, pos: int) -> bytes:
    """The TAIL bytes before `pos` in the file as it is now (pread: the read position is left alone)."""
    start = max(0, pos - TAIL)
    try:
        return os.pread(fh.fileno(), pos - start, start)
    except OSError:
        return b""


def _regular(path: str) -> os.stat_result | None:
    """stat of `path` when it is a regular file; None when absent; raises NotAFile for anything else."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise NotAFile(path, st.st_mode)
    return st


NOT_FILES = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))  # what a path holds instead of a file


class NotAFile(OSError):
    """A FIFO, device or directory where a log file is followed: never opened (a FIFO would block). `what` names
    it ("a directory")."""

    def __init__(self, path: str, mode: int):
        self.what = next((name for test, name in NOT_FILES if test(mode)), "not a regular file")
        super().__init__(f"{path} is {self.what}")


class LogFileSource(Source):
    name = "files"

    def __init__(self, paths: list[str], state_dir: str, cursor: dict | None = None,
                 poll_seconds: float = POLL_SECONDS, name: str = "files", optional: bool = False,
                 gone_grace_seconds: float = GONE_GRACE_SECONDS, clock=time.monotonic):
        """`name`: the source's label (metrics, cursor key); `optional`: when none of the paths exists at start,
        the source is absent (SourceAbsent: said once, not down, not retried) instead of waiting for them."""
        self.name = name
        self.optional = optional
        self.paths = list(paths)
        self.legacy_dir = Path(state_dir) / "offsets"  # pygtail's offset files of earlier versions
        self.poll_seconds = poll_seconds
        faults: list[str] = []
        # path -> [inode, offset, CRC of the TAIL bytes before it] (a cursor of 2: saved before the CRC)
        self.positions: dict[str, list[int]] = {
            p: [v[0], v[1], v[2] if len(v) == 3 else -1] for p, v in
            each(cursor if cursor is not None else {}, dict[str, list[POSITION]], f"cursors.{name}", faults)
            if p in self.paths and len(v) in (2, 3)}
        dropped("state file: saved cursors", faults)
        self._not_a_file: set[str] = set()
        self._open: dict[str, _Follow] = {}
        self.missing = MissingInputs(gone_grace_seconds, clock)
        self._vanished: set[str] = set()  # drained to the end, then gone: the next file there is read from 0
        for path in self.positions:  # followed before a restart: not there now counts as gone
            if not os.path.exists(path):
                self.missing.missing(path)

    def gone(self) -> str | None:
        return self.missing.reason()

    def _went_missing(self, path: str) -> None:
        if path not in self._vanished:
            log.warning("%s disappeared; waiting for it to come back (read from its start)", path)
        self._vanished.add(path)
        self.missing.missing(path)

    def absent(self) -> str | None:
        if self.optional and not any(os.path.exists(p) for p in self.paths):
            return f"source {self.name}: {', '.join(self.paths)} not present on this host; not followed"
        return None

    def run(self, emit: Emit, stop: threading.Event) -> None:
        why = self.absent()
        if why:
            raise SourceAbsent(why)
        try:
            while not stop.is_set():
                for path in self.paths:
                    self._drain(path, emit)
                stop.wait(self.poll_seconds)
        finally:
            for f in self._open.values():
                f.fh.close()
            self._open.clear()

    # ---- one path ------------------------------------------------------------------------------------

    def _drain(self, path: str, emit: Emit) -> None:
        try:
            self._drain_file(path, emit)
        except NotAFile as exc:
            if path not in self._not_a_file:
                log.warning("%s is %s, not a log file: not read until a regular file is in its place", path,
                            exc.what)
                self._not_a_file.add(path)
            self.missing.missing(path)
            return
        if path in self._not_a_file and path in self._open:
            self._not_a_file.discard(path)

    def _drain_file(self, path: str, emit: Emit) -> None:
        f = self._open.get(path)
        if f is None:
            f = self._start(path, emit)
            if f is None:
                return  # not there yet: keep waiting
        if f.pos and _tail_at(f.fh, f.pos) != f.tail:  # truncated and grown again since the last poll
            self._truncated(path, f, emit)
        self._read(path, f, emit)
        try:
            st = _regular(path)
        except NotAFile:
            st = None
        if st is None or st.st_ino != f.inode:  # renamed away, deleted, or something else in its place
            self._read(path, f, emit)  # what was written between our read and the rename: to its very end
            since = os.fstat(f.fh.fileno()).st_mtime
            f.fh.close()
            del self._open[path]
            self._read_newer_generations(path, f.inode, since, emit)  # rotated more than once since the last poll
            new = self._open_at(path, 0) if st is not None else None
            if new is not None:
                self._read(path, new, emit)
            else:  # nothing in its place (yet): a rotation's new file comes within the grace period
                self._went_missing(path)
        elif st.st_size < f.pos:  # copytruncate: copied away, then emptied in place
            self._truncated(path, f, emit)
            self._read(path, f, emit)

    def _truncated(self, path: str, f: _Follow, emit: Emit) -> None:
        """The file was emptied in place (copytruncate): what was written after our offset and before the copy
        is only in the copy, read from there; then the file is read from its start."""
        self._finish_copy(path, f.inode, f.pos, _crc(f.tail), emit)
        f.fh.seek(0)
        f.pos, f.buf, f.tail = 0, b"", b""

    def _finish_copy(self, path: str, inode: int, pos: int, crc: int, emit: Emit) -> None:
        copy = self._newest_copy(path, pos, crc)
        if copy is None:
            return
        try:
            with open(copy, "rb") as fh:
                fh.seek(pos)
                self._read(path, _Follow(fh, inode, pos, tail=_tail_at(fh, pos)), emit)
                st = os.fstat(fh.fileno())
        except OSError:
            return
        # truncated more than once since (copies .2 and .1 of one file): the newer copies hold the rest
        self._read_newer_generations(path, st.st_ino, st.st_mtime, emit)

    def _start(self, path: str, emit: Emit) -> _Follow | None:
        if path in self._vanished:  # its last file was read to the end when it went: this one is new
            f = self._open_at(path, 0)
            if f is not None:
                log.info("%s is back; reading it from its start", path)
                self._vanished.discard(path)
            return f
        inode, offset, crc = self.positions.get(path) or self._legacy(path) or (None, 0, -1)
        st = _regular(path)
        if st is None:
            return None
        if inode is not None and st.st_ino != inode:
            old = self._rotated(path, inode)  # rotated while we were down: finish the old file first
            if old is not None:
                try:
                    with open(old, "rb") as fh:
                        if os.fstat(fh.fileno()).st_size >= offset:
                            fh.seek(offset)
                            self._read(path, _Follow(fh, inode, offset, tail=_tail_at(fh, offset)), emit)
                        self._read_newer_generations(path, inode, os.fstat(fh.fileno()).st_mtime, emit)
                except OSError:
                    pass
            offset = 0
        elif st.st_size < offset or (offset and crc >= 0 and self._crc_at(path, offset) != crc):
            # truncated while we were down (and maybe grown again): the rest of the old content is in the copy
            self._finish_copy(path, inode, offset, crc, emit)
            offset = 0
        return self._open_at(path, offset)

    @staticmethod
    def _crc_at(path: str, offset: int) -> int:
        try:
            with open(path, "rb") as fh:
                return _crc(_tail_at(fh, offset))
        except OSError:
            return -1

    def _open_at(self, path: str, offset: int) -> _Follow | None:
        if _regular(path) is None:
            return None
        try:  # O_NONBLOCK: should a FIFO take its place between the check and the open, this never blocks
            fh = os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb")
        except FileNotFoundError:
            return None
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            fh.close()
            raise NotAFile(path, st.st_mode)
        fh.seek(offset)
        f = self._open[path] = _Follow(fh, st.st_ino, offset, tail=_tail_at(fh, offset))
        self.positions[path] = [f.inode, f.pos, _crc(f.tail)]
        self.missing.back(path)
        return f

    def _read(self, path: str, f: _Follow, emit: Emit) -> None:
        while True:
            data = f.fh.read(CHUNK)
            if not data:
                return
            joined = f.buf + data
            # a line holding a hole is what follows it (parsers.after_hole): the unfinished line kept is then a
            # suffix of the bytes read, so pos and tail below stay the file's own
            holes = 0 in data
            lines = (drop_holes(joined) if holes else joined).split(b"\n")
            f.buf = lines.pop()
            if len(f.buf) > MAX_LINE:  # no newline for a long way: pass the head on, keep reading
                lines.append(f.buf)
                f.buf = b""
            batch = []
            for raw in lines:
                batch.append(Record(self.name, raw.decode("utf-8", "replace").rstrip("\r"), stream=path))
            start, tail = f.pos, f.tail  # where `joined` begins, and the TAIL bytes before it
            f.pos = f.fh.tell() - len(f.buf)  # just after the last complete line
            consumed = len(joined) - len(f.buf)
            f.tail = (f.tail + joined[max(0, consumed - TAIL):consumed])[-TAIL:] if consumed else f.tail
            if batch:
                if len(batch) > SLICE and not holes:  # (a hole dropped: the lines' lengths are not the file's)
                    self._mark(path, f.inode, batch, lines, joined, start, tail)
                self.positions[path] = [f.inode, f.pos, _crc(f.tail)]
                batch[-1].cursor = {p: list(v) for p, v in self.positions.items()}
                emit(batch)

    def _mark(self, path: str, inode: int, batch: list[Record], lines: list[bytes], joined: bytes, start: int,
              tail: bytes) -> None:
        """Every SLICE-th record of a batch but its last gets the cursor of the offset just after its line (each
        line but the batch's last ends with a newline in `joined`, which begins at `start`, `tail` before it)."""
        rel, done = 0, 0
        for i in range(SLICE - 1, len(batch) - 1, SLICE):
            rel += sum(map(len, lines[done:i + 1])) + i + 1 - done
            done = i + 1
            cursor = {p: list(v) for p, v in self.positions.items()}
            cursor[path] = [inode, start + rel, _crc((tail + joined[max(0, rel - TAIL):rel])[-TAIL:])]
            batch[i].cursor = cursor

    def _read_newer_generations(self, path: str, inode: int, since: float, emit: Emit) -> None:
        """Rotated files newer than the one we were reading (inode), oldest first, each from its start."""
        newer = []
        for candidate in self._rotations(path):
            try:
                st = os.stat(candidate)
            except OSError:
                continue
            if st.st_ino != inode and st.st_mtime >= since:
                newer.append((st.st_mtime, candidate))
        for _, candidate in sorted(newer):
            try:
                with open(candidate, "rb") as fh:
                    self._read(path, _Follow(fh, os.fstat(fh.fileno()).st_ino, 0), emit)
            except OSError:
                continue

    # ---- finding where we were --------------------------------------------------------------------------

    @staticmethod
    def _rotations(path: str) -> list[str]:
        """`<path>.1`, `<path>-20261122`, ... that are regular files; compressed generations are left alone
        (written long ago)."""
        out = []
        for c in glob.glob(glob.escape(path) + ".*") + glob.glob(glob.escape(path) + "-*"):
            if c.endswith((".gz", ".xz", ".bz2", ".zst")):
                continue
            try:
                if stat.S_ISREG(os.stat(c).st_mode):
                    out.append(c)
            except OSError:
                continue
        return out

    @classmethod
    def _rotated(cls, path: str, inode: int) -> str | None:
        for candidate in cls._rotations(path):
            try:
                if os.stat(candidate).st_ino == inode:
                    return candidate
            except OSError:
                continue
        return None

    @classmethod
    def _newest_copy(cls, path: str, size_at_least: int, crc: int = -1) -> str | None:
        """The newest rotated copy at least `size_at_least` long whose TAIL bytes before that offset have the
        CRC `crc` (when known): the copy holding what we had read, and what came after it."""
        best: tuple[float, str] | None = None
        for candidate in cls._rotations(path):
            try:
                st = os.stat(candidate)
                if not stat.S_ISREG(st.st_mode) or st.st_size < size_at_least:
                    continue
                if crc >= 0 and size_at_least and cls._crc_at(candidate, size_at_least) != crc:
                    continue
            except OSError:
                continue
            best = max(best or (st.st_mtime, candidate), (st.st_mtime, candidate))
        return best[1] if best else None

    def _legacy(self, path: str) -> tuple[int, int, int] | None:
        """The offset an earlier version (pygtail) kept for this path, so an upgrade does not re-read it."""
        import hashlib  # noqa: PLC0415 - once per path at start

        digest = hashlib.sha1(path.encode()).hexdigest()[:12]
        try:
            inode, offset = (int(x) for x in (self.legacy_dir / f"{Path(path).name}.{digest}.offset")
                             .read_text().split())
            return inode, offset, -1
        except (OSError, ValueError):
            return None
