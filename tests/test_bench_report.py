"""bench/report.py's TARGETS, the Benchmarks page's "target" column: each target declared once."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _report():
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "bench" / "report.py")
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    return report


def test_the_footprint_target_is_typed_once_and_shown_for_both_benches_that_run_it():
    """The agent bench runs the footprint too: its target's footprint part is the footprint bench's, one string (was
    typed twice, so a changed limit could leave one of the two behind)."""
    report = _report()
    source = (ROOT / "bench" / "report.py").read_text(encoding="utf-8")
    assert len(re.findall(r"RSS <= \d+ MiB", source)) == 1
    assert report.TARGETS["footprint"] == report.FOOTPRINT
    assert report.TARGETS["agent"].startswith(f"footprint: {report.FOOTPRINT};")
