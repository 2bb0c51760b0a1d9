"""The classification engine (issue 11): table-derived dispatch and the repeat memo give exactly the
findings of trying every row in order, one line at a time."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parsers import Classifier
from parsers.classify import MEMO_MAX_KEY, Dispatch
from parsers.rules import RULES

KEYWORDS = sorted({k for r in RULES for k in r.keywords})
# pieces the rules' regexes look for, so generated lines often really match a row
PIECES = ["NVRM: Xid (PCI:0000:5d:00): 79, pid=1234, name=python, GPU has fallen off the bus.",
          "NVRM: GPU at PCI:0000:5d:00: GPU-12345678-1234-1234-1234-123456789abc",
          "nvidia-nvswitch3: SXid (PCI:0000:07:00.0): 20034, Fatal, Link 30 LTSSM Fault Up",
          "mlx5_core 0000:b5:00.0 ib0: Link down", "mlx5_core 0000:b5:00.0: health compromised",
          "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, "
          "Timeout(ms)=600000)", "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB", "CUDA error: out of memory",
          "NET/IB : Got completion from peer 10.0.0.2<4321> with error 12, opcode 0, len 0, vendor err 129",
          "task python:4242 blocked for more than 120 seconds", " link 3 ", " error ", " ", "(GPU 2)"]
line = st.lists(st.one_of(st.sampled_from(KEYWORDS), st.sampled_from(PIECES), st.text(max_size=8)),
                max_size=6).map("".join)


def ordered(message: str):
    """The reference: every row whose keyword occurs, in table order, first match wins."""
    for rule in RULES:
        if any(k in message for k in rule.keywords) and rule.pattern.search(message):
            return rule
    return None


@settings(max_examples=800, deadline=None)
@given(line)
def test_dispatch_tries_exactly_the_rows_whose_keyword_occurs(message):
    d = Dispatch(RULES)
    first = next((r for r in d.candidates(message) if r.pattern.search(message)), None)
    assert first is ordered(message)


@settings(max_examples=500, deadline=None)
@given(st.lists(line, min_size=1, max_size=12))
def test_first_with_its_last_row_tried_first_is_the_ordered_first_match(messages):
    """Dispatch.first tries the row that matched last before scanning: whatever came before, each message gets
    the row (and the match) trying every candidate in table order gives."""
    d = Dispatch(RULES)
    for message in messages * 2:
        hit = d.first(message)
        want = ordered(message)
        assert (hit[0] if hit else None) is want
        if hit:
            assert hit[1].span() == want.pattern.search(message).span()


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(line, st.none() | st.frozensets(st.integers(0, len(RULES) - 1))), min_size=1, max_size=12))
def test_first_among_allowed_rows_is_the_first_candidate_that_matches(steps):
    """With an engine's allowed rows too: the row tried first stands only where scanning the candidates in
    order would give it."""
    d, ref = Dispatch(RULES), Dispatch(RULES)
    for message, allowed in steps * 2:
        hit = d.first(message, allowed)
        want = next((r for r in ref.candidates(message, allowed) if r.pattern.search(message)), None)
        assert (hit[0] if hit else None) is want


def test_first_does_not_take_its_last_row_when_an_earlier_row_may_match():
    d = Dispatch(RULES)
    xid = "NVRM: Xid (PCI:0000:5d:00): 31, pid=1, name=p, Ch 00000008, MMU Fault"
    assert d.first(xid)[0].name == "xid"
    both = "NCCL INFO " + xid  # the Xid row matches it too, but the NCCL INFO look-alike comes first in the table
    assert d.first(both)[0].name == "nccl_info"
    assert d.first(xid)[0].name == "xid"


def test_a_flood_of_sxid_lines_is_read_by_the_row_tried_first_without_a_keyword_scan():
    """An earlier row sharing the row's keyword (sxid_continuation before sxid, both "SXid") is a candidate before it,
    tried first too: a flood of SXid lines with new numbers never scans for every keyword, and a continuation line still
    gets the earlier row. (The Xid rows were the example until the Xid row became one, its event chosen by its code.)
    Lines: sulao.cn post 1165 (tests/fixtures/incidents/sulao-1165-xid94-nvswitch), the link number varied."""
    d = Dispatch(RULES)
    scans = []
    tries = d._tries  # the keyword scan's candidates with their gates (Dispatch.candidates is their rows)
    d._tries = lambda message, allowed=None: scans.append(message) or tries(message, allowed)
    sxid = "nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 12028, Non-fatal, Link {} egress non-posted PRIV error (First)"
    assert d.first(sxid.format(0))[0].name == "sxid" and len(scans) == 1
    for link in range(1, 20):
        assert d.first(sxid.format(link))[0].name == "sxid"
    continuation = "nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 12028, Severity 0 Engine instance 62 Sub-engine instance 00"
    assert d.first(continuation)[0] is ordered(continuation)
    assert d.first(continuation)[0].name == "sxid_continuation"
    assert len(scans) == 1
    for link in range(21, 30):  # the row that matched last is sxid_continuation now, sxid's plan still a recent one
        assert d.first(sxid.format(link))[0].name == "sxid"  # (classify.RECENT: was one scan, then sxid's again)
    assert len(scans) == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(line, min_size=1, max_size=20), st.integers(min_value=1, max_value=4))
def test_memo_gives_the_findings_of_a_classifier_without_one(lines, size):
    """Same lines through a classifier with a tiny memo (constant evictions), a default one, and one whose
    memo is bypassed (fresh template every line): identical findings, context (PCI, UUID) included."""
    small, big, ref = Classifier(memo_size=size), Classifier(), Classifier()
    for n, text in enumerate(lines * 2, start=1):
        ref.memo.clear()
        want = ref.classify(text, lineno=n)
        assert small.classify(text, lineno=n) == want == big.classify(text, lineno=n)


def test_a_storm_line_classifies_once_and_memory_is_bounded():
    c = Classifier(memo_size=100)
    storm = "[ 100.0] NVRM: Xid (PCI:0000:5d:00): 95, pid=1, name=python, Uncontained"
    findings = [c.classify(storm) for _ in range(1000)]
    assert all(f is not None and f.xid == 95 for f in findings)
    assert c.memo_stats()["hits"] == 999 and c.memo_stats()["entries"] == 1
    findings[0].details["gpu_index"] = 3  # callers annotate findings: the memo's template is untouched
    assert "gpu_index" not in c.classify(storm).details
    for i in range(500):
        c.classify(f"mlx5_core 0000:b5:00.0: firmware version: 28.{i}.1000")
    stats = c.memo_stats()
    # a full memo drops its oldest quarter at once: never more than memo_size entries, every one accounted for
    assert 75 <= stats["entries"] <= 100 and stats["entries"] + stats["evictions"] == 501
    c.classify("NVRM: Xid (PCI:0000:5d:00): 79, " + "x" * MEMO_MAX_KEY)
    assert c.memo_stats()["entries"] == stats["entries"]  # an over-long message is classified, never remembered


cause = st.builds(lambda t, sev, n: __import__("parsers").Cause(float(t), f"cause {n}", sev),
                  st.integers(0, 2000), st.sampled_from(["warning", "error", "fatal"]), st.integers(0, 3))


@settings(max_examples=500, deadline=None)
@given(st.lists(cause, max_size=30), st.integers(0, 2500), st.sampled_from([0.0, 60.0, 600.0]))
def test_cause_index_picks_what_a_linear_scan_picks(causes, t, window):
    from parsers.correlate import SKEW, CauseIndex
    from parsers.finding import SEVERITY_RANK

    best = None
    for c in causes:  # the reference: most severe, then latest, first given on ties
        if t - window <= c.time <= t + SKEW:
            if best is None or (SEVERITY_RANK[c.severity], c.time) > (SEVERITY_RANK[best.severity], best.time):
                best = c
    assert CauseIndex(causes).best(t, window) is best



def test_equal_tables_share_derived_dispatch_data_but_each_knows_its_own_rows():
    """A Dispatch derives its scan once per table (a classifier per pod log file); a table equal to another
    but made of other row objects still gets its own rows back."""
    import dataclasses
    copy = tuple(dataclasses.replace(r) for r in RULES)
    a, b = Dispatch(RULES), Dispatch(copy)
    assert a._scan is b._scan
    xid = "NVRM: Xid (PCI:0000:5d:00): 31, pid=1, name=p, Ch 00000008, MMU Fault"
    for _ in range(2):  # the second time through the row tried first
        assert any(a.first(xid)[0] is r for r in RULES)
        assert any(b.first(xid)[0] is r for r in copy)
