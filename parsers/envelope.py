"""Envelope detection: what wraps the message on one line, and when it was written.

Detected per line (files mix formats).  Each envelope is a row of ENVELOPES: a name, a regex and a
function that turns the match into (message, timestamp, uptime, extra).  The first row that matches
wins; a line that none match is plain text.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Callable

from .wordscan import LazyPattern


@dataclass(slots=True)
class Envelope:
    """A log record split from its line: the format's name, the message, its time and the format's other fields."""

    name: str
    message: str
    timestamp: datetime | None = None
    uptime: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


KMSG_USERSPACE = "userspace"  # the program of a line a process wrote that names itself the kernel (see _program, _kmsg)
_MONTHS = {m: i for i, m in enumerate(
    ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), start=1)}
# The printk caller a kernel built with CONFIG_PRINTK_CALLER prints after the uptime, the task ("T1400") or, in an
# interrupt, the CPU ("C3"): "[  163.471043][ T3458] block nvme2n1: ..", and util-linux's dmesg with a space before
# it ("[   44.569415] [   T1026] .."). No part of the message: the rules read what follows it.
CALLER = r"(?: ?\[ *[TC]\d+\])?"
# A dmesg-style uptime stamp that syslog and journald keep inside a kernel message.
_INNER_UPTIME = re.compile(r"^\[\s*(\d+\.\d+)\]" + CALLER + r"\s?")
_PAST_MICROSECONDS = re.compile(r"^(.*?\.\d{6})\d*(.*)$")  # a stamp's digits past the microsecond (cut by _iso)


def _iso(text: str) -> datetime | None:
    """RFC 3339 / ISO 8601, nanoseconds allowed (cut to microseconds)."""
    text = text.replace("Z", "+00:00").replace("z", "+00:00")
    m = _PAST_MICROSECONDS.match(text)
    if m:
        text = m.group(1) + m.group(2)
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def parse_time(text: str | None) -> datetime | None:
    """A Kubernetes API object's Time or MicroTime (RFC 3339, `Z` or an offset) as an aware UTC datetime; None when
    absent or not a time. Here, below every program that reads API objects (the cluster component, triage's
    inventory of `kubectl` output), as the envelope's own RFC 3339 reading (_iso)."""
    when = _iso(str(text)) if text else None
    return when.astimezone(timezone.utc) if when is not None else None


def _at(month: int | None, day: str, clock: str, year: int) -> datetime | None:
    """The time a stamp's fields say (`clock`: "HH:MM:SS[.frac]"), None when they say none (no month, a 31 April)."""
    if month is None:
        return None
    try:
        h, mi, s = clock.split(":")
        sec, _, frac = s.partition(".")
        return datetime(year, month, int(day), int(h), int(mi), int(sec), int((frac + "000000")[:6]) if frac else 0)
    except ValueError:
        return None


def _inner_uptime(text: str) -> tuple[float | None, str]:
    """A syslog message's dmesg-style stamp, if it keeps one, and the message without it."""
    m = _INNER_UPTIME.match(text)
    return (float(m.group(1)), text[m.end():]) if m else (None, text)


def _strip_inner_uptime(env: Envelope) -> Envelope:
    uptime, env.message = _inner_uptime(env.message)
    if uptime is not None:
        env.uptime = uptime
    return env


def _kmsg(m: re.Match, year: int | None) -> Envelope:
    prio, seq, usec, flags, msg = m.groups()
    value = int(prio)
    extra = {"seq": int(seq), "priority": value & 7, "facility": value >> 3, "continued": flags[:1] == "c"}
    if value >> 3:
        # facility 0 (LOG_KERN) is the kernel's own: a process writing to /dev/kmsg gets LOG_USER or the
        # facility it names, never LOG_KERN (printk's devkmsg_write), so anything else is no kernel line
        extra["app"] = KMSG_USERSPACE
    return Envelope("kmsg", msg, None, int(usec) / 1e6, extra)


# `journalctl -o short-monotonic` / `short-delta` (systemd's logs-show.c output_short): after the uptime the record's
# host (none with --no-hostname) and its tag, "kernel" for the kernel's own records ("[    0.000000] archlinux kernel:
# Linux version ..", systemd/systemd#24950), a process's name and pid for its ("[    1.241863] archlinux systemd[1]:
# Reached target .."). An ordinary dmesg message is neither: its first word ends with a colon ("NVRM:", "ata1.00:"),
# or its second is a device ("usb 1-1:", "nvme nvme0:", "pci 0000:00:01.0:") with no pid; a process's tag needs the
# host before it, and the kernel's segfault report ("Web Content[4242]: segfault at ..", a name with a space) is the
# kernel's.
_JOURNAL_TAG = re.compile(r"(?:(?P<host>[^\s\[]\S*)(?<!:) )?(?:(kernel)|(?(host)([^\s\[]+)\[(\d+)\](?!: segfault at )|(?!))): ")

def _journal(message: str) -> tuple[dict[str, Any], str] | None:
    """The journal's host and tag at the start of a dmesg-stamped message (_JOURNAL_TAG): (extra, the message after
    them), None for a dmesg message. A journal tag ends "kernel: " or, a process's, with its pid's "]: ": a message with
    neither is refused before any regex, each looked for only where its rarest character, "k" or "]", occurs (a
    one-character test is a memchr; most kernel messages hold neither: the dmesg path's cost, split's inline, ~400
    instructions a line less than the two substring searches, callgrind)."""
    if not (("k" in message and "kernel: " in message) or ("]" in message and "]: " in message)):
        return None
    m = _JOURNAL_TAG.match(message)
    if m is None:
        return None
    host, kernel, tag, pid = m.groups()
    extra = {"app": _program(tag or kernel, pid, None)}
    if host is not None:
        extra["host"] = host
    return extra, message[m.end():]


# A dmesg-stamped line's match and the journal's host and tag split found in its message (_journal's answer): what
# a "journal" row's builder with a journal builds from (_JOURNAL_ROWS), so that the message is matched once, not again
JournalFound = tuple[re.Match, tuple[dict[str, Any], str]]


def _dmesg_journal(found: JournalFound, year: int | None) -> Envelope:
    """The dmesg row's line with the journal's host and tag (`journalctl -o short-monotonic`: dmesg's uptime, then
    the record's host and tag, _journal): a "journal" envelope, whose tag says whose line it is (_program)."""
    m, (extra, message) = found
    return Envelope("journal", message, None, float(m.group(1)), extra)


def _dmesg_kernel(m: re.Match, year: int | None) -> Envelope:
    """The dmesg row's line without the journal's host and tag (looked for once: _JOURNAL_ROWS). `dmesg`: the uptime;
    with `--time-format` given twice, the ctime after it ("[    1.000000] [Fri Feb 13 23:31:31 2009] .."), read by the
    same row (an optional group costs a line without one less than a lookahead, the dmesg_decode row's after it more).
    `dmesg -T`: the ctime alone, no uptime (the row's second alternative), and never the journal's host and tag."""
    uptime, ctime, ctime_alone, message = m.groups()
    if uptime is None:
        return Envelope("dmesg_t", message, _ctime(ctime_alone))
    if ctime is None:
        return Envelope("dmesg", message, None, float(uptime))
    return Envelope("dmesg_t", message, _ctime(ctime), float(uptime))


def _ctime(ctime: str) -> datetime | None:
    """The time a dmesg ctime stamp's text says ("Mon Nov  2 02:05:37 2026"; the month English or the locale's)."""
    _, mon, day, clock, yr = ctime.split()
    return _at(_month(mon), day, clock, int(yr))


def _dmesg_raw(m: re.Match, year: int | None) -> Envelope:
    """`dmesg -r` / pstore: `<prio>` is facility * 8 + level, as in /dev/kmsg (facility 0: the kernel's own)."""
    prio, uptime, message = m.groups()
    return Envelope("dmesg", message, None, float(uptime), {"app": KMSG_USERSPACE} if int(prio) >> 3 else {})


# the node pdsh, clush and ansible lead each line of a fleet's output with ("b1360: "): a name or an address, then ": "
_NODE = r"([A-Za-z0-9][\w.:-]*?): "
_NODE_LINE = re.compile(_NODE + r"(.*)$", re.S)


def node_prefixed(line: str) -> tuple[str, str] | None:
    """(the node, the line behind it) of a line led by pdsh's prefix, whatever the line behind it is (a program's line,
    a kernel message's continuation): `split` reads such a line as plain text (a program's "RuntimeError: .." is as
    much a prefix), so only a reader knowing the input's hosts takes it (Classifier.read: a node the input names)."""
    m = _NODE_LINE.match(line)
    return None if m is None else (m[1], m[2])


# the leads of the kernel messages the rows know, behind which pdsh's prefix is a node's where no line names a host by
# its envelope (`pdsh -w node-[1-9] 'dmesg --notime'`, `journalctl -k -o cat`: every line plain):
# `node-a: NVRM: Xid ..`; never syslog's tag of the kernel, a syslog line's stamp and host cut off (`kernel: NVRM: Xid ..`, xid.yaml's #1150)
KERNEL_LEADS = ("NVRM:", "nvidia-nvlink: ", "nvidia-nvswitch", "mlx5_core ", "pcieport ")


def is_fleet_node(node: str, rest: str) -> bool:
    """Whether pdsh's prefix `node` (node_prefixed) before `rest` is a node whatever the input names: before a kernel
    message the rows know (KERNEL_LEADS), the prefix no such lead itself (`NVRM: NVRM: ..` is NVRM's) nor the kernel's
    syslog tag (a program's `RuntimeError: ..` is followed by no such lead)."""
    return rest.startswith(KERNEL_LEADS) and node != "kernel" and not (node + ": ").startswith(KERNEL_LEADS)


def fleet_node(line: str) -> tuple[str, str] | None:
    """(the node, the kernel message behind it) of a plain line led by pdsh's prefix that is a node whatever the input
    names (is_fleet_node): the line that makes an input of plain lines a fleet's (hosts_named; Classifier.read, its
    first such line the input's first host)."""
    node = node_prefixed(line)
    return node if node is not None and is_fleet_node(*node) else None


def behind_node(node: str, rest: str, year: int | None) -> Envelope:
    """The envelope of the line behind pdsh's prefix (node_prefixed), split as a line of its own (as kubectl's prefix
    behind: _behind), naming the node where it names no host of its own."""
    env = _behind(rest, year, "pdsh")
    env.extra = {"host": node, **env.extra}
    return env


def _dmesg_host(m: re.Match, year: int | None) -> Envelope:
    """dmesg gathered from many nodes by pdsh / clush / ansible, each line led by the node: "b1360: [14280.4] ..."."""
    host, uptime, message = m.groups()
    return Envelope("dmesg", message, None, float(uptime), {"host": host})


def _dmesg_t_host(m: re.Match, year: int | None) -> Envelope:
    host, _, mon, day, clock, yr, msg = m.groups()
    return Envelope("dmesg_t", msg, timestamp=_at(_month(mon), day, clock, int(yr)),
                    extra={"host": host})


def _month(mon: str) -> int | None:
    """A `dmesg -T` stamp's month: English, else the locale's (_local_month)."""
    return _MONTHS.get(mon) or _local_month(mon)


def _dmesg_t_local(m: re.Match, year: int | None) -> Envelope | None:
    """`dmesg -T` with the locale's weekday and month ("[一 8月 25 16:20:28 2025]"); refused unless the month is one."""
    _, mon, day, clock, yr, msg = m.groups()
    month = _local_month(mon)
    return None if month is None else Envelope("dmesg_t", msg, timestamp=_at(month, day, clock, int(yr)))


# util-linux dmesg's stamps, one or several in a row (--time-format may be given more than once): the uptime, with the
# delta to the record before ("[    8.000000 <    7.000000>]", -d) or the delta alone ("[<    7.000000>]", -d -t);
# `journalctl -o short-delta`'s ("[    1.343565 <    0.000012 >]": a "*" for the " " where the delta is of wall-clock
# time, another boot's record before it; 16 spaces for the first record);
# --reltime's minute ("[Feb13 23:31]", "[Apr 7 17:30]") or its delta ("[  +0.001354]"); ctime ("[Tue Jan 13 04:33:10
# 2026]", with -d "[Fri Feb 13 23:31:30 2009 <    0.000000>]"); iso ("2025-01-21T04:41:44,283302+00:00").
_DMESG_STAMP = (r"(?:\[ *\d+\.\d+(?: < *\d+\.\d+[ *]?>| {16})?\]|\[< *\d+\.\d+>\]|\[ *\+\d+\.\d+\]|\[[A-Z][a-z]{2} ?\d{1,2} \d\d:\d\d\]"
                r"|\[[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}(?: < *\d+\.\d+>)?\]"
                r"|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d+[+-]\d\d:?\d\d)")
_DMESG_STAMPS = _DMESG_STAMP + "(?: " + _DMESG_STAMP + ")*"
_DMESG_PARTS = LazyPattern(r"\[ *(\d+\.\d+)[ \]]|\[[A-Z][a-z]{2} ([A-Z][a-z]{2}) ([ \d]\d) (\d\d:\d\d:\d\d) (\d{4})[ \]]"
                           r"|(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d),(\d+)([+-]\d\d:?\d\d)")


def _decoded_stamps(m: re.Match) -> tuple[float | None, datetime | None]:
    """The uptime and the time of a dmesg_decode line's stamps (the first of each); a delta alone says neither."""
    uptime = when = None
    for up, mon, day, clock, yr, iso_clock, frac, tz in _DMESG_PARTS.findall(m.group(3) or m.group(4) or ""):
        if up and uptime is None:
            uptime = float(up)
        elif mon and when is None:
            when = _at(_month(mon), day, clock, int(yr))
        elif iso_clock and when is None:
            when = _iso(f"{iso_clock}.{frac}{tz}")
    return uptime, when


def _dmesg_decode_journal(found: JournalFound, year: int | None) -> Envelope:
    """The dmesg_decode row's line with the journal's host and tag (`journalctl -o short-delta`)."""
    m, (extra, message) = found
    uptime, when = _decoded_stamps(m)
    return Envelope("journal", message, when, uptime, extra)


def _dmesg_decode_kernel(m: re.Match, year: int | None) -> Envelope:
    """The dmesg_decode row's line without the journal's host and tag (looked for once: _JOURNAL_ROWS): util-linux
    dmesg's other forms, -x's facility and level ("kern  :err   : "), then none, one or several stamps (_DMESG_STAMP),
    then the printk caller. The uptime and the time are the stamps' (the first of each); a delta alone says neither. A
    facility other than kern is a process's record (as the kmsg envelope's)."""
    facility, level, _, _, msg = m.groups()
    uptime, when = _decoded_stamps(m)
    if facility is None:
        return Envelope("dmesg" if when is None else "dmesg_t", msg, when, uptime)
    extra: dict[str, Any] = {"facility": facility, "level": level}
    if facility != "kern":
        extra["app"] = KMSG_USERSPACE
    return Envelope("dmesg_decode", msg, when, uptime, extra)


def _talos(m: re.Match, year: int | None) -> Envelope:
    """`talosctl dmesg`: the record's facility says whose it is (kern: the kernel's; any other, a process that wrote
    to /dev/kmsg, as the kmsg envelope's facility); the node's name or address leads it when the command asked
    several nodes (or named one with -n)."""
    host, facility, level, ts, msg = m.groups()
    extra: dict[str, Any] = {"facility": facility, "level": level}
    if host is not None:
        extra["host"] = host
    if facility != "kern":
        extra["app"] = KMSG_USERSPACE
    return Envelope("talos", msg, timestamp=_iso(ts), extra=extra)


def _cri(m: re.Match, year: int | None) -> Envelope:
    ts, stream, tag, msg = m.groups()
    return Envelope("cri", msg, timestamp=_iso(ts), extra={"stream": stream, "partial": tag == "P"})


def json_document(text: str) -> Any:
    """JSON text's value; ValueError, saying where, where it is none (nested deeper than the recursion limit too: a
    program can print such a line).  triage.inventory's for a kubectl document (the error goes into its note)."""
    import json  # noqa: PLC0415 - JSON lines and documents only: no start-up cost for the others

    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested deeper than Python's recursion limit") from None


def json_value(text: str) -> Any:
    """JSON text's value, None where it is no JSON (`json_document`'s ValueError: the line is then plain text).  Also
    triage.inventory's, for an annotation's JSON."""
    try:
        return json_document(text)
    except ValueError:
        return None


def _docker(m: re.Match, year: int | None) -> Envelope | None:
    obj = json_value(m.string)
    if not isinstance(obj, dict) or not isinstance(obj.get("log"), str):
        return None
    ts = obj.get("time")
    return Envelope("docker", obj["log"].rstrip("\n"), timestamp=_iso(ts) if isinstance(ts, str) else None,
                    extra={"stream": obj.get("stream")})


# stern's JSON outputs (stern/stern, wercker/stern before it): `-o json`, its Log struct marshalled, the message first
# ('{"message":"..","nodeName":"node1","namespace":"ns1","podName":"pod1","containerName":"container1",..}': the
# fields of stern/tail_utils.go `Log`, nodeName since 1.13, a "timestamp" after the message with --timestamps since
# #372), and `-o extjson` ('{"pod": "pod1", "container": "container1", "message": ".."}', the namespace first with
# --all-namespaces: cmd/cmd.go's template). The node, pod and container by those names in the envelope's extra.
_STERN_FIELDS = {"host": ("nodeName",), "namespace": ("namespace",), "pod": ("podName", "pod"),
                 "container": ("containerName", "container")}


def stern_record(line: str) -> tuple[dict, str, str | None] | None:
    """stern's `-o json` / `-o extjson` record (_STERN_FIELDS): (its node, namespace, pod and container by those names,
    the container's line, the record's `timestamp`), None unless it is an object with a message and a pod (plain
    text).  `gpu-npd parse`'s envelope (_stern) and triage's launcher prefixes (triage/ranks.py) read it."""
    return None if _STERN_LINE.match(line) is None else _stern_fields(line)


def _stern_fields(line: str) -> tuple[dict, str, str | None] | None:
    """stern_record of a line its row's pattern matched (_stern: not matched again)."""
    obj = json_value(line)
    if not isinstance(obj, dict) or not isinstance(obj.get("message"), str):
        return None
    extra = {name: value for name, keys in _STERN_FIELDS.items()
             for value in [next((obj[k] for k in keys if isinstance(obj.get(k), str)), "")] if value}
    if "pod" not in extra:
        return None
    stamp = obj.get("timestamp")
    return extra, obj["message"].rstrip("\n"), stamp if isinstance(stamp, str) else None


def _stern(m: re.Match, year: int | None) -> Envelope | None:
    """stern's `-o json` / `-o extjson` line (stern_record): the container's line split as a line of its own (an older
    stern's --timestamps stamp before it, a kernel line a pod printed), as the kubectl row's."""
    record = _stern_fields(m.string)
    if record is None:
        return None
    extra, message, stamp = record
    env = _behind(message, year, "stern")
    if env.timestamp is None and stamp is not None:
        env.timestamp = _iso(stamp)
    env.extra = {**env.extra, **extra}
    return env


def _fabricmanager(m: re.Match, year: int | None) -> Envelope:
    mon, day, yr, clock, level, tid, msg = m.groups()
    return Envelope("fabricmanager", msg, timestamp=_at(_MONTHS[mon], day, clock, int(yr)),
                    extra={"level": level, "tid": int(tid)})


def _program(tag: str, pid: str | None, prio: str | None) -> str:
    """The program a syslog line says wrote it, as far as the line can prove it: the kernel's own lines are tagged
    `kernel` with no pid (rsyslog's imklog, journald forwarding kernel records) and, where the file keeps the
    priority, carry facility 0 (LOG_KERN). A `kernel[4242]:` tag is a process naming itself kernel (journald
    forwards a process's syslog message with the sender's pid; `logger -i -t kernel`), and a `<12>` priority is
    user.warning, whatever the tag says: both are KMSG_USERSPACE. What no line can prove is in docs/security.md."""
    if tag == "kernel" and (pid is not None or (prio is not None and int(prio) >> 3)):
        return KMSG_USERSPACE
    return tag


def _rfc5424(m: re.Match, year: int | None) -> Envelope:
    prio, ts, host, app, procid, msg = m.groups()
    return _strip_inner_uptime(Envelope("rfc5424", msg, timestamp=None if ts == "-" else _iso(ts),
                                        extra={"host": host,
                                               "app": _program(app, None if procid == "-" else procid, prio)}))


def _rfc3164(m: re.Match, year: int | None) -> Envelope:
    prio, mon, day, clock, host, tag, pid, msg = m.groups()  # BSD stamps carry no year: the caller's, else this one
    return _strip_inner_uptime(Envelope("syslog", msg, timestamp=_at(_MONTHS[mon], day, clock,
                                                                     year or datetime.now(timezone.utc).year),
                                        extra=_syslog_extra(host, tag, pid, prio)))


# journalctl / rsyslog under a non-English locale print the month as the locale abbreviates it ("kwi 15 07:56:59",
# "11月 15 14:15:47", "Mär 15", "juil. 15"): the abbreviations of the common locales (de, fr, es, it, pt, nl, pl, ru)
# and the CJK "<n>月" / "<n>월" -> month number. A token not in the table is no month: the line is plain text.
_LOCAL_MONTHS = {name: n for n, names in enumerate((
    "jan janv ene gen sty янв", "feb févr fév fev lut фев", "mär mars mar mrt мар", "apr avr avril abr kwi апр",
    "mai may mag mei maj мая май", "jun juin giu cze июн", "jul juil lug lip июл", "aug août ago sie авг",
    "sep sept set wrz сен", "okt oct ott out paź окт", "nov lis ноя", "dez déc dic dec gru дек"), start=1)
    for name in names.split()}
_CJK_MONTH = re.compile(r"^(\d{1,2})[月월]$")


def _local_month(token: str) -> int | None:
    m = _CJK_MONTH.match(token)
    if m:
        return int(m.group(1)) if 1 <= int(m.group(1)) <= 12 else None
    return _LOCAL_MONTHS.get(token.rstrip(".").lower())


def _rfc3164_local(m: re.Match, year: int | None) -> Envelope | None:
    """A syslog / journal line whose month the locale spelled; refused (plain text) unless the month is one."""
    prio, mon, day, clock, host, tag, pid, msg = m.groups()
    month = _local_month(mon)
    if month is None:
        return None
    when = _at(month, day, clock, year or datetime.now(timezone.utc).year)
    return _strip_inner_uptime(Envelope("syslog", msg, timestamp=when, extra=_syslog_extra(host, tag, pid, prio)))


_SEVERITY_WORDS = "emerg|alert|crit|err|error|warn|warning|notice|info|debug"
# the same in capitals, a level where RFC 3339 syslog's host would be (_short_iso): a program's log line, no host's
_LEVEL_WORDS = frozenset(_SEVERITY_WORDS.upper().split("|"))


def _syslog_level(m: re.Match, year: int | None) -> Envelope:
    """A syslog line that keeps the record's severity (or facility.severity) between its host and its tag: SONiC's
    rsyslog template ("2025 Jun 14 02:28:46.206949 host ERR kernel: .."), busybox syslogd ("Apr 15 11:02:05 VM
    kern.info kernel: .."), OpenWrt's logread ("Sun Jun  2 16:18:17 2024 kern.err kernel: .."). A kernel-tagged line
    of a facility other than kern or user is a process's (busybox's klogd logs as user where libc will not log as kern,
    so user proves nothing)."""
    year1, mon, day, clock, year2, host, severity, facility, fac_severity, tag, pid, msg = m.groups()
    when = _at(_MONTHS[mon], day, clock, int(year1 or year2 or 0) or year or datetime.now(timezone.utc).year)
    extra = _syslog_extra(host, tag, pid, None)
    extra["level"] = (severity or fac_severity).lower()
    if facility is not None:
        extra["facility"] = facility
        if tag == "kernel" and facility not in ("kern", "user"):
            extra["app"] = KMSG_USERSPACE
    return _strip_inner_uptime(Envelope("syslog", msg, timestamp=when, extra=extra))


def _short_iso(m: re.Match, year: int | None) -> Envelope:
    """RFC 3339 syslog (rsyslog's RFC3339 template, `journalctl -o short-iso[-precise]`), and ChromeOS's, which keeps
    the record's severity where the host would be and no host ("2023-07-14T15:51:24.837592Z ERR kernel: [  129.25] ..")."""
    ts, severity, host, tag, pid, msg = m.groups()
    if severity is None and host in _LEVEL_WORDS:  # a program's own log: its level, no host (dynamo's "2025-05-28T03:
        severity, host = host, None  # 35:37.857Z ERROR engine.run_mp_engine: CUDA error: ..", ai-dynamo/dynamo #1229)
    extra = _syslog_extra(host, tag, pid, None)
    if severity is not None:
        extra["level"] = severity.lower()
    return _strip_inner_uptime(Envelope("syslog", msg, timestamp=_iso(ts), extra=extra))


def _klog_extra(level: str, pid: str, source: str) -> dict[str, Any]:
    return {"level": _KLOG_LEVELS[level], "pid": int(pid), "source": source}


def _stamped(m: re.Match, year: int | None) -> Envelope:
    """A line behind the RFC 3339 time its collector read it at, no syslog after it: `kubectl logs --timestamps`
    (RFC3339Nano, the container's line as it wrote it), Loki's and most log exports' plain lines. A klog header
    after the stamp (a Kubernetes component's: the device plugin, the GPU operator's) is read too (_klog)."""
    ts, level, _, _, _, pid, source, msg = m.groups()
    return Envelope("stamped", msg, timestamp=_iso(ts), extra={} if level is None else _klog_extra(level, pid, source))


# A Loki stream's label set as `logcli query` prints it: {name="value", ..} (a value's quotes escaped), "{}" where every
# label is common to the streams printed; no JSON object ('{"level":..': a container's own line behind kubectl's stamp)
_LOKI_LABELS = r'\{(?:[A-Za-z_]\w*="(?:[^"\\]|\\.)*"(?:, ?)?)*\}'
_RFC3339 = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?"


def _loki(m: re.Match, year: int | None) -> Envelope:
    """Loki's `logcli query` output: the time, the stream's labels (kept as the extra's `labels`), then the line, split
    as a line of its own (a syslog line promtail read from /var/log/syslog, dmesg, a container's CRI line): its own
    time where it has one (a BSD stamp's year, Loki's), else Loki's. Plain text behind the labels, a line of its own
    again behind Loki's (no recursion a hostile line deepens), or one whose message is decoded from JSON (docker's,
    the journal's: not the text the line's keywords were found in) is the stamped row's text."""
    ts, labels, rest = m.groups()
    env: Envelope | None = None
    if _LOKI.match(rest) is None:
        name, _, pending = split(rest, year or int(ts[:4]))
        if name not in _NOT_BEHIND:
            env = finish(pending)
            if env.timestamp is None:
                env.timestamp = _iso(ts)
    if env is None:
        env = Envelope("stamped", rest, timestamp=_iso(ts))
    env.extra = {**env.extra, "labels": labels}
    return env


def _kubectl(m: re.Match, year: int | None) -> Envelope:
    """`kubectl logs --prefix` (several pods, containers in one stream): "[pod/<pod>/<container>] " before each line
    (kubectl's logs.go addPrefixIfNeeded, every release since 1.17), the pod and container kept as the extra's `pod`
    and `container`; the line behind it split as a line of its own (--timestamps' stamp, a kernel or syslog line a
    pod printed), as the loki row's: plain text, a line of its own behind another prefix or Loki's labels (no
    recursion a hostile line deepens) or a message decoded from JSON is this row's text."""
    pod, container, rest = m.groups()
    env = _behind(rest, year, "kubectl")
    env.extra = {**env.extra, "pod": pod, "container": container}
    return env


def _behind(rest: str, year: int | None, name: str) -> Envelope:
    """The line a pod's prefix or record holds (kubectl's `--prefix`, stern's JSON) split as a line of its own; plain
    text, a line of its own again behind another such prefix, Loki's labels or a JSON record (no recursion a hostile
    line deepens: the rows in turn would recurse as deep as the line is long) or a message decoded from JSON is the
    envelope `name`'s text."""
    if rest[:1] != "{" and _KUBECTL.match(rest) is None and _LOKI.match(rest) is None:
        inner, _, pending = split(rest, year)
        if inner not in _NOT_BEHIND:
            return finish(pending)
    return Envelope(name, rest)


def _klog(m: re.Match, year: int | None) -> Envelope:
    """klog's header (Kubernetes' components: the kubelet, the NVIDIA device plugin, the GPU operator's operands):
    "I0809 13:32:51.873532       1 health.go:185] ..", the severity letter, month and day, the clock (no year: the
    caller's, else this one), the thread id and the source line."""
    level, mon, day, clock, pid, source, msg = m.groups()
    when = _at(int(mon), day, clock, year or datetime.now(timezone.utc).year)
    return Envelope("klog", msg, timestamp=when, extra=_klog_extra(level, pid, source))


def _short_unix(m: re.Match, year: int | None) -> Envelope:
    """`journalctl -o short-unix`: seconds since the epoch, to the microsecond, then the host and tag."""
    seconds, host, tag, pid, msg = m.groups()
    try:
        when = datetime.fromtimestamp(float(seconds), timezone.utc)
    except (OverflowError, ValueError, OSError):
        when = None
    return _strip_inner_uptime(Envelope("journal", msg, timestamp=when, extra=_syslog_extra(host, tag, pid, None)))


_ZONE_OFFSET = re.compile(r"^([+-])(\d\d):?(\d\d)?$")
# A zone's abbreviation as glibc's %Z prints it from the tz database (ipmitool's SEL time "%X %Z", journalctl's
# short-full): name -> hours east of UTC, each a name that means one offset in every zone of the tz database that used
# it since 2015 (tests/parsers/test_ipmi_sel.py checks the table against the zoneinfo of the machine that runs it).
# An ambiguous name is out of the table on purpose and its time left as the host's clock showed it, naive, as a
# stamp without a zone: CST (US Central -6, China +8, Cuba -5), CDT (US -5, Cuba -4), IST (India +5:30, Israel +2,
# Ireland +1), PST (US Pacific -8, the Philippines +8), KST (Korea +9, Pyongyang's +8:30 of 2015-2018); a guess
# between them would misdate a finding by up to 14 hours, a naive time is read as the log's other naive times are.
ZONE_NAMES = {
    "UTC": 0, "GMT": 0, "WET": 0, "WEST": 1, "BST": 1, "CET": 1, "CEST": 2, "MET": 1, "MEST": 2, "EET": 2,
    "EEST": 3, "MSK": 3, "WAT": 1, "CAT": 2, "SAST": 2, "EAT": 3, "PKT": 5, "WIB": 7, "WITA": 8, "WIT": 9,
    "HKT": 8, "AWST": 8, "JST": 9, "ACST": 9.5, "ACDT": 10.5, "AEST": 10, "AEDT": 11, "NZST": 12, "NZDT": 13,
    "NST": -3.5, "NDT": -2.5, "AST": -4, "ADT": -3, "EST": -5, "EDT": -4, "MST": -7, "MDT": -6, "PDT": -7,
    "AKST": -9, "AKDT": -8, "HST": -10, "HDT": -9, "SST": -11,
}
_ZONES = {name: timezone(timedelta(hours=hours)) for name, hours in ZONE_NAMES.items()}  # (made once, not a line's)


def _zoned(when: datetime | None, zone: str | None) -> datetime | None:
    """A stamp's time in the zone printed after it, as the host's locale names it: a numeric offset or a name of
    ZONE_NAMES is read (the time in UTC then); an ambiguous name ("CST", "IST") or none is left off (the time as the
    host's clock showed it, as a BSD syslog stamp's)."""
    if when is None or zone is None:
        return when
    named = _ZONES.get(zone)
    if named is not None:
        return when.replace(tzinfo=named).astimezone(timezone.utc)
    off = _ZONE_OFFSET.match(zone)
    if off is None:
        return when
    sign = -1 if off.group(1) == "-" else 1
    return when.replace(tzinfo=timezone(sign * timedelta(hours=int(off.group(2)), minutes=int(off.group(3) or 0))))


def _short_full(m: re.Match, year: int | None) -> Envelope:
    """`journalctl -o short-full` / `with-unit` (systemd's format_timestamp: "Tue 2024-01-02 03:04:05 UTC"), then
    the host and the tag (with-unit: the record's unit where it has one; the kernel's records have none, "kernel").
    The zone as the host's locale names it (_zoned)."""
    date, clock, zone, host, tag, pid, msg = m.groups()
    when = _zoned(_iso(f"{date}T{clock}"), zone)
    return _strip_inner_uptime(Envelope("journal", msg, timestamp=when, extra=_syslog_extra(host, tag, pid, None)))


def _ipmi_sel(m: re.Match, year: int | None) -> Envelope:
    """A BMC's System Event Log row as ipmitool prints it (`ipmitool sel elist` / `sel list`, the ipmi_sel row): the
    row's own time, the BMC's clock at the event (the date "%m/%d/%Y", 1.8.19's "%x": a two-digit year, 69-99 the
    1900s as strptime's %y; the time with the zone 1.8.19 prints after it, _zoned, and its "%X" in a 12-hour locale
    such as en_US, "05:15:35 PM CEST"); the message the whole row, as the rows read it (parsers/rules.py
    ipmi_sel_row)."""
    month, day, yr, clock, half, zone, line = m.groups()
    year_n = int(yr)
    if len(yr) == 2:
        year_n += 1900 if year_n >= 69 else 2000
    if half is not None:  # "%X" in a 12-hour locale (en_US: "%r", "10:06:50 PM"): 12 AM is 0, 12 PM noon
        hour = int(clock[:2]) % 12 + (12 if half == "PM" else 0)
        clock = f"{hour:02d}{clock[2:]}"
    return Envelope("ipmi_sel", line, _zoned(_at(int(month), day, clock, year_n), zone))


def journal_field(value: Any) -> str | None:
    """A field of a `journalctl -o json` record: a string; journald's array of bytes for one that is no UTF-8 (read
    with U+FFFD for what is not); an array of those for a field the record holds more than once (the first); null
    for one too large to print (no text)."""
    if isinstance(value, list) and value and isinstance(value[0], (str, list)):
        value = value[0]
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(type(b) is int and 0 <= b < 256 for b in value):
        return bytes(value).decode("utf-8", "replace")
    return None


# `journalctl -o json`'s MESSAGE as journald keeps a message that is no UTF-8: the array of its bytes (systemd 252:
# `"MESSAGE":[78,86,82,77,..,255]`; the forms with a space about the colon, as the envelope's row takes them). No keyword
# of the rules is in such a line as written: these are keywords of their own (parsers/classify.py all_keywords, and
# JOURNAL_BYTES_LINE its line pattern), and the keyword test is the decoded message's (Classifier.read).
JOURNAL_BYTES_KEYWORDS = tuple(f'"MESSAGE"{before}:{after}[' for before in ("", " ") for after in ("", " "))
JOURNAL_BYTES_LINE = r'^\x1e?\{.*"MESSAGE" ?: ?\['


def _journal_json(m: re.Match, year: int | None) -> Envelope | None:
    """`journalctl -o json` / `json-seq` (an RS before each record): one record a line, its fields by name
    (journal_record). Refused (plain text) unless it is an object with a MESSAGE."""
    obj = json_value(m.string.lstrip("\x1e"))
    return journal_record(obj) if isinstance(obj, dict) else None


def journal_record(obj: dict[str, Any]) -> Envelope | None:
    """A journal record's envelope from its fields by name (`-o json`'s object, `-o export` / `-o verbose`'s
    FIELD=value lines: journal_text_record). The kernel's own records come through journald's kernel transport with
    the kernel's facility (0); a process that wrote to /dev/kmsg comes through it too but with its own facility and
    identifier (journald-kmsg.c), and every other transport (journal, syslog, stdout, audit) is a process's:
    KMSG_USERSPACE where the identifier says "kernel". The time is the record's (__REALTIME_TIMESTAMP, microseconds),
    the uptime the kernel's own stamp where kept (_SOURCE_MONOTONIC_TIMESTAMP), else journald's. None without a
    MESSAGE."""
    msg = journal_field(obj.get("MESSAGE"))
    if msg is None:
        return None
    transport, ident = journal_field(obj.get("_TRANSPORT")), journal_field(obj.get("SYSLOG_IDENTIFIER"))
    facility = journal_field(obj.get("SYSLOG_FACILITY"))
    if facility not in (None, "0"):
        kernel = False
    elif transport is not None:
        kernel = transport == "kernel"
    else:
        kernel = ident == "kernel"
    extra: dict[str, Any] = {}
    host = journal_field(obj.get("_HOSTNAME"))
    if host is not None:
        extra["host"] = host
    if kernel:
        extra["app"] = "kernel"
    elif ident is not None or transport is not None:
        extra["app"] = KMSG_USERSPACE if ident in (None, "kernel") else ident
    when = uptime = None
    for key in ("__REALTIME_TIMESTAMP", "_SOURCE_REALTIME_TIMESTAMP"):
        usec = journal_field(obj.get(key))
        if usec is not None and usec.isdigit() and len(usec) <= 19:
            try:
                when = datetime.fromtimestamp(int(usec) / 1e6, timezone.utc)
                break
            except (OverflowError, ValueError, OSError):
                pass
    for key in ("_SOURCE_MONOTONIC_TIMESTAMP", "__MONOTONIC_TIMESTAMP"):
        usec = journal_field(obj.get(key))
        if usec is not None and usec.isdigit() and len(usec) <= 19:
            uptime = int(usec) / 1e6
            break
    return Envelope("journal", msg.rstrip("\n"), when, uptime, extra)


def _journal_text(m: re.Match, year: int | None) -> Envelope:
    """A `MESSAGE=` line of `journalctl -o export` (flush left) or `-o verbose` (indented four spaces), read alone: the
    message, nothing else (the record's time, host and transport are on the lines about it: journal_text_record,
    which the stream's reader calls for a finding, parsers/scan.py)."""
    return Envelope("journal_text", m.group(1))


# `journalctl -o verbose`'s record header (systemd's logs-show.c output_verbose): the time in the host's zone, then the
# cursor, whose t= and m= are __REALTIME_TIMESTAMP and __MONOTONIC_TIMESTAMP in hex ("Tue 2017-10-24 10:37:50.315725
# UTC [s=6bff..;i=524715a;b=0a16..;m=914ed6facb5;t=55c4887dc4ccd;x=98df..]"): the time read from t=, no zone's name
_VERBOSE_HEADER = LazyPattern(r"^[A-Z][a-z]{2} \d{4}-\d\d-\d\d \S+ \S+ \[s=[0-9a-f]+;i=[0-9a-f]+;b=[0-9a-f]+;"
                              r"m=([0-9a-f]{1,16});t=([0-9a-f]{1,16});")


def journal_text_record(lines: list[str]) -> Envelope | None:
    """The envelope of a `journalctl -o export` or `-o verbose` record from its lines (the verbose header first, its
    fields indented; export's FIELD=value lines, a binary field's name alone on its line and skipped), as
    journal_record reads `-o json`'s: None without a MESSAGE. A field the record holds twice: the first."""
    fields: dict[str, str] = {}
    if lines:
        m = _VERBOSE_HEADER.match(lines[0])
        if m:
            fields["__MONOTONIC_TIMESTAMP"] = str(int(m.group(1), 16))
            fields["__REALTIME_TIMESTAMP"] = str(int(m.group(2), 16))
    for line in lines:
        name, eq, value = line.lstrip(" ").partition("=")
        if eq and name not in fields:
            fields[name] = value
    return journal_record(fields)


_TAG = r"([^\s:\[]+)(?:\[(\d+)\])?:"
# The host before the tag, left out by some exports and by hand-redacted excerpts ("Mar 29 15:38:59 kernel: NVRM:
# Xid .."): a host never ends with the tag's colon, so "kernel:" there is the tag, not a host named "kernel:" (which
# took "NVRM" for the program and cut "NVRM: " off the message). The English syslog row requires its host (the
# common case stays one pass); a line without one falls to the locale-month row, whose months include English's.
# Nor does a host begin with "[": a program's own bracketed stamp after a collector's ("2025-09-24T03:57:03.905654827Z
# [2025-09-23 23:57:03] vllm-deepseek-ep-decode-0:1673:9080 [0] include/alloc.h:228 NCCL WARN ..", vllm #25597) is
# the line's text (the stamped row), not a host "[2025-09-23" and a program "23" (which cut the message at "57:03]").
_HOST = r"(?:([^\s\[]\S*)(?<!:) )?"


def _syslog_extra(host: str | None, tag: str, pid: str | None, prio: str | None) -> dict:
    if host is None:
        return {"app": _program(tag, pid, prio)}
    return {"host": host, "app": _program(tag, pid, prio)}
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_CYRILLIC = "".join(map(chr, range(0x410, 0x450)))
# klog's header: severity, month, day, clock, thread id, source file and line ("I0809 13:32:51.873532       1 health.go:185]");
# a thread id of at most 20 digits, as kmsg's numbers (int() of one past 4,300 digits raises)
_KLOG = r"([IWEF])(\d\d)(\d\d) (\d\d:\d\d:\d\d\.\d+) +(\d{1,20}) ([^\s\]]+:\d+)\]"
_KLOG_LEVELS = {"I": "info", "W": "warning", "E": "err", "F": "crit"}
# kubelet's container log line: "<RFC3339Nano> <stdout|stderr> <P|F> <text>"
_CRI = LazyPattern(r"^(\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)) (stdout|stderr) ([PF]) ?(.*)$", re.S)
_LOKI = LazyPattern(r"^(" + _RFC3339 + r") (" + _LOKI_LABELS + r") (.*)$", re.S)  # (_loki)
# kubectl logs --prefix's "[pod/<pod>/<container>] " (_kubectl), the container empty where kubectl names none; triage's
# launcher prefix of the same name reads it (triage/ranks.py: the pod the line's host)
KUBECTL_PREFIX = r"\[pod/(?P<host>[^/\]\s]{1,253})/(?P<container>[^/\]\s]{0,253})\] "
_KUBECTL = LazyPattern(r"^" + KUBECTL_PREFIX + r"(.*)$", re.S)
# what follows a JSON line's "{" in docker's json-file (its "log" key: _docker) and stern's JSON outputs (their first
# key: _stern), their rows' patterns; JSON_MESSAGE_LINE, either: classify's engine pattern for a JSON line whose
# message is decoded
_DOCKER_HEAD = r'.*"log"\s*:'
_STERN_HEAD = r'(?:"message":|"(?:namespace|pod)": ")'
JSON_MESSAGE_LINE = r"^\{(?:" + _DOCKER_HEAD + "|" + _STERN_HEAD + ")"
_STERN_LINE = LazyPattern(r"^\{" + _STERN_HEAD, re.S)  # (stern_record: the row's own pattern, whose lines are all it reads)
# the envelopes whose message is decoded from the JSON line (escapes): not the line's text as an engine matched it
JSON_DECODED = frozenset({"docker", "stern"})
# the rows whose line is no line of its own behind a prefix or labels (_loki, _behind): plain text, and a message decoded
# from JSON (its keywords are not the line's as written)
_NOT_BEHIND = frozenset({"plain", "journal_json"}) | JSON_DECODED
Build = Callable[[re.Match, "int | None"], "Envelope | None"]
# (a stamp after another, as `dmesg --time-format` given twice prints them: read by the dmesg row's alternatives as
# optional groups, which cost a line without one less than a lookahead refusing it did)
_ISO_STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d+[+-]\d\d:?\d\d"
# a "journal" row (its message "journal" in ENVELOPES: journalctl -o short-monotonic and short-delta print the journal's
# host and tag after dmesg's stamps) -> (its builder of a line with them, from the match and what _journal found in its
# message, JournalFound: the message matched once; its builder of a line without them, which does not look again;
# whether they may follow where the match's group 1 matched, the dmesg row's uptime (a dmesg -T line has none), or
# where it did not, the dmesg_decode row's -x facility (the ring buffer's)).  split builds from it lazily, ENVELOPES'
# builder of the row (_journal_row) at once; both ask _row_journal
_JOURNAL_ROWS: dict[str, tuple[Callable[[JournalFound, "int | None"], Envelope], Build, bool]] = {
    "dmesg": (_dmesg_journal, _dmesg_kernel, True),
    "dmesg_decode": (_dmesg_decode_journal, _dmesg_decode_kernel, False)}


def _row_journal(name: str, m: re.Match, message: str) -> tuple[dict[str, Any], str] | None:
    """The journal's host and tag in a "journal" row's message (_journal), None where there are none or the row's match
    says there are none (_JOURNAL_ROWS)."""
    return _journal(message) if (m.group(1) is not None) is _JOURNAL_ROWS[name][2] else None


def _journal_row(name: str) -> Build:
    """A "journal" row's builder at once (ENVELOPES', as `detect` would build): its line's envelope with the journal's
    host and tag where _row_journal finds them, else without (split's is the same, its building left for finish)."""
    journaled, kernel, _ = _JOURNAL_ROWS[name]

    def build(m: re.Match, year: int | None) -> Envelope:
        journal = _row_journal(name, m, m[m.lastindex])
        return kernel(m, year) if journal is None else journaled((m, journal), year)

    return build


# (name, first characters a line of it may start with, pattern, builder, message): where the message the builder's
# envelope would hold is, so that `split` gives it without building the envelope (its timestamp is the costly part,
# and a line the rules have seen before and found nothing in never needs it): "last", the last group; "inner", the
# last group without a dmesg-style stamp inside it (syslog); "journal", the last group without the journal's host and
# tag where it has them (_journal: journalctl -o short-monotonic / short-delta); None, the builder may refuse the match: it runs at once.
ENVELOPES: tuple[tuple[str, str, LazyPattern, Build, str | None], ...] = (
    ("kmsg", "0123456789", LazyPattern(r"^(\d{1,20}),(\d{1,20}),(\d{1,20}),([^;,]*)[^;]*;(.*)$", re.S), _kmsg, "last"),
    ("cri", "0123456789", _CRI, _cri, "last"),
    # (not a klog header after the stamp: "I0809 13:32:51.873532  1 health.go:185]" is no host and tag, _stamped reads it)
    # Without a host the tag is the kernel's or a process's with its pid (journalctl --no-hostname, ChromeOS): a
    # kernel line stamped alone ("2026-05-26T06:35:02 NVRM: GPU0 ..", "..Z mce: [Hardware Error]: ..") is no program
    # "NVRM" (which cut "NVRM: " off the message); nor is a tag one a word ends at ("mlx5_core 0000:61:00.0: .." is no
    # host "mlx5_core" and program "0000": the message was cut at "61:00.0:", its address lost). _stamped reads them.
    ("short_iso", "0123456789", LazyPattern(
        r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?) (?![IWEF]\d{4} )"
        r"(?:(EMERG|ALERT|CRIT|ERR|ERROR|WARNING|WARN|NOTICE|INFO|DEBUG) )?"
        r"(?:([^\s\[{]\S*)(?<!:) |(?=kernel:|[^\s:\[]+\[\d+\]:))" + _TAG + r"(?!\S) ?(.*)$", re.S),
     _short_iso, "inner"),
    # `kubectl logs --timestamps` and other exports' "<RFC 3339 time> <line>" (_stamped), a klog header kept out of the
    # message; after the syslog row, so that its lines try no more rows than before; not Loki's label set after the
    # stamp (the loki row's)
    ("stamped", "0123456789", LazyPattern(
        r"^(" + _RFC3339 + r") (?!" + _LOKI_LABELS + r" )(?:" + _KLOG + r" )?(.*)$", re.S),
     _stamped, "last"),
    # (first of the "[" rows: the commonest dmesg form, `dmesg`'s own, tries no other row. journalctl -o
    # short-monotonic too: the journal's host and tag after the uptime, read from the message, _journal; the space
    # after the uptime is taken first, then the optional caller / ctime group opens with their "[", a literal sre's
    # alternation tests before entering it, so a line without them enters only the empty alternative (the ctime's own
    # space before it checked behind): ~240 instructions less a dmesg line than a lookahead for " ?\[" guarding the
    # alternatives; and it is written "(?:..|)", not "(?:..)?", the same greedy choice: sre runs an alternation without
    # the REPEAT state an optional group sets up, ~260 instructions less a dmesg line.) `dmesg -T` (the ctime alone,
    # the month in English or the locale's three letters, pt_BR "[Ter Set 19 ..]": _month) is the same row's second
    # alternative, after the uptime's, not a row after it: a dmesg -T line is matched once, not refused by this row's
    # regex first (callgrind, bench/perline.py's "the same in dmesg -T": ~1,400 instructions a line less; a dmesg line
    # ~100 more, the outer alternation); its ctime one group (_ctime), not five (~200 less). Never the journal's host
    # and tag after it (_JOURNAL_ROWS: after an uptime only)
    ("dmesg", "[", LazyPattern(r"^\[(?:\s*(\d+\.\d+)\] ?(?:\[(?: *[TC]\d+\]|(?<=\] \[)([A-Z][a-z]{2} [A-Z][a-z]{2} "
                               r"[ \d]\d \d\d:\d\d:\d\d \d{4})\](?: " + _ISO_STAMP + ")?" + CALLER + r") ?|)"
                               r"|(\w{3} \w{3} +\d{1,2} \d\d:\d\d:\d\d \d{4})\](?: " + _ISO_STAMP + r"|) ?)(.*)$", re.S),
     _journal_row("dmesg"), "journal"),
    # `dmesg -r` and pstore's saved dmesg: the record's priority before the uptime, "<6>[    2.962781] ..."
    ("dmesg_raw", "<", LazyPattern(r"^<(\d{1,3})>\[\s*(\d+\.\d+)\]" + CALLER + r" ?(.*)$", re.S), _dmesg_raw, "last"),
    # NVIDIA Fabric Manager's own log (fabricmanager.log): "[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected ..."
    ("fabricmanager", "[", LazyPattern(
        r"^\[(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{1,2}) (\d{4}) (\d\d:\d\d:\d\d)\] "
        r"\[([A-Z]+)\] \[tid (\d{1,20})\] ?(.*)$", re.S), _fabricmanager, "last"),
    # `dmesg -T` under a locale whose weekday or month is no three-letter word (util-linux prints strftime's "%a %b %e
    # %H:%M:%S %Y"): zh_CN "[一 8月 25 16:20:28 2025]", its weekdays 日 一 二 三 四 五 六 and months 1月 .. 12月.
    # After the English rows (their lines try no more rows than before); refused unless the month is one (_local_month).
    ("dmesg_t_local", "[", LazyPattern(
        r"^\[(\w{1,5}+\.?) +(\w{2,5}+\.?) +(\d{1,2}) (\d\d:\d\d:\d\d) (\d{4})\] ?(.*)$", re.S), _dmesg_t_local, None),
    # util-linux dmesg's other forms (_dmesg_decode_kernel): -x's facility and level with any stamps or none ("kern  :warn  :
    # 2025-01-21T04:41:44,283302+00:00 NVRM: ..", "kern  :err   : [  +0.001354] [Tue Jan 13 04:33:10 2026] [T88977] .."),
    # and without -x the stamps the rows above do not read (-d's deltas, --reltime, several --time-format): after
    # them, so their lines try no more rows than before
    ("dmesg_decode", "abcdefghijklmnopqrstuvwxyz[0123456789", LazyPattern(
        r"^(?:([a-z0-9]+) *:([a-z]+) *:(?: (" + _DMESG_STAMPS + r"))?|(" + _DMESG_STAMPS + r"))" + CALLER
        + r" ?(.*)$", re.S), _journal_row("dmesg_decode"), "journal"),
    ("docker", "{", LazyPattern(r"^\{" + _DOCKER_HEAD, re.S), _docker, None),
    # stern's `-o json` and `-o extjson` (_stern): after docker's, so that its lines try no more rows than before
    ("stern", "{", _STERN_LINE, _stern, None),
    ("rfc5424", "<", LazyPattern(r"^<(\d{1,3})>1 (\S+) (\S+) (\S+) (\S+) \S+ (?:-|(?:\[.*?\])+) ?(.*)$", re.S), _rfc5424, "inner"),
    ("rfc3164", "<ADFJMNOS", LazyPattern(
        r"^(?:<(\d{1,3})>)?(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) (\d\d:\d\d:\d\d(?:\.\d+)?) "
        r"(\S+)(?<!:) " + _TAG + r" ?(.*)$", re.S), _rfc3164, "inner"),
    # (after the English syslog row: a kern.log line tries no more rows than before they came)
    # `talosctl dmesg` (Talos Linux): "10.200.70.91: kern:    info: [2025-06-04T04:51:57.572293906Z]: memory: ..", the
    # node left out when one was asked without -n; the level right-aligned to 7 characters
    ("talos", _LETTERS + "0123456789 ", LazyPattern(
        r"^ *(?:([^\s:][^\s]*?): )?(kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local[0-7]): *"
        r"(emerg|alert|crit|err|warning|notice|info|debug): \[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?"
        r"(?:Z|[+-]\d\d:\d\d))\]: ?(.*)$", re.S), _talos, "last"),
    # dmesg / dmesg -T gathered from many nodes (pdsh, clush, ansible): "b1360: [14280.445220] mlx5_core ..", the node
    # first (a name or address; never a driver's prefix, which no dmesg stamp follows)
    ("dmesg_host", _LETTERS + "0123456789",
     LazyPattern(r"^" + _NODE + r"\[\s*(\d+\.\d+)\]" + CALLER + r" ?(.*)$", re.S),
     _dmesg_host, "last"),
    ("dmesg_t_host", _LETTERS + "0123456789", LazyPattern(
        r"^" + _NODE + r"\[(\w{3}) (\w{3}) +(\d{1,2}) (\d\d:\d\d:\d\d) (\d{4})\] ?(.*)$", re.S),
     _dmesg_t_host, "last"),
    # the same with the month in the locale's words (the builder refuses a token that is no month)
    ("rfc3164_local", "<0123456789" + _LETTERS + _CYRILLIC, LazyPattern(
        r"^(?:<(\d{1,3})>)?(\d{1,2}[月월]|[^\W\d_]{3,5}\.?) +(\d{1,2}) (\d\d:\d\d:\d\d(?:\.\d+)?) "
        + _HOST + _TAG + r" ?(.*)$", re.S), _rfc3164_local, None),
    # syslog keeping the severity before the tag (_syslog_level): SONiC's year first and microseconds, busybox's and
    # OpenWrt's facility.severity, OpenWrt's weekday and year about the clock; last, so that the lines of the rows
    # above try no more rows than before
    ("syslog_level", "0123456789ADFJMNOSTW", LazyPattern(
        r"^(?:[A-Z][a-z]{2} )?(?:(\d{4}) )?(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) "
        r"(\d\d:\d\d:\d\d(?:\.\d+)?)(?: (\d{4}))? (?:(\S+) )??(?:(?i:(" + _SEVERITY_WORDS + r"))|([a-z0-9]+)\.("
        + _SEVERITY_WORDS + r")) " + _TAG + r" ?(.*)$", re.S), _syslog_level, "inner"),
    # klog's header (_klog): a Kubernetes component's own log, as `kubectl logs` or its file gives it
    ("klog", "IWEF", LazyPattern(r"^" + _KLOG + r" ?(.*)$", re.S), _klog, "last"),
    # the rest of journalctl's one-line forms (-o short-monotonic and short-delta are the dmesg row's): last, so that
    # the lines of the rows above try no more rows than before. short-unix ("1700000000.123456 host kernel: .."),
    # short-full and with-unit ("Tue 2024-01-02 03:04:05 UTC host kernel: .."), json and json-seq (a record a line)
    ("short_unix", "0123456789", LazyPattern(r"^(\d{1,12}\.\d{6}) " + _HOST + _TAG + r" ?(.*)$", re.S),
     _short_unix, "inner"),
    ("short_full", "MTWFS", LazyPattern(
        r"^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?) ([A-Za-z][A-Za-z0-9/_+-]{0,31}|"
        r"[+-]\d\d(?::?\d\d)?) " + _HOST + _TAG + r" ?(.*)$", re.S), _short_full, "inner"),
    ("journal_json", "{\x1e", LazyPattern(r"^\x1e?\{.*\"MESSAGE\" ?:", re.S), _journal_json, None),
    # `journalctl -o export`'s "MESSAGE=<text>" (flush left, records apart by a blank line) and `-o verbose`'s
    # "    MESSAGE=<text>" (under the record's header): the message alone (_journal_text; the record's time is on the lines
    # about it, read for a finding: parsers/scan.py); last for "M" and " ", so that their lines try no more rows than before
    ("journal_text", "M ", LazyPattern(r"^(?:    )?MESSAGE=(.*)$", re.S), _journal_text, "last"),
    # Loki's `logcli query`: "2018-06-25T12:52:09Z {instance="consul-.."} 2018/06/25 ..", the line behind the labels
    # split as its own (_loki, built at once); last, so that the lines of the rows above try no more rows than before
    ("loki", "0123456789", _LOKI, _loki, None),
    # `kubectl logs --prefix`: "[pod/train-worker-1/pytorch] <the pod's line>", the line behind it split as its own
    # (_kubectl, built at once); last, so that the lines of the "[" rows above try no more rows than before
    ("kubectl", "[", _KUBECTL, _kubectl, None),
    # ipmitool's SEL row (ipmi_sel.c's elist / list: the record id "%4x", then "| <date> | <time>[ AM|PM][ <zone>] |
    # <sensor> | <event> | Asserted"): "  3a | 12/14/22 | 23:09:44 CET | Memory #0x88 | ..", the row's time its finding's
    # (_ipmi_sel), the message the whole row (its fields read in a lookahead). Its lines start with the id's padding
    # or a hex digit other than 0 (an id past 0xfff: "%4x" pads with spaces, never zeros); last, so that the lines of the rows above try no more rows than before. A
    # "Pre-Init" row (the BMC's seconds since its start, no date) stays plain text
    ("ipmi_sel", " 123456789abcdef", LazyPattern(
        r"^(?= {0,3}[0-9a-f]{1,4} \| (\d\d)/(\d\d)/(\d\d(?:\d\d)?) \| (\d\d:\d\d:\d\d)(?: ([AP]M))?(?: ([A-Z]{1,5}|"
        r"[+-]\d\d:?\d\d))? \| )(.*)$", re.S), _ipmi_sel, "last"),
)


# (name, regex, builder (a "journal" row's: with the journal split found, _JOURNAL_ROWS), message, builder without a
# journal (a "journal" row's: _JOURNAL_ROWS; any other's, its builder))
Row = tuple[str, LazyPattern, Callable, "str | None", Build]


def _rows_by_first() -> dict[str, tuple[Row, ...]]:
    """First character -> the rows a line starting with it may be, in table order, for every character a row starts
    with (~150; equal tuples shared: a few dozen)."""
    shared: dict[tuple[Row, ...], tuple[Row, ...]] = {}
    out = {}
    for c in dict.fromkeys(c for _, starts, *_ in ENVELOPES for c in starts):
        rows = tuple((name, pattern, journaled, message, kernel)
                     for name, starts, pattern, build, message in ENVELOPES if c in starts
                     for journaled, kernel, _ in [_JOURNAL_ROWS.get(name, (build, build, None))])
        out[c] = shared.setdefault(rows, rows)
    return out


# first character -> the rows a line starting with it may be (_rows_by_first): a plain dict built at import, looked up
# by subscript (CPython's exact-dict path: a dict subclass deriving keys at their first lookup cost ~200 instructions a
# line more, callgrind); a character no row starts with is no key (split: no rows, "plain"), so input grows nothing.
# Each row's regex is compiled when a line first reaches that row (its LazyPattern's `match`, then the compiled one's
# own), not with its first character's rows: a dmesg line, which the first "[" row takes, compiles none of those
# after it (dmesg -x's the costliest: start-up)
_BY_FIRST: dict[str, tuple[Row, ...]] = _rows_by_first()

# An envelope not built yet: its builder, the match it builds from (a "journal" row's line with the journal's host and
# tag: the match and those, JournalFound) and the year for stamps without one.
Pending = tuple[Callable, "re.Match | JournalFound", "int | None"]


def detect(line: str, year: int | None = None) -> Envelope:
    """Split one line (no trailing newline) into its envelope and message."""
    return finish(split(line, year)[2])


def split(line: str, year: int | None = None) -> tuple[str, str, Envelope | Pending]:
    """(the envelope's row in ENVELOPES, message, the envelope or what builds it): `detect` with the building
    of the envelope (its timestamp above all) left for `finish`, which gives exactly what `detect` does."""
    try:
        rows = _BY_FIRST[line[:1]]
    except KeyError:  # (a try costs nothing in CPython 3.11+ until it raises: a first character no row starts with)
        rows = ()
    for name, pattern, build, message, kernel in rows:
        m = pattern.match(line)
        if m:
            if message is not None:
                text = m[m.lastindex]  # (each such row's pattern ends with its message, `(.*)$`: the group closed last)
                if message == "inner":
                    text = _inner_uptime(text)[1]
                elif message == "journal":  # (_journal's test inline: no call for a dmesg line)
                    if ("k" in text and "kernel: " in text) or ("]" in text and "]: " in text):
                        journal = _row_journal(name, m, text)
                        if journal is not None:
                            return name, journal[1], (build, (m, journal), year)  # (_JOURNAL_ROWS' builder with it)
                    return name, text, (kernel, m, year)
                return name, text, (build, m, year)
            env = build(m, year)  # a builder that may refuse the match (docker's: JSON) runs at once
            if env is not None:
                return name, env.message, env
    return "plain", line, Envelope("plain", line)


# where a pending envelope's host is, by its builder (host_of: a per-host read's keyword lines cost no timestamp parsed
# to be asked their host; an NVRM banner, which makes no finding, then builds no envelope at all): None, the builder's
# envelope never names one (the kernel's own forms, a container's CRI line); a number, the group of its match the
# builder's envelope takes its host from, as it is (None where the group did not match).  A builder left out is built
# to be asked, never misread; a group is listed only where real lines show it (tests/parsers/test_host_streams.py: the
# realworld samples' lines of each, their answer the built envelope's)
_HOST_GROUP: dict[Build, int | None] = {_kmsg: None, _cri: None, _dmesg_kernel: None, _dmesg_raw: None,
                                        _rfc3164: 5, _dmesg_host: 1, _talos: 1}
# the builders whose envelope never names a host (a pending envelope of one names none: Classifier.read asks no host_of)
HOSTLESS = frozenset(build for build, group in _HOST_GROUP.items() if group is None)


@functools.lru_cache(maxsize=4096)
def host_key(host: str) -> str:
    """The name a host is told apart by (`gpu-npd parse`'s one node per machine: its per-host streams, hosts_named, its
    by-node summary and NODE column, correlation's CauseIndex): case-folded, and a fully qualified name reduced to its
    first label, so that a node's syslog short name (`node-a`) and its journal's or a collector's FQDN
    (`node-a.cluster.local`, `NODE-A`) are one machine.  Never an address (`10.0.0.1` is not `10`, IPv6 kept whole) nor
    a name whose first label is all digits.  (A fleet's input rarely holds two machines whose names differ only past
    the first label; a node's two logs naming it both ways are the common case.)  Remembered: asked per line."""
    first, dot, _ = host.partition(".")
    if dot and first and not first.isdigit() and ":" not in host:
        return first.casefold()
    return host.casefold()


def host_of(env: Envelope | Pending) -> tuple[str | None, Envelope | Pending]:
    """(the machine a line's envelope names, as host_key tells it, or None; the envelope: built where its host had to be
    read)."""
    if type(env) is not Envelope:
        group = _HOST_GROUP.get(env[0], 0)
        if group != 0:  # (no group 0: the whole match is no host)
            host = None if group is None else env[1][group]
            return (None if host is None else host_key(host)), env
        env = finish(env)
    host = env.extra.get("host")
    return (None if host is None else host_key(host)), env


def hosts_named(head: bytes, lines: int = 64) -> int:
    """How many hosts the first `lines` lines of an input's start name, up to 2 (their envelopes' hosts: pdsh's and
    clush's `node-a: `, syslog's and the journal's, stern's `nodeName`; pdsh's before a plain kernel message,
    fleet_node; one machine's names as one, host_key):
    `gpu-npd parse` reads an input naming several one stream context per host from its first line
    (Classifier.hosts_apart).  Whole lines only: a last line without its newline, where the head was cut inside it
    (more input follows), is left out; at the input's very end such a line changes nothing (a by_host reader takes a
    second host at its own line as it comes)."""
    seen: set[str] = set()
    for raw in head.split(b"\n", lines)[:-1]:  # (the rest past `lines` lines, or the piece after the last newline)
        line = raw.decode("utf-8", "replace").rstrip("\r")
        name, _, env = split(line)
        host = host_of(env)[0]
        if host is None and name == "plain":  # (pdsh's prefix before a kernel message: fleet_node)
            node = fleet_node(line)
            host = None if node is None else host_key(node[0])
        if host is not None:
            seen.add(host)
            if len(seen) > 1:
                break
    return len(seen)


def cri(line: str) -> Envelope | None:
    """A container log line's CRI envelope (its time, stream and text); None for a line of any other form."""
    m = _CRI.match(line)
    return _cri(m, None) if m else None


def cri_split(line: str) -> tuple[str, Pending] | None:
    """`cri` with the building of the envelope (its timestamp above all) left for `finish`: (the message, what builds
    the envelope, exactly as `cri` does); None for a line of any other form."""
    m = _CRI.match(line)
    return (m.group(4), (_cri, m, None)) if m else None


def finish(env: Envelope | Pending) -> Envelope:
    """The envelope `split` left pending, built."""
    return env if type(env) is Envelope else env[0](env[1], env[2])


_KMSG_CONTINUATION = re.compile(r"^ [A-Z_][A-Z0-9_]*=")


def is_kmsg_continuation(line: str) -> bool:
    """` SUBSYSTEM=pci`-style dictionary lines that follow a /dev/kmsg record."""
    return bool(_KMSG_CONTINUATION.match(line))


_CRI_PARTIAL = LazyPattern(r"^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) P ")


def is_cri_partial(line: str) -> bool:
    return bool(_CRI_PARTIAL.match(line))


def join_cri(lines: list[str]) -> str:
    """Join a CRI group (`P` lines then the `F` line) into one `F` line with the first's header."""
    if len(lines) == 1:
        return lines[0]
    head = lines[0].split(" ", 3)
    bodies = [ln.split(" ", 3)[3] if ln.count(" ") >= 3 else "" for ln in lines]
    return f"{head[0]} {head[1]} F {''.join(bodies)}"
