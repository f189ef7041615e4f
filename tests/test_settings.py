"""A study's `measure` settings, typed: what each job is handed is exactly what its settings class reads, every
key of the schema is read by some job, and the classes' defaults are the schema's."""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, fields
from pathlib import Path

import pytest
import yaml

from jaxpitfalls import plan, registry
from jaxpitfalls.configcheck.schema import fill_defaults, load
from jaxpitfalls.contract.settings import Timing
from jaxpitfalls.harness.sampling import Sampling
from jaxpitfalls.studies.dispatch.spec import Timing as DispatchTiming

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = load(ROOT / "workflow" / "schemas" / "config.schema.yaml")


@pytest.fixture(scope="module")
def config():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    fill_defaults(config, SCHEMA)
    return config


def _measure_schema(name: str) -> dict:
    return SCHEMA["properties"]["studies"]["properties"][name]["properties"]["measure"]["properties"]


@pytest.mark.parametrize("name", registry.names())
def test_every_measure_key_is_read_by_a_job_and_no_job_reads_an_unknown_one(name):
    spec = registry.spec(name)
    read = set(spec.timing.keys()) | set(spec.traced.keys())
    # a study's schema may offer no time budget (dispatch: its rounds are exact); Sampling then has none
    assert set(_measure_schema(name)) <= read and read - set(_measure_schema(name)) <= {"budget_s"}, name


@pytest.mark.parametrize("name", registry.names())
def test_the_study_classes_defaults_are_the_schemas(name):
    """Sampling's own defaults serve the harness used directly; a study's classes default as its schema does."""
    spec, schema = registry.spec(name), _measure_schema(name)
    for cls in (spec.timing, spec.traced):
        for f in fields(cls):
            if f.name != "sampling" and f.default is not MISSING and f.name not in {g.name for g in fields(Sampling)}:
                assert schema[f.name]["default"] == f.default, (name, cls.__qualname__, f.name)


def test_each_job_is_handed_what_it_reads_and_reads_it_by_attribute(config):
    timing = plan.timing_settings(config, "dispatch")
    assert "trace_steps" not in timing and timing["warmup_steps"] == 2
    typed = DispatchTiming.of(timing)
    assert (typed.warmup_steps, typed.steps_per_sample, typed.processes) == (2, 4, 3)
    assert typed.sampling.rounds == 6 and typed.sampling.on_contention == "retry"
    base = plan.configurations(config["studies"]["dispatch"])[0]["id"]
    assert set(plan.trace_settings(config, "dispatch", base)) == {"trace_steps", "captures", "warmup_steps",
                                                                  "steps_per_sample"}
    tree_at = plan.configurations(config["studies"]["tree_at"])[0]["id"]
    assert set(plan.trace_settings(config, "tree_at", tree_at)) == {"trace_steps", "captures"}

    assert registry.spec("generation").timing.of(plan.timing_settings(config, "generation")).eager == "base"
    assert "eager" not in plan.timing_settings(config, "extraction")


def test_a_key_no_job_reads_is_refused_by_name():
    with pytest.raises(ValueError, match=r"measure settings \['eager'\]: .*settings.Timing reads only"):
        Timing.of({"rounds": 2, "eager": "all"})
    with pytest.raises(FrozenInstanceError):
        Timing.of({"rounds": 2}).processes = 3  # frozen: read, never edited


@pytest.mark.parametrize("key, cls", [("compare", "Compare"), ("history", "History")])
def test_the_compare_and_history_blocks_are_typed_with_the_schemas_keys(config, key, cls):
    """Each key of the block is a field (`with`: shared_pins), each field a key; a key no field names is refused."""
    from jaxpitfalls.across_runs import settings

    typed = getattr(settings, cls)
    schema = set(SCHEMA["properties"][key]["properties"])
    assert {{"shared_pins": "with"}.get(f.name, f.name) for f in fields(typed)} == schema
    read = typed.of(config[key])
    assert all(getattr(read, f.name) is not None for f in fields(typed))
    with pytest.raises(KeyError, match="no setting"):
        typed.of(config[key] | {"rounds_per_side": 3})


def test_a_lockstep_job_reads_its_configurations_allocation_and_the_block_elsewhere(config):
    """`compare.allocation` gives one configuration's job its own processes and rounds; another's reads the block's,
    and neither reads what the lockstep does not (the threshold, the allocation itself)."""
    from jaxpitfalls.across_runs.settings import Lockstep, allocated

    block = config["compare"] | {"sides": {"a": {}, "b": {}}, "processes": 5, "rounds": 30,
                                 "allocation": {"deep": {"processes": 8, "rounds": 6}, "wide": {"rounds": 50}}}
    assert Lockstep.of(allocated(block, "deep")) == Lockstep.of(block | {"processes": 8, "rounds": 6})
    assert (allocated(block, "wide")["processes"], allocated(block, "wide")["rounds"]) == (5, 50)
    assert allocated(block, "base") == allocated(block | {"allocation": {}}, "base")
    assert {"threshold", "allocation"}.isdisjoint(allocated(block, "deep"))


def test_a_share_that_changes_nothing_is_handed_to_no_job(config):
    """The schema's `target_share: 1`, or a share without a precision target, is left out of a job's settings, so a
    results folder timed before the key existed reruns nothing; a share that binds is handed on."""
    from jaxpitfalls.across_runs.settings import allocated

    assert "target_share" not in plan.timing_settings(config, "dispatch")
    block = config["compare"] | {"sides": {"a": {}, "b": {}}, "processes": 5, "target_precision": 0.03,
                                 "allocation": {"deep": {"target_share": 0.8}, "all": {"target_share": 1}}}
    assert allocated(block, "deep")["target_share"] == 0.8
    assert "target_share" not in allocated(block, "all")
    assert "target_share" not in allocated(block | {"target_precision": 0}, "deep")
    bare = {k: v for k, v in block.items() if k != "target_share"}
    assert allocated(bare, "deep")["target_share"] == 0.8  # an allocation's own key, absent from the block


def test_the_schemas_empty_variants_is_handed_to_no_job_and_named_ones_are(config):
    """`compare.variants: []` (every variant) is left out of a lockstep job's settings and the calibration's, so a
    results folder timed before the key existed reruns nothing; variants named are handed on, and rerun."""
    from jaxpitfalls.across_runs.settings import Lockstep, allocated, calibrated

    block = config["compare"] | {"sides": {"a": {}, "b": {}}}
    assert block["variants"] == [] and "variants" not in allocated(block, "base") | calibrated(block)
    assert Lockstep.of(allocated(block, "base")).variants == ()
    named = block | {"variants": ["jit_flat"]}
    assert allocated(named, "base")["variants"] == calibrated(named)["variants"] == ["jit_flat"]
