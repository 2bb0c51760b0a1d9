"""nvidia-smi's and NVML's error outputs in jobs' logs and SREs' pastes (parsers/rules.py "nvml_handle_failed",
"nvml_gpu_is_lost", "nvsmi_no_driver", "nvml_init_unknown"): a GPU nvidia-smi lists but cannot get a handle on is that
GPU's (gpu_reset_required, its address; part of its lost-GPU or init event where the kernel's lines came first), nvidia-smi
with no driver or no GPU brought up is the node's driver, NVML's init failing in a container is the node's container
runtime (driver_unusable, no GPU). Lines marked REAL are copied verbatim from the public source beside them
(tests/fixtures/realworld/nvidia-smi-2026k.yaml holds them in context); lines marked SOURCE are nvidia-smi's wording with
another of NVML's error strings (nvml.h nvmlErrorString), a test, never a sample."""

from __future__ import annotations

from parsers import Classifier

README = "https://github.com/JimJafar/llama-swap-config/blob/0a19ddba7108b2656c1e25fee2f37168ba8adea2/README.md"
# REAL: README (an RTX 5060 Ti, driver 610.43, 2026): the kernel's lines, then nvidia-smi after them
XID79 = "NVRM: Xid (PCI:0000:83:00): 79, GPU has fallen off the bus."
FALLEN = "NVRM: GPU 0000:83:00.0: GPU has fallen off the bus."
HANDLE_83 = "Unable to determine the device handle for GPU 0000:83:00.0: Unknown Error"
# REAL: README, the same machine's second drop: 610 names the GPU by its index, then its address
HANDLE_INDEXED = "Unable to determine the device handle for GPU1: 0000:84:00.0: Unknown Error"
# REAL: https://github.com/pdbear/syno_nvidia_gpu_driver/issues/22 (5xx: no space)
HANDLE_NOSPACE = "Unable to determine the device handle for GPU0000:07:00.0: Unknown Error"
# REAL: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/246 (515, open module: lower case, Not Found)
HANDLE_NOT_FOUND = "Unable to determine the device handle for gpu 0000:01:00.0: Not Found"
# REAL: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/862 (the kernel's failed init of that GPU)
RM_INIT = "Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)"
NO_DEVICES = "No devices were found"
# REAL: https://github.com/GoogleCloudPlatform/compute-gpu-installation/pull/18
NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
             "NVIDIA driver is installed and running.")
# REAL: https://github.com/NVIDIA/nvidia-container-toolkit/issues/1227
NVML_INIT = "Failed to initialize NVML: Unknown Error"
# SOURCE: 610's prefix with NVML_ERROR_GPU_IS_LOST's text; NVML_ERROR_NOT_SUPPORTED's and NO_PERMISSION's (no fault)
LOST_INDEXED = "Unable to determine the device handle for GPU1: 0000:05:00.0: GPU is lost."
NOT_SUPPORTED = "Unable to determine the device handle for GPU 00000000:01:00.0: Not Supported"
NO_PERMISSION = "Unable to determine the device handle for GPU 0000:01:00.0: Insufficient Permissions"
# SOURCE: go-nvml's name for NVML_ERROR_UNKNOWN at init (Project-HAMi/HAMi #452's title)
NVML_INIT_GO = "Failed to initialize NVML: ERROR_UNKNOWN"


def test_a_gpu_nvidia_smi_cannot_open_is_that_gpus_finding_in_every_eras_shape():
    for line, pci in ((HANDLE_83, "0000:83:00"), (HANDLE_INDEXED, "0000:84:00"), (HANDLE_NOSPACE, "0000:07:00"),
                      (HANDLE_NOT_FOUND, "0000:01:00")):
        f = Classifier().classify(line)
        assert f is not None, line  # was: nothing
        assert (f.kind, f.severity, f.attribution, f.action, f.pci) == (
            "gpu_reset_required", "fatal", "unknown", "RESET_GPU", pci), line
    assert Classifier().classify(HANDLE_INDEXED).details["gpu"] in (1, "1")


def test_the_610_prefix_keeps_nvmls_gpu_is_lost_the_lost_gpus():
    f = Classifier().classify(LOST_INDEXED)
    assert (f.kind, f.pci) == ("fallen_off_bus", "0000:05:00")  # was: nothing


def test_nvmls_answers_that_are_no_fault_stay_silent():
    for line in (NOT_SUPPORTED, NO_PERMISSION):
        assert Classifier().classify(line) is None, line


def test_after_the_kernels_lines_it_is_part_of_the_lost_gpus_event():
    c = Classifier()
    found = [c.read(line)[0] for line in (XID79, FALLEN, HANDLE_83)]
    assert [(f.kind, f.pci) if f else None for f in found] == [("xid", "0000:83:00"), None, None]


def test_after_the_gpus_failed_init_it_is_part_of_that_event_another_gpus_its_own():
    c = Classifier()
    first, _ = c.read(RM_INIT)
    same, _ = c.read(HANDLE_NOT_FOUND)
    other, _ = c.read(HANDLE_NOSPACE)
    assert (first.kind, first.pci) == ("gpu_reset_required", "0000:01:00") and same is None
    assert (other.kind, other.pci) == ("gpu_reset_required", "0000:07:00")


def test_nvidia_smi_with_no_driver_or_no_gpu_is_the_nodes_driver():
    for line in (NO_DRIVER, NO_DEVICES, "Startup probe failed: No devices were found"):
        f = Classifier().classify(line)
        assert f is not None, line  # was: nothing
        assert (f.kind, f.severity, f.attribution, f.pci) == ("driver_unusable", "error", "driver", None), line
    # only nvidia-smi's whole line: the words inside another sentence are not it
    assert Classifier().classify("ERROR: No devices were found matching the filter, retrying") is None


def test_nvml_init_unknown_error_is_the_nodes_container_runtime_not_a_gpu():
    for line in (NVML_INIT, NVML_INIT_GO):
        f = Classifier().classify(line)
        assert f is not None, line  # was: nothing
        assert (f.kind, f.attribution, f.pci) == ("driver_unusable", "driver", None), line
