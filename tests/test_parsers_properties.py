"""Property tests: nothing raises on arbitrary input; engines agree; kmsg round-trips."""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsers import Classifier, Prefilter, Scanner, all_keywords, detect
from parsers.prefilter import ENGINES, _load

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


def test_unknown_engine_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown matcher engine"):
        Prefilter(["x"], engine="grep")
