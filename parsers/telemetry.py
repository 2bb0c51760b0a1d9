"""The telemetry rule table shipped with gpu-npd (parsers/sample_rules.yaml): the default of the agent's
`sample_rules` key (agent/settings.py, judged by agent/samples.py), and the reasons the cluster component reads
as node faults by each row's `kind` (triage/conditions.py).  Data, declared once; read on first use."""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any, Mapping

from .kinds import BY_NAME as KINDS, Kind


@lru_cache(maxsize=1)
def rows() -> tuple[dict[str, Any], ...]:
    """The shipped rows, read once: not to be changed (`sample_rules` gives a copy to change)."""
    import os  # noqa: PLC0415

    import yaml  # noqa: PLC0415  (not at import: `gpu-npd parse` never needs it)

    # what pkgutil.get_data(__package__, ...) does, without importing pkgutil: every agent reads this table at start
    # and would hold pkgutil for the one call (~0.1 MiB of the idle footprint, issue 24)
    loader = getattr(__spec__, "loader", None)
    path = os.path.join(os.path.dirname(__file__), "sample_rules.yaml")
    data = loader.get_data(path) if hasattr(loader, "get_data") else None
    if data is None:  # (a loader that cannot read package data: a broken install)
        raise FileNotFoundError("parsers/sample_rules.yaml is not installed")
    shipped = tuple(with_condition(row) for row in yaml.safe_load(data.decode("utf-8")))
    for row in shipped:
        if "condition" not in row:
            try:
                kind_condition(row)
            except ValueError as exc:
                raise ValueError(f"parsers/sample_rules.yaml: the row of reason {row.get('reason')!r} names no "
                                 f"condition, and {exc}") from None
    return shipped


# the severity of a telemetry row that names none (agent/samples.py's verdicts say it)
DEFAULT_SEVERITY = "warning"


def finding_kind(name: Any) -> Kind:
    """The kind a row's `kind` names. ValueError, one line, where it names none: the one message for it (a row raising
    its own condition or its kind's alike, agent/samples.py validate_rules and the shipped table's load)."""
    kind = KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"{name!r} is no finding kind (parsers/kinds.py)")
    return kind


def kind_condition(row: Mapping[str, Any]) -> str:
    """The condition a row that names its finding kind raises: what a finding of that kind at the row's severity
    raises (the kind table's rules, parsers/kinds.py `Kind.raised_at`), so that a reading and a log line saying one
    thing raise one condition (an NVLink CRC rate, a warning, GPUDegraded as Fabric Manager's Non Fatal NVL error
    does). ValueError, one line, saying why where there is none (`finding_kind`'s where the kind is none)."""
    name, severity = row.get("kind"), row.get("severity", DEFAULT_SEVERITY)
    condition = finding_kind(name).raised_at(severity)  # (a ValueError where the kind's rules ask more than a severity)
    if condition is None:
        raise ValueError(f"kind {name!r} at severity {severity!r} raises none")
    return condition


def with_condition(row: Any) -> Any:
    """A telemetry row that names its finding kind and no condition, with the condition its kind raises at its severity
    (`kind_condition`): the shipped table's rows and a configuration's own `sample_rules` alike (agent/config.py).
    Any other row, or one whose kind raises none, as it is (its check, agent/samples.py validate_rules, says why)."""
    if not isinstance(row, dict) or "condition" in row or "kind" not in row:
        return row
    try:
        return {**row, "condition": kind_condition(row)}
    except ValueError:
        return row


def sample_rules() -> list[dict[str, Any]]:
    """The shipped rows, a fresh copy each call (a configuration may change its own), without their `source` (the
    docs' evidence for each number: docs/telemetry-thresholds.md shows it; a configuration need not carry it)."""
    return [{k: copy.deepcopy(v) for k, v in r.items() if k != "source"} for r in rows()]


def node_fault_reasons() -> dict[str, tuple[str, str]]:
    """Reason -> (finding kind, attribution) for the rows that name a kind: what a problem they raise is evidence of."""
    return {r["reason"]: (r["kind"], r.get("attribution", "hardware")) for r in rows() if r.get("kind")}
