"""Rule parse_trace: a trace directory -> per-variant overhead breakdown table (CSV)."""

import pandas as pd

from jaxpitfalls import results, runtime, traces
from jaxpitfalls.contract import registry
from jaxpitfalls.harness.tracing import find_xplane

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
spec = registry.spec(sm.wildcards.study)
rows = traces.parse(find_xplane(sm.input.trace), spec.trace_components)
table = pd.DataFrame(rows).assign(study=sm.wildcards.study, config_id=sm.wildcards.config, mode=spec.traced_mode)
results.write_csv(sm.output[0], table)
log.info("%d rows -> %s", len(table), sm.output[0])
