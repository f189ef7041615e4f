"""Rule revision_checkout: a revision side's tree of the benchmark file's repository (revisions.py)."""

from jaxpitfalls import revisions, runtime

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
revisions.checkout(sm.params.study, sm.params.commit, sm.output[0])
log.info("%s at %s -> %s", sm.params.study, sm.params.commit, sm.output[0])
