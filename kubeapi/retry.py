"""Retrying a Kubernetes API call: how long to wait (the server's Retry-After, else exponential backoff with jitter)
and how to name a failure in a metric label and a log line.  Shared by every program that writes to the API."""

from __future__ import annotations

import random
from typing import Callable


def next_delay(backoff: float, retry_after: float | None, maximum: float,
               jitter: Callable[[], float] = lambda: random.uniform(0.8, 1.2)) -> tuple[float, float]:
    """(wait now, backoff to remember) after a failed write. The server's Retry-After is the wait, as given
    (capped at the maximum), and does not grow the backoff; otherwise exponential from 1 s with jitter.
    Never longer than `maximum`."""
    if retry_after is not None:
        return min(retry_after, maximum), backoff
    backoff = min(max(1.0, backoff * 2), maximum)
    return min(backoff * jitter(), maximum), backoff


def retry_after(exc: Exception) -> float | None:
    headers = getattr(exc, "headers", None) or {}
    value = headers.get("Retry-After") if hasattr(headers, "get") else None
    try:
        return min(float(value), 300.0) if value is not None else None
    except ValueError:
        return None


def error_kind(exc: Exception) -> str:
    status = getattr(exc, "status", None)
    if isinstance(status, int) and status:
        return str(status)
    return "timeout" if "timeout" in type(exc).__name__.lower() or "timed out" in str(exc).lower() else "connection"


def describe(exc: Exception) -> str:
    status = getattr(exc, "status", None)
    return f"HTTP {status} {getattr(exc, 'reason', '')}".strip() if status else f"{type(exc).__name__}: {exc}"[:200]
