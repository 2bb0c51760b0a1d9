"""The node agent's commands: `gpu-npd run` and `gpu-npd nvml-snapshot` (registered by gpunpd.cli)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from gpunpd.options import cluster_options, config_option, host_options

if TYPE_CHECKING:
    from parsers.gpus import GpuMap

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


CONFIG = config_option("YAML configuration file (every key, its doc and default: python -m agent.settings).")


def agent_proc_root(spec: str, config_file: str | None, given: str | None) -> str:
    """The agent's proc_root for opening NVML with `spec` (gpunpd.options host_options): --proc-root, else the
    configuration's (--config, GPU_NPD_PROC_ROOT, the default), as `gpu-npd run` takes it; "" where no library is
    loaded (a fake scenario, off).  A configuration error exits 2 with its one line."""
    if spec != "auto":
        return ""
    from .config import ConfigError, load

    try:
        return load(config_file, flags={"proc_root": given}).proc_root
    except ConfigError as exc:
        click.echo(f"gpu-npd: configuration error: {config_error(exc)}", err=True)
        sys.exit(2)


def gpu_map(spec: str, config_file: str | None = None, given: str | None = None) -> GpuMap:
    """PCI address -> GPU index and UUID from this node's NVML (`--nvml`; the agent's proc_root: `agent_proc_root`), for
    findings read off its logs."""
    from .gpu.collector import GpuCollector
    from .gpu.nvml import open_backend

    try:
        backend = open_backend(spec, agent_proc_root(spec, config_file, given), fresh=True)
        collector = GpuCollector(backend, deadline=5.0)
    except (OSError, ValueError) as exc:
        click.echo(f"gpu-npd: --nvml {spec}: {' '.join(str(exc).split())}", err=True)  # (YAML's errors: 3 lines)
        sys.exit(2)
    try:
        collector.start()
        return collector.gpu_map
    finally:
        collector.close()  # the map is all it is asked for: its NVML thread ends


def annotate(finding, gpus: GpuMap) -> None:
    """Put the GPU index and UUID of its PCI address on a finding (the agent's own annotation)."""
    from .gpu.collector import annotate as _annotate

    _annotate(finding, gpus)


@click.command("nvml-snapshot")
@click.option("--nvml", "nvml_spec", default="auto", show_default=True, callback=nvml_spec,
              help="auto, or fake:<scenario.yaml>.")
@host_options
def nvml_snapshot(nvml_spec: str, config_file: str | None, proc_root: str | None) -> None:
    """Print this node's raw NVML readings as a scenario the NVML stand-in replays (tests/fixtures/nvml/).

    Exit 0 with the GPUs' readings, 1 when NVML could not be started (the scenario then holds only its init_error,
    and stderr says why in one line)."""
    import yaml

    from .gpu.collector import GpuCollector
    from .gpu.nvml import open_backend
    from .sysfs import pci

    backend = open_backend(nvml_spec, agent_proc_root(nvml_spec, config_file, proc_root), fresh=True)
    collector = GpuCollector(backend, deadline=10.0)
    try:  # sysfs's GPUs name a GPU lost at the init, as the agent's poll does
        snap = collector.snapshot(pci.gpu_addresses(pci.PciInventory().scan()))
    finally:
        collector.close()
    click.echo(yaml.safe_dump(snap, sort_keys=False), nl=False)
    if "gpus" not in snap:
        click.echo(f"gpu-npd nvml-snapshot: NVML could not be started ({snap.get('init_error', 'no GPUs')}): run it "
                   "on a GPU node with the NVIDIA driver loaded", err=True)
    sys.exit(0 if "gpus" in snap else 1)


def config_error(exc: Exception) -> str:
    """A configuration error's one line; an unknown top-level key gets the nearest known one and where all are."""
    import difflib

    text = str(exc)
    head, sep, rest = text.partition(": unknown configuration key")
    key = head.rpartition(": ")[2]  # after the file that set it, if any
    if sep and not rest:
        from .config import KNOWN

        close = difflib.get_close_matches(key, sorted(KNOWN), n=1)
        text += (f"; did you mean {close[0]!r}?" if close else "") + " (every key: python -m agent.settings)"
    return text


def start_error(exc: OSError) -> str:
    """One line for an OSError of the agent's start, with what to do where that is known."""
    import errno

    text = exc.strerror or str(exc)
    text = text.split(" (while attempting to bind", 1)[0]  # asyncio's addition: the address is named already
    if exc.errno == errno.EADDRINUSE:
        text += " (another gpu-npd running? stop it, or choose another port with --metrics-address)"
    elif exc.errno == errno.EACCES:
        text += " (a port below 1024 needs root or CAP_NET_BIND_SERVICE: choose another with --metrics-address)"
    return text


@click.command()
@CONFIG
@click.option("--kmsg", default=None,
              help="kmsg source (default: /dev/kmsg; a FIFO or file of records works; '' turns it off).")
@click.option("--log-file", "log_files", multiple=True, help="Log file to follow like tail -F (repeatable).")
@click.option("--journald/--no-journald", default=None,
              help="Force the journald source on or off (default: only when neither kmsg nor a log file can be read).")
@click.option("--state-dir", default=None,
              help="Where state (problems, conditions, cursors) is kept (default: /var/lib/gpu-npd).")
@click.option("--metrics-address", default=None,
              help="HOST:PORT for /metrics, /healthz and /livez (default: 127.0.0.1:9810; ':9810' for every "
                   "interface).")
@click.option("--node-name", default=None, help="Node name (default: $NODE_NAME, then the host name).")
@click.option("--log-level", default=None, help="debug, info (default), warning or error.")
@click.option("--log-format", default=None, type=click.Choice(["text", "json"]),
              help="The agent's own log on stderr: text (default) or JSON lines.")
@click.option("--mode", default=None, type=click.Choice(["enforce", "observe", "off"]),
              help="enforce (conditions, Events, taints), observe (conditions and Events; the default) or off "
                   "(stdout and metrics only).")
@click.option("--kubeconfig", default=None, type=click.Path(dir_okay=False),
              help="Write to the cluster of this kubeconfig (its current context). Outside a pod nothing is "
                   "written to any cluster unless this (or kubernetes.kubeconfig) names one.")
def run(config_file, kmsg, log_files, journald, state_dir, metrics_address, node_name, log_level,
        log_format, mode, kubeconfig) -> None:
    """Run the node agent until SIGTERM or Ctrl-C; condition changes go to stdout as JSON lines.

    Each option overrides its key of the configuration (--config, then GPU_NPD_* variables); the defaults shown
    are the built-in ones. Exit 0 on SIGTERM, Ctrl-C or a stdout closed by its reader (`| head -1`; state flushed),
    1 when a step of that shutdown failed (said in the log: an internal error, the state of what was processed still
    flushed; or the state or the pod logs' offsets not written), 2 on a configuration error or when it cannot start
    (a metrics address in use, say).
    """
    import gc
    import logging
    import os
    import signal

    from .config import ConfigError, loaded
    from .settings import ENV_PREFIX, NESTED_SEP
    from .state import StateDirInUse, hold_state_dir

    flags = {"kmsg": kmsg, "log_files": list(log_files) or None, "journald": journald, "state_dir": state_dir,
             "metrics_address": metrics_address, "node_name": node_name, "log_level": log_level,
             "log_format": log_format, "mode": mode}
    variable = f"{ENV_PREFIX}KUBERNETES{NESTED_SEP}KUBECONFIG"  # what --kubeconfig sets (agent/settings.py)
    option = {variable: "--kubeconfig"} if kubeconfig else {}  # (named as the option in loaded()'s warning)
    env = {**os.environ, variable: kubeconfig} if kubeconfig else None
    try:
        cfg, said = loaded(config_file, env=env, flags=flags, options=option)
    except ConfigError as exc:
        click.echo(f"gpu-npd: configuration error: {config_error(exc)}", err=True)
        sys.exit(2)
    from .logs import setup

    setup(cfg.log_level, cfg.log_format)
    for line in said:
        logging.getLogger("gpu_npd").warning("%s", line)
    try:  # one agent per state directory: its lock is held until the process ends (os._exit below)
        lock = hold_state_dir(cfg.state_dir) if cfg.state_dir else None  # noqa: F841 - kept open, not used
    except StateDirInUse as exc:
        click.echo(f"gpu-npd: cannot start: {exc}", err=True)
        sys.exit(2)
    # the kernel records' keyword regex compiled before the agent's modules are imported: what compiling it holds for a
    # moment (~1.6 MiB: re's parse tree of a ~13,000-character pattern) is freed, and their import then fills it;
    # compiled after them (in build), one more 1 MiB arena of CPython's allocator stayed with the idle agent, partly
    # filled by what start-up allocated after it (issue 24, bench/agent.py footprint: ~1 MiB of RSS)
    from parsers import keyword_prefilter

    prefilter = keyword_prefilter().compile()
    from .app import build

    try:
        agent = build(cfg, prefilter=prefilter)
    except ValueError as exc:
        click.echo(f"gpu-npd: configuration error: {config_error(exc)}", err=True)
        sys.exit(2)
    # the handlers before start(): once start() serves /metrics and /healthz, a SIGTERM (a pod deleted as it
    # started, a probe's restart) is the agent's to handle (stop, flush state, exit 0), never the default's
    # (killed, exit 143)
    signal.signal(signal.SIGTERM, lambda *_: agent.request_stop())
    signal.signal(signal.SIGINT, lambda *_: agent.request_stop())
    # SIGUSR1: let go of NVML (a GPU reset or MIG change can proceed) for up to 10 minutes; SIGUSR2: resume
    signal.signal(signal.SIGUSR1, lambda *_: (agent.gpu.hold("signal", 600), agent.poller.wake()))
    signal.signal(signal.SIGUSR2, lambda *_: (agent.gpu.unhold("signal"), agent.poller.wake()))
    try:
        agent.start()
    except OSError as exc:
        # what start() began before it failed (the sources, the poller's first poll and its log lines, the writers)
        # ends first: nothing runs on, and the error is the last line said (a taken address is found last)
        agent.shutdown()
        click.echo(f"gpu-npd: cannot start: {start_error(exc)}", err=True)
        sys.exit(2)
    logging.getLogger("gpu_npd").info("gpu-npd running on node %s: sources %s, metrics on %s", cfg.node_name,
                                      ", ".join(s.name for s in agent.sources) or "none", cfg.metrics_address)
    gc.freeze()  # what start-up built lives as long as the process: later collections skip it
    # what a flood allocates is freed by reference counting, not by the collector: with CPython's default
    # thresholds a flood of 100,000 distinct Xid lines ran 286 young, 26 middle and 2 full collections that freed
    # nothing, ~5% of the pipeline's time (bench/inprocess.py with and without --gc-default)
    gc.set_threshold(*GC_THRESHOLDS)
    agent.run_forever()
    ok = agent.shutdown()  # False: a step failed (said in the log), the steps after it done
    # the state is saved and the threads stopped: the exit handlers run (logging's flush is one), then the process
    # ends without the interpreter's teardown, whose last collection over what a busy agent allocated since start-up
    # took up to 0.4 s of SIGTERM's 2 s on a loaded 2-core host (tests/agent/test_app.py)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can be said there
            pass
    os._exit(0 if ok else 1)


@click.command()
@click.option("--apply", "apply_", is_flag=True,
              help="Make the changes. Without it nothing is changed: the changes are listed (a dry run).")
@click.option("--config", "configs", multiple=True, type=click.Path(dir_okay=False),
              help="An agent configuration file (repeatable: one per node pool): what gpu-npd wrote is read from "
                   "it (condition types, taint prefix, annotation key). Default: the built-in defaults.")
@cluster_options()
@click.option("--wait-for-pods", default="", metavar="NAMESPACE/SELECTOR",
              help="First wait until no pod matches (the agents stopped; an agent writes once more on SIGTERM).")
@click.option("--wait-seconds", default=120.0, show_default=True, type=click.FloatRange(min=0))
def cleanup(apply_, configs, api_server, kubeconfig, wait_for_pods, wait_seconds) -> None:
    """Remove what gpu-npd wrote on every node: its gpu-npd.io/<condition> taints, its conditions, its repair annotation,
    its DeviceTaintRules and pod conditions, and the budgets' ConfigMaps of grants (node taints, DRA). Owner-checked:
    other taints, conditions, annotations and ConfigMaps stay.

    Exit 0 when everything listed was removed (or listed, in a dry run), 1 when a change failed or the pods of
    --wait-for-pods still run or could not be listed, 2 on a configuration error or no cluster (none configured, or
    its API server unreachable: nothing done).
    """
    import logging
    from types import SimpleNamespace

    from kubeapi.client import NoCluster, make_api, no_answer
    from kubeapi.retry import api_errors, describe

    from .config import ConfigError, load
    from .kube.cleanup import Cleaner, Owned, wait_for_pods_gone

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(message)s")
    try:
        owned = Owned.of([load(path, env={}) for path in configs] or [load(None, env={})])
    except ConfigError as exc:
        click.echo(f"gpu-npd cleanup: configuration error: {config_error(exc)}", err=True)
        sys.exit(2)
    namespace, _, selector = wait_for_pods.partition("/")
    if wait_for_pods and not (namespace and selector):
        click.echo("gpu-npd cleanup: --wait-for-pods: expected NAMESPACE/SELECTOR", err=True)
        sys.exit(2)
    try:
        core = make_api(SimpleNamespace(api_server=api_server, kubeconfig=kubeconfig), required=True)
    except NoCluster as exc:
        click.echo(f"gpu-npd cleanup: no cluster: {exc}", err=True)
        sys.exit(2)
    why = no_answer(core)
    if why:
        click.echo(f"gpu-npd cleanup: no cluster: API server {core.api_client.configuration.host} unreachable: {why}",
                   err=True)
        sys.exit(2)
    if wait_for_pods:
        try:
            gone = wait_for_pods_gone(core, namespace, selector, wait_seconds)
        except api_errors() as exc:  # not known whether they still write: nothing removed
            click.echo(f"gpu-npd cleanup: --wait-for-pods: cannot list pods {selector} in {namespace}: "
                       f"{describe(exc)}", err=True)
            sys.exit(1)
        if not gone:
            click.echo(f"gpu-npd cleanup: pods {selector} in {namespace} still running after {wait_seconds:g} s: "
                       "they would write again; stop them first", err=True)
            sys.exit(1)
    cleaner = Cleaner(core, owned, apply_, click.echo)
    changes = cleaner.run()
    nodes = len({c.target for c in changes if c.target.startswith("node/")})
    verb = "removed" if apply_ else "to remove (dry run: nothing changed; --apply makes the changes)"
    click.echo(f"gpu-npd cleanup: {len(changes)} change(s) on {nodes} node(s) {verb}"
               + (f"; {cleaner.errors} failed" if cleaner.errors else ""))
    sys.exit(1 if cleaner.errors else 0)


@click.group("config")
def config_group() -> None:
    """The agent's configuration."""


@config_group.command("check")
@CONFIG
def config_check(config_file) -> None:
    """Validate the configuration `gpu-npd run` would use (the file, then GPU_NPD_* variables) and summarise it.
    Exit 0 when valid, 2 with the one-line error naming the key otherwise."""
    import os
    from dataclasses import fields

    from .config import ENV_PREFIX, ConfigError, is_service_link, loaded

    try:
        cfg, said = loaded(config_file)
    except ConfigError as exc:
        click.echo(f"gpu-npd config check: {config_error(exc)}", err=True)
        sys.exit(2)
    known = {f.name for f in fields(type(cfg))}
    links = sorted(v for v, value in os.environ.items() if v.startswith(ENV_PREFIX) and is_service_link(v, value, known))
    k = cfg.kube
    click.echo(f"configuration OK ({config_file or 'built-in defaults'}): mode {cfg.mode}; kernel log "
               f"{cfg.kmsg or 'off'} (fallback {', '.join(cfg.fallback_log_files) or 'none'}); metrics on "
               f"{cfg.metrics_address}; {len(cfg.conditions)} condition types; taints "
               f"{', '.join(t.condition for t in k.taints) or 'none'} (enforce only, at most "
               f"{k.max_tainted_fraction:g} of the pool); cluster "
               f"{k.api_server or k.kubeconfig or 'in-cluster config only (outside a pod: none)'}")
    if links:
        click.echo(f"ignored Kubernetes service-link variables: {', '.join(links)}")
    for line in said:
        click.echo(line)
