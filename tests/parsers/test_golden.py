"""Every fixture file gives exactly the reviewed findings in fixtures/dmesg/expected/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parsers import Scanner

DMESG = Path(__file__).parents[1] / "fixtures" / "dmesg"
FILES = sorted(p for p in DMESG.iterdir() if p.is_file() and p.name != "README.md")
KEEP = ("line", "kind", "severity", "attribution", "action", "xid", "sxid", "pci", "pid", "process", "rank", "peer")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_fixture_matches_golden(path: Path):
    with path.open("rb") as fh:
        got = [{k: v for k, v in f.to_dict().items() if k in KEEP} for f in Scanner().scan(fh, name=path.name)]
    expected = [json.loads(line) for line in (DMESG / "expected" / f"{path.name}.jsonl").read_text().splitlines()]
    assert got == expected


def test_fixtures_cover_every_kind():
    """Every kind is found on a fixture line: a golden file's here, or a real-world sample's (tests/fixtures/realworld,
    whose lines are copied verbatim: a new kind's real line is enough, docs/extending.md "A new log rule")."""
    import realworld
    from parsers import KINDS

    seen = set()
    for path in FILES:
        with path.open("rb") as fh:
            seen.update(f.kind for f in Scanner().scan(fh))
    for item in realworld.samples():  # only those that expect a kind no golden file gives
        if {e["kind"] for e in item["expect"]} - seen:
            seen.update(f.kind for f in realworld.findings(item["text"]))
    assert set(KINDS) - seen == set()


def test_negatives_give_nothing_above_info():
    with (DMESG / "negatives.log").open("rb") as fh:
        assert [f.kind for f in Scanner().scan(fh) if f.severity != "info"] == []
