"""Rule compare_lockstep: the sides timed in lockstep, each against the first -> reports/compare_lockstep.md, its
run summary last (the lockstep jobs' machine time, judged against run_target_s where the comparison is the run)."""

import json
from pathlib import Path

import pandas as pd

from jaxpitfalls import results, runtime
from jaxpitfalls.across_runs.comparison import lockstep
from jaxpitfalls.across_runs.settings import Compare
from jaxpitfalls.report.tables.run_summary import machine_time_lines

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
settings = Compare.of(sm.params.compare)
threshold = settings.threshold
docs = [json.loads(Path(path).read_text()) for path in sm.input.runs]
table = pd.concat([lockstep.side_by_side(doc, threshold) for doc in docs], ignore_index=True)
results.write_csv(sm.output.table, table)
sides = docs[0]["sides"] if docs else {}  # as the jobs recorded them
summary_lines = machine_time_lines({"lockstep jobs": sum(doc["job_seconds"] for doc in docs)}, sm.params.run_target_s)
results.write_text(sm.output.report, lockstep.markdown(table, sides, threshold, [doc["timed"] for doc in docs],
                                                     lockstep.set_up_line(docs), settings.primary)
                   + "\n" + "\n".join(summary_lines))
log.info("%d rows: %s", len(table), table.verdict.value_counts().to_dict())
