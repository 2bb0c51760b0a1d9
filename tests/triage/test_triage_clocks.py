"""Evidence whose clocks differ in kind, as an SRE pastes it: a component's log with absolute stamps beside kubectl's
output, whose Event rows carry only relative ages (`kubectl get events`' LAST SEEN `4m49s`, `kubectl describe`'s)
and no time the output was taken.

Every line read here is verbatim from a public source (tests/fixtures/pods/ended/README.md and
tests/fixtures/progress/sources.md name each)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from click.testing import CliRunner

from gpunpd.cli import main
from triage import Clock, app_stamp, attribute, read_lines

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ENDED = FIXTURES / "pods" / "ended"
NTH = ENDED / "nth-spot-itn.txt"  # aws/aws-node-termination-handler #701
IMAGE_PULL = ENDED / "events-image-pull.txt"  # oracle/weblogic-kubernetes-operator domain-events.md (kubectl get events)
EVICTED = ENDED / "describe-evicted.txt"  # kubernetes/kubernetes #122932 (kubectl describe pod)


def _first_line(path: Path) -> str:
    return path.read_text().splitlines()[0]


def test_a_date_written_with_slashes_is_a_stamp():
    """Go's log package and zerolog's console writer ("2022/10/07 04:14:38 INF", aws-node-termination-handler #701)
    and MMEngine's logger ("2024/01/24 02:50:32 - mmengine - INFO", AILab-CVC/YOLO-World #165) date their lines with
    slashes.  Was: no stamp, the spot notice unplaced.  A date mixing the two separators is none."""
    assert app_stamp(_first_line(NTH)) == (datetime(2022, 10, 7, 4, 14, 38), False)
    mmengine = FIXTURES / "progress" / "mmengine_yoloworld_165.log"
    assert app_stamp(_first_line(mmengine)) == (datetime(2024, 1, 24, 2, 50, 32), False)
    assert app_stamp("2022/10-07 04:14:38 INF") == (None, False)


def test_the_spot_notice_read_beside_kubectl_output_keeps_its_time():
    clock = Clock()
    [notice] = [e for e in read_lines(NTH.read_text().splitlines(True), str(NTH), clock) if e.kind == "job_ended"]
    assert notice.time == datetime(2022, 10, 7, 4, 14, 38, tzinfo=timezone.utc)


def _triage(*paths: Path, fmt: str = "json"):
    result = CliRunner().invoke(main, ["triage", "--format", fmt, *map(str, paths)])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_stamped_spot_notice_beside_relative_age_events_shows_both():
    """h363's case: NTH's stamped spot notice next to `kubectl get events` rows of an image pull (ages only).  Was: the
    notice had no time, the files were ordered by name, the image pull was the "first" failure and the spot notice was
    in no incident (counted among the evidence lines, shown nowhere).  Now the notice is placed (its stamp) and the
    root, and the image pull rows, which no clock places before or after it, are said in the reason and kept among the
    evidence with no time: nothing dropped, the uncertainty said."""
    document = json.loads(_triage(IMAGE_PULL, NTH))
    [incident] = document["incidents"]
    assert incident["category"] == "infrastructure"
    assert incident["root"]["host"] == "ip-10-128-37-128.ec2.internal"
    assert incident["time"].startswith("2022-10-07T04:14:38")
    shown = {(Path(e["file"]).name, e["line"], e["time"] is None) for e in incident["evidence"]}
    assert shown == {("nth-spot-itn.txt", 1, False), ("events-image-pull.txt", 2, True),
                     ("events-image-pull.txt", 6, True)}
    assert "2 other failure(s) with no wall-clock time, in another file, could not be placed before or after it" in \
        incident["reason"]
    # each named after the colon by its file as the reasons name files, none inside a bracket of the sentence's (was:
    # ".. it (pod X never started (ErrImagePull: ..) (<path>/events-image-pull.txt:2); ..): they may have come first")
    assert incident["reason"].endswith(
        "could not be placed before or after it and may have come first: pod sample-domain1-introspector-jlxsj never "
        "started (ErrImagePull: the kubelet could not pull its container image) in events-image-pull.txt:2; pod "
        "sample-domain1-introspector-jlxsj never started (ImagePullBackOff: the kubelet could not pull its container "
        "image) in events-image-pull.txt:6"), incident["reason"]
    # the text report shows them too, their time "--"
    text = _triage(IMAGE_PULL, NTH, fmt="text")
    assert "--  " + f"{IMAGE_PULL}:2" in text and "--  " + f"{IMAGE_PULL}:6" in text


def test_in_either_order_of_the_inputs():
    assert json.loads(_triage(NTH, IMAGE_PULL))["incidents"] == json.loads(_triage(IMAGE_PULL, NTH))["incidents"]


def test_no_stamps_at_all_every_files_failure_is_still_shown():
    """`kubectl describe pod` of an evicted pod (no time of its own: the reason's line) beside the image pull's Event
    rows: neither placed, the first by the files' order is the root, and the other file's failure is said and shown
    rather than dropped."""
    [incident] = attribute(e for p in (EVICTED, IMAGE_PULL)
                           for e in read_lines(p.read_text().splitlines(True), str(p), Clock()))
    files = {Path(e.file).name for e in incident.evidence}
    assert files == {"describe-evicted.txt", "events-image-pull.txt"}
    assert "no time stamps" in incident.reason and "could not be placed before or after it" in incident.reason


def test_a_timed_root_alone_says_nothing_of_unplaced_failures():
    [incident] = attribute(read_lines(NTH.read_text().splitlines(True), str(NTH), Clock()))
    assert "could not be placed" not in incident.reason and len(incident.evidence) == 1


def test_a_line_without_a_stamp_after_a_year_less_one_gets_the_jobs_year():
    """A line with no stamp takes its writer's last one; where that one printed no year (torchrun's glog-style
    `E0401 00:26:08.212000`), the line is year-less too, given the job's year by Clock.align.  Was: the placeholder
    1900 kept, so torchrun's ChildFailedError after it (its traceback has no stamp) came 125 years before the job's
    first line.  The lines: tests/fixtures/incidents/torchtitan-aicrosssim-abort-after-success (AICrossSim/
    NewComputeBench's pretraining tutorial)."""
    path = FIXTURES / "incidents" / "torchtitan-aicrosssim-abort-after-success" / "logs" / "train.log"
    clock = Clock()
    with path.open() as fp:
        evidence = clock.align(list(read_lines(fp, str(path), clock)))
    raised = [e for e in evidence if e.kind == "exception"]
    assert [(e.line, e.details["exception"]) for e in raised] == [
        (33, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError")]
    assert raised[0].time == datetime(2025, 4, 1, 0, 26, 8, 212000, tzinfo=timezone.utc)
