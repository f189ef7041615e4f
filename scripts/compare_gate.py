"""Rule compare_gate: fail, naming the worst rows, when the comparison found a regression."""

import pandas as pd

from jaxpitfalls import results, runtime
from jaxpitfalls.report.compare import require_no_regressions

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
require_no_regressions(pd.read_csv(sm.input.table), sm.params.gate_on)
results.write_text(sm.output[0], f"no regressions against the baseline ({sm.params.gate_on})\n")
log.info("no regressions against the baseline (%s)", sm.params.gate_on)
