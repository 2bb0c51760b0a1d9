"""Pod log throughput: eight ranks printing training output at 50 MB/s in total, followed by the
pod log source (discovery, reads, prefilter, classification of the few keyword lines).

    python bench/podlogs.py [--mb-per-s 50] [--seconds 10]
    python bench/podlogs.py --lines 800000 [--runs 5] [--baseline DIR]     # fixed work: CPU seconds per line
    python bench/podlogs.py ... --mix fixtures     # real lines of tests/fixtures instead of the synthetic mix
    python bench/podlogs.py --lines 200000 --follow 50 [--runs 5] [--baseline DIR]  # the follow loop: CPU per line
    python bench/podlogs.py --lines 40000 --follow 4 --mix tracebacks --every 20 --baseline DIR  # tracebacks' worst

The writers run in a separate process; the figure is the reader's own CPU (this process).

The synthetic mix (the default, the figure earlier runs report): 80% one JSON metrics line per step (`{"step": N, "rank":
r, "loss": ...}`: progress keywords, yet no trainer's progress line), 20% `NCCL INFO Channel` lines, one NCCL watchdog
timeout in 10,000.  It has no line a progress rule reads, no tqdm bar, no NCCL start-up but its channel lines.
--mix fixtures writes real lines instead (and the same watchdog timeouts): half of them every trainer's progress lines
(tests/fixtures/progress but the hangs': tqdm bars, Trainer dicts, Megatron, nanoGPT, ...), half the workload logs of healthy runs
(tests/fixtures/realworld/healthy: NCCL INFO start-up, nccl-tests, MLPerf logs), each rank from its own place in them.
--mix tracebacks writes a rank's traceback every --every N lines (a retry loop's, or `logger.exception`'s): the
TRACEBACK_LINES (13) real lines of huggingface/accelerate #3206's rank 1 traceback after N - 13 JSON metrics lines;
followed a few lines a turn (--follow 4) it is the traceback reader's worst case, each of its windows read in many
small reads.

With --lines N the work is fixed, whatever the wall time: the same eight files (N lines in all, the writer's lines,
its seed) are written once, then read from their start to their end by a fresh process per run (the pod log source's
discover and polls, as its thread loops them; its import not counted), its CPU time (time.process_time) divided by
the lines read; best of R.  --baseline DIR reads the same files with another checkout's source in the same run,
interleaved with this one's, so two trees compare by CPU per line under the same load.

With --follow K the same lines are followed as they are written: the reader (one process, its writes to the eight
files not counted in its CPU) appends K lines to each file, then runs one turn of the source's loop
(`PodLogSource.turn`, the one `run` loops: a discovery every 2 s of the turns' time, counted as 0.25 s a turn, the
offsets snapshot taken with nothing in flight, a poll, the snapshot sent with a batch that found something, taken by
the pipeline at once, a save every 2 s), and so on to the end: the loop's own cost per turn (discovery, stat,
snapshot, save) counted against K lines a file, as when eight pods print a few thousand lines a second.  A checkout
whose source has no `turn` is not compared (said; the others' figures still printed).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0] = str(ROOT)

from agent.sources.podlogs import PodLogSource  # noqa: E402

WRITER = r'''
import os, random, sys, time
root, rate, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
fixed = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] != "-" else None  # lines per file: at once, no rate
corpus = open(sys.argv[5], "rb").read().split(b"\n") if len(sys.argv) > 5 else None  # --mix fixtures, tracebacks
random.seed(7)
files = []
for r in range(8):
    d = os.path.join(root, f"train_llama-worker-{r}_00000000-0000-4000-8000-00000000000{r}", "pytorch")
    os.makedirs(d, exist_ok=True)
    files.append(open(os.path.join(d, "0.log"), "ab", buffering=0))
def block(rank):
    out = []
    for i in range(9000 if corpus is None else len(corpus)):
        ts = "2024-07-25T06:36:02.%09dZ" % i
        x = random.random()
        if corpus is not None and x < 0.9999:
            out.append(b"%s stdout F %s" % (ts.encode(), corpus[(i + rank * len(corpus) // 8) % len(corpus)]))
        elif x < 0.80:
            out.append(('%s stdout F {"step": %d, "rank": %d, "loss": %.4f, "lr": 0.00015, "tokens_per_s": %d}' % (ts, i, rank, random.random() * 3, random.randint(3000, 4000))).encode())
        elif x < 0.9999:
            out.append(("%s stdout F node-1:178:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (ts, 800 + rank, rank, i % 32, rank, rank, (rank + 1) % 8, (rank + 1) % 8)).encode())
        else:
            out.append(("%s stderr F [rank%d]:[E ProcessGroupNCCL.cpp:563] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out." % (ts, rank, rank, i)).encode())
    return b"\n".join(out) + b"\n"
blocks = [block(r) for r in range(8)]
if fixed is not None:
    errors = 0
    for r, f in enumerate(files):
        lines = blocks[r].splitlines(keepends=True)
        data = b"".join(lines * (fixed // len(lines)) + lines[:fixed % len(lines)])
        f.write(data)
        errors += data.count(b"Watchdog caught")
    print(8 * fixed, errors)
    sys.exit(0)
per_rank = rate / 8
t0 = time.monotonic(); written = 0; errors = 0
while time.monotonic() - t0 < seconds:
    for r, f in enumerate(files):
        f.write(blocks[r])
        written += len(blocks[r])
        errors += blocks[r].count(b"Watchdog caught")
    ahead = written / rate - (time.monotonic() - t0)
    if ahead > 0:
        time.sleep(ahead)
print(written, errors)
'''


# one fixed-work run, in a fresh process of a checkout (argv: checkout, pod log root): its JSON figures
READER = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
from agent.sources.podlogs import PodLogSource
src = PodLogSource(sys.argv[2], from_start=True)
cpu0 = time.process_time()
src.discover()
found = 0
while True:
    before = src.bytes_read
    items = src.poll()
    getattr(src, "take_progress", lambda: None)()  # (a checkout before progress tracking has none)
    found += len(items)
    if not items and src.bytes_read == before:
        break
cpu = time.process_time() - cpu0
print(json.dumps({"cpu": cpu, "lines": src.lines, "bytes": src.bytes_read, "findings": found}))
'''


# --follow: the files' lines (argv: checkout, pod log root, state dir, K) appended K a file at a time, one turn of the
# source's loop after each append (`PodLogSource.turn`, as `run` calls it; its writes not counted): its JSON figures
FOLLOWER = r'''
import inspect, json, os, sys, time
sys.path.insert(0, sys.argv[1])
from agent.sources.podlogs import PodLogSource
from agent.state import StateStore
src_root, root, k = sys.argv[2], sys.argv[3], int(sys.argv[5])
files = []
for d in sorted(os.listdir(src_root)):
    c = os.path.join(d, "pytorch")
    os.makedirs(os.path.join(root, c))
    files.append((open(os.path.join(src_root, c, "0.log"), "rb").read().splitlines(keepends=True),
                  open(os.path.join(root, c, "0.log"), "ab", buffering=0)))
# (its saved offsets: a store, or, before the store (14e57b9), the state directory itself)
saved = sys.argv[4] if "state_dir" in inspect.signature(PodLogSource).parameters else \
    StateStore(sys.argv[4], "podlogs.json")
src = PodLogSource(root, saved, from_start=True)
if not hasattr(src, "turn"):
    print("its PodLogSource has no turn (one turn of its loop): --follow compares checkouts that have it",
          file=sys.stderr)
    sys.exit(3)  # NO_TURN
cpu = snap = 0.0  # (snap: of cpu, the offsets snapshots')
snapshot = PodLogSource._snapshot


def timed(self):
    global snap
    s0 = time.process_time()
    try:
        return snapshot(self)
    finally:
        snap += time.process_time() - s0


PodLogSource._snapshot = timed  # (timed only: the loop is the source's own; the class's: its slots take no method)
found = turns = 0


def emit(batch):  # the pipeline takes each batch at once
    global found
    found += len(batch.items)
    batch.done()


at = 0
while at < len(files[0][0]):
    for lines, out in files:
        out.write(b"".join(lines[at:at + k]))
    at += k
    cpu0 = time.process_time()
    src.turn(emit, turns * 0.25)  # (0.25 s a turn: discovered and saved every 2 s of them, as the loop does)
    turns += 1
    cpu += time.process_time() - cpu0
print(json.dumps({"cpu": cpu, "lines": src.lines, "bytes": src.bytes_read, "findings": found, "turns": turns,
                  "snapshot": snap}))
'''


FIXTURES = ROOT / "tests" / "fixtures"
TRACEBACK_LOG = FIXTURES / "incidents" / "accelerate-3206-rng-state" / "logs" / "train.log"  # --mix tracebacks
TRACEBACK_LINES = 13  # its first lines: rank 1's traceback, frames then its RuntimeError
NO_TURN = 3  # FOLLOWER's exit status for a checkout whose source has no `turn`: that tree is left out, said


def fixture_lines() -> list[bytes]:
    """--mix fixtures: the real lines written, as bytes (a healthy log is not all UTF-8), half progress lines
    (tests/fixtures/progress, repeated to half; the hangs' logs left out, their watchdog timeouts), half healthy
    workload logs (tests/fixtures/realworld/healthy, its kernel logs left out), interleaved."""
    progress = [line for f in sorted((FIXTURES / "progress").glob("*.log")) if not f.name.startswith("hang_")
                for line in f.read_bytes().splitlines()]
    healthy = [line for f in sorted((FIXTURES / "realworld" / "healthy").glob("*.log")) if "dmesg" not in f.name
               for line in f.read_bytes().splitlines()]
    progress = (progress * (len(healthy) // len(progress) + 1))[:len(healthy)]
    return [line for pair in zip(progress, healthy) for line in pair]


def traceback_lines(every: int) -> list[bytes]:
    """--mix tracebacks: a rank's traceback every `every` lines, as a retry loop or `logger.exception` prints one:
    the TRACEBACK_LINES real lines of rank 1's traceback in huggingface/accelerate #3206 (tests/fixtures/incidents/
    accelerate-3206-rng-state, frames then its RuntimeError), after `every` - TRACEBACK_LINES of the synthetic mix's
    JSON metrics lines (constructed, as WRITER's)."""
    traceback = TRACEBACK_LOG.read_bytes().splitlines()[:TRACEBACK_LINES]
    metrics = [b'{"step": %d, "rank": 1, "loss": 1.%04d, "lr": 0.00015, "tokens_per_s": 3500}' % (i, i)
               for i in range(max(every - len(traceback), 0))]
    return metrics + traceback


def write_corpus(tmp: str, mix: str, every: int = 50) -> list[str]:
    """The writer's extra argument for `mix`: a file of its lines, or none for the synthetic mix."""
    if mix == "synthetic":
        return []
    path = Path(tmp) / "corpus.txt"
    path.write_bytes(b"\n".join(fixture_lines() if mix == "fixtures" else traceback_lines(every)))
    return [str(path)]


def fixed(lines: int, runs: int, baseline: str | None, mix: str = "synthetic", follow: int | None = None,
          every: int = 50) -> None:
    """--lines: the same files read by each checkout, CPU per line, best of `runs`, interleaved (--follow: followed as
    they are written, `follow` lines a file a turn)."""
    import json

    trees = {"this tree": str(ROOT), **({"baseline": str(Path(baseline).resolve())} if baseline else {})}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "pods"
        root.mkdir()
        writer = subprocess.run([sys.executable, "-c", WRITER, str(root), "0", "0", str(lines // 8),
                                 *write_corpus(tmp, mix, every)], capture_output=True, text=True, check=True)
        written, expected = map(int, writer.stdout.split())
        best: dict[str, dict] = {}
        for _ in range(runs):
            for name, tree in list(trees.items()):
                with tempfile.TemporaryDirectory() as run_dir:
                    argv = [READER, tree, str(root)] if follow is None else \
                        [FOLLOWER, tree, str(root), str(Path(run_dir) / "pods"), run_dir, str(follow)]
                    out = subprocess.run([sys.executable, "-c", *argv], capture_output=True, text=True, check=False,
                                         cwd=tree)
                if follow is not None and out.returncode == NO_TURN and name != "this tree":
                    print(f"  {name}: not compared, {out.stderr.strip()}  [{tree}]")
                    del trees[name]
                    continue
                if out.returncode != 0:
                    raise SystemExit(f"the reader of {tree} failed:\n{out.stderr.strip()}")
                got = json.loads(out.stdout)
                if name not in best or got["cpu"] < best[name]["cpu"]:
                    best[name] = got
    how = "read from start to end" if follow is None else \
        f"followed {follow} lines a file a turn ({best['this tree']['turns']} turns)"
    print(f"{written} lines ({best['this tree']['bytes'] / 1e6:.0f} MB, {mix} mix) in 8 pod logs, {expected} timeout lines"
          f"{f', a traceback every {every} lines' if mix == 'tracebacks' else ''}; "
          f"{how}, best of {runs}")
    for name, got in best.items():
        snap = f"; the offsets snapshots {got['snapshot'] / got['turns'] * 1e6:.1f} us a turn" if follow else ""
        print(f"  {name:9} {got['cpu']:.3f} s CPU for {got['lines']} lines = {got['cpu'] / got['lines'] * 1e6:.3f} "
              f"us per line ({got['findings']} findings{snap})  [{trees[name]}]")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb-per-s", type=float, default=50)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--lines", type=int, default=None, help="fixed work: N lines written once, then read (CPU per line)")
    ap.add_argument("--runs", type=int, default=5, help="with --lines: best of R runs, the trees interleaved")
    ap.add_argument("--baseline", default=None, help="with --lines: another checkout read the same files")
    ap.add_argument("--mix", choices=("synthetic", "fixtures", "tracebacks"), default="synthetic",
                    help="the lines written: the synthetic training output, real lines of tests/fixtures, or a "
                         "rank's real traceback every --every lines")
    ap.add_argument("--every", type=int, default=50, metavar="N",
                    help=f"with --mix tracebacks: a traceback ({TRACEBACK_LINES} lines) every N lines")
    ap.add_argument("--follow", type=int, default=None, metavar="K",
                    help="with --lines: followed as written, K lines a file per turn of the source's loop")
    args = ap.parse_args()
    if args.lines is not None:
        fixed(args.lines, args.runs, args.baseline, args.mix, args.follow, args.every)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "pods"
        root.mkdir()
        src = PodLogSource(str(root), scan_seconds=1.0, from_start=True)
        found = [0]
        stop = threading.Event()
        t = threading.Thread(target=src.run, args=(lambda batch: found.__setitem__(0, found[0] + len(batch.items)), stop))
        cpu0, t0 = time.process_time(), time.monotonic()
        t.start()
        writer = subprocess.run([sys.executable, "-c", WRITER, str(root), str(args.mb_per_s * 1e6), str(args.seconds),
                                 "-", *write_corpus(tmp, args.mix, args.every)], capture_output=True, text=True, check=True)
        deadline = time.monotonic() + 10
        written, expected = map(int, writer.stdout.split())
        while src.bytes_read < written and time.monotonic() < deadline:
            time.sleep(0.05)
        wall = time.monotonic() - t0
        cpu = time.process_time() - cpu0
        stop.set()
        t.join(5)
    print(f"{written / 1e6:.0f} MB in {args.seconds:.0f} s across 8 ranks ({written / 1e6 / args.seconds:.1f} MB/s), "
          f"read {src.bytes_read / 1e6:.0f} MB, {found[0]} findings of {expected} timeout lines written")
    print(f"reader CPU {cpu:.2f} s over {wall:.1f} s wall = {cpu / wall * 100:.1f}% of one core "
          f"({cpu / (written / 1e6) * 1e3:.2f} ms per MB)")


if __name__ == "__main__":
    main()
