"""The fabric check's pairing and blame logic, with a model fabric: a test fails iff it includes a bad node."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabric.plan import SIZES, blame, round1, round2, waves

FLOOR = 100.0


def measure(tests, bad):
    return {g: (10.0 if set(g) & bad else 180.0) for g in tests}


def run(nodes, bad, size):
    r1 = measure(round1(nodes, size), bad)
    tests = round2(r1, FLOOR, size)
    r2 = {}
    for wave in waves(tests):
        r2.update(measure(wave, bad))
    return blame(r1, r2, FLOOR, size)


node_lists = st.sets(st.integers(0, 999), min_size=3, max_size=24).map(lambda s: [f"gpu-{i:03d}" for i in s])


@settings(max_examples=60)
@given(node_lists, st.sampled_from(SIZES), st.data())
def test_one_bad_node_is_always_named_and_no_good_node_blamed(nodes, size, data):
    bad = data.draw(st.sampled_from(nodes))
    v = run(nodes, {bad}, size)
    assert v.blamed == (bad,)
    assert not v.inconclusive
    assert set(v.good) == set(nodes) - {bad}


@settings(max_examples=60)
@given(node_lists, st.sampled_from(SIZES), st.data())
def test_two_bad_nodes_are_named_or_inconclusive_never_a_wrong_blame(nodes, size, data):
    bad = set(data.draw(st.lists(st.sampled_from(nodes), min_size=2, max_size=2, unique=True)))
    v = run(nodes, bad, size)
    assert set(v.blamed) <= bad  # never a good node
    assert set(v.blamed) | set(v.inconclusive) >= bad  # each bad node is named or reported inconclusive
    assert not (set(v.good) & bad)


@settings(max_examples=60)
@given(node_lists, st.sampled_from(SIZES))
def test_every_node_is_tested_once_in_round_one_and_waves_never_share_a_node(nodes, size):
    groups = round1(nodes, size)
    assert sorted(n for g in groups for n in g) == sorted(nodes)
    assert all(len(g) == 1 for g in groups) if size == 1 else all(len(g) >= 2 for g in groups)
    r1 = {g: (10.0 if i == 0 else 200.0) for i, g in enumerate(groups)}
    for wave in waves(round2(r1, FLOOR, size)):
        members = [n for g in wave for n in g]
        assert len(members) == len(set(members))


def test_no_bad_node_no_round_two():
    r1 = measure(round1([f"n{i}" for i in range(8)], 2), set())
    assert round2(r1, FLOOR, 2) == []
    assert blame(r1, {}, FLOOR, 2).blamed == ()


def test_two_nodes_one_failing_pair_is_inconclusive():
    v = run(["a", "b"], {"a"}, 2)
    assert v.blamed == () and v.inconclusive == ("a", "b")


def test_bad_group_size():
    with pytest.raises(ValueError, match="expected one of 1, 2, 4, 8"):
        round1(["a", "b"], 3)


def test_when_every_group_fails_round_two_is_bounded():
    """Suspects are re-tested pairwise only as many as one round-1 group can hold: with every group of a large
    fleet failing (a wrong image, a floor set too high) all pairs of 1,000 nodes were 499,500 Jobs in about
    1,000 waves of up to --timeout each; now none, and every node is reported inconclusive."""
    nodes = [f"gpu-{i:04d}" for i in range(1000)]
    r1 = {g: 0.0 for g in round1(nodes, 2)}
    assert round2(r1, FLOOR, 2) == []
    v = blame(r1, {}, FLOOR, 2)
    assert v.blamed == () and v.good == () and len(v.inconclusive) == 1000
    # the largest single group (8 nodes and a remainder of 3) is still tested pairwise, so one bad node is named
    eleven = [f"n{i:02d}" for i in range(11)]
    assert len(round1(eleven, 8)) == 1 and len(round2({tuple(eleven): 0.0}, FLOOR, 8)) == 55
    assert run(eleven, {"n05"}, 8).blamed == ("n05",)
