"""Rule compare_gate: fail, naming the worst rows, when the comparison found a regression (or, with
compare.fail_on_inconclusive, a row it could not decide)."""

import sys

import pandas as pd

from jaxpitfalls import results, runtime
from jaxpitfalls.across_runs.comparison.gate import Regressions, require_no_regressions
from jaxpitfalls.failed_jobs import GATE_FAILED

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
try:
    medians = pd.read_csv(sm.input.medians) if getattr(sm.input, "medians", None) else None
    passed = require_no_regressions(pd.read_csv(sm.input.table), sm.params.gate_on, sm.params.fail_on_inconclusive,
                                    sm.params.threshold, primary=sm.params.primary, medians=medians)
except Regressions as failed:  # the gate doing its job: its verdict, not a traceback
    log.error("%s%s", GATE_FAILED, failed)
    sys.exit(1)
results.write_text(sm.output[0], passed + "\n")
log.info("%s", passed)
