"""`gpu-npd parse` keeps a line NVIDIA's own daemon wrote under its program name where the finding's kind is one that
daemon reports itself (parsers.finding.DAEMON_KINDS, the one rule the agent applies too: parsers.from_kernel); the
same daemon's line reading like an Xid, or another program's line in the daemon's words, stays dropped."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from gpunpd.cli import main

FIXTURE = Path(__file__).parents[1] / "fixtures" / "realworld" / "daemon-journal-2026.yaml"
REAL = yaml.safe_load(FIXTURE.read_text())[0]["text"]  # akash-network/website#632: nv-fabricmanager[104230]
MESSAGE = ("fabric manager NVIDIA GPU driver interface version 550.127.05 don't match with driver version 550.120. "
           "Please update with matching NVIDIA driver package.")
# CONSTRUCTED: the 570+ start script's journal prefix (data-infra/cube-studio#29, FM's own lines under the script's
# tag) before Fabric Manager's real message above
START_SCRIPT = f"Sep 18 03:19:01 ubuntu2404 nvidia-fabricmanager-start.sh[4756]: {MESSAGE}\n"
# CONSTRUCTED: the daemon's tag before a kernel Xid line, and before an NVSwitch error FM reports (kind sxid); another
# program's tag before the daemon's message
AS_XID = ("Nov 05 13:55:27 node1 nv-fabricmanager[104230]: NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', "
          "name=<unknown>, GPU has fallen off the bus.\n")
AS_SXID = ("Nov 05 13:55:28 node1 nv-fabricmanager[104230]: detected NVSwitch fatal error 20034 on fid 0 on NVSwitch "
           "pci bus id 00000000:86:00.0 physical id 3 port 33\n")
OTHER = f"Nov 05 13:55:29 node1 myapp[4242]: {MESSAGE}\n"


def parse(tmp_path, text: str):
    path = tmp_path / "syslog"
    path.write_text(text)
    res = CliRunner().invoke(main, ["parse", "--nvml", "off", "--format", "json", "--year", "2024", str(path)])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")], res.stderr


def test_fabric_managers_own_journal_line_gives_its_finding(tmp_path):
    """Failed before h676: the real line was dropped as another program's ("1 line(s) written by programs other
    than the kernel")."""
    for text, program in ((REAL, "nv-fabricmanager"), (START_SCRIPT, "nvidia-fabricmanager-start.sh")):
        found, err = parse(tmp_path, text)
        assert [(f["kind"], f["program"]) for f in found] == [("driver_mismatch", program)], found
        assert "programs other than the kernel" not in err


def test_the_daemons_line_of_another_kind_and_another_programs_line_stay_dropped(tmp_path):
    found, err = parse(tmp_path, REAL + AS_XID + AS_SXID + OTHER)
    assert [f["kind"] for f in found] == ["driver_mismatch"], found
    assert "3 line(s) written by programs other than the kernel read like kernel faults" in err
