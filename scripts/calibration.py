"""Rule calibration: what the calibration timed kept whole (results/calibration/), and its page rendered from
what was kept -> reports/calibration.md."""

from jaxpitfalls import runtime
from jaxpitfalls.across_runs.calibration import calibration, timed

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
timed.keep(sm.output.timed, sm.input.table, list(sm.input.runs), list(sm.input.pyperf), dict(sm.params.compare),
           dict(sm.params.history), list(sm.input.history), list(sm.input.history_ratios),
           list(sm.input.history_benchmarks), sm.params.reference, sm.params.run_target_s)
calibration.write(timed.read(sm.output.timed), sm.output.page, sm.params.reference)
log.info("calibration -> %s (what it timed: %s)", sm.output.page, sm.output.timed)
