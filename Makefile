# Fresh machine: `make all` runs the workflow on config.yaml, `make test` runs the tests.
# Both create .venv from the pinned requirements first (once).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The tests' own tools (envs/test.txt) beside it: make all does without them.
TESTS := $(VENV)/.tests-installed

.PHONY: all test test-fast venv clean compare-equinox history-equinox browser-packages slurm-packages reference \
	calibrate calibrate-pyperf

all: $(STAMP)
	$(BIN)/snakemake --cores all

# The HTML report test opens the report in Debian's chromium (tests/report_browser.py).
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
# Whether this machine can install Debian packages (apt-get, and root or sudo without a password). Where it can,
# `make test` installs the browser and Slurm and requires their tests (JAXPITFALLS_ALL_TIERS: a skip fails, as in
# CI); where it cannot (a laptop, macOS, a login node) those tests skip, each saying what it needs.
CAN_INSTALL := $(shell command -v apt-get >/dev/null && { [ "$$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null; } \
	&& echo yes)
BROWSER := /usr/bin/chromium /usr/bin/chromedriver
$(BROWSER):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver
browser-packages: $(BROWSER)

# The test cluster (scripts/slurm_cluster.sh, tests/test_slurm.py): Debian's Slurm with accounting.
SLURM := /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmdbd /usr/sbin/munged /usr/sbin/mariadbd
$(SLURM) &:
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq slurmctld slurmd slurm-client slurmdbd munge \
		mariadb-server
slurm-packages: $(SLURM)

# pip byte-compiles what it installs on one core; compileall does it on every core. As pip does, a file that does not
# compile for this Python (torch ships test files for Python 3.12 only) is left as source, not a failure.
COMPILE = $(1)/bin/python -m compileall -qq -j 0 $(1)/lib || true

# The driver environment (envs/driver.txt): Snakemake and what the parse needs, neither JAX nor the package, as
# a catalog workflow is run (tests/test_driver.py parses the workflow with it).
DRIVER := .venv-driver/.installed
$(DRIVER): envs/driver.txt
	test -x .venv-driver/bin/python || $(PY) -m venv .venv-driver
	.venv-driver/bin/python -m pip install --quiet --upgrade pip
	.venv-driver/bin/python -m pip install --quiet --no-compile -r envs/driver.txt
	$(call COMPILE,.venv-driver)
	touch $@

# Every test in one pytest session on every core, file by file (a module's fixtures compile once; pytest-xdist's
# xdist_group is not honoured with this pytest, so no test relies on it), the longest files first
# (tests/conftest.py) so that no worker ends alone with one: the unit tests fill in between. The smoke run is made
# once by the first worker that needs it (the others wait for it); a test that runs snakemake works in a copy.
# pytest exits 5 when it collects no tests: said loudly, not counted as a failure.
PYTEST = $(BIN)/python -m pytest $(1) || { rc=$$?; [ $$rc -eq 5 ] && echo "pytest collected no tests" && exit 0; exit $$rc; }

# The two environments are installed side by side (pip installs on one core), then Snakemake's own best-practice
# checks and snakefmt's formatting (each fails on a finding), then the tests.
test: $(if $(CAN_INSTALL),$(BROWSER) $(SLURM))
	@$(MAKE) --no-print-directory --jobs=2 $(if $(filter output-sync,$(.FEATURES)),--output-sync=target) $(TESTS) $(DRIVER)
	@$(if $(CAN_INSTALL),,echo "make test: no apt-get with root or sudo here: the browser and Slurm tests skip," \
		"each naming what it needs (make browser-packages slurm-packages, as root on Debian)")
	$(BIN)/snakemake --lint
	$(BIN)/snakefmt --check Snakefile workflow/rules/
	@$(if $(CAN_INSTALL),JAXPITFALLS_ALL_TIERS=1) $(call PYTEST,-n auto --dist loadfile --no-loadscope-reorder)

# The edit loop: the unit tests but those marked slow (each compiles a real model through XLA, or starts Snakemake
# or a job's process), no workflow run, no browser, no cluster; `make test` runs everything.
test-fast: $(STAMP) $(TESTS)
	@$(call PYTEST,-n auto --dist loadfile --no-loadscope-reorder -m "not workflow and not slow")

venv: $(STAMP)

$(TESTS): envs/test.txt $(STAMP)
	$(BIN)/python -m pip install --quiet --no-compile -r envs/test.txt
	$(call COMPILE,$(VENV))
	touch $@

$(STAMP): requirements.txt envs/common.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --no-compile -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(call COMPILE,$(VENV))
	touch $(STAMP)

# A reference: presets/seeds-cpu.yaml (the write-ups' model structures; 45 minutes on 2 cores is the target) in a
# fresh directory of its own, then a dated snapshot of its report, figures, run summary, environment and tables in
# docs/results/reference/ (checked against the run's bundle), not yet published. A reference is one whole run: the
# snapshot refuses a directory holding an earlier invocation's jobs. Publishing is a step of its own, once the
# snapshot is read: `jaxpitfalls reference publish docs/results/reference/<date>`, then
# `jaxpitfalls readme README.md` fills the README's summary from it.
REFERENCE_PRESET := presets/seeds-cpu.yaml
REFERENCE_RUN := runs/reference-$(shell date -u +%Y%m%dT%H%M%S)
reference: $(STAMP)
	$(BIN)/snakemake --cores all --configfile $(REFERENCE_PRESET) --directory $(REFERENCE_RUN)
	$(BIN)/jaxpitfalls reference snapshot $(REFERENCE_RUN) docs/results/reference --preset $(REFERENCE_PRESET)

# The lockstep statistics calibrated against known truths (presets/calibrate.yaml: this environment against
# itself, and against sides slowed by 5% and 10% of every sample): false alarms, coverage and power with their
# intervals, pyperf beside the lockstep on one callable (the published pairs: `make calibrate-pyperf` times them
# apart), and a null release history (a package the timed code never calls), published as
# docs/results/calibration.md with what it timed in docs/results/calibration/ (commit both). A change
# that only judges or words differently is published without timing again:
# `jaxpitfalls calibration rejudge --write`. A run that was killed resumes where it
# stopped, its finished jobs kept and the one cut short run again:
#   make calibrate CALIBRATE_RUN=runs/calibrate-<its stamp>
# (if Snakemake says the directory is locked and nothing else runs there, first:
#   .venv/bin/snakemake --unlock --configfile presets/calibrate.yaml --directory runs/calibrate-<its stamp>)
CALIBRATE_RUN := runs/calibrate-$(shell date -u +%Y%m%dT%H%M%S)
calibrate: $(STAMP)
	$(BIN)/snakemake --cores all --rerun-incomplete --configfile presets/calibrate.yaml --directory $(CALIBRATE_RUN) \
		reports/calibration.md reports/compare_lockstep.md
	$(BIN)/jaxpitfalls calibration publish $(CALIBRATE_RUN)

# pyperf's A/A pairs beside the lockstep (presets/calibrate.yaml's compare.pyperf), timed apart from `make
# calibrate`, whose page reads the published ones: they change with pyperf or the machine, not with the lockstep.
# Publishes the pairs into docs/results/calibration/ and renders the calibration page again (commit both).
CALIBRATE_PYPERF_RUN := runs/calibrate-pyperf-$(shell date -u +%Y%m%dT%H%M%S)
calibrate-pyperf: $(STAMP)
	$(BIN)/snakemake --cores all --rerun-incomplete --configfile presets/calibrate.yaml \
		--directory $(CALIBRATE_PYPERF_RUN) results/pyperf/pairs.json
	$(BIN)/jaxpitfalls calibration publish-pyperf $(CALIBRATE_PYPERF_RUN)

# Another environment from an envs/ spec: `make .venv-equinox-0.11.7/.installed` <- envs/equinox-0.11.7.txt.
.venv-%/.installed: $(wildcard envs/*.txt) pyproject.toml
	test -x .venv-$*/bin/python || $(PY) -m venv .venv-$*
	.venv-$*/bin/python -m pip install --quiet --upgrade pip
	.venv-$*/bin/python -m pip install --quiet -r envs/$*.txt
	.venv-$*/bin/python -m pip install --quiet --no-deps -e .
	touch $@

# The dispatch study under equinox 0.11.7 (filter_jit does not block per call) and 0.11.8 (it does), on the
# same JAX, timed in lockstep: each side's workers run in its own venv, the job in this one, so that rounds
# paired across the sides saw the same machine (README "Comparing environments"):
# runs/compare-equinox/reports/compare_lockstep.md.
EQX_OLD := equinox-0.11.7
EQX_NEW := equinox-0.11.8
compare-equinox: $(STAMP) .venv-$(EQX_OLD)/.installed .venv-$(EQX_NEW)/.installed
	$(BIN)/snakemake --cores all reports/compare_lockstep.md --directory runs/compare-equinox \
		--configfile presets/compare-equinox.yaml

# The dispatch study across eight equinox releases, each in an environment the workflow builds (docs/history.md):
# which release changed filter_jit's cost. runs/history-equinox/reports/history.md; publish its job table
# (results/tables/history.csv) as docs/results/history/equinox.csv with the verdicts docs/history.md states, so a change of
# the fit rejudges them (`jaxpitfalls history rejudge docs/results/history/equinox.csv equinox`).
history-equinox: $(STAMP)
	$(BIN)/snakemake --cores all reports/history.md --directory runs/history-equinox \
		--configfile presets/history-equinox.yaml

clean:
	rm -rf results reports .snakemake
