"""The `gpu-npd` command group. Each program owns its commands; this module only puts them under one name:

- agent/   (the node agent):        run, cleanup, config check, nvml-snapshot
- offline/ (post-mortems on files): parse, triage
- fabric/  (the fabric check):      fabric-check
- cluster/ (job incidents, a Deployment): cluster

A command's program is imported only when that command runs (or for `--help`): `gpu-npd parse` loads the
parsers and the offline CLI, not the agent, the Kubernetes client or NVML (start-up, issue 29 (4)).
"""

from __future__ import annotations

import errno
import os
import sys
from importlib import import_module

import click

# command name -> "module:attribute" of its click command
COMMANDS = {
    "run": "agent.cli:run",
    "cleanup": "agent.cli:cleanup",
    "config": "agent.cli:config_group",
    "parse": "offline.cli:parse",
    "triage": "offline.triage_cli:triage",
    "nvml-snapshot": "agent.cli:nvml_snapshot",
    "fabric-check": "fabric.cli:fabric_check",
    "cluster": "cluster.cli:cluster",
}

EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_NOT_WRITTEN = 2  # as an input that could not be read: never triage's 1 ("no failure found") or a clean 0
# an output that takes no more bytes (`> /dev/full`, a full disk or quota, a file at its size limit): no read fails so
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


class LazyGroup(click.Group):
    """A group whose commands are imported when they are looked up (COMMANDS)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attribute = target.split(":")
        return getattr(import_module(module), attribute)

    def make_context(self, info_name, args, parent=None, **extra):  # noqa: ANN001, ANN201 - click's
        # the group's own eager options print here, before any command runs: `gpu-npd --help` / `--version`
        try:
            return super().make_context(info_name, args, parent, **extra)
        except OSError as exc:
            _not_written(exc, "gpu-npd")

    def invoke(self, ctx: click.Context):  # noqa: ANN201 - click's
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:  # Ctrl-C: one line and the shell's 128 + SIGINT, not click's "Aborted!" and 1
            click.echo(f"gpu-npd {ctx.invoked_subcommand}: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except OSError as exc:
            # every command's output (parse's table, triage's verdict, a snapshot, its --help): one line
            _not_written(exc, f"gpu-npd {ctx.invoked_subcommand}")


def _not_written(exc: OSError, who: str) -> None:
    """An output that took no more bytes: one line naming it and EXIT_NOT_WRITTEN, not a traceback; any other OSError
    raised again."""
    if exc.errno not in NO_ROOM:
        raise exc
    click.echo(f"{who}: cannot write {exc.filename or 'the output'}: {exc.strerror or exc}", err=True)
    _drop_stdout()
    sys.exit(EXIT_NOT_WRITTEN)


def _drop_stdout() -> None:
    """stdout pointed at /dev/null: what it still holds is not written again at exit (Python's own flush there would
    print "Exception ignored ..." after the one line)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # no stdout, or one without a descriptor (a test's)
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from parsers.version import version  # noqa: PLC0415 - reads the installed distribution: only when asked

    click.echo(f"gpu-npd, version {version()}")
    ctx.exit()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
def main() -> None:
    """GPU node problem detector: finds GPU, fabric and workload faults in node logs."""
    # A file name whose bytes are no UTF-8 (Python keeps them as surrogates) is written as an escape, as stderr
    # writes it: neither a traceback under a UTF-8 locale (strict) nor a raw byte that makes the JSON invalid UTF-8.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")


if __name__ == "__main__":
    main(prog_name="gpu-npd")
