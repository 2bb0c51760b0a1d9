"""The `workload_hang` and `peer_outliers` blocks of the configuration: settings of hang suspicion
(agent/progress.py) and of the peer-outlier test (agent/peers.py), each key declared once (type, default,
bounds, doc) like every other block (agent/settings.py); agent/keyspec converts and checks them with the rest of the
configuration (agent/config.py), whose errors name the key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from .keyspec import doc, num


@dataclass(frozen=True)
class HangSettings:
    enabled: Annotated[bool, doc("suspect a pod hung when its progress lines stop")] = True
    k: Annotated[float, num("silence allowed, in median intervals between progress lines", gt=0)] = 10.0
    # 300 s: half PyTorch's default NCCL timeout (10 min), so that a hang of a job stepping every few seconds is
    # suspected minutes before the watchdog kills it (600 s came level with it: docs/hangs.md, real hangs replayed)
    floor_seconds: Annotated[float, num("never less than this (a fleet default must not page on a slow logger)",
                                        gt=0)] = 300.0
    pause_seconds: Annotated[float, num("silence allowed after an announced checkpoint save / evaluation",
                                        gt=0)] = 3600.0
    # 0.5: the suspicion half the timeout after the announcement, minutes before the watchdog (as floor_seconds is half
    # PyTorch's default NCCL timeout); a pause longer than the timeout with a collective waiting on it kills the job
    timeout_fraction: Annotated[float, num("a pause's allowance is at most this x the longest collective timeout the "
                                           "pod's log said (PyTorch's NCCL watchdog)", gt=0, le=1)] = 0.5
    min_steps: Annotated[int, num("advances seen before a pod counts as \"was making progress\"", gt=0)] = 3
    max_pods: Annotated[int, num("pods tracked per node; past it the longest-silent one is forgotten (counted)",
                                 gt=0)] = 512
    device_refresh_seconds: Annotated[float, num("how often the pods' GPUs are asked of the kubelet while pods are "
                                                 "tracked (a pod not yet known is asked for at once)", gt=0)] = 60.0


@dataclass(frozen=True)
class PeerSettings:
    enabled: Annotated[bool, doc("compare each node's GPUs and rails with their peers (off: on nodes shared by "
                                 "different workloads the GPUs differ by design)")] = False
    k: Annotated[float, num("spreads (MADs, or the field's floor) off the peers' median", gt=0)] = 5.0
    polls: Annotated[int, num("consecutive outlying polls before a member is a straggler", gt=0)] = 3
    min_peers: Annotated[int, num("members under load needed for a comparison", gt=0)] = 4
