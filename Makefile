# Two commands on a fresh machine: `make run` and `make test`; each makes its venv when missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
IMAGE  ?= ghcr.io/gpu-npd/gpu-npd:$(VERSION)
BUILDER ?= $(shell command -v docker >/dev/null && docker info >/dev/null 2>&1 && echo docker || (command -v buildah >/dev/null && echo buildah) || (command -v podman >/dev/null && echo podman) || echo none)

.PHONY: run test bench image clean venv

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/gpu-npd run --state-dir .state --metrics-address 127.0.0.1:9810 $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python bench/parse.py
	$(BIN)/python bench/agent.py all
	$(BIN)/python bench/poll.py
	$(BIN)/python bench/podlogs.py
	$(BIN)/python bench/kube_scale.py

image:
	@test "$(BUILDER)" != none || { echo "make image: no docker daemon, buildah or podman here"; exit 2; }
	$(BUILDER) build -t $(IMAGE) .

clean:
	rm -rf $(VENV) build *.egg-info bench/out .pytest_cache
