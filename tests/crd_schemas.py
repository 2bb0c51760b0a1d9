"""Other projects' CRD schemas (tests/fixtures/crds/, their sources in sources.md): an object of a custom resource
validated as its API server would take it, strictly (an unknown field is an error). Shared by the pod fault recipes'
test (JobSet, Volcano, PyTorchJob) and the monitoring objects' (Prometheus Operator's PodMonitor, ServiceMonitor,
PrometheusRule: kubernetes-validate has no schema for them)."""

from __future__ import annotations

import copy
import functools
import gzip
from pathlib import Path

import yaml

CRDS = Path(__file__).resolve().parent / "fixtures" / "crds"


@functools.lru_cache(maxsize=None)
def _crd(name: str) -> dict:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: the CRDs are large
    return yaml.load(gzip.open(CRDS / f"{name}.yaml.gz").read(), Loader=loader)


def crd_schema(name: str, version: str) -> dict:
    """The openAPIV3Schema of `version` in the CRD file `name`, every object with properties closed to others (the
    API server's strict field validation), unless it keeps unknown fields."""
    crd = copy.deepcopy(_crd(name))
    schema = next(v for v in crd["spec"]["versions"] if v["name"] == version)["schema"]["openAPIV3Schema"]

    def strict(node):
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node and "additionalProperties" not in node \
                    and not node.get("x-kubernetes-preserve-unknown-fields"):
                node["additionalProperties"] = False
            for v in node.values():
                strict(v)
        elif isinstance(node, list):
            for v in node:
                strict(v)
    strict(schema)
    return schema


@functools.lru_cache(maxsize=None)
def validator(name: str, version: str):
    """A jsonschema validator of the CRD's version (`.validate(obj)` raises on the first error), made once."""
    import jsonschema

    schema = crd_schema(name, version)
    return jsonschema.validators.validator_for(schema)(schema)


def crd_file(obj: dict) -> str:
    """The CRD file of an object's kind: <group>_<plural>, as the projects name them (the plural: the kind in lower
    case plus s, which holds for every CRD kept here)."""
    return f"{obj['apiVersion'].split('/')[0]}_{obj['kind'].lower()}s"


def validate(obj: dict) -> None:
    """`obj` against its kind's CRD schema, at its apiVersion's version."""
    validator(crd_file(obj), obj["apiVersion"].split("/")[1]).validate(obj)
