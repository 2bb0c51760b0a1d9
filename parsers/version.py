"""The one version of gpu-npd, declared here: pyproject.toml takes it (`[tool.setuptools.dynamic]`, read without
importing the package), the Makefile's VERSION reads it, and `make set-version` rewrites it with the chart's version
and the image tags (tests/deploy/test_release.py holds them equal).  A constant: nothing to look up at start-up
(importlib.metadata and its readers cost the agent 0.7 MiB), and a source tree that was never installed says it too."""

VERSION = "0.1.0"


def version() -> str:
    return VERSION
