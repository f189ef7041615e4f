# Helpers the rules share: what to run (from the config alone) and which package files each rule uses.
import json
from pathlib import Path

from jaxpitfalls import plan, registry, results, revisions, sources
from jaxpitfalls.across_runs import releases
from jaxpitfalls.across_runs.settings import allocated, calibrated
from jaxpitfalls.report.scorecard.captions import StudyCaption

STUDIES = plan.enabled_studies(config)
ENV = f"{workflow.basedir}/{config['conda_env']}"  # used with --software-deployment-method conda
# The comparison's table that `compare_gate` judges, by `compare.gate_on` (what each means: the config schema).
COMPARE_TABLES = {
    "medians": "results/tables/compare.csv",
    "ratios": "results/tables/compare_ratios.csv",
    "lockstep": "results/tables/compare_lockstep.csv",
}
# Benchmark files' memory plans on both sides, written by either comparison (never gated: exact, told apart).
MEMORY_PLANS_TABLE = "results/tables/compare_memory_plans.csv"


def conf_of(wildcards):
    return plan.configuration(config, wildcards.study, wildcards.config)


def timing_conf_of(wildcards):
    """The configuration as its timing job gets it: with the base it also times, where it is anchored to it."""
    return plan.timing_configuration(config, wildcards.study, wildcards.config)


def inputs_of(wildcards):
    """Named input directories of a measuring job: `model`, and `data` for studies that read the corpus."""
    return plan.job_inputs(config, wildcards.study, wildcards.config)


def timing_inputs_of(wildcards):
    """A timing job's named inputs: inputs_of's, and `anchor_model` where it also times the base beside its own."""
    return plan.timing_inputs(config, wildcards.study, wildcards.config)


def code(script, *modules, study=None, part=None):
    """A rule's code as its inputs: its script and every package module it and `modules` import, with a study's
    `part` (through the registry). Checksummed as inputs, so a checkout that only touches a script reruns
    nothing (the profiles leave out Snakemake's `code` trigger, which reads a script's mtime alone)."""
    path = f"{workflow.basedir}/scripts/{script}.py"
    imported = (*modules, *sources.script_modules(path))
    found = registry.part_sources(study, part, *imported) if study else sources.files_of(*imported)
    return sorted({sources.as_input(Path(path)), *found})


def study_code(script, part, *modules):
    """`code` of a rule run per study (its wildcard)."""
    return lambda wildcards: code(script, *modules, study=wildcards.study, part=part)


def measured_code(wildcards):
    """A benchmark file's timed code, digested (registry.measured_code): its EXPECT edited times nothing again."""
    return registry.measured_code(wildcards.study)


def study_sources(wildcards):
    """The study's measuring code, as a worker imports it (lockstep and pyperf workers time it too)."""
    return registry.part_sources(wildcards.study, "measure", "jobs.study_worker")


def timing_settings(wildcards):
    """What a timing job reads of the study's `measure` block: editing it reruns them (params are tracked)."""
    return plan.timing_settings(config, wildcards.study)


def trace_settings(wildcards):
    """What the study's trace reads of its `measure` block: editing it reruns the traces, and only them."""
    return plan.trace_settings(config, wildcards.study, wildcards.config)


def model_spec_of(wildcards):
    return plan.model_spec(config, wildcards.model)


def job_model_spec(wildcards):
    """The spec of the model a measuring job's configuration uses (recorded in its result; none for a file's)."""
    return plan.job_model_spec(config, conf_of(wildcards))


def study_runs(wildcards):
    return runs_of(wildcards.study)


def study_overheads(wildcards):
    return overheads_of(wildcards.study)


def runs_of(study, folder="runs"):
    """Every configuration's result of the study: its timing jobs' (`runs`) or its lockstep jobs' (`lockstep`)."""
    return expand(
        "results/{folder}/{study}/{config}.json",
        folder=folder,
        study=study,
        config=[c["id"] for c in plan.configurations(config["studies"][study])],
    )


def overheads_of(study):
    return expand(
        "results/tables/overhead/{study}/{config}.csv",
        study=study,
        config=[c["id"] for c in plan.traced_configurations(config, study)],
    )


def runtime_of(wildcards):
    """XLA flags and compilation cache of a measuring job (see plan.job_runtime)."""
    return plan.job_runtime(config, wildcards.study)


def caption_of(wildcards):
    """The study's configuration and environment, described in the HTML report's captions (see StudyCaption)."""
    study = wildcards.study
    return StudyCaption(study, config["studies"][study], plan.table_paths(study)["environment"])


def report_tables_and_figures():
    """render_report's inputs by name: `<study>_<table>` (each CSV) and `<study>_figures` (the PNG directory)."""
    named = {f"{s}_{t}": path for s in STUDIES for t, path in plan.table_paths(s).items()}
    return named | {f"{s}_figures": f"reports/figures/{s}" for s in STUDIES}


def benchmarks():
    """Every measurement job's benchmark file: the report's run summary is made from them."""
    jobs = [f"prepare_model/{m}" for m in plan.all_models(config)]
    jobs += ["prepare_data/corpus"] if any(map(plan.reads_corpus, STUDIES)) else []
    for study in STUDIES:
        jobs += [f"run_study/{study}/{c['id']}" for c in plan.configurations(config["studies"][study])]
        jobs += [
            f"{rule}/{study}/{c['id']}"
            for c in plan.traced_configurations(config, study)
            for rule in ("capture_trace", "parse_trace")
        ]
    return [f"results/benchmarks/{job}.tsv" for job in jobs]


def baseline_runs():
    """The baseline's result JSONs or bundle (config `compare.baseline`): a changed baseline reruns `compare`."""
    root = config["compare"]["baseline"]
    if not root:
        return []
    return [root] if Path(root).is_file() else sorted(str(p) for p in Path(root).glob("**/runs/*/*.json"))


def gate_on():
    """The comparison table `compare_gate` judges: the lockstep one for sides, else `compare.gate_on`'s."""
    return "lockstep" if config["compare"]["sides"] else config["compare"]["gate_on"]


def lockstep_settings(wildcards):
    """What a configuration's lockstep job reads of `compare` (its sides, its processes and rounds): the threshold
    reruns no job, an edited allocation only its configuration's."""
    return allocated(config["compare"], wildcards.config)


def revision_commits():
    """Each revision side's commit (compare.sides.<side>.revision), resolved at parse: a branch that moved reruns
    its checkout and the lockstep jobs."""
    compare = config["compare"]
    return {
        name: revisions.commit(compare["study"], side["revision"])
        for name, side in compare["sides"].items()
        if side["revision"]
    }


REVISIONS = revision_commits()


def compared_base():
    """The compared study's base configuration (its first), where pyperf's pairs are timed."""
    return plan.configurations(config["studies"][config["compare"]["study"]])[0]["id"]


def pyperf_pair_of():
    """The pyperf pairs (compare.pyperf.pairs) on its callable at the study's base configuration, if asked for."""
    pyperf, study = config["compare"]["pyperf"], config["compare"]["study"]
    if not pyperf["callable"]:
        return []
    base = compared_base()
    return [f"results/pyperf/{study}/{base}/{pyperf['callable']}/pair{n}.json" for n in range(1, pyperf["pairs"] + 1)]


def pyperf_pairs_read(wildcards):
    """The pyperf pairs the calibration reads: this run's (results/pyperf/pairs.json) or, with compare.pyperf.published,
    the ones the published calibration keeps (`make calibrate-pyperf` times them apart), which must have timed this
    run's callable at its base; none without a callable. Read when the calibration is asked for."""
    pyperf = config["compare"]["pyperf"]
    if not pyperf["callable"]:
        return []
    if not pyperf["published"]:
        return ["results/pyperf/pairs.json"]
    kept = Path(workflow.basedir) / "docs" / "results" / "calibration" / "pyperf_pairs.json"
    if not kept.is_file():
        raise ValueError(
            f"config compare.pyperf.published: {kept} does not exist: `make calibrate-pyperf` times "
            "and publishes the pairs"
        )
    base = compared_base()
    timed = {(pair["config_id"], f"{pair['mode']}/{pair['variant']}") for pair in json.loads(kept.read_text())}
    if timed != {(base, pyperf["callable"])}:
        raise ValueError(
            f"config compare.pyperf.published: the published pairs timed {sorted(timed)}, not "
            f"{pyperf['callable']} at this run's base {base}: `make calibrate-pyperf` times them again"
        )
    return [str(kept)]


def published_reference():
    """The published reference snapshot (docs/results/reference), where this copy of the workflow holds the folder: the
    calibration reads its studies' intervals."""
    from jaxpitfalls.across_runs.reference.published import published  # pandas: not in the driver's environment

    root = Path(workflow.basedir) / "docs" / "results" / "reference"
    return published(root) if root.is_dir() else None


def published_reference_tables(wildcards):
    """The published reference's study tables, the calibration's inputs (none without one); read when the
    calibration is asked for, not at every parse."""
    snapshot = published_reference()
    return [str(p) for p in sorted(snapshot.glob("tables/*/*.csv"))] if snapshot else []


def compare_targets():
    """What `all` adds when a comparison is configured (a baseline run, or sides): the comparison, and its gate
    if asked for."""
    if not (config["compare"]["baseline"] or config["compare"]["sides"]):
        return []
    return [plan.compared_report(config)] + ([plan.GATE_PASSED] if plan.gated(config) else [])


# The release history (config `history`, rules in history.smk).
HISTORY = config["history"]


def part_target_s():
    """run_target_s for a report that times one part of the run: none where the run is a calibration (compare
    sides with pyperf's pairs or a null history: `make calibrate`), whose page sums every part against it; the
    run's own elsewhere (a comparison or a history run alone)."""
    calibrating = config["compare"]["sides"] and (config["compare"]["pyperf"]["callable"] or HISTORY["versions"])
    return 0 if calibrating else config["run_target_s"]


def release_requirements(wildcards):
    return releases.requirements(config, wildcards.release)


def release_python(wildcards):
    """An environment the user made for the release (checked, not built), or "" to build one."""
    return HISTORY["pythons"].get(wildcards.release, "")


def release_imports(wildcards):
    return plan.release_imports(config)


def history_conf(wildcards):
    return plan.configuration(config, HISTORY["study"], wildcards.config)


def history_inputs(wildcards):
    return plan.job_inputs(config, HISTORY["study"], wildcards.config)


def history_model_spec(wildcards):
    return plan.job_model_spec(config, history_conf(wildcards))


def history_runs():
    """Every release's results of every configuration the history times, one per job (`history.repeats`)."""
    return releases.runs(config)


HISTORY_PRIORITIES = releases.run_priorities(config)  # once at parse, not the whole order again per job


def history_run_priority(wildcards):
    """The history's timing jobs run in its shuffled order (releases.run_order), the first the highest priority:
    a priority orders them without an input between them, so adding a release reruns no job."""
    return HISTORY_PRIORITIES[
        releases.RUN.format(release=wildcards.release, job=wildcards.job, config=wildcards.config)
    ]


def history_benchmarks():
    """The history's jobs' benchmark files (its run summary: installs and timing jobs)."""
    runs = [p.replace("results/history/runs/", "results/benchmarks/history_run/") for p in history_runs()]
    envs = expand("results/benchmarks/release_env/{release}.tsv", release=releases.releases(config))
    return [p.removesuffix(".json") + ".tsv" for p in runs] + envs


def history_targets():
    return ["reports/history.md"] if HISTORY["versions"] else []
