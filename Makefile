# Fresh machine: `make all` runs the workflow on config.yaml, `make test` runs the tests.
# Both create .venv from the pinned requirements first (once).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: all test venv clean

all: $(STAMP)
	$(BIN)/snakemake --cores all

# pytest exits 5 when it collects no tests: said loudly, not counted as a failure.
test: $(STAMP)
	@$(BIN)/python -m pytest || { rc=$$?; [ $$rc -eq 5 ] && echo "pytest collected no tests" && exit 0; exit $$rc; }

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

clean:
	rm -rf results reports .snakemake
