"""Container logs under /var/log/pods/<namespace>_<pod>_<uid>/<container>/<n>.log (CRI format).

New pods and containers are found by a cheap directory scan every `scan_seconds`; each file is
read from an open descriptor, so kubelet's rotation (0.log -> 0.log.<timestamp>, later .gz) loses
nothing: the old descriptor is drained to its end before the new file is opened.  A container started
again writes its next file (`<restartCount>.log`): the container's restart is handed on (`take_restarted`).  Files of
deleted pods are released.  Past `max_open` descriptors the least recently active files are closed and
watched by stat instead (a rotation that happens meanwhile is found by inode among the rotated
files, gzip included).  Lines are scanned in bulk by the parsers' prefilter; only keyword lines are
classified (CRI partial lines joined), so chatty training output costs little.  Offsets are kept
in the state directory.

An agent started again tells apart, at its first scan, what happened to each file while it was down (`_add`): a file
whose offset it saved resumes there, as a file watched by stat does (grown: read on from the offset; rotated, its
inode changed or its offset past its size: the rotated file read on from the offset, found by inode, or the newest
.gz that reaches it and has the fingerprint saved with the offset (the CRCs of the file's first PRINT bytes and of the
PRINT before the offset), then any file rotated after it, whole, then the new file from its start); a file not saved
in a container whose files were (the kubelet's next `<restartCount>.log`, or the next after it) is read from its start
and the container's restart handed on; a container not listed when the agent last saved (`podlogs.json` "containers",
with "listed_at", the wall time of that listing) started while it was down: its files are read from their start too,
unless written last before that listing (the host's clock stepped back, or the listing missed it) or larger than
MAX_UNSEEN_BYTES (history, as every file at an agent's first start).  A file read from its start at that scan, rotated
by the kubelet meanwhile, is read after its rotated files (`_backlog`: oldest first, back from the newest while they
and it hold at most MAX_UNSEEN_BYTES, a .gz counted by the bytes it decodes to, and were written since that listing;
read a batch at a time as any file, from where the last read stopped in the first, "backlog_at"; saved until read,
"backlog").  What a file's read held for its later lines (a launcher's exit summary, an SGLang record's traceback, a
window read for its exceptions, a Ray task's traceback: `_Held`) is saved with the offset past its lines ("held") and
read on with the lines after the offset; a summary of a file gone meanwhile is read as it stands, its last words.

The pod-log directory itself missing for longer than `gone_grace_seconds` makes the source down
(`Source.gone`); the files found once it is back (a new directory, new files) are read from their start.
"""

from __future__ import annotations

import fnmatch
import glob
import io
import logging
import math
import os
import stat
import threading
import time
import zlib
from dataclasses import dataclass, field
from functools import partial
from typing import Annotated, Any, Callable

from parsers import (Classifier, Finding, Prefilter, Scanner, all_keywords, drop_holes, hold_back_cri_partials,
                     keyword_prefilter)
from parsers.decoded import GZIP, Decoded
from parsers.envelope import cri, cri_split, finish
from parsers.scan import cri_records
from parsers.model import PodRef, WorkloadFindings
from parsers.progress import PREFILTER as PROGRESS_PREFILTER
from parsers.progress import Progress, recognise
from triage import facts as job_facts
from triage.teardown import covering, file_time, stated_words, tears_down
from triage.read import (BLOCK_LINES, BLOCK_OPENERS, PROGRESS_KEYWORDS, TRACEBACK_LINES, TRACED_OPENERS, TRACED_WORDS,
                         block_fact, generic, job_fact, numel_in, progress_group, ray_task, record_line, record_writer,
                         strip_lead, TracebackReader)

from ..keyspec import LIMIT, Invalid, convert, doc, dropped, each, num
from . import POSITION, MissingInputs, Source

log = logging.getLogger("gpu_npd.pods")
READ_CHUNK = 1 << 18
MAX_PENDING = 1 << 20  # a "line" longer than this without a newline is scanned in pieces
# findings handed on per poll: past it the poll ends (the next starts where it stopped, with the next file),
# so a pod printing thousands of distinct failure lines at once costs a bounded batch, not one finding
# object per line of its burst at the same time (10,000 NCCL lines were 13 MiB in one batch, and RSS
# never gave it back)
MAX_BATCH_FINDINGS = 1024
# what a poll reads of one file at most (the rest at the next poll, from where it stopped): a pod writing faster than
# the source reads (a logging storm, NCCL_DEBUG=INFO on every rank) kept one poll reading it to no end, nothing it or
# the other pods' files held handed on meanwhile (bench/podlogs.py at 50 MB/s: 199 MB read, 0 findings of 295)
MAX_POLL_BYTES = 16 * READ_CHUNK
# Polls after the first listing by which the source counts as read up (`caught_up`) even if none went through every
# file (each cut short by MAX_BATCH_FINDINGS: pods printing findings faster than a poll takes them): a hang tracker
# that never judges is worse than one judging a pod before its last lines are read
READ_UP_POLLS = 16
POD_MEMO_SIZE = 1024  # distinct lines remembered by the one memo of all pod files (a template is ~1-2 KiB)
MAX_MARKS = 64  # progress lines handed on per file and read (the latest; a burst of steps needs no more)
RECORD_OPENER = job_facts.TRACEBACK.encode()  # a record whose traceback lines lack its prefix ends its line with it
TASK_OPENER = job_facts.RAY_TASK_KEYWORD.encode()  # in Ray's header of a task's error (triage.read.ray_task)
TRACED = tuple(o.encode() for o in TRACED_OPENERS)  # what opens a window of lines read for their exceptions
# lines of a window read for its exceptions (`_Tail.traced`), at most, and characters of each kept (the exception's
# type and words come first): a pod printing tracebacks without end holds this much, a full window going on with its
# last TRACEBACK_LINES lines
MAX_TRACED = 2 * TRACEBACK_LINES
TRACED_CHARS = 1024
# seconds a block the file's last line cut short (`_Tail.block`) waits for the rest while the file writes nothing more:
# then read as it stands (Slurm's OOM summary with no srun line after it: published without a node)
BLOCK_WAIT = 10.0
# characters of each line of a held block (`_Tail.block`) saved with the offsets ("held" "block"): a summary's fields
# are short lines; a pod's megabyte-long line in a window costs the state file no more than this
BLOCK_CHARS = 4096
# characters of a traceback window's last lines (`_Tail.traced`) saved with the offsets ("held" "traced": at most
# TRACEBACK_LINES, each of TRACED_CHARS at most): a traceback's frames, 30 deep, in CRI envelopes, are some 8 KiB; a pod
# printing tracebacks without end costs the state file, rewritten every 2 s while it reads, no more than this
TRACED_SAVED_CHARS = 1 << 16
MAX_GROUPS = 64  # (rank, SeqNum) -> process group remembered per file from its watchdog progress lines (the latest)
# a container started while the agent was down: its files are read from their start up to this size (several times
# the kubelet's default containerLogMaxSize, 10 MiB, past which it rotates them); a larger one is history, never
# replayed
MAX_UNSEEN_BYTES = 64 << 20
# container directories saved with the offsets (the pods a node runs, at most the kubelet's maxPods, 110 by default,
# times their containers); past it none is saved and an agent started again takes every container it did not follow
# for history
MAX_CONTAINERS = 4096
# a file's times lag the wall clock read by time.time() by up to a kernel tick (they are stamped from a coarse clock):
# a file of a container started just after a listing began may be stamped before it
MTIME_SLACK = 1.0
# bytes at a file's start and just before its saved offset whose CRCs are saved with the offset (its fingerprint): they
# tell the file among its rotated ones, where a `.gz` keeps no inode and more than one reaches the offset
PRINT = 256




class _Traced:
    """A window of a pod's lines read for the exceptions they end (`PodLogSource._tracebacks`), from a traceback's
    header or frame line on: its lines as written (at most MAX_TRACED held), the line of its last traceback word, the
    last line read, and the reader that read them, read on with the lines after (each line read once)."""

    __slots__ = ("opened", "lines", "last", "done", "reader", "_saved")

    def __init__(self, opened: int) -> None:
        self.opened = opened  # its first held line's number
        self.lines: list[str] = []
        self.last = opened
        self.done = opened - 1  # the last line read (its exceptions said)
        self.reader = TracebackReader()
        self._saved: tuple[int, list[str]] | None = None  # (`saved`: the lines held when it was taken, it)

    def saved(self) -> list[str]:
        """Its last lines as saved (`_last_lines`), taken again only once it held more: the source's state snapshot,
        taken at every turn of its loop (`_held`), of a window no line was added to since is the same list, not up to
        TRACEBACK_LINES lines cut again (a crashed pod's log ending in its traceback holds its window open for good)."""
        if self._saved is None or self._saved[0] != len(self.lines):
            self._saved = (len(self.lines), _last_lines(self.lines))
        return self._saved[1]

    def read(self) -> list[Finding]:
        """The failures its lines after the last read end (TracebackReader.read), as findings on their lines."""
        new = self.lines[self.done + 1 - self.opened:]
        if not new:
            return []
        read = [_unwrapped(text) for text in new]
        before = self.reader.lines
        out = []
        for row, fields, index in self.reader.read([message for _, message in read]):
            if (i := index - before) >= 0:  # (an earlier line's, amended: said before)
                out.append(_fact_finding(row, fields, *read[i], self.done + 1 + i))
        self.done += len(new)
        return out

    def renew(self, kept: list[str]) -> None:
        """The window read up to its last line: on with `kept`, its last lines (a full window's last TRACEBACK_LINES;
        a saved window's, `_Held`), read by a new reader (their exceptions said before; a traceback the cut left open
        is read whole with the lines after)."""
        self.opened, self.lines, self.reader = self.done + 1 - len(kept), kept, TracebackReader()
        self._saved = None
        self.reader.read([_unwrapped(text)[1] for text in kept])


@dataclass
class _Tail:
    path: str
    ref: PodRef
    scanner: Scanner
    fd: int | None = None
    inode: int = 0
    offset: int = 0
    pending: bytes = b""
    lines: int = 0  # lines scanned (the stream's line numbers go on from poll to poll: Scanner.scan first_line)
    # a launcher's exit summary whose lines the last read cut short: (its opener's line number, its lines so far,
    # at most 1 + triage.read.BLOCK_LINES), read on with the next read
    block: tuple[int, list[str]] | None = None
    # a record a prefixed line opened with a traceback whose lines carry no prefix (triage.read.record_line), its
    # writer naming a rank: (that rank, the opener's line number, whether its traceback is open), read on with the
    # next read
    record: tuple[int, int, bool] | None = None
    # a window of lines read for the exceptions they end (`_Traced`), read on with the next read while a traceback
    # word came within TRACEBACK_LINES lines
    traced: _Traced | None = None
    # Ray's header of a task's error whose traceback is open (triage.read.ray_task): (its pid, its node's address, its
    # writer's prefixes, its line number), read on with the next read until the exception ending it
    task: tuple[int, str, tuple, int] | None = None
    # (`block`, `record`, `traced` and `task`, the contexts held for the lines after the offset, are saved with it and
    # read on after a restart: `_Held`)
    # the latest statement of the job's success this file made (triage.facts job_success): (its line number, its CRI
    # time or None, its row's name); the communicator errors after it are its teardown (triage.teardown), no Event.
    # One per file: a restarted container writes a new file, whose errors no earlier success covers
    success: tuple[int, float | None, str] | None = None
    # (rank, SeqNum) -> the process group the rank's watchdog progress line names (triage.read.progress_group): the
    # group of its WorkNCCL timeout line at that SeqNum, which names none (`_collectives`); the latest MAX_GROUPS
    groups: dict[tuple[int, int], str] = field(default_factory=dict)
    run: int | None = None  # the container's restart count its name says (`<restartCount>.log`; None: another name)
    # the fingerprint of the file at an offset (`_fingerprint`): (the offset, the CRC of the PRINT bytes at its start,
    # that of the PRINT bytes before the offset), loaded with the offset, or taken as the file is closed past max_open
    # (a rotation found while it is closed, `_rotated_ours`); (the offset,): not known at it (the file gone, rotated);
    # None: not looked for (a state saved before it was kept)
    prints: tuple[int, ...] | None = None
    # a file read from its start at the first scan: its rotated files (`<n>.log.<stamp>`, `.gz`), oldest first, whose
    # lines came before its own (written while the agent was down), read before it; saved with its offset (its start)
    # until read, so that an agent stopped before reading them reads them at its next start (`_still_owed`)
    backlog: list[str] = field(default_factory=list)
    # where the read of the backlog's first file stopped (its bytes, a .gz's decompressed; `pending` the last of them)
    # and the file open on it (the object read, the raw file under it), read on by the next poll (`_read_backlog`)
    backlog_at: int = 0
    reading: tuple[Any, Any] | None = None
    active: float = field(default_factory=time.monotonic)


# a line's number in a context saved with the offsets (`_Held`): the last line read before the offset is 0 (the next
# read's first is 1)
LINE = Annotated[int, doc("a line's number, the last line read before the saved offset being 0", ge=-LIMIT, le=0)]
WHO = Annotated[int, num("a rank or a process id", ge=0)]


@dataclass
class _Held:
    """The contexts a file's read holds for its later lines (`_Tail.block`, `record`, `traced`, `task`), saved with its
    offset, which is past their lines (the state's pod_logs "held": path -> what it holds, `_saved_contexts`), and read
    on after a restart with the lines after the offset (`hold`), each fact published once: a launcher's exit summary
    (`block`: its lines, at most 1 + BLOCK_LINES of BLOCK_CHARS), an SGLang record whose traceback lines carry no
    prefix (`record`: its writer's rank, its opener's line, whether its traceback is open), a window read for its
    exceptions (`traced`: the line of its last traceback word, its last lines, `_last_lines`, read again by a new
    reader, their exceptions said before), Ray's header of a task's error (`task`: its pid, its node's address, its
    writer's prefixes, its line).  Rather than an offset held back to a context's first line and the lines after it read again: that needs
    that line's byte in the file (a hole dropped, the context begun in a rotated file or a backlog's) and every finding
    of the lines read again told apart from those already published.  Loaded bounded as saved; an entry not of its
    type is dropped alone (keyspec.each)."""

    block: list[str] | None = None
    record: tuple[WHO, LINE, bool] | None = None
    traced: tuple[LINE, list[str]] | None = None
    task: tuple[WHO, str, tuple[tuple[str, Any], ...], LINE] | None = None

    def __post_init__(self) -> None:
        if self.block is not None:
            self.block = [x[:BLOCK_CHARS] for x in self.block[:1 + BLOCK_LINES]]
        if self.traced is not None:
            self.traced = (self.traced[0], _last_lines(self.traced[1]))
        if self.task is not None and not all(type(v) in (str, int) for _, v in self.task[2]):
            raise Invalid("task[2]", "expected a prefix's value to be a string or an integer")

    def numbered(self) -> tuple[int, list[str]] | None:
        """Its block as a file's read holds it (`_Tail.block`): its opener's line number, its lines being the last read
        before the offset (0), and its lines; None when it holds none."""
        return (1 - len(self.block), self.block) if self.block else None

    def hold(self, tail: _Tail) -> None:
        """Its contexts held by `tail`, a file whose saved offset it was saved with, not read since (`tail.lines` 0)."""
        tail.block = self.numbered()
        tail.record, tail.task = self.record, self.task
        if self.traced is not None:
            tail.traced = window = _Traced(1)
            window.last = self.traced[0]
            window.renew(self.traced[1])


def _saved_contexts(tail: _Tail) -> dict[str, Any] | None:
    """What `tail` holds for its later lines as saved (`_Held`), its lines numbered from its last read (0); None when
    nothing."""
    at, out = tail.lines, {}
    if tail.block is not None:
        out["block"] = [x[:BLOCK_CHARS] for x in tail.block[1]]
    if tail.record is not None:
        out["record"] = [tail.record[0], tail.record[1] - at, tail.record[2]]
    if tail.traced is not None:
        out["traced"] = [tail.traced.last - at, tail.traced.saved()]
    if tail.task is not None:
        pid, host, prefixes, line = tail.task
        out["task"] = [pid, host, [list(x) for x in prefixes], line - at]
    return out or None


def _last_lines(lines: list[str]) -> list[str]:
    """A traceback window's last lines as saved (`_Held` traced): at most TRACEBACK_LINES, each cut to TRACED_CHARS,
    within TRACED_SAVED_CHARS in all."""
    out, left = [], TRACED_SAVED_CHARS
    for text in reversed(lines[-TRACEBACK_LINES:]):
        left -= len(text := text[:TRACED_CHARS])
        if left < 0:
            break
        out.append(text)
    return out[::-1]


def run_of(name: str) -> int | None:
    """The restart count of a container's log file the kubelet names `<restartCount>.log`; None for another name."""
    stem = name[:-len(".log")] if name.endswith(".log") else ""
    return int(stem) if stem.isdigit() else None


def _in_run_order(name: str) -> tuple:
    """A container's files, earlier runs first (`2.log` before `10.log`): a batch reads a dead run's last lines
    first."""
    run = run_of(name)
    return (run is None, run or 0, name)


def rotated_files(path: str) -> list[str]:
    """The files the kubelet rotated from `path`, oldest first: `<n>.log.<YYYYMMDD-hhmmss>`, compressed to `.gz` at the
    next rotation (through a `.tmp`, not yet the file; the plain file, removed once its `.gz` is written, is the same
    file) (kubernetes/kubernetes pkg/kubelet/logs/container_log_manager.go)."""
    names = set(glob.glob(glob.escape(path) + ".*"))
    return sorted((c for c in names if not c.endswith(".tmp") and c + ".gz" not in names),
                  key=lambda c: c.removesuffix(".gz"))


def _fingerprint(read: Callable[[int, int], bytes], offset: int) -> tuple[int, int] | None:
    """The CRCs of a file's first PRINT bytes and of the PRINT bytes before `offset` (`read(n, at)`: its n bytes at
    `at`); None when it holds fewer than `offset`."""
    n = min(PRINT, offset)
    head, before = read(n, 0), read(n, offset - n)
    return (zlib.crc32(head), zlib.crc32(before)) if len(head) == len(before) == n else None


def parse_pod_dir(name: str) -> tuple[str, str, str] | None:
    """`<namespace>_<pod>_<uid>` -> (namespace, pod, uid); names cannot hold '_', so split is exact."""
    parts = name.split("_")
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 and all(parts) else None


def _unwrapped(text: str):
    """A pod log line as written: (its kubelet envelope or None, its message: the line without the envelope)."""
    env = cri(text)
    return env, env.message if env is not None else text


def _line_at(buf: bytes, start: int, stop: int):
    """buf[start:stop], a pod log line: (its text as written, its kubelet envelope or None, its message)."""
    text = buf[start:stop].decode("utf-8", "replace").rstrip("\r")
    return (text, *_unwrapped(text))


def _line_end(buf: bytes, pos: int, end: int) -> int:
    """Where the line at `pos` ends (its newline, else `end`)."""
    nl = buf.find(b"\n", pos, end)
    return end if nl == -1 else nl


def _to_opener(buf: bytes, opener: bytes, pos: int, end: int) -> tuple[int, int] | None:
    """The start of the line holding the next `opener` in buf[pos:end] and the newlines from `pos` to it; None: none."""
    at = buf.find(opener, pos, end)
    if at == -1:
        return None
    start = buf.rfind(b"\n", 0, at) + 1
    return start, buf.count(b"\n", pos, start)


def _of(path: str, ref: PodRef, f: Finding) -> tuple[PodRef, Finding]:
    """A finding of the lines of the file `path`, of the pod `ref`, as the source hands it on: its file, and its pod in
    details."""
    f.file = path
    f.details.update(namespace=ref.namespace, pod=ref.pod, container=ref.container)
    return ref, f


def _block_ended(path: str, ref: PodRef, block: tuple[int, list[str]] | None) -> list[tuple[PodRef, Finding]]:
    """A block the file `path` (of the pod `ref`) held (`_Tail.block`: its opener's line number, its lines), no more of
    it to come (the file quiet for BLOCK_WAIT seconds, its pod deleted, the file gone while the agent was down): read
    as it stands (triage.read.block_fact `ended`), its root if any."""
    if block is None:
        return []
    out: list[Finding] = []
    _block_read(*block, out, ended=True)
    return [_of(path, ref, f) for f in out]


def _block_read(opener: int, window: list[str], out: list[Finding], ended: bool = False) -> bool:
    """A block opened on line `opener` (`window` its lines so far, as written) read (triage.read.block_fact; `ended`:
    no more of it will come): its root as a finding in `out`; whether it had one."""
    read = [_unwrapped(text) for text in window]
    hit = block_fact([message for _, message in read], ended)
    if hit is None:
        return False
    row, fields, index = hit
    out.append(_fact_finding(row, fields, *read[index], opener + index))
    return True


def _fact_finding(row, fields: dict, env, message: str, line: int) -> Finding:
    """A job fact a pod's line states (triage.facts.LIVE_FACTS `row`, its `fields`) as a finding of its kind: the line
    without its CRI envelope (`message`; `env`, None when it has none: `_unwrapped`), its time, the process it names."""
    return Finding(row.kind, "error", "unknown", "INVESTIGATE", message,
                   timestamp=env.timestamp if env is not None else None, rank=fields.get("rank"),
                   pid=fields.get("pid"), details=fields, envelope="cri", line=line)


class PodLogSource(Source):
    name = "pods"
    # Its attributes, declared (those __init__ and _load set): why, tests/test_slots.py
    __slots__ = ("root", "allowed_roots", "refused", "internal_errors", "store", "include_ns", "exclude_ns",
                 "include_pods", "exclude_pods", "max_open", "scan_seconds", "tails", "prefilter", "_re", "facts",
                 # what the last save left (_load)
                 "_saved", "_owed", "_owed_at", "_held", "_containers", "_listed_at", "_listing", "_known", "_written",
                 "_printed",
                 # the pipeline's progress through what it sent; its reader thread and saves
                 "_ack_lock", "_sent", "_taken", "_safe", "_reader", "_save_lock", "_last_scan", "_last_save",
                 "_first_scan",
                 # its reads
                 "bytes_read", "lines", "_gone_evictions", "_gone_memo_evictions", "memo", "_classifier", "_next",
                 "_whole", "_cut", "_released",
                 # the pods and their progress, restarts
                 "pods", "listed", "_read_up", "_polls_listed", "_marks", "_restarted", "_restarting",
                 "_restart_files", "missing")

    def __init__(self, root: str, store: Any = None, include_namespaces: list[str] | None = None,
                 exclude_namespaces: list[str] | None = None, include_pods: list[str] | None = None,
                 exclude_pods: list[str] | None = None, max_open: int = 256, scan_seconds: float = 2.0,
                 from_start: bool = False, allowed_roots: list[str] | None = None,
                 gone_grace_seconds: float = 30.0, clock: Callable[[], float] = time.monotonic):
        self.root = root
        # pod logs are data, never paths: only regular files whose real path lies under these are opened
        # (the pod-log root, and runtimes' own log directories where kubelet's files are symlinks to them)
        self.allowed_roots = [os.path.realpath(r) for r in [root, *(allowed_roots or [])]]
        self.refused = 0
        self.internal_errors = 0  # reads whose job-level reading raised (a bug): their scanner findings still go on
        self.store = store  # where its offsets are kept (a StateStore; None: nowhere, start at the end)
        self.include_ns, self.exclude_ns = include_namespaces or ["*"], exclude_namespaces or []
        self.include_pods, self.exclude_pods = include_pods or ["*"], exclude_pods or []
        self.max_open = max_open
        self.scan_seconds = scan_seconds
        self.tails: dict[str, _Tail] = {}
        self.prefilter = Prefilter(all_keywords())
        self._re = keyword_prefilter()
        # the job facts' words (triage.facts.LIVE_FACTS) and the launchers' exit summaries' openers
        # and a job's statements of its own success (its teardown's errors after them raise no Event)
        # and PyTorch's watchdog progress lines (the process group of a rank's timed-out collective, `_collectives`)
        self.facts = Prefilter((*job_facts.LIVE_KEYWORDS, *BLOCK_OPENERS, *job_facts.SUCCESS_KEYWORDS,
                                *PROGRESS_KEYWORDS))
        self._saved: dict[str, list[int]] = {}
        # the rotated files (names) of a file whose backlog (`_Tail.backlog`) was still owed when the agent last saved:
        # read first again, its saved offset being its start (loaded; taken by the first scan)
        self._owed: dict[str, list[str]] = {}
        self._owed_at: dict[str, int] = {}  # of those, where the read of the first stopped (`_Tail.backlog_at`)
        # what each file held for its later lines when the agent last saved (`_Held`): read on with the lines after
        # its saved offset (loaded; taken by the first scan)
        self._held: dict[str, _Held] = {}
        # the container directories (`<pod dir>/<container>`) the last listing found (a wanted one once it holds a
        # log file) and the wall time that listing began; loaded: the agent's before it stopped (None: not saved)
        self._containers: set[str] | None = None
        self._listed_at = 0.0
        self._load()
        self._listing = sorted(self._containers or ())  # (`_containers` as saved, sorted once a listing)
        self._known = self._containers  # (the first scan's: a container not among them started while it was down)
        self._written: dict[str, Any] | None = None  # what the last save put on disk (but its fingerprints)
        # path -> (inode, offset, the fingerprint's CRCs there) of the last save (`_fingerprinted`): a file not read
        # since is not read again for it
        self._printed: dict[str, tuple[int, int, tuple[int, ...]]] = {}
        # the pipeline's progress through what this source sent (see `save`): batches sent and taken, and the
        # offsets read when the last batch taken was sent (or when nothing was in flight; None: not yet known)
        self._ack_lock = threading.Lock()
        self._sent = self._taken = 0
        self._safe: dict[str, Any] | None = None
        # the thread running `run` (its ident; None: none ever did): only it reads the files and snapshots what it
        # read; a save on another thread (the agent's, after its drain) writes the last safe point, `_safe`
        self._reader: int | None = None
        self._save_lock = threading.Lock()  # one save at a time (the source's thread and the agent's)
        self._last_scan = self._last_save = -math.inf  # when `turn` last discovered and saved (its `now`)
        self._first_scan = not from_start  # the first scan starts existing files at their end
        self.bytes_read = 0
        self.lines = 0
        self._gone_evictions = 0  # uuid evictions of files already released
        self._gone_memo_evictions = 0
        # one repeat memo for every file followed (each file's classifier keeps only its own context): a
        # pod flooding distinct lines costs POD_MEMO_SIZE entries in all, not 4096 per file (10,000
        # distinct-rank NCCL lines from one pod kept 5 MiB of templates per file before)
        self.memo: dict = {}
        # what each file's classifier is made from (`for_stream`): the table's derived tables and the memo shared, a
        # file's set-up free of any lookup keyed by the table (a new Classifier hashed every row: ~0.8 ms a file)
        self._classifier = Classifier(prefilter=self._re, memo=self.memo, memo_size=POD_MEMO_SIZE)
        self._next = 0  # where the next poll starts (after a poll cut short by MAX_BATCH_FINDINGS)
        # the last poll read every file to its end (none cut short by MAX_BATCH_FINDINGS, the last one's read included,
        # nor at MAX_POLL_BYTES)
        self._whole = False
        self._cut = False  # the last poll stopped a file's read at MAX_POLL_BYTES (the rest at the next)
        self._released: list[tuple[PodRef, Finding]] = []  # last words of deleted pods, handed on by poll()
        self.pods: dict[str, PodRef] = {}  # pod uid -> ref (for pid -> pod attribution)
        self.listed = False  # `pods` is a listing's (before the first, no pod is known to be gone)
        # the batches sent by the end of the first whole pass over the files listed (None: not yet): once the pipeline
        # took them, what the pods wrote while no agent followed them has been handed on (`caught_up`)
        self._read_up: int | None = None
        self._polls_listed = 0  # polls since the first listing, until read up
        self._marks: dict[PodRef, list[tuple[float, Progress]]] = {}  # read, not yet handed on
        # containers started again since the last batch (a new log file beside one followed), not yet handed on
        self._restarted: list[PodRef] = []
        # the run each restart handed on since then started (the restart count of its file): the progress lines of an
        # earlier run read in the same batch are not handed on, as the restart is handed to the tracker before them
        self._restarting: dict[PodRef, int] = {}
        # the files of those restarts: left out of the offsets saved until a batch hands the restart on (`_snapshot`),
        # so that an agent stopped before the pipeline took it finds the file new again and says the restart again
        self._restart_files: set[str] = set()
        self.missing = MissingInputs(gone_grace_seconds, clock)

    def gone(self) -> str | None:
        return self.missing.reason()

    # ---- filters and discovery -------------------------------------------------------------------------

    def wanted(self, ref: PodRef) -> bool:
        def match(value: str, pats: list[str]) -> bool:
            return any(fnmatch.fnmatchcase(value, p) for p in pats)
        return (match(ref.namespace, self.include_ns) and not match(ref.namespace, self.exclude_ns)
                and match(ref.pod, self.include_pods) and not match(ref.pod, self.exclude_pods))

    def discover(self) -> None:
        seen: set[str] = set()
        pods: dict[str, PodRef] = {}
        saved_dirs: dict[str, list[str]] = {}  # the first scan's: container directory -> the files saved in it
        if self._first_scan:
            for saved in self._saved:
                saved_dirs.setdefault(os.path.dirname(saved), []).append(os.path.basename(saved))
        listed: set[str] = set()  # (`_containers`)
        listed_at = time.time()
        try:
            pod_dirs = os.listdir(self.root)
            if self.root in self.missing.since:
                log.info("pod log directory %s is back; its files are read from their start", self.root)
                self.missing.back(self.root)
        except (FileNotFoundError, NotADirectoryError):
            if self.root not in self.missing.since:
                log.warning("pod log directory %s disappeared; waiting for it to come back", self.root)
            self.missing.missing(self.root)
            pod_dirs = []
        except OSError:  # not listed this time (EMFILE, EIO): no pod is gone for it
            return
        for pod_dir in pod_dirs:
            ids = parse_pod_dir(pod_dir)
            if ids is None:
                continue
            try:
                containers = os.listdir(os.path.join(self.root, pod_dir))
            except (FileNotFoundError, NotADirectoryError):
                continue  # deleted meanwhile
            except OSError:  # not listed this time: what is followed of it stays
                if ids[2] in self.pods:
                    pods[ids[2]] = self.pods[ids[2]]
                seen |= self._under(os.path.join(self.root, pod_dir))
                listed |= {c for c in self._containers or () if c.startswith(pod_dir + "/")}
                continue
            for container in containers:
                ref = PodRef(ids[0], ids[1], ids[2], container)
                pods[ids[2]] = ref
                key = f"{pod_dir}/{container}"
                if not self.wanted(ref):
                    listed.add(key)
                    continue
                cdir = os.path.join(self.root, pod_dir, container)
                try:
                    files = sorted((f for f in os.listdir(cdir) if f.endswith(".log")), key=_in_run_order)
                except (FileNotFoundError, NotADirectoryError):
                    continue
                except OSError:
                    seen |= self._under(cdir)
                    listed |= {key} & (self._containers or set())
                    continue
                if files:  # (an empty one, its first file not yet written, is not listed: its file will be new)
                    listed.add(key)
                unseen = self._first_scan and self._known is not None and key not in self._known
                before: list[int | None] | None = None  # (looked up once, and only for a container with a new file)
                for f in files:
                    path = os.path.join(cdir, f)
                    seen.add(path)
                    if path not in self.tails:
                        if before is None:
                            before = self._runs_before(cdir, files, saved_dirs)
                        self._add(path, ref, before, unseen)
        self.pods, self.listed = pods, True
        for path in [p for p in self.tails if p not in seen]:  # pod deleted: release its files
            tail = self.tails.pop(path)
            self._gone_evictions += tail.scanner.classifier.uuid_evictions
            self._gone_memo_evictions += tail.scanner.classifier.memo_evictions
            self._released += self._release(tail)
            self._close(tail)
            self._saved.pop(path, None)
        if listed != self._containers:
            self._containers, self._listed_at, self._listing = listed, listed_at, sorted(listed)
        if self._first_scan:  # saved offsets of files gone meanwhile (a dead container's, a rotated name's) are dropped
            for path in [p for p in self._saved if p not in self.tails and not os.path.lexists(p)]:
                del self._saved[path]
                held = self._held.pop(path, None)
                self._released += self._held_gone(path, held.numbered() if held is not None else None)
            self._owed, self._owed_at, self._held = {}, {}, {}  # (those of files no longer followed)
        self._first_scan = False

    def _held_gone(self, path: str, block: tuple[int, list[str]] | None) -> list[tuple[PodRef, Finding]]:
        """The block the file `path`, gone while the agent was down (its pod deleted, a dead container's log removed),
        held when the agent last saved (`block`, `_Held.numbered`), read as it stands: its last words, as those of a
        file whose pod is deleted while followed (`_release`)."""
        parts = os.path.relpath(path, self.root).split(os.sep)
        ids = parse_pod_dir(parts[0]) if block and len(parts) == 3 else None
        ref = PodRef(*ids, parts[1]) if ids is not None else None
        if ref is None or not self.wanted(ref):
            return []
        return _block_ended(path, ref, block)

    def _under(self, directory: str) -> set[str]:
        """The files followed under `directory` (kept as they are when it cannot be listed for a moment)."""
        return {p for p in self.tails if p.startswith(directory + os.sep)}

    def _runs_before(self, cdir: str, files: list[str], saved_dirs: dict[str, list[str]]) -> list[int | None]:
        """The runs (restart counts) of the container `cdir` whose files were followed before this scan: at the first
        scan, those whose offsets the agent saved before it stopped (listed still or not: the kubelet removes a dead
        container's log with the container), later those followed."""
        if self._first_scan:
            return [run_of(f) for f in saved_dirs.get(cdir, ())]
        return [run_of(f) for f in files if os.path.join(cdir, f) in self.tails]

    def _add(self, path: str, ref: PodRef, before: list[int | None], unseen: bool = False) -> None:
        """Follow `path` from where this agent left it (its saved offset), else from its start, or, at the first scan
        of an agent whose container's files were never followed, from its end (history: its failures were reported
        then, or the agent was not there), unless the container is `unseen` (not listed when the agent last saved: it
        started while the agent was down) and the file `_new_while_down`.  A file after those of the container's runs
        followed `before` (its restart count the higher) is the container started again: handed on
        (`take_restarted`)."""
        tail = _Tail(path, ref, Scanner(self._classifier.for_stream(), self.prefilter),
                     run=run_of(os.path.basename(path)))
        try:
            st = os.stat(path)
        except OSError:
            return
        saved = self._saved.get(path)
        if saved:  # followed before: poll() finds it grown, or rotated (a new inode, the offset past its size)
            tail.inode, tail.offset = saved[0], saved[1]
            if len(saved) == 4:
                tail.prints = (saved[1], saved[2], saved[3])
            tail.backlog, tail.backlog_at = self._still_owed(path)
            held = self._held.pop(path, None)
            if held is not None:  # (its lines just before the offset: the next read's first line is line 1)
                held.hold(tail)
        else:
            history = self._first_scan and not before and not (unseen and self._new_while_down(path, st))
            tail.inode, tail.offset = st.st_ino, (st.st_size if history else 0)
            if self._first_scan and not history:
                tail.backlog = self._backlog(path, st)
            if before and not any(r is not None and tail.run is not None and r >= tail.run for r in before):
                self._restarted.append(ref)  # `1.log` beside `0.log`: the container's next run
                self._restart_files.add(path)
                if tail.run is not None:
                    self._restarting[ref] = max(tail.run, self._restarting.get(ref, 0))
        self.tails[path] = tail

    def _still_owed(self, path: str) -> tuple[list[str], int]:
        """The rotated files of `path` whose lines the agent still owed when it last saved (`_owed`: their names; the
        saved offset is the file's start), found again, oldest first: by name, or, compressed by a rotation since, by
        the name with `.gz`; one gone (past `containerLogMaxFiles`) is said, its lines lost.  With where the read of
        the first stopped (`_owed_at`; 0 when that one is gone)."""
        names, at = self._owed.pop(path, []), self._owed_at.pop(path, 0)
        if not names:
            return [], 0
        rotated = {os.path.basename(c): c for c in rotated_files(path)}
        found = [rotated.get(n) or rotated.get(n + ".gz") for n in names]
        if None in found:
            log.warning("%s: %d rotated files still to be read when the agent stopped are gone; their lines are lost",
                        path, found.count(None))
        return [c for c in found if c is not None], at if found[0] is not None else 0

    def _new_while_down(self, path: str, st: os.stat_result) -> bool:
        """Whether the file `path` (`st`) of a container not listed when the agent last saved is read from its start:
        written last since that listing (else the host's clock stepped back, or the listing missed the container:
        in doubt, history) and no larger than MAX_UNSEEN_BYTES (never a huge file replayed)."""
        if st.st_mtime < self._listed_at - MTIME_SLACK:
            return False
        if st.st_size > MAX_UNSEEN_BYTES:
            log.warning("%s started while the agent was down but holds %d bytes, more than %d: read from its end",
                        path, st.st_size, MAX_UNSEEN_BYTES)
            return False
        return True

    def _backlog(self, path: str, st: os.stat_result) -> list[str]:
        """The rotated files of `path` (`st`), read from its start at the first scan, whose lines came before its own:
        back from the newest while the file and they cost no more than MAX_UNSEEN_BYTES to read (`_rotated_size`) and
        each was written since the agent's last listing (else, in doubt, it and those before it are history, as
        `_new_while_down` says of the file); oldest first."""
        budget, taken = MAX_UNSEEN_BYTES - st.st_size, []
        rotated = rotated_files(path)
        for cand in reversed(rotated):
            try:  # (its time before its size: a .gz is sized by decoding it)
                if os.stat(cand).st_mtime < self._listed_at - MTIME_SLACK:
                    break
            except OSError:
                break
            size = self._rotated_size(cand, budget)
            if size is None or size > budget:
                break
            budget -= size
            taken.append(cand)
        if len(taken) < len(rotated):
            log.warning("%s: %d rotated files before it are not read (older than the agent's last listing, or past "
                        "%d bytes with it)", path, len(rotated) - len(taken), MAX_UNSEEN_BYTES)
        return taken[::-1]

    def _rotated_size(self, path: str, budget: int) -> int | None:
        """What reading the rotated file `path` costs, in bytes: its size; a .gz the larger of its size and the bytes
        it decodes to (every member's, zero padding ignored: parsers.decoded), decoded no further than past `budget`
        (the gzip trailer's size is its last member's alone, modulo 4 GiB, and a padded file's last 4 bytes are
        zeros); None: unreadable."""
        if not path.endswith(".gz"):
            try:
                return os.stat(path).st_size
            except OSError:
                return None
        fd = self._open_safely(path)
        if fd is None:
            return None
        raw = os.fdopen(fd, "rb")
        try:
            size = os.fstat(fd).st_size
            if size > budget:
                return size
            reader, decoded = Decoded(raw, GZIP), 0
            while decoded <= budget and (data := reader.read(READ_CHUNK)):
                decoded += len(data)
            return max(size, decoded)
        except OSError:
            return None
        finally:
            raw.close()

    # ---- reading ----------------------------------------------------------------------------------------

    def _open(self, tail: _Tail) -> bool:
        if tail.fd is not None:
            return True
        open_now = sum(1 for t in self.tails.values() if t.fd is not None)
        if open_now >= self.max_open:
            idle = min((t for t in self.tails.values() if t.fd is not None), key=lambda t: t.active)
            # (its fingerprint at the offset it stops at: a rotation found while it is closed tells its .gz by it)
            idle.prints = (idle.offset, *self._print_at(idle.path, idle.inode, idle.offset, idle.fd))
            self._close(idle)
        fd = self._open_safely(tail.path)
        if fd is None:
            return False
        inode = os.fstat(fd).st_ino
        if inode != tail.inode:
            tail.inode, tail.offset, tail.prints = inode, 0, None
        os.lseek(fd, tail.offset, os.SEEK_SET)
        tail.fd = fd
        return True

    def _open_safely(self, path: str) -> int | None:
        """An fd on `path` when it is a regular file under an allowed root (symlinks resolved first), else None
        and counted: a `0.log` pointing at a host file is never read by this privileged agent."""
        real = os.path.realpath(path)
        if not any(real == r or real.startswith(r + os.sep) for r in self.allowed_roots):
            self.refused += 1
            return None
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return None
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or device would block or never end
            os.close(fd)
            self.refused += 1
            return None
        return fd

    @staticmethod
    def _close(tail: _Tail) -> None:
        if tail.fd is not None:
            os.close(tail.fd)
            tail.fd = None
        PodLogSource._close_backlog(tail)  # (opened again where its read stopped, `backlog_at`)

    @staticmethod
    def _close_backlog(tail: _Tail) -> None:
        """Close the backlog's file open (`_Tail.reading`)."""
        for f in tail.reading or ():
            f.close()
        tail.reading = None

    def poll(self, now: float | None = None) -> list[tuple[PodRef, Finding]]:
        """Read what is new in every followed file, up to about MAX_BATCH_FINDINGS findings; returns them.  A block a
        file's last line cut short, that file quiet for BLOCK_WAIT seconds (`now`: time.monotonic() unless given),
        is read as it stands (`_tail_ended`)."""
        now = time.monotonic() if now is None else now
        out, self._released = self._released, []
        self._cut = False
        tails = list(self.tails.values())
        start = self._next % len(tails) if tails else 0
        for i, tail in enumerate(tails[start:] + tails[:start]):
            if len(out) >= MAX_BATCH_FINDINGS:
                self._next = start + i  # the rest next time, from the next file on (fair to every pod)
                break
            if tail.backlog:  # its earlier lines, rotated while the agent was down, first
                out += self._read_backlog(tail, MAX_BATCH_FINDINGS - len(out))
                if tail.backlog:  # the batch is full: the rest next time, the file's own lines after it
                    continue
            try:
                st = os.stat(tail.path)
            except OSError:
                st = None
            replaced = st is not None and (st.st_ino != tail.inode or  # rotated (or, closed: inode reused)
                                           (tail.fd is None and st.st_size < tail.offset - len(tail.pending)))
            if replaced:  # finish the old file first
                if tail.fd is not None:
                    out += self._read(tail, tail.fd)
                    self._close(tail)
                else:
                    out += self._drain_rotated(tail)
                tail.inode, tail.offset, tail.pending, tail.prints = st.st_ino, 0, b"", None
            if tail.block is not None and (st is None or st.st_size <= tail.offset) and \
                    now - tail.active >= BLOCK_WAIT:
                out += self._tail_ended(tail)
            if st is None or st.st_size <= tail.offset and tail.fd is None:
                continue
            if self._open(tail):
                out += self._read(tail, tail.fd, MAX_BATCH_FINDINGS - len(out), MAX_POLL_BYTES)
        else:
            self._next = 0
        # (a loop that ended may still have stopped its last file's read at the bound, or a file's at MAX_POLL_BYTES:
        # that file is not read up)
        self._whole = len(out) < MAX_BATCH_FINDINGS and not self._cut
        return out

    def _read(self, tail: _Tail, fd: int, budget: int | None = None,
              limit: int | None = None) -> list[tuple[PodRef, Finding]]:
        """Read to the end of `fd`, or, given a budget, stop after the chunk that brought that many findings, or,
        given a limit, after the chunk that brought that many bytes (`_cut`: the file is not read up); the rest stays
        in the file for the next poll."""
        out, start = [], tail.offset
        while budget is None or len(out) < budget:
            if limit is not None and tail.offset - start >= limit:
                self._cut = True
                break
            try:
                data = os.read(fd, READ_CHUNK)
            except OSError:
                break
            if not data:
                break
            tail.offset += len(data)
            tail.active = time.monotonic()
            self.bytes_read += len(data)
            out += self._feed(tail, data)
            if len(data) < READ_CHUNK:
                break
        return out

    def _feed(self, tail: _Tail, data: bytes) -> list[tuple[PodRef, Finding]]:
        buf = tail.pending + data if tail.pending else data
        if 0 in data:  # a line holding a hole is what follows it (parsers.after_hole): a long hole is never pending
            buf = drop_holes(buf)
        cut = buf.rfind(b"\n")
        if cut != -1:
            cut = hold_back_cri_partials(buf, cut)
        if cut == -1:
            if len(buf) <= MAX_PENDING:
                tail.pending = buf
                return []
            cut = len(buf) - 1
        tail.pending = buf[cut + 1:]
        self._progress_lines(tail.ref, buf, cut + 1, tail.run)  # trainers' progress lines (agent/progress.py)
        # a line holding several records (a tqdm bar's "\r" rewrites, a record glued after its last state) read as its
        # records, as offline (parsers.scan.cri_records): the lines numbered from here on are the records
        split = cri_records(buf, cut)
        if split is not None:
            buf, cut = split, len(split) - 1
        lines = buf.count(b"\n", 0, cut + 1)
        self.lines += lines
        found = []
        first, tail.lines = tail.lines + 1, tail.lines + lines
        for f in tail.scanner.scan(io.BytesIO(buf[:cut + 1]), first_line=first):
            found.append(_of(tail.path, tail.ref, f))
        try:
            return self._job_level(tail, buf, cut, first, found)
        except Exception:  # noqa: BLE001 - a bug on one input never stops detection: the classifier's findings go on
            self.internal_errors += 1
            log.exception("reading the job facts of %s raised; its lines' findings go on without them", tail.path)
            return found

    def _job_level(self, tail: _Tail, buf: bytes, cut: int, first: int, found: list) -> list:
        """What triage's tables read in the read's lines beside the classifier's findings: the job facts, the rank of
        a record's unprefixed lines, the teardown after a stated success."""
        stated: list[tuple[int, float | None, str]] = []  # the read's statements of success (`_teardown`)
        facts = self._job_facts(tail, buf, cut + 1, first, found, stated)
        if facts:  # a catch-all finding of a fact's line (any NCCL WARN) gives way to the fact, as offline
            said = {f.line for f in facts}
            found = [(ref, f) for ref, f in found if not (f.line in said and generic(f))]
        if tail.traced is not None or any(buf.find(o, 0, cut + 1) != -1 for o in TRACED):
            facts += self._tracebacks(tail, buf, cut + 1, first)
        found += [_of(tail.path, tail.ref, f) for f in facts]
        if tail.record is not None or buf.find(RECORD_OPENER, 0, cut + 1) != -1:
            self._records(tail, buf, cut + 1, first, found)
        if tail.task is not None or buf.find(TASK_OPENER, 0, cut + 1) != -1:
            self._ray_tasks(tail, buf, cut + 1, first, found)
        if tail.success is not None or stated:
            self._teardown(tail, found, stated)
        self._collectives(tail, found)
        return found

    @staticmethod
    def _collectives(tail: _Tail, found: list) -> None:
        """Each rank's collective a watchdog's WorkNCCL timeout line names, completed as offline: its size
        (details["numel_in"], triage.read.numel_in) and its process group (details["pg"]: the line's own "[PG ...]" tag,
        else the group the rank's progress line at the same SeqNum names, `_Tail.groups`, read before it in this file;
        one a later read brings is not joined).  The Event says them, so that the cluster compares ranks' collectives
        across nodes by triage's own rule (agent/workloads.py, cluster/evidence.py, triage.attribute)."""
        for _, f in found:
            seq = f.details.get("seq")
            if f.kind != "nccl_timeout" or seq is None or not f.details.get("op"):
                continue
            numel = numel_in(f.message)
            if numel is not None:
                f.details["numel_in"] = numel
            if f.details.get("pg") is None and f.rank is not None:
                pg = tail.groups.get((f.rank, seq))
                if pg is not None:
                    f.details["pg"] = pg

    def _teardown(self, tail: _Tail, found: list, read: list[tuple[int, float | None, str]]) -> None:
        """The communicator errors this file printed after its own statement of the job's success (its latest before
        each, `_Tail.success` and those of this read), and the finished job's end by another's hand (both
        `tears_down`), marked as teardown (details["after_success"]: the row's name and line), as offline
        (triage.teardown): the pod's Event is not raised for them.  Any other finding after such a statement (within
        its window) is said, its Event saying that it came after it (details["stated_success"]: triage.teardown
        `stated_words`, which the cluster reads back).  `read`: this read's."""
        stated = [*([tail.success] if tail.success is not None else []), *read]
        tail.success = stated[-1]
        for _, f in found:
            if f.line is None:
                continue
            at = file_time(f.timestamp)
            hit = covering(stated, f.line, at, f.kind) if tears_down(f.kind, f.details) else None
            if hit is not None:
                f.details["after_success"] = f"{hit[2]} (line {hit[0]})"
                continue
            hit = covering(stated, f.line, at)  # said after the statement (never hidden): its Event says so
            if hit is not None:
                f.details["stated_success"] = stated_words(hit, f.line, at)

    def _records(self, tail: _Tail, buf: bytes, end: int, first: int, found: list) -> None:
        """The rank of a record's writer given to the findings of its lines that name none, as offline: SGLang's
        "[... TP0] Scheduler hit an exception: Traceback (most recent call last):" opens a record whose traceback lines
        (the exception among them) carry no prefix (triage.read.record_line, record_writer).  Only the lines from an
        opener on, while its record lasts (at most TRACEBACK_LINES), are looked at one by one (`_Tail.record`: a
        record the read cut short goes on with the next); between records, the next opener is found by a search of
        the bytes."""
        covered: list[tuple[int, int, int]] = []  # (first line, last line, the writer's rank)
        record = tail.record
        number, pos = first, 0
        if record is None:  # the line holding the first opener
            pos, passed = _to_opener(buf, RECORD_OPENER, 0, end) or (end, 0)
            number += passed
        start_covered = number
        while pos < end:
            nl = _line_end(buf, pos, end)
            message = _line_at(buf, pos, nl)[2]
            if record is not None:
                fields_, _, rest = strip_lead(message)
                step = None if fields_ or number - record[1] > TRACEBACK_LINES else (
                    record[2] if not rest.strip() else record_line(rest, record[2]))
                if step is not None:  # the record goes on (a blank line is skipped, as offline)
                    record = (record[0], record[1], step)
                    number, pos = number + 1, nl + 1
                    continue
                covered.append((start_covered, number - 1, record[0]))
                record = None
            said = record_writer(message) if message.endswith(job_facts.TRACEBACK) else None
            if said is not None:
                record, start_covered = (said["rank"], number, True), number + 1
                number, pos = number + 1, nl + 1
                continue
            nxt = _to_opener(buf, RECORD_OPENER, nl, end)  # no record open: on to the line of the next opener
            if nxt is None:
                break
            pos, passed = nxt
            number += passed
        if record is not None:
            covered.append((start_covered, number - 1, record[0]))
        tail.record = record
        for _, f in found:
            if f.rank is not None or f.line is None:
                continue
            for lo, hi, rank in covered:
                if lo <= f.line <= hi:
                    f.rank = rank
                    if f.kind in job_facts.LIVE:  # a job fact's Event words say its fields
                        f.details.setdefault("rank", rank)
                    break

    @staticmethod
    def _tracebacks(tail: _Tail, buf: bytes, end: int, first: int) -> list[Finding]:
        """The exceptions among buf[:end] that are failures, as offline (triage.read.TracebackReader: the traceback
        each ends, its chain, its writer's lines before it), as findings of the job fact "exception".  Only a window
        of lines from a traceback's header or frame line on (TRACED_OPENERS, found by a search of the bytes) is
        decoded and read, while a traceback word (TRACED_WORDS) came within TRACEBACK_LINES lines; its lines are read
        once, as they come (`_Traced.read` at the read's end, or where the window closes or fills), whatever the
        reads' sizes; a window that reaches MAX_TRACED lines goes on with a reader of its last TRACEBACK_LINES (a pod
        printing tracebacks without end holds no more, and each line is read twice at most); an exception read once
        never again."""
        out: list[Finding] = []
        window = tail.traced
        number, pos = first, 0
        while pos < end:
            if window is None:  # on to the line of the next opener
                ats = [at for o in TRACED if (at := buf.find(o, pos, end)) != -1]
                if not ats:
                    break
                start = buf.rfind(b"\n", 0, min(ats)) + 1
                number += buf.count(b"\n", pos, start)
                pos, window = start, _Traced(number)
            nl = _line_end(buf, pos, end)
            text = buf[pos:nl][:4 * TRACED_CHARS].decode("utf-8", "replace").rstrip("\r")[:TRACED_CHARS]
            window.lines.append(text)
            if any(w in text for w in TRACED_WORDS):
                window.last = number
            number, pos = number + 1, nl + 1
            if number - 1 - window.last > TRACEBACK_LINES:  # closed: read, then on to the next opener
                out += window.read()
                window = None
            elif len(window.lines) >= MAX_TRACED:  # full: read, then on with its last TRACEBACK_LINES lines
                out += window.read()
                window.renew(window.lines[-TRACEBACK_LINES:])
        if window is not None:
            out += window.read()
        tail.traced = window
        return out

    @staticmethod
    def _ray_tasks(tail: _Tail, buf: bytes, end: int, first: int, found: list) -> None:
        """The findings of the exception a Ray task's traceback ends with made that process's, as offline
        (triage.read.ray_task, FileReader): Ray's header of the task's error ("ray::WorkerDict.generate_sequences()
        (pid=838798, ip=10.138.0.27, ...)") opens it, and the first line after it, of the same writer (its prefixes),
        that is no frame's indented line and reads as an exception (within TRACEBACK_LINES) ends it; a traceback of the
        writer's own opening meanwhile is not the task's.  The finding's pid is the task's, details "task_pid" and
        "task_host" say it (a job fact's fields "pid" and "host" too), and the writer's rank and pid go to details as
        its reporter's.  Only the lines from a header on, while its traceback is open, are looked at one by one (a
        traceback a read cut short goes on with the next, `_Tail.task`); between them the next header is found by a
        search of the bytes."""
        ends: dict[int, tuple[int, str]] = {}  # exception line -> the task's (pid, host)
        task = tail.task
        number, pos = first, 0
        while pos < end:
            if task is None:  # on to the line of the next header
                nxt = _to_opener(buf, TASK_OPENER, pos, end)
                if nxt is None:
                    break
                pos, passed = nxt
                number += passed
            nl = _line_end(buf, pos, end)
            fields_, _, rest = strip_lead(_line_at(buf, pos, nl)[2])
            header = ray_task(rest)
            if header is not None:
                task = (*header, fields_, number)
            elif task is not None and fields_ == task[2]:
                if number - task[3] > TRACEBACK_LINES or rest.endswith(job_facts.TRACEBACK):
                    task = None
                elif not rest[:1].isspace() and job_facts.EXCEPTION.match(rest) is not None:
                    ends[number] = (task[0], task[1])
                    task = None
            elif task is not None and number - task[3] > TRACEBACK_LINES:
                task = None
            number, pos = number + 1, nl + 1
        tail.task = task
        for _, f in found:
            said = ends.get(f.line) if f.line is not None else None
            if said is None:
                continue
            pid, host = said
            if f.rank is not None:
                f.details.setdefault("reporter_rank", f.rank)
            if f.pid is not None and f.pid != pid:
                f.details.setdefault("reporter_pid", f.pid)
            f.rank, f.pid = None, pid
            f.details.update(task_pid=pid, task_host=host)
            if f.kind in job_facts.LIVE:  # a job fact's Event words say its fields: the task's process, no rank
                for name in ("rank", "local_rank"):
                    f.details.pop(name, None)
                f.details.update(pid=pid, host=host)

    def _job_facts(self, tail: _Tail, buf: bytes, end: int, first: int, found: list,
                   stated: list[tuple[int, float | None, str]]) -> list[Finding]:
        """The job facts among buf[:end] that name a culprit (triage.facts.LIVE_FACTS: a rank's death, a lost
        process, a barrier's lagging ranks) as findings of their kind, their fields in details: one keyword scan
        of the bytes; only a line holding one of their words is decoded and matched.  A line the parsers read
        (other than their catch-alls, triage.read.generic) is theirs, as offline.  A launcher's exit summary, one
        field a line after its opener, is read with the BLOCK_LINES lines after the opener (triage.read.block_fact;
        those a read cut short are awaited in the next, `_Tail.block`).  The job's statements of its own success are
        appended to `stated` (line, time, row name), for `_teardown`; the process group a watchdog's progress line
        names for its rank's SeqNum goes to `_Tail.groups`, for `_collectives`."""
        out: list[Finding] = []
        if tail.block is not None:  # a summary the last read cut short: its next lines open this one
            (opener, window), tail.block = tail.block, None
            self._block(tail, buf, 0, end, opener, window, out)
        theirs = None
        number, at = first, 0
        for start, stop, _ in self.facts.line_spans(buf, end):
            number += buf.count(b"\n", at, start)
            at = start
            text, env, message = _line_at(buf, start, stop)
            if any(o in message for o in BLOCK_OPENERS):
                self._block(tail, buf, stop + 1, end, number, [text], out)
                continue
            if any(k in message for k in PROGRESS_KEYWORDS):  # a watchdog's progress line: its rank's group
                group = progress_group(message)
                if group is not None:
                    rank, seq, pg = group
                    tail.groups.pop((rank, seq), None)
                    tail.groups[(rank, seq)] = pg
                    if len(tail.groups) > MAX_GROUPS:
                        del tail.groups[next(iter(tail.groups))]
                    continue
            said = job_facts.success(strip_lead(message)[2])
            if said is not None:  # the job's statement of its success: its teardown's errors after it raise no Event
                stated.append((number, file_time(env.timestamp if env is not None else None), said.name))
                continue
            hit = job_fact(message)
            if hit is None:
                continue
            if theirs is None:
                theirs = {f.line for _, f in found if not generic(f)}
            if number in theirs:
                continue
            row, fields = hit
            out.append(_fact_finding(row, fields, env, message, number))
        return out

    def _block(self, tail: _Tail, buf: bytes, pos: int, end: int, opener: int, window: list[str],
               out: list[Finding]) -> None:
        """A summary opened on line `opener` (`window` its lines so far, as written): its lines from buf[pos:end] up to
        BLOCK_LINES after the opener, read; its root as a rank_exit finding in `out`, else, the read having cut it
        short, kept in `tail.block` for the next."""
        while len(window) <= BLOCK_LINES and pos < end:
            nl = _line_end(buf, pos, end)
            window.append(buf[pos:nl].decode("utf-8", "replace").rstrip("\r"))  # (its envelope read below, once)
            pos = nl + 1
        if not _block_read(opener, window, out) and len(window) <= BLOCK_LINES:
            tail.block = (opener, window)

    @staticmethod
    def _tail_ended(tail: _Tail) -> list[tuple[PodRef, Finding]]:
        """The block the file's last line cut short (`_Tail.block`), no more of it to come: read as it stands
        (`_block_ended`), no longer held."""
        block, tail.block = tail.block, None
        return _block_ended(tail.path, tail.ref, block)

    def _progress_lines(self, ref: PodRef, buf: bytes, end: int, run: int | None = None) -> None:
        """Progress lines among buf[:end] (one regex search over the bytes; only keyword lines are decoded), of the
        container's run `run`.  An earlier run than a restart handed on in the same batch says nothing of the new one
        (the tracker learns the new run anew, and takes the restart first): its lines are not handed on."""
        if run is not None and run < self._restarting.get(ref, -1):
            return
        marks = None
        pos = 0
        now = time.time()
        while True:
            m = PROGRESS_PREFILTER.search(buf, pos, end)
            if m is None:
                break
            start = buf.rfind(b"\n", 0, m.start()) + 1
            stop = buf.find(b"\n", m.end(), end)
            stop = end if stop == -1 else stop
            pos = stop + 1
            text = buf[start:stop].decode("utf-8", "replace")
            # kubelet's envelope: the line's own time (none: read now), read for a progress line only (most keyword
            # lines are none: a JSON metrics line naming its "step" and "loss"), as the time is its costly part
            env = cri_split(text)
            found = recognise(env[0] if env is not None else text, keyword_seen=True)  # (PREFILTER found one in it)
            if found is not None:
                if marks is None:
                    marks = self._marks.setdefault(ref, [])
                stamp = finish(env[1]).timestamp if env is not None else None
                marks.append((stamp.timestamp() if stamp else now, found))
        if marks is not None and len(marks) > MAX_MARKS:
            del marks[:-MAX_MARKS]

    def take_progress(self) -> list[tuple[PodRef, list[tuple[float, Progress]]]]:
        """The progress lines read since the last call, per container."""
        out, self._marks = list(self._marks.items()), {}
        return out

    def take_restarted(self) -> list[PodRef]:
        """The containers started again since the last call (agent/progress.py learns their pace anew)."""
        out, self._restarted, self._restarting, self._restart_files = self._restarted, [], {}, set()
        return out

    def _read_backlog(self, tail: _Tail, budget: float) -> list[tuple[PodRef, Finding]]:
        """`tail`'s backlog (`_Tail.backlog`: its rotated files, oldest first) read on from where the last read stopped
        (`backlog_at` in the first, `_open_rotated`), a chunk at a time as `_read`: stopped after the chunk that brought
        `budget` findings, a file done once read to its end (one that cannot be opened there is said, its lines lost;
        a read failing once under way ends it with what it read, `_chunk`)."""
        out: list[tuple[PodRef, Finding]] = []
        while tail.backlog and len(out) < budget:
            if tail.reading is None:
                opened = self._open_rotated(tail.backlog[0], tail.backlog_at)
                if isinstance(opened, str):
                    log.warning("%s %s of its backlog read before; its lines are lost", tail.backlog[0], opened)
                else:
                    tail.reading = opened
            data = self._chunk(tail.reading[0], tail.backlog[0]) if tail.reading is not None else b""
            if not data:  # read to its end (or not to be read): the next
                out += self._flush(tail)
                self._close_backlog(tail)
                tail.backlog_at = 0
                del tail.backlog[0]
                continue
            tail.backlog_at += len(data)
            self.bytes_read += len(data)
            out += self._feed(tail, data)
        return out

    def _open_rotated(self, path: str, at: int, prints: tuple[int, ...] | None = None) -> tuple[Any, Any] | str:
        """The rotated file `path` opened (a .gz decompressed) at byte `at`: (the object to read, the raw file); else
        why not (said by the caller): it cannot be opened (gone since it was listed, or refused: `_open_safely`), does
        not reach `at` (a .gz damaged or cut short before it included: the decoder's `damage` said with it), or, a .gz
        given the fingerprint `prints` (`_Tail.prints`), its bytes before `at` have another."""
        fd = self._open_safely(path)
        if fd is None:
            return f"cannot be opened (gone, or refused) to read on from the {at} bytes"
        raw = os.fdopen(fd, "rb")
        reader = Decoded(raw, GZIP) if path.endswith(".gz") else raw
        why = f"does not reach the {at} bytes"
        try:
            if reader is raw:
                if os.fstat(fd).st_size >= at and raw.seek(at) == at:
                    return reader, raw
            else:  # (decompressed up to `at`, its first and last PRINT bytes kept for the fingerprint)
                head = last = b""
                left = at
                while left and (data := reader.read(min(left, READ_CHUNK))):
                    head += data[:max(PRINT - len(head), 0)]
                    last = (last + data)[-PRINT:]
                    left -= len(data)
                if not left and (prints is None or _fingerprint(
                        lambda n, pos: head[:n] if pos == 0 else last[len(last) - n:], at) == prints[1:]):
                    return reader, raw
                if not left:
                    why = f"has other bytes than ours before the {at} bytes"
                elif reader.damage:  # cut short or corrupt before `at`: the decoder's reason (parsers/decoded.py)
                    why += f" ({reader.damage})"
        except OSError:
            pass
        reader.close()
        raw.close()
        return why

    @staticmethod
    def _chunk(reader: Any, path: str) -> bytes:
        """The next READ_CHUNK bytes of a rotated file open (`_open_rotated`); b"" at its end, or when the read fails
        (said, the rest of it lost).  A .gz cut short or damaged ends where it stops decoding, every byte before it
        given (parsers.decoded), and is said there."""
        try:
            data = reader.read(READ_CHUNK)
        except OSError as exc:
            data, damage = b"", exc.strerror or str(exc)
        else:
            damage = getattr(reader, "damage", None) if not data else None
        if damage:
            log.warning("%s cannot be read to its end (%s); the rest of its lines are lost", path, damage)
        return data

    def _release(self, tail: _Tail) -> list[tuple[PodRef, Finding]]:
        """The last words of a deleted pod's file (its files went with it): the backlog's file being read (open) read
        to its end, then the file where open, its last partial line flushed.  What was owed and not open (backlog
        files not reached, the file itself behind them) is gone: said once here, its lines lost (not again per file
        by `_read_backlog`, which is left the rotated files still there)."""
        owed = bool(tail.backlog)
        first = 1 if tail.reading is not None else 0
        there = [b for b in tail.backlog[first:] if os.path.lexists(b)]
        gone = len(tail.backlog) - first - len(there)
        if not first and there[:1] != tail.backlog[:1]:
            tail.backlog_at = 0  # (the file it was the offset in is gone)
        tail.backlog[first:] = there
        out = self._read_backlog(tail, math.inf) if owed else []
        out += self._drain(tail) + self._flush(tail) + self._tail_ended(tail)
        lost = [f"{gone} rotated files"] if gone else []
        if owed and tail.fd is None:  # (read from its start after its backlog, never opened)
            lost.append("the file itself")
        if lost:
            log.warning("%s: pod deleted before %s were read; their lines are lost", tail.path, " and ".join(lost))
        return out

    def _drain(self, tail: _Tail) -> list[tuple[PodRef, Finding]]:
        return self._read(tail, tail.fd) if tail.fd is not None else []

    def _drain_rotated(self, tail: _Tail) -> list[tuple[PodRef, Finding]]:
        """The file we were reading was rotated while not open: its lines from our offset on, found among the rotated
        files (`_rotated_ours`), then those of every file rotated after it, whole (the kubelet rotated it more than
        once meanwhile: never read)."""
        rotated = rotated_files(tail.path)
        found = self._rotated_ours(tail, rotated)
        if found is None:
            log.warning("%s was rotated away while not followed; lines after offset %d are lost", tail.path,
                        tail.offset)
            return []
        at, out = found
        for later in rotated[at + 1:]:
            read = self._read_rotated(tail, later, 0)
            if isinstance(read, str):
                log.warning("%s %s; its lines are lost", later, read)
            else:
                out += read
        return out + self._flush(tail)

    def _rotated_ours(self, tail: _Tail, rotated: list[str]) -> tuple[int, list[tuple[PodRef, Finding]]] | None:
        """Which of the `rotated` files (oldest first) was the one we read, and its lines from our offset on: a plain
        one by inode, else the newest .gz (which keeps no inode) that reaches our offset and, its fingerprint saved
        with the offset (`_Tail.prints`), has it.  The kubelet compresses every rotated file but the newest, so ours is
        compressed only after a second rotation, when it is the newest .gz; after a third, a later .gz reaches the
        offset too, and only the fingerprint tells ours (without one, a state saved before it, the later one is taken:
        its lines before the offset and ours after it are not read; none twice)."""
        for at, cand in enumerate(rotated):
            if not cand.endswith(".gz"):
                try:
                    same = os.stat(cand).st_ino == tail.inode
                except OSError:
                    continue
                out = self._read_rotated(tail, cand, tail.offset) if same else None
                if isinstance(out, list):
                    return at, out
        prints = tail.prints if tail.prints is not None and len(tail.prints) == 3 and tail.prints[0] == tail.offset \
            else None
        for at in reversed(range(len(rotated))):
            out = self._read_rotated(tail, rotated[at], tail.offset, prints) if rotated[at].endswith(".gz") else None
            if isinstance(out, list):
                return at, out
        return None

    def _read_rotated(self, tail: _Tail, path: str, offset: int,
                      prints: tuple[int, ...] | None = None) -> list[tuple[PodRef, Finding]] | str:
        """The findings of the rotated file `path` (a .gz decompressed) from `offset` on; else why it is not to be read
        there (`_open_rotated`: it cannot be opened, does not reach `offset`, or, a .gz given the fingerprint `prints`,
        is another file).  A read failing once under way ends with what it read (`_chunk`)."""
        opened = self._open_rotated(path, offset, prints)
        if isinstance(opened, str):
            return opened
        reader, raw = opened
        out: list[tuple[PodRef, Finding]] = []
        try:
            while data := self._chunk(reader, path):
                self.bytes_read += len(data)
                out += self._feed(tail, data)
        finally:
            reader.close()
            raw.close()
        return out

    def _flush(self, tail: _Tail) -> list[tuple[PodRef, Finding]]:
        if not tail.pending:
            return []
        data, tail.pending = tail.pending + b"\n", b""
        return self._feed(tail, data)

    # ---- the Source loop ----------------------------------------------------------------------------

    def run(self, emit: Callable, stop: threading.Event) -> None:
        self._reader = threading.get_ident()
        while not stop.is_set():
            if not self.turn(emit):
                stop.wait(0.25)
        self.save()
        self.close()

    def close(self) -> None:
        """Every followed file closed (the loop's end; its offsets saved before): a source stopped holds no descriptor
        (an agent built and stopped in one process, as tests and the bench do, would hold one a followed file)."""
        for tail in self.tails.values():
            self._close(tail)

    def turn(self, emit: Callable, now: float | None = None) -> bool:
        """One turn of the source's loop (`run`), on the thread that reads: the files discovered when `scan_seconds`
        have passed since the last discovery, the offsets snapshot taken while nothing is in flight, a poll, what it
        found handed on to `emit` (a WorkloadFindings whose `done` acknowledges the snapshot taken with it), the
        offsets saved when 2 s have passed since the last save; `now` the time (time.monotonic() unless given: a
        bench's turns).  Whether the poll found anything (else the loop waits before the next turn)."""
        now = time.monotonic() if now is None else now
        if now - self._last_scan >= self.scan_seconds:
            self.discover()
            self._last_scan = now
        with self._ack_lock:
            if self._taken == self._sent:  # nothing in flight: what was read so far is safe
                self._safe = self._snapshot()
        found = self.poll()
        progress, restarted = self.take_progress(), self.take_restarted()
        if found or progress or restarted:
            with self._ack_lock:
                self._sent += 1
            emit(WorkloadFindings(found, progress=progress, restarted=restarted,
                                  done=partial(self._taken_up_to, self._snapshot())))
        if self._read_up is None and self.listed:  # (a poll cut short goes on from the next file next time)
            self._polls_listed += 1
            if self._whole or self._polls_listed >= READ_UP_POLLS:
                self._read_up = self._sent
        if now - self._last_save >= 2.0:
            self.save()
            self._last_save = now
        return bool(found) or self._cut  # (a file read to MAX_POLL_BYTES: the rest at once, no wait)

    @property
    def caught_up(self) -> bool:
        """The pods' logs were listed and read to their end once, and the pipeline took what that read: before it, a
        pod's silence is not known (agent/progress.py: an agent started again restored its pods' last advances, and
        the lines they wrote while it was down are still unread)."""
        return self._read_up is not None and self._taken >= self._read_up

    def _taken_up_to(self, snapshot: dict[str, Any]) -> None:
        """The pipeline took a batch (in the order sent): the offsets read when it was sent are safe."""
        with self._ack_lock:
            self._taken += 1
            self._safe = snapshot

    def _load(self) -> None:
        """The saved (inode, offset) of each file to `_saved`, with its fingerprint's CRCs when saved ("prints", apart
        from "offsets", which an earlier agent, rolled back to, reads as it did), the rotated files still owed before a
        file read from its start to `_owed` ("backlog") and where the read of the first stopped to `_owed_at`
        ("backlog_at"), what each file held for its later lines then to `_held` ("held", `_Held`, bounded), the
        container directories listed then
        and the time of that listing to `_containers` and `_listed_at` (a state saved before them has none:
        `_containers` stays None); an entry not of its type is dropped alone (keyspec.each) and said once, the rest
        kept."""
        if self.store is None:
            return
        faults: list[str] = []
        state = self.store.load()
        prints = dict(each(state.get("prints", {}), dict[str, tuple[POSITION, POSITION]], "prints", faults))
        self._owed = dict(each(state.get("backlog", {}), dict[str, list[str]], "backlog", faults))
        self._owed_at = dict(each(state.get("backlog_at", {}), dict[str, POSITION], "backlog_at", faults))
        self._held = dict(each(state.get("held", {}), dict[str, _Held], "held", faults))
        self._saved = {k: [*v, *prints.get(k, ())] for k, v in each(state.get("offsets", {}),
                                                                    dict[str, tuple[POSITION, POSITION]], "offsets",
                                                                    faults)}
        if "containers" in state or "listed_at" in state:
            try:
                listed_at = convert(state.get("listed_at"), float, "listed_at")
                self._containers = set(convert(state.get("containers"), list[str], "containers"))
                self._listed_at = listed_at
            except Invalid as exc:  # (then every container not followed is history, as before they were saved)
                faults.append(str(exc))
        dropped(f"state file {self.store.path}", faults)

    def _snapshot(self) -> dict[str, Any]:
        """What `save` writes but the fingerprints (`_fingerprinted` adds them as it writes): each followed file's
        (inode, offset), the rotated files still to be read before a file read from its start ("backlog": their names,
        `_Tail.backlog`; only while some are owed; "backlog_at": where the read of the first stopped, the lines read
        whole), what each file holds for its later lines ("held", `_Held`), and the last listing's container directories
        (none past MAX_CONTAINERS) with its time, taken together (a container saved as listed has its files' offsets),
        but not the files of restarts not yet handed on (`_restart_files`).  Taken by the thread that reads (`run`,
        `save`) at every turn of its loop: no file is read for it."""
        offsets, owed, owed_at, held = {}, {}, {}, {}
        for p, t in self.tails.items():
            if p in self._restart_files:  # (its restart not handed on yet: new again to the next start)
                continue
            if (h := _saved_contexts(t)) is not None:  # (the offset staying past their lines)
                held[p] = h
            # (a partial line pending is the backlog's while one is owed: its read goes on before it)
            offsets[p] = [t.inode, t.offset - (0 if t.backlog else len(t.pending))]
            if t.backlog:
                owed[p] = [os.path.basename(b) for b in t.backlog]
                if t.backlog_at > len(t.pending):
                    owed_at[p] = t.backlog_at - len(t.pending)
        data: dict[str, Any] = {"offsets": offsets, **({"backlog": owed} if owed else {}),
                                **({"backlog_at": owed_at} if owed_at else {}),
                                **({"held": held} if held else {})}
        if self._containers is None or len(self._containers) > MAX_CONTAINERS:
            return data
        return {**data, "containers": self._listing, "listed_at": self._listed_at}

    def _fingerprinted(self, data: dict[str, Any], reader: bool) -> dict[str, Any]:
        """`data` (a `_snapshot`) with the fingerprint's CRCs of each file at its offset where known ("prints": [head,
        before the offset], `_Tail.prints`), computed as it is saved, once per (inode, offset) (`_printed`), not at
        every snapshot: from the file's open descriptor on the thread that reads (`reader`), else from the file opened
        again, the path's or, rotated since the snapshot, the rotated file of its inode (`_print_at`)."""
        prints, printed = {}, {}
        for p, (inode, at) in data["offsets"].items():
            tail = self.tails.get(p)
            known = self._printed.get(p)
            if known is not None and known[:2] == (inode, at):
                found = known[2]
            elif tail is not None and tail.inode == inode and tail.prints is not None and tail.prints[0] == at:
                found = tail.prints[1:]  # (loaded with the offset, or kept as the file was closed)
            else:
                found = self._print_at(p, inode, at, tail.fd if reader and tail is not None and tail.inode == inode
                                       else None)
            printed[p] = (inode, at, found)
            if found:
                prints[p] = list(found)
        if reader:
            self._printed = printed
        return {**data, "prints": prints}

    def _print_at(self, path: str, inode: int, at: int, fd: int | None = None) -> tuple[int, ...]:
        """The fingerprint's CRCs of the file `inode` at the offset `at` (`_fingerprint`): read from `fd` (open on it),
        else from `path` or one of its plain rotated files opened and found to be it; () when not known (gone,
        compressed, shorter than `at`, or `at` its start)."""
        if not at:
            return ()
        if fd is not None:
            try:
                return _fingerprint(partial(os.pread, fd), at) or ()
            except OSError:
                return ()
        for cand in (path, *(c for c in reversed(rotated_files(path)) if not c.endswith(".gz"))):
            own = self._open_safely(cand)
            if own is None:
                continue
            try:
                if os.fstat(own).st_ino == inode:
                    return _fingerprint(partial(os.pread, own), at) or ()
            except OSError:
                return ()
            finally:
                os.close(own)
        return ()

    def save(self) -> bool:
        """Save the read offsets, but no further than the pipeline has taken: findings still queued (a SIGTERM
        stops the agent after a short drain) are read again at the next start, never lost.  Called by the source
        thread every 2 s and as it stops, and by the agent after its drain, while the source's thread may still be
        reading: only the thread that reads (`_reader`) snapshots what it read, another writes the last safe point
        the reader left (`_safe`: a snapshot of its own, or the one sent with the last batch the pipeline took),
        never an offset read but not yet sent, nor the files' table as the reader changes it.  Whether nothing failed
        (False: the store's OSError, said as a warning)."""
        if self.store is None:
            return True
        with self._save_lock:
            with self._ack_lock:
                if self._reader in (None, threading.get_ident()) and self._taken == self._sent:
                    self._safe = self._snapshot()
                data = self._safe
            if data is None or data == self._written:  # an idle node writes (and fsyncs) nothing
                return True
            try:
                self.store.save(self._fingerprinted(data, self._reader in (None, threading.get_ident())))
            except OSError as exc:
                log.warning("cannot save pod log offsets: %s", exc)
                return False
            self._written = data
            return True

    def counters(self) -> dict[str, int]:
        return {"open_files": sum(1 for t in self.tails.values() if t.fd is not None), "files": len(self.tails),
                "records": self.lines, "refused": self.refused, "uuid_evictions": self.uuid_evictions(),
                "internal_errors": self.internal_errors}

    def memo_evictions(self) -> int:
        """Lines forgotten by the shared repeat memo (at most POD_MEMO_SIZE distinct lines remembered)."""
        return self._gone_memo_evictions + sum(t.scanner.classifier.memo_evictions for t in list(self.tails.values()))

    def scan_failures(self) -> int:
        """Buffers the scan engines raised on (parsers/prefilter.py `scan_failures`): the lines' and the job facts'."""
        return self.prefilter.scan_failures + self.facts.scan_failures

    def uuid_evictions(self) -> int:
        """pci -> UUID entries forgotten by the per-file classifiers (each holds at most MAX_UUIDS)."""
        return self._gone_evictions + sum(t.scanner.classifier.uuid_evictions for t in list(self.tails.values()))
