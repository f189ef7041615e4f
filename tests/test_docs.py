"""The README and the pages under docs/ link only to what a fresh clone has: every relative link resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs/results").glob("*.md")),
         *sorted((ROOT / "docs/results").glob("*/*/README.md"))]


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves_inside_the_repository(page):
    prose = re.sub(r"^```.*?^```$", "", page.read_text(), flags=re.M | re.S)  # code is not links: f[k](x)
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose)
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    missing = [link for link in local if not (page.parent / link).resolve().exists()]
    outside = [link for link in local if ROOT not in (page.parent / link).resolve().parents]
    assert not missing and not outside, {"missing": missing, "outside the repository": outside}


def test_the_claims_page_is_the_one_the_specs_generate():
    """docs/results/claims.md states every write-up's claims from the specs the report judges them from: edited by
    hand or left behind by a spec's edit, it fails here (regenerate it as its first lines say)."""
    from jaxpitfalls.report.scorecard import claims_page

    assert (ROOT / "docs/results/claims.md").read_text() == claims_page.page(), \
        "docs/results/claims.md is stale: jaxpitfalls claims docs/results/claims.md"


def test_the_readme_is_short_and_every_page_under_docs_is_linked_from_it():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 170
    unlinked = [p.name for p in (ROOT / "docs").glob("*.md") if f"(docs/{p.name})" not in readme]
    assert not unlinked, f"pages under docs/ the README does not link: {unlinked}"


def test_adding_a_study_shows_the_toys_own_code_and_config_block():
    """docs/adding-a-study.md walks a user through tests/new_study/toy: every file of the toy, as it is (the
    study tests/test_new_study.py runs through every rule), and the config block that test runs it with."""
    import yaml
    from test_new_study import BLOCK, TOY

    page = (ROOT / "docs/adding-a-study.md").read_text()
    shown = dict(re.findall(r"^### `toy/([^`]+)`\n\n```[a-z]*\n(.*?)\n```$", page, flags=re.M | re.S))
    files = {p.name: p.read_text().rstrip() for p in TOY.iterdir() if p.is_file()}
    assert set(shown) == set(files), f"toy files shown or kept, not both: {set(shown) ^ set(files)}"
    stale = [name for name, text in files.items() if shown[name] != text]
    assert not stale, f"docs/adding-a-study.md shows an old {stale}: paste the toy's file again"
    (config,) = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(study_folders.*?)\n```", page, flags=re.S)]
    assert config["studies"]["toy"] == BLOCK["toy"] and config["study_folders"]


@pytest.mark.parametrize("page", ["README.md", "docs/your-own-code.md"])
def test_the_pages_show_the_mlp_example_as_it_is(page):
    shown = (ROOT / page).read_text()
    assert (ROOT / "examples/mlp_step.py").read_text().strip() in shown


MANUAL = [p for p in sorted((ROOT / "docs").glob("*.md")) if p.name != "decisions.md"]
DIARY = re.compile(r"\b20\d\d-\d\d-\d\d\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")


@pytest.mark.parametrize("page", MANUAL, ids=lambda p: p.name)
def test_the_manual_keeps_no_run_diary(page):
    """A manual page says how to use the tool and what it found, plainly; which run on which day at which commit
    is evidence, kept in docs/decisions.md (link targets, such as a dated snapshot's folder, are paths)."""
    prose = re.sub(r"\]\([^)]*\)", "]", page.read_text())
    assert not DIARY.findall(prose), DIARY.findall(prose)


def test_the_manual_and_the_makefile_call_one_command():
    """Everything that is not a Snakemake target is a `jaxpitfalls` subcommand (pyproject's console script):
    no page or Makefile target runs a module of the package as `python -m`."""
    pages = [ROOT / "README.md", ROOT / "Makefile", *sorted((ROOT / "docs").glob("*.md"))]
    found = [p.name for p in pages if "python -m jaxpitfalls" in p.read_text()]
    assert not found, found
