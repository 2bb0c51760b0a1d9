"""`make test` itself: what it runs before pytest."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_make_test_compiles_the_tree_first_so_its_processes_load_bytecode(tmp_path):
    """Where PYTHONDONTWRITEBYTECODE is set (this host), imports never write bytecode, and every `gpu-npd` process the
    suite starts compiled its modules from source (`import agent.app`: 0.31 s CPU against 0.20 s with bytecode).
    The commands `make test` runs before pytest, run on a copy of the Makefile beside a copy of `parsers/` with that
    variable set, leave each module a bytecode file an import takes (its header names the source's mtime and size)."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path)
    shutil.copytree(ROOT / "parsers", tmp_path / "parsers", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (tmp_path / ".venv" / ".installed").touch()  # the venv up to date: `make -n` prints only the target's commands
    # run from `make test` itself, the outer make's MAKELEVEL/MAKEFLAGS would make this one a sub-make that prints
    # "make[1]: Entering directory ..." among its commands
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "PYTHONPYCACHEPREFIX")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    printed = subprocess.run(["make", "--no-print-directory", "-n", "test"], cwd=tmp_path, env=env,
                             capture_output=True, text=True,
                             timeout=60, check=True).stdout.splitlines()
    before = printed[:next(i for i, line in enumerate(printed) if " -m pytest " in f"{line} ")]
    for command in before:
        subprocess.run(command, shell=True, cwd=tmp_path, env=env, timeout=120, check=True)
    sources = sorted((tmp_path / "parsers").rglob("*.py"))
    assert sources
    stale = []
    for source in sources:
        # where an import without PYTHONPYCACHEPREFIX (left out of the commands' environment above) looks:
        # cache_from_source would follow this process's own prefix, when the suite runs with one set
        cached = source.parent / "__pycache__" / f"{source.stem}.{sys.implementation.cache_tag}.pyc"
        header = cached.read_bytes()[:16] if cached.exists() else b""
        st = source.stat()
        if header != (importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
                      + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                      + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")):
            stale.append(source.relative_to(tmp_path).as_posix())
    assert not stale, f"compiled from source at every import: {stale}"


def test_make_run_passes_sigterm_to_the_agent(tmp_path):
    """`kill <make's pid>`: GNU make passes SIGTERM to its recipe's process and exits; that process must be the agent
    (`exec`), or the shell that ran the recipe dies and leaves the agent running, orphaned, on /dev/kmsg and port
    9810, its state never flushed at a stop. A stand-in agent (.venv/bin/gpu-npd) says its pid and its SIGTERM."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path)
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / ".installed").touch()  # newer than the copied pyproject.toml: no venv is made
    agent = tmp_path / ".venv" / "bin" / "gpu-npd"
    agent.write_text(f"#!{sys.executable}\n" + textwrap.dedent("""\
        import os, pathlib, signal, sys, time
        here = pathlib.Path(sys.argv[0]).resolve().parent
        signal.signal(signal.SIGTERM, lambda *_: ((here / "terminated").write_text("1"), sys.exit(0)))
        (here / "pid").write_text(str(os.getpid()))
        time.sleep(60)
        """))
    agent.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    make = subprocess.Popen(["make", "--no-print-directory", "run"], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid_file = agent.parent / "pid"
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pid_file.exists(), "make run never started the agent"
        time.sleep(0.2)  # the pid is written after the handler is set; let the write finish
        make.send_signal(signal.SIGTERM)
        make.wait(timeout=10)
        deadline = time.monotonic() + 5
        while not (agent.parent / "terminated").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (agent.parent / "terminated").exists(), "the agent never got make's SIGTERM: left running"
    finally:
        if make.poll() is None:
            make.kill()
        if pid_file.exists():
            try:
                os.kill(int(pid_file.read_text()), signal.SIGKILL)  # a stand-in left behind (the failure)
            except (ProcessLookupError, ValueError):
                pass


def test_make_schema_writes_the_charts_schema_without_kubectl_and_a_failure_leaves_both_files_whole(tmp_path):
    """docs/extending.md: a new sink or built-in check rewrites the chart's values.schema.json (a key or a key's doc
    derives from its row); `make schema` writes it with no kubectl on PATH. `make manifests` wrote both files through
    a shell redirect: a kubectl missing or an import failing left deploy/daemonset.yaml as two comment lines and the
    schema empty. A copy of the Makefile, the repository's modules on PYTHONPATH, PATH holding only the shell's tools."""
    shutil.copy(ROOT / "Makefile", tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    chart = tmp_path / "deploy" / "helm" / "gpu-npd"
    chart.mkdir(parents=True)
    bindir = tmp_path / ".venv" / "bin"
    bindir.mkdir(parents=True)
    (bindir / "python").symlink_to(sys.executable)
    (tmp_path / ".venv" / ".installed").touch()
    tools = tmp_path / "tools"  # the shell and the tools the Makefile calls (sed: its VERSION): no kubectl
    tools.mkdir()
    for tool in ("sh", "mv", "rm", "sed"):
        (tools / tool).symlink_to(shutil.which(tool))
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    env.update(PATH=str(tools), PYTHONPATH=str(ROOT))

    def make(target: str) -> subprocess.CompletedProcess:
        return subprocess.run([shutil.which("make"), "--no-print-directory", target], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)

    from agent.config import values_schema  # noqa: PLC0415

    done = make("schema")
    assert done.returncode == 0, done.stderr
    import json  # noqa: PLC0415

    assert json.loads((chart / "values.schema.json").read_text()) == values_schema()
    daemonset = tmp_path / "deploy" / "daemonset.yaml"
    daemonset.write_text("kind: DaemonSet\n")
    assert make("manifests").returncode != 0  # no kubectl
    assert daemonset.read_text() == "kind: DaemonSet\n" and not list(tmp_path.glob("deploy/*.tmp"))
    (bindir / "python").unlink()
    (bindir / "python").write_text("#!/bin/sh\nexit 1\n")
    (bindir / "python").chmod(0o755)
    assert make("schema").returncode != 0
    assert json.loads((chart / "values.schema.json").read_text()) == values_schema()
    assert not list(chart.glob("*.tmp"))


def test_make_schema_makes_the_venv_first_and_its_temporary_file_is_never_packaged(tmp_path):
    """`make schema` ran `.venv/bin/python` with no venv made before it: on a fresh clone (a CI job checking that the
    schema is current) it failed with ".venv/bin/python: not found".  It now depends on the venv, as `make test`
    does: `make -n schema` in a copy of the Makefile with no venv prints the venv's making first.  An interrupt
    between its write and its rename leaves `values.schema.json.tmp` in the chart's directory, which the chart's
    .helmignore keeps out of `helm package` (was: packaged into the release's chart)."""
    import fnmatch  # noqa: PLC0415

    shutil.copy(ROOT / "Makefile", tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    printed = subprocess.run([shutil.which("make"), "--no-print-directory", "-n", "schema"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    venv = next(i for i, line in enumerate(printed) if " -m venv " in line)
    assert venv < next(i for i, line in enumerate(printed) if " -m agent.config " in line), printed
    chart = ROOT / "deploy" / "helm" / "gpu-npd"
    ignored = [line.strip() for line in (chart / ".helmignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    assert any(fnmatch.fnmatch("values.schema.json.tmp", pattern) for pattern in ignored), ignored
