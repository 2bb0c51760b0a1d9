"""GPU kernel lines the 2026c batch found misread, on the real lines of the corpus (tests/fixtures/realworld).

Each test reads the corpus samples it names, so the lines are the sources' own (their addresses in the yaml files)."""

from __future__ import annotations

import collections

import pytest
from parsers import at_least
import realworld

ITEMS = realworld.samples()
BATCH = [i for i in ITEMS if i["file"] == "gpu-2026c.yaml"]


def _loud(text: str) -> collections.Counter:
    return collections.Counter(realworld.finding_key(f) for f in realworld.findings(text)
                               if at_least(f.severity, "warning"))


@pytest.mark.parametrize("item", BATCH, ids=lambda i: f"{i['file']}#{i['index']}")
def test_batch_samples_are_their_events_and_nothing_else(item):
    """The RC watchdog's "GPU is probably locked!" before the Xid 8 its recovery logs (llama.cpp #27102) was an
    unclassified warning beside the Xid: one event, the Xid's."""
    assert _loud(item["text"]) == collections.Counter(map(realworld.expect_key, item["expect"]))


def test_an_xid_caused_by_a_previous_xid_takes_the_causes_attribution():
    """57x+ Xid 45 names the Xid that took the channels down ("Ch 00000001 caused by previous Xid 149",
    open-gpu-kernel-modules #1150): an NVLink fault's (hardware), not the application's, as triage reads it (it was
    the application's: the agent blamed the pod for the NVLink fault). One caused by an earlier Xid 45 (vllm #40652)
    stays the application's."""
    seen = collections.Counter()
    for item in ITEMS:
        if "caused by previous Xid" not in item["text"]:
            continue
        for f in realworld.findings(item["text"]):
            if f.kind != "xid" or f.xid != 45:
                continue
            cause = f.details["caused_by_xid"]
            assert f"caused by previous Xid {cause}" in f.message
            assert f.attribution == ("application" if cause == 45 else "hardware"), f.message
            seen[cause] += 1
    assert seen[149] and seen[145] and seen[45]  # the corpus holds each


def test_the_gsp_core_dumps_icd_errors_are_part_of_its_event():
    """A fatal GSP timeout's destructive core dump reports its own failures ("kflcnCoreDumpDestructive_IMPL: ICD:
    [ERROR] ICD Halt command failed.", open-gpu-kernel-modules #446, 580): lines of the GPU-needs-reset event, not
    an unclassified warning beside it."""
    item = next(i for i in ITEMS if i["file"] == "gpu-kernel-3.yaml" and "ICD Halt command failed" in i["text"])
    assert _loud(item["text"]) == collections.Counter(map(realworld.expect_key, item["expect"]))
    # with no GSP or reset event open, the line is the unclassified net's, as every line of that row
    lone = next(line for line in item["text"].splitlines() if "ICD Halt" in line)
    assert [f.kind for f in realworld.findings(lone)] == ["unclassified"]
