"""The offline CLI's commands: `gpu-npd parse` (registered by gpunpd.cli)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Iterator

import click

if TYPE_CHECKING:
    from datetime import datetime

    from parsers.gpus import GpuMap

from gpunpd.options import host_options

from .progress import MODES as PROGRESS_MODES

YEARS = click.IntRange(1, 9999)  # --year of parse and triage: the years a date holds (datetime's); else a usage error
SEVERITY_CHOICES = ("info", "warning", "error", "fatal")  # parsers.kinds.SEVERITIES, not imported for an option


def _nvml_spec(ctx, param, value: str) -> str:
    if value in ("auto", "off"):  # nothing to check: no import of the agent's NVML code for it
        return value
    # GPU access is the agent's: on a GPU node, findings read off its logs get the GPU's index and UUID
    from agent.cli import nvml_spec  # noqa: PLC0415 - the one import across programs (docs/development.md)

    return nvml_spec(ctx, param, value)


def _gpus(spec: str, config_file: str | None = None, proc_root: str | None = None) -> GpuMap:
    """PCI address -> GPU index and UUID from this node's NVML (opened with the agent's proc_root: gpunpd.options
    host_options); none with `--nvml off`, or `auto` on a machine without the NVIDIA kernel driver (no
    /proc/driver/nvidia: no NVML can answer, and none is loaded)."""
    if spec == "off" or (spec == "auto" and not os.path.exists(NVIDIA_DRIVER)):
        from parsers.gpus import GpuMap  # noqa: PLC0415 - as the parsers, loaded when a command runs

        return GpuMap()
    from agent.cli import gpu_map  # noqa: PLC0415 - the one import across programs (docs/development.md)

    return gpu_map(spec, config_file, proc_root)


def annotate(finding, gpus: GpuMap) -> None:
    from agent.cli import annotate as _annotate  # noqa: PLC0415 - loaded already by _gpus

    _annotate(finding, gpus)


NVIDIA_DRIVER = "/proc/driver/nvidia"


class _OutputFailed(Exception):
    """The output's OSError (a closed pipe: `| head`; a full disk: `> /dev/full`) raised by the flush before a read
    (_Flushing): carried out of the input's `except OSError` (it is not the input's), and raised again as itself where
    the input's reading ends (parse's findings())."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error


class _Flushing:
    """An input whose every read first writes out what parse has printed (`flush`): the findings of the lines read
    so far are on stdout before parse waits for more (`dmesg -w | gpu-npd parse`), not held in the output's batch
    until the writer ends.  A read of a file is up to Scanner's chunk, so a file costs a flush per 8 MiB."""

    __slots__ = ("_read", "_flush")

    def __init__(self, fp, flush) -> None:
        self._read, self._flush = getattr(fp, "read1", None) or fp.read, flush

    def read1(self, n: int = -1) -> bytes:
        try:
            self._flush()
        except OSError as exc:
            raise _OutputFailed(exc) from None
        return self._read(n)


def _read_stream(scanner, fp, name: str | None, year: int | None, flush) -> tuple[Iterator, object]:
    """The findings of one stream: an nvidia-bug-report.log's each occurrence once, its syslog stamps in its year
    (offline/bugreport.py; `--year` given: that year, no stamp moved); with the stream's classifier (its
    `hosts_forgotten`, a per-host read's past the cap, said once at the end: _say_forgotten)."""
    from parsers.envelope import hosts_named

    from .bugreport import Copies, Sections, is_report, year_of
    from .inputs import SNIFF

    head = fp.peek(SNIFF)[:SNIFF]
    if not is_report(head):
        # a stream context per host (a fleet's input: pdsh's dmesg, several nodes' syslog), so that one node's line
        # never takes another's banner or joins its open event: from the first line where the input's start names
        # several hosts, else from its second host
        stream = scanner.for_stream(by_host=True)
        if hosts_named(head) > 1:
            stream.classifier.hosts_apart()
        return stream.scan(_Flushing(fp, flush), name=name), stream.classifier
    stream = scanner.for_stream()  # (one node's report)
    sections = Sections(fp)
    reported: tuple[int | None, datetime | None] = (year, None) if year is not None else year_of(head)
    if reported[0] is not None:
        stream.classifier.year = reported[0]
    return (Copies(sections, reported[1], reported[0]).keep(stream.scan(_Flushing(sections, flush), name=name)),
            stream.classifier)


def _say_forgotten(forgotten: list[tuple[str | None, int]]) -> None:
    """Once, at the end: the hosts whose stream context a per-host read forgot past its cap (parsers/classify.py
    MAX_HOST_STREAMS, the host seen longest ago first), so that an input of more nodes than that is not read as if
    every line had its node's earlier ones (a banner's UUID, an open event) behind it."""
    if forgotten:
        from parsers.classify import MAX_HOST_STREAMS  # noqa: PLC0415 - loaded already by the classifier

        said = ", ".join(f"{n} in {name or 'stdin'}" for name, n in forgotten[:3]) + (
            f", and {len(forgotten) - 3} more input(s)" if len(forgotten) > 3 else "")
        click.echo(f"gpu-npd parse: note: {sum(n for _, n in forgotten)} hosts' contexts were forgotten ({said}): an "
                   f"input naming more than {MAX_HOST_STREAMS} hosts keeps the {MAX_HOST_STREAMS} seen last; a forgotten "
                   "host's later lines were read without its earlier ones (an NVRM banner's GPU UUID, an open event)",
                   err=True)


@click.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: a table and a summary; json: one object per finding per line.")
@click.option("--min-severity", type=click.Choice(SEVERITY_CHOICES), default="warning", show_default=True,
              help="Leave out findings below this severity (info shows lifecycle marks such as driver loads).")
@click.option("--year", type=YEARS, default=None, help="Year for syslog timestamps that carry none (default: this year).")
@click.option("--nvml", "nvml_spec", default="auto", show_default=True, callback=_nvml_spec,
              help="Where GPU index/UUID for PCI addresses come from: auto (this node's NVML, when it has one), "
                   "off, or fake:<scenario.yaml>.")
@host_options
@click.option("--unclassified", "only_unclassified", is_flag=True,
              help="List only driver lines with an error word that no rule recognised (new formats to report).")
@click.option("--progress", type=click.Choice(PROGRESS_MODES), default="auto", show_default=True,
              help="A progress bar (bytes read of the total, rate) on stderr, drawn only when stderr is a terminal: "
                   "auto draws it for inputs of 64 MiB or more.")
@click.argument("files", nargs=-1, type=click.Path(allow_dash=True, readable=False))  # (said per file)
def parse(fmt: str, min_severity: str, year: int | None, nvml_spec: str, config_file: str | None,
          proc_root: str | None, only_unclassified: bool, progress: str, files: tuple[str, ...]) -> None:
    """Classify log files for post-mortems: plain, compressed (gzip, xz, bzip2: told by content), tar archives (plain
    or compressed: each member read, named ARCHIVE:MEMBER), or stdin with no FILE or '-'.

    Run on the GPU node itself, findings name the GPU index and UUID next to the PCI address.
    Exit 0 when every input was read, 2 when one could not be: missing, damaged (what decodes is still read), or
    no text log (a binary journal, zstd: the error names the command that gives its text); 130 on Ctrl-C (the
    findings made before it are printed).
    """
    from parsers import SEVERITIES, WORKLOAD_KINDS, Classifier, Scanner, at_least, cause_of
    from parsers.finding import KERNEL_PROGRAMS, from_kernel
    from parsers.redacted import placeholder

    from .inputs import InputDamaged, Notes, NotText, read_input, stdin
    from .progress import ReadProgress, input_size
    from .report import Batched, Table, write_correlations, write_json

    scanner = Scanner(Classifier(year=year))
    # `auto` on a GPU node: NVML (the agent's GPU code, the library, its init) is asked when a finding first names a
    # PCI address, not before the first line: an input without one never loads it (start-up).  A fake scenario is
    # read now, so that a broken one is an error whatever the input.
    gpus: GpuMap | None = None if nvml_spec == "auto" else _gpus(nvml_spec, config_file, proc_root)
    if gpus is None and (config_file is not None or proc_root is not None):
        # a --config (or GPU_NPD_CONFIG) or --proc-root given is checked now, before any input is read: a bad one
        # exits 2 with its one line, not after the findings before the first PCI address with the rest unread.  The
        # proc_root it gives is what NVML is opened with then (the file not read twice)
        from agent.cli import agent_proc_root  # noqa: PLC0415 - the one import across programs (docs/development.md)

        proc_root, config_file = agent_proc_root(nvml_spec, config_file, proc_root), None
    kept = frozenset(s for s in SEVERITIES if at_least(s, min_severity))  # (a set test a finding, not a call)
    causes: list = []
    failures: list = []
    failed: list[str] = []
    not_kernel: dict[tuple[str, str], int] = {}  # (program, kind) -> lines
    forgotten: list[tuple[str | None, int]] = []  # (input, hosts' contexts forgotten): per stream, _findings

    paths = files or ("-",)
    for path in paths:  # an input that cannot even be opened is said now, before any table is started
        if path != "-" and os.path.isdir(path):  # one line that says what to do, not click's usage error
            click.echo(f"gpu-npd parse: {path} is a directory: name its files ({os.path.join(path, '*')}), or "
                       f"let `gpu-npd triage {path}` walk it", err=True)
            failed.append(path)
        else:
            try:
                if path == "-":
                    stdin()  # (stdin closed: `<&-`)
                else:
                    open(path, "rb").close()
            except OSError as exc:
                click.echo(f"gpu-npd parse: cannot read {path}: {exc.strerror or exc}", err=True)
                failed.append(path)
    paths = tuple(p for p in paths if p not in failed)
    if "-" in paths and sys.stdin.isatty():  # `gpu-npd parse` typed alone would otherwise wait without a word
        click.echo("gpu-npd parse: reading the log from stdin (no FILE given): paste it and end with Ctrl-D, or "
                   "name a file (gpu-npd parse dmesg.txt, dmesg | gpu-npd parse)", err=True)
    if not paths:
        sys.exit(2)  # nothing was read: no empty table
    sizes = [input_size(p) for p in paths]
    bar = ReadProgress(None if None in sizes else sum(sizes), progress)  # type: ignore[arg-type]

    def findings() -> Iterator:
        try:
            yield from _findings()
        except _OutputFailed as exc:  # the output's, met in a read: raised as the writes outside the reads raise it
            raise exc.error from None
        finally:
            bar.close()

    def _findings() -> Iterator:
        nonlocal gpus
        for path in paths:
            notes = Notes()
            try:
                # each file (each archive member) its own stream: nothing open at the end of one reaches the next
                for stream in read_input(path, bar.count if bar.shown else None, notes):
                    named = stream.name if path != "-" or stream.member is not None else None  # (stdin's member: -:M)
                    findings, classifier = _read_stream(scanner, stream.fp, named, year, flush)
                    try:
                        for f in findings:
                            # (from_kernel's kernel test inline, a call a finding cost more; its daemons' own
                            # kinds, parsers.finding.DAEMON_KINDS, asked only of another program's line)
                            if f.program not in KERNEL_PROGRAMS and f.kind not in WORKLOAD_KINDS and not from_kernel(f):
                                # another program's line that reads like a kernel fault: not one, as in the agent
                                key = (str(f.program), f.kind)
                                not_kernel[key] = not_kernel.get(key, 0) + 1
                                continue
                            if f.host is not None and placeholder(f.host):  # a host the poster redacted names none
                                f.host = None
                            if f.peer and placeholder(f.peer):
                                # a peer the reporter cut or crossed out ("172....<33759>", "10.x.x.x") names no peer:
                                # kept in details, as triage and the cluster read it (parsers/redacted.py)
                                f.details = {**f.details, "peer_redacted": f.peer}
                                f.peer = None
                            if f.pci:
                                if gpus is None:
                                    gpus = _gpus(nvml_spec, config_file, proc_root) or ()  # (none: falsy, no len)
                                if gpus:
                                    annotate(f, gpus)
                            if f.kind in WORKLOAD_KINDS:  # a failure (never a node's cause: correlate.can_cause)
                                if f.timestamp is not None and len(failures) < 100_000:
                                    failures.append(f)
                            else:
                                cause = cause_of(f)
                                if cause is not None and len(causes) < 100_000:
                                    causes.append(cause)
                            if only_unclassified:
                                if f.kind == "unclassified":
                                    yield f
                            elif f.severity in kept:
                                yield f
                    finally:  # (however the stream ended: a damaged input's findings end early)
                        if classifier.hosts_forgotten:
                            forgotten.append((named, classifier.hosts_forgotten))
            except NotText as exc:  # a journal, zstd, a binary file: said with what reads it, the others still read
                click.echo(f"gpu-npd parse: {path}: {exc.advice('gpu-npd parse -')}", err=True)
                failed.append(path)
            except InputDamaged as exc:  # the findings of the part that decodes were given above
                click.echo(f"gpu-npd parse: warning: {path}: {exc}; findings are from the part before it", err=True)
                failed.append(path)
            except (OSError, EOFError) as exc:  # unreadable, missing (the output's, in a read: _OutputFailed, not here)
                reason = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc) or "truncated input"
                click.echo(f"gpu-npd parse: cannot read {path}: {reason}", err=True)
                failed.append(path)
            for message in notes.errors:  # an archive's members that could not be read
                click.echo(f"gpu-npd parse: {message}", err=True)
            if notes.errors and path not in failed:
                failed.append(path)
            if notes.skipped:  # members that are no log (binary, an archive in the archive): said, not an error
                said = "; ".join(notes.skipped[:3]) + (f"; and {len(notes.skipped) - 3} more" if len(notes.skipped) > 3
                                                       else "")
                click.echo(f"gpu-npd parse: note: {len(notes.skipped)} member(s) not read: {said}", err=True)

    out = Batched(sys.stdout)
    table = Table(out) if fmt == "text" else None
    flush = out.flush if table is None else table.flush  # (the table's rows held for their NODE column written first)
    try:
        if table is None:
            write_json(findings(), out)
        else:
            table.write(findings())
        if not only_unclassified:
            write_correlations(failures, causes, out, fmt)
        out.flush()
        if not_kernel:
            said = ", ".join(f"{n} {kind} from {prog}" for (prog, kind), n in sorted(not_kernel.items())[:5])
            click.echo(f"gpu-npd parse: {sum(not_kernel.values())} line(s) written by programs other than the kernel "
                       f"read like kernel faults ({said}); not reported, as the agent does not", err=True)
        _say_forgotten(forgotten)
    except KeyboardInterrupt:  # Ctrl-C: the findings made so far are printed; the command group says it, exit 130
        try:
            out.flush()
        except OSError:
            pass
        raise
    except BrokenPipeError:  # `gpu-npd parse big.log | head`
        sys.stderr.close()
        sys.exit(0)
    sys.exit(2 if failed else 0)
