"""Rule compare_gate: fail, naming the worst rows, when the comparison found a regression (or, with
compare.fail_on_inconclusive, a row it could not decide)."""

import pandas as pd

from jaxpitfalls import results, runtime
from jaxpitfalls.across_runs.comparison.gate import require_no_regressions

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
require_no_regressions(pd.read_csv(sm.input.table), sm.params.gate_on, sm.params.fail_on_inconclusive,
                       sm.params.threshold, primary=sm.params.primary)
passed = "no regressions" + (", no inconclusive rows" if sm.params.fail_on_inconclusive else "")
results.write_text(sm.output[0], f"{passed} against the baseline ({sm.params.gate_on})\n")
log.info("%s against the baseline (%s)", passed, sm.params.gate_on)
