"""Unit tests per parser piece: PCI keys, envelopes, catalogs, rules."""

from __future__ import annotations

from datetime import datetime

import pytest

from parsers import Classifier, detect, join_cri, normalize_pci, parse_line, sxid_info, xid_info
from parsers.catalog import xid_catalog
from parsers.envelope import split


@pytest.mark.parametrize("raw,key", [
    ("00000000:5D:00.0", "0000:5d:00"), ("PCI:0000:5d:00", "0000:5d:00"), ("0000:5d:00", "0000:5d:00"),
    ("5d:00.0", "0000:5d:00"), ("0001:0A:1F.3", "0001:0a:1f"), ("nonsense", None), ("", None), (None, None),
])
def test_normalize_pci(raw, key):
    assert normalize_pci(raw) == key


@pytest.mark.parametrize("raw,key", [
    ("0000:08:00.1", "0000:08:00.1"), ("0000:00:1C.4", "0000:00:1c.4"), ("0000:08:00.0", "0000:08:00"),
    ("PCI:0000:5d:00", "0000:5d:00"), ("5d:00.7", "0000:5d:00.7"), ("nonsense", None),
])
def test_normalize_pci_of_a_function_device_keeps_its_function(raw, key):
    """A NIC's port, a root port: its function where not 0 (the GPU's key, without it, is the default above)."""
    assert normalize_pci(raw, True) == key


@pytest.mark.parametrize("message,pci,gpu", [
    # the GPU driver's own lines: wenku.csdn.net/answer/26sjj6j1cb (gpu-nic-pcie.yaml), open-gpu-kernel-modules #1229
    ("nvidia 0000:01:00.0: PCIe Bus Error: severity=Correctable, type=Data Link Layer, (Transmitter ID)",
     "0000:01:00", True),
    ("nvidia 0000:63:00.0: AER: can't recover (no error_detected callback)", "0000:63:00", True),
    # in a port's event keyed to the port (returnn #1500, pcie-aer.yaml; the stamp an envelope may leave): its own
    # device's, not the port's
    ("[  +0.000921] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)", "0000:03:00", True),
    ("[  +0.000921] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)", "0000:00:03", False),
    # the GPU's audio function (returnn #1500), a port naming a GPU (#1229), a NIC (lore 20250707103014, pcie-dpc-2)
    ("[  +0.000002] snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)", "0000:03:00.1",
     False),
    ("pcieport 0000:00:01.2: AER: Uncorrectable (Non-Fatal) error received from 0000:63:00.0", "0000:63:00", False),
    ("pcieport 0000:00:01.2: AER: Uncorrectable (Non-Fatal) error received from 0000:63:00.0", "0000:00:01.2", False),
    ("[ 81.065793] mlx5_core 0004:01:00.0: mlx5_pci_err_detected Device state = 1 health sensors: 1 pci_status: 1. "
     "Enter, pci channel state = 2", "0004:01:00", False),
    ("nvidia 0000:63:00.0: AER: can't recover (no error_detected callback)", None, False),
])
def test_a_gpu_drivers_line_names_a_gpu_only_for_its_own_device(message, pci, gpu):
    """parsers/pci.py gpu_driver_line: the GPU driver (GPU_DRIVERS) printed the line for the device at `pci`."""
    from parsers.pci import gpu_driver_line
    assert gpu_driver_line(message, pci, True) is gpu


def test_a_line_no_gpu_driver_printed_is_answered_without_the_prefix_regex(monkeypatch):
    """parsers/pci.py gpu_driver_line: a line that holds no GPU driver's name (an Xid's, the agent's flood, issue 24)
    is no GPU driver's line without a search of the dev_printk prefix regex (tried at every position of the line);
    a line that holds one is still searched.  (Line built from bench/inprocess.py's Xid 31, not a real log.)"""
    from parsers import pci

    searched = []

    class Counting:
        def search(self, text):
            searched.append(text)
            return _printed_by.search(text)

    _printed_by = pci._PRINTED_BY
    monkeypatch.setattr(pci, "_PRINTED_BY", Counting())
    xid = "NVRM: Xid (PCI:0000:39:00): 31, pid=12345, name=python3, Ch 00000008, MMU Fault 12345"
    assert pci.gpu_driver_line(xid, "0000:39:00", True) is False
    assert searched == []
    own = "nvidia 0000:63:00.0: AER: can't recover (no error_detected callback)"
    assert pci.gpu_driver_line(own, "0000:63:00", True) is True
    assert searched == [own]


@pytest.mark.parametrize("line,kind,pci", [
    # lore.kernel.org/qemu-devel/m7p7ubuyfhqxhcxqt4qs6rbi24pgxtnbq52maqpdom2da75g7e@laluifinsegp/ (mlx5-more.yaml)
    ("[  447.473192] mlx5_core 0000:0d:00.1: poll_health:801:(pid 0): device's health compromised - reached miss "
     "count", "nic_error", "0000:0d:00.1"),
    ("[  445.937186] mlx5_core 0000:0d:00.0: poll_health:801:(pid 0): device's health compromised - reached miss "
     "count", "nic_error", "0000:0d:00"),
    # pcie-link-retrain.yaml (a root port of Intel's PCH, function 6)
    ("[  987.073607] pcieport 0000:00:1c.6: retraining failed", "pcie_aer", "0000:00:1c.6"),
    # a GPU's key stays its device number: a real Xid (gpu-nic-pcie.yaml); an AER naming function 0 (constructed)
    ("NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.",
     "xid", "0000:10:1c"),
    ("pcieport 0000:16:02.0: AER: Uncorrected (Fatal) error received: 0000:18:00.0", "pcie_aer", "0000:18:00"),
])
def test_a_finding_keeps_the_function_of_a_device_that_is_one(line, kind, pci):
    f = parse_line(line)
    assert (f.kind, f.pci) == (kind, pci)


def test_nvml_and_kernel_forms_share_one_key():
    kernel = parse_line("NVRM: Xid (PCI:0000:5D:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    assert kernel.pci == normalize_pci("00000000:5D:00.0")


@pytest.mark.parametrize("line,name,message", [
    ("6,1234,4254197860,-;NVRM: hello", "kmsg", "NVRM: hello"),
    ("6,1234,4254197860,-,caller=T1;NVRM: hello", "kmsg", "NVRM: hello"),
    ("[ 4254.197860] NVRM: hello", "dmesg", "NVRM: hello"),
    # a kernel with CONFIG_PRINTK_CALLER: the caller after the stamp (the task, or the CPU in an interrupt),
    # util-linux's dmesg with a space before it (tests/fixtures/realworld/peers-2026h.yaml)
    ("[  163.471043][ T3458] NVRM: hello", "dmesg", "NVRM: hello"),
    ("[   44.569415] [   T1026] NVRM: hello", "dmesg", "NVRM: hello"),
    ("[   12.000001][    C3] NVRM: hello", "dmesg", "NVRM: hello"),
    ("<6>[    0.000000][    T0] NVRM: hello", "dmesg", "NVRM: hello"),
    ("Nov 22 18:29:55 host kernel: [ 12.500000][ T3458] NVRM: hello", "syslog", "NVRM: hello"),
    ("[Sun Nov 22 02:05:37 2026] NVRM: hello", "dmesg_t", "NVRM: hello"),
    ("[Mon Nov  2 02:05:37 2026] NVRM: hello", "dmesg_t", "NVRM: hello"),
    ("Nov 22 18:29:55 host kernel: NVRM: hello", "syslog", "NVRM: hello"),
    ("Nov 22 18:29:55 host kernel: [ 12.500000] NVRM: hello", "syslog", "NVRM: hello"),
    ("Nov 22 18:29:55.123456 host kernel: NVRM: hello", "syslog", "NVRM: hello"),
    ("2026-11-22T18:29:55+0000 host kernel: NVRM: hello", "syslog", "NVRM: hello"),
    ("<4>Nov  2 18:29:55 host kernel: NVRM: hello", "syslog", "NVRM: hello"),
    ("<13>1 2026-11-22T18:29:55.003Z host kernel - - - NVRM: hello", "rfc5424", "NVRM: hello"),
    ("2024-07-25T06:36:18.293456789Z stderr F NVRM: hello", "cri", "NVRM: hello"),
    ('{"log":"NVRM: hello\\n","stream":"stderr","time":"2024-07-25T06:36:18.293456789Z"}', "docker", "NVRM: hello"),
    ("kern  :warn  : 2025-01-21T04:41:44,283302+00:00 NVRM: hello", "dmesg_decode", "NVRM: hello"),  # gpud testdata
    # dmesg gathered by pdsh / clush, the node first (tests/fixtures/realworld/mlx5-more.yaml)
    ("b1360: [14280.445220] NVRM: hello", "dmesg", "NVRM: hello"),
    ("node-01.cluster: [Sun Nov 22 02:05:37 2026] NVRM: hello", "dmesg_t", "NVRM: hello"),
    # talosctl dmesg, with and without the node (tests/fixtures/realworld/host-2.yaml)
    ("109.200.197.196: kern:   alert: [2024-05-13T15:13:11.99477118Z]: XFS (sdb6): hello", "talos", "XFS (sdb6): hello"),
    ("kern: warning: [2025-05-18T15:40:20.653515542Z]: NVRM: hello", "talos", "NVRM: hello"),
    ("mc-pt1-pkp-srv-1a: kern:    info: [2025-09-13T20:46:45.810476849Z]: NVRM: hello", "talos", "NVRM: hello"),
    ("NVRM: hello", "plain", "NVRM: hello"),
    ('{"log": 5}', "plain", '{"log": 5}'),
    # syslog without its host (an export that leaves it out, a hand-redacted excerpt: forums.developer.nvidia.com
    # 364958, tests/fixtures/realworld/gpu-kernel-3.yaml): "kernel:" is the tag, "NVRM: " stays in the message
    ("Mar 27 17:40:36 kernel: NVRM: hello", "syslog", "NVRM: hello"),
    ("<4>Mar 27 17:40:36 kernel: [ 12.500000] NVRM: hello", "syslog", "NVRM: hello"),
    ("2026-11-22T18:29:55+0000 kernel: NVRM: hello", "syslog", "NVRM: hello"),
])
def test_envelopes(line, name, message):
    env = detect(line, year=2026)
    assert (env.name, env.message) == (name, message)


def test_a_syslog_line_without_its_host_is_the_kernels():
    env = detect("Mar 27 17:40:36 kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01", year=2026)
    assert env.extra == {"app": "kernel"}
    assert detect("Mar 27 17:40:36 node-1 kernel: NVRM: hello", year=2026).extra == {"host": "node-1", "app": "kernel"}
    f = parse_line("Mar 27 17:40:36 kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12")
    assert f is not None and f.kind == "driver_load"


@pytest.mark.parametrize("line,month,app", [
    ("kwi 15 07:56:59 testowy kernel: NVRM: Xid (PCI:0000:07:00): 38, pid=326, x", 4, "kernel"),  # pl (realworld)
    ("11月 15 14:15:47 leon-NF5468M6 nv-fabricmanager[4177]: request to query NVSwitch device", 11, "nv-fabricmanager"),
    ("Mär  2 07:56:59 host kernel: [  12.5] NVRM: hello", 3, "kernel"),  # de, the inner uptime kept
    ("juil. 15 07:56:59 host kernel: NVRM: hello", 7, "kernel"),  # fr
    ("ноя 15 07:56:59 host kernel: NVRM: hello", 11, "kernel"),  # ru
    ("<12>déc. 15 07:56:59 host kernel: NVRM: hello", 12, "userspace"),  # user.warning, whatever the tag says
])
def test_a_syslog_line_under_another_locale_is_still_syslog(line, month, app):
    """journalctl / rsyslog print the locale's month: the line is still the program's, with its time."""
    env = detect(line, year=2026)
    assert (env.name, env.timestamp.month, env.extra["app"]) == ("syslog", month, app)
    assert "12.5" not in env.message and (env.uptime == 12.5) == ("12.5" in line)


@pytest.mark.parametrize("line", ["Step 10 12:00:00 rank0 loss: 1.0", "Epoch 3 00:00:01 host trainer: done"])
def test_a_word_that_is_no_month_is_no_syslog_line(line):
    assert detect(line, year=2026).name == "plain"


def test_pdsh_dmesg_keeps_the_node_and_the_uptime():
    env = detect("b1360: [14280.445220] mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181): x")
    assert (env.uptime, env.extra["host"]) == (pytest.approx(14280.44522), "b1360")
    assert detect("NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x, GPU has fallen off the bus.").name == "plain"


def test_talos_envelope_says_whose_line_it_is():
    """talosctl dmesg keeps the record's facility: kern is the kernel's, any other a process's that wrote to kmsg."""
    kern = detect("10.200.70.91: kern:    info: [2025-06-04T04:51:57.572293906Z]: NVRM: hello")
    assert (kern.timestamp.isoformat(), kern.extra["host"], kern.extra.get("app")) == (
        "2025-06-04T04:51:57.572293+00:00", "10.200.70.91", None)
    user = detect("user: warning: [2026-01-12T20:27:31.913975631Z]: [talos] NVRM: Xid (PCI:0000:01:00): 79, fake")
    assert (user.name, user.extra["app"]) == ("talos", "userspace")
    assert detect("Nov 22 18:29:55 host kernel: kern: info: [x]: y", year=2026).name == "syslog"


def test_envelope_timestamps():
    assert detect("6,1,4254197860,-;x").uptime == pytest.approx(4254.19786)
    assert detect("[Sun Nov 22 02:05:37 2026] x").timestamp.isoformat() == "2026-11-22T02:05:37"
    assert detect("Nov 22 18:29:55 h k: x", year=2025).timestamp.year == 2025
    cri = detect("2024-07-25T06:36:18.293456789Z stderr F x")
    assert cri.timestamp.isoformat() == "2024-07-25T06:36:18.293456+00:00"
    assert detect("Nov 22 18:29:55 h kernel: [ 12.5] x").uptime == 12.5


# Verbatim from tests/fixtures/realworld/gpu-nic-pcie.yaml: zh_CN's `dmesg -T` (wenku.csdn.net/answer/26sjj6j1cb) and
# pt_BR's (the hot-plug test's), each with its time.
@pytest.mark.parametrize("line,when,message", [
    ("[一 8月 25 16:20:28 2025] nvidia 0000:01:00.0: [12] Timeout", "2025-08-25T16:20:28", "nvidia 0000:01:00.0: [12] Timeout"),
    ("[Ter Set 19 06:01:41 2017] pciehp 0000:02:05.0:pcie24: slot(6): Link Down event", "2017-09-19T06:01:41",
     "pciehp 0000:02:05.0:pcie24: slot(6): Link Down event"),
])
def test_dmesg_t_under_another_locale_is_read_with_its_time(line, when, message):
    env = detect(line)
    assert (env.name, env.timestamp.isoformat(), env.message) == ("dmesg_t", when, message)


def test_every_zh_cn_weekday_and_month_of_dmesg_t_is_read():
    """util-linux's `dmesg -T` prints strftime's "%a %b %e %H:%M:%S %Y": under zh_CN the weekday is one of 日 一 二 三 四
    五 六, the month 1月 .. 12月 (unpadded), the day space-padded. Lines built here in that form, every value of each."""
    for n, weekday in enumerate("日一二三四五六"):
        for month in range(1, 13):
            day = 1 + (n * 4 + month) % 28
            env = detect(f"[{weekday} {month}月 {day:2d} 16:20:28 2025] NVRM: hello")
            assert (env.name, env.timestamp, env.message) == (
                "dmesg_t", datetime(2025, month, day, 16, 20, 28), "NVRM: hello"), (weekday, month, day)
    # a word that is no month, a rank tag: no dmesg -T stamp, the line as it is
    for line in ("[一 13月 25 16:20:28 2025] NVRM: hello", "[rank3]:[E ProcessGroupNCCL.cpp:1] NVRM: hello"):
        assert (detect(line).name, detect(line).message) == ("plain", line)
    f = parse_line("[一 8月 25 16:20:28 2025] nvidia 0000:01:00.0: PCIe Bus Error: severity=Correctable, type=Data Link "
                   "Layer, (Transmitter ID)")
    assert (f.kind, f.pci, f.timestamp) == ("pcie_aer", "0000:01:00", datetime(2025, 8, 25, 16, 20, 28))


@pytest.mark.parametrize("line,program", [
    ("Nov 22 18:29:55 host kernel: NVRM: hello", "kernel"),  # the kernel's (imklog): no pid, no priority
    ("<4>Nov 22 18:29:55 host kernel: NVRM: hello", "kernel"),  # kern.warning
    ("<4>1 2026-11-22T18:29:55.003Z host kernel - - - NVRM: hello", "kernel"),
    ("Nov 22 18:29:55 host kernel[4242]: NVRM: hello", "userspace"),  # journald forwarding a process's message
    ("2026-11-22T18:29:55+0000 host kernel[1]: NVRM: hello", "userspace"),
    ("<12>Nov 22 18:29:55 host kernel: NVRM: hello", "userspace"),  # user.warning
    ("<13>1 2026-11-22T18:29:55.003Z host kernel - - - NVRM: hello", "userspace"),
    ("<4>1 2026-11-22T18:29:55.003Z host kernel 4242 - - NVRM: hello", "userspace"),  # a procid
    ("Nov 22 18:29:55 host myapp[4242]: NVRM: hello", "myapp"),
])
def test_a_syslog_line_is_the_kernels_only_as_far_as_it_proves_it(line, program):
    """Issue 31 (6): the kernel's syslog lines carry no pid and, where the file keeps the priority, facility 0."""
    assert detect(line, year=2026).extra["app"] == program


def test_join_cri():
    parts = ["2024-01-01T00:00:00Z stderr P abc", "2024-01-01T00:00:00Z stderr P def",
             "2024-01-01T00:00:00Z stderr F ghi"]
    assert join_cri(parts) == "2024-01-01T00:00:00Z stderr F abcdefghi"


def test_xid_catalog_is_complete_and_derived():
    cat = xid_catalog()
    assert len(cat) == 176  # NVIDIA's catalog (1-172), then the driver's nverror.h past it (catalog.DRIVER_XIDS)
    assert [cat[code].mnemonic for code in range(173, 177)] == [
        "C2C_FATAL_LINK_FAILURE", "ROBUST_CHANNEL_RESETCHANNEL_KILL_PROCESS_SILENT", "MEMORY_SUBSYSTEM_ERROR",
        "PCIE_CORRECTABLE_ERROR_FAULT"]
    # 175: the GSP timeout the driver marks the GPU for reset after (kernel_gsp.c), not the unknown Xid's error
    assert (cat[175].action, cat[175].severity, cat[175].attribution) == ("RESET_GPU", "fatal", "hardware")
    assert (cat[173].severity, cat[174].attribution, cat[176].severity) == ("fatal", "application", "warning")
    assert (cat[79].action, cat[79].severity, cat[79].attribution) == ("RESTART_BM", "fatal", "hardware")
    for code in (13, 31, 43, 45, 137):
        assert cat[code].attribution == "application"
        assert cat[code].severity != "fatal"
    assert cat[119].attribution == "driver"


def test_every_catalog_xid_without_an_action_is_decided_once():
    """NVIDIA's catalog gives no immediate action for 162-172: each has its row in catalog.XID_UNSTATED_ACTION, and
    the catalog reads as that row (not the unknown Xid's error / CONTACT_SUPPORT for all of them)."""
    import csv
    from pathlib import Path

    from parsers.catalog import XID_UNSTATED_ACTION
    path = Path(__file__).parents[2] / "parsers" / "data" / "xid-catalog.csv"
    with path.open(newline="") as fh:
        unstated = {int(row["code"]) for row in csv.DictReader(fh) if not row["immediate_action"]}
    assert unstated == set(XID_UNSTATED_ACTION) == set(range(162, 173))
    cat = xid_catalog()
    for code, decided in XID_UNSTATED_ACTION.items():
        assert (cat[code].action, cat[code].severity, cat[code].attribution) == decided, code
    assert [cat[code].severity for code in (162, 163, 164, 165, 167, 169, 171, 172)] == [
        "info", "warning", "warning", "error", "fatal", "fatal", "info", "info"]


def test_every_xid_line_gets_its_catalog_rows_action():
    """A line of each Xid the driver can print (NVIDIA's catalog 1-172 and the driver's 173-176) gives the finding
    its catalog row says: the action (the CSV's immediate action where it states one), severity and attribution. The
    line is CONSTRUCTED (nvErrorLog_va's "Xid (PCI:..): <code>, pid=.., name=.., <text>", a text no refinement reads)."""
    import csv
    from pathlib import Path
    path = Path(__file__).parents[2] / "parsers" / "data" / "xid-catalog.csv"
    with path.open(newline="") as fh:
        stated = {int(row["code"]): row["immediate_action"] for row in csv.DictReader(fh)}
    for code, info in xid_catalog().items():
        f = Classifier().read(f"NVRM: Xid (PCI:0000:1b:00): {code}, pid=1234, name=python3, Some text")[0]
        assert (f.kind, f.xid, f.pci) == ("xid", code, "0000:1b:00"), code
        assert (f.action, f.severity, f.attribution) == (info.action, info.severity, info.attribution), code
        assert f.action == (stated.get(code) or info.action), code


@pytest.mark.parametrize("word", ["None", "none"])
def test_nvidia_smi_recovery_action_none_is_silent(word):
    assert parse_line(f"    GPU Recovery Action                   : {word}") is None


def test_nvidia_smi_recovery_action_asks_what_xid_154_naming_it_asks():
    """nvidia-smi -q's "GPU Recovery Action" words (catalog.NVSMI_RECOVERY_ACTION): each pending action is the GPU's
    gpu_reset_required at XID154_RECOVERY's severity and action for the same action; a word not in the table (a
    newer action's) is no finding. CONSTRUCTED lines but Reset's (the field's form, realworld nvsmi-recovery-2026r)."""
    from parsers.catalog import NVSMI_RECOVERY_ACTION, XID154_RECOVERY
    for word, key in NVSMI_RECOVERY_ACTION.items():
        for shown in (word, word.title(), word.replace("p2p", "P2P").capitalize()):
            f = parse_line(f"    GPU Recovery Action                   : {shown}")
            assert f is not None and f.kind == "gpu_reset_required", shown
            assert (f.severity, f.action, f.details["recovery_action"]) == (*XID154_RECOVERY[key], shown)
    assert parse_line("    GPU Recovery Action                   : Reset Bus Soon") is None
    assert parse_line("    GPU Recovery Action                   : N/A") is None


@pytest.mark.parametrize("field, key", [("Reset Required", "gpu reset required"),
                                        ("Drain and Reset Recommended", "drain and reset")])
def test_nvidia_smi_5xx_reset_status_yes_asks_what_xid_154_naming_it_asks(field, key):
    """nvidia-smi -q before its "GPU Recovery Action" field (5xx, under "GPU Reset Status"): a field saying Yes is the
    same finding as the action it names (catalog.NVSMI_RESET_STATUS); No, the 570+ "Requested functionality has been
    deprecated", and the words inside other text are silent. CONSTRUCTED lines: nvidia-smi -q's field layout (name
    padded to its column, " : ", the value), as 535-565 print it."""
    from parsers.catalog import XID154_RECOVERY
    f = parse_line(f"        {field:<34}: Yes")
    assert f is not None and (f.kind, f.severity, f.action, f.details["reset_status"]) == (
        "gpu_reset_required", *XID154_RECOVERY[key], field)
    for value in ("No", "Requested functionality has been deprecated"):
        assert parse_line(f"        {field:<34}: {value}") is None
    assert parse_line(f"the log said {field}: Yes") is None


# CONSTRUCTED lines (no public log of them found): the Xid line's form (nvErrorLog_va's "Xid (PCI:..): <code>, pid=..,
# name=.., <text>") with the two texts kernel_gsp_ecc_gb100.c (NVIDIA/open-gpu-kernel-modules 595.45.04,
# kgspEccServiceUncorrError_GB100) logs back to back for one GSP ECC error; 171's text is the catalog's Description.
def _xid_line(gpu: str, code: int, text: str) -> str:
    return f"NVRM: Xid (PCI:0000:{gpu}): {code}, pid='<unknown>', name=<unknown>, {text}"


XID48 = "GSP-RISCV uncorrectable ECC error"
XID172 = "GSP-RISCV, Uncorrectable SRAM error"
XID171 = "Uncorrectable DRAM error"


@pytest.mark.parametrize("code, text, memory", [(172, XID172, "SRAM"), (171, XID171, "DRAM")])
def test_xid_48s_detail_on_the_next_line_is_the_48s_finding(code, text, memory):
    """Xid 171 / 172 right after its GPU's Xid 48 is that error's detail: one event, the 48's finding amended with
    the memory it was in (details `memory`, `detail_xid`), no finding of the detail's own."""
    c = Classifier()
    f, _ = c.read(_xid_line("1b:00", 48, XID48))
    assert (f.xid, f.severity) == (48, "fatal") and "memory" not in f.details
    own, amended = c.read(_xid_line("1b:00", code, text))
    assert own is None and [(a.xid, a.pci, a.details["memory"], a.details["detail_xid"], a.details["amends"])
                            for a in amended] == [(48, "0000:1b:00", memory, code, "memory")]


@pytest.mark.parametrize("lines", [
    [(48, "1b:00", XID48), (172, "2c:00", XID172)],  # another GPU's
    [(48, "1b:00", XID48), (31, "5d:00", "MMU Fault"), (172, "1b:00", XID172)],  # not adjacent
    [(172, "1b:00", XID172)],  # no 48 before it
    [(172, "1b:00", XID172), (48, "2c:00", XID48)],  # before another GPU's 48
    [(172, "1b:00", XID172), (31, "5d:00", "MMU Fault"), (48, "1b:00", XID48)],  # before its 48, not adjacent
])
def test_xid_48s_detail_apart_from_its_48_is_a_finding_of_its_own(lines):
    """A 171 / 172 not on the line after its GPU's Xid 48 joins nothing: its own finding (info, its memory said)."""
    c = Classifier()
    reads = [c.read(_xid_line(gpu, code, text)) for code, gpu, text in lines]
    assert not any(amended for _, amended in reads)
    own = reads[[code for code, _, _ in lines].index(172)][0]
    assert (own.xid, own.severity, own.details["memory"]) == (172, "info", "SRAM")


@pytest.mark.parametrize("code, text, memory", [(172, XID172, "SRAM"), (171, XID171, "DRAM")])
def test_xid_48s_detail_on_the_line_before_it_is_the_48s_finding(code, text, memory):
    """Xid 171 / 172 right before its GPU's Xid 48 (the GSP firmware's order for an SM ICACHE SRAM error,
    rules.EVENT_DETAIL_FIRST) is one event with it: the detail's info finding, then the 48's as its amendment
    (severity), with the memory the detail named; a second Xid 48 on the next line is an event of its own."""
    c = Classifier()
    own, _ = c.read(_xid_line("1b:00", code, text))
    assert (own.xid, own.severity, own.details["memory"]) == (code, "info", memory)
    f, amended = c.read(_xid_line("1b:00", 48, XID48))
    assert not amended
    assert (f.xid, f.severity, f.pci, f.details["amends"], f.details["memory"], f.details.get("detail_xid")) == (
        48, "fatal", "0000:1b:00", "severity", memory, own.details.get("detail_xid"))
    again, amended = c.read(_xid_line("1b:00", 48, XID48))
    assert not amended and (again.xid, again.severity) == (48, "fatal") and "amends" not in again.details


def test_repeat_workflow_xids_are_the_catalogs():
    """The Xids a repeat on one GPU escalates (the kind table's `repeated` row, escalation.py's rows) are those
    whose catalog row names NVIDIA's repeat workflow, WORKFLOW_XID_<code>: one table, read from the catalog."""
    from parsers import escalation, kinds
    from parsers.catalog import REPEAT_WORKFLOW_XIDS
    named = {c for c, i in xid_catalog().items()
             if i.investigatory.startswith("WORKFLOW_XID_") and i.attribution == "application"}
    assert REPEAT_WORKFLOW_XIDS == named == {13, 31}
    assert sorted(kinds.BY_NAME["xid"].repeated.match["xid"]) == sorted(REPEAT_WORKFLOW_XIDS)
    assert {x for r in escalation.ESCALATIONS for x in r.xids} == REPEAT_WORKFLOW_XIDS


def test_unknown_xid_still_reported():
    info = xid_info(9999)
    assert (info.action, info.attribution) == ("CONTACT_SUPPORT", "unknown")
    f = parse_line("NVRM: Xid (PCI:0000:01:00): 9999, pid=1, name=x, something new")
    assert (f.kind, f.xid, f.action, f.attribution) == ("xid", 9999, "CONTACT_SUPPORT", "unknown")


def test_sxid_catalog_and_line_fatality():
    assert sxid_info(24007).fatal
    assert not sxid_info(12028).fatal
    f = parse_line("nvidia-nvswitch2: SXid (PCI:0000:a0:00.0): 24007, Non-fatal, Link 3 something")
    assert f.severity == "warning"  # the line says non-fatal: the line wins


def test_an_sxid_the_guide_says_to_ignore_is_info():
    # 22013 (Minion Link DLREQ interrupt), "This SXid can be safely ignored.": logged per link as the NVSwitch links
    # train at boot (healthy/lambda-hgx-nvswitch-link-training-sxid22013.log); counted, no Warning Event
    assert sxid_info(22013).ignorable and sxid_info(22013).severity() == "info"
    assert not sxid_info(12028).ignorable and sxid_info(12028).severity() == "warning"
    assert sxid_info(24007).severity() == "fatal"
    line = "nvidia-nvswitch3: SXid (PCI:0000:0a:00.0): 22013, {}, Link 55 Minion Link DLREQ interrupt"
    assert (parse_line(line.format("Non-fatal")).severity, parse_line(line.format("Non-fatal")).action) == (
        "info", "IGNORE")
    assert parse_line(line.format("Fatal")).severity == "fatal"  # the line's own word still wins
    data = ("nvidia-nvswitch3: SXid (PCI:0000:0a:00.0): 22013, Data {0x00000037, 0x00000037, 0x00000000, "
            "0x00000037, 0x80005302, 0x00000000, 0x00000000, 0x00000000, 0x00000000}")
    assert parse_line(data).severity == "info"  # a report without its first line: the catalog's
    fm = ("[Feb 27 2025 15:10:02] [ERROR] [tid 12727] detected NVSwitch non-fatal error 22013 on fid 0 on NVSwitch pci "
          "bus id 00000000:86:00.0 physical id 3 port 61")
    assert parse_line(fm).severity == "info"  # Fabric Manager's form (its real 12028 line, the code CONSTRUCTED)
    assert parse_line(fm.replace("22013", "12028")).severity == "warning"


@pytest.mark.parametrize("line,kind,fields", [
    ("NVRM: Xid (0000:01:00): 31, Ch 0000000b, engmask 00000101", "xid", {"xid": 31, "pci": "0000:01:00"}),
    ("NVRM: Xid (PCI:0000:b1:00): 31, pid=2573, name=python3, Ch 00000008", "xid",
     {"xid": 31, "pid": 2573, "process": "python3", "attribution": "application"}),
    ("NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", "xid",
     {"xid": 79, "pid": None, "process": None, "severity": "fatal"}),
    ("NVRM: Xid (PCI:0000:c1:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)",
     "xid", {"severity": "fatal", "action": "RESTART_BM"}),
    ("NVRM: Xid (PCI:0000:c1:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) to 0x0 (None)",
     "xid", {"severity": "info"}),
    # the action by its code where the driver renamed it: 0x1 "PF FLR" on 595+ (open-gpu-kernel-modules #1125;
    # gb200-2026c.yaml) is 575/580's "GPU Reset Required", NVML's GPU_RESET
    ("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (PF FLR)",
     "xid", {"severity": "fatal", "action": "RESET_GPU",
             "details": {"mnemonic": "GPU_RECOVERY_ACTION_CHANGED", "recovery_action": "PF FLR"}}),
    # 595.45's sixth action, printed by gpu.c's format ("GPU recovery action changed from 0x%x (%s) to 0x%x (%s)",
    # _gpuRecoveryActionName): the IMEX domain's recovery, not the GPU's: a warning, as Drain P2P (catalog.py)
    ("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x5 (Recover IMEX Domain)",
     "xid", {"severity": "warning", "action": "RECOVER_IMEX_DOMAIN"}),
    # NVML's 6 and 7 (BUS_RESET, SYSTEM_REBOOT; nvidia-ml-py 13.615): CONSTRUCTED in the same format, no driver of
    # the open source prints them yet, so the names a driver would print are unknown ("?"): read by their code
    ("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x6 (?)",
     "xid", {"severity": "fatal", "action": "RESET_GPU"}),
    ("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x7 (?)",
     "xid", {"severity": "fatal", "action": "RESTART_BM"}),
    # error containment's decision ends Xid 94/95 lines ("RST: %s, D-RST: %s", kern_gpu_ga100.c
    # _gpuGenerateErrorLog_GA100: bGpuResetReqd, bGpuDrainAndResetReqd). Real: "No, No" keeps the catalog's row
    # (xid.yaml, sxid-2026d.yaml); the two lines after it are CONSTRUCTED from that format (no public one found): a
    # contained error whose GPU needs a reset, or a drain and reset, asks what Xid 154 naming that action asks.
    ("NVRM: Xid (PCI:0000:00:08): 94, pid='<unknown>', name=<unknown>, Contained: SM (0x1). RST: No, D-RST: No",
     "xid", {"severity": "error", "action": "RESTART_APP"}),
    ("NVRM: Xid (PCI:0000:00:08): 94, pid=7062, Contained: SM (0x1). RST: Yes, D-RST: No",
     "xid", {"severity": "fatal", "action": "RESET_GPU", "details": {"mnemonic": "ROBUST_CHANNEL_CONTAINED_ERROR",
                                                                     "recovery_action": "gpu reset required"}}),
    ("NVRM: Xid (PCI:0000:00:08): 94, pid=7062, Contained: SM (0x1). RST: No, D-RST: Yes",
     "xid", {"severity": "fatal", "action": "RESET_GPU"}),
    ("NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.", "fallen_off_bus", {"pci": "0000:5d:00"}),
    ("nvidia-nvswitch3: SXid (PCI:0000:a1:00.0): 20034, Fatal, Link 30 LTSSM Fault Up", "sxid",
     {"sxid": 20034, "severity": "fatal", "attribution": "fabric"}),
    ("pcieport 0000:00:03.0: AER: Corrected error received: 0000:03:00.0", "pcie_aer",
     {"pci": "0000:03:00", "severity": "warning"}),
    ("pcieport 0000:16:02.0: AER: Uncorrected (Fatal) error received: 0000:18:00.0", "pcie_aer",
     {"severity": "fatal"}),
    ("mlx5_core 0000:0c:00.0 ibp12s0: Link down", "ib_link", {"severity": "error", "attribution": "fabric"}),
    ("mlx5_core 0000:0c:00.0 ibp12s0: Link up", "ib_link", {"severity": "info"}),
    ("INFO: task python3:128733 blocked for more than 122 seconds.", "hung_task", {"pid": 128733}),
    # the driver's load banner, proprietary and open (gpu-kernel-3.yaml: open-gpu-kernel-modules #829)
    ("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01  Sun May 12 19:39:15 UTC 2024", "driver_load",
     {"details": {"arch": "x86_64", "version": "535.183.01"}}),
    ("NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  575.51.02  Release Build  (root@Kyrios)  ",
     "driver_load", {"details": {"open": "Open", "arch": "x86_64", "version": "575.51.02"}}),
    # a GSP RPC failing with NV_ERR_RESET_REQUIRED (0x62) or NV_ERR_GPU_IS_LOST (0xf); another status is no rule's
    ("NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; hObject=0x5c00005b; "
     "hClass=0x0000c86f; paramsSize=0x00000170; paramsStatus=0x00000062; status=0x00000062 ", "gpu_reset_required", {}),
    ("NVRM: rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1d1a616; hObject=0x5c00005b; paramsStatus=0x00000000; "
     "status=0x0000000f", "fallen_off_bus", {}),
    ("NVRM: rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1d1a616; hObject=0x5c00005b; paramsStatus=0x00000000; "
     "status=0x00000065", "unclassified", {}),
    ("nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)", "peermem_error",
     {"details": {"device": "nvidia_peermem", "symbol": "ib_register_peer_memory_client"}}),
    ("[   60.063350] nvidia 0000:2c:00.0: probe with driver nvidia failed with error -1", "gpu_reset_required",
     {"pci": "0000:2c:00", "attribution": "driver", "action": "INVESTIGATE"}),
    # shapes from the real-world corpus (tests/fixtures/realworld/), sources there
    ("NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, Contained: CE User Channel (0x9). RST: No, D-RST: No",
     "xid", {"xid": 94, "pci": "0000:01:00", "pid": 7194}),
    ("kernel: NVRM: Xid (PCI:...): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 11 (...)", "xid", {"xid": 145, "pci": None}),
    # "Link -1": the unit's own error, no one link (gpud #1174's kmsg input; xid.yaml): its unit and verdict still read
    ("NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000 "
     "0x00000000 0x00000000)", "xid", {"xid": 149, "details": {"mnemonic": "NVLINK_NETIR_ERROR", "unit": "NETIR",
                                                              "verdict": "fatal", "intrinfo": "0x000fe406",
                                                              "error_status": "0x00000000"}}),
    # the unit and the verdict padded to fixed widths (NVSentinel's csv_test.go; gb200-2026c.yaml): still read
    ("NVRM: Xid (PCI:0018:01:00): 149, NETIR_LINK_EVT  Fatal   XC0 i0 Link 09 (0x025525c6 0x00000000 0x00000000 "
     "0x00000000 0x00000000 0x00000000)", "xid", {"xid": 149, "severity": "fatal",
                                                  "details": {"mnemonic": "NVLINK_NETIR_ERROR", "unit": "NETIR_LINK_EVT",
                                                              "verdict": "fatal", "link": 9, "intrinfo": "0x025525c6",
                                                              "error_status": "0x00000000"}}),
    ("fastmoe: Test NCCL failure common.cu:777 'unhandled system error'", "nccl_error", {"severity": "error"}),
    ("gpu: Test CUDA failure common.cu:1030 'system not yet initialized'", "driver_unusable",
     {"severity": "error", "attribution": "driver"}),
    ("RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution", "cuda_error",
     {"severity": "fatal", "attribution": "hardware"}),
    ("RIP: 0010:esw_port_metadata_get+0x19/0x30 [mlx5_core]", "kernel_oops", {"attribution": "driver"}),
    # an adapter's async event that reports a failure is the fabric's (the ones that report none are no finding:
    # test_ib_async_events_without_failure_are_no_finding)
    ("h:1:2 [0] NCCL WARN NET/IB : Got async event : path migration request error", "ib_completion_error",
     {"severity": "error", "attribution": "fabric", "details": {"event": "path migration request error",
                                                                "ibv_event": "IBV_EVENT_PATH_MIG_ERR"}}),
    # a register access the firmware refused on a function the fabric manager restricts (node_exporter #3434): counted,
    # no fault; a command failure of another status, or one whose status is cut, stays an error
    ("mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805) op_mod(0x1) failed, status bad "
     "operation(0x2), syndrome (0x9a6171), err(-22)", "nic_error",
     {"severity": "info", "action": "NONE", "pci": "0000:05:00", "details": {"command": "ACCESS_REG(0x805)", "status": "bad operation(0x2)"}}),
    ("mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805) op_mod(0x1) failed, status bad "
     "parameter(0x3), syndrome (0x9a6171), err(-22)", "nic_error", {"severity": "error"}),
    ("mlx5_core 0000:d2:00.0: mlx5_cmd_out_err:838:(pid 268269): ACCESS_REG(0x805) op_mod(0x1) failed", "nic_error",
     {"severity": "error"}),
    # aws-ofi-nccl's start with no provider (no EFA) is silent (test_workload_look_alikes_stay_silent); another
    # failure of it stays its warning; NCCL's own "no NET plugin at all" fails the communicator's init (2.27+
    # src/plugin/net.cc returns ncclInvalidUsage: the job's configuration), an error (jobs-2026d.yaml, NCCL's guide)
    ("h:1:2 [0] nccl_net_ofi_rdma_init:7737 NCCL WARN NET/OFI OFI fi_getinfo() call failed: Invalid argument",
     "nccl_error", {"severity": "warning"}),
    ("h:1:2 [0] plugin/net.cc:306 NCCL WARN Failed to initialize any NET plugin", "nccl_error",
     {"severity": "error", "attribution": "application"}),
    ("Out of memory: Killed process 4410 (python) total-vm:12000kB", "oom_kill", {"pid": 4410, "process": "python"}),
    ("[Rank 22] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=22631, OpType=ALLREDUCE, NumelIn=1,"
     " NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.", "nccl_timeout",
     {"rank": 22}),
    ("ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.",
     "nccl_remote_error", {}),
    ("NET/IB : Got completion from peer 10.42.0.2<47534> with error 5, opcode 48, len 32764, vendor err 244",
     "ib_completion_error", {"peer": "10.42.0.2"}),
    ("ncclUnhandledCudaError: Call to CUDA function failed.", "nccl_error", {}),
    ("RuntimeError: CUDA error: misaligned address", "cuda_error", {"attribution": "application"}),
    ("RuntimeError: CUDA error: some brand new failure", "cuda_error", {"attribution": "unknown"}),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)",
     "cuda_oom", {}),
])
def test_rules(line, kind, fields):
    f = parse_line(line)
    assert f is not None and f.kind == kind
    for key, value in fields.items():
        assert getattr(f, key) == value, key


@pytest.mark.parametrize("line,status", [
    # https://github.com/areal-project/AReaL/issues/3
    ("NET/IB : Got completion from peer 10.10.11.9<51354> with status=5 opcode=0 len=0 vendor err 249 (Recv) "
     "localGid ::ffff:10.10.15.1 remoteGids::ffff:10.10.14.4", "IBV_WC_WR_FLUSH_ERR"),
    # https://github.com/pytorch/pytorch/issues/81628 (NCCL before 2.19: "error 12")
    ("NCCL WARN NET/IB : Got completion from peer 192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129",
     "IBV_WC_RETRY_EXC_ERR"),
    ("NET/IB : Got completion with error IBV_WC_WR_FLUSH_ERR(5)", "IBV_WC_WR_FLUSH_ERR"),
    # https://github.com/NVIDIA/nccl/issues/928
    ("NCCL WARN NET/IB : Got completion from peer fe80::966d:ae03:9c:f5f8%ib0<39391> with error 4, opcode 32639, len "
     "32639, vendor err 81 (Send)", "IBV_WC_LOC_PROT_ERR"),
])
def test_ib_completion_status_named(line, status):
    """NET/IB's work-completion status by its libibverbs name, whether the line prints the number or the name."""
    f = parse_line(line)
    assert (f.kind, f.details["wc_status"]) == ("ib_completion_error", status)


@pytest.mark.parametrize("line,netdev,event", [
    # NVIDIA/nccl #905 (NCCL before 2.19)
    ("NCCL WARN NET/IB : Got async event : port error", None, "port error"),
    # llm-d/llm-d #191 (2.19+: the device and port named)
    ("[2025-09-17 15:16:23] ms-pd-llm-d-modelservice-prefill-2:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : "
     "mlx5_32:1 Got async error event: port error", "mlx5_32", "port error"),
    # 2.19+'s fatal events: a line made from NCCL's net_ib.cc format ("%s:%d async fatal event on QP (%p): %s")
    ("NCCL WARN NET/IB : mlx5_0:1 async fatal event on QP (0x55d0c8e0): local work queue catastrophic error", "mlx5_0",
     "local work queue catastrophic error"),
    # 2.23.4+'s device-wide fatal event names no resource ("%s:%d async fatal event: %s"; was: a warning nccl_error)
    ("NCCL WARN NET/IB : mlx5_0:1 async fatal event: local catastrophic error", "mlx5_0", "local catastrophic error"),
    # 2.30.7+ prints the resource's ids after its pointer (src/transport/net_ib/common.cc's formats)
    ("NCCL WARN NET/IB : mlx5_0:1 async fatal event on QP (0x55d0c8e0) qpn=4660 handle=3 send_cq=1 recv_cq=2 state=6 "
     "sq_psn=0 rq_psn=0: local access violation work queue error", "mlx5_0", "local access violation work queue error"),
    ("NCCL WARN NET/IB : mlx5_0:1 async fatal event on CQ (0x55d0c8e0) handle=1 cqe=4096: CQ error", "mlx5_0",
     "CQ error"),
    ("NCCL WARN NET/IB : mlx5_0:1 async fatal event on SRQ, unused for now (0x55d0c8e0): SRQ catastrophic error",
     "mlx5_0", "SRQ catastrophic error"),
    # CONSTRUCTED from NCCL 2.28.7's format (NVIDIA/nccl ae7aed19, src/transport/net_ib.cc:253, later
    # net_ib/common.cc: "NET/IB : %s:%d Got non-fatal async event: %s(%d)"): the port going down, its ibv_event_type
    # number after the words (was: the NCCL WARN row's warning)
    ("host-a:123:456 [0] transport/net_ib.cc:253 NCCL WARN NET/IB : mlx5_3:1 Got non-fatal async event: port error(10)",
     "mlx5_3", "port error"),
    ("host-a:123:456 [0] transport/net_ib/common.cc:88 NCCL WARN NET/IB : mlx5_1:1 Got non-fatal async event: path "
     "migration request error(7)", "mlx5_1", "path migration request error"),
])
def test_ib_async_events(line, netdev, event):
    f = parse_line(line)
    assert f.kind == "ib_completion_error" and f.details.get("netdev") == netdev and f.details["event"] == event


# Every era's wording of the adapter's async events that report no failure (parsers/rules.py IB_ASYNC_EVENTS): REAL
# where an address is beside the line, else CONSTRUCTED from that release's NVIDIA/nccl format (the address of the
# format beside it).
NO_FAILURE_EVENTS = [
    # REAL (deepspeedai/DeepSpeedExamples #310, NCCL before 2.19: "NET/IB : Got async event : %s")
    "gpu1:5021:5386 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : client reregistration",
    # REAL (llm-d/llm-d #191, 2.23.4-2.28.6: "NET/IB : %s:%d Got async error event: %s")
    "[2025-09-17 15:16:31] ms-pd-llm-d-modelservice-prefill-2:311:405 [0] transport/net_ib.cc:199 NCCL WARN NET/IB : "
    "mlx5_32:1 Got async error event: port active",
    # CONSTRUCTED from 2.19-2.22's "NET/IB : %s:%d Got async event : %s" (v2.21.5-1 src/transport/net_ib.cc:101)
    "h:1:2 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_3:1 Got async event : GID table change",
    "h:1:2 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_3:1 Got async event : SM change",
    # CONSTRUCTED from 2.23.4-2.28.6's "NET/IB : %s:%d Got async error event: %s" (v2.23.4-1 net_ib.cc:171)
    "h:1:2 [0] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_3:1 Got async error event: LID change",
    "h:1:2 [0] transport/net_ib.cc:171 NCCL WARN NET/IB : mlx5_3:1 Got async error event: P_Key change",
    # CONSTRUCTED from 2.28.7+'s "NET/IB : %s:%d Got non-fatal async event: %s(%d)" (NVIDIA/nccl ae7aed19, later
    # src/transport/net_ib/common.cc): the words, then the ibv_event_type number
    "host-a:123:456 [0] transport/net_ib.cc:253 NCCL WARN NET/IB : mlx5_1:1 Got non-fatal async event: port active(9)",
    "host-a:123:456 [0] transport/net_ib.cc:253 NCCL WARN NET/IB : mlx5_1:1 Got non-fatal async event: client "
    "reregistration(17)",
    "host-a:123:456 [0] transport/net_ib.cc:253 NCCL WARN NET/IB : mlx5_1:1 Got non-fatal async event: SM change(13)",
    "host-a:123:456 [0] transport/net_ib.cc:253 NCCL WARN NET/IB : mlx5_1:1 Got non-fatal async event: LID change(11)",
    # CONSTRUCTED from 2.28.3+'s own words for IBV_EVENT_GID_CHANGE ("NET/IB : %s:%d GID table changed", NVIDIA/nccl
    # f1308997) and 2.23.4+'s default case ("NET/IB : %s:%d unknown event type (%d)", v2.23.4-1 net_ib.cc:176), where
    # the GID change (18) fell until 2.28.3 (NVIDIA/nccl #1819) and the link speed change (20) until NCCL named it
    "h:1:2 [0] transport/net_ib/common.cc:153 NCCL WARN NET/IB : mlx5_3:1 GID table changed",
    "h:1:2 [0] transport/net_ib.cc:176 NCCL WARN NET/IB : mlx5_3:1 unknown event type (18)",
    "h:1:2 [0] transport/net_ib.cc:176 NCCL WARN NET/IB : mlx5_3:1 unknown event type (20)",
]


@pytest.mark.parametrize("line", NO_FAILURE_EVENTS)
def test_ib_async_events_without_failure_are_no_finding(line):
    """An adapter's async event that reports no failure (a port back up, the subnet manager re-registering it, an
    address or LID changed: libibverbs' informational events, NCCL 2.28.7+'s "non-fatal") is no finding in any era's
    wording: no Pod Event per rank, no fabric verdict (was: a warning nccl_error on each rank, deepspeedai/
    DeepSpeedExamples #310). The failing events of the same wordings are the fabric's (test_ib_async_events)."""
    assert parse_line(line) is None


def test_an_unknown_ib_event_of_a_failing_number_stays_nccls_warning():
    """CONSTRUCTED (2.23.4+'s default case, as above): 19 is IBV_EVENT_WQ_FATAL, a failure NCCL has no case for: its
    warning stays, it is no informational event."""
    f = parse_line("h:1:2 [0] transport/net_ib.cc:176 NCCL WARN NET/IB : mlx5_3:1 unknown event type (19)")
    assert (f.kind, f.severity) == ("nccl_error", "warning")


def test_the_ib_async_event_table_is_libibverbs_enum():
    """IB_ASYNC_EVENTS is enum ibv_event_type in its order (rdma-core libibverbs/verbs.h): the numbers NCCL 2.28.7+
    prints beside the words (NVIDIA/nccl's own "port error(10)") are its positions; its words ibv_event_type_str()'s."""
    from parsers.rules import IB_ASYNC_EVENTS
    number = {name: n for n, (name, _, _) in enumerate(IB_ASYNC_EVENTS)}
    assert (number["IBV_EVENT_CQ_ERR"], number["IBV_EVENT_PORT_ACTIVE"], number["IBV_EVENT_PORT_ERR"],
            number["IBV_EVENT_SM_CHANGE"], number["IBV_EVENT_CLIENT_REREGISTER"], number["IBV_EVENT_GID_CHANGE"],
            number["IBV_EVENT_DEVICE_SPEED_CHANGE"]) == (0, 9, 10, 13, 17, 18, 20)
    failing = {name for name, _, failure in IB_ASYNC_EVENTS if failure}
    assert failing == {"IBV_EVENT_CQ_ERR", "IBV_EVENT_QP_FATAL", "IBV_EVENT_QP_REQ_ERR", "IBV_EVENT_QP_ACCESS_ERR",
                       "IBV_EVENT_PATH_MIG_ERR", "IBV_EVENT_DEVICE_FATAL", "IBV_EVENT_PORT_ERR", "IBV_EVENT_SRQ_ERR",
                       "IBV_EVENT_WQ_FATAL"}
    f = parse_line("host-a:123:456 [0] transport/net_ib.cc:253 NCCL WARN NET/IB : mlx5_3:1 Got non-fatal async event: "
                   "port error(10)")
    assert (f.kind, f.details["ibv_event"], f.details["event_type"]) == ("ib_completion_error", "IBV_EVENT_PORT_ERR",
                                                                         10)


def test_the_ib_fatal_count_restates_the_async_event():
    """NVIDIA/nccl #1905 (2.21.5): "communicator encountered a fatal error (detected in ncclIbTest)" is the
    communicator's thread seeing the fatal event the async thread reported on its own line (which names the adapter):
    no finding of its own (was: a warning nccl_error, a second event of the one failure)."""
    assert parse_line("h100-28:238:1313 [0] transport/net_ib.cc:139 NCCL WARN communicator encountered a fatal error "
                      "(detected in ncclIbTest)") is None


# REAL (NVIDIA/nccl #2397, NCCL 2.29+, 2026: ranks a shrink excluded exited without calling it; the thread's text as
# stored, GitHub having made "p2p.cc:783" a link): NCCL's announcement of a failed completion, then the same completion
# described by the call after it (src/transport/net_ib/p2p.cc ncclIbTest, ncclIbLogCompletionWithError)
CQE_ANNOUNCE = ("[2026-09-09 10:46:33] ubuntu2:319733:319761 [1] transport/net_ib/[p2p.cc:783](https://p2p.cc:783/) NCCL "
                "WARN NET/IB: ncclIbTest: Got CQE with error (devIndex=0, req=0x7fccfc04e028, comm=0x7fccfc04e000 (recv), "
                "wr_id=0, qp_num=26257)")
CQE_COMPLETION = ("[2026-09-09 10:46:33] ubuntu2:319733:319761 [1] transport/net_ib/[p2p.cc:648](https://p2p.cc:648/) "
                  "NCCL WARN NET/IB: Got completion from peer 10.153.235.13<40554> with status=IBV_WC_RETRY_EXC_ERR(12) "
                  "opcode=IBV_WC_RECV_RDMA_WITH_IMM(129) vendor_err=129 localGid ::ffff:1.1.2.2 remoteGids::ffff:1.1.1.4 "
                  "hca mlx5_1")


def test_nccl_229s_cqe_announcement_is_the_completion_line_after_it():
    """NCCL 2.29+ warns "NET/IB: ncclIbTest: Got CQE with error (devIndex=.., req=.., comm=.. (recv), ..)" and then, from
    the same call, the completion's own line naming the peer, the status and the adapter: one failure, that line's
    finding (the announcement was a second finding, an nccl_error warning). In RCCL's form too (wr_id in hex)."""
    c = Classifier()
    assert c.classify(CQE_ANNOUNCE) is None
    f = c.classify(CQE_COMPLETION)
    assert (f.kind, f.peer, f.details["wc_status"], f.details["netdev"]) == (
        "ib_completion_error", "10.153.235.13", "IBV_WC_RETRY_EXC_ERR", "mlx5_1")
    # SOURCE: RCCL's format (ROCm rccl src/transport/net_ib.cc: "wr_id=0x%lx"), filled in
    assert parse_line("host:1:2 [0] NCCL WARN NET/IB: ncclIbTest: Got CQE with error (devIndex=1, req=0x1, comm=0x2 "
                      "(send), wr_id=0x0, qp_num=7)") is None


def test_an_ib_port_that_came_back_is_no_error():
    """llm-d/llm-d #191: between two "port error" events, the port coming back: no finding (was: a warning
    nccl_error); the port errors around it are the fabric's."""
    assert parse_line("[2025-09-17 15:16:31] ms-pd-llm-d-modelservice-prefill-2:311:405 [0] transport/net_ib.cc:199 "
                      "NCCL WARN NET/IB : mlx5_32:1 Got async error event: port active") is None


def test_a_roce_ports_ib_device_line_is_part_of_its_netdevs_down():
    """REAL (mlx5-link-2026b.yaml, devopsrustem/slurmv4): a RoCE port's netdev "Link down" and, on the next line, its IB
    device's "Port: 1 Link DOWN" are one down; the IB device's line alone (an InfiniBand-mode HCA, no netdev line) is
    the port's own down, its "Link ACTIVE" the port back up; INIT (on its way up) is no finding."""
    c = Classifier()
    down = c.classify("[ 4443.968257] mlx5_core 0000:53:00.0 enp83s0f0np0: Link down")
    assert (down.kind, down.severity, down.details["state"]) == ("ib_link", "error", "down")
    assert c.classify("[ 4443.974372] mlx5_core 0000:53:00.0 mlx5_3: Port: 1 Link DOWN") is None
    up = c.classify("[ 4450.320122] mlx5_core 0000:53:00.0 mlx5_3: Port: 1 Link ACTIVE")
    assert (up.kind, up.severity, up.details["state"]) == ("ib_link", "info", "up")
    c = Classifier()
    alone = c.classify("mlx5_core 0000:0a:00.0 mlx5_0: Port: 1 Link DOWN")
    assert (alone.kind, alone.severity, alone.pci, alone.details["netdev"]) == ("ib_link", "error", "0000:0a:00", "mlx5_0")
    assert parse_line("mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link INIT") is None


def test_nccl_timeout_details():
    f = parse_line("[rank1]:[E1122 02:05:37.123456 12345 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught "
                   "collective operation timeout: WorkNCCL(SeqNum=9, OpType=_ALLGATHER_BASE, NumelIn=1, "
                   "NumelOut=8, Timeout(ms)=60000) ran for 60005 milliseconds before timing out.")
    assert (f.rank, f.details["op"], f.details["timeout_ms"]) == (1, "_ALLGATHER_BASE", 60000)


@pytest.mark.parametrize("line,seq", [
    # REAL (mila-iqia/milabench #269): the runner wrapped the line after "timeout: ", WorkNCCL(..) on the next
    ("dinov2-giant-nodes.cn-d004 [stderr] [rank14]:[E909 09:55:29.307629539 ProcessGroupNCCL.cpp:607] [Rank 14] "
     "Watchdog caught collective operation timeout: ", None),
    # REAL (sgl-project/sglang #3424): a copy wrapped inside "SeqNum"
    ("[rank1]:[E210 02:06:33.347835395 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 1] Process group watchdog "
     "thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(S", None),
    # REAL (sgl-project/sglang #3368): wrapped after the OpType, its details kept
    ("[rank6]:[E207 01:29:36.730311765 ProcessGroupNCCL.cpp:616] [Rank 6] Watchdog caught collective operation "
     "timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, Nume", 2),
])
def test_a_wrapped_watchdog_timeout_is_still_the_ranks_timeout(line, seq):
    """A line wrapped before or inside WorkNCCL(..) is still the rank's watchdog timeout (was: none)."""
    f = parse_line(line)
    assert (f.kind, f.severity, f.rank) == ("nccl_timeout", "error", int(line.split("[Rank ")[-1].split("]")[0]))
    assert f.details.get("seq") == seq


# REAL (sgl-project/sglang #3424, tests/fixtures/incidents/sglang-3424-wrapped-seqnum/logs/server-a.log): rank 1's
# watchdog line, its two pieces as posted ("WorkNCCL(S" / "eqNum=1522789, ..") joined: the line PyTorch printed
_WATCHDOG_3424 = ("[rank1]:[E210 02:06:33.347835395 ProcessGroupNCCL.cpp:1595] [PG ID 2 PG GUID 3 Rank 1] Process group "
                  "watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation timeout: "
                  "WorkNCCL(SeqNum=1522789, OpType=_ALLGATHER_BASE, NumelIn=298960, NumelOut=4783360, "
                  "Timeout(ms)=600000) ran for 600003 milliseconds before timing out.")


def test_a_watchdog_timeout_wrapped_anywhere_keeps_only_the_details_it_holds_whole():
    """The line cut at every position past "timeout:" (constructed cuts of the real line, as a runner or a copy wraps
    it: sglang #3424 inside "SeqNum", #3368 after the OpType, milabench #269 after "timeout: "): each of SeqNum, OpType
    and Timeout(ms) is the whole line's or absent. Was: a cut inside the OpType or the timeout gave a truncated one
    ("_ALLG", 6 ms: a rank seemingly in another collective, triage's window 600 s short), a cut after "SeqNum=1522789, "
    lost the SeqNum."""
    whole = parse_line(_WATCHDOG_3424)
    assert {k: whole.details.get(k) for k in ("seq", "op", "timeout_ms")} == {
        "seq": 1522789, "op": "_ALLGATHER_BASE", "timeout_ms": 600000}
    start = _WATCHDOG_3424.index("timeout: ") + len("timeout:")
    for cut in range(start, len(_WATCHDOG_3424)):
        line = _WATCHDOG_3424[:cut]
        f = parse_line(line)
        assert (f.kind, f.rank) == ("nccl_timeout", whole.rank), line
        for key in ("seq", "op", "timeout_ms"):
            assert f.details.get(key) in (None, whole.details[key]), (line, key, f.details.get(key))
        assert ("seq" in f.details) == ("SeqNum=1522789," in line), line


# REAL (ultralytics/ultralytics #24536, tests/fixtures/realworld/nccl-pytorch-3.yaml): PyTorch 2.4+'s wording
_BLOCKING_24536 = ("[rank4]:[E601 07:25:57.393526823 ProcessGroupNCCL.cpp:756] [Rank 4] Work WorkNCCL(SeqNum=201809, "
                   "OpType=BROADCAST, NumelIn=32, NumelOut=32, Timeout(ms)=10800000) timed out in blocking wait.")


@pytest.mark.parametrize("line, rank, seq, op, timeout_ms", [
    (_BLOCKING_24536, 4, 201809, "BROADCAST", 10800000),
    # SOURCE (pytorch/pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp, WorkNCCL::synchronizeInternal, filled
    # in; a test, never a sample): 1.8-2.1 "[Rank N] Work .. (NCCL_BLOCKING_WAIT=1).", 2.2-2.3 logPrefix() and
    # "(TORCH_NCCL_BLOCKING_WAIT=1)."
    ("[Rank 0] Work WorkNCCL(SeqNum=3, OpType=ALLREDUCE, Timeout(ms)=1800000) timed out in blocking wait "
     "(NCCL_BLOCKING_WAIT=1).", 0, 3, "ALLREDUCE", 1800000),
    ("[PG 0 Rank 1] Work WorkNCCL(SeqNum=7, OpType=ALLGATHER, NumelIn=1, NumelOut=2, Timeout(ms)=600000) timed out in "
     "blocking wait (TORCH_NCCL_BLOCKING_WAIT=1).", 1, 7, "ALLGATHER", 600000),
])
def test_a_blocking_wait_timeout_is_the_ranks_timeout_in_every_era(line, rank, seq, op, timeout_ms):
    """WorkNCCL(..) ends with "Timeout(ms)=N)" in every era; the rule read up to the first ")", the one of "(ms)", so
    no such line matched: a rank whose only timeout line it was had no finding (ultralytics #24536)."""
    f = parse_line(line)
    assert (f.kind, f.severity, f.rank) == ("nccl_timeout", "error", rank)
    assert {k: f.details.get(k) for k in ("seq", "op", "timeout_ms")} == {"seq": seq, "op": op, "timeout_ms": timeout_ms}


def test_a_subgroups_rank_is_no_global_rank():
    """REAL (sgl-project/sglang #1693): group 3's rank 5 (the WorkNCCL's "[Rank 5]" is the group's too) is kept in
    details, not as the finding's rank; the default group's rank is (instructlab/training #520)."""
    f = parse_line("  what():  [PG 3 Rank 5] Process group watchdog thread terminated with exception: [Rank 5] "
                   "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE, "
                   "NumelIn=19008, NumelOut=152064, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.")
    assert (f.kind, f.rank, f.details["pg"], f.details["group_rank"]) == ("nccl_timeout", None, "3", 5)
    f = parse_line("  what():  [PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread terminated with "
                   "exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
                   "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1) ran for 90 milliseconds before timing out.")
    assert (f.kind, f.rank, "group_rank" in f.details) == ("nccl_timeout", 3, False)
    # REAL (tests/fixtures/incidents/areal-3-ib-flush): torchrun's "[rank12]:" is the global rank, the tag's "Rank 1"
    # group 134's; the rank in the group was taken from the launcher's prefix before
    f = parse_line("(model_worker/12 pid=43581, ip=10.208.16.54) [rank12]:[E227 06:13:07.855233166 ProcessGroupNCCL.cpp"
                   ":1534] [PG 134 Rank 1] Process group watchdog thread terminated with exception: NCCL error: remote "
                   "process exited or there was a network error, NCCL version 2.22.3")
    assert (f.rank, f.details["pg"], f.details["group_rank"]) == (12, "134", 1)


def test_a_launcher_prefix_wins_over_a_bare_group_rank_and_joins_the_ranks_event():
    """REAL (NVIDIA/nccl #1610): global rank 13's watchdog line names its work's group rank "[Rank 1]" with no "[PG ..]"
    tag; torch's "[rank13]:" prefix is the rank, 1 the group's (details group_rank), and the rank's next line (its PG
    tag's) joins the same event. Was: rank 1's finding, and a second event for rank 13."""
    import realworld

    lines = ("[rank13]:[E218 04:54:22.864467604 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation "
             "timeout: WorkNCCL(SeqNum=216, OpType=ALLTOALL_BASE, NumelIn=1379328, NumelOut=1572864, Timeout(ms)=600000) "
             "ran for 600045 milliseconds before timing out.\n"
             "[rank13]:[E218 04:54:22.864535778 ProcessGroupNCCL.cpp:1795] [PG ID 11 PG GUID 119 Rank 1] Exception "
             "(either an error or timeout) detected by watchdog at work: 216, last enqueued NCCL work: 220, last "
             "completed NCCL work: 215.\n")
    found = realworld.findings(lines)
    assert [(f.kind, f.rank, f.details.get("group_rank")) for f in found] == [("nccl_timeout", 13, 1)]
    # the same on any row whose "[Rank N]" is a rank group: NCCL's remote error (CONSTRUCTED from the line above's
    # prefix with nccl_remote's words); a prefix that agrees leaves no group rank
    f = parse_line("[rank9]:[E218 04:54:22.864467604 ProcessGroupNCCL.cpp:1534] [Rank 1] NCCL error: remote process "
                   "exited or there was a network error, NCCL version 2.21.5")
    assert (f.kind, f.rank, f.details.get("group_rank")) == ("nccl_remote_error", 9, 1)
    f = parse_line("[rank4]:[E318 07:39:53.792630246 ProcessGroupNCCL.cpp:616] [Rank 4] Watchdog caught collective "
                   "operation timeout: WorkNCCL(SeqNum=610, OpType=COALESCED, NumelIn=56320, NumelOut=450560, "
                   "Timeout(ms)=600000) ran for 600086 milliseconds before timing out.")
    assert (f.rank, "group_rank" in f.details) == (4, False)


@pytest.mark.parametrize("line,kind,rank", [
    # REAL (deepseek-ai/DeepSeek-MoE #47): the watchdog re-raising a CUDA error names the rank it ran on
    ("[rank1]:[E410 01:50:33.889423318 ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 1] Process group "
     "watchdog thread terminated with exception: CUDA error: unspecified launch failure", "cuda_error", 1),
    # REAL (vllm-project/vllm #28028): a subgroup's tag: torchrun's "[rank1]:" is the global rank
    ("[rank1]:[E1103 23:14:03.342459398 ProcessGroupNCCL.cpp:2068] [PG ID 4 PG GUID 19 Rank 1] Process group watchdog "
     "thread terminated with exception: CUDA error: an illegal memory access was encountered", "cuda_error", 1),
    ("[rank3]:   File \"train.py\", line 9, in <module> torch.OutOfMemoryError: CUDA out of memory. Tried to allocate "
     "2.00 GiB. GPU 3 has a total capacity of 79.15 GiB", "cuda_oom", 3),
    # a line with no PyTorch rank tag has none ("[4]" of NCCL's prefix is a CUDA device)
    ("node:1:2 [4] NCCL WARN Cuda failure 'an illegal memory access was encountered'", "cuda_error", None),
])
def test_workload_findings_take_the_lines_rank(line, kind, rank):
    f = parse_line(line)
    assert (f.kind, f.rank) == (kind, rank)


def test_cuda_error_and_its_enum_line_are_one_failure():
    """REAL (SystemPanic/vllm-windows #72): PyTorch 2.6+ names the enum on the next line; that line alone (its first
    line lost) is the failure; another CUDA error after it is a second one."""
    c = Classifier()
    first = c.classify("RuntimeError: CUDA error: an illegal memory access was encountered")
    assert first.details["cuda_error"] == "an illegal memory access was encountered"
    assert c.classify("Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
                      "group__CUDART__TYPES.html for more information.") is None
    assert c.classify("RuntimeError: CUDA error: device-side assert triggered").kind == "cuda_error"
    alone = parse_line("Search for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
                       "group__CUDART__TYPES.html for more information.")
    assert (alone.kind, alone.details["cuda_error"], alone.attribution) == ("cuda_error", "cudaErrorAssert", "application")
    c = Classifier()  # out of memory's enum line too
    assert c.classify("RuntimeError: CUDA error: out of memory").kind == "cuda_oom"
    assert c.classify("Search for `cudaErrorMemoryAllocation' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
                      "group__CUDART__TYPES.html for more information.") is None


@pytest.mark.parametrize("line,status,attribution", [
    # REAL (clovaai/bros #14): the status, not the call's arguments
    ("RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasGemmEx( handle, opa, opb, m, n, k, "
     "&falpha, a, CUDA_R_16F, lda, b, CUDA_R_16F, ldb, &fbeta, c, CUDA_R_16F, ldc, CUDA_R_32F, "
     "CUBLAS_GEMM_DFALT_TENSOR_OP)`", "CUBLAS_STATUS_EXECUTION_FAILED", "unknown"),
    # REAL (chengyangfu/caffe #6): glog's check names SUCCESS first
    ("F0421 09:02:45.161278  7233 math_functions.cu:52] Check failed: status == CUBLAS_STATUS_SUCCESS (13 vs. 0)  "
     "CUBLAS_STATUS_EXECUTION_FAILED", "CUBLAS_STATUS_EXECUTION_FAILED", "unknown"),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", "CUDNN_STATUS_EXECUTION_FAILED", "unknown"),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous "
     "input.", "CUDNN_STATUS_NOT_SUPPORTED", "application"),
    ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
     "CUBLAS_STATUS_ALLOC_FAILED", "application"),
])
def test_cuda_library_status(line, status, attribution):
    f = parse_line(line)
    assert (f.kind, f.details["cuda_error"], f.attribution) == ("cuda_error", status, attribution)


@pytest.mark.parametrize("line,gpu", [
    ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4770354232 "
     "bytes.", None),
    ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB (3206250496B) "
     "on device ordinal 0", 0),
    ("RuntimeError: Resource exhausted: Out of memory while trying to allocate 24 bytes.", None),
    ("ResourceExhaustedError: OOM when allocating tensor with shape[8192,1000]", None),
    ("  (0) Resource exhausted: OOM when allocating tensor with shape[16,112,112,147] and type float on "
     "/job:localhost/replica:0/task:0/device:GPU:2 by allocator GPU_2_bfc", 2),
])
def test_xla_and_tensorflow_out_of_memory(line, gpu):
    f = parse_line(line)
    assert (f.kind, f.details.get("gpu")) == ("cuda_oom", gpu)


@pytest.mark.parametrize("line", [
    # gRPC's RESOURCE_EXHAUSTED is a quota or a message size, not device memory
    "grpc._channel._InactiveRpcError: status = StatusCode.RESOURCE_EXHAUSTED details = \"Received message larger than max\"",
    "RESOURCE_EXHAUSTED: Quota exceeded for quota metric 'Requests'",
    # a WARN NCCL demoted to INFO as harmless (NVIDIA/nccl #1684)
    "172-27-101-52:959:959 [0] transport/p2p.cc:944 NCCL WARN rank 0 failed to IPC register userbuff 0x7f3f56000000 "
    "buffSize 37748736 nPeers 2 isLegacyIpc 0x7ffe49900be0",
    # aws-ofi-nccl's start on a host with no provider (no EFA): NCCL goes on with its own transports, no fault
    # (noise-2026d.yaml, gnosia93/training-on-eks)
    "[2026-01-02 10:24:27] ip-172-31-3-153:35113:35467 [0] int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):208 "
    "NCCL WARN NET/OFI Failed to initialize sendrecv protocol",
    "[2025-12-28 16:04:25] llama-3-8b-node-0-0:152:386 [0] int nccl_net_ofi_create_plugin(nccl_net_ofi_plugin_t**):259 "
    "NCCL WARN NET/OFI Unable to find a protocol that worked.  Failing initialization.",
    "h:1:2 [0] ncclResult_t nccl_net_ofi_init_v6(ncclDebugLogger_t):162 NCCL WARN NET/OFI Initializing plugin failed",
    "h:1:2 [0] nccl_net_ofi_rdma_init:7737 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available",
    # CONSTRUCTED from aws-ofi-nccl 1.7.3's src/platform-aws.c (NCCL_OFI_WARN("Could not find ncclGetVersion symbol")
    # in configure_nvls_option, aws/aws-ofi-nccl fee1c4dd; TRACE from 1.8.0, ce6f3418) with NCCL's log prefix: the plugin
    # skips a version check and goes on (parsers/rules.py NCCL_HARMLESS_WARNS)
    "algo-1:46:58 [0] configure_nvls_option:287 NCCL WARN NET/OFI Could not find ncclGetVersion symbol",
    # CONSTRUCTED from NVIDIA/nccl's WARN format strings of the release before each became INFO (2.26.2, 2.27.3 and
    # 2.24.3: parsers/rules.py NCCL_HARMLESS_WARNS) with NCCL's log prefix; the topology search's fallback is REAL in
    # noise-nccl-demoted-2026.yaml
    "h:1:2 [0] graph/xml.cc:760 NCCL WARN No NVML device handle. Skipping nvlink detection.",
    "h:1:2 [0] register/register.cc:90 NCCL WARN rank 0 failed to NET register userbuff 0x7f3f56000000 buffSize "
    "37748736 GDR flag 0",
    "h:1:2 [0] transport/nvls.cc:620 NCCL WARN rank 0 failed to NVLS register sendbuff 0x7f3f56000000 sendbuffSize "
    "37748736 recvbuff 0x7f3f58000000 recvbuffSize 37748736",
    "h:1:2 [0] graph/xml.cc:391 NCCL WARN Could not open XML topology file /opt/topo.xml : No such file or directory",
    "h:1:2 [0] graph/xml.cc:283 NCCL WARN Unable to open /shared/topo.xml, not dumping topology.",
    "h:1:2 [0] graph/connect.cc:349 NCCL WARN User asked for a maximum of 0 channels, setting it to 1",
    "h:1:2 [0] transport/net_ib.cc:254 NCCL WARN NET/IB: Ip address '10.0.0.300' is invalid for family AF_INET, "
    "ignoring address",
    "h:1:2 [0] transport/net_ib.cc:1530 NCCL WARN NET/IB : Local mergedDev mlx5_0+mlx5_1 has a different number of "
    "devices=2 as remote mlx5_0 1",
    # a cuBLAS call that succeeded, the workspace setting
    "CUBLAS_STATUS_SUCCESS",
    "export CUBLAS_WORKSPACE_CONFIG=:4096:8",
    # the store warnings PyTorch prints while ranks exit at a clean end (areal-project/AReaL #1245)
    "[rank1]:[W724 19:26:07.130163445 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=30, "
    "addr=[::ffff:127.0.0.1]:54736, remote=[::ffff:127.0.0.1]:8738): failed to recv, got 0 bytes",
])
def test_workload_look_alikes_stay_silent(line):
    assert parse_line(line) is None


@pytest.mark.parametrize("line,kind,text", [
    # REAL (jiesutd/NCRFpp #121, zhanghang1989/PyTorch-Encoding #23, torch/cutorch #705): THC's wording, PyTorch < 1.5
    ("RuntimeError: cuda runtime error (2) : out of memory at /pytorch/torch/lib/THC/generic/THCStorage.cu:58",
     "cuda_oom", None),
    ("RuntimeError: cuda runtime error (59) : device-side assert triggered at /pytorch/torch/lib/THC/generic/"
     "THCStorage.cu:58", "cuda_error", "device-side assert triggered"),
    ("/home/vislab/torch/install/bin/luajit: /home/torch/install/share/lua/5.1/nn/THNN.lua:110: cuda runtime error (59) "
     ": device-side assert triggered at /home/torch/cutorch/lib/THC/THCTensorCopy.cu:100", "cuda_error",
     "device-side assert triggered"),
    ("RuntimeError: cuda runtime error (209) : no kernel image is available for execution on the device at "
     "/pytorch/aten/src/THC/generic/THCTensorMath.cu:35", "cuda_error", "no kernel image is available for execution on "
     "the device"),
])
def test_thc_cuda_runtime_error(line, kind, text):
    f = parse_line(line)
    assert (f.kind, f.details.get("cuda_error")) == (kind, text)


def test_specfem_cuda_error_out_of_memory():
    """REAL (SPECFEM/specfem3d #1344): SPECFEM's print_CUDA_error_if_any, cudaGetErrorString() in angle brackets (its
    trailing space kept), then MPI_Abort; the line after it, the call's number, is no failure of its own."""
    assert parse_line("CUDA error !!!!! <out of memory> !!!!! ").kind == "cuda_oom"
    assert parse_line("at CUDA call error code: # 2402") is None


def test_thc_check_warning_is_no_failure_of_its_own():
    """THC's warning before the traceback whose RuntimeError is the failure (pytorch/pytorch #44867)."""
    assert parse_line("THCudaCheck FAIL file=/pytorch/aten/src/THC/THCTensorCopy.cu line=102 error=59 : device-side "
                      "assert triggered") is None


def test_cuda_driver_error_names():
    """REAL (jax-ml/jax #25002, openxla/xla #15945): the driver API's name decides, not the wrapper's words around it;
    XLA's follow-on lines naming it are the same failure; a CPU-only container's cuInit line is none."""
    f = parse_line("E1120 10:59:55.894873   35984 pjrt_stream_executor_client.cc:3067] Execution of replica 0 failed: "
                   "INTERNAL: Failed to retrieve branch_index value on stream 0x5583cca477e0: CUDA error: Could not "
                   "synchronize CUDA stream: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.")
    assert (f.kind, f.details["cuda_error"], f.attribution) == ("cuda_error", "CUDA_ERROR_ILLEGAL_ADDRESS", "application")
    assert (parse_line("failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_ECC_UNCORRECTABLE: uncorrectable ECC error "
                       "encountered").severity == "fatal")
    c = Classifier()
    assert c.classify("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to launch CUDA kernel: add: "
                      "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.").kind == "cuda_error"
    assert c.classify("2024-08-10 13:09:02.411862: E external/xla/xla/stream_executor/cuda/cuda_driver.cc:663] failed to "
                      "unload module 0x5215a9a0; leaking: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was "
                      "encountered") is None
    assert parse_line("2023-01-01 E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: "
                      "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected") is None


@pytest.mark.parametrize("line,peer,error", [
    # REAL (NVIDIA/nccl #795, #1920): the other end broke or reset the socket: the peer's connection went away
    ("a100-st-p4d24xlarge-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from "
     "10.200.84.247<58355> failed : Broken pipe", "10.200.84.247", "Broken pipe"),
    ("gpu-server320 [5] misc/socket.cc:46 NCCL WARN socketProgressOpt: Call to send to 10.44.137.149<52905> failed : "
     "Connection reset by peer", "10.44.137.149", "Connection reset by peer"),
])
def test_nccl_socket_reset_by_the_peer(line, peer, error):
    f = parse_line(line)
    assert (f.kind, f.peer, f.details["socket_error"]) == ("nccl_remote_error", peer, error)


def test_nccl_connect_it_gave_up_on_names_the_peer():
    """NCCL retries a connect the peer refused or that timed out at INFO ("Call to connect returned Connection refused,
    retrying"); its WARN "Connect to <peer> failed : .." comes when it gives up and returns an error, every era
    (src/misc/socket.cc 2.9 to 2.27, src/os/linux.cc 2.28+): a remote error naming the peer, no longer a plain warning.
    REAL: nccl-tests #166 (2.18); the others are each era's format string with SYNTHETIC addresses."""
    for line, peer, error in [
        ("ubuntu:39964:40075 [0] misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to 10.0.0.2<45763> failed : "
         "Software caused connection abort", "10.0.0.2", "Software caused connection abort"),
        ("node-a:1:2 [0] misc/socket.cc:450 NCCL WARN Net : Connect to 10.0.0.3<40123> failed : Connection refused",
         "10.0.0.3", "Connection refused"),
        ("node-a:1:2 [0] include/socket.h:406 NCCL WARN Connect to 10.0.0.3<40123> failed : No route to host",
         "10.0.0.3", "No route to host"),
        ("node-a:1:2 [0] misc/socket.cc:535 NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No "
         "route to host) errno 115(Operation now in progress)", "10.0.0.4", "113(No route to host) errno 115(Operation now in progress)"),
        ("node-a:1:2 [0] misc/socket.cc:617 NCCL WARN socketPollConnect to 10.0.0.5<4000> failed with error Connection "
         "timed out", "10.0.0.5", "Connection timed out"),
    ]:
        f = parse_line(line)
        assert (f.kind, f.severity, f.peer, f.details["socket_error"]) == ("nccl_remote_error", "error", peer, error)
    assert parse_line("zgiot:1183664:1184669 [0] NCCL INFO socketPollConnect: connect returned No route to host, "
                      "retrying (26/34) after sleep for 2600 msec") is None


def test_unique_id_store_failure():
    """REAL (NVIDIA-NeMo/Speech #14399, pytorch/pytorch #82091 with 1.x's "retreiving"): a rank that never got the NCCL
    unique id from the root through the store; the bracketed numbers are ranks in the group (details)."""
    f = parse_line("B-nemo-ft3/0 [default1]:[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL "
                   "communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
                   "store->get('0') got error: wait timeout after 600000ms, keys: /default_pg/0//cuda//0")
    assert (f.kind, f.rank, f.details["root_rank"], f.details["waiting_rank"]) == ("nccl_timeout", 1, 0, 1)
    assert f.details["store_error"].startswith("wait timeout after 600000ms")
    f = parse_line("RuntimeError: [2] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d "
                   "key-value store by key '0', but store->get('0') got error: Socket Timeout")
    assert (f.kind, f.rank, f.details["store_error"]) == ("nccl_timeout", None, "Socket Timeout")


def test_unique_id_store_failure_cut_after_its_ranks():
    """REAL (snowflakedb/ArcticTraining #233), cut at 160 characters as an agent's Event quotes it: still the failure,
    its ranks kept (the cluster component reads the excerpt back), the store's error unknown.  Was: no finding."""
    line = ("[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId "
            "from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer")
    assert parse_line(line).details["store_error"] == "Connection reset by peer"
    f = parse_line(line[:159] + "\u2026")
    assert (f.kind, f.rank, f.details["root_rank"], f.details["waiting_rank"]) == ("nccl_timeout", 1, 0, 1)
    assert f.details.get("store_error") is None


def test_abort_timeout_is_part_of_the_ranks_watchdog_failure():
    """REAL (mit-han-lab/distrifuser #6): PyTorch 2.2-2.3's abort timeout, then the heartbeat monitor: one event."""
    c = Classifier()
    f = c.classify("[rank0]:[E ProcessGroupNCCL.cpp:1025] [PG 0 Rank 0] Future for ProcessGroup abort timed out "
                   "after 600000 ms")
    assert (f.kind, f.rank, f.details["timeout_ms"]) == ("nccl_timeout", 0, 600000)
    assert c.classify("[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat monitor timed out! Process will "
                      "be terminated after dumping debug info. workMetaList_.size()=0") is None


@pytest.mark.parametrize("line", [
    "node-1:178:828 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ibp12s0:10.42.0.1<0>",
    "node-1:178:828 [0] NCCL INFO comm 0x55 rank 16 nranks 32 cudaDev 0 busId 1b000 - Abort COMPLETE",
    "nvidia-nvlink: Nvlink Core is being initialized, major device number 507",
    "pcieport 0000:00:01.0: AER: enabled with IRQ 122",
    "mlx5_core 0000:0c:00.0: firmware version: 28.39.1002",
    "Xid errors are documented at docs.nvidia.com; this node reports none.",
    "",
])
def test_look_alikes_are_not_findings(line):
    assert parse_line(line) is None


@pytest.mark.parametrize("line,what,ep_rank", [
    # DeepEP's kernels and host, each of its timeouts (csrc/kernels, csrc/deep_ep.cpp's formats): the collective waited
    # on a peer that never delivered, a consequence as the watchdog's timeout is (was: nothing); the rank is the EP
    # group's (details), not the job's
    ("DeepEP timeout check failed: rank = 6, thread = 0, value = 0)", "timeout check failed", 6),
    ("DeepEP timeout for dispatch receivers, rank 3, responsible_channel = 1, tokens remained: 5",
     "timeout for dispatch receivers", 3),
    ("DeepEP notify timeout, rank: 2, thread: 0, count: 1", "notify timeout", 2),
    ("DeepEP combine RDMA receiver timeout, channel: 1, RDMA: 0, nvl: 2, src RDMA: 1, tail: 0, waiting: 1, expect: 3",
     "combine RDMA receiver timeout", None),
    ("RuntimeError: DeepEP error: timeout (dispatch CPU)", "timeout (dispatch CPU)", None),
    ("RuntimeError: DeepEP error: CPU recv timeout", "CPU recv timeout", None),
])
def test_deepep_timeouts(line, what, ep_rank):
    f = parse_line(line)
    assert (f.kind, f.details["deepep"], f.details.get("ep_rank"), f.rank) == ("nccl_timeout", what, ep_rank, None)


@pytest.mark.parametrize("line,rendezvous,seconds", [
    # REAL: jax-ml/jax #22740 (2024, a clique's set-up waiting on the other host's process), openxla/xla #22588 (2025,
    # a collective-permute on 8 H100s): XLA's rendezvous announcing a hang before anything times out (was: nothing)
    ("2024-07-29 17:14:59.920189: E external/xla/xla/service/rendezvous.cc:38] This thread has been waiting for "
     "`initialize clique for rank 6; clique=devices=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]; stream=0; "
     "run_id=724296073` for 10 seconds and may be stuck. Expected 8 threads to join the rendezvous, but not all of them "
     "arrived on time.", "initialize clique for rank 6; clique=devices=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]; "
     "stream=0; run_id=724296073", 10),
    ("E0213 12:41:17.931882   59040 rendezvous.cc:98] This thread has been waiting for `rendezvous of "
     "collective-permute; run_id=15; op id:1` for 20 seconds and may be stuck. Expected 8 threads to join the "
     "rendezvous, but not all of them arrived on time.", "rendezvous of collective-permute; run_id=15; op id:1", 20),
])
def test_xla_rendezvous_stuck_is_a_hang_announced(line, rendezvous, seconds):
    f = parse_line(line)
    assert (f.kind, f.severity, f.rank) == ("nccl_timeout", "warning", None)
    assert (f.details["rendezvous"], f.details["seconds"], f.details["threads"]) == (rendezvous, seconds, 8)


def test_deepep_start_is_no_timeout():
    assert parse_line("DeepEP initialized with NCCL version: 2.27.3 (loaded library)") is None


def test_a_jax_task_ended_by_a_peers_death():
    """JAX's docs (docs/fault_tolerance.rst): the coordination service's fatal error as every live task prints it, a
    peer's death seen from here (a consequence: coordination_error, JAX's own kind; was: nothing, then
    nccl_remote_error), its "Polled an error" line none."""
    f = parse_line("F0929 17:42:48.594200 1044529 client.h:77] Terminating process because the JAX distributed service "
                   "detected fatal errors. This most likely indicates that another task died; see the other task logs "
                   "for more details. absl::Status: UNAVAILABLE: The following tasks are unhealthy (stopped sending "
                   "heartbeats):")
    assert (f.kind, f.details["status"]) == ("coordination_error", "UNAVAILABLE")
    assert parse_line("E0926 17:26:32.075402  157988 coordination_service_agent.cc:332] Polled an error from "
                      "coordination service (this can be an error from this or another task).") is None


def test_a_jax_task_whose_coordination_agent_is_in_error_is_a_peers_failure_seen():
    """REAL: google/paxml #77 (1024 GPUs, 2024): the PJRT client's error callback, the 2022-2024 wording of the same
    failure as "Terminating process because ..": a consequence with its status (was: nothing, the job's failure
    unseen).  A line that only names the callback's words without a status is no finding."""
    f = parse_line("2024-04-12 23:39:41.656900: E external/xla/xla/pjrt/distributed/client.cc:96] Coordination service "
                   "agent in error status: DEADLINE_EXCEEDED: Deadline Exceeded")
    assert (f.kind, f.details["status"], f.details["status_text"]) == (
        "coordination_error", "DEADLINE_EXCEEDED", "Deadline Exceeded")
    bare = parse_line("F0926 17:26:32.075587  157988 client.h:77] Terminating process because the JAX distributed "
                      "service detected fatal errors.")
    assert (bare.kind, bare.details.get("status")) == ("coordination_error", None)


@pytest.mark.parametrize("line", [
    # REAL (data-infra/cube-studio #29: two RTX 4090s, no NVSwitch; NVIDIA/gpu-operator #610: two A40s): Fabric
    # Manager's service exiting at start reads the same with no NVSwitch (benign) and on an HGX whose fabric never comes
    # up; the GPUs' fabric state tells them apart (NVML, FabricNotRegistered), not the line. Were unclassified warnings.
    'Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4753]: "/usr/bin/nv-fabricmanager -c '
    '/usr/share/nvidia/nvswitch/fabricmanager.cfg" failed! Exit code: 1',
    "Sep 18 03:19:01 ubuntu2404 systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, "
    "status=1/FAILURE",
    "11月 15 14:15:47 leon-NF5468M6 systemd[1]: nvidia-fabricmanager.service: Control process exited, code=exited, "
    "status=1/FAILURE",
])
def test_fabric_manager_service_exit_is_no_finding(line):
    assert parse_line(line) is None
    f, amended = Classifier().read(line)
    assert f is None and not amended


def test_fabric_manager_service_exit_row_is_those_words_only():
    """synthetic: another program's failure at start, and FM's unit in another state, stay the unclassified net's."""
    f = parse_line('Sep 18 03:19:01 h x.sh[1]: nvidia-uvm: "/usr/bin/other-daemon -c /etc/x.cfg" failed! Exit code: 1')
    assert f is not None and f.kind == "unclassified"


def test_the_unclassified_net_reads_an_error_word_after_the_drivers_name():
    """synthetic: the net (unclassified.unclassified, and the prefilter's pattern for it, classify.line_patterns) takes
    a driver's line with an error word after the driver's name; an error word only before it is no finding (the other
    order found no real line of the corpus, and cost hyperscan 0.09 s of 0.15 on the 1M-line default mix)."""
    from parsers.unclassified import unclassified

    assert unclassified("mlx5_core 0000:5d:00.0: something failed") == ("mlx5_core", "failed")
    assert unclassified("something failed near mlx5_core 0000:5d:00.0") is None
    assert parse_line('Sep 18 03:19:01 h x.sh[1]: "/usr/bin/other" failed! Exit code: 1 nvidia-uvm') is None
    f = parse_line("Sep 18 03:19:01 h systemd[1]: nvidia-fabricmanager.service: Start request repeated too quickly, "
                   "error")
    assert f is not None and f.kind == "unclassified"


def test_driver_banner_is_only_an_info_mark():
    f = parse_line("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024")
    assert (f.kind, f.severity) == ("driver_load", "info")


def test_multiline_fallen_off_bus_takes_gpu_from_context():
    c = Classifier()
    lines = ["[14387.209961] NVRM: The NVIDIA GPU 0000:5d:00.0", "NVRM: (PCI ID: 10de:2330) installed in this system has",
             "NVRM: fallen off the bus and is not responding to commands."]
    found = [c.classify(line) for line in lines]
    assert found[:2] == [None, None]
    assert (found[2].kind, found[2].pci) == ("fallen_off_bus", "0000:5d:00")


def test_uuid_from_nvrm_gpu_line():
    c = Classifier()
    c.classify("NVRM: GPU at PCI:0000:5d:00: GPU-f1906b9b-557a-e961-045c-9fe4be3ce012")
    f = c.classify("NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    assert f.details["uuid"] == "GPU-f1906b9b-557a-e961-045c-9fe4be3ce012"


def test_kmsg_continuation_lines_are_not_findings():
    assert Classifier().classify(" DEVICE=+pci:0000:0c:00.0 Xid (PCI:0000:0c:00): 79") is None


def test_unused_port_is_silent_offline_and_a_used_one_is_not():
    """parsers/ports.py through the scanner: a port down or unplugged early in a boot, never up since, is
    unused (info); the same port after it was up, late in a boot, or a boot later (uptime going backwards)
    is not.  The first two lines are verbatim from gpud's pstore dmesg (tests/fixtures/realworld/wholelogs/);
    the rest are modelled on them (times changed)."""
    import io

    from parsers import Scanner

    unplugged = "<6>[    2.962781] mlx5_core 0000:41:00.1: Port module event: module 1, Cable unplugged\n"
    text = (unplugged
            + "<6>[   14.952018] mlx5_core 0000:41:00.0 enp65s0f0np0: Link up\n"
            + "<6>[   20.000000] mlx5_core 0000:41:00.0 enp65s0f0np0: Link down\n"  # modelled: was up
            + "<6>[  900.000000] mlx5_core 0000:41:00.1: Port module event: module 1, Cable unplugged\n"  # late
            + unplugged.replace("2.962781", "3.000000"))  # modelled: uptime went backwards, a new boot
    got = [(f.details.get("state"), f.severity) for f in Scanner().scan(io.BytesIO(text.encode()))]
    assert got == [("unused", "info"), ("up", "info"), ("down", "error"), ("down", "error"), ("unused", "info")]


def test_a_module_in_error_at_boot_is_a_cabled_port_and_stays_an_error():
    """parsers/ports.py: only the states a port nobody cabled shows (down, unplugged) are forgiven early in a boot.
    A module the NIC reports in error is in its cage: too hot, over its power budget, a bad or unsupported cable stay
    errors at any uptime (they were info before 600 s).  The error line is verbatim from tests/fixtures/dmesg/
    mlx5-ib.kmsg (its time changed), the other error kinds modelled on it from mlx5's mlx5_pme_error_to_string
    (drivers/net/ethernet/mellanox/mlx5/core/events.c); the unplugged line verbatim from gpud's pstore dmesg."""
    hot = ("<3>[   35.103000] mlx5_core 0000:0c:00.0: mlx5_port_module_event:1139:(pid 0): Port module event[error]: "
           "module 0, Cable error, High Temperature\n")
    assert _port_states(hot) == [("module_error", "error")]
    for what in ("Power budget exceeded", "Bad or shorted cable/module", "Enforce part number list",
                 "One or more network ports have been powered down due to insufficient/unadvertised power on the "
                 "PCIe slot"):
        assert _port_states(hot.replace("High Temperature", what)) == [("module_error", "error")], what
    unplugged = "<6>[    2.962781] mlx5_core 0000:41:00.1: Port module event: module 1, Cable unplugged\n"
    assert _port_states(unplugged + hot) == [("unused", "info"), ("module_error", "error")]


def test_a_module_too_hot_asks_for_cooling_the_other_module_errors_the_cable():
    """A module above its alarm temperature is a heat fault (rules.MODULE_ERROR_ACTION: CHECK_COOLING, NVIDIA's adapter
    manuals' answer to over-temperature), still a cabled port in error; the other module errors stay CHECK_CABLE.
    The line verbatim from tests/fixtures/dmesg/mlx5-ib.kmsg, the other reason modelled on it from mlx5's
    mlx5_pme_error_to_string (events.c).  Was CHECK_CABLE for both."""
    hot = ("mlx5_core 0000:0c:00.0: mlx5_port_module_event:1139:(pid 0): Port module event[error]: module 0, "
           "Cable error, High Temperature")
    f = parse_line(hot)
    assert (f.kind, f.severity, f.action, f.details["state"], f.pci) == ("ib_link", "error", "CHECK_COOLING",
                                                                        "module_error", "0000:0c:00")
    assert parse_line(hot.replace("High Temperature", "Power budget exceeded")).action == "CHECK_CABLE"


def _port_states(text: str) -> list[tuple[str, str]]:
    import io

    from parsers import Scanner

    return [(f.details.get("state"), f.severity) for f in Scanner().scan(io.BytesIO(text.encode()))
            if f.kind == "ib_link"]


# verbatim from gpud's `dmesg --decode --time-format iso` of an HGX boot (tests/fixtures/realworld/wholelogs/)
ISO_RUN_INIT = "kern  :info  : 2025-01-17T15:36:25,144639+00:00 Run /init as init process\n"
ISO_UNPLUGGED = ("kern  :info  : 2025-01-17T15:36:28,356580+00:00 mlx5_core 0000:1b:00.1: Port module event: "
                 "module 1, Cable unplugged\n")
ISO_DOWN = "kern  :info  : 2025-01-17T15:37:29,801989+00:00 mlx5_core 0000:1b:00.1 enp27s0f1np1: Link down\n"


def test_unused_port_in_a_wall_clock_log_counts_from_the_kernels_start_up_lines():
    """parsers/ports.py BootClock: a log with no uptime (dmesg --time-format iso, -T, syslog) learns when its boot
    began from the kernel's start-up lines; a down port within unused_port_boot_seconds of that, never up, is
    unused.  Without a start-up line it stays an error (nothing says the boot is young).  The first three lines
    are verbatim (gpud's HGX boot); the later ones modelled on them (times, boot lines of other shapes)."""
    assert _port_states(ISO_UNPLUGGED + ISO_DOWN) == [("down", "error"), ("down", "error")]
    assert _port_states(ISO_RUN_INIT + ISO_UNPLUGGED + ISO_DOWN) == [("unused", "info"), ("unused", "info")]
    late = ISO_DOWN.replace("15:37:29", "15:46:29")  # modelled: 604 s after Run /init
    assert _port_states(ISO_RUN_INIT + late) == [("down", "error")]
    # the banner, then later stages of the same boot: the boot's time stays the banner's
    banner = "kern  :notice: 2025-01-17T15:30:00,000000+00:00 Linux version 5.15.0-122-generic (buildd@lcy02-amd64-106)\n"
    assert _port_states(banner + ISO_RUN_INIT + ISO_DOWN) == [("unused", "info")]  # 449 s after the banner
    assert _port_states(banner + ISO_RUN_INIT + late) == [("down", "error")]  # 989 s after it
    # a port that was up, then a reboot: the next boot's start-up line clears what was up
    up = ISO_DOWN.replace("Link down", "Link up")
    reboot = ISO_RUN_INIT.replace("2025-01-17T15:36", "2025-01-18T09:00")
    again = ISO_DOWN.replace("2025-01-17T15:37", "2025-01-18T09:01")
    assert _port_states(ISO_RUN_INIT + up + ISO_DOWN.replace("15:37:29", "15:37:40") + reboot + again) == [
        ("up", "info"), ("down", "error"), ("unused", "info")]


def test_boot_clock_in_syslog_and_journal_shapes():
    """The kernel's start-up lines in syslog (`kernel:` tag) set the boot clock; the same words from a process
    do not.  Modelled lines (a kern.log and a journal export of one boot)."""
    down = "Jan 17 15:37:29 node-1 kernel: mlx5_core 0000:1b:00.1 enp27s0f1np1: Link down\n"
    for start in ("Jan 17 15:36:10 node-1 kernel: Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) #45-Ubuntu\n",
                  "Jan 17 15:36:10 node-1 kernel: Command line: BOOT_IMAGE=/boot/vmlinuz-6.8.0-45-generic ro\n",
                  "Jan 17 15:36:20 node-1 kernel: Freeing unused kernel image (initmem) memory: 3368K\n",
                  "2025-01-17T15:36:20.000000+00:00 node-1 kernel: Run /init as init process\n"):
        want = "unused" if "+00:00" not in start else "down"  # an aware and a naive time are not compared
        assert _port_states(start + down)[0][0] == want, start
    assert _port_states("Jan 17 15:36:10 node-1 myapp[42]: Linux version 6.8.0 detected\n" + down) == [
        ("down", "error")]


def test_boot_clock_stages():
    from datetime import datetime, timedelta

    from parsers.ports import BootClock

    t0 = datetime(2025, 1, 17, 15, 36)
    clock = BootClock(600)
    assert clock.since(t0) is None
    clock.mark(0, t0)  # the banner
    clock.mark(3, t0 + timedelta(seconds=20))  # Run /init: the same boot
    assert (clock.seq, clock.since(t0 + timedelta(seconds=80))) == (1, 80.0)
    clock.mark(3, t0 + timedelta(days=1))  # another Run /init: the next boot
    assert (clock.seq, clock.since(t0 + timedelta(days=1, seconds=5))) == (2, 5.0)
    clock.mark(2, t0 + timedelta(days=2))  # an earlier stage: the next boot too
    clock.mark(3, t0 + timedelta(days=2, seconds=900))  # a later stage, but past the span: another boot
    assert clock.seq == 4


def test_kmsg_and_raw_dmesg_records_of_another_facility_are_no_kernel_lines():
    """The kernel gives a record a process writes to /dev/kmsg LOG_USER or the facility it names, never LOG_KERN
    (printk.c devkmsg_write); `dmesg -r` and pstore keep that `<facility * 8 + level>`. Synthetic lines."""
    xid = "NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x, GPU has fallen off the bus."
    for kernel, user in ((f"4,1,100,-;{xid}", f"12,2,200,-;{xid}"), (f"<4>[  5.1] {xid}", f"<12>[  5.1] {xid}")):
        assert parse_line(kernel).program is None
        assert parse_line(user).program == "userspace" and parse_line(user).xid == 79  # found, but not the kernel's


# Lines verbatim from tests/fixtures/realworld/gsp.yaml (open-gpu-kernel-modules #1200, #1125, #659, #1230, #446):
# a GSP timeout or crash without its Xid line is the Xid it reports, with that Xid's catalog row.
@pytest.mark.parametrize("line,xid,what", [
    ("NVRM: _kgspRpcRecvPoll: GSP RM heartbeat timed out", 119, "GSP RM heartbeat timed out"),
    ("NVRM: _kgspRpcRecvPoll: LibOS heartbeat timed out", 119, "LibOS heartbeat timed out"),
    ("NVRM: _issueRpcAndWait: rpcRecvPoll timedout for fn 76!", 119, "rpcRecvPoll timedout"),
    ("NVRM: _issueRpcAndWait: rpcRecvPoll timedout for fn 76 sequence 4129!", 119, "rpcRecvPoll timedout"),
    ("Aug 07 17:19:18 ubuntu kernel: GSP task watchdog timeout @ pc:0x1250c5c, partition:2#0, task:3", 120,
     "task watchdog timeout"),
])
def test_a_gsp_failure_without_its_xid_line_is_that_xid(line, xid, what):
    f = parse_line(line)
    info = xid_info(xid)
    assert (f.kind, f.xid, f.severity, f.action, f.details["gsp"]) == ("xid", xid, info.severity, info.action, what)


def test_the_rows_that_are_an_xid_without_its_line_are_one_table():
    """Every row whose finding is an Xid its line does not print (refined as that Xid's line) names the Xid in
    rules.XID_WITHOUT_LINE, and one refiner serves them all: a new such row is a table entry. (The device plugin's
    "XidCriticalError: Xid=94 on Device=GPU-.." prints its Xid: refined as that Xid's line, its UUID and reporter added.)"""
    from parsers.rules import REFINERS, RULES, XID_REPORTERS, XID_WITHOUT_LINE

    with_line = {"xid", *XID_REPORTERS}  # (another program's line restating the Xid it names: XID_REPORTERS)
    # (a row of no refiner is an Xid whose code no line names: nvidia-smi's "Detected Critical Xid Error")
    no_code = {r.name for r in RULES if r.kind == "xid" and r.refine is None}
    assert no_code == {"nvsmi_critical_xid"}
    assert {r.refine for r in RULES if r.kind == "xid" and r.refine not in with_line and r.name not in no_code} == \
        set(XID_WITHOUT_LINE)
    assert len({REFINERS[key].__code__ for key in XID_WITHOUT_LINE}) == 1


def test_the_xid_lines_stay_xids_and_the_gsp_lines_that_name_no_failure_make_none():
    xid119 = ("NVRM: Xid (PCI:0001:6c:00): 119, pid=10200, name=NvmlTaskRunner, Timeout after 45s of waiting for RPC "
              "response from GPU5 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 24174 (0x20801322 0x808).")
    f = parse_line(xid119)
    assert (f.kind, f.xid, f.pci, f.pid) == ("xid", 119, "0001:6c:00", 10200) and "gsp" not in f.details
    # a heartbeat check, a timeout's memory-subsystem check and an init attempt's reason alone: no finding (each
    # opens its event, the finding the line after it: the memory check comes before the Xid 119 or 175 the driver
    # logs for the timeout it classifies, rules "gsp_timeout_classify"; it was the unclassified net's, a second
    # finding beside that Xid)
    for line in ("NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs 812751949 heartbeat 1899482 "
                 "heartbeatWithOffsetMs 812745879 diff 6070 timeout 5200",
                 "NVRM: kgspBootstrap_GH100: GSP-FMC reported an error while attempting to boot GSP: 0xb",
                 "NVRM: GPU6 kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected. kbusSendSysmembarSingle "
                 "failed."):
        assert parse_line(line) is None, line
    # the lines the GSP's event takes after its Xid (the core dump's own failures) stay the net's outside it
    assert parse_line("NVRM: kflcnCoreDumpDestructive_IMPL: ICD: [ERROR] ICD Halt command failed.").kind == \
        "unclassified"
    rate = ("NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:0a:00 (printing 1 of every 30).  The GPU "
            "likely needs to be reset.")
    f = parse_line(rate)
    assert (f.kind, f.pci, f.details["every"]) == ("gpu_reset_required", "0000:0a:00", 30)


def test_ib_completion_names_its_adapter():
    """NCCL 2.2x ends a completion error with the local adapter ("hca mlx5_10", NVIDIA/nccl #1698): the device."""
    f = parse_line("mycl-g2:353236:353423 [6] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from peer "
                   "192.168.3.5<53908> with status=12 opcode=129 len=1048576 vendor err 129 (Recv) localGid "
                   "::ffff:192.168.6.3 remoteGids::ffff:192.168.6.5 hca mlx5_10")
    assert f is not None and f.kind == "ib_completion_error"
    assert (f.details["netdev"], f.details["wc_status"], f.peer) == ("mlx5_10", "IBV_WC_RETRY_EXC_ERR", "192.168.3.5")
    older = parse_line("NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1> with error 12, opcode 0, len 0, "
                       "vendor err 129")
    assert "netdev" not in older.details


def test_an_unresolvable_cdi_device_is_the_gpu_stacks_only_for_nvidias_gpu_kinds():
    """Real lines: CDI's "unresolvable CDI devices" of an NVIDIA GPU kind is the node's GPU stack (nvidia-container-
    toolkit #1239, zelikos/davincibox #268: driver_unusable); of a ConnectX scalable function after a reboot
    (kubernetes/kubernetes #119850) it is no GPU's (was driver_unusable under the row's first version: what the net
    makes of a line naming mlx5_core, as before the row)."""
    c = Classifier()
    gpu = ("Error: unable to start container \"15663b4ffb8533e2485f8fb27f13bbf8ecc90e95595ebd2c63f91013be44486d\": "
           "setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all")
    assert c.classify_alone(gpu).kind == "driver_unusable"
    nic = ('Aug 09 09:58:45 cloud-dev-44 kubelet[1851]: E0809 09:58:45.873380    1851 remote_runtime.go:302] '
           '"CreateContainer in sandbox from runtime service failed" err="rpc error: code = Unknown desc = failed to '
           'create containerd container: CDI device injection failed: unresolvable CDI devices nvidia.com/net-sf='
           'mlx5_core.sf.3" podSandboxID="5ce2a000bf64e9b7d9570a95e53718f9369376b866b22fbbeed22f8faca2c88b"')
    f = c.classify_alone(nic)
    assert f is None or f.kind != "driver_unusable"


# util-linux dmesg's forms beyond "[uptime] msg" and "[ctime] msg" (tests/fixtures/realworld/envelopes-2026j.yaml): each
# line verbatim from util-linux's own expected output (github.com/util-linux/util-linux tests/expected/dmesg/<file>,
# the file named beside it) or from the public report named beside it; the message must start at the kernel's text.
@pytest.mark.parametrize("line,name,message,uptime,when", [
    # cid-kmsg-decode (-x, the printk caller)
    ("kern  :emerg : [    0.000000] [T1] Linux version 6.6.4-arch1-1 (linux@archlinux) (gcc (GCC) 13.2.1 20230801, GNU "
     "ld (GNU Binutils) 2.41.0) #1 SMP PREEMPT_DYNAMIC Mon, 04 Dec 2023 00:29:19 +0000", "dmesg_decode",
     "Linux version 6.6.4-arch1-1 (linux@archlinux) (gcc (GCC) 13.2.1 20230801, GNU ld (GNU Binutils) 2.41.0) #1 SMP "
     "PREEMPT_DYNAMIC Mon, 04 Dec 2023 00:29:19 +0000", 0.0, None),
    # cid-kmsg-delta (-d)
    ("[    0.000002 <    0.000001>] [T3] BIOS-provided physical RAM map:", "dmesg", "BIOS-provided physical RAM map:",
     0.000002, None),
    # timestamp-format-delta-notime (-d -t: the delta alone says no time)
    ("[<   19.000000>] example[3]", "dmesg", "example[3]", None, None),
    # timestamp-format-delta-ctime (--reltime's minute and delta, then ctime with the delta)
    ("[Feb13 23:31] [Fri Feb 13 23:31:30 2009 <    0.000000>] example[0]", "dmesg_t", "example[0]", None,
     "2009-02-13T23:31:30"),
    ("[  +7.000000] [Fri Feb 13 23:31:38 2009 <    7.000000>] example[2]", "dmesg_t", "example[2]", None,
     "2009-02-13T23:31:38"),
    ("[Apr 7 17:30] [Tue Apr  7 17:30:13 2009 <3432659.000000>] example[105]", "dmesg_t", "example[105]", None,
     "2009-04-07T17:30:13"),
    # timestamp-format-delta-raw, timestamp-format-multiple, timestamp-format-delta (several --time-format)
    ("[    8.000000 <    7.000000>] [Fri Feb 13 23:31:38 2009] example[2]", "dmesg_t", "example[2]", 8.0,
     "2009-02-13T23:31:38"),
    ("[    1.000000] [Fri Feb 13 23:31:31 2009] 2009-02-13T23:31:31,123456+00:00 example[1]", "dmesg_t", "example[1]",
     1.0, "2009-02-13T23:31:31"),
    ("2009-02-13T23:31:38,123456+00:00 [<    7.000000>] example[2]", "dmesg_t", "example[2]", None,
     "2009-02-13T23:31:38.123456+00:00"),
    # cid-kmsg-indentation (iso, the caller)
    ("2009-02-13T23:31:33,123456+00:00 [T3] three", "dmesg_t", "three", None, "2009-02-13T23:31:33.123456+00:00"),
    # the kernel test robot's -x reports (lore.kernel.org/oe-lkp/202602042124.87bd00e3-lkp@intel.com,
    # /202411252029.30061fde-lkp@intel.com: its lines also with single spaces), the caller util-linux pads
    ("kern  :crit  : [  424.414068] [   T5607] EXT4-fs error (device loop0): __ext4_remount:6794: comm fanotify22: "
     "Abort forced by user", "dmesg_decode", "EXT4-fs error (device loop0): __ext4_remount:6794: comm fanotify22: "
     "Abort forced by user", 424.414068, None),
    ("kern :err : [   44.116017] BUG: KASAN: global-out-of-bounds in drm_plane_create_format_blob "
     "(drivers/gpu/drm/drm_plane.c:191 drivers/gpu/drm/drm_plane.c:238) drm", "dmesg_decode",
     "BUG: KASAN: global-out-of-bounds in drm_plane_create_format_blob (drivers/gpu/drm/drm_plane.c:191 "
     "drivers/gpu/drm/drm_plane.c:238) drm", 44.116017, None),
    ("kern  :err   : [   44.138365]  <TASK>", "dmesg_decode", " <TASK>", 44.138365, None),  # a trace's indent kept
    # -x with --reltime (github.com/linux-surface: kitakar5525's Surface 3 notes) and -x -d (a Raspberry Pi SDR guide)
    ("kern  :err   : [  +0.203408] Surface3-spi spi-MSHW0037:00: SPI transfer timed out", "dmesg_decode",
     "Surface3-spi spi-MSHW0037:00: SPI transfer timed out", None, None),
    ("kern  :crit  : [ 1701.464833 <    2.116656>] Under-voltage detected! (0x00050005)", "dmesg_decode",
     "Under-voltage detected! (0x00050005)", 1701.464833, None),
])
def test_every_util_linux_dmesg_form_leaves_the_kernels_text(line, name, message, uptime, when):
    env = detect(line, year=2026)
    assert (env.name, env.message) == (name, message)
    assert env.uptime == (pytest.approx(uptime) if uptime is not None else None)
    assert (env.timestamp.isoformat() if env.timestamp else None) == when


def test_dmesg_x_says_whose_record_it_is_and_a_kernel_banner_marks_the_boot():
    """-x's facility is the kmsg record's: kern is the kernel's, any other a process's (a process that wrote to
    /dev/kmsg, as the kmsg envelope's). The boot banner and command line (anchored rules) mark the boot only once the
    envelope is off: util-linux's cid-kmsg-decode, a real Arch Linux boot."""
    user = detect("user  :notice: [  423.605665] [    T265] Starting suite: temp_single_test")  # oe-lkp 202602042124
    assert (user.name, user.extra["app"], user.message) == ("dmesg_decode", "userspace", "Starting suite: temp_single_test")
    assert "app" not in detect("kern  :info  : [  423.633832] [   T5592] loop: module loaded").extra
    c = Classifier()
    for line in ("kern  :emerg : [    0.000000] [T1] Linux version 6.6.4-arch1-1 (linux@archlinux) (gcc (GCC) 13.2.1 "
                 "20230801, GNU ld (GNU Binutils) 2.41.0) #1 SMP PREEMPT_DYNAMIC Mon, 04 Dec 2023 00:29:19 +0000",
                 "kern  :alert : [    0.000001] [T2] Command line: initrd=\\ucode.img initrd=\\initramfs-linux.img rw "
                 "cryptdevice=/dev/nvme0n1p3:system:discard root=/dev/mapper/system"):
        c.read(line)
    assert c.boot.seq == 1  # before: 0 (the "kern  :emerg : [..] [T1] " prefix kept the anchored rows from matching)


# Syslog keeping the record's severity before the tag, each line verbatim from the source beside it.
@pytest.mark.parametrize("line,message,host,app,when,uptime", [
    # SONiC's rsyslog template: the year first, microseconds (sonic-net/sonic-mgmt#13315, #19134)
    ("2024 Jun 14 20:55:27.633513 nfc407-7 WARNING kernel: [87791.579181] pcieport 0000:05:05.0:   device [10b5:8717] "
     "error status/mask=00000001/0000a000", "pcieport 0000:05:05.0:   device [10b5:8717] error status/mask=00000001/0000a000",
     "nfc407-7", "kernel", "2024-06-14T20:55:27.633513", 87791.579181),
    ("2025 Jun 14 02:28:46.206949 str2-8101-05 ERR kernel: [17800.425621] audit: rate limit exceeded",
     "audit: rate limit exceeded", "str2-8101-05", "kernel", "2025-06-14T02:28:46.206949", 17800.425621),
    # SONiC before the year (sonic-net/sonic-mgmt#2044): a process's line
    ("Aug  5 07:20:08.265181 str-7260cx3-acs-7 ERR hostcfgd: 'sudo systemctl start telemetry.service' failed. RC: 5, "
     "output: None", "'sudo systemctl start telemetry.service' failed. RC: 5, output: None", "str-7260cx3-acs-7",
     "hostcfgd", "2026-08-05T07:20:08.265181", None),
    # busybox syslogd's facility.severity; OpenWrt's logread (weekday, year, no host)
    ("Apr 15 11:02:05 VM kern.err kernel: [  320.682391] BUG: scheduling while atomic: brctl/3988/0x00000002",
     "BUG: scheduling while atomic: brctl/3988/0x00000002", "VM", "kernel", "2026-04-15T11:02:05", 320.682391),
    ("Sun Jun  2 16:18:17 2024 kern.err kernel: [  958.801942] ieee80211 phy0: brcmf_p2p_send_action_frame: Unknown "
     "Frame: category 0x8a, action 0x6", "ieee80211 phy0: brcmf_p2p_send_action_frame: Unknown Frame: category 0x8a, "
     "action 0x6", None, "kernel", "2024-06-02T16:18:17", 958.801942),
])
def test_a_syslog_line_with_its_severity_before_the_tag_is_read(line, message, host, app, when, uptime):
    env = detect(line, year=2026)
    assert (env.name, env.message, env.extra.get("host"), env.extra["app"]) == ("syslog", message, host, app)
    assert env.timestamp.isoformat() == when and env.uptime == (pytest.approx(uptime) if uptime else None)


def test_a_kernel_tag_of_a_daemons_facility_is_a_process():
    # busybox's klogd logs as user where libc will not log as kern: user proves nothing, daemon does
    assert detect("Feb 16 02:20:24 taser-etmv2 user.err kernel: [  444.506622] FAT-fs (sdb1): Directory bread(block "
                  "3866) failed", year=2026).extra["app"] == "kernel"
    assert detect("Feb 16 02:20:24 taser-etmv2 daemon.err kernel: NVRM: hello", year=2026).extra["app"] == "userspace"
    assert detect("Feb 16 02:20:24 host ERR kernel[12]: NVRM: hello", year=2026).extra["app"] == "userspace"


# `kubectl logs --timestamps` of a Kubernetes component (RFC3339Nano, then klog's header), klog's header alone, and
# ChromeOS's syslog (the severity where the host would be, no host): each line verbatim from the source beside it
# (tests/fixtures/realworld/envelopes-2026k.yaml). Before: the klog month and day read as a syslog host, the hour as
# the program ("I0809", "13") and the message cut from the minutes on; ChromeOS's severity read as the host.
@pytest.mark.parametrize("line,name,message,when,extra", [
    # akash-network/support#244: the NVIDIA device plugin, as kubectl printed it
    ("2024-08-09T13:32:51.873588972Z I0809 13:32:51.873541       1 health.go:185] XidCriticalError: Xid=94 on "
     "Device=GPU-3b6ec030-5adc-1847-e155-79f635584b4e; marking device as unhealthy.", "stamped",
     "XidCriticalError: Xid=94 on Device=GPU-3b6ec030-5adc-1847-e155-79f635584b4e; marking device as unhealthy.",
     "2024-08-09T13:32:51.873588+00:00", {"level": "info", "pid": 1, "source": "health.go:185"}),
    # kubernetes-sigs/dra-driver-nvidia-gpu#689: the DRA driver's own log, klog's header without kubectl's stamp
    ("I1204 20:42:19.611278       1 device_health.go:78] creating NVML events for device health monitor", "klog",
     "creating NVML events for device health monitor", "2026-12-04T20:42:19.611278",
     {"level": "info", "pid": 1, "source": "device_health.go:78"}),
    # ChromeOS (lore.kernel.org/amd-gfx/9519a041-b384-ddc9-57d5-8287e269cee0@amd.com): the inner uptime kept out too
    ("2023-07-14T15:51:24.837592Z ERR kernel: [  129.255823] amdgpu 0000:c2:00.0: amdgpu: secure submissions not "
     "supported on ring <vcn_unified_0>", "syslog",
     "amdgpu 0000:c2:00.0: amdgpu: secure submissions not supported on ring <vcn_unified_0>",
     "2023-07-14T15:51:24.837592+00:00", {"app": "kernel", "level": "err"}),
    ("2023-07-14T15:51:24.837603Z INFO kernel: [  129.255834] [drm] Skip scheduling IBs!", "syslog",
     "[drm] Skip scheduling IBs!", "2023-07-14T15:51:24.837603+00:00", {"app": "kernel", "level": "info"}),
    # a collector's stamp, then the program's own bracketed one (vllm-project/vllm#25597, docker's --timestamps):
    # no host "[2025-09-23" and program "23" (which cut the message at "57:03]")
    ("2025-09-24T03:57:03.905654827Z [2025-09-23 23:57:03] vllm-deepseek-ep-decode-0:1673:9080 [0] "
     "include/alloc.h:228 NCCL WARN Cuda failure 2 'out of memory'", "stamped",
     "[2025-09-23 23:57:03] vllm-deepseek-ep-decode-0:1673:9080 [0] include/alloc.h:228 NCCL WARN Cuda failure 2 "
     "'out of memory'", "2025-09-24T03:57:03.905654+00:00", {}),
    # a host still a host (sonic-net/sonic-mgmt#13315's rows are the syslog_level row's; this is short_iso's own form)
    ("2026-11-22T18:29:55+0000 host kernel: NVRM: hello", "syslog", "NVRM: hello", "2026-11-22T18:29:55+00:00",
     {"host": "host", "app": "kernel"}),
    # a kernel line stamped alone, no zone (open-gpu-kernel-modules#1145, verbatim, gsp.yaml): no program "NVRM"
    # (which cut "NVRM: " off the message, and the unclassified net, which needs it, lost the line)
    ("2026-05-26T06:35:02 NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1447", "stamped",
     "NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1447", "2026-05-26T06:35:02", {}),
    # constructed: kubectl's RFC3339Nano stamp before a verbatim mlx5 line (openucx/ucx#7738): no host "mlx5_core" and
    # program "0000" (which cut the message at "61:00.0:", the function's address lost and the command timeout with it)
    ("2024-08-09T13:32:51.873588972Z mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout. "
     "Will cause a leak of a command resource", "stamped", "mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181): "
     "CREATE_DCT(0x710) timeout. Will cause a leak of a command resource", "2024-08-09T13:32:51.873588+00:00", {}),
    # without a host, a process's tag has its pid (journalctl --no-hostname): still syslog
    ("2026-11-22T18:29:55+0000 systemd[1]: Started hello.service", "syslog", "Started hello.service",
     "2026-11-22T18:29:55+00:00", {"app": "systemd"}),
])
def test_kubectl_klog_and_chromeos_envelopes(line, name, message, when, extra):
    env = detect(line, year=2026)
    assert (env.name, env.message, env.timestamp.isoformat(), env.extra) == (name, message, when, extra)


# Loki's `logcli query` (tests/fixtures/realworld/envelopes-loki-2026.yaml): the stream's labels after the time are
# kept out of the message (the extra's "labels"), and the line behind them is split as a line of its own. Before: the
# labels stayed in the message, and a kernel line behind one label set was read as syslog from a host '{host=..}' and
# a program "NVRM" (a finding `parse` does not report: a process's line, not the kernel's).
@pytest.mark.parametrize("line,name,message,when,extra", [
    # grafana.com/docs/loki/v2.6.x/tools/logcli/, verbatim
    ('2018-06-25T12:52:09Z {instance="consul-8576459955-pl75w"} 2018/06/25 12:52:09 [INFO] raft: Snapshot to 475409 '
     'complete', "stamped", "2018/06/25 12:52:09 [INFO] raft: Snapshot to 475409 complete", "2018-06-25T12:52:09+00:00",
     {"labels": '{instance="consul-8576459955-pl75w"}'}),
    # grafana/loki#563, verbatim: two labels, a path in one
    ('2019-05-08T22:32:40Z {__filename__="/var/log/pods/cf3f655c-6247-11e9-aa44-42010a800150/influxdb/0.log", '
     'pod="influxdb-3"} here are the logs', "stamped", "here are the logs", "2019-05-08T22:32:40+00:00",
     {"labels": '{__filename__="/var/log/pods/cf3f655c-6247-11e9-aa44-42010a800150/influxdb/0.log", pod="influxdb-3"}'}),
    # constructed: logcli's stamp and one label before a verbatim kernel line (leptonai/gpud kmsg_test.go, xid.yaml);
    # "{}" where every label is common (grafana/loki#5702)
    ('2025-03-01T10:00:00Z {host="gpu-node-1"} NVRM: Xid (PCI:0000:05:00): 79, pid=\'<unknown>\', name=<unknown>, '
     'GPU has fallen off the bus.', "stamped", "NVRM: Xid (PCI:0000:05:00): 79, pid='<unknown>', name=<unknown>, GPU "
     "has fallen off the bus.", "2025-03-01T10:00:00+00:00", {"labels": '{host="gpu-node-1"}'}),
    ('2025-03-01T10:00:00Z {} NVRM: Xid (PCI:0000:05:00): 79, pid=\'<unknown>\', name=<unknown>, GPU has fallen off '
     'the bus.', "stamped", "NVRM: Xid (PCI:0000:05:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
     "bus.", "2025-03-01T10:00:00+00:00", {"labels": "{}"}),
    # constructed: promtail's raw /var/log/syslog line (leptonai/gpud#1209, verbatim) behind the labels: the syslog's
    # own envelope, its host and program, the year its stamp lacks Loki's
    ('2025-02-14T05:03:41Z {filename="/var/log/syslog"} Feb 14 05:03:41 000-000-00000-1-gpu-1 kernel: mlx5_core '
     '0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE', "syslog", "mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE",
     "2025-02-14T05:03:41", {"host": "000-000-00000-1-gpu-1", "app": "kernel", "labels": '{filename="/var/log/syslog"}'}),
])
def test_logcli_labels_envelope(line, name, message, when, extra):
    env = detect(line)
    assert (env.name, env.message, env.timestamp.isoformat(), env.extra) == (name, message, when, extra)
    assert split(line)[1] == message


def test_logcli_kernel_line_behind_one_label_is_the_kernels():
    """Constructed: logcli's stamp and a label before a verbatim Xid line (leptonai/gpud kmsg_test.go). Was read as
    syslog from a host '{host=..}' and program "NVRM": a process's line, which `parse` does not report."""
    from parsers import from_kernel  # noqa: PLC0415
    f = Classifier().classify('2025-03-01T10:00:00Z {host="gpu-node-1"} NVRM: Xid (PCI:0000:05:00): 79, '
                              "pid='<unknown>', name=<unknown>, GPU has fallen off the bus.")
    assert f is not None and from_kernel(f) and f.xid == 79 and f.timestamp.isoformat() == "2025-03-01T10:00:00+00:00"


def test_logcli_labels_nested_once():
    """A line behind Loki's labels that is itself stamped and labelled is text (no recursion a hostile line deepens)."""
    line = "2025-03-01T10:00:00Z {} " * 5000 + "NVRM: hello"
    env = detect(line)
    assert (env.name, env.extra) == ("stamped", {"labels": "{}"}) and env.message.endswith("NVRM: hello")


# stern's `-o json` and `-o extjson` (tests/fixtures/realworld/envelopes-stern-2026.yaml): the message decoded and split
# as a line of its own, the node (the host), namespace, pod and container in the extra. Was: plain text, the whole object.
_XID_79 = "NVRM: Xid (PCI:0000:05:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


@pytest.mark.parametrize("line,name,message,when,extra", [
    # stern/stern cmd/cmd_test.go, verbatim: -o json
    ('{"message":"json message","nodeName":"node1","namespace":"ns1","podName":"pod1","containerName":"container1",'
     '"labels":{"app":"nginx","env":"prod"},"annotations":{"version":"1.23.4"}}', "stern", "json message", None,
     {"host": "node1", "namespace": "ns1", "pod": "pod1", "container": "container1"}),
    # the same file, verbatim: -o extjson with --all-namespaces, the message an object (no line of text): plain text
    ('{"namespace": "ns1", "pod": "pod1", "container": "container1", "message": {"msg":"extjson message"}}', "plain",
     '{"namespace": "ns1", "pod": "pod1", "container": "container1", "message": {"msg":"extjson message"}}', None, {}),
    # constructed: -o extjson of a text line (its extjson function marshals it as a JSON string)
    ('{"pod": "pod1", "container": "container1", "message": "NVRM: hello \\"quoted\\""}', "stern",
     'NVRM: hello "quoted"', None, {"pod": "pod1", "container": "container1"}),
    # constructed: -o json of a verbatim kernel line (leptonai/gpud kmsg_test.go, xid.yaml) with dmesg's uptime, and
    # with an older stern's --timestamps stamp in the message (before stern #372 moved it to "timestamp")
    ('{"message":"[ 1234.567890] ' + _XID_79 + '","nodeName":"gpu-node-7","namespace":"ns1","podName":"dmesg-x",'
     '"containerName":"c"}', "dmesg", _XID_79, None,
     {"host": "gpu-node-7", "namespace": "ns1", "pod": "dmesg-x", "container": "c"}),
    ('{"message":"2025-03-01T10:00:00.123456789Z ' + _XID_79 + '","nodeName":"gpu-node-7","namespace":"ns1",'
     '"podName":"dmesg-x","containerName":"c"}', "stamped", _XID_79, "2025-03-01T10:00:00.123456+00:00",
     {"host": "gpu-node-7", "namespace": "ns1", "pod": "dmesg-x", "container": "c"}),
    ('{"message":"' + _XID_79 + '","timestamp":"2025-03-01T10:00:00.123456789Z","nodeName":"","namespace":"ns1",'
     '"podName":"dmesg-x","containerName":"c","labels":null,"annotations":null}', "stern", _XID_79,
     "2025-03-01T10:00:00.123456+00:00", {"namespace": "ns1", "pod": "dmesg-x", "container": "c"}),
    # an application's own JSON line with a "message" is no stern record (no pod): plain text, as before
    ('{"message":"NVRM: hello","level":"info"}', "plain", '{"message":"NVRM: hello","level":"info"}', None, {}),
])
def test_stern_json_envelope(line, name, message, when, extra):
    env = detect(line)
    got = (env.name, env.message, env.timestamp.isoformat() if env.timestamp else None, env.extra)
    assert got == (name, message, when, extra)


def test_stern_record_nested_is_text():
    """A stern record whose message is another (or kubectl's prefix before one) is its text: no recursion."""
    inner = '{"message":"NVRM: hello","podName":"p"}'
    env = detect('{"message":' + __import__("json").dumps(inner) + ',"podName":"q"}')
    assert (env.name, env.message, env.extra) == ("stern", inner, {"pod": "q"})
    env = detect("[pod/a/b] " + inner)
    assert (env.name, env.message, env.extra) == ("kubectl", inner, {"pod": "a", "container": "b"})


@pytest.mark.parametrize("line", [
    "I0809 13:32:51.873541 " + "1" * 5000 + " health.go:185] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has "
    "fallen off the bus.",
    "2024-08-09T13:32:51.873588972Z I0809 13:32:51.873541 " + "1" * 5000 + " health.go:185] NVRM: Xid "
    "(PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.",
    "[Jul 23 2024 07:53:55] [ERROR] [tid " + "8" * 5000 + "] detected NVSwitch fatal error 12028 on fid 0 on NVSwitch "
    "pci bus id 00000000:05:00.0 physical id 0 port 24",
])
def test_an_envelopes_number_of_5000_digits_never_raises(line):
    """A thread id past int()'s 4,300-digit limit (a garbled or hostile line, within MAX_LINE) raised ValueError in
    the klog and fabricmanager builders: the line's finding or fact was lost, counted as a bug (`gpu-npd parse`'s
    classifier errors; triage's "line .. raised (a bug; the line is skipped)": a Slurm "srun: error: .. Terminated"
    behind such a header gave no rank_exit). Such a number is no thread id: the line is read as the rows after those
    would read it."""
    env = detect(line, year=2026)
    assert env.name not in ("klog", "fabricmanager")
    assert "Xid" in env.message or "NVSwitch" in env.message


# journalctl -o short-monotonic / short-delta (tests/fixtures/realworld/journal-2026k.yaml): the record's host and tag
# after the uptime are the journal's, not the message's (were: dmesg, "archlinux kernel: " left in the message, and a
# process's line taken for the kernel's)
@pytest.mark.parametrize("line,name,message,uptime,extra", [
    ("[    0.000000] archlinux kernel: Linux version 5.19.13-arch1-1 (linux@archlinux) (gcc (GCC) 12.2.0, GNU ld "
     "(GNU Binutils) 2.39.0) #1 SMP PREEMPT_DYNAMIC Tue, 04 Oct 2022 14:36:58 +0000", "journal",
     "Linux version 5.19.13-arch1-1 (linux@archlinux) (gcc (GCC) 12.2.0, GNU ld (GNU Binutils) 2.39.0) #1 SMP "
     "PREEMPT_DYNAMIC Tue, 04 Oct 2022 14:36:58 +0000", 0.0, {"host": "archlinux", "app": "kernel"}),  # #24950
    ("[    1.241863] archlinux systemd[1]: Reached target System Initialization.", "journal",
     "Reached target System Initialization.", 1.241863, {"host": "archlinux", "app": "systemd"}),  # #24950
    ("[    1.343565] archlinux kernel: ata_piix 0000:00:01.1: version 2.13", "journal",
     "ata_piix 0000:00:01.1: version 2.13", 1.343565, {"host": "archlinux", "app": "kernel"}),  # #24950
    # short-delta, as systemd's logs-show.c prints it (no real sample found): the delta, "*" where it is of wall-clock
    # time, 16 spaces for the first record; --no-hostname leaves the tag alone; a process naming itself kernel
    ("[    1.343565 <    0.000012 >] h kernel: NVRM: hello", "journal", "NVRM: hello", 1.343565,
     {"host": "h", "app": "kernel"}),
    ("[    1.343565 <    0.000012*>] h kernel: NVRM: hello", "journal", "NVRM: hello", 1.343565,
     {"host": "h", "app": "kernel"}),
    ("[    1.343565                ] h kernel: NVRM: hello", "journal", "NVRM: hello", 1.343565,
     {"host": "h", "app": "kernel"}),
    ("[    1.343565] kernel: NVRM: hello", "journal", "NVRM: hello", 1.343565, {"app": "kernel"}),
    ("[   12.300000] h python3[123]: NVRM: hello", "journal", "NVRM: hello", 12.3, {"host": "h", "app": "python3"}),
    ("[   12.300000] h kernel[123]: NVRM: hello", "journal", "NVRM: hello", 12.3, {"host": "h", "app": "userspace"}),
    # ordinary dmesg stays dmesg, the message whole: a device after a bus or class name, a first word ending with a
    # colon, a process's /dev/kmsg line with no host, the kernel's segfault report of a name with a space, a caller
    ("[    5.123456] usb 1-1: new high-speed USB device number 2 using xhci_hcd", "dmesg",
     "usb 1-1: new high-speed USB device number 2 using xhci_hcd", 5.123456, {}),
    ("[    5.123456] pci 0000:00:01.0: [8086:7000] type 00 class 0x060100", "dmesg",
     "pci 0000:00:01.0: [8086:7000] type 00 class 0x060100", 5.123456, {}),
    ("[    5.123456] infiniband mlx5_0: hello", "dmesg", "infiniband mlx5_0: hello", 5.123456, {}),
    ("[    5.123456] EDAC MC0: 1 CE memory read error", "dmesg", "EDAC MC0: 1 CE memory read error", 5.123456, {}),
    ("[    5.123456] systemd[1]: Started foo.", "dmesg", "systemd[1]: Started foo.", 5.123456, {}),
    ("[    5.123456] Web Content[4242]: segfault at 0 ip 0 sp 0 error 4", "dmesg",
     "Web Content[4242]: segfault at 0 ip 0 sp 0 error 4", 5.123456, {}),
    ("[    5.123456] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.", "dmesg",
     "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.", 5.123456, {}),
])
def test_journal_short_monotonic_envelope(line, name, message, uptime, extra):
    env = detect(line, year=2026)
    assert (env.name, env.message, env.uptime, env.extra) == (name, message, pytest.approx(uptime), extra)


def test_journal_short_monotonic_banner_marks_the_boot_and_a_process_line_is_no_kernel_fault():
    """The banner's row matches at the message's start: with the journal's tag in the message it never fired
    (systemd/systemd#24950's line); a process's line in that mode is the process's (from_kernel)."""
    c = Classifier()
    c.read("[    0.000000] archlinux kernel: Linux version 5.19.13-arch1-1 (linux@archlinux) (gcc (GCC) 12.2.0, GNU ld "
           "(GNU Binutils) 2.39.0) #1 SMP PREEMPT_DYNAMIC Tue, 04 Oct 2022 14:36:58 +0000")
    assert c.boot.seq == 1
    from parsers import from_kernel  # noqa: PLC0415
    kernel = Classifier().classify("[   12.300000] h kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x, "
                                   "GPU has fallen off the bus.")
    process = Classifier().classify("[   12.300000] h python3[123]: NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x, "
                                    "GPU has fallen off the bus.")
    assert kernel is not None and from_kernel(kernel) and kernel.xid == 79
    assert process is None or not from_kernel(process)


# journalctl's other one-line forms, built from systemd's logs-show.c and journalctl(1) (no real sample found for
# short-unix, short-full or with-unit; the JSON records are journalctl -o json's documented fields): the time, the host,
# and whose line it is
@pytest.mark.parametrize("line,message,when,uptime,extra", [
    ("1700000000.123456 h kernel: NVRM: hello", "NVRM: hello", "2023-11-14T22:13:20.123456+00:00", None,
     {"host": "h", "app": "kernel"}),
    ("1700000000.123456 h python3[12]: NVRM: hello", "NVRM: hello", "2023-11-14T22:13:20.123456+00:00", None,
     {"host": "h", "app": "python3"}),
    ("Tue 2024-01-02 03:04:05 UTC h kernel: NVRM: hello", "NVRM: hello", "2024-01-02T03:04:05+00:00", None,
     {"host": "h", "app": "kernel"}),
    # a zone's name read where the tz database gives it one offset (parsers/envelope.py ZONE_NAMES), an ambiguous
    # one (CST: US Central, China, Cuba) left as the host's clock showed it
    ("Tue 2024-01-02 03:04:05 CET h kernel: NVRM: hello", "NVRM: hello", "2024-01-02T02:04:05+00:00", None,
     {"host": "h", "app": "kernel"}),
    ("Tue 2024-01-02 03:04:05 CST h kernel: NVRM: hello", "NVRM: hello", "2024-01-02T03:04:05", None,
     {"host": "h", "app": "kernel"}),
    ("Tue 2024-01-02 03:04:05 +03 h kernel: NVRM: hello", "NVRM: hello", "2024-01-02T03:04:05+03:00", None,
     {"host": "h", "app": "kernel"}),
    ("Tue 2024-01-02 03:04:05 UTC h nvidia-persistenced.service[12]: NVRM: hello", "NVRM: hello",
     "2024-01-02T03:04:05+00:00", None, {"host": "h", "app": "nvidia-persistenced.service"}),
    ('{"__REALTIME_TIMESTAMP":"1700000000123456","__MONOTONIC_TIMESTAMP":"99000000","_TRANSPORT":"kernel",'
     '"SYSLOG_FACILITY":"0","SYSLOG_IDENTIFIER":"kernel","_SOURCE_MONOTONIC_TIMESTAMP":"98500000","_HOSTNAME":"h",'
     '"MESSAGE":"NVRM: hello"}', "NVRM: hello", "2023-11-14T22:13:20.123456+00:00", 98.5,
     {"host": "h", "app": "kernel"}),
    # json-seq's RS; the older " : " spacing; a message that is no UTF-8 (journald's byte array)
    ('\x1e{ "__REALTIME_TIMESTAMP" : "1700000000123456", "_TRANSPORT" : "kernel", "MESSAGE" : "NVRM: hello" }',
     "NVRM: hello", "2023-11-14T22:13:20.123456+00:00", None, {"app": "kernel"}),
    ('{"__REALTIME_TIMESTAMP":"1700000000123456","_TRANSPORT":"stdout","SYSLOG_IDENTIFIER":"python3",'
     '"MESSAGE":[78,86,82,77,58,32,104,255]}', "NVRM: h\ufffd", "2023-11-14T22:13:20.123456+00:00", None,
     {"app": "python3"}),
    # a process's /dev/kmsg write comes by the kernel transport, with its own facility; "kernel" named by a process
    ('{"__REALTIME_TIMESTAMP":"1700000000123456","_TRANSPORT":"kernel","SYSLOG_FACILITY":"1",'
     '"SYSLOG_IDENTIFIER":"kernel","MESSAGE":"NVRM: hello"}', "NVRM: hello", "2023-11-14T22:13:20.123456+00:00", None,
     {"app": "userspace"}),
    ('{"__REALTIME_TIMESTAMP":"1700000000123456","_TRANSPORT":"syslog","SYSLOG_IDENTIFIER":"kernel",'
     '"MESSAGE":"NVRM: hello"}', "NVRM: hello", "2023-11-14T22:13:20.123456+00:00", None, {"app": "userspace"}),
])
def test_journal_one_line_forms(line, message, when, uptime, extra):
    env = detect(line, year=2026)
    assert env.name == "journal"
    assert (env.message, env.timestamp.isoformat(), env.uptime, env.extra) == (message, when, uptime, extra)


def test_journal_json_that_is_no_record_stays_plain():
    for line in ('{"MESSAGE": null, "_TRANSPORT": "kernel"}', '{"MESSAGE": 5}', '{"MESSAGE": "x"', '["MESSAGE"]'):
        assert detect(line).name == "plain", line


def test_journal_json_process_line_is_no_kernel_fault():
    from parsers import from_kernel  # noqa: PLC0415
    line = ('{"__REALTIME_TIMESTAMP":"1700000000123456","_TRANSPORT":"%s","SYSLOG_IDENTIFIER":"%s",'
            '"MESSAGE":"NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=x, GPU has fallen off the bus."}')
    kernel = Classifier().classify(line % ("kernel", "kernel"))
    assert kernel is not None and from_kernel(kernel) and kernel.xid == 79
    process = Classifier().classify(line % ("stdout", "python3"))
    assert process is None or not from_kernel(process)


# CONSTRUCTED here, by the real tools: journalctl 252 (Debian 12's systemd 252.38) `-o json` of a record sent to a private
# journald namespace with its MESSAGE ending in an invalid UTF-8 byte (0xff): journald keeps it as bytes and journalctl
# prints them as an array (its output verbatim, one line)
JOURNAL_BYTES_RECORD = ('{"PRIORITY":"3","_EXE":"/root/.pyenv/versions/3.11.7/bin/python3.11","_PID":"27932","_CMDLINE":"/root/.pyenv/versions/3.11.7/bin/python3 -","_SOURCE_REALTIME_TIMESTAMP":"1795945488399042","SYSLOG_IDENTIFIER":"h147-test","__MONOTONIC_TIMESTAMP":"1218072926","_HOSTNAME":"vm","_RUNTIME_SCOPE":"system","__REALTIME_TIMESTAMP":"1795945488399072","_GID":"0","_BOOT_ID":"b95da7f8657944abb5e2f300c045ccdf","_CAP_EFFECTIVE":"1fffeffffff","_MACHINE_ID":"3d1219c7c4c5404aaa1f6d2a48adfda4","_NAMESPACE":"h147","MESSAGE":[78,86,82,77,58,32,88,105,100,32,40,80,67,73,58,48,48,48,48,58,53,100,58,48,48,41,58,32,55,57,44,32,112,105,100,61,39,60,117,110,107,110,111,119,110,62,39,44,32,110,97,109,101,61,60,117,110,107,110,111,119,110,62,44,32,71,80,85,32,104,97,115,32,102,97,108,108,101,110,32,111,102,102,32,116,104,101,32,98,117,115,46,32,255],"_COMM":"python3","_UID":"0","_TRANSPORT":"journal","__CURSOR":"s=8944e645e3a548cf8a21296909df1bfb;i=3;b=b95da7f8657944abb5e2f300c045ccdf;m=489a515e;t=6616724df3ae0;x=5f3d981438a30b14"}')


def _engine_scanners():
    """(engine, a scanner on it) for each buffer engine installed here: hyperscan, RE2, re."""
    from parsers import Scanner  # noqa: PLC0415
    from parsers.classify import all_keywords, line_patterns  # noqa: PLC0415
    from parsers.prefilter import Prefilter, _load  # noqa: PLC0415

    for engine in ("hyperscan", "re2", "re"):
        try:
            _load(engine)
        except ImportError:
            continue
        yield engine, Scanner(Classifier(), Prefilter(all_keywords(), engine=engine, patterns=line_patterns()))


def test_a_journal_json_record_whose_message_is_bytes_is_decoded_before_the_keyword_test():
    """journald keeps a message that is no UTF-8 as bytes, `journalctl -o json` prints them as an array of numbers: no
    keyword is in the line as written, so the keyword prefilter (the records' and every buffer engine's) dropped it
    before the envelope decoded it (parsers/envelope.py JOURNAL_BYTES_KEYWORDS: now looked at, its decoded message
    tested). The record journalctl printed, and the same record as the kernel's (its transport fields edited)."""
    import io  # noqa: PLC0415

    from parsers import from_kernel  # noqa: PLC0415

    process = Classifier().classify(JOURNAL_BYTES_RECORD)
    assert (process.kind, process.xid, process.pci, process.program) == ("xid", 79, "0000:5d:00", "h147-test")
    assert process.message.endswith("bus. \ufffd") and not from_kernel(process)
    kernel = JOURNAL_BYTES_RECORD.replace('"_TRANSPORT":"journal"', '"_TRANSPORT":"kernel"').replace(
        '"SYSLOG_IDENTIFIER":"h147-test"', '"SYSLOG_IDENTIFIER":"kernel"')
    f = Classifier().classify(kernel)
    assert (f.kind, f.xid, f.pci) == ("xid", 79, "0000:5d:00") and from_kernel(f)
    # with a space about the colon (as the envelope's row takes it) too; a record of bytes holding no keyword: nothing
    spaced = kernel.replace('"MESSAGE":[', '"MESSAGE" : [ ').replace("255]", "255 ]")
    assert Classifier().classify(spaced).xid == 79
    assert Classifier().classify('{"_TRANSPORT":"kernel","MESSAGE":[104,105,255]}') is None
    data = ("boot noise\n" + kernel + "\n").encode()
    for engine, scanner in _engine_scanners():
        assert [(f.kind, f.xid) for f in scanner.scan(io.BytesIO(data))] == [("xid", 79)], engine


def test_mlx5_cq_error_names_its_syndrome_and_is_one_event_with_mlx5e_line():
    """eq.c's CQ error event: nic_error, a driver's warning, the syndrome in words (the PRM's: 0x1 an overrun, 0x2 an
    access violation), mlx5e's own line for the CQ part of the event.  The first two lines verbatim from lore stable
    20231124172030.865692678@linuxfoundation.org (tests/fixtures/realworld/mlx5-queues-2026m.yaml); the access
    violation modelled on them (syndrome changed)."""
    import io

    from parsers import Scanner

    text = ("mlx5_core 0000:08:00.0: cq_err_event_notifier:517:(pid 0): CQ error on CQN 0x487, syndrome 0x1\n"
            "mlx5_core 0000:08:00.0 eth2: mlx5e_cq_error_event: cqn=0x000487 event=0x04\n")
    got = list(Scanner().scan(io.BytesIO(text.encode())))
    assert [(f.kind, f.pci, f.severity, f.attribution, f.details["cq_error"]) for f in got] == [
        ("nic_error", "0000:08:00", "warning", "driver", "overrun")]
    violation = text.splitlines()[0].replace("syndrome 0x1", "syndrome 0x2") + "\n"
    assert [f.details["cq_error"] for f in Scanner().scan(io.BytesIO(violation.encode()))] == ["access violation"]


def test_a_gpu_event_line_normalizes_its_address_once():
    """An event kept per GPU (Xid 79's "fallen") keys on the address _build normalized already: one cache entry,
    one normalization, not a second under another call signature.  The line: leptonai/gpud's README
    (https://github.com/leptonai/gpud/blob/8e6719a459f38d00b113457a54946f625edd2fa2/components/accelerator/nvidia/error/sxid/README.md),
    as in tests/fixtures/realworld/sxid-2026b.yaml."""
    from parsers import Classifier
    from parsers.pci import normalize_pci

    c = Classifier()
    normalize_pci.cache_clear()
    f, _ = c.read("[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, "
                  "GPU has fallen off the bus.")
    assert f is not None and (f.xid, f.pci) == (79, "0000:91:00")
    assert normalize_pci.cache_info().misses == 1
    # that entry is the one-argument call's (a GPU's address drops its function): lru_cache keys a lone str by itself,
    # (value, False) by a tuple it builds and hashes at each call
    normalize_pci("PCI:0000:91:00")
    assert normalize_pci.cache_info().hits >= 1 and normalize_pci.cache_info().misses == 1


def test_xid_reads_derived_from_the_tables():
    """catalog.XID_READS, what _refine_xid reads an Xid's text for, by code: each table's codes, one read a code, and
    nothing for a code no table holds (an application Xid 31's line is not read past its row: no substring test)."""
    from parsers.catalog import CAUSE_XIDS, CONTAINMENT_XIDS, NVLINK5_XIDS, NVLINK_XIDS, XID48_DETAIL, XID_READS
    expected = {**{code: "link" for code in NVLINK_XIDS}, **{code: "nvlink5" for code in NVLINK5_XIDS},
                **{code: "containment" for code in CONTAINMENT_XIDS}, **{code: "detail" for code in XID48_DETAIL},
                154: "recovery", **{code: "cause" for code in CAUSE_XIDS}}
    assert XID_READS == expected and XID_READS[45] == "cause"
    assert 31 not in XID_READS and 13 not in XID_READS
    # the driver names an earlier Xid on Xid 45's line alone (kernel_rc.c: bPrintRootCause): another code's text is
    # not read for one. Constructed (an Xid 31 with Xid 45's suffix, which the driver never prints), not a real line
    f = parse_line("NVRM: Xid (PCI:0000:3b:00): 31, pid=7, name=python3, Ch 00000001 caused by previous Xid 149")
    assert "caused_by_xid" not in f.details and f.attribution == xid_info(31).attribution
    # each read still gives its line's facts
    f = parse_line("NVRM: Xid (PCI:0000:3b:00): 94, pid=1, name=x, Contained: SM (0x1). RST: Yes, D-RST: No")
    assert f.details["recovery_action"] == "gpu reset required" and f.action == "RESET_GPU"
    f = parse_line("NVRM: Xid (PCI:0000:3b:00): 74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 7")
    assert f.details["link"] == 7
    f = parse_line("NVRM: Xid (PCI:0000:3b:00): 45, pid=7, name=python3, Ch 00000001 caused by previous Xid 149")
    assert f.details["caused_by_xid"] == 149 and f.attribution == xid_info(149).attribution


def test_a_keyword_json_escaped_in_a_docker_or_stern_line_is_found_by_every_engine():
    """docker's json-file log writes `<`, `>`, `&` as \\u003c, \\u003e, \\u0026 and a backslash before `"` and `\\`
    (moby daemon/logger/jsonfilelog/jsonlog/jsonlogbytes.go `ffjsonWriteJSONBytesAsString`), stern's `-o json` too (Go's
    encoding/json): a line whose only keyword holds one (libfabric's EFA `<warn>` line, the real one of aws/aws-ofi-nccl
    #346 as tests/fixtures/realworld/ib-transports.yaml holds it) was not looked at in such a record by any engine's
    scan nor the line's keyword test (h619 found it in triage). CONSTRUCTED: that real line in docker's record (its shape:
    this file's docker envelope case) and in stern's (stern/stern cmd/cmd_test.go @8a00e61 L274,
    tests/fixtures/realworld/envelopes-stern-2026.yaml), escaped as each writes it."""
    import io  # noqa: PLC0415

    real = ("libfabric:451707:1708520807::efa:cq:efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid address "
            "My EFA addr: fi_addr_efa://[fe80::13:c2ff:fe6f:f03d]:0:1072483550 My host id: i-0db7083f3fcbebb65 Peer EFA "
            "addr: fi_addr_efa://[fe80::b8:aff:fe44:425]:0:947699476 Peer host id: i-0ce6d3d57139f053c (7)")
    escaped = real.replace("<", "\\u003c").replace(">", "\\u003e")
    docker = '{"log":"' + escaped + '\\n","stream":"stderr","time":"2024-07-25T06:36:18.293456789Z"}'
    stern = ('{"message":"' + escaped + '","nodeName":"node1","namespace":"ns1","podName":"pod1",'
             '"containerName":"container1","labels":{"app":"nginx","env":"prod"},"annotations":{"version":"1.23.4"}}')
    alone = Classifier().classify(real)
    want = [(alone.kind, alone.peer, alone.message)]
    assert want[0][:2] == ("ib_completion_error", "i-0ce6d3d57139f053c")
    for line in (docker, stern):
        assert [(f.kind, f.peer, f.message) for f in [Classifier().classify(line)] if f] == want, line
        for engine, scanner in _engine_scanners():
            got = list(scanner.scan(io.BytesIO(("noise\n" + line + "\n").encode())))
            assert [(f.kind, f.peer, f.message) for f in got] == want, (engine, line)


def test_the_last_part_of_a_cri_group_longer_than_its_cap_joins_the_parts_before_it():
    """A CRI partial group of more than MAX_CRI_PARTS lines: the first span's group stops at the cap, so its last part
    (the `F` line, here the one holding the keyword) is read with the parts before it (parsers/scan.py: the line after
    one holding " P ", that line a span skipped inside the first group, marked).  Without the mark it was read alone
    (its own line number, the parts' text lost).  CONSTRUCTED: CRI's format, the driver's Xid 79 text."""
    import io  # noqa: PLC0415

    from parsers import Scanner  # noqa: PLC0415
    from parsers.scan import MAX_CRI_PARTS  # noqa: PLC0415

    stamp = "2024-07-25T06:36:18.29345678{}Z stderr {} {}"
    xid = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."
    parts = [stamp.format(i % 10, "P", "part") for i in range(MAX_CRI_PARTS)] + [stamp.format(9, "F", xid)]
    (f,) = Scanner().scan(io.BytesIO(("\n".join(parts) + "\n").encode()))
    assert (f.kind, f.xid, f.line) == ("xid", 79, 2) and f.message.startswith("part")


def test_a_daemons_kinds_are_known_and_never_the_kernels_xid_or_sxid():
    """parsers.finding.DAEMON_KINDS: a daemon's program name (the writer's own claim) lets only kinds that daemon
    reports through from_kernel: known kinds, never an Xid or SXid (the kernel's word alone)."""
    from parsers.finding import DAEMON_KINDS, KERNEL_PROGRAMS, KINDS  # noqa: PLC0415

    assert not set(DAEMON_KINDS) & KERNEL_PROGRAMS
    for program, kinds in DAEMON_KINDS.items():
        assert kinds and kinds <= set(KINDS) and not kinds & {"xid", "sxid"}, program
