"""Files and streams are independent (issue 29 (1)): `gpu-npd parse a b c` gives exactly what `parse a`,
`parse b` and `parse c` give one by one, for any set of inputs of the real corpus; and the agent keeps one
classifier per followed file.  An open multi-line event, an `NVRM: GPU at PCI:...` banner, a PyTorch NCCL
wrapper line or the boot count of one input never reaches the next."""

from __future__ import annotations

import atexit
import io
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

import realworld
from gpunpd.cli import main
from parsers.scan import Scanner

FIXTURES = Path(__file__).parents[1] / "fixtures"
WHOLE = sorted(str(p) for d in ("dmesg", "nccl", "realworld/healthy", "realworld/wholelogs")
               for p in (FIXTURES / d).glob("*") if p.is_file() and p.suffix not in (".md",))
_DIR = Path(tempfile.mkdtemp(prefix="gpu-npd-streams-"))
atexit.register(shutil.rmtree, _DIR, True)
SAMPLES = []
for _item in realworld.samples():  # every real sample as a file of its own (many end inside an event)
    _p = _DIR / f"{_item['file']}.{_item['index']}.log"
    _p.write_text(_item["text"])
    SAMPLES.append(str(_p))


def parse(*paths: str) -> list[dict]:
    r = CliRunner().invoke(main, ["parse", "--format", "json", "--nvml", "off", "--min-severity", "info", *paths])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    return [row for row in rows if "correlation" not in row]  # correlations join files on purpose


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(SAMPLES + WHOLE), min_size=2, max_size=5))
def test_parsing_together_equals_parsing_each_alone(paths):
    together = parse(*paths)
    alone = [row for p in paths for row in parse(p)]
    assert together == alone


def test_an_open_event_does_not_swallow_the_next_files_line(tmp_path):
    """Synthetic (labelled): an AER report left open at the end of one file, the same report in the next."""
    aer = ("pcieport 0000:00:01.0: AER: Uncorrected (Non-Fatal) error received: 0000:01:00.0\n"
           "nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)\n")
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_text(aer)
    b.write_text(aer.splitlines(keepends=True)[1])
    assert [r["kind"] for r in parse(str(a), str(b))] == ["pcie_aer", "pcie_aer"]


def test_a_banner_does_not_name_the_next_files_gpu(tmp_path):
    """Synthetic (labelled): a redacted Xid takes its PCI address from a banner in its own file only."""
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    a.write_text("NVRM: GPU at PCI:0000:5d:00: GPU-11111111-2222-3333-4444-555555555555\n")
    b.write_text("NVRM: Xid (PCI:...): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")
    rows = parse(str(a), str(b))
    assert [(r["kind"], r.get("pci")) for r in rows] == [("xid", None)]


def test_agent_keeps_one_classifier_per_followed_file(tmp_path):
    """Synthetic (labelled): the files source follows two files; a banner in one must not name the other's GPU."""
    import io

    from agent.app import build
    from agent.config import load
    from agent.sources import Record

    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path), "fallback_log_files": [],
                              "fabricmanager_log": ""})
    agent = build(cfg, out=io.StringIO())
    agent.pipeline.process([Record("files", "NVRM: GPU at PCI:0000:5d:00: GPU-11111111-2222-3333-4444-555555555555",
                                   stream="/var/log/a.log")])
    agent.pipeline.process([Record("files", "NVRM: Xid (PCI:...): 79, pid='<unknown>', name=<unknown>, GPU has "
                                   "fallen off the bus.", stream="/var/log/b.log")])
    assert set(agent.pipeline.classifiers) == {"files:/var/log/a.log", "files:/var/log/b.log"}
    assert agent.pipeline.classifiers["files:/var/log/b.log"]._last_pci is None
    # what is free of context is shared (docs/detection.md): the rule tables, the prefilter and the repeat memo (each
    # stream's classifier had a memo of its own, MEMO_SIZE entries each)
    a, b = agent.pipeline.classifiers.values()
    assert a.memo is b.memo and a.prefilter is b.prefilter and a.dispatch.tables is b.dispatch.tables


def _rows(findings) -> list[tuple]:
    return [(f.kind, f.severity, f.xid, f.sxid, f.pci, f.rank, f.peer, f.details.get("amends"), f.line)
            for f in findings]


def test_a_stream_read_in_two_pieces_gives_what_it_gives_read_whole():
    """A source that reads a stream a piece at a time (the agent's pod logs, a poll at a time) numbers its lines on
    from piece to piece (Scanner.scan first_line), so a multi-line event whose lines two reads split is one event:
    every real sample and incident log, cut before each of its lines, gives the findings it gives read whole.
    (Numbered from 1 again at each read, a PyTorch exception and the socket error it quotes on its next line
    were two failures, pytorch/pytorch #150916.)"""
    texts = [item["text"].encode() for item in realworld.samples()]
    texts += [p.read_bytes() for p in sorted((FIXTURES / "incidents").glob("*/logs/*.log"))]
    cuts = 0
    base = Scanner()  # each stream's scanner from it (Scanner.for_stream, as `gpu-npd parse a b` takes one a file):
    for data in texts:  # its own context, the prefilter built once (a Scanner() a cut built 5,400 of them: 16 s)
        lines = data.split(b"\n")
        whole = _rows(base.for_stream().scan(io.BytesIO(data)))
        for cut in range(1, len(lines)):
            scanner = base.for_stream()
            first = b"".join(line + b"\n" for line in lines[:cut])
            pieces = _rows(scanner.scan(io.BytesIO(first))) + _rows(
                scanner.scan(io.BytesIO(b"\n".join(lines[cut:])), first_line=cut + 1))
            assert pieces == whole, (data[:200], cut)
            cuts += 1
    assert cuts > 2000  # (2,426 when written)


def _profile_events(run) -> int:
    """Python-level events (calls, generator steps, C calls) while `run()` runs: a count, not a time."""
    import sys

    events = 0

    def count(frame, event, arg):
        nonlocal events
        events += 1

    sys.setprofile(count)
    try:
        run()
    finally:
        sys.setprofile(None)
    return events


def test_a_streams_set_up_costs_the_same_whatever_the_tables_size():
    """`Classifier.for_stream` (a file of `parse` or `triage`, a followed pod log) shares its table's derived tables
    with the classifier it comes from: no lookup keyed by the table (each hashed every row and its fields: ~0.3-0.6 ms a
    stream, seconds of 20,000 small files), no pass over it.  A table of 20 rows and the whole table cost the same events; the stream
    classifies as a fresh classifier of the table does."""
    from parsers.classify import Classifier
    from parsers.rules import RULES

    small, whole = Classifier(RULES[:20]), Classifier(RULES)
    assert len(RULES) > 10 * 20
    assert _profile_events(small.for_stream) == _profile_events(whole.for_stream)
    stream = whole.for_stream()
    assert stream.dispatch is not whole.dispatch and stream.dispatch.tables is whole.dispatch.tables
    line = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus."
    assert stream.classify(line) == Classifier(RULES).classify(line)
