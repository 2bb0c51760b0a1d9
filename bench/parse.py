"""Benchmark `gpu-npd parse --format json` against `grep -cE` with the same keyword prefilter, side by side.

    python bench/parse.py [--lines N] [--runs R] [--mix default,keyword,hard|none] [--engines hyperscan,re2,re]
                          [--baseline DIR] [--instructions N [--branches]]

Mixes (bench/gen_log.py, generated once into bench/out/): `default` (kernel noise, training output, 0.1% errors),
`keyword` (10% benign vendor-keyword lines, 30% NCCL INFO lines), `hard` (keyword plus 10% of lines in storms of
1,000 identical messages).  Each command runs whole, process start included; the R runs of every command are
interleaved (grep, each engine, the baseline, then again), so a shared machine's load falls on all alike.  Printed:
the best and median wall time, the best CPU time (user + system), lines/s and the ratio to grep of each.

Before the mixes, start-up: `gpu-npd parse` of an empty file and of a small dmesg (an Xid 79), beside `python -c
pass`; rows over STARTUP_LIMIT (0.1 s) are marked OVER.  `--mix none` runs only that.

--baseline DIR also times the gpu-npd of another checkout (e.g. `git archive main | tar -x -C DIR`) in the same
run, with the default engine, so the figures compare before and after on the same machine at the same load.

--instructions N counts instead, with valgrind's callgrind, the instructions of `gpu-npd parse --format json` of
each mix's first N lines, start-up included (what is compiled lazily, on the first line that needs it, is counted
wherever it falls), divided by N, for this checkout and the baseline, each run the same way (bench/checkout.py's
entry point): slow (about 20 s per 100,000 lines), but the same on a loaded shared host, where CPU time swings by
several per cent.  Compare trees at paths of equal length (the interpreter's path strings are part of what it counts).
`--branches` adds callgrind's branch simulation: the mispredicted branches a line (conditional and indirect), the
hash seed fixed.  Instructions alone may undercount a tree that runs more Python bytecodes for as many instructions:
each bytecode is an indirect jump the CPU's predictor may miss, a stall of many cycles (issue 24's hard mix was at
parity by instructions and slower by the clock; CHANGELOG, 0.1.0 Changed, gives both figures before and after its
bytecodes were cut).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from parsers import all_keywords  # noqa: E402
from parsers.prefilter import ENGINES  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/checkout.py, also when loaded as a module
from checkout import CLI, compiled  # noqa: E402

NL = b"\n"
RUN_OTHER = CLI  # another checkout's gpu-npd (bench/checkout.py)


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the child, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=False, env=env).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def installed(engine: str) -> bool:
    from parsers.prefilter import _load

    if engine not in ENGINES:
        return False
    try:
        _load(engine)
    except ImportError:
        return False
    return True


def ere(keyword: str) -> str:
    return re.sub(r"([.[\]()*+?{}|^$\\])", r"\\\1", keyword)


def log_for(mix: str, lines: int) -> Path:
    log = HERE / "out" / f"{mix}-{lines}.log"
    if not log.exists():
        log.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "gen_log.py"), str(log), "--lines", str(lines), "--mix", mix],
                       check=True)
    return log


STARTUP_LIMIT = 0.1  # seconds: `gpu-npd parse` of an empty or a small file, start to exit (issue 29 (4))
SMALL_LOG = HERE.parent / "tests" / "fixtures" / "dmesg" / "xid79-fallen-off-bus.dmesg"  # an Xid: the catalog is read


def startup(gpu_npd: str, args: argparse.Namespace) -> None:
    """Process start to exit on an empty input and on a small log (a dmesg with an Xid 79): what every
    `gpu-npd parse` pays before its first line, and with the tables a real line needs (rule regexes, the
    catalog, the prefilter's cached database).  Rows over STARTUP_LIMIT are marked."""
    empty = HERE / "out" / "empty.log"
    empty.parent.mkdir(parents=True, exist_ok=True)
    empty.write_bytes(b"")
    commands = {"python -c pass": [sys.executable, "-c", "pass"], "gpu-npd parse (empty)": [gpu_npd, "parse", str(empty)],
                "gpu-npd parse (small)": [gpu_npd, "parse", "--nvml", "off", str(SMALL_LOG)]}
    if args.baseline:
        commands["baseline parse (empty)"] = [sys.executable, "-c", RUN_OTHER, args.baseline, "parse", str(empty)]
        commands["baseline parse (small)"] = [sys.executable, "-c", RUN_OTHER, args.baseline, "parse", "--nvml", "off",
                                              str(SMALL_LOG)]
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(max(args.runs, 5)):
        for name, cmd in commands.items():
            wall, cpu, _ = timed(cmd)
            runs[name].append((wall, cpu))
    print(f"\nstart-up (limit {STARTUP_LIMIT} s):")
    for name, measured in runs.items():
        best = min(w for w, _ in measured)
        over = "  OVER" if name.startswith("gpu-npd") and best > STARTUP_LIMIT else ""
        print(f"  {name:24s} best {best:6.3f} s  median {statistics.median(w for w, _ in measured):6.3f} s  "
              f"cpu {min(c for _, c in measured):6.3f} s{over}")


def instructions(tree: str, log: Path, lines: int, branches: bool = False) -> tuple[float, float | None]:
    """Instructions of `tree`'s gpu-npd parse of `log`'s first `lines` lines, start-up included, a line, and with
    `branches` its mispredicted branches a line (callgrind's branch simulation, conditional and indirect: the
    interpreter's dispatch is most of the latter; the hash seed fixed: the counts move with set and dict orders), else
    None."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("parse: --instructions needs valgrind (apt install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        cut = Path(tmp, "cut.log")
        with log.open("rb") as f:
            cut.write_bytes(b"".join(line for line, _ in zip(f, range(lines))))
        done = subprocess.run([valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out"]
                              + (["--branch-sim=yes"] if branches else []) + [sys.executable,
                               "-c", RUN_OTHER, tree, "parse", "--format", "json", str(cut)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
                              env=dict(os.environ, PYTHONHASHSEED="0") if branches else None)
    counted = re.search(r"Collected : (\d+)(?: (\d+) (\d+) (\d+) (\d+))?", done.stderr)
    if done.returncode != 0 or counted is None or (branches and counted.group(2) is None):
        last = ([line for line in done.stderr.splitlines() if line.strip() and not line.startswith("==")]
                or ["no output"])[-1]  # the program's own last words, not valgrind's summary
        raise SystemExit(f"parse: callgrind of {tree}'s gpu-npd parse failed (exit {done.returncode}): {last}")
    missed = (int(counted.group(3)) + int(counted.group(5))) / lines if branches else None  # (Ir Bc Bcm Bi Bim)
    return int(counted.group(1)) / lines, missed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mix", default="default,keyword,hard",
                    help="comma-separated: default, keyword, hard; none: the start-up rows only")
    # every engine the prefilter has, `re` too (the fallback where neither wheel installs): each its own row
    ap.add_argument("--engines", default=",".join(ENGINES), help=f"comma-separated: {', '.join(ENGINES)}")
    ap.add_argument("--baseline", default=None, help="a checkout of an earlier version to time beside this one")
    ap.add_argument("--instructions", type=int, default=None, metavar="N",
                    help="instructions a line of each mix's first N lines (callgrind) instead of times")
    ap.add_argument("--branches", action="store_true",
                    help="with --instructions: mispredicted branches a line too (callgrind's branch simulation)")
    args = ap.parse_args()
    compiled(HERE.parent)
    if args.baseline:
        args.baseline = compiled(args.baseline)
    if args.instructions:
        trees = [("this", str(HERE.parent))] + ([("baseline", args.baseline)] if args.baseline else [])
        print(f"instructions a line (callgrind), each mix's first {args.instructions:,} lines, start-up included"
              + ("; mispredicted branches a line (its branch simulation, PYTHONHASHSEED=0)" if args.branches else ""))
        for mix in [] if args.mix == "none" else args.mix.split(","):
            counted = {label: instructions(tree, log_for(mix, args.lines), args.instructions, args.branches)
                       for label, tree in trees}
            ratio = ""
            if args.baseline:
                (n, m), (n0, m0) = counted["this"], counted["baseline"]
                ratio = f"  x{n / n0:.3f}" + (f" / x{m / m0:.3f}" if m is not None else "") + " baseline"
            said = [f"{label} {n:,.0f}" + (f" ({m:,.1f} mispredicted)" if m is not None else "")
                    for label, (n, m) in counted.items()]
            print(f"  {mix:8s} " + "  ".join(said) + ratio)
        return
    gpu_npd = shutil.which("gpu-npd") or str(Path(sys.executable).with_name("gpu-npd"))
    pattern = "|".join(ere(k) for k in all_keywords())
    print(f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs; best of {args.runs}, interleaved")
    startup(gpu_npd, args)
    for mix in [] if args.mix == "none" else args.mix.split(","):
        log = log_for(mix, args.lines)
        commands: dict[str, tuple[list[str], dict | None]] = {"grep -cE": (["grep", "-cE", pattern, str(log)], None)}
        for engine in args.engines.split(","):
            if not installed(engine):
                print(f"({engine} is not installed here: not timed)")
                continue
            commands[f"gpu-npd ({engine})"] = ([gpu_npd, "parse", "--format", "json", str(log)],
                                               dict(os.environ, GPU_NPD_MATCHER=engine))
        if args.baseline:
            commands["baseline (default)"] = ([sys.executable, "-c", RUN_OTHER, args.baseline, "parse", "--format",
                                               "json", str(log)], None)
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        outputs: dict[str, bytes] = {}
        for _ in range(args.runs):
            for name, (cmd, env) in commands.items():
                wall, cpu, out = timed(cmd, env)
                runs[name].append((wall, cpu))
                outputs[name] = out
        print(f"\n{mix}: {log.name}, {args.lines:,} lines, {log.stat().st_size / 1e6:.0f} MB; "
              f"grep matched {int(outputs['grep -cE'] or 0):,} lines")
        grep_best = min(w for w, _ in runs["grep -cE"])
        grep_cpu = min(c for _, c in runs["grep -cE"])
        for name, measured in runs.items():
            best = min(w for w, _ in measured)
            cpu = min(c for _, c in measured)
            emitted = outputs[name].count(NL)
            findings = "" if name.startswith("grep") else f"  {emitted:,} lines out"
            print(f"  {name:20s} best {best:6.3f} s  median {statistics.median(w for w, _ in measured):6.3f} s  "
                  f"cpu {cpu:6.3f} s  {args.lines / best:12,.0f} lines/s  x{best / grep_best:5.2f} grep "
                  f"(cpu x{cpu / grep_cpu:5.2f}){findings}")


if __name__ == "__main__":
    main()
