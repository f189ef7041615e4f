"""Run as a catalog workflow is: a driver environment of Snakemake and envs/driver.txt alone (neither JAX nor
the package; `make test` builds it) parses the workflow from a fresh copy, the Snakefile finding its parse-time
code in the checkout, and refuses a bad config there as the project's own environment does."""

from __future__ import annotations

import os
import re
import subprocess
from importlib import metadata
from pathlib import Path

import pytest
from system_tiers import need
from workflow_copy import ROOT, copy_workflow

pytestmark = pytest.mark.workflow

DRIVER = ROOT / ".venv-driver" / "bin"
need("driver", (str(DRIVER / "snakemake"),), "`make .venv-driver/.installed` (pip alone; `make test` builds it)")


def _driver(work: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([str(DRIVER / "snakemake"), *args], cwd=work, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_driver_holds_neither_jax_nor_the_package():
    found = subprocess.run([str(DRIVER / "python"), "-c", "import importlib.util as u; "
                            "print([m for m in ('jax', 'jaxpitfalls', 'pandas') if u.find_spec(m)])"],
                           capture_output=True, text=True, cwd="/", check=True)
    assert found.stdout.strip() == "[]"


def test_a_driver_environment_parses_the_workflow_from_the_checkout(tmp_path):
    work = copy_workflow(tmp_path)  # src/ with the egg-info an editable install leaves: not the driver's package
    planned = _driver(work, "-n", "--cores", "1", "--configfile", "presets/smoke.yaml")
    assert planned.returncode == 0, planned.stdout[-3000:] + planned.stderr[-3000:]
    assert re.search(r"run_study\s+\d+", planned.stdout) and "render_report" in planned.stdout

    refused = _driver(work, "-n", "--configfile", "presets/smoke.yaml",
                      "--config", "studies={'dispatch': {'measure': {'repeat': 5}}}")
    assert refused.returncode != 0
    assert "config studies.dispatch.measure: unknown key 'repeat'" in refused.stdout + refused.stderr


def test_the_drivers_pins_are_the_projects():
    pins = dict(re.findall(r"^([\w-]+)==([\w.]+)", (ROOT / "envs/common.txt").read_text(), flags=re.M))
    driver = dict(re.findall(r"^([\w-]+)==([\w.]+)", (ROOT / "envs/driver.txt").read_text(), flags=re.M))
    shared = {name: version for name, version in driver.items() if name in pins}
    assert shared == {name: pins[name] for name in shared} and set(driver) - set(shared) == {"numpy"}
    assert driver["numpy"] == metadata.version("numpy"), "the driver's numpy is the one the pins install"
