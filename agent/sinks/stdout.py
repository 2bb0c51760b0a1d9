"""Local mode: condition changes and new problems as structured JSON lines on stdout (notices too: Node Events)."""

from __future__ import annotations

import json
import logging
import sys
import time
from collections import OrderedDict
from datetime import datetime, timezone
from typing import IO, Callable

from parsers.bounded import keep_newest
from parsers.model import Snapshot

TIME_KEY = "time"  # the one timestamp key of every JSON line gpu-npd writes (these events, agent/logs.py's log)
# A pod's Event is updated on every line of its kind (its count, its ranks): its JSON line is written when it is new
# and then at most once per EVENT_REPEAT_SECONDS, with the updates in between counted ("repeats"), as the API server
# aggregates the Event; a pod printing 10,000 failing lines made 10,000 lines of this agent's own log (6 MB)
EVENT_REPEAT_SECONDS = 60.0
MAX_EVENT_KEYS = 4096  # Events whose last line is remembered (oldest forgotten: its next update is written)


def utc_iso(ts: float) -> str:
    """RFC 3339 in UTC with milliseconds: the same stamp in the events, the JSON log and the text log."""
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class StdoutSink:
    """A closed stdout (`gpu-npd run | head -1`: the reader has gone) is the reader's choice, not an error: said in
    one line of the log, nothing more written, and `on_closed` called (the agent stops as on SIGTERM, exit 0)."""

    def __init__(self, node: str, out: IO[str] | None = None, clock=time.monotonic,
                 on_closed: Callable[[], None] | None = None):
        self.node = node
        self.out = out or sys.stdout
        self.clock = clock
        self.on_closed = on_closed
        self.closed = False
        self._said: OrderedDict[str, list] = OrderedDict()  # an Event's key -> [when its line was written, updates since]

    def _write(self, obj: dict) -> None:
        self.out.write(json.dumps({TIME_KEY: utc_iso(time.time()),
                                   "node": self.node, **obj}) + "\n")

    def apply(self, snapshot: Snapshot) -> None:
        if self.closed:
            return
        try:
            self._apply(snapshot)
        except BrokenPipeError:
            self.closed = True
            logging.getLogger("gpu_npd").info("stdout closed by its reader: no more JSON lines; stopping")
            if self.on_closed is not None:
                self.on_closed()

    def _apply(self, snapshot: Snapshot) -> None:
        for p in snapshot.new_problems:
            self._write({"event": "problem", "condition": p.condition, "reason": p.reason,
                         "severity": p.severity, "attribution": p.attribution, "action": p.action,
                         "subject": p.subject, "message": p.message})
        for n in snapshot.notices:  # a node's finding that raised no problem: the Node Event it becomes
            self._write({"event": "notice", "reason": n.reason, "severity": n.severity, "subject": n.subject,
                         "message": n.message})
        for c in snapshot.changed:
            self._write({"event": "condition", "condition": c.type, "status": "True" if c.status else "False",
                         "reason": c.reason, "message": c.message,
                         "lastTransitionTime": datetime.fromtimestamp(c.last_transition, timezone.utc).isoformat()})
        for e in snapshot.pod_events:  # a workload failure (pod logs): a JSON line, like the Pod Event it becomes
            said, now = self._said.get(e.key), self.clock()
            if said is not None and e.count and now - said[0] < EVENT_REPEAT_SECONDS:  # (re-worded: said again)
                said[1] += 1
                continue
            line = {"event": "workload", "namespace": e.ref.namespace, "pod": e.ref.pod,
                    "container": e.ref.container, "reason": e.reason, "message": e.message}
            if said is not None and said[1]:
                line["repeats"] = said[1]  # updates of this Event since its last line
            self._write(line)
            keep_newest(self._said, e.key, [now, 0], MAX_EVENT_KEYS)
        self.out.flush()
