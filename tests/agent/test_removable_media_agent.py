"""The agent over the removable and empty disks' samples (tests/fixtures/realworld/removable-media-2026.yaml): an SD
card reader's empty LUN and a reader's unreadable card raise no filesystem_error (the node's storage condition); a data
disk's medium error still does. As tests/agent/test_realworld_agent.py drives the agent over a sample."""

from __future__ import annotations

import io
from pathlib import Path

import realworld
from test_realworld_agent import _counted

from agent.app import build
from agent.config import load
from agent.sources import Record
from parsers import keyword_prefilter
from parsers.model import Boot


def test_the_agent_raises_no_storage_fault_for_a_removable_or_empty_disk(tmp_path: Path):
    cfg = load(env={}, flags={"kmsg": "", "journald": False, "state_dir": str(tmp_path), "fallback_log_files": [],
                              "fabricmanager_log": "", "imex_log": "", "nvml": "off", "mode": "off"})
    prefilter = keyword_prefilter().compile()
    got = {}
    for item in realworld.samples():
        if item["file"] != "removable-media-2026.yaml":
            continue
        agent = build(cfg, out=io.StringIO(), boot=Boot("this-boot", 1_000_000_000.0), prefilter=prefilter)
        agent.pipeline.process([Record("files", line) for line in item["text"].splitlines()])
        got[item["source"].rsplit("/", 3)[-3]] = dict(_counted(agent))
    assert got == {"Adafruit_TinyUSB_Arduino": {}, "dasharo-issues": {}, "spi-ram-emu": {},
                   "openebs": {"filesystem_error": 1}}
