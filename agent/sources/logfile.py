"""Log files followed like `tail -F` with pygtail: rename and copytruncate rotation, files that do not
exist yet, offsets kept across restarts (pygtail's offset files, in the state directory)."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from pygtail import Pygtail

from . import Emit, Record, Source

POLL_SECONDS = 0.25
BATCH = 1024


class LogFileSource(Source):
    name = "files"

    def __init__(self, paths: list[str], state_dir: str, poll_seconds: float = POLL_SECONDS):
        self.paths = list(paths)
        self.offset_dir = Path(state_dir) / "offsets"
        self.poll_seconds = poll_seconds
        self._seen: dict[str, tuple[int, int]] = {}  # path -> (inode, size) when last drained

    def offset_file(self, path: str) -> str:
        digest = hashlib.sha1(path.encode()).hexdigest()[:12]
        return str(self.offset_dir / f"{Path(path).name}.{digest}.offset")

    def run(self, emit: Emit, stop: threading.Event) -> None:
        self.offset_dir.mkdir(parents=True, exist_ok=True)
        while not stop.is_set():
            for path in self.paths:
                self._drain(path, emit)
            stop.wait(self.poll_seconds)

    def _drain(self, path: str, emit: Emit) -> None:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return  # not there yet: keep waiting
        if self._seen.get(path) == (st.st_ino, st.st_size):
            return
        tail = Pygtail(path, offset_file=self.offset_file(path), copytruncate=True, full_lines=True,
                       encoding="utf-8")
        batch: list[Record] = []
        for line in tail:
            batch.append(Record(self.name, line.rstrip("\n")))  # offsets live in pygtail's files
            if len(batch) >= BATCH:
                emit(batch)
                batch = []
        if batch:
            emit(batch)
        try:
            st = os.stat(path)
            self._seen[path] = (st.st_ino, st.st_size)
        except FileNotFoundError:
            self._seen.pop(path, None)
