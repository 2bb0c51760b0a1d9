"""Unused ports: a NIC port that goes down (or reports its cable unplugged) early in a boot and was never up
since that boot began is a port nobody cabled, not a fault (the kind table's `unused_states`); a module in error
(`Port module event[error]: .. Cable error, ..`) is in its cage, so that port is cabled, and the error stays one.  One rule for the agent (through its Xid/port
policy, with the boot id) and for `gpu-npd parse` (the scanner, where a boot starts wherever the kernel's
uptime goes backwards).  A log in wall-clock time only (`dmesg -T`, `dmesg --time-format iso`, journal exports,
syslog) carries no uptime: there the kernel's start-up lines (`Linux version ..`, `Command line: ..`, the init memory
freed, `Run /init as init process`) start a boot at the time they were written (BootClock), and a line's seconds
since then stand for its uptime."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import datetime

from .finding import Finding
from .kinds import TABLE

# link-state kinds (the kind table's `fault_states`) -> the states that are a fault: down, unplugged
DOWN_STATES = {k.name: k.fault_states for k in TABLE if k.fault_states}
# link-state kinds -> the fault states an uncabled port shows (`unused_states`): down, unplugged
UNUSED_STATES = {k.name: k.unused_states for k in TABLE if k.fault_states}
LINK_KINDS = frozenset(DOWN_STATES)
UNUSED_PORT_SECONDS = 600.0  # a down/unplugged report this early in the boot, port never up: unused
MAX_PORTS = 1024  # ports remembered as up, per boot


def port_key(f: Finding) -> str:
    """The port a link finding is about: PCI function plus netdev / module number when the line names one."""
    port = f.details.get("netdev") or f.details.get("module")
    return f"{f.pci or '-'}" + (f"/{port}" if port is not None else "")


class UnusedPorts:
    def __init__(self, seconds: float = UNUSED_PORT_SECONDS):
        self.seconds = seconds
        self.up: set[str] = set()
        self.boot: Hashable = ""  # (the agent's boot id, kept in its state; the scanner's boot count)

    def judge(self, f: Finding, port_of: Callable[[Finding], str], uptime: float | None, boot: Hashable) -> Finding:
        """`f` (an ib_link finding) as it stands for this boot: a down report on an unused port becomes
        severity info, action NONE, state `unused` (no condition rule takes it).  `port_of`: its port (port_key, the
        agent's), asked only where the state needs it (a storm of downs late in a boot asks none)."""
        if boot != self.boot:
            self.up.clear()
            self.boot = boot
        state = f.details.get("state")
        if state == "up":
            if len(self.up) < MAX_PORTS:
                self.up.add(port_of(f))
        elif (state in UNUSED_STATES.get(f.kind, ()) and uptime is not None and 0 <= uptime <= self.seconds
              and port_of(f) not in self.up):
            f.severity, f.action = "info", "NONE"
            f.details["state"] = "unused"
        return f


class BootClock:
    """When the boot a stream is in began, from the kernel's start-up lines (rules.BOOT_STAGES), for logs whose
    lines carry a wall-clock time and no uptime.  The kernel prints them in a fixed order within its first seconds:
    a line of a later stage than the last one seen, within `span` seconds of the boot's first, is the same boot (the
    boot's time stays its first line's: the banner's when the log holds it, else the first stage the log kept, a
    few seconds late at most); any other starts the next boot (`seq` counts them)."""

    __slots__ = ("start", "stage", "seq", "span")

    def __init__(self, span: float = UNUSED_PORT_SECONDS):
        self.start: datetime | None = None
        self.stage = -1
        self.seq = 0
        self.span = span

    def mark(self, stage: int, when: datetime | None) -> None:
        since = self.since(when)
        if 0 <= self.stage < stage and (since is None or 0 <= since <= self.span):  # this boot's next stage
            if self.start is None:
                self.start = when
        else:
            self.seq += 1
            self.start = when
        self.stage = stage

    def since(self, when: datetime | None) -> float | None:
        """Seconds from the boot's start to `when`: None without both (or when one has a zone and the other not)."""
        if self.start is None or when is None:
            return None
        try:
            return (when - self.start).total_seconds()
        except TypeError:
            return None
