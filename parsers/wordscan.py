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


# Characters of log text, commonest first (counted over the test fixtures' real logs and bench/gen_log's mix); any
# other character is rarer than these.  `presence_regex` starts its search at each word's rarest character.
CHAR_FREQUENCY = (" 02e1to:nrdsa6-i354.7pml89cuN][TCIFk/Ogv_E,fbZh=PLx|()S\"BMDyU;A>wRHQ<GVXqWY+'J#`z*{}Kj!@%?^\\~&$")
_RANK = {ch: i for i, ch in enumerate(CHAR_FREQUENCY)}


def presence_regex(words: Iterable[str]) -> str:
    """The pattern source of a regex that matches a text iff one of `words` occurs in it (a search's truthiness;
    where, and which word, left open).

    A scan tries the pattern at every position whose character can start it: with `word_regex`'s trie, each word's
    first character, and with some 260 keywords those are most letters and the space, so nearly every position of a
    line is tried (a kern.log prefix `Nov 25 06:00:00 gpu-node-1 kernel: ` alone, about 25 times).  Here each word is
    entered at its rarest character (CHAR_FREQUENCY): the trie holds the words' tails from that character, and a
    lookbehind confirms the whole word where a tail ends (`mlx5_core` is `x5_core(?<=mlx5_core)`), so only the
    few positions with such a character are tried.  A word holding another word is left out (the shorter one
    occurs wherever it does)."""
    by_length = sorted({w for w in words if w}, key=len)
    kept: list[str] = []
    for word in by_length:
        if not any(k in word for k in kept):
            kept.append(word)
    trie: dict = {}
    for word in kept:
        at = min(range(len(word)), key=lambda i: (-_RANK.get(word[i], len(_RANK)), i))
        node = trie
        for ch in word[at:]:
            node = node.setdefault(ch, {})
        node.setdefault("", set()).add(word[:at])
    return _emit_tails(trie, "") if trie else "(?!)"


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
