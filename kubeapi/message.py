"""An Event's message as the API server takes it: at most MESSAGE_MAX bytes of UTF-8 (`message_of`), a text cut
to a room in bytes on a character's boundary (`cut`).  Apart from the recorder (kubeapi/events.py) so that the agent,
which fits its Pod Events' words in (agent/workloads.py), does not load the writers' modules at idle
(tests/agent/test_idle_footprint.py); it imports nothing."""

from __future__ import annotations

MESSAGE_MAX = 1024  # characters of an Event's message written, within as many bytes


def cut(text: str, room: int, mark: str = "") -> str:
    """`text` within `room` bytes of UTF-8: as it is where it fits, else its first bytes cut on a character's boundary
    and `mark` (an ellipsis) after them, within the room too.  A line's undecodable bytes (surrogates) are kept where
    it fits (json escapes them), dropped from a cut."""
    raw = text.encode(errors="surrogatepass")
    if len(raw) <= room:
        return text
    return raw[:max(0, room - len(mark.encode()))].decode(errors="ignore") + mark


def message_of(text: str) -> str:
    """An Event's message as written: its first MESSAGE_MAX characters, within MESSAGE_MAX bytes of UTF-8 (the API
    server's limit for an Event with an eventTime counts bytes, a Go string's length: a container's non-ASCII line, an
    ellipsis, would make 1,024 characters a refused Event), cut on a character's boundary."""
    return cut(text[:MESSAGE_MAX], MESSAGE_MAX)
