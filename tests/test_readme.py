"""The README's summary is the published reference's: its numbers filled from that snapshot's tables
(across_runs/reference/readme.py), each one said by the report it links, and the link the published snapshot's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jaxpitfalls.across_runs.reference import published as publishing
from jaxpitfalls.across_runs.reference import readme

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()
START = README.index("## What the published reference found")
SUMMARY = README[START:README.index("\n## ", START + 3)]


def test_the_summary_links_the_published_snapshot():
    published = publishing.published(ROOT / "docs/results/reference")
    marked = {m["key"]: m["value"] for m in readme.MARKED.finditer(SUMMARY)}
    assert marked["snapshot.link"] == f"[{published.name}](docs/results/reference/{published.name}/report.md)"


def test_every_number_of_the_summary_is_the_published_snapshot_s():
    """Filled from the snapshot's tables judged by this checkout's rules: where the rules or the words change,
    the published snapshot is rejudged (rejudge --write) and the README filled again, or this names what drifted."""
    found = readme.values(publishing.published(ROOT / "docs/results/reference"))
    assert readme.drifted(SUMMARY, found) == []


def test_every_number_in_the_summary_appears_in_the_report_it_links():
    """No number typed by hand: each decimal of the summary (markers and prose) is in the linked report."""
    report = (publishing.published(ROOT / "docs/results/reference") / "report.md").read_text()
    numbers = set(re.findall(r"\d+\.\d+", re.sub(r"<!--.*?-->", "", SUMMARY)))
    assert numbers and not sorted(n for n in numbers if n not in report)


def test_a_marker_naming_no_value_and_a_drifted_number_are_named():
    found = {"tree_at.faster": "5.881x [5.864, 5.897]"}
    assert readme.fill("a <!-- tree_at.faster -->6x<!-- / --> gain", found) == (
        "a <!-- tree_at.faster -->5.881x [5.864, 5.897]<!-- / --> gain")
    assert readme.drifted("<!-- tree_at.faster -->6x<!-- / -->", found) == [
        "tree_at.faster: '6x' -> '5.881x [5.864, 5.897]'"]
    with pytest.raises(KeyError, match="tree_at.slower"):
        readme.fill("<!-- tree_at.slower -->1x<!-- / -->", found)


@pytest.mark.parametrize("page", sorted((ROOT / "docs/results/gpu").glob("*/README.md")), ids=lambda p: p.parent.name)
def test_an_accelerator_run_s_table_is_its_snapshot_s_judged_by_today_s_rules(page):
    """docs/results/gpu's README table: its numbers filled from that run's tables (its first README, typed by hand,
    put the un-jitted baseline's 248x in bold where the verdict rests on the jitted pair), the published CPU
    reference's beside them, each number said by the run's report or the reference's."""
    text = page.read_text()
    table = text[text.index("## What it shows"):text.index("\n## ", text.index("## What it shows") + 3)]
    published = publishing.published(ROOT / "docs/results/reference")
    found = readme.values(page.parent, page) | {f"published:{k}": v for k, v in readme.values(published).items()}
    assert readme.drifted(table, found) == []
    said = (page.parent / "report.md").read_text() + (published / "report.md").read_text()
    numbers = set(re.findall(r"\d+\.\d+", re.sub(r"<!--.*?-->", "", table)))
    assert numbers and not sorted(n for n in numbers if n not in said)
