"""A fleet's input read one stream context per host (`Classifier.for_stream(by_host=True)`, `gpu-npd parse` on an
input whose first lines name hosts): pdsh interleaves its nodes' lines, and a line of one node never takes another's
NVRM banner (its address, its GPU's UUID) nor joins another's open multi-line event.

The lines are REAL, each copied verbatim from its fixture (tests/fixtures/realworld: the file and source named); the
interleaving under two pdsh prefixes (`node-a: `, `node-b: `, pdsh's form: openucx/ucx #7738) is COMPOSED."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
import yaml

from parsers import Classifier, Scanner
from parsers import classify
from parsers.envelope import hosts_named

REALWORLD = Path(__file__).resolve().parents[1] / "fixtures" / "realworld"


def _text(fixture: str, source: str) -> list[str]:
    """The lines of the fixture's first entry from `source`, verbatim."""
    entry = next(e for e in yaml.safe_load((REALWORLD / fixture).read_text()) if e["source"] == source)
    return entry["text"].splitlines()


# NVRM's banner naming the GPU (0000:00:06) and its UUID, then Xid 31 (captured on a lent H200)
H200 = _text("captured-h200.yaml", "captured on a lent H200, 2026-11-28")[:3]
# the banner of another GPU at the same address (identical servers: another UUID), then Xid 119 (a KVM guest)
KVM = _text("gpu-kernel-3.yaml", "https://lore.kernel.org/kvm/CABgObfa+NKKeV=178L348VfrZkB7sa2kCZ1V1kwU+3pKfUd2jg@mail.gmail.com/")[:3]
# a GPU lost, named by its index only (GPU0): no address of its own (nvrm-2026l.yaml)
LOST = _text("nvrm-2026l.yaml", "https://github.com/Cyridd/cmpunlocker/issues/4")
# a kernel oops's tail whose RIP is in nvidia (kernel_oops), and a BeeGFS client's oops report (storage_oops)
NVIDIA_OOPS = _text("kernel-oops.yaml", "https://github.com/NVIDIA/nvtrust/issues/51")
BEEGFS_OOPS = _text("storage-oops.yaml", "https://github.com/ThinkParQ/beegfs/issues/107")


def _interleaved(a: list[str], b: list[str]) -> bytes:
    """node-a's and node-b's lines one by one, as pdsh prints nodes answering together (COMPOSED)."""
    lines = [f"{host}: {line}" for pair in itertools.zip_longest(a, b) for host, line in zip(("node-a", "node-b"), pair)
             if line is not None]
    return ("\n".join(lines) + "\n").encode()


def _findings(data: bytes, by_host: bool = True) -> list:
    """The findings of `data` read as `gpu-npd parse` reads an input (offline/cli.py _read_stream), or (by_host False)
    as one stream."""
    scanner = Scanner(Classifier()).for_stream(by_host)
    if by_host and hosts_named(data[:8192]) > 1:
        scanner.classifier.hosts_apart()
    return list(scanner.scan(io.BytesIO(data)))


def _alone(host: str, lines: list[str]) -> list[tuple]:
    return [_key(f) for f in _findings(("\n".join(f"{host}: {line}" for line in lines) + "\n").encode())]


def _key(f) -> tuple:
    return f.host, f.kind, f.xid, f.pci, f.details.get("uuid"), f.severity


def test_each_nodes_xid_takes_its_own_banners_uuid():
    got = [_key(f) for f in _findings(_interleaved(H200, KVM))]
    assert got == [("node-a", "xid", 31, "0000:00:06", "GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120", "error"),
                   ("node-b", "xid", 119, "0000:00:06", "GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c", "fatal")]
    # one stream for the whole input (before): node-a's Xid took node-b's UUID, the banner read last
    before = {f.host: f.details.get("uuid") for f in _findings(_interleaved(H200, KVM), by_host=False)}
    assert before["node-a"] == "GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c"


def test_a_lost_gpu_named_by_index_never_takes_another_nodes_address():
    got = sorted(_key(f) for f in _findings(_interleaved(H200, LOST)))
    assert got == sorted(_alone("node-a", H200) + _alone("node-b", LOST))
    (lost,) = [f for f in _findings(_interleaved(H200, LOST)) if f.host == "node-b"]
    assert lost.kind == "fallen_off_bus" and lost.pci is None and "uuid" not in lost.details


def test_each_nodes_oops_report_is_its_own_event():
    got = sorted(_key(f) for f in _findings(_interleaved(NVIDIA_OOPS, BEEGFS_OOPS)))
    assert got == sorted(_alone("node-a", NVIDIA_OOPS) + _alone("node-b", BEEGFS_OOPS))
    assert {(h, k) for h, k, *_ in got} == {("node-a", "kernel_oops"), ("node-b", "storage_oops")}
    # before: node-b's report was read as part of node-a's, its storage_oops lost
    assert {f.host for f in _findings(_interleaved(NVIDIA_OOPS, BEEGFS_OOPS), by_host=False)} == {"node-a"}


def test_lines_naming_no_host_share_the_first_hosts_stream():
    """The first host named and the lines naming none are the input's own stream (one node's log whose lines come in
    two forms: its dmesg and its syslog); a second host's lines are their own."""
    xid43 = "[   40.190497] NVRM: Xid (PCI:0000:00:06): 43, pid=507, name=python3, channel 0x0000000a"  # captured-h200.yaml
    data = ("\n".join([H200[0], "node-a: " + H200[2], "node-b: " + KVM[0], "node-b: " + KVM[2], "node-a: " + xid43])
            + "\n").encode()
    got = [(f.host, f.xid, f.details.get("uuid")) for f in _findings(data)]
    assert got == [("node-a", 31, "GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120"),
                   ("node-b", 119, "GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c"),
                   ("node-a", 43, "GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120")]


def test_past_the_cap_the_host_seen_longest_ago_starts_afresh(monkeypatch):
    monkeypatch.setattr(classify, "MAX_HOST_STREAMS", 2)
    lines = ["node-a: " + H200[0], "node-b: " + KVM[0], "node-c: " + KVM[0], "node-a: " + H200[2]]
    classifier = Classifier().for_stream(by_host=True)
    classifier.hosts_apart()
    found = list(Scanner(classifier).scan(io.BytesIO(("\n".join(lines) + "\n").encode())))
    (xid,) = found
    assert xid.host == "node-a" and "uuid" not in xid.details  # node-a's banner forgotten for node-c's context
    assert classifier.hosts_forgotten == 2  # node-a's for node-c's, then node-b's for node-a's again


@pytest.mark.parametrize("head, named", [
    (_interleaved(H200, KVM), 2),  # pdsh
    (("\n".join(H200) + "\n").encode(), 0),  # one node's dmesg
    (b"Dec 23 23:32:27 rescue kernel: [ 270.439207] NVRM: Xid (PCI:0000:01:00): 62, 0096(1c54) 00000000 00000000\n",
     1),  # one node's syslog (kohsuke's gist 84ce815d0a8ad85ecaf6, xid-shapes.yaml)
    (b"", 0),
])
def test_the_hosts_an_inputs_first_lines_name(head, named):
    assert hosts_named(head) == named


def test_a_second_host_after_the_inputs_start_gets_its_own_stream_from_its_first_finding_line():
    """node-a's banner and Xid, then node-b's lost GPU (named by index only): read as one stream it took node-a's
    address and UUID from the banner four lines before."""
    data = ("\n".join(["node-a: " + line for line in H200] + ["node-b: " + line for line in LOST]) + "\n").encode()
    assert hosts_named(data[:8192]) == 2  # (read as parse does, the per-host streams begin at node-b's first line)
    scanner = Scanner(Classifier()).for_stream(True)
    got = sorted(_key(f) for f in scanner.scan(io.BytesIO(data)))
    assert got == sorted(_alone("node-a", H200) + _alone("node-b", LOST))
    assert [f.pci for f in _findings(data, by_host=False) if f.host == "node-b"] == ["0000:00:06"]


def test_one_node_naming_its_host_stays_one_stream():
    """A node's log whose lines come in two forms (its syslog naming it, its dmesg naming none) is one node: one stream,
    nothing read per host.  The second line COMPOSED: kohsuke's gist's syslog prefix before the lore line."""
    data = ("\n".join([KVM[0], "Dec 23 23:32:27 rescue kernel: " + KVM[2]]) + "\n").encode()
    scanner = Scanner(Classifier()).for_stream(True)
    (xid,) = scanner.scan(io.BytesIO(data))
    assert xid.host == "rescue" and xid.details["uuid"] == "GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c"
    assert scanner.classifier._hosts is None


def test_one_nodes_dmesg_is_read_as_before():
    """The per-host read changes nothing for an input naming no host: the same findings either way."""
    data = ("\n".join(H200 + KVM + LOST + NVIDIA_OOPS + BEEGFS_OOPS) + "\n").encode()
    assert [f.to_dict() for f in _findings(data)] == [f.to_dict() for f in _findings(data, by_host=False)]


def test_a_second_hosts_banner_before_its_first_finding_line_is_its_own():
    """Two nodes' logs one after the other (`cat node-a.log node-b.log`), whose start names one host (node-a's part
    past the 64 lines hosts_named reads): node-b's NVRM banner comes before any line of node-b that makes a finding.
    Remembered in the one stream then, node-b's Xid lost the UUID its own banner gave (read as one stream, it had it),
    and node-a's later Xid took node-b's.  The Xid 43 line REAL (captured-h200.yaml), the order COMPOSED."""
    xid43 = "[   40.190497] NVRM: Xid (PCI:0000:00:06): 43, pid=507, name=python3, channel 0x0000000a"
    lines = ["node-a: " + line for line in H200] + ["node-b: " + line for line in KVM] + ["node-a: " + xid43]
    scanner = Scanner(Classifier()).for_stream(True)  # (never hosts_apart: the input's start named one host)
    got = [(f.host, f.xid, f.details.get("uuid")) for f in scanner.scan(io.BytesIO(("\n".join(lines) + "\n").encode()))]
    assert got == [("node-a", 31, "GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120"),
                   ("node-b", 119, "GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c"),
                   ("node-a", 43, "GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120")]


def test_one_machines_short_name_and_fqdn_are_one_stream():
    """A node's syslog naming it by its short name and its journal's FQDN (aws/amazon-ecs-ami #256: `Jun 11 08:11:04
    ip-10-0-19-159.ec2.internal kernel: NVRM: ..`, the journal's lines of an EC2 node) are one machine (envelope.host_key):
    its Xid takes the banner of the other spelling, one stream (was: two hosts, the Xid apart from its banner, no UUID).
    The prefixes on captured-h200.yaml's lines COMPOSED."""
    data = ("\n".join(["Jun 11 08:11:04 ip-10-0-19-159 kernel: " + H200[0],
                       "Jun 11 08:11:04 IP-10-0-19-159.ec2.internal kernel: " + H200[2]]) + "\n").encode()
    assert hosts_named(data) == 1
    scanner = Scanner(Classifier(year=2024)).for_stream(True)
    (xid,) = scanner.scan(io.BytesIO(data))
    assert xid.host == "IP-10-0-19-159.ec2.internal"  # (the finding keeps the name its line gave)
    assert xid.details["uuid"] == "GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120"
    assert scanner.classifier._hosts is None


def test_an_address_is_no_short_name():
    """pdsh's `-w 10.0.0.[1-2]` names nodes by address: 10.0.0.1 and 10.0.0.2 are two nodes, never one "10"."""
    lines = [f"10.0.0.1: {H200[0]}", f"10.0.0.2: {KVM[0]}", f"10.0.0.1: {H200[2]}", f"10.0.0.2: {KVM[2]}"]
    data = ("\n".join(lines) + "\n").encode()
    assert hosts_named(data) == 2
    got = [(f.host, f.details.get("uuid")) for f in _findings(data)]
    assert got == [("10.0.0.1", "GPU-4b652ae2-0ec6-7dcb-611e-8bd2e51d9120"),
                   ("10.0.0.2", "GPU-fcdeaa4c-664a-4de8-2e32-23e14628ce8c")]


def test_the_heads_last_line_cut_short_is_not_read():
    """The head parse sniffs (8 KiB) ends inside a line where more input follows: only whole lines are counted, that
    line is not (a line cut short is no line its envelope was written for); a head ending on its newline reads its
    last line."""
    whole = ("\n".join(["node-a: " + line for line in H200] + ["node-b: " + KVM[0]]) + "\n").encode()
    cut = whole[:whole.index(b"node-b: ") + len(b"node-b: [  113.669214] NVRM: GPU at")]
    assert hosts_named(whole) == 2 and hosts_named(cut) == 1


def test_a_pending_envelopes_host_is_read_from_its_match_as_the_built_one_names_it():
    """host_of reads the host of a pending envelope whose builder takes it from one group of the match
    (envelope._HOST_GROUP) without building it, so a per-host read's NVRM banner, which makes no finding, parses no
    timestamp: on every realworld sample's line of such a row (REAL lines), the answer is the built envelope's, and each
    listed group is seen naming a host."""
    import realworld  # noqa: PLC0415 - tests/ on the path (conftest)

    from parsers.envelope import _HOST_GROUP, Envelope, finish, host_of, split  # noqa: PLC0415

    named = set()
    for item in realworld.samples():
        for line in item["text"].splitlines():
            env = split(line)[2]
            if type(env) is Envelope or _HOST_GROUP.get(env[0], 0) == 0:
                continue
            host, kept = host_of(env)
            assert kept is env, line  # never built to be asked
            assert host == host_of(finish(env))[0], line
            if host is not None:
                named.add(env[0])
    assert named == {build for build, group in _HOST_GROUP.items() if group is not None}


def test_a_dmesg_t_lines_pending_envelope_names_no_host_unbuilt():
    """(h612) A `dmesg -T` line is the dmesg row's (its second alternative): its pending envelope's builder is one that
    never names a host (HOSTLESS), so Classifier.read asks it no host_of and host_of builds nothing to answer None; real
    lines (tests/fixtures/incidents/sulao-1165-xid94-nvswitch/logs/dmesg.txt, realworld/gpu-nic-pcie.yaml's pt_BR one)."""
    from parsers.envelope import HOSTLESS, finish, host_of, split  # noqa: PLC0415

    for line in ("[Mon Feb 2 22:52:45 2026] NVRM: Xid (PCI:0000:cb:00): 94, pid=538578, name=python, channel 0x0000000b",
                 "[Ter Set 19 06:01:41 2017] pciehp 0000:02:05.0:pcie24: slot(6): Link Down event"):
        env = split(line)[2]
        assert type(env) is tuple and env[0] in HOSTLESS, line
        assert host_of(env) == (None, env) and finish(env).name == "dmesg_t", line


# two PCIe AER events (rules.EVENT_LINES "aer": 12 lines): a root port's corrected errors, a GPU's uncorrected one
AER_ROOT = _text("pcie-aer-2.yaml", "https://github.com/balena-os/balena-intel/issues/304")
AER_GPU = _text("gpu-nic-pcie.yaml", "https://lore.kernel.org/all/20220317225944.GA765564@bhelgaas/")


def test_an_events_window_counts_its_own_hosts_lines_however_many_other_nodes_lines_come_between():
    """A multi-line event's window (rules.EVENT_LINES) counts the lines of the event's own host: two nodes' AER events,
    every line of each 40 lines of 20 other nodes' Xid lines apart (pdsh's nodes answering together, COMPOSED of the
    REAL lines above), give what each node's lines alone give.  Was: the window counted the input's lines, so each
    event's detail lines came past it, read apart from their header."""
    others = [f"node-{n:02}: {H200[2]}" for n in range(20)] * 2  # each other node's Xid 31, as each alone reads it
    lines = [line for pair in itertools.zip_longest(AER_ROOT, AER_GPU) for host, one in zip(("node-a", "node-b"), pair)
             if one is not None for line in (f"{host}: {one}", *others)]
    got = sorted(map(repr, (_key(f) for f in _findings(("\n".join(lines) + "\n").encode()) if f.xid != 31)))
    assert got == sorted(map(repr, _alone("node-a", AER_ROOT) + _alone("node-b", AER_GPU)))



# a driver that refuses the GPU: its NVRM message's continuation lines, dmesg's indented ones (driver_mismatch)
MISMATCH = _text("driver-mismatch.yaml", "https://github.com/NVIDIA/gpu-operator/issues/918")
# a program's CUDA errors on the captured H200 (captured-h200.yaml's third entry: cupy's tracebacks, cuda_error)
CUPY = yaml.safe_load((REALWORLD / "captured-h200.yaml").read_text())[2]["text"].splitlines()


def test_a_named_nodes_lines_without_an_envelope_of_their_own_are_that_nodes():
    """pdsh leads every line with the node, a kernel message's indented continuation and a program's line too
    (`pdsh 'dmesg; cat err.log'`): such a line is plain text to `split` (a program's `RuntimeError: ` is as much a
    prefix), read as its node's where the input names that node by its lines' envelopes.  Was: read in the input's own
    stream, host None, so node-a's driver_mismatch (its continuation line) lost the address node-a's first line gave,
    and the program's cuda_error named no node.  Interleaved with node-b's lines (COMPOSED), each node's findings are
    its lines' alone, its host named."""
    mine = MISMATCH + H200 + CUPY
    found = [_key(f) for f in _findings(_interleaved(mine, KVM))]
    assert sorted(map(repr, found)) == sorted(map(repr, _alone("node-a", mine) + _alone("node-b", KVM)))
    assert {host for host, *_ in found} == {"node-a", "node-b"}
    assert ("node-a", "driver_mismatch", None, "0000:02:00", None, "error") in found
    assert ("node-a", "cuda_error") in {key[:2] for key in found}


def test_a_programs_prefix_naming_no_node_of_the_input_is_no_host():
    """A plain line whose `word: ` names no host the input names is no node's: cupy's
    `cupy_backends.cuda.api.runtime.CUDARuntimeError: ..` (CUPY's, unprefixed, beside node-a's and node-b's lines) is
    read as before, host None."""
    data = ("\n".join(["node-a: " + H200[0], "node-b: " + KVM[0], CUPY[6]]) + "\n").encode()
    assert CUPY[6].startswith("cupy_backends.cuda.api.runtime.CUDARuntimeError: ")
    assert [(f.host, f.kind) for f in _findings(data)] == [(None, "cuda_error")]


# NVRM's banner naming the GPU (0000:06:00) and its UUID, its serial line, then Xid 79 and what followed it, printed
# without dmesg's stamps (NVIDIA/open-gpu-kernel-modules #1151, xid-shapes.yaml): `dmesg --notime`'s plain lines
NOTIME = _text("xid-shapes.yaml", "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/1151")


def test_a_fleets_plain_kernel_lines_are_read_per_node():
    """`pdsh -w node-[a-b] 'dmesg --notime'`: every line plain behind pdsh's `node-x: ` (prepended here as pdsh does,
    COMPOSED; the NVRM lines REAL, #1151's).  node-a printed the GPU's banner, node-b (identical servers, the same
    address) its Xid 79, its banner gone from its ring buffer.  Was: no line named a host by an envelope, so the input
    was one stream: node-b's Xid took node-a's UUID and the findings named no node.  A prefix is a node where what
    follows it is a kernel message the rows know (envelope.KERNEL_LEADS), the input a fleet's from its first such
    line."""
    data = _interleaved(NOTIME[:2], NOTIME[2:])
    assert hosts_named(data) == 2
    got = [_key(f) for f in _findings(data)]
    assert got == _alone("node-b", NOTIME[2:])
    assert [(host, kind, uuid) for host, kind, _, _, uuid, _ in got] == [("node-b", "xid", None)]
    # node-a's lines alone: its banner, no finding; the whole log of one node behind its prefix reads as unprefixed
    assert _alone("node-a", NOTIME[:2]) == []
    (one,) = _alone("node-a", NOTIME)
    assert one[:2] == ("node-a", "xid") and one[4] == "GPU-0b6b7808-c002-f593-ac86-cd8e57757b94"


def test_a_kernel_messages_own_lead_is_no_node():
    """`NVRM: Xid (..)` looks like `name: rest` (NVRM's own lead before a message of NVRM's: `NVRM: GPU 0000:06:00.0:
    ..`): one node's `dmesg --notime` names no host, read as one stream as before (the lines REAL, #1151's)."""
    data = ("\n".join(NOTIME) + "\n").encode()
    assert hosts_named(data) == 0
    (xid,) = _findings(data)
    assert xid.host is None and xid.details["uuid"] == "GPU-0b6b7808-c002-f593-ac86-cd8e57757b94"
