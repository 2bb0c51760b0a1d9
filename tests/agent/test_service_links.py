"""Kubernetes' service-link variables never stop the agent.

A Service named `gpu-npd` (users add one for scraping) makes the kubelet put GPU_NPD_SERVICE_HOST, GPU_NPD_PORT
and friends into every pod of the namespace. The agent rejects unknown GPU_NPD_* variables (a typo must not pass
silently), so those would crash-loop every agent at the next rollout. The variables below are what the kubelet
writes for `Service gpu-npd` (port 9810, named `metrics`) and `Service gpu-npd-metrics` (port 9810, unnamed),
in the shape of kubelet's getServiceEnvVarMap (pkg/kubelet/envvars).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config import ConfigError, load
from harness import AgentProc

SERVICE_LINKS = {
    # Service gpu-npd, ClusterIP 10.96.12.34, port 9810 named "metrics"
    "GPU_NPD_SERVICE_HOST": "10.96.12.34",
    "GPU_NPD_SERVICE_PORT": "9810",
    "GPU_NPD_SERVICE_PORT_METRICS": "9810",
    "GPU_NPD_PORT": "tcp://10.96.12.34:9810",
    "GPU_NPD_PORT_9810_TCP": "tcp://10.96.12.34:9810",
    "GPU_NPD_PORT_9810_TCP_PROTO": "tcp",
    "GPU_NPD_PORT_9810_TCP_PORT": "9810",
    "GPU_NPD_PORT_9810_TCP_ADDR": "10.96.12.34",
    # Service gpu-npd-metrics (IPv6 cluster), port 9810 unnamed
    "GPU_NPD_METRICS_SERVICE_HOST": "fd00:10:96::1a2b",
    "GPU_NPD_METRICS_SERVICE_PORT": "9810",
    "GPU_NPD_METRICS_PORT": "tcp://[fd00:10:96::1a2b]:9810",
    "GPU_NPD_METRICS_PORT_9810_TCP": "tcp://[fd00:10:96::1a2b]:9810",
    "GPU_NPD_METRICS_PORT_9810_TCP_PROTO": "tcp",
    "GPU_NPD_METRICS_PORT_9810_TCP_PORT": "9810",
    "GPU_NPD_METRICS_PORT_9810_TCP_ADDR": "fd00:10:96::1a2b",
}


def test_service_link_variables_are_not_configuration():
    cfg = load(None, env={**SERVICE_LINKS, "GPU_NPD_MODE": "off"})
    assert cfg.mode == "off" and cfg.metrics_address == "127.0.0.1:9810"


@pytest.mark.parametrize("var, value", [
    ("GPU_NPD_MODEE", "enforce"),                 # a typo of a key is still an error
    ("GPU_NPD_PORT", "9810"),                     # not the tcp://host:port a Service link carries
    ("GPU_NPD_KUBERNETES__QPSS", "5"),
])
def test_other_unknown_variables_are_still_errors(var, value):
    with pytest.raises(ConfigError, match=var):
        load(None, env={var: value})


def test_a_configuration_key_is_never_taken_for_a_service_link():
    """GPU_NPD_METRICS_ADDRESS is ours, whatever Services exist."""
    cfg = load(None, env={**SERVICE_LINKS, "GPU_NPD_METRICS_ADDRESS": "10.0.0.7:9811"})
    assert cfg.metrics_host_port == ("10.0.0.7", 9811)


@pytest.mark.slow
def test_the_agent_process_starts_with_service_link_variables_set(tmp_path: Path):
    agent = AgentProc(tmp_path, env={**SERVICE_LINKS, "GPU_NPD_MODE": "off"})
    try:
        assert agent.healthz()[0] in (200, 503)
    finally:
        code, _ = agent.stop()
    assert code == 0
