"""Stragglers against peers: one poll's readings -> members far from their peers' median, for N polls running.

The GPUs of a training node (and its RDMA rails) work in lock-step: one pod's ranks, the same kernels, the
same collectives.  A member whose reading sits more than `k` spreads on the wrong side of the median of its
peers (the same entity kind, GPU model, field) for `polls` consecutive polls is a straggler:
`GPUDegraded/StragglerSuspected`, a warning, never fatal, naming the device and the field.

Pure: readings and a time in, verdicts out; the only state is the run of consecutive outlying polls and the
previous counter values (a rate is taken between two polls).  Fields are a table (FIELDS), one row per field:
its direction (a straggler is "low": a slow clock, little traffic; or "high": more time throttled), its unit, its
busy gate and its spread floor.

- Busy gate: only members under load are compared (`gate`, the field itself unless named, above `busy`): an idle
  GPU is not the job's, and its zero is not a peer's value.
- Spread: the MAD (scaled to a standard deviation), but never below `rel_floor` of the median nor the field's
  absolute `floor`.  Peers that agree exactly (throttled 0 % of the time, MAD 0) would otherwise put any member
  that differs at all infinitely far from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from parsers.model import Reading, Verdict

from .hangsettings import PeerSettings

REASON = "StragglerSuspected"
CONDITION = "GPUDegraded"
MAD_SCALE = 1.4826  # MAD -> standard deviation for normal data
# the reading's labels a verdict keeps, naming the device for the pods that use it (agent/kube/stragglers.py)
DEVICE_LABELS = ("gpu_index", "uuid", "device", "port", "netdev", "pci_bus_id")


@dataclass(frozen=True)
class Field:
    entity: str  # gpu, ib_port
    name: str  # the reading's value (a cumulative counter for kind "rate")
    kind: str  # "gauge", or "rate": per second between two polls, of a counter
    direction: str  # "low": only a member below its peers is a straggler; "high": only above
    busy: float  # the member is under load when its `gate` value exceeds this
    unit: str
    what: str  # in words, for the Events
    scale: float = 1.0  # the value (per second, for a rate) -> `unit`
    floor: float = 0.0  # the spread never less than this, in `unit`
    gate: str = ""  # the reading's value the busy gate looks at; "": this field's own (after `scale`)


def median_of(values: Iterable[float]) -> float:
    """The median, as statistics.median computes it (the middle value, else the mean of the two middle ones), without
    loading the statistics module (and fractions with it: ~0.2 MiB of the agent's idle footprint for one function).
    Not for an empty input."""
    data = sorted(values)
    n = len(data)
    if n % 2:
        return data[n // 2]
    return (data[n // 2 - 1] + data[n // 2]) / 2


UNDER_LOAD = 50.0  # utilisation, percent: a GPU of the job's (the gate of fields that are 0 when healthy)
# The table.  Floors are design choices, not measurements: about the smallest difference that means something
# for each field (a couple of clock steps, 10 W, 5 points of utilisation, 2 points of the time throttled).
FIELDS: tuple[Field, ...] = (
    Field("gpu", "clock_sm_loaded", "gauge", "low", 300.0, "MHz", "SM clock under load", floor=30.0),
    Field("gpu", "power_watts", "gauge", "low", 100.0, "W", "power draw", floor=10.0),
    Field("gpu", "utilization_gpu", "gauge", "low", UNDER_LOAD, "%", "utilisation", floor=5.0),
    # seconds throttled per second, as a percentage of the time; healthy peers sit at 0 (or all at a power cap)
    *(Field("gpu", f"throttled_{cause}_seconds", "rate", "high", UNDER_LOAD, "%", f"time throttled ({words})",
            100.0, 2.0, "utilization_gpu")
      for cause, words in (("thermal", "thermal"), ("power", "power cap"), ("board_limit", "board limit"),
                           ("reliability", "reliability"))),
    # PCIe: NVML's own 20 ms sample, bytes per second; NVLink: data counters summed over the GPU's links, in bytes
    # (agent/gpu/collector.py converts NVML's KiB once: NVLINK_DATA).  Gated on
    # utilisation, not on the traffic itself: a loaded GPU that moves little data is the straggler sought
    Field("gpu", "pcie_tx_bytes_per_second", "gauge", "low", UNDER_LOAD, "B/s", "PCIe transmit rate", 1.0, 1e7,
          "utilization_gpu"),
    Field("gpu", "pcie_rx_bytes_per_second", "gauge", "low", UNDER_LOAD, "B/s", "PCIe receive rate", 1.0, 1e7,
          "utilization_gpu"),
    Field("gpu", "nvlink_tx_bytes", "rate", "low", UNDER_LOAD, "B/s", "NVLink transmit rate", 1.0, 1e8,
          "utilization_gpu"),
    Field("gpu", "nvlink_rx_bytes", "rate", "low", UNDER_LOAD, "B/s", "NVLink receive rate", 1.0, 1e8,
          "utilization_gpu"),
    # IB data counters count 4-byte words
    Field("ib_port", "counters/port_xmit_data", "rate", "low", 1e8, "B/s", "transmit rate", 4.0, 1e7),
    Field("ib_port", "counters/port_rcv_data", "rate", "low", 1e8, "B/s", "receive rate", 4.0, 1e7),
)


class PeerOutliers:
    def __init__(self, k: float = PeerSettings.k, polls: int = PeerSettings.polls,
                 min_peers: int = PeerSettings.min_peers, rel_floor: float = 0.02,
                 fields: tuple[Field, ...] = FIELDS):
        self.k, self.polls, self.min_peers, self.rel_floor, self.fields = k, polls, min_peers, rel_floor, fields
        self._runs: dict[tuple[str, str], int] = {}  # (subject, field) -> consecutive outlying polls
        self._last: dict[tuple[str, str], tuple[float, float]] = {}  # counters: (time, value) of the last poll

    def judge(self, readings: list[Reading], now: float) -> dict[str, list[Verdict]]:
        """Subject -> its straggler verdicts for this poll (subjects without one are absent)."""
        out: dict[str, list[Verdict]] = {}
        outlying: set[tuple[str, str]] = set()
        seen_counters: set[tuple[str, str]] = set()
        for f in self.fields:
            groups: dict[str, dict[str, tuple[Reading, float]]] = {}
            for r in readings:
                if r.entity != f.entity or f.name not in r.values:
                    continue
                value = self._value(f, r, now, seen_counters)
                loaded = value if not f.gate else r.values.get(f.gate)
                if value is not None and loaded is not None and loaded > f.busy:  # an idle member is not the job's
                    groups.setdefault(r.labels.get("model", ""), {})[r.subject] = (r, value)
            for members in groups.values():
                for subject, verdict in self._outliers(f, members):
                    key = (subject, f.name)
                    outlying.add(key)
                    run = self._runs[key] = self._runs.get(key, 0) + 1
                    if run >= self.polls:
                        out.setdefault(subject, []).append(verdict)
        self._runs = {key: n for key, n in self._runs.items() if key in outlying}
        self._last = {key: v for key, v in self._last.items() if key in seen_counters}
        return out

    def _value(self, f: Field, r: Reading, now: float, seen: set) -> float | None:
        value = float(r.values[f.name])
        if f.kind == "gauge":
            return value * f.scale
        key = (r.subject, f.name)
        seen.add(key)
        last = self._last.get(key)
        self._last[key] = (now, value)
        if last is None or now <= last[0] or value < last[1]:
            return None  # the first poll, or a counter reset: no rate this time
        return (value - last[1]) * f.scale / (now - last[0])

    def _outliers(self, f: Field, members: dict[str, tuple[Reading, float]]):
        if len(members) < self.min_peers:
            return
        values = [v for _, v in members.values()]
        median = median_of(values)
        mad = median_of(abs(v - median) for v in values)
        spread = max(MAD_SCALE * mad, self.rel_floor * abs(median), f.floor)
        for subject, (r, value) in members.items():
            off = (value - median) / spread
            if (f.direction == "low" and off < -self.k) or (f.direction == "high" and off > self.k):
                device = r.labels.get("gpu_index") or r.labels.get("device") or subject
                shown = f"{value:.4g} {f.unit}"
                message = (f"{f.entity} {device} ({subject}) {f.name} {shown} is {abs(off):.1f} MADs "
                           f"{'below' if off < 0 else 'above'} its {len(members) - 1} peers' median "
                           f"{median:.4g} {f.unit} for {self.polls} polls: a straggler slows every rank of the job")
                yield subject, Verdict(CONDITION, REASON, "warning", "hardware",
                                       "compare with the job's step time; drain and run diagnostics if it persists",
                                       message, {"field": f.name, "what": f.what, "value": value, "median": median,
                                                 "mads": round(off, 1),
                                                 **{k: r.labels[k] for k in DEVICE_LABELS if r.labels.get(k)}})
