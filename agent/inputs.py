"""Opening what `gpu-npd parse` is handed: files, .gz files (by magic bytes) and stdin."""

from __future__ import annotations

import gzip
import sys
from contextlib import contextmanager
from typing import BinaryIO, Iterator

GZIP_MAGIC = b"\x1f\x8b"


@contextmanager
def open_input(path: str) -> Iterator[BinaryIO]:
    """Yield a binary stream for `path` (`-` is stdin); gzip is detected by content."""
    if path == "-":
        raw: BinaryIO = sys.stdin.buffer
        yield gzip.GzipFile(fileobj=raw) if raw.peek(2)[:2] == GZIP_MAGIC else raw  # type: ignore[attr-defined]
        return
    with open(path, "rb") as fh:
        if fh.peek(2)[:2] == GZIP_MAGIC:
            with gzip.GzipFile(fileobj=fh) as gz:
                yield gz  # type: ignore[misc]
        else:
            yield fh
