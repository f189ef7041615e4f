"""The published calibration (across_runs/calibration/published.py): its page is what this checkout renders from what
its run timed (docs/results/calibration/), so a change to how the calibration judges or words is published by `rejudge
--write` and cannot drift from the page unseen; `publish` replaces the page and its folder whole, or not at all."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import configs
import pandas as pd
import pytest
from configs import ROOT

from jaxpitfalls.across_runs.calibration import published, timed
from jaxpitfalls.across_runs.history import null_drawn

DOCS = ROOT / "docs" / "results"


@pytest.mark.slow  # the page simulates the studies' intervals again
def test_the_published_page_is_what_this_checkout_renders_from_what_it_timed():
    page = (DOCS / published.PAGE).read_text()
    lines = published.changed_lines(page, published.rejudged(DOCS))
    assert not lines, ("docs/results/calibration.md is not what this checkout renders from "
                       "docs/results/calibration/: run `jaxpitfalls calibration rejudge --write`\n" + "\n".join(lines))


FIRST = 20  # histories of each arm drawn again (docs/decisions.md: "The null histories' outcomes kept")


@pytest.mark.slow
def test_the_kept_null_histories_begin_as_this_checkout_draws_them():
    """The page counts its null-history rates from the kept outcomes (null_histories.csv); each arm's stream is
    drawn again for its first histories, through this checkout's fit."""
    kept = timed.read(DOCS / published.TIMED)
    again = null_drawn.drawn_again(kept.history_ratios, kept.null_outcomes, FIRST)
    assert again.outcomes.str.len().eq(kept.null_outcomes.outcomes.str.len().clip(upper=FIRST)).all()
    differ = again[again.outcomes != kept.null_outcomes.outcomes.str[:FIRST]]
    assert differ.empty, ("docs/results/calibration/null_histories.csv is not what this checkout draws: run "
                          f"`jaxpitfalls calibration rejudge --write`\n{differ}")


def _run(root: Path, page: str) -> Path:
    """A calibration run's outputs: its page, and what it timed (the published calibration's)."""
    shutil.copytree(DOCS / published.TIMED, root / "results" / "calibration")
    (root / "results" / "calibration" / ".snakemake_timestamp").touch()  # the rule's directory() output marks it
    (root / "reports").mkdir(parents=True)
    (root / "reports" / "calibration.md").write_text(page)
    return root


def test_publish_puts_a_runs_page_and_what_it_timed_in_place_of_the_published_ones(tmp_path):
    docs = tmp_path / "docs"
    (docs / published.TIMED).mkdir(parents=True)
    (docs / published.TIMED / "from_an_older_run.json").write_text("{}")
    (docs / published.PAGE).write_text("the older page")
    published.publish(_run(tmp_path / "run", "the new page"), docs)
    assert (docs / published.PAGE).read_text() == "the new page"
    kept = sorted(p.name for p in (docs / published.TIMED).iterdir())
    assert kept == sorted(p.name for p in (DOCS / published.TIMED).iterdir())  # older file, marker gone
    assert timed.read(docs / published.TIMED).table.equals(timed.read(DOCS / published.TIMED).table)


def test_a_run_that_kept_nothing_is_refused_before_anything_is_replaced(tmp_path):
    docs = tmp_path / "docs"
    (docs / published.TIMED).mkdir(parents=True)
    (docs / published.PAGE).write_text("the published page")
    run = tmp_path / "run"
    (run / "reports").mkdir(parents=True)
    (run / "reports" / "calibration.md").write_text("a page without what it timed")
    with pytest.raises(FileNotFoundError, match="holds no kept calibration"):
        published.publish(run, docs)
    assert (docs / published.PAGE).read_text() == "the published page"


def test_a_run_kept_without_the_null_histories_its_history_draws_is_refused(tmp_path):
    """A calibration kept by a checkout that did not draw its null histories would publish a page no checkout renders:
    refused before anything is replaced."""
    docs = tmp_path / "docs"
    (docs / published.TIMED).mkdir(parents=True)
    (docs / published.PAGE).write_text("the published page")
    run = _run(tmp_path / "run", "a page of an older checkout")
    (run / "results" / "calibration" / timed.NULL_DRAWN).unlink()
    with pytest.raises(FileNotFoundError, match="holds no drawn null histories"):
        published.publish(run, docs)
    assert (docs / published.PAGE).read_text() == "the published page"


def test_rejudge_prints_the_lines_that_change_and_writes_them_only_when_asked(tmp_path, capsys, monkeypatch):
    docs = tmp_path / "docs"
    now = (DOCS / published.PAGE).read_text()  # as if this checkout rendered the published page
    monkeypatch.setattr(published, "_judged_again", lambda at, out, redraw: (now, False) if at == docs else None)
    shutil.copytree(DOCS / published.TIMED, docs / published.TIMED)
    (docs / published.PAGE).write_text(now.replace("# Calibration:", "# An older title:", 1))
    published.main(["rejudge", "--docs", str(docs)])
    assert "-# An older title:" in capsys.readouterr().out
    assert (docs / published.PAGE).read_text().startswith("# An older title:")  # not written unasked
    published.main(["rejudge", "--write", "--docs", str(docs)])
    assert (docs / published.PAGE).read_text() == now
    published.main(["rejudge", "--docs", str(docs)])
    assert "no line of" in capsys.readouterr().out.splitlines()[-1]


def test_lockstep_rows_are_estimated_again_from_the_kept_jobs(tmp_path):
    """A kept table whose row no longer is what this checkout's estimator makes of its job (an estimator changed
    since) is estimated again from the kept jobs on `rejudge --write`, so the page never mixes two estimators;
    a table that is, is copied as kept."""
    kept = tmp_path / "kept"
    shutil.copytree(DOCS / published.TIMED, kept)
    assert not timed.estimated_now(kept, tmp_path / "as_is")
    assert (tmp_path / "as_is" / timed.LOCKSTEP).read_bytes() == (kept / timed.LOCKSTEP).read_bytes()
    table = timed.read(kept).table
    table.loc[0, "ratio_ci_high"] += 0.01
    table.to_csv(kept / timed.LOCKSTEP, index=False)
    assert timed.estimated_now(kept, tmp_path / "now")
    pd.testing.assert_frame_equal(timed.read(tmp_path / "now").table, timed.read(DOCS / published.TIMED).table,
                                  check_exact=False, rtol=1e-9, atol=0.0)  # BLAS rounds the last bits by CPU


def _pyperf_run(root: Path, pairs: list[dict]) -> Path:
    """A `make calibrate-pyperf` run's output: its pairs in one file."""
    (root / "results" / "pyperf").mkdir(parents=True)
    (root / "results" / "pyperf" / "pairs.json").write_text(json.dumps(pairs))
    return root


def test_publish_pyperf_puts_a_runs_pairs_in_place_kept_as_timed_apart_and_renders_the_page(tmp_path, monkeypatch):
    """The pairs are timed apart from the calibration (`make calibrate-pyperf`): publishing them replaces the kept
    pairs alone, marks them timed apart (so the page does not count their machine time as the run's), and writes
    the page rendered again from them."""
    docs = tmp_path / "docs"
    shutil.copytree(DOCS / published.TIMED, docs / published.TIMED)
    (docs / published.PAGE).write_text("the older page")
    monkeypatch.setattr(published, "_rendered", lambda kept, at: f"a page from {len(timed.read(kept).pyperf)} pairs, "
                        f"published: {timed.read(kept).compare['pyperf']['published']}")
    pairs = timed.read(DOCS / published.TIMED).pyperf[:2]
    changed = published.publish_pyperf(_pyperf_run(tmp_path / "run", pairs), docs)
    assert (docs / published.PAGE).read_text() == "a page from 2 pairs, published: True"
    assert "-the older page" in changed and "+a page from 2 pairs, published: True" in changed
    kept, before = timed.read(docs / published.TIMED), timed.read(DOCS / published.TIMED)
    assert kept.pyperf == pairs and kept.table.equals(before.table) and kept.jobs == before.jobs
    assert kept.compare["pyperf"] | {"options": []} == before.compare["pyperf"] | {"pairs": 2, "published": True,
                                                                                    "options": []}
    assert sorted(p.name for p in (docs / published.TIMED).iterdir()) == sorted(
        p.name for p in (DOCS / published.TIMED).iterdir())


def test_pairs_of_a_configuration_the_calibration_never_timed_are_refused_before_anything_is_replaced(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS / published.TIMED, docs / published.TIMED)
    (docs / published.PAGE).write_text("the published page")
    elsewhere = [pair | {"config_id": "layers99"} for pair in timed.read(DOCS / published.TIMED).pyperf]
    with pytest.raises(ValueError, match="not one callable of a configuration the published calibration's"):
        published.publish_pyperf(_pyperf_run(tmp_path / "run", elsewhere), docs)
    mixed = [pair | {"variant": "jit_flat"} if n else pair for n, pair in enumerate(timed.read(DOCS / published.TIMED)
                                                                                   .pyperf)]
    with pytest.raises(ValueError, match="not one callable"):
        published.publish_pyperf(_pyperf_run(tmp_path / "mixed", mixed), docs)
    with pytest.raises(ValueError, match="holds no pair"):
        published.publish_pyperf(_pyperf_run(tmp_path / "empty", []), docs)
    assert (docs / published.PAGE).read_text() == "the published page"
    assert timed.read(docs / published.TIMED).pyperf == timed.read(DOCS / published.TIMED).pyperf


def test_pairs_whose_page_cannot_be_rendered_replace_nothing(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS / published.TIMED, docs / published.TIMED)
    (docs / published.PAGE).write_text("the published page")

    def fails(kept, at):
        raise KeyError("a variant the lockstep never timed")

    monkeypatch.setattr(published, "_rendered", fails)
    with pytest.raises(KeyError):
        published.publish_pyperf(_pyperf_run(tmp_path / "run", timed.read(DOCS / published.TIMED).pyperf[:1]), docs)
    assert (docs / published.PAGE).read_text() == "the published page"
    assert timed.read(docs / published.TIMED).pyperf == timed.read(DOCS / published.TIMED).pyperf


@pytest.mark.slow
def test_make_calibrate_reads_the_published_pairs_and_calibrate_pyperf_times_them(tmp_path):
    """presets/calibrate.yaml times no pyperf job in `make calibrate` (its page reads the published pairs); the
    pairs' own target times every pair of the preset."""
    def dry_run(target: str, *overlays: Path) -> subprocess.CompletedProcess:
        return configs.dry_run(tmp_path, ["presets/calibrate.yaml", *overlays], target)

    def jobs(target: str) -> str:
        proc = dry_run(target)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        return proc.stdout

    calibrate, pyperf = jobs("reports/calibration.md"), jobs("results/pyperf/pairs.json")
    assert not re.search(r"^pyperf_pair\b", calibrate, re.M) and re.search(r"^lockstep\s+13$", calibrate, re.M)
    assert str(DOCS / published.TIMED / timed.PYPERF) in calibrate
    assert re.search(r"^pyperf_pair\s+5$", pyperf, re.M) and not re.search(r"^lockstep\b", pyperf, re.M)
    other = tmp_path / "other_callable.yaml"  # the published pairs timed blocked/filter_jit
    other.write_text(json.dumps({"compare": {"pyperf": {"callable": "blocked/jit_flat"}}}))
    refused = dry_run("reports/calibration.md", other)
    assert refused.returncode != 0 and "not blocked/jit_flat at this run's base" in refused.stdout + refused.stderr


def test_a_calibration_keeps_the_null_histories_its_history_draws_and_rejudge_draws_them_again(tmp_path, monkeypatch):
    """Kept with a history of releases timed twice, a calibration draws its null histories once (the page reads them);
    drawn again to the same outcomes nothing is written; `rejudge --write` puts outcomes that changed in place."""
    kept, drawn_to = timed.read(DOCS / published.TIMED), {"length": 1}
    monkeypatch.setattr(null_drawn, "drawn", lambda ratios: kept.null_outcomes.assign(
        outcomes=kept.null_outcomes.outcomes.str[:drawn_to["length"]] if len(ratios) == len(kept.history_ratios)
        else None))
    table, ratios, steps = tmp_path / "lockstep.csv", tmp_path / "history.csv", tmp_path / "steps.csv"
    kept.table.to_csv(table, index=False)
    kept.history_ratios.to_csv(ratios, index=False)
    kept.history_steps.to_csv(steps, index=False)
    runs = [tmp_path / f"job{i}.json" for i in range(len(kept.jobs))]
    for path, job in zip(runs, kept.jobs, strict=True):
        path.write_text(json.dumps(job))
    docs = tmp_path / "docs"
    timed.keep(docs / published.TIMED, str(table), list(map(str, runs)), [], kept.compare, kept.history, [str(steps)],
               [str(ratios)])
    assert timed.read(docs / published.TIMED).null_outcomes.outcomes.str.len().eq(1).all()
    assert not timed.drawn_now(docs / published.TIMED)
    (docs / published.PAGE).write_text("the older page")
    monkeypatch.setattr(published, "_rendered", lambda at, docs: "the page")
    drawn_to["length"] = 2
    published.main(["rejudge", "--write", "--docs", str(docs)])
    assert timed.read(docs / published.TIMED).null_outcomes.outcomes.str.len().eq(2).all()
    assert (docs / published.PAGE).read_text() == "the page"
