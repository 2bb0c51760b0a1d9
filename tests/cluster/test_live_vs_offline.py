"""bench/live_vs_offline.py's core on a few real incidents: a row per incident, each with both verdicts (no accuracy
threshold here: the script prints the score; docs/cluster.md says what it means)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("live_vs_offline", ROOT / "bench" / "live_vs_offline.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_a_row_per_incident_with_both_verdicts():
    bench = _bench()
    names = ["kohya-1434-ecc", "sulao-1165-xid94-nvswitch", "aware-2-sigkill"]
    rows = bench.rows(names)
    assert [r.name for r in rows] == sorted(names)
    for r in rows:
        assert r.offline and r.live and isinstance(r.live_ok, bool) and isinstance(r.offline_ok, bool)
        assert r.live_ok or r.why  # a miss says why
    # the kernel's lines went to the node's log, the job's to its pods
    sp = bench.split(bench.INCIDENTS / "sulao-1165-xid94-nvswitch")
    assert sp.kernel and not any(sp.pods.values())
