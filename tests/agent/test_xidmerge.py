"""One Xid reported by NVML events and by the kernel log counts once; the memory of it is bounded."""

from __future__ import annotations

import dataclasses

import pytest

import agent.xidmerge as xidmerge
from agent.xidmerge import REMEMBERED, XidMerger
from parsers import Finding


class FakeTime:
    def __init__(self) -> None:
        self.t = 1000.0

    def monotonic(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch):
    fake = FakeTime()
    monkeypatch.setattr(xidmerge, "time", fake)
    return fake


def xid(pci: str = "0000:9a:00", code: int = 79) -> Finding:
    return Finding("xid", "fatal", "hardware", "RESTART_BM", "m", xid=code, pci=pci)


def test_the_other_channel_within_the_window_is_the_same_xid(clock):
    m = XidMerger(window=10)
    assert not m.already_seen(xid(), "nvml")
    clock.t += 9
    assert m.already_seen(xid(), "kmsg")
    # merged once: a third report is new again, whichever channel
    assert not m.already_seen(xid(), "nvml")


def test_same_channel_twice_or_outside_the_window_counts_twice(clock):
    m = XidMerger(window=10)
    assert not m.already_seen(xid(), "kmsg")
    assert not m.already_seen(xid(), "kmsg")
    clock.t += 11
    assert not m.already_seen(xid(), "nvml")
    assert not m.already_seen(xid(code=48), "kmsg")  # another Xid on that GPU is another event


def test_memory_is_bounded_and_forgets_the_oldest_first(clock):
    m = XidMerger(window=10)
    for i in range(REMEMBERED + 50):
        m.already_seen(xid(pci=f"0000:{i:04x}:00"), "nvml")
    assert len(m._seen) == REMEMBERED
    assert not m.already_seen(xid(pci="0000:0000:00"), "kmsg")  # forgotten
    assert m.already_seen(xid(pci=f"0000:{REMEMBERED + 49:04x}:00"), "kmsg")  # the newest is kept


def test_an_xid_48_carrying_its_detail_xid_reports_that_xid_once(clock):
    """The kernel log's Xid 48 amended by the Xid 172 line after it (details `detail_xid`, parsers/rules.py "ecc")
    reported the 172 too: NVML's event of that 172 within the window is the same one (either order), the 48 itself
    still decided (it carries the detail); another GPU's 172 is another."""
    m = XidMerger(window=10)
    assert not m.already_seen(xid(code=48), "kmsg")
    amended = Finding("xid", "fatal", "hardware", "WORKFLOW_XID_48", "m", xid=48, pci="0000:9a:00",
                      details={"memory": "SRAM", "detail_xid": 172, "amends": "memory"})
    assert not m.already_seen(amended, "kmsg")
    assert m.already_seen(xid(code=48), "nvml") and m.already_seen(xid(code=172), "nvml")
    assert not m.already_seen(xid(pci="0000:5d:00", code=172), "nvml")
    assert not m.already_seen(xid(pci="0000:1b:00", code=172), "nvml")  # NVML's first, then the kernel's pair
    assert not m.already_seen(dataclasses.replace(amended, pci="0000:1b:00"), "kmsg")
    assert not m.already_seen(xid(pci="0000:1b:00", code=172), "nvml")  # merged once: a later one is new
