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
