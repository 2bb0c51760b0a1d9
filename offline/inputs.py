"""Opening what `gpu-npd parse` and `gpu-npd triage` are handed: files, stdin, compressed files, tar archives.

What a path holds is told by its first bytes, never by its name (`kern.log.2.gz` renamed, logrotate's `compresscmd`):

- gzip, xz and bzip2 are decoded by one tolerant reader (parsers/decoded.py `Decoded`, the agent's for its rotated
  pod logs too): a truncated or corrupt stream (a log copied off a dying node) gives every byte that decodes, and the
  damage is reported afterwards as `InputDamaged`, not instead.  Concatenated streams are read as their tools read
  them (`gzip -c a >> b`, pbzip2's, xz's with stream padding).
- A tar archive (plain or compressed: a sosreport, a must-gather, a `kubectl cp`'d bundle) gives its regular members
  one by one, each named `ARCHIVE:MEMBER`, members compressed in it decoded too; bounded (MAX_MEMBERS headers,
  MAX_ARCHIVE_BYTES of members), what was not read said.  Nothing is ever written: a member's name is only a name.
- What no reader here decodes is `NotText`, with the command that gives its text: a binary systemd journal
  (`journalctl --file`), zstd and lz4 (unless Python's own `compression.zstd` is there), zip, and any other binary
  content (NUL bytes laid out as in a binary format, or mostly control characters, in the first block).

Plain text costs one look at the first block (the hot path: no copy, no decoding).
"""

from __future__ import annotations

import errno
import io
import os
import posixpath
import re
import stat
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Iterator, TextIO

from parsers.decoded import CODECS, RAW_CHUNK, ZSTD_MAGIC, Codec, Decoded

SNIFF = 8192  # bytes of an input's start its kind is told from
JOURNAL_MAGIC = b"LPKSHHRH"  # systemd's journal file header
TAR_MAGIC_AT, TAR_MAGIC = 257, b"ustar"  # POSIX "ustar\0" and GNU "ustar  "
MAX_MEMBERS = 100_000  # tar headers read from one archive (a sosreport holds some 10,000)
MAX_ARCHIVE_BYTES = 16 << 30  # bytes of members read from one archive
JOURNAL_TEXT = "-o short-iso-precise --no-pager"  # the year, the zone and microseconds: what the envelope reads best


class InputDamaged(Exception):
    """The input ended early or stopped decoding; everything before the damage was delivered."""


class NotText(Exception):
    """The input is no text log that is read here: `what` it is, and `command`, a shell command that writes its text
    to stdout (None when there is none)."""

    def __init__(self, what: str, command: str | None = None):
        super().__init__(what)
        self.what, self.command = what, command

    def advice(self, then: str) -> str:
        """One line: what the input is, and the command that reads it (`then` after a pipe, e.g. `gpu-npd parse -`)."""
        return f"not a text log: {self.what}" + (f"; read it with `{self.command} | {then}`" if self.command else "")


# ---- what an input is ----------------------------------------------------------------------------------------------

_CONTROL = bytes(range(1, 9)) + bytes(range(0x0E, 0x1B)) + bytes(range(0x1C, 0x20)) + b"\x7f"  # not \t\n\v\f\r, ESC
_NOT_CONTROL = bytes(b for b in range(256) if b not in _CONTROL)
_NULS = re.compile(rb"\0+")
NUL_RUNS = 8  # runs of NUL bytes in the first block that make it a binary format's (a crash leaves one or two long ones)
CONTROL_SHARE = 0.08  # control characters among the first block's other bytes that make it binary


def binary(head: bytes) -> bool:
    """Whether the first block of an input is a binary format's, not a log's: NUL bytes spread through it (an
    executable, UTF-16, a database; not the run or two of zeros a crash leaves in a syslog file), or mostly control
    characters."""
    nul = head.count(0)
    if nul and len(_NULS.findall(head, 0, len(head))) > NUL_RUNS:
        return True
    return len(head.translate(None, _NOT_CONTROL)) > CONTROL_SHARE * (len(head) - nul)


def _unreadable(head: bytes) -> tuple[str, str | None] | None:
    """(what, the tool that writes its text given the file) of a format no reader here decodes; None otherwise."""
    if head.startswith(JOURNAL_MAGIC):
        return "a binary systemd journal", f"journalctl {JOURNAL_TEXT} --file"
    if head.startswith(ZSTD_MAGIC):
        return "zstd-compressed", "zstd -dc"
    if head.startswith(b"\x04\x22\x4d\x18"):
        return "lz4-compressed", "lz4 -dc"
    if head.startswith(b"PK\x03\x04"):
        return "a zip archive", "unzip -p"
    if head.startswith(b"7z\xbc\xaf\x27\x1c"):
        return "a 7-Zip archive", "7z x -so"
    return None


def _codec(head: bytes) -> Codec | None:
    for codec in CODECS:
        if head.startswith(codec.magic):
            if codec.name == "bzip2" and not (head[3:4].isdigit() and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90")):
                continue  # "BZh" opens text too: a bzip2 stream has its block size and a block's (or the end's) magic
            return codec if codec.load() is not None else None  # (zstd before 3.14: _unreadable says what reads it)
    return None


def _is_tar(head: bytes) -> bool:
    return head[TAR_MAGIC_AT:TAR_MAGIC_AT + len(TAR_MAGIC)] == TAR_MAGIC


def _peek(fp: BinaryIO) -> bytes:
    return fp.peek(SNIFF)[:SNIFF]  # type: ignore[attr-defined]


# ---- opening -------------------------------------------------------------------------------------------------------

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


class _UpTo(io.RawIOBase):
    """A file's bytes up to the size it had when opened: a log still being written (a job's output, appended to
    faster than it is read) is read to that point and ends, instead of never ending."""

    def __init__(self, raw: BinaryIO, size: int):
        self._raw, self._left = raw, size

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        if self._left <= 0:
            return 0
        view = memoryview(buf)
        n = self._raw.readinto(view[:self._left] if len(view) > self._left else view) or 0  # type: ignore[attr-defined]
        self._left -= n
        return n


def stdin() -> TextIO:
    """sys.stdin, or OSError where the command was started with it closed (`<&-`: Python's sys.stdin is None): the
    test `parse` and `triage` share before they read `-`, so it is an input that cannot be read, not a traceback (the
    progress bar's input_size reads sys.stdin itself: parse has left such a `-` out by then)."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, "stdin is closed")
    return sys.stdin


@contextmanager
def _raw(path: str, count: Callable[[int], None] | None) -> Iterator[BinaryIO]:
    """The bytes of `path` (`-`: stdin) as a buffered stream that can be peeked."""
    if path == "-":
        raw: BinaryIO = stdin().buffer
        if sys.stdin.isatty():  # typed or pasted: one Ctrl-D ends it
            raw = io.BufferedReader(_UntilEof(getattr(raw, "raw", raw)),  # type: ignore[arg-type]
                                    buffer_size=RAW_CHUNK)
        if count is not None:
            raw = io.BufferedReader(_Counting(raw, count), buffer_size=RAW_CHUNK)  # type: ignore[arg-type]
        elif not hasattr(raw, "peek"):
            raw = io.BufferedReader(raw, buffer_size=RAW_CHUNK)  # type: ignore[arg-type]
        yield raw
        return
    with open(path, "rb", buffering=0) as fh:
        st = os.fstat(fh.fileno())
        # a regular file is read to its size at opening (0: a /proc or /sys file, its size unknown, read to its end)
        raw = _UpTo(fh, st.st_size) if stat.S_ISREG(st.st_mode) and st.st_size else fh
        if count is not None:
            raw = _Counting(raw, count)  # type: ignore[arg-type]
        yield io.BufferedReader(raw, buffer_size=RAW_CHUNK)  # type: ignore[arg-type]


def _command(tool: str, path: str) -> str:
    import shlex  # noqa: PLC0415 - loaded by the first input that is no text log: plain logs start without it

    return f"{tool} {shlex.quote(path)}"


def _decoding(fp: BinaryIO) -> tuple[BinaryIO, Decoded | None, bytes]:
    """The text of a stream: itself, or decoded where its first bytes are a codec's (by content); its decoder (None
    when plain; its `damage` read after the text); and the text's first block, which tells what it holds."""
    head = _peek(fp)
    codec = _codec(head)
    if codec is None:
        return fp, None, head
    decoded = Decoded(fp, codec)
    text = io.BufferedReader(decoded, buffer_size=RAW_CHUNK)  # type: ignore[arg-type]
    return text, decoded, _peek(text)  # type: ignore[return-value]


def _text_or_raise(head: bytes, path: str, codec: Codec | None = None) -> None:
    """NotText for an input whose first block (no tar archive's: read_input reads those) is no text log."""
    found = _unreadable(head) if codec is None else None
    if found is not None:
        what, tool = found
        if path != "-":
            raise NotText(what, _command(tool, path))
        raise NotText(what, None if " --file" in tool or tool.startswith(("unzip ", "7z ")) else tool)  # (read no pipe)
    if binary(head):
        raise NotText(f"binary content{f' (inside its {codec.name} compression)' if codec else ''}")


# ---- archives ------------------------------------------------------------------------------------------------------

@dataclass
class Stream:
    """One text stream of an input: the file's own, or an archive member's."""

    name: str  # what findings and evidence name: the path ('-' for stdin), or ARCHIVE:MEMBER
    member: str | None  # the member's path in its archive, normalised (no leading '/', './' or '..'), or None
    fp: BinaryIO


@dataclass
class Notes:
    """What reading an archive met besides its text: members that are no log (`skipped`, not an error, as a binary
    file in a walked directory), and inputs that could not be read (`errors`: a log we cannot decode, a damaged
    member, the limits)."""

    skipped: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def shown(name: str) -> str:
    """A member's name as printed: control characters (a hostile name's terminal escapes) written as escapes."""
    return name if name.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in name)


def member_path(name: str) -> str:
    """A member's name as a relative path for naming hosts and ranks: '..', '.' and leading '/' dropped."""
    parts = [p for p in posixpath.normpath("/" + name).split("/") if p not in ("", ".", "..")]
    return "/".join(parts)


def read_input(path: str, count: Callable[[int], None] | None = None, notes: Notes | None = None,
               then: str = "gpu-npd parse -") -> Iterator[Stream]:
    """The text streams of `path`: one for a file (plain or compressed), one per readable member of a tar archive.
    Each stream is to be read before the next is asked for.  Raises NotText (before any stream) for an input that
    is no text log, InputDamaged after the last stream when the input's decoding (or the archive) broke off;
    members that are no log or cannot be read are listed in `notes` (`then` ends the command given for them)."""
    notes = notes if notes is not None else Notes()
    with _raw(path, count) as fp:
        text, decoded, head = _decoding(fp)
        if not _is_tar(head):
            _text_or_raise(head, path, decoded.codec if decoded is not None else None)
            yield Stream(path, None, text)
        else:
            try:
                yield from _members(text, path, notes, then)  # type: ignore[arg-type]
            except InputDamaged:
                if decoded is not None and decoded.damage:
                    raise InputDamaged(decoded.damage) from None
                raise
        if decoded is not None and decoded.damage:
            raise InputDamaged(decoded.damage)


class _Guarded(io.RawIOBase):
    """A member's stream that ends where the archive's data ends, instead of raising in its reader."""

    def __init__(self, fp: BinaryIO, error: type[Exception]):
        self._fp, self._error, self.damage = fp, error, None

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        try:
            return self._fp.readinto(buf) or 0  # type: ignore[attr-defined]
        except self._error as exc:  # tarfile's "unexpected end of data": the archive was cut inside this member
            self.damage = str(exc)
            return 0


def _tarinfo():  # noqa: ANN202
    """A TarInfo class (one per archive) that remembers why the last header read ended the archive: the end's zero
    block, or a truncated or invalid header (tarfile itself ends there without a word)."""
    import tarfile  # noqa: PLC0415 - loaded by the first archive: plain logs start without it

    class Info(tarfile.TarInfo):
        ended: tarfile.HeaderError | None = None

        @classmethod
        def frombuf(cls, buf, encoding, errors):
            try:
                return super().frombuf(buf, encoding, errors)
            except tarfile.HeaderError as exc:
                cls.ended = exc
                raise

    return Info


def _members(fp: BinaryIO, path: str, notes: Notes, then: str) -> Iterator[Stream]:
    import shlex  # noqa: PLC0415 - as tarfile
    import tarfile  # noqa: PLC0415 - as in _tarinfo

    info = _tarinfo()
    try:
        archive = tarfile.open(fileobj=fp, mode="r|", tarinfo=info)
    except tarfile.TarError as exc:
        raise InputDamaged(f"tar archive unreadable ({exc})") from None
    headers = read = 0
    while True:
        info.ended = None
        try:
            member = archive.next()
        except tarfile.TarError as exc:
            raise InputDamaged(f"tar archive corrupt after {read} members ({exc})") from None
        if member is None:
            if isinstance(info.ended, (tarfile.TruncatedHeaderError, tarfile.EmptyHeaderError)):
                raise InputDamaged(f"tar archive truncated after {headers} members")
            if isinstance(info.ended, tarfile.InvalidHeaderError):
                raise InputDamaged(f"tar archive corrupt after {headers} members (an invalid header)")
            return
        archive.members.clear()  # stream mode keeps every header read: not kept here
        headers += 1
        if headers > MAX_MEMBERS:
            notes.errors.append(f"{path}: more than {MAX_MEMBERS} members: the rest not read (a limit)")
            return
        if not member.isreg():  # directories, links, devices: no text of their own
            continue
        name = f"{path}:{shown(member.name)}"
        if read + member.size > MAX_ARCHIVE_BYTES:
            notes.errors.append(f"{name}: not read, nor the members after it: the archive's members pass "
                                f"{MAX_ARCHIVE_BYTES >> 30} GiB (a limit)")
            return
        read += member.size
        raw = _Guarded(archive.extractfile(member), tarfile.TarError)  # type: ignore[arg-type]
        body = io.BufferedReader(raw, buffer_size=RAW_CHUNK)  # type: ignore[arg-type]
        text, decoded, head = _decoding(body)  # type: ignore[arg-type]
        found = _unreadable(head) if decoded is None else None
        if _is_tar(head) or found is not None and found[0].endswith("archive"):
            notes.skipped.append(f"{name}: an archive inside the archive, not read (extract it)")
        elif found is not None:
            what, tool = found
            extract = shlex.quote(path), shlex.quote(member.name)
            command = (f"tar -xf {extract[0]} {extract[1]} && {_command(tool, member.name)}" if " --file" in tool
                       else f"tar -xOf {extract[0]} {extract[1]} | {tool}")
            notes.errors.append(f"{name}: {NotText(what, command).advice(then)}")
        elif binary(head):
            notes.skipped.append(f"{name}: binary, not read")
        else:
            yield Stream(name, member_path(member.name), text)  # type: ignore[arg-type]
            if decoded is not None and decoded.damage:
                notes.errors.append(f"{name}: {decoded.damage}")
        if raw.damage:
            raise InputDamaged(f"tar archive truncated inside {name}")
