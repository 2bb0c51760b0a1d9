"""Check results -> what the health engine syncs (pure).

Each rule is its own subject (`check:<source>/<rule index>`), so a rule that turns OK clears what it
raised and two rules sharing a reason never collide.  A permanent rule raises a problem on its
condition while it says NonOK, and also while it says Unknown (a check that could not say is never
taken as healthy); a temporary rule raises an Event-only problem (no condition).  A skipped rule is
left out: what stood for it stands.
"""

from __future__ import annotations

from parsers.model import Verdict

from .npd import NONOK, OK, UNKNOWN, PluginConfig, Result


def subject(cfg: PluginConfig, index: int) -> str:
    return f"check:{cfg.source}/{index}"


def judged(cfg: PluginConfig, results: list[Result], severity: str = "error",
           action: str = "RUN_DIAGNOSTICS") -> dict[str, list[Verdict]]:
    out: dict[str, list[Verdict]] = {}
    for i, res in enumerate(results):
        if res.status not in (OK, NONOK, UNKNOWN):
            continue  # Skipped(...)
        verdicts = []
        if res.status != OK:
            rule = res.rule
            unknown = res.status == UNKNOWN
            condition = rule.condition if rule.type == "permanent" else ""
            message = f"{'Unknown: ' if unknown else ''}{res.message or rule.reason} [check {cfg.source}]"
            verdicts.append(Verdict(condition, rule.reason, "warning" if unknown else severity, "hardware",
                                    action, message, {"check": cfg.source, "status": res.status}))
        out[subject(cfg, i)] = verdicts
    return out
