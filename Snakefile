# Measures what JAX/Equinox idioms cost; see README.md. Wiring only: the logic lives in src/jaxpitfalls.
from snakemake.utils import min_version, validate

min_version("9.0")


# Beside the Snakefile, so that `--directory elsewhere` (a run kept apart) still starts from the defaults.
configfile: f"{workflow.basedir}/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/models.smk"
include: "workflow/rules/studies.smk"
include: "workflow/rules/traces.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        "reports/report.md",
        "reports/bundle.tar.gz",
        compare_targets(),
    default_target: True
