"""What a Dispatch keeps for the process's life (issue 24): every classifier holds one (the agent's kernel log, and
one per pod log file followed), built at its start, so what it keeps is paid per classifier, idle or not."""

import tracemalloc

from parsers.classify import Dispatch
from parsers.rules import RULES


def test_a_dispatch_keeps_its_keyword_index_small():
    """The keyword -> rows index (~470 keywords, most of them one row's) as tuples: ~40 KiB a Dispatch; as sets it
    was ~120 KiB (a set of one row is ~200 bytes).  The rest of its tables are derived when first asked for."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        dispatch = Dispatch(RULES)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert dispatch.rules is RULES
    assert kept < 64 * 1024, f"a Dispatch keeps {kept / 1024:.0f} KiB"


def test_a_keyword_selects_every_row_holding_it_in_table_order():
    """The index's rows, as the sets gave them: each keyword's rows are those whose keywords hold it, once each."""
    dispatch = Dispatch(RULES)
    for word in sorted({k for r in RULES for k in r.keywords}):
        want = frozenset(i for i, r in enumerate(RULES) if any(k in word for k in r.keywords))
        assert dispatch._rows[word] == want, word
