from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


# One Hypothesis profile for every run, chosen here and not by the environment: a fresh clone, a developer's
# machine and CI (where Hypothesis would otherwise pick its own "ci" profile from CI=true) behave the same.
# Derandomized so a red run is reproducible; no deadline and no too_slow check because a loaded 2-core
# machine is slow on the first examples while strategies warm up, which is not a property of the code.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("gpu-npd", deadline=None, derandomize=True, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("gpu-npd")


# A test module must not leave threads running: an agent, a source, a writer, the API double's server that a test
# started and never stopped keeps running through every later module (a full run ended with ~600 such threads:
# slower and flakier tests under load).  Compared per module: the threads alive after its last test (each given
# THREAD_GRACE in all to end) against those alive before its first.  Only threads that nothing in the project
# started are allowed: a thread of C code that called into Python (threading._DummyThread).
THREAD_GRACE = 5.0


@pytest.fixture(autouse=True)
def _built_agents_closed(monkeypatch):
    """Tests build agents (agent.app.build) and GPU collectors and drive them by hand, here and in other directories
    (test_telemetry's `make`); most never shut one down.  Each owns threads (its NVML workers, one per GPU; udev's
    observer; the poller, Xid and checks threads once started) that outlived the test: ~600 by the end of
    tests/agent.  Whatever a test built is closed after it.  Only where a test module imported the agent: this
    conftest imports nothing of it."""
    import sys

    app, gpu = sys.modules.get("agent.app"), sys.modules.get("agent.gpu.collector")
    if app is None or gpu is None:
        yield
        return
    built: dict[type, list] = {app.Agent: [], gpu.GpuCollector: []}
    for cls, into in built.items():
        def __init__(self, *args, _init=cls.__init__, _into=into, **kwargs):
            _init(self, *args, **kwargs)
            _into.append(self)
        monkeypatch.setattr(cls, "__init__", __init__)
    yield
    for cls in (app.Agent, gpu.GpuCollector):  # an agent's threads first (its poller asks its collector)
        for made in built[cls]:
            made.close()


def _left_running(before: set) -> list:
    import threading
    import time

    deadline = time.monotonic() + THREAD_GRACE
    left = []
    for t in threading.enumerate():
        if t in before or isinstance(t, threading._DummyThread):
            continue
        t.join(max(0.0, deadline - time.monotonic()))
        if t.is_alive():
            left.append(t)
    return left


@pytest.fixture(scope="module", autouse=True)
def _no_threads_left(request):
    import threading

    before = set(threading.enumerate())
    yield
    left = _left_running(before)
    if left:
        said = ", ".join(sorted(f"{t.name} ({getattr(getattr(t, '_target', None), '__qualname__', type(t).__name__)}"
                                f"{'' if t.daemon else ', not a daemon'})" for t in left))
        pytest.fail(f"{request.module.__name__} left {len(left)} thread(s) running: {said}: stop what a test starts "
                    "(tests/conftest.py)", pytrace=False)
