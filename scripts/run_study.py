"""Rule run_study: time every variant of one configuration and write its result JSON."""

from jaxpitfalls import registry, runtime
from jaxpitfalls.jobs.study import run_configuration

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0], **sm.params.runtime)
run_configuration(sm.wildcards.study, sm.params.conf, sm.params.settings, sm.params.model_spec,
                  registry.inputs(sm.input), sm.output[0], sm.log[0], sm.params.runtime["jax_cache_dir"])
