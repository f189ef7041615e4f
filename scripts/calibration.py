"""Rule calibration: the lockstep table against its known truths, and pyperf beside it -> reports/calibration.md."""

from jaxpitfalls import runtime
from jaxpitfalls.contract.run_settings import Compare, History
from jaxpitfalls.report.calibration import calibration

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
history = History.of(sm.params.history)
calibration.write(sm.input.table, list(sm.input.runs), list(sm.input.pyperf), Compare.of(sm.params.compare),
                  sm.output[0], list(sm.input.history), list(sm.input.history_benchmarks), history,
                  list(sm.input.history_ratios), sm.params.reference)
log.info("calibration -> %s", sm.output[0])
