"""Rule bundle: the run's results, tables, figures and report in one archive with a manifest."""

from pathlib import Path

from jaxpitfalls import results, runtime
from jaxpitfalls.report.tables import bundle

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
figures = [str(p) for d in sm.input.figures for p in sorted(Path(d).glob("*.png"))]
files = [*sm.input.runs, *sm.input.tables, *figures, sm.input.report, sm.input.scorecard, sm.input.summary,
         sm.input.settings]
environment = results.read_result(sm.input.runs[0])["environment"]
manifest = bundle.make(files, sm.output[0], sm.params.config, environment)
log.info("%d files -> %s", len(manifest["files"]), sm.output[0])
