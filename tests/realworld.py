"""The real-world corpus (tests/fixtures/realworld/): loading, scoring, per-family counts.

Shared by tests/parsers/test_realworld.py and `python tests/realworld.py` (prints the table of docs/real-logs.md), so the
page's counts come from the same code that checks recall.
"""

from __future__ import annotations

import collections
import copy
import functools
import io
from pathlib import Path

import yaml

if __name__ == "__main__":  # run as a script, sys.path[0] is tests/, whose parsers/ folder would shadow the package
    import sys
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from parsers import Classifier, Scanner, amends

ROOT = Path(__file__).parent / "fixtures" / "realworld"
# The corpus files of jobs' own output (NCCL, PyTorch, CUDA, frameworks): a pod's log, not a node's
WORKLOAD_FILES = ("nccl-", "ib-transports", "workload-", "jobs-")
# Samples whose events neither `gpu-npd parse` nor the agent report, on purpose (sample -> why): another machine's
# kernel relayed by a script on this one (caliptra-sw #1392: `run1.sh[75558]: UART: [..] Kernel panic ..` in a
# Raspberry Pi's journal), a program's line, not the host's kernel (parsers/finding.py KERNEL_PROGRAMS)
NOT_THIS_HOST = {"kernel-2026j.yaml#8": "another machine's kernel, relayed by a script (run1.sh): not this host's",
                 "fabric-manager-nvl5-prereq-2026.yaml#0": "the poster redacted host and tag ('edge-...'): an unknown "
                 "program's line to the command; under its own tag (nvidia-fabricmanager-start.sh) it counts"}
WHOLE_LOGS = ROOT / "wholelogs.yaml"  # whole logs (healthy/ and wholelogs/): sources and allowed loud findings
CODE_KINDS = {"xid": "xid", "sxid": "sxid"}  # kinds whose code is scored, and the Finding field holding it


@functools.cache
def _corpus() -> tuple[dict, ...]:
    """Every sample as its file holds it, with its `file` and `index`, parsed once a process: seven test modules take
    the corpus at collection, and each parsed the 110 files anew (~0.5 s CPU with the pure-Python loader)."""
    out = []
    for path in sorted(ROOT.glob("*.yaml")):
        if path == WHOLE_LOGS:
            continue
        for i, item in enumerate(yaml.safe_load(path.read_text()) or []):
            item["file"], item["index"] = path.name, i
            out.append(item)
    return tuple(out)


def lines_by_source(file: str) -> dict[str, list[str]]:
    """One corpus file's samples' lines by their source (a test that quotes a sample's real lines reads them here)."""
    return {item["source"]: item["text"].splitlines() for item in _corpus() if item["file"] == file}


def samples() -> list[dict]:
    """The corpus's samples in file order, a copy of its own for each caller (one may change what it is given)."""
    return copy.deepcopy(list(_corpus()))


@functools.cache
def _tables() -> Scanner:
    """One Scanner whose tables (prefilter, rows) every sample's stream shares, as `gpu-npd parse a b`'s."""
    return Scanner()


def scanner() -> Scanner:
    """A scanner of its own stream (Scanner.for_stream: parsing files together equals parsing each alone), the tables
    built once: building the prefilter is ~10 ms, ~10 s over the corpus's samples."""
    return _tables().for_stream()


def findings(text: str) -> list:
    """The sample's findings as events (`events`), as `gpu-npd parse` reads a file (Scanner.scan)."""
    return events(scanner().scan(io.BytesIO(text.encode()), name="realworld"))


def classified(lines) -> list:
    """The findings of `lines` as the agent's pipeline takes them (agent/pipeline.py): Classifier.read per line, the
    line's own finding, then the earlier findings the line amended."""
    c, out = Classifier(), []
    for line in lines:
        f, amended = c.read(line)
        if f is not None:
            out.append(f)
        out += amended
    return out


def events(found) -> list:
    """Findings as events, as their consumers count them (the agent's problem, `gpu-npd parse`'s summary): an
    amendment (details "amends", rules.EVENT_AMENDS) is its event's finding again, its severity or address changed, and
    stands in for it (the latest earlier finding of its kind and code, with its address, or none where it gave one);
    one with nothing before it to amend stays."""
    out: list = []
    for f in found:
        what = amends(f)
        for i in range(len(out) - 1, -1, -1) if what else ():
            g = out[i]
            if (g.kind, g.xid, g.sxid, g.pci) == (f.kind, f.xid, f.sxid, None if what == "pci" else f.pci):
                out[i] = f
                break
        else:
            out.append(f)
    return out


def key(kind, code, pci) -> tuple:
    return kind, code if kind in CODE_KINDS else None, pci


def finding_key(f) -> tuple:
    return key(f.kind, getattr(f, CODE_KINDS[f.kind]) if f.kind in CODE_KINDS else None, f.pci)


def expect_key(e: dict) -> tuple:
    return key(e["kind"], e.get("code"), e.get("pci"))


def score(items: list[dict]) -> dict[str, list[int]]:
    """kind -> [expected events, found strictly (kind + code + PCI)], plus the misses per kind."""
    per = collections.defaultdict(lambda: [0, 0, []])
    for item in items:
        got = collections.Counter(finding_key(f) for f in findings(item["text"]))
        for e in item["expect"]:
            k = expect_key(e)
            per[e["kind"]][0] += 1
            if got[k] > 0:
                got[k] -= 1
                per[e["kind"]][1] += 1
            else:
                per[e["kind"]][2].append(f"{item['file']}#{item['index']}: {item['text'][:160]!r} want {k}")
    return per


def table() -> str:
    """Markdown: family file, kinds, samples, events; counted from the corpus."""
    rows = collections.defaultdict(lambda: [0, collections.Counter()])
    for item in samples():
        rows[item["file"]][0] += 1
        rows[item["file"]][1].update(e["kind"] for e in item["expect"])
    lines = ["| corpus file | real samples | events by kind |", "|---|---:|---|"]
    for name, (n, kinds) in sorted(rows.items()):
        lines.append(f"| `{name}` | {n} | " + ", ".join(f"{k} {c}" for k, c in sorted(kinds.items())) + " |")
    total = sum(n for n, _ in rows.values())
    lines.append(f"| **total** | {total} | |")
    return "\n".join(lines)


def whole_logs() -> list[tuple[str, dict]]:
    return sorted((yaml.safe_load(WHOLE_LOGS.read_text()) or {}).items())


if __name__ == "__main__":
    print(table())
