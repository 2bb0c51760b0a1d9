"""The agent's own log: text for people, JSON lines for log pipelines (`log_format`)."""

from __future__ import annotations

import json
import logging
import sys

# the one timestamp key and stamp of every line gpu-npd writes (its log and the stdout sink's events)
from .sinks.stdout import TIME_KEY, utc_iso

TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class TextFormatter(logging.Formatter):
    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 - logging's name
        return utc_iso(record.created)  # with its zone: a node's local time is not the reader's


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        doc = {TIME_KEY: utc_iso(record.created),
               "level": record.levelname.lower(), "logger": record.name, "msg": record.getMessage()}
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, ensure_ascii=False)


def setup(level: str, fmt: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter(TEXT))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
