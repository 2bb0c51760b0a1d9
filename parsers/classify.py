"""One line in, at most one finding out.

`Classifier` is the only stateful piece of the parsers: it remembers a few facts from earlier
lines of the same stream (which GPU a multi-line NVRM message is about, a GPU's UUID as NVRM
prints it beside an Xid, CRI partial lines still being joined).  It does no I/O.

`Dispatch` is how it applies the rule table (parsers/rules.py, data only): which rows to try for a message, found
in one keyword scan, the row that matched last tried first.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from functools import lru_cache
from dataclasses import replace
from itertools import islice
from operator import attrgetter
from typing import Callable, Collection

from .bounded import Derived, keep_newest
from .envelope import (JOURNAL_BYTES_KEYWORDS, JOURNAL_BYTES_LINE, JSON_DECODED, JSON_MESSAGE_LINE, HOSTLESS, Envelope,
                       Pending, behind_node, finish, host_key, host_of, is_fleet_node, is_kmsg_continuation, node_prefixed, split)

from .finding import Finding, above, bounded_int
from .kinds import BY_NAME as KIND
from .kinds import FUNCTION_DEVICES, SEVERITY_RANK
from .kinds import TABLE as KIND_TABLE
from .pci import find_pci, normalize_pci
from .prefilter import Prefilter, groups_within, hyperscan_words_in, scan_source
from .ports import BootClock
from .rules import (BOOT_MARK, BOOT_STAGES, EVENT_ADDRESS_FROM, EVENT_ADOPTS, EVENT_AMENDS, EVENT_CARRIES,
                    EVENT_DETAIL_FIRST, EVENT_ECHOES, EVENT_ESCALATES, EVENT_ONE_PROCESS, EVENT_FILL_ATTRIBUTION,
                    EVENT_FILL_ALONE, EVENT_FILL_APPEND, EVENT_FILL_DETAILS, EVENT_FILL_SAME, EVENT_FILLS,
                    EVENT_LINES, EVENT_PAGES, EVENT_PER_DEVICE, EVENT_PER_FINDING_DEVICE, EVENT_REPORTS,
                    EVENT_WITHIN_DEVICE,
                    EVENT_PER_GPU, EVENT_PER_GPU_INDEX, EVENT_PER_GROUP, EVENT_PER_RANK, EVENT_RESTATED, EVENT_SECTIONS,
                    GSP_GPU_INDEX,
                    KEYWORDS, MAX_QUIET_DEVICES, PAGE_SHIFTS, PCI, QUIET_ROWS, REFINERS, RULES, STATED, Rule, sxid_row,
                    xid_row)
from .unclassified import DRIVER_DEVICES, DRIVER_KEYWORDS, ERROR_WORDS, unclassified
from .wordscan import KeywordScan, LazyPattern, required_literals
from .workers import tag_rank

# the events whose report a "state" or "begin" line states (rules.STATED)
_STATED_EVENTS = frozenset(event for event, _ in STATED.values())
# the envelopes whose line Classifier.read looks at apart: a JSON-decoded message's, the journal's JSON, a plain line
_READ_APART = JSON_DECODED | {"journal_json", "plain"}
# the roles Classifier._in_event answers before an event's key is looked at (rules.Rule.event)
_LEAD_ROLES = frozenset(("begin", "end", "follows", "state", "page", "quiet"))
_FIELDS = ("pid", "rank", "xid", "sxid")  # integer fields
_TEXT_FIELDS = ("process", "peer")
_NOT_DETAILS = frozenset(_FIELDS + _TEXT_FIELDS + ("pci", "text", "fatality", "state", "stated"))  # groups kept elsewhere

# Lines that make no finding but give context to the next ones: (keyword, regex).
CONTEXT = (
    ("NVRM: GPU at PCI:", re.compile(r"NVRM: GPU at (?P<pci>" + PCI + r"): (?P<uuid>GPU-[0-9a-fA-F-]+)")),
    ("NVRM: The NVIDIA GPU", re.compile(r"NVRM: The NVIDIA GPU (?P<pci>" + PCI + r")")),
)
CONTEXT_KEYWORDS = tuple(k for k, _ in CONTEXT)
# What every context keyword and every context regex starts with, literally: no keyword occurs and no context regex
# matches before the first occurrence of it, so what a line says (Classifier._context_facts) is what its text from
# there says, whatever envelope is before it (a line only a context pattern matched is remembered by that text: a
# banner repeated with another stamp is one entry, looked up, not matched again)
CONTEXT_LEAD = os.path.commonprefix(CONTEXT_KEYWORDS)  # (check_tables: a literal, the regexes' lead too)
# CRI partial lines (rare: only lines over the runtime's 16 KiB split) are always looked at, so a
# keyword split across two parts is still found once the parts are joined.
CRI_PARTIAL_KEYWORDS = (" stdout P ", " stderr P ")
# How many lines a multi-line NVRM message may span.
CONTEXT_LINES = 4
_ECHO_ROWS = {other: row for other, row, _ in EVENT_ECHOES.values()}  # event -> its row a report may detail
# the events whose new opening line Classifier._in_event notes more of: a report's (its die counter), one a report
# right after it may detail (_ECHO_ROWS), one of sections (its page, its section), one that escalates (its rank)
_OPEN_NOTED = frozenset(EVENT_REPORTS) | frozenset(_ECHO_ROWS) | frozenset(EVENT_SECTIONS) | frozenset(EVENT_ESCALATES)
# the events whose opening line Classifier._in_event first looks further for: a key naming no GPU, the GPU's open one
# (EVENT_PER_GPU); a line after one detailing it, the amendment of that one's finding (EVENT_DETAIL_FIRST).  Any other
# event's opening line only opens (or keeps open) its key: no window, no other key looked at
_OPEN_LOOKS = frozenset(EVENT_PER_GPU) | frozenset(EVENT_DETAIL_FIRST)
MAX_OPEN_EVENTS = 1024  # open multi-line events remembered at once (per-device keys)
# hosts whose stream context a classifier reading one stream per host keeps (Classifier.for_stream(by_host=True)):
# past it, the host seen longest ago is forgotten (its open events, banners, UUIDs) and its next line starts afresh
MAX_HOST_STREAMS = 4096
# addresses an open event's "page" lines may name (a record names one per section, a few): past them its page is unknown
MAX_EVENT_PAGES = 16
_PCI_KEY = re.compile(PCI)  # a device key that is a PCI address (EVENT_WITHIN_DEVICE's join: with a function)
# Kinds that are about a PCI device (the kind table's `device`): take the first PCI address in the line if no
# group named one.
PCI_KINDS = frozenset(k.name for k in KIND_TABLE if k.device is not None)
# Of those, the kinds whose device is one PCI function (kinds.FUNCTION_DEVICES): their address keeps its function
FUNCTION_KINDS = frozenset(k.name for k in KIND_TABLE if k.device in FUNCTION_DEVICES)
# and the drivers of the unclassified net whose device is one (unclassified.DRIVER_DEVICES): the same rule for a line
# no row took
FUNCTION_DRIVERS = frozenset(label for label, device in DRIVER_DEVICES.items() if device in FUNCTION_DEVICES)


# A message's characters as a JSON string of docker's json-file log holds them (moby daemon/logger/jsonfilelog/jsonlog
# `ffjsonWriteJSONBytesAsString`: a backslash before a backslash and `"`, `<`, `>` and `&` as `\u003c`, `\u003e`,
# `\u0026`) and stern's `-o json` (Go's encoding/json, HTML-escaping by default): a keyword holding one is in such a
# line escaped
_JSON_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def all_keywords() -> tuple[str, ...]:
    """Every keyword a line may hold: the rows', the context lines', the net's drivers', each also as a JSON-wrapped
    line holds it where that differs (a docker or stern line's raw bytes are what an engine scans and the line's
    keyword test reads; its rows read the decoded message), and the envelopes' own (a CRI partial line, a journal
    record whose message is an array of bytes)."""
    words = KEYWORDS + CONTEXT_KEYWORDS + DRIVER_KEYWORDS
    return tuple(dict.fromkeys(words + tuple(k.translate(_JSON_ESCAPES) for k in words) + CRI_PARTIAL_KEYWORDS +
                               JOURNAL_BYTES_KEYWORDS))


def keyword_prefilter() -> Prefilter:
    """The records' keyword test (a line holding none of the keywords is no finding), on `re`: its regex compiled
    at its first use (`Prefilter.compile` to have it now)."""
    return Prefilter(all_keywords(), engine="re")


MAX_BEFORE = 12  # Dispatch.first: a row with more keywords than this before it (its own aside) is never tried first
RECENT = 4  # Dispatch.first: the plans of this many rows that matched last are tried before any keyword scan
MIN_GATE = 4  # Dispatch.first: a row's required literal shorter than this is no gate (it occurs in most lines anyway)


@lru_cache(maxsize=16)
def _dispatch_tables(rules: tuple[Rule, ...]) -> tuple[KeywordScan, dict[str, frozenset[int]], dict, dict]:
    """What a Dispatch derives from its table, once per table (a pod log source makes a classifier per file):
    - the keyword scan (wordscan.KeywordScan: every keyword occurring in a line, overlapping ones included, or a word
      holding it: a word selects the rows of the keywords it holds; on hyperscan where it is installed,
      prefilter.hyperscan_words_in: each keyword occurring);
    - word -> the rows it selects (those with a keyword it contains);
    - per row, the keywords of the rows before it but its own (as the parts they share: _cover, _before), and the rows
      before it holding one of its own keywords (sxid_continuation before sxid: "SXid"). A flood of one kind of line with different numbers (an Xid from one
      process after another) matches the same row each time, but every line is new to the memo: that row is tried
      first (`Dispatch.first`), after those before it that share its keyword and occur, and its result stands when
      the row is a candidate and no other row before it is (no keyword of theirs occurs), which is what trying the
      candidates in order would give, without scanning for every keyword. Only rows with at most MAX_BEFORE
      keywords before them are tried so;
    - per row, its gate: the literal every match of its regex holds (wordscan.required_literals), the longest that holds
      none of the row's keywords, where it has MIN_GATE characters or more, else None. A candidate whose gate does not occur is
      passed over without its regex (mlx5_link's ": Link " on an mlx5 health line): a failed search costs ten times
      a substring test."""
    words = sorted({k for r in rules for k in r.keywords}, key=len, reverse=True)
    # keyword -> the rows holding it, in table order (one pass over the table): tuples, not sets, kept for the
    # process's life by every Dispatch (a set of one or two rows is ~200 bytes, its tuple ~50: ~80 KiB a Dispatch)
    by_keyword: dict[str, tuple[int, ...]] = {}
    for i, r in enumerate(rules):
        for k in dict.fromkeys(r.keywords):
            by_keyword[k] = by_keyword.get(k, ()) + (i,)
    # each derived when first asked for (a process start derives none; a big log, the few its lines reach)
    rows = Derived(lambda w: frozenset().union(*(ids for k, ids in by_keyword.items() if k in w)))
    gates = Derived(lambda i: _gate(rules[i]))
    before = Derived(lambda i: _before(rules, i, gates))
    return KeywordScan(words, hyperscan_words_in), rows, before, gates


def _before(rules: tuple[Rule, ...], i: int, gates: dict) -> tuple[tuple[str, ...], tuple[str, ...], tuple] | None:
    """What `Dispatch.first` tests of the rows before row i when it is tried first (see _dispatch_tables): None where
    more than MAX_BEFORE keywords come before it (its own aside); else the literals it tests for them (_cover:
    each earlier keyword but its own holds one), the keywords themselves (tested where a literal occurs: a part
    such as "ted " occurs in lines that hold none of the keywords it covers), and the rows sharing a keyword with
    it, with their keywords and gates (what `first` reads of them, no lookup a line)."""
    own = rules[i].keywords
    others = tuple(dict.fromkeys(k for r in rules[:i] for k in r.keywords if k not in own))
    if len(others) > MAX_BEFORE:
        return None
    return _cover(others), others, tuple((j, rules[j].keywords, gates[j]) for j in range(i)
                                         if set(rules[j].keywords) & set(own))


def _cover(keywords: tuple[str, ...]) -> tuple[str, ...]:
    """Fewer literals than `keywords` where some share a part: each keyword holds one of them (a part of MIN_GATE
    characters or more), so where none occurs, no keyword does ("fail" for "failed to find the GPU handle", "failed!
    Exit code: " and "Continue to run when facing failures"; " INFO" for "NCCL INFO" and "NVSHMEM INFO").  Greedy: the
    part held by most keywords left first, the longer (rarer in text) of two held by as many; a keyword no part of
    another's holds is its own."""
    parts = {k[a:b] for k in keywords for a in range(len(k)) for b in range(a + MIN_GATE, len(k) + 1)}
    held = {part: frozenset(k for k in keywords if part in k) for part in parts}
    held = {part: ks for part, ks in held.items() if len(ks) > 1}
    left, out = set(keywords), []
    while True:
        best = max(held, key=lambda part: (len(held[part] & left), len(part), part), default=None)
        if best is None or len(held[best] & left) < 2:
            break
        out.append(best)
        left -= held[best]
    return tuple(out) + tuple(k for k in keywords if k in left)


def _gate(rule: Rule) -> str | None:
    """A row's gate (see _dispatch_tables), or None."""
    pattern = rule.pattern
    source = pattern.pattern if not callable(pattern.pattern) else pattern.compiled().pattern
    runs = [run for run in required_literals(source, pattern.flags) if not any(k in run for k in rule.keywords)]
    literal = max(runs, key=len, default="")
    return literal if len(literal) >= MIN_GATE else None


@lru_cache(maxsize=1024)
def _any_in(literals: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether any of `literals` occurs in a text, as one expression compiled for them (`'a' in text or 'b' in text`):
    `Dispatch.first`'s test of the earlier rows' keywords, four bytecodes a literal where a loop over them runs
    six (the literals are the table's keywords, each written with repr)."""
    body = " or ".join(f"{literal!r} in text" for literal in literals) or "False"
    namespace: dict = {}
    exec(f"def any_in(text):\n    return {body}\n", namespace)  # noqa: S102 - the table's literals, repr'd
    return namespace["any_in"]


class Dispatch:
    """Which rows to try for a message, derived from the table: one regex scan finds every keyword in the
    message, and only the rows holding one are tried (in table order, first match wins), instead of a
    substring test per row.  A found keyword also selects rows whose keywords it contains ("SXid" selects
    the Xid rows too), so the result equals trying every row whose keyword occurs in the message."""

    def __init__(self, rules: tuple[Rule, ...], tables: tuple | None = None):
        self.rules = rules
        # `tables`: another Dispatch's of the same table (`for_stream`): no lookup that hashes every row again
        self.tables = _dispatch_tables(rules) if tables is None else tables
        self._scan, self._rows, self._before, self._gates = self.tables
        self._cache: dict[tuple, tuple[tuple[Rule, int, str | None], ...]] = {}
        # the plans of the rows that matched last, newest first (at most RECENT; a row without a plan, none)
        self._recent: tuple[tuple, ...] = ()
        self._plans: dict[int, tuple | None] = {}  # row -> its plan (`_remember`), or None

    def for_stream(self) -> "Dispatch":
        """A Dispatch of the same table for another stream: its derived tables shared (they only grow by what the table
        implies), its own cache and recent rows."""
        return Dispatch(self.rules, self.tables)

    @property
    def scan_failures(self) -> int:
        """Messages the table's keyword scan failed on (its engine raised; the words tested one by one instead):
        the table's, shared by every Dispatch of it (`wordscan.KeywordScan.failures`)."""
        return self._scan.failures.count

    def first(self, message: str, allowed: frozenset[int] | None = None) -> tuple[Rule, re.Match] | None:
        """The first candidate row (in table order) whose regex matches `message`, with its match.  `allowed`: as
        for `candidates` (the row tried first must be a candidate too).

        The rows that matched last (RECENT of them: lines of a few kinds in turn, each new to the memo) are tried
        before any keyword scan, by their plans (`_dispatch_tables`' `before`), newest first: a plan's own keyword first
        (one test: a line of another kind ends that plan there), then none of the earlier rows' keywords but its own
        (the parts they share, each tested once: _cover, in one expression: _any_in; where a part occurs, the keywords
        themselves, so that a part alone, "ted " in "has been detected", costs no scan); the earlier rows holding its
        keyword are the candidates before it, tried in table order (the keyword found is one they hold, for most:
        known to occur, no second test).  Each plan's match is what the candidates in order give, whichever plan
        gives it.  Inline, not a method: a new line of a flood pays no call for it."""
        for plan in self._recent:
            last, rule, keywords, occurs, sharing, exact = plan
            if allowed is None or last in allowed or rule.kind is None:
                for keyword in keywords:
                    if keyword in message:
                        if not occurs(message) or not exact(message):
                            for i, before, held, gate in sharing:
                                if (allowed is None or i in allowed or before.kind is None) and (
                                        keyword in held or any(k in message for k in held)):
                                    if gate is not None and gate not in message:
                                        continue
                                    m = before.pattern.search(message)
                                    if m is not None:
                                        self._remember(i)
                                        return before, m
                            m = rule.pattern.search(message)
                            if m is not None:
                                return rule, m
                        break
        for rule, i, gate in self._tries(message, allowed):
            if gate is not None and gate not in message:
                continue
            m = rule.pattern.search(message)
            if m is not None:
                self._remember(i)
                return rule, m
        return None

    def _remember(self, index: int) -> None:
        """The row that matched, first of the rows tried before a scan where few keywords come before it
        (MAX_BEFORE): its plan, this Dispatch's rows (an equal table's rows are other objects) with what the shared
        tables say of them, made when the row first matches.  A row without one leaves the others."""
        plan = self._plans.get(index, self)  # (self: not made yet; a plain dict, no cycle through a bound method)
        if plan is self:
            plan = self._plans[index] = self._plan_of(index)
        if plan is not None:
            recent = self._recent
            if not recent or plan is not recent[0]:
                self._recent = (plan,) + tuple(p for p in recent if p is not plan)[:RECENT - 1]

    def _plan_of(self, index: int) -> tuple | None:
        before = self._before[index]
        if before is None:
            return None
        cover, others, sharing = before
        rules = self.rules
        return (index, rules[index], rules[index].keywords, _any_in(cover),
                tuple((j, rules[j], held, gate) for j, held, gate in sharing), _any_in(others))

    def candidates(self, message: str, allowed: frozenset[int] | None = None) -> tuple[Rule, ...]:
        """`allowed`: the finding rows that may match (indexes; look-alike rows are always kept), or None."""
        return tuple(rule for rule, _, _ in self._tries(message, allowed))

    def _tries(self, message: str, allowed: frozenset[int] | None) -> tuple[tuple[Rule, int, str | None], ...]:
        """The candidates as (row, its index, its gate): what `first` tries, in order."""
        found = self._scan.words_in(message)  # as found (a tuple of str hashes cheaply); a long run is deduplicated
        key = (tuple(found) if len(found) <= 8 else frozenset(found), allowed)  # so input cannot grow the keys
        rows = self._cache.get(key)
        if rows is None:
            found = frozenset(key[0])
            if len(self._cache) >= 4096:  # keyword combinations are few in real logs; input cannot grow this
                self._cache.clear()
            ids: set[int] = set()
            for w in found:
                ids |= self._rows[w]
            rows = self._cache[key] = tuple((self.rules[i], i, self._gates[i]) for i in sorted(ids)
                                            if allowed is None or i in allowed or self.rules[i].kind is None)
        return rows


ANY_ROW = -1  # a line pattern after which every row may match
CONTEXT_ROW = -2  # a context line's pattern (CONTEXT): no row, but what it says is remembered
PATTERN_BYTES = 8000  # the most a line pattern built of many literals holds (hyperscan's limit is 16,000 bytes)


def _alternations(alternatives: list[str], limit: int) -> list[str]:
    """`alternatives` joined with `|` into as few parts as keep each within `limit` characters."""
    return ["|".join(alternatives[i] for i in g) for g in groups_within([len(a) + 1 for a in alternatives], limit + 1)]


@lru_cache(maxsize=16)
def _line_pattern_rows(rules: tuple[Rule, ...]) -> tuple[tuple[str, bool, int | None], ...]:
    """(regex source, caseless, row index in `rules` or None) of everything `line_patterns` gives."""
    out = [(scan_source(r.pattern.pattern, r.scan_from), bool(r.pattern.flags & re.IGNORECASE), i)
           for i, r in enumerate(rules) if r.kind is not None or r.event is not None]
    out += [(p.pattern, False, CONTEXT_ROW) for _, p in CONTEXT]
    out += [(re.escape(k), False, None) for k in CRI_PARTIAL_KEYWORDS]
    # a docker json-file or stern JSON line holding a keyword: its message is JSON-decoded (escapes) before the rows
    # see it, so its raw bytes are not what they match; such a line is looked at whole (every row, as the keyword scan)
    # (in parts of at most PATTERN_BYTES: hyperscan refuses an expression past 16,000 bytes, and the keywords' one
    # alternation was 15,944 when two more keywords broke it)
    for part in _alternations([re.escape(k) for k in all_keywords()], PATTERN_BYTES):
        out.append((JSON_MESSAGE_LINE + ".*(?:" + part + ")", False, ANY_ROW))
    # a journal JSON record whose MESSAGE is an array of bytes (no UTF-8): its keywords are the decoded message's
    out.append((JOURNAL_BYTES_LINE, False, ANY_ROW))
    # the unclassified safety net (last): a driver keyword, then an error word after it (unclassified.unclassified).
    # Not the other order too: "<error word>.*<driver>" found no line of the corpus's real logs, and hyperscan ran it
    # from every error word of every line (0.09 s of the 1M-line default mix's 0.15, 0.15 once bnxt_en and bnxt_re
    # were drivers); the whole caseless (a caseless part inside a case-sensitive pattern cost it more still)
    drivers = "(?:" + "|".join(re.escape(k) for k in DRIVER_KEYWORDS) + ")"
    out.append((f"{drivers}.*{ERROR_WORDS.pattern}", True, None))
    return tuple(out)


@lru_cache(maxsize=16)
def _row_plans(rules: tuple[Rule, ...]) -> dict[str, "RowPlan"]:
    """Row name -> its RowPlan, derived at the row's first match and kept for every classifier of the table (a stream's
    classifier, Classifier.for_stream, derived them again; each by a scan of the table for the row)."""
    by_name = {r.name: r for r in rules}

    def event_plan(name: str, event: str, role: str) -> EventPlan:
        single = None if "|" in event else event  # its keys' first word (an event's name has no space)
        names = event.split("|")
        # (only the lines of an event kept per GPU by address or index go through Classifier._by_gpu)
        boot, by_gpu, stated = role == BOOT_MARK[1], any(one in EVENT_PER_GPU_INDEX for one in names), STATED.get(name)
        carries = single in EVENT_CARRIES and role in ("open", "inside")
        return (boot, single in EVENT_PER_GPU, by_gpu, stated, single,
                carries or role == "within" and any(one in EVENT_FILL_ALONE for one in names),
                not (boot or by_gpu or stated is not None or role == "begin" or carries))

    def plan_of(name: str) -> RowPlan:
        rule = by_name[name]
        plan = event_if = None
        if rule.event is not None:
            plan = event_plan(name, *rule.event)
            events = (rule.event,)
        elif rule.event_if is not None:  # the line's event by a group's value: each one's (event, role) and plan
            group, table = rule.event_if
            event_if = (group, {value: (event, event_plan(name, *event)) for value, event in table})
            events = tuple(event for _, event in table)
        else:
            events = ()
        any_rank = rule.kind in _WORKLOAD or any(event in EVENT_PER_RANK for event, _ in events)
        return (REFINERS[rule.refine] if rule.refine else None, _detail_groups(rule.pattern), rule.kind in PCI_KINDS,
                any_rank, event_if, plan, rule.kind in FUNCTION_KINDS)

    return Derived(plan_of)


def line_patterns(rules: tuple[Rule, ...] = RULES) -> tuple[tuple[str, bool], ...]:
    """What a line must match to be worth classifying, as (regex source, caseless): every finding rule's own
    regex (and those of the rows of a multi-line event), the context lines' regexes, the CRI partial markers,
    docker lines holding a keyword and the unclassified net.  Derived from the table: a new row needs no engine
    work.  The engines report which of these matched a line (`Prefilter.line_spans`), and
    `Classifier.classify(..., matched=)` tries only the rows among them."""
    return tuple((p, c) for p, c, _ in _line_pattern_rows(rules))


_int = bounded_int
# What a message means on its own: the finding's fixed fields (a tuple in _TEMPLATE_FIELDS order; None: a member
# line of a multi-line event, no finding), whether its PCI address must come from the lines before it, its
# multi-line event role (rules.Rule.event), and what the event tables say of its row (EventPlan; None without an event).
Template = tuple[tuple | None, bool, tuple[str, str, str] | None, "EventPlan | None"]
# What the event tables say of a row with an event: (its lines are kernel start-up marks (BOOT_MARK); its event is kept
# per GPU (EVENT_PER_GPU: a key naming none takes the GPU the lines before it named); its lines may name the GPU by
# index (Classifier._by_gpu); its stated-severity table (STATED) or None; its event's name in the tables (an event
# key's first word; None for a row of several events); a "within" line of an event whose finding takes details from its
# lines alone (EVENT_FILL_ALONE), or an "open" or "inside" line of one whose lines hand details on (EVENT_CARRIES): a
# look-alike row's line makes those details, no finding of its own; none of the first, the third, the fourth, a report's
# first line ("begin") nor a line handing details on: Classifier._instantiate asks none of them of its line,
# `asks_none`)
EventPlan = tuple[bool, bool, bool, "tuple[str, dict] | None", "str | None", bool, bool]
# What the tables say of a row, derived once per row (Classifier._row_plans), not per line: (its refiner (REFINERS) or
# None; the named groups that go into details as they are (_detail_groups); its kind is about a PCI device (PCI_KINDS);
# its lines' rank is read from anywhere on them (a workload kind, an event kept per rank); rules.Rule.event_if with each
# value's EventPlan beside its (event, role), or None; its `event`'s EventPlan or None; its kind's address keeps the PCI
# function (FUNCTION_KINDS))
RowPlan = tuple["Callable | None", tuple[str, ...], bool, bool,
                "tuple[str, dict[str, tuple[tuple[str, str], EventPlan]]] | None", "EventPlan | None", bool]
# What Classifier._in_event decides of a line of a multi-line event: (absorbed: the line is part of an open event, no
# finding of its own; made_by: the event the line's finding is the finding of; amends: the event whose finding the
# line's finding escalates; joined: the event with a finding the line joined), each name None where none
Verdict = tuple[bool, str | None, str | None, str | None]
_ABSORBED: Verdict = (True, None, None, None)  # the two common verdicts, built once
_FREE: Verdict = (False, None, None, None)
_NOTHING: tuple[None, tuple[()]] = (None, ())  # what `read` returns for almost every line
MAX_MESSAGE = 4096  # characters of one message the rules see; the rest of a longer line is not matched
MAX_LINE = 16384  # characters of one line (envelope included) any regex sees; longer lines are cut and counted
MAX_UUIDS = 1024  # pci -> UUID entries remembered (oldest evicted): input cannot grow it without bound
MAX_GPU_INDEXES = 1024  # GPU index -> address entries remembered (Classifier._gpu_index; oldest evicted)
MEMO_SIZE = 4096  # distinct messages whose meaning is remembered: a repeated (storm) line costs a dict lookup
MEMO_MAX_KEY = 1024  # longer messages are classified every time, never remembered (memory stays small)
_MISS = object()


class Classifier:
    # Its attributes, declared (those __init__ and _new_stream set): why, tests/test_slots.py
    __slots__ = ("rules", "max_line", "lines_cut", "dispatch", "_pattern_rows", "_context_ids", "_row_plans",
                 "_allowed_cache", "memo", "memo_size", "memo_hits", "memo_evictions", "year", "prefilter", "_context",
                 "_by_host", "_hosts", "_host", "_own", "_named", "hosts_forgotten", "_apart", "errors", "uuid_evictions",
                 # the stream context (_new_stream; _STREAM_FIELDS)
                 "uuids", "_gpu_index", "_index_of", "_last_pci", "_events", "_led", "_stages", "_ranks", "_stated",
                 "_carried", "_made", "_pages", "_sectioned", "_echoes", "_echoed", "_opened", "_ended", "_dies",
                 "_header", "_amended", "_quiet", "boot", "links", "_count", "_lag")

    def __init__(self, rules: tuple[Rule, ...] = RULES, year: int | None = None,
                 prefilter: Prefilter | None = None, memo_size: int = MEMO_SIZE, max_line: int = MAX_LINE,
                 memo: dict | None = None, like: "Classifier | None" = None):
        """`like`: a classifier of the same `rules` whose tables this one shares (`for_stream`): a stream's set-up then
        costs the same whatever the table's size (each lookup keyed by the table hashed every row)."""
        self.rules = rules
        self.max_line = max(MAX_MESSAGE, max_line)
        self.lines_cut = 0  # lines longer than max_line, cut before any regex ran
        if like is None:
            self.dispatch = Dispatch(rules)
            self._pattern_rows = tuple(row for _, _, row in _line_pattern_rows(rules))  # line_patterns id -> row
            self._context_ids = frozenset(i for i, row in enumerate(self._pattern_rows) if row == CONTEXT_ROW)
            self._row_plans: dict[str, RowPlan] = _row_plans(rules)  # row name -> RowPlan, shared (the table's)
        else:
            self.dispatch = like.dispatch.for_stream()
            self._pattern_rows, self._context_ids, self._row_plans = like._pattern_rows, like._context_ids, \
                like._row_plans
        self._allowed_cache: dict[frozenset[int], tuple[frozenset[int] | None, bool]] = {}
        # message (no envelope) -> what it means on its own (None: no finding); bounded, oldest evicted.
        # Context-free, so classifiers of one kind of input may share one (`memo`): a source following many
        # files (pod logs) then holds memo_size entries in all, not memo_size per file.
        self.memo: dict[str, Template | None] = {} if memo is None else memo
        self.memo_size = max(1, memo_size)
        self.memo_hits = 0
        self.memo_evictions = 0
        self.year = year
        self.prefilter = prefilter or keyword_prefilter()
        self._context: dict[str, tuple[tuple[str, str | None], ...]] = {}  # message -> what it says (bounded)
        # one stream context per host the lines' envelopes name (for_stream(by_host=True), from its second host or
        # hosts_apart), the current one's in the attributes: the others' saved (_STREAM_FIELDS), the host seen longest
        # ago first; None: one stream (the agent's; a by_host reader's until a second host)
        self._by_host = False
        self._hosts: OrderedDict[str | None, tuple] | None = None
        # the host whose context the attributes hold (None: the input's own, of the lines naming none and of the first
        # host named, `_own`: one node's log whose lines come in several forms is one stream, as before)
        self._host: str | None = None
        self._own: str | None = None
        # the host name the current context answers to (`_own` for the input's own, once named): a line naming it, or
        # naming none where the input's own is current, reads on without a word of the rule (_on_host's); always
        # `_own if _host is None else _host`, kept (set by _on_host alone) so a line's test is one comparison
        self._named: str | None = None
        self.hosts_forgotten = 0  # hosts whose context was dropped past MAX_HOST_STREAMS
        self._apart = 0  # lines read while hosts are apart (every host's)
        self._new_stream()
        self.errors = 0  # lines whose classification raised (a bug): counted, logged once, never fatal
        self.uuid_evictions = 0

    def _new_stream(self) -> None:
        """What one stream's lines carry to its later lines, empty: the context a new stream starts with."""
        self.uuids: dict[str, str] = {}  # pci -> GPU UUID, as NVRM printed it
        # GPU index ("GPU6") -> its address, from lines naming both (rules.EVENT_PER_GPU_INDEX), and the reverse
        self._gpu_index: dict[str, str] = {}
        self._index_of: dict[str, str] = {}
        self._last_pci: tuple[int, str] | None = None
        self._events: dict[str, int] = {}  # open multi-line event -> position of its last line
        self._led: set[str] = set()  # open events its "lead" lines opened, no finding made yet (rules.Rule.event)
        self._stages: dict[str, frozenset[str]] = {}  # open event -> its "once" rows seen so far
        self._ranks: dict[str, int] = {}  # open escalating event (rules.EVENT_ESCALATES) -> its findings' top severity
        self._stated: dict[str, tuple[int, str]] = {}  # event -> (position, the severity its "state" line stated)
        self._carried: dict[str, dict] = {}  # event -> the details its last line handed on (rules.EVENT_CARRIES)
        # events whose finding may be amended (rules.EVENT_AMENDS) -> (position of the event's last line, its finding)
        self._made: dict[str, tuple[int, Finding]] = {}
        # open event -> the pfns its "page" lines named (rules.EVENT_PAGES); None: more than MAX_EVENT_PAGES, unknown
        self._pages: dict[str, frozenset[int] | None] = {}
        self._sectioned: set[str] = set()  # open events a section row joined (rules.EVENT_SECTIONS)
        # report (event) -> (the event whose finding its first section amends, the position of the report's first
        # line): a record whose machine check line came right before it (rules.EVENT_ECHOES)
        self._echoes: dict[str, tuple[str, int]] = {}
        self._echoed: dict[str, int] = {}  # event -> position of its line a report may detail (rules.EVENT_ECHOES)
        # event of a kernel report (rules.EVENT_REPORTS) -> the position of its first line, of its report's last
        # ("end"), its report's die counter (None until its die line); the last report header's word, die counter and
        # WARN site's function (Classifier._report_begins, _outside_report)
        self._opened: dict[str, int] = {}
        self._ended: dict[str, int] = {}
        self._dies: dict[str, str | None] = {}
        self._header: tuple[str, str | None, str | None] = ("", None, None)
        # findings the line being read made of its event's earlier one (an address it lacked): rare, its second
        # output, which `read` returns beside the line's own finding
        self._amended: list[Finding] = []
        # disk devices a "quiet" line said are removable or hold no medium (rules.QUIET_ROWS; bounded, oldest forgotten)
        self._quiet: OrderedDict[str, None] = OrderedDict()
        self.boot = BootClock()  # when this stream's boot began, from the kernel's start-up lines (wall-clock logs)
        self.links = None  # what a reader judges a stream's link findings by (parsers/scan.py _Links), made at its first
        self._count = 0
        # the lines of other hosts read while hosts are apart (the current context's); a saved one's less `_apart` then
        self._lag = 0

    def for_stream(self, by_host: bool = False) -> "Classifier":
        """A classifier for another stream (a file in `parse`, a source or a pod log in the agent): the same
        rules, year, prefilter and repeat memo (context-free), and none of this one's stream context (open
        multi-line events, NVRM banners, UUIDs, line count), so nothing of one stream reaches another.  `by_host`:
        one stream context per host the lines' envelopes name (a fleet's input, `pdsh -w node[1-100] dmesg`, whose
        nodes' lines interleave): the first host named shares the input's own with the lines naming none, each other
        host has its own; up to MAX_HOST_STREAMS.  Until a line that reads or changes the context names a second
        host, one stream (a node's log naming its one host costs a lookup per such line); `hosts_apart` from the start."""
        c = Classifier(self.rules, self.year, self.prefilter, self.memo_size, self.max_line, memo=self.memo, like=self)
        c._by_host = by_host
        return c

    def hosts_apart(self) -> None:
        """One stream context per host from now on, every line's host read (a by_host reader whose input's start names
        several hosts: an NVRM banner, remembered without reading its envelope until then, is its host's)."""
        if self._hosts is None:
            self._by_host, self._hosts = True, OrderedDict()

    def _on_host(self, host: str | None) -> None:
        """Make the stream context of the line's host (envelope.host_of) the current one (for_stream(by_host=True)):
        asked of a line that reads or changes the context whose host is neither the name the current context answers
        to nor (naming none) the input's own while it is current (Classifier.read).  The first host named is the input's
        own (a node's log, some of its lines naming none): its lines and those naming none share one context."""
        if host is not None and self._own is None:
            self._own = host
        if host == self._own:
            host = None
        if host != self._host:
            if self._hosts is None:  # a second host: its lines apart from here on (the lines before it, the input's)
                self.hosts_apart()
            self._to_host(host)
        self._named = self._own if host is None else host

    def _to_host(self, host: str | None) -> None:
        """Make `host`'s stream context the current one (a fresh one for a host not seen, or forgotten), this one's
        saved: a line of one node never takes another's banner, open event or UUID."""
        hosts, count = self._hosts, self._count  # (the lines read: the input's, whoever's)
        saved = hosts.pop(host, None)  # (before the current one is kept: never the one forgotten for it)
        self._lag -= self._apart  # (kept so: `_apart` when it is current again gives its lag, _lag below)
        keep_newest(hosts, self._host, _save_stream(self), MAX_HOST_STREAMS - 1, self._forgot)
        if saved is None:
            self._new_stream()
        else:
            for name, value in zip(_STREAM_FIELDS, saved):
                setattr(self, name, value)
        self._host, self._count = host, count
        self._lag += self._apart  # its lag when it was left, and the other hosts' lines read since

    def _behind_node(self, line: str, env: Envelope) -> Envelope:
        """A plain line's envelope where a by_host reader's input names a host (pdsh's `node-a: ` before a program's
        line or a kernel message's continuation, which no envelope row reads as a host's): the line behind the prefix,
        the node's, where the node is one the input names (its stream context: a program's `RuntimeError: ` names no
        host), or pdsh's before a kernel message whatever the input names (envelope.is_fleet_node: a fleet's `dmesg
        --notime`, no line naming a host by its envelope); else the plain one, as it was."""
        node = node_prefixed(line)
        if node is None:
            return env
        key = None if self._own is None else host_key(node[0])
        named = key is not None and (key == self._own or key == self._host or
                                     (self._hosts is not None and key in self._hosts))
        return behind_node(node[0], node[1], self.year) if named or is_fleet_node(*node) else env

    def _forgot(self, _saved: tuple) -> None:
        self.hosts_forgotten += 1

    def classify_alone(self, line: str) -> Finding | None:
        """Classify a line that stands for itself (the line a Kubernetes Event quotes, read beside other nodes'):
        a stream of its own, so nothing an earlier line opened or named (an open event, a banner's UUID, a GPU
        index's address) reaches it, and nothing it opens reaches a later line.  The memo and tables are kept."""
        self._new_stream()
        return self.classify(line)

    def classify(self, line: str, *, file: str | None = None, lineno: int | None = None,
                 matched: Collection[int] | None = None) -> Finding | None:
        """The line's own finding (`read`'s first output): for a line read on its own account; a stream's reader
        takes `read`'s amendments too."""
        return self.read(line, file=file, lineno=lineno, matched=matched)[0]

    def read(self, line: str, *, file: str | None = None, lineno: int | None = None,
             matched: Collection[int] | None = None) -> tuple[Finding | None, tuple[Finding, ...]]:
        """Read a stream's next line (envelope included, no newline): (its own finding or None, the findings of
        earlier lines of its event it amended, rules.EVENT_AMENDS: an address or peer they lacked; () for almost
        every line), the amendments to be taken after the line's own finding.  `matched`, from a buffer scan: the
        ids of the `line_patterns` that matched the line (a superset of the rows whose regex does), so only those
        rows are tried; None: every row whose keyword occurs."""
        self._count += 1
        if len(line) > self.max_line:
            line = line[:self.max_line]
            self.lines_cut += 1
        if (matched is None and not self.prefilter.find(line)) or (line[:1] == " " and is_kmsg_continuation(line)):
            return _NOTHING
        if matched and not self._by_host and self._context_ids.issuperset(matched):
            # only a context line's pattern matched (an `NVRM: GPU at PCI:` banner): no row, no net can take it,
            # so what it says is remembered from the line's text from CONTEXT_LEAD on (its patterns are unanchored),
            # no envelope split (a by_host reader's is its host's: read below)
            at = line.find(CONTEXT_LEAD)
            self._remember(line[at:] if at > 0 else line, lineno if lineno is not None else self._count)
            return _NOTHING
        name, message, env = split(line, self.year)  # the envelope is built only for a finding (_instantiate)
        if name in _READ_APART:  # (most lines' envelopes none of these: one test)
            if name in JSON_DECODED:
                if matched is not None and not self.prefilter.find(line):
                    # an engine's match needs no keyword test: no row, context or net acts on a message without one,
                    # and the message is part of the line, except docker's and stern's, which are JSON-decoded
                    return _NOTHING
            elif name == "journal_json":
                # the journal's JSON: the message decoded (escapes, a byte array) is not the line the engine matched,
                # so the keywords are the message's and every row they gate is tried
                if not self.prefilter.find(message):
                    return _NOTHING
                matched = None
            elif self._by_host:  # a plain line of a by_host reader's input: pdsh's prefix? (_own set: by_host)
                env = self._behind_node(line, env)
                name, message = env.name, env.message
        position = lineno if lineno is not None else self._count
        try:  # total: a line that makes a rule raise is counted in `errors` and yields nothing; the next line goes on
            if len(message) > MAX_MESSAGE:
                message = message[:MAX_MESSAGE]
            memo = self.memo
            template = memo.get(message, _MISS)
            if template is _MISS:
                # what the line means on its own (no context): the Finding's fields, and whether its PCI address must
                # come from the lines before it.  Rows are tried in table order, but only those whose keyword occurs
                # in the message (one scan finds them all), and of the finding rows only those the engine saw match
                # (`matched`); look-alike rows are always tried.  (Inline, not a method: a new line pays no call.)
                rows, net = (None, True) if matched is None else self._allowed(matched)
                hit = self.dispatch.first(message, rows)
                if hit is None:
                    template = self._unclassified(message) if net else None
                elif hit[0].kind is not None:
                    template = self._build(hit[0], hit[1], message)
                elif hit[0].event is None:
                    template = None
                else:  # a look-alike row's line of an event: outside it, a "within" row's line is the net's
                    rule, m = hit
                    plan = self._row_plans[rule.name][5]
                    net_template = self._unclassified(message) if net and rule.event[1] == "within" else None
                    fields = None if net_template is None else net_template[0]
                    if fields is None and plan[5]:
                        # the details its event's finding takes from it (_fill); kind None: never a finding of its own
                        fields = self._build(rule, m, message)[0]
                    template = (fields, False, _event_key(rule, m), plan)
                if len(message) <= MEMO_MAX_KEY:
                    if len(memo) >= self.memo_size:
                        self._evict(memo)
                    memo[message] = template
            else:
                self.memo_hits += 1
            # (what the line means is context-free, found first: only a line that may read or change its stream's
            # context asks its host, where the classifier reads one stream per host: a template's, and every line once
            # the hosts are apart, and a context line's (a banner: a second host's, before its first finding line, is
            # its own); a line the rules find nothing in builds no envelope for it)
            # (a line whose envelope's form names no host, read in the input's own context, asks nothing: a single-host
            # input's kernel and container lines pay no host_of)
            if self._by_host and (template is not None or self._hosts is not None or CONTEXT_LEAD in message) and (
                    self._host is not None or type(env) is not tuple or env[0] not in HOSTLESS):
                host, env = host_of(env)
                if host != self._named and host != self._host:  # (another context's, or the input's first host)
                    self._on_host(host)
            if self._hosts is not None:  # hosts apart: the windows count lines of the line's host (_lag)
                self._apart += 1
                position -= self._lag
            if CONTEXT_LEAD in message:  # one substring test for most lines; two more for most NVRM lines
                for keyword in CONTEXT_KEYWORDS:
                    if keyword in message:
                        self._remember(message, position)
                        break
            f = None if template is None else self._instantiate(template, position, env, file, lineno)
        except Exception:  # noqa: BLE001 - one bad line must never stop a source
            self.errors += 1
            if self.errors == 1:
                import logging  # noqa: PLC0415 - a bug's path only: no start-up cost

                logging.getLogger("gpu_npd.parsers").exception("classifying a line raised (counted; later ones are not logged): %.200r", message)
            f = None
        if self._amended:
            amended, self._amended = tuple(self._amended), []
            return f, amended
        return (f, ()) if f is not None else _NOTHING

    def _evict(self, memo: dict) -> None:
        """Make room in a full memo: its oldest quarter goes at once (one scan from the front, not one per
        insertion: a dict's deleted front entries make `next(iter(memo))` slower with each deletion).  A shared
        memo may be fuller than this classifier put it."""
        victims = list(islice(memo, max(len(memo) - self.memo_size + 1, self.memo_size // 4)))
        for key in victims:
            del memo[key]
        self.memo_evictions += len(victims)

    def _in_event(self, event: tuple[str, str, str], position: int, rank: int = 0,
                  prefix: str | None = None) -> Verdict:
        """Is this line part of an open multi-line event? Opens, extends or leaves the event as its role says
        (rules.Rule.event) and returns its verdict (Verdict): whether the line is absorbed (no finding of its own),
        and the events its finding is the finding of (made_by), escalates (amends) or it joined (joined). `rank`:
        the line's severity (SEVERITY_RANK), for the events that escalate (rules.EVENT_ESCALATES); `prefix`: the event's
        name in the tables where the caller has it (EventPlan), else read from the key."""
        name, role, stage = event
        if role in _LEAD_ROLES:  # (the roles of few lines: the others pass one test, not five)
            if role == "begin":  # a report's first line: the report its stated event reads is this one, others ended
                word, die, function = stage  # (the word it stated, its die counter or None, the WARN site's function)
                for one in name:
                    if one in _STATED_EVENTS:
                        self._stated[one] = (position, word)
                    elif one not in EVENT_REPORTS or self._report_begins(one, word, die, position):
                        self._in_event((one, "close", word), position, rank)
                self._header = (word, die, function)
                return _ABSORBED
            if role == "end":  # a report's last line: the open event's report ended (rules.EVENT_REPORTS)
                last = self._events.get(name)
                if last is not None and 0 <= position - last <= EVENT_LINES[name]:
                    self._events[name] = self._ended[name] = position
                return _ABSORBED
            if role == "quiet":  # (stage: whether the device is quiet) a removable or empty disk's, a fixed disk's
                self._quieten(name.partition(" ")[2], stage)
                return _ABSORBED
            if role == "follows":  # (stage: the pfn the line names, or None)
                return self._follows(name if type(name) is tuple else (name,), stage, position, rank)
            if type(name) is not tuple:  # (several events' "state" or "page" line: each one's, below)
                if role == "state":  # (stage: the word it stated) a few names at most: event names, not devices
                    self._stated[name] = (position, stage)
                    return _ABSORBED
                if role == "page":  # (stage: a physical address) the page of the open event's error
                    last = self._events.get(name)
                    if stage is not None and last is not None and 0 <= position - last <= EVENT_LINES[name]:
                        self._events[name] = position
                        pages = self._pages.get(name, frozenset())
                        if pages is not None:  # (None: it named too many, its page unknown; a new event's none yet)
                            pages = pages | {stage >> shift for shift in PAGE_SHIFTS}
                            self._pages[name] = pages if len(pages) <= MAX_EVENT_PAGES * len(PAGE_SHIFTS) else None
                        made = self._made.get(name)
                        if made is not None:
                            self._made[name] = (position, made[1])
                    return _ABSORBED
        if type(name) is tuple:  # a "within" line of several events: part of whichever of them is open
            if role == "close":  # the first line of a report of each: ends each of them
                for one in name:
                    self._in_event((one, role, stage), position, rank)
                return _ABSORBED
            if role in ("join", "open"):  # part of an open event of the names after the first, else the first's role
                return self._in_any([(one, "within", stage) for one in name[1:]] + [(name[0], role, stage)],
                                    position, rank)
            return self._in_any([(one, role, stage) for one in name], position, rank)
        if prefix is None:
            prefix = name.split(" ", 1)[0]  # the event's name in the tables (a newest open key below shares it)
        if role == "open" and prefix not in _OPEN_LOOKS:  # (its opening needs neither: the line's one test)
            if name not in self._events:
                self._bound()
        else:
            last = self._events.get(name)
            inside = last is not None and 0 <= position - last <= EVENT_LINES[prefix]
            if not inside and name[-1:] == " " and (name[:-1] in EVENT_PER_GPU or role == "within" and
                                                     name[:-1] in EVENT_PER_DEVICE):  # names no device: the newest open
                newest = self._newest_open(name, position)
                if newest is not None:
                    name, last, inside = newest, self._events[newest], True
            elif not inside and role != "open" and prefix in EVENT_PER_FINDING_DEVICE:  # none of its device's open
                if role != "escalate":
                    newest = self._newest_open(prefix + " ", position)
                    if newest is not None:
                        name, last, inside = newest, self._events[newest], True
                elif self._amendable(name, prefix, position) is None:  # of the newest finding it may amend
                    newest = self._newest_made(prefix + " ", position)
                    if newest is not None:
                        name, last = newest, self._events.get(newest)
                        inside = last is not None and 0 <= position - last <= EVENT_LINES[prefix]
            elif not inside and role == "within" and stage in EVENT_WITHIN_DEVICE and "." in name \
                    and _PCI_KEY.fullmatch(name, len(prefix) + 1):  # a function's key, no netdev's (eth0.100, ib0.8001)
                # an open event of another function of its device ("mlx5_health 0004:01:00." + any function)
                newest = self._newest_open(name[:name.rindex(".") + 1], position)
                if newest is not None:
                    name, last, inside = newest, self._events[newest], True
            elif not inside and role == "join" and prefix in EVENT_ONE_PROCESS:  # the one rank's whether tagged or not
                other = self._one_process(name, prefix, position)
                if other == prefix + " ":  # a tagged line, the untagged lines' event: this rank's from now on (its key)
                    self._events[name] = self._events.pop(other)
                    other = name
                if other is not None:
                    name, last, inside = other, self._events[other], True
            elif not inside and role == "join" and name[-1:] != " ":
                if prefix in EVENT_ADOPTS:  # the event its lines naming no GPU opened: this GPU's from now on
                    anon = prefix + " "
                    at = self._events.get(anon)
                    if at is not None and 0 <= position - at <= EVENT_LINES[prefix]:
                        led = anon in self._led
                        self._rename(anon, name)  # (its finding's too: what this line names fills it, _fill)
                        self._events[name] = position
                        self._led.discard(name)
                        if led:  # opened by lead lines alone: this line's finding is the event's
                            return False, name, None, None
                        return (True, None, None, name) if name in self._made else _ABSORBED
                    self._events.pop(anon, None)
                    self._led.discard(anon)
            if role != "open":  # (the commonest role, none of these four is its)
                if role == "escalate":
                    made = self._amendable(name, prefix, position)
                    if made is not None:
                        if inside:
                            self._events[name] = position
                        self._made[name] = (position, made[1])
                        if rank > SEVERITY_RANK[made[1].severity]:  # worse than its finding said: its amendment
                            return False, None, name, None
                        return True, None, None, name
                    role = "join"
                if role == "inside":  # a finding within the open event (a section its header opened); else nothing
                    if inside:
                        self._events[name] = position
                        return _FREE
                    return _ABSORBED
                if role == "lead":  # part of the open event; else opens it, its finding the first "join" line's
                    if not inside:
                        self._bound()
                        self._led.add(name)
                    self._events[name] = position
                    return _ABSORBED
                if name in self._led and inside and role == "join":  # a lead-opened event's first line with a finding
                    self._led.discard(name)
                    self._events[name] = position
                    return False, name, None, None
                if role == "within":
                    if inside:
                        self._events[name] = position
                        made = self._made.get(name)
                        if made is not None:  # what the line gives the event's finding (_fill): a lockup's registers
                            self._made[name] = (position, made[1])  # its module, any line a stronger action
                            return True, None, None, name
                        return _ABSORBED
                    return _FREE
            if last is None:
                self._bound()
            if role == "open" and inside and prefix in EVENT_DETAIL_FIRST:  # after a line detailing it: its amendment
                made = self._made.get(name)
                if made is not None and rank > SEVERITY_RANK[made[1].severity]:
                    self._events[name] = position
                    return False, None, name, None
        if role == "open" or (role == "join" and not inside):
            self._events[name] = position
            if self._led:  # (events opened by lead lines: few, most often none)
                self._led.discard(name)
            if prefix in _OPEN_NOTED:  # (most events none of these: one test)
                if prefix in EVENT_REPORTS:  # a new report's event: its report not ended, its die counter the header's
                    self._opened[name] = position
                    self._dies[name] = self._header[1]
                if stage == _ECHO_ROWS.get(prefix):  # a line reporting an error a report right after it details
                    self._echoed[name] = position
                if prefix in EVENT_SECTIONS:  # a new event: no page, no section yet but this line's
                    self._pages.pop(name, None)
                    if stage in EVENT_SECTIONS[prefix]:
                        self._sectioned.add(name)
                        if self._echoes:
                            echo = self._echo(name, position, rank)
                            if echo is not None:
                                return echo
                    else:
                        self._sectioned.discard(name)
                if prefix in EVENT_ESCALATES:
                    self._ranks[name] = rank
            return False, name, None, None
        if role == "close":
            if prefix in EVENT_ECHOES:  # a report's first line: its error's earlier report right before it, if any
                other, _, within = EVENT_ECHOES[prefix]
                at = self._echoed.get(other)
                if at is not None and self._events.get(other) == at and other in self._made and 0 <= position - at <= within:
                    self._echoes[name] = (other, position)
                else:
                    self._echoes.pop(name, None)
            if prefix in EVENT_SECTIONS:
                if name not in self._sectioned:  # opened by a line of the report this line starts (ghes_edac's)
                    return _ABSORBED
                self._sectioned.discard(name)
                self._made.pop(name, None)  # ended: no later line amends its finding
                self._pages.pop(name, None)
            self._events.pop(name, None)
            return _ABSORBED
        if role == "once":
            seen = self._stages.get(name, frozenset()) if inside else frozenset()
            absorbed = bool(seen) and stage not in seen  # a stage met again: the next event
            self._events[name] = position
            self._stages[name] = seen | {stage} if absorbed else frozenset((stage,))
            if not absorbed:
                return False, name, None, None  # the event's finding (kept where a later line may amend it)
            made = self._made.get(name)
            if made is not None:  # what the line gives the event's finding (_fill: an OOM kill's scope)
                self._made[name] = (position, made[1])
                return True, None, None, name
            return _ABSORBED
        if inside:
            self._events[name] = position
            if prefix in EVENT_SECTIONS and stage in EVENT_SECTIONS[prefix]:
                self._sectioned.add(name)
            joined = None
            if name in self._made:
                self._made[name] = (position, self._made[name][1])
                joined = name
            # more severe than the event's findings so far
            if prefix in EVENT_ESCALATES and rank > self._ranks.get(name, rank):
                self._ranks[name] = rank
                return False, None, None, joined
            if joined is not None:
                return True, None, None, joined
        return _ABSORBED

    def _outside_report(self, name: str, function: str | None, events: str | tuple[str, ...], position: int) -> bool:
        """Is a RIP line (a row of STATED: its event `name`, the `function` it names, the events it joins) outside the
        report whose first line stated its severity? Yes where that line named the WARN site's function (rules.WARN_AT)
        and this line another: the RIP line of a report whose first line is not in the log (rate limiting, a grep
        excerpt, a WARN of another site). That report is over: its word no longer holds and its event
        (rules.EVENT_REPORTS) ends, so the line is read on its own (its row's severity, an oops's)."""
        site = self._header[2]
        if site is None or function is None or function == site:
            return False
        del self._stated[name]
        for one in events if type(events) is tuple else (events,):
            if one in EVENT_REPORTS:
                self._in_event((one, "close", None), position)
        return True

    def _report_begins(self, name: str, word: str, die: str | None, position: int) -> bool:
        """Does a report's first line (an oops_header row's: `word` "warning" for a WARN's, `die` its die counter
        or None) start another report than the one the open event `name` (rules.EVENT_REPORTS) is in? Yes once that
        report ended (its "end" line), at a die counter other than that report's, at a WARN's first line (a WARN
        prints it first and once) and at an oops's or a BUG's first line after a WARN's (a WARN has no die line); no
        for 4.x's die line after its "IP:" line (the event opened before it: the counter is its report's)."""
        last = self._events.get(name)
        if last is None or not 0 <= position - last <= EVENT_LINES[name]:
            return False  # none open: nothing to end
        if self._ended.get(name, -1) >= self._opened.get(name, 0):
            return True
        if "warning" in (word, self._header[0]):
            return True
        counter = self._dies.get(name)
        if counter is None:  # the report's own die line, after the line that opened the event (4.x), or none
            self._dies[name] = die
            return False
        return die is not None and die != counter

    def _echo(self, name: str, position: int, rank: int) -> Verdict | None:
        """The first section of a report whose error an event reported right before it (rules.EVENT_ECHOES, the
        report's first line recorded in `_echoes`): that event's finding is the report's from now on (that event ends),
        this line its amendment where more severe (the record's stated severity), else part of it. None: no such event
        (the line opens its own finding)."""
        other, first = self._echoes.pop(name)
        made = self._made.get(other)
        if made is None or not 0 <= position - first <= EVENT_LINES[name.split(" ", 1)[0]] \
                or not 0 <= position - made[0] <= EVENT_AMENDS[other.split(" ", 1)[0]]:
            return None
        del self._made[other]
        self._events.pop(other, None)
        self._made[name] = (position, made[1])
        if rank > SEVERITY_RANK[made[1].severity]:
            return False, None, name, None
        return True, None, None, name

    def _follows(self, names: tuple[str, ...], page: int | None, position: int, rank: int) -> Verdict:
        """A "follows" line (rules.Rule.event: the kernel's handling of a page, `page` its pfn): an "escalate" line of
        the newest of `names` whose finding it may still amend and whose page (rules.EVENT_PAGES) is unknown or
        `page`; of none, an "escalate" line of the first (it opens that event where none is open)."""
        best, best_at = names[0], -1
        for one in names:
            made = self._made.get(one)
            if made is None or not 0 <= position - made[0] <= EVENT_AMENDS[one.split(" ", 1)[0]] or made[0] <= best_at:
                continue
            pages = self._pages.get(one) if page is not None else None
            if pages is None or page in pages:
                best, best_at = one, made[0]
        return self._in_event((best, "escalate", None), position, rank)

    def _in_any(self, events: list[tuple[str, str, str]], position: int, rank: int) -> Verdict:
        """_in_event of each event in turn until one absorbs the line (a line of several events): absorbed when one
        did; each of made_by, amends and joined as the last call to give one gave it (None where none did), the calls
        before the absorbing one included."""
        absorbed, made_by, amends, joined = _FREE
        for event in events:
            verdict = self._in_event(event, position, rank)
            if verdict is _ABSORBED:
                return True, made_by, amends, joined
            if verdict is not _FREE:
                if verdict[1] is not None:
                    made_by = verdict[1]
                if verdict[2] is not None:
                    amends = verdict[2]
                if verdict[3] is not None:
                    joined = verdict[3]
                if verdict[0]:
                    absorbed = True
                    break
        return absorbed, made_by, amends, joined

    def _amendable(self, name: str, prefix: str, position: int) -> tuple[int, Finding] | None:
        """The event `name`'s finding (`_made`'s entry) where a line at `position` may still amend it
        (rules.EVENT_AMENDS; `prefix`: the event's name in the tables), else None."""
        made = self._made.get(name)
        return made if made is not None and 0 <= position - made[0] <= EVENT_AMENDS[prefix] else None

    def _newest_made(self, prefix: str, position: int) -> str | None:
        """The event named `prefix` + a device whose finding a line at `position` may still amend, the latest amended
        or extended (a line of an event kept per device naming none of its own, rules.EVENT_PER_FINDING_DEVICE)."""
        window, best, best_at = EVENT_AMENDS[prefix[:-1]], None, -1  # (_amendable's test, its entry in hand)
        for key, (at, _) in self._made.items():
            if at > best_at and key.startswith(prefix) and 0 <= position - at <= window:
                best, best_at = key, at
        return best

    def _one_process(self, name: str, prefix: str, position: int) -> str | None:
        """The key of the open event of the process a line of an event kept per rank (`name`: its key, none of its
        own open) is from, where its lines may come tagged and untagged (rules.EVENT_ONE_PROCESS): for an untagged
        line, the one tagged rank's open event; for a tagged one, the untagged open event while no other rank's is
        open (the caller makes it the line's rank's).  None where none, or two ranks' are open (never one failure
        of two ranks).  Nothing is changed."""
        window, keyed = EVENT_LINES[prefix], prefix + " "
        open_keys = [key for key, at in self._events.items() if key.startswith(keyed) and 0 <= position - at <= window]
        if name == keyed:  # untagged: the one rank's
            return open_keys[0] if len(open_keys) == 1 else None
        return keyed if open_keys == [keyed] else None

    def _bound(self) -> None:
        """Before a new event's key is kept: at MAX_OPEN_EVENTS, forget every open event (per-device keys: bounded
        whatever the input, the "lead" lines that open one without a finding included)."""
        if len(self._events) >= MAX_OPEN_EVENTS:
            self._events.clear()
            self._led.clear()
            self._stages.clear()
            self._ranks.clear()
            self._carried.clear()
            self._made.clear()
            self._pages.clear()
            self._sectioned.clear()
            self._echoes.clear()
            self._echoed.clear()

    def _newest_open(self, prefix: str, position: int) -> str | None:
        """The open event named `prefix` + a GPU's address (or the rest of a function's) whose last line is the latest
        within its window (a line of a per-GPU event naming no GPU, EVENT_WITHIN_DEVICE's: rare, so a scan of the open
        events, at most MAX_OPEN_EVENTS)."""
        window, best, best_at = EVENT_LINES[prefix.split(" ", 1)[0]], None, -1
        for key, at in self._events.items():
            if at > best_at and key.startswith(prefix) and 0 <= position - at <= window:
                best, best_at = key, at
        return best

    def _allowed(self, matched: Collection[int]) -> tuple[frozenset[int] | None, bool]:
        """Pattern ids -> (row indexes that may match, whether the unclassified net may)."""
        matched = frozenset(matched)
        hit = self._allowed_cache.get(matched)
        if hit is None:
            if len(self._allowed_cache) >= 1024:
                self._allowed_cache.clear()
            rows = self._pattern_rows
            allowed = {rows[i] for i in matched if i < len(rows) and rows[i] is not None and rows[i] != CONTEXT_ROW}
            hit = self._allowed_cache[matched] = (
                None if ANY_ROW in allowed else frozenset(allowed), ANY_ROW in allowed or len(rows) - 1 in matched)
        return hit

    @staticmethod
    def _unclassified(message: str) -> Template | None:
        """A driver line with an error word that no rule took: kept, never lost (see unclassified.py)."""
        hit = unclassified(message)
        if hit is None:
            return None
        row = KIND["unclassified"]  # its severity, attribution and action: the kind table's
        fields = _template_of(kind=row.name, severity=row.severity, attribution=row.attribution, action=row.action,
                              message=message, pci=find_pci(message, hit[0] in FUNCTION_DRIVERS),
                              details={"driver": hit[0], "word": hit[1]})
        return fields, False, None, None

    def _instantiate(self, template: Template, position: int, env: Envelope | Pending | None, file: str | None,
                     lineno: int | None) -> Finding | None:
        fields, from_context, event, plan = template
        context_pci = None  # the address the lines before it named (NVRM's banner), when its own must come from them
        if from_context:
            last = self._last_pci
            if last and position - last[0] <= CONTEXT_LINES:
                context_pci = last[1]
        if event is not None:  # a line of a multi-line event (most findings are none: this is skipped)
            # (a "state" row's key holds the word it stated where others hold the row: such a line is absorbed
            # before any of these but `prefix` is read)
            boot, per_gpu, by_gpu, stated_by, prefix, makes_details, asks_none = plan
            if context_pci and per_gpu and event[0].endswith(" "):
                event = (event[0] + context_pci, event[1], event[2])  # a GPU's event: the GPU the lines before it named
            keyed = stated = None
            if self._quiet and event[2] in QUIET_ROWS and _whole_disk(event[0]) in self._quiet:
                return None  # an I/O error of a removable or empty disk (rules.QUIET_ROWS): no fault of the node's
            if not asks_none:  # (most events' rows: one test for the four)
                if boot:  # a kernel start-up line: the stream's boot clock
                    self._boot_mark(event[2], env)
                    return None
                if by_gpu:  # (a few rows, most lines none)
                    event = self._by_gpu(event, position)
                    if type(event[0]) is str:
                        keyed = event[0].partition(" ")[2]  # the address of the GPU the key names (a mapped index too)
                if stated_by is not None and fields is not None:  # the severity the lines before it stated (a record's)
                    name, table = stated_by
                    said = self._stated.get(name)
                    if said is not None and 0 <= position - said[0] <= EVENT_LINES[name] and said[1] in table \
                            and not self._outside_report(name, fields[-1].get("function"), event[0], position):
                        stated = table[said[1]]
                if makes_details and prefix in EVENT_CARRIES:  # what the event's line before it named (a test's row)
                    fields = self._carry(event[0], prefix, fields, position)
                if event[1] == "begin" and fields is not None:  # a report's first line with a finding of its own (a
                    self._in_event(event, position)  # WARN naming the module, rules.WARN_AT): its report's event opens
                    prefix = next(one for one in event[0] if one in EVENT_REPORTS)  # with it
                    event = (prefix, "join", None)
            if event[2] in EVENT_RESTATED and fields is not None:  # a restatement (its row's line) of another error
                said = self._made.get(event[0])  # than the open event's: that error's own event
                detail = EVENT_RESTATED[event[2]]
                if said is not None and said[1].details.get(detail) != fields[-1].get(detail):
                    event = (event[0], "open", event[2])
            # the events this line's finding is the finding of, and escalates (at the severity it has: a record's
            # stated one, rules.EVENT_ECHOES)
            absorbed, made_by, amends, joined = self._in_event(
                event, position, SEVERITY_RANK[stated[0] if stated else fields[1]] if fields else 0, prefix)
            if absorbed:
                if joined is not None and fields is not None:  # (rare: a line with a finding's fields, absorbed)
                    self._fill(joined, fields, prefix)
                return None
            if fields is None or fields[0] is None:  # (a look-alike row's details, rules.EVENT_FILL_ALONE: no finding)
                return None
        # (a template without an event has fields: one without either is no template: None)
        kind, severity, attribution, action, message, xid, sxid, pci, pid, process, rank, peer, details = fields
        details = dict(details)
        if context_pci:
            pci = context_pci
        if event is not None:
            if stated is not None:
                severity, action = stated
            if keyed and not pci and keyed[:3] != "GPU":  # named by index only: the address a line mapped it to
                pci = keyed
            if amends is not None:  # the event's finding, now worse: its address, and what the amendment changed
                made = self._made[amends][1]
                pci, details["amends"] = made.pci or pci, "severity"
                for one in EVENT_FILL_ALONE.get(amends.split(" ", 1)[0], ()):  # what the event's lines gave it stays
                    if one in made.details:
                        details.setdefault(one, made.details[one])
        if pci and pci in self.uuids:
            details["uuid"] = self.uuids[pci]
        if env is None:
            f = Finding(kind, severity, attribution, action, message, None, None, xid, sxid, pci, pid, process,
                        rank, peer, details)
        else:
            if type(env) is not Envelope:  # built now, for the finding (envelope.split left it pending: finish, inline)
                env = env[0](env[1], env[2])
            extra = env.extra
            f = Finding(kind, severity, attribution, action, message, env.timestamp, env.uptime, xid, sxid, pci, pid,
                        process, rank, peer, details, env.name, extra.get("app"), file, lineno)
            if "host" in extra:  # (the envelope's host: `gpu-npd parse`'s node of a fleet's input)
                f.host = extra["host"]
        if self._made:
            if pci:
                self._address(f, position)
            if event is not None and amends is not None:
                self._made[amends] = (position, f)
        if event is not None:
            made_by = amends or made_by  # a name of the event's (prefix), or of one of a key naming several
            if made_by is not None and (prefix or made_by.split(" ", 1)[0]) in EVENT_AMENDS:
                self._made[made_by] = (position, f)
        return f

    def _by_gpu(self, event: tuple, position: int) -> tuple:
        """An event kept per GPU whose lines may name it by index (rules.EVENT_PER_GPU_INDEX): its key by the GPU's
        address where the line or the stream's index mapping gives it, else by the index or by nothing."""
        name = event[0]
        if type(name) is str:
            if name.split(" ", 1)[0] in EVENT_PER_GPU_INDEX:
                return self._gpu_key(name, position), event[1], event[2]
            return event
        if any(one.split(" ", 1)[0] in EVENT_PER_GPU_INDEX for one in name):
            return (tuple(self._gpu_key(one, position) if one.split(" ", 1)[0] in EVENT_PER_GPU_INDEX else one
                          for one in name), event[1], event[2])
        return event

    def _gpu_key(self, name: str, position: int) -> str:
        """The open-event key of a line of an event kept per GPU by address or index ("gsp 0000:a1:00", "gsp GPU6",
        "gsp 0000:a1:00=GPU6" for a line naming both, "gsp " for none). A line naming both teaches the stream the
        index's address (an open event keyed by that index is the address's from then on). A GPU whose event is not
        open takes the newest open one that nothing tells apart from it (one named by nothing; by an index no line
        mapped, for an address no line gave an index; or the reverse): the failure of one GPU, as one event."""
        prefix, _, who = name.partition(" ")
        if not who:
            return name  # names no GPU: the newest open one's (EVENT_PER_GPU), else its own
        pci, _, index = who.partition("=")
        if index:
            self._learn_index(prefix, index, pci, position)
        elif pci[:3] == "GPU":
            index, pci = pci, self._gpu_index.get(pci, "")
        key = f"{prefix} {pci or index}"
        last = self._events.get(key)
        if last is not None and 0 <= position - last <= EVENT_LINES[prefix]:
            return key
        other = self._indistinct(prefix, pci, index, position)
        if other is None:
            return key
        # the event named by nothing or by an unmapped index: this address's; an adopting event's (rules.EVENT_ADOPTS)
        # named by nothing: this index's too
        if pci or (other == prefix + " " and prefix in EVENT_ADOPTS):
            self._rename(other, key)
            return key
        return other  # an unmapped index: the open event of an address no line gave an index

    def _indistinct(self, prefix: str, pci: str, index: str, position: int) -> str | None:
        """The newest open event of `prefix` that nothing tells apart from a line naming `pci` and/or `index`."""
        window, best, best_at = EVENT_LINES[prefix], None, -1
        start = prefix + " "
        for key, at in self._events.items():
            if at <= best_at or not key.startswith(start) or not 0 <= position - at <= window:
                continue
            who = key[len(start):]
            if (not who or (pci and not index and who[:3] == "GPU" and pci not in self._index_of)
                    or (index and not pci and who[:3] != "GPU" and who not in self._index_of)):
                best, best_at = key, at
        return best

    def _learn_index(self, prefix: str, index: str, pci: str, position: int) -> None:
        """A line named a GPU by both index and address: remembered (bounded), and an open event keyed by the index
        is the address's."""
        if self._gpu_index.get(index) != pci:
            if index not in self._gpu_index and len(self._gpu_index) >= MAX_GPU_INDEXES:
                del self._gpu_index[next(iter(self._gpu_index))]
            self._gpu_index[index] = pci
            self._index_of = {p: i for i, p in self._gpu_index.items()}
        for one in EVENT_PER_GPU_INDEX:
            if f"{one} {index}" in self._events:
                self._rename(f"{one} {index}", f"{one} {pci}")

    def _quieten(self, device: str, quiet: bool) -> None:
        """A "quiet" line (rules.Rule.event): the disk `device` is removable or holds no medium (remembered, bounded), or
        (not `quiet`) is a fixed disk again (forgotten)."""
        if not quiet:
            self._quiet.pop(device, None)
        else:
            keep_newest(self._quiet, device, None, MAX_QUIET_DEVICES)

    def _rename(self, old: str, new: str) -> None:
        """An open event's key is another's from now on (the GPU it is about now known)."""
        if old == new:
            return
        at = self._events.pop(old, None)
        if at is not None and self._events.get(new, -1) < at:
            self._events[new] = at
        if old in self._led:
            self._led.discard(old)
            if new not in self._events or self._events[new] == at:
                self._led.add(new)
        for table in (self._stages, self._ranks, self._made):
            if old in table:
                value = table.pop(old)
                table.setdefault(new, value)

    def _may_be(self, who: str, pci: str | None) -> bool:
        """Whether an event's key (`who`: an address, an index, or "") may be about the GPU at `pci`."""
        if not who or pci is None:
            return True
        if who[:3].upper() == "GPU":
            mapped = self._gpu_index.get("GPU" + who[3:])
            return mapped == pci if mapped is not None else pci not in self._index_of
        return normalize_pci(who) in (None, pci)

    def _address(self, f: Finding, position: int) -> None:
        """A finding naming a GPU: the address of the open events (rules.EVENT_ADDRESS_FROM) whose finding named none,
        as an amendment of that finding (`read` returns it)."""
        for name, (at, made) in list(self._made.items()):
            kind = name.split(" ", 1)[0]
            if position - at > EVENT_AMENDS[kind]:
                del self._made[name]  # its window passed: nothing amends it any more
            elif made.pci is None and made is not f and position >= at and self._may_be(name.partition(" ")[2], f.pci):
                takes = EVENT_ADDRESS_FROM.get(kind)
                if takes is not None and (f.kind, f.xid) in takes:
                    self._amend(name, at, made, "pci", pci=f.pci)

    def _carry(self, name: str, prefix: str, fields: tuple, position: int) -> tuple:
        """A line that opens the event `name` or is a finding within it (rules.EVENT_CARRIES; `prefix`: the event's name
        in the tables), before it joins: its fields with the details it lacks that the event's line before it handed
        on, where the event is open (its window); what it then has is handed on to the next."""
        given = fields[-1]
        last = self._events.get(name)
        if last is not None and 0 <= position - last <= EVENT_LINES[prefix]:
            handed = self._carried.get(name, {})
            lacks = {one: handed[one] for one in EVENT_CARRIES[prefix] if one in handed and one not in given}
            if lacks:
                given = {**given, **lacks}
                fields = (*fields[:-1], given)
        self._carried[name] = {one: given[one] for one in EVENT_CARRIES[prefix] if one in given}
        return fields

    def _fill(self, name: str, fields: tuple, prefix: str | None = None) -> None:
        """A line joined the open event `name` (no finding of its own): the fields it gives that the event's finding
        lacks, of those the event takes (rules.EVENT_FILLS), and its action where a step above the finding's on the
        remediation ladder (finding.above: UVM's global fatal error asking a reboot of a GPU's reset event), amend
        that finding (`read` returns it). `prefix`: the event's name in the tables where the caller has it (EventPlan)."""
        if prefix is None:
            prefix = name.split(" ", 1)[0]
        takes = EVENT_FILLS.get(prefix, ())
        at, made = self._made[name]
        action = fields[_TEMPLATE_INDEX["action"]]
        stronger = above(action, made.action)
        if not takes and prefix not in EVENT_FILL_ALONE and not stronger:
            return
        if any(fields[_TEMPLATE_INDEX[one]] not in (None, getattr(made, one))
               for one in EVENT_FILL_SAME.get(prefix, ())):
            return  # another task's line (rules.EVENT_FILL_SAME): nothing it names is the finding's
        changes = {one: fields[_TEMPLATE_INDEX[one]] for one in takes
                   if fields[_TEMPLATE_INDEX[one]] is not None and getattr(made, one) is None}
        given = fields[_TEMPLATE_INDEX["details"]] or {}
        # the details it gives on their own (rules.EVENT_FILL_ALONE): those the finding lacks
        alone = {k: given[k] for k in EVENT_FILL_ALONE.get(prefix, ()) if k in given and k not in made.details}
        # and those it adds to the finding's (rules.EVENT_FILL_APPEND: a GPU's second failing system)
        for k in EVENT_FILL_APPEND.get(prefix, ()):
            if k in given and k in made.details and given[k] not in str(made.details[k]).split(", "):
                alone[k] = f"{made.details[k]}, {given[k]}"
        if stronger:
            changes["action"] = action
        if changes or alone:
            carried = {k: given[k] for k in EVENT_FILL_DETAILS.get(prefix, ()) if k in given and k not in made.details}
            what = ("pci" if "pci" in changes else next(iter(changes))) if changes else next(iter(alone))
            # the attribution of the line that gave it (its row's: a GPU driver's frame, "driver"), with what it gave
            if prefix in EVENT_FILL_ATTRIBUTION and made.attribution == "unknown":
                attribution = fields[_TEMPLATE_INDEX["attribution"]]
                if attribution != "unknown":
                    changes["attribution"] = attribution
            self._amend(name, at, made, what, {**alone, **carried}, **changes)

    def _amend(self, name: str, at: int, made: Finding, what: str, carried: dict | None = None, **changes) -> None:
        """The finding `made` of the open event `name` amended with `changes` (`details.amends`: `what`; a new address
        with the UUID NVRM gave it; `carried`: details the filling line gave with them): kept as the event's finding and
        handed over (`read` returns it)."""
        details = dict(made.details)
        if carried:
            details.update(carried)
        details["amends"] = what
        pci = changes.get("pci")
        if pci is not None and pci in self.uuids:
            details["uuid"] = self.uuids[pci]
        amended = replace(made, details=details, **changes)
        self._made[name] = (at, amended)
        self._amended.append(amended)

    def _boot_mark(self, row: str, env: Envelope | Pending | None) -> None:
        """A kernel start-up line (rules.BOOT_STAGES): a boot began about when it was written.  A process's line
        (a syslog tag other than the kernel's) sets nothing."""
        if env is None:
            self.boot.mark(BOOT_STAGES[row], None)
            return
        env = finish(env)
        if env.extra.get("app") in (None, "kernel"):
            self.boot.mark(BOOT_STAGES[row], env.timestamp)

    def memo_stats(self) -> dict[str, int]:
        """Counters of the repeat memo, for export: entries now, capacity, hits, evictions."""
        return {"entries": len(self.memo), "size": self.memo_size, "hits": self.memo_hits,
                "evictions": self.memo_evictions, "lines_cut": self.lines_cut, "errors": self.errors}

    def _remember(self, message: str, position: int) -> None:
        facts = self._context.get(message)
        if facts is None:
            facts = self._context_facts(message)
            if len(self._context) >= self.memo_size:  # a context line per GPU in real logs: rarely full
                self._context.clear()
            self._context[message] = facts
        for pci, uuid in facts:
            self._last_pci = (position, pci)
            if uuid is not None:
                if pci not in self.uuids and len(self.uuids) >= MAX_UUIDS:
                    del self.uuids[next(iter(self.uuids))]
                    self.uuid_evictions += 1
                self.uuids[pci] = uuid

    @staticmethod
    def _context_facts(message: str) -> tuple[tuple[str, str | None], ...]:
        """What a context line says: (pci, its GPU UUID or None) per CONTEXT row that matches, in order."""
        out = []
        for keyword, pattern in CONTEXT:
            if keyword in message:
                m = pattern.search(message)
                if m:
                    pci = normalize_pci(m.group("pci"))
                    if pci:
                        out.append((pci, m.groupdict().get("uuid")))
        return tuple(out)

    def _build(self, rule: Rule, m: re.Match, message: str) -> Template:
        refine, detail_groups, pci_kind, any_rank, event_if, plan, function = self._row_plans[rule.name]
        groups = m.groupdict()  # a group that took no part is None (the refiners and this read them with .get)
        kind, severity, attribution, action, details = rule.kind, rule.severity, rule.attribution, rule.action, {}
        if refine is not None:  # (its "kind": another the line's words are, rules.CUDA_ERRORS)
            out = {"kind": kind, "severity": severity, "attribution": attribution, "action": action, "details": details}
            refine(groups, out)
            kind, severity, attribution, action = out["kind"], out["severity"], out["attribution"], out["action"]
        if rule.restates is not None:  # the row's line says again another program's (rules.Rule.restates)
            details["restates"] = rule.restates
        get = groups.get
        for key in detail_groups:
            value = get(key)
            if value is not None:
                number = _int(value)
                details.setdefault(key, number if number is not None else value.strip()[:256])
        # (one argument where the function is dropped: lru_cache keys a lone str by itself, two arguments by a tuple it
        # builds and hashes, ~250 instructions a line more)
        pci = normalize_pci(get("pci"), True) if function else normalize_pci(get("pci"))
        needs_pci = pci is None and pci_kind
        if needs_pci:
            pci = find_pci(message, function)
        # a group the row lacks or that took no part is None: no call for it (most rows have one or two)
        xid, sxid, pid, process, rank = get("xid"), get("sxid"), get("pid"), get("process"), get("rank")
        tagged = None  # the rank a serving engine's worker tag names (parsers.workers), a launcher's prefix's peer
        of_line = None  # _rank_of(m), read here once: the event key of an event kept per rank takes it (_event_key)
        if any_rank:
            if rank is None:
                rank = _rank_named(message)  # _rank_of(m): the row has no rank group (m.string is message)
            if "[rank" not in message:  # torch's own "[rankN]:" after a worker's tag is the inner prefix: it wins
                tagged = tag_rank(message)
            of_line = str(tagged) if tagged is not None else rank or ""
        # a rank inside a subgroup's line is that group's: kept in details, never global (message_rank names a group
        # only from a "[PG " tag)
        if rank is not None and "[PG " in message:
            launcher, group, group_rank = message_rank(message)
            if group is not None:
                details.update(pg=group, group_rank=group_rank)  # the tag's (the rank read may be the launcher's)
                rank = None if launcher is None else str(launcher)
        elif rank is not None and "[rank" in message:
            # a bare "[Rank N]" is the rank in the work's group (pytorch/pytorch #134006), torch's own "[rankM]:" prefix
            # the global rank: where they differ the prefix wins, N kept as the group's (NVIDIA/nccl #1610: global rank
            # 13's "[Rank 1] Watchdog caught .." was rank 1's, an event apart from its other lines'; as triage.ranks)
            launcher = _LAUNCHER_RANK.search(message)
            if launcher is not None and launcher.group(1) != rank and f"[Rank {rank}]" in message:
                details["group_rank"] = int(rank)
                rank = of_line = launcher.group(1)
        if tagged is not None:  # the worker's global rank, over a bare "[Rank N]" (the work's group's, as triage reads)
            rank = str(tagged)
        fields = (kind, severity, attribution, action, message,  # _TEMPLATE_FIELDS order
                  None if xid is None else xid_row(xid).code, None if sxid is None else sxid_row(sxid).code, pci,
                  None if pid is None else _int(pid), process and process.strip() or None,
                  None if rank is None else _int(rank), get("peer"), details)
        event = rule.event
        if event_if is not None:  # the line's event is the one its group's value names (rules.Rule.event_if), if any
            chosen = event_if[1].get(get(event_if[0]))
            if chosen is not None:
                event, plan = chosen
        if event is None:
            return fields, needs_pci and pci is None, None, None
        return fields, needs_pci and pci is None, _event_key(rule, m, of_line, pci, event), plan


def _detail_groups(pattern: re.Pattern) -> tuple[str, ...]:
    """A row's named groups that go into a finding's details as they are (in the pattern's order): its RowPlan's."""
    return tuple(k for k in pattern.groupindex if k not in _NOT_DETAILS)


# The kinds a job prints (NCCL, CUDA): a PyTorch rank tag on the line ("[rank1]:", "[PG ID 0 .. Rank 1]") is the
# finding's rank whichever row matched it ("[rank1]:[E..] [PG ..] Process group watchdog thread terminated with
# exception: CUDA error: ..").
_WORKLOAD = frozenset(k.name for k in KIND_TABLE if k.workload)

# A rank on a PyTorch line: "[Rank 3]", "[PG 0 Rank 144]", "[PG ID 0 PG GUID 0(default_pg) Rank 7]", or
# torchrun's "[rank3]:" prefix; TensorRT-LLM's Python logger's "[TRT-LLM] [RANK 0] [E] .." (as triage.ranks reads it:
# its IN_MESSAGE and trtllm row), and its executor worker's failure to start, which names the MPI rank it failed on
# (tensorrt_llm/executor/worker.py worker_main: f"Failed to initialize executor on rank {mpi_rank()}: {e}"): "[TRT-LLM]
# [E] Failed to initialize executor on rank 3: [TensorRT-LLM][ERROR] CUDA runtime error in .." (NVIDIA/TensorRT-LLM
# #4708), 2026's "[TRT-LLM] [E] [executor] Failed to initialize executor on rank 0: .." (NVIDIA/Model-Optimizer #1933)
_RANK = LazyPattern(r"\[(?:PG [^\]\n]{0,80}?)?(?:Rank|RANK) (\d{1,9})\]|\[rank(\d{1,9})\]:"
                    r"|Failed to initialize executor on rank (\d{1,9}): ")
# ProcessGroupNCCL's log prefix names the process group and the rank *in that group*, in each era's shape:
#   2.2-2.3 "[PG <n> Rank <r>]"                    n: the process's count of groups made, 0 the default group's
#   2.4     "[PG <name> (<desc>) Rank <r>]"        name: the group's name, "0" the default's; desc left out when
#                                                   "undefined", "default_pg" for the default group
#   2.5+    "[PG ID <n> PG GUID <name>(<desc>) Rank <r>]"
# Only the default group's rank is the global rank; any other group's is not (PG 134's rank 1 may be global rank 12).
# 2.5+'s GUID is the group's name, the same on every rank of it; its ID is the count of groups this process made, which
# two ranks may share for two different groups (NVIDIA/nccl #1610: "[PG ID 11 PG GUID 119 Rank 1]" on global rank 13,
# "[PG ID 11 PG GUID 112 Rank 0]" on rank 15): where the tag prints a GUID, the GUID names the group
_PG_TAG = LazyPattern(r"\[PG (?:ID )?(?P<id>[^\s\]()]{1,64})(?: PG GUID (?P<guid>[^\s\]()]{1,64}))?"
                      r"(?P<rest>[^\]\n]{0,160}?) ?Rank (?P<rank>\d{1,9})\]")
_PG_DESC = LazyPattern(r"\((?P<desc>[^()\]\n]{0,128})\)")
_LAUNCHER_RANK = LazyPattern(r"\[rank(\d{1,9})\]:")
DEFAULT_PG_DESC = "default_pg"


def default_group(pg_id: str, rest: str = "") -> bool:
    """Whether a "[PG ...]" tag names the default (world) group: its description says so, or, where it prints
    none, its id is 0."""
    desc = _PG_DESC.search(rest)
    if desc is not None:
        return desc.group("desc").strip() == DEFAULT_PG_DESC
    return pg_id == "0"


def _group_name(tag: re.Match) -> str:
    return tag.group("guid") or tag.group("id")


def pg_name(text: str) -> str | None:
    """The process group the first "[PG ...]" tag of `text` names (any group, the default one's "0" too): its GUID
    where the tag prints one (2.5+), else its id; None without a tag."""
    tag = _PG_TAG.search(text) if "[PG " in text else None
    return None if tag is None else _group_name(tag)


def _rank_named(text: str) -> str | None:
    """The rank `_RANK` finds on a line (the digits of whichever of its shapes matched first), or None."""
    found = _RANK.search(text)
    return None if found is None else found.group(found.lastindex)


def message_rank(text: str) -> tuple[int | None, str | None, int | None]:
    """(global rank, process group, rank in that group) a PyTorch line names: torchrun's "[rankN]:" prefix, else a
    serving engine's worker tag at its start ("(VllmWorker rank=3 pid=..)", "[... TP2]": parsers.workers), else the
    default group's "[PG 0 Rank N]" / "[PG ID 0 PG GUID 0(default_pg) Rank N]", else a bare "[Rank N]".  When
    the line's "[PG ...]" tag is another group's, the group (its GUID where printed, else its id) and the rank in it
    come back and only the launcher's prefix gives a global rank: every "[Rank N]" on that line is the group's too."""
    launcher = _LAUNCHER_RANK.search(text)
    glob = int(launcher.group(1)) if launcher else tag_rank(text)  # else a serving engine's worker tag's
    tag = _PG_TAG.search(text) if "[PG " in text else None
    if tag is not None and not default_group(tag.group("id"), tag.group("rest")):
        return glob, _group_name(tag), int(tag.group("rank"))
    if glob is None:
        found = _rank_named(text)
        if found is not None:
            glob = int(found)
    return glob, None, None


def _rank_of(m: re.Match) -> str:
    """The rank a line is about (its row's `rank` group, else one named anywhere on it), or ""."""
    text = m.string
    if "[rank" not in text:  # a worker's tag names its process, over a bare "[Rank N]" (as _build reads it)
        tagged = tag_rank(text)
        if tagged is not None:
            return str(tagged)
    rank = m.groupdict().get("rank")
    if rank is None:
        rank = _rank_named(text)
    return rank or ""


def _event_key(rule: Rule, m: re.Match, rank: str | None = None, pci: str | None = None,
               event: tuple[str, str] | None = None) -> tuple[str, str, str] | None:
    """The open-event key of a rule's line: the event's name (a tuple of each one's for a row of several), and for
    events kept per device (rules.EVENT_PER_DEVICE, EVENT_PER_FINDING_DEVICE) the device's PCI address too, for events
    kept per rank (EVENT_PER_RANK) the rank, for those kept per a group's text (EVENT_PER_GROUP) that text; its role;
    the row (a stage of a "once" event).  `rank`: `_rank_of(m)` where the caller read it already; `pci`: the line's
    finding's address (None: a kind-None row's line); `event`: the line's (name, role) where its row's `event_if` chose
    it, else the row's."""
    if event is None:
        event = rule.event
        if event is None:
            return None
    name, role = event
    if role == "state":
        return name, role, (m.group("stated") or "").lower()
    if role == "quiet":  # the disk it names, and whether it is quiet (removable, no medium) or a fixed disk's
        groups = m.groupdict()
        device = groups.get("device") or groups.get("old_device") or ""
        quiet = bool(groups.get("medium") or groups.get("removable") or groups.get("old_removable"))
        return f"{name} {device}", role, quiet
    if role == "begin":  # the events it ends or states (none kept per device), the word it stated, its die counter
        groups = m.groupdict()
        return tuple(name.split("|")), role, ((m.group("stated") or "").lower(), groups.get("die"), groups.get("function"))
    groups = None  # m.groupdict(), read once where the key needs a group (a row of several events: not once a name)
    if role in ("page", "follows"):  # the page the line names: a "page" row's address, a "follows" row's pfn
        groups = m.groupdict()
        value = groups.get("page" if role == "page" else "pfn")
        stage = int(value, 16) if value is not None else None
        rank = pci = None  # (its device the line's group, its rank read from anywhere on it)
    else:
        stage = rule.name
    several = "|" in name  # a row of several events (a "within" row's, a "page" row's): its key in each
    keys = []
    for one in name.split("|") if several else (name,):  # each event's name, with the device or rank it is kept per
        if one in EVENT_PER_FINDING_DEVICE:  # the finding's address ("" for a line of none: the newest open, _in_event)
            one = f"{one} {'' if several else pci or ''}"
        elif one in EVENT_PER_DEVICE:
            if groups is None:  # the full PCI address, function included: one event per function
                groups = m.groupdict()
            address = groups.get("pci") or groups.get("device")
            device = (address or groups.get("netdev") or "").lower()
            if one in EVENT_PER_GPU:  # a GPU's: its normalized address ("" when the line names none)
                # as printed ("PCI:" is upper case), normalized with the arguments _build gives it for the same group
                # (a GPU's kind drops the function), so the line's address is one lru_cache entry, not a second
                # normalization
                device = normalize_pci(address) or ""
                if one in EVENT_PER_GPU_INDEX:  # and its index ("GPU6"), as the line names it (Classifier._gpu_key)
                    named = groups.get("device")
                    index = named if named is not None and named[:3] == "GPU" else None
                    if index is None and device:
                        found = _GSP_INDEX.search(m.string)
                        if found is not None:
                            index = "GPU" + (found.group("index") or found.group("gsp_index"))
                    if index is not None:
                        device = f"{device}={index}" if device else index
            one = f"{one} {device}"
        elif one in EVENT_PER_RANK:
            one = f"{one} {_rank_of(m) if rank is None else rank}"
        elif one in EVENT_PER_GROUP:
            if groups is None:
                groups = m.groupdict()
            one = f"{one} {groups.get(EVENT_PER_GROUP[one]) or ''}"
        keys.append(one)
    return (tuple(keys) if several else keys[0]), role, stage


_GSP_INDEX = LazyPattern(GSP_GPU_INDEX)


def _whole_disk(key: str) -> str:
    """The disk an event key's device is, or is a partition of ("fs sdd1" -> "sdd"; a "quiet" line names sdX disks)."""
    return key.partition(" ")[2].rstrip("0123456789")


# the Finding fields a template fixes, in the Finding's own order (the rest come from the line: envelope, position)
_TEMPLATE_FIELDS = ("kind", "severity", "attribution", "action", "message", "xid", "sxid", "pci", "pid", "process",
                    "rank", "peer", "details")
_TEMPLATE_INDEX = {name: i for i, name in enumerate(_TEMPLATE_FIELDS)}
# what a joining line may give its event's finding (rules.EVENT_FILLS): a field a line's template holds, never one the
# event's finding is (its kind, severity, message)
_FILLABLE = frozenset({"xid", "sxid", "pci", "pid", "process", "rank", "peer"})


def _stream_fields() -> tuple[str, ...]:
    """The attributes of a classifier's stream context: those `Classifier._new_stream` sets (the line count aside: the
    input's), so a context switched per host (Classifier._to_host) is all of it, whatever is added there."""
    probe = object.__new__(Classifier)  # (its slots unset: those _new_stream sets are the ones it has after)
    Classifier._new_stream(probe)
    return tuple(name for name in Classifier.__slots__ if name != "_count" and hasattr(probe, name))


_STREAM_FIELDS = _stream_fields()
_save_stream = attrgetter(*_STREAM_FIELDS)


def check_tables() -> None:
    """The tables' own checks, at import: a ValueError of one line naming the entries at fault (real errors, not
    asserts: those are gone under `python -O`)."""
    if not CONTEXT_LEAD or set(CONTEXT_LEAD) & set(".^$*+?{}[]\\|()"):
        raise ValueError(f"parsers/classify.py: CONTEXT's keywords share no literal lead ({CONTEXT_LEAD!r})")
    if astray := [k for k, p in CONTEXT if not p.pattern.startswith(CONTEXT_LEAD)]:
        raise ValueError(f"parsers/classify.py: CONTEXT regexes not starting with {CONTEXT_LEAD!r}: {', '.join(astray)}")
    if (order := [f for f in Finding.__dataclass_fields__ if f in _TEMPLATE_FIELDS]) != list(_TEMPLATE_FIELDS):
        raise ValueError(f"parsers/classify.py: _TEMPLATE_FIELDS not in the Finding's order: {', '.join(order)}")
    if unfillable := sorted(f"{event}: {one}" for event, takes in (*EVENT_FILLS.items(), *EVENT_FILL_SAME.items())
                            for one in takes if one not in _FILLABLE):
        raise ValueError("parsers/classify.py: EVENT_FILLS / EVENT_FILL_SAME fields no template may take: "
                         + ", ".join(unfillable))


check_tables()


def _template_of(kind: str, severity: str, attribution: str, action: str, message: str, details: dict,
                 xid: int | None = None, sxid: int | None = None, pci: str | None = None, pid: int | None = None,
                 process: str | None = None, rank: int | None = None, peer: str | None = None) -> tuple:
    """The fields a template fixes as the memo keeps them: a tuple in _TEMPLATE_FIELDS order."""
    return kind, severity, attribution, action, message, xid, sxid, pci, pid, process, rank, peer, details


def parse_line(line: str, year: int | None = None) -> Finding | None:
    """Convenience: classify one line with a fresh classifier (no cross-line context)."""
    return Classifier(year=year).classify(line)

