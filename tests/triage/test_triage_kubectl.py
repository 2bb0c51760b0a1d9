"""A job's pods in one file, as `kubectl logs --prefix` prints them (triage/ranks.py row `kubectl`): kubectl's
"[pod/<pod>/<container>] " before each line names the pod, the line's host and writer, and the prefixes after it
(--timestamps' stamp, Ray's, torch's "[rank3]:", NCCL's) are read as without it.  Before, the prefix hid every prefix
after it: every pod's lines were one writer's, and a Ray worker's death read as no process's."""

from __future__ import annotations

import json
from pathlib import Path

from parsers.envelope import detect
from triage import Clock, attribute, read_lines
from triage.ranks import hostname_of_pod, strip_lead

INCIDENTS = Path(__file__).resolve().parents[1] / "fixtures" / "incidents"


def kubectl_prefixed(pod: str, container: str, lines: list[str]) -> list[str]:
    """The lines as `kubectl logs --prefix` prints them: its prefixingWriter writes fmt.Sprintf("[pod/%s/%s] ",
    pod, container) before each line of the pod's stream (kubernetes/kubernetes staging/src/k8s.io/kubectl/pkg/cmd/
    logs/logs.go addPrefixIfNeeded, the same text since --prefix came in 1.17, PR #76471)."""
    return [f"[pod/{pod}/{container}] {line}" for line in lines]


def test_prefix_names_the_pod_and_the_prefixes_after_it_are_read():
    # REAL shape: geerlingguy/ansible-for-kubernetes #75, `kubectl logs -l app=echo-req --prefix=true`
    fields, lead, rest = strip_lead('[pod/echo-req-7cfd7bf68f-nk5kr/hello] 172.17.0.1 - - [22/Nov/2020:17:19:05 +0000] '
                                    '"GET /test HTTP/1.1" 200 7269 "-"')
    assert dict(fields) == {"host": "echo-req-7cfd7bf68f-nk5kr", "pod": "echo-req-7cfd7bf68f-nk5kr"} and lead == ""
    assert rest.startswith("172.17.0.1 - - [22/Nov/2020")
    # --timestamps: the stamp is the log's text, after kubectl's prefix (guidebooks/store guidebooks/ml/torchx/run/
    # logs.sh reads `kubectl logs --prefix --timestamps` output as $1 the prefix, $2 the stamp): the line's time
    fields, lead, rest = strip_lead("[pod/train-worker-1/pytorch] 2024-07-25T07:00:00.123456789Z [rank11]: "
                                    "torch.cuda.OutOfMemoryError: CUDA out of memory.")
    assert dict(fields) == {"host": "train-worker-1", "pod": "train-worker-1", "rank": 11}
    assert lead == "2024-07-25T07:00:00.123456789Z " and rest.startswith("torch.cuda.OutOfMemoryError")
    # NCCL's host (the pod's hostname) is the inner prefix's, as any inner prefix wins; kubectl's container may be empty
    fields, _, rest = strip_lead("[pod/train-worker-1/] train-worker-1:91:123 [2] NCCL WARN x")
    assert dict(fields) == {"host": "train-worker-1", "pod": "train-worker-1", "pid": 91, "gpu": 2} and \
        rest == "NCCL WARN x"
    # the pod's index is no rank (a pod runs a node's ranks): torchrun's local rank only
    assert dict(strip_lead("[pod/job-worker-3/pytorch] [default5]:Traceback (most recent call last):")[0]) == \
        {"host": "job-worker-3", "pod": "job-worker-3", "local_rank": 5}
    # two pods' tracebacks interleaved are two writers
    assert strip_lead("[pod/a-0/c] Traceback (most recent call last):")[0] != \
        strip_lead("[pod/a-1/c] Traceback (most recent call last):")[0]
    # no kubectl prefix: a bracketed word that is no pod's, or kubectl's without its space
    for line in ("[pods/a/b] x", "[pod/a] x", "[pod/a/b]x", "[pod//b] x"):
        assert not any(name == "host" for name, _ in strip_lead(line)[0]), line
    # nor the other lines that open with "[": dmesg's, dmesg -T's, a JSON array, an app's bracketed level, stamp or
    # torch's rank (SYNTHETIC lines of their shapes): no host, and `gpu-npd parse` reads them as before the row came
    for line in ("[   12.345678] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
                 "[Thu Sep 19 02:29:46 2024] NVRM: Xid (PCI:0000:3b:00): 79", '["pod/a/b", 1]', "[INFO] pod/a/b ready",
                 "[2025-01-01 12:00:00] pod/a/b ready", "[rank0]: [pod/a/b] x"):
        assert not any(name == "host" for name, _ in strip_lead(line)[0]), line
        assert detect(line).name != "kubectl" and "pod" not in detect(line).extra, line


def test_real_incident_through_kubectl_prefix_keeps_its_verdict():
    # CONSTRUCTED: OpenRLHF/OpenRLHF #621's driver log (tests/fixtures/incidents/openrlhf-621-mlx5-cqe, its lines
    # verbatim), as `kubectl logs --prefix` of the Ray head pod would print it: the prefix is kubectl's
    # (logs.go's fmt.Sprintf("[pod/%s/%s] ", ..)), the pod's name a KubeRay head's shape (invented), the container
    # KubeRay's default `ray-head`.  Before: `undetermined` (the prefix hid Ray's "(LLMRayActor pid=90738, ip=..)",
    # the engine's RDMA error no process's); now the incident's expected verdict.
    incident = INCIDENTS / "openrlhf-621-mlx5-cqe"
    lines = [line for name in ("description-1.log", "description-2.log")
             for line in (incident / "logs" / name).read_text().splitlines()]
    clock = Clock()
    evidence = list(read_lines(kubectl_prefixed("openrlhf-raycluster-head-x7k2p", "ray-head", lines),
                               "job.log", clock))
    incidents = attribute(clock.align(evidence))
    expected = json.loads((incident / "expected.json").read_text())
    assert incidents and incidents[0].category == expected["category"] == "fabric"
    assert incidents[0].root.host == expected["host"]


def test_parse_reads_through_the_prefix():
    # `gpu-npd parse` of a --prefix'd --timestamps stream: the line behind kubectl's prefix read as its own (its time
    # --timestamps' stamp), the pod and container kept in the envelope's extra
    env = detect("[pod/train-worker-1/pytorch] 2024-07-25T07:00:00.123456789Z [rank11]: torch.cuda.OutOfMemoryError: "
                 "CUDA out of memory.")
    assert env.message == "[rank11]: torch.cuda.OutOfMemoryError: CUDA out of memory."
    assert env.timestamp is not None and env.timestamp.isoformat().startswith("2024-07-25T07:00:00.123456")
    assert env.extra["pod"] == "train-worker-1" and env.extra["container"] == "pytorch"
    plain = detect("[pod/train-worker-1/pytorch] Traceback (most recent call last):")
    assert plain.message == "Traceback (most recent call last):" and plain.extra["pod"] == "train-worker-1"


def test_parse_of_nested_prefixes_is_bounded():
    # kubectl's prefix and Loki's labels in turn, as long as a hostile line is: read as text, no recursion that deep
    line = "[pod/a/b] 2018-06-25T12:52:09Z {} " * 3000 + "x"
    env = detect(line)
    assert env.name == "kubectl" and env.extra["pod"] == "a" and env.message.endswith("x")
    assert detect("[pod/a/b] [pod/c/d] x").message == "[pod/c/d] x"


def _triage(incident: str, pod: str) -> list:
    """The incident's logs, every file's lines in turn, as `kubectl logs --prefix` of one pod `pod` prints them."""
    logs = INCIDENTS / incident / "logs"
    lines = [line for path in sorted(logs.iterdir()) for line in path.read_text().splitlines()]
    clock = Clock()
    evidence = list(read_lines(kubectl_prefixed(pod, "pytorch", lines), "job.log", clock))
    return attribute(clock.align(evidence))


def test_generated_suffix_after_a_hostname():
    # an Indexed Job's pod `<job>-<index>-<5>`, hostname `<job>-<index>` (KEP-2214); a JobSet's (kubernetes-sigs/jobset
    # PR #550's `kubectl get pods`: "network-jobset-workers-0-0-g5n2t", hostname "network-jobset-workers-0-0")
    assert hostname_of_pod("network-jobset-workers-0-0-g5n2t", "network-jobset-workers-0-0")
    assert hostname_of_pod("failure-policy-workers-0-1-98htc", "failure-policy-workers-0-1")
    # a pod whose hostname is its name, another index's, a suffix no generateName makes (vowels, 0 1 3: not its
    # alphabet; not 5 characters), no dash before it, a ReplicaSet's hash and suffix after a name
    for pod, host in (("kp-ddp-worker-0", "kp-ddp-worker-0"), ("job-10-g5n2t", "job-1"), ("job-1-abcde", "job-1"),
                      ("job-1-g5n2", "job-1"), ("job-1-g5n2tt", "job-1"), ("job-1g5n2t", "job-1"),
                      ("vllm-7cfd7bf68f-nk5kr", "vllm"), ("job-1-g5n2t", ""), ("job-1-g5n2t", "10.0.0.1")):
        assert not hostname_of_pod(pod, host), (pod, host)


def test_a_pod_and_its_hostname_are_one_reporter():
    # CONSTRUCTED: deepspeedai/DeepSpeed #6875's log (tests/fixtures/incidents/deepspeed-6875-ib-retry, its lines
    # verbatim: NCCL's "50428e4af543:34610:36821 [4] .. NET/IB: Got completion from peer 10.0.1.23" and rank 4's own
    # "[rank4]:[E1229 ..] .. NET/IB: Got completion .." of the same process) behind kubectl's prefix of an Indexed
    # Job's pod named by that hostname and a generated suffix (the suffix invented; a real pod and hostname so related:
    # test_real_trainjob_pods_are_the_hostname_nccl_prints_and_a_suffix).  Before: the pod's name and the
    # hostname NCCL prints were two hosts, "from 2 reporter(s)", the root the pod's; now one, the hostname.
    host, pod = "50428e4af543", "50428e4af543-g5n2t"
    incidents = _triage("deepspeed-6875-ib-retry", pod)
    assert incidents and incidents[0].category == "fabric"
    first = incidents[0]
    assert "from 1 reporter(s)" in first.reason and first.root.host == host
    assert {e.host for i in incidents for e in i.evidence} == {host}
    assert pod not in first.reason


def test_a_hostname_only_nccl_info_lines_print_names_the_pod():
    # CONSTRUCTED: modelscope/FunASR #2006's log (tests/fixtures/incidents/funasr-2006-oom, verbatim): rank 2's
    # out-of-memory error under torch's "[rank2]:" alone, the node's hostname only in NCCL's INFO lines (no finding)
    # after it; an Indexed Job's pod `<hostname>-<5>`.  Before: the verdict named the pod; now the hostname NCCL knows.
    host = "liangxianchen-funasr-15wh-train-lxc0-w-0"
    incidents = _triage("funasr-2006-oom", host + "-x7k2p")
    assert incidents[0].category == "application" and incidents[0].root.rank == 2
    assert incidents[0].root.host == host and f"on {host} " in incidents[0].reason
    # sgl-project/sglang #10216 (tests/fixtures/incidents/sglang-10216-two-node-pg-status): `distributed-sglang-0`, an
    # Indexed Job's hostname's shape; its watchdog lines under "[rank1]:", NCCL's under the hostname: one host
    incidents = _triage("sglang-10216-two-node-pg-status", "distributed-sglang-0-9wq4z")
    assert {e.host for i in incidents for e in i.evidence} == {"distributed-sglang-0"}
    assert "rank 1 on distributed-sglang-0 " in incidents[0].reason


def test_a_pod_named_as_its_hostname_or_not_after_it_keeps_its_name():
    # the pod's hostname its name (PyTorchJob's `<job>-worker-<n>`: nccl-1405-ib's kp-ddp-worker-0), or a pod whose name
    # is no hostname and suffix (a Deployment's): the pod is the host as before, no pod_hostname
    for pod, host in (("kp-ddp-worker-0", "kp-ddp-worker-0"), ("trainer-7cfd7bf68f-nk5kr", "trainer-7cfd7bf68f-nk5kr")):
        lines = (INCIDENTS / "nccl-1405-ib" / "logs" / "kp-ddp-worker-0.log").read_text().splitlines()
        lines = [line.replace("kp-ddp-worker-0:", host + ":") for line in lines]
        evidence = list(read_lines(kubectl_prefixed(pod, "pytorch", lines), "job.log", Clock()))
        assert not any(e.kind == "pod_hostname" for e in evidence)
        assert {e.host for e in evidence if e.host} == {host}
    # a pod of another hostname (Ray's worker prefix names a node by its address): no pod_hostname
    evidence = list(read_lines(["[pod/head-0-x7k2p/ray-head] (RayWorkerWrapper pid=4009, ip=10.0.0.1) RuntimeError: x"],
                               "job.log", Clock()))
    assert not any(e.kind == "pod_hostname" for e in evidence)


KUBECTL = Path(__file__).resolve().parents[1] / "fixtures" / "kubectl"  # REAL kubectl output: its SOURCE.md


def test_real_prefix_output_of_a_deployments_replicas():
    # REAL: `kubectl logs -l app=vllm-simulator --prefix` (redhat-et/kuadrant-llm-integration, tests/fixtures/kubectl/
    # deployment-prefix.log): each pod its own host and writer; the klog line behind the prefix read as its own, its
    # time klog's; a ReplicaSet's pod names no hostname of another (no pod_hostname)
    lines = (KUBECTL / "deployment-prefix.log").read_text().splitlines()
    pods = {dict(strip_lead(line)[0])["pod"] for line in lines}
    assert pods == {"vllm-simulator-646cb8db6c-tgwm6", "vllm-simulator-646cb8db6c-t9jvj",
                    "vllm-simulator-646cb8db6c-5bfg9"}
    for line in lines:
        fields, lead, rest = strip_lead(line)
        assert dict(fields)["host"] == dict(fields)["pod"] and rest.startswith("I0713 04:02:5")
        env = detect(line)
        assert (env.name, env.message) == ("klog", '"completion request received"')
        assert env.extra["container"] == "vllm-simulator" and env.extra["pod"] == dict(fields)["pod"]
        assert (env.timestamp.month, env.timestamp.day, env.timestamp.hour) == (7, 13, 4)
    evidence = list(read_lines(lines, "job.log", Clock()))
    assert not any(e.kind == "pod_hostname" for e in evidence)


def test_real_trainjob_pods_are_the_hostname_nccl_prints_and_a_suffix():
    # REAL: a TrainJob's `kubectl get pods` and its rank-0 pod's `kubectl logs` (gnosia93/training-on-eks
    # c11-deepspeed.md, tests/fixtures/kubectl/trainjob-*): the pod `llama-3-8b-node-0-0-k9rb7`, NCCL's hostname
    # `llama-3-8b-node-0-0`; each pod of the listing is its index's hostname and a generated suffix
    listing = (KUBECTL / "trainjob-get-pods.txt").read_text().splitlines()[1:]
    pods = [row.split()[0] for row in listing]
    assert [hostname_of_pod(pod, f"llama-3-8b-node-0-{i}") for i, pod in enumerate(pods)] == [True] * 4
    assert not hostname_of_pod(pods[1], "llama-3-8b-node-0-0")  # another index's
    nccl = (KUBECTL / "trainjob-rank0-pod.log").read_text().splitlines()
    assert {line.partition(":")[0] for line in nccl} == {"llama-3-8b-node-0-0"}
    # the prefix is kubectl's (kubectl_prefixed), added here: the author ran `kubectl logs <pod>` without --prefix
    evidence = list(read_lines(kubectl_prefixed(pods[0], "node", nccl), "job.log", Clock()))
    assert [(e.kind, e.host) for e in evidence] == [("pod_hostname", "llama-3-8b-node-0-0")]


def test_a_log_read_in_parts_tells_each_pods_hostname_once_in_the_part_that_named_it():
    # the real TrainJob lines above (tests/fixtures/kubectl/trainjob-*), read in parts as the agent reads a pod log
    # (`read_on`); CONSTRUCTED: node-0-1's pod's lines, rank 0's with its index's hostname and that pod's prefix. Each
    # pod's hostname is told once, in the part whose line first named it (a part tells its new pods only; was: each
    # part copied every pod found so far to find those not yet told)
    from triage.read import FileReader  # noqa: PLC0415

    pods = [row.split()[0] for row in (KUBECTL / "trainjob-get-pods.txt").read_text().splitlines()[1:]]
    nccl = (KUBECTL / "trainjob-rank0-pod.log").read_text().splitlines()
    other = [line.replace("llama-3-8b-node-0-0:", "llama-3-8b-node-0-1:") for line in nccl]
    reader = FileReader("job.log", Clock())
    told = lambda part: [(e.host, e.details["pod_name"], e.line)  # noqa: E731
                         for e in reader.read_on(part) if e.kind == "pod_hostname"]
    assert told(kubectl_prefixed(pods[0], "node", nccl[:3])) == [("llama-3-8b-node-0-0", pods[0], 1)]
    assert told([*kubectl_prefixed(pods[0], "node", nccl[3:]), *kubectl_prefixed(pods[1], "node", other)]) == [
        ("llama-3-8b-node-0-1", pods[1], 7)]
    assert told(kubectl_prefixed(pods[1], "node", other)) == []


def test_real_trainjob_efa_failure_behind_its_pods_prefix_is_one_host():
    # REAL lines: the same author's TrainJob failing on EFA (aws-ofi-nccl's NET/OFI handshake error, then rank 0's
    # DistBackendError: tests/fixtures/kubectl/trainjob-efa-handshake.log, verbatim); CONSTRUCTED: kubectl's prefix
    # before them, of that TrainJob's rank-0 pod as another run of the author's listing names it (the page names no pod
    # for this log).  NCCL's lines name the hostname, torch's "[rank0]:" lines the pod: one host, the hostname.
    lines = (KUBECTL / "trainjob-efa-handshake.log").read_text().splitlines()
    clock = Clock()
    evidence = list(read_lines(kubectl_prefixed("llama-3-8b-node-0-0-k9rb7", "node", lines), "job.log", clock))
    incidents = attribute(clock.align(evidence))
    assert (incidents[0].category, incidents[0].root.host) == ("fabric", "llama-3-8b-node-0-0")
    assert {e.host for i in incidents for e in i.evidence} == {"llama-3-8b-node-0-0"}
    assert "k9rb7" not in incidents[0].reason


def test_an_efa_failure_is_worded_as_efa_not_infiniband():
    # the real EFA log above: aws-ofi-nccl's NET/OFI lines were called "the first of 2 NET/IB errors" and "the
    # InfiniBand / RoCE fabric failed"; NCCL's plugin tag names the network
    lines = (KUBECTL / "trainjob-efa-handshake.log").read_text().splitlines()
    clock = Clock()
    incidents = attribute(clock.align(list(read_lines(lines, "job.log", clock))))
    reason = incidents[0].reason
    assert "the first of 2 NET/OFI errors" in reason and "the EFA / libfabric network failed" in reason, reason
    assert "NET/IB" not in reason and "InfiniBand" not in reason


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "kubectl"


def test_log_tailers_prefixes_name_the_pod():
    # REAL: stern's plain "<pod> <container> " (CloudThrill/vllm-production-stack-terraform) and kubetail's "[<pod>] "
    # (aws-samples/aws-distributed-training-workshop-eks, a PyTorch ElasticJob's two workers), tests/fixtures/kubectl.
    # Before: no host (the tailer's prefix hid every prefix after it); now the pod, as kubectl's prefix names it
    for name, pods in (("stern-vllm.log", {"vllm-gpu-tinyllama-gpu-deployment-vllm-6949f54975-qtwps",
                                           "vllm-gpu-tinyllama-gpu-deployment-vllm-6949f54975-52hsz"}),
                       ("kubetail-elasticjob.log", {"cifar10-train-worker-0", "cifar10-train-worker-1"})):
        lines = (FIXTURES / name).read_text().splitlines()
        named = {dict(strip_lead(line)[0]).get("host") for line in lines}
        assert named - {None} == pods, name
        # stern's "+ <pod> › <container>" and kubetail's "Will tail 2 logs..." and pod list name no writer
        assert all(dict(strip_lead(line)[0]).get("host") is None
                   for line in lines if line.startswith(("+ ", "Will ")) or " " not in line)
        # healthy lines behind the prefix stay silent
        clock = Clock()
        assert not attribute(clock.align(list(read_lines(lines, name, clock))))
    # SYNTHETIC lines of the tailers' shapes: the prefixes behind them read (--timestamps' stamp the line's time; the
    # namespace before the pod with stern -A; stern's and kubetail's colour codes, tput sgr0's "\x1b(B\x1b[m")
    fields, lead, rest = strip_lead("train-worker-1 pytorch 2024-07-25T07:00:00.123456789Z [rank11]: x")
    assert dict(fields) == {"host": "train-worker-1", "pod": "train-worker-1", "rank": 11}
    assert lead == "2024-07-25T07:00:00.123456789Z " and rest == "x"
    assert dict(strip_lead("default train-worker-1 pytorch [rank3]: x")[0])["pod"] == "train-worker-1"
    assert dict(strip_lead("\x1b[32mdefault\x1b[0m \x1b[32mtrain-w\x1b[0m \x1b[32mpytorch\x1b[0m "
                           "train-w:91:123 [2] NCCL WARN x")[0]) == {"host": "train-w", "pod": "train-w", "pid": 91,
                                                                      "gpu": 2}
    assert dict(strip_lead("\x1b[31m[\x1b(B\x1b[m3:\x1b[31mjob-worker-1]\x1b(B\x1b[m [rank2]: x")[0]) == \
        {"host": "job-worker-1", "pod": "job-worker-1", "rank": 2}
    assert dict(strip_lead("[lodestar-validator-0 lodestar] warn: x")[0])["pod"] == "lodestar-validator-0"
    # prefix-like lines that are no tailer's: no pod
    for line in ("[rank0]: x", "[2024-01-01 10:00:00] x", "train-worker-0:91:123 [2] NCCL WARN x", "node-3 went down",
                 "[INFO] x", "[pre-commit] x", "[gpu-0] x", "[default0]:x", "loss-scale-128 reduced to 64",
                 "gpu-node-12 kernel: NVRM: Xid 79", "the model is fine", "step-22222 loss 0.3 done"):
        assert "pod" not in dict(strip_lead(line)[0]), line


def test_a_node_agents_pod_printing_its_nodes_syslog_is_not_the_node():
    """A DaemonSet's pod (a node agent: gpu-npd's, node-problem-detector's) printing its node's kernel log through
    syslog: the syslog line names its host, which is the line's; the pod, whose name is no node's, is said in details.
    COMPOSED: open-gpu-kernel-modules #829's line (tests/fixtures/realworld/gpu-kernel-3.yaml, verbatim) behind
    kubectl's prefix of a pod (its name invented). Before: "Xid 120 on gpu-npd-x7k2q is a hardware fault of that
    node", the pod named as the node. A line naming no host (a dmesg line) keeps the pod as its host, as before."""
    xid = ("Apr 19 13:16:41 Kyrios kernel: NVRM: Xid (PCI:0000:02:00): 120, GSP task exception: load access page fault "
           "(cause:0xd) @ pc:0x140ca4a, partition:4#0, task:3")
    clock = Clock()
    evidence = list(read_lines(kubectl_prefixed("gpu-npd-x7k2q", "agent", [xid]), "agents.log", clock))
    assert [(e.kind, e.host, e.details.get("pod")) for e in evidence] == [("xid", "Kyrios", "gpu-npd-x7k2q")]
    incidents = attribute(clock.align(evidence))
    assert incidents[0].root.host == "Kyrios" and "gpu-npd-x7k2q" not in incidents[0].reason
    dmesg = "[74889.644138] NVRM: Xid (PCI:0000:02:00): 79, GPU has fallen off the bus."  # (pcie-aer.yaml, verbatim)
    evidence = list(read_lines(kubectl_prefixed("train-worker-1", "pytorch", [dmesg]), "job.log", Clock()))
    assert [(e.kind, e.host) for e in evidence] == [("xid", "train-worker-1")]


def stern_json(pod: str, node: str, lines: list[str]) -> list[str]:
    """The lines as `stern -o json` prints them: its Log record marshalled a line, the message first (stern/stern
    tail_utils.go `Log`; the keys and their order as stern's own expected output, envelopes-stern-2026.yaml)."""
    return [json.dumps({"message": line, "nodeName": node, "namespace": "ns1", "podName": pod,
                        "containerName": "pytorch"}, separators=(",", ":")) for line in lines]


def test_stern_json_records_name_the_pod_and_its_node():
    """`stern -o json .. | gpu-npd triage`: the record's pod is the line's host (as stern's plain prefix names it), its
    node said in details ("node"), its message read on as the line (the prefixes in it, its failure).  Before: the
    whole JSON object the line's text, no writer, no failure read out of its escapes."""
    # REAL: stern's own expected output of `-o json` and `-o extjson` (stern/stern cmd/cmd_test.go @8a00e61,
    # tests/fixtures/realworld/envelopes-stern-2026.yaml), verbatim
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "realworld" / "envelopes-stern-2026.yaml"
    json_line, extjson_line = [line.strip() for line in fixture.read_text().splitlines() if line.startswith("    {")]
    fields, lead, rest = strip_lead(json_line)
    assert (dict(fields), lead, rest) == ({"host": "pod1", "pod": "pod1", "node": "node1"}, "", "json message")
    assert strip_lead(extjson_line) == ((), "", extjson_line)  # its message an object: no line of text, as parse reads it
    # CONSTRUCTED: a rank's failure (torch's "[rank11]:" prefix inside the message, read as without stern) and a
    # kernel line (pcie-aer.yaml's, verbatim) in stern's records; --timestamps' `timestamp` key the line's time
    record = json.loads(stern_json("train-worker-1", "gpu-node-7", ["[rank11]: torch.cuda.OutOfMemoryError: x"])[0])
    fields, lead, rest = strip_lead(json.dumps({**record, "timestamp": "2024-07-25T07:00:00.123456789Z"}))
    assert dict(fields) == {"host": "train-worker-1", "pod": "train-worker-1", "node": "gpu-node-7", "rank": 11}
    assert (lead, rest) == ("2024-07-25T07:00:00.123456789Z ", "torch.cuda.OutOfMemoryError: x")
    dmesg = "[74889.644138] NVRM: Xid (PCI:0000:02:00): 79, GPU has fallen off the bus."
    evidence = list(read_lines(stern_json("train-worker-1", "gpu-node-7", [dmesg]), "stern.log", Clock()))
    assert [(e.kind, e.host, e.details.get("node")) for e in evidence] == [("xid", "train-worker-1", "gpu-node-7")]
    # a JSON line that is no stern record (an application's own, no pod): no writer
    assert strip_lead('{"message": "loss 0.3", "level": "info"}')[0] == ()
