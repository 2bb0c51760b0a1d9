"""Another checkout's `gpu-npd`, run beside this tree's in one benchmark (`--baseline DIR` / `--ref DIR`).

`[sys.executable, "-c", CLI, DIR, *args]` runs DIR's own entry point as its pyproject.toml declares it
(`gpu-npd = "gpunpd.cli:main"` today, `"agent.cli:main"` before the programs had packages of their own), its modules
imported from DIR first: never this tree's command line over that tree's parsers.  The line is found with `re`, which
every run imports anyway (tomllib would add ~6 ms to the baseline's start-up that this tree's does not pay).
"""

CLI = ("import importlib, re, sys; d = sys.argv.pop(1); sys.path.insert(0, d); sys.argv[0] = 'gpu-npd'; "
       "m, f = re.search(r'^gpu-npd\\s*=\\s*\"([\\w.]+):(\\w+)\"', open(d + '/pyproject.toml').read(), re.M).groups(); "
       "getattr(importlib.import_module(m), f)()")


def compiled(tree) -> str:
    """`tree` (a path), its Python compiled to bytecode first, so that a run imports bytecode whichever tree it times
    (where PYTHONDONTWRITEBYTECODE is set, imports never write it, and a tree compiling its sources at every start is
    timed some 20 ms slower than one that does not); returns it as a string."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    subprocess.run([sys.executable, "-m", "compileall", "-q", "-x", r"/(tests|tests_image|build|docs|\.venv|\.git)/",
                    str(tree)], stdout=subprocess.DEVNULL, check=False)
    return str(tree)
