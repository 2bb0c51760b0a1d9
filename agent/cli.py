"""The `gpu-npd` command."""

from __future__ import annotations

import sys
from typing import Iterator

import click

from . import __version__
from .progress import MODES as PROGRESS_MODES

# the collector's thresholds under `gpu-npd run`: allocations between collections of the youngest generation
# (CPython's default: 700), then collections of each generation between those of the next
GC_THRESHOLDS = (20_000, 20, 20)

SEVERITY_CHOICES = ("info", "warning", "error", "fatal")


def _nvml_spec(ctx, param, value: str) -> str:
    from .gpu.nvml import nvml_spec_problem

    problem = nvml_spec_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


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
@click.option("--nvml", "nvml_spec", default="auto", show_default=True, callback=_nvml_spec,
              help="Where GPU index/UUID for PCI addresses come from: auto (this node's NVML, when it has one), "
                   "off, or fake:<scenario.yaml>.")
@click.option("--unclassified", "only_unclassified", is_flag=True,
              help="List only driver lines with an error word that no rule recognised (new formats to report).")
@click.option("--progress", type=click.Choice(PROGRESS_MODES), default="auto", show_default=True,
              help="A progress bar (bytes read of the total, rate) on stderr, drawn only when stderr is a terminal: "
                   "auto draws it for inputs of 64 MiB or more.")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, allow_dash=True))
def parse(fmt: str, min_severity: str, year: int | None, nvml_spec: str, only_unclassified: bool, progress: str,
          files: tuple[str, ...]) -> None:
    """Classify log files (plain, .gz, or stdin with no FILE or '-') for post-mortems.

    Run on the GPU node itself, findings name the GPU index and UUID next to the PCI address.
    Exit 0 when every input was read, 2 when one could not be.
    """
    from parsers import Classifier, Scanner, at_least

    from .gpu.collector import annotate
    from .inputs import InputDamaged, open_input
    from .progress import ReadProgress, input_size
    from .report import Batched, write_correlations, write_json, write_text

    from parsers import WORKLOAD_KINDS, cause_of

    scanner = Scanner(Classifier(year=year))
    gpu_map = _gpu_map(nvml_spec)
    causes: list = []
    failures: list = []
    failed: list[str] = []

    paths = files or ("-",)
    sizes = [input_size(p) for p in paths]
    bar = ReadProgress(None if None in sizes else sum(sizes), progress)  # type: ignore[arg-type]

    def findings() -> Iterator:
        try:
            yield from _findings()
        finally:
            bar.close()

    def _findings() -> Iterator:
        for path in paths:
            try:
                with open_input(path, bar.count if bar.shown else None) as fp:
                    # each file its own stream: nothing open at the end of one reaches the next
                    for f in scanner.for_stream().scan(fp, name=None if path == "-" else path):
                        annotate(f, gpu_map)
                        cause = cause_of(f)
                        if cause is not None and len(causes) < 100_000:
                            causes.append(cause)
                        if f.kind in WORKLOAD_KINDS and f.timestamp is not None and len(failures) < 100_000:
                            failures.append(f)
                        if only_unclassified:
                            if f.kind == "unclassified":
                                yield f
                        elif at_least(f.severity, min_severity):
                            yield f
            except InputDamaged as exc:  # the findings of the part that decodes were given above
                click.echo(f"gpu-npd parse: warning: {path}: {exc}; findings are from the part before it", err=True)
                failed.append(path)
            except (OSError, EOFError) as exc:  # unreadable, missing
                reason = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc) or "truncated input"
                click.echo(f"gpu-npd parse: cannot read {path}: {reason}", err=True)
                failed.append(path)

    out = Batched(sys.stdout)
    try:
        if fmt == "json":
            write_json(findings(), out)
        else:
            write_text(findings(), out)
        if not only_unclassified:
            write_correlations(failures, causes, out, fmt)
        out.flush()
    except BrokenPipeError:  # `gpu-npd parse big.log | head`
        sys.stderr.close()
        sys.exit(0)
    sys.exit(2 if failed else 0)


def _gpu_map(spec: str) -> dict[str, dict[str, str]]:
    from .gpu.collector import GpuCollector
    from .gpu.nvml import open_backend

    try:
        collector = GpuCollector(open_backend(spec), deadline=5.0)
    except (OSError, ValueError) as exc:
        click.echo(f"gpu-npd: --nvml {spec}: {exc}", err=True)
        sys.exit(2)
    collector.start()
    return collector.pci_to_gpu


@main.command("nvml-snapshot")
@click.option("--nvml", "nvml_spec", default="auto", show_default=True, callback=_nvml_spec,
              help="auto, or fake:<scenario.yaml>.")
def nvml_snapshot(nvml_spec: str) -> None:
    """Print this node's raw NVML readings as a scenario the test fake replays (tests/fixtures/nvml/)."""
    import yaml

    from .gpu.collector import GpuCollector
    from .gpu.nvml import open_backend

    snap = GpuCollector(open_backend(nvml_spec), deadline=10.0).snapshot()
    click.echo(yaml.safe_dump(snap, sort_keys=False), nl=False)
    sys.exit(0 if "gpus" in snap else 1)


@main.command()
@click.option("--config", "config_file", type=click.Path(dir_okay=False), envvar="GPU_NPD_CONFIG",
              help="YAML configuration file (keys as in agent/defaults.yaml).")
@click.option("--kmsg", default=None, help="kmsg source (default /dev/kmsg; a FIFO or file of records works).")
@click.option("--log-file", "log_files", multiple=True, help="Log file to follow like tail -F (repeatable).")
@click.option("--journald/--no-journald", default=None, help="Force the journald source on or off.")
@click.option("--state-dir", default=None, help="Where state (problems, conditions, cursors) is kept.")
@click.option("--metrics-address", default=None, help="HOST:PORT for /metrics and /healthz.")
@click.option("--node-name", default=None, help="Node name (default: $NODE_NAME, then the host name).")
@click.option("--log-level", default=None, help="debug, info, warning or error.")
@click.option("--log-format", default=None, type=click.Choice(["text", "json"]),
              help="The agent's own log on stderr: text (default) or JSON lines.")
def run(config_file, kmsg, log_files, journald, state_dir, metrics_address, node_name, log_level,
        log_format) -> None:
    """Run the node agent until SIGTERM."""
    import gc
    import logging
    import signal

    from .app import Agent
    from .config import ConfigError, load

    flags = {"kmsg": kmsg, "log_files": list(log_files) or None, "journald": journald, "state_dir": state_dir,
             "metrics_address": metrics_address, "node_name": node_name, "log_level": log_level,
             "log_format": log_format}
    try:
        cfg = load(config_file, flags=flags)
    except ConfigError as exc:
        click.echo(f"gpu-npd: configuration error: {exc}", err=True)
        sys.exit(2)
    from .logs import setup

    setup(cfg.log_level, cfg.log_format)
    try:
        agent = Agent(cfg)
    except ValueError as exc:
        click.echo(f"gpu-npd: configuration error: {exc}", err=True)
        sys.exit(2)
    try:
        agent.start()
    except OSError as exc:
        click.echo(f"gpu-npd: cannot start: {exc}", err=True)
        sys.exit(2)
    signal.signal(signal.SIGTERM, lambda *_: agent.stop.set())
    signal.signal(signal.SIGINT, lambda *_: agent.stop.set())
    logging.getLogger("gpu_npd").info("gpu-npd running on node %s: sources %s, metrics on %s", cfg.node_name,
                                      ", ".join(s.name for s in agent.sources) or "none", cfg.metrics_address)
    gc.freeze()  # what start-up built lives as long as the process: later collections skip it
    # what a flood allocates is freed by reference counting, not by the collector: with CPython's default
    # thresholds a flood of 100,000 distinct Xid lines ran 286 young, 26 middle and 2 full collections that freed
    # nothing, ~5% of the pipeline's time (bench/inprocess.py with and without --gc-default)
    gc.set_threshold(*GC_THRESHOLDS)
    agent.run_forever()
    agent.shutdown()
    sys.exit(0)


from .fabric.cli import fabric_check  # noqa: E402 - registered after the group exists

main.add_command(fabric_check)


if __name__ == "__main__":
    main()
