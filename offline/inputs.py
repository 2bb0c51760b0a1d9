"""Opening what `gpu-npd parse` is handed: files, .gz files (by magic bytes) and stdin.

A gzip stream is decoded by a tolerant reader: a truncated or corrupt `.gz` (a log copied off a dying node)
gives every byte that decodes, and the damage is reported afterwards as `InputDamaged`, not instead.
"""

from __future__ import annotations

import io
import sys
import zlib
from contextlib import contextmanager
from typing import BinaryIO, Callable, Iterator

GZIP_MAGIC = b"\x1f\x8b"
RAW_CHUNK = 1 << 16


class InputDamaged(Exception):
    """The input ended early or stopped decoding; everything before the damage was delivered."""


class TolerantGzip(io.RawIOBase):
    """Concatenated gzip members, decoded as far as they go; `damage` says why decoding stopped early."""

    def __init__(self, raw: BinaryIO):
        self._raw = raw
        self._z = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        self._pending = b""
        self._done = False
        self._in_member = False  # bytes of a member not yet complete were fed to the decompressor
        self.consumed = 0  # compressed bytes read
        self.damage: str | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        while not self._pending and not self._done:
            self._fill()
        n = min(len(buf), len(self._pending))
        buf[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _fill(self) -> None:
        data = self._z.unconsumed_tail or self._raw.read(RAW_CHUNK)
        if not data:
            if not self._z.eof and self._in_member:
                self.damage = f"gzip stream truncated after {self.consumed} compressed bytes"
            self._done = True
            return
        self.consumed += len(data) - len(self._z.unconsumed_tail)
        self._in_member = True
        try:
            self._pending = self._z.decompress(data)
        except zlib.error as exc:
            self.damage = f"gzip stream corrupt after {self.consumed} compressed bytes ({exc})"
            self._done = True
            return
        if self._z.eof:  # another member may follow (gzip -c a >> b): start over on what is left
            rest = self._z.unused_data
            self._z = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            self._in_member = bool(rest)  # a member ended where the input may end: not a truncation
            if rest:
                self._pending += self._decompress_rest(rest)

    def _decompress_rest(self, rest: bytes) -> bytes:
        if not rest.startswith(GZIP_MAGIC):
            self._done = True  # trailing garbage after a complete member: gzip(1) ignores it too
            return b""
        try:
            return self._z.decompress(rest)
        except zlib.error as exc:
            self.damage = f"gzip stream corrupt after {self.consumed} compressed bytes ({exc})"
            self._done = True
            return b""


class _Counting(io.RawIOBase):
    """A raw stream that reports how many bytes each read returned."""

    def __init__(self, raw: BinaryIO, count: Callable[[int], None]):
        self._raw, self._count = raw, count

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        n = self._raw.readinto(buf)  # type: ignore[attr-defined]
        if n:
            self._count(n)
        return n or 0


class _UntilEof(io.RawIOBase):
    """A terminal's stream that ends at the first end-of-file (Ctrl-D): a terminal's EOF is not sticky, and a read
    after it would wait for more typing, so that one Ctrl-D would not end the input."""

    def __init__(self, raw: BinaryIO):
        self._raw, self._ended = raw, False

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        if self._ended:
            return 0
        n = self._raw.readinto(buf) or 0  # type: ignore[attr-defined]
        self._ended = n == 0
        return n


@contextmanager
def open_input(path: str, count: Callable[[int], None] | None = None) -> Iterator[BinaryIO]:
    """Yield a binary stream for `path` (`-` is stdin); gzip is detected by content. Raises InputDamaged at
    the end of the block when a gzip stream was truncated or corrupt (after its readable part was used).
    `count`, when given, is called with the number of bytes read from the file (compressed bytes for .gz)."""
    if path == "-":
        raw: BinaryIO = sys.stdin.buffer
        if sys.stdin.isatty():  # typed or pasted: one Ctrl-D ends it
            raw = io.BufferedReader(_UntilEof(getattr(raw, "raw", raw)),  # type: ignore[arg-type]
                                    buffer_size=RAW_CHUNK)
        if count is not None:
            raw = io.BufferedReader(_Counting(raw, count), buffer_size=RAW_CHUNK)  # type: ignore[arg-type]
        if raw.peek(2)[:2] == GZIP_MAGIC:  # type: ignore[attr-defined]
            yield from _gzip(raw)
        else:
            yield raw
        return
    with open(path, "rb", buffering=0 if count is not None else -1) as fh:
        if count is not None:
            fh = io.BufferedReader(_Counting(fh, count), buffer_size=RAW_CHUNK)  # type: ignore[arg-type]
        if fh.peek(2)[:2] == GZIP_MAGIC:
            yield from _gzip(fh)
        else:
            yield fh


def _gzip(raw: BinaryIO) -> Iterator[BinaryIO]:
    gz = TolerantGzip(raw)
    yield io.BufferedReader(gz, buffer_size=RAW_CHUNK)  # type: ignore[misc]
    if gz.damage:
        raise InputDamaged(gz.damage)
