rule aggregate:
    """A study's result JSONs and trace tables -> CSV tables (validated against the result schema)."""
    input:
        runs=study_runs,
        overhead=study_overheads,
        sources=code("aggregate", "report.tables.aggregate"),
        schema=sources.as_input(results.SCHEMA),  # every result read is validated against it
    output:
        **{
            t: report(p, caption=f"../report/table_{t}.rst", category="{study}", subcategory="tables")
            for t, p in plan.table_paths("{study}").items()
        },
    log:
        "results/logs/aggregate/{study}.log",
    conda:
        ENV
    params:
        caption=caption_of,
    script:
        "../../scripts/aggregate.py"


rule export_pyperf:
    """A study's samples as a pyperf suite: `python -m pyperf stats`, `pyperf compare_to` and dashboards read it."""
    input:
        runs=study_runs,
        sources=code("export_pyperf", "report.tables.pyperf_suite"),
    output:
        "results/exported/{study}.pyperf.json",
    log:
        "results/logs/export_pyperf/{study}.log",
    conda:
        ENV
    script:
        "../../scripts/export_pyperf.py"


rule plot:
    """A study's figures (seaborn), one PNG each."""
    input:
        **plan.table_paths("{study}"),
        sources=study_code("plot", "report"),
    output:
        report(
            directory("reports/figures/{study}"),
            patterns=["{figure}.png"],
            caption="../report/figure.rst",
            category="{study}",
            subcategory="figures",
        ),
    log:
        "results/logs/plot/{study}.log",
    conda:
        ENV
    params:
        caption=caption_of,
    script:
        "../../scripts/plot.py"


rule render_report:
    """reports/report.md: findings, the scorecard and its figure, per-study results, breakdowns and figures, then
    the audit: run summary, checks, machine, environment; reports/findings.rst: the HTML report's landing page."""
    input:
        **report_tables_and_figures(),
        benchmarks=benchmarks(),
        settings="reports/report_settings.json",
        sources=sorted(
            {
                *code("render_report", "report.scorecard.build"),
                *[f for s in STUDIES for part in ("report", "claims") for f in registry.part_sources(s, part)],
            }
        ),
    output:
        report=report("reports/report.md", caption="../report/report.rst", category="Report"),
        summary=report("results/tables/run_summary.csv", caption="../report/table_run_summary.rst", category="Report"),
        figure=report("reports/scorecard.png", caption="../report/scorecard.rst", category="Report"),
        landing="reports/findings.rst",
    log:
        "results/logs/render_report.log",
    conda:
        ENV
    script:
        "../../scripts/render_report.py"


rule report_settings:
    """reports/report_settings.json: the config keys the report shows (plan.report_settings), a file of its own so
    that the HTML report's entries do not list them as their job's parameters."""
    output:
        "reports/report_settings.json",
    log:
        "results/logs/report_settings.log",
    conda:
        ENV
    params:
        settings=plan.report_settings(config),
    script:
        "../../scripts/report_settings.py"


rule report_page:
    """reports/report_page.html: report.md as one page with its figures, which the HTML report shows inline (a
    markdown file it offers only as a download)."""
    input:
        report="reports/report.md",
        figures=expand("reports/figures/{study}", study=STUDIES),
        scorecard="reports/scorecard.png",
        sources=code("report_page", "report.page.html"),
    output:
        report("reports/report_page.html", caption="../report/report_page.rst", category="Report"),
    log:
        "results/logs/report_page.log",
    conda:
        ENV
    script:
        "../../scripts/report_page.py"


rule bundle:
    """reports/bundle.tar.gz: every result JSON, table, figure and the report, with a manifest (sha256 of each
    file, environment, config, git commit); another machine can compare against it (compare.baseline)."""
    input:
        runs=[p for s in STUDIES for p in runs_of(s)],
        tables=[p for s in STUDIES for p in plan.table_paths(s).values()],
        figures=expand("reports/figures/{study}", study=STUDIES),
        report="reports/report.md",
        summary="results/tables/run_summary.csv",
        scorecard="reports/scorecard.png",
        settings="reports/report_settings.json",
        sources=code("bundle", "report.tables.bundle"),
    output:
        "reports/bundle.tar.gz",
    log:
        "results/logs/bundle.log",
    conda:
        ENV
    params:
        config=config,
    script:
        "../../scripts/bundle.py"
