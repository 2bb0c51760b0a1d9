"""The one narrow interface to NVML that every implementation (pynvml, the fake) and the collector share.

`Nvml`: init/shutdown, the GPU count, each GPU's identity, `read(index, group)` returning raw NVML values
by field name, and `wait_xid`.  Failures are `NvmlError` with NVML's own error name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Collection, Mapping, Protocol


@dataclass(frozen=True)
class NvmlReading:
    """A per-GPU reading that is one NVML call, declared once: the read group it joins (read together; a GPU
    without it skips the group), the pynvml function and its constant arguments (pynvml's names), a divisor to its
    unit, and its Prometheus series (agent/reading_metrics.py: a metric shared by several rows takes the first
    row's help; `labels` tell the rows apart). The pynvml backend reads it and the fake NVML serves it by name."""
    name: str  # the reading's field (a sample rule's `field`)
    group: str
    call: str  # "nvmlDeviceGetPowerUsage"
    args: tuple[str, ...] = ()  # pynvml constants passed after the device handle ("NVML_TEMPERATURE_GPU")
    divisor: float = 1.0  # raw value / divisor (milliwatts -> watts: 1000)
    metric: str = ""  # "" : not exported
    type: str = "gauge"  # gauge | counter
    help: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    healthy: float = 0  # what a healthy GPU reads (the NVML stand-in's default scenario serves it)


NVML_READINGS: tuple[NvmlReading, ...] = (
    NvmlReading("power_watts", "power", "nvmlDeviceGetPowerUsage", divisor=1000.0, metric="gpu_npd_gpu_power_watts",
                help="Power draw.", healthy=72.5),
    NvmlReading("pcie_replay", "pcie", "nvmlDeviceGetPcieReplayCounter", metric="gpu_npd_gpu_pcie_replay",
                type="counter", help="PCIe replay counter."),
    NvmlReading("pcie_link_gen", "pcie", "nvmlDeviceGetCurrPcieLinkGeneration",
                metric="gpu_npd_gpu_pcie_link_generation", help="PCIe link generation, current and max.",
                labels={"which": "current"}, healthy=5),
    # the most the link can train to: the lesser of the GPU's and the host's maximum (nvidia-smi's "Max"; the GPU's own,
    # "Device Max", is nvmlDeviceGetGpuMaxPcieLinkGeneration), as the width's maximum is: a Gen5 GPU in a Gen4 host
    # is no fault
    NvmlReading("pcie_link_gen_max", "pcie", "nvmlDeviceGetMaxPcieLinkGeneration",
                metric="gpu_npd_gpu_pcie_link_generation", labels={"which": "max"}, healthy=5),
    NvmlReading("pcie_link_width", "pcie", "nvmlDeviceGetCurrPcieLinkWidth", metric="gpu_npd_gpu_pcie_link_width",
                help="PCIe link width, current and max.", labels={"which": "current"}, healthy=16),
    NvmlReading("pcie_link_width_max", "pcie", "nvmlDeviceGetMaxPcieLinkWidth", metric="gpu_npd_gpu_pcie_link_width",
                labels={"which": "max"}, healthy=16),
    # bytes per second over NVML's own 20 ms sample (NVML answers in KB/s; a vGPU guest: NOT_SUPPORTED)
    NvmlReading("pcie_tx_bytes_per_second", "pcie_throughput", "nvmlDeviceGetPcieThroughput",
                ("NVML_PCIE_UTIL_TX_BYTES",), divisor=0.001, metric="gpu_npd_gpu_pcie_throughput_bytes_per_second",
                help="PCIe throughput over NVML's 20 ms sample, transmitted and received.",
                labels={"direction": "tx"}),
    NvmlReading("pcie_rx_bytes_per_second", "pcie_throughput", "nvmlDeviceGetPcieThroughput",
                ("NVML_PCIE_UTIL_RX_BYTES",), divisor=0.001, metric="gpu_npd_gpu_pcie_throughput_bytes_per_second",
                labels={"direction": "rx"}),
)
# group -> its one-call readings, in table order
NVML_READING_GROUPS: dict[str, tuple[NvmlReading, ...]] = {
    g: tuple(r for r in NVML_READINGS if r.group == g) for g in dict.fromkeys(r.group for r in NVML_READINGS)}

# What each read group returns: raw NVML values (masks stay masks, counters stay counters).
GROUPS: dict[str, tuple[str, ...]] = {
    "ecc": ("ecc_corrected_volatile", "ecc_uncorrected_volatile", "ecc_corrected_aggregate",
            "ecc_uncorrected_aggregate"),
    "retired_pages": ("retired_pages_sbe", "retired_pages_dbe", "retired_pages_pending"),
    "remap": ("remap_correctable", "remap_uncorrectable", "remap_pending", "remap_failure"),
    "temperature": ("temperature_gpu", "temperature_memory"),
    "clocks": ("clocks_event_mask",),
    **{g: tuple(r.name for r in rows) for g, rows in NVML_READING_GROUPS.items()},  # power, pcie: one call each
    "sm_clock": ("clock_sm",),  # MHz now (nvmlDeviceGetClockInfo, NVML_CLOCK_SM)
    # percent of the last sample period a kernel ran / device memory was read or written (nvmlDeviceGetUtilizationRates)
    "utilization": ("utilization_gpu", "utilization_memory"),
    "recovery": ("recovery_action",),
    # time the driver held clocks down, per cause (nvmlDeviceGetViolationStatus; counters, nanoseconds)
    "throttle_time": ("violation_power_ns", "violation_thermal_ns", "violation_reliability_ns",
                      "violation_board_limit_ns"),
    "thermal_limits": ("temperature_slowdown", "temperature_shutdown"),
    # NVLink data sent / received over all links of the GPU since driver load (counters, KiB): field values
    # NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX / _RX with scopeId UINT_MAX, the sum over links
    "nvlink_throughput": ("nvlink_tx_kib", "nvlink_rx_kib"),
    # NVLink fabric registration on NVL72-class systems (nvmlDeviceGetGpuFabricInfoV); the mask stays a mask
    "fabric": ("fabric_state", "fabric_status", "fabric_clique_id", "fabric_health_mask", "fabric_health_summary"),
}
# Read only by the active checks (agent/checks), never by the poller: settings and who uses the GPU.
CHECK_GROUPS: dict[str, tuple[str, ...]] = {
    "settings": ("persistence_mode", "ecc_mode_current", "ecc_mode_pending", "clock_sm_max", "clock_mem_max"),
    "processes": ("compute_processes",),
}
# NVML's compute modes (nvmlComputeMode_t) in nvidia-smi's words (`nvidia-smi -q -d COMPUTE`): who may hold a context
# on the GPU.  Exclusive_Process: one process at a time, every other refused (CUDA status 46); Prohibited: none.
COMPUTE_MODES = {0: "Default", 1: "Exclusive_Thread", 2: "Prohibited", 3: "Exclusive_Process"}
NVLINK_FIELDS = ("state", "crc_flit", "crc_data", "replay", "recovery")
ERRORS = ("NOT_SUPPORTED", "GPU_IS_LOST", "UNKNOWN", "DRIVER_NOT_LOADED", "LIBRARY_NOT_FOUND", "NO_PERMISSION",
          "TIMEOUT", "INVALID_ARGUMENT", "FUNCTION_NOT_FOUND", "UNINITIALIZED", "NOT_FOUND", "RESET_REQUIRED",
          "LIB_RM_VERSION_MISMATCH", "IN_USE", "ARGUMENT_VERSION_MISMATCH", "CORRUPTED_INFOROM", "NO_DATA")
# What this driver or GPU does not have: the read is skipped from then on, never counted as an error
# (FUNCTION_NOT_FOUND: an older driver generation lacks the entry point)
UNSUPPORTED = ("NOT_SUPPORTED", "FUNCTION_NOT_FOUND")
# NVML gone under a running client (the driver unloaded for an upgrade, `nvidia-smi -r`, a GPU operator's driver
# container restarted): every call of its session answers one of these, whatever the GPU
GONE = ("UNINITIALIZED", "DRIVER_NOT_LOADED")
MAX_NVLINKS = 18  # per GPU, probed once; links NVML says it does not support are skipped afterwards


class NvmlError(Exception):
    """An NVML call failed; `code` is NVML's error name without the NVML_ERROR_ prefix."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(f"NVML {code}{': ' + detail if detail else ''}")
        self.code = code


@dataclass(frozen=True)
class Identity:
    index: int
    uuid: str
    pci_bus_id: str  # as NVML writes it: 00000000:5D:00.0
    model: str
    vbios: str = ""  # "" where NVML does not say


class Nvml(Protocol):
    def init(self) -> None: ...
    def shutdown(self) -> None: ...
    def driver_version(self) -> str: ...
    def count(self) -> int: ...
    def identity(self, index: int) -> Identity: ...
    def probe_pci(self, pci: str) -> None: ...  # NvmlError where NVML has no handle for the GPU at this address
    def read(self, index: int, group: str) -> dict[str, float]: ...
    def nvlink(self, index: int, link: int) -> dict[str, float]: ...
    # (GPU index, Xid) or None; `gpus`: the GPUs the event set carries (None: all counted when it is made)
    def wait_xid(self, timeout_ms: int, gpus: Collection[int] | None = None) -> tuple[int, int] | None: ...
    def compute_pids(self, index: int) -> list[int]: ...  # the GPU's compute processes (which pods use it)
    def compute_mode(self, index: int) -> int: ...  # nvmlDeviceGetComputeMode (COMPUTE_MODES)
