"""Rule prepare_model: a random-init (seeded) or local Hugging Face checkpoint in results/models/{model}."""

from jaxpitfalls import runtime
from jaxpitfalls.models import checkpoint

log = runtime.start(snakemake.log[0])  # noqa: F821 (injected by Snakemake)
spec, out_dir = snakemake.params.spec, snakemake.output[0]  # noqa: F821
local = spec.get("local_dirs", {}).get(snakemake.wildcards.model)  # noqa: F821
if local:
    log.info("copying local checkpoint %s -> %s", local, out_dir)
    checkpoint.copy_local(local, out_dir)
else:
    log.info("random init of %s (seed %d) -> %s", snakemake.wildcards.model, spec["seed"], out_dir)  # noqa: F821
    checkpoint.save_random_init(spec["family"], spec, out_dir)
