"""Find the lines that contain any rule keyword, fast.

Whole buffers are scanned by a multi-pattern engine: hyperscan where its wheel exists, else
google-re2, else the standard library's `re` (always there; slower on big files).
`GPU_NPD_MATCHER=hyperscan|re2|re` forces one.  Single records (the agent's kmsg path) are
checked with a compiled `re` alternation, which is cheapest for short strings.
"""

from __future__ import annotations

import os
import re
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

    def __init__(self, keywords: Iterable[str], engine: str | None = None):
        self.keywords = tuple(keywords)
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
                self._db.compile(expressions=[re.escape(k).encode() for k in self.keywords],
                                 ids=list(range(len(self.keywords))), flags=[0] * len(self.keywords))
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
