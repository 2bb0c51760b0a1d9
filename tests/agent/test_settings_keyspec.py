"""agent/keyspec's `convert`: the declared types read without a library (issue 24: msgspec, with the decimal module
its core imports and typing_extensions, cost ~1.3 MiB of the idle agent for this one conversion). The lax readings
kept are those the environment and YAML written by hand rely on; errors are the one-line messages msgspec's were
turned into (tests/agent/test_settings.py, test_config.py, test_progress.py pin those)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import pytest

from agent.config import ConfigError, load
from agent.keyspec import Invalid, Meta, convert, doc, each, num


@dataclass(frozen=True)
class Rule:
    name: str
    level: Literal["low", "high"] = "low"


@dataclass(frozen=True)
class Block:
    rate: Annotated[float, num("a rate", gt=0)] = 1.0
    count: Annotated[int, num("a count", gt=0)] = 3
    on: Annotated[bool | None, doc("maybe")] = None
    prefix: Annotated[str, doc("a prefix", pattern="/$")] = "a/"
    rules: tuple[Rule, ...] = ()
    names: list[str] = field(default_factory=list)
    table: dict[str, list[str]] = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)


def test_the_declared_types_are_converted():
    b = convert({"rate": 2, "count": "4", "on": "TRUE", "rules": [{"name": "x", "level": "high"}], "names": ("a",),
                 "table": {"k": ["v"]}, "data": {1: (2,)}, "rows": [{"a": 1}]}, Block)
    assert b == Block(2.0, 4, True, "a/", (Rule("x", "high"),), ["a"], {"k": ["v"]}, {1: (2,)}, [{"a": 1}])
    assert type(b.rate) is float and type(b.count) is int and type(b.rules) is tuple and type(b.names) is list
    assert convert({}, Block) == Block() and convert({"unknown": 1}, Block) == Block()  # config.py refuses those
    assert doc("d", le=1) == Meta(description="d", le=1) and num("n") == Meta("n", ge=-10**9, le=10**9)


def test_a_tuple_of_fixed_length_has_that_many_items_each_of_its_type():
    assert convert([1, "2"], tuple[float, str]) == (1.0, "2")
    for bad, says in (([1], ("t", "expected a list of 2")), ([1, 2, 3], ("t", "expected a list of 2")),
                      (["x", "y"], ("t[0]", "expected a number")), ([10**400, "y"], ("t[0]", "number out of range"))):
        with pytest.raises(Invalid) as exc:
            convert(bad, tuple[float, str], "t")
        assert (exc.value.path, exc.value.what) == says


def test_each_entry_of_a_saved_section_is_read_alone():
    """A restore's reading (agent/state.py's sections): each entry converted alone, a bad one dropped with its fault
    (where, what), the rest kept; a section not of its container one fault."""
    faults: list[str] = []
    assert list(each({"a": [1, 2], "b.c": [1], "d": "x", "e": [3, 4]}, dict[str, tuple[float, float]], "s",
                     faults)) == [("a", (1.0, 2.0)), ("e", (3.0, 4.0))]
    assert faults == ["s['b.c']: expected a list of 2", "s.d: expected a list"]
    assert list(each(["x", 5, "y"], list[str], "l", faults)) == [(0, "x"), (2, "y")] and faults[-1] == \
        "l[1]: expected a string"
    assert list(each(None, list[str], "l", faults)) == [] and faults[-1] == "l: expected a list"
    assert list(each([], dict[str, str], "m", faults)) == [] and faults[-1] == "m: expected a mapping"


def test_a_saved_nan_or_infinity_is_dropped_alone_with_its_fault():
    """Python's json reads NaN, Infinity and -Infinity: in a saved number (a restore's float, no bounds declared) each
    is dropped alone with its fault, the rest kept (was: restored, a problem whose last_seen is NaN never expiring
    and never evicted first). A configuration key's bounds still say theirs (test_errors_say_where_what_and_the_value)."""
    import json
    saved = json.loads('{"a": [NaN, 1], "b": [1, Infinity], "c": [-Infinity, 2], "d": [1, 2], "e": ["nan", 2]}')
    faults: list[str] = []
    assert list(each(saved, dict[str, tuple[float, float]], "s", faults)) == [("d", (1.0, 2.0))]
    assert faults == ["s.a[0]: expected a finite number", "s.b[1]: expected a finite number",
                      "s.c[0]: expected a finite number", "s.e[0]: expected a finite number"]


@pytest.mark.parametrize("value, kind, expected", [
    ("5", int, 5), ("-0", int, 0), ("5.0", int, 5), ("1e3", int, 1000), (4096.0, int, 4096),  # numbers as text
    ("5", float, 5.0), ("-0.5", float, -0.5), ("1E3", float, 1000.0), (7, float, 7.0),
    ("true", bool, True), ("FALSE", bool, False), ("1", bool, True), ("0", bool, False), (1, bool, True),
    (0, bool, False), ("null", bool | None, None), ("Null", bool | None, None), (None, bool | None, None),
    ("1", bool | None, True),
])
def test_lax_readings_kept(value, kind, expected):
    """What GPU_NPD_<KEY>=5, GPU_NPD_<BLOCK>__ENABLED=1 and `max_problems: 4096.0` rely on (msgspec's strict=False)."""
    got = convert(value, kind)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("value, kind", [
    (" 5", float), ("5 ", int), ("0x10", int), ("1_000", float), ("+5", float), ("5.", float), (".5", float),
    ("0005", int), ("5.5", int), (5.5, int), (1e18, int), ("nan", int), (True, int), (True, float), ("", float),
    (None, float), ("yes", bool), ("-0", bool), (2, bool), (1.0, bool), ("", bool), (5, str), (None, str),
    ("JSON", Literal["text", "json"]), (1, Literal["1"]), ("x", bool | None), ("none", bool | None),
])
def test_what_is_not_of_the_type_is_refused(value, kind):
    with pytest.raises(Invalid) as exc:
        convert(value, kind, "key")
    assert exc.value.path == "key" and exc.value.got is value


@pytest.mark.parametrize("value, says", [
    ({"rate": 0}, ("rate", "expected a number > 0", 0)),
    ({"rate": "nan"}, ("rate", "expected a number > 0", "nan")),
    ({"rate": "inf"}, ("rate", "expected a number <= 1000000000", "inf")),
    ({"rate": "1e400"}, ("rate", "number out of range", "1e400")),
    ({"rate": 10**400}, ("rate", "number out of range", 10**400)),
    ({"count": "9" * 5000}, ("count", "number out of range", "9" * 5000)),  # was int()'s ValueError, no Invalid
    ({"count": 0}, ("count", "expected an integer >= 1", 0)),  # as msgspec said an int's > 0
    ({"prefix": "a"}, ("prefix", "expected a string matching regex '/$'", "a")),
    ({"on": "perhaps"}, ("on", "expected true or false | null", "perhaps")),
    ({"rules": [{}]}, ("rules[0]", "object missing required field name", {})),
    ({"rules": [{"name": "x", "level": "mid"}]}, ("rules[0].level", "expected one of low, high", "mid")),
    ({"names": "a,b"}, ("names", "expected a list", "a,b")),
    ({"names": ["a", 1]}, ("names[1]", "expected a string", 1)),
    ({"table": {"k": "v"}}, ("table.k", "expected a list", "v")),  # a plain key is named (was table[...])
    ({"table": {"a.b": "v"}}, ("table[...]", "expected a list", "v")),
    ({"table": {1: []}}, ("table", "a key is not usable: expected a string, got an integer", None)),
    ({"rows": [{1: 2}]}, ("rows[0]", "a key is not usable: expected a string, got an integer", None)),
    ({"data": []}, ("data", "expected a mapping", [])),
])
def test_errors_say_where_what_and_the_value(value, says):
    with pytest.raises(Invalid) as exc:
        convert(value, Block)
    path, what, got = says
    assert (exc.value.path, exc.value.what) == (path, what)
    assert exc.value.got == got if got is not None else exc.value.what.startswith("a key")


@pytest.mark.parametrize("env, said", [
    # a key inside an open mapping names the key and so the variable (was "sample_ignore[...]: expected a list,
    # got a string", naming neither)
    ({"GPU_NPD_SAMPLE_IGNORE__IB_PORT": "foo"}, "GPU_NPD_SAMPLE_IGNORE__IB_PORT: sample_ignore.ib_port: expected a "
                                                "list, got 'foo'"),
    ({"GPU_NPD_SAMPLE_IGNORE__PCI": "[1]"}, "GPU_NPD_SAMPLE_IGNORE__PCI: sample_ignore.pci[0]: expected a string, "
                                            "got 1"),
    ({"GPU_NPD_TICK_SECONDS": " 5"}, "GPU_NPD_TICK_SECONDS: tick_seconds: expected a number, got ' 5'"),
    ({"GPU_NPD_TICK_SECONDS": "1e400"}, "GPU_NPD_TICK_SECONDS: tick_seconds: number out of range, got '1e400'"),
    ({"GPU_NPD_MAX_PROBLEMS": "0"}, "GPU_NPD_MAX_PROBLEMS: max_problems: expected an integer >= 1, got '0'"),
    ({"GPU_NPD_JOURNALD": "perhaps"}, "GPU_NPD_JOURNALD: journald: expected true or false | null, got 'perhaps'"),
    ({"GPU_NPD_UDEV": "-0"}, "GPU_NPD_UDEV: udev: expected true or false, got '-0'"),  # msgspec read False
])
def test_environment_errors(env, said):
    with pytest.raises(ConfigError) as exc:
        load(env=env)
    assert str(exc.value) == said


def test_environment_and_file_values_read_laxly_load():
    cfg = load(env={"GPU_NPD_MAX_PROBLEMS": "5.0", "GPU_NPD_TICK_SECONDS": "1e3", "GPU_NPD_WORKLOAD_HANG__ENABLED": "0",
                    "GPU_NPD_PEER_OUTLIERS__ENABLED": "1", "GPU_NPD_JOURNALD": "NULL"})
    assert (cfg.max_problems, cfg.tick_seconds, cfg.workload_hang.enabled, cfg.peer_outliers.enabled, cfg.journald) \
        == (5, 1000.0, False, True, None)
    cfg = load(env={}, flags={"max_problems": 4096.0, "workload_hang": {"enabled": "TRUE", "min_steps": "7"}})
    assert type(cfg.max_problems) is int and cfg.workload_hang.enabled is True and cfg.workload_hang.min_steps == 7
    with pytest.raises(ConfigError, match=r"^conditions\.GPUUnhealthy\.ok_reason: expected a string, got 5$"):
        load(env={}, flags={"conditions": {"GPUUnhealthy": {"ok_reason": 5, "ok_message": "x"}}})
    with pytest.raises(ConfigError, match=r"^kubernetes\.taints\[0\]: object missing required field condition, got "
                                          r"\{\}$"):
        load(env={}, flags={"kubernetes": {"taints": [{}]}})
