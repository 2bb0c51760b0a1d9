"""DCGM's error codes (DCGM_FR_*): one table, declared once, that the parsers' relayed-code rule (rules.py
"dcgm_fr_code") and the agent's DCGM diag check (agent/checks/dcgmdiag.py) share.

Codes and numbers: NVIDIA/DCGM dcgmlib/dcgm_errors.h, enum dcgmError_t; DCGM's own severity per code:
dcgmlib/src/dcgm_errors.c, dcgmErrorMeta (commit 72fa3feaa67d716a75323a8f47c34ff3ee73f824, DCGM 4.6.0). Each row:
the number, the name (4.0 on), the finding kind it is (parsers/kinds.py; None: DCGM's words about itself, its test
or the node's configuration, no finding), its severity and attribution (None: the kind's), and, where another rule
reads the incident's own text, that rule's name (`read_by`: the relayed code then leaves the line to it).
"""

from __future__ import annotations

from typing import NamedTuple


class DcgmCode(NamedTuple):
    number: int
    name: str  # DCGM_FR_<name>
    kind: str | None = None
    severity: str | None = None
    attribution: str | None = None
    read_by: str | None = None  # the rule that reads the incident's text (its Xid, its IMEX status)


_HW = "hardware"
DCGM_CODES: tuple[DcgmCode, ...] = (
    DcgmCode(0, "OK"), DcgmCode(1, "UNKNOWN"), DcgmCode(2, "UNRECOGNIZED"),
    DcgmCode(3, "PCI_REPLAY_RATE", "pcie_aer", "warning", _HW),                   # ISOLATE, PCIe
    DcgmCode(4, "VOLATILE_DBE_DETECTED", "dcgm_diag", "error", _HW),              # ISOLATE, memory
    DcgmCode(5, "VOLATILE_SBE_DETECTED", "dcgm_diag", "warning", _HW),            # MONITOR, memory
    DcgmCode(6, "PENDING_PAGE_RETIREMENTS", "gpu_reset_required", None, _HW),     # RESET, memory
    DcgmCode(7, "RETIRED_PAGES_LIMIT", "dcgm_diag", "error", _HW),
    DcgmCode(8, "RETIRED_PAGES_DBE_LIMIT", "dcgm_diag", "error", _HW),
    DcgmCode(9, "CORRUPT_INFOROM", "dcgm_diag", "error", _HW),                    # TRIAGE, hardware other
    DcgmCode(10, "CLOCKS_EVENT_THERMAL", "dcgm_diag", "warning", _HW),            # MONITOR, thermal
    DcgmCode(11, "POWER_UNREADABLE", "dcgm_diag", "warning", _HW),                # MONITOR, power
    DcgmCode(12, "CLOCKS_EVENT_POWER", "dcgm_diag", "warning", _HW),              # MONITOR, power
    DcgmCode(13, "NVLINK_ERROR_THRESHOLD", "nvlink", None, _HW),                  # ISOLATE, NVLink
    DcgmCode(14, "NVLINK_DOWN", "nvlink", None, _HW),
    DcgmCode(15, "NVSWITCH_FATAL_ERROR", "nvlink_fabric", None, "fabric"),
    DcgmCode(16, "NVSWITCH_NON_FATAL_ERROR", "nvlink_fabric", "warning", "fabric"),
    DcgmCode(17, "NVSWITCH_DOWN", "nvlink_fabric", None, "fabric"),
    DcgmCode(18, "NO_ACCESS_TO_FILE"), DcgmCode(19, "NVML_API"), DcgmCode(20, "DEVICE_COUNT_MISMATCH"),
    DcgmCode(21, "BAD_PARAMETER"), DcgmCode(22, "CANNOT_OPEN_LIB"), DcgmCode(23, "DENYLISTED_DRIVER"),
    DcgmCode(24, "NVML_LIB_BAD"), DcgmCode(25, "GRAPHICS_PROCESSES"), DcgmCode(26, "HOSTENGINE_CONN"),
    DcgmCode(27, "FIELD_QUERY"), DcgmCode(28, "BAD_CUDA_ENV"), DcgmCode(29, "PERSISTENCE_MODE"),
    DcgmCode(30, "LOW_BANDWIDTH", "dcgm_diag", "warning", _HW),                   # TRIAGE, PCIe
    DcgmCode(31, "HIGH_LATENCY", "dcgm_diag", "warning", _HW),
    DcgmCode(32, "CANNOT_GET_FIELD_TAG"),
    DcgmCode(33, "FIELD_VIOLATION", "dcgm_diag", "error", _HW),                   # ISOLATE, hardware other
    DcgmCode(34, "FIELD_THRESHOLD", "dcgm_diag", "warning", _HW),                 # MONITOR, perf
    DcgmCode(35, "FIELD_VIOLATION_DBL", "dcgm_diag", "warning", _HW),
    DcgmCode(36, "FIELD_THRESHOLD_DBL", "dcgm_diag", "warning", _HW),
    DcgmCode(37, "UNSUPPORTED_FIELD_TYPE"),
    DcgmCode(38, "FIELD_THRESHOLD_TS", "dcgm_diag", "warning", _HW),
    DcgmCode(39, "FIELD_THRESHOLD_TS_DBL", "dcgm_diag", "warning", _HW),
    DcgmCode(40, "THERMAL_VIOLATIONS", "dcgm_diag", "warning", _HW),              # MONITOR, thermal
    DcgmCode(41, "THERMAL_VIOLATIONS_TS", "dcgm_diag", "warning", _HW),
    DcgmCode(42, "TEMP_VIOLATION", "dcgm_diag", "warning", _HW),
    DcgmCode(43, "CLOCKS_EVENT_VIOLATION", "dcgm_diag", "warning", _HW),
    DcgmCode(44, "INTERNAL"),
    DcgmCode(45, "PCIE_GENERATION", "pcie_aer", "warning", _HW),                  # the link trained below its rate
    DcgmCode(46, "PCIE_WIDTH", "pcie_aer", "warning", _HW),
    DcgmCode(47, "ABORTED"), DcgmCode(48, "TEST_DISABLED"), DcgmCode(49, "CANNOT_GET_STAT"),
    DcgmCode(50, "STRESS_LEVEL", "dcgm_diag", "warning", _HW),                    # TRIAGE, perf
    DcgmCode(51, "CUDA_API"),
    DcgmCode(52, "FAULTY_MEMORY", "dcgm_diag", "error", _HW),                     # ISOLATE, memory
    DcgmCode(53, "CANNOT_SET_WATCHES"), DcgmCode(54, "CUDA_UNBOUND"), DcgmCode(55, "ECC_DISABLED"),
    DcgmCode(56, "MEMORY_ALLOC"),
    DcgmCode(57, "CUDA_DBE", "dcgm_diag", "error", _HW),
    DcgmCode(58, "MEMORY_MISMATCH", "dcgm_diag", "error", _HW),
    DcgmCode(59, "CUDA_DEVICE"), DcgmCode(60, "ECC_UNSUPPORTED"), DcgmCode(61, "ECC_PENDING"),
    DcgmCode(62, "MEMORY_BANDWIDTH", "dcgm_diag", "warning", _HW),
    DcgmCode(63, "TARGET_POWER", "dcgm_diag", "warning", _HW),
    DcgmCode(64, "API_FAIL"), DcgmCode(65, "API_FAIL_GPU"), DcgmCode(66, "CUDA_CONTEXT"), DcgmCode(67, "DCGM_API"),
    DcgmCode(68, "CONCURRENT_GPUS"), DcgmCode(69, "TOO_MANY_ERRORS"),
    DcgmCode(70, "NVLINK_CRC_ERROR_THRESHOLD", "nvlink", None, _HW),
    DcgmCode(71, "NVLINK_ERROR_CRITICAL", "nvlink", None, _HW),
    DcgmCode(72, "ENFORCED_POWER_LIMIT"), DcgmCode(73, "MEMORY_ALLOC_HOST"), DcgmCode(74, "GPU_OP_MODE"),
    DcgmCode(75, "NO_MEMORY_CLOCKS"), DcgmCode(76, "NO_GRAPHICS_CLOCKS"), DcgmCode(77, "HAD_TO_RESTORE_STATE"),
    DcgmCode(78, "L1TAG_UNSUPPORTED"),
    DcgmCode(79, "L1TAG_MISCOMPARE", "dcgm_diag", "error", _HW),
    DcgmCode(80, "ROW_REMAP_FAILURE", "gpu_reset_required", None, _HW),           # RESET, memory
    DcgmCode(81, "UNCONTAINED_ERROR", "dcgm_diag", "error", _HW),                 # "(XID 95)": the kernel's Xid line is the node's
    DcgmCode(82, "EMPTY_GPU_LIST"),
    DcgmCode(83, "DBE_PENDING_PAGE_RETIREMENTS", "gpu_reset_required", None, _HW),
    DcgmCode(84, "UNCORRECTABLE_ROW_REMAP", "gpu_reset_required", None, _HW),
    DcgmCode(85, "PENDING_ROW_REMAP", "gpu_reset_required", None, _HW),
    DcgmCode(86, "BROKEN_P2P_MEMORY_DEVICE", "dcgm_diag", "error", _HW),
    DcgmCode(87, "BROKEN_P2P_WRITER_DEVICE", "dcgm_diag", "error", _HW),
    DcgmCode(88, "NVSWITCH_NVLINK_DOWN", "nvlink_fabric", None, "fabric"),
    DcgmCode(89, "EUD_BINARY_PERMISSIONS"), DcgmCode(90, "EUD_NON_ROOT_USER"), DcgmCode(91, "EUD_SPAWN_FAILURE"),
    DcgmCode(92, "EUD_TIMEOUT"), DcgmCode(93, "EUD_ZOMBIE"), DcgmCode(94, "EUD_NON_ZERO_EXIT_CODE"),
    DcgmCode(95, "EUD_TEST_FAILED", "dcgm_diag", "error", _HW),
    DcgmCode(96, "FILE_CREATE_PERMISSIONS"), DcgmCode(97, "PAUSE_RESUME_FAILED"),
    DcgmCode(98, "PCIE_H_REPLAY_VIOLATION", "pcie_aer", "warning", _HW),
    DcgmCode(99, "GPU_EXPECTED_NVLINKS_UP", "nvlink", None, _HW),
    DcgmCode(100, "NVSWITCH_EXPECTED_NVLINKS_UP", "nvlink_fabric", None, "fabric"),
    DcgmCode(101, "XID_ERROR", "xid", read_by="dcgm_health_xid"),                 # "Detected XID %u for GPU %u"
    DcgmCode(102, "SBE_VIOLATION", "dcgm_diag", "warning", _HW),
    DcgmCode(103, "DBE_VIOLATION", "dcgm_diag", "error", _HW),
    DcgmCode(104, "PCIE_REPLAY_VIOLATION", "pcie_aer", "warning", _HW),
    DcgmCode(105, "SBE_THRESHOLD_VIOLATION", "dcgm_diag", "warning", _HW),
    DcgmCode(106, "DBE_THRESHOLD_VIOLATION", "dcgm_diag", "error", _HW),
    DcgmCode(107, "PCIE_REPLAY_THRESHOLD_VIOLATION", "pcie_aer", "warning", _HW),
    DcgmCode(108, "CUDA_FM_NOT_INITIALIZED", "nvlink_fabric", None, "fabric"),
    DcgmCode(109, "SXID_ERROR", "nvlink_fabric", None, "fabric"),                 # "Detected fatal NvSwitch SXID %u"
    DcgmCode(110, "GFLOPS_THRESHOLD_VIOLATION", "dcgm_diag", "warning", _HW),
    DcgmCode(111, "NAN_VALUE", "dcgm_diag", "error", _HW),
    DcgmCode(112, "FABRIC_MANAGER_TRAINING_ERROR", "nvlink_fabric", None, "fabric"),
    DcgmCode(113, "BROKEN_P2P_PCIE_MEMORY_DEVICE", "dcgm_diag", "error", _HW),
    DcgmCode(114, "BROKEN_P2P_PCIE_WRITER_DEVICE", "dcgm_diag", "error", _HW),
    DcgmCode(115, "BROKEN_P2P_NVLINK_MEMORY_DEVICE", "nvlink", None, _HW),
    DcgmCode(116, "BROKEN_P2P_NVLINK_WRITER_DEVICE", "nvlink", None, _HW),
    DcgmCode(117, "TEST_SKIPPED"),
    DcgmCode(118, "SRAM_THRESHOLD", "dcgm_diag", "warning", _HW),                 # a Warn result (WARN_ONLY_CODES)
    DcgmCode(119, "NVLINK_EFFECTIVE_BER_THRESHOLD", "nvlink", None, _HW),
    DcgmCode(120, "FALLEN_OFF_BUS", "fallen_off_bus", None, _HW),
    DcgmCode(121, "NVLINK_SYMBOL_BER_THRESHOLD", "nvlink", None, _HW),
    DcgmCode(122, "IMEX_UNHEALTHY", "imex_error", "warning", read_by="imex_domain_unhealthy"),  # its status decides
    DcgmCode(123, "FABRIC_PROBE_STATE", "nvlink_fabric", "warning", "fabric"),
    DcgmCode(124, "BINARY_PERMISSIONS"),
    DcgmCode(125, "GPU_RECOVERY_RESET", "gpu_reset_required", None, _HW),
    DcgmCode(126, "GPU_RECOVERY_REBOOT", "gpu_reset_required", None, _HW),
    DcgmCode(127, "GPU_RECOVERY_DRAIN_P2P", "gpu_reset_required", None, _HW),
    DcgmCode(128, "GPU_RECOVERY_DRAIN_RESET", "gpu_reset_required", None, _HW),
    DcgmCode(129, "NCCL_ERROR", "dcgm_diag", "error", _HW),
    DcgmCode(130, "RETEST_REQUESTED"),
    DcgmCode(131, "CONTAINED_ERROR", "dcgm_diag", "warning", _HW),                # MONITOR: the Xid 94 line is the node's
    DcgmCode(132, "UNCORRECTABLE_ROW_REMAP_LIMIT", "dcgm_diag", "error", _HW),
)
DCGM_CODE = {row.name: row for row in DCGM_CODES}
FR_CODES = tuple(row.name for row in DCGM_CODES)  # by number
# DCGM 4.0 renamed three (its header keeps the old names as deprecated aliases of the same numbers); a 3.x document
# ("DCGM GPU Diagnostic") and a 3.x health monitor name them so
NAMES_BEFORE_4 = {10: "CLOCK_THROTTLE_THERMAL", 12: "CLOCK_THROTTLE_POWER", 43: "THROTTLING_VIOLATION"}
DCGM_CODE.update({old: DCGM_CODES[number] for number, old in NAMES_BEFORE_4.items()})
# dcgmErrorSeverity_t by number: 0 NONE and 3 UNKNOWN say nothing
DCGM_SEVERITIES = ("", "monitor", "isolate", "", "triage", "config", "reset")
# The names a relayed `ErrorCode:DCGM_FR_<name>` is a finding by (rules.py "dcgm_fr_code"): a row with a kind whose
# incident no other rule reads; longest first, so that a name is never cut at a shorter one's end.
RELAYED_NAMES = tuple(sorted((name for name, row in DCGM_CODE.items() if row.kind and not row.read_by),
                             key=lambda n: (-len(n), n)))
