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
    assert rule.name == "xid" and len(dispatch._recent[0][3].__code__.co_consts) >= 8
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
    """`split` finds the rows of a line's first character by subscript of a plain dict built at import (a dict
    subclass deriving them in __missing__ took no exact-dict fast path: ~200 instructions a line more): a kmsg record
    costs at most 60 bytecodes; a character no row starts with is no key, and adds none."""
    line = "4,12,12000,-;" + _xid(12)
    envelope.split(line)
    assert _opcodes(lambda: envelope.split(line)) <= 60  # (the lambda's own included: 64 before, 56, 59 now)
    assert type(envelope._BY_FIRST) is dict
    keys = len(envelope._BY_FIRST)
    for c in range(0x4e00, 0x4e00 + 600):
        assert envelope.split(chr(c) + " text")[0] == "plain"
    assert envelope.split("")[0] == "plain"
    assert len(envelope._BY_FIRST) == keys
    # every row's first characters reach it, in table order
    for c, rows in envelope._BY_FIRST.items():
        assert [r[0] for r in rows] == [name for name, starts, *_ in envelope.ENVELOPES if c in starts]


def test_a_line_compiles_the_envelope_rows_it_reaches_only():
    """A line compiles the regexes of its first character's rows up to the one that takes it, not the rest (start-up:
    a dmesg line never compiled dmesg -x's row, the costliest); a line no row takes, every row it tried.  In a fresh
    interpreter: this one's earlier tests compiled rows."""
    import subprocess

    code = ("import sys; from parsers import envelope\n"
            "for line in sys.argv[1:]:\n"
            "    envelope.split(line)\n"
            "    print(line[:1], ' '.join(n for n, s, p, *_ in envelope.ENVELOPES if p._re is not None))\n")
    lines = ["[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
             "NVRM: fallen off the bus and is not responding to commands."]
    out = subprocess.run([sys.executable, "-c", code, *lines], capture_output=True, text=True, check=True).stdout
    reached = [row for row, starts, *_ in envelope.ENVELOPES if "[" in starts]
    reached = reached[:reached.index("dmesg") + 1]
    tried = [row for row, starts, *_ in envelope.ENVELOPES if "N" in starts]
    both = [row for row, *_ in envelope.ENVELOPES if row in reached or row in tried]  # (in table order)
    assert out.splitlines() == ["[ " + " ".join(reached), "N " + " ".join(both)]


def test_a_part_of_the_earlier_keywords_alone_costs_no_scan():
    """The Xid row's plan tests the earlier rows' keywords as the parts they share (_cover): "ted " stands for
    "started " and the like, and occurs in an Xid 31's "faulted @" and an Xid 48's "has been detected".  Where a part
    occurs, the keywords themselves are tested: none occurs, so the row is tried with no keyword scan (a scan was
    some 40,000 instructions of the ~90,000 of a new line of mixed kinds, bench/perline.py), and the rows found are a
    fresh Dispatch's (which scans).  Lines: Xid 31 captured on the lent H200 (tests/fixtures/realworld/captured-h200.yaml),
    Xid 48 from https://github.com/NVIDIA/gpu-operator/issues/1146 (tests/fixtures/realworld/gpu-nic-pcie.yaml)."""
    xid31 = ("NVRM: Xid (PCI:0000:00:06): 31, pid=472, name=python3, channel 0x0000000a, intr 00000000. MMU Fault: "
             "ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x0_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE")
    xid48 = ("NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has "
             "been detected on GPU in the framebuffer at physAddr 0x7fdd60000 partition")
    dispatch = Dispatch(RULES)
    scans = []
    tries = dispatch._tries
    dispatch._tries = lambda message, allowed=None: scans.append(message) or tries(message, allowed)
    for message in (xid31, xid48, xid31):
        rule, m = dispatch.first(message)
        fresh = Dispatch(RULES).first(message)
        assert rule is fresh[0] and m.span() == fresh[1].span() and rule.name == "xid"
    assert scans == [xid31]  # the first line only: no plan yet
    assert "ted " in dispatch._recent[0][3].__code__.co_consts  # (the part the lines hold)


def test_an_earlier_keyword_itself_still_scans():
    """Where an earlier row's keyword does occur (not only a part of it), the plan is left and the keywords scanned:
    the line's rows are a fresh Dispatch's.  (Constructed: the Xid 31 line above behind a keyword of a row before the
    Xid row, "nvidia-fabricmanager.service: " or "NCCL INFO".)"""
    xid31 = ("NVRM: Xid (PCI:0000:00:06): 31, pid=472, name=python3, channel 0x0000000a, intr 00000000. MMU Fault: "
             "ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x0_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE")
    dispatch = Dispatch(RULES)
    dispatch.first(xid31)
    for message in ("nvidia-fabricmanager.service: " + xid31, "NCCL INFO " + xid31):
        got, want = dispatch.first(message), Dispatch(RULES).first(message)
        assert (got and (got[0], got[1].span())) == (want and (want[0], want[1].span())), message


def test_lines_of_kinds_in_turn_try_their_recent_rows_before_a_scan():
    """Lines of a few kinds in turn, each new to the memo (bench/perline.py's mixed case): the rows that matched last
    (RECENT of them) are tried by their plans before any scan, not the last row alone, which a line of another kind
    passed over for a scan every time.  A row with too many keywords before it for a plan (the watchdog's timeout)
    leaves the others' plans.  The rows found are a fresh Dispatch's.  Lines: the Xid 31 and 48 above; NCCL INFO
    from https://github.com/gnosia93/training-on-eks/blob/2a65a75c676ec3b7fb890c7d35f6ed1d7190df85/appendix/
    a1-karpenter-message.md (tests/fixtures/realworld/ib-transports.yaml), the watchdog's from NVIDIA/nccl #1730
    (tests/fixtures/realworld/nccl-2026k.yaml), each with another number in turn."""
    def xid31(i):
        return ("NVRM: Xid (PCI:0000:00:06): 31, pid=%d, name=python3, channel 0x0000000a, intr 00000000. MMU Fault: "
                "ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x0_00000000. Fault is of type FAULT_PDE "
                "ACCESS_TYPE_VIRT_WRITE" % (472 + i))

    def info(i):
        return "llama-3-8b-node-0-0:194:%d [0] NCCL INFO transport/net.cc:753 -> 6" % (710 + i)

    def watchdog(i):
        return ("[rank118]:[E603 17:48:01.005271823 ProcessGroupNCCL.cpp:632] [Rank 118] Watchdog caught collective "
                "operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=8652160, NumelOut=8652160, "
                "Timeout(ms)=1800000) ran for 1800068 milliseconds before timing out." % (2398459 + i))

    dispatch = Dispatch(RULES)
    scans = []
    tries = dispatch._tries
    dispatch._tries = lambda message, allowed=None: scans.append(message) or tries(message, allowed)
    kinds = (xid31, info, watchdog)
    for i in range(12):
        message = kinds[i % 3](i)
        got, want = dispatch.first(message), Dispatch(RULES).first(message)
        assert got[0] is want[0] and got[1].span() == want[1].span(), message
    # the first of each kind scans, and every watchdog line (no plan); the Xid and NCCL INFO lines after, none
    assert [next(n for n, kind in enumerate(kinds) if m in map(kind, range(12))) for m in scans] == [0, 1, 2, 2, 2, 2]
    assert [p[1].name for p in dispatch._recent] == ["nccl_info", "xid"]
