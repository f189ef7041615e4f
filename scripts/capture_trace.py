"""Rule capture_trace: the separate profiler pass of one configuration, into its own directory."""

from jaxpitfalls import runtime, studies

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0], **sm.params.runtime)
study = studies.measure(sm.wildcards.study)
xplane = study.trace(sm.params.conf, studies.inputs(sm.input), sm.params.settings, sm.output[0])
log.info("trace written: %s", xplane)
