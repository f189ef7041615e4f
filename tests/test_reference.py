"""The published reference (docs/results/reference/): every committed snapshot matches its manifest and the README
links one; publishing copies a run's files unchanged and refuses what it cannot vouch for."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from printed_intervals import derived_now, held, printed, table_triples

from jaxpitfalls.across_runs.reference import published as publishing
from jaxpitfalls.across_runs.reference import reference
from jaxpitfalls.report.tables import bundle

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = sorted((ROOT / "docs/results/reference").glob(f"*/{publishing.MANIFEST}"))
# the GPU run's too, rendered by the same code
RENDERED = SNAPSHOTS + sorted((ROOT / "docs/results/gpu").glob(f"*/{publishing.MANIFEST}"))


def test_a_reference_is_committed_and_linked_from_the_readme():
    assert SNAPSHOTS, "no snapshot under docs/results/reference/ (make reference)"
    readme = (ROOT / "README.md").read_text()
    linked = re.findall(r"\((docs/results/reference/[^)]+/report\.md)\)", readme)
    assert linked, "README.md links no reference report"
    assert all((ROOT / link).is_file() for link in linked), linked


@pytest.mark.parametrize("manifest", SNAPSHOTS, ids=lambda p: p.parent.name)
def test_committed_snapshot_matches_its_manifest(manifest):
    m = reference.check(manifest.parent)
    assert "report.md" in m["files"] and any(f.endswith(".png") for f in m["files"])
    report = (manifest.parent / "report.md").read_text()
    for figure in re.findall(r"\]\((figures/[^)]+\.png)\)", report):
        assert figure in m["files"], f"the report shows {figure}, which the snapshot lacks"


@pytest.mark.parametrize("manifest", RENDERED, ids=lambda p: p.parent.name)
def test_every_interval_a_snapshot_prints_is_in_its_tables_or_judged_from_them_now(manifest):
    """Each number printed with an interval is a row of the snapshot's tables (value, low, high) or what the claims
    and the studies' own tables make of those tables today: no estimate the tables no longer hold."""
    snapshot = manifest.parent
    report = (snapshot / "report.md").read_text()
    now, rows = " ".join(derived_now(snapshot)), table_triples(snapshot)
    missing = [(v, u, b) for v, u, b in printed(report)
               if not held(rows, v, u, b) and f"{v}{u} [{b[0]}, {b[1]}]" not in now]
    assert printed(report) and missing == []


@pytest.mark.parametrize("manifest", RENDERED, ids=lambda p: p.parent.name)
def test_a_snapshot_prints_one_estimate_per_pair_in_ratio_and_difference(manifest):
    """A job row's ratio and its difference say the same of an effect (the interval excludes 1 exactly where the
    difference's excludes 0; a ratio of two overheads too), and a pair listed both ways round is one estimate
    mirrored."""
    for path in sorted((manifest.parent / "tables").glob("*/comparisons.csv")):
        rows = pd.read_csv(path, dtype={"process": str})
        rows = rows[(rows.process == "all") & rows.ratio.notna()]
        assert ((rows.ratio_ci_low > 1) == (rows.diff_ci_low_ms > 0)).all(), path
        assert ((rows.ratio_ci_high < 1) == (rows.diff_ci_high_ms < 0)).all(), path
        rows = rows[~rows.variant.str.contains(" - ")]
        flipped = rows.rename(columns={"variant": "baseline", "baseline": "variant"})
        both = rows.merge(flipped, on=["config_id", "variant", "baseline", "mode"], suffixes=("", "_back"))
        assert (both.ratio * both.ratio_back).round(9).eq(1).all(), path
        assert (both.diff_ci_low_ms + both.diff_ci_high_ms_back).abs().lt(1e-6).all(), path


@pytest.mark.workflow  # seconds of drawing per snapshot: kept out of the fast tier
@pytest.mark.parametrize("manifest", RENDERED, ids=lambda p: p.parent.name)
def test_a_snapshot_renders_again_from_its_tables_byte_for_byte(manifest, tmp_path):
    from jaxpitfalls.across_runs.reference.rendered import render

    copy = tmp_path / manifest.parent.name
    shutil.copytree(manifest.parent, copy)
    render(copy)
    drawn = ["report.md", "scorecard.png", *(p.relative_to(copy).as_posix() for p in copy.rglob("figures/*/*.png"))]
    assert [f for f in drawn if (copy / f).read_bytes() != (manifest.parent / f).read_bytes()] == []
    assert not re.search(r"\de[-+]\d", (copy / "report.md").read_text())  # no number in e-notation


def _run(tmp_path: Path, monkeypatch, *, earlier_job: bool = False) -> Path:
    """A finished run in miniature: report, a figure, tables, benchmark files and its bundle."""
    run = tmp_path / "run"
    files = {
        "reports/report.md": "# report\n\n![fig](figures/toy/speed.png)\n",
        "reports/figures/toy/speed.png": "png",
        "reports/scorecard.png": "png",
        "results/tables/run_summary.csv": "rule,job,seconds\n",
        "reports/report_settings.json": "{}",
        "results/tables/toy/environment.csv": "jax\n0.10.2\n",
        "results/tables/toy/comparisons.csv": "config_id,ratio\nbase,1.2\n",
        "results/tables/toy/checks.csv": "config_id,yardstick_ms\nbase,1.25\nwide,1.75\nold,\n",
        "results/runs/toy/base.json": "{}",
    }
    for name, text in files.items():
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_text(text)
    bench = run / "results/benchmarks/run_study/toy/base.tsv"
    bench.parent.mkdir(parents=True)
    bench.write_text("s\th:m:s\tmax_rss\n12.5\t0:00:12\t100.0\n")
    if earlier_job:
        old = run / "results/benchmarks/run_study/toy/old.tsv"
        old.write_text("s\th:m:s\tmax_rss\n1.0\t0:00:01\t100.0\n")
        os.utime(old, (0, 0))
    monkeypatch.chdir(run)
    bundle.make(list(files), "reports/bundle.tar.gz", {"studies": {}}, {"git": {"commit": "abc123", "dirty": False}})
    return run


def test_a_snapshot_copies_the_run_and_its_manifest_checks(tmp_path, monkeypatch):
    run = _run(tmp_path, monkeypatch)
    snap = reference.snapshot(run, tmp_path / "reference", preset="presets/toy.yaml")
    m = reference.check(snap)
    assert set(m["files"]) == {"report.md", "scorecard.png", "figures/toy/speed.png", "run_summary.csv",
                               "settings.json", "environment/toy.csv", "tables/toy/comparisons.csv",
                               "tables/toy/checks.csv"}
    assert m["files"]["report.md"]["bundle_path"] == "reports/report.md"
    assert (snap / "report.md").read_bytes() == (run / "reports/report.md").read_bytes()
    assert m["git"]["commit"] == "abc123" and m["wall_seconds"] == 12
    assert m["yardstick_ms"] == 1.5  # the machine's speed: the jobs' yardsticks' median, where recorded
    assert f"({snap.name}/report.md)" in (index := (tmp_path / "reference/README.md").read_text())
    assert "| 1.50 ms" in index
    again = reference.snapshot(run, tmp_path / "reference", preset="presets/toy.yaml")
    assert again.name == f"{snap.name}-2" and reference.check(snap)  # the day's first snapshot is kept
    assert m["status"] == publishing.UNREVIEWED  # publishing is a step of its own
    with pytest.raises(ValueError, match="0 published snapshots"):
        publishing.published(tmp_path / "reference")
    publishing.set_status(snap, publishing.PUBLISHED)
    publishing.set_status(again, publishing.PUBLISHED)  # the newer one replaces it, which then says so
    assert publishing.published(tmp_path / "reference") == again
    assert reference.check(snap)["status"] == f"not published: superseded by {again.name}"
    publishing.set_status(snap, "not published: a slower VM (yardstick 0.6 ms against 0.26)")
    index = (tmp_path / "reference/README.md").read_text()
    assert "| **yes** " in index and "| no: a slower VM (yardstick 0.6 ms against 0.26) " in index
    with pytest.raises(ValueError, match="not published: <why>"):
        publishing.set_status(snap, "withdrawn")

    (snap / "figures/toy/speed.png").write_text("edited")
    with pytest.raises(reference.InvalidReference, match="changed.*speed.png"):
        reference.check(snap)
    (snap / "figures/toy/speed.png").write_text("png")
    (snap / "extra.csv").write_text("x")
    with pytest.raises(reference.InvalidReference, match="not in the manifest: extra.csv"):
        reference.check(snap)
    (snap / "extra.csv").unlink()
    (snap / "report.md").unlink()
    with pytest.raises(reference.InvalidReference, match="missing: report.md"):
        reference.check(snap)


def test_a_snapshot_refuses_a_report_newer_than_the_bundle(tmp_path, monkeypatch):
    run = _run(tmp_path, monkeypatch)
    (run / "reports/report.md").write_text("# edited after the bundle\n")
    with pytest.raises(reference.InvalidReference, match="not the file the run's bundle holds"):
        reference.snapshot(run, tmp_path / "reference", preset="presets/toy.yaml")
    assert not (tmp_path / "reference").exists()


def test_a_snapshot_refuses_a_partial_rerun(tmp_path, monkeypatch):
    run = _run(tmp_path, monkeypatch, earlier_job=True)
    with pytest.raises(reference.InvalidReference, match="1 jobs come from earlier invocations"):
        reference.snapshot(run, tmp_path / "reference", preset="presets/toy.yaml")


def test_the_tree_keeps_one_published_snapshot_and_the_index_every_other_with_its_commit():
    """Published results are not source: docs/results/reference held 37 snapshots (78% of the tracked files); now the
    published one, and the index each other's row with the commit that still holds it."""
    assert [m.parent for m in SNAPSHOTS] == [publishing.published(ROOT / "docs/results/reference")]
    index = (ROOT / "docs/results/reference" / publishing.INDEX).read_text()
    assert index.count("| **yes** ") == 1
    archived = json.loads((ROOT / "docs/results/reference" / publishing.ARCHIVE).read_text())
    for m in archived:
        assert f"{m['date']} (in git at `{m['kept_at']}`)" in index and m["status"].startswith("not published: ")


def test_archiving_keeps_the_published_snapshot_and_each_other_s_row(tmp_path):
    for name, status in (("2026-11-27", "not published: superseded"), ("2026-11-28", publishing.PUBLISHED),
                         ("2026-11-28-2", "not published: a slower VM")):
        (tmp_path / name).mkdir()
        manifest = {"date": name, "preset": "p", "wall_seconds": 60, "status": status, "files": {}}
        (tmp_path / name / publishing.MANIFEST).write_text(json.dumps(manifest))
    assert publishing.archive(tmp_path, "abc1234") == ["2026-11-28-2", "2026-11-27"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["2026-11-28"]
    index = (tmp_path / publishing.INDEX).read_text()
    assert "| 2026-11-28-2 (in git at `abc1234`) | no: a slower VM " in index
    assert "| [2026-11-28](2026-11-28/report.md) | **yes** " in index
    assert index.index("2026-11-28-2") < index.index("[2026-11-28]") < index.index("2026-11-27 (")  # newest first


def test_the_index_lists_a_day_s_runs_in_the_order_they_ran(tmp_path):
    """A day's tenth run is named -10: sorted by name it came before -9 (the published index did so)."""
    names = ["2026-11-27", "2026-11-27-2", "2026-11-27-9", "2026-11-27-12", "2026-11-28"]
    for name in names:
        (tmp_path / name).mkdir()
        manifest = {"date": name, "preset": "p", "wall_seconds": 60}
        (tmp_path / name / publishing.MANIFEST).write_text(json.dumps(manifest))
    publishing.write_index(tmp_path)
    index = (tmp_path / publishing.INDEX).read_text()
    assert sorted(names, key=lambda n: index.index(f"[{n}]")) == names[::-1]


@pytest.mark.parametrize("sums", sorted((ROOT / "docs/results/gpu").glob("*/SHA256SUMS")), ids=lambda p: p.parent.name)
def test_a_gpu_snapshot_holds_exactly_the_files_its_checksums_list(sums):
    """docs/results/gpu/ keeps runs made on a lent accelerator, finished here (not one invocation: no manifest); its
    SHA256SUMS is what a reader checks: a file ignored by git (runs/ is) would be listed and missing."""
    listed = dict(reversed(line.split(maxsplit=1)) for line in sums.read_text().splitlines())
    present = {f"./{p.relative_to(sums.parent).as_posix()}" for p in sums.parent.rglob("*") if p.is_file()}
    assert set(listed) == present - {"./SHA256SUMS"}
    assert all(reference.sha256(sums.parent / name) == digest for name, digest in listed.items())
