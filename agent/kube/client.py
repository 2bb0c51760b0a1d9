"""Which API server, if any: an explicit URL, in-cluster config, a kubeconfig, or none (local mode)."""

from __future__ import annotations

import logging

from .settings import KubeSettings

log = logging.getLogger("gpu_npd.kube")


def make_api(s: KubeSettings):
    """A CoreV1Api, or None for local mode.  urllib3's own retries are off: the sink backs off itself."""
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
