"""GPUDirect Storage's kernel module (nvidia-fs) failing to load, on the real lines of the corpus
(tests/fixtures/realworld/gds-load-2026o.yaml; the sources' addresses beside them)."""

from __future__ import annotations

import collections

import pytest
from parsers import at_least
import realworld

BATCH = [i for i in realworld.samples() if i["file"] == "gds-load-2026o.yaml"]


def _loud(text: str) -> collections.Counter:
    return collections.Counter(realworld.finding_key(f) for f in realworld.findings(text)
                               if at_least(f.severity, "warning"))


@pytest.mark.parametrize("item", BATCH, ids=lambda i: f"{i['file']}#{i['index']}")
def test_a_failed_load_is_one_event_per_module(item):
    """nvidia_fs's "Unknown symbol nvidia_p2p_* (err -2)" lines, one per symbol at each load attempt (gds-nvidia-fs
    #41, #48, #34): were no finding; one driver_unusable while they repeat."""
    assert _loud(item["text"]) == collections.Counter(map(realworld.expect_key, item["expect"]))


def test_the_batch_is_read():
    assert len(BATCH) == 3


def test_the_failed_load_names_the_module_and_no_gpu():
    (f,) = realworld.findings(BATCH[0]["text"])
    assert (f.kind, f.severity, f.attribution, f.pci, f.details["device"], f.details["symbol"]) == (
        "driver_unusable", "error", "driver", None, "nvidia_fs", "nvidia_p2p_dma_unmap_pages")


def test_a_module_that_loads_stays_silent():
    """A module built against symbols without versions loads (gds-nvidia-fs #72): its notice is no failure."""
    text = ("[  695.438116] nvidia_fs: no symbol version for nvidia_p2p_dma_unmap_pages\n"
            "[  695.440652] nvidia_fs: Initializing nvfs driver module\n")
    assert _loud(text) == collections.Counter()


def test_the_gpu_driver_modules_keep_their_kind():
    """The GPU driver's own modules failing so are still the driver mismatch of every GPU (nvidia_module_symbols),
    nvidia_peermem's still a peermem_error."""
    gpu = "[   12.000000] nvidia: Unknown symbol i2c_get_adapter (err -22)\n"
    peermem = "[   12.000000] nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)\n"
    assert [f.kind for f in realworld.findings(gpu)] == ["driver_mismatch"]
    assert [f.kind for f in realworld.findings(peermem)] == ["peermem_error"]
