"""A finding carries the host its line's envelope names (`Finding.host`): which node of a fleet-wide input (pdsh's
dmesg, several nodes' syslog, stern's records) said it; None where the line names none."""

from __future__ import annotations

import io
import json

import pytest

from parsers import Classifier, Scanner

# each line verbatim from the public source beside it (tests/fixtures/realworld: the file named)
PDSH = ("b1360: [14280.445220] mlx5_core 0000:61:00.0: wait_func_handle_exec_timeout:1104:(pid 141183): cmd[22]: "
        "CREATE_DCT(0x710) No done completion")  # openucx/ucx #7738 (mlx5-more.yaml): pdsh / clush's "host: "
RESCUE = ("Dec 23 23:32:27 rescue kernel: [ 270.439207] NVRM: Xid (PCI:0000:01:00): 62, 0096(1c54) 00000000 "
          "00000000")  # https://gist.github.com/kohsuke/84ce815d0a8ad85ecaf6 (xid-shapes.yaml): syslog
RED = ("May 15 08:57:36 red kernel: NVRM: Xid (PCI:0000:01:00): 31, pid=80798, name=llama-server, Ch 00000008, intr "
       "00000000. MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_3 faulted @ 0x7e9f_4f200000. Fault is of type FAULT_PDE "
       "ACCESS_TYPE_VIRT_READ")  # ikawrakow/ik_llama.cpp #425 (process-crash.yaml): syslog
DMESG = "[ 4254.197860] NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


def _findings(text: str) -> list:
    return list(Scanner(Classifier(year=2024)).for_stream().scan(io.BytesIO(text.encode())))


@pytest.mark.parametrize("line, host", [
    (PDSH, "b1360"),
    (RESCUE, "rescue"),
    (RED, "red"),
    (DMESG, None),  # plain dmesg names no host
    ("<3>[ 4254.197860] " + DMESG.split("] ", 1)[1], None),  # dmesg -r / pstore: none
    # stern -o json's record (stern/stern cmd/cmd_test.go's fields, tests/fixtures/realworld/envelopes-stern-2026.yaml)
    # holding the dmesg line above: CONSTRUCTED; its nodeName is the host
    (json.dumps({"message": DMESG, "nodeName": "node1", "namespace": "ns1", "podName": "pod1",
                 "containerName": "container1"}), "node1"),
    # kubectl's prefix names a pod, no host
    ("[pod/gpu-npd-x7k2q/agent] " + DMESG, None),
])
def test_a_finding_carries_the_host_its_envelope_names(line, host):
    (f,) = [f for f in _findings(line + "\n") if f.severity != "info"]
    assert f.host == host
    assert ("host" in f.to_dict()) == (host is not None)


def test_two_hosts_one_stream_each_finding_its_own():
    """Identical servers share their GPUs' addresses: two nodes' Xids on 0000:01:00 in one input (a fleet's syslog,
    COMPOSED of the two REAL lines above) are two hosts' findings."""
    got = [(f.host, f.pci, f.xid) for f in _findings(RESCUE + "\n" + RED + "\n") if f.kind == "xid"]
    assert got == [("rescue", "0000:01:00", 62), ("red", "0000:01:00", 31)]
