"""How often the LIVE path (node agents' Kubernetes objects -> `gpu-npd cluster`) names the same root cause as the
expected one, beside the OFFLINE `gpu-npd triage` over the same logs, on the real incidents (tests/fixtures/incidents).

Each incident's lines are split the way a cluster would have seen them:
- a line whose envelope is the kernel's (dmesg, kmsg, a syslog line of the kernel), or a plain line the parsers
  classify as a node fault kind (not a workload kind, parsers/kinds.py: an Xid, an SXid, the OOM killer...) worded
  as the kernel words it (KERNEL_WORDS: "NVRM:", "kernel:"...), goes to its node's kernel log; every other line is
  its pod's container output (Ray's "Task was killed due to the node running low on memory" is the job's);
- a terminal's copy of a log, wrapped at its width, is replayed with its lines whole, as kubelet writes them (`unwrap`);
- a line's node is the host its launcher prefix or its file's path names (triage.ranks), else the node a pod's
  description's scheduler row names ("Successfully assigned <ns>/<pod> to <node>", triage/read.py), else "node-0";
  each (file, node) is one pod of one job (labelled `job-name`), its lines written in kubelet's CRI format;
- a row of a description's Events table (`kubectl describe`) of a reason triage's gang judges (triage/facts.py
  POD_WARNINGS: FailedMount, the node controller's NodeNotReady) is also the Warning Event its component wrote on
  that pod, which the cluster component watches (cluster/evidence.py POD_EVENT_SELECTORS).

Then, per node, the agent's own code, in process: `agent.app.build` (mode off, no NVML), its Pipeline fed the
kernel lines as records and the pod lines as PodLogSource reads them (a real /var/log/pods tree in a temporary
directory; polled to their end, then as files quiet since: a block their last lines cut short read as it stands), a
KubernetesSink (no API: only its `apply`, which records the Events as the agent does) added to the
pipeline's sinks; the Events' bodies are the recorder's (`EventRecorder._body`) and the node's conditions the
ConditionWriter's (`condition_patch`).  Those objects, with the pods, go to the cluster component's `Book`
(cluster/book.py: cluster/evidence.py's Reader, then triage.attribute), and its first incident is compared with
expected.json exactly as bench/triage_score.py compares the offline one (category, and rank and host where the
incident establishes them).

    PYTHONPATH=. .venv/bin/python bench/live_vs_offline.py [NAME ...]   # the table, the two scores, the reasons

A pod whose kubectl text states its pod-level end (a describe's "Reason:" / "Message:", -o yaml's reason, `kubectl
get pods`' STATUS, the kubelet's Event of an admission it refused), in lines naming no other pod, has that
status.reason and message (`pod_status`), as the cluster component reads the pod live.

What is not there live, by construction: the pods' container statuses (exit codes, OOMKilled: no incident says
them), the lines' own times but the one each Event quotes (its eventTime: kubelet's stamp of the line here; the other
ranks an Event lists are at the time the agent recorded it), anything the agent does not publish
(triage's job facts other than those triage/facts.py LIVE_FACTS names: consequences such as a heartbeat monitor's
hang or a barrier's healthy ranks, read only offline; docs/triage.md, "Live and offline"), and a launcher summary's
rows without the opener the agent reads the summary by (an excerpt cut before it).  A miss's causes: "Kubernetes Event
not watched live" (offline's root read from an Event's row, triage/facts.py EVENT_ROW: another component's, of a
reason the cluster component does not watch: it watches other components' of the reasons cluster/evidence.py
selects alone, POD_SELECTORS and NODE_EVENTS), "job fact not
published" (no LIVE_FACTS row of offline's root's kind), "job fact names no culprit" (its line is its row's, but
names no one the row publishes it for, and the row has no witness), "consequence not published" (offline's
undetermined root an exception that says the failure is elsewhere, not published: the agent says one only as its
writer's witness, once a job and node where nothing else of the failure was said), "summary opener not in
the lines", "job fact not
read live" (a row of its kind exists, its line was not published), "root not in live evidence" (a parsers' kind),
"excerpt cut" (a parsers' finding's Event; a job fact's is read back from its words), "no node log", "rank",
"host", "other verdict", "no incident".
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
# run as a script, bench/ comes first on sys.path and its agent.py would shadow the agent package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
INCIDENTS = ROOT / "tests" / "fixtures" / "incidents"
NAMESPACE = "train"
JOB = "job"
DEFAULT_NODE = "node-0"
WRAP_MIN = 60  # the narrowest terminal copy unwrapped (`unwrap`)
PADDING = "  "  # the blanks a terminal pads a line's last piece with, at the least
KERNEL_ENVELOPES = ("kmsg", "dmesg")  # envelope rows (parsers/envelope.py) whose lines are the kernel's
# a "[seconds.micros]" stamp this large is no boot's uptime (31 years) but the Unix time a program stamps its own lines
# with (UCX's "[1745499308.854013] [host:pid:tid] ..", ai-dynamo/dynamo #814): a pod's line, whatever envelope it reads as
EPOCH_STAMP = 1e9
# how the kernel (and its drivers) open a line: a plain line of a node fault kind worded so is the kernel's, one
# worded otherwise is a program's report of it (Ray's memory monitor's OOM kill is the job's output)
GET_PODS_ROW = re.compile(r"^(?:\S+\s+)?\S+\s+\d+/\d+\s")  # `kubectl get pods`' row: [NAMESPACE] NAME READY ..
KERNEL_WORDS = ("kernel:", "NVRM:", "nvidia-nvswitch", "NVSwitch", "mlx5_core", "pcieport", "Out of memory:",
                "BUG:", "watchdog:", "rcu:", "INFO: task", "EXT4-fs", "XFS", "nfs:", "nvme")


def _triage_score():
    import importlib.util

    spec = importlib.util.spec_from_file_location("triage_score", HERE / "triage_score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- the split: kernel log per node, container output per pod ------------------------------------------------

@dataclass
class Split:
    kernel: dict[str, list[str]] = field(default_factory=dict)  # node -> kernel lines
    pods: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (file, node) -> container lines


def _node_of(line: str, path: str, root: str, described: str | None = None) -> str:
    from triage.ranks import from_path, placeholder, strip

    host = strip(line)[0].host or from_path(path, root).host or described
    return host if host and not placeholder(host) else DEFAULT_NODE


def _described(lines: list[str]) -> str | None:
    """The node a pod's description's scheduler row names (as offline triage reads it: triage/read.py), None without
    one."""
    from triage.read import describe_scheduled

    return next((m.group(3) for m in map(describe_scheduled, lines) if m), None)


def kubelet_events(lines: list[str], pod: str, node: str, now: float) -> list[dict]:
    """The Events a description's Events rows show that the cluster component watches on a pod (cluster/evidence.py
    watched_pod_event: a Warning of a pod end only an Event says or context of one, a Normal one saying whose a pod
    end is), as the component in the row's From column wrote them on the pod (source.host its node), stamped
    a minute ago."""
    from cluster.evidence import watched_pod_event
    from triage.facts import DESCRIBE_EVENT

    stamp = datetime.fromtimestamp(now - 60, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    out = []
    for m in filter(None, map(DESCRIBE_EVENT.match, lines)):
        if not watched_pod_event({"type": m.group("type"), "reason": m.group("reason")}):
            continue
        uid = f"kev-{pod}-{len(out)}"
        out.append({"type": m.group("type"), "reason": m.group("reason"), "message": m.group("message"),
                    "count": int(m.group("count") or 1), "firstTimestamp": stamp, "lastTimestamp": stamp,
                    "involvedObject": {"kind": "Pod", "name": pod, "namespace": NAMESPACE, "uid": f"uid-{pod}"},
                    "source": {"component": m.group("source"), "host": node},
                    "metadata": {"name": f"{pod}.{uid}", "namespace": NAMESPACE, "uid": uid, "resourceVersion": "1"}})
    return out


def pod_status(lines: list[str]) -> dict | None:
    """The pod-level status a pod's kubectl text states (triage.facts' k8s_ended row: describe's "Reason:" and
    "Message:", -o yaml / json's reason, `kubectl get pods`' STATUS, the kubelet's Event of the same end, which its
    rejectPod writes with the status), as the pod object the cluster component reads would hold it
    (triage.inventory's pod end): phase Failed, status.reason the end's reason, status.message the text of the line
    that said it (describe's "Message:" value where there is one); None where no line ends the pod, only an Event
    does (POD_ENDS' event_only: replayed as that Event, `kubelet_events`), or only lines naming a pod (a table's
    rows, an Event's object: pods of their own, read as before)."""
    from triage import Clock, read_lines
    from triage.facts import POD_ENDS

    status = None
    for e in read_lines(lines, "pod.txt", Clock()):
        key = e.details.get("pod_end") if e.kind == "job_ended" else None
        if key is None or key not in POD_ENDS or POD_ENDS[key].event_only or ":" in key or \
                GET_PODS_ROW.match(e.text) or (e.details.get("pod") or "\0").rpartition("/")[2] in e.text:
            continue  # (a line naming a pod, a `kubectl get pods` row or an Event's object, is another pod's)
        said = e.text.strip()
        status = status or {"phase": "Failed", "reason": e.details.get("pod_reason") or key}
        if said.startswith("Message:") or "message" not in status:
            status["message"] = said.removeprefix("Message:").strip()
    return status


def unwrap(lines: list[str]) -> list[str]:
    """A terminal's copy of a log, wrapped at its width (every line as long as the first, WRAP_MIN or more, the last
    piece of each line padded with blanks to it: vlm-r1-257-heartbeat), as the program wrote it: each line whole, as
    kubelet writes it to the pod's log.  A piece ends its line when it ends in PADDING blanks or is the file's last;
    the pieces are joined as they are (the terminal cut them anywhere, mid-word).  Any other file is as it is."""
    width = len(lines[0]) if lines else 0
    if width < WRAP_MIN or len(lines) < 2 or any(len(line) != width for line in lines):
        return lines
    out, piece = [], ""
    for line in lines:
        piece += line
        if line.endswith(PADDING):
            out.append(piece.rstrip())
            piece = ""
    return out + ([piece.rstrip()] if piece else [])


def split(incident: Path) -> Split:
    from parsers import Scanner
    from parsers.envelope import detect
    from parsers.kinds import TABLE
    from triage.ranks import strip

    workload = {k.name for k in TABLE if k.workload}
    logs = incident / "logs"
    out = Split()
    for path in sorted(p for p in logs.rglob("*") if p.is_file()):
        lines = unwrap(path.read_bytes().decode("utf-8", "replace").splitlines())
        data = "".join(line + "\n" for line in lines).encode()
        # the parsers' own reading of the file (as `gpu-npd parse` reads it): the lines of node fault kinds
        node_lines = {f.line for f in Scanner().scan(io.BytesIO(data)) if f.kind not in workload and f.line}
        described = _described(lines)
        for n, line in enumerate(lines, 1):
            env = detect(line)
            kernel = env.name.startswith(KERNEL_ENVELOPES) and not (env.uptime or 0) >= EPOCH_STAMP or (
                env.extra.get("program") == "kernel" if env.name != "plain" else
                n in node_lines and strip(env.message)[1].lstrip().startswith(KERNEL_WORDS))
            node = _node_of(line, str(path), str(logs), described)
            if kernel:
                out.kernel.setdefault(node, []).append(line)
            else:
                out.pods.setdefault((str(path.relative_to(logs)), node), []).append(line)
    return out


# ---- the agents: what each node publishes -------------------------------------------------------------------

@dataclass
class Published:
    events: list[dict] = field(default_factory=list)  # Event bodies as the API returns them
    nodes: list[dict] = field(default_factory=list)  # Node objects (our conditions)
    pods: list[dict] = field(default_factory=list)  # Pod objects
    findings: list = field(default_factory=list)  # (PodRef, Finding) the pod logs gave
    kernel_findings: int = 0


def _pod_name(i: int) -> str:
    return f"{JOB}-w-{i}"


def _cri(lines: list[str], t0: float) -> str:
    """Container lines as kubelet writes them (one millisecond apart, in order)."""
    out = []
    for i, line in enumerate(lines):
        stamp = datetime.fromtimestamp(t0 + i / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        out.append(f"{stamp} stderr F {line}\n")
    return "".join(out)


def publish(sp: Split, now: float | None = None) -> Published:
    """Each node's agent over its kernel lines and its pods' logs: the Events and conditions it writes."""
    from agent import app
    from agent.config import load
    from agent.kube.settings import KubeSettings
    from agent.kube.sink import KubernetesSink
    from agent.kube.sink import condition_patch
    from agent.sources.podlogs import PodLogSource
    from parsers.model import Boot, Record, WorkloadFindings

    now = time.time() if now is None else now
    pub = Published()
    nodes = sorted(set(sp.kernel) | {node for _, node in sp.pods})
    for node in nodes:  # the job has a pod on every node (one that printed nothing where only the kernel spoke)
        if not any(n == node for _, n in sp.pods):
            sp.pods[("(no output)", node)] = []
    pod_index = {key: i for i, key in enumerate(sorted(sp.pods))}
    for node in nodes:
        with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as devnull:
            state, pods_root = os.path.join(tmp, "state"), os.path.join(tmp, "pods")
            os.makedirs(pods_root)
            cfg = load(None, env={"GPU_NPD_STATE_DIR": state, "GPU_NPD_MODE": "off", "GPU_NPD_NVML": "off",
                                  "NODE_NAME": node})
            # a boot of unknown start: the incident's kernel lines are this boot's, whenever they were written
            agent = app.build(cfg, out=devnull, boot=Boot("live-vs-offline", None))
            sink = KubernetesSink(None, node, KubeSettings(), "monitor")
            agent.pipeline.sinks.append(sink)
            kernel = sp.kernel.get(node, [])
            for i in range(0, len(kernel), 1024):
                snap = agent.pipeline.process([Record("kmsg", line) for line in kernel[i:i + 1024]])
                pub.kernel_findings += len(snap.new_problems) if snap is not None else 0
            for (name, n), lines in sorted(sp.pods.items()):
                if n != node:
                    continue
                pod = _pod_name(pod_index[(name, n)])
                cdir = os.path.join(pods_root, f"{NAMESPACE}_{pod}_uid-{pod}", "main")
                os.makedirs(cdir)
                with open(os.path.join(cdir, "0.log"), "w", encoding="utf-8") as fh:
                    fh.write(_cri(lines, now - 60))
                pub.pods.append({"metadata": {"name": pod, "namespace": NAMESPACE, "uid": f"uid-{pod}",
                                              "labels": {"job-name": JOB},
                                              "creationTimestamp": "1970-01-02T00:00:00Z"},
                                 "spec": {"nodeName": node}})
                if (status := pod_status(lines)) is not None:
                    pub.pods[-1]["status"] = status
                pub.events += kubelet_events(lines, pod, node, now)
            source = PodLogSource(pods_root, from_start=True)
            source.discover()
            # read as written, then with the files quiet since (a block their last lines cut short read as it stands:
            # podlogs.BLOCK_WAIT)
            for quiet in (None, math.inf):
                while items := source.poll(quiet):
                    pub.findings += items
                    agent.pipeline.process(WorkloadFindings(items))
            for agg in sink.events._aggs.values():
                body = sink.events._body(agg)
                ns = agg.ref.namespace or sink.events.namespace
                uid = f"ev-{len(pub.events)}"
                body["metadata"] = {**body.get("metadata", {}), "name": f"{agg.ref.name}.{uid}", "namespace": ns,
                                    "uid": uid, "resourceVersion": "1"}
                pub.events.append(body)
            conditions = condition_patch(list(sink._snapshot.conditions), now)["status"]["conditions"]
            pub.nodes.append({"metadata": {"name": node}, "status": {"conditions": conditions}})
    return pub


# ---- the cluster component ----------------------------------------------------------------------------------

def cluster_verdict(pub: Published, now: float | None = None):
    """The cluster component's Book over what the agents published: (its first incident or None, the evidence)."""
    from cluster.book import Book

    now = time.time() if now is None else now
    book = Book()
    for p in pub.pods:
        book.pod(p, now)
    for n in pub.nodes:
        book.node(n, now)
    for ev in pub.events:
        book.event(ev, now)
    # and again after its hold (a job whose only failure a healthy end also prints waits that long for its pods' end:
    # these pods have no end, they still run)
    changes = book.settle(now + 1) or book.settle(now + 1 + book.hold)
    state = next(iter(book.jobs.values()), None)
    evidence = book.evidence(state) if state is not None else []
    return (changes[0].incident if changes else None), evidence


# ---- one incident ---------------------------------------------------------------------------------------------

@dataclass
class Row:
    name: str
    expected: dict
    offline: str
    offline_ok: bool
    live: str
    live_ok: bool
    why: list = field(default_factory=list)  # (cause, detail) pairs
    # whether each says its failure came after the job stated its success (the incident's after_success): (offline, live)
    after_success: tuple[bool, bool] = (False, False)


def _doc(incident) -> dict:
    return {"incidents": [incident.to_dict(0)]} if incident is not None else {"incidents": []}


def why_not(want: dict, offline_doc: dict, pub: Published, sp: Split, live, evidence) -> list[tuple[str, str]]:
    """The likely reasons the live verdict differs from the expected one: (cause, detail) pairs, the causes few."""
    from cluster.evidence import EXCERPT, Reader
    from triage import JOB_KINDS
    from triage.facts import LIVE_REASONS

    reasons = []
    off = (offline_doc.get("incidents") or [{}])[0]
    off_root = (off.get("root") or {}).get("kind")
    live_kinds = {e.kind for e in evidence}
    if off_root in JOB_KINDS and off_root not in live_kinds:
        reasons.append(_unpublished(off, sp))
    elif off_root and off_root not in live_kinds:
        reasons.append(("root not in live evidence", f"offline's root {off_root} ({off.get('rule')}) is not among "
                        f"the live evidence {sorted(live_kinds)}"))
    # a line the Event quotes that reads back as something else (or nothing): the excerpt cut it (a job fact's Event
    # is read back from its own words, triage/facts.py LIVE_FACTS, never from the line it quotes)
    reader = Reader()
    by_pod: dict[str, set] = {}
    for ref, f in pub.findings:
        by_pod.setdefault(ref.pod, set()).add(f.kind)
    for ev in pub.events:
        m = EXCERPT.search(ev.get("message") or "")
        if not m or not m.group(1).endswith("\u2026") or ev.get("reason") in LIVE_REASONS:
            continue
        again = reader._classify(m.group(1))
        if again is None or again.kind not in by_pod.get((ev.get("involvedObject") or {}).get("name"), set()):
            reasons.append(("excerpt cut", f"the {ev['reason']} Event's line, cut to 160 characters, reads back as "
                            f"{again.kind if again else 'nothing'}"))
    if not sp.kernel and want["category"] in ("hardware", "infrastructure") and not (
            live and live.category == want["category"]):
        reasons.append(("no node log", "the node's fault is only in the job's words"))
    if live is not None and want.get("rank") is not None and live.root.rank != want["rank"]:
        ranks = sorted({e.rank for e in evidence if e.rank is not None})
        reasons.append(("rank", f"live root rank {live.root.rank}; the Events' ranks {ranks[:8]}" if ranks
                        else "no Event names a rank"))
    if live is not None and want.get("host") is not None and live.root.host != want["host"]:
        reasons.append(("host", f"live root on {live.root.host}"))
    if live is not None and live.category != want["category"] and not reasons:
        reasons.append(("other verdict", f"live {live.category} by {live.rule} on {sorted(live_kinds)}"))
    if live is None and not reasons:
        reasons.append(("no incident", f"the live evidence {sorted(live_kinds)} makes none"))
    return list(dict.fromkeys(reasons)) or [("other verdict", "")]


def _unpublished(off: dict, sp: Split) -> tuple[str, str]:
    """Why offline's root, a job kind of triage, is not among the live evidence: triage read it from a Kubernetes
    Event's row (triage/facts.py EVENT_ROW: `kubectl describe`'s Events table, `kubectl get events`), an Event of
    another component than gpu-npd of a reason the cluster component does not watch (POD_SELECTORS, NODE_EVENTS); no LIVE_FACTS
    row publishes its kind (read from the job's lines by triage only: a Python exception, which its traceback and the
    chain before it make a failure or a consequence); its line is a fact of the row's kind that names no culprit, of a
    row without a witness (LiveFact.culprit, LiveFact.witness: not published); or the row that would publish it did
    not read its line (a summary's field, read live only within the lines after the summary's opener: triage/read.py
    BLOCK_OPENERS)."""
    from cluster.evidence import AGENT_COMPONENT, POD_SELECTORS
    from triage.facts import EVENT_ROW, FACTS, LIVE, NODE_EVENTS, live
    from triage.read import BLOCK_OPENERS, job_fact

    root = off.get("root") or {}
    kind, rule = root.get("kind"), off.get("rule")
    text = next((e.get("text") for e in off.get("evidence") or [] if e.get("kind") == kind and
                 root.get("rank") in (None, e.get("rank"))), None) or ""
    event = EVENT_ROW.search(text)
    watched = {reason for reasons in POD_SELECTORS.values() for reason in reasons} | set(NODE_EVENTS)
    if event is not None and event.group("reason") not in watched:
        return ("Kubernetes Event not watched live", f"offline's root is {kind} ({rule}: {text.strip()!r}), read from "
                f"a Kubernetes Event's row ({event.group('reason')}): the cluster component watches the pods' status "
                f"and {AGENT_COMPONENT}'s own Events, and other components' of the reasons it selects alone")
    if kind not in LIVE:
        return ("job fact not published", f"offline's root is {kind} ({rule}: {text.strip()!r}), a job kind no "
                "triage/facts.py LIVE_FACTS row names: read from the job's lines by triage only")
    if LIVE[kind].traced and rule == "undetermined":
        return ("consequence not published", f"offline's root is {kind} ({rule}: {text.strip()!r}), an exception "
                "that says the failure is elsewhere, the only failure logged: the agent publishes one only as its "
                "writer's witness (LiveFact.witness), once a job and node where nothing else of the failure was said "
                "(agent/workloads.py)")
    # (by the row's words: offline's text may be cut, TEXT_MAX, before the end its pattern reads)
    row = next((f for f in FACTS if f.kind == kind and any(k in text for k in f.keywords)), None)
    publisher = live(kind, row.name if row is not None else None)
    if job_fact(text) is None and row is not None and not publisher.witness:
        return ("job fact names no culprit", f"offline's root is {kind} ({rule}: {text.strip()!r}), a line of a "
                f"LIVE_FACTS row ({row.name}) that names none of its culprit's fields {list(publisher.culprit)} "
                "and has no witness (LiveFact.witness): the agent does not publish it")
    opened = any(o in line for lines in sp.pods.values() for line in lines for o in BLOCK_OPENERS)
    if job_fact(text) is None and not opened:
        return ("summary opener not in the lines", f"offline's root is {kind} ({rule}: {text.strip()!r}), a row of "
                "a summary no line of which opens it as the agent reads summaries (triage/read.py BLOCK_OPENERS: "
                "torchrun's by its 'Root Cause (first observed failure)' row)")
    return ("job fact not read live", f"offline's root is {kind} ({rule}: {text.strip()!r}), a line the agent did not "
            f"publish as {kind}")


def compare(incident: Path, ts=None) -> Row:
    ts = ts or _triage_score()
    want = ts.expected(incident)
    offline_doc = ts.run_in_process(incident)
    offline_ok, offline_said = ts.judge(want, offline_doc)
    sp = split(incident)
    now = time.time()
    pub = publish(sp, now)
    live, evidence = cluster_verdict(pub, now)
    live_ok, live_said = ts.judge(want, _doc(live))
    first = (offline_doc.get("incidents") or [{}])[0]
    row = Row(incident.name, want, offline_said, offline_ok, live_said, live_ok,
              after_success=(first.get("after_success") is not None,
                             live is not None and live.after_success is not None))
    if not live_ok:
        row.why = why_not(want, offline_doc, pub, sp, live, evidence)
    return row


def rows(names: list[str] | None = None) -> list[Row]:
    ts = _triage_score()
    chosen = [p for p in ts.incidents() if not names or p.name in names]
    return [compare(p, ts) for p in chosen]


def main(argv: list[str]) -> int:
    import logging

    logging.disable(logging.WARNING)
    out = rows(argv or None)
    for r in out:
        want = f"{r.expected['category']} rank={r.expected.get('rank')} host={r.expected.get('host')}"
        print(f"{r.name:34} expected {want}\n    offline {'ok ' if r.offline_ok else 'BAD'} {r.offline}\n"
              f"    live    {'ok ' if r.live_ok else 'BAD'} {r.live}" +
              "".join(f"\n    why: {cause}: {detail}" for cause, detail in r.why))
    n = len(out) or 1
    live, offline = sum(r.live_ok for r in out), sum(r.offline_ok for r in out)
    both = sum(r.live_ok == r.offline_ok for r in out)
    print(f"\nlive {live}/{len(out)} ({live / n:.0%}), offline {offline}/{len(out)} ({offline / n:.0%}); "
          f"live and offline agree on right/wrong for {both}/{len(out)}")
    stated = [r for r in out if any(r.after_success)]
    print(f"after the job's stated success: offline {sum(r.after_success[0] for r in stated)}, live "
          f"{sum(r.after_success[1] for r in stated)}, agree {sum(r.after_success[0] == r.after_success[1] for r in stated)}"
          f"/{len(stated)}" + "".join(f"\n  differ: {r.name} (offline {r.after_success[0]}, live {r.after_success[1]})"
                                      for r in stated if r.after_success[0] != r.after_success[1]))
    causes = Counter(cause for r in out for cause in dict.fromkeys(c for c, _ in r.why))
    print("live misses by cause (an incident may have several):")
    for cause, k in causes.most_common():
        print(f"  {k:3}  {cause}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
