"""mlx5's firmware commands that timed out or completed only by the driver's EQ poll (parsers/rules.py
mlx5_cmd_timeout, mlx5_cmd_late, mlx5_cmd_recovered). Lines marked SOURCE are the kernel's format strings with a real
line's prefix (drivers/net/ethernet/mellanox/mlx5/core/cmd.c: wait_func_handle_exec_timeout's "cmd[%d]: %s(0x%x) No
done completion" and "recovered after timeout", wait_func's "%s(0x%x) timeout. Will cause a leak of a command
resource" and "canceled on out of queue timeout.", cb_timeout_handler's "cmd[%d]: %s(0x%x) Async, timeout. Will cause
..", mlx5_cmd_comp_handler's "Command completion arrived after timeout (entry idx = %d).", mlx5_cmd_eq_recover's
"Recovered %d EQEs on cmd_eq"), a test, never a sample; the real lines are in
tests/fixtures/realworld/mlx5-cmd-timeout-2026.yaml and mlx5-more.yaml."""

from __future__ import annotations

import io

from parsers import Scanner

P = "[  257.111349] mlx5_core 0000:56:00.0: "
# SOURCE: a ConnectX-7's ACCESS_REG that timed out, then its late completion (lore 4dde7c9e-..@gmail.com)
NO_DONE = P + "wait_func_handle_exec_timeout:1159:(pid 72061): cmd[0]: ACCESS_REG(0x805) No done completion\n"
LEAK = P + "wait_func:1189:(pid 72061): ACCESS_REG(0x805) timeout. Will cause a leak of a command resource\n"
LATE = P + "mlx5_cmd_comp_handler:1709:(pid 0): Command completion arrived after timeout (entry idx = 0).\n"
# SOURCE: cb_timeout_handler (5.12+), wait_func's -ECANCELED branch (5.10+)
ASYNC = P + ("cb_timeout_handler:877:(pid 0): cmd[3]: CREATE_MKEY(0x200) Async, timeout. Will cause a leak of a "
             "command resource\n")
CANCELED = P + "wait_func:1141:(pid 72061): QUERY_VPORT_COUNTER(0x770) canceled on out of queue timeout.\n"
# SOURCE: mlx5_cmd_eq_recover then wait_func_handle_exec_timeout (5.11+), a ConnectX-5's (lore BYAPR21MB1270..)
EQ = "[ 1537.020001] mlx5_core 0000:d8:00.0: mlx5_cmd_eq_recover:245:(pid 1416): Recovered 1 EQEs on cmd_eq\n"
RECOVERED = ("[ 1537.028969] mlx5_core 0000:d8:00.0: wait_func_handle_exec_timeout:1062:(pid 1416): cmd[0]: "
             "CREATE_EQ(0x301) recovered after timeout\n")
# SOURCE: mlx5_cmd_out_err (6.x), a command the firmware failed with a status: its own finding, as before
FAILED = P + ("mlx5_cmd_out_err:838:(pid 268269): CREATE_QP(0x500) op_mod(0x0) failed, status bad parameter(0x3), "
              "syndrome (0x1d9e6c), err(-22)\n")


def _found(text: str) -> list:
    return list(Scanner().scan(io.BytesIO(text.encode())))


def test_a_command_timeout_is_one_event_with_its_late_completion():
    """Was three findings: two errors and the late completion the unclassified net's warning."""
    (f,) = _found(NO_DONE + LEAK + LATE)
    assert (f.kind, f.severity, f.attribution, f.pci) == ("nic_error", "error", "driver", "0000:56:00")
    assert f.details["command"] == "ACCESS_REG(0x805)"


def test_every_wording_of_a_timeout_joins_the_functions_event():
    (f,) = _found(NO_DONE + ASYNC + CANCELED + LEAK)
    assert f.kind == "nic_error" and f.severity == "error"


def test_two_functions_timeouts_are_two_events():
    other = NO_DONE.replace("0000:56:00.0", "0000:56:00.1")
    assert sorted(f.pci for f in _found(NO_DONE + other + LEAK)) == ["0000:56:00", "0000:56:00.1"]


def test_a_failed_command_stays_its_own_finding():
    assert [(f.kind, f.severity) for f in _found(NO_DONE + FAILED)] == [("nic_error", "error"), ("nic_error", "error")]


def test_a_late_completion_alone_is_the_unclassified_nets():
    assert [f.kind for f in _found(LATE)] == ["unclassified"]


def test_commands_recovered_by_the_eq_poll_are_one_warning_while_they_repeat():
    """Was an unclassified warning per "recovered" line: the firmware answered, its interrupt never came."""
    (f,) = _found((EQ + RECOVERED) * 3)
    assert (f.kind, f.severity, f.attribution, f.pci) == ("nic_error", "warning", "driver", "0000:d8:00")
    (g,) = _found(RECOVERED)
    assert g.details["command"] == "CREATE_EQ(0x301)" and g.severity == "warning"


def test_eeh_report_keeps_the_health_event_open():
    """IBM POWER's EEH report (no device named, any length: its call trace, its register dump) is part of the
    function's open health event and keeps it open: the teardown's timeouts after it are that failure's, however many
    EEH lines came between (rules.py eeh_report). Lines: lore 68312f5c-..@linux.vnet.ibm.com (realworld
    mlx5-cmd-timeout-2026.yaml), the trace line repeated."""
    from parsers.rules import EVENT_LINES
    f = "mlx5_core 400f:01:00.0: "
    trace = ["EEH: [c000000000054d10] __eeh_send_failure_event+0x70/0x150"] * (3 * EVENT_LINES["mlx5_health"])
    lines = [f + "poll_health:800:(pid 0): Fatal error 1 detected", "EEH: Frozen PHB#400f-PE#10000 detected",
             "EEH: Call Trace:", *trace, "EEH: Notify device drivers to shutdown",
             f + "wait_func_handle_exec_timeout:1108:(pid 30505): cmd[0]: DESTROY_RMP(0x90e) No done completion"]
    found = list(Scanner().scan(io.BytesIO("\n".join(lines).encode() + b"\n")))
    assert [(x.kind, x.severity) for x in found] == [("nic_error", "fatal")]
    # with no event open, an EEH line is no event's (what the unclassified net makes of it, as before)
    assert [x.kind for x in Scanner().scan(io.BytesIO(b"EEH: Call Trace:\n"))] == []
