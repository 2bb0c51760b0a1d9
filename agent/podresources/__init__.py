"""Which pod uses which device: the kubelet's PodResources API (gRPC `v1.PodResourcesLister/List` on the
kubelet's Unix socket, as dcgm-exporter reads it).

`api.proto` is the published proto, verbatim (source and licence in sources.md beside it); `api_pb2.py` is
generated from it (`make podresources-stubs`; a test regenerates it and compares).  Only `List` is called,
through grpcio's generic unary call: no generated service stub, so only the message code is ours to keep.

Pure part: `pod_devices` turns a ListPodResourcesResponse into one `PodDevices` per pod that holds a GPU
(device-plugin ids, time-sliced replicas and MIG devices folded onto their GPU where the id names it, DRA claim
devices as (driver, pool, device), the ids of its other devices: RDMA rails).  Edge: `list_pods`.
"""

from __future__ import annotations

from dataclasses import dataclass

from parsers.gpus import device_gpu

LIST = "/v1.PodResourcesLister/List"
# device-plugin resources whose device ids are GPUs' (parsers/gpus.py `device_gpu`); one ending in `*` names those it
# begins: the device plugin's MIG resources under its mixed strategy (`nvidia.com/mig-1g.10gb`, ..), their ids MIG
# devices' (NVIDIA/dcgm-exporter pkg/dcgmexporter/kubernetes.go reads them as GPUs too)
GPU_RESOURCES = ("nvidia.com/gpu", "nvidia.com/mig-*")
KUBELET = "the kubelet"  # an `Owned`'s source where the kubelet's answer said it
MAX_MESSAGE = 16 * 2**20  # a node with many pods answers in one message; the kubelet's own limit is 16 MiB


@dataclass(frozen=True)
class PodDevices:
    namespace: str
    name: str
    devices: frozenset[str]  # GPU UUIDs (lower case) of the pod's device-plugin GPUs
    claims: frozenset[tuple[str, str, str]]  # DRA devices: (driver, pool, device)
    others: frozenset[str] = frozenset()  # ids of its other device-plugin devices (RDMA: mlx5_0, a VF's PCI address)


@dataclass(frozen=True)
class Owned:
    """The devices a pod holds, as the hang verdict (agent/progress.py) matches them against readings and
    problems: GPU UUIDs (lower case) and PCI addresses (normalised), RDMA rails by device name, netdev or PCI address
    (lower case); `source`: who said so ("the kubelet", "its compute processes")."""
    gpus: frozenset[str]
    rails: frozenset[str] = frozenset()
    source: str = KUBELET

    @property
    def kubelet_gpus(self) -> frozenset[str]:
        """The pod's GPUs where the kubelet named them; none where another source did (its compute processes name
        only the GPUs it used)."""
        return self.gpus if self.source == KUBELET else frozenset()


def pod_devices(resp, resources: tuple[str, ...] = GPU_RESOURCES) -> list[PodDevices]:
    """One PodDevices per pod of a ListPodResourcesResponse that holds a GPU (device plugin or DRA); `resources`: the
    GPU resources' names, as GPU_RESOURCES (one ending in `*` by prefix); the ids of any other resource are `others`."""
    exact = frozenset(r for r in resources if not r.endswith("*"))
    prefixes = tuple(r[:-1] for r in resources if r.endswith("*"))
    out = []
    for pod in resp.pod_resources:
        devices, claims, others = set(), set(), set()
        for c in pod.containers:
            for d in c.devices:
                if d.resource_name in exact or d.resource_name.startswith(prefixes):
                    devices.update(device_gpu(i) for i in d.device_ids if i)
                else:
                    others.update(i.strip().lower() for i in d.device_ids if i)
            for dyn in c.dynamic_resources:
                for r in dyn.claim_resources:
                    if r.device_name:
                        claims.add((r.driver_name, r.pool_name, r.device_name))
        if devices or claims:
            out.append(PodDevices(pod.namespace, pod.name, frozenset(devices), frozenset(claims), frozenset(others)))
    return out


def list_pods(socket: str, timeout: float = 5.0) -> list[PodDevices]:
    """The kubelet's answer now, from its socket (the `kubernetes.pod_resources_socket` key, agent/kube/settings.py).
    Raises OSError (no socket) or grpc.RpcError (kubelet down, refused)."""
    import os  # noqa: PLC0415

    import grpc  # noqa: PLC0415 - heavy, and only needed where the feature is on

    from . import api_pb2  # noqa: PLC0415

    if not os.path.exists(socket):
        raise FileNotFoundError(f"no PodResources socket at {socket}")
    with grpc.insecure_channel(f"unix://{os.path.abspath(socket)}",
                               options=[("grpc.max_receive_message_length", MAX_MESSAGE)]) as channel:
        call = channel.unary_unary(LIST, request_serializer=api_pb2.ListPodResourcesRequest.SerializeToString,
                                   response_deserializer=api_pb2.ListPodResourcesResponse.FromString)
        return pod_devices(call(api_pb2.ListPodResourcesRequest(), timeout=timeout))
