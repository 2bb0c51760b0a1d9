"""A WARN trace in a GPU or NIC driver's module (kernel_oops's modules): the driver and the kernel went on, so the
RIP line after a WARN's first line is a warning (rules.DRIVER_WARN_STATED, action INVESTIGATE), while an oops's or a
BUG's stays the kind's error and RESTART_BM; a WARN the kernel was told to die of (panic_on_warn) is that WARN's
warning and a kernel_panic of its own.

Real lines are tests/fixtures/realworld/kernel-oops.yaml's (open-gpu-kernel-modules #916). The lines here are
CONSTRUCTED from the kernel's formats: kernel/panic.c __warn's first line ("WARNING: CPU: %d PID: %d at %s:%d %pS",
4.x-6.x; 2.6 / 3.x "WARNING: at %s:%d %pS()"; 6.19's "WARNING: %s:%d at %pS, CPU#%d: %s/%d"), show_regs' "RIP:
%04x:%pS", the die line of arch/x86/kernel/dumpstack.c ("Oops: %04lx [#%d]"), and panic_on_warn's panic (4.x-6.1
__warn: panic("panic_on_warn set ...\\n"); 6.2+ check_panic_on_warn: panic("%s: panic_on_warn set ...\\n", origin)).
The functions are the drivers' own (nvidia_dev_put and uvm_va_block_make_resident of the NVIDIA driver, mlx5e's
mlx5e_tx_timeout_work)."""

from __future__ import annotations

import pytest

from parsers.classify import Classifier

RIPS = {
    "nvidia": "RIP: 0010:nvidia_dev_put+0xb1/0xc0 [nvidia]",
    "nvidia_uvm": "RIP: 0010:uvm_va_block_make_resident+0x2f/0x60 [nvidia_uvm]",
    "mlx5_core": "RIP: 0010:mlx5e_tx_timeout_work+0x4a/0x170 [mlx5_core]",
}
# A WARN's first line names the WARN site, the symbol its RIP line names ({sym}: "func+0x../0x.. [mod]")
HEADERS = {
    "4.x-6.x": "WARNING: CPU: 28 PID: 6705 at nvidia/nv.c:5039 {sym}",
    "2.6-3.x": "WARNING: at nvidia/nv.c:5039 {sym}()",
    "6.19": "WARNING: nvidia/nv.c:5039 at {sym}, CPU#28: python3/6705",
}
HARDWARE = "Hardware name: Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/18/2024"
OOPS = "Oops: 0000 [#1] PREEMPT SMP NOPTI"
END = "---[ end trace 0000000000000000 ]---"


def _site(module: str) -> str:
    """The WARN site's symbol of the module's RIP line."""
    return RIPS[module].split(":", 2)[2]


def _found(lines: list[str]) -> list[tuple]:
    c = Classifier()
    return [(f.kind, f.severity, f.action) for f in map(c.classify, lines) if f is not None]


@pytest.mark.parametrize("header", list(HEADERS.values()), ids=list(HEADERS))
@pytest.mark.parametrize("module", list(RIPS))
def test_a_warn_in_a_gpu_or_nic_driver_is_a_warning(header, module):
    # was: ("kernel_oops", "error", "RESTART_BM"), a reboot owed for a warning the kernel survived
    # the header and its RIP line one finding, not two (the header's, kernel_warn_header, since h218)
    assert _found([header.format(sym=_site(module)), HARDWARE, RIPS[module]]) == [
        ("kernel_oops", "warning", "INVESTIGATE")]


@pytest.mark.parametrize("module", list(RIPS))
def test_an_oops_in_the_same_driver_stays_an_error(module):
    assert _found([OOPS, HARDWARE, RIPS[module]]) == [("kernel_oops", "error", "RESTART_BM")]
    assert _found([RIPS[module]]) == [("kernel_oops", "error", "RESTART_BM")]  # no header seen: the kind's


def test_an_oops_after_a_warn_s_report_is_the_oops_error():
    assert _found([HEADERS["4.x-6.x"].format(sym=_site("nvidia")), RIPS["nvidia"], END, OOPS, RIPS["nvidia_uvm"]]) == [
        ("kernel_oops", "warning", "INVESTIGATE"), ("kernel_oops", "error", "RESTART_BM")]


@pytest.mark.parametrize("panic", ["Kernel panic - not syncing: panic_on_warn set ...",
                                   "Kernel panic - not syncing: kernel: panic_on_warn set ..."],
                         ids=["4.x-6.1", "6.2+"])
def test_a_warn_the_kernel_died_of_is_its_warning_and_a_panic(panic):
    # was: the panic part of the WARN's event, no finding of its own: the node's death hidden behind a warning
    assert _found([HEADERS["4.x-6.x"].format(sym=_site("nvidia")), RIPS["nvidia"], panic,
                   "---[ end " + panic + " ]---"]) == [
        ("kernel_oops", "warning", "INVESTIGATE"), ("kernel_panic", "fatal", "RESTART_BM")]


def test_an_oops_then_its_panic_stays_one_error():
    assert _found([OOPS, RIPS["mlx5_core"], "Kernel panic - not syncing: Fatal exception"]) == [
        ("kernel_oops", "error", "RESTART_BM")]
