"""Triage of a TCPStore client that lost the store it had reached (h549): c10d's "[c10d] recvValue failed on
SocketImpl(fd=.., addr=[..]:.., remote=[host]:20000): Connection reset by peer" (sendBytes's, recvVector's,
recvValueWithTimeout's) and the watchdog's "Failed to check the "should dump" flag on TCPStore, (maybe TCPStore server
has shut down too early), with error: .." (triage/facts.py row `store_lost`) as the job's first symptom name the store's
host the suspect (rule `store_lost`, triage/attribute.py `_store_lost`): the store went away with the process that held
it (rank 0's for torchrun's static rendezvous, the elastic agent's for c10d's). Was: UNDETERMINED, no host, "the cause
is in no log read here". Rank 0 is named only where its host is the store's; a rank's own failure still comes first.

Lines marked REAL are copied verbatim from the public source beside them.  Jobs marked SYNTHETIC put real-format
lines together into a job that did not happen as such; they test the rule, never the formats.
"""

from __future__ import annotations

from test_triage_unique_id import OOM_2  # REAL: modelscope/FunASR #2006

from triage import Clock, attribute, read_lines

# REAL: https://github.com/sgl-project/sglang/issues/20859 (tests/fixtures/incidents/h549_sglang-20859-store-reset)
SHOULD_DUMP = ('[rank8]:[W318 10:00:41.929037914 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 8] Failed to check '
               'the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with error: '
               'Connection reset by peer')
RECV = ("[rank12]:[W318 10:00:41.915284135 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=135, "
        "addr=[sglang-0-1.sglang.default.svc.transwarp.local]:48750, remote=[sglang-0.default.pod.transwarp.local]:"
        "20000): Connection reset by peer")
# REAL: https://github.com/MiniMax-AI/MiniMax-M1/issues/14 (the store on the reporter's own pod)
SEND_SAME_HOST = ("[rank7]:[W624 12:52:08.296327263 TCPStore.cpp:106] [c10d] sendBytes failed on SocketImpl(fd=97, "
                  "addr=[openmatrix-minimax-m1-80k-prod-hzh20-custom-serving-58c98cpwxbz]:50828, remote=[openmatrix-"
                  "minimax-m1-80k-prod-hzh20-custom-serving-58c98cpwxbz]:45903): Broken pipe")
# REAL: https://github.com/Dere-Wah/AI-MarioKart64/issues/3 (2.6's words, an IPv4-mapped loopback store)
RECV_LOOPBACK = ("[rank2]:[W625 23:35:35.303797152 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=6, "
                 "addr=[::ffff:127.0.0.1]:37468, remote=[::ffff:127.0.0.1]:6006): failed to recv, got 0 bytes")
# REAL: https://github.com/ome-projects/ome/issues/312 (2.8's words)
RECV_28 = ("[rank82]:[W1104 01:29:53.257494110 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=116, "
           "addr=[lws-kimi-k2-instruct-decoder-0-10.lws-kimi-k2-instruct-decoder.ome.svc.cluster.local]:44516, "
           "remote=[10-24-8-26.kimi-k2-instruct-decoder.ome.svc.cluster.local]:5757): Failed to recv, got 0 bytes. "
           "Connection was likely closed. Did the remote server shutdown or crash?")
# REAL: https://github.com/pytorch/pytorch/pull/153586 (its test plan: the wait's recvValueWithTimeout, a store on
# localhost)
RECV_WITH_TIMEOUT = ("[W514 18:33:36.536327028 TCPStore.cpp:138] [c10d] recvValueWithTimeout failed on "
                     "SocketImpl(fd=3, addr=[localhost]:34658, remote=[localhost]:1234): Failed to recv, got 0 bytes. "
                     "Connection was likely closed. Did the remote server shutdown or crash?")
# SYNTHETIC: NCCL's address line of rank 0 on host sglang-0 (its format: NCCL's "Bootstrap : Using" INFO line)
RANK0_HOST = "[rank0]:sglang-0:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>"


def _job(lines: list[str]):
    return attribute(read_lines(lines, "/logs/train.log", Clock(), root="/logs", year=2026))


def test_a_lost_store_names_the_stores_host():
    """sglang #20859: was UNDETERMINED, no host, the first store error 'TCPStore.cpp:125] [c10d] recvValue failed'."""
    (incident,) = _job([SHOULD_DUMP, RECV])
    assert (incident.category, incident.rule) == ("undetermined", "store_lost")
    assert (incident.root.host, incident.root.rank) == ("sglang-0.default.pod.transwarp.local", None)
    assert incident.reason.startswith("2 ranks (8,12) lost the store at sglang-0.default.pod.transwarp.local:20000 "
                                      "('Connection reset by peer')")
    assert len(incident.evidence) == 2


def test_every_eras_words_are_a_lost_store():
    """2.6's "failed to recv, got 0 bytes", 2.8's "Failed to recv, got 0 bytes. .. Did the remote server shutdown or
    crash?", sendBytes's "Broken pipe": each the store's address its host."""
    for line, host in ((RECV_28, "10-24-8-26.kimi-k2-instruct-decoder.ome.svc.cluster.local"),):
        (incident,) = _job([line])
        assert (incident.rule, incident.root.host) == ("store_lost", host)


def test_a_store_on_the_reporters_own_host_is_said_so():
    """MiniMax-M1 #14 (the client's and the store's address one host) and AI-MarioKart64 #3 (loopback): the store on
    the reporter's own host, whose name no line gives: no host named, the reason says where."""
    for line in (SEND_SAME_HOST, RECV_LOOPBACK):
        (incident,) = _job([line])
        assert (incident.rule, incident.root.host, incident.root.rank) == ("store_lost", None, None)
        assert "(on its own host)" in incident.reason


def test_the_waits_recv_value_with_timeout_is_a_lost_store():
    """pytorch #153586: TCPClient's fourth wrapped call, the wait's recvValueWithTimeout (TCPStore.cpp's C10D_WARNING
    "recvValueWithTimeout failed on {}: {}"), was no lost store: UNDETERMINED, 'the first store error'."""
    (incident,) = _job([RECV_WITH_TIMEOUT])
    assert (incident.rule, incident.root.host) == ("store_lost", None)
    assert incident.reason.startswith("a rank lost the store at localhost:1234 (on its own host) ('Failed to recv")


def test_rank_0_is_named_where_its_host_holds_the_store():
    """SYNTHETIC: rank 0's host is sglang-0, the store's address sglang-0.default.pod..: rank 0 the suspect."""
    (incident,) = _job([RANK0_HOST, RECV])
    assert (incident.rule, incident.root.rank, incident.root.host) == ("store_lost", 0, "sglang-0")
    assert "rank 0 on that host" in incident.reason
    # the rank that lost it is a witness, said (was "no other rank reported a failure")
    assert incident.consequences == ("rank 12 reported store error 'recvValue failed' (store "
                                     "sglang-0.default.pod.transwarp.local:20000)")


def test_a_rank_0_that_lost_the_store_itself_is_not_named():
    """SYNTHETIC: rank 0 reported the lost store: it was a client, not the store's process."""
    (incident,) = _job([RANK0_HOST, RECV.replace("[rank12]:", "[rank0]:")])
    assert (incident.rule, incident.root.rank, incident.root.host) == ("store_lost", None, "sglang-0")


def test_a_ranks_own_failure_read_still_comes_first():
    """SYNTHETIC: rank 2's CUDA out of memory before the lost store: the failure is the root."""
    (incident,) = _job([OOM_2, RECV])
    assert (incident.category, incident.rule, incident.root.rank) == ("application", "first_failure", 2)


def test_a_store_lost_after_another_symptom_is_no_root():
    """SYNTHETIC: a watchdog's timeout (PyTorch 2.x's words) before the lost store: the store went away after the
    hang (a rank's abort), so the lost store names no host: undetermined, as before."""
    timeout = ("[rank8]:[E318 10:00:11.929037914 ProcessGroupNCCL.cpp:616] [Rank 8] Watchdog caught collective "
               "operation timeout: WorkNCCL(SeqNum=5653, OpType=ALLREDUCE, NumelIn=58720256, NumelOut=58720256, "
               "Timeout(ms)=600000) ran for 600028 milliseconds before timing out.")
    (incident,) = _job([timeout, RECV])
    assert incident.rule != "store_lost" and incident.root.host != "sglang-0.default.pod.transwarp.local"


# REAL: https://github.com/devopsrustem/slurmv4/blob/93aac68b8787161d20c77d755fa9717cf036933f/3/14.sh#L205-L206
# (SGLang 0.5.9 on two nodes, `--dist-init-addr 10.99.91.59:5000`): its sockets IPv4 ones, whose addresses c10d's
# formatSockAddr (torch/csrc/distributed/c10d/socket.cpp) prints "host:port", unbracketed, the client's a resolved name;
# only an IPv6 socket's is "[host]:port"
SHOULD_DUMP_V4 = ('[rank10]:[W305 10:17:38.040221001 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 10] Failed to '
                  'check the "should dump" flag on TCPStore, (maybe TCPStore server has shut down too early), with '
                  'error: Broken pipe')
SEND_V4 = ("[rank15]:[W305 10:17:38.404745404 TCPStore.cpp:106] [c10d] sendBytes failed on SocketImpl(fd=102, "
           "addr=tpgds-aihub0008.delta.sbrf.ru:33978, remote=10.99.91.59:5000): Broken pipe")


def test_an_ipv4_sockets_unbracketed_address_is_a_lost_store_too():
    """The row read only the bracketed (IPv6, dual-stack) form: an IPv4 socket's "remote=10.99.91.59:5000" was no
    store address (the store's host unnamed: "lost the job's store"), its client's name unread."""
    (incident,) = _job([SHOULD_DUMP_V4, SEND_V4])
    assert (incident.rule, incident.root.host) == ("store_lost", "10.99.91.59")
    assert incident.reason.startswith("2 ranks (10,15) lost the store at 10.99.91.59:5000 ('Broken pipe')")
    (send,) = [e for e in incident.evidence if e.rank == 15]
    assert (send.details["store_client"], send.details["store_port"]) == ("tpgds-aihub0008.delta.sbrf.ru", "5000")
