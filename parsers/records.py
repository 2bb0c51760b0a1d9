"""Records that share one physical line: what a tqdm bar's carriage returns, and a record glued after a bar's last state,
hold (`line_records`), read alike by `gpu-npd triage` (triage/read.py) and the node agent's pod logs (parsers/scan.py
`cri_records`, agent/sources/podlogs.py)."""

from __future__ import annotations

import re

# Records that share one physical line (`line_records`): a tqdm bar rewrites itself with a carriage return and no newline,
# so the next record a rank prints lands after the bar's last state ("\r 24/1752 [01:08<1:22:56,  2.88s/it][rank5]:[E602
# ...] [Rank 5] Watchdog caught collective operation timeout: ..."; a paste keeps the glued record and loses the "\r":
# hiyouga/LlamaFactory #8261, pytorch/pytorch #118369, #59890). The line is read as its records, each on the physical
# line's number: its "\r" segments, and what follows a bar's end ("] ", its timing field and rate closed) cut from the
# bar. Was: the record after the bar not at its line's start, its launcher prefix ("[rank5]:") and a Traceback's first
# line ("Traceback (most recent call last):", what opens the rank's traceback) unread. A batch holding neither "\r" nor
# "<" (every bar with a total has "[elapsed<remaining, ") pays two C-level scans of its joined text and nothing per line.
# The one rule offline (triage.read: a physical line's records on its number) and live (the agent's pod logs,
# parsers.scan.cri_records: a CRI line's content, its records each a line of the envelope's time and stream) read by.
_BAR_END = re.compile(r"\d/[0-9?]{1,20} \[[0-9:]{1,12}<[0-9:?]{1,12}, *[0-9.?]{1,12} ?[A-Za-z]{1,10}/[A-Za-z]{1,10}"
                      r"(?:, [^\]\r]{0,1024})?\]")
BAR_TIMES = re.compile(r"<[0-9:?]")  # a bar's "elapsed<remaining": what `_BAR_END` needs, found by its literal first
MAX_RECORDS = 64  # records read of one physical line (its last ones: a bar rewritten all day is one line)


def line_records(line: str) -> list[str] | None:
    """`line`'s records where it holds more than one (None: it is one record): its "\\r" segments, and in each the
    text after a tqdm bar's end (`_BAR_END`) cut from the bar, blank ones dropped, a run of bars read as its last
    state (the one before the next record, or the line's last)."""
    if "\r" not in line and BAR_TIMES.search(line) is None:  # ("<module>", "<unknown>": ~130 ns, not two bar searches)
        return None
    out: list[str] = []
    bars: list[bool] = []  # whether each is a bar's state alone (its end the record's)
    for segment in line.split("\r") if "\r" in line else (line,):
        while segment.strip():
            m = _BAR_END.search(segment) if "<" in segment else None
            rest = segment[m.end():].lstrip(" ") if m is not None else ""
            if not rest:
                out.append(segment)
                bars.append(m is not None and m.end() == len(segment.rstrip()))
                break
            out.append(segment[:m.end()])
            bars.append(True)
            segment = rest
    kept = [r for i, r in enumerate(out) if not bars[i] or i + 1 == len(out) or not bars[i + 1]]
    if len(kept) == 1 and kept[0] == line:
        return None
    return kept[-MAX_RECORDS:]
