"""The table of optional sinks (agent/sinks/__init__.py): a row is the whole declaration of a sink an operator turns
on: its block of the configuration (keys, defaults, validation, the variable that sets it, the docs) and its place
among the agent's sinks (docs/extending.md, "A new sink": the sink's module, its row, its test)."""

from __future__ import annotations

import dataclasses
import io
from dataclasses import dataclass
from typing import Annotated

import pytest

from agent import sinks
from agent.app import build
from agent.config import ConfigError, load
from agent.keyspec import Invalid, convert, doc, num
from agent.settings import keys


@dataclass(frozen=True)
class TapSettings:
    enabled: Annotated[bool, doc("keep snapshots in a list")] = False
    limit: Annotated[int, num("snapshots kept", gt=0)] = 8


class Tap:
    def __init__(self, settings: TapSettings, node: str):
        self.settings, self.node, self.seen, self.started = settings, node, [], False

    def apply(self, snapshot) -> None:
        self.seen.append(snapshot)


class ThreadedTap(Tap):
    def start(self) -> None:
        self.started = True

    def close(self) -> None:
        self.started = False


ROWS = (sinks.SinkRow("tap", TapSettings, Tap, "snapshots kept in a list"),
        sinks.SinkRow("threaded", TapSettings, ThreadedTap, "the same, on a thread of its own"))


def test_a_row_is_a_block_of_the_configuration_off_by_default():
    Block = sinks.block(ROWS)
    assert Block() == Block(tap=TapSettings(), threaded=TapSettings()) and not sinks.enabled(Block(), "n", ROWS)
    on = convert({"tap": {"enabled": True, "limit": 3}}, Block, "sinks")
    assert on.tap == TapSettings(enabled=True, limit=3) and on.threaded == TapSettings()
    built, = sinks.enabled(on, "node-1", ROWS)
    assert isinstance(built, Tap) and built.node == "node-1" and built.settings.limit == 3
    # its keys are checked as every key is, and the error names the key
    with pytest.raises(Invalid, match=r"sinks\.tap\.limit"):
        convert({"tap": {"limit": 0}}, Block, "sinks")
    # the reference docs list the block and its keys, each with its doc; the block's variable sets it whole
    rows = {k.path: k for k in keys(Block, "sinks.")}
    assert rows["sinks.tap"].block and rows["sinks.tap"].doc == "snapshots kept in a list"
    assert rows["sinks.tap"].env == "GPU_NPD_SINKS__TAP" and rows["sinks.tap.limit"].env == ""
    assert rows["sinks.tap.limit"].default == 8 and rows["sinks.tap.limit"].bounds


def test_the_agent_adds_each_enabled_row_and_starts_one_with_a_thread(tmp_path, monkeypatch):
    monkeypatch.setattr(sinks, "SINKS", ROWS)
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path), "fallback_log_files": [],
                              "fabricmanager_log": "", "imex_log": ""})
    cfg = dataclasses.replace(cfg, sinks=sinks.block(ROWS)(threaded=TapSettings(enabled=True)))
    agent = build(cfg, out=io.StringIO())
    added = [s for s in agent.pipeline.sinks if isinstance(s, Tap)]
    assert [type(s) for s in added] == [ThreadedTap] and added[0] in agent.writers


def test_the_sinks_block_loads_from_the_defaults_file_and_the_environment():
    # with no rows yet the block is an empty mapping (`sinks: {}` in the defaults file); a row's block is set whole
    # by its variable, as YAML
    assert load(env={}, flags={}).sinks == sinks.Sinks()
    with pytest.raises(ConfigError, match=r"^sinks\.nosuch: unknown key"):
        load(env={}, flags={"sinks": {"nosuch": {"enabled": True}}})
    for row in sinks.SINKS:
        cfg = load(env={f"GPU_NPD_SINKS__{row.name.upper()}": "{enabled: false}"}, flags={})
        assert getattr(cfg.sinks, row.name).enabled is False
