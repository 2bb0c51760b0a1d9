"""Hostile lines for triage's own patterns (the parsers' standard, tests/parsers/test_hostile_inputs.py): `gpu-npd triage`
reads whole job logs users paste, one line up to triage.read.MAX_LINE characters, so every FACTS row, every launcher
prefix and every module-level pattern of triage is linear on a line of that length made of its own words and the
tokens patterns look for; a pattern that rescans the rest of the line from each start stalls the read on one line."""

from __future__ import annotations

import importlib
import inspect
import os
import re
from re import _parser  # the pattern's own parse: its literal words, the tokens that make it try a start

import pytest

from opcount import cpu_seconds
from triage import Clock, read_lines
from triage.facts import FACTS
from triage.ranks import PREFIXES
from triage.read import MAX_LINE

MODULES = ("facts", "read", "inventory", "ranks", "clock", "attribute", "teardown")
FILLERS = [" ", " error ", " rank 3 ", "[", "]", "(", ")", ": ", "\t", " 9" * 8, "a", ".", "/", "-", "=", ",", "0"]




def _compiled(value, depth=0):
    """The compiled patterns in a module-level value: itself, or in its tuples, dicts and rows (dataclasses, named
    tuples), two levels down."""
    if isinstance(value, re.Pattern):
        yield value
    elif isinstance(value, type) or depth > 2:
        return
    elif isinstance(value, (tuple, list, set, frozenset)):
        for v in value:
            yield from _compiled(v, depth + 1)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _compiled(v, depth + 1)
    elif hasattr(value, "__dataclass_fields__") or hasattr(value, "_fields"):
        for name in getattr(value, "__dataclass_fields__", None) or value._fields:
            yield from _compiled(getattr(value, name), depth + 1)


def _patterns() -> dict[str, tuple]:
    """name -> (the call triage makes, the row's keywords): FACTS rows are searched (facts.match), launcher prefixes
    matched at the line's start (ranks.py), every other module-level pattern called as its module calls it (search
    unless the module only matches it at a start)."""
    found = {f"FACTS {r.name}": (r.pattern.search, r.keywords) for r in FACTS}
    found.update({f"PREFIX {p.name}": (p.pattern.match, ()) for p in PREFIXES})
    seen = {call.__self__.pattern for call, _ in found.values()}
    for module in MODULES:
        m = importlib.import_module(f"triage.{module}")
        source = inspect.getsource(m)
        for name, value in vars(m).items():
            for p in _compiled(value):
                if p.pattern in seen:
                    continue
                seen.add(p.pattern)
                used = set(re.findall(rf"\b{re.escape(name)}\.(search|match|fullmatch|finditer|findall|sub|split)\(",
                                      source))
                how = "search" if not used or used - {"match", "fullmatch"} else "match"
                found[f"{module}.{name}"] = (getattr(p, how), ())
    return found


def _literals(pattern: re.Pattern) -> list[str]:
    """The pattern's literal runs of 3+ characters in its order (its words, wherever they stand in it), a run before a
    group carried into the group's first words ("[" and an optional "PG ": "[PG ")."""
    out = {}

    def walk(seq, run: str = "") -> None:
        for op, av in seq:
            if op is _parser.LITERAL:
                run += chr(av)
                continue
            if len(run) >= 3:
                out[run] = None
            if op is _parser.SUBPATTERN:
                walk(av[-1], run)
            elif op is _parser.BRANCH:
                for branch in av[1]:
                    walk(branch, run)
            elif op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT, _parser.POSSESSIVE_REPEAT):
                walk(av[2], run)
            elif op in (_parser.ASSERT, _parser.ASSERT_NOT):
                walk(av[1])
            elif op is _parser.ATOMIC_GROUP:
                walk(av, run)
            run = ""
        if len(run) >= 3:
            out[run] = None

    walk(_parser.parse(pattern.pattern, pattern.flags))
    return list(out)


PATTERNS = _patterns()


def _units(call, keywords) -> list[tuple[str, str]]:
    """(what, unit): a unit repeated to MAX_LINE makes a line.  Each of the pattern's own words (its row's keywords,
    its literal runs) alone and with every filler after it, all its words in their order, and each filler alone; `make fuzz` (HOSTILE_FULL=1) also
    has every pair of fillers."""
    ordered = _literals(call.__self__)
    words = sorted(set(keywords) | set(ordered))
    units = [(repr(w), w) for w in words] + [(f"{w!r}+fillers", "".join(w + f for f in FILLERS)) for w in words]
    units.append(("its words in order", " ".join(ordered) + " "))  # each a start the next words are looked for from
    units += [(repr(f), f) for f in FILLERS]
    if os.environ.get("HOSTILE_FULL"):
        units += [(repr(a + b), a + b) for a in FILLERS for b in FILLERS]
    return units


def _line(unit: str, length: int = MAX_LINE) -> str:
    return (unit * (1 + length // len(unit)))[:length]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_triage_pattern_is_linear_on_pathological_lines(name):
    """Each of the pattern's words and the fillers repeated to MAX_LINE (_units). A linear pass over 64 KiB is
    milliseconds (the slowest, k8s_ended's alternation of many rows, ~70 ms on a 2-CPU host); a pattern that rescans the
    line's rest from every start took seconds (the store row's "TCPStore\\S* .*?": 5 s; srun_task_launch's "\\w*run": 4
    s); a bounded run through characters its text never holds took 100-170 ms under load, at this bound (k8s_ended's
    "node/<host>" before "Spot interruption ..", `\\S{1,253}` across "/"; the watchdog rows' PG tag, 200 characters
    across "["): each now stops there."""
    call, keywords = PATTERNS[name]
    worst = (0.0, "")
    for what, unit in _units(call, keywords):
        line = _line(unit)
        took = cpu_seconds(lambda: call(line))
        if took >= 0.15:  # a real stall repeats on the same line; a timer tick on a busy host does not
            took = min(took, cpu_seconds(lambda: call(line)))
        worst = max(worst, (took, what))
    assert worst[0] < 0.15, (name, worst)


def test_a_log_of_hostile_lines_is_read_in_linear_time():
    """The whole reader (prefixes, clocks, every FACTS row its keywords admit, the parsers' rules) on a file of 1 MiB
    lines, one per FACTS keyword flooded with the fillers: each line is cut at MAX_LINE and read in about a
    linear pass; no line stalls the file."""
    keywords = sorted({k for r in FACTS for k in r.keywords})
    lines = [_line("".join(k + f for f in FILLERS), 1 << 20) for k in keywords]
    list(read_lines(["warm-up"], "job.log", Clock(), year=2025))
    took = cpu_seconds(lambda: list(read_lines(lines, "job.log", Clock(), year=2025)))
    assert took < 0.05 * len(lines), took  # 50 ms a line, where a linear pass takes a few
