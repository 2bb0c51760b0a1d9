"""Property tests: nothing raises on arbitrary input; engines agree; kmsg round-trips."""

from __future__ import annotations

import io
import logging
import platform
import re
import string
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers import Classifier, Prefilter, Scanner, all_keywords, detect
from parsers.classify import line_patterns
from parsers.prefilter import CASELESS_NON_ASCII, ENGINES, _load, byte_superset, scan_source
from test_engine import line as rule_line

KEYWORD_TEXT = st.sampled_from(all_keywords() + ("\n", "NVRM: ", "stderr P ", " ", "0000:5d:00.0", "[ 1.0] "))
MIXED = st.lists(st.one_of(KEYWORD_TEXT, st.text(max_size=20)), max_size=30).map("".join)


def available_engines():
    out = []
    for name in ENGINES:
        try:
            _load(name)
            out.append(name)
        except ImportError:
            pass
    return out


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(), MIXED))
def test_classify_never_raises(text):
    c = Classifier()
    for line in text.splitlines() or [text]:
        c.classify(line)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=2000), MIXED.map(lambda s: s.encode("utf-8", "surrogatepass"))))
def test_scan_never_raises_on_bytes(data):
    list(Scanner().scan(io.BytesIO(data), chunk=64))


@settings(max_examples=200)
@given(prio=st.integers(0, 191), seq=st.integers(0, 2**63), usec=st.integers(0, 2**63),
       message=st.text(alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=200))
def test_kmsg_record_survives_format_then_parse(prio, seq, usec, message):
    env = detect(f"{prio},{seq},{usec},-;{message}")
    assert env.name == "kmsg"
    assert env.message == message
    assert env.extra["seq"] == seq and env.extra["priority"] == prio & 7
    assert env.uptime == usec / 1e6


@pytest.mark.parametrize("engine", available_engines())
@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(MIXED)
def test_engines_agree_with_stdlib(engine, text):
    data = text.encode()
    ref = list(Prefilter(all_keywords(), engine="re").line_spans(data))
    assert list(Prefilter(all_keywords(), engine=engine).line_spans(data)) == ref


@pytest.mark.parametrize("chunk", [7, 64, 4096, 1 << 20])
def test_chunking_changes_nothing(chunk, fixtures):
    data = b"".join(p.read_bytes() for p in sorted((fixtures / "dmesg").glob("*.*")) if p.suffix != ".md")
    ref = [(f.line, f.kind) for f in Scanner().scan(io.BytesIO(data))]
    assert ref and [(f.line, f.kind) for f in Scanner().scan(io.BytesIO(data), chunk=chunk)] == ref


class _Pipe:
    """A pipe's reads: read1 gives what the writer has written so far (here the next of `pieces`), never what was
    asked; `asked` and `yielded_at` (the findings the consumer had taken when each read was made) are kept."""

    def __init__(self, pieces: list[bytes], taken: list) -> None:
        self.pieces, self.taken, self.asked, self.yielded_at = list(pieces), taken, [], []

    def read1(self, n: int) -> bytes:
        self.asked.append(n)
        self.yielded_at.append(len(self.taken))
        return self.pieces.pop(0)[:n] if self.pieces else b""

    def read(self, n: int) -> bytes:  # a buffered read: waits for n bytes or the end, a read1 at a time
        data = b""
        while len(data) < n and (piece := self.read1(n - len(data))):
            data += piece
        return data


@pytest.mark.parametrize("piece", [1, 7, 100, 4096])
def test_a_pipes_short_reads_change_nothing(piece, fixtures):
    """A pipe's reads (read1: what is there, shorter than asked) give the findings a whole read gives; after a short
    read past the first the scanner asks for LIVE_READ, not CHUNK (a fresh CHUNK allocated per read)."""
    from parsers.scan import CHUNK, LIVE_READ

    data = b"".join(p.read_bytes() for p in sorted((fixtures / "dmesg").glob("*.*")) if p.suffix != ".md")
    ref = [(f.line, f.kind, f.message) for f in Scanner().scan(io.BytesIO(data))]
    taken: list = []
    pipe = _Pipe([data[i:i + piece] for i in range(0, len(data), piece)], taken)
    taken += ((f.line, f.kind, f.message) for f in Scanner().scan(pipe))
    assert ref and taken == ref and len(pipe.asked) > 3
    assert pipe.asked[:2] == [CHUNK, CHUNK] and set(pipe.asked[2:]) == {LIVE_READ}


def test_a_lines_findings_are_yielded_before_the_next_read():
    """`dmesg -w | gpu-npd parse`: a line's finding is yielded as soon as its line has been read, before the
    scanner asks the pipe for more (the read that waits for the writer's next line).  The line: a real Xid 79,
    leptonai/gpud's sxid README (tests/fixtures/realworld/sxid-2026b.yaml)."""
    xid = b"[6781741.548779] NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
    taken: list = []
    pipe = _Pipe([b"[6781741.000001] eth0: link up\n", xid, b"[6781742.000001] eth0: link up\n"], taken)
    for f in Scanner().scan(pipe):
        taken.append(f.xid)
    assert taken == [79] and pipe.yielded_at == [0, 0, 1, 1]  # the third read asked for after the Xid's finding


def test_unknown_engine_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown matcher engine"):
        Prefilter(["x"], engine="grep")


# --- every engine gives the findings of the stdlib keyword scan -------------------------------------------------

ENVELOPES = ["", "[ 4254.197860] ", "6,100,4254197860,-;", "Nov 22 12:00:00 host kernel: ",
             "2026-11-22T12:00:00.000000000Z stderr F ", "2026-11-22T12:00:00.000000000Z stdout P ",
             '{"log":"', "<14>1 2026-11-22T12:00:00Z host kernel - - - "]


def _corpus_lines() -> list[bytes]:
    """Every line of the log fixtures and of the real-world samples (real lines, copied verbatim from public
    sources)."""
    from conftest import FIXTURES
    from realworld import samples

    out = [ln.encode() for item in samples() for ln in item["text"].splitlines()]
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix not in (".md", ".jsonl", ".yaml", ".yml", ".csv", ".py"):
            out += path.read_bytes().splitlines()
    return out


CORPUS = _corpus_lines()
ENGINE_NAMES = available_engines()


PREFILTERS = {engine: Prefilter(all_keywords(), engine=engine, patterns=line_patterns()) for engine in ENGINE_NAMES}


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_stern_json_kernel_line_is_read_decoded(engine):
    """Constructed: stern's -o json record of a verbatim Xid line (leptonai/gpud kmsg_test.go) whose quotes are JSON
    escapes: the finding's message is the kernel's line (was the whole JSON object), its uptime read, with the buffer
    engine's line patterns (JSON_MESSAGE_LINE) as with the keyword scan."""
    line = ('{"message":"[ 1234.567890] NVRM: Xid (PCI:0000:05:00): 79, pid=\\"1\\", GPU has fallen off the bus.",'
            '"nodeName":"gpu-node-7","namespace":"ns1","podName":"dmesg-x","containerName":"c"}\n')
    scanner = Scanner(Classifier(), PREFILTERS[engine])
    got = [(f.kind, f.xid, f.message, f.uptime, f.envelope) for f in scanner.scan(io.BytesIO(line.encode()))]
    assert got == [("xid", 79, 'NVRM: Xid (PCI:0000:05:00): 79, pid="1", GPU has fallen off the bus.', 1234.56789,
                    "dmesg")]


def _findings_by_engine(data: bytes, chunk: int = 1 << 20) -> dict[str, list[dict]]:
    out = {}
    for engine, pf in PREFILTERS.items():
        out[engine] = [f.to_dict() for f in Scanner(Classifier(), pf).scan(io.BytesIO(data), chunk=chunk)]
    return out


def _assert_same(by_engine: dict[str, list[dict]]) -> None:
    ref = by_engine["re"]
    for engine, findings in by_engine.items():
        assert findings == ref, engine


def test_the_engines_compile_the_rule_regexes():
    """hyperscan and RE2 scan for the rules' own regexes, not the keywords.  The test extra installs RE2
    everywhere (and hyperscan on x86_64), so neither engine is compared here by accident only."""
    assert "re2" in ENGINE_NAMES
    if platform.machine() == "x86_64":
        assert "hyperscan" in ENGINE_NAMES
    for engine in ENGINE_NAMES:
        if engine != "re":
            assert PREFILTERS[engine].by_pattern, engine


def test_hyperscan_takes_the_rule_regexes_as_they_are():
    """hyperscan's first build is the rules' byte forms as they are; one it refuses ("Pattern is too large": a bounded
    repeat of hundreds, `[^\\n]{1,300}`) makes every Prefilter try that build again before falling back to prefilter
    mode, over a second each (a scanner per file)."""
    hs = pytest.importorskip("hyperscan")
    from parsers.prefilter import byte_forms
    exprs = byte_forms(tuple(line_patterns()))
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    db.compile(expressions=exprs, ids=list(range(len(exprs))), flags=[0] * len(exprs))


def test_a_prefilter_escapes_no_keyword_it_does_not_scan_for(monkeypatch):
    """The keywords are escaped where an engine scans for their alternation (RE2 without patterns, hyperscan when it
    refuses the patterns or has none), not at every Prefilter's start: `re` scans for the presence regex, hyperscan
    and RE2 for the patterns' byte forms (some 550 re.escape calls a Prefilter were start-up)."""
    escaped: list[str] = []
    escape, patterns = re.escape, line_patterns()  # (the table's line patterns: a docker line's holds the keywords)
    monkeypatch.setattr(re, "escape", lambda k: escaped.append(k) or escape(k))
    Prefilter(all_keywords(), engine="re")
    for engine in ENGINE_NAMES:
        Prefilter(all_keywords(), engine=engine, patterns=patterns)
    assert escaped == []
    if "hyperscan" in ENGINE_NAMES:  # the keywords alone: hyperscan's alternation of them
        assert Prefilter(["Xid", "NVRM"], engine="hyperscan").engine == "hyperscan" and escaped == ["Xid", "NVRM"]


def test_every_engine_gives_the_same_findings_on_the_corpus():
    by_engine = _findings_by_engine(b"\n".join(CORPUS))
    assert len(by_engine["re"]) > 200
    _assert_same(by_engine)


def _re2_line_numbers(regex, buf: bytes) -> set[int]:
    """The numbers of the lines of `buf` where `regex` (compiled) matches."""
    out, pos = set(), 0
    while (m := regex.search(buf, pos)) is not None:
        out.add(buf.count(b"\n", 0, m.start()))
        pos = buf.find(b"\n", m.end())
        if pos == -1:
            break
        pos += 1
    return out


def test_re2_scans_the_corpus_with_its_dfa(capfd):
    """RE2 scans with a DFA, a state for every count a repeat may be at: the rules' `[^\\n]{0,800}`, `{1,256}` and
    their like made the DFA of the one alternation outgrow its memory on the corpus's varied lines ("DFA out of
    memory", then RE2's far slower NFA: 3.9 s a pass, 0.06 s for `re`).  re2_form leaves such counts open, and
    re2_groups splits the patterns so that a group's states stay small (the next test); what each costs is
    bench's (docs/benchmarks.md), not a timed test's."""
    if "re2" not in ENGINE_NAMES:
        pytest.skip("google-re2 is not installed")
    data = b"\n".join(CORPUS)
    fresh = Prefilter(all_keywords(), engine="re2", patterns=line_patterns())
    for _ in range(2):  # the DFA built, then used
        list(fresh.line_spans(data))
    assert "DFA out of memory" not in capfd.readouterr().err


def test_re2_forms_are_supersets_and_groups_cover_the_patterns():
    """re2_form only leaves counts above RE2_MAX_COUNT open (each form matches every corpus line its byte form
    matches); re2_groups takes every pattern once, in order, within RE2_GROUP_SIZE unless alone."""
    re2 = pytest.importorskip("re2")
    from parsers.prefilter import RE2_GROUP_SIZE, RE2_MAX_COUNT, byte_forms, re2_form, re2_groups

    assert re2_form(b"[a-z]{1,256}x{2,8}y{0,800}z{3}") == b"[a-z]{1,}x{2,8}y{0,}z{3}"
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    data = b"\n".join(CORPUS)
    forms = byte_forms(tuple(line_patterns()))
    changed = [(form, re2_form(form)) for form in forms if re2_form(form) != form]
    assert changed  # the table has such counts; else this test checks nothing
    for form, relaxed in changed:
        assert not [hi for hi in re.findall(rb"\{\d+,(\d+)\}", relaxed) if int(hi) > RE2_MAX_COUNT]
        assert _re2_line_numbers(re2.compile(form, options), data) <= _re2_line_numbers(re2.compile(relaxed, options),
                                                                                        data)
    sizes = [re2.compile(re2_form(form), options).programsize for form in forms]
    groups = re2_groups(sizes)
    assert [i for group in groups for i in group] == list(range(len(forms)))
    assert all(len(group) == 1 or sum(sizes[i] for i in group) <= RE2_GROUP_SIZE for group in groups)
    assert len(groups) > 1


piece = st.one_of(rule_line, st.text(max_size=12), st.sampled_from(CORPUS).map(lambda b: b.decode("utf-8", "replace")))


@settings(max_examples=200)
@given(st.lists(st.tuples(st.sampled_from(ENVELOPES), st.lists(piece, min_size=1, max_size=3).map("".join)),
                max_size=25),
       st.sampled_from([64, 4096, 1 << 20]))
def test_every_engine_gives_the_same_findings(rows, chunk):
    """Generated lines (rule pieces, corpus lines, arbitrary text, in every envelope): the buffer scan with the
    rules' regexes (hyperscan, RE2) finds exactly what the stdlib keyword scan finds."""
    text = "\n".join(e + t.replace("\n", " ").replace("\r", " ") for e, t in rows)
    _assert_same(_findings_by_engine(text.encode("utf-8", "surrogatepass"), chunk))


@settings(max_examples=100)
@given(st.lists(st.one_of(st.binary(max_size=40), st.sampled_from(CORPUS)), max_size=20))
def test_every_engine_gives_the_same_findings_on_raw_bytes(parts):
    """Undecodable bytes (the decoder makes them U+FFFD) and corpus lines glued to them."""
    _assert_same(_findings_by_engine(b"".join(parts)))


# --- the byte forms are sound supersets ---------------------------------------------------------------------------

PATTERNS = [(re.compile(p, re.I if caseless else 0), re.compile(byte_superset(p, caseless).encode()))
            for p, caseless in line_patterns()]


@settings(max_examples=500)
@given(st.one_of(piece, st.binary(max_size=60).map(lambda b: b.decode("utf-8", "replace"))))
def test_byte_form_matches_every_line_its_regex_matches(text):
    data = text.replace("\n", " ").encode("utf-8", "surrogatepass")
    decoded = data.decode("utf-8", "replace")
    for python, byte_form in PATTERNS:
        if python.search(decoded):
            assert byte_form.search(data), python.pattern


@pytest.mark.parametrize("pattern, line", [
    (r"(?<![A-Za-z])Xid \((?P<pci>\w+)\): (?P<xid>\d+)", "Xid (éé): \u0663"),  # Unicode word and digit
    (r"(?i)^(?>.*?\bnvlink\b)(?=.*?\b(?P<what>errors?)\b)", "NVLINK errorſ"),  # lookahead, long s
    (r"(?:CUDA error: )?(?P<e>(?<=CUDA error: )[^.'\n]+|misaligned)", "CUDA error: boom"),  # lookbehind
    (r"link\s*(?P<n>\d+)", "link\x1c\u00a07"),  # Unicode whitespace
    (r"(?i)kelvin", "\u212aelvin"),  # Kelvin sign folds to k
    (r"(?i)invalid state", "\u0130NVAL\u0131D \u017ftate"),  # dotted and dotless i, long s
    # a bounded repeat counts bytes: four 4-byte digits (MATHEMATICAL MONOSPACE), U+FFFD for undecodable bytes
    (r"GPU (?P<gpu>\d{1,4}): GPU is lost", "GPU \U0001d7f6\U0001d7f7\U0001d7f8\U0001d7f9: GPU is lost"),
    (r"pid (?P<p>[^\s]{2,3})\)", "pid \ufffd\ufffd\ufffd)"),
])
def test_byte_form_examples(pattern, line):
    assert re.search(pattern, line)
    assert re.search(byte_superset(pattern).encode(), line.encode())


def test_a_bounded_repeat_of_a_class_is_one_class_of_bytes():
    """`\\d{1,4}` is `[0-9\\x80-\\xff]{1,16}` (a character is at most UTF8_WIDTH bytes), not a bounded repeat of an
    unbounded run, `(?:[0-9]|[\\x80-\\xff]+){1,4}`: NVSMI_HANDLE's beside nvml_gpu_is_lost's `\\S: ` cost hyperscan a
    quarter more on the hard mix, whose lines hold no "GPU is lost".  Past RE2's largest count it is unbounded."""
    assert byte_superset(r"GPU \d{1,4}: ") == r"GPU\x20[0-9\x80-\xff]{1,16}\x3a\x20"
    assert byte_superset(r"\(`[a-z]{1,400}`\)") == r"\x28\x60[a-z]{1,400}\x60\x29"
    assert byte_superset(r"\(`[^`\n]{1,400}`\)") == r"\x28\x60[\x00-\x09\x0b-\x5fa-\x7f\x80-\xff]+\x60\x29"
    from parsers.prefilter import byte_forms
    nested = [e for e in byte_forms(tuple(line_patterns())) if re.search(rb"\+\)+\{", e)]
    assert nested == []


def test_a_trailing_repeat_keeps_its_least_count_only():
    """A repeat with nothing after it but what can match empty decides whether the whole matches by its least count:
    `NCCL WARN (?P<text>.+)` ends in one character, not `{1,4}` bytes (the byte count of a bounded repeat, applied
    to the `{1}` a trailing `.+` was trimmed to), so hyperscan reports one match end a line where it reported up to
    four (xid, nccl_warn, ib_completion: 14,324 callbacks over the hard log's lines 100,001-200,000, 7,938 after)."""
    assert byte_superset(r"NCCL WARN (?P<text>.+)") == r"NCCL\x20WARN\x20[\x00-\x09\x0b-\x7f\x80-\xff]"
    assert byte_superset(r"a(?:x|\d+)") == r"a(?:x|[0-9\x80-\xff])"
    assert byte_superset(r"GPU \d{1,4}: ") == r"GPU\x20[0-9\x80-\xff]{1,16}\x3a\x20"  # not trailing: bytes
    from parsers.prefilter import byte_forms
    ranged = [e for e in byte_forms(tuple(line_patterns())) if re.search(rb"\{\d+,\d*\}\)*$", e)]
    assert ranged == []
    hs = pytest.importorskip("hyperscan")
    # REAL (tests/fixtures/realworld/ib-transports.yaml, https://github.com/aws/aws-ofi-nccl/issues/156)
    line = (b"[1,13]<stdout>:nccl-tests-worker-1:35:89 [5] ofi_process_cq:1039 NCCL WARN NET/OFI Request "
            b"0x7fbb944701b8 completed with error. RC: 20. Error: unknown error. Completed length: 0, Request: "
            b"{ buffer_index: 255, dev: 1, size: 0, state: CREATED, direction: SEND }")
    db = hs.Database(mode=hs.HS_MODE_BLOCK)
    db.compile(expressions=[byte_superset(r"NCCL WARN (?P<text>.+)").encode()], ids=[0], flags=[0])
    ends: list[int] = []
    db.scan(line, match_event_handler=lambda _id, _f, to, _fl, _c: ends.append(to))
    assert len(ends) == 1


def test_a_run_with_a_least_count_before_a_long_literal_is_cut_like_a_gap():
    """An unbounded run of a class with a least count (`[\\d.]+`, `\\S+`) that a literal of at least TAIL_WIDTH
    characters follows starts the byte form after it, as a gap does: a line the whole matches holds that rest.
    pcie_link_limited's head, `(?P<driver>[\\w.-]+) (?P<pci>PCI): [\\d.]+`, before " Gb/s available PCIe bandwidth,
    limited by " was a prefix hyperscan ran over every byte: 68M of the 237M instructions its scan of the first
    100,000 hard-mix lines took.  A run a short literal follows keeps what is before it."""
    from parsers.rules import RULES
    (row,) = [r for r in RULES if r.name == "pcie_link_limited"]
    form = byte_superset(row.pattern.pattern)
    assert form.startswith(r"\x20Gb\x2fs\x20available\x20PCIe\x20bandwidth\x2c\x20limited\x20by\x20(?:"), form
    assert byte_superset(r"abc \d+ de f") == r"abc\x20[0-9\x80-\xff]+\x20de\x20f"  # 5 literal characters
    assert byte_superset(r"Kill process \d+ or sacrifice child") == r"\x20or\x20sacrifice\x20child"
    # REAL (tests/fixtures/realworld/pcie-link-2026t.yaml, https://github.com/NVIDIA/l2fwd-nv/issues/6)
    line = ("[10380.315885] mlx5_core 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, limited by 8 GT/s x8 link "
            "at 0000:b2:00.0 (capable of 252.048 Gb/s with 16 GT/s x16 link)")
    assert row.pattern.search(line) and re.search(form.encode(), line.encode())


def test_an_optional_part_before_long_literals_is_cut_like_a_gap():
    """An optional part at a rule regex's top level (`(?:netdev:port )?`, ` ?`) that literal characters, at least
    TAIL_WIDTH on every path, follow starts the byte form after it, as a gap does (a superset: a line the whole matches
    holds the rest), and so does a gap whose rest holds a lookaround (dropped, or consumed where that keeps every
    match).  ib_async_event's head `NET/IB ?: (?:<netdev>:<port> )?` was tracked from every "NET/IB : " (18,753 of
    the first 100,000 hard-mix lines, mostly NCCL's benign "Using [0]mlx5_0:1/IB"): 13M of the 170M instructions of
    hyperscan's scan of them.  Fewer literal characters after it keep what is before it."""
    from parsers.rules import RULES
    (row,) = [r for r in RULES if r.name == "ib_async_event"]
    form = byte_superset(row.pattern.pattern)
    assert form.startswith(r"(?:Got\x20(?:async\x20(?:error\x20)?|non\x2dfatal\x20async\x20)event"), form
    # REAL (tests/fixtures/realworld/jobs-2026e.yaml, https://github.com/NVIDIA/nccl/issues/1919)
    line = ("node-0:139577:139678 [0] transport/net_ib.cc:154 NCCL WARN NET/IB : mlx5_1:1 async fatal event on QP "
            "(0x7309dc3bb338): invalid request local work queue error")
    assert row.pattern.search(line) and re.search(form.encode(), line.encode())
    # the literals after the optional part counted through groups and alternations, the least alternative's
    assert byte_superset(r"ab(?:c )?(?:long lit|longer literal)eral") == r"long(?:\x20lit|er\x20literal)eral"
    # 11 literal characters ("with " and the least of "error "/"status="), then a class: not cut there
    assert byte_superset(r"Got completion (?:from \S+ )?with (?:error |status=)\d+").startswith(r"Got\x20completion")
    assert byte_superset(r"abc(?:d )?efgh ijkl m") == r"abc(?:d\x20)?efgh\x20ijkl\x20m"  # 11 literal characters
    assert byte_superset(r"head.*(?!x)tail of twelve") == r"tail\x20of\x20twelve"  # a lookahead in the rest


def test_byte_form_is_tight_on_benign_vendor_lines():
    """What the engines are for: a benign line carrying a vendor keyword matches no rule's byte form."""
    benign = ["mlx5_core 0000:5d:00.0: firmware version: 28.39.1002",
              "mlx5_core 0000:5d:00.0: E-Switch: Total vports 18, per vport: max uc(128) max mc(2048)",
              "NVRM: GPU 0000:5d:00.0: RmInitAdapter succeeded",
              "node-1:123:456 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ibp0s0:10.0.0.1<0>",
              "node-1:123:456 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read"]
    for text in benign:
        hits = [p.pattern for p, b in PATTERNS if b.search(text.encode())]
        assert hits == [], (text, hits)


def test_caseless_non_ascii_letters_are_exactly_those_python_folds():
    """The non-ASCII characters that Python's caseless matching equates with each ASCII letter."""
    # code points whose simple case mapping reaches ASCII or that fold to several (Python's extra pairs)
    folds = [cp for cp in range(0x80, 0x110000)
             if chr(cp).lower().isascii() or chr(cp).upper().isascii() or len(chr(cp).lower()) > 1]
    found = {c: "".join(chr(cp) for cp in folds if re.fullmatch(c, chr(cp), re.I)) for c in string.ascii_letters}
    assert {c: v for c, v in found.items() if v} == CASELESS_NON_ASCII


def test_a_caseless_letter_takes_the_bytes_of_its_non_ascii_equivalents_only():
    """`i` is `(?:[iI]|\\xc4\\xb0|\\xc4\\xb1)` (İ ı), not any run of bytes >= 0x80: the unclassified net's
    caseless words (`nvidia-nvswitch`, `timeout`, `invalid`) left hyperscan only short literals to enter them by
    (its scan of the hard log's lines 100,001-200,000: 20.0 ms, 18.7 ms with the folds' bytes)."""
    assert byte_superset("kis", True) == r"(?:[kK]|\xe2\x84\xaa)(?:[iI]|\xc4\xb0|\xc4\xb1)(?:[sS]|\xc5\xbf)"
    form = byte_superset("nvidia", True).encode()
    assert re.search(form, "NV\u0130D\u0131A".encode())
    assert not re.search(form, "nv\u00e9dia".encode())  # é is no case of i



# Real lines of the three scan_from rows: lore.kernel.org/all/1564007603-9655-2-git-send-email-jane.chu@oracle.com/,
# lore.kernel.org/stable/20220513142228.928817865@linuxfoundation.org/ (tests/fixtures/realworld/host-memory-2026e.yaml,
# host-nic-2026c.yaml); github.com/rstrudel/segmenter/issues/60, github.com/pytorch/pytorch/pull/177472
# (nccl-pytorch-2.yaml, jobs-nvls-2026p.yaml); lore.kernel.org/netdev/20211025205431.365080-6-saeed@kernel.org/,
# lore.kernel.org/qemu-devel/m7p7ubuyfhqxhcxqt4qs6rbi24pgxtnbq52maqpdom2da75g7e@laluifinsegp/ (mlx5-more.yaml)
SCAN_FROM_LINES = {
    "memory_failure": ["Memory failure: 0xedbe201: forcibly killing read_poison:22434 because of failure to unmap "
                       "corrupted page",
                       "Memory failure: 0x3710b3: recovery action for dirty LRU page: Recovered",
                       "Memory failure: 0x3710b3: Sending SIGBUS to einj_mem_uc:361438 due to hardware memory corruption"],
    "nccl_error_in": ["RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled system "
                      "error, NCCL version 2.7.8",
                      "torch.distributed.DistBackendError: NCCL error in: /var/lib/jenkins/workspace/torch/csrc/"
                      "distributed/c10d/NCCLUtils.cpp:93, unhandled cuda error (run with NCCL_DEBUG=INFO for details)"],
    "mlx5_health": ["mlx5_core 0000:08:00.0: print_health_info:425:(pid 912): Health issue observed, firmware internal "
                    "error, severity(3) ERROR:",
                    "[  445.937186] mlx5_core 0000:0d:00.0: poll_health:801:(pid 0): device's health compromised - "
                    "reached miss count"],
}


def test_a_scan_from_row_is_scanned_from_its_rare_words():
    """rules.Rule.scan_from: hwpoison's row is scanned from its `what` ("recovery action for", "Sending SIGBUS to"),
    not its "0x<pfn>: " head, and PyTorch's NCCL wrapper from ncclGetErrorString()'s text, not "NCCL error in: <file>";
    hyperscan had no rare literal to enter either by (callgrind, Scanner.scan's hyperscan scan of the hard log's lines
    100,001-200,000: 345.4 M -> 269.6 M instructions); mlx5_health from its words, not its caseless "mlx5_core <pci>:?
    .*?" head, which hyperscan tracked to the end of each of the 8,964 mlx5_core lines among the hard log's first
    100,000 (155.1 M -> 144.1 M).  Every real line of each row still matches its byte form."""
    from parsers.rules import RULES
    by_name = {r.name: r for r in RULES}
    sources = {p for p, _ in line_patterns()}
    for name, lines in SCAN_FROM_LINES.items():
        rule = by_name[name]
        source = scan_source(rule.pattern.pattern, rule.scan_from)
        assert source in sources and source.startswith(f"(?P<{rule.scan_from}>")
        form = re.compile(byte_superset(source).encode())
        assert not form.pattern.startswith((b"NCCL", b"(?:(?:(?:M", b"(?:[\\x00"))
        for line in lines:
            assert rule.pattern.search(line), line
            assert form.search(line.encode()), line
    assert {r.name for r in RULES if r.scan_from} == set(SCAN_FROM_LINES)


def test_scan_from_is_a_group_at_the_top_level_or_the_first_alternatives():
    """A group anywhere else would leave out lines the row matches (`a|b(?P<g>c)` from g: no `a`): refused."""
    assert scan_source(r"x(?P<g>y)z", "g") == "(?P<g>y)z"
    assert scan_source(r"x(?P<g>y)|w", "g") == "(?P<g>y)|w"
    assert scan_source(r"x(?P<g>y)", None) == r"x(?P<g>y)"
    for pattern in (r"a|b(?P<g>c)", r"(?:x(?P<g>y))z", r"x(?P<h>y)"):
        with pytest.raises(ValueError, match="scan_from group 'g'"):
            scan_source(pattern, "g")
    # not a superset either: the slice without the leading (?x) reads its spaces as literal ("xa b" matched, its slice
    # wants " a  b "), and with the groups before it gone its \2 names (z), not g ("wyzy" matched, its slice wants
    # "yzz"); any back-reference is refused
    for pattern in (r"(?x) x (?P<g> a \  b )", r"(w)(?P<g>y)(z)\2", r"x(?P<g>y)(z)?(?(2)q)"):
        with pytest.raises(ValueError, match="scan_from group 'g'"):
            scan_source(pattern, "g")
    assert scan_source(r"(?i)x(?P<g>y)z", "g") == "(?P<g>y)z"  # caseless: the row's flags say so (classify)


def test_docker_lines_are_judged_on_their_raw_keywords_by_every_engine():
    """A docker json-file message is JSON-decoded before the rows see it: an escaped keyword ("CUDA\\u0020error")
    is not in the raw line, so the keyword scan never looks at it; an engine whose byte form matches the rest
    ("misaligned address") must not find more. A raw keyword is found by all."""
    escaped = b'{"log":"CUDA\\u0020error: misaligned address\\n","stream":"stderr","time":"2026-11-22T02:00:00Z"}'
    plain = b'{"log":"CUDA error: misaligned address\\n","stream":"stderr","time":"2026-11-22T02:00:00Z"}'
    by_engine = _findings_by_engine(escaped + b"\n" + plain + b"\n")
    _assert_same(by_engine)
    assert [f["details"]["cuda_error"] for f in by_engine["re"]] == ["misaligned address"]


def test_every_line_pattern_is_within_hyperscans_length_and_the_docker_keywords_all_kept():
    """hyperscan refuses an expression past 16,000 bytes: the docker lines' pattern, every keyword in one alternation,
    was 15,944 when two more keywords broke three tests (h370). It is cut in parts (classify.PATTERN_BYTES), each
    within the limit, which together hold every keyword; a docker line whose keyword is in the last part is still
    looked at whole by every engine."""
    from parsers.classify import ANY_ROW, _line_pattern_rows
    from parsers.envelope import JSON_MESSAGE_LINE
    from parsers.rules import RULES

    rows = _line_pattern_rows(RULES)
    assert max(len(p.encode()) for p, _, _ in rows) < 16_000
    docker = [p for p, _, row in rows if row == ANY_ROW and p.startswith(JSON_MESSAGE_LINE)]
    assert len(docker) >= 2  # (the keywords outgrew one part)
    alternatives = re.compile(r"(?<!\\)\|")  # (a keyword's own "|" is escaped: dcgmi's "| Fail ")
    held = alternatives.split("|".join(p.split(".*(?:", 1)[1][:-1] for p in docker))
    assert held == [re.escape(k) for k in all_keywords()]
    last = held[-1].replace("\\", "")  # a keyword of the last part
    line = ('{"log":"x ' + last + ' y\\n","stream":"stderr","time":"2026-11-22T02:00:00Z"}').encode()
    _assert_same(_findings_by_engine(line + b"\n"))


@settings(max_examples=300)
@given(words=st.lists(st.text(alphabet="abXid :.", min_size=1, max_size=6), min_size=1, max_size=12),
       pieces=st.lists(st.text(alphabet="abXid :.\n", max_size=8), max_size=30))
def test_the_word_trie_finds_what_a_longest_first_alternation_finds(words, pieces):
    """parsers.wordscan: same matches, same spans, as the flat alternation sorted longest first (the form the
    dispatch and the keyword prefilter used before), on text made of the words' own letters."""
    from parsers.wordscan import word_regex

    text = "".join(p + (words[i % len(words)] if i % 2 else "") for i, p in enumerate(pieces))
    flat = re.compile("|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)))
    trie = re.compile(word_regex(words))
    assert [m.span() for m in trie.finditer(text)] == [m.span() for m in flat.finditer(text)]


@lru_cache(maxsize=1)
def _fixture_lines() -> tuple[str, ...]:
    """Each distinct line of the dmesg fixtures and the real-world samples once, in order (read once for the tests
    below: 24,926 lines, 18,313 distinct; a line's check does not depend on where else it occurs)."""
    fixtures = Path(__file__).parents[1] / "fixtures"
    lines: dict[str, None] = {}
    for path in [*fixtures.glob("dmesg/*.*"), *fixtures.glob("realworld/**/*.*")]:
        lines.update(dict.fromkeys(path.read_text(errors="replace").splitlines()))
    return tuple(lines)


@lru_cache(maxsize=1)
def _lines_holding_a_keyword() -> frozenset[int]:
    """The indexes in _fixture_lines() of the lines where one of the rule table's keywords occurs (4,572 of 34,867),
    found by str.find, each keyword over all the lines joined at once (a keyword holds no newline, so an occurrence
    lies within one line): the oracle of the tests below that compare a regex of the keywords with plain substring
    search.  Asked line by line (`any(w in line for w in words)`, or the flat alternation of the keywords on every
    line) it cost those tests 2 s and 8 s of a run; on the lines where no keyword occurs the answer is known: none."""
    import bisect

    lines = _fixture_lines()
    text = "\n".join(lines)
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    holding: set[int] = set()
    for word in set(all_keywords()):
        i = text.find(word)
        while i != -1:
            holding.add(bisect.bisect_right(starts, i) - 1)
            i = text.find(word, i + 1)
    return frozenset(holding)


def test_the_rule_keywords_as_a_trie_on_the_fixtures():
    from parsers.classify import all_keywords
    from parsers.wordscan import word_regex

    words = all_keywords()
    flat = re.compile("|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True)))
    trie = re.compile(word_regex(words))
    holding = _lines_holding_a_keyword()  # on the others the flat alternation finds nothing
    for i, line in enumerate(_fixture_lines()):
        want = [m.span() for m in flat.finditer(line)] if i in holding else []
        assert [m.span() for m in trie.finditer(line)] == want, line



@settings(max_examples=300)
@given(words=st.lists(st.text(alphabet="abXid :.N_x", min_size=1, max_size=6), min_size=1, max_size=12),
       pieces=st.lists(st.text(alphabet="abXid :.N_x\n", max_size=8), max_size=30))
def test_the_presence_regex_matches_where_a_word_occurs(words, pieces):
    """parsers.wordscan.presence_regex (each word entered at its rarest character, the rest confirmed by a
    lookbehind; words holding another left out): a search finds something iff one of the words occurs, in a str
    and in bytes, from each line's start (where the bytes engine searches a buffer from: a lookbehind looks before
    the start position, but a word holds no newline, so it never reaches past a line's)."""
    from parsers.wordscan import presence_regex

    text = "".join(p + (words[i % len(words)] if i % 2 else "") for i, p in enumerate(pieces))
    source = presence_regex(words)
    assert (re.search(source, text) is not None) == any(w in text for w in words)
    data = text.encode()
    compiled = re.compile(source.encode())
    for pos in [0] + [i + 1 for i, byte in enumerate(data) if byte == 10]:
        m = compiled.search(data, pos)
        assert (m is not None) == any(w.encode() in data[pos:] for w in words)
        if m is not None:  # the match lies on a line holding a word (line_spans takes that line)
            start, end = data.rfind(b"\n", 0, m.start()) + 1, data.find(b"\n", m.end())
            line = data[start:] if end == -1 else data[start:end]
            assert any(w.encode() in line for w in words)


def test_the_presence_regex_of_the_keywords_on_the_fixtures():
    from parsers.wordscan import presence_regex

    words = all_keywords()
    found = re.compile(presence_regex(words)).search
    assert found("") is None and presence_regex([]) == "(?!)"
    hits = 0
    holding = _lines_holding_a_keyword()
    for i, line in enumerate(_fixture_lines()):
        present = i in holding
        hits += present
        assert (found(line) is not None) == present, line
    assert hits > 1000


def test_the_presence_regex_enters_no_keyword_at_a_kmsg_records_prefix():
    """Every /dev/kmsg record starts "<prio>,<seq>,<usec>,<flags>;" (the kernel's Documentation/ABI/testing/dev-kmsg;
    the agent's kernel log): a keyword entered at one of those characters (a comma, the semicolon, a digit, "-") was
    tried at each of them on every record, ~4k instructions a record of bench/inprocess.py --instructions.  The
    keywords' entry characters (the first character of each top-level alternative of the pattern) are none of them."""
    entries = _presence_entries()
    assert not entries & set("0123456789,-;"), sorted(entries & set("0123456789,-;"))


def _presence_entries() -> set[str]:
    """The keywords' entry characters in the presence regex: the first character of each top-level alternative."""
    from parsers.wordscan import presence_regex

    tree = re._parser.parse(presence_regex(all_keywords()))
    (op, (_, branches)), = tree.data
    assert op is re._constants.BRANCH
    entries = {chr(branch.data[0][1]) for branch in branches if branch.data[0][0] is re._constants.LITERAL}
    assert len(entries) == len(branches) > 5  # (each alternative starts at its entry character)
    return entries


def test_the_presence_regex_enters_the_keywords_at_a_small_set_of_characters():
    """A search tries the presence regex at each position holding an entry character, and each try walks its top-level
    alternatives, one per entry character, to the last where none matches: each keyword entered at its own rarest
    character made some 50 of them (every letter but a few; "]" for `] trap `, at each dmesg timestamp), the set
    `wordscan.entry_points` chooses to cover them (KeywordScan's) about 17, and fewer tries a line of the fixtures'
    real text besides (bench/perline.py --instructions: every case cheaper)."""
    entries = _presence_entries()
    assert len(entries) <= 25, sorted(entries)


@settings(max_examples=100)
@given(MIXED)
def test_the_stdlib_engine_takes_the_lines_holding_a_keyword(text):
    """The `re` engine (the reference the others are held to): exactly the lines holding a keyword."""
    data = text.encode()
    words = [k.encode() for k in all_keywords()]
    want, start = [], 0
    for line in data.split(b"\n"):
        if any(w in line for w in words):
            want.append((start, start + len(line), None))
        start += len(line) + 1
    assert list(Prefilter(all_keywords(), engine="re").line_spans(data)) == want


# --- the envelope built only when a finding needs it is the one detect() builds -------------------------------------

ENVELOPE_PREFIXES = ENVELOPES + [
    "Nov 22 12:00:00 host kernel: [ 12.5] ", "<4>Nov  2 12:00:00.123 host kernel[1]: ", "<6>[    2.962781] ",
    "<14>6,5,100,-;", "2026-11-22T12:00:00.123+01:00 host kernel: [  7.000001] ", "[Sun Nov 22 02:05:37 2026] ",
    "[Jul 23 2024 07:53:55] [ERROR] [tid 841] ", "kern  :warn  : 2025-01-21T04:41:44,283302+00:00 ",
    "Feb 30 12:00:00 host kernel: ", "99,1,2,c;",
    "10.1.1.2: kern: warning: [2022-01-25T10:35:59.108125566Z]: ", " user:  notice: [2025-13-01T00:00:00Z]: ",
    "11月 15 14:15:47 host nv-fabricmanager[4177]: ", "b1360: [14280.445220] ", "n1: [Sun Nov 22 02:05:37 2026] ", "kwi 31 07:56:59 h kernel: [ 1.5] ", "Step 10 12:00:00 h x: ", '{"log":"x\\n","time":"2026-11-22T12:00:00Z"}', '{"log": 3}']


def _eager(line: str, year: int | None):
    """The reference: every row of the envelope table in order, built at once."""
    from parsers.envelope import ENVELOPES as ROWS, Envelope
    for _name, starts, pattern, build, _message in ROWS:
        if line[:1] in starts:
            m = pattern.match(line)
            if m:
                env = build(m, year)
                if env is not None:
                    return env
    return Envelope("plain", line)


def _check_split(line: str, year: int | None) -> None:
    from parsers.envelope import finish, split
    _name, message, pending = split(line, year)
    want = _eager(line, year)
    assert finish(pending) == want
    assert message == want.message


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(ENVELOPE_PREFIXES), st.text(max_size=30), st.none() | st.integers(1990, 2100))
def test_split_then_finish_is_the_envelope_detect_builds(prefix, text, year):
    _check_split(prefix + text, year)


def test_split_then_finish_on_every_real_line():
    for raw in _corpus_lines():
        _check_split(raw.decode("utf-8", "replace"), 2025)


@st.composite
def _words_and_text(draw, alphabet="abXid :.N_x]\n\\"):
    """Words, and a text of them run together, each often laid over the end of the text before it where it can be
    (its head the text's tail: occurrences overlap), with their heads, tails and letters between."""
    words = draw(st.lists(st.text(alphabet=alphabet, min_size=1, max_size=6), min_size=1, max_size=12))
    text = ""
    for _ in range(draw(st.integers(0, 12))):
        word = draw(st.sampled_from(words))
        how = draw(st.integers(0, 4))
        if how == 0:  # laid over the text's end, as far as it goes (and past the text's start)
            text = next(text[:-j] + word for j in range(min(len(word), len(text)), -1, -1)
                        if text.endswith(word[:j]))
        elif how == 1:
            text += word
        elif how == 2:
            i = draw(st.integers(0, len(word)))
            text += draw(st.sampled_from([word[i:], word[:i]]))
        else:
            text += draw(st.text(alphabet=alphabet, max_size=3))
    return words, text


@settings(max_examples=1000)
@given(_words_and_text())
def test_the_keyword_scan_finds_every_word_that_occurs_overlapping_or_not(words_and_text):
    """parsers.wordscan.KeywordScan.words_in against the naive definition (each word `w` with `w in text`): every word
    occurring in the text is found or held in a word found (two overlapping occurrences both: the trie's findall
    keeps one), however many occur (the scan took the trie's findall past 8 occurrences, which hid a word overlapping
    another), and each word found occurs.  Both before the scan is derived (its first texts) and after."""
    from parsers.wordscan import KeywordScan

    words, text = words_and_text
    occurring = {w for w in words if w in text}
    for scan in (KeywordScan(words), KeywordScan(words)._derive()):  # its first texts (word by word), and derived
        found = scan.words_in(text)
        assert set(found) <= occurring, (text, found)
        assert {w for w in occurring if any(w in f for f in found)} == occurring, (text, found)


def test_the_keyword_scan_where_occurrences_overlap():
    from parsers.wordscan import KeywordScan

    scan = KeywordScan(["ab", "bc"])  # both entered at "b": "bc" is met first, "ab" reaches past its start
    assert set(scan.words_in("abc")) == {"ab", "bc"} and set(scan.words_in("xbc ab")) == {"bc", "ab"}
    scan = KeywordScan(["Timeout", "Timeout at", "at"])
    assert "Timeout at" in scan.words_in("[Rank 0] Timeout at x")
    # REAL (tests/fixtures/realworld/nccl-pytorch-3.yaml): a row's "] Timeout" and another's "Timeout at NCCL work"
    scan = KeywordScan(["] Timeout", "Timeout at NCCL work"])
    assert set(scan.words_in("[rank6]:[E1206 18:44:16.995042142 ProcessGroupNCCL.cpp:1709] [PG 1 Rank 6] Timeout at "
                             "NCCL work: 7753, last enqueued NCCL work: 7755")) == {"] Timeout", "Timeout at NCCL work"}


def test_the_keyword_scan_on_hyperscan_finds_each_word_that_occurs_once():
    """prefilter.hyperscan_words_in (KeywordScan's engine where hyperscan is installed): each word occurring, once,
    overlapping occurrences and words held in words included, on text hyperscan reads as UTF-8 (a lone surrogate,
    which a line decoded with surrogateescape holds, too); a word with a NUL (the end of hyperscan's C string) and a
    forced other engine leave the scan to `re`."""
    pytest.importorskip("hyperscan")
    from parsers.prefilter import hyperscan_words_in

    words = ["ab", "bc", "abc", "a\\b", "x.y", "]\n", "é"]
    words_in = hyperscan_words_in(words)
    for text in ("abc", "xbc ab", "a\\b x.y ]\n", "xay é ab\udcff", "", "abcabc"):
        found = words_in(text)
        assert sorted(found) == sorted(w for w in words if w in text), text
    assert hyperscan_words_in(["ab", "a\0b"]) is None


def test_a_keyword_scan_hyperscan_fails_gives_the_words_all_the_same(monkeypatch, caplog):
    """A scan hyperscan refuses (a scratch in use, one it cannot allocate) gives the words tested one by one: the line
    is read as ever, never raised to the agent's loop (which skips the rest of its batch); the first failure of a
    scan said in one line, not one a line; each counted in the scan's `failures` (gpu_npd_scan_failures_total; was
    logged alone, counted nowhere)."""
    hs = pytest.importorskip("hyperscan")
    import threading

    from parsers import prefilter
    from parsers.wordscan import ScanFailures

    class Refusing:
        def scan(self, *_args, **_kwargs):
            raise hs.ScratchInUseError("scratch in use")

    real = prefilter._hyperscan_db
    with monkeypatch.context() as patched:
        patched.setattr(prefilter, "_hyperscan_db", lambda *args: (Refusing(), real(*args)[1]))
        failures = ScanFailures()
        words_in = prefilter.hyperscan_words_in(["Xid", "NVRM", "fallen off"], failures)
        with caplog.at_level(logging.WARNING, logger="gpu_npd.parsers"):
            for _ in range(3):
                assert sorted(words_in("NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.")) == [
                    "NVRM", "Xid", "fallen off"]
    assert failures.count == 3 and [r.getMessage() for r in caplog.records] == [
        "the hyperscan keyword scan of a line raised ScratchInUseError: scratch in use; its words tested one by one "
        "instead (counted; later ones are not logged)"]

    def no_scratch(_db):
        raise hs.NoMemoryError("no memory")

    failures = ScanFailures()
    words_in = prefilter.hyperscan_words_in(["Xid", "NVRM"], failures)
    monkeypatch.setattr(hs, "Scratch", no_scratch)  # a thread whose scratch space cannot be allocated
    got: list = []
    thread = threading.Thread(target=lambda: got.append(sorted(words_in("NVRM: Xid 79"))))
    thread.start()
    thread.join()
    assert got == [["NVRM", "Xid"]] and failures.count == 1


def test_the_keyword_database_is_one_whatever_order_the_words_come_in(monkeypatch):
    """KeywordScan's words come in a set's order, which follows the string hash: a new one every process.  The
    database's expressions are the words in one order, so every process finds the one cached database (loaded:
    149 KiB, no compile heap).  Was: their order as given, a cache key per process, so each agent compiled the
    database mid-burst (its heap kept: 5 MiB over the re scan's RSS) and left one more 149 KiB file in the cache."""
    pytest.importorskip("hyperscan")
    from parsers import prefilter

    asked: list[list[bytes]] = []
    real = prefilter._hyperscan_db
    monkeypatch.setattr(prefilter, "_hyperscan_db", lambda hs, exprs, flags: asked.append(exprs) or real(hs, exprs, flags))
    words = ["NVRM", "Xid", "fallen off", "NCCL WARN"]
    found = [prefilter.hyperscan_words_in(w)("NVRM: Xid 79, GPU has fallen off the bus.") for w in (words, words[::-1])]
    assert asked[0] == asked[1] and sorted(found[0]) == sorted(found[1]) == ["NVRM", "Xid", "fallen off"]


def test_a_hyperscan_compile_gives_back_the_heap_it_freed(monkeypatch, tmp_path):
    """A database compiled (no cached one: an agent on a read-only root compiles in every process) gives the OS back
    the heap the compile freed (glibc keeps it: the keyword database's compile left 3.1 MiB of anonymous RSS, 0.3 MiB
    trimmed; the agent's idle RSS with no cache 53 -> 41 MiB); one loaded from the cache compiles nothing."""
    hs = pytest.importorskip("hyperscan")
    from parsers import prefilter

    trims: list[int] = []
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(prefilter, "_COMPILED", {})
    monkeypatch.setattr(prefilter, "_return_freed_heap", lambda: trims.append(1))
    exprs, flags = [b"NVRM", b"Xid"], [hs.HS_FLAG_SINGLEMATCH] * 2
    prefilter._hyperscan_db(hs, exprs, flags)
    assert trims == [1]
    prefilter._COMPILED.clear()  # another process: the cached database
    prefilter._hyperscan_db(hs, exprs, flags)
    assert trims == [1]


def test_a_forced_engine_keeps_the_keyword_scan_on_re(monkeypatch):
    pytest.importorskip("hyperscan")
    from parsers.prefilter import hyperscan_words_in

    monkeypatch.setenv("GPU_NPD_MATCHER", "re")
    assert hyperscan_words_in(["ab"]) is None
    monkeypatch.setenv("GPU_NPD_MATCHER", "hyperscan")
    assert hyperscan_words_in(["ab"])("xab") == ["ab"]


def test_the_rule_tables_keyword_scan_is_hyperscans_where_installed():
    """Dispatch's keyword scan, derived, is hyperscan's (bench/perline.py's mixed kinds: 12.3k instructions a message
    where `re`'s takes 34.4k), and gives, on threads scanning at once (the pipeline's and the pod log source's
    streams share the table's scan), what each does alone: a scratch space a thread (hyperscan refuses one another
    thread's scan holds)."""
    pytest.importorskip("hyperscan")
    import threading

    from parsers.classify import _dispatch_tables
    from parsers.rules import RULES

    scan = _dispatch_tables.__wrapped__(RULES)[0]._derive()
    assert "_findall" not in vars(scan)  # (re's findall: not derived)
    texts = [f"[{i}] NVRM: Xid (PCI:0000:{i % 256:02x}:00): 79, GPU has fallen off the bus. NCCL WARN x" for i in range(3000)]
    want = [scan.words_in(t) for t in texts]
    got: dict[int, list] = {}

    def run(k: int) -> None:
        got[k] = [scan.words_in(t) for t in texts]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[k] == want for k in range(4)) and "Xid" in want[0] and "NCCL WARN" in want[0]


def test_the_keyword_scan_is_derived_after_its_first_texts():
    """KeywordScan looks its first FIRST_TEXTS texts up word by word (a small log never pays for deriving the scan),
    then derives the scan, however many words a text holds."""
    from parsers.wordscan import KeywordScan

    scan = KeywordScan(["ab", "bc"])
    for _ in range(KeywordScan.FIRST_TEXTS):
        assert set(scan.words_in("abc" * 9)) == {"ab", "bc"}
    assert "_findall" not in vars(scan)
    assert set(scan.words_in("abc" * 9)) == {"ab", "bc"} and "_findall" in vars(scan)
    assert KeywordScan([])._derive().words_in("abc") == []


def test_a_log_whose_lines_rarely_need_the_keyword_scan_never_derives_it():
    """The rule table's scan is derived only once its word-by-word look-ups have cost about what deriving it does
    (some 500 texts at 35 us against 20 ms): the hard log's first 200,000 lines bring it 123 texts (the buffer engine
    names the rows for the rest); derived after 64 texts, it was 267 M of the 1,032 M instructions callgrind counted
    over that log's lines 100,001-200,000, the slice its per-line cost is measured over."""
    from parsers.rules import RULES
    from parsers.wordscan import KeywordScan

    words = sorted({k for r in RULES for k in r.keywords})
    scan = KeywordScan(words)
    for i in range(300):
        word = words[i % len(words)]
        assert word in scan.words_in(f"[{i}] {word} at 0000:{i % 256:02x}:00.0")
    assert "_findall" not in vars(scan)


KEYWORD_PART = st.sampled_from(sorted({k for r in __import__("parsers").rules.RULES for k in r.keywords})).flatmap(
    lambda k: st.sampled_from([k, k[len(k) // 2:], k[:len(k) // 2], k[1:], k[:-1]]))


def _candidates(message, allowed=None):
    """The rows one of whose keywords occurs in the message, of the allowed rows (look-alike rows always).  Brute
    force: every keyword's `in` once per message, then the rows of each keyword in that set (each row's own `in` of
    each keyword made this test's run 20 s; each row's keywords looked up in the set, 130 rows twice a message, 8 s of
    the fixtures test's 14 of CPU)."""
    from parsers.rules import RULES

    words, rows_of = _rule_words()
    occurring = {w for w in words if w in message}
    return tuple(RULES[i] for i in sorted({i for k in occurring for i in rows_of[k]})
                 if allowed is None or i in allowed or RULES[i].kind is None)


@lru_cache(maxsize=1)
def _rule_words():
    """The rules' keywords, longest first, and each keyword's rows (the indexes of the rows it is a keyword of)."""
    from parsers.rules import RULES

    words = sorted({k for r in RULES for k in r.keywords}, key=len, reverse=True)
    return words, {k: [i for i, r in enumerate(RULES) if k in r.keywords] for k in words}


def _assert_candidates(d, message, allowed=None):
    got = d.candidates(message, allowed)
    assert got == _candidates(message, allowed), message
    return got


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(KEYWORD_PART, rule_line, st.text(max_size=6)), max_size=10).map("".join),
       st.none() | st.frozensets(st.integers(0, 130)))
def test_dispatch_candidates_are_the_rows_whose_keywords_occur(message, allowed):
    """Dispatch.candidates (its scan: KeywordScan) gives exactly the rows one of whose keywords occurs, on text of the
    keywords, their halves and heads and tails run together (overlapping keywords, keywords in keywords)."""
    from parsers.classify import Dispatch
    from parsers.rules import RULES

    d = Dispatch(RULES)
    first = _assert_candidates(d, message, allowed)
    assert d.candidates(message, allowed) == first  # from its cache


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(st.one_of(rule_line, rule_line, KEYWORD_PART, st.text(max_size=6)), min_size=1,
                                   max_size=3).map(" ".join),
                          st.none() | st.frozensets(st.integers(0, 130))), min_size=2, max_size=12))
def test_a_dispatch_reading_lines_in_turn_finds_what_a_fresh_one_does(lines):
    """Dispatch.first on a stream of lines of kinds in turn (its recent rows' plans tried before a scan, RECENT) gives
    each line the row and match a fresh Dispatch gives it (no plan: the candidates tried in order); a line holding
    lines of several rows, one of them recent, too."""
    from parsers.classify import Dispatch
    from parsers.rules import RULES

    d = Dispatch(RULES)
    for message, allowed in lines:
        got, want = d.first(message, allowed), Dispatch(RULES).first(message, allowed)
        assert (got and (got[0], got[1].span())) == (want and (want[0], want[1].span())), message


@lru_cache(maxsize=1)
def _derived_rule_scan():
    from parsers.rules import RULES
    from parsers.wordscan import KeywordScan

    words = sorted({k for r in RULES for k in r.keywords})
    return words, KeywordScan(words)._derive()


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(KEYWORD_PART, rule_line, st.text(max_size=6)), max_size=10).map("".join))
def test_the_rule_tables_keyword_scan_on_hyperscan_finds_each_keyword_that_occurs(message):
    """The rule table's keywords on hyperscan (Dispatch's scan where it is installed): each keyword occurring, once,
    on text of the keywords, their halves, rule lines and any characters run together."""
    pytest.importorskip("hyperscan")
    from parsers.prefilter import hyperscan_words_in

    words, _ = _derived_rule_scan()
    assert sorted(hyperscan_words_in(words)(message)) == sorted(w for w in words if w in message), message


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(KEYWORD_PART, rule_line, st.text(max_size=6)), max_size=10).map("".join))
def test_the_keyword_scan_word_by_word_selects_what_the_derived_scan_does(message):
    """A KeywordScan's first texts, looked up word by word (start-up: not derived), give the rule table's keywords
    the derived scan gives: the words found, each with the keywords it holds (what selects Dispatch's rows)."""
    from parsers.wordscan import KeywordScan

    words, derived = _derived_rule_scan()
    plain = KeywordScan(words)
    plain._derive = lambda: derived  # past its first texts: the derived scan's answer (derived once here)
    held = lambda found: {k for f in found for k in words if k in f}  # noqa: E731
    assert held(plain.words_in(message)) == held(derived.words_in(message)), message


def test_dispatch_candidates_however_many_keywords_occur():
    """The case hypothesis found (CI, 2026-11-28): nine occurrences counted, eight scan matches (`nvidia-peermem: `
    holds `nvidia-peermem`), so the scan took them all, the overlapping `turn`+`nvidia-peermem` included, where the
    trie's findall hides the peermem rows; with four more ` CE ` the scan took the trie's findall (past 8
    occurrences) and hid them too; it no longer has such a cap."""
    from parsers.classify import Dispatch
    from parsers.rules import RULES

    for ces in (4, 8):
        message = (" CE " * ces + "NVRM: Xid (PCI:0000:5d:00): 79, pid=1234, name=python, GPU has fallen off the bus."
                   "Reset indication didn't turnvidia-peermem: ")
        got = _assert_candidates(Dispatch(RULES), message)
        assert any(r.kind == "peermem_error" for r in got), ces


def test_dispatch_candidates_on_the_fixtures():
    from parsers.classify import Dispatch
    from parsers.envelope import split
    from parsers.rules import RULES

    d = Dispatch(RULES)
    texts: dict[str, None] = {}  # each distinct text once (a line and its message are often the same: 43,364 -> 19,441)
    for line in _fixture_lines():
        texts[line] = texts[split(line, None)[1]] = None
    seen = sum(bool(_assert_candidates(d, text)) for text in texts)
    assert seen > 1000


def test_required_literals_are_the_runs_every_match_holds():
    """wordscan.required_literals: literal runs read across plain groups and zero-width assertions; a branch, a
    repeat or a class ends a run; a case-insensitive regex or group gives none of its letters."""
    from parsers.wordscan import required_literals

    assert required_literals(r"Xid(?<![A-Za-z]Xid) \((?:a|b)\): (?P<xid>79(?!\d)),?x") == ("Xid (", "): 79", "x")
    assert required_literals(r"ab+cd(?:ef)*gh[ij]kl") == ("a", "cd", "gh", "kl")
    assert required_literals(r"^(?:abc)\bdef$") == ("abcdef",)
    assert required_literals("abc", re.I) == () and required_literals("ab(?i:cd)ef") == ("ab", "ef")


def _gated_rows():
    from parsers.classify import Dispatch
    from parsers.rules import RULES

    d = Dispatch(RULES)
    return [(r, d._gates[i]) for i, r in enumerate(RULES) if d._gates[i] is not None]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(rule_line, st.text(max_size=6)), min_size=1, max_size=3).map("".join))
def test_a_row_whose_regex_matches_holds_its_gate(message):
    """Dispatch passes over a candidate whose gate (a literal every match of its regex holds) does not occur: sound
    only if every line the row's regex matches holds it, on generated lines of every row."""
    for rule, gate in _gated_rows():
        if rule.pattern.search(message) is not None:
            assert gate in message, (rule.name, gate, message)


def _counting_dispatch():
    """A Dispatch over the shipped rows whose regexes note each search (the row's name, in `searched`)."""
    from dataclasses import replace

    from parsers.classify import Dispatch
    from parsers.rules import RULES

    searched: list[str] = []

    class Counting:
        def __init__(self, name, pattern):
            self.name, self.inner, self.pattern, self.flags = name, pattern, pattern.pattern, pattern.flags

        def search(self, text):
            searched.append(self.name)
            return self.inner.search(text)

    return Dispatch(tuple(replace(r, pattern=Counting(r.name, r.pattern)) for r in RULES)), searched


def test_a_candidate_whose_gate_does_not_occur_is_not_searched():
    """A flood of mlx5 health lines: mlx5_link before mlx5_health (both "mlx5_core") is passed over by its gate ": Link "
    without a search (a failed search cost ~4,000 instructions a line), and a link's line still gets it. (The Xid rows
    were the example until the Xid row became one, its event chosen by its code: no Xid row before it now.)"""
    d, searched = _counting_dispatch()
    # https://lore.kernel.org/netdev/20211025205431.365080-6-saeed@kernel.org/ (tests/fixtures/realworld/mlx5-more.yaml)
    health = ("mlx5_core 0000:08:00.0: print_health_info:425:(pid 912): Health issue observed, firmware internal "
              "error, severity(3) ERROR:")
    assert [d.first(health)[0].name for _ in range(3)] == ["mlx5_health"] * 3
    assert "mlx5_link" not in searched
    # https://github.com/devopsrustem/slurmv4/blob/ff9505a5dd7a5046f3cfad8e1920b0d4ed274188/3/13.sh#L632-L648
    # (tests/fixtures/realworld/mlx5-link-2026b.yaml)
    assert d.first("mlx5_core 0000:53:00.0 enp83s0f0np0: Link down")[0].name == "mlx5_link"


def test_a_new_xid_line_is_one_regex_search_whatever_its_code():
    """One Xid row, its event chosen by the code (catalog.XID_EVENTS, rules.Rule.event_if): a new Xid line of any code
    is one search of that row's regex, whether its code has an event (79, 48, 172, 119) or not (95, and 170, whose
    "): 17" passed the gate of the Xid 171/172 row that was tried before it), tried first or after a keyword scan."""
    d, searched = _counting_dispatch()
    # bench/perline.py's new matching line's shape (synthetic), each code's
    xid = "NVRM: Xid (PCI:0000:5d:00): {}, pid={}, name=python3, Uncontained: FBHUB. RST: No, D-RST: No"
    for pid, code in enumerate((95, 79, 95, 48, 172, 170, 119, 95, 95)):
        searched.clear()
        assert d.first(xid.format(code, pid))[0].name == "xid"
        assert searched == ["xid"], (code, searched)


def test_split_gives_the_message_the_builder_does_for_a_dmesg_x_line_with_a_journal_like_tag():
    """`dmesg -x` (a facility and level before the uptime) is the kernel's ring buffer, not journalctl: its builder
    (_dmesg_decode_kernel, _JOURNAL_ROWS) reads no journal host and tag there, so `split` must not take them off the message either (it
    gave "hello" for a user-space writer's "myhost myproc[12]: hello" while the envelope kept the whole message)."""
    for line in ("user  :notice: [   12.000000] myhost myproc[12]: hello",
                 "kern  :info  : [    1.343565] archlinux kernel: ata_piix 0000:00:01.1: version 2.13",
                 "[    1.343565 <    0.000012>] archlinux kernel: NVRM: Xid"):
        _check_split(line, 2025)


def _counting(tested: list) -> type:
    """A str whose `in` tests are appended to `tested` (what Dispatch.first asks of a line)."""

    class Message(str):
        def __contains__(self, keyword):
            tested.append(keyword)
            return str.__contains__(self, keyword)

    return Message


def test_the_row_tried_first_tests_the_keyword_it_found_once():
    """Dispatch.first, trying the last row first, found its keyword ("SXid") in the line; sxid_continuation before it
    holds the same one: it is known to occur, not tested again (a substring test a new line), and results are those of
    the candidates tried in order. (The Xid rows were the example until the Xid row became one, its event chosen by its
    code: no Xid row before it now.) SXid lines: sulao.cn post 1165 (tests/fixtures/incidents/sulao-1165-xid94-nvswitch)."""
    from parsers.classify import Dispatch
    from parsers.rules import RULES

    tested = []
    Message = _counting(tested)

    d = Dispatch(RULES)
    sxid = "nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 12028, Non-fatal, Link 62 egress non-posted PRIV error (First)"
    assert d.first(sxid)[0].name == "sxid"
    hit = d.first(Message(sxid))
    assert hit[0].name == "sxid" and tested.count("SXid") == 1, tested
    assert d.first(Message("nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 12028, Severity 0 Engine instance 62 Sub-engine "
                           "instance 00"))[0].name == "sxid_continuation"


def test_the_row_tried_first_tests_a_part_earlier_keywords_share_once():
    """A new Xid line, the xid row tried first: where earlier rows' keywords share a part ("fail", " INFO"), that part
    is tested once for them all (Dispatch's plan, classify._cover), not each keyword: fewer substring tests than its
    own keyword, the keywords before it and the gates of the rows sharing its keyword (15 before), same result."""
    from parsers.classify import Dispatch
    from parsers.rules import RULES

    tested = []
    Message = _counting(tested)

    d = Dispatch(RULES)
    xid = "NVRM: Xid (PCI:0000:5d:00): 95, pid={}, name=python3, Uncontained: FBHUB. RST: No, D-RST: No"
    assert d.first(xid.format(1))[0].name == "xid"
    i = next(i for i, r in enumerate(RULES) if r.name == "xid")
    earlier = {k for r in RULES[:i] for k in r.keywords} - set(RULES[i].keywords)
    sharing = [r for r in RULES[:i] if set(r.keywords) & set(RULES[i].keywords)]
    assert d.first(Message(xid.format(2)))[0].name == "xid"
    assert len(tested) < 1 + len(earlier) + len(sharing), tested
    assert d.first(Message("NCCL INFO " + xid.format(3)))[0].name == "nccl_info"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="abcf IN", min_size=1, max_size=12), min_size=1, max_size=8, unique=True))
def test_each_keyword_holds_a_literal_of_its_cover(keywords):
    """classify._cover: where none of its literals occurs in a line, none of the keywords does (each holds one), and
    it has no more literals than keywords."""
    from parsers.classify import _cover

    keywords = tuple(keywords)
    cover = _cover(keywords)
    assert len(cover) <= len(keywords) and all(any(part in k for part in cover) for k in keywords)


def test_each_earlier_keyword_holds_a_literal_of_a_rows_cover():
    """The same of the table's rows tried first: each earlier row's keyword holds a literal of the row's plan (a test
    of its own, once: it does not depend on the examples above, and ran with each of them, 300 times)."""
    from parsers.classify import _before, _dispatch_tables
    from parsers.rules import RULES

    gates = _dispatch_tables(RULES)[3]
    for i in range(len(RULES)):
        plan = _before(RULES, i, gates)
        if plan is not None:
            earlier = {k for r in RULES[:i] for k in r.keywords} - set(RULES[i].keywords)
            assert all(any(part in k for part in plan[0]) for k in earlier), RULES[i].name


def test_split_reads_a_dmesg_lines_journal_tag_once():
    """(h602) A `journalctl -o short-monotonic` / `short-delta` line's host and tag are matched once, by split: the
    envelope's building (finish) does not match them again (was: _dmesg and _dmesg_decode looked again)."""
    from parsers import envelope

    looked = []
    real = envelope._journal
    try:
        envelope._journal = lambda message: looked.append(message) or real(message)
        for line in ("[    1.343565] archlinux kernel: ata_piix 0000:00:01.1: version 2.13",  # systemd/systemd#24950
                     "[  +0.000123] h python3[123]: NVRM: hello"):
            looked.clear()
            _, message, pending = envelope.split(line, 2025)
            env = envelope.finish(pending)
            assert (env.name, env.message, len(looked)) == ("journal", message, 1), line
    finally:
        envelope._journal = real


def test_split_leaves_a_dmesg_line_without_a_journal_tag_to_a_builder_that_does_not_look_again():
    """split looks for the journal's host and tag in a dmesg line's message (journalctl -o short-monotonic); where it
    finds none, the envelope is built by a builder that does not look again (_JOURNAL_ROWS: two substring tests a
    line), and is the one the row's own builder gives."""
    from parsers import envelope

    for line, name, builder in (
            ("[    5.123456] NVRM: Xid (PCI:0000:5d:00): 95, pid=1, name=python3, Uncontained: FBHUB.", "dmesg",
             envelope._dmesg_kernel),
            ("[    5.123456] usb 1-1: kernel: new device", "dmesg", envelope._dmesg_kernel),  # no tag _journal reads
            ("[    1.000000] [Fri Feb 13 23:31:31 2009] NVRM: hello", "dmesg_t", envelope._dmesg_kernel),
            ("[    1.343565] archlinux kernel: ata_piix 0000:00:01.1: version 2.13", "journal", envelope._dmesg_journal),
            ("[   12.300000] h python3[123]: NVRM: hello", "journal", envelope._dmesg_journal),
            ("[  +0.000123] h kernel: NVRM: hello", "journal", envelope._dmesg_decode_journal),
            # dmesg_decode's lines without a tag: -x's facility (never the journal's), a delta alone (rr7: the builder
            # looked for the journal's tag again)
            ("kern  :err   : [  +0.000123] NVRM: hello", "dmesg_decode", envelope._dmesg_decode_kernel),
            ("[  +0.000123] NVRM: hello", "dmesg", envelope._dmesg_decode_kernel)):
        _, _, pending = envelope.split(line, 2025)
        assert pending[0] is builder, line
        assert envelope.finish(pending).name == name
        _check_split(line, 2025)


def test_where_a_journal_tag_may_follow_is_the_tables_for_split_and_the_rows_builder(monkeypatch):
    """Whether a "journal" row's line may hold the journal's host and tag (after dmesg's uptime; never after -x's
    facility) is declared once, in _JOURNAL_ROWS, and read by split and by the row's builder at once (ENVELOPES'):
    the table's word changed, both follow it (was: split's own inline test naming the dmesg_decode row, and each
    row's builder its own)."""
    from parsers import envelope

    line = "[    1.343565] archlinux kernel: ata_piix 0000:00:01.1: version 2.13"  # systemd/systemd#24950
    assert envelope.finish(envelope.split(line, 2025)[2]).name == "journal"
    journaled, kernel, _ = envelope._JOURNAL_ROWS["dmesg"]
    monkeypatch.setitem(envelope._JOURNAL_ROWS, "dmesg", (journaled, kernel, False))
    name, message, pending = envelope.split(line, 2025)
    assert (envelope.finish(pending).name, message) == ("dmesg", "archlinux kernel: ata_piix 0000:00:01.1: version 2.13")
    _check_split(line, 2025)  # (the rows' builder at once: the same)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["RST: ", "D-RST: ", "Yes", "No", ", ", "x", "_", "é", " ", ".", "-"]), max_size=12)
       .map("".join))
def test_the_containment_decision_is_read_where_re_skips_to_its_literal(text):
    """_refine_xid searches every new Xid 94/95 line's text for the containment decision (catalog.CONTAINMENT_LINE).
    Its word boundary is asserted after the literal "RST", so the regex starts with a literal that `re` skips to
    (with `\\b` first it was tried at every position of the text); it finds what `\\bRST: ...` does, where it does."""
    import re._compiler as sre_compile  # noqa: PLC0415 - re's own reading of a pattern's literal prefix
    import re._parser as sre_parse  # noqa: PLC0415

    from parsers.catalog import CONTAINMENT_ACTION, CONTAINMENT_LINE, CONTAINMENT_RECOVERY

    prefix = sre_compile._get_literal_prefix(sre_parse.parse(CONTAINMENT_LINE.pattern, CONTAINMENT_LINE.flags), 0)[0]
    assert "".join(map(chr, prefix)).startswith("RST")
    boundary_first = re.compile(r"\bRST: (?P<rst>Yes|No), D-RST: (?P<drst>Yes|No)")
    for line in (text, "Contained: SM (0x1). " + text, "Uncontained: FBHUB. RST: No, D-RST: No" + text):
        want, got = boundary_first.search(line), CONTAINMENT_LINE.search(line)
        # the same decision where the same text: the group `lastindex` names is the decision's, its action the table's
        assert (want and (want.span(), want.groups(), CONTAINMENT_RECOVERY.get(want.groups()))) == \
            (got and (got.span(), tuple(CONTAINMENT_RECOVERY)[got.lastindex - 1], CONTAINMENT_ACTION[got.lastindex])), line


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["RST: ", "D-RST: ", "Yes", "No", ", ", "x", "Ye", "s", " ", "."]), max_size=12)
       .map("".join))
def test_a_containment_line_without_the_gate_word_decides_nothing(text):
    """(h594) _refine_xid searches an Xid 94/95 line for its containment decision only where the word every decision
    with an action holds (catalog.CONTAINMENT_GATE, "Yes") occurs: where it does not, the search finds no action."""
    from parsers.catalog import CONTAINMENT_ACTION, CONTAINMENT_GATE, CONTAINMENT_LINE, CONTAINMENT_RECOVERY

    assert CONTAINMENT_GATE == "Yes" and all(CONTAINMENT_GATE in d for d, action in CONTAINMENT_RECOVERY.items() if action)
    for line in (text, "Uncontained: FBHUB. " + text, "Contained: SM (0x1). RST: No, D-RST: No" + text):
        m = CONTAINMENT_LINE.search(line)
        if CONTAINMENT_GATE not in line:
            assert m is None or CONTAINMENT_ACTION[m.lastindex] is None, line


def test_a_no_and_no_containment_line_is_not_searched(monkeypatch):
    """(h594) A new Xid 94 line saying "RST: No, D-RST: No" (what most say) keeps the catalog's row with no search of
    its text (~2,900 instructions a line); one saying Yes is searched and raised (xid.yaml's line; the same with a Yes)."""
    from parsers import rules

    searched = []
    real = rules.CONTAINMENT_LINE
    monkeypatch.setattr(rules, "CONTAINMENT_LINE", type("Spy", (), {
        "search": staticmethod(lambda text: searched.append(text) or real.search(text))}))
    for text, want in (("Contained: SM (0x1). RST: No, D-RST: No", None),
                       ("Contained: SM (0x1). RST: Yes, D-RST: No", "gpu reset required")):
        out = {"kind": "xid", "severity": "info", "attribution": "unknown", "action": "NONE", "details": {}}
        rules.REFINERS["xid"]({"xid": "94", "text": text}, out)
        assert out["details"].get("recovery_action") == want, text
    assert searched == ["Contained: SM (0x1). RST: Yes, D-RST: No"]


@given(st.text(alphabet="0123456789\u0669", min_size=1, max_size=22), st.booleans())
def test_an_xid_or_sxid_lines_catalog_row_is_its_findings_codes(digits, sxid):
    """(h602) The refiners read a code's catalog row as the finding's field reads its code (rules.xid_row / sxid_row,
    bounded_int's, one cached reading for both): a non-ASCII or overlong code (None in the finding) is the catalog's
    UNKNOWN row, never another code's (was: catalog.xid_info_of's int() read "\u0669" as 9, beside classify._code's
    bounded_int; _refine_sxid's int() had no cache)."""
    from parsers import rules
    from parsers.catalog import sxid_info, xid_info
    from parsers.finding import bounded_int

    out = {"kind": "x", "severity": "info", "attribution": "unknown", "action": "NONE", "details": {}}
    rules.REFINERS["sxid" if sxid else "xid"]({"sxid" if sxid else "xid": digits, "text": ""}, out)
    row = sxid_info(bounded_int(digits)) if sxid else xid_info(bounded_int(digits))
    assert (out["details"]["name" if sxid else "mnemonic"], out["action"]) == \
        (row.name if sxid else row.mnemonic, row.action)


def test_a_non_ascii_xid_code_is_the_unknown_row_of_a_finding_without_a_code():
    """(h602) "\u0667\u0669" (`\\d` matches it) is no Xid code: the finding's xid is None and its row the catalog's
    UNKNOWN one (was: Xid 79's, fatal RESET_GPU, on a finding naming no Xid); the same for an SXid."""
    from parsers import Classifier

    c = Classifier()
    f = c.read("NVRM: Xid (PCI:0000:5d:00): \u0667\u0669, pid=1234, name=python3, Ch 00000001")[0]
    assert (f.kind, f.xid, f.details["mnemonic"], f.severity, f.action) == \
        ("xid", None, "UNKNOWN", "error", "CONTACT_SUPPORT")  # (catalog.UNKNOWN_XID)
    s = c.read("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): \u0662\u0660\u0660\u0663\u0664, Non-fatal, Link 44")[0]
    assert (s.kind, s.sxid, s.details["name"]) == ("sxid", None, "UNKNOWN")


def test_a_storm_of_new_xid_lines_reads_each_code_once():
    """(h594) New Xid lines of one code (a pid apiece: each new to the memo) read the code's text once, for the
    refiner's row and the finding's field alike (rules.xid_row, h602: one cache for both, was two): cache hits after
    the first, the same findings."""
    from parsers import Classifier
    from parsers.rules import xid_row

    c = Classifier()
    before = xid_row.cache_info()
    found = [c.read(f"[ 100.{i:06d}] NVRM: Xid (PCI:0000:5d:00): 95, pid={1000 + i}, name=python3, Uncontained: FBHUB. "
                    f"RST: No, D-RST: No")[0] for i in range(3)]
    assert [(f.xid, f.pid, f.severity, f.action) for f in found] == [(95, 1000 + i, "fatal", "RESET_GPU") for i in range(3)]
    after = xid_row.cache_info()
    assert after.hits - before.hits >= 5 and after.misses - before.misses <= 1  # 6 reads: one miss at most


@given(st.text(alphabet="0123456789\u0669x ", max_size=22))
def test_a_codes_cached_row_is_bounded_ints(digits):
    """(h594) rules.xid_row / sxid_row (an Xid's / SXid's code, cached): the number of 1 to 18 ASCII digits, else the
    catalog's unknown row (code None: an Arabic-Indic digit, a space, an overlong run)."""
    from parsers.finding import MAX_DIGITS
    from parsers.rules import sxid_row, xid_row

    number = int(digits) if 0 < len(digits) <= MAX_DIGITS and all(c in "0123456789" for c in digits) else None
    assert xid_row(digits).code == sxid_row(digits).code == number


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(["[", "[ ", "[  ", "[1", "[Fri", "[Sun Nov 22 02:05:37 2026]", "[    1.000000]", "[123 456  1 12:00:00 2020]",
                        "[Mon Feb 2 22:52:45 2026]", "[Ter Set 19 06:01:41 2017]", "[    1.000000] [Fri Feb 13 23:31:31 2009]",
                        "[Fri Feb 13 23:31:31 2009] 2009-02-13T23:31:31,123456+00:00"]),
       st.text(alphabet="0123456789. :[]TCFriSunNov,+-", max_size=30))
def test_the_dmesg_rows_alternatives_are_the_dmesg_and_dmesg_t_rows_they_were(head, text):
    """(h612) `dmesg -T` is the dmesg row's second alternative (a dmesg -T line is matched once, not refused by the
    uptime's regex first): the row matches a line exactly where the two rows it was did, the uptime's first, and gives
    the same message and stamps."""
    import re as _re

    from parsers.envelope import _ISO_STAMP, CALLER, ENVELOPES as ROWS

    dmesg = _re.compile(r"^\[\s*(\d+\.\d+)\] ?(?:\[(?: *[TC]\d+\]|(?<=\] \[)([A-Z][a-z]{2} [A-Z][a-z]{2} "
                        r"[ \d]\d \d\d:\d\d:\d\d \d{4})\](?: " + _ISO_STAMP + ")?" + CALLER + r") ?|)(.*)$", _re.S)
    dmesg_t = _re.compile(r"^\[(\w{3}) (\w{3}) +(\d{1,2}) (\d\d:\d\d:\d\d) (\d{4})\](?: " + _ISO_STAMP + ")?"
                          r" ?(.*)$", _re.S)
    row = next(pattern for name, _starts, pattern, *_ in ROWS if name == "dmesg")
    line = head + text
    m, was, was_t = row.match(line), dmesg.match(line), dmesg_t.match(line)
    if was:
        assert m and m.group(1, 2, 4) == was.groups() and m.group(3) is None, line
    elif was_t:
        assert m and m.group(1, 2) == (None, None) and m.group(4) == was_t.group(6), line
        assert m.group(3).split() == list(was_t.group(1, 2, 3, 4, 5)), line
    else:
        assert m is None, line
    assert [name for name, starts, *_ in ROWS if "[" in starts][0] == "dmesg"


def test_every_split_row_ends_with_its_message_group():
    """`split` reads a row's message as the match's `lastindex` (the group closed last): every row whose message
    split reads ends with its message group, `(.*)$`, which closes last in every match, so the group closed last is
    the pattern's last group."""
    import re as _re

    from parsers.envelope import ENVELOPES as ROWS
    for name, _starts, pattern, _build, message in ROWS:
        if message is not None:
            compiled = pattern.compiled()
            assert compiled.pattern.endswith("(.*)$") and not compiled.pattern.endswith(r"\(.*)$"), name
            assert _re.compile(compiled.pattern[:-len("(.*)$")], compiled.flags).groups == compiled.groups - 1, name


# --- an engine's scan that raises: the buffer's lines scanned by `re` all the same ---------------------------------

def _dmesg(fixtures) -> bytes:
    """The real dmesg fixtures' lines (tests/fixtures/dmesg, each file's sources beside it), as one buffer."""
    return b"".join(p.read_bytes() for p in sorted((fixtures / "dmesg").glob("*.*")) if p.suffix != ".md")


def _scanner(engine: str) -> Scanner:
    classifier = Classifier()
    return Scanner(classifier, Prefilter(all_keywords(), engine=engine, patterns=line_patterns(classifier.rules)))


def _findings(scanner: Scanner, data: bytes, chunk: int = 1 << 20) -> list:
    return [(f.line, f.kind, f.message) for f in scanner.scan(io.BytesIO(data), chunk=chunk)]


def test_a_buffer_hyperscan_fails_to_scan_is_scanned_by_re_nothing_lost(fixtures, monkeypatch, caplog):
    """A buffer scan hyperscan raises on (its scratch in use by another thread's scan of the shared database, a
    database of another platform, no memory: any hs.error) is `re`'s keyword scan of that buffer: the same findings,
    never the exception, which cost `gpu-npd parse` its run and the pod log source its poll's batch (a restart, the
    read's lines gone: their offset was taken); counted, the first said in one log line, not one a buffer."""
    hs = pytest.importorskip("hyperscan")
    data = _dmesg(fixtures)
    ref = _findings(_scanner("re"), data)
    scanner = _scanner("hyperscan")
    assert scanner.prefilter.by_pattern and _findings(scanner, data) == ref

    class Refusing:
        def __init__(self, error):
            self.error = error

        def scan(self, *_args, **_kwargs):
            raise self.error

    for error in (hs.ScratchInUseError("scratch in use"), hs.DatabasePlatformError("platform"),
                  hs.NoMemoryError("no memory")):
        scanner = _scanner("hyperscan")
        monkeypatch.setattr(scanner.prefilter, "_db", Refusing(error))
        caplog.clear()
        with caplog.at_level("WARNING", logger="gpu_npd.parsers"):
            assert ref and _findings(scanner, data, chunk=4096) == ref
        assert scanner.prefilter.scan_failures > 1  # every buffer, each scanned again by `re`
        assert [r.getMessage() for r in caplog.records if "scanned with re instead" in r.getMessage()] == [
            f"the hyperscan scan of a buffer raised {type(error).__name__}: {error}; scanned with re instead (counted; "
            "later ones are not logged)"]


def test_threads_scanning_one_prefilter_at_once_never_fall_back(fixtures):
    """Prefilters of the same expressions share one database (`_COMPILED`); its buffer scan took the database's one
    scratch space, which hyperscan refuses to a scan while another thread's holds it (ScratchInUseError: each such
    buffer counted and scanned again by `re`, the scan slower).  Now a scratch space a thread, as the keyword scan's:
    two threads scanning one Prefilter at once, many times, find what one finds alone and never fall back."""
    pytest.importorskip("hyperscan")
    import sys
    import threading

    data = _dmesg(fixtures)
    pf = _scanner("hyperscan").prefilter
    assert pf.engine == "hyperscan"
    want = list(pf.line_spans(data))
    got: dict[int, list] = {}
    start = threading.Barrier(2)

    def run(k: int) -> None:
        start.wait()
        got[k] = [list(pf.line_spans(data)) == want for _ in range(60)]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads switch inside each other's scans (in its match callbacks)
    try:
        threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert want and pf.scan_failures == 0 and all(all(got[k]) for k in range(2))


def test_a_buffer_re2_fails_to_scan_goes_on_by_re_from_the_first_line_not_given(fixtures, monkeypatch):
    """RE2 raising within a buffer (its search, or a Set's match, on some input): the lines it gave stand and `re`
    scans on from the next line, so each line is given once, none lost, the findings those of `re`'s scan."""
    pytest.importorskip("re2")
    data = _dmesg(fixtures)
    ref = _findings(_scanner("re"), data)
    for fail_at in (0, 1, 5, 40):
        scanner = _scanner("re2")
        assert scanner.prefilter.by_pattern
        calls = [0]

        def failing(search):
            def wrapped(*args):
                calls[0] += 1
                if calls[0] > fail_at:
                    raise RuntimeError("re2 raised")
                return search(*args)
            return wrapped

        scanner.prefilter._re2 = [(failing(s), m, ids) for s, m, ids in scanner.prefilter._re2]
        assert ref and _findings(scanner, data) == ref, fail_at
        spans = [(s, e) for s, e, _ in scanner.prefilter.line_spans(data)]
        assert len(spans) == len(set(spans)) and spans == sorted(spans)
        assert scanner.prefilter.scan_failures >= 1


def test_hyperscan_refusing_every_expression_leaves_the_keyword_scan_to_re(monkeypatch):
    """A hyperscan that compiles none of the tries (the patterns, in prefilter mode, the keywords) makes a Prefilter of
    the `re` engine, not one whose every buffer raised AttributeError (no database)."""
    hs = pytest.importorskip("hyperscan")
    from parsers import prefilter

    def refuse(*_args):
        raise hs.CompilerError("refused")

    monkeypatch.setattr(prefilter, "_hyperscan_db", refuse)
    pf = Prefilter(["Xid"], engine="hyperscan")
    assert pf.engine == "re" and not pf.by_pattern
    assert list(pf.line_spans(b"a\nNVRM: Xid 79\nb")) == [(2, 14, None)] and pf.scan_failures == 0


def test_an_re2_set_that_names_no_pattern_of_a_matched_line_loses_no_line(fixtures):
    """RE2::Set::Match gives no pattern where its DFA ran out of memory (google/re2 re2/set.cc: "DFA out of memory",
    false): a line its group's alternation matched, named by no Set, had no row to try (ids empty) and was lost; now
    `re` scans on from that line, the findings those of `re`'s scan."""
    pytest.importorskip("re2")
    data = _dmesg(fixtures)
    ref = _findings(_scanner("re"), data)
    scanner = _scanner("re2")
    calls = [0]

    def failing(match_set):
        def wrapped(text):
            calls[0] += 1
            return None if calls[0] == 3 else match_set(text)
        return wrapped

    scanner.prefilter._re2 = [(s, failing(m), ids) for s, m, ids in scanner.prefilter._re2]
    assert ref and _findings(scanner, data) == ref and calls[0] == 3 and scanner.prefilter.scan_failures == 1


def test_giving_the_heap_back_where_python_has_no_ctypes_costs_nothing(monkeypatch):
    """A Python built without libffi has no `_ctypes`: `import ctypes` raises ImportError.  Giving the compile's heap
    back is then skipped, as on musl (no malloc_trim): was raised out of every hyperscan compile (the buffer
    Prefilter's at start-up, the keyword scan's mid-burst), the engine lost to a courtesy."""
    import sys

    from parsers import prefilter

    monkeypatch.setitem(sys.modules, "ctypes", None)  # `import ctypes` raises ImportError
    prefilter._return_freed_heap()
