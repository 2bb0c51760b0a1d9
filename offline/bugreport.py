"""An nvidia-bug-report.log read as one report: its year, and each kernel line's occurrence counted once.

nvidia-bug-report.sh (the driver's; its 390.48 copy: sakjain92/Fractional-GPUs
driver/NVIDIA-Linux-x86_64-390.48/nvidia-bug-report.sh) writes a header (`Start of NVIDIA bug report log file`, then
`Date: $(date)`), and copies the kernel's lines more than once: its "Scanning kernel log files" section greps the
driver's lines (`-e NVRM -e nvidia-`) out of `/var/log/messages`, `kern.log`, `kernel.log`, `/var/log/dmesg` (each a
`  <path>:` subsection) and of `journalctl -b -0`, `-1`, `-2` (`  journalctl -b N:`), and its "dmesg:" section is
the whole ring buffer.  So one Xid of the running boot is there two or three times: "Nov 16 04:38:20 host kernel:
[ 1372.5] NVRM: Xid .." in kern.log, "Nov 16 04:38:20 host kernel: NVRM: Xid .." in the journal's subsection,
"[ 1372.5] NVRM: Xid .." in dmesg's.

`Copies` says which findings are such copies: a finding is one when a line of an earlier section said the same
thing at the same time, by any of the stamps the two share (`_keys`): the wall clock's second (kern.log and the
journal), the kernel's uptime (kern.log and dmesg, `/var/log/dmesg` and dmesg), or the boot the two sections hold
(the journal's `-b -0` and dmesg, whose lines share no stamp).  Counted per section: a line said twice in one second
is two occurrences, and its copies in a later section are two copies, not one (a section's n-th occurrence of a key
is a copy while an earlier section had n of it).  A syslog file read without uptimes (RHEL's messages) and a dmesg
with no journal subsection share no stamp: their copies are counted twice still.

`year_of` reads the header's `Date:` for the year of the syslog stamps that carry none (`gpu-npd parse --year`
overrides it), and `Copies` moves a stamp that year puts after the report (a December line in a January report) to
the year before.  Pure: bytes and findings in, nothing read or written here.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import OrderedDict
from datetime import datetime, timedelta
from typing import BinaryIO, Iterable, Iterator

from parsers.bounded import keep_newest
from parsers.finding import Finding
from parsers.prefilter import blake2b  # BLAKE2 without hashlib's load of OpenSSL (prefilter's import says why)

START = b"Start of NVIDIA bug report log file"  # the header's first line, within the report's first block
TAIL_MAX = 256  # the most of a read's last line kept to find a header the next read completes (b"\0": longer, none)
MAX_KEYS = 200_000  # keys of findings remembered (oldest forgotten): a report of a million Xids stays in bounds
# sections held (a real report has a few hundred); past it the oldest half is forgotten, a line in one of those then
# read as in the newest forgotten: a crafted report of nothing but headers stays in bounds
MAX_SECTIONS = 10_000
ONE_SECOND = timedelta(seconds=1)
SLACK = timedelta(days=1)  # a stamp this much after the report's Date (a zone apart) is last year's

# A line that begins a section (each after a "\n"; matched in the raw bytes as they are read): the separator every
# section starts with, the kernel-log subsections, "dmesg:".  The boot each holds: "0" the running one (dmesg, `-b
# -0`), "-1", "-2"; None: a file of any boots (kern.log, messages) or a section that is no kernel log.
_HEADER = re.compile(rb"\n(?:(_{44})|  (?:/var/log/\S+|journalctl -b (-?\d+)):|(dmesg):)\r?(?=\n)")
_MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                       "Dec"), 1)}
# `date` in the C locale ("Mon Dec 21 01:42:03 MST 2015"), in zh_CN's ("2019年 11月 16日 星期六 13:31:02 CST"); any
# other: its year alone (a four-digit number), so no stamp is moved back a year
_DATE_C = re.compile(r"^Date: \w{3} (\w{3}) +(\d{1,2}) (\d\d):(\d\d):(\d\d) .*?(\d{4})\s*$", re.M)
_DATE_CJK = re.compile(r"^Date: (\d{4})年 *(\d{1,2})月 *(\d{1,2})日 .*?(\d\d):(\d\d):(\d\d)", re.M)
_DATE_YEAR = re.compile(r"^Date: .*?(?<!\d)((?:19|20)\d\d)(?!\d)", re.M)


def is_report(head: bytes) -> bool:
    return START in head


def year_of(head: bytes) -> tuple[int | None, datetime | None]:
    """(the year, the time) of the report's `Date:` line in its first block; the time None where its month is a
    locale's word, both None where the line has no year."""
    text = head.decode("utf-8", "replace")
    m = _DATE_C.search(text)
    if m and m[1] in _MONTHS:
        mon, day, h, mi, s, year = m.groups()
        return int(year), _when(int(year), _MONTHS[mon], day, h, mi, s)
    m = _DATE_CJK.search(text)
    if m:
        year, mon, day, h, mi, s = m.groups()
        return int(year), _when(int(year), int(mon), day, h, mi, s)
    m = _DATE_YEAR.search(text)
    return (int(m[1]), None) if m else (None, None)


def _when(year: int, month: int, day: str, h: str, mi: str, s: str) -> datetime | None:
    try:
        return datetime(year, month, int(day), int(h), int(mi), int(s))
    except ValueError:
        return None


class Sections:
    """A report's stream, read as it is: each read's bytes also searched for the lines that begin a section
    (`_HEADER`), whose line numbers (the scanner's: the first line is 1) and boots `era` answers for a finding's
    line.  Nothing but the searching is added to a read."""

    __slots__ = ("_read", "_tail", "_line", "_starts", "_boots", "_forgotten", "_forgotten_boot")

    def __init__(self, fp: BinaryIO) -> None:
        self._read = getattr(fp, "read1", None) or fp.read
        # what the last read left (from its last newline on), for a header a read split: "\n" before the first
        # line; b"\0" after a line too long to be a header (no match starts in it: each needs its "\n")
        self._tail = b"\n"
        self._line = 1  # the number of the line that begins after the tail's first byte
        self._starts: list[int] = []  # each section's first line, ascending
        self._boots: list[str | None] = []  # the boot each holds
        self._forgotten, self._forgotten_boot = 0, None  # sections forgotten (MAX_SECTIONS), the newest one's boot

    def read1(self, n: int = -1) -> bytes:
        data = self._read(n)
        if not data:
            return data
        first, tail = data.find(b"\n"), self._tail
        if first == -1:  # (still in a line: the tail grows, or is too long to be a header's)
            if tail != b"\0":
                self._tail = tail + data if len(tail) + len(data) <= TAIL_MAX else b"\0"
            return data
        line = self._line  # the line beginning after data[at - 1] (newlines counted once, header to header)
        # a header the reads split: the tail's line joined (its own bytes alone copied, not the read's)
        if tail != b"\0" and (m := _HEADER.match(tail + data[:first + 1])):
            self._begin(line, m)
        cut, at = data.rfind(b"\n"), 0
        for m in _HEADER.finditer(data, first, cut + 1):
            line += data.count(b"\n", at, m.start() + 1)
            at = m.start() + 1
            self._begin(line, m)
        self._line = line + data.count(b"\n", at, cut + 1)
        self._tail = data[cut:] if len(data) - cut <= TAIL_MAX else b"\0"
        return data

    def _begin(self, line: int, m: re.Match) -> None:
        """A section that begins at `line`, its header `m`."""
        self._starts.append(line)
        self._boots.append(str(int(m[2])) if m[2] is not None else "0" if m[3] is not None else None)  # -0: 0
        if len(self._starts) > MAX_SECTIONS:
            self._forget(MAX_SECTIONS // 2)

    read = read1

    def _forget(self, n: int) -> None:
        self._forgotten, self._forgotten_boot = self._forgotten + n, self._boots[n - 1]
        del self._starts[:n], self._boots[:n]

    def era(self, line: int | None) -> tuple[int, str | None]:
        """(the section, numbered from 1, and the boot it holds) of a finding's line; (0, None) before the first."""
        at = 0 if line is None else bisect_right(self._starts, line)
        return self._forgotten + at, self._boots[at - 1] if at else self._forgotten_boot


class Copies:
    """The findings of one report, each occurrence once (the module's doc): `keep` the findings in the order read."""

    def __init__(self, sections: Sections, reported: datetime | None = None, year: int | None = None) -> None:
        self.sections, self.reported, self.year = sections, reported, year
        # key -> [the section it was last seen in, how often there, the most any earlier section had]
        self._seen: OrderedDict = OrderedDict()
        self.copies = 0

    def keep(self, findings: Iterable[Finding]) -> Iterator[Finding]:
        for f in findings:
            if self.reported is not None and f.timestamp is not None and f.timestamp.year == self.year:
                self._last_year(f)
            if not self._copy(f):
                yield f
            else:
                self.copies += 1

    def _last_year(self, f: Finding) -> None:
        ts = f.timestamp  # (keep's: a stamp, and a report's date)
        if ts.replace(tzinfo=None) > self.reported + SLACK:  # type: ignore[union-attr,operator]
            try:
                f.timestamp = ts.replace(year=ts.year - 1)
            except ValueError:  # Feb 29th of no leap year: left as read
                pass

    def _copy(self, f: Finding) -> bool:
        section, boot = self.sections.era(f.line)
        seen, copy = self._seen, False
        for key in _keys(f, boot):
            entry = seen.get(key)
            if entry is None:
                entry = [section, 0, 0]
            elif entry[0] != section:
                entry[:] = [section, 0, max(entry[2], entry[1])]
            entry[1] += 1
            before = entry[2]
            if key[0] == "w":  # a second apart: a syslog daemon's stamp of a boot's first lines, the journal's
                for near in (-ONE_SECOND, ONE_SECOND):
                    other = seen.get(("w", key[1] + near, *key[2:]))
                    if other is not None:
                        before = max(before, other[2] if other[0] == section else max(other[1], other[2]))
            copy = copy or entry[1] <= before
            keep_newest(seen, key, entry, MAX_KEYS)
        return copy


def _keys(f: Finding, boot: str | None) -> list[tuple]:
    """The stamps a copy of `f`'s line in another section may share with it (the module's doc)."""
    if f.timestamp is None and f.uptime is None and boot is None:  # (no stamp: nothing to share, no digest)
        return []
    keys: list[tuple] = []
    # what the line says, 16 bytes whatever its length (a message is up to 4,096 characters, MAX_KEYS of them held):
    # blake2b, no collision in practice (never hash(): 64 bits, and a crafted line could choose one)
    said = blake2b(f"{f.kind}\0{f.message}".encode("utf-8", "surrogatepass"), digest_size=16).digest()
    if f.timestamp is not None:
        keys.append(("w", f.timestamp.replace(microsecond=0, tzinfo=None), said))
    if f.uptime is not None:
        keys.append(("u", f.uptime, said))
    if boot is not None:
        keys.append(("b", boot, said))
    return keys
