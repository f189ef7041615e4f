"""Rule calibration: the lockstep table against its known truths, and pyperf beside it -> reports/calibration.md."""

from jaxpitfalls import runtime
from jaxpitfalls.report.calibration import calibration

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
calibration.write(sm.input.table, list(sm.input.runs), list(sm.input.pyperf), sm.params.compare, sm.output[0],
                  list(sm.input.history), list(sm.input.history_benchmarks), sm.params.history)
log.info("calibration -> %s", sm.output[0])
