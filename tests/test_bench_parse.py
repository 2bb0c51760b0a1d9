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
