"""A published reference judged again by this checkout's rules, from the tables it keeps.

A reference snapshot keeps each study's tables (report/reference/reference.py): everything its claims were judged on. A
change to a claim's rule or to the rule of what this hardware can show is then checked against published
numbers in seconds, not by an hour-long `make reference`: every claim's verdict as published and as judged now,
the changed ones first. A snapshot judged by the code that made it changes nothing (tests/test_rejudge.py).

    jaxpitfalls reference rejudge docs/reference/<snapshot> [--write]

With --write, the snapshot's claims sections and scorecard figure are written again by this checkout's rules
(report/reference/rerender.py): a change that only judges or words differently, published without timing a new run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from ..scorecard.build import study_claims
from ..scorecard.scorecard import RESTATED, VERDICT_MARK
from ..tables.aggregate import read_tables
from .reference import table_paths

VERDICT_OF_MARK = {mark: verdict for verdict, mark in VERDICT_MARK.items()}


class UnreadableSnapshot(ValueError):
    """A snapshot whose scorecard this checkout cannot read (an older report's layout)."""


def published_verdicts(report_md: str) -> dict[tuple[str, str], str]:
    """(study, claim text) -> verdict, read off the report's scorecard table: its `study` and `claim` columns
    (the first two) and its `verdict` column (the last: the cells between may hold anything)."""
    if "## Reproduction scorecard" not in report_md:
        raise UnreadableSnapshot("its report has no '## Reproduction scorecard' section")
    section = report_md.split("## Reproduction scorecard", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in section.splitlines()
            if line.startswith("|")]
    if not rows or rows[0][:2] != ["study", "claim"] or rows[0][-1] != "verdict":
        raise UnreadableSnapshot(f"its scorecard's columns are {rows[0] if rows else 'missing'}, not study, "
                                 "claim, ..., verdict")
    marks = {(cells[0], cells[1]): cells[-1].split(RESTATED)[0] for cells in rows[2:]}  # past header and rule
    unknown = sorted(set(marks.values()) - set(VERDICT_OF_MARK))
    if unknown:
        raise UnreadableSnapshot(f"its scorecard has verdicts this checkout does not name: {unknown}")
    return {key: VERDICT_OF_MARK[mark] for key, mark in marks.items()}


def _claims(study: str, paths: dict[str, str]) -> list[dict]:
    """The study's claims judged now on the snapshot's tables."""
    return study_claims(study, paths, read_tables(paths))


def rejudged(snapshot: Path) -> pd.DataFrame:
    """Every claim of every study the snapshot kept tables for: its verdict as published and as judged now,
    and what it measured now; the changed ones first."""
    kept = snapshot / "tables"
    studies = sorted(p.name for p in kept.iterdir() if p.is_dir()) if kept.is_dir() else []
    if not studies:
        raise FileNotFoundError(f"{snapshot} keeps no tables (snapshots published before they were kept)")
    published = published_verdicts((snapshot / "report.md").read_text())
    rows = [{"study": study, "claim": c["key"], "published": published.get((study, c["claim"]), "absent"),
             "now": c["verdict"], "measured now": c["measured"]}
            for study in studies for c in _claims(study, table_paths(snapshot, study))]
    table = pd.DataFrame(rows)
    table.insert(2, "changed", table.published != table.now)
    return table.sort_values("changed", ascending=False, kind="stable").reset_index(drop=True)


def main(argv: list[str]) -> int:
    write = "--write" in argv
    paths = [a for a in argv if a != "--write"]
    if len(paths) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    table = rejudged(Path(paths[0]))
    print(f"{int(table.changed.sum())} of {len(table)} verdicts changed (published -> now)\n")
    print(table.to_markdown(index=False))
    if write:
        from .rerender import rerender  # it reads this module's table paths

        rerender(paths[0])
        print(f"\nwrote {paths[0]}/report.md's claims sections and its scorecard figure by this checkout's rules")
    return 0
