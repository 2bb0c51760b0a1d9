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
