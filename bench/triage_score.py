"""Score `gpu-npd triage` on the real incidents in tests/fixtures/incidents: each incident's logs/ through the real
command (`--format json`), its first incident compared with the incident's expected.json.

An incident is right when its category is the expected one and, where the source establishes them, its root rank
and host are too (`null` in expected.json: the source does not say, so any answer is accepted there).  The expected
category is what the incident's lines establish; `source_category`, where present, is the source's own cause, which
rests on something no copied line shows (printed beside it, never scored).

    .venv/bin/python bench/triage_score.py            # table and score; exit 1 below the 90% target
    .venv/bin/python bench/triage_score.py --subprocess   # each incident through the installed console script
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# run as a script, bench/ comes first on sys.path and its agent.py would shadow the agent package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
INCIDENTS = HERE.parent / "tests" / "fixtures" / "incidents"
TARGET = 0.90


def incidents() -> list[Path]:
    return sorted(p for p in INCIDENTS.iterdir() if (p / "expected.json").is_file())


def expected(incident: Path) -> dict:
    return json.loads((incident / "expected.json").read_text())


def judge(want: dict, doc: dict) -> tuple[bool, str]:
    """(right, what the command said) for one incident's JSON document.  `"category": null` expects no failure: a job
    that stated its success and printed errors only while tearing down (the teardown lines said, no incident)."""
    if not doc.get("incidents"):
        said = f"no incident ({len(doc.get('teardown', []))} teardown line(s))"
        return want["category"] is None, said
    if want["category"] is None:
        first = doc["incidents"][0]
        return False, f"{first['category']} ({first['rule']}): a failure where none is expected"
    first = doc["incidents"][0]
    root = first["root"]
    said = f"{first['category']} rank={root['rank']} host={root['host']} ({first['rule']})"
    right = first["category"] == want["category"]
    for key in ("rank", "host"):
        if want.get(key) is not None and root.get(key) != want[key]:
            right = False
    return right, said


def run_in_process(incident: Path) -> dict:
    from click.testing import CliRunner

    from gpunpd.cli import main

    result = CliRunner().invoke(main, ["triage", "--format", "json", str(incident / "logs")])
    return json.loads(result.stdout)


def run_subprocess(incident: Path) -> dict:
    exe = Path(sys.executable).with_name("gpu-npd")
    out = subprocess.run([str(exe), "triage", "--format", "json", str(incident / "logs")], capture_output=True,
                         text=True, check=False)
    return json.loads(out.stdout)


def score(run=run_in_process) -> tuple[float, list[tuple[str, bool, str, dict]]]:
    rows = []
    for incident in incidents():
        want = expected(incident)
        right, said = judge(want, run(incident))
        rows.append((incident.name, right, said, want))
    return (sum(r[1] for r in rows) / len(rows) if rows else 0.0), rows


def main() -> int:
    value, rows = score(run_subprocess if "--subprocess" in sys.argv else run_in_process)
    for name, right, said, want in rows:
        source = f" (source: {want['source_category']})" if want.get("source_category") else ""
        print(f"{'ok ' if right else 'BAD'} {name:32} expected {str(want['category']):14} rank={want.get('rank')} "
              f"host={want.get('host')}{source}  got {said}")
    cats = sorted({str(w['category']) for _, _, _, w in rows})
    print(f"\n{sum(r[1] for r in rows)}/{len(rows)} right ({value:.0%}); categories covered: {', '.join(cats)}")
    return 0 if value >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
