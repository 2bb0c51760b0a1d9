"""Two made-up rows of the optional sinks' table (agent/sinks/__init__.py `SINKS`, empty so far), shared by
tests/agent/test_sinks.py and the fresh interpreter it starts with them in the table.  It imports only agent.sinks
and agent.keyspec, so that the rows can be put into `SINKS` before agent.settings derives the configuration."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from agent import sinks
from agent.keyspec import doc, num


@dataclass(frozen=True)
class TapSettings:
    enabled: Annotated[bool, doc("keep snapshots in a list")] = False
    limit: Annotated[int, num("snapshots kept", gt=0)] = 8


class Tap:
    def __init__(self, settings: TapSettings, node: str):
        self.settings, self.node, self.seen, self.started = settings, node, [], False

    def apply(self, snapshot) -> None:
        self.seen.append(snapshot)


class ThreadedTap(Tap):
    def start(self) -> None:
        self.started = True

    def close(self) -> None:
        self.started = False


ROWS = (sinks.SinkRow("tap", TapSettings, Tap, "snapshots kept in a list"),
        sinks.SinkRow("threaded", TapSettings, ThreadedTap, "the same, on a thread of its own"))
