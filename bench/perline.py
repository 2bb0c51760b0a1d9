"""Per-line cost of a stream's line through the classifier (`Classifier.read`, what the agent's pipeline and `gpu-npd
parse` call; `classify` in a checkout that predates it) (micro-benchmark, not a test): a keyword line that matches no
rule (dmesg form, kern.log's syslog form and dmesg -T's), a repeated storm line (memo hit), a new matching line (distinct
every time, memo miss), lines of kinds in turn (each new to the memo).

    python bench/perline.py [--n N] [--runs R] [--baseline DIR] [--instructions]

Each measurement runs in a fresh process and counts its CPU time (time.process_time: a shared machine's other
load does not count); best of R.  Every case's lines are made before any is read, and each case's lazily derived
tables (the keyword scan, the rows' gates and plans) are derived by another classifier reading lines of its shape
first: the clock counts reading alone, on a classifier whose memo is empty.  --baseline DIR times the classifier
of another checkout in the same run, interleaved with this one's, so both see the same load.

--instructions counts instead, with valgrind's callgrind, the instructions a line of each case (N lines, default
20,000; one run a tree): a dump before and after each case's reading, so that making the lines, the start-up and
the warm-up are outside what is counted; the same on a loaded host (compare trees at paths of equal length: the
interpreter's path strings are part of what it counts).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent

CASES = {  # synthetic lines modelled on the bench mix (bench/gen_log.py)
    "keyword line, no rule": lambda i: f"[{1000 + i * 0.01:12.6f}] mlx5_core 0000:5d:00.0: firmware version: 28.39.1002",
    "the same in kern.log": lambda i: f"Nov 25 06:{i // 60 % 60:02d}:{i % 60:02d} gpu-node-1 kernel: "
                                      "mlx5_core 0000:5d:00.0: firmware version: 28.39.1002",
    "the same in dmesg -T": lambda i: f"[Mon Nov 30 23:{i // 60 % 60:02d}:{i % 60:02d} 2026] "
                                      "mlx5_core 0000:5d:00.0: firmware version: 28.39.1002",
    "repeated storm line": lambda i: f"[{1000 + i * 0.01:12.6f}] NVRM: Xid (PCI:0000:5d:00): 95, pid=1234, name=python3, "
                                     "Uncontained: FBHUB. RST: No, D-RST: No",
    "new matching line": lambda i: f"[{1000 + i * 0.01:12.6f}] NVRM: Xid (PCI:0000:5d:00): 95, pid={i}, name=python3, "
                                   "Uncontained: FBHUB. RST: No, D-RST: No",
    # each line of another kind than the one before and new to the memo: the rows to try come from the keyword scan
    # (Dispatch.candidates), not from the row that matched last
    "mixed kinds, memo miss": lambda i: _mixed(i),
}


WARM = 5_000  # lines of each case's shape (after its measured ones) read first by another classifier: past
# KeywordScan.FIRST_TEXTS, so the scan and what the lines reach of the rows are derived before the clock starts


@cache
def _shapes() -> list[str]:
    sys.path.append(str(HERE))
    from gen_log import ERRORS, NCCL_INFO

    return [t for t in ERRORS if "{p}" in t or "{n}" in t] + NCCL_INFO


def _mixed(i: int) -> str:
    """bench/gen_log.py's error lines whose message holds a number that changes, and its NCCL INFO lines (synthetic,
    modelled on real ones), in turn, in its dmesg and CRI envelopes."""
    shapes = _shapes()
    msg = shapes[i % len(shapes)].format(b=0x5d, p=1000 + i, n=i, d=i % 8, r=i % 32, r2=(i + 1) % 32, host="node-7")
    if i % 2:
        return f"2026-11-22T02:00:{i // 1000 % 60:02d}.{i % 1_000_000_000:09d}Z stderr F {msg}"
    return f"[{1000 + i * 0.01:12.6f}] {msg}"


def measure(n: int, mark=lambda: None) -> dict[str, float]:
    """CPU time a line of each case (us), `mark()` called right before and right after each case's reading."""
    from parsers import Classifier

    def reader():
        c = Classifier()
        return getattr(c, "read", None) or c.classify

    cases = {name: [make(i) for i in range(n)] for name, make in CASES.items()}  # every line made before any is read
    out = {}
    for name, lines in cases.items():
        warm = reader()
        for i in range(n, n + WARM):
            warm(CASES[name](i))
        read = reader()
        mark()
        t0 = time.process_time()
        for line in lines:
            read(line)
        out[name] = (time.process_time() - t0) / n * 1e6
        mark()
    return out


def _code(checkout: Path, *args: str) -> str:
    return (f"import sys; sys.path.insert(0, {str(checkout)!r}); __file__ = {str(HERE / 'perline.py')!r}; "
            f"sys.argv = ['x', {', '.join(map(repr, args))}]; exec(open(__file__).read())")


def measure_in(checkout: Path, n: int) -> dict[str, float]:
    """One measurement in a fresh process importing `checkout`'s parsers."""
    return eval(subprocess.run([sys.executable, "-c", _code(checkout, "--json", "--n", str(n))], capture_output=True,
                               text=True, check=True, cwd="/").stdout)


def instructions_in(checkout: Path, n: int) -> dict[str, float]:
    """Instructions a line of each case, `checkout`'s parsers under callgrind: `measure`'s marks are
    os.sched_yield calls, each a dump (--dump-before), so the even dumps hold each case's reading alone."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("perline: --instructions needs valgrind (apt install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/cg", "--dump-before=sched_yield",
                               sys.executable, "-c", _code(checkout, "--json", "--n", str(n), "--mark")],
                              capture_output=True, text=True, cwd="/", env={**os.environ, "PYTHONHASHSEED": "0"})
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"perline: callgrind of {checkout}'s classifier failed (exit {done.returncode}): {last}")
        counted = [int(re.search(r"^totals: (\d+)", Path(f"{tmp}/cg.{k}").read_text(), re.M).group(1))
                   for k in range(2, 2 * len(CASES) + 1, 2)]
    return {name: count / n for name, count in zip(CASES, counted)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=None, help="lines a case (default 100,000; 20,000 with --instructions)")
    ap.add_argument("--runs", type=int, default=5, help="best of R runs, this checkout and the baseline interleaved")
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--instructions", action="store_true", help="instructions a line of each case (callgrind)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--mark", action="store_true", help=argparse.SUPPRESS)  # (callgrind's dumps: instructions_in)
    args = ap.parse_args()
    if args.json:
        print(repr(measure(args.n, os.sched_yield if args.mark else (lambda: None))))
        return
    trees = [("now", HERE.parent)] + ([("baseline", Path(args.baseline))] if args.baseline else [])
    best: dict[str, dict[str, float]] = {"now": {}, "baseline": {}}
    if args.instructions:
        n = args.n or 20_000
        print(f"instructions a line (callgrind), {n:,} lines a case, their reading alone")
        for label, checkout in trees:
            best[label] = instructions_in(checkout, n)
        unit, short, width, digits = "instructions/line", "", 9, 0
    else:
        for _ in range(args.runs):
            for label, checkout in trees:
                for name, us in measure_in(checkout, args.n or 100_000).items():
                    best[label][name] = min(us, best[label].get(name, us))
        unit, short, width, digits = "us/line", " us", 7, 2
    for name, figure in best["now"].items():
        extra = f"   baseline {best['baseline'][name]:{width},.{digits}f}{short}" if best["baseline"] else ""
        print(f"{name:24s} {figure:{width},.{digits}f} {unit}{extra}")


if __name__ == "__main__":
    main()
