"""NVIDIA's Xid and SXid catalogs as lookup tables, with severity and attribution derived
from them by the readable tables below (NVIDIA's own wording, see parsers/data/SOURCE.md)."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from functools import lru_cache

from .wordscan import LazyPattern

# Immediate action (catalog column) -> (severity, attribution when no set below names the code).
XID_ACTION_POLICY: dict[str, tuple[str, str]] = {
    "RESTART_BM": ("fatal", "hardware"),
    "RESTART_VM": ("fatal", "hardware"),
    "RESET_GPU": ("fatal", "unknown"),
    "CONTACT_SUPPORT": ("fatal", "unknown"),
    "CHECK_MECHANICALS": ("fatal", "hardware"),
    "WORKFLOW_XID_48": ("fatal", "hardware"),
    "WORKFLOW_NVLINK_ERR": ("fatal", "hardware"),
    "WORKFLOW_NVLINK5_ERR": ("fatal", "hardware"),
    "XID_154": ("warning", "driver"),  # refined from the line: see XID154_RECOVERY
    "RESTART_APP": ("error", "unknown"),
    "WORKFLOW_XID_45": ("error", "application"),
    "UPDATE_SWFW": ("warning", "driver"),
    "CHECK_UVM": ("warning", "driver"),
    "IGNORE": ("warning", "unknown"),
}
# What ends the problem an Xid with this action raises (its condition rules, parsers/kinds.py): a new boot, or a
# reset of the GPU (or driver reload).  HARDWARE_INSPECTION: the action of a fatal Xid back after reboots.
XID_ACTION_CLEAR: dict[str, str] = {
    "RESTART_BM": "boot", "RESTART_VM": "boot", "CHECK_MECHANICALS": "boot", "HARDWARE_INSPECTION": "boot",
    "RESET_GPU": "reset", "CONTACT_SUPPORT": "reset", "WORKFLOW_XID_48": "reset", "WORKFLOW_NVLINK_ERR": "reset",
    "WORKFLOW_NVLINK5_ERR": "reset",
}
# An Xid the catalog does not list (nor DRIVER_XIDS below).
UNKNOWN_XID = ("CONTACT_SUPPORT", "error", "unknown")
# The catalog's rows with no immediate action (162-172, its newest: no bucket either, parsers/data/SOURCE.md), decided
# here: code -> (action, severity, attribution), the row's facts and sources in its comment. The catalog's wording is
# its Description; the driver's names are nverror.h's (NVIDIA/open-gpu-kernel-modules 595.45.04: ISINK_* for PSHC_*);
# gpud (leptonai/gpud components/accelerator/nvidia/xid/xid.go) is a peer's reading, not NVIDIA's.
XID_UNSTATED_ACTION: dict[int, tuple[str, str, str]] = {
    # Power Smoothing HW Circuitry (the GPU board's energy storage that evens out its power draw, Blackwell / GB200):
    # "capability reengaged": the circuit works again, nothing is wrong; info, no condition (gpud: info). It ends the
    # GPU's 163 problem (XID_REENGAGES).
    162: ("IGNORE", "info", "hardware"),
    # "disengaged (no GPU reset required)": the GPU computes on, its draw no longer smoothed; a warning to look at
    # (GPUDegraded, expires), no reset nor drain (gpud: a warning).
    163: ("MONITOR", "warning", "hardware"),
    # "low lifetime reached": the circuit wears out; plan its replacement, the GPU still healthy (a warning).
    164: ("REPLACE", "warning", "hardware"),
    # "lifetime exhausted": the circuit is spent for good; the board wants replacing (an error, GPUDegraded).
    165: ("REPLACE", "error", "hardware"),
    # Confidential Computing mode only: "CC traffic before link configured for encryption" (nverror.h
    # NVLINK_SECURE_NVLE_ERROR) and "Interrupt seen in CC mode" (NVLINK_SECURE_ERROR). No NVIDIA text says whose or
    # what to do; the unknown Xid's row, stated (an error someone looks at: GPUDegraded).
    166: UNKNOWN_XID,
    170: UNKNOWN_XID,
    # "PCIe fatal timeout": the GPU stopped answering on its PCIe link, as Xid 79's fallen off the bus (the catalog's
    # RESTART_BM, the link's hardware); gpud suggests a reboot. Fatal: GPUUnhealthy until a new boot.
    167: ("RESTART_BM", "fatal", "hardware"),
    # "Errors found in WPR (write protected region); expected only with ECC disabled": memory errors left the GPU
    # less memory; it runs on. A warning, the memory's: run the memory diagnostics (gpud: a warning, no action).
    168: ("RUN_DIAGNOSTICS", "warning", "hardware"),
    # "Internal micro-controller halt" (SEC2, the security falcon): the GPU cannot run work that needs it until a
    # reset, as the GSP's own error (Xid 120, RESET_GPU) and the GPU fatal timeout (158, RESET_GPU); gpud suggests
    # a reboot. Fatal, RESET_GPU (a reboot resets the GPU too).
    169: ("RESET_GPU", "fatal", "unknown"),
    # "Additional detail to Xid 48: uncorrectable DRAM / SRAM error": the driver logs 172 right after its Xid 48 for
    # the same error (kernel_gsp_ecc_gb100.c: nvErrorLog_va(.., ROBUST_CHANNEL_GPU_ECC_DBE, "GSP-RISCV uncorrectable
    # ECC error") then (.., UNCORRECTABLE_SRAM_ERROR, "GSP-RISCV, Uncorrectable SRAM error")). The 48 raises the
    # problem (WORKFLOW_XID_48); its detail is info with the 48's action: no second problem beside it.
    171: ("WORKFLOW_XID_48", "info", "hardware"),
    172: ("WORKFLOW_XID_48", "info", "hardware"),
}
# The Xids that add detail to the Xid 48 the driver logs right before them on the same GPU (the catalog: "Additional
# detail to Xid 48"): code -> the memory the uncorrectable error is in. kernel_gsp_ecc_gb100.c (NVIDIA/open-gpu-kernel-
# modules 595.45.04) logs Xid 48 "GSP-RISCV uncorrectable ECC error" then Xid 172 "GSP-RISCV, Uncorrectable SRAM
# error"; the pair is one event, the 48's finding given details `memory` and `detail_xid` (parsers/rules.py "ecc").
XID48_DETAIL = {171: "DRAM", 172: "SRAM"}
# The multi-line event an Xid line is a line of, by its code (parsers/rules.py: the xid row's `event_if`, the events' names
# and roles rules.Rule.event's): code -> (event, role); any other code's line is a finding of no event.
# - 79 (GPU_HAS_FALLEN_OFF_THE_BUS): the lost GPU's event with its "GPU has fallen off the bus." line ("once": a second
#   Xid 79 of the GPU starts the next event);
# - 48 (uncorrectable ECC) opens the "ecc" event its detail (XID48_DETAIL: 171 / 172, the next line) joins;
# - 119 (GSP RPC timeout), 120 (GSP error), 175 (595+: the same timeout when the memory-subsystem probe failed) open the
#   GSP's event, the driver's lines after them for the same failure part of it.
XID_EVENTS = {79: ("fallen", "once"), 48: ("ecc", "open"), **{code: ("ecc", "join") for code in XID48_DETAIL},
              119: ("gsp", "open"), 120: ("gsp", "open"), 175: ("gsp", "open")}
# An Xid that ends another's problem on its GPU: (that Xid, the Xid whose problem it ends). Power smoothing
# "capability reengaged" (162) after "disengaged" (163): the circuit works again, the GPU's GPUDegraded of the 163 ends
# then, not at its expiry (parsers/kinds.py: the xid kind's `clears`); no other Xid's problem, no other GPU's.
XID_REENGAGES = (162, 163)

# NVIDIA attributes these to the application: 13, 31, 137 "typically application bugs", 43 user
# fault, 45 app abort; the CHECK_APP/CUDA investigatory bucket (32 left out: its trigger blames PCIe).
APPLICATION_XIDS = frozenset({13, 31, 43, 45, 137, 11, 25, 37, 69, 80})
# NVIDIA's repeat workflow, the investigatory WORKFLOW_XID_13 / WORKFLOW_XID_31 of these application Xids: the same one
# repeating on one GPU (not the job's on several) means run diagnostics on the GPU, else it is the application's. Only
# these: the catalog says the GPU stays healthy after 43, that 45 follows another Xid (a killed process's channels),
# and sends 137 and the CHECK_APP/CUDA bucket to the application alone. Declared, not read from the CSV (the kind table
# needs it at import, before the catalog is read); tests/parsers/test_parsers_units.py checks it against the rows.
REPEAT_WORKFLOW_XIDS = frozenset({13, 31})
# Memory (48, 63, 64, 94, 95, 140, 171, 172), NVLink (74, 136, 144-150), PCIe (79), power (54), 110,
# and the older table's hardware-only 81, 121.
HARDWARE_XIDS = frozenset({48, 63, 64, 94, 95, 140, 171, 172, 74, 136, *range(144, 151), 79, 54, 110, 81, 121})
NVLINK5_XIDS = frozenset(range(144, 151))  # NVLink5's: their lines carry the unit and the verdict (NVLINK5_LINE)
NVLINK_XIDS = frozenset({74, 136, *NVLINK5_XIDS})
# Investigatory buckets that point at the driver / software stack.
DRIVER_BUCKETS = frozenset({"INVESTIGATE_SW", "UPDATE_SWFW"})
# Application Xids never exceed this severity on their own (escalation is the health engine's job).
APPLICATION_MAX_SEVERITY = {"fatal": "error"}

# NVLink5 Xids (144-150) carry the unit/subcode and the driver's own verdict after the code:
#   "145, RLW_REMAP Nonfatal XC0 i0 Link 00 (0x00000004 0x00000001 ...)"  (gpud test data; TensorRT-LLM#4816)
#   "149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 ...)"  (Link -1: the unit's, no one link; gpud #1174)
# The verdict decides severity: a Nonfatal one is corrected/contained, the link keeps running.
# Some builds pad the unit and the verdict to fixed widths: "149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 01 (0x021425c6 .."
# (NVSentinel's captured GB200 lines, xid.yaml; gb200-2026c.yaml): any run of spaces between the fields, so a padded
# "Nonfatal" keeps its verdict instead of falling back to the catalog's fatal.
NVLINK5_LINE = LazyPattern(r"(?P<unit>[A-Z][A-Z0-9_]*(?:/[A-Z][A-Z0-9_]*)?) +(?P<verdict>Nonfatal|Fatal) +"
                          r"XC(?P<xc>\d+) i(?P<instance>\d+) Link (?P<link>-1|\d+)"
                          r"(?: \((?P<intrinfo>0x[0-9a-fA-F]+) (?P<error_status>0x[0-9a-fA-F]+))?")
# verdict -> (severity, action); None keeps the catalog's (fatal, WORKFLOW_NVLINK5_ERR).
NVLINK5_VERDICT: dict[str, tuple[str, str] | None] = {
    "nonfatal": ("warning", "MONITOR"),
    "fatal": None,
}
# Per-unit exceptions to the verdict, (unit, verdict) -> (severity, action).  Empty by default:
# gpud reports TLW_RX / TLW_TX "Fatal" as warnings; NVIDIA's catalog does not say so (README).
NVLINK5_UNIT_OVERRIDE: dict[tuple[str, str], tuple[str, str]] = {}
# NVIDIA's decode of these Xids, the catalog's sheet "Xid 144-150 Decode" (docs.nvidia.com/deploy/xid-errors/
# analyzing-xid-catalog.html, Xid-Catalog.xlsx; its rows as leptonai/gpud transcribes them, components/accelerator/
# nvidia/xid/catalog_generated.go nvlinkRules, gpud 4a8de33): the Data Center Recovery Action is read from IntrInfo (the
# first register in the parentheses) and the Error Status (the second), not from the Nonfatal / Fatal word: "RLW_REMAP
# Nonfatal" with Error Status 0x40 or 0x80 is RESET_GPU. IntrInfo's layout changed at R575: the subcode is IntrInfo[9:0]
# before (V1), IntrInfo[6:0] from R575 (V2); IntrInfo[25:20] (Xid 149's link-down reason) is the same in both. A line's
# era is the one whose subcode its IntrInfo carries (RLW_REMAP: V1 0x082, V2 0x04, as NVSentinel's csv_test.go reads
# them by driver version), so no driver version is needed. The sheet's rows, each (xid, the Subcode column's names
# "V1/V2" or one, IntrInfo[25:20], V1 low bits, V2 low bits, Error Status values; () any, the row's action).
# RLW_RXPIPE's 0x1/0x2/0x4 are "Non-fatal*", IGNORE unless the sheet's "Decode for action 2" holds: its V1 and V2 bits
# carry the bit above the subcode (IntrInfo[10] / [7]), Action 2 RESET_GPU (a RESET_GPU row is read first). A line no
# row holds keeps the verdict's reading.
_NETIR_LINK_DOWN_RESET = ("000000", "000001", "000010", "000100", "001010", "001111", "010000", "010001", "010010",
                          "010101", "010110", "100000", "100001", "100010", "100011", "100100", "100101", "101010",
                          "101011")
_NETIR_LINK_DOWN_IGNORE = ("100110", "101000")  # "Link Fatal" / "Fatal", IGNORE: INVESTIGATE_SW/USER, INVESTIGATE_HOST
_SW = 0x80000000  # every unit's Error Status bit 31: "Non-fatal", SW, IGNORE
NVLINK5_DECODE_ROWS: tuple[tuple[int, str, str, str, str, tuple[int, ...], str], ...] = (
    (144, "SAW_MVB", "000000", "0000100001", "0000001", (0x2, 0x10), "RESET_GPU"),
    (144, "SAW_MVB", "000000", "0000100001", "0000001", (0x1, 0x4, 0x8, 0x20), "IGNORE"),
    (145, "RLW_CTRL", "000000", "0001100010", "0000011", (_SW,), "IGNORE"),
    (145, "RLW_REMAP", "000000", "0010000010", "0000100", (0x40, 0x80), "RESET_GPU"),
    (145, "RLW_REMAP", "000000", "0010000010", "0000100", (0x1, 0x2, 0x4, 0x8, 0x10, 0x20), "XID_154_EVAL"),
    (145, "RLW_REMAP", "000000", "0010000010", "0000100", (0x100, 0x200, _SW), "IGNORE"),
    (145, "RLW_RSPCOL", "000000", "0010100010", "0000101", (0x2,), "RESET_GPU"),
    (145, "RLW_RSPCOL", "000000", "0010100010", "0000101", (0x1, _SW), "IGNORE"),
    (145, "RLW_RXPIPE", "000000", "10011000010", "10000110", (0x1, 0x2, 0x4), "RESET_GPU"),
    (145, "RLW_RXPIPE", "000000", "0011000010", "0000110", (0x1, 0x2, 0x4, 0x8, _SW), "IGNORE"),
    (145, "RLW_SRC_TRACK", "000000", "0011100010", "0000111", (0x1, 0x10, 0x20), "RESET_GPU"),
    (145, "RLW_SRC_TRACK", "000000", "0011100010", "0000111", (0x4, 0x8), "XID_154_EVAL"),
    (145, "RLW_SRC_TRACK", "000000", "0011100010", "0000111", (0x2, _SW), "IGNORE"),
    (145, "RLW_TAGSTATE", "000000", "0100000010", "0001000", (0x2, 0x20000, 0x100000), "RESET_GPU"),
    (145, "RLW_TAGSTATE", "000000", "0100000010", "0001000", (0x1, 0x10000, _SW), "IGNORE"),
    (146, "TLW_CTRL", "000000", "0100100011", "0001001", (0x4,), "RESET_GPU"),
    (146, "TLW_CTRL", "000000", "0100100011", "0001001", (0x1, 0x2, _SW), "IGNORE"),
    *((146, names, "000000", v1, v2, statuses, action)
      for names, v1, v2 in (("TLW_RX/TLW_RX_PIPE0", "0101000011", "0001010"),
                            ("TLW_RX/TLW_RX_PIPE1", "0101000011", "0001011"),
                            ("TLW_TX/TLW_TX_PIPE0", "0101100011", "0001100"),
                            ("TLW_TX/TLW_TX_PIPE1", "0101100011", "0001101"))
      for statuses, action in (((0x4,), "RESET_GPU"), ((0x1, 0x2, _SW), "IGNORE"))),
    (147, "TREX", "000000", "0110000100", "0001110", (0x1, _SW), "IGNORE"),
    (148, "NVLPW_CTRL/NVLPW", "000000", "0000000101", "0001111", (_SW,), "IGNORE"),
    (149, "NETIR/NETIR_INT", "000000", "0000000110", "0011000", (), "RESET_GPU"),
    (149, "NETIR_BER_EVENT", "000000", "1000100110", "0010011", (0x0, 0x1, 0x2, 0x3), "IGNORE"),
    *((149, "NETIR_LINK_EVT/NETIR_LINK_DOWN", reason, "0111000110", "0010001", (), action)
      for reasons, action in ((_NETIR_LINK_DOWN_RESET, "RESET_GPU"), (_NETIR_LINK_DOWN_IGNORE, "IGNORE"))
      for reason in reasons),
    (149, "NETIR_MFDE_EVENT", "000000", "1001000110", "0010100", (0x1, 0x4, 0x5, 0x7), "RESET_GPU"),
    (149, "NETIR_MFDE_EVENT", "000000", "1001000110", "0010100", (0x3,), "IGNORE"),
    (150, "MSE Degraded", "000000", "0000000000", "0000000", (0x0, 0xFFFFFFFF), "RESET_GPU"),
    (150, "MSE_WATCHDOG", "000000", "0000000000", "0000000", (0x0,), "RESET_GPU"),
)
# The sheet's action -> the line's (severity, action). RESET_GPU: as the catalog's RESET_GPU. XID_154_EVAL: the Xid
# 154 the driver prints beside it names the recovery action (the catalog's XID_154 bucket, "follow the Xid 154"; that
# line's own finding asks it, XID154_RECOVERY), the local effect an application crash (Xid 45): the line itself a
# warning pointing at its Xid 154, not a GPU reset of its own. IGNORE: no recovery action, the link contained or
# corrected it: info, no condition (the investigatory column's reports stay in the finding's details).
NVLINK5_DECODE_OUTCOME: dict[str, tuple[str, str]] = {
    "RESET_GPU": (XID_ACTION_POLICY["RESET_GPU"][0], "RESET_GPU"),
    "XID_154_EVAL": (XID_ACTION_POLICY["XID_154"][0], "XID_154"),
    "IGNORE": ("info", "IGNORE"),
}
# the order a line's rows are read in, when more than one holds (RLW_RXPIPE's action-2 row before its IGNORE one)
_NVLINK5_DECODE_ORDER = ("RESET_GPU", "XID_154_EVAL", "IGNORE")
@lru_cache(maxsize=1)
def _nvlink5_decode() -> dict[tuple[int, str], list[tuple[int, int, tuple[tuple[int, int], ...], frozenset[int]]]]:
    """(xid, a name the line prints) -> its rows as (action rank, reason, ((mask, bits) per era), statuses): derived
    at the first Xid 144-150 line (~60 KiB an idle agent that reads none does not hold)."""
    table: dict[tuple[int, str], list[tuple[int, int, tuple[tuple[int, int], ...], frozenset[int]]]] = {}
    for xid, names, reason, v1, v2, statuses, action in NVLINK5_DECODE_ROWS:
        for name in {names, *names.split("/")}:
            table.setdefault((xid, name), []).append(
                (_NVLINK5_DECODE_ORDER.index(action), int(reason, 2),
                 tuple(((1 << len(b)) - 1, int(b, 2)) for b in (v1, v2)), frozenset(statuses)))
    for rows in table.values():
        rows.sort(key=lambda row: row[0])
    return table


def nvlink5_decode(xid: int, unit: str, intrinfo: int, error_status: int) -> str | None:
    """The action NVIDIA's Xid 144-150 decode gives this line (its unit, IntrInfo and Error Status), in the era whose
    subcode its IntrInfo carries: RESET_GPU, XID_154_EVAL or IGNORE; None where no row of the sheet holds it."""
    for rank, reason, eras, statuses in _nvlink5_decode().get((xid, unit), ()):
        if ((intrinfo >> 20) & 0x3F == reason and (not statuses or error_status in statuses)
                and any(intrinfo & mask == bits for mask, bits in eras)):
            return _NVLINK5_DECODE_ORDER[rank]
    return None


# Xid 154 announces the recovery action for accompanying Xids; the line names it.
XID154_RECOVERY: dict[str, tuple[str, str]] = {
    "none": ("info", "IGNORE"),
    "drain p2p": ("warning", "DRAIN_P2P"),
    "drain and reset": ("fatal", "RESET_GPU"),
    "gpu reset required": ("fatal", "RESET_GPU"),
    "node reboot required": ("fatal", "RESTART_BM"),
    # 595.45+: the node's fabric memory allocation is disabled (gpu.c _gpuRefreshRecoveryActionInLock: chosen when
    # fabricIsMemAllocDisabled, no reset or drain pending): the IMEX domain wants recovering, not the GPU. A warning,
    # as Drain P2P: the GPU stays schedulable (NVIDIA's DRA driver treats it as non-fatal for GPU scheduling,
    # kubernetes-sigs/dra-driver-nvidia-gpu #1441), multi-node memory sharing fails until the domain is recovered.
    "recover imex domain": ("warning", "RECOVER_IMEX_DOMAIN"),
    # NVML's 6 BUS_RESET ("Reset the GPU's PCIe bus"), a reset of the GPU by its bus (a stronger reset than a function
    # level one, the GPU's all the same), and 7 SYSTEM_REBOOT ("Reboot the system"): no 595.45 driver prints them
    # (its enum stops at 5), so the names are NVML's, read by code (XID154_RECOVERY_CODE) and from NVML's reading.
    "bus reset": ("fatal", "RESET_GPU"),
    "system reboot": ("fatal", "RESTART_BM"),
}
# The action's code, for names the table does not know: the driver has renamed them across releases (0x1 "GPU Reset
# Required" on 575/580, "PF FLR" on 595+: open-gpu-kernel-modules #1125; 0x2 "Node Reboot Required", later "OS
# Reboot"), while the codes are NVML's nvmlDeviceGpuRecoveryAction_t (NONE 0, GPU_RESET 1, NODE_REBOOT 2, DRAIN_P2P 3,
# DRAIN_AND_RESET 4), stable; 595.45 adds RECOVER_IMEX_DOMAIN 5, printed "Recover IMEX Domain" (open-gpu-kernel-modules
# 595.45.04: ctrl2080gpu.h NV2080_CTRL_GPU_RECOVERY_ACTION, gpu.c _gpuRecoveryActionName), and NVML 615 BUS_RESET 6 and
# SYSTEM_REBOOT 7 (nvidia-ml-py 13.615.71 pynvml.py NVML_GPU_RECOVERY_ACTION_*, as NVIDIA's cuda-python bindings'
# cuda.bindings.nvml.DeviceGpuRecoveryAction; none of NVIDIA's puts a bus reset at 5). A code past these (new actions)
# keeps the catalog's row. One table for both readings: the NVML field NVML_FI_DEV_GET_GPU_RECOVERY_ACTION holds the
# same code, and the telemetry rules on it (parsers/sample_rules.yaml `recovery_action`) ask what this table asks
# (tests/agent/test_telemetry.py runs every code).
XID154_RECOVERY_CODE: dict[int, str] = {
    0x0: "none", 0x1: "gpu reset required", 0x2: "node reboot required", 0x3: "drain p2p", 0x4: "drain and reset",
    0x5: "recover imex domain", 0x6: "bus reset", 0x7: "system reboot",
}
# The same action in nvidia-smi's words, its `nvidia-smi -q` field "GPU Recovery Action" (and `--query-gpu=
# gpu_recovery_action`): nvidia-smi word -> the table's name. NVIDIA's recovery-flag page (docs.nvidia.com/deploy/
# a100-gpu-mem-error-mgmt/error-recovery-and-response-flags.html) names them None, Reset, Reboot, Drain P2P and Drain
# and Reset, NVML's NONE .. DRAIN_AND_RESET; "None" asks nothing (no row). A word not here (a newer action's) is no
# finding rather than a guess.
NVSMI_RECOVERY_ACTION: dict[str, str] = {
    "reset": "gpu reset required", "reboot": "node reboot required", "drain p2p": "drain p2p",
    "drain and reset": "drain and reset",
}
# The same state as nvidia-smi -q printed it before the field (5xx: "GPU Reset Status" with "Reset Required : Yes" and
# "Drain and Reset Recommended : Yes", 570+ "Requested functionality has been deprecated"): the field whose value is Yes
# -> the table's name.
NVSMI_RESET_STATUS: dict[str, str] = {"reset required": "gpu reset required", "drain and reset recommended": "drain and reset"}
# nvidia-smi -q's Fabric block (its "Health" sub-block's "Summary", 570+: NVML_GPU_FABRIC_HEALTH_SUMMARY_*) -> the
# severity of kind nvlink_fabric and the telemetry row (parsers/sample_rules.yaml, by its reason) reading the same value
# from NVML, whose severity it is (tests/parsers/test_nvsmi_fabric.py holds the two equal). "Healthy" and "N/A" (no
# fabric, or no health reported) are silent. A registration completed with an error status ("Status : Insufficient
# Resources") is the kind's own severity, the row FabricRegistrationFailed's (NVSMI_FABRIC_STATUS_REASON).
NVSMI_FABRIC_HEALTH: dict[str, tuple[str, str]] = {"unhealthy": ("error", "FabricUnhealthy"),
                                                   "limited capacity": ("warning", "FabricLimitedCapacity")}
NVSMI_FABRIC_STATUS_REASON = "FabricRegistrationFailed"

# Error containment's Xids (94 contained, 95 uncontained) end with the driver's decision: "RST: %s, D-RST: %s" (open
# driver kern_gpu_ga100.c _gpuGenerateErrorLog_GA100: bGpuResetReqd, bGpuDrainAndResetReqd), "Contained: SM (0x1).
# RST: No, D-RST: No" (xid.yaml). A Yes asks what Xid 154 naming that action asks (XID154_RECOVERY's key by (RST,
# D-RST)); No and No (None) keep the catalog's row (94 RESTART_APP, 95 RESET_GPU): the line only ever raises the
# finding. The one table of the decisions the driver prints: CONTAINMENT_LINE's groups, one a decision, in its order
CONTAINMENT_XIDS = frozenset({94, 95})
CONTAINMENT_RECOVERY: dict[tuple[str, str], str | None] = {
    ("Yes", "No"): "gpu reset required", ("Yes", "Yes"): "gpu reset required", ("No", "Yes"): "drain and reset",
    ("No", "No"): None,
}
# "RST" at a word's start: its boundary is asserted after the literal (`(?<!\wRST)`, what `\bRST` says), so the regex
# starts with a literal that `re` skips to; with `\b` first it was tried, boundary test and all, at every position
# of the text (~4,000 instructions of each new Xid 94/95 line, ~0.25 us). A group a decision: the match's `lastindex`
# names it, and CONTAINMENT_ACTION[lastindex] is its action or None (no tuple of the groups made and hashed: ~1,500
# instructions of each new Xid 94/95 line, callgrind)
CONTAINMENT_LINE = LazyPattern("RST(?<!\\wRST): (?:" + "|".join(f"({rst}, D-RST: {drst})"
                                                                for rst, drst in CONTAINMENT_RECOVERY) + ")")
CONTAINMENT_ACTION = (None, *CONTAINMENT_RECOVERY.values())
# The word every decision with an action holds (RST: No, D-RST: No keeps the row; check_tables holds the table to it):
# a line without it decides nothing, so it is not searched (one substring test, ~400 instructions, where
# CONTAINMENT_LINE's search is ~2,900 of each new Xid 94/95 line: most say No and No)
CONTAINMENT_GATE = "Yes"
# The Xid whose line names the earlier Xid that caused it: 45 (ROBUST_CHANNEL_PREEMPTIVE_REMOVAL), the only code the
# open driver appends " caused by previous Xid %d" to (kernel_rc.c krcReportXid: bPrintRootCause is its xid ==
# ROBUST_CHANNEL_PREEMPTIVE_REMOVAL), "Ch 00000001 caused by previous Xid 149" (xid.yaml, open-gpu-kernel-modules #1150)
CAUSE_XIDS = frozenset({45})
# What an Xid's line is read for past its catalog row (parsers/rules.py _refine_xid), by code, derived once from the
# tables above: "containment" (CONTAINMENT_XIDS: RST / D-RST), "nvlink5" (NVLINK5_XIDS: the unit and verdict, else as
# "link"), "link" (NVLINK_XIDS: "link N"), "detail" (XID48_DETAIL: the memory), "recovery" (154: the action it names),
# "cause" (CAUSE_XIDS: the earlier Xid it names). One read a code, the first of these that holds it; a code of none
# (most lines: 13, 31, 43, 79, ..) is read for nothing: no substring test or search of its text.
_XID_READS = (("containment", CONTAINMENT_XIDS), ("nvlink5", NVLINK5_XIDS), ("link", NVLINK_XIDS),
              ("detail", XID48_DETAIL), ("recovery", (154,)), ("cause", CAUSE_XIDS))
XID_READS: dict[int, str] = {}
for _read, _codes in _XID_READS:
    for _code in _codes:
        XID_READS.setdefault(_code, _read)
del _read, _codes, _code


def check_tables() -> None:
    """The tables' own checks, at import: a ValueError of one line naming the entries at fault (real errors, not
    asserts: those are gone under `python -O`)."""
    if soft := sorted(c for c in HARDWARE_XIDS & set(XID_UNSTATED_ACTION) if XID_UNSTATED_ACTION[c][2] != "hardware"):
        raise ValueError(f"parsers/catalog.py: HARDWARE_XIDS whose XID_UNSTATED_ACTION row is not the hardware's: "
                         f"{', '.join(map(str, soft))}")
    outcomes = ({row[6] for row in NVLINK5_DECODE_ROWS}, set(NVLINK5_DECODE_OUTCOME), set(_NVLINK5_DECODE_ORDER))
    if odd := sorted(set.union(*outcomes) - set.intersection(*outcomes)):
        raise ValueError(f"parsers/catalog.py: an NVLink5 decode outcome not in all of its rows, NVLINK5_DECODE_OUTCOME "
                         f"and _NVLINK5_DECODE_ORDER: {', '.join(odd)}")
    # each table's action reads as a name XID154_RECOVERY has
    for name, table in (("XID154_RECOVERY_CODE", XID154_RECOVERY_CODE), ("NVSMI_RECOVERY_ACTION", NVSMI_RECOVERY_ACTION),
                        ("NVSMI_RESET_STATUS", NVSMI_RESET_STATUS), ("CONTAINMENT_RECOVERY", CONTAINMENT_RECOVERY)):
        if unknown := sorted(set(table.values()) - set(XID154_RECOVERY) - {None}):  # (None: no action)
            raise ValueError(f"parsers/catalog.py: {name} names an action XID154_RECOVERY lacks: {', '.join(unknown)}")
    if ungated := [str(d) for d, action in CONTAINMENT_RECOVERY.items() if action and CONTAINMENT_GATE not in d]:
        raise ValueError(f"parsers/catalog.py: CONTAINMENT_RECOVERY decisions with an action that lack CONTAINMENT_GATE "
                         f"({CONTAINMENT_GATE!r}): {', '.join(ungated)}")
    # one read a code suffices
    others = set(CONTAINMENT_XIDS) | set(XID48_DETAIL) | {154}
    if twice := sorted((others | CAUSE_XIDS) & NVLINK_XIDS | CAUSE_XIDS & others):
        raise ValueError(f"parsers/catalog.py: an Xid in two of XID_READS' tables (one read a code): "
                         f"{', '.join(map(str, twice))}")


check_tables()

# Xids the driver defines past NVIDIA's catalog (its last row is 172, parsers/data/SOURCE.md): names from nverror.h of
# NVIDIA/open-gpu-kernel-modules (173 from 575 on; 174-176 in 575.64 and 595.x: ROBUST_CHANNEL_LAST_ERROR 176).
# code -> (mnemonic, description, action, severity, attribution); each row's facts and sources in its comment.
DRIVER_XIDS: dict[int, tuple[str, str, str, str, str]] = {
    # No NVIDIA text gives an action. A fatal failure of the C2C link to the Grace CPU (Xid 121 is its corrected
    # errors); gpud's table (leptonai/gpud components/accelerator/nvidia/xid/xid.go, Xid 173) suggests a reboot, as
    # its note on Xid 121 does to retrain the C2C link: RESTART_BM, the link's hardware.
    173: ("C2C_FATAL_LINK_FAILURE", "C2C fatal link failure (GPU to Grace CPU link)", "RESTART_BM", "fatal",
          "hardware"),
    # ROBUST_CHANNEL_RESETCHANNEL_KILL_PROCESS_SILENT: no NVIDIA text; the robust-channel reset that kills the
    # channel's process (the family of Xid 43 ROBUST_CHANNEL_RESETCHANNEL_VERIF_ERROR, the application's), "silent"
    # in its name. Read as Xid 43 is: the application's, restart it.
    174: ("ROBUST_CHANNEL_RESETCHANNEL_KILL_PROCESS_SILENT", "Channel reset killed its process (silent)",
          "RESTART_APP", "error", "application"),
    # 595 (kernel_gsp.c _kgspClassifyGspTimeout): a GSP RPC timeout whose memory-subsystem probe (TLB invalidate,
    # sysmembar) failed with NV_ERR_MEMORY_ERROR is logged as Xid 175 instead of 119, with 119's text ("Timeout after
    # Ns of waiting for RPC response from GPUn GSP! ..."); _kgspIsTimeoutFatal makes every non-119 timeout fatal and
    # _kgspHandleFatalTimeout marks the GPU for reset. Newer drivers log it on its own too ("GPU memory subsystem
    # timeout (type %u) detected", mem_sys_events.c). The memory hardware's: RESET_GPU, fatal.
    175: ("MEMORY_SUBSYSTEM_ERROR", "GPU memory subsystem error (GSP timeout with the memory hardware stuck)",
          "RESET_GPU", "fatal", "hardware"),
    # PCIE_CORRECTABLE_ERROR_FAULT: no NVIDIA text and no use in the open driver's source. Correctable PCIe errors
    # keep data integrity (PCIe's own definition of correctable): a warning, the link's hardware; the unknown Xid's
    # CONTACT_SUPPORT as its action (someone looks, nothing is drained).
    176: ("PCIE_CORRECTABLE_ERROR_FAULT", "PCIe correctable error fault", "CONTACT_SUPPORT", "warning", "hardware"),
}


@dataclass(frozen=True, slots=True)
class XidInfo:
    """One Xid of the catalog (xid_catalog): NVIDIA's mnemonic, description and actions, and its policy."""

    code: int | None  # None: a line whose code rules.xid_row / sxid_row read as None (its UNKNOWN row)
    mnemonic: str
    description: str
    action: str
    investigatory: str
    severity: str
    attribution: str


@dataclass(frozen=True, slots=True)
class SxidInfo:
    """One NVSwitch SXid of the catalog (sxid_catalog)."""

    code: int | None  # None: as XidInfo's
    name: str
    fatal: bool
    action: str
    effect: str
    ignorable: bool = False  # the guide's "This SXid can be safely ignored": a non-fatal report of it is info

    def severity(self, fatal: bool | None = None) -> str:
        """A report's severity: fatal where the line says Fatal (`fatal`; None: no word of its own, the catalog's),
        else info where the guide says it can be ignored, else warning."""
        return "fatal" if (self.fatal if fatal is None else fatal) else "info" if self.ignorable else "warning"


def _read(name: str) -> list[dict[str, str]]:
    # only when a catalog is first needed (start-up cost); pkgutil, not importlib.resources: ~0.5 ms against ~5
    import csv  # noqa: PLC0415
    import pkgutil  # noqa: PLC0415

    data = pkgutil.get_data(__package__, f"data/{name}")
    if data is None:  # (a loader that cannot read package data: a broken install)
        raise FileNotFoundError(f"parsers/data/{name} is not installed")
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline=None)))  # as read_text: CRLF -> LF


def _xid_policy(code: int, action: str, investigatory: str) -> tuple[str, str]:
    severity, attribution = XID_ACTION_POLICY.get(action, UNKNOWN_XID[1:])
    if code in APPLICATION_XIDS:
        return APPLICATION_MAX_SEVERITY.get(severity, severity), "application"
    if code in HARDWARE_XIDS:
        return severity, "hardware"
    if investigatory in DRIVER_BUCKETS:
        return severity, "driver"
    return severity, attribution


@lru_cache(maxsize=1)
def xid_catalog() -> dict[int, XidInfo]:
    out = {}
    for row in _read("xid-catalog.csv"):
        code = int(row["code"])
        if not row["immediate_action"] and code in XID_UNSTATED_ACTION:
            action, severity, attribution = XID_UNSTATED_ACTION[code]
        else:
            action = row["immediate_action"] or UNKNOWN_XID[0]
            severity, attribution = _xid_policy(code, row["immediate_action"], row["investigatory_action"])
        out[code] = XidInfo(code, row["mnemonic"], row["description"], action,
                            row["investigatory_action"], severity, attribution)
    for code, (mnemonic, description, action, severity, attribution) in DRIVER_XIDS.items():
        out.setdefault(code, XidInfo(code, mnemonic, description, action, "", severity, attribution))
    return out


def xid_info(code: int | None) -> XidInfo:
    """The catalog's row of `code`, else its UNKNOWN one (None: a line's code not bounded_int's, rules.xid_row)."""
    info = xid_catalog().get(code)
    if info is None:
        action, severity, attribution = UNKNOWN_XID
        return XidInfo(code, "UNKNOWN", "not in NVIDIA's Xid catalog", action, "", severity, attribution)
    return info


# Short CamelCase names for the Xids operators meet most (condition and Event reasons); others are derived from
# the catalog's mnemonic.
XID_REASON_NAMES = {
    13: "GraphicsException", 31: "MMUFault", 43: "ChannelStopped", 45: "PreemptiveCleanup",
    48: "DoubleBitECC", 63: "RowRemapEvent", 64: "RowRemapFailure", 74: "NVLinkError", 79: "FallenOffBus",
    92: "HighSingleBitECCRate", 94: "ContainedECC", 95: "UncontainedECC", 109: "ContextSwitchTimeout",
    119: "GSPRPCTimeout", 120: "GSPError", 137: "NVLinkPrivError", 140: "UnrecoveredECC",
    154: "RecoveryActionChanged",
}
_STRIP = ("ROBUST_CHANNEL_", "ROBUST_CHANNEL")


def xid_reason(code: int) -> str:
    """The reason a problem / Event of this Xid carries: Xid<code><Name>, e.g. Xid79FallenOffBus."""
    name = XID_REASON_NAMES.get(code)
    if name is None:
        mnemonic = xid_info(code).mnemonic.split(" / ")[0]
        for prefix in _STRIP:
            mnemonic = mnemonic.removeprefix(prefix)
        name = "".join(w.capitalize() for w in re.split(r"[_\W]+", mnemonic) if w)[:40] or "Unknown"
    return f"Xid{code}{name}"


_SXID_ACTION = LazyPattern(r"NVSentinel: ([A-Z_]+)/")


@lru_cache(maxsize=1)
def sxid_catalog() -> dict[int, SxidInfo]:
    out = {}
    for row in _read("sxid-catalog.csv"):
        effect = row["severity_or_effect"]
        fatal = not effect.startswith("Non-fatal")
        m = _SXID_ACTION.search(effect)
        action = m.group(1) if m else ("RESET_FABRIC" if fatal else "IGNORE")
        out[int(row["code"])] = SxidInfo(int(row["code"]), row["name"], fatal, action, effect,
                                         not fatal and "can be safely ignored" in effect)
    return out


def sxid_info(code: int | None) -> SxidInfo:
    """The catalog's row of `code`, else its UNKNOWN one (None: a line's code not bounded_int's, rules.xid_row)."""
    return sxid_catalog().get(code) or SxidInfo(code, "UNKNOWN", True, "CONTACT_SUPPORT",
                                                "not in the Fabric Manager SXid tables")
