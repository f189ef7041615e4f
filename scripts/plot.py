"""Rule plot: one study's figures from its tables."""

from pathlib import Path

from jaxpitfalls import registry, runtime
from jaxpitfalls.contract.figures import save
from jaxpitfalls.contract.tables import TABLES
from jaxpitfalls.report.tables.aggregate import read_tables

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
out = Path(sm.output[0])
out.mkdir(parents=True, exist_ok=True)
tables = read_tables({t: sm.input[t] for t in TABLES})
for name, fig in registry.report(sm.wildcards.study).figures(tables).items():
    save(fig, str(out / f"{name}.png"))
    log.info("figure %s", out / f"{name}.png")
