"""Unused ports: a NIC port that goes down (or reports its cable unplugged) early in a boot and was never up
since that boot began is a port nobody cabled, not a fault.  One rule for the agent (through its Xid/port
policy, with the boot id) and for `gpu-npd parse` (the scanner, where a boot starts wherever the kernel's
uptime goes backwards)."""

from __future__ import annotations

from .finding import Finding
from .kinds import TABLE

# link-state kinds (the kind table's `fault_states`) -> the states that are a fault: down, unplugged
DOWN_STATES = {k.name: k.fault_states for k in TABLE if k.fault_states}
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
        self.boot: str = ""

    def judge(self, f: Finding, port: str, uptime: float | None, boot: str) -> Finding:
        """`f` (an ib_link finding) as it stands for this boot: a down report on an unused port becomes
        severity info, action NONE, state `unused` (no condition rule takes it)."""
        if boot != self.boot:
            self.up.clear()
            self.boot = boot
        state = f.details.get("state")
        if state == "up":
            if len(self.up) < MAX_PORTS:
                self.up.add(port)
        elif (state in DOWN_STATES.get(f.kind, ()) and port not in self.up and uptime is not None
              and 0 <= uptime <= self.seconds):
            f.severity, f.action = "info", "NONE"
            f.details["state"] = "unused"
        return f
