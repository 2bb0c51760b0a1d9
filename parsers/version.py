"""The one version of gpu-npd: the installed distribution's (pyproject.toml's `version`)."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=1)
def version() -> str:
    from importlib.metadata import PackageNotFoundError, version as dist_version  # noqa: PLC0415

    try:
        return dist_version("gpu-npd")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
