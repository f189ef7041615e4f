# Sides timed in lockstep (config compare.sides): the same configurations in two or more environments at once.


rule lockstep:
    """One configuration in every side's environment, each side's warm workers asked in turn for short blocks
    (harness/lockstep.py): rounds paired across sides saw the same machine."""
    input:
        unpack(inputs_of),
        sources=code("lockstep", "jobs.lockstep", "jobs.lockstep_worker"),
        study_sources=study_sources,
        checkouts=expand(revisions.checkout_dir("{side}"), side=REVISIONS),
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
        compare=lockstep_settings,
        commits=REVISIONS,
        measured=measured_code,
    script:
        "../../scripts/lockstep.py"


rule revision_checkout:
    """A revision side's tree of the repository holding the compared benchmark file (revisions.py)."""
    input:
        sources=code("revision_checkout", "revisions"),
    output:
        directory(revisions.checkout_dir("{side}")),
    log:
        "results/logs/revision_checkout/{side}.log",
    conda:
        ENV
    params:
        study=config["compare"]["study"],
        commit=lambda wildcards: REVISIONS[wildcards.side],
    script:
        "../../scripts/revision_checkout.py"


rule pyperf_pair:
    """pyperf at its defaults on one lockstep callable (compare.pyperf: a mode/variant of the base
    configuration), run twice one after the other: one A/A pair of the calibration's yardstick, of
    compare.pyperf.pairs (jobs/pyperf_pair.py)."""
    input:
        unpack(inputs_of),
        sources=code("pyperf_pair", "jobs.pyperf_pair", "jobs.pyperf_worker", "jobs.lockstep_worker"),
        study_sources=study_sources,
    output:
        "results/pyperf/{study}/{config}/{mode}/{variant}/pair{pair}.json",
    log:
        "results/logs/pyperf/{study}/{config}/{mode}/{variant}/pair{pair}.log",
    benchmark:
        "results/benchmarks/pyperf/{study}/{config}/{mode}/{variant}/pair{pair}.tsv"
    wildcard_constraints:
        pair=r"\d+",
    conda:
        ENV
    threads: workflow.cores  # the machine to itself, as lockstep
    resources:
        timing=1,
    params:
        conf=conf_of,
        settings=timing_settings,
        model_spec=job_model_spec,
        runtime=runtime_of,
        options=config["compare"]["pyperf"]["options"],
        measured=measured_code,
    script:
        "../../scripts/pyperf_pair.py"


rule pyperf_pairs:
    """Every pyperf pair of the calibration (compare.pyperf.pairs) in one file: what `make calibrate-pyperf` publishes
    and the calibration reads."""
    input:
        pairs=pyperf_pair_of(),
        sources=code("pyperf_pairs", "jobs.pyperf_pair"),
    output:
        "results/pyperf/pairs.json",
    log:
        "results/logs/pyperf/pairs.log",
    conda:
        ENV
    script:
        "../../scripts/pyperf_pairs.py"


if config["compare"]["sides"]:

    rule calibration:
        """reports/calibration.md: the lockstep rows against what is known of them (A/A: no change; injected: the
        factor), each rate with its interval and target, the gate after its correction, pyperf beside the
        lockstep on one callable, the published reference's study intervals, and a null release history (config
        history: a package the timed code never calls) with null histories simulated from it, where the config
        has one. What it timed is kept whole beside it (across_runs/calibration/timed.py), and the page rendered from
        that: rejudged without timing again."""
        input:
            table=COMPARE_TABLES["lockstep"],
            runs=runs_of(config["compare"]["study"], "lockstep"),
            pyperf=pyperf_pairs_read,
            history=["results/tables/history_steps.csv"] if HISTORY["versions"] else [],
            history_ratios=["results/tables/history.csv"] if HISTORY["versions"] else [],
            history_benchmarks=history_benchmarks() if HISTORY["versions"] else [],
            reference=published_reference_tables,
            sources=code("calibration", "across_runs.calibration.calibration"),
        output:
            page="reports/calibration.md",
            timed=directory("results/calibration"),
        log:
            "results/logs/calibration.log",
        conda:
            ENV
        params:
            compare=calibrated(config["compare"]),
            history=HISTORY,
            reference=lambda wildcards: str(published_reference() or ""),
            run_target_s=config["run_target_s"],
        script:
            "../../scripts/calibration.py"
