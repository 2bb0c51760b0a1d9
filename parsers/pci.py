"""One key per PCI device: lowercase `dddd:bb:dd`, function dropped; `dddd:bb:dd.f` for a device one function is."""

from __future__ import annotations

import re
from functools import lru_cache

_PCI = re.compile(r"^(?:PCI:)?(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})(?:\.([0-7]))?$")
# A PCI address somewhere in free text (domain required, to avoid matching times), its function with it: a function
# may be followed by the ": " of a driver's prefix ("mlx5_core 0004:01:00.1: .."), an address without one by neither a
# hex digit nor a colon.
PCI_IN_TEXT = re.compile(r"(?<![0-9a-fA-F:])(?:PCI:)?([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}"
                         r"(?:\.[0-7](?![0-9a-fA-F])|(?![0-9a-fA-F:])))")


@lru_cache(maxsize=4096)  # a node has a few dozen devices: a storm of distinct lines names the same ones
def normalize_pci(value: str | None, function: bool = False) -> str | None:
    """`00000000:5D:00.0`, `PCI:0000:5d:00`, `5d:00.0` -> `0000:5d:00`; None if it is no PCI address.
    `function`: the address of a device that is one PCI function (a NIC's port, a PCIe root port: parsers/kinds.py
    FUNCTION_DEVICES) keeps its function where the value names one other than 0 (`0000:08:00.1`, `0000:00:1c.4`);
    function 0, or none named, is the bare `dddd:bb:dd` a GPU's address is."""
    if not value:
        return None
    m = _PCI.match(value.strip())
    if not m:
        return None
    domain, bus, dev, fn = m.groups()
    key = f"{int(domain or '0', 16) & 0xFFFF:04x}:{int(bus, 16):02x}:{int(dev, 16):02x}"
    return f"{key}.{fn}" if function and fn is not None and fn != "0" else key


def find_pci(text: str, function: bool = False) -> str | None:
    """The first PCI address in free text, normalised (`function`: as normalize_pci's)."""
    m = PCI_IN_TEXT.search(text)
    return normalize_pci(m.group(1), function) if m else None


# The PCI drivers that bind NVIDIA GPUs and nothing else: a line the kernel's dev_printk prefixes with one of them and
# the device's address ("nvidia 0000:63:00.0: PCIe Bus Error: ..") is a GPU's, whether NVML answers or not.  The
# kernel module's PCI driver is named "nvidia" (kernel-open/nvidia/nv-pci.c nv_pci_driver: MODULE_BASE_NAME); an
# NVSwitch's driver, a GPU's audio function's (snd_hda_intel), a port's (pcieport) and a NIC's (mlx5_core) are not.
GPU_DRIVERS = frozenset({"nvidia"})
# The PCI driver that binds PCIe ports (root and switch ports: the kernel's portdrv, "pcieport"): a line it prints for
# its own address is about the port and the link below it (an AER event the port itself detected)
PORT_DRIVERS = frozenset({"pcieport"})
# dev_printk's "<driver> <device>: " at the start of the message (or after a stamp an envelope left in it)
_PRINTED_BY = re.compile(r"(?:^|\] )([\w.-]+) ([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): ")
# what every line a GPU driver printed holds ("nvidia "): a line without one is none, answered without the regex
# above, whose search is tried at every position of the line (most lines that reach it, an Xid's, hold none)
_GPU_DRIVER_WORDS = tuple(f"{driver} " for driver in sorted(GPU_DRIVERS))


def printed_by(message: str, function: bool = False) -> tuple[str, str] | None:
    """The driver and device (normalised, `function` as normalize_pci's) dev_printk names at the start of `message`
    ("pcieport 0000:00:03.0: AER: .." -> ("pcieport", "0000:00:03")); None where the line names none."""
    m = _PRINTED_BY.search(message)
    return (m.group(1), normalize_pci(m.group(2), function) or "") if m else None


def gpu_driver_line(message: str, pci: str | None, function: bool = False) -> bool:
    """Whether a GPU driver (GPU_DRIVERS) printed `message` for the device at `pci` (a key as normalize_pci makes it,
    `function` as there): its own line, not a port's line naming it ("pcieport 0000:00:02.0: AER: .. received:
    0000:03:00.0" says nothing of what 0000:03:00 is)."""
    if not pci:
        return False
    for word in _GPU_DRIVER_WORDS:
        if word in message:
            break
    else:
        return False
    by = printed_by(message, function)
    return by is not None and by[0] in GPU_DRIVERS and by[1] == pci
