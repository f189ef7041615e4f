# Helpers the rules share: what to run (from the config alone) and which package files each rule uses.
from jaxpitfalls import plan, sources

STUDIES = plan.enabled_studies(config)
ENV = f"{workflow.basedir}/{config['conda_env']}"  # used with --software-deployment-method conda


def conf_of(wildcards):
    return plan.configuration(config, wildcards.study, wildcards.config)


def model_of(wildcards):
    return f"results/models/{conf_of(wildcards)['model']}"


def study_sources(wildcards):
    return sources.files_of(f"studies.{wildcards.study}", "study_job", "runtime")


def runs_of(study):
    return expand(
        "results/runs/{study}/{config}.json",
        study=study,
        config=[c["id"] for c in plan.configurations(config["studies"][study])],
    )


def overheads_of(study):
    return [p.replace("results/runs/", "results/tables/overhead/").replace(".json", ".csv") for p in runs_of(study)]


def benchmarks():
    """Every measurement job's benchmark file: the report's run summary is made from them."""
    jobs = [f"prepare_model/{m}" for m in plan.all_models(config)]
    for study, conf_id in plan.all_runs(config):
        jobs += [f"{rule}/{study}/{conf_id}" for rule in ("run_study", "capture_trace", "parse_trace")]
    return [f"results/benchmarks/{job}.tsv" for job in jobs]
