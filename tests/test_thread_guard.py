"""tests/conftest.py's guards, run on a test module of their own in a fresh interpreter (in this one every module of
the suite, agent.app among them, is already imported)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent

# Test modules that build a GPU collector, never close it, and never import agent.app: as test_nvml_standin (the
# collector imported with the module) and as test_peers (the agent imported inside a test, from test_telemetry).
NEVER_CLOSED = {"imported with the module": """
import sys

from agent.gpu.collector import GpuCollector
from telemetry_kit import standin_backend


def test_a_collector_left_open():
    assert "agent.app" not in sys.modules
    GpuCollector(standin_backend({"gpus": [{}, {}]})).poll([])
""", "imported inside the test": """
import sys


def test_a_collector_left_open():
    assert "agent.gpu.collector" not in sys.modules
    from agent.gpu.collector import GpuCollector
    from telemetry_kit import standin_backend
    GpuCollector(standin_backend({"gpus": [{}, {}]})).poll([])
"""}


def _pytest(tmp_path: Path, *args: str, preexec_fn=None, **env: str) -> subprocess.CompletedProcess:
    """pytest run in a fresh interpreter on the test modules written to `tmp_path`, under a copy of tests/conftest.py
    (`tmp_path` importable: a plugin written there is named with `-p`)."""
    (tmp_path / "conftest.py").write_text((TESTS / "conftest.py").read_text())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(TESTS.parent), str(TESTS)]),
           "PYTHONDONTWRITEBYTECODE": "1", **env}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio", *args,
                           "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, preexec_fn=preexec_fn)


@pytest.mark.parametrize("module", NEVER_CLOSED.values(), ids=NEVER_CLOSED)
def test_collectors_are_closed_in_a_module_that_never_imports_the_agent(tmp_path, module):
    """Its collectors were closed only where agent.app was imported before the test: test_nvml_standin run alone
    left 60 NVML workers (nvml-0, nvml-1, nvml-system), test_peers 18, and the thread guard failed each."""
    (tmp_path / "test_never_closed.py").write_text(module)
    run = _pytest(tmp_path)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout and "thread(s) running" not in run.stdout


# a plugin whose unconfigure, in an xdist worker, outlasts execnet's 5 s between the gateway's stop and its SIGINT to
# the worker still running, as a worker's final garbage collections can on a loaded host; it says what ended it
SLOW_END = """
import os, time


def pytest_unconfigure(config):
    if hasattr(config, "workerinput"):
        try:
            time.sleep(6.5)
            said = "slept"
        except KeyboardInterrupt:
            said = "interrupted"
        with open(os.environ["SLOW_END_SAYS"], "w") as f:
            f.write(said)
"""


def test_an_xdist_worker_that_ends_slowly_is_not_interrupted(tmp_path):
    """A worker still unconfiguring 5 s after the controller stopped its gateway got execnet's SIGINT: a full run that
    passed ended with "Exception ignored in: gc_callback .. KeyboardInterrupt" (hypothesis's gc callback)."""
    from harness import ctrl_c_default

    (tmp_path / "slow_end.py").write_text(SLOW_END)
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    says = tmp_path / "says"
    run = _pytest(tmp_path, "-p", "slow_end", "-n", "1", SLOW_END_SAYS=str(says),
                  preexec_fn=ctrl_c_default)  # SIGINT at its default there, as in a terminal's `make test`
    assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]
    assert says.read_text() == "slept", run.stderr[-2000:]
