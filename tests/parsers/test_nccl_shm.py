"""NCCL's shared-memory transport unable to size its segment in /dev/shm for want of space (parsers/rules.py
nccl_shm_full, nccl_shm_create_failed), in every era's words: one finding per failure of the kind shm_full, an
error, the pod's /dev/shm (attribution application: no device of the node; action CHECK_APP; a job's root of it
infrastructure, parsers/kinds.py, the one reading triage takes too); the segment's line after it part of the same
failure.
Lines marked REAL are copied verbatim from the public source beside them (tests/fixtures/realworld/
jobs-nccl-shm-2026.yaml holds them in context)."""

from __future__ import annotations

import pytest

from parsers import Classifier

# REAL: https://github.com/NVIDIA/nccl/issues/290 (2.5-2.11: SYSCHECK of posix_fallocate)
FALLOCATE = "gpu2-ru7:2143:2561 [1] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device"
# REAL: https://github.com/NVIDIA/nccl/issues/342 (2.7.3 in Docker: no space before the colon)
FALLOCATE_27 = "include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device"
# REAL: https://github.com/NVIDIA/nccl/issues/525 (2.9.6 under Kubeflow, the segment's line after it)
CREATE_29 = ("[3] include/shm.h:48 NCCL WARN Error while creating shared memory segment "
             "nccl-shm-recv-1462445a6f01cbfc-1-2-3 (size 9637888)")
# REAL: https://github.com/kserve/kserve/issues/3791 (2.12-2.18: no errno)
EXTEND_212 = ("hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] misc/shmutils.cc:72 NCCL WARN Error: "
              "failed to extend /dev/shm/nccl-H1dBqY to 9637892 bytes")
CREATE_212 = ("hugging-model-1-predictor-00001-deployment-5c86c57756-p7ghj:1:1 [0] misc/shmutils.cc:113 NCCL WARN Error "
              "while creating shared memory segment /dev/shm/nccl-H1dBqY (size 9637888)")
# REAL: https://github.com/pytorch/ci-infra/pull/490 (2.19+: the errno on both lines)
EXTEND_219 = ("[2026-04-22 21:34:20] mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:202235 [0] "
              "misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/nccl-WU88OE to 9637892 bytes, error: No "
              "space left on device (28)")
CREATE_219 = ("[2026-04-22 21:34:20] mt-l-x86iavx512-45-172-t4-4-csmpw-runner-g4sfw-workflow:202016:202235 [0] "
              "misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/nccl-WU88OE (size "
              "9637888), error: No space left on device (28)")
# REAL: https://github.com/NVIDIA/nccl/issues/2190 (attaching to another rank's segment: not this)
ATTACH = ("[2026-05-22 10:26:17] d4fde3314201:13740:13740 [7] misc/shmutils.cc:132 NCCL WARN Error while attaching to "
          "shared memory segment /dev/shm/nccl- (size 0), error: No such file or directory (2)")


@pytest.mark.parametrize("line", [FALLOCATE, FALLOCATE_27, EXTEND_212, EXTEND_219, CREATE_219])
def test_no_space_in_dev_shm_is_the_pods_dev_shm_in_every_era(line):
    f = Classifier().classify(line)
    assert (f.kind, f.severity, f.attribution, f.action) == ("shm_full", "error", "application", "CHECK_APP")
    # was: nccl_error (application; 2.7's wording a warning, unknown), which triage read as infrastructure offline
    # only: the agent's Event said NCCLError and the cluster the application


def test_the_kind_row_is_the_one_reading_of_it():
    """The kind's row declares what the failure is for every reader: triage's category and name of a job's root of it
    (and of a storage error on /dev/shm triage's own rows read), the agent's Pod Event and its advice."""
    from agent.workloads import event_reason
    from parsers.correlate import explain
    from parsers.kinds import BY_NAME
    from triage.attribute import SHM_STORAGE, category_of
    from triage.model import Evidence

    row = BY_NAME["shm_full"]
    assert (row.category, row.wording, row.reason) == ("infrastructure", "/dev/shm too small or full",
                                                       "SharedMemoryFull")
    f = Classifier().classify(EXTEND_219)
    assert event_reason(f) == "SharedMemoryFull"
    said = explain(f, None)
    assert said.startswith("/dev/shm too small or full: ") and "emptyDir with medium Memory" in said
    assert category_of(Evidence.from_finding(f)) == "infrastructure"
    quoted = Evidence(kind="storage_error", severity="error", text=CREATE_212.split("NCCL WARN ", 1)[1],
                      details={"fact": "nccl_shm_create"})
    assert category_of(quoted) == "infrastructure" and SHM_STORAGE == row.wording


@pytest.mark.parametrize("cause, segment", [(FALLOCATE, CREATE_29), (EXTEND_212, CREATE_212), (EXTEND_219, CREATE_219)])
def test_the_segments_line_after_it_is_the_same_failure(cause, segment):
    c = Classifier()
    first, _ = c.read(cause)
    blank, _ = c.read("")
    second, _ = c.read(segment)
    assert first.kind == "shm_full" and first.severity == "error" and blank is None and second is None


@pytest.mark.parametrize("line", [CREATE_29, CREATE_212, ATTACH])
def test_a_segment_line_naming_no_lack_of_space_alone_stays_nccls_warning(line):
    f = Classifier().classify(line)
    assert (f.kind, f.severity, f.attribution) == ("nccl_error", "warning", "unknown")
