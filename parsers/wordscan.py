"""Regexes compiled when first used (LazyPattern), and one regex that finds any of a set of literal words, as a trie: `NVRM: |NCCL |NET/IB|...` becomes
`N(?:VRM: |CCL |ET/IB)...`.

Python's `re` tries every alternative of a flat alternation at each position whose character starts one of
them; the trie tries each character once per position.  On a kernel line that holds no keyword (most of
them) the scan is about 3x cheaper; `findall` over a line that holds some, about 2x.  At any position the
longest word there matches (the same as a flat alternation sorted longest first); tested against one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Iterable

from .bounded import Derived


def word_regex(words: Iterable[str]) -> str:
    """The pattern source of a regex matching any of `words` (empty words are left out)."""
    trie: dict = {}
    for word in words:
        if word:
            node = trie
            for ch in word:
                node = node.setdefault(ch, {})
            node[""] = {}  # a word ends here
    return _emit(trie) if trie else "(?!)"


def _emit(node: dict) -> str:
    branches = [re.escape(ch) + _emit(sub) for ch, sub in sorted(node.items()) if ch]
    if not branches:
        return ""
    group = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if "" in node:  # a word ends here and longer ones go on: the longer one first (greedy), else this one
        return (group if group.startswith("(?:") and len(branches) > 1 else "(?:" + group + ")") + "?"
    return group


# Characters of log text, commonest first (counted over the test fixtures' real logs and bench/gen_log's mix); any
# other character is rarer than these.  `entry_points` chooses by it where `presence_regex` and `KeywordScan` enter
# each word.  The comma and the semicolon come first with the space: every /dev/kmsg record (the agent's kernel log)
# starts with three and one ("4,1234,1234000,-;"), which the fixtures' syslog lines lack; a word entered there was tried
# at each of them, on every record (bench/inprocess.py --instructions: ~4k instructions a record of the search's ~7k).
# The brackets stay where the fixtures' counts put them, though every dmesg line's timestamp holds one of each: ranked
# with the space, `] trap ` was entered at its "p" instead, which the fixtures' real lines hold 2 to 5 times as often
# ("gpu" hosts, "pid", "pci"), and the search of those lines was 3-8% slower (dmesg ones alike).
CHAR_FREQUENCY = (" ,;02e1to:nrdsa6-i354.7pml89cuN][TCIFk/Ogv_EfbZh=PLx|()S\"BMDyUA>wRHQ<GVXqWY+'J#`z*{}Kj!@%?^\\~&$")
_RANK = {ch: i for i, ch in enumerate(CHAR_FREQUENCY)}


def presence_regex(words: Iterable[str]) -> str:
    """`_presence_regex` of the words, derived once per set of words (each Classifier made without a prefilter makes
    its own Prefilter: `parse_line`, the cluster component's reader, tests)."""
    return _presence_regex(tuple(words))


@lru_cache(maxsize=8)
def _presence_regex(words: tuple[str, ...]) -> str:
    """The pattern source of a regex that matches a text iff one of `words` occurs in it (a search's truthiness;
    where, and which word, left open).

    A scan tries the pattern at every position whose character can start it: with `word_regex`'s trie, each word's
    first character, and with some 260 keywords those are most letters and the space, so nearly every position of a
    line is tried (a kern.log prefix `Nov 25 06:00:00 gpu-node-1 kernel: ` alone, about 25 times).  Here each word is
    entered at one character of a small set that covers them all (`entry_points`, as `KeywordScan`'s): the trie holds
    the words' tails from that character, and a lookbehind confirms the whole word where a tail ends (`mlx5_core` is
    `x5_core(?<=mlx5_core)`), so only the positions with such a character are tried.  Each try walks the pattern's
    top-level alternatives, one per entry character, to the last where none matches (most tries): entering each word at
    its own rarest character took some 50 of them (every letter but a few, "]" for `] trap `: a try at each dmesg
    line's timestamp), the set 17, a few of them commoner (`r`, `l`, `u`), which cut the search's cost on the
    fixtures' real lines by two fifths (1.08 -> 0.63 us a line; alternatives walked a line, at most: ~810 -> ~210).  A
    word holding another word is left out (the shorter one occurs wherever it does)."""
    by_length = sorted({w for w in words if w}, key=len)
    kept: list[str] = []
    for word in by_length:
        if not any(k in word for k in kept):
            kept.append(word)
    trie = _entry_trie(entry_points(kept))
    return _emit_tails(trie, "") if trie else "(?!)"


def _entry_trie(at: dict[str, int]) -> dict:
    """The words entered where `at` says: a trie of each word's tail from its entry character, each node where tails
    end holding (key "") the heads before those entry characters (a lookbehind confirms them)."""
    trie: dict = {}
    for word, i in at.items():
        node = trie
        for ch in word[i:]:
            node = node.setdefault(ch, {})
        node.setdefault("", set()).add(word[:i])
    return trie


def _emit_tails(node: dict, tail: str) -> str:
    """`node`'s tails (`tail`: the characters from the entry character to it); where words end, each word's head
    as a lookbehind over the whole word, none where a word starts at its entry character (it occurs: matched)."""
    heads = node.get("")
    if heads is not None and "" in heads:  # a word whole from its entry character ends here: matched
        return ""
    branches = [f"(?<={re.escape(head + tail)})" for head in sorted(heads or ())]
    branches += [re.escape(ch) + _emit_tails(sub, tail + ch) for ch, sub in sorted(node.items()) if ch]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


class LazyPattern:
    """A rule's regex, compiled the first time a line needs it (`search`, or any attribute of re.Pattern): a
    process start compiles none of the table's ~100 regexes (tens of ms), a big log only the rows its lines reach.
    Once compiled, `search`, `match` and `findall` (the methods a line's path calls: rows, envelopes, Dispatch's keyword
    scan) are the compiled pattern's own bound methods: no cost per call; any other public attribute of re.Pattern is a property
    that compiles it (set below the class).  No `__getattr__`: a class with one routes every attribute read, the
    slots above included, through a slower hook that CPython's attribute caches cannot specialize (~25 ns per
    `rule.pattern.search` on a line's path)."""

    __slots__ = ("pattern", "flags", "search", "match", "findall", "_re")

    def __init__(self, pattern: "str | bytes | Callable[[], str]", flags: int = 0):
        """`pattern`: the source, or a function giving it (a word trie: derived when first needed too)."""
        self.pattern, self.flags, self._re = pattern, flags, None
        self.search, self.match, self.findall = self._search, self._match, self._findall

    def compiled(self):
        if self._re is None:
            if callable(self.pattern):
                self.pattern = self.pattern()
            self._re = re.compile(self.pattern, self.flags)
            self.search, self.match, self.findall = self._re.search, self._re.match, self._re.findall
        return self._re

    def _search(self, *args):
        return self.compiled().search(*args)

    def _match(self, *args):
        return self.compiled().match(*args)

    def _findall(self, *args):
        return self.compiled().findall(*args)


for _name in dir(re.Pattern):  # groupindex, match, finditer, ...: the compiled pattern's
    if not _name.startswith("_") and _name not in LazyPattern.__slots__:
        setattr(LazyPattern, _name, property(lambda self, _name=_name: getattr(self.compiled(), _name)))
del _name


def entry_points(words: Iterable[str]) -> dict[str, int]:
    """Where `KeywordScan` and `presence_regex` enter each word: at a character of a small set that covers every word,
    chosen for how rarely its characters occur in log text (CHAR_FREQUENCY, taken as Zipf-distributed: the character of
    rank r occurs about 1/(r+1) as often as the commonest), greedily: the character that enters the most words left per
    unit of frequency first.  A search is tried at each position holding one of the set's characters, and each try
    walks the pattern's alternatives (one per character of the set), so a set of some 20 characters, some of them a
    little commoner than each word's own rarest, is cheaper than each word's rarest (some 40)."""
    words = sorted({w for w in words if w})
    rank = lambda ch: _RANK.get(ch, len(_RANK))  # noqa: E731
    chosen: set[str] = set()
    left = set(words)
    while left:
        counts: dict[str, int] = {}
        for word in left:
            for ch in set(word):
                counts[ch] = counts.get(ch, 0) + 1
        best = max(counts, key=lambda ch: (counts[ch] * (rank(ch) + 1), rank(ch), ch))
        chosen.add(best)
        left = {w for w in left if best not in w}
    return {w: min((i for i, ch in enumerate(w) if ch in chosen), key=lambda i: (-rank(w[i]), i)) for w in words}


def occurrence_regex(at: dict[str, int]) -> str:
    """The pattern source of a regex whose matches are occurrences of words (`at`: each word and where it is entered,
    `entry_points`): a match spans a word from its entry character to its end, its head confirmed by a lookbehind
    (`mlx5_core` as `x5_core(?<=mlx5_core)`).  At one position the longest tail is tried first, and of the words
    ending together the longest first (a word holding another before the one it holds)."""
    trie = _entry_trie(at)
    return _emit_occurrences(trie, "") if trie else "(?!)"


def _emit_occurrences(node: dict, tail: str) -> str:
    branches = [re.escape(ch) + _emit_occurrences(sub, tail + ch) for ch, sub in sorted(node.items()) if ch]
    branches += [f"(?<={re.escape(head + tail)})" if head else ""
                 for head in sorted(node.get("", ()), key=lambda h: (-len(h), h))]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _found(at: dict[str, int], tail: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The text of a scan match (a word's entry character and the rest of it, `occurrence_regex`) -> (the words known to
    occur, the words to test with `in`), each derived at its first match (a process derives the few its lines hold):
    - the match's word, where no other word has that tail: known; where some do, each of them to test (the regex
      confirmed one of them, the one with the longest head there);
    - each word entered at the same character whose tail is shorter and a head of the match's (at one position the
      regex gives one word, the longest tail first), to test, but where every word of the match's tail holds it (then
      it occurs wherever they do, and a word selects the rows of the words it holds).
    Both are empty or short for nearly every match: the rule table's words share few tails."""
    sharing = [w for w, i in at.items() if w[i:] == tail]
    shorter = [w for w, i in at.items() if len(w) - i < len(tail) and tail.startswith(w[i:])
               and not all(w in s for s in sharing)]
    return ((sharing[0],), tuple(shorter)) if len(sharing) == 1 else ((), tuple(sharing + shorter))


class ScanFailures:
    """The scans an engine (hyperscan, RE2) raised on, each done again without it (nothing lost, the scan slower):
    `count` (gpu_npd_scan_failures_total), the first said in one log line (not one a line, nor a buffer).  One a
    scanner: a Prefilter's buffers (`prefilter.Prefilter.failures`), a KeywordScan's texts (`KeywordScan.failures`)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def add(self, scan: str, exc: Exception, instead: str) -> None:
        self.count += 1
        if self.count == 1:
            import logging  # noqa: PLC0415 - a failure's path only: no start-up cost

            logging.getLogger("gpu_npd.parsers").warning("%s raised %s: %s; %s", scan, type(exc).__name__, exc, instead)


class KeywordScan:
    """The keywords that occur in a text, up to words held in those: `words_in` gives every keyword occurring in the
    text or a word that holds it (overlapping occurrences included: in `[PG 1 Rank 6] Timeout at NCCL work`, both
    `] Timeout` and `Timeout at NCCL work`), where a trie's `findall` (`word_regex`: at the leftmost position where
    one starts, the longest, then on from its end) keeps one of two overlapping words and hides the other, and so the
    rows of the other.  Callers that take a word for every word it holds (Dispatch: a word selects the rows of the
    keywords it contains) get every row one of whose keywords occurs.

    Each word is entered at one character of a small, rare set (`entry_points`): the scan is one `findall` whose
    match consumes one such character and reads, in a lookahead from it, the word entered there (`occurrence_regex`:
    its tail, its head confirmed by a lookbehind), so every position holding an entry character is tried, those
    inside another word's occurrence too (overlapping words are each found at their own), and the loop over the
    matches is `re`'s, in C.  At one position the regex gives one word; the others entered there, and the words
    sharing its tail, are looked up beside it (`_found`, kept per match text: `bounded.Derived`; rare in real text).  A match consuming the whole word (the
    scan before this one) skipped the positions inside it, and looked up every word that could overlap it, in Python,
    per match: slower on bench/perline.py's memo-miss cases (timed by hand on a loaded host for commit 2e55666; no
    committed bench result holds the figure).

    Measured with callgrind when FIRST_TEXTS was chosen (commit 021ff7b, whose message gives the hard slice's
    instructions before and after, not these parts): deriving the scan costs some 20 ms (most of it `re` compiling
    the occurrence regex; 267 M instructions for the rule table's 479 words), testing each word with `in` some
    35 us a text and the derived scan some 10 us: the first
    FIRST_TEXTS texts are looked up word by word, which finds every word occurring (what the scan finds, up to words
    held in those), and the scan is derived once they have cost about what deriving it does (both grow with the
    number of words, so the count holds as the table grows), so that a log whose lines rarely need the scan never
    derives it (the buffer engines name the rows a line matched: 123 texts in the hard log's first 200,000 lines)
    and a log that needs it for most lines pays at most twice the least it could.

    The rule table's scan (`classify._dispatch_tables`) is derived on hyperscan where it is installed (`engine`:
    `prefilter.hyperscan_words_in`, a third of this scan's instructions a message); this one where it is not.
    There the derive is a cached database loaded (~0.8 ms, ~60 us a text word by word: 603 words), yet the count
    stays: no real log in tests/fixtures reaches the scan in more than 72 texts (bench/parse.py's small log, 6), so
    16 texts saved ~1 ms on that one, cost ~0.7 ms on one of 31 (both within the noise) and changed no bench row
    (perline derives the scan before counting)."""

    FIRST_TEXTS = 512  # texts looked up word by word before the scan is derived (20 ms / 35 us, rounded down)

    def __init__(self, words: Iterable[str],
                 engine: "Callable[[list[str], ScanFailures], Callable[[str], list[str]] | None] | None" = None):
        """Derived when first used (a process start derives nothing).  `engine`: derives the scan on another engine
        from the words (`prefilter.hyperscan_words_in`: each word occurring, once; the texts it failed on counted in
        `failures`), or gives None (then `re`'s)."""
        self._words = sorted({w for w in words if w}, key=len, reverse=True)
        self._engine = engine
        self.failures = ScanFailures()  # texts the engine's scan raised on (each word tested with `in` instead)
        self._plain_left = self.FIRST_TEXTS
        self.words_in = self._plain_words_in

    def _plain_words_in(self, text: str) -> list[str]:
        """`words_in` before the scan is derived: each word tested with `in` (see the class)."""
        if self._plain_left > 0:
            self._plain_left -= 1
            return [w for w in self._words if w in text]
        return self._derive().words_in(text)

    def _derive(self) -> "KeywordScan":
        words_in = self._engine(self._words, self.failures) if self._engine is not None and self._words else None
        if words_in is not None:
            self.words_in = words_in
            return self
        at = entry_points(self._words)
        if not at:  # no words: none occurs
            self.words_in = lambda text: []
            return self
        entries = "".join(sorted({w[i] for w, i in at.items()}))
        # the character class first: `re` skips, in its search loop, to a position holding one (a pattern that opens
        # with the lookahead gets no such skip: 2.6x the cost); the lookbehind of one character steps back onto it
        # for the lookahead, which reads the match's text from there (a group in a lookaround is kept)
        findall = re.compile(f"[{re.escape(entries)}](?<=(?=({occurrence_regex(at)})).)", re.S).findall
        found_by = Derived(lambda tail: _found(at, tail))

        def words_in(text: str) -> list[str]:
            found: list[str] = []
            for tail in findall(text):
                known, test = found_by[tail]
                found += known
                for word in test:
                    if word in text:
                        found.append(word)
            return found

        self._findall, self.words_in = findall, words_in
        return self


def required_literals(pattern: str, flags: int = 0) -> tuple[str, ...]:
    """The runs of literal characters that every match of the regex `pattern` holds, in order: its top-level
    literals and those of its plain groups, read across groups and zero-width assertions (they consume nothing);
    a branch, a repeat, a class or a case-insensitive part ends a run (none for a case-insensitive regex).  Where a
    run does not occur in a text, the regex cannot match it: one substring test instead of a search that fails."""
    from re import _constants as c, _parser  # noqa: PLC0415 - derived for a row when a line first reaches it

    parsed = _parser.parse(pattern, flags)
    if parsed.state.flags & re.IGNORECASE:
        return ()
    runs: list[str] = []
    run: list[str] = []

    def walk(items) -> None:
        for op, av in items:
            if op is c.LITERAL:
                run.append(chr(av))
            elif op is c.SUBPATTERN and not av[1] and not av[2]:  # a group adding or removing no flag
                walk(av[3])
            elif op in (c.ASSERT, c.ASSERT_NOT, c.AT):  # zero-width: the characters either side are adjacent
                continue
            else:
                runs.append("".join(run))
                run.clear()

    walk(parsed)
    runs.append("".join(run))
    return tuple(r for r in runs if r)
