"""The version is a constant (parsers/version.py): nothing is looked up at start-up, so the agent never loads
importlib.metadata (about 0.7 MiB with its zip, CSV and e-mail readers) for it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_without_loading_importlib_metadata():
    code = ("import sys; from parsers.version import version; print(version()); "
            "print('importlib.metadata' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""}).stdout.split()
    from parsers.version import VERSION

    assert out == [VERSION, "False"]
