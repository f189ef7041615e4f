"""Rule compare_lockstep_table: the sides timed in lockstep, each against the first, per configuration, variant and
mode -> results/tables/compare_lockstep.csv, which the report, the gate and the calibration read. It reads the
threshold alone, so editing the gate's keys (compare.primary, fail_on_regression) leaves it, and the calibration."""

import json
from pathlib import Path

import pandas as pd

from jaxpitfalls import results, runtime
from jaxpitfalls.across_runs.comparison import lockstep

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
docs = [json.loads(Path(path).read_text()) for path in sm.input.runs]
table = pd.concat([lockstep.side_by_side(doc, sm.params.threshold) for doc in docs], ignore_index=True)
results.write_csv(sm.output.table, table)
log.info("%d rows: %s", len(table), table.verdict.value_counts().to_dict())
