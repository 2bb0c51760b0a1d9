"""The `gpu-npd` command."""

from __future__ import annotations

import sys
from typing import Iterator

import click

from . import __version__

SEVERITY_CHOICES = ("info", "warning", "error", "fatal")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gpu-npd")
def main() -> None:
    """GPU node problem detector: finds GPU, fabric and workload faults in node logs."""


@main.command()
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: a table and a summary; json: one object per finding per line.")
@click.option("--min-severity", type=click.Choice(SEVERITY_CHOICES), default="warning", show_default=True,
              help="Leave out findings below this severity (info shows lifecycle marks such as driver loads).")
@click.option("--year", type=int, default=None, help="Year for syslog timestamps that carry none (default: this year).")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, allow_dash=True))
def parse(fmt: str, min_severity: str, year: int | None, files: tuple[str, ...]) -> None:
    """Classify log files (plain, .gz, or stdin with no FILE or '-') for post-mortems.

    Exit 0 when every input was read, 2 when one could not be.
    """
    from parsers import Classifier, Scanner, at_least

    from .inputs import open_input
    from .report import write_json, write_text

    scanner = Scanner(Classifier(year=year))
    failed: list[str] = []

    def findings() -> Iterator:
        for path in files or ("-",):
            try:
                with open_input(path) as fp:
                    for f in scanner.scan(fp, name=None if path == "-" else path):
                        if at_least(f.severity, min_severity):
                            yield f
            except (OSError, EOFError) as exc:  # unreadable, missing, truncated gzip
                reason = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc) or "truncated input"
                click.echo(f"gpu-npd parse: cannot read {path}: {reason}", err=True)
                failed.append(path)

    out = sys.stdout
    try:
        if fmt == "json":
            write_json(findings(), out)
        else:
            write_text(findings(), out)
        out.flush()
    except BrokenPipeError:  # `gpu-npd parse big.log | head`
        sys.stderr.close()
        sys.exit(0)
    sys.exit(2 if failed else 0)


if __name__ == "__main__":
    main()
