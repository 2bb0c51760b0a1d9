"""`keep_newest`: the one bounded memory every program shares (the escalations, the agent's policy and stdout sink,
the cluster's book): a key remembered as the newest of an OrderedDict, the oldest forgotten past a cap.  `Derived`:
a table derived key by key at its first lookup (the classifier's dispatch tables and row plans, the keyword scan's
matches): keys of the table's own, never a line's choice (`parsers/envelope.py`'s rows by a line's first character
are a plain dict built at import: a subclass's subscript takes no exact-dict fast path, ~200 instructions a line).

Tables that evict before inserting, count their evictions for a metric, or forget many at once keep their own
loops (`parsers/classify.py`'s memo, `agent/coalesce.py`, `agent/pidmap.py`, `kubeapi/events.py`, ...)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable


def keep_newest(table: OrderedDict, key: Any, value: Any, cap: int,
                dropped: Callable[[Any], Any] | None = None) -> None:
    """`table[key] = value` as its newest entry, the oldest entries forgotten until `table` holds `cap`; `dropped`,
    when given, is called with each forgotten value (the escalations' bursts table empties its lists)."""
    table[key] = value
    table.move_to_end(key)
    while len(table) > cap:
        forgotten = table.popitem(last=False)[1]
        if dropped is not None:
            dropped(forgotten)


class Derived(dict):
    """key -> derive(key), computed at the first lookup (a subscript: `__missing__`) and kept."""

    def __init__(self, derive: Callable[[Any], Any]):
        super().__init__()
        self.derive = derive

    def __missing__(self, key: Any) -> Any:
        value = self[key] = self.derive(key)
        return value
