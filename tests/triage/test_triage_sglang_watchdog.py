"""Triage of an SGLang server whose scheduler watchdog fired (h150): REAL lines are copied verbatim from the thread
beside them; the SYNTHETIC job is a composition of real lines (each from the source named)."""

from __future__ import annotations

from pathlib import Path

from triage import Clock, attribute, read_lines

# REAL: sgl-project/sglang #3752, every rank of a TP8 server
WATCHDOG_3752 = [f"[2025-03-09 00:57:1{5 if r not in (0, 3) else 6} TP{r}] Watchdog timeout (self.watchdog_timeout=300)"
                 for r in (4, 6, 1, 2, 5, 7, 3, 0)]


def test_triage_of_every_rank_hung_names_no_culprit():
    """Was: no incident (nothing read); now the hang, every rank a consequence and none singled out."""
    (incident,) = attribute(read_lines(WATCHDOG_3752, "server.log", Clock()))
    assert (incident.category, incident.rule, incident.root.rank) == ("undetermined", "undetermined", None)
    assert "8 ranks (0,1,2,3,4,5,6,7) timed out" in incident.consequences


def test_triage_names_the_rank_that_failed_before_the_others_hung():
    """SYNTHETIC: sgl-project/sglang #3713's TP0 illegal memory access (tests/fixtures/incidents/sglang-3713-tp0-
    illegal-access, REAL), then #3752's watchdog lines of the seven other ranks (REAL): rank 0 is the root, the
    others' timeouts its consequences."""
    log = Path(__file__).parents[1] / "fixtures/incidents/sglang-3713-tp0-illegal-access/logs/server.log"
    lines = log.read_text().splitlines() + [line for line in WATCHDOG_3752 if " TP0]" not in line]
    (incident,) = attribute(read_lines(lines, "server.log", Clock()))
    assert (incident.category, incident.root.rank, incident.root.kind) == ("application", 0, "cuda_error")
    assert "7 ranks (1,2,3,4,5,6,7) timed out" in incident.consequences
