# Comparisons (config `compare`): this run against a baseline run (`compare`), or the sides timed in lockstep
# against the first (`compare_lockstep`, config `compare.sides`); either way `compare_gate` judges the table.


if not config["compare"]["sides"]:

    localrules:
        compare,

    rule compare:
        """This run's results against a baseline run's (config `compare.baseline`): medians, ratio over fresh
        processes with its interval (Student's t), verdict per row on it; configurations on one side only listed."""
        input:
            runs=[p for s in STUDIES for p in runs_of(s)],
            baseline=baseline_runs(),
            sources=code(
                "compare",
                "across_runs.comparison.compare",
                "across_runs.comparison.compare_report",
                "across_runs.comparison.figure",
                "across_runs.comparison.memory_plans",
            ),
        output:
            report=report("reports/compare.md", caption="../report/compare.rst", category="Comparison"),
            figure=report("reports/figures/compare.png", caption="../report/compare.rst", category="Comparison"),
            table=report(COMPARE_TABLES["medians"], caption="../report/compare.rst", category="Comparison"),
            one_sided=report(
                "results/tables/compare_one_sided.csv",
                caption="../report/compare_one_sided.rst",
                category="Comparison",
            ),
            ratios=report(COMPARE_TABLES["ratios"], caption="../report/compare_ratios.rst", category="Comparison"),
            memory_plans=report(
                MEMORY_PLANS_TABLE,
                caption="../report/compare_memory_plans.rst",
                category="Comparison",
            ),
        log:
            "results/logs/compare.log",
        conda:
            ENV
        params:
            compare=config["compare"],
        script:
            "../../scripts/compare.py"


if config["compare"]["sides"]:

    localrules:
        compare_lockstep_table,
        compare_lockstep,

    rule compare_lockstep_table:
        """results/tables/compare_lockstep.csv: every side against the first, per configuration, variant and mode,
        on the rounds paired in time (across_runs/comparison/lockstep.py); the gate's own keys rerun it not."""
        input:
            runs=runs_of(config["compare"]["study"], "lockstep"),
            sources=code("compare_lockstep_table", "across_runs.comparison.lockstep"),
        output:
            table=report(
                COMPARE_TABLES["lockstep"],
                caption="../report/compare_lockstep.rst",
                category="Comparison",
            ),
        log:
            "results/logs/compare_lockstep_table.log",
        conda:
            ENV
        params:
            threshold=config["compare"]["threshold"],
        script:
            "../../scripts/compare_lockstep_table.py"

    rule compare_lockstep:
        """reports/compare_lockstep.md: the lockstep table with its sides, rule, machine and order checks, the gate's
        line over the rows compare.primary declares, and the jobs' machine time."""
        input:
            table=COMPARE_TABLES["lockstep"],
            runs=runs_of(config["compare"]["study"], "lockstep"),
            sources=code(
                "compare_lockstep",
                "across_runs.comparison.lockstep",
                "across_runs.comparison.figure",
                "across_runs.comparison.memory_plans",
                "report.tables.run_summary",
            ),
        output:
            report=report(
                "reports/compare_lockstep.md",
                caption="../report/compare_lockstep.rst",
                category="Comparison",
            ),
            figure=report(
                "reports/figures/compare_lockstep.png",
                caption="../report/compare_lockstep.rst",
                category="Comparison",
            ),
            memory_plans=report(
                MEMORY_PLANS_TABLE,
                caption="../report/compare_memory_plans.rst",
                category="Comparison",
            ),
        log:
            "results/logs/compare_lockstep.log",
        conda:
            ENV
        params:
            compare=config["compare"],
            run_target_s=part_target_s(),
        script:
            "../../scripts/compare_lockstep.py"


rule compare_gate:
    """Fails, naming the worst rows, if any row of the judged table (`compare.gate_on`) regressed (with
    `compare.fail_on_regression`: for CI), or could not be decided (`compare.fail_on_inconclusive`)."""
    input:
        table=COMPARE_TABLES[gate_on()],
        # beside the ratios, the floors' own medians: a ratio against a floor reads its slowdown as the others' gain
        medians=COMPARE_TABLES["medians"] if gate_on() == "ratios" else [],
        report=plan.compared_report(config),  # written first, so a failing gate leaves the report to read
        sources=code("compare_gate", "across_runs.comparison.gate"),
    output:
        plan.GATE_PASSED,
    log:
        "results/logs/compare_gate.log",
    conda:
        ENV
    params:
        gate_on=gate_on(),
        fail_on_inconclusive=config["compare"]["fail_on_inconclusive"],
        threshold=config["compare"]["threshold"],
        primary=config["compare"]["primary"],
    script:
        "../../scripts/compare_gate.py"
