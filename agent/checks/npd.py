"""node-problem-detector custom-plugin monitors, run unchanged.

The config is NPD's own JSON (`plugin: custom`, `pluginConfig`, `conditions`, `rules`) and the protocol
is NPD's: a rule's program exits 0 (OK), 1 (NonOK) or anything else (Unknown); its trimmed stdout,
cut at `max_output_length`, is the message.  Defaults and the per-rule timeout (used only when shorter
than the global one) follow NPD's pkg/custompluginmonitor.

Beyond NPD: a program is started in its own session and its stdout is read by the runner itself with a
deadline, so a program -- or a grandchild that moved to its own session and kept stdout open -- can never
hold a check thread past the timeout (plus GRACE_SECONDS); at the deadline the process group and every
process holding the pipe are killed. What is read is capped; a program that cannot start, hangs, leaves
processes behind, is killed by a signal or prints bytes that are not text is Unknown with the reason in the
message -- never OK, never an exception.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from kubeapi.reserved import reserved_condition
from parsers.units import go_duration

OK, NONOK, UNKNOWN = "OK", "NonOK", "Unknown"
STATUS_BY_EXIT = {0: OK, 1: NONOK}  # every other exit status is Unknown (NPD plugin.go)

# NPD's defaults (pkg/custompluginmonitor/types/config.go)
DEFAULTS = {"invoke_interval": "30s", "timeout": "5s", "max_output_length": 80, "concurrency": 3}
READ_CAP = 4096  # bytes read from a program's stdout (NPD: maxCustomPluginBufferBytes)



class ConfigError(ValueError):
    """A plugin config that NPD would refuse; the message is one line."""


def parse_duration(text: str) -> float:
    """A Go duration string ("30s", "1m30s", "500ms") in seconds (parsers/units.py)."""
    seconds = go_duration(text)
    if seconds is None:
        raise ConfigError(f"not a duration: {text!r}")
    return seconds


@dataclass(frozen=True)
class Rule:
    type: str  # "temporary" (an Event) | "permanent" (a condition)
    reason: str
    path: str
    args: tuple[str, ...] = ()
    condition: str = ""
    timeout: float | None = None


@dataclass(frozen=True)
class PluginConfig:
    source: str
    invoke_interval: float
    timeout: float
    max_output_length: int
    concurrency: int
    conditions: dict[str, dict[str, str]]  # type -> {"reason", "message"} (the healthy default)
    rules: tuple[Rule, ...]
    base_dir: Path = Path(".")  # relative rule paths resolve here (NPD: its working directory)
    gpu_load: bool = False  # ours: rules load GPUs (run only while no compute process is on a GPU)


@dataclass(frozen=True)
class Result:
    rule: Rule
    status: str  # OK | NonOK | Unknown | Skipped
    message: str
    duration: float = 0.0


def load_config(path: str | Path, base_dir: str | Path | None = None) -> PluginConfig:
    p = Path(path)
    try:
        raw = json.loads(p.read_text())
    except (OSError, ValueError) as e:
        raise ConfigError(f"{p}: {e}") from None
    return parse_config(raw, base_dir=Path(base_dir) if base_dir is not None else Path.cwd(), name=str(p))


def parse_config(raw: Any, base_dir: Path = Path("."), name: str = "plugin config") -> PluginConfig:
    if not isinstance(raw, dict):
        raise ConfigError(f"{name}: not a JSON object")
    if raw.get("plugin") != "custom":
        raise ConfigError(f"{name}: plugin is {raw.get('plugin')!r}, only 'custom' is supported")
    pc = {**DEFAULTS, **(raw.get("pluginConfig") or {})}
    try:
        interval, timeout = parse_duration(pc["invoke_interval"]), parse_duration(pc["timeout"])
        max_out, conc = int(pc["max_output_length"]), int(pc["concurrency"])
    except (TypeError, ValueError) as e:
        raise ConfigError(f"{name}: pluginConfig: {e}") from None
    if interval <= 0 or timeout <= 0 or max_out <= 0 or conc <= 0:
        raise ConfigError(f"{name}: pluginConfig values must be positive")
    conditions = {}
    for c in raw.get("conditions") or []:
        if not isinstance(c, dict) or not c.get("type"):
            raise ConfigError(f"{name}: a condition without a type")
        if (why := reserved_condition(c["type"])) is not None:
            raise ConfigError(f"{name}: conditions: {why}")
        conditions[c["type"]] = {"reason": c.get("reason", ""), "message": c.get("message", "")}
    rules = []
    for i, r in enumerate(raw.get("rules") or []):
        if not isinstance(r, dict):
            raise ConfigError(f"{name}: rule {i} is not an object")
        kind = r.get("type")
        if kind not in ("temporary", "permanent"):
            raise ConfigError(f"{name}: rule {i}: type {kind!r} is neither temporary nor permanent")
        if not r.get("path") or not r.get("reason"):
            raise ConfigError(f"{name}: rule {i}: path and reason are required")
        cond = r.get("condition", "")
        if kind == "permanent" and cond not in conditions:
            raise ConfigError(f"{name}: rule {i}: permanent problem {cond!r} has no preset default condition")
        rules.append(Rule(kind, r["reason"], r["path"], tuple(str(a) for a in r.get("args") or ()), cond,
                          parse_duration(r["timeout"]) if r.get("timeout") else None))
    return PluginConfig(raw.get("source") or "custom-plugin-monitor", interval, timeout, max_out, conc,
                        conditions, tuple(rules), base_dir, bool(raw.get("gpuLoad", False)))


GRACE_SECONDS = 1.0  # after the program exits, how long its output may still arrive from what it left behind


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _pipe_holders(fd: int) -> list[int]:
    """Processes other than us that hold the other end of our pipe `fd` open: what a plugin left behind,
    whatever session or group it moved to (a grandchild that called setsid escapes both)."""
    try:
        inode = os.fstat(fd).st_ino
    except OSError:
        return []
    target, me, found = f"pipe:[{inode}]", os.getpid(), []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == me:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            if any(os.readlink(f"/proc/{pid}/fd/{n}") == target for n in fds):
                found.append(int(pid))
        except OSError:  # gone, or not ours to look at
            continue
    return found


def _kill_leftovers(proc: subprocess.Popen, fd: int) -> int:
    """Kill the program's process group, its session, and whoever still holds its stdout; how many held it."""
    _kill_group(proc)
    holders = _pipe_holders(fd)
    for pid in holders:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return len(holders)


def _read_until(fd: int, deadline: float, cap: int, out: list[bytes], exited: Callable[[], bool]) -> bool:
    """Read `fd` (non-blocking) into `out`, keeping the first `cap` bytes and draining the rest, until end of
    file (True) or `deadline` (False). Once the program has exited, its output gets GRACE_SECONDS more at
    most. Whoever holds the pipe, this returns by the deadline: no thread is left blocked on it."""
    os.set_blocking(fd, False)
    kept = 0
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        grace_from = None
        while True:
            now = time.monotonic()
            if grace_from is None and exited():
                grace_from = now
                deadline = min(deadline, now + GRACE_SECONDS)
            if now >= deadline:
                return False
            if not sel.select(min(deadline - now, 0.05)):
                continue
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                return True
            if not chunk:
                return True
            if kept < cap:
                out.append(chunk[: cap - kept])
                kept += len(out[-1])


def run_rule(rule: Rule, cfg: PluginConfig, env: dict[str, str] | None = None) -> Result:
    timeout = rule.timeout if rule.timeout is not None and rule.timeout < cfg.timeout else cfg.timeout
    path = rule.path if os.path.isabs(rule.path) else str(cfg.base_dir / rule.path)
    start = time.monotonic()

    def done(status: str, message: str) -> Result:
        return Result(rule, status, message[: cfg.max_output_length], time.monotonic() - start)

    try:
        proc = subprocess.Popen([path, *rule.args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=cfg.base_dir, env=env, start_new_session=True)
    except OSError as e:
        return done(UNKNOWN, f"cannot start {rule.path}: {e.strerror or e}")
    chunks: list[bytes] = []
    fd = proc.stdout.fileno()
    deadline = start + timeout
    complete = _read_until(fd, deadline, READ_CAP, chunks, lambda: proc.poll() is not None)
    try:  # end of its output is not yet its exit: it may close stdout and run on, or be a moment from exiting
        proc.wait(max(0.0, deadline - time.monotonic()))
        timed_out = False
    except subprocess.TimeoutExpired:
        timed_out = True
    held = 0
    if timed_out or not complete:  # still running, or something it started still holds its stdout
        held = _kill_leftovers(proc, fd)
    try:
        proc.wait(GRACE_SECONDS if not timed_out else 5.0)
    except subprocess.TimeoutExpired:  # unkillable (D state): say so, never wait on it
        return done(UNKNOWN, f"Timeout when running plugin {rule.path!r} after {timeout:g}s: it does not die")
    finally:
        proc.stdout.close()  # nobody reads it: closing cannot block
    raw = b"".join(chunks)
    try:
        output = raw.decode("utf-8").strip()
        garbage = any(ord(ch) < 32 and ch not in "\t\n\r" for ch in output)
    except UnicodeDecodeError:
        output, garbage = raw.decode("utf-8", "replace").strip(), True
    if timed_out:
        return done(UNKNOWN, f"Timeout when running plugin {rule.path!r} after {timeout:g}s. output - {output!r}")
    if proc.returncode < 0:
        return done(UNKNOWN, f"plugin {rule.path!r} killed by signal {-proc.returncode}. output - {output!r}")
    if garbage:
        return done(UNKNOWN, f"plugin {rule.path!r} printed non-text output (exit {proc.returncode})")
    if held:  # it exited, but left processes holding its output: a check that does not end is no answer
        return done(UNKNOWN, f"plugin {rule.path!r} left {held} process(es) holding its output; killed. "
                             f"output - {output!r}")
    return done(STATUS_BY_EXIT.get(proc.returncode, UNKNOWN), output)


def run_rules(cfg: PluginConfig, skip: Callable[[Rule], str | None] = lambda r: None,
              env: dict[str, str] | None = None) -> list[Result]:
    """One invocation of every rule, at most `concurrency` at a time; results in rule order.

    `skip(rule)` returns a reason to skip a rule (the GPU is busy) or None."""
    def one(rule: Rule) -> Result:
        why = skip(rule)
        if why:
            return Result(rule, "Skipped", f"Skipped({why})")
        try:
            return run_rule(rule, cfg, env)
        except Exception as e:  # noqa: BLE001 - a check never takes the agent down
            return Result(rule, UNKNOWN, f"check runner error: {type(e).__name__}: {e}"[: cfg.max_output_length])
    # here, not at import: an agent with no checks configured (the default) never loads concurrent.futures (idle
    # footprint, issue 24)
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    with ThreadPoolExecutor(max_workers=cfg.concurrency, thread_name_prefix="check") as pool:
        return list(pool.map(one, cfg.rules))
