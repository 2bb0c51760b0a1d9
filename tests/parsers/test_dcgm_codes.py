"""parsers/dcgm.py's DCGM_CODES: one row per DCGM_FR_* code, by its number (NVIDIA/DCGM dcgmlib/dcgm_errors.h, DCGM
4.6.0, 72fa3feaa67d716a75323a8f47c34ff3ee73f824), each kind a kind, each `read_by` a rule."""

from __future__ import annotations

from parsers.dcgm import DCGM_CODE, DCGM_CODES, RELAYED_NAMES
from parsers.kinds import ATTRIBUTIONS, BY_NAME, SEVERITIES
from parsers.rules import RULES


def test_every_code_is_its_number_with_a_known_kind():
    assert [row.number for row in DCGM_CODES] == list(range(133))
    assert (DCGM_CODE["XID_ERROR"].number, DCGM_CODE["IMEX_UNHEALTHY"].number,
            DCGM_CODE["UNCORRECTABLE_ROW_REMAP_LIMIT"].number) == (101, 122, 132)
    for row in DCGM_CODES:
        assert row.kind is None or row.kind in BY_NAME, row
        assert row.severity is None or row.severity in SEVERITIES, row
        assert row.attribution is None or row.attribution in ATTRIBUTIONS, row


def test_a_code_another_rule_reads_is_left_to_it():
    names = {rule.name for rule in RULES}
    for row in DCGM_CODES:
        assert row.read_by is None or row.read_by in names, row
    assert "XID_ERROR" not in RELAYED_NAMES and "IMEX_UNHEALTHY" not in RELAYED_NAMES
    assert "CLOCK_THROTTLE_THERMAL" in RELAYED_NAMES and "PERSISTENCE_MODE" not in RELAYED_NAMES
