"""Cascading recovery (opt-in, issue 26): when a job's incident says a member cannot continue, restart the gang by
deleting the job's opted-in pods, so that their owner recreates them away from the fenced GPU or node.  Pure: it
decides, the controller acts.

Safety first:
- only pods labelled `gpu-npd.io/cascading-recovery: "true"` (or pods of an owner so labelled); never the owner
  object, never a pod without the opt-in;
- `observe` by default: an Event "would restart ..." and nothing else; `enforce` acts;
- one action per incident; a per-job budget (default 3 an hour), a per-namespace budget within the same window
  (none by default; spent and checked by the tenant's own faults alone: NODE_CATEGORIES) and a cluster-wide rate
  limit (a token bucket), which every restart spends;
- every decision is an Event on the owner and a metric (`gpu_npd_recoveries_total{result}`); the decision is
  written in the incident's Event before any pod is deleted, so a restarted controller does not act twice.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from kubeapi.ratelimit import TokenBucket
from triage import Incident
from triage.attribute import RESTART_KINDS
from triage.facts import JOB_TABLE, POD_ENDS

OPT_IN = "gpu-npd.io/cascading-recovery"
MODES = ("off", "observe", "enforce")
# Verdicts that say a member cannot continue: rule -> root kinds (None: any).  A node fault (a GPU fallen off the
# bus, an uncorrectable ECC error, a link down), a first failure of a kind whose row says so (`restarts`: a CUDA /
# NCCL error, an Xid, an exception, a store barrier that timed out with ranks missing), a rank that died of a signal
# (its own process, the rows' `death` "rank": not its DataLoader worker, nor a process its coordinator declared dead),
# a rank the NCCL watchdog numbers single out as hung; a member Kubernetes ended for its node's sake (node pressure, node
# lost or shut down, a fault or unreachable taint, a device plugin refusing its GPUs: triage.facts POD_ENDS restart),
# never one a scheduler preempted or an operator drained (their controllers requeue the job).
FATAL: dict[str, frozenset[str] | None] = {
    "node_fault": None,
    "first_failure": RESTART_KINDS,
    "first_rank_death": frozenset(k.name for k in JOB_TABLE if k.death == "rank"),
    "lagging_rank": None,
}
# Verdicts a node or the cluster is to blame for, never the job's tenant (triage.model CATEGORIES): a GPU's or a node's
# hardware, the fabric, the node's infrastructure (its memory, its pressure, a node lost).  Their restarts count in the
# job's budget and the cluster-wide rate limit, neither in nor against the namespace's budget: one switch failing
# under 40 jobs of one tenant does not spend the budget that bounds the tenant's own faults (an application error,
# an undetermined failure), nor is a job it broke left hung because the tenant's own faults spent it.
NODE_CATEGORIES = frozenset({"hardware", "fabric", "infrastructure"})
# gpu_npd_recoveries_total{result}: what happened to a fatal incident of an opted-in job (a job with no opted-in pod
# gets no decision): observed (mode observe), restarted, budget_exhausted (refused: the job's budget),
# namespace_budget_exhausted (refused: its namespace's budget); rate_limited: a restart the cluster-wide rate limit
# made wait, once per incident (it is decided again, and counted again when it is); failed: a restart that left pods
# not deleted, once per restart.
RESULTS = ("observed", "restarted", "budget_exhausted", "namespace_budget_exhausted", "rate_limited", "failed")


@dataclass(frozen=True)
class Policy:
    mode: str = "observe"
    budget: int = 3  # restarts per job within `window`
    window: float = 3600.0
    per_minute: float = 10.0  # cluster-wide restarts a minute (after a burst of as many)
    # restarts of the jobs of one namespace within `window` for faults of its own, not a node's (NODE_CATEGORIES;
    # None: no bound; a tenant's sweep of jobs that all crash alike then spends the cluster-wide rate the other
    # tenants' restarts need)
    namespace_budget: int | None = None


@dataclass(frozen=True)
class Decision:
    result: str  # RESULTS
    message: str
    act: bool = False  # delete the pods now
    first: bool = True  # the incident's first decision of this result (a rate-limited one is made again and again)


def fatal(incident: Incident) -> bool:
    """Whether the incident says a member of the job cannot continue."""
    end = incident.evidence[0].details.get("pod_end") if incident.root.kind == "job_ended" and incident.evidence \
        else None
    if incident.rule == "first_failure" and end in POD_ENDS:  # Kubernetes ended a member of the gang (triage.facts)
        return POD_ENDS[end].restart
    if incident.rule not in FATAL:
        return False
    kinds = FATAL[incident.rule]
    return kinds is None or incident.root.kind in kinds


def tenant(category: str | None) -> bool:
    """Whether a restart for a verdict of this category counts in (and against) its namespace's budget: not a
    node's (NODE_CATEGORIES); an unknown one (a decision written without it) counts."""
    return category not in NODE_CATEGORIES


class Recovery:
    def __init__(self, policy: Policy, clock: Callable[[], float] = time.time):
        self.policy, self.clock = policy, clock
        # Bounded by what can still matter: an incident's decision while it is open (a closed incident is never
        # decided again: forget), a job's restarts while they count in its budget (within the window: _expire)
        self.decided: set[str] = set()  # open incidents' ids with a decision (one action per incident)
        self.waiting: set[str] = set()  # incident ids the cluster-wide rate limit made wait (until decided)
        # job key -> its restarts within the window: (time, whether the namespace's budget counts it: tenant())
        self.history: dict[tuple, deque[tuple[float, bool]]] = {}
        self.bucket = TokenBucket(policy.per_minute / 60.0, max(1, int(policy.per_minute)), time.monotonic)

    def forget(self, incident_id: str) -> None:
        """A closed incident: never decided again (a job's next incident has an id of its own), so neither its
        decision nor its wait is kept."""
        self.waiting.discard(incident_id)
        self.decided.discard(incident_id)

    def _expire(self, now: float) -> None:
        """Drop the jobs whose every restart is older than the window: none counts in a budget any more."""
        for key in [k for k, done in self.history.items() if not done or now - done[-1][0] >= self.policy.window]:
            del self.history[key]

    def restore(self, incident_id: str, job_key: tuple, result: str, at: float, closed: bool = False,
                category: str | None = None) -> None:
        """A decision a previous controller wrote in the incident's Event (`closed`: an incident closed since, never
        decided again: only its restart is kept; `category`: the verdict's it was decided on, None where not written,
        counted in the namespace's budget as before).  A restart counts in the job's budget within the window (in
        its namespace's too unless a node's: tenant()), and spends
        the cluster-wide bucket as it did the previous leader's (less what has refilled since), so that a leader
        change does not start the rate limit over."""
        if not closed:
            self.decided.add(incident_id)
        if result != "restarted":
            return
        age = max(0.0, self.clock() - at)
        if age < self.policy.window:
            self.history.setdefault(job_key, deque()).append((at, tenant(category)))
        b = self.bucket
        b.tokens = max(0.0, b.refill() - max(0.0, 1.0 - age * b.rate))

    def decide(self, incident_id: str, job_key: tuple, job_name: str, incident: Incident, pods: int) -> Decision | None:
        """None: nothing to do (recovery off, not fatal, no opted-in pod, already decided); else the decision."""
        if self.policy.mode == "off" or incident_id in self.decided or not fatal(incident) or pods == 0:
            return None
        now = self.clock()
        self._expire(now)
        done = self.history.setdefault(job_key, deque())
        while done and now - done[0][0] >= self.policy.window:
            done.popleft()
        why = f"incident {incident_id}: {incident.category} ({incident.rule}, {incident.root.kind})"
        refused = None
        if len(done) >= self.policy.budget:
            refused = Decision("budget_exhausted", f"gpu-npd did not restart job {job_name}: {len(done)} restarts "
                               f"within {int(self.policy.window)} s already (budget {self.policy.budget}); {why}")
        elif self.policy.namespace_budget is not None and tenant(incident.category):
            ns = job_key[0]
            spent = sum(counts and now - at < self.policy.window for key, times in self.history.items()
                        if key[0] == ns for at, counts in times)
            if spent >= self.policy.namespace_budget:
                refused = Decision("namespace_budget_exhausted", f"gpu-npd did not restart job {job_name}: {spent} "
                                   f"restarts of jobs in namespace {ns} within {int(self.policy.window)} s already "
                                   f"(namespace budget {self.policy.namespace_budget}); {why}")
        if refused is not None:  # final for this incident: the job's next incident is decided on its own
            self.decided.add(incident_id)
            self.waiting.discard(incident_id)
            return refused
        if self.policy.mode == "observe":
            self.decided.add(incident_id)
            return Decision("observed", f"gpu-npd would restart job {job_name} (delete its {pods} opted-in pod(s) "
                            f"for their owner to recreate; mode observe): {why}")
        if not self.bucket.take():
            first = incident_id not in self.waiting
            self.waiting.add(incident_id)
            return Decision("rate_limited", f"gpu-npd restart of job {job_name} waits: the cluster-wide rate "
                            f"limit ({self.policy.per_minute:g} a minute) is spent; {why}", first=first)
        self.decided.add(incident_id)
        self.waiting.discard(incident_id)
        done.append((now, tenant(incident.category)))
        return Decision("restarted", f"gpu-npd restarted job {job_name}: deleted its {pods} opted-in pod(s) for "
                        f"their owner to recreate (restart {len(done)} of {self.policy.budget} within "
                        f"{int(self.policy.window)} s); {why}", act=True)
