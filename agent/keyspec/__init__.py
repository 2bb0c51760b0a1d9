"""How a configuration key is declared (agent/settings.py, agent/kube/settings.py): its doc and bounds ride on its
type, `Annotated[float, num("what it means", gt=0)]`; msgspec checks the bounds and the docs render them.
A package of its own so that every block's declaration (agent/kube/settings.py, ...) imports it downward."""

from __future__ import annotations

from typing import Any

import msgspec

LIMIT = 10**9  # no number means anything past this (31 years of seconds, a petabyte in MB): a typo or an attack


def doc(text: str, **bounds: Any) -> msgspec.Meta:
    """A key's doc (one or two sentences) and any bounds msgspec.Meta takes (gt, ge, lt, le, pattern)."""
    return msgspec.Meta(description=text, **bounds)


def num(text: str, **bounds: Any) -> msgspec.Meta:
    """A number's doc and bounds: every number lies within +-LIMIT as well."""
    bounds.setdefault("le", LIMIT)
    if "gt" not in bounds:
        bounds.setdefault("ge", -LIMIT)
    return doc(text, **bounds)
