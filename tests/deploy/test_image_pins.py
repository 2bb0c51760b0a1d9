"""The image's pins (deploy/image/constraints.txt, `make constraints`): every runtime dependency pyproject.toml
declares, on every machine an image is built for, is pinned, so that no image takes whatever release is newest the
day it is built (google-re2, aarch64's engine, was not: deploy/image/pin.py skipped other machines' engines)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


def _name(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text).lower()


def test_every_runtime_dependency_on_every_machine_is_pinned():
    import sys

    sys.path.insert(0, str(ROOT / "deploy" / "image"))
    try:
        from pin import HEADER, MACHINES
    finally:
        sys.path.pop(0)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    text = (ROOT / "deploy" / "image" / "constraints.txt").read_text()
    pinned = {_name(line.split("==")[0]) for line in text.splitlines() if "==" in line and not line.startswith("#")}
    needed = set()
    for req in map(Requirement, declared):
        if req.marker is None or any(req.marker.evaluate({"extra": "", "platform_machine": m}) for m in MACHINES):
            needed.add(_name(req.name))
    assert "google-re2" in needed and "hyperscan" in needed  # both machines' engines are asked for
    assert sorted(needed - pinned) == []
    assert text.startswith(HEADER)
