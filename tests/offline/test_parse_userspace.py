"""`gpu-npd parse` and the agent agree on lines another program wrote: a syslog line tagged with a program other
than `kernel`, or a /dev/kmsg record of a facility other than LOG_KERN, that reads like an Xid is no GPU fault
(one rule: parsers.from_kernel). The lines are tests/agent/test_logfile_delivery.py's (synthetic, in the shape of the
driver's Xid lines)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from gpunpd.cli import main

FORGED = "Nov 25 09:00:00 gpu-node-1 myapp[4242]: NVRM: Xid (PCI:0000:5d:00): 48, pid=1, name=x, DBE\n"
REAL = ("Nov 25 09:00:01 gpu-node-1 kernel: [ 4254.197860] NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', "
        "name=<unknown>, GPU has fallen off the bus.\n")
KMSG = ("12,1,1000,-;NVRM: Xid (PCI:0000:5d:00): 48, pid=1, name=x, DBE\n"
        "4,3,3000,-;NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n")


def parse(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return CliRunner().invoke(main, ["parse", "--nvml", "off", "--format", "json", "--year", "2025", str(path)])


def test_parse_reports_the_kernels_xid_and_not_another_programs(tmp_path):
    for name, text in (("syslog", FORGED + REAL), ("kmsg.txt", KMSG)):
        res = parse(tmp_path, name, text)
        assert res.exit_code == 0, res.output
        found = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
        xids = [f for f in found if f.get("kind") == "xid"]
        assert [(f["xid"], f["pci"]) for f in xids] == [(79, "0000:18:00")], found
        assert "1 line(s) written by programs other than the kernel read like kernel faults" in res.stderr



def test_an_input_that_cannot_be_opened_prints_no_empty_table(tmp_path):
    res = CliRunner().invoke(main, ["parse", "--nvml", "off", str(tmp_path / "missing.log")])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.strip() == f"gpu-npd parse: cannot read {tmp_path / 'missing.log'}: No such file or directory"
    (tmp_path / "kern.log").write_text(REAL)
    res = CliRunner().invoke(main, ["parse", "--nvml", "off", str(tmp_path / "missing.log"), str(tmp_path / "kern.log")])
    assert res.exit_code == 2 and "0000:18:00" in res.stdout  # the readable one is still reported
