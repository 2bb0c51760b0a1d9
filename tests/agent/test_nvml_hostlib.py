"""libnvidia-ml.so.1 looked for on the host when no runtime put one in the agent's container (HOST_LIBRARY_DIRS).

The C stand-in (agent/gpu/standin.py) is placed, as a symlink (the driver's own libnvidia-ml.so.1 is one), at each
declared host location under a fake host root (`proc_root`/proc/1/root); nvidia-ml-py, unmodified, must then open
NVML through it. Each case runs in a process of its own: once a libnvidia-ml.so.1 is loaded, every later dlopen of
the soname gets that one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.gpu import standin
from agent.gpu.nvml import HOST_LIBRARY_DIRS, SONAME

ROOT = Path(__file__).resolve().parents[2]

# in a fresh process: no libnvidia-ml.so.1 for the loader, the host search, then the stand-in's scenario on the
# library it loaded (the same file: the loader keeps one copy), then the agent's backend through nvidia-ml-py
PROBE = """
import ctypes, json, logging, sys
from agent.gpu import nvml, standin
try:
    ctypes.CDLL(nvml.SONAME)
    print(json.dumps({"skip": "a libnvidia-ml.so.1 is on this machine's loader path"})); sys.exit(0)
except OSError:
    pass
out = {}
try:
    out["from"] = nvml.load_from_host(sys.argv[1])
except nvml.NvmlError as exc:
    out["error"] = [exc.code, str(exc)]
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    from agent.gpu.collector import GpuCollector
    c = GpuCollector(nvml.open_backend("auto", sys.argv[1]), deadline=5.0)
    c.start(); c.close()
    print(json.dumps(out)); sys.exit(0)
standin.activate({"driver_version": "570.148.08", "gpus": [{"uuid": "GPU-a", "pci_bus_id": "00000000:18:00.0"},
                                                         {"uuid": "GPU-b", "pci_bus_id": "00000000:2A:00.0"}]})
b = nvml.open_backend("auto", sys.argv[1])
b.init()
out["count"], out["driver"] = b.count(), b.driver_version()
print(json.dumps(out))
"""


def probe(proc_root: Path) -> tuple[dict, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    r = subprocess.run([sys.executable, "-c", PROBE, str(proc_root)], capture_output=True, text=True, env=env,
                       cwd=ROOT, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    out = json.loads(lines[-1])
    if "skip" in out:
        pytest.skip(out["skip"])
    return out, "\n".join(lines[:-1])


@pytest.mark.parametrize("directory", [d for d, _ in HOST_LIBRARY_DIRS])
def test_nvml_opens_through_the_library_at_each_declared_host_location(tmp_path, directory):
    lib = tmp_path / "proc/1/root" / directory.lstrip("/") / SONAME
    lib.parent.mkdir(parents=True)
    lib.symlink_to(standin.build() / SONAME)
    out, _ = probe(tmp_path)
    assert out == {"from": directory, "count": 2, "driver": "570.148.08"}


def test_the_first_declared_location_wins(tmp_path):
    # a loadable library at every location: whichever is tried first is the one loaded (one that fails to load at
    # the others would pass whatever the order)
    for directory, _ in HOST_LIBRARY_DIRS:
        lib = tmp_path / "proc/1/root" / directory.lstrip("/") / SONAME
        lib.parent.mkdir(parents=True)
        lib.symlink_to(standin.build() / SONAME)
    assert probe(tmp_path)[0]["from"] == HOST_LIBRARY_DIRS[0][0]


def test_none_found_is_one_line_naming_every_place_tried(tmp_path):
    (tmp_path / "proc/1/root").mkdir(parents=True)
    bad = tmp_path / "proc/1/root/usr/lib64" / SONAME
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not an ELF file")  # found but not loadable: its error is said too
    out, log = probe(tmp_path)
    code, message = out["error"]
    assert code == "LIBRARY_NOT_FOUND" and "\n" not in message
    assert all(d in message for d, _ in HOST_LIBRARY_DIRS)
    assert f"found but not loaded: /usr/lib64: {tmp_path}/proc/1/root/usr/lib64/{SONAME}" in message
    # the agent's one line about it carries the same
    said = [line for line in log.splitlines() if "no NVIDIA GPU stack" in line]
    assert len(said) == 1 and message in said[0]


def test_an_unreadable_host_root_is_said(tmp_path):
    out, _ = probe(tmp_path / "no-such-proc")
    assert "cannot be read: privileged pods only" in out["error"][1]


def test_without_nvidia_ml_py_auto_is_nvml_without_its_library(monkeypatch):
    """pynvml is imported at the first init that finds the library (not when the backend is made): where it is not
    installed at all, `auto` is still a backend whose init says so, in one line."""
    from agent.gpu.interface import NvmlError
    from agent.gpu.nvml import open_backend

    monkeypatch.setitem(sys.modules, "pynvml", None)  # as not installed: find_spec answers None
    backend = open_backend("auto", "/nonexistent")
    with pytest.raises(NvmlError) as e:
        backend.init()
    assert (e.value.code, str(e.value).splitlines()) == ("LIBRARY_NOT_FOUND", [str(e.value)])
    assert "not installed" in str(e.value)
