"""The `workload_hang` block: settings of hang suspicion (agent/progress.py), checked once with a clear error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULTS = {"enabled": True, "k": 10.0, "floor_seconds": 600.0, "pause_seconds": 3600.0, "min_steps": 3,
            "max_pods": 512}


class SettingsError(ValueError):
    """A bad `workload_hang` value; the message names the key."""


@dataclass(frozen=True)
class HangSettings:
    enabled: bool = True
    k: float = 10.0  # silence allowed, in median intervals between progress lines
    floor_seconds: float = 600.0  # never less than this (a fleet default must not page on a slow logger)
    pause_seconds: float = 3600.0  # after an announced checkpoint save / evaluation
    min_steps: int = 3  # advances seen before a pod counts as "was making progress"
    max_pods: int = 512  # pods tracked per node; past it the longest-silent one is forgotten


def settings(block: Any) -> HangSettings:
    """The `workload_hang` block -> settings; a clear one-line error naming the key otherwise."""
    if block is None:
        block = {}
    if not isinstance(block, dict):
        raise SettingsError(f"workload_hang: expected a mapping, got {block!r}"[:160])
    unknown = set(block) - set(DEFAULTS)
    if unknown:
        raise SettingsError(f"workload_hang: unknown key {sorted(unknown)[0]!r} (known: {', '.join(DEFAULTS)})")
    values = {**DEFAULTS, **block}
    out: dict[str, Any] = {}
    for key, default in DEFAULTS.items():
        value = values[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise SettingsError(f"workload_hang.{key}: expected true or false, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value > 1e9:
            raise SettingsError(f"workload_hang.{key}: expected a number greater than 0, got {value!r}")
        elif isinstance(default, int) and value != int(value):
            raise SettingsError(f"workload_hang.{key}: expected a whole number, got {value!r}")
        out[key] = type(default)(value)
    return HangSettings(**out)


