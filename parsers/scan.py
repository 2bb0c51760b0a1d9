"""Streams in, findings out, in constant memory.

The stream is read a read at a time (`read1`: up to CHUNK of a file, what a pipe holds now, so the findings of a
live pipe's lines come as the lines arrive: `dmesg -w | gpu-npd parse`); the prefilter finds the few lines holding a
keyword and only those are decoded and classified.  Line numbers are counted with `bytes.count` between hits.
Lines longer than MAX_LINE are cut there (the rest of that line is skipped).  A line holding a run of NUL bytes
is the text after its last run (`after_hole`).
"""

from __future__ import annotations

import re
from typing import BinaryIO, Generator, Iterator

from .classify import Classifier, all_keywords, line_patterns
from .envelope import cri_split, is_cri_partial, join_cri, journal_text_record
from .finding import Finding
from .ports import LINK_KINDS, UnusedPorts, port_key
from .prefilter import Prefilter
from .records import BAR_TIMES, line_records

CHUNK = 8 << 20
# What is asked of a stream once a read came back short (a pipe's or a terminal's: what was there): a pipe's
# capacity.  read1(CHUNK) allocates the whole CHUNK each time, fresh pages faulted in for every 64 KiB a pipe gives
# (`cat big.log | gpu-npd parse` on the 1M-line mixes: system time 0.10 -> 0.15 s with read1(CHUNK), 0.04-0.07 s
# with this, measured when it was chosen: commit 907cb4d; no benchmark repeats it); this much comes from the heap,
# reused.
LIVE_READ = 64 << 10
MAX_LINE = 16 << 20
# At most this many CRI partial lines are joined into one logical line.
MAX_CRI_PARTS = 64


def after_hole(line: bytes) -> bytes:
    """A line holding a run of NUL bytes is the text after its last run: the run is a hole (blocks a crash left
    unwritten, the offset a writer without O_APPEND kept past copytruncate's truncation), and the next write lands
    right after it, with no newline between (kazu.tv/blog/2014/01/16/logrotate-copytruncate-file-size).  The one
    rule `gpu-npd parse` (`drop_holes`), `gpu-npd triage` (offline.triage_cli) and the agent's log files
    (agent.sources.logfile) read a hole by."""
    return line[line.rindex(0) + 1:] if 0 in line else line


def drop_holes(buf: bytes) -> bytes:
    """`buf` with each line `after_hole`, its newlines kept (line numbers unchanged); an unfinished last line is
    what follows its last NUL so far (a file suffix: a reader's offset of it stays true).  Called where `0 in buf`
    (a memchr: free for the buffers without a NUL, nearly all of them)."""
    return b"\n".join(map(after_hole, buf.split(b"\n")))


def decode(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").rstrip("\r")


class Scanner:
    def __init__(self, classifier: Classifier | None = None, prefilter: Prefilter | None = None):
        self.classifier = classifier or Classifier()
        self.prefilter = prefilter or Prefilter(all_keywords(), patterns=line_patterns(self.classifier.rules))

    def for_stream(self, by_host: bool = False) -> "Scanner":
        """A scanner for another stream: the same prefilter and classifier tables (Classifier.for_stream), its
        own stream context (open events, banners, boots and ports). `gpu-npd parse a b` takes one per file,
        so parsing files together equals parsing each alone.  `by_host`: one context per host the lines name
        (Classifier.for_stream: from the second host, or from the start after `classifier.hosts_apart()`), as if each
        node's lines were a file of its own."""
        return Scanner(self.classifier.for_stream(by_host), self.prefilter)

    def scan(self, fp: BinaryIO, name: str | None = None, chunk: int = CHUNK, first_line: int = 1) -> Iterator[Finding]:
        """The findings of a stream's lines.  `first_line`: the number of its first line, when `fp` continues a
        stream this scanner read before (a pod log read a poll at a time): a multi-line event's windows count lines
        of the stream, so an event whose lines two reads split is the one event a whole read finds."""
        lineno = first_line  # line number of the first line in the buffer being scanned
        carry = b""
        skipping = False  # inside the cut-off tail of an over-long line
        # one raw read where the stream has it: a buffered read(chunk) of a pipe waits for the whole chunk or the end
        read = fp.read1 if hasattr(fp, "read1") else fp.read
        size, first = chunk, True
        while True:
            data = read(size)
            if not data:
                break
            if len(data) < size and not first:  # (the first may be the rest of a peek's buffer, a file's too)
                size = min(chunk, LIVE_READ)
            first = False
            if skipping:
                nl = data.find(b"\n")
                hole = data.rfind(0, 0, len(data) if nl == -1 else nl)
                if hole != -1:  # the cut line ends in a hole: what follows it is the next write (after_hole)
                    data, skipping = data[hole + 1:], False
                elif nl == -1:
                    continue
                else:
                    data, skipping = data[nl + 1:], False
                    lineno += 1
            buf = carry + data if carry else data
            if 0 in buf:  # a hole (after_hole): dropped before the cut, so a long one never reaches MAX_LINE
                buf = drop_holes(buf)
            cut = buf.rfind(b"\n")
            if cut == -1:
                if len(buf) >= MAX_LINE:
                    yield from self._scan_buffer(buf, MAX_LINE, lineno, name)
                    carry, skipping = b"", True
                else:
                    carry = buf
                continue
            cut = hold_back_cri_partials(buf, cut)
            if cut == -1:
                carry = buf
                continue
            # the lines before `cut`, scanned in place; the line number of the next buffer's first line
            lineno = (yield from self._scan_buffer(buf, cut, lineno, name)) + 1
            carry = buf[cut + 1:]
        if carry and not skipping:
            yield from self._scan_buffer(carry, len(carry), lineno, name)

    def _scan_buffer(self, buf: bytes, limit: int, lineno: int, name: str | None) -> Generator[Finding, None, int]:
        """Findings of the lines in buf[:limit], the first numbered `lineno`; returns the number of the line `limit`
        is on (the last line's, where it is the newline after it)."""
        done_to = marked = -1  # marked: the end of the last line read that holds " P " (a CRI partial line's mark)
        at = 0  # the offset whose line number `lineno` is (each newline counted once, whichever way a span moves)
        read, find, count = self.classifier.read, buf.find, buf.count
        cri_mark = _CRI_MARK.search
        for start, end, matched in self.prefilter.line_spans(buf, limit):
            if start <= done_to:  # a line of a CRI partial group read already
                if find(b" P ", start, end) != -1:
                    marked = end
                continue
            line = buf[start:end].decode("utf-8", "replace").rstrip("\r")  # (decode, inline: a call a line cost more)
            # whether the line or the one before it may be a CRI partial line, inline (a call per line cost more): a
            # partial line holds a keyword (CRI_PARTIAL_KEYWORDS), so the line before this one is a span given before
            # it; only a line holding " P " or right after one is looked at further (a substring test on the line in
            # hand: a search of the whole buffer for the mark, no mark in most logs, cost more than all those lines)
            if " P " in line:
                marked, near = end, True
            else:
                near = marked == start - 1
            if near and cri_mark(buf, buf.rfind(b"\n", 0, start - 1) + 1 if start else 0, end) is not None and (
                    is_cri_partial(line) or (start and _cri_partial_before(buf, start))):
                start, line, end = _cri_group(buf, start, end, limit)
                matched = None  # the joined line: its parts' matches say nothing about it
            done_to = end
            if start >= at:
                lineno += count(b"\n", at, start)
            else:  # (a CRI group that begins before the line)
                lineno -= count(b"\n", start, at)
            at = start
            finding, amended = read(line, file=name, lineno=lineno, matched=matched)
            if finding is not None:
                if finding.envelope == "journal_text":  # journalctl -o export / verbose: the record about the line
                    _journal_record(finding, buf, start, end, limit)
                if finding.kind in LINK_KINDS:
                    self._unused_port(finding)
                yield finding
            if amended:  # earlier findings the line amended (Classifier.read): after the line's own
                yield from amended
        return lineno + count(b"\n", at, limit)

    def _unused_port(self, f: Finding) -> None:
        """parsers/ports.py offline: the kernel's uptime going backwards starts a new boot, and so does a kernel
        start-up line (the classifier's BootClock); a line with no uptime takes its seconds since the latter."""
        classifier = self.classifier
        links, clock = classifier.links, classifier.boot  # (the stream's: the line's host's, read per host)
        if links is None:
            links = classifier.links = _Links()
        uptime = f.uptime
        if uptime is not None:
            if uptime < links.uptime:
                links.boots += 1
            links.uptime = uptime
        else:
            uptime = clock.since(f.timestamp)
        links.ports.judge(f, port_key, uptime, (links.boots, clock.seq))


class _Links:
    """What a stream's link findings are judged by (Scanner._unused_port): the ports seen up this boot, the last
    uptime and the boots counted by it going backwards; kept in the classifier's stream context (`links`), so a
    fleet's input read per host judges each node's ports by its own boots."""

    __slots__ = ("ports", "uptime", "boots")

    def __init__(self) -> None:
        self.ports, self.uptime, self.boots = UnusedPorts(), 0.0, 0



# How far around a `MESSAGE=` line a finding's journal record is looked for (journal_text_record): a record is a few
# dozen short fields (a kernel record's message one printk line); a file of such lines with no record about them
# costs each finding a few C-speed searches over this much, and is decoded only about a record's time
JOURNAL_RECORD_SPAN = 16 << 10
_UNINDENTED = re.compile(rb"\n[^ ]")  # a line that is no verbose record's field (its header, the next record's)


def _journal_record(f: Finding, buf: bytes, start: int, end: int, limit: int) -> None:
    """The time, uptime, host's program and envelope of a finding on a `journalctl -o export` / `-o verbose` line,
    from the record about it in the buffer: export's between the blank lines before and after it, verbose's from the
    header line before it (the first line not indented) to the next. Only for a finding (the line's own read takes
    none of it); a record a read split, or none about the line, leaves the finding as the line alone made it."""
    low, high = max(0, start - JOURNAL_RECORD_SPAN), min(limit, end + JOURNAL_RECORD_SPAN)
    if buf[start:start + 1] == b" ":  # verbose: the header is the last line before it that is not indented
        # (C-speed searches over the span, no walk line by line: a file of indented lines and no header costs each
        # finding a few memchr-like scans)
        header = buf.rfind(b" [s=", low, start)
        if header == -1:
            return
        first = buf.rfind(b"\n", low, header) + 1
        if first == 0 and low > 0 or buf[first:first + 1] == b" " or _UNINDENTED.search(buf, header, start):
            return
        nxt = _UNINDENTED.search(buf, end, high)
        last = high if nxt is None else nxt.start()
    else:  # export: between blank lines
        # (its __REALTIME_TIMESTAMP= first, before the line in the same record: one scan of the span for a file of
        # such lines with none, and for a record the searches stop a line or two from where they begin)
        stamp = buf.rfind(b"__REALTIME_TIMESTAMP=", low, start)
        if stamp == -1 or buf.find(b"\n\n", stamp, start) != -1:  # none, or an earlier record's
            return
        first = buf.rfind(b"\n\n", low, stamp)
        first = low if first == -1 else first + 2
        last = buf.find(b"\n\n", end, high)
        last = high if last == -1 else last
    env = journal_text_record(decode(buf[first:last]).split("\n"))
    if env is not None:
        f.timestamp, f.uptime, f.envelope, f.program = env.timestamp, env.uptime, "journal", env.extra.get("app")


def hold_back_cri_partials(buf: bytes, cut: int) -> int:
    """Move the buffer's end back before a trailing CRI partial group, so the group is joined whole
    with the next read; -1 when the whole buffer is one unfinished group."""
    for _ in range(MAX_CRI_PARTS):
        start = buf.rfind(b"\n", 0, cut) + 1
        if not is_cri_partial(decode(buf[start:cut][:80])):
            return cut
        cut = start - 1
        if cut < 0:
            return -1
    return cut


# The CRI partial marker in bytes: every CRI partial line holds it (`is_cri_partial` confirms), so most lines
# are ruled out without decoding them or the line before them.
_CRI_MARK = re.compile(rb" std(?:out|err) P ")


def _prev_line(buf: bytes, start: int) -> tuple[int, int]:
    end = start - 1
    return buf.rfind(b"\n", 0, end) + 1, end


def _cri_partial_before(buf: bytes, start: int) -> bool:
    s, e = _prev_line(buf, start)
    return is_cri_partial(decode(buf[s:e]))


def _cri_group(buf: bytes, start: int, end: int, limit: int, low: int = 0) -> tuple[int, str, int]:
    """The CRI partial group around the line at [start, end) within buf[low:limit]: (first start, joined line,
    last end)."""
    first = start
    parts = [decode(buf[start:end])]
    while first > low and len(parts) < MAX_CRI_PARTS:
        s, e = _prev_line(buf, first)
        prev = decode(buf[s:e])
        if not is_cri_partial(prev):
            break
        parts.insert(0, prev)
        first = s
    while is_cri_partial(parts[-1]) and end < limit and len(parts) < MAX_CRI_PARTS:
        nxt_end = buf.find(b"\n", end + 1, limit)
        if nxt_end == -1:
            nxt_end = limit
        parts.append(decode(buf[end + 1:nxt_end]))
        end = nxt_end
    return first, join_cri(parts), end

# parsers.records BAR_TIMES (a bar's "elapsed<remaining"), in bytes: `cri_records`' pretest after a memchr
# for a carriage return
_BAR_TIMES = re.compile(BAR_TIMES.pattern.encode())


def cri_records(buf: bytes, limit: int) -> bytes | None:
    """buf[:limit + 1] (whole lines, a CRI partial group held back whole: `hold_back_cri_partials`; `limit` its last
    newline) with each line that holds several records (parsers.records.line_records: a tqdm bar's "\\r" rewrites, a
    record glued after the bar's last state) written as its records, as offline reads them: a CRI line's content after
    its envelope (a partial group's joined, as the scanner joins one: `_cri_group`), each record an "F" line with the
    envelope's time and stream; a line of another form, each record a line.  None where no line does.  A buffer
    holding no carriage return (but a CRLF line's end, which `decode` strips) and no bar's "elapsed<remaining" pays
    two memchr (a carriage return, a "<"; the bar's search only after a "<"); only the lines holding one are decoded."""
    out: list[bytes] = []
    done = pos = 0  # done: the end of the buffer's part already in `out` (a group rewritten); pos: of the part read
    r = -1
    while pos < limit:
        if r < pos:
            r = buf.find(b"\r", pos, limit)
            while r != -1 and buf[r + 1] == 10:  # a CRLF line's end
                r = buf.find(b"\r", r + 2, limit)
        stop = limit if r == -1 else r
        # (a memchr first: the search scans for its "<" ~30x slower, a 256 KiB read without one ~70 us against ~2.5)
        m = _BAR_TIMES.search(buf, lt, stop) if (lt := buf.find(b"<", pos, stop)) != -1 else None
        at = m.start() if m is not None else r
        if at == -1:
            break
        start = buf.rfind(b"\n", 0, at) + 1
        end = buf.find(b"\n", at, limit + 1)
        # the line's CRI partial group, from `pos` on (each line read once), where it or the line before is a part
        before = max(pos, buf.rfind(b"\n", 0, start - 1) + 1) if start > pos else start
        if _CRI_MARK.search(buf, before, end) is None:
            first, line = start, decode(buf[start:end])
        else:
            first, line, end = _cri_group(buf, start, end, limit, pos)
        pos = end + 1
        env = cri_split(line)
        content = env[0] if env is not None else line
        records = line_records(content)
        if records is None:
            continue
        head = line[:len(line) - len(content)]
        if env is not None:  # (a group joined is an "F" line already; a lone line keeps its time and stream)
            stamp, stream = head.split(" ", 2)[:2]
            head = f"{stamp} {stream} F "
        out += [buf[done:first], "".join(f"{head}{record}\n" for record in records).encode()]
        done = pos
    if not out:
        return None
    out.append(buf[done:limit + 1])
    return b"".join(out)


def scan_lines(lines, classifier: Classifier | None = None, name: str | None = None) -> Iterator[Finding]:
    """Classify an iterable of str lines (no prefilter over buffers; for small inputs and tests)."""
    classifier = classifier or Classifier()
    for n, line in enumerate(lines, start=1):
        finding, amended = classifier.read(line.rstrip("\n"), file=name, lineno=n)
        if finding is not None:
            yield finding
        yield from amended
