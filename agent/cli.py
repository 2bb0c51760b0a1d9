"""The node agent's commands: `gpu-npd run` and `gpu-npd nvml-snapshot` (registered by gpunpd.cli)."""

from __future__ import annotations

import sys

import click

# the collector's thresholds under `gpu-npd run`: allocations between collections of the youngest generation
# (CPython's default: 700), then collections of each generation between those of the next
GC_THRESHOLDS = (20_000, 20, 20)


def nvml_spec(ctx, param, value: str) -> str:
    """click callback for --nvml: auto, off or fake:<scenario.yaml>, checked before any command runs."""
    from .gpu.nvml import nvml_spec_problem

    problem = nvml_spec_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


def gpu_map(spec: str) -> dict[str, dict[str, str]]:
    """PCI address -> GPU index and UUID from this node's NVML (`--nvml`), for findings read off its logs."""
    from .gpu.collector import GpuCollector
    from .gpu.nvml import open_backend

    try:
        collector = GpuCollector(open_backend(spec), deadline=5.0)
    except (OSError, ValueError) as exc:
        click.echo(f"gpu-npd: --nvml {spec}: {exc}", err=True)
        sys.exit(2)
    collector.start()
    return collector.pci_to_gpu


def annotate(finding, gpus: dict[str, dict[str, str]]) -> None:
    """Put the GPU index and UUID of its PCI address on a finding (the agent's own annotation)."""
    from .gpu.collector import annotate as _annotate

    _annotate(finding, gpus)


@click.command("nvml-snapshot")
@click.option("--nvml", "nvml_spec", default="auto", show_default=True, callback=nvml_spec,
              help="auto, or fake:<scenario.yaml>.")
def nvml_snapshot(nvml_spec: str) -> None:
    """Print this node's raw NVML readings as a scenario the NVML stand-in replays (tests/fixtures/nvml/)."""
    import yaml

    from .gpu.collector import GpuCollector
    from .gpu.nvml import open_backend

    snap = GpuCollector(open_backend(nvml_spec), deadline=10.0).snapshot()
    click.echo(yaml.safe_dump(snap, sort_keys=False), nl=False)
    sys.exit(0 if "gpus" in snap else 1)


@click.command()
@click.option("--config", "config_file", type=click.Path(dir_okay=False), envvar="GPU_NPD_CONFIG",
              help="YAML configuration file (every key, its doc and default: python -m agent.settings).")
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

    from .app import build
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
        agent = build(cfg)
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
    # SIGUSR1: let go of NVML (a GPU reset or MIG change can proceed) for up to 10 minutes; SIGUSR2: resume
    signal.signal(signal.SIGUSR1, lambda *_: (agent.gpu.hold("signal", 600), agent.poller.wake()))
    signal.signal(signal.SIGUSR2, lambda *_: (agent.gpu.unhold("signal"), agent.poller.wake()))
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
