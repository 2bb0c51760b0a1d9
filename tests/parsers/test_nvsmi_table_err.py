"""nvidia-smi's default table naming a GPU NVML could not read (parsers/rules.py "nvsmi_table_err"): "ERR!" where the
GPU's name goes, its Bus-Id column its address, is that GPU's gpu_reset_required (as NVML's "Unknown Error" for it),
part of its open GSP / lost-GPU / reset event where the kernel's lines came first; the healthy rows, the all-"ERR!"
second row (no address) and a row whose utilization alone reads "ERR!" stay silent. Lines marked REAL are copied
verbatim from the public source beside them (tests/fixtures/realworld/nvsmi-table-err-h434.yaml holds them in
context); lines marked SOURCE are built from nvidia-smi's table layout, a test, never a sample."""

from __future__ import annotations

from parsers import Classifier

# REAL: https://github.com/NVIDIA/open-gpu-kernel-modules/issues/446 (8x A40, 525.60.13, 2023-02-27)
A40_ERR = "|   4  ERR!                On   | 00000000:83:00.0 Off |                 ERR! |"
A40_ERR_2 = "|ERR!  ERR! ERR!    ERR! / ERR! |      0MiB / 46068MiB |    ERR!      Default |"
A40_OK = "|   3  NVIDIA A40          On   | 00000000:44:00.0 Off |                    0 |"
# REAL: the same thread (8x A30, 525.85.12, 2023-03-03): the kernel's Xid 119 for GPU 0000:61:00, then its table row
A30_XID = ("[Fri Mar  3 04:23:22 2023] NVRM: Xid (PCI:0000:61:00): 119, pid=1344368, name=nvidia-smi, Timeout waiting "
           "for RPC from GSP! Expected function 10 (FREE) (0xa55a00a0 0x0).")
A30_ERR = "|   3  ERR!                Off  | 00000000:61:00.0 Off |                 ERR! |"
# SOURCE: 535+'s wider table (its Name and Bus-Id columns padded), a GPU NVML cannot read
WIDE_ERR = "|   5  ERR!                           On  |   00000000:91:00.0 Off |                 ERR! |"
# SOURCE: a GeForce under WSL, whose utilization NVML does not report: "ERR!" in GPU-Util alone, its model named
WSL_OK = ("|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0  On |                  N/A |",
          "| N/A   43C    P8    11W /  N/A |    466MiB /  6144MiB |    ERR!      Default |")


def test_a_row_whose_gpu_nvml_cannot_read_is_that_gpus_finding():
    for line, pci in ((A40_ERR, "0000:83:00"), (A30_ERR, "0000:61:00"), (WIDE_ERR, "0000:91:00")):
        f = Classifier().classify(line)
        assert f is not None, line  # was: nothing
        assert (f.kind, f.severity, f.attribution, f.action, f.pci) == (
            "gpu_reset_required", "fatal", "unknown", "RESET_GPU", pci), line


def test_healthy_rows_the_address_less_second_row_and_a_wsl_utilization_stay_silent():
    for line in (A40_OK, A40_ERR_2, *WSL_OK):
        assert Classifier().classify(line) is None, line


def test_after_the_kernels_xid_119_it_is_part_of_that_gpus_event():
    c = Classifier()
    first, _ = c.read(A30_XID)
    row, _ = c.read(A30_ERR)
    assert (first.kind, first.pci) == ("xid", "0000:61:00") and row is None
    other, _ = c.read(A40_ERR)  # another GPU's row: its own
    assert (other.kind, other.pci) == ("gpu_reset_required", "0000:83:00")
