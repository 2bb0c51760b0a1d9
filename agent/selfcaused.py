"""The agent must never cause what it reports.

On some ConnectX-7 systems (DGX / HGX B200-B300, GB200 "Umbriel" mezzanines) the fabric manager restricts
some PCI functions; reading their InfiniBand counters (`/sys/class/infiniband/*/ports/*/counters/*`,
`hw_counters/*`) makes mlx5 issue an ACCESS_REG (PPCNT) firmware command that fails, and the kernel logs

    mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805) op_mod(0x1) failed, status
    bad operation(0x2), syndrome (0x9a6171), err(-22)

(prometheus/node_exporter#3434, leptonai/gpud#1164). Left alone the agent would report, every poll, a NIC
error it caused itself. `CounterGuard` correlates: such a line about a device whose counters we read within
`window` seconds before it is ours (not a node problem); after `repeats` of them the device's counters are
no longer read, which is said once (log warning, `gpu_npd_ib_counters_disabled{device,pci_bus_id}`). A line
that does not follow one of our reads is a fault like any other. Pure apart from its lock; the clock is
injected. What our reads can cause is the table SELF_CAUSED (data).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from parsers import Finding, seen_at
from parsers.pci import normalize_pci

from .keyspec import Invalid, each

log = logging.getLogger("gpu_npd")
MAX_DISABLED = 256  # devices restored from state at most (a node has a few dozen IB functions)
SLACK_SECONDS = 1.0  # a line stamped this much before our read began still counts (clocks, second-resolution stamps)


@dataclass(frozen=True)
class SelfCaused:
    kind: str  # finding kind
    detail: str  # the details key naming what failed
    value: str  # its value (prefix) when our reads cause it
    why: str


SELF_CAUSED: tuple[SelfCaused, ...] = (
    SelfCaused("nic_error", "command", "ACCESS_REG(0x805)",
               "reading InfiniBand port counters (PPCNT through ACCESS_REG) of a function the fabric manager restricts"),
)
_KINDS = frozenset(c.kind for c in SELF_CAUSED)  # most findings are of no kind our reads cause


class CounterGuard:
    """Which InfiniBand devices' counters the poller may read; fed by the poller (reads) and the pipeline (lines)."""

    def __init__(self, window_seconds: float = 2.0, repeats: int = 3, clock: Callable[[], float] = time.time,
                 on_disable: Callable[[str, str], None] | None = None):
        self.window = window_seconds  # 0: off (never correlates, never disables)
        self.repeats = max(1, repeats)
        self.clock = clock
        self.on_disable = on_disable
        self._lock = threading.Lock()
        self._reads: dict[str, tuple[float, float]] = {}  # pci -> (start, end) of our last counter read
        self._devices: dict[str, set[str]] = {}  # pci -> InfiniBand device names read on it
        self._hits: dict[str, deque] = {}  # pci -> times of lines our reads caused
        self.disabled: dict[str, str] = {}  # pci -> why (said once)
        # device (`dddd:bb:dd`) -> why: every function of it unread, as a state saved before functions were kept says
        # (its key was the device's: no function of it was read); restore, to_state
        self._whole: dict[str, str] = {}

    def reading(self, pci: str) -> bool:
        """May the poller read this device's counters?"""
        key = normalize_pci(pci, True)  # the function's; its device's is the part before the `.`
        return key is None or (key not in self.disabled and key.partition(".")[0] not in self._whole)

    def note_read(self, pci: str, device: str, start: float, end: float) -> None:
        key = normalize_pci(pci, True)  # a function of its own (the finding's address, kinds.FUNCTION_DEVICES)
        if key is None or not self.window:
            return
        with self._lock:
            self._reads[key] = (start, end)
            names = self._devices.setdefault(key, set())
            if len(names) < 16:
                names.add(device)

    def explains(self, f: Finding, since: float | None = None) -> bool:
        """True when this finding is a line our own counter read caused: the caller raises nothing for it.  `since`:
        this boot's start (seen_at's: a kmsg line's time from its stamp; an earlier boot's line is none of our reads)."""
        if not self.window or f.pci is None or f.kind not in _KINDS:
            return False
        cause = next((c for c in SELF_CAUSED if f.kind == c.kind
                      and str(f.details.get(c.detail, "")).startswith(c.value)), None)
        if cause is None:
            return False
        t = seen_at(f, self.clock(), since)
        if t is None:
            return False
        with self._lock:
            read = self._reads.get(f.pci)
            if read is None or not read[0] - SLACK_SECONDS <= t <= read[1] + self.window:
                return False
            hits = self._hits.setdefault(f.pci, deque(maxlen=self.repeats))
            hits.append(t)
            if len(hits) < self.repeats or f.pci in self.disabled:
                return True
            devices = ",".join(sorted(self._devices.get(f.pci, ()))) or "unknown"
            self.disabled[f.pci] = cause.why
        log.warning("InfiniBand counters of %s (%s) are no longer read: each read made mlx5 log %s failures "
                    "(%d lines within %.0f s after our reads) - %s. The agent does not report what it causes; "
                    "port state and rate are still read", devices, f.pci, cause.value, self.repeats, self.window,
                    cause.why)
        if self.on_disable is not None:
            self.on_disable(devices, f.pci)
        return True

    # ---- persistence (same boot only: a reboot, a firmware update or a new fabric manager state re-checks) ----

    def to_state(self) -> dict:
        """Each function by its full address (function 0's too: `0000:08:00.0`); a bare `dddd:bb:dd` is a whole
        device (restore)."""
        with self._lock:
            functions = {pci if "." in pci else pci + ".0": pci for pci in self.disabled}
            return {"disabled": {**self._whole, **{saved: self.disabled[pci] for saved, pci in functions.items()}},
                    "devices": {**{pci: sorted(self._devices.get(pci, ())) for pci in self._whole},
                                **{saved: sorted(self._devices.get(pci, ())) for saved, pci in functions.items()}}}

    def restore(self, state: object) -> list[str]:
        """What an earlier run of this boot stopped reading stays unread (a restart must not make mlx5 log
        its failures again); said once, the metric set again.  An entry not of its type is dropped alone and its
        fault returned (keyspec.each).  An address
        naming no function (`0000:08:00`: a state saved before functions were kept, whose key was the device's) is
        every function of that device; one naming a function (to_state's) is that function."""
        faults: list[str] = []
        if state is None:
            return faults
        if not isinstance(state, dict):
            return [str(Invalid("counter_guard", "expected a mapping"))]
        names = dict(each(state.get("devices", {}), dict[str, list[str]], "counter_guard.devices", faults))
        disabled = list(each(state.get("disabled", {}), dict[str, str], "counter_guard.disabled", faults))
        for pci, why in disabled[:MAX_DISABLED]:
            key = normalize_pci(pci, True)
            if key is None:
                faults.append(str(Invalid(f"counter_guard.disabled[{pci[:60]!r}]", "expected a PCI address")))
                continue
            devices = names.get(pci, [])[:16]
            with self._lock:
                if "." in pci:
                    self.disabled[key] = why[:300]
                else:  # the whole device's, as the run that saved it read it
                    self._whole[key] = why[:300]
                self._devices.setdefault(key, set()).update(devices)
            log.warning("InfiniBand counters of %s (%s) are still not read: an earlier run of this boot found that "
                        "reading them makes mlx5 log failures - %s", ",".join(sorted(devices)) or "unknown", key,
                        why[:300])
            if self.on_disable is not None:
                self.on_disable(",".join(sorted(devices)) or "unknown", key)
        return faults
