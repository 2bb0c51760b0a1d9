"""The documentation: the site builds strictly (a broken link, a missing page or a failing generator fails the
suite), README.md stays a short front page whose links resolve, and the contract it states matches the code."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
README_MAX_BYTES = 12 * 1024


def _flat(name: str) -> str:
    """A page of docs/ as one line (its words wrapped anywhere)."""
    return " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())


def _hook():
    spec = importlib.util.spec_from_file_location("docs_reference_hook", ROOT / "docs" / "hooks" / "reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_site_builds_strictly(tmp_path):
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-4000:]
    for page in ("reference/configuration", "reference/kinds", "reference/rules", "reference/xid", "reference/metrics",
                 "reference/modules"):
        assert (tmp_path / "site" / page / "index.html").is_file(), page


def test_the_pages_are_generated_from_the_tree_beside_them(monkeypatch):
    """MkDocs restores sys.path after it imports the hook; the `mkdocs` script run in a copy of the tree would
    otherwise generate the reference from whatever tree the venv's editable install points at."""
    from mkdocs.config import load_config  # noqa: PLC0415

    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(ROOT))])
    config = load_config(str(ROOT / "mkdocs.yml"))
    config.plugins.on_config(config)
    assert sys.path[0] == str(ROOT)


def test_the_kinds_page_shows_every_field_of_a_kind_row():
    """A field of the kind table the other columns do not show is in the row's roles: set on a row, it changes them."""
    import dataclasses  # noqa: PLC0415

    from parsers.kinds import TABLE, Kind  # noqa: PLC0415

    columns = {"name", "wording", "device", "severity", "attribution", "action", "reason", "raises", "workload", "doc",
               "repeated"}
    hook = _hook()
    unshown = set()
    for f in dataclasses.fields(Kind):
        if f.name in columns:
            continue
        for k in TABLE:
            if getattr(k, f.name) and hook._roles(k) == hook._roles(dataclasses.replace(k, **{f.name: f.default})):
                unshown.add(f.name)
    assert not unshown, f"fields of parsers/kinds.py Kind the kinds reference does not show: {sorted(unshown)}"


def test_the_new_kind_steps_name_every_triage_field_of_a_kind_row():
    """docs/extending-tables.md's new kind step says what each field triage reads of the row means: the fields the kind
    table shares with triage's own (triage/facts.py JobKind). Was: `hang`, `timed_out` and `named` (and `generic`,
    the kind table's alone) unnamed there, though the triage sets they replaced are derived from them."""
    import dataclasses  # noqa: PLC0415

    from parsers.kinds import Kind  # noqa: PLC0415
    from triage.facts import JobKind  # noqa: PLC0415

    fields = {f.name for f in dataclasses.fields(Kind)}
    shared = {f.name for f in dataclasses.fields(JobKind)} & fields
    # and the kind table's alone that triage derives a set of kinds from (`for k in KIND_TABLE if k.slows`): `generic`,
    # `slows`, `reports_node_fault` (was: the last two unnamed)
    source = "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "triage").glob("*.py")))
    derived = {m for line in re.findall(r"for k in (?:KIND_TABLE|_ROWS)\b[^\n]*", source)
               for m in re.findall(r"\bk\.(\w+)", line)} & fields
    assert {"generic", "slows", "reports_node_fault"} <= derived
    triage_fields = (shared | derived) - {"name", "doc"}
    text = _flat("extending-tables.md")
    unnamed = sorted(f for f in triage_fields if f"`{f}`" not in text and f"`{f}=" not in text)
    assert not unnamed, f"kind row fields triage reads that docs/extending-tables.md does not name: {unnamed}"


def test_readme_is_at_most_12_kib():
    size = README.stat().st_size
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes; move detail into docs/ (limit {README_MAX_BYTES})"


def test_readme_relative_links_resolve():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    broken = [link for link in links
              if not re.match(r"^[a-z]+:", link) and not link.startswith("#")
              and not (ROOT / link.split("#", 1)[0]).exists()]
    assert not broken, f"README.md links to missing files: {broken}"


def _cluster_families() -> set[str]:
    """What `gpu-npd cluster` exports (its own registry)."""
    from cluster.metrics import Metrics  # noqa: PLC0415

    return {f.name + ("_total" if f.type == "counter" else "") for f in Metrics().registry.collect()}


def test_metrics_named_in_readme_and_docs_exist():
    exported = {name for name, *_ in _hook().metric_families()} | _cluster_families()
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        named = set(re.findall(r"\bgpu_npd_[a-z0-9_]+", page.read_text(encoding="utf-8")))
        assert not named - exported, f"{page.name} names metrics neither the agent nor the cluster component exports: {sorted(named - exported)}"


def test_the_concepts_conditions_table_names_every_condition_a_kind_raises():
    from parsers import kinds

    table = (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8").split("## Node conditions", 1)[1]
    listed = set(re.findall(r"^\| `(\w+)` \|", table.split("\n\n", 3)[2], re.M))
    raised = {r.condition for k in kinds.TABLE for r in k.raises}
    assert not raised - listed, f"docs/concepts.md's table lacks {sorted(raised - listed)}"


def test_readme_conditions_are_the_configured_ones():
    text = README.read_text(encoding="utf-8")
    table = text.split("Node conditions", 1)[1].split("\n\n", 2)[1]
    listed = re.findall(r"^\| `(\w+)` \|", table, re.M)
    healthy = dict(re.findall(r"^\| `(\w+)` \|.*\| `(\w+)` \|$", table, re.M))
    from agent.settings import defaults

    conditions = defaults()["conditions"]
    assert listed == list(conditions)
    assert healthy == {name: spec["ok_reason"] for name, spec in conditions.items()}


def test_the_listener_figures_the_docs_give_are_the_code():
    from agent import httpserver as h  # noqa: PLC0415

    conf, security = _flat("configuration.md"), _flat("security.md")
    assert f"at most {h.MAX_CONNECTIONS} held, each at most {h.IDLE_SECONDS:g} s" in conf
    assert f"head of at most {h.MAX_HEAD >> 10} KiB" in conf
    assert "one worker renders `/metrics`" in conf and h.WORKERS == 1
    assert f"closed after {h.IO_SECONDS:g} s" in conf
    assert f"({h.SEND_BUFFER >> 10} KiB kernel buffer each, closed after {h.IO_SECONDS:g} s unread)" in security
    assert f"at most {h.MAX_CONNECTIONS} connections are held" in security


_TOP = "agent|bench|cluster|deploy|fabric|gpunpd|kubeapi|offline|parsers|tests|tests_image|triage"
_NAMED_FILE = re.compile(rf"\b((?:{_TOP})/[\w./-]+\.(?:py|yaml|proto))((?:`?, `?::\w+|::\w+)*)")


def test_files_and_tests_the_docs_name_exist():
    """A page that points at a file or a test (`tests/test_x.py::test_y`, as the evidence of a claim) points at
    one that is there (the CHANGELOG may name what is gone)."""
    missing = []
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for path, tests in _NAMED_FILE.findall(page.read_text(encoding="utf-8")):
            if not (ROOT / path).exists():
                missing.append(f"{page.name}: {path}")
                continue
            missing += [f"{page.name}: {path}::{t}" for t in re.findall(r"::(\w+)", tests)
                        if f"def {t}(" not in (ROOT / path).read_text(encoding="utf-8")]
    assert not missing, missing


def test_missing_nav_pages_are_dropped():
    hook = _hook()
    nav = [{"Home": "index.md"}, {"Later": "not-yet.md"}, {"Section": [{"Gone": "gone.md"}]},
           {"Site": "https://example.org/x.md"}]
    assert hook._prune(nav, lambda p: p == "index.md") == [{"Home": "index.md"}, {"Site": "https://example.org/x.md"}]


def test_pages_the_nav_does_not_name_are_listed_under_more(tmp_path):
    hook = _hook()
    (tmp_path / "hooks").mkdir()
    (tmp_path / "hooks" / "x.md").write_text("# not a page\n")
    (tmp_path / "index.md").write_text("# Home\n")
    (tmp_path / "triage.md").write_text("intro\n# Triage of a job\n")
    assert hook._unlisted(tmp_path, [{"Home": "index.md"}]) == [{"Triage of a job": "triage.md"}]


def test_readme_names_every_pod_event_reason():
    from agent.workloads import EVENT_REASONS
    from parsers.kinds import CUDA_REASONS
    from triage.facts import LIVE_REASONS

    text = README.read_text(encoding="utf-8")
    missing = {r for r in [*EVENT_REASONS.values(), *CUDA_REASONS.values(), *LIVE_REASONS] if f"`{r}`" not in text}
    assert not missing, f"README.md's Events table lacks {sorted(missing)}"
    workloads = (ROOT / "docs" / "workloads.md").read_text(encoding="utf-8")
    missing = {r for r in LIVE_REASONS if f"`{r}`" not in workloads}
    assert not missing, f"docs/workloads.md's Pod Event reasons lack {sorted(missing)}"
    # and where the cluster component says which job facts it reads back: its page and its module's own list
    import cluster.evidence

    cluster_md = (ROOT / "docs" / "cluster.md").read_text(encoding="utf-8")
    missing = {r for r in LIVE_REASONS if f"`{r}`" not in cluster_md}
    assert not missing, f"docs/cluster.md's job fact Pod Events lack {sorted(missing)}"
    said = re.search(r"Job fact Pod Events \(([^;]*);", cluster.evidence.__doc__).group(1)
    assert set(re.split(r",\s+", said)) == set(LIVE_REASONS), f"cluster/evidence.py's docstring lists {said}"


def _called(call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)


def _event_calls(functions: list, model) -> dict[str, int]:
    """Where the code writes an Event: the call, and which positional argument is its reason.  Derived, not kept by
    hand (a writer missing from a hand-kept map had its reasons skipped unsaid): the recorder's `record`
    (kubeapi/events.py), then to a fixed point every function that hands a reason parameter of its own on to one
    of these, and every class of parsers/model.py whose objects a loop hands on by their `.reason` (a Snapshot's
    `pod_events` are PodEvents: its reason is its field of that name)."""
    classes = {n.name: [s.target.id for s in n.body if isinstance(s, ast.AnnAssign)]
               for n in ast.walk(model) if isinstance(n, ast.ClassDef)}
    items = {}  # a field of model.py -> the class of its items (list[X], tuple[X, ...])
    for n in ast.walk(model):
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and isinstance(n.annotation, ast.Subscript):
            inner = n.annotation.slice
            inner = inner.elts[0] if isinstance(inner, ast.Tuple) else inner
            if isinstance(inner, ast.Name) and inner.id in classes:
                items[n.target.id] = inner.id
    read = []  # each function's parameters, loops and calls, walked once (not again each round to the fixed point)
    for fn in functions:
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        params = params[1:] if params[:1] in (["self"], ["cls"]) else params
        loops = {f.target.id: f.iter.attr for f in ast.walk(fn) if isinstance(f, ast.For)
                 and isinstance(f.target, ast.Name) and isinstance(f.iter, ast.Attribute)}
        read.append((fn, params, loops, [c for c in ast.walk(fn) if isinstance(c, ast.Call)]))
    calls, grown = {"record": 1}, True
    while grown:
        grown = False
        for fn, params, loops, fn_calls in read:
            for call in fn_calls:
                at = calls.get(_called(call))
                arg = call.args[at] if at is not None and len(call.args) > at else None
                if isinstance(arg, ast.Name) and arg.id in params and fn.name not in calls:
                    calls[fn.name], grown = params.index(arg.id), True
                elif isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
                    carrier = items.get(loops.get(arg.value.id))
                    if carrier is not None and carrier not in calls and arg.attr in classes[carrier]:
                        calls[carrier], grown = classes[carrier].index(arg.attr), True
    return calls


def _event_code() -> tuple[dict, dict, ast.Module]:
    """The code that writes Events, parsed: (path -> tree, path -> its functions, the tree of parsers/model.py).  Not
    kept between tests: the trees held for the session made every later full collection walk them (the modules
    page's test took twice its CPU after them)."""
    paths = sorted(p for pkg in ("agent", "cluster", "fabric", "kubeapi") for p in (ROOT / pkg).rglob("*.py"))
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in paths}
    functions = {path: [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                 for path, tree in trees.items()}
    return trees, functions, ast.parse((ROOT / "parsers" / "model.py").read_text(encoding="utf-8"))


def _event_reasons_written() -> dict[str, str]:
    """reason -> where: each Event reason the agent, the cluster component and the fabric check write as a string
    of their own (at the call, a module constant, or a string the calling function assigns to the name it passes).
    A reason handed in from a table (problems, kinds, job facts) is the table's, checked against it above."""
    found: dict[str, str] = {}
    trees, functions, model = _event_code()
    event_calls = _event_calls([fn for fns in functions.values() for fn in fns], model)
    for path, tree in trees.items():
        consts = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                  and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                  for t in n.targets if isinstance(t, ast.Name)}
        for fn in functions[path]:
            for call in (c for c in ast.walk(fn) if isinstance(c, ast.Call)):
                name = _called(call)
                at = event_calls.get(name)
                if at is None or len(call.args) <= at or (name == "warn" and not isinstance(call.func.value, ast.Name)):
                    continue
                if name == "write_result" and isinstance(call.args[1], ast.Constant) and not call.args[1].value:
                    continue  # a passed node: its condition's reason, no Event (fabric/kube.py)
                arg = call.args[at]
                if isinstance(arg, ast.Constant):
                    said = [arg.value]
                elif isinstance(arg, ast.Name) and arg.id in consts:
                    said = [consts[arg.id]]
                elif isinstance(arg, ast.Name):
                    said = [n.value.value for n in ast.walk(fn) if isinstance(n, ast.Assign)
                            and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)
                            and any(getattr(t, "id", None) == arg.id for t in n.targets)]
                else:
                    said = []
                found.update((reason, f"{path.relative_to(ROOT)}:{call.lineno}") for reason in said)
    return found


def test_the_event_writers_are_found_in_the_code_a_new_wrapper_too():
    """The writers `_event_reasons_written` follows are derived: today's (once a hand-kept map), and a function
    added later that hands its reason on to one, which a hand-kept map skipped unsaid."""
    _, by_path, model = _event_code()
    functions = [fn for fns in by_path.values() for fn in fns]
    calls = _event_calls(functions, model)
    assert {"record": 1, "_event": 0, "_announce": 3, "warn": 1, "write_result": 2, "PodEvent": 1}.items() \
        <= calls.items()
    added = ast.parse("class Fencer:\n"
                      "    def _say(self, node, why, text):\n        self.events.record(node, why, text)\n"
                      "    def _tell(self, why):\n        self._say(self.node, why, 'x')\n")
    calls = _event_calls([*functions, *(n for n in ast.walk(added) if isinstance(n, ast.FunctionDef))], model)
    assert calls["_say"] == 1 and calls["_tell"] == 0


def test_readme_names_every_event_reason_the_code_writes():
    # the Events table of README.md: every reason written as a string of the code's own (the cluster
    # component's `JobIncident` and `CascadingRecovery` were missing), the daemon pods' (kinds with a
    # `daemon_pod`) and the stragglers'
    from agent.peers import REASON as STRAGGLER
    from parsers.kinds import TABLE

    written = _event_reasons_written()
    assert {"FabricLinkSuspect", "WorkloadHangSuspected", "JobIncident", "TaintHeldByBudget"} <= set(written)
    assert "FabricCheckPassed" not in written  # a condition's reason only
    written |= {k.reason: "parsers/kinds.py" for k in TABLE if k.daemon_pod} | {STRAGGLER: "agent/peers.py"}
    text = README.read_text(encoding="utf-8").split("\nEvents:\n", 1)[1].split("\n\n", 1)[0]
    missing = {r: at for r, at in written.items() if f"`{r}`" not in text}
    assert not missing, f"README.md's Events table lacks {missing}"


def test_make_run_writes_to_no_cluster_unless_asked():
    """README's quick start: `make run` leaves a kubeconfig on the machine alone (mode off) until MODE= says."""
    def dry(*args):
        out = subprocess.run(["make", "--no-print-directory", "-n", "run", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.splitlines()[-1]
    assert dry().startswith("GPU_NPD_MODE=off ") and " run --state-dir .state " in dry()
    assert dry("MODE=observe").startswith("GPU_NPD_MODE=observe ")
    # and the README's example of writing to a cluster names its kubeconfig: the agent reads none implicitly
    assert "`make run MODE=observe\nARGS=--kubeconfig=$HOME/.kube/config`" in README.read_text()


def test_the_docs_command_examples_print_what_the_tool_prints(monkeypatch):
    # a block opening with `$ gpu-npd parse|triage ...` shows that command's output verbatim
    import shlex

    from click.testing import CliRunner

    from gpunpd.cli import main

    monkeypatch.chdir(ROOT)
    blocks = [(page.name, m.group(1), m.group(2)) for page in sorted((ROOT / "docs").glob("*.md"))
              for m in re.finditer(r"^```\n\$ gpu-npd ((?:parse|triage) [^\n]*)\n(.*?)^```", page.read_text(),
                                   re.M | re.S)]
    assert {name for name, _, _ in blocks} >= {"triage.md", "detection.md"}
    for name, command, shown in blocks:
        args = shlex.split(command)
        if args[0] == "parse":
            args[1:1] = ["--nvml", "off"]  # the same output on a GPU node
        result = CliRunner().invoke(main, args)
        assert result.stdout == shown, f"{name}: `gpu-npd {command}` now prints:\n{result.stdout}"


def test_the_json_log_keys_the_docs_give_are_the_code():
    import logging

    from agent.logs import JsonFormatter

    line = JsonFormatter().format(logging.LogRecord("gpu_npd", logging.INFO, __file__, 1, "hi", None, None))
    keys = list(__import__("json").loads(line))
    text = _flat("configuration.md")
    assert f"JSON lines (`{keys[0]}`," in text and all(f"`{k}`" in text for k in keys)
    # the key's own doc (`python -m agent.settings`, the generated configuration reference) names them too
    from agent.keyspec import hints, meta_of
    from agent.settings import Config

    assert f"per line: {', '.join(keys)})" in meta_of(hints(Config)["log_format"]).description


def test_the_readme_replay_raises_what_it_says(tmp_path):
    # README's quick start: `make run ARGS="--kmsg <fixture> --state-dir ..."` prints InfiniBandUnhealthy on stdout
    import json
    import os
    import shlex

    args = shlex.split(re.search(r'`make run ARGS="([^"]+)"`', README.read_text()).group(1))
    args[args.index("--state-dir") + 1] = str(tmp_path / "state")
    env = {**os.environ, "GPU_NPD_MODE": "off"}
    proc = subprocess.Popen([sys.executable, "-m", "gpunpd", "run", "--metrics-address", "127.0.0.1:0", *args],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    import threading

    guard = threading.Timer(60, proc.kill)  # no line at all: the loop below ends, and fails
    guard.start()
    try:
        for line in proc.stdout:
            event = json.loads(line)
            if event["event"] == "condition" and event["condition"] == "InfiniBandUnhealthy":
                assert event["status"] == "True"
                break
        else:
            raise AssertionError("no InfiniBandUnhealthy condition on stdout")
    finally:
        guard.cancel()
        proc.terminate()
        assert proc.wait(timeout=30) == 0


@pytest.mark.parametrize("command,pages", [("offline.triage_cli:triage", ["triage.md"]),
                                           ("offline.cli:parse", ["index.md", "detection.md"]),
                                           ("cluster.cli:cluster", ["cluster.md"]),
                                           ("fabric.cli:fabric_check", ["checks.md"])])
def test_the_offline_commands_pages_name_every_option(command, pages):
    """Each option of `gpu-npd triage` is named on docs/triage.md (`--evidence` was not), each of `gpu-npd parse` on
    the pages that say how to run it (`--year` was on none), each of `gpu-npd cluster` on docs/cluster.md (the Lease's
    and the API server's were not), each of `gpu-npd fabric-check` on docs/checks.md (`--poll`, `--service-account`
    were not)."""
    module, name = command.split(":")
    text = "".join((ROOT / "docs" / page).read_text(encoding="utf-8") for page in pages)
    options = {o for p in getattr(importlib.import_module(module), name).params for o in p.opts if o.startswith("--")}
    missing = {o for o in options if f"{o} " not in text and f"{o}`" not in text}
    assert options and not missing, f"{pages} lack {sorted(missing)}"


def test_a_configuration_key_the_changelog_removes_is_refused_and_in_its_upgrade_notes():
    # an operator's configuration that still sets a removed key stops the agent (unknown key): each release's
    # Upgrade notes must say so, not only its Changed list
    from agent.config import ConfigError, load

    sections = re.split(r"^## ", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)[1:]
    removed = 0
    for section in sections:
        notes = " ".join(section.partition("### Upgrade notes")[2].split())
        for key in re.findall(r"The `([a-z_]+(?:\.[a-z_]+)*)` key is gone", " ".join(section.split())):
            removed += 1
            *blocks, name = key.split(".")
            flags: dict = {name: "x"}
            for block in reversed(blocks):
                flags = {block: flags}
            with pytest.raises(ConfigError, match=rf"^{re.escape(key)}: unknown key"):
                load(env={}, flags=flags)
            assert f"`{key}`" in notes, f"{section.split()[0]}: Upgrade notes do not say `{key}` is gone"
    assert removed


def test_the_development_page_names_every_make_target():
    phony = re.search(r"^\.PHONY: (.+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M).group(1).split()
    table = (ROOT / "docs" / "development.md").read_text(encoding="utf-8").split("## Make targets", 1)[1]
    named = set(re.findall(r"`make ([\w-]+)", table.split("\n## ", 1)[0]))
    assert not set(phony) - named, f"docs/development.md's Make targets lack {sorted(set(phony) - named)}"


def test_the_fabric_check_exit_codes_the_docs_give_are_the_code():
    # docs/checks.md's exit status table and `fabric-check --help`'s epilog: each code the check can exit with, no other
    from fabric import check
    from fabric.cli import EXIT_CODES_HELP

    codes = {v for k, v in vars(check).items() if k.startswith("EXIT_") and isinstance(v, int)}
    page = (ROOT / "docs" / "checks.md").read_text(encoding="utf-8").split("the exit code). Exit status:", 1)[1]
    listed = [int(c) for c in re.findall(r"^\| (\d+) \|", page.split("\n\n", 2)[1], re.M)]
    assert sorted(listed) == sorted(codes) == listed, f"docs/checks.md lists {listed}, fabric/check.py has {sorted(codes)}"
    said = [int(c) for c in re.findall(r"(?:Exit status: |; )(\d+) ", EXIT_CODES_HELP)]
    assert said == listed, f"fabric-check's help says {said}"
    # and round 2's and round 3's bound on the suspects tested pairwise
    from fabric.plan import PAIRWISE_MAX

    assert _flat("checks.md").count(f"at most {PAIRWISE_MAX} suspects") == 2


def test_the_workloads_page_quotes_where_an_uncorrelated_failure_lies_as_the_events_say_it():
    """(h501) The page said an application-attributed line's Event "says it is the application's own failure"; the
    Event says it "reads as" one (an illegal memory access may still be a GPU's memory): the page quotes the code."""
    from parsers.correlate import ELSEWHERE, OWN_FAILURE

    text = _flat("workloads.md")
    assert f'says "{OWN_FAILURE}"' in text and f'says "{ELSEWHERE}"' in text


def test_the_slurm_oom_window_the_docs_give_is_the_code():
    # (h542) Slurm's OOM summary read with the lines after it for srun's node, offline and live, and how long the agent
    # waits for them in a file that writes nothing more
    from agent.sources.podlogs import BLOCK_WAIT
    from triage.read import SRUN_LINES

    text = _flat("workloads.md")
    assert f"read with the {SRUN_LINES} lines after it" in text and f"without one after {BLOCK_WAIT:g} s" in text
    assert f"within {SRUN_LINES} lines after it" in _flat("cluster.md") and f"`BLOCK_WAIT`, {BLOCK_WAIT:g} s" in \
        _flat("cluster.md")


def test_the_cluster_hold_the_docs_give_is_the_code():
    # how long the cluster holds an incident whose only failure a healthy end also prints (StoreLost) while its pods
    # run (`gpu-npd cluster --hold`, its default HOLD): cluster.md's statements and workloads.md's StoreLost item
    from cluster.book import HOLD  # noqa: PLC0415
    from cluster.cli import cluster as command  # noqa: PLC0415

    assert next(p.default for p in command.params if p.name == "hold") == HOLD
    cluster = _flat("cluster.md")
    assert f"for `--hold` seconds (default {HOLD:g}, `cluster/book.py` `HOLD`; 0: no hold)" in cluster
    assert f"`--hold` ({HOLD:g} s;" in cluster
    assert f"run {HOLD:g} s on (`--hold`) or another failure of the job comes" in cluster
    assert f"one where they run {HOLD:g} s on (`--hold`) or the job fails otherwise" in _flat("workloads.md")


def test_the_restart_figures_the_docs_give_are_the_code():
    # today's runbook entries: pod logs read up across an agent restart, a container new meanwhile, NVML asked again
    from agent.gpu.collector import INIT_RETRY_SECONDS
    from agent.sources.podlogs import (BLOCK_CHARS, MAX_UNSEEN_BYTES, READ_UP_POLLS, TRACED_CHARS,
                                       TRACED_SAVED_CHARS)
    from triage.read import BLOCK_LINES, TRACEBACK_LINES

    assert f"or polled {READ_UP_POLLS} times" in _flat("hangs.md")
    assert f"larger than {MAX_UNSEEN_BYTES >> 20} MiB" in _flat("workloads.md")
    assert f"`block`: at most {1 + BLOCK_LINES} of {BLOCK_CHARS:,} characters each;" in _flat("workloads.md")
    assert (f"`traced`: at most {TRACEBACK_LINES} of {TRACED_CHARS:,} characters, {TRACED_SAVED_CHARS:,} in all;"
            in _flat("workloads.md"))
    assert f"on the init's schedule (every {INIT_RETRY_SECONDS:g} s;" in _flat("nvml.md")
    assert INIT_RETRY_SECONDS == 60 and "initialised again every minute" in _flat("nvml.md")
    assert "asked again every minute" in _flat("operations.md") and "NVML again every minute" in _flat("operations.md")


def test_the_incident_counts_the_docs_give_are_the_corpus():
    # bench/live_vs_offline.py's figures, quoted by the cluster and triage pages: offline names every incident, so the
    # totals are the corpus's size (cluster.md said "On 115 incidents" with 159 in the corpus)
    corpus = sum(1 for p in (ROOT / "tests" / "fixtures" / "incidents").iterdir() if (p / "expected.json").is_file())
    live, total, offline = map(int, re.search(r"On (\d+) incidents: live (\d+) \(\d+%\), offline (\d+) \(100%\)",
                                              _flat("cluster.md")).group(2, 1, 3))
    assert total == offline == corpus and live <= total
    live, total, offline = map(int, re.search(r"incidents so: live (\d+) of (\d+), offline (\d+)\.",
                                              _flat("triage.md")).groups())
    assert total == offline == corpus and live <= total


def test_the_benchmark_runs_the_docs_cite_are_there_and_the_newest_is_the_newest():
    # a figure typed on a page names its results file; one said to be the newest run's must be (a run recorded since
    # makes it an older run's figure, and the page must say so)
    results = sorted(p.name for p in (ROOT / "docs" / "benchmarks").glob("*.json"))
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = _flat(page.name)
        named = re.findall(r"\b(\d{4}-\d\d-\d\dT\d{6}Z[\w-]*\.json)", text)
        assert set(named) <= set(results), f"{page.name} cites {sorted(set(named) - set(results))}"
        newest = re.findall(r"newest[\w ]{0,20}[,(] ?`?(?:docs/benchmarks/)?(\d{4}-\d\d-\d\dT\d{6}Z\.json)", text)
        assert all(n == results[-1] for n in newest), f"{page.name} calls {newest} the newest run; it is {results[-1]}"


def test_every_module_is_in_the_generated_modules_page_by_its_docstring():
    # reference/modules.md lists every module of the packages with its docstring's first paragraph (docs/development.md
    # was a hand table a new module had to be added to): a module without a docstring would be a blank row
    hook = _hook()
    listed = dict(hook.modules())
    # every package on disk (a folder of the root with an __init__.py), not the hook's own list: one a list misses fails
    packages = [init.parent for init in ROOT.glob("*/__init__.py")]
    assert packages
    found = {p.relative_to(ROOT).as_posix() for package in packages for p in package.rglob("*.py")
             if p.name != "__init__.py"}
    assert set(listed) == found
    assert not [path for path, said in listed.items() if not said], "modules without a docstring"
    page = hook.render_modules()
    assert all(f"| `{path}` | {hook.cell(said)} |" in page for path, said in listed.items())
    assert "| `agent/sinks/stdout.py` | Local mode: condition changes and new problems as structured JSON lines" in page


def test_a_test_file_the_docs_have_you_write_goes_in_its_package_folder():
    # `tests/` itself holds only the house-wide tests (docs/development.md); a recipe's new test goes in the folder of
    # its package (the sink recipes said `tests/test_<name>.py`)
    wrong = [f"{page.name}: {m}" for page in [README, *sorted((ROOT / "docs").glob("*.md"))]
             for m in re.findall(r"\btests/[\w<>./-]*<[\w<>./-]*\.py", page.read_text(encoding="utf-8"))
             if not (m.split("/")[1] == "<package>" or (ROOT / "tests" / m.split("/")[1]).is_dir())]
    assert not wrong, wrong


def test_the_repeated_application_xids_the_docs_name_are_the_catalogs():
    # only the Xids of NVIDIA's repeat workflow raise GPUDegraded when several processes repeat them (README said
    # "repeated application Xids", every one)
    from parsers.catalog import REPEAT_WORKFLOW_XIDS

    said = f"Xid {' / '.join(str(x) for x in sorted(REPEAT_WORKFLOW_XIDS))} repeated by several processes"
    assert said in README.read_text(encoding="utf-8")
    assert said in (ROOT / "docs" / "concepts.md").read_text(encoding="utf-8")


def test_the_thresholds_page_gives_every_telemetry_rule_with_its_source():
    # docs/telemetry-thresholds.md's table of the defaults is generated from parsers/sample_rules.yaml (a hand table
    # once lacked DriverRecoveryDrainP2P and NVMLLibraryNotFound): every reason, each row with its `source` (the
    # first of a run may not be "as above"); the configuration's default leaves the sources out
    from parsers.telemetry import rows, sample_rules

    shipped = rows()
    assert all(isinstance(r.get("source"), str) and r["source"].strip() for r in shipped), \
        [r["reason"] for r in shipped if not r.get("source")]
    assert shipped[0]["source"] != "as above"
    assert not any("source" in r for r in sample_rules())
    page = _hook().render_telemetry_defaults()
    assert not {r["reason"] for r in shipped if f"`{r['reason']}`" not in page}
    assert all(r["source"] in page for r in shipped if r["source"] != "as above")
    assert "<!-- generated: telemetry-defaults -->" in (ROOT / "docs" / "telemetry-thresholds.md").read_text()
    rows_ = {line.split(" | ", 1)[0]: line for line in page.splitlines()}
    assert rows_["| `PCIeReplayRate`"].split(" | ")[2:4] == ["pcie_replay rate_above 8 per 60 s within 300 s",
                                                             "2 polls; boot grace"]
    # and the reference's telemetry rules say each row's test too (its `rate_above` and `below` rows said nothing)
    rules = _hook().render_rules()
    assert "| `pcie_replay` | rate_above 8 per 60 s within 300 s |" in rules and "| `thermal_margin` | below 5 |" in rules


def test_readme_names_every_opt_in_condition():
    # README's "Opt-in" line: the fabric check's condition, the repair profiles'; the built-in checks' by a link to
    # their generated table (a new check is its row alone: docs/extending.md)
    from agent.kube.repair import PROFILE_CONDITIONS
    from fabric.kube import CONDITION

    said = README.read_text(encoding="utf-8").split("Opt-in:", 1)[1].split("\n\n", 1)[0]
    named = {CONDITION} | {c for rows in PROFILE_CONDITIONS.values() for c, *_ in rows}
    assert not {c for c in named if f"`{c}`" not in said}, f"README.md's opt-in conditions lack some of {named}"
    assert "(docs/checks.md#node-checks-npd-plugins-in-the-agent)" in said
    assert "<!-- generated: builtin-checks -->" in (ROOT / "docs" / "checks.md").read_text(encoding="utf-8")


def test_the_checks_page_gives_every_built_in_check_from_its_row():
    # docs/checks.md's table of built-in checks is generated from agent/checks/builtin.py's TABLE: each check's
    # condition, reason, keys and what it checks (its function's docstring, which each must have), and when it runs
    from agent.checks.builtin import TABLE

    rows = {line.split(" | ", 1)[0]: line for line in _hook().render_builtin_checks().splitlines()}
    for c in TABLE:
        row = rows[f"| `{c.name}`"]
        assert c.run.__doc__, f"check_{c.name} has no docstring: the page's 'what it checks' would be empty"
        assert f"`{c.condition}`" in row and f"`{c.reason}`" in row and f"{c.interval} / {c.timeout}" in row
        assert all(f"`{a.key}: " in row for a in c.args), row
    assert "only while no compute process is on any GPU" in rows["| `dcgm`"] and "dcgmi is on PATH" in rows["| `dcgm`"]
    assert rows["| `ib`"].endswith("| always |")


def test_the_fuzz_figures_the_docs_give_are_the_tests_and_the_makefiles():
    # security.md said 20,000 lines in `make test` after the fuzzers' share was halved to 10,000: each figure is read
    # from the test's default and the Makefile's `make fuzz` line
    make = (ROOT / "Makefile").read_text(encoding="utf-8")

    def fuzz(test: str) -> int:
        return int(re.search(rf"FUZZ_EXAMPLES=(\d+) [^\n]*{re.escape(test)}", make).group(1))

    hostile = "tests/parsers/test_hostile_inputs.py"
    lines = int(re.search(r'"FUZZ_EXAMPLES", "(\d+)"', (ROOT / hostile).read_text(encoding="utf-8")).group(1))
    assert f"({lines:,} lines in `make test`, `make fuzz` for {fuzz(hostile):,})" in _flat("security.md")
    config = "tests/agent/test_config_fuzz.py"
    examples = sum(map(int, re.findall(r"max_examples=EXAMPLES or (\d+)", (ROOT / config).read_text(encoding="utf-8"))))
    assert f"{examples:,} examples in `make test`, {fuzz(config):,} each in `make fuzz`" in _flat("configuration.md")


_SECTION_REF = re.compile(r'\b(README|docs/[\w-]+\.md) "([^"\n]+)"')


def test_a_section_the_code_and_manifests_point_at_is_on_its_page():
    # comments in the tree named README's "Speed", "Fabric check" and "Install" after those sections had moved into
    # docs/: a reference `PAGE "Section"` names a heading (or a bold lead-in) of that page
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    stale = []
    for path in tracked:
        if path == "CHANGELOG.md" or path.startswith("docs/benchmarks/") or not (ROOT / path).is_file():
            continue
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for page, section in _SECTION_REF.findall(text):
            target = ROOT / ("README.md" if page == "README" else page)
            lines = target.read_text(encoding="utf-8").splitlines() if target.is_file() else []
            heads = [re.sub(r"^#+\s*", "", line) for line in lines if line.startswith("#")]
            heads += re.findall(r"\*\*([^*]+?)\.?\*\*", "\n".join(lines))
            if not any(h.startswith(section) for h in heads):
                stale.append(f'{path}: {page} "{section}"')
    assert not stale, stale


def test_the_readme_taints_are_the_configured_ones():
    # the taint table is the default `kubernetes.taints` (and the DRA device taint), the figures above it the defaults;
    # the hold-down applies to every taint (was said of GPUUnhealthy's row alone)
    from agent.kube.dra import TAINT_KEY
    from agent.settings import defaults

    kube = defaults()["kubernetes"]
    text = README.read_text(encoding="utf-8")
    table = text.split("\nTaints (", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| `([^`]+)`", table, re.M)
    assert rows == [f"{kube['taint_prefix']}{t['condition']}=<reason>:{t['effect']}" for t in kube["taints"]] + [
        f"{TAINT_KEY}=<reason>:{kube['dra_taint_effect']}"]
    said = " ".join(text.split("\nTaints (", 1)[1].split("\n\n", 1)[0].split())
    assert f"`max_tainted_fraction`, {kube['max_tainted_fraction']:.0%}," in said
    assert f"`{kube['taint_budget_configmap']}`" in said
    assert f"each stays `taint_hold_down_seconds`, {kube['taint_hold_down_seconds'] / 60:g} min," in said
    listed = re.findall(r"^\| `(gpu-npd\.io/\w+)` \|", (ROOT / "docs" / "kubernetes.md").read_text(encoding="utf-8"), re.M)
    assert listed == [kube["taint_prefix"] + t["condition"] for t in kube["taints"]]


def test_every_tracked_entry_of_the_root_is_a_row_of_the_readme_layout():
    # a file a manual run left in the working tree (`kmsg`, a FIFO's records; `n.yaml`, `s.yaml`, configurations) was
    # committed at the root with a merge: what the root holds is README's "Layout" table, each entry a row of it
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    root = {path.split("/", 1)[0] + ("/" if "/" in path else "") for path in tracked}
    table = README.read_text(encoding="utf-8").split("\n## Layout\n", 1)[1].strip().split("\n\n", 1)[0]
    rows = {name for row in re.findall(r"^\| (.+?) \|", table, re.M) for name in re.findall(r"`([^`]+)`", row)}
    assert sorted(root - rows - {"README.md"}) == []


@pytest.mark.slow
def test_the_line_paths_figures_in_architecture_are_bench_callpaths():
    # docs/architecture.md gave the path's groups as 18 functions of the agent and 14 of parsers/ after Agent._slices
    # joined the loop and Classifier._template left the classifier (the total, 39, unchanged): each figure the
    # paragraph gives is now read from bench/callpath.py's trace of the real agent
    spec = importlib.util.spec_from_file_location("bench_callpath", ROOT / "bench" / "callpath.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    traced = bench.run_in(ROOT)
    assert traced["ok"], traced
    path = [tuple(fn) for fn in traced["path"]]

    def said(functions: list[tuple[str, str]]) -> str:
        return f"{len(functions)} in {len({file for file, _ in functions})} files"

    kube = [(f, fn) for f, fn in path if f.startswith(("agent/kube/", "kubeapi/"))]
    agent = [(f, fn) for f, fn in path if f.startswith("agent/") and (f, fn) not in kube]
    parsers = [(f, fn) for f, fn in path if f.startswith("parsers/")]
    assert len(kube) + len(agent) + len(parsers) == len(path)
    side = [(f, fn) for f, fn in path if fn in ("labels_of", "cause_of")]
    own = [(f, fn) for f, fn in path if (f, fn) not in side]
    text = _flat("architecture.md")
    for figure in (f"current figures: {said(path).replace(' in ', ' functions in ')} on the path",
                   f"{len(path)}, {said(agent)} are the agent's record path", f"; {said(parsers)} are classification",
                   f"; {said(kube)} the Kubernetes writer",
                   f"the condition's own path is {said(own).replace(' in ', ' functions in ')}"):
        assert figure in text, figure


_NUMBER = re.compile(r"(?<![\w.-])\d+(?:[,._]\d+)*(?!\w)")


def test_the_benchmarks_page_types_no_figure():
    # docs/benchmarks.md was a run-by-run history (figures "since" each change, helpers' /tmp paths, dated runs):
    # its figures are rendered at build time from bench/report.py and the results files; its own text may hold a
    # number only as a bench's parameter (a number in a bench script's source), never a date or a host's path
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    assert "<!-- generated: benchmark-benches -->" in page and "<!-- generated: benchmark-results -->" in page
    params = {n.replace(",", "").replace("_", "") for p in sorted((ROOT / "bench").glob("*.py"))
              for n in _NUMBER.findall(p.read_text(encoding="utf-8"))}
    typed = [n for n in _NUMBER.findall(page) if n.replace(",", "") not in params]
    assert not typed, f"figures typed on the benchmarks page: {typed}"
    assert not re.search(r"\d{4}-\d\d-\d\d|/tmp/", page)


def test_the_benchmarks_page_shows_each_benchmarks_newest_output():
    # "the newest by default": each benchmark's section of the newest results file that holds it, the baseline's
    # directory on the host it ran on shown as BASELINE; older runs only listed by file
    hook = _hook()
    docs = ROOT / "docs"
    rendered = hook.render_benchmark_results(docs)
    newest = hook.newest_benchmark_sections(docs)
    report = hook._bench_report()
    assert {"parse", "perline", "inprocess"} <= set(newest)
    for name, (file, data, section) in newest.items():
        later = [p.name for p in docs.glob("benchmarks/*.json") if p.name > file
                 and any(hook._bench_of(s, report) == name for s in json.loads(p.read_text())["sections"])]
        assert not later, (name, file, later)
        command, output = hook._without_baseline_path(section, set(report.BASELINE_OPTION.values()))
        assert f"**File**: `docs/benchmarks/{file}`" in rendered and output.rstrip() in rendered
    older = json.loads((docs / "benchmarks" / "2026-11-29T051924Z.json").read_text())["sections"][0]["output"]
    assert older.strip().splitlines()[-1] not in rendered
    assert "/tmp/" not in rendered and "python bench/parse.py --baseline BASELINE" in rendered
    assert all(f"`{name}`" in hook.render_benchmark_benches(docs) for name in report.BENCHES)


# A default the prose restates beside its key: "`key`, default 600", "`key` (default `x`)", "`key` (10 s)", "`key`
# (5 min)", "`key` (10%, ..)": the value and its unit (none: as declared; s, min, h: seconds; %: a fraction).  A bare
# parenthesis is a default only where the value ends it or a comma or colon follows a number ("(0 turns it off)",
# "(`severity`, `action`, ..)" are none)
_STATED_DEFAULT = re.compile(r"`([a-z][a-z0-9_.]*)`(?:, default | \(default | \((?=`[^`]+`\)|[\d,]*\d"
                             r"(?: (?:s|min|h)|%)?[),:]))(`[^`]+`|[\d,]*\d)(?: (s|min|h)\b|(%))?")
_UNIT = {None: 1, "s": 1, "min": 60, "h": 3600}


def _stated_defaults() -> list[tuple[str, re.Match, object]]:
    """(page, the statement, the key's declared default) for every default a page restates beside a configuration key
    the declaration (agent/settings.py) names."""
    from agent.settings import keys  # noqa: PLC0415

    declared = {k.path: k.default for k in keys()}
    found = []
    for page in sorted([README, *(ROOT / "docs").rglob("*.md")]):
        text = " ".join(page.read_text(encoding="utf-8").split())
        found += [(page.relative_to(ROOT).as_posix(), m, declared[m.group(1)]) for m in _STATED_DEFAULT.finditer(text)
                  if m.group(1) in declared]
    return found


def _says(m: re.Match, default: object) -> bool:
    value, unit, percent = m.group(2), m.group(3), m.group(4)
    if value.startswith("`"):
        value = value.strip("`")
        return value == str(default) or [value] == default
    number = float(value.replace(",", ""))
    if percent:
        return number / 100 == default
    return isinstance(default, (int, float)) and not isinstance(default, bool) and number * _UNIT[unit] == default


def test_every_default_the_docs_restate_is_the_declared_one():
    # docs/concepts.md's `xid_reboot_escalation`, default 2 and `unused_port_boot_seconds`, default 600, and
    # docs/telemetry-thresholds.md's `boot_grace_seconds`, default 300, were typed by hand with no test: every default
    # a page states beside its key is now read against the declaration (agent/settings.py)
    stated = _stated_defaults()
    assert {(page, m.group(1)) for page, m, _ in stated} >= {
        ("docs/concepts.md", "xid_reboot_escalation"), ("docs/concepts.md", "unused_port_boot_seconds"),
        ("docs/telemetry-thresholds.md", "boot_grace_seconds")}
    wrong = [f"{page}: {m.group(0)} (declared {default!r})" for page, m, default in stated if not _says(m, default)]
    assert not wrong, wrong


def _eviction_caches() -> set[str]:
    """The `cache` label values of gpu_npd_cache_evictions_total: the names the agent passes to count_evictions,
    directly or from the (name, owner) pairs a loop hands it (agent/*.py)."""
    names = set()
    for path in sorted((ROOT / "agent").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            calls = isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "count_evictions"
            if calls and isinstance(node.args[0], ast.Constant):
                names.add(node.args[0].value)
            elif isinstance(node, ast.For) and "count_evictions" in ast.unparse(node) and isinstance(node.iter, ast.Tuple):
                names |= {e.elts[0].value for e in node.iter.elts
                          if isinstance(e, ast.Tuple) and isinstance(e.elts[0], ast.Constant)}
    return names


def test_the_caches_the_docs_list_are_the_ones_the_agent_counts():
    # docs/operations.md's list of gpu_npd_cache_evictions_total{cache} values lacked `progress_pods` (the hang
    # tracker's pods) and docs/security.md's list of bounded caches lacked it and `decisions`: each list now names
    # every cache the agent registers, and none it does not
    caches = _eviction_caches()
    assert {"kernel_uuid", "pod_uuid", "pid_pod", "decisions", "kernel_memo", "pod_memo", "workload_jobs",
            "progress_pods"} <= caches
    lists = {"operations.md": _flat("operations.md").split("`gpu_npd_cache_evictions_total{cache}`", 1)[1]
             .split(")", 1)[0],
             "security.md": _flat("security.md").split("`gpu_npd_cache_evictions_total{cache}`", 1)[1]
             .split("; a CRI partial", 1)[0]}
    for page, text in lists.items():
        named = {n for n in re.findall(r"`(\w+)`", text) if "_" in n or n in caches}
        assert named == caches, f"docs/{page}: names {sorted(named - caches)}, lacks {sorted(caches - named)}"


def test_the_runbooks_alert_table_gives_every_shipped_alert():
    # docs/operations.md's generated alert table was rendered from deploy/monitoring/prometheusrule.yaml alone: the
    # workload alerts (workload-rules.yaml, `GPUStragglerSuspected`, `WorkloadHangSuspected`) were missing from it
    import yaml  # noqa: PLC0415

    shipped = set()
    for path in (ROOT / "deploy" / "monitoring").glob("*.yaml"):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if isinstance(doc, dict) and doc.get("kind") == "PrometheusRule":
                shipped |= {r["alert"] for g in doc["spec"]["groups"] for r in g["rules"] if "alert" in r}
    assert {"GPUNodeUnhealthy", "GPUStragglerSuspected", "WorkloadHangSuspected"} <= shipped
    rendered = set(re.findall(r"^\| `(\w+)` \|", _hook().render_alerts(), re.M))
    assert rendered == shipped, f"the alert table lacks {sorted(shipped - rendered)}"


def test_the_grant_entries_the_runbook_shows_are_what_an_agent_writes():
    # docs/operations.md "See the grants" gave a grant as {"at", "node"}: the node sink's grants carry their pool's tag
    # too, and the ConfigMap holds each pool's summary (`_pool.<tag>`); each shape is read against a real write
    from agent.kube.grants import SUMMARY_PREFIX, GrantBook, pool_tag  # noqa: PLC0415

    cm = {"metadata": {"name": "gpu-npd-taint-budget", "resourceVersion": "1"}, "data": {}}

    def request(method, path, body=None, **kw):
        if method == "PUT":
            cm.update(body)
        return cm

    book = GrantBook(request, "gpu-npd", "gpu-npd-taint-budget", "gpu-1", lambda: 1e9)
    assert book.acquire(["gpu-1"], set(), 1, among={"gpu-1", "gpu-2"}, pool=pool_tag("")) == ["gpu-1"]
    written = {k: sorted(json.loads(v)) for k, v in cm["data"].items()}
    assert set(written) == {"gpu-1", SUMMARY_PREFIX + pool_tag("")}  # the node's grant, the pool's summary
    said = _flat("operations.md").split("**See the grants.**", 1)[1].split("Nodes carrying", 1)[0]
    shapes = [sorted(re.findall(r'"(\w+)":', shape)) for shape in re.findall(r"`(\{[^`]*\})`", said)]
    assert f"`{SUMMARY_PREFIX}<hash of budget_selector>`" in said
    assert shapes == [written["gpu-1"], written[SUMMARY_PREFIX + pool_tag("")]], shapes


def test_the_labels_the_docs_give_a_metric_are_its_labels():
    # a page's `gpu_npd_x{a,b}` (or a selector `{a="v"}`) was checked for its name alone: each label named is now one
    # the family has (the agent's, and the cluster component's from its registry's declarations); `node` and `pod`
    # are Prometheus's target labels
    from prometheus_client.metrics import MetricWrapperBase  # noqa: PLC0415

    from cluster.metrics import Metrics  # noqa: PLC0415

    labels = {name: set(names) for name, _, names, _ in _hook().metric_families()}
    for w in vars(Metrics()).values():
        if isinstance(w, MetricWrapperBase):
            labels.setdefault(w._name + ("_total" if w._type == "counter" else ""), set(w._labelnames))
    wrong, seen = [], 0
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for name, body in re.findall(r"\b(gpu_npd_[a-z0-9_]+)\{([^}]*)\}", page.read_text(encoding="utf-8")):
            named = set(re.findall(r"(?:^|,)\s*([A-Za-z_]\w*)", body)) - {"node", "pod"}
            seen += 1
            if name in labels and named - labels[name]:
                wrong.append(f"{page.name}: {name}{{{body}}} (labels {sorted(labels[name])})")
    assert seen > 50 and not wrong, wrong


def test_the_workloads_page_names_every_pod_event_reason_of_a_finding():
    # docs/workloads.md's Pod Events of workload findings lacked `CUDAError` (a CUDA error whose text names none of
    # CUDA_REASONS) and `GPUDriverUnusable` (the `driver_unusable` kind), and its kinds `driver_unusable`
    from agent.workloads import EVENT_REASONS
    from parsers.kinds import CUDA_REASONS

    text = _flat("workloads.md")
    events = text.split("become **Pod Events** (", 1)[1].split("), aggregated", 1)[0]
    kinds = text.split("only keyword lines are classified. Findings (", 1)[1].split(")", 1)[0]
    reasons = {*EVENT_REASONS.values(), *CUDA_REASONS.values()}
    assert set(re.findall(r"`(\w+)`", events)) == reasons, sorted(reasons ^ set(re.findall(r"`(\w+)`", events)))
    assert set(re.findall(r"`(\w+)`", kinds)) == set(EVENT_REASONS)
