"""The state file: problems, conditions, source cursors and counters, written atomically."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
VERSION = 1
MAX_BYTES = 64 << 20  # far above any real state (problems and cursors are capped); a bigger file is not ours
MAX_DEPTH = 16        # our state nests 5 levels at most
# top-level keys and the JSON type each must have
SHAPE = {"boot_id": str, "cursors": dict, "totals": dict, "samples": dict, "problems": list, "conditions": dict}
LOCK = "lock"  # in the state directory: held by the one agent that uses it


class StateDirInUse(RuntimeError):
    """Another live process holds the state directory's lock; the message names the directory and its pid."""


def hold_state_dir(state_dir: str) -> int | None:
    """Take the state directory's lock for the life of this process (an flock on <state_dir>/lock: the kernel lets
    go of it when the process ends, however it ends, and a hostPath directory's lock holds across containers). Two
    agents on one directory would overwrite each other's state and write one node's conditions twice. Returns the
    lock's descriptor, to keep open; None when no lock can be taken (a directory that cannot be made or written:
    the agent runs on from memory and its saves say so; a filesystem without locks: a warning says so). Raises
    StateDirInUse while another process holds it; never OSError (a full disk: the lock held, its pid not written)."""
    path = os.path.join(state_dir, LOCK)
    try:
        os.makedirs(state_dir, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise StateDirInUse(f"state directory {state_dir} is in use by another gpu-npd (pid {holder}, in its "
                                "pid namespace): stop it, or give this one another --state-dir") from None
        # a filesystem that refuses locks (ENOLCK: an NFS mount without its lock daemon): no guard, said; it runs on
        log.warning("state directory %s: no lock can be taken on it (%s): a second agent on it is not refused",
                    state_dir, exc.strerror or exc)
        return None
    try:  # the holder's pid, for the next one's refusal (a full disk: "unknown" there, the lock held all the same)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass
    return fd


def shape_problem(data: dict[str, Any]) -> str | None:
    """Why a parsed state cannot be ours (depth, types), or None."""
    for key, kind in SHAPE.items():
        if key in data and not isinstance(data[key], kind):
            return f"{key}: expected {kind.__name__}, got {type(data[key]).__name__}"
    stack = [(data, 1)]
    while stack:  # iterative: a hostile depth cannot overflow the checker itself
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels"
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return None


class StateStore:
    def __init__(self, state_dir: str, name: str = "state.json"):
        self.dir = Path(state_dir)
        self.path = self.dir / name
        self._written: tuple[int, bytes] | None = None  # the size and digest of the payload this store wrote last

    def load(self) -> dict[str, Any]:
        """The saved state, or {} to start fresh. What cannot be trusted (unreadable, not JSON, too large,
        too deeply nested, wrong types) is moved aside as `<name>.corrupt` with a warning: never an exit."""
        try:
            size = self.path.stat().st_size
            if size > MAX_BYTES:
                return self.reject(f"{size} bytes, more than {MAX_BYTES}")
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, RecursionError) as exc:
            return self.reject(str(exc)[:200] or type(exc).__name__)
        if not isinstance(data, dict):
            return self.reject(f"a JSON {type(data).__name__}, not an object")
        if data.get("version") != VERSION:  # another layout (an upgrade, or a downgrade): say so, keep it aside
            return self.set_aside(data.get("version"))
        problem = shape_problem(data)
        return self.reject(problem) if problem else data

    def reject(self, why: str) -> dict[str, Any]:
        # A damaged state file must not stop detection: start fresh, keep the bad file aside for a look. Where it
        # cannot be moved (no file there to move: the state directory is not a directory), the log says so.
        aside = self.path.with_suffix(".corrupt")
        try:
            self.path.replace(aside)
            done = f"moved aside as {aside.name}"
        except OSError as exc:
            done = f"not moved aside ({exc.strerror or exc})"
        log.warning("state file %s cannot be trusted (%s): %s, starting fresh", self.path, why, done)
        return {}

    def set_aside(self, version: Any) -> dict[str, Any]:
        """A state of another layout is not read (its problems, conditions and cursors start fresh) and is kept as
        `<name>.v<version>` so that going back to the version that wrote it finds it again."""
        tag = str(version) if isinstance(version, int) and not isinstance(version, bool) else "unknown"
        aside = self.path.with_name(f"{self.path.name}.v{tag}")
        log.warning("state file %s has layout version %s, this agent reads version %d: kept as %s, starting fresh "
                    "(standing problems are found again as their faults recur)", self.path, tag, VERSION, aside.name)
        try:
            self.path.replace(aside)
        except OSError:
            pass
        return {}

    def save(self, data: dict[str, Any]) -> None:
        """Temp file in the same directory, fsync, rename, fsync the directory; nothing when the file holds these
        bytes already (this store wrote them last, and the file is still there at their size): an idle agent's
        state, saved after each telemetry poll, is the same bytes every time, and was rewritten (two fsyncs) every
        `poll_seconds`."""
        payload = json.dumps({"version": VERSION, **data}, separators=(",", ":"), default=str).encode()
        written = len(payload), hashlib.blake2b(payload, digest_size=16).digest()  # (the payload itself: its RSS)
        if written == self._written and self._holds(len(payload)):
            return
        self.dir.mkdir(parents=True, exist_ok=True)
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
        self._written = written

    def _holds(self, size: int) -> bool:
        """The state file is there at `size` bytes (not removed, nor replaced by another, since this store wrote
        it)."""
        try:
            return self.path.stat().st_size == size
        except OSError:
            return False
