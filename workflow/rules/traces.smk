rule capture_trace:
    """The profiler pass of one configuration (separate: the Python tracer inflates Python time)."""
    input:
        unpack(inputs_of),
        sources=study_code("capture_trace", "measure", "harness.tracing"),
    output:
        directory("results/traces/{study}/{config}"),
    log:
        "results/logs/capture_trace/{study}/{config}.log",
    benchmark:
        "results/benchmarks/capture_trace/{study}/{config}.tsv"
    priority: 1  # as run_study
    conda:
        ENV
    threads: workflow.cores
    resources:
        timing=1,
    params:
        conf=conf_of,
        settings=trace_settings,
        runtime=runtime_of,
        measured=measured_code,
    script:
        "../../scripts/capture_trace.py"


rule parse_trace:
    """Trace -> per-variant breakdown of the step (inclusive/exclusive time, share)."""
    input:
        trace="results/traces/{study}/{config}",
        sources=study_code("parse_trace", "spec"),
    output:
        "results/tables/overhead/{study}/{config}.csv",
    log:
        "results/logs/parse_trace/{study}/{config}.log",
    benchmark:
        "results/benchmarks/parse_trace/{study}/{config}.tsv"
    conda:
        ENV
    script:
        "../../scripts/parse_trace.py"
