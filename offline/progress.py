"""A progress bar on stderr for `gpu-npd parse` of long inputs: bytes read of the total, and the rate.

Drawn with click's progress bar only when stderr is a terminal, redrawn a few times a second at most;
silent when stderr is a file or a pipe, and when the total is unknown (a pipe on stdin).
"""

from __future__ import annotations

import os
import stat
import sys
import time
from typing import TextIO

import click

LONG_INPUT = 64 << 20  # bytes: `auto` draws a bar from this total on (about half a second of parsing)
REDRAW_SECONDS = 0.2
MODES = ("auto", "always", "never")


def input_size(path: str) -> int | None:
    """Bytes in a regular file (`-`: stdin, when it is one); None for a pipe or a device; 0 for a file that
    cannot be read (it is reported, not counted)."""
    try:
        st = os.fstat(sys.stdin.fileno()) if path == "-" else os.stat(path)
    except (OSError, ValueError):
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else None


class ReadProgress:
    """Counts bytes read (`count`, given to `offline.inputs.read_input`) against `total` and draws them."""

    def __init__(self, total: int | None, mode: str = "auto", stream: TextIO | None = None):
        stream = stream or sys.stderr
        self.total = total
        self.read = 0
        self._pending = 0
        self._last = 0.0
        self._start = time.monotonic()
        shown = (mode != "never" and total is not None and total > 0 and _isatty(stream)
                 and (mode == "always" or total >= LONG_INPUT))
        self._bar = click.progressbar(length=total, file=stream, label="gpu-npd parse", width=24, show_eta=True,
                                      show_percent=True, item_show_func=lambda info: info) if shown else None
        if self._bar is not None:
            self._bar.__enter__()

    @property
    def shown(self) -> bool:
        return self._bar is not None

    def count(self, n: int) -> None:
        self.read += n
        if self._bar is None:
            return
        self._pending += n
        now = time.monotonic()
        if now - self._last >= REDRAW_SECONDS:
            self._draw(now)

    def _draw(self, now: float) -> None:
        rate = self.read / max(now - self._start, 1e-6)
        info = f"{self.read / 1e6:,.1f}/{(self.total or 0) / 1e6:,.1f} MB  {rate / 1e6:,.1f} MB/s"
        self._bar.update(self._pending, info)  # type: ignore[union-attr]
        self._pending, self._last = 0, now

    def close(self) -> None:
        """Draw the final count and end the bar's line (nothing when no bar was drawn)."""
        if self._bar is not None:
            self._draw(time.monotonic())
            self._bar.__exit__(None, None, None)
            self._bar = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
