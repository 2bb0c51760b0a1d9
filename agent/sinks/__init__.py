"""Sinks are told what changed in the node state and make the world match it.

The sinks an operator turns on are a table, `SINKS`: one row per sink, declared once.  Its row names the sink, the
frozen dataclass of its keys (the configuration's `sinks.<name>` block: `enabled`, off by default, then its own
keys, each `Annotated` with its doc and bounds as every key is: agent/keyspec) and the function that builds it from
that block and the node's name.  The `sinks` block of the configuration (`Sinks`), its defaults, validation,
environment variables and reference docs derive from the rows, and `agent/app.py` appends every enabled one to the
sinks (a sink with `start()` and `close()` is also started and closed with the agent's writer threads).  The
sinks the agent always has (stdout, metrics, workloads) and the Kubernetes sink (by `mode`) are not rows."""

from __future__ import annotations

from dataclasses import dataclass, field, make_dataclass
from typing import Annotated, Any, Callable

from ..keyspec import doc


@dataclass(frozen=True)
class SinkRow:
    name: str  # its block: `sinks.<name>`
    settings: type  # a frozen dataclass whose first key is `enabled: bool = False`
    build: Callable[[Any, str], Any]  # (its block's settings, the node's name) -> the sink (`apply(snapshot)`)
    doc: str  # what it sends where: the doc of its block


SINKS: tuple[SinkRow, ...] = ()  # no optional sink yet: docs/extending.md, "A new sink"

def block(rows: tuple[SinkRow, ...]) -> type:
    """The `sinks` block of the configuration: one key per row, its block of keys (agent/keyspec converts it)."""
    return make_dataclass("Sinks", [(r.name, Annotated[r.settings, doc(r.doc)], field(default_factory=r.settings))
                                    for r in rows], frozen=True)


Sinks = block(SINKS)


def enabled(settings: Any, node: str, rows: tuple[SinkRow, ...] | None = None) -> list[Any]:
    """The sinks of the rows (`SINKS`) whose block in `settings` (the `sinks` block) is enabled, built."""
    rows = SINKS if rows is None else rows
    return [r.build(getattr(settings, r.name), node) for r in rows if getattr(settings, r.name).enabled]
