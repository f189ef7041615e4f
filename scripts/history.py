"""Rule history: the history's tables, figure and reports/history.md from every release's results."""

from jaxpitfalls import runtime
from jaxpitfalls.across_runs.history.history import write_history

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0])
write_history(list(sm.input.runs), list(sm.input.benchmarks), sm.params, sm.output)
