"""A smoke run of the real Snakefile (presets/smoke.yaml) in a temporary copy of the repository
(workflow_copy.py; the `smoke_run` fixture of conftest.py, made once per session and shared): the tests
edit package files of the copy and check that exactly the jobs using them would rerun, without touching
the checkout.
"""

from __future__ import annotations

import json
import re
import shutil
import time
import zipfile
from pathlib import Path

import jax
import pandas as pd
import pytest
from busy import busy_neighbours
from configs import RETRYING, smoke_result
from report_browser import ReportPage
from system_tiers import need
from workflow_copy import planned_rules as _planned_rules
from workflow_copy import snakemake as _snakemake

from jaxpitfalls import plan, registry, results
from jaxpitfalls.contract import naming
from jaxpitfalls.harness.stats import twin_side
from jaxpitfalls.studies.dispatch.spec import ANCHOR as DISPATCH_ANCHOR
from jaxpitfalls.studies.dispatch.spec import BESIDE as DISPATCH_BESIDE
from jaxpitfalls.studies.dispatch.spec import beside_name as dispatch_beside
from jaxpitfalls.studies.tree_at.spec import ANCHOR, REFERENCE
from jaxpitfalls.studies.tree_at.spec import SPEC as TREE_AT

TREE_AT_VARIANTS = TREE_AT.variants  # the two code paths (not the first_run anchor)

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def workdir(smoke_run, tmp_path_factory):
    """The smoke run copied once for this module's tests that run snakemake in it (one after the other on a
    worker): the shared run stays as it was made for the tests beside them."""
    return shutil.copytree(smoke_run, tmp_path_factory.mktemp("smoke-copy") / "workflow", symlinks=True)


def test_every_result_is_written_and_valid(smoke_run):
    runs = sorted((smoke_run / "results" / "runs" / "dispatch").glob("*.json"))
    assert len(runs) == 2  # the base (its compute setting timed beside it) and the layers sweep's point
    for path in runs:
        doc = results.read_result(path)
        # the 2-layer configuration (what `structure` compares across jobs) also times the base's pair; the base
        # times its compute setting's pair (`beside`: what not_compute compares)
        anchor = set(DISPATCH_ANCHOR) if "anchor" in doc["config"] else set()
        assert anchor == (set() if naming.is_base(doc["config"]) else set(DISPATCH_ANCHOR))
        beside = {dispatch_beside(v, s) for s in doc["config"].get("beside", []) for v in DISPATCH_BESIDE}
        assert len(beside) == (2 if naming.is_base(doc["config"]) else 0)
        twins = {name: v["twin_of"] for name, v in doc["variants"].items() if "twin_of" in v}
        assert doc["floor"] in twins.values() and all(name == twin_side(of) for name, of in twins.items())
        own = set(doc["variants"]) - anchor - beside - set(twins)
        agreement, distinct = doc["checks"]["outputs_agree"], doc["checks"]["signatures_distinct"]
        assert agreement["reference"] == doc["floor"] and set(agreement["bitwise_equal"]) == own
        assert distinct["distinct_signatures"] == distinct["variants"] == len(own) == 4
        if anchor:
            assert set(doc["checks"]["anchor_outputs_agree"]["bitwise_equal"]) == anchor
        if beside:
            assert set(doc["checks"]["beside_dropout0.1-attentionfused_outputs_agree"]["bitwise_equal"]) == beside
        assert all(set(doc["variants"][name]["modes"]) == {"blocked"} for name in anchor | beside)
        env = doc["environment"]
        assert env["backend"] == jax.default_backend() and env["device_count"] >= 1
        assert set(env["git"]) == {"commit", "dirty"} and env["packages"]["equinox"]
        for variant in doc["variants"].values():
            assert variant["calls"] > doc["settings"]["rounds"] and variant["compiles_in_warmup"] >= 1
            for mode in variant["modes"].values():  # the smoke preset times dispatch in 2 fresh processes
                assert [p["summary"]["n"] for p in mode["processes"]] == [doc["settings"]["rounds"]] * 2
                assert len(mode["contended"]) == len(mode["samples_s"]) and mode["calls_per_sample"] >= 1
        assert own == {"filter_jit", "jit_partition", "jit_flat", "jit_static_arg"}
        assert doc["processes"] == 2 and len(doc["comparisons_by_process"]) == 2
        for machine in doc["machine"].values():  # the smoke preset keeps contended rounds (marked): none re-timed
            assert machine["gc_disabled_in_samples"] and machine["rounds_kept"] == 2 * doc["settings"]["rounds"]
            assert machine["policy"]["on_contention"] == "warn" and machine["waits"] == []


def test_a_job_in_several_processes_logs_each_line_once(smoke_run):
    """The job and its worker processes share the rule's log (standard error included): no line twice."""
    log = (smoke_run / smoke_result("dispatch").replace("results/runs", "results/logs/run_study")).with_suffix(".log")
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    assert any("process 2 of 2" in line for line in lines) and any("round" in line for line in lines)
    assert len(lines) == len(set(lines))
    adaptive = (smoke_run / smoke_result("tree_at").replace("results/runs", "results/logs/run_study")).with_suffix(
        ".log").read_text()  # tree_at's smoke preset: 2 processes, more until its precision, at most 3
    assert "process 1 (2 planned, up to 3 for measure.target_precision)" in adaptive
    assert "process 3 (2 planned, up to 3 for measure.target_precision)" in adaptive  # never "3 of 2"


def test_tree_at_results_prove_their_variants_and_sharding(smoke_run):
    base, deeper = (results.read_result(smoke_run / smoke_result("tree_at", base)) for base in (True, False))
    for doc in (base, deeper):
        assert "--xla_force_host_platform_device_count=2" in doc["environment"]["xla_flags"]
        assert doc["structure"]["devices"] == doc["environment"]["device_count"]
        if doc["structure"]["devices"] > 1:
            assert doc["structure"]["sharded_leaves"] > 0
        calls = {name: doc["variants"][name]["signature"]["tree_at_calls_per_application"] for name in TREE_AT_VARIANTS}
        assert calls == {"unbatched": doc["structure"]["transforms"], "batched": 1}
        for name, variant in doc["variants"].items():
            if name != REFERENCE and "twin_of" not in variant:  # the reference: timed in the direct mode alone
                assert variant["modes"]["first_run"]["measures_compilation"]
        assert set(doc["variants"][REFERENCE]["modes"]) == {"direct"} and doc["variants"][REFERENCE]["calls"] > 0
    assert deeper["structure"]["transforms"] == 2 * base["structure"]["transforms"]
    # the 2-layer model's first runs are paired with its one-layer anchor; the 1-layer base is its own
    assert ANCHOR not in base["variants"] and set(deeper["variants"][ANCHOR]["modes"]) == {"first_run"}
    # measure.step_by_step: base: the un-jitted start-up timed step by step at the base only
    assert all("step_by_step" in base["variants"][name]["modes"] and "step_by_step" not in
               deeper["variants"][name]["modes"] for name in TREE_AT_VARIANTS)
    figures = sorted(p.name for p in (smoke_run / "reports" / "figures" / "tree_at").glob("*.png"))
    assert figures == ["speedup_vs_transforms.png", "time_vs_transforms.png"]
    assert len(list((smoke_run / "results" / "traces" / "tree_at").iterdir())) == 1  # `trace: base`


def test_generation_labels_its_warmup_demonstration_and_the_guard_catches_it(smoke_run):
    docs = {p.stem: results.read_result(p) for p in (smoke_run / "results" / "runs" / "generation").glob("*.json")}
    demos = [d for d in docs.values() if "demonstration" in d]
    base = results.read_result(smoke_run / smoke_result("generation"))
    assert len(demos) == 1 and len(docs) == 3  # the base, a longer prompt, the demonstration
    assert all(n > 0 for n in demos[0]["checks"]["compile_guard_caught"].values())
    assert demos[0]["tokens"] == base["tokens"]  # the pitfall changes the time, not the output
    report = (smoke_run / "reports" / "report.md").read_text()
    section = report[report.index("## Study `generation`"):]
    assert "### The warmup pitfall (demonstration)" in section and "are left out of this table" in section
    # measure.eager: base: the un-jitted loop is timed at the base only, and the report says where it is not
    longer = results.read_result(smoke_run / smoke_result("generation", base=False))
    assert "uncached_eager" in base["variants"] and "uncached_eager" not in longer["variants"]
    assert f"- Not timed at `{longer['config_id']}`: uncached_eager (measure.eager: base" in section
    assert "figures/generation/warmup_pitfall.png" in section


def test_extraction_stores_agreeing_activations_and_reports_its_phases(smoke_run):
    paths = sorted((smoke_run / "results" / "runs" / "extraction").glob("*.json"))
    assert len(paths) == 2  # the base and more sequences on the same model
    for doc in map(results.read_result, paths):
        assert doc["structure"]["last_batch"] < doc["config"]["batch"]  # ragged
        assert doc["checks"]["outputs_agree"] and set(doc["variants"]) == {*extraction_variants(), "pipelined~twin"}
        assert doc["variants"]["pipelined"]["signature"]["max_in_flight_per_pass"] == 2
        calls = {v: doc["variants"][v]["signature"]["forward_calls_per_pass"] for v in ("pipelined", "scanned")}
        assert calls["scanned"] < calls["pipelined"]  # one scanned call per chunk of batches
        assert set(doc["checks"]["findings"]) == {"device_get", "decode_step", "donation", "flax_apply"}
        flax = doc["checks"]["findings"]["flax_apply"]  # merged over the job's processes
        assert flax["apply_compiles"] > flax["jit_compiles"] == 1, flax
    section = (smoke_run / "reports" / "report.md").read_text().split("## Study `extraction`")[1]
    assert "### Gains phase by phase" in section and "figures/extraction/time_split.png" in section


def extraction_variants():
    return registry.spec("extraction").variants


def test_tables_figures_and_report(smoke_run):
    tables = smoke_run / "results" / "tables" / "dispatch"
    steps = pd.read_csv(tables / "steps.csv")
    pooled = steps[steps.process.astype(str) == "all"]
    # configurations x variants x training modes, the base's infer mode (filter_jit, jit_partition) and flatten
    # mode (jit_partition, jit_flat), the 2-layer point's anchor (the base's filter_jit and jit_partition, blocked)
    # and the base's compute setting (its pair); the floors' A/A twins: jit_flat's in each configuration's training
    # modes, the infer mode's (jit_partition's) and the flatten mode's (jit_flat's)
    assert len(pooled) == 2 * 4 * 2 + 2 + 2 + 2 + 2 + 2 * 2 + 1 + 1 and (steps.median_ms > 0).all()
    assert len(steps) == len(pooled) * 3  # and each of the smoke preset's 2 dispatch processes on its own
    overhead = pd.read_csv(tables / "overhead.csv")
    assert set(overhead.component) >= {"_preprocess", "_postprocess", "combine", "executable", "rest"}
    for (_, _, _), part in overhead.groupby(["config_id", "variant", "capture"]):
        assert part.share.sum() == pytest.approx(1.0, abs=0.05)
    # config.yaml's 3 captures at the base (attribution_complete reads their spread), one elsewhere
    captures = overhead.groupby("config_id").capture.nunique()
    assert len(captures) == 2
    assert captures.to_dict() == {c: 1 if c.startswith("layers2-") else 3 for c in captures.index}
    figures = sorted(p.name for p in (smoke_run / "reports" / "figures" / "dispatch").glob("*.png"))
    # no size swept: no step figure of one point per line; the compute claim's shifts, timed in the base's job
    assert figures == ["overhead_vs_compute.png", "overhead_vs_leaves.png"]
    assert all((smoke_run / "reports" / "figures" / "dispatch" / f).stat().st_size > 10_000 for f in figures)
    report = (smoke_run / "reports" / "report.md").read_text()
    headings = ["## What to do", "## Reproduction scorecard", "## How each claim was judged", "## Study `dispatch`",
                "### Pytree leaves", "### Where filter_jit's extra time per step goes",
                "### Time per timed call", "### Ratios and differences", "### Trace breakdown",
                "### Figures", "## Study `tree_at`", "### Transforms and tree_at calls", "### Trace breakdown",
                "## Audit", "### Run summary", "### Study `dispatch`: checks", "## Environment"]
    at = 0
    for heading in headings:  # each present, in this order
        at = report.index(heading, at) + len(heading)
    assert "figures/dispatch/overhead_vs_leaves.png" in report and "figures/tree_at/time_vs_transforms.png" in report
    assert "scorecard.png" in report and (smoke_run / "reports" / "scorecard.png").stat().st_size > 5_000
    assert "study `tree_at`:" in report  # its part of the smoke_run, against its target, by what it bought
    assert "needs): timed samples " in report and "merging, writing), traces " in report
    assert "worker starts and imports " in report  # its workers' seconds to their replies less their measuring
    assert "between samples " in report and "models, compiles, warm-up and checks " in report  # in its workers
    assert re.search(r"- study `dispatch`: .*configurations within 10% of their cheapest plan", report)
    assert "Peak memory: **" in report
    # its two timing jobs at once keep contended rounds (on_contention: warn): said above the findings where any was
    busy = sum(pd.read_csv(smoke_run / "results" / "tables" / s / "checks.csv").rounds_contended_kept.sum()
               for s in ("dispatch", "tree_at", "extraction", "generation"))
    assert ("**Timed beside a busy machine" in report[:report.index("## What to do")]) == bool(busy)
    # the write-ups' numbers beside ours: the smoke sizes are not the write-ups' structures, so never sized
    assert "| size " in report and "Write-up vs ours: 1.23-1.27x; 159.7, 130.1, 133.5, 104.7 ms/step: not " \
                                   "measured here" in report
    assert "| in range " not in report and "x smaller" not in report and "x larger" not in report
    assert not re.search(r"\de[+-]\d", report)  # no number in e-notation anywhere in the report


def test_every_claim_of_every_write_up_is_in_the_scorecard_judged_or_with_why_not(smoke_run):
    report = (smoke_run / "reports" / "report.md").read_text()
    scorecard = report[report.index("## Reproduction scorecard"):report.index("## How each claim was judged")]
    judging = report[report.index("## How each claim was judged"):report.index("## Study `")]
    for name in registry.names():
        for key, claim in registry.spec(name).claims.items():
            assert f"| {name} " in scorecard and claim.text in scorecard, (name, key)
            assert f"- **{name} `{key}`** (" in judging, (name, key)
            if claim.checked:
                assert f"checked in every job: {claim.checked}" in judging, (name, key)
            elif claim.not_measured:
                assert f"not measured: {claim.not_measured}" in judging, (name, key)
    findings = report[report.index("## What to do"):report.index("## Reproduction scorecard")]
    assert all(f"- **{name}**: " in findings for name in registry.names())


def test_html_report_shows_each_study_with_its_figures_tables_and_captions(workdir):
    """Opened in headless Chromium: the report is rendered by its scripts, so only a browser shows it."""
    need("browser", ("chromium", "chromedriver"), "`make browser-packages` as root on Debian (chromium, "
         "chromium-driver)")
    _snakemake(workdir, "--report", "reports/report.html")
    page = ReportPage(workdir / "reports" / "report.html")
    try:
        landing = page.text()  # it opens on the findings and the scorecard's figure, as the markdown report does
        assert "What to do" in landing and "Reproduction scorecard:" in landing
        assert all(f"{study}: " in landing for study in registry.names())
        assert page.landing_figure() >= 600
        for study in registry.names():
            figures = sorted(str(p.relative_to(workdir))
                             for p in (workdir / "reports/figures" / study).glob("*.png"))
            assert figures and page.listing((study, "figures"), figures) == figures
            for figure in figures:
                assert page.view_image(figure) >= 600, f"{figure} is not shown"
            caption = page.details(figures[0])
            described = registry.report(study).FIGURES[Path(figures[0]).stem]
            assert f"of study {study}: {described[:40]}" in caption and "Student's t on each process" in caption
            assert "Configuration: base " in caption and f"Environment: JAX {jax.__version__}" in caption
            tables = sorted(plan.table_paths(study).values())
            assert page.listing((study, "tables"), tables) == tables
        listed = ["reports/report.md", "reports/report_page.html", "reports/scorecard.png",
                  "results/tables/run_summary.csv"]
        assert page.listing(("Report",), listed) == listed
        shown = page.view_page("reports/report_page.html")  # report.md is a download only: its page is read here
        assert "Reproduction scorecard" in shown and "How each claim was judged" in shown
    finally:
        page.close()


def test_zip_report_holds_every_figure_and_table(workdir):
    _snakemake(workdir, "--report", "reports/report.zip")
    names = zipfile.ZipFile(workdir / "reports" / "report.zip").namelist()
    expected = ["report.md", "report_page.html", "run_summary.csv", "scorecard.png",
                *(p.name for p in (workdir / "reports" / "figures").glob("*/*.png")),
                *(Path(p).name for study in registry.names() for p in plan.table_paths(study).values())]
    assert "report/report.html" in names
    assert sorted(Path(n).name for n in names if n.startswith("report/data/raw/")) == sorted(expected)


def test_comparing_a_run_with_its_own_bundle_finds_no_change_and_says_where_it_cannot_tell(workdir, tmp_path):
    shutil.copy(workdir / "reports" / "bundle.tar.gz", tmp_path / "baseline.tar.gz")  # as another machine would
    overlay = tmp_path / "compare.yaml"
    for gate_on in ("medians", "ratios"):
        overlay.write_text(json.dumps({"compare": {"baseline": str(tmp_path / "baseline.tar.gz"),
                                                   "fail_on_regression": True, "gate_on": gate_on}}))
        _snakemake(workdir, "--cores", "all", "compare_gate", overlay=overlay)
        assert f"({gate_on})" in (workdir / "results" / "tables" / "compare.passed").read_text()
    table = pd.read_csv(workdir / "results" / "tables" / "compare.csv")
    ratios = pd.read_csv(workdir / "results" / "tables" / "compare_ratios.csv")
    for rows, value in ((table, "ratio"), (ratios, "change")):
        # the same samples: no change; unchanged only where the interval proves it within 5%, else inconclusive
        assert len(rows) and (rows[value] == 1).all() and set(rows.verdict) <= {"unchanged", "inconclusive"}
        within = (rows[f"{value}_ci_low"] >= 0.95) & (rows[f"{value}_ci_high"] <= 1.05)
        assert (rows.verdict == within.map({True: "unchanged", False: "inconclusive"})).all()
    assert "Verdicts: " in (workdir / "reports" / "compare.md").read_text()
    assert (workdir / "reports" / "figures" / "compare.png").stat().st_size > 10_000  # the rows drawn


def test_up_to_date_tree_has_nothing_to_do(workdir):
    start = time.perf_counter()
    proc = _snakemake(workdir, "-n")
    elapsed = time.perf_counter() - start
    assert "Nothing to be done" in proc.stdout + proc.stderr
    print(f"snakemake -n on the up-to-date tree: {elapsed:.2f} s")


# After the jobs that use the edited file, what follows them: the tables, figures, report and bundle.
DOWNSTREAM = {"aggregate", "plot", "render_report", "report_page", "bundle", "all"}


@pytest.mark.parametrize("edited, reruns", [
    ("traces.py", {"parse_trace"} | DOWNSTREAM),
    ("studies/dispatch/report.py", DOWNSTREAM - {"aggregate"}),  # a figure or claim
    ("studies/tree_at/report.py", DOWNSTREAM - {"aggregate"}),
    # what it is: its timing jobs, and so their samples as pyperf reads them
    ("studies/dispatch/spec.py", {"run_study", "capture_trace", "parse_trace", "export_pyperf"} | DOWNSTREAM),
])
def test_editing_a_package_file_reruns_exactly_the_jobs_that_use_it(workdir, edited, reruns):
    path = workdir / "src" / "jaxpitfalls" / edited
    original = path.read_text()
    try:
        path.write_text(original + "\n# an edit\n")
        assert _planned_rules(_snakemake(workdir, "-n")) == reruns
    finally:
        path.write_text(original)


@pytest.mark.parametrize("edit, reruns", [
    ({"compare": {"threshold": 0.2}}, {"bundle", "all"}),  # used by no job here; the bundle records the config
    ({"studies": {"dispatch": {"target_s": 61}}}, {"report_settings", "render_report", "report_page", "bundle", "all"}),
    # the traces read trace_steps, the timing jobs do not; the timing jobs read rounds, the traces do not
    # (and the report's settings, which it shows)
    ({"studies": {"tree_at": {"measure": {"trace_steps": 2}}}}, {"capture_trace", "parse_trace", "report_settings"}
     | DOWNSTREAM),
    ({"studies": {"tree_at": {"measure": {"rounds": 4}}}}, {"run_study", "export_pyperf", "report_settings"}
     | DOWNSTREAM),
])
def test_editing_a_config_key_reruns_only_the_jobs_that_read_it(workdir, tmp_path, edit, reruns):
    overlay = tmp_path / "edit.yaml"
    overlay.write_text(json.dumps(edit))
    assert _planned_rules(_snakemake(workdir, "-n", overlay=overlay)) == reruns


def test_rerunning_one_rule_reruns_what_follows(workdir):
    rules = _planned_rules(_snakemake(workdir, "-n", "-R", "run_study"))
    assert {"run_study", "aggregate", "render_report"} <= rules and "prepare_model" not in rules


def test_an_invalid_config_fails_naming_the_key_and_keeps_results(workdir, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(json.dumps({"studies": {"dispatch": {"base": {"layers": 0, "hidden": 16, "batch": 2,
                                                                 "seq": 16, "dropout": 0.0}}}}))
    before = sorted(p.name for p in (workdir / "results" / "runs" / "dispatch").iterdir())
    proc = _snakemake(workdir, "-n", overlay=bad, check=False)
    assert proc.returncode != 0 and "layers" in proc.stdout + proc.stderr
    assert sorted(p.name for p in (workdir / "results" / "runs" / "dispatch").iterdir()) == before


def test_a_failing_job_leaves_every_other_result_intact(workdir, tmp_path):
    """A model whose weights cannot be read (a config that passes every check, a dangling weights file)
    fails its own jobs; finished results are kept, untouched."""
    broken = tmp_path / "broken-model"
    broken.mkdir()
    (broken / "config.json").write_text(json.dumps({
        "model_type": "bert", "num_hidden_layers": 3, "hidden_size": 16, "num_attention_heads": 1,
        "max_position_embeddings": 32, "vocab_size": 128}))
    (broken / "model.safetensors").symlink_to(tmp_path / "no-such-weights")
    overlay = tmp_path / "broken.yaml"
    overlay.write_text(json.dumps({
        "models": {"bert": {"local_dirs": {"bert-L3-H16": str(broken)}}},
        "studies": {"dispatch": {"sweep": {"layers": [3]}}},
    }))
    runs = workdir / "results" / "runs" / "dispatch"
    before = {p.name: p.stat().st_mtime_ns for p in runs.iterdir()}
    proc = _snakemake(workdir, "--cores", "all", overlay=overlay, check=False)
    assert proc.returncode != 0
    assert "Error in rule prepare_model" in proc.stdout + proc.stderr
    assert "No such file or directory" in (workdir / "results/logs/prepare_model/bert-L3-H16.log").read_text()
    assert {p.name: p.stat().st_mtime_ns for p in runs.iterdir()} == before  # nothing lost, nothing partial
    assert not list((workdir / "results" / "models").glob("*L3*")) and not list(runs.glob(".*"))
    # the advice: an overlay without the failed configuration, and the local directory no configuration uses
    without = workdir / "results" / "without-failed.yaml"
    assert f"add {without} last to the command's --configfile files" in proc.stderr
    assert "Remove models.bert.local_dirs.bert-L3-H16 from your config too" in proc.stderr
    overlay.write_text(json.dumps({"studies": {"dispatch": {"sweep": {"layers": [3]}}}}))
    planned = re.findall(r"^(?:local)?rule (\w+):", _snakemake(workdir, "-n", overlay=[overlay, without]).stdout,
                         re.MULTILINE)
    assert "render_report" in planned and not {"run_study", "capture_trace", "prepare_model"} & set(planned)


def test_a_script_touched_reruns_nothing_and_a_script_edited_reruns_its_rule(smoke_run, tmp_path):
    """A checkout or stash that only touches a script kept every result (Snakemake's `code` trigger read its
    mtime and reran every job of its rule); an edit reruns that rule and what reads its outputs."""
    import os

    copy = shutil.copytree(smoke_run, tmp_path / "workflow", symlinks=True)

    def planned() -> set[str]:
        return set(re.findall(r"^(?:local)?rule (\w+):", _snakemake(copy, "-n").stdout, re.MULTILINE))

    assert planned() == set()
    os.utime(copy / "scripts" / "run_study.py")
    assert planned() == set()
    with open(copy / "scripts" / "plot.py", "a") as script:
        script.write("# edited\n")
    assert {"plot", "render_report"} <= planned() <= DOWNSTREAM - {"aggregate"}


def test_a_timing_job_beside_busy_processes_fails_or_is_marked_never_silently_accepted(smoke_run, tmp_path):
    work = tmp_path / "busy"
    shutil.copytree(smoke_run, work, symlinks=True)
    target = smoke_result("dispatch")
    overlay = tmp_path / "busy.yaml"
    measure = RETRYING["studies"]["dispatch"]["measure"]
    overlay.write_text(json.dumps(RETRYING))
    with busy_neighbours(niceness=19):
        refused = _snakemake(work, "--cores", "all", target, "--forcerun", target, overlay=overlay, check=False)
        assert refused.returncode != 0
        assert "the machine was busy while samples were timed" in refused.stdout + refused.stderr
        assert "reaching measure.max_wait_s=3" in refused.stdout + refused.stderr
        assert "other processes used" in (work / "results/logs/run_study" / target.split("/", 2)[2]).with_suffix(
            ".log").read_text()
        overlay.write_text(json.dumps({"studies": {"dispatch": {"measure": measure | {"on_contention": "warn"}}}}))
        _snakemake(work, "--cores", "all", target, "--forcerun", target, overlay=overlay)
    doc = results.read_result(work / target)
    # a mode's rounds are marked where its watch saw the neighbours past max_busy_share, and always well past it (a
    # mode of a few tenths of a second, one short window, may catch nice-19 neighbours below it: nothing marked
    # there, its share recorded); the neighbours caught in at least one mode
    limit = doc["settings"]["max_busy_share"]
    for name, watched in doc["machine"].items():
        share, marked = watched["others_share_max"] + watched["steal_share_max"], watched["rounds_contended_kept"] > 0
        assert (share > limit if marked else share < limit + 0.1), (name, watched)
        assert all(any(v["modes"][name]["contended"]) == marked for v in doc["variants"].values() if name in v["modes"])
    assert any(m["rounds_contended_kept"] > 0 and m["others_share_max"] > 0.2 for m in doc["machine"].values())
    _snakemake(work, "--cores", "all", "reports/report.md", overlay=overlay)
    summary = (work / "reports" / "report.md").read_text().split("## Audit")[1]
    assert "study `dispatch`:" in summary and "kept although contended**" in summary
