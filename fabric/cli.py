"""`gpu-npd fabric-check`: the two-round all-reduce test across idle GPU nodes, as Kubernetes Jobs."""

from __future__ import annotations

import signal
import sys
import time
from types import SimpleNamespace

import click

from gpunpd.options import cluster_options

from .check import EXIT_ERROR, EXIT_INTERRUPTED, Report, link_summary, run_check, write_json, write_table
from .plan import SIZES, order

EXIT_CODES_HELP = ("Exit status: 0 every tested node passed; 1 a node was blamed (FabricCheckFailed set on it); "
                   "2 error (bad option, no cluster, API failure); 3 inconclusive (tests failed but no node could "
                   "be singled out); 4 too few idle nodes to test; 5 a link is suspect (a test failed twice with "
                   "nodes that each passed with other partners; an Event on its nodes, no condition); "
                   "130 interrupted (its Jobs deleted).")
LINK_REASON = "FabricLinkSuspect"


def default_seed() -> int:
    """The run's UTC minute as YYYYMMDDHHMM: each scheduled run pairs other nodes, and says which plan it ran."""
    return int(time.strftime("%Y%m%d%H%M", time.gmtime()))


def _pairs(ctx, param, values: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for v in values:
        key, sep, value = v.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"{v!r}: expected KEY=VALUE")
        out[key] = value
    return out


@click.command("fabric-check", epilog=EXIT_CODES_HELP)
@click.option("--selector", default="nvidia.com/gpu.present=true", show_default=True,
              help="Label selector of the GPU nodes to test (only Ready, schedulable ones with no GPU pod are used).")
@click.option("--floor", type=float, required=True, help="Bus bandwidth floor in GB/s; a test below it fails.")
@click.option("--group-size", type=click.Choice([str(s) for s in SIZES]), default="2", show_default=True,
              help="Nodes per test (1: each node's own GPUs, no fabric).")
@click.option("--tool", type=click.Choice(["torch", "nccl-tests"]), default="torch", show_default=True,
              help="Preset image and command: a PyTorch all_reduce benchmark under torchrun, or nccl-tests' "
                   "all_reduce_perf (one node; give --command with an MPI launcher across nodes).")
@click.option("--image", default=None, help="Test image (default: the tool's preset).")
@click.option("--command", "command", default=None,
              help="Shell command each pod runs instead of the preset's; it sees FABRIC_NODES, FABRIC_GPUS, "
                   "FABRIC_GROUP, MASTER_ADDR, MASTER_PORT, JOB_COMPLETION_INDEX and must print nccl-tests or "
                   "all_reduce_bench output.")
@click.option("--gpus-per-node", type=int, default=8, show_default=True, help="nvidia.com/gpu per pod.")
@click.option("--resource", "resources", multiple=True, callback=_pairs, help="More limits per pod, KEY=VALUE "
              "(e.g. rdma/ib=1); repeatable.")
@click.option("--env", "env", multiple=True, callback=_pairs, help="Environment for the test, KEY=VALUE "
              "(e.g. NCCL_IB_HCA=mlx5); repeatable.")
@click.option("--namespace", default="gpu-npd", show_default=True, help="Where the Jobs run.")
@click.option("--service-account", default="", help="Service account of the test pods.")
@click.option("--max-nodes", type=int, default=0, help="Test at most this many idle nodes (0: all), picked in "
              "the seed's order.")
@click.option("--seed", type=int, default=None, help="Which nodes are grouped (and picked by --max-nodes); the "
              "report prints it, and the same seed with the same idle nodes repeats the plan.  [default: the "
              "run's UTC minute, YYYYMMDDHHMM]")
@click.option("--timeout", type=float, default=900, show_default=True, help="Seconds one wave of Jobs may take.")
@click.option("--poll", type=float, default=5, show_default=True, help="Seconds between Job status reads.")
@click.option("--write/--no-write", default=True, show_default=True,
              help="Set FabricCheckFailed (and an Event) on blamed nodes, clear it on passing ones.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
@cluster_options()
@click.option("--cleanup-timeout", type=click.FloatRange(min=0), default=120.0, show_default=True,
              help="Seconds to keep retrying the deletion of this run's Jobs when the API server fails; then the "
                   "Jobs left are named and the exit code is 2.")
def fabric_check(selector, floor, group_size, tool, image, command, gpus_per_node, resources, env, namespace,
                 service_account, max_nodes, seed, timeout, poll, write, fmt, api_server, kubeconfig,
                 cleanup_timeout) -> None:
    """Two-round all-reduce test across idle GPU nodes: round 1 tests groups of nodes, round 2 re-tests each
    group below the floor with known-good nodes, and the node that fails with good partners is blamed; a
    failed group whose nodes all passed with others is re-tested once, and failing again names its link."""
    from kubeapi.client import NoCluster, make_api
    from .kube import DEADLINE_GRACE_S, PRESETS, JobSpec, KubeFabric

    preset_image, preset_command = PRESETS[tool]
    image = image or preset_image
    if not image:
        _fail(f"--tool {tool} has no default image: give --image")
    if tool == "nccl-tests" and group_size != "1" and not command:
        _fail("--tool nccl-tests runs all_reduce_perf on one node (it needs MPI across nodes): use --group-size 1, "
              "or give --command with your MPI launcher")
    if floor <= 0:
        _fail("--floor must be above 0 GB/s")
    try:
        core = make_api(SimpleNamespace(api_server=api_server, kubeconfig=kubeconfig), required=True)
    except NoCluster as exc:
        _fail(f"no cluster: {exc}")
    from kubernetes import client

    spec = JobSpec(image, command or preset_command, namespace, gpus_per_node, resources, env,
                   deadline_seconds=max(1, int(timeout)) + DEADLINE_GRACE_S, service_account=service_account)
    fabric = KubeFabric(core, client.BatchV1Api(core.api_client), spec, poll=poll, timeout=timeout,
                        cleanup_seconds=cleanup_timeout)
    # Ctrl-C, and SIGTERM (a CronJob's pod being stopped), set a flag the run checks between API calls, then
    # the Jobs are deleted: deterministic, where an exception raised by the handler could land in a finalizer
    # and be swallowed by Python
    previous = {sig: signal.signal(sig, lambda *_: fabric.stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        _check(fabric, selector, max_nodes, group_size, floor, write, fmt, default_seed() if seed is None else seed)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _check(fabric, selector: str, max_nodes: int, group_size: str, floor: float, write: bool, fmt: str,
           seed: int) -> None:
    report, failure = None, None
    try:
        nodes, skipped = fabric.idle_nodes(selector)
        if max_nodes > 0:
            ordered = order(nodes, seed)
            for n in ordered[max_nodes:]:
                skipped[n] = "over --max-nodes"
            nodes = sorted(ordered[:max_nodes])
        report = Report(nodes, int(group_size), floor, skipped, seed=seed)
        run_check(nodes, int(group_size), floor, fabric.run_wave, report)
        if write:
            _write_results(fabric, report)
    except KeyboardInterrupt:
        failure = "interrupted"
    except Exception as exc:  # noqa: BLE001 - API errors, unreachable server: one line, Jobs cleaned up
        reason = getattr(exc, "reason", None) or str(exc)
        status = getattr(exc, "status", None)
        failure = (f"{type(exc).__name__}{f' {status}' if status else ''}: "
                   f"{str(reason).splitlines()[0] if str(reason) else ''}")
    if report is not None and failure is not None:
        report.stopped = failure  # what was measured is still reported, with why there is no (written) verdict
    left = fabric.cleanup()  # retried until done or --cleanup-timeout
    gone = "its Jobs deleted" if not left else f"Jobs LEFT RUNNING, delete them by hand: {', '.join(left)}"
    if failure is not None:
        click.echo(f"gpu-npd fabric-check: {failure}; {gone}", err=True)
    elif left:
        click.echo(f"gpu-npd fabric-check: {gone}", err=True)
    if report is not None:
        _output(report, fmt)
    if failure == "interrupted":
        sys.exit(EXIT_INTERRUPTED)
    sys.exit(EXIT_ERROR if failure or left else report.exit_code)


def _fail(message: str) -> None:
    click.echo(f"gpu-npd fabric-check: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _output(report: Report, fmt: str) -> None:
    (write_json if fmt == "json" else write_table)(report, sys.stdout)
    sys.stdout.flush()


def _write_results(fabric, report: Report) -> None:
    """Blamed nodes: FabricCheckFailed True (measured and expected bandwidth) and an Event; cleared nodes:
    False (a link suspect's too: no node is at fault, so each of its nodes gets a Warning Event only).
    Inconclusive ones are left as they stand."""
    v = report.verdict
    if v is None:
        return
    for node in v.blamed:
        ev = report.evidence(node)
        group, out = ev if ev else ((node,), None)
        peers = ",".join(n for n in group if n != node) or "its own GPUs only"
        if out is not None and out.bandwidth is not None and out.finished:
            reason = "LowBusBandwidth"
            measured = f"all_reduce bus bandwidth {out.bandwidth.busbw:.2f} GB/s"
        else:
            reason = "AllReduceFailed"
            measured = f"all_reduce produced no result ({out.detail if out else 'no test'})"
        fabric.write_result(node, True, reason, f"{measured} with {peers}, expected >= {report.floor:g} GB/s "
                                                f"(gpu-npd fabric-check run {fabric.run_id})")
    for node in v.good:
        best = report.best_pass(node)
        bw = f"{best[1].busbw:.2f} GB/s" if best else "passed"
        fabric.write_result(node, False, "FabricCheckPassed",
                            f"all_reduce bus bandwidth {bw}, expected >= {report.floor:g} GB/s "
                            f"(gpu-npd fabric-check run {fabric.run_id})")
    for group in v.links:
        message = f"link suspect {link_summary(report, group)} (gpu-npd fabric-check run {fabric.run_id})"
        for node in group:
            fabric.warn(node, LINK_REASON, message)
