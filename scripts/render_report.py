"""Rule render_report: reports/report.md from every study's tables, figures and the run's benchmarks; the run
summary and the report's settings beside it, so that the report renders again from what a snapshot keeps."""

import json

from jaxpitfalls import results, runtime
from jaxpitfalls.contract.tables import TABLES
from jaxpitfalls.report.scorecard.build import build_report
from jaxpitfalls.report.tables.run_summary import invocation_start, run_summary

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0])
settings = sm.params.settings
inputs = {name: {"tables": {t: sm.input[f"{name}_{t}"] for t in TABLES}, "figures": sm.input[f"{name}_figures"]}
          for name in settings["studies"]}
summary = run_summary(list(sm.input.benchmarks), since=invocation_start())
results.write_csv(sm.output.summary, summary)
results.write_text(sm.output.settings, json.dumps(settings, indent=1) + "\n")
build_report(inputs, settings, summary, sm.output.report, sm.output.figure, sm.output.landing)
