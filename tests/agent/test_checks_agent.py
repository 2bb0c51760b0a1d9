"""Active checks in the running agent: a real `gpu-npd run` process runs NPD's own plugin config (and a plain
script in the same protocol) on its schedule; results reach the health engine (permanent -> condition,
temporary -> an Event-only problem) and the check metrics."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import yaml

from harness import AgentProc, wait_until

NPD = Path(__file__).parents[1] / "fixtures" / "npd"
NPD_CONFIG = NPD / "config" / "custom-plugin-monitor.json"


def _exe(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _agent(tmp: Path, checks: dict, env: dict | None = None) -> AgentProc:
    conf = tmp / "config.yaml"
    # no NVML, no pod logs, no udev: only the checks speak
    conf.write_text(yaml.safe_dump({"checks": checks, "nvml": "off", "pod_logs_root": "", "udev": False,
                                    "sysfs_root": str(tmp / "nosys")}))
    return AgentProc(tmp, "--config", str(conf), env=env)


def test_npd_plugin_config_runs_unchanged_in_the_agent(tmp_path):
    """NPD's config/custom-plugin-monitor.json and check_ntp.sh as they are; systemctl is a synthetic
    stand-in that says the service is down (exit 3)."""
    fakebin = tmp_path / "bin"
    fakebin.mkdir()
    _exe(fakebin / "systemctl", "exit 3\n")
    a = _agent(tmp_path, {"enabled": True, "plugin_configs": [str(NPD_CONFIG)], "plugin_base_dir": str(NPD)},
               env={"PATH": f"{fakebin}{os.pathsep}{os.environ['PATH']}"})
    try:
        a.wait_for(lambda: a.value("gpu_npd_node_condition", condition="NTPProblem", reason="NTPIsDown") == 1.0,
                   what="NTPProblem condition")
        assert a.value("gpu_npd_check_runs_total", check="ntp-custom-plugin-monitor", result="NonOK") == 2.0
        assert a.value("gpu_npd_check_duration_seconds", check="ntp-custom-plugin-monitor") > 0
        assert a.value("gpu_npd_check_last_run_timestamp_seconds", check="ntp-custom-plugin-monitor") > 0
        events = wait_until(lambda: [e for e in a.events() if e.get("reason") == "NTPIsDown"], "check events")
        # the permanent rule: the condition; the temporary rule: a problem with no condition (an Event only)
        assert {e["condition"] for e in events if e["event"] == "problem"} == {"", "NTPProblem"}
        cond = [e for e in a.events() if e["event"] == "condition" and e["condition"] == "NTPProblem"]
        assert cond[-1]["status"] == "True" and "ntp.service is not running" in cond[-1]["message"]
    finally:
        code, _ = a.stop()
    assert code == 0


def test_a_script_check_raises_and_clears_its_condition_on_schedule(tmp_path):
    """A plain script in NPD's protocol, every second: NonOK raises the condition, OK clears it."""
    flag = tmp_path / "broken"
    flag.write_text("1")
    script = _exe(tmp_path / "check_flag.sh", f'if [ -e {flag} ]; then echo "flag is set"; exit 1; fi\necho fine\n')
    plugin = tmp_path / "flag-monitor.json"
    plugin.write_text(json.dumps({
        "plugin": "custom", "source": "flag-monitor",
        "pluginConfig": {"invoke_interval": "1s", "timeout": "2s", "max_output_length": 80, "concurrency": 1},
        "conditions": [{"type": "FlagProblem", "reason": "FlagIsClear", "message": "no flag"}],
        "rules": [{"type": "permanent", "condition": "FlagProblem", "reason": "FlagIsSet", "path": str(script)}]}))
    a = _agent(tmp_path, {"enabled": True, "plugin_configs": [str(plugin)]})
    try:
        a.wait_for(lambda: a.value("gpu_npd_node_condition", condition="FlagProblem", reason="FlagIsSet") == 1.0,
                   what="FlagProblem raised")
        flag.unlink()
        a.wait_for(lambda: a.value("gpu_npd_node_condition", condition="FlagProblem", reason="FlagIsClear") == 0.0,
                   what="FlagProblem cleared")
        assert a.value("gpu_npd_check_runs_total", check="flag-monitor", result="NonOK") >= 1
        assert a.value("gpu_npd_check_runs_total", check="flag-monitor", result="OK") >= 1
    finally:
        a.stop()


def test_no_checks_run_unless_configured(tmp_path):
    a = _agent(tmp_path, {"enabled": False, "plugin_configs": [str(NPD_CONFIG)], "plugin_base_dir": str(NPD)})
    try:
        assert "gpu_npd_check_runs_total{" not in a.metrics()
    finally:
        a.stop()


def test_a_plugin_whose_grandchild_escapes_wedges_nothing(tmp_path):
    """Issue 31: a plugin whose grandchild calls setsid and keeps stdout open hung the runner closing the pipe:
    no check ran again (an unrelated /bin/true one included) and SIGTERM did not stop the agent. Now the runner
    stops reading at the deadline, kills whoever holds the pipe, and says so; the other check runs on."""
    pidfile = tmp_path / "escaped.pid"
    escape = _exe(tmp_path / "escape.sh", f"setsid sh -c 'echo $$ > {pidfile}; exec sleep 300' &\necho started\nexit 0\n")
    plugin = tmp_path / "escape-monitor.json"
    plugin.write_text(json.dumps({
        "plugin": "custom", "source": "escape-monitor",
        "pluginConfig": {"invoke_interval": "1s", "timeout": "2s", "max_output_length": 200, "concurrency": 1},
        "conditions": [{"type": "EscapeProblem", "reason": "Fine", "message": "fine"},
                       {"type": "TrueProblem", "reason": "Fine", "message": "fine"}],
        "rules": [{"type": "permanent", "condition": "EscapeProblem", "reason": "Escaped", "path": str(escape)},
                  {"type": "permanent", "condition": "TrueProblem", "reason": "NotTrue", "path": "/bin/true"}]}))
    a = _agent(tmp_path, {"enabled": True, "plugin_configs": [str(plugin)]})
    try:
        a.wait_for(lambda: (a.value("gpu_npd_check_runs_total", check="escape-monitor", result="OK") or 0) >= 3,
                   timeout=30, what="three runs of the config (the /bin/true rule among them)")
        assert a.value("gpu_npd_check_runs_total", check="escape-monitor", result="Unknown") >= 3
        pid = int(pidfile.read_text())
        wait_until(lambda: not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z",
                   "the escaped grandchild killed")
        events = [e for e in a.events() if e.get("event") == "condition" and e.get("condition") == "EscapeProblem"]
        assert any("left 1 process(es) holding its output" in e["message"] for e in events)
    finally:
        code, took = a.stop()
    assert code == 0 and took < 5
