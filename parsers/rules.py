"""The rule table: keyword prefilter -> regex -> finding kind and fields.

One row per pattern.  Rows are tried in order and the first match wins, so more specific rows
come first; a row is tried only when one of its keywords occurs in the message.  Named groups
`pci`, `pid`, `process`, `rank`, `peer`, `xid`, `sxid` fill the finding's fields, every other
named group goes to `details`.  Severity, attribution and action come from the row, optionally
refined by a lookup table (`refine`), so adding a pattern or an Xid is one row.  Which rows to try for a
message is parsers/classify.py's (`Dispatch`): this module is the table, that one the engine that applies it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from .catalog import (CONTAINMENT_ACTION, CONTAINMENT_GATE, CONTAINMENT_LINE, NVLINK5_DECODE_OUTCOME, NVLINK5_LINE,
                      NVLINK5_UNIT_OVERRIDE, NVLINK5_VERDICT, NVSMI_FABRIC_HEALTH, NVSMI_RECOVERY_ACTION, NVSMI_RESET_STATUS,
                      UNKNOWN_XID, XID154_RECOVERY, XID154_RECOVERY_CODE, XID48_DETAIL, XID_ACTION_POLICY, XID_EVENTS,
                      XID_READS,
                      SxidInfo, XidInfo, nvlink5_decode, sxid_info, xid_info)
from .dcgm import DCGM_CODE, RELAYED_NAMES
from .finding import bounded_int
from .kinds import BY_NAME as KIND, IB_WC_STATUS, IB_WC_WORDS, SEVERITY_RANK
from .wordscan import LazyPattern

PCI = r"(?:PCI:)?[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?"
# Domain optional: old drivers print `bus:dev.fn` only (`NVRM: GPU 18:00.0: ...`).
PCI_SHORT = r"(?:PCI:)?(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?"
# A kernel module the kernel would not load because it was built for another kernel, after the module's name: one line
# per symbol it could not resolve ("nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client",
# "nvidia: Unknown symbol i2c_get_adapter (err -22)"), or, a kernel without symbol versions (CONFIG_MODVERSIONS), its
# vermagic string refused ("nvidia: version magic '5.4.18-100.fc30.x86_64 SMP mod_unload ' should be '5.4.18-200.fc31
# .x86_64 SMP mod_unload '", negativo17/nvidia-driver #97: a DKMS module of the old kernel left in weak-updates; the
# loader says "could not insert 'nvidia': Exec format error"). A force-loaded module's "nvidia: bad vermagic: kernel
# tainted." loaded: not these. The rows of the NVIDIA modules that fail so, and their keywords.
SYMBOL_FAILED = (r": (?:(?:disagrees about version of symbol|Unknown symbol) (?P<symbol>\w+)|"
                 r"version magic '(?P<module_vermagic>[^'\n]*)' should be '(?P<kernel_vermagic>[^'\n]*)')")
SYMBOL_KEYWORDS = ["Unknown symbol", "disagrees about version of symbol", "version magic '"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One row of the rule table: a line that holds its keywords and matches its pattern is a finding of its kind."""

    name: str
    kind: str | None  # None: a look-alike that must not become a finding
    keywords: tuple[str, ...]
    pattern: LazyPattern | re.Pattern
    severity: str = "error"
    attribution: str = "unknown"
    action: str = "INVESTIGATE"
    refine: str | None = None  # a key of REFINERS
    # Multi-line events (a key of EVENT_LINES, and the row's role in it): "open" starts a new event (its
    # finding is the event's); "join" is part of an open event (no finding) or, with none open, opens one;
    # "once" is "join" for a line an event has at most once (OOM's "Killed process"): met again in the open
    # event, it starts the next event; "member" (a kind-None row) is part of an open event and never a finding;
    # "close" (a kind-None row: the first line of the next report) ends the open event; "state" (a kind-None row
    # with a `stated` group) states the severity of the findings the rows of STATED make within the event's
    # EVENT_LINES (a firmware-first record's "event severity: fatal" before its section).
    # "follows" (an "escalate" row of several events, "mce|cper": the kernel's handling of a page an error report named)
    # is an "escalate" line of whichever of them has a finding it may still amend (EVENT_AMENDS), the newest, and whose
    # page (EVENT_PAGES, a "page" row's) is the line's `pfn` or unknown; of none, an "escalate" line of the first.
    # "page" (a kind-None row with a `page` group: a physical address) is part of an open event of its name and says
    # which page the event's error is in (EVENT_PAGES); with none open, nothing.
    # "begin" (a kind-None row with a `stated` group: the first line of a report, "lockup|rcu_stall|hung|oops|panic")
    # states, for each event it lists that STATED rows read ("oops"), the word it stated (none where the group did not
    # match), and ends each of the others, as "close"; an event of EVENT_REPORTS only when the line starts another
    # report than the event's (its word and its `die` group, the die counter, tell: parsers/classify.py
    # _report_begins); its `function` group (a WARN's site) says which RIP lines are its report's. A "begin" row with
    # a kind (a finding of its own) then opens its report's event (the one of EVENT_REPORTS it lists) with its finding.
    # "end" (a kind-None row: a report's last line) is part of an open event of its name and says its report ended: a
    # "begin" line after it starts the next report (EVENT_REPORTS); with none open, nothing.
    # "close" may list several events ("aer|cper"): it ends each of them (an event of EVENT_SECTIONS only once one of its
    # sections joined it).
    # "within" (a kind-None row) is part of an open event of its name and leaves none open: with none open, the line
    # is what the unclassified net makes of it (a consequence of a lost GPU that names no cause of its own); inside
    # it, the details of its groups that EVENT_FILL_ALONE lists for the event amend the event's finding; its name
    # may list several events ("fallen|reset"): part of whichever of them is open; of an event kept per device, a line
    # naming no device is part of the newest open one (IBM POWER's EEH report after a device's failure). A "join" row's name may list several
    # too ("gsp|reset"): part of an open event of the names after the first, else a "join" of the first; so may an
    # "open" row's ("mce|therm|cper": part of an open event of the names after the first, else an "open" of the first).
    # "inside" (a row with a kind) is a finding only within an open event of its name, and leaves none open: with none
    # open, nothing (a generic "key : value" line of a section its header line opened, nvidia-smi -q's Fabric block's
    # "Status : .."; other sections and other tools print the same words).
    # "lead" (a kind-None row) is part of an open event of its name; with none open, it opens one and makes no finding:
    # the event's finding is its first "join" line's (a GPU's init attempt, its reasons before its "RmInitAdapter
    # failed!", EVENT_ADOPTS).
    # A line of an event kept per GPU (EVENT_PER_GPU) that names no GPU, none named in the lines before it, is part
    # of the newest open event of that name, whichever GPU's.
    # "escalate" is "join" for a line that says the event ended worse than its finding said (a PCIe error whose
    # recovery failed): part of the open event, and while its finding stands (EVENT_AMENDS, a longer window: a
    # driver's recovery callbacks print dozens of lines before the port's verdict) the finding's amendment when more
    # severe than it (details "amends": counted once with it, EVENT_AMENDS); with no event, a "join".
    # "quiet" (a kind-None row with a `device` group, of an event kept per device) says the device's errors are no
    # fault (a removable device, one holding no medium): the stream remembers it (bounded, MAX_QUIET_DEVICES), and a
    # later line of a QUIET_ROWS row naming it, or a partition of it, is no finding and joins no event; its
    # `removable` group absent on an "Attached .. disk" line, the device is a fixed disk again (forgotten).
    # Every line of an event that says which device and what failed is "join" or "once", never "member": a
    # report whose first line was lost (ring-buffer overrun, rate limiting, a grep excerpt) is still one event.
    event: tuple[str, str] | None = None
    # (group, ((value, (event, role)), ..)): the line's event, as `event` says it, is the one the value of that group of
    # its match names; a line of another value is no event's (the Xid row: by the Xid's code, catalog.XID_EVENTS; a
    # link's "down" alone opens the port's event). A row with one has a kind and no `event` (`_r` takes a dict).
    event_if: tuple[str, tuple[tuple[str, tuple[str, str]], ...]] | None = None
    # The program whose own line this row's line restates ("kernel": the device plugin's "XidCriticalError: Xid=94 on
    # Device=GPU-.." says again the kernel's Xid line, which the agent reads itself): the finding says so (details
    # "restates", parsers/finding.py `restated`) and is counted, neither a pod's failure nor a second node finding
    # (agent/workloads.py)
    restates: str | None = None
    # The named group from which hyperscan and RE2 scan for the row (parsers/classify.py line_patterns): the pattern's
    # source from that group on, a superset of its lines, where what comes before the group hands the engines no rare
    # literal ("0x<pfn>: " before hwpoison's words, "NCCL error in: <file>:<line>" before ncclGetErrorString()'s text)
    # or one it tracks to the line's end (mlx5_health's caseless "mlx5_core <pci>:? .*?" before its words: 11M of
    # the 155M instructions of hyperscan's scan of 100,000 hard-mix lines, 8,964 of them mlx5_core's);
    # the group is at the pattern's top level, or its first alternative's. None: the whole pattern
    scan_from: str | None = None


# nvme-pci's timeout handler's line up to its verdict (drivers/nvme/host/pci.c nvme_timeout): "I/O 12 QID 5 timeout, ",
# 6.x "I/O 900 (I/O Cmd) QID 2 timeout, ", 6.5+ "I/O tag 12 (100c) opcode 0x2 (I/O Cmd) QID 5 timeout, "
NVME_IO_TIMEOUT = (r"I/O (?:tag )?\d+ (?:\([0-9a-f]{4}\) )?(?:opcode 0x[0-9a-f]+ )?(?:\([\w /]+\) )?QID (?P<qid>\d+) "
                   r"timeout, ")


# An RM call that failed, up to its status (rules per status: NV_ERR_GPU_IS_LOST, NV_ERR_RESET_REQUIRED): an RPC to the
# GSP, "_issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!", "rpcRmApiFree_GSP: GspRmFree failed:
# ..; status=0x0000000f", "rpcRmApiAlloc_GSP: GspRmAlloc failed: ..; paramsStatus=0x00000062; status=0x00000062"; a
# GPU MMU TLB invalidation the driver could not complete, "kgmmuInvalidateTlb_GM107: TLB invalidation failed waiting
# for prior invalidate (status=0x0000000f), vaspaceFlags .." (610, every GPU since Maxwell: the _GM107 HAL);
# nvidia-modeset's query of a display channel's state, its RM control call's status last ("nvidia-modeset: ERROR: GPU:0:
# Failed to query display engine channel state: 0x0000c57e:4:0:0x0000000f", nvkms-evo1.c GetChannelState: class,
# instance, subdevice, status).
RM_CALL_FAILED = (r"(?:rpcSendMessage failed with status |_GSP: GspRm\w+ failed: [^\n]*?\bstatus=|"
                  r"TLB invalidation failed [^\n]*?\(status=|"
                  r"Failed to query display engine channel state: 0x[0-9a-fA-F]{8}:\d+:\d+:)")
RM_CALL_KEYWORDS = ["rpcSendMessage failed", "_GSP: GspRm", "TLB invalidation failed",
                    "Failed to query display engine channel state"]


# nvidia-smi's prefix for a GPU NVML enumerated but could not open: "Unable to determine the device handle for GPU
# 0000:02:00.0: " (4xx-5xx), "for gpu 0000:01:00.0: " (515), "for GPU0000:07:00.0: " (5xx, no space), 610's "for GPU1:
# 0000:84:00.0: " (its index, then its address), "for GPU2: " (the index alone); NVML's error text after it.
NVSMI_HANDLE = r"device handle for (?:GPU|gpu) ?(?:(?P<gpu>\d{1,4}): (?=\S))?(?:(?P<pci>" + PCI + r"): ?)?"
# nvidia-smi's words for no driver reachable and for no GPU listed (the row "nvsmi_no_driver"'s keywords, each the start
# inside its `driver_error`): a container given no GPU prints them too, on a healthy node (a pod that requested none,
# on a CPU node or under NVIDIA_VISIBLE_DEVICES=none / void, running nvidia-smi by habit), so a job's log saying them
# names no broken node (triage.attribute is_node_fault)
NVSMI_NO_GPU = ("NVIDIA-SMI has failed because it couldn", "No devices were found")


# An Xid line: the address `PCI:dddd:bb:dd`, bare `dddd:bb:dd`, redacted `PCI:...` (no address: taken from context),
# followed on MIG GPUs by ` GPU-I:nn` and ` GPU-CI:nn` inside the parenthesis.  "Xid" comes first and its
# no-letter-before test after it, so `re` finds the literal with a fast scan instead of trying each position.  Its
# optional parts are written "(?:..|)", not "(?:..)?": the same greedy choice, which sre runs as an alternation, without
# the REPEAT state an optional group sets up (callgrind: ~1,400 instructions less an Xid line's search).
XID_LINE = (r"Xid(?<![A-Za-z]Xid) \((?:(?P<pci>" + PCI + r")|PCI:\.\.\.)(?: GPU-I:(?P<gpu_instance>\d+)|)"
            r"(?: GPU-CI:(?P<compute_instance>\d+)|)\): (?P<xid>\d+)"
            r"(?:, pid=(?:'?<unknown>'?|(?P<pid>\d+))|)(?:, name=(?:<unknown>|(?P<process>[^,]*))|),?\s*(?P<text>.*)")


# The local end of a GPUDirect-TCPX receiving connection's flow string before its peer ("172.16.0.11<39187><-"), skipped
# where a row reads the peer (google/nccl-plugin-gpudirecttcpx: "<local><port><-<peer><port>").
TCPX_FLOW = r"(?:[^<\s]+<\d+><-)?"
# CephFS's kernel client naming a metadata server's session (fs/ceph/mds_client.c): "ceph: mds0 ", 6.6+'s "ceph: [<fsid>
# <client id>]: mds0 " (pr_info_client); the MDS rank is the finding's device (the ceph_* rows)
CEPH_MDS = r"ceph: (?:\[[0-9a-f-]+ \d+\]: )?(?P<device>mds\d+) "


# The efa driver's prefix: dev_err's "efa <pci>: " (before its RDMA device is registered), or ibdev_err's for an EFA
# device (rdma-core's predictable name "rdmap<bus>s<slot>", else "efa_<n>"): "efa <pci> <ibdev>: " where the RDMA
# device has its PCI parent (__ibdev_printk; "efa 0000:a0:1a.0 rdmap160s26: Failed to process command ..", a trn1's
# dmesg in aws-neuron-sdk's nrt-troubleshoot-trn1.rst), "infiniband <ibdev>: " where the line names no parent.
EFA_PREFIX = r"\b(?:efa (?P<pci>" + PCI + r") ?|infiniband )(?P<device>(?:rdmap|efa_)\w+)?: "


def _probe_failed(driver: str) -> tuple[list[str], str]:
    """The driver core's verdict on a function its driver could not probe, in both eras (drivers/base/dd.c): 2.6-6.0's
    "<driver>: probe of <pci> failed with error <errno>" and 6.1+'s "<driver> <pci>: probe with driver <driver> failed
    with error <errno>": the row's keywords and regex (groups pci, errno)."""
    return ([f"{driver}: probe of", f"probe with driver {driver} failed"],
            re.escape(driver) + r"(?:: probe of)? (?P<pci>" + PCI + r")(?:: probe with driver " + re.escape(driver) +
            r")? failed with error (?P<errno>-?\d+)")


# A kernel oops's (or WARN's) faulting instruction, up to the module it is in: the trace's RIP line (x86; 2.6-3.x
# "RIP: 0010:[<ffffffff..>]  [<ffffffff..>] func+0x../0x.. [mod]"), 4.x and older's "IP: [<..>] func+0x../0x.. [mod]",
# arm64's "pc : func+0x../0x.. [mod]" (4.19 prints it) and, before it, arm64's (4.14 and older; arm's, every era) "PC
# is at func+0x../0x.. [mod]" (the "pc : [<ffffff80..>] lr : [<..>] pstate: .." register line after it names no
# function: nothing); the module's name then OOPS_MODULE_END (6.x's build id after it, "[nvidia 3f2b..]"). The
# caller's line ("lr : ..", "LR is at ..") is not read: the fault is the PC's. Each oops row's keywords are
# OOPS_KEYWORDS.
OOPS_SYMBOL = r"(?P<function>[\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+"
OOPS_AT = (r"(?:RIP: [0-9a-f]{4}:(?:\[<[0-9a-f]+>\] +\[<[0-9a-f]+>\] )?|\bIP: \[<[0-9a-f]+>\] |pc : |\bPC is at )"
           + OOPS_SYMBOL + r" \[")
OOPS_MODULE_END = r"(?: [0-9a-f]{20,64})?\]"
# A call trace's frame up to its module's name (the frame rows': driver_frame, storage_frame), every era's form: 5.x+
# " sym+0x35/0x50 [", 2.6-4.x " [<ffffffffc05523b4>] sym+.. [", the unwinder's guess "? " before the symbol. Not a
# guess at a function's padding (6.2+ "? __pfx__main_loop+0x10/0x10 [nvidia_modeset]", its end: the address of the
# function after it, a stale word on the stack, pop-os/cosmic-epoch #3038): no function that ran, so the innermost
# frame that names one is the next
FRAME_AT = r"^\s*(?:\[<[0-9a-f]+>\] +)?(?:\? (?!__pfx_))?" + OOPS_SYMBOL + r" \["
# A WARN's first line (kernel/panic.c __warn; 2.6-3.x warn_slowpath_common) after its "WARNING: ", up to the WARN site's
# symbol (OOPS_SYMBOL), every era: 2.6 / 3.x "WARNING: at <file>:<line> <sym>()" (RHEL 6 " (Tainted: ..)" after it),
# 3.x-6.18 "WARNING: CPU: <n> PID: <pid> at <file>:<line> <sym>" (3.x "()" after it; "at <sym>" where no file is
# known), 6.19+ "WARNING: <file>:<line> at <sym>, CPU#<n>: <comm>/<pid>" ("WARNING: at <sym>, CPU#.." where no file is
# known). The symbol is "func+0x../0x.." then " [mod]" in a module's code. On x86 since 4.11 and on arm64 the report's
# RIP / pc line names the same symbol (the WARN site: the trap's address); 2.6-4.10's x86 WARN prints no registers.
# So a RIP line of another function than the WARN's first line named is another report's, whose first line is not
# in the log (Classifier._outside_report).
WARN_AT = r"(?:CPU: \d+ PID: \d+ at |at (?=[\w/.-]+:\d+ |[\w.]+\+0x)|[\w/.-]+:\d+ at )(?:[\w/.-]+:\d+ )?"
# The GPU and NIC drivers' modules an oops or a WARN is read in (kernel_oops): nvidia.ko and its siblings (nvidia_uvm,
# nvidia_modeset, nvidia_drm, nvidia-peermem), mlx5 and its compat layer, the RDMA core (ib_core, ib_uverbs), gdrcopy's
# gdrdrv
DRIVER_OOPS_MODULE = r"nvidia(?:[_-]\w+)?|mlx5_\w+|mlx_compat|ib_\w+|gdrdrv"
# The report a RIP line is in, as its first line said (the oops_header row, "begin"): a WARN's, its word; an oops's or
# a BUG's none (the row's own severity, its kind's). A WARN in a storage client's module: its mount is to be checked.
OOPS_STATED = {"warning": ("warning", "CHECK_STORAGE")}
# A WARN in a GPU or NIC driver's module (WARN_ON / WARN_ONCE: nvidia.ko's "WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039
# nvidia_dev_put+0xb1/0xc0 [nvidia]", the same function on its RIP line): the driver met a state it did not expect and
# went on, the kernel too; no reboot is owed for it (kernel_oops's RESTART_BM is an oops's: the task died holding the
# driver's locks). A warning to look into; an oops's or a BUG's RIP line stays the kind's error.
DRIVER_WARN_STATED = {"warning": ("warning", "INVESTIGATE")}
OOPS_KEYWORDS = ["RIP: ", "IP: [<", "pc : ", "PC is at "]
# A shared filesystem's client modules in the kernel (their names as a RIP line prints them: regexes), by filesystem:
# an oops in one of them is a storage_oops (details "filesystem"). BeeGFS's client (beegfs.ko); Lustre's client and
# its network layer (LNet and its drivers: ko2iblnd over InfiniBand, ksocklnd over TCP, kkfilnd over HPE Slingshot;
# Lustre, DDN EXAScaler, AWS FSx for Lustre); the NFS client and the RPC layer under it (sunrpc, its RDMA transport,
# lockd); CephFS's client and libceph under it (RBD's too); IBM Storage Scale's (GPFS) kernel extension (mmfs26,
# mmfslinux, tracedev); WEKA's (wekafsio, wekafsgw). A module only listed in "Modules linked in:" is no oops's.
STORAGE_CLIENT_MODULES = {
    "BeeGFS": ("beegfs",),
    "Lustre": ("lustre", "lmv", "mdc", "lov", "osc", "mgc", "fid", "fld", "ptlrpc", "obdclass", "lnet", "libcfs",
               "ko2iblnd", "ksocklnd", "kkfilnd"),
    "NFS": ("nfs", "nfsv3", "nfsv4", r"nfs_layout_\w+", "sunrpc", "rpcrdma", "lockd"),
    "CephFS": ("ceph", "libceph"),
    "GPFS": ("mmfs26", "mmfslinux", "tracedev"),
    "WekaFS": (r"wekafs\w*",),
}
STORAGE_CLIENT_MODULE = "|".join(m for modules in STORAGE_CLIENT_MODULES.values() for m in modules)
# The literal every call trace's frame holds (the driver_frame row's keyword): its offset and length's "/0x"
# ("nfs_wait_on_request.part.0+0x3f/0x50 [nfs]"). One literal, not one per module (the GPU and NIC drivers' and the
# storage clients'): each module's "[name" was a word entered at a character of its own or at "[" (wordscan
# presence_regex), tried at each such character of every line, a dmesg line's timestamp's "[" included (callgrind: a
# fifth more of the keyword test's instructions); "/0x" is entered where others are, and its lines are a trace's.
FRAME_KEYWORDS = ["/0x"]


# The first "mlx5_core <pci>" of a line, committed to (atomic): the scan after it runs once, so a line of the
# prefix repeated cannot make the rule quadratic (one mlx5_core per real line anyway).
FIRST_MLX5 = r"^(?>.*?mlx5_core (?P<pci>" + PCI + r"))"


def _mlx5e_error_cqe(syndrome: str) -> str:
    """mlx5e_dump_error_cqe's line after the netdev's name, its syndrome `syndrome` (5.x-6.x "qn", 4.x-5.3 "sqn"; 5.x
    "syndrome  0x.."): the mlx5_err_cqe row's and, a flushed work request's, the mlx5e_cqe_flushed row's."""
    return (r"Error cqe on cqn 0x[0-9a-f]+, ci 0x[0-9a-f]+, s?qn (?P<qn>0x[0-9a-f]+), opcode (?P<opcode>0x[0-9a-f]+), "
            r"syndrome +(?P<cqe_syndrome>" + syndrome + r"), vendor syndrome (?P<vendor_syndrome>0x[0-9a-f]+)")


def _r(name, kind, keywords, pattern, severity=None, attribution=None, action=None,
       refine=None, flags=0, event=None, event_if=None, restates=None, scan_from=None) -> Rule:
    """A row; severity, attribution and action left out are its kind's (parsers/kinds.py); `event_if`'s values as a dict
    (a row's are a tuple of its items: a Rule is hashable)."""
    row = KIND.get(kind)
    if event_if is not None:
        event_if = (event_if[0], tuple(event_if[1].items()))
    if row is not None:
        severity, attribution, action = severity or row.severity, attribution or row.attribution, action or row.action
    return Rule(name, kind, tuple(keywords), LazyPattern(pattern, flags), severity or "error",
                attribution or "unknown", action or "INVESTIGATE", refine, event, event_if, restates, scan_from)


def _gdr_pin(name: str, keywords: list, pattern: str) -> Rule:
    """GPU memory that could not be pinned or mapped for GPUDirect (RDMA or Storage): the driver's peermem_error
    warning, a pinning loop's lines one gdr_pin event."""
    return _r(name, "peermem_error", keywords, pattern, severity="warning", event=("gdr_pin", "join"))


def _warn_header(name: str, kind: str, modules: str, stated: dict, **kw) -> Rule:
    """A WARN's first line naming a module of `modules` (a regex) as its site's: `kind`'s warning (`stated`'s
    severity and action for a WARN), the report's first line (its event begun)."""
    return _r(name, kind, ["WARNING: "],
              r"(?P<stated>WARNING): " + WARN_AT + OOPS_SYMBOL + r" \[(?P<module>" + modules + r")" + OOPS_MODULE_END,
              severity=stated["warning"][0], action=stated["warning"][1],
              event=("lockup|rcu_stall|hung|oops|panic", "begin"), **kw)


# NCCL's MNNVL self-test failing (src/mnnvl.cc): the words before the cause's sentence (optional: a quote may wrap there)
MNNVL_NOT_WORKING = r"(?:MNNVL \(cliqueSize (?P<clique_size>\d+)\) is available but not working on this system\.\s*)?"


# DCGM's health result (dcgmHealthWatchResults_t) as `dcgmi health -c` and nv-hostengine's log spell it -> the
# finding's severity (None: the kind's error). Healthy / PASS: no finding.
DCGM_HEALTH_RESULT = {"Failure": None, "Warning": "warning"}  # nv-hostengine's log: the words in capitals


# How many lines after its last line a multi-line event stays open (lines no rule reads count too).
# An OOM report's task table (a line per process, no keyword) can run to hundreds of lines between its
# "invoked oom-killer" and "Killed process" lines; its lines are "once" (a second one starts the next kill).
EVENT_LINES = {"aer": 12, "mlx5_health": 20, "mlx5_tx_timeout": 4, "mlx5_err_cqe": 16, "mlx5e_cqe_flushed": 16,
               "knvlink": 2,
               "nccl_exception": 2, "nccl_alloc": 4, "sxid": 8,
               # a rank's failed extend, a blank line, its segment's line; the other local ranks' lines between
               "nccl_shm": 8,
               # NCCL's WARN of a CUDA status, then its INFO trace back up the init ("include/alloc.h:199 -> 1" ..
               # "init.cc:1929 -> 1", a dozen lines) before PyTorch's exception quotes the status after "Last error:"
               "nccl_cuda": 32,
               # NCCL's WARN of an NVLink pair with P2P disabled, its INFO trace back up the init, PyTorch's quote of it
               "nccl_p2p": 32,
               # the same for NET/IB's WARN of a failed verbs registration and PyTorch's quote of it
               "nccl_ibv": 32,
               "oom": 4096, "nccl_watchdog": 64, "rcu_stall": 64, "mce": 16, "cper": 24, "nfs": 32, "fs": 16,
               "nvme": 32, "lustre": 32, "gpfs": 32, "ceph": 32, "ofi": 4, "clocksource": 16, "fallen": 64, "rminit": 32,
               "open_unsupported": 32, "cuda_exception": 2, "cuda_assert": 64, "peermem_load": 16, "nvidia_load": 16, "reset": 64, "gsp": 64, "port_down": 1,
               "mlx5_probe": 16, "ccrpc": 32,
               # nvidia-mig-parted's failed GPU reset (its error, nvidia-smi's list of the GPUs it could not reset, its
               # apply-exit hook) to its fatal "Error applying MIG configuration with hooks: .."
               "mig_apply": 16,
               # nvidia-smi -q's Fabric header to its Health block's Summary (State, Status, CliqueId, ClusterUUID,
               # Health between): six lines
               "nvsmi_fabric": 6,
               # dcgmi diag 4.x's table: a test's row to its entities' rows, each a few wrapped Warning rows apart
               "dcgm_diag": 32,
               # dcgmi diag 2.x/3.x's table: a test's result rows, each right below the one before (a row's cell is
               # cut, never wrapped: CommandOutputController ReplaceTag), its Warning and Info rows after the last
               "dcgm_gpus": 1,
               # dcgmi health -c's table: a GPU's row to its systems' incidents, each a few wrapped rows
               "dcgm_health": 16,
               # Fabric Manager's GPU NVL error block: its header, twelve "key : value" lines (moduleId .. errorDebugData)
               "fm_nvl": 14,
               "ray_oom": 2, "deepep": 64, "nvshmem": 8, "iommu": 64, "smmu": 64, "xla_rendezvous": 64, "efa": 64,
               "therm": 32, "imex": 8, "retrain": 16, "bnxt": 32, "irdma": 32, "intel_tx_timeout": 4, "mana": 32, "ena": 32,
               "netdev_watchdog": 64, "mlx5_temp": 32, "mlx5_cmd_timeout": 16, "mlx5_cmd_recovered": 16,
               "efa_abort": 4, "tcpx": 64, "bnxt_refused": 32,
               # NIXL's failure: its C++ line, then the Python traceback (a couple of dozen frames) to its exception
               "nixl": 64,
               # GPUDirect RDMA's failed pins (gdrdrv, an RDMA NIC's registration, the driver's reason; GPUDirect
               # Storage's nvidia-fs, gdrdrv's failed mappings): a pinning loop's, interleaved across its processes,
               # a line or two apart
               "gdr_pin": 16,
               # an RPC event the GSP sent during its boot without the API lock and the assertion on the next line
               "gsp_bootup": 1,
               # the driver's refused PTIMER write at a GSP GPU's boot and its NV_ASSERT(0) on the next line
               "ptimer": 1,
               # an oops's report (its call trace, modules, registers, the RIP again after "end trace") runs to a
               # hundred lines before its panic, a panic's own dump (the panicking CPU's trace, 4.x arm64's "CPUn:
               # stopping" dump of every other CPU) as many before its "---[ end Kernel panic .. ]---"
               "panic": 256,
               # an oops's or WARN's first line to its RIP line: the #PF lines, the die line, "Modules linked in:",
               # CPU, hardware and workqueue lines (STATED "oops")
               "oops": 32,
               # a lockup's report (parsers/rules.py cpu_lockup rows): its modules, irq stamps, CPU and hardware lines,
               # then the stuck CPU's registers, its RIP line the one that says whose code spins (the trace after it)
               "lockup": 32,
               # a hung task's report (the hung_task row): its taint and "echo 0 >" lines, the task's state line, then
               # its call trace, innermost frame first (the frame in a driver's module a dozen lines in: __schedule,
               # schedule, rwsem_down_read_slowpath, down_read, then "os_acquire_rwlock_read+0x35/0x50 [nvidia]")
               "hung": 32,
               # an Xid 48 and the Xid 171 / 172 the driver logs on the next line for the same error (catalog.py
               # XID48_DETAIL): adjacent lines only
               "ecc": 1}
# Events kept apart per device (the PCI address on the line): a health dump of one mlx5 function does not
# swallow the next function's own health failure a few lines later.
# (the row's `pci` group, else its `device` group: a block device, an NFS server, an NVMe controller, a Lustre target,
# a GPFS cluster, a CephFS metadata server; else its `netdev` group: a network interface no PCI address names)
# The rows whose line on a device a "quiet" line named (rules.Rule.event: removable, or no medium) is no finding: the
# block layer's I/O errors and the page cache's, on a BMC's virtual media, an SD card reader, a USB stick
QUIET_ROWS = frozenset({"block_io_error", "buffer_io_error"})
MAX_QUIET_DEVICES = 256  # devices a stream remembers as quiet (oldest forgotten): input cannot grow it without bound
EVENT_PER_DEVICE = frozenset({"mlx5_health", "mlx5_tx_timeout", "mlx5_err_cqe", "mlx5e_cqe_flushed", "sxid", "nfs", "fs",
                              "nvme", "lustre",
                              "gpfs", "ceph", "fallen", "rminit", "peermem_load", "nvidia_load", "reset", "gsp", "port_down",
                              "mlx5_probe", "mlx5_temp", "mlx5_cmd_timeout", "mlx5_cmd_recovered",
                              "iommu", "efa", "irdma", "intel_tx_timeout", "mana", "ena", "retrain",
                              "tcpx", "ecc", "ccrpc", "bnxt_refused", "bnxt"})
# "within" rows whose line is part of an open event of its device's other functions too, where its own function has
# none open (the key's address up to its function: domain:bus:device): what a function prints of a resource its device
# shares (mlx5's vendor-specific gateway, mlx5_crdump_refused).
EVENT_WITHIN_DEVICE = frozenset({"mlx5_crdump_refused", "bnxt_after"})
# Events kept per device by the address their findings carry (function kept: parsers/kinds.py FUNCTION_DEVICES): a PCIe
# AER report's "error received" line names the device reported (its `pci`: "pcieport 0000:00:1c.4: AER: Corrected error
# received: 0000:00:1c.4", 6.x "Correctable error message received from 0000:03:00.0", before 4.x "id=00e5", its
# bus/devfn), every other line of it its own device in its prefix ("pcieport 0000:00:1c.4:   device [8086:a114] error
# status/mask=..", "nvidia 0000:03:00.0:    [ 0] RxErr"), a DPC containment its port (or the source it names). Two
# ports' reports interleaved in a storm are two events, each port's lines its own. A line whose device has no open
# event of its own is part of the newest open one, as before the key carried the device: the other devices of a
# "Multiple" report (the port's own status after the endpoint it names), a driver's "AER: can't recover" and the
# port's "device recovery failed" after the device's report (an "escalate" line: of the newest finding it may still
# amend, EVENT_AMENDS), a firmware record's lines naming no device.
EVENT_PER_FINDING_DEVICE = frozenset({"aer"})
# Of those, the events kept per GPU: keyed by the GPU's address (normalize_pci: a GPU is one key, whichever function
# or spelling a line gives), the address the lines before it named when the line names none (an NV_ERR_GPU_IS_LOST
# assertion after the "fallen off the bus" line it follows). A line of one naming no GPU, none named in the lines before
# it, joins the newest open one (else it opens its own): a GPU needing reset's lines name the GPU by index at most
# ("NVRM: GPU0 .."), many by nothing.
EVENT_PER_GPU = frozenset({"fallen", "rminit", "gsp", "reset", "ecc", "ccrpc"})
# Of those, the events whose lines may name the GPU by its index alone ("NVRM: GPU6 _kgspRpcRecvPoll: GSP RM heartbeat
# timed out"), others by its address ("NVRM: Xid (PCI:0000:a1:00): 119, .."). A line naming both ("Xid (PCI:0000:a1:00):
# 119, .. Timeout after 45s of waiting for RPC response from GPU6 GSP!", 535's ".. Timeout waiting for RPC from GSP6!")
# tells the stream which address an index is (Classifier._gpu_index): the event is keyed by the address where a line
# or that mapping gives it, else by the index. Lines nothing tells apart (an index no line mapped and an address no
# line gave an index, a line naming no GPU) are one event, as before the mapping: the GSP's failure on one GPU.
# A GPU needing reset likewise: "NVRM: GPU0 nvCheckOkFailedNoLog: .. [NV_ERR_RESET_REQUIRED]", "NVRM: Rate limiting GSP
# RPC error prints for GPU at PCI:0000:0a:00 .. The GPU likely needs to be reset." are one GPU's one event. So are a
# GSP message channel's failures under confidential computing ("ccrpc": "GspMsgQueueSendCommand failed on GPU0: 0x1f"
# after the encryption line naming no GPU).
EVENT_PER_GPU_INDEX = frozenset({"gsp", "reset", "ccrpc"})
# The GPU an Xid 119/120/175 line's text names beside its address (57x+ "from GPU6 GSP!", 535 "from GSP6!").
GSP_GPU_INDEX = r"RPC (?:response )?from (?:GPU(?P<index>\d{1,4}) GSP\b|GSP(?P<gsp_index>\d{1,4})!)"
# Per-GPU events whose first lines may name no GPU, the line naming it coming after them: an init attempt's reasons
# ("NVRM: GPU6 _kgspBootGspRm: unexpected WPR2 already up ..", "RmInitAdapter: Cannot initialize GSP firmware RM")
# before its "GPU 0000:a1:00.0: RmInitAdapter failed!". The event those lines opened (no GPU) becomes that GPU's
# when the line naming it comes within its window: one event for the attempt, not two. A GSP channel's encryption
# lines under confidential computing ("ccrpc", keyed by index, EVENT_PER_GPU_INDEX) likewise become the GPU's that
# the send's line after them names ("GspMsgQueueSendCommand failed on GPU0: 0x1f"): a second GPU's failing next is
# its own event, not part of the first's.
EVENT_ADOPTS = frozenset({"rminit", "ccrpc"})
# Events that escalate: a line of the open event more severe than any finding the event made so far is a finding of
# its own (an NVMe timeout the driver aborted, a warning, then the controller reset it escalated to, an error); a line
# no more severe is part of the event, as in any other.
EVENT_ESCALATES = frozenset({"nvme", "lustre", "nfs", "ceph"})
# Events whose one finding a later line amends, not adds to: event name -> lines after the event's last line within
# which its finding may still be amended. An amendment is a finding of the same event (kind, code) carrying
# details["amends"], what it changed ("severity", "pci", "peer"): consumers count it once with the finding it amends
# (`gpu-npd parse`'s summary, the agent's problem; each takes the amendments a line made after the line's own finding,
# both returned by Classifier.read), its severity and address the event's from then on. The finding is made at once all the same (the agent's latency): the amendment follows it.
# - "escalate" rows (rules.Rule.event): a PCIe error whose recovery then failed is fatal (the device is gone until a
#   reset), the port's verdict ("AER: device recovery failed") coming after the drivers' callbacks;
#   a machine check whose page the kernel then took offline (hwpoison's "Memory failure: 0x3710b3: recovery action
#   for dirty LRU page: Recovered" after "mce: [Hardware Error]: Machine check events logged") is an uncorrected
#   memory error, not the corrected one its first line may have been taken for; XLA's rendezvous whose threads said
#   they "may be stuck" (a warning) then hit its terminate timeout ("Termination timeout .. Exiting ..") is an error;
# - EVENT_ADDRESS_FROM: a GPU failure whose lines named no GPU takes the address of a later line of the same failure.
# - EVENT_FILLS: a line that joins the event (no finding of its own) naming what the finding lacks.
# - a line that joins the event asking an action a step above the finding's on the remediation ladder (kinds.ACTION_RANK,
#   finding.above; details "amends": "action"): UVM's global fatal error ("requiring os reboot to recover", RESTART_BM)
#   in a GPU's NV_ERR_RESET_REQUIRED event (RESET_GPU), whose reset would not clear it. The ladder's actions only: a
#   line's kind's own action beside a finding whose cause it does not know (RmInitAdapter's RESET_GPU after a GPU that
#   needs the open module, UPDATE_SWFW; an oops row's RESTART_BM for a lockup's RIP line, INVESTIGATE) amends nothing.
# - "follows" rows (rules.Rule.event): a firmware-first record's memory error (APEI GHES: "section_type: memory error"
#   or "ARM processor error", its "physical_address: 0x00000040272d5080") then the kernel's handling of its page,
#   queued by ghes.c (ghes_handle_memory_failure, memory_failure_queue, 5.17+ memory_failure_cb): "Memory failure:
#   0x40272d: recovery action for get hwpoison page: Ignored", "Memory failure: 0x40fa6: Killing mca-recover:1296 due
#   to hardware memory corruption" (lines of the record's event, as x86's machine check's page handling is the machine
#   check's), the event's finding amended with what they add (EVENT_FILLS, EVENT_FILL_ALONE) or, from a record stated
#   corrected, to their severity. The record's window is the longer (an ARM processor error's vendor bytes, ghes_edac's
#   count line and the page's handling after them).
EVENT_AMENDS = {"aer": 256, "gsp": 64, "reset": 64, "nccl_exception": 2, "cuda_exception": 2, "nccl_watchdog": 2, "mce": 16, "xla_rendezvous": 64,
                "smmu": 64, "cper": 64, "lockup": 32, "hung": 32, "rcu_stall": 64, "retrain": 16, "ofi": 4, "ecc": 1,
                "oom": EVENT_LINES["oom"], "fm_nvl": EVENT_LINES["fm_nvl"], "ray_oom": EVENT_LINES["ray_oom"],
                "dcgm_health": EVENT_LINES["dcgm_health"], "rminit": EVENT_LINES["rminit"]}
# Event -> the findings (kind, Xid) of later lines whose GPU address an open event of that name takes when its finding
# named none (an amendment, "pci"): the GSP's heartbeat lines naming no GPU, then "NVRM: Xid (PCI:0000:01:00): 154,
# GPU recovery action changed .." or "Rate limiting GSP RPC error prints for GPU at PCI:0000:0a:00" (open-gpu-kernel-
# modules #1200, #659); a GPU marked for reset, then its Xid 154 (#446). Lines of these findings are the same failure's
# consequences (the recovery action it set, the GPU's reset); any other finding's address may be another GPU's.
EVENT_ADDRESS_FROM = {"gsp": frozenset({("xid", 154), ("xid", 119), ("xid", 120), ("xid", 175),
                                         ("gpu_reset_required", None)}),
                      "reset": frozenset({("xid", 154), ("xid", 119), ("xid", 120), ("xid", 175)})}
# Event -> the Finding fields a line joining the event (a row with a kind, its line absorbed: no finding of its own)
# gives the event's finding when that finding lacks them: an amendment naming the field (details "amends": "pci" when
# the address is among them, else the field), counted once with the finding (EVENT_AMENDS). Only these fields, of
# only these events: a joining line's other fields are the finding's own line's to say.
# - "reset": a GPU needing reset whose lines so far named no GPU (or an index no line mapped), then "NVRM: Rate
#   limiting GSP RPC error prints for GPU at PCI:0000:0a:00 .. The GPU likely needs to be reset." (open-gpu-kernel-
#   modules #659): the same GPU's event (EVENT_PER_GPU_INDEX), its address the finding's;
# - "nccl_exception": PyTorch's ncclRemoteError quoting NCCL's socket error after "Last error:" ("socketProgress:
#   Connection closed by remote peer ip-172-31-45-209.eu-north-1.compute.internal<32926>", pytorch/pytorch #150916):
#   part of the exception's one failure, the peer it names the failure's; its quote of NCCL's "Duplicate GPU detected :
#   rank 3 and rank 0 .." (clessig/atmorep #77) the same, the rank it names first (the writer's) the failure's, the
#   other carried (EVENT_FILL_DETAILS).
# - "mce": an uncorrected memory error whose page the kernel took offline, then "Memory failure: 0x3710b3: Sending
#   SIGBUS to einj_mem_uc:361438 due to hardware memory corruption" (4.x "Killing <comm>:<pid> ..."): the process it
#   signalled is the error's (triage reads a job's rank that died by that SIGBUS as killed by the node's memory).
# - "smmu": an SMMUv3 event ("arm-smmu-v3 arm-smmu-v3.5.auto: event 0x10 received:"), then 6.14+'s decode naming the
#   device whose DMA faulted ("event: F_TRANSLATION client: 0001:06:00.0 sid: .."): the fault's device.
# - "rminit": an init attempt whose finding's line named no GPU (a confidential VM's driver on a GPU whose CC mode is
#   off: "GPU confidential compute capability is not enabled.", NVIDIA/nvtrust #124), then its "GPU 0000:06:00.0:
#   RmInitAdapter failed!" naming the GPU (EVENT_ADOPTS: the event the GPU's from then on): its address the finding's.
# - "cper": a firmware-first record's memory error, then hwpoison's lines about its page (as "mce").
# - "ofi": aws-ofi-nccl's "NET/OFI Request .. completed with error", then libfabric's "<warn>" line for the same
#   completion naming the peer's instance ("Peer host id: i-0ce6d3d57139f053c"): the completion's peer.
EVENT_FILLS = {"reset": ("pci",), "rminit": ("pci",), "nccl_exception": ("peer", "rank"), "mce": ("pid", "process"), "smmu": ("pci",),
               "cper": ("pid", "process"), "ofi": ("peer",)}
# Event -> the details a joining line's row read that go with the fields it fills (EVENT_FILLS), into the same
# amendment: "mce": hwpoison's "forcibly killing <comm>:<pid>" (details "forced": it sent SIGKILL, not SIGBUS).
# "cper": the same, and what hwpoison did ("what": "recovery action for dirty LRU page: Recovered", "Killing .."). Each
# only where the finding lacks it. "nccl_exception": the other rank NCCL's duplicate-GPU quote names ("other_rank").
# "lockup", "rcu_stall", "hung": with the module a RIP line or a frame gives (EVENT_FILL_ALONE), its filesystem where it
# is a storage client's (the storage_oops refiner's): only with it, so a later frame never names another module's.
EVENT_FILL_DETAILS = {"mce": ("forced",), "cper": ("forced", "what"), "nccl_exception": ("other_rank",),
                      "lockup": ("filesystem",), "rcu_stall": ("filesystem",), "hung": ("filesystem",)}
# Events whose finding, its attribution unknown, takes the attribution of the line that fills it (EVENT_FILLS,
# EVENT_FILL_ALONE: with what that line gives, so the attribution goes with the module it is of), its row's (Rule
# .attribution): "lockup", "rcu_stall", "hung": a RIP line in a GPU or NIC driver (kernel_oops's "driver") or a storage
# client (storage_oops's "driver"), a trace's frame in a GPU or NIC driver (driver_frame's "driver"; a storage client's
# frame, storage_frame, says unknown: nothing taken). The amendment carries it as it carries the severity a later line
# states; a finding whose attribution its own line stated keeps it.
EVENT_FILL_ATTRIBUTION = frozenset({"lockup", "rcu_stall", "hung"})
# Event -> the details a joining line gives the event's finding when that finding lacks them, an amendment of their own
# (details "amends": the first of them; EVENT_FILL_DETAILS carried with them) when the line fills no field: "cper":
# hwpoison's page ("pfn") or the poison a process consumed ("consumed") after the record (the record's finding says what
# the kernel did with the page, as an x86 machine check's does; triage reads a page taken offline as a memory error a
# process of the host may have died of); "oom": whose memory an OOM kill's later line says ran out (OOM_WORDS) after
# an "invoked oom-killer" line that said nothing of it, within the kill's report (its EVENT_LINES: the task table);
# "cuda_exception": the GPU ("gpu") ggml's "current device: N" line after its CUDA error names (a "within" row's);
# "fm_nvl": the GPU ("gpu_guid", its fabric GUID) and port ("port") Fabric Manager's GPU NVL error block names on its
# "gpuGuid : 0x.." and "portNum : N" lines.
EVENT_FILL_ALONE = {"cper": ("pfn", "consumed"), "lockup": ("module", "function"), "rcu_stall": ("module", "function"),
                    "hung": ("module", "function", "lock", "owner"),
                    "ecc": ("memory", "detail_xid"), "oom": ("oom",), "cuda_exception": ("gpu",),
                    "fm_nvl": ("gpu_guid", "port"), "ray_oom": ("node_ip",), "dcgm_health": ("test",),
                    "nccl_watchdog": ("seq", "op", "timeout_ms")}
# Event -> the details of EVENT_FILL_ALONE a joining line adds to the finding's where the finding has them already, of
# another value: appended (", "), an amendment ("amends": the detail) as the first was. "dcgm_health": `dcgmi health
# -c` prints each failing system of a GPU on its own row below the GPU's (dcgmi/Health.cpp HandleOneEntity: "PCIe
# system: Warning - ..", then "InfoROM system: Warning - .."): the finding's `test` names them all ("PCIe, InfoROM").
EVENT_FILL_APPEND = {"dcgm_health": ("test",)}
# Event -> the Finding fields a joining line that names them must name as the event's finding does to give it anything
# (EVENT_FILLS, EVENT_FILL_ALONE, EVENT_FILL_DETAILS): "hung": 6.14+'s blocker line names the hung task whose lock it
# names ("INFO: task kwin_wayland:1590 blocked on a semaphore likely last held by task nvidia-modeset/:501" after
# "INFO: task kwin_wayland:1590 blocked for more than 860 seconds.", open-gpu-kernel-modules #1205): one naming another
# task (its own hung line lost) is that task's lock, not the finding's.
EVENT_FILL_SAME = {"hung": ("pid",)}
# Event -> the details a line that opens the event, or is a finding within it ("open", "inside"), takes where it lacks
# them from the event's line before it (open within its window, EVENT_LINES), and hands on to the next: a line that
# names them starts afresh. `dcgmi diag`'s tables name a test on its first row only: 2.x/3.x a test's results per GPU,
# its Pass row first, its Fail and Warn rows right below it without its name ("| GPU Memory | Pass - GPU: 1 |" then
# "|  | Fail - GPU: 0 |", go-dcgm #52), each row opening "dcgm_gpus" (one line apart: a section separator, another
# row or a line outside the table between, no test); 4.x an entity's Fail below its test's Fail row ("dcgm_diag").
EVENT_CARRIES = {"dcgm_gpus": ("test",), "dcgm_diag": ("test",)}
# Events whose opening line may come after a line that details it: an "open" line within the event's window (EVENT_LINES)
# more severe than the finding its earlier line made is that finding's amendment (details "amends": "severity"), not a
# second event, and takes the details the earlier line gave (EVENT_FILL_ALONE). The Xid 171 / 172 the GSP firmware logs
# before its Xid 48 ("172 .. SM ICACHE, Uncorrectable SRAM error in GPC 7 TPC 6" then "48 .. pid=3432060, name=python3,
# Ch 0000000a", an eBPF tracer of the driver's nvidia_dev_xid tracepoint, its README's output): one event, the 48's
# finding with the memory the 172 named. An "open" line no more severe (a second Xid 48) opens the next event.
EVENT_DETAIL_FIRST = frozenset({"ecc"})
# A line of another event's row (a "join" row of several events, rules.Rule.event) joining an open event is
# part of it, what it gives the event's finding an amendment as any joining line's (EVENT_FILLS, EVENT_FILL_ALONE, a
# stronger action: parsers/classify.py _fill): a CPU lockup's or an RCU stall's register dump ("RIP: 0010:nvWriteGpEntry
# +0xf9/0x370 [nvidia_modeset]" after "watchdog: BUG: soft lockup - CPU#28 stuck for 31502s! [nvidia-modeset/:1024]")
# is the stuck CPU's, not an oops (kernel_oops): part of the open lockup or stall, the module and function it names
# the report's finding's (EVENT_FILL_ALONE, an amendment: "module"): the GPU driver spinning, an early sign of a wedged
# GPU. An oops's first line ends the report (the oops_header row), so an oops right after a lockup keeps its own
# finding. (Its action, the oops kind's RESTART_BM, is off the lockup finding's INVESTIGATE: no amendment of it.)
# Events whose error a "page" row's line locates (a firmware record's physical address): a "follows" line naming
# another page (hwpoison's pfn) is no line of theirs. A pfn is the address shifted by the kernel's page size: 4K (x86,
# most arm64), 16K or 64K (arm64: Grace's 64K kernels, "physical_address: 0x0000000aeccde180" then "Memory failure:
# 0xaeccd: ..").
EVENT_PAGES = frozenset({"cper"})
PAGE_SHIFTS = (12, 14, 16)
# Events of a kernel report (an oops's or a WARN's: its header, RIP line, trace, "---[ end trace .. ]---") and what
# follows it (the register dump repeated after "end trace", "Kernel panic - not syncing: Fatal exception", "---[ end
# Kernel panic .. ]---"): a report's first line (the oops_header row, "begin") ends one only when it starts another
# report: after the event's report ended (its "end" line, the oops_end row), at a die counter other than that of the
# event's report ("Oops: 0000 [#2]" after "[#1]": the next oops, its "end trace" lost), or at an oops's or a BUG's first
# line right after a WARN's (a WARN prints no die line). So an oops inside the panic window of another (a WARN then a
# real oops, two modules' oopses) is its own finding, while 4.x's die line after its "IP:" line ("BUG: unable to
# handle ..", "IP: [<..>] .. [nvidia]", "Oops: 0000 [#2] SMP": the counter of the report that line opened) and the
# panic after the oops stay in the oops's event.
EVENT_REPORTS = frozenset({"panic"})
# Events a report's first line ("close") ends only once a line of these rows joined them (a record's section): ghes_edac's
# count line printed before the record it decodes (the NMI / SEA path, ghes_proc_in_irq, handles a record before
# printing it) opened the event of that record, which its first line must not end.
EVENT_SECTIONS = {"cper": frozenset({"cper_memory", "cper_arm"})}
# Event -> (the event that reports its error a second time, the row of that event's line that does, the lines between
# that line, the event's last, and the report's first line ("close" row) within which the two are one): x86
# firmware-first. ghes.c hands each memory error section
# with an address to the machine check log (arch_apei_report_mem_error -> apei_mce_report_mem_error -> mce_log), so
# the kernel's "mce: [Hardware Error]: Machine check events logged" is printed for the record's own error, before the
# record (the NMI path: ghes_proc_in_irq handles a record before printing it; Tony Luck's Ice Lake console, lore
# ZhCQPwgMWo9w3LlO@agluck-desk3: the machine check line, then 0.7 ms later the record) or among its lines after it (a
# "within" line of the record's event, the mce_logged row). The record's first section then makes no finding of its
# own: it is the machine check's finding, amended to the record's stated severity where worse (details "amends":
# "severity"), and the record's event's finding from then on (its page's handling amends it). A machine check line
# further before the record, one other lines of its event followed (its decode, hwpoison's lines: a report of its own),
# or one the record's section does not follow, stays its own finding.
EVENT_ECHOES = {"cper": ("mce", "mce_logged", 2)}
AER_OPEN, AER_JOIN = ("aer", "open"), ("aer", "join")
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
# A BMC's System Event Log row as ipmitool prints it (`ipmitool sel elist` / `sel list`, ipmi_sel.c
# ipmi_sel_print_std_entry: "  89 | 08/31/2016 | 06:20:30 | <sensor type>[ <sensor name> | #0xNN] | <event>[ (<OEM
# detail>)] | Asserted[ | Reading <r> > Threshold <t> <unit>]"), its event one of ipmitool's texts
# (include/ipmitool/ipmi_sel.h: sensor_specific_event_types for a sensor type's own events, generic_event_types for
# thresholds and redundancy; a threshold's "going low " text ends in a space, printed before the " | "). A row of
# ipmi_sel_<row>: a sensor of one of `types`, one of `events`, Asserted: event -> (severity, action; None: the
# kind's). A "Deasserted" row is the end of the state the asserted one began, no fault; every other event of those
# sensors (presence, power off/down, the log cleared, boot progress, a Non-critical threshold, "Fully Redundant"),
# and every other sensor, says nothing.
#   memory, bus, processor: a Memory sensor's ECC error is the host's memory error, a Critical Interrupt sensor's bus
# error (the PCIe slot's or root port's, HGX / DGX "PCIE_ERR") a PCIe error, each at the severity of the AER words
# that say the same (AER_SEVERITY: corrected a warning, uncorrected an error, a bus's fatal error fatal); PCI PERR,
# the bus's parity error (a PCIe platform's BIOS logs its poisoned or uncorrectable non-fatal errors so), an error;
# PCI SERR, the bus's system error, fatal: the signal PCI keeps for errors whose result is catastrophic, an NMI on
# x86 that firmware set to halt or reset the machine. A Processor sensor's machine check, its unit unnamed, is a
# memory_error as the kernel's machine check of no cache or TLB unit is (rows mce_logged, mce_detail).
#   cpu: a processor's own fault (cpu_fault, an error): IERR, its internal error (Intel's CATERR, a sensor of that
# name whose state is asserted too: row caterr): the machine hung or was reset; its Thermal Trip: over its trip
# temperature, the platform cut its power (a cooling fault); an FRB self-test or start-up failure, the BIOS's
# uncorrectable CPU-complex error. Its "Throttled" is the CPU's thermal throttling (cpu_throttle, a warning).
#   power: a power supply's or the power unit's (power_supply): a supply's failure, the power unit's AC lost or
# failure, too few supplies for the load (Insufficient Resources) an error; a supply's input lost or out of range,
# a predictive failure, the redundancy lost or degraded a warning (the node runs on the other supplies).
#   cooling, electrical: a sensor past a critical threshold, upper going high or lower going low (bmc_sensor): Critical
# a warning, Non-recoverable (the platform's own limit) an error; the fans' redundancy lost a warning. Temperature
# and fans a cooling fault (the kind's CHECK_COOLING), voltage and current the board's or a supply's.
_SEL_WARNING, _SEL_ERROR = ("warning", None), ("error", None)
_SEL_REDUNDANCY = {"Redundancy Lost": _SEL_WARNING, "Redundancy Degraded": _SEL_WARNING,
                   "Redundancy Degraded from Fully Redundant": _SEL_WARNING,
                   "Non-Redundant: Sufficient from Redundant": _SEL_WARNING,
                   "Non-Redundant: Insufficient Resources": _SEL_ERROR}


def _sel_thresholds(action: str | None) -> dict:
    """A threshold sensor's events that are a fault: past a critical (a warning) or non-recoverable (an error)
    threshold, upward or downward."""
    return {f"{side} {level} going {way}": (severity, action) for side, way in (("Upper", "high"), ("Lower", "low"))
            for level, severity in (("Critical", "warning"), ("Non-recoverable", "error"))}


IPMI_SEL_EVENTS = {  # row -> (kind, sensor types, the sensor's name (a regex; "": any), {event: (severity, action)})
    "memory": ("memory_error", ("Memory",), "", {"Correctable ECC": AER_SEVERITY["corrected"],
                                                  "Uncorrectable ECC": AER_SEVERITY["uncorrected"]}),
    "bus": ("pcie_aer", ("Critical Interrupt",), "", {
        "Bus Correctable error": AER_SEVERITY["corrected"], "Bus Uncorrectable error": AER_SEVERITY["uncorrected"],
        "Bus Fatal Error": AER_SEVERITY["fatal"], "PCI PERR": AER_SEVERITY["uncorrected"],
        "PCI SERR": AER_SEVERITY["fatal"]}),
    "processor": ("memory_error", ("Processor",), "", {
        "Uncorrectable machine check exception": AER_SEVERITY["uncorrected"],
        "Correctable machine check error": AER_SEVERITY["corrected"]}),
    "cpu": ("cpu_fault", ("Processor",), "", {
        "IERR": _SEL_ERROR, "Thermal Trip": ("error", "CHECK_COOLING"), "FRB1/BIST failure": _SEL_ERROR,
        "FRB2/Hang in POST failure": _SEL_ERROR, "FRB3/Processor startup/init failure": _SEL_ERROR,
        "SM BIOS Uncorrectable CPU-complex Error": _SEL_ERROR}),
    "caterr": ("cpu_fault", ("Processor",), r"[^|\n]*CATERR", {"State Asserted": _SEL_ERROR}),
    "cpu_throttle": ("cpu_throttle", ("Processor",), "", {"Throttled": _SEL_WARNING}),
    "power": ("power_supply", ("Power Supply", "Power Unit"), "", {
        "Failure detected": _SEL_ERROR, "AC lost": _SEL_ERROR, "Power Supply AC lost": _SEL_WARNING,
        "AC lost or out-of-range": _SEL_WARNING, "AC out-of-range, but present": _SEL_WARNING,
        "Predictive failure": _SEL_WARNING, **_SEL_REDUNDANCY}),
    "cooling": ("bmc_sensor", ("Temperature", "Fan"), "", {**_sel_thresholds(None), **_SEL_REDUNDANCY}),
    "electrical": ("bmc_sensor", ("Voltage", "Current"), "", _sel_thresholds("HARDWARE_INSPECTION")),
}


def ipmi_sel_row(types: tuple[str, ...], name: str, events: dict) -> str:
    """The pattern of a SEL row of a sensor of `types` (its name matching `name`) and one of `events`, Asserted
    (IPMI_SEL_EVENTS)."""
    return (r"\| (?P<sensor>(?:" + "|".join(map(re.escape, types)) + r")\b" + name + r"[^|\n]*?) *\| (?P<event>" +
            "|".join(map(re.escape, sorted(events, key=len, reverse=True))) +
            r")(?: \((?P<detail>[^|\n]*)\))? *\| Asserted\b")
MLX5_HEALTH_JOIN = ("mlx5_health", "join")
SXID_OPEN, SXID_JOIN = ("sxid", "open"), ("sxid", "join")
FM_NVL_OPEN = ("fm_nvl", "open")
OOM_ONCE = ("oom", "once")
# Whose memory an OOM kill's line says ran out (details "oom": a key of kinds.OOM_SCOPES), in each era's words
# (mm/oom_kill.c, memcontrol.c): 4.19+'s summary "oom-kill:constraint=<oom_constraint_text>" (CONSTRAINT_MEMCG: a memory
# cgroup's limit; CONSTRAINT_NONE: the whole node; CONSTRAINT_CPUSET / CONSTRAINT_MEMORY_POLICY: the NUMA nodes a cpuset
# or mempolicy allows, the node's memory there, no limit of the job's), the message before "Killed process" (4.19+) or
# "Kill process .. or sacrifice child" (before): "Memory cgroup out of memory" (mem_cgroup_out_of_memory) or "Out of
# memory" (out_of_memory, "(oom_kill_allocating_task)" after it where that sysctl chose the victim), and before 4.19
# the memcg report's "Task in <cgroup> killed as a result of limit of <cgroup>" (mem_cgroup_print_oom_info).
OOM_WORDS = {"CONSTRAINT_MEMCG": "cgroup", "CONSTRAINT_NONE": "host", "CONSTRAINT_CPUSET": "host",
             "CONSTRAINT_MEMORY_POLICY": "host", "Memory cgroup out of memory": "cgroup", "Out of memory": "host",
             "killed as a result of limit": "cgroup"}
LOCKUP_OPEN = ("lockup", "open")
# A panic's reason that says the hardware killed the kernel (the kernel_panic rows' attribution hardware): an x86
# machine check ("Fatal machine check", "Machine check from unknown source", mce_panic's "Timeout: Not all CPUs
# entered broadcast exception handler"), arm64's SError and external abort, a firmware-first record ("Fatal hardware
# error!", ghes.c's GHES_PFX "[Hardware Error]: "), and x86's I/O check NMI, which the firmware raises for an
# uncorrectable error ("NMI IOCK error: Not continuing", traps.c / nmi.c io_check_error with panic_on_io_nmi). Not
# HPE's iLO NMI (hpwdt: "04: An NMI occurred. Depending on your system the reason for the NMI is logged in any one of
# the following resources: .."): its number is the iLO's own NMI status (hpwdt_my_nmi), the watchdog's pretimeout on a
# hung OS or the iLO's "Generate NMI to System" button (Kconfig HPWDT_NMI_DECODING): no hardware fault by itself, the
# kind's attribution (unknown; luigirizzo/netmap #779: an out-of-tree driver under an IRQ stress test).
PANIC_HARDWARE = (r"[Mm]achine [Cc]heck|broadcast exception handler|SError|external abort|Hardware Error|"
                  r"[Hh]ardware error|NMI IOCK error")
# PyTorch's ProcessGroupNCCL reports one rank's failure on several lines (the timeout, "Exception ... detected by
# watchdog", "Timeout at NCCL work", "Some NCCL operations have failed or timed out", the heartbeat monitor, the
# stuck watchdog, the debug-info dump, the communicator abort), a stack trace between some of them: one event per
# rank (the "[Rank n]" / "[PG .. Rank n]" / torchrun's "[rankN]:" on the line), each of its lines once.
EVENT_PER_RANK = frozenset({"nccl_watchdog", "cuda_assert"})
# Events kept per the text of a group of their lines (event -> the group): NCCL's WARN of a CUDA status and PyTorch's
# quote of NCCL's last error after it are one failure only where the quote names the WARN's status; a quote of another
# status in the WARN's window is another failure (another process's), its own finding; so for NET/IB's WARN of a failed
# verbs registration and the quote of its error. The kernel's TX watchdog per network interface (its `netdev`), whether
# or not the line names its PCI function too: 6.8+'s "mlx5_core 0000:53:00.0 ib0: NETDEV WATCHDOG: CPU: .." names both,
# IPoIB's own "ib0: transmit timeout: latency .." after it the interface alone (an IPoIB netdev's parent is its HCA's
# PCI function, ipoib_main.c SET_NETDEV_DEV): one event, as before 6.8 ("NETDEV WATCHDOG: ib1: transmit timed out")
EVENT_PER_GROUP = {"nccl_cuda": "cuda_error", "nccl_ibv": "ibv_error", "netdev_watchdog": "netdev"}
# Rows whose (`join`) line restates its event's error (row -> the detail naming it): part of the open event only where
# it names the error the event's finding does; one naming another is that error's own event (it opens one). vLLM's
# engine process logging the exception that ended it (dynamo's "engine.run_mp_engine: CUDA error: <text>", the
# cuda_error_restated row) after PyTorch's own report of it (ai-dynamo/dynamo #1229): one failure.
EVENT_RESTATED = {"cuda_error_restated": "cuda_error"}
TORCH_PG_ONCE = ("nccl_watchdog", "once")
MLX5_TX_JOIN = ("mlx5_tx_timeout", "join")
# PyTorch's NCCL exception: the wrapper line ("NCCL error in: ..., unhandled system error") and, on the next
# line, NCCL's description of the code ("ncclSystemError: System call ... failed") are one failure
NCCL_EXC_OPEN, NCCL_EXC_JOIN = ("nccl_exception", "open"), ("nccl_exception", "join")
# NCCL's check of a CUDA call (src/include/checks.h: CUDACHECK's "Cuda failure '<text>'", CUCHECK's "Cuda failure <N>
# '<text>'" since 2.19), a text CUDA_ERRORS lists: its WARN opens an event its echo after PyTorch's "Last error:" joins
NCCL_CUDA_OPEN = ("nccl_cuda", "open")
# NET/IB's WARN of a failed verbs registration: its quote after PyTorch's "Last error:" joins its event (nccl_ibv)
NCCL_IBV_OPEN = ("nccl_ibv", "open")
# A CUDA error as PyTorch raises it: "CUDA error: <text>" and, 2.6+, the next line's "Search for `cudaError..'" are one
CUDA_EXC_OPEN, CUDA_EXC_JOIN = ("cuda_exception", "open"), ("cuda_exception", "join")
# A CUDA status by its number before its text, as the frameworks beyond PyTorch print it (the cuda_error_code and
# caffe_cuda_check rows; cuda_status_oom reads status 2 in the same shapes): "<CUDA_CODE_HEAD><n><CUDA_CODE_TAIL><text>"
# (Marian's "CUDA error 2 'out of memory'", llama.cpp's "CUDA error 2 at <file>:<line>: out of memory"), and
# "<CAFFE_CHECK>(<n> vs. 0)  <text>" (Caffe's; Caffe2's without the numbers)
CUDA_CODE_HEAD, CUDA_CODE_TAIL = r"(?:CUDA (?:error|failure)|Cuda error) ?\(?", r"\)?(?: at \S+:\d+)?[:,]? '?"
CAFFE_CHECK = r"Check failed: error == cudaSuccess ?"
# A CUDA kernel's assert() failing: a line per failing thread of it and the exception the framework raises for it
# ("CUDA error: device-side assert triggered", before the threads' lines or after them: the device's printf is flushed
# at the sync that raises), one failure per rank (EVENT_PER_RANK)
CUDA_ASSERT_JOIN = ("cuda_assert|cuda_exception", "join")
# What CUDA reports of a kernel whose assert() failed (cudaErrorAssert), as CUDA_ERRORS keys it: a failing thread's own
# line (the cuda_kernel_assert row) is that failure
CUDA_ASSERT_TEXT = "device-side assert triggered"
# How a framework introduces a CUDA runtime error's text (alternatives): PyTorch's "CUDA error: ", THC's "cuda runtime
# error (59) : ", NCCL's and others' "Cuda failure '" / "CUDA failure: ", and PyTorch's check of a CUDA driver API call
# (C10_CUDA_DRIVER_CHECK: symmetric memory, expandable segments; cuGetErrorString()'s text) "CUDA driver error: "
CUDA_ERROR_PREFIX = r"CUDA (?:driver )?error: |Cuda failure '|CUDA failure[: ]*'?|cuda runtime error \(\d+\) : "
# TensorFlow's words before the runtime's text of a CUDA call that failed at a GPU's set-up
TF_CUDA_STATUS = r"(?:CUDA runtime implicit initialization|cudaSetDevice\(\)) on GPU:\d+ failed\. Status: "
# Events kept per rank whose lines of no rank tag and those of one rank's are one process's: a rank's stderr under
# torchrun's "[rankN]:" prefix, its stdout (a kernel's printf) untagged (modelscope/ms-swift #3267). A line of either
# is part of the other's open event while it is the only rank's open (an untagged line: the one tagged rank's event;
# a tagged line: the untagged event, which is that rank's from then on), never of two ranks' (parsers/classify.py
# Classifier._one_process).
EVENT_ONE_PROCESS = frozenset({"cuda_assert"})
# The kernel's start-up lines: no finding, no event; the stream's boot clock is set by them (Classifier, ports.py).
BOOT_MARK = ("boot", "mark")
# Their order within one boot (row name -> stage): a line of a stage no later than the last one seen starts a boot.
BOOT_STAGES = {"boot_banner": 0, "boot_cmdline": 1, "boot_free_initmem": 2, "boot_run_init": 3}


# The AER status registers, bit -> the kernel's names of the bit (drivers/pci/pcie/aer.c's 5.x+ name, then 3.x-4.x's
# spelled-out one, aerdrv_errprint.c), as a "[nn] Name" detail line prints them; the correctable ones make an event
# they open a warning. The uncorrectable register's bits 27-31 the kernel named in 2025 (DMWrReqBlocked ..
# TLPXlatBlocked, PCIe 6's); its bit 0 ("Undefined") is reserved since PCIe 1.1, so no status tells that register by it.
AER_REGISTERS = {
    "correctable": {0: ("RxErr", "Receiver Error"), 6: ("BadTLP", "Bad TLP"), 7: ("BadDLLP", "Bad DLLP"),
                    8: ("Rollover", "RELAY_NUM Rollover"), 12: ("Timeout", "Replay Timer Timeout"),
                    13: ("NonFatalErr", "Advisory Non-Fatal"), 14: ("CorrIntErr", "Corrected Internal Error"),
                    15: ("HeaderOF", "Header Log Overflow")},
    "uncorrectable": {0: ("Undefined",), 4: ("DLP", "Data Link Protocol"), 5: ("SDES", "Surprise Down Error"),
                      12: ("TLP", "Poisoned TLP"), 13: ("FCP", "Flow Control Protocol"),
                      14: ("CmpltTO", "Completion Timeout"), 15: ("CmpltAbrt", "Completer Abort"),
                      16: ("UnxCmplt", "Unexpected Completion"), 17: ("RxOF", "Receiver Overflow"),
                      18: ("MalfTLP", "Malformed TLP"), 19: ("ECRC",), 20: ("UnsupReq", "Unsupported Request"),
                      21: ("ACSViol", "ACS Violation"), 22: ("UncorrIntErr", "Uncorrectable Internal Error"),
                      23: ("BlockedTLP", "MC Blocked TLP"), 24: ("AtomicOpBlocked", "AtomicOp Egress Blocked"),
                      25: ("TLPBlockedErr", "TLP Prefix Blocked Error"), 26: ("PoisonTLPBlocked",),
                      27: ("DMWrReqBlocked",), 28: ("IDECheck",), 29: ("MisIDETLP",), 30: ("PCRC_CHECK",),
                      31: ("TLPXlatBlocked",)},
}
AER_CORRECTABLE_BITS, AER_UNCORRECTABLE_BITS = (
    tuple(names[0] for names in AER_REGISTERS[register].values())
    + tuple(names[1] for names in AER_REGISTERS[register].values() if len(names) > 1)
    for register in ("correctable", "uncorrectable"))
AER_BITS = tuple(sorted(AER_CORRECTABLE_BITS + AER_UNCORRECTABLE_BITS, key=len, reverse=True))
# A device's status line ("device [8086:9d14] error status/mask=00000001/00002000"; firmware first's "AER: aer_status:
# 0x00001000, aer_mask: 0x00006000") names no register: its report's header does ("PCIe Bus Error: severity=
# Corrected"). Where no header of the event came before it (a cut log: `dmesg | tail`, a grep), the bits say which:
# a bit only one register has, in the status, else in the mask (AER_REGISTER_ONLY); else a mask of no bits but the
# correctable register's reset-default ones (Advisory Non-Fatal, Corrected Internal, Header Log Overflow: 0xe000,
# the kernel's and firmware's 0x2000 / 0x6000 / 0xa000 its subsets) is that register's, as the uncorrectable
# register's reset mask has Uncorrectable Internal Error's bit 22. Else (bits 12-15 under an empty mask: a replay
# timeout or a poisoned TLP) the row's error, as before.
_AER_DEFINED = {"correctable": set(AER_REGISTERS["correctable"]),
                "uncorrectable": set(AER_REGISTERS["uncorrectable"]) - {0}}
AER_REGISTER_ONLY = {register: sum(1 << bit for bit in _AER_DEFINED[register] - _AER_DEFINED[other])
                     for register, other in (("correctable", "uncorrectable"), ("uncorrectable", "correctable"))}
AER_CORRECTABLE_MASK_DEFAULT = 0xE000


# libibverbs' enum ibv_event_type in its order (the number NCCL 2.28.7+ prints after the words, "port error(10)", and
# 2.23.4+'s "unknown event type (18)" for one it has no case for): each event's name, ibv_event_type_str()'s words for
# it (rdma-core libibverbs/enum_strs.c; NCCL prints these words) and whether it reports a failure. ibv_get_async_event(3)
# tells them apart: a QP's, CQ's, SRQ's or WQ's error, a failed path migration, the port going down and the adapter's
# catastrophic error are failures; the others are a queue's normal life (communication established, send queue
# drained, path migrated, last WQE reached, SRQ limit reached) or a port's news (back up, its LID, P_Key or GID table
# changed, a new subnet manager, the SM asking its clients to re-register, a new link speed): no failure. NCCL 2.28.7+
# calls them "non-fatal", UCX says them as diagnostics, no longer warnings (openucx/ucx #7349). What a GID table
# change breaks (a RoCE connection on the old address, NVIDIA/nccl #1333) fails with its own completion error line.
IB_ASYNC_EVENTS = (
    ("IBV_EVENT_CQ_ERR", "CQ error", True),
    ("IBV_EVENT_QP_FATAL", "local work queue catastrophic error", True),
    ("IBV_EVENT_QP_REQ_ERR", "invalid request local work queue error", True),
    ("IBV_EVENT_QP_ACCESS_ERR", "local access violation work queue error", True),
    ("IBV_EVENT_COMM_EST", "communication established", False),
    ("IBV_EVENT_SQ_DRAINED", "send queue drained", False),
    ("IBV_EVENT_PATH_MIG", "path migrated", False),
    ("IBV_EVENT_PATH_MIG_ERR", "path migration request error", True),
    ("IBV_EVENT_DEVICE_FATAL", "local catastrophic error", True),
    ("IBV_EVENT_PORT_ACTIVE", "port active", False),
    ("IBV_EVENT_PORT_ERR", "port error", True),
    ("IBV_EVENT_LID_CHANGE", "LID change", False),
    ("IBV_EVENT_PKEY_CHANGE", "P_Key change", False),
    ("IBV_EVENT_SM_CHANGE", "SM change", False),
    ("IBV_EVENT_SRQ_ERR", "SRQ catastrophic error", True),
    ("IBV_EVENT_SRQ_LIMIT_REACHED", "SRQ limit reached", False),
    ("IBV_EVENT_QP_LAST_WQE_REACHED", "last WQE reached", False),
    ("IBV_EVENT_CLIENT_REREGISTER", "client reregistration", False),
    ("IBV_EVENT_GID_CHANGE", "GID table change", False),
    ("IBV_EVENT_WQ_FATAL", "WQ fatal", True),
    ("IBV_EVENT_DEVICE_SPEED_CHANGE", "Device link speed change", False),
)
IB_EVENT_NAME = {words: name for name, words, _ in IB_ASYNC_EVENTS}  # ibv_event_type_str()'s words -> the enum's name
IB_EVENTS_NO_FAILURE = tuple(words for _, words, failure in IB_ASYNC_EVENTS if not failure)
IB_EVENT_NUMBERS_NO_FAILURE = tuple(str(n) for n, (_, _, failure) in enumerate(IB_ASYNC_EVENTS) if not failure)
IB_EVENTS_FAILURE = tuple(words for _, words, failure in IB_ASYNC_EVENTS if failure)
# NCCL's own words for an event it names itself: 2.28.3+ "NET/IB : mlx5_0:1 GID table changed" (IBV_EVENT_GID_CHANGE)
NCCL_IB_EVENT_WORDS = {"GID table changed": "IBV_EVENT_GID_CHANGE"}
# UCX's own words for the DC target's failures MLNX_OFED's experimental verbs report (ibv_exp_event_type: no
# ibv_event_type_str() words for them; src/uct/ib/base/ib_device.c uct_ib_handle_async_event)
UCX_IB_EVENT_WORDS = {"DCT key violation": "IBV_EXP_EVENT_DCT_KEY_VIOLATION",
                      "DCT access error": "IBV_EXP_EVENT_DCT_ACCESS_ERR",
                      "DCT requester error": "IBV_EXP_EVENT_DCT_REQ_ERR"}
NCCL_TEXT = {  # ncclGetErrorString() text, as PyTorch quotes it -> ncclResult_t name
    "unhandled cuda error": "ncclUnhandledCudaError",
    "unhandled system error": "ncclSystemError",
    "internal error": "ncclInternalError",
    "invalid usage": "ncclInvalidUsage",
    "invalid argument": "ncclInvalidArgument",
}
# its texts, the start of each failure's (later releases add "(run with NCCL_DEBUG=INFO for details)", " - please report
# this issue to the NCCL developers")
NCCL_TEXTS = tuple(NCCL_TEXT)
# A framework's own report of an NCCL call that failed, up to ncclGetErrorString()'s text: XLA's "NCCL operation
# ncclCommInitRank(&comm, nranks, id, rank) failed: ", Horovod's "ncclCommInitRank failed: " (the call's name, its
# arguments where given)
# (unbounded repeats: hyperscan refuses a pattern with a repeat of hundreds, "Pattern is too large", and the prefilter
# would try that build at every start)
NCCL_CALL_FAILED = r"(?:NCCL operation [^\n]+?|\bnccl[A-Z]\w+(?:\([^\n]*?\))?) failed: "
# NCCL's WARN after the source file that printed it: the line number, since 2.30.7 the function in parentheses
# (src/debug.cc: "[%d] %s:%d (%s) NCCL WARN %s"; "transport/nvls.cc:255 (ncclNvlsInit) NCCL WARN ..", NVIDIA/nccl
# #1716), then the level; before 2.30.7 the level after the line ("misc/shmutils.cc:72 NCCL WARN ..")
NCCL_WARN_AT = r":\d+ (?:\(\w+\) )?NCCL WARN "
# NVSHMEM's source file before each of its messages, under its build tree (nvshmem/, nvshmem_src/, a CUDA toolkit
# build's main_nvshmem/): "/sgl-workspace/nvshmem/src/host/init/init.cu:"
NVSHMEM_SOURCE = r"nvshmem\S*\.(?:cpp|cu|cuh|cc|c|h):"
# NIXL's status (nixl_status_t) where either of its voices gives it: the Python binding's exception named for it
# ("nixl._bindings.nixlBackendError: ", the CUDA wheels' "nixl_cu12._bindings.."), its C++ lines' "with status[:] "
NIXL_STATUS = r"(?:\bnixl\w{{0,40}}Error: |\bwith status:? )(?P<nixl_status>NIXL_ERR_{status})\b"


# vLLM's own words that its NVLink probe failing is normal on a machine without NVLink (rules.py vllm_nvlink_probe): the
# line is no finding, and the traceback logger.exception prints after it a handled exception (triage/read.py
# CAUGHT_BEFORE), not the job's failure
VLLM_NO_NVLINK = "This is normal if your machine has no NVLink"

# NCCL WARN texts NCCL's maintainers call harmless and later releases print at INFO: 2.19-2.25's "rank 0 failed to
# IPC register userbuff 0x.. buffSize .. nPeers 2 isLegacyIpc .." (INFO from 2.26, NVIDIA/nccl #1684); 2.10 and
# before's "misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]" on every host without the verbs library
# (no InfiniBand: NCCL uses its socket transport; INFO from 2.11, src/misc/ibvwrap.cc; pytorch/xla #2758); and the
# aws-ofi-nccl plugin's (its WARNs print as NCCL's, "NCCL WARN NET/OFI ..") 1.7.3-1.7.4 "configure_nvls_option:287 NCCL
# WARN NET/OFI Could not find ncclGetVersion symbol" in each process whose NCCL the plugin's dlsym(RTLD_DEFAULT) does
# not see (a statically linked or locally loaded NCCL): the plugin skips its NVLS version check and goes on
# (src/platform-aws.c configure_nvls_option returns 0); TRACE from 1.8.0 (aws/aws-ofi-nccl ce6f3418, "Skip NVLS version
# check if NCCL *.so not found").  NCCL 2.24.3-2.27.3 demoted more (a WARN in the release before, INFO since; the
# code went on after each either way): 2.7-2.26's "graph/search.cc:1135 NCCL WARN Could not find a path for pattern 4,
# falling back to simple order" (no channel of a pattern fits the topology: one ring in the GPUs' order instead), printed
# by every rank of each communicator on hosts whose GPUs lack P2P (NVIDIA/nccl-tests #287, GeForce on Genoa; NVIDIA/nccl
# #487; aws/aws-ofi-nccl #64, two p4d nodes that ran their all_reduce_perf) and 2.7-2.26's "No NVML device handle.
# Skipping nvlink detection." (INFO from 2.27.3, NVIDIA/nccl 72d24320, with the NCCL_TOPO_FILE and NCCL_TOPO_DUMP_FILE
# paths it could not open and the NCCL_MIN_NCHANNELS / NCCL_MAX_NCHANNELS it corrected); 2.19-2.25's failed NET and
# NVLS user-buffer registrations, the IPC one's siblings (INFO from 2.26.2); NCCL_IB_ADDR_RANGE's address or mask it
# ignores and a merged NIC whose peer has another device count (INFO from 2.24.3).  Their 2.25.1 siblings about a
# communicator's CTA settings and 2.27.3's "Invalid <param> <n> (maximum <m>)." stay the WARN row's (no fixed words).
NCCL_HARMLESS_WARNS = ("failed to IPC register userbuff", "Failed to open libibverbs.so",
                       "Could not find ncclGetVersion symbol", "Could not find a path for pattern",
                       "No NVML device handle. Skipping nvlink detection", "failed to NET register userbuff",
                       "failed to NVLS register sendbuff", "Could not open XML topology file",
                       "not dumping topology", "User asked for a maximum of", "User asked for a minimum of",
                       "is invalid for family AF_INET", "has a different number of devices=")

# cudaErrorDevicesUnavailable (46) by each of its names: the runtime's texts (and the older runtimes' "all .. devices",
# PyTorch 0.x-1.x, TensorFlow 1.x-2.4), its enum name, the driver API's CUDA_ERROR_DEVICE_UNAVAILABLE.  The process
# found its GPU but was refused a context on it: another process holds it in exclusive-process compute mode (a process
# an earlier pod left, another of this pod's, an MPS server the pod does not reach), or its compute mode is Prohibited;
# not the container's device nodes, which give no device at all.  The pod's Event says what to check
# (agent/workloads.py gpu_access); the status reads as gpu_busy (CUDA_ERRORS; parsers/kinds.py).
CUDA_BUSY = ("CUDA-capable device(s) is/are busy or unavailable", "cudaErrorDevicesUnavailable",
             "all CUDA-capable devices are busy or unavailable", "CUDA_ERROR_DEVICE_UNAVAILABLE")

# CUDA 12.8+'s status 226 by its text, the runtime's and the driver API's names (PyTorch's "CUDA error: Invalid access
# of peer GPU memory over nvlink or a hardware error", XLA's "CUDA_ERROR_CONTAINED: .."): the GPU's error containment
# stopped a kernel, by the CUDA docs either an invalid access of peer memory over NVLink or a hardware error, so one
# line's attribution stays unknown (CUDA_ERRORS, row cuda_nvlink).  Triage reads who else reported it at once
# (triage/attribute.py `_contained`): several GPUs at once are the NVLink fabric they share (marin-community/marin
# #8934: a GB200 NVL72 domain's eight nodes within 0.5 s).
CUDA_CONTAINED = ("Invalid access of peer GPU memory over nvlink or a hardware error", "cudaErrorContained",
                  "CUDA_ERROR_CONTAINED")

# The CUDA driver API's names of the failures a kernel or the GPU caused (XLA, JAX, TensorFlow, CuPy and Triton print
# them: "Failed to launch CUDA kernel: ..: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered") ->
# (severity, attribution, action), as CUDA_ERRORS for the runtime's.  Only these: CUDA_ERROR_NO_DEVICE and the like are
# what a CPU-only container's TensorFlow logs at start, CUDA_ERROR_OUT_OF_MEMORY its allocator's retries.
CUDA_DRIVER_ERRORS = {
    "CUDA_ERROR_ILLEGAL_ADDRESS": ("error", "application", "RESTART_APP"),
    "CUDA_ERROR_MISALIGNED_ADDRESS": ("error", "application", "RESTART_APP"),
    "CUDA_ERROR_ILLEGAL_INSTRUCTION": ("error", "application", "RESTART_APP"),
    "CUDA_ERROR_ASSERT": ("error", "application", "RESTART_APP"),
    "CUDA_ERROR_HARDWARE_STACK_ERROR": ("error", "application", "RESTART_APP"),
    "CUDA_ERROR_INVALID_PC": ("error", "application", "RESTART_APP"),
    "CUDA_ERROR_LAUNCH_FAILED": ("error", "unknown", "INVESTIGATE"),
    "CUDA_ERROR_LAUNCH_TIMEOUT": ("error", "unknown", "INVESTIGATE"),
    "CUDA_ERROR_ECC_UNCORRECTABLE": ("fatal", "hardware", "RESET_GPU"),
    "CUDA_ERROR_NVLINK_UNCORRECTABLE": ("fatal", "hardware", "RESET_GPU"),
    # an invalid access of peer GPU memory over NVLink or a hardware error (CUDA 12.8+, cuda_nvlink): either
    **{name: ("error", "unknown", "INVESTIGATE") for name in CUDA_CONTAINED if name.startswith("CUDA_ERROR_")},
    # the runtime's cudaErrorDevicesUnavailable (46) by the driver API's name, as XLA/JAX print it ("failed call to
    # cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICE_UNAVAILABLE: CUDA-capable device(s) is/are busy or unavailable"):
    # read as its text is (CUDA_ERRORS; CUDA_BUSY names it)
    **{name: "gpu_busy" for name in CUDA_BUSY if name.startswith("CUDA_ERROR_")},
    # the status the driver gives when it cannot say what failed (999; cudaErrorUnknown, 30 before CUDA 10.1): mid-run a
    # GPU or driver that stopped answering (a GPU off the bus, a wedged driver), at start a node whose GPU stack a process
    # cannot use (nvidia_uvm not loaded, device nodes it may not open: TensorFlow's "failed call to cuInit:
    # CUDA_ERROR_UNKNOWN: unknown error", tensorflow/tensorflow #32623): the node's driver either way, never the program
    "CUDA_ERROR_UNKNOWN": ("error", "driver", "CHECK_DRIVER"),
}

# A CUDA graph's capture that the job's own code broke (cudaErrorStreamCapture*, 900-908, and cudaErrorCapturedEvent):
# a synchronizing call, an allocation, a host copy or a collective on an uncaptured stream while a stream is captured.
# Serving engines capture their graphs at start-up (vLLM's and SGLang's CUDA graph capture, TensorRT's and trtexec's
# --useCudaGraph), so a model, kernel or communicator that cannot be captured fails there on every node: "RuntimeError:
# CUDA error: operation not permitted when stream is capturing" (SystemPanic/vllm-windows #5, a vLLM engine),
# PyTorch 2.6+'s "Search for `cudaErrorStreamCaptureUnsupported'" (noonghunna/club-3090 #106, a vLLM 0.20 nightly's
# worker), TensorRT's "Error Code 1: Cuda Runtime (operation not permitted when stream is capturing)" (NVIDIA/TensorRT
# #3011), NCCL's "enqueue.cc:267 NCCL WARN Cuda failure 'dependency created on uncaptured work in another stream'"
# (vllm-project/vllm #4432). The job's code or configuration (vLLM's --enforce-eager, SGLang's --disable-cuda-graph
# avoid the capture), never the GPU's: a restart alone fails again (were: attribution unknown, INVESTIGATE; NCCL's an
# nccl_error warning). Not 901 (cudaErrorStreamCaptureInvalidated), "operation failed due to a previous error during
# capture": the consequence of another error inside the capture, whatever it was (csarofeen/pytorch #2098 at start; a
# JAX run's "Failed to end stream capture: CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: .." after 22 and 40 hours of training
# that stopped after a driver upgrade): unknown, as before. The texts are cudaGetErrorString()'s, as HIP's and SCALE's
# copies of the table give those no log here shows.
CUDA_CAPTURE_ERRORS = {
    **{text: ("error", "application", "CHECK_APP") for text in (
        "operation not permitted when stream is capturing", "cudaErrorStreamCaptureUnsupported",
        "operation would result in a merge of separate capture sequences", "cudaErrorStreamCaptureMerge",
        "capture was not ended in the same stream as it began", "cudaErrorStreamCaptureUnmatched",
        "capturing stream has unjoined work", "cudaErrorStreamCaptureUnjoined",
        "dependency created on uncaptured work in another stream", "cudaErrorStreamCaptureIsolation",
        "operation would make the legacy stream depend on a capturing blocking stream", "cudaErrorStreamCaptureImplicit",
        "operation not permitted on an event last recorded in a capturing stream", "cudaErrorCapturedEvent",
        "attempt to terminate a thread-local capture sequence from another thread", "cudaErrorStreamCaptureWrongThread")},
    "operation failed due to a previous error during capture": ("error", "unknown", "INVESTIGATE"),
    "cudaErrorStreamCaptureInvalidated": ("error", "unknown", "INVESTIGATE"),
}

# The CUDA runtime's text of a status (cudaGetErrorString; the driver's cuGetErrorString gives the same words for
# these) and the enum names the libraries print -> (severity, attribution, action), or the name of the kind the status
# is in every framework's words (its severity, attribution and action the kind's): the one table every row reading a
# CUDA status refines by (_refine_cuda), NCCL's WARN among them (its row's texts are this table's keys).
CUDA_ERRORS = {  # CUDA runtime error text -> (severity, attribution, action) | a kind's name
    "uncorrectable ECC error encountered": ("fatal", "hardware", "RESET_GPU"),
    "an illegal memory access was encountered": ("error", "application", "RESTART_APP"),
    "device-side assert triggered": ("error", "application", "RESTART_APP"),
    "misaligned address": ("error", "application", "RESTART_APP"),
    "an illegal instruction was encountered": ("error", "application", "RESTART_APP"),
    "unspecified launch failure": ("error", "unknown", "INVESTIGATE"),
    "the launch timed out and was terminated": ("error", "unknown", "INVESTIGATE"),
    # A process that finds no GPU (cudaErrorNoDevice: 38 before CUDA 10.1, 100 since; the driver's CUDA_ERROR_NO_DEVICE,
    # 100: kind gpu_access_lost) or is refused the GPUs it finds (cudaErrorDevicesUnavailable, 46: a GPU in
    # exclusive-process compute mode another process holds, another pod's or one given every GPU; compute mode
    # Prohibited; a GPU the driver wants reset, which the kernel log names: kind gpu_busy): the pod's GPU access,
    # whichever framework's words say it (PyTorch's, THC's, CuPy's, NCCL's, the CUDA samples', TensorRT-LLM's,
    # TensorFlow's, XLA's). The node's fault only in a pod that holds GPUs (`pod_holds_gpus`: the agent asks the
    # kubelet); a pod given none that reaches for the node's GPUs (NVIDIA_VISIBLE_DEVICES=all) is refused them on a
    # healthy node. Never a reset from the pod's words alone: that kills the process holding the GPU (were: cuda_error,
    # the node's driver; 46 RESET_GPU).
    **dict.fromkeys(("no CUDA-capable device is detected", "cudaErrorNoDevice"), "gpu_access_lost"),
    **dict.fromkeys(CUDA_BUSY, "gpu_busy"),
    "cudaErrorIllegalAddress": ("error", "application", "RESTART_APP"),
    "cudaErrorECCUncorrectable": ("fatal", "hardware", "RESET_GPU"),
    "cudaErrorLaunchFailure": ("error", "unknown", "INVESTIGATE"),
    "uncorrectable NVLink error detected during the execution": ("fatal", "hardware", "RESET_GPU"),
    "cudaErrorNvlinkUncorrectable": ("fatal", "hardware", "RESET_GPU"),
    **dict.fromkeys(CUDA_CONTAINED, ("error", "unknown", "INVESTIGATE")),
    # the enum names PyTorch 2.6+ prints beside the text ("Search for `cudaErrorAssert' ..")
    "cudaErrorAssert": ("error", "application", "RESTART_APP"),
    "cudaErrorMisalignedAddress": ("error", "application", "RESTART_APP"),
    "cudaErrorIllegalInstruction": ("error", "application", "RESTART_APP"),
    "cudaErrorLaunchTimeout": ("error", "unknown", "INVESTIGATE"),
    "unknown error": ("error", "driver", "CHECK_DRIVER"),  # CUDA_ERROR_UNKNOWN's text and the runtime's name of it
    "cudaErrorUnknown": ("error", "driver", "CHECK_DRIVER"),
    # a build without code for this GPU's architecture (a wheel or kernel library older than the GPU: Blackwell's sm_100
    # / sm_120 under a CUDA 12.4 PyTorch, vllm-project/vllm #20193, #19906; a P100 under a build without sm_60): the
    # job's software, whichever node it runs on (was: unknown, INVESTIGATE)
    "no kernel image is available for execution on the device": ("error", "application", "RESTART_APP"),
    "cudaErrorNoKernelImageForDevice": ("error", "application", "RESTART_APP"),
    "invalid device function": ("error", "application", "RESTART_APP"),
    "cudaErrorInvalidDeviceFunction": ("error", "application", "RESTART_APP"),
    # PTX the node's driver is too old to compile (cudaErrorUnsupportedPtxVersion, 222): a build whose CUDA toolkit is
    # newer than the driver, its kernel without code for the GPU JIT-compiled at first launch (vLLM's flash-attention
    # on a cu128 PyTorch under driver 550, vllm-project/vllm #31700, #47397; a Triton image under an older driver,
    # triton-inference-server/server #2193; FasterTransformer's image under 470, fauxpilot/fauxpilot #19). The
    # driver / toolkit mismatch, fixed by a newer driver or an image built for the node's: the driver's reading, as
    # the runtime's 35 (driver_unusable) is, but a cuda_error, so never a node's fault in triage by itself: an image
    # built too new fails so on every node (was: unknown, INVESTIGATE)
    "the provided PTX was compiled with an unsupported toolchain": ("error", "driver", "CHECK_DRIVER"),
    "cudaErrorUnsupportedPtxVersion": ("error", "driver", "CHECK_DRIVER"),
    # a GPU index the process does not see (cudaErrorInvalidDevice, 101): more ranks or GPUs per node than the job was
    # given ("-g 8" or two ranks per node on one GPU each: NVIDIA/nccl-tests #54, #165, #263; Slurm's --gpus-per-task=1
    # under NCCL's P2P transport, NVIDIA/nccl #1948), a rank's set_device beyond CUDA_VISIBLE_DEVICES; symmetric memory's
    # cuMemSetAccess on GPUs with no peer path (pytorch/pytorch #174030): the job's configuration on this node, a restart
    # alone fails again (was: unknown, INVESTIGATE)
    "invalid device ordinal": ("error", "application", "CHECK_APP"),
    "cudaErrorInvalidDevice": ("error", "application", "CHECK_APP"),
    # the CUDA libraries' status codes (cuBLAS, cuDNN, ..): a call the job made wrongly is the job's; a kernel that
    # failed to run (EXECUTION_FAILED), an internal error or a library that could not start stays unknown
    "CUBLAS_STATUS_INVALID_VALUE": ("error", "application", "RESTART_APP"),
    "CUBLAS_STATUS_ARCH_MISMATCH": ("error", "application", "RESTART_APP"),
    "CUBLAS_STATUS_NOT_SUPPORTED": ("error", "application", "RESTART_APP"),
    "CUBLAS_STATUS_ALLOC_FAILED": ("error", "application", "RESTART_APP"),
    "CUDNN_STATUS_BAD_PARAM": ("error", "application", "RESTART_APP"),
    "CUDNN_STATUS_NOT_SUPPORTED": ("error", "application", "RESTART_APP"),
    "CUDNN_STATUS_ALLOC_FAILED": ("error", "application", "RESTART_APP"),
    "CUDNN_STATUS_ARCH_MISMATCH": ("error", "application", "RESTART_APP"),
    # the CUDA runtime already unloaded (cudaErrorCudartUnloading, "driver shutting down"): a CUDA call made while the
    # process exits, after its runtime went away (a static destructor, a watchdog thread still polling an event):
    # PyTorch's "terminate called after throwing an instance of 'c10::CUDAError'" / "  what():  CUDA error: driver
    # shutting down" from ProcessGroupNCCL's cleanup loop (HPDL-Group/Merak #3; pytorch/pytorch PR #74258 catches it in
    # the loop), at the end of runs whose results were made ("this error normally does not affect the results",
    # Hangz-nju-cuhk/Rotate-and-Render #7).  The program's exit order, never the GPU's or the node's (was: unknown,
    # INVESTIGATE); teardown after the job's own statement of success (triage.teardown.EXIT_CUDA_ERRORS).
    "driver shutting down": ("error", "application", "RESTART_APP"),
    "cudaErrorCudartUnloading": ("error", "application", "RESTART_APP"),
    **CUDA_DRIVER_ERRORS,
    **CUDA_CAPTURE_ERRORS,
}
# every text CUDA_ERRORS lists, as one alternation (the rows that read a status only by its known words)
CUDA_ERROR_TEXTS = "|".join(map(re.escape, CUDA_ERRORS))
# the texts CUDA_ERRORS lists that hold parentheses of their own, for a row whose text ends at one
CUDA_PAREN_TEXTS = "|".join(re.escape(t) for t in CUDA_ERRORS if "(" in t)
# NCCL's words of a CUDA status CUDA_ERRORS lists (CUDACHECK's "Cuda failure '<text>'", CUCHECK's "Cuda failure <N>
# '<text>'"): its WARN's (nccl_cuda_failure) and PyTorch's quote of it after "Last error:" (nccl_last_cuda_failure)
NCCL_CUDA_FAILURE = (r"Cuda failure (?:(?P<cu_status>\d{1,4}) )?'(?P<cuda_error>" + CUDA_ERROR_TEXTS
                     + r")(?:'|\s*$)")
# PyTorch's NCCL exception quoting NCCL's last error (ncclGetLastError: the text of NCCL's last WARN, without its
# prefix) after "Last error:", on its line or alone on the next (torchrun's "[rankN]:" before it)
NCCL_LAST_ERROR = r"(?:Last error:\s*|^(?:\[rank\d{1,9}\]:)?\s*)"
# NET/IB's failed registration of a buffer with the NIC (src/misc/ibvwrap.cc: "Call to <call> failed with error
# <strerror>", 2.27+ "failed with <errno> <strerror>")
# ENOMEM is none of them: the pod's locked-memory limit (triage.facts memlock_limit, resource_limit), not the node's
IBV_REG_FAILED = (r"Call to (?P<ibv_call>ibv_reg_(?:dmabuf_)?mr(?:_iova2)?) failed with "
                  r"(?!(?:error )?(?:\d+ )?Cannot allocate memory)(?:error )?(?:(?P<errno>\d+) )?"
                  r"(?P<ibv_error>[A-Za-z][^,\n]{0,80}?)\s*$")


# A module error's reason (mlx5's mlx5_pme_error_to_string, events.c) -> the action, where it is not the cable's: a
# module above its alarm temperature ("Port module event[error]: module 0, Cable error, High Temperature", gpud
# kmsg_matcher_test.go; tests/fixtures/dmesg/mlx5-ib.kmsg) is a heat fault, its link then taken down to protect the
# optics; NVIDIA's adapter manuals ("Monitoring") answer over-temperature with the system's cooling and airflow. The
# port stays a cabled one in error (parsers/ports.py); only the action differs. Was CHECK_CABLE.
MODULE_ERROR_ACTION = {"high temperature": "CHECK_COOLING"}

RULES: tuple[Rule, ...] = (
    # --- look-alikes: NCCL's INFO chatter mentions NET/IB, mlx5, NVLink and "remote" all day long. NVSHMEM's debug
    # output (NVSHMEM_DEBUG=INFO) is NCCL's prefix and words, "NVSHMEM INFO", and as talkative: its table of CUDA's
    # error codes at init, "gpu38ubuntu:4073:4073 [0] NVSHMEM INFO [0] status 0 cudaErrorInvalidValue 1
    # cudaErrorInvalidSymbol 13 .." (NVIDIA/nvshmem #51; was: a cuda_error, an error).
    _r("nccl_info", None, ["NCCL INFO", "NVSHMEM INFO"], r"\b(?:NCCL|NVSHMEM) INFO\b"),
    # --- GPU (NVRM) ---
    # SXid events continue on lines that repeat the code with register data ("Severity N Engine instance ..",
    # "Data {..}"): one event per switch, one finding; a continuation with no report open (its first line lost)
    # opens one, its fatality from the catalog.
    _r("sxid_continuation", "sxid", ["SXid"],
       r"(?P<switch>nvidia-nvswitch\d+)?:? ?SXid \((?P<pci>" + PCI + r")\): (?P<sxid>\d+), "
       r"(?:Data \{|Severity (?P<sxid_severity>\d+) Engine instance)",
       refine="sxid", event=SXID_JOIN),
    _r("sxid", "sxid", ["SXid"],
       r"(?P<switch>nvidia-nvswitch\d+)?:? ?SXid \((?P<pci>" + PCI + r")\): (?P<sxid>\d+),"
       r"(?: (?P<fatality>Non-fatal|Fatal),)?(?: Link (?P<link>\d+))?\s*(?P<text>.*)",
       refine="sxid", event=SXID_OPEN),
    # NVIDIA Fabric Manager's own log (fabricmanager.log, or nv-fabricmanager in syslog) reports the same SXid codes.
    _r("fm_nvswitch_error", "sxid", ["detected NVSwitch"],
       r"detected NVSwitch (?P<fatality>fatal|non-fatal) error (?P<sxid>\d+) on fid (?P<fid>\d+)"
       r"(?: on NVSwitch pci bus id (?P<pci>" + PCI + r"))?(?: physical id (?P<physical_id>\d+))?(?: port (?P<link>\d+))?",
       refine="sxid"),
    # Fabric Manager could not set up an NVLink multicast (NVLS) team: a GPU it was asked for is not in the fabric.
    _r("fm_multicast_gpu_missing", "nvlink", ["failed to find the GPU handle"],
       r"failed to find the GPU handle (?P<gpu_handle>\d+) in the multicast team request",
       attribution="fabric"),
    # Fabric Manager aborting at start because the NVSwitches it found fit no system topology it supports ("detected
    # number of NVSwitches don't match with any supported system topology, aborting fabric manager", fabricmanager.log
    # or nv-fabricmanager in syslog; leptonai/gpud's fabric-manager matcher): fewer NVSwitches enumerated than the board
    # has (one missing or failed at probe), so FM exits, the fabric never comes up and CUDA fails on every GPU (802)
    # until it does. The node's, fatal; a reboot first (the switch enumerated again), the board's support if it stays.
    _r("fm_topology_mismatch", "nvlink", ["supported system topology"],
       r"detected number of NVSwitches don't match with any supported system topology",
       severity="fatal", action="RESTART_BM"),
    # Fabric Manager's service exiting at start, as its start script (nvidia-fabricmanager-start.sh, 570+: '"/usr/bin/nv-
    # fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg" failed! Exit code: 1', likewise for the nvlsm it
    # starts on NVLink5 systems) and systemd ("nvidia-fabricmanager.service: Control process exited, code=exited,
    # status=1/FAILURE") say it, after FM's own reason ("request to query NVSwitch device information from NVSwitch
    # driver failed with error:WARNING Nothing to do [NV_WARN_NOTHING_TO_DO]"). The same lines on a node without
    # NVSwitches (two RTX 4090s, data-infra/cube-studio #29; two bridged A40s, NVIDIA/gpu-operator #610), where FM has
    # nothing to do and the GPUs work, and on an HGX whose fabric then never comes up (an HGX B200 without its nvlsm,
    # NVIDIA/gpu-operator #2781: CUDA 802 on every GPU): no line tells them apart. The GPUs' NVLink fabric state does:
    # NOT_SUPPORTED without NVSwitches (no fabric fields), "In Progress" on an HGX whose FM is gone, which the agent's
    # NVML poll raises as NVLinkUnhealthy/FabricNotRegistered after 600 s (parsers/sample_rules.yaml,
    # fabric_registration_pending). A service's words, not the kernel's: no finding (was the unclassified net's).
    _r("fm_service_exited", None, ["failed! Exit code: ", "nvidia-fabricmanager.service: "],
       r'"[^"\n]*\b(?:nv-fabricmanager|nvlsm)\b[^"\n]*" failed! Exit code: -?\d+|'
       r"nvidia-fabricmanager\.service: (?:Control process exited|Main process exited|Failed with result)"),
    # Fabric Manager's echo of its configuration at every start (fabricmanager.log, after "Fabric Manager version
    # 535.161.08 is running with the following configuration options"): "Continue to run when facing failures = 0",
    # "Option when facing GPU to NVSwitch NVLink failure = 0" (ACCESS_LINK_FAILURE_MODE), "Option when facing NVSwitch to
    # NVSwitch NVLink failure = 0" (TRUNK_LINK_FAILURE_MODE), "Option when facing NVSwitch failure = 0" (leptonai/gpud
    # components/query/log/tail/testdata/fabric-manager.0.log): settings, no failure (were the nvlink row's errors, on
    # every HGX node at every FM start).
    _r("fm_config_echo", None, ["Option when facing ", "Continue to run when facing failures"],
       r"(?:Option when facing [\w ]+? failure|Continue to run when facing failures) = \S*\s*$"),
    # The RC watchdog finding a GPU that stopped answering its notifier (kernel_rc_watchdog_callback.c): "NVRM:
    # krcWatchdog_IMPL: RC watchdog: GPU is probably locked!  Notify Timeout Seconds: 7", then its recovery, whose Xid
    # (8, the channel's idle timeout) is the finding: on the next lines in 610.57.04 (llama.cpp #27102), after the
    # GSP's death and its Xids in 595 (open-gpu-kernel-modules #1080). The announcement, not a second finding.
    _r("rc_watchdog_locked", None, ["RC watchdog: GPU is probably locked"], r"RC watchdog: GPU is probably locked!"),
    # The banner the driver prints before an Xid 119/120 line (`_kgspLogXid119: *** GSP Timeout ***`) is part
    # of that Xid event, not one of its own.
    _r("gsp_timeout_banner", None, ["_kgspLog"], r"_kgspLog(?:Xid119|RpcTimeout): \*+ GSP (?:Timeout|Failure)"),
    # Every Xid is a finding of its own (one per line); its code says which event it is a line of (catalog.XID_EVENTS,
    # `event_if`: one row, no regex search per event). Xid 119 (GSP RPC timeout) and 120 (GSP error: its crash) also
    # open the GSP's event: the lines the driver prints after them for the same failure ("rpcRecvPoll timedout for fn
    # 76 sequence 4129!", "GSP RM heartbeat timed out" of a crashed GSP) are part of it, not a second finding (the GSP
    # timeout rows below). So does Xid 175 (595+, MEMORY_SUBSYSTEM_ERROR): the same GSP RPC timeout, logged with 119's
    # text under 175 when the driver's memory-subsystem probe failed (kernel_gsp.c _kgspClassifyGspTimeout), the same
    # lines after it: one event, the 175's finding, not a second Xid 119 from its "rpcRecvPoll timedout" line.
    # Xid 79 (GPU_HAS_FALLEN_OFF_THE_BUS) is a line of the lost GPU's event (rows "fallen_off_bus" below): the driver prints it and
    # its own "NVRM: GPU 0000:91:00.0: GPU has fallen off the bus." for the same GPU microseconds apart (leptonai/gpud
    # sxid README: 6781741.548779 then .548783; nvidia-docker #1553: .074562 then .074566): one event, the
    # Xid's finding, the first line in every real log (its catalog row raises GPUUnhealthy until boot as
    # fallen_off_bus does; was two findings of one loss). "once": every Xid line stays a finding (a second Xid 79 of
    # the GPU starts the next event); the probe-time report after a reload ("open") is a finding of its own.
    # An Xid 48 (uncorrectable ECC) and the Xid 171 / 172 the driver logs on the next line for the same error, saying
    # which memory (catalog.py XID48_DETAIL): one event, the 48's finding given details `memory` ("DRAM" / "SRAM") and
    # `detail_xid` (an amendment, EVENT_FILL_ALONE); a 171 / 172 after no 48 of its GPU is a finding of its own (info),
    # and one logged right before its 48 (the GSP firmware's "SM ICACHE, Uncorrectable SRAM error in GPC 7 TPC 6" then
    # the 48, in that order in an eBPF Xid tracer's README output) is that finding, the 48's its amendment with the
    # memory (EVENT_DETAIL_FIRST).
    # Every Xid 48 line stays a finding ("open": a second one starts the next event).
    _r("xid", "xid", ["Xid"], XID_LINE, refine="xid", event_if=("xid", {str(code): event for code, event
                                                                        in XID_EVENTS.items()})),
    # The NVIDIA device plugin (k8s-device-plugin, the GPU Operator's, GKE's) marking a GPU unhealthy on the Xid NVML's
    # event API gave it: the kernel's Xid seen by another program (was: nothing), the xid kind with its code, the catalog's
    # severity, the GPU's UUID (details "uuid"; the line names no PCI address) and details "reporter": the plugin's pod log
    # restates a kernel line the agent reads itself (`restates`: counted, no Event). Each era's wording
    # (internal/rm/health.go and before it nvidia.go): 0.15+ klog "XidCriticalError: Xid=94 on Device=GPU-3b6e..;
    # marking device as unhealthy." (akash-network/support #244), 0.6-0.14's log.Printf "XidCriticalError: Xid=69 on
    # Device=GPU-7540..., the device will go unhealthy." (k8s-device-plugin #189), an event naming no GPU ("XidCriticalError:
    # Xid=%d, All devices will go unhealthy."), GKE's device plugin "XidCriticalError: Xid=48 on Device=nvidia0,
    # uuid=GPU-.., the device will go unhealthy." / ".. on unknown device.". A time-sliced replica's id ("GPU-..::3") is
    # its GPU's; a MIG device's ("MIG-..") stays in details "device".
    _r("device_plugin_xid", "xid", ["XidCriticalError: Xid="],
       r"XidCriticalError: Xid=(?P<xid>\d{1,9})(?: on (?:Device=(?:(?P<uuid>GPU-[0-9a-fA-F-]{8,64})(?:::\d+)?|"
       r"(?P<device>[^\s,;]+))(?:, uuid=(?P<device_uuid>GPU-[0-9a-fA-F-]{8,64}))?|unknown device)|, All devices)",
       refine="device_plugin_xid", restates="kernel"),
    # The GSP timing out without its Xid 119 line: what Xid 119 (GSP_RPC_TIMEOUT) reports, so its catalog row's
    # severity and action (refine "gsp_timeout": an Xid 119 finding, details `gsp` saying which line). The driver
    # (kernel_gsp.c, 55x+) checks the GSP's heartbeats at an RPC timeout, before its Xid 119, and after each RPC poll:
    # "NVRM: GPU6 _kgspIsHeartbeatTimedOut: Heartbeat timed out, currentTimeMs .. diff 6070 timeout 5200", then (after
    # a poll) "NVRM: GPU0 _kgspRpcRecvPoll: GSP RM heartbeat timed out", ".. LibOS heartbeat timed out"; rpc.c prints
    # the RPC that timed out after its Xid 119 (rate-limited away at times): "NVRM: _issueRpcAndWait: rpcRecvPoll
    # timedout for fn 76 sequence 4129!"; a guest or a quiet print gives the Xid's text alone ("Timeout waiting for RPC
    # from GSP! Expected function ..", 57x+ "Timeout after 45s of waiting for RPC response from GPU5 GSP! ..").
    # One event (EVENT_LINES "gsp") while they repeat, an Xid 119 line's included: the heartbeat check is a "lead"
    # (what follows it, an Xid 119 or the poll's own "GSP RM heartbeat timed out", is the finding), the others join.
    # After the driver marked the GPU for reset (open-gpu-kernel-modules #446: "Back to back GSP RPC timeout
    # detected! GPU marked for reset", then "rpcRecvPoll timedout"), a timeout is part of that open event.
    # The GSP's crash report without its Xid 120 line (journald keeping the CrashCat report's first line alone, open-
    # gpu-kernel-modules #1230: "kernel: GSP task watchdog timeout @ pc:0x1250c5c, partition:2#0, task:3"): what Xid
    # 120 (GSP_ERROR) reports, with that row's severity and action; part of the GSP's open event.
    _r("gsp_crash", "xid", ["GSP task ", "GSP kernel exception"],
       r"GSP (?P<gsp>task (?:watchdog timeout|exception|panic)|kernel exception)(?::[^@\n]*)? @ pc:0x",
       refine="gsp_error", event=("gsp", "join")),
    _r("gsp_heartbeat_check", None, ["_kgspIsHeartbeatTimedOut"],
       r"(?:NVRM: (?P<device>GPU\d+) )?_kgspIsHeartbeatTimedOut: Heartbeat timed out", event=("gsp", "lead")),
    _r("gsp_timeout", "xid", ["heartbeat timed out", "rpcRecvPoll timedout", "RPC from GSP", "RPC response from GPU"],
       r"^(?>.*?NVRM: (?P<device>GPU\d+) \w+: )?.*?(?P<gsp>(?:GSP RM|LibOS) heartbeat timed out|rpcRecvPoll timedout|"
       r"Timeout waiting for RPC from GSP|Timeout after \d+s of waiting for RPC response)",
       refine="gsp_timeout", event=("gsp|reset", "join")),
    # What the driver prints while classifying a GSP timeout, naming no cause of its own (kernel_gsp.c
    # _kgspClassifyGspTimeout): "================ GSP core unresponsive ===============", "GSP-RM unresponsive",
    # "GSP-RM is slow", and the memory-subsystem check before them ("NVRM: GPU6 kbusSendSysmembarSingle_GH100: -
    # timeout error waiting for startToken", "kgmmuCheckMemSubsysError_IMPL: Memory Subsystem Error detected.
    # kbusSendSysmembarSingle failed.", "_kgspCheckIfMemsysError: Unexpected error when checking for memory subsystem
    # error: 0x72"), the thread's own timeout ("_threadNodeCheckTimeout: Timeout was set to: 4000 msecs!"), a crashed
    # GSP failing to boot again ("gpuPowerManagementResume: GSP boot failed at resume (bootMode 0x1): 0x62"), a control
    # call that timed out with it ("subdeviceCtrlCmdMcServiceInterrupts_IMPL: NVRM_RPC: NV2080_CTRL_CMD_MC_SERVICE_
    # INTERRUPTS failed with error 0x65", NV_ERR_TIMEOUT): part of the open GSP event (or GPU-needs-reset event), else
    # the unclassified net's. The thread's check that the GPU is still attached failing after an Xid 79
    # ("_threadNodeCheckTimeout: API_GPU_ATTACHED_SANITY_CHECK failed!", once per API call: open-gpu-kernel-modules
    # #1010, #1151, each an unclassified warning) is likewise part of the lost GPU's open event.
    # The GSP's core dump the driver prints with the timeout (_kgspLogRpcTimeout: kflcnCoreDumpNondestructive, then at a
    # fatal one kflcnCoreDumpDestructive, kernel_falcon.c) reports its own failures to read the halted core on the way:
    # "NVRM: kflcnCoreDumpDestructive_IMPL: ICD: [ERROR] ICD Halt command failed." (open-gpu-kernel-modules #446, 580),
    # "ICD: [ERROR] Core is not booted.", "ICD: [ERROR] Unable to retrieve any RSTAT register.", "ICD: register read
    # failed for x05": the dump's lines, no cause of their own.
    # Of those, the classification's own lines come before the timeout's Xid line (the driver classifies, then logs
    # the Xid it chose: 119, or 175 when the memory probe failed, 595 kernel_gsp.c _kgspRpcRecvPoll): a "lead" of the
    # GSP's event, its finding the Xid line after them; with no heartbeat check before them (the heartbeats had not
    # timed out) they were an unclassified warning beside that Xid. Standing alone (a control call's memory probe,
    # subdeviceCtrlCmdGpuCheckMemSubsysError_IMPL, an excerpt cut there) they make no finding, as the heartbeat check.
    _r("gsp_timeout_classify", None, ["unresponsive =", "GSP-RM is slow", "kbusSendSysmembarSingle",
                                      "MemSubsysError", "_kgspCheckIfMemsysError"],
       r"^(?>.*?NVRM: (?P<device>GPU\d+) \w+: )?.*?(?:={1,64} GSP(?:-RM| core) (?:unresponsive|is slow) =+|"
       r"kbusSendSysmembarSingle\w*: - timeout error|Memory Subsystem Error detected|"
       r"checking for memory subsystem error)",
       event=("gsp", "lead")),
    _r("gsp_timeout_after", None, ["_threadNodeCheckTimeout", "GSP boot failed at resume", "NVRM_RPC: ",
                                   "kflcnCoreDump"],
       r"^(?>.*?NVRM: (?P<device>GPU\d+) \w+: )?.*?(?:_threadNodeCheckTimeout: |GSP boot failed at resume|"
       r"NVRM_RPC: \w+ failed with error 0x65\b|kflcnCoreDump\w*: ICD: (?:\[ERROR\] |register read failed))",
       event=("gsp|reset|fallen", "within")),
    # At probe (a driver load) the driver reports a GPU that is already gone once: "NVRM: The NVIDIA GPU 0000:5d:00.0
    # / (PCI ID: 10de:2330) installed in this system has / fallen off the bus and is not responding to commands." (the
    # address from the lines before it): each its own finding, whatever the runtime report before it.
    # It opens that GPU's lost-GPU event ("open": a finding whatever came before), so the failed probe and the
    # driver's "probe routine failed" after it are part of it.
    _r("fallen_off_bus_probe", "fallen_off_bus", ["not responding to commands"],
       r"fallen off the bus and is not responding to commands", event=("fallen", "open")),
    # At run time the driver says it again at each access it tries after the GPU is gone (3.x-era "NVRM: GPU at
    # 0000:01:00.0 has fallen off the bus." a few microseconds apart, failed accesses between): one event per GPU
    # while it repeats.
    _r("fallen_off_bus", "fallen_off_bus", ["fallen off the bus"],
       r"(?:GPU (?:at )?(?P<pci>" + PCI_SHORT + r"):? )?(?:GPU )?(?:has )?fallen off the bus",
       event=("fallen", "join")),
    # The GSP-era driver's own word for it, an RM call that failed because the GPU is gone: "NVRM: nvAssertOkFailedNoLog:
    # Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ ..",
    # "nvCheckOkFailedNoLog: Check failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST]", repeated by every call after:
    # the same event (the GPU from the lines before it when the line names none).
    _r("gpu_is_lost", "fallen_off_bus", ["NV_ERR_GPU_IS_LOST"], r"(?:GPU lost from the bus )?\[?NV_ERR_GPU_IS_LOST\b",
       event=("fallen", "join")),
    # An RM call (RM_CALL_FAILED) that failed because the GPU is gone: status 0x0000000f is NV_ERR_GPU_IS_LOST (the
    # assertion above prints "GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F)"): "_issueRpcAndWait:
    # rpcSendMessage failed with status 0x0000000f for fn 76!", "rpcRmApiFree_GSP: GspRmFree failed: ..;
    # status=0x0000000f", 610's "kgmmuInvalidateTlb_GM107: TLB invalidation failed waiting for prior invalidate
    # (status=0x0000000f)" (Cyridd/cmpunlocker #4: after its Xid 79; was an unclassified warning per line), repeated by
    # every call after: the same event.  Another status names another cause: the unclassified net keeps that line.
    _r("gpu_is_lost_rpc", "fallen_off_bus", RM_CALL_KEYWORDS,
       RM_CALL_FAILED + r"0x0000000[fF]\b", event=("fallen", "join")),
    # UVM's global fatal error, one nvidia-uvm cannot pin on one GPU (uvm_global.c: it then fails every operation on
    # every GPU), reported to RM, which sets the node's recovery action to a reboot (nv_gpu_ops.c
    # nvGpuOpsReportFatalError: sysSetRecoveryRebootRequired, the Xid 154 "Node Reboot Required" on each GPU after it):
    # "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring os reboot to recover." (570-610,
    # after a GPU lost from the bus or an Xid 31 MMU fault: open-gpu-kernel-modules #1342). Was an unclassified warning,
    # while new CUDA contexts fail on every GPU until the node reboots: gpu_reset_required at the reboot's severity and
    # action (XID154_RECOVERY), no GPU named, part of the lost-GPU or reset event it follows (its status in details).
    _r("uvm_global_fatal", "gpu_reset_required", ["uvm encountered global fatal error"],
       r"uvm encountered global fatal error (?P<uvm_status>0x[0-9a-fA-F]+)",
       severity=XID154_RECOVERY["node reboot required"][0], action=XID154_RECOVERY["node reboot required"][1],
       event=("fallen|reset", "join")),
    # NVML's own word for a GPU it can no longer reach (NVML_ERROR_GPU_IS_LOST, 15, nvml.h: "The GPU has fallen off the
    # bus or has otherwise become inaccessible"), as its clients print it in a job's output or on the node: nvidia-smi's
    # "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU"
    # (JosephKJ/OWOD #81; newer releases "GPU0000:4F:00.0", no space), Slurm's NVML GPU plugin in slurmstepd
    # accounting the job's GPUs, "slurmstepd: error: NVML: Failed to get usage(15): GPU is lost" (LSSI-ETH/plmfit #40,
    # 2024; "Failed to get Compute running process count(15)" the same), pynvml's exception "NVMLError_GpuIsLost: GPU is
    # lost" (rossumai/nvgpu #6). Was nothing: the job's only word that its GPU fell off the bus where no kernel log was
    # kept. Go programs end their error chain with NVML's text: the NVIDIA device plugin as the kubelet quotes it when
    # it refuses a GPU pod at admission, "Pod Allocate failed due to device plugin GetPreferredAllocation rpc failed with
    # err: .. error creating nvml.Device 5: nvml: GPU is lost, which is unexpected" (kubernetes/kubernetes #97131,
    # k8s-device-plugin #231: the 2020-21 Go bindings), ".. failed to get nvlink state: GPU is lost, which is
    # unexpected" (go-nvml, pytorch/ci-infra #1057): the node's lost GPU, which refuses every GPU pod sent there until
    # it reboots (was nothing; triage: an admission error naming no fault). So any "<what failed>: GPU is lost" (the
    # colon: prose saying the words is no error). The same event as the driver's own lines (each access after repeats
    # it). NVML's "Unknown Error" (999) in the same places names no cause and is not this row.
    _r("nvml_gpu_is_lost", "fallen_off_bus", ["GPU is lost"],
       r"(?:" + NVSMI_HANDLE + r"|\S: )GPU is lost\b", event=("fallen", "join")),
    # nvidia-smi (NVML) listing a GPU it cannot get a handle on at all, NVML's "Unknown Error" (999) or "Not Found" (6)
    # where the rest of the table prints: the GPU the driver lists but cannot bring up or reach (its RmInitAdapter
    # failed: a GPU off the bus, unpowered, overheated, the open module without its GSP firmware). Every era's shape:
    # "Unable to determine the device handle for GPU 0000:09:00.0: Unknown Error" (nvidia-docker #1553), 515's "for gpu
    # 0000:01:00.0: Not Found" (open-gpu-kernel-modules #246, RmInitAdapter failed), 5xx "for GPU0000:07:00.0: .."
    # (pdbear/syno_nvidia_gpu_driver #22), 610's "for GPU1: 0000:84:00.0: Unknown Error" (its index, then its address:
    # an RTX 5060 Ti that fell off the bus, JimJafar/llama-swap-config). Was nothing: on a node whose kernel log was
    # not kept, the only word that a GPU is gone. The GPU's, its address the line's: kind gpu_reset_required as the
    # driver's failed init (rm_init_failed: the cause unknown); part of that GPU's open lost-GPU, init or reset event
    # where the kernel's lines came first (an SRE's paste, nvidia-bug-report.log: one event, the Xid 79's GPU). NVML's
    # other answers here ("Not Supported": a query the GPU lacks, MIG on a GeForce; "Insufficient Permissions") are
    # no fault of the GPU's and not this row.
    _r("nvml_handle_failed", "gpu_reset_required", ["device handle for"],
       NVSMI_HANDLE + r"(?P<nvml_error>Unknown Error|Not Found)\b", attribution="unknown",
       event=("rminit|fallen|reset", "join")),
    # nvidia-smi told by NVML's event API of an Xid on a GPU it watches (nvmlEventTypeXidCriticalError, nvml.h "Event
    # that Xid critical error occurred"; `nvidia-smi -l`, the loop a job's script leaves running beside its ranks):
    # "GPU 00000000:04:00.0: Detected Critical Xid Error" (an A3's H100, the Megatron pod's log, a rank's CUDA "illegal
    # memory access" traceback after it: GoogleCloudPlatform/ai-infra-cluster-provisioning #383, 2024). Was nothing:
    # the job's only word that the driver logged an Xid on that GPU. The line names the GPU's address, not the Xid's
    # code: NVML delivers every Xid as this event (the device plugin, NVIDIA/k8s-device-plugin internal/rm/health.go,
    # drops 13, 31, 43, 45, 68, 109 from the same events as application errors), so the xid kind with no code, the
    # GPU's address, a warning of attribution unknown: the code it cannot name may be the application's (#383's
    # illegal memory access is Xid 31's), never a root over the ranks' own errors. The kernel's Xid line restated
    # (`restates`: the agent reads the kernel's own, with its code).
    _r("nvsmi_critical_xid", "xid", ["Detected Critical Xid Error"],
       r"GPU (?P<pci>" + PCI + r"): Detected Critical Xid Error\b", severity="warning",
       attribution=UNKNOWN_XID[2], action=UNKNOWN_XID[0], restates="kernel"),
    # nvidia-smi's table (every era's layout: 4xx-525's, 535+'s wider columns) printing a GPU whose name NVML could not
    # read: "ERR!" where its name goes, the Bus-Id column still its address ("|   4  ERR!                On   | 00000000:
    # 83:00.0 Off |                 ERR! |", an A40; "|   3  ERR!   ..  | 00000000:61:00.0 Off | ..", an A30 whose
    # Xid 119 GSP timeouts the same comment's dmesg shows: open-gpu-kernel-modules #446, 2023), its second row all
    # "ERR!" too. The table SREs paste beside a failed job. Was nothing: on a node whose kernel log was not kept, the
    # only word which GPU stopped answering. The same answer as NVML's "Unknown Error" for that GPU (nvml_handle_failed:
    # gpu_reset_required, its cause unknown); part of its open GSP, lost-GPU, init or reset event where the kernel's
    # lines came first. A GPU whose utilization alone is "ERR!" (a GeForce under WSL: NVML reports none) names its model
    # on its first row and is not this row; neither is the second row, which names no GPU.
    _r("nvsmi_table_err", "gpu_reset_required", ["ERR!"],
       r"\|\s+(?P<gpu>\d{1,3})\s+ERR!\s+(?:On|Off|N/A)\s+\|\s+(?P<pci>" + PCI + r")\s", attribution="unknown",
       event=("gsp|rminit|fallen|reset", "join")),
    # What the driver prints as a consequence of a GPU it lost, naming no cause of its own: the 3.x driver asking
    # for the GPU's PCI handle from its interrupt ("NVRM: os_pci_init_handle: invalid context!" between its "GPU at ..
    # has fallen off the bus" lines): part of the lost GPU's open event, else the unclassified net's (EVENT_WITHIN).
    # The module's init failing after its probe found no GPU it could drive ("NVRM: NVIDIA init module failed!"
    # after "None of the NVIDIA graphics adapters were initialized!") is likewise part of that open event (a GPU
    # needing reset's too). So is the GSP-era driver's recovery after its Xid 79 (57x-595): every channel stopped,
    # "NVRM: krcRcAndNotifyAllChannels_IMPL: RC all channels for critical error 79." (575's "kgspRcAndNotifyAllChannels_
    # IMPL", open-gpu-kernel-modules #1010, #1151: an unclassified warning after the Xid 79's one finding; the
    # "_threadNodeCheckTimeout: API_GPU_ATTACHED_SANITY_CHECK failed!" lines after it are gsp_timeout_after's);
    # nvidia-modeset's display engine answering no more, "nvidia-modeset: WARNING: GPU:0: Lost display notification
    # (0:0x00000000); continuing.", "nvidia-modeset: ERROR: GPU:0: Error while waiting for GPU progress: 0x0000ca7d:0
    # 2:0:200:192" (open-gpu-kernel-modules #1252, after its channel-state queries failed with NV_ERR_RESET_REQUIRED:
    # RM_CALL_FAILED). The RM's assertions and checks after it: rm_check_after.
    _r("gpu_lost_after", None, ["os_pci_init_handle: invalid context", "NVIDIA init module failed",
                                "RC all channels for critical error", "Lost display notification",
                                "Error while waiting for GPU progress"],
       r"(?:NVRM: (?P<device>GPU\d+) \w+: )?(?:os_pci_init_handle: invalid context!|NVRM: NVIDIA init module failed!|"
       r"\w{1,64}RcAndNotifyAllChannels\w{0,64}: RC all channels for critical error \d+\.|"
       r"nvidia-modeset: (?:ERROR|WARNING): GPU:\d+: (?:Lost display notification |"
       r"Error while waiting for GPU progress: ))",
       event=("fallen|reset", "within")),
    # A GPU the driver needs reset: every RM call on it after fails with NV_ERR_RESET_REQUIRED, each an assertion or
    # check line ("NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062)
    # returned from ..", 57x+ "NVRM: GPU0 nvCheckOkFailedNoLog: Check failed: Reset required [NV_ERR_RESET_REQUIRED]
    # .."), and the GSP-era driver says why when its GSP missed two RPCs in a row ("NVRM: nvAssertFailedNoLog:
    # Assertion failed: Back to back GSP RPC timeout detected! GPU marked for reset @ kernel_gsp.c:2387", its Xid 119
    # lines possibly rate-limited away). The lines name the GPU by its index at most ("GPU0"): one event per index
    # (none named: one) while they repeat.
    _r("reset_required", "gpu_reset_required", ["NV_ERR_RESET_REQUIRED"],
       r"(?:NVRM: (?P<device>GPU\d+) \w+: .*?)?NV_ERR_RESET_REQUIRED", event=("reset", "join")),
    # An RPC to the GSP that failed with status 0x00000062 (NV_ERR_RESET_REQUIRED): "NVRM: rpcRmApiAlloc_GSP:
    # GspRmAlloc failed: hClient=..; paramsStatus=0x00000062; status=0x00000062", before the assertion that names it.
    _r("reset_required_rpc", "gpu_reset_required", RM_CALL_KEYWORDS,
       RM_CALL_FAILED + r"0x00000062\b", event=("reset", "join")),
    # Confidential computing (Hopper+ in CC mode): the driver encrypts each RPC to the GSP (message_queue_cpu.c
    # GspMsgQueueSendCommand, CCSL) and does not retry one whose encryption failed: "NVRM: GspMsgQueueSendCommand:
    # Encryption failed with status = 0x1f." (an IV overflow, status NV_ERR_INSUFFICIENT_RESOURCES, adds "Fatal error
    # detected in RPC encrypt: IV overflow!" and puts confidential computing in its error state: cc_fatal), then the send's own
    # verdict naming the GPU, "NVRM: _kgspRpcSendMessage: GspMsgQueueSendCommand failed on GPU0: 0x1f" (kernel_gsp.c;
    # later drivers print it from the send routine _kgspRpcSendMessage calls), then the RPC's callers, "_issueRpcAndWait:
    # rpcSendMessage failed with status 0x0000001f for fn 10!", "rpcRmApiFree_GSP: GspRmFree failed: ..; status=0x.."; and
    # so for every RPC after it (NVIDIA/nvtrust #53, an H100 in a TDX guest, 550: 4 lines a cycle, each an unclassified
    # warning). The GSP's message channel is broken: the GPU takes no work until it is reset (gpu_reset_required), one
    # event per GPU (EVENT_LINES "ccrpc") while the cycles repeat. The encryption lines name no GPU: a "lead" (no finding
    # alone; EVENT_ADOPTS: the event is the GPU's the send's line names); the send's verdict is the finding, naming the
    # GPU by index (details "device"), and, alone, a GPU whose GSP no RPC reaches (whatever its status: the queue's
    # NV_ERR_BUSY_RETRY or NV_ERR_TIMEOUT too); inside an open GSP timeout or reset event it is that event's. The RM calls
    # failing after it (RM_CALL_FAILED, any status) are "within": part of the open event, alone what they are without it
    # (the unclassified net's; a lost GPU's or a reset's status has its row above).
    _r("cc_rpc_encrypt", None, ["Encryption failed with status"],
       r"(?:NVRM: (?P<device>GPU\d+) )?GspMsgQueueSendCommand: Encryption failed with status = 0x[0-9a-fA-F]+\.",
       event=("ccrpc", "lead")),
    # Confidential computing's fatal errors: each channel the driver encrypts failing for good, then the error state it
    # puts confidential computing in (conf_compute.c confComputeSetErrorState_KERNEL: "ConfCompute: Fatal error hit!";
    # the GPU accepts no client's request, its SPDM session and keys torn down, until it is reset). Its callers' lines
    # before it (open-gpu-kernel-modules 595.45.04): an RPC to the GSP ("Fatal error detected in RPC encrypt: IV
    # overflow!", "Fatal error detected in RPC decrypt: 0x25!", message_queue_cpu.c), the GSP's copies of memory
    # (mem_utils.c _memmgrMemReadOrWriteWithGsp: "Fatal error detected in GSP-DMA encrypt: IV Overflow!", ".. GSP-DMA
    # decrypt: 0x25!"), the replayable fault buffer's packets (kern_gmmu_gh100.c ".. fault buffer packet encryption: IV
    # overflow!", nv_gpu_ops.c ".. fault buffer packet decryption: 0x%x"; a non-fatal "Error detected in .." is not one),
    # the SPDM session's heartbeat (spdm_gh100.c "SPDM: Fatal heartbeat failure detected 0x%x"). NVIDIA/nvtrust #54 (an
    # H100 in a TDX guest, 550): the GSP-DMA decrypt, then the error state: two unclassified warnings, now one event of
    # the GPU (gpu_reset_required, "ccrpc": with a failed RPC send's lines, or a GSP timeout's or a reset's open event,
    # the same one), the GPU's index where the line prints it (57x+ "NVRM: GPU0 ..", details "device").
    _r("cc_fatal", "gpu_reset_required",
       ["Fatal error detected in", "ConfCompute: Fatal error hit", "SPDM: Fatal heartbeat failure"],
       r"(?:NVRM: (?P<device>GPU\d+) \w+: )?(?:ConfCompute: Fatal error hit!|SPDM: Fatal heartbeat failure detected|"
       r"Fatal error detected in (?:(?:RPC|GSP-DMA) (?:en|de)crypt|fault buffer packet (?:en|de)cryption)\b)",
       event=("ccrpc|gsp|reset", "join")),
    _r("gsp_send_failed", "gpu_reset_required", ["GspMsgQueueSendCommand failed on GPU"],
       r"GspMsgQueueSendCommand failed on (?P<device>GPU\d+): (?P<send_status>0x[0-9a-fA-F]+)",
       event=("ccrpc|gsp|reset", "join")),
    _r("gsp_rpc_failed_after", None, RM_CALL_KEYWORDS, RM_CALL_FAILED, event=("ccrpc", "within")),
    # The driver rate-limits its GSP timeout prints once a GPU's timeouts pass its reset threshold (kernel_gsp.c, the
    # count at which 58x+ marks the GPU for reset): "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:0a:00
    # (printing 1 of every 30).  The GPU likely needs to be reset." (open-gpu-kernel-modules #659): the GPU's reset
    # event.
    _r("gsp_rate_limited_reset", "gpu_reset_required", ["Rate limiting GSP RPC error prints"],
       r"Rate limiting GSP RPC error prints for GPU at (?P<pci>" + PCI + r") \(printing 1 of every (?P<every>\d+)\)\."
       r"\s+The GPU likely needs to be reset", event=("reset", "join")),
    _r("gsp_marked_for_reset", "gpu_reset_required", ["GPU marked for reset"],
       r"(?:NVRM: (?P<device>GPU\d+) \w+: .*?)?(?P<what>Back to back GSP RPC timeout detected! )?GPU marked for reset",
       event=("reset", "join")),
    # nvidia-smi -q's "GPU Recovery Action" field naming an action pending on the GPU (NVML's nvmlDeviceGetGpuRecovery
    # Action, the action the driver's Xid 154 announced): "GPU Recovery Action                   : Reset" (an RTX 4000
    # Ada in ERR! state, utkuozdemir/nvidia_gpu_exporter #393), pasted beside a failed job or an SRE's notes. The
    # action's severity and action as Xid 154 naming it (catalog.NVSMI_RECOVERY_ACTION -> XID154_RECOVERY): Reset
    # fatal RESET_GPU, Reboot fatal RESTART_BM, Drain P2P a warning; "None" is silent. The GPU is named on the
    # section's header line ("GPU 00000000:CC:00.0"), not this one: no address. Part of the GPU's open reset event
    # where the driver's lines came first. Was nothing. The 5xx era's fields under "GPU Reset Status" ("Reset Required
    # : Yes", "Drain and Reset Recommended : Yes"; catalog.NVSMI_RESET_STATUS) say the same; "No" is silent.
    _r("nvsmi_recovery_action", "gpu_reset_required", ["GPU Recovery Action", "Reset Required", "Reset Recommended"],
       r"(?:GPU Recovery Action\s*: (?P<recovery_action>(?i:"
       + "|".join(re.escape(w) for w in sorted(NVSMI_RECOVERY_ACTION, key=len, reverse=True)) + r"))|"
       r"(?<![\w ])\s{0,64}(?P<reset_status>Reset Required|Drain and Reset Recommended)\s*: Yes)\s*$",
       refine="nvsmi_recovery", event=("reset", "join")),
    # nvidia-smi -q's Fabric block (NVML's fabric info of the GPU, 550+: State, Status; 570+ CliqueId, ClusterUUID and
    # a Health block, its Summary first), pasted into a bug report or an SRE's notes: a registration completed with an
    # error status ("Status                            : Insufficient Resources" under "State : Completed", CliqueId 0:
    # a GB200 node that passed its checks and "kept returning to production", Azure/azhpc-images #506) or the fabric's
    # health "Summary                       : Unhealthy" (GB200, kubernetes-sigs/dra-driver-nvidia-gpu #626) is that
    # GPU's nvlink_fabric finding, as the agent's NVML reading of it is (parsers/sample_rules.yaml's fabric rows, kind
    # nvlink_fabric: one kind for both); "Limited Capacity" a warning (catalog.NVSMI_FABRIC_HEALTH). "Status" and
    # "Summary" are words other sections and other tools print too, so these lines are read only within the block its
    # "Fabric" header line opens (event "nvsmi_fabric", "inside": a finding there, nothing elsewhere). A registration
    # still "In Progress" (its Status "N/A": a node starting, NVIDIA/gpu-operator #2511), "Success", "Healthy", "N/A"
    # and "Not Supported" (a GPU on no NVLink fabric) are silent. The section's header names the GPU, not these lines:
    # no address. Was nothing.
    _r("nvsmi_fabric", None, ["Fabric"], r"^\s*Fabric\s*$", event=("nvsmi_fabric", "open")),
    _r("nvsmi_fabric_fault", "nvlink_fabric", ["Status", "Summary"],
       r"^\s*(?:Status\s*: (?P<fabric_status>(?!(?:Success|N/A|Not Supported)\s*$)\w[^\n]*?)|"
       r"Summary\s*: (?P<fabric_health>(?i:" + "|".join(re.escape(w) for w in NVSMI_FABRIC_HEALTH) + r")))\s*$",
       refine="nvsmi_fabric", event=("nvsmi_fabric", "inside")),
    # Fabric Manager refused on an NVLink5 system (HGX/DGX B200/B300, GB200) for a kernel module it needs (a row after
    # the Xid row: one before it is one more keyword every Xid line is tested against, tests/parsers/
    # test_dispatch_plan.py): its start script's precheck, after "Detected NVL5+ system" ('Kernel module "ib_umad" has not been loaded, fabric manager
    # cannot be started', spectrocloud/CanvOS #700), or the NVLink Subnet Manager it starts there failing to open its
    # MADs ("nvlsm: ibwarn: [15] umad_init: can't read ABI version from /sys/class/infiniband_mad/abi_version (No such
    # file or directory): is ib_umad module loaded?", siderolabs/docs #581). Either way the NVSwitches stay unprogrammed,
    # the GPUs' fabric registration "In Progress" and CUDA fails with 802 (system not yet initialized) on every GPU.
    # The node's setup (a module to load), not its hardware: an error, CHECK_FABRIC_MANAGER, attribution driver (was: no
    # finding). libibumad's own warning from another tool (ibstat on a host with no IB stack) is no fabric's: only
    # nvlsm's counts.
    _r("fm_nvl5_module_missing", "nvlink", ["fabric manager cannot be started", "umad_init"],
       r'Kernel module "?(?P<module>[\w-]+)"? has not been loaded, fabric manager cannot be started|'
       r"\bnvlsm(?:\[\d+\])?: ibwarn: \[\d+\] umad_init: can't read ABI version",
       attribution="driver", action="CHECK_FABRIC_MANAGER"),
    # `dcgmi diag`'s table saved or pasted beside a node's logs (kind dcgm_diag; the agent's own dcgm check reads the
    # run itself, agent/checks/dcgmdiag.py). 2.x/3.x print a test's results per GPU in its result cell, on its own row
    # or on a continuation row below it without its name ("| GPU Memory | Pass - GPUs: 1, 2, .. |" then "|  | Fail -
    # GPU: 0 |"), "Fail - All" where every GPU has it: a Fail an error of those GPUs, a Warn a warning; the test's name
    # its row's, or the row's above it on a continuation row (event "dcgm_gpus", EVENT_CARRIES: each result row, a
    # Pass row too, opens it and hands its test on to the row below). 4.x prints the test's status on its row ("| memory
    # | Fail |") and each entity's on the rows below ("|  | GPU0: Fail |"), a Warn test's entities as "Fail" too
    # (dcgmi/Diag.cpp HelperDisplayDiagResult): an entity's Fail is a finding only below its test's Fail row (event
    # "dcgm_diag", "inside"), the test that row's, a test row of any other status ends it. Pass and Skip rows are
    # silent. A Deployment Error row naming a GPU's pending row remappings (DCGM_FR_PENDING_ROW_REMAP, "GPU 3 has
    # uncorrectable memory errors and row remappings are pending", wrapped) stops the run: that GPU needs a reset
    # (gpu_reset_required). REAL tables: NVIDIA/go-dcgm #52, NVIDIA/DCGM #49, stas00/ml-engineering's debug.md
    # (tests/fixtures/dcgm, tests/fixtures/realworld/dcgm-diag-2026.yaml). Was nothing.
    *(_r(f"dcgm_diag_{word.lower()}", "dcgm_diag", [word + " - GPU", word + " - All"],
         r"\|\s*(?P<test>[A-Za-z][^|]*?)?\s*\|\s*(?P<result>" + word
         + r") - (?:(?P<all>All)|GPUs?: (?P<gpu>\d{1,4}(?:, \d{1,4})*))\s*\|", severity=severity,
         event=("dcgm_gpus", "open"))
      for word, severity in (("Fail", None), ("Warn", "warning"))),
    _r("dcgm_diag_pass", None, ["Pass - GPU"],
       r"\|\s*(?P<test>[A-Za-z][^|]*?)\s*\|\s*Pass - GPUs?: \d", event=("dcgm_gpus", "open")),
    _r("dcgm_diag4_test_fail", None, ["| Fail "],
       r"^\s*\|\s*(?P<test>[A-Za-z][\w /.-]*?)\s*\|\s*Fail\s*\|\s*$", event=("dcgm_diag", "open")),
    _r("dcgm_diag4_test_other", None, ["| Pass ", "| Warn ", "| Skip ", "| Not Run "],
       r"^\s*\|\s*[A-Za-z][\w /.-]*?\s*\|\s*(?:Pass|Warn|Skip|Not Run)\s*\|\s*$", event=("dcgm_diag", "close")),
    _r("dcgm_diag4_entity_fail", "dcgm_diag", [": Fail "],
       r"^\s*\|\s*\|\s*GPU ?(?P<gpu>\d{1,4}): (?P<result>Fail)\s*\|\s*$", event=("dcgm_diag", "inside")),
    _r("dcgm_diag_pending_row_remap", "gpu_reset_required", ["uncorrectable memory errors and row"],
       r"\|\s*Error\s*\|\s*GPU (?P<gpu>\d{1,4}) has uncorrectable memory errors and row\b", attribution="hardware"),
    # DCGM's health watches (kind dcgm_diag, `test` the watched system): `dcgmi health -c`'s report saved beside a
    # node's logs, 1.x-3.x's table (dcgmi/Health.cpp): "| GPU ID: 0 | Warning |", then the system's incident on the
    # row below, "|  | PCIe system: Warning - Detected more than 8 PCIe |" (wrapped): the GPU's row is the finding (its
    # result DCGM's severity, DCGM_HEALTH_RESULT), the system's row below it the finding's `test` (EVENT_FILL_ALONE,
    # event "dcgm_health"; a second failing system's row appends its name, EVENT_FILL_APPEND: "PCIe, InfoROM"); the
    # group's "Overall Health" row, a Healthy report, silent. And nv-hostengine's own log
    # (/var/log/nv-hostengine.log, modules/health/DcgmHealthWatch.cpp SetResponse) at each check a client (dcgm-
    # exporter, a health monitor) runs: "ERROR [pid:tid] [[Health]] Detected a WARNING in health system Thermal:
    # 'Detected clocks event due to thermal violation in GPU 2. ..'", its message's GPU the finding's. A WARNING a
    # warning (nothing raised: a clocks event is routine under load), a FAILURE an error (GPUDegraded, no taint).
    # REAL: DCGM's user guide (Feature Overview, "Health and Diagnostics"), NVIDIA/DCGM #270
    # (tests/fixtures/realworld/dcgm-health-2026.yaml). The log's other ERROR lines (a field no GPU supports, a module
    # the node lacks: DCGM #141, #149) stay silent. Was nothing.
    *(_r(f"dcgm_health_gpu_{word.lower()}", "dcgm_diag", ["GPU ID: "],
         r"^\s*\|\s*GPU ID: (?P<gpu>\d{1,4})\s*\|\s*(?P<result>" + word + r")\s*\|\s*$",
         severity=severity, event=("dcgm_health", "open")) for word, severity in DCGM_HEALTH_RESULT.items()),
    _r("dcgm_health_system", None, [f" system: {word} - " for word in DCGM_HEALTH_RESULT],
       r"^\s*\|\s*\|\s*(?P<test>[A-Za-z][A-Za-z ]*?) system: (?:" + "|".join(DCGM_HEALTH_RESULT) + ") - ",
       event=("dcgm_health", "within")),
    *(_r(f"dcgm_health_log_{word.lower()}", "dcgm_diag", ["Detected a " + word.upper() + " in health system "],
         r"Detected a (?P<result>" + word.upper() + r") in health system (?P<test>[A-Za-z][\w -]*?): '"
         r"(?:[^'\n]*?\bGPU (?P<gpu>\d{1,4})\b)?", severity=severity)
      for word, severity in DCGM_HEALTH_RESULT.items()),
    # DCGM's own words for an Xid its health watch saw (DCGM_FR_XID_ERROR, 4.x dcgm_errors.h DCGM_FR_XID_ERROR_MSG
    # "Detected XID %u for GPU %u"): the kernel's Xid restated by DCGM (`restates`, details "reporter" "dcgm"), the
    # xid kind with its code's catalog row and the GPU's index (details `gpu`), wherever the message is relayed on its
    # own: a health monitor's node condition ("ErrorCode:DCGM_FR_XID_ERROR GPU:4 PCI:0000:c4:00.0 GPU_UUID:GPU-.. Detected
    # XID 31 for GPU 4 ..", NVIDIA/NVSentinel #911: its PCI address and UUID the finding's), `dcgmi health -c -j`'s
    # incident text. nv-hostengine's own log of it ("Detected a FAILURE in health system Memory: '..'") is the row
    # above's. Was nothing (tests/fixtures/realworld/dcgm-4x-2026h714.yaml).
    _r("dcgm_health_xid", "xid", ["Detected XID "],
       r"(?:(?P<pci>" + PCI + r") (?:GPU_UUID:(?P<uuid>GPU-[0-9a-fA-F-]{8,64}) )?)?"
       r"Detected XID (?P<xid>\d{1,9}) for GPU (?P<gpu>\d{1,4})\b", refine="dcgm_xid", restates="kernel"),
    # Any other DCGM error code a health monitor relays by its name (NVIDIA/NVSentinel's node conditions and events:
    # "ErrorCode:DCGM_FR_<NAME> GPU:<index> [PCI:<address>] <DCGM's message> Recommended Action=<action>;", 3.x's names
    # too, "DCGM_FR_CLOCK_THROTTLE_THERMAL"): the kind, severity and attribution of its row of parsers/dcgm.py's
    # DCGM_CODES (refine "dcgm_fr_code"; details `dcgm_code`, the GPU's index `gpu`), the code DCGM's own table
    # names. A code about DCGM itself, its test or the node's configuration (no kind) is silent, and so is one whose
    # incident text another row reads (`read_by`: DCGM_FR_XID_ERROR's "Detected XID .." is dcgm_health_xid's above,
    # DCGM_FR_IMEX_UNHEALTHY's status imex_domain_unhealthy's). REAL: NVIDIA/NVSentinel's platform connector's
    # conditions (tests/fixtures/realworld/dcgm-codes-2026h717.yaml). Was nothing: only the Xid and IMEX codes.
    _r("dcgm_fr_code", "dcgm_diag", ["ErrorCode:DCGM_FR_"],
       r"\bErrorCode:DCGM_FR_(?P<dcgm_code>" + "|".join(RELAYED_NAMES) + r")\b(?: GPU:(?P<gpu>\d{1,4})\b)?"
       r"(?: (?P<pci>" + PCI + r"))?", refine="dcgm_fr_code"),
    # The driver as installed cannot drive the GPU (kind driver_mismatch: the fix is the driver, not a reset). A GPU
    # this release does not support, in every era's wording after its "NVRM: The NVIDIA GPU <pci> (PCI ID: ..)"
    # line (the address from that line): 2011 ".. (PCI ID: 10de:1050) installed / NVRM: in this system is not
    # supported by the 280.13 NVIDIA Linux / graphics driver release.", 3xx-5xx "NVRM: installed in this system is not
    # supported by the / NVRM: NVIDIA 550.90.07 driver release.", the open module on a GPU without a GSP "NVRM:
    # installed in this system is not supported by open / NVRM: nvidia.ko because it does not include the required
    # GPU / NVRM: System Processor (GSP)."; the kernel's failed probe and the driver's summary after it are part of
    # it (it opens that GPU's "fallen" event, the event of a GPU the driver refused at probe, whatever the cause).
    # A GPU only a legacy branch supports, named by its marketing name (no address): "NVRM: The NVIDIA GeForce GT 710
    # GPU installed in this system is / NVRM:  supported through the NVIDIA 470.xx Legacy drivers. .. The 535.129.03
    # NVIDIA driver will ignore / NVRM:  this GPU.  Continuing probe...".
    # The GPU's PCI memory the firmware left unassigned, so the driver refuses the GPU at probe (nv-pci.c): "NVRM: This
    # PCI I/O region assigned to your NVIDIA device is invalid:" then, its own line, "NVRM: BAR1 is 0M @ 0x0
    # (PCI:0000:14:00.0)" and "NVRM: The system BIOS may have misconfigured your GPU." (a VM without 64-bit MMIO for
    # its passed-through GPUs, NVIDIA/gpu-operator #492; an eGPU behind a bridge too small, system76/firmware-open #66).
    # The platform's (BIOS / hypervisor MMIO), not the GPU's or the driver's: the BAR line, naming the GPU, opens that
    # GPU's event; the kernel's failed probe and the driver's summary after it are part of it. The header line before
    # it names no GPU and says nothing the BAR line does not: no finding of its own (was the unclassified net's).
    _r("gpu_bar_invalid_header", None, ["PCI I/O region assigned to your NVIDIA device is invalid"],
       r"This PCI I/O region assigned to your NVIDIA device is invalid"),
    _r("gpu_bar_invalid", "gpu_reset_required", ["NVRM: BAR"],
       r"NVRM: (?P<bar>BAR\d) is (?P<bar_mib>\d+)M @ 0x[0-9a-fA-F]+ \((?P<pci>" + PCI + r")\)",
       attribution="hardware", action="INVESTIGATE", event=("fallen", "open")),
    _r("gpu_unsupported", "driver_mismatch", ["is not supported by"],
       r"in this system is not supported by (?:the\b|(?P<open_module>open)\b)", event=("fallen", "open")),
    # A GPU only the open kernel module drives (Blackwell) under the proprietary one: "NVRM: The NVIDIA GPU 0000:01:00.0
    # (PCI ID: 10de:2d58) / NVRM: installed in this system requires use of the NVIDIA open kernel modules." (the address
    # from that line), then at each open "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:1050)" and its
    # "rm_init_adapter failed": the fix is the driver flavour (nvidia-driver-*-open), not a reset. It opens that GPU's
    # init event, so the failed init after it is part of it (NVIDIA/open-gpu-kernel-modules #1332).
    # A confidential VM's driver on a GPU whose confidential computing (and protected PCIe) mode the host left off:
    # "NVRM: confComputeConstructEngine_IMPL: GPU confidential compute capability is not enabled." (conf_compute.c:
    # the OS is a CVM, the GPU CC-capable, its mode off), its assertion ("Assertion failed: 0 @ conf_compute.c:118"),
    # then the attempt's "osInitNvMapping: *** Cannot attach gpu" and "RmInitAdapter failed! (0x22:0x3f:744)"
    # (NV_ERR_INVALID_REQUEST) at each attempt (NVIDIA/nvtrust #124, H100s in a TDX guest, 570.195.03). The GPU's mode as
    # the host set it (nvidia_gpu_tools.py --set-cc-mode / --set-ppcie-mode), not the GPU nor a reset's to fix: a
    # driver_mismatch opening the GPU's init event (no address: the failed init's line after it gives the event its
    # GPU and the finding its address, rules.EVENT_FILLS "rminit"; its assertion and the attempt's reasons part of it).
    # Was: a gpu_reset_required (fatal, RESET_GPU) and an unclassified warning per attempt.
    _r("gpu_cc_not_enabled", "driver_mismatch", ["confidential compute capability is not enabled"],
       r"(?:NVRM: (?P<device>GPU\d+) \w+: )?GPU confidential compute capability is not enabled",
       event=("rminit", "join")),
    _r("gpu_requires_open", "driver_mismatch", ["requires use of the NVIDIA open kernel modules"],
       r"in this system requires use of the NVIDIA (?P<open_required>open) kernel modules", event=("rminit", "open")),
    # The reverse, R515-R555: the open module refusing each GPU it does not support by default (GeForce, workstation)
    # unless NVreg_OpenRmEnableUnsupportedGpus=1 is set, at every init attempt (each GPU at load, again at each open):
    # "NVRM: Open nvidia.ko is only ready for use on Data Center GPUs." (three lines naming the parameter after it,
    # no GPU named), then "NVRM: GPU 0000:04:00.0: RmInitAdapter failed! (0x63:0x0:1905)" (open-gpu-kernel-modules
    # #230). The node's driver flavour or its module option, not the GPUs: one event for the node while the refusals
    # repeat, its failed inits part of it (rm_init_failed). Was a gpu_reset_required per GPU (RESET_GPU).
    _r("gpu_open_unsupported", "driver_mismatch", ["Open nvidia.ko is only ready for use on Data Center GPUs"],
       r"Open nvidia\.ko is only ready for use on Data Center GPUs", event=("open_unsupported", "join")),
    _r("gpu_legacy_branch", "driver_mismatch", ["Legacy drivers"],
       r"supported through the NVIDIA (?P<legacy_branch>\d+\.xx) Legacy drivers"),
    # Another driver holds the GPU, so the NVIDIA driver's probe is never called for it (nv-pci.c): "NVRM: GPU
    # 0000:01:00.0 is already bound to nouveau.", on 7.0 kernels with CONFIG_NOVA_CORE "NVRM: GPU 0000:01:00.0 is
    # already bound to NovaCore." (beclab/Olares #3963), then "The NVIDIA probe routine was not called for 1 device(s)"
    # and "No NVIDIA devices probed.": the node's driver set-up (the in-tree driver not blacklisted), not the GPU, a
    # driver_mismatch of that GPU; the probe lines after it are part of it. A GPU bound to vfio-pci / pci-stub is given
    # to VMs on purpose: not this row's (gpu_bound_passthrough above).
    # Given to VMs on purpose (KubeVirt / gpu-operator's vfio-manager, Proxmox, libvirt passthrough nodes): "NVRM: GPU
    # 0000:01:00.0 is already bound to vfio-pci." then the driver's summary, "NVRM: The NVIDIA probe routine was not
    # called for 1 device(s)." .. "NVRM: No NVIDIA devices probed.", again at each load attempt (a udev rule loading
    # the module in a loop): no fault. It opens that GPU's probe event making no finding, so the summary lines after it
    # are part of it, not a GPU needing reset (aziddy/ArchInstall-and-VFIO-InitRamFS-QEMU-Setup-Helper); a GPU that
    # failed to probe for another reason ("nvidia: probe of <pci> failed", its own BAR / support line) names another
    # GPU and stays its own finding.
    _r("gpu_bound_passthrough", None, ["is already bound to"],
       r"NVRM: GPU (?P<pci>" + PCI + r") is already bound to (?P<bound_to>vfio-pci|pci-stub)\b",
       event=("fallen", "open")),
    _r("gpu_bound_elsewhere", "driver_mismatch", ["is already bound to"],
       r"NVRM: GPU (?P<pci>" + PCI + r") is already bound to (?!vfio-pci\b|pci-stub\b)(?P<bound_to>[\w-]+)",
       event=("fallen", "open")),
    # The nvidia module (or one of its siblings) could not load at all: built for another kernel than the running
    # one (a kernel upgraded under a precompiled or DKMS module, a driver container's module for another kernel):
    # "nvidia: disagrees about version of symbol i2c_get_adapter", "nvidia: Unknown symbol i2c_get_adapter (err -22)"
    # (realsenseai/realsense_mipi_platform_driver #281), 2.6-era "nvidia: Unknown symbol pci_enable_device". No GPU of
    # the node comes up: the driver as installed cannot drive them (no address). One line per symbol, again at each
    # load attempt: one event per module while they repeat. (nvidia_peermem's own: peermem_load.)
    _r("nvidia_module_symbols", "driver_mismatch", SYMBOL_KEYWORDS,
       r"(?<![\w-])(?P<device>nvidia(?:_uvm|_modeset|_drm)?)" + SYMBOL_FAILED, event=("nvidia_load", "join")),
    # GPUDirect Storage's module (nvidia-fs, loaded as nvidia_fs) likewise, refused the GPU driver's P2P symbols it
    # needs ("nvidia_fs: Unknown symbol nvidia_p2p_get_pages (err -2)", after each a 6.x kernel's "nvidia_fs: module
    # using GPL-only symbols uses symbols nvidia_p2p_get_pages from proprietary module nvidia.": gds-nvidia-fs #41,
    # #48, #34): GDS unavailable on the node, its GPUs working; the kernel's words for the driver container's "could not
    # insert 'nvidia-fs'" (nvidia_module_load_failed). No GPU named. Was: no finding.
    _r("nvidia_fs_symbols", "driver_unusable", SYMBOL_KEYWORDS,
       r"(?<![\w-])(?P<device>nvidia_fs)" + SYMBOL_FAILED, event=("nvidia_load", "join")),
    # The kernel module and the user-space driver (a client: libcuda, NVML, X) of different versions, at each open
    # the client tries: every CUDA / NVML call fails until they match (a driver upgrade without its reload):
    # "NVRM: API mismatch: the client has the version 535.54.03, but / NVRM: this kernel module has the version
    # 530.30.02.  Please ..", 59x "NVRM: API mismatch: the client 'kwin_wayland' (pid 1005) / NVRM: has the version
    # 595.84, but this kernel module has / NVRM: the version 595.80.", rsyslog's one line with "#012" for newlines.
    # NVIDIA Fabric Manager refusing to start against a driver of another version (its log, or nv-fabricmanager in
    # syslog): the NVSwitch fabric stays down, the node's GPUs unusable by CUDA: "fabric manager NVIDIA GPU driver
    # interface version 530.30.02 don't match with driver version 530.41.03. Please update with matching NVIDIA driver
    # package." (gpu-operator #544, a driver container's wrong FM build: gpu-driver-container #735).
    _r("fm_driver_mismatch", "driver_mismatch", ["match with driver version"],
       r"fabric manager NVIDIA GPU driver interface version (?P<fm_version>\d[\d.]*\d) (?:don't|doesn't) match "
       r"with driver version (?P<kernel_version>\d[\d.]*\d)"),
    _r("api_mismatch", "driver_mismatch", ["NVRM: API mismatch"],
       r"NVRM: API mismatch: the client (?:'(?P<process>[^'\n]{1,64})' \(pid (?P<pid>\d+)\)|has the version "
       r"(?P<client_version>\d[\d.]*\d), but(?:(?:#012NVRM:| NVRM:)? this kernel module has the version "
       r"(?P<kernel_version>\d[\d.]*\d))?)"),
    # The NVSwitch driver's word for the same: a client of /dev/nvidia-nvswitchctl (Fabric Manager, NVML / DCGM's NSCQ)
    # of another version than the kernel module, each open refused (linux_nvswitch.c nvswitch_ctl_check_version,
    # KERN_ERR): "nvidia-nvswitch: Version mismatch, kernel version 450.80.02 user version 450.51.06" (gpu-operator
    # #115, #121: dcgm-exporter's container of another driver version, crash-looping; a build printing major.minor
    # versions alike); DCGM's own test harness refuses to run while dmesg holds it. Was: silent (no error word).
    # A warning, no condition: the refused client's fault, not the GPUs' (#115: one P40, no NVSwitch at all, the GPU
    # serving pods); a monitoring DaemonSet of another release would otherwise mark a fleet's GPUs GPUUnhealthy until a
    # driver reload. Where the node's own driver is split, NVRM's API mismatch (every CUDA / NVML client) and Fabric
    # Manager's refusal (fm_driver_mismatch) say so and raise it.
    _r("nvswitch_api_mismatch", "driver_mismatch", ["nvidia-nvswitch: Version mismatch"],
       r"nvidia-nvswitch: Version mismatch, kernel version (?P<kernel_version>\d[\d.]*\d) user version "
       r"(?P<client_version>\d[\d.]*\d)", severity="warning"),
    # The driver refused a GPU at probe, so the node has a GPU no process can use until it is fixed (the cause is
    # the driver's own words before it: no GSP for the open module, a GPU this release does not support, a BAR the
    # BIOS left invalid, another driver holding it, a GPU gone from the bus): the kernel's driver core line,
    # 2.6-5.x "nvidia: probe of 0000:04:00.0 failed with error -1", 6.x "nvidia 0000:2c:00.0: probe with driver nvidia
    # failed with error -1", then the driver's own summary, naming no GPU: "NVRM: The NVIDIA probe routine failed for
    # 1 device(s).", "NVRM: The NVIDIA probe routine was not called for 3 device(s).", "NVRM: None of the NVIDIA
    # graphics adapters were initialized!", "NVRM: No NVIDIA graphics adapter probed!" (4xx+ "NVRM: None of the
    # NVIDIA devices were initialized.", "NVRM: No NVIDIA devices probed.": GPUs present, none probed). Lines of the
    # GPU-lost event
    # ("fallen"): a probe that failed because the GPU fell off the bus is that event's, not a second one; with none
    # open, one event per GPU while they repeat.
    # The summary that says another driver holds the GPUs, the probe never called for them, where no line before it
    # named the driver (drivers before the per-GPU "is already bound to" line): "NVRM: The NVIDIA probe routine was not
    # called for 1 device(s)." then "NVRM: This can occur when a driver such as nouveau, rivafb, / NVRM: nvidiafb, or
    # rivatv was loaded and obtained ownership of / NVRM: the NVIDIA device(s)." and "NVRM: No NVIDIA graphics adapter
    # probed!" (MrMEEE/ironhide #41; 4.x: mattshma/bigdata #133, 3 GPUs): the node's driver set-up (nouveau not
    # blacklisted), a driver_mismatch; a reset cannot give the GPUs back. Was: a gpu_reset_required (fatal). Within
    # an event a bound line opened (vfio-pci given to VMs, nouveau named) it is that event's, as the summary below.
    _r("gpu_probe_not_called", "driver_mismatch", ["probe routine was not called"],
       r"The NVIDIA probe routine was not called for (?P<devices>\d+) device", event=("fallen", "join")),
    _r("gpu_probe_failed", "gpu_reset_required",
       ["nvidia: probe of", "probe with driver nvidia failed", "NVIDIA probe routine", "NVIDIA graphics adapter",
        "NVIDIA devices were initialized", "No NVIDIA devices probed"],
       r"(?:nvidia(?:: probe of)? (?P<pci>" + PCI + r")(?:: probe with driver nvidia)? failed with error (?P<errno>-?\d+)|"
       r"The NVIDIA probe routine failed for (?P<devices>\d+) device|"
       r"None of the NVIDIA (?:graphics adapters|devices) were initialized|"
       r"No NVIDIA (?:graphics adapter|devices) probed)",
       action="INVESTIGATE", event=("fallen", "join")),
    # The driver could not bring the GPU up, so it refuses it all work until a reset or reload brings it up: "NVRM: GPU
    # 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)" then "rm_init_adapter failed, device minor number 5"
    # (older drivers: no "GPU <pci>: ", "rm_init_adapter failed for device bearing minor number 0"), again at each
    # process that opens the device: one event per GPU while they repeat. The cause is the code's (power cables,
    # firmware, the bus, an unsupported GPU), not the driver's by default.
    # The driver could not fetch the GPU's GSP firmware (RM_INIT_FIRMWARE_FETCH_FAILED, 0x61, nv.h rm_init_status):
    # "NVRM: RmFetchGspRmImages: No firmware image found" then "NVRM: GPU 0000:02:00.0: RmInitAdapter failed!
    # (0x61:0x56:1892)" (the kernel's "Direct firmware load for nvidia/<version>/gsp_ga10x.bin failed with error -2"
    # before it: /lib/firmware/nvidia/<version> missing, not in the initramfs, a guest kernel without FW_LOADER,
    # kata-containers #11875): the driver package's firmware files, not the GPU: a reset cannot fix it (its
    # "rm_init_adapter failed" and the reasons before it are part of it, the init event's as below).
    _r("rm_init_fetch_failed", "driver_mismatch", ["RmInitAdapter failed"],
       r"(?:GPU (?P<pci>" + PCI_SHORT + r"): )?RmInitAdapter failed! \((?P<rm_error>0x61:0x[0-9a-fA-F]+:\d+)\)",
       event=("rminit", "join")),
    # A GPU without its auxiliary power: RmInitNvDevice failed with NV_ERR_INSUFFICIENT_POWER (0x1c), which the driver
    # says as "NVRM: GPU 0000:13:00.0: GPU does not have the necessary power cables connected." before its
    # "RmInitAdapter failed! (0x24:0x1c:1447)" (osinit.c; a Tesla P40 on an OpenShift worker, damoke012/dareoke's
    # GPU_TROUBLESHOOTING_GUIDE.md). The cabling or the PSU, not a reset: the line opens the GPU's init event, and a
    # failed init whose status is 0x1c says the same where the line was not kept.
    _r("gpu_insufficient_power", "gpu_reset_required", ["necessary power cables"],
       r"(?:GPU (?P<pci>" + PCI_SHORT + r"): )?GPU does not have the necessary power cables connected",
       attribution="hardware", action="CHECK_MECHANICALS", event=("rminit", "open")),
    _r("rm_init_power", "gpu_reset_required", ["RmInitAdapter failed"],
       r"(?:GPU (?P<pci>" + PCI_SHORT + r"): )?RmInitAdapter failed! \((?P<rm_error>0x[0-9a-fA-F]+:0x1[cC]:\d+)\)",
       attribution="hardware", action="CHECK_MECHANICALS", event=("rminit", "join")),
    _r("rm_init_failed", "gpu_reset_required", ["RmInitAdapter failed", "rm_init_adapter failed"],
       r"(?:GPU (?P<pci>" + PCI_SHORT + r"): )?(?:RmInitAdapter failed! \((?P<rm_error>0x[0-9a-fA-F]+:0x[0-9a-fA-F]+:\d+)\)"
       r"|rm_init_adapter failed(?:,| for) device (?:bearing )?minor number (?P<minor>\d+))",
       attribution="unknown", event=("rminit|open_unsupported", "join")),
    # Each failed attempt's reason when the driver could not map the GPU (a GPU gone from the bus): "NVRM:
    # osInitNvMapping: *** Cannot attach gpu", "NVRM: RmInitAdapter: osInitNvMapping failed, bailing out of
    # RmInitAdapter", then its "RmInitAdapter failed! (0x22:0x56:894)": part of that GPU's open event.
    # The GSP-era driver's reasons likewise, each attempt: "NVRM: GPU6 _kgspBootGspRm: unexpected WPR2 already up,
    # cannot proceed with booting GSP", "_kgspBootGspRm: (the GPU is likely in a bad state and may need to be reset)",
    # "NVRM: GPU6 RmInitAdapter: Cannot initialize GSP firmware RM", "RmFetchGspRmImages: No firmware image found"
    # (rm_init_fetch_failed's), "kgspWaitForGfwBootOk_TU102: failed to wait for
    # GFW boot complete: 0x65 ..", "gpuWaitForGfwBootComplete_TU102: failed to wait for GFW_BOOT". The first attempt's
    # come before its "RmInitAdapter failed!" (the driver prints that as the same call returns): they open the event,
    # naming the GPU by its index at most, and make no finding of their own ("lead"); the "RmInitAdapter failed!"
    # naming the GPU is the event's finding, with its address (EVENT_ADOPTS): one event for the attempt. Reasons no
    # "RmInitAdapter failed!" follows (an excerpt cut there) make no finding.
    # The GSP's boot failing (kernel_gsp_gh100.c, kernel_gsp.c): "NVRM: kgspBootstrap_GH100: GSP-FMC reported an error
    # while attempting to boot GSP: 0xb" (each boot attempt), "kgspInitRm_IMPL: Max GSP-RM boot attempts exceeded:
    # 4/4", "kgspInitRm_IMPL: Error preparing GSP-RM image", 52x "kgspInitRm_IMPL: cannot bootstrap ..", the GSP-FMC's
    # own "Fatal GSP-FMC Error: ..", "Timeout waiting for GSP target mask release / lockdown release": reasons too.
    # The FSP's chain of trust failing before it (Hopper and later, kern_fsp.c and kern_fsp_gh100.c; an H100 under
    # confidential computing, nvtrust #19, #54, #77, open-gpu-kernel-modules #729): the command queue or response timing
    # out ("NVRM: kfspPollForQueueEmpty_IMPL: Timed out waiting for FSP command queue to be empty.", "kfspPollForResponse_
    # IMPL: FSP command timed out"), the FSP refusing the boot command ("kfspProcessCommandResponse_GH100: FSP response
    # reported error. Task ID: 0x2 Command type: 0x14 Error code: 0x6"), the verdict ("kfspSendBootCommands_GH100: FSP
    # boot cmds failed. RM cannot boot.", 58x+ "Preparing FSP boot cmds failed. RM cannot boot.", "FSP secure boot
    # partition timed out.", "FSP secure boot GSP prechecks failed.", "RM cannot boot with FSP missing on silicon."), and
    # an RM check or assertion on a boot call that failed ("nvCheckOkFailedNoLog: Check failed: .. returned from
    # kfspSendBootCommands_HAL(pGpu, pKernelFsp) @ kernel_gsp_gh100.c:756", 59x+ "NVRM: GPU0 nvAssertOkFailedNoLog:
    # Assertion failed: .. returned from kgspWaitForRmInitDone(pGpu, pKernelGsp) @ kernel_gsp_gh100.c:1107"; every
    # step of kgspInitRm's boot of the GSP alike: "Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) returned
    # from kgspCreateRadix3(..) @ kernel_gsp.c:4502" before "Error preparing GSP-RM image" (#892), ".. returned from
    # kgspPrepareForBootstrap_HAL(..)", kgspBootstrap_HAL's), and the FWSEC command the VBIOS could not prepare that
    # step ran ("NVRM: s_prepareForFwsec_TU102: failed to prepare interface data for FWSEC cmd 0x15: 0x25", #943):
    # reasons too (each was an unclassified warning beside the attempt's finding). The FSP's register dump after them
    # (kfspDumpDebugState, "Sent following content to FSP:") carries no error word.
    # So are the secure falcons' failures on the GPUs without an FSP (Turing, Ampere, Ada: A100, L40S), which boot the
    # GSP through the VBIOS's FWSEC and the Booter ucodes (kernel_gsp_frts_tu102.c, kernel_gsp_booter_tu102.c): "NVRM
    # s_executeFwsec_TU102: failed to execute FWSEC for FRTS: FRTS error code 0xbe" (52x; 58x+ "NVRM: GPU0
    # kgspExecuteFwsec_TU102: .. FRTS error code 0x492f", ".. no initialized WPR2 found", ".. status 0x%x"), "NVRM
    # s_executeBooterUcode_TU102: Booter failed with non-zero error code: 0xa" (and "failed to execute Booter: status
    # .."), "kgspExecuteBooterUnloadIfNeeded_TU102: failed to execute Booter Unload: 0xffff" (Load, Reload alike;
    # open-gpu-kernel-modules #433, #673). Each was an unclassified warning beside the attempt's finding. The info
    # line "skipping executing Booter Unload as WPR is not up" states no failure and stays silent; "failed to execute
    # Booter Reload" is the GSP's resume from the sequencer (kgspExecuteSequencerCommand, no init attempt): not one.
    _r("rm_init_mapping", None, ["osInitNvMapping", "_kgspBootGspRm: ", "Cannot initialize GSP firmware RM",
                                 "RmFetchGspRmImages: No firmware image found",
                                 "GfwBoot", "kgspBootstrap_", "kgspInitRm_IMPL: ", "Fatal GSP-FMC Error",
                                 "FSP command", "FSP response reported error", "RM cannot boot", "FSP secure boot",
                                 "returned from kfsp", "returned from kgsp", "failed to prepare interface data",
                                 "failed to execute FWSEC", "failed to execute Booter", "Booter failed with"],
       r"osInitNvMapping: \*\*\* Cannot attach gpu|RmInitAdapter: osInitNvMapping failed, bailing out|"
       r"_kgspBootGspRm: |RmInitAdapter: Cannot initialize GSP firmware RM|RmFetchGspRmImages: No firmware image found|"
       r"(?:kgspWaitForGfwBootOk|gpuWaitForGfwBootComplete)_\w+: failed to wait|"
       r"kgspBootstrap_\w+: (?:GSP-FMC reported an error|(?:SEC2 GSP Boot:)?Timeout waiting for)|"
       r"kgspInitRm_IMPL: (?:Max GSP-RM boot attempts exceeded|Error preparing|cannot bootstrap)|Fatal GSP-FMC Error: |"
       r"kfsp\w+: (?:Timed out waiting for FSP command queue|FSP command timed out|FSP response reported error)|"
       r"FSP boot cmds failed\. RM cannot boot|RM cannot boot with FSP missing|"
       r"FSP secure boot (?:partition timed out|GSP prechecks failed)|"
       r"s_prepareForFwsec_\w+: failed to prepare interface data|"
       r"\w{1,64}: (?:failed to execute (?:FWSEC|Booter(?! Reload))\b|Booter failed with non-zero error code)|"
       r"(?:Assertion|Check) failed: .* returned from "
       r"(?:kfsp\w*BootCommands|kgsp(?:WaitForRmInitDone|CreateRadix3|PrepareForBootstrap|Bootstrap))\w*\(",
       event=("rminit", "lead")),
    # A register read the GPU answered with a PRI error code ("NVRM: gpuHandleSanityCheckRegReadError_GH100: Possible
    # bad register read: addr: 0x110804,  regvalue: 0xbadf4100,  error code: Unknown SYS_PRI_ERROR_CODE") between an
    # init attempt's reasons and its "RmInitAdapter failed!" (nvtrust #77): part of that attempt; with none open, what
    # the unclassified net makes of it, as before (the same check at run time, open-gpu-kernel-modules #688).
    _r("rm_init_reg_read", None, ["Possible bad register read"],
       r"gpuHandleSanityCheckRegReadError_\w+: Possible bad register read", event=("rminit", "within")),
    # The RM's assertions and checks while a GPU is lost or needs reset: every RM call on it fails and the driver
    # asserts each, whatever the status it names ("nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status
    # == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844" after the failed GspRmFree, 59x's "nvCheckFailedNoLog: Check
    # failed: (status == NV_OK) || .. @ gpu_user_shared_data.c:503", "nvCheckFailedNoLog: Check failed:
    # _handlePollMaskHelper(pGpu, NV_FALSE, NV_TRUE) == NV_OK @ gpu_user_shared_data.c:151" after the shared data's
    # poll RPC came back NV_ERR_RESET_REQUIRED, open-gpu-kernel-modules #1045): part of the open event, else the
    # unclassified net's (EVENT_WITHIN). After the rows above: a lost GPU's, a reset's and an init attempt's own
    # assertions are theirs. Was: each but the "(status == NV_OK)" ones an unclassified warning inside the event.
    # So is the assertion on the line after an RPC event the GSP sent while the driver polled for its boot without the
    # API lock (gsp_bootup_rpc below: _kgspProcessRpcEvent's default arm, NV_ASSERT(0) at kernel_gsp.c:1446 in 595.58,
    # :1447 in 595.71, the full source path in some builds): part of that line's event, no finding.
    # So is an init attempt's own assertion after its first reason (the GSP boot's FWSEC failing, then "NVRM: GPU0
    # nvAssertOkFailedNoLog: Assertion failed: Failure: Generic Error [NV_ERR_GENERIC] (0x0000FFFF) returned from
    # status @ kernel_gsp_tu102.c:511"; "Assertion failed: rmStatus == NV_OK @ osinit.c:1982" after the Booter's
    # failure, open-gpu-kernel-modules #673): part of that attempt's event, was an unclassified warning beside it.
    _r("rm_check_after", None, ["Assertion failed: ", "Check failed: "],
       r"(?:NVRM: (?P<device>GPU\d+) )?nv(?:Assert|Check)(?:Ok)?Failed(?:NoLog)?: (?:Assertion|Check) failed: ",
       event=("fallen|reset|gsp_bootup|rminit|ptimer", "within")),
    # An RPC event the GSP sent while the driver polled for its boot without holding the API lock, of a function the
    # poll's list does not name ("NVRM: GPU0 _kgspProcessRpcEvent: Attempted to process RPC event from GPU0: 0x101a
    # (PFM_REQ_HNDLR_STATE_SYNC_CALLBACK) during bootup without API lock", 595 on Blackwell laptops at runtime-D3 wakes,
    # open-gpu-kernel-modules #1145, #1064; ublue-os/bazzite #4449): the driver drops that RPC and carries on, log noise
    # by the source's reading, no GPU fault. No finding; its assertion on the next line part of it (rm_check_after),
    # was an unclassified warning per wake.
    _r("gsp_bootup_rpc", None, ["during bootup without API lock"],
       r"_kgspProcessRpcEvent: Attempted to process RPC event from GPU\d+: 0x[0-9a-fA-F]+ \(\w+\) during bootup "
       r"without API lock", event=("gsp_bootup", "lead")),
    # The RM setting the GPU's PTIMER from the host clock at a GSP GPU's boot (tmrSetCurrentTime_GV100, every GSP-era
    # driver, 515-59x): the GPU's privilege mask does not let the host (level 0) write the timer, so the driver prints
    # "NVRM tmrSetCurrentTime_GV100: ERROR: Write to PTIMER attempted even though Level 0 PLM is disabled." (535;
    # "NVRM: " and a "GPU0 " before the function in later builds) and asserts on the next line ("NVRM
    # nvAssertFailedNoLog: Assertion failed: 0 @ timer_gv100.c:80"); the caller discards the status (timer_gv100.c
    # LEVEL_ERROR + NV_ASSERT(0), its NV_ERR_PRIV_SEC_VIOLATION ignored by the GSP boot path) and the GPU's time is the
    # GSP's. Printed by GPUs that then work, and before a real init failure's own lines (open-gpu-kernel-modules #543:
    # the pair, then the GFW boot wait failing): the pair is no fault, the failure after it keeps its findings. No
    # finding; its assertion part of it (rm_check_after). Was: two unclassified warnings per GPU per driver load.
    _r("ptimer_plm", None, ["Write to PTIMER attempted"],
       r"tmrSetCurrentTime_\w+: (?:ERROR: )?Write to PTIMER attempted even though Level 0 PLM is disabled",
       event=("ptimer", "lead")),
    # The driver's load banner, proprietary ("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.183.01  ..") and
    # open ("NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.195.03  Release Build  .."): a lifecycle
    # finding (what a reload ends: kinds.py).
    _r("driver_load", "driver_load", ["NVRM: loading"],
       r"NVRM: loading NVIDIA UNIX (?:(?P<open>Open) Kernel Module for )?(?P<arch>\S+)(?: Kernel Module)?\s+"
       r"(?P<version>\d[\d.]*)"),
    _r("gpu_reset", "gpu_reset", ["NVRM: GPU"],
       r"NVRM: GPU (?P<pci>" + PCI + r"):? .*\b(?:reset (?:complete|succeeded|done)|(?:was|has been) reset)",
       flags=re.I),
    # CUDA's sticky errors that name NVLink, as an application prints them: a CUDA error, not an NVRM line, whichever
    # wrapper prints the text (PyTorch's "CUDA error: ..", NCCL's "Cuda failure '..'", XLA's "CUDA_ERROR_<NAME>: .."),
    # ahead of the generic nvlink row below (their "nvlink .. error" made them a node's NVLink fault from a container's
    # line).  cudaErrorNvlinkUncorrectable (220) "uncorrectable NVLink error detected during the execution", and
    # CUDA 12.8+'s cudaErrorContained / CUDA_ERROR_CONTAINED (226) "Invalid access of peer GPU memory over nvlink or a
    # hardware error": an exception the GPU's error containment stopped, by the CUDA docs' word either an invalid
    # access of peer memory over NVLink (a program's, e.g. an experimental direct peer-memory kernel) or a hardware
    # error, so its attribution stays unknown (CUDA_ERRORS) (daydreamlive/scope #749, ultralytics/ultralytics #24536).
    _r("cuda_nvlink", "cuda_error", ["uncorrectable NVLink error", "peer GPU memory over nvlink"],
       r"(?P<cuda_error>uncorrectable NVLink error detected during the execution|"
       r"Invalid access of peer GPU memory over nvlink or a hardware error)",
       refine="cuda", event=CUDA_EXC_OPEN),
    # vLLM's probe of whether its GPUs are fully connected by NVLink (NVML's P2P status over NVLink per pair), failing
    # on a machine without NVLink, vLLM's own words saying so: 2024's custom_all_reduce.py `NVLink detection failed
    # with message "<NVML's error>". This is normal if your machine has no NVLink equipped` (logger.info), 0.6-0.1x's
    # vllm/platforms/cuda.py `NVLink detection failed. This is normal if your machine has no NVLink equipped.`
    # (logger.exception: a traceback after it, pynvml's NVMLError_NotSupported last), later `NVLink detection failed
    # for devices 0-1: <error>. This is normal if your machine has no NVLink.` (logger.debug). vLLM then runs without
    # its custom all-reduce ("Custom allreduce is disabled because ..": a warning of its own, no finding). No finding
    # (was: the generic nvlink row's NVLink hardware error, attribution hardware, on every PCIe-only TP job); the
    # traceback's frames and its NVMLError_NotSupported line make none either. A real NVLink fault keeps its own lines
    # (the driver's knvlink*/Xid lines, NVML's "GPU is lost" in that traceback: nvml_gpu_is_lost).
    _r("vllm_nvlink_probe", None, [VLLM_NO_NVLINK],
       r"NVLink detection failed(?: with message \"[^\"\n]{0,200}\"| for devices \d{1,4}-\d{1,4}: [^\n]{0,200}?)?\. "
       r"This is normal if your machine has no NVLink"),
    # NCCL refusing a pair of GPUs its topology says NVLink connects while NVML reports P2P between them not OK
    # (src/graph/paths.cc ncclTopoCheckP2p, every era since 2.4's NVML P2P check: "P2P is disabled between NVLINK
    # connected GPUs 1 and 0. This should not be the case given their connectivity, and is probably due to a hardware
    # issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1.", then ncclUnhandledCudaError:
    # the communicator's init fails; NVIDIA/nccl #2329). The node's NVLink fabric state, not the job's doing: a GPU
    # in a bad state, its NVLinks down, an NVSwitch system's Fabric Manager not running or the GPU not in the
    # fabric's clique (GB200's fabric UUID 0). Kind nvlink, attribution fabric, CHECK_FABRIC_MANAGER (was: the NCCL
    # WARN row's warning, unknown; PyTorch's quote of it after "Last error:", NCCL_DEBUG unset, nothing). The PCIe
    # twin "P2P is disabled between connected GPUs 2 and 1. You can repress this message with
    # NCCL_IGNORE_DISABLED_P2P=1." is INFO (GPUs without P2P over PCIe: GeForce, ACS): no finding. The WARN and
    # PyTorch's quote of it after "Last error:" are one event (nccl_p2p); the quote alone (NCCL_DEBUG unset) opens it.
    _r("nccl_nvlink_p2p_disabled", "nvlink", ["P2P is disabled between NVLINK connected GPUs"],
       r"P2P is disabled between NVLINK connected GPUs (?P<gpu_a>\d{1,4}) and (?P<gpu_b>\d{1,4})\b",
       attribution="fabric", action="CHECK_FABRIC_MANAGER", event=("nccl_p2p", "join")),
    # NCCL unable to set up NVLink SHARP (NVLS) multicast memory on an NVSwitch node: the node's fabric (Fabric Manager
    # and the NVSwitches) cannot serve the multicast team the job asks for, not the job's doing. NCCL 2.29+'s own words
    # say so ("Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation
    # cannot be performed in the present state'. This is usually caused by a system or configuration error in the Fabric
    # Manager or NVSwitches.", pytorch/pytorch #177472: H100 CI hosts that needed a restart; whatever the CUDA error);
    # NCCL 2.18-2.28 print only the CUCHECK of the cuMulticast* call, "transport/nvls.cc:254 NCCL WARN Cuda failure 401
    # 'the operation cannot be performed in the present state'" (NVIDIA/nccl #1788: an 8-GPU H100 node, after a month of
    # the same job running), read here by its state code (401, CUDA_ERROR_ILLEGAL_STATE; an 802 there, "system not yet
    # initialized", is the driver_unusable row's below). NVLS's CUCHECKs failing 'invalid argument' (CUDA_ERROR_INVALID_
    # VALUE, 1; 2.18's "transport/nvls.cc:165 NCCL WARN Cuda failure 'invalid argument'" without the number) or 'unknown
    # error' (999) are the same node's state in every report that found a cause: the Fabric Manager restarted without a
    # GPU reset in between, or failed ("That's usually due to nv-fabricmanager having been manually restarted while
    # processes were still holding resources on the GPU", NVIDIA/nccl #976; #1338, #1488 fixed by a reboot; #1562 "Origin
    # of failure of fabric manager manifested through NCCL-based codes"; nccl-tests #276, its 999, the FM's "non critical
    # error" cleared by an FM / GPU reset), no job's doing (NVIDIA/nccl #1672, #1705: causes not found). Kind
    # driver_unusable, as CUDA's 802 at start: the node's GPU software stack refusing the job, attribution fabric, action
    # CHECK_FABRIC_MANAGER as the NVML fabric rows' (was: nccl_error, a warning; 2.29's line the generic nvlink row's
    # NVLink hardware fault). Ahead of the nvlink row. Another file's 'invalid argument' (p2p.cc at a communicator's
    # teardown) stays NCCL's error.
    _r("nccl_nvls_multicast", "driver_unusable", ["NVLink SHARP (NVLS) Multicast", "transport/nvls.cc"],
       r"(?:Failed to bind NVLink SHARP \(NVLS\) Multicast memory\b.*?: CUDA error (?P<cuda_code>\d+) '|"
       r"transport/nvls\.cc" + NCCL_WARN_AT + r"Cuda failure (?:(?:401|1|999) )?'(?=(?:the operation cannot be "
       r"performed in the present state|invalid argument|unknown error)(?:'|\s*$)))(?P<driver_error>[^'\n]*[^'\s])'?",
       attribution="fabric", action="CHECK_FABRIC_MANAGER"),
    # NVLink discovery / training failures the driver names by its knvlink* function, e.g. on Hopper/Blackwell
    # "NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask failed!" (a word-bounded
    # "nvlink" never occurs in them).  The driver prints them in pairs (Update..Mask_IMPL then Discover..GH100)
    # and repeats the pair while it retries: one event while they keep coming.  The healthy knvlink* lines ("Fabric base addr .. is assigned") carry no
    # failure word.
    _r("nvrm_knvlink", "nvlink", ["NVRM: knvlink"],
       r"NVRM: (?P<function>knvlink\w+): (?=.*?\b(?P<what>[Ff]ail(?:ed|ure)?|[Ee]rror|[Tt]imeout|[Tt]imed out)\b)",
       event=("knvlink", "join")),
    # A counter's description names no event: dcgm-exporter's counter list (default-counters.csv, its ConfigMap)
    # "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL, counter, Total number of NVLink flow-control CRC errors." and
    # the same text as its /metrics "# HELP" line, on every GPU node (NVIDIA/dcgm-exporter #95): "number of NVLink .."
    # is a count's name, not a link's fault (the counter's value is the reading, 0 on a healthy link).
    # Was: an NVLink hardware error per line.
    _r("nvlink", "nvlink", ["NVLink", "nvlink", "NVLINK"],
       # anchored and atomic: the first "nvlink" only, then one forward scan (linear; a line of repeated
       # "nvlink " once backtracked for 19 s in the unanchored form); one scan more for a counter's "number of NVLink"
       r"^(?!.*?\bnumber of nvlink\b)(?>.*?\bnvlink\b)(?=.*?\b(?P<what>errors?|fail(?:ed|ure)?|fatal|down|fault|timeout)\b)"
       r"(?:.*?\blink\s*(?P<link>\d+))?",
       flags=re.I),
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
       refine="aer", event=AER_OPEN),
    _r("aer_bus_error", "pcie_aer", ["PCIe Bus Error"],
       r"PCIe Bus Error: severity=(?P<aer_severity>Correct(?:ed|able)|Uncorrect(?:ed|able) \((?:Non-Fatal|Fatal)\)|"
       r"Uncorrected|Fatal)(?:, type=(?P<layer>[^,]+))?",
       refine="aer", event=AER_JOIN),
    # The report's other lines join the event, and open it when its first lines were lost: the device's status
    # ("device [10de:2330] error status/mask=..."), one line per status bit ("[ 0] RxErr", "[12] Timeout",
    # older kernels' "[ 0] Receiver Error"), the TLP header, "Error of this Agent is reported first", and the
    # recovery lines ("AER: can't recover (no error_detected callback)", "AER: device recovery failed", "AER: subordinate
    # device reset failed" (the port's reset after a DPC containment failed), 3.x-4.x
    # "AER: Device recovery successful"). Severity of an event they open: refine "aer_detail".
    _r("aer_status", "pcie_aer", ["error status/mask"],
       r"device \[[0-9a-fA-F]{4}:[0-9a-fA-F]{4}\] error status/mask=(?P<aer_status>[0-9a-fA-F]{8})/"
       r"(?P<aer_mask>[0-9a-fA-F]{8})", refine="aer_status", event=AER_JOIN),
    _r("aer_tlp", "pcie_aer", ["TLP Header"], r"TLP Header:", event=AER_JOIN),
    _r("aer_first", "pcie_aer", ["reported first"], r"Error of this Agent is reported first", event=AER_JOIN),
    # A recovery that failed escalates the event (an "escalate" row, EVENT_AMENDS): its finding, made at once, is
    # amended to fatal, however many lines of the drivers' callbacks came between. Every era's wording: 5.x+
    # "pcieport 0000:00:01.4: AER: device recovery failed", "AER: subordinate device reset failed" (the port's reset
    # after a DPC containment), "nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)"; 4.x "AER:
    # Device recovery failed"; 3.x (aerdrv_core.c, no "AER: ") "pcieport 0000:00:03.0: Device recovery failed"; 4.x-5.x
    # err.c's reset of the link above a contained device, just before its verdict: "pcieport 0000:89:02.0: link
    # reset at upstream device 0000:89:02.0 failed" (part of the same failed recovery, not a line of its own).
    _r("aer_recovery", "pcie_aer", ["AER: device recovery successful", "AER: Device recovery successful",
                                    "AER: Device Recovery successful"],
       r"AER: (?P<recovery>[Dd]evice [Rr]ecovery successful)", refine="aer_detail", event=AER_JOIN),
    _r("aer_recovery_failed", "pcie_aer", ["AER: can't recover", "ecovery failed", "ecovery Failed",
                                           "AER: subordinate device reset failed", "link reset at upstream device"],
       r"(?:AER: |[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]: )(?P<recovery>can't recover \(no error_detected "
       r"callback\)|[Dd]evice [Rr]ecovery [Ff]ailed|subordinate device reset failed|"
       r"link reset at upstream device " + PCI + r" failed)",
       refine="aer_detail", event=("aer", "escalate")),
    # (5.x+ prefix these with "AER: ": "pcieport 0000:00:1c.0: AER: [12] Timeout", and print the status as
    # "AER: aer_status: 0x00001000, aer_mask: 0x00006000" after a firmware-first record)
    # (its keywords are "] <bit>", as the line prints them after the bit's number: a bare "Timeout" is in every
    # PyTorch watchdog line, where this row's search cost more than the rest of that line's reading)
    _r("aer_bit", "pcie_aer", ["] " + bit for bit in AER_BITS],
       r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]:\s+(?:AER:\s+)?\[\s?\d{1,2}\] (?P<bit>"
       + "|".join(AER_BITS) + r")\b",
       refine="aer_detail", event=AER_JOIN),
    _r("aer_status_cper", "pcie_aer", ["aer_status:"],
       r"AER: aer_status: 0x(?P<aer_status>[0-9a-fA-F]{1,8}), aer_mask: 0x(?P<aer_mask>[0-9a-fA-F]{1,8})",
       refine="aer_status", event=AER_JOIN),
    # Downstream Port Containment (drivers/pci/pcie/dpc.c): the port took its link down after an uncorrectable
    # error below it. "pcieport 0000:30:03.0: DPC: containment event, status:0x0005 source:0x3400" (4.x-6.x: the
    # source's bus/devfn in hex, 0 when the trigger names none) or, 6.x+, "containment event, status:0x200d,
    # ERR_FATAL received from 0015:01:00.0"; the status's trigger reason (bits 2:1: 0 unmasked uncorrectable, 1
    # ERR_NONFATAL, 2 ERR_FATAL) is the severity. One event with the AER report that follows it; the reason line
    # ("DPC: ERR_FATAL detected", "DPC: unmasked uncorrectable error detected") joins, and opens it alone.
    _r("dpc_containment", "pcie_aer", ["DPC: containment event"],
       r"(?:(?P<domain>[0-9a-fA-F]{4}):(?P<port>[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]): )?DPC: containment event, "
       r"status:(?P<dpc_status>0x[0-9a-fA-F]{1,4})(?: source:(?P<dpc_source>0x[0-9a-fA-F]{1,4})|"
       r", (?P<dpc_reason>ERR_FATAL|ERR_NONFATAL) received from (?P<pci>" + PCI + r"))?",
       refine="dpc", event=AER_OPEN),
    _r("dpc_reason", "pcie_aer", ["DPC: ERR_", "DPC: unmasked uncorrectable", "DPC: RP PIO"],
       r"DPC: (?P<dpc_reason>ERR_FATAL|ERR_NONFATAL|unmasked uncorrectable error|RP PIO error) detected",
       refine="dpc", event=AER_JOIN),
    # A root port's RP PIO error (a request of the CPU's to a device below it that failed: dpc.c
    # dpc_process_rp_pio_error, 4.16+) is logged after its reason line: "DPC: rp_pio_status: 0x00000000, rp_pio_mask:
    # 0x00000303", "DPC: RP PIO severity=0x00010000, syserror=0x00000000, exception=0x00000000" (6.x "DPC: " before
    # each; 4.x-5.x without), a line per status bit ("[18] Memory Request Completion Timeout (First)", its
    # rp_pio_error_string), the TLP header, "RP PIO ImpSpec Log 0x..", "TLP Prefix Header: dw0, 0x..": the
    # containment's own lines (a Dell server's EDR, lore a70a936d-d031-7199-4ed7-30753b3e7cfa@gmail.com). Was: the
    # severity line an unclassified warning beside the containment's finding ("syserror").
    _r("dpc_rp_pio", "pcie_aer", ["rp_pio_status:", "RP PIO severity=", "RP PIO ImpSpec Log", "TLP Prefix Header:",
                                  "Request received UR Completion", "Request received CA Completion",
                                  "Request Completion Timeout"],
       r"(?:rp_pio_status: 0x[0-9a-fA-F]+, rp_pio_mask: 0x|RP PIO severity=0x[0-9a-fA-F]+, syserror=0x|"
       r"RP PIO ImpSpec Log 0x|TLP Prefix Header: dw\d|\[\s?\d{1,2}\] (?:Configuration|I/O|Memory) Request "
       r"(?:received (?:UR|CA) Completion|Completion Timeout))",
       event=AER_JOIN),
    # A downstream port whose link did not come up (no Data Link Layer Link Active) after it had seen link bandwidth
    # management events: 6.5+ (drivers/pci/quirks.c pcie_failed_link_retrain, at scan, resume and after a bus reset)
    # clamps the link to 2.5GT/s and retrains it, "pcieport 0000:00:1c.6: broken device, retraining non-functional
    # downstream link at 2.5GT/s" (a warning: the device below is back at Gen1 speed, or about to fail), then, when the
    # link still does not come up (or, 6.13+, a lifted clamp fails to retrain: "removing 2.5GT/s downstream link speed
    # restriction" first), "pcieport 0000:00:1c.6: retraining failed": the device below the port is unreachable (an
    # error, the event's amendment). One event per port while its attempts repeat (a bus reset retried by vfio-pci
    # between them). Were an unclassified warning per "retraining failed" and nothing for the port's first line.
    _r("pcie_retrain", "pcie_aer", ["retraining non-functional downstream link"],
       r"(?P<pci>" + PCI + r"): broken device, retraining non-functional downstream link at (?P<speed>[\d.]+GT/s)",
       severity="warning", action="MONITOR", event=("retrain", "join")),
    _r("pcie_retrain_failed", "pcie_aer", ["retraining failed"],
       r"(?P<pci>" + PCI + r"): retraining failed\s*$", event=("retrain", "escalate")),
    # A link trained below what the device can do: the kernel's __pcie_print_link_status (4.17+), "mlx5_core
    # 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, limited by 8 GT/s x8 link at 0000:b2:00.0 (capable of 252.048
    # Gb/s with 16 GT/s x16 link)" (5.x+ "8.0 GT/s PCIe x8", 6.x+ ", in Flit mode" after it; "<unknown>" where no
    # device limits it; a link the kernel reads no speed of, "Unknown x0" (before 5.x "Unknown speed"): a Hyper-V VF's
    # at every Azure boot). The line cannot tell a fault from a design: it compares the device's own capability with the
    # narrowest link above it, so a laptop GPU wired x8, a VM's emulated root port at 2.5 GT/s x1, a device behind a
    # slower switch and a GPU idling at Gen1 all print it. Printed at enumeration ("pci" as prefix, every device before
    # any driver) it is a record (info); printed by the device's own driver at probe (mlx5_core, bnxt_en, ice: the NIC
    # drivers that print it) with fewer lanes than the device has, a warning: its bandwidth halved or worse, a
    # straggler a job waits for; a speed alone below the device's (a Gen5 NIC in a Gen4 server) stays a record. The
    # agent's sysfs and NVML readings judge the link against the port's capability and under load
    # (parsers/sample_rules.yaml).
    _r("pcie_link_limited", "pcie_aer", ["available PCIe bandwidth, limited by"],
       r"(?P<driver>[\w.-]{1,64}) (?P<pci>" + PCI + r"): [\d.]+ Gb/s available PCIe bandwidth, limited by "
       r"(?P<speed>[\d.]+ GT/s|Unknown(?: speed)?)(?: PCIe)? x(?P<width>\d+) link at "
       r"(?P<limited_at>" + PCI + r"|<unknown>) "
       r"\(capable of [\d.]+ Gb/s with (?P<speed_cap>[\d.]+ GT/s)(?: PCIe)? x(?P<width_cap>\d+) link\)",
       severity="info", action="NONE", refine="link_limited"),
    # --- IOMMU faults: the IOMMU blocked a device's DMA to an address it was not given (a GPU's or NIC's, under
    # GPUDirect P2P / RDMA with the IOMMU translating, a driver's bug, firmware at boot). One event per device while
    # its lines repeat (a storm of hundreds, rate-limited: "amd_iommu_report_page_fault: 6 callbacks suppressed",
    # "dmar_fault: 893 callbacks suppressed" and "DMAR: DRHD: handling fault status reg 3" name no device and are no
    # finding). AMD-Vi, 5.x+: the device's own prefix, "nvidia 0000:81:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT
    # domain=0x001c address=0xd0826240 flags=0x0020]" (ggml-org/llama.cpp #21908, before its Xid 31); 4.x and a device
    # with no driver: "AMD-Vi: Event logged [IO_PAGE_FAULT device=20:00.0 domain=0x0003 address=0x.. flags=0x0010]"
    # (6.x "device=0000:03:00.0"); the other events it logs the same way (IOTLB_INV_TIMEOUT, INVALID_DEVICE_REQUEST).
    # Intel VT-d: 5.13+ "DMAR: [DMA Read NO_PASID] Request device [03:00.0] fault addr 0x100000 [fault reason 0x71] SM:
    # Present bit in first-level paging entry is clear" (tenstorrent/tt-umd #1814), "[DMA Write PASID 0x1]", 5.x
    # "[DMA Read] Request device [06:00.0] PASID ffffffff fault addr 1a5e12000 [fault reason 06] ..", 4.x without the
    # PASID; 5.14's "[0x00:0x02.0]". An interrupt remapping fault ("[INTR-REMAP] .. fault index") blocks no DMA: none.
    _r("iommu_amd_vi", "iommu_fault", ["AMD-Vi: Event logged ["],
       r"(?:(?P<pci>" + PCI + r"): )?AMD-Vi: Event logged \[(?P<fault>[A-Z_]+)(?: device=(?P<device>"
       + PCI_SHORT + r"))?(?: (?:domain|pasid)=0x[0-9a-f]+)*(?: address=(?P<address>0x[0-9a-f]+))?",
       refine="iommu", event=("iommu", "join")),
    _r("iommu_dmar", "iommu_fault", ["] Request device ["],
       r"DMAR: \[(?P<fault>DMA (?:Read|Write))(?: NO_PASID| PASID \w+)?\] Request device \[(?P<device>(?:0x)?"
       r"[0-9a-f]{2}:(?:0x)?[0-9a-f]{2}\.[0-7])\](?: PASID \w+)? fault addr (?P<address>(?:0x)?[0-9a-f]+) "
       r"\[fault reason (?P<reason_code>(?:0x)?[0-9a-f]+)\] ?(?P<reason>.*)",
       refine="iommu", event=("iommu", "join")),
    # Arm's SMMUv3 (every arm64 server's IOMMU: Grace's GH200 / GB200 / GB300, whose GPUs, NICs and NVMe sit behind
    # it, named arm-smmu-v3.N.auto under ACPI) reports a fault from its event queue: "arm-smmu-v3 arm-smmu-v3.5.auto:
    # event 0x10 received:" then the event's four raw words, and 6.14+ its decode, "event: F_TRANSLATION client:
    # 0001:06:00.0 sid: 0x20600 ssid: 0x0 iova: 0xff9bc000 ipa: 0x0" and "unpriv data write s1 "Input address caused
    # fault" stag: 0x0". One event while the SMMU's reports repeat (an unmapped DMA storms): the first line its
    # finding, the decode's client the address it lacked (EVENT_FILLS); an excerpt with the decode alone still one.
    # Were no finding.
    _r("iommu_smmu_event", "iommu_fault", ["arm-smmu-v3"],
       r"arm-smmu-v3 (?P<smmu>[\w.:-]+): event (?P<event_id>0x[0-9a-f]+) received:",
       event=("smmu", "join")),
    _r("iommu_smmu_decode", "iommu_fault", ["arm-smmu-v3"],
       r"arm-smmu-v3 (?P<smmu>[\w.:-]+): event: (?P<fault>\w+) client: (?:(?P<pci>" + PCI + r")|(?P<client>\S+)) "
       r"sid: (?P<sid>0x[0-9a-f]+)",
       event=("smmu", "join")),
    # The SMMU's command queue failing (arm-smmu-v3.c, every era since 4.x): a CMD_SYNC the SMMU never completed
    # ("arm-smmu-v3 arm-smmu-v3.0.auto: CMD_SYNC timeout at 0x00000146 [hwprod 0x00000146, hwcons 0x00000000]", the
    # prefix "platform <smmu>:" once its driver is unbound), a command it refused ("CMDQ error (cons 0x0100b1b7): ATC
    # invalidate timeout": a device behind it, a NIC or GPU with ATS, did not answer an invalidation) and the global
    # error it raised ("unexpected global error reported (0x00000001), this could be serious"). No invalidation or
    # unmap behind that SMMU completes from then on (the devices behind it stall, a GPU cannot be reset or re-attached):
    # an error, not the fault warning; the SMMU's open event escalated (amended) or, alone, opened. The timeout repeats
    # (rate-limited, about one a second) as long as it lasts: one event. Were no finding.
    _r("iommu_smmu_cmdq", "iommu_fault", ["CMD_SYNC timeout", "CMDQ error (cons", "unexpected global error reported"],
       r"(?:arm-smmu-v3|platform) (?P<smmu>[\w.:-]+): (?:CMD_SYNC timeout at (?P<cmdq_prod>0x[0-9a-f]+)|CMDQ error "
       r"\(cons 0x[0-9a-f]+\): (?P<cmdq_error>[^\n]*\S)|unexpected global error reported \((?P<gerror>0x[0-9a-f]+)\))",
       severity="error", event=("smmu", "escalate")),
    # --- Mellanox / InfiniBand / RoCE ---
    # A netdev's link state (mlx5e: "mlx5_core 0000:53:00.0 enp83s0f0np0: Link down"), and the RDMA core's for the
    # port's IB device (6.15+ IB/cache, MLNX_OFED: "mlx5_core 0000:53:00.0 mlx5_3: Port: 1 Link DOWN", "..: Port: 1 Link
    # ACTIVE"), on an InfiniBand-mode HCA the only line a port's flap leaves. A RoCE port prints both, the IB device's
    # on the next line: its "Link DOWN" there is part of the netdev's down (one event per function, EVENT_LINES
    # "port_down"), not a second finding; with no netdev line before it, it is the port's own. The states between
    # (INIT, ARMED: a port on its way up, waiting for the subnet manager) are no finding.
    _r("mlx5_link", "ib_link", ["mlx5_core"],
       r"mlx5_core (?P<pci>" + PCI + r") (?P<netdev>\S+): Link (?P<state>down|up)\b",
       refine="ib_link", event_if=("state", {"down": ("port_down", "open")})),
    _r("ib_port_state", "ib_link", ["Link DOWN", "Link ACTIVE"],
       r"mlx5_core (?P<pci>" + PCI + r") (?P<netdev>\S+): Port: (?P<port>\d+) Link (?P<state>DOWN|ACTIVE)\b",
       refine="ib_link", event_if=("state", {"DOWN": ("port_down", "join")})),
    _r("mlx5_module", "ib_link", ["Port module event"],
       r"(?:mlx5_core (?P<pci>" + PCI + r"):.*)?Port module event(?:\[(?P<level>\w+)\])?: "
       r"module (?P<module>\d+), (?P<state>Cable (?:plugged|unplugged|error)|Cable \w+)(?:, (?P<reason>.*))?",
       action="CHECK_CABLE", refine="ib_link"),
    # --- the kernel's start-up lines (no finding): a log in wall-clock time (dmesg -T, --time-format iso, journal
    # exports, syslog) learns from them when its boot began, for the unused-port rule (parsers/ports.py BootClock).
    # Each is printed once per boot by the kernel itself, within its first seconds (the order is BOOT_STAGES'):
    # the banner (init/main.c), x86's "Command line:" and every arch's "Kernel command line:", the init memory
    # freed as the kernel hands over to init, and the init it runs.
    _r("boot_banner", None, ["Linux version "], r"^Linux version \d", event=BOOT_MARK),
    _r("boot_cmdline", None, ["Command line: ", "command line: "], r"^(?:Kernel command|Command) line: ",
       event=BOOT_MARK),
    _r("boot_free_initmem", None, ["Freeing unused kernel "],
       r"^Freeing unused kernel (?:image \(initmem\) )?memory: \d", event=BOOT_MARK),
    _r("boot_run_init", None, [" as init process"], r"^Run \S+ as init process$", event=BOOT_MARK),
    _r("mlx5_module_temperature", "nic_error", ["High Temperature"],
       r"(?:mlx5_core (?P<pci>" + PCI + r"):? )?Port module event(?:\[(?P<level>\w+)\])?: module (?P<module>\d+), "
       r"(?P<what>High Temperature)", action=MODULE_ERROR_ACTION["high temperature"]),  # no status (gpud's form)
    # The NIC's own sensors above their warning threshold (the firmware's TEMP_WARN event, a bit per sensor: bit 0 the
    # ASIC, the others its modules): 4.x eq.c "mlx5_temp_warning_event:..", 5.x-6.x events.c "mlx5_core 0000:41:00.0:
    # temp_warn:170:(pid 0): High temperature on sensors with bit set 0 1" (%llx), 6.1+ rate-limited and "%#llx" ("0
    # 0x1"), 6.15+ with a full stop and, where the driver has hwmon, a "Sensor name[0]: asic" line per sensor after it
    # (lore 20250213094641.226501-5-tariqt@nvidia.com): part of its event. The card keeps running, its firmware shuts
    # it down if it keeps heating (a ConnectX-6 Dx's health failure "synd 0x10: High temperature" 80 s after it): a
    # warning, the cooling's to check; one event per function while the warning repeats. Was no finding.
    _r("mlx5_temp_warn", "nic_error", ["High temperature on sensors"],
       FIRST_MLX5 + r":? (?:\w+:\d+:\(pid \d+\): )?High temperature on sensors with bit set "
       r"(?P<sensors>(?:0x)?[0-9a-f]+ (?:0x)?[0-9a-f]+)",
       severity="warning", action="CHECK_COOLING", event=("mlx5_temp", "join")),
    _r("mlx5_temp_sensor", None, ["Sensor name["],
       FIRST_MLX5 + r":? (?:\w+:\d+:\(pid \d+\): )?Sensor name\[\d+\]: ", event=("mlx5_temp", "within")),
    # The firmware tracer's ring (diag/fw_tracer.c, mlx5_fw_tracer_handle_traces: the firmware's debug traces the
    # driver copies out for devlink and tracepoints) overwritten before the driver read it: "mlx5_core 0000:17:00.0:
    # mlx5_fw_tracer_handle_traces:808:(pid 1828991): FWTracer: Events were lost" (mlx5_core_warn, "there is a good
    # chance that the current buffer is overwritten and therefore should not be parsed"; a ConnectX-6 that kept
    # running, "a routine message there", unionxic/rdma-fault-characterization). Debug traces lost, not the NIC's
    # fault: silent. Was: the unclassified net's warning (a Node Event per overrun).
    _r("mlx5_fw_tracer_lost", None, ["FWTracer: Events were lost"],
       FIRST_MLX5 + r":? (?:\w+:\d+:\(pid \d+\): )?FWTracer: Events were lost"),
    # mlx5 logs it as a warning (mlx5_core_warn_rl): the slot advertises less power than the card may draw; printed
    # at boot by healthy nodes whose slots advertise none (an HGX board's every ConnectX function, each boot:
    # wholelogs/gpud-dmesg-decode-iso-hgx-boot.log), and said to cap throughput on some. gpud records it as a Warning
    # event; NVSentinel's NIC patterns store it only (recommended action NONE): info here, counted and logged, no Node
    # Event (12 a boot on every HGX node of a fleet)
    _r("mlx5_pcie_power", "nic_error", ["insufficient power"],
       r"(?:mlx5_core (?P<pci>" + PCI + r"):? (?:mlx5_pcie_event:\d+:\(pid \d+\): )?)?"
       r"Detected insufficient power on the PCIe slot(?: \((?P<watts>\d+)W\))?", severity="info"),
    # A function the driver could not load: the step that failed ("mlx5_core 0000:03:00.0: handle_hca_cap failed", the
    # firmware not taking the function up: 4.x "mlx5_core 0000:0b:06.0: enable hca failed", 5.x "mlx5_function_setup:1103:
    # (pid 97972): enable hca failed", 6.x "mlx5_function_enable:1200:(pid 519): ..", after its ENABLE_HCA command timed
    # out or at a reload after a fatal error), the load's verdict (4.x "mlx5_load_one failed with error code -22", 5.x+
    # "mlx5_init_one failed with error code ..") and the driver core's "mlx5_core: probe of 0000:03:00.0 failed with
    # error -22" (6.x "mlx5_core 0000:03:00.0: probe with driver mlx5_core failed with error -22", _probe_failed): one
    # event per function. Was: "enable hca failed" the unclassified net's warning.
    _r("mlx5_load_failed", "nic_error", ["hca_cap failed", "_one failed with error code", "enable hca failed"],
       FIRST_MLX5 + r":? (?:\w+:\d+:\(pid \d+\): )?(?P<step>handle_hca_cap|set_hca_cap|mlx5_(?:load|init)_one|enable hca) "
       r"failed(?: with error code (?P<errno>-?\d+))?", event=("mlx5_probe", "join")),
    _r("mlx5_probe", "nic_error", *_probe_failed("mlx5_core"), event=("mlx5_probe", "join")),
    # A firmware health failure is one event per function: "device's health compromised - reached miss count"
    # and/or "Health issue observed, <syndrome>" then print_health_info's dump (assert_var[n], assert_exit_ptr,
    # assert_callra, fw_ver, time, hw_id, rfr, severity, irisc_index, synd, ext_synd, raw fw_ver): the dump's
    # register lines are members; a "synd 0x.." line with no open event (older kernels print no banner) opens one.
    # The health poll's own verdict (poll_health: "Fatal error 1 detected", a vendor kernel's print_health "Fatal error
    # detected"), print_health_info's "PCI slot is unavailable" (the function gone from the bus: a surprise link down,
    # a DPC containment, EEH) instead of its dump, and the recovery giving up ("mlx5_health_try_recover: health
    # recovery flow aborted, PCI reads still not working"; 5.12+ "health recovery failed" where the reload failed, was
    # an unclassified warning): lines of the same event.
    # A dump line with no banner before it (its first lines lost) opens the event: print_health_info's function
    # prefix, or a register name only a dump prints (assert_*, irisc_index, ext_synd, raw fw_ver).
    _r("mlx5_health_dump", "nic_error", ["mlx5_core"],
       FIRST_MLX5 + r":? (?:print_health_info:\d+:\(pid \d+\): (?:assert_var\[\d+\]|assert_exit_ptr|assert_callra|"
       r"fw_ver|time|hw_id|rfr|severity|irisc_index|ext_synd|raw fw_ver) |(?:\w+:\d+:\(pid \d+\): )?"
       r"(?P<what>assert_var\[\d+\]|assert_exit_ptr|assert_callra|irisc_index|ext_synd|raw fw_ver) )",
       severity="fatal", action="RESET_NIC", event=MLX5_HEALTH_JOIN),
    _r("mlx5_health", "nic_error", ["mlx5_core"],
       FIRST_MLX5 + r":? .*?(?P<what>health compromised|firmware (?:fatal|internal) error|"
       r"fw_fatal|Driver is in error state|synd 0x[0-9a-f]+|FW (?:fatal|hang)|Fatal error(?: \d+)? detected|"
       r"PCI slot(?: \d+)? is unavailable|health recovery (?:flow aborted|failed))",
       severity="fatal", action="RESET_NIC", flags=re.I, event=MLX5_HEALTH_JOIN, scan_from="what"),
    # What the health recovery prints on its way, naming no cause of its own ("mlx5_health_try_recover:335:(pid 2239):
    # handling bad device here", mlx5_handle_bad_state's reading of the function's interface mode: "Expected to see
    # disabled NIC but it is has invalid value 7" (5.x-6.x; "is full driver", "is no dram nic" alike), "NIC IFC still 7
    # after 1000ms."): part of the function's open health event, else the unclassified net's. Was: the bad state's
    # line an unclassified warning.
    # IBM POWER's EEH (arch/powerpc/kernel/eeh*.c): the platform's own report of a PCI error it froze a device's PE
    # for ("EEH: Frozen PHB#400f-PE#10000 detected", "EEH: PE location: ..", its call trace "EEH: [c000..] fn+0x..",
    # the PE's config and AER registers "EEH: PCI-E AER 00: ..", "EEH: Notify device drivers to shutdown", "EEH:
    # Beginning: 'error_detected(IO frozen)'"), dozens of lines naming no device's address: lines of the newest open
    # event of a device's failure (a "within" line naming no device: the newest open event of its name), which they
    # keep open as they come: the driver's lines after the report (its teardown's command timeouts) are still that
    # failure's (lore 68312f5c-13f4-71ee-a993-b523df59497b@linux.vnet.ibm.com: a function's health event, 27 EEH lines,
    # then its commands timed out: was two findings). With none open, what the unclassified net makes of it.
    _r("eeh_report", None, ["EEH: "], r"\bEEH: ", event=("mlx5_health|fallen|aer", "within")),
    _r("mlx5_health_after", None, ["handling bad device here", "Expected to see disabled NIC", "NIC IFC still"],
       FIRST_MLX5 + r":? .*?(?:handling bad device here|Expected to see disabled NIC but it is|NIC IFC still \d+ after)",
       event=("mlx5_health", "within")),
    # The fw_fatal reporter's crash dump refused: crdump.c's "mlx5_crdump_collect:50:(pid 254382): crdump: failed to
    # lock vsc gw err -5" (mainline 5.x-6.x; a vendor kernel's "crdump: failed to lock gw status -13"; -13, EACCES, the
    # function's PCI channel offline, lib/pci_vsc.c mlx5_vsc_gw_lock). The gateway's semaphore is the device's, taken
    # through any of its physical functions' config space ("Verify no other PF is running cr-dump or sw reset"): part
    # of the open health event of any function of the same device (EVENT_WITHIN_DEVICE; a DPC containment: the health
    # poll fails on function .1, function .0's dump refused), else the unclassified net's naming the function.
    # The dump's next step takes the device's SW reset semaphore, which another function's dump or reset holds:
    # crdump.c's mlx5_core_warn "Failed to lock SW reset semaphore" (after its "mlx5_crdump_collect:N:(pid N): "
    # prefix; a later crdump.c says "SW reset semaphore is already in use" at info for -EBUSY, no error word in it):
    # the same refusal, the same event. fw_reset.c's line of the same words (a sync reset's) is not the dump's.
    _r("mlx5_crdump_refused", None, ["crdump: failed to lock", "Failed to lock SW reset semaphore"],
       FIRST_MLX5 + r":? .*?(?:crdump: failed to lock (?:vsc )?gw|mlx5_crdump_collect:\d+:\(pid \d+\): Failed to lock "
       r"SW reset semaphore)", event=("mlx5_health", "within")),
    # mlx5e's TX timeout handler: "TX timeout detected" (no queue), then one "TX timeout on queue: N, SQ: .."
    # line per stuck queue; its RX reporter's counterpart, a receive queue whose posted buffers the device never took
    # ("RX timeout on channel: 20, ICOSQ: 0x1ee0, RQ: 0x1e43, CQ: 0x3ea6", en/reporter_rx.c in every era: 5.x's
    # "ICOSQ: 0x.. RQ:", 6.x's optional "ICOSQ: 0x.., " before "RQ:"; NVIDIA/NVSentinel's mlx5_rx_timeout_detected):
    # one event per netdev. Was: the RX line the unclassified net's warning, no device kind.
    _r("mlx5_tx_timeout", "nic_error", ["TX timeout", "RX timeout on channel"],
       FIRST_MLX5 + r" (?P<netdev>\S+): (?:TX timeout (?:detected|on queue: (?P<queue>\d+))|"
       r"RX timeout on channel: (?P<channel>\d+))",
       event=MLX5_TX_JOIN),
    # A send or receive queue of mlx5e's that met an error completion: mlx5e_dump_error_cqe's "Error cqe on cqn 0x817, ci
    # 0x8, qn 0x1dbb, opcode 0xd, syndrome 0x1, vendor syndrome 0x68" (5.x-6.x; 4.x-5.3 "sqn 0x..") and its hex dump, and
    # the health reporter's "ERR CQE on SQ: 0x1dbb" (RQ, ICOSQ alike) as it recovers the queue (tx/rx reporter): one event
    # per function, whichever comes first (the reporter's runs from a work queue, after the dump or before it). The
    # queue is recovered: a warning, unless it repeats; a driver's bug (SHAMPO on 64K pages, lore stable
    # 20250408104823.751151026@linuxfoundation.org) or the device failing under it (after a DPC containment, lore
    # aYnour-Z8rm8pW2D@gmail.com). Was: "Error cqe" the unclassified net's, "ERR CQE on SQ" nothing.
    # A flushed work request's dump (syndrome 0x5, MLX5_CQE_SYNDROME_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR): the consequence
    # of an earlier error on the queue or of its teardown, never a cause (the ICOSQ's poll dumps every error completion,
    # en_rx.c mlx5e_poll_ico_cq: the first error's dump, then each flushed one's; lore stable
    # 20260528194658.334630100@linuxfoundation.org, syndrome 0x2 then 0x5). Part of the function's open queue-error
    # event; alone (a cut log, a receive queue whose first error completion is a flush: health.h
    # cqe_syndrome_needs_recover recovers it) an event of its own, counted (info), that a later error never joins. Was:
    # a warning of its own, the flush read as a fault.
    _r("mlx5e_cqe_flushed", "nic_error", ["0x5, vendor syndrome"],
       FIRST_MLX5 + r" (?P<netdev>\S+): " + _mlx5e_error_cqe("0x5"),
       severity="info", action="NONE", refine="mlx5_cqe", event=("mlx5e_cqe_flushed|mlx5_err_cqe", "join")),
    _r("mlx5_err_cqe", "nic_error", ["ERR CQE on ", "Error cqe on cqn "],
       FIRST_MLX5 + r" (?P<netdev>\S+): (?:ERR CQE on (?P<queue_kind>[A-Z]+(?: SQ)?): (?P<queue_number>0x[0-9a-f]+)|"
       + _mlx5e_error_cqe("0x[0-9a-f]+") + ")",
       severity="warning", refine="mlx5_cqe", event=("mlx5_err_cqe", "join")),
    # A completion queue the device put in error: eq.c's cq_err_event_notifier, "mlx5_core 0000:08:00.0:
    # cq_err_event_notifier:517:(pid 0): CQ error on CQN 0x487, syndrome 0x1" (5.x-6.x; MLX5_CQ_ERROR_SYNDROME), then
    # its owner's own line (mlx5e: "mlx5_core 0000:08:00.0 eth2: mlx5e_cq_error_event: cqn=0x000487 event=0x04"). The
    # queue's consumer sized it wrong or fell behind: in each public report a driver's bug (mlx5e's async ICOSQ, its
    # PTP queue, AF_XDP zero copy, svcrdma's send queue; lore stable 20231124172030.865692678@linuxfoundation.org),
    # attribution driver, a warning. Part of the function's queue-error event (mlx5_err_cqe). Was: the unclassified
    # net's warning, the mlx5e line nothing.
    _r("mlx5_cq_error", "nic_error", ["CQ error on CQN "],
       FIRST_MLX5 + r":? (?:\w+:\d+:\(pid \d+\): )?CQ error on CQN (?P<cqn>0x[0-9a-f]+), syndrome "
       r"(?P<cq_syndrome>0x[0-9a-f]+)",
       severity="warning", attribution="driver", refine="mlx5_cq_error", event=("mlx5_err_cqe", "join")),
    _r("mlx5_cq_error_after", None, ["mlx5e_cq_error_event"],
       FIRST_MLX5 + r" \S+: mlx5e_cq_error_event: cqn=0x[0-9a-f]+ event=", event=("mlx5_err_cqe", "within")),
    # A kernel consumer's RDMA work request the ConnectX completed in error (mlx5_ib's cq.c: the ULPs of a GPU node's
    # storage and fabric, NVMe over RDMA, NFS over RDMA, Lustre's o2iblnd, SRP, iSER, IPoIB; a job's own verbs log
    # nothing here): "infiniband mlx5_0: mlx5_handle_error_cqe:332:(pid 0): WC error: 4, Message: local protection
    # error" (5.x-6.x; a later dump_cqe prints the same words), then "dump error cqe" and the CQE's bytes. Flushed
    # work requests (the consequence of the first) the driver never prints. The status by its libibverbs name
    # (`wc_status`, the kernel's ib_wc_status numbers are libibverbs'); a warning of the RDMA device (the IB device's
    # name, no PCI address on the line), its queue-error event (mlx5_err_cqe: the dump's lines part of it). Was: no
    # finding (lore linux-rdma, Martin Oliveira's NVMe-oF report, 2022).
    _r("mlx5_ib_wc_error", "nic_error", ["WC error: "],
       r"infiniband (?P<device>[\w.-]{1,64}): (?:\w+:\d+:\(pid \d+\): )?WC error: (?P<error_code>\d+), Message: "
       r"(?P<wc_message>[^\n]+?)\s*$",
       severity="warning", attribution="unknown", action="MONITOR", refine="ib_wc", event=("mlx5_err_cqe", "join")),
    _r("mlx5_ib_wc_dump", None, ["dump error cqe"],
       r"infiniband (?P<device>[\w.-]{1,64}): (?:\w+:\d+:\(pid \d+\): )?dump error cqe",
       event=("mlx5_err_cqe", "member")),
    # mlx5_poll_one's own account of each error completion it polls, printed only under dynamic debug (mlx5_ib_dbg, 5.x+
    # ibdev_dbg's "infiniband <dev>: "): "infiniband rocep33s0f0: mlx5_poll_one:527:(pid 0): Responder error cqe on cqn
    # 0x406:" then "mlx5_poll_one:530:(pid 0): syndrome 0x5, vendor syndrome 0xf9", after mlx5_handle_error_cqe's "WC
    # error" (which it never prints for a flushed one). A flushed work request (syndrome 0x5, MLX5_SYNDROME_WC's
    # IBV_WC_WR_FLUSH_ERR) is the consequence of an earlier error, or of a queue pair its owner moved to error to tear
    # it down (nvme-rdma's disconnect: linux-nvme/nvme-cli #3268, a burst of them after `nvme discover`): part of the
    # device's open queue-error event, alone nothing; the debug header line alike (the RDMA device by any name: mlx5_N,
    # rdma-core's rocepXsYfZ / ibpXsYfZ). Was: nothing, and no part of the event (a burst past its window parted it).
    _r("mlx5_ib_error_cqe_debug", None, ["error cqe on cqn "],
       r"infiniband (?P<device>[\w.-]{1,64}): mlx5_poll_one:\d+:\(pid \d+\): (?:Requestor|Responder) error cqe on cqn "
       r"0x[0-9a-f]+:", event=("mlx5_err_cqe", "member")),
    _r("mlx5_ib_cqe_flushed", None, ["syndrome 0x5, vendor syndrome"],
       r"infiniband (?P<device>[\w.-]{1,64}): mlx5_poll_one:\d+:\(pid \d+\): syndrome 0x5, vendor syndrome 0x[0-9a-f]+",
       event=("mlx5_err_cqe", "within")),
    # A register access the firmware refused ("status bad operation(0x2)"): on HGX/DGX systems the ConnectX functions
    # the fabric manager manages are restricted (DGX OS 7 known issue: "Accessing PF0 and PF1 is restricted"), and any
    # reader of their InfiniBand counters (node_exporter's infiniband collector, gpud, our poller) makes mlx5 log, at
    # every read, "mlx5_core 0000:05:00.0: mlx5_cmd_out_err:835:(pid 18360): ACCESS_REG(0x805) op_mod(0x1) failed,
    # status bad operation(0x2), syndrome (0x9a6171), err(-22)" (6.x; mlx5_cmd_check before) (prometheus/node_exporter
    # #3434, leptonai/gpud #1164). The firmware refusing an operation, no fault of the device: counted (info), never a
    # node problem nor a job's cause. Any other status, or a failure whose status the line does not give, is mlx5_cmd's.
    _r("mlx5_access_refused", "nic_error", ["ACCESS_REG("],
       r"(?:mlx5_core (?P<pci>" + PCI + r"):? )?mlx5_cmd_\w+:\d+:\(pid \d+\): (?P<command>ACCESS_REG\(0x[0-9a-f]+\))"
       r"(?: op_mod\(0x[0-9a-f]+\))? failed, status (?P<status>bad operation\(0x2\))",
       severity="info", action="NONE", attribution="driver"),
    _r("mlx5_cmd", "nic_error", ["mlx5_core"],
       FIRST_MLX5 + r":? .*?(?P<command>[A-Za-z_]{3,}\(0x[0-9a-f]+\))(?: op_mod\(0x[0-9a-f]+\))? "
       r"failed(?:, status (?P<status>[^,]+))?",
       attribution="driver"),
    # A command the firmware did not complete in time (cmd.c): wait_func_handle_exec_timeout's "mlx5_core 0000:56:00.0:
    # wait_func_handle_exec_timeout:1159:(pid 72061): cmd[0]: ACCESS_REG(0x805) No done completion" (4.x
    # cmd_work_handler's), then wait_func's "ACCESS_REG(0x805) timeout. Will cause a leak of a command resource" (an
    # async command's "cmd[3]: CREATE_MKEY(0x200) Async, timeout. Will cause .."), a command that got no slot in time
    # ("canceled on out of queue timeout", "failed to allocate command entry": the slots the timeouts leaked), and the
    # firmware's late answer, mlx5_cmd_comp_handler's "Command completion arrived after timeout (entry idx = 0)." (a
    # ConnectX-7 on net-next, lore 4dde7c9e-92ac-43b4-b5c8-a60c92849878@gmail.com; UCX's CREATE_DCT, openucx/ucx #7738):
    # one event per function while they come (the firmware not answering; each of its commands times out), an error as
    # before. Was: a finding per line, the late answer the unclassified net's.
    _r("mlx5_cmd_timeout", "nic_error", ["mlx5_core"],
       FIRST_MLX5 + r":? .*?(?:(?P<command>[A-Z_]{3,}\(0x[0-9a-f]+\)) (?:Async, )?)?(?P<timeout>No done completion|"
       r"timeout\. Will cause a leak|canceled on out of queue timeout|failed to allocate command entry)",
       attribution="driver", event=("mlx5_cmd_timeout|mlx5_health", "join")),
    _r("mlx5_cmd_late", None, ["Command completion arrived after timeout"],
       FIRST_MLX5 + r":? .*?Command completion arrived after timeout", event=("mlx5_cmd_timeout", "within")),
    # A command that completed only when the driver, at its timeout, polled the command EQ itself (cmd.c
    # mlx5_cmd_eq_recover, 5.11+): "mlx5_core 0000:d8:00.0: mlx5_cmd_eq_recover:245:(pid 1416): Recovered 1 EQEs on
    # cmd_eq" then "wait_func_handle_exec_timeout:1062:(pid 1416): cmd[0]: CREATE_EQ(0x301) recovered after timeout"
    # (an async command's "Async, recovered after timeout"): the firmware answered but its interrupt never reached the
    # host (a ConnectX-5 under maxcpus=8, lore BYAPR21MB12703228F3E7A8B8158EB054BF129@BYAPR21MB1270.namprd21.prod.outlook
    # .com; AMD's IOMMU dropping a VF's remapped interrupts): every command takes the full timeout, so a probe or a link
    # change stalls for minutes. A warning, one event per function while they repeat; was an unclassified warning per
    # "recovered" line.
    _r("mlx5_cmd_recovered", "nic_error", ["recovered after timeout", "EQEs on cmd_eq"],
       FIRST_MLX5 + r":? .*?(?:(?P<command>[A-Z_]{3,}\(0x[0-9a-f]+\)) (?:Async, )?recovered after timeout|"
       r"Recovered \d+ EQEs on cmd_eq)",
       severity="warning", attribution="driver", event=("mlx5_cmd_recovered", "join")),
    # the same command failure printed without the device prefix (some kernels' mlx5_cmd_check)
    _r("mlx5_cmd_nodev", "nic_error", ["mlx5_cmd_check", "mlx5_cmd_out_err"],
       r"mlx5_cmd_(?:check|out_err):\d+:\(pid \d+\): (?P<command>[A-Za-z_]{3,}\(0x[0-9a-f]+\))"
       r"(?: op_mod\(0x[0-9a-f]+\))? failed(?:, status (?P<status>[^,]+))?",
       attribution="driver"),
    # The kernel's TX watchdog (net/sched/sch_generic.c dev_watchdog): a queue of a network device that sent nothing
    # for its watchdog_timeo (5 s mostly), the driver's ndo_tx_timeout called next (mlx5e's, bnxt_en's, ice's TX
    # timeout rows: their own events). 2.6.32-6.x "NETDEV WATCHDOG: eth1 (mlx5_core): transmit queue 19 timed out" (6.x
    # adds " 10720 ms"), 2.6.27-2.6.31 "NETDEV WATCHDOG: eth0 (e1000e): transmit timed out", before "NETDEV WATCHDOG:
    # eth0: transmit timed out" (a WARN_ONCE: once per boot); 6.8+ netdev_crit's "mlx5_core 0000:53:00.0 eth2: NETDEV
    # WATCHDOG: CPU: 59: transmit queue 0 timed out 10720 ms" (the driver's prefix names the device; printed again at
    # every timeout while the queue stays stuck: openwrt/openwrt #19765, every 5 s). One event per interface
    # (EVENT_PER_GROUP: whether or not the line names its PCI address) while the lines come; was a finding per line. A
    # device no driver is bound to names none (netdev_drivername's ""): an IPoIB child interface's "NETDEV WATCHDOG:
    # ib0.beef (): transmit queue 26 timed out" (5.x, lore 20231121130316.126364-1-jinpu.wang@ionos.com; was no finding).
    _r("netdev_watchdog", "nic_error", ["NETDEV WATCHDOG"],
       r"NETDEV WATCHDOG: (?P<netdev>[^\s:()]+)(?: \((?P<driver>[^)]+)\)| \(\))?: transmit (?:queue (?P<queue>\d+) )?timed out",
       event=("netdev_watchdog", "join")),
    _r("netdev_watchdog_cpu", "nic_error", ["NETDEV WATCHDOG"],
       r"(?:\b(?P<driver>[\w-]{1,64}) (?:(?P<pci>" + PCI + r")|\S+) (?P<netdev>[^\s:]{1,64}): )?NETDEV WATCHDOG: CPU: \d+: "
       r"transmit queue (?P<queue>\d+) timed out", event=("netdev_watchdog", "join")),
    # IPoIB's own TX timeout handler (drivers/infiniband/ulp/ipoib ipoib_timeout, every era: ipoib_warn's "<netdev>: "
    # prefix): "ib0.beef: transmit timeout: latency 10 msecs", then "ib0.beef: queue stopped 0, tx_head 0, tx_tail 0,
    # global_tx_head 0, global_tx_tail 0" (5.11+; before, "queue stopped 1, tx_head 167838, tx_tail 167710"). Before
    # 6.8 the kernel's watchdog line is a WARN_ONCE (once per boot), so a queue that stays stuck leaves these two lines
    # alone at every later timeout: "The last two message repeated for days" (lore
    # 20231121130316.126364-1-jinpu.wang@ionos.com, mlx5 under IPoIB). The timeout line is the watchdog's event (the
    # interface's, joined to its NETDEV WATCHDOG line where one names it), the queue's line part of it. Was: no
    # finding, a stuck IPoIB interface (storage, the job's bootstrap) silent after its first timeout of the boot.
    _r("ipoib_tx_timeout", "nic_error", ["transmit timeout: latency"],
       r"(?P<netdev>[^\s:]{1,64}): transmit timeout: latency (?P<latency_ms>\d+) msecs", event=("netdev_watchdog", "join")),
    _r("ipoib_tx_queue", None, ["queue stopped"],
       r"(?P<netdev>[^\s:]{1,64}): queue stopped \d+, tx_head \d+, tx_tail \d+", event=("netdev_watchdog", "within")),
    # Broadcom NetXtreme-C/E (bnxt_en, and bnxt_re for RoCE: Thor2 400G NICs of AMD and some H100/H200 clouds). The
    # RoCE driver talks to the NIC's firmware through its command queue (qplib_rcfw.c, printed through the bnxt_en PCI
    # function with the "QPLIB: " prefix): the firmware answering no command for its max timeout is a stall, 6.x
    # "bnxt_en 0000:12:00.0: QPLIB: bnxt_re_is_fw_stalled: FW STALL Detected. cmdq[0xe]=0x3 waited (103641 > 100000)
    # msec active 1" (fatal: the RoCE device is unusable until the NIC is reset or its firmware updated); one command
    # timing out, 5.x "QPLIB: cmdq[0x41d]=0x3 timedout (20000)msec" (its maintainer: "the FW on bnxt_re side is not
    # responding"); a command the firmware failed with a status, "QPLIB: cmdq[0x4b9]=0x15 status 0x5" (the device refused
    # it: a firmware or driver bug, as mlx5_cmd's). What the verbs layer then prints naming no cause of its own
    # ("QPLIB: cmdq[0x0]=0x3 send failed", "bnxt_re0: Failed to modify HW QP" 5.x "infiniband bnxt_re0: ..", 6.x "bnxt_en
    # 0000:12:00.0 bnxt_re0: ..", "Couldn't change QP1 state to INIT: -110", "Couldn't start port", "Free MW failed:
    # .."): part of the open event, else the unclassified net's. bnxt_en's TX timeout handler, "bnxt_en 0000:04:00.0
    # eth0: TX timeout detected, starting reset task!" (after the kernel's own NETDEV WATCHDOG line, its own event as
    # for mlx5), then the reset's ring frees the firmware did not answer ("Resp cmpl intr err msg: 0x51", "hwrm_ring_free
    # type 1 failed. rc:fffffff0 err:0"): one event. One event per PCI function (EVENT_PER_DEVICE: two functions' probe
    # failures are two NICs' faults, lore netdev CACKFLimgUxTV7Cgg5dYtWtvTsWpOK538UtLmyyxP0tTaYOzL6g@mail.gmail.com;
    # were one event, the second function never named); the verbs layer's lines part of the newest open one where they
    # name no function (5.x's name the IB device), or of one of their device's other functions (EVENT_WITHIN_DEVICE).
    # Was: no finding, every line of them.
    _r("bnxt_fw_stall", "nic_error", ["FW STALL Detected"],
       r"bnxt_en (?P<pci>" + PCI + r"):? QPLIB: (?:\w+: )?(?P<what>FW STALL Detected)",
       severity="fatal", action="RESET_NIC", event=("bnxt", "join")),
    _r("bnxt_cmdq_timeout", "nic_error", ["QPLIB: cmdq["],
       r"bnxt_en (?P<pci>" + PCI + r"):? QPLIB: cmdq\[0x[0-9a-f]+\]=(?P<opcode>0x[0-9a-f]+) (?P<what>timedout) "
       r"\((?P<timeout_ms>\d+)\) ?msec", event=("bnxt", "join")),
    _r("bnxt_cmdq_status", "nic_error", ["QPLIB: cmdq["],
       r"bnxt_en (?P<pci>" + PCI + r"):? QPLIB: cmdq\[0x[0-9a-f]+\]=(?P<opcode>0x[0-9a-f]+) status (?P<status>0x[0-9a-f]+)",
       attribution="driver", event=("bnxt", "join")),
    _r("bnxt_tx_timeout", "nic_error", ["TX timeout detected, starting reset task"],
       r"bnxt_en (?P<pci>" + PCI + r") (?P<netdev>\S+): TX timeout detected, starting reset task",
       event=("bnxt", "join")),
    # bnxt_en's own command channel to the NIC's firmware (bnxt_hwrm.c, hwrm_req_send): a command the firmware answered
    # not within its timeout, "bnxt_en 0000:43:00.0 (unnamed net_device) (uninitialized): Error (timeout: 500015) msg
    # {0x0 0x0} len:0" (every era: "Error (timeout: %u) msg {<req_type> <seq_id>} len:%d", a later kernel adding " v:%d" when
    # the response's valid bit never came), and one abandoned because the firmware's status says it is resetting or in
    # error ("Abandoning msg {0x.. 0x..} len: %d due to firmware status: 0x.."): the NIC's firmware not answering its
    # driver. Then the driver core's "bnxt_en 0000:43:00.0: probe with driver bnxt_en failed with error -16" (6.x
    # drivers/base/dd.c; before, "bnxt_en: probe of 0000:00:03.0 failed with error -95", 5.4's after it could not read
    # the adapter's serial number, lore netdev CACKFLimgUxTV7Cgg5dYtWtvTsWpOK538UtLmyyxP0tTaYOzL6g@mail.gmail.com)
    # when it happened at probe: the function has no driver, the port is gone until the cause is
    # fixed. One event with them (a DMA the IOMMU blocked before it, lore stable 20260323134511.126623444@
    # linuxfoundation.org, its iommu_fault apart). Was: the unclassified net's warnings.
    _r("bnxt_hwrm_timeout", "nic_error", ["Error (timeout: ", "due to firmware status"],
       r"bnxt_en (?P<pci>" + PCI + r")(?: [^:]*)?: (?:Error \((?P<what>timeout): (?P<timeout_us>\d+)\)|"
       r"(?P<abandoned>Abandoning)) msg \{(?P<req_type>0x[0-9a-f]+) 0x[0-9a-f]+\}", event=("bnxt", "join")),
    # A command the firmware answered with an error code, bnxt_en's every era ("hwrm req_type 0x%x seq id 0x%x error
    # 0x%x": bnxt.c _hwrm_send_message, 5.14+ bnxt_hwrm.c __hwrm_send): the driver's request refused (its parameters,
    # a ring already freed, a feature the firmware wants acknowledged), a driver / firmware pairing's fault, not the
    # port's: "bnxt_en 0000:21:00.1 ens2f1np1: hwrm req_type 0x53 seq id 0x6fca error 0x2" (DIM adjusting a ring just
    # freed: "unnecessary concern for the user", lore stable 20250115103607.640760086@linuxfoundation.org), at probe
    # "bnxt_en 0000:26:00.0 (unnamed net_device) (uninitialized): hwrm req_type 0x1d seq id 0xb error 0x2" (an NPAR 1.2
    # NIC refusing a driver that does not acknowledge it: the probe aborts, lore netdev
    # 20250113063927.4017173-2-michael.chan@broadcom.com), the probe's failure then joining its event. A warning of the
    # driver's. Was: the unclassified net's warning. And the RX aggregation's completion naming another buffer count
    # than its start, "bnxt_en 0000:83:00.0 enp131s0np0: TPA end agg_buf 2 != expected agg_bufs 1" (bnxt_tpa_end: a
    # wrong aggregation ID handed out, data possibly corrupted; a driver bug, lore netdev
    # 20251224191116.3526999-1-michael.chan@broadcom.com): the driver's warning. Part of an open bnxt event (a reset's
    # refusals), else one event of their own per function: a warning never opens the bnxt event, whose later stall or
    # probe failure would join it unseen. Was: no finding.
    _r("bnxt_hwrm_error", "nic_error", ["hwrm req_type 0x", "TPA end agg_buf"],
       r"bnxt_en (?P<pci>" + PCI + r")(?: [^:]*)?: (?:hwrm req_type (?P<req_type>0x[0-9a-f]+) seq id 0x[0-9a-f]+ error "
       r"(?P<error>0x[0-9a-f]+)|(?P<what>TPA end agg_buf) \d+ != expected agg_bufs \d+)",
       severity="warning", attribution="driver", event=("bnxt_refused|bnxt", "join")),
    # What bnxt_en says of routine refusals, no fault of the NIC's: a PTP TX timestamp the firmware did not give in
    # time, "bnxt_en 0000:67:00.0 eth0: TS query for TX timer failed rc = fffffff5" ("In busy networks, timestamp query
    # failures fairly regularly", lore netdev 20240125134104.2045573-1-leitao@debian.org and its review), and a tc flow
    # offered for offload it does not take, "bnxt_en 0000:19:00.1 eno2np1: Error: bnxt_tc_add_flow: cookie=0x..
    # error=-22" (hw-tc-offload off: "unnecessary dmesg error logs", lore stable 20211124115722.876571265@
    # linuxfoundation.org). Silent. Was: the unclassified net's warning for each (one a Node Event per function).
    _r("bnxt_routine", None, ["TS query for TX timer failed", "bnxt_tc_add_flow: "],
       r"bnxt_en " + PCI + r" \S+: (?:TS query for TX timer failed|Error: bnxt_tc_add_flow: )"),
    _r("bnxt_probe_failed", "nic_error", *_probe_failed("bnxt_en"), event=("bnxt", "join")),
    _r("bnxt_after", None, ["bnxt_en ", "bnxt_re"],
       r"(?:bnxt_en " + PCI + r":? (?:[\w.\-]+: )?|infiniband bnxt_re\d+: )(?:QPLIB: cmdq\[0x[0-9a-f]+\]=0x[0-9a-f]+ "
       r"send failed|Failed to (?:modify|destroy|create|allocate|register|query) (?:HW|[Ff]ence)|Couldn't (?:change QP1 "
       r"state|start port|open port|create ib_mad CQ)|Free MW failed|Resp cmpl intr err msg|hwrm_ring_free type \d+ "
       r"failed)", event=("bnxt", "within")),
    # AWS EFA (the efa kernel driver, efa_com.c: the RDMA NIC of p4d/p5/p6 instances): every verbs resource is made
    # through the device's admin queue, and a command it never completes closes the queue for good (the driver clears
    # its running bit; nothing reopens it but a reset of the device, on EC2 a stop and start): "The device didn't send
    # any completion for admin cmd CREATE_QP(6) status 0 (ctx 0x.., sq producer: 12, ..)" (6.x: "(id: 7, .."),
    # "The device sent a completion but the driver didn't receive any MSI-X interrupt for admin cmd ..", the polling
    # mode's "Wait for completion (polling) timeout", then "Admin queue is closed" at every later command; a reset
    # that failed ("Reset indication didn't turn on", ".. off", "Device isn't ready, can't reset device") and a
    # device not ready at probe ("Device isn't ready, abort com init 0x0"). Printed through ibdev_err ("infiniband
    # rdmap16s27: ..", "infiniband efa_0: ..") or, before the RDMA device exists, dev_err ("efa 0000:00:06.0: .."):
    # the ENA network driver and Alibaba's erdma print the same texts under their own prefixes (never these rows).
    # Fatal, one event per device while its lines repeat (NVSentinel's syslog monitor: fatal, REPLACE_VM). The
    # command's own verdict ("Failed to process command CREATE_QP (opcode 6) comp_status 1 err -62", "Failed to
    # submit command REG_MR (opcode 9) err -19") is part of the open event; alone (the device refused one command's
    # parameters), no finding (NVSentinel: non-fatal, no action). Was: no finding.
    _r("efa_admin_queue", "nic_error",
       ["any completion for admin cmd", "any MSI-X interrupt for admin cmd", "Wait for completion (polling) timeout",
        "Admin queue is closed", "Reset indication didn't turn", "Device isn't ready, "],
       EFA_PREFIX + r"(?P<what>The device (?:didn't send any completion|sent a completion but the driver didn't "
       r"receive any MSI-X interrupt) for admin cmd (?P<command>\w+)|Wait for completion \(polling\) timeout|"
       r"Admin queue is closed|Reset indication didn't turn (?:on|off)|"
       r"Device isn't ready, (?:can't reset device|abort com init))",
       severity="fatal", action="RESET_NIC", event=("efa", "join")),
    _r("efa_cmd_failed", None, ["Failed to process command", "Failed to submit command"],
       EFA_PREFIX + r"Failed to (?:process|submit) command \w+ \(opcode \d+\)", event=("efa", "within")),
    # Intel E810 RoCE (irdma, through the ice PCI function): the RDMA driver talks to the NIC through its control QP
    # (CQP); a command the device completed with an error prints the completion's codes, then the command and its
    # status: "ice 0000:4c:00.0 rocep76s0: cqp opcode = 0x1 maj_err_code = 0xffff min_err_code = 0x8003", "ice
    # 0000:4c:00.0 rocep76s0: [Modify QP Cmd Error][op_code=8] status=-29 waiting=1 completion_err=1 maj=0xffff
    # min=0x8003" (5.17; ibdev_err names the ice function and the RDMA device; 5.14 "irdma0: [Delete Local MAC Entry Cmd
    # Error][op_code=49] ..", 6.x before the device's registration "(NULL ib_device): [Update PE SDs Cmd Error]..."): one
    # failed command, as mlx5_cmd's (the driver's or the device's refusal: attribution driver). The device's protocol
    # engine failing ("critical PE Error, GLPE_CRITERR=0x00011424", its sibling "HMC Error": the driver resets the
    # function, every RDMA QP on it lost) is an event of its own. Was: no finding, every line of them.
    _r("irdma_cqp_error", "nic_error", ["Cmd Error][op_code=", " maj_err_code = "],
       r"(?:\bice (?P<pci>" + PCI + r") \S+: |\birdma\d*: |\(NULL ib_device\): |\binfiniband \S+: )"
       r"(?:\[(?P<command>[A-Za-z][\w ]{0,60}?) Cmd Error\]\[op_code=(?P<opcode>\d+)\] status=(?P<status>-?\d+)|"
       r"cqp opcode = (?P<cqp_opcode>0x[0-9a-f]+) maj_err_code = (?P<maj>0x[0-9a-f]+) min_err_code = (?P<min>0x[0-9a-f]+))",
       attribution="driver", event=("irdma", "join")),
    _r("irdma_pe_error", "nic_error", ["critical PE Error", "HMC Error"],
       r"(?:\bice (?P<pci>" + PCI + r") \S+: |\birdma\d*: |\binfiniband \S+: )(?P<what>critical PE Error|HMC Error)"
       r"(?:, GLPE_CRITERR=(?P<criterr>0x[0-9a-f]+)|\s*$)", event=("irdma", "open")),
    # Intel ice (and i40e: the same handler) answering the kernel's TX watchdog: "ice 0000:b1:00.0 ens801f0np0:
    # tx_timeout recovery level 1, txqueue 14" (6.8; older "hung_queue 3"), each level a wider reset (PF, core, global);
    # past the last, "tx_timeout recovery unsuccessful, device is in unrecoverable state." (i40e "non-recoverable
    # state.", before 5.10 "tx_timeout recovery unsuccessful"): the driver takes the device down for good (fatal, as
    # bnxt's firmware stall). The kernel's NETDEV WATCHDOG line before it is its own event, as for mlx5 and bnxt_en; the
    # "tx_timeout: VSI_num: .." state line carries no error. Was: no finding.
    _r("intel_tx_timeout_failed", "nic_error", ["tx_timeout recovery unsuccessful"],
       r"\b(?P<driver>ice|i40e) (?P<pci>" + PCI + r") (?P<netdev>\S+): tx_timeout recovery unsuccessful",
       severity="fatal", action="RESET_NIC", event=("intel_tx_timeout", "open")),
    _r("intel_tx_timeout", "nic_error", ["tx_timeout recovery level "],
       r"\b(?P<driver>ice|i40e) (?P<pci>" + PCI + r") (?P<netdev>\S+): tx_timeout recovery level (?P<level>\d+), "
       r"(?:txqueue|hung_queue) (?P<queue>-?\d+)", event=("intel_tx_timeout", "join")),
    # AWS ENA (ena: the primary network interface of an EC2 instance, p4d/p5 included: the kubelet's, the API server's,
    # storage's and NCCL's bootstrap sockets go through it, the GPU fabric through EFA). Its TX check (ena_netdev.c
    # check_missing_comp_in_tx_queue) notes each packet the device never completed, "ena 0000:00:05.0 eth0: Found a Tx
    # that wasn't completed on time, qid 2, index 961." (6.x adds ". N usecs have passed since last napi execution.
    # Missing Tx timeout value N msecs"), a netif_notice, one per packet: no finding alone (a "lead"). Past the
    # threshold, "The number of lost tx completions is above the threshold (156 > 128). Reset the device" (netif_err),
    # or the device's keep-alive lost ("Keep alive watchdog timeout."), the driver resets the device: the node's
    # network down for the reset, then back (amzn/amzn-drivers #147, #134: repeated on a host that kept doing it). A
    # warning, one event per device while its lines come; "Trigger reset is on" and the reset's statistics dump part of
    # it. Was: no finding, every line of them.
    _r("ena_tx_missing", None, ["wasn't completed on time"],
       r"\bena (?P<pci>" + PCI + r") \S+: Found a Tx that wasn't completed on time, qid \d+", event=("ena", "lead")),
    _r("ena_reset", "nic_error", ["lost tx completions is above the threshold", "Keep alive watchdog timeout"],
       r"\bena (?P<pci>" + PCI + r") (?P<netdev>\S+): (?P<what>The number of lost tx completions is above the threshold|"
       r"Keep alive watchdog timeout)(?: \((?P<lost>\d+) > (?P<threshold>\d+)\))?",
       severity="warning", action="MONITOR", event=("ena", "join")),
    _r("ena_after", None, ["Trigger reset is on"],
       r"\bena " + PCI + r" \S+: Trigger reset is on", event=("ena", "within")),
    # Azure MANA (mana, the VF of Azure's network adapter; mana_ib its RDMA side): every queue is made through the hardware
    # channel (HWC) to the adapter. A request it never answers, "mana 39d4:00:02.0: HWC: Request timed out!" (5.x-6.6;
    # 6.7+ "HWC: Request timed out: 30000 ms", later ".. ms for command 0x.."; then the driver waits 1 ms for every later
    # request: the channel is taken for dead), is the adapter not answering; a request it refused, "mana 7870:00:00.0:
    # HWC: Failed hw_channel req: 0xc000009a" (later "Command 0x.. failed with status: 0x.."), a failed command (as
    # mlx5_cmd's, attribution driver). What the driver then says of the queue it was making ("Failed to send mana message:
    # -110, 0x0", "enP14804s2: Failed to create WQ object: -110", "eth7: Failed to create RXQ: err = -71") is part of
    # it. Was: no finding, every line of them.
    _r("mana_hwc_timeout", "nic_error", ["HWC: Request timed out", "Command 0x"],
       r"\bmana (?P<pci>" + PCI + r"): (?:HWC: Request timed out|(?:\w+:\d+: )?Command (?P<command>0x[0-9a-f]+) timed "
       r"out: \d+ ms)", event=("mana", "join")),
    _r("mana_hwc_failed", "nic_error", ["HWC: Failed hw_channel req: ", "Command 0x"],
       r"\bmana (?P<pci>" + PCI + r"): (?:HWC: Failed hw_channel req: (?P<status>0x[0-9a-f]+)|(?:\w+:\d+: )?Command "
       r"(?P<command>0x[0-9a-f]+) failed with status: (?P<cmd_status>0x[0-9a-f]+))",
       attribution="driver", event=("mana", "join")),
    _r("mana_after", None, ["Failed to send mana message", "Failed to create ", "Failed to destroy "],
       r"\bmana " + PCI + r"(?: \S+)?: Failed to (?:send mana message|(?:create|destroy) (?:WQ object|RXQ|TXQ))",
       event=("mana", "within")),
    # HPE Slingshot (cxi_core, cxi_ss1 before it: the Cassini NIC of Cray EX / Slingshot GPU systems) reports each error
    # bit the NIC raised with its error class: "cxi_core 0000:c3:00.0: cxi3[hsn3]: C_EC_UNCOR_NS: C1_PCT error:
    # tct_cam_ucor (42) (was first error at 1689213438:290566940)", then the bit's info registers and counters on lines of
    # their own ("C_EC_UNCOR_NS: C_PCT_ERR_INFO_MEM 3f1d..", "C_EC_UNCOR_NS: mem_ucor_err_cntr: 1", no error of their
    # own). The driver's own levels (cxi_core's dump_flg_info) say which are faults: C_EC_SFTWR, _INFO, _TRS_*, _TRNSNT_*
    # are info (no finding; so is an uncorrectable "llr_eopb", info in the driver: a link's lost codewords, retried);
    # _BADCON_*, _COR warnings; _DEGRD_NS an error; _UNCOR_* and _CRIT critical, errors to reset the NIC for ("A node
    # reboot may be required for this uncorrectable error", HPE's cxi_healthcheck; an application's "UNDELIVERABLE"
    # traced to one, HPE's troubleshooting guide). Older drivers print no class ("cxi_core 0000:c1:00.0: HNI error:
    # pfc_fifo_oflw (46) ..", a QoS misconfiguration per HPE's docs): a warning; so is a PCIe read bypass abort, critical
    # by its class ("C_EC_CRIT: C_PI_IPD_EXT error: pri_rbyp_abort (44)"): the trace of a PCIe correctable error, HPE's
    # "Common CXI core error messages". Was: no finding.
    _r("cxi_error_info", None, ["cxi_core ", "cxi_ss1 "],
       r"\bcxi_(?:core|ss1) " + PCI + r": cxi\d+\[[^\]\n]*\]: (?:C_EC_(?:SFTWR|INFO|TRS_N?S|TRNSNT_N?S): [A-Z][A-Z0-9_]* "
       r"error: |C_EC_UNCOR_N?S: [A-Z][A-Z0-9_]* error: llr_eopb \()"),
    _r("cxi_error", "nic_error", ["cxi_core ", "cxi_ss1 "],
       r"\bcxi_(?:core|ss1) (?P<pci>" + PCI + r"): (?:cxi\d+\[[^\]\n]*\]: (?P<error_class>C_EC_[A-Z_]+): )?"
       r"(?P<block>[A-Z][A-Z0-9_]*) error: (?P<error>[a-z]\w*) \((?P<bit>\d+)\)", refine="cxi"),
    # R535-R555's mitigation of N.4272659 prints "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid
    # context, skipping further processing" (at the kernel's info level: "6,3973,227996636,-;", leptonai/gpud
    # pkg/kmsg/testdata/kmsg.2.peermem.log), and NVIDIA's maintainer calls it "harmless" (Mellanox/nv_peer_memory #120,
    # drossetti 2024-11-15; gone from R560): a warning, not the module's error (users saw thousands before a CUDA
    # failure, which its own lines report). Was: error.
    _r("peermem_invalid_context", "peermem_error", ["nvidia-peermem"],
       r"nvidia-peermem (?P<function>nv_get_p2p_free_callback):\d+ ERROR (?P<text>detected invalid context, skipping "
       r"further processing)", severity="warning"),
    _r("peermem", "peermem_error", ["nvidia-peermem"],
       r"nvidia-peermem (?P<function>\w+):\d+ ERROR (?P<text>.+)"),
    # The GPU's peer-memory module (GPUDirect RDMA) could not load: built against another ib_core than the running
    # one (5.x+ "nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client", "nvidia_peermem:
    # Unknown symbol ib_register_peer_memory_client (err -22)"), or the older Mellanox module against an OFED without
    # the peer-memory API ("nv_peer_mem: Unknown symbol ib_register_peer_memory_client (err 0)"). One line per
    # symbol, again at each load attempt: one event per module while they repeat.
    _r("peermem_load", "peermem_error", ["nvidia_peermem: ", "nvidia-peermem: ", "nv_peer_mem: "],
       r"(?P<device>nvidia[_-]peermem|nv_peer_mem)" + SYMBOL_FAILED, event=("peermem_load", "join")),
    # GPU memory that could not be pinned for GPUDirect RDMA: gdrcopy's gdrdrv refused by the driver's
    # nvidia_p2p_get_pages ("gdrdrv:nvidia_p2p_get_pages(va=704fe0000 len=327680 p2p_token=0 va_space=0) failed [ret =
    # -22]", NVIDIA/gdrcopy #30: a driver and CUDA combination that did not work; 2.x's "gdrdrv:__gdrdrv_pin_buffer:..
    # callback=..) failed [ret = -22]" after the driver's own reason, "NVRM: Invalid argument in nv_p2p_get_pages,address
    # or length are not aligned address=0x.., length=0x..", gdrcopy #299: the 555 open driver refusing unaligned pins),
    # and an RDMA NIC's memory registration that got no pages ("mlx5_warn:mlx5_0:mlx5_ib_reg_user_mr:1418:(pid 23265):
    # umem get failed (-14)", gdrcopy #1; 4.x's "mlx5_0:mr_umem_get:709:(pid 15855): umem get failed (..)", GPU memory
    # over 128 MB, Mellanox/nv_peer_memory #27). The node's driver set-up or the program's request, not the hardware: a
    # warning, no condition (a GPU's CUDA calls work). A pinning loop prints them by the thousand, interleaved across
    # its processes (gdrcopy #1, which asked gdrdrv to rate-limit them): one event while they come. Was: nothing for
    # gdrdrv's; the unclassified net's warning for mlx5's and NVRM's, a Node Event each.
    _gdr_pin("gdr_pin_unaligned", ["in nv_p2p_get_pages,"],
       r"NVRM: (?P<text>Invalid argument in (?P<function>nv_p2p_get_pages),address or length are not aligned) "
       r"address=0x[0-9a-f]+, length=(?P<length>0x[0-9a-f]+)"),
    _gdr_pin("gdr_pin_failed", ["gdrdrv:"],
       r"gdrdrv:(?:\w+:)?(?P<function>nvidia_p2p_get_pages)\(va=[0-9a-fx]+ len=(?P<length>\d+) [^()\n]*\) "
       r"failed \[ret = (?P<errno>-?\d+)\]"),
    # An RDMA registration the kernel refused with EOPNOTSUPP (-95) is of file-system DAX memory (persistent memory:
    # 4.15+'s long-term pin refused on an fsdax mapping), no GPU's: "mlx5_1:mr_umem_get:766:(pid 63518): umem get
    # failed (-95)" after "ib_umem_get: failed to get user pages, nr_pages=512, flags=1", librpmem's pool on simulated
    # pmem (pmem/issues #868: "ibv_reg_mr returns -EOPNOTSUPP"); a GPU's pin fails with the driver's errno (-14, -22,
    # nvidia_p2p_get_pages' -ENOTSUPP 524). The program's request for memory RDMA cannot pin: no finding (was: a
    # peermem_error warning).
    _r("umem_get_dax", None, ["umem get failed"],
       r"\bmlx5_\d+:(?:mlx5_ib_reg_user_mr|mr_umem_get):\d+:\(pid \d+\): umem get failed \(-95\)"),
    _gdr_pin("umem_get_failed", ["umem get failed"],
       r"\b(?P<ib_dev>mlx5_\d+):(?P<function>mlx5_ib_reg_user_mr|mr_umem_get):\d+:\(pid (?P<pid>\d+)\): umem get failed"
       r"(?: \((?P<errno>-?\d+)\))?"),
    # GPUDirect Storage's nvidia-fs refused the GPU buffer a cuFile registration asked it to pin (nvfs-core.c
    # nvfs_pin_gpu_pages): by the driver's nvidia_p2p_get_pages ("nvidia-fs:nvfs_pin_gpu_pages:1292 Error ret -22
    # invoking nvidia_p2p_get_pages", its va_start/va_end on a continuation line: NVIDIA/gds-nvidia-fs #14, a GeForce
    # that GPUDirect does not support; _persistent's alike), or its page table of another version than the module was
    # built for ("nvidia-fs:nvfs_pin_gpu_pages:1383 Incompatible page table version 0x00020000", gds-nvidia-fs #66:
    # nvidia-fs 2.26.6 under a newer driver, a kernel BUG in its nvfs-stat.c after it, the oops's own finding; gdrdrv's
    # "incompatible page table version 0x.." alike). And gdrdrv's mapping of pinned GPU memory to the process failing
    # (gdr_map's EAGAIN): 2.x's "gdrdrv:gdrdrv_remap_gpu_mem:error in gdrdrv_io_remap_pfn_range()" then
    # "gdrdrv:gdrdrv_mmap:error -11 in gdrdrv_remap_gpu_mem" (gdrcopy #240, a p4d's kernel), "error -22 in
    # gdrdrv_remap_gpu_mem(vaddr=..", "error -22,  in remap_pfn_range()" (#199), 1.x's "gdrdrv:error in
    # remap_pfn_range() ret:-22", "gdrdrv:error -11 in gdrdrv_mmap_phys_mem_wcomb", "gdrdrv:track_pfn_remap failed
    # :-22" (#44, "not a bug"), every era's "Error N in __gdrdrv_io_remap_pfn_range chunk_vaddr=..". The node's driver
    # set-up or the program's request, as a failed pin: a warning, no condition, one gdr_pin event while they come
    # (was: nothing).
    _gdr_pin("gds_pin_failed", ["nvidia-fs:nvfs_pin_gpu_pages:"],
       r"nvidia-fs:(?P<function>nvfs_pin_gpu_pages):\d+ Error ret (?P<errno>-?\d+) invoking nvidia_p2p_get_pages"
       r"(?:_persistent)?\b"),
    _gdr_pin("gdr_page_table", ["ncompatible page table version"],
       r"(?P<module>nvidia-fs|gdrdrv):(?:(?P<function>\w+):)?(?:\d+ )?(?P<text>[Ii]ncompatible page table version) "
       r"(?P<version>0x[0-9a-f]+)"),
    _gdr_pin("gdr_map_failed", ["gdrdrv:"],
       r"gdrdrv:(?:\w+:)?(?:[Ee]rror (?:(?P<errno>-?\d+),? {1,2})?in (?P<function>_{0,2}gdrdrv_\w+|(?:io_)?remap_pfn_range|"
       r"remap_page_range)\b|track_pfn_remap failed :-?\d+)"),
    # Fabric Manager on an NVLink5 rack's NVSwitch trays (GB200 / GB300 NVL72: NMX-C's fabricmanager.log) reporting an
    # error on a GPU's NVLink port, as a block: "[Jul 19 2025 18:34:55] [ERROR] [tid 192] Fabric Manager detected GPU
    # NVL Non Fatal error on :", then one "key : value" line each ("moduleId : 1", "gpuGuid : 0xb0cf0e0300e42e00",
    # "portNum : 61", "errorCode : 0x02", .., "errorDebugData : .."), a blank line after. The header is the finding
    # (FM_NVL_FATALITY: "Fatal" the kind's own error, the GPU's NVLink down until it is reset; "Non Fatal" a warning);
    # the block's GPU (its fabric GUID: FM names no PCI address) and port are its details (EVENT_FILL_ALONE), its other
    # lines part of it. Was: no finding (no "NVLink" word).
    _r("fm_gpu_nvl_error", "nvlink", ["detected GPU NVL "],
       r"Fabric Manager detected GPU NVL (?P<fatality>Non Fatal|Fatal) error on\b", refine="fm_nvl", event=FM_NVL_OPEN),
    _r("fm_gpu_nvl_field", None, ["gpuGuid : ", "portNum : "],
       r"^\s*(?:gpuGuid : (?P<gpu_guid>0x[0-9A-Fa-f]{1,16})|portNum : (?P<port>\d{1,5}))\s*$",
       event=(FM_NVL_OPEN[0], "within")),
    # The same Fabric Manager finding a trunk (NVSwitch-to-NVSwitch) port down: "[WARNING] [tid 134] Trunk port failure
    # detected for switch GUID 0x.. and switch chassis sn 1825124190179, slot 7 port number 61 port GUID 0x.. cage 7."
    # The rack's fabric lost a link between switch trays (the partition's bandwidth less, or the partition failed): the
    # fabric's, a warning as FM logs it, the cable cartridge or the switch tray to check. Was: no finding.
    _r("fm_trunk_port_failure", "nvlink", ["Trunk port failure detected"],
       r"Trunk port failure detected for switch GUID (?P<switch_guid>0x[0-9A-Fa-f]{1,16})\b"
       r"(?:.*?\bport number (?P<port>\d{1,5}))?",
       severity="warning", attribution="fabric", action="CHECK_CABLE"),
    # The IMEX daemon's (nvidia-imex, multi-node NVLink: GB200 / GB300 NVL72) [ERROR] lines, in its log (Fabric
    # Manager's envelope, "[Mar 21 2025 20:45:38] [ERROR] [tid 39] ..") or as the DRA driver's ComputeDomain daemon
    # prints them ("[ERROR] Failed to .."). A memory export it failed, on the exporting node: "Failed to get new memory
    # reference with rc: 87", "Failed to allocate memory reference.", "Failed to get export ref for UUID: <uuid> for
    # request from node id 0"; and on the importing node "Received import response from node id 0 with failure status
    # 3" (580.105.08 on GB200 / GB300, kubernetes-sigs/dra-driver-nvidia-gpu #948): the lines of one failed request,
    # one event. Were no finding (no kind fitted; the unclassified net reads driver lines only).
    _r("imex_memory_ref", "imex_error",
       ["new memory reference", "allocate memory reference", "get export ref for", "import response from node"],
       r"Failed to (?:get new memory reference with rc: (?P<rc>\d+)|allocate memory reference\b|get export ref for "
       r"UUID: \S+ for request from node id (?P<node_id>\d+))|"
       r"Received import response from node id (?P<peer_node_id>\d+) with failure status (?P<status>\d+)",
       event=("imex", "join")),
    # The IMEX daemon could not start: no network interface of the node holds an address its node configuration lists
    # (the daemon started before the interface had its address, or a wrong nodes_config.cfg): "No matching network
    # interface found for any IP addresses in the node configuration file /etc/nvidia-imex/nodes_config.cfg."
    # (kubernetes-sigs/dra-driver-nvidia-gpu #298 quotes it whole, #289 with its envelope): no multi-node NVLink memory
    # on this node until it is restarted.
    _r("imex_no_interface", "imex_error", ["No matching network interface found"],
       r"No matching network interface found for any IP addresses in the node configuration file"
       r"(?: (?P<config>/\S+?))?\.?\s*$"),
    # DCGM's IMEX health watch (DCGM_FR_IMEX_UNHEALTHY, 4.x on multi-node NVLink nodes) as a health monitor relays it:
    # "IMEX domain status is DEGRADED (unhealthy) Check IMEX installation, configuration, domain and daemon status, and
    # network connectivity." (Azure CycleCloud's HealthAgent on a GB200 / GB300 NVL72 node whose nvidia-imex service
    # was installed but not started, linux-system-roles/hpc #85): the node's IMEX domain not whole, its multi-node
    # NVLink memory unusable with the nodes it lacks, the IMEX's to check. A warning: DCGM reads the host's service,
    # and where the DRA driver's ComputeDomain daemons run IMEX in pods the watch is false (NVIDIA/DCGM #308). The
    # same watch's "IMEX daemon status is -3 (not READY)" (NVIDIA/NVSentinel #1471, NVIDIA/aicr #2641) stays silent: no
    # daemon runs on a node without a ComputeDomain or without a multi-node NVLink domain at all (a single-node
    # NVSwitch system), healthy by design. Was nothing.
    _r("imex_domain_unhealthy", "imex_error", ["IMEX domain status is "],
       r"IMEX domain status is (?P<imex_status>DOWN|DEGRADED) \(unhealthy\)", severity="warning"),
    # The DRA driver's ComputeDomain daemon's health check (`compute-domain-daemon check`, its startup, readiness and
    # liveness probes) when the node's IMEX daemon does not answer ready: "nvidia-imex-ctl failed (exit status 1),
    # stdout/err: [...]" (klog's, as `kubectl describe` shows it: "Startup probe failed: E1002 11:14:54.489874 71
    # main.go:353] nvidia-imex-ctl failed ..", kubernetes-sigs/dra-driver-nvidia-gpu #636). The node's IMEX not ready
    # (its peers not connected, the daemon not started): a warning (a probe retries; the pod restarts where it goes on
    # failing), the IMEX's to check. Was nothing.
    _r("imex_ctl_check_failed", "imex_error", ["nvidia-imex-ctl failed"],
       r"\bnvidia-imex-ctl failed \((?P<exit>exit status \d{1,3}|signal: \w{1,20})\)", severity="warning"),
    # --- generic kernel ---
    # A kernel oops / BUG / GPF whose faulting instruction is in a GPU or NIC driver: the trace's RIP (x86; `IP:`
    # on 4.x and older kernels) or pc (arm64; `PC is at` on 4.14 and older) line names the module in brackets.  The other trace lines match no
    # row; the register dump some kernels repeat after `end trace` repeats the RIP line (the same event again).
    # Severity error, not fatal. A WARN trace prints the same RIP line as an oops: its severity is the report's (STATED
    # "oops", the header row below: a WARN's a warning, DRIVER_WARN_STATED; an oops's or a BUG's, or none seen, the
    # kind's error).
    _r("kernel_oops", "kernel_oops", OOPS_KEYWORDS,
       OOPS_AT + r"(?P<module>" + DRIVER_OOPS_MODULE + r")" + OOPS_MODULE_END,
       event=("panic|lockup|rcu_stall", "join")),
    # The same in a shared filesystem's client module (STORAGE_CLIENT_MODULES: BeeGFS, Lustre / LNet, NFS / sunrpc,
    # CephFS, GPFS, WekaFS): its mount broken until a reboot (storage_oops, an error). Its severity is the report's
    # (STATED "oops", the header row below): a WARN trace's ("WARNING: CPU: 2 PID: 1 at fs/..", the kernel goes on) a
    # warning, an oops's or a BUG's (or none seen) the kind's error. A module only listed in "Modules linked in:" is
    # no RIP line's: nothing.
    # A call trace's frame in a GPU or NIC driver's module (DRIVER_OOPS_MODULE; driver_frame) or a shared filesystem's
    # client module (STORAGE_CLIENT_MODULES; storage_frame), every era's form (5.x+ " os_acquire_rwlock_read+0x35/0x50
    # [nvidia]", " nfs_wait_on_request.part.0+0x3f/0x50 [nfs]", the unwinder's guess " ? _nv012345rm+0x1e/0x40
    # [nvidia]", 2.6-4.x " [<ffffffffc05523b4>] llog_process_or_fork+0x244/0x450 [obdclass]", 6.x's build id in the
    # brackets): no finding, part of an open CPU lockup, RCU stall or hung task report, the module and function of its
    # innermost such frame the report's finding's where its RIP line named none (EVENT_FILL_ALONE; a RIP in the
    # kernel's spinlock or rwsem code, the lock taken by the driver: the frames say whose), with a storage client's
    # filesystem (details "filesystem", EVENT_FILL_DETAILS: a task blocked on an NFS server, a Lustre target, a
    # checkpoint's write) and the row's attribution (EVENT_FILL_ATTRIBUTION): a GPU or NIC driver's frame "driver" (the
    # task waits on the driver, as the oops rows' kinds say of its code); a storage client's the kind's unknown (the
    # task waits on the server or the network behind the client, as nfs_error's). With none open, what the
    # unclassified net makes of it, as before. A line-start anchor: no RIP, pc or lr line (those are the rows above's).
    # The server's modules (nfsd, a Lustre target's) are no client's: nothing.
    _r("driver_frame", None, FRAME_KEYWORDS, FRAME_AT + r"(?P<module>" + DRIVER_OOPS_MODULE + r")" + OOPS_MODULE_END,
       attribution="driver", event=("lockup|rcu_stall|hung", "within")),
    _r("storage_frame", None, FRAME_KEYWORDS, FRAME_AT + r"(?P<module>" + STORAGE_CLIENT_MODULE + r")" + OOPS_MODULE_END,
       refine="storage_oops", event=("lockup|rcu_stall|hung", "within")),
    _r("storage_oops", "storage_oops", OOPS_KEYWORDS,
       OOPS_AT + r"(?P<module>" + STORAGE_CLIENT_MODULE + r")" + OOPS_MODULE_END, refine="storage_oops",
       event=("panic|lockup|rcu_stall", "join")),
    # A WARN's first line that names the module of the WARN site, one the rows above read ("WARNING: CPU: 3 PID: 3964 at
    # /var/lib/dkms/nvidia/510.60.02/build/nvidia/nv.c:3935 nv_restore_user_channels+0xce/0xe0 [nvidia]", every era's
    # form: WARN_AT): the module's WARN (kernel_oops, storage_oops), a warning as the RIP line after it is
    # (DRIVER_WARN_STATED, OOPS_STATED), so a report whose RIP line is not in the log (2.6-4.10's WARN prints none; a
    # grep excerpt, a rate-limited console) is still the module's WARN. It is the report's first line as oops_header's
    # below ("begin", its `function` the WARN site's) and opens the report's event with its finding, the RIP line of the
    # same function part of it: one finding per report. Was no finding (open-gpu-kernel-modules #795, #834,
    # linux-surface #789).
    _warn_header("kernel_warn_header", "kernel_oops", DRIVER_OOPS_MODULE, DRIVER_WARN_STATED),
    _warn_header("storage_warn_header", "storage_oops", STORAGE_CLIENT_MODULE, OOPS_STATED, refine="storage_oops"),
    # An oops's die line, which every x86 and arm64 oops prints before its registers (its "[#N]" the die counter: x86
    # "Oops: 0002 [#1] PREEMPT SMP NOPTI" after "BUG: kernel NULL pointer dereference" / "BUG: unable to handle page
    # fault", "general protection fault, probably for non-canonical address 0x..: 0000 [#1] SMP NOPTI", "invalid
    # opcode: 0000 [#1] PREEMPT SMP NOPTI" after "kernel BUG at ..!"; arm64 "Internal error: Oops: 96000005 [#1] ..",
    # "Internal error: Oops - BUG: .. [#1]"), and a WARN's first line ("WARNING: CPU: 13 PID: 55768 at .."; one naming
    # a module the oops rows read is the warn_header rows' above): no finding (the RIP line after it says whose code
    # faulted, kernel_oops above), but it ends an open lockup or RCU stall report,
    # so that RIP line is the oops's, not the lockup's register dump (arm64's "Internal error: synchronous external
    # abort: .. [#1]" is a panic row's below, not this). Three keywords, not one per header form: every line of a log
    # pays for the keyword scan's size.
    # It ends the open panic event where it starts another report than the event's (EVENT_REPORTS; `die`: its die
    # counter). It also says which report the RIP line after it is in ("begin" of the "oops" event: STATED,
    # OOPS_STATED): a WARN's (every era's first line: 4.x-6.x "WARNING: CPU: 13 PID: 55768 at fs/..", 2.6 / 3.x
    # "WARNING: at fs/..", 6.19+ "WARNING: drivers/..:164 at func+0x../0x.. [mod], CPU#0: comm/429"; WARN_AT, its
    # `function` the WARN site's) is a warning, an
    # oops's an error: its die line, or the "BUG:" line before it, which on 4.x and older comes before the "IP:" line ("BUG: unable to
    # handle kernel NULL pointer dereference at 0000000000000020", then "IP: [<ffffffffa0879063>] .. [zfs]", then
    # "Oops: 0000 [#1] SMP"; 4.17+ "BUG: unable to handle page fault for address:", 5.x+ "BUG: kernel NULL pointer
    # dereference, address:").
    _r("oops_header", None, [" [#", "WARNING: ", "BUG: "],
       r"(?=(?P<stated>WARNING)?)(?:(?:Oops|general protection fault|invalid opcode|stack segment|double fault|"
       r"divide error)[^\n]{0,200}? \[#(?P<die>\d+)\]|"
       r"WARNING: " + WARN_AT + r"(?:" + OOPS_SYMBOL + r")?|"
       r"BUG: (?:unable to handle |kernel NULL pointer dereference))",
       event=("lockup|rcu_stall|hung|oops|panic", "begin")),
    # A report's last line, every era ("---[ end trace 0000000000000000 ]---", 2.6-5.x a random id "---[ end trace
    # e9fbabfbe54ce83a ]---", Talos' console "---[end trace .. ]---"): the open panic event's report ended, the next
    # report's first line starts the next event (EVENT_REPORTS); the lines after it that are no report's first stay in
    # it. No finding.
    _r("oops_end", None, ["end trace"], r"---\[ ?end trace(?: [0-9a-f]+)? \]---", event=("panic", "end")),
    # kernel_panic: the node's kernel died (parsers/kinds.py), one event ("panic") with the lines that say why: the
    # oops in a GPU / NIC module above (its RIP line a "join" of the event: the module's oops then its "Kernel panic -
    # not syncing: Fatal exception" is one kernel_oops finding, the panic absorbed, as the repeated RIP line after "end
    # trace" is; not amended: kernel_oops is already the node's fault, RESTART_BM, and an amendment is of its own kind),
    # arm64's SError ("SError Interrupt on CPU3, code 0xbe000011 -- SError", then "Kernel panic - not syncing:
    # Asynchronous SError Interrupt") and kernel-mode synchronous external abort ("Internal error: synchronous
    # external abort: 0000000096000410 [#1]  SMP", a die(): then "Kernel panic - not syncing: synchronous external
    # abort: Fatal exception" where panic_on_oops or in interrupt), the panic line and its closing "---[ end Kernel
    # panic - not syncing: <why> ]---": each a "join" (the first seen is the finding, a grep excerpt of any one line
    # still one). Was no finding at all (gpud flags a panic; a panicked node is its job's root cause).
    # Attribution hardware where the kernel says a hardware error killed it (PANIC_HARDWARE: a machine check, an SError,
    # an external abort, a firmware-first record's fatal error, the I/O check NMI), else the kind's (unknown: a kernel
    # bug, a detector set to panic, no memory left, a watchdog's NMI). "Fatal hardware error!" (ghes.c) was unknown
    # (lore 20241227035459.90602-1-yue.zhao@shopee.com).
    _r("kernel_panic_end_hardware", "kernel_panic", ["end Kernel panic - not syncing"],
       r"---\[ end Kernel panic - not syncing: (?=[^\n]*?(?:" + PANIC_HARDWARE + r"))(?P<why>[^\n]*?) ?\]---",
       attribution="hardware", event=("panic", "join")),
    _r("kernel_panic_end", "kernel_panic", ["end Kernel panic - not syncing"],
       r"---\[ end Kernel panic - not syncing: ?(?P<why>[^\n]*?) ?\]---", event=("panic", "join")),
    _r("arm64_serror", "kernel_panic", ["SError Interrupt on CPU"],
       r"SError Interrupt on CPU(?P<cpu>\d+), code (?P<esr>0x[0-9a-f]+) -- (?P<why>\w[\w ]*)",
       attribution="hardware", event=("panic", "join")),
    _r("arm64_external_abort", "kernel_panic", ["Internal error: synchronous external abort"],
       r"Internal error: (?P<why>synchronous external abort): (?P<esr>[0-9a-f]+) \[#\d+\]",
       attribution="hardware", event=("panic", "join")),
    _r("kernel_panic_hardware", "kernel_panic", ["Kernel panic - not syncing"],
       r"Kernel panic - not syncing: (?=[^\n]*?(?:" + PANIC_HARDWARE + r"))(?P<why>[^\n]*\S)",
       attribution="hardware", event=("panic", "join")),
    # A WARN the kernel was told to die of (panic_on_warn, kernel/panic.c: 4.x-6.1 "Kernel panic - not syncing:
    # panic_on_warn set ...", 6.2+ check_panic_on_warn's "Kernel panic - not syncing: kernel: panic_on_warn set ...",
    # after the WARN's RIP line): a panic of its own ("open"), not part of the WARN's event, whose finding is a warning
    # (DRIVER_WARN_STATED, OOPS_STATED) where the node lived on; the panic's closing line part of it.
    _r("kernel_panic_on_warn", "kernel_panic", ["panic_on_warn set"],
       r"Kernel panic - not syncing: (?P<why>(?:\w+: )?panic_on_warn set\b)", event=("panic", "open")),
    _r("kernel_panic", "kernel_panic", ["Kernel panic - not syncing"],
       r"Kernel panic - not syncing: ?(?P<why>[^\n]*\S)?", event=("panic", "join")),
    # netdev_stuck: a network device whose last reference the kernel waits for: the line again every 10 s while it does,
    # each a finding (as a soft lockup's): the problem stands while they come, expires once they stop
    _r("netdev_stuck", "netdev_stuck", ["unregister_netdevice: waiting for"],
       r"unregister_netdevice: waiting for (?P<device>\S+) to become free\. Usage count = (?P<count>-?\d+)"),
    # kernel_table_full: a node-wide kernel table full, the line again (rate-limited) while it stays full, each a
    # finding as netdev_stuck's. Connection tracking (nf_conntrack_core.c: 2.6's "ip_conntrack: table full, dropping
    # packet." and "nf_conntrack: table full, dropping packet.", 3.x-4.x without the stop, 4.x+ "nf_conntrack:
    # nf_conntrack: table full, .." (the module's pr_fmt prefix and net_warn_ratelimited's own): kubernetes/kubernetes
    # #18604, #71261, kubernetes-retired/kube-aws #476, canonical/hotsos #101) and the system-wide file table
    # (fs/file_table.c "VFS: file-max limit <n> reached": leptonai/gpud #224, SukkaW/Koolshare-Clash #14).
    _r("conntrack_table_full", "kernel_table_full", ["table full, dropping packet"],
       r"\b(?:nf|ip)_(?P<table>conntrack): (?:nf_conntrack: )?table full, dropping packet"),
    _r("file_max_reached", "kernel_table_full", ["file-max limit"],
       r"\bVFS: (?P<table>file-max) limit (?P<limit>\d+) reached", severity="error"),  # every open fails: KernelDegraded
    # A process crashed in user space: the kernel's one line per fatal fault it signalled (show_signal_msg, x86's
    # arch/x86/mm/fault.c: "<comm>[<pid>]: segfault at <addr> ip <ip> sp <sp> error <code> in <library>[<base>+<size>]",
    # 6.x "in <library>[<offset>,<base>+<size>] likely on CPU n (core c, socket s)", a jump to nowhere naming no library;
    # arch/x86/kernel/traps.c: "traps: <comm>[<pid>] general protection fault ip:<ip> sp:<sp> error:0 in <library>[..]"
    # (SIGSEGV), "traps: <comm>[<pid>] trap invalid opcode ip:.." (do_trap: SIGILL; "divide error" SIGFPE, ..). The
    # library it died in says whose code crashed: the GPU driver's user-space libraries (libcuda, libnvidia-*),
    # NCCL's, PyTorch's, the program's own (CRASH_STACKS). 6.x's "Code: <bytes>" line after it matches no row. A warning,
    # no condition: a program's crash breaks no node (triage reads it as explaining a rank's death by that signal).
    _r("process_segfault", "process_crash", ["]: segfault at "],
       r"(?P<process>[^\s\[\]]{1,64})\[(?P<pid>\d+)\]: segfault at (?P<address>[0-9a-f]+) ip (?P<ip>[0-9a-f]+) "
       r"sp [0-9a-f]+ error (?P<error>\d+)(?: in (?P<library>[^\s\[]{1,256})\[)?", refine="crash"),
    _r("process_trap", "process_crash", ["] general protection fault ip:", "] trap "],
       r"traps: (?P<process>[^\[\n]{1,64}?)\[(?P<pid>\d+)\] (?P<trap>general protection fault|trap [A-Za-z0-9 ]{1,40}?) "
       r"ip:(?P<ip>[0-9a-f]+) sp:[0-9a-f]+ error:(?P<error>[0-9a-f]+)(?: in (?P<library>[^\s\[]{1,256})\[)?",
       refine="crash"),
    _r("hung_task", "hung_task", ["blocked for more than"],
       r"task (?P<process>.+?):(?P<pid>\d+) blocked for more than (?P<seconds>\d+) seconds", event=("hung", "open")),
    # The task holding the lock a hung task waits on (6.14+ CONFIG_DETECT_HUNG_TASK_BLOCKER, kernel/hung_task.c
    # debug_show_blocker, after the hung task's trace: "INFO: task <comm>:<pid> is blocked on a mutex likely owned by
    # task <comm>:<pid>.", "INFO: task <comm>:<pid> blocked on a semaphore likely last held by task <comm>:<pid>", 6.16+
    # "INFO: task <comm>:<pid> <reader> blocked on an rw-semaphore likely owned by task <comm>:<pid> <writer>"), then
    # that task's own trace: part of the hung task's report (a join: the trace after it within the report's window, so
    # the holder's frames in the GPU driver say whose hang it is: open-gpu-kernel-modules #1289's compositor waiting on
    # nvidia-modeset's kthread spinning in the driver), the holder its detail ("owner"); the hung task's line lost, its
    # finding (the task it names).
    _r("hung_task_blocker", "hung_task", ["likely owned by task", "likely last held by task"],
       r"task (?P<process>.+?):(?P<pid>\d+) (?:is )?(?:<\w+> )?blocked on an? (?P<lock>mutex|semaphore|rw-semaphore) "
       r"likely (?:owned|last held) by task (?P<owner>.+?:\d+)", event=("hung", "join")),
    # The pids controller refusing a fork or clone (kernel/cgroup/pids.c, 4.3+: "cgroup: fork rejected by pids
    # controller in <cgroup path>"): twosigma/nsncd #24 (a systemd unit's TasksMax), Icinga/icinga2 #4918 (dmesg -T,
    # again each hour while it lasts), Zilliqa/zq1 #151 (kern.log, a user's slice)
    _r("pids_fork_rejected", "pids_limit", ["fork rejected by pids controller"],
       r"\bcgroup: fork rejected by pids controller in (?P<cgroup>/\S*)"),
    # One event per kill, whichever of its lines survived: "<task> invoked oom-killer: gfp_mask=..", the memcg
    # "Task in <cgroup> killed as a result of limit of <cgroup>" (kernels before 4.19), "oom-kill:constraint=..,
    # task=<name>,pid=<n>,..", "Kill process <n> (<name>) score <s> or sacrifice child" (before 4.19), "Killed
    # process <n> (<name>)" (with or without "Out of memory: " / "Memory cgroup out of memory: "), and
    # "oom_reaper: reaped process <n> (<name>)". Each comes once per kill (OOM_ONCE): the first seen is the
    # finding, a second of the same line starts the next kill. Whose memory ran out (details "oom", OOM_WORDS) is
    # said by the constraint, the "Task in" line and the words before "Kill(ed) process"; a later line of the kill
    # gives it to a finding that lacks it (EVENT_FILL_ALONE: the "invoked oom-killer" line says nothing of it).
    _r("oom_invoked", "oom_kill", ["invoked oom-killer"], r"invoked oom-killer: ",
       event=OOM_ONCE),
    _r("oom_memcg_task", "oom_kill", ["killed as a result of limit"],
       r"Task in (?P<cgroup>\S+) (?P<oom>killed as a result of limit) of (?P<limit_cgroup>\S+)",
       refine="oom", event=OOM_ONCE),
    _r("oom_constraint", "oom_kill", ["oom-kill:constraint="],
       r"oom-kill:constraint=(?P<constraint>\w+)(?:.*?,task_memcg=(?P<cgroup>[^,]*))?"
       r"(?:.*?,task=(?P<process>[^,]*),pid=(?P<pid>\d+))?",
       refine="oom", event=OOM_ONCE),
    _r("oom_sacrifice", "oom_kill", ["sacrifice child"],
       r"(?:(?P<oom>Memory cgroup out of memory|Out of memory)(?: \(oom_kill_allocating_task\))?: )?"
       r"Kill process (?P<pid>\d+) \((?P<process>[^)]*)\) score \d+ or sacrifice child",
       refine="oom", event=OOM_ONCE),
    _r("oom_kill", "oom_kill", ["Killed process"],
       r"(?:(?P<oom>Memory cgroup out of memory|Out of memory)(?: \(oom_kill_allocating_task\))?: )?"
       r"Killed process (?P<pid>\d+)(?:, UID \d+,)? \((?P<process>[^)]*)\)",
       refine="oom", event=OOM_ONCE),
    _r("oom_reaper", "oom_kill", ["oom_reaper: reaped process"],
       r"oom_reaper: reaped process (?P<pid>\d+) \((?P<process>[^)]*)\)",
       event=OOM_ONCE),
    # --- the host around the GPUs (kinds cpu_lockup, rcu_stall, memory_error, nfs_error, filesystem_error,
    # nvme_error; their conditions and condition rules in the kind table, parsers/kinds.py) ---
    # cpu_lockup: the soft-lockup watchdog (3.x "BUG: soft lockup - CPU#3 stuck for 23s! [proc:pid]", 4.x+
    # "watchdog: BUG: soft lockup - ...", older "NMI watchdog: BUG: ...") and the hard-lockup detector.
    _r("soft_lockup", "cpu_lockup", ["soft lockup"],
       r"BUG: soft lockup - CPU#(?P<cpu>\d+) stuck for (?P<seconds>\d+)s! \[(?P<process>[^\]\n]*?):(?P<pid>\d+)\]",
       event=LOCKUP_OPEN),
    _r("hard_lockup", "cpu_lockup", ["hard LOCKUP"], r"Watchdog detected hard LOCKUP on cpu (?P<cpu>\d+)",
       event=LOCKUP_OPEN),
    # POWER's own watchdog (arch/powerpc/kernel/watchdog.c): 4.x "Watchdog CPU:59 Hard LOCKUP", 5.x+ "watchdog: CPU
    # 19 self-detected hard LOCKUP @ <fn>" and, from the CPU that saw others stuck, 4.x "Watchdog CPU:71 detected Hard
    # LOCKUP other CPUS:42" (open-power/op-build #2035, 4.15), 5.x+ "watchdog: CPU 12 detected hard LOCKUP on other
    # CPUs 13-15"
    _r("hard_lockup_powerpc", "cpu_lockup", ["Hard LOCKUP", "hard LOCKUP"],
       r"(?:Watchdog CPU:|CPU (?=\d+ self-))(?P<cpu>\d+) (?:Hard|self-detected hard) LOCKUP|"
       r"(?:Watchdog CPU:|CPU )(?P<reporter>\d+) detected (?:hard LOCKUP on other CPUs |Hard LOCKUP other CPUS:)"
       r"(?P<cpus>[\d,-]+)", event=LOCKUP_OPEN),
    # rcu_stall: one finding per stall report (3.x "INFO: rcu_sched_state detected stall on CPU 0 (t=..)",
    # "INFO: rcu_sched self-detected stall on CPU", 5.x+ "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:", and an
    # expedited grace period's, 4.x-6.x "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 3-.... } 235
    # jiffies s: 2269 root: 0x8/."); its "rcu_sched kthread starved for N jiffies!" line joins it (and opens one when
    # the header was lost).
    _r("rcu_stall", "rcu_stall", ["detected stall", "detected expedited stall"],
       r"(?P<flavor>rcu_\w+?)(?:_state)? (?:self-)?detected (?:expedited )?stalls? on CPU",
       event=("rcu_stall", "open")),
    _r("rcu_starved", "rcu_stall", ["kthread starved for"],
       r"(?P<flavor>rcu_\w+) kthread starved for (?P<jiffies>\d+) jiffies",
       event=("rcu_stall", "join")),
    # clocksource_unstable: the timekeeping watchdog's report, one event ("clocksource: timekeeping watchdog on CPU2:
    # Marking clocksource 'tsc' as unstable because the skew is too large:", 4.x without "on CPUn", 'tsc-early' at
    # boot; then "tsc: Marking TSC unstable due to clocksource watchdog", "TSC found unstable after boot, most likely
    # due to broken BIOS. Use 'tsc=unstable'.", each joining it and opening it when the first was lost).
    _r("clocksource_unstable", "clocksource_unstable", ["Marking clocksource"],
       r"clocksource: timekeeping watchdog(?: on CPU(?P<cpu>\d+))?: Marking clocksource '(?P<clocksource>[\w-]+)' as "
       r"unstable", event=("clocksource", "join")),
    _r("tsc_unstable", "clocksource_unstable", ["Marking TSC unstable due to clocksource", "TSC found unstable"],
       r"tsc: Marking TSC unstable due to clocksource watchdog|TSC found unstable after boot",
       event=("clocksource", "join")),
    # memory_error: a machine check report ("mce: [Hardware Error]: Machine check events logged" then CPU/Bank,
    # TSC, PROCESSOR lines; the EDAC driver's "HANDLING MCE MEMORY ERROR" block), one event; EDAC's own count
    # line says corrected (CE: warning) or uncorrected (UE: fatal, always its own finding). The count line names the
    # error where the driver gives it a message (Intel's "1 CE memory read error on CPU_SrcID#0_MC#0_Chan#1_DIMM#0
    # (..)") and none where it gives none (AMD's amd64_edac: "EDAC MC0: 1 CE on mc#0csrow#0channel#0 (csrow:0 ..)",
    # "EDAC MC0: 1 UE on mc#0csrow#0channel#0 (..)").
    # ghes_edac (firmware-first platforms: every arm64 server, Grace among them, and x86 ones with ghes_edac loaded)
    # decodes a firmware record's memory error section into the same count line, its message the section's error type
    # and its location the record's ("EDAC MC0: 1 CE Single-bit ECC on BANK 0 DIMM 1 (node:0 card:1 .. - APEI location:
    # node:0 ..)", "EDAC MC0: 1 UE Multi-bit ECC on unknown memory (.. - APEI location: ..)"): a line of the firmware
    # record's event (before or after the record's own lines, as the kernel's work queues run), its finding where the
    # record's lines were rate-limited away ("ghes_print_estatus: 1 callbacks suppressed"). A UE there is what the record
    # called recoverable (a fatal record panics before ghes_edac runs): an error, not a fatal. Were no finding (the
    # message "Multi-bit ECC" does not end in "error").
    _r("edac_ghes", "memory_error", ["APEI location:"],
       r"EDAC (?P<mc>MC\d+): (?P<count>\d+) (?P<ecc>[CU]E) (?:(?P<what>[\w -]*?) )?on (?P<dimm>.+?) \(",
       refine="edac_ghes", event=("cper", "join")),
    _r("edac_ue", "memory_error", [" UE "],
       r"EDAC (?P<mc>MC\d+): (?P<count>\d+) UE (?:(?P<what>[\w -]*?) )?on (?P<dimm>\S+)",
       severity="fatal", action="RESTART_BM", event=("mce", "open")),
    _r("edac_ce", "memory_error", [" CE "],
       r"EDAC (?P<mc>MC\d+): (?P<count>\d+) CE (?:(?P<what>[\w -]*?) )?on (?P<dimm>\S+)",
       event=("mce", "join")),
    # cpu_throttle: Intel's thermal interrupt (therm_throt.c), one event while the CPUs' lines come (a line per CPU,
    # core and package, each storm): 2.6.2x-5.5 "CPU3: Core temperature above threshold, cpu clock throttled (total
    # events = 8)" / "Package ..", 4.x-5.x with "mce: " before it, 2.6.x "CPU16: Temperature above threshold, cpu clock
    # throttled" (no level, no count), 5.6+ "CPU9: Package temperature is above threshold, cpu clock is throttled (total
    # events = 3)"; "temperature/speed normal" (5.6+ with "(total events = N)") is part of it, and alone opens it with
    # no finding (a "lead": an excerpt that starts after the throttling lines still keeps its machine checks apart).
    _r("cpu_thermal_throttle", "cpu_throttle",
       ["temperature above threshold", "Temperature above threshold", "temperature is above threshold"],
       r"CPU(?P<cpu>\d+): (?:(?P<level>Core|Package) )?[Tt]emperature (?:is )?above threshold, (?:cpu|CPU) clock "
       r"(?:is )?throttled(?: \(total events = (?P<events>\d+)\))?", event=("therm", "join")),
    _r("cpu_thermal_normal", None, ["temperature/speed normal", "Temperature/speed normal"],
       r"CPU\d+: (?:(?:Core|Package) )?[Tt]emperature/speed normal", event=("therm", "lead")),
    # 2.6.32-3.10's power limit notification (PLN): the CPU held under its power limit, as RAPL does on any laptop
    # under load; Red Hat took it out of RHEL 6.5's kernel as noise (access.redhat.com/solutions/134973): no finding,
    # part of a thermal event it comes in
    _r("cpu_power_limit", None, ["power limit notification", "power limit normal"],
       r"CPU\d+: (?:Core|Package) power limit (?:notification|normal)", event=("therm", "member")),
    # The thermal interrupt's machine-check record: kernels log each throttling transition as a machine check of the
    # thermal bank, 128 (MCE_THERMAL_BANK; a real machine check's bank is below 64), printed by the kernel where no
    # mcelog reads it ("mce: [Hardware Error]: CPU 2: Machine Check: 0 Bank 128: 00000000087f0022") and, in every
    # case, followed by "Machine check events logged": part of the thermal event (a "lead"), never a memory error.
    _r("mce_thermal_bank", None, ["Bank 128:"],
       r"\[Hardware Error\]: CPU \d+: Machine Check(?: Exception)?: \w+ Bank 128: ", event=("therm", "lead")),
    # (each "Machine check events logged" is a new report: the same line minutes apart is another one; within a
    # thermal event it is that event's record, the CPU's thermal bank, and no report of its own; within a firmware
    # record's memory error event, x86 firmware-first, it is that record's error logged as a machine check, no report
    # of its own either (EVENT_ECHOES), and right before a record, the record's first section is its finding's
    # amendment. Its page is not tracked (EVENT_PAGES has no "mce"): the line names none, and it is rate-limited to
    # two a minute (mce_notify_irq's DEFINE_RATELIMIT_STATE(ratelimit, 60*HZ, 2)) for every record logged since, so
    # one line may stand for a storm of errors on many pages: hwpoison's lines after it, whatever their page, are that
    # report's, not one finding per page)
    _r("mce_logged", "memory_error", ["Machine check events logged"],
       r"\[Hardware Error\]: Machine check events logged",
       event=("mce|therm|cper", "open")),
    # x86's mce_panic (arch/x86/kernel/cpu/mce/core.c, every era): a machine check the kernel cannot survive prints
    # its records ("mce: [Hardware Error]: CPU 7: Machine Check Exception: 5 Bank 0", a warning as any record), then
    # why it panics, "mce: [Hardware Error]: Machine check: Processor context corrupt" (or "Machine check: <msg>"),
    # then "Kernel panic - not syncing: Fatal machine check" (kernel_panic): the record's event escalated to fatal
    # (an amendment of its finding). Was a warning (ublue-os/bazzite #5546).
    _r("mce_panic", "memory_error", ["[Hardware Error]: Machine check: "],
       r"\[Hardware Error\]: Machine check: (?P<why>[^\n]*\S)",
       severity="fatal", action="RESTART_BM", event=("mce", "escalate")),
    # A record's line names the bank's MCi_STATUS ("CPU 2: Machine Check: 0 Bank 6: cc59dec000041152"): its error
    # code (MCACOD, bits 15:0) says which unit failed (MCA_ERROR_CODES, refine "mce_record"): a CPU cache's or TLB's
    # error is a cpu_cache_error (the DIMMs are not at fault), a memory controller's and any other stay memory_error.
    _r("mce_detail", "memory_error", ["Machine Check Event", "HANDLING MCE MEMORY", "[Hardware Error]: CPU"],
       r"\[Hardware Error\]: CPU (?P<cpu>\d+): Machine Check(?: Exception)?(?:: \w+ Bank (?P<bank>\d+): "
       r"(?P<status>[0-9a-f]{16})\b)?|"
       r"EDAC \w+ MC\d+: (?:HANDLING MCE MEMORY ERROR|CPU (?P<edac_cpu>\d+): Machine Check Event)",
       refine="mce_record", event=("mce", "join")),
    # An uncorrected memory error the kernel contained (hwpoison: mm/memory-failure.c, x86's machine check handler):
    # the page taken offline, the processes mapping it signalled. 5.x-6.x "mce: Uncorrected hardware memory error in
    # user-access at 3710b3400", "Memory failure: 0x3710b3: recovery action for dirty LRU page: Recovered" (Ignored,
    # Failed, Delayed), "Memory failure: 0x3710b3: already hardware poisoned", "Memory failure: 0x3710b3: Sending
    # SIGBUS to einj_mem_uc:361438 due to hardware memory corruption" (4.x "Killing <comm>:<pid> due to .."), "mce:
    # Memory error not recovered". Lines of the machine check's event; an error (the DIMM is suspect, the node goes
    # on): an "escalate" row, the event's finding amended to it after a "Machine check events logged" warning.
    # Every era: 2.6-3.x's "MCE 0xb4365: Killing copy_to_user_te:3768 early due to hardware memory corruption", "MCE
    # 0xb4365: dirty LRU page recovery: Recovered", "MCE 0x318: recovery action for dirty LRU page: Recovered"; x86's
    # page fault on a poisoned page, 2.6.32 to 6.x: "MCE: Killing uffd-unit-tests:1321817 due to hardware memory
    # corruption fault at 4631e000" (one a page it touched); 5.17-6.0's kill_me_maybe "Memory error may not
    # recovered: 0x..: Sending SIGBUS to <comm>:<pid> due to hardware memory corruption". A page the kernel could not
    # unmap: kill_procs sends SIGKILL, not SIGBUS (force_sig / do_send_sig_info(SIGKILL, ..)), every era "MCE 0x..:
    # forcibly killing <comm>:<pid> because of failure to unmap corrupted page", "Memory failure: 0x..: forcibly
    # killing ..": details "forced" (triage reads it as explaining a death by SIGKILL, not SIGBUS). Firmware-first
    # (APEI GHES: arm64's synchronous external abort, Grace's memory errors), 5.17+ ghes.c's memory_failure_cb when
    # memory_failure() could not contain the page: "0x1000093: Sending SIGBUS to devmem:54990 due to hardware memory
    # corruption", no "Memory failure: " before it (ghes.c has no pr_fmt); was no finding. After a firmware record's
    # memory error (the page it names, or none named), hwpoison's lines are that record's event, not a machine
    # check's: a "follows" row of both, the newest of them with a finding they may amend (EVENT_AMENDS "cper").
    _r("memory_failure", "memory_error",
       ["Memory failure: ", "Uncorrected hardware memory error in", "Memory error not recovered",
        "hardware memory corruption", "MCE 0x", "Memory error may not recovered"],
       r"(?:(?:Memory failure: |MCE |Memory error may not recovered: )?0x(?P<pfn>[0-9a-f]+): |MCE: (?=Killing ))"
       r"(?P<what>recovery action for [^:\n]+: \w+|[\w ]+? recovery: \w+|already hardware poisoned|"
       r"(?:Sending SIGBUS to|Killing|(?P<forced>forcibly killing)) (?P<process>[^:\n]+):(?P<pid>\d+) "
       r"(?:(?:early )?due to hardware memory corruption(?: fault at (?P<address>[0-9a-f]+))?|"
       r"because of failure to unmap corrupted page))|"
       r"mce: (?P<consumed>Uncorrected hardware memory error in user-access|Memory error not recovered)",
       severity="error", action="INVESTIGATE", event=("mce|cper", "follows"), scan_from="what"),
    # Firmware-first reports (APEI GHES, UEFI CPER): "{1}[Hardware Error]: Hardware error from APEI Generic
    # Hardware Error Source: 0", "event severity: ..", "Error 0, type: ..", then the section: "section_type: PCIe
    # error" (a PCIe AER event: its "device_id: dddd:bb:dd.f" line names the device and is the finding, the
    # kernel's "AER: aer_status: .." / "[12] Timeout" lines after it join it) or "section_type: memory error".
    # Its severity is the one the record states (CPER_SEVERITY), the section's "Error N, type:" over the record's
    # "event severity:" (the later line; the kernel queues the section's for AER recovery, ghes_handle_aer); a
    # section no record line stated a severity for is a warning (the rows' own).
    # a record's first line: whatever AER event was open has ended (two records a few lines apart are two events)
    # and so has the record before it: its memory error and its page's handling are one event, the next record's
    # another (EVENT_SECTIONS: unless the open one is only its ghes_edac count line, printed before it)
    _r("cper_record", None, ["Hardware error from APEI"], r"\[Hardware Error\]: Hardware error from APEI",
       event=("aer|cper", "close")),
    _r("cper_severity", None, ["event severity:", ", type: "],
       r"\[Hardware Error\]:\s+(?:event severity|Error \d+, type): (?P<stated>fatal|recoverable|corrected|info)\b",
       event=("cper", "state")),
    # the page of a record's memory error: cper.c's memory error section "physical_address: 0x000000276aeb0180" (every
    # era; not its "physical_address_mask: .."), cper-arm.c's "physical fault address: 0x0000001000093c00" (4.16+):
    # the page the kernel's handling of it names after the record (a "follows" line), EVENT_PAGES
    _r("cper_address", None, ["physical_address: ", "physical fault address: "],
       r"\[Hardware Error\]:\s+(?:physical_address|physical fault address): 0x(?P<page>[0-9a-f]{1,16})\b",
       event=("cper", "page")),
    _r("cper_pcie", None, ["section_type: PCIe error"], r"\[Hardware Error\]:\s+section_type: PCIe error",
       event=("aer", "member")),
    _r("cper_pcie_device", "pcie_aer", ["[Hardware Error]:"],
       r"\[Hardware Error\]:\s+device_id: (?P<pci>" + PCI + r")",
       severity="warning", action="MONITOR", event=AER_JOIN),
    # A BMC's System Event Log row as ipmitool prints it (`ipmitool sel elist` / `sel list`), a row per IPMI_SEL_EVENTS
    # row: a sensor's event that is a fault, Asserted, its kind's at the severity the event's words give (a Memory
    # sensor's ECC error the host's memory, a Critical Interrupt sensor's bus error PCIe, a Processor's machine check
    # memory_error as the kernel's, its IERR or thermal trip a cpu_fault, a power supply's failure power_supply, a
    # temperature, fan or voltage sensor past its critical threshold bmc_sensor); Deasserted and routine rows nothing.
    # Their keyword the direction every row of them holds ("| Asserted": never in a Deasserted row's "| Deasserted"),
    # one word for them all: a word per sensor type changed the keyword scan's entry characters (wordscan
    # entry_points: "|" and "l" among them), 2-4 % more instructions a keyword line of bench/perline.py.
    *(_r(f"ipmi_sel_{name}", kind, ["| Asserted"], ipmi_sel_row(types, sensor_name, events),
         refine=f"ipmi_sel_{name}")
      for name, (kind, types, sensor_name, events) in IPMI_SEL_EVENTS.items()),
    _r("cper_memory", "memory_error", ["section_type: memory error"],
       r"\[Hardware Error\]:\s+section_type: memory error",
       event=("cper", "join")),
    # An ARM processor error section (UEFI N.2.4.4; cper-arm.c): arm64 firmware-first RAS, the way Grace (GH200, GB200,
    # GB300) and every arm64 server report a CPU's cache, TLB, bus or micro-architectural error, "section_type: ARM
    # processor error" then MIDR, MPIDR, "error_type: 0x02: cache error" (5.x "error_type: 0, cache error"), "physical
    # fault address: ..". arm64's machine check, as x86's "Machine check events logged" is: a memory_error finding,
    # its severity the record's (a corrected cache error a warning, a recoverable one an error). Was no finding.
    _r("cper_arm", "memory_error", ["section_type: ARM processor error"],
       r"\[Hardware Error\]:\s+section_type: ARM processor error",
       event=("cper", "join")),
    # nfs_error: "nfs: server <host> not responding, still trying" (a hard mount: the RPC waits and is retried, a
    # warning) or ", timed out" (a soft mount: net/sunrpc/clnt.c rpc_check_timeout ends the RPC with -EIO /
    # -ETIMEDOUT, the read or write that issued it failed: an error, the node's storage fault for the job then
    # running), one event per server while it repeats, a timed-out RPC after warnings its own finding
    # (EVENT_ESCALATES); "nfs: server <host> OK" is the recovery (info).
    _r("nfs_timed_out", "nfs_error", ["not responding, timed out"],
       r"nfs: server (?P<device>\S+) not responding, (?P<state>timed out)",
       severity="error", event=("nfs", "join")),
    _r("nfs_not_responding", "nfs_error", ["not responding"],
       r"nfs: server (?P<device>\S+) not responding, (?P<state>still trying)",
       event=("nfs", "join")),
    _r("nfs_ok", "nfs_error", ["nfs: server"], r"nfs: server (?P<device>\S+) OK$",
       severity="info", action="NONE"),
    # NFSv4's state manager (fs/nfs/nfs4state.c) could not establish or recover the client's state on a server (its
    # lease, its session, the opens and locks it reclaims): 3.x+ "NFS: state manager: lease expired failed on NFSv4
    # server tigrsrv with error 1" (the step it failed at after "state manager: "; none named: "NFS: state manager
    # failed on NFSv4 server .."), 2.6 "Error: state manager failed on NFSv4 server .. with error 5". Until it
    # succeeds the mount's opens, locks and I/O fail (EPERM, EIO) or wait: an error, the node's storage fault, one
    # event per server. Before it, "NFS: Server tigrsrv reports our clientid is in use" (nfs4proc.c): another client
    # presents this node's NFSv4 identity (a node cloned from one image, the same hostname or nfs4_unique_id), the
    # server gives the lease to one of them: a warning, the same server's event (TIGRLab/admin #234: the mounts
    # failed with "Operation not permitted"). Was: no finding.
    _r("nfs4_state_manager", "nfs_error", ["failed on NFSv4 server"],
       r"state manager(?:: (?P<step>[\w ]+?))? failed on NFSv4 server (?P<device>\S+) with error (?P<errno>-?\d+)",
       severity="error", event=("nfs", "join")),
    _r("nfs4_clientid_in_use", "nfs_error", ["reports our clientid is in use"],
       r"NFS: Server (?P<device>\S+) reports our (?P<state>clientid is in use)",
       event=("nfs", "join")),
    # NFSv4 state recovery that lost the client's locks (after a server reboot, a failover, a lease expired across a
    # partition: fs/nfs/nfs4state.c): 5.18+ "NFS: <server>: lost 2 locks" (once per recovery pass, every lock this
    # node's client held on that server), before it "NFS: __nfs4_reclaim_open_state: Lock reclaim failed!" (2.6-3.x
    # "nfs4_reclaim_open_state"), with "NFS: nfs4_reclaim_open_state: unhandled error -524" and "NFSv4: state recovery
    # failed for open file <path>, error = -524" for the opens it could not recover. The application holding them is
    # not told: its I/O on those files fails (EIO) or hangs in the recovery loop: an error, the node's storage fault,
    # one event per server (the older lines name none). gpud's nfs component: nfs_lock_reclaim_failed. Was: no finding.
    _r("nfs4_lost_locks", "nfs_error",
       [" locks", "Lock reclaim failed", "nfs4_reclaim_open_state: unhandled", "state recovery failed for open file"],
       r"NFS: (?:(?P<device>\S+): lost (?P<locks>\d+) locks$|_*nfs4_reclaim_open_state: "
       r"(?P<what>Lock reclaim failed|unhandled error -?\d+))|"
       r"NFSv4: state recovery failed for open file .*, error = -?\d+",
       severity="error", event=("nfs", "join")),
    # parallel_fs_error: a Lustre client's connection to a server target (MDT, OST, the MGS) and its eviction
    # (lustre/ptlrpc/import.c; the lines are the same for Lustre, DDN EXAScaler and AWS FSx for Lustre clients):
    # "Lustre: <obd>: Connection to <target> (at <nid>) was lost; in progress operations using this service will wait
    # for recovery to complete" (a replayable import: the client waits and reconnects) and, for the MGC (the
    # configuration service: no file I/O), "LustreError: 166-1: <obd>: Connection to MGS (at <nid>) was lost; in
    # progress operations using this service will fail": warnings; "LustreError: 167-0: <obd>: This client was
    # evicted by <target>; in progress operations using this service will fail." (1.8: no <obd>, the target's _UUID):
    # an error, the escalation of the target's event (EVENT_ESCALATES); "Lustre: <obd>: Connection restored to
    # <target> (at <nid>)" the recovery (info; a server's own "Connection restored to <client uuid>" too). One event
    # per target while its lines repeat. "LustreError: 11-0: <obd>: operation <op> to node <nid> failed: rc = -107"
    # (the RPC that noticed) and ptlrpc / LNet timeouts are the lines around them: no finding.
    _r("lustre_evicted", "parallel_fs_error", ["This client was evicted by"],
       r"This client was evicted by (?P<device>[^;\s]+?)(?:_UUID)?; in progress operations",
       severity="error", event=("lustre", "join")),
    _r("lustre_lost", "parallel_fs_error", ["was lost; in progress operations"],
       r"Connection to (?P<device>\S+) \(at (?P<nid>[^)\s]+)\) was lost; in progress operations "
       r"using this service will (?P<then>wait for recovery|fail)",
       event=("lustre", "join")),
    _r("lustre_restored", "parallel_fs_error", ["Connection restored to"],
       r"Connection restored to (?P<device>\S*) ?\(at (?P<nid>[^)\s]+)\)",
       severity="info", action="NONE"),
    # IBM Storage Scale (GPFS), its daemon's log (/var/adm/ras/mmfs.log.latest; syslog where systemLogLevel sends
    # it): a node that lost its membership in the cluster owning a file system, every era "Lost membership in cluster
    # <cluster>. Unmounting file systems." (".. file system." in IBM's own example), 5.x "[E] " before it. Its file
    # systems of that cluster are unmounted under the running job (open files return ESTALE, new opens fail until it
    # rejoins): an error, the node's storage fault, one finding per cluster while its lines repeat. The connection
    # lines before it ("Close connection to <ip> <node>. Attempting reconnect.", "Connecting to ..") and a cluster
    # manager's "Recovering nodes: .." are no finding.
    _r("gpfs_lost_membership", "parallel_fs_error", ["Lost membership in cluster"],
       r"Lost membership in cluster (?P<device>\S+?)\. Unmounting file systems?\.",
       severity="error", event=("gpfs", "join")),
    # CephFS's kernel client (fs/ceph/mds_client.c) and its session with a metadata server (MDS rank <n>): "ceph: mds0
    # closed our session" (the connection reset, the client reconnects: a warning, no condition), then "ceph: mds0
    # reconnect denied" (the MDS evicted and blocklisted this client: its caps are gone, its dirty data dropped, "ceph:
    # dropping dirty+flushing Fw state for ..", the mount's I/O fails, EIO / ESTALE, until it is remounted): an error,
    # the escalation of the rank's event (EVENT_ESCALATES), as a Lustre eviction; "ceph: mds0 rejected session" (a new
    # session refused: a blocklisted client, or the file system refusing clients, at mount most often: a warning); "ceph:
    # mds0 reconnect success" the recovery (info). 6.6+ puts the file system and client after "ceph: " ("ceph: [<fsid>
    # <client id>]: mds0 reconnect denied", pr_info_client). libceph's monitor and OSD sessions ("libceph: mon0 ..
    # session lost, hunting for new mon", "osd2 down", "socket closed") are the cluster's and reconnect: no finding.
    # Were: no finding.
    _r("ceph_reconnect_denied", "parallel_fs_error", ["reconnect denied"],
       CEPH_MDS + r"(?P<what>reconnect denied)$",
       severity="error", event=("ceph", "join")),
    _r("ceph_session_lost", "parallel_fs_error", ["closed our session", "rejected session"],
       CEPH_MDS + r"(?P<what>closed our session|rejected session)$",
       event=("ceph", "join")),
    _r("ceph_reconnected", "parallel_fs_error", ["reconnect success"],
       CEPH_MDS + r"reconnect success$",
       severity="info", action="NONE"),
    # filesystem_error: ext4 errors and the remount read-only they end in, one event per device ("EXT4-fs error
    # (device xvda9): ..", "Aborting journal on device xvda9-8.", "EXT4-fs (xvda9): Remounting filesystem
    # read-only").
    _r("fs_readonly", "filesystem_error", ["Remounting filesystem read-only"],
       r"(?P<fs>EXT4|EXT3|EXT2)-fs \((?P<device>[^)\s]+)\): Remounting filesystem read-only",
       event=("fs", "join")),
    # ext4 could not write its superblock (ext4_commit_super: the block device failed the write, the disk or its path
    # gone): "EXT4-fs (dm-0): I/O error while writing superblock", and at the next commit "EXT4-fs (sdc8): previous I/O
    # error to superblock detected"; a line of the device's event. gpud's disk component raises it
    # (superblock_write_error); was: no finding.
    _r("fs_superblock_io", "filesystem_error", ["error while writing superblock", "I/O error to superblock detected"],
       r"(?P<fs>EXT4|EXT3)-fs \((?P<device>[^)\s]+)\): (?P<what>I/O error while writing superblock|"
       r"previous I/O error to superblock detected)",
       event=("fs", "join")),
    # ext4's own errors ("EXT4-fs error (device sdf): ext4_check_bdev_write_error:217: comm filebeat: ..") and the
    # journal's failures it reports through __ext4_std_error, with no colon after the device: "EXT4-fs error (device
    # sdf) in ext4_reserve_inode_write:5795: Journal has aborted" (2.6-3.x without the line number: ".. (device sdc8)
    # in ext4_da_writepages: Journal has aborted"), often the first lines of a disk's failure. Was: that form missed.
    _r("fs_error", "filesystem_error", ["-fs error (device"],
       r"(?P<fs>EXT4|EXT3|EXT2)-fs error \(device (?P<device>[^)\s]+)\)(?:: | in )(?P<function>\w+)",
       event=("fs", "join")),
    # ext4's journal (jbd2) aborted after a write failed under it: "Aborting journal on device nvme0n1p1-8." (the
    # journal's inode after the device), "JBD2: I/O error when updating journal superblock for sda-8." (3.x-5.x
    # "JBD2: Error -5 detected when updating journal superblock for sdb1-8."); ext4's write completion that lost a
    # page, "EXT4-fs warning (device sdd): ext4_end_bio:309: I/O error 10 writing to inode 6031717 ..". Lines of the
    # filesystem's event (keyed by its device, the journal's suffix left off). Were: no finding.
    _r("jbd2_abort", "filesystem_error", ["Aborting journal on device", "when updating journal superblock"],
       r"(?:Aborting journal on device|JBD2: (?:I/O error|Error -?\d+ detected) when updating journal superblock "
       r"for) (?P<device>[\w.:-]+?)-\d+\.", event=("fs", "join")),
    _r("ext4_end_bio", "filesystem_error", ["ext4_end_bio"],
       r"(?P<fs>EXT4)-fs warning \(device (?P<device>[^)\s]+)\): ext4_end_bio:\d+: I/O error (?P<status>-?\d+) "
       r"writing to inode", event=("fs", "join")),
    # The block layer failing an I/O to a disk (blk_print_req_error, the request's status: "I/O", "critical medium",
    # "critical target", "timeout", ..): 2.6-3.x "end_request: I/O error, dev sda, sector 123", 3.x-5.x
    # "blk_update_request: I/O error, dev sdd, sector 193211232 op 0x1:(WRITE) flags 0x0 phys_seg 1 prio class 0",
    # 4.17-5.x "print_req_error: critical medium error, dev sdg, sector 1086976", 5.16+ with no prefix "I/O error, dev
    # sda, sector ..". The page cache's own report of the same loss, every era "Buffer I/O error on dev sdb, logical
    # block 641, lost async page write" (a write the kernel had acknowledged to the program: the data is gone; "async
    # page read" a read that failed), 2.6-3.x and 6.x's block/fops "Buffer I/O error on device nvme0n1p1, logical
    # block 1066386". An error of the disk's event ("fs", keyed by the device the line names: a whole disk, or the
    # partition a filesystem's own lines name). NVMe namespaces are their controller's (the row below). Floppy and
    # optical drives (fd0, sr0: a VM's empty virtual drive probed at boot) are no fault; nor are the statuses that
    # say the device refused a command it does not support ("operation not supported") or asked for a retry; nor is
    # an error on an sdX device the kernel said, in the stream's earlier lines, is removable or holds no medium (the
    # "removable_media" row below: QUIET_ROWS).
    # NPD's kernel monitor (IOError), gpud's disk component (buffer_io_error). Were: no finding.
    _r("block_io_error", "filesystem_error", ["error, dev "],
       r"(?P<status>I/O|critical medium|critical target|critical nexus|critical protection|critical space allocation|"
       r"recoverable transport|timeout|device offline) error, dev (?!(?:fd|sr)\d|nvme\d)(?P<device>[^\s,]+), "
       r"sector (?P<sector>\d+)", event=("fs", "join")),
    _r("buffer_io_error", "filesystem_error", ["Buffer I/O error on dev"],
       r"Buffer I/O error on dev(?:ice)? (?!(?:fd|sr)\d)(?P<device>[^\s,]+), logical block (?P<block>\d+)"
       r"(?:, (?P<what>lost (?:a?sync) page write|a?sync page read))?", event=("fs", "join")),
    # A disk device the kernel itself says is removable or holds no medium: a BMC's virtual media (AMI "Virtual
    # HDisk"/"Virtual Floppy"/"Virtual CDROM" as USB mass storage, Supermicro ATEN's, iDRAC's, iLO's, Lenovo XCC's
    # RDOC), an SD card reader, a USB stick, probed at boot or by a KVM session. sd's probe says which at the end,
    # "sd 2:0:0:0: [sdb] Attached SCSI removable disk" (2.6.2x+; 2.6.early "Attached scsi removable disk sda at scsi2,
    # channel 0, id 0, lun 0"), a fixed disk "Attached SCSI disk" (the name's device from then on: no longer
    # removable); a read of an empty or unreadable medium fails with its sense, "sd 2:0:0:1: [sdd] tag#0 Add. Sense:
    # Medium not present" (4.x+ "tag#N"; before, none; ASC 0x3A and its " - tray open" etc. variants), "Incompatible
    # medium installed", "Cannot read medium - unknown format" (ASC 0x30: an SD card a reader cannot read), printed
    # before its "I/O error, dev sdd, sector 0" and "Buffer I/O error on dev sdd, logical block 0, async page read"
    # lines (Adafruit_TinyUSB_Arduino #455, Dasharo/dasharo-issues #1100). No finding of its own ("quiet": the
    # stream remembers the device, bounded, Classifier._in_event); the I/O errors of QUIET_ROWS on that device (or a
    # partition of it) are then no finding: the node's storage is not at fault. A "Not Ready" sense alone is no such
    # line (a data disk that will not spin up says it too). Were: an error (filesystem_error) per probe.
    _r("removable_media", None,
       ["Attached SCSI removable disk", "Attached SCSI disk", "Attached scsi removable disk", "Attached scsi disk",
        "Medium not present", "Incompatible medium installed", "Cannot read medium"],
       r"\[(?P<device>sd[a-z]{1,4})\] (?:tag#\d+ )?(?:Add\. Sense: (?P<medium>Medium not present|Incompatible medium "
       r"installed|Cannot read medium - (?:unknown|incompatible) format)|Attached SCSI (?P<removable>removable )?disk)"
       r"|Attached scsi (?P<old_removable>removable )?disk (?P<old_device>sd[a-z]{1,4}) at scsi",
       event=("fs", "quiet")),
    # XFS shuts a filesystem down instead of remounting it: 6.x "XFS (sdb6): Filesystem has been shut down due to
    # log error (0x2).", "Metadata I/O Error (0x1) detected at <fn> (<file>:<line>).  Shutting down filesystem.",
    # "Corruption of in-memory data (0x8) detected at ..", 4.x-5.x "Log I/O Error Detected.  Shutting down
    # filesystem", "I/O Error Detected. Shutting down filesystem", "Corruption of in-memory data detected.", with
    # what leads to it and follows it ("xfs_do_force_shutdown(0x1) called from line ..", "Corruption detected.
    # Unmount and run xfs_repair", "log I/O error -5", "metadata I/O error in ..", "xfs_log_force: error -5
    # returned."). A shutdown the administrator asked for ("User initiated shutdown") is no fault.
    _r("xfs_shutdown", "filesystem_error",
       ["Error Detected", "detected at", "data detected", "Filesystem has been shut down", "xfs_do_force_shutdown",
        "Corruption detected", "log I/O error", "metadata I/O error", "xfs_log_force: error"],
       r"XFS \((?P<device>[^)\s]+)\): (?P<what>(?:Log I/O|Metadata I/O|I/O|Corruption of in-memory data|"
       r"Corruption of on-disk metadata|Block device removal)(?: Error)?(?: \(0x[0-9a-f]+\))? [Dd]etected\b|"
       r"Filesystem has been shut down|xfs_do_force_shutdown|Corruption detected\. Unmount|log I/O error|"
       r"metadata I/O error|xfs_log_force: error)",
       event=("fs", "join")),
    # btrfs aborts the transaction and forces the filesystem read-only: "BTRFS: error (device nvme2n1) in
    # __btrfs_update_delayed_inode:1075: errno=-5 IO failure" then "BTRFS info (device nvme2n1): forced readonly"
    # (6.x names the filesystem's state: "(device dm-0 state EA)").
    _r("btrfs_error", "filesystem_error", ["forced readonly", "errno="],
       r"BTRFS(?::| \w+)? (?:error )?\(device (?P<device>[^)\s]+)(?: state \w+)?\):? "
       r"(?:in (?P<function>\w+):\d+: errno=(?P<errno>-?\d+)|(?P<what>forced readonly))",
       event=("fs", "join")),
    # Linux software RAID (md) failing a member disk (md_error -> the personality's error handler): an array with no
    # redundancy fails whole, raid0 and linear "md/raid0md0: Disk failure on nvme0n1p1 detected, failing array." (the
    # array's name right after the personality, no colon: mdname() pasted on), its filesystem's I/O failing from then
    # on: an error; a redundant array drops the disk and runs degraded, raid1 / raid10 "md/raid1:md1: Disk failure on
    # nvme2n1, disabling device." (a second line "Operation continuing on 1 devices."), raid4/5/6 "md/raid:md2: ..":
    # a warning (the next disk lost loses data). The array's own event ("fs", keyed by md0), so its filesystem's errors
    # join it. GPU nodes stripe their local NVMe into md RAID0 for scratch and caches (cloud instance stores).
    # gpud's disk component: raid_array_failure. Was: no finding.
    _r("md_disk_failure", "filesystem_error", ["Disk failure on"],
       r"md/(?P<level>raid\d*|linear):?(?P<device>md[\w-]+): Disk failure on (?P<member>\S+?)"
       r"(?: detected, (?P<failed>failing array)|, disabling device)",
       refine="md", event=("fs", "join")),
    # nvme_error: I/O timeouts ("nvme nvme0: I/O 12 QID 5 timeout, aborting" / ", reset controller"; 6.x names the
    # command: "I/O 900 (I/O Cmd) QID 2 timeout, aborting", 6.5+ "I/O tag 12 (100c) opcode 0x2 (I/O Cmd) QID 5
    # timeout, aborting req_op:READ(0) size:4096"), resets that fail ("Device not ready; aborting reset", "controller
    # is down; will reset"), one event per controller while they repeat; the reset an aborted timeout escalates to is
    # the event's second finding (EVENT_ESCALATES: an error after the abort's warning); a controller the driver gave
    # up on is fatal, always its own finding: 4.x-6.1 "Removing after probe failure status: -19", 6.2+ (nvme-pci no
    # longer unbinds, it disables: Ubuntu 24.04's 6.8, RHEL 9.x) "Disabling device after reset failure: -19" (lore:
    # Val Packett's gcc-sc8180x patch, 2026). A controller that never came ready is an error: at a reset ("Device not
    # ready; aborting reset"), or at probe, 5.x+ "Device not ready; aborting initialisation, CSTS=0x0" (the drive
    # absent from then on: on 6.x often its only line, lore: Felix Yan's CRTO patch, 2023). "timeout, completion
    # polled" (the interrupt was late, the I/O completed) is no fault: no row takes it (nvme_timeout's regex, which its
    # QID admits, does not match it). (Repeated on one controller it can mean lost interrupts, a drive that never comes
    # up: inindev/nanopi-r5 #23, an SBC; taking each such line into an event of its controller doubled `gpu-npd
    # parse`'s CPU on the benchmark's default mix, whose kernel noise holds them, for evidence from no GPU node: h439's
    # row left out.)
    _r("nvme_removed", "nvme_error", ["Removing after probe failure", "Disabling device after reset failure"],
       r"nvme (?P<device>nvme\d+): (?P<removed>Removing after probe failure|Disabling device after reset failure)",
       severity="fatal", action="RESTART_BM", event=("nvme", "open")),
    _r("nvme_timeout", "nvme_error", ["QID", "Device not ready; aborting", "controller is down"],
       r"nvme (?P<device>nvme\d+): (?:" + NVME_IO_TIMEOUT + r"(?P<what>aborting|reset controller|disable controller)|"
       r"(?P<reset>Device not ready; aborting (?:reset|initialisation)|controller is down; will reset))",
       refine="nvme", event=("nvme", "join")),
    # NVMe native multipath (CONFIG_NVME_MULTIPATH, the default of most distributions, so local PCIe drives too): the
    # namespace's last path gone (its controller removed or deleted after ctrl_loss_tmo), "block nvme2n1: no available
    # path - failing I/O": every I/O to it fails with EIO from then on, an error, one event per namespace while it
    # repeats. While a path may come back the kernel queues instead ("no usable path - requeuing I/O"): no finding.
    # gpud's disk component: nvme_path_failure. Was: no finding.
    _r("nvme_no_path", "nvme_error", ["no available path - failing I/O"],
       r"block (?P<device>nvme\d+(?:c\d+)?n\d+): no available path - failing I/O",
       event=("nvme", "join")),
    # An NVMe namespace's I/O that the controller failed: 5.15+ (CONFIG_NVME_VERBOSE_ERRORS, on in most distributions'
    # 6.x) "nvme0n1: I/O Cmd(0x2) @ LBA 131209936, 200 blocks, I/O Error (sct 0x3 / sc 0x71)", "nvme0n1: Write(0x1) @
    # LBA 100492368, 2048 blocks, Data Transfer Error (sct 0x0 / sc 0x4)" (the command, the NVMe status), then the block
    # layer's "I/O error, dev nvme0n1, sector .." for it (every era's prefixes, as the disk rows above). An error of the
    # controller's event (the namespace's "nvme0" part: one event with its timeouts and resets). A command the drive
    # refused as unsupported ("Invalid Field in Command", "Invalid Command Opcode") is no fault. Were: no finding.
    _r("nvme_io_status", "nvme_error", [" @ LBA "],
       r"(?P<device>nvme\d+)(?:c\d+)?n\d+: (?P<command>[\w /-]+?)\(0x[0-9a-f]+\) @ LBA (?P<lba>\d+), \d+ blocks, "
       r"(?!Invalid )(?P<status>[^(\n]+?) \(sct 0x(?P<sct>[0-9a-f]+) / sc 0x(?P<sc>[0-9a-f]+)\)",
       event=("nvme", "join")),
    _r("nvme_block_io_error", "nvme_error", ["error, dev nvme"],
       r"(?P<status>I/O|critical medium|critical target|critical nexus|critical protection|critical space allocation|"
       r"recoverable transport|timeout|device offline) error, dev (?P<device>nvme\d+)(?:c\d+)?n\d+(?:p\d+)?, "
       r"sector (?P<sector>\d+)", event=("nvme", "join")),
    # NVMe over Fabrics (nvme-tcp, nvme-rdma, nvme-fc: a GPU node's remote NVMe, GPUDirect Storage's targets): a
    # controller whose transport failed (its keep-alive or an I/O timed out, its connection dropped, an RDMA work
    # request completed in error) starts error recovery, "nvme nvme4: starting error recovery" (nvme-fc "nvme nvme0:
    # NVME-FC{0}: starting error recovery <reason>"), its I/O queued while it reconnects ("Reconnecting in 10
    # seconds..."): a warning, the controller's nvme event; each reconnect that fails, "Failed reconnect attempt 2"
    # (6.x "Failed reconnect attempt 1/600", 4.x nvme-rdma "Failed reconnect attempt, requeueing..."), an error (the
    # event's escalation: I/O stalls until a reconnect succeeds, or fails once ctrl_loss_tmo ends, "no available
    # path"). What failed on the way is part of the event and no finding of its own: the transport's timeout ("queue
    # 7: timeout request 0x11 type 4", 6.x "queue 0: timeout cid 0xb001 type 4 opcode 0x18 (Admin Cmd)", 6.5+ "I/O tag
    # 0 (0000) type 4 opcode 0x7f (Fabrics Cmd) QID 80 timeout"), nvme-rdma's failed work request ("RECV for CQE
    # 0x00000000ce392ed9 failed with status local protection error (4)"), the keep-alive's failure, a connect's
    # ("failed to connect socket: -111", "failed to connect queue: 0 ret=-111", nvme-rdma "Connect rejected: status 8
    # (invalid service ID).", "rdma_resolve_addr wait failed (-104).", "Connect command failed, error wo/DNR bit:
    # 881"); with no recovery open they are a connect the tool that asked for it reports (nvme connect), nothing. The
    # target or the network between, not this node's drive: attribution unknown. "Successfully reconnected" ends
    # nothing: a recovery that came back leaves its warning. Were: no finding (lore linux-nvme, openebs/mayastor).
    _r("nvmf_error_recovery", "nvme_error", ["starting error recovery"],
       r"nvme (?P<device>nvme\d+): (?:NVME-FC\{\d+\}: )?starting error recovery",
       severity="warning", attribution="unknown", action="MONITOR", event=("nvme", "join")),
    _r("nvmf_reconnect_failed", "nvme_error", ["Failed reconnect attempt"],
       r"nvme (?P<device>nvme\d+): Failed reconnect attempt(?: (?P<attempt>\d+)(?:/(?P<attempts>\d+))?)?",
       attribution="unknown", event=("nvme", "join")),
    _r("nvmf_transport_failed", None,
       ["timeout request 0x", "timeout cid 0x", "(Fabrics Cmd) QID", " for CQE 0x", "nvme_keep_alive_end_io",
        "failed to connect socket", "failed to connect queue", "Connect rejected", "rdma_resolve_addr wait failed",
        "Connect command failed"],
       r"nvme (?P<device>nvme\d+): (?:queue \d+: timeout (?:request|cid) 0x|I/O tag \d+ .*\(Fabrics Cmd\) QID \d+ "
       r"timeout|[A-Z_]+ for CQE 0x[0-9a-f]+ failed with status |failed nvme_keep_alive_end_io|failed to connect "
       r"(?:socket|queue)|Connect rejected|rdma_resolve_addr wait failed|Connect command failed)",
       event=("nvme", "member")),
    # --- NCCL / PyTorch distributed (application logs) ---
    # The WorkNCCL(..) details are optional: a log that wraps long lines (milabench's runner, a terminal's copy)
    # ends the line at "timeout: " and prints "WorkNCCL(SeqNum=2070, ..)" on the next, no rank's prefix on it
    # (mila-iqia/milabench #269); the rank's timeout is still this line's (was: no finding, the job's only failure lost).
    # A wrap may fall anywhere in it: each field is read only whole, ended by the separator PyTorch prints after it
    # (SeqNum's ",", OpType's "," or ")", Timeout(ms)'s ")"), so a cut inside one leaves it out rather than giving a
    # truncated one ("OpType=_ALLG": a rank seemingly in another collective; "Timeout(ms)=6"), and a cut after the
    # SeqNum keeps it (sgl-project/sglang #3424's line cut at each position, tests/parsers/test_parsers_units.py).
    _r("nccl_watchdog_timeout", "nccl_timeout", ["Watchdog caught collective operation timeout"],
       r"(?:\[Rank (?P<rank>\d+)\] )?Watchdog caught collective operation timeout:(?: WorkNCCL\("
       r"(?:SeqNum=(?P<seq>\d+),)?(?: ?OpType=(?P<op>\w+)(?=[,)])(?:.*?Timeout\(ms\)=(?P<timeout_ms>\d+)\))?)?)?",
       event=TORCH_PG_ONCE),
    # The rest of a rank's ProcessGroupNCCL failure, PyTorch 1.x-2.x, each opening the rank's event when its
    # timeout line is not there (a timeout reported without WorkNCCL details, a watchdog hang, a cut log).
    _r("torch_work_failed", "nccl_timeout", ["detected by watchdog at work"],
       r"(?:failure|Exception \(either an error or timeout\)) detected by watchdog at work(?: sequence id)?: (?P<seq>\d+)",
       event=TORCH_PG_ONCE),
    _r("torch_work_timeout", "nccl_timeout", ["Timeout at NCCL work"], r"Timeout at NCCL work: (?P<seq>\d+)",
       event=TORCH_PG_ONCE),
    # A rank under TORCH_NCCL_BLOCKING_WAIT: its wait timed out (1.8+ "[Rank 4] Work WorkNCCL(..) timed out in blocking
    # wait (NCCL_BLOCKING_WAIT=1).", 2.2 "(TORCH_NCCL_BLOCKING_WAIT=1).", 2.4+ "... blocking wait."). WorkNCCL(..) ends
    # with "Timeout(ms)=N)" in every era: its "(ms)" is read as part of it (was: the ")" of "(ms)" ended it, so no line
    # of any era matched, a rank whose only timeout line it was had no finding: ultralytics/ultralytics #24536).
    _r("torch_blocking_wait", "nccl_timeout", ["timed out in blocking wait"],
       r"WorkNCCL\((?:SeqNum=(?P<seq>\d+), )?OpType=(?P<op>\w+)(?:[^()\n]|\(ms\))*?"
       r"(?:Timeout\(ms\)=(?P<timeout_ms>\d+))?\) timed out in blocking wait",
       event=TORCH_PG_ONCE),
    _r("torch_ops_failed", "nccl_timeout", ["Some NCCL operations have failed or timed out"],
       r"Some NCCL operations have failed or timed out",
       event=TORCH_PG_ONCE),
    # the heartbeat monitor (2.2+): the watchdog itself made no progress (a CUDA/NCCL call hung under it)
    _r("torch_heartbeat", "nccl_timeout", ["Heartbeat monitor timed out"], r"Heartbeat monitor timed out!",
       event=TORCH_PG_ONCE),
    _r("torch_watchdog_stuck", "nccl_timeout", ["watchdog got stuck for"],
       r"ProcessGroupNCCL's watchdog got stuck for (?P<seconds>\d+) seconds",
       event=TORCH_PG_ONCE),
    # The monitor thread's word that a collective timed out, on the rank that saw it or one the store told (it then
    # dumps and ends the process): 2.2-2.3 "Received a timeout signal from this local rank and will start to dump the
    # debug info." / "Received a global timeout from another rank and will start to dump the debug info.", 2.4+
    # "Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the
    # debug info." / ".. from  rank 1 and we will .." (vllm-project/vllm-omni #2928): the rank's event; the rank that
    # timed out first, where named, in details["timeout_rank"] (was: nothing, a log cut before its next line).
    _r("torch_dump_signal", "nccl_timeout", ["Received a dump signal due to a collective timeout from",
                                             "Received a timeout signal from this local rank",
                                             "Received a global timeout from another rank"],
       r"Received a (?:dump signal due to a collective timeout|timeout signal|global timeout) from "
       r"(?:this local rank|another rank|\s*rank (?P<timeout_rank>\d+))",
       event=TORCH_PG_ONCE),
    _r("torch_dump", "nccl_timeout", ["preparing to dump debug info", "after attempting to dump debug info"],
       r"ProcessGroupNCCL preparing to dump debug info|Terminating the process after attempting to dump debug info",
       event=TORCH_PG_ONCE),
    # 2.2-2.3: the abort the watchdog started did not finish ("[PG 0 Rank 0] Future for ProcessGroup abort timed out
    # after 600000 ms"), before the heartbeat monitor's lines of the same failure.
    _r("torch_abort_timeout", "nccl_timeout", ["Future for ProcessGroup abort timed out"],
       r"Future for ProcessGroup abort timed out after (?P<timeout_ms>\d+) ms", event=TORCH_PG_ONCE),
    # A rank that could not get the NCCL unique id from the group's root through the store when it set up a
    # communicator: the root never published it (it failed, hung or is late) or the store went away. 1.11-2.x, the
    # misspelling of 1.x kept: "[1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d
    # key-value store by key '0', but store->get('0') got error: Socket Timeout" ("wait timeout after 600000ms, keys:
    # ..", "Timeout waiting for key: default_pg/0/0 after .."). The numbers are ranks in the group, kept in details
    # (triage names the root rank: attribute.py `_unique_id_root`). PyTorch prints the words only in this exception,
    # so a line cut after the ranks (an Event's 160-character excerpt of it, read back by the cluster component) is
    # still this failure, its store error unknown. The key (`store_key`) is a counter for a collective's communicator,
    # published by the group's rank 0, and "<low>:<high>" for a single send / recv's (getKeySendRecv), published by the
    # pair's low rank whatever "[0]" says (triage/attribute.py `_unique_id_publisher`).
    _r("torch_unique_id_store", "nccl_timeout", ["ncclUniqueId from ["],
       r"\[(?P<waiting_rank>\d+)\] is setting up NCCL communicator and retr(?:ie|ei)ving ncclUniqueId from "
       r"\[(?P<root_rank>\d+)\](?: via c10d key-value store by key '(?P<store_key>[^'\n]{1,64})'(?:, but store->get\("
       r"'[^'\n]*'\) got (?:error|exception): (?P<store_error>[^\n]{1,120}))?)?"),
    # the rank's communicators aborted (after its own or another rank's failure: "Original reason for failure was");
    # details["consequence"] says the line reports a consequence (triage keeps such an exception a consequence)
    _r("torch_comm_aborted", "nccl_error", ["communicator was aborted on rank"],
       r"NCCL (?P<consequence>communicator was aborted) on rank (?P<rank>\d+)",
       action="FIND_FIRST_FAILING_RANK", event=TORCH_PG_ONCE),
    # PyTorch 2.x: "NCCL error: remote process exited ..." and "NCCL error in: <file>:<line>, remote process exited ..";
    # its exception text goes on with NCCL's own description of the code ("ncclRemoteError: A call failed possibly
    # due to ..."), part of the same failure (NCCL_EXC_JOIN); that line alone is a failure of its own.
    _r("nccl_remote", "nccl_remote_error", ["remote process exited"],
       r"(?:\[Rank (?P<rank>\d+)\] .*?)?NCCL error(?: in: [^,\n]*,|:) remote process exited",
       event=NCCL_EXC_OPEN),
    # A failed NCCL call as the frameworks that call NCCL themselves word it, "<call> failed: <ncclGetErrorString()>":
    # XLA (JAX, TensorFlow/XLA, PyTorch/XLA) every era, TF 2.x's "NCCL operation ncclAllReduce(send_buffer, recv_buffer,
    # ..) failed: invalid usage: while running replica 0 .." (j-towns/vdvae-jax #2), "INTERNAL: external/xla/xla/
    # service/gpu/nccl_utils.cc:275: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) failed: unhandled cuda
    # error" (jax-ml/jax #17399), 2024's ".. failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last
    # NCCL warning(error) log entry (may be unrelated) '..'" (jax #22747), the asynchronous "NCCL operation async_err
    # failed: remote process exited or there was a network error" after its "Aborting communicator .. due to async NCCL
    # error: .." (jax #19307); Horovod's "RuntimeError: ncclCommInitRank failed: unhandled cuda error (run with
    # NCCL_DEBUG=INFO for details)" (pytorch/ignite #3466). XLA repeats one failure as it rethrows it ("Execution of
    # replica 3 failed: .. NCCL operation .. failed: .."): a line of the open exception's event (NCCL_EXC_JOIN), alone
    # the failure. The text is ncclGetErrorString()'s (NCCL_TEXT); the keywords are it after "failed: ".
    _r("nccl_call_remote", "nccl_remote_error", ["failed: remote process exited"],
       NCCL_CALL_FAILED + r"remote process exited", event=NCCL_EXC_JOIN),
    _r("nccl_call_failed", "nccl_error", ["failed: " + t for t in NCCL_TEXTS],
       NCCL_CALL_FAILED + r"(?P<nccl_text>" + "|".join(NCCL_TEXTS) + ")",
       refine="nccl_text", event=NCCL_EXC_JOIN),
    _r("nccl_remote_code", "nccl_remote_error", ["ncclRemoteError"], r"(?:\[Rank (?P<rank>\d+)\] .*?)?ncclRemoteError",
       event=NCCL_EXC_JOIN),
    # the socket to a peer rank closed under NCCL: the peer process died or the network dropped it. GCP's GPUDirect-TCPX
    # plugin prints NCCL's words with its connection's flow string (net_tcpx.cc taskProgress, "Net : Connection closed
    # by remote peer %s"), "<local><port><-<peer><port>" on a receiving connection as its ctrl timeout lines print it
    # ("172.16.0.11<39187><-172.16.0.95<46723>", google/nccl-plugin-gpudirecttcpx #1): the peer is after "<-"
    # (TCPX_FLOW), never the local address before it.
    _r("nccl_socket_closed", "nccl_remote_error", ["Connection closed by remote peer"],
       r"NCCL WARN (?:socketProgress|Net) ?: Connection closed by remote peer(?: " + TCPX_FLOW +
       r"(?P<peer>[^<\s]+)(?:<(?P<peer_port>\d+)>)?)?"),
    # the same from the socket call that saw it: "NCCL WARN Net : Call to recv from 10.200.84.247<58355> failed : Broken
    # pipe" (2.1x), "NCCL WARN socketProgressOpt: Call to send to 10.44.137.149<52905> failed : Connection reset by peer"
    # (2.2x): the other end reset or closed the connection.  (A connect the peer refused is retried by NCCL at INFO; its
    # WARN, once the retries are spent, is nccl_connect_failed's.)
    _r("nccl_socket_reset", "nccl_remote_error", ["Connection reset by peer", "Broken pipe"],
       r"NCCL WARN (?:socketProgress(?:Opt)?|Net) ?: Call to (?:send to|recv from) (?P<peer>[^<\s]+)(?:<(?P<peer_port>\d+)>)? "
       r"failed ?: (?P<socket_error>Connection reset by peer|Broken pipe)"),
    # NCCL's connect to a peer that failed for good (its retries spent, or an error it does not retry), every era's
    # words (src/misc/socket.cc; src/os/linux.cc since 2.28): "socketStartConnect: Connect to 10.0.0.2<45763> failed :
    # Software caused connection abort" (2.18, NVIDIA/nccl-tests #166), 2.19-2.23's "socketPollConnect: Connect to %s
    # returned %d(%s) errno %d(%s)", 2.24-2.26's "<func>: Connect to %s failed : %s", 2.27's "socketPollConnect: connect
    # to 10.82.101.249<54709> returned Connection refused, exceeded error retry count after 35 attempts" and 2.28+'s
    # "ncclOsSocketPollConnect: connect to 10.99.91.49<36141> returned .." (devopsrustem/slurmv4, SGLang on two nodes,
    # 2026), "<func>: connect to %s failed : %s", "socketPollConnect to %s failed with error %s", 2.12-2.14's "Net :
    # Connect to %s failed : %s", 2.9's "Connect to %s failed : %s".  Every era prints it once it gives up (a refused
    # or timed-out connect is retried first, at INFO) and returns an error: the peer never accepted (its process died or was not up, or the network to it is
    # down); the init fails after it ("remote process exited or there was a network error").  Was: NCCL's plain
    # warning, no peer.  The retries before it are INFO lines ("connect returned No route to host, retrying (26/34)"):
    # not this row.
    _r("nccl_connect_failed", "nccl_remote_error", ["onnect to "],
       r"NCCL WARN (?:Net : )?(?:(?P<socket_call>(?:ncclOs)?[Ss]ocket\w*?Connect):? )?(?:[Cc]onnect )?to (?P<peer>[^<\s]+)"
       r"<(?P<peer_port>\d+)> (?:failed(?: :| with error) |returned )(?P<socket_error>[^,\n]+?)"
       r"(?:, exceeded error retry count after (?P<connect_attempts>\d+) attempts)?\s*$"),
    # NET/IB's connection set-up to a peer's queue pair failing because the local NIC cannot reach the peer's: the move
    # to RTR (ibv_modify_qp) timing out or finding no route, every era's words (src/misc/ibvwrap.cc): "misc/ibvwrap.cc:
    # 187 NCCL WARN Call to ibv_modify_qp failed with error Network is unreachable" (NVIDIA/nccl-tests #185, DGX H100),
    # "ibvwrap.c:160 NCCL WARN Call to ibv_modify_qp failed with error Connection timed out" (nccl-tests #227, NCCL
    # 2.21.5 over RoCE), 2.27's "ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on
    # dev mlx_x:1, curr state INIT, next state RTR, .." (NVIDIA/nccl #2013: seven or more HGX nodes on a rail-connected
    # RoCE fabric, NCCL_CROSS_NIC=0 the fix). The communicator's init fails after it. The network between the two NICs
    # (routes, GIDs, rails), not either process: attribution fabric, action CHECK_FABRIC (was: the NCCL WARN row's
    # warning, unknown). Another call's or another error's failure (ibv_create_qp's, "No such device") stays that
    # warning.
    _r("nccl_ib_qp_unreachable", "nccl_error", ["Call to ibv_modify_qp failed"],
       r"NCCL WARN Call to (?P<ibv_call>ibv_modify_qp) failed with (?:error )?(?:(?P<errno>\d+) )?"
       r"(?P<ibv_error>Connection timed out|Network is unreachable|No route to host)"
       r"(?:, on dev (?P<ib_dev>[^\s,:]+):(?P<ib_port>\d+), curr state (?P<qp_state>\w+), next state (?P<qp_next>\w+))?",
       attribution="fabric", action="CHECK_FABRIC"),
    # NET/IB's registration of a buffer (GPU memory with GPUDirect RDMA) with the NIC refused, every call NCCL makes
    # for it (src/misc/ibvwrap.cc IBV_PTR_CHECK_ERRNO, every era: "Call to <call> failed with error <strerror>", then
    # ncclSystemError): ibv_reg_mr, 2.12+'s ibv_reg_mr_iova2, 2.13+'s ibv_reg_dmabuf_mr. "misc/ibvwrap.cc:182 NCCL
    # WARN Call to ibv_reg_mr_iova2 failed with error Invalid argument" on two A100 nodes with driver 470 (NVIDIA/nccl
    # #1842, Megatron) and on a two-node Megatron SFT (modelscope/ms-swift #6107, its rank's "NCCL Error 2: unhandled
    # system error" after it); "misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation
    # not supported" (NVIDIA/nccl #778, nccl-tests on two nodes: "Perhaps your IB driver version is too old to support
    # DMABUF?", the maintainer). The node's GPUDirect RDMA set-up (its peer-memory module, GPU and NIC drivers, a GPU
    # without GDR), not the link: attribution driver, and the job's cause on that node (triage.attribute
    # IBV_CALL_CATEGORY; was: the NCCL WARN row's warning, unknown, and triage found no cause). ENOMEM, the pod's
    # locked-memory limit, is not the node's (IBV_REG_FAILED: the NCCL WARN row's warning; triage's memlock_limit).
    _r("nccl_ib_reg_mr_failed", "nccl_error", ["Call to ibv_reg_"], r"NCCL WARN " + IBV_REG_FAILED,
       attribution="driver", event=NCCL_IBV_OPEN),
    # PyTorch's NCCL exception quoting that WARN after "Last error:" (NCCL_LAST_ERROR), the rank's traceback before it:
    # "[rank18]: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error."
    # then "[rank18]: Last error:" and "[rank18]: Call to ibv_reg_mr failed with error Bad address" (NCCL 2.21.5 under
    # LLaMA-Factory). The same failure as the WARN: after it (within EVENT_LINES, NCCL's INFO trace between), the quote
    # is the WARN's event, no second finding (EVENT_PER_GROUP: a quote of another error is its own); alone (NCCL_DEBUG
    # unset: no WARN printed), the node's registration failure as the WARN would be (was: nothing of it, the
    # exception's nccl_error alone, unknown).
    _r("nccl_last_ib_reg_mr", "nccl_error", ["Call to ibv_reg_"], NCCL_LAST_ERROR + IBV_REG_FAILED,
       attribution="driver", event=(NCCL_IBV_OPEN[0], "within")),
    # The same socket errors as PyTorch quotes NCCL's last error in its exception, on a line of its own after "Last
    # error:", without NCCL's "NCCL WARN " (and its host:pid:tid prefix): "socketProgress: Connection closed by remote
    # peer ip-172-31-45-209.eu-north-1.compute.internal<32926>" (pytorch/pytorch #150916), "socketProgressOpt: Call to
    # recv from 172....<33759> failed : Connection reset by peer" (NVIDIA/nccl #2076). Part of the exception's one
    # failure (NCCL_EXC_JOIN), the peer it names that failure's (EVENT_FILLS); alone (the exception's lines lost), the
    # failure itself, as NCCL's own line would be. NVSHMEM's bootstrap carries a copy of NCCL's socket code and prints
    # the same words after its own "<file>:<function>:<line>: " (NVSHMEMI_ERROR_PRINT): "/sgl-workspace/nvshmem/src/
    # modules/bootstrap/uid/ncclSocket/ncclsocket_socket.cpp:socketProgressOpt:39: socketProgressOpt: Call to recv from
    # 10.179.114.196<38229> failed : Broken pipe" (deepseek-ai/DeepEP #223; was: nothing).
    _r("nccl_socket_quoted", "nccl_remote_error", ["Connection closed by remote peer", "Connection reset by peer",
                                                   "Broken pipe"],
       r"^(?:\[rank\d{1,9}\]:)?\s*(?:\S+\.(?:cpp|cc):socketProgress(?:Opt)?:\d+: )?(?:socketProgress(?:Opt)?|Net) ?: "
       r"(?:Connection closed by remote peer|Call to (?:send to|recv from)(?= \S+ failed ?: (?:Connection reset by "
       r"peer|Broken pipe)))(?: " + TCPX_FLOW + r"(?P<peer>[^<\s]+)(?:<(?P<peer_port>\d+)>)?)?"
       r"(?: failed ?: (?P<socket_error>Connection reset by peer|Broken pipe))?",
       event=NCCL_EXC_JOIN),
    # Gloo's TCP transport (PyTorch's gloo backend: CPU collectives, monitored_barrier, vLLM's and SGLang's CPU groups)
    # on the peer it lost, GLOO_ERROR_MSG's "[<file>:<line>] " then gloo/transport/tcp/pair.cc's (pair.h's for the
    # connect) words and the peer as Address::str() prints it, "[ip]:port", every era: "RuntimeError:
    # [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:10895" (EOF: the peer
    # process died), "[..pair.cc:589] Read error [192.168.70.92]:25266: Connection reset by peer"
    # (RVC-Project/Retrieval-based-Voice-Conversion-WebUI #1882, 2024; kvcache-ai/Mooncake #842's pair.cc:535, 2025),
    # PyTorch's docs' "[gloo/transport/tcp/pair.cc:598] Connection closed by peer [2401:db00:..:25d]:8594"
    # (docs/source/distributed.rst, monitored_barrier); pair.cc's other words on a peer: "Read timeout", "Write
    # timeout", "writev [..]: <strerror>", "Socket closed", "Socket unexpectedly closed", pair.h's "Connect timeout";
    # gloo since 2025 adds "This is typically caused by a remote worker crashing. ..." after it.  The peer's process
    # or the network to it went away: NCCL's remote error's kind, its peer the peer (was: nothing, and triage found
    # no failure in a Gloo job that lost a rank).
    _r("gloo_peer", "nccl_remote_error", ["tcp/pair."],
       # (the path's bracket holds no other "[": a gap from each "[" ends at the next, linear)
       r"\[[^\]\s\[]*?gloo/transport/tcp/(?:tls/)?pair\.(?:cc|h):\d+\] (?P<gloo_error>Connection closed by peer|"
       r"Read error|Read timeout|Write timeout|writev|Socket closed|Socket unexpectedly closed|Connect timeout) "
       r"\[(?P<peer>[0-9A-Fa-f.:]+)\]:(?P<peer_port>\d+)(?:: (?P<socket_error>[A-Za-z][\w /'-]*))?"),
    # DeepEP's expert-parallel kernels (Megatron-LM's and SGLang's MoE dispatch / combine over NVLink and NVSHMEM) giving
    # up on a peer's data or flag, GPU printf then a trap, one line per thread or channel: "DeepEP timeout check failed:
    # rank = 6, thread = 0, value = 0)" (barrier_block; deepseek-ai/DeepEP #570, 2026), "DeepEP dispatch forwarder
    # timeout (RDMA meta), channel: 4, RDMA: 1, nvl: 4, src RDMA lane: 0, dst NVL: 5, meta: 0, 0, 0, 0", "DeepEP dispatch
    # NVL receiver timeout, channel: 9, .." (#137), the host's "RuntimeError: DeepEP error: timeout (dispatch CPU)", and
    # every other kernel's "DeepEP <what> timeout, .." (csrc/kernels: notify, combine, RDMA sender, NVLink / Gin
    # barrier): the collective waited for a rank that never delivered (the peer died or hung, or the RDMA path stalled),
    # a consequence as PyTorch's watchdog timeout is; the lines that follow each other are one event (was: nothing).
    # The rank it prints is the EP group's, not the job's: details.
    _r("deepep_timeout", "nccl_timeout", ["DeepEP "],
       r"\bDeepEP (?:error: )?(?P<deepep>[^,:\n]{0,80}?\btimeout\b[^,:\n]{0,40})"
       r"(?:(?:: rank =|, rank:?) (?P<ep_rank>\d+))?",
       event=("deepep", "join")),
    # SGLang's watchdog (each TP scheduler's thread) finding the forward counter frozen for watchdog_timeout seconds
    # while a batch runs: the forward pass hung (a collective waiting for a rank that never came, a stuck kernel); it
    # dumps py-spy stacks, logs, and SIGQUITs its parent, which kills the server. Each rank's scheduler prints its own
    # line under its tag (the finding's rank): 0.4.x "[2025-03-09 00:57:15 TP4] Watchdog timeout
    # (self.watchdog_timeout=300)" (sgl-project/sglang #3752, #7553, #12076), since utils/watchdog.py's ProcessWatchdog
    # "<debug_name> watchdog timeout (self.watchdog_timeout=300, self.soft=False)" ("Scheduler ..", constructed from
    # that source). A consequence, as PyTorch's watchdog timeout is: the rank that failed first is the root (was:
    # nothing). The soft watchdog's ".., self.soft=True)" only logs and the server goes on: no finding (a stall that
    # lasts is the progress tracker's, agent/progress.py).
    _r("sglang_watchdog_timeout", "nccl_timeout", ["Watchdog timeout (self.", "watchdog timeout (self."],
       r"(?:\b(?P<watchdog>[A-Z]\w{0,40}) watchdog|\bWatchdog) timeout \(self\.watchdog_timeout=(?P<timeout_s>\d+(?:\.\d+)?)"
       r"(?:, self\.soft=False)?\)"),
    # NVSHMEM (DeepEP's transport: SGLang's, vLLM's and Megatron's MoE all-to-all) failing the job, every line its error
    # path prints on the way out, each led by the source file under its build tree (nvshmem/, nvshmem_src/, a CUDA
    # toolkit build's main_nvshmem/): the error chain's "<file>:<line>: non-zero status: <n> <what> failed" (NZ_ERROR_JMP,
    # several on one line as they unwind: "bootstrap_uid.cpp:496: non-zero status: -6 .. topo.cpp:477: non-zero status:
    # -6 allgather of ipc handles failed", "init.cu:998: non-zero status: 7 building transport map failed"), the fatal
    # exit's "<file>:<function>:<line>: <message>" then exit(-1) (NVSHMEMI_ERROR_EXIT: "init.cu:nvshmemi_check_state_and_
    # init:1080: nvshmem initialization failed, exiting" (deepseek-ai/DeepEP #223), "mem_heap.cpp:exchange_heap_memory_
    # handle:775: Fatal IPC Failure" (#316, two hosts of one hostname), "team.cu:nvshmem_team_split_strided:63: NVSHMEM
    # API called before NVSHMEM initialization has completed"), the host API's "nvshmemx_api.h:63: non-zero status: 7:
    # Connection timed out, exiting..." and its "aborting due to error in nvshmemi_init_thread" (#150): the library's
    # failure, a consequence of whatever broke (a peer, the network, the host's set-up) as NCCL's own errors are; the
    # lines that follow each other are one event (was: nothing, the job's failure unseen). Its debug trace has the
    # same prefix and no failure ("bootstrap_uid.cpp:bootstrap_uid_barrier:559: rank 2 nranks 4 tag 0 - ENTER"): no
    # finding; its bootstrap's socket to a peer breaking is the nccl_socket_quoted row's (it names the peer).
    # NVSHMEM trying its transports in turn at init (nvshmemi_transport_init): one that will not start is printed and
    # skipped, once per PE, and the init goes on with the next (IBRC, UCX, libfabric, NVLink P2P): "/home/bit/
    # zhangzhiwei/nvshmem-3.5.19-1/src/host/transport/transport.cpp:nvshmemi_transport_init:282: init failed for
    # transport: IBGDA" then NVSHMEM's INFO lines of the init going on ("P2P list: 0", "NVSHMEM_TEAM_SHARED: ..",
    # NVIDIA/nvshmem #51). A fallback, no finding (was: an nccl_error, an error on every rank); with no transport left
    # the init fails in lines of its own ("Unable to initialize any transports", then "non-zero status: 7 nvshmem
    # detect topo failed", "nvshmem initialization failed, exiting": the rows below).
    _r("nvshmem_transport_skipped", None, ["init failed for transport: "],
       NVSHMEM_SOURCE + r"nvshmemi_transport_init:\d+: init failed for transport: \w+\s*$"),
    # Its IB transports moving a queue pair to the peer's (ep_connect's INIT -> RTR -> RTS, IBGDA's DCT init2rtr)
    # failing because the local NIC cannot reach the peer's, ibv_modify_qp's errno the chain's status: 110
    # (ETIMEDOUT: the peer's address not resolved, RoCE's GID / route), 101 or 113 (no route): "/work/nvshmem_src/src/
    # modules/transport/ibrc/ibrc.cpp:418: non-zero status: 110 ibv_modify_qp failed " (deepseek-ai/DeepEP #38, H100 over
    # RoCE, NVSHMEM told AF_INET while its GIDs' addresses were "::"), NCCL's nccl_ib_qp_unreachable in NVSHMEM's words:
    # the network between the two NICs, attribution fabric, action CHECK_FABRIC (was: unknown, INVESTIGATE). The
    # event's first line (the chain prints the failed call first); another status (22, a bad attribute) stays the row
    # below.
    # Its symmetric heap's physical memory not had: the CUDA driver's cuMem call returning CUDA_ERROR_OUT_OF_MEMORY (2),
    # the chain's status the CUresult (mem_heap.cpp's NVSHMEMI_NE_ERROR_JMP): "/nvshmem/src/host/mem/mem_heap.cpp:1509:
    # non-zero status: 2 cuMemCreate failed " then "non-zero status: 7 allocate_physical_memory_to_heap failed"
    # (deepseek-ai/DeepEP #157, DeepEP's buffer on two H800 nodes; sgl-project/sglang #29942 traced the same to a
    # physical allocation beyond the GPU's free memory). The job out of GPU memory, the kind NCCL's own "Cuda failure 2
    # 'out of memory'" is (was: nccl_error, unknown, INVESTIGATE); the event's first line, the chain after it part of
    # it.
    _r("nvshmem_cuda_oom", "cuda_oom", ["cuMem"],
       NVSHMEM_SOURCE + r"\d+: non-zero status: 2:? (?P<nvshmem_error>cuMem\w+ failed)", event=("nvshmem", "join")),
    # Its messages naming the NVSHMEM_* setting the job must raise, a limit of its own configuration reached, not the
    # GPU's or the fabric's: team_internal.cpp's "error status: 2 (NVSHMEMX_ERROR_OUT_OF_MEMORY) No more teams
    # available (max = 7), try setting NVSHMEM_MAX_TEAMS environment variable" (NVIDIA/nvshmem #100, DeepEP's low
    # latency mode on NVSHMEM 3.7), its "Please increase NVSHMEM_MAX_TEAMS. Exiting", mem_heap.cpp's "nvshmem malloc
    # failed (hint: .. can be increased using NVSHMEM_SYMMETRIC_SIZE environment variable)": the job's nccl_error,
    # attribution application, action CHECK_APP, the setting in details (was: unknown, INVESTIGATE).
    _r("nvshmem_setting", "nccl_error", ["NVSHMEM_"],
       NVSHMEM_SOURCE + r"(?:\w+:)?\d+: (?:(?:non-zero|error) status: -?\d+:? (?:\(\w+\) )?)?"
       r"(?P<nvshmem_error>[^\n]{0,200}?\b(?:try setting|[Ii]ncrease|increased using) "
       r"(?P<nvshmem_setting>NVSHMEM_[A-Z_]+)\b)", attribution="application", action="CHECK_APP",
       event=("nvshmem", "join")),
    _r("nvshmem_ib_qp_unreachable", "nccl_error", ["ibv_modify_qp"],
       NVSHMEM_SOURCE + r"\d+: non-zero status: (?P<errno>110|101|113):? (?P<ibv_call>ibv_modify_qp)\b"
       r"(?P<nvshmem_error>[^\n/]{0,40}?failed)", attribution="fabric", action="CHECK_FABRIC",
       event=("nvshmem", "join")),
    # Its check of a CUDA runtime call (CUDA_RUNTIME_CHECK, src/include/internal/host/util.h; copied into its examples
    # and perftests as CUDA_CHECK): fprintf "[%s:%d] cuda failed with %s \n" (cudaGetErrorString) then exit(-1), on
    # every PE the failure reaches, the PEs' lines interleaved without a rank: "[/nvshmem/src/host/coll/barrier/
    # barrier.cpp:21] cuda failed with an illegal memory access was encountered " three times after the four PEs'
    # cuMemCreate chain (deepseek-ai/DeepEP #157). The status reads as in every other wrapper's words (CUDA_ERRORS);
    # the PEs' lines are one event with the chain before them (were a cuda_error per line). The path stops at a bracket:
    # read to the line's end from every "[", a flood of them was quadratic.
    _r("nvshmem_cuda_check", "cuda_error", ["cuda failed with ", "CUDA failed with "],
       r"\[[^\s\[\]]+\.(?:cpp|cu|cuh|cc|c|h):\d+\] (?:cuda|CUDA) failed with (?P<cuda_error>"
       + CUDA_ERROR_TEXTS + r")\s*$", refine="cuda", event=("nvshmem", "join")),
    _r("nvshmem_error", "nccl_error", ["nvshmem"],
       NVSHMEM_SOURCE + r"(?:(?P<nvshmem_function>\w+):)?\d+: (?:non-zero status: -?\d+:? )?"
       r"(?P<nvshmem_error>[^\n]{0,120}?(?:\bfail(?:ed|ure)?\b|\bFail(?:ed|ure)\b|\bexiting\b|"
       r"before NVSHMEM initialization|Unable to initialize any transports))|"
       r"aborting due to error in (?P<nvshmem_call>nvshmem\w*)",
       event=("nvshmem", "join")),
    # The error chain's jumps whatever their message says (its error macros, nvshmemx_error.h):
    # NVSHMEMI_NULL_ERROR_JMP's "<file>:<line>: NULL value <what>" (a call returned NULL), NVSHMEMI_NZ_ERROR_JMP's and
    # NE_ERROR_JMP's "non-zero status: <n> <what>", EQ_ERROR_JMP's "error status: <n> <what>": each a jump to the error
    # path, its message often no failure word: "ibgda.cpp:2234: NULL value Unable to create ah." then "ibgda.cpp:2966:
    # non-zero status: 7 create DCT share err." (NVIDIA/nvshmem #33, 3.4.5 on B300 + CX8; NVIDIA-NeMo/Megatron-Bridge
    # #5050, 2026: NVSHMEM's init failing on every rank), "ibgda.cpp:1889: NULL value cannot allocate mlx5dv_devx_uar"
    # (sgl-project/sglang #12533: IBGDA in a container without the RDMA privileges). A line of the same event (were:
    # nothing, the chain's first lines unseen). A message starting with another source path is a line the ranks'
    # output interleaved (its jumps cut): the line's later message is read, if whole.
    _r("nvshmem_error_jump", "nccl_error", ["nvshmem"],
       NVSHMEM_SOURCE + r"\d+: (?:NULL value|(?:non-zero|error) status: -?\d+:?) "
       r"(?P<nvshmem_error>[^/\s][^\n]{0,119}?)\.?\s*(?=$|/\S*nvshmem)", event=("nvshmem", "join")),
    # XLA:GPU's rendezvous (JAX, PyTorch/XLA, TensorFlow/XLA): the threads of one process, one per local GPU, meet
    # before a collective, a clique's (communicator's) set-up or an executable's first run; one that does not arrive
    # in time (its GPU stuck, or the clique waiting on another host's process that never came) hangs the rest. Every
    # waiting thread says so, once the warn-stuck timeout passed, each era's wording (xla/service/rendezvous.cc): 2022's
    # "This thread has been waiting for 10 seconds and may be stuck:", 2023's "This thread has been waiting for `<name>`
    # for 10 seconds and may be stuck.", 2024+'s ".. may be stuck. Expected 8 threads to join the rendezvous, but not all
    # of them arrived on time." ("E ..rendezvous.cc:38] This thread has been waiting for `initialize clique for rank 6;
    # clique=devices=[0,..,15]; stream=0; run_id=724296073` for 10 seconds ..", jax-ml/jax #22740; "rendezvous.cc:98]
    # .. `rendezvous of collective-permute; run_id=15; op id:1` for 20 seconds ..", openxla/xla #22588), 2025+ with
    # "[id=1] " before it: the job's hang announced before anything times out (was: nothing), a warning (XLA may yet
    # print "Thread is unstuck! Warning above was a false-positive.", no finding). After the terminate timeout the
    # process exits (code 42): "Termination timeout of 40 seconds exceeded. Exiting to ensure a consistent program
    # state." (2022), "Termination timeout for `<name>` of 40 seconds exceeded. Exiting .." (2023+): the same hang,
    # its finding's amendment to an error. The threads' lines are one event; a consequence, as a watchdog timeout is.
    _r("xla_rendezvous_stuck", "nccl_timeout", ["and may be stuck"],
       r"This thread has been waiting for (?:`(?P<rendezvous>[^`\n]{1,400})` for )?(?P<seconds>\d+) seconds and may be "
       r"stuck(?:\. Expected (?P<threads>\d+) threads to join the rendezvous)?",
       severity="warning", event=("xla_rendezvous", "join")),
    _r("xla_rendezvous_terminate", "nccl_timeout", ["Exiting to ensure a consistent program state"],
       r"Termination timeout (?:for `(?P<rendezvous>[^`\n]{1,400})` )?of (?P<seconds>\d+) seconds exceeded\. Exiting "
       r"to ensure a consistent program state",
       event=("xla_rendezvous", "escalate")),
    _r("xla_rendezvous_unstuck", None, ["Thread is unstuck!"], r"Thread is unstuck! Warning above was a false-positive"),
    # JAX's multi-process runtime (jax.distributed, XLA's coordination service) ending a task because the service
    # reported a failure, every task's own words once one task died: "F0926 17:26:32.075587  157988 client.h:77]
    # Terminating process because the JAX distributed service detected fatal errors. This most likely indicates that
    # another task died; see the other task logs for more details. .. absl::Status: UNAVAILABLE: The following tasks
    # are unhealthy (stopped sending heartbeats):" (the dead task on the next line, "/job:jax_worker/replica:0/task:3"),
    # and with the leader (task 0, the service's host) gone, ".. UNAVAILABLE: Failed to send RPC to coordination
    # service. Either the leader task was preempted/died/restarted unexpectedly or this task is experiencing network
    # issues." (JAX's docs, docs/fault_tolerance.rst); "Polled an error from coordination service (this can be an error
    # from this or another task)." before it is the same failure (no finding). A peer's death seen by a live task: a
    # consequence, as NCCL's remote error is (was: nothing; then the kind nccl_remote_error, worded "NCCL remote error":
    # its own kind, coordination_error, now).  Before it (2022-2024), and still printed first, the PJRT
    # client's error callback on the same failure: "E external/xla/xla/pjrt/distributed/client.cc:96] Coordination
    # service agent in error status: DEADLINE_EXCEEDED: Deadline Exceeded" (google/paxml #77, 1024 GPUs: a task that
    # could not register with the leader; xla/pjrt/distributed/client.cc's error_fn, before missed_heartbeat_callback);
    # was: nothing, the job's failure unseen.  Between them (2023-2024), the same client's missed-heartbeat callback
    # (xla/pjrt/distributed/client.h, LOG(QFATAL)), in two wordings: "Terminating process because the coordinator
    # detected missing heartbeats. This most likely indicates that another task died; see the other task logs for more
    # details. Status: .." (the service named another task dead: NVIDIA/cloudai's JAX-Toolbox job status reads a
    # failed run by it) and "Terminating process because of missing heartbeat response from the coordinator. This most
    # likely indicates that the coordinator task died; .. Status: .." (the leader, task 0, gone); was: nothing.
    _r("jax_fatal_errors", "coordination_error", ["JAX distributed service detected fatal errors",
                                                  "Coordination service agent in error status",
                                                  "coordinator detected missing heartbeats",
                                                  "missing heartbeat response from the coordinator"],
       r"(?:Terminating process because the JAX distributed service detected fatal errors(?:.*?absl::Status: "
       r"(?=[A-Z_]+: ))?|Coordination service agent in error status: (?=[A-Z_]+: )|Terminating process because "
       r"(?:the coordinator detected missing heartbeats|of missing heartbeat response from the coordinator)"
       r"(?:.*?Status: (?=[A-Z_]+: ))?)"
       r"(?:(?P<status>[A-Z_]+): (?P<status_text>[^.(\n]{1,120}))?"),
    _r("jax_polled_error", None, ["Polled an error from coordination service"],
       r"Polled an error from coordination service"),
    # (the transport's name varies: "NET/IB : ", the IB plugin's "NET/IBext_v8 : ", "NET/IBP:"); 2.2x ends the line
    # with the local adapter, "... vendor err 129 (Recv) localGid ::ffff:192.168.6.3 remoteGids::ffff:192.168.6.5 hca
    # mlx5_10" (NVIDIA/nccl #1698): the device the error is about
    _r("ib_completion", "ib_completion_error", ["Got completion"],
       r"NET/IB\w* ?: ?Got completion (?:from peer (?P<peer>[^<\s]+)(?:<(?P<peer_port>\d+)>)? )?with "
       r"(?:error |status=)(?:(?P<wc_status>IBV_WC_\w+)\()?(?P<error_code>\d+)(?:.*?vendor[ _]err[ =]?(?P<vendor_err>\d+))?"
       r"(?:.*? hca (?P<netdev>[\w.+\-]+))?",
       refine="ib_wc"),
    # UCX's report of a failed completion on an mlx5 device (uct_ib_mlx5_completion_with_err, src/uct/ib/mlx5/
    # ib_mlx5_log.c): what NET/IB's "Got completion .. with error" is for NCCL, for the jobs whose transport is UCX (MPI
    # under UCX, UCC, NIXL under the disaggregated serving of Dynamo, vLLM and SGLang). 1.8+: "[host:pid:0:tid]
    # ib_mlx5_log.c:177  Transport retry count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)" (openucx/ucx
    # #9590: UCX 1.15, HDR; #5199; the "[host:..]" prefix left out in #5634), 1.5: "ib_mlx5_log.c:115  FATAL: Error on
    # mlx5_3:1 QP 0xe6d7 wqe[7821]: Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND" (#2973); the line
    # after it names the queue pair and its work request ("DCI QP 0xd16 wqe[6168]: SEND s-e [rqpn ..]"), no event of
    # its own. The syndrome is the CQE's (MLX5_CQE_SYNDROME_*), named as libibverbs names the status (MLX5_SYNDROME_WC).
    # Was: nothing.
    _r("ucx_completion", "ib_completion_error", ["ib_mlx5_log.c:"],
       r"ib_mlx5_log\.c:\d+ +(?:FATAL: Error on (?P<old_netdev>[\w.+\-]+):(?P<old_port>\d+) QP 0x[0-9a-fA-F]+ "
       r"wqe\[\d+\]: )?(?P<ucx_error>[A-Z][\w -]*?)(?: on (?P<netdev>[\w.+\-]+):(?P<port>\d+)/(?P<link_layer>\w+))? "
       r"\(synd 0x(?P<syndrome>[0-9a-fA-F]+) vend 0x(?P<vendor_err>[0-9a-fA-F]+)",
       refine="mlx5_syndrome"),
    # The same failure under UCX's verbs transports (rc_verbs, dc_verbs, ud_verbs: no mlx5 direct access, a RoCE NIC
    # of another vendor's or UCX_TLS=rc_v), the status in ibv_wc_status_str's words, in every era's wording: 2016's
    # fatal "rc_verbs_iface.c:98   Fatal: Send completion with error: transport retry counter exceeded" (#733), 2017's
    # "dc_verbs.c:614  UCX  ERROR Send completion with error on qp 0x6214: remote access error syndrome 0x88" (the
    # vendor error; #1569, #1880), 2018's "rc_verbs_iface.c:63   FATAL: send completion with error: transport retry
    # counter exceeded" (#2322), 2021's "send completion with error: local protection error [qpn 0xf9db wrid
    # 0x149vendor_err 0x51]" (the missing space UCX's, #7774) and later releases' "... qpn 0x%x wrid 0x%lx
    # vendor_err 0x%x" (rc_verbs_iface.c uct_rc_verbs_handle_failure). The line after it ("[rqpn 0xf9e9 dlid=10 sl=0
    # port=1 ..]") is the peer's queue pair, no event of its own. Was: nothing. The transports that report a completion
    # through the interface's shared words (src/uct/ib/base/ib_iface.h UCT_IB_IFACE_VERBS_COMPLETION_MSG, 2017 on:
    # "<send|receive> completion[<i>] with error on <device>/<iface>: <status>, vendor_err 0x.. wr_id 0x..") name the
    # device, not the queue pair: EFA's SRD transport under NIXL, "srd_iface.c:221  UCX  ERROR send completion[0] with
    # error on rdmap132s0/0x55cf4425cfb0: Work Request Flushed Error, vendor_err 0x1 wr_id 0x7f8b20022480" from each of
    # a prefill pod's processes before NIXL_ERR_REMOTE_DISCONNECT (ai-dynamo/nixl #1983, SGLang on B200 over EFA), and
    # rc_verbs' fatal receive completion (rc_verbs_impl.h). Was: nothing.
    _r("ucx_verbs_completion", "ib_completion_error", ["end completion with error", "completion["],
       r"\b\w+\.[ch]:\d+ +(?:UCX +(?:ERROR|DIAG|WARN) +|FATAL: |Fatal: )?(?:[Ss]end completion with error(?: on qp "
       r"0x[0-9a-fA-F]+)?|(?:send|receive) completion\[\d+\] with error on (?P<netdev>[\w.+\-]+)/(?:0x)?[0-9a-fA-F]+): "
       r"(?P<wc_words>[A-Za-z]+(?: [A-Za-z]+)*?)(?= syndrome | ?\[?qpn |, vendor_err |\s*$)"
       r"(?: syndrome 0x(?P<vendor_err>[0-9a-fA-F]+)|(?: ?\[?qpn 0x[0-9a-fA-F]+ wrid 0x[0-9a-fA-F]+ ?|, )vendor_err "
       r"0x(?P<qp_vendor_err>[0-9a-fA-F]+))?",
       refine="ucx_verbs_wc"),
    # The same failure under Mooncake's transfer engine (SGLang's and vLLM's disaggregated prefill/decode KV transfer,
    # Mooncake store): its RDMA worker pool's glog line for a slice whose work request completed in error, the status
    # in ibv_wc_status_str's words after the slice (mooncake-transfer-engine worker_pool.cpp, every release's: "E0917
    # 16:23:13.419399 4058290 worker_pool.cpp:294] Worker: Process failed for slice (opcode: 1, source_addr: 0x..,
    # length: 3584, dest_addr: 0x.., local_nic: mlx5_7, peer_nic: 115.182.224.13:15004@mlx5_7, dest_rkey: 2137688,
    # retry_cnt: 1): local protection error", sgl-project/sglang #10560; "... dest_addr: 140532604981264, local_nic:
    # mlx5_1, peer_nic: 127.0.0.1:8149@mlx5_0, ..): transport retry counter exceeded", vllm-project/vllm #10884), the
    # peer the remote NIC's host. "Too many errors found in local RNIC .., mark it inactive" and "Context is not
    # active: mlx5_7" after it are the engine's reaction, no event of their own. Was: nothing.
    _r("mooncake_slice_failed", "ib_completion_error", ["Process failed for slice"],
       r"Worker: Process failed for slice \(opcode: \d+,[^()\n]*? local_nic: (?P<netdev>[\w.+\-]+), peer_nic: "
       r"(?P<peer>[^\s:@,]+)(?::\d+)?@[\w.+\-]+,[^()\n]*\): (?P<wc_words>[A-Za-z]+(?: [A-Za-z]+)*)",
       refine="ucx_verbs_wc"),
    # libibverbs' mlx5 provider (rdma-core providers/mlx5/cq.c, mlx5_parse_cqe) on an error completion whose syndrome
    # is neither a flushed work request nor the transport's retries exceeded (the two NCCL reports itself): "mlx5:
    # <hostname>: got completion with error:" on the process's stderr, "host_unknown" when gethostname failed, then the
    # CQE as four lines of hex words (no event of their own). Under NCCL, Ray or MPI it is the rank's own report of the
    # completion NCCL then fails on (OpenRLHF/OpenRLHF #621: a vLLM engine's weight broadcast, "(LLMRayActor pid=90738,
    # ip=172.19.24.110) mlx5: host_unknown: got completion with error:" before the rank's ncclRemoteError). Was: nothing.
    _r("mlx5_cqe_error", "ib_completion_error", ["got completion with error:"],
       r"(?:^|[\s)\]])mlx5: (?P<hca_host>[\w.\-]+): got completion with error:"),
    # libfabric / EFA (aws-ofi-nccl): "NCCL WARN NET/OFI Request 0x.. completed with error. RC: 20. Error: unknown
    # error. Completed length: 0, Request: {..}" with libfabric's own "<warn>" line for the same completion
    # ("libfabric:35:1668017255::efa:cq:rxr_cq_write_tx_error():243<warn> rxr_cq_write_tx_error: err: 20,
    # prov_err: ..", newer "efa_rdm_txe_handle_error():737<warn> err: 5, message: Invalid address .."): one event.
    # libfabric 1.18+ (prov/efa efa_write_error_msg, every "err: %d, message: %s (%d)" of the provider's CQ) ends the
    # message with both ends of the connection: "My EFA addr: fi_addr_efa://[fe80::..]:0:1072483550 My host id:
    # i-0db7083f3fcbebb65 Peer EFA addr: fi_addr_efa://[..]:0:947699476 Peer host id: i-0ce6d3d57139f053c"
    # (aws/aws-ofi-nccl #346): the peer is the peer's EC2 instance ("Peer host id: N/A" before the handshake told it:
    # no peer), the finding's peer also when NCCL's own line for the completion came first (EVENT_FILLS "ofi").
    # aws-ofi-nccl's newer line quotes that message itself ("Error: 4126 (Unresponsive receiver (reachable by EFA
    # device but handshake failed) My EFA addr: .. My host id: i-07792e0f955a9673b Peer EFA addr: .. Peer host id:
    # N/A). Completed length: 0", gnosia93/training-on-eks appendix/a1-karpenter-message.md): its peer likewise, the
    # error the words before the addresses (was: the addresses too, cut at "N/A"'s dot). The RDMA protocol's
    # requests (src/nccl_ofi_rdma.cpp: "Request %p seq %d completed with error. RC: %d. Error: %d (%s). Completed
    # length: %ld, Request: %s") name their message's sequence number after the pointer (was: NCCL's warning).
    _r("ofi_completion", "ib_completion_error", ["completed with error"],
       r"NET/OFI Request (?:0x[0-9a-f]+ )?(?:seq \d+ )?completed with error\. RC: (?P<error_code>\d+)\. Error: "
       r"(?P<error>(?:(?! My EFA addr: )[^.\n])*)(?: My EFA addr: [^\n]*? Peer host id: (?:(?P<peer>i-[0-9a-f]+)|N/A))?",
       event=("ofi", "join")),
    _r("efa_cq_error", "ib_completion_error", ["<warn>"],
       r"libfabric:\d+:\d*:+efa:cq:(?P<function>\w+)\(\):\d+<warn> (?:\w+: )?err: (?P<error_code>\d+),"
       r"(?: message: (?P<error>[^\n]*?)(?= My EFA addr:| \(\d+\)\s*$|\s*$))?"
       r"(?:.*? Peer host id: (?P<peer>i-[0-9a-f]+))?",
       event=("ofi", "join")),
    # The EFA provider's last words before it aborts the process (prov/efa rxr.h efa_eq_write_error, libfabric 1.9-1.15):
    # an error it could report to no completion or event queue, "Unable to write to EQ: Missing or unavailable event
    # queue. err: Cannot allocate memory (-12) prov_errno: Cannot allocate memory (-12)", once as libfabric's "<warn>"
    # line and once on stderr with the source line after it ("./prov/efa/src/rxr/rxr.h:683"), then abort(): the
    # rank dies of its network transport (aws/aws-ofi-nccl #141: registering the receive buffers failed, ENOMEM;
    # ofiwg/libfabric #6249: EIO). One event; the errnos without their sign. The provider's own line, whoever its
    # program is: its CQ's error path (rxr_cq_handle_cq_error, #6249's backtrace) under aws-ofi-nccl (#141, #20: a
    # PyTorch job's DataLoader forking under EFA) or a program's own fi_cq_read with no NCCL in it (#6249, #5716): a
    # failed completion of libfabric's, as its "efa:cq .. <warn> err: N" lines are (ib_completion_error, the error its
    # words; was: an nccl_error, an NCCL failure the two programs without NCCL never had).
    _r("efa_eq_abort", "ib_completion_error", ["Unable to write to EQ"],
       r"Unable to write to EQ: Missing or unavailable event queue\. err: (?P<error>[^(\n]*?) \(-?(?P<error_code>\d+)\)"
       r"(?: prov_errno: (?P<prov_error>[^(\n]*?) \(-?(?P<prov_errno>\d+)\))?",
       event=("efa_abort", "join")),
    # GCP's GPUDirect-TCPX plugin (google/nccl-plugin-gpudirecttcpx, net_tcpx.cc tcpxCommProgress) reporting a connection
    # whose control message has not come for its slowness threshold (GPUDIRECTTCPX_TIMEOUT_THRESHOLD_NS), again at each
    # period while it waits: "NCCL WARN 0xadca8062b70:0xadca805d0f0, nic 0, enp12s0, 172.16.0.11<39187><-172.16.0.95<46723>
    # rx rx ctrl timeout cnt 7331502, nanos 10000000585" (its format "%p:%p, nic %d, %s, %s %s ctrl timeout cnt %lu,
    # nanos %lu": the NIC, the connection "<local><-<peer>" with its direction, the comm's side). A stall waiting on the
    # peer named, not a failure: the plugin goes on waiting (an hour of them at a job's start, the job then running:
    # google/nccl-plugin-gpudirecttcpx #1). A warning, the hang's kind as XLA's "may be stuck", one event per NIC while
    # they repeat, the peer kept; was an NCCL warning per line.
    _r("tcpx_ctrl_timeout", "nccl_timeout", ["ctrl timeout cnt"],
       r"NCCL WARN 0x[0-9a-f]+:0x[0-9a-f]+, nic (?P<nic>\d+), (?P<device>[\w.\-]+), (?P<local>[^<\s]+)<\d+>(?:<-|->)"
       r"(?P<peer>[^<\s]+)<(?P<peer_port>\d+)> (?P<direction>rx|tx) (?:rx|tx) ctrl timeout cnt (?P<count>\d+), nanos "
       r"(?P<nanos>\d+)",
       severity="warning", event=("tcpx", "join")),
    # aws-ofi-nccl's start on a host where libfabric offers it no provider (no EFA device: a single-node instance, an
    # instance launched without EFA, a pod not given /dev/infiniband): "NET/OFI No eligible providers were found"
    # (INFO), then at WARN its chain up the call stack, "OFI fi_getinfo() call failed: No data available", "Failed to
    # initialize sendrecv protocol" / "Failed to initialize rdma protocol" (a protocol the platform set), "Unable to
    # find a protocol that worked.  Failing initialization.", "aws-ofi-nccl initialization failed", "Initializing
    # plugin failed" (src/nccl_ofi_net.cpp, src/nccl_ofi_api.cpp), and "Finalizing already finalized plugin" when NCCL
    # then finalizes it. NCCL takes the plugin's init failure as a plugin it cannot use, logs its own account at INFO
    # ("Failed to initialize NET plugin ..", src/plugin/net.cc) and goes on with its own transports ("Initialized NET
    # plugin Socket"): the job runs (gnosia93/training-on-eks: a p4d.24xlarge job trained on NVLink, its 4 ranks
    # printing the chain; AWS's Neuron docs call the same chain harmless on instances without EFA). No finding (a pod's
    # finding of any severity is a Pod Event); NCCL's own "Failed to initialize any NET plugin" (no transport left)
    # stays its warning.
    _r("ofi_init_failed", None, ["NET/OFI"],
       r"NCCL WARN NET/OFI (?P<ofi_init>OFI fi_getinfo\(\) call failed: No data available|Failed to initialize "
       r"(?:sendrecv|rdma) protocol|Unable to find a protocol that worked|aws-ofi-nccl initialization failed|"
       r"Initializing plugin failed|Finalizing already finalized plugin)"),
    # an asynchronous event of the adapter: NCCL before 2.19 "NET/IB : Got async event : port error", later releases
    # naming the device and port, "NET/IB : mlx5_32:1 Got async error event: port error" and the fatal "NET/IB :
    # mlx5_0:1 async fatal event on QP (0x...): ..." (llm-d/llm-d #191: a port flapping). The events that report no
    # failure are none (libibverbs' ibv_event_type_str() names them; NCCL warns of each it does not handle, 2.23+ of
    # "GID table change" when an address is reassigned, NVIDIA/nccl #1819): a port that came back ("port active"), the
    # subnet manager's or the port's addressing changing ("LID change", "P_Key change", "SM change", "client
    # reregistration", "GID table change"; UCX reports SM change and client reregistration as diagnostics, openucx/ucx
    # #7349), a queue's normal life ("communication established", "send queue drained", "path migrated", "last WQE
    # reached", "SRQ limit reached"): NCCL's warning, never the fabric failing (triage's fabric verdict reads this kind).
    # Each release names the failing resource its own way: 2.19-2.29's "mlx5_1:1 async fatal event on QP
    # (0x7309dc3bb338): invalid request local work queue error" (NVIDIA/nccl #1919, 2.25.1), 2.23.4+'s device-wide
    # "mlx5_0:1 async fatal event: local catastrophic error" (IBV_EVENT_DEVICE_FATAL: no "on <resource>"; was: the
    # NCCL WARN row's warning), 2.30.7+'s resource ids after the pointer ("async fatal event on QP (0x..) qpn=.. handle=..
    # send_cq=.. recv_cq=.. state=.. sq_psn=.. rq_psn=..: <event>", "on CQ (0x..) handle=.. cqe=..: <event>", "on SRQ,
    # unused for now (0x..): <event>"; src/transport/net_ib/common.cc): the event is what follows the first ": ".
    # 2.28.7+ word the events that are no fatal error "mlx5_3:1 Got non-fatal async event: port error(10)", the
    # event's ibv_event_type number after its words (net_ib.cc, later net_ib/common.cc: "Got non-fatal async event:
    # %s(%d)"): the same events, a port error among them, read as the earlier words (the number in event_type; was:
    # the NCCL WARN row's warning, a port that went down no fabric error).
    _r("ib_async_event", "ib_completion_error",
       ["Got async event", "Got async error event", "Got non-fatal async event", "async fatal event"],
       r"NET/IB ?: (?:(?P<netdev>[\w.+\-]+):(?P<port>\d+) )?(?:Got (?:async (?:error )?|non-fatal async )event ?|"
       r"async fatal event(?: on [^:\n]{1,200})?): (?P<event>(?!" + "|".join(re.escape(e) for e in IB_EVENTS_NO_FAILURE)
       + r")\S.*?)(?:\((?P<event_type>\d+)\))?\s*$",
       refine="ib_async_event"),
    # The events that report no failure (IB_ASYNC_EVENTS), in every era's words: before 2.19 "NET/IB : Got async
    # event : client reregistration" (deepspeedai/DeepSpeedExamples #310: every rank of a DeepSpeed job right after its
    # "Init COMPLETE", the job running on), 2.19-2.22's "mlx5_0:1 Got async event : SM change", 2.23.4-2.28.6's
    # "mlx5_32:1 Got async error event: port active" (llm-d/llm-d #191: the port back up between two port errors),
    # 2.28.7+'s "Got non-fatal async event: client reregistration(17)", 2.28.3+'s own "mlx5_0:1 GID table changed"
    # (NCCL_IB_EVENT_WORDS) and 2.23.4+'s "unknown event type (18)" for an event it has no case for (the GID change
    # until 2.28.3, NVIDIA/nccl #1819; the speed change). No finding, no Pod Event, no fabric verdict: the adapter
    # telling NCCL news of a port that works (was: the NCCL WARN row's warning, one Pod Event per rank). The failing
    # events (a port error, a QP's, the adapter's) are the row above's; an unknown event of a failing number (19, WQ
    # fatal) stays the NCCL WARN row's warning.
    _r("ib_async_no_failure", None,
       ["Got async event", "Got async error event", "Got non-fatal async event"] + list(NCCL_IB_EVENT_WORDS)
       + ["unknown event type"],
       r"NET/IB ?: (?:[\w.+\-]+:\d+ )?(?:Got (?:async (?:error )?|non-fatal async )event ?: (?:"
       + "|".join(re.escape(e) for e in IB_EVENTS_NO_FAILURE) + r")(?:\(\d+\))?|"
       + "|".join(re.escape(e) for e in NCCL_IB_EVENT_WORDS) + r"|unknown event type \((?:"
       + "|".join(IB_EVENT_NUMBERS_NO_FAILURE) + r")\))\s*$"),
    # UCX's report of the adapter's asynchronous events (src/uct/ib/base/ib_device.c uct_ib_handle_async_event, every
    # release: "IB Async event on <device>: <event> on QPN 0x<n>" / "on port <n>" / "on CQ <ptr>" / "on DCTN 0x<n>"),
    # what NCCL's "Got async event" is for the jobs whose transport is UCX (MPI under UCX, UCC, NIXL): 2016's "ib_device.c:
    # 132  UCX  WARN  IB Async event on mlx4_0: local access violation work queue error on QPN 0x17fef" (openucx/ucx
    # #891, before a send completion's remote access error), 2017's "ib_device.c:171  UCX  ERROR IB Async event on
    # mlx5_0: DCT access error on DCTN 0x2a8a3" (#1770, UCX's own words for the DC target's, UCX_IB_EVENT_WORDS). The
    # failing events (IB_ASYNC_EVENTS) are the fabric's completion error, as NCCL's (was: nothing); UCX 1.10+ logs a
    # QP's access error and a port error at its DIAG level (openucx/ucx #5636), read alike where a job logs them. The
    # others (a port's news, "SRQ-attached QP .. was flushed", "client reregistration on port 1") stay silent.
    _r("ucx_ib_async_event", "ib_completion_error", ["IB Async event on "],
       r"IB Async event on (?P<netdev>[\w.+\-]+): (?P<event>"
       + "|".join(re.escape(e) for e in (*IB_EVENTS_FAILURE, *UCX_IB_EVENT_WORDS)) + r")"
       r"(?: on (?:port (?P<port>\d+)|QPN 0x[0-9a-fA-F]+|DCTN (?:0x[0-9a-fA-F]+|UNKNOWN)|CQ \S+|SRQ \S+))?\s*$",
       refine="ib_async_event"),
    # UCX failing to make the address handle that reaches a peer's port (src/uct/ib/base/ib_device.c
    # uct_ib_device_create_ah, every release since 1.9: "ib_device.c:1332 UCX  ERROR   ibv_create_ah(dlid=49152 sl=0
    # port=1 src_path_bits=0 dgid=fe80::.. flow_label=0xffffffff sgid_index=0 traffic_class=0) for UD mlx5 connect on
    # mlx5_0 failed: No such device", ai-dynamo/dynamo #814: a two-node NIXL KV transfer over RoCE; the same from every
    # prefill and decode pod of an SGLang 2P2D, "for RC DEVX QP connect on mlx5_8", vllm-project/aibrix #1771; older
    # releases' without the "for .. connect", read alike):
    # the local NIC has no route to the peer's GID (RoCE's neighbour, GID index or rail), the fabric between the two
    # NICs, as NCCL's ibv_modify_qp unreachable is (nccl_ib_qp_unreachable). The WARN lines after it (pending
    # operations not flushed, eps not destroyed, mlx5dv_devx_obj_destroy failed) are the teardown. Was: nothing.
    _r("ucx_create_ah_failed", "ib_completion_error", ["ibv_create_ah("],
       r"ibv_create_ah\([^()\n]{0,400}\) (?:for (?P<ah_use>[A-Za-z0-9 ]{1,64}) connect )?on "
       r"(?P<netdev>[\w.+\-]+) failed: (?P<ucx_error>[A-Za-z][A-Za-z ]{0,60}?)\s*$"),
    # NIXL (ai-dynamo/nixl: the KV-cache transfer library of disaggregated serving, under Dynamo, vLLM's NixlConnector,
    # SGLang's and TensorRT-LLM's P/D transfer) failing a call, in either of its voices: the Python binding's exception
    # named for the status (src/bindings/python/nixl_bindings.cpp, one class per nixl_status_t; the CUDA builds' wheels
    # nixl_cu12 / nixl_cu13 the module: "nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND", ai-dynamo/dynamo #1108,
    # registering memory) and its C++ log's line ending in the status ("nixl_agent.cpp:359] createBackend: backend 'UCX'
    # encountered error during intra-agent transfer setup with status NIXL_ERR_BACKEND", sgl-project/sglang #27894;
    # "NIXL Xfer failed with status: NIXL_ERR_CANCELED", nixl #927). NIXL_ERR_REMOTE_DISCONNECT is UCX's or libfabric's
    # peer failure on the endpoint (ucsToNixlStatus: UCS_ERR_ENDPOINT_TIMEOUT, CONNECTION_RESET, NOT_CONNECTED, 1.21+'s
    # CANCELED; libfabric's FI_ENOTCONN): the peer agent's process or the path to it gone, what NCCL's remote error
    # is ("nixlRemoteDisconnectError: NIXL_ERR_REMOTE_DISCONNECT" from all 4 decode TP workers within one second,
    # wtdcode/vllm-backport #33); NIXL 0.2-0.3 printed those statuses as its own warning before a backend error
    # ("ucx_utils.cpp:43] Unexpected UCX error: Endpoint timeout", LMCache/LMCache #725: a TCP send to the peer failed
    # with ETIMEDOUT). Any other status is NIXL's error, named by it (its nccl_error; "Unexpected UCX error: Out of
    # memory" before a backend error is its cause's translation, left to the status line after it). The lines of one
    # failure (the C++ line, the traceback's exception, a transfer's later NOT_FOUND) one event. Was: nothing.
    _r("nixl_remote_disconnect", "nccl_remote_error", ["NIXL_ERR_REMOTE_DISCONNECT", "Unexpected UCX error: "],
       NIXL_STATUS.format(status="REMOTE_DISCONNECT") + r"|\bUnexpected UCX error: (?P<ucx_error>Endpoint timeout|"
       r"Connection reset by remote peer|Endpoint is not connected|Request canceled)\s*$", event=("nixl", "join")),
    _r("nixl_error", "nccl_error", ["NIXL_ERR_"], NIXL_STATUS.format(status="[A-Z_]{1,40}"), event=("nixl", "join")),
    # NCCL's IB transport refusing to go on after its async thread saw a fatal event on the adapter (2.19+,
    # ncclIbStatsCheckFatalCount: "transport/net_ib.cc:139 NCCL WARN communicator encountered a fatal error (detected
    # in ncclIbTest)", NVIDIA/nccl #1905, 2.21.5): the restatement, from the communicator's thread, of the "async fatal
    # event" line the async thread prints for every fatal event before counting it (that line names the adapter and
    # the event: the finding). No finding of its own (was: the NCCL WARN row's warning, a second event of one failure).
    _r("ib_fatal_count", None, ["communicator encountered a fatal error"],
       r"NCCL WARN communicator encountered a fatal error \(detected in \w+\)"),
    # NCCL 2.29+'s IB transport (src/transport/net_ib/p2p.cc, ncclIbTest; RCCL's the same) announcing a failed work
    # completion before the line that describes it: "NCCL WARN NET/IB: ncclIbTest: Got CQE with error (devIndex=0,
    # req=0x7fccfc04e028, comm=0x7fccfc04e000 (recv), wr_id=0, qp_num=26257)", then, from the same call
    # (ncclIbLogCompletionWithError), "NET/IB: Got completion from peer 10.153.235.13<40554> with
    # status=IBV_WC_RETRY_EXC_ERR(12) .. hca mlx5_1" (NVIDIA/nccl #2397, 2026): that line (the ib_completion row's) names
    # the peer, the status and the adapter, the finding. No finding of its own (was: the NCCL WARN row's warning, a
    # second finding of each failed completion).
    _r("ib_cqe_error", None, ["Got CQE with error"], r"NET/IB\w* ?: ?\w+: Got CQE with error \(devIndex=\d+"),
    # Ray's memory monitor killed a worker because its node's host memory passed the threshold: a host OOM kill (the
    # kernel's OOM killer's kind), not the GPU's, though Ray raises it as an OutOfMemoryError: "ray.exceptions.
    # OutOfMemoryError: Task was killed due to the node running low on memory." (vllm-project/vllm #15102: a 16-GPU
    # vLLM's Ray worker), the actor's "Worker exit type: NODE_OUT_OF_MEMORY Worker exit detail: Task was killed due to
    # the node running low on memory.", the line after either ("Memory on the node (IP: 29.45.33.204, ...) ... which
    # exceeds the memory usage threshold of 0.95. Ray killed this worker ..."), newer releases' "Error: 2 worker(s)
    # were killed due to the node running low on memory." and the raylet's summary "(raylet) node_manager.cc:3040: 1
    # Workers (tasks / actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node"
    # (its count of 0 OOM kills beside other crashes is none). The exception's line and the one after it are one kill.
    _r("ray_oom", "oom_kill", ["running low on memory", "killed due to memory pressure", "Ray killed this worker"],
       r"(?:killed due to the node running low on memory|\b[1-9]\d* Workers \(tasks / actors\) killed due to memory pressure "
       r"\(OOM\)(?:, \d+ Workers crashed due to other reasons at node \(ID: [0-9a-f]+, (?=IP: ))?|Memory on the node \("
       r"(?=IP: [^\n]{1,400}?exceeds the memory usage threshold of [\d.]+\. Ray killed this worker)|"
       r"exceeds the memory usage threshold of [\d.]+\. Ray killed this worker)(?:IP: (?P<node_ip>[\w.:\-]{1,64}))?",
       event=("ray_oom", "join")),
    # The sleep-mode allocators of the serving engines map GPU memory with the CUDA driver's VMM calls (cuMemCreate,
    # cuMemMap) and print the driver's status themselves, in words no PyTorch row knows: vLLM's CuMemAllocator
    # ("CUDA Error: out of memory at /workspace/csrc/cumem_allocator.cpp:62", a RuntimeError from 0.7.3 on; before it,
    # on stderr, followed by the calls that then fail on the handle never made: "CUDA Error: invalid argument at
    # /workspace/csrc/cumem_allocator.cpp:57", vllm-project/vllm #12981) and SGLang's torch_memory_saver, each
    # release its own way ("[torch_memory_saver.cpp] CUresult error  result=2 file=csrc/torch_memory_saver.cpp
    # func=cu_mem_create line=103", "[torch_memory_saver.cpp] CUresult error: 2 (out of memory) file=csrc/utils.h
    # ..", "[torch_memory_saver.cpp] cudaError error: 2 (out of memory)  file=csrc/core.cpp .."). Status 2
    # (CUDA_ERROR_OUT_OF_MEMORY, cudaErrorMemoryAllocation) is the job out of GPU memory as it wakes (was: nothing);
    # any other status a CUDA error (CUDA_ERROR_NAMES names a number), the lines after an out of memory one failure
    # with it (CUDA_EXC_JOIN). torch_memory_saver's own retry notice ("cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be
    # an issue e.g. torch allocator will free cache and retry)") is no failure: none.
    _r("vmm_alloc_oom", "cuda_oom", ["CUDA Error: out of memory at ", "torch_memory_saver.cpp] "],
       r"CUDA Error: out of memory at |\[torch_memory_saver\.cpp\] (?:CUresult|cudaError) error(?::| +result=) ?2\b",
       event=CUDA_EXC_OPEN),
    _r("vmm_alloc_error", "cuda_error", ["CUDA Error: ", "torch_memory_saver.cpp] "],
       r"CUDA Error: (?P<cuda_error>[^\n]+?) at \S*cumem_allocator\.cpp:\d+|\[torch_memory_saver\.cpp\] "
       r"(?:CUresult|cudaError) error(?::| +result=) ?(?P<cu_status>\d+)(?: \((?P<status_text>[^)\n]+)\))?",
       refine="cuda_status", event=CUDA_EXC_JOIN),
    # vLLM's start-up check of a worker's GPU (v1/worker/gpu_worker.py init_device, 0.9+): "ValueError: Free memory on
    # device (3.22/4.0 GiB) on startup is less than desired GPU memory utilization (0.9, 3.6 GiB). Decrease GPU memory
    # utilization or reduce GPU memory used by other processes." (vllm-project/vllm #25837; #20305 31.44/47.38 GiB;
    # #23192 7.34/139.72 GiB; pytorch/pytorch #175666 "free memory on device cuda:0 (19.77/22.05 GiB)"). Decided: the
    # job's memory, cuda_oom (was: nothing), not a node fault. The line cannot tell whose the missing memory is, and
    # the real threads show every owner: PyTorch 2.11's larger CUDA context left 0.07 GiB short of a 0.9 utilization
    # (pytorch #175666, a regression: the configuration), the job's own other stages or servers on the same GPU
    # (vllm-omni #276, 0.49/79.32 GiB), a desktop's (#25837). What an SRE acts on is the number: free and total are
    # kept (`free_gib`, `total_gib`, `utilization`), and memory held on a GPU the kubelet gave to one pod by a process
    # of no pod is the agent's own process accounting's to say, not this line's.
    _r("vllm_free_memory", "cuda_oom", ["on startup is less than desired GPU memory utilization"],
       r"[Ff]ree memory on device(?: \S+)? \((?P<free_gib>[\d.]+)/(?P<total_gib>[\d.]+) GiB\) on startup is less than "
       r"desired GPU memory utilization \((?P<utilization>[\d.]+),"),
    # A serving engine that, once the model is loaded and its peak profiled, finds too little of its GPU memory share
    # left for the KV cache, and refuses to start (was: nothing; the engine exits, the job with it). Every era's words:
    # vLLM's "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when
    # initializing the engine." (V0 "# GPU blocks: 0" and V1 alike: vllm-project/vllm #2248, gensyn-ai/rl-swarm #118,
    # 2025), V0's "The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV
    # cache (23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` .." (vllm #10517), V1's
    # "ValueError: To serve at least one request with the models's max seq len (1048576), (24.00 GiB KV cache is needed,
    # which is larger than the available KV cache memory (9.97 GiB). .." (vllm #16118; ".. Based on the available
    # memory, the estimated maximum model length is 122080. ..", #25350; 2026's "model's" without the parenthesis
    # before the size), and SGLang's "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
    # (sgl-project/sglang #4330; later " Current value: mem_fraction_static=0.88" after it). Decided: cuda_oom, the job's
    # memory, not a node fault and not info (the job ends here). The fix is the job's configuration every time (a
    # larger memory share, a shorter max_model_len, a quantized model or more GPUs: the model and its context do not fit
    # the share asked for), as vllm_free_memory's is; what the line cannot tell apart, a share another process on the
    # same GPU took, is the agent's process accounting's to say. The sizes are kept (`max_model_len`, `kv_needed_gib`,
    # `kv_available_gib`, `kv_tokens`). A traceback's source line of the same message ("raise ValueError(\"No available
    # memory for the cache blocks. \"") is no second failure: the text right after a quote is never read.
    # The same room exhausted while serving: SGLang's scheduler finding its KV pool without the slots a batch needs
    # (the pool is allocated at start, no CUDA allocation fails) raises "RuntimeError: Decode out of memory. Try to
    # lower your batch size." (sgl-project/sglang #4602; "Prefill out of memory. ..", and "Out of memory. .." of
    # alloc_token_slots, schedule_batch.py / mem_cache/allocation.py) and the server exits (was: nothing). Only the
    # exception's line: the logger's copy of the message before the raise and the retraction it normally makes instead
    # ("Decode out of memory happened. #retracted_reqs: 1, ..", sglang #4184: requests retracted, the server goes on)
    # stay silent.
    _r("kv_cache_no_room", "cuda_oom",
       ["No available memory for the cache blocks", "than the available KV cache memory", "can be stored in KV cache",
        "Please try to increase --mem-fraction-static", "of memory. Try to lower your batch size"],
       r"(?<![\"'])(?:RuntimeError: (?:Prefill |Decode )?[Oo]ut of memory\. Try to lower your batch size|"
       r"No available memory for the cache blocks|"
       r"(?:T|To serve at least one request with t)he models?'s? max seq len \((?P<max_model_len>\d+)\)(?:, \(?"
       r"(?P<kv_needed_gib>[\d.]+) GiB KV cache\)? is needed, which is larger than the available KV cache memory "
       r"\((?P<kv_available_gib>-?[\d.]+) GiB\)| is larger than the maximum number of tokens that can be stored in KV "
       r"cache \((?P<kv_tokens>-?\d+)\))|Not enough memory\. Please try to increase --mem-fraction-static)"),
    # (PyTorch before 1.5 and Lua Torch: "RuntimeError: cuda runtime error (2) : out of memory at <file>:<line>"; PyTorch's
    # driver API check, "RuntimeError: CUDA driver error: out of memory" (symmetric memory's allocation, pytorch/pytorch
    # #137145; was: nothing); SPECFEM's print_CUDA_error_if_any, cudaGetErrorString() in angle brackets before its
    # MPI_Abort: "CUDA error !!!!! <out of memory> !!!!! ", SPECFEM/specfem3d #1344)
    _r("cuda_oom", "cuda_oom",
       ["CUDA out of memory", "OutOfMemoryError", "CUDA error: out of memory", "CUDA driver error: out of memory",
        "cuda runtime error (2) : out of memory", "CUDA error !!!!! <out of memory>", "failed. Status: out of memory"],
       r"(?:OutOfMemoryError|CUDA out of memory|CUDA (?:driver )?error: out of memory|cuda runtime error \(2\) : out of memory|"
       r"CUDA error !!!!! <out of memory>|" + TF_CUDA_STATUS + r"out of memory)"
       r"(?:.*?\(?GPU (?P<gpu>\d+)[;) ])?(?P<oom_usage>.*)",
       refine="cuda_oom", event=CUDA_EXC_OPEN),
    # The CUDA status "out of memory" by its names and number, in the words of the libraries beyond PyTorch: the runtime's
    # enum name (CuPy's "cupy.cuda.runtime.CUDARuntimeError: cudaErrorMemoryAllocation: out of memory", chainer/chainer
    # #748; mpi4jax's "Error 2 cudaErrorMemoryAllocation: out of memory", mpi4jax/mpi4jax #106; the CUDA samples'
    # "code=2(cudaErrorMemoryAllocation)"; PyTorch 2.6+'s "Search for `cudaErrorMemoryAllocation' .." after its own out of
    # memory line: the same failure, CUDA_EXC_JOIN), Numba's CudaAPIError of status 2 ("numba.cuda.cudadrv.driver.
    # CudaAPIError: [2] Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY", rapidsai/dask-cuda #225; its repr
    # "CudaAPIError(2, 'Call to ..')"), XLA's RESOURCE_EXHAUSTED ending in the driver's name ("Execution of replica 0
    # failed: RESOURCE_EXHAUSTED: Failed to load in-memory CUBIN (compiled for a different GPU?).: CUDA_ERROR_OUT_OF_MEMORY:
    # out of memory", iit-DLSLab/mpx #11) and the CUDA_RT_CALL check of NVIDIA's multi-GPU samples ('CUDA RT call
    # "cudaMalloc(..)" in line 378 of file jacobi.cpp failed with out of memory (2).', NVIDIA/multi-gpu-programming-models
    # #14): the job out of GPU memory (was: cuda_error, unknown, for the enum name; nothing for the others). The driver's
    # name alone stays none (CUDA_DRIVER_ERRORS): TensorFlow's and XLA's allocators log "failed to allocate .. from
    # device: CUDA_ERROR_OUT_OF_MEMORY" and retry smaller.
    # Status 2 by its number and text (the cuda_error_code row's shapes): Marian's "Error: CUDA error 2 'out of memory' -
    # <file>:<line>: cudaMalloc(&data_, size)" (marian-nmt/marian #270), PaddlePaddle's "Cuda error(2), out of memory."
    # (PaddlePaddle/PaddleX #702), ONNX Runtime's "CUDA failure 2: out of memory ; .." and Caffe's "Check failed: error ==
    # cudaSuccess (2 vs. 0)  out of memory" (houqb/DSS #25): the job's memory too. The shapes are those rows' own
    # (CUDA_CODE_HEAD, CUDA_CODE_TAIL, CAFFE_CHECK): llama.cpp's "CUDA error 2 at /data/llama.cpp/ggml-cuda.cu:5509: out
    # of memory" (ggml-org/llama.cpp #3199) and Caffe2's numberless check were cuda_error_code's and caffe_cuda_check's
    # unknown cuda_error while this row spelt the shapes again without the " at <file>:<line>" and the optional numbers.
    _r("cuda_status_oom", "cuda_oom",
       ["cudaErrorMemoryAllocation", "CudaAPIError", "CUDA_ERROR_OUT_OF_MEMORY", "failed with out of memory (2)",
        "CUDA error", "CUDA failure", "Cuda error", "Check failed: error == cudaSuccess"],
       r"\bcudaErrorMemoryAllocation\b|CudaAPIError(?:: \[2\] |\(2, ')Call to |"
       r"RESOURCE_EXHAUSTED: [^:\n]*: CUDA_ERROR_OUT_OF_MEMORY|failed with out of memory \(2\)|"
       + CUDA_CODE_HEAD + "2" + CUDA_CODE_TAIL + r"out of memory\b|"
       + CAFFE_CHECK + r"(?:\(2 vs\. 0\))? +out of memory",
       event=CUDA_EXC_JOIN),
    # Numba's CudaAPIError gives the driver's status by its number and by a name from Numba's own table, which may be
    # missing or wrong: releases before CUDA 11's names printed UNKNOWN_CUDA_ERROR for a status they did not list
    # ("numba.cuda.cudadrv.driver.CudaAPIError: [700] Call to cuCtxSynchronize results in UNKNOWN_CUDA_ERROR", numba/numba
    # #7769: an illegal address), numba-cuda's table named 700 CUDA_ERROR_LAUNCH_FAILED (NVIDIA/numba-cuda #79). The
    # number decides where CUDA_STATUS_NAMES knows it, else the name (was: nothing for UNKNOWN_CUDA_ERROR, the printed
    # name's attribution for a listed one).
    _r("numba_cuda_error", "cuda_error", ["CudaAPIError"],
       r"CudaAPIError(?:: \[|\()(?P<cu_status>\d+)(?:\] |, ')Call to (?P<cuda_call>\w+) results in (?P<cu_name>\w+)",
       refine="cuda_status", event=CUDA_EXC_OPEN),
    # Triton's launcher refusing a kernel whose compiled configuration needs more of a per-block resource than the GPU
    # has: "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 49152.
    # Reducing block sizes or `num_stages` may help." (a Pascal's 48 KiB, sasha0552/pascal-pkgs-ci #50, vllm-project/vllm
    # #11584; a 3090's 99 KiB, Knowledgator/TurboT5 #8): the job's kernels on this GPU model, the same on every node of
    # the model: the application's (was: nothing). Only the exception's line: the message alone may be a configuration
    # an autotuner caught and dropped.
    _r("triton_out_of_resources", "cuda_error", ["OutOfResources: out of resource: "],
       r"OutOfResources: (?P<cuda_error>out of resource: [\w ]+?), Required: (?P<required>\d+), "
       r"Hardware limit(?:ation)?: (?P<limit>\d+)",
       attribution="application", action="RESTART_APP", event=CUDA_EXC_OPEN),
    # Triton's launcher and loader (triton/backends/nvidia/driver.c, every release since 2.0) raising the CUDA driver's
    # failure in its own words, "RuntimeError: Triton Error [CUDA]: <cuGetErrorString()>": the driver's text names the
    # kind, as PyTorch's "CUDA error: <text>" does. Only "an illegal memory access was encountered" was read (by the
    # cuda_error row's keyword); every other text was nothing: "Triton Error [CUDA]: unspecified launch failure"
    # (sgl-project/sglang #10570, DeepSeek-V3.1 on H100), "Triton Error [CUDA]: device kernel image is invalid." (a
    # cubin the driver cannot load: a driver older than Triton's ptxas, or a cache compiled for another GPU,
    # triton-lang/triton #2971, #1323), "Triton Error [CUDA]: invalid argument" (lucidrains/titans-pytorch #50), and
    # "Triton Error [CUDA]: out of memory" (cuModuleLoadData or a kernel's scratch at load_binary, outside PyTorch's
    # allocator: the job out of GPU memory, cuda_oom). The text refines as the runtime's does (CUDA_ERRORS).
    _r("triton_cuda_oom", "cuda_oom", ["Triton Error [CUDA]: out of memory"], r"Triton Error \[CUDA\]: out of memory",
       event=CUDA_EXC_OPEN),
    _r("triton_cuda_error", "cuda_error", ["Triton Error [CUDA]: "],
       r"Triton Error \[CUDA\]: (?P<cuda_error>[^\n]*?\S)(?:\s*\.)?\s*$", refine="cuda", event=CUDA_EXC_OPEN),
    # TensorRT-LLM's check of a CUDA call (tensorrt_llm/common/cudaUtils.h; its C++ runtime under Triton's tensorrtllm
    # backend, trtllm-serve and the Python runtime alike) and TensorRT's own (Triton's TensorRT backend, NIM engines) out
    # of device memory: "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out
    # of memory (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)" (every release since 0.5: NVIDIA/
    # TensorRT-LLM #498, #3636; triton-inference-server/tensorrtllm_backend #281), "[TRT] [E] [resizingAllocator.cpp::
    # allocate::78] Error Code 1: Cuda Runtime (out of memory)", TensorRT 7's "../rtSafe/safeRuntime.cpp (25) - Cuda
    # Error in allocate: 2 (out of memory)", and FasterTransformer's check, which LMDeploy's TurboMind kept: "[FT][ERROR]
    # CUDA runtime error: out of memory /workspace/build/fastertransformer_backend/../allocator.h:220" (triton-inference-
    # server/fastertransformer_backend #157), "[TM][ERROR] CUDA runtime error: .." (was: nothing; their other failures:
    # trtllm_cuda_error).
    _r("trtllm_oom", "cuda_oom", ["CUDA runtime error in ", "CUDA runtime error: out of memory",
                                  "Error Code 1: Cuda Runtime (out of memory)", "Cuda Error in "],
       r"CUDA runtime error(?: in (?:[^\n]*?\)|\S+))?: out of memory (?:\(|/)|Error Code 1: Cuda Runtime \(out of memory\)|"
       r"Cuda Error in (?:\w|::)+: 2 \(out of memory\)",
       event=CUDA_EXC_OPEN),
    # XLA's allocator (JAX, TensorFlow/XLA, PyTorch/XLA) out of device memory, each era's wording: "XlaRuntimeError:
    # RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4770354232 bytes.", "RESOURCE_EXHAUSTED: Out of memory
    # allocating 20029400304 bytes.", "RESOURCE_EXHAUSTED: Failed to allocate request for 2.99GiB (3206250496B) on device
    # ordinal 0", older jaxlib's "Resource exhausted: Out of memory while trying to allocate ..".  (A bare
    # RESOURCE_EXHAUSTED is gRPC's status too, a quota or a message size: only the allocator's wording is memory.)
    # TensorFlow's BFC allocator says it its own way: "ResourceExhaustedError: OOM when allocating tensor with
    # shape[8192,1000]", "(0) Resource exhausted: OOM when allocating tensor with shape[..] and type float on
    # /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc".
    _r("xla_oom", "cuda_oom", ["RESOURCE_EXHAUSTED: ", "Resource exhausted: ", "OOM when allocating tensor"],
       r"(?:(?:RESOURCE_EXHAUSTED|Resource exhausted): (?:Out of memory|Failed to allocate request for)|"
       r"OOM when allocating tensor)(?:.*?(?:device ordinal |device:GPU:)(?P<gpu>\d+))?"),
    # Triton's notice at start that its pinned host memory pool is off because CUDA would not start ("W0605 06:26:38.147148
    # 1 pinned_memory_manager.cc:236] Unable to allocate pinned system memory, pinned memory pool will not be available:
    # CUDA driver version is insufficient for CUDA runtime version", 21.04+; before, at E: "E0327 01:23:03.175862 1
    # pinned_memory_manager.cc:202] failed to allocate pinned system memory: CUDA driver version is insufficient for CUDA
    # runtime version"; a paste's own typo between them, "pinned memory pool will not bble:", seldon-core #4887, read
    # alike). The CUDA runtime says 35 where the container has no driver at all: Triton started without
    # --gpus prints it after the NGC entrypoint's "WARNING: The NVIDIA Driver was not detected." and serves on
    # (triton-inference-server/server #2674, the maintainer: "actually a warning"; SeldonIO/seldon-core #4887, whose
    # failure was an invalid model name). A warning, never the node's fault by itself (was: driver_unusable's error,
    # triage's infrastructure root); a driver truly too old fails the models' loads next, the driver_unusable row below.
    _r("triton_pinned_memory", "driver_unusable", ["allocate pinned system memory"],
       r"(?:Unable to|failed to) allocate pinned system memory[^:\n]*: "
       r"(?P<driver_error>CUDA driver version is insufficient for CUDA runtime version)", severity="warning"),
    # The node's GPU driver stack refusing the job at its start (kind driver_unusable), before the CUDA rows that would
    # read it as the job's CUDA error (was: cuda_error, attribution unknown; NVML's and PyTorch's wordings: nothing):
    # NVML with a kernel module of another release ("Failed to initialize NVML: Driver/library version mismatch",
    # nvidia-smi and every NVML client; the container runtime's "nvidia-container-cli: initialization error: nvml
    # error: driver/library version mismatch: unknown" in a Pod's Event; pynvml's "RM has detected an NVML/RM version
    # mismatch."; NVML_ERROR_LIB_RM_VERSION_MISMATCH), PyTorch's "The NVIDIA driver on your system is too old (found
    # version 11040)" (RuntimeError, AssertionError before 1.x, "UserWarning: CUDA initialization: .."), the CUDA
    # runtime's texts and enum names of a driver too old for it (35, "CUDA driver version is insufficient for CUDA
    # runtime version"), a libcuda of another release than the kernel module (803, "system has unsupported display
    # driver / cuda driver combination", llama.cpp's "display driver/cuda driver"), a container's forward-compatibility
    # package on a GPU or driver branch without it (804), Fabric Manager not (yet) running on an NVSwitch node (802,
    # "system not yet initialized": an H200 job, huggingface/huggingface_hub #4134), and PyTorch's words for cuInit's
    # CUDA_ERROR_UNKNOWN ("CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env
    # variable CUDA_VISIBLE_DEVICES after program start.": in practice nvidia_uvm not loaded or wedged, pytorch/pytorch
    # #159954), and the runtime's text for a call the installed driver is too old for (36, cudaErrorCallRequiresNewerDriver:
    # "[TM][ERROR] CUDA runtime error: API call is not supported in the installed CUDA driver /lmdeploy/src/turbomind/
    # utils/allocator.h:163" under driver 450 with a CUDA 11.x build, InternLM/lmdeploy #340; was: nothing). TensorRT's
    # start-up check names the runtime's failure by its number alone, every era (Triton's TensorRT backend, TensorRT-LLM's
    # builder): 5-6's "Cuda initialization failure with error 35. Please check cuda installation: ..", 7's "[E] [TRT]
    # CUDA initialization failure with error 35. ..", 8's "Error Code 6: Internal Error (CUDA initialization failure with
    # error 35. ..)" (triton-inference-server/server #6413), 8.6-10's "CUDA initialization failure with error: 35. .."
    # (lewes6369/TensorRT-Yolov3 #61, onnx/onnx-tensorrt #91, isarsoft/yolov4-triton-tensorrt #2, linghu8812/
    # tensorrt_inference #173, vbanakha/edgePtychoNN #5): the numbers of the texts above (35, 36, 802-804) are this row's
    # (was: nothing); other numbers are not (100, no device: a container given no GPU; 2, 1, 222: the job's). PyTorch
    # 2.6+'s "Search for `cudaErrorInsufficientDriver' .." after its "CUDA error: .." line is the same failure
    # (CUDA_EXC_JOIN).
    _r("driver_unusable", "driver_unusable",
       ["Driver/library version mismatch", "driver/library version mismatch", "NVML/RM version mismatch",
        "LIB_RM_VERSION_MISMATCH", "driver on your system is too old", "insufficient for CUDA runtime version",
        "cudaErrorInsufficientDriver", "unsupported display driver", "cudaErrorSystemDriverMismatch",
        "forward compatibility was attempted", "cudaErrorCompatNotSupportedOnDevice", "system not yet initialized",
        "cudaErrorSystemNotReady", "CUDA_ERROR_SYSTEM_NOT_READY", "CUDA unknown error - this may be due",
        "API call is not supported in the installed CUDA driver", "cudaErrorCallRequiresNewerDriver",
        "initialization failure with error"],
       r"(?P<driver_error>[Dd]river/library version mismatch|NVML/RM version mismatch|"
       r"NVML_ERROR_LIB_RM_VERSION_MISMATCH|NVIDIA driver on your system is too old(?: \(found version "
       r"(?P<found_version>\d+)\))?|CUDA driver version is insufficient for CUDA runtime version|"
       r"cudaErrorInsufficientDriver|(?:system has )?unsupported display driver ?/ ?cuda driver combination|"
       r"cudaErrorSystemDriverMismatch|forward compatibility was attempted on non supported HW|"
       r"cudaErrorCompatNotSupportedOnDevice|system not yet initialized|cudaErrorSystemNotReady|"
       r"CUDA_ERROR_SYSTEM_NOT_READY|CUDA unknown error(?= - this may be due)|"
       r"API call is not supported in the installed CUDA driver|cudaErrorCallRequiresNewerDriver|"
       r"(?:CUDA|Cuda) initialization failure with error:? (?:35|36|80[234])\b)",
       event=CUDA_EXC_JOIN),
    # nvidia-smi on a node whose NVIDIA kernel module is not loaded or not answering (a kernel upgraded under a DKMS or
    # precompiled module, a driver container whose module failed to load: no GPU of the node is usable): "NVIDIA-SMI has
    # failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed
    # and running." (GoogleCloudPlatform/compute-gpu-installation #18, 2023, after a kernel upgrade; the GPU Operator's
    # nvidia-driver-ctr, gpu-operator #751), 410's "lastest" (a job exporter quoting it, microsoft/pai #3537); and
    # nvidia-smi on a node whose driver is loaded but brought up none of its GPUs: "No devices were found" (the whole
    # line: an RTX 5090 whose RmInitAdapter failed, open-gpu-kernel-modules #862; the GPU Operator's driver pod's startup
    # probe, "Startup probe failed: No devices were found", gpu-operator #641). Was nothing: a job that checks its GPUs
    # with nvidia-smi at start has no other word for it. The node's driver, as the pod's Event says; but in a job's log
    # not a fault of its node by itself (NVSMI_NO_GPU: a container given no GPU prints both on a healthy node, and one
    # given GPUs gets them through the runtime's hook or CDI, which refuse it without a driver: container_cli_error). A
    # GPU's own init failure, where the kernel log says which, is that GPU's finding besides.
    _r("nvsmi_no_driver", "driver_unusable", NVSMI_NO_GPU,
       r"(?P<driver_error>NVIDIA-SMI has failed because it couldn.t communicate with the NVIDIA driver|"
       r"(?:^|Startup probe failed: )No devices were found\s*$)"),
    # NVML refusing to start in a container whose GPU device nodes the node's container runtime took away: "Failed to
    # initialize NVML: Unknown Error" (NVML_ERROR_UNKNOWN at nvmlInit), after the host's systemd reloaded its units and
    # rewrote the container's device cgroup without the NVIDIA devices runc had added (NVIDIA/nvidia-container-toolkit
    # #48, the maintainers' notice; #251, #1227 on 570.133.20, 2025: "(container) $ nvidia-smi -L" fails while the
    # host's lists its GPUs), the kubelet's static CPU manager doing the same (k8s-device-plugin #145, kubernetes/
    # kubernetes #77073: "open("/dev/nvidiactl", O_RDWR) = -1 EPERM"); go-nvml's "ERROR_UNKNOWN" for it in a device
    # plugin's log (Project-HAMi/HAMi #452). Not the GPU (the host's
    # nvidia-smi sees it) and not the job: the node's runtime set-up (the toolkit's /dev/char symlinks, the cgroup
    # driver), kind driver_unusable as the runtime hook's own failures (container_cli_error below) and, like them, no GPU
    # named. Was nothing. Only at NVML's init: a handle on one GPU failing with "Unknown Error" is that GPU's
    # (nvml_handle_failed). In a pod that holds GPUs the host's NVML answers for, the agent reads it (and
    # nvsmi_no_driver's "couldn't communicate") as gpu_access_lost (parsers/kinds.py `takes`).
    _r("nvml_init_unknown", "driver_unusable", ["Failed to initialize NVML: Unknown Error",
                                                "Failed to initialize NVML: ERROR_UNKNOWN"],
       r"(?P<driver_error>Failed to initialize NVML: (?:Unknown Error|ERROR_UNKNOWN))"),
    # A process that finds no GPU or cannot open the driver inside its container (kind gpu_access_lost): PyTorch's
    # "RuntimeError: No CUDA GPUs are available" (Grace9994/CoMoSVC #6; vllm-project/vllm #3019, a Kubernetes pod),
    # "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu." (ErlerPhilipp/points2surf #17)
    # and its warning form "UserWarning: CUDA initialization: CUDA driver initialization failed, you might not have a
    # CUDA gpu. (Triggered internally at ..)" (wenet-e2e/wenet #700), the NGC images' entrypoint's "WARNING: The NVIDIA
    # Driver was not detected.  GPU functionality will not be available." (NVIDIA/nvidia-docker #1071). A container
    # given no GPU prints them on a healthy node (a CPU pod importing torch, CUDA_VISIBLE_DEVICES naming none): the
    # kind's finding is a warning with no job's root; the node's fault only in a pod that holds GPUs (the agent asks
    # the kubelet: parsers/kinds.py `pod_holds_gpus`). Was nothing.
    _r("gpu_access_lost", "gpu_access_lost", ["No CUDA GPUs are available", "you might not have a CUDA gpu",
                                              "NVIDIA Driver was not detected"],
       r"(?P<driver_error>No CUDA GPUs are available|CUDA driver initialization failed, you might not have a CUDA gpu|"
       r"The NVIDIA Driver was not detected)"),
    # The same status in the CUDA runtime's own words (cudaErrorNoDevice, 38 before CUDA 10.1, 100 since: what PyTorch
    # now says as "No CUDA GPUs are available"), as every era raises it: PyTorch < 1.5 and Lua Torch's "RuntimeError:
    # cuda runtime error (38) : no CUDA-capable device is detected at <file>:<line>" (OdingdongO/pytorch_classification
    # #1; "(100)", slczgwh/REDN #5), later PyTorch's "CUDA error: no CUDA-capable device is detected", CuPy's
    # "CUDARuntimeError: cudaErrorNoDevice: no CUDA-capable device is detected" (NVIDIAGameWorks/kaolin #393), darknet's
    # "CUDA Error: no CUDA-capable device is detected" (omarabid59/YOLO_Google-Cloud #8). Kind gpu_access_lost, as the
    # rows above, by the status's reading (CUDA_ERRORS: the same in every other row's words, NCCL's and the CUDA
    # samples' among them; was: cuda_error, the node's driver in any pod). Only the raised error: THC's warning before
    # it ("THCudaCheck FAIL file=.. error=38 : ..") and TensorFlow's "failed call to cuInit: CUDA_ERROR_NO_DEVICE: .."
    # (a CPU-only container's start) name no prefix here and stay silent; nvidia-container-cli's "cuda error: no
    # cuda-capable device is detected" (lower case) is the runtime hook's (container_cli_error below).
    _r("cuda_no_device", "cuda_error", ["no CUDA-capable device is detected"],
       "(?:" + CUDA_ERROR_PREFIX + r"|CUDA Error: |cudaErrorNoDevice: )"
       r"(?P<cuda_error>no CUDA-capable device is detected)", refine="cuda", event=CUDA_EXC_OPEN),
    # The CUDA samples' vectorAdd (and the many programs that copy its checks) naming the runtime's text of a failed call:
    # fprintf(stderr, "Failed to allocate device vector A (error code %s)!\n", cudaGetErrorString(err)), likewise "Failed
    # to copy vector A from host to device", "Failed to launch vectorAdd kernel", "Failed to free device vector A". The
    # GPU Operator's cuda-validator runs it (gpu-operator-validator, the cuda-validation init container) on every GPU
    # node, so its words are how the Operator says a node's CUDA stack does not work: "Failed to allocate device vector
    # A (error code unknown error)!" (NVIDIA/gpu-operator #1146, #854), ".. (error code no CUDA-capable device is
    # detected)!" (#1900), ".. (error code all CUDA-capable devices are busy or unavailable)!" (#129: MIG mode on, no
    # MIG device), ".. (error code CUDA-capable device(s) is/are busy or unavailable)!" (#2842). The text refines as
    # every framework's (CUDA_ERRORS: unknown error the node's driver, no device gpu_access_lost, busy gpu_busy): only
    # a text of that table, since other programs print "Failed to connect (error code 111)!" in the same words; the
    # driver_unusable row above reads its texts first (35, 802-804: #1947, #1043, #277). Was nothing for the others.
    # Its first call is where CUDA initialises (cudaMalloc of vector A creates the context): CUDA's unknown error (999)
    # or initialization error (3) there is cuInit's, the node's driver stack refusing any CUDA program, as PyTorch's
    # "CUDA unknown error - this may be due to an incorrectly set up environment" (driver_unusable, infrastructure: was
    # cuda_error, the driver's, which triage read as a GPU's hardware fault). A later call's (the kernel's launch, a
    # copy) is the cuda_error it names, mid-run.
    _r("cuda_sample_init_failed", "driver_unusable", ["Failed to allocate device vector A (error code "],
       r"\bFailed to allocate device vector A \(error code (?P<driver_error>unknown error|initialization error)\)!"),
    _r("cuda_sample_error_code", "cuda_error", ["(error code "],
       r"\bFailed to [^\n(]{1,120}? \(error code (?P<cuda_error>" + CUDA_ERROR_TEXTS + r")\)!",
       refine="cuda", event=CUDA_EXC_OPEN),
    # The NVIDIA kernel module failing to load where the driver is installed (the GPU Operator's driver container
    # nvidia-driver-ctr, nvidia-installer, a CoreOS driver container's insmod): the node's GPUs have no driver, no job
    # gets them (was: nothing). nvidia-installer's "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens
    # most frequently when .." (gpu-operator #239, OKD 4.7, 470; the wrapped console form's first line too), insmod's
    # "insmod: ERROR: could not insert module /../nvidia.ko: Unknown symbol in module" (BugRoger/coreos-nvidia-driver
    # #4), modprobe's "modprobe: ERROR: could not insert 'nvidia': .." likewise. Only NVIDIA's modules: the driver
    # container's other modprobes (ipmi_msghandler, gpu-operator #1264) are not the GPU driver's. The kernel's own words
    # for why (its "nvidia: Unknown symbol ..", NVRM's) are the kernel log's rows. The module not installed for the
    # running kernel at all (a kernel upgraded without its DKMS build or precompiled package): modprobe's "modprobe:
    # FATAL: Module nvidia_uvm not found in directory /lib/modules/4.4.0-83-generic" (NVIDIA/nvidia-docker #481), older
    # kmod's "modprobe: FATAL: Module nvidia-uvm not found." (Bumblebee-Project/Bumblebee #623); its "is in use" (a
    # driver container's unload while a client holds it) is not this. The installer naming Secure Boot's refusal before
    # its "Unable to load": "ERROR: The kernel module failed to load, because it was not signed by a key that is trusted
    # by the kernel." (NVIDIA/gpu-operator #266, OpenShift); modprobe's own is "could not insert 'nvidia': Key was
    # rejected by service" (acidanthera/bugtracker #2237). Was: nothing for these two. Talos Linux's controller, its
    # module named: "error loading module \x5c"nvidia\x5c": load nvidia failed: key was rejected by service" (the log's
    # quote escaped so; siderolabs/talos #7174: the kernel's own "Loading of module with unavailable key is rejected"
    # names none). Was: nothing.
    _r("nvidia_module_load_failed", "driver_unusable",
       ["Unable to load the kernel module '", "could not insert ", "FATAL: Module nvidia",
        "not signed by a key that is trusted by the kernel", '": load nvidia'],
       r"(?P<driver_error>Unable to load the kernel module '(?P<module>nvidia[\w-]*)\.ko'|"
       r"(?:could not insert (?:module [^\s:]*/|')|FATAL: Module |error loading module (?:\\x5c|\\)?\")"
       r"(?P<inserted>nvidia(?:[-_](?:uvm|modeset|drm|peermem|fs))?)"
       r"(?:(?:\.ko)?'?: [^\n]*| not found\b[^\n]*|(?:\\x5c|\\)?\": load [\w-]+ failed: [^\n\"]*)|"
       r"The kernel module failed to load, because it was not signed by a key that is trusted by the kernel)"),
    # The node's container runtime failing to give a pod its GPUs, in the OCI hook's words the kubelet's Event, the
    # container's waiting / terminated message (RunContainerError, StartError exit 128) and docker quote ("error running
    # hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected mode as 'legacy'" then, on the next
    # line or the same one, nvidia-container-cli's own error): the pod never starts, no log of its own, often nothing in
    # the kernel log. Kind driver_unusable (the node's GPU software stack refusing the job at its start; the version
    # mismatch itself: the row above). Judged by libnvidia-container's stages (src/cli/configure.c: "<stage> error: ..."):
    # - initialization ("nvml error: driver not loaded", "load library failed: libnvidia-ml.so.1: cannot open shared
    #   object file", "driver error: failed to process request" and 1.11+'s "driver rpc error: ..", "nvml error:
    #   insufficient permissions"), detection ("nvml error: unknown error": NVML cannot enumerate the node's GPUs),
    #   container ("cgroup subsystem devices not found") and permission: the node's driver or runtime, whatever the pod;
    #   NVIDIA/nvidia-container-toolkit #173 (k3s, 510), #556, #260, #292, libnvidia-container #231 (was: nothing);
    # - mount (the device cgroup: "open failed: /sys/fs/cgroup/devices/..devices.allow", "failed to add device rules"):
    #   the node's cgroup set-up; but "file creation failed: <rootfs>/..: file exists" is the image shipping the
    #   driver's own files (nvidia-container-toolkit #295, an L4T image): the image's, no finding;
    # - requirement "unsatisfied condition: cuda>=12.8, please update your driver ..": the node's driver too old for the
    #   image's CUDA, as PyTorch's "driver on your system is too old" above (driver 550 under a CUDA 12.8 image,
    #   MauriceNino/dashdot #1226); "requirement error: invalid expression" is the image's NVIDIA_REQUIRE_* (go-skynet/
    #   helm-charts #39, a pod on a node whose other GPU pods ran): no finding;
    # - ldcache ("process /sbin/ldconfig failed with error code: 1") follows the image's own ldconfig and libraries (an
    #   old image on a new host, NVIDIA/nvidia-docker #1760): no finding;
    # - device, the device the runtime was handed is none the node's NVML lists: a GPU's or MIG device's UUID (the
    #   device plugin's allocation of a GPU the node no longer has: a VM migrated to another host, "device error:
    #   GPU-12345678-..: unknown device", NVIDIA/k8s-device-plugin #373; a GPU fallen off the bus, a MIG layout
    #   changed under it), and the device plugin's volume-mounts list the node's toolkit is not set to accept ("device
    #   error: unknown device id: /var/run/nvidia-container-devices", k8s-device-plugin #200, toolkit 1.14's "device
    #   error: /var/run/nvidia-container-devices: unknown device", nvidia-container-toolkit #108): the node's, both
    #   eras' words (libnvidia-container < 1.0's "unknown device id: <id>", later "<id>: unknown device"). Was nothing.
    #   An index, "false", "tegra" or the old "MIG-GPU-<uuid>/<gi>/<ci>" naming is what a user or compose file asked
    #   for (docker --gpus, LXC: nvidia-container-toolkit #29, #203): no finding; the GPU-sharing plugin's below.
    # GPU-sharing's device plugin (AliyunContainerService/
    # gpushare) writes "no-gpu-has-<N>MiB-to-run" as the device when no GPU has the memory the pod requested, and the
    # hook refuses it: "nvidia-container-cli: device error: no-gpu-has-128MiB-to-run: unknown device" (nvidia-container-
    # toolkit #223, 2023), "device error: unknown device id: no-gpu-has-2MiB-to-run" (gpushare-scheduler-extender #80,
    # 2020): the pod's request no GPU can meet (or a scheduler that placed it without one), not a fault of the node.
    _r("container_cli_no_gpu_fits", None, ["no-gpu-has-"],
       r"nvidia-container-cli(?:\.real)?: device error: (?:unknown device id: )?no-gpu-has-\w+-to-run"),
    _r("container_cli_error", "driver_unusable", ["nvidia-container-cli"],
       r"nvidia-container-cli(?:\.real)?: (?P<driver_error>(?:initialization|detection|container|permission) error: "
       r"[^\n\\\"]*?|mount error: (?![^\n\\\"]*: file exists)[^\n\\\"]*?|"
       r"requirement error: unsatisfied condition: [^\n\\\",]*|"
       r"device error: (?:unknown device id: )?(?:(?:GPU|MIG)-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|"
       r"/var/run/nvidia-container-devices)(?:: unknown device)?)(?:: unknown\.?)?(?=\s*$|\\|\"|, please)"),
    # The CDI path (the toolkit in "cdi" mode, podman, containerd's CDI injection): the GPU the device plugin (or the
    # user) named is in no CDI spec of the node: "failed to inject CDI devices: unresolvable CDI devices management.
    # nvidia.com/gpu=GPU-e78e68c0-.." (the node's generated spec stale or missing: gpu-operator 1.17.8, nvidia-container-
    # toolkit #1239), "setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all" (podman, #146): the node's.
    # Only NVIDIA's GPU kinds (nvidia.com/gpu, management. and runtime.nvidia.com/gpu, MIG devices, IMEX channels, the DRA
    # driver's gpu.nvidia.com): another vendor's or a NIC's device ("unresolvable CDI devices nvidia.com/net-sf=
    # mlx5_core.sf.3", a ConnectX scalable function after a reboot, kubernetes/kubernetes #119850) is no GPU's.
    _r("cdi_unresolvable", "driver_unusable", ["unresolvable CDI device"],
       r"(?P<driver_error>unresolvable CDI devices? (?:[\w.-]*nvidia\.com/(?:gpu|mig|imex)|[\w.-]*gpu\.nvidia\.com/)"
       r"[^\s,\"\\]*?)(?::\s*unknown\.?)?(?=\s*$|[\s,\"\\])"),
    # The node's container runtime without the NVIDIA runtime handler the pod's RuntimeClass names: the kubelet's
    # "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime for
    # "nvidia" is configured" (FailedCreatePodSandBox, gpu-operator #730, k8s-device-plugin #479, 2024), containerd's own
    # "failed to get sandbox runtime: no runtime for \"nvidia\" is configured" (gpu-operator #432): the node's toolkit
    # not (yet) set up, no pod asking for it starts there. Only handlers named for NVIDIA's runtime ("nvidia",
    # "nvidia-cdi", "nvidia-legacy"): another (kata, gVisor) is no GPU's.
    _r("sandbox_no_nvidia_runtime", "driver_unusable", ["no runtime for "],
       r'(?P<driver_error>no runtime for \\?"[\w.-]*nvidia[\w.-]*\\?" is configured)'),
    # The kubelet restarting a container of the node's GPU stack in a loop (CrashLoopBackOff), in its words: the
    # pod workers' "back-off 5m0s restarting failed container=toolkit-validation pod=nvidia-operator-validator-c9wp2_
    # default(..)" (its journal, the "StartContainer .. with CrashLoopBackOff" error; NVIDIA/gpu-operator #297), the
    # same text a pod's waiting state and a job platform's cluster report quote ("back-off 5m0s restarting failed
    # container=nvidia-device-plugin-ctr pod=nvidia-device-plugin-daemonset-wqst8_kube-system(..)", open-edge-platform/
    # geti_v2 #436: every training job unschedulable, "Insufficient nvidia.com/gpu"), and its BackOff Event's "Back-off
    # restarting failed container <name> in pod <pod>" (1.27+; before it, the name alone: k8s-device-plugin #652's
    # title). Only the containers a GPU pod's start depends on: the driver container, the toolkit, the device plugin,
    # the Operator's validators (driver, toolkit, cuda, plugin) and the MIG manager: while one loops the node gives no
    # pod its GPUs (the device plugin advertises none, the runtime's hook has no driver). Was nothing. Not the
    # monitoring's (dcgm-exporter, gpu-feature-discovery, node-feature-discovery): no job's start waits on them.
    _r("gpu_stack_crashloop", "driver_unusable", ["restarting failed container"],
       r"[Bb]ack-off (?:\d{1,3}m)?(?:\d{1,3}s )?(?P<driver_error>restarting failed container[= ]"
       r"(?P<container>nvidia-(?:device-plugin|driver|container-toolkit)-ctr|(?:driver|toolkit|cuda|plugin)-validation|"
       r"nvidia-mig-manager))\b(?!-)"),
    # The MIG manager (NVIDIA/mig-parted: nvidia-mig-parted, the GPU Operator's nvidia-mig-manager) failing to apply the
    # node's MIG configuration: until it does, the node's GPUs are in neither the layout asked for nor the one the device
    # plugin advertised (the manager has paused the plugin), and no GPU pod starts there. nvidia-mig-parted's fatal
    # "Error applying MIG configuration with hooks: error resetting all GPUs: exit status 255" (2022+, after nvidia-smi's
    # "The following GPUs could not be reset: .. In use by another client": nvidia_drm loaded, mig-parted #181), before
    # it its logrus error quoting nvidia-smi's refusal of the reset a MIG mode change needs: 'level=error
    # msg="\nResetting GPU 00000000:00:04.0 is not supported.\n"' (an A100 in passthrough, whose MIG mode takes effect
    # only at a reboot, NVIDIA/gpu-operator #1606), and before 2022 its bare "Error resetting all GPUs: .." (fatal) after
    # an error line without the "\n". One failure: the lines are one event (mig_apply), its finding the first's. The
    # node's GPU software stack refusing the layout (driver_unusable, infrastructure), not a GPU's fault (the GPU named
    # was refused a reset, not broken) nor the job's. nvidia-smi's own "Resetting GPU .. is not supported." (a person's
    # `nvidia-smi -r` on a VM) and the lines nvidia-smi prints under the TTY form's bare "ERRO[0003]" are no logrus
    # level's: silent, as is the manager's normal flow, its `nvidia-mig-parted assert` finding the layout not yet
    # applied ('level=fatal msg="Assertion failure: selected configuration not currently applied"', then "Current mode
    # different than mode being asserted": the check before each apply, NVIDIA/gpu-operator #322). Was nothing.
    _r("mig_apply_failed", "driver_unusable",
       ["Error applying MIG configuration with hooks: ", "Resetting GPU ", "could not be reset:", "Error resetting "],
       r"(?:\bError applying MIG configuration with hooks: |(?:\blevel=(?:error|fatal) msg=\"(?:\\n)?|"
       r"\b(?:ERRO|FATA)\[\d{1,8}\] )(?=Resetting GPU |The following GPUs could not be reset:|Error resetting ))"
       r"(?P<driver_error>Resetting GPU " + PCI + r" is not supported\.|"
       r"The following GPUs could not be reset:|[^\n\"\\]{1,200})", event=("mig_apply", "join")),
    # The NVIDIA device plugin refusing to start on a node whose MIG layout does not fit its MIG strategy: 0.9's
    # "panic: At least one device with migEnabled=true was not configured correctly: No MIG devices associated with
    # /dev/nvidia0: GPU-fe14a161-.." (MIG mode on, no MIG device made: NVIDIA/k8s-device-plugin #253), ".. : More than
    # one MIG device type present on node" (strategy single over a mixed layout, NVIDIA/gpu-operator #460), 0.10+'s
    # "invalid MIG configuration: at least one device with migEnabled=true was not configured correctly: device 0 has no
    # MIG devices configured" and "all devices on the node must be configured with the same migEnabled value"
    # (internal/rm/device_map.go). The plugin exits (CrashLoopBackOff), the node advertises no GPU: the node's MIG set-up
    # (the MIG manager's layout, the strategy the plugin was given), driver_unusable, not a GPU's fault. Was nothing.
    _r("device_plugin_mig_invalid", "driver_unusable",
       ["migEnabled=true was not configured correctly", "the same migEnabled value"],
       r"(?P<driver_error>[Aa]t least one device with migEnabled=true was not configured correctly: [^\n\"\\]{1,200}|"
       r"all devices on the node must be configured with the same migEnabled value)"),
    # The NVIDIA device plugin (and GFD, the DRA driver: go-nvlib's device walk) refusing to start because NVML would not
    # give it a GPU's or a MIG device's parent's memory: "error starting plugins: unable to add default resources to
    # config: error visiting devices: .. error getting device memory info: Insufficient Pemmissions" (sic, as posted:
    # NVIDIA/k8s-device-plugin #399, a MIG node; the maintainer: "typical if you don't set the environment variable for
    # NVIDIA_MIG_MONITOR_DEVICES=all on the plugin deployment", which fixed it), 0.17+'s ".. error getting MIG profile
    # for MIG device at index '(0, 0)': error getting parent memory info: Insufficient Permissions" (#1683). The cause is
    # the plugin's deployment (the MIG monitor capability its container was not given), not the node's driver nor a GPU,
    # and never the job: but while it stands the node advertises no GPU. Kind driver_unusable (the GPU software stack's
    # set-up, category infrastructure; attribution driver, the stack's, as the runtime hook's own failures), its
    # driver_error naming the permission the plugin lacked. A job's own NVML query refused so ('pynvml.NVMLError_
    # NoPermission: Insufficient Permissions' in a MIG container, NVIDIA/nvidia-container-toolkit #842) is the job's and
    # names no "memory info:"; GFD's "Ignoring error getting memory info for device: .." (a warning it goes past) names
    # none either. Was nothing.
    _r("device_plugin_nvml_permission", "driver_unusable", ["memory info: Insufficient "],
       r"\berror getting (?:device|parent) memory info: (?P<driver_error>Insufficient [A-Za-z]{1,16})"),
    # nvidia-persistenced (the driver's persistence daemon: the host's systemd unit, the GPU Operator's driver container)
    # failing at its start: its parent's "nvidia-persistenced failed to initialize. Check syslog for more details."
    # (stderr, also in the journal: NVIDIA/nvidia-persistenced #11, a GH200 whose NUMA memory auto-online it could not
    # enable, "NUMA: Failed to open /sys/devices/system/memory/auto_online_blocks: Permission denied"; ollama/ollama
    # #11932, a driver whose modules would not load). The node's GPU software stack (driver_unusable, infrastructure), but
    # a warning, never a job's root by itself: on most nodes the GPUs still serve jobs without persistence mode (each
    # client's start initialises the GPU again); where the daemon is what makes the GPU usable (a Grace Hopper's GPU
    # memory onlined by it, a confidential GPU's keys) the jobs' own failures say so in their words. Its syslog lines
    # before it ("NUMA: Failed to ..", a device's "failed to open.") say why and stay silent: this line is the failure,
    # once. Was nothing.
    _r("persistenced_init_failed", "driver_unusable", ["nvidia-persistenced failed to initialize"],
       r"(?P<driver_error>nvidia-persistenced failed to initialize)\.", severity="warning"),
    # The NVIDIA runtime (or its hook) the node's containerd or docker is configured with, missing from the node: "failed
    # to create containerd task: .. unable to retrieve OCI runtime error (open ../log.json: no such file or directory):
    # fork/exec /usr/bin/nvidia-container-runtime: no such file or directory: unknown" (an EKS AL2023 GPU AMI, aws/amazon-
    # vpc-cni-k8s #3104; Amazon Linux 2's "fork/exec /etc/docker-runtimes.d/nvidia", nvidia-container-toolkit #145),
    # docker's 'exec: "nvidia-container-runtime": executable file not found in $PATH' (kubernetes/minikube #14432): every
    # pod the runtime is asked for fails on that node, whatever it runs.
    _r("nvidia_runtime_missing", "driver_unusable", ["nvidia-container-runtime", "nvidia-container-toolkit",
                                                     "docker-runtimes.d/nvidia"],
       r'(?P<driver_error>(?:fork/)?exec:? \\?"?(?:/[\w./-]*/)?(?:nvidia-container-(?:runtime|toolkit)(?:-hook)?|'
       r'docker-runtimes\.d/nvidia)\\?"?: (?:no such file or directory|executable file not found in \$PATH))'),
    # A hook of the node's toolkit older than the CDI spec that calls it: "error running createContainer hook #5: exit
    # status 3, stdout: , stderr: No help topic for 'disable-device-node-modification'" (an nvidia-cdi-hook of before
    # 1.18 under a 1.18 spec, kubernetes-sigs/dra-driver-nvidia-gpu #568, 2025), the 2022 runtime's "No help topic for
    # 'prestart'" (nvidia-container-toolkit #14, runc 1.0's "Running hook #1:: error running hook: exit status 3"):
    # the node's toolkit install, whatever the pod. Only NVIDIA's hooks' commands (the runtime hook's "prestart",
    # nvidia-cdi-hook's, cmd/nvidia-cdi-hook: a command a newer spec calls is one of these): another hook's unknown
    # command is no GPU's.
    _r("runtime_hook_unknown", "driver_unusable", ["No help topic for '"],
       # (the first "running .. hook" and the first "stderr: " after it, atomic, from the message's start: linear; any
       # later pair would be after these)
       r"^(?>[^\n]*?[Rr]unning (?:\w+ )?hook\b)(?>[^\n]*?stderr: )[^\n]*?(?P<driver_error>No help topic for '(?:"
       r"prestart|chmod|create-symlinks|create-soname-symlinks|update-ldcache|enable-cuda-compat|disable-device-node-modification|"
       r"update-application-profile|update-nvidia-params|apply-cuda-memory-limits|check-requirements)')"),
    # PyTorch 2.6+ follows "CUDA error: <text>" with a line naming the enum: "Search for `cudaErrorIllegalAddress' in
    # https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.": the same failure
    # (CUDA_EXC_JOIN), never a second one; that line alone (its first line lost) is the failure.
    # After a kernel's assert ("Search for `cudaErrorAssert' .."), part of that failure's event (CUDA_ASSERT_JOIN) while
    # it is open.
    _r("cuda_error_enum", "cuda_error", ["Search for `cudaError"], r"Search for `(?P<cuda_error>cudaError\w+)'",
       refine="cuda", event=("cuda_exception|cuda_assert", "join")),
    # nvbandwidth's multinode CU_ASSERT (its MPI ranks share fabric memory over multi-node NVLink): the driver's status
    # by name in brackets, its text, the call, then the host and the MPI rank: "[CUDA_ERROR_INVALID_VALUE] invalid
    # argument in expression cuMemSetAccess((CUdeviceptr) buffer, roundedUpAllocationSize, &desc, 1 ) on
    # gpub200-nom6ae0518, rank = 8 in MultinodeMemoryAllocationUnicast::.." (NVIDIA/nvbandwidth #44: B200 nodes whose
    # fabric memory could not be mapped). The status refines as the driver's names do (CUDA_DRIVER_ERRORS; another,
    # unknown), the call, host and rank its details (the rank the failure's). Was nothing (no name CUDA_DRIVER_ERRORS
    # holds, no "CUDA error" words).
    _r("nvbandwidth_cu_assert", "cuda_error", [" in expression cu"],
       r"\[(?P<cuda_error>CUDA_ERROR_[A-Z_]{1,48})\] (?P<status_text>[a-z][\w ,'-]{0,80}?) in expression "
       r"(?P<call>cu\w{1,60})\((?>[^\n]*?\) on )(?P<host>[\w.-]{1,253}), rank = (?P<rank>\d{1,7}) in ",
       refine="cuda", event=CUDA_EXC_JOIN),
    # XLA goes on naming the same failure at each call after it ("failed to unload module ..; leaking:
    # CUDA_ERROR_ILLEGAL_ADDRESS: ..", "Error polling for event status: failed to query event: CUDA_ERROR_..."): one
    # failure while they follow each other (CUDA_EXC_JOIN).
    _r("cuda_driver_error", "cuda_error", ["CUDA_ERROR_"],
       r"(?P<cuda_error>" + "|".join(sorted(CUDA_DRIVER_ERRORS, key=len, reverse=True)) + r")\b",
       refine="cuda", event=CUDA_EXC_JOIN),
    # The CUDA libraries' own status codes, as frameworks print them: "CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when
    # calling `cublasGemmEx( handle, ..)`", "cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", Caffe's "Check failed: status
    # == CUBLAS_STATUS_SUCCESS (13 vs. 0)  CUBLAS_STATUS_EXECUTION_FAILED", CNTK's "CUBLAS failure 13:
    # CUBLAS_STATUS_EXECUTION_FAILED ; GPU=1": the status named (CUDA_ERRORS refines it), never the call's arguments.
    # PyTorch 2.3.0's cuDNN v8 convolutions tell of each execution plan they try and drop before the next one:
    # "UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize
    # Descriptor Failed cudnn_status: CUDNN_STATUS_NOT_SUPPORTED (Triggered internally at ../aten/src/ATen/native/cudnn/
    # Conv_v8.cpp:919.)" (pytorch/pytorch #121834: "the warning alone should not" affect training, gone in 2.3.1;
    # ultralytics #12906's "non-fatal error"), in training and serving pods that run on. A plan search, never a
    # failure: the computation's failure is its own line when no plan runs ("GET was unable to find an engine to
    # execute this computation", a RuntimeError naming a status). No finding (was a cuda_error error per line).
    _r("cudnn_plan_fallback", None, ["Plan failed with a cudnnException"], r"\bPlan failed with a cudnnException: "),
    _r("cuda_library_status", "cuda_error", ["CUBLAS_STATUS_", "CUDNN_STATUS_", "CUSOLVER_STATUS_", "CUSPARSE_STATUS_"],
       r"(?P<cuda_error>(?:CUBLAS|CUDNN|CUSOLVER|CUSPARSE)_STATUS_(?!SUCCESS\b)[A-Z_]+)",
       refine="cuda", event=CUDA_EXC_OPEN),
    # Marian's CUBLAS_CHECK gives the status by its number alone: "Error: Cublas Error: 13 - <file>:<line>: <call>"
    # (marian-nmt/marian #383, #333), as does the checkCublasStatus() of NVIDIA's cuBLASLt samples that bitsandbytes and
    # others copy: "cuBLAS API failed with status 15" (bitsandbytes #383: int8 matmul on an H100), "CuBLAS API failed
    # with status 13, <line>, <file>": named by cuBLAS's enum (CUBLAS_STATUS_NUMBERS), then refined as above (were
    # nothing).
    _r("cublas_status_code", "cuda_error", ["Cublas Error: ", "cuBLAS API failed with status ",
                                            "CuBLAS API failed with status "],
       r"(?:Cublas Error: |[cC]uBLAS API failed with status )(?P<cublas_status>\d+)\b", refine="cublas_status",
       event=CUDA_EXC_OPEN),
    # TensorRT-LLM's and TensorRT's words for any other failed CUDA call (their out of memory: trtllm_oom), the runtime's
    # text named: "[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaEventSynchronize(get()): an illegal memory access
    # was encountered (/app/tensorrt_llm/cpp/include/tensorrt_llm/runtime/cudaEvent.h:66)", ".. CUDA runtime error in
    # cub::DeviceSegmentedRadixSort::SortPairsDescending(..): invalid device function (..)", "Error Code 1: Cuda Runtime
    # (an illegal memory access was encountered)", "Error Code 1: Cuda Driver (invalid argument)". A text none of the
    # CUDA rows' keywords holds ("unspecified launch failure", "misaligned address", "unknown error") was nothing.
    # FasterTransformer's and TurboMind's "[TM][ERROR] CUDA runtime error: invalid device function /lmdeploy/src/turbomind/
    # kernels/sampling_topp_kernels.cu:1077" (InternLM/lmdeploy #583) likewise.
    # TensorRT 7's "Cuda Error in <call>: <n> (<text>)" names the call by its C++ path too ("[TRT] [E] C:\source\rtSafe\
    # safeRuntime.cpp (32) - Cuda Error in nvinfer1::internal::DefaultAllocator::free: 1 (invalid argument)", NVIDIA/
    # TensorRT #2266; was nothing).
    # (The call's own parentheses come before ": <text> (<file>:<line>)": the text is what follows the first "): "; a
    # text with parentheses of its own, "CUDA-capable device(s) is/are busy or unavailable", is read whole:
    # CUDA_PAREN_TEXTS.)
    _r("trtllm_cuda_error", "cuda_error", ["CUDA runtime error in ", "CUDA runtime error: ", "Error Code 1: Cuda ",
                                           "Cuda Error in "],
       r"CUDA runtime error(?: in (?:[^\n]*?\)|\S+))?: (?P<cuda_error>" + CUDA_PAREN_TEXTS + r"|[^(\n]+?)"
       r"(?: \(\S+:\d+\)| /\S+:\d+)|"
       r"(?:Error Code 1: Cuda (?:Runtime|Driver)|Cuda Error in (?:\w|::)+: \d+) \((?P<status_text>" + CUDA_PAREN_TEXTS
       + r"|[^)\n]+)\)",
       refine="cuda_status", event=CUDA_EXC_OPEN),
    # A CUDA kernel's own assert() failing, as the device's printf reports it, one line per failing thread (hundreds,
    # ranks' lines interleaved): "<file>.cu:<line>: <function>: block: [x,y,z], thread: [x,y,z] Assertion `<cond>`
    # failed." (the function left out by Windows builds, a template's full signature by THCUNN's): ATen's index_select
    # ("Indexing.cu:1284: indexSelectLargeIndex: .. Assertion `srcIndex < srcSelectDimSize` failed.", NVIDIA/Megatron-
    # LM #1038), indexing ("IndexKernel.cu:93: operator(): .. \"index out of bounds\"`"), cross-entropy's label out of
    # range ("Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: .. Assertion `t >= 0 && t < n_classes` failed.").
    # The job's own data or indices, the failure PyTorch raises after it as "CUDA error: device-side assert triggered"
    # (cudaErrorAssert, CUDA_ERRORS): that fact, the file, kernel and condition its details; one finding per rank (its
    # "[rankN]:" tag; the lines of none, one process's) while its threads' lines follow each other (CUDA_ASSERT_JOIN).
    # Right after another CUDA error's exception, part of that failure; the exception raised for the assert, before its
    # threads' lines (pytorch/pytorch #44867) or after them (the usual order), is a line of their event (the
    # cuda_assert_raised row); one process's untagged lines and its rank's tagged ones one (EVENT_ONE_PROCESS).
    _r("cuda_kernel_assert", "cuda_error", ["] Assertion `"],
       r"(?<![\w.+-])(?P<source>[\w.+-]+\.cuh?):\d+: (?:(?P<kernel>(?:[^:\n]|::)+): )?"
       r"block: \[\d+,\d+,\d+\], thread: \[\d+,\d+,\d+\] Assertion `(?P<assertion>[^\n]*)` failed",
       refine="cuda_assert", event=CUDA_ASSERT_JOIN),
    # The exception raised for it, by any framework that says so (CUDA_ERROR_PREFIX; Thrust's "<algorithm> failed to
    # synchronize: ", the enum's name before the text since CUDA 11: "RuntimeError: reduce failed to synchronize:
    # device-side assert triggered", pytorch/pytorch #5560; "copy_if failed to synchronize: cudaErrorAssert: ..",
    # cliang1453/BOND #14): a line of its event (the threads' lines before it or after it), never of another CUDA
    # error's right before it (a second failure). Not THC's warning before its exception ("THCudaCheck FAIL file=..
    # line=102 error=59 : device-side assert triggered", the exception's "cuda runtime error (59) : .." after it).
    _r("cuda_assert_raised", "cuda_error", [CUDA_ASSERT_TEXT],
       "(?:" + CUDA_ERROR_PREFIX + r"|failed to synchronize: (?:cudaErrorAssert: )?)(?P<cuda_error>" + CUDA_ASSERT_TEXT
       + ")", refine="cuda", event=("cuda_assert", "join")),
    # (PyTorch before 1.5 and Lua Torch: "RuntimeError: cuda runtime error (59) : device-side assert triggered at
    # /pytorch/aten/src/THC/THCTensorCopy.cu:102", the text up to " at <file>:<line>")
    # PyTorch's ProcessGroupNCCL watchdog at the process's exit, its CUDA runtime already unloaded: it catches the
    # "driver shutting down" its poll raised and ends, "[I628 20:15:42.000370615 ProcessGroupNCCL.cpp:1501] [PG  Rank 1]
    # main process destroyed cuda before watchdog loop exited, terminating watchdog. (Watchdog caught exception: CUDA
    # error: driver shutting down" (NVIDIA/Fuser #2497, PyTorch 2.4; LOG(INFO) in 2.2-2.7, VLOG(2) since), the
    # exception's own lines after it: PyTorch's word that nothing is wrong (was: a cuda_error of the quoted text, an
    # error).  Any other exception the watchdog ends with it prints as "... watchdog thread terminated with exception".
    _r("torch_watchdog_cuda_unloaded", None, ["main process destroyed cuda before watchdog loop exited"],
       r"main process destroyed cuda before watchdog loop exited, terminating watchdog\."),
    # A training framework's own straggler report (kind straggler_report, its details: the ranks, their nodes where
    # named, `stragglers` in words). nvidia-resiliency-ext's verdict as NeMo's StragglerDetectionCallback and
    # Megatron-Bridge's NVRxStragglerDetectionManager print it: "STRAGGLER DETECTION WARNING: Some GPUs have worse
    # relative performance. Affected ranks: {StragglerId(rank=76, node='h100-001-253-012')}" (the set of
    # nvidia_resiliency_ext.straggler.reporting.StragglerId, a dataclass, by its repr; "performance dropped": against
    # the rank's own best), Megatron-Bridge's documentation's "Affected ranks: [76, 13, 45]" (the ranks alone). The
    # periodic score tables ("Rank=76 Node=h100-001-253-012 Score=0.94") are no verdict: silent.
    _r("straggler_nvrx", "straggler_report", ["STRAGGLER DETECTION WARNING"],
       r"STRAGGLER DETECTION WARNING: Some GPUs (?P<measure>have worse relative performance|performance dropped)\."
       r" Affected ranks: (?P<affected>[\[{][^\n]*)", refine="straggler_ids"),
    # Megatron-LM's StragglerDetector (megatron/core/utils.py, --log-straggler): every logging interval the least and
    # the most round-trip time of the traced ops over the ranks, each with its rank ("| MnRtt/Rnk: 3453.08ms/8 |
    # MxRtt/Rnk: 3468.20ms/0 | MnPwr/Rnk: .."): a statistic, no verdict. The slowest rank is a straggler where its time
    # is STRAGGLER_RTT_RATIO times the fastest's or more (a warning); closer, an info record (healthy jitter).
    _r("straggler_megatron", "straggler_report", ["MxRtt/Rnk: "],
       r"MnRtt/Rnk: (?P<rtt_min_ms>\d+(?:\.\d+)?)ms/(?P<rtt_min_rank>\d+) \| "
       r"MxRtt/Rnk: (?P<rtt_max_ms>\d+(?:\.\d+)?)ms/(?P<rtt_max_rank>\d+)", refine="straggler_rtt"),
    # The CUDA_CHECK many programs write, the call's source before the runtime's text: fprintf(stderr, "CUDA error in
    # %s: %s\n", #call, cudaGetErrorString(e)) (some add " (error %d)"): "CUDA error in cuMemImportFromShareableHandle:
    # invalid resource handle" (kubernetes-sigs/dra-driver-nvidia-gpu #1417: a GB200 / GB300 job whose fabric-handle
    # import failed while the node's IMEX hung). The text refines as PyTorch's does, the call in details. Was nothing
    # (the generic row reads "CUDA error: " only). A driver status by name ("CUDA error in %s: %s (%s)", the CUresult's
    # name first) is the cuda_driver_error row's, before this one.
    _r("cuda_error_in_call", "cuda_error", ["CUDA error"],
       r"CUDA error in (?P<call>(?>(?:[^:\n]|::)+)): (?P<cuda_error>[^\n]*?\S)(?: \(error \d+\))?\s*$",
       refine="cuda", event=CUDA_EXC_OPEN),
    # A CUDA status by its number with the runtime's text after it, as the frameworks beyond PyTorch print it: Marian's
    # "Error: CUDA error 999 'unknown error' - <file>:<line>: cudaStreamSynchronize(0)" (mozilla/translations #1002; its
    # 2019 build's "CUDA error 30 'unknown error'", marian-nmt/marian #264), ONNX Runtime's CudaCall "CUDA failure 999:
    # unknown error ; GPU=.. ; expr=cudaSetDevice(..);" (microsoft/onnxruntime #14211), PaddlePaddle's "(External) CUDA
    # error(700), an illegal memory access was encountered." (PaddlePaddle/PaddleNLP #6031; "Cuda error(2), .." in
    # PaddlePaddle/PaddleX #702) and llama.cpp's 2023 "CUDA error 719 at ggml-cuda.cu:8021: unspecified launch failure"
    # (ggml-org/llama.cpp #4563). The text refines as PyTorch's does (CUDA_ERRORS), else the number (CUDA_STATUS_NAMES).
    # Was nothing where no keyword of the generic row below held the text ("unknown error"). A number with no text after
    # it, or status 0 (success), is not this row's; status 2's text is the job's memory (cuda_status_oom, before it).
    _r("cuda_error_code", "cuda_error", ["CUDA error", "CUDA failure", "Cuda error"],
       CUDA_CODE_HEAD + r"(?P<cu_status>(?!0\b)\d{1,4})" + CUDA_CODE_TAIL
       + r"(?P<status_text>[A-Za-z](?:[^';\n]*?[^';\s])?)'?(?=\s+[;-] |\s*$|\.(?:\s|$))",
       refine="cuda_status", event=CUDA_EXC_OPEN),
    # Caffe's CUDA_CHECK (glog's CHECK_EQ): "Check failed: error == cudaSuccess (30 vs. 0)  unknown error" (BVLC/caffe
    # #2541, 460 iterations into training; 999 in NVIDIA/DIGITS #2181), Caffe2's without the numbers, its threads'
    # lines run together ("Check failed: error == cudaSuccess unspecified launch failureF0628 15:21:28.669657 ..",
    # pytorch/pytorch #8979: one failure while they follow each other): the text refines as PyTorch's does (was
    # nothing); status 2 is cuda_status_oom's.
    _r("caffe_cuda_check", "cuda_error", ["Check failed: error == cudaSuccess"],
       CAFFE_CHECK + r"(?:\((?P<cu_status>\d+) vs\. 0\))? +(?P<status_text>[A-Za-z](?:[^\n]*?\S)?)"
       r"(?=\s*F\d{4} \d|\s*$)",
       refine="cuda_status", event=CUDA_EXC_JOIN),
    # Julia's CUDA.jl (and CUDAdrv.jl before it) naming the text, then the number and the driver's name: "CUDA error:
    # unknown error (code 999, ERROR_UNKNOWN)" (JuliaGPU/CUDAdrv.jl #210): the text, without them (was: the whole text,
    # unknown to CUDA_ERRORS, attribution unknown).
    _r("cudajl_error", "cuda_error", ["CUDA error: "],
       r"CUDA error: (?P<status_text>[^(\n]+?) \(code (?P<cu_status>\d+), \w+\)",
       refine="cuda_status", event=CUDA_EXC_OPEN),
    # PyTorch's "CUDA driver error: <text>" (C10_CUDA_DRIVER_CHECK) is read as its "CUDA error: <text>": "RuntimeError: CUDA
    # driver error: invalid argument" at symmetric memory's rendezvous (pytorch/torchtitan #1475, vllm-project/vllm
    # #25937), ".. operation not supported" (yifuwang/symm-mem-recipes #1; was: nothing). NCCL's CUDACHECK names the
    # runtime's status by its number first since 2.19 ("transport/p2p.cc:275 NCCL WARN Cuda failure 101 'invalid device
    # ordinal'", NVIDIA/nccl #1948): the listed texts are read whatever comes before them.
    # PyTorch's NCCL exception quotes NCCL's last error (ncclGetLastError) after "Last error:", on its line or the next:
    # "ncclUnhandledCudaError: Call to CUDA function failed. Last error: Cuda failure 999 'unknown error'" (NVIDIA/nccl
    # #1935), "[rank0]: Last error:" then "[rank0]: Cuda failure 999 'unknown error'" (alisson-anjos/diffusion-pipe-ui
    # #10). The status reads as NCCL's own WARN of it does (nccl_cuda_failure: CUDA_ERRORS, 999 the node's driver; was
    # the exception's nccl_error, unknown, or nothing); after that WARN (within EVENT_LINES), a quote of its status is
    # the WARN's event, no second finding (EVENT_PER_GROUP: a quote of another status is its own). A status text
    # CUDA_ERRORS lacks stays the exception's ("Cuda failure 1 'invalid argument'").
    _r("nccl_last_cuda_failure", "cuda_error", ["Cuda failure"],
       NCCL_LAST_ERROR + NCCL_CUDA_FAILURE, refine="cuda",
       event=(NCCL_CUDA_OPEN[0], "within")),
    # ollama 0.1.x's server logging its runner's last error as the runner exits (llm/llama.go), the "CUDA error" of
    # ggml's line cut off: "2023/12/20 17:03:12 llama.go:451: 700 at /go/src/github.com/jmorganca/ollama/llm/llama.cpp/
    # gguf/ggml-cuda.cu:8111: an illegal memory access was encountered" after the runner's own "CUDA error 700 at ..
    # an illegal memory access was encountered" and "current device: 1" (ollama/ollama #1649). The same failure: part
    # of the runner's error's event (was a second cuda_error); alone (the runner's lines lost), the error it quotes.
    _r("ollama_cuda_echo", "cuda_error", ["llama.go:"],
       r"llama\.go:\d+: (?P<cu_status>\d{1,4}) at \S+:\d+: (?P<cuda_error>" + CUDA_ERROR_TEXTS
       + r")\s*$", refine="cuda", event=(CUDA_EXC_OPEN[0], "within")),
    # A logger's line of the exception's text alone, "CUDA error: <text>" the whole message: vLLM's engine process
    # (engine/multiprocessing/engine.py run_mp_engine) logging the exception that ended it after PyTorch's own report
    # of it, its trailer and a blank line between: "2025-05-28T03:35:37.857Z ERROR engine.run_mp_engine: CUDA error:
    # peer access is not supported between these two devices" (dynamo's log, the logger's module and function its tag;
    # ai-dynamo/dynamo #1229). Within the open CUDA error's event and naming its error: part of it (EVENT_RESTATED, was
    # a second finding); another error, or alone, the error it names, its event opened (ggml's bare "CUDA error: .."
    # line and its "current device: N" after it).
    _r("cuda_error_restated", "cuda_error", ["CUDA error: "], r"^CUDA error: (?P<cuda_error>[^.'\n]+)", refine="cuda",
       event=CUDA_EXC_JOIN),
    # PyTorch's trailer after a CUDA error's text (c10/cuda/CUDAException.cpp c10_cuda_check_implementation): "CUDA
    # kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be
    # incorrect.", "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to
    # enable device-side assertions.": part of the open CUDA error's event (keeps it open), never a finding.
    _r("torch_cuda_error_trailer", None, ["CUDA kernel errors might be asynchronously reported",
                                          "consider passing CUDA_LAUNCH_BLOCKING=1", "TORCH_USE_CUDA_DSA` to enable"],
       r"CUDA kernel errors might be asynchronously reported|For debugging consider passing CUDA_LAUNCH_BLOCKING=1|"
       r"Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions", event=(CUDA_EXC_OPEN[0], "member")),
    _r("cuda_error", "cuda_error",
       ["CUDA error", "CUDA driver error", "Cuda failure", "CUDA failure", "cudaError", "illegal memory access",
        "uncorrectable ECC error", "cuda runtime error ("],
       "(?:" + CUDA_ERROR_PREFIX + ")?"
       r"(?P<cuda_error>an illegal memory access was encountered|"
       r"uncorrectable ECC error encountered|unspecified launch failure|device-side assert triggered|"
       r"misaligned address|an illegal instruction was encountered|the launch timed out and was terminated|"
       r"(?:all CUDA-capable devices are|CUDA-capable device\(s\) is/are) busy or unavailable|no CUDA-capable device is detected|"
       r"invalid device ordinal|" + "|".join(re.escape(t) for t in CUDA_CAPTURE_ERRORS if " " in t) + "|"
       r"(?<=CUDA error: )[^.'\n]+|(?<=CUDA driver error: )[^.'\n]+|"
       r"(?<=\) : )[^\n]+?(?= at \S+:\d+\s*$|\s*$)|cudaError\w+)",
       refine="cuda", event=CUDA_EXC_OPEN),
    # ggml's CUDA backend (llama.cpp, ollama, whisper.cpp) names the GPU its failed call was on, on the line after the
    # error (ggml-cuda.cu ggml_cuda_error): "CUDA error: unspecified launch failure" then "  current device: 0, in
    # function ggml_backend_cuda_synchronize at llama/ggml-cuda/ggml-cuda.cu:2317" (ollama/ollama #9247), 2023's "CUDA
    # error 719 at ggml-cuda.cu:8021: unspecified launch failure" then "current device: 1" (ggml-org/llama.cpp #4563).
    # Part of the error's event, its index the finding's GPU (details "gpu", an amendment: EVENT_FILL_ALONE); alone, nothing.
    _r("ggml_cuda_device", None, ["current device: "],
       r"(?:^|\s)current device: (?P<gpu>\d{1,4})(?:, in function \S+ at \S+:\d+)?\s*$",
       event=(CUDA_EXC_OPEN[0], "within")),
    # TensorFlow's report of a CUDA runtime call that failed while it set up a GPU (common_runtime/gpu/gpu_device.cc:
    # cudaGetErrorString()'s text after "Status: "): "tensorflow.python.framework.errors_impl.InternalError: CUDA runtime
    # implicit initialization on GPU:0 failed. Status: all CUDA-capable devices are busy or unavailable"
    # (tensorflow/tensorflow #48558), "cudaSetDevice() on GPU:0 failed. Status: CUDA-capable device(s) is/are busy or
    # unavailable" (google-research/pix2struct #53): the text refines as PyTorch's does (CUDA_ERRORS); its "Status: out
    # of memory" is the cuda_oom row's (was: nothing).
    _r("tf_cuda_status", "cuda_error", ["failed. Status: "],
       TF_CUDA_STATUS + r"(?P<cuda_error>[^\n]+?)\.?\s*$", refine="cuda", event=CUDA_EXC_OPEN),
    _r("nccl_error_code", "nccl_error",
       ["ncclSystemError", "ncclInternalError", "ncclUnhandledCudaError", "ncclInvalidUsage", "ncclInvalidArgument"],
       r"(?:\[Rank (?P<rank>\d+)\] .*?)?(?P<nccl_code>ncclSystemError|ncclInternalError|ncclUnhandledCudaError|"
       r"ncclInvalidUsage|ncclInvalidArgument)",
       refine="nccl", event=NCCL_EXC_JOIN),
    # PyTorch's wrapper around a failed NCCL call, every era: "NCCL error in: <file>:<line>, <text>" and the
    # older "NCCL Error <n>: <text>"; the text names the ncclResult_t.
    # 2.x's async exception names no file: "Collective WorkNCCL(..) raised the following async exception: NCCL
    # error: unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.25.1".
    _r("nccl_error_in", "nccl_error", ["NCCL error in:", "NCCL Error ", "NCCL error: "],
       r"NCCL (?:error in: [^,]*|Error \d+:?|error:),? (?P<nccl_text>unhandled cuda error|unhandled system error|internal error|"
       r"invalid usage|invalid argument)",
       refine="nccl_text", event=NCCL_EXC_OPEN, scan_from="nccl_text"),
    # nccl-tests' own report of a failed NCCL call: "Test NCCL failure common.cu:777 'unhandled system error'"
    # (older releases print "NCCL failure all_reduce.cu:95 '...'"), the ncclGetErrorString() text in quotes; and the
    # NCCLCHECK of NCCL's documentation examples, printf("Failed, NCCL error %s:%d '%s'\n", ..), as TensorRT-LLM's
    # plugins and runtime throw it (its C++ exception, or behind "[TensorRT-LLM][ERROR] Assertion failed: "): "Failed,
    # NCCL error /src/tensorrt_llm/cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp:295 'internal error - please
    # report this issue to the NCCL developers'" (NVIDIA/TensorRT-LLM #213, 2023), ".. Failed to initialize executor on
    # rank 0: [TensorRT-LLM][ERROR] Assertion failed: Failed, NCCL error ../tensorrt_llm/runtime/ncclCommunicator.cpp:90
    # 'invalid usage (run with NCCL_DEBUG=WARN for details)'" (#9263, 2025; was: nothing). TensorRT-LLM's "'unknown
    # result code'" (#1131, #1039: NCCL's WARN before it says which) names no ncclResult_t: not this row's.
    _r("nccl_test_failure", "nccl_error", ["NCCL failure", "Failed, NCCL error "],
       r"(?:NCCL failure|Failed, NCCL error) \S+:\d+ '(?P<nccl_text>unhandled cuda error|unhandled system error|internal error|"
       r"invalid usage|invalid argument)",
       refine="nccl_text"),
    # nccl-tests' report of a failed CUDA call: "Test CUDA failure common.cu:1030 'system not yet initialized'"
    _r("cuda_test_failure", "cuda_error", ["CUDA failure"],
       r"Test CUDA failure \S+:\d+ '(?P<cuda_error>[^'\n]+)'",
       refine="cuda"),
    # The CUDACHECK of NCCL's documentation examples, which vLLM's custom all-reduce (csrc/custom_all_reduce.cuh) and
    # many NCCL users copy: printf("Failed: Cuda error %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)), then
    # exit(EXIT_FAILURE): "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'" (vllm-
    # project/vllm #56180); vLLM's earlier wording had no "Cuda error " ("VLLM: Failed: /workspace/csrc/
    # custom_all_reduce.cuh:368 'invalid argument'", ai-dynamo/dynamo #787), taken where the file is CUDA source.
    _r("cudacheck_failed", "cuda_error", ["Failed: Cuda error ", "Failed: /"],
       r"Failed: (?:Cuda error \S+|/\S+\.cuh?):\d+ '(?P<cuda_error>[^'\n]+)'",
       refine="cuda", event=CUDA_EXC_OPEN),
    # 2.27+'s communicator init with no NET plugin it could initialize for the comm, internal IB and Socket included
    # (src/plugin/net.cc ncclNetInit: WARN "Failed to initialize any NET plugin", then returns ncclInvalidUsage, which
    # fails ncclCommInitRank): "[2026-05-05 06:16:47] node-01:189884:189884 [3] plugin/net.cc:334 NCCL WARN Failed to
    # initialize any NET plugin" (NCCL's user guide, troubleshooting/logging.rst). The job's communicator failed, not a
    # warning NCCL goes on after (was: the NCCL WARN row's warning): an error, NCCL's code's attribution
    # (NCCL_CODES["ncclInvalidUsage"]: the job's configuration, an NCCL_NET naming a transport the node lacks).
    _r("nccl_no_net_plugin", "nccl_error", ["Failed to initialize any NET plugin"],
       r"NCCL WARN Failed to initialize any NET plugin", attribution="application"),
    # NCCL's multi-node NVLink (MNNVL) self-test at a communicator's init (src/mnnvl.cc ncclMnnvlCheck, 2.23+): every
    # rank's GPU is in one NVLink clique (fabric state COMPLETED, one cluster UUID and clique ID), so NCCL allocates,
    # exports and imports a fabric-handle (CU_MEM_HANDLE_TYPE_FABRIC) buffer, and fails the init (ncclSystemError; in
    # PyTorch's DistBackendError after "Last error:") when it cannot. Two WARNs, two causes:
    # - the allocation failed: "MNNVL (cliqueSize 72) is available but not working on this system. Check the IMEX
    #   channel configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue." The
    #   process has no IMEX channel: a pod without the ComputeDomain's channel claim, a container without the
    #   /dev/nvidia-caps-imex-channels device. The job's configuration (attribution application), not the node's.
    # - the export or import failed: ".. Check the IMEX configuration (nvidia-imex-ctl -N). Set ..": the channel is
    #   there but the node's IMEX daemon did not serve it (not running, peers not connected): the NVLink domain's
    #   IMEX, kind imex_error (fabric, CHECK_IMEX), as the daemon's own [ERROR] lines.
    # Were the NCCL WARN row's warning (unknown), and nothing without the WARN prefix: the job's failed init unexplained.
    # The cause is the sentence after "this system.": read alone too, where a quote wraps the message there.
    _r("nccl_mnnvl_no_imex_channel", "nccl_error", ["Check the IMEX "],
       MNNVL_NOT_WORKING + r"Check the IMEX channel configuration \(/dev/nvidia-caps-imex-channels\)",
       attribution="application", action="CHECK_APP"),
    _r("nccl_mnnvl_imex", "imex_error", ["Check the IMEX "],
       MNNVL_NOT_WORKING + r"Check the IMEX configuration \(nvidia-imex-ctl -N\)"),
    # NCCL's check at a communicator's init that no two of its ranks are on one GPU (src/init.cc initTransportsRank:
    # the peers' host hash and PCI bus id, every release; WARN, then ncclInvalidUsage fails the init), the writer's own
    # rank first: "pool0-00008:1391870:1393239 [7] init.cc:904 NCCL WARN Duplicate GPU detected : rank 15 and rank 7
    # both on CUDA device e4000" (NVIDIA-NeMo/RL #3155, 2026, a 64-node Ray job; huggingface/accelerate #2246 under
    # Slurm; horovod/horovod #3929 behind mpirun's tags), and PyTorch's DistBackendError quoting it after "Last error:"
    # ("3: Duplicate GPU detected : rank 3 and rank 0 both on CUDA device 3000", clessig/atmorep #77 behind srun's
    # label; NVIDIA/Megatron-LM #661). The job gave two ranks one device (its launcher's or framework's mapping of ranks
    # to GPUs: LOCAL_RANK, CUDA_VISIBLE_DEVICES, set_device, a Ray placement): the application's, the writer's rank the
    # finding's, the other in details (was: the NCCL WARN row's warning, unknown, no failure for triage; the quote
    # nothing, the exception's "invalid usage" naming no rank). Read up to the ranks: the bus id (hex; digits alone
    # would read as a decimal detail) stays in the line, and a Pod Event's excerpt (160 characters) of a line behind
    # Ray's prefix and a stamp ends there ("..rank 15 and rank 7 both…"), the cluster component reading it back by it.
    # NCCL 2.30 lets ranks share a GPU on request (NCCL_MULTI_RANK_GPU_ENABLE=1) and words the same refusal without
    # ranks (`shared_gpu`, the writer's rank the finding's): 2.30.3-2.30.4's "Multiple ranks detected using the same GPU
    # on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 .." (src/graph/topo.cc ncclCheckMultiRank), 2.30.7+'s "init.cc:1141
    # (initTransportsRank) NCCL WARN Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1
    # to enable this configuration." (NVIDIA/nccl #1716, NCCL 2.31.2 on four MIG instances of one H200); and where the
    # job shares a GPU and demands NVLS, which cannot span ranks of one GPU, 2.30.7+'s "transport/nvls.cc:255
    # (ncclNvlsInit) NCCL WARN NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks using the same
    # NVML device. .." (#1716: the pod spec exported NCCL_NVLS_ENABLE=1; 2.30.4's "Multiple ranks detected using the
    # same GPU on this node and NCCL_NVLS_ENABLE has been set to "1"."): each ncclInvalidUsage, the job's
    # configuration (were: the NCCL WARN row's warning, unknown, and triage found no failure).
    _r("nccl_duplicate_gpu", "nccl_error", ["Duplicate GPU detected : rank ", "Multiple Ranks are using the same GPU",
                                            "Multiple ranks detected using the same GPU",
                                            "multiple ranks using the same NVML device"],
       r"Duplicate GPU detected : rank (?P<rank>\d{1,9}) and rank (?P<other_rank>\d{1,9})\b|"
       r"(?P<shared_gpu>Multiple Ranks are using the same GPU/Partition|Multiple ranks detected using the same GPU on "
       r"this node|NCCL_NVLS_ENABLE has been set to \"1\" and communicator has multiple ranks using the same NVML "
       r"device)",
       attribution="application", action="CHECK_APP", event=NCCL_EXC_JOIN),
    # NCCL's own allocation of GPU memory failing for want of it: its CUDACHECK of the runtime call, every era ("ng30903:
    # 3063028:3066152 [3] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'", NVIDIA/nccl #1235; "enqueue.cc:43
    # NCCL WARN Cuda failure 'out of memory'", NVIDIA/TensorRT-LLM #1670), its CUCHECK of the driver's cuMem calls since
    # 2.19 (the status's number first: CUDA_ERROR_OUT_OF_MEMORY is 2, "include/alloc.h:320 (ncclCuMemAlloc) NCCL WARN
    # Cuda failure 2 'out of memory'"), then, for a calloc, "include/alloc.h:185 NCCL WARN Failed to CUDA calloc 6291456
    # bytes" (src/include/alloc.h ncclCudaCalloc; 2.2x's "Failed to CUDA calloc async .."). The job out of GPU memory as
    # NCCL sets up its buffers (a communicator's init, a new peer's connection, a checkpoint's gather): the kind PyTorch's
    # own "CUDA out of memory" is (was: the NCCL WARN row's warning, unknown; the communicator's call fails after it,
    # "unhandled cuda error"). The calloc's line is the same failure (a line of the event); alone (its cause's line lost,
    # or another status), it stays the NCCL WARN row's warning.
    _r("nccl_cuda_oom", "cuda_oom", ["Cuda failure 'out of memory'", "Cuda failure 2 'out of memory'"],
       r"NCCL WARN Cuda failure (?:2 )?'out of memory'", event=("nccl_alloc", "join")),
    _r("nccl_calloc_failed", "nccl_error", ["Failed to CUDA calloc"], r"NCCL WARN Failed to CUDA calloc (?:async )?\d+ bytes",
       severity="warning", event=("nccl_alloc", "join")),
    # NCCL's shared-memory transport unable to size its segment in /dev/shm for want of space, every era: 2.5-2.11's
    # SYSCHECK of posix_fallocate ("include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on
    # device", NVIDIA/nccl #290, #525 under Kubeflow), 2.12-2.18's fallocate ("misc/shmutils.cc:72 NCCL WARN Error:
    # failed to extend /dev/shm/nccl-H1dBqY to 9637892 bytes", kserve/kserve #3791), 2.19+'s with errno ("..
    # bytes, error: No space left on device (28)", ai-dynamo/dynamo #1408, pytorch/ci-infra #490 in 2026), and 2.19+'s
    # line after it that repeats the errno ("Error while creating shared memory segment /dev/shm/nccl-WU88OE (size
    # 9637888), error: No space left on device (28)", src/misc/shmutils.cc). 2.7's SYSCHECK had no space before the
    # colon ("include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device", NVIDIA/nccl #342).
    # The communicator's init fails after it (ncclSystemError): the container's /dev/shm too small (a runtime's 64 MB
    # default, a pod without a memory-backed emptyDir there) or full: kind shm_full, whose row (parsers/kinds.py) says
    # its category (infrastructure), its advice and its Event (was: nccl_error, application, which triage read as
    # infrastructure offline only). The segment's line without an errno (2.18-) is the same failure (a line of the
    # event); alone it stays the NCCL WARN row's warning: a CUDA call may have failed it (NVIDIA/nccl #1518), and
    # attaching to another rank's segment is not this row.
    _r("nccl_shm_full", "shm_full", ["posix_fallocate failed", "Error: failed to extend ", "No space left on device"],
       r"NCCL WARN (?:Call to posix_fallocate failed ?: No space left on device|Error: failed to extend \S+ to \d+ bytes|"
       r"Error while creating shared memory segment \S+ \(size \d+\), error: No space left on device)",
       event=("nccl_shm", "join")),
    _r("nccl_shm_create_failed", "nccl_error", ["Error while creating shared memory segment"],
       r"NCCL WARN Error while creating shared memory segment \S+ \(size \d+\)", severity="warning",
       event=("nccl_shm", "join")),
    # NCCL's proxy service thread as a communicator is torn down (ncclCommDestroy / the process's exit; NCCL 2.12-2.29):
    # ncclProxyStop's own connection to send Stop races the thread's accept ("[Service thread] Accept failed Resource
    # temporarily unavailable", or "Accept failed Success"; INFO from 2.30, src/proxy.cc), then the local rank's socket
    # that sent Close breaks ("[Service thread] Could not receive type from localRank 3, res=3, closed=0") and the
    # Close op it carried fails ("[Proxy Service 3] Failed to execute operation Close from rank 3, retcode 3"): 24 WARNs
    # at the end of a run that trained and printed its RESULT (mlcommons/training_results_v5.1 Dell
    # 1xXE9680x8H200-SXM-141GB retinanet, then "Abort COMPLETE"; NVIDIA/nccl #1668, the same before "Abort COMPLETE").
    # A teardown's, no finding (were warnings on every rank of every job); a failure that caused the teardown has lines
    # of its own, and a Connect (or any other op) that fails stays the NCCL WARN row's.  So is a CUDA call NCCL makes
    # (a free, its proxy's) after the process's CUDA runtime unloaded at its exit: "node2:24881:25569 [32707]
    # include/alloc.h:243 NCCL WARN Cuda failure 'driver shutting down'", a dozen per rank as a process exits after an
    # out-of-memory its own lines report (NVIDIA/nccl #1485, 2.2x; NVIDIA/nccl-tests #188 after a peer closed its
    # socket): the process was already exiting (was: an nccl_error warning per line). The driver API's calls NCCL makes
    # through CUCHECK (cuMem*, since 2.19; src/include/cudawrap.h) print the status's number first, CUDA_ERROR_DEINITIALIZED
    # being 4: "NCCL WARN Cuda failure 4 'driver shutting down'" (the source's wording; was: a warning).
    _r("nccl_proxy_teardown", None, ["[Service thread] Accept failed", "[Service thread] Could not receive type",
                                     "Failed to execute operation Close ", "Cuda failure 'driver shutting down'",
                                     "Cuda failure 4 'driver shutting down'"],
       r"NCCL WARN (?:\[(?:Service thread\] (?:Accept failed|Could not receive type from localRank)|"
       r"Proxy Service \d+\] Failed to execute operation Close from rank)|Cuda failure (?:4 )?'driver shutting down')"),
    # NCCL reclaiming a communicator it destroys or aborts (ncclCommDestroy / ncclCommAbort -> commReclaim, src/init.cc)
    # and failing to free part of it: 2.14-2.17's "commReclaim: comm 0x.. (rank = 3) in abort, error 1", 2.18+'s ".. in
    # commDestroySync, error 1" and "commReclaim: cleanup comm 0x9801e10 rank 0 failed in destroy/abort, error 1"
    # (pytorch/pytorch #155740, 2.27: after the CUDA call that failed, "transport/p2p.cc:1128 NCCL WARN Cuda failure 1
    # 'invalid argument'", its own warning; microsoft/mscclpp #760: at every exit of a job under an interposed NCCL,
    # "error 3"). The communicator was being torn down: what made the call fail has a line of its own (the CUDA failure,
    # the error that caused the abort), and at a process's exit what the cleanup left goes with it. No finding (was the
    # NCCL WARN row's warning, a second one of each failure, on every rank).
    _r("nccl_reclaim_teardown", None, ["commReclaim: "],
       r"NCCL WARN commReclaim: (?:comm \S+ \(rank = \d+\) in \w+|(?:direct )?cleanup comm \S+ rank \d+ failed"
       r"(?: in destroy/abort)?), error -?\d+"),
    # RCCL (AMD's NCCL) at each communicator's init, MSCCL++ asked for (RCCL_MSCCLPP_ENABLE, on by default in some
    # builds) but not used: "MSCCL++: Cannot enable MSCCL++; environment is not MSCCL compatible", "MSCCL++: Cannot
    # enable MSCCL++ on gfx90a:sramecc+:xnack- architecture", "MSCCL++: Feature not enabled. ENABLE_MSCCLPP must be
    # defined at compile-time to enable this feature." (ROCm/rccl src/init.cc ncclCommInitRankFunc: WARN, then the init
    # goes on with RCCL's own algorithms to "Init COMPLETE"). Printed by every rank for every communicator of healthy
    # jobs: 72 on a 4-node MI300X MLPerf run that trained to its RESULT (mlcommons/training_results_v5.0 MangoBoost
    # MI300X-LLMBoost-GPUBoost-4node). A fallback of a performance option, no finding (were warnings).
    _r("rccl_mscclpp_off", None, ["MSCCL++: "],
       r"NCCL WARN MSCCL\+\+: (?:Cannot enable MSCCL\+\+(?:; environment is not MSCCL compatible| on \S+ "
       r"architecture)|Feature not enabled\. ENABLE_MSCCLPP must be defined)"),
    # RCCL's advice on the host's kernel setting at each process's first init, "NUMA auto balancing enabled which can
    # lead to variability in the RCCL performance! Disable by "sudo sysctl kernel.numa_balancing=0"" (ROCm/rccl
    # src/init.cc ncclInit: a WARN whenever /proc/sys/kernel/numa_balancing is 1, the default of multi-socket Ubuntu and
    # RHEL hosts, then the init goes on): printed by every rank of every job on such a host, RCCL 2.18 (ROCm/rccl #1261)
    # to 2.26 (ROCm/ROCm #5656). A performance setting, no failure: no finding (was a warning per rank, a Pod Event for
    # each). Its "Missing "iommu=pt"" advice stays a warning (a hang is reported with it).
    _r("rccl_numa_balancing", None, ["NUMA auto balancing"],
       r"NCCL WARN NUMA auto balancing enabled which can lead to variability in the RCCL performance"),
    # GCP's FastSocket network plugin (google/nccl-fastsocket net_fastsocket.cc, GCE and GKE A2 / G2 nodes with gVNIC)
    # placing each data socket of a connection on a flow engine, at every connection of a job's start: "NCCL WARN
    # Cannot get incoming CPU." (getsockopt(SO_INCOMING_CPU) failed: CPU 0 taken; GPUDirect-TCPX's plugin words the
    # same failure alike and goes on too), "NCCL WARN Maximum retry reached for accept 3." / ".. for connect 3." (no
    # matching queue in 1000 tries: the first free socket taken), then "NET/FastSocket : Connected after 1000 retries."
    # (google/nccl-fastsocket #4, a job that ran). A placement fallback, no failure: no finding (was a warning per line,
    # a Pod Event for each rank). "Cannot find empty socket for N." (the connection fails) stays the WARN row's.
    _r("nccl_fastsocket_placement", None, ["Cannot get incoming CPU", "Maximum retry reached for"],
       r"NCCL WARN (?:Cannot get incoming CPU|Maximum retry reached for (?:accept|connect) \d+)\."),
    # CollNet (IB SHARP in-network reduction, NCCL_COLLNET_ENABLE=1) not set up at a communicator's init, NCCL going on
    # without it: every era's "Cannot initialize CollNet, using point-to-point network instead" (2.9+, src/transport.cc
    # ncclTransportCollNetCheck; 2.6-2.8 "using <net> instead", src/init.cc), after which the init frees the CollNet
    # resources, clears collnetEnable and goes on to "Init COMPLETE" with rings and trees; 2.8-2.20's "CollNet is not
    # supported or fails to initialize, ignoring NCCL_ALGO=COLLNET" (src/graph/tuning.cc: rings and trees enabled
    # again). And the SHARP plugin's (Mellanox/nccl-rdma-sharp-plugins src/sharp_plugin.c ncclSharpConnect, its WARNs
    # print as NCCL's) refusals that lead there: "NET/IB : SHARP coll init error: <text>(<n>)" ("NET/IB :SHARP" in its
    # 2020 source, 0eb0d17), "SHARP group create: <text>(<n>)" ("SHARP group create failed: " then),
    # "sharp_coll_caps_query failed : ..", each returning ncclInternalError to the CollNet connect that falls back.
    # Printed by a rank of each node for each communicator of every job asking for CollNet where the fabric gives no
    # SHARP job (no Aggregation Manager, no resources, a cloud fabric without it): NVIDIA/nccl-tests #311 (2.2x: "No
    # resource", then Init COMPLETE and the test's results), NVIDIA/nccl #1050, Mellanox/nccl-rdma-sharp-plugins #151.
    # A fallback of a performance option, no finding (was a warning per line, a Pod Event for each). A SHARP
    # collective failing mid-run ("SHARP allreduce failed") stays the WARN row's.
    _r("nccl_collnet_fallback", None, ["initialize CollNet", "ignoring NCCL_ALGO=COLLNET", "SHARP coll init error",
                                       "SHARP group create", "sharp_coll_caps_query failed"],
       r"NCCL WARN (?:Cannot initialize CollNet, using .+? instead|CollNet is not supported or fails to initialize, "
       r"ignoring NCCL_ALGO=COLLNET|NET/IB ?: ?SHARP coll init error: |SHARP group create(?: failed)?: |"
       r"sharp_coll_caps_query failed : )"),
    # NCCL WARNs NCCL itself later demoted to INFO as harmless (NCCL_HARMLESS_WARNS): no finding.
    _r("nccl_warn_harmless", None, list(NCCL_HARMLESS_WARNS),
       r"NCCL WARN .*?(?:" + "|".join(re.escape(w) for w in NCCL_HARMLESS_WARNS) + ")"),
    # NCCL's check of a CUDA call it made, the status as the runtime or the driver words it (src/include/checks.h:
    # CUDACHECK's cudaGetErrorString(), CUCHECK's cuGetErrorString()): "Cuda failure '<text>'" before 2.19, then the
    # status's number first, "Cuda failure <N> '<text>'": "DESKTOP-1CE5APL:1689:2800 [0] include/alloc.h:112 NCCL WARN
    # Cuda failure 999 'unknown error'" (NVIDIA/nccl #1653, 2.21.5; nccl-tests #230), the communicator's init then
    # failing with ncclUnhandledCudaError. A text CUDA_ERRORS lists reads as that status does in every other wrapper's
    # words (999 the node's driver; was: the NCCL WARN row's warning, unknown); any other text stays that warning
    # (2.27's "Cuda failure 1 'invalid argument'" after a failed peer access). Rows before it keep theirs: 'out of
    # memory' (nccl_cuda_oom), 'driver shutting down' at exit (nccl_proxy_teardown), NVLS's multicast calls
    # (nccl_nvls_multicast).
    _r("nccl_cuda_failure", "cuda_error", ["Cuda failure"], r"NCCL WARN " + NCCL_CUDA_FAILURE, refine="cuda",
       event=NCCL_CUDA_OPEN),
    # NCCL's P2P transport failing to map a peer's buffer (src/transport/p2p.cc p2pMap: cudaIpcOpenMemHandle's status, its
    # number then cudaGetErrorString's text): "z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA
    # IPC handle : 217 peer access is not supported between these two devices" (ray-project/ray_lightning #24, NCCL
    # 2.7.8: cudaErrorPeerAccessUnsupported; CUDA 9's number for it was 64, horovod/horovod #785, whose other rank got
    # 11, "invalid argument"), the communicator's init then failing with ncclUnhandledCudaError. The CUDA status its text
    # (the number alone by CUDA_STATUS_NAMES: the numbers changed in CUDA 10.1), read as the runtime's texts are where
    # CUDA_ERRORS lists it; else the WARN row's warning, now with its status (was: that warning with none).
    _r("nccl_ipc_open", "nccl_error", ["CUDA IPC handle"],
       r"NCCL WARN [Ff]ailed to open CUDA IPC handle : (?P<cu_status>\d{1,4})(?: (?P<status_text>[^\n]*?))?\s*$",
       severity="warning", refine="cuda_status"),
    _r("nccl_warn", "nccl_error", ["NCCL WARN"], r"NCCL WARN (?P<text>.+)",
       severity="warning"),
)

# --- refinement tables -----------------------------------------------------------------------

# A firmware-first record's stated severity (cper_severity_str: "fatal", "recoverable", "corrected", "info") ->
# (severity, action) of the finding its section makes, as AER_SEVERITY for the kernel's own AER wording.
CPER_SEVERITY = {
    "fatal": ("fatal", "RESTART_BM"),
    "recoverable": ("error", "INVESTIGATE"),
    "corrected": ("warning", "MONITOR"),
    "info": ("info", "NONE"),
}


def check_tables() -> None:
    """The tables' own checks, at import: a ValueError of one line naming the entries at fault (real errors, not
    asserts: those are gone under `python -O`)."""
    def fail(what: str, names) -> None:
        if names := sorted(names):
            raise ValueError(f"parsers/rules.py: {what}: {', '.join(names)}")

    # a CUDA status read without a full stop at its end (cuda_reading): no text of the table ends with one
    fail("CUDA_ERRORS texts ending with a full stop", (text for text in CUDA_ERRORS if text.endswith(".")))
    # an event whose detail comes first is amended by its opening line and takes the details the earlier line gave
    fail("EVENT_DETAIL_FIRST events not in EVENT_AMENDS and EVENT_FILL_ALONE",
         EVENT_DETAIL_FIRST - (set(EVENT_AMENDS) & set(EVENT_FILL_ALONE)))
    # a detail appended is one the event's lines give on their own (parsers/classify.py _fill reads it only there)
    fail("EVENT_FILL_APPEND details not in the event's EVENT_FILL_ALONE",
         (f"{event}: {one}" for event, names in EVENT_FILL_APPEND.items() for one in names
          if one not in EVENT_FILL_ALONE.get(event, ())))
    # a filled finding is an amended one: tracked, counted once
    fail("filled events (EVENT_FILLS, EVENT_FILL_ALONE) not in EVENT_AMENDS",
         (set(EVENT_FILLS) | set(EVENT_FILL_ALONE)) - set(EVENT_AMENDS))
    # a kind a status is: one the rows reading it are planned for (parsers/classify.py: a workload's kind naming no
    # device, as cuda_error)
    fail("CUDA_ERRORS statuses whose kind is no workload's deviceless one",
         (f"{text}: {row}" for text, row in CUDA_ERRORS.items()
          if isinstance(row, str) and not (KIND[row].workload and KIND[row].device is None)))
    # EVENT_PAGES is what the "page" rows name, and each of those is one key (no device): Classifier._in_event's "page"
    # role and _follows read an event's pages by its name; EVENT_SECTIONS and EVENT_ECHOES likewise (one report open at
    # a time)
    fail("events the \"page\" rows name and EVENT_PAGES differ in",
         {r.event[0] for r in RULES if r.event is not None and r.event[1] == "page"} ^ EVENT_PAGES)
    fail("events read by name (EVENT_PAGES, EVENT_SECTIONS, EVENT_ECHOES) kept per device or rank",
         (EVENT_PAGES | set(EVENT_SECTIONS) | set(EVENT_ECHOES)) & (EVENT_PER_DEVICE | EVENT_PER_RANK))
    # A "begin" row with a finding (a WARN's first line naming the module) opens its report's event: it lists one of
    # EVENT_REPORTS (Classifier._instantiate)
    fail("\"begin\" rows with a finding listing not one of EVENT_REPORTS",
         (r.name for r in RULES if r.event is not None and r.event[1] == "begin" and r.kind is not None
          and len(set(r.event[0].split("|")) & EVENT_REPORTS) != 1))
    # An "inside" row's line is a finding only within an event a row of its own opens ("open", no kind: a section's
    # header line), never the net's (Classifier._in_event)
    opened = {r.event[0] for r in RULES if r.event is not None and r.event[1] == "open" and r.kind is None}
    fail("\"inside\" rows without a kind or whose event no kind-less \"open\" row opens",
         (r.name for r in RULES if r.event is not None and r.event[1] == "inside"
          and (r.kind is None or r.event[0] not in opened)))
    # A row whose line's event a group's value chooses (`event_if`) makes a finding of every line, and has no `event` of
    # its own
    fail("event_if rows without a kind or with an event of their own",
         (r.name for r in RULES if r.event_if is not None and (r.kind is None or r.event is not None)))


check_tables()
# The rows whose finding takes the severity a "state" row stated (row name -> that event's name and its table).
STATED = {"cper_pcie_device": ("cper", CPER_SEVERITY), "cper_memory": ("cper", CPER_SEVERITY),
          "cper_arm": ("cper", CPER_SEVERITY), "storage_oops": ("oops", OOPS_STATED),
          "kernel_oops": ("oops", DRIVER_WARN_STATED)}

FM_NVL_FATALITY = {  # Fabric Manager's word for a GPU NVL error -> (severity, action); None: the nvlink kind's own
    "fatal": (None, None),
    "non fatal": ("warning", "MONITOR"),
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

NCCL_CODES = {  # ncclResult_t name -> attribution, per NCCL's own descriptions
    "ncclSystemError": "unknown",  # a system call failed: sockets, shared memory, devices
    "ncclInternalError": "unknown",  # NCCL bug or memory corruption
    "ncclUnhandledCudaError": "unknown",  # a CUDA call failed: see the CUDA error around it
    "ncclInvalidUsage": "application",
    "ncclInvalidArgument": "application",
}


def _refine_ib_async_event(g: dict, out: dict) -> None:
    """The adapter's async event by its libibverbs name (IB_ASYNC_EVENTS), where the words are libibverbs'."""
    name = IB_EVENT_NAME.get(g.get("event") or "") or UCX_IB_EVENT_WORDS.get(g.get("event") or "")
    if name is not None:
        out["details"]["ibv_event"] = name


# An Xid's or SXid's catalog row by its code's text (a row's `xid` / `sxid` group): the one reading of a code, the
# refiner's row and the finding's field alike (classify's `xid_row(xid).code`): bounded_int's, so a code of more than
# MAX_DIGITS digits or not ASCII ("\u0667\u0669": `\d` matches it, int() reads it) is None and the catalog's UNKNOWN
# row, never another code's. A node's lines name few codes, so each is read once, an lru_cache hit after (a few hundred
# instructions, where bounded_int's call, int() and the catalog's lookup are ~2,500 of each new Xid line); one
# argument: a lone str is its own key. A key is at most a message's digits
@lru_cache(maxsize=256)
def xid_row(digits: str) -> XidInfo:
    return xid_info(bounded_int(digits))


@lru_cache(maxsize=256)
def sxid_row(digits: str) -> SxidInfo:
    return sxid_info(bounded_int(digits))


def _refine_xid(g: dict, out: dict) -> None:
    info = xid_row(g["xid"])
    out["severity"], out["attribution"], out["action"] = info.severity, info.attribution, info.action
    out["details"]["mnemonic"] = info.mnemonic
    text = g.get("text") or ""
    read = XID_READS.get(info.code)  # what the code's line says past its row (catalog.XID_READS); most codes: nothing
    if read is None:
        pass
    elif read == "containment":
        m = CONTAINMENT_LINE.search(text) if CONTAINMENT_GATE in text else None  # (no decision with an action without it)
        key = CONTAINMENT_ACTION[m.lastindex] if m else None  # (its group: the decision's, CONTAINMENT_RECOVERY's)
        if key is not None and SEVERITY_RANK[XID154_RECOVERY[key][0]] > SEVERITY_RANK[out["severity"]]:
            out["severity"], out["action"] = XID154_RECOVERY[key]
            out["details"]["recovery_action"] = key
    elif read == "detail":  # which memory the Xid 48 it details was in (its event's finding's, joined)
        out["details"].update(memory=XID48_DETAIL[info.code], detail_xid=info.code)
    elif read == "recovery":
        # the action named by the line, else by its code (the names change across releases: XID154_RECOVERY_CODE)
        m = re.search(r"to 0x([0-9a-f]+) \(([^)]+)\)", text, re.I)
        if m:
            key = m.group(2).lower()
            key = key if key in XID154_RECOVERY else XID154_RECOVERY_CODE.get(int(m.group(1), 16))
            if key is not None:
                out["severity"], out["action"] = XID154_RECOVERY[key]
                out["details"]["recovery_action"] = m.group(2)
    elif read == "cause":  # (the attribution alone: the catalog's severity and action stand)
        # 57x+ (kernel_rc.c, Xid 45 only: catalog.CAUSE_XIDS): the channels an earlier Xid took down, that Xid named:
        # "Ch 00000001 caused by previous Xid 149" (open-gpu-kernel-modules #1150). Not the application's: the cause's
        # attribution, as triage reads it (triage/attribute.py attribution_of); the cause's severity is its own line's
        if "caused by previous Xid" in text:  # (a line of an older driver has none: no search)
            m = re.search(r"caused by previous Xid (\d+)", text)
            if m:
                cause = xid_info(int(m.group(1)))
                out["attribution"] = cause.attribution
                out["details"]["caused_by_xid"] = cause.code
    else:  # "nvlink5", "link"
        m5 = NVLINK5_LINE.search(text) if read == "nvlink5" else None
        if m5:
            unit, verdict = m5.group("unit"), m5.group("verdict").lower()
            d = out["details"]
            d.update(unit=unit, verdict=verdict)
            if m5.group("link") != "-1":  # "Link -1": the unit's error, no one link
                d["link"] = int(m5.group("link"))
            if m5.group("intrinfo"):
                d.update(intrinfo=m5.group("intrinfo").lower(), error_status=m5.group("error_status").lower())
            override = NVLINK5_UNIT_OVERRIDE.get((unit, verdict)) or NVLINK5_VERDICT.get(verdict)
            if override:
                out["severity"], out["action"] = override
            # NVIDIA's decode of IntrInfo and Error Status (catalog.NVLINK5_DECODE_ROWS) decides over the verdict: a
            # reset of a line the driver calls Nonfatal, the Xid 154 beside it or nothing for one it calls Fatal (a
            # Fatal line the decode resets keeps the catalog's WORKFLOW_NVLINK5_ERR, whose outcome that reset is)
            decode = m5.group("intrinfo") and nvlink5_decode(
                info.code, unit, int(m5.group("intrinfo"), 16), int(m5.group("error_status"), 16))
            if decode and (decode != "RESET_GPU" or out["severity"] != "fatal"):
                out["severity"], out["action"] = NVLINK5_DECODE_OUTCOME[decode]
                d["decode"] = decode
            return
        m = re.search(r"\blink (\d+)", text, re.I)
        if m:
            out["details"]["link"] = int(m.group(1))


def _refine_sxid(g: dict, out: dict) -> None:
    """The line's own Fatal / Non-fatal word wins over the catalog. A non-fatal SXid the Fabric Manager guide says
    "can be safely ignored" (22013, Minion Link DLREQ interrupt: a link's training request, logged per link as the
    NVSwitch links come up at every HGX boot, Lambda's documented healthy output) is info, counted and no Warning
    Event; any other non-fatal one a warning."""
    info = sxid_row(g["sxid"])
    fatality = (g.get("fatality") or "").lower()
    out.update(severity=info.severity(fatality == "fatal" if fatality else None), action=info.action)
    out["details"]["name"] = info.name


def _refine_fm_nvl(g: dict, out: dict) -> None:
    severity, action = FM_NVL_FATALITY.get(g["fatality"].lower(), (None, None))
    out["severity"], out["action"] = severity or out["severity"], action or out["action"]


def _refine_aer(g: dict, out: dict) -> None:
    out["severity"], out["action"] = AER_SEVERITY.get(g["aer_severity"].lower(), ("error", "INVESTIGATE"))
    domain, aer_id = g.pop("domain", None), g.pop("aer_id", None)
    if aer_id and not g.get("pci"):  # kernels before 4.x: "received: id=00e5", the reporter's bus/devfn in hex
        rid = int(aer_id, 16)
        g["pci"] = f"{domain or '0000'}:{rid >> 8:02x}:{(rid >> 3) & 0x1f:02x}.{rid & 7}"


def _refine_aer_detail(g: dict, out: dict) -> None:
    """An AER event opened by one of its detail lines: a correctable status bit is a warning, failed recovery is
    fatal, successful recovery a warning; any other detail line keeps the row's error."""
    recovery, bit = g.get("recovery"), g.get("bit")
    if recovery:
        out["severity"], out["action"] = (("warning", "MONITOR") if "successful" in recovery.lower()
                                          else ("fatal", "RESTART_BM"))
    elif bit in AER_CORRECTABLE_BITS:
        out["severity"], out["action"] = "warning", "MONITOR"


def aer_register(status: int, mask: int) -> str | None:
    """The AER status register a device's status line printed (its report's header lost): "correctable" or
    "uncorrectable" by a bit only that register has, in the status, else in the mask; else the correctable one for a
    mask of its reset-default bits alone (AER_CORRECTABLE_MASK_DEFAULT); else None (the bits cannot say)."""
    for value in (status, mask):
        only = [register for register, bits in AER_REGISTER_ONLY.items() if value & bits]
        if len(only) == 1:
            return only[0]
    if mask and not mask & ~AER_CORRECTABLE_MASK_DEFAULT:
        return "correctable"
    return None


def _refine_aer_status(g: dict, out: dict) -> None:
    """An AER event its device's status line opened (no header of it before: a cut log): a warning when the status
    is the correctable register's, else the row's error (an uncorrectable status line cannot say fatal or not)."""
    register = aer_register(int(g.pop("aer_status"), 16), int(g.pop("aer_mask"), 16))
    if register:
        out["details"]["register"] = register
    if register == "correctable":
        out["severity"], out["action"] = AER_SEVERITY["corrected"]


DPC_TRIGGER = ("unmasked uncorrectable error", "ERR_NONFATAL", "ERR_FATAL", "other")  # DPC status bits 2:1


def _refine_dpc(g: dict, out: dict) -> None:
    """A containment is fatal when ERR_FATAL triggered it (the reason line, or the status's trigger bits), else an
    error; the finding is about the device the trigger came from when the line names it, else the port."""
    reason, status = g.get("dpc_reason"), g.get("dpc_status")
    if reason is None and status is not None:
        reason = DPC_TRIGGER[(int(status, 16) >> 1) & 3]
    out["details"]["trigger"] = reason or "unknown"
    out["severity"], out["action"] = ("fatal", "RESTART_BM") if reason == "ERR_FATAL" else ("error", "INVESTIGATE")
    domain, port, source = g.pop("domain", None), g.pop("port", None), g.pop("dpc_source", None)
    if not g.get("pci") and port:
        rid = int(source, 16) if source else 0
        g["pci"] = (f"{domain}:{rid >> 8:02x}:{(rid >> 3) & 0x1f:02x}.{rid & 7}" if rid else f"{domain}:{port}")


def _refine_link_limited(g: dict, out: dict) -> None:
    """A NIC driver's own line with fewer lanes than the device has is a warning; any other line a record."""
    driver, width, width_cap = g.pop("driver"), g.pop("width"), g.pop("width_cap")
    speed, speed_cap = g.pop("speed"), g.pop("speed_cap")
    out["details"].update(link=f"{speed} x{width}", capable=f"{speed_cap} x{width_cap}",
                          limited_at=g.pop("limited_at"), printed_by=driver)
    if driver != "pci" and int(width) < int(width_cap):
        out["severity"], out["action"] = "warning", "CHECK_MECHANICALS"


def _refine_iommu(g: dict, out: dict) -> None:
    """The faulting device: the line's prefix (5.x+ AMD-Vi), else the address inside the fault (`device=20:00.0`,
    DMAR's `[03:00.0]`, 5.14's `[0x00:0x02.0]`)."""
    if not g.get("pci") and g.get("device"):
        g["pci"] = g["device"].replace("0x", "")


def _refine_ipmi_sel(events: dict):
    """The refiner of a SEL row of IPMI_SEL_EVENTS: its event's severity and action (None: the kind's)."""
    def refine(g: dict, out: dict) -> None:
        severity, action = events[g["event"]]
        out["severity"] = severity
        if action is not None:
            out["action"] = action
    return refine


def _refine_edac_ghes(g: dict, out: dict) -> None:
    """ghes_edac's count line: an uncorrected error (UE) is an error, a corrected one (CE) the kind's warning."""
    if g.get("ecc") == "UE":
        out["severity"], out["action"] = "error", "INVESTIGATE"


# Intel's compound machine-check error codes (SDM vol. 3B, "Interpreting the MCA Error Codes": MCi_STATUS bits 15:0,
# bit 12 the corrected-filtering flag F, left out here): (mask, value, unit, kind). First match wins.
#   0000 0000 0000 11LL  generic cache hierarchy error of level LL
#   0000 0000 0001 TTLL  TLB error: transaction type TT, level LL
#   0000 0000 1MMM CCCC  memory controller error: memory transaction MMM, channel CCCC (the DIMMs': memory_error)
#   0000 0001 RRRR TTLL  cache hierarchy error: request RRRR, transaction type TT, level LL
# Any other code (bus and interconnect, internal, unclassified, a zero status) is read as before: memory_error.
MCA_ERROR_CODES = ((0xeffc, 0x000c, "cache", "cpu_cache_error"), (0xeff0, 0x0010, "TLB", "cpu_cache_error"),
                   (0xef80, 0x0080, "memory controller", "memory_error"),
                   (0xef00, 0x0100, "cache", "cpu_cache_error"))
MCA_LEVELS = ("L0", "L1", "L2", "generic level")  # LL
MCA_TYPES = ("instruction", "data", "generic", None)  # TT (11 reserved)
MCA_REQUESTS = ("generic error", "generic read", "generic write", "data read", "data write", "instruction fetch",
                "prefetch", "eviction", "snoop")  # RRRR 0000-1000 (ERR, RD, WR, DRD, DWR, IRD, PREFETCH, EVICT, SNOOP)
MCI_STATUS_UC = 1 << 61  # the error was not corrected


def _refine_mce_record(g: dict, out: dict) -> None:
    """An x86 machine-check record's MCi_STATUS: the unit its error code names (MCA_ERROR_CODES) and its level and
    transaction for a cache or TLB (details `mca`: "L2 instruction cache error, instruction fetch"); not corrected (UC):
    an error."""
    status = g.pop("status", None)
    if status is None:
        return
    value = int(status, 16)
    code = value & 0xffff
    row = next((row for row in MCA_ERROR_CODES if code & row[0] == row[1]), None)
    if row is None:
        return
    unit, kind = row[2], row[3]
    if kind == "memory_error":
        out["details"]["mca"] = f"{unit} error"
        return
    level, kind_of = MCA_LEVELS[code & 3], MCA_TYPES[(code >> 2) & 3] if code & 0x0100 or unit == "TLB" else None
    request = MCA_REQUESTS[(code >> 4) & 0xf] if code & 0x0100 and (code >> 4) & 0xf < len(MCA_REQUESTS) else None
    said = " ".join(w for w in (level, kind_of, unit, "error") if w)
    out["kind"] = kind
    out["details"]["mca"] = f"{said}, {request}" if request else said
    if value & MCI_STATUS_UC:
        out["severity"], out["action"] = "error", "INVESTIGATE"


def _refine_nvme(g: dict, out: dict) -> None:
    """An I/O timeout the driver aborts is a warning; a controller reset (or one that fails) an error."""
    if g.get("what") == "aborting":
        out["severity"], out["action"] = "warning", "MONITOR"


def _refine_md(g: dict, out: dict) -> None:
    """A member disk lost: an array with no redundancy failed (an error); a redundant one runs degraded (a warning)."""
    if not g.get("failed"):
        out["severity"] = "warning"


def _refine_ib_link(g: dict, out: dict) -> None:
    sev, action, state = IB_LINK_STATE.get(g["state"].lower(), ("error", "CHECK_LINK", "down"))
    if state == "module_error":
        action = MODULE_ERROR_ACTION.get((g.get("reason") or "").lower(), action)
    out.update(severity=sev, action=action)
    out["details"]["state"] = state


# cxi_core's error classes (its dump_flg_info) -> (severity, action); a class not here (an older driver's line, which
# names none) is a warning
CXI_ERROR_CLASS = {"C_EC_BADCON_NS": ("warning", "MONITOR"), "C_EC_BADCON_S": ("warning", "MONITOR"),
                   "C_EC_COR": ("warning", "MONITOR"), "C_EC_DEGRD_NS": ("error", "INVESTIGATE"),
                   "C_EC_UNCOR_NS": ("error", "RESET_NIC"), "C_EC_UNCOR_S": ("error", "RESET_NIC"),
                   "C_EC_CRIT": ("error", "RESET_NIC")}


def _refine_cxi(g: dict, out: dict) -> None:
    """The error class's severity; a PCIe read bypass abort ("C_EC_CRIT: C_PI_IPD_EXT error: pri_rbyp_abort (44)") follows
    a PCIe correctable error, which HPE calls expected unless its rate exceeds the PCIe specification: a warning."""
    if "rbyp_abort" in g["error"]:
        out["severity"], out["action"] = "warning", "MONITOR"
        return
    out["severity"], out["action"] = CXI_ERROR_CLASS.get(g.get("error_class") or "", ("warning", "MONITOR"))


def cuda_reading(text: str, kind: str = "cuda_error") -> tuple[str, str, str, str] | None:
    """A CUDA status's reading (CUDA_ERRORS): (kind, severity, attribution, action), the kind `kind` (the row's) where
    the table gives the three, the named kind's own where it names one; None for a status the table lacks. The
    runtime's text with the full stop some wrappers keep (FasterTransformer's "CUDA runtime error: the provided PTX was
    compiled with an unsupported toolchain. /workspace/..") reads as without it."""
    row = CUDA_ERRORS.get(text.rstrip("."))  # (no key ends with one: check_tables)
    if isinstance(row, str):
        named = KIND[row]
        return row, named.severity, named.attribution, named.action
    return None if row is None else (kind, *row)


def _refine_cuda(g: dict, out: dict) -> None:
    text = g["cuda_error"].strip()
    out["details"]["cuda_error"] = text
    reading = cuda_reading(text, out["kind"])
    if reading is not None:
        out["kind"], out["severity"], out["attribution"], out["action"] = reading


# A detail that decides its finding's reading (kind, severity, attribution, action) -> the refiner (REFINERS) that reads
# it off a line: a finding whose detail is restored from the words it was named in (parsers/kinds.py `read_named`:
# cluster/evidence.py, an Event's excerpt cut before it) is read again by it (`read_again`), as the whole line was
READ_BY = {"cuda_error": "cuda"}


def read_again(kind: str, severity: str, attribution: str, action: str, details: Mapping[str, Any]
               ) -> tuple[str, str, str, str]:
    """(kind, severity, attribution, action) of a finding with these details (those READ_BY names read again)."""
    out = {"kind": kind, "severity": severity, "attribution": attribution, "action": action, "details": {}}
    for key, refiner in READ_BY.items():
        if key in details:
            REFINERS[refiner]({key: details[key]}, out)
    return out["kind"], out["severity"], out["attribution"], out["action"]


# The CUDA driver's (CUresult) and runtime's (cudaError_t) numbers of the failures CUDA_DRIVER_ERRORS names (the two
# enums agree on these) and of an invalid argument, for a line that gives a status by its number alone (torch_memory_saver's "CUresult error
# result=700 ..").
CUDA_STATUS_NAMES = {1: "invalid argument", 214: "CUDA_ERROR_ECC_UNCORRECTABLE",
                     220: "CUDA_ERROR_NVLINK_UNCORRECTABLE", 700: "CUDA_ERROR_ILLEGAL_ADDRESS",
                     702: "CUDA_ERROR_LAUNCH_TIMEOUT", 710: "CUDA_ERROR_ASSERT", 714: "CUDA_ERROR_HARDWARE_STACK_ERROR",
                     715: "CUDA_ERROR_ILLEGAL_INSTRUCTION", 716: "CUDA_ERROR_MISALIGNED_ADDRESS",
                     718: "CUDA_ERROR_INVALID_PC", 719: "CUDA_ERROR_LAUNCH_FAILED",
                     226: "CUDA_ERROR_CONTAINED", 46: "CUDA_ERROR_DEVICE_UNAVAILABLE", 100: "cudaErrorNoDevice",
                     217: "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
                     999: "CUDA_ERROR_UNKNOWN"}


# cuBLAS's cublasStatus_t by number (cublas_api.h, every release since CUDA 6), for a line that gives only the number
CUBLAS_STATUS_NUMBERS = {1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
                         7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH",
                         11: "CUBLAS_STATUS_MAPPING_ERROR", 13: "CUBLAS_STATUS_EXECUTION_FAILED",
                         14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED",
                         16: "CUBLAS_STATUS_LICENSE_ERROR"}


def _refine_cublas_status(g: dict, out: dict) -> None:
    """A cuBLAS status by its number: its name (CUBLAS_STATUS_NUMBERS), else the number; refined as the names are."""
    code = int(g.pop("cublas_status"))
    g["cuda_error"] = CUBLAS_STATUS_NUMBERS.get(code, f"cuBLAS status {code}")
    _refine_cuda(g, out)


def _refine_cuda_assert(g: dict, out: dict) -> None:
    """A kernel's failed assert(): the CUDA error it raises (CUDA_ASSERT_TEXT)."""
    g["cuda_error"] = CUDA_ASSERT_TEXT
    _refine_cuda(g, out)


def _refine_cuda_status(g: dict, out: dict) -> None:
    """A CUDA status an allocator or a library printed: its text where the line gives one, else its name by its number
    (CUDA_STATUS_NAMES), else the name the library gave it (`cu_name`: Numba's own table, missing or wrong for some), else
    its number; refined as the runtime's texts are (CUDA_ERRORS)."""
    code, text, name = g.get("cu_status"), g.pop("status_text", None), g.pop("cu_name", None)
    if not g.get("cuda_error"):
        g["cuda_error"] = text or CUDA_STATUS_NAMES.get(int(code)) or name or f"CUDA status {code}"
    _refine_cuda(g, out)


def _refine_ib_wc(g: dict, out: dict) -> None:
    """NET/IB's completion status by its libibverbs name, whichever way the line gives it (name or number)."""
    code = g.get("error_code")
    name = g.get("wc_status") or (IB_WC_STATUS.get(int(code)) if code and len(code) <= 3 else None)
    if name:
        out["details"]["wc_status"] = name


# An mlx5 completion's syndrome (MLX5_CQE_SYNDROME_*, rdma-core's mlx5dv.h) -> the libibverbs status the mlx5 provider
# turns it into (providers/mlx5/cq.c: mlx5_handle_error_cqe), as IB_WC_STATUS names NET/IB's numbers.
MLX5_SYNDROME_WC = {0x01: "IBV_WC_LOC_LEN_ERR", 0x02: "IBV_WC_LOC_QP_OP_ERR", 0x04: "IBV_WC_LOC_PROT_ERR",
                    0x05: "IBV_WC_WR_FLUSH_ERR", 0x06: "IBV_WC_MW_BIND_ERR", 0x10: "IBV_WC_BAD_RESP_ERR",
                    0x11: "IBV_WC_LOC_ACCESS_ERR", 0x12: "IBV_WC_REM_INV_REQ_ERR", 0x13: "IBV_WC_REM_ACCESS_ERR",
                    0x14: "IBV_WC_REM_OP_ERR", 0x15: "IBV_WC_RETRY_EXC_ERR", 0x16: "IBV_WC_RNR_RETRY_EXC_ERR",
                    0x22: "IBV_WC_REM_ABORT_ERR"}


def _refine_mlx5_syndrome(g: dict, out: dict) -> None:
    """UCX's completion error: the device (either era's place for it) and the status its syndrome is."""
    if g.get("netdev") is None:
        g["netdev"], g["port"] = g.pop("old_netdev", None), g.pop("old_port", None)
    name = MLX5_SYNDROME_WC.get(int(g.pop("syndrome"), 16))
    if name:
        out["details"]["wc_status"] = name
    g["vendor_err"] = str(int(g["vendor_err"], 16))


def _refine_ucx_verbs_wc(g: dict, out: dict) -> None:
    """UCX's verbs completion error: the status its words are (IB_WC_WORDS), the vendor error either era gives."""
    name = IB_WC_WORDS.get(g.pop("wc_words").lower())
    if name:
        out["details"]["wc_status"] = name
    vendor_err = g.pop("qp_vendor_err", None) or g.get("vendor_err")
    g["vendor_err"] = str(int(vendor_err, 16)) if vendor_err else None


def _refine_mlx5_cqe(g: dict, out: dict) -> None:
    """mlx5e's error completion: the libibverbs status its syndrome is (MLX5_SYNDROME_WC), where the line gives one."""
    syndrome = g.get("cqe_syndrome")
    name = MLX5_SYNDROME_WC.get(int(syndrome, 16)) if syndrome else None
    if name:
        out["details"]["wc_status"] = name


# A completion queue error's syndrome (the PRM's CQ error event; mlx4's and mthca's eq.c print the same two words)
MLX5_CQ_ERROR_SYNDROME = {0x1: "overrun", 0x2: "access violation"}


def _refine_mlx5_cq_error(g: dict, out: dict) -> None:
    """mlx5's CQ error event: what its syndrome says, where it is one the PRM names."""
    what = MLX5_CQ_ERROR_SYNDROME.get(int(g["cq_syndrome"], 16))
    if what:
        out["details"]["cq_error"] = what


def _refine_nccl(g: dict, out: dict) -> None:
    out["attribution"] = NCCL_CODES.get(g["nccl_code"], "unknown")


def _refine_nccl_text(g: dict, out: dict) -> None:
    code = NCCL_TEXT[g["nccl_text"]]
    out["details"]["nccl_code"] = code
    out["attribution"] = NCCL_CODES.get(code, "unknown")


# The signal each of the kernel's user-space fault reports sent (arch/x86/kernel/traps.c: DO_ERROR's and do_trap's
# names; a segfault and a general protection fault: SIGSEGV)
TRAP_SIGNALS = {"general protection fault": 11, "invalid opcode": 4, "divide error": 8, "int3": 5, "overflow": 11,
                "bounds": 11, "invalid TSS": 11, "segment not present": 7, "stack segment": 7, "alignment check": 7,
                "coprocessor segment overrun": 8}
# Whose code a crashed process died in, by its library (the first pattern matching the library's name): the GPU driver's
# user-space libraries (CUDA's driver API, NVML, the PTX JIT, the GL/Vulkan/video ones): attribution driver; NCCL's,
# PyTorch's: the application's stack, its own libraries; any other: the program's.
# (LazyPattern: compiled at the first crash that names a library; an idle agent holds none of them)
CRASH_STACKS = ((LazyPattern(r"libcuda\.so|libnvidia-|libnvcuvid|libnvoptix|lib(?:GLX|EGL)_nvidia"), "driver", "driver"),
                (LazyPattern(r"libnccl"), "nccl", "application"),
                (LazyPattern(r"libtorch|libc10|libcaffe2"), "pytorch", "application"))


def _refine_crash(g: dict, out: dict) -> None:
    """A process crash: the signal its fault sent, and whose library it died in (CRASH_STACKS)."""
    trap = g.get("trap")
    name = trap[5:] if trap and trap.startswith("trap ") else trap
    if name:
        g["trap"] = name
    out["details"]["signal"] = TRAP_SIGNALS.get(name, 11) if name else 11
    library = g.get("library")
    for pattern, stack, attribution in CRASH_STACKS if library else ():
        if pattern.match(library):
            out["details"]["stack"] = stack
            out["attribution"] = attribution
            break


# A straggler report's measure (rules "straggler_nvrx"): against the job's fastest rank, or against the rank's own best
STRAGGLER_MEASURES = {"have worse relative performance": "relative", "performance dropped": "individual"}
# One straggler of nvidia-resiliency-ext's set: its StragglerId's repr (the rank, its node), or a bare rank of a list
# (a number a comma or the list's end follows, not inside a node's name: an Event's excerpt cut inside "node='h100-00"
# names rank 76 and no rank 100)
STRAGGLER_ID = LazyPattern(r"StragglerId\(rank=(\d+)(?:, node='([^'\n]*)'\))?|(?<![\w'=.-])(\d+)(?=\s*[,\]}])")
# Megatron-LM's slowest rank is a straggler at this ratio of its round-trip time to the fastest rank's: the ratio of a
# pod's step time to its job's median at which deploy/monitoring/workload-rules.yaml's GPUStragglerSuspected fires
STRAGGLER_RTT_RATIO = 1.25
# Half the last digit StragglerDetector prints a time to (_ValueWithRank's "{value:.2f}"): a printed time is within
# this of the rank's.  A fastest time printed "0.00ms" is a positive one under it, never zero (report() divides by each
# rank's time before it prints: a rank that timed nothing raises ZeroDivisionError there, no line), so the ratio is
# read at its least the printed figures allow, (slowest - this) / (fastest + this): a straggler behind a rank that
# timed almost nothing still named, two times that round to 0.00 and 0.01 no straggler
STRAGGLER_RTT_PRINTED = 0.005
STRAGGLERS_NAMED = 8  # the stragglers a finding's words name (the ranks and nodes in details: all of them)


def _stragglers(details: dict, found: list[tuple[int, str]], how: str = "") -> None:
    """A straggler report's details: the ranks, their nodes where named, and the words an Event and an incident say
    (`stragglers`: "rank 76 on node h100-001-253-012, ..")."""
    found = sorted(set(found))
    details["straggler_ranks"] = ",".join(str(rank) for rank, _ in found)
    nodes = list(dict.fromkeys(node for _, node in found if node))
    if nodes:
        details["nodes"] = ",".join(nodes)
    words = ", ".join(f"rank {rank}" + (f" on node {node}" if node else "") for rank, node in found[:STRAGGLERS_NAMED])
    details["stragglers"] = words + (f" and {len(found) - STRAGGLERS_NAMED} more" if len(found) > STRAGGLERS_NAMED
                                     else "") + how


def _refine_straggler_ids(g: dict, out: dict) -> None:
    """nvidia-resiliency-ext's verdict: its measure, and the ranks (and nodes) of the set it printed."""
    out["details"]["measure"] = STRAGGLER_MEASURES[g["measure"]]
    found = [(int(rank or bare), node) for rank, node, bare in STRAGGLER_ID.findall(g.pop("affected"))]
    if found:  # (none: an excerpt cut before its first rank)
        _stragglers(out["details"], found, f" ({out['details']['measure']} performance)")


def _refine_straggler_rtt(g: dict, out: dict) -> None:
    """Megatron-LM's least and most round-trip times: the slowest rank a straggler from STRAGGLER_RTT_RATIO on (the
    least ratio the printed figures allow, STRAGGLER_RTT_PRINTED), else an info record."""
    fastest, slowest = float(g["rtt_min_ms"]), float(g["rtt_max_ms"])
    ratio = max(slowest - STRAGGLER_RTT_PRINTED, 0.0) / (fastest + STRAGGLER_RTT_PRINTED)
    if ratio < STRAGGLER_RTT_RATIO:
        out["severity"] = "info"
        return
    _stragglers(out["details"], [(int(g["rtt_max_rank"]), "")],
                f" ({ratio:.2f} times the round-trip time of rank {g['rtt_min_rank']})")


# compiled when the first storage oops needs them, as the rows are (LazyPattern): not at import
_STORAGE_MODULE_OF = tuple((LazyPattern("|".join(modules)), fs) for fs, modules in STORAGE_CLIENT_MODULES.items())


def _refine_oom(g: dict, out: dict) -> None:
    """An OOM kill's line: whose memory it says ran out (OOM_WORDS), where it says."""
    scope = OOM_WORDS.get(g.get("oom") or g.get("constraint") or "")
    if scope is not None:
        out["details"]["oom"] = scope


def _refine_storage_oops(g: dict, out: dict) -> None:
    """An oops in a storage client module: whose filesystem it is (STORAGE_CLIENT_MODULES)."""
    for modules, fs in _STORAGE_MODULE_OF:
        if modules.fullmatch(g["module"]):
            out["details"]["filesystem"] = fs
            break


# Lines that report what an Xid reports without that Xid's line: refine key -> the Xid (a GSP timeout: 119, the GSP's
# crash report: 120). The finding is that Xid, with its catalog row's severity, attribution and action.
XID_WITHOUT_LINE = {"gsp_timeout": 119, "gsp_error": 120}


def _refine_as_xid(xid: int):
    """The refiner of a line reporting what Xid `xid` reports without its line: refined as that Xid's line."""
    code = str(xid)

    def refine(g: dict, out: dict) -> None:
        g["xid"] = code
        _refine_xid(g, out)
    return refine


# details "reporter" of a line restating the kernel's Xid, by its refine key: who said it (that it restates a kernel
# line is its row's `restates`; the key "reporter" alone is no mark: POWER's hard LOCKUP row names the CPU that saw it
# "reporter" too). The device plugin's "XidCriticalError: Xid=94 on Device=GPU-.." and DCGM's health watch's
# "Detected XID 31 for GPU 4" (DCGM_FR_XID_ERROR).
XID_REPORTERS = {"device_plugin_xid": "k8s-device-plugin", "dcgm_xid": "dcgm"}


def _refine_relayed_xid(reporter: str):
    """The refiner of another program's line restating an Xid (rules "device_plugin_xid", "dcgm_health_xid"): the
    catalog's row for its code, the GPU's UUID where GKE's plugin gives it after a device file's name, and who said
    it."""
    def refine(g: dict, out: dict) -> None:
        _refine_xid(g, out)
        uuid = g.pop("device_uuid", None)
        if uuid is not None and g.get("uuid") is None:
            g["uuid"] = uuid
        out["details"]["reporter"] = reporter
    return refine


def _refine_dcgm_fr_code(g: dict, out: dict) -> None:
    """A relayed DCGM error code (rule "dcgm_fr_code"): its DCGM_CODES row's kind, and its severity and attribution,
    each the kind's where the row leaves it out."""
    row = DCGM_CODE[g["dcgm_code"]]
    kind = KIND[row.kind]
    out["kind"], out["action"] = row.kind, kind.action
    out["severity"], out["attribution"] = row.severity or kind.severity, row.attribution or kind.attribution


def _refine_nvsmi_recovery(g: dict, out: dict) -> None:
    """nvidia-smi's recovery action or reset status (rules "nvsmi_recovery_action"): the severity and action Xid 154
    naming that action has."""
    named = g.get("recovery_action")
    key = NVSMI_RECOVERY_ACTION[named.lower()] if named else NVSMI_RESET_STATUS[g["reset_status"].lower()]
    out["severity"], out["action"] = XID154_RECOVERY[key]


def _refine_nvsmi_fabric(g: dict, out: dict) -> None:
    """nvidia-smi's Fabric block (rule "nvsmi_fabric_fault"): a health summary's severity (catalog.NVSMI_FABRIC_HEALTH);
    a registration's error status keeps the kind's."""
    health = g.get("fabric_health")
    if health is not None:
        out["severity"] = NVSMI_FABRIC_HEALTH[health.lower()][0]


# Whose GPU memory a CUDA OOM says filled the GPU (details "oom": a key of kinds.OOM_SCOPES), by PyTorch's own figures
# in each era's words: 2.1+'s "GPU 0 has a total capacity of 93.00 GiB of which 134.94 MiB is free. Process 118636 has
# 71.62 GiB memory in use. Including non-PyTorch memory, this process has 21.24 GiB memory in use. Of the allocated
# memory 19.85 GiB is allocated by PyTorch, and 731.17 MiB is reserved by PyTorch but unallocated." (NVML's processes on
# the GPU: "this process" the rank, "Process N" any other; 2.1's "capacty"; rwth-i6/returnn #1649, the earlier run's
# process still on the GPU), and 1.x's "(GPU 0; 14.76 GiB total capacity; 4.37 GiB already allocated; 14.75 MiB free;
# 4.43 GiB reserved in total by PyTorch)" (0.4-1.3: "cached"; NVIDIA/k8s-device-plugin #323, a time-sliced T4 whose
# other pod held 9 GiB). The rank's own memory is the larger of NVML's "this process" and PyTorch's reserved memory
# (NVML may say 0 bytes: rhymes-ai/Aria #24); in a container NVML names the rank by the host's pid, never "this
# process": the smallest "Process N" holding at least PyTorch's reserved memory is the rank itself (hiyouga/
# LlamaFactory #1936: its own 21.98 GiB beside its peers' 398 MiB contexts; modelscope/FunASR #2006). Others' memory: the
# other processes NVML lists (2.1+), else all the GPU's memory outside the rank's PyTorch pool (1.x names no process:
# the other processes', and the rank's CUDA context). Held by another (GPU_OOM_HELD): ONE other process holding more
# than half the GPU's memory AND more than the rank's own (1.x, naming none: all that is outside the rank's pool, as
# one): the GPU was not free when the job got it (a process an earlier job left behind, a second pod given the same
# GPU), the node's to clean, not the batch size's. Several other processes that only together hold most of it are,
# as often as not, the job's OWN other ranks on the same GPU (every rank on cuda:0: no torch.cuda.set_device(
# local_rank), a wrong CUDA_VISIBLE_DEVICES, device_map="auto" in each rank; qibin0506/llm_trainer #2: three sibling
# pids holding 9.89, 35.03 and 23.79 GiB of 79.32 beside the rank's 10.58, the job launched without its parallel
# setup): the application's. Peers are no "near-equal" shares to recognise them by (that thread's are not: ranks OOM
# at different steps), so a single holder is the test; several leftover processes, none holding half, stay the
# application's per line (triage's per-job rule, `_gpu_shared`, names ranks that report one GPU together). An OOM
# whose rank holds most of its GPU is its own. A message without the figures (a truncated line, another framework's)
# stays the application's. Every figured line keeps the GPU's and the rank's own memory (details total_gib,
# own_gib) for triage's per-job reading.
GPU_OOM_HELD = 0.5  # the fraction of the GPU one other process must hold (and more than the rank) for "gpu_held"
_SIZE = r"(\d+(?:\.\d+)?) (bytes|KiB|MiB|GiB|TiB)"
_SIZE_GIB = {"bytes": 1 / 2 ** 30, "KiB": 1 / 2 ** 20, "MiB": 1 / 2 ** 10, "GiB": 1.0, "TiB": 2.0 ** 10}
# (LazyPattern: compiled at the first CUDA OOM line with figures; ~15 KiB an idle agent held compiled)
_OOM_V2 = LazyPattern(r"total capac(?:i)?ty of " + _SIZE + r" of which " + _SIZE + r" is free")
_OOM_V1 = LazyPattern(_SIZE + r" total capacity; (?:.*?; )?" + _SIZE + r" free; " + _SIZE
                      + r" (?:reserved in total by PyTorch|cached)")
_OOM_PROCESS = LazyPattern(r"(?:Process (\d+)|this process) has " + _SIZE + r" memory in use")
_OOM_POOL = LazyPattern(r"Of the allocated memory " + _SIZE + r" is allocated by PyTorch, .*?and " + _SIZE
                        + r" is reserved by PyTorch but unallocated")
_OOM_PIDS_SHOWN = 3


def _gib(number: str, unit: str) -> float:
    return float(number) * _SIZE_GIB[unit]


def gpu_oom_usage(text: str) -> tuple[float, float, float, tuple[str, ...], float] | None:
    """(the GPU's memory, the rank's own, other processes', the pids NVML names for those (2.1+; () for 1.x), the most
    one other holds (1.x: all the others' as one)) in GiB, as a CUDA OOM message's figures say (GPU_OOM_HELD's
    comment); None where it gives no capacity."""
    v2 = _OOM_V2.search(text)
    if v2 is not None:
        total = _gib(*v2.group(1, 2))
        pool = _OOM_POOL.search(text)
        reserved = _gib(*pool.group(1, 2)) + _gib(*pool.group(3, 4)) if pool is not None else 0.0
        listed = [(pid, _gib(n, u)) for pid, n, u in _OOM_PROCESS.findall(text)]
        mine = [gib for pid, gib in listed if not pid]
        others = [(pid, gib) for pid, gib in listed if pid]
        if not mine:  # a container's rank: its own entry is the smallest holding at least its PyTorch pool
            own = min((entry for entry in others if entry[1] >= reserved), key=lambda entry: entry[1], default=None)
            if own is not None:
                others.remove(own)
                mine = [own[1]]
        return (total, max([reserved, *mine]), sum(gib for _, gib in others),
                tuple(pid for pid, _ in sorted(others, key=lambda entry: -entry[1])),
                max((gib for _, gib in others), default=0.0))
    v1 = _OOM_V1.search(text)
    if v1 is None:
        return None
    total, free, reserved = _gib(*v1.group(1, 2)), _gib(*v1.group(3, 4)), _gib(*v1.group(5, 6))
    outside = max(total - free - reserved, 0.0)
    return total, reserved, outside, (), outside


def _refine_cuda_oom(g: dict, out: dict) -> None:
    """A CUDA OOM whose figures say another process holds most of the GPU (GPU_OOM_HELD): details "oom" "gpu_held",
    the others' figure (GiB) and pids; the action to find those processes, not the application's to shrink. Any
    figured line: the GPU's and the rank's own memory (details total_gib, own_gib)."""
    text = g.pop("oom_usage", None)
    # ("total capac": a fast path, one substring test before gpu_oom_usage's two searches, which both need it)
    usage = gpu_oom_usage(text) if text and "total capac" in text else None
    if usage is None:
        return
    total, own, others, pids, largest = usage
    out["details"].update(total_gib=f"{total:.2f}", own_gib=f"{own:.2f}")
    if largest > total * GPU_OOM_HELD and largest > own:
        shown = ", ".join(pids[:_OOM_PIDS_SHOWN]) + (f" +{len(pids) - _OOM_PIDS_SHOWN}"
                                                       if len(pids) > _OOM_PIDS_SHOWN else "")
        out["details"].update(oom="gpu_held", held_gib=f"{others:.2f}",
                              held_by=f"pid {shown}" if pids else "processes not named")
        out["attribution"], out["action"] = "unknown", "CHECK_GPU_PROCESSES"


def held_alone(details: dict) -> str | None:
    """The pid of the one other process a "gpu_held" CUDA OOM names on its GPU (details held_by "pid 118636": NVML
    listed the rank and that process alone); None: it names several ("pid 5, 6"), none (1.x's "processes not named"),
    or the line is no gpu_held one."""
    held_by = details.get("held_by") if details.get("oom") == "gpu_held" else None
    if not held_by or not held_by.startswith("pid "):
        return None
    pid = held_by[4:]
    return pid if pid.isdigit() else None


REFINERS = {"dcgm_fr_code": _refine_dcgm_fr_code, "nvsmi_fabric": _refine_nvsmi_fabric, "nvsmi_recovery": _refine_nvsmi_recovery, "ib_async_event": _refine_ib_async_event, "xid": _refine_xid, "sxid": _refine_sxid, "fm_nvl": _refine_fm_nvl, "aer": _refine_aer, "aer_detail": _refine_aer_detail, "aer_status": _refine_aer_status,
            "dpc": _refine_dpc, "link_limited": _refine_link_limited, "edac_ghes": _refine_edac_ghes, "mce_record": _refine_mce_record, "nvme": _refine_nvme, "md": _refine_md, "iommu": _refine_iommu,
            "ib_link": _refine_ib_link, "cxi": _refine_cxi,
            "cuda": _refine_cuda, "cuda_oom": _refine_cuda_oom, "cuda_assert": _refine_cuda_assert, "cuda_status": _refine_cuda_status, "nccl": _refine_nccl, "ib_wc": _refine_ib_wc,
            "cublas_status": _refine_cublas_status,
            "mlx5_syndrome": _refine_mlx5_syndrome, "mlx5_cqe": _refine_mlx5_cqe,
            "ucx_verbs_wc": _refine_ucx_verbs_wc,
            "mlx5_cq_error": _refine_mlx5_cq_error,
            "nccl_text": _refine_nccl_text, "crash": _refine_crash, "storage_oops": _refine_storage_oops,
            "oom": _refine_oom,
            "straggler_ids": _refine_straggler_ids, "straggler_rtt": _refine_straggler_rtt,
            **{f"ipmi_sel_{name}": _refine_ipmi_sel(events) for name, (_, _, _, events) in IPMI_SEL_EVENTS.items()},
            **{key: _refine_as_xid(xid) for key, xid in XID_WITHOUT_LINE.items()}}
REFINERS.update({key: _refine_relayed_xid(who) for key, who in XID_REPORTERS.items()})

# Every keyword of the table: the prefilter over whole buffers is built from these.
# (Rows of a multi-line event count too: its member lines keep the event open.)
KEYWORDS: tuple[str, ...] = tuple(dict.fromkeys(k for rule in RULES if rule.kind or rule.event for k in rule.keywords))
