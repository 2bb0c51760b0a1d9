"""The two-round fabric check, run through any test runner, and its report (no Kubernetes here).

`run_check` asks plan.py for round 1's groups (in the report's seed's order), hands them to `run_wave` in
waves (no node in two tests at once), gives round 1's results back to plan.py for round 2's tests, runs
those, re-tests once the failed tests whose nodes all passed elsewhere (round 3: a slow link, or a flake),
and lets plan.blame decide.
A test whose run produced no bandwidth (its Job failed, timed out, or printed nothing we can parse) counts
as 0 GB/s: a node that breaks or stalls collectives fails the check like a slow one.  A test that never ran
(a pod of it never scheduled: its node taken by another workload since it was listed idle) is no
measurement: its nodes are neither blamed nor cleared by it (inconclusive unless another test decides).  If
every test fails the same way (a wrong image, say), no node is known good and plan.py names nobody: inconclusive.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, TextIO

from . import plan
from .results import Bandwidth

Group = plan.Group

# exit codes of `gpu-npd fabric-check` (docs/checks.md "Fabric check")
EXIT_PASS, EXIT_BLAMED, EXIT_ERROR, EXIT_INCONCLUSIVE, EXIT_TOO_FEW, EXIT_LINK, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 5, 130


@dataclass(frozen=True)
class Outcome:
    """One test's result: its bandwidth, or None with why there is none.  A test that did not finish well
    (its Job failed or timed out) fails even when a rank printed a bandwidth before (kept for the report).
    One that never ran (`ran` False) is left out of the verdict."""
    bandwidth: Bandwidth | None
    detail: str = ""
    finished: bool = True
    ran: bool = True

    @property
    def busbw(self) -> float:
        return self.bandwidth.busbw if self.bandwidth is not None and self.finished else 0.0


@dataclass
class Report:
    nodes: list[str]
    size: int
    floor: float
    skipped: dict[str, str] = field(default_factory=dict)  # node -> why it was not tested (busy, not ready)
    tests: list[tuple[int, Group, Outcome]] = field(default_factory=list)  # (round, group, outcome)
    verdict: plan.Verdict | None = None
    stopped: str = ""  # why the run ended early: "interrupted", or the error's one line
    seed: int | None = None  # the order of round 1's groups (plan.order); None: sorted

    @property
    def exit_code(self) -> int:
        if self.stopped:
            return EXIT_INTERRUPTED if self.stopped == "interrupted" else EXIT_ERROR
        if self.verdict is None:
            return EXIT_TOO_FEW
        if self.verdict.blamed:
            return EXIT_BLAMED
        if self.verdict.inconclusive:
            return EXIT_INCONCLUSIVE
        return EXIT_LINK if self.verdict.links else EXIT_PASS

    def evidence(self, node: str) -> tuple[Group, Outcome] | None:
        """The failing test that names a blamed node (plan.py's evidence), with its outcome."""
        if self.verdict is None or node not in self.verdict.evidence:
            return None
        group = self.verdict.evidence[node][0]
        for _, g, out in reversed(self.tests):
            if g == group:
                return g, out
        return None

    def results(self, group: Group) -> list[tuple[int, Outcome]]:
        """Every run of one test: (round, outcome), in order."""
        return [(r, out) for r, g, out in self.tests if g == group]

    def best_pass(self, node: str) -> tuple[Group, Outcome] | None:
        passing = [(out.busbw, g, out) for _, g, out in self.tests if node in g and out.busbw >= self.floor]
        return max(passing, key=lambda t: t[0])[1:] if passing else None

    def to_json(self) -> dict:
        v = self.verdict
        return {"nodes": self.nodes, "group_size": self.size, "floor_gbps": self.floor, "seed": self.seed,
                "skipped": self.skipped,
                "tests": [{"round": r, "nodes": list(g), "busbw_gbps": o.bandwidth.busbw if o.bandwidth else None,
                           "tool": o.bandwidth.tool if o.bandwidth else None,
                           "size_bytes": o.bandwidth.size_bytes if o.bandwidth else None,
                           "wrong": o.bandwidth.wrong if o.bandwidth else None,
                           "passed": o.busbw >= self.floor, "ran": o.ran, "detail": o.detail}
                          for r, g, o in self.tests],
                "blamed": list(v.blamed) if v else [], "good": list(v.good) if v else [],
                "inconclusive": list(v.inconclusive) if v else [],
                "link_suspects": [list(g) for g in v.links] if v else [],
                "unconfirmed_links": [list(g) for g in v.unconfirmed] if v else [], "stopped": self.stopped,
                "exit_code": self.exit_code}


def run_check(nodes: list[str], size: int, floor: float,
              run_wave: Callable[[list[Group]], dict[Group, Outcome]], report: Report | None = None) -> Report:
    """All three rounds; `report` (when given, with its seed) is filled as tests finish, so an interrupted
    run still says what it measured."""
    rep = report or Report(sorted(nodes), size, floor)
    first = plan.round1(nodes, size, rep.seed)
    if not first:
        return rep
    r1 = _run(first, 1, run_wave, rep)
    second = plan.round2(r1, floor, size)
    r2 = _run(second, 2, run_wave, rep) if second else {}
    third = plan.round3(r1, r2, floor)
    r3 = _run(third, 3, run_wave, rep) if third else {}
    untested = {n for _, g, o in rep.tests if not o.ran for n in g}
    rep.verdict = plan.blame(r1, r2, floor, size, untested, r3)
    return rep


def _run(tests: list[Group], round_: int, run_wave: Callable[[list[Group]], dict[Group, Outcome]],
         rep: Report) -> dict[Group, float]:
    out: dict[Group, float] = {}
    for wave in plan.waves(tests):
        got = run_wave(wave)
        for g in wave:
            o = got.get(g) or Outcome(None, "no result")
            rep.tests.append((round_, g, o))
            if o.ran:
                out[g] = o.busbw
    return out


def write_table(rep: Report, out: TextIO) -> None:
    seed = f", seed {rep.seed}" if rep.seed is not None else ""
    out.write(f"fabric check: {len(rep.nodes)} node(s), groups of {rep.size}, floor {rep.floor:g} GB/s{seed}\n")
    for node, why in sorted(rep.skipped.items()):
        out.write(f"  skipped {node}: {why}\n")
    if rep.tests:
        out.write(f"\n{'ROUND':<6}{'RESULT':<8}{'BUSBW GB/s':>11}  NODES / DETAIL\n")
        for r, g, o in rep.tests:
            bw = f"{o.bandwidth.busbw:.2f}" if o.bandwidth else "-"
            verdict = "not run" if not o.ran else "pass" if o.busbw >= rep.floor else "FAIL"
            detail = f"  ({o.detail})" if o.detail else ""
            out.write(f"{r:<6}{verdict:<8}{bw:>11}  {','.join(g)}{detail}\n")
    v = rep.verdict
    out.write("\n")
    if v is None:
        out.write("not enough idle nodes to test\n" if not rep.stopped else "interrupted before a verdict\n"
                  if rep.stopped == "interrupted" else f"stopped before a verdict: {rep.stopped}\n")
        return
    for node in v.blamed:
        ev = rep.evidence(node)
        if ev is None:
            out.write(f"BLAMED        {node}\n")
            continue
        group, o = ev
        measured = _measured(o)
        peers = ",".join(n for n in group if n != node) or "itself"
        out.write(f"BLAMED        {node}: {measured} with {peers} (expected >= {rep.floor:g} GB/s)\n")
    for group in v.links:
        out.write(f"LINK SUSPECT  {link_summary(rep, group)}\n")
    for group in v.unconfirmed:
        out.write(f"unconfirmed   {link_summary(rep, group)}\n")
    if v.inconclusive:
        out.write(f"INCONCLUSIVE  {', '.join(v.inconclusive)}: failed, but could not be singled out\n")
    out.write(f"good          {', '.join(v.good) or '-'}\n")


def _measured(o: Outcome) -> str:
    """A test's bandwidth as the table says it, or why it has none."""
    return f"{o.busbw:.2f} GB/s" if o.finished and o.bandwidth else f"no result ({o.detail})"


def link_summary(rep: Report, group: Group) -> str:
    """`a<->b: 41.52 GB/s, re-test 40.10 GB/s (expected >= 60 GB/s); each node passed with other partners`."""
    runs = []
    for r, o in rep.results(group):
        got = _measured(o)
        runs.append(got if r < 3 else f"re-test {got}" if o.ran else "re-test not run")
    return (f"{'<->'.join(group)}: {', '.join(runs)} (expected >= {rep.floor:g} GB/s); "
            f"each node passed with other partners")


def write_json(rep: Report, out: TextIO) -> None:
    out.write(json.dumps(rep.to_json(), indent=2) + "\n")
