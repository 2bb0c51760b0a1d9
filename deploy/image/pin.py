"""Print gpu-npd's runtime dependency closure, pinned to the versions installed here (make constraints)."""

from __future__ import annotations

import importlib.metadata as md
import re

from packaging.requirements import Requirement

HEADER = ("# What the image installs, pinned: gpu-npd's runtime dependencies (x86_64) at the versions the tests ran\n"
          "# with. Regenerate: make constraints (from the test venv).\n")


def closure(root: str = "gpu-npd") -> dict[str, str]:
    pinned: dict[str, str] = {}
    todo = [Requirement(r) for r in md.requires(root) or []]
    while todo:
        req = todo.pop()
        if req.marker and not req.marker.evaluate({"extra": ""}):
            continue  # extras (test) and other platforms' engines
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        if name in pinned:
            continue
        try:
            dist = md.distribution(req.name)
        except md.PackageNotFoundError:
            continue
        pinned[name] = dist.version
        todo += [Requirement(r) for r in dist.requires or []]
    return pinned


if __name__ == "__main__":
    print(HEADER + "".join(f"{k}=={v}\n" for k, v in sorted(closure().items())), end="")
