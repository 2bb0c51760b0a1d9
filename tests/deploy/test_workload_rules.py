"""deploy/monitoring/workload-rules.yaml (issue 27): step time against the job's median, hang suspicions; the real
promtool checks and unit-tests them, and the metrics they read are the agent's own."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

MON = Path(__file__).resolve().parents[2] / "deploy" / "monitoring"
PROMTOOL = shutil.which("promtool")


@pytest.mark.skipif(PROMTOOL is None and not os.environ.get("CI"), reason="promtool not installed")
def test_workload_rules_pass_promtool_check_and_unit_tests(tmp_path):
    assert PROMTOOL
    rule = yaml.safe_load((MON / "workload-rules.yaml").read_text())
    (tmp_path / "workload-rules.rules.yaml").write_text(yaml.safe_dump(rule["spec"]))
    shutil.copy(MON / "workload-rules-test.yaml", tmp_path)
    check = subprocess.run([PROMTOOL, "check", "rules", "workload-rules.rules.yaml"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    r = subprocess.run([PROMTOOL, "test", "rules", "workload-rules-test.yaml"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and "SUCCESS" in r.stdout, r.stdout + r.stderr
    tested = {t["alertname"] for case in yaml.safe_load((MON / "workload-rules-test.yaml").read_text())["tests"]
              for t in case.get("alert_rule_test", [])}
    assert tested == {r["alert"] for g in rule["spec"]["groups"] for r in g["rules"] if "alert" in r}


def test_the_rules_read_metrics_the_agent_exports():
    from agent.metrics import Metrics

    names = {m.name for m in Metrics().registry.collect()}
    assert {"gpu_npd_workload_step_seconds", "gpu_npd_workload_hang_suspected"} <= names
    text = (MON / "workload-rules.yaml").read_text()
    assert "gpu_npd_workload_step_seconds" in text and "gpu_npd_workload_hang_suspected" in text


def test_the_straggler_alerts_ratio_is_the_parsers():
    """GPUStragglerSuspected's step-time ratio and Megatron-LM's round-trip ratio a straggler_report takes
    (parsers/rules.py STRAGGLER_RTT_RATIO, declared as this alert's) are one number: changing one alone fails here."""
    import re

    from parsers.rules import STRAGGLER_RTT_RATIO

    rule = yaml.safe_load((MON / "workload-rules.yaml").read_text())
    (expr,) = [r["expr"] for g in rule["spec"]["groups"] for r in g["rules"]
               if r.get("alert") == "GPUStragglerSuspected"]
    assert float(re.search(r"ratio_to_job_median > ([\d.]+)", expr).group(1)) == STRAGGLER_RTT_RATIO
