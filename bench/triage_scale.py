"""Benchmark `gpu-npd triage` on a large failed job, side by side with `gpu-npd parse` on the same files.

    python bench/triage_scale.py [--ranks N] [--lines L] [--runs R] [--shapes per-rank,interleaved] [--baseline DIR]

The job (generated once into bench/out/): N ranks, L lines each, in the formats of the real incidents in
tests/fixtures/incidents (torchrun's `[rankN]:` prefix, Megatron-LM's iteration lines, NCCL INFO chatter as with
NCCL_DEBUG=INFO, NCCL's `host:pid:tid [dev]` prefix); at its end every rank but one reports PyTorch's watchdog
timeout in the same ALLREDUCE SeqNum, and the lagging rank (N/2 - 1) reports nothing.  Synthetic volume in real
formats: a benchmark input, not evidence (no fixture is made of it).  Two shapes:

- `per-rank`: one file per rank (`rank<N>.log`), what a per-pod log collection gives;
- `interleaved`: one launcher output (`slurm.out`) with every rank's lines interleaved behind Slurm's `srun -l`
  label (`12: `) and torchrun's `[rank12]:`: the hard case, where every line carries prefixes to read.

A fleet's job is `--ranks 1024` (`--lines 2000`: 2 million lines a shape); a directory of many small files is
`--ranks 20000 --lines 10 --shapes per-rank`.  Each command runs whole, process start included; the R runs are interleaved (triage, parse, the baseline's
triage, then again), so a shared machine's load falls on all alike.  Printed per shape: best and median wall time,
best CPU time, lines/s, peak RSS, the ratio to parse, the JSON document's size, and whether triage named the lagging
rank (a run that does not
is marked WRONG).  `--baseline DIR` also times the triage of another checkout (e.g. `git worktree add DIR main`);
triage runs with its default `--jobs` (the CPUs this process may use: per-rank files are read by that many worker
processes, the one interleaved file by one), and `--serial` also times this tree's `--jobs 1`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# bench/checkout.py, also when a test loads this file as a module; taken off the path again, where bench/agent.py would
# shadow the agent package for whatever that process imports next (tests/triage then docs/hooks: an order-dependent
# ImportError)
sys.path.insert(0, str(HERE))
try:
    from checkout import CLI, compiled  # noqa: E402
finally:
    sys.path.remove(str(HERE))
OUT = HERE / "out"
# run a checkout's CLI from its tree, and report the process's own peak RSS on stderr (KiB, Linux ru_maxrss)
RUN = ("import atexit, resource, sys; "
       "atexit.register(lambda: print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
       "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)); " + CLI)
SEQ = 7219


def host(rank: int) -> str:
    return f"gpu-node-{rank // 8:03d}"


def body(rank: int, i: int) -> str:
    """Line i of a rank's output (without a launcher prefix): NCCL INFO chatter one line in five, else progress."""
    if i % 5 == 0:
        return (f"{host(rank)}:{4000 + rank % 8}:{5000 + rank % 8} [{rank % 8}] NCCL INFO Channel {i % 32:02d}/0 : "
                f"{rank}[{rank % 8}] -> {rank + 1}[{(rank + 1) % 8}] via P2P/CUMEM/read")
    return (f" iteration {i:>8}/ 1000000 | consumed samples: {i * 512:>12} | elapsed time per iteration (ms): "
            f"{1200 + (i * 7 + rank) % 90}.{i % 10} | learning rate: 1.000E-04 | global batch size:   512 | "
            f"lm loss: {2 + (i % 997) / 1000:.6E} |")


def timeout(rank: int) -> str:
    return (f"[E918 19:29:{24 + rank % 30:02d}.436955737 ProcessGroupNCCL.cpp:689] [Rank {rank}] Watchdog caught "
            f"collective operation timeout: WorkNCCL(SeqNum={SEQ}, OpType=ALLREDUCE, NumelIn=64, NumelOut=64, "
            "Timeout(ms)=600000) ran for 600097 milliseconds before timing out.")


def generate(shape: str, ranks: int, lines: int) -> tuple[Path, int]:
    """The job's directory (made once) and its line count."""
    where = OUT / f"triage-{shape}-{ranks}x{lines}"
    lagging = ranks // 2 - 1
    total = ranks * lines + ranks - 1
    if (where / ".done").exists():
        return where, total
    where.mkdir(parents=True, exist_ok=True)
    if shape == "per-rank":
        for r in range(ranks):
            with open(where / f"rank{r}.log", "w") as fh:
                fh.writelines(f"[rank{r}]:{body(r, i)}\n" for i in range(lines))
                if r != lagging:
                    fh.write(f"[rank{r}]:{timeout(r)}\n")
    else:
        width = len(str(ranks - 1))
        with open(where / "slurm.out", "w") as fh:
            for i in range(lines):
                fh.writelines(f"{r:>{width}}: [rank{r}]:{body(r, i)}\n" for r in range(ranks))
            fh.writelines(f"{r:>{width}}: [rank{r}]:{timeout(r)}\n" for r in range(ranks) if r != lagging)
    (where / ".done").touch()
    return where, total


def timed(tree: Path, args: list[str]) -> tuple[float, float, int, bytes, int]:
    """(wall s, CPU s, peak RSS KiB, stdout, the largest worker process's peak RSS KiB) of `gpu-npd ARGS` run from
    `tree` (CPU counts its workers' too)."""
    import resource  # noqa: PLC0415

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUN, str(tree), *args], capture_output=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rss = [[int(n) for n in line.split()[1:]] for line in done.stderr.decode(errors="replace").splitlines()
           if line.startswith("MAXRSS ")]
    return wall, cpu, rss[-1][0] if rss else 0, done.stdout, rss[-1][1] if rss else 0


def named_lagging(out: bytes, lagging: int) -> bool:
    try:
        first = json.loads(out)["incidents"][0]
    except (ValueError, KeyError, IndexError):
        return False
    return first["root"]["rank"] == lagging


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=128)
    ap.add_argument("--lines", type=int, default=20_000, help="lines per rank")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--shapes", default="per-rank,interleaved")
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout, its triage timed alike")
    ap.add_argument("--serial", action="store_true", help="also time this tree's triage --jobs 1")
    a = ap.parse_args()
    trees = [("triage", HERE.parent)] + ([("baseline triage", a.baseline.resolve())] if a.baseline else [])
    for _, tree in trees:
        compiled(tree)
    lagging = a.ranks // 2 - 1
    for shape in a.shapes.split(","):
        where, total = generate(shape, a.ranks, a.lines)
        files = sorted(str(p) for p in where.iterdir() if p.suffix in (".log", ".out"))
        size = sum(Path(f).stat().st_size for f in files)
        commands = [(label, tree, ["triage", "--format", "json", str(where)]) for label, tree in trees]
        commands.insert(1, ("parse (reference)", HERE.parent, ["parse", "--format", "json", *files]))
        if a.serial:
            commands.insert(1, ("triage --jobs 1", HERE.parent, ["triage", "--jobs", "1", "--format", "json",
                                                                 str(where)]))
        results: dict[str, list] = {label: [] for label, _, _ in commands}
        for _ in range(a.runs):
            for label, tree, args in commands:
                results[label].append(timed(tree, args))
        print(f"{shape}: {a.ranks} ranks x {a.lines:,} lines = {total:,} lines, {size / 2**20:.0f} MiB "
              f"(lagging rank {lagging}; {len(files)} file(s), {_cpus()} CPU(s) for triage's workers)")
        ref = min(r[0] for r in results["parse (reference)"])
        for label, runs in results.items():
            best = min(r[0] for r in runs)
            verdict = "" if "triage" not in label else \
                ("  names the lagging rank" if all(named_lagging(r[3], lagging) for r in runs) else "  WRONG")
            workers = max(r[4] for r in runs)
            print(f"  {label:<18} best {best:7.2f} s  median {statistics.median(r[0] for r in runs):7.2f} s  "
                  f"CPU {min(r[1] for r in runs):7.2f} s  {total / best:>12,.0f} lines/s  "
                  f"RSS {max(r[2] for r in runs) / 1024:6.0f} MiB  {best / ref:6.1f}x parse  "
                  f"out {max(len(r[3]) for r in runs) / 1024:6.0f} KiB{verdict}"
                  + (f" (workers' RSS {workers / 1024:.0f} MiB each)" if workers else ""))


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


if __name__ == "__main__":
    main()
