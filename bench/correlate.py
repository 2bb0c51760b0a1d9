"""Correlation stays linear: `gpu-npd parse --format json` over fixture-dense logs of growing size.

    python bench/correlate.py [--sizes 10,50,100,200] [--runs R] [--baseline DIR]

Each log (generated once into bench/out/) repeats the messages of the dmesg and NCCL fixtures (real lines,
tests/fixtures/dmesg) in order, re-stamped one second apart per 50 lines, kernel messages in a syslog envelope
and workload messages in a CRI one (the envelopes are synthetic; the messages are the fixtures' own), so node
faults and workload failures (NCCL watchdog timeouts, NET/IB errors) interleave throughout and every failure has
causes in its window to choose from.  Printed per size: the best time, MB/s and seconds per MB relative to the
smallest size (1.00 everywhere: linear).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from parsers import WORKLOAD_KINDS, Classifier, detect  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/checkout.py, also when loaded as a module
from checkout import CLI, compiled  # noqa: E402

RUN_OTHER = CLI  # another checkout's gpu-npd (bench/checkout.py)


def messages() -> list[tuple[str, bool]]:
    """(message, is a workload line) of every fixture line, envelope removed."""
    c = Classifier()
    out = []
    for path in sorted((ROOT / "tests" / "fixtures" / "dmesg").glob("*")):
        if not path.is_file() or path.suffix == ".md":
            continue
        for line in path.read_text(errors="replace").splitlines():
            message = detect(line).message
            if message.strip():
                f = c.classify(line)
                out.append((message, f is not None and f.kind in WORKLOAD_KINDS))
    return out


def generate(path: Path, megabytes: int) -> None:
    msgs = messages()
    start = datetime(2026, 11, 22, tzinfo=timezone.utc)
    limit = megabytes * 1_000_000
    written, i = 0, 0
    with open(path, "w", encoding="utf-8") as fh:
        while written < limit:
            message, workload = msgs[i % len(msgs)]
            t = start + timedelta(seconds=i // 50)
            if workload:
                line = f"{t.strftime('%Y-%m-%dT%H:%M:%S')}.{i % 1_000_000_000:09d}Z stderr F {message}\n"
            else:
                line = f"{t.strftime('%b %d %H:%M:%S')} gpu-node-7 kernel: {message}\n"
            fh.write(line)
            written += len(line.encode())
            i += 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10,50,100,200", help="comma-separated sizes in MB")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--baseline", default=None, help="a checkout of an earlier version to time beside this one")
    args = ap.parse_args()
    compiled(ROOT)
    if args.baseline:
        args.baseline = compiled(args.baseline)
    gpu_npd = shutil.which("gpu-npd") or str(Path(sys.executable).with_name("gpu-npd"))
    first: dict[str, float] = {}
    for mb in (int(s) for s in args.sizes.split(",")):
        log = HERE / "out" / f"dense-{mb}mb.log"
        if not log.exists():
            log.parent.mkdir(parents=True, exist_ok=True)
            generate(log, mb)
        commands = {"gpu-npd": [gpu_npd, "parse", "--format", "json", "--year", "2026", str(log)]}
        if args.baseline:
            commands["baseline"] = [sys.executable, "-c", RUN_OTHER, args.baseline, "parse", "--format", "json",
                                    "--year", "2026", str(log)]
        for name, cmd in commands.items():
            best, out = float("inf"), b""
            for _ in range(args.runs):
                t0 = time.perf_counter()
                out = subprocess.run(cmd, stdout=subprocess.PIPE, check=False).stdout
                best = min(best, time.perf_counter() - t0)
            per_mb = best / mb
            first.setdefault(name, per_mb)
            correlated = out.count(b'"correlation"')
            print(f"{name:9s} {mb:5d} MB  {best:8.2f} s  {mb / best:7.1f} MB/s  s/MB x{per_mb / first[name]:5.2f} of "
                  f"the smallest  ({out.count(b'{') - correlated:,} objects, {correlated} correlation lines)",
                  flush=True)


if __name__ == "__main__":
    main()
