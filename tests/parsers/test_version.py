"""The version read off the distribution's metadata without importlib.metadata (parsers/version.py): the same answer
importlib.metadata gives, for the layouts it reads, in the order it looks."""

from __future__ import annotations

import importlib.metadata as md
import subprocess
import sys
from pathlib import Path

import pytest

from parsers.version import installed_version, version

ROOT = Path(__file__).resolve().parents[2]


def expected(name: str, path: list[str]) -> str | None:
    found = next(iter(md.distributions(name=name, path=path)), None)
    return None if found is None else found.version


def metadata(version: str) -> str:
    return f"Metadata-Version: 2.4\nName: gpu-npd\nVersion: {version}\nSummary: x\n\nVersion: not-a-header\n"


@pytest.mark.parametrize("layout", ["dist-info", "egg-info dir", "egg-info file", "normalised name", "egg"])
def test_as_importlib_metadata_reads_it(tmp_path, layout):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (second / "gpu_npd-9.9.9.dist-info").mkdir()
    (second / "gpu_npd-9.9.9.dist-info" / "METADATA").write_text(metadata("9.9.9"))
    (first / "other_pkg-1.0.dist-info").mkdir()
    (first / "other_pkg-1.0.dist-info" / "METADATA").write_text(metadata("1.0"))
    if layout == "dist-info":
        (first / "gpu_npd-1.2.3.dist-info").mkdir()
        (first / "gpu_npd-1.2.3.dist-info" / "METADATA").write_text(metadata("1.2.3"))
    elif layout == "egg-info dir":
        (first / "gpu_npd.egg-info").mkdir()
        (first / "gpu_npd.egg-info" / "PKG-INFO").write_text(metadata("1.2.4"))
    elif layout == "egg-info file":
        (first / "gpu_npd-1.2.5-py3.11.egg-info").write_text(metadata("1.2.5"))
    elif layout == "normalised name":
        (first / "GPU.NPD-1.2.6.dist-info").mkdir()
        (first / "GPU.NPD-1.2.6.dist-info" / "METADATA").write_text(metadata("1.2.6"))
    else:  # an egg on the path: its EGG-INFO
        first = tmp_path / "gpu_npd-1.2.7-py3.11.egg"
        (first / "EGG-INFO").mkdir(parents=True)
        (first / "EGG-INFO" / "PKG-INFO").write_text(metadata("1.2.7"))
    path = [str(tmp_path / "absent"), str(first), str(second)]
    assert installed_version("gpu-npd", path) == expected("gpu-npd", path) != "9.9.9"
    assert installed_version("gpu-npd", [str(second)]) == "9.9.9"
    assert installed_version("gpu-npd", [str(tmp_path / "absent")]) is None


def test_no_version_header_leaves_it_to_importlib_metadata(tmp_path):
    (tmp_path / "gpu_npd-1.0.dist-info").mkdir()
    (tmp_path / "gpu_npd-1.0.dist-info" / "METADATA").write_text("Name: gpu-npd\n")
    assert installed_version("gpu-npd", [str(tmp_path)]) is None


def test_the_installed_version_without_loading_importlib_metadata():
    code = ("import sys; from parsers.version import version; print(version()); "
            "print('importlib.metadata' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": ""}).stdout.split()
    assert out == [md.version("gpu-npd"), "False"]
    assert version() == md.version("gpu-npd")
