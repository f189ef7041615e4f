rule run_study:
    """One configuration, every variant inside: timed interleaved, verified, written as one JSON."""
    input:
        unpack(timing_inputs_of),
        sources=study_code("run_study", "measure", "jobs.study_worker"),
    output:
        "results/runs/{study}/{config}.json",
    log:
        "results/logs/run_study/{study}/{config}.log",
    benchmark:
        "results/benchmarks/run_study/{study}/{config}.tsv"
    priority: 1  # before the one-core jobs that only read (parse_trace): those then run side by side at the end
    conda:
        ENV
    threads: workflow.cores  # the machine to itself: no other job steals cycles from the timed steps
    resources:
        timing=1,  # the default profile allows one timing job at a time (clusters: see profiles/)
    params:
        conf=timing_conf_of,
        settings=timing_settings,
        model_spec=job_model_spec,
        runtime=runtime_of,
        measured=measured_code,
    script:
        "../../scripts/run_study.py"
