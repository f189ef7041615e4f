"""Rule pyperf_pairs: every pyperf pair of the calibration in one file."""

from jaxpitfalls import runtime
from jaxpitfalls.jobs.pyperf_pair import gather

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
log.info("%d pyperf pair(s) -> %s", len(gather(list(sm.input.pairs), sm.output[0])), sm.output[0])
