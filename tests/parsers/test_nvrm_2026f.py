"""NVRM lines of the 570-595 drivers the 2026f batch checked, on the real lines of the corpus
(tests/fixtures/realworld/nvrm-2026f.yaml; the sources' addresses beside them)."""

from __future__ import annotations

import collections

import pytest
from parsers import at_least
import realworld

BATCH = [i for i in realworld.samples() if i["file"] == "nvrm-2026f.yaml"]


def _loud(text: str) -> collections.Counter:
    return collections.Counter(realworld.finding_key(f) for f in realworld.findings(text)
                               if at_least(f.severity, "warning"))


@pytest.mark.parametrize("item", BATCH, ids=lambda i: f"{i['file']}#{i['index']}")
def test_batch_samples_are_their_events_and_nothing_else(item):
    """The MSI fallback (CachyOS-PKGBUILDS #1038, 580) was an unclassified warning at every boot of its host."""
    assert _loud(item["text"]) == collections.Counter(map(realworld.expect_key, item["expect"]))


def test_the_batch_is_read():
    assert len(BATCH) >= 2
