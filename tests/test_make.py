"""`make test` itself: what it runs before pytest."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
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
    # where an import in that environment looks, asked of an interpreter started in it: this process's own
    # PYTHONPYCACHEPREFIX (or -X pycache_prefix), dropped above, would name another directory
    where = subprocess.run([sys.executable, "-c", "import importlib.util, sys\n"
                            "for s in sys.argv[1:]: print(importlib.util.cache_from_source(s))",
                            *map(str, sources)], cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=60, check=True).stdout.splitlines()
    stale = []
    for source, cache in zip(sources, where, strict=True):
        cached = Path(cache)
        header = cached.read_bytes()[:16] if cached.exists() else b""
        st = source.stat()
        if header != (importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
                      + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
                      + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")):
            stale.append(source.relative_to(tmp_path).as_posix())
    assert not stale, f"compiled from source at every import: {stale}"
