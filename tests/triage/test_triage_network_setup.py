"""The job's network not set up at its start (facts.py network_setup): the store's address that did not resolve, the
store's port already taken, NCCL's bootstrap with no socket interface: the job's or the cluster's configuration (or a
race at start), named by its words, never an application's exception nor a node's fault.  REAL lines, verbatim, their
sources beside them."""
from triage import attribute, read_lines
from triage.clock import Clock

# kubeflow/pytorch-operator #125 (`kubectl logs optimizer-worker-0`: a PyTorchJob's worker started before the
# master's Service had its DNS record; torch 1.x's TCPStore)
HOST_NOT_FOUND = [
    "2019-01-11 05:43:30,310 INFO     init_distribution",
    "Traceback (most recent call last):",
    '  File "optimizer.py", line 413, in init_distribution',
    "    torch.distributed.init_process_group(backend=backend)",
    '  File "/root/.local/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py", line 354, in '
    "init_process_group",
    "    store, rank, world_size = next(rendezvous(url))",
    '  File "/root/.local/lib/python3.7/site-packages/torch/distributed/rendezvous.py", line 143, in '
    "_env_rendezvous_handler",
    "    store = TCPStore(master_addr, master_port, start_daemon)",
    "ValueError: host not found: Name or service not known",
]

# EasonXiao-888/MambaTree #14 (NCCL 2.14.3's ncclInternalError, its "Last error:")
NO_INTERFACE = [
    "Traceback (most recent call last):",
    '  File "/home/hqu/user/MambaTree-main/GrootV/classification/main.py", line 627, in <module>',
    "    torch.distributed.barrier()",
    '  File "/home/hqu/anaconda3/envs/grootv/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py", line '
    "3145, in barrier",
    "    work = default_pg.barrier(opts=opts)",
    "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1201, internal error, NCCL "
    "version 2.14.3",
    "ncclInternalError: Internal check failed.",
    "Last error:",
    "Bootstrap : no socket interface found",
]

# hao-ai-lab/FastVideo #575 (torchrun's own store on port 29500, taken)
PORT_IN_USE = [
    "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in "
    "use).",
    "[W socket.cpp:464] [c10d] The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in "
    "use).",
    "[E socket.cpp:500] [c10d] The server socket has failed to listen on any local network address.",
]


def _incident(lines):
    (incident,) = attribute(read_lines(lines, "worker-0.log", Clock()))
    return incident


def test_a_store_address_that_did_not_resolve_is_the_networks_setup_not_the_application():
    # was: APPLICATION, the ValueError the program's own
    incident = _incident(HOST_NOT_FOUND)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert "host not found (Name or service not known)" in incident.reason


def test_nccls_bootstrap_with_no_interface_is_the_networks_setup():
    # was: UNDETERMINED, the NCCL error's internal error a consequence
    incident = _incident(NO_INTERFACE)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")
    assert "no socket interface found" in incident.reason


def test_a_store_port_already_in_use_is_the_networks_setup():
    # was: nothing ("No failure found")
    incident = _incident(PORT_IN_USE)
    assert (incident.category, incident.root.kind) == ("infrastructure", "network_setup")


def test_the_retried_connects_and_lookups_warnings_are_no_failure():
    """c10d's warnings while it retries (the store not up yet: a headless Service's record, the master's pod starting)
    are no failure by themselves: kubernetes-sigs/jobset #93 ("spammed in logs while its waiting for other pods to be
    ready"), hpcaitech/Open-Sora #667's retried connect."""
    lines = ["[W socket.cpp:558] [c10d] The IPv6 network addresses of (pytorch-workers-0-0.pytorch-workers, 3389) "
             "cannot be retrieved (gai error: -2 - Name or service not known).",
             "[W socket.cpp:697] [c10d] The client socket has failed to connect to 0.104.99.143:47389 (errno: 110 - "
             "Connection timed out)."]
    assert attribute(read_lines(lines, "worker-0.log", Clock())) == []
