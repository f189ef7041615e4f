# Fresh machine: `make all` runs the workflow on config.yaml, `make test` runs the tests.
# Both create .venv from the pinned requirements first (once).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all test venv clean

all: $(STAMP)
	$(BIN)/snakemake --cores all

test: $(STAMP)
	$(BIN)/python -m pytest

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

clean:
	rm -rf results reports .snakemake
