"""One line in, at most one finding out.

`Classifier` is the only stateful piece of the parsers: it remembers a few facts from earlier
lines of the same stream (which GPU a multi-line NVRM message is about, a GPU's UUID as NVRM
prints it beside an Xid, CRI partial lines still being joined).  It does no I/O.
"""

from __future__ import annotations

import re
from .envelope import detect, is_kmsg_continuation
import logging

from .finding import Finding, bounded_int
from .pci import find_pci, normalize_pci
from .prefilter import Prefilter
from .rules import KEYWORDS, PCI, REFINERS, RULES, Dispatch, Rule
from .unclassified import DRIVER_KEYWORDS, ERROR_WORDS, unclassified

_FIELDS = ("pid", "rank", "xid", "sxid")  # integer fields
_TEXT_FIELDS = ("process", "peer")

# Lines that make no finding but give context to the next ones: (keyword, regex).
CONTEXT = (
    ("NVRM: GPU at PCI:", re.compile(r"NVRM: GPU at (?P<pci>" + PCI + r"): (?P<uuid>GPU-[0-9a-fA-F-]+)")),
    ("NVRM: The NVIDIA GPU", re.compile(r"NVRM: The NVIDIA GPU (?P<pci>" + PCI + r")")),
)
CONTEXT_KEYWORDS = tuple(k for k, _ in CONTEXT)
# CRI partial lines (rare: only lines over the runtime's 16 KiB split) are always looked at, so a
# keyword split across two parts is still found once the parts are joined.
CRI_PARTIAL_KEYWORDS = (" stdout P ", " stderr P ")
# How many lines a multi-line NVRM message may span.
CONTEXT_LINES = 4
# Kinds that are about a PCI device: take the first PCI address in the line if no group named one.
PCI_KINDS = frozenset({"xid", "sxid", "fallen_off_bus", "gpu_reset", "gpu_reset_required", "nvlink",
                       "pcie_aer", "ib_link", "nic_error"})


def all_keywords() -> tuple[str, ...]:
    return tuple(dict.fromkeys(KEYWORDS + CONTEXT_KEYWORDS + CRI_PARTIAL_KEYWORDS + DRIVER_KEYWORDS))


def line_patterns(rules: tuple[Rule, ...] = RULES) -> tuple[tuple[str, bool], ...]:
    """What a line must match to be worth classifying, as (regex source, caseless): every finding rule's own
    regex, the context lines' regexes and the CRI partial markers.  Derived from the table: a new row needs
    no engine work."""
    out = [(r.pattern.pattern, bool(r.pattern.flags & re.IGNORECASE)) for r in rules if r.kind is not None]
    out += [(p.pattern, False) for _, p in CONTEXT]
    out += [(re.escape(k), False) for k in CRI_PARTIAL_KEYWORDS]
    # the unclassified safety net: a driver keyword and an error word on one line, in either order
    drivers = "(?:" + "|".join(re.escape(k) for k in DRIVER_KEYWORDS) + ")"
    out.append((f"{drivers}.*{ERROR_WORDS.pattern}|{ERROR_WORDS.pattern}.*{drivers}", True))
    return tuple(out)


_int = bounded_int
MAX_MESSAGE = 4096  # characters of one message the rules see; the rest of a longer line is not matched
MAX_LINE = 16384  # characters of one line (envelope included) any regex sees; longer lines are cut and counted
MAX_UUIDS = 1024  # pci -> UUID entries remembered (oldest evicted): input cannot grow it without bound
MEMO_SIZE = 4096  # distinct messages whose meaning is remembered: a repeated (storm) line costs a dict lookup
log = logging.getLogger("gpu_npd.parsers")
MEMO_MAX_KEY = 1024  # longer messages are classified every time, never remembered (memory stays small)
_MISS = object()


class Classifier:
    def __init__(self, rules: tuple[Rule, ...] = RULES, year: int | None = None,
                 prefilter: Prefilter | None = None, memo_size: int = MEMO_SIZE, max_line: int = MAX_LINE,
                 memo: dict | None = None):
        self.rules = rules
        self.max_line = max(MAX_MESSAGE, max_line)
        self.lines_cut = 0  # lines longer than max_line, cut before any regex ran
        self.dispatch = Dispatch(rules)
        # message (no envelope) -> what it means on its own (None: no finding); bounded, oldest evicted.
        # Context-free, so classifiers of one kind of input may share one (`memo`): a source following many
        # files (pod logs) then holds memo_size entries in all, not memo_size per file.
        self.memo: dict[str, tuple[dict, bool] | None] = {} if memo is None else memo
        self.memo_size = max(1, memo_size)
        self.memo_hits = 0
        self.memo_evictions = 0
        self.year = year
        self.prefilter = prefilter or Prefilter(all_keywords(), engine="re")
        self.uuids: dict[str, str] = {}  # pci -> GPU UUID, as NVRM printed it
        self._last_pci: tuple[int, str] | None = None
        self._count = 0
        self.errors = 0  # lines whose classification raised (a bug): counted, logged once, never fatal
        self.uuid_evictions = 0

    def classify(self, line: str, *, file: str | None = None, lineno: int | None = None) -> Finding | None:
        """Classify one line (envelope included, no newline)."""
        self._count += 1
        position = lineno if lineno is not None else self._count
        if len(line) > self.max_line:
            line = line[:self.max_line]
            self.lines_cut += 1
        if not self.prefilter.matches(line) or is_kmsg_continuation(line):
            return None
        env = detect(line, self.year)
        finding = self.classify_message(env.message, position)
        if finding is None:
            return None
        finding.timestamp, finding.uptime, finding.envelope = env.timestamp, env.uptime, env.name
        finding.program = env.extra.get("app")
        finding.file, finding.line = file, lineno
        return finding

    def classify_message(self, message: str, position: int | None = None) -> Finding | None:
        """Classify a bare message (no envelope). Total: a line that makes a rule raise is counted in
        `errors` and yields nothing; detection goes on with the next line."""
        try:
            return self._classify_message(message[:MAX_MESSAGE], position)
        except Exception:  # noqa: BLE001 - one bad line must never stop a source
            self.errors += 1
            if self.errors == 1:
                log.exception("classifying a line raised (counted; later ones are not logged): %.200r", message)
            return None

    def _classify_message(self, message: str, position: int | None) -> Finding | None:
        position = position if position is not None else self._count
        self._remember(message, position)
        memo = self.memo
        template = memo.get(message, _MISS)
        if template is _MISS:
            template = self._template(message)
            if len(message) > MEMO_MAX_KEY:
                return None if template is None else self._instantiate(template, position)
            while len(memo) >= self.memo_size:
                del memo[next(iter(memo))]  # oldest first: a storm line stays hot, a flood of new lines cycles
                self.memo_evictions += 1
            memo[message] = template
        else:
            self.memo_hits += 1
        if template is None:
            return None
        return self._instantiate(template, position)

    def _template(self, message: str) -> tuple[dict, bool] | None:
        """What the line means on its own (no context): the Finding's fields, and whether its PCI address
        must come from the lines before it.  Rules are tried in table order, but only those whose keyword
        occurs in the message (one scan finds them all)."""
        for rule in self.dispatch.candidates(message):
            m = rule.pattern.search(message)
            if m is None:
                continue
            if rule.kind is None:
                return None
            return self._build(rule, m, message)
        return self._unclassified(message)

    @staticmethod
    def _unclassified(message: str) -> tuple[dict, bool] | None:
        """A driver line with an error word that no rule took: kept, never lost (see unclassified.py)."""
        hit = unclassified(message)
        if hit is None:
            return None
        return dict(kind="unclassified", severity="warning", attribution="unknown", action="INVESTIGATE",
                    message=message, pci=find_pci(message), details={"driver": hit[0], "word": hit[1]}), False

    def _instantiate(self, template: tuple[dict, bool], position: int) -> Finding:
        fields, from_context = template
        fields = dict(fields)
        details = fields["details"] = dict(fields["details"])
        pci = fields["pci"]
        if from_context and self._last_pci and position - self._last_pci[0] <= CONTEXT_LINES:
            pci = fields["pci"] = self._last_pci[1]
        if pci and pci in self.uuids:
            details["uuid"] = self.uuids[pci]
        return Finding(**fields)

    def memo_stats(self) -> dict[str, int]:
        """Counters of the repeat memo, for export: entries now, capacity, hits, evictions."""
        return {"entries": len(self.memo), "size": self.memo_size, "hits": self.memo_hits,
                "evictions": self.memo_evictions, "lines_cut": self.lines_cut, "errors": self.errors}

    def _remember(self, message: str, position: int) -> None:
        for keyword, pattern in CONTEXT:
            if keyword in message:
                m = pattern.search(message)
                if m:
                    pci = normalize_pci(m.group("pci"))
                    if pci:
                        self._last_pci = (position, pci)
                        if "uuid" in m.groupdict():
                            if pci not in self.uuids and len(self.uuids) >= MAX_UUIDS:
                                del self.uuids[next(iter(self.uuids))]
                                self.uuid_evictions += 1
                            self.uuids[pci] = m.group("uuid")

    def _build(self, rule: Rule, m: re.Match, message: str) -> tuple[dict, bool]:
        groups = {k: v for k, v in m.groupdict().items() if v is not None}
        out = {"severity": rule.severity, "attribution": rule.attribution, "action": rule.action,
               "details": {}}
        if rule.refine:
            REFINERS[rule.refine](groups, out)
        details = out["details"]
        for key, value in groups.items():
            if key in _FIELDS or key in _TEXT_FIELDS or key in ("pci", "text", "fatality", "state"):
                continue
            number = bounded_int(value)
            details.setdefault(key, number if number is not None else value.strip()[:256])
        pci = normalize_pci(groups.get("pci"))
        if pci is None and rule.kind in PCI_KINDS:
            pci = find_pci(message)
        fields = dict(
            kind=rule.kind, severity=out["severity"], attribution=out["attribution"], action=out["action"],
            message=message, pci=pci, details=details, peer=groups.get("peer"),
            process=groups.get("process", "").strip() or None,
            **{k: _int(groups.get(k)) for k in _FIELDS},
        )
        return fields, pci is None and rule.kind in PCI_KINDS


def parse_line(line: str, year: int | None = None) -> Finding | None:
    """Convenience: classify one line with a fresh classifier (no cross-line context)."""
    return Classifier(year=year).classify(line)

