"""The artifact users install: the wheel, in a fresh venv, run from outside the source tree.

The editable install of `make test` reads files straight from the tree, so a data file missing from the
wheel (agent/defaults.yaml once was; parsers/sample_rules.yaml now) goes unnoticed there; this test installs what `pip wheel` builds.
Dependencies come from the test venv through PYTHONPATH (which processes no .pth files, so the editable
finder of the source tree is not loaded): the run does not depend on the network.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from harness import AgentProc
from test_podfault import kubelet  # noqa: F401 - the fixture: a stand-in kubelet serving PodResources

ROOT = Path(__file__).resolve().parents[2]
XID79 = "NVRM: Xid (PCI:0000:5d:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


# what the build does not read: the tree's own build outputs, the test venv, the tests, docs and benches
NOT_BUILT = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "site", ".state",
                                   "tests", "tests_image", "docs", "bench")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the tree: pip builds a directory in place (its build/ and egg-info there), so
    two xdist workers each building it for this module's tests raced in one build/ (a run failed "pip wheel .. exit
    status 1"), and a module deleted from the tree stayed in build/lib, into the wheel."""
    out, tree = tmp_path_factory.mktemp("wheel"), tmp_path_factory.mktemp("tree") / "gpu-npd"
    shutil.copytree(ROOT, tree, ignore=NOT_BUILT)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                           str(out), str(tree)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return next(out.glob("gpu_npd-*.whl"))


def test_the_wheel_is_of_the_declared_version(wheel: Path):
    """pyproject.toml's version is dynamic, from parsers/version.py: the wheel the build backend made carries it."""
    from parsers.version import VERSION

    assert wheel.name.startswith(f"gpu_npd-{VERSION}-")
    meta = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA"))
    assert f"\nVersion: {VERSION}\n" in zipfile.ZipFile(wheel).read(meta).decode()


def test_wheel_carries_every_package_file(wheel: Path):
    names = set(zipfile.ZipFile(wheel).namelist())
    tracked = subprocess.run(["git", "ls-files", "agent", "parsers"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    missing = [f for f in tracked if not f.endswith(".py") and f not in names]
    assert not missing, f"package data missing from the wheel: {missing}"


def install(wheel: Path, tmp_path: Path) -> tuple[Path, str]:
    """(python, site-packages) of a fresh venv with the wheel installed in it."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    with zipfile.ZipFile(wheel) as zf:  # a wheel is a zip laid out for site-packages: unpack is install
        zf.extractall(site)
    return py, site


@pytest.mark.slow
def test_installed_wheel_runs_from_outside_the_tree(wheel: Path, tmp_path: Path):
    py, site = install(wheel, tmp_path)
    deps = sysconfig.get_paths()["purelib"]  # the test venv's dependencies, not its editable gpu-npd
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run([str(py), "-c", "import agent; print(agent.__file__)"], cwd=elsewhere,
                           env={"PYTHONPATH": deps}, capture_output=True, text=True, check=True).stdout
    assert where.startswith(site), where
    a = AgentProc(tmp_path, cmd=[str(py), "-m", "gpunpd"], cwd=str(elsewhere), env={"PYTHONPATH": deps})
    a.write(f"3,100,4254197860,-;{XID79}\n")
    a.wait_for(lambda: a.value("gpu_npd_node_condition", condition="GPUUnhealthy", reason="Xid79FallenOffBus") == 1)
    assert a.stop()[0] == 0


@pytest.mark.slow
def test_installed_wheel_triages_a_real_incident(wheel: Path, tmp_path: Path):
    """`gpu-npd triage` from the installed wheel (the triage package and its command are in it)."""
    py, _ = install(wheel, tmp_path)
    logs = ROOT / "tests" / "fixtures" / "incidents" / "funasr-2006-oom" / "logs"
    r = subprocess.run([str(py), "-m", "gpunpd", "triage", "--format", "json", str(logs)], cwd=tmp_path,
                       env={"PYTHONPATH": sysconfig.get_paths()["purelib"]}, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"category": "application"' in r.stdout


@pytest.mark.slow
@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_installed_wheel_triages_in_worker_processes(wheel: Path, tmp_path: Path, method: str):
    """`gpu-npd triage --jobs 2` from the installed wheel, its workers started by `method` (spawn imports the
    worker's function anew from site-packages): the same document as `--jobs 1`."""
    py, _ = install(wheel, tmp_path)
    code = (f"import multiprocessing, sys; multiprocessing.set_start_method({method!r}); "
            "from offline import triage_cli as t; t.PARALLEL_MIN_BYTES = {}; t._MIN_BYTES_OTHER = 0; "
            "calls = []; real = t._read_in_pool; t._read_in_pool = lambda *a: calls.append(1) or real(*a); "
            "import atexit; atexit.register(lambda: print('POOLS', len(calls), file=sys.stderr)); "
            "sys.argv[0] = 'gpu-npd'; from gpunpd.cli import main; main()")
    logs = [str(ROOT / "tests" / "fixtures" / d) for d in ("dmesg", "nccl")]
    logs.append(str(ROOT / "tests" / "fixtures" / "incidents" / "funasr-2006-oom" / "logs"))
    out = {}
    for jobs in ("1", "2"):
        r = subprocess.run([str(py), "-c", code, "triage", "--jobs", jobs, "--format", "json", *logs], cwd=tmp_path,
                           env={"PYTHONPATH": sysconfig.get_paths()["purelib"]}, capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, r.stderr
        assert f"POOLS {int(jobs) - 1}" in r.stderr, r.stderr
        out[jobs] = r.stdout
    assert out["1"] == out["2"] and '"category"' in out["2"]


def test_installed_wheel_asks_the_kubelet_for_pod_resources(wheel: Path, tmp_path: Path, kubelet):
    """The artifact: the wheel's generated messages load with the declared protobuf and talk to the kubelet."""
    py, site = install(wheel, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = subprocess.run([str(py), "-c", "import agent.podresources as p; "
                        f"print(p.__file__); print(sorted(x.name for x in p.list_pods({kubelet.socket!r})))"],
                       cwd=elsewhere, env={"PYTHONPATH": sysconfig.get_paths()["purelib"]}, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    where, names = r.stdout.splitlines()
    assert where.startswith(site) and names == "['claimed', 'llama-worker-0', 'llama-worker-1', 'shared-a']"
