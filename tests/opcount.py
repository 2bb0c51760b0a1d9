"""An operation count for tests that pin a cost (not a time, which a shared host's load moves)."""

from __future__ import annotations

import gc
import sys
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
