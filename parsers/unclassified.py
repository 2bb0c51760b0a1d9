"""Nothing unknown is silently lost: the safety net under the rule table.

A line from a GPU, NVSwitch, NIC or PCIe driver that carries an error word but that no rule
recognised becomes a finding of kind `unclassified` (severity warning; no condition rule matches
it, so it never raises a node condition by itself).  `gpu-npd parse --unclassified` lists them so
an operator sees new driver formats instead of losing them.

Everything here is data: the drivers (keyword -> driver label), the error words, and the known
healthy lines that carry an error word anyway (boot noise).  Patterns stay hyperscan-compatible:
no backreferences, no lookarounds.
"""

from __future__ import annotations

import re

from .kinds import DEVICES
from .wordscan import LazyPattern

# Driver marker as it appears in the message -> driver label (the metric's `driver` label).
# Order matters only for lines naming two drivers: the first listed wins.
DRIVERS: tuple[tuple[str, str], ...] = (
    ("nvidia-nvswitch", "nvidia-nvswitch"),
    ("nvidia-fabricmanager", "nvidia-fabricmanager"),
    ("nv-fabricmanager", "nvidia-fabricmanager"),
    ("nvidia-peermem", "nvidia-peermem"),
    ("nvidia_peermem", "nvidia-peermem"),
    ("nvidia-modeset", "nvidia-modeset"),
    ("nvidia-uvm", "nvidia-uvm"),
    ("NVRM", "nvidia"),
    ("mlx5_core", "mlx5_core"),
    ("mlx5_ib", "mlx5_ib"),
    ("pcieport", "pcieport"),
    # Broadcom NetXtreme-C/E (Thor2 RoCE NICs of GPU clouds): bnxt_en prints the RoCE driver's command-queue lines too
    ("bnxt_en", "bnxt_en"),
    ("bnxt_re", "bnxt_re"),
    # The cloud GPU fabrics' NICs, by their dev_printk prefix on the instance's PCI domain 0000 (the bare names are
    # words of other lines: libfabric's "efa" provider, "gve" inside identifiers): AWS EFA (efa_com.c's admin queue
    # has rows of its own) and Google's gVNIC (gve: A3's GPUDirect-TCPX NICs and every GCE VM's Ethernet)
    ("efa 0000:", "efa"),
    ("gve 0000:", "gve"),
)
DRIVER_KEYWORDS: tuple[str, ...] = tuple(k for k, _ in DRIVERS)
# Driver label -> the device its lines are about (a key of parsers/kinds.py DEVICES), as a classified finding's kind
# says it: the finding's address keeps its PCI function where that device is one function (kinds.FUNCTION_DEVICES, a
# NIC's port, a PCIe port: classify.FUNCTION_DRIVERS), so an unclassified line of a NIC's second port is that port's.
# Labels not listed name no device whose address is a function (the GPU's are its device number).
DRIVER_DEVICES: dict[str, str] = {"nvidia": "gpu", "nvidia-modeset": "gpu", "nvidia-nvswitch": "nvswitch",
                                  "mlx5_core": "nic", "mlx5_ib": "nic", "pcieport": "pcie", "bnxt_en": "nic",
                                  "bnxt_re": "nic", "efa": "nic", "gve": "nic"}


def check_tables() -> None:
    """The tables' own check, at import: a ValueError of one line naming the entries at fault (real errors, not
    asserts: those are gone under `python -O`)."""
    if stray := sorted(f"{label}: {device}" for label, device in DRIVER_DEVICES.items()
                       if label not in {one for _, one in DRIVERS} or device not in DEVICES):
        raise ValueError(f"parsers/unclassified.py: DRIVER_DEVICES names a driver DRIVERS lacks or a device DEVICES "
                         f"lacks: {', '.join(stray)}")


check_tables()

# Words that make a driver line worth a look.
ERROR_WORDS = re.compile(
    r"\b(?:errors?|fail(?:ed|ure|s)?|fatal|faults?|timed? ?out|timeout|corrupt(?:ed|ion)?|abort(?:ed)?|"
    r"unrecoverable|uncorrectable|hang|hung|exception|critical|assert(?:ion)?|panic|lost|unable|"
    r"invalid|bad)\b", re.I)

# Healthy lines that carry an error word (boot and capability announcements), as regexes over the
# message.  Each entry names where the shape was seen.
BENIGN: tuple[tuple[str, str], ...] = (
    (r"DPC: error containment capabilities", "kernel pcieport DPC probe at boot"),
    (r"AER: enabled with IRQ", "kernel pcieport AER probe at boot"),
    (r"Correctable Errors collector initialized", "kernel RAS at boot"),
    (r"mlx5_pcie_event.*sufficient power", "mlx5 PCIe power check passed"),
    (r"\bIS_ERR\b", "symbol names in traces"),
    (r"NVRM: .*Xid", "an Xid line the rule table did not take: handled by the xid rule or its look-alike"),
    (r"\b(?:0|no) errors?\b", "a count of zero errors"),
    (r"error (?:count|counters?) (?:cleared|reset)", "counter housekeeping"),
    # objClInitPcieChipset (open-gpu-kernel-modules src/nvidia/src/kernel/platform/chipset/chipset.c) prints these and
    # carries on: a chipset/root-port/upstream-port tweak that returned an error, the root port not found (VMs); its
    # caller clInitPcie ignores the status.  525-era "NVRM objClInitPcieChipset: ..", later "NVRM: objCl..".
    (r"NVRM:? objClInitPcieChipset: (?:\*\*\* )?(?:(?:Chipset|Root Port|Upstream port) Setup Function Error|"
     r"Unable to get PCI port handles)",
     "the GPU driver's PCIe chipset set-up at start (open-gpu-kernel-modules #421)"),
    # kernel-open/nvidia/nv-msi.c: MSI could not be enabled, the driver uses the PCIe virtual-wire interrupt (INTx)
    # and carries on (580.119.02, CachyOS-PKGBUILDS #1038: "The system is stable"), at every boot of such a host.
    # Only the fallback's wording: "Failed to enable MSI-X." (no fallback named) stays the net's.
    (r"NVRM: GPU \S+ Failed to enable MSI; falling back to PCIe virtual-wire interrupts",
     "the GPU driver falling back to INTx at start (CachyOS-PKGBUILDS #1038)"),
    # The last of the five lines of the driver's warning at load that a framebuffer console (vesafb, efifb) drives
    # the primary VGA device ("NVRM: Your system is not currently configured to drive a VGA console" .. "NVRM:
    # corruption and stability problems, and is not supported."): the console's set-up, at each load on such a host,
    # the GPU working (an nvidia-bug-report.log's journal and dmesg copies, maz906/caffe; OpenELEC.tv #2328).
    (r"NVRM: corruption and stability problems, and is not supported\.",
     "the GPU driver's warning at load about a framebuffer console on the primary VGA device"),
    # The RM's own word that a call is not implemented here, at a working GPU's start (an H100 in a TDX guest, 550,
    # NVIDIA/nvtrust #54: nvidia-smi saw the GPU after these lines): a generated HAL stub's assertion ("NVRM:
    # nvAssertFailed: Assertion failed: 0 @ g_kern_gmmu_nvoc.h:1967", NV_ASSERT_PRECOMP(0) in an inline the NVOC
    # generator emits for a HAL entry this GPU or mode lacks, returning NV_ERR_NOT_SUPPORTED or 0:
    # src/nvidia/generated/g_*_nvoc.h) and a check or assertion on a call that answered NV_ERR_NOT_SUPPORTED ("Check
    # failed: Call not supported [NV_ERR_NOT_SUPPORTED] (0x00000056) returned from .."): a capability's answer, no
    # fault. Where such lines precede a failed init, its "RmInitAdapter failed!" is the finding (rules.py rminit).
    (r"NVRM:? (?:GPU\d+ )?nvAssertFailed(?:NoLog)?: Assertion failed: 0 @ g_\w+_nvoc\.h:\d+",
     "a generated HAL stub's assertion (a call this GPU does not implement)"),
    (r"NVRM:? (?:GPU\d+ )?nv(?:Assert|Check)(?:Ok)?Failed(?:NoLog)?: (?:Assertion|Check) failed: Call not supported "
     r"\[NV_ERR_NOT_SUPPORTED\]",
     "an RM check on a call that answered not supported"),
    # The RM asking whether a client's device uses device profiling on a MIG GPU while profiling is in use
    # (kmigmgrIsDeviceUsingDeviceProfiling, kernel_mig_manager.c: "Check failed: Requested object not found
    # [NV_ERR_OBJECT_NOT_FOUND] (0x00000057) returned from gisubscriptionGetGPUInstanceSubscription(..)"): a client
    # subscribed to no GPU instance (nvidia-smi, DCGM, NVML at the device level) has no subscription to find and the
    # answer is "no"; one line per such call, hundreds a minute under a profiling exporter on a working MIG GPU
    # (open-gpu-kernel-modules #427, 525; dcgm-exporter #657, 58x). Another status from that lookup stays the net's.
    (r"NVRM:? (?:GPU\d+ )?nv(?:Assert|Check)(?:Ok)?Failed(?:NoLog)?: (?:Assertion|Check) failed: Requested object not "
     r"found \[NV_ERR_OBJECT_NOT_FOUND\] \(0x00000057\) returned from gisubscriptionGetGPUInstanceSubscription\(",
     "a MIG GPU's lookup of a GPU-instance subscription the client does not have"),
    # A client asking the RM to free an OS event (its file descriptor and parent handle) that the RM has no record of,
    # as when a process's teardown frees one already gone (osapi.c free_os_event: "NVRM: free_os_event: failed to find
    # OS event:", then its "hParent:" and "fd:" lines): the call answers NV_ERR_INVALID_EVENT to that client, no GPU is
    # involved (a working A30 node under dcgm-exporter, NVIDIA/dcgm-exporter #736).
    (r"NVRM:? free_os_event: failed to find OS event",
     "a client freeing an OS event the RM has no record of"),
    # The kernel's notice, once a boot, that it loaded a module without a valid signature (kernel/module/signing.c,
    # kernel/module.c before 5.19: "%s: module verification failed: signature and/or required key missing - tainting
    # kernel"): every out-of-tree module on a kernel with CONFIG_MODULE_SIG and no enforcement, nvidia and
    # nvidia_peermem as any (stondo.github.io's DGX Spark post, NVIDIA/k8s-device-plugin #480); the module loaded.
    # A module the kernel refused ("Key was rejected by service") prints no such line.
    (r"\w+: module verification failed: signature and/or\s+required key missing - tainting kernel",
     "the kernel's once-a-boot taint notice for an unsigned out-of-tree module"),
    # bnxt_en at probe, for firmware that asks for long command timeouts: a notice of the timeout, no fault (a 6.8 boot,
    # yoannlr.github.io content/broadcom-bcm57416-driver.md)
    (r"bnxt_en .*Device requests max timeout of \d+ seconds, may trigger hung task watchdog",
     "bnxt_en's firmware command timeout notice at probe"),
    # efa's verdict on one admin command, alone (no admin queue failure around it: rules.py efa_cmd_failed): the device
    # refused that command's parameters, as a process's deregistration racing the Neuron driver's clean-up at exit
    # ("benign", aws-neuron-sdk nrt-troubleshoot-trn1.rst; NVSentinel: non-fatal, no action)
    (r"\befa 0000:[0-9a-f:.]+(?: \w+)?: Failed to (?:process|submit) command \w+ \(opcode \d+\)",
     "efa's verdict on one admin command the device refused"),
    # mlx5's answer to a read of a port's module EEPROM (ethtool -m, or a monitoring agent's scrape of it) that the
    # firmware refused, as for a cage with no module in it: port.c's mlx5_core_err "query_mcia_reg failed: status:
    # 0x%x" (mlx5_query_module_eeprom to 5.12, mlx5_query_module_id / mlx5_query_mcia after) and en_ethtool.c's
    # netdev_err "mlx5e_get_module_eeprom: mlx5_query_eeprom failed:0x%x" (6.18.y+ with ", status %u"), once per
    # query. The query's caller has its answer; no fault of the port (a module that fails has link lines of its own).
    # At error severity on every scrape of every empty cage: "Millions of log entries a day because some ports don't
    # have an SFP plugged in" (netdev, lore 20251028154330.6705d2da@kernel.org, on the patch that moved the status to
    # the caller).
    (r"mlx5_core .*(?:\bquery_mcia_reg failed: status: 0x[0-9a-f]+|\bmlx5e_get_module_eeprom: mlx5_query_eeprom "
     r"failed:)",
     "mlx5's answer to a module EEPROM query the firmware refused (an empty cage)"),
    # Oracle's UEK mlx5_core at each port's probe and removal (every boot, openibd restart, a VF the hypervisor
    # removes): "mlx5_core <pci>: Successfully registered panic handler for port 1" and its "unregistered" twin, the
    # word "panic" the handler's name (netdev lore 2fc66048-36be-408d-a79f-0393ce2b4040@nvidia.com, an Oracle report;
    # oracle/oracle-linux #85, UEK 5.4.17 on Azure). A probe's failure between them stays the net's.
    (r"mlx5_core .*: Successfully (?:un)?registered panic handler for port \d+",
     "UEK mlx5_core's notice at each port's probe and removal (its panic handler)"),
)
_BENIGN = LazyPattern("|".join(f"(?:{p})" for p, _ in BENIGN), re.I)  # compiled at the first driver error line


def unclassified(message: str) -> tuple[str, str] | None:
    """(driver, error word) when a driver line carries an error word after the driver's name and is not known
    benign (an error word only before it: no; the prefilter's net pattern reads the same order,
    classify.line_patterns)."""
    for keyword, driver in DRIVERS:
        at = message.find(keyword)
        if at >= 0:
            break
    else:
        return None
    m = ERROR_WORDS.search(message, at + len(keyword))
    if m is None or _BENIGN.search(message):
        return None
    return driver, m.group(0).lower()
