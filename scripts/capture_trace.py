"""Rule capture_trace: the separate profiler pass of one configuration, into its own directory."""

from jaxpitfalls import runtime, studies

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0], **sm.params.runtime)
settings = studies.spec(sm.wildcards.study).traced.of(sm.params.settings)
xplane = studies.measure(sm.wildcards.study).trace(sm.params.conf, studies.inputs(sm.input), settings, sm.output[0])
log.info("trace written: %s", xplane)
