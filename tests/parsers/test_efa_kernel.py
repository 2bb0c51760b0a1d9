"""The efa kernel driver's lines under every prefix the kernel gives them (parsers/rules.py EFA_PREFIX): dev_err's
"efa <pci>: ", ibdev_err's "efa <pci> <ibdev>: " (the RDMA device with its PCI parent, __ibdev_printk) and
"infiniband <ibdev>: ". Lines marked REAL are copied verbatim from the public source beside them
(tests/fixtures/realworld/nics-2026q.yaml holds them in context); lines marked SOURCE are efa_com.c's format
strings with the REAL line's prefix, a test, never a sample."""

from __future__ import annotations

import io

import pytest

from parsers import Scanner, parse_line
import realworld

PREFIX = "[298850.919248] efa 0000:a0:1a.0 rdmap160s26: "  # REAL: aws-neuron-sdk nrt-troubleshoot-trn1.rst (a trn1)
# REAL: https://github.com/aws-neuron/aws-neuron-sdk/blob/068d9ad3ba56f7f3d09554b2f89de6442675d547/neuron-runtime/nrt-troubleshoot-trn1.rst
REFUSED = PREFIX + "Failed to process command DEREG_MR (opcode 8) comp_status 7 err -22"
# SOURCE: efa_com.c efa_com_wait_and_process_admin_cq_interrupts (6.x: "(id: %d, ..") and efa_com_submit_admin_cmd
TIMEOUT = PREFIX + ("The device didn't send any completion for admin cmd CREATE_QP(6) status 0 (id: 7, sq producer: 12, "
                    "sq consumer: 11, cq consumer: 11)")
CLOSED = PREFIX + "Admin queue is closed"
# SOURCE: efa_com_cmd_exec's verdict on the command that timed out
ITS_VERDICT = PREFIX + "Failed to process command CREATE_QP (opcode 6) comp_status 7 err -62"


@pytest.mark.parametrize("line", [TIMEOUT, CLOSED])
def test_an_admin_queue_failure_under_ibdev_errs_parent_prefix_is_the_nics(line):
    f = parse_line(line)
    assert f is not None and (f.kind, f.severity, f.pci, f.details["device"]) == (
        "nic_error", "fatal", "0000:a0:1a", "rdmap160s26"), f


def test_the_timeout_and_what_follows_are_one_event():
    text = "\n".join([TIMEOUT, ITS_VERDICT, CLOSED, CLOSED])
    found = realworld.events(Scanner().scan(io.BytesIO(text.encode()), name="efa"))
    assert [(f.kind, f.pci) for f in found] == [("nic_error", "0000:a0:1a")]


def test_a_refused_command_alone_stays_silent():
    f = parse_line(REFUSED)
    assert f is None, f
