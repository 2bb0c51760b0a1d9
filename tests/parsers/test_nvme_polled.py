"""NVMe commands completed only by the driver's poll at the timeout are no finding (parsers/rules.py's NVMe comment:
taking each such line into an event doubled `gpu-npd parse`'s CPU on the benchmark's default mix, whose kernel noise holds them,
for evidence from no GPU node); and the open events a line opens with no finding ("lead") stay bounded. Lines marked
SOURCE are the driver's format with a real line's stamp, a test, never a sample; the real lines are in
tests/fixtures/realworld/nvme-polled-2026.yaml and gsp.yaml."""

from __future__ import annotations

from parsers import scan_lines


def polled(ctrl: str, tag: int, qid: int = 0) -> str:
    # SOURCE: inindev/nanopi-r5 #23's line, the controller and tag varied
    return f"[  107.508575] nvme {ctrl}: I/O {tag} QID {qid} timeout, completion polled"


def test_polled_completions_are_not_read_once_or_repeated():
    assert list(scan_lines([polled("nvme0", n) for n in range(6)])) == []
    assert list(scan_lines([polled("nvme0", 1), polled("nvme1", 2, 3)])) == []


def test_open_events_stay_bounded_whatever_the_gpus():
    """A heartbeat check opens its GPU's GSP event with no finding ("lead"): the open events stay within
    MAX_OPEN_EVENTS however many GPUs the input names (h446: every first sighting was kept, unbounded)."""
    from parsers.classify import MAX_OPEN_EVENTS, Classifier
    c = Classifier()
    for n in range(MAX_OPEN_EVENTS * 3):
        # SOURCE: tests/fixtures/realworld/gsp.yaml's line, the GPU's index varied
        line = (f"NVRM: GPU{n} _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 322227881 heartbeat 0 "
                "heartbeatWithOffsetMs 318098841 diff 4129040 timeout 5200")
        assert c.classify(line) is None
    assert len(c._events) <= MAX_OPEN_EVENTS and len(c._led) <= MAX_OPEN_EVENTS
