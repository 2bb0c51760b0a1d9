"""The table of optional sinks (agent/sinks/__init__.py): a row is the whole declaration of a sink an operator turns
on: its block of the configuration (keys, defaults, validation, the variable that sets it, the docs) and its place
among the agent's sinks (docs/extending.md, "A new sink": the sink's module, its row, its test)."""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from agent import sinks
from agent.app import build
from agent.config import ConfigError, load
from agent.keyspec import Invalid, convert
from agent.settings import keys
from sink_rows import ROWS, Tap, TapSettings, ThreadedTap

ROOT = Path(__file__).resolve().parents[2]


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
    # with no rows yet the block is an empty mapping (`sinks: {}` in the defaults file)
    assert load(env={}, flags={}).sinks == sinks.Sinks()
    with pytest.raises(ConfigError, match=r"^sinks\.nosuch: unknown key"):
        load(env={}, flags={"sinks": {"nosuch": {"enabled": True}}})


# In a fresh interpreter the rows are put into SINKS (and `Sinks` derived from it, as agent/sinks/__init__.py does)
# before agent.settings is imported; then every derivation is read as the agent and the docs read it.
WITH_ROWS = """
import json, sys, tempfile
from agent import sinks
from sink_rows import ROWS
sinks.SINKS, sinks.Sinks = ROWS, sinks.block(ROWS)
from agent.config import ConfigError, load
from agent.settings import keys, render_defaults
sys.path.insert(0, "docs/hooks")
from reference import render_configuration

with tempfile.NamedTemporaryFile("w", suffix=".yaml") as fh:
    fh.write(render_defaults())
    fh.flush()
    from_file = load(fh.name, env={}, flags={}).sinks
try:
    load(env={"GPU_NPD_SINKS__TAP": "{limit: 0}"}, flags={})
    refused = ""
except ConfigError as exc:
    refused = str(exc)
on = load(env={"GPU_NPD_SINKS__THREADED": "{enabled: true, limit: 3}"}, flags={}).sinks
print(json.dumps({
    "defaults": [[r.name, getattr(load(env={}, flags={}).sinks, r.name).enabled] for r in ROWS],
    "from_file": [[r.name, getattr(from_file, r.name).limit] for r in ROWS],
    "env": [on.threaded.enabled, on.threaded.limit, on.tap.enabled],
    "refused": refused,
    "doc": next(k.doc for k in keys() if k.path == "sinks"),
    "reference": render_configuration(),
}))
"""


def test_a_row_in_the_table_is_a_block_of_the_agents_configuration_its_variable_and_docs():
    """The rows in `SINKS` itself, not a block built by the test: the configuration's `sinks` block (its defaults, the
    defaults file, GPU_NPD_SINKS__<NAME>, its keys' validation) and the reference docs derive from the
    table.  Before, this looped over the empty SINKS and could not fail."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "agent")])}
    run = subprocess.run([sys.executable, "-c", WITH_ROWS], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["defaults"] == [["tap", False], ["threaded", False]]  # off by default
    assert seen["from_file"] == [["tap", 8], ["threaded", 8]]  # the defaults file holds each row's block
    assert seen["env"] == [True, 3, False]  # the block's variable sets it whole, as YAML
    assert "sinks.tap.limit: expected an integer >= 1, got 0" in seen["refused"], seen["refused"]  # checked
    assert "(tap, threaded)" in seen["doc"]  # the `sinks` key's doc names the rows
    for row in ROWS:  # the configuration reference lists each block, its variable and its keys
        assert f"`sinks.{row.name}`" in seen["reference"] and f"GPU_NPD_SINKS__{row.name.upper()}" in seen["reference"]
        assert f"`sinks.{row.name}.limit`" in seen["reference"] and row.doc in seen["reference"]


# `gpu-npd` itself with the rows in SINKS (as above), so that the declaration has keys at every depth: top level,
# in a block (kubernetes.qps), in a block inside a block (sinks.tap.limit)
CLI_WITH_ROWS = """
import sys
from agent import sinks
from sink_rows import ROWS
sinks.SINKS, sinks.Sinks = ROWS, sinks.block(ROWS)
from gpunpd.cli import main
main(prog_name="gpu-npd")
"""


def _nest(parts: list[str], value: object) -> object:
    for part in reversed(parts):
        value = {part: value}
    return value


@functools.cache  # once a run (a process start): both commands' tests read it, neither changes it
def _bad_number_at_each_depth() -> dict[int, tuple[str, str, str]]:
    """depth -> the first number-valued key at that depth of the declaration (with the rows in SINKS), the variable
    that sets it and that variable's value, a number beyond every key's bounds (+-1e9): the key's own variable, or
    the nearest enclosing one's with the rest as YAML (a key inside an inner block has no variable of its own)."""
    code = ("import json; from agent import sinks; from sink_rows import ROWS; sinks.SINKS, sinks.Sinks = ROWS, "
            "sinks.block(ROWS); from agent.settings import keys; print(json.dumps([[k.path, k.env, k.type] "
            "for k in keys()]))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "tests" / "agent")])}
    rows = json.loads(subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                                     timeout=60, check=True).stdout)
    envs = {path: var for path, var, _ in rows}
    out: dict[int, tuple[str, str, str]] = {}
    for path, _, kind in rows:
        if kind in ("integer", "number") and path.count(".") not in out:
            parts = path.split(".")
            n = max(n for n in range(1, len(parts) + 1) if envs[".".join(parts[:n])])
            out[path.count(".")] = (path, envs[".".join(parts[:n])], json.dumps(_nest(parts[n:], -10 ** 10)))
    return out


@pytest.mark.parametrize("command", [["config", "check"], ["run", "--kmsg", "", "--no-journald"]])
def test_a_bad_value_at_every_depth_names_its_key_and_its_variable_or_file(tmp_path, command):
    """A bad value names the key and where it came from, at every depth of the declaration: `GPU_NPD_SINKS__TAP=
    '{limit: 0}'` said `sinks.tap.limit: ...` without the variable (only a key one level down was matched to its
    variable), and a value from the file never named the file. Exit 2, one line, through the real CLI."""
    depths = _bad_number_at_each_depth()
    assert sorted(depths) == [0, 1, 2], depths  # top level, a block, a block inside a block (sinks.tap)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPU_NPD_")}
    env.update(PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests" / "agent")]), NODE_NAME="n")
    state = ["--state-dir", str(tmp_path / "state")] if command[0] == "run" else []
    conf = tmp_path / "c.yaml"
    for path, var, value in depths.values():
        conf.write_text(yaml.safe_dump(_nest(path.split("."), -10 ** 10)))
        for args, extra_env, source in ((["--config", str(conf)], {}, f"config file {conf}"), ([], {var: value}, var)):
            r = subprocess.run([sys.executable, "-c", CLI_WITH_ROWS, *command, *args, *state], cwd=ROOT,
                               env={**env, **extra_env}, capture_output=True, text=True, timeout=60)
            assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (path, source, r.stderr)
            assert r.stderr.startswith("gpu-npd") and f": {source}: {path}: " in r.stderr, (path, r.stderr)
