"""Each configuration key is declared once (agent/settings.py): the defaults file users read, the environment
mapping, the validation and the reference docs all derive from the declaration."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields

import pytest
import yaml

from agent.config import NESTED, ConfigError, load
from agent.kube.settings import KubeSettings
from agent.settings import ENV_PREFIX, Config, defaults, keys, render_defaults
from agent.sinks import SINKS


def test_the_defaults_are_plain_data_and_each_call_a_copy_of_its_own():
    """defaults() copies by hand what copy.deepcopy copied at four times the cost: mappings and lists are copied,
    anything else shared, so every leaf must be immutable, and no container of one call may be another's."""
    def walk(value, path="", seen=None):
        if isinstance(value, (dict, list)):
            assert type(value) in (dict, list), (path, type(value))  # a subclass would be shared, not copied
            seen.append(value)
            for k, v in (value.items() if isinstance(value, dict) else enumerate(value)):
                walk(v, f"{path}.{k}", seen)
        else:
            assert value is None or type(value) in (str, int, float, bool), (path, type(value))
        return seen
    a, b = walk(defaults(), seen=[]), walk(defaults(), seen=[])
    assert a[0] == b[0] and not {id(x) for x in a} & {id(x) for x in b}


def test_the_default_telemetry_rules_are_the_shipped_rows_without_their_sources():
    # a shipped row's `source` is the docs' evidence for its number (docs/telemetry-thresholds.md renders it), no
    # configuration's: the default is parsers.telemetry.sample_rules(), which leaves it out (it read rows() instead,
    # every default rule carrying its source into the agent's judge)
    from parsers.telemetry import rows, sample_rules  # noqa: PLC0415

    assert any("source" in r for r in rows())
    default = load(None).sample_rules
    assert default == sample_rules() and not [r for r in default if "source" in r]


def test_the_defaults_file_users_read_is_the_declaration(tmp_path):
    """`python -m agent.settings` prints every key with its doc and default (what agent/defaults.yaml was): it reads
    back as the defaults, and as a configuration file it gives the default configuration."""
    text = subprocess.run([sys.executable, "-m", "agent.settings"], capture_output=True, text=True, check=True).stdout
    assert text == render_defaults() and yaml.safe_load(text) == defaults()
    for k in keys():
        assert f"# {k.doc.split()[0]}" in text, k.path  # each key's doc is in it
    conf = tmp_path / "defaults.yaml"
    conf.write_text(text)
    assert load(str(conf), env={"NODE_NAME": "n"}) == load(env={"NODE_NAME": "n"})


def test_every_key_has_a_doc_a_type_and_its_variable():
    rows = keys()
    assert [k.path for k in rows if "." not in k.path] == [f.name for f in fields(Config)]
    assert [k.path for k in rows if k.path.startswith("kubernetes.")] == \
        [f"kubernetes.{f.name}" for f in fields(KubeSettings)]
    for k in rows:
        assert k.doc and k.type, k.path
        # a key of a block inside a block (a sink's: sinks.<name>.<key>) is set by its block's variable, as YAML
        assert k.env == ("" if k.path.count(".") > 1 else ENV_PREFIX + k.path.upper().replace(".", "__")), k.path
    declared = {"kubernetes", "workload_hang", "peer_outliers", "sinks"}  # blocks of keys declared like the top level
    sinks = {f"sinks.{r.name}" for r in SINKS}  # a block per sink row (agent/sinks/__init__.py)
    assert {k.path for k in rows if k.block} == declared | sinks and declared <= set(NESTED)


@pytest.mark.parametrize("key", [k for k in keys() if "." not in k.path and not k.block
                                 and not isinstance(k.default, (dict, list))], ids=lambda k: k.path)
def test_each_scalar_key_is_set_by_its_variable(key):
    """GPU_NPD_<KEY>=<its default as text> loads and gives the default back (the mapping is the declaration's)."""
    text = "" if key.default is None else str(key.default).lower() if isinstance(key.default, bool) else \
        str(key.default)
    env = {key.env: text}
    if key.path == "nvml":
        env[key.env] = "off"
    cfg = load(env=env)
    if key.path not in ("nvml", "node_name"):
        assert getattr(cfg, key.path) == key.default


def test_a_nested_key_is_set_by_its_variable_and_bounds_are_checked():
    assert load(env={"GPU_NPD_KUBERNETES__MAX_TAINTED_FRACTION": "0.5"}).kube.max_tainted_fraction == 0.5
    with pytest.raises(ConfigError, match=r"^GPU_NPD_KUBERNETES__MAX_TAINTED_FRACTION: kubernetes\.max_tainted_"
                                          r"fraction: expected a number <= 1, got 2"):
        load(env={"GPU_NPD_KUBERNETES__MAX_TAINTED_FRACTION": "2"})
    with pytest.raises(ConfigError, match=r"^kubernetes\.taints\[0\]\.colour: unknown key"):
        load(env={}, flags={"kubernetes": {"taints": [{"condition": "GPUUnhealthy", "colour": "red"}]}})
    with pytest.raises(ConfigError, match=r"^kubernetes\.taints\[0\]\.condition: expected one of GPUDegraded, "
                                          r"GPUDriverDegraded, GPUUnhealthy, .*, got 'Nope'$"):  # sorted, as the chart's
        load(env={}, flags={"kubernetes": {"taints": [{"condition": "Nope"}]}})


def test_a_taint_rule_names_an_enabled_builtin_checks_condition_on_a_node_without_its_tool(monkeypatch):
    """One configuration for a fleet where dcgmi is on some nodes: a taint rule on the dcgm check's condition was
    refused at start where dcgmi is missing (the check left out, its condition with it), the agent crash-looping
    there; it is taken on every node, and still refused where the check is not enabled."""
    from agent.checks import builtin

    monkeypatch.setattr(builtin.shutil, "which", lambda _: None)
    checks = {"enabled": True, "builtin": {"dcgm": {"enabled": True}}}
    taints = {"taints": [{"condition": "DCGMDiagFailed"}]}
    assert [t.condition for t in load(env={}, flags={"checks": checks, "kubernetes": taints}).kube.taints] == \
        ["DCGMDiagFailed"]
    for off in ({**checks, "enabled": False}, {"enabled": True, "builtin": {"dcgm": {"enabled": False}}}):
        with pytest.raises(ConfigError, match=r"^kubernetes\.taints\[0\]\.condition: expected one of .*, got "
                                              r"'DCGMDiagFailed'$"):
            load(env={}, flags={"checks": off, "kubernetes": taints})


@pytest.mark.parametrize("flags, said", [
    ({"tick_seconds": 0}, "tick_seconds: expected a number > 0, got 0"),
    ({"max_problems": 2.5}, "max_problems: expected an integer, got 2.5"),
    ({"log_format": "xml"}, "log_format: expected one of text, json, got 'xml'"),
    ({"mode": "on"}, "mode: expected one of enforce, observe, off, got 'on'"),
    ({"ib_counter_selfcheck_repeats": 0}, "ib_counter_selfcheck_repeats: expected an integer >= 1, got 0"),
    ({"queue_max_mb": 2e9}, "queue_max_mb: expected a number <= 1000000000, got 2000000000.0"),
])
def test_bounds_and_types_from_the_declaration_are_one_line_naming_the_key(flags, said):
    with pytest.raises(ConfigError) as exc:
        load(env={}, flags=flags)
    assert str(exc.value) == said


def test_the_run_flags_offer_what_the_declaration_allows():
    """`gpu-npd run`'s choice flags repeat the declared values (agent.cli stays light to import: `gpu-npd parse`
    loads it); they must not drift from the declaration."""
    from typing import get_args, get_type_hints

    from agent.cli import run
    from agent.kube.settings import MODES

    choices = {p.name: list(p.type.choices) for p in run.params if hasattr(p.type, "choices")}
    assert choices["mode"] == list(MODES)
    assert choices["log_format"] == list(get_args(get_args(get_type_hints(Config, include_extras=True)
                                                           ["log_format"])[0]))
    flags = {p.name for p in run.params} - {"config_file", "kubeconfig"}
    assert flags <= {f.name for f in fields(Config)}  # each flag sets the key of its name
