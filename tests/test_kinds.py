"""The tests run every kind of job that config.yaml and the presets run (jaxpitfalls.kinds): the smoke preset,
which the workflow tests run, and the overlays they add over it. `make all` once failed on a kind no test ran
(generation's non-base configurations under `measure.eager: base`, a KeyError) while every test passed."""

from __future__ import annotations

import pytest
from configs import RETRYING, ROOT, config_with

from jaxpitfalls import kinds

SMOKE = "presets/smoke.yaml"
SOURCES = ["config.yaml", *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "presets").glob("*.yaml"))
                            if p.name != "smoke.yaml")]


def run_by_tests(smoke: str | dict = SMOKE) -> set[str]:
    """The kinds the workflow tests run: the smoke preset, and the smoke preset under each overlay they add."""
    return kinds.of_config(config_with(smoke)) | kinds.of_config(config_with(smoke, RETRYING))


@pytest.mark.parametrize("source", SOURCES)
def test_the_workflow_tests_run_every_kind_of_job_that_it_runs(source):
    untested = kinds.of_config(config_with(*([] if source == "config.yaml" else [source]))) - run_by_tests()
    assert not untested, f"{source} runs kinds of job no workflow test runs (add them to {SMOKE}): {sorted(untested)}"


def test_a_kind_of_job_no_test_runs_is_named():
    """The smoke preset before the fix: generation's base and the demonstration only."""
    generation = {"studies": {"generation": {"sweep": {"prompt": []}}}}
    missing = kinds.of_config(config_with()) - run_by_tests(config_with(SMOKE, generation))
    assert "generation: uncached_eager left out: measure.eager: base (timed at the base configuration only)" in missing


def test_each_kind_follows_the_setting_or_value_that_chooses_it():
    found = kinds.of_config(config_with({"studies": {"generation": {"measure": {"eager": "all"}},
                                                     "dispatch": {"trace": "base", "measure": {"processes": 1}}}}))
    assert not any("measure.eager" in k for k in found)
    assert {"dispatch: trace: base", "dispatch: one worker process", "dispatch: attention fused",
            "dispatch: dropout on", "generation: warmup demonstration"} <= found
    assert "tree_at: compilation cache off" in found and "dispatch: compilation cache on" in found
