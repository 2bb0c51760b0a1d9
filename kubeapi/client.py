"""Which API server, if any: an explicit URL, in-cluster config, a kubeconfig, or none (local mode).

Whatever is chosen is said in one line naming the server URL, the kubeconfig context and the identity the
writes are made with. `gpu-npd run` outside a pod uses a kubeconfig only when it was named (kubernetes.kubeconfig
or --kubeconfig): a workstation with a kubeconfig must not write to that cluster by surprise.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from typing import Protocol

log = logging.getLogger("gpu_npd.kube")


class Target(Protocol):
    """Where the API server is: an explicit URL, else a kubeconfig path ("" for the default search)."""

    api_server: str
    kubeconfig: str


def in_cluster() -> bool:
    return bool(os.environ.get("KUBERNETES_SERVICE_HOST"))


SERVICE_ACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"


def own_namespace(path: str = SERVICE_ACCOUNT_NAMESPACE) -> str | None:
    """The namespace of the pod's service account (in a pod), else None."""
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().strip() or None
    except OSError:
        return None


def default_kubeconfigs() -> list[str]:
    """The kubeconfig files kubectl would read: $KUBECONFIG's, else ~/.kube/config (the existing ones)."""
    paths = [p for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p] or [os.path.expanduser("~/.kube/config")]
    return [p for p in paths if os.path.isfile(p)]


def cluster_reachable(s: Target, implicit_kubeconfig: bool = True) -> bool:
    """Is there any way to a cluster?  Checked before importing the client (22 MiB of it)."""
    if s.api_server or in_cluster():
        return True
    if s.kubeconfig:
        return os.path.isfile(s.kubeconfig)
    return implicit_kubeconfig and bool(default_kubeconfigs())


def token_subject(authorization: str | None) -> str | None:
    """The `sub` claim of a bearer JWT (a service-account token), read without verifying: for the log line only."""
    if not authorization or not authorization.lower().startswith("bearer "):
        return None
    parts = authorization.split()[-1].split(".")
    if len(parts) != 3:
        return None
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, UnicodeDecodeError):
        return None
    return str(claims.get("sub")) if isinstance(claims, dict) and claims.get("sub") else None


def _bearer_subject(cfg) -> str | None:
    keys = cfg.api_key or {}
    return token_subject(keys.get("authorization") or keys.get("BearerToken"))


def _one_line(exc: BaseException) -> str:
    """An exception's text on one line (YAML's errors span three), cut to 160 characters."""
    return " ".join(str(exc).split())[:160]


class NoCluster(Exception):
    """No way to a cluster, for a command that needs one (`cleanup`, `cluster`, `fabric-check`): why, in one line."""


def make_api(s: Target, implicit_kubeconfig: bool = True, required: bool = False):
    """A CoreV1Api, or None for local mode.  urllib3's own retries are off: the sink backs off itself.
    implicit_kubeconfig=False (the agent): outside a pod, only a kubeconfig named in the settings is used.
    required=True (a command that needs a cluster): NoCluster says why instead of a "local mode" log line."""

    def absent(level: int, why: str, *args: str) -> None:
        if required:
            raise NoCluster(why % args)
        log.log(level, "Kubernetes: %s: local mode" % why, *args)

    if not cluster_reachable(s, implicit_kubeconfig):
        found = default_kubeconfigs() if not implicit_kubeconfig and not s.kubeconfig else []
        if found:
            log.info("Kubernetes: not in a pod, and a kubeconfig (%s) is used only when named "
                     "(--kubeconfig or kubernetes.kubeconfig): local mode, nothing written to a cluster", found[0])
        elif s.kubeconfig:
            absent(logging.WARNING, "kubeconfig %s is a directory, not a kubeconfig file" if os.path.isdir(s.kubeconfig)
                   else "kubeconfig %s does not exist", s.kubeconfig)
        else:
            absent(logging.INFO, "no in-cluster config, no kubeconfig and no --api-server")
        return None
    from kubernetes import client, config  # noqa: PLC0415
    from kubernetes.config.config_exception import ConfigException  # noqa: PLC0415
    from yaml import YAMLError  # noqa: PLC0415

    cfg = client.Configuration()
    if s.api_server:
        cfg.host = s.api_server.rstrip("/")
        where, who = "--api-server / kubernetes.api_server", "no credentials"
    else:
        try:
            if s.kubeconfig or not in_cluster():
                raise ConfigException("kubeconfig chosen")
            config.load_incluster_config(client_configuration=cfg)
            where = "in-cluster config"
            who = _bearer_subject(cfg) or "service account"
        except ConfigException as exc:
            if not s.kubeconfig and not implicit_kubeconfig:
                absent(logging.WARNING, "in-cluster config unusable (%s) and no kubeconfig named", _one_line(exc))
                return None
            try:
                config.load_kube_config(config_file=s.kubeconfig or None, client_configuration=cfg)
                _, active = config.list_kube_config_contexts(config_file=s.kubeconfig or None)
            except (ConfigException, OSError, TypeError, ValueError, KeyError, AttributeError, YAMLError) as exc:
                # a kubeconfig that is not YAML or not a kubeconfig's shape: said in one line, never a traceback
                absent(logging.WARNING if s.kubeconfig else logging.INFO,  # one named and broken: say it louder
                       "no in-cluster config and no usable kubeconfig (%s)", _one_line(exc))
                return None
            context = (active or {}).get("context") or {}
            where = f"kubeconfig {s.kubeconfig or os.pathsep.join(default_kubeconfigs())}, " \
                    f"context {(active or {}).get('name')!r}"
            who = _bearer_subject(cfg) or f"user {context.get('user')!r}"
    log.info("Kubernetes: writing to %s as %s (%s)", cfg.host, who, where)
    cfg.retries = False
    return client.CoreV1Api(client.ApiClient(cfg))


def call(api, method: str, path: str, body: Any = None, query: list | None = None, timeout: float = 10.0) -> Any:
    """One request to a path the typed client has no method for (its auth, host and TLS settings)."""
    from kubernetes.client.exceptions import ApiException  # noqa: PLC0415

    client = api.api_client
    args = client.param_serialize(method, path, query_params=query or [], body=body,
                                  header_params={"Accept": "application/json", "Content-Type": "application/json"},
                                  auth_settings=["BearerToken"])
    resp = client.call_api(*args, _request_timeout=timeout)
    resp.read()
    if not 200 <= resp.status < 300:
        raise ApiException.from_response(http_resp=resp, body=resp.data.decode("utf-8", "replace"), data=None)
    return json.loads(resp.data) if resp.data else {}


def no_answer(api, timeout: float = 10.0) -> str | None:
    """Why the API server gave no answer at all (refused, timed out, TLS or DNS failed), in one line; None when it
    answered, whatever the status: what it refuses is for the requests that follow to say.  A command that needs
    a cluster asks this first: an unreachable server is no cluster, not one failure per request."""
    from kubernetes.client.exceptions import ApiException  # noqa: PLC0415

    from .retry import api_errors, describe  # noqa: PLC0415 - the writers' module: not loaded by an idle agent

    try:
        call(api, "GET", "/version", timeout=timeout)
    except ApiException:
        return None
    except api_errors() as exc:
        return describe(exc)
    return None
