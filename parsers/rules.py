"""The rule table: keyword prefilter -> regex -> finding kind and fields.

One row per pattern.  Rows are tried in order and the first match wins, so more specific rows
come first; a row is tried only when one of its keywords occurs in the message.  Named groups
`pci`, `pid`, `process`, `rank`, `peer`, `xid`, `sxid` fill the finding's fields, every other
named group goes to `details`.  Severity, attribution and action come from the row, optionally
refined by a lookup table (`refine`), so adding a pattern or an Xid is one row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .catalog import (NVLINK5_LINE, NVLINK5_UNIT_OVERRIDE, NVLINK5_VERDICT, NVLINK_XIDS, XID154_RECOVERY, sxid_info,
                      xid_info)
from .kinds import BY_NAME as KIND
from .wordscan import word_regex

PCI = r"(?:PCI:)?[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?"
# Domain optional: old drivers print `bus:dev.fn` only (`NVRM: GPU 18:00.0: ...`).
PCI_SHORT = r"(?:PCI:)?(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?"


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    kind: str | None  # None: a look-alike that must not become a finding
    keywords: tuple[str, ...]
    pattern: re.Pattern
    severity: str = "error"
    attribution: str = "unknown"
    action: str = "INVESTIGATE"
    refine: str | None = None  # a key of REFINERS
    # Multi-line events (a key of EVENT_LINES, and the row's role in it): "open" starts a new event (its
    # finding is the event's); "join" is part of an open event (no finding) or, with none open, opens one;
    # "member" (a kind-None row) is part of an open event and never a finding by itself.
    event: tuple[str, str] | None = None


# The first "mlx5_core <pci>" of a line, committed to (atomic): the scan after it runs once, so a line of the
# prefix repeated cannot make the rule quadratic (one mlx5_core per real line anyway).
FIRST_MLX5 = r"^(?>.*?mlx5_core (?P<pci>" + PCI + r"))"


def _r(name, kind, keywords, pattern, severity=None, attribution=None, action=None,
       refine=None, flags=0, event=None) -> Rule:
    """A row; severity, attribution and action left out are its kind's (parsers/kinds.py)."""
    row = KIND.get(kind)
    if row is not None:
        severity, attribution, action = severity or row.severity, attribution or row.attribution, action or row.action
    return Rule(name, kind, tuple(keywords), re.compile(pattern, flags), severity or "error",
                attribution or "unknown", action or "INVESTIGATE", refine, event)


# How many lines after its last line a multi-line event stays open (lines no rule reads count too).
EVENT_LINES = {"aer": 12, "mlx5_health": 20, "mlx5_tx_timeout": 4, "knvlink": 2, "nccl_exception": 2}
# Events kept apart per device (the PCI address on the line): a health dump of one mlx5 function does not
# swallow the next function's own health failure a few lines later.
EVENT_PER_DEVICE = frozenset({"mlx5_health", "mlx5_tx_timeout"})
AER_OPEN, AER_JOIN, AER_MEMBER = ("aer", "open"), ("aer", "join"), ("aer", "member")
MLX5_HEALTH_JOIN, MLX5_HEALTH_MEMBER = ("mlx5_health", "join"), ("mlx5_health", "member")
MLX5_TX_JOIN = ("mlx5_tx_timeout", "join")
# PyTorch's NCCL exception: the wrapper line ("NCCL error in: ..., unhandled system error") and, on the next
# line, NCCL's description of the code ("ncclSystemError: System call ... failed") are one failure
NCCL_EXC_OPEN, NCCL_EXC_JOIN = ("nccl_exception", "open"), ("nccl_exception", "join")


RULES: tuple[Rule, ...] = (
    # --- look-alikes: NCCL's INFO chatter mentions NET/IB, mlx5, NVLink and "remote" all day long.
    _r("nccl_info", None, ["NCCL INFO"], r"\bNCCL INFO\b"),
    # --- GPU (NVRM) ---
    # SXid events continue on lines that repeat the code with register data: one event, one finding.
    _r("sxid_continuation", None, ["SXid"], r"SXid \(" + PCI + r"\): \d+, (?:Data \{|Severity \d+ Engine instance)"),
    _r("sxid", "sxid", ["SXid"],
       r"(?P<switch>nvidia-nvswitch\d+)?:? ?SXid \((?P<pci>" + PCI + r")\): (?P<sxid>\d+),"
       r"(?: (?P<fatality>Non-fatal|Fatal),)?(?: Link (?P<link>\d+))?\s*(?P<text>.*)",
       attribution="fabric", refine="sxid"),
    # NVIDIA Fabric Manager's own log (fabricmanager.log, or nv-fabricmanager in syslog) reports the same SXid codes.
    _r("fm_nvswitch_error", "sxid", ["detected NVSwitch"],
       r"detected NVSwitch (?P<fatality>fatal|non-fatal) error (?P<sxid>\d+) on fid (?P<fid>\d+)"
       r"(?: on NVSwitch pci bus id (?P<pci>" + PCI + r"))?(?: physical id (?P<physical_id>\d+))?(?: port (?P<link>\d+))?",
       attribution="fabric", refine="sxid"),
    # Fabric Manager could not set up an NVLink multicast (NVLS) team: a GPU it was asked for is not in the fabric.
    _r("fm_multicast_gpu_missing", "nvlink", ["failed to find the GPU handle"],
       r"failed to find the GPU handle (?P<gpu_handle>\d+) in the multicast team request",
       attribution="fabric", action="CONTACT_SUPPORT"),
    # The banner the driver prints before an Xid 119/120 line (`_kgspLogXid119: *** GSP Timeout ***`) is part
    # of that Xid event, not one of its own.
    _r("gsp_timeout_banner", None, ["_kgspLog"], r"_kgspLog(?:Xid119|RpcTimeout): \*+ GSP (?:Timeout|Failure)"),
    # The address: `PCI:dddd:bb:dd`, bare `dddd:bb:dd`, redacted `PCI:...` (no address: taken from context),
    # followed on MIG GPUs by ` GPU-I:nn` and ` GPU-CI:nn` inside the parenthesis.  "Xid" comes first and its
    # no-letter-before test after it, so `re` finds the literal with a fast scan instead of trying each position.
    _r("xid", "xid", ["Xid"],
       r"Xid(?<![A-Za-z]Xid) \((?:(?P<pci>" + PCI + r")|PCI:\.\.\.)(?: GPU-I:(?P<gpu_instance>\d+))?"
       r"(?: GPU-CI:(?P<compute_instance>\d+))?\): (?P<xid>\d+)"
       r"(?:, pid=(?:'?<unknown>'?|(?P<pid>\d+)))?(?:, name=(?:<unknown>|(?P<process>[^,]*)))?,?\s*(?P<text>.*)",
       refine="xid"),
    _r("fallen_off_bus", "fallen_off_bus", ["fallen off the bus"],
       r"(?:GPU (?P<pci>" + PCI_SHORT + r"):? )?(?:GPU )?(?:has )?fallen off the bus",
       severity="fatal", attribution="hardware", action="RESTART_BM"),
    _r("reset_required", "gpu_reset_required", ["NV_ERR_RESET_REQUIRED"], r"NV_ERR_RESET_REQUIRED",
       severity="fatal", attribution="driver", action="RESET_GPU"),
    _r("driver_load", "driver_load", ["NVRM: loading"],
       r"NVRM: loading NVIDIA UNIX (?P<arch>\S+) Kernel Module\s+(?P<version>[\d.]+)",
       severity="info", attribution="driver", action="NONE"),
    _r("gpu_reset", "gpu_reset", ["NVRM: GPU"],
       r"NVRM: GPU (?P<pci>" + PCI + r"):? .*\b(?:reset (?:complete|succeeded|done)|(?:was|has been) reset)",
       severity="info", attribution="driver", action="NONE", flags=re.I),
    # CUDA's sticky error after an NVLink fault, as an application prints it: a CUDA error, not an NVRM line
    _r("cuda_nvlink", "cuda_error", ["uncorrectable NVLink error"],
       r"CUDA error: (?P<cuda_error>uncorrectable NVLink error detected during the execution)",
       severity="error", attribution="unknown", action="INVESTIGATE", refine="cuda"),
    # NVLink discovery / training failures the driver names by its knvlink* function, e.g. on Hopper/Blackwell
    # "NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask failed!" (a word-bounded
    # "nvlink" never occurs in them).  The driver prints them in pairs (Update..Mask_IMPL then Discover..GH100)
    # and repeats the pair while it retries: one event while they keep coming.  The healthy knvlink* lines ("Fabric base addr .. is assigned") carry no
    # failure word.
    _r("nvrm_knvlink", "nvlink", ["NVRM: knvlink"],
       r"NVRM: (?P<function>knvlink\w+): (?=.*?\b(?P<what>[Ff]ail(?:ed|ure)?|[Ee]rror|[Tt]imeout|[Tt]imed out)\b)",
       attribution="hardware", action="CONTACT_SUPPORT", event=("knvlink", "join")),
    _r("nvlink", "nvlink", ["NVLink", "nvlink", "NVLINK"],
       # anchored and atomic: the first "nvlink" only, then one forward scan (linear; a line of repeated
       # "nvlink " once backtracked for 19 s in the unanchored form)
       r"^(?>.*?\bnvlink\b)(?=.*?\b(?P<what>errors?|fail(?:ed|ure)?|fatal|down|fault|timeout)\b)"
       r"(?:.*?\blink\s*(?P<link>\d+))?",
       attribution="hardware", action="CONTACT_SUPPORT", flags=re.I),
    # --- PCIe AER (kernel's aer driver, old and new wording) ---
    # One event is several lines: the root port's "error received" line names the device that reported it
    # (the event's PCI), then per device with status logged "PCIe Bus Error", "device [vvvv:dddd] error
    # status/mask", one "[nn] Name" line per status bit, "TLP Header", and the recovery lines. One finding per
    # event: the received line opens it; the others join it (EVENT_LINES). Without a received line (firmware
    # first, a cut log), "PCIe Bus Error" opens the event for the device on its line.
    _r("aer_received", "pcie_aer", ["AER:"],
       r"(?:(?P<domain>[0-9a-fA-F]{4}):[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]: )?AER: (?:Multiple )?"
       r"(?P<aer_severity>Correct(?:ed|able)|Uncorrect(?:ed|able) \((?:Non-Fatal|Fatal)\)) error "
       r"(?:message )?received(?::| from) (?:id=(?P<aer_id>[0-9a-fA-F]{4})\b|(?P<pci>" + PCI + r"))",
       attribution="hardware", refine="aer", event=AER_OPEN),
    _r("aer_bus_error", "pcie_aer", ["PCIe Bus Error"],
       r"PCIe Bus Error: severity=(?P<aer_severity>Correct(?:ed|able)|Uncorrect(?:ed|able) \((?:Non-Fatal|Fatal)\)|"
       r"Uncorrected|Fatal)(?:, type=(?P<layer>[^,]+))?",
       attribution="hardware", refine="aer", event=AER_JOIN),
    _r("aer_status", None, ["error status/mask"], r"device \[[0-9a-fA-F]{4}:[0-9a-fA-F]{4}\] error status/mask=",
       event=AER_MEMBER),
    _r("aer_tlp", None, ["TLP Header"], r"TLP Header:", event=AER_MEMBER),
    _r("aer_first", None, ["reported first"], r"Error of this Agent is reported first", event=AER_MEMBER),
    _r("aer_recovery", None, ["AER: can't recover", "AER: device recovery"],
       r"AER: (?:can't recover \(no error_detected callback\)|device recovery (?:failed|successful))",
       event=AER_MEMBER),
    # one line per status bit ("[ 0] Receiver Error", "[12] Timeout"): error words, but only a detail
    _r("aer_bit", None, ["pcieport"], r"pcieport [0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]:\s+\[\s?\d{1,2}\] \S",
       event=AER_MEMBER),
    # --- Mellanox / InfiniBand / RoCE ---
    _r("mlx5_link", "ib_link", ["mlx5_core"],
       r"mlx5_core (?P<pci>" + PCI + r") (?P<netdev>\S+): Link (?P<state>down|up)\b",
       severity="error", attribution="fabric", action="CHECK_LINK", refine="ib_link"),
    _r("mlx5_module", "ib_link", ["Port module event"],
       r"(?:mlx5_core (?P<pci>" + PCI + r"):.*)?Port module event(?:\[(?P<level>\w+)\])?: "
       r"module (?P<module>\d+), (?P<state>Cable (?:plugged|unplugged|error)|Cable \w+)(?:, (?P<reason>.*))?",
       severity="error", attribution="fabric", action="CHECK_CABLE", refine="ib_link"),
    _r("mlx5_module_temperature", "nic_error", ["High Temperature"],
       r"(?:mlx5_core (?P<pci>" + PCI + r"):? )?Port module event(?:\[(?P<level>\w+)\])?: module (?P<module>\d+), "
       r"(?P<what>High Temperature)",
       severity="error", attribution="hardware", action="INVESTIGATE"),
    _r("mlx5_pcie_power", "nic_error", ["insufficient power"],
       r"(?:mlx5_core (?P<pci>" + PCI + r"):? (?:mlx5_pcie_event:\d+:\(pid \d+\): )?)?"
       r"Detected insufficient power on the PCIe slot(?: \((?P<watts>\d+)W\))?",
       severity="error", attribution="hardware", action="INVESTIGATE"),
    _r("mlx5_probe", "nic_error", ["mlx5_core: probe of"],
       r"mlx5_core: probe of (?P<pci>" + PCI + r") failed with error (?P<errno>-?\d+)",
       severity="error", attribution="hardware", action="INVESTIGATE"),
    # A firmware health failure is one event per function: "device's health compromised - reached miss count"
    # and/or "Health issue observed, <syndrome>" then print_health_info's dump (assert_var[n], assert_exit_ptr,
    # assert_callra, fw_ver, time, hw_id, rfr, severity, irisc_index, synd, ext_synd, raw fw_ver): the dump's
    # register lines are members; a "synd 0x.." line with no open event (older kernels print no banner) opens one.
    _r("mlx5_health_dump", None, ["mlx5_core"],
       FIRST_MLX5 + r":? (?:\w+:\d+:\(pid \d+\): )?(?:assert_var\[\d+\]|assert_exit_ptr|assert_callra|fw_ver|time|"
       r"hw_id|rfr|severity|irisc_index|ext_synd|raw fw_ver) ", event=MLX5_HEALTH_MEMBER),
    _r("mlx5_health", "nic_error", ["mlx5_core"],
       FIRST_MLX5 + r":? .*?(?P<what>health compromised|firmware (?:fatal|internal) error|"
       r"fw_fatal|Driver is in error state|synd 0x[0-9a-f]+|FW (?:fatal|hang))",
       severity="fatal", attribution="hardware", action="RESET_NIC", flags=re.I, event=MLX5_HEALTH_JOIN),
    # mlx5e's TX timeout handler: "TX timeout detected" (no queue), then one "TX timeout on queue: N, SQ: .."
    # line per stuck queue: one event per netdev.
    _r("mlx5_tx_timeout", "nic_error", ["TX timeout"],
       FIRST_MLX5 + r" (?P<netdev>\S+): TX timeout (?:detected|on queue: (?P<queue>\d+))",
       severity="error", attribution="hardware", action="INVESTIGATE", event=MLX5_TX_JOIN),
    _r("mlx5_cmd", "nic_error", ["mlx5_core"],
       FIRST_MLX5 + r":? .*?(?:(?P<command>[A-Za-z_]{3,}\(0x[0-9a-f]+\))(?: op_mod\(0x[0-9a-f]+\))? "
       r"failed(?:, status (?P<status>[^,]+))?|(?P<timeout>No done completion|timeout\. Will cause a leak))",
       severity="error", attribution="driver", action="INVESTIGATE"),
    # the same command failure printed without the device prefix (some kernels' mlx5_cmd_check)
    _r("mlx5_cmd_nodev", "nic_error", ["mlx5_cmd_check", "mlx5_cmd_out_err"],
       r"mlx5_cmd_(?:check|out_err):\d+:\(pid \d+\): (?P<command>[A-Za-z_]{3,}\(0x[0-9a-f]+\))"
       r"(?: op_mod\(0x[0-9a-f]+\))? failed(?:, status (?P<status>[^,]+))?",
       severity="error", attribution="driver", action="INVESTIGATE"),
    _r("netdev_watchdog", "nic_error", ["NETDEV WATCHDOG"],
       # 2.6-6.x: "NETDEV WATCHDOG: eth1 (mlx5_core): transmit queue 19 timed out"; 6.x: the driver prefix
       # names the device, then "NETDEV WATCHDOG: CPU: 59: transmit queue 0 timed out 10720 ms"
       r"NETDEV WATCHDOG: (?:(?P<netdev>\S+) \((?P<driver>[^)]+)\)|CPU: \d+): transmit queue (?P<queue>\d+) timed out",
       severity="error", attribution="hardware", action="INVESTIGATE"),
    _r("peermem", "peermem_error", ["nvidia-peermem"],
       r"nvidia-peermem (?P<function>\w+):\d+ ERROR (?P<text>.+)",
       severity="error", attribution="driver", action="INVESTIGATE"),
    # --- generic kernel ---
    # A kernel oops / BUG / GPF whose faulting instruction is in a GPU or NIC driver: the trace's RIP (x86; `IP:`
    # on 4.x and older kernels) or pc (arm64) line names the module in brackets.  The other trace lines match no
    # row; the register dump some kernels repeat after `end trace` repeats the RIP line (the same event again).
    # Severity error, not fatal: a WARN_ON trace prints the same RIP line as an oops.
    _r("kernel_oops", "kernel_oops", ["RIP: ", "IP: [<", "pc : "],
       r"(?:RIP: [0-9a-f]{4}:(?:\[<[0-9a-f]+>\] +\[<[0-9a-f]+>\] )?|\bIP: \[<[0-9a-f]+>\] |pc : )(?P<function>[\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+ "
       r"\[(?P<module>nvidia(?:[_-]\w+)?|mlx5_\w+|mlx_compat|ib_\w+|gdrdrv)\]",
       severity="error", attribution="driver", action="RESTART_BM"),
    _r("hung_task", "hung_task", ["blocked for more than"],
       r"task (?P<process>.+?):(?P<pid>\d+) blocked for more than (?P<seconds>\d+) seconds",
       severity="warning", attribution="unknown", action="INVESTIGATE"),
    # One event per kill: every kernel generation prints it on a "Killed process N" line (with or without the
    # "Out of memory: " / "Memory cgroup out of memory: " prefix); the "Kill process ... or sacrifice child",
    # "oom-kill:constraint=" and "oom_reaper:" lines around it are the same event and match no row.
    _r("oom_kill", "oom_kill", ["Killed process"],
       r"(?:(?:Memory cgroup out of memory|Out of memory): )?Killed process (?P<pid>\d+)(?:, UID \d+,)? \((?P<process>[^)]*)\)",
       severity="warning", attribution="application", action="RESTART_APP"),
    # --- NCCL / PyTorch distributed (application logs) ---
    _r("nccl_watchdog_timeout", "nccl_timeout", ["Watchdog caught collective operation timeout"],
       r"(?:\[Rank (?P<rank>\d+)\] )?Watchdog caught collective operation timeout: WorkNCCL\("
       r"(?:SeqNum=(?P<seq>\d+), )?OpType=(?P<op>\w+)(?:.*?Timeout\(ms\)=(?P<timeout_ms>\d+))?",
       severity="error", attribution="unknown", action="FIND_FIRST_FAILING_RANK"),
    # PyTorch 2.x: "NCCL error: remote process exited ..." and "NCCL error in: <file>:<line>, remote process exited ..";
    # its exception text goes on with NCCL's own description of the code ("ncclRemoteError: A call failed possibly
    # due to ..."), part of the same failure (NCCL_EXC_JOIN); that line alone is a failure of its own.
    _r("nccl_remote", "nccl_remote_error", ["remote process exited"],
       r"(?:\[Rank (?P<rank>\d+)\] .*?)?NCCL error(?: in: [^,\n]*,|:) remote process exited",
       severity="error", attribution="unknown", action="FIND_FIRST_FAILING_RANK", event=NCCL_EXC_OPEN),
    _r("nccl_remote_code", "nccl_remote_error", ["ncclRemoteError"], r"(?:\[Rank (?P<rank>\d+)\] .*?)?ncclRemoteError",
       severity="error", attribution="unknown", action="FIND_FIRST_FAILING_RANK", event=NCCL_EXC_JOIN),
    # the socket to a peer rank closed under NCCL: the peer process died or the network dropped it
    _r("nccl_socket_closed", "nccl_remote_error", ["Connection closed by remote peer"],
       r"NCCL WARN (?:socketProgress|Net) ?: Connection closed by remote peer(?: (?P<peer>[^<\s]+)(?:<(?P<peer_port>\d+)>)?)?",
       severity="error", attribution="unknown", action="FIND_FIRST_FAILING_RANK"),
    _r("ib_completion", "ib_completion_error", ["Got completion"],
       r"NET/IB ?: Got completion (?:from peer (?P<peer>[^<\s]+)(?:<(?P<peer_port>\d+)>)? )?with "
       r"(?:error |status=)(?:(?P<wc_status>IBV_WC_\w+)\()?(?P<error_code>\d+)(?:.*?vendor[ _]err[ =]?(?P<vendor_err>\d+))?",
       severity="error", attribution="fabric", action="CHECK_FABRIC"),
    _r("ib_async_event", "ib_completion_error", ["Got async event"],
       r"NET/IB ?: Got async event ?: (?P<event>.+)",
       severity="error", attribution="fabric", action="CHECK_FABRIC"),
    _r("cuda_oom", "cuda_oom", ["CUDA out of memory", "OutOfMemoryError", "CUDA error: out of memory"],
       r"(?:OutOfMemoryError|CUDA out of memory|CUDA error: out of memory)(?:.*?\(?GPU (?P<gpu>\d+)[;) ])?",
       severity="error", attribution="application", action="RESTART_APP"),
    _r("cuda_error", "cuda_error",
       ["CUDA error", "Cuda failure", "CUDA failure", "cudaError", "illegal memory access", "uncorrectable ECC error"],
       r"(?:CUDA error: |Cuda failure '|CUDA failure[: ]*'?)?(?P<cuda_error>an illegal memory access was encountered|"
       r"uncorrectable ECC error encountered|unspecified launch failure|device-side assert triggered|"
       r"misaligned address|an illegal instruction was encountered|the launch timed out and was terminated|"
       r"CUDA-capable device\(s\) is/are busy or unavailable|no CUDA-capable device is detected|"
       r"(?<=CUDA error: )[^.'\n]+|cudaError\w+)",
       severity="error", attribution="unknown", action="INVESTIGATE", refine="cuda"),
    _r("nccl_error_code", "nccl_error",
       ["ncclSystemError", "ncclInternalError", "ncclUnhandledCudaError", "ncclInvalidUsage", "ncclInvalidArgument"],
       r"(?:\[Rank (?P<rank>\d+)\] .*?)?(?P<nccl_code>ncclSystemError|ncclInternalError|ncclUnhandledCudaError|"
       r"ncclInvalidUsage|ncclInvalidArgument)",
       severity="error", attribution="unknown", action="INVESTIGATE", refine="nccl", event=NCCL_EXC_JOIN),
    # PyTorch's wrapper around a failed NCCL call, every era: "NCCL error in: <file>:<line>, <text>" and the
    # older "NCCL Error <n>: <text>"; the text names the ncclResult_t.
    _r("nccl_error_in", "nccl_error", ["NCCL error in:", "NCCL Error "],
       r"NCCL (?:error in: [^,]*|Error \d+:?),? (?P<nccl_text>unhandled cuda error|unhandled system error|internal error|"
       r"invalid usage|invalid argument)",
       severity="error", attribution="unknown", action="INVESTIGATE", refine="nccl_text", event=NCCL_EXC_OPEN),
    # nccl-tests' own report of a failed NCCL call: "Test NCCL failure common.cu:777 'unhandled system error'"
    # (older releases print "NCCL failure all_reduce.cu:95 '...'"), the ncclGetErrorString() text in quotes.
    _r("nccl_test_failure", "nccl_error", ["NCCL failure"],
       r"NCCL failure \S+:\d+ '(?P<nccl_text>unhandled cuda error|unhandled system error|internal error|"
       r"invalid usage|invalid argument)",
       severity="error", attribution="unknown", action="INVESTIGATE", refine="nccl_text"),
    # nccl-tests' report of a failed CUDA call: "Test CUDA failure common.cu:1030 'system not yet initialized'"
    _r("cuda_test_failure", "cuda_error", ["CUDA failure"],
       r"Test CUDA failure \S+:\d+ '(?P<cuda_error>[^'\n]+)'",
       severity="error", attribution="unknown", action="INVESTIGATE", refine="cuda"),
    _r("nccl_warn", "nccl_error", ["NCCL WARN"], r"NCCL WARN (?P<text>.+)",
       severity="warning", attribution="unknown", action="INVESTIGATE"),
)

# --- refinement tables -----------------------------------------------------------------------

AER_SEVERITY = {  # aer_severity as the kernel prints it -> (severity, action)
    "corrected": ("warning", "MONITOR"),
    "correctable": ("warning", "MONITOR"),
    "uncorrected (non-fatal)": ("error", "INVESTIGATE"),
    "uncorrectable (non-fatal)": ("error", "INVESTIGATE"),
    "uncorrected": ("error", "INVESTIGATE"),
    "uncorrected (fatal)": ("fatal", "RESTART_BM"),
    "uncorrectable (fatal)": ("fatal", "RESTART_BM"),
    "fatal": ("fatal", "RESTART_BM"),
}

IB_LINK_STATE = {  # state word -> (severity, action, normalised state)
    "up": ("info", "NONE", "up"),
    "active": ("info", "NONE", "up"),
    "cable plugged": ("info", "NONE", "up"),
    "down": ("error", "CHECK_LINK", "down"),
    "init": ("warning", "CHECK_LINK", "down"),
    "cable unplugged": ("error", "CHECK_CABLE", "down"),
    "cable error": ("error", "CHECK_CABLE", "module_error"),
}

CUDA_ERRORS = {  # CUDA runtime error text -> (severity, attribution, action)
    "uncorrectable ECC error encountered": ("fatal", "hardware", "RESET_GPU"),
    "an illegal memory access was encountered": ("error", "application", "RESTART_APP"),
    "device-side assert triggered": ("error", "application", "RESTART_APP"),
    "misaligned address": ("error", "application", "RESTART_APP"),
    "an illegal instruction was encountered": ("error", "application", "RESTART_APP"),
    "unspecified launch failure": ("error", "unknown", "INVESTIGATE"),
    "the launch timed out and was terminated": ("error", "unknown", "INVESTIGATE"),
    "CUDA-capable device(s) is/are busy or unavailable": ("error", "driver", "RESET_GPU"),
    "no CUDA-capable device is detected": ("error", "driver", "INVESTIGATE"),
    "cudaErrorIllegalAddress": ("error", "application", "RESTART_APP"),
    "cudaErrorECCUncorrectable": ("fatal", "hardware", "RESET_GPU"),
    "cudaErrorLaunchFailure": ("error", "unknown", "INVESTIGATE"),
    "uncorrectable NVLink error detected during the execution": ("fatal", "hardware", "RESET_GPU"),
    "cudaErrorNvlinkUncorrectable": ("fatal", "hardware", "RESET_GPU"),
}

NCCL_CODES = {  # ncclResult_t name -> attribution, per NCCL's own descriptions
    "ncclSystemError": "unknown",  # a system call failed: sockets, shared memory, devices
    "ncclInternalError": "unknown",  # NCCL bug or memory corruption
    "ncclUnhandledCudaError": "unknown",  # a CUDA call failed: see the CUDA error around it
    "ncclInvalidUsage": "application",
    "ncclInvalidArgument": "application",
}

NCCL_TEXT = {  # ncclGetErrorString() text, as PyTorch quotes it -> ncclResult_t name
    "unhandled cuda error": "ncclUnhandledCudaError",
    "unhandled system error": "ncclSystemError",
    "internal error": "ncclInternalError",
    "invalid usage": "ncclInvalidUsage",
    "invalid argument": "ncclInvalidArgument",
}


def _refine_xid(g: dict, out: dict) -> None:
    info = xid_info(int(g["xid"]))
    out["severity"], out["attribution"], out["action"] = info.severity, info.attribution, info.action
    out["details"]["mnemonic"] = info.mnemonic
    text = g.get("text") or ""
    if 144 <= info.code <= 150:
        m5 = NVLINK5_LINE.search(text)
        if m5:
            unit, verdict = m5.group("unit"), m5.group("verdict").lower()
            d = out["details"]
            d.update(unit=unit, verdict=verdict, link=int(m5.group("link")))
            if m5.group("intrinfo"):
                d.update(intrinfo=m5.group("intrinfo").lower(), error_status=m5.group("error_status").lower())
            override = NVLINK5_UNIT_OVERRIDE.get((unit, verdict)) or NVLINK5_VERDICT.get(verdict)
            if override:
                out["severity"], out["action"] = override
            return
    if info.code in NVLINK_XIDS:
        m = re.search(r"\blink (\d+)", text, re.I)
        if m:
            out["details"]["link"] = int(m.group(1))
    if info.code == 154:
        m = re.search(r"to 0x[0-9a-f]+ \(([^)]+)\)", text, re.I)
        if m and m.group(1).lower() in XID154_RECOVERY:
            out["severity"], out["action"] = XID154_RECOVERY[m.group(1).lower()]
            out["details"]["recovery_action"] = m.group(1)


def _refine_sxid(g: dict, out: dict) -> None:
    info = sxid_info(int(g["sxid"]))
    fatal = info.fatal if not g.get("fatality") else g["fatality"].lower() == "fatal"
    out.update(severity="fatal" if fatal else "warning", action=info.action)
    out["details"]["name"] = info.name


def _refine_aer(g: dict, out: dict) -> None:
    out["severity"], out["action"] = AER_SEVERITY.get(g["aer_severity"].lower(), ("error", "INVESTIGATE"))
    domain, aer_id = g.pop("domain", None), g.pop("aer_id", None)
    if aer_id and not g.get("pci"):  # kernels before 4.x: "received: id=00e5", the reporter's bus/devfn in hex
        rid = int(aer_id, 16)
        g["pci"] = f"{domain or '0000'}:{rid >> 8:02x}:{(rid >> 3) & 0x1f:02x}.{rid & 7}"


def _refine_ib_link(g: dict, out: dict) -> None:
    sev, action, state = IB_LINK_STATE.get(g["state"].lower(), ("error", "CHECK_LINK", "down"))
    out.update(severity=sev, action=action)
    out["details"]["state"] = state


def _refine_cuda(g: dict, out: dict) -> None:
    text = g["cuda_error"].strip()
    out["details"]["cuda_error"] = text
    if text in CUDA_ERRORS:
        out["severity"], out["attribution"], out["action"] = CUDA_ERRORS[text]


def _refine_nccl(g: dict, out: dict) -> None:
    out["attribution"] = NCCL_CODES.get(g["nccl_code"], "unknown")


def _refine_nccl_text(g: dict, out: dict) -> None:
    code = NCCL_TEXT[g["nccl_text"]]
    out["details"]["nccl_code"] = code
    out["attribution"] = NCCL_CODES.get(code, "unknown")


REFINERS = {"xid": _refine_xid, "sxid": _refine_sxid, "aer": _refine_aer, "ib_link": _refine_ib_link,
            "cuda": _refine_cuda, "nccl": _refine_nccl,
            "nccl_text": _refine_nccl_text}

MAX_BEFORE = 12  # Dispatch.first: a row with more keywords than this before it is never tried first


@lru_cache(maxsize=16)
def _dispatch_tables(rules: tuple[Rule, ...]) -> tuple[re.Pattern, dict[str, frozenset[int]], tuple]:
    """What a Dispatch derives from its table, once per table (a pod log source makes a classifier per file):
    - the keyword scan: at each position the longest word there;
    - word -> the rows it selects (those with a keyword it contains);
    - per row, the keywords of the rows before it. A flood of one kind of line with different numbers (an Xid
      from one process after another) matches the same row each time, but every line is new to the memo: that
      row is tried first (`Dispatch.first`), and its result stands when the row is a candidate and no row before
      it is (no keyword of theirs occurs), which is what trying the candidates in order would give, without
      scanning for every keyword. Only rows with at most MAX_BEFORE keywords before them are tried so."""
    words = sorted({k for r in rules for k in r.keywords}, key=len, reverse=True)
    rows = {w: frozenset(i for i, r in enumerate(rules) if any(k in w for k in r.keywords)) for w in words}
    before = tuple(tuple(dict.fromkeys(k for r in rules[:i] for k in r.keywords)) for i in range(len(rules)))
    return re.compile(word_regex(words)), rows, before


class Dispatch:
    """Which rows to try for a message, derived from the table: one regex scan finds every keyword in the
    message, and only the rows holding one are tried (in table order, first match wins), instead of a
    substring test per row.  A found keyword also selects rows whose keywords it contains ("SXid" selects
    the Xid rows too), so the result equals trying every row whose keyword occurs in the message."""

    def __init__(self, rules: tuple[Rule, ...]):
        self.rules = rules
        self._scan, self._rows, self._before = _dispatch_tables(rules)
        self._index = {id(r): i for i, r in enumerate(rules)}  # of these very rows (equal tables share the above)
        self._cache: dict[tuple, tuple[Rule, ...]] = {}
        self._last: int | None = None  # the row that matched last, when it may be tried first

    def first(self, message: str, allowed: frozenset[int] | None = None) -> tuple[Rule, re.Match] | None:
        """The first candidate row (in table order) whose regex matches `message`, with its match.  `allowed`: as
        for `candidates` (the row tried first must be a candidate too)."""
        last = self._last
        if last is not None and (allowed is None or last in allowed or self.rules[last].kind is None):
            rule = self.rules[last]
            for keyword in self._before[last]:
                if keyword in message:
                    break
            else:
                for keyword in rule.keywords:
                    if keyword in message:
                        m = rule.pattern.search(message)
                        if m is not None:
                            return rule, m
                        break
        for rule in self.candidates(message, allowed):
            m = rule.pattern.search(message)
            if m is not None:
                index = self._index[id(rule)]
                self._last = index if len(self._before[index]) <= MAX_BEFORE else None
                return rule, m
        return None

    def candidates(self, message: str, allowed: frozenset[int] | None = None) -> tuple[Rule, ...]:
        """`allowed`: the finding rows that may match (indexes; look-alike rows are always kept), or None."""
        found = self._scan.findall(message)  # as found (a tuple of str hashes cheaply); a long run is deduplicated
        key = (tuple(found) if len(found) <= 8 else frozenset(found), allowed)  # so input cannot grow the keys
        rows = self._cache.get(key)
        if rows is None:
            found = frozenset(key[0])
            if len(self._cache) >= 4096:  # keyword combinations are few in real logs; input cannot grow this
                self._cache.clear()
            ids: set[int] = set()
            for w in found:
                ids |= self._rows[w]
            rows = self._cache[key] = tuple(self.rules[i] for i in sorted(ids)
                                            if allowed is None or i in allowed or self.rules[i].kind is None)
        return rows


# Every keyword of the table: the prefilter over whole buffers is built from these.
# (Rows of a multi-line event count too: its member lines keep the event open.)
KEYWORDS: tuple[str, ...] = tuple(dict.fromkeys(k for rule in RULES if rule.kind or rule.event for k in rule.keywords))
