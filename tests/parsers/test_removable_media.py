"""A removable or empty disk's I/O errors (parsers/rules.py removable_media, a "quiet" line; QUIET_ROWS): an SD card
reader's empty LUN, a BMC's virtual media, a USB stick. The kernel's own lines say the device is removable or holds no
medium; its "I/O error, dev sdX" and "Buffer I/O error on dev sdX" lines are then no finding, while a data disk's stay
a filesystem_error. The samples are in tests/fixtures/realworld/removable-media-2026.yaml (each line verbatim, its
address beside it); the lines here are copied from the same sources, addresses in the comments."""

from __future__ import annotations

import realworld

from parsers.classify import Classifier
from parsers.rules import MAX_QUIET_DEVICES

_FIXTURE = "removable-media-2026.yaml"


def _sample(source_part: str) -> list[str]:
    return next(s for s in realworld.samples() if s["file"] == _FIXTURE and source_part in s["source"])["text"] \
        .splitlines()


def _findings(lines: list[str], c: Classifier | None = None) -> list:
    c = c or Classifier()
    return [f for f in (c.classify(line) for line in lines) if f is not None and f.severity in ("warning", "error")]


def test_an_empty_sd_card_lun_reads_no_filesystem_error():
    """Adafruit_TinyUSB_Arduino #455: "Add. Sense: Medium not present" before each "I/O error, dev sdd, sector 0"
    and "Buffer I/O error on dev sdd, logical block 0". Was: a filesystem_error (error)."""
    assert _findings(_sample("Adafruit_TinyUSB_Arduino/issues/455")) == []


def test_a_reader_with_a_card_it_cannot_read_reads_no_filesystem_error():
    """Dasharo/dasharo-issues #1100: "Add. Sense: Incompatible medium installed" (an SD card reader). Was: an error."""
    assert _findings(_sample("dasharo-issues/issues/1100")) == []


def test_a_data_disks_medium_error_stays_a_fault():
    """openebs/openebs #1433: a worker's data disk, "Sense Key : Medium Error": neither removable nor empty."""
    assert [f.kind for f in _findings(_sample("openebs/openebs/issues/1433"))] == ["filesystem_error"]


def test_a_quiet_device_quiets_no_other_disk():
    """An empty LUN's lines (sdd, #455) and then a data disk's medium error (sdb, openebs #1433) in one stream: the
    data disk's error is still a finding (two real sequences read one after the other)."""
    c = Classifier()
    assert _findings(_sample("Adafruit_TinyUSB_Arduino/issues/455"), c) == []
    assert [f.kind for f in _findings(_sample("openebs/openebs/issues/1433"), c)] == ["filesystem_error"]


def test_the_attach_line_says_removable_and_a_fixed_disk_is_forgotten():
    """sd's probe line, 2.6.2x+ (https://github.com/MichaelBell/spi-ram-emu/issues/2) and 2.6.early
    (https://blog.iandexter.net/2004/09/usb-flash-disk-mounting-problem.html): the device is quiet; a fixed disk's
    "Attached SCSI disk" (https://github.com/kubevirt/kubevirt/issues/9708) is not, and forgets a name reused."""
    c = Classifier()
    assert c.classify("[11495.574034] sd 2:0:0:0: [sdb] Attached SCSI removable disk") is None
    assert c.classify("Sep 12 23:11:16 haus-lnx kernel: Attached scsi removable disk sda at scsi2, channel 0, id 0, "
                      "lun 0") is None
    assert list(c._quiet) == ["sdb", "sda"]
    assert c.classify("[Sun May  7 10:22:35 2023] sd 6:0:0:0: [sda] Attached SCSI disk") is None
    assert list(c._quiet) == ["sdb"]


def test_a_partition_of_a_quiet_disk_is_quiet_and_another_disk_is_not():
    """The error names a partition of the quiet disk (sdd1): quiet; sdda, another disk whose name starts the same: not.
    (The #455 sense line, its device's I/O error line with the names changed: a check of the names, not a sample.)"""
    c = Classifier()
    c.classify("[7111710.007171] sd 2:0:0:1: [sdd] tag#0 Add. Sense: Medium not present")
    assert c.classify("[7111710.010125] Buffer I/O error on dev sdd1, logical block 0, async page read") is None
    assert c.classify("[7111710.010125] Buffer I/O error on dev sdda, logical block 0, async page read") is not None


def test_the_quiet_devices_are_bounded():
    """Hostile input naming ever new devices: the stream remembers MAX_QUIET_DEVICES, the oldest forgotten."""
    c = Classifier()
    names = [f"sd{a}{b}{d}" for a in "abcdefghij" for b in "abcdefghijklmnopqrstuvwxyz" for d in "abc"]
    for name in names[:MAX_QUIET_DEVICES + 20]:
        c.classify(f"sd 2:0:0:1: [{name}] tag#0 Add. Sense: Medium not present")
    assert len(c._quiet) == MAX_QUIET_DEVICES and names[0] not in c._quiet
    assert names[MAX_QUIET_DEVICES + 19] in c._quiet


def test_a_new_stream_starts_with_no_quiet_device():
    c = Classifier()
    c.classify("[7111710.007171] sd 2:0:0:1: [sdd] tag#0 Add. Sense: Medium not present")
    other = c.for_stream()
    assert other.classify("[7111710.007177] I/O error, dev sdd, sector 0 op 0x0:(READ) flags 0x0 phys_seg 1 prio "
                          "class 0") is not None
