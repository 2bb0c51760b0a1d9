"""NVRM lines of the 570-610 drivers the 2026f and 2026l batches checked, and the FSP's boot failures (2026v), on the
real lines of the corpus (tests/fixtures/realworld/nvrm-2026f.yaml, nvrm-2026l.yaml, nvrm-fsp-2026v.yaml; the sources'
addresses beside them)."""

from __future__ import annotations

import collections

import pytest
from parsers import at_least
import realworld

BATCHES = ("nvrm-2026f.yaml", "nvrm-2026l.yaml", "nvrm-fsp-2026v.yaml")
BATCH = [i for i in realworld.samples() if i["file"] in BATCHES]


def _loud(text: str) -> collections.Counter:
    return collections.Counter(realworld.finding_key(f) for f in realworld.findings(text)
                               if at_least(f.severity, "warning"))


@pytest.mark.parametrize("item", BATCH, ids=lambda i: f"{i['file']}#{i['index']}")
def test_batch_samples_are_their_events_and_nothing_else(item):
    """The MSI fallback (CachyOS-PKGBUILDS #1038, 580) was an unclassified warning at every boot of its host; 610's
    TLB invalidations failing with NV_ERR_GPU_IS_LOST (cmpunlocker #4) an unclassified warning per line, not the lost
    GPU's one event; the FSP's boot failures (nvtrust #19, #54, #77, open-gpu-kernel-modules #729) an unclassified
    warning each beside the init attempt's one finding."""
    assert _loud(item["text"]) == collections.Counter(map(realworld.expect_key, item["expect"]))


def test_the_batch_is_read():
    assert {i["file"] for i in BATCH} == set(BATCHES)


def test_uvm_global_fatal_after_the_lost_gpu_is_part_of_its_event():
    """UVM's global fatal error follows the lost GPU it comes of (open-gpu-kernel-modules #1342: after the GPU fell off
    the bus): part of that event, no second finding; alone, the node's reboot. Constructed: the Xid 79 line of
    tests/fixtures/dmesg/xid79-fallen-off-bus.dmesg (DaoCloud's talk) then #1342's line with its NVRM prefix and the
    dmesg stamp fitted; each line real, their sequence built here."""
    xid = "[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    uvm = ("[ 4255.100000] NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os "
           "reboot to recover\n")
    assert [(f.kind, f.severity, f.action) for f in realworld.findings(xid + uvm)] == [("xid", "fatal", "RESTART_BM")]
    (alone,) = realworld.findings(uvm)
    assert (alone.kind, alone.severity, alone.action, alone.details["uvm_status"]) == (
        "gpu_reset_required", "fatal", "RESTART_BM", "0x60")


# Constructed: scitix/sichek #51's two lines (a GSP RPC failing with NV_ERR_RESET_REQUIRED, dmesg -T) then #1342's
# UVM global fatal error with its NVRM prefix and the stamp fitted (open-gpu-kernel-modules #1342); each line real,
# their sequence built here.
RESET_THEN_UVM = [
    "[Sun Jan 11 09:52:01 2026] NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; "
    "hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; paramsStatus=0x00000062; status=0x00000062 ",
    "[Sun Jan 11 09:52:01 2026] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] "
    "(0x00000062) returned from status @ kernel_channel.c:2874 ",
    "[Sun Jan 11 09:52:02 2026] NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os "
    "reboot to recover",
]


def test_uvm_global_fatal_in_a_gpu_reset_event_asks_its_reboot():
    """UVM's global fatal error joining a GPU's open NV_ERR_RESET_REQUIRED event (RESET_GPU) is part of it, and the
    reboot it asks for is the event's action from then on (an amendment, details "amends": "action"): was the GPU
    reset, which does not clear it. The same as `gpu-npd parse` reads it (one event) and as the agent does (the line's
    amendment after the event's finding)."""
    (event,) = realworld.findings("\n".join(RESET_THEN_UVM) + "\n")
    assert (event.kind, event.severity, event.action, event.details.get("amends")) == (
        "gpu_reset_required", "fatal", "RESTART_BM", "action")
    made, amended = realworld.classified(RESET_THEN_UVM)
    assert (made.action, amended.action, amended.details["amends"]) == ("RESET_GPU", "RESTART_BM", "action")
    assert amended.message == made.message  # the event's finding again, not the joining line's


def test_a_joining_line_off_the_remediation_ladder_leaves_the_action():
    """Only an action on the repair hand-off's ladder (parsers/kinds.py ACTION_RANK) above the finding's amends it: the reset
    event's own lines (RESET_GPU, the same step) amend nothing."""
    found = realworld.classified(RESET_THEN_UVM[:2] * 2)
    assert [(f.action, f.details.get("amends")) for f in found] == [("RESET_GPU", None)]


# Constructed from the driver's format (NV_ASSERT_OK's "Assertion failed: <status text> [<status>] (0x..) returned
# from <call> @ <file>:<line>", kernel_gsp_gh100.c): open-gpu-kernel-modules #1058's kgspWaitForRmInitDone line with
# the status of a GPU gone and of one needing reset in place of its NV_ERR_INVALID_ARGUMENT.
BOOT_CALL = ("[   81.967322] NVRM: GPU0 nvAssertOkFailedNoLog: Assertion failed: {} returned from "
             "kgspWaitForRmInitDone(pGpu, pKernelGsp) @ kernel_gsp_gh100.c:1107\n")


@pytest.mark.parametrize("status, kind", [
    ("GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F)", "fallen_off_bus"),
    ("Reset required [NV_ERR_RESET_REQUIRED] (0x00000062)", "gpu_reset_required")])
def test_a_boot_call_failing_with_a_status_of_its_own_keeps_its_kind(status, kind):
    """An init attempt's reason names the boot call (rm_init_mapping, no finding of its own); a status that says what
    happened to the GPU is still that status's finding (its rows come first in the table)."""
    assert [f.kind for f in realworld.findings(BOOT_CALL.format(status))] == [kind]


def test_a_bad_register_read_outside_an_init_attempt_is_still_reported():
    """The PRI error read (nvtrust #77's line) is part of an init attempt only: alone, as at run time
    (open-gpu-kernel-modules #688), the unclassified net's warning as before."""
    line = ("[  279.950855] NVRM: gpuHandleSanityCheckRegReadError_GH100: Possible bad register read: addr: 0x110804,  "
            "regvalue: 0xbadf4100,  error code: Unknown SYS_PRI_ERROR_CODE\n")
    assert [(f.kind, f.severity) for f in realworld.findings(line)] == [("unclassified", "warning")]
