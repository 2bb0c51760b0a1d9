"""The `checks` config block -> plugin configs to run, and the conditions they may raise.

The built-in checks become NPD plugin configs like any other: one permanent rule each, whose program is
`python -m agent.checks.builtin <check>` with the expected values as arguments.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from kubeapi.reserved import reserved_condition

from .builtin import BY_NAME, GPU_LOAD, INPUTS, TABLE
from .npd import ConfigError, PluginConfig, load_config, parse_config

BUILTIN_KEYS = ("enabled", "interval", "timeout", "condition")
# built-in check -> its argument keys (config key -> flag); a key set to False/None leaves the flag out
BUILTIN_ARGS: dict[str, tuple[str, ...]] = {c.name: tuple(a.key for a in c.args) for c in TABLE}


def builtin_config(name: str, spec: dict[str, Any], sysfs_root: str = "/", nvml: str = "auto",
                   proc_root: str = "/") -> PluginConfig:
    unknown = set(spec) - set(BUILTIN_KEYS) - set(BUILTIN_ARGS[name])
    if unknown:
        raise ConfigError(f"checks.builtin.{name}: unknown key {sorted(unknown)[0]!r}")
    row = BY_NAME[name]  # its schedule where the block names none (a file's `checks.builtin` replaces the defaults')
    spec = {"interval": row.interval, "timeout": row.timeout, **spec}
    args = ["-m", "agent.checks.builtin", name]
    for key in BUILTIN_ARGS[name]:
        value = spec.get(key)
        if value is True:
            args.append("--" + key.replace("_", "-"))
        elif value is not None and value is not False:
            args += ["--" + key.replace("_", "-"), str(value)]
    for given in row.inputs:
        args += ["--" + given.replace("_", "-"), INPUTS[given].value(spec, sysfs_root, nvml, proc_root)]
    condition, reason = spec.get("condition") or row.condition, row.reason
    raw = {"plugin": "custom", "source": f"builtin-{name}",
           "pluginConfig": {"invoke_interval": spec["interval"], "timeout": spec["timeout"],
                            "max_output_length": 400, "concurrency": 1},
           "conditions": [{"type": condition, "reason": f"{condition}Passed", "message": f"the {name} check passes"}],
           "rules": [{"type": "permanent", "condition": condition, "reason": reason, "path": sys.executable,
                      "args": args}],
           "gpuLoad": name in GPU_LOAD}
    return parse_config(raw, Path("/"), f"checks.builtin.{name}")


def enabled_builtin_conditions(checks: dict[str, Any]) -> list[str]:
    """The conditions of the built-in checks the block enables, their tool present or not: what a taint rule may
    name on every node of a fleet alike (plugin_configs leaves out a check whose tool this node lacks)."""
    builtin = checks.get("builtin") if checks.get("enabled") else None
    return [spec.get("condition") or BY_NAME[name].condition for name, spec in (builtin or {}).items()
            if name in BY_NAME and isinstance(spec, dict) and spec.get("enabled")]


def plugin_configs(checks: dict[str, Any], sysfs_root: str = "/", nvml: str = "auto",
                   proc_root: str = "/") -> list[PluginConfig]:
    """Every plugin config the block enables (built-ins only where their tool is present)."""
    builtin = checks.get("builtin") or {}
    # every one's condition, enabled or not, its tool present or not (as the chart's render does): a configuration is
    # refused on every node alike, not only where the check would run
    for name, spec in builtin.items() if isinstance(builtin, dict) else ():
        if isinstance(spec, dict) and spec.get("condition") is not None and \
                (why := reserved_condition(spec["condition"])) is not None:
            raise ConfigError(f"checks.builtin.{name}.condition: {why}")
    if not checks.get("enabled"):
        return []
    out = []
    base = Path(checks.get("plugin_base_dir") or "/")
    for path in checks.get("plugin_configs") or []:
        out.append(load_config(path, base))
    for name, spec in builtin.items():
        if name not in BUILTIN_ARGS:
            raise ConfigError(f"checks.builtin.{name}: unknown check (known: {', '.join(BUILTIN_ARGS)})")
        if isinstance(spec, dict) and spec.get("enabled") and BY_NAME[name].available():
            out.append(builtin_config(name, spec, sysfs_root, nvml, proc_root))
    return out


def conditions(configs: list[PluginConfig]) -> dict[str, dict[str, str]]:
    """The node conditions the configs' permanent rules raise, with their healthy reason and message."""
    return {name: {"ok_reason": spec["reason"] or f"No{name}", "ok_message": spec["message"] or f"no {name}"}
            for cfg in configs for name, spec in cfg.conditions.items()}
