"""The `workload_hang` and `peer_outliers` blocks: settings of hang suspicion (agent/progress.py) and of the
peer-outlier test (agent/peers.py), checked once with a clear error naming the key."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .keyspec import LIMIT

PEER_DEFAULTS = {"enabled": False, "k": 5.0, "polls": 3, "min_peers": 4}


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


DEFAULTS = asdict(HangSettings())  # the `workload_hang` block's keys and defaults: the dataclass's


def settings(block: Any) -> HangSettings:
    """The `workload_hang` block -> settings; a clear one-line error naming the key otherwise."""
    return HangSettings(**checked("workload_hang", block, DEFAULTS))


def peer_settings(block: Any) -> dict[str, Any]:
    """The `peer_outliers` block -> PeerOutliers' arguments (with `enabled`)."""
    return checked("peer_outliers", block, PEER_DEFAULTS)


def checked(name: str, block: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    if block is None:
        block = {}
    if not isinstance(block, dict):
        raise SettingsError(f"{name}: expected a mapping, got {block!r}"[:160])
    unknown = set(block) - set(defaults)
    if unknown:
        raise SettingsError(f"{name}: unknown key {sorted(unknown, key=str)[0]!r} (known: {', '.join(defaults)})")
    values = {**defaults, **block}
    out: dict[str, Any] = {}
    for key, default in defaults.items():
        value = values[key]
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise SettingsError(f"{name}.{key}: expected true or false, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value > LIMIT:
            raise SettingsError(f"{name}.{key}: expected a number greater than 0, got {value!r}")
        elif isinstance(default, int) and value != int(value):
            raise SettingsError(f"{name}.{key}: expected a whole number, got {value!r}")
        out[key] = type(default)(value)
    return out


