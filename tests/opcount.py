"""An operation count for tests that pin a cost (not a time, which a shared host's load moves), and the CPU time of
one call for tests that bound a cost in time (the hostile-input tests)."""

from __future__ import annotations

import gc
import sys
import time
from typing import Callable


def calls(fn: Callable[[], object]) -> int:
    """Python functions `fn` runs (generator resumptions and lambdas included).  Garbage is collected first and the
    collector held off meanwhile: in a whole test session, earlier tests leave cycles whose finalizers (a `__del__`,
    an unfinished generator's close) run inside whichever call a collection happens to start in, and were counted as
    `fn`'s (CI once measured 36.02 calls a pod finding against 36.0)."""
    n = 0

    def count(frame, event, arg):
        nonlocal n
        n += event == "call"
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    sys.setprofile(count)
    try:
        fn()
    finally:
        sys.setprofile(None)
        if enabled:
            gc.enable()
    return n


def cpu_seconds(fn: Callable[[], object]) -> float:
    """CPU seconds this thread spent in fn(), the garbage collector held off: what an input costs, not a collection of
    the test's heap or another process holding the core (wall clock failed these tests on a loaded CI host: a 0.36 s
    pause on a line that takes 0.6 ms; a 1 MiB line at 0.68 s under a load average of 5)."""
    gc.disable()
    try:
        t0 = time.thread_time()
        fn()
        return time.thread_time() - t0
    finally:
        gc.enable()
