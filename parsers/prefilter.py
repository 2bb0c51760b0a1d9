"""Find the lines worth classifying, fast, and which rules may match them.

Whole buffers are scanned by a multi-pattern engine: hyperscan where its wheel exists, else
google-re2, else the standard library's `re` (always there; slower on big files).
`GPU_NPD_MATCHER=hyperscan|re2|re` forces one.  Single records (the agent's kmsg path) are
checked with a compiled `re` pattern, which is cheapest for short strings; `re` (records, and buffers
when it is the engine) searches for the keywords as `wordscan.presence_regex` writes them, entered
at one character of a small rare set that covers them all.

With `patterns` (the rules' own regexes, derived from the rule table by `parsers.classify.line_patterns`),
hyperscan and RE2 scan for those instead of the keywords, in the byte form `byte_superset` derives: a line
reaches Python only when some rule's regex (or that superset of it) matches it, so benign lines that merely
carry a vendor keyword cost what grep pays for them, and each line comes with the ids of the patterns that
matched it, so the classifier tries only those rows.  The `re` engine stays the keyword reference (ids None).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import threading  # (threading.local: every program has it loaded already, click's `gpu-npd` and the agent's threads)
# BLAKE2 from its own module, not hashlib: hashlib loads OpenSSL's digests (libcrypto) at import, ~2% of the
# start-up of `gpu-npd parse` of a small log, for a cache key (hashlib's, the same function, where an interpreter
# lacks CPython's private module)
try:
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - not CPython
    from hashlib import blake2b
from typing import Callable, Collection, Iterable, Iterator

from .wordscan import LazyPattern, ScanFailures, presence_regex

ENGINES = ("hyperscan", "re2", "re")


def _load(engine: str):
    if engine == "hyperscan":
        import hyperscan  # type: ignore[import-not-found]
        return hyperscan
    if engine == "re2":
        import re2  # type: ignore[import-not-found]
        return re2
    return re


Span = tuple[int, int, "Collection[int] | None"]


class Prefilter:
    """Keyword (or rule-regex) prefilter over bytes buffers and str records."""

    def __init__(self, keywords: Iterable[str], engine: str | None = None,
                 patterns: Iterable[tuple[str, bool]] = ()):
        """`patterns`: (Python regex source, caseless) pairs that hyperscan and RE2 scan for instead of the
        keywords; every line they can match must hold a keyword, and the keyword engine stays the exact
        reference."""
        self.keywords = tuple(keywords)
        self.patterns = tuple(patterns)
        self.by_pattern = False  # whether line_spans gives pattern ids (else None: keywords only)
        keywords = self.keywords
        # the same words as `re` finds them cheapest (whether one occurs, not which: each entered at one character of a
        # small rare set), compiled when a record is first looked at
        self._text = LazyPattern(lambda: presence_regex(keywords))
        # the same as bytes, for `re`'s scan of a buffer: the engine where `re` is it, and the scan of a buffer that
        # hyperscan or RE2 failed (`scan_failures`); compiled when first needed (a match lies on its word's line)
        self._bytes = LazyPattern(lambda: presence_regex(keywords).encode())
        self.failures = ScanFailures()  # buffers an engine's scan raised on (each scanned by `re` instead)
        self.find = self._find  # a match where a keyword occurs in a str (which: left open), or None
        wanted = engine or os.environ.get("GPU_NPD_MATCHER") or None
        candidates = (wanted,) if wanted else ENGINES
        last_error: Exception | None = None
        for name in candidates:
            if name not in ENGINES:
                raise ValueError(f"unknown matcher engine {name!r}; choose one of {', '.join(ENGINES)}")
            try:
                module = _load(name)
            except ImportError as exc:
                last_error = exc
                continue
            self.engine = name
            if name == "hyperscan":
                self._init_hyperscan(module)
            elif name == "re2":
                self._init_re2(module)
            return
        raise ImportError(f"matcher engine {wanted!r} is not installed") from last_error

    def _init_hyperscan(self, hs) -> None:
        for exprs, flags, by_pattern in self._hyperscan_tries(hs):
            try:
                self._db, self._scratch = _hyperscan_db(hs, exprs, flags)
            except hs.error:
                continue
            self.by_pattern = by_pattern
            return
        self.engine = "re"  # hyperscan refused even the keywords: `re`'s scan, not an AttributeError at every buffer

    def _hyperscan_tries(self, hs) -> Iterator[tuple[list[bytes], list[int], bool]]:
        """(expressions, flags, by_pattern) for hyperscan, in order, until it takes one: the patterns' byte forms as
        they are; in prefilter mode, should a hyperscan build refuse some part of them; the keywords, escaped only
        when reached (some 550 re.escape calls a Prefilter: start-up)."""
        if self.patterns:
            exprs = byte_forms(self.patterns)
            yield exprs, [0] * len(exprs), True
            yield exprs, [hs.HS_FLAG_PREFILTER] * len(exprs), True
        keywords = [re.escape(k).encode() for k in self.keywords]
        yield keywords, [0] * len(keywords), False

    def _init_re2(self, re2) -> None:
        options = re2.Options()
        options.encoding = re2.Options.Encoding.LATIN1  # bytes as they are: the byte form is written for them
        options.max_mem = 64 << 20
        if self.patterns:
            exprs = [re2_form(e) for e in byte_forms(self.patterns)]
            try:
                self._re2 = []
                for ids in re2_groups([re2.compile(e, options).programsize for e in exprs]):
                    # one alternation to find the lines, and a Set to name the patterns that matched one
                    patterns = re2.Set.SearchSet(options)
                    for i in ids:
                        patterns.Add(exprs[i])
                    patterns.Compile()
                    self._re2.append((re2.compile(b"|".join(b"(?:" + exprs[i] + b")" for i in ids), options).search,
                                      patterns.Match, ids))
                self.by_pattern = True
                return
            except re2.error:  # a row RE2 cannot take: keywords, as with the stdlib
                pass
        # the keywords' alternation, escaped only here (as hyperscan's: _hyperscan_tries)
        alternation = "|".join(re.escape(k) for k in self.keywords)
        self._re2 = [(re2.compile(alternation.encode(), options).search, None, None)]

    def _find(self, text: str):
        """`find` until the trie is compiled; then `find` is the compiled pattern's own search."""
        self.find = self._text.compiled().search
        return self.find(text)

    def compile(self) -> "Prefilter":
        """`find`'s regex compiled now, not at the first record: for a long-lived process's start-up (the agent)."""
        self.find = self._text.compiled().search
        return self

    def matches(self, text: str) -> bool:
        return self.find(text) is not None

    @property
    def scan_failures(self) -> int:
        """Buffers an engine's scan raised on, each scanned by `re` instead (gpu_npd_scan_failures_total)."""
        return self.failures.count

    def line_spans(self, buf: bytes, limit: int | None = None) -> Iterator[Span]:
        """(start, end, ids) of each line of `buf[:limit]` (scanned in place) holding a keyword (or matching a
        pattern), once per line, in order; end excludes the newline.  ids: the indexes of the patterns that
        matched the line (a superset of those whose Python regex matches it), or None when the engine scanned
        for keywords.  A scan hyperscan or RE2 raises on (a scratch in use or not allocated, a database of another
        platform, any error of the engine's or its binding's) goes on as `re`'s scan of the keywords from the first
        line not yet given (ids None: the classifier tests the keywords and tries every row, as with `re`): the
        lines it finds are the same, never an exception that costs a source its batch (`_scan_failed`)."""
        size = len(buf) if limit is None else min(limit, len(buf))
        if self.engine == "hyperscan":
            try:
                spans = self._hyperscan_spans(buf, size)
            except Exception as exc:  # noqa: BLE001 - a bug on one input never stops detection
                self._scan_failed(exc)
                spans = self._re_spans(buf, 0, size)
            yield from spans
            return
        if self.engine == "re2":
            yield from self._re2_spans(buf, size)
            return
        yield from self._re_spans(buf, 0, size)

    def _re_spans(self, buf: bytes, pos: int, size: int) -> Iterator[Span]:
        """`re`'s scan of buf[pos:size] for the keywords: each line holding one, ids None."""
        search = self._bytes.search
        while pos < size:
            m = search(buf, pos, size)
            if m is None:
                return
            start = buf.rfind(b"\n", 0, m.start()) + 1
            end = buf.find(b"\n", m.end(), size)
            if end == -1:
                end = size
            yield start, end, None
            pos = end + 1

    def _scan_failed(self, exc: Exception) -> None:
        """Count a buffer an engine's scan raised on (`ScanFailures`: the first said in one line)."""
        self.failures.add(f"the {self.engine} scan of a buffer", exc,
                          "scanned with re instead (counted; later ones are not logged)")

    def _re2_spans(self, buf: bytes, size: int) -> Iterator[Span]:
        """Each group's alternation finds its next line; the first of those lines is yielded, with the ids its
        groups' Sets name, and each group that matched on it searches on from the next line.  Should RE2 raise, or a
        Set name no pattern of a line its group's alternation matched (the same patterns: RE2::Set::Match gives none
        where its DFA ran out of memory, google/re2 re2/set.cc; those ids would be a line with no row to try, lost),
        `re` scans on from the first line not yet yielded (line_spans)."""
        groups = self._re2
        done = 0  # where the lines not yet yielded begin
        try:
            ahead = [search(buf, 0, size) for search, _, _ in groups]  # each group's next match, or None
            while True:
                first = min((m.start() for m in ahead if m is not None), default=None)
                if first is None:
                    return
                start = buf.rfind(b"\n", 0, first) + 1
                end = buf.find(b"\n", first, size)
                if end == -1:
                    end = size
                ids: set[int] | None = None if groups[0][1] is None else set()
                for g, m in enumerate(ahead):
                    if m is not None and m.start() <= end:
                        search, match_set, numbers = groups[g]
                        if match_set is not None:
                            named = match_set(buf[start:end])
                            if named is None:  # a Set whose DFA failed names none (re2/set.cc: "DFA out of memory")
                                raise RuntimeError("an RE2 Set named no pattern of a line its alternation matched")
                            ids.update(numbers[i] for i in named)
                        ahead[g] = search(buf, end + 1, size) if end < size else None
                yield start, end, ids
                done = end + 1
        except Exception as exc:  # noqa: BLE001 - a bug on one input never stops detection
            self._scan_failed(exc)
        yield from self._re_spans(buf, done, size)

    def _hyperscan_spans(self, buf: bytes, size: int) -> list[Span]:
        spans: list = []
        line_end = -1
        ids: set[int] = set()

        def on_match(id_: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
            nonlocal line_end, ids
            if to <= line_end:  # another match on a line already taken: O(1)
                ids.add(id_)
                return
            end = buf.find(b"\n", to, size)
            line_end = size if end == -1 else end
            ids = {id_}
            spans.append((buf.rfind(b"\n", 0, to) + 1, line_end, ids))  # (the set filled by later matches)

        self._db.scan(buf if size == len(buf) else memoryview(buf)[:size], match_event_handler=on_match,
                      scratch=self._scratch.space)
        return spans if self.by_pattern else [(s, e, None) for s, e, _ in spans]


RE2_MAX_COUNT = 64  # the largest upper count RE2 is given; a larger one is left open (see re2_form)
_COUNT = re.compile(rb"\{(\d+),(\d+)\}")


def re2_form(expr: bytes) -> bytes:
    """A byte form as RE2 scans it fastest: a repeat whose upper count exceeds RE2_MAX_COUNT is left open
    (`x{1,256}` is `x{1,}`), a superset.  RE2's DFA holds a state for every count a repeat may be at, so with
    `[^\\n]{0,800}`, `\\w{0,160}` and their like among the rules' forms the DFA of their alternation outgrew its
    memory ("DFA out of memory") on varied lines and RE2 fell back to its NFA: the scan of the real corpus took
    3.9 s, 0.69 s without them (the patterns' ids unchanged), against 0.06 s for `re`'s keyword scan.  A `{` in
    a byte form is always a count: `_byte` writes a literal one as `\\x7b`."""
    return _COUNT.sub(lambda m: m[0] if int(m[2]) <= RE2_MAX_COUNT else b"{" + m[1] + b",}", expr)


RE2_GROUP_SIZE = 20_000  # RE2 program instructions at most in one group of patterns (see re2_groups)


def re2_groups(sizes: list[int]) -> list[list[int]]:
    """The patterns (by index; `sizes`: each one's RE2 program size) in groups of consecutive ones whose sizes add
    up to RE2_GROUP_SIZE at most (`groups_within`), each group scanned by its own alternation.  A DFA state
    is the set of the program's instructions a scan may be at, so one alternation of every rule's form (38,000
    instructions) built new, large states on every varied line: scanning the real corpus again, its DFA built,
    took 0.74 s; as two groups 0.07 s (bench/gen_log.py's hard mix, 200,000 lines of few shapes, 0.22 s -> 0.29 s)."""
    return groups_within(sizes, RE2_GROUP_SIZE)


def groups_within(sizes: list[int], limit: int) -> list[list[int]]:
    """Indexes of `sizes` in groups of consecutive ones whose sizes add up to `limit` at most (a larger one alone)."""
    groups: list[list[int]] = []
    total = 0
    for i, size in enumerate(sizes):
        if not groups or total + size > limit:
            groups.append([])
            total = 0
        groups[-1].append(i)
        total += size
    return groups


_COMPILED: dict[str, tuple[object, "_Scratch"]] = {}


@functools.cache
def _source() -> str:
    """This file's hash: a new byte_superset, new cache keys (read when a cache key is first made, not at import)."""
    with open(__file__, "rb") as fp:
        return blake2b(fp.read(), digest_size=8).hexdigest()


# os.path, not pathlib: pathlib (and the urllib.parse and ipaddress it imports) is ~3 ms of every process start
def _cache_file(name: str) -> str:
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                        "gpu-npd", name)


def _read_cache(path: str) -> bytes:
    with open(path, "rb") as fp:
        return fp.read()


def _write_cache(path: str, data: bytes) -> None:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{os.path.splitext(path)[0]}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fp:
            fp.write(data)
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 - read-only home, no home: fine, derive again next time
        pass


def byte_forms(patterns: tuple[tuple[str, bool], ...]) -> list[bytes]:
    """`byte_superset` of each pattern, kept in the user's cache directory beside the hyperscan database
    (deriving them walks Python's parse trees: ~100 ms a process start; loading them: ~1 ms)."""
    key = blake2b(repr((_source(), sys.version, patterns)).encode(), digest_size=12).hexdigest()
    cache = _cache_file(f"forms-{key}.json")
    try:
        forms = json.loads(_read_cache(cache))
        if isinstance(forms, list) and len(forms) == len(patterns) and all(isinstance(f, str) for f in forms):
            return [f.encode() for f in forms]
    except Exception:  # noqa: BLE001 - absent, unreadable or damaged: derive
        pass
    forms = [byte_superset(p, caseless) for p, caseless in patterns]
    _write_cache(cache, json.dumps(forms).encode())
    return [f.encode() for f in forms]


class _Scratch(threading.local):
    """A hyperscan database's scratch space for each thread (`space`: allocated at a thread's first use, and for the
    thread that makes it, where a failure to allocate one is the database's, an hs.error).  Hyperscan refuses a scan
    a scratch space another thread's scan holds (ScratchInUseError), and a database is shared by every scanner of its
    expressions (`_COMPILED`) on every thread: the pod log source's and the pipeline's; a scan whose space cannot be
    allocated raises as the scan would (the scanner's fallback).  64 KiB a thread for the rule table's database,
    2 KiB for its keywords'; a thread's freed when it ends."""

    def __init__(self, hs, db):
        self.space = hs.Scratch(db)


def _hyperscan_db(hs, exprs: list[bytes], flags: list[int]) -> "tuple[object, _Scratch]":
    """A block-mode database for `exprs` and its scratch spaces (`_Scratch`), compiled once per process and kept
    serialized in the user's cache directory (compiling the rule regexes in prefilter mode takes a few hundred ms;
    loading takes ~1 ms).  A cache that cannot be read or written is simply not used."""
    key = blake2b(repr((hs.__version__ if hasattr(hs, "__version__") else "", exprs, flags)).encode(),
                  digest_size=12).hexdigest()
    if key in _COMPILED:
        return _COMPILED[key]
    cache = _cache_file(f"hs-{key}.db")
    try:
        db = hs.loadb(_read_cache(cache), hs.HS_MODE_BLOCK)
    except Exception:  # noqa: BLE001 - absent, unreadable, stale or from another hyperscan: compile
        db = hs.Database(mode=hs.HS_MODE_BLOCK)
        db.compile(expressions=exprs, ids=list(range(len(exprs))), flags=flags)
        _write_cache(cache, hs.dumpb(db))
        _return_freed_heap()
    compiled = _COMPILED[key] = (db, _Scratch(hs, db))
    return compiled


def _return_freed_heap() -> None:
    """Give the OS back the heap pages a hyperscan compile freed (glibc's malloc_trim; nothing where there is none).
    glibc keeps them: the rule table's 591 keywords, compiled, left 3.1 MiB more anonymous RSS for a database of
    149 KiB, 0.3 MiB once trimmed (2.8 MiB back); an agent whose read-only root keeps no cache compiles in every
    process."""
    try:
        import ctypes  # noqa: PLC0415 - after a compile alone (a cached database costs no import)

        ctypes.CDLL(None).malloc_trim(0)
    except (ImportError, OSError, AttributeError, TypeError):  # no ctypes (a Python built without libffi), not glibc
        pass  # (musl has no malloc_trim), no handle to the process (CDLL(None) off POSIX): the pages stay


def hyperscan_words_in(words: list[str], failures: ScanFailures | None = None) -> "Callable[[str], list[str]] | None":
    """`wordscan.KeywordScan`'s scan on hyperscan: the words occurring in a text, each once (in the order their first
    occurrences end), or None where hyperscan is not installed, another engine is forced (GPU_NPD_MATCHER) or it
    refuses the words: then the scan is `re`'s.  One call a text, its loop in C: on bench/perline.py's mixed kinds'
    messages (some 134 characters) 12.3k instructions a message (callgrind) where `re`'s scan takes 34.4k (its
    findall 31.4k: it enters its pattern, three nested matches deep, at each of the ~22 characters a message holds
    that begin a word's tail; 11.4k of it the search loop and those entries alone, whatever the pattern).
    A scratch space per thread (`_Scratch`): the table's scan is shared by the streams of every thread (the
    pipeline's, the pod log source's).  A scan hyperscan fails (a scratch it cannot allocate, one in use, any error of
    its own) gives the words tested one by one with `in`, the same words: a line is never lost to the engine (raised,
    it would cost the agent its batch); counted in `failures` (the KeywordScan's: gpu_npd_scan_failures_total)."""
    if os.environ.get("GPU_NPD_MATCHER") not in (None, "", "hyperscan") or any("\0" in w for w in words):
        return None  # (a NUL would end the expression hyperscan reads: a C string)
    words = sorted(words)  # one order in every process (a set's follows the string hash): one cached database
    try:
        hs = _load("hyperscan")
    except ImportError:
        return None
    try:
        db, scratch = _hyperscan_db(hs, [re.escape(w).encode() for w in words], [hs.HS_FLAG_SINGLEMATCH] * len(words))
    except hs.error:
        return None
    failed = (failures or ScanFailures()).add

    def on_match(id_: int, _from: int, _to: int, _flags: int, found: list[str]) -> None:
        found.append(words[id_])

    def words_in(text: str) -> list[str]:
        found: list[str] = []
        try:
            db.scan(text.encode("utf-8", "surrogatepass"), match_event_handler=on_match, context=found,
                    scratch=scratch.space)
        except Exception as exc:  # noqa: BLE001 - a bug on one line never stops detection
            failed("the hyperscan keyword scan of a line", exc,
                   "its words tested one by one instead (counted; later ones are not logged)")
            return [w for w in words if w in text]
        return found

    return words_in


# --- the rules' regexes as byte regexes hyperscan and RE2 take ---------------------------------------------------
#
# A rule regex is Python `re` over a decoded line (str, Unicode classes, Unicode case folding); the engines scan the
# undecoded buffer.  `byte_superset` prints Python's own parse tree of the regex (`re._parser`) as a byte regex that
# matches the UTF-8 bytes of every line the rule matches (and maybe more; Python confirms), never across a newline.
# It has only the constructs both engines take: classes, literals, groups, alternation and repeats.
#   - a character is one ASCII byte, or a run of bytes >= 0x80 (any UTF-8 character; an undecodable byte, which
#     the decoder turns into U+FFFD); a class that may match a non-ASCII character also takes such a run;
#   - a bounded repeat of such a class is one class of bytes, its count in bytes (UTF8_WIDTH a character); one with
#     nothing after it but what can match empty keeps its least count only (lo characters take at least lo bytes);
#   - caseless letters become [xX], or where Python's case folding equates the letter with non-ASCII characters,
#     those too as their UTF-8 bytes: `i` is `(?:[iI]|\xc4\xb0|\xc4\xb1)` (İ ı; as any run of bytes >= 0x80, the
#     unclassified net's caseless words left hyperscan short literals: its scan of the hard mix 7% slower);
#   - anchors and word boundaries are dropped (Python's Unicode \b differs from an engine's ASCII one);
#   - a lookahead whose rest of the pattern can match empty is consumed, likewise a lookbehind whose preceding
#     part can; other lookarounds are dropped; atomic groups and possessive repeats are plain ones;
#   - the pattern's leading and trailing parts that can match empty are trimmed, and a trailing `x+` becomes
#     `x`: whether it matches is unchanged, and the engine reports far fewer match ends per line;
#   - a pattern with a gap of any length at its top level (`.*`, `.*?`, `[^)\n]*`) whose rest after the last gap
#     is at least TAIL_WIDTH characters long is that rest alone: a line holding the whole holds the rest, and
#     the engine no longer tracks, on every line holding a common head ("mlx5_core 0000:..", "NVRM: GPU.."), a
#     match that only the rest decides (the new mlx5 rows took 20% of hyperscan's time on the hard mix); so is an
#     unbounded run with a least count (`[\d.]+`, `\S+`) that a literal of at least TAIL_WIDTH characters follows
#     (pcie_link_limited's `[\w.-]+ PCI: [\d.]+` before " Gb/s available PCIe bandwidth, limited by " was a prefix
#     hyperscan ran over every byte: 68M of the 237M instructions of its scan of 100,000 hard-mix lines), and
#     any optional part that literal characters, TAIL_WIDTH on every path, follow (ib_async_event's `NET/IB ?:
#     (?:<netdev>:<port> )?` was tracked from every "NET/IB : ", mostly NCCL's benign "Using [0]mlx5_0:1/IB":
#     13M of the 170M); a lookaround in the rest is dropped or consumed, as anywhere.

from re import _constants as _sre  # noqa: E402  (Python's own regex parser: the parse tree, not a re-parse)
from re import _parser as _sre_parse  # noqa: E402

HIGH = r"[\x80-\xff]+"  # one non-ASCII character (or an undecodable byte) as bytes
MAX_COUNT = 1000  # the largest counted repeat RE2 takes (a longer one in bytes is unbounded: still a superset)
UTF8_WIDTH = 4  # bytes of one character at most (UTF-8; the decoder's U+FFFD stands for 1 to 3 undecodable bytes)
ANY_ASCII = frozenset(range(128)) - {10}
# The non-ASCII characters Python's caseless matching equates with an ASCII letter (İ ı ſ K), by letter;
# tests/parsers/test_parsers_properties.py checks this against every code point.
CASELESS_NON_ASCII: dict[str, str] = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}
CASELESS_NON_ASCII.update({c.upper(): v for c, v in CASELESS_NON_ASCII.items()})
_SPACE = frozenset(b" \t\n\r\f\v\x1c\x1d\x1e\x1f")
_DIGIT = frozenset(b"0123456789")
_WORD = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_CATEGORIES = {
    _sre.CATEGORY_DIGIT: _DIGIT, _sre.CATEGORY_NOT_DIGIT: frozenset(range(128)) - _DIGIT,
    _sre.CATEGORY_SPACE: _SPACE, _sre.CATEGORY_NOT_SPACE: frozenset(range(128)) - _SPACE,
    _sre.CATEGORY_WORD: _WORD, _sre.CATEGORY_NOT_WORD: frozenset(range(128)) - _WORD,
}
_REPEATS = (_sre.MAX_REPEAT, _sre.MIN_REPEAT, getattr(_sre, "POSSESSIVE_REPEAT", _sre.MAX_REPEAT))
_ASSERTS = (_sre.ASSERT, _sre.ASSERT_NOT, _sre.GROUPREF, _sre.GROUPREF_EXISTS)
TAIL_WIDTH = 12  # characters the rest after a pattern's last top-level gap must match at least to stand alone


@functools.lru_cache(maxsize=256)
def byte_superset(pattern: str, caseless: bool = False) -> str:
    """`pattern` (Python regex source) as a byte regex for hyperscan and RE2 matching a superset of its lines."""
    tree = _sre_parse.parse(pattern, _re_flags(caseless))
    items = _trim(tree.state, _after_gap(tree.state, list(tree)))
    out = _Printer(tree.state).seq(items, bool(tree.state.flags & re.IGNORECASE), True, True)
    return out or HIGH.join("()")  # a pattern of assertions only: any line (never happens in the table)


def scan_source(pattern: str, group: str | None) -> str:
    """`pattern`'s source from its named group `group` on (rules.Rule.scan_from; the whole pattern where None): a
    superset of its lines, as the group is at the pattern's top level or its first alternative's (a line the whole
    matches holds the group's match and what follows it).  A group elsewhere, a verbose pattern or one referring back
    to a group is a ValueError."""
    if group is None:
        return pattern
    tree = _sre_parse.parse(pattern)
    items = list(tree)
    if len(items) == 1 and items[0][0] == _sre.BRANCH:
        items = list(items[0][1][1][0])
    gid = tree.state.groupdict.get(group)
    source = pattern[pattern.find(f"(?P<{group}>"):]
    try:  # the parser flattens a plain group into its sequence: from inside one, the source has a ")" unopened
        sliced = _sre_parse.parse(source)
    except re.error:
        source, sliced = "", ()
    if gid is None or not source or not any(op == _sre.SUBPATTERN and av[0] == gid for op, av in items):
        raise ValueError(f"scan_from group {group!r} is not at the top level of {pattern!r} nor its first alternative's")
    # the slice drops the pattern's leading (?x) (its spaces would be literal) and the groups before it (a \2 would
    # name another): neither is a superset; no row needs a back-reference (hyperscan and RE2 have none)
    if tree.state.flags & re.VERBOSE or _refers(sliced):
        raise ValueError(f"scan_from group {group!r}: {pattern!r} is verbose or refers back to a group")
    return source


def _refers(items) -> bool:
    """Whether a parse tree (or a part of it) holds a back-reference."""
    for op, av in items:
        if op in (_sre.GROUPREF, _sre.GROUPREF_EXISTS):
            return True
        for part in av if isinstance(av, (tuple, list)) else ():
            parts = part if isinstance(part, list) else (part,)
            if any(isinstance(one, _sre_parse.SubPattern) and _refers(one) for one in parts):
                return True
    return False


def _trim(state, items: list) -> list:
    """`items` less what cannot change whether they match: leading and trailing parts that can match empty,
    and the optional part of a trailing repeat (x{m,n} -> x{m}), through trailing groups."""
    while items and _plain_nullable(state, items[:1]):
        items.pop(0)
    while items:
        while items and _plain_nullable(state, items[-1:]):
            items.pop()
        if not items:
            break
        op, av = items[-1]
        if op == _sre.SUBPATTERN and not av[1] and not av[2]:  # a plain group: its own items, trimmed
            items[-1:] = list(av[3])
            continue
        if op in _REPEATS and av[0] >= 1 and av[1] != av[0]:
            items[-1] = (_sre.MAX_REPEAT, (av[0], av[0], av[2]))
        break
    return items


def _after_gap(state, items: list) -> list:
    """The items after the last top-level gap whose rest matches at least TAIL_WIDTH characters; else `items`.  A
    gap: a run of any length of a class of characters (`.*`, `.*?`, `[^)\\n]*`); or, where literal characters, at
    least TAIL_WIDTH on every path, follow it (`_literal_width`), an unbounded run of a class with a least count
    (`[\\d.]+`, `\\S+`) or any optional part (`(?:netdev:port )?`, ` ?`).  A superset: where the whole matches, its
    rest matches (a lookaround in the rest is dropped, or consumed where that keeps every match, as anywhere)."""
    for i in range(len(items) - 1, -1, -1):
        op, av = items[i]
        if op not in _REPEATS:
            continue
        run = av[1] == _sre.MAXREPEAT and len(av[2]) == 1 and av[2][0][0] in (_sre.ANY, _sre.NOT_LITERAL, _sre.IN)
        if not ((run and av[0] == 0) or ((run or av[0] == 0) and _literal_width(items[i + 1:])[0] >= TAIL_WIDTH)):
            continue
        rest = items[i + 1:]
        if _sre_parse.SubPattern(state, rest).getwidth()[0] >= TAIL_WIDTH:
            return rest
    return items


def _literal_width(items) -> tuple[int, bool]:
    """How many literal characters every match of `items` starts with (optional parts skipped, a group or an
    alternation counted as its alternatives' least), up to the first other construct; and whether `items` hold
    nothing else (so the count goes on past them)."""
    n = 0
    for op, av in items:
        if op == _sre.LITERAL:
            n += 1
        elif op in _REPEATS and av[0] == 0:
            continue
        elif op in (_sre.SUBPATTERN, _sre.BRANCH):
            parts = [_literal_width(alt) for alt in (av[1] if op == _sre.BRANCH else [av[3]])]
            n += min(w for w, _ in parts)
            if not all(whole for _, whole in parts):
                return n, False
        else:
            return n, False
    return n, True


def _re_flags(caseless: bool) -> int:
    return re.IGNORECASE if caseless else 0


def _plain_nullable(state, items) -> bool:
    """`items` can match the empty string and hold no assertion (so their printed form can match empty too)."""
    return _sre_parse.SubPattern(state, list(items)).getwidth()[0] == 0 and not _has_assertion(items)


def _has_assertion(items) -> bool:
    for op, av in items:
        if op in _ASSERTS:
            return True
        if op == _sre.BRANCH and any(_has_assertion(alt) for alt in av[1]):
            return True
        if op == _sre.SUBPATTERN and _has_assertion(av[-1]):
            return True
        if op == _sre.ATOMIC_GROUP and _has_assertion(av):
            return True
        if op in _REPEATS and _has_assertion(av[2]):
            return True
    return False


class _Printer:
    def __init__(self, state):
        self.state = state

    def seq(self, items, caseless: bool, head: bool, tail: bool) -> str:
        """`head`/`tail`: everything before/after this sequence in the whole pattern can match empty."""
        out = []
        for j, (op, av) in enumerate(items):
            h = head and _plain_nullable(self.state, items[:j])
            t = tail and _plain_nullable(self.state, items[j + 1:])
            out.append(self.node(op, av, caseless, h, t))
        return "".join(out)

    def node(self, op, av, caseless: bool, head: bool, tail: bool) -> str:
        if op == _sre.LITERAL:
            return self.literal(av, caseless)
        if op in (_sre.NOT_LITERAL, _sre.IN, _sre.ANY, _sre.CATEGORY):
            return _class_text(*_char_set(op, av, caseless))
        if op == _sre.SUBPATTERN:
            _group, add, remove, items = av
            caseless = bool((caseless or add & re.IGNORECASE) and not remove & re.IGNORECASE)
            return "(?:" + self.seq(items, caseless, head, tail) + ")"
        if op == _sre.ATOMIC_GROUP:
            return "(?:" + self.seq(av, caseless, head, tail) + ")"
        if op == _sre.BRANCH:
            return "(?:" + "|".join(self.seq(alt, caseless, head, tail) for alt in av[1]) + ")"
        if op in _REPEATS:
            lo, hi, items = av
            inner = (head, tail) if hi == 1 else (False, False)
            single = len(items) == 1 and items[0][0] in (_sre.NOT_LITERAL, _sre.IN, _sre.ANY, _sre.LITERAL)
            if single and (items[0][0] != _sre.LITERAL or items[0][1] < 128):
                # one class of bytes; where it may take a non-ASCII character, a bounded repeat counts bytes, up to
                # UTF8_WIDTH a character: `\d{1,4}` is `[0-9\x80-\xff]{1,16}`, not `(?:[0-9]|[\x80-\xff]+){1,4}`,
                # a bounded repeat of an unbounded run, which cost hyperscan a quarter more on the hard mix once
                # NVSMI_HANDLE's `\d{1,4}` stood beside nvml_gpu_is_lost's `\S: `
                ascii_set, high = _char_set(*items[0], caseless)
                body = _class_text(ascii_set, False, extra=r"\x80-\xff" if high else "")
                if tail and lo >= 1:
                    # nothing after it but what can match empty: its least count decides whether the whole matches
                    # (the trailing `\d+` that _trim made `\d{1}`, counted in bytes, was `{1,4}`: up to four match
                    # ends a line, each a Python callback)
                    hi = lo
                elif high and hi != _sre.MAXREPEAT:
                    hi = hi * UTF8_WIDTH if hi * UTF8_WIDTH <= MAX_COUNT else _sre.MAXREPEAT
            else:
                body = "(?:" + self.seq(items, caseless, *inner) + ")"
            return body + _quantifier(lo, hi)
        if op == _sre.ASSERT:
            direction, items = av
            keep = tail if direction == 1 else head  # consuming it keeps every match (see above)
            return "(?:" + self.seq(items, caseless, False, False) + ")" if keep else ""
        if op in (_sre.AT, _sre.ASSERT_NOT):
            return ""
        if op == _sre.GROUPREF:
            return "[^\\n]*"
        if op == _sre.GROUPREF_EXISTS:
            _group, yes, no = av
            alts = [self.seq(yes, caseless, False, False), self.seq(no, caseless, False, False) if no else ""]
            return "(?:" + "|".join(alts) + ")"
        raise ValueError(f"regex construct {op} has no byte form")

    @staticmethod
    def literal(code: int, caseless: bool) -> str:
        if code < 128:
            ch = chr(code)
            if caseless and ch.isalpha():
                cls = f"[{ch.lower()}{ch.upper()}]"
                folds = ["".join(map(_byte, c.encode())) for c in CASELESS_NON_ASCII.get(ch, "")]
                return "(?:" + "|".join([cls, *folds]) + ")" if folds else cls
            return _byte(code)
        if caseless or code == 0xFFFD:
            return _class_text(ANY_ASCII if caseless else frozenset(), True)
        return "".join(_byte(b) for b in chr(code).encode("utf-8"))


def _char_set(op, av, caseless: bool) -> tuple[frozenset[int], bool]:
    """The ASCII bytes one Python character construct matches, and whether it may match a non-ASCII one."""
    if op == _sre.ANY:
        return ANY_ASCII, True
    if op == _sre.LITERAL:
        items, negate = [(_sre.LITERAL, av)], False
    elif op == _sre.NOT_LITERAL:
        items, negate = [(_sre.LITERAL, av)], True
    elif op == _sre.CATEGORY:
        items, negate = [(_sre.CATEGORY, av)], False
    else:
        negate = bool(av) and av[0][0] == _sre.NEGATE
        items = av[1:] if negate else av
    members: set[int] = set()
    high = negate
    for kind, value in items:
        if kind == _sre.LITERAL:
            lo = hi = value
        elif kind == _sre.RANGE:
            lo, hi = value
        elif kind == _sre.CATEGORY:
            members |= _CATEGORIES[value]
            high = True
            continue
        else:
            raise ValueError(f"class item {kind} has no byte form")
        high = high or hi >= 128
        for code in range(lo, min(hi, 127) + 1):
            members.add(code)
            ch = chr(code)
            if caseless and ch.isalpha():
                members.update((ord(ch.lower()), ord(ch.upper())))
                high = high or ch in CASELESS_NON_ASCII
    if negate:
        members = set(range(128)) - members
    return frozenset(members) - {10}, high


def _class_text(ascii_set: frozenset[int], high: bool, extra: str = "") -> str:
    codes = sorted(ascii_set)
    parts, i = [], 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        parts.append(_byte(codes[i]) if i == j else f"{_byte(codes[i])}-{_byte(codes[j])}")
        i = j + 1
    cls = "[" + "".join(parts) + extra + "]" if parts or extra else ""
    if high and not extra:
        return f"(?:{cls}|{HIGH})" if cls else HIGH
    return cls or "[^\\x00-\\xff]"


def _byte(code: int) -> str:
    return chr(code) if chr(code).isascii() and chr(code).isalnum() else f"\\x{code:02x}"


def _quantifier(lo: int, hi: int) -> str:
    if hi == _sre.MAXREPEAT:
        return {0: "*", 1: "+"}.get(lo, f"{{{lo},}}")
    if (lo, hi) == (0, 1):
        return "?"
    if lo == hi == 1:
        return ""
    return f"{{{lo}}}" if lo == hi else f"{{{lo},{hi}}}"
