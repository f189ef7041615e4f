"""The release history's plan and environments: pins from the default table, the config over it; the base
configuration by default; a release that fails to install or import recorded with its reason, not raised; the
swept package's version recorded whatever the package, and checked before anything is timed."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml

from jaxpitfalls import pins, plan
from jaxpitfalls.across_runs import releases
from jaxpitfalls.configcheck.schema import fill_defaults, load
from jaxpitfalls.harness import environment
from jaxpitfalls.jobs import release_env

ROOT = Path(__file__).resolve().parents[1]


def _config(**history) -> dict:
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["history"] = history
    fill_defaults(config, load(ROOT / "workflow" / "schemas" / "config.schema.yaml"))
    return config


def test_each_release_gets_its_row_of_the_default_table_and_the_config_pins_over_it():
    config = _config(versions=["0.11.7", "0.11.11", "0.12.0"], pins={"0.12.0": {"jax": "0.5.0"}})
    assert releases.requirements(config, "0.11.7") == [
        "equinox==0.11.7", "jax==0.4.34", "jaxlib==0.4.34", "optax==0.2.3", "numpy", "safetensors"]
    assert releases.requirements(config, "0.11.11")[:3] == ["equinox==0.11.11", "jax==0.4.38", "jaxlib==0.4.38"]
    assert "jax==0.5.0" in releases.requirements(config, "0.12.0")  # its own pin over the table's row
    shared = _config(versions=["0.11.7"], **{"with": {"jax": "0.4.35", "numpy": "1.26.4"}})
    assert releases.requirements(shared, "0.11.7") == [
        "equinox==0.11.7", "jax==0.4.35", "jaxlib==0.4.34", "optax==0.2.3", "numpy==1.26.4", "safetensors"]
    assert pins.default_pins("equinox", "0.10.0") == {} and pins.default_pins("optax", "0.2.3") == {}
    # another package's history: equinox and optax (what every timing job imports) unpinned, not left out
    assert releases.requirements(_config(package="optax", versions=["0.2.7"]), "0.2.7") == [
        "optax==0.2.7", "equinox", "numpy", "safetensors"]


def test_the_history_times_the_study_s_base_configuration_unless_told_all():
    base = plan.history_configurations(_config(versions=["0.11.7"]))
    assert len(base) == 1 and base[0]["id"].startswith("layers")
    every = plan.history_configurations(_config(versions=["0.11.7"], configs="all"))
    assert len(every) > 1 and base[0] in every


def test_an_environment_that_fails_is_recorded_with_its_reason():
    failing = ("pip install", [sys.executable, "-c", "import sys; print('no matching distribution'); sys.exit(1)"])
    status = release_env._status("python", ["equinox==0.0.0"], [failing])
    assert not status["ok"] and status["reason"] == "pip install failed: no matching distribution"
    assert status["requirements"] == ["equinox==0.0.0"]


@pytest.mark.slow
def test_an_existing_environment_is_checked_by_importing_what_a_timing_job_imports():
    equinox = __import__("equinox").__version__
    status = release_env.existing(sys.executable, "equinox", equinox)
    assert status["ok"] and set(status["versions"]) == set(release_env.IMPORTS)
    assert status["versions"]["equinox"] == equinox


@pytest.mark.slow
def test_a_swept_package_the_timed_code_never_imports_is_recorded_and_its_release_checked():
    """The null history's package (safetensors, which no study calls): recorded in the environment's status
    whatever it is, and an environment holding another release of it is refused before anything is timed."""
    installed = metadata.version("safetensors")
    held = release_env.existing(sys.executable, "safetensors", installed)
    assert held["ok"] and held["versions"]["safetensors"] == installed
    other = release_env.existing(sys.executable, "safetensors", "0.0.1")
    assert not other["ok"] and other["reason"] == f"safetensors {installed} installed, not 0.0.1"


def test_a_result_records_the_version_of_any_package_its_request_names():
    request = {"conf": {}, "settings": {}, "model_spec": {}, "record": ["safetensors", "packaging"]}
    packages = environment.of_request(request)["packages"]
    assert packages["safetensors"] == metadata.version("safetensors")
    assert packages["packaging"] == metadata.version("packaging") and packages["jax"]


def test_the_timing_jobs_run_in_blocks_a_shuffled_one_then_its_reverse():
    """Two jobs per release by default: job 1 of every release in an order seeded by what is timed (not the
    releases' order), then job 2 in the reverse, so every release's two jobs sit at the same mean place and a
    drift over the run cannot read as a step; the same on every parse."""
    versions = ["0.11.2", "0.11.4", "0.11.5", "0.11.6", "0.11.7", "0.11.8", "0.11.9", "0.11.10"]
    config = _config(versions=versions)
    assert config["history"]["repeats"] == 2
    planned, order = releases.runs(config), releases.run_order(config)
    assert len(planned) == 16 and sorted(order) == sorted(planned) and order == releases.run_order(config)
    first = [versions.index(path.split("/")[3]) for path in order[:8]]
    assert first != sorted(first) and [path.split("/")[3] for path in order[8:]] == [
        path.split("/")[3] for path in reversed(order[:8])] and all("/job2/" in path for path in order[8:])
    place = {v: [i for i, path in enumerate(order) if path.split("/")[3] == v] for v in versions}
    assert {sum(p) / 2 for p in place.values()} == {7.5}
    priorities = [releases.run_priorities(config)[run] for run in order]
    assert priorities == sorted(priorities, reverse=True) and 0 < min(priorities) and max(priorities) == 1


@pytest.mark.slow
def test_an_environment_without_a_benchmark_file_s_own_import_is_refused_before_any_job_times(tmp_path):
    """A file importing a package its release's environment lacks was found by every timing job in turn."""
    from jaxpitfalls import sources

    (tmp_path / "helpers.py").write_text("import json\n")
    bench = tmp_path / "bench.py"
    bench.write_text("import jax\nimport helpers\nfrom not_installed_anywhere import x\n")
    also = sources.installed_imports(bench)
    assert also == ("jax", "json", "not_installed_anywhere")  # a neighbour's imports too, not the neighbour
    equinox = __import__("equinox").__version__
    status = release_env.existing(sys.executable, "equinox", equinox, also)
    assert not status["ok"] and "No module named 'not_installed_anywhere'" in status["reason"]
