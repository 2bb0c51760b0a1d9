"""One typed configuration: defaults < YAML file < GPU_NPD_* environment < flags, validated once.

The keys are declared in agent/settings.py (type, default, bounds, doc); this module merges the layers, maps
the environment onto the keys, converts and bounds-checks them (agent/keyspec: `convert`), and adds the checks
that span keys.
Every error is one line that names the key (or the variable or file it came from)."""

from __future__ import annotations

import os
import re
import socket
from dataclasses import is_dataclass, replace
from typing import Any, Callable, Mapping, get_args, get_origin

import yaml

from kubeapi.reserved import reserved_condition
from parsers.kinds import CLEAR_MODES
from parsers.telemetry import with_condition
from parsers.wordscan import LazyPattern

from .gpu.nvml import nvml_spec_problem
from .keyspec import NOTHING, Invalid, convert
from .keyspec import schema as keyspec_schema
from .kube.settings import check as check_kube
from .policy import validate as validate_policy
from .samples import validate_rules
from .settings import ENV_PREFIX, NESTED_SEP, Config, bare, blocks, defaults, hints

__all__ = ["Config", "ConfigError", "ENV_PREFIX", "NESTED", "defaults", "load", "loaded"]

KNOWN = hints(Config)  # key -> its declared (Annotated) type
BLOCKS = blocks()  # block -> its declared class (None: an open mapping)
NESTED = tuple(BLOCKS)  # blocks set key by key: GPU_NPD_<BLOCK>__<KEY>
# GPU_NPD_* variables that are not configuration keys (read elsewhere); any other unknown one is an error.
NOT_CONFIG = ("GPU_NPD_CONFIG", "GPU_NPD_MATCHER", "GPU_NPD_BIN", "GPU_NPD_TEST_REAL_KMSG")
# Kubernetes' service-link variables: a Service named gpu-npd (or gpu-npd-<anything>) in the pod's namespace puts
# GPU_NPD_SERVICE_HOST=10.96.12.34, GPU_NPD_SERVICE_PORT[_<NAME>]=9810, GPU_NPD_PORT=tcp://10.96.12.34:9810 and
# GPU_NPD_PORT_9810_TCP[_PROTO|_PORT|_ADDR] into every pod (unless enableServiceLinks: false). Such a variable
# that is not a configuration key is no configuration and is dropped before validation: a scraping Service must
# never crash-loop the agents.
_SERVICE_LINK = LazyPattern(
    r"^GPU_NPD(?:_[A-Z0-9_]+)?_(?:SERVICE_HOST|SERVICE_PORT(?:_[A-Z0-9_]+)?|PORT_[0-9]+_(?:TCP|UDP|SCTP)"
    r"(?:_PROTO|_PORT|_ADDR)?)$|^GPU_NPD(?:_[A-Z0-9_]+)?_PORT$")
_SERVICE_URL = re.compile(r"^(?:tcp|udp|sctp)://\S+:[0-9]+$")
LOG_LEVELS = ("debug", "info", "warning", "error")
MATCH_KEYS = ("kind", "action", "attribution", "not_attribution", "severity", "xid", "sxid", "state")


class ConfigError(ValueError):
    """A bad configuration value; the message names the key."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


# ---- text (environment, flags) to the declared type: what keyspec.convert does not read from a string itself --

_WORDS = {**dict.fromkeys(("1", "true", "yes", "on"), True), **dict.fromkeys(("0", "false", "no", "off"), False)}
_NONE = ("", "null", "none", "auto")


def _words(value: Any, optional: bool) -> Any:
    if not isinstance(value, str):
        return value
    low = value.strip().lower()
    return None if optional and low in _NONE else _WORDS.get(low, value)


# declared type -> how a value written as text (or a number where a string is declared) becomes it, and the JSON
# types that reading takes besides those keyspec's schema gives the type (json_schema())
_FROM_TEXT: dict[Any, tuple[Callable[[Any], Any], tuple[str, ...]]] = {
    bool: (lambda v: _words(v, False), ()),
    bool | None: (lambda v: _words(v, True), ()),
    list[str]: (lambda v: [x for x in v.split(",") if x] if isinstance(v, str) else v, ("string",)),
    str: (lambda v: str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v, ("number",)),
}


def _from_text(kind: Any, value: Any) -> Any:
    row = _FROM_TEXT.get(kind)
    return row[0](value) if row is not None else value


def json_schema() -> dict[str, Any]:
    """The configuration file's JSON Schema (draft 7), from the declaration: every key, its type and bounds; a key
    no block declares refused. What `load` accepts passes (the top level's readings of text included); what it
    refuses for its key or its type does not, but for a number written as text beyond its bounds and the checks
    across keys, which `load` makes."""
    out = keyspec_schema(Config)
    for key, kind in KNOWN.items():
        row = _FROM_TEXT.get(bare(kind))
        if row is not None:
            out["properties"][key]["type"] = [*out["properties"][key]["type"], *row[1]]
    return out


def values_schema() -> dict[str, Any]:
    """The Helm chart's values.schema.json (deploy/helm/gpu-npd; `python -m agent.config` prints it): `config` and
    each `nodePools[].config` as json_schema() says, so that `helm install`, `upgrade`, `template` and `lint` refuse
    a misspelt or ill-typed key before any agent reads it. The rest of the values the chart's templates check."""
    return {"$schema": "http://json-schema.org/draft-07/schema#",
            "$comment": "Generated by `python -m agent.config` from agent/settings.py (tests/deploy/test_helm.py keeps "
                        "them equal); do not edit.",
            "type": "object",
            "properties": {"config": {"$ref": "#/definitions/config"},
                           "nodePools": {"type": "array", "items": {"type": "object", "properties": {
                               "config": {"$ref": "#/definitions/config"}}}}},
            "definitions": {"config": json_schema()}}


# ---- keyspec's verdict as one line naming the key --------------------------------------------------------------


def _explain(exc: Invalid) -> ConfigError:
    if exc.got is NOTHING:
        return ConfigError(f"{exc.path or 'configuration'}: {exc.what}")
    shown = repr(exc.got) if len(repr(exc.got)) <= 80 else repr(exc.got)[:77] + "..."
    return ConfigError(f"{exc.path or 'configuration'}: {exc.what}, got {shown}")


def _unknown(value: Any, kind: Any, path: str) -> None:
    """Keys a declared block does not have are errors (before any value is converted)."""
    kind = bare(kind)
    if is_dataclass(kind) and isinstance(value, dict):
        known = hints(kind)
        for key, sub in value.items():
            if key not in known:
                raise ConfigError(f"{path}.{key}: unknown key (known: {', '.join(known)})")
            _unknown(sub, known[key], f"{path}.{key}")
    elif get_origin(kind) in (list, tuple) and isinstance(value, (list, tuple)):
        item = get_args(kind)[0]
        for i, sub in enumerate(value):
            _unknown(sub, item, f"{path}[{i}]")


# ---- checks that span keys, or that a type cannot say -----------------------------------------------------------


def _metrics_address(cfg: Config) -> str | None:
    try:
        if 0 <= cfg.metrics_host_port[1] <= 65535:
            return None
    except ValueError:
        pass
    return f"metrics_address: expected HOST:PORT, got {cfg.metrics_address!r}"


def _nvml(cfg: Config) -> str | None:
    problem = nvml_spec_problem(cfg.nvml)
    return f"nvml: {problem}" if problem else None


def _log_level(cfg: Config) -> str | None:
    if cfg.log_level.lower() in LOG_LEVELS:
        return None
    return f"log_level: expected debug, info, warning or error, got {cfg.log_level!r}"


def _kubernetes(cfg: Config) -> str | None:
    from .checks.settings import enabled_builtin_conditions  # noqa: PLC0415

    # a taint rule may name an enabled built-in check's condition on a node without its tool (dcgmi): one
    # configuration for a fleet, refused nowhere or everywhere
    try:
        check_kube(cfg.kubernetes, {**dict.fromkeys(enabled_builtin_conditions(cfg.checks)), **cfg.conditions})
    except ValueError as exc:
        return str(exc)
    return None


def _conditions(cfg: Config) -> str | None:
    for name, spec in cfg.conditions.items():
        if (why := reserved_condition(name)) is not None:
            return f"conditions.{name}: {why}"
        if not {"ok_reason", "ok_message"} <= set(spec):
            return f"conditions.{name}: needs ok_reason and ok_message"
    return None


def _condition_rules(cfg: Config) -> str | None:
    for i, rule in enumerate(cfg.condition_rules):
        where = f"condition_rules[{i}]"
        if not isinstance(rule.get("match"), dict):
            return f"{where}: needs a match mapping"
        unknown = set(rule["match"]) - set(MATCH_KEYS)
        if unknown:
            return f"{where}.match: unknown key {sorted(unknown, key=str)[0]!r} (known: {', '.join(MATCH_KEYS)})"
        if rule.get("condition") not in cfg.conditions:
            return f"{where}.condition: {rule.get('condition')!r} is not one of conditions"
        if rule.get("clear", "expire") not in CLEAR_MODES:
            return f"{where}.clear: expected one of {', '.join(CLEAR_MODES)}, got {rule.get('clear')!r}"
    return None


# key -> its check: a one-line problem naming the key (or a key inside it), or None
CHECKS: dict[str, Callable[[Config], str | None]] = {
    "metrics_address": _metrics_address, "nvml": _nvml, "log_level": _log_level, "kubernetes": _kubernetes,
    "sample_rules": lambda cfg: validate_rules(cfg.sample_rules, cfg.conditions),
    "xid_policy": lambda cfg: validate_policy(cfg.xid_policy, cfg.xid_reboot_escalation),
    "conditions": _conditions, "condition_rules": _condition_rules,
}


def _validate(cfg: Config) -> None:
    for key, check in CHECKS.items():
        try:
            problem = check(cfg)
        except UNEXPECTED as exc:  # a value of a shape its check never expected names the key
            problem = f"{key}: not a usable value ({_one_line(f'{type(exc).__name__}: {exc}')[:120]})"
        if problem:
            raise ConfigError(problem)


def _with_check_conditions(cfg: Config) -> dict[str, dict[str, str]]:
    """The conditions that enabled checks raise join the configured ones (a configured one wins)."""
    from .checks.npd import ConfigError as PluginConfigError  # noqa: PLC0415
    from .checks.settings import conditions, plugin_configs  # noqa: PLC0415

    try:
        found = conditions(plugin_configs(cfg.checks, cfg.sysfs_root, cfg.nvml, cfg.proc_root))
    except PluginConfigError as exc:
        text = str(exc)  # it names a key inside the block (checks.builtin.<name>...), or gets the block's name
        raise ConfigError(text if text.startswith("checks.") else f"checks: {text}") from None
    except UNEXPECTED as exc:  # a value of a shape the checks' settings never expected
        raise ConfigError(f"checks: not a usable value ({_one_line(f'{type(exc).__name__}: {exc}')[:120]})") from None
    return {**found, **cfg.conditions}


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
            raise ConfigError(f"{var}: unknown configuration variable (keys: GPU_NPD_<KEY> for the keys "
                              f"python -m agent.settings prints, GPU_NPD_<BLOCK>__<KEY> inside {', '.join(NESTED)})")
        if not sub:
            origin[key] = var
            merged[key] = value
            continue
        if key not in NESTED:
            raise ConfigError(f"{var}: {key} has no nested keys")
        block = merged.get(key)
        if not isinstance(block, dict):  # the block set whole to no mapping (the file's null or scalar, its own
            continue  # variable's text): refused as such by _convert, named by where it came from, not by this one
        origin[f"{key}.{sub}"] = var
        if BLOCKS[key] is not None and sub not in block:  # a declared block: its keys are known
            raise ConfigError(f"{var}: unknown key {key}.{sub} (known: {', '.join(block)})")
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
    return loaded(file, env, flags)[0]


def loaded(file: str | None = None, env: Mapping[str, str] | None = None, flags: Mapping[str, Any] | None = None,
           options: Mapping[str, str] | None = None) -> tuple[Config, list[str]]:
    """`load`, with the file's keys that a GPU_NPD_* variable or an option of the command replaces, one line each
    (`_replaced`), from the same reading of the file and the environment: said at start by `gpu-npd run` (a warning)
    and `gpu-npd config check`."""
    try:
        return _load(file, env, flags, options)
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
            tries.append((f"config file {file}: {key}", lambda k=key, v=block: _load(None, {}, {k: v})))
    for name, attempt in tries:
        try:
            attempt()
        except ConfigError:
            continue
        except UNEXPECTED:
            return name
    return f"config file {file}" if file else "configuration"


def _replaced(file: str | None, data: Mapping[str, Any], by_var: Mapping[str, str], flags: Mapping[str, Any],
              options: Mapping[str, str]) -> list[str]:
    """The file's keys (`data`) that a variable (`by_var`: which set each key path) or an option of the command
    (`flags`) replaces, one line each: a ConfigMap's `mode: enforce` under the DaemonSet's GPU_NPD_MODE=observe runs
    observe, and nothing said so.  `options`: the variables that an option of the command set
    (GPU_NPD_KUBERNETES__KUBECONFIG from --kubeconfig), named by that option."""
    lines = []
    for key, value in data.items():
        if flags.get(key) is not None:
            lines.append(f"config file {file}: {key} replaced by an option of the command line")
        elif key in by_var:
            lines.append(f"config file {file}: {key} replaced by {options.get(by_var[key], by_var[key])}")
        elif key in NESTED and isinstance(value, dict):
            subs = [options.get(by_var[path], by_var[path]) for path in (f"{key}.{sub}" for sub in value)
                    if path in by_var]
            if subs:
                lines.append(f"config file {file}: keys of {key} replaced by {', '.join(subs)}")
    return lines


def _read_file(file: str) -> dict[str, Any]:
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
    return data


def _overlay(merged: dict[str, Any], data: Mapping[str, Any], blocks: tuple[str, ...] = (),
             source: str = "") -> None:
    """Keys set by a file or flags replace the value below; a block in `blocks` changes the keys it names.
    An unknown key's error names `source` (the file) before it."""
    for key, value in data.items():
        if key not in KNOWN:
            raise ConfigError(f"{source + ': ' if source else ''}{key}: unknown configuration key")
        if key in blocks and isinstance(value, dict) and isinstance(merged.get(key), dict):
            value = {**merged[key], **value}
        merged[key] = value


def _convert(merged: dict[str, Any], env: Mapping[str, str]) -> Config:
    """The merged layers as the declared Config, checked (raises ConfigError naming the key)."""
    for key, kind in KNOWN.items():
        merged[key] = _from_text(bare(kind), merged.get(key))
        _unknown(merged[key], kind, key)
    try:
        cfg = convert(merged, Config)
    except Invalid as exc:
        raise _explain(exc) from None
    node = cfg.node_name or env.get("NODE_NAME") or socket.gethostname()
    rules = [with_condition(r) for r in cfg.sample_rules] if isinstance(cfg.sample_rules, list) else cfg.sample_rules
    cfg = replace(cfg, node_name=node, conditions=_with_check_conditions(cfg), sample_rules=rules)
    _validate(cfg)
    return cfg


def _file_and_env(file: str | None, env: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """The file's keys, the defaults with the file and the variables over them, and which variable set each key
    path (`_apply_env`'s record: what `load` names a bad value by and `_replaced` says a file's key was replaced by)."""
    data = _read_file(file) if file else {}
    merged = defaults()
    _overlay(merged, data, NESTED, f"config file {file}")
    return data, merged, _apply_env(merged, env, KNOWN)


def _load(file: str | None, env: Mapping[str, str] | None, flags: Mapping[str, Any] | None,
          options: Mapping[str, str] | None = None) -> tuple[Config, list[str]]:
    env = env if env is not None else os.environ
    data, merged, by_var = _file_and_env(file, env)
    said = _replaced(file, data, by_var, flags or {}, options or {})
    # key path -> where its value came from: the file or a variable
    origin = {**dict.fromkeys(map(str, data), f"config file {file}"), **by_var}
    given = {key: value for key, value in (flags or {}).items() if value is not None}
    _overlay(merged, given)
    for path in [p for p in origin if p.partition(".")[0] in given]:  # a flag replaces the key whole
        del origin[path]
    try:
        return _convert(merged, env), said
    except ConfigError as exc:  # name where the bad value came from: the file or the variable, at any depth
        raise ConfigError(_from_where(str(exc), origin)) from None


def _from_where(message: str, origin: Mapping[str, str]) -> str:
    """`message` (it begins with the key path) preceded by where that key's value came from: the source of the
    nearest key at or above it, and any that set keys inside it (a block's check names only the block)."""
    path = re.sub(r"\[[^\]]*\]", "", message.split(": ", 1)[0])  # list indices: sources set mappings' keys only
    parts = path.split(".")
    above = next((origin[p] for p in (".".join(parts[:n]) for n in range(len(parts), 0, -1)) if p in origin), None)
    sources = dict.fromkeys([above] if above else [])
    sources.update(dict.fromkeys(src for p, src in origin.items() if p.startswith(path + ".")))
    return f"{', '.join(sources)}: {message}" if sources else message


if __name__ == "__main__":
    import json

    print(json.dumps(values_schema(), indent=1))
