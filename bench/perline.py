"""Per-line cost of `Classifier.classify` (micro-benchmark, not a test): a keyword line that matches no
rule, a repeated storm line (memo hit), a new matching line (distinct every time, memo miss).

    python bench/perline.py [--n N] [--baseline DIR]

--baseline DIR times the classifier of another checkout in the same run (a subprocess).
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
    "repeated storm line": lambda i: f"[{1000 + i * 0.01:12.6f}] NVRM: Xid (PCI:0000:5d:00): 95, pid=1234, name=python3, "
                                     "Uncontained: FBHUB. RST: No, D-RST: No",
    "new matching line": lambda i: f"[{1000 + i * 0.01:12.6f}] NVRM: Xid (PCI:0000:5d:00): 95, pid={i}, name=python3, "
                                   "Uncontained: FBHUB. RST: No, D-RST: No",
}


def measure(n: int) -> dict[str, float]:
    from parsers import Classifier

    out = {}
    for name, make in CASES.items():
        lines = [make(i) for i in range(n)]
        c = Classifier()
        c.classify(lines[0])  # warm-up: compiles, first memo entry
        t0 = time.perf_counter()
        for line in lines:
            c.classify(line)
        out[name] = (time.perf_counter() - t0) / n * 1e6
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--baseline", default=None)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.json:
        print(repr(measure(args.n)))
        return
    now = measure(args.n)
    old = None
    if args.baseline:
        code = f"import sys; __file__ = {str(HERE / 'perline.py')!r}; sys.path.insert(0, {args.baseline!r}); sys.argv = ['x', '--json', '--n', '{args.n}']; " \
               f"exec(open({str(HERE / 'perline.py')!r}).read())"
        old = eval(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                  cwd="/").stdout)
    for name, us in now.items():
        extra = f"   baseline {old[name]:7.2f} us" if old else ""
        print(f"{name:24s} {us:7.2f} us/line{extra}")


if __name__ == "__main__":
    main()
