"""Rule capture_trace: the separate profiler pass of one configuration, into its own directory."""

from jaxpitfalls import registry, runtime

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0], **sm.params.runtime)
settings = registry.spec(sm.wildcards.study).traced.of(sm.params.settings)
written = registry.measure(sm.wildcards.study).trace(sm.params.conf, registry.inputs(sm.input), settings, sm.output[0])
log.info("%d capture(s) written: %s", settings.captures, written)
