"""`gpu-npd triage PATH...`: a failed job's logs in, its incidents out, most likely root cause first.

The edges only: walking the paths, opening files (plain, gzip, xz or bzip2, by content; a tar archive's members,
each as a file at its path in the archive: offline.inputs), turning bytes into lines, and printing. What the lines mean and what caused the failure is triage's (the pure core shared with the cluster
component).

Exit codes:
  0  at least one incident found, every input read
  1  every input read, no failure found in them
  2  an input could not be read (missing, unreadable, a directory with no files, a damaged compressed file or archive:
     its readable part is still used, a log another tool must read first (a binary journal, zstd: the error names
     the command), a binary file named on the command line (one met walking a directory or an archive is skipped and
     listed), or its worker process failed), or bad usage

Files are read in worker processes (`--jobs`) when there are several and enough bytes to repay starting them; the
output is the same as reading them in turn (each file is read alone; their clocks and evidence merge in order).
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import stat
import sys
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Iterator

import click

from parsers import after_hole
from triage import DEFAULT_WINDOW, Clock, Evidence, Incident, attribute, teardown, to_json
from triage.attribute import file_names
from triage.inventory import read_inventory
from triage.ranks import Origin, from_path
from triage.read import FileReader

from .cli import YEARS

EXIT_FOUND, EXIT_NOTHING, EXIT_INPUT = 0, 1, 2
MAX_LINE_BYTES = 1 << 16  # bytes of one line read; the rest of a longer line is dropped, never held (lines_of)
SKIP_NAMES = frozenset({".DS_Store"})
# input errors written to stderr one a line; the rest counted in one more (a directory of 20,000 unreadable files is
# not 20,000 lines), every one still in the JSON document's "errors"
MAX_ERRORS_SHOWN = 20


@dataclass
class Inputs:
    """What was read and what could not be."""

    files: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    evidence: int = 0


def walk(paths: tuple[str, ...], inputs: Inputs) -> Iterator[tuple[str, str | None]]:
    """(file, root) for every file named or under a named directory, in a stable order.  `root` is the directory
    the user named (its subdirectories name hosts and ranks), or for a named file its own directory (only the
    file's name then counts)."""
    for path in paths:
        if path == "-":
            yield path, None
        elif os.path.isdir(path):
            found = False
            unlisted: list[OSError] = []  # directories it may not list (os.walk skips them without a word)
            for top, dirs, names in os.walk(path, onerror=unlisted.append):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.startswith(".") or name in SKIP_NAMES:
                        continue
                    found = True
                    file = os.path.normpath(os.path.join(top, name))
                    if _special(file):  # a FIFO would block the read forever, a device read without end
                        inputs.skipped.append(f"{file}: not a regular file, not read")
                        continue
                    yield file, os.path.normpath(path)
            for exc in unlisted:  # their files unread: an input error, never a job read whole
                inputs.errors.append(f"{exc.filename}: cannot read: {exc.strerror or exc}")
            if not found and not unlisted:  # a wrong directory must not read as a job without failures
                inputs.errors.append(f"{path}: no files in this directory (hidden ones are skipped)")
        elif os.path.exists(path):
            yield path, os.path.dirname(path) or "."
        else:
            inputs.errors.append(f"{path}: no such file or directory")


def _special(path: str) -> bool:
    """A FIFO, socket or device met walking a directory (as an archive's such members, they are skipped); a named one
    is read (`<(kubectl logs ...)` is a pipe), a dangling link left to fail as unreadable."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def lines_of(fp, inputs: Inputs, name: str) -> Iterator[str]:
    """Decoded lines of a text stream (invalid UTF-8 replaced, over-long lines cut; binary content was told apart
    when it was opened, offline.inputs.binary).  A line is read at most MAX_LINE_BYTES at a time, the rest of a longer
    one read and dropped a block at a time: never held whole (a crash's NUL run, gigabytes with no newline).  A line
    holding a run of NUL bytes is what follows its last run (parsers.after_hole: the rule `parse` and the agent share;
    a last line ending in its hole, nothing after it, not even a newline, is kept whole)."""
    readline = fp.readline
    for raw in iter(functools.partial(readline, MAX_LINE_BYTES), b""):  # (C-level iteration: as fast as `for raw in fp`)
        if len(raw) == MAX_LINE_BYTES or 0 in raw:  # (rare; `0 in` is a memchr: `b"\0" in` is slower)
            raw = _line(raw, readline)
        yield raw.decode("utf-8", "replace")


def _line(raw: bytes, readline) -> bytes:
    """A line `lines_of` read that holds a hole or may be cut: the text after its last NUL run (else itself), at most
    MAX_LINE_BYTES of it, the rest of a longer line read and dropped."""
    after = after_hole(raw) if 0 in raw else None  # the text after the hole so far
    rest = raw
    while len(rest) == MAX_LINE_BYTES and rest[-1:] != b"\n":  # cut: the rest dropped, but what follows a hole
        rest = readline(MAX_LINE_BYTES)
        if 0 in rest:
            after = after_hole(rest)
        elif after is not None and len(after) < MAX_LINE_BYTES:
            after += rest[:MAX_LINE_BYTES - len(after)]
    return after or raw


@dataclass(slots=True)
class _Read:
    """One file's reading, done apart (in a worker process or here): what `collect` merges in the listed order.  A
    pool's readings are held until their turn (20,000 files: 20,000 readings), so one keeps its evidence and little
    else: no clock that gathered nothing, no empty lists (tests/triage/test_triage_parallel.py counts its objects)."""

    name: str
    evidence: list[Evidence]
    clock: Clock | None  # None: it gathered no anchor and no dated stamp
    read: bool  # the file was opened (its name belongs in `files`, even when damaged)
    errors: list[str] | tuple[()]
    skipped: list[str] | tuple[()]
    members: list[str] | None = None  # an archive's members read (ARCHIVE:MEMBER), listed in `files` for it
    binary: bool = False  # binary content, not read: skipped in a walked directory, an input error when named


def _read_file(path: str, root: str | None, year: int | None) -> _Read:
    """Read one file with its own Clock and Inputs (a worker process's task; top level, so `spawn` can import it).  A
    tar archive is read member by member, each named ARCHIVE:MEMBER, its host and rank from its path in the archive
    (a bundle of node-a/kern.log, node-b/... groups by node as a directory does; else the archive's own place)."""
    from .inputs import InputDamaged, Notes, NotText, read_input

    name = "<stdin>" if path == "-" else path
    clock, inputs, evidence = Clock(), Inputs(), []
    notes = Notes()
    members: list[str] = []
    read = binary = False
    try:
        for stream in read_input(path, notes=notes, then="gpu-npd triage -"):
            if stream.member is not None and _hidden(stream.member):  # as walking a directory skips them
                continue
            label = name if stream.member is None else stream.name
            lines = lines_of(stream.fp, inputs, label)
            first = next(lines, None)
            found, taken = (read_inventory(lines, first, label, notes=inputs.skipped) if first is not None else
                            (None, []))
            if found is not None:  # the cluster's objects (kubectl's wide table, the API's JSON or YAML)
                evidence.extend(found)
                for e in found:  # dated: their year is the job's where its logs print none (c10's "[E725 06:46:03..]")
                    if e.time is not None:
                        clock.dated(e.time)
            else:
                origin = None if stream.member is None else _member_origin(path, root, stream.member)
                reader = FileReader(label, clock, root=root, year=year, origin=origin)
                evidence.extend(reader.read(itertools.chain(taken, lines)))
            if stream.member is not None:
                members.append(label)
        read = True
    except NotText as exc:
        if exc.what.startswith("binary content"):  # skipped in a walked directory (collect), as before
            binary = True
            inputs.skipped.append(f"{name}: binary, not read")
        else:  # a log that another tool reads (a journal, zstd): an input error wherever it is
            inputs.errors.append(f"{name}: {exc.advice('gpu-npd triage -')}")
    except InputDamaged as exc:  # the evidence of the part that decodes was kept above
        read = True
        inputs.errors.append(f"{name}: {exc}; evidence is from the part before it")
    except (OSError, EOFError) as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else (str(exc) or "truncated input")
        inputs.errors.append(f"{name}: cannot read: {reason}")
    inputs.errors.extend(notes.errors)
    inputs.skipped.extend(notes.skipped)
    return _Read(name, evidence, None if clock.empty else clock, read, inputs.errors or (), inputs.skipped or (),
                 members if read and members else None, binary)


def _hidden(member: str) -> bool:
    return any(part.startswith(".") for part in member.split("/")) or member.rsplit("/", 1)[-1] in SKIP_NAMES


def _member_origin(archive: str, root: str | None, member: str) -> Origin:
    """Who wrote a member's lines as its path in the archive says (`node-b/kern.log`: node-b); the host and rank it
    does not name, from the archive's own place (`job/node-b/logs.tar.gz`, as a file there would be)."""
    inside = from_path("/" + member, "/")
    outside = from_path(archive, root)
    return replace(inside, host=inside.host or outside.host,
                   rank=inside.rank if inside.rank is not None or inside.local_rank is not None else outside.rank,
                   local_rank=inside.local_rank if inside.rank is not None or inside.local_rank is not None
                   else outside.local_rank)


def _walked(paths: tuple[str, ...], skipped: list[str] | None = None) -> list[tuple[str, str | None] | str]:
    """`walk`'s files, with each path it could not find (a message) where walking met it: the order the errors are
    listed in when files are read as they are walked; what it skipped added to `skipped`."""
    out: list[tuple[str, str | None] | str] = []
    probe = Inputs()
    for item in walk(paths, probe):
        out.extend(probe.errors)
        probe.errors.clear()
        out.append(item)
    out.extend(probe.errors)
    if skipped is not None:
        skipped.extend(probe.skipped)
    return out


def jobs_default() -> int:
    """The CPUs this process may run on (its affinity mask: a container's or taskset's share, not the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return max(1, os.cpu_count() or 1)


def collect(paths: tuple[str, ...], year: int | None, inputs: Inputs, jobs: int = 1) -> list[Evidence]:
    """Every file's evidence, in the order the files are walked, on one clock.  With `jobs` > 1 and enough bytes to
    repay the worker processes' start (PARALLEL_MIN_BYTES), files are read in a pool of up to that many processes; the
    result is the same as reading them in turn here (each file is read with nothing from another; the clocks merge in
    the same order)."""
    items = _walked(paths, inputs.skipped)
    files = [item for item in items if isinstance(item, tuple)]
    named = {item for item in files if item[0] in paths and not os.path.isdir(item[0])}  # not found by walking
    readings: dict[int, _Read] = {}
    workers = _workers(files, jobs)
    if workers > 1:
        readings = _read_in_pool(files, year, workers)
    clock = Clock()
    evidence: list[Evidence] = []
    k = 0
    for item in items:
        if isinstance(item, str):
            inputs.errors.append(item)
            continue
        done = readings.pop(k, None)
        if done is None:  # serial, stdin, or a file the pool gave no reading of
            path, root = item
            done = _read_file(path, root, year)
        k += 1
        evidence.extend(done.evidence)
        if done.clock is not None:
            clock.absorb(done.clock)
        if done.binary and item in named:  # named on the command line: no log, as `gpu-npd parse` says
            inputs.errors.append(f"{done.name}: not a text log: binary content")
        else:
            inputs.skipped.extend(done.skipped)
        if done.read:
            inputs.files.extend(done.members if done.members is not None else [done.name])
        inputs.errors.extend(done.errors)
    # an amendment is an earlier line's evidence again (triage.read: a later line of its event amended it): no line
    inputs.evidence = len(evidence) - sum(1 for e in evidence if "amends" in e.details)
    # any file's dated stamp gives the year (Clock.year, over all files); with none, this year is a guess (bytedance/
    # flux #40's 2024 glog stamps read in 2026 are dated 2026): the verdict has no clock note to say so in,
    # docs/triage.md ("Stamps without a year") says it and that `--year` fixes it
    return clock.align(evidence, fallback_year=year or datetime.now(timezone.utc).year)


# Bytes of files below which a pool's start costs more than it saves (measured with bench/triage_scale.py's job on
# 2 CPUs, ~30 MiB/s read per process): a forked worker starts in milliseconds and gains from ~1 MiB on; a spawned
# (or forkserver's) one imports triage anew, ~0.4 s, repaid from ~20 MiB on.
PARALLEL_MIN_BYTES = {"fork": 2 << 20}
_MIN_BYTES_OTHER = 24 << 20
# files sent to the pool ahead of the one whose reading is taken next, per worker: enough to keep every worker busy,
# not 20,000 futures and tasks held at once
IN_FLIGHT = 4
START_METHOD: str | None = None  # multiprocessing's start method for the pool (None: the platform's default)


def _workers(files: list[tuple[str, str | None]], jobs: int) -> int:
    """How many worker processes read `files` (0: none, read here in turn): at most `jobs`, one per file, and one per
    half the threshold's bytes (64 CPUs are not started for a few MiB)."""
    if jobs < 2:
        return 0
    import multiprocessing

    sized = [_size(path) for path, _ in files if path != "-"]
    least = PARALLEL_MIN_BYTES.get(START_METHOD or multiprocessing.get_start_method(), _MIN_BYTES_OTHER)
    total = sum(sized)
    if len(sized) < 2 or total < least:
        return 0
    return min(jobs, len(sized), max(2, total // max(1, least // 2)))


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _quiet_worker() -> None:
    """Ctrl-C is the parent's to handle: it stops the pool (a worker's own KeyboardInterrupt would print a traceback
    per worker)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _read_in_pool(files: list[tuple[str, str | None]], year: int | None, jobs: int) -> dict[int, _Read]:
    """{index in `files`: its reading} for every file but stdin, read by `jobs` worker processes, biggest first.  A
    file whose reading raised is reported as unreadable; when a worker dies, the files it took down with the pool are
    read again in a new one, and once a pool makes no progress, each in a pool of its own (the one that kills its
    worker is reported, the others read)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    todo = sorted((k for k, (path, _) in enumerate(files) if path != "-"), key=lambda k: -_size(files[k][0]))
    out: dict[int, _Read] = {}
    alone = False
    context = multiprocessing.get_context(START_METHOD)
    while todo:
        batches = [[k] for k in todo] if alone else [todo]
        broken: list[int] = []
        for batch in batches:
            try:
                pool = ProcessPoolExecutor(max_workers=1 if alone else jobs, mp_context=context,
                                           initializer=_quiet_worker)
            except (OSError, ImportError, NotImplementedError):  # no processes here (no /dev/shm, a sandbox):
                return out  # what is left is read here, in turn
            try:
                futures = {}  # sent, not yet taken: batch[n:sent] at the n-th, at most IN_FLIGHT a worker
                sent = 0
                for n, k in enumerate(batch):
                    while sent < min(len(batch), n + IN_FLIGHT * jobs):
                        nxt = batch[sent]
                        try:
                            futures[nxt] = pool.submit(_read_file, files[nxt][0], files[nxt][1], year)
                            sent += 1
                        except BrokenProcessPool:  # a worker died already: the rest is not sent
                            sent = len(batch)
                    name = files[k][0]
                    future = futures.pop(k, None)
                    try:
                        if future is None:
                            raise BrokenProcessPool(name)
                        out[k] = future.result()
                    except BrokenProcessPool:
                        if alone:
                            out[k] = _unread(name, "the process reading it died")
                        else:
                            broken.append(k)
                    except Exception as exc:  # noqa: BLE001 - a bug reading one file must not lose the others
                        out[k] = _unread(name, f"{type(exc).__name__}: {exc}")
            except BaseException:  # Ctrl-C (or anything else here): stop the workers now, not after their files
                _stop(pool)
                raise
            pool.shutdown(wait=True)
        alone = alone or len(broken) == len(todo)  # no file finished in that pool: find the one that kills
        todo = broken
    return out


def _unread(name: str, reason: str) -> _Read:
    return _Read(name, [], None, False, [f"{name}: cannot read: {reason}"], ())


def _stop(pool) -> None:
    processes = list((getattr(pool, "_processes", None) or {}).values())  # shutdown forgets them
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=5)
    # then the executor's manager thread joined here, the workers gone: left running, it could still write to its
    # wake-up pipe while the interpreter exits ("Exception ignored in: <module 'threading'> .. OSError: [Errno 9] Bad
    # file descriptor" after "interrupted", a traceback on Ctrl-C one run in a few)
    pool.shutdown(wait=True, cancel_futures=True)


@click.command("triage")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text for people; json: one document, schema gpu-npd.triage/v1 (docs/triage.md).")
@click.option("--year", type=YEARS, default=None,
              help="Year for stamps that carry none (syslog, glog); default: the year of the job's dated stamps.")
@click.option("--window", type=click.FloatRange(min=0), default=DEFAULT_WINDOW, show_default=True,
              help="Seconds a node fault may precede the job's first failure and still explain it (at least the "
                   "collective timeout the watchdog lines report).")
@click.option("--evidence", "evidence_limit", type=click.IntRange(min=0), default=8, show_default=True,
              help="Evidence lines shown per incident in text output (json lists up to 200).")
@click.option("--jobs", "jobs_text", metavar="N", default=None,
              help="Files read at once, each in a worker process (when there are several and enough bytes to repay "
                   "starting them); 1 reads them in turn. Default: the CPUs this process may use.")
@click.argument("paths", nargs=-1, required=True,
                type=click.Path(allow_dash=True, readable=False))  # an unreadable one is said, the others read
def triage(fmt: str, year: int | None, window: float, evidence_limit: int, jobs_text: str | None,
           paths: tuple[str, ...]) -> None:
    """Attribute a failed multi-rank job to its root cause from the logs operators collect.

    PATH is a file (plain or compressed: gzip, xz, bzip2), a tar archive (plain or compressed: its members read as a
    directory's files), a directory (walked: one subdirectory per node such as node-b/kern.log, or per-rank files
    such as rank-3.log), or '-' for stdin. Exit 0 when an incident was found, 1 when the logs hold
    no failure, 2 when an input could not be read (the rest is still used), 130 on Ctrl-C.
    """
    jobs = jobs_default() if jobs_text is None else _jobs(jobs_text)
    inputs = Inputs()
    evidence = collect(paths, year, inputs, jobs=jobs)
    # teardown errors and ends after a success their file stated, and earlier Slurm steps' ends before one: said, never
    # failures (split once: attribute takes the split)
    split = teardown(evidence)
    # the reasons name a file short (its name alone where no other file has it), the evidence by its path as given
    incidents = attribute(split, window=window, names=file_names(inputs.files))
    noise, earlier = split.noise, split.earlier
    for message in inputs.errors[:MAX_ERRORS_SHOWN]:
        click.echo(f"gpu-npd triage: {message}", err=True)
    if len(inputs.errors) > MAX_ERRORS_SHOWN:
        click.echo(f"gpu-npd triage: and {len(inputs.errors) - MAX_ERRORS_SHOWN} more input error(s), not shown "
                   "(every one in --format json's \"errors\")", err=True)
    try:
        if fmt == "json":
            doc = to_json(incidents, evidence_limit=200, inputs=inputs.files, errors=inputs.errors,
                          skipped=inputs.skipped, **({"teardown": teardown_json(noise)} if noise else {}),
                          **({"earlier_steps": teardown_json(earlier, key="before_success")} if earlier else {}))
            sys.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")
        else:
            sys.stdout.write(render_text(incidents, inputs, evidence_limit, noise, earlier))
        sys.stdout.flush()
    except BrokenPipeError:  # `gpu-npd triage logs/ | head`
        sys.stderr.close()
        sys.exit(EXIT_FOUND if incidents else EXIT_NOTHING)
    sys.exit(EXIT_INPUT if inputs.errors else EXIT_FOUND if incidents else EXIT_NOTHING)


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if jobs < 1:
        click.echo(f"gpu-npd triage: --jobs takes a whole number of at least 1, not {text!r}", err=True)
        sys.exit(EXIT_INPUT)
    return jobs


def teardown_json(noise: list[tuple[Evidence, Evidence]], limit: int = 200, key: str = "after_success") -> list[dict]:
    """The teardown lines (triage.teardown) for the JSON document: each line and the success statement it follows
    (`key` "after_success"; an earlier Slurm step's end, "before_success": the statement after it)."""
    return [{"file": e.file, "line": e.line, "time": e.time.isoformat() if e.time else None, "rank": e.rank,
             "kind": e.kind, "text": e.text,
             key: {"file": s.file, "line": s.line, "fact": s.details.get("fact"), "text": s.text}}
            for e, s in noise[:limit]]


def render_text(incidents: list[Incident], inputs: Inputs, limit: int,
                noise: list[tuple[Evidence, Evidence]] = (), earlier: list[tuple[Evidence, Evidence]] = ()) -> str:
    out = [f"{len(inputs.files)} file(s) read, {inputs.evidence} evidence line(s), "
           f"{len(incidents)} incident(s)" + (f", {len(inputs.errors)} input error(s)" if inputs.errors else "")]
    if not incidents:
        out.append("No failure found in these logs." if inputs.files else "No log was read: nothing to attribute.")
    if noise:
        out.extend(_said(noise, limit, f"Teardown, not a failure: {len(noise)} line(s) of the job's teardown or end "
                                       "(communicator errors, a process told to stop) printed after the job stated "
                                       "its success"))
    if earlier:
        out.extend(_said(earlier, limit, f"An earlier step, not a failure: {len(earlier)} line(s) of a Slurm step that "
                                         "ended before a later step of its file stated the job's success"))
    for n, incident in enumerate(incidents, start=1):
        out.append("")
        out.extend(_incident_text(n, incident, limit))
    return "\n".join(out) + "\n"


def _said(pairs: list[tuple[Evidence, Evidence]], limit: int, head: str) -> list[str]:
    """Lines that are no failure (each with the statement of success that makes it so): `head`, the statements' count
    and the first, then each line."""
    statements = list(dict.fromkeys(id(s) for _, s in pairs))
    first = pairs[0][1]
    text = first.text if len(first.text) <= 160 else first.text[:157] + "..."
    out = [f"{head} ({len(statements)} statement(s); first {first.place}  {text}):"]
    for e, _s in pairs[:limit]:
        when = e.time.strftime("%m-%d %H:%M:%S") if e.time else "--"
        line = e.text if len(e.text) <= 160 else e.text[:157] + "..."
        out.append(f"     {when}  {e.place}  {line} ({e.kind})")
    return out


def _incident_text(n: int, i: Incident, limit: int) -> list[str]:
    r = i.root
    where = ", ".join(part for part in (
        f"rank {r.rank}" if r.rank is not None else "", f"host {r.host}" if r.host else "",
        f"pod {r.pod}" if r.pod else "", f"GPU {r.gpu}" if r.gpu is not None else "", f"PCI {r.pci}" if r.pci else "",
        f"device {r.device}" if r.device else "") if part) or "no single rank or node"
    lines = [f"{n}. {i.category.upper()}: {where} ({r.kind or 'no root line'})",
             f"   why:          {i.reason} [rule {i.rule}]",
             f"   consequences: {i.consequences}"]
    if i.time is not None:
        lines.insert(1, f"   when:         {i.time.strftime('%Y-%m-%d %H:%M:%S')} UTC")
    shown = i.evidence[:limit]
    lines.append(f"   evidence ({len(shown)} of {len(i.evidence)}):")
    lines.extend(_evidence_lines(shown))
    if i.support:
        # warnings of the root's node and device (triage.attribute support): shown, never part of the verdict
        shown = i.support[:limit]
        lines.append(f"   support ({len(shown)} of {len(i.support)}; warnings of the root's node and device, not part "
                     "of the verdict):")
        said = None
        for e, line in zip(shown, _evidence_lines(shown)):
            why = e.details.get("support")
            if why != said:
                lines.append(f"     ({why})")
                said = why
            lines.append(line)
    return lines


def _evidence_lines(shown: tuple[Evidence, ...]) -> list[str]:
    """One line per piece of evidence: its time, where it was read and its text (cut to 160 characters)."""
    lines = []
    for e in shown:
        when = e.time.strftime("%m-%d %H:%M:%S") if e.time else "--"
        text = e.text if len(e.text) <= 160 else e.text[:157] + "..."
        lines.append(f"     {when}  {e.place}  {text}")
    return lines
