"""The one version of gpu-npd: the installed distribution's (pyproject.toml's `version`).

Read from the distribution's metadata on sys.path as `importlib.metadata` finds it (the first path entry holding a
`gpu_npd-*.dist-info` or `gpu_npd*.egg-info`, its `Version` header), without loading `importlib.metadata`: that
package (and the zip, CSV and email readers it brings) added ~0.7 MiB to the agent's idle footprint for one string
read once.  Where the scan finds nothing plain (a zipped or otherwise found distribution), `importlib.metadata`
answers, as it always did."""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache

DIST = "gpu-npd"


@lru_cache(maxsize=1)
def version() -> str:
    found = installed_version(DIST)
    if found is not None:
        return found
    from importlib.metadata import PackageNotFoundError, version as dist_version  # noqa: PLC0415

    try:
        return dist_version(DIST)
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def _normalize(name: str) -> str:
    """A distribution name as importlib.metadata compares them (PEP 503, then '-' as '_')."""
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def installed_version(name: str, path: list[str] | None = None) -> str | None:
    """The `Version` of distribution `name` as importlib.metadata finds it on `path` (sys.path): the first entry
    holding its metadata (`<name>-*.dist-info` or `.egg-info`, a directory or a file; then an egg's `EGG-INFO`),
    METADATA, else PKG-INFO.  None when that is not a plain directory here, cannot be read, or has no Version:
    importlib.metadata then answers."""
    want, legacy = _normalize(name), name.lower().replace("-", "_")
    for entry in sys.path if path is None else path:
        root = entry or "."
        try:
            children = os.listdir(root)
        except OSError:  # absent, or not a directory (a zip: importlib.metadata's to read)
            continue
        base = os.path.basename(root).lower()
        infos = [c for c in children if c.lower().endswith((".dist-info", ".egg-info"))
                 and _normalize(c.lower().rpartition(".")[0].partition("-")[0]) == want]
        eggs = [c for c in children if base.endswith(".egg") and c.lower() == "egg-info"
                and base.rpartition(".")[0].partition("-")[0].replace("-", "_") == legacy]
        for child in infos + eggs:
            meta = os.path.join(root, child)
            text = _read(os.path.join(meta, "METADATA")) or _read(os.path.join(meta, "PKG-INFO")) or _read(meta)
            return _header(text, "Version") if text else None
    return None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):  # absent, a directory, not a directory, unreadable
        return None


def _header(text: str, key: str) -> str | None:
    """One header of an RFC 822 metadata text (the headers end at the first empty line)."""
    for line in text.splitlines():
        if not line.strip():
            break
        field, sep, value = line.partition(":")
        if sep and field.strip().lower() == key.lower():
            return value.strip()
    return None
