"""Failures naming no rank (a launcher's, Slurm's, an unranked process's line) are counted in the incident's
consequences and listed with its evidence, by where each came from (h678; was: dropped from the sentence, those of
no consequence kind from the evidence too), never a twin of a line the sentence or the verdict already says (the same
report on the same host, the same words there, the same process). REAL lines are the incidents' (tests/fixtures/
incidents/<name>/source.md says each one's address); SYNTHETIC jobs say so."""

from __future__ import annotations

from pathlib import Path

from triage import Clock, attribute, read_lines

INCIDENTS = Path(__file__).resolve().parents[1] / "fixtures" / "incidents"


def _incident(name: str):
    logs = INCIDENTS / name / "logs"
    evidence = [e for path in sorted(logs.iterdir())
                for e in read_lines(path.read_text().splitlines(), f"{name}/{path.name}", Clock())]
    return attribute(evidence)[0]


def _job(*files: tuple[str, list[str]]):
    return attribute([e for name, lines in files for e in read_lines(lines, name, Clock())])[0]


def test_slurms_cancel_beside_a_ranks_exit_is_said():
    """REAL jiabowang/GAPIT #207: task 1 exited first, task 0 killed; slurmstepd's "*** STEP 1544235.0 ON cnode1995
    CANCELLED AT ... ***" names no rank (was: "rank 0 exited after it" alone, the cancel nowhere)."""
    incident = _incident("gapit-207-srun-wait")
    assert incident.consequences == ("rank 0 exited after it; 1 line(s) naming no rank (job ended (cancelled) on "
                                     "cnode1995)")
    assert any("CANCELLED AT 2025-07-10T15:58:32" in e.text for e in incident.evidence)


def test_a_launchers_lines_are_said_where_no_rank_is():
    """REAL desispec #2744: Slurm's "DUE TO TASK FAILURE" beside srun's "tasks 0-57,59-63: Terminated" (the verdict's
    line); REAL pytorch #116974: the elastic agents' SIGTERMs and the rendezvous closed (was: "no other rank reported a
    failure", "rank 2 exited after it")."""
    assert _incident("desispec-2744-task-failure").consequences == \
        "1 line(s) naming no rank (job ended (TASK FAILURE) on nid002888)"
    said = _incident("h560_pytorch-116974-rendezvous-closed").consequences
    assert said.startswith("rank 2 exited after it; 5 line(s) naming no rank (job ended (cancelled) on cdr2596; "
                           "agent signal on ")


def test_the_roots_own_words_again_are_no_other_failure():
    """REAL NVIDIA/nccl #342: NCCL's "Error while creating shared memory segment" after its "posix_fallocate failed:
    No space left on device" is the same /dev/shm failure (the same words, the same file): not counted."""
    assert _incident("nccl-342-shm").consequences == "no other rank reported a failure"


SGLANG = "RuntimeError: CUDA error: an illegal memory access was encountered"  # REAL: sgl-project/sglang #3713


def test_a_ranked_lines_twin_is_not_counted_apart():
    """SYNTHETIC job of the REAL line (stamped): rank 1's CUDA error, the same line without its prefix on its host (its
    twin: not counted) and on another host (counted, by its host)."""
    ranked = [f"[2025-02-21 22:59:28] [rank1]: {SGLANG}", f"[2025-02-21 22:59:28] {SGLANG}"]
    incident = _job(("node1/train.log", ranked))
    assert incident.consequences == "no other rank reported a failure"
    incident = _job(("node1/train.log", ranked), ("node2/train.log", [f"[2025-02-21 22:59:29] {SGLANG}"]))
    assert incident.consequences.endswith("1 line(s) naming no rank (CUDA error 'an illegal memory access was "
                                          "encountered' on node2)")
