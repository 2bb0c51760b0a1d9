"""A host name or a peer address someone replaced with a placeholder before pasting a log: the one test, shared by
`gpu-npd parse` (offline/cli.py), triage (triage/ranks.py, triage/read.py) and the cluster (cluster/evidence.py)."""

from __future__ import annotations

import functools
import re

# A host name a ticket or a forum post replaced with a placeholder before pasting the log: "<cluster_name>" (NVIDIA/nccl
# #952, NCCL's prefix), "xxxxxxxx" and a pid "xxxxxx" (Kay1794/Aware-of-the-history #2, mpirun's), "HOSTNAME"
# (horovod/horovod #469), "SERVER_NAME" (facebookincubator/submitit #1708), a peer "xxx.xxx.xxx.xxx<55921>" (NVIDIA/nccl
# #1814), or an address only partly redacted, its network's start kept and the rest dropped or crossed out: a peer
# "172....<33759>" (NVIDIA/nccl #2076), "10.x.x.x", "192.168.*.*" (the start every node of a subnet shares tells no
# node from another): every redacted host is the same name, so none is taken for a host (nor a peer); the line is read
# all the same
PLACEHOLDER = re.compile(r"<[^<>\s]{1,64}>|[xX*]{3,}(?:[.\-:][xX*]{1,})*|(?:(?:YOUR|MY)[_-]?)?(?:HOST|SERVER|NODE|"
                         r"MACHINE)[_-]?(?:NAME|IP)|redacted|"
                         r"(?=\d{1,3}\.)(?=[\d.xX*]*(?:[xX*]|\.\.|\.$))[\d.xX*]+", re.I)


@functools.lru_cache(maxsize=4096)
def placeholder(host: str | None) -> bool:
    """Whether a host (or a peer address, its port off) is a placeholder someone put in place of the real name (a
    job's few hosts are asked about on every line: remembered)."""
    return bool(host) and PLACEHOLDER.fullmatch(host.split("<", 1)[0] if not host.startswith("<") else host) is not None
