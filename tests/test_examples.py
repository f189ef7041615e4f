"""The examples are the tests of a benchmark file's whole path: examples/config.yaml's four files, at toy sizes, run
through every rule of a copy of the workflow (timing jobs, traces and their breakdown, figures over a swept axis,
the report's expectations, the pyperf suites), and pyperf itself reads what they timed."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pyperf
import pytest
import yaml
from workflow_copy import ROOT, copy_workflow, planned_rules, snakemake

pytestmark = pytest.mark.workflow  # one worker runs the examples once: `make test` sends a file to one worker

# examples/config.yaml's blocks at toy sizes: what each file computes, not how fast (one axis swept, so the
# scaling figures have a line to draw; one file in two processes, so its result is merged over them)
TOY = {
    "mlp_step": {"base": {"width": 8, "depth": 1, "batch": 4}, "sweep": {"width": []},
                 "measure": {"processes": 2}},
    "vmap_loop": {"base": {"batch": 4, "width": 8}, "sweep": {"batch": [8]}},
    "donation": {"base": {"rows": 64, "width": 8}, "sweep": {"rows": []}},
    "retrace": {"base": {"width": 8, "batch": 4}, "sweep": {"width": []}},
}
QUICK = {"rounds": 3, "budget_s": 1, "min_sample_s": 0.005, "trace_steps": 1, "on_contention": "warn", "processes": 1,
         "target_precision": 0}


@pytest.fixture(scope="module")
def examples_run(tmp_path_factory):
    work = copy_workflow(tmp_path_factory.mktemp("examples"))
    config = yaml.safe_load((ROOT / "examples/config.yaml").read_text())
    for name, toy in TOY.items():
        block = config["studies"][name]
        block.update(toy, measure=QUICK | toy.get("measure", {}))
    overlay = work / "examples-toy.yaml"
    overlay.write_text(yaml.safe_dump(config))
    snakemake(work, "--cores", "all", overlay=overlay)
    return work


def test_every_example_runs_through_every_rule(examples_run):
    report = (examples_run / "reports/report.md").read_text()
    assert report.startswith("# JAX benchmarks: report") and "## Your expectations" in report
    assert "**Your 6 expectations**" in report
    (memory,) = [line for line in report.splitlines() if "| donated uses at least 40% less memory than" in line]
    assert [cell.strip() for cell in memory.split("|")[3:5]] == ["memory(donated) / memory(copied) 0.504x", "yes"]
    # no write-up is reproduced: its words are the expectations', not the claims'
    assert "## How each expectation was judged" in report and "write-up" not in report.lower()
    for name, toy in TOY.items():
        assert f"## Study `{name}`" in report
        overhead = pd.read_csv(examples_run / f"results/tables/{name}/overhead.csv")
        assert {"your_code", "dispatch", "wait", "rest"} <= set(overhead.component)
        checks = pd.read_csv(examples_run / f"results/tables/{name}/checks.csv")
        assert checks.signatures_distinct.all() and checks.outputs_agree.all()
        figures = {p.stem for p in (examples_run / f"reports/figures/{name}").glob("*.png")}
        assert {"medians", "time_split"} <= figures
        assert ("medians_first_run" in figures) == ("compile_ratios" in figures) == (name == "vmap_loop")  # FIRST_RUN
        assert ("scaling" in figures) == ("memory" in figures) == ("memory_temporaries" in figures) == any(
            toy["sweep"].values())
    # XLA's plan: the donated update writes into its argument's buffer, about half the copy's peak
    assert "### What each variant's largest program holds" in report
    plan = pd.read_csv(examples_run / "results/tables/donation/steps.csv").query("mode == 'blocked'")
    totals = plan.groupby("variant").program_total_bytes.first()
    assert totals["donated"] < 0.6 * totals["copied"] and (plan.program_donated_bytes > 0).any()
    assert "### What compiling in every call costs" in report  # RECOMPILES: timed compiling, every call
    retrace = pd.read_csv(examples_run / "results/tables/retrace/steps.csv").set_index("variant")
    assert (retrace.loc[["jit_in_call", "new_static"], "compile_median_ms"] > 0).all()
    first = pd.read_csv(examples_run / "results/tables/vmap_loop/steps.csv").query("mode == 'first_run'")
    assert set(first.variant) >= {"vmap", "loop"} and (first.median_ms > 0).all()  # FIRST_RUN: compiled each call
    (compiling,) = [line for line in report.splitlines() if "| vmap compiles faster than loop" in line]
    assert "compiling(loop) / compiling(vmap)" in compiling and "compiling_vs_loop" in report  # XLA's compile time


def test_a_merged_job_keeps_each_processs_samples(examples_run):
    (result,) = (examples_run / "results/runs/mlp_step").glob("*.json")
    entry = json.loads(result.read_text())["variants"]["filter_jit"]["modes"]["blocked"]
    assert len(entry["processes"]) == 2


def test_pyperf_reads_every_jobs_samples(examples_run):
    suites = sorted((examples_run / "results/exported").glob("*.pyperf.json"))
    assert [p.name.removesuffix(".pyperf.json") for p in suites] == sorted(TOY)
    for suite in suites:
        stats = subprocess.run([sys.executable, "-m", "pyperf", "stats", str(suite)], capture_output=True, text=True)
        assert stats.returncode == 0 and "Number of benchmarks" in stats.stdout, stats.stderr
    vmap = examples_run / "results/exported/vmap_loop.pyperf.json"
    compared = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(vmap), str(vmap), "--table"],
                              capture_output=True, text=True)
    assert compared.returncode == 0 and "batch4-width8/blocked/loop" in compared.stdout, compared.stderr
    loop = pyperf.BenchmarkSuite.load(str(vmap)).get_benchmark("batch4-width8/blocked/loop")
    assert loop.get_nrun() == 1 and loop.get_nvalue() == QUICK["rounds"] and loop.get_loops() >= 1
    donated = pyperf.BenchmarkSuite.load(str(examples_run / "results/exported/donation.pyperf.json")).get_benchmark(
        "rows64-width8/blocked/donated")
    assert donated.get_metadata()["xla_planned_total_bytes"] == (64 * 8 + 8) * 4  # the buffer and the row, once



def _planned(work) -> set[str]:
    return planned_rules(snakemake(work, "-n", overlay=work / "examples-toy.yaml"))


def test_an_edited_expectation_is_judged_again_and_times_nothing_again(examples_run):
    """EXPECT and comments are not what the jobs time (their parameter is the rest, digested); the code is."""
    path = examples_run / "examples/vmap_loop.py"
    original = path.read_text()
    try:
        path.write_text(original.replace("at least 2x faster", "at least 3x faster") + "# a comment\n")
        planned = _planned(examples_run)
        assert "render_report" in planned and not planned & {"run_study", "capture_trace", "export_pyperf"}, planned
        path.write_text(original.replace("jnp.tanh(w @ x)", "jnp.tanh(w @ x) * 1"))
        assert {"run_study", "capture_trace"} <= _planned(examples_run)
    finally:
        path.write_text(original)
