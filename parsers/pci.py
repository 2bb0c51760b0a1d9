"""One key per PCI device: lowercase `dddd:bb:dd`, function dropped."""

from __future__ import annotations

import re
from functools import lru_cache

_PCI = re.compile(r"^(?:PCI:)?(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\.[0-7])?$")
# A PCI address somewhere in free text (domain required, to avoid matching times).
PCI_IN_TEXT = re.compile(r"(?<![0-9a-fA-F:])(?:PCI:)?([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.[0-7])?(?![0-9a-fA-F:])")


@lru_cache(maxsize=4096)  # a node has a few dozen devices: a storm of distinct lines names the same ones
def normalize_pci(value: str | None) -> str | None:
    """`00000000:5D:00.0`, `PCI:0000:5d:00`, `5d:00.0` -> `0000:5d:00`; None if it is no PCI address."""
    if not value:
        return None
    m = _PCI.match(value.strip())
    if not m:
        return None
    domain, bus, dev = m.groups()
    return f"{int(domain or '0', 16) & 0xFFFF:04x}:{int(bus, 16):02x}:{int(dev, 16):02x}"


def find_pci(text: str) -> str | None:
    """The first PCI address in free text, normalised."""
    m = PCI_IN_TEXT.search(text)
    return normalize_pci(m.group(1)) if m else None
