"""NVMe over Fabrics' host-side recovery (nvme-tcp, nvme-rdma) and mlx5_ib's failed kernel work requests, on the real
lines of the corpus (tests/fixtures/realworld/nvme-fabrics-2026zz.yaml; the sources' addresses beside them)."""

from __future__ import annotations

import collections

import pytest
from parsers import at_least
import realworld

FILE = "nvme-fabrics-2026zz.yaml"
BATCH = [i for i in realworld.samples() if i["file"] == FILE]
LINES = realworld.lines_by_source(FILE)


def _loud(text: str) -> collections.Counter:
    return collections.Counter(realworld.finding_key(f) for f in realworld.findings(text)
                               if at_least(f.severity, "warning"))


@pytest.mark.parametrize("item", BATCH, ids=lambda i: f"{i['file']}#{i['index']}")
def test_batch_samples_are_their_events_and_nothing_else(item):
    """Each was no finding: a controller's recovery and its failed reconnects (lore linux-nvme, openebs/mayastor #1850,
    #1330, spdk #257, lore linux-block), nvme-rdma's failed RECV and the ConnectX's WC error (lore linux-rdma) but
    the IOMMU fault beside them."""
    assert _loud(item["text"]) == collections.Counter(map(realworld.expect_key, item["expect"]))


def _read(lines):
    return realworld.events(realworld.classified(lines))


def test_recovery_is_a_warning_a_failed_reconnect_its_escalation_one_event_per_controller():
    found = _read(LINES["https://lore.kernel.org/linux-nvme/422141ca-53aa-16fd-e29d-9cf7adf4f07d@grimberg.me/"])
    assert [(f.kind, f.severity, f.details["device"]) for f in found] == [
        ("nvme_error", "warning", "nvme4"), ("nvme_error", "error", "nvme4")]
    assert found[0].action == "MONITOR" and found[1].action == "CHECK_STORAGE"
    assert {f.attribution for f in found} == {"unknown"}  # the target or the network, not this node's drive


def test_every_era_of_the_failed_reconnect():
    """4.x nvme-rdma "Failed reconnect attempt, requeueing...", 5.x "Failed reconnect attempt 2", 6.x ".. 1/600"."""
    spdk = _read(LINES["https://github.com/spdk/spdk/issues/257"])
    assert [(f.severity, f.details["device"]) for f in spdk] == [("error", "nvme1"), ("error", "nvme2"),
                                                                   ("error", "nvme0")]
    six = _read(LINES["https://lore.kernel.org/linux-block/CAHj4cs-zu7eVB78yUpFjVe2UqMWFkLk8p+DaS3qj+uiGCXBAoA@mail.gmail"
                      ".com/"])
    assert [(f.severity, f.details.get("attempt"), f.details.get("attempts")) for f in six] == [
        ("warning", None, None), ("error", 1, 600)]


def test_a_connect_that_fails_with_no_recovery_open_is_the_tools_to_report():
    """nvme connect's own attempt (nvme-cli #2760: interrupted, retried, connected); the transport's lines are part of
    a recovery, never a finding alone."""
    assert _read(LINES["https://github.com/linux-nvme/nvme-cli/issues/2760"]) == []
    assert _read(["[16812.173535] nvme nvme4: failed to connect socket: -111",
                  "[  408.380230] nvme nvme15: RECV for CQE 0x00000000ce392ed9 failed with status local protection "
                  "error (4)", "nvme nvme17: failed nvme_keep_alive_end_io error=10"]) == []


def test_the_rdma_devices_wc_error_names_its_status():
    found = _read(LINES["https://lore.kernel.org/linux-rdma/4501e9b1-47b4-970d-dfce-325687f64b91@arm.com/"])
    nic = [f for f in found if f.kind == "nic_error"]
    assert [(f.severity, f.details["device"], f.details["wc_status"]) for f in nic] == [
        ("warning", "mlx5_0", "IBV_WC_LOC_PROT_ERR")]
    # 6.x's dump_cqe prints the same words from its own function (the status's number is libibverbs')
    (f,) = _read(["infiniband mlx5_2: dump_cqe:271:(pid 0): WC error: 12, Message: transport retry counter exceeded"])
    assert (f.kind, f.details["wc_status"]) == ("nic_error", "IBV_WC_RETRY_EXC_ERR")


def test_the_batch_is_read():
    assert {i["file"] for i in BATCH} == {FILE} and len(BATCH) == 8


CUT = "aer-cut-and-rdma-2026.yaml"
# REAL: https://github.com/linux-nvme/nvme-cli/issues/3268 (mlx5_ib's dynamic debug: a flushed work request's lines)
FLUSHED = realworld.lines_by_source(CUT)["https://github.com/linux-nvme/nvme-cli/issues/3268"]
# REAL: the lore linux-rdma report above ("infiniband mlx5_0: mlx5_handle_error_cqe:332:(pid 0): WC error: 4, ..")
WC_ERROR = LINES["https://lore.kernel.org/linux-rdma/4501e9b1-47b4-970d-dfce-325687f64b91@arm.com/"][1]


def test_flushed_work_requests_are_part_of_the_devices_open_queue_error_alone_nothing():
    """mlx5_poll_one's debug lines of a flushed work request (syndrome 0x5, IBV_WC_WR_FLUSH_ERR: the consequence of an
    earlier error or of a queue pair moved to error at teardown) are part of the RDMA device's open queue-error event:
    a burst of them longer than its window (16 lines) keeps the WC error's event open, the device's next WC error part
    of it (was: the burst nobody's, the next WC error a second finding). Alone (nvme-cli #3268, a disconnect's burst),
    nothing. SOURCE: #3268's lines with the lore report's device name, mlx5_0, so both are one device's."""
    assert _read(FLUSHED) == []
    burst = [line.replace("rocep33s0f0", "mlx5_0") for line in FLUSHED * 2]
    found = _read([WC_ERROR, *burst, WC_ERROR])
    assert [(f.kind, f.severity, f.details["device"]) for f in found] == [("nic_error", "warning", "mlx5_0")]
    # a WC error of the device under rdma-core's name is read as mlx5_N's is (was: nothing)
    (f,) = _read([WC_ERROR.replace("mlx5_0", "rocep33s0f0")])
    assert (f.kind, f.details["device"], f.details["wc_status"]) == ("nic_error", "rocep33s0f0", "IBV_WC_LOC_PROT_ERR")
