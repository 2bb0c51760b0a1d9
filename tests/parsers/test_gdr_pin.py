"""GPU memory that could not be pinned for GPUDirect RDMA (parsers/rules.py gdr_pin_unaligned, gdr_pin_failed,
umem_get_failed, event gdr_pin): a peermem_error warning, attribution driver, one per pinning loop.  The real lines are
tests/fixtures/realworld/gdr-pin-2026.yaml's (NVIDIA/gdrcopy #1, #30, #299, Mellanox/nv_peer_memory #27)."""

from __future__ import annotations

import io

import pytest

from parsers import Scanner
from parsers.kinds import BY_NAME

# gdrcopy #30 (gdrdrv 1.x), gdrcopy #299 (2.x, and the driver's reason before it), gdrcopy #1 (mlx5_ib's), nv_peer_memory
# #27 (4.x's mr_umem_get)
GDRDRV = "gdrdrv:nvidia_p2p_get_pages(va=704fe0000 len=327680 p2p_token=0 va_space=0) failed [ret = -22]"
GDRDRV2 = ("gdrdrv:__gdrdrv_pin_buffer:nvidia_p2p_get_pages(va=fffd39e00000 len=65544 p2p_token=0 va_space=0 "
           "callback=ffffc080a8de0230) failed [ret = -22]")
UNALIGNED = ("NVRM: Invalid argument in nv_p2p_get_pages,address or length are not aligned address=0xfffd39e00000, "
             "length=0x10008")
UMEM = "mlx5_warn:mlx5_0:mlx5_ib_reg_user_mr:1418:(pid 23265): umem get failed (-14)"
UMEM4 = "mlx5_0:mr_umem_get:709:(pid 15855): umem get failed (-131668346275144)"


def scan(*lines: str) -> list:
    return list(Scanner().scan(io.BytesIO("".join(line + "\n" for line in lines).encode())))


@pytest.mark.parametrize("line,details", [
    (GDRDRV, {"function": "nvidia_p2p_get_pages", "length": 327680, "errno": "-22"}),
    (GDRDRV2, {"function": "nvidia_p2p_get_pages", "length": 65544, "errno": "-22"}),
    (UNALIGNED, {"function": "nv_p2p_get_pages", "length": "0x10008"}),
    (UMEM, {"ib_dev": "mlx5_0", "function": "mlx5_ib_reg_user_mr", "errno": "-14"}),
    (UMEM4, {"ib_dev": "mlx5_0", "function": "mr_umem_get", "errno": "-131668346275144"}),
], ids=["gdrdrv", "gdrdrv-2.x", "nvrm-unaligned", "mlx5-umem", "mlx5-umem-4.x"])
def test_a_failed_gpudirect_pin_is_the_drivers_warning(line, details):
    """Was: nothing for gdrdrv's lines; the unclassified net's warning (attribution unknown) for mlx5_ib's and NVRM's,
    a Node Event each."""
    for text in (line, "[ 1222.559230] " + line, "Mar  7 10:01:02 gpu-1 kernel: " + line):
        (f,) = scan(text)
        assert (f.kind, f.severity, f.attribution) == ("peermem_error", "warning", "driver"), text
        assert {k: f.details[k] for k in details} == details
    assert not BY_NAME["peermem_error"].raises  # a warning that raises no condition, nothing a reset clears


def test_a_pinning_loops_flood_is_one_event():
    """gdrcopy #1's flood (gdrdrv's and mlx5_ib's lines of two processes interleaved, a debug "invoking" line before
    each pin) is one finding while it comes; the same lines past the event's window are the next one."""
    invoking = "gdrdrv:invoking nvidia_p2p_get_pages(va=0x2305ba0000 len=4194304 p2p_tok=0 va_tok=0)"
    loop = [invoking, GDRDRV, UMEM, UMEM.replace("23265", "23266")] * 50
    assert [f.kind for f in scan(*loop)] == ["peermem_error"]
    apart = [UNALIGNED, GDRDRV2] + ["kernel: eth0: link is up"] * 40 + [UNALIGNED, GDRDRV2]
    assert [f.message for f in scan(*apart)] == [UNALIGNED, UNALIGNED]


@pytest.mark.parametrize("line", [
    # gdrdrv's debug line before each pin (gdrcopy #1), its mmap's failure (gdrcopy #199: another call), ib_core's own
    # line before mlx5's (nv_peer_memory #27): no finding, as before
    "gdrdrv:invoking nvidia_p2p_get_pages(va=0x2305ba0000 len=4194304 p2p_tok=0 va_tok=0)",
    "gdrdrv:gdrdrv_pin_buffer:invoking nvidia_p2p_get_pages(va=0x7fba65a20000 len=262144 p2p_tok=0 va_tok=0)",
    "ib_umem_get: failed to get user pages, nr_pages=512",
])
def test_its_look_alikes_stay_quiet(line):
    assert scan(line) == []
