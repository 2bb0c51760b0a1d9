"""Tables derived from the kind table (parsers/kinds.py), the telemetry rule table (parsers/sample_rules.yaml) and
the Xid catalog equal what was written by hand before they were derived (issue 24): the values below are the
hand-written ones, pinned (the telemetry rows' reasons spelled out where a hand-written pattern stood)."""

import re

import pytest

from agent.kube.settings import DEFAULT_TAINTS, KubeSettings
from agent.samples import validate_rules
from triage.conditions import FAULT_CONDITIONS, NODE_REASONS
from parsers.telemetry import sample_rules

PINNED_NODE_REASONS = [
    ("^Xid(\\d+)", "xid", "hardware"), ("^SXid(\\d+)", "sxid", "fabric"),
    ("GPULost$", "fallen_off_bus", "hardware"), ("NVMLTimeout$", "fallen_off_bus", "hardware"),
    ("UncorrectableECCError$", "xid", "hardware"), ("RowRemapFailure$", "xid", "hardware"),
    ("DriverRecoveryAction$", "xid", "hardware"),
    ("DriverRecoveryReboot$", "xid", "hardware"),  # (h227) recovery action 2, NODE_REBOOT: its own row (RESTART_BM)
    # (h507) the NVLink fabric's telemetry rows name their kind (nvlink_fabric: their condition its, as nvidia-smi -q's
    # Fabric block read by `parse` is): a fabric root for the jobs on the node, as IMEX's
    ("FabricRegistrationFailed$", "nvlink_fabric", "fabric"), ("FabricNotRegistered$", "nvlink_fabric", "fabric"),
    ("FabricUnhealthy$", "nvlink_fabric", "fabric"), ("FabricRouteUnhealthy$", "nvlink_fabric", "fabric"),
    ("FabricIncorrectConfiguration$", "nvlink_fabric", "fabric"), ("FabricLimitedCapacity$", "nvlink_fabric", "fabric"),
    ("FabricDegradedBandwidth$", "nvlink_fabric", "fabric"), ("FabricRouteRecovery$", "nvlink_fabric", "fabric"),
    ("FabricAccessTimeoutRecovery$", "nvlink_fabric", "fabric"),
    ("FabricManagerDisconnected$", "nvlink_fabric", "fabric"),
    ("NVLinkDown$", "nvlink", "hardware"),
    ("NVLinkCRCErrorRate$", "nvlink", "hardware"), ("NVLinkReplayRate$", "nvlink", "hardware"),
    ("NVLinkRecoveryRate$", "nvlink", "hardware"),
    # (h14) NVML's library and the kernel module of different releases, and the kernel log's driver mismatch: a node
    # fault (infrastructure) for the jobs on the node since driver_mismatch joined triage's NODE_FAULT_KINDS
    ("DriverVersionMismatch$", "driver_mismatch", "driver"),
    ("LinkFlapping$", "ib_link", "fabric"),
    ("IBLinkDowned$", "ib_link", "fabric"),
    ("GPUFallenOffBus$", "fallen_off_bus", "hardware"), ("NVLinkError$", "nvlink", "hardware"),
    ("FabricUnhealthy$", "nvlink_fabric", "fabric"),  # (h507) the kind's own reason
    ("PCIeAERError$", "pcie_aer", "hardware"), ("PCIeFatalError$", "pcie_aer", "hardware"),
    ("PCIeUncorrectedError$", "pcie_aer", "hardware"), ("IBPortDown$", "ib_link", "fabric"),
    ("NICError$", "nic_error", "hardware"), ("NICFirmwareError$", "nic_error", "hardware"),
    ("GPUResetRequired$", "gpu_reset_required", "driver"),
    # (h644) a `dcgmi diag` test failed on a GPU (kind dcgm_diag; the agent's dcgm check's reason too): the node's GPU
    ("DCGMDiagFailed$", "dcgm_diag", "hardware"),
    ("GPUDriverMismatch$", "driver_mismatch", "driver"),
    ("PeermemError$", "peermem_error", "driver"),
    # (h66) the IMEX daemon failing a job's memory export or import, or its own start (multi-node NVLink's software,
    # kubernetes-sigs/dra-driver-nvidia-gpu #948): a fabric root for the jobs on the node, as peermem_error is
    ("IMEXError$", "imex_error", "fabric"),
    ("KernelOops$", "kernel_oops", "driver"),
    # (h190) a kernel oops in a shared filesystem's client module (BeeGFS, Lustre, NFS, CephFS, GPFS, WekaFS): its
    # mount broken until a reboot, the node's infrastructure fault for the jobs on it
    ("StorageClientOops$", "storage_oops", "driver"),
    # (h99) the node's kernel panicked (a console's or an earlier boot's log): the node's fault for the jobs on it
    ("KernelPanic$", "kernel_panic", "unknown"),
    # (h694) a processor's IERR, thermal trip or failed start-up its BMC logged (the node hung, was reset or cut off):
    # the node's hardware fault for the jobs on it
    ("CPUFault$", "cpu_fault", "hardware"),
    # (h36) a parallel filesystem client evicted (its StorageUnhealthy reason) or its connection lost: the node's
    # infrastructure fault for the jobs on it since parallel_fs_error joined triage's NODE_FAULT_KINDS (an error
    # or worse: a lost connection, a warning, is none)
    # (h45) an NFS soft mount's RPC timed out (an error: the I/O failed) likewise, nfs_error an infrastructure kind
    ("NFSServerNotResponding$", "nfs_error", "unknown"),
    ("ParallelFSError$", "parallel_fs_error", "unknown"),
    ("ParallelFSClientEvicted$", "parallel_fs_error", "unknown"),
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


# what cluster/evidence.py declared by hand before the telemetry rows named their kind
HAND_TELEMETRY = [("^(GPULost|NVMLTimeout)$", "fallen_off_bus", "hardware"),
                  ("^(UncorrectableECCError|RowRemapFailure|DriverRecoveryAction)$", "xid", "hardware"),
                  ("^NVLink", "nvlink", "hardware"), ("^(IBLinkDowned|LinkFlapping)$", "ib_link", "fabric")]


def test_the_telemetry_rows_kinds_read_their_reasons_as_the_hand_patterns_did():
    """Every shipped telemetry reason maps to the kind and attribution the hand-written patterns gave it."""
    first = lambda reason: next(((k, a) for p, k, a in NODE_REASONS if p.match(reason)), None)  # noqa: E731
    checked = set()
    for reason in {r["reason"] for r in sample_rules()}:
        hand = next(((k, a) for p, k, a in HAND_TELEMETRY if re.match(p, reason)), None)
        if hand is not None:
            assert first(reason) == hand, reason
            checked.add(reason)
    assert checked == {"GPULost", "NVMLTimeout", "UncorrectableECCError", "RowRemapFailure", "DriverRecoveryAction",
                       "NVLinkDown", "NVLinkCRCErrorRate", "NVLinkReplayRate", "NVLinkRecoveryRate", "LinkFlapping",
                       "IBLinkDowned"}  # every shipped reason the hand patterns read was compared
    assert first("ThermalThrottling") is None  # not a node fault there
    # (h507) the fabric rows name kind nvlink_fabric (their condition its): a fabric fault of the node, as the same
    # value in nvidia-smi -q's Fabric block is in `parse` and triage; was none
    assert first("FabricUnhealthy") == ("nvlink_fabric", "fabric")


@pytest.mark.parametrize("kind, ok", [("nvlink", True), ("nvlinks", False), (7, False), (["nvlink"], False)])
def test_a_telemetry_rows_kind_is_a_finding_kind(kind, ok):
    """(h501) One message for a kind that is none, whether the row names its own condition or raises its kind's: was
    `.kind: 'nvlinks' is not a finding kind` for the one, `.condition: required: kind 'nvlinks' is no finding kind`
    for the other (parsers/telemetry.py `finding_kind`, the one place)."""
    rule = {"entity": "gpu", "field": "f", "above": 0, "condition": "X", "reason": "R", "kind": kind}
    said = validate_rules([rule], {"X": {}})
    derived = validate_rules([{k: v for k, v in rule.items() if k != "condition"}], {"X": {}, "GPUDegraded": {}})
    if ok:
        assert said is None and derived is None
    else:
        assert said == derived == f"sample_rules[0].kind: {kind!r} is no finding kind (parsers/kinds.py)"


def test_a_telemetry_row_of_a_kind_raises_what_the_kind_table_raises_at_its_severity():
    """(h467) The NVLink rates' rows (DCGM's limits) raised NVLinkUnhealthy, a tainting condition, at severity warning,
    while Fabric Manager's Non Fatal NVL error, a warning of the same kind, raises GPUDegraded: a row naming a kind whose
    rules ask only a severity raises the kind table's condition for that severity, whichever row names it."""
    from parsers.kinds import BY_NAME  # noqa: PLC0415

    by_reason = {r["reason"]: r["condition"] for r in sample_rules()}
    assert by_reason["NVLinkCRCErrorRate"] == by_reason["NVLinkReplayRate"] == "GPUDegraded"
    assert by_reason["NVLinkDown"] == by_reason["NVLinkRecoveryRate"] == "NVLinkUnhealthy"
    checked = 0
    for row in sample_rules():
        kind = BY_NAME.get(row.get("kind"))
        if kind is None or any(set(r.match) - {"severity"} for r in kind.raises):
            continue
        assert row["condition"] == kind.raised_at(row["severity"]), row["reason"]
        checked += 1
    assert checked >= 5


def test_a_kinds_condition_at_a_severity():
    from parsers.kinds import BY_NAME  # noqa: PLC0415

    nvlink = BY_NAME["nvlink"]
    assert [nvlink.raised_at(s) for s in ("info", "warning", "error", "fatal")] == [
        None, "GPUDegraded", "NVLinkUnhealthy", "NVLinkUnhealthy"]
    with pytest.raises(ValueError, match="kind xid: its condition rules ask more than a severity"):
        BY_NAME["xid"].raised_at("fatal")


@pytest.mark.parametrize("row, said", [
    ({"reason": "R", "kind": "nvlink", "severity": "info"}, "kind 'nvlink' at severity 'info' raises none"),
    ({"reason": "R", "kind": "nvlinks", "severity": "error"}, "'nvlinks' is no finding kind"),
    ({"reason": "R", "kind": "xid", "severity": "fatal"}, "kind xid: its condition rules ask more than a severity"),
])
def test_a_telemetry_row_whose_kind_gives_no_condition_is_refused(row, said):
    from parsers.telemetry import kind_condition, with_condition  # noqa: PLC0415

    with pytest.raises(ValueError, match=re.escape(said)):
        kind_condition({"entity": "nvlink", "field": "f", "above": 0, **row})
    assert with_condition(row) == row  # left as it is: its check (validate_rules, the shipped table's load) says why
    assert with_condition({**row, "condition": "X"})["condition"] == "X"  # a row's own condition is kept


def test_a_telemetry_row_of_a_kind_and_no_severity_raises_its_kinds_at_the_verdicts_severity():
    """(h472) A row without a severity gives its problems warning (agent/samples.py); its kind's condition is the one at
    that severity (was: refused, 'at severity None raises none')."""
    from parsers.telemetry import DEFAULT_SEVERITY, with_condition  # noqa: PLC0415

    assert DEFAULT_SEVERITY == "warning"
    assert with_condition({"reason": "R", "kind": "nvlink"})["condition"] == "GPUDegraded"


def test_the_kind_tables_checks_are_real_errors_that_survive_python_o():
    """(h472) parsers/kinds.py checked its table with `assert`, gone under `python -O`: a kind declared twice, or a
    pod_holds_gpus kind without its two words, loaded silently (BY_NAME kept the last). Now a ValueError of one line
    naming the kind, and the shipped table passes under -O too."""
    import dataclasses  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from parsers.kinds import BY_NAME, TABLE, check_table  # noqa: PLC0415

    check_table(TABLE)
    with pytest.raises(ValueError, match=r"^parsers/kinds\.py: kind declared twice: nvlink$"):
        check_table(TABLE + (BY_NAME["nvlink"],))
    wordless = dataclasses.replace(BY_NAME["nvlink"], pod_holds_gpus=True)
    with pytest.raises(ValueError, match=r"^parsers/kinds\.py: pod_holds_gpus kind without .*: nvlink$") as raised:
        check_table((wordless,))
    assert "\n" not in str(raised.value)
    ran = subprocess.run([sys.executable, "-O", "-c", "import parsers.kinds"], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr


def test_every_import_time_table_check_survives_python_o():
    """(h474) The parsers' import-time table checks (parsers/classify.py, rules.py, catalog.py, unclassified.py,
    finding.py) and agent/kube/repair.py's and offline/report.py's were `assert`s, gone under `python -O`: a broken
    table loaded silently. Now real errors: under -O the shipped tables import, and a check still runs and refuses a
    broken entry."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    script = ("import sys, parsers, parsers.rules, parsers.classify, parsers.catalog, parsers.unclassified, "
              "parsers.finding, agent.kube.repair, offline.report\n"
              "assert False  # stripped under -O\n"
              "parsers.catalog.CONTAINMENT_RECOVERY = {('Yes', 'No'): 'reboot please'}\n"
              "try:\n    parsers.catalog.check_tables()\nexcept ValueError as exc:\n    print(exc)\n"
              "else:\n    sys.exit('no error under -O')\n")
    ran = subprocess.run([sys.executable, "-O", "-c", script], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == ("parsers/catalog.py: CONTAINMENT_RECOVERY names an action XID154_RECOVERY lacks: "
                          "reboot please\n")


@pytest.mark.parametrize("module, name, broken, says", [
    ("parsers.catalog", "HARDWARE_XIDS", lambda t: t | {166}, "HARDWARE_XIDS whose XID_UNSTATED_ACTION row is not the "
                                                              "hardware's: 166"),
    ("parsers.catalog", "_NVLINK5_DECODE_ORDER", lambda t: t[:2], "an NVLink5 decode outcome not in all of its rows, "
                                                                   "NVLINK5_DECODE_OUTCOME and _NVLINK5_DECODE_ORDER: IGNORE"),
    ("parsers.catalog", "NVSMI_RESET_STATUS", lambda t: {**t, "x": "drain"}, "NVSMI_RESET_STATUS names an action "
                                                                            "XID154_RECOVERY lacks: drain"),
    ("parsers.catalog", "CONTAINMENT_RECOVERY", lambda t: {**t, ("No", "No"): "drain and reset"},
     "CONTAINMENT_RECOVERY decisions with an action that lack CONTAINMENT_GATE ('Yes'): ('No', 'No')"),
    ("parsers.catalog", "CAUSE_XIDS", lambda t: t | {74}, "an Xid in two of XID_READS' tables (one read a code): 74"),
    ("parsers.unclassified", "DRIVER_DEVICES", lambda t: {**t, "nouveau": "gpu", "efa": "nik"},
     "DRIVER_DEVICES names a driver DRIVERS lacks or a device DEVICES lacks: efa: nik, nouveau: gpu"),
    ("parsers.rules", "EVENT_DETAIL_FIRST", lambda t: t | {"oom_x"}, "EVENT_DETAIL_FIRST events not in EVENT_AMENDS "
                                                                     "and EVENT_FILL_ALONE: oom_x"),
    ("parsers.rules", "EVENT_FILL_ALONE", lambda t: {**t, "zz": ("a",)}, "filled events (EVENT_FILLS, "
                                                                         "EVENT_FILL_ALONE) not in EVENT_AMENDS: zz"),
    ("parsers.rules", "EVENT_FILL_APPEND", lambda t: {**t, "dcgm_health": ("gpu",)},
     "EVENT_FILL_APPEND details not in the event's EVENT_FILL_ALONE: dcgm_health: gpu"),
    ("parsers.rules", "CUDA_ERRORS", lambda t: {**t, "out of memory!": "nvlink"},
     "CUDA_ERRORS statuses whose kind is no workload's deviceless one: out of memory!: nvlink"),
    ("parsers.rules", "EVENT_PAGES", lambda t: t | {"mce"}, 'events the "page" rows name and EVENT_PAGES differ in: mce'),
    ("parsers.rules", "EVENT_REPORTS", lambda t: frozenset(), '"begin" rows with a finding listing not one of '
                                                              'EVENT_REPORTS: '),
    ("parsers.classify", "CONTEXT_LEAD", lambda t: "NVRM: (", "CONTEXT's keywords share no literal lead ('NVRM: (')"),
    ("parsers.classify", "_TEMPLATE_FIELDS", lambda t: t[1:] + t[:1], "_TEMPLATE_FIELDS not in the Finding's order: "
                                                                      "kind, severity"),
    ("parsers.classify", "EVENT_FILLS", lambda t: {**t, "mce": ("kind",)}, "EVENT_FILLS / EVENT_FILL_SAME fields no "
                                                                          "template may take: mce: kind"),
    ("parsers.classify", "EVENT_FILL_SAME", lambda t: {**t, "hung": ("message",)},
     "EVENT_FILLS / EVENT_FILL_SAME fields no template may take: hung: message"),
])
def test_a_broken_table_entry_is_refused_in_one_line_naming_it(monkeypatch, module, name, broken, says):
    """(h474) Each import-time table check, on a copy of its table with one entry broken, raises a ValueError of one
    line that says which check and names the entry."""
    import importlib  # noqa: PLC0415

    mod = importlib.import_module(module)
    mod.check_tables()  # the shipped tables pass
    monkeypatch.setattr(mod, name, broken(getattr(mod, name)))
    with pytest.raises(ValueError) as raised:
        mod.check_tables()
    assert str(raised.value).startswith(f"{module.replace('.', '/')}.py: {says}") and "\n" not in str(raised.value)
