"""NVRM lines of the 570-610 drivers the 2026f and 2026l batches checked, the FSP's boot failures (2026v) and the GSP
message channel's encryption failures under confidential computing (2026w) and what the driver and nvidia-modeset
print after a GPU lost or needing reset (2026y), on the real lines of the corpus (tests/fixtures/realworld/
nvrm-2026f.yaml, nvrm-2026l.yaml, nvrm-fsp-2026v.yaml, nvrm-cc-2026w.yaml, nvrm-lost-2026y.yaml; the sources'
addresses beside them)."""

from __future__ import annotations

import collections

import pytest
from parsers import at_least
import realworld

BATCHES = ("nvrm-2026f.yaml", "nvrm-2026l.yaml", "nvrm-fsp-2026v.yaml", "nvrm-cc-2026w.yaml", "nvrm-lost-2026y.yaml")
BATCH = [i for i in realworld.samples() if i["file"] in BATCHES]


def _loud(text: str) -> collections.Counter:
    return collections.Counter(realworld.finding_key(f) for f in realworld.findings(text)
                               if at_least(f.severity, "warning"))


@pytest.mark.parametrize("item", BATCH, ids=lambda i: f"{i['file']}#{i['index']}")
def test_batch_samples_are_their_events_and_nothing_else(item):
    """The MSI fallback (CachyOS-PKGBUILDS #1038, 580) was an unclassified warning at every boot of its host; 610's
    TLB invalidations failing with NV_ERR_GPU_IS_LOST (cmpunlocker #4) an unclassified warning per line, not the lost
    GPU's one event; the FSP's boot failures (nvtrust #19, #54, #77, open-gpu-kernel-modules #729) an unclassified
    warning each beside the init attempt's one finding; the GSP channel's encryption failures under confidential
    computing (nvtrust #53) 8 unclassified warnings, not one event; the channels stopped and the attached-GPU checks
    after an Xid 79 (open-gpu-kernel-modules #1010) an unclassified warning each beside it, nvidia-modeset's
    channel-state queries failing with NV_ERR_GPU_IS_LOST or NV_ERR_RESET_REQUIRED (pop-os/pop #3363,
    open-gpu-kernel-modules #1252) an unclassified warning each, not the lost GPU's or the reset's one event."""
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


# nvtrust #53's lines (tests/fixtures/realworld/nvrm-cc-2026w.yaml), an H100 in CC mode in a TDX guest: the driver
# could not encrypt an RPC to the GSP, then the send naming the GPU, then the RPC's callers; the next RPC the same.
CC_CYCLE = [
    "[38679.045446] NVRM: GspMsgQueueSendCommand: Encryption failed with status = 0x1f.",
    "[38679.047129] NVRM: _kgspRpcSendMessage: GspMsgQueueSendCommand failed on GPU0: 0x1f",
    "[38679.048864] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000001f for fn 10!",
    "[38679.050811] NVRM: rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1e00004; hObject=0xcaf00001; "
    "paramsStatus=0x00000000; status=0x0000",
]


def test_cc_rpc_encryption_failure_is_one_event_naming_the_gpu():
    """Every line of each cycle, the cycle repeated, is one event: a GPU needing reset (the GSP takes no RPC), its
    finding the send's line naming the GPU, in `gpu-npd parse` (events) and in the agent (a line at a time) alike."""
    for found in (realworld.findings("\n".join(CC_CYCLE * 3) + "\n"), realworld.classified(CC_CYCLE * 3)):
        assert [(f.kind, f.severity, f.action, f.details.get("device"), f.details.get("send_status"))
                for f in found] == [("gpu_reset_required", "fatal", "RESET_GPU", "GPU0", "0x1f")]
        assert found[0].uptime == 38679.047129  # the send's line, the first naming the GPU


def test_cc_rpc_lines_alone():
    """Alone, the encryption line is the event's lead (no finding: the send's line after it is); the send's verdict
    is the GPU's finding; an RPC caller's failure stays what it was without the event (an unclassified warning)."""
    encrypt, send, rpc, free = CC_CYCLE
    assert realworld.findings(encrypt + "\n") == []
    assert [(f.kind, f.details.get("device")) for f in realworld.findings(send + "\n")] == [
        ("gpu_reset_required", "GPU0")]
    for line in (rpc, free):
        assert [f.kind for f in realworld.findings(line + "\n")] == ["unclassified"]


def test_cc_rpc_iv_overflow_line_is_part_of_the_event():
    """The IV overflow the driver reports after a failed encryption (NV_ERR_INSUFFICIENT_RESOURCES, 0x1a) and the
    error state it puts confidential computing in are the same event's, the overflow line its finding (a GPU needing
    reset whatever the send's status after it; was: the send's line, the error state's line an unclassified warning).
    Constructed: message_queue_cpu.c GspMsgQueueSendCommand's two NV_PRINTFs for status 0x1a (open-gpu-kernel-modules,
    "Encryption failed with status = 0x%x." then "Fatal error detected in RPC encrypt: IV overflow!"), then
    confComputeSetErrorState_KERNEL's "ConfCompute: Fatal error hit!" (conf_compute.c, the call after the overflow's
    line) with #53's prefix and stamps; the send's line is #53's with the status changed to 0x1a."""
    lines = ["[38679.045446] NVRM: GspMsgQueueSendCommand: Encryption failed with status = 0x1a.",
             "[38679.045450] NVRM: GspMsgQueueSendCommand: Fatal error detected in RPC encrypt: IV overflow!",
             "[38679.045452] NVRM: confComputeSetErrorState_KERNEL: ConfCompute: Fatal error hit!",
             "[38679.047129] NVRM: _kgspRpcSendMessage: GspMsgQueueSendCommand failed on GPU0: 0x1a"] + CC_CYCLE[2:]
    for found in (realworld.findings("\n".join(lines) + "\n"), realworld.classified(lines)):
        assert [(f.kind, f.severity, f.uptime) for f in found] == [("gpu_reset_required", "fatal", 38679.04545)]


# conf_compute.c confComputeSetErrorState_KERNEL's line and each caller's line before it (open-gpu-kernel-modules
# 595.45.04: message_queue_cpu.c, mem_utils.c, kern_gmmu_gh100.c, nv_gpu_ops.c, spdm_gh100.c), each with the "NVRM: "
# prefix and function name the driver prints: CONSTRUCTED from the driver's format strings (status values filled in).
CC_FATAL = [
    "NVRM: GspMsgQueueSendCommand: Fatal error detected in RPC encrypt: IV overflow!",
    "NVRM: GspMsgQueueReceiveStatus: Fatal error detected in RPC decrypt: 0x25!",
    "NVRM: _memmgrMemReadOrWriteWithGsp: Fatal error detected in GSP-DMA encrypt: IV Overflow!",
    "NVRM: _memmgrMemReadOrWriteWithGsp: Fatal error detected in GSP-DMA decrypt: 0x25!",
    "NVRM: kgmmuCopyFaultPacketToClientShadowBuffer_GH100: Fatal error detected in fault buffer packet encryption: IV overflow!",
    "NVRM: nvGpuOpsGetNonReplayableFaults: Fatal error detected in fault buffer packet decryption: 0x25",
    "NVRM: _spdmSendHeartbeat: SPDM: Fatal heartbeat failure detected 0x65",
]
CC_ERROR_STATE = "NVRM: confComputeSetErrorState_KERNEL: ConfCompute: Fatal error hit!"


@pytest.mark.parametrize("line", CC_FATAL)
def test_each_confidential_computing_fatal_error_is_a_gpu_needing_reset(line):
    """Each fatal error of confidential computing's channels (RPC, GSP-DMA, the fault buffer's packets, the SPDM
    session's heartbeat) puts it in its error state (confComputeSetErrorState: the GPU accepts no client's request
    until it is reset): with the error state's line after it, one event, a GPU needing reset (was: two unclassified
    warnings, the RPC encrypt's line an event's lead with no finding alone); the error state's line alone the same;
    the GPU's index where the driver prints it (57x+ "NVRM: GPU1 ..")."""
    for lines in ([line, CC_ERROR_STATE], [line], [CC_ERROR_STATE]):
        for found in (realworld.findings("\n".join(lines) + "\n"), realworld.classified(lines)):
            assert [(f.kind, f.severity, f.action) for f in found] == [("gpu_reset_required", "fatal", "RESET_GPU")]
    (found,) = realworld.findings(line.replace("NVRM: ", "NVRM: GPU1 ", 1) + "\n")
    assert found.details.get("device") == "GPU1"


def test_a_non_fatal_fault_buffer_encryption_error_is_not_the_error_state():
    """The fault buffer's encryption failing with a status other than an IV overflow is no fatal error (the driver
    does not put confidential computing in its error state): not this family (kern_gmmu_gh100.c "Error detected in
    fault buffer packet encryption: 0x%x"; CONSTRUCTED from that format, status 0x25)."""
    line = "NVRM: kgmmuCopyFaultPacketToClientShadowBuffer_GH100: Error detected in fault buffer packet encryption: 0x25\n"
    assert all(f.kind != "gpu_reset_required" for f in realworld.findings(line))


def test_gsp_send_failure_in_an_open_gsp_timeout_is_that_event():
    """A send that failed while the GPU's GSP timeout event is open (its queue full: NV_ERR_TIMEOUT, 0x65) is that
    event's line, no second finding. Constructed: bazzite #4449's heartbeat line (tests/fixtures/realworld/gsp.yaml)
    then kernel_gsp.c's "GspMsgQueueSendCommand failed on GPU%d: 0x%x" with #53's function name, status 0x65 and the
    journal's prefix; each line's text real or from the driver's source, their sequence built here."""
    lines = ["Mar 21 21:42:01 kernel: NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out",
             "Mar 21 21:42:02 kernel: NVRM: _kgspRpcSendMessage: GspMsgQueueSendCommand failed on GPU0: 0x65"]
    assert [(f.kind, f.xid) for f in realworld.findings("\n".join(lines) + "\n")] == [("xid", 119)]


def test_cc_rpc_failures_of_two_gpus_are_two_events():
    """The encryption lines name no GPU: the event they open is the GPU's the send's line after them names, so a
    second GPU's failure next is its own event (was: absorbed into the first's). Constructed: #53's cycle, then the
    same cycle with GPU1 in the send's line (kernel_gsp.c prints the GPU's instance there)."""
    lines = CC_CYCLE + [line.replace("on GPU0:", "on GPU1:") for line in CC_CYCLE]
    for found in (realworld.findings("\n".join(lines) + "\n"), realworld.classified(lines)):
        assert [(f.kind, f.details.get("device")) for f in found] == [
            ("gpu_reset_required", "GPU0"), ("gpu_reset_required", "GPU1")]


def _sample(name: str, issue: int) -> dict:
    """The one sample of `name` from open-gpu-kernel-modules issue `issue` (by its source: an index moves when a
    sample is added before it)."""
    url = f"https://github.com/NVIDIA/open-gpu-kernel-modules/issues/{issue}"
    [sample] = [i for i in realworld.samples() if i["file"] == name and i.get("source") == url]
    return sample


@pytest.mark.parametrize("name, issue, reasons", [
    ("gsp.yaml", 892, 1),  # open-gpu-kernel-modules #892: kgspCreateRadix3's check, then "Error preparing GSP-RM image"
    ("gpu-kernel-3.yaml", 943, 2)])  # #943: the FWSEC command the VBIOS could not prepare, kgspPrepareForBootstrap_HAL's
def test_each_gsp_boot_steps_failure_is_a_reason_of_the_init_attempt(name, issue, reasons):
    """kgspInitRm's boot steps (kgspCreateRadix3, kgspPrepareForBootstrap_HAL and the FWSEC preparation it runs) are
    reasons of the attempt, as kgspWaitForRmInitDone's and the FSP's were: no finding of their own beside its
    "RmInitAdapter failed!". Was: each an unclassified warning."""
    lines = _sample(name, issue)["text"].splitlines(keepends=True)
    attempt = lines[:next(n for n, line in enumerate(lines) if "RmInitAdapter failed!" in line) + 1]
    assert sum(1 for line in attempt if "returned from kgsp" in line or "failed to prepare interface" in line) == reasons
    assert list(_loud("".join(attempt))) == [("gpu_reset_required", None, "0000:01:00")]


def test_an_rm_check_inside_a_gpu_needing_reset_is_part_of_its_event():
    """open-gpu-kernel-modules #1045: the shared data's poll RPC came back NV_ERR_RESET_REQUIRED, then the poll-mask
    helper's check failed: one event, whatever status or expression the check names (was: the helper's line an
    unclassified warning inside it); alone, still the unclassified net's warning."""
    lines = _sample("gpu-kernel-3.yaml", 1045)["text"].splitlines(keepends=True)
    assert "_handlePollMaskHelper" in lines[2]
    assert _loud(lines[1] + lines[2]) == collections.Counter({("gpu_reset_required", None, None): 1})
    assert _loud(lines[2]) == collections.Counter({("unclassified", None, None): 1})


def test_modeset_lines_after_an_xid_79_are_part_of_the_lost_gpu():
    """nvidia-modeset's lines after the GPU fell off the bus are the lost GPU's one event: a channel-state query failing
    with NV_ERR_GPU_IS_LOST, a lost display notification, the wait for GPU progress timing out (each was an unclassified
    warning). Constructed: open-gpu-kernel-modules #1151's Xid 79 line, pop-os/pop #3363's query line and #1252's two
    lines after it, envelopes dropped; each line real, their sequence built here. Alone, the notification and the wait
    name no cause: the unclassified net's, as before."""
    lines = ["NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.",
             "nvidia-modeset: ERROR: GPU:0: Failed to query display engine channel state: 0x0000c57e:4:0:0x0000000f",
             "nvidia-modeset: WARNING: GPU:0: Lost display notification (0:0x00000000); continuing.",
             "nvidia-modeset: ERROR: GPU:0: Error while waiting for GPU progress: 0x0000ca7d:0 2:0:200:192"]
    assert [realworld.finding_key(f) for f in realworld.findings("\n".join(lines) + "\n")] == [
        realworld.expect_key({"kind": "xid", "code": 79, "pci": "0000:06:00"})]
    assert [f.kind for f in realworld.findings("\n".join(lines[2:]) + "\n")] == ["unclassified", "unclassified"]
