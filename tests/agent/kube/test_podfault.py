"""Pod condition gpu-npd.io/GPUFault on the pods using a faulted GPU (agent/kube/podfault.py), which pod holds
which GPU from the kubelet's PodResources API (agent/podresources), and the workload recipes that act on it.

The kubelet here is a stand-in: a real grpcio server on a Unix socket implementing v1.PodResourcesLister/List
with the published messages.  The device UUIDs and the Xid 79 kernel lines are those of the real incident in
tests/fixtures/dmesg/xid79-fallen-off-bus.dmesg; the second GPU's UUID and the pod names are synthetic.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent import futures
from pathlib import Path

import grpc
import pytest
import yaml

from parsers.model import Problem, Snapshot
from agent.kube.podfault import CONDITION_TYPE, PodFaultWriter, affected, fatal_gpus
from agent.kube.settings import KubeSettings
from agent.podresources import LIST, PodDevices, api_pb2, list_pods
from apiserver_double import ApiDouble
from cel_admission import admitted as cel_admitted
from crd_schemas import crd_file, validator as crd_validator
from kubeapi.client import make_api

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "deploy" / "examples" / "pod-fault-conditions"
FAULTED = "GPU-f1906b9b-557a-e961-045c-9fe4be3ce012"  # the GPU at 0000:5d:00 in the real incident
HEALTHY = "GPU-00000001-0000-4000-8000-000000000001"  # synthetic
GPU_AT = "NVRM: GPU at PCI:0000:5d:00: GPU-f1906b9b-557a-e961-045c-9fe4be3ce012"
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


def response(pods: list[tuple[str, str, list[str], list[tuple[str, str, str]]]]) -> api_pb2.ListPodResourcesResponse:
    """(namespace, name, device-plugin GPU ids, DRA devices) -> the kubelet's List answer."""
    out = api_pb2.ListPodResourcesResponse()
    for ns, name, ids, claims in pods:
        pod = out.pod_resources.add(name=name, namespace=ns)
        c = pod.containers.add(name="main")
        if ids:
            c.devices.add(resource_name="nvidia.com/gpu", device_ids=ids)
        c.devices.add(resource_name="rdma/ib", device_ids=["mlx5_0"])  # another resource: not a GPU
        if claims:
            dyn = c.dynamic_resources.add(claim_name=f"{name}-gpu", claim_namespace=ns)
            for driver, pool, device in claims:
                dyn.claim_resources.add(driver_name=driver, pool_name=pool, device_name=device,
                                        cdi_devices=[api_pb2.CDIDevice(name=f"k8s.{driver}/device={device}")])
    return out


class StandInKubelet:
    """A gRPC server on a Unix socket answering List as the kubelet does (what `answer` holds now)."""

    def __init__(self, answer: api_pb2.ListPodResourcesResponse):
        self.dir = tempfile.mkdtemp(prefix="kubelet-", dir="/tmp")  # a Unix socket path must stay short
        self.socket = f"{self.dir}/kubelet.sock"
        self.answer, self.calls = answer, 0
        self.pool = futures.ThreadPoolExecutor(max_workers=2)  # the server's handlers run here; stop() leaves it
        self.server = grpc.server(self.pool)

        def list_(request, context):
            self.calls += 1
            return self.answer

        self.server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler("v1.PodResourcesLister", {
            "List": grpc.unary_unary_rpc_method_handler(
                list_, request_deserializer=api_pb2.ListPodResourcesRequest.FromString,
                response_serializer=api_pb2.ListPodResourcesResponse.SerializeToString)})])
        self.server.add_insecure_port(f"unix://{self.socket}")
        self.server.start()

    def close(self) -> None:
        self.server.stop(0).wait()
        self.pool.shutdown(wait=True)  # grpc's server does not own its executor: its threads outlived the test
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def kubelet():
    k = StandInKubelet(response([
        ("train", "llama-worker-0", [FAULTED], []),
        ("train", "llama-worker-1", [HEALTHY], []),
        ("infer", "shared-a", [f"{FAULTED.upper()}::3"], []),  # a time-sliced replica of the faulted GPU
        ("dra", "claimed", [], [("gpu.nvidia.com", "gpu-node-1", "gpu-0")]),
        ("web", "no-gpu", [], []),
    ]))
    yield k
    k.close()


def problem(subject: str, severity: str, uuid: str = "", pod: str = "", reason: str = "Xid79FallenOffBus") -> Problem:
    return Problem(f"{subject}|xid|79|{reason}", subject, "xid", "GPUUnhealthy", reason, severity, "hardware",
                   "RESTART_BM", f"Xid 79 on GPU {subject[4:]}: GPU has fallen off the bus", "reset", 1.0, 1.0,
                   details={k: v for k, v in (("uuid", uuid), ("pod", pod)) if v})


# ---- the generated messages and the kubelet client ---------------------------------------------------

def test_committed_messages_are_generated_from_the_committed_proto(tmp_path):
    """api_pb2.py is what grpcio-tools makes of api.proto now (make podresources-stubs)."""
    shutil.copytree(ROOT / "agent" / "podresources", tmp_path / "agent" / "podresources")
    (tmp_path / "agent" / "podresources" / "api_pb2.py").unlink()
    r = subprocess.run([sys.executable, "-m", "grpc_tools.protoc", "-I.", "--python_out=.",
                        "agent/podresources/api.proto"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "agent/podresources/api_pb2.py").read_text() == \
        (ROOT / "agent/podresources/api_pb2.py").read_text()


def test_list_reads_gpu_uuids_replicas_and_dra_devices_from_a_real_grpc_server(kubelet):
    pods = {(p.namespace, p.name): p for p in list_pods(kubelet.socket, timeout=5)}
    assert set(pods) == {("train", "llama-worker-0"), ("train", "llama-worker-1"), ("infer", "shared-a"),
                         ("dra", "claimed")}  # the pod with no GPU is left out
    assert pods[("train", "llama-worker-0")].devices == {FAULTED.lower()}
    assert pods[("infer", "shared-a")].devices == {FAULTED.lower()}  # GPU-...::3 is that GPU
    assert pods[("dra", "claimed")].claims == {("gpu.nvidia.com", "gpu-node-1", "gpu-0")}
    assert pods[("train", "llama-worker-0")].others == {"mlx5_0"}  # its RDMA rail (a straggling rail's pods)


def test_no_socket_and_a_dead_kubelet_are_errors_the_writer_falls_back_on(tmp_path, kubelet):
    with pytest.raises(FileNotFoundError):
        list_pods(str(tmp_path / "absent.sock"))
    kubelet.server.stop(0).wait()
    import socket  # a stale socket file: the kubelet died without removing it (connection refused)

    with socket.socket(socket.AF_UNIX) as stale:
        if not Path(kubelet.socket).exists():
            stale.bind(kubelet.socket)
    with pytest.raises(grpc.RpcError):
        list_pods(kubelet.socket, timeout=1)


# ---- the pure part -----------------------------------------------------------------------------------

def test_only_fatal_gpu_problems_make_a_gpu_unusable():
    gpus = fatal_gpus([problem("gpu:0000:5d:00", "fatal", FAULTED), problem("gpu:0000:18:00", "warning"),
                       problem("nic:0000:0c:00", "fatal"), problem("node", "fatal")])
    assert list(gpus) == ["0000:5d:00"] and gpus["0000:5d:00"][0] == FAULTED


def test_affected_pods_by_uuid_replica_and_dra_device_and_the_cgroup_fallback():
    pods = [PodDevices("train", "w0", frozenset({FAULTED.lower()}), frozenset()),
            PodDevices("train", "w1", frozenset({HEALTHY.lower()}), frozenset()),
            PodDevices("dra", "claimed", frozenset(), frozenset({("gpu.nvidia.com", "p", "gpu-0")}))]
    gpus = fatal_gpus([problem("gpu:0000:5d:00", "fatal", FAULTED, pod="train/from-pid")])
    dra = {FAULTED.lower(): ("gpu.nvidia.com", "p", "gpu-0"), "0000:5d:00": ("gpu.nvidia.com", "p", "gpu-0")}
    assert set(affected(gpus, pods, dra)) == {("train", "w0"), ("dra", "claimed")}
    assert set(affected(gpus, None)) == {("train", "from-pid")}  # kubelet silent: the pid -> cgroup map's pod
    assert affected(fatal_gpus([problem("gpu:0000:5d:00", "fatal")]), pods) == {}  # no UUID, no kubelet match


def test_a_mig_device_on_a_faulted_gpu_is_its_pods_where_its_id_names_the_gpu():
    """A pod given a MIG device of the faulted GPU (the kubelet's `MIG-GPU-<uuid>/<gi>/<ci>`, the mixed strategy's
    `nvidia.com/mig-*` resource) is affected: PodResources' ids are read as the GPU they are on (parsers/gpus.py
    `device_gpu`). An R470+ `MIG-<uuid>` id names no GPU: not matched (docs/pod-faults.md)."""
    from agent.podresources import pod_devices

    out = api_pb2.ListPodResourcesResponse()
    for name, device in (("mig-w0", f"MIG-{FAULTED}/7/0"), ("mig-w1", f"MIG-{HEALTHY}/7/0"),
                         ("mig-new", "MIG-0a1b2c3d-0000-4000-8000-00000000000a")):  # synthetic ids of the formats
        c = out.pod_resources.add(name=name, namespace="train").containers.add(name="main")
        c.devices.add(resource_name="nvidia.com/mig-1g.10gb", device_ids=[device])
    gpus = fatal_gpus([problem("gpu:0000:5d:00", "fatal", FAULTED)])
    assert set(affected(gpus, pod_devices(out))) == {("train", "mig-w0")}


# ---- the writer against the API double ---------------------------------------------------------------

def writer(api_url: str, kubelet_socket: str, mode: str = "enforce", problems=None) -> PodFaultWriter:
    s = KubeSettings(api_server=api_url, pod_fault_conditions=True, pod_resources_socket=kubelet_socket,
                     max_backoff_seconds=0.2)
    standing = problems if problems is not None else [problem("gpu:0000:5d:00", "fatal", FAULTED)]
    w = PodFaultWriter(make_api(s), "gpu-node-1", s, mode)
    w.apply(Snapshot(problems=tuple(standing)))  # what the pipeline hands every sink
    return w


def test_condition_written_once_others_kept_and_pods_elsewhere_left_alone(kubelet):
    with ApiDouble() as api:
        w0 = api.add_pod("train", "llama-worker-0", "gpu-node-1", gpus=1)
        w0["status"]["conditions"] = [{"type": "Ready", "status": "True"},
                                      {"type": "example.com/Other", "status": "True", "reason": "Theirs"}]
        api.add_pod("train", "llama-worker-1", "gpu-node-1", gpus=1)
        api.add_pod("infer", "shared-a", "gpu-node-2", gpus=1)  # the kubelet's name, another node's pod
        w = writer(api.url, kubelet.socket)
        w.sync()
        conds = {c["type"]: c for c in api.pods[("train", "llama-worker-0")]["status"]["conditions"]}
        assert conds["Ready"]["status"] == "True" and conds["example.com/Other"]["reason"] == "Theirs"
        mine = conds[CONDITION_TYPE]
        assert (mine["status"], mine["reason"]) == ("True", "Xid79FallenOffBus")
        assert "0000:5d:00" in mine["message"] and FAULTED in mine["message"] and "gpu-node-1" in mine["message"]
        assert api.pod_status_patches == [("train", "llama-worker-0")]
        assert CONDITION_TYPE not in str(api.pods[("train", "llama-worker-1")]["status"])
        assert CONDITION_TYPE not in str(api.pods[("infer", "shared-a")]["status"])
        w.sync()
        fresh = writer(api.url, kubelet.socket)  # a restarted agent: reads the pod, writes nothing again
        fresh.sync()
        assert api.pod_status_patches == [("train", "llama-worker-0")]
        assert conds[CONDITION_TYPE]["lastTransitionTime"] == mine["lastTransitionTime"]


def test_a_job_pod_counted_failed_before_the_write_is_said_to_be_too_late_for_its_policy(kubelet):
    """The Job controller judges a pod by podFailurePolicy when it has failed, and drops its tracking finalizer
    once it has counted it: a condition written after that is still written, and its Event says the Job missed it."""
    with ApiDouble() as api:
        counted = api.add_pod("train", "llama-worker-0", "gpu-node-1", gpus=1, phase="Failed")
        counted["metadata"]["labels"]["batch.kubernetes.io/job-name"] = "llama"
        pending = api.add_pod("infer", "shared-a", "gpu-node-1", gpus=1, phase="Failed")
        pending["metadata"]["labels"]["batch.kubernetes.io/job-name"] = "serve"
        pending["metadata"]["finalizers"] = ["batch.kubernetes.io/job-tracking"]  # not counted yet: it will see it
        w = writer(api.url, kubelet.socket)
        w.sync()
        assert sorted(api.pod_status_patches) == [("infer", "shared-a"), ("train", "llama-worker-0")]
        said = {e["involvedObject"]["name"]: e["message"] for e in api.events() if e["reason"] == "GPUFaultConditionSet"}
        assert "its Job had counted it" in said["llama-worker-0"]
        assert "counted" not in said["shared-a"]


def test_observe_mode_writes_no_condition(kubelet):
    with ApiDouble() as api:
        api.add_pod("train", "llama-worker-0", "gpu-node-1", gpus=1)
        w = writer(api.url, kubelet.socket, mode="observe")
        w.sync()
        assert api.pod_status_patches == []
        (said,) = [e for e in api.events() if e["involvedObject"]["name"] == "llama-worker-0"]
        assert said["reason"] == "GPUFaultConditionWouldSet" and said["metadata"]["namespace"] == "train"


def test_api_server_down_loses_nothing(kubelet):
    """The API server answers 503 to the writer's first requests, then heals: the condition is written once.  The
    outage ends after the requests it refused, not after a time (1 s passed before a loaded machine's writer thread
    had asked anything: nothing refused, 1 pass in 4)."""
    with ApiDouble() as api:
        api.add_pod("train", "llama-worker-0", "gpu-node-1", gpus=1)
        api.set_fault(status=503, times=3)
        w = writer(api.url, kubelet.socket)
        w.start()
        try:
            deadline = time.monotonic() + 10
            while not api.pod_status_patches and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            w.close()
        assert api.rejected == 3 and api.pod_status_patches == [("train", "llama-worker-0")]


# ---- end to end: a real `gpu-npd run`, the stand-in kubelet, the Job recipe -----------------------------

def job_failure(job: dict, pods: list[dict]) -> tuple[str, str] | None:
    """The Job controller's (action, message) for its pods under spec.podFailurePolicy, as kubernetes
    pkg/controller/job judges them: only a pod in phase Failed (`isPodFailed`; a policy set, a deleted pod that has
    not failed is not judged), its rules in order, the first whose onPodConditions match a condition of that type
    and status (`matchOnPodConditions`); FailJob's message as `matchPodFailurePolicy` words it."""
    for pod in pods:
        if pod["status"].get("phase") != "Failed":
            continue
        conds = {c["type"]: c.get("status") for c in pod["status"].get("conditions") or []}
        for index, rule in enumerate(job["spec"]["podFailurePolicy"]["rules"]):
            for pattern in rule.get("onPodConditions", []):
                if conds.get(pattern["type"]) == pattern.get("status", "True"):
                    meta = pod.get("metadata", {})
                    return rule["action"], (f"Pod {meta.get('namespace')}/{meta.get('name')} has condition "
                                            f"{pattern['type']} matching {rule['action']} rule at index {index}")
    return None


def job_outcome(job: dict, pods: list[dict]) -> str | None:
    """The podFailurePolicy action for the Job's failed pods: FailJob, Ignore, Count or None."""
    failure = job_failure(job, pods)
    return failure[0] if failure else None


@pytest.mark.slow
def test_xid79_marks_exactly_the_pods_on_that_gpu_and_the_job_recipe_fails_the_job(tmp_path, kubelet):
    from harness import AgentProc

    job = next(d for d in yaml.safe_load_all((EXAMPLES / "job.yaml").read_text()) if d and d["kind"] == "Job")
    with ApiDouble() as api:
        api.add_node("gpu-node-1")
        api.jobs[("train", job["metadata"]["name"])] = job
        for name in ("llama-worker-0", "llama-worker-1"):
            api.add_pod("train", name, "gpu-node-1", gpus=1)["metadata"]["labels"]["job-name"] = job["metadata"]["name"]
        api.add_pod("infer", "shared-a", "gpu-node-1", gpus=1)
        api.add_pod("dra", "claimed", "gpu-node-1")
        conf = tmp_path / "gpu-npd.yaml"
        conf.write_text(yaml.safe_dump({"mode": "enforce", "nvml": "off", "kubernetes": {
            "api_server": api.url, "pod_fault_conditions": True, "pod_resources_socket": kubelet.socket}}))
        a = AgentProc(tmp_path, "--config", str(conf))
        try:
            a.write(f"6,1,4254197816,-;{GPU_AT}\n3,2,4254197860,-;{XID79}\n")
            a.wait_for(lambda: len(api.pod_status_patches) >= 2, timeout=15, what="pod conditions")
            time.sleep(0.5)  # nothing more comes
            assert sorted(api.pod_status_patches) == [("infer", "shared-a"), ("train", "llama-worker-0")]
            marked = api.pods[("train", "llama-worker-0")]
            assert any(c["type"] == CONDITION_TYPE and c["reason"] == "Xid79FallenOffBus"
                       for c in marked["status"]["conditions"])
            assert "conditions" not in api.pods[("train", "llama-worker-1")]["status"]
            assert kubelet.calls >= 1
            assert a.value("gpu_npd_kube_writes_total", kind="pod_conditions") == 2
            a.wait_for(lambda: len([e for e in api.events() if e["reason"] == "GPUFaultConditionSet"]) == 2,
                       what="announcing Events")
        finally:
            assert a.stop()[0] == 0
        marked["status"]["phase"] = "Failed"  # the kubelet's part: the process died with its GPU
        pods = [p for p in api.pods.values() if p["metadata"]["labels"].get("job-name") == job["metadata"]["name"]
                and p["status"]["phase"] == "Failed"]
        assert job_outcome(job, pods) == "FailJob"
        drained = {"status": {"phase": "Failed", "conditions": [{"type": "DisruptionTarget", "status": "True"}]}}
        assert job_outcome(job, [drained]) == "Ignore"  # a drain or preemption is not the job's fault


def test_a_dra_allocated_gpu_is_matched_through_this_nodes_resource_slices(kubelet):
    from test_dra import DRIVER, _slice

    with ApiDouble() as api:
        api.dra_versions = {"v1": ["resourceslices"]}
        api.resource_slices = [_slice("gpu-node-1", [(FAULTED, "0000:5d:00.0"), (HEALTHY, "0000:18:00.0")]),
                               _slice("gpu-node-2", [(HEALTHY, "0000:5d:00.0")])]
        assert DRIVER == "gpu.nvidia.com"
        api.add_pod("dra", "claimed", "gpu-node-1")
        api.add_pod("train", "llama-worker-0", "gpu-node-1", gpus=1)
        w = writer(api.url, kubelet.socket)
        w.sync()
        assert sorted(api.pod_status_patches) == [("dra", "claimed"), ("train", "llama-worker-0")]


# ---- the recipes: valid against the real schemas, and what their controllers do with the condition -------

@pytest.mark.parametrize("recipe, crd", [("jobset.yaml", "jobset.x-k8s.io_jobsets"),
                                         ("volcano.yaml", "batch.volcano.sh_jobs"),
                                         ("pytorchjob.yaml", "kubeflow.org_pytorchjobs")])
def test_crd_recipes_validate_against_their_projects_crd_schemas(recipe, crd):
    import jsonschema

    (obj,) = [d for d in yaml.safe_load_all((EXAMPLES / recipe).read_text()) if d]
    assert crd_file(obj) == crd
    validator = crd_validator(crd, obj["apiVersion"].split("/")[1])
    validator.validate(obj)
    wrong = {**obj, "spec": {**obj["spec"], "failurePolicyy": {}}}
    with pytest.raises(jsonschema.ValidationError):  # the check has teeth: a misspelt field fails
        validator.validate(wrong)


def test_job_recipe_and_config_are_valid(tmp_path):
    from test_deploy import validate_strict

    objs = [d for d in yaml.safe_load_all((EXAMPLES / "job.yaml").read_text()) if d]
    validate_strict(objs, tmp_path)
    from agent.config import load

    conf = tmp_path / "c.yaml"
    conf.write_text((EXAMPLES / "config.yaml").read_text())
    assert load(str(conf)).kube.pod_fault_conditions is True


JOBSET_RULE_NAME = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")  # jobset pkg/webhooks: ruleNameFmt
JOB_FAILURE_REASONS = ("BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded",
                       "PodFailurePolicy")  # jobset pkg/webhooks: validOnJobFailureReasons


def jobset_webhook_errors(jobset: dict) -> list[str]:
    """What JobSet's validating webhook refuses in spec.failurePolicy (kubernetes-sigs/jobset
    pkg/webhooks/jobset_webhook.go `validateFailurePolicy`), which its CRD schema does not check."""
    rules = jobset["spec"].get("failurePolicy", {}).get("rules", [])
    replicated = {r["name"] for r in jobset["spec"]["replicatedJobs"]}
    errors = [f"rule name {r['name']!r}" for r in rules
              if not 1 <= len(r["name"]) <= 128 or not JOBSET_RULE_NAME.match(r["name"])]
    errors += [f"rule names not unique: {n}" for n in {r["name"] for r in rules}
               if sum(r["name"] == n for r in rules) > 1]
    errors += [f"reason {x!r}" for r in rules for x in r.get("onJobFailureReasons", []) if x not in JOB_FAILURE_REASONS]
    errors += [f"replicatedJob {x!r}" for r in rules for x in r.get("targetReplicatedJobs", []) if x not in replicated]
    return errors


def jobset_outcome(jobset: dict, failed_pod: dict) -> str:
    """JobSet controller (pkg/controllers/failure_policy.go): the child Job fails by its podFailurePolicy (reason
    PodFailurePolicy, the FailJob message), else by its backoffLimit of 0 (BackoffLimitExceeded); the first
    failurePolicy rule whose reasons and message patterns (regexes: any matches) both match gives the action, none:
    RestartJobSet (`defaultFailurePolicyRuleAction`, counted against maxRestarts)."""
    child = jobset["spec"]["replicatedJobs"][0]["template"]
    failure = job_failure(child, [failed_pod])
    if failed_pod["status"].get("phase") != "Failed" or (failure is not None and failure[0] == "Ignore"):
        return "none"  # not failed (yet): nothing; Ignore: the Job replaces the pod, its backoffLimit unspent
    reason, message = (("PodFailurePolicy", failure[1]) if failure is not None and failure[0] == "FailJob"
                       else ("BackoffLimitExceeded", "Job has reached the specified backoff limit"))
    for rule in jobset["spec"]["failurePolicy"]["rules"]:
        reasons, patterns = rule.get("onJobFailureReasons", []), rule.get("onJobFailureMessagePatterns", [])
        if (not reasons or reason in reasons) and (not patterns or any(re.search(p, message) for p in patterns)):
            return rule["action"]
    return "RestartJobSet"


def test_jobset_recipe_passes_jobsets_webhook():
    (js,) = [d for d in yaml.safe_load_all((EXAMPLES / "jobset.yaml").read_text()) if d]
    assert jobset_webhook_errors(js) == []
    bad = yaml.safe_load(yaml.safe_dump(js))
    bad["spec"]["failurePolicy"]["rules"][0]["name"] = "gpu-fault-restarts-the-gang"  # the check has teeth
    assert jobset_webhook_errors(bad) == ["rule name 'gpu-fault-restarts-the-gang'"]


def test_jobset_recipe_restarts_the_gang_without_spending_max_restarts():
    (js,) = [d for d in yaml.safe_load_all((EXAMPLES / "jobset.yaml").read_text()) if d]
    pod = {"metadata": {"namespace": "train", "name": "llama-train-workers-0-0-x"},
           "status": {"phase": "Failed", "conditions": [
               {"type": CONDITION_TYPE, "status": "True", "reason": "Xid79FallenOffBus"}]}}
    assert jobset_outcome(js, pod) == "RestartJobSetAndIgnoreMaxRestarts"
    # an ordinary failure: the child Job's backoffLimit, the JobSet's default action, counted against maxRestarts
    assert jobset_outcome(js, {"status": {"phase": "Failed"}}) == "RestartJobSet"
    # the condition on a pod that has not failed (its rank hangs in NCCL): nothing yet; the Job judges failed pods
    assert jobset_outcome(js, {**pod, "status": {**pod["status"], "phase": "Running"}}) == "none"
    # a FailJob rule of the user's own (a bug's exit code) is not a GPU fault: it spends maxRestarts
    own = yaml.safe_load(yaml.safe_dump(js))
    own["spec"]["replicatedJobs"][0]["template"]["spec"]["podFailurePolicy"]["rules"].insert(
        0, {"action": "FailJob", "onPodConditions": [{"type": "example.com/BadInput", "status": "True"}]})
    bug = {"metadata": pod["metadata"], "status": {"phase": "Failed", "conditions": [
        {"type": "example.com/BadInput", "status": "True"}]}}
    assert jobset_outcome(own, bug) == "RestartJobSet"
    assert jobset_outcome(own, pod) == "RestartJobSetAndIgnoreMaxRestarts"


def _gang_restarts(jobset: dict, failed_pod: dict, faults: int) -> str:
    """JobSet's restart accounting (api/jobset/v1alpha2/jobset_types.go): RestartJobSet restarts the gang while
    restartsCountTowardsMax < maxRestarts, else fails the JobSet; RestartJobSetAndIgnoreMaxRestarts never counts.
    `faults` times the restarted gang lands on the GPU that stays bad and its pod is marked again."""
    counted = 0
    for _ in range(faults):
        action = jobset_outcome(jobset, failed_pod)
        if action == "RestartJobSet":
            if counted >= jobset["spec"]["failurePolicy"].get("maxRestarts", 0):
                return "Failed"
            counted += 1
    return f"running, {counted} restarts counted"


def test_the_jobset_recipes_uncounted_restart_is_bounded_only_by_the_taint_and_says_so():
    """RestartJobSetAndIgnoreMaxRestarts restarts the gang "an unlimited number of times" (JobSet's docs,
    site/content/en/docs/tasks/failure_policy.md), and the agent marks a pod that starts on a GPU whose fault stands:
    a gang that lands on a GPU that stays bad restarts forever. gpu-npd's NoSchedule taint is what keeps it off, so
    the recipe's pods tolerate no gpu-npd taint, and the recipe and docs/pod-faults.md name the bounded
    alternative, RestartJobSet, which fails the JobSet after maxRestarts."""
    from parsers.kinds import TAINT_PREFIX

    (js,) = [d for d in yaml.safe_load_all((EXAMPLES / "jobset.yaml").read_text()) if d]
    pod = {"metadata": {"namespace": "train", "name": "llama-train-workers-0-0-x"},
           "status": {"phase": "Failed", "conditions": [
               {"type": CONDITION_TYPE, "status": "True", "reason": "Xid79FallenOffBus"}]}}
    assert _gang_restarts(js, pod, 1000) == "running, 0 restarts counted"
    counted = yaml.safe_load(yaml.safe_dump(js))
    counted["spec"]["failurePolicy"]["rules"][0]["action"] = "RestartJobSet"
    assert _gang_restarts(counted, pod, 1000) == "Failed"
    for job in js["spec"]["replicatedJobs"]:
        for tol in job["template"]["spec"]["template"]["spec"].get("tolerations", []):
            assert tol.get("key") and not tol["key"].startswith(TAINT_PREFIX), tol
    page = " ".join((ROOT / "docs" / "pod-faults.md").read_text().split())
    header = " ".join(line.lstrip("# ") for line in (EXAMPLES / "jobset.yaml").read_text().splitlines()
                      if line.startswith("#"))
    for text in (page, header):
        assert "unlimited number of times" in text and "use action RestartJobSet" in text.replace("`", "").replace(
            "action: RestartJobSet", "action RestartJobSet"), text[:200]


def test_volcano_recipe_restarts_the_job_on_pod_failed_and_evicted():
    (vj,) = [d for d in yaml.safe_load_all((EXAMPLES / "volcano.yaml").read_text()) if d]
    assert {(p["event"], p["action"]) for p in vj["spec"]["policies"]} == {("PodEvicted", "RestartJob"),
                                                                          ("PodFailed", "RestartJob")}


# ---- least privilege: the component's RBAC and admission policy ---------------------------------------

def test_component_renders_valid_grants_what_the_writer_calls_and_mounts_the_kubelet_socket(tmp_path):
    from test_deploy import KUBECTL, validate_strict

    if KUBECTL is None:
        pytest.skip("kubectl not installed (.ci/run installs it)")
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump({
        "apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
        "resources": [os.path.relpath(ROOT / "deploy" / "overlays" / "enforce", tmp_path)],
        "components": [os.path.relpath(ROOT / "deploy" / "components" / "pod-fault-conditions", tmp_path)]}))
    r = subprocess.run([KUBECTL, "kustomize", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    objs = [d for d in yaml.safe_load_all(r.stdout) if d]
    out = tmp_path / "out"
    out.mkdir()
    validate_strict(objs, out)
    by = {(o["kind"], o["metadata"]["name"]): o for o in objs}
    role = by[("ClusterRole", "gpu-npd-pod-faults")]
    granted = {(res, verb) for rule in role["rules"] for res in rule["resources"] for verb in rule["verbs"]}
    assert {("pods", "get"), ("pods/status", "patch"), ("resourceslices", "list")} == granted
    binding = by[("ClusterRoleBinding", "gpu-npd-pod-faults")]
    sa = by[("ServiceAccount", "gpu-npd")]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "gpu-npd", "namespace": sa["metadata"]["namespace"]}]
    vap = by[("ValidatingAdmissionPolicy", "gpu-npd-pod-fault-condition-only")]
    assert f"system:serviceaccount:{sa['metadata']['namespace']}:gpu-npd" in vap["spec"]["matchConditions"][0]["expression"]
    assert CONDITION_TYPE in str(vap["spec"]["variables"])
    assert by[("ValidatingAdmissionPolicyBinding", "gpu-npd-pod-fault-condition-only")]["spec"]["policyName"] == \
        vap["metadata"]["name"]
    pod = by[("DaemonSet", "gpu-npd")]["spec"]["template"]["spec"]
    mounts = {m["name"]: m for m in pod["containers"][0]["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert mounts["pod-resources"]["readOnly"] is True
    assert Path(mounts["pod-resources"]["mountPath"]) / "kubelet.sock" == \
        Path(KubeSettings().pod_resources_socket) == Path(volumes["pod-resources"]["hostPath"]["path"]) / "kubelet.sock"


def admitted(user: str, node: str | None, sub: str, old: dict, new: dict) -> bool:
    """The component's ValidatingAdmissionPolicy, its CEL evaluated by cel-python as the API server would."""
    (vap,) = [d for d in yaml.safe_load_all((ROOT / "deploy/components/pod-fault-conditions/rbac.yaml").read_text())
              if d and d["kind"] == "ValidatingAdmissionPolicy"]
    return cel_admitted(vap, user, node, sub, new["metadata"]["name"], old, new)


AGENT = "system:serviceaccount:gpu-npd:gpu-npd"


def _pod(node: str, *conds: dict) -> dict:
    return {"metadata": {"name": "w0", "namespace": "train"}, "spec": {"nodeName": node},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}, *conds]}}


MINE = {"type": CONDITION_TYPE, "status": "True", "reason": "Xid79FallenOffBus", "message": "GPU 0000:5d:00 ..."}


@pytest.mark.parametrize("user, node, sub, new, ok", [
    (AGENT, "gpu-node-1", "status", _pod("gpu-node-1", MINE), True),  # what the agent writes
    (AGENT, "gpu-node-2", "status", _pod("gpu-node-1", MINE), False),  # a pod on another node
    (AGENT, None, "status", _pod("gpu-node-1", MINE), False),  # a token without the node claim
    (AGENT, "gpu-node-1", "", _pod("gpu-node-1", MINE), False),  # the pod itself, not pods/status
    (AGENT, "gpu-node-1", "status", {**_pod("gpu-node-1", MINE), "status": {"conditions": [MINE]}}, False),  # drops Ready
    (AGENT, "gpu-node-1", "status", _pod("gpu-node-1", {"type": "DisruptionTarget", "status": "True"}), False),
    ("system:node:gpu-node-1", None, "status", _pod("gpu-node-1", {"type": "Ready", "status": "False"}), True),
])
def test_admission_policy_lets_the_agent_write_only_its_condition_on_its_own_nodes_pods(user, node, sub, new, ok):
    assert admitted(user, node, sub, _pod("gpu-node-1"), new) is ok

