from __future__ import annotations

import re

import pytest

from agent.config import ConfigError, load


def test_precedence_defaults_file_env_flags(tmp_path):
    cfg_file = tmp_path / "c.yaml"
    cfg_file.write_text("tick_seconds: 2\nstate_dir: /from/file\nmetrics_address: '127.0.0.1:1'\n")
    cfg = load(str(cfg_file), env={"GPU_NPD_STATE_DIR": "/from/env", "GPU_NPD_METRICS_ADDRESS": "127.0.0.1:2"},
               flags={"metrics_address": "127.0.0.1:3"})
    assert (cfg.tick_seconds, cfg.state_dir, cfg.metrics_address) == (2.0, "/from/env", "127.0.0.1:3")
    assert load(env={}).kmsg == "/dev/kmsg"


def test_metrics_listen_on_loopback_unless_told_otherwise():
    """Issue 17: the default listener is not every interface; `make run` and the kube-rbac-proxy component use
    the default, the DaemonSet names the pod IP, and every interface is an explicit choice."""
    assert load(env={}).metrics_host_port == ("127.0.0.1", 9810)
    assert load(env={"GPU_NPD_METRICS_ADDRESS": "$(POD_IP):9810".replace("$(POD_IP)", "10.0.0.7")}
                ).metrics_host_port == ("10.0.0.7", 9810)
    assert load(env={}, flags={"metrics_address": ":9810"}).metrics_host_port == ("0.0.0.0", 9810)


@pytest.mark.parametrize("flags,key", [
    ({"tick_seconds": "soon"}, "tick_seconds"), ({"tick_seconds": -1}, "tick_seconds"),
    ({"metrics_address": "nowhere"}, "metrics_address"), ({"journald": "perhaps"}, "journald"),
    ({"log_level": "loud"}, "log_level"),
    ({"condition_rules": [{"match": {"colour": "red"}, "condition": "GPUUnhealthy"}]}, "condition_rules[0].match"),
    ({"condition_rules": [{"match": {"kind": "xid"}, "condition": "Nope"}]}, "condition_rules[0].condition"),
])
def test_errors_name_the_key(flags, key):
    with pytest.raises(ConfigError, match="^" + re.escape(key)):
        load(env={}, flags=flags)


def test_unknown_file_key_and_bad_yaml(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("colour: red\n")
    with pytest.raises(ConfigError, match="colour: unknown"):
        load(str(bad), env={})
    bad.write_text("a: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load(str(bad), env={})


def test_node_name_from_env():
    assert load(env={"NODE_NAME": "gpu-7"}).node_name == "gpu-7"


@pytest.mark.parametrize("env, named", [
    ({"GPU_NPD_POLL_SECONDS": "nan"}, "GPU_NPD_POLL_SECONDS: poll_seconds"),
    ({"GPU_NPD_POLL_SECONDS": "inf"}, "GPU_NPD_POLL_SECONDS: poll_seconds"),
    ({"GPU_NPD_KUBERNETES__QPS": ".inf"}, "GPU_NPD_KUBERNETES__QPS: kubernetes.qps"),
    ({"GPU_NPD_KUBERNETES__HEARTBEAT_SECONDS": "nan"}, "GPU_NPD_KUBERNETES__HEARTBEAT_SECONDS: kubernetes.heartbeat"),
    ({"GPU_NPD_POLL_SECOND": "1"}, "GPU_NPD_POLL_SECOND: unknown configuration variable"),
    ({"GPU_NPD_KUBERNETES__HEARTBEAT": "1"}, "GPU_NPD_KUBERNETES__HEARTBEAT: unknown key kubernetes.heartbeat"),
    ({"GPU_NPD_MODE__X": "1"}, "GPU_NPD_MODE__X: mode has no nested keys"),
    ({"GPU_NPD_LOG_FORMAT": "xml"}, "GPU_NPD_LOG_FORMAT: log_format"),
])
def test_environment_errors_name_the_variable(env, named):
    with pytest.raises(ConfigError) as exc:
        load(env=env)
    assert str(exc.value).startswith(named) and "\n" not in str(exc.value)


def test_nested_keys_from_the_environment():
    cfg = load(env={"GPU_NPD_KUBERNETES__HEARTBEAT_SECONDS": "60", "GPU_NPD_KUBERNETES__EVENT_NAMESPACE": "gpu-npd",
                    "GPU_NPD_SAMPLE_IGNORE__IB_PORT": "['ib:mlx5_4/*']", "GPU_NPD_MATCHER": "re"})
    assert cfg.kube.heartbeat_seconds == 60 and cfg.kube.event_namespace == "gpu-npd"
    assert cfg.sample_ignore["ib_port"] == ["ib:mlx5_4/*"] and cfg.kube.qps == 5  # siblings keep their defaults


def test_non_finite_numbers_in_a_file_are_rejected(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("tick_seconds: .nan\n")
    with pytest.raises(ConfigError, match="tick_seconds"):
        load(str(f), env={})
