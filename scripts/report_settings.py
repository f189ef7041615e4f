"""Rule report_settings: the config keys the report shows, as reports/report_settings.json."""

import json

from jaxpitfalls import results, runtime

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0])
results.write_text(sm.output[0], json.dumps(sm.params.settings, indent=1) + "\n")
