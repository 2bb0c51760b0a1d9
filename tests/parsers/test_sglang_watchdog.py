"""SGLang's scheduler watchdog (h150): a TP rank's forward pass frozen for watchdog_timeout seconds, the server then
SIGQUIT; every rank prints its own line.  REAL lines are copied verbatim from the thread beside them
(tests/fixtures/realworld/workload-serving-2026c.yaml holds them with their sources); CONSTRUCTED lines are built from
the source named and say so."""

from __future__ import annotations

import pytest

from parsers import parse_line


@pytest.mark.parametrize("line,rank", [
    # REAL: sgl-project/sglang #3752 (0.4.x, TP8: each rank's scheduler, its TP index the rank)
    ("[2025-03-09 00:57:15 TP4] Watchdog timeout (self.watchdog_timeout=300)", 4),
    # REAL: sgl-project/sglang #7553 (DP attention: "DP4 TP4" names no rank, parsers/workers.py)
    ("[2025-06-26 07:25:31 DP4 TP4] Watchdog timeout (self.watchdog_timeout=300)", None),
    # CONSTRUCTED from sglang python/sglang/srt/utils/watchdog.py (ProcessWatchdog: f"{self.debug_name} watchdog
    # timeout ({self.watchdog_timeout=}, {self.soft=})", the scheduler's debug_name "Scheduler") under its TP tag
    ("[2026-01-01 09:41:04 TP1] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=False)", 1),
])
def test_the_watchdogs_timeout_is_the_ranks_hang(line, rank):
    """Was: nothing; a hung forward pass whose first failing rank is the root (a consequence, as PyTorch's watchdog
    timeout is), with the rank its tag names."""
    f = parse_line(line)
    assert (f.kind, f.action, f.rank) == ("nccl_timeout", "FIND_FIRST_FAILING_RANK", rank)
    assert f.details["timeout_s"] == 300


@pytest.mark.parametrize("line", [
    # CONSTRUCTED from the same source: the soft watchdog only logs, the server goes on
    "[2026-01-01 09:41:04 TP1] Scheduler watchdog timeout (self.watchdog_timeout=300, self.soft=True)",
    # REAL: sgl-project/sglang #3752, #7553: the parent's SIGQUIT handler, the py-spy dump that could not run
    "[2025-03-09 00:57:20] Received sigquit from a child proces. It usually means the child failed.",
    "[2025-06-26 07:25:31 DP4 TP4] Pyspy failed to dump PID 113688. Error: /bin/bash: line 1: py-spy: command not found",
])
def test_the_lines_around_it_are_no_finding(line):
    assert parse_line(line) is None
