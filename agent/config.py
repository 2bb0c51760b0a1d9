"""One typed configuration: defaults < YAML file < GPU_NPD_* environment < flags, validated once."""

from __future__ import annotations

import copy
import functools
import math
import os
import re
import socket
from dataclasses import dataclass, field, fields
from importlib import resources
from typing import Any, Mapping

import yaml

from .gpu.nvml import nvml_spec_problem
from .hangsettings import SettingsError as HangSettingsError
from .hangsettings import peer_settings
from .hangsettings import settings as hang_settings
from .kube.settings import MODES
from .kube.settings import parse as kube_settings
from .policy import validate as validate_policy
from .samples import validate_rules

NESTED = ("kubernetes", "sample_ignore", "xid_policy", "checks", "workload_hang", "peer_outliers")
ENV_PREFIX = "GPU_NPD_"
NESTED_SEP = "__"  # GPU_NPD_KUBERNETES__HEARTBEAT_SECONDS=60 sets kubernetes.heartbeat_seconds
# GPU_NPD_* variables that are not configuration keys (read elsewhere); any other unknown one is an error.
NOT_CONFIG = ("GPU_NPD_CONFIG", "GPU_NPD_MATCHER", "GPU_NPD_BIN", "GPU_NPD_TEST_REAL_KMSG")
# Kubernetes' service-link variables: a Service named gpu-npd (or gpu-npd-<anything>) in the pod's namespace puts
# GPU_NPD_SERVICE_HOST=10.96.12.34, GPU_NPD_SERVICE_PORT[_<NAME>]=9810, GPU_NPD_PORT=tcp://10.96.12.34:9810 and
# GPU_NPD_PORT_9810_TCP[_PROTO|_PORT|_ADDR] into every pod (unless enableServiceLinks: false). Such a variable
# that is not a configuration key is no configuration and is dropped before validation: a scraping Service must
# never crash-loop the agents.
_SERVICE_LINK = re.compile(
    r"^GPU_NPD(?:_[A-Z0-9_]+)?_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9_]+)?|PORT_[0-9]+_(?:TCP|UDP|SCTP)"
    r"(?:_PROTO|_PORT|_ADDR)?)$|^GPU_NPD(?:_[A-Z0-9_]+)?_PORT$")
_SERVICE_URL = re.compile(r"^(?:tcp|udp|sctp)://\S+:[0-9]+$")
CLEAR_MODES = ("reset", "boot", "expire", "link_up")
LOG_FORMATS = ("text", "json")
MATCH_KEYS = ("kind", "action", "attribution", "not_attribution", "severity", "xid", "sxid", "state")


class ConfigError(ValueError):
    """A bad configuration value; the message names the key."""


@dataclass(frozen=True)
class Config:
    kmsg: str
    log_files: list[str]
    fallback_log_files: list[str]
    journald: bool | None
    fabricmanager_log: str
    state_dir: str
    metrics_address: str
    node_name: str
    log_level: str
    log_format: str
    tick_seconds: float
    warning_expire_seconds: float
    app_xid_window_seconds: float
    app_xid_distinct_processes: int
    max_problems: int
    max_series_per_family: int
    intake_lag_seconds: float
    queue_max_mb: float
    source_gone_grace_seconds: float
    nvml: str
    poll_seconds: float
    nvml_deadline_seconds: float
    expected_gpus: int
    expected_nics: int
    boot_grace_seconds: float
    sysfs_root: str
    proc_root: str
    pod_logs_root: str
    workload_include_namespaces: list[str]
    workload_exclude_namespaces: list[str]
    workload_include_pods: list[str]
    workload_exclude_pods: list[str]
    workload_max_open_files: int
    workload_allowed_log_roots: list[str]
    workload_correlation_seconds: float
    workload_pod_label: bool
    workload_hang: dict[str, Any]
    peer_outliers: dict[str, Any]
    udev: bool
    sample_ignore: dict[str, list[str]]
    mode: str
    kubernetes: dict[str, Any]
    xid_policy: dict[str, Any]
    xid_reboot_escalation: int
    unused_port_boot_seconds: float
    ib_counter_selfcheck_seconds: float
    ib_counter_selfcheck_repeats: int
    checks: dict[str, Any]
    conditions: dict[str, dict[str, str]]
    condition_rules: list[dict[str, Any]] = field(default_factory=list)
    sample_rules: list[dict[str, Any]] = field(default_factory=list)

    @property
    def kube(self):
        return kube_settings(self.kubernetes, self.conditions)

    @property
    def metrics_host_port(self) -> tuple[str, int]:
        host, _, port = self.metrics_address.rpartition(":")
        return host.strip("[]") or "0.0.0.0", int(port)


MAX_NUMBER = 1e9  # no key means anything past this (31 years of seconds, a petabyte in MB): a typo or an attack


@functools.lru_cache(maxsize=1)
def _defaults() -> dict[str, Any]:
    text = resources.files("agent").joinpath("defaults.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)


def defaults() -> dict[str, Any]:
    return copy.deepcopy(_defaults())


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _coerce(key: str, value: Any, kind: Any) -> Any:
    """Coerce strings (from the environment or flags) and check types, naming the key on error."""
    name = "a finite number" if kind is float else getattr(kind, "__name__", str(kind))
    try:
        if kind is bool or kind == (bool | None):
            if isinstance(value, str):
                low = value.strip().lower()
                if low in ("", "null", "none", "auto") and kind != bool:
                    return None
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ValueError(value)
            if value is None and kind != bool:
                return None
            if isinstance(value, bool):
                return value
            raise ValueError(value)
        if kind is int:
            if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            number = int(value)
            if abs(number) > MAX_NUMBER:
                raise ValueError(value)
            return number
        if kind is float:
            if isinstance(value, bool) or not math.isfinite(float(value)) or abs(float(value)) > MAX_NUMBER:
                raise ValueError(value)
            return float(value)
        if kind is str:
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                raise ValueError(value)
            return str(value)
        if kind == list[str]:
            if isinstance(value, str):
                return [v for v in value.split(",") if v]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(value)
            return list(value)
        if kind in (dict[str, dict[str, str]],):
            if not isinstance(value, dict):
                raise ValueError(value)
            return value
        if kind == dict[str, list[str]]:
            if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
                raise ValueError(value)
            return {k: [str(x) for x in v] for k, v in value.items()}
        if kind == dict[str, Any]:
            if not isinstance(value, dict):
                raise ValueError(value)
            return value
        if kind == list[dict[str, Any]]:
            if not isinstance(value, list):
                raise ValueError(value)
            return value
    except (TypeError, ValueError, OverflowError):
        if kind in (int, float):
            name += f" within +-{MAX_NUMBER:.0e}"
        shown = repr(value) if len(repr(value)) <= 80 else repr(value)[:77] + "..."
        raise ConfigError(f"{key}: expected {name.replace('list[str]', 'a list of strings')}, got {shown}") from None
    return value


def _validate(cfg: Config) -> None:
    def positive(key: str) -> None:
        if getattr(cfg, key) <= 0:
            raise ConfigError(f"{key}: must be greater than 0, got {getattr(cfg, key)!r}")

    for key in ("workload_max_open_files", "workload_correlation_seconds", "poll_seconds", "nvml_deadline_seconds", "tick_seconds", "warning_expire_seconds", "app_xid_window_seconds", "app_xid_distinct_processes",
                "max_problems", "max_series_per_family", "intake_lag_seconds", "queue_max_mb"):
        positive(key)
    try:
        host, port = cfg.metrics_host_port
        if not 0 <= port <= 65535:
            raise ValueError
    except ValueError:
        raise ConfigError(f"metrics_address: expected HOST:PORT, got {cfg.metrics_address!r}") from None
    if cfg.source_gone_grace_seconds < 0:
        raise ConfigError(f"source_gone_grace_seconds: must be 0 (at once) or more, got {cfg.source_gone_grace_seconds!r}")
    if cfg.unused_port_boot_seconds < 0:
        raise ConfigError(f"unused_port_boot_seconds: must be 0 (off) or more, got {cfg.unused_port_boot_seconds!r}")
    if cfg.ib_counter_selfcheck_seconds < 0:
        raise ConfigError(f"ib_counter_selfcheck_seconds: must be 0 (off) or more, got {cfg.ib_counter_selfcheck_seconds!r}")
    if cfg.ib_counter_selfcheck_repeats < 1:
        raise ConfigError(f"ib_counter_selfcheck_repeats: must be 1 or more, got {cfg.ib_counter_selfcheck_repeats!r}")
    if cfg.expected_nics < 0:
        raise ConfigError(f"expected_nics: must be 0 (auto) or more, got {cfg.expected_nics!r}")
    if cfg.boot_grace_seconds < 0:
        raise ConfigError(f"boot_grace_seconds: must be 0 (off) or more, got {cfg.boot_grace_seconds!r}")
    if cfg.expected_gpus < 0:
        raise ConfigError(f"expected_gpus: must be 0 (auto) or more, got {cfg.expected_gpus!r}")
    problem = nvml_spec_problem(cfg.nvml)
    if problem:
        raise ConfigError(f"nvml: {problem}")
    if cfg.log_format not in LOG_FORMATS:
        raise ConfigError(f"log_format: expected one of {', '.join(LOG_FORMATS)}, got {cfg.log_format!r}")
    if cfg.mode not in MODES:
        raise ConfigError(f"mode: expected one of {', '.join(MODES)}, got {cfg.mode!r}")
    def guarded(key: str, check, *args):
        """A block's own validator; whatever else it raises on a shape it never expected names the block."""
        try:
            return check(*args)
        except ConfigError:
            raise
        except UNEXPECTED as exc:
            if key == "kubernetes" and type(exc) is ValueError:
                raise ConfigError(str(exc)) from None  # kube settings say which key themselves
            raise ConfigError(f"{key}: not a usable value ({_one_line(f'{type(exc).__name__}: {exc}')[:120]})") from None

    guarded("kubernetes", kube_settings, cfg.kubernetes, cfg.conditions)
    try:
        hang_settings(cfg.workload_hang)
        peer_settings(cfg.peer_outliers)
    except HangSettingsError as exc:
        raise ConfigError(str(exc)) from None
    problem = (guarded("sample_rules", validate_rules, cfg.sample_rules, cfg.conditions)
               or guarded("xid_policy", validate_policy, cfg.xid_policy, cfg.xid_reboot_escalation))
    if problem:
        raise ConfigError(problem)
    if cfg.log_level.lower() not in ("debug", "info", "warning", "error"):
        raise ConfigError(f"log_level: expected debug, info, warning or error, got {cfg.log_level!r}")
    for name, spec in cfg.conditions.items():
        if not isinstance(spec, dict) or not {"ok_reason", "ok_message"} <= set(spec):
            raise ConfigError(f"conditions.{name}: needs ok_reason and ok_message")
    for i, rule in enumerate(cfg.condition_rules):
        where = f"condition_rules[{i}]"
        if not isinstance(rule, dict) or not isinstance(rule.get("match"), dict):
            raise ConfigError(f"{where}: needs a match mapping")
        unknown = set(rule["match"]) - set(MATCH_KEYS)
        if unknown:
            raise ConfigError(f"{where}.match: unknown key {sorted(unknown)[0]!r} (known: {', '.join(MATCH_KEYS)})")
        if rule.get("condition") not in cfg.conditions:
            raise ConfigError(f"{where}.condition: {rule.get('condition')!r} is not one of conditions")
        if rule.get("clear", "expire") not in CLEAR_MODES:
            raise ConfigError(f"{where}.clear: expected one of {', '.join(CLEAR_MODES)}, got {rule.get('clear')!r}")


def _with_check_conditions(values: dict[str, Any]) -> dict[str, dict[str, str]]:
    """The conditions that enabled checks raise join the configured ones (a configured one wins)."""
    from .checks.npd import ConfigError as PluginConfigError  # noqa: PLC0415
    from .checks.settings import conditions, plugin_configs  # noqa: PLC0415

    try:
        found = conditions(plugin_configs(values["checks"], values["sysfs_root"], values["nvml"]))
    except PluginConfigError as exc:
        raise ConfigError(f"checks: {exc}") from None
    except UNEXPECTED as exc:  # a value of a shape the checks' settings never expected
        raise ConfigError(f"checks: not a usable value ({_one_line(f'{type(exc).__name__}: {exc}')[:120]})") from None
    return {**found, **values["conditions"]}


def is_service_link(var: str, value: str, known: Mapping[str, Any]) -> bool:
    """A variable Kubernetes derives from a Service's name (not a configuration key of ours)."""
    if var[len(ENV_PREFIX):].lower().partition(NESTED_SEP)[0] in known or not _SERVICE_LINK.match(var):
        return False
    if var.endswith("_PORT") and not var.endswith(("_SERVICE_PORT", "_TCP_PORT", "_UDP_PORT", "_SCTP_PORT")):
        return bool(_SERVICE_URL.match(value))  # GPU_NPD_PORT=tcp://10.96.12.34:9810
    return True


def _apply_env(merged: dict[str, Any], env: Mapping[str, str], known: Mapping[str, Any]) -> dict[str, str]:
    """GPU_NPD_<KEY> sets a key, GPU_NPD_<BLOCK>__<KEY> a key inside a block (its value read as YAML, so
    numbers, booleans and lists work); an unknown variable is an error naming it, not silently ignored.
    Returns key path -> variable, so a bad value's error names the variable it came from."""
    origin: dict[str, str] = {}
    for var, value in sorted(env.items()):
        if not var.startswith(ENV_PREFIX) or var in NOT_CONFIG or is_service_link(var, value, known):
            continue
        key, _, sub = var[len(ENV_PREFIX):].lower().partition(NESTED_SEP)
        if key not in known:
            raise ConfigError(f"{var}: unknown configuration variable (keys: GPU_NPD_<KEY> for the keys in "
                              f"defaults.yaml, GPU_NPD_<BLOCK>__<KEY> inside kubernetes / sample_ignore)")
        origin[f"{key}.{sub}" if sub else key] = var
        if not sub:
            merged[key] = value
            continue
        block = merged.get(key)
        if key not in NESTED or not isinstance(block, dict):
            raise ConfigError(f"{var}: {key} has no nested keys")
        if key == "kubernetes" and sub not in block:
            raise ConfigError(f"{var}: unknown key kubernetes.{sub} (known: {', '.join(block)})")
        try:
            block = {**block, sub: yaml.safe_load(value) if value.strip() else ""}
        except (yaml.YAMLError, RecursionError):
            raise ConfigError(f"{var}: not a valid value: {value[:80]!r}") from None
        merged[key] = block
    return origin


# what a validator may raise on a value of a shape it never expected: turned into a ConfigError naming the key
UNEXPECTED = (TypeError, ValueError, AttributeError, KeyError, IndexError, OverflowError, RecursionError)


def load(file: str | None = None, env: Mapping[str, str] | None = None,
         flags: Mapping[str, Any] | None = None) -> Config:
    """Build the configuration; raises ConfigError, one line naming the key (or the variable or file it came
    from), on any bad value: never another exception."""
    try:
        return _load(file, env, flags)
    except ConfigError as exc:
        raise ConfigError(_one_line(exc)) from None
    except UNEXPECTED as exc:
        what = _one_line(f"{type(exc).__name__}: {exc}")[:120]
        raise ConfigError(f"{_culprit(file, env, flags)}: not a usable value ({what})") from None


def _culprit(file: str | None, env: Mapping[str, str] | None, flags: Mapping[str, Any] | None) -> str:
    """Which one key, variable or file key makes loading raise: each is tried alone on the defaults."""
    tries: list[tuple[str, Any]] = []
    for key, value in (flags or {}).items():
        tries.append((key, lambda k=key, v=value: _load(None, {}, {k: v})))
    for var, value in (env if env is not None else os.environ).items():
        if var.startswith(ENV_PREFIX):
            tries.append((var, lambda k=var, v=value: _load(None, {k: v}, None)))
    if file:
        try:
            with open(file, encoding="utf-8") as fh:
                data = yaml.safe_load(fh)
        except Exception:  # noqa: BLE001 - loaded once already; whatever fails now names the file
            return f"config file {file}"
        base = defaults()
        for key, value in (data.items() if isinstance(data, dict) else ()):
            block = {**base[key], **value} if isinstance(value, dict) and isinstance(base.get(key), dict) else value
            tries.append((str(key), lambda k=key, v=block: _load(None, {}, {k: v})))
    for name, attempt in tries:
        try:
            attempt()
        except ConfigError:
            continue
        except UNEXPECTED:
            return name
    return f"config file {file}" if file else "configuration"


def _load(file: str | None, env: Mapping[str, str] | None, flags: Mapping[str, Any] | None) -> Config:
    merged = defaults()
    known = {f.name: f.type for f in fields(Config)}
    if file:
        try:
            with open(file, encoding="utf-8") as fh:
                data = yaml.safe_load(fh) or {}
        except OSError as exc:
            raise ConfigError(f"config file {file}: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"config file {file}: not valid YAML ({exc})") from None
        except RecursionError:
            raise ConfigError(f"config file {file}: nested too deeply") from None
        except UnicodeDecodeError as exc:
            raise ConfigError(f"config file {file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"config file {file}: expected a mapping of keys")
        for key in data:
            if key not in known:
                raise ConfigError(f"{key}: unknown configuration key")
        for key in NESTED:  # a block in the file changes the keys it names, not the whole block
            if isinstance(data.get(key), dict) and isinstance(merged.get(key), dict):
                data[key] = {**merged[key], **data[key]}
        merged.update(data)
    origin = _apply_env(merged, env if env is not None else os.environ, known)
    for key, value in (flags or {}).items():
        if value is not None:
            if key not in known:
                raise ConfigError(f"{key}: unknown configuration key")
            merged[key] = value
    types = {f.name: eval(f.type, {"Any": Any}) if isinstance(f.type, str) else f.type for f in fields(Config)}
    try:
        values = {key: _coerce(key, merged.get(key), types[key]) for key in known}
        if not values["node_name"]:
            values["node_name"] = (env if env is not None else os.environ).get("NODE_NAME") or socket.gethostname()
        values["conditions"] = _with_check_conditions(values)
        cfg = Config(**values)
        _validate(cfg)
    except ConfigError as exc:  # name the environment variable when the bad value came from one
        key = str(exc).split(":", 1)[0].split("[", 1)[0].split(" ", 1)[0]
        if key in origin:
            raise ConfigError(f"{origin[key]}: {exc}") from None
        raise
    return cfg
