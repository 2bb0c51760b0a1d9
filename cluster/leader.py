"""Leader election through a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: take the
Lease when it is free or expired, renew it every `retry` seconds, write with the read resourceVersion (a 409
means someone else won), give it up on the way out so a standby takes over at once."""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from datetime import datetime, timezone
from typing import Any, Callable

from kubeapi.retry import describe
from parsers.envelope import parse_time

log = logging.getLogger("gpu_npd.cluster")
# leaseDurationSeconds is an int32 the API takes only above 0 (coordination's ValidateLeaseSpec: "must be greater than
# 0"): the bounds of --lease-duration (cluster/cli.py), whole seconds
MAX_LEASE_SECONDS = 2 ** 31 - 1


def micro(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class LeaseLock:
    def __init__(self, api, namespace: str, name: str, identity: str, duration: float = 15.0,
                 renew_deadline: float = 10.0, retry: float = 2.0, request_timeout: float = 5.0,
                 clock: Callable[[], float] = time.time):
        self.api, self.namespace, self.name, self.identity = api, namespace, name, identity
        self.duration, self.renew_deadline, self.retry = duration, renew_deadline, retry
        self.request_timeout, self.clock = request_timeout, clock
        self.leading = False
        self._observed: tuple[str, float] | None = None  # ("holder|renewTime" last seen, our clock when first seen)
        self._last_renew = 0.0
        self.why = ""  # why the last try did not renew (the API's answer, another holder): the lost line says it

    def _read(self) -> dict | None:
        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        try:
            return json.loads(self.api.read_namespaced_lease(self.name, self.namespace, _preload_content=False,
                                                             _request_timeout=self.request_timeout).data)
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise

    def _spec(self, now: float, acquired: float, transitions: int) -> dict[str, Any]:
        # whole seconds rounded up (client-go truncates, int(LeaseDuration / time.Second)): a standby then never waits
        # less than the renew deadline below the duration, within which this leader gives up
        return {"holderIdentity": self.identity, "leaseDurationSeconds": math.ceil(self.duration),
                "acquireTime": micro(acquired), "renewTime": micro(now), "leaseTransitions": transitions}

    def try_acquire(self) -> bool:
        """One attempt to take or renew the Lease; True while we hold it."""
        from kubernetes.client.rest import ApiException  # noqa: PLC0415
        now = self.clock()
        lease = self._read()
        body = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": self.name, "namespace": self.namespace}}
        try:
            if lease is None:
                body["spec"] = self._spec(now, now, 0)
                self.api.create_namespaced_lease(self.namespace, body, _request_timeout=self.request_timeout)
            else:
                spec = lease.get("spec") or {}
                holder = spec.get("holderIdentity") or ""
                renew = spec.get("renewTime") or ""
                if holder and holder != self.identity:
                    # expiry measured on our clock from when we saw this renewTime (no clock skew assumed)
                    if self._observed is None or self._observed[0] != f"{holder}|{renew}":
                        self._observed = (f"{holder}|{renew}", now)
                    duration = float(spec.get("leaseDurationSeconds") or self.duration)
                    if now - self._observed[1] < duration:
                        self.leading = False
                        self.why = f"held by {holder}"
                        return False
                mine = holder == self.identity
                held_since = parse_time(spec.get("acquireTime")) if mine else None
                acquired = held_since.timestamp() if held_since else now
                transitions = int(spec.get("leaseTransitions") or 0) + (0 if mine else 1)
                body["metadata"]["resourceVersion"] = lease["metadata"]["resourceVersion"]
                body["spec"] = self._spec(now, acquired, transitions)
                self.api.replace_namespaced_lease(self.name, self.namespace, body,
                                                  _request_timeout=self.request_timeout)
        except ApiException as exc:
            if exc.status in (409, 422):
                self.leading = False
                self.why = f"another replica wrote it first: {describe(exc)}"
                return False  # someone else wrote it first
            raise
        if not self.leading:
            log.info("leader election: %s now holds lease %s/%s", self.identity, self.namespace, self.name)
        self.leading = True
        self._last_renew = now
        return True

    def run(self, stop: threading.Event, on_lost: Callable[[], None], became: threading.Event) -> None:
        """Acquire, then renew until stopped; `on_lost` when a renewal has not succeeded within the deadline."""
        while not stop.is_set():
            try:
                ok = self.try_acquire()
            except Exception as exc:  # noqa: BLE001 - API down: keep trying; a leader loses it after the deadline
                self.why = describe(exc)
                log.warning("leader election: %s", self.why)
                ok = False
            if ok:
                became.set()
            elif became.is_set() and self.clock() - self._last_renew > self.renew_deadline:
                self.leading = False
                # one line that says it all: which Lease, why, and what comes next (the process exits 1; restarted,
                # it stands by, and a leader restores what this one wrote from its Events)
                log.error("leader election: lost lease %s/%s: not renewed within the %g s renew deadline (last: %s); "
                          "stopping: exit 1, to restart as a standby", self.namespace, self.name, self.renew_deadline,
                          self.why or "no answer")
                on_lost()
                return
            stop.wait(self.retry)

    def release(self) -> None:
        """Give the Lease up (holder cleared, 1 s duration) so that a standby need not wait for it to expire."""
        if not self.leading:
            return
        try:
            lease = self._read()
            if lease is None or (lease.get("spec") or {}).get("holderIdentity") != self.identity:
                return
            now = self.clock()
            lease["spec"].update(holderIdentity="", leaseDurationSeconds=1, renewTime=micro(now))
            self.api.replace_namespaced_lease(self.name, self.namespace, lease, _request_timeout=self.request_timeout)
            log.info("leader election: released lease %s/%s", self.namespace, self.name)
        except Exception as exc:  # noqa: BLE001 - on the way out: the lease expires by itself anyway
            log.warning("leader election: release failed: %s", describe(exc))
        self.leading = False
