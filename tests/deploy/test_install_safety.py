"""Defaults that cannot hurt: which cluster `gpu-npd run` writes to (and says so), which kernel log it reads."""

from __future__ import annotations

import base64
import json
import logging
import os
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from agent.config import load
from kubeapi.client import make_api, token_subject
from agent.intake import select_sources
from apiserver_double import ApiDouble


def jwt(claims: dict) -> str:
    """A JWT's shape (synthetic, unsigned): header.payload.signature, base64url without padding."""
    enc = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")  # noqa: E731
    return f"{enc({'alg': 'RS256'})}.{enc(claims)}.c2ln"


def kubeconfig(path: Path, server: str, token: str | None = None) -> Path:
    user = {"token": token} if token else {"username": "alice", "password": "x"}
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "lab",
        "clusters": [{"name": "lab-cluster", "cluster": {"server": server}}],
        "users": [{"name": "alice", "user": user}],
        "contexts": [{"name": "lab", "context": {"cluster": "lab-cluster", "user": "alice"}}]}))
    return path


@pytest.fixture
def workstation(monkeypatch, tmp_path):
    """Not in a pod; a ~/.kube/config pointing at a cluster."""
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".kube").mkdir()
    with ApiDouble() as api:
        yield api, kubeconfig(tmp_path / ".kube" / "config", api.url)


def test_the_agent_outside_a_pod_ignores_an_unnamed_kubeconfig(workstation, caplog):
    api, path = workstation
    cfg = load(env={}, flags={"kmsg": ""})
    with caplog.at_level(logging.INFO, "gpu_npd.kube"):
        assert make_api(cfg.kube, implicit_kubeconfig=False) is None
    assert f"a kubeconfig ({path}) is used only when named" in caplog.text and "local mode" in caplog.text
    assert api.requests == []


def test_a_named_kubeconfig_is_used_and_the_cluster_and_identity_are_logged(workstation, caplog, tmp_path):
    api, _ = workstation
    named = kubeconfig(tmp_path / "lab.yaml", api.url, token=jwt({"sub": "system:serviceaccount:ops:npd-test"}))
    cfg = load(env={"GPU_NPD_KUBERNETES__KUBECONFIG": str(named)}, flags={"kmsg": ""})
    with caplog.at_level(logging.INFO, "gpu_npd.kube"):
        core = make_api(cfg.kube, implicit_kubeconfig=False)
    assert core is not None
    line = next(r.getMessage() for r in caplog.records if r.getMessage().startswith("Kubernetes: writing to"))
    assert line == (f"Kubernetes: writing to {api.url} as system:serviceaccount:ops:npd-test "
                    f"(kubeconfig {named}, context 'lab')")


def test_without_a_token_the_kubeconfig_user_is_named(workstation, caplog):
    api, path = workstation
    cfg = load(env={}, flags={"kmsg": ""})
    with caplog.at_level(logging.INFO, "gpu_npd.kube"):
        assert make_api(replace(cfg.kube, kubeconfig=str(path))) is not None
    assert f"writing to {api.url} as user 'alice' (kubeconfig {path}, context 'lab')" in caplog.text


def test_token_subject_reads_only_well_formed_bearer_tokens():
    assert token_subject("Bearer " + jwt({"sub": "system:serviceaccount:gpu-npd:gpu-npd"})) == \
        "system:serviceaccount:gpu-npd:gpu-npd"
    for bad in (None, "", "Basic YWxpY2U6eA==", "Bearer not-a-jwt", "Bearer a.!!!.c", "Bearer " + jwt({"iss": "x"})):
        assert token_subject(bad) is None


def test_the_start_up_line_names_the_kernel_log_and_on_fallback_why_and_the_fix(tmp_path, caplog):
    kern = tmp_path / "kern.log"
    kern.write_text("")
    cfg = load(env={}, flags={"kmsg": str(tmp_path / "no-kmsg"), "journald": False, "state_dir": str(tmp_path),
                              "fallback_log_files": [str(kern)]})
    with caplog.at_level(logging.INFO, "gpu_npd"):
        sources = select_sources(cfg, {}, "boot")
    assert [s.name for s in sources] == ["files"]
    assert (f"kmsg source {tmp_path / 'no-kmsg'} is not readable (ENOENT: No such file or directory; it is not "
            f"mounted; mount the host's /dev/kmsg (hostPath, type CharDevice)); falling back to {kern}") in caplog.text
    kmsg = tmp_path / "kmsg"
    kmsg.write_text("")
    caplog.clear()
    with caplog.at_level(logging.INFO, "gpu_npd"):
        select_sources(replace(cfg, kmsg=str(kmsg)), {}, "boot")
    assert f"kernel log: reading {kmsg}" in caplog.text


def test_config_check_validates_and_names_ignored_service_links(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from gpunpd.cli import main

    monkeypatch.setenv("GPU_NPD_PORT", "tcp://10.96.12.34:9810")
    conf = tmp_path / "c.yaml"
    conf.write_text("mode: enforce\nkubernetes: {max_tainted_fraction: 0.05}\n")
    ok = CliRunner().invoke(main, ["config", "check", "--config", str(conf)])
    assert ok.exit_code == 0 and "mode enforce" in ok.output and "at most 0.05 of the pool" in ok.output
    assert "ignored Kubernetes service-link variables: GPU_NPD_PORT" in ok.output
    conf.write_text("kubernetes: {max_tainted_fraction: 2}\n")
    bad = CliRunner().invoke(main, ["config", "check", "--config", str(conf)])
    assert bad.exit_code == 2
    assert bad.stderr.startswith(f"gpu-npd config check: config file {conf}: kubernetes.max_tainted_fraction")


def test_a_taken_metrics_address_is_named(tmp_path):
    import socket
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        address = "127.0.0.1:%d" % s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "gpunpd", "run", "--kmsg", "", "--no-journald", "--mode", "off",
                            "--state-dir", str(tmp_path), "--metrics-address", address],
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    # one line naming the address and the fix (no errno, no asyncio's repetition of the address)
    assert r.stderr.strip().splitlines()[-1] == (
        f"gpu-npd: cannot start: metrics address {address}: Address already in use (another gpu-npd running? stop "
        "it, or choose another port with --metrics-address)")


def test_run_help_states_the_built_in_defaults_and_exit_codes():
    from click.testing import CliRunner

    from agent.config import load
    from gpunpd.cli import main

    cfg = load(None, env={})
    text = " ".join(CliRunner().invoke(main, ["run", "--help"], terminal_width=1000).output.split())
    for shown in (f"(default: {cfg.kmsg};", f"(default: {cfg.state_dir})", f"(default: {cfg.metrics_address};",
                  f"{cfg.log_level} (default)", f"{cfg.mode} (conditions and Events; the default)"):
        assert shown in text, shown
    # every exit status `gpu-npd run` has (agent/cli.py run's end): 1 since a failing shutdown step exits 1
    assert ("Exit 0 on SIGTERM, Ctrl-C or a stdout closed by its reader (`| head -1`; state flushed), 1 when a step of that shutdown failed (said in the log: an "
            "internal error, the state of what was processed still flushed; or the state or the pod logs' offsets not "
            "written), 2 on a configuration error or when it cannot start") in text


def test_an_unwritable_state_directory_is_retried_with_backoff_and_logged_rarely(tmp_path, caplog, monkeypatch):
    from types import SimpleNamespace

    import agent.checkpoint as cp
    from agent.metrics import Metrics
    from agent.state import StateStore
    from parsers.model import Boot

    blocker = tmp_path / "state"
    blocker.write_text("a file where the state directory should be")  # mkdir fails: NotADirectoryError
    now = [1000.0]
    monkeypatch.setattr(cp.time, "monotonic", lambda: now[0])
    metrics = Metrics()
    check = cp.Checkpoint(StateStore(str(blocker / "sub")), metrics)
    owner = SimpleNamespace(dirty=True, to_state=lambda: {"x": 1})
    boot = Boot("boot-id", 0.0)
    with caplog.at_level(logging.INFO, "gpu_npd"):
        for _ in range(3600):  # an hour of 1 s ticks
            check.maybe_save(owner, boot)
            now[0] += 1.0
    attempts = metrics.registry.get_sample_value("gpu_npd_state_write_errors_total")
    # the clock is the test's: 1, 2, 4 ... 256 s apart (9 tries), then every 300 s from t=1511 to 4511 (11): not 3600
    assert attempts == 20
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    # at most every 10 min: the failures at t=1000, 1811, 2411, 3011, 3611, 4211
    assert len(errors) == 6 and "make the state directory writable" in errors[0].getMessage()
    blocker.unlink()
    blocker.mkdir()
    now[0] += 300
    with caplog.at_level(logging.INFO, "gpu_npd"):
        check.maybe_save(owner, boot)
    assert owner.dirty is False and "state written to" in caplog.records[-1].getMessage()


def test_log_lines_carry_their_time_zone_and_one_timestamp_key(capsys):
    import json as _json
    import re as _re

    from agent.logs import setup

    root = logging.getLogger()
    saved = root.handlers[:], root.level
    log = logging.getLogger("gpu_npd.test")
    try:
        for fmt in ("text", "json"):
            setup("info", fmt)
            log.info("hello")
            line = capsys.readouterr().err.strip().splitlines()[-1]
            stamp = _re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line) if fmt == "text" else \
                _re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", _json.loads(line)["time"])
            assert stamp, line
    finally:  # the handlers setup() installed write to this test's captured stderr: put the old ones back
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


def test_an_unknown_key_names_the_nearest_and_where_every_key_is(tmp_path):
    from click.testing import CliRunner

    from gpunpd.cli import main

    conf = tmp_path / "c.yaml"
    conf.write_text("mdoe: off\n")
    r = CliRunner().invoke(main, ["config", "check", "--config", str(conf)])
    assert r.exit_code == 2
    assert r.stderr == (f"gpu-npd config check: config file {conf}: mdoe: unknown configuration key; did you mean "
                        "'mode'? "
                        "(every key: python -m agent.settings)\n")
    conf.write_text("zzzqqq: 1\n")
    r = CliRunner().invoke(main, ["config", "check", "--config", str(conf)])
    assert r.stderr == (f"gpu-npd config check: config file {conf}: zzzqqq: unknown configuration key (every key: "
                        "python -m agent.settings)\n")


NO_CLUSTER = [  # what --kubeconfig names (nothing, a missing path, a directory, or the file's text); the reason said
    (None, "no in-cluster config, no kubeconfig and no --api-server"),
    ("missing", "kubeconfig {path} does not exist"),
    ("directory", "kubeconfig {path} is a directory, not a kubeconfig file"),
    ("x: [\n", "no in-cluster config and no usable kubeconfig (while parsing a flow node expected the node content"),
    ("[1, 2]\n", "no in-cluster config and no usable kubeconfig ("),
    ("contexts: 7\ncurrent-context: x\n", "no in-cluster config and no usable kubeconfig ("),
]
NEED_A_CLUSTER = [["cluster", "--metrics-address", ""], ["cleanup"], ["fabric-check", "--floor", "1"]]


def _no_cluster(tmp_path, command, kubeconfig, why) -> tuple[dict, list, str]:
    """For one row of NO_CLUSTER: the environment (no in-cluster config, no default kubeconfig), the command's
    arguments and the start of the one line it must say."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_")}
    env.update(KUBECONFIG=str(tmp_path / "none"), HOME=str(tmp_path))
    path = tmp_path / "kubeconfig"
    if kubeconfig == "directory":
        path.mkdir()
    elif kubeconfig not in (None, "missing"):
        path.write_text(kubeconfig)
    named = [] if kubeconfig is None else ["--kubeconfig", str(path)]
    prefix = "gpu-npd fabric-check" if command[0] == "fabric-check" else f"gpu-npd {command[0]}"
    return env, [*command, *named], f"{prefix}: no cluster: {why.format(path=path)}"


@pytest.mark.parametrize("kubeconfig, why", NO_CLUSTER)
@pytest.mark.parametrize("command", NEED_A_CLUSTER)
def test_a_command_that_needs_a_cluster_says_why_there_is_none_in_one_line_exit_2(tmp_path, monkeypatch, caplog,
                                                                                    command, kubeconfig, why):
    """No cluster, a kubeconfig named but missing, or one that is not YAML / not a kubeconfig: the command's own
    line says why, nothing else is printed or logged (no traceback, no agent's "local mode" line), exit 2 (exit 1 is
    the cluster component's lost Lease).  Every row in process; two rows per command as a real process below."""
    from click.testing import CliRunner

    from gpunpd.cli import main

    env, args, said = _no_cluster(tmp_path, command, kubeconfig, why)
    for name in [k for k in os.environ if k not in env]:
        monkeypatch.delenv(name)
    for name in ("KUBECONFIG", "HOME"):
        monkeypatch.setenv(name, env[name])
    caplog.set_level(logging.INFO)
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 2, (r.stderr, r.exception)
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(said), line
    assert not r.stdout and [x.getMessage() for x in caplog.records] == []


@pytest.mark.parametrize("kubeconfig, why", [NO_CLUSTER[0], NO_CLUSTER[3]])
@pytest.mark.parametrize("command", NEED_A_CLUSTER)
def test_a_command_that_needs_a_cluster_says_why_there_is_none_in_one_line_exit_2_as_a_process(tmp_path, command,
                                                                                               kubeconfig, why):
    """The same, as `python -m gpunpd` runs: with the logging the command configures itself, so a log line or a
    traceback would be on its stderr."""
    import subprocess
    import sys

    env, args, said = _no_cluster(tmp_path, command, kubeconfig, why)
    r = subprocess.run([sys.executable, "-m", "gpunpd", *args], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 2, r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(said), line
