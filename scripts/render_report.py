"""Rule render_report: reports/report.md from every study's tables, figures and the run's benchmarks."""

from jaxpitfalls import runtime
from jaxpitfalls.report.build import build_report

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0])
build_report(sm.params.studies, sm.params.config, list(sm.input.benchmarks), sm.output.report, sm.output.summary)
