# Two commands on a fresh machine: `make run` and `make test`; each makes its venv when missing.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

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
	docker build -t gpu-npd:dev .

clean:
	rm -rf $(VENV) build *.egg-info bench/out .pytest_cache
