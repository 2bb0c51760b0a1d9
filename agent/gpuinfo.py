"""`gpu_npd_gpu_info`: one series per GPU (value 1) carrying dcgm-exporter's label names and values, so that PromQL
joins gpu-npd's series and dcgm-exporter's both ways (docs/install.md "Joining with dcgm-exporter"):

    gpu        NVML's index                      UUID       the GPU's UUID
    pci_bus_id NVML's form, 00000000:18:00.0     device     nvidia<minor>, the /dev node (the driver's minor number,
    modelName  NVML's product name                          which need not equal the index)
    Hostname   the node's name                   uuid       the same UUID under gpu-npd's own label name

gpu-npd's per-GPU series keep their short `pci_bus_id` (0000:18:00, the kernel log's form): join on `uuid`/`UUID`.
"""

from __future__ import annotations

import os

from prometheus_client.core import GaugeMetricFamily

from .samples import Reading

LABELS = ("gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname", "uuid")


def device_minor(proc_root: str, pci: str) -> str | None:
    """The driver's minor number of the GPU at `pci` (0000:18:00) from /proc/driver/nvidia/gpus/*/information."""
    path = os.path.join(proc_root, "proc/driver/nvidia/gpus", f"{pci}.0", "information")
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() == "Device Minor" and value.strip().isdigit():
                    return value.strip()
    except OSError:
        return None
    return None


def info_family(readings: list[Reading], node: str, proc_root: str) -> GaugeMetricFamily:
    fam = GaugeMetricFamily("gpu_npd_gpu_info", "One series per GPU with dcgm-exporter's labels (gpu, UUID, "
                            "pci_bus_id in NVML's form, device, modelName, Hostname) and gpu-npd's uuid, for joins.",
                            labels=list(LABELS))
    for r in readings:
        if r.entity != "gpu" or not r.labels.get("uuid"):
            continue
        minor = device_minor(proc_root, r.labels.get("pci_bus_id", ""))
        fam.add_metric([r.labels.get("gpu_index", ""), r.labels["uuid"], r.labels.get("nvml_pci_bus_id", ""),
                        f"nvidia{minor}" if minor is not None else "", r.labels.get("model", ""), node,
                        r.labels["uuid"]], 1.0)
    return fam
