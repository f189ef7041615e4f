# Measures what JAX/Equinox idioms cost; see README.md. Wiring only: the logic lives in src/jaxpitfalls.
import sys

from snakemake.utils import min_version

# The parse-time code from this checkout, whether the package is installed or not: a driver environment of
# Snakemake and envs/driver.txt alone parses the workflow, and the jobs run in one that installs the package
# (envs/cpu.yaml under --software-deployment-method conda).
sys.path.insert(0, f"{workflow.basedir}/src")

from jaxpitfalls import failed_jobs, plan, runtime
from jaxpitfalls.configcheck import InvalidConfig, require_valid
from jaxpitfalls.idle_scheduler import keep_idle
from jaxpitfalls.slurm_nodes import cores_no_node_has

# Every job imports this checkout's code too, not the one a shared venv's editable install points to (a second
# clone or git worktree beside the first).
runtime.jobs_import_this_checkout()

min_version("9.0")


# Beside the Snakefile, so that `--directory elsewhere` (a run kept apart) still starts from the defaults.
configfile: f"{workflow.basedir}/config.yaml"


# Every problem at once, before any job starts; fills in the schema's defaults. Said alone, without the
# traceback lines Snakemake adds to an error raised here (they read as a crash).
try:
    require_valid(config, f"{workflow.basedir}/workflow/schemas/config.schema.yaml")
except InvalidConfig as refused:
    sys.exit(str(refused))


report: "workflow/report/workflow.rst"


# No job-rate timers waking the scheduler many times a second beside a timed job.
onstart:
    keep_idle(workflow)
    if no_node := cores_no_node_has(workflow):
        sys.exit(no_node)


# Said where the run ends: a gated comparison's report asked for alone (it passed whatever it found), and a
# history's releases without a result (the run succeeds without them).
onsuccess:
    if ungated := plan.ungated_note(config, workflow.dag_settings.targets):
        print(ungated, file=sys.stderr)
    elif passed := plan.gate_note(config):
        print(passed, file=sys.stderr)
    if config["history"]["versions"]:
        from jaxpitfalls.across_runs.history.runs import unmeasured_note

        if unmeasured := unmeasured_note(config):
            print(unmeasured, file=sys.stderr)


# After a failed job: what was kept, and a config overlay that reports every finished configuration without it.
onerror:
    print(failed_jobs.advice(config, log), file=sys.stderr)


# Cheap jobs that only read results run where Snakemake runs, never queued on a cluster (profiles/slurm).
localrules:
    all,
    aggregate,
    plot,
    export_pyperf,
    revision_checkout,
    render_report,
    report_settings,
    report_page,
    compare_gate,
    bundle,


include: "workflow/rules/common.smk"
include: "workflow/rules/models.smk"
include: "workflow/rules/studies.smk"
include: "workflow/rules/traces.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/lockstep.smk"
include: "workflow/rules/compare.smk"
include: "workflow/rules/history.smk"


rule all:
    default_target: True
    input:
        "reports/report.md",
        "reports/report_page.html",
        "reports/bundle.tar.gz",
        expand("results/exported/{study}.pyperf.json", study=STUDIES),
        compare_targets(),
        history_targets(),
