"""Benchmark `gpu-npd parse --format json` against `grep -cE` with the same keyword prefilter.

    python bench/parse.py [--lines N] [--runs R] [--engine hyperscan|re2|re] [--mix default|keyword]
                          [--baseline DIR]

--baseline DIR also times the gpu-npd of another checkout (e.g. `git archive main | tar -x -C DIR`) in the
same run, so the figures compare before and after on the same (shared, loaded) machine.

Generates (once) a reproducible mixed log in bench/out/, then times whole commands, process start
included, best of R runs, and prints lines/s and the ratio to grep.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from parsers import all_keywords  # noqa: E402


def best_of(cmd: list[str], runs: int, env: dict | None = None) -> tuple[float, bytes]:
    best, out = float("inf"), b""
    for _ in range(runs):
        t0 = time.perf_counter()
        out = subprocess.run(cmd, stdout=subprocess.PIPE, check=False, env=env).stdout
        best = min(best, time.perf_counter() - t0)
    return best, out


def ere(keyword: str) -> str:
    return re.sub(r"([.[\]()*+?{}|^$\\])", r"\\\1", keyword)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--engine", default=None)
    ap.add_argument("--mix", choices=("default", "keyword"), default="default")
    ap.add_argument("--baseline", default=None, help="a checkout of an earlier version to time beside this one")
    args = ap.parse_args()
    log = HERE / "out" / (f"mixed-{args.lines}.log" if args.mix == "default" else f"{args.mix}-{args.lines}.log")
    if not log.exists():
        log.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(HERE / "gen_log.py"), str(log), "--lines", str(args.lines),
                        "--mix", args.mix], check=True)
    size_mb = log.stat().st_size / 1e6
    gpu_npd = shutil.which("gpu-npd") or str(Path(sys.executable).with_name("gpu-npd"))
    env = dict(os.environ)
    if args.engine:
        env["GPU_NPD_MATCHER"] = args.engine
    pattern = "|".join(ere(k) for k in all_keywords())
    t_grep, grep_out = best_of(["grep", "-cE", pattern, str(log)], args.runs)
    t_npd, npd_out = best_of([gpu_npd, "parse", "--format", "json", str(log)], args.runs, env)
    engine = args.engine or _engine()
    print(f"input: {log.name}, {args.lines:,} lines, {size_mb:.0f} MB; grep matched {int(grep_out or 0):,} lines")
    print(f"grep -cE        {t_grep:7.3f} s  {args.lines / t_grep:14,.0f} lines/s")
    findings = npd_out.count(b"\n")
    print(f"gpu-npd parse   {t_npd:7.3f} s  {args.lines / t_npd:14,.0f} lines/s  "
          f"({findings:,} findings, engine {engine})")
    print(f"ratio gpu-npd / grep: {t_npd / t_grep:.2f}x")
    if args.baseline:
        run_old = ("import sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = 'gpu-npd'; "
                   "from agent.cli import main; main()")
        t_old, old_out = best_of([sys.executable, "-c", run_old, args.baseline, "parse", "--format", "json",
                                  str(log)], args.runs, env)
        old_findings = old_out.count(b"\n")
        print(f"baseline parse  {t_old:7.3f} s  {args.lines / t_old:14,.0f} lines/s  "
              f"({old_findings:,} findings; {args.baseline})")
        print(f"ratio baseline / grep: {t_old / t_grep:.2f}x")


def _engine() -> str:
    from parsers import Prefilter

    return Prefilter(all_keywords()).engine


if __name__ == "__main__":
    main()
