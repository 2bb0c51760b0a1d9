"""Local mode: condition changes and new problems as structured JSON lines on stdout."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from typing import IO

from parsers.model import Snapshot


class StdoutSink:
    def __init__(self, node: str, out: IO[str] | None = None):
        self.node = node
        self.out = out or sys.stdout

    def _write(self, obj: dict) -> None:
        self.out.write(json.dumps({"time": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
                                   "node": self.node, **obj}) + "\n")

    def apply(self, snapshot: Snapshot) -> None:
        for p in snapshot.new_problems:
            self._write({"event": "problem", "condition": p.condition, "reason": p.reason,
                         "severity": p.severity, "attribution": p.attribution, "action": p.action,
                         "subject": p.subject, "message": p.message})
        for c in snapshot.changed:
            self._write({"event": "condition", "condition": c.type, "status": "True" if c.status else "False",
                         "reason": c.reason, "message": c.message,
                         "lastTransitionTime": datetime.fromtimestamp(c.last_transition, timezone.utc).isoformat()})
        for e in snapshot.pod_events:  # a workload failure (pod logs): a JSON line, like the Pod Event it becomes
            self._write({"event": "workload", "namespace": e.ref.namespace, "pod": e.ref.pod,
                         "container": e.ref.container, "reason": e.reason, "message": e.message})
        self.out.flush()
