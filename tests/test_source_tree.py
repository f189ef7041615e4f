"""The source states each reason with its numbers and points to docs/decisions.md for the run that measured them:
a dated reference run is archived out of the tree (docs/reference/README.md), so only that page names one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for p in (ROOT / "src").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
DECISIONS = ROOT / "docs/decisions.md"


def lines(path: Path) -> list[tuple[str, str]]:
    """`path:line` and the line's text, for each line of a file under src/."""
    name = path.relative_to(ROOT).as_posix()
    return [(f"{name}:{n}", text.strip()) for n, text in enumerate(path.read_text().splitlines(), 1)]


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_no_file_under_src_names_a_dated_snapshot():
    dated = [f"{at}: {text}" for path in SOURCES for at, text in lines(path) if re.search(r"20\d\d-\d\d-\d\d", text)]
    assert not dated, ("state the reason and its numbers, and point to docs/decisions.md#<section> for the run "
                       "that measured them:\n" + "\n".join(dated))


def test_every_pointer_into_the_decisions_page_names_one_of_its_sections():
    sections = {anchor(h) for h in re.findall(r"^#+ (.+)$", DECISIONS.read_text(), re.MULTILINE)}
    unknown = [f"{at}: #{name}" for path in SOURCES for at, text in lines(path)
               for name in re.findall(r"docs/decisions\.md#([\w-]+)", text) if name not in sections]
    assert not unknown, f"no such section in docs/decisions.md: {unknown}"


def test_no_file_under_src_names_an_issue():
    """An issue number is a project's history, not a reason: the reason is said, its evidence in docs/decisions.md."""
    named = [f"{at}: {text}" for path in SOURCES for at, text in lines(path)
             if re.search(r"\bissues? #?\d+|\(#\d+\)", text, flags=re.IGNORECASE)]
    assert not named, "say the reason instead, its evidence in docs/decisions.md:\n" + "\n".join(named)
