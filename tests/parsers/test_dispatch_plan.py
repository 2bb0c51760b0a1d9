"""What `Dispatch.first` runs for a line of the row that matched last (issue 24: a flood of one kind of line, each new
to the memo), and what `envelope.split` runs to find a line's envelope rows: counted in bytecodes (sys.settrace's
opcode events), the same on any host, where a time is not."""

import sys

from parsers import envelope
from parsers.classify import Dispatch, _any_in
from parsers.rules import RULES


def _opcodes(run) -> int:
    count = 0

    def trace(frame, event, arg):
        nonlocal count
        frame.f_trace_opcodes = True
        if event == "opcode":
            count += 1
        return trace

    sys.settrace(trace)
    try:
        run()
    finally:
        sys.settrace(None)
    return count


def _xid(i: int) -> str:  # bench/inprocess.py's flood line (synthetic), its message
    return f"NVRM: Xid (PCI:0000:{i % 256:02x}:00): 31, pid={i}, name=python3, Ch 00000008, MMU Fault {i}"


def test_the_row_tried_first_tests_the_earlier_keywords_in_one_expression():
    """The Xid row has 10 rows before it, 8 literals to test absent (_cover): one compiled `or` of them (`_any_in`,
    4 bytecodes a literal), not a loop (6 a literal, 99 bytecodes a line in all before the change, 78 after)."""
    dispatch = Dispatch(RULES)
    for i in range(3):
        rule, _ = dispatch.first(_xid(i))
    assert rule.name == "xid" and len(dispatch._plan[3].__code__.co_consts) >= 8
    message = _xid(7)
    assert _opcodes(lambda: dispatch.first(message)) <= 100  # (the lambda's own included: 105 before, 84 after)


def test_any_in_is_the_loop_it_replaces():
    """Any literal (quotes, backslashes, a newline, non-ASCII) is tested as written; none: never."""
    literals = ("fail", "'quote", '"dq', "back\\slash", "new\nline", "é ü", " INFO")
    test = _any_in(literals)
    for text in ("", "nothing here", "it failed", "a 'quote'", 'x "dq', "back\\slash", "new\nline", "é ü",
                 "NCCL INFO", "back\\\\slash", "newline"):
        assert test(text) == any(one in text for one in literals), text
    assert _any_in(())("fail") is False


def test_a_lines_envelope_rows_are_one_lookup():
    """`split` finds the rows of a line's first character by subscript (derived once, in __missing__): a kmsg record
    costs 50 bytecodes, was 58; characters no row starts with are remembered up to 256."""
    line = "4,12,12000,-;" + _xid(12)
    envelope.split(line)
    assert _opcodes(lambda: envelope.split(line)) <= 60  # (the lambda's own included: 64 before, 56 after)
    for c in range(0x4e00, 0x4e00 + 600):
        envelope.split(chr(c) + " text")
    assert len(envelope._BY_FIRST) <= 256 + 1
