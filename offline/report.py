"""Formatting findings for `gpu-npd parse`: JSON lines, or a table plus a summary."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from operator import attrgetter
from typing import IO, Iterable

from parsers import Cause, CauseIndex, Finding, amends, explain, likely_cause, xid_info
from parsers.envelope import host_key
from parsers.finding import SEVERITIES, SEVERITY_RANK, above

_COLUMNS = ("WHERE", "KIND", "SEVERITY", "ATTRIBUTION", "DEVICE", "ACTION", "MESSAGE")
_WIDTHS = (22, 20, 8, 11, 16, 24)
MESSAGE_WIDTH = 110


class Batched:
    """Text gathered and written in batches of `size` characters: one system call per batch, not per line,
    even when stdout is unbuffered (PYTHONUNBUFFERED, python -u).  `flush` writes the rest."""

    def __init__(self, out: IO[str], size: int = 1 << 16):
        self._out, self._size = out, size
        self._parts: list[str] = []
        self._pending = 0

    def write(self, text: str) -> int:
        n = len(text)
        self._parts.append(text)
        self._pending += n
        if self._pending >= self._size:
            self._write()
        return n

    def _write(self) -> None:
        parts, self._parts, self._pending = self._parts, [], 0
        self._out.write("".join(parts))

    def flush(self) -> None:
        if self._parts:
            self._write()
        self._out.flush()


def write_json(findings: Iterable[Finding], out: IO[str]) -> int:
    n, line, write = 0, JsonLines().line, out.write
    for f in findings:
        write(line(f))
        n += 1
    return n


# every field but timestamp, uptime, line, host (formatted per finding: a fleet's findings differ in their node) and
# details (keyed by its items)
_SHARED = ("kind", "severity", "attribution", "action", "message", "xid", "sxid", "pci", "pid", "process", "rank",
           "peer", "envelope", "program", "file")
if _odd := sorted((set(_SHARED) | {"timestamp", "uptime", "line", "host", "details"}) ^ set(Finding.__dataclass_fields__)):
    raise ValueError(f"offline/report.py: _SHARED and the Finding's fields differ in: {', '.join(_odd)}")
_shared = attrgetter(*_SHARED)


class JsonLines:
    """Finding -> its JSON line, `json.dumps(f.to_dict())` to the byte.  The findings of a storm share every
    field but when (timestamp, uptime) and where (line number, host): the text of the shared fields is encoded once
    and kept (a bounded table), and only those four are formatted per finding."""

    SIZE = 4096

    def __init__(self) -> None:
        self._dumps = json.JSONEncoder(ensure_ascii=False, default=str).encode
        self._parts: dict[tuple, tuple[str, str]] = {}
        self._hosts: dict[str, str] = {}  # a host -> its text (a fleet's input: a few names, each on many lines)

    def line(self, f: Finding) -> str:
        try:
            key = (_shared(f), tuple(f.details.items()))
            parts = self._parts.get(key)
        except TypeError:  # a detail that is a list or a dict: no key, encoded whole
            return self._dumps(f.to_dict()) + "\n"
        if parts is None:
            parts = self._split(f, key)
        timestamp, uptime, number, host = f.timestamp, f.uptime, f.line, f.host
        host_text = ""
        if host is not None:
            host_text = self._hosts.get(host)
            if host_text is None:
                if len(self._hosts) >= self.SIZE:
                    self._hosts.clear()
                host_text = self._hosts[host] = ', "host": ' + self._dumps(host)
        return "".join((  # (one join, each optional part "" where the finding has none: no list built a finding)
            parts[0],
            "" if timestamp is None else ', "timestamp": "' + timestamp.isoformat() + '"',
            "" if uptime is None else ', "uptime": ' + (repr(uptime) if math.isfinite(uptime) else self._dumps(uptime)),
            parts[1],
            "" if number is None else ', "line": ' + str(number),
            host_text,
            "}\n"))

    def _split(self, f: Finding, key: tuple) -> tuple[str, str]:
        whole = f.to_dict()
        for name in ("timestamp", "uptime", "line", "host"):
            whole.pop(name, None)
        names = list(whole)
        first = names[:names.index("message") + 1]  # kind .. message: what comes before timestamp, uptime
        head = self._dumps({k: whole[k] for k in first})[:-1]
        rest = self._dumps({k: whole[k] for k in names[len(first):]})[1:-1]
        parts = (head, ", " + rest if rest else "")
        if len(self._parts) >= self.SIZE:
            self._parts.clear()
        self._parts[key] = parts
        return parts


def _where(f: Finding) -> str:
    if f.timestamp is not None:
        return f.timestamp.isoformat(sep=" ", timespec="seconds")
    if f.uptime is not None:
        return f"+{f.uptime:.3f}s"
    return f"line {f.line}" if f.line else "-"


def _device(f: Finding) -> str:
    if f.pci:
        return f.pci
    if f.rank is not None:
        return f"rank {f.rank}"
    if f.peer:
        return f"peer {f.peer}"
    if f.details and "peer_redacted" in f.details:  # a peer, its address cut by whoever posted the log
        return "peer (redacted)"
    return "-"


def _kind(f: Finding) -> str:
    code = f.xid if f.xid is not None else f.sxid
    return f"{f.kind} {code}" if code is not None else f.kind


class _Node:
    """One host's line in the summary: its findings, its worst severity's rank, the host as first named."""

    __slots__ = ("findings", "worst", "host")

    def __init__(self, worst: int, host: str):
        self.findings, self.worst, self.host = 0, worst, host

    def order(self) -> tuple[int, int, str]:
        """The By node order: the worst first, then the most findings, then by name."""
        return -self.worst, -self.findings, self.host


class Summary:
    """Counts per kind, per device and per node; bounded by the number of kinds, devices and hosts, not lines.  A
    device is counted per host (identical servers share their GPUs' PCI addresses: node-a's 0000:5d:00 is not
    node-b's); the hosts are named, and counted per node, only where the input names more than one: one machine however
    its lines spell it (envelope.host_key: `node-a` and `node-a.cluster.local` are one node, named as first seen)."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.kind_severity: dict[str, str] = {}
        self.devices: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)  # (host or "", pci) -> kinds
        self.device_action: dict[tuple[str, str], tuple[int, str]] = {}
        self.hosts: dict[str, _Node] = {}  # host_key ("": none named) -> its node

    def add(self, f: Finding) -> None:
        amendment = amends(f)  # an event's finding again (rules.EVENT_AMENDS): its severity counts, not a second event
        rank = SEVERITY_RANK[f.severity]
        host = host_key(f.host) if f.host else ""
        node = self.hosts.get(host)
        if node is None:
            node = self.hosts[host] = _Node(rank, f.host or "")
        elif rank > node.worst:
            node.worst = rank
        if not amendment:
            self.kinds[f.kind] += 1
            node.findings += 1
        prev = self.kind_severity.get(f.kind)
        if prev is None or rank > SEVERITY_RANK[prev]:
            self.kind_severity[f.kind] = f.severity
        if f.pci:
            device = (host, f.pci)
            if amendment in (None, "pci"):  # a GPU the event's finding did not name is counted on it now
                self.devices[device][_kind(f)] += 1
            # the worst finding's action; of an amendment as severe, its action where a step above (an action a
            # later line of its event asked: parsers/classify.py _fill)
            now = self.device_action.get(device)
            if now is None or rank > now[0] or (amendment and rank == now[0] and above(f.action, now[1])):
                self.device_action[device] = (rank, f.action)

    @property
    def named(self) -> int:
        """How many hosts the findings name (one machine however spelt; "" is no host)."""
        return len(self.hosts) - ("" in self.hosts)

    @property
    def several_hosts(self) -> bool:
        """Whether the findings name more than one host (a fleet's input: pdsh / clush dmesg, several nodes' syslog)."""
        return self.named > 1

    @property
    def first_host(self) -> str | None:
        """The host the findings named first, as first spelt; None where they name none."""
        return next((node.host for key, node in self.hosts.items() if key), None)

    def write(self, out: IO[str]) -> None:
        total = sum(self.kinds.values())
        out.write(f"\n{total} finding{'s' if total != 1 else ''}\n")
        if not total:
            return
        several = self.several_hosts
        if several:
            out.write(f"\nBy node ({self.named} hosts):\n")
            for node in sorted(self.hosts.values(), key=_Node.order):
                out.write(f"  {node.host or '(no host named)':<30} {node.findings:>8}  worst: {SEVERITIES[node.worst]}\n")
        out.write("\nBy kind:\n")
        for kind, n in self.kinds.most_common():
            out.write(f"  {kind:<22} {n:>8}  worst: {self.kind_severity[kind]}\n")
        if self.devices:
            out.write("\nBy GPU / PCI device:\n")
            for device in sorted(self.devices):
                what = ", ".join(f"{k} x{n}" for k, n in self.devices[device].most_common())
                host, pci = device
                where = f"{self.hosts[host].host or '(no host named)'} {pci}" if several else pci
                out.write(f"  {where}  {what}\n    recommended action: {self._action_text(device)}\n")

    def _action_text(self, device: tuple[str, str]) -> str:
        action = self.device_action[device][1]
        xids = [int(k.split()[1]) for k in self.devices[device] if k.startswith("xid ")]
        notes = [f"Xid {x}: {xid_info(x).description}" for x in sorted(set(xids))[:3]]
        return action + (f" ({'; '.join(notes)})" if notes else "")


NODE_WIDTH = 16


class Table:
    """The text report: a row per finding as it comes, then the summary.  A NODE column (each row's host) once the
    input names a second host; a single node's log (its dmesg, its syslog naming its one host) keeps the table without
    one.  Rows are held until a second host is seen, `flush` (parse's, before it waits on its input) or HOLD rows,
    whichever first: a fleet's file names its second host in its first rows, and the table has the column from its
    header; a pipe that names it only later gets the column from there on, said in a line."""

    HOLD = 4096

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.summary = Summary()
        self._held: list[Finding] = []
        self._header: bool | None = None  # None: no header written yet; else whether it has the NODE column

    def add(self, f: Finding) -> None:
        self.summary.add(f)
        if self._header:  # the NODE column already: no row held
            self._row(f, True)
            return
        self._held.append(f)
        if self.summary.several_hosts or len(self._held) >= self.HOLD:
            self._release()

    def _release(self) -> None:
        several = self.summary.several_hosts  # a second host seen
        if self._header is None:
            self._write_header(several)
        elif several and not self._header:
            self.out.write(f"\n(a second host from here on: the rows above are {self.summary.first_host}'s or name no "
                           "host; each row below names its node)\n")
            self._write_header(True)
        held, self._held = self._held, []
        for f in held:
            self._row(f, self._header)

    def _write_header(self, nodes: bool) -> None:
        cells = ("NODE".ljust(NODE_WIDTH) + "  " if nodes else "") + "  ".join(
            c.ljust(w) for c, w in zip(_COLUMNS, _WIDTHS)) + "  " + _COLUMNS[-1]
        self.out.write(cells + "\n")
        self._header = nodes

    def _row(self, f: Finding, nodes: bool | None) -> None:
        amendment = amends(f)  # its event's finding again, amended (rules.EVENT_AMENDS): said, so no row reads as two
        msg = f"[amends its event's finding: {amendment}] {f.message}" if amendment else f.message
        msg = msg if len(msg) <= MESSAGE_WIDTH else msg[:MESSAGE_WIDTH - 1] + "…"
        cells = (_where(f), _kind(f), f.severity, f.attribution, _device(f), f.action)
        node = (f.host or "-").ljust(NODE_WIDTH) + "  " if nodes else ""
        self.out.write(node + "  ".join(c.ljust(w) for c, w in zip(cells, _WIDTHS)) + "  " + msg + "\n")

    def flush(self) -> None:
        """The rows held written (their header decided by the hosts seen so far), then the output's; no header before a
        first row (parse's flush before its first read decides nothing)."""
        if self._held:
            self._release()
        self.out.flush()

    def write(self, findings: Iterable[Finding]) -> Summary:
        for f in findings:
            self.add(f)
        if self._held or self._header is None:
            self._release()
        self.summary.write(self.out)
        return self.summary


def write_correlations(failures: list[Finding], causes: list[Cause], out: IO[str], fmt: str) -> None:
    """Workload failures with the node fault that likely caused them (or none, in the same inputs).
    Repeats (same kind, same cause) are folded into one line with a count."""
    if not failures:
        return
    folded: dict[tuple, list] = {}
    index = CauseIndex(causes)
    for f in failures:
        cause = likely_cause(f, index)
        key = (f.kind, f.details.get("cuda_error"), cause)
        entry = folded.get(key)
        if entry is None:  # (not setdefault: a storm's every failure built a list and a set for nothing)
            entry = folded[key] = [f, cause, 0, set()]
        entry[2] += 1
        if f.rank is not None:
            entry[3].add(f.rank)
    if fmt == "json":
        for f, cause, n, ranks in folded.values():
            out.write(json.dumps({"correlation": {"kind": f.kind, "count": n, "ranks": sorted(ranks),
                                                  "first": f.timestamp.isoformat(), "likely_cause": cause.text if cause else None,
                                                  "explanation": explain(f, cause, ranks=ranks)}}) + "\n")
        return
    out.write("\nWorkload failures and their likely causes:\n")
    for f, cause, n, ranks in folded.values():
        more = f" (x{n})" if n > 1 else ""
        out.write(f"  {_where(f)}  {explain(f, cause, ranks=ranks)}{more}\n")
