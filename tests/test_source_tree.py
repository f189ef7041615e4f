"""The source states each reason with its numbers and points to docs/decisions.md for the run that measured them:
a dated reference run is archived out of the tree (docs/results/reference/README.md), so only that page names one."""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
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


MIB = 1 << 20


def _tracked() -> list[Path]:
    """Every file git tracks in this checkout (a fresh clone's files)."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / n for n in names.split("\0") if n and (ROOT / n).is_file()]


def test_no_large_file_is_tracked_and_the_published_results_keep_their_budget():
    """A clone carries the manual and one published result, not a run's bulk: no file over 1 MiB anywhere,
    docs/ at most 5 MiB, of it docs/results/ (everything generated) at most 4 MiB (docs/results/README.md)."""
    files = _tracked()
    large = [f"{p.relative_to(ROOT)}: {p.stat().st_size / MIB:.1f} MiB" for p in files if p.stat().st_size > MIB]
    docs = sum(p.stat().st_size for p in files if ROOT / "docs" in p.parents)
    published = sum(p.stat().st_size for p in files if ROOT / "docs/results" in p.parents)
    assert not large, large
    assert docs <= 5 * MIB and published <= 4 * MIB, (docs / MIB, published / MIB)


TESTS = sorted((ROOT / "tests").rglob("*.py"))
HISTORY = re.compile(r"\b20\d\d-\d\d-\d\d\b(?!T)|\bissues? #?\d+|\(#\d+\)", re.IGNORECASE)


def _prose(path: Path) -> list[tuple[int, str]]:
    """A Python file's comments and docstrings, by line: what a test says, not the data it uses (a snapshot
    named by its date is data)."""
    text = path.read_text()
    said = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            said.append((node.body[0].lineno, ast.get_docstring(node)))
    return said


def test_no_test_says_a_date_or_an_issue():
    """A test states what it checks and why; which run or issue once showed it is history, kept in
    docs/decisions.md."""
    named = [f"{path.relative_to(ROOT)}:{line}: {HISTORY.search(text).group()}" for path in TESTS
             for line, text in _prose(path) if HISTORY.search(text)]
    assert not named, named


def test_the_history_check_finds_a_run_named_in_a_comment(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""Seen in the 2026-11-27-7 reference."""\nNAME = "2026-11-28"  # issue 70\n')
    assert [HISTORY.search(text).group() for _, text in _prose(sample)] == ["issue 70", "2026-11-27"]


def test_docstrings_say_what_and_why_in_a_few_lines():
    """Docstrings at most 15% of src's characters: what a module or function is for and why, not a lab notebook
    (measured figures and the runs behind them go to docs/decisions.md)."""
    total = said = 0
    for path in (ROOT / "src" / "jaxpitfalls").rglob("*.py"):
        text = path.read_text()
        total += len(text)
        said += sum(len(ast.get_source_segment(text, node.body[0]) or "") for node in ast.walk(ast.parse(text))
                    if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                    and ast.get_docstring(node, clean=False))
    assert said <= 0.15 * total, f"docstrings are {said / total:.1%} of src's characters"


def test_every_folder_the_rules_join_onto_the_workflow_s_root_is_in_the_checkout():
    """A path a rule builds from the checkout's root (`Path(workflow.basedir) / "docs" / ...`) names a folder
    the tree holds: a folder that moved would otherwise read as absent, and its rule quietly go without it."""
    rules = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]
    joined = [re.findall(r'"([^"]+)"', m) for path in rules
              for m in re.findall(r"Path\(workflow\.basedir\)((?:\s*/\s*\"[^\"]+\")+)", path.read_text())]
    assert joined, "no path built from the workflow's root found: the pattern no longer matches the rules"
    missing = ["/".join(parts) for parts in joined if not ROOT.joinpath(*parts).exists()]
    assert not missing, missing


def test_no_test_is_grouped_by_a_mark_the_pinned_pytest_xdist_ignores():
    """pytest-xdist's loadgroup rewrites a node id the pinned pytest no longer reads, so a group would promise
    one worker and give two (a module fixture made twice): `make test` sends a whole file to one worker."""
    grouped = [path.name for path in TESTS if re.search(r"mark\.xdist_group\(", path.read_text())]
    launchers = [name for name in ("Makefile", "pyproject.toml", ".ci/run") if "loadgroup" in (ROOT / name).read_text()]
    assert not grouped and not launchers, (grouped, launchers)


def test_the_files_run_first_are_test_files_and_make_test_keeps_their_order():
    """A renamed test file would silently drop out of the longest-first order (conftest.py); pytest-xdist's own
    reorder by number of tests would undo it."""
    from conftest import LONGEST_FIRST

    assert not set(LONGEST_FIRST) - {path.name for path in TESTS}, LONGEST_FIRST
    assert "--no-loadscope-reorder" in (ROOT / "Makefile").read_text()
