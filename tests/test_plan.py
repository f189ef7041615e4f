"""What the workflow plans from the config, and how bad config is refused."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from configs import ROOT, SCHEMA, config_with, validate

from jaxpitfalls import plan, registry, sources
from jaxpitfalls.configcheck.schema import schema_problems
from jaxpitfalls.contract import naming


def test_one_axis_at_a_time_sweep_with_the_base_once():
    study = {"model_family": "bert", "base": {"layers": 2, "hidden": 8, "dropout": 0.0},
             "sweep": {"layers": [1, 2, 4], "dropout": [0.1]}}
    confs = plan.configurations(study)
    ids = [c["id"] for c in confs]
    assert ids == ["layers2-hidden8-dropout0", "layers1-hidden8-dropout0", "layers4-hidden8-dropout0",
                   "layers2-hidden8-dropout0.1"]
    base = confs[0]
    assert base["axes"] == ["layers", "hidden", "dropout"] and base["model"] == "bert-L2-H8"
    assert confs[3]["axes"] == ["dropout"]
    assert [naming.is_base(c) for c in confs] == [True, False, False, False]


def test_default_config_validates_with_defaults_and_plans_models():
    config = config_with()
    assert config["studies"]["dispatch"]["measure"]["rounds"] >= 2
    models = plan.all_models(config)
    assert "bert-L4-H64" in models
    spec = plan.model_spec(config, "bert-L4-H64")
    assert spec["layers"] == 4 and spec["hidden"] == 64 and spec["seed"] == 0


@pytest.mark.parametrize("preset", ["presets/smoke.yaml", "presets/paper.yaml", "presets/seeds-cpu.yaml"])
def test_presets_validate(preset):
    config = config_with(preset)
    assert all(plan.configurations(config["studies"][s]) for s in plan.enabled_studies(config))


def test_a_study_s_own_measure_key_reaches_its_timing_job_and_no_other():
    """extraction's first_pass_rounds (its spec's Timing): handed to its timing job, read there; a study
    whose Timing lacks it is not handed it (nor the traces, which read only trace_steps)."""
    config = config_with("presets/seeds-cpu.yaml")
    settings = plan.timing_settings(config, "extraction")
    assert registry.spec("extraction").timing.of(settings).first_pass_sampling.rounds == 3
    assert plan.timing_settings(config_with(), "extraction")["first_pass_rounds"] is None
    assert "first_pass_rounds" not in plan.timing_settings(config, "generation")
    base = plan.configurations(config["studies"]["extraction"])[0]["id"]
    assert "first_pass_rounds" not in plan.trace_settings(config, "extraction", base)


def test_captures_are_taken_at_the_base_only():
    """The seeds preset's dispatch captures its base's trace several times (attribution_complete reads their
    spread) and every other traced configuration once (a capture at BERT-base's width costs ~10 s)."""
    config = config_with("presets/seeds-cpu.yaml")
    base, *others = (c["id"] for c in plan.traced_configurations(config, "dispatch"))
    assert plan.trace_settings(config, "dispatch", base)["captures"] > 1 and others
    assert all("captures" not in plan.trace_settings(config, "dispatch", other) for other in others)


def test_the_tests_workflow_runs_record_contention_and_never_fail_on_it():
    """The smoke preset, which every workflow run of the tests uses, keeps a contended round (marked) instead
    of waiting or failing: the suite passes beside a busy process (tests/test_machine.py injects contention)."""
    config = config_with("presets/smoke.yaml")
    assert {s: config["studies"][s]["measure"]["on_contention"] for s in plan.enabled_studies(config)} == {
        s: "warn" for s in registry.names()}


def test_studies_set_their_own_runtime_and_trace_only_what_they_ask():
    config = config_with()
    tree_at, dispatch = plan.job_runtime(config, "tree_at"), plan.job_runtime(config, "dispatch")
    assert "--xla_force_host_platform_device_count=2" in tree_at["xla_flags"] and not dispatch["xla_flags"]
    assert tree_at["jax_cache_dir"] == "" and dispatch["jax_cache_dir"] == config["jax_cache_dir"]
    traced = plan.traced_configurations(config, "tree_at")
    assert [c["layers"] for c in traced] == [config["studies"]["tree_at"]["base"]["layers"]]
    assert plan.traced_configurations(config, "dispatch") == plan.configurations(config["studies"]["dispatch"])
    own = plan.own_preparations(config, "tree_at")  # bert-L4-H64 serves both studies, the deeper ones tree_at
    assert "prepare_model/bert-L4-H64" not in own and "prepare_model/bert-L16-H64" in own
    assert "prepare_data/corpus" not in plan.own_preparations(config, "generation")  # extraction reads it too
    config["studies"]["extraction"]["enabled"] = False
    assert "prepare_data/corpus" in plan.own_preparations(config, "generation")


@pytest.mark.parametrize("path, value, key", [
    (("studies", "dispatch", "base", "layers"), 0, "layers"),
    (("studies", "dispatch", "measure", "rounds"), "many", "rounds"),
    (("studies", "dispatch", "sweep", "width"), [1], "width"),
    (("jax_cache"), "x", "jax_cache"),
    (("studies", "tree_at", "compilation_cache"), True, "compilation_cache"),
    (("studies", "tree_at", "measure", "budget_s"), 0, "budget_s"),
])
def test_invalid_config_fails_naming_the_key(path, value, key):
    config = copy.deepcopy(config_with())
    if isinstance(path, str):
        config[path] = value
    else:
        node = config
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value
    problems, _ = schema_problems(config, SCHEMA)
    assert len(problems) == 1 and key in problems[0], problems


def test_model_names_must_follow_the_pattern():
    with pytest.raises(ValueError, match="L<layers>"):
        plan.model_spec(config_with(), "bert-large")


def _sources(module: str) -> set[str]:
    return {Path(p).resolve().relative_to(ROOT / "src" / "jaxpitfalls").as_posix() for p in sources.files_of(module)}


def test_rule_sources_are_relative_to_the_workflow_directory_that_holds_them(monkeypatch, tmp_path):
    """Snakemake keys an input's recorded checksum by its path: relative paths keep a copied or moved workflow
    directory up to date (the shared smoke run is copied by the tests that run jobs on other settings)."""
    monkeypatch.chdir(ROOT)
    assert all(p.startswith("src/jaxpitfalls/") for p in sources.files_of("runtime"))
    monkeypatch.chdir(tmp_path)  # a --directory outside the checkout: the package is named where it lies
    assert all(Path(p).is_absolute() and Path(p).is_file() for p in sources.files_of("runtime"))


def test_a_rule_naming_a_module_that_moved_is_refused_by_name():
    with pytest.raises(KeyError, match=r"no module report\.comparison\.compare of jaxpitfalls: a rule names"):
        sources.files_of("report.comparison.compare", "runtime")


def test_rule_sources_are_the_modules_a_rule_imports():
    study = _sources("studies.dispatch.measure")
    assert {"studies/dispatch/measure.py", "studies/dispatch/spec.py", "models/bert.py", "harness/protocol.py",
            "__init__.py"} <= study
    # figures and claims live apart: editing them must not rerun the timed jobs
    assert "studies/dispatch/report.py" not in study and "report/scorecard/markdown.py" not in study
    parse = _sources("traces")
    assert "breakdown.py" in parse and "models/bert.py" not in parse and "harness/tracing.py" not in parse
    # a timing job reads its study through the registry, whose functions import other parts when asked: the
    # claims' rules, the figures and the benchmark files' code are not its inputs (each edit reran every timing)
    timing = {p.removeprefix("src/jaxpitfalls/") for p in
              registry.part_sources("dispatch", "measure", "jobs.study", "jobs.study_worker", "runtime")}
    assert {"registry.py", "jobs/study_worker.py", "harness/protocol.py"} <= timing
    assert not timing & {"contract/decisions.py", "contract/judging.py", "contract/figures.py",
                         "benchfile/judges.py", "benchfile/report.py", "benchfile/measure.py"}
    # ... while the layering check still sees the registry's lazy imports
    assert "jaxpitfalls.benchfile.judges" in sources.imported_by("jaxpitfalls.registry")


def test_a_module_depends_on_what_its_packages_import():
    report = _sources("studies.dispatch.report")
    # report.py sits in the study's package: importing it runs the package's __init__ (a docstring) and
    # reaches the spec, never the measuring code
    assert {"studies/dispatch/__init__.py", "studies/dispatch/spec.py", "breakdown.py"} <= report
    assert "studies/dispatch/measure.py" not in report and "models/bert.py" not in report


def test_explicit_points_add_configurations_on_no_axis():
    study = {"model_family": "bert", "base": {"layers": 4, "hidden": 768}, "sweep": {"layers": [12]},
             "points": [{"layers": 24, "hidden": 2048}, {"layers": 4}]}
    confs = plan.configurations(study)
    assert [c["id"] for c in confs] == ["layers4-hidden768", "layers12-hidden768", "layers24-hidden2048"]
    assert confs[2]["axes"] == ["points"] and confs[2]["model"] == "bert-L24-H2048"
    assert "points" in confs[0]["axes"]  # a point equal to the base is the base
    assert [naming.is_base(c) for c in confs] == [True, False, False]


def test_a_configuration_that_differs_from_the_base_in_keys_its_claims_compare_across_jobs_is_anchored_to_it():
    """dispatch anchors layers (StudySpec.anchored): those timing jobs time the base beside their own variants and
    get the base's model; a change of size (hidden), of dropout or attention as a job of its own, or the base
    itself is not anchored. The base's job alone gets the `beside` settings."""
    config = config_with()
    config["studies"]["dispatch"] |= {"sweep": {"layers": [4], "hidden": [128], "dropout": [0.1]},
                                      "points": [{"dropout": 0.1, "attention": "fused"}],
                                      "beside": [{"attention": "fused"}]}
    confs = {c["id"]: c for c in plan.configurations(config["studies"]["dispatch"])}
    timing = {conf_id: plan.timing_configuration(config, "dispatch", conf_id) for conf_id in confs}
    base_id = next(iter(confs))
    assert {c for c, conf in timing.items() if "anchor" in conf} == {c for c, conf in confs.items()
                                                                     if conf["layers"] == 4}
    assert {c for c, conf in timing.items() if "beside" in conf} == {base_id}
    assert timing[base_id]["beside"] == [{"attention": "fused"}] and "beside" not in confs[base_id]
    deep = next(c for c, conf in confs.items() if conf["layers"] == 4)
    assert plan.timing_configuration(config, "dispatch", deep)["anchor"] == {"id": base_id, "model": "bert-L1-H64",
                                                                      **config["studies"]["dispatch"]["base"]}
    assert plan.timing_inputs(config, "dispatch", deep) == {"model": "results/models/bert-L4-H64",
                                                            "anchor_model": "results/models/bert-L1-H64"}
    assert "anchor_model" not in plan.timing_inputs(config, "dispatch", base_id)
    assert "anchor" not in plan.configuration(config, "dispatch", deep)  # traces, lockstep and history time none
    assert naming.settings_of(plan.timing_configuration(config, "dispatch", deep)) == {
        k: v for k, v in confs[deep].items() if k not in ("id", "axes", "model")}
    config["studies"]["dispatch"]["beside"] = [{"dropout": 0.0}]  # the base's own dropout
    with pytest.raises(ValueError, match=r"studies.dispatch.beside\[0\]: \{'dropout': 0.0\} is the base's own setting"):
        plan.timing_configuration(config, "dispatch", base_id)


def test_a_study_block_is_the_common_keys_merged_with_the_study_own_fragment():
    config = {"studies": {"tree_at": {"base": {"layers": 2, "hidden": 8}},
                          "dispatch": {"base": {"layers": 1, "hidden": 8, "batch": 2, "seq": 4, "dropout": 0.0}}}}
    validate(config)
    tree_at, dispatch = config["studies"]["tree_at"], config["studies"]["dispatch"]
    assert tree_at["measure"]["budget_s"] == 6 and tree_at["measure"]["processes"] == 3  # its own, the common
    assert tree_at["trace"] == "base" and tree_at["compilation_cache"] is False and tree_at["model_family"] == "bert"
    assert dispatch["measure"]["rounds"] == 20 and "budget_s" not in dispatch["measure"]
    assert dispatch["trace"] == "all" and dispatch["measure"]["warmup_steps"] == 3
    dispatch["measure"]["step_by_step"] = "base"  # another study's key: dispatch has no un-jitted start-up
    problems, _ = schema_problems(config, SCHEMA)
    assert problems == ["config studies.dispatch.measure: unknown key 'step_by_step' (known: budget_s, "
                        "captures, max_busy_share, max_processes, max_wait_s, min_sample_s, on_contention, processes, "
                        "rounds, steps_per_sample, target_precision, target_share, trace_steps, warmup_steps)"]
    assert list(SCHEMA["properties"]["studies"]["properties"]) == list(registry.names())


def test_a_gated_comparisons_report_asked_for_alone_is_said_to_be_ungated():
    config = {"compare": {"fail_on_regression": True, "fail_on_inconclusive": False}}
    for targets in ({"reports/compare_lockstep.md"}, {"./reports/compare.md"}, {"compare_lockstep"}):
        assert "ask for `compare_gate`" in plan.ungated_note(config, targets)
    for targets in ({"reports/compare_lockstep.md", "compare_gate"}, {"compare_gate"}, set(), {"reports/report.md"}):
        assert plan.ungated_note(config, targets) == ""
    assert plan.ungated_note({"compare": {"fail_on_regression": False, "fail_on_inconclusive": False}},
                             {"reports/compare.md"}) == ""


def test_a_gate_that_passed_says_so_at_the_run_s_end(tmp_path, monkeypatch):
    """A user's walk: a passing gate said nothing, and the report's brief is not what the gate judges."""
    monkeypatch.chdir(tmp_path)
    config = {"compare": {"fail_on_regression": True, "fail_on_inconclusive": False, "sides": {}}}
    assert plan.gate_note(config) == ""  # no gate ran
    (tmp_path / "results" / "tables").mkdir(parents=True)
    (tmp_path / plan.GATE_PASSED).write_text("no regressions over 4 rows against the baseline (ratios)\n")
    assert plan.gate_note(config) == ("The comparison gate passed: no regressions over 4 rows against the baseline "
                                      "(ratios) (reports/compare.md has every row).")
    assert plan.gate_note({"compare": config["compare"] | {"fail_on_regression": False}}) == ""
