# Sides timed in lockstep (config compare.sides): the same configurations in two or more environments at once.


rule lockstep:
    """One configuration in every side's environment, each side's warm workers asked in turn for short blocks
    (harness/lockstep.py): rounds paired across sides saw the same machine."""
    input:
        unpack(inputs_of),
        sources=sources.files_of("lockstep_job", "lockstep_worker", "harness.lockstep", "runtime"),
        study_sources=study_sources,
    output:
        "results/lockstep/{study}/{config}.json",
    log:
        "results/logs/lockstep/{study}/{config}.log",
    benchmark:
        "results/benchmarks/lockstep/{study}/{config}.tsv"
    conda:
        ENV
    threads: workflow.cores  # the machine to itself, as run_study
    resources:
        timing=1,
    params:
        conf=conf_of,
        settings=timing_settings,
        model_spec=job_model_spec,
        runtime=runtime_of,
        compare=lockstep_settings(),
    script:
        "../../scripts/lockstep.py"


if config["compare"]["sides"]:

    localrules:
        compare_interleaved,

    rule compare_interleaved:
        """reports/compare.md: every side against the first, per configuration, variant and mode, on the
        rounds paired in time (report/interleaved.py)."""
        input:
            runs=runs_of(config["compare"]["study"], "lockstep"),
            sources=sources.files_of("report.interleaved", "report.compare", "runtime"),
        output:
            report=report(
                "reports/compare.md",
                caption="../report/compare_interleaved.rst",
                category="Comparison",
            ),
            table=report(
                COMPARE_TABLES["interleaved"],
                caption="../report/compare_interleaved.rst",
                category="Comparison",
            ),
        log:
            "results/logs/compare_interleaved.log",
        conda:
            ENV
        params:
            compare=config["compare"],
        script:
            "../../scripts/compare_interleaved.py"
