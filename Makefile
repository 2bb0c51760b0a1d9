# Two commands on a fresh machine: `make run` and `make test`; each makes its venv when missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
VERSION := $(shell sed -n 's/^VERSION = "\(.*\)"/\1/p' parsers/version.py)
IMAGE  ?= ghcr.io/gpu-npd/gpu-npd:$(VERSION)
BUILDER ?= $(shell command -v docker >/dev/null && docker info >/dev/null 2>&1 && echo docker || (command -v podman >/dev/null && echo podman) || echo none)

.PHONY: podresources-stubs run test fuzz bench image image-test wheels constraints clean venv release set-version manifests schema

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# `make run` never writes to a cluster unless asked: a kubeconfig on this machine is left alone (mode off: stdout and
# /metrics only) until MODE=observe or MODE=enforce says otherwise. `exec`: the agent is make's child, so the SIGTERM
# make passes on when killed reaches it (not only the shell, which would leave the agent running, orphaned).
MODE ?= off
run: $(STAMP)
	GPU_NPD_MODE=$(MODE) exec $(BIN)/gpu-npd run --state-dir .state --metrics-address 127.0.0.1:9810 $(ARGS)

# the tree compiled to bytecode first: where PYTHONDONTWRITEBYTECODE is set (this host), imports never write it, and
# every `gpu-npd` process the suite starts compiled ~130 modules from source at its start
# (`import agent.app`: 0.31 s CPU against 0.20 s with bytecode); up-to-date files are skipped
# the suite in JOBS processes (pytest-xdist): up to 4, one per CPU, since most tests wait on agent processes of their
# own; on this 2-CPU host under load, two took a run from 14:19 to 7:06-7:46. JOBS=0: one process, in order.
# --dist worksteal: a worker that runs out of tests takes half of another's queue, not idle while the other ends on
# its tail of process tests (tests/cluster, -n 2, same host: 70-74 s against 84-88 s with the default `load`)
JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); if [ $$n -gt 4 ]; then n=4; elif [ $$n -lt 2 ]; then n=0; fi; echo $$n)
test: $(STAMP)
	$(BIN)/python -m compileall -q -x '/(\.venv|\.git|build|dist)/' .
	$(BIN)/python -m pytest -q -n $(JOBS) --dist worksteal $(PYTEST_ARGS)

fuzz: $(STAMP)
	HOSTILE_FULL=1 FUZZ_EXAMPLES=200000 $(BIN)/python -m pytest -q tests/parsers/test_hostile_inputs.py \
		tests/triage/test_triage_hostile.py
	FUZZ_EXAMPLES=20000 $(BIN)/python -m pytest -q tests/agent/test_config_fuzz.py

bench: $(STAMP)
	$(BIN)/python bench/report.py $(if $(BASELINE),--baseline $(BASELINE))

BASE   ?= $(if $(filter docker,$(BUILDER)),python:3.11-slim,localhost/gpu-npd-base:bookworm-tini)
# podman/buildah here: runc (crun refuses this machine's hybrid cgroups), no default ulimits (no CAP_SYS_RESOURCE)
export CONTAINERS_CONF ?= $(CURDIR)/deploy/image/containers.conf
PODMAN_RUNTIME := $(if $(filter docker,$(BUILDER)),,--runtime runc)

wheels: $(STAMP)
	rm -rf build/wheels
	$(BIN)/pip wheel --quiet --wheel-dir build/wheels -c deploy/image/constraints.txt .

image: wheels
	@test "$(BUILDER)" != none || { echo "make image: no docker daemon or podman here (apt-get install podman mmdebstrap runc)"; exit 2; }
	@if [ "$(BUILDER)" != docker ] && ! podman image exists $(BASE); then deploy/image/base.sh $(BASE); fi
	$(BUILDER) build $(PODMAN_RUNTIME) --build-arg BASE=$(BASE) --build-arg VERSION=$(VERSION) -t $(IMAGE) .
	@$(BUILDER) image inspect $(IMAGE) --format 'built $(IMAGE): {{.Size}} bytes'

# The image run as the DaemonSet runs it (tests_image/): read-only root, the manifest's mounts, env and
# security context, a kmsg FIFO, /metrics, /healthz, an Xid -> condition on stdout, SIGTERM exit 0.
image-test: image
	IMAGE=$(IMAGE) PODMAN_RUNTIME="$(PODMAN_RUNTIME)" BUILDER=$(BUILDER) $(BIN)/python -m pytest -q tests_image

# A release: gated by tests/deploy/test_release.py (one version everywhere, a CHANGELOG section for it, the packaged chart
# renders), then dist/ gets the wheel, the image (tagged $(VERSION), also saved as an OCI archive) and the chart.
# Push: docs/install.md "Your own registry".
CHART := deploy/helm/gpu-npd
release: $(STAMP)
	$(BIN)/python -m pytest -q tests/deploy/test_release.py
	rm -rf dist && mkdir -p dist
	$(BIN)/pip wheel --quiet --no-deps --wheel-dir dist .
	$(MAKE) image
	$(BUILDER) save --format oci-archive -o dist/gpu-npd-$(VERSION).oci.tar $(IMAGE) 2>/dev/null \
	  || $(BUILDER) save -o dist/gpu-npd-$(VERSION).image.tar $(IMAGE)
	$(BIN)/python -c 'import helm_python as h; print(h.package("$(CHART)", destination="dist", version="$(VERSION)", app_version="$(VERSION)"))'
	@ls -l dist

# The version lives in parsers/version.py (pyproject.toml takes it from there); the files that cannot read it (Chart.yaml, the kustomize image tags) are
# rewritten here, and tests/deploy/test_release.py fails while any differs. make set-version NEW=0.2.0
set-version:
	@test -n "$(NEW)" || { echo "usage: make set-version NEW=x.y.z"; exit 2; }
	sed -i 's/^VERSION = ".*"/VERSION = "$(NEW)"/' parsers/version.py
	sed -i 's/^version: .*/version: $(NEW)/; s/^appVersion: .*/appVersion: "$(NEW)"/' $(CHART)/Chart.yaml
	sed -i 's/^    newTag: .*/    newTag: $(NEW)/' deploy/base/kustomization.yaml
	sed -i 's|ghcr.io/gpu-npd/gpu-npd:[0-9][^ ]*$$|ghcr.io/gpu-npd/gpu-npd:$(NEW)|' deploy/base/daemonset.yaml deploy/daemonset.yaml deploy/examples/fabric-check/fabric-check.yaml
	@echo "now add a '## $(NEW)' section with upgrade notes to CHANGELOG.md"

# deploy/daemonset.yaml: the observe overlay rendered, one file for `kubectl apply -f` users (a test keeps it equal
# to what kustomize renders); and the chart's schema. Each is written whole or not at all (a missing kubectl, a
# failing import left the file cut short before)
manifests: schema
	{ printf '%s\n' '# Generated by `make manifests`: kubectl kustomize deploy/overlays/observe (a test keeps them equal).' \
	  '# One file for kubectl apply -f; to change the configuration, use an overlay (docs/install.md).'; \
	  kubectl kustomize deploy/overlays/observe; } > deploy/daemonset.yaml.tmp \
	  || { rm -f deploy/daemonset.yaml.tmp; exit 1; }
	mv deploy/daemonset.yaml.tmp deploy/daemonset.yaml

# the chart's values.schema.json from agent/settings.py, no kubectl needed: after a change to a configuration key or
# to a table a key derives from (a sink's row, a built-in check's: docs/extending.md); tests/deploy/test_helm.py
# fails until it is rewritten. Its venv made first where missing (a fresh clone's CI job checking the schema is current:
# `make schema && git diff --exit-code`), as every target that runs the tree's Python; a temporary file an interrupt
# leaves behind is ignored by the chart (its .helmignore), never packaged
SCHEMA := deploy/helm/gpu-npd/values.schema.json
schema: $(STAMP)
	$(BIN)/python -m agent.config > $(SCHEMA).tmp || { rm -f $(SCHEMA).tmp; exit 1; }
	mv $(SCHEMA).tmp $(SCHEMA)

constraints: $(STAMP)
	$(BIN)/python deploy/image/pin.py > deploy/image/constraints.txt

clean:
	rm -rf $(VENV) build *.egg-info bench/out .pytest_cache

# The kubelet PodResources messages from the proto copied in agent/podresources (tests/agent/kube/test_podfault.py checks it)
podresources-stubs: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -I. --python_out=. agent/podresources/api.proto
