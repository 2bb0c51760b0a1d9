"""Which job a pod belongs to: its owner, from ownerReferences and the well-known labels each workload
controller sets.  Pure: a pod's metadata in, a `Job` out (None: not a job gpu-npd knows); a watched owner object in,
the owner that owns it out (`owner_of`: Kubeflow Trainer's TrainJob, of the JobSet it made).

The kinds are data (OWNER_KINDS), declared once: the controller watches the ones the API serves, RBAC grants
read on exactly these (tests/cluster/test_cluster_deploy.py checks the manifests against this table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

JOB_LABEL = "gpu-npd.io/job"  # a user's override: pods with the same value (per namespace) are one job


def _group(api_version: str) -> str:
    """The API group of an apiVersion ("" for the core group's "v1")."""
    return api_version.rpartition("/")[0]


def kind_name(api_version: str, kind: str) -> str:
    """"Kind.group" (the kind alone in the core group): which kind it is, at any version (Owner.where)."""
    group = _group(api_version)
    return f"{kind}.{group}" if group else kind


@dataclass(frozen=True, slots=True)
class OwnerKind:
    kind: str
    api_version: str  # group/version the controller reads it at
    plural: str
    # labels the workload controller puts on its pods, naming the owner; the first present wins
    labels: tuple[str, ...] = ()
    # more labels that must hold for `labels` to mean this kind (e.g. KubeRay's originated-from-crd)
    requires: tuple[tuple[str, str], ...] = ()
    group_label: str = ""  # a label splitting one owner into several jobs (LeaderWorkerSet's group index)
    # kinds of the table ("Kind.group", as Owner.where names them) whose objects this kind's controller makes and owns
    # (their controller ownerReference names it): a job found as such an object's is this kind's, its Event on it
    owns: tuple[str, ...] = ()

    @property
    def group(self) -> str:
        return _group(self.api_version)


# Highest first: a JobSet's pods also carry the labels of the batch Job it made; the JobSet is the job.  A TrainJob
# (Kubeflow Trainer v2) puts no label of its own on the pods: it makes one JobSet of its own name, whose controller
# ownerReference names it (kubeflow/trainer pkg/runtime/framework/plugins/jobset/jobset.go `Build`); the job is that
# JobSet's, its owner the TrainJob.
OWNER_KINDS: tuple[OwnerKind, ...] = (
    OwnerKind("TrainJob", "trainer.kubeflow.org/v1alpha1", "trainjobs", owns=("JobSet.jobset.x-k8s.io",)),
    OwnerKind("JobSet", "jobset.x-k8s.io/v1alpha2", "jobsets", ("jobset.sigs.k8s.io/jobset-name",)),
    OwnerKind("LeaderWorkerSet", "leaderworkerset.x-k8s.io/v1", "leaderworkersets",
              ("leaderworkerset.sigs.k8s.io/name",), group_label="leaderworkerset.sigs.k8s.io/group-index"),
    OwnerKind("RayJob", "ray.io/v1", "rayjobs", ("ray.io/originated-from-cr-name",),
              requires=(("ray.io/originated-from-crd", "RayJob"),)),
    OwnerKind("RayCluster", "ray.io/v1", "rayclusters", ("ray.io/cluster",)),
    OwnerKind("PyTorchJob", "kubeflow.org/v1", "pytorchjobs", ("training.kubeflow.org/job-name",),
              requires=(("training.kubeflow.org/operator-name", "pytorchjob-controller"),)),
    OwnerKind("MPIJob", "kubeflow.org/v2beta1", "mpijobs", ("training.kubeflow.org/job-name",),
              requires=(("training.kubeflow.org/operator-name", "mpi-operator"),)),
    OwnerKind("Job", "batch.volcano.sh/v1alpha1", "jobs", ("volcano.sh/job-name",)),
    OwnerKind("Job", "batch/v1", "jobs", ("batch.kubernetes.io/job-name", "job-name")),
)
_BY_REF = {(k.group, k.kind): k for k in reversed(OWNER_KINDS)}  # ownerReference (group, kind) -> kind
_RANK = {k: i for i, k in enumerate(OWNER_KINDS)}
KIND_NAMES = {k: kind_name(k.api_version, k.kind) for k in OWNER_KINDS}  # kind -> "Kind.group" (kind_name)
_OWNED = frozenset(w for k in OWNER_KINDS for w in k.owns)  # the kinds some kind of the table owns


@dataclass(frozen=True, slots=True)
class Owner:
    """The object a job's incident Event is written on."""

    api_version: str
    kind: str
    namespace: str
    name: str
    uid: str = ""

    @property
    def where(self) -> tuple[str, str, str]:
        """(namespace, kind.group, name): which object it is, at any version (Volcano's Job is not batch's)."""
        return self.namespace, kind_name(self.api_version, self.kind), self.name


@dataclass(frozen=True, slots=True)
class Job:
    key: tuple[str, str, str]  # (namespace, what groups it, name): the identity of the job
    owner: Owner
    source: str  # how it was found: "label", "ownerReference", or JOB_LABEL

    @property
    def name(self) -> str:
        return self.key[2]

    def on(self, owner: Owner | None) -> Job:
        """The job with its incident Event on `owner` (None: where it is)."""
        return self if owner is None else Job(self.key, owner, self.source)


def job_of(pod: Mapping[str, Any]) -> Job | None:
    """The job of a pod: `gpu-npd.io/job` first, then the highest known owner its labels or ownerReferences
    name; None for a pod of no known job (a Deployment's, a bare pod)."""
    meta = pod.get("metadata") or {}
    ns = meta.get("namespace") or ""
    labels = meta.get("labels") or {}
    refs = meta.get("ownerReferences") or []
    found = _known(labels, refs, ns)
    override = labels.get(JOB_LABEL)
    if override:
        owner = found.owner if found is not None else _pod_owner(meta, refs, ns)
        return Job((ns, JOB_LABEL, override), owner, JOB_LABEL)
    return found


def _known(labels: Mapping[str, str], refs: list, ns: str) -> Job | None:
    best: tuple[int, Job] | None = None
    for kind in OWNER_KINDS:
        if any(labels.get(k) != v for k, v in kind.requires):
            continue
        name = next((labels[x] for x in kind.labels if labels.get(x)), None)
        if name:
            uid = next((r.get("uid", "") for r in refs if r.get("kind") == kind.kind and r.get("name") == name
                        and _group(r.get("apiVersion", "")) == kind.group), "")
            best = _better(best, kind, Job(_key(ns, kind, name, labels), Owner(kind.api_version, kind.kind, ns, name,
                                                                                uid), "label"))
            break  # kinds are in priority order: the first that names the pod is the highest
    for ref in refs:
        kind = _BY_REF.get((_group(ref.get("apiVersion", "")), ref.get("kind")))
        if kind is not None and ref.get("name"):
            best = _better(best, kind, Job(_key(ns, kind, ref["name"], labels),
                                           Owner(ref["apiVersion"], ref["kind"], ns, ref["name"], ref.get("uid", "")),
                                           "ownerReference"))
    return best[1] if best else None


def _better(best: tuple[int, Job] | None, kind: OwnerKind, job: Job) -> tuple[int, Job]:
    rank = _RANK[kind]
    return best if best is not None and best[0] <= rank else (rank, job)


def _key(ns: str, kind: OwnerKind, name: str, labels: Mapping[str, str]) -> tuple[str, str, str]:
    what = KIND_NAMES[kind]
    if kind.group_label and labels.get(kind.group_label):
        return ns, what, f"{name}/{labels[kind.group_label]}"
    return ns, what, name


def _pod_owner(meta: Mapping[str, Any], refs: list, ns: str) -> Owner:
    """For a labelled pod of no known owner: its controller (any kind), else the pod itself."""
    ref = next((r for r in refs if r.get("controller")), refs[0] if refs else None)
    if ref is not None and ref.get("name") and ref.get("kind"):
        return Owner(ref.get("apiVersion", "v1"), ref["kind"], ns, ref["name"], ref.get("uid", ""))
    return Owner("v1", "Pod", ns, meta.get("name", ""), meta.get("uid", ""))


_BATCH_JOB = next(k for k in OWNER_KINDS if k.api_version == "batch/v1" and k.kind == "Job")


def batch_job_of(pod: Mapping[str, Any]) -> str:
    """The batch Job a pod is of, by its Job's labels (`batch.kubernetes.io/job-name`, the older `job-name`: the Job
    controller's), where the pod's ownerReference to a batch Job agrees or it has none; "" otherwise.  A JobSet's (a
    TrainJob's) pod is of the child Job the JobSet made ("<jobset>-<replicatedjob>-<index>"), whose Events (the Job
    controller's DeadlineExceeded) name that Job, not the group the job is kept under (cluster.book Book._job_event)."""
    meta = pod.get("metadata") or {}
    labels = meta.get("labels") or {}
    name = next((str(labels[x]) for x in _BATCH_JOB.labels if labels.get(x)), "")
    refs = [r.get("name") for r in meta.get("ownerReferences") or () if isinstance(r, Mapping)
            and r.get("kind") == "Job" and _group(str(r.get("apiVersion", ""))) == _BATCH_JOB.group]
    return name if name and (not refs or name in refs) else ""


def owner_of(obj: Mapping[str, Any]) -> Owner | None:
    """The owner of a watched owner object (a JobSet): its controller ownerReference, where that names a kind of the
    table that owns objects of its kind (`OwnerKind.owns`: a TrainJob, its JobSet); None otherwise (a JobSet a user
    made, or another controller's)."""
    what = kind_name(str(obj.get("apiVersion", "")), str(obj.get("kind", "")))
    if what not in _OWNED:
        return None
    meta = obj.get("metadata") or {}
    for ref in meta.get("ownerReferences") or ():
        if not isinstance(ref, Mapping) or ref.get("controller") is not True or not ref.get("name"):
            continue
        api_version = str(ref.get("apiVersion", ""))
        kind = _BY_REF.get((_group(api_version), ref.get("kind")))
        if kind is not None and what in kind.owns:
            return Owner(api_version, kind.kind, meta.get("namespace", ""), str(ref["name"]), str(ref.get("uid") or ""))
    return None
