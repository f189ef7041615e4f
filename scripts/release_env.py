"""Rule release_env: one release's environment (built, or the user's checked), or why it failed, as a status."""

from pathlib import Path

from jaxpitfalls import runtime
from jaxpitfalls.jobs import release_env

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
swept = (sm.params.package, sm.wildcards.release)
also = tuple(sm.params.imports)  # a benchmark file's own imports, where the history times one
if sm.params.python:
    status = release_env.existing(sm.params.python, *swept, also)
else:
    status = release_env.build(Path(sm.output[0]).parent / "venv", sm.params.requirements, *swept, also)
log.info("%s %s: %s", sm.wildcards.release, "ready" if status["ok"] else "failed",
         status.get("versions") or status["reason"])
release_env.write_json(sm.output[0], status)
