"""Readings -> Prometheus series, by table.  Rendered from the latest readings at scrape time, so a
GPU or port that disappears leaves no stale series."""

from __future__ import annotations

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from parsers.catalog import XID154_RECOVERY_CODE

from .gpu.interface import NVML_READINGS
from .samples import Reading

ENTITY_LABELS = {
    "gpu": ("gpu", "uuid", "pci_bus_id", "model"),
    "nvlink": ("gpu", "uuid", "pci_bus_id", "model", "link"),
    "ib_port": ("device", "port"),
    "pci": ("pci_bus_id", "vendor"),
    "node": (),
}
LABEL_SOURCE = {"gpu": "gpu_index"}  # label name -> reading label key, where they differ

# (entity, field, metric name, type, help, extra labels).  A field ending in "/*" takes every field
# with that prefix; the rest of the name goes into the `name` label.
TABLE: tuple[tuple[str, str, str, str, str, dict[str, str]], ...] = (
    ("gpu", "ecc_corrected_volatile", "gpu_npd_gpu_ecc_errors", "counter",
     "ECC errors, by type and counter (volatile: since driver load; aggregate: lifetime).",
     {"error_type": "corrected", "counter": "volatile"}),
    ("gpu", "ecc_uncorrected_volatile", "gpu_npd_gpu_ecc_errors", "counter", "", {"error_type": "uncorrected", "counter": "volatile"}),
    ("gpu", "ecc_corrected_aggregate", "gpu_npd_gpu_ecc_errors", "counter", "", {"error_type": "corrected", "counter": "aggregate"}),
    ("gpu", "ecc_uncorrected_aggregate", "gpu_npd_gpu_ecc_errors", "counter", "", {"error_type": "uncorrected", "counter": "aggregate"}),
    ("gpu", "retired_pages_sbe", "gpu_npd_gpu_retired_pages", "gauge", "Retired memory pages, by cause.", {"cause": "multiple_sbe"}),
    ("gpu", "retired_pages_dbe", "gpu_npd_gpu_retired_pages", "gauge", "", {"cause": "dbe"}),
    ("gpu", "retired_pages_pending", "gpu_npd_gpu_retired_pages_pending", "gauge",
     "1 when a page retirement waits for the next GPU reset.", {}),
    ("gpu", "remap_correctable", "gpu_npd_gpu_remapped_rows", "gauge", "Remapped memory rows, by cause.", {"cause": "correctable"}),
    ("gpu", "remap_uncorrectable", "gpu_npd_gpu_remapped_rows", "gauge", "", {"cause": "uncorrectable"}),
    ("gpu", "remap_pending", "gpu_npd_gpu_row_remap_pending", "gauge", "1 when a row remap waits for a GPU reset.", {}),
    ("gpu", "remap_failure", "gpu_npd_gpu_row_remap_failure", "gauge", "1 when a row remap failed.", {}),
    ("gpu", "temperature_gpu", "gpu_npd_gpu_temperature_celsius", "gauge", "Temperature, by sensor.", {"sensor": "gpu"}),
    ("gpu", "temperature_memory", "gpu_npd_gpu_temperature_celsius", "gauge", "", {"sensor": "memory"}),
    ("gpu", "throttle_hw_slowdown", "gpu_npd_gpu_clock_event_active", "gauge",
     "1 while a clock event (throttle) reason is active.", {"reason": "hw_slowdown"}),
    ("gpu", "throttle_hw_thermal", "gpu_npd_gpu_clock_event_active", "gauge", "", {"reason": "hw_thermal"}),
    ("gpu", "throttle_power_brake", "gpu_npd_gpu_clock_event_active", "gauge", "", {"reason": "hw_power_brake"}),
    ("gpu", "throttle_sw_thermal", "gpu_npd_gpu_clock_event_active", "gauge", "", {"reason": "sw_thermal"}),
    ("gpu", "throttle_sw_power_cap", "gpu_npd_gpu_clock_event_active", "gauge", "", {"reason": "sw_power_cap"}),
    # the one-call NVML readings declare their series with themselves (agent/gpu/interface.py NVML_READINGS)
    *(("gpu", r.name, r.metric, r.type, r.help, dict(r.labels)) for r in NVML_READINGS if r.metric),
    ("gpu", "clock_sm", "gpu_npd_gpu_sm_clock_mhz", "gauge", "SM clock now, in MHz (DCGM_FI_DEV_SM_CLOCK).", {}),
    ("gpu", "utilization_gpu", "gpu_npd_gpu_utilization_percent", "gauge",
     "Percent of the last sample period a kernel ran on the GPU (DCGM_FI_DEV_GPU_UTIL).", {}),
    ("gpu", "utilization_memory", "gpu_npd_gpu_memory_utilization_percent", "gauge",
     "Percent of the last sample period device memory was read or written (DCGM_FI_DEV_MEM_COPY_UTIL).", {}),
    ("gpu", "nvlink_tx_bytes", "gpu_npd_gpu_nvlink_data_bytes", "counter",
     "NVLink data over all the GPU's links since driver load, by direction "
     "(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX / _RX, which count KiB).", {"direction": "tx"}),
    ("gpu", "nvlink_rx_bytes", "gpu_npd_gpu_nvlink_data_bytes", "counter", "", {"direction": "rx"}),
    ("gpu", "throttled_thermal_seconds", "gpu_npd_gpu_throttled_seconds", "counter",
     "Time the clocks were held down, by cause (NVML violation counters).", {"cause": "thermal"}),
    ("gpu", "throttled_power_seconds", "gpu_npd_gpu_throttled_seconds", "counter", "", {"cause": "power"}),
    ("gpu", "throttled_reliability_seconds", "gpu_npd_gpu_throttled_seconds", "counter", "", {"cause": "reliability"}),
    ("gpu", "throttled_board_limit_seconds", "gpu_npd_gpu_throttled_seconds", "counter", "", {"cause": "board_limit"}),
    ("gpu", "thermal_margin", "gpu_npd_gpu_thermal_margin_celsius", "gauge",
     "Degrees below the GPU's own slowdown temperature.", {}),
    ("gpu", "fabric_state", "gpu_npd_gpu_fabric_state", "gauge",
     "NVLink fabric registration state (1 not started, 2 in progress, 3 completed).", {}),
    ("gpu", "fabric_health_mask", "gpu_npd_gpu_fabric_health_mask", "gauge",
     "NVLink fabric health mask as NVML reports it (decoded into the fabric rules).", {}),
    ("gpu", "recovery_action", "gpu_npd_gpu_recovery_action", "gauge",
     "The driver's GPU recovery action (NVML's code: "
     + ", ".join(f"{code} {name}" for code, name in XID154_RECOVERY_CODE.items()) + ").", {}),
    ("gpu", "gpu_lost", "gpu_npd_gpu_lost", "gauge", "1 when NVML says the GPU is lost.", {}),
    ("gpu", "nvml_timeout", "gpu_npd_gpu_nvml_timeout", "gauge", "1 while an NVML call on this GPU is past its deadline.", {}),
    ("nvlink", "state", "gpu_npd_nvlink_up", "gauge", "NVLink state (1 active).", {}),
    ("nvlink", "crc_flit", "gpu_npd_nvlink_errors", "counter", "NVLink error counters, by type.", {"error_type": "crc_flit"}),
    ("nvlink", "crc_data", "gpu_npd_nvlink_errors", "counter", "", {"error_type": "crc_data"}),
    ("nvlink", "replay", "gpu_npd_nvlink_errors", "counter", "", {"error_type": "replay"}),
    ("nvlink", "recovery", "gpu_npd_nvlink_errors", "counter", "", {"error_type": "recovery"}),
    ("ib_port", "state", "gpu_npd_ib_port_state", "gauge", "Port logical state (4 ACTIVE).", {}),
    ("ib_port", "phys_state", "gpu_npd_ib_port_phys_state", "gauge", "Port physical state (5 LinkUp).", {}),
    ("ib_port", "active", "gpu_npd_ib_port_active", "gauge", "1 when the port is ACTIVE and LinkUp.", {}),
    ("ib_port", "rate_gbps", "gpu_npd_ib_port_rate_gbps", "gauge", "Port data rate in Gb/s.", {}),
    ("ib_port", "counters/*", "gpu_npd_ib_port_stats", "counter", "Port counters (sysfs counters/), by name.", {}),
    ("ib_port", "hw_counters/*", "gpu_npd_ib_port_hw_stats", "counter", "Port hardware counters (sysfs hw_counters/), by name.", {}),
    ("pci", "aer_correctable", "gpu_npd_pcie_aer_errors", "counter", "PCIe AER error totals, by severity.", {"severity": "correctable"}),
    ("pci", "aer_nonfatal", "gpu_npd_pcie_aer_errors", "counter", "", {"severity": "nonfatal"}),
    ("pci", "aer_fatal", "gpu_npd_pcie_aer_errors", "counter", "", {"severity": "fatal"}),
    ("pci", "pcie_link_gen", "gpu_npd_pcie_link_generation", "gauge",
     "An RDMA NIC's PCIe link generation: as trained (current) and the most the NIC and the port above it both "
     "support (max).", {"which": "current"}),
    ("pci", "pcie_link_gen_max", "gpu_npd_pcie_link_generation", "gauge", "", {"which": "max"}),
    ("pci", "pcie_link_width", "gpu_npd_pcie_link_width", "gauge",
     "An RDMA NIC's PCIe link width in lanes: as trained (current) and the most the NIC and the port above it both "
     "support (max).", {"which": "current"}),
    ("pci", "pcie_link_width_max", "gpu_npd_pcie_link_width", "gauge", "", {"which": "max"}),
    ("node", "gpus_nvml", "gpu_npd_gpus", "gauge", "GPUs counted, by where they were counted.", {"seen_by": "nvml"}),
    ("node", "gpus_pci", "gpu_npd_gpus", "gauge", "", {"seen_by": "pci"}),
    ("node", "gpus_expected", "gpu_npd_gpus", "gauge", "", {"seen_by": "expected"}),
    ("node", "nics_seen", "gpu_npd_nics", "gauge", "RDMA NICs counted, seen and expected.", {"which": "seen"}),
    ("node", "nics_expected", "gpu_npd_nics", "gauge", "", {"which": "expected"}),
    ("node", "vbios_variants", "gpu_npd_gpu_vbios_variants", "gauge",
     "Most VBIOS versions seen among GPUs of one model (1 when consistent).", {}),
)

_EXACT = {(e, f): row for row in TABLE for e, f in [(row[0], row[1])] if not f.endswith("/*")}
_PREFIX = [(row[0], row[1][:-1], row) for row in TABLE if row[1].endswith("/*")]
_HELP = {}
for _row in TABLE:
    _HELP.setdefault(_row[2], _row[4])


def families(readings: list[Reading]):
    fams: dict[str, GaugeMetricFamily | CounterMetricFamily] = {}

    def family(row, extra: tuple[str, ...]):
        _, _, name, kind, _, labels = row
        fam = fams.get(name)
        if fam is None:
            names = list(ENTITY_LABELS[row[0]]) + list(labels) + list(extra)
            cls = CounterMetricFamily if kind == "counter" else GaugeMetricFamily
            fam = fams[name] = cls(name, _HELP[name], labels=names)
        return fam

    for r in readings:
        base = [r.labels.get(LABEL_SOURCE.get(k, k), "") for k in ENTITY_LABELS[r.entity]]
        for fname, value in r.values.items():
            row = _EXACT.get((r.entity, fname))
            if row is not None:
                family(row, ()).add_metric(base + list(row[5].values()), value)
                continue
            for entity, prefix, prow in _PREFIX:
                if entity == r.entity and fname.startswith(prefix):
                    family(prow, ("name",)).add_metric(base + [fname[len(prefix):]], value)
                    break
    return list(fams.values())
