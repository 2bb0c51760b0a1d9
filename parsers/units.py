"""Units of time as logs and configs print them, in seconds: one table (a Go duration's units, which NPD's plugin
configs and PyTorch's c10d store timeouts print; a trainer's step time's), and the one reader of a duration
string."""

from __future__ import annotations

import re

# Go's time.ParseDuration units (its "µs" either micro sign, U+00B5 or U+03BC), every unit a log here prints a time in
SECONDS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d{1,18}(?:\.\d{1,18})?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")
_CLOCK = re.compile(r"(\d{1,9}):([0-5]\d):([0-5]\d(?:\.\d{1,6})?)")  # Python's timedelta as str() prints it


def go_duration(text: object) -> float | None:
    """A Go duration string ("30s", "1m30s", "500ms", "1.5h": time.ParseDuration's form, unsigned) in seconds; None
    where it is not one (never raises)."""
    s = str(text).strip()
    parts = _PART.findall(s)
    if not s or "".join(n + u for n, u in parts) != s:
        return None
    return sum(float(n) * SECONDS[u] for n, u in parts)


def duration(text: object, bare: float | None = None) -> float | None:
    """A duration as a log prints it, in seconds: Go's form (go_duration), Python's timedelta as str() prints it
    ("0:30:00", PyTorch's `timeout=` in its messages), or, where `bare` is given, a bare number in that unit ("1800"
    with bare=1.0: seconds); None where it is none of these (never raises)."""
    s = str(text).strip()
    if bare is not None and s.isascii() and s.isdigit() and len(s) <= 18:
        return int(s) * bare
    clock = _CLOCK.fullmatch(s)
    if clock is not None:
        return int(clock.group(1)) * 3600.0 + int(clock.group(2)) * 60.0 + float(clock.group(3))
    return go_duration(s)
