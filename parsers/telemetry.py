"""The telemetry rule table shipped with gpu-npd (parsers/sample_rules.yaml): the default of the agent's
`sample_rules` key (agent/settings.py, judged by agent/samples.py), and the reasons the cluster component reads
as node faults by each row's `kind` (cluster/evidence.py).  Data, declared once; read on first use."""

from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any

from .kinds import BY_NAME as KINDS


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
    return tuple(_with_condition(row) for row in yaml.safe_load(data.decode("utf-8")))


def _with_condition(row: dict[str, Any]) -> dict[str, Any]:
    """A row that names its kind and no condition raises what a finding of that kind at its severity raises (the kind
    table's rules, parsers/kinds.py `Kind.raised_at`): a reading and a log line saying one thing raise one condition
    (an NVLink CRC rate, a warning, GPUDegraded as Fabric Manager's Non Fatal NVL error does)."""
    if "condition" in row or "kind" not in row:
        return row
    kind, severity = KINDS.get(row["kind"]), row.get("severity")
    condition = kind.raised_at(severity) if kind is not None and severity is not None else None
    if condition is None:
        raise ValueError(f"parsers/sample_rules.yaml: the row of reason {row.get('reason')!r} names no condition, and "
                         f"kind {row['kind']!r} at severity {severity!r} raises none")
    return {**row, "condition": condition}


def sample_rules() -> list[dict[str, Any]]:
    """The shipped rows, a fresh copy each call (a configuration may change its own), without their `source` (the
    docs' evidence for each number: docs/telemetry-thresholds.md shows it; a configuration need not carry it)."""
    return [{k: copy.deepcopy(v) for k, v in r.items() if k != "source"} for r in rows()]


def node_fault_reasons() -> dict[str, tuple[str, str]]:
    """Reason -> (finding kind, attribution) for the rows that name a kind: what a problem they raise is evidence of."""
    return {r["reason"]: (r["kind"], r.get("attribution", "hardware")) for r in rows() if r.get("kind")}
