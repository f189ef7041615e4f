rule capture_trace:
    """The profiler pass of one configuration (separate: the Python tracer inflates Python time)."""
    input:
        unpack(inputs_of),
        sources=lambda w: sources.files_of(f"studies.{w.study}", "harness.tracing", "runtime"),
    output:
        directory("results/traces/{study}/{config}"),
    params:
        conf=conf_of,
        settings=lambda w: config["studies"][w.study]["measure"],
        runtime=runtime_of,
    threads: workflow.cores
    resources:
        timing=1,
    log:
        "results/logs/capture_trace/{study}/{config}.log",
    benchmark:
        "results/benchmarks/capture_trace/{study}/{config}.tsv"
    conda:
        ENV
    script:
        "../../scripts/capture_trace.py"


rule parse_trace:
    """Trace -> per-variant breakdown of the step (inclusive/exclusive time, share)."""
    input:
        trace="results/traces/{study}/{config}",
        sources=lambda w: sources.files_of("traces", f"studies.{w.study}.report", "results", "runtime"),
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
