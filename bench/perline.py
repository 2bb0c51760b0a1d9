"""Per-line cost of a stream's line through the classifier (`Classifier.read`, what the agent's pipeline and `gpu-npd
parse` call; `classify` in a checkout that predates it) (micro-benchmark, not a test): a keyword line that matches no
rule (dmesg form, and kern.log's syslog form), a repeated storm line (memo hit), a new matching line (distinct
every time, memo miss).

    python bench/perline.py [--n N] [--runs R] [--baseline DIR]

Each measurement runs in a fresh process and counts its CPU time (time.process_time: a shared machine's other
load does not count); best of R.  --baseline DIR times the classifier of another checkout
in the same run, interleaved with this one's, so both see the same load.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CASES = {  # synthetic lines modelled on the bench mix (bench/gen_log.py)
    "keyword line, no rule": lambda i: f"[{1000 + i * 0.01:12.6f}] mlx5_core 0000:5d:00.0: firmware version: 28.39.1002",
    "the same in kern.log": lambda i: f"Nov 25 06:{i // 60 % 60:02d}:{i % 60:02d} gpu-node-1 kernel: "
                                      "mlx5_core 0000:5d:00.0: firmware version: 28.39.1002",
    "repeated storm line": lambda i: f"[{1000 + i * 0.01:12.6f}] NVRM: Xid (PCI:0000:5d:00): 95, pid=1234, name=python3, "
                                     "Uncontained: FBHUB. RST: No, D-RST: No",
    "new matching line": lambda i: f"[{1000 + i * 0.01:12.6f}] NVRM: Xid (PCI:0000:5d:00): 95, pid={i}, name=python3, "
                                   "Uncontained: FBHUB. RST: No, D-RST: No",
    # each line of another kind than the one before and new to the memo: the rows to try come from the keyword scan
    # (Dispatch.candidates), not from the row that matched last
    "mixed kinds, memo miss": lambda i: _mixed(i),
}


def _mixed(i: int) -> str:
    """bench/gen_log.py's error lines whose message holds a number that changes, and its NCCL INFO lines (synthetic,
    modelled on real ones), in turn, in its dmesg and CRI envelopes."""
    sys.path.append(str(HERE))
    from gen_log import ERRORS, NCCL_INFO

    shapes = [t for t in ERRORS if "{p}" in t or "{n}" in t] + NCCL_INFO
    msg = shapes[i % len(shapes)].format(b=0x5d, p=1000 + i, n=i, d=i % 8, r=i % 32, r2=(i + 1) % 32, host="node-7")
    if i % 2:
        return f"2026-11-22T02:00:{i // 1000 % 60:02d}.{i % 1_000_000_000:09d}Z stderr F {msg}"
    return f"[{1000 + i * 0.01:12.6f}] {msg}"


def measure(n: int) -> dict[str, float]:
    from parsers import Classifier

    out = {}
    for name, make in CASES.items():
        lines = [make(i) for i in range(n)]
        c = Classifier()
        read = getattr(c, "read", c.classify)
        read(lines[0])  # warm-up: compiles, first memo entry
        t0 = time.process_time()
        for line in lines:
            read(line)
        out[name] = (time.process_time() - t0) / n * 1e6
    return out


def measure_in(checkout: Path, n: int) -> dict[str, float]:
    """One measurement in a fresh process importing `checkout`'s parsers."""
    code = (f"import sys; sys.path.insert(0, {str(checkout)!r}); __file__ = {str(HERE / 'perline.py')!r}; "
            f"sys.argv = ['x', '--json', '--n', '{n}']; exec(open(__file__).read())")
    return eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                               cwd="/").stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5, help="best of R runs, this checkout and the baseline interleaved")
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.json:
        print(repr(measure(args.n)))
        return
    best: dict[str, dict[str, float]] = {"now": {}, "baseline": {}}
    for _ in range(args.runs):
        for label, checkout in (("now", HERE.parent), ("baseline", args.baseline)):
            if checkout is None:
                continue
            for name, us in measure_in(Path(checkout), args.n).items():
                best[label][name] = min(us, best[label].get(name, us))
    for name, us in best["now"].items():
        extra = f"   baseline {best['baseline'][name]:7.2f} us" if best["baseline"] else ""
        print(f"{name:24s} {us:7.2f} us/line{extra}")


if __name__ == "__main__":
    main()
