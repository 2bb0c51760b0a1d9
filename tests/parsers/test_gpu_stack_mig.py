"""The node's GPU stack failing at MIG (parsers/rules.py mig_apply_failed, device_plugin_mig_invalid,
device_plugin_nvml_permission): the node's software stack (driver_unusable), never a GPU's fault nor the job's; the MIG
manager's normal flow silent. The corpus samples are tests/fixtures/realworld/k8s-gpu-stack-2026l.yaml."""

from __future__ import annotations

from parsers import parse_line, scan_lines

# REAL: NVIDIA/gpu-operator #1606 (nvidia-mig-parted's logrus error quoting nvidia-smi's refused reset) and
# NVIDIA/mig-parted #181 (its fatal apply failure): each line verbatim; SPLICED here, the thread of #1606 cut its own
# fatal line after the apply-exit hook's
RESET_REFUSED = 'time="2025-08-19T11:17:47Z" level=error msg="\\nResetting GPU 00000000:00:04.0 is not supported.\\n"'
EXIT_HOOK = 'time="2025-08-19T11:17:47Z" level=debug msg="Running apply-exit hook"'
APPLY_FAILED = "FATA[0008] Error applying MIG configuration with hooks: error resetting all GPUs: exit status 255"


def test_a_refused_reset_and_the_failed_apply_are_one_failure():
    findings = list(scan_lines([RESET_REFUSED, EXIT_HOOK, APPLY_FAILED]))
    assert [(f.kind, f.attribution) for f in findings] == [("driver_unusable", "driver")]
    assert findings[0].details["driver_error"] == "Resetting GPU 00000000:00:04.0 is not supported."


def test_the_failed_apply_names_its_cause():
    f = parse_line(APPLY_FAILED)
    assert f is not None and f.kind == "driver_unusable"
    assert f.details["driver_error"] == "error resetting all GPUs: exit status 255"


# REAL: NVIDIA/gpu-operator #322 (the manager's assert before each apply: the layout not yet applied, at logrus's fatal
# level) and #603 (a successful apply): the normal flow
def test_the_managers_normal_flow_is_silent():
    assert parse_line('time="2022-03-13T12:03:46Z" level=fatal msg="Assertion failure: selected configuration not '
                      'currently applied"') is None
    assert parse_line("MIG configuration applied successfully") is None


# REAL: NVIDIA/k8s-device-plugin #399 ("Pemmissions" as posted; the plugin deployment's missing
# NVIDIA_MIG_MONITOR_DEVICES=all) and NVIDIA/nvidia-container-toolkit #842 (a job's own pynvml query on a MIG device)
def test_the_plugins_refused_memory_query_is_the_stack_a_jobs_is_its_own():
    f = parse_line("error starting plugins: unable to add default resources to config: error visiting devices: error "
                   "visiting device: error visiting device: error getting device memory info: Insufficient Pemmissions")
    assert f is not None and (f.kind, f.attribution) == ("driver_unusable", "driver")
    assert parse_line("pynvml.NVMLError_NoPermission: Insufficient Permissions") is None
