"""Which API server, if any: an explicit URL, in-cluster config, a kubeconfig, or none (local mode)."""

from __future__ import annotations

import logging
import os

from typing import Protocol

log = logging.getLogger("gpu_npd.kube")


class Target(Protocol):
    """Where the API server is: an explicit URL, else a kubeconfig path ("" for the default search)."""

    api_server: str
    kubeconfig: str


def cluster_reachable(s: Target) -> bool:
    """Is there any way to a cluster?  Checked before importing the client (22 MiB of it)."""
    if s.api_server or os.environ.get("KUBERNETES_SERVICE_HOST"):
        return True
    paths = [s.kubeconfig] if s.kubeconfig else \
        os.environ.get("KUBECONFIG", "").split(os.pathsep) + [os.path.expanduser("~/.kube/config")]
    return any(p and os.path.isfile(p) for p in paths)


def make_api(s: Target):
    """A CoreV1Api, or None for local mode.  urllib3's own retries are off: the sink backs off itself."""
    if not cluster_reachable(s):
        log.info("Kubernetes: no in-cluster environment and no kubeconfig: local mode")
        return None
    from kubernetes import client, config  # noqa: PLC0415
    from kubernetes.config.config_exception import ConfigException  # noqa: PLC0415

    if s.api_server:
        cfg = client.Configuration()
        cfg.host = s.api_server.rstrip("/")
    else:
        cfg = client.Configuration()
        try:
            config.load_incluster_config(client_configuration=cfg)
            log.info("Kubernetes: in-cluster config")
        except ConfigException:
            try:
                config.load_kube_config(config_file=s.kubeconfig or None, client_configuration=cfg)
                log.info("Kubernetes: kubeconfig %s", s.kubeconfig or "(default)")
            except (ConfigException, OSError, TypeError) as exc:
                log.info("Kubernetes: no in-cluster config and no kubeconfig (%s): local mode", str(exc)[:120])
                return None
    cfg.retries = False
    return client.CoreV1Api(client.ApiClient(cfg))
