"""Another checkout's `gpu-npd`, run beside this tree's in one benchmark (`--baseline DIR` / `--ref DIR`).

`[sys.executable, "-c", CLI, DIR, *args]` runs DIR's own entry point as its pyproject.toml declares it
(`gpu-npd = "gpunpd.cli:main"` today, `"agent.cli:main"` before the programs had packages of their own), its modules
imported from DIR first: never this tree's command line over that tree's parsers.
"""

CLI = ("import importlib, sys, tomllib; d = sys.argv.pop(1); sys.path.insert(0, d); sys.argv[0] = 'gpu-npd'; "
       "m, _, f = tomllib.load(open(d + '/pyproject.toml', 'rb'))['project']['scripts']['gpu-npd'].partition(':'); "
       "getattr(importlib.import_module(m), f)()")
