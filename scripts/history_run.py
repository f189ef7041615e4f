"""Rule history_run: one configuration timed in one release's environment (or the release's failure recorded)."""

from jaxpitfalls import registry, runtime
from jaxpitfalls.jobs.history_run import measure_release

sm = snakemake  # noqa: F821 (injected by Snakemake)
runtime.start(sm.log[0], **sm.params.runtime)
measure_release(sm.wildcards.release, sm.params.package, sm.input.env, sm.params.study, sm.params.conf,
                sm.params.settings, sm.params.model_spec, registry.inputs(sm.input), sm.output[0], sm.log[0],
                sm.params.runtime["jax_cache_dir"])
