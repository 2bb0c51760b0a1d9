"""gpu-npd's job-level attribution: the evidence of a failed job in, incidents out, most likely root cause first.

Pure: imports only `parsers` and the standard library, does no I/O of its own.  Shared by the offline
`gpu-npd triage` (files -> evidence via `read_lines`) and the cluster component (published findings -> evidence
via `Evidence.from_finding`).

    from triage import Clock, attribute, read_lines, to_json
    clock = Clock()
    evidence = [e for path in paths for e in read_lines(open(path), path, clock, root=".")]
    incidents = attribute(clock.align(evidence))
    document = to_json(incidents)   # {"schema": "gpu-npd.triage/v1", "incidents": [...]}
"""

from .attribute import DEFAULT_WINDOW, RULES, attribute, category_of, is_consequence, is_node_fault
from .clock import SKEW, Clock, app_stamp
from .facts import JOB_KINDS
from .model import CATEGORIES, SCHEMA, Evidence, Incident, Root, to_json
from .ranks import Origin, from_path, strip
from .read import FileReader, read_lines
from .teardown import TEARDOWN_KINDS, Teardown, teardown

__all__ = [
    "CATEGORIES", "Clock", "DEFAULT_WINDOW", "Evidence", "FileReader", "Incident", "JOB_KINDS", "Origin", "RULES",
    "Root", "SCHEMA", "SKEW", "app_stamp", "attribute", "category_of", "from_path", "is_consequence", "is_node_fault",
    "read_lines", "strip", "TEARDOWN_KINDS", "Teardown", "teardown", "to_json",
]
