"""Tables derived from the kind table (parsers/kinds.py) and the Xid catalog equal what was written by hand
before they were derived (issue 24): the values below are the hand-written ones, pinned."""

from agent.kube.settings import DEFAULT_TAINTS, KubeSettings
from cluster.evidence import FAULT_CONDITIONS, NODE_REASONS

PINNED_NODE_REASONS = [
    ("^Xid(\\d+)", "xid", "hardware"), ("^SXid(\\d+)", "sxid", "fabric"),
    ("^(GPULost|NVMLTimeout)$", "fallen_off_bus", "hardware"),
    ("^(UncorrectableECCError|RowRemapFailure|DriverRecoveryAction)$", "xid", "hardware"),
    ("^NVLink", "nvlink", "hardware"), ("^(IBLinkDowned|LinkFlapping)$", "ib_link", "fabric"),
    ("GPUFallenOffBus$", "fallen_off_bus", "hardware"), ("NVLinkError$", "nvlink", "hardware"),
    ("PCIeAERError$", "pcie_aer", "hardware"), ("PCIeFatalError$", "pcie_aer", "hardware"),
    ("PCIeUncorrectedError$", "pcie_aer", "hardware"), ("IBPortDown$", "ib_link", "fabric"),
    ("NICError$", "nic_error", "hardware"), ("NICFirmwareError$", "nic_error", "hardware"),
    ("GPUResetRequired$", "gpu_reset_required", "driver"), ("PeermemError$", "peermem_error", "driver"),
    ("KernelOops$", "kernel_oops", "driver"),
]
PINNED_FAULT_CONDITIONS = {"GPUUnhealthy": "fatal", "NVLinkUnhealthy": "error", "InfiniBandUnhealthy": "error",
                           "PCIeUnhealthy": "error"}
PINNED_DEFAULT_TAINTS = ("GPUUnhealthy", "NVLinkUnhealthy", "InfiniBandUnhealthy")


def test_node_reasons_unchanged():
    assert [(p.pattern, k, a) for p, k, a in NODE_REASONS] == PINNED_NODE_REASONS


def test_node_reasons_match_the_reasons_they_name():
    table = [(p, k) for p, k, _ in NODE_REASONS]
    first = lambda reason: next((k for p, k in table if p.match(reason)), None)  # noqa: E731
    assert first("Xid79FallenOffBus") == "xid" and first("SXid12028") == "sxid"
    assert first("GPUFallenOffBus") == "fallen_off_bus" and first("IBPortDown") == "ib_link"


def test_fault_conditions_unchanged():
    assert FAULT_CONDITIONS == PINNED_FAULT_CONDITIONS
    assert list(FAULT_CONDITIONS) == list(PINNED_FAULT_CONDITIONS)


def test_default_taints_unchanged():
    assert DEFAULT_TAINTS == PINNED_DEFAULT_TAINTS
    assert tuple(r.condition for r in KubeSettings().taints) == PINNED_DEFAULT_TAINTS
