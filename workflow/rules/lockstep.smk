# Sides timed in lockstep (config compare.sides): the same configurations in two or more environments at once.


rule lockstep:
    """One configuration in every side's environment, each side's warm workers asked in turn for short blocks
    (harness/lockstep.py): rounds paired across sides saw the same machine."""
    input:
        unpack(inputs_of),
        sources=sources.files_of("jobs.lockstep", "jobs.lockstep_worker", "runtime"),
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
