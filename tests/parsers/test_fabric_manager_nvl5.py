"""Fabric Manager on an NVLink5 rack's NVSwitch trays (GB200 NVL72, NMX-C's fabricmanager.log): a GPU NVL error block
and a trunk port failure. The real lines (a Non Fatal block, a trunk port) are in
tests/fixtures/realworld/fabric-manager-nvl5-2026.yaml.

The Fatal block here is CONSTRUCTED: the header's format is the one phatut/nmx-c-analyzers' nmx_table_analyzer.py
matches in real fabricmanager.log files (r'Fabric Manager detected GPU NVL (Non Fatal|Fatal) error on :'), its
"key : value" lines those of the real Non Fatal block with other values."""

from __future__ import annotations

import realworld

FATAL = """\
[Oct 13 2025 18:14:38] [ERROR] [tid 202] Fabric Manager detected GPU NVL Fatal error on :
moduleId : 3
nodeId : 7
partitionId : 4137
gpuGuid : 0xED0A8727AFC3C6F9
portNum : 4
portStatus : 1
errorCode : 0x06
errorSubcode : 0x0E
portDownReasonCode : 0x0A
isErrorFirst : 0
errorStatus : 0x00000000
"""


def _events(text: str) -> list[tuple]:
    return [(f.kind, f.severity, f.attribution, f.action, f.details.get("gpu_guid"), f.details.get("port"))
            for f in realworld.findings(text)]


def test_a_fatal_block_is_an_nvlink_error_of_its_gpu_and_port():
    # was: no finding (no "NVLink" word on any of its lines)
    assert _events(FATAL) == [("nvlink", "error", "hardware", "CONTACT_SUPPORT", "0xED0A8727AFC3C6F9", 4)]


def test_the_agent_reads_the_block_as_parse_does():
    raw = realworld.classified(FATAL.splitlines())
    assert [(f.kind, f.severity) for f in realworld.events(raw)] == [("nvlink", "error")]


def test_a_non_fatal_block_is_a_warning():
    text = FATAL.replace("NVL Fatal error", "NVL Non Fatal error")
    assert _events(text) == [("nvlink", "warning", "hardware", "MONITOR", "0xED0A8727AFC3C6F9", 4)]


def test_the_blocks_key_lines_alone_are_silent():
    # a block whose header was lost (rotation, a cut log): its key lines name no failure
    assert _events("\n".join(FATAL.splitlines()[1:]) + "\n") == []


def test_two_blocks_are_two_events_each_with_its_own_gpu():
    second = FATAL.replace("0xED0A8727AFC3C6F9", "0xb0cf0e0300e42e00").replace("portNum : 4", "portNum : 61")
    assert [e[4:] for e in _events(FATAL + "\n" + second)] == [("0xED0A8727AFC3C6F9", 4), ("0xb0cf0e0300e42e00", 61)]
