"""`journalctl -o export` and `-o verbose`: a `MESSAGE=` line read as the message, and a finding's time, uptime and
program read from the record about it (parsers/envelope.py journal_text_record, parsers/scan.py _journal_record)."""

from __future__ import annotations

import io
from datetime import datetime, timezone

from parsers.envelope import detect, journal_text_record
from parsers.scan import Scanner

# systemd's Journal Export Format, its example entry, verbatim:
# https://github.com/systemd/systemd/blob/main/docs/JOURNAL_EXPORT_FORMATS.md (https://systemd.io/JOURNAL_EXPORT_FORMATS/)
EXPORT_RECORD = """\
__CURSOR=s=739ad463348b4ceca5a9e69c95a3c93f;i=4ece8;b=6c7c6013a26343b29e964691ff25d04c;m=4fc72572f;t=4c508a7243799;x=68597058a89b7246;p=system.journal
__REALTIME_TIMESTAMP=1342540861421465
__MONOTONIC_TIMESTAMP=21415221039
_BOOT_ID=6c7c6013a26343b29e964691ff25d04c
_TRANSPORT=syslog
PRIORITY=6
SYSLOG_FACILITY=9
SYSLOG_IDENTIFIER=/USR/SBIN/CROND
SYSLOG_PID=8278
MESSAGE=(root) CMD (run-parts /etc/cron.hourly)
_PID=8278
_UID=0
_GID=0
_COMM=run-parts
_EXE=/usr/bin/bash
_CMDLINE=/bin/bash /bin/run-parts /etc/cron.hourly
_AUDIT_SESSION=8
_AUDIT_LOGINUID=0
_SYSTEMD_CGROUP=/user/root/8
_SYSTEMD_SESSION=8
_SELINUX_CONTEXT=system_u:system_r:crond_t:s0-s0:c0.c1023
_SOURCE_REALTIME_TIMESTAMP=1342540861416351
_MACHINE_ID=a91663387a90b89f185d4e860000001a
_HOSTNAME=epsilon
"""

# `journalctl --output=verbose` records a program kept (its comment's "# " taken off each line), verbatim:
# https://github.com/octoprobe/octoprobe/blob/main/src/octoprobe/util_journalctl.py (JournalctlObserver.RE_ERRORS)
VERBOSE_RECORD = """\
Mon 2025-01-20 15:05:58.411543 CET [s=3c16c64ddc5e47d3860baf61bd03cdcb;i=f293a2;b=5431e12877f64e10b32eae46c739923e;m=2321b29f4;t=62c23c2786517;x=fbb7f5b297371ab4]
    _BOOT_ID=5431e12877f64e10b32eae46c739923e
    _HOSTNAME=hans-Yoga-260
    _KERNEL_DEVICE=c189:122
    _KERNEL_SUBSYSTEM=usb
    _MACHINE_ID=77fcb404e8b74dec85b578d4ad7ddb25
    _RUNTIME_SCOPE=system
    _SOURCE_MONOTONIC_TIMESTAMP=9430621282
    _TRANSPORT=kernel
    _UDEV_DEVNODE=/dev/bus/usb/001/123
    _UDEV_SYSNAME=1-1.4.4.3
    MESSAGE=usb 1-1.4.4.3: Not enough bandwidth for new device state.
    PRIORITY=4
    SYSLOG_FACILITY=0
    SYSLOG_IDENTIFIER=kernel
"""

# A real Xid line (tests/fixtures/realworld/nvidia-smi-2026k.yaml: JimJafar/llama-swap-config README), put in the
# MESSAGE field of the records above: COMPOSED, no record anyone captured (none with a GPU line was found)
XID = "NVRM: Xid (PCI:0000:83:00): 79, GPU has fallen off the bus."


def _scan(text: str):
    return list(Scanner().scan(io.BytesIO(text.encode()), "journal.txt"))


def test_a_message_line_of_export_and_verbose_is_its_message():
    for record in (EXPORT_RECORD, VERBOSE_RECORD):
        line = next(one for one in record.splitlines() if "MESSAGE=" in one)
        env = detect(line)
        assert env.name == "journal_text"
        assert env.message == line.partition("MESSAGE=")[2]


def test_the_export_record_gives_its_time_uptime_host_and_program():
    env = journal_text_record(EXPORT_RECORD.splitlines())
    assert env.message == "(root) CMD (run-parts /etc/cron.hourly)"
    assert env.timestamp == datetime.fromtimestamp(1342540861421465 / 1e6, timezone.utc)
    assert env.uptime == 21415.221039
    assert env.extra == {"host": "epsilon", "app": "/USR/SBIN/CROND"}


def test_the_verbose_record_gives_its_time_from_the_cursor_not_the_zone_name():
    """The header's time is in the host's zone ("CET"); the cursor's t= is __REALTIME_TIMESTAMP in hex."""
    env = journal_text_record(VERBOSE_RECORD.splitlines())
    assert env.timestamp == datetime(2025, 1, 20, 14, 5, 58, 411543, timezone.utc)
    assert env.uptime == 9430.621282  # the kernel's own stamp (_SOURCE_MONOTONIC_TIMESTAMP), not journald's m=
    assert env.extra == {"host": "hans-Yoga-260", "app": "kernel"}


def test_a_finding_on_a_verbose_message_line_has_the_records_time_and_program():
    text = VERBOSE_RECORD.replace("usb 1-1.4.4.3: Not enough bandwidth for new device state.", XID)
    (f,) = _scan("some header line\n" + text + text.replace("i=f293a2", "i=f293a3").replace("t=62c23c2786517", "t=62c23c2786518"))[:1]
    assert (f.kind, f.xid, f.message) == ("xid", 79, XID)
    assert f.timestamp == datetime(2025, 1, 20, 14, 5, 58, 411543, timezone.utc)
    assert (f.envelope, f.program, f.uptime) == ("journal", "kernel", 9430.621282)


def test_a_finding_on_an_export_message_line_has_the_records_time_and_a_process_is_no_kernel():
    text = EXPORT_RECORD.replace("(root) CMD (run-parts /etc/cron.hourly)", XID)
    (f,) = _scan(text + "\n" + text)[:1]
    assert f.message == XID and f.envelope == "journal"
    assert f.timestamp == datetime.fromtimestamp(1342540861421465 / 1e6, timezone.utc)
    assert f.program == "/USR/SBIN/CROND"  # the syslog transport: a process's line, no kernel fault


def test_a_message_line_with_no_record_about_it_is_the_line_alone():
    (f,) = _scan("MESSAGE=" + XID + "\n")
    assert (f.message, f.timestamp, f.uptime, f.program) == (XID, None, None, None)  # no record about it: the line alone
    (f,) = _scan("    MESSAGE=" + XID + "\n")  # no verbose header before it: the line alone
    assert (f.message, f.timestamp, f.envelope, f.program) == (XID, None, "journal_text", None)


def test_an_earlier_records_time_is_not_a_later_records():
    """A record without __REALTIME_TIMESTAMP (systemd: only records serialized from a journal file carry it) after
    one with it: its finding has no time rather than the record before it's."""
    earlier = EXPORT_RECORD
    later = "_TRANSPORT=kernel\nMESSAGE=" + XID + "\n"
    (f,) = _scan(earlier + "\n" + later)
    assert (f.message, f.timestamp, f.envelope) == (XID, None, "journal_text")
