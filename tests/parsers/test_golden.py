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
    from parsers import KINDS

    seen = set()
    for path in FILES:
        with path.open("rb") as fh:
            seen.update(f.kind for f in Scanner().scan(fh))
    assert set(KINDS) - seen == set()


def test_negatives_give_nothing_above_info():
    with (DMESG / "negatives.log").open("rb") as fh:
        assert [f.kind for f in Scanner().scan(fh) if f.severity != "info"] == []
