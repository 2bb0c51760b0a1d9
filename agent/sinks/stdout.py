"""Local mode: condition changes and new problems as structured JSON lines on stdout."""

from __future__ import annotations

import json
import sys
import time
from datetime import datetime, timezone
from typing import IO

from ..health import Change
from ..logs import TIME_KEY, utc_iso


class StdoutSink:
    def __init__(self, node: str, out: IO[str] | None = None):
        self.node = node
        self.out = out or sys.stdout

    def _write(self, obj: dict) -> None:
        self.out.write(json.dumps({TIME_KEY: utc_iso(time.time()),
                                   "node": self.node, **obj}) + "\n")

    def apply(self, change: Change) -> None:
        for p in change.new_problems:
            self._write({"event": "problem", "condition": p.condition, "reason": p.reason,
                         "severity": p.severity, "attribution": p.attribution, "action": p.action,
                         "subject": p.subject, "message": p.message})
        for c in change.conditions:
            self._write({"event": "condition", "condition": c.type, "status": "True" if c.status else "False",
                         "reason": c.reason, "message": c.message,
                         "lastTransitionTime": datetime.fromtimestamp(c.last_transition, timezone.utc).isoformat()})
        self.out.flush()

    def workload(self, ref, reason: str, message: str) -> None:
        """A workload failure (pod logs): said as a JSON line, like the Pod Event it becomes."""
        self._write({"event": "workload", "namespace": ref.namespace, "pod": ref.pod, "container": ref.container,
                     "reason": reason, "message": message})
        self.out.flush()
