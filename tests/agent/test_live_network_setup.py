"""The job's network not set up at its start (triage/facts.py kind network_setup), read live (h661): the store's
address that did not resolve, the store's port already in use, NCCL's bootstrap with no socket interface, a name ssh
could not resolve, each a `NetworkNotSetUp` Pod Event of the job's own pod, once a failure (a job and node), its words
(the address, port, resolver's error) read back by the cluster component into the evidence `gpu-npd triage` reads:
infrastructure, no node named, as offline.  Was: no Event for a store whose port was in use (no incident live), and the
others read as what they are not (an application exception, an NCCL error, a launch error).  c10d's retried lookups'
warnings (store_unresolved) stay unpublished: a store timeout after them is offline's alone (Job._unresolved).

Lines marked REAL are copied verbatim from the public source beside them (tests/triage/test_triage_network_setup.py,
tests/triage/test_triage.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_triage_network_setup import HOST_NOT_FOUND, NO_INTERFACE, PORT_IN_USE, UNRESOLVED_STORE

from live_events import live
from triage import Clock, attribute, read_lines

FIXTURES = Path(__file__).parents[1] / "fixtures"
# REAL: everpeace/kube-openmpi #26 (tests/fixtures/incidents/h548_kube-openmpi-26-ssh-resolve, verbatim)
SSH = (FIXTURES / "incidents" / "h548_kube-openmpi-26-ssh-resolve" / "logs" / "mpirun.log").read_text().splitlines()
# REAL: meta-pytorch/torchtune #392 (the store server's exception: the port taken)
BIND_EXCEPTION = ("torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
                  "address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use). "
                  "The server socket has failed to bind to 0.0.0.0:29500 (errno: 98 - Address already in use).")
# REAL: om-ai-lab/VLM-R1 #289 (2.2+'s words)
BIND_22 = ("RuntimeError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: 0, "
           "code: -98, name: EADDRINUSE, message: address already in use.")
NODE = "gpu-node-03"


def _live(tmp_path: Path, lines: list[str]):
    """The job's pod on NODE logging `lines`: its agent's Events, read back by the cluster component."""
    return live(tmp_path, [(NODE, lines)])


@pytest.mark.parametrize("lines, said", [
    (HOST_NOT_FOUND, "(error host not found; store error Name or service not known; read as store_host_not_found)"),
    (PORT_IN_USE, "(error The server socket has failed to listen on any local network address; "
                  "read as store_listen_failed)"),
    ([BIND_EXCEPTION], "(error The server socket has failed to listen on any local network address; port 29500; "
                       "store error Address already in use; read as store_listen_failed)"),
    ([BIND_22], "(error The server socket has failed to listen on any local network address; port 29500; "
                "store error EADDRINUSE; read as store_listen_failed)"),
    (NO_INTERFACE, "(error Bootstrap : no socket interface found; read as nccl_no_interface)"),
    (SSH, "(error Could not resolve hostname; address mpic-worker-0; resolver Temporary failure in name resolution; "
          "read as ssh_unresolved)"),
], ids=["host-not-found", "port-in-use", "port-in-use-exception", "port-in-use-2.2", "no-interface", "ssh"])
def test_the_jobs_network_not_set_up_is_published_and_read_back_as_offline(tmp_path, lines, said):
    """Each a NetworkNotSetUp Event on the job's pod, its words the line's, read back: infrastructure, network_setup,
    no node named (neither the pod's node nor the name that did not resolve), as `gpu-npd triage` says.  Was: no such
    Event (the port in use: no incident live at all)."""
    events, evidence = _live(tmp_path, lines)
    (ev,) = [ev for ev in events if ev.reason == "NetworkNotSetUp"]
    assert ev.message.startswith(f"A rank could not set up the job's network at its start {said}"), ev.message
    (incident,) = attribute(evidence)
    (offline,) = attribute(read_lines(lines, "worker-0.log", Clock()))
    assert (incident.category, incident.root.kind, incident.root.host) == ("infrastructure", "network_setup", None) \
        == (offline.category, offline.root.kind, offline.root.host)
    assert incident.reason.split(" on pod/")[0] == offline.reason.split(" on worker-0.log")[0]


def test_a_store_timeout_after_failed_lookups_is_not_network_setup_live(tmp_path):
    """allenai/FineGrainedRLHF #12 (REAL): c10d's retried lookups' warnings then the store's timeout.  The warnings are
    never published (one per retry, on every rank of a job waiting for its master's DNS record: context), so the
    timeout's cause is offline's alone (Job._unresolved): live publishes nothing of it (a store error naming no
    counts stays offline), as before (docs/triage.md, "Live and offline")."""
    events, _ = _live(tmp_path, UNRESOLVED_STORE)
    assert events == []
    (offline,) = attribute(read_lines(UNRESOLVED_STORE, "worker-0.log", Clock()))
    assert offline.root.kind == "network_setup"
