"""Rule compare: this run's results against a baseline run's -> reports/compare.md and CSV tables."""

from jaxpitfalls import results, runtime
from jaxpitfalls.across_runs.comparison import compare, compare_report, figure, memory_plans
from jaxpitfalls.across_runs.settings import Compare
from jaxpitfalls.contract.figures import save

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
settings = Compare.of(sm.params.compare)
current = {(doc["study"], doc["config_id"]): doc for doc in map(results.read_result, sm.input.runs)}
baseline = compare.load_runs(settings.baseline)
table, one_sided = compare.compare(baseline, current, settings.threshold, settings.machine_units)
ratios = compare.paired_ratios(baseline, current, settings.threshold)
plans = memory_plans.plans(baseline, current)
results.write_csv(sm.output.table, table)
results.write_csv(sm.output.one_sided, one_sided)
results.write_csv(sm.output.ratios, ratios)
results.write_csv(sm.output.memory_plans, plans)
save(figure.two_runs(table, ratios, settings.threshold), sm.output.figure)
results.write_text(sm.output.report, compare_report.markdown(table, one_sided, ratios, settings.baseline,
                                                             settings.threshold, settings.primary, plans))
log.info("%d rows (%s), %d configurations on one side only, paired ratios agree: %d of %d (%s)", len(table),
         table.verdict.value_counts().to_dict() if len(table) else {}, len(one_sided),
         ratios.agree.sum(), len(ratios), ratios.verdict.value_counts().to_dict() if len(ratios) else {})
