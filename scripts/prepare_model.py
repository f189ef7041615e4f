"""Rule prepare_model: a random-init (seeded) or local Hugging Face checkpoint in results/models/{model}."""

from jaxpitfalls import runtime
from jaxpitfalls.models import checkpoint

sm = snakemake  # noqa: F821 (injected by Snakemake)
log = runtime.start(sm.log[0])
spec, out_dir = sm.params.spec, sm.output[0]
if spec["local_dir"]:
    log.info("copying local checkpoint %s -> %s", spec["local_dir"], out_dir)
    checkpoint.copy_local(spec["local_dir"], out_dir)
else:
    log.info("random init of %s (seed %d) -> %s", sm.wildcards.model, spec["seed"], out_dir)
    checkpoint.save_random_init(spec["family"], spec, out_dir)
