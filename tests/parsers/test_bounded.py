"""parsers/bounded.py: keep_newest, the one bounded memory the escalations, the agent's policy and stdout sink and
the cluster's book share."""

from __future__ import annotations

from collections import OrderedDict

from hypothesis import given
from hypothesis import strategies as st

from parsers.bounded import keep_newest


def test_a_new_key_is_the_newest_and_the_oldest_goes_past_the_cap():
    table = OrderedDict((i, str(i)) for i in range(3))
    keep_newest(table, "new", "v", 3)
    assert list(table.items()) == [(1, "1"), (2, "2"), ("new", "v")]


def test_a_key_seen_again_is_made_the_newest_with_its_new_value_and_nothing_goes():
    table = OrderedDict((i, str(i)) for i in range(3))
    keep_newest(table, 0, "again", 3)
    assert list(table.items()) == [(1, "1"), (2, "2"), (0, "again")]


def test_what_is_forgotten_is_handed_to_dropped_oldest_first():
    """The escalations' bursts table empties each forgotten list (a storm's memo may still hold it)."""
    lists = [[float(i)] for i in range(4)]
    table = OrderedDict(enumerate(lists))
    gone: list = []
    keep_newest(table, "new", [9.0], 2, gone.append)
    assert gone == [[0.0], [1.0], [2.0]] and list(table) == [3, "new"]
    keep_newest(table, 3, lists[3], 2, list.clear)  # a hit forgets nothing
    assert lists[3] == [3.0] and list(table) == ["new", 3]
    newest = table["new"]
    keep_newest(table, "other", [], 2, list.clear)
    assert list(table) == [3, "other"] and newest == []


@given(st.lists(st.tuples(st.integers(0, 12), st.integers()), max_size=60), st.integers(1, 6))
def test_it_keeps_the_last_cap_distinct_keys_each_with_its_latest_value(writes, cap):
    table: OrderedDict = OrderedDict()
    gone: list = []
    model: list[tuple] = []  # (key, value), oldest first
    forgotten: list = []
    for key, value in writes:
        keep_newest(table, key, value, cap, gone.append)
        model = [kv for kv in model if kv[0] != key] + [(key, value)]
        forgotten += [v for _, v in model[:-cap]]
        model = model[-cap:]
        assert len(table) <= cap
    assert list(table.items()) == model and gone == forgotten
