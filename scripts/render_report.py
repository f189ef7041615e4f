"""Rule render_report: reports/report.md from every study's tables, figures, the run's benchmarks and the report's
settings (reports/report_settings.json); the run summary beside it, so that a snapshot renders again."""

import json
from pathlib import Path

from jaxpitfalls import results, runtime
from jaxpitfalls.contract.tables import TABLES
from jaxpitfalls.report.scorecard.build import build_report
from jaxpitfalls.report.tables.run_summary import invocation_start, run_summary

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0])
settings = json.loads(Path(sm.input.settings).read_text())
inputs = {name: {"tables": {t: sm.input[f"{name}_{t}"] for t in TABLES}, "figures": sm.input[f"{name}_figures"]}
          for name in settings["studies"]}
summary = run_summary(list(sm.input.benchmarks), since=invocation_start())
results.write_csv(sm.output.summary, summary)
build_report(inputs, settings, summary, sm.output.report, sm.output.figure, sm.output.landing)
