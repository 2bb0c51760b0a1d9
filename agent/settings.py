"""Every configuration key, declared once: its type, default, bounds and doc.

`Config` (top level) and the blocks it holds (`kubernetes:` is `kube.settings.KubeSettings`) are frozen
dataclasses whose fields say it all: the type annotation, `Annotated[..., doc(text, bounds)]` for the doc and
the bounds, and the default.  From them derive: the defaults (`defaults()`), the defaults file users read
(`python -m agent.settings` prints it: every key with its doc), the environment mapping
(`GPU_NPD_<KEY>`, `GPU_NPD_<BLOCK>__<KEY>`), the validation (agent/keyspec converts and checks bounds;
config.py adds the few checks across keys) and the reference docs (`keys()`).

    from agent.settings import keys
    for k in keys():   # Key rows, in declaration order, blocks' keys after their block
        k.path, k.env, k.type, k.default, k.bounds, k.doc
"""

from __future__ import annotations

import copy
import functools
import textwrap
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Annotated, Any, Literal, get_args, get_origin

import yaml

from parsers import kinds
from parsers import telemetry

from .checks import builtin as builtin_checks
from .hangsettings import HangSettings, PeerSettings
from .keyspec import LIMIT, Meta, bare, doc, hints, meta_of
from .keyspec import num as _num
from .kube.settings import MODES, KubeSettings
from .sinks import SINKS, Sinks

ENV_PREFIX = "GPU_NPD_"
NESTED_SEP = "__"  # GPU_NPD_KUBERNETES__HEARTBEAT_SECONDS=60 sets kubernetes.heartbeat_seconds


def _table(load):
    return field(default_factory=lambda: copy.deepcopy(load()))


CHECKS_DEFAULT: dict[str, Any] = {
    "enabled": False, "plugin_configs": [], "plugin_base_dir": "/", "severity": "error",
    "builtin": builtin_checks.defaults(),  # one block per built-in check, from its row (agent/checks/builtin.py)
}
# The per-Xid policy's defaults (docs/extending.md), each with its source: 45, NVIDIA's catalog "Solo: RESTART_FM;
# Not Solo: IGNORE (follow other Xid)" (cleanup after another Xid is no new fault)
XID_POLICY_DEFAULT: dict[Any, Any] = {45: {"ignore_after": {"xids": "any", "within_seconds": 10}}}


@dataclass(frozen=True)
class Config:
    # ---- sources
    kmsg: Annotated[str, doc('kmsg-format source; "" turns it off. A FIFO or file of records works for tests.')] = \
        "/dev/kmsg"
    log_files: Annotated[list[str], doc("followed like tail -F, in addition to kmsg")] = field(default_factory=list)
    fallback_log_files: Annotated[list[str], doc("kmsg unreadable: the first of these that exists is followed")] = \
        field(default_factory=lambda: ["/var/log/kern.log", "/var/log/syslog", "/var/log/messages"])
    journald: Annotated[bool | None, doc("true / false; null: used only when neither kmsg nor a log file can be "
                                         "read")] = None
    fabricmanager_log: Annotated[str, doc('NVIDIA Fabric Manager\'s log, followed as source `fabricmanager` when '
                                          'present (absent: said once, not an error); "" turns it off')] = \
        "/var/log/fabricmanager.log"
    imex_log: Annotated[str, doc('the NVIDIA IMEX daemon\'s log (multi-node NVLink: GB200 / GB300 NVL72), followed as '
                                 'source `imex` when present (absent: said once, not an error); "" turns it off')] = \
        "/var/log/nvidia-imex.log"
    state_dir: Annotated[str, doc("where state (problems, conditions, cursors) is kept")] = "/var/lib/gpu-npd"
    metrics_address: Annotated[str, doc('HOST:PORT of /metrics, /healthz, /livez: loopback unless told otherwise '
                                        '(the DaemonSet sets $(POD_IP):9810); ":9810" or "0.0.0.0:9810" means '
                                        'every interface')] = "127.0.0.1:9810"
    node_name: Annotated[str, doc("default: $NODE_NAME, then the host name")] = ""
    log_level: Annotated[str, doc("debug | info | warning | error")] = "info"
    log_format: Annotated[Literal["text", "json"], doc("text | json (one JSON object per line: time, level, logger, "
                                                       "msg)")] = "text"
    # ---- the engine
    tick_seconds: Annotated[float, _num("engine housekeeping (expiry, persistence, self-metrics)", gt=0)] = 1.0
    source_gone_grace_seconds: Annotated[float, _num(
        "a followed log file or the pod-log directory missing this long: the source is reported down "
        "(gpu_npd_source_up 0, /healthz 503); a rotation's gap is shorter. 0: at once", ge=0)] = 30.0
    warning_expire_seconds: Annotated[float, _num("warning-class problems clear after this long without a repeat",
                                                  gt=0)] = 21600.0
    notice_events: Annotated[bool, doc(
        "a node's finding of warning or worse that raises no condition (no rule for it: a CPU's thermal throttling, "
        "connection tracking full, an NVMe command aborted, an unclassified driver line) is a Node Event of its "
        "kind's reason, at most one per reason and device every notice_seconds while it repeats (an application's "
        "and a pod log's never: those have Pod Events); false: counted and logged only")] = True
    notice_seconds: Annotated[float, _num(
        "a notice (notice_events) is said again at most this often per device and reason while its lines come: a "
        "storm of them is one Event each period. Default: kubernetes.event_aggregate_seconds' default (the storm's "
        "Event then one whose count rises), whatever that key is set to (its 0, no aggregation, is no notice a line)",
        ge=1)] = KubeSettings.event_aggregate_seconds
    app_xid_window_seconds: Annotated[float, _num("Xids 13 / 31 repeating on one GPU within this window ...",
                                                  gt=0)] = kinds.BY_NAME["xid"].repeated.window_seconds
    app_xid_distinct_processes: Annotated[int, _num("... from this many different processes escalate (NVIDIA: run "
                                                    "diagnostics)", gt=0)] = kinds.BY_NAME["xid"].repeated.processes
    max_series_per_family: Annotated[int, _num(
        "distinct label sets per metric family fed by input (Xid code x PCI, namespace x pod); past it increments "
        "go to one `other` series, counted in gpu_npd_series_overflow_total", gt=0)] = 1000
    xid_policy: Annotated[dict, doc(
        "per-Xid policy: Xid code -> any of severity, action (override NVIDIA's catalog for this Xid); count, "
        "window_seconds (raise it only after `count` of them on one GPU within the window); ignore_after: {xids: "
        "any | application | [codes], within_seconds: N} (drop it when it follows another Xid (of those) on the "
        "same GPU within N s). A file's block adds to / replaces entries by code; `45: {}` removes a default (the "
        "defaults: XID_POLICY_DEFAULT, each with its source). E.g. 109: {count: 3, window_seconds: 600} raises "
        "context-switch timeouts only when they repeat")] = \
        field(default_factory=lambda: copy.deepcopy(XID_POLICY_DEFAULT))
    xid_reboot_escalation: Annotated[int, _num("a fatal Xid back on the same GPU after this many reboots: action "
                                               "HARDWARE_INSPECTION (0: off)", ge=0)] = 2
    ib_counter_selfcheck_seconds: Annotated[float, _num(
        "an mlx5 ACCESS_REG failure this soon after we read that device's IB counters is ours (no problem); "
        "0: off", ge=0)] = 2.0
    ib_counter_selfcheck_repeats: Annotated[int, _num("this many of them and that device's IB counters are no "
                                                      "longer read", ge=1)] = 3
    unused_port_boot_seconds: Annotated[float, _num(
        "an IB/RoCE port down or unplugged this early in the boot, never up since: unused, no error (0: off)",
        ge=0)] = 600.0
    max_problems: Annotated[int, _num("hard cap on standing problems (oldest warning-class dropped first)",
                                      gt=0)] = 4096
    intake_lag_seconds: Annotated[float, _num("/healthz is degraded while records wait longer than this before "
                                              "the engine sees them", gt=0)] = 60.0
    queue_max_mb: Annotated[float, _num(
        "memory for records read and not yet processed; when full, sources wait (kmsg's ring buffer then holds "
        "the rest; an overrun is counted, never silent)", gt=0)] = 8.0
    # ---- Kubernetes
    mode: Annotated[Literal[MODES], doc(
        "enforce (conditions, events, taints) | observe (conditions and events; the safe first rollout) | off "
        "(metrics only). With no in-cluster config and no kubeconfig the agent runs in local mode (stdout) "
        "whatever the mode")] = "observe"
    kubernetes: Annotated[KubeSettings, doc("the Kubernetes writer")] = field(default_factory=KubeSettings)
    # ---- telemetry
    nvml: Annotated[str, doc("auto (pynvml; no driver is a normal state) | off | fake:<scenario.yaml> (the C "
                             "stand-in for libnvidia-ml, built with cc: tests, demos; docs/nvml.md)")] = "auto"
    poll_seconds: Annotated[float, _num("NVML and sysfs are polled this often (and at once on a udev device "
                                        "change)", gt=0)] = 10.0
    nvml_deadline_seconds: Annotated[float, _num("an NVML call slower than this marks its GPU NVMLTimeout; nothing "
                                                 "else waits", gt=0)] = 5.0
    expected_gpus: Annotated[int, _num("0: the GPUs seen on the PCI bus or through NVML since the agent started",
                                       ge=0)] = 0
    expected_nics: Annotated[int, _num("RDMA NICs (/sys/class/infiniband devices); 0: as many as seen since the "
                                       "agent started", ge=0)] = 0
    boot_grace_seconds: Annotated[float, _num(
        "a sample rule with boot_grace: true withholds its verdict this long after the node booted (links train, "
        "the fabric registers; NVSentinel #1701: NVLinks are down for a moment after every boot). 0: off",
        ge=0)] = 300.0
    proc_root: Annotated[str, doc("prefix for /proc (pid -> container -> pod attribution of Xids)")] = "/"
    pod_logs_root: Annotated[str, doc('container logs followed for NCCL / PyTorch / CUDA failures ("" turns it '
                                      'off)')] = "/var/log/pods"
    workload_include_namespaces: Annotated[list[str], doc("globs; pods in these namespaces are followed ...")] = \
        field(default_factory=lambda: ["*"])
    workload_exclude_namespaces: Annotated[list[str], doc("... except these (never our own output: no "
                                                          "feedback)")] = \
        field(default_factory=lambda: ["kube-system", "gpu-npd"])
    workload_include_pods: Annotated[list[str], doc("globs of pod names followed ...")] = \
        field(default_factory=lambda: ["*"])
    workload_exclude_pods: Annotated[list[str], doc("... except these")] = field(default_factory=list)
    workload_allowed_log_roots: Annotated[list[str], doc(
        "besides pod_logs_root: where kubelet's log files may point (cri-dockerd); a log file resolving anywhere "
        "else is refused, never read")] = field(default_factory=lambda: ["/var/lib/docker/containers"])
    workload_max_open_files: Annotated[int, _num("past this, idle container logs are watched by stat instead of "
                                                 "an open fd", gt=0)] = 256
    workload_correlation_seconds: Annotated[float, _num("a workload failure this soon after a node fault is "
                                                        "reported as caused by it", gt=0)] = 600.0
    workload_pod_label: Annotated[bool, doc("add `pod` to gpu_npd_workload_findings_total (cardinality!)")] = False
    workload_hang: Annotated[HangSettings, doc(
        "progress per pod from trainers' log lines; a pod that stops is suspected hung (a Pod Event "
        "WorkloadHangSuspected + gpu_npd_workload_hang_suspected; never a node condition) after max(k x its median "
        "interval between progress lines, floor_seconds) of silence, or pause_seconds after an announced "
        "checkpoint save / evaluation (at most timeout_fraction x the longest collective timeout the pod's log "
        "said); only once min_steps advances were seen")] = \
        field(default_factory=HangSettings)
    peer_outliers: Annotated[PeerSettings, doc(
        "stragglers against peers: a GPU (SM clock, power, utilisation) or rail (data rate) under load k MADs "
        "below its node peers for `polls` polls running -> GPUDegraded/StragglerSuspected (warning)")] = \
        field(default_factory=PeerSettings)
    sinks: Annotated[Sinks, doc(
        "optional sinks, each off by default: one block per row of agent/sinks/__init__.py's SINKS ("
        f"{', '.join(r.name for r in SINKS) or 'none yet'})")] = field(default_factory=Sinks)
    sysfs_root: Annotated[str, doc("prefix for /sys (fixture trees in tests; the host's /sys mounted "
                                   "elsewhere)")] = "/"
    udev: Annotated[bool, doc("watch PCI / InfiniBand / net add-remove events (falls back to polling)")] = True
    checks: Annotated[dict, doc(
        "active checks (off by default): NPD custom-plugin-monitor configs (plugin_configs: paths of their JSON "
        "files; relative rule paths resolve against plugin_base_dir) run unchanged, and the built-in checks "
        f"{', '.join(c.name for c in builtin_checks.TABLE)} (python -m agent.checks.builtin <check>), each with "
        "enabled, interval (Go duration), timeout, its expected values and optionally condition (defaults: "
        f"{', '.join(dict.fromkeys(c.condition for c in builtin_checks.TABLE))}). severity: of a NonOK permanent "
        "rule (Unknown is always warning). Checks that load GPUs "
        f"({', '.join(c.name for c in builtin_checks.TABLE if c.gpu_load)}) run only while no compute process is "
        "on any GPU")] = field(default_factory=lambda: copy.deepcopy(CHECKS_DEFAULT))
    sample_ignore: Annotated[dict[str, list[str]], doc(
        'subjects (globs) never judged, by entity: e.g. ib_port: ["ib:mlx5_4/*"] for an uncabled storage '
        'port')] = field(default_factory=lambda: {"ib_port": [], "pci": []})
    sample_rules: Annotated[list[dict[str, Any]], doc(
        "readings -> problems (the table in parsers/sample_rules.yaml): entity gpu | nvlink | ib_port | pci | node; "
        "one test per rule: above X | in [..] | below_field F | increase_above N (within window s) | "
        "rate_above R (per `per` s) | below X | changes_above N (within window s); every rule confirms before it "
        "accuses (polls N, for S; boot_grace). A problem stands while its rule holds and clears at the first "
        "reading where it does not. message: a template over the reading's labels and {value}, {shown}, "
        "{window}. Sources of each default: docs/telemetry-thresholds.md")] = \
        field(default_factory=telemetry.sample_rules)  # (a fresh copy each call)
    conditions: Annotated[dict[str, dict[str, str]], doc(
        "Node conditions gpu-npd owns (problem style: True means a problem), with the reason and message written "
        "while healthy (parsers/kinds.py CONDITIONS); a type is Kubernetes' condition type (`Name`, "
        "`example.com/Name`) and none of the kubelet's (`Ready`, ...: kubeapi/reserved.py)")] = _table(kinds.conditions)
    condition_rules: Annotated[list[dict[str, Any]], doc(
        "findings -> problems (from the kind table, parsers/kinds.py): the first rule whose `match` fits a finding "
        "decides; a finding no rule matches is only counted (and a Node Event: notice_events). match keys: kind, "
        "action, attribution, severity, xid, sxid, state (a value or a list; not_attribution negates). clear: how the problem ends: reset (a GPU "
        "reset or driver reload for that GPU, or a new boot), boot (a new boot only), expire "
        "(warning_expire_seconds without a repeat, or a new boot), link_up (the same port coming back up, or a "
        "new boot)")] = _table(kinds.condition_rules)

    @property
    def kube(self) -> KubeSettings:
        return self.kubernetes

    @property
    def metrics_host_port(self) -> tuple[str, int]:
        host, _, port = self.metrics_address.rpartition(":")
        return host.strip("[]") or "0.0.0.0", int(port)


# ---- what derives from the declaration --------------------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """One configuration key as a reference page shows it."""
    path: str  # "kubernetes.qps"
    env: str  # "GPU_NPD_KUBERNETES__QPS"
    type: str  # "float", "list of strings", "one of text, json", "block" ...
    default: Any  # plain data (as the defaults file says it)
    bounds: str  # "> 0, <= 1e+09" or ""
    doc: str
    block: bool = False  # a block of keys (listed after it)


def _type_name(t: Any) -> str:
    if get_origin(t) is Literal:
        return "one of " + ", ".join(map(str, get_args(t)))
    if is_dataclass(t):
        return "block"
    return {bool: "boolean", int: "integer", float: "number", str: "string", list[str]: "list of strings",
            dict: "mapping", bool | None: "boolean or null"}.get(t, str(t).replace("typing.", ""))


def _bounds(meta: Meta | None) -> str:
    if meta is None:
        return ""
    parts = [f"{op} {getattr(meta, name):g}" for name, op in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="))
             if getattr(meta, name) not in (None, LIMIT, -LIMIT)]  # every number is within +-LIMIT: said once
    if meta.pattern:
        parts.append(f"matching {meta.pattern}")
    return ", ".join(parts)


def _plain(value: Any) -> Any:
    """Plain YAML data: dataclasses as mappings, tuples as lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _default(f) -> Any:
    return _plain(f.default_factory() if f.default is MISSING else f.default)


def keys(cls: type = Config, prefix: str = "") -> list[Key]:
    """Every key in declaration order; a block's keys follow the block."""
    out: list[Key] = []
    types = hints(cls)
    for f in fields(cls):
        hint = types[f.name]
        meta, t = meta_of(hint), bare(hint)
        path = f"{prefix}{f.name}"
        # a key of a block inside a block (`sinks.<name>.<key>`) has no variable of its own: the inner block's
        # variable sets it whole, as YAML (GPU_NPD_SINKS__<NAME>='{enabled: true}')
        env = "" if prefix.count(".") > 1 else \
            ENV_PREFIX + (prefix.rstrip(".").upper() + NESTED_SEP if prefix else "") + f.name.upper()
        out.append(Key(path, env, _type_name(t), _default(f), _bounds(meta), (meta.description or "") if meta else "",
                       is_dataclass(t)))
        if is_dataclass(t):
            out += keys(t, path + ".")
    return out


@functools.lru_cache(maxsize=1)
def _defaults() -> dict[str, Any]:
    return _plain(Config())


def _fresh(value: Any) -> Any:
    """A copy of plain data as `_plain` gives it (mappings, lists, immutable scalars): a quarter of copy.deepcopy's
    time (0.33 against 1.4 ms for the defaults), which every load() paid, and the config fuzzers some 2,000 times."""
    if type(value) is dict:
        return {k: _fresh(v) for k, v in value.items()}
    if type(value) is list:
        return [_fresh(v) for v in value]
    return value


def defaults() -> dict[str, Any]:
    """The defaults as plain data (a fresh copy)."""
    return _fresh(_defaults())


def blocks() -> dict[str, type | None]:
    """Keys whose value is a mapping set key by key (GPU_NPD_<BLOCK>__<KEY>): block -> its declared class, or None
    for an open mapping (its keys are data: Xid codes, entities, check names)."""
    out: dict[str, type | None] = {}
    for name, hint in hints(Config).items():
        t = bare(hint)
        if is_dataclass(t):
            out[name] = t
        elif t is dict or get_origin(t) is dict:
            if name != "conditions":  # a table of conditions, set whole
                out[name] = None
    return out


def _comment(text: str, indent: str) -> list[str]:
    return [f"{indent}# {line}" for line in textwrap.wrap(text, 112 - len(indent))] if text else []


def render_defaults() -> str:
    """The defaults file: every key with its doc and default, as users read it (a valid configuration file)."""
    out = ["# gpu-npd default configuration, printed by `python -m agent.settings` from the declaration "
           "(agent/settings.py).",
           "# Every key can be set in a YAML file (--config), as an environment variable GPU_NPD_<KEY> (upper case; "
           "a key",
           "# inside a block: GPU_NPD_<BLOCK>__<KEY>), or as a flag of `gpu-npd run`; later ones win. Numbers lie "
           f"within +-{LIMIT:g}.", ""]
    for k in keys():
        depth = k.path.count(".")
        indent = "  " * depth
        name = k.path.rsplit(".", 1)[-1]
        out += _comment(k.doc + (f" ({k.bounds})" if k.bounds else ""), indent)
        if k.block:  # its keys follow; a block with none yet (`sinks`, no rows) is an empty mapping
            out.append(f"{indent}{name}:" + ("" if k.default else " {}"))
            continue
        inner = k.default.values() if isinstance(k.default, dict) else k.default if isinstance(k.default, (list, tuple)) \
            else ()
        if any(isinstance(v, dict) for v in inner):  # a table: one row a line
            value = yaml.safe_dump({name: k.default}, default_flow_style=None, sort_keys=False, width=110)
        else:  # a scalar or a list of scalars: on the key's line
            value = f"{name}: " + yaml.safe_dump(k.default, default_flow_style=True, width=1 << 16).strip()
            value = value.removesuffix("\n...").removesuffix("...").rstrip()
        out += [indent + line for line in value.rstrip("\n").splitlines()]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(render_defaults(), end="")
