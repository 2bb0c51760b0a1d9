"""NVMe commands completed only by the driver's poll at the timeout (parsers/rules.py nvme_timeout_polled, role
"again"): once no fault, repeated on one controller within the event's window one warning. Lines marked SOURCE are the
driver's format (drivers/nvme/host/pci.c nvme_timeout, 6.5+'s "I/O tag .. opcode .." prefix) with a real line's
stamp, a test, never a sample; the real lines are in tests/fixtures/realworld/nvme-polled-2026.yaml."""

from __future__ import annotations

from parsers import scan_lines
from parsers.rules import EVENT_LINES


def polled(ctrl: str, tag: int, qid: int = 0) -> str:
    # SOURCE: inindev/nanopi-r5 #23's line, the controller and tag varied
    return f"[  107.508575] nvme {ctrl}: I/O {tag} QID {qid} timeout, completion polled"


def test_once_is_silent_a_repeat_one_warning():
    assert list(scan_lines([polled("nvme0", 12)])) == []
    found = list(scan_lines([polled("nvme0", n) for n in range(6)]))
    assert [(f.kind, f.severity, f.details.get("device")) for f in found] == [("nvme_error", "warning", "nvme0")]


def test_each_controller_counts_its_own():
    # one sighting on each of two controllers: neither repeats
    assert list(scan_lines([polled("nvme0", 1), polled("nvme1", 2, 3)])) == []
    found = list(scan_lines([polled("nvme0", 1), polled("nvme1", 2), polled("nvme1", 3), polled("nvme0", 4)]))
    assert sorted(f.details.get("device") for f in found) == ["nvme0", "nvme1"]


def test_a_repeat_past_the_window_is_another_single_sighting():
    gap = ["[  108.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd"] * (EVENT_LINES["nvme_polled"] + 1)
    assert list(scan_lines([polled("nvme0", 1), *gap, polled("nvme0", 2)])) == []


def test_6x_wording():
    # SOURCE: 6.5+ nvme_timeout's prefix (tests/parsers/test_host_wordings.py's line)
    line = "nvme nvme1: I/O tag 14 (100e) opcode 0x1 (I/O Cmd) QID 5 timeout, completion polled"
    assert [f.severity for f in scan_lines([line, line])] == ["warning"]


def test_open_events_stay_bounded_whatever_the_controllers():
    """A first sighting opens its event with no finding ("again", as a "lead" line): the open events stay within
    MAX_OPEN_EVENTS however many controllers the input names (was: every first sighting kept, unbounded)."""
    from parsers.classify import MAX_OPEN_EVENTS, Classifier
    c = Classifier()
    for n in range(MAX_OPEN_EVENTS * 3):
        assert c.classify(polled(f"nvme{n}", 1)) is None
    assert len(c._events) <= MAX_OPEN_EVENTS and len(c._led) <= MAX_OPEN_EVENTS
