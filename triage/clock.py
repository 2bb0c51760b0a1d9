"""One clock for a job's files: wall-clock stamps from application logs, kernel uptimes turned into wall clock
through boot anchors, and years for stamps that print none.

- Application logs stamp lines their own way (Python logging, glog/c10 "E0321 02:07:08.408271", torchrun's
  ChildFailedError block, Slurm's "CANCELLED AT"): `app_stamp` reads them; the parsers' envelopes read the rest.
- A kernel log read as dmesg or /dev/kmsg carries seconds since boot only.  A line that carries both (syslog and
  journald keep the dmesg stamp inside the message; `dmesg -T` beside plain dmesg) is an anchor: boot time =
  wall - uptime.  `Clock.align` gives every uptime-only line of that host a wall time through its host's anchor;
  a host with no anchor keeps time None (never a guess).
- Stamps without a year (syslog, glog) take the year of the job's dated stamps (`Clock.year`), or the caller's
  fallback when it has none.
- Hosts' clocks differ by NTP's error; attribution treats stamps within SKEW seconds as simultaneous.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from statistics import median
from typing import Iterable

from parsers.envelope import host_key

from .model import Evidence

SKEW = 5.0  # seconds two hosts' clocks may disagree (NTP); stamps closer than this are simultaneous

# (regex searched near the start of the message, has a year); groups: Y m d H M S frac
_STAMPS: tuple[tuple[re.Pattern, bool], ...] = (
    # Python logging / DeepSpeed / torchrun agent: "[2024-05-08 08:47:31,261]", "2024-05-08 08:47:31.261";
    # ISO with T and zone; torchrun's ChildFailedError "time      : 2025-05-21_15:43:03"; the date by slashes, Go's
    # log package and zerolog's console writer ("2022/10/07 04:14:38 INF", aws-node-termination-handler) and
    # MMEngine's logger ("2024/06/16 20:02:03 - mmengine - INFO")
    (re.compile(r"(?P<Y>\d{4})(?P<sep>[-/])(?P<m>\d\d)(?P=sep)(?P<d>\d\d)[ T_](?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)"
                r"(?:[.,](?P<f>\d+))?"
                r"(?P<z>Z|[+-]\d\d:?\d\d)?"), True),
    # TensorRT / TensorRT-LLM's Python logger: "[12/04/2025-18:38:28] [TRT-LLM] [RANK 0] [I]" (month first)
    (re.compile(r"(?<!\d)(?P<m>[01]\d)/(?P<d>[0-3]\d)/(?P<Y>\d{4})-(?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)"), True),
    # glog / c10 logging: "E0321 02:07:08.408271257", "[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607]"
    (re.compile(r"(?<![A-Za-z0-9])[EWIF](?P<m>[01]?\d)(?P<d>\d\d) (?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d)"
                r"(?:\.(?P<f>\d+))?(?= )"), False),
    # vLLM's logger: "ERROR 08-07 19:11:43 [serving_chat.py:1050]", "INFO 07-04 23:23:23 multiproc_worker_utils.py:120]",
    # "ERROR 11-03 23:14 [serving_chat.py:1145]" (a date format without seconds)
    (re.compile(r"(?<![A-Za-z0-9])(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<m>[01]\d)-(?P<d>[0-3]\d) (?P<H>\d\d):"
                r"(?P<M>\d\d)(?::(?P<S>\d\d)(?:\.(?P<f>\d+))?)?(?= )"), False),
    # C's ctime(), as Open MPI's --timestamp-output and horovodrun's --prefix-output-with-timestamp print it before
    # their rank tag: "Tue Jun  9 20:10:40 2020[1]<stderr>:" (the month by name)
    (re.compile(r"(?<![A-Za-z0-9])(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?P<b>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|"
                r"Dec) (?P<d>[ \d]\d) (?P<H>\d\d):(?P<M>\d\d):(?P<S>\d\d) (?P<Y>\d{4})(?!\d)"), True),
)
_MONTHS = {name: i for i, name in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
_HEAD = 160  # characters of a message a stamp is looked for in
# every stamp of _STAMPS holds its hour and minute so: a message without is none, told by one search, not five (the
# year probe looks at each file's first lines, all 2,000 of each rank's file in a 1,024-rank job)
_HOUR_MINUTE = re.compile(r"\d\d:\d\d")


def app_stamp(text: str, year: int | None = None) -> tuple[datetime | None, bool]:
    """(the wall-clock stamp an application printed near the start of `text`, whether it lacked a year).  A stamp
    without a year gets `year`, or 1900 as a placeholder for `Clock.year` to replace."""
    head = text[:_HEAD]
    if _HOUR_MINUTE.search(head) is None:
        return None, False
    for pattern, dated in _STAMPS:
        m = pattern.search(head)
        if m is None:
            continue
        g = m.groupdict()
        try:
            frac = int(((g.get("f") or "") + "000000")[:6])
            month = _MONTHS[g["b"]] if g.get("b") else int(g["m"])
            t = datetime(int(g["Y"]) if dated else (year or 1900), month, int(g["d"]), int(g["H"]),
                         int(g["M"]), int(g["S"] or 0), frac)
        except ValueError:
            continue
        zone = g.get("z")
        if zone == "Z":  # UTC: the CRI log envelope's "2024-07-25T07:00:00.000000000Z"
            t = t.replace(tzinfo=timezone.utc)
        elif zone:
            sign = 1 if zone[0] == "+" else -1
            zone = zone[1:].replace(":", "")
            try:
                t = t.replace(tzinfo=timezone(sign * timedelta(hours=int(zone[:2]), minutes=int(zone[2:]))))
            except ValueError:  # an offset out of range ("+99:00"): the stamp as if it named none
                pass
        return t, not dated and year is None
    return None, False


class Clock:
    """Gathers anchors and dated stamps while files are read; `align` then fixes the evidence's times."""

    def __init__(self) -> None:
        # host (envelope.host_key: one machine however spelt) -> wall - uptime, per anchor
        self._offsets: dict[str | None, list[float]] = defaultdict(list)
        self._years: Counter[int] = Counter()

    def anchor(self, host: str | None, wall: datetime, uptime: float) -> None:
        """A line that carried both its wall time and its uptime (one boot of `host`)."""
        self._offsets[_host(host)].append(_epoch(wall) - uptime)

    def dated(self, t: datetime) -> None:
        self._years[t.year] += 1

    def absorb(self, other: "Clock") -> None:
        """What `other` gathered, as if its lines had been read through this clock after this one's (a file read
        apart, e.g. in a worker process: merged in the order the files are listed, the anchors and years, and so
        `year`'s choice between equally common years, come out as one clock reading them in turn would give)."""
        for host, offsets in other._offsets.items():
            self._offsets[host].extend(offsets)
        for year, count in other._years.items():  # insertion order kept: most_common breaks ties by it
            self._years[year] += count

    @property
    def empty(self) -> bool:
        """Nothing gathered: absorbing it changes nothing (a file's reading then keeps no clock)."""
        return not self._offsets and not self._years

    @property
    def year(self) -> int | None:
        return self._years.most_common(1)[0][0] if self._years else None

    def boot(self, host: str | None) -> float | None:
        """Epoch seconds at which `host` booted, from its anchors (the median: one bad stamp does not move it)."""
        offsets = self._offsets.get(_host(host))
        return median(offsets) if offsets else None

    def align(self, evidence: Iterable[Evidence], fallback_year: int | None = None) -> list[Evidence]:
        """Evidence with times on one wall clock: uptimes through their host's boot anchor, year-less stamps given
        the job's year (that of its dated stamps; `fallback_year` when it has none)."""
        evidence = list(evidence)  # read to the end first: the anchors and years of every line count
        year = self.year or fallback_year
        out = []
        for e in evidence:
            d = e.details
            if e.time is None and d.get("uptime") is not None:
                boot = self.boot(e.host)
                if boot is not None:
                    e = replace(e, time=datetime.fromtimestamp(boot + float(d["uptime"]), timezone.utc))
            elif e.time is not None and d.get("yearless") and year is not None:
                e = replace(e, time=_with_year(e.time, year))
            out.append(e)
        return out


def _host(host: str | None) -> str | None:
    """The key `Clock` keeps `host`'s anchors under (envelope.host_key: one machine however spelt; no host as is)."""
    return host_key(host) if host else host


def _with_year(t: datetime, year: int) -> datetime:
    try:
        return t.replace(year=year)
    except ValueError:  # 29 February of a year without one
        return t.replace(year=year, day=28)


def _epoch(t: datetime) -> float:
    return (t if t.tzinfo else t.replace(tzinfo=timezone.utc)).timestamp()
