"""Find the lines that contain any rule keyword, fast.

Whole buffers are scanned by a multi-pattern engine: hyperscan where its wheel exists, else
google-re2, else the standard library's `re` (always there; slower on big files).
`GPU_NPD_MATCHER=hyperscan|re2|re` forces one.  Single records (the agent's kmsg path) are
checked with a compiled `re` alternation, which is cheapest for short strings.

With hyperscan, the buffer scan can use the rules' own regexes (`patterns`, derived from the rule table)
instead of their keywords, compiled in prefilter mode: a line reaches Python only when some rule's regex
(or a superset hyperscan computes for a construct it lacks) matches it, so benign lines that merely carry
a vendor keyword cost what grep pays for them.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Iterable, Iterator

ENGINES = ("hyperscan", "re2", "re")


def _load(engine: str):
    if engine == "hyperscan":
        import hyperscan  # type: ignore[import-not-found]
        return hyperscan
    if engine == "re2":
        import re2  # type: ignore[import-not-found]
        return re2
    return re


class Prefilter:
    """Keyword prefilter over bytes buffers and str records."""

    def __init__(self, keywords: Iterable[str], engine: str | None = None,
                 patterns: Iterable[tuple[str, bool]] = ()):
        """`patterns`: (regex source, caseless) pairs that hyperscan scans for instead of the keywords; every
        line they can match must hold a keyword, and the keyword engines stay the exact reference."""
        self.keywords = tuple(keywords)
        patterns = tuple(patterns)
        alternation = "|".join(re.escape(k) for k in self.keywords)
        self._text = re.compile(alternation)
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
                self._db = module.Database(mode=module.HS_MODE_BLOCK)
                if patterns:
                    base = module.HS_FLAG_PREFILTER | module.HS_FLAG_MULTILINE
                    exprs = [hyperscan_source(p).encode() for p, _ in patterns]
                    flags = [base | (module.HS_FLAG_CASELESS if caseless else 0) for _, caseless in patterns]
                else:
                    exprs, flags = [re.escape(k).encode() for k in self.keywords], [0] * len(self.keywords)
                try:
                    self._db = _hyperscan_db(module, exprs, flags)
                except module.error:  # a row hyperscan cannot take even in prefilter mode: keywords, as before
                    self._db = _hyperscan_db(module, [re.escape(k).encode() for k in self.keywords],
                                             [0] * len(self.keywords))
            else:
                self._bytes = module.compile(alternation.encode())
            return
        raise ImportError(f"matcher engine {wanted!r} is not installed") from last_error

    def matches(self, text: str) -> bool:
        return self._text.search(text) is not None

    def line_spans(self, buf: bytes) -> Iterator[tuple[int, int]]:
        """(start, end) of each line of `buf` holding a keyword, once per line, in order; end
        excludes the newline."""
        if self.engine == "hyperscan":
            spans: list[tuple[int, int]] = []
            size = len(buf)
            line_end = -1

            def on_match(_id: int, _from: int, to: int, _flags: int, _ctx: object) -> None:
                nonlocal line_end
                if to <= line_end:  # another keyword on a line already taken: O(1)
                    return
                end = buf.find(b"\n", to)
                line_end = size if end == -1 else end
                spans.append((buf.rfind(b"\n", 0, to) + 1, line_end))

            self._db.scan(buf, match_event_handler=on_match)
            yield from spans
            return
        search = self._bytes.search
        pos, size = 0, len(buf)
        while pos < size:
            m = search(buf, pos)
            if m is None:
                return
            start = buf.rfind(b"\n", 0, m.start()) + 1
            end = buf.find(b"\n", m.end())
            if end == -1:
                end = size
            yield start, end
            pos = end + 1


_COMPILED: dict[str, object] = {}


def _hyperscan_db(hs, exprs: list[bytes], flags: list[int]):
    """A block-mode database for `exprs`, compiled once per process and kept serialized in the user's cache
    directory (compiling the rule regexes in prefilter mode takes a few hundred ms; loading takes ~1 ms).
    A cache that cannot be read or written is simply not used."""
    key = hashlib.sha256(repr((hs.__version__ if hasattr(hs, "__version__") else "", exprs, flags)).encode()
                         ).hexdigest()[:24]
    if key in _COMPILED:
        return _COMPILED[key]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpu-npd" / f"hs-{key}.db"
    db = None
    try:
        db = hs.loadb(cache.read_bytes(), hs.HS_MODE_BLOCK)
        db.scratch = hs.Scratch(db)
    except Exception:  # noqa: BLE001 - absent, unreadable, stale or from another hyperscan: compile
        db = hs.Database(mode=hs.HS_MODE_BLOCK)
        db.compile(expressions=exprs, ids=list(range(len(exprs))), flags=flags)
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(hs.dumpb(db))
            os.replace(tmp, cache)
        except Exception:  # noqa: BLE001 - read-only home, no home: fine, compile next time
            pass
    _COMPILED[key] = db
    return db


def hyperscan_source(pattern: str) -> str:
    """A Python regex rewritten for hyperscan's prefilter mode, matching a superset of what it matches and
    never across a newline: named groups become plain groups, atomic groups and lookbehinds plain
    non-capturing ones (a lookbehind's text consumed: prefilter mode would otherwise drop the condition),
    negated classes exclude the newline and `\\s` outside a class is a blank (hyperscan's `.` already stops
    at a newline)."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            two = pattern[i:i + 2]
            out.append("[ \\t\\r\\f\\v]" if two == "\\s" and not in_class else two)
            i += 2
        elif in_class:
            in_class = c != "]"
            out.append(c)
            i += 1
        elif c == "[":
            in_class = True
            negated = pattern.startswith("[^", i)
            out.append("[^\\n" if negated else "[")
            i += 2 if negated else 1
            if pattern.startswith("]", i):  # a leading ] is a literal
                out.append("]")
                i += 1
        elif pattern.startswith("(?P<", i):
            out.append("(")
            i = pattern.index(">", i) + 1
        elif pattern.startswith("(?<=", i):  # X(?<=X)Y -> XY would be exact; (?:X)Y consumes X: a superset
            out.append("(?:")
            i += 4
        elif pattern.startswith("(?>", i):
            out.append("(?:")
            i += 3
        else:
            out.append(c)
            i += 1
    return "".join(out)
