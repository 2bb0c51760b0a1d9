"""The two-round fabric check as pure functions: who is tested with whom, and who is to blame.

Round 1 splits the nodes into groups of `size` (1, 2, 4 or 8 nodes; a remainder too small to be a group
joins the last one) and runs one all-reduce per group.  A group whose bus bandwidth is below the floor is a
suspect; every member of a passing group is known good.

Round 2 tests each suspect node with known-good partners (size - 1 of them, fewer when not that many are
known).  Its test passing clears it, failing names it.  When no node is known good (every round-1 group
failed) suspects are tested with each other in pairs: a passing pair clears both; a node is named only
when it failed with a partner that some other test cleared.  All pairs of k suspects are k(k-1)/2 tests,
so this is done only for as many as one round-1 group can hold (PAIRWISE_MAX); more suspects and no node
good means a cause common to every test (the image, the floor), and round 2 is not run.  What can be
neither cleared nor named is inconclusive: the check never blames a node it could not single out.

Round 3 re-tests, once, each failed test whose members were all cleared by other tests: every node passed
with other partners, so the path between them (a cable, a switch port, a misrouted rail) is the suspect, not
a node.  Failing again makes it a link suspect; passing (or a re-test that never ran) leaves it unconfirmed, a
flake.  A failed test that holds a narrower one of these is left out (the narrower explains it).  So round 3
is at most one test per failed round-1 group (disjoint: one wave), plus the pairs of at most PAIRWISE_MAX
suspects, and it never blames or clears a node.

`size == 1` runs each node on its own (its GPUs' NVLink/PCIe, no fabric): there is no round 2 or 3, a failing
node is named directly.

Which nodes share a round-1 group rotates with a seed (`order`): a node's place is a hash of the seed and its
name, so the same seed and nodes give the same plan, and a new seed tests other links.  No seed: sorted order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from itertools import combinations

Group = tuple[str, ...]
SIZES = (1, 2, 4, 8)
# the most suspects tested pairwise when none is known good: the largest round-1 group (a remainder of fewer
# than size // 2 nodes joins the last group), so a lone group is always resolved and a failing fleet costs
# no round 2 instead of n(n-1)/2 Jobs
PAIRWISE_MAX = max(SIZES) + max(SIZES) // 2 - 1


@dataclass(frozen=True)
class Verdict:
    blamed: tuple[str, ...]  # nodes singled out as bad
    good: tuple[str, ...]  # nodes cleared by a passing test
    inconclusive: tuple[str, ...]  # suspects neither cleared nor singled out
    evidence: dict[str, tuple[Group, float]] = field(default_factory=dict)  # blamed node -> its failing test
    links: tuple[Group, ...] = ()  # tests of cleared nodes that failed, and failed again on re-test
    unconfirmed: tuple[Group, ...] = ()  # tests of cleared nodes that failed once: re-test passed or never ran


def order(nodes, seed: int | None) -> list[str]:
    """The nodes in the seed's order (stable across Python versions and hosts: sha256, not `random`)."""
    if seed is None:
        return sorted(set(nodes))
    return sorted(set(nodes), key=lambda n: (hashlib.sha256(f"{seed}\0{n}".encode()).digest(), n))


def round1(nodes: list[str], size: int, seed: int | None = None) -> list[Group]:
    """Groups of adjacent nodes in the seed's order, each group's members sorted (its first one leads)."""
    if size not in SIZES:
        raise ValueError(f"group size {size}: expected one of {', '.join(map(str, SIZES))}")
    ordered = order(nodes, seed)
    if size == 1:
        return [(n,) for n in ordered]
    if len(ordered) < 2:
        return []
    groups = [ordered[i:i + size] for i in range(0, len(ordered), size)]
    if len(groups) > 1 and len(groups[-1]) < max(2, size // 2):
        last = groups.pop()
        groups[-1] += last
    return [tuple(sorted(g)) for g in groups]


def split(results: dict[Group, float], floor: float) -> tuple[set[str], set[str]]:
    """(known good nodes, suspect nodes) from one round's results."""
    good = {n for g, bw in results.items() if bw >= floor for n in g}
    suspects = {n for g, bw in results.items() if bw < floor for n in g} - good
    return good, suspects


def round2(r1: dict[Group, float], floor: float, size: int) -> list[Group]:
    """The tests that single out bad nodes among round 1's suspects."""
    if size == 1:
        return []
    good, suspects = split(r1, floor)
    partners = sorted(good)
    if partners:
        k = min(size - 1, len(partners))
        # rotate through the good nodes so no single partner carries every test
        return [(s, *[partners[(i * k + j) % len(partners)] for j in range(k)])
                for i, s in enumerate(sorted(suspects))]
    if len(suspects) > PAIRWISE_MAX:
        return []
    return [tuple(p) for p in combinations(sorted(suspects), 2)]


def round3(r1: dict[Group, float], r2: dict[Group, float], floor: float) -> list[Group]:
    """Failed tests whose members all passed other tests, to re-test once: a slow path, or a flake."""
    good = split(r1, floor)[0] | split(r2, floor)[0]
    failed = {frozenset(g): g for g, bw in {**r1, **r2}.items() if bw < floor and set(g) <= good}
    return sorted(g for s, g in failed.items() if not any(o < s for o in failed))


def blame(r1: dict[Group, float], r2: dict[Group, float], floor: float, size: int,
          untested: set[str] | frozenset[str] = frozenset(), r3: dict[Group, float] | None = None) -> Verdict:
    """`r1` / `r2` / `r3` hold the tests that ran; `untested` the members of tests that never did (a pod never
    scheduled), inconclusive unless a test that ran cleared or named them."""
    nodes = {n for g in r1 for n in g}
    if size == 1:
        bad = sorted(g[0] for g, bw in r1.items() if bw < floor)
        return Verdict(tuple(bad), tuple(sorted(nodes - set(bad))), tuple(sorted(set(untested) - nodes)),
                       {g[0]: (g, bw) for g, bw in r1.items() if bw < floor})
    good, suspects = split(r1, floor)
    g2, _ = split(r2, floor)
    good |= g2
    blamed: dict[str, tuple[Group, float]] = {}
    for g, bw in sorted(r2.items()):
        if bw >= floor:
            continue
        others = [n for n in g if n not in good]
        # a failing test whose every other member is known good names its one remaining member
        if len(others) == 1 and others[0] in suspects:
            blamed.setdefault(others[0], (g, bw))
    inconclusive = (suspects | set(untested)) - good - set(blamed)
    retested, r3 = round3(r1, r2, floor), r3 or {}
    links = tuple(g for g in retested if g in r3 and r3[g] < floor)
    return Verdict(tuple(sorted(blamed)), tuple(sorted(good)), tuple(sorted(inconclusive)), blamed,
                   links, tuple(g for g in retested if g not in links))


def waves(tests: list[Group]) -> list[list[Group]]:
    """Tests in waves in which no node is in two tests at once (a node's GPUs run one test at a time)."""
    out: list[tuple[set[str], list[Group]]] = []
    for t in tests:
        for busy, wave in out:
            if busy.isdisjoint(t):
                busy.update(t)
                wave.append(t)
                break
        else:
            out.append((set(t), [t]))
    return [wave for _, wave in out]
