"""All-reduce benchmark output -> the bus bandwidth the fabric check compares with its floor (pure).

Two formats, one parser each, tried in the order of PARSERS:
- nccl-tests `all_reduce_perf`: its table (size, count, type[, redop[, root]], then time / algbw / busbw /
  #wrong for out-of-place and again for in-place).  The figure is the busbw of the largest message size
  (the better of out-of-place and in-place), where the bus is saturated; `# Avg bus bandwidth` is kept
  beside it (it averages small messages too).  Rows with a nonzero #wrong, or `Out of bounds values : N
  FAILED`, count as wrong results.
- a PyTorch all_reduce benchmark in the format of ml-engineering's all_reduce_bench.py (and of
  fabric/allreduce_bench.py): `The average bandwidth of all_reduce with a 4.0GB payload (N trials,
  R ranks):` then ` busbw: X GBps (Y Gbps)`; the last such block counts.
Lines may carry a launcher prefix (`[host:0]:`, `[1,0]<stdout>:`), or a rank tag (`[0]`, MPICH / Intel MPI
`-prepend-rank`) on every write, so inside a row too (NVIDIA/nccl issue 1453).  Output with no complete result
is None.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

_PREFIX = re.compile(r"^\[[^\]]*\](?:<std(?:out|err)>)?:")
_TAG = re.compile(r"\[\d+\]")  # a rank tag where the launcher saw a write begin, at or inside a line
_ROW = re.compile(r"^\s*(\d+)\s+(\d+)\s+[a-z0-9_]+\s")
_AVG = re.compile(r"#\s*Avg bus bandwidth\s*:\s*([0-9.]+)")
_OOB = re.compile(r"#\s*Out of bounds values\s*:\s*(\d+)\s+(OK|FAILED)")
_RANK = re.compile(r"^#\s+Rank\s+\d+\s")
_TORCH_HEAD = re.compile(r"The average bandwidth of all_reduce with a ([0-9.]+)\s*([KMGT]?B) payload "
                         r"\((\d+) trials, (\d+) ranks\)")
_TORCH_BUS = re.compile(r"busbw:\s*([0-9.]+)\s*GBps")
_UNIT = {"B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40}


@dataclass(frozen=True)
class Bandwidth:
    busbw: float  # GB/s, the figure compared with the floor
    tool: str  # nccl-tests | torch
    size_bytes: int | None = None  # the message size it was measured at
    avg_busbw: float | None = None  # nccl-tests' "Avg bus bandwidth" over every size
    wrong: int = 0  # results that failed validation
    ranks: int | None = None


def _lines(text: str) -> list[str]:
    return [_TAG.sub(" ", _PREFIX.sub("", line, count=1)) for line in text.splitlines()]


MAX_DIGITS = 18  # a longer "count" is text, never int()


def _num(token: str) -> float | None:
    """A finite number, or None: "N/A" (in-place of some collectives, #wrong with -c 0), "1.2.3", and a
    400-digit figure (float() says inf) are no measurement."""
    try:
        value = float(token)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _count(token: str) -> int | None:
    return int(token) if token.isascii() and token.isdigit() and len(token) <= MAX_DIGITS else None


def parse_nccl_tests(text: str) -> Bandwidth | None:
    rows: list[tuple[int, float, int]] = []
    avg, wrong, ranks = None, 0, 0
    for line in _lines(text):
        if _RANK.match(line):
            ranks += 1
        if (m := _AVG.search(line)) is not None:
            avg = _num(m.group(1))
        if (m := _OOB.search(line)) is not None and m.group(2) == "FAILED":
            wrong += _count(m.group(1)) or 0
        if not _ROW.match(line):
            continue
        tokens = line.split()
        if len(tokens) not in (11, 12, 13):  # 11: no redop/root (old); 12: redop; 13: redop and root
            continue  # a row cut short
        bus = [b for b in (_num(tokens[-6]), _num(tokens[-2])) if b is not None]
        size = _count(tokens[0])
        if not bus or size is None:
            continue
        rows.append((size, max(bus), len(tokens)))
        if len(tokens) > 11:  # the old format's column is an error magnitude, not a count
            wrong += sum(_count(n) or 0 for n in (tokens[-5], tokens[-1]))
    if not rows:
        return None
    size, busbw, _ = max(rows)
    return Bandwidth(busbw, "nccl-tests", size, avg, wrong, ranks or None)


def parse_torch_bench(text: str) -> Bandwidth | None:
    found: Bandwidth | None = None
    head: re.Match | None = None
    for line in _lines(text):
        if (m := _TORCH_HEAD.search(line)) is not None:
            head = m
        elif head is not None and (m := _TORCH_BUS.search(line)) is not None:
            payload, busbw = _num(head.group(1)), _num(m.group(1))
            if payload is not None and busbw is not None and payload * _UNIT[head.group(2)] < 2**63:
                found = Bandwidth(busbw, "torch", int(payload * _UNIT[head.group(2)]), ranks=_count(head.group(4)))
            head = None
    return found


PARSERS: tuple[tuple[str, Callable[[str], Bandwidth | None]], ...] = (
    ("nccl-tests", parse_nccl_tests),
    ("torch", parse_torch_bench),
)


def parse_output(text: str) -> Bandwidth | None:
    """The result in a benchmark's output, whichever of the known formats it is in; None when none."""
    for _, parse in PARSERS:
        found = parse(text)
        if found is not None:
            return found
    return None
