"""journald's kernel messages through a `journalctl -k -f -o json` subprocess, with its cursor."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from datetime import datetime, timezone

from . import Emit, Record, Source, SourceAbsent


def to_line(entry: dict) -> str | None:
    """A journal entry as a short-iso syslog line, so the parsers see its timestamp."""
    msg = entry.get("MESSAGE")
    if isinstance(msg, list):  # binary messages come as byte arrays
        msg = bytes(msg).decode("utf-8", "replace")
    if not isinstance(msg, str):
        return None
    try:
        ts = datetime.fromtimestamp(int(entry["__REALTIME_TIMESTAMP"]) / 1e6, timezone.utc).isoformat()
    except (KeyError, ValueError):
        return msg
    return f"{ts} {entry.get('_HOSTNAME', '-')} kernel: {msg}"


class JournaldSource(Source):
    name = "journald"

    def __init__(self, cursor: str | None = None, journalctl: str = "journalctl"):
        self.cursor = cursor
        self.journalctl = journalctl

    def command(self) -> list[str]:
        cmd = [self.journalctl, "-k", "-f", "--no-tail", "-o", "json", "--no-pager"]
        if self.cursor:
            cmd.append(f"--after-cursor={self.cursor}")
        return cmd

    def run(self, emit: Emit, stop: threading.Event) -> None:
        exe = shutil.which(self.journalctl)
        if exe is None:
            raise SourceAbsent("journalctl not found: journald source off")
        proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stopper = threading.Thread(target=lambda: (stop.wait(), proc.terminate()), daemon=True)
        stopper.start()
        assert proc.stdout is not None
        for raw in proc.stdout:  # kernel messages are few: one record per emit keeps latency low
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            line = to_line(entry)
            if line is None:
                continue
            self.cursor = entry.get("__CURSOR", self.cursor)
            emit([Record(self.name, line, self.cursor)])
        code = proc.wait()
        err = proc.stderr.read() if proc.stderr else ""
        if stop.is_set():
            return
        if "No journal files" in err or "no journal" in err.lower():
            raise SourceAbsent("journald has no journal files on this host: journald source off")
        raise RuntimeError(f"journalctl exited with {code}: {err.strip()[:200]}")
