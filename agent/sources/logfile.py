"""Log files followed like `tail -F`, at least once: rename and copytruncate rotation, files that do not exist
yet, bytes decoded leniently (an invalid byte becomes U+FFFD, never an error).

Positions are not saved by this source: each batch carries the cursor `{path: [inode, offset]}` of the
bytes it holds, and the agent stores it with the state only after the batch is processed. A SIGKILL
therefore replays at most what was read since the last state write (about a second), and because counter
totals are saved in the same atomic state write, the replay is counted once. A file rotated while the
agent was down is found again by its inode (`<path>.1`, `<path>-YYYYMMDD`, ...) and finished first.

A followed file that disappears (deleted, or renamed away with no new file in its place) is drained to its
end; missing for longer than `gone_grace_seconds` it makes the source down (`Source.gone`: a rotation, where
the new file follows within seconds, never does), and when a file is back under that name it is read from
its start. A path never seen (configured, not yet created) is waited for quietly, as `tail -F` does.
"""

from __future__ import annotations

import glob
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from . import Emit, MissingInputs, Record, Source, SourceAbsent

log = logging.getLogger("gpu_npd.files")
POLL_SECONDS = 0.25
GONE_GRACE_SECONDS = 30.0
CHUNK = 1 << 16
MAX_LINE = 64 << 10  # a "line" longer than this (no newline in sight) is cut and passed on, not buffered


@dataclass
class _Follow:
    fh: BinaryIO
    inode: int
    pos: int  # offset just after the last complete line passed on
    buf: bytes = field(default=b"")


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
        self.positions: dict[str, list[int]] = {
            p: [int(v[0]), int(v[1])] for p, v in (cursor or {}).items()
            if p in self.paths and isinstance(v, (list, tuple)) and len(v) == 2
            and all(isinstance(x, int) and x >= 0 for x in v)}
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

    def run(self, emit: Emit, stop: threading.Event) -> None:
        if self.optional and not any(os.path.exists(p) for p in self.paths):
            raise SourceAbsent(f"source {self.name}: {', '.join(self.paths)} not present on this host; not followed")
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
        f = self._open.get(path)
        if f is None:
            f = self._start(path, emit)
            if f is None:
                return  # not there yet: keep waiting
        self._read(path, f, emit)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
        if st is None or st.st_ino != f.inode:  # renamed away or deleted
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
            copy = self._newest_copy(path, f.pos)
            if copy is not None:  # what was written between our last read and the copy is only there
                try:
                    with open(copy, "rb") as fh:
                        fh.seek(f.pos)
                        self._read(path, _Follow(fh, f.inode, f.pos), emit)
                except OSError:
                    pass
            f.fh.seek(0)
            f.pos, f.buf = 0, b""
            self._read(path, f, emit)

    def _start(self, path: str, emit: Emit) -> _Follow | None:
        if path in self._vanished:  # its last file was read to the end when it went: this one is new
            f = self._open_at(path, 0)
            if f is not None:
                log.info("%s is back; reading it from its start", path)
                self._vanished.discard(path)
            return f
        inode, offset = self.positions.get(path) or self._legacy(path) or (None, 0)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        if inode is not None and st.st_ino != inode:
            old = self._rotated(path, inode)  # rotated while we were down: finish the old file first
            if old is not None:
                try:
                    with open(old, "rb") as fh:
                        if os.fstat(fh.fileno()).st_size >= offset:
                            fh.seek(offset)
                            self._read(path, _Follow(fh, inode, offset), emit)
                        self._read_newer_generations(path, inode, os.fstat(fh.fileno()).st_mtime, emit)
                except OSError:
                    pass
            offset = 0
        elif st.st_size < offset:
            offset = 0  # truncated while we were down
        return self._open_at(path, offset)

    def _open_at(self, path: str, offset: int) -> _Follow | None:
        try:
            fh = open(path, "rb")
        except FileNotFoundError:
            return None
        fh.seek(offset)
        f = self._open[path] = _Follow(fh, os.fstat(fh.fileno()).st_ino, offset)
        self.positions[path] = [f.inode, f.pos]
        self.missing.back(path)
        return f

    def _read(self, path: str, f: _Follow, emit: Emit) -> None:
        while True:
            data = f.fh.read(CHUNK)
            if not data:
                return
            f.buf += data
            lines = f.buf.split(b"\n")
            f.buf = lines.pop()
            if len(f.buf) > MAX_LINE:  # no newline for a long way: pass the head on, keep reading
                lines.append(f.buf)
                f.buf = b""
            batch = []
            for raw in lines:
                batch.append(Record(self.name, raw.decode("utf-8", "replace").rstrip("\r"), stream=path))
            f.pos = f.fh.tell() - len(f.buf)  # just after the last complete line
            if batch:
                self.positions[path] = [f.inode, f.pos]
                batch[-1].cursor = {p: list(v) for p, v in self.positions.items()}
                emit(batch)

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
        """`<path>.1`, `<path>-20261122`, ...; compressed generations are left alone (written long ago)."""
        return [c for c in glob.glob(glob.escape(path) + ".*") + glob.glob(glob.escape(path) + "-*")
                if not c.endswith((".gz", ".xz", ".bz2", ".zst"))]

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
    def _newest_copy(cls, path: str, size_at_least: int) -> str | None:
        best: tuple[float, str] | None = None
        for candidate in cls._rotations(path):
            try:
                st = os.stat(candidate)
            except OSError:
                continue
            if st.st_size >= size_at_least:
                best = max(best or (st.st_mtime, candidate), (st.st_mtime, candidate))
        return best[1] if best else None

    def _legacy(self, path: str) -> tuple[int, int] | None:
        """The offset an earlier version (pygtail) kept for this path, so an upgrade does not re-read it."""
        import hashlib  # noqa: PLC0415 - once per path at start

        digest = hashlib.sha1(path.encode()).hexdigest()[:12]
        try:
            inode, offset = (int(x) for x in (self.legacy_dir / f"{Path(path).name}.{digest}.offset")
                             .read_text().split())
            return inode, offset
        except (OSError, ValueError):
            return None
