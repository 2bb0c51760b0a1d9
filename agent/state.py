"""The state file: problems, conditions, source cursors and counters, written atomically."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
VERSION = 1


class StateStore:
    def __init__(self, state_dir: str, name: str = "state.json"):
        self.dir = Path(state_dir)
        self.path = self.dir / name

    def load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            # A damaged state file must not stop detection: start fresh, keep the bad file aside.
            log.warning("state file %s unreadable (%s); starting fresh", self.path, exc)
            try:
                self.path.replace(self.path.with_suffix(".corrupt"))
            except OSError:
                pass
            return {}
        return data if isinstance(data, dict) and data.get("version") == VERSION else {}

    def save(self, data: dict[str, Any]) -> None:
        """Temp file in the same directory, fsync, rename, fsync the directory."""
        self.dir.mkdir(parents=True, exist_ok=True)
        payload = json.dumps({"version": VERSION, **data}, separators=(",", ":"), default=str).encode()
        fd, tmp = tempfile.mkstemp(prefix=".state-", dir=self.dir)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(payload)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        dfd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
