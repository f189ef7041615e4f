"""Rule export_pyperf: a study's result JSONs -> one pyperf suite (report/tables/pyperf_suite.py)."""

from jaxpitfalls import results, runtime
from jaxpitfalls.report.tables.pyperf_suite import write_suite

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
n = write_suite((results.read_result(p) for p in sm.input.runs), sm.output[0])
log.info("%d benchmarks of %d jobs -> %s", n, len(sm.input.runs), sm.output[0])
