"""sysfs readers.  Every path hangs off a root prefix so tests run on fixture trees."""

from __future__ import annotations

import os


def read_text(path: str) -> str | None:
    """One small sysfs attribute, or None when it is missing or unreadable (devices come and go)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(fd, 65536).decode("ascii", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)


def read_int(path: str) -> int | None:
    text = read_text(path)
    if text is None:
        return None
    try:
        return int(text.split(":", 1)[0].split()[0], 0)
    except (ValueError, IndexError):
        return None
