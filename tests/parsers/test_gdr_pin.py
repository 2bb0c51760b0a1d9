"""GPU memory that could not be pinned for GPUDirect RDMA (parsers/rules.py gdr_pin_unaligned, gdr_pin_failed,
umem_get_failed, event gdr_pin): a peermem_error warning, attribution driver, one per pinning loop; GPUDirect Storage's
nvidia-fs refusing a pin and gdrdrv's failed mapping alike (gds_pin_failed, gdr_page_table, gdr_map_failed).  The real
lines are tests/fixtures/realworld/gdr-pin-2026.yaml's (NVIDIA/gdrcopy #1, #30, #44, #199, #240, #299,
Mellanox/nv_peer_memory #27, NVIDIA/gds-nvidia-fs #14, #66, pmem/issues #868)."""

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


# (h605) gds-nvidia-fs #14, #66; gdrcopy #240 (2.x), #199, #44 (1.x); the gdrdrv page-table line constructed from
# gdrdrv.c's format (gdr_err("incompatible page table version 0x%08x\n"), its __func__ prefix): no real copy found
GDS_PIN = "nvidia-fs:nvfs_pin_gpu_pages:1292 Error ret -22 invoking nvidia_p2p_get_pages"
GDS_VERSION = "nvidia-fs:nvfs_pin_gpu_pages:1383 Incompatible page table version 0x00020000"
GDR_VERSION = "gdrdrv:__gdrdrv_pin_buffer:incompatible page table version 0x00020000"  # CONSTRUCTED (format above)
REMAP = "gdrdrv:gdrdrv_remap_gpu_mem:error in gdrdrv_io_remap_pfn_range()"
MMAP = "gdrdrv:gdrdrv_mmap:error -11 in gdrdrv_remap_gpu_mem"
REMAP_ERRNO = "gdrdrv:gdrdrv_remap_gpu_mem:error -22,  in remap_pfn_range()"
MMAP_VADDR = "gdrdrv:gdrdrv_mmap:error -22 in gdrdrv_remap_gpu_mem(vaddr=7fb9a5169000, len=196608"
TRACK = "gdrdrv:track_pfn_remap failed :-22"
REMAP1 = "gdrdrv:error in remap_pfn_range() ret:-22"
WCOMB1 = "gdrdrv:error -11 in gdrdrv_mmap_phys_mem_wcomb"


@pytest.mark.parametrize("line,details", [
    (GDS_PIN, {"function": "nvfs_pin_gpu_pages", "errno": "-22"}),
    (GDS_VERSION, {"module": "nvidia-fs", "function": "nvfs_pin_gpu_pages", "version": "0x00020000"}),
    (GDR_VERSION, {"module": "gdrdrv", "function": "__gdrdrv_pin_buffer", "version": "0x00020000"}),
    (REMAP, {"function": "gdrdrv_io_remap_pfn_range"}),
    (MMAP, {"function": "gdrdrv_remap_gpu_mem", "errno": "-11"}),
    (REMAP_ERRNO, {"function": "remap_pfn_range", "errno": "-22"}),
    (MMAP_VADDR, {"function": "gdrdrv_remap_gpu_mem", "errno": "-22"}),
    (TRACK, {}),
    (REMAP1, {"function": "remap_pfn_range"}),
    (WCOMB1, {"function": "gdrdrv_mmap_phys_mem_wcomb", "errno": "-11"}),
], ids=["nvfs-pin", "nvfs-page-table", "gdrdrv-page-table", "remap-2.x", "mmap-2.x", "remap-errno", "mmap-vaddr",
        "track-pfn-1.x", "remap-1.x", "wcomb-1.x"])
def test_gds_pins_and_gdrdrv_mappings_that_failed_are_the_drivers_warning(line, details):
    """Was: nothing (a cuFile buffer nvidia-fs could not pin, gdr_map's EAGAIN unexplained on the node)."""
    for text in (line, "[1655746.266887] " + line, "Mar  7 10:01:02 gpu-1 kernel: " + line):
        (f,) = scan(text)
        assert (f.kind, f.severity, f.attribution) == ("peermem_error", "warning", "driver"), text
        assert {k: f.details[k] for k in details} == details


def test_a_failed_mapping_and_its_callers_error_are_one_event():
    """gdrcopy #240: the remap's error and the mmap's after it, one finding; #44's three lines of one mmap likewise."""
    assert [f.message for f in scan(REMAP, MMAP)] == [REMAP]
    assert [f.message for f in scan(TRACK, REMAP1, WCOMB1)] == [TRACK]


@pytest.mark.parametrize("line", [
    # pmem/issues #868: an RDMA registration of fsdax persistent memory the kernel refused (EOPNOTSUPP): no GPU's
    "mlx5_1:mr_umem_get:766:(pid 63518): umem get failed (-95)",
    # gdrdrv's debug lines about a mapping (gdrcopy #44, #199) and nvidia-fs's continuation line (gds-nvidia-fs #14)
    "gdrdrv:is_cow_mapping is FALSE",
    "gdrdrv:mmaping phys mem addr=0x3838084b0000 size=131072 at user virt addr=0x7f45e83d3000",
    "gdrdrv:gdrdrv_mmap:mapping p=3 entries=3 offset=0 len=196608 vaddr=7fb9a5169000 paddr=3b000c20000 is_wcomb=1",
    "                va_start=0x7f6792900000/va_end=0x7f67929fffff/rounded_size=0x100000/gpu_buf_length=0x100000",
])
def test_no_gpu_pin_stays_quiet(line):
    """Was: a peermem_error warning for pmem #868's registration (errno -95); nothing for the others, as now."""
    assert scan(line) == [] and scan("[82047.691057] " + line.strip()) == []
