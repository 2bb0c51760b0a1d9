"""One version (parsers/version.py's, which pyproject.toml takes) everywhere a release puts it, a CHANGELOG section with upgrade notes for it, and
the chart as `make release` packages it (symlinked files resolved into the archive) rendering the shipped rules.
`make release` runs this file first and builds nothing while it fails."""

from __future__ import annotations

import re
import tarfile
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
VERSION = re.search(r'^VERSION = "(.+)"$', (ROOT / "parsers/version.py").read_text(), re.M).group(1)


def test_the_installed_distribution_reports_the_project_version():
    """The version is declared once: the installed distribution's metadata (pyproject.toml's dynamic version, read
    from parsers/version.py at build time), what `gpu-npd --version` and the build metric say, the Makefile's."""
    from importlib.metadata import version as dist_version

    from parsers.version import version

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "parsers.version.VERSION"}
    assert version() == dist_version("gpu-npd") == VERSION
    assert re.search(r"^VERSION := .*parsers/version\.py\)$", (ROOT / "Makefile").read_text(), re.M)


def test_every_artifact_carries_the_project_version():
    chart = yaml.safe_load((ROOT / "deploy/helm/gpu-npd/Chart.yaml").read_text())
    assert (chart["version"], chart["appVersion"]) == (VERSION, VERSION)
    kust = yaml.safe_load((ROOT / "deploy/base/kustomization.yaml").read_text())
    assert kust["images"] == [{"name": "ghcr.io/gpu-npd/gpu-npd", "newTag": VERSION}]
    for path in ("deploy/base/daemonset.yaml", "deploy/examples/fabric-check/fabric-check.yaml"):
        tags = re.findall(r"ghcr\.io/gpu-npd/gpu-npd:(\S+)", (ROOT / path).read_text())
        assert tags and set(tags) == {VERSION}, path
    assert re.search(r"^IMAGE\s*\?=\s*ghcr\.io/gpu-npd/gpu-npd:\$\(VERSION\)$", (ROOT / "Makefile").read_text(), re.M)
    assert re.search(r"^ARG VERSION$", (ROOT / "Dockerfile").read_text(), re.M)  # no second default to drift


def test_the_changelog_has_this_version_with_upgrade_notes():
    text = (ROOT / "CHANGELOG.md").read_text()
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    assert sections and sections[0].split()[0] == VERSION, "the newest CHANGELOG section must be this version"
    assert "### Upgrade notes" in sections[0]


def test_the_packaged_chart_is_self_contained_and_renders(tmp_path):
    helm = pytest.importorskip("helm_python", reason="helm-python-sdk (the test extra) bundles Helm's Go SDK")
    archive = helm.package(str(ROOT / "deploy/helm/gpu-npd"), destination=str(tmp_path), version=VERSION,
                           app_version=VERSION)
    assert Path(archive).name == f"gpu-npd-{VERSION}.tgz"
    with tarfile.open(archive) as tar:
        members = {m.name: m for m in tar.getmembers()}
        assert not any(m.issym() or m.islnk() for m in members.values())  # links became files
        assert "gpu-npd/files/prometheusrule.yaml" in members and not any("/ci/" in n for n in members)
    with helm.Chart.load_archive(Path(archive).read_bytes()) as chart:
        out = chart.render({"prometheusRule": {"enabled": True}}, name="gpu-npd", namespace="gpu-npd")
    rule = next(d for path, text in out.items() if not path.endswith("NOTES.txt") for d in yaml.safe_load_all(text)
                if d and d["kind"] == "PrometheusRule")
    shipped = yaml.safe_load((ROOT / "deploy/monitoring/prometheusrule.yaml").read_text())
    assert rule["spec"] == shipped["spec"]
