from __future__ import annotations

import re

import pytest

from agent.config import ConfigError, load
from kubeapi.reserved import CONDITION_TYPE, KUBELET_CONDITIONS


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
    # a Node's Events in another namespace than "default" are refused by the API server (422: kubernetes'
    # pkg/apis/core/validation/events.go, a cluster-scoped object's Event only in "default" or none), so the key
    # that chose it is gone
    ({"GPU_NPD_KUBERNETES__EVENT_NAMESPACE": "gpu-npd"}, "GPU_NPD_KUBERNETES__EVENT_NAMESPACE: unknown key"),
])
def test_environment_errors_name_the_variable(env, named):
    with pytest.raises(ConfigError) as exc:
        load(env=env)
    assert str(exc.value).startswith(named) and "\n" not in str(exc.value)


@pytest.mark.parametrize("text", ["kubernetes:\n#  qps: 5\n", "kubernetes: 5\n"])
def test_a_block_the_file_sets_to_no_mapping_is_named_not_the_variable_that_sets_a_key_inside_it(tmp_path, text):
    """A block the file leaves empty (its keys commented out: null) or sets to a scalar is that file's fault, as it
    is without the variable; the variable setting one of its keys said `GPU_NPD_KUBERNETES__QPS: kubernetes has no
    nested keys` (kubernetes has), sending the operator to a variable with nothing wrong."""
    conf = tmp_path / "c.yaml"
    conf.write_text(text)
    with pytest.raises(ConfigError) as alone:
        load(str(conf), env={})
    with pytest.raises(ConfigError) as both:
        load(str(conf), env={"GPU_NPD_KUBERNETES__QPS": "3"})
    assert str(alone.value).startswith(f"config file {conf}: kubernetes: expected a mapping")
    assert str(both.value) == str(alone.value)
    with pytest.raises(ConfigError, match=r"^GPU_NPD_KUBERNETES: kubernetes: expected a mapping, got '\{qps: 3\}'$"):
        load(env={"GPU_NPD_KUBERNETES": "{qps: 3}", "GPU_NPD_KUBERNETES__BURST": "5"})  # the block's variable, alike


def test_nested_keys_from_the_environment():
    cfg = load(env={"GPU_NPD_KUBERNETES__HEARTBEAT_SECONDS": "60", "GPU_NPD_KUBERNETES__REPAIR_PROFILE": "eks",
                    "GPU_NPD_SAMPLE_IGNORE__IB_PORT": "['ib:mlx5_4/*']", "GPU_NPD_MATCHER": "re"})
    assert cfg.kube.heartbeat_seconds == 60 and cfg.kube.repair_profile == "eks"
    assert cfg.sample_ignore["ib_port"] == ["ib:mlx5_4/*"] and cfg.kube.qps == 5  # siblings keep their defaults


def test_non_finite_numbers_in_a_file_are_rejected(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("tick_seconds: .nan\n")
    with pytest.raises(ConfigError, match="tick_seconds"):
        load(str(f), env={})


@pytest.mark.parametrize("block, key", [
    ({"kubernetes": {"taint_prefix": "nvidia.com/"}}, "kubernetes.taint_prefix"),  # would own nvidia.com/gpu
    ({"kubernetes": {"taint_prefix": "node.kubernetes.io/"}}, "kubernetes.taint_prefix"),
    ({"kubernetes": {"repair_annotation_key": "cluster-autoscaler.kubernetes.io/scale-down-disabled"}},
     "kubernetes.repair_annotation_key"),
    ({"kubernetes": {"repair_annotation_key": "nvidia.com/gpu.deploy.driver"}}, "kubernetes.repair_annotation_key"),
    ("Ready", "conditions.Ready"),  # a condition (and so a condition rule) of the kubelet's type
])
def test_keys_and_condition_types_of_others_are_refused_by_the_real_process(tmp_path, block, key):
    """Issue 31 item 4: `taint_prefix: nvidia.com/` deleted the common nvidia.com/gpu taint, a condition named
    Ready wrote Ready=False, and repair_annotation_key took others' keys. `gpu-npd run` now refuses them: exit 2,
    one line naming the key (kubeapi/reserved.py says whose)."""
    import os  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    import yaml  # noqa: PLC0415

    from agent.settings import defaults  # noqa: PLC0415

    if block == "Ready":
        block = {"conditions": {**defaults()["conditions"], "Ready": {"ok_reason": "Fine", "ok_message": "fine"}}}
    conf = tmp_path / "c.yaml"
    conf.write_text(yaml.safe_dump(block))
    r = subprocess.run([sys.executable, "-m", "gpunpd", "run", "--config", str(conf), "--state-dir",
                        str(tmp_path / "state"), "--kmsg", "", "--no-journald"], capture_output=True, timeout=60,
                       env={**os.environ, "NODE_NAME": "n"})
    err = r.stderr.decode()
    assert r.returncode == 2 and len(err.strip().splitlines()) == 1 and f"{key}:" in err, err
    assert "Kubernetes or a vendor" in err or "kubelet's" in err


_OK = {"ok_reason": "Fine", "ok_message": "fine"}


def _plus(name: str) -> dict:
    """The `conditions` key with one of one's own added to the shipped ones (a key given replaces the block)."""
    from agent.settings import defaults  # noqa: PLC0415

    return {"conditions": {**defaults()["conditions"], name: _OK}}


@pytest.mark.parametrize("flags, key", [
    *[(_plus(t), f"conditions.{t}") for t in sorted(KUBELET_CONDITIONS)],
    (_plus("Bad Name"), "conditions.Bad Name"),  # no condition type: a space
    (_plus("X' || true || 'Y"), "conditions.X' || true || 'Y"),  # quoted into the chart's CEL
    (_plus("Example.com/GPUBurn"), "conditions.Example.com/GPUBurn"),  # a prefix is lower case
    (_plus("GPUBurn\n"), "conditions.GPUBurn"),  # `$` alone takes a trailing newline
    (_plus("-GPUBurn"), "conditions.-GPUBurn"),
    (_plus("a" * 249 + ".com/" + "B" * 63), "conditions." + "a" * 249),  # a qualified name of 317: MaxLength 316
    (_plus("G" * 64), "conditions." + "G" * 64),  # a qualified name's name: 63 at most (ValidateCondition)
    (_plus("a" * 251 + ".io/G"), "conditions." + "a" * 251),  # its prefix: 253 at most
    # a built-in check's: enabled or not, its tool present or not (refused on every node alike)
    ({"checks": {"builtin": {"ib": {"condition": "Bad Name"}}}}, "checks.builtin.ib.condition"),
    ({"checks": {"enabled": True, "builtin": {"gpu": {"enabled": True, "condition": "Ready"}}}},
     "checks.builtin.gpu.condition"),
])
def test_a_condition_type_the_charts_policy_refuses_is_refused_naming_its_key_the_pattern_and_the_kubelets(flags, key):
    """h479's chart fails the render for a condition type that is the kubelet's or does not fit Kubernetes' pattern
    (metav1.Condition's `type`: a qualified name); the agent accepted such a name (the kubelet's types aside) and
    wrote it: the API server's Node status takes any string, but the chart's policy, which quotes the types into its
    CEL, refused every status write. Now one line names the key, the pattern and the kubelet's types, declared once
    (kubeapi/reserved.py), for sample_rules and condition_rules too (they may name only `conditions`' keys)."""
    with pytest.raises(ConfigError) as exc:
        load(env={}, flags=flags)
    err = str(exc.value)
    assert err.startswith(key) and "\n" not in err, err  # (a newline in the name: one line, as `_one_line` says it)
    assert CONDITION_TYPE in err and ", ".join(sorted(KUBELET_CONDITIONS)) in err, err


def test_a_qualified_condition_type_of_ones_own_is_accepted():
    for name in ("SiteCheckFailed", "example.com/GPUBurnFailed", "gpu-npd.io/A100_Fault.v2", "X"):
        assert name in load(env={}, flags=_plus(name)).conditions
    cfg = load(env={}, flags={"checks": {"builtin": {"ib": {"condition": "example.com/IBCheck"}}}})
    assert "example.com/IBCheck" not in cfg.conditions  # (the check is off: its condition joins none)


def test_a_condition_type_of_316_characters_is_accepted():
    name = "a" * 248 + ".com/" + "B" * 63
    assert len(name) == 316 and name in load(env={}, flags=_plus(name)).conditions


def _tainted(*names: str, **kube) -> dict:
    """Conditions of one's own added, and a taint rule on each."""
    flags = _plus(names[0])
    flags["conditions"].update({n: _OK for n in names})
    return {**flags, "kubernetes": {"taints": [{"condition": n} for n in names], **kube}}


def test_a_condition_with_a_domain_of_its_own_is_tainted_by_its_name():
    """h488: its key was taint_prefix + the type, `gpu-npd.io/example.com/GPUHot`, no taint key (two '/'): the API
    server refused the node's whole taint patch. One function makes the key (agent/kube/desired.py taint_key)."""
    from agent.kube.desired import our_taint_keys, taint_key  # noqa: PLC0415

    cfg = load(env={}, flags=_tainted("example.com/GPUHot"))
    assert taint_key(cfg.kube.taint_prefix, "example.com/GPUHot") == "gpu-npd.io/GPUHot"
    assert our_taint_keys(list(cfg.kube.taints), cfg.kube.taint_prefix) == {"gpu-npd.io/GPUHot"}


@pytest.mark.parametrize("flags, words", [
    (_tainted("example.com/GPUHot", "example.org/GPUHot"), "would share the taint key 'gpu-npd.io/GPUHot'"),
    (_tainted("example.com/GPUHot", "GPUHot"), "would share the taint key 'gpu-npd.io/GPUHot'"),
    (_tainted("GPUHot", taint_prefix="a" * 251 + ".io/"), "is no qualified name: its prefix 'aaa"),
    # (h503) two rules of one condition: one taint key, so the last that held was written over the other (a fatal
    # GPU's NoExecute lost under a NoSchedule rule after it); was accepted, silently
    ({"kubernetes": {"taints": [{"condition": "GPUUnhealthy", "effect": "NoExecute", "min_severity": "fatal"},
                                {"condition": "GPUUnhealthy"}]}},
     "'GPUUnhealthy' has a taint rule already (kubernetes.taints[0])"),
    (_tainted("GPUHot", "GPUHot"), "'GPUHot' has a taint rule already (kubernetes.taints[0])"),
])
def test_a_taint_rule_whose_key_is_no_taint_key_or_taken_is_refused_in_one_line(flags, words):
    with pytest.raises(ConfigError) as exc:
        load(env={}, flags=flags)
    err = str(exc.value)
    assert err.startswith("kubernetes.taints[") and words in err and "\n" not in err, err


@pytest.mark.parametrize("prefix", ["GPU-NPD.io/", "gpu_npd.io/", "a/b/", "/", "-x.io/"])
def test_a_taint_prefix_that_is_no_domain_is_refused(prefix):
    with pytest.raises(ConfigError, match=r"^kubernetes\.taint_prefix"):
        load(env={}, flags={"kubernetes": {"taint_prefix": prefix}})


def test_keys_of_our_own_domain_or_a_private_one_are_accepted():
    for prefix in ("gpu-npd.io/", "example.com/", "gpu.example.org/"):
        assert load(env={}, flags={"kubernetes": {"taint_prefix": prefix}}).kube.taint_prefix == prefix
    assert load(env={}, flags={"kubernetes": {"repair_annotation_key": "ops.example.com/repair"}})


def test_a_file_key_a_variable_or_option_replaces_is_said(tmp_path):
    """The environment and the options win over the file, silently before: a ConfigMap's `mode: enforce` under the
    DaemonSet's GPU_NPD_MODE=observe ran observe. Each such key is one line, at `gpu-npd run`'s start (a warning)
    and in `gpu-npd config check`; a block's keys by the variables that replace them; nothing when none is."""
    from click.testing import CliRunner

    from agent.config import loaded
    from gpunpd.cli import main

    def replaced(*args):
        return loaded(*args)[1]

    conf = tmp_path / "c.yaml"
    conf.write_text("mode: enforce\nkubernetes: {max_tainted_fraction: 0.05}\nlog_level: info\n")
    env = {"GPU_NPD_MODE": "observe", "GPU_NPD_KUBERNETES__MAX_TAINTED_FRACTION": "0.02", "GPU_NPD_TICK_SECONDS": "2"}
    assert replaced(str(conf), env, {"log_level": "debug", "kmsg": None}) == [
        f"config file {conf}: mode replaced by GPU_NPD_MODE",
        f"config file {conf}: keys of kubernetes replaced by GPU_NPD_KUBERNETES__MAX_TAINTED_FRACTION",
        f"config file {conf}: log_level replaced by an option of the command line"]
    assert replaced(str(conf), {}, {}) == [] and replaced(None, env) == []
    out = CliRunner().invoke(main, ["config", "check", "--config", str(conf)], env={"GPU_NPD_MODE": "observe"})
    assert out.exit_code == 0 and "mode observe;" in out.output
    assert out.output.splitlines()[-1] == f"config file {conf}: mode replaced by GPU_NPD_MODE"


def test_a_file_key_replaced_is_said_by_the_variable_that_set_it_whatever_its_case(tmp_path):
    """`replaced` names the variable `load` took the key from (its record of them), not one it spells again: a
    variable's name is read case-blind after GPU_NPD_ (GPU_NPD_Mode sets mode), and such a variable replaced the
    file's key with nothing said, the upper-case name looked up not being the one set."""
    from agent.config import loaded

    conf = tmp_path / "c.yaml"
    conf.write_text("mode: enforce\nkubernetes: {max_tainted_fraction: 0.05}\n")
    env = {"GPU_NPD_Mode": "observe", "GPU_NPD_KUBERNETES__Max_Tainted_Fraction": "0.02"}
    cfg, said = loaded(str(conf), env)
    assert (cfg.mode, cfg.kube.max_tainted_fraction) == ("observe", 0.02)
    assert said == [
        f"config file {conf}: mode replaced by GPU_NPD_Mode",
        f"config file {conf}: keys of kubernetes replaced by GPU_NPD_KUBERNETES__Max_Tainted_Fraction"]
    with pytest.raises(ConfigError, match="GPU_NPD_MODEL"):  # an unknown variable: load's error, no line
        loaded(str(conf), {"GPU_NPD_MODEL": "x"})


def test_the_file_is_read_once_for_the_configuration_and_its_replaced_keys(tmp_path, monkeypatch):
    """`gpu-npd run` and `gpu-npd config check` say the file's keys a variable replaced from the reading the
    configuration was built from (agent/config.py `loaded`): the file read once (was: read again, with the
    environment, after `load`, so a ConfigMap changed between the two readings was warned about as it was not run)."""
    from click.testing import CliRunner

    import agent.app
    import agent.config
    import agent.logs
    from gpunpd.cli import main

    def stop(cfg, **_):
        raise ValueError("stopped before start")

    monkeypatch.setattr(agent.app, "build", stop)
    monkeypatch.setattr(agent.logs, "setup", lambda *a: None)
    reads = []
    read = agent.config._read_file
    monkeypatch.setattr(agent.config, "_read_file", lambda file: reads.append(file) or read(file))
    conf = tmp_path / "c.yaml"
    conf.write_text("mode: enforce\n")
    for args in (["config", "check"], ["run", "--state-dir", str(tmp_path / "state")]):
        reads.clear()
        out = CliRunner().invoke(main, [*args, "--config", str(conf)], env={"GPU_NPD_MODE": "observe"})
        assert reads == [str(conf)], (args, reads, out.output)


def test_a_file_key_the_kubeconfig_option_replaces_is_said_by_the_option(tmp_path, monkeypatch, caplog):
    """`gpu-npd run --kubeconfig` sets kubernetes.kubeconfig through the variable GPU_NPD_KUBERNETES__KUBECONFIG; the
    warning named that variable, which nobody set. It names the option; a variable really set is still named."""
    from click.testing import CliRunner

    import agent.app
    import agent.logs
    from gpunpd.cli import main

    def stop(cfg, **_):
        raise ValueError("stopped before start")

    monkeypatch.setattr(agent.app, "build", stop)  # run exits 2 after its warnings
    monkeypatch.setattr(agent.logs, "setup", lambda *a: None)  # the warnings to caplog
    conf = tmp_path / "c.yaml"
    conf.write_text("kubernetes: {kubeconfig: /etc/a.kubeconfig, qps: 5}\n")
    args = ["run", "--config", str(conf), "--state-dir", str(tmp_path / "state")]
    for extra, env, by in (
            (["--kubeconfig", str(tmp_path / "b")], {}, "--kubeconfig"),
            (["--kubeconfig", str(tmp_path / "b")], {"GPU_NPD_KUBERNETES__QPS": "9"},
             "--kubeconfig, GPU_NPD_KUBERNETES__QPS"),
            ([], {"GPU_NPD_KUBERNETES__KUBECONFIG": str(tmp_path / "c")}, "GPU_NPD_KUBERNETES__KUBECONFIG")):
        caplog.clear()
        out = CliRunner().invoke(main, [*args, *extra], env=env)
        assert out.exit_code == 2, out.output
        said = [r.getMessage() for r in caplog.records if "replaced by" in r.getMessage()]
        assert said == [f"config file {conf}: keys of kubernetes replaced by {by}"], said
