"""A root port's RP PIO error under DPC (parsers/rules.py dpc_rp_pio): the RP PIO log lines are the containment's.
Lines marked SOURCE are the kernel's format strings (drivers/pci/pcie/dpc.c dpc_process_rp_pio_error: 6.x prints
"DPC: " before each line, 4.16-5.x none; rp_pio_error_string's bit names; "RP PIO ImpSpec Log %#010x", "TLP Prefix
Header: dw%d, %#010x") with a real line's prefix, a test, never a sample; the real lines are in
tests/fixtures/realworld/pcie-dpc-rppio-2026.yaml."""

from __future__ import annotations

import io

import pytest

from parsers import Scanner

PORT = "[  180.325225] pcieport 0000:64:02.0: "
CONTAINED = PORT + "DPC: containment event, status:0x1f07 source:0x0000\n"
REASON = PORT + "DPC: RP PIO error detected\n"


def _log(prefix: str) -> str:
    # SOURCE: dpc_process_rp_pio_error's lines, in the era's prefix
    return "".join(PORT + prefix + line + "\n" for line in (
        "rp_pio_status: 0x00040000, rp_pio_mask: 0x00000303",
        "RP PIO severity=0x00010000, syserror=0x00000000, exception=0x00000000",
        "[18] Memory Request Completion Timeout (First)",
        "TLP Header: 0x00000002 0xfc2a3eff 0xbf5fffe0 0x00000000",
        "RP PIO ImpSpec Log 0x00000000",
        "TLP Prefix Header: dw0, 0x00000000"))


def _found(text: str) -> list:
    return list(Scanner().scan(io.BytesIO(text.encode())))


@pytest.mark.parametrize("prefix", ["DPC: ", ""], ids=["6.x", "4.16-5.x"])
def test_the_rp_pio_log_is_the_containments_own_lines(prefix):
    """Was: the severity line an unclassified warning beside the containment's finding."""
    (f,) = _found(CONTAINED + REASON + _log(prefix))
    assert (f.kind, f.pci) == ("pcie_aer", "0000:64:02")


def test_the_rp_pio_log_alone_is_one_pcie_event():
    """A log cut after the containment's first lines: the RP PIO log is still one PCIe event, not the net's."""
    assert [f.kind for f in _found(_log("DPC: "))] == ["pcie_aer"]
