"""Data flows one way: no import cycles, and packages import only downward.

Layers, lowest first: parsers (pure core) < triage (pure attribution) < kubeapi (shared Kubernetes plumbing)
< the programs (agent, offline, fabric, cluster), which do not import each other < gpunpd (the command group).
gpunpd.options, the command-line options several programs' commands take (click only), stands below the programs.
Inside a package too: a subpackage (agent/kube, agent/sources, ...) never imports a module of a package above
it (agent/health.py, agent/samples.py, ...); what it shares with them lives lower (parsers/model.py).  A sibling
subpackage (agent/checks -> agent/gpu) is not above it.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {"parsers": 0, "triage": 1, "kubeapi": 2, "agent": 3, "offline": 3, "fabric": 3, "cluster": 3, "gpunpd": 4}
MODULE_LAYERS = {"gpunpd.options": 2.5}  # a module whose layer is not its package's
PACKAGES = tuple(name for name in LAYERS if (ROOT / name).is_dir())
# the one import across programs: GPU access is the agent's, and `gpu-npd parse` on a GPU node borrows it
ACROSS = {("offline.cli", "agent.cli")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path, modules: set[str]) -> set[str]:
    """Modules of ours that `path` imports, anywhere in it (lazy imports and TYPE_CHECKING blocks count too)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for t in targets:
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    files = [p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")]
    modules = {module_name(p) for p in files}
    return {module_name(p): frozenset(imports(p, modules)) for p in files}


def graph() -> dict[str, set[str]]:
    """Each module of ours -> the modules of ours it imports: every file parsed once a run (the tests here read the
    same tree), a copy to each caller."""
    return {module: set(targets) for module, targets in _graph().items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each a cycle to break.
    A package importing its own submodules (``agent.sources`` -> ``agent.sources.kmsg``) is a package
    re-exporting, not a cycle, when the submodule imports the package: that edge is left out."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def edges(v: str) -> set[str]:
        return {w for w in g.get(v, ()) if not w.startswith(v + ".")}

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    assert cycles(graph()) == []


def layer(module: str) -> float:
    return MODULE_LAYERS.get(module, LAYERS[module.split(".")[0]])


def test_packages_import_only_downward():
    wrong = []
    for module, targets in graph().items():
        for target in targets:
            inside = module.split(".")[0] == target.split(".")[0] and module not in MODULE_LAYERS
            if inside or (module, target) in ACROSS:
                continue
            if layer(target) >= layer(module):
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def upward(g: dict[str, set[str]], packages: set[str]) -> list[str]:
    """Imports from a module of a subpackage into a package above it: the package itself (`from .. import x`)
    or one of its plain modules (`from ..health import x`)."""
    wrong = []
    for module, targets in g.items():
        package = module if module in packages else module.rpartition(".")[0]
        above = {package.rsplit(".", n)[0] for n in range(1, package.count(".") + 1)}
        for target in targets:
            if target in above or (target not in packages and target.rpartition(".")[0] in above):
                wrong.append(f"{module} -> {target}")
    return sorted(wrong)


def test_subpackages_import_nothing_from_above():
    packages = {module_name(p) for pkg in PACKAGES for p in (ROOT / pkg).rglob("__init__.py")}
    assert upward(graph(), packages) == []


def test_the_upward_finder_finds_them():
    g = {"a.b.c": {"a.d", "a.b.e", "a.f.g", "a.f", "a"}, "a.b": {"a.d"}, "a.d": {"a.b.c"}}
    assert upward(g, {"a", "a.b", "a.f"}) == ["a.b -> a.d", "a.b.c -> a", "a.b.c -> a.d"]


def test_the_cycle_finder_finds_one():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
