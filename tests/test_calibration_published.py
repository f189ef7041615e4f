"""The published calibration (across_runs/calibration/published.py): its page is what this checkout renders from what
its run timed (docs/results/calibration/), so a change to how the calibration judges or words is published by `rejudge
--write` and cannot drift from the page unseen; `publish` replaces the page and its folder whole, or not at all."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from configs import ROOT

from jaxpitfalls.across_runs.calibration import published, timed

DOCS = ROOT / "docs" / "results"


@pytest.mark.workflow  # minutes: the page simulates the studies' intervals and 1,000 null histories again
def test_the_published_page_is_what_this_checkout_renders_from_what_it_timed():
    page = (DOCS / published.PAGE).read_text()
    lines = published.changed_lines(page, published.rejudged(DOCS))
    assert not lines, ("docs/results/calibration.md is not what this checkout renders from "
                       "docs/results/calibration/: run `jaxpitfalls calibration rejudge --write`\n" + "\n".join(lines))


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


def test_rejudge_prints_the_lines_that_change_and_writes_them_only_when_asked(tmp_path, capsys, monkeypatch):
    docs = tmp_path / "docs"
    now = (DOCS / published.PAGE).read_text()  # as if this checkout rendered the published page
    monkeypatch.setattr(published, "rejudged", lambda at: now if at == docs else None)
    docs.mkdir()
    (docs / published.PAGE).write_text(now.replace("# Calibration:", "# An older title:", 1))
    published.main(["--docs", str(docs), "rejudge"])
    assert "-# An older title:" in capsys.readouterr().out
    assert (docs / published.PAGE).read_text().startswith("# An older title:")  # not written unasked
    published.main(["--docs", str(docs), "rejudge", "--write"])
    assert (docs / published.PAGE).read_text() == now
    published.main(["--docs", str(docs), "rejudge"])
    assert "no line of" in capsys.readouterr().out.splitlines()[-1]
