"""Print gpu-npd's runtime dependency closure, pinned to the versions installed here (make constraints)."""

from __future__ import annotations

import importlib.metadata as md
import re

from packaging.requirements import Requirement

HEADER = ("# What the image installs, pinned: gpu-npd's runtime dependencies (x86_64, and aarch64's RE2 engine) at the\n"
          "# versions the tests ran with. Regenerate: make constraints (from the test venv).\n")
# the machines an image is built for: each one's engine pinned (hyperscan on x86_64; google-re2 on aarch64, which the
# test venv installs everywhere to test it), so an arm64 image does not take whatever release is newest that day
MACHINES = ("x86_64", "aarch64")


def closure(root: str = "gpu-npd") -> dict[str, str]:
    pinned: dict[str, str] = {}
    todo = [Requirement(r) for r in md.requires(root) or []]
    while todo:
        req = todo.pop()
        if req.marker and not any(req.marker.evaluate({"extra": "", "platform_machine": m}) for m in MACHINES):
            continue  # extras (test)
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
