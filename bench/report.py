"""Run the benchmarks and record what they print as a results file the docs site shows.

    python bench/report.py                      # every benchmark (what `make bench` runs)
    python bench/report.py --only parse poll    # some of them
    python bench/report.py --title "after the envelope change" --baseline /tmp/main   # two trees side by side

Each benchmark's output is shown as it runs and kept verbatim; the file, `docs/benchmarks/<UTC time>.json`, also
says when, on which host (CPUs, model, load average) and on which tree (commit, `-dirty` when it has uncommitted
changes) they ran. `docs/hooks/reference.py` renders every such file on the Benchmarks page, newest first, so
figures are never typed by hand. `--baseline DIR` (another checkout, e.g. `git archive main | tar -x -C DIR`) is
handed to every benchmark that times a second tree in the same run (as `--baseline` or `--ref`): compare figures
only within one file.
Exit status: 0 when every benchmark exited 0, else 1 (the file is written either way, each section with its rc).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = ROOT / "docs" / "benchmarks"

# name -> (title, arguments of bench/<script>); the order `make bench` runs them in
BENCHES: dict[str, tuple[str, list[str]]] = {
    "parse": ("Offline parse against grep (bench/parse.py)", ["parse.py"]),
    # the same parse counted by callgrind (instructions a line, start-up included, the same on a loaded host):
    # compare trees at paths of equal length, as inprocess_instructions
    "parse_instructions": ("Offline parse, instructions a line (bench/parse.py --instructions)",
                           ["parse.py", "--instructions", "100000"]),
    "perline": ("Cost per line (bench/perline.py)", ["perline.py"]),
    # the same cases counted by callgrind (instructions a line, each case's reading alone, the same on a loaded host):
    # compare trees at paths of equal length, as inprocess_instructions
    "perline_instructions": ("Cost per line, instructions a line (bench/perline.py --instructions)",
                             ["perline.py", "--instructions"]),
    "correlate": ("Correlation stays linear (bench/correlate.py)", ["correlate.py"]),
    "agent": ("The agent process: footprint, flood, latency, storms (bench/agent.py all)", ["agent.py", "all"]),
    "footprint": ("The idle agent's footprint, side by side (bench/agent.py footprint)",
                  ["agent.py", "footprint", "--seconds", "30", "--runs", "3"]),
    "storms": ("Issue 11's floods through the real process, side by side, best of 5 (bench/agent.py storms --runs 5)",
               ["agent.py", "storms", "--runs", "5"]),
    "inprocess": ("The record path in process (bench/inprocess.py)", ["inprocess.py"]),
    # the same flood's cost counted by callgrind (instructions a record, the same on a loaded host): compare trees
    # at paths of equal length (--baseline DIR as long as this checkout's path: the interpreter's path strings are
    # part of what it counts)
    "inprocess_instructions": ("The record path in process, instructions a record (bench/inprocess.py --instructions)",
                               ["inprocess.py", "--instructions"]),
    "inprocess_storm_instructions": ("A repeated Xid's storm in process, instructions a record (bench/inprocess.py "
                                     "--instructions --case storm)", ["inprocess.py", "--instructions", "--case", "storm"]),
    "inprocess_standing": ("The record path in process, 3,000 problems standing (bench/inprocess.py --standing)",
                           ["inprocess.py", "--standing", "3000", "--records", "30000", "--runs", "3"]),
    "poll": ("Telemetry poll cycle (bench/poll.py)", ["poll.py"]),
    "podlogs": ("Pod log throughput (bench/podlogs.py)", ["podlogs.py"]),
    "podlogs_cpu": ("The pod log path's CPU a line, fixed work, real lines (bench/podlogs.py --lines --mix fixtures)",
                    ["podlogs.py", "--lines", "200000", "--runs", "3", "--mix", "fixtures"]),
    "podlogs_follow": ("The pod log source's loop following eight files, 5 lines a file a turn, CPU a line "
                       "(bench/podlogs.py --follow)", ["podlogs.py", "--lines", "40000", "--follow", "5", "--runs", "3"]),
    "kube_scale": ("Kubernetes writes at scale (bench/kube_scale.py)", ["kube_scale.py"]),
    "cluster_scale": ("The cluster component at fleet scale (bench/cluster_scale.py)", ["cluster_scale.py"]),
    "triage_scale": ("Offline triage of a large failed job (bench/triage_scale.py)", ["triage_scale.py", "--serial"]),
    "triage_fleet": ("Offline triage of a 1,024-rank job (bench/triage_scale.py --ranks 1024)",
                     ["triage_scale.py", "--ranks", "1024", "--lines", "2000", "--runs", "1"]),
    "triage_files": ("Offline triage of 20,000 small per-rank files (bench/triage_scale.py --ranks 20000)",
                     ["triage_scale.py", "--ranks", "20000", "--lines", "10", "--runs", "1", "--shapes", "per-rank"]),
}
# the idle agent's footprint target: the footprint bench's, and the first of the agent bench's (which runs it too)
FOOTPRINT = "RSS <= 64 MiB, CPU <= 0.5% of a core"
# name -> what a run should show (the Benchmarks page's "target" column; a bench that prints OVER checks its own)
TARGETS: dict[str, str] = {
    "parse": "start-up <= 0.1 s; keyword mix <= 3x grep and >= 1 M lines/s",
    "perline": "<= 2 us a keyword line no rule takes, <= 3 us a storm line, <= 20 us a new matching line",
    "correlate": "seconds per MB flat",
    "agent": f"footprint: {FOOTPRINT}; flood: >= 100,000 records/s, zero loss; latency: "
             "p99 <= 200 ms; storms: >= 100,000 records/s with exact counts, every line counted in <= 10 s of CPU, "
             ">= 50,000 records/s of distinct Xids",
    "footprint": FOOTPRINT,
    "storms": "the main thread's CPU a record the same as or below the previous version's in each case",
    "inprocess_storm_instructions": "the same as or below the previous version's",
    "inprocess_standing": "the same per record with problems standing as without",
    "poll": "<= 5 ms of CPU per cycle excluding NVML",
    "kube_scale": "<= 12 writes/node/hour; <= 10 writes for a storm; taints <= budget",
    "cluster_scale": "catch-up <= 60 s from the storm's start, RSS < 256 MiB, an incident for every failing job",
    "triage_scale": "the lagging rank named; time within a small multiple of parse; `--jobs` output identical to "
                    "`--jobs 1` (tests/triage/test_triage_parallel.py)",
}
# the option through which a benchmark times another checkout beside this one
BASELINE_OPTION = {"parse": "--baseline", "parse_instructions": "--baseline", "perline": "--baseline",
                   "perline_instructions": "--baseline",
                   "correlate": "--baseline", "agent": "--ref",
                   "inprocess": "--ref", "inprocess_instructions": "--ref", "inprocess_storm_instructions": "--ref",
                   "storms": "--ref", "triage_scale": "--baseline",
                   "triage_fleet": "--baseline", "triage_files": "--baseline", "podlogs_cpu": "--baseline",
                   "podlogs_follow": "--baseline",
                   "footprint": "--ref"}


def host() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"{os.cpu_count()} CPUs{', ' + model if model else ''}; load average {load:.2f} at start"


def commit() -> str:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()
    head = git("rev-parse", "--short=12", "HEAD")
    return (head + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")) if head else ""


def run(name: str, baseline: str | None) -> dict:
    title, args = BENCHES[name]
    extra = [BASELINE_OPTION[name], baseline] if baseline and name in BASELINE_OPTION else []
    cmd = [sys.executable, str(HERE / args[0]), *args[1:], *extra]
    shown = " ".join(["python", f"bench/{args[0]}", *cmd[2:]])
    print(f"== {shown}", flush=True)
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    assert proc.stdout is not None
    for line in proc.stdout:
        sys.stdout.write(line)
        lines.append(line)
    rc = proc.wait()
    section = {"title": title, "command": shown, "output": "".join(lines), "rc": rc,
               "seconds": round(time.monotonic() - started, 1)}
    if rc:
        section["output"] += f"\n(exit status {rc})\n"
    return section


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=list(BENCHES), help="run only these benchmarks")
    ap.add_argument("--title", default="", help="what this run measures (shown on the page)")
    ap.add_argument("--baseline", default=None, help="another checkout, timed beside this one where a bench can")
    ap.add_argument("--out", type=Path, default=OUT, help="where the results file goes (default docs/benchmarks)")
    args = ap.parse_args(argv)
    now = datetime.now(timezone.utc)
    results = {"title": args.title or f"make bench, {now:%Y-%m-%d %H:%M} UTC", "when": f"{now:%Y-%m-%d %H:%M} UTC",
               "commit": commit(), "host": host(), "sections": []}
    if args.baseline:
        results["how"] = f"Each benchmark that can also timed the checkout in `{args.baseline}` in the same run."
    for name in args.only or list(BENCHES):
        results["sections"].append(run(name, args.baseline))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"{now:%Y-%m-%dT%H%M%SZ}.json"
    path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"results: {path}")
    return 0 if all(s["rc"] == 0 for s in results["sections"]) else 1


if __name__ == "__main__":
    sys.exit(main())
