"""`gpu-npd cluster`: the job-level controller (one Deployment per cluster)."""

from __future__ import annotations

import logging
import math
import os
import signal
import socket
import sys

import click

from gpunpd.options import cluster_options
from triage import DEFAULT_WINDOW

from .book import HOLD
from .controller import Controller, Settings
from .leader import MAX_LEASE_SECONDS
from .recovery import Policy


class Finite(click.FloatRange):
    """A number within the range, finite: `nan` passes click's own range (it compares false with either bound) and
    would bound nothing (--idle nan: no incident ever closes; --hold inf: a held one never opens)."""

    def convert(self, value, param, ctx):
        rv = super().convert(value, param, ctx)
        if not math.isfinite(rv):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return rv


# a window, a rate, a time to idle of 0 or less would bound nothing (--recovery-window 0: every restart out of the
# budget at once), the Lease's renew deadline and retry period neither: a usage error
POSITIVE = Finite(min=0, min_open=True)
# the Lease's duration (--lease-duration inf: no Lease's int(leaseDurationSeconds)) is written in whole seconds
# (rounded up) to an int32 the API takes only above 0: --lease-duration 0.5 was written as 0 (refused at each try),
# 1e10 past the int32
LEASE_SECONDS = Finite(min=1, max=MAX_LEASE_SECONDS)


@click.command("cluster")
@cluster_options("GPU_NPD_API_SERVER", "KUBECONFIG_PATH")
@click.option("--namespace", envvar="POD_NAMESPACE", default="gpu-npd", show_default=True,
              help="namespace of the leader-election Lease")
@click.option("--lease-name", default="gpu-npd-cluster", show_default=True)
@click.option("--identity", envvar="POD_NAME", default="", help="this replica's name in the Lease (default: host)")
@click.option("--metrics-address", envvar="GPU_NPD_CLUSTER_METRICS_ADDRESS", default="0.0.0.0:9811",
              show_default=True, help="host:port for /metrics ('' for none)")
@click.option("--window", type=Finite(min=0), default=DEFAULT_WINDOW, show_default=True,
              help="seconds a node fault may precede the job's failures it explains")
@click.option("--idle", type=POSITIVE, default=1800.0, show_default=True,
              help="seconds without new evidence after which a job's incident closes")
@click.option("--hold", type=Finite(min=0), default=HOLD, show_default=True,
              help="seconds a job whose only failure a healthy end also prints (StoreLost) waits for the pods that "
                   "said it to end before its incident opens (0: at once)")
@click.option("--lease-duration", type=LEASE_SECONDS, default=15.0, show_default=True)
@click.option("--renew-deadline", type=POSITIVE, default=10.0, show_default=True)
@click.option("--retry-period", type=POSITIVE, default=2.0, show_default=True)
@click.option("--events-per-minute", type=POSITIVE, default=60.0, show_default=True,
              help="incident Event writes per minute (after a burst); what waits is aggregated")
@click.option("--recovery", type=click.Choice(["off", "observe", "enforce"]), default="observe", show_default=True,
              help="cascading recovery of jobs whose pods (or owner) carry gpu-npd.io/cascading-recovery=true: "
                   "observe writes 'would restart' Events; enforce deletes the opted-in pods of a job whose member "
                   "cannot continue (needs deploy/components/cluster-recovery's RBAC)")
@click.option("--recovery-budget", type=click.IntRange(min=0), default=3, show_default=True, help="restarts per job within the window")
@click.option("--recovery-window", type=POSITIVE, default=3600.0, show_default=True)
@click.option("--recoveries-per-minute", type=POSITIVE, default=10.0, show_default=True, help="cluster-wide")
@click.option("--recovery-namespace-budget", type=click.IntRange(min=0), default=None,
              help="restarts of the jobs of one namespace within the window for faults of their own, not a "
              "node's (default: no bound)")
@click.option("--foreign-conditions/--no-foreign-conditions", envvar="GPU_NPD_CLUSTER_FOREIGN_CONDITIONS",
              default=True, show_default=True,
              help="read other detectors' node conditions (the EKS node monitoring agent's, node-problem-detector's, "
                   "NVSentinel's: triage/facts.py FOREIGN_CONDITIONS) as node faults of the jobs on the node, as "
                   "gpu-npd's own; an Unknown status or a stale heartbeat is none")
@click.option("--log-level", default="info", type=click.Choice(["debug", "info", "warning", "error"]))
def cluster(api_server, kubeconfig, namespace, lease_name, identity, metrics_address, window, idle, hold,
            lease_duration, renew_deadline, retry_period, events_per_minute, recovery, recovery_budget,
            recovery_window, recoveries_per_minute, recovery_namespace_budget, foreign_conditions, log_level) -> None:
    """Job incidents across the cluster: groups pods into jobs by owner, reads what the node agents publish
    (Pod and Node Events, node conditions, the repair annotation), attributes each failing job's root cause
    and writes one Event on the job's owner per incident.  Leader-elected; prints incidents as JSON lines.

    Exit 0 on SIGTERM, 1 when the leader lost its Lease (restarted, it stands by), 2 with no cluster, a bad option
    or a metrics address it cannot listen on."""
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, log_level.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from kubeapi.client import NoCluster, make_api  # noqa: PLC0415

    s = Settings(api_server=api_server, kubeconfig=kubeconfig, namespace=namespace, lease_name=lease_name,
                 identity=identity or socket.gethostname(), window=window, idle=idle, hold=hold,
                 lease_duration=lease_duration, renew_deadline=renew_deadline, retry_period=retry_period,
                 events_per_minute=events_per_minute, foreign_conditions=foreign_conditions,
                 recovery=Policy(recovery, recovery_budget, recovery_window, recoveries_per_minute,
                                 recovery_namespace_budget))
    if not 0 < s.retry_period < s.renew_deadline < s.lease_duration:  # (their bound above: --lease-duration's)
        raise click.UsageError(f"need 0 < --retry-period < --renew-deadline < --lease-duration (given {s.retry_period:g}"
                               f" < {s.renew_deadline:g} < {s.lease_duration:g})")
    try:
        api = make_api(s, required=True)
    except NoCluster as exc:  # exit 2 as cleanup and fabric-check: exit 1 is a lost Lease's
        click.echo(f"gpu-npd cluster: no cluster: {exc}", err=True)
        sys.exit(2)
    controller = Controller(api, s)
    # the handlers before /metrics is served: a SIGTERM from then on stops it (exit 0), never the default's kill
    signal.signal(signal.SIGTERM, lambda *_: controller.shutdown())
    signal.signal(signal.SIGINT, lambda *_: controller.shutdown())
    if metrics_address:
        from prometheus_client import start_http_server  # noqa: PLC0415
        host, _, port = metrics_address.rpartition(":")
        try:
            start_http_server(int(port), host or "0.0.0.0", registry=controller.metrics.registry)
        except (OSError, ValueError) as exc:
            click.echo(f"gpu-npd cluster: cannot start: --metrics-address {metrics_address}: "
                       f"{getattr(exc, 'strerror', None) or exc}", err=True)
            sys.exit(2)
    code = controller.run()
    logging.shutdown()
    os._exit(code) if code else sys.exit(0)  # noqa: B018 - a lost lease exits at once, threads and all
