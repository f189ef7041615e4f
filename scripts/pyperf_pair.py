"""Rule pyperf_pair: pyperf at its defaults on the base configuration's callable of one variant and mode, twice."""

from jaxpitfalls import registry, runtime
from jaxpitfalls.jobs.pyperf_pair import run_pyperf

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0], **sm.params.runtime)
run_pyperf(sm.wildcards.study, sm.params.conf, sm.params.settings, sm.params.model_spec, registry.inputs(sm.input),
           sm.wildcards.mode, sm.wildcards.variant, sm.output[0], sm.log[0], sm.params.runtime["jax_cache_dir"],
           sm.params.options)
