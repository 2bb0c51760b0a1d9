"""A training framework's own straggler report read as the job's finding (kind straggler_report): the slow ranks it
names and, where it says, their nodes, for the Pod Event and the incident; healthy reports silent. The real lines
are tests/fixtures/realworld/jobs-stragglers-2026.yaml's (test_realworld); the lines built here are labelled with the
source they are built from."""

from __future__ import annotations

import dataclasses

from parsers import explain, parse_line
from parsers.rules import STRAGGLER_RTT_RATIO
from triage.attribute import named
from triage.model import Evidence

# Megatron-Bridge's documentation's verdict, verbatim (docs/training/resiliency.md at 122cc5e3)
DOC_RELATIVE = "STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: [76, 13, 45]"
# Megatron-LM's StragglerDetector line, verbatim (megatron/core/README_STRAGGLER.md at 358e5f07), cut after its Rtt pair
MEGATRON = (" 0: INFO:megatron.core.utils:[2024-03-14 23:07:56] | MnRtt/Rnk: 3453.08ms/8 | MxRtt/Rnk: 3468.20ms/0 | "
            "MnPwr/Rnk: 601796W/8 | MxPwr/Rnk: 683801W/18")


@dataclasses.dataclass(frozen=True)
class StragglerId:
    """nvidia_resiliency_ext.straggler.reporting.StragglerId as its source declares it (a frozen dataclass: its repr
    is what NeMo's StragglerDetectionCallback._print_stragglers and Megatron-Bridge's NVRxStragglerDetectionManager
    print inside the set of `identify_stragglers`)."""
    rank: int
    node: str


def _nvrx_line(measure: str, stragglers: set) -> str:
    """CONSTRUCTED from NeMo's nemo/lightning/pytorch/callbacks (StragglerDetectionCallback._print_stragglers):
    f"STRAGGLER DETECTION WARNING: Some GPUs have worse relative performance. Affected ranks: {rel_stragglers}" and
    its "Some GPUs performance dropped." sibling; NeMo's own test of it reads the ranks as "StragglerId(rank=N,"."""
    return f"STRAGGLER DETECTION WARNING: Some GPUs {measure}. Affected ranks: {stragglers}"


def test_the_verdict_names_each_straggler_and_its_node():
    line = _nvrx_line("have worse relative performance",
                      {StragglerId(76, "h100-001-253-012"), StragglerId(13, "h100-001-010-003")})
    f = parse_line(line)
    assert (f.kind, f.severity, f.attribution) == ("straggler_report", "warning", "unknown")
    assert f.details["straggler_ranks"] == "13,76"
    assert f.details["nodes"] == "h100-001-010-003,h100-001-253-012"
    assert f.details["measure"] == "relative"
    assert f.rank is None  # the rank that printed it is not the straggler
    said = explain(f, None)  # the Pod Event's sentence names them
    assert said.startswith("straggler reported by the job: rank 13 on node h100-001-010-003, rank 76 on node "
                           "h100-001-253-012 (relative performance)")


def test_the_individual_verdict_and_the_ranks_alone():
    f = parse_line(_nvrx_line("performance dropped", {StragglerId(3, "node-b")}))
    assert (f.kind, f.details["measure"], f.details["stragglers"]) == (
        "straggler_report", "individual", "rank 3 on node node-b (individual performance)")
    f = parse_line(DOC_RELATIVE)  # the documentation's form: ranks, no node
    assert (f.details["straggler_ranks"], "nodes" in f.details) == ("13,45,76", False)


def test_a_long_set_is_named_in_part_and_kept_whole():
    f = parse_line(_nvrx_line("have worse relative performance", {StragglerId(r, f"n{r}") for r in range(20)}))
    assert f.details["straggler_ranks"] == ",".join(map(str, range(20)))
    assert f.details["stragglers"].endswith("rank 7 on node n7 and 12 more (relative performance)")


def test_a_line_cut_inside_a_node_name_reads_no_rank_from_it():
    """A Pod Event quotes the line cut to its length (agent/workloads.py EXCERPT); the cluster reads the excerpt
    again: the digits of a cut node's name are no rank."""
    line = _nvrx_line("have worse relative performance", {StragglerId(76, "h100-001-253-012")})
    f = parse_line(line[:line.index("253")])
    assert (f.details["straggler_ranks"], "nodes" in f.details) == ("76", False)
    cut = parse_line(line[:line.index("Str")])  # cut before its first rank: the report, no ranks
    assert (cut.kind, "straggler_ranks" in cut.details, "stragglers" in cut.details) == ("straggler_report", False,
                                                                                          False)


def test_megatron_names_its_slowest_rank_only_when_far_behind_its_fastest():
    healthy = parse_line(MEGATRON)  # 1.004 times: jitter, an info record (no Pod Event)
    assert (healthy.kind, healthy.severity) == ("straggler_report", "info")
    # CONSTRUCTED from the README line above (megatron/core/utils.py StragglerDetector.report's format): rank 5's
    # round trip STRAGGLER_RTT_RATIO times rank 8's and more
    slow = MEGATRON.replace("3468.20ms/0", f"{3453.08 * STRAGGLER_RTT_RATIO + 1:.2f}ms/5")
    f = parse_line(slow)
    assert (f.kind, f.severity, f.details["straggler_ranks"]) == ("straggler_report", "warning", "5")
    assert f.details["stragglers"] == "rank 5 (1.25 times the round-trip time of rank 8)"
    just_below = MEGATRON.replace("3468.20ms/0", f"{3453.08 * STRAGGLER_RTT_RATIO - 1:.2f}ms/5")
    assert parse_line(just_below).severity == "info"


def test_a_fastest_round_trip_printed_as_zero_still_names_the_straggler():
    """Was: a fastest time printed "0.00ms" gave no ratio, an info record, whatever the slowest rank's time.
    Megatron-LM's report() divides by each rank's time before it prints (megatron/core/utils.py StragglerDetector.report: "api_flops
    / (ptime * 10**9 * self.world)"), so "0.00" is a positive time under 0.005 ms ("{value:.2f}"): the slowest rank
    thousands of times behind it is the straggler; two times that round to 0.00 (or 0.00 and 0.01) are none.  Lines
    CONSTRUCTED from the README line above (report()'s format, its f"MnRtt/Rnk: {o_dt.min_elapsed} | ..")."""
    f = parse_line(MEGATRON.replace("3453.08ms/8", "0.00ms/8"))
    assert (f.kind, f.severity, f.details["straggler_ranks"]) == ("straggler_report", "warning", "0")
    for fastest, slowest in (("0.00", "0.00"), ("0.00", "0.01")):
        line = MEGATRON.replace("3453.08ms/8", f"{fastest}ms/8").replace("3468.20ms/0", f"{slowest}ms/0")
        assert parse_line(line).severity == "info", line


def test_the_incident_names_the_stragglers():
    f = parse_line(_nvrx_line("have worse relative performance", {StragglerId(76, "h100-001-253-012")}))
    e = Evidence("straggler_report", severity=f.severity, details=f.details)
    # the Pod Event's words (explain, above): one template, parsers/kinds.py straggler_report's `named` (was: the
    # incident's "straggler reported (rank 76 on node .. (relative performance))", the Event's own words beside it)
    assert named(e) == "straggler reported by the job: rank 76 on node h100-001-253-012 (relative performance)"
    assert explain(f, None).startswith(named(e) + ":")
    assert named(Evidence("straggler_report", severity="warning")) == "straggler reported by the job: ranks not named"


def test_score_tables_are_no_verdict():
    for line in ("  Rank=76 Node=h100-001-253-012 Score=0.94", "  Rank=0 Node=22ca9bdcfc9a Score=0.35",
                 "megatron.bridge.NVRxStragglerDetection: GPU relative performance:"):
        assert parse_line(line) is None


def test_a_straggler_report_alone_is_no_failure_of_the_job():
    """A warning, never a job's root: triage opens no incident on it alone (the kind has no category)."""
    from datetime import datetime, timezone

    from triage import attribute

    f = parse_line(DOC_RELATIVE)
    e = Evidence(f.kind, f.severity, f.attribution, datetime(2026, 1, 1, tzinfo=timezone.utc), "node-a", rank=0,
                 details=f.details)
    assert attribute([e]) == []
