"""Rule aggregate: one study's result JSONs + overhead tables -> CSV tables."""

from jaxpitfalls import results, runtime
from jaxpitfalls.report.tables.aggregate import aggregate

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
tables = aggregate(list(sm.input.runs), list(sm.input.overhead))
for name, table in tables.items():
    results.write_csv(sm.output[name], table)
    log.info("%s: %d rows -> %s", name, len(table), sm.output[name])
