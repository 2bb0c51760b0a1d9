"""`gpu-npd parse` of an nvidia-bug-report.log: each occurrence of a kernel line once, its stamps in the report's year.

tests/fixtures/bugreport/duaneya-tool_man-2019.log is lines of a real report, each VERBATIM, in their order:
https://github.com/duaneya/tool_man/blob/e096861c22dd92f718d18f370503164e459bf0c9/nvidia-bug-report.log lines 1-13
(the header, `Date:` in zh_CN's words), 3945-3949 (the "Scanning kernel log files" section opening, `/var/log/kern.log:`),
4209-4213 (an Xid 62 and two Xid 13 of Nov 16 04:38:20, stamped with their uptimes), 4405-4406 (one Xid 32 line said
twice in one second: two occurrences), 4421-4422 (a driver load of the running boot), 4453-4456 (`journalctl -b -0:`,
that load again), 4490-4491 (`journalctl -b -1:`), 4504-4508 and 4701-4702 (the journal's copies of the Xids), 4742-4747
(the "dmesg:" section) and 6251 (dmesg's copy of the load).  The whole report (3.7 MB): 607 Xid findings before, 401 now
(the kern.log's 400 and one of Nov 15 14:11:38 the journal alone has), driver loads 13 -> 6.
"""

from __future__ import annotations

import io
import json
from datetime import datetime

from click.testing import CliRunner

from gpunpd.cli import main
from offline.bugreport import Sections, year_of

REPORT = "bugreport/duaneya-tool_man-2019.log"


def _parse(*args: str) -> list[dict]:
    r = CliRunner().invoke(main, ["parse", "--nvml", "off", "--format", "json", "--min-severity", "info", *args])
    assert r.exit_code == 0, r.output
    return [json.loads(line) for line in r.output.splitlines() if line.startswith("{")]


def test_a_line_copied_in_several_sections_counts_once(fixtures):
    rows = _parse(str(fixtures / REPORT))
    kinds = [(r["kind"], r.get("xid")) for r in rows]
    # kern.log's lines kept, their journal (-b -1) copies and dmesg's and the journal's (-b -0) copy of the load not
    assert sorted(kinds, key=str) == sorted([("xid", 62), ("xid", 13), ("xid", 13), ("xid", 32), ("xid", 32),
                                             ("driver_load", None)], key=str)
    assert [r["line"] for r in rows] == [21, 22, 23, 24, 25, 27]
    # (was: 13 findings, every Xid twice, the load three times)


def test_the_report_gives_the_year_of_stamps_without_one(fixtures):
    rows = _parse(str(fixtures / REPORT))
    assert {r["timestamp"][:4] for r in rows} == {"2019"}  # was this year's
    assert rows[0]["timestamp"] == "2019-11-16T04:38:20"
    assert {r["timestamp"][:4] for r in _parse("--year", "2018", str(fixtures / REPORT))} == {"2018"}  # --year wins


def test_a_december_line_in_a_january_report_is_last_years(tmp_path):
    # CONSTRUCTED: the header's lines as nvidia-bug-report.sh prints them, its Date a January one; the kernel line
    # is duaneya/tool_man's Xid 62 (line 4211) with its stamp moved to Dec 31
    p = tmp_path / "nvidia-bug-report.log"
    p.write_text("____________________________________________\n\n"
                 "Start of NVIDIA bug report log file.  Please include this file, along\n\n"
                 "Date: Thu Jan  2 10:00:00 UTC 2020\n\n"
                 "____________________________________________\n\n"
                 "Scanning kernel log files for NVIDIA kernel messages:\n\n  /var/log/kern.log:\n"
                 "Dec 31 04:38:20 sdu-dpai-turing-1 kernel: [51175.459865] NVRM: Xid (PCI:0000:03:00): 62, pid=3119, "
                 "0cb5(2d50) 00000000 00000000\n"
                 "Jan  2 09:00:00 sdu-dpai-turing-1 kernel: [51175.459866] NVRM: Xid (PCI:0000:03:00): 62, pid=3119, "
                 "0cb5(2d50) 00000000 00000000\n")
    assert [r["timestamp"] for r in _parse(str(p))] == ["2019-12-31T04:38:20", "2020-01-02T09:00:00"]


def test_the_date_line_of_real_reports():
    # the `Date:` lines VERBATIM of maz906/caffe, eler/git_examples, duaneya/tool_man, marwank270/nvidia-bug-report
    # (nvidia-bug-report.log of each, the commits above and in CHANGELOG) and xi8zhu/deep_learning_framework_csi @d127e65
    assert year_of(b"Date: Mon Dec 21 01:42:03 MST 2015\n") == (2015, datetime(2015, 12, 21, 1, 42, 3))
    assert year_of(b"Date: Thu Sep  7 10:55:12 CST 2017\n") == (2017, datetime(2017, 9, 7, 10, 55, 12))
    assert year_of("Date: 2019年 11月 16日 星期六 13:31:02 CST\n".encode()) == (2019, datetime(2019, 11, 16, 13, 31, 2))
    assert year_of("Date: 2024年 12月 20日 星期五 18:35:26 CST\n".encode()) == (2024, datetime(2024, 12, 20, 18, 35, 26))
    assert year_of("Date: jeu. 25 août 2022 20:30:39 CEST\n".encode()) == (2022, None)  # a locale's month: the year
    assert year_of(b"Date: \n") == (None, None)


class _Trickle(io.RawIOBase):
    def __init__(self, data: bytes, n: int):
        self.data, self.n = data, n

    def read1(self, size: int = -1) -> bytes:
        out, self.data = self.data[:self.n], self.data[self.n:]
        return out


def test_sections_are_the_same_whatever_the_reads(fixtures):
    data = (fixtures / REPORT).read_bytes()
    whole = Sections(_Trickle(data, len(data) + 1))
    while whole.read1(1 << 20):
        pass
    assert [whole.era(n) for n in (1, 16, 21, 31, 35, 47)] == [
        (1, None), (2, None), (3, None), (4, "0"), (5, "-1"), (7, "0")]
    for n in (1, 2, 3, 7, 64):
        parts = Sections(_Trickle(data, n))
        while parts.read1(n):
            pass
        assert parts._starts == whole._starts and parts._boots == whole._boots, n


def test_a_report_full_of_section_headers_is_read_in_bounded_memory_and_linear_time():
    """A crafted report of nothing but section headers ("dmesg:" lines): the sections held stay within
    MAX_SECTIONS (the oldest forgotten, a line after them still given its own section's number and boot), and one read
    of many headers is searched in one pass.  Was: every header's line kept (a list without bound), and each header's
    line number counted from its read's start (quadratic in a read's headers: 200,000 of them, 1.4 MB, took
    `gpu-npd parse` 51 s)."""
    import time

    from offline.bugreport import MAX_SECTIONS
    n = 3 * MAX_SECTIONS + 7
    data = b"head\n" + b"dmesg:\n" * n + b"  journalctl -b -1:\nNVRM: Xid\n"
    sections = Sections(_Trickle(data, len(data) + 1))
    began = time.monotonic()
    while sections.read1(len(data) + 1):
        pass
    assert time.monotonic() - began < 5
    assert len(sections._starts) <= MAX_SECTIONS and len(sections._boots) <= MAX_SECTIONS
    assert sections.era(n + 3) == (n + 1, "-1")  # the Xid's line: the last section, -b -1
    assert sections.era(n + 1) == (n, "0")  # the last "dmesg:" line's own section


def test_the_copies_table_keys_a_digest_of_the_kind_and_message():
    """The de-dup table holds up to MAX_KEYS keys: each keeps a 16-byte digest of (kind, message), not the message
    (up to 4,096 characters; was: ~0.5 GB peak RSS on a report of 120,000 distinct 3.9 kB Xid lines)."""
    from datetime import datetime as dt

    from offline.bugreport import Copies
    from parsers.finding import Finding
    data = b"head\n  /var/log/kern.log:\n"
    sections = Sections(_Trickle(data, len(data) + 1))
    while sections.read1(1 << 20):
        pass
    copies = Copies(sections)
    f = Finding(kind="xid", severity="fatal", attribution="hardware", action="reset",
                message="NVRM: Xid (PCI:0000:03:00): 79, " + "x" * 4000,
                timestamp=dt(2019, 11, 16, 4, 38, 20), uptime=1372.5, line=3)
    assert list(copies.keep([f])) == [f]
    for key in copies._seen:
        assert all(len(part) <= 16 for part in key if isinstance(part, (str, bytes)))


def test_a_header_split_anywhere_is_found_after_long_lines_and_crlf():
    """Sections read as reads split them (`Sections.read1` joins only the tail's line to a read's first one): every
    split point of a report's headers after a line longer than a header's, a CRLF one and a `journalctl -b -2:` one
    gives the sections of one whole read, with the same line numbers."""
    data = (b"head\n" + b"x" * 300 + b"\n  /var/log/kern.log:\r\nNVRM: Xid\n" + b"y" * 257
            + b"\n  journalctl -b -2:\nNVRM: Xid\ndmesg:\n")
    whole = Sections(_Trickle(data, len(data) + 1))
    while whole.read1(len(data) + 1):
        pass
    assert whole._starts == [3, 6, 8] and whole._boots == [None, "-2", "0"]
    for n in range(1, 40):
        parts = Sections(_Trickle(data, n))
        while parts.read1(n):
            pass
        assert (parts._starts, parts._boots, parts._line) == (whole._starts, whole._boots, whole._line), n
