"""A distinct-Xid flood through the agent's pipeline in process: the cost of one record, without the source
thread, the queue or a scrape (bench/agent.py measures the whole process).

    python bench/inprocess.py [--records N] [--runs R] [--ref DIR] [--instructions] [--standing S] [--case C]

Each record is an application Xid 31 from another process on one of 256 GPUs, so every line is new to the
memo and decided afresh (issue 11's distinct-message flood).  --case storm: one fatal Xid 95 line repeated (each
record a repeat the coalescer counts without a decision: the repeat path); --case mix: that Xid every other record,
a benign kernel line between (bench/agent.py storms' three cases, without the process around them).  Prints the best and median CPU time per record
of R runs, each on a fresh agent; --ref DIR measures another checkout alternately in the same invocation.

--standing S first raises S problems that the flood leaves alone (an Xid 79 on each of S other GPUs, outside
the measured part): what a record costs while many problems stand (issue 31's flood stood at 4,096).

--gc-default runs the collector at CPython's default thresholds instead of those `gpu-npd run` sets (the
collections of each generation during the run, and the objects they freed, are printed either way).

--instructions counts instructions per record with valgrind's callgrind instead (N records minus N/6, to leave
start-up out): slow (~40 s), but the same on a loaded shared host, where wall and CPU time swing by 30%.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


STORM_XID = ("NVRM: Xid (PCI:0000:5d:00): 95, pid=2207, name=python3, Uncontained: FBHUB. "
             "RST: Yes, D-RST: No")  # synthetic: modelled on the Xid 95 shape in tests/fixtures/dmesg
CASES = ("distinct", "storm", "mix")


def message(i: int, case: str = "distinct") -> str:
    """Record i's message in each flood (issue 11's; bench/agent.py storms writes the same through the process)."""
    if case == "storm" or case == "mix" and i % 2:
        return STORM_XID
    if case == "mix":
        return f"eth0: benign kernel line {i}"
    return f"NVRM: Xid (PCI:0000:{i % 256:02x}:00): 31, pid={i}, name=python3, Ch 00000008, MMU Fault {i}"


def line(i: int, case: str = "distinct") -> str:
    """Record i as /dev/kmsg gives it (a distinct flood's a millisecond apart, a storm's ten microseconds)."""
    return f"4,{i},{i * (1000 if case == 'distinct' else 10)},-;{message(i, case)}"


def standing(i: int) -> str:
    return f"3,{i},1000,-;NVRM: Xid (PCI:{i + 1:04x}:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


def measure(records: int, runs: int, gc_default: bool = False, stand: int = 0,
            case: str = "distinct") -> tuple[list[float], list[int]]:
    """CPU microseconds per record of each run (in this process: the tree on sys.path), and the collections of
    each generation during the last run and the objects they freed.  The collector runs as under `gpu-npd run`, or with CPython's defaults."""
    import gc
    import time

    from agent import app
    from agent.cli import GC_THRESHOLDS
    from agent.config import load
    from agent.sources import Record

    lines = [line(i, case) for i in range(records)]
    out = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as devnull:
            cfg = load(None, env={"GPU_NPD_STATE_DIR": tmp, "GPU_NPD_MODE": "off", "GPU_NPD_NVML": "off"})
            agent = (app.build if hasattr(app, "build") else app.Agent)(cfg, out=devnull)  # (--ref: older trees)
            batches = [[Record("kmsg", text) for text in lines[i:i + 1024]] for i in range(0, records, 1024)]
            for i in range(0, stand, 1024):
                agent.pipeline.process([Record("kmsg", standing(j)) for j in range(i, min(stand, i + 1024))])
            gc.collect()
            gc.freeze()
            gc.set_threshold(*((700, 10, 10) if gc_default else GC_THRESHOLDS))
            before = [(g["collections"], g["collected"]) for g in gc.get_stats()]
            t0 = time.process_time()
            for batch in batches:
                agent.pipeline.process(batch)
            out.append((time.process_time() - t0) / records * 1e6)
            after = [(g["collections"], g["collected"]) for g in gc.get_stats()]
            collections = [a[0] - b[0] for a, b in zip(after, before)] + [sum(a[1] - b[1] for a, b in zip(after, before))]
            gc.unfreeze()
    return out, collections


def run_in(tree: Path, records: int, runs: int, gc_default: bool = False, valgrind: str | None = None,
           out: str | None = None, stand: int = 0, case: str = "distinct") -> tuple[list[float], list[int]]:
    """`measure` in a fresh process importing `tree`; under callgrind, ([instructions], []) instead."""
    code = (f"import json, sys; sys.path.insert(0, {str(tree)!r}); sys.path.insert(1, {str(HERE)!r}); "
            f"import inprocess; print(json.dumps(inprocess.measure({records}, {runs}, {gc_default}, {stand}, "
            f"{case!r})))")
    cmd = [sys.executable, "-c", code]
    if valgrind:
        cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", *cmd]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=tree)
    if valgrind:
        return [float(re.search(r"Collected : (\d+)", done.stderr).group(1))], []
    times, collections = json.loads(done.stdout.strip().splitlines()[-1])
    return times, collections


def instructions(tree: Path, records: int, stand: int = 0, case: str = "distinct") -> float:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("inprocess: --instructions needs valgrind (apt install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        small = run_in(tree, records // 6, 1, valgrind=valgrind, out=f"{tmp}/small", stand=stand, case=case)[0][0]
        big = run_in(tree, records, 1, valgrind=valgrind, out=f"{tmp}/big", stand=stand, case=case)[0][0]
    return (big - small) / (records - records // 6)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=None, help="default 100,000 (12,000 with --instructions)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ref", default=None, help="another checkout, measured alternately")
    ap.add_argument("--instructions", action="store_true", help="instructions per record (callgrind)")
    ap.add_argument("--standing", type=int, default=0, help="problems standing before the flood (default 0)")
    ap.add_argument("--gc-default", action="store_true", help="the collector at CPython's default thresholds")
    ap.add_argument("--case", choices=CASES, default="distinct",
                    help="distinct Xids (default), one Xid repeated (storm), or it and benign lines (mix)")
    args = ap.parse_args()
    trees = [("this", HERE.parent)] + ([("ref", Path(args.ref).resolve())] if args.ref else [])
    if args.instructions:
        for label, tree in trees:
            n = instructions(tree, args.records or 12_000, args.standing, args.case)
            print(f"{label:>5} {args.case}: {n:,.0f} instructions a record ({tree})")
        return
    times: dict[str, list[float]] = {label: [] for label, _ in trees}
    collections: dict[str, list[int]] = {}
    for _ in range(args.runs):
        for label, tree in trees:
            t, collections[label] = run_in(tree, args.records or 100_000, 1, args.gc_default, stand=args.standing,
                                           case=args.case)
            times[label] += t
    for label, tree in trees:
        t = times[label]
        print(f"{label:>5} {args.case}: best {min(t):.2f} us a record, median {statistics.median(t):.2f} "
              f"({1e6 / min(t):,.0f} records/s of CPU); collections by generation {collections[label][:3]}, freeing {collections[label][3]} objects ({tree})")


if __name__ == "__main__":
    main()
