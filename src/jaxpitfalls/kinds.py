"""The kinds of job a config runs, named (each study's configurations and the branches of its settings), so
tests/test_kinds.py can check the tests run every kind that config.yaml and the presets run. JAX-free.
"""

from __future__ import annotations

from typing import Any

from . import plan, registry
from .contract.settings import Timing


def _settings(config: dict[str, Any], study: str, timing: Timing) -> set[str]:
    """The branches the study's own settings take: how its jobs run and which configurations are traced."""
    return {
        "several worker processes" if timing.processes > 1 else "one worker process",
        f"trace: {config['studies'][study]['trace']}",
        "compilation cache on" if plan.job_runtime(config, study)["jax_cache_dir"] else "compilation cache off",
    }


def _sampling(timing: Timing) -> set[str]:
    """The branches of how rounds are sampled and judged, which the harness applies alike to every study."""
    sampling = timing.sampling
    return {
        "processes until target_precision" if timing.target_precision > 0 else "no precision target",
        f"on_contention: {sampling.on_contention}",
        "rounds bounded by budget_s" if sampling.budget_s else "a fixed number of rounds",
        "samples calibrated to min_sample_s" if sampling.min_sample_s > 0 else "one call per sample",
    }


def _configurations(config: dict[str, Any], study: str, timing: Timing) -> set[str]:
    """The kinds of the study's configurations as their timing jobs get them: base or not, and its spec's."""
    spec = registry.spec(study)
    found = set()
    base = plan.base_id(config["studies"][study])
    for listed in plan.configurations(config["studies"][study]):
        conf = plan.timing_configuration(config, study, listed["id"])
        at_base = listed["id"] == base
        found.add("the base configuration" if at_base else "a non-base configuration")
        found |= set(spec.kinds(conf, timing, at_base)) if spec.kinds else set()
    return found


def of_config(config: dict[str, Any]) -> set[str]:
    """Every kind of job a validated config runs, as `<study>: <kind>`, and the sampling branches as
    `any study: <kind>`."""
    found = set()
    for study in plan.enabled_studies(config):
        timing = registry.spec(study).timing.of(plan.timing_settings(config, study))
        found |= {f"{study}: {kind}" for kind in _settings(config, study, timing) | _configurations(
            config, study, timing)} | {f"any study: {kind}" for kind in _sampling(timing)}
    return found
