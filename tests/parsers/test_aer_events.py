"""PCIe AER: one finding per AER event, keyed to the device that reported it (issue 12, section 3).

Over the real blocks of tests/fixtures/realworld/pcie-aer.yaml, both ways text reaches the rules: the offline
Scanner (whole buffers, prefiltered) and the agent's record path (Classifier.read per line: its finding, then what it amended)."""

from __future__ import annotations

import collections
import re

import pytest
import yaml
import realworld
from realworld import ROOT, classified, events, expect_key, finding_key, findings

from parsers import Classifier
from parsers.rules import aer_register
from parsers.finding import SEVERITY_RANK
from parsers.pci import find_pci

SAMPLES = yaml.safe_load((ROOT / "pcie-aer.yaml").read_text())


def loud(found) -> collections.Counter:
    return collections.Counter(finding_key(f) for f in found if SEVERITY_RANK[f.severity] >= SEVERITY_RANK["warning"])


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s["source"].split("github.com/")[-1])
def test_one_finding_per_event_keyed_to_the_reporter(sample):
    want = collections.Counter(expect_key(e) for e in sample["expect"])
    assert loud(findings(sample["text"])) == want  # nothing per line, no unclassified detail line
    assert loud(events(classified(sample["text"].splitlines()))) == want


def test_a_recovery_that_failed_makes_the_event_fatal_counted_once():
    """A non-fatal error whose recovery then failed ("AER: can't recover (no error_detected callback)", "AER: device
    recovery failed": geerlingguy/raspberry-pi-pcie-devices #116): the event's finding, made at once as the error it
    reported, is amended to fatal by the first failure line (rules.EVENT_AMENDS); the second adds nothing."""
    sample = next(s for s in SAMPLES if s["source"].endswith("raspberry-pi-pcie-devices/issues/116"))
    raw = classified(sample["text"].splitlines())
    assert [(f.severity, f.pci, f.details.get("amends")) for f in raw] == [
        ("error", "0000:00:00", None), ("fatal", "0000:00:00", "severity")]
    assert [(f.severity, f.pci) for f in events(raw)] == [("fatal", "0000:00:00")]
def test_event_severity_is_the_received_lines():
    fatal, corrected = SAMPLES[5]["text"].splitlines()[4], SAMPLES[5]["text"].splitlines()[0]
    c = Classifier()
    assert c.classify(corrected).severity == "warning"
    assert c.classify(fatal).severity == "fatal" and c.classify(fatal).action == "RESTART_BM"


def test_detail_lines_of_a_report_whose_first_lines_were_lost_open_one_event():
    lines = SAMPLES[6]["text"].splitlines()  # pop-os: received line, then details of two devices
    c = Classifier()
    found = [c.classify(line) for line in lines[2:]]  # the received and first bus-error lines lost
    loud_ones = [f for f in found if f is not None]
    assert len(loud_ones) == 1  # the status line opens the event; bits, the next device's lines join it
    # the root port's own function, as its prefix "pcieport 0000:00:03.1: " names it (was "0000:00:03": find_pci read
    # an address followed by ": " without its function)
    assert loud_ones[0].kind == "pcie_aer" and loud_ones[0].pci == "0000:00:03.1"


@pytest.mark.parametrize("line,severity", [
    # synthetic lines (labelled), shaped as the real kernel output in pcie-aer.yaml
    ("nvidia 0000:07:00.0:    [ 0] RxErr                  (First)", "warning"),
    ("pcieport 0000:00:01.0:    [ 0] Receiver Error         (First)", "warning"),
    ("pcieport 0000:00:01.0:    [14] CmpltTO                (First)", "error"),
    ("pcieport 0000:00:01.0: AER: device recovery failed", "fatal"),
    ("pcieport 0000:00:01.0: AER: Device recovery successful", "warning"),
])
def test_a_detail_line_alone_is_an_event_with_the_severity_it_says(line, severity):
    f = Classifier().classify(line)
    assert f is not None and (f.kind, f.severity) == ("pcie_aer", severity)


def test_the_event_closes_after_its_lines():
    lines = SAMPLES[1]["text"].splitlines()  # a non-fatal event, then (far later) its bus error line again
    c = Classifier()
    assert c.classify(lines[0]).pci == "0000:00:00"
    for _ in range(20):
        c.classify("[   60.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd")  # synthetic filler
    f = c.classify(lines[1])  # no longer part of that event: a new one
    assert f is not None and f.kind == "pcie_aer"


def test_every_eras_failed_recovery_escalates_within_the_amend_window_only():
    """3.x (aerdrv_core.c: no "AER: " prefix), 4.x ("AER: Device recovery failed") and 5.x+ wordings escalate the
    open event's finding; a driver's callbacks printing a hundred lines between them do not part them
    (rules.EVENT_AMENDS "aer": 256 lines), while a verdict long after the event is a finding of its own.  Synthetic
    lines in the kernel's wordings (pcie-aer.yaml and pcie-dpc-2.yaml hold the real ones)."""
    received = "pcieport 0000:00:03.0: AER: Uncorrected (Non-Fatal) error received: 0000:00:03.0"
    filler = ["mlx5_core 0000:03:00.0: E-Switch: cleanup"] * 100
    for verdict in ("pcieport 0000:00:03.0: Device recovery failed", "pcieport 0000:00:03.0: AER: Device recovery failed",
                    "pcieport 0000:00:03.0: AER: device recovery failed"):
        c = Classifier()
        raw = [f for f in (c.classify(line) for line in [received, *filler, verdict, verdict]) if f]
        assert [(f.severity, f.pci, f.details.get("amends")) for f in raw] == [
            ("error", "0000:00:03", None), ("fatal", "0000:00:03", "severity")], verdict
        c = Classifier()
        raw = [f for f in (c.classify(line) for line in [received, *filler * 3, verdict]) if f]
        assert [(f.severity, f.details.get("amends")) for f in raw] == [("error", None), ("fatal", None)]


RETRAIN = yaml.safe_load((ROOT / "pcie-link-retrain.yaml").read_text())


def test_a_failed_link_retraining_is_one_event_per_port_amended_to_error():
    """6.5+'s retraining of a dead downstream link (pcie-link-retrain.yaml, tanezky's ASM1061 under vfio-pci): the
    port's first "broken device, retraining non-functional downstream link at 2.5GT/s" is a warning (the link clamped
    to Gen1), its "retraining failed" the event's amendment to error; the attempts after it, 65 s of vfio-pci's waiting
    between them, add nothing."""
    raw = classified(RETRAIN[0]["text"].splitlines())
    assert [(f.kind, f.severity, f.pci, f.details.get("amends")) for f in raw] == [
        ("pcie_aer", "warning", "0000:00:1c.6", None), ("pcie_aer", "error", "0000:00:1c.6", "severity")]
    assert [(f.severity, f.pci) for f in events(raw)] == [("error", "0000:00:1c.6")]


def test_link_retraining_lines_alone_and_of_two_ports():
    """The port's first line alone (the retraining then succeeded: nothing after it) stays a warning, the link at
    2.5GT/s; "retraining failed" alone (its first line lost, or 6.13+'s failed lifting of the clamp) is an error; two
    ports' attempts interleaved are two events. Built from the real lines of pcie-link-retrain.yaml, the second port's
    address changed (constructed)."""
    first, failed = RETRAIN[0]["text"].splitlines()[:2]
    assert [(f.severity, f.details.get("speed")) for f in classified([first])] == [("warning", "2.5GT/s")]
    assert [(f.severity, f.pci) for f in classified([failed])] == [("error", "0000:00:1c.6")]
    other = [line.replace("0000:00:1c.6", "0000:00:1d.4") for line in (first, failed)]
    found = events(classified([first, other[0], failed, other[1]]))
    assert sorted((f.severity, f.pci) for f in found) == [("error", "0000:00:1c.6"), ("error", "0000:00:1d.4")]


def test_two_root_ports_of_one_device_number_are_two_events():
    """Root ports are functions of one bridge device (Intel's PCH: 00:1c.0 to 00:1c.7): a finding keeps the port's
    function, so two ports' failed retraining are two events at two addresses, not one port's twice. Built from the
    real lines of pcie-link-retrain.yaml, the second port's function changed (constructed)."""
    first, failed = RETRAIN[0]["text"].splitlines()[:2]
    other = [line.replace("0000:00:1c.6", "0000:00:1c.4") for line in (first, failed)]
    found = events(classified([first, other[0], failed, other[1]]))
    assert sorted((f.severity, f.pci) for f in found) == [("error", "0000:00:1c.4"), ("error", "0000:00:1c.6")]


# Two real reports, each verbatim from its source (kernel 6.x and 5.4), interleaved line by line as two root ports'
# AER handlers print at once in a storm (the interleaving constructed): port 80:1b.4's non-fatal ACS violation whose
# recovery failed (github.com/minisforum-docs/MS-02-Ultra/issues/10) and port 00:1c.4's corrected receiver error
# (thomas-krenn.com/en/wiki/AER_Multiple_Corrected_error_received_0000:00:1c.4).
ACS = ["pcieport 0000:80:1b.4: AER: Uncorrectable (Non-Fatal) error message received from 0000:80:1b.4",
       "pcieport 0000:80:1b.4: PCIe Bus Error: severity=Uncorrectable (Non-Fatal), type=Transaction Layer, (Receiver ID)",
       "pcieport 0000:80:1b.4:   device [8086:7f44] error status/mask=00200000/00000000",
       "pcieport 0000:80:1b.4:    [21] ACSViol                (First)",
       "pcieport 0000:80:1b.4: AER:   TLP Header: 0x34000000 0x00000052 0x00000000 0x00000000"]
ACS_RECOVERY = ["thunderbolt 0000:84:00.0: AER: can't recover (no error_detected callback)",
                "xhci_hcd 0000:97:00.0: AER: can't recover (no error_detected callback)",
                "pcieport 0000:80:1b.4: AER: device recovery failed"]
RXERR = ["pcieport 0000:00:1c.4: AER: Multiple Corrected error received: 0000:00:1c.4",
         "pcieport 0000:00:1c.4: AER: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)",
         "pcieport 0000:00:1c.4: AER:   device [8086:9d14] error status/mask=00000001/00002000",
         "pcieport 0000:00:1c.4: AER:    [ 0] RxErr"]


def test_two_ports_reports_interleaved_are_two_events_each_ports_lines_its_own():
    """The event's key carries the device (rules.EVENT_PER_FINDING_DEVICE): each port's detail lines join its own
    report, its recovery lines (the endpoints' "can't recover" below it, the port's "device recovery failed") amend its
    own finding. Was one event for both: the other port's corrected warning was amended to fatal, this one's stayed."""
    lines = [line for pair in zip(ACS, RXERR + [None]) for line in pair if line is not None] + ACS_RECOVERY
    assert lines[:2] == [ACS[0], RXERR[0]] and lines[-4:] == [ACS[4]] + ACS_RECOVERY
    for found in (classified(lines), findings("\n".join(lines))):
        assert sorted((f.severity, f.pci) for f in events(found)) == [("fatal", "0000:80:1b.4"),
                                                                        ("warning", "0000:00:1c.4")]
    raw = classified(lines)
    assert [(f.pci, f.details.get("amends")) for f in raw] == [("0000:80:1b.4", None), ("0000:00:1c.4", None),
                                                               ("0000:80:1b.4", "severity")]
    # each report alone, and its lines in their own order: one event, as before the key carried the device
    assert [(f.severity, f.pci) for f in events(classified(ACS + ACS_RECOVERY))] == [("fatal", "0000:80:1b.4")]
    assert [(f.severity, f.pci) for f in events(classified(RXERR))] == [("warning", "0000:00:1c.4")]


def test_a_line_of_a_device_with_no_report_of_its_own_is_part_of_the_newest():
    """The other devices of a report (pop-os #3363: "Multiple .. received from 0000:00:00.0", then the root port's and
    the GPU's status, neither the device it names) stay the report's: one event."""
    lines = SAMPLES[6]["text"].splitlines()
    assert {find_pci(line, True) for line in lines} == {"0000:00:03.1", "0000:07:00"}  # the lines' prefixes
    assert [(f.kind, f.pci) for f in events(classified(lines))] == [("pcie_aer", "0000:00:00")]


CUT = realworld.lines_by_source("aer-cut-and-rdma-2026.yaml")
TAIL = CUT["https://github.com/pinklure/pinklure.github.io/blob/75f37eb1ab553234a31e1c628701ea1f35fc8a57/docs/posts/"
           "linux/performance_observability/performance_in_60s.md"]


def test_a_status_line_whose_header_a_cut_log_lost_reads_its_severity_from_its_bits():
    """`dmesg | tail` starting at a device's "error status/mask=00000001/0000e000" (its "Corrected error received" and
    "severity=Corrected" lines cut off): the event it opens is a warning, as the whole reports after it are, in both
    paths (was: an error). rules.aer_register: bit 0 (RxErr) only the correctable register has."""
    for found in (findings("\n".join(TAIL)), events(classified(TAIL))):
        assert [(f.kind, f.severity, f.action, f.pci) for f in found] == [
            ("pcie_aer", "warning", "MONITOR", "0000:02:00")] * 3
        assert found[0].details["register"] == "correctable"


def test_the_status_bits_say_the_register_every_real_reports_header_says():
    """Every real status line of the corpus whose report's header came before it (a "PCIe Bus Error: severity=" line):
    the register its bits say (rules.aer_register, by a bit only one register has in the status, else in the mask,
    else the correctable register's reset mask) is the header's, or none; each of these says one."""
    said = []
    for item in realworld.samples():
        severity = None
        for line in item["text"].splitlines():
            header = re.search(r"PCIe Bus Error: severity=(Correct|Uncorrect|Fatal)", line)
            severity = header.group(1) if header else severity
            status = re.search(r"error status/mask=([0-9a-f]{8})/([0-9a-f]{8})", line)
            if status and severity:
                register = aer_register(int(status.group(1), 16), int(status.group(2), 16))
                said.append((register, "correctable" if severity == "Correct" else "uncorrectable"))
    assert len(said) > 20 and all(register == header for register, header in said), said


@pytest.mark.parametrize("status,mask,register", [
    # synthetic values: the registers' bits (PCIe base spec 7.8.4; drivers/pci/pcie/aer.c's names)
    (0x00000001, 0x00000000, "correctable"),  # RxErr: bit 0 the uncorrectable register leaves reserved
    (0x000000c0, 0x00000000, "correctable"),  # BadTLP, BadDLLP
    (0x00000020, 0x00000000, "uncorrectable"),  # SDES
    (0x00100000, 0x00000000, "uncorrectable"),  # UnsupReq
    (0x00001000, 0x00400000, "uncorrectable"),  # Poisoned TLP under the uncorrectable register's reset mask (bit 22)
    (0x00001000, 0x00002000, "correctable"),  # Timeout under the kernel's correctable mask (Advisory Non-Fatal)
    (0x00004000, 0x0000e000, "correctable"),  # CorrIntErr under the correctable register's reset mask
    (0x00001000, 0x00000000, None),  # Replay Timer Timeout or Poisoned TLP: the bits cannot say
    (0x00004000, 0x00000000, None),  # Corrected Internal Error or Completion Timeout
    (0x00001000, 0x00001000, None),  # a mask of the shared bits only
])
def test_the_register_a_status_line_printed(status, mask, register):
    assert aer_register(status, mask) == register


def test_an_undecided_status_line_alone_keeps_its_error():
    """SOURCE (the kernel's wording, values the bits cannot tell): a replay timeout or a poisoned TLP, no mask."""
    f = Classifier().classify("pcieport 0000:00:01.0:   device [8086:3408] error status/mask=00001000/00000000")
    assert (f.kind, f.severity, f.action, "register" in f.details) == ("pcie_aer", "error", "INVESTIGATE", False)
