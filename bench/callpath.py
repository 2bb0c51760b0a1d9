"""The path of one kernel line: from the kmsg source to the NodeCondition patch body, function by function.

    python bench/callpath.py [--ref DIR] [--list]

A real agent (`mode: observe`, NVML off) reads a kmsg-format FIFO and writes to the Kubernetes API double of
tests/apiserver_double.py.  Once it has written its first (healthy) conditions, one Xid 79 line is written to
the FIFO; a profiler (sys.setprofile / threading.setprofile) records every function of the project (agent/,
parsers/, kubeapi/) that runs on the three threads the line crosses (the kmsg source, the agent's loop, the
Kubernetes writer) until the condition patch body is built (`condition_patch` returns).  Two figures: the
path (the functions on the call stack where the line leaves each thread: the source's `emit`, the agent loop's
call of a sink's `apply`, the writer's `condition_patch`; and every function that returns something made of the
line: its record, finding, problem, change, snapshot, the conditions written), and every function that ran on
those threads meanwhile (counters, Events, stdout included).  Comprehensions are
part of their function (not counted apart); lambdas are functions.  One line (an application Xid) goes first,
unmeasured, so what is built once per process (the classifier, the Xid catalog) is not counted.  Prints the number of
distinct functions and files; `--list` names them (* : on the path); `--ref DIR` measures another checkout (e.g. the version
before a change) in the same invocation, each in its own process.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARK = "5d:00"  # the GPU of the line measured: what carries it, carries the line
LINE = "3,7000,1234567,-;NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
# before: one line of each source's first kind, so the classifier, its tables and the Xid catalog are built (lazily,
# once per process) before the line measured
WARM = "3,6999,1234000,-;NVRM: Xid (PCI:0000:1b:00): 13, pid=4242, name=python3, Graphics SM Warp Exception\n"
PACKAGES = ("agent", "parsers", "kubeapi")
COMPREHENSIONS = ("<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>")  # parts of a function, not functions
THREADS = ("MainThread", "source-kmsg", "kube-writer")
# where the line leaves a thread: the source hands its batch to the intake; the agent's loop hands the change to
# the Kubernetes sink; the writer builds the patch body
HANDOFFS = {"source-kmsg": ("Intake.emit",), "MainThread": ("KubernetesSink.apply",), "kube-writer": ("condition_patch",)}


def trace(tree: Path) -> dict:
    """The functions the line passes, in this process (the tree on sys.path)."""
    sys.path.insert(0, str(tree))
    sys.path.insert(1, str(tree / "tests"))
    from apiserver_double import ApiDouble  # noqa: PLC0415

    from agent.config import load  # noqa: PLC0415

    roots = tuple(str(tree / p) + os.sep for p in PACKAGES)
    seen: dict[tuple[str, int], tuple[str, str]] = {}
    carrying: set[tuple[str, int]] = set()
    state = {"on": False, "done": False}

    def prof(frame, event, arg):
        if not state["on"] or state["done"]:
            return
        code = frame.f_code
        if not code.co_filename.startswith(roots) or code.co_name in COMPREHENSIONS:
            return
        name = threading.current_thread().name
        if name not in THREADS:
            return
        where = (code.co_filename, code.co_firstlineno)
        seen.setdefault(where, (os.path.relpath(code.co_filename, tree), code.co_qualname))
        if event == "return" and where not in carrying and _carries(arg):
            carrying.add(where)  # a stage: it returns what it made of the line
        if event == "call" and code.co_qualname in HANDOFFS.get(name, ()):
            up = frame
            while up is not None:  # the line crosses to the next thread (or into the patch): its stack is the path
                c = up.f_code
                if c.co_filename.startswith(roots) and c.co_name not in COMPREHENSIONS:
                    at = (c.co_filename, c.co_firstlineno)
                    seen.setdefault(at, (os.path.relpath(c.co_filename, tree), c.co_qualname))
                    carrying.add(at)
                up = up.f_back
        if event == "return" and code.co_name == "condition_patch" and name == "kube-writer":
            state["done"] = True

    with tempfile.TemporaryDirectory() as tmp, ApiDouble() as api, open(os.devnull, "w") as devnull:
        api.add_node("gpu-node-1")
        fifo = Path(tmp) / "kmsg.fifo"
        os.mkfifo(fifo)
        conf = Path(tmp) / "config.yaml"
        conf.write_text(json.dumps({"mode": "observe", "nvml": "off", "udev": False, "journald": False,
                                    "fallback_log_files": [], "kmsg": str(fifo), "state_dir": tmp,
                                    "node_name": "gpu-node-1", "tick_seconds": 3600,
                                    "kubernetes": {"api_server": api.url, "coalesce_seconds": 0.05}}))
        cfg = load(str(conf), env={})
        threading.setprofile(prof)
        sys.setprofile(prof)
        import agent.app as app  # noqa: PLC0415

        agent = app.build(cfg, out=devnull) if hasattr(app, "build") else app.Agent(cfg, out=devnull)
        agent.start(serve_http=False)
        writer = os.open(fifo, os.O_WRONLY)
        deadline = time.monotonic() + 10
        while "GPUUnhealthy" not in api.conditions("gpu-node-1") and time.monotonic() < deadline:
            agent.step(0.05)
        os.write(writer, WARM.encode())
        for _ in range(25):  # settle: nothing pending anywhere
            agent.step(0.02)
        state["on"] = True
        os.write(writer, LINE.encode())
        deadline = time.monotonic() + 10
        while not state["done"] and time.monotonic() < deadline:
            agent.step(0.02)
        sys.setprofile(None)
        threading.setprofile(None)
        deadline = time.monotonic() + 5  # the patch body is built: its request follows
        while state["done"] and api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] != "True" \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        ok = state["done"] and api.conditions("gpu-node-1")["GPUUnhealthy"]["status"] == "True"
        agent.shutdown()
        os.close(writer)
    functions = sorted(seen.values())
    path = sorted(seen[w] for w in carrying)
    return {"ok": ok, "functions": functions, "files": sorted({f for f, _ in functions}),
            "path": path, "path_files": sorted({f for f, _ in path})}


def _carries(value) -> bool:
    """Is `value` the line or made of it (record, finding, problem, condition, change, snapshot, patch body)?"""
    try:
        return MARK in repr(value)[:100_000]
    except Exception:  # noqa: BLE001 - an object whose repr fails carries nothing we can see
        return False


def run_in(tree: Path) -> dict:
    code = (f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import callpath; "
            f"print(json.dumps(callpath.trace(__import__('pathlib').Path({str(tree)!r}))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tree, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref", help="also trace the agent in this checkout (the previous version)")
    ap.add_argument("--list", action="store_true", help="name each function passed")
    args = ap.parse_args()
    trees = [("this tree", HERE.parent)] + ([("ref " + args.ref, Path(args.ref).resolve())] if args.ref else [])
    for label, tree in trees:
        r = run_in(tree)
        status = "" if r["ok"] else "  (the condition was NOT written: trace incomplete)"
        print(f"{label}: the line's path is {len(r['path'])} functions in {len(r['path_files'])} files; "
              f"{len(r['functions'])} functions in {len(r['files'])} files run on its threads meanwhile{status}")
        if args.list:
            for file, fn in r["functions"]:
                print(f"    {'*' if (file, fn) in map(tuple, r['path']) else ' '} {file}: {fn}")


if __name__ == "__main__":
    main()
