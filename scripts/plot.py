"""Rule plot: one study's figures from its tables."""

from pathlib import Path

from jaxpitfalls import registry, runtime
from jaxpitfalls.contract.figures import save
from jaxpitfalls.contract.tables import TABLES
from jaxpitfalls.report.tables.aggregate import read_tables
from jaxpitfalls.results import write_dir_atomically

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
tables = read_tables({t: sm.input[t] for t in TABLES})


def draw(folder: str) -> None:
    for name, fig in registry.report(sm.wildcards.study).figures(tables).items():
        save(fig, str(Path(folder) / f"{name}.png"))
        log.info("figure %s", Path(sm.output[0]) / f"{name}.png")


write_dir_atomically(sm.output[0], draw)  # the whole folder or none: a failed figure leaves the last run's
