"""Per-kind facts triage uses are the kind rows' (parsers/kinds.py `Kind`, triage/facts.py `JobKind`), never a table
beside them (issue 24): which findings a job fact says more than (`generic`), how a line is named in a job's reason
(`named`), what a hang, a timeout, a death, an exception's fact, a finished job's end and a map line are, whom a fact's
line is about, which kinds are the job's own stop, and which job lines report their node's fault; each derived set
keeps the members it had as a literal."""

from __future__ import annotations

import dataclasses
import importlib
from string import Formatter

import pytest

from parsers import Finding
from parsers.kinds import LINE_WORDS, SEVERITIES, TABLE
from triage import facts
from triage.facts import JOB_TABLE
from triage.model import Evidence

attribute = importlib.import_module("triage.attribute")  # the package's `attribute` is the function
read = importlib.import_module("triage.read")

ROWS = (*TABLE, *JOB_TABLE)
FIELDS = frozenset(f.name for f in dataclasses.fields(Evidence))


def _finding(kind: str, severity: str) -> Finding:
    return Finding(kind, severity, "unknown", "INVESTIGATE", "")


def test_the_catch_all_findings_are_the_kind_rows():
    # was: `f.kind == "nccl_error" and f.severity == "warning" or f.kind == "nccl_timeout"` in triage/read.py
    assert read.GENERIC == {(k.name, s) for k in TABLE for s in k.generic}
    assert {k.name for k in TABLE if k.generic} == {"nccl_error", "nccl_timeout"}
    for k in TABLE:
        assert set(k.generic) <= set(SEVERITIES), k.name
        assert not k.generic or k.workload, f"{k.name}: a catch-all a job fact says more than is a job's line"
    for severity in SEVERITIES:
        assert read.generic(_finding("nccl_timeout", severity))
        assert read.generic(_finding("nccl_error", severity)) is (severity == "warning")
    assert not read.generic(_finding("cuda_error", "warning"))


@pytest.mark.parametrize("row", [k for k in ROWS if k.named], ids=lambda k: k.name)
def test_each_named_template_names_what_evidence_has(row):
    # was: attribute.WHAT, a dict of lambdas per kind beside the kind table; each row's template names an Evidence
    # field, a detail or one of triage's words, and renders for a bare Evidence of its kind
    assert attribute.NAMED[row.name] == row.named
    for template in (row.named,) if isinstance(row.named, str) else row.named:
        for _literal, name, spec, conversion in Formatter().parse(template):
            if name is None:
                continue
            assert not spec and not conversion, template
            name = name.partition("|")[0]
            assert name.startswith("details.") or name in attribute.NAMED_WORDS or name in LINE_WORDS or \
                name in FIELDS, (row.name, name)
    # one template renders for a bare Evidence of its kind; alternatives only for a line with what one names
    assert isinstance(attribute.named(Evidence(kind=row.name)), str) is isinstance(row.named, str)


def test_a_kind_without_a_template_is_named_by_its_wording():
    assert attribute.named(Evidence(kind="nccl_error")) is None
    assert attribute._what(Evidence(kind="nccl_error")) == "NCCL error"
    assert attribute._what(Evidence(kind="rank_seen")) == "rank seen"


@pytest.mark.parametrize("evidence, said", [
    (Evidence(kind="xid", xid=79), "Xid 79"),
    (Evidence(kind="sxid", sxid=20034), "SXid 20034"),
    (Evidence(kind="ib_link", details={"state": "down"}), "IB link down"),
    (Evidence(kind="exception", details={"exception": "ValueError"}), "ValueError"),
    (Evidence(kind="exception"), "exception"),
    (Evidence(kind="cuda_error", details={"cuda_error": "an illegal memory access was encountered"}),
     "CUDA error 'an illegal memory access was encountered'"),
    (Evidence(kind="cuda_error"), "CUDA error ''"),
    # nccl_error's alternatives (parsers/kinds.py): what its rule's groups say, else its wording
    (Evidence(kind="nccl_error", rank=15, details={"other_rank": 7}),
     "two ranks on one GPU (NCCL found rank 7 on this rank's device)"),
    (Evidence(kind="nccl_error", details={"nccl_code": "ncclUnhandledCudaError", "nccl_text": "unhandled cuda error"}),
     "NCCL error 'unhandled cuda error'"),
    (Evidence(kind="nccl_error", details={"nvshmem_function": "exchange_heap_memory_handle",
                                          "nvshmem_error": "Fatal IPC Failure"}), "NVSHMEM error 'Fatal IPC Failure'"),
    (Evidence(kind="nccl_error", details={"nccl_text": ""}), "NCCL error"),
    (Evidence(kind="nccl_error", details={"ibv_call": "ibv_reg_mr_iova2", "ibv_error": "Invalid argument"}),
     "NCCL's ibv_reg_mr_iova2 failed (Invalid argument)"),
    # the kinds whose reason was their wording alone, named by their rules' groups (REAL lines' details: the
    # incidents under tests/fixtures/incidents: metaseq-52, horovod-2015, megatron-lm-5026, ms-swift-9443, nccl-296,
    # paxml-77, nccl-426, nccl-905, nccl-1928; lzhxmu/CPPO #6, alibaba/Pai-Megatron-Patch #366, pytorch/pytorch
    # #140563); was "store error", "nonfinite result", "collective mismatch", "JAX coordination service error",
    # "NET/IB completion error"
    (Evidence(kind="store_error", details={"what": "Timed out initializing process group in store based barrier",
                                           "store_expected": "2048", "store_joined": "1792"}),
     "store timeout (1792 of 2048 ranks joined)"),
    (Evidence(kind="store_error", details={"what": "The client socket has timed out", "store_host": "172.18.21.4",
                                           "store_port": "37907"}),
     "store error 'The client socket has timed out' (store 172.18.21.4:37907)"),
    (Evidence(kind="store_error", details={"what": "Wait timeout"}), "store error 'Wait timeout'"),
    (Evidence(kind="store_error"), "store error"),
    (Evidence(kind="nonfinite_result", details={"result": "nan", "check": "found NaN in local grad norm for bucket #0 "
                                                "in backward pass before data-parallel communication collective"}),
     "non-finite result ('found NaN in local grad norm for bucket #0 in backward pass before data-parallel "
     "communication collective')"),
    (Evidence(kind="nonfinite_result", details={"result": "NaN", "where": "grad norm in backward pass before "
                                                "data-parallel communication collective"}),
     "non-finite result ('found NaN in local grad norm in backward pass before data-parallel communication "
     "collective')"),
    (Evidence(kind="nonfinite_result", details={"result": "nan"}), "non-finite result (nan)"),
    (Evidence(kind="collective_mismatch", details={"first_rank": "1", "op": "ALLREDUCE", "other_rank": "0"}),
     "collective mismatch (rank 1's ALLREDUCE unlike rank 0's)"),
    (Evidence(kind="collective_mismatch", details={"error_type": "SIZE_OR_SYNTAX_MISMATCH"}),
     "collective mismatch (SIZE_OR_SYNTAX_MISMATCH)"),
    (Evidence(kind="collective_mismatch", details={"around_rank": "39"}),
     "collective mismatch (NCCL: at or around rank 39)"),
    (Evidence(kind="coordination_error", details={"status": "DEADLINE_EXCEEDED", "status_text": "Deadline Exceeded"}),
     "JAX coordination service error 'DEADLINE_EXCEEDED: Deadline Exceeded'"),
    (Evidence(kind="coordination_error"), "JAX coordination service error"),
    (Evidence(kind="ib_completion_error", details={"wc_status": "IBV_WC_RETRY_EXC_ERR", "error_code": 12}),
     "NET/IB completion error 'transport retry counter exceeded' (status 12)"),
    (Evidence(kind="ib_completion_error", details={"ibv_event": "IBV_EVENT_PORT_ERR", "event": "port error"}),
     "IB async event 'port error'"),
    (Evidence(kind="ib_completion_error", details={"error_code": 113, "error": "2 (UNDELIVERABLE)"}),
     "NET/OFI completion error '2 (UNDELIVERABLE)'"),
    (Evidence(kind="ib_completion_error", details={"wc_status": "IBV_WC_SOMETHING_NEW"}), "NET/IB completion error"),
    (Evidence(kind="gpu_reset_required"), "GPU reset required"),
    (Evidence(kind="driver_unusable", details={"driver_error": "Driver/library version mismatch"}),
     "GPU driver unusable ('Driver/library version mismatch')"),
    (Evidence(kind="rank_exit", signal=9), "exit (signal 9)"),
    (Evidence(kind="rank_exit", exit_code=1), "exit (code 1)"),
    (Evidence(kind="worker_exit", signal=9), "DataLoader worker killed (signal 9)"),
    (Evidence(kind="process_lost", details={"fact": "ray_node_dead"}), "Ray declared its node dead"),
    (Evidence(kind="process_lost"), "declared dead by the job's coordinator"),
    (Evidence(kind="oom_kill"), "OOM kill"),
    (Evidence(kind="oom_kill", details={"oom": "host"}), "OOM kill (the node's memory, no cgroup limit reached: "
     "another tenant, a daemon or the job itself on a node without a limit)"),
    (Evidence(kind="process_crash", pid=4242, details={"process": "python", "signal": 11, "library": "libcuda.so"}),
     "python:4242 crashed (signal 11) in libcuda.so"),
    (Evidence(kind="process_crash", pid=4242, details={"signal": 11}),
     "a process:4242 crashed (signal 11) in its own code"),
    (Evidence(kind="job_ended", details={"why": "TIME LIMIT"}), "job ended (TIME LIMIT)"),
    (Evidence(kind="job_ended"), "job ended (cancelled)"),
    (Evidence(kind="launch_error", details={"fact": "pyxis_container", "what": "failed to import docker image"}),
     "task not started (pyxis: failed to import docker image)"),
    (Evidence(kind="launch_error", details={"plugin": "pyxis"}), "task not started (SPANK plugin pyxis failed)"),
    (Evidence(kind="launch_error", details={"what": "Communication connection failure"}),
     "task not started (Communication connection failure)"),
    (Evidence(kind="memory_error", severity="warning"), "host memory error"),
    (Evidence(kind="memory_error", pid=77, details={"process": "python"}),
     "uncorrected host memory error (the kernel signalled python:77)"),
])
def test_a_line_is_named_as_before(evidence, said):
    # the words each kind's line had in a reason when attribute.WHAT said them, now from the rows' templates
    assert attribute._what(evidence) == said


def test_the_hang_and_timeout_kinds_are_the_rows():
    # were literal sets beside the tables (triage/teardown.py HANG_KINDS, triage/attribute.py TIMEOUT_KINDS): the rows'
    # `hang` and `timed_out` now, their members unchanged; a rank's own timeout report is a hang's line
    teardown = importlib.import_module("triage.teardown")
    assert teardown.HANG_KINDS == {k.name for k in ROWS if k.hang} == {
        "nccl_timeout", "nccl_progress", "nccl_dump", "nccl_hang", "barrier_timeout"}
    assert attribute.TIMEOUT_KINDS == {k.name for k in ROWS if k.timed_out} == {"nccl_timeout", "nccl_progress"}
    assert attribute.TIMEOUT_KINDS <= teardown.HANG_KINDS


def test_the_death_kinds_are_the_rows():
    # were literal sets in triage/attribute.py (DEATH_KINDS, BARE_DEATHS, and the tuple of deaths named with their pid):
    # the rows' `death`; a bare death is one reported after the fact (the rows' `aftermath`)
    deaths = {k.name for k in JOB_TABLE if k.death}
    assert attribute.DEATH_KINDS == deaths == {"rank_exit", "worker_exit", "process_lost"}
    assert attribute.BARE_DEATHS == deaths & attribute.AFTERMATH_KINDS == {"rank_exit", "process_lost"}
    assert attribute.PROCESS_DEATHS == {"worker_exit", "process_lost"}
    for k in JOB_TABLE:
        assert not k.death or k.death in facts.DEATHS, k.name


def test_whom_a_fact_is_about_is_the_rows():
    # were literal sets in triage/facts.py (ABOUT_ANOTHER, ONLY_ANOTHER): the rows' `about`
    # rerun_verdict: the GPU its words name (the persistent error's line names the other GPU it was rerun on), never
    # its writer's prefix
    assert facts.ABOUT_ANOTHER == {"rank_exit", "job_ended", "worker_exit", "process_lost", "ras_behind",
                                   "rerun_verdict"}
    assert facts.ONLY_ANOTHER == {"process_lost", "ras_behind", "rerun_verdict"}
    assert facts.ONLY_ANOTHER <= facts.ABOUT_ANOTHER
    for k in JOB_TABLE:
        assert k.about in facts.ABOUTS, k.name


def test_the_exception_facts_the_ended_kinds_and_the_maps_are_the_rows():
    # were literal sets: triage/facts.py EXCEPTION_FACTS (the rows' `raised`), triage/teardown.py ENDED_KINDS (`ended`),
    # the tuple of NCCL's map lines triage.attribute's Job never takes for a rank seen (`maps`, context too)
    teardown = importlib.import_module("triage.teardown")
    assert facts.EXCEPTION_FACTS == {k.name for k in JOB_TABLE if k.raised} == {
        "worker_exit", "barrier_timeout", "rank_exit", "storage_error", "nonfinite_result", "resource_limit",
        "store_error", "network_setup", "collective_mismatch"}
    assert teardown.ENDED_KINDS == {k.name for k in JOB_TABLE if k.ended} == {"rank_exit", "agent_signal", "job_ended"}
    assert attribute.MAP_KINDS == {k.name for k in JOB_TABLE if k.maps} == {"nccl_rank", "nccl_address"}
    assert attribute.MAP_KINDS <= attribute.CONTEXT_KINDS


def test_the_stop_kinds_are_the_rows():
    # was a kind named in triage/attribute.py (STRAGGLER_STOP, compared in `_candidates` and `_earliest`): the rows'
    # `stop`; a stop is a candidate by itself, neither a consequence nor a death
    assert attribute.STOP_KINDS == {k.name for k in JOB_TABLE if k.stop} == {"straggler_stop"}
    for k in JOB_TABLE:
        assert not k.stop or not (k.consequence or k.death or k.context), k.name


def test_the_job_seen_node_faults_are_the_rows():
    # was a literal set in triage/attribute.py (JOB_SEEN_NODE_FAULTS): the rows' `reports_node_fault`, a job's line
    assert attribute.JOB_SEEN_NODE_FAULTS == {k.name for k in TABLE if k.reports_node_fault} == {"driver_unusable"}
    assert all(k.workload for k in TABLE if k.reports_node_fault)



def test_every_published_kind_has_a_row_for_its_other_facts():
    """A LIVE_FACTS row restricted to some facts (`rows`: `StoreLost` for the `store_lost` fact of kind
    store_error) leaves the kind out of `facts.LIVE`; the pod-log source asks `f.kind in LIVE` to word a job fact's
    Event, so a kind whose only rows were restricted would silently publish nothing: each kind keeps one row
    without `rows` (the h557 review's find)."""
    assert {row.kind for row in facts.LIVE_FACTS} == set(facts.LIVE)
    named = [name for row in facts.LIVE_FACTS for name in row.rows]  # a fact published by one row only
    assert len(named) == len(set(named)) and set(named) <= {f.name for f in facts.FACTS}


def test_a_facts_live_row_is_its_own_where_one_names_it_else_its_kinds():
    """`facts.live(kind, fact)` (what `block_fact` and the pod-log source word a job fact by): the row naming the fact
    in its `rows` (store_lost -> StoreLost) where the kind is that row's; otherwise the kind's row for its other facts
    (a store error read by another row -> StoreJoinTimeout); a fact named by a row of another kind never borrows it;
    a kind no row publishes: None."""
    assert facts.live("store_error", "store_lost").reason == "StoreLost"
    assert facts.live("store_error", "store_join").reason == "StoreJoinTimeout"
    assert facts.live("store_error").reason == "StoreJoinTimeout"
    assert facts.live("exception", "store_lost").reason == "RankException"  # store_lost names store_error's row
    assert facts.live("no_such_kind") is None and facts.live("no_such_kind", "store_lost") is None
