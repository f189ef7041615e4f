"""Rule compare_lockstep: the lockstep table (rule compare_lockstep_table) and the jobs behind it ->
reports/compare_lockstep.md, its run summary last (the lockstep jobs' machine time, judged against run_target_s
where the comparison is the run)."""

import json
from pathlib import Path

from jaxpitfalls import results, runtime
from jaxpitfalls.across_runs.comparison import figure, lockstep, memory_plans
from jaxpitfalls.across_runs.settings import Compare
from jaxpitfalls.contract.figures import save
from jaxpitfalls.report.tables.run_summary import machine_time_lines

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
settings = Compare.of(sm.params.compare)
docs = [json.loads(Path(path).read_text()) for path in sm.input.runs]
table = lockstep.read_table(sm.input.table)
sides = docs[0]["sides"] if docs else {}  # as the jobs recorded them
plans = memory_plans.sides(docs)
results.write_csv(sm.output.memory_plans, plans)
save(figure.lockstep(table, settings.threshold), sm.output.figure)
summary_lines = machine_time_lines(lockstep.machine_parts(docs), sm.params.run_target_s)
results.write_text(sm.output.report, lockstep.markdown(table, sides, settings.threshold,
                                                     [doc["timed"] for doc in docs], lockstep.set_up_line(docs),
                                                     settings.primary, plans)
                   + "\n" + "\n".join(summary_lines))
log.info("%s: %d rows", sm.output.report, len(table))
