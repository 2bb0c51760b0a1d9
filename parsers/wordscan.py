"""Regexes compiled when first used (LazyPattern), and one regex that finds any of a set of literal words, as a trie: `NVRM: |NCCL |NET/IB|...` becomes
`N(?:VRM: |CCL |ET/IB)...`.

Python's `re` tries every alternative of a flat alternation at each position whose character starts one of
them; the trie tries each character once per position.  On a kernel line that holds no keyword (most of
them) the scan is about 3x cheaper; `findall` over a line that holds some, about 2x.  At any position the
longest word there matches (the same as a flat alternation sorted longest first); tested against one.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable


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


class LazyPattern:
    """A rule's regex, compiled the first time a line needs it (`search`, or any attribute of re.Pattern): a
    process start compiles none of the table's ~100 regexes (tens of ms), a big log only the rows its lines reach.
    Once compiled, `search` and `findall` (the methods a line's path calls: rows, Dispatch's keyword scan) are the
    compiled pattern's own bound methods: no cost per call; any other attribute goes through `__getattr__`."""

    __slots__ = ("pattern", "flags", "search", "findall", "_re")

    def __init__(self, pattern: "str | bytes | Callable[[], str]", flags: int = 0):
        """`pattern`: the source, or a function giving it (a word trie: derived when first needed too)."""
        self.pattern, self.flags, self._re = pattern, flags, None
        self.search = self._search
        self.findall = self._findall

    def compiled(self):
        if self._re is None:
            if callable(self.pattern):
                self.pattern = self.pattern()
            self._re = re.compile(self.pattern, self.flags)
            self.search, self.findall = self._re.search, self._re.findall
        return self._re

    def _search(self, *args):
        return self.compiled().search(*args)

    def _findall(self, *args):
        return self.compiled().findall(*args)

    def __getattr__(self, name: str):  # groupindex, match, finditer, ...: the compiled pattern's
        return getattr(self.compiled(), name)
