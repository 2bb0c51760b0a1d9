"""bench/parse.py times `gpu-npd parse` with every engine the prefilter has, `re` (the fallback where neither
hyperscan's nor RE2's wheel installs) included: the committed parse bench had hyperscan and RE2 rows only, so a claim
of RE2 against `re` on the mixes rested on a commit message."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_parse_bench_has_a_row_for_each_engine_re_included(tmp_path, monkeypatch, capsys):
    from parsers.prefilter import ENGINES

    # bench/parse.py puts bench/ first on sys.path when loaded (for bench/checkout.py), where bench/agent.py would
    # shadow the agent package for every test after this one: sys.path is given back at the end
    monkeypatch.setattr(sys, "path", list(sys.path))
    spec = importlib.util.spec_from_file_location("bench_parse", ROOT / "bench" / "parse.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    log = tmp_path / "default-300.log"
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_log.py"), str(log), "--lines", "300"], check=True)
    monkeypatch.setattr(bench, "startup", lambda *args: None)  # the start-up rows: no engine's
    monkeypatch.setattr(bench, "compiled", str)
    monkeypatch.setattr(bench, "log_for", lambda mix, lines: log)
    monkeypatch.setattr(sys, "argv", ["parse.py", "--lines", "300", "--runs", "1", "--mix", "default"])
    bench.main()
    out = capsys.readouterr().out
    assert "gpu-npd (re) " in out, out
    for engine in ENGINES:
        assert f"gpu-npd ({engine}) " in out or f"({engine} is not installed here: not timed)" in out, engine


def test_instructions_with_branches_reads_callgrinds_mispredicts_and_fixes_the_hash_seed(tmp_path, monkeypatch):
    """`--instructions N --branches`: callgrind's branch simulation's totals (Ir Bc Bcm Bi Bim), the conditional and
    indirect mispredicts summed a line beside the instructions, under PYTHONHASHSEED=0 (its counts move with set and
    dict orders); without it, the instructions alone as before.  valgrind's summary line as callgrind 3.x prints it."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    spec = importlib.util.spec_from_file_location("bench_parse", ROOT / "bench" / "parse.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    log = tmp_path / "some.log"
    log.write_text("a\nb\n")
    calls = []

    def run(cmd, **kwargs):
        calls.append((cmd, kwargs.get("env")))
        summary = "==7== Collected : 4000 900 30 200 50" if "--branch-sim=yes" in cmd else "==7== Collected : 4000"
        return subprocess.CompletedProcess(cmd, 0, "", summary + "\n")

    monkeypatch.setattr(bench.shutil, "which", lambda name: "/usr/bin/valgrind")
    monkeypatch.setattr(bench.subprocess, "run", run)
    assert bench.instructions("tree", log, 2) == (2000, None)
    assert bench.instructions("tree", log, 2, branches=True) == (2000, 40)
    assert calls[0][1] is None and calls[1][1]["PYTHONHASHSEED"] == "0"
    assert "--branch-sim=yes" not in calls[0][0] and "--branch-sim=yes" in calls[1][0]
