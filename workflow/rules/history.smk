# Release history (config `history`): one study timed in an environment per release of a library, the steps in
# its ratios found over the releases (reports/history.md).


rule release_env:
    """A venv holding only what a timing job imports, pinned to one release (jobs/release_env.py); a release that
    does not install or import is recorded as such in its status, not raised."""
    input:
        sources=code("release_env", "jobs.release_env"),
    output:
        "results/history/envs/{release}/status.json",
    log:
        "results/logs/release_env/{release}.log",
    benchmark:
        "results/benchmarks/release_env/{release}.tsv"
    priority: 1.5  # after every model (2), before any timing job (0, 1]: none waits on an install
    conda:
        ENV
    resources:
        timing=1,  # pip compiles and unpacks: never beside a timing job
    params:
        requirements=release_requirements,
        python=release_python,
        package=HISTORY["package"],
        imports=release_imports,
    script:
        "../../scripts/release_env.py"


rule history_run:
    """One configuration of the history's study timed in one release's environment, in one of its
    `history.repeats` jobs: its worker processes run there, every check of run_study made; a release whose
    environment failed is recorded, not timed. The jobs run one after another in a shuffled order (their
    priorities), not in the releases' order."""
    input:
        unpack(history_inputs),
        env="results/history/envs/{release}/status.json",
        sources=code(
            "history_run", "jobs.history_run", "jobs.study_worker", study=config["history"]["study"], part="measure"
        ),
    output:
        "results/history/runs/{release}/job{job}/{config}.json",
    log:
        "results/logs/history_run/{release}/job{job}/{config}.log",
    benchmark:
        "results/benchmarks/history_run/{release}/job{job}/{config}.tsv"
    wildcard_constraints:
        job=r"\d+",
    priority: history_run_priority
    conda:
        ENV
    threads: workflow.cores
    resources:
        timing=1,
    params:
        study=config["history"]["study"],
        package=HISTORY["package"],
        conf=history_conf,
        settings=lambda wildcards: plan.timing_settings(config, config["history"]["study"]),
        model_spec=history_model_spec,
        runtime=lambda wildcards: plan.job_runtime(config, config["history"]["study"]),
        measured=lambda wildcards: registry.measured_code(config["history"]["study"]),
    script:
        "../../scripts/history_run.py"


rule history:
    """reports/history.md: each release's paired ratios, the steps found over the releases (with the releases
    on either side and their size) or the change ruled out where there is none, the releases that failed."""
    input:
        runs=history_runs(),
        benchmarks=history_benchmarks(),
        sources=code("history", "across_runs.history.history", "across_runs.history.release_plans"),
    output:
        report=report("reports/history.md", caption="../report/history.rst", category="History"),
        ratios=report("results/tables/history.csv", caption="../report/history.rst", category="History"),
        steps=report("results/tables/history_steps.csv", caption="../report/history.rst", category="History"),
        figure=report("reports/figures/history.png", caption="../report/history.rst", category="History"),
        memory_plans=report(
            "results/tables/history_memory_plans.csv", caption="../report/history.rst", category="History"
        ),
    log:
        "results/logs/history.log",
    conda:
        ENV
    params:
        history=config["history"],
        run_target_s=part_target_s(),
    script:
        "../../scripts/history.py"
