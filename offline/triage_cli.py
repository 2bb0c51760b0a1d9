"""`gpu-npd triage PATH...`: a failed job's logs in, its incidents out, most likely root cause first.

The edges only: walking the paths, opening files (plain or gzip, by content), turning bytes into lines, and
printing. What the lines mean and what caused the failure is triage's (the pure core shared with the cluster
component).

Exit codes:
  0  at least one incident found, every input read
  1  every input read, no failure found in them
  2  an input could not be read (missing, unreadable, a damaged .gz: its readable part is still used), or bad usage
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterator

import click

from triage import Clock, Evidence, Incident, attribute, read_lines, to_json

EXIT_FOUND, EXIT_NOTHING, EXIT_INPUT = 0, 1, 2
MAX_LINE_BYTES = 1 << 16  # bytes of one line read; the rest of a longer line is dropped (counted)
BINARY_SNIFF = 8192
SKIP_NAMES = frozenset({".DS_Store"})


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
            for top, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.startswith(".") or name in SKIP_NAMES:
                        continue
                    yield os.path.normpath(os.path.join(top, name)), os.path.normpath(path)
        elif os.path.exists(path):
            yield path, os.path.dirname(path) or "."
        else:
            inputs.errors.append(f"{path}: no such file or directory")


def lines_of(fp, inputs: Inputs, name: str) -> Iterator[str]:
    """Decoded lines of a binary stream (invalid UTF-8 replaced, over-long lines cut)."""
    first = True
    for raw in fp:
        if first:
            first = False
            if b"\x00" in raw[:BINARY_SNIFF]:
                inputs.skipped.append(f"{name}: binary, not read")
                return
        yield raw[:MAX_LINE_BYTES].decode("utf-8", "replace")


def collect(paths: tuple[str, ...], year: int | None, inputs: Inputs) -> list[Evidence]:
    from .inputs import InputDamaged, open_input

    clock = Clock()
    evidence: list[Evidence] = []
    for path, root in walk(paths, inputs):
        name = "<stdin>" if path == "-" else path
        try:
            with open_input(path) as fp:
                evidence.extend(read_lines(lines_of(fp, inputs, name), name, clock, root=root, year=year))
            inputs.files.append(name)
        except InputDamaged as exc:  # the evidence of the part that decodes was kept above
            inputs.files.append(name)
            inputs.errors.append(f"{name}: {exc}; evidence is from the part before it")
        except (OSError, EOFError) as exc:
            reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else (str(exc) or "truncated input")
            inputs.errors.append(f"{name}: cannot read: {reason}")
    inputs.evidence = len(evidence)
    return clock.align(evidence, fallback_year=year or datetime.now(timezone.utc).year)


@click.command("triage")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text for people; json: one document, schema gpu-npd.triage/v1 (docs/triage.md).")
@click.option("--year", type=int, default=None,
              help="Year for stamps that carry none (syslog, glog); default: the year of the job's dated stamps.")
@click.option("--window", type=float, default=600.0, show_default=True,
              help="Seconds a node fault may precede the job's first failure and still explain it (at least the "
                   "collective timeout the watchdog lines report).")
@click.option("--evidence", "evidence_limit", type=int, default=8, show_default=True,
              help="Evidence lines shown per incident in text output (json lists up to 200).")
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
def triage(fmt: str, year: int | None, window: float, evidence_limit: int, paths: tuple[str, ...]) -> None:
    """Attribute a failed multi-rank job to its root cause from the logs operators collect.

    PATH is a file (plain or .gz), a directory (walked: one subdirectory per node such as node-b/kern.log, or
    per-rank files such as rank-3.log), or '-' for stdin. Exit 0 when an incident was found, 1 when the logs hold
    no failure, 2 when an input could not be read (the rest is still used).
    """
    inputs = Inputs()
    evidence = collect(paths, year, inputs)
    incidents = attribute(evidence, window=window)
    for message in inputs.errors:
        click.echo(f"gpu-npd triage: {message}", err=True)
    try:
        if fmt == "json":
            doc = to_json(incidents, evidence_limit=200, inputs=inputs.files, errors=inputs.errors,
                          skipped=inputs.skipped)
            sys.stdout.write(json.dumps(doc, indent=2, default=str) + "\n")
        else:
            sys.stdout.write(render_text(incidents, inputs, evidence_limit))
        sys.stdout.flush()
    except BrokenPipeError:  # `gpu-npd triage logs/ | head`
        sys.stderr.close()
        sys.exit(EXIT_FOUND if incidents else EXIT_NOTHING)
    sys.exit(EXIT_INPUT if inputs.errors else EXIT_FOUND if incidents else EXIT_NOTHING)


def render_text(incidents: list[Incident], inputs: Inputs, limit: int) -> str:
    out = [f"{len(inputs.files)} file(s) read, {inputs.evidence} evidence line(s), "
           f"{len(incidents)} incident(s)" + (f", {len(inputs.errors)} input error(s)" if inputs.errors else "")]
    if not incidents:
        out.append("No failure found in these logs.")
    for n, incident in enumerate(incidents, start=1):
        out.append("")
        out.extend(_incident_text(n, incident, limit))
    return "\n".join(out) + "\n"


def _incident_text(n: int, i: Incident, limit: int) -> list[str]:
    r = i.root
    where = ", ".join(part for part in (
        f"rank {r.rank}" if r.rank is not None else "", f"host {r.host}" if r.host else "",
        f"GPU {r.gpu}" if r.gpu is not None else "", f"PCI {r.pci}" if r.pci else "",
        f"device {r.device}" if r.device else "") if part) or "no single rank or node"
    lines = [f"{n}. {i.category.upper()}: {where} ({r.kind or 'no root line'})",
             f"   why:          {i.reason} [rule {i.rule}]",
             f"   consequences: {i.consequences}"]
    if i.time is not None:
        lines.insert(1, f"   when:         {i.time.strftime('%Y-%m-%d %H:%M:%S')} UTC")
    shown = i.evidence[:limit]
    lines.append(f"   evidence ({len(shown)} of {len(i.evidence)}):")
    for e in shown:
        when = e.time.strftime("%m-%d %H:%M:%S") if e.time else "--"
        text = e.text if len(e.text) <= 160 else e.text[:157] + "..."
        lines.append(f"     {when}  {e.file}:{e.line}  {text}")
    return lines
