"""Rule lockstep: one configuration timed in every side's environment at once (compare.sides)."""

from jaxpitfalls import registry, runtime
from jaxpitfalls.across_runs.settings import Lockstep
from jaxpitfalls.jobs.lockstep import run_lockstep

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0], **sm.params.runtime)
run_lockstep(sm.wildcards.study, sm.params.conf, sm.params.settings, sm.params.model_spec, registry.inputs(sm.input),
             Lockstep.of(sm.params.compare), sm.output[0], sm.log[0], sm.params.runtime["jax_cache_dir"],
             dict(sm.params.commits))
