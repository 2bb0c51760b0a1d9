"""NVRM lines of the 570-610 drivers the 2026f and 2026l batches checked, on the real lines of the corpus
(tests/fixtures/realworld/nvrm-2026f.yaml, nvrm-2026l.yaml; the sources' addresses beside them)."""

from __future__ import annotations

import collections

import pytest
from parsers import at_least
import realworld

BATCHES = ("nvrm-2026f.yaml", "nvrm-2026l.yaml")
BATCH = [i for i in realworld.samples() if i["file"] in BATCHES]


def _loud(text: str) -> collections.Counter:
    return collections.Counter(realworld.finding_key(f) for f in realworld.findings(text)
                               if at_least(f.severity, "warning"))


@pytest.mark.parametrize("item", BATCH, ids=lambda i: f"{i['file']}#{i['index']}")
def test_batch_samples_are_their_events_and_nothing_else(item):
    """The MSI fallback (CachyOS-PKGBUILDS #1038, 580) was an unclassified warning at every boot of its host; 610's
    TLB invalidations failing with NV_ERR_GPU_IS_LOST (cmpunlocker #4) an unclassified warning per line, not the lost
    GPU's one event."""
    assert _loud(item["text"]) == collections.Counter(map(realworld.expect_key, item["expect"]))


def test_the_batch_is_read():
    assert {i["file"] for i in BATCH} == set(BATCHES)
