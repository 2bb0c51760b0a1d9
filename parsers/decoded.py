"""Compressed streams read as the bytes they hold, the one decoder of `gpu-npd parse` / `gpu-npd triage`'s inputs
(offline/inputs.py) and of the agent's rotated pod logs (agent/sources/podlogs.py, the kubelet's `.gz`).

`Decoded` reads a stream it is handed (gzip, xz, bzip2, and zstd where Python has `compression.zstd`) as its tools do:
concatenated streams one after another, zero padding and trailing bytes that are no stream ignored.  A stream cut
short (its trailer or last blocks missing, or a later stream cut inside its magic bytes: a copy off a dying node, a
compression stopped) or corrupt gives every byte that decodes, then ends; `damage` says why, for its caller to say
once with the file's name.  (gzip.GzipFile raises at the read that meets the cut, the bytes that read decoded lost
with it.)  Each codec's module is imported when a stream of it is first met: zlib is the standard library's, lzma
and bz2 are loaded by the first xz or bzip2 stream only.
"""

from __future__ import annotations

import importlib
import io
import zlib
from typing import Any, BinaryIO, Callable, NamedTuple

RAW_CHUNK = 1 << 16  # bytes read of an input at once (offline/inputs.py's buffers too)
OUT_CHUNK = 1 << 18  # decoded bytes asked of a decompressor at once: a bomb's output is bounded per call
GZIP_MAGIC = b"\x1f\x8b"
XZ_MAGIC = b"\xfd7zXZ\x00"
BZIP2_MAGIC = b"BZh"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


class _Zlib:
    """zlib's decompressor (gzip framing) in the shape of lzma's and bz2's: `needs_input`, `decompress(data, max)`,
    `eof`, `unused_data`."""

    def __init__(self) -> None:
        self._z = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        self._full = False  # the last call filled its max_length: more output may be held

    @property
    def needs_input(self) -> bool:
        return not self._z.unconsumed_tail and not self._full

    @property
    def eof(self) -> bool:
        return self._z.eof

    @property
    def unused_data(self) -> bytes:
        return self._z.unused_data

    def decompress(self, data: bytes, max_length: int) -> bytes:
        out = self._z.decompress(self._z.unconsumed_tail + data if self._z.unconsumed_tail else data, max_length)
        self._full = len(out) == max_length
        return out


class Codec(NamedTuple):
    name: str
    magic: bytes
    module: str  # imported when a stream of this codec is first met: a plain log's run imports none of them
    new: Callable[[Any], object]  # (the module) a decompressor for one stream: needs_input, decompress(data, max), eof
    errors: Callable[[Any], tuple[type[BaseException], ...]]  # (the module) what its decompress raises on bad data

    def load(self) -> tuple[Callable[[], object], tuple[type[BaseException], ...]] | None:
        """(a new decompressor, its errors), or None where this Python has no such module."""
        try:
            module = importlib.import_module(self.module)
        except ImportError:
            return None
        return (lambda: self.new(module)), self.errors(module)


CODECS: tuple[Codec, ...] = (
    Codec("gzip", GZIP_MAGIC, "zlib", lambda _: _Zlib(), lambda m: (m.error,)),
    Codec("xz", XZ_MAGIC, "lzma", lambda m: m.LZMADecompressor(format=m.FORMAT_XZ), lambda m: (m.LZMAError,)),
    Codec("bzip2", BZIP2_MAGIC, "bz2", lambda m: m.BZ2Decompressor(), lambda _: (OSError, ValueError)),
    # Python 3.14's own zstd (PEP 784): the same decompressor shape as lzma's; no package is added for it
    Codec("zstd", ZSTD_MAGIC, "compression.zstd", lambda m: m.ZstdDecompressor(), lambda m: (m.ZstdError,)),
)
GZIP = CODECS[0]


class Decoded(io.RawIOBase):
    """The content of a compressed stream (its concatenated streams, as `gzip -dc`, `xz -dc`, `bzip2 -dc` give),
    decoded as far as it goes; `damage` says why decoding stopped early.  Zero bytes between or after streams (tape
    or stream padding) and anything after them that is not another stream are ignored, as gzip(1) ignores them."""

    def __init__(self, raw: BinaryIO, codec: Codec):
        self._raw, self.codec = raw, codec
        self._new, self._errors = codec.load()  # type: ignore[misc]  # (_codec gives only codecs that load)
        self._d = None  # the decompressor of the stream being read; None between streams
        self._carry = b""  # input read but not yet given to a decompressor
        self._pending = bytearray()
        self._done = False
        self.consumed = 0  # compressed bytes read
        self.damage: str | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        want = min(len(buf), OUT_CHUNK)
        while len(self._pending) < want and not self._done:
            self._fill()
        n = min(len(buf), len(self._pending))
        buf[:n] = self._pending[:n]
        del self._pending[:n]
        return n

    def _read(self) -> bytes:
        data = self._raw.read(RAW_CHUNK)
        self.consumed += len(data)
        return data

    def _cut(self) -> str:
        return f"{self.codec.name} stream truncated after {self.consumed} compressed bytes"

    def _fill(self) -> None:
        magic = self.codec.magic
        if self._d is None:  # a stream may start here
            head = self._carry.lstrip(b"\0")
            if len(head) < len(magic):
                data = self._read()
                if not data:  # the end (after zero bytes, or a few that are no stream); a stream cut inside its
                    if head and magic.startswith(head):  # magic is one cut short, as gzip(1), xz(1), bzip2(1) say
                        self.damage = self._cut()
                    self._done = True
                    return
                head = (head + data).lstrip(b"\0")
            self._carry = head
            if len(head) < len(magic):
                return
            if not head.startswith(magic):
                self._done = True  # trailing bytes that are no stream: ignored, as gzip(1) ignores them
                return
            self._d = self._new()
            return
        d = self._d
        if self._carry:
            data, self._carry = self._carry, b""
        elif d.needs_input:  # type: ignore[attr-defined]
            data = self._read()
            if not data:
                self.damage = self._cut()
                self._done = True
                return
        else:
            data = b""
        try:
            self._pending += d.decompress(data, OUT_CHUNK)  # type: ignore[attr-defined]
        except (*self._errors, EOFError) as exc:
            self.damage = f"{self.codec.name} stream corrupt after {self.consumed} compressed bytes ({exc})"
            self._done = True
            return
        if d.eof:  # type: ignore[attr-defined]  # another stream may follow (gzip -c a >> b)
            self._carry, self._d = d.unused_data, None  # type: ignore[attr-defined]
