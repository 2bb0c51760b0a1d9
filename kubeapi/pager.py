"""A paged LIST (`limit` / `continue`), as raw JSON: the one loop every program that lists objects uses.

The client's `list_*` functions (or any call taking the same keyword arguments) are asked with
`_preload_content=False` and the body is decoded with msgspec (several times faster than `json.loads`, and the
client's models cost several times the memory and CPU of a dict).  A `continue` token the server no longer knows
(`410 Expired`, the list's snapshot was compacted away) starts the list over when the caller says how to forget
what it had (`restart`), else it is raised like any other error.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import msgspec

decode = msgspec.json.Decoder().decode  # JSON bytes -> dicts and lists, as json.loads gives them


def pages(call: Callable[..., Any], limit: int = 500, timeout: float | None = 30.0,
          restart: Callable[[], None] | None = None, **params: Any) -> Iterator[dict]:
    """Each page of the list, decoded (`items`, `metadata.resourceVersion` on the last one); `params` are the
    call's own (label_selector, field_selector...), those that are empty or None left out."""
    params = {k: v for k, v in params.items() if v not in (None, "")}
    cont: str | None = None
    while True:
        kwargs: dict[str, Any] = {"limit": limit, "_preload_content": False, **params}
        if timeout is not None:
            kwargs["_request_timeout"] = timeout
        if cont:
            kwargs["_continue"] = cont
        try:
            page = decode(call(**kwargs).data)
        except Exception as exc:  # noqa: BLE001 - only an expired continue token is ours to handle
            if getattr(exc, "status", None) == 410 and cont and restart is not None:
                restart()
                cont = None
                continue
            raise
        yield page
        cont = (page.get("metadata") or {}).get("continue")
        if not cont:
            return


def items(call: Callable[..., Any], limit: int = 500, timeout: float | None = 30.0, **params: Any) -> Iterator[dict]:
    """Every object of the list, page after page."""
    for page in pages(call, limit, timeout, **params):
        yield from page.get("items") or []
