"""A pod's line holding several records read live as offline reads it (parsers.records.line_records, parsers.scan
`cri_records`, agent/sources/podlogs.py `_feed`): a tqdm bar rewrites itself with a carriage return and no newline, so
the record a rank prints next lands on the bar's line, after its last state.  The kubelet writes that output as one
CRI line's content, "\\r"s and all (containerd: up to its max_container_log_line_size, 16 KiB by default, the rest in
"P" partial lines of that size, https://github.com/containerd/containerd/releases/tag/v1.1.2; CRI-O's conmon: a "P"
line for each read of the pipe that ends in no newline, the bar's every rewrite, https://github.com/cri-o/cri-o/pull/436).  Before, the live path read the physical line as one: the record not at its line's start (its launcher
prefix, a traceback's header unread) and, past the classifier's MAX_MESSAGE characters of bars, not read at all.

The lines, verbatim: modelscope/ms-swift #10183 (tests/fixtures/incidents/ms-swift-10183-deadlock: a tqdm bar and
the watchdog line on one line, https://github.com/modelscope/ms-swift/issues/10183); awslabs/keys_values' rank 1
traceback (tests/fixtures/incidents/keys-values-lightning-child-exit, its source.md); rank 5's CUDA error under
torchrun (https://github.com/NovaSearch-Team/RAG-Retrieval/issues/27, tests/fixtures/realworld/jobs-cuda-driver-2026.yaml).  The bar's rewrites are the
bar's state repeated, as tqdm writes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sources.podlogs import PodLogSource
from parsers.classify import MAX_MESSAGE
from parsers.scan import cri_records
from triage import Clock, read_lines
from opcount import cpu_seconds

INCIDENTS = Path(__file__).parents[1] / "fixtures" / "incidents"
SWIFT = (INCIDENTS / "ms-swift-10183-deadlock" / "logs" / "train.log").read_text(encoding="utf-8").splitlines()[0]
BAR, WATCHDOG = SWIFT[:SWIFT.index("[rank3]:")], SWIFT[SWIFT.index("[rank3]:"):]
TRACEBACK = (INCIDENTS / "keys-values-lightning-child-exit" / "logs" / "train.log").read_text(
    encoding="utf-8").splitlines()[15:45]
POD = "train_swift-w-0_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"
STAMP = "2025-09-18T19:29:24.436955737Z"
CONTAINERD_LINE = 16 << 10  # containerd's max_container_log_line_size default


def containerd(content: str) -> bytes:
    """`content` (one line of the container's output) as containerd writes it: "P" lines of 16 KiB, then "F"."""
    raw = content.encode()
    parts = [raw[i:i + CONTAINERD_LINE] for i in range(0, len(raw), CONTAINERD_LINE)]
    return b"".join(f"{STAMP} stderr {'P' if i < len(parts) - 1 else 'F'} ".encode() + part + b"\n"
                    for i, part in enumerate(parts))


def crio(writes: list[str]) -> bytes:
    """The writes of one line of output as CRI-O's conmon logs them: a "P" line for each write but the last."""
    return b"".join(f"{STAMP} stderr {'P' if i < len(writes) - 1 else 'F'} {w}\n".encode()
                    for i, w in enumerate(writes))


def live(tmp_path: Path, data: bytes) -> list:
    log = tmp_path / POD / "main" / "0.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(data)
    src = PodLogSource(str(tmp_path), from_start=True)
    src.discover()
    found = []
    while more := src.poll():
        found += [f for _, f in more]
    return found


def offline(line: str) -> list:
    return [e for e in read_lines([line], "train.log", Clock(), year=2025) if e.kind != "rank_seen"]


BARS = max(3, MAX_MESSAGE // len(BAR) + 1)  # a bar rewritten past the characters of a line the classifier reads


@pytest.mark.parametrize("layout", ["containerd", "containerd 16 KiB parts", "CRI-O writes"])
def test_a_record_glued_after_a_bar_is_read_live_as_offline(tmp_path, layout):
    bars = BARS * (5 if layout == "containerd 16 KiB parts" else 1)
    content = "\r".join([BAR] * bars) + WATCHDOG
    data = crio(["\r" + BAR] * bars + [WATCHDOG]) if layout == "CRI-O writes" else containerd(content)
    assert (layout == "containerd") == (data.count(b" P ") == 0)
    found = [f for f in live(tmp_path, data) if f.kind == "nccl_timeout"]
    assert [(f.rank, f.message) for f in found] == [(3, WATCHDOG)]  # the record's own line, its launcher prefix first
    assert found[0].timestamp is not None and found[0].timestamp.isoformat().startswith("2025-09-18T19:29:24.436955")
    assert [(e.kind, e.rank) for e in offline(content) if e.kind == "nccl_timeout"] == [("nccl_timeout", 3)]


# NovaSearch-Team/RAG-Retrieval #27 (verbatim): its rank only in torchrun's prefix
CUDA = "[rank5]: RuntimeError: CUDA error: invalid device ordinal"


def test_a_record_glued_after_a_bar_keeps_its_launcher_prefix(tmp_path):
    content = "\r" + BAR + "\r" + BAR + CUDA
    found = [f for f in live(tmp_path, containerd(content)) if f.kind == "cuda_error"]
    assert [(f.rank, f.message) for f in found] == [(5, CUDA)]  # was: rank None, the bars first
    assert [(f.rank, f.message) for f in found] == [(e.rank, e.text) for e in offline(content) if e.kind == "cuda_error"]


def test_a_traceback_whose_header_is_glued_after_a_bar_is_its_rank_exception(tmp_path):
    first = "\r" + BAR + "\r" + BAR + TRACEBACK[0]
    data = containerd(first) + b"".join(containerd(line) for line in TRACEBACK[1:])
    said = [(f.rank, f.details.get("exception")) for f in live(tmp_path, data) if f.kind == "exception"]
    assert said == [(1, "RuntimeError")]  # rank 1's traceback, its header the line's second record
    assert said == [(e.rank, e.details.get("exception")) for e in
                    read_lines([first, *TRACEBACK[1:]], "train.log", Clock(), year=2025) if e.kind == "exception"]


def test_lines_of_one_record_are_left_as_written():
    for line in (f"{STAMP} stderr F {WATCHDOG}\n", f"{STAMP} stderr F {BAR}\n",
                 f"{STAMP} stdout F {TRACEBACK[1]}\r\n", f"{STAMP} stdout F a < b, c > d\n"):
        data = line.encode() * 3
        assert cri_records(data, len(data) - 1) is None, line


def test_the_records_keep_the_envelope_and_the_lines_around_them():
    data = (f"{STAMP} stderr F before\n" + f"2025-09-18T19:29:25.000000000Z stdout F \r{BAR}\r{BAR}{WATCHDOG}\n"
            f"{STAMP} stderr F after\n").encode()
    assert cri_records(data, len(data) - 1).decode().splitlines() == [
        f"{STAMP} stderr F before", f"2025-09-18T19:29:25.000000000Z stdout F {BAR}",
        f"2025-09-18T19:29:25.000000000Z stdout F {WATCHDOG}", f"{STAMP} stderr F after"]


def test_hostile_buffers_are_linear():
    for line in ("1/1 [0<0, 1it/s, " * 2000, "1/1 [0<0, 1it/s]" * 2000, "\r" * 20000, "<1" * 20000):
        for data in (containerd(line) * 8, crio([line[:64]] * 2000)):
            assert cpu_seconds(lambda: cri_records(data, len(data) - 1)) < 2.0  # (CPU time: a loaded host's wall clock failed it)
