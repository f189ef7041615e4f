"""Rule parse_trace: a trace directory -> per-variant overhead breakdown table (CSV), one block per capture."""

import pandas as pd

from jaxpitfalls import registry, results, runtime, traces
from jaxpitfalls.breakdown import find_xplanes

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
spec = registry.spec(sm.wildcards.study)
table = pd.concat([pd.DataFrame(traces.parse(xplane, spec.trace_components)).assign(capture=k)
                   for k, xplane in enumerate(find_xplanes(sm.input.trace))], ignore_index=True)
table = table.assign(study=sm.wildcards.study, config_id=sm.wildcards.config, mode=spec.traced_mode)
results.write_csv(sm.output[0], table)
log.info("%d rows (%d captures) -> %s", len(table), table.capture.nunique(), sm.output[0])
