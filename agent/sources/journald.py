"""journald's kernel messages through a `journalctl --merge _TRANSPORT=kernel _BOOT_ID=<this boot> -f -o json`
subprocess (what `-k` filters), with its cursor.

`--merge`, not journalctl's default of "this machine's journals only": that default keeps the journal directories
named after /etc/machine-id, and the pod does not mount the host's (a hostPath of type File some nodes lack,
b237f87), so a persistent journal (/var/log/journal/<host's id>: Flatcar, Amazon Linux 2023, Fedora CoreOS) would
be skipped, silently (measured with systemd 252, the image's: only /run/log/journal is read whatever the id).  `-k`
implies `-b`, which journalctl refuses with `--merge`; the boot is matched instead (another machine's journal,
as journal-remote keeps, has other boots)."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from datetime import datetime, timezone

from parsers.envelope import journal_field

from ..keyspec import Invalid, convert, dropped
from . import Emit, Record, Source, SourceAbsent


def to_line(entry: dict) -> str | None:
    """A journal entry as a short-iso syslog line, so the parsers see its timestamp."""
    msg = journal_field(entry.get("MESSAGE"))  # a string, journald's byte array, a repeated field: as the parsers read it
    if msg is None:
        return None
    try:
        ts = datetime.fromtimestamp(int(entry["__REALTIME_TIMESTAMP"]) / 1e6, timezone.utc).isoformat()
    except (KeyError, ValueError):
        return msg
    return f"{ts} {entry.get('_HOSTNAME', '-')} kernel: {msg}"


class JournaldSource(Source):
    name = "journald"

    def __init__(self, cursor: str | None = None, journalctl: str = "journalctl"):
        try:
            self.cursor = convert(cursor, str | None, "cursors.journald")
        except Invalid as exc:  # a saved cursor of another type (`--after-cursor={...}`: refused at each restart)
            self.cursor = None  # the journal of this boot from its start, said once
            dropped("state file: saved cursors", [str(exc)])
        self.journalctl = journalctl

    def command(self) -> list[str]:
        boot = _boot_id()
        only = ["--merge", "_TRANSPORT=kernel", f"_BOOT_ID={boot}"] if boot else ["-k"]
        cmd = [self.journalctl, *only, "-f", "--no-tail", "-o", "json", "--no-pager"]
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


def _boot_id(path: str = "/proc/sys/kernel/random/boot_id") -> str | None:
    """This boot's id as the journal writes it (32 hex digits; the kernel's, so the host's in a pod too)."""
    try:
        with open(path, encoding="ascii") as fh:
            boot = fh.read().strip().replace("-", "").lower()
    except (OSError, ValueError):
        return None
    return boot if len(boot) == 32 and all(c in "0123456789abcdef" for c in boot) else None
