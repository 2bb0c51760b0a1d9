"""bench/podlogs.py --follow against a baseline checkout whose PodLogSource has no `turn` (every release before it):
that tree is said not compared and this tree's figures are printed.  Before, the whole bench stopped on it ("the reader
of ... failed"), and bench/report.py's podlogs_follow against an older ref gave no figure at all."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_baseline_without_turn_is_said_and_this_trees_figures_printed(tmp_path, capsys):
    base = tmp_path / "base"
    (base / "agent" / "sources").mkdir(parents=True)
    (base / "agent" / "__init__.py").write_text("")
    (base / "agent" / "sources" / "__init__.py").write_text("")
    # an earlier checkout's source: the loop's body inside `run`, no `turn`
    (base / "agent" / "sources" / "podlogs.py").write_text(
        "class PodLogSource:\n    def __init__(self, *args, **kwargs):\n        pass\n")
    (base / "agent" / "state.py").write_text("class StateStore:\n    def __init__(self, *args):\n        pass\n")
    spec = importlib.util.spec_from_file_location("bench_podlogs", ROOT / "bench" / "podlogs.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.fixed(400, 1, str(base), follow=25)
    out = capsys.readouterr().out
    assert "baseline: not compared, its PodLogSource has no turn" in out
    assert "this tree" in out and "us per line" in out
