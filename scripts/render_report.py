"""Rule render_report: reports/report.md from every study's tables, figures and the run's benchmarks."""

from jaxpitfalls import runtime
from jaxpitfalls.contract.tables import TABLES
from jaxpitfalls.report.scorecard.build import build_report

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0])
settings = sm.params.settings
inputs = {name: {"tables": {t: sm.input[f"{name}_{t}"] for t in TABLES}, "figures": sm.input[f"{name}_figures"]}
          for name in settings["studies"]}
build_report(inputs, settings, list(sm.input.benchmarks), sm.output.report, sm.output.summary, sm.output.figure,
             sm.output.landing)
