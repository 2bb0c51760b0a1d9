from __future__ import annotations

import signal
import sys
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


# A pytest-xdist worker that has sent its results ("workerfinished", at the end of its pytest_sessionfinish) still
# unconfigures: pytest's unraisable-exception plugin runs two full garbage collections (its pytest_unconfigure and its
# cleanup), 0.6-0.9 s each in a worker of tests/cluster and tests/offline on this loaded 2-CPU host.  The controller
# stops each worker's gateway once every worker has finished, and execnet sends a worker that still runs 5 s later a
# SIGINT (execnet/gateway_base.py WorkerGateway._terminate_execution: "sending ourselves a SIGINT", then os._exit(1)
# after 10 s more).  Its KeyboardInterrupt landed in hypothesis's gc callback, the first Python code to run after a
# long collection: "Exception ignored in: gc_callback .. KeyboardInterrupt" at the end of full runs that passed.
# Nothing the worker does then changes the run's result, so from then on it ignores SIGINT: the collections finish
# (and report what they find), and execnet's os._exit still ends a worker that hangs.
@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_sessionfinish(session):
    yield  # xdist's own wrapper, inside this one, sends "workerfinished" after the others ran
    if hasattr(session.config, "workerinput"):  # an xdist worker
        signal.signal(signal.SIGINT, signal.SIG_IGN)


# A test module must not leave threads running: an agent, a source, a writer, the API double's server that a test
# started and never stopped keeps running through every later module (a full run ended with ~600 such threads:
# slower and flakier tests under load).  Compared per module: the threads alive after its last test (each given
# THREAD_GRACE in all to end) against those alive before its first.  Only threads that nothing in the project
# started are allowed: a thread of C code that called into Python (threading._DummyThread).
THREAD_GRACE = 5.0


# What a test may build and leave running, closed after it: (module, class), an agent before its collector (the
# agent's poller asks its collector).
BUILT = (("agent.app", "Agent"), ("agent.gpu.collector", "GpuCollector"))


class _WhenImported:
    """First in sys.meta_path: once a module named in `names` is imported, `then(module)`.  The import itself is the
    other finders' (an editable install's, the path's); the source loader they make for this one import runs it."""

    def __init__(self, names, then):
        self.names, self.then = names, then

    def find_spec(self, name, path, target=None):
        if name not in self.names:
            return None
        for finder in sys.meta_path:
            spec = None if finder is self else getattr(finder, "find_spec", lambda *_: None)(name, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            self.then(module)
        spec.loader.exec_module = exec_module
        return spec


@pytest.fixture(autouse=True)
def _built_agents_closed(monkeypatch):
    """Tests build agents (agent.app.build) and GPU collectors and drive them by hand, here and in other directories
    (test_telemetry's `make`); most never shut one down.  Each owns threads (its NVML workers, one per GPU; udev's
    observer; the poller, Xid and checks threads once started) that outlived the test: ~600 by the end of
    tests/agent.  Whatever a test built is closed after it.  This conftest imports nothing of the agent: a class is
    followed from the test's start where its module is imported already, else from the import (a test module that
    imports the collector and not agent.app, test_nvml_standin; one that imports test_telemetry inside a test,
    test_peers: their collectors were never closed, and each run alone left NVML workers running)."""
    classes = dict(BUILT)
    built: dict[str, list] = {module: [] for module in classes}

    def follow(module) -> None:
        cls, into = getattr(module, classes[module.__name__]), built[module.__name__]

        def __init__(self, *args, _init=cls.__init__, **kwargs):
            _init(self, *args, **kwargs)
            into.append(self)
        monkeypatch.setattr(cls, "__init__", __init__)

    later = [name for name in classes if name not in sys.modules]
    for name in classes.keys() - later:
        follow(sys.modules[name])
    if later:
        monkeypatch.setattr(sys, "meta_path", [_WhenImported(later, follow), *sys.meta_path])
    yield
    for made in built.values():  # in BUILT's order
        for one in made:
            one.close()


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
